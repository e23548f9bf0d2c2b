// SPDX-License-Identifier: GPL-2.0-only
/* Size display units: see units.h. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "common/util/units.h"

static const char *const suffix_binary[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
static const char *const suffix_decimal[] = { "B", "kB", "MB", "GB", "TB", "PB", "EB" };

/*
 * btrfs-progs' rule (common/util/units.c there): a mode (raw, base 1024, base
 * 1000) and a fixed unit, set apart.  --raw, --human-readable, -h and -H
 * set both, the fixed unit cleared; --iec and --si set only the mode;
 * --kbytes ... set only the unit.  Raw mode prints bytes whatever the
 * unit, so "--raw --kbytes" and "--kbytes --raw" both print bytes, while
 * "--raw --si" is human-readable base 1000.
 */
enum unit_kind { U_RAW, U_HUMAN, U_HUMAN_SI, U_IEC, U_SI, U_FIXED };

struct unit_opt {
	const char *name;
	char shortopt;
	enum unit_kind kind;
	unsigned int fixed;	/* U_FIXED: 1 = K ... 4 = T */
};

static const struct unit_opt unit_opts[] = {
	{ "--raw", 'b', U_RAW, 0 },
	{ "--human-readable", 'h', U_HUMAN, 0 },
	{ NULL, 'H', U_HUMAN_SI, 0 },
	{ "--iec", 0, U_IEC, 0 },
	{ "--si", 0, U_SI, 0 },
	{ "--kbytes", 'k', U_FIXED, 1 },
	{ "--mbytes", 'm', U_FIXED, 2 },
	{ "--gbytes", 'g', U_FIXED, 3 },
	{ "--tbytes", 't', U_FIXED, 4 },
};

static unsigned int apply_unit(unsigned int mode, const struct unit_opt *u)
{
	switch (u->kind) {
	case U_RAW:
		return UNITS_RAW;
	case U_HUMAN:
		return UNITS_DEFAULT;
	case U_HUMAN_SI:
		return UNITS_DECIMAL;
	case U_IEC:
		return mode & ~(UNITS_RAW | UNITS_DECIMAL);
	case U_SI:
		return (mode & ~UNITS_RAW) | UNITS_DECIMAL;
	case U_FIXED:
	default:
		return (mode & ~UNITS_FIXED_MASK) | (u->fixed << UNITS_FIXED_SHIFT);
	}
}

static const struct unit_opt *match_unit(const char *arg, bool short_opts)
{
	for (size_t i = 0; i < sizeof(unit_opts) / sizeof(unit_opts[0]); i++) {
		const struct unit_opt *u = &unit_opts[i];

		if (u->name && !strcmp(arg, u->name))
			return u;
		if (short_opts && u->shortopt && arg[0] == '-' && arg[1] == u->shortopt &&
		    !arg[2])
			return u;
	}
	return NULL;
}

unsigned int units_from_args(int *argc, char **argv, bool short_opts)
{
	unsigned int mode = UNITS_DEFAULT;
	int i, out = 1;

	for (i = 1; i < *argc; i++) {
		const struct unit_opt *u;

		if (!strcmp(argv[i], "--"))
			break;
		u = match_unit(argv[i], short_opts);
		if (u) {
			mode = apply_unit(mode, u);
			continue;
		}
		argv[out++] = argv[i];
	}
	for (; i < *argc; i++)
		argv[out++] = argv[i];
	argv[out] = NULL;
	*argc = out;
	return mode;
}

const char *pretty_size(uint64_t size, unsigned int mode, char *buf)
{
	const char *const *suffix = (mode & UNITS_DECIMAL) ? suffix_decimal : suffix_binary;
	uint64_t base = (mode & UNITS_DECIMAL) ? 1000 : 1024;
	unsigned int fixed = (mode & UNITS_FIXED_MASK) >> UNITS_FIXED_SHIFT;
	uint64_t last = size, mult = 1;
	unsigned int divs = 0;
	float value;

	if (mode & UNITS_RAW) {
		snprintf(buf, UNITS_BUFSIZE, "%" PRIu64, size);
		return buf;
	}
	if (fixed) {
		for (divs = 0; divs < fixed; divs++)
			mult *= base;
		value = (float)size / (float)mult;
		snprintf(buf, UNITS_BUFSIZE, "%.2f%s", value, suffix[fixed]);
		return buf;
	}
	/* integer steps while the value stays >= base, the last step in float */
	while (size >= base) {
		last = size;
		size /= base;
		divs++;
	}
	value = divs ? (float)last / (float)base : (float)last;
	snprintf(buf, UNITS_BUFSIZE, "%.2f%s", value, suffix[divs]);
	return buf;
}
