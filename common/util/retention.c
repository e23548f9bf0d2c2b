// SPDX-License-Identifier: GPL-2.0-only
/*
 * The retention policy of `subvolume prune` (see common/util/retention.h for the
 * rules).  Periods are numbered so that two times fall in the same period
 * exactly when their numbers are equal: hours and days count from the
 * epoch, ISO weeks count Mondays from the epoch (1970-01-01 was a
 * Thursday, so day 0 lies in the week whose Monday is day -3), months and
 * years come from the UTC calendar.  No week numbering by year is needed,
 * so a week that spans New Year is one period.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/util/retention.h"

static const char *const reason_names[VC_RET_NR_REASONS] = {
	"protected", "name", "last", "hourly", "daily", "weekly", "monthly", "yearly",
	"within", "no rule",
};

const char *vc_ret_reason_name(unsigned int bit)
{
	for (unsigned int i = 0; i < VC_RET_NR_REASONS; i++)
		if (bit == 1U << i)
			return reason_names[i];
	return NULL;
}

int vc_ret_parse_duration(const char *s, struct vc_ret_duration *d)
{
	bool any = false, nonzero = false;

	*d = (struct vc_ret_duration){ 0 };
	if (!s || !*s)
		return -EINVAL;
	while (*s) {
		unsigned long v = 0;
		unsigned int *slot, mult = 1;

		if (*s < '0' || *s > '9')
			return -EINVAL;
		while (*s >= '0' && *s <= '9') {
			v = v * 10 + (unsigned long)(*s - '0');
			if (v > 1000000)
				return -ERANGE;
			s++;
		}
		switch (*s) {
		case 'y':
			slot = &d->years;
			break;
		case 'm':
			slot = &d->months;
			break;
		case 'w':
			slot = &d->days;
			mult = 7;
			break;
		case 'd':
			slot = &d->days;
			break;
		case 'h':
			slot = &d->hours;
			break;
		default:
			return -EINVAL;
		}
		s++;
		if (*slot + v * mult > 10000000)
			return -ERANGE;
		*slot += (unsigned int)(v * mult);
		any = true;
		nonzero |= v != 0;
	}
	return any && nonzero ? 0 : -EINVAL;
}

bool vc_ret_has_rule(const struct vc_ret_policy *p)
{
	return p->last || p->hourly || p->daily || p->weekly || p->monthly || p->yearly ||
	       p->has_within || p->nr_names;
}

static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b && (a < 0) != (b < 0)) ? q - 1 : q;
}

enum { B_HOUR, B_DAY, B_WEEK, B_MONTH, B_YEAR, B_NR };

static int64_t period_of(int kind, int64_t t)
{
	struct tm tm;
	time_t tt = (time_t)t;

	switch (kind) {
	case B_HOUR:
		return floor_div(t, 3600);
	case B_DAY:
		return floor_div(t, 86400);
	case B_WEEK:
		return floor_div(floor_div(t, 86400) + 3, 7);
	default:
		if (!gmtime_r(&tt, &tm))
			return INT64_MIN + 1;
		return kind == B_YEAR ? (int64_t)tm.tm_year : (int64_t)tm.tm_year * 12 + tm.tm_mon;
	}
}

/* Newest first: later creation time, then the higher id (created later) */
static int cmp_newest(const void *a, const void *b)
{
	const struct vc_ret_snap *x = *(const struct vc_ret_snap *const *)a;
	const struct vc_ret_snap *y = *(const struct vc_ret_snap *const *)b;

	if (x->otime != y->otime)
		return x->otime > y->otime ? -1 : 1;
	return x->id > y->id ? -1 : x->id < y->id ? 1 : 0;
}

/* The newest time minus @d on the UTC calendar */
static int64_t within_cutoff(int64_t newest, const struct vc_ret_duration *d)
{
	time_t tt = (time_t)newest;
	struct tm tm;

	if (!gmtime_r(&tt, &tm))
		return INT64_MIN;
	tm.tm_year -= (int)d->years;
	tm.tm_mon -= (int)d->months;
	tm.tm_mday -= (int)d->days;
	tm.tm_hour -= (int)d->hours;
	return (int64_t)timegm(&tm);
}

static bool name_matches(const struct vc_ret_policy *p, const char *name)
{
	for (size_t i = 0; name && i < p->nr_names; i++)
		if (fnmatch(p->names[i], name, 0) == 0)
			return true;
	return false;
}

int vc_ret_apply(const struct vc_ret_policy *p, struct vc_ret_snap *snaps, size_t n)
{
	const unsigned int counts[B_NR] = { p->hourly, p->daily, p->weekly, p->monthly, p->yearly };
	const unsigned int bits[B_NR] = { VC_RET_HOURLY, VC_RET_DAILY, VC_RET_WEEKLY,
					  VC_RET_MONTHLY, VC_RET_YEARLY };
	unsigned int left[B_NR];
	int64_t last_period[B_NR];
	bool have_last[B_NR] = { false };
	struct vc_ret_snap **order;
	bool rules = vc_ret_has_rule(p);
	int64_t cutoff = 0;

	if (!n)
		return 0;
	order = calloc(n, sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		order[i] = &snaps[i];
	qsort(order, n, sizeof(*order), cmp_newest);
	for (int k = 0; k < B_NR; k++)
		left[k] = counts[k];
	if (p->has_within)
		cutoff = within_cutoff(order[0]->otime, &p->within);

	for (size_t i = 0; i < n; i++) {
		struct vc_ret_snap *s = order[i];

		s->reasons = 0;
		s->by_free = false;
		if (s->protect)
			s->reasons |= VC_RET_PROTECTED;
		if (!rules)
			s->reasons |= VC_RET_NO_RULE;
		if (name_matches(p, s->name))
			s->reasons |= VC_RET_NAME;
		if (i < p->last)
			s->reasons |= VC_RET_LAST;
		if (p->has_within && s->otime > cutoff)
			s->reasons |= VC_RET_WITHIN;
		for (int k = 0; k < B_NR; k++) {
			int64_t per;

			if (!left[k])
				continue;
			per = period_of(k, s->otime);
			if (have_last[k] && per == last_period[k])
				continue;
			s->reasons |= bits[k];
			last_period[k] = per;
			have_last[k] = true;
			left[k]--;
		}
	}
	free(order);
	return 0;
}

size_t vc_ret_free_order(const struct vc_ret_snap *snaps, size_t n, size_t *idx)
{
	size_t nr = 0;

	for (size_t i = 0; i < n; i++)
		if (snaps[i].reasons && !(snaps[i].reasons & ~VC_RET_TIMELINE))
			idx[nr++] = i;
	/* oldest first: insertion sort, the lists are short */
	for (size_t i = 1; i < nr; i++) {
		size_t v = idx[i], j = i;

		while (j > 0) {
			const struct vc_ret_snap *a = &snaps[idx[j - 1]], *b = &snaps[v];

			if (a->otime < b->otime || (a->otime == b->otime && a->id < b->id))
				break;
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = v;
	}
	return nr;
}

const char *vc_ret_glob_invalid(const char *glob)
{
	if (!glob || !*glob)
		return "empty glob (an unset variable?): it would keep nothing";
	if (strchr(glob, '/'))
		return "a glob with '/' never matches: only a snapshot's name, the last "
		       "component of its path, is matched";
	return NULL;
}

/* Whether any of @snaps has one of @bits */
static bool any_has(const struct vc_ret_snap *snaps, size_t n, unsigned int bits)
{
	for (size_t i = 0; i < n; i++)
		if (snaps[i].reasons & bits)
			return true;
	return false;
}

static bool any_matches(const char *glob, const struct vc_ret_snap *snaps, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (snaps[i].name && fnmatch(glob, snaps[i].name, 0) == 0)
			return true;
	return false;
}

/* "1y2m10d3h": the duration as the parser reads it back (weeks as days) */
static void duration_text(const struct vc_ret_duration *d, char *buf, size_t size)
{
	const unsigned int v[4] = { d->years, d->months, d->days, d->hours };
	static const char units[4] = { 'y', 'm', 'd', 'h' };
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; i < 4; i++)
		if (v[i] && off < size)
			off += (size_t)snprintf(buf + off, size - off, "%u%c", v[i], units[i]);
}

bool vc_ret_idle_rule(const struct vc_ret_policy *p, const struct vc_ret_snap *snaps, size_t n,
		      char *buf, size_t size)
{
	const struct { const char *opt; unsigned int count, bit; } timeline[] = {
		{ "last", p->last, VC_RET_LAST }, { "hourly", p->hourly, VC_RET_HOURLY },
		{ "daily", p->daily, VC_RET_DAILY }, { "weekly", p->weekly, VC_RET_WEEKLY },
		{ "monthly", p->monthly, VC_RET_MONTHLY }, { "yearly", p->yearly, VC_RET_YEARLY },
	};
	char dur[64];

	for (size_t k = 0; k < sizeof(timeline) / sizeof(timeline[0]); k++) {
		if (!timeline[k].count || any_has(snaps, n, timeline[k].bit))
			continue;
		snprintf(buf, size, "--keep-%s %u", timeline[k].opt, timeline[k].count);
		return true;
	}
	if (p->has_within && !any_has(snaps, n, VC_RET_WITHIN)) {
		duration_text(&p->within, dur, sizeof(dur));
		snprintf(buf, size, "--keep-within %s", dur);
		return true;
	}
	for (size_t g = 0; g < p->nr_names; g++) {
		if (any_matches(p->names[g], snaps, n))
			continue;
		snprintf(buf, size, "--keep-name '%s'", p->names[g]);
		return true;
	}
	return false;
}

int vc_ret_parse_max_delete(const char *s, struct vc_ret_limit *l)
{
	uint64_t v = 0;
	const char *c = s;

	*l = (struct vc_ret_limit){ 0 };
	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	for (; *c >= '0' && *c <= '9'; c++) {
		if (v > (UINT64_MAX - (uint64_t)(*c - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(*c - '0');
	}
	if (*c == '%' && !c[1]) {
		if (v > 100)
			return -ERANGE;
		l->percent = true;
	} else if (*c) {
		return -EINVAL;
	}
	l->set = true;
	l->value = v;
	return 0;
}

uint64_t vc_ret_limit_allows(const struct vc_ret_limit *l, uint64_t total)
{
	if (!l->set)
		return UINT64_MAX;
	if (!l->percent)
		return l->value;
	/* 100 d <= P t exactly when d <= floor(P t / 100); 128 bits: no overflow */
	return (uint64_t)(((unsigned __int128)total * l->value) / 100);
}

bool vc_ret_over_limit(const struct vc_ret_limit *l, uint64_t deleting, uint64_t total)
{
	return deleting > vc_ret_limit_allows(l, total);
}
