// SPDX-License-Identifier: GPL-2.0-only
/* Size display units: see units.h. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "common/units.h"

static const char *const suffix_binary[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
static const char *const suffix_decimal[] = { "B", "kB", "MB", "GB", "TB", "PB", "EB" };

struct unit_opt {
	const char *name;
	char shortopt;
	int kind;	/* 0 raw, 1 human, 2 iec, 3 si, 4.. fixed exponent + 3 */
};

static const struct unit_opt unit_opts[] = {
	{ "--raw", 'b', 0 },
	{ "--human-readable", 'h', 1 },
	{ "--iec", 0, 2 },
	{ "--si", 'H', 3 },
	{ "--kbytes", 'k', 4 },
	{ "--mbytes", 'm', 5 },
	{ "--gbytes", 'g', 6 },
	{ "--tbytes", 't', 7 },
};

static unsigned int apply_unit(unsigned int mode, int kind)
{
	switch (kind) {
	case 0:
		return mode | UNITS_RAW;
	case 1:
		return mode & ~(UNITS_RAW | UNITS_FIXED_MASK);
	case 2:
		return mode & ~(UNITS_RAW | UNITS_DECIMAL);
	case 3:
		/* -H / --si: human-readable with base 1000 */
		return (mode & ~UNITS_RAW) | UNITS_DECIMAL;
	default:
		mode &= ~(UNITS_RAW | UNITS_FIXED_MASK);
		return mode | ((unsigned int)(kind - 3) << UNITS_FIXED_SHIFT);
	}
}

static const struct unit_opt *match_unit(const char *arg, bool short_opts)
{
	for (size_t i = 0; i < sizeof(unit_opts) / sizeof(unit_opts[0]); i++) {
		const struct unit_opt *u = &unit_opts[i];

		if (!strcmp(arg, u->name))
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
			mode = apply_unit(mode, u->kind);
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
