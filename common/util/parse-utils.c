// SPDX-License-Identifier: GPL-2.0-only
/* Command-line value parsers: see parse-utils.h. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/util/parse-utils.h"

/* Parse leading decimal digits of @s into *out; *end points past them. */
static int parse_digits(const char *s, uint64_t *out, const char **end)
{
	uint64_t v = 0;
	const char *p = s;

	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		unsigned int d = (unsigned int)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	*end = p;
	return 0;
}

int parse_u64(const char *s, uint64_t *out)
{
	const char *end;
	int ret;

	if (!s || !*s)
		return -EINVAL;
	if (*s == '-')
		return isdigit((unsigned char)s[1]) ? -EDOM : -EINVAL;
	ret = parse_digits(s, out, &end);
	if (ret)
		return ret;
	return *end ? -EINVAL : 0;
}

/*
 * The multiplier a size suffix stands for: one letter b k m g t p e (any
 * case), or KiB MiB ... EiB (any case); all powers of 1024.  Decimal units
 * ("MB") are refused: btrfs-progs reads "10M" as MiB, and "10MB" is too
 * easily meant as 10^7.  Returns the shift (0 for bytes), or -1.
 */
static int size_suffix_shift(const char *suf)
{
	static const char letters[] = "bkmgtpe";
	const char *pos;

	if (!*suf)
		return 0;
	pos = strchr(letters, tolower((unsigned char)*suf));
	if (!pos)
		return -1;
	if (!suf[1])
		return 10 * (int)(pos - letters);
	if (pos != letters && strlen(suf) == 3 && tolower((unsigned char)suf[1]) == 'i' &&
	    tolower((unsigned char)suf[2]) == 'b')
		return 10 * (int)(pos - letters);
	return -1;
}

int parse_size(const char *s, bool allow_none, uint64_t *out, bool *is_none)
{
	const char *end, *suf;
	uint64_t v, frac = 0, scale = 1;
	int shift, ret;

	if (is_none)
		*is_none = false;
	if (!s || !*s)
		return -EINVAL;
	if (allow_none && !strcasecmp(s, "none")) {
		*out = 0;
		if (is_none)
			*is_none = true;
		return 0;
	}
	if (*s == '-')
		return isdigit((unsigned char)s[1]) ? -EDOM : -EINVAL;
	ret = parse_digits(s, &v, &end);
	if (ret)
		return ret;
	suf = end;
	if (*end == '.') {
		/* a fraction of a unit, "1.5G": at most 18 digits, rounded down */
		for (suf = end + 1; isdigit((unsigned char)*suf); suf++) {
			if (scale >= 1000000000000000000ULL)
				return -EINVAL;
			frac = frac * 10 + (uint64_t)(*suf - '0');
			scale *= 10;
		}
		if (suf == end + 1)
			return -EINVAL;
	}
	shift = size_suffix_shift(suf);
	if (shift < 0)
		return -EINVAL;
	if (scale > 1 && !shift)
		return -EINVAL;		/* a fraction of a byte */
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	v <<= shift;
	if (scale > 1) {
		/* frac / scale of 2^shift, without overflow: shift <= 60, scale <= 10^18 */
		unsigned __int128 part = ((unsigned __int128)frac << shift) / scale;

		if (v > UINT64_MAX - (uint64_t)part)
			return -ERANGE;
		v += (uint64_t)part;
	}
	*out = v;
	return 0;
}

int parse_qgroupid_strict(const char *s, uint64_t *out)
{
	uint64_t level, id;
	const char *end;
	int ret;

	if (!s)
		return -EINVAL;
	ret = parse_digits(s, &level, &end);
	if (ret)
		return ret;
	if (*end != '/')
		return -EINVAL;
	ret = parse_digits(end + 1, &id, &end);
	if (ret)
		return ret;
	if (*end)
		return -EINVAL;
	if (level >= (1ULL << 16) || id >= (1ULL << 48))
		return -ERANGE;
	if (level == 0 && id == 0)
		return -EINVAL;
	*out = (level << 48) | id;
	return 0;
}

int parse_qgroupid(const char *s, uint64_t *out)
{
	uint64_t id;
	int ret;

	if (s && strchr(s, '/'))
		return parse_qgroupid_strict(s, out);
	ret = parse_u64(s, &id);
	if (ret)
		return ret;
	if (id == 0)
		return -EINVAL;
	if (id >= (1ULL << 48))
		return -ERANGE;
	*out = id;
	return 0;
}

const char *parse_strerror(int err, const char *what)
{
	switch (err) {
	case -ERANGE:
		return "value too large";
	case -EDOM:
		return "negative value not allowed";
	default:
		return what;
	}
}

const char *parse_size_strerror(int err, const char *what)
{
	if (err == -ERANGE)
		return "too large: at most " PARSE_SIZE_MAX_TEXT;
	return parse_strerror(err, what);
}

int parse_sort_keys(const char *text, const char *const *names, size_t nr_names,
		    struct vc_sort_spec *spec)
{
	char *copy = strdup(text), *tok, *save = NULL;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool desc = false, found = false;

		if (*tok == '+' || *tok == '-')
			desc = *tok++ == '-';
		for (size_t i = 0; i < nr_names; i++) {
			if (strcmp(tok, names[i]))
				continue;
			if (spec->nr == VC_SORT_MAX) {
				ret = -E2BIG;
				break;
			}
			spec->key[spec->nr] = (int)i;
			spec->desc[spec->nr++] = desc;
			found = true;
		}
		if (!found || ret) {
			ret = ret ? ret : -EINVAL;
			break;
		}
	}
	if (!ret && !spec->nr)
		ret = -EINVAL;
	free(copy);
	return ret;
}
