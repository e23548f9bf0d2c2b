/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Parsers for command-line values: plain u64, sizes with binary suffixes and
 * "none", qgroup ids.  They never print; they return 0 or a negative errno and
 * the caller names the bad argument:
 *   -EINVAL  not of the expected form
 *   -ERANGE  too large (overflow, or a field beyond its width)
 *   -EDOM    negative where only non-negative values make sense
 */
#ifndef VOLCTL_COMMON_PARSE_UTILS_H
#define VOLCTL_COMMON_PARSE_UTILS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decimal only, no sign, no spaces, no suffix. */
int parse_u64(const char *s, uint64_t *out);

/*
 * A size: decimal digits, then optionally a suffix b k m g t p e or KiB MiB
 * GiB TiB PiB EiB (any case, binary multiples: k = KiB = 1024).  With a
 * suffix other than b the number may have a fraction ("1.5G"), rounded down
 * to a whole byte.  Decimal units (MB, GB) are refused.  With @allow_none,
 * "none" (any case) sets *is_none and *out = 0.
 */
int parse_size(const char *s, bool allow_none, uint64_t *out, bool *is_none);

/*
 * A qgroup id: "LEVEL/ID" (LEVEL < 2^16, ID < 2^48), or a bare subvolume id
 * meaning "0/ID".  0/0 is refused with -EINVAL.
 */
int parse_qgroupid(const char *s, uint64_t *out);

/* Only "LEVEL/ID", as qgroup create/destroy take it. */
int parse_qgroupid_strict(const char *s, uint64_t *out);

/* --sort=[+|-]KEY[,...]: up to VC_SORT_MAX keys, each an index into a table of names */
#define VC_SORT_MAX 8

struct vc_sort_spec {
	int nr;
	int key[VC_SORT_MAX];
	bool desc[VC_SORT_MAX];		/* a leading '-'; '+' or nothing: ascending */
};

/*
 * Append the keys of @text (comma-separated names of @names, each with an
 * optional leading '+' or '-') to @spec.  A repeated --sort adds its keys
 * after the earlier ones.  -EINVAL: an unknown or empty key, -E2BIG: more
 * than VC_SORT_MAX keys in all, -ENOMEM.
 */
int parse_sort_keys(const char *text, const char *const *names, size_t nr_names,
		    struct vc_sort_spec *spec);

/* Words for a parse error, e.g. "not a valid size" */
const char *parse_strerror(int err, const char *what);

/* The largest size parse_size() takes, in words */
#define PARSE_SIZE_MAX_TEXT "18446744073709551615 bytes (16EiB - 1)"

/*
 * Words for a parse_size() error: -ERANGE "too large: at most ..." (the
 * largest size named), -EDOM as parse_strerror(), else @what (the form
 * expected).  Callers check 0 and their own bounds themselves.
 */
const char *parse_size_strerror(int err, const char *what);

#endif
