// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the retention policy of `subvolume prune`
 * (common/util/retention.c) on a fixed set of snapshot times, all UTC.  Every
 * expected answer is a table written by hand from the calendar below, not
 * computed: 2026-01-01 is a Thursday, so ISO week 2026-W01 runs from
 * Monday 2025-12-29 to Sunday 2026-01-04, and 2025-12-28 is in 2025-W52.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "common/util/retention.h"
#include "tests/unit/unit.h"

/* seconds since the epoch of a UTC time */
static int64_t utc(int y, int mo, int d, int h, int mi, int s)
{
	struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h,
			 .tm_min = mi, .tm_sec = s };

	return (int64_t)timegm(&tm);
}

#define NSNAP 12
static void timeline(struct vc_ret_snap *s)
{
	static const struct { int y, mo, d, h, mi, sec; } t[NSNAP] = {
		{ 2025, 12, 29, 10, 0, 0 },	/*  1 Mon, W01 */
		{ 2025, 12, 28, 23, 0, 0 },	/*  2 Sun, W52 */
		{ 2025, 12, 28, 8, 0, 0 },	/*  3 Sun, W52 */
		{ 2025, 12, 31, 23, 59, 59 },	/*  4 Wed, W01, last second of 2025 */
		{ 2026, 1, 1, 0, 0, 0 },	/*  5 Thu, W01, first second of 2026 */
		{ 2026, 1, 1, 0, 59, 59 },	/*  6 same hour as 5 */
		{ 2026, 1, 1, 1, 0, 0 },	/*  7 the next hour */
		{ 2026, 1, 4, 23, 59, 59 },	/*  8 Sun, last second of W01 */
		{ 2026, 1, 5, 0, 0, 0 },	/*  9 Mon, first second of W02 */
		{ 2025, 11, 30, 12, 0, 0 },	/* 10 November */
		{ 2025, 11, 1, 0, 0, 0 },	/* 11 November */
		{ 2024, 6, 15, 12, 0, 0 },	/* 12 2024 */
	};
	static const char *const names[NSNAP] = {
		"snap-1", "snap-2", "daily-keep", "snap-4", "snap-5", "snap-6", "snap-7",
		"snap-8", "snap-9", "snap-10", "release-1.0", "snap-12",
	};

	/* ids 101..112, shuffled in the array to show the order does not matter */
	for (int i = 0; i < NSNAP; i++) {
		int j = (i * 5) % NSNAP;	/* 5 is prime to 12: a permutation */

		s[j] = (struct vc_ret_snap){ .id = 100 + (uint64_t)i + 1,
			.otime = utc(t[i].y, t[i].mo, t[i].d, t[i].h, t[i].mi, t[i].sec),
			.name = names[i] };
	}
}

/* The kept ids minus 100, ascending, space separated */
static const char *kept(const struct vc_ret_snap *s, size_t n, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (uint64_t id = 0; id < 1000; id++)
		for (size_t i = 0; i < n; i++)
			if (s[i].id == id && s[i].reasons && off < len)
				off += (size_t)snprintf(buf + off, len - off, "%s%llu",
							off ? " " : "",
							(unsigned long long)(id % 100));
	return buf;
}

static unsigned int reasons_of(const struct vc_ret_snap *s, size_t n, uint64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (s[i].id == id)
			return s[i].reasons;
	return ~0U;
}

static const char *run(const struct vc_ret_policy *p, struct vc_ret_snap *s, char *buf)
{
	timeline(s);
	CHECK_EQ_INT(vc_ret_apply(p, s, NSNAP), 0);
	return kept(s, NSNAP, buf, 128);
}

static void test_single_rules(void)
{
	struct vc_ret_snap s[NSNAP];
	char buf[128];

	/* newest first: 9 8 7 6 5 4 1 2 3 10 11 12 */
	CHECK_STR(run(&(struct vc_ret_policy){ .last = 2 }, s, buf), "8 9");
	CHECK_STR(run(&(struct vc_ret_policy){ .last = 100 }, s, buf),
		  "1 2 3 4 5 6 7 8 9 10 11 12");
	/* hours: 9; 8; 7 (01:00); 6 (00:59:59, the newest of 00:xx, not 5) */
	CHECK_STR(run(&(struct vc_ret_policy){ .hourly = 4 }, s, buf), "6 7 8 9");
	CHECK_STR(run(&(struct vc_ret_policy){ .hourly = 5 }, s, buf), "4 6 7 8 9");
	/* days: 01-05; 01-04; 01-01 (7, its newest); 12-31 (4) */
	CHECK_STR(run(&(struct vc_ret_policy){ .daily = 4 }, s, buf), "4 7 8 9");
	/* 12-29 (1), 12-28 (2, newest of that day), 11-30, 11-01, 2024 */
	CHECK_STR(run(&(struct vc_ret_policy){ .daily = 9 }, s, buf), "1 2 4 7 8 9 10 11 12");
	/* ISO weeks: W02 (9); W01 from Monday 12-29 over New Year to Sunday
	 * 01-04 (8, the newest); 2025-W52 (2); W48 holds 11-30 (Sunday) */
	CHECK_STR(run(&(struct vc_ret_policy){ .weekly = 3 }, s, buf), "2 8 9");
	CHECK_STR(run(&(struct vc_ret_policy){ .weekly = 4 }, s, buf), "2 8 9 10");
	/* 11-01 is a Saturday: W44, its own week */
	CHECK_STR(run(&(struct vc_ret_policy){ .weekly = 5 }, s, buf), "2 8 9 10 11");
	/* months: 2026-01 (9); 2025-12 (4, its newest); 2025-11 (10) */
	CHECK_STR(run(&(struct vc_ret_policy){ .monthly = 3 }, s, buf), "4 9 10");
	/* years: 2026 (9); 2025 (4, one second before 5); 2024 (12) */
	CHECK_STR(run(&(struct vc_ret_policy){ .yearly = 3 }, s, buf), "4 9 12");
	CHECK_STR(run(&(struct vc_ret_policy){ .yearly = 1 }, s, buf), "9");
}

static void test_within(void)
{
	struct vc_ret_snap s[NSNAP];
	struct vc_ret_policy p = { .has_within = true };
	char buf[128];

	/* newest is 9, 2026-01-05 00:00; one week: after 2025-12-29 00:00 */
	CHECK_EQ_INT(vc_ret_parse_duration("1w", &p.within), 0);
	CHECK_STR(run(&p, s, buf), "1 4 5 6 7 8 9");
	/* 4 days: after 2026-01-01 00:00 exactly, so 5 (at the cutoff) goes */
	CHECK_EQ_INT(vc_ret_parse_duration("4d", &p.within), 0);
	CHECK_STR(run(&p, s, buf), "6 7 8 9");
	CHECK_EQ_INT(vc_ret_parse_duration("12h", &p.within), 0);
	CHECK_STR(run(&p, s, buf), "8 9");
	/* a calendar month: after 2025-12-05 */
	CHECK_EQ_INT(vc_ret_parse_duration("1m", &p.within), 0);
	CHECK_STR(run(&p, s, buf), "1 2 3 4 5 6 7 8 9");
	/* 1y2m: after 2024-11-05; 2m1d: after 2025-11-04 */
	CHECK_EQ_INT(vc_ret_parse_duration("1y2m", &p.within), 0);
	CHECK_STR(run(&p, s, buf), "1 2 3 4 5 6 7 8 9 10 11");
	CHECK_EQ_INT(vc_ret_parse_duration("2m1d", &p.within), 0);
	CHECK_STR(run(&p, s, buf), "1 2 3 4 5 6 7 8 9 10");
	CHECK(reasons_of(s, NSNAP, 110) == VC_RET_WITHIN);
}

static void test_name_and_combined(void)
{
	static const char *const globs[] = { "*-keep", "release-*" };
	struct vc_ret_snap s[NSNAP];
	char buf[128];

	CHECK_STR(run(&(struct vc_ret_policy){ .names = globs, .nr_names = 1 }, s, buf), "3");
	CHECK_STR(run(&(struct vc_ret_policy){ .names = globs, .nr_names = 2 }, s, buf), "3 11");
	CHECK(reasons_of(s, NSNAP, 111) == VC_RET_NAME);
	/* a glob that matches a whole name only */
	CHECK_STR(run(&(struct vc_ret_policy){ .names = (const char *const[]){ "snap" },
					       .nr_names = 1 }, s, buf), "");

	/* daily 2 {9 8} + weekly 2 {9 8} + monthly 2 {9 4}: the union */
	CHECK_STR(run(&(struct vc_ret_policy){ .daily = 2, .weekly = 2, .monthly = 2 }, s, buf),
		  "4 8 9");
	CHECK(reasons_of(s, NSNAP, 109) == (VC_RET_DAILY | VC_RET_WEEKLY | VC_RET_MONTHLY));
	CHECK(reasons_of(s, NSNAP, 108) == (VC_RET_DAILY | VC_RET_WEEKLY));
	CHECK(reasons_of(s, NSNAP, 104) == VC_RET_MONTHLY);
	/* last 1 + yearly 2 + a name */
	CHECK_STR(run(&(struct vc_ret_policy){ .last = 1, .yearly = 2, .names = globs,
					       .nr_names = 1 }, s, buf), "3 4 9");
	CHECK(reasons_of(s, NSNAP, 109) == (VC_RET_LAST | VC_RET_YEARLY));
	CHECK(reasons_of(s, NSNAP, 105) == 0);
}

static void test_ties(void)
{
	/* equal creation times: the higher id is the newer */
	struct vc_ret_snap s[3] = {
		{ .id = 300, .otime = utc(2026, 3, 1, 12, 0, 0), .name = "a" },
		{ .id = 302, .otime = utc(2026, 3, 1, 12, 0, 0), .name = "c" },
		{ .id = 301, .otime = utc(2026, 3, 1, 12, 0, 0), .name = "b" },
	};
	char buf[64];

	CHECK_EQ_INT(vc_ret_apply(&(struct vc_ret_policy){ .last = 1 }, s, 3), 0);
	CHECK_STR(kept(s, 3, buf, sizeof(buf)), "2");
	CHECK_EQ_INT(vc_ret_apply(&(struct vc_ret_policy){ .daily = 1 }, s, 3), 0);
	CHECK_STR(kept(s, 3, buf, sizeof(buf)), "2");
	CHECK_EQ_INT(vc_ret_apply(&(struct vc_ret_policy){ .last = 2 }, s, 3), 0);
	CHECK_STR(kept(s, 3, buf, sizeof(buf)), "1 2");
}

static void test_protected(void)
{
	struct vc_ret_snap s[NSNAP];
	struct vc_ret_policy p = { .daily = 2 };
	char buf[128];

	timeline(s);
	for (int i = 0; i < NSNAP; i++) {
		if (s[i].id == 111)
			s[i].protect = "default subvolume";
		if (s[i].id == 108)
			s[i].protect = "mounted";
	}
	CHECK_EQ_INT(vc_ret_apply(&p, s, NSNAP), 0);
	/* the protected 8 still takes its daily place: daily keeps 9 and 8 only */
	CHECK_STR(kept(s, NSNAP, buf, sizeof(buf)), "8 9 11");
	CHECK(reasons_of(s, NSNAP, 111) == VC_RET_PROTECTED);
	CHECK(reasons_of(s, NSNAP, 108) == (VC_RET_PROTECTED | VC_RET_DAILY));
}

static void test_no_rule_and_free_order(void)
{
	static const char *const globs[] = { "*-keep" };
	struct vc_ret_snap s[NSNAP];
	struct vc_ret_policy none = { 0 };
	size_t idx[NSNAP], nr;
	char buf[128];
	uint64_t got[NSNAP];

	CHECK(!vc_ret_has_rule(&none));
	CHECK(vc_ret_has_rule(&(struct vc_ret_policy){ .nr_names = 1, .names = globs }));
	/* --free alone: the rules keep everything */
	CHECK_STR(run(&none, s, buf), "1 2 3 4 5 6 7 8 9 10 11 12");
	CHECK(reasons_of(s, NSNAP, 112) == VC_RET_NO_RULE);

	/* last 3 {9 8 7}, a name {3}, 11 protected: --free may take 7, 8, 9 */
	timeline(s);
	for (int i = 0; i < NSNAP; i++)
		if (s[i].id == 111)
			s[i].protect = "default subvolume";
	CHECK_EQ_INT(vc_ret_apply(&(struct vc_ret_policy){ .last = 3, .names = globs,
							   .nr_names = 1 }, s, NSNAP), 0);
	nr = vc_ret_free_order(s, NSNAP, idx);
	CHECK_EQ_U64(nr, 3);
	for (size_t i = 0; i < nr && i < NSNAP; i++)
		got[i] = s[idx[i]].id;
	CHECK_EQ_U64(got[0], 107);
	CHECK_EQ_U64(got[1], 108);
	CHECK_EQ_U64(got[2], 109);

	/* no rule: every unprotected one, oldest first: 12, 10, 3, 2, 1 ... */
	CHECK_EQ_INT(vc_ret_apply(&none, s, NSNAP), 0);
	nr = vc_ret_free_order(s, NSNAP, idx);
	CHECK_EQ_U64(nr, 11);
	CHECK_EQ_U64(s[idx[0]].id, 112);
	CHECK_EQ_U64(s[idx[1]].id, 110);
	CHECK_EQ_U64(s[idx[2]].id, 103);
	CHECK_EQ_U64(s[idx[3]].id, 102);
	CHECK_EQ_U64(s[idx[4]].id, 101);
	CHECK_EQ_U64(s[idx[10]].id, 109);
}

static void check_dur(const char *s, int ret, unsigned int y, unsigned int m, unsigned int d,
		      unsigned int h)
{
	struct vc_ret_duration got;
	int r = vc_ret_parse_duration(s, &got);

	CHECK_EQ_INT(r, ret);
	if (!ret && r == 0)
		CHECK(got.years == y && got.months == m && got.days == d && got.hours == h);
}

static void test_parse(void)
{
	check_dur("2d", 0, 0, 0, 2, 0);
	check_dur("1w", 0, 0, 0, 7, 0);
	check_dur("3m", 0, 0, 3, 0, 0);
	check_dur("1y", 0, 1, 0, 0, 0);
	check_dur("12h", 0, 0, 0, 0, 12);
	check_dur("1y2m", 0, 1, 2, 0, 0);
	check_dur("1w2d3h", 0, 0, 0, 9, 3);
	check_dur("", -EINVAL, 0, 0, 0, 0);
	check_dur("5", -EINVAL, 0, 0, 0, 0);
	check_dur("d", -EINVAL, 0, 0, 0, 0);
	check_dur("1x", -EINVAL, 0, 0, 0, 0);
	check_dur("0d", -EINVAL, 0, 0, 0, 0);
	check_dur("-1d", -EINVAL, 0, 0, 0, 0);
	check_dur("1d ", -EINVAL, 0, 0, 0, 0);
	check_dur("99999999d", -ERANGE, 0, 0, 0, 0);
	CHECK_STR(vc_ret_reason_name(VC_RET_WEEKLY), "weekly");
	CHECK(vc_ret_reason_name(VC_RET_WEEKLY | VC_RET_DAILY) == NULL);
}

static void test_glob_invalid(void)
{
	CHECK(vc_ret_glob_invalid("keep-*") == NULL);
	CHECK(vc_ret_glob_invalid("[a-z]*") == NULL);
	CHECK(vc_ret_glob_invalid("") != NULL);
	CHECK(vc_ret_glob_invalid(NULL) != NULL);
	CHECK(strstr(vc_ret_glob_invalid(""), "empty") != NULL);
	CHECK(vc_ret_glob_invalid("snaps/keep-*") != NULL);
	CHECK(strstr(vc_ret_glob_invalid("/x"), "'/'") != NULL);
}

static void test_idle_rule(void)
{
	static const char *const globs[] = { "*-keep", "nightly-*", "release-*" };
	struct vc_ret_snap s[NSNAP];
	struct vc_ret_policy p;
	char buf[64];

	/* every rule keeps one at least: none idle */
	p = (struct vc_ret_policy){ .last = 2, .daily = 30, .names = globs, .nr_names = 1 };
	timeline(s);
	CHECK_EQ_INT(vc_ret_apply(&p, s, NSNAP), 0);
	CHECK(!vc_ret_idle_rule(&p, s, NSNAP, buf, sizeof(buf)));
	/* the second glob matches none: named, even with other rules keeping some */
	p.nr_names = 3;
	CHECK_EQ_INT(vc_ret_apply(&p, s, NSNAP), 0);
	CHECK(vc_ret_idle_rule(&p, s, NSNAP, buf, sizeof(buf)));
	CHECK_STR(buf, "--keep-name 'nightly-*'");
	/* the only rule, a glob that matches nothing: everything would go */
	p = (struct vc_ret_policy){ .names = (const char *const[]){ "snap" }, .nr_names = 1 };
	CHECK_EQ_INT(vc_ret_apply(&p, s, NSNAP), 0);
	CHECK(vc_ret_idle_rule(&p, s, NSNAP, buf, sizeof(buf)));
	CHECK_STR(buf, "--keep-name 'snap'");
	/* a glob matching only a protected snapshot keeps it: not idle */
	for (int i = 0; i < NSNAP; i++)
		if (s[i].id == 103)
			s[i].protect = "default subvolume";
	p.names = globs;
	CHECK_EQ_INT(vc_ret_apply(&p, s, NSNAP), 0);
	CHECK(reasons_of(s, NSNAP, 103) == (VC_RET_PROTECTED | VC_RET_NAME));
	CHECK(!vc_ret_idle_rule(&p, s, NSNAP, buf, sizeof(buf)));
	/* --free alone has no rule to be idle */
	p = (struct vc_ret_policy){ 0 };
	CHECK_EQ_INT(vc_ret_apply(&p, s, NSNAP), 0);
	CHECK(!vc_ret_idle_rule(&p, s, NSNAP, buf, sizeof(buf)));
	/* no snapshots at all: the first rule given keeps none */
	p = (struct vc_ret_policy){ .weekly = 4, .has_within = true };
	CHECK_EQ_INT(vc_ret_parse_duration("1y2w", &p.within), 0);
	CHECK(vc_ret_idle_rule(&p, s, 0, buf, sizeof(buf)));
	CHECK_STR(buf, "--keep-weekly 4");
	p.weekly = 0;
	CHECK(vc_ret_idle_rule(&p, s, 0, buf, sizeof(buf)));
	CHECK_STR(buf, "--keep-within 1y14d");
	/* ... but with them within keeps the newest */
	CHECK_EQ_INT(vc_ret_apply(&p, s, NSNAP), 0);
	CHECK(!vc_ret_idle_rule(&p, s, NSNAP, buf, sizeof(buf)));
}

static void check_limit(const char *text, int ret, bool percent, uint64_t value)
{
	struct vc_ret_limit l;
	int r = vc_ret_parse_max_delete(text, &l);

	CHECK_EQ_INT(r, ret);
	if (!ret && r == 0)
		CHECK(l.set && l.percent == percent && l.value == value);
	if (ret && r)
		CHECK(!l.set);
}

static void test_max_delete(void)
{
	struct vc_ret_limit l = { 0 };

	check_limit("10", 0, false, 10);
	check_limit("0", 0, false, 0);
	check_limit("18446744073709551615", 0, false, UINT64_MAX);
	check_limit("18446744073709551616", -ERANGE, false, 0);
	check_limit("50%", 0, true, 50);
	check_limit("0%", 0, true, 0);
	check_limit("100%", 0, true, 100);
	check_limit("101%", -ERANGE, false, 0);
	check_limit("", -EINVAL, false, 0);
	check_limit("%", -EINVAL, false, 0);
	check_limit("-1", -EINVAL, false, 0);
	check_limit("5%%", -EINVAL, false, 0);
	check_limit("1.5%", -EINVAL, false, 0);
	check_limit("10 ", -EINVAL, false, 0);
	check_limit("x", -EINVAL, false, 0);

	/* not set: anything goes */
	CHECK(!vc_ret_over_limit(&l, 240, 240));
	CHECK_EQ_U64(vc_ret_limit_allows(&l, 5), UINT64_MAX);
	/* a count: more than N is over, N itself is not */
	CHECK_EQ_INT(vc_ret_parse_max_delete("10", &l), 0);
	CHECK(!vc_ret_over_limit(&l, 10, 240));
	CHECK(vc_ret_over_limit(&l, 11, 240));
	CHECK_EQ_INT(vc_ret_parse_max_delete("0", &l), 0);
	CHECK(!vc_ret_over_limit(&l, 0, 240));
	CHECK(vc_ret_over_limit(&l, 1, 240));
	/* a percentage of those found, rounded down: 50% of 7 is 3 */
	CHECK_EQ_INT(vc_ret_parse_max_delete("50%", &l), 0);
	CHECK_EQ_U64(vc_ret_limit_allows(&l, 7), 3);
	CHECK(!vc_ret_over_limit(&l, 3, 7));
	CHECK(vc_ret_over_limit(&l, 4, 7));
	CHECK(!vc_ret_over_limit(&l, 120, 240));
	CHECK(vc_ret_over_limit(&l, 121, 240));
	/* 99% of 240 is 237.6: 237 allowed, 238 and the 239 are not */
	CHECK_EQ_INT(vc_ret_parse_max_delete("99%", &l), 0);
	CHECK(!vc_ret_over_limit(&l, 237, 240));
	CHECK(vc_ret_over_limit(&l, 238, 240));
	CHECK_EQ_INT(vc_ret_parse_max_delete("100%", &l), 0);
	CHECK(!vc_ret_over_limit(&l, 240, 240));
	CHECK_EQ_INT(vc_ret_parse_max_delete("0%", &l), 0);
	CHECK(vc_ret_over_limit(&l, 1, 240));
	CHECK(!vc_ret_over_limit(&l, 0, 0));
	/* no overflow on huge totals */
	CHECK_EQ_INT(vc_ret_parse_max_delete("100%", &l), 0);
	CHECK_EQ_U64(vc_ret_limit_allows(&l, UINT64_MAX), UINT64_MAX);
}

int main(void)
{
	test_single_rules();
	test_within();
	test_name_and_combined();
	test_ties();
	test_protected();
	test_no_rule_and_free_order();
	test_parse();
	test_glob_invalid();
	test_idle_rule();
	test_max_delete();
	return unit_finish();
}
