/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The retention policy of `subvolume prune`: which snapshots a set of keep
 * rules keeps, and why.  Pure: no I/O, no printing; the command feeds it
 * the snapshots (id, creation time, name, whether something else already
 * protects it) and prints what comes back.
 *
 * Semantics (restic's "forget" policy, which borg and snapper timelines
 * share in spirit):
 * - every rule looks at every snapshot, newest first (creation time, then
 *   the higher id for equal times); a snapshot is kept when any rule or a
 *   protection keeps it, and all its reasons are recorded;
 * - last N: the N newest;
 * - hourly/daily/weekly/monthly/yearly N: walking newest first, a snapshot
 *   whose period (UTC; weeks are ISO weeks, Monday to Sunday) differs from
 *   the last period kept by that rule is kept, until N periods are kept: the
 *   newest snapshot of each of the last N periods that have one;
 * - within DURATION: every snapshot strictly newer than the newest
 *   snapshot's time minus DURATION (years and months on the calendar, in
 *   UTC), so that a timeline that stopped is not wiped;
 * - name GLOB: fnmatch(3) on the snapshot's name, no flags;
 * - protected (the default subvolume, a mounted one): always kept; such
 *   snapshots still take their place in the timeline rules.
 *
 * Guards against a plan that deletes far more than meant (a cron job with
 * a mistyped or empty rule): vc_ret_glob_invalid() for a glob that can
 * never match, vc_ret_idle_rule() for a rule that keeps none of the
 * snapshots, and vc_ret_over_limit() for --max-delete.
 */
#ifndef VOLCTL_COMMON_RETENTION_H
#define VOLCTL_COMMON_RETENTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Why a snapshot is kept: bits of struct vc_ret_snap.reasons */
enum {
	VC_RET_PROTECTED = 1 << 0,	/* struct vc_ret_snap.protect says why */
	VC_RET_NAME = 1 << 1,
	VC_RET_LAST = 1 << 2,
	VC_RET_HOURLY = 1 << 3,
	VC_RET_DAILY = 1 << 4,
	VC_RET_WEEKLY = 1 << 5,
	VC_RET_MONTHLY = 1 << 6,
	VC_RET_YEARLY = 1 << 7,
	VC_RET_WITHIN = 1 << 8,
	VC_RET_NO_RULE = 1 << 9,	/* no keep rule given (--free alone) */
	VC_RET_NR_REASONS = 10,
};
/* Reasons that only the timeline (and --free alone) give: --free may override them */
#define VC_RET_TIMELINE (VC_RET_LAST | VC_RET_HOURLY | VC_RET_DAILY | VC_RET_WEEKLY | \
			 VC_RET_MONTHLY | VC_RET_YEARLY | VC_RET_WITHIN | VC_RET_NO_RULE)

struct vc_ret_duration {
	unsigned int years, months, days, hours;	/* weeks are 7 days */
};

struct vc_ret_policy {
	unsigned int last, hourly, daily, weekly, monthly, yearly;
	bool has_within;
	struct vc_ret_duration within;
	const char *const *names;	/* globs */
	size_t nr_names;
};

struct vc_ret_snap {
	/* in */
	uint64_t id;
	int64_t otime;			/* seconds since the epoch, UTC */
	const char *name;		/* the last path component */
	const char *protect;		/* why it may never go, or NULL */
	/* out */
	unsigned int reasons;		/* VC_RET_* bits; 0: deleted by the rules */
	bool by_free;			/* deleted by --free beyond the rules */
};

/* The label of one reason bit ("daily", "name", ...), NULL for no single bit */
const char *vc_ret_reason_name(unsigned int bit);

/**
 * vc_ret_parse_duration - parse a keep-within duration: one or more
 * NUMBER UNIT pairs, units y, m (months), w, d, h ("1y2m", "36h")
 * Return: 0, or -EINVAL (empty, unknown unit, no number, all zero),
 * -ERANGE (a number too large)
 */
int vc_ret_parse_duration(const char *s, struct vc_ret_duration *d);

/* Whether @p has any keep rule (a policy without one would keep nothing) */
bool vc_ret_has_rule(const struct vc_ret_policy *p);

/**
 * vc_ret_apply - set ->reasons of each of @snaps (any order; not reordered)
 * by policy @p; ->by_free is cleared.  Without any rule every snapshot is
 * kept with VC_RET_NO_RULE (the --free alone case).
 * Return: 0, or -ENOMEM
 */
int vc_ret_apply(const struct vc_ret_policy *p, struct vc_ret_snap *snaps, size_t n);

/**
 * vc_ret_free_order - the snapshots --free may still delete, in the order it
 * takes them: kept only by timeline reasons (never protected or by name),
 * oldest first (creation time, then the lower id).  Fills @idx with indexes
 * into @snaps and returns how many (at most @n).
 */
size_t vc_ret_free_order(const struct vc_ret_snap *snaps, size_t n, size_t *idx);

/**
 * vc_ret_glob_invalid - why @glob can never be a --keep-name pattern: empty
 * (an unset shell variable), or holding '/' (only the last path component
 * is matched, so it would match nothing)
 * Return: NULL when it can be one, else the reason in words
 */
const char *vc_ret_glob_invalid(const char *glob);

/**
 * vc_ret_idle_rule - the first keep rule of @p that keeps none of @snaps
 * (after vc_ret_apply()), in the order last, hourly, daily, weekly,
 * monthly, yearly, within, then each name glob as given; written as the
 * option that makes it ("--keep-name 'x*'", "--keep-last 3") into @buf.
 * A timeline rule keeps at least the newest snapshot, so with snapshots
 * only a glob can be idle; with none, every rule is.
 * Return: true when there is one
 */
bool vc_ret_idle_rule(const struct vc_ret_policy *p, const struct vc_ret_snap *snaps, size_t n,
		      char *buf, size_t size);

/* --max-delete: at most a count of snapshots, or a percentage of those found */
struct vc_ret_limit {
	bool set;
	bool percent;			/* @value is 0..100 percent */
	uint64_t value;
};

/**
 * vc_ret_parse_max_delete - "N" (0 or more snapshots) or "P%" (P from 0 to
 * 100, a whole number)
 * Return: 0, -EINVAL (not of that form), -ERANGE (a percentage above 100,
 * a count past 64 bits)
 */
int vc_ret_parse_max_delete(const char *s, struct vc_ret_limit *l);

/*
 * The most snapshots @l lets a plan delete out of @total: N itself, or
 * P% of @total rounded down (deleting d of t is within P% when
 * 100 d <= P t); UINT64_MAX when @l is not set.
 */
uint64_t vc_ret_limit_allows(const struct vc_ret_limit *l, uint64_t total);

/* Whether deleting @deleting of @total snapshots is more than @l allows */
bool vc_ret_over_limit(const struct vc_ret_limit *l, uint64_t deleting, uint64_t total);

#endif
