/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Size display units, as btrfs-progs prints them (scripts parse these):
 * human-readable with base 1024 by default, "%.2f" and a suffix
 * (16.00KiB, 0.00B); --si for base 1000 (16.38kB); a fixed unit
 * (--kbytes ...) divides once (3088.00KiB); --raw prints the bare integer.
 */
#ifndef VOLCTL_COMMON_UNITS_H
#define VOLCTL_COMMON_UNITS_H

#include <stdbool.h>
#include <stdint.h>

#define UNITS_RAW		(1U << 0)
#define UNITS_DECIMAL		(1U << 1)	/* base 1000, else 1024 */
/* fixed unit exponent in bits 4..7: 0 = automatic, 1 = K ... 4 = T */
#define UNITS_FIXED_SHIFT	4
#define UNITS_FIXED_MASK	(0xfU << UNITS_FIXED_SHIFT)
#define UNITS_DEFAULT		0U

#define UNITS_BUFSIZE		32

/*
 * Scan argv (up to "--") for unit options, remove the ones recognised and
 * return the resulting mode; the last option given wins for each aspect.
 * Long forms: --raw --human-readable --iec --si --kbytes --mbytes --gbytes
 * --tbytes; with @short_opts also -b -h -H -k -m -g -t.
 */
unsigned int units_from_args(int *argc, char **argv, bool short_opts);

/* Format @size into @buf (UNITS_BUFSIZE bytes) and return @buf. */
const char *pretty_size(uint64_t size, unsigned int mode, char *buf);

#endif
