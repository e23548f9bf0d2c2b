// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the command-line value parsers (common/util/parse-utils.c) and the
 * size formatter (common/util/units.c).  Expected sizes are the strings btrfs-progs
 * prints for the same values, since scripts parse them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "common/util/parse-utils.h"
#include "common/util/units.h"

static int passed, failed;

#define CHECK(cond)							\
	do {								\
		if (cond) {						\
			passed++;					\
		} else {						\
			failed++;					\
			fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, \
				__LINE__, #cond);			\
		}							\
	} while (0)

static void check_u64(const char *s, int ret, uint64_t want)
{
	uint64_t v = 0xdeadbeef;
	int r = parse_u64(s, &v);

	if (r != ret || (ret == 0 && v != want)) {
		failed++;
		fprintf(stderr, "parse_u64(\"%s\") = %d, %" PRIu64 "; want %d, %" PRIu64 "\n", s, r,
			v, ret, want);
		return;
	}
	passed++;
}

static void check_size(const char *s, int ret, uint64_t want, bool want_none)
{
	uint64_t v = 0xdeadbeef;
	bool none = !want_none;
	int r = parse_size(s, true, &v, &none);

	if (r != ret || (ret == 0 && (v != want || none != want_none))) {
		failed++;
		fprintf(stderr, "parse_size(\"%s\") = %d, %" PRIu64 "; want %d, %" PRIu64 "\n", s,
			r, v, ret, want);
		return;
	}
	passed++;
}

static void check_qgid(const char *s, int ret, uint64_t want)
{
	uint64_t v = 0xdeadbeef;
	int r = parse_qgroupid(s, &v);

	if (r != ret || (ret == 0 && v != want)) {
		failed++;
		fprintf(stderr, "parse_qgroupid(\"%s\") = %d, %#" PRIx64 "; want %d, %#" PRIx64
			"\n", s, r, v, ret, want);
		return;
	}
	passed++;
}

static void check_strict(const char *s, int ret, uint64_t want)
{
	uint64_t v = 0xdeadbeef;
	int r = parse_qgroupid_strict(s, &v);

	if (r != ret || (ret == 0 && v != want)) {
		failed++;
		fprintf(stderr, "parse_qgroupid_strict(\"%s\") = %d; want %d\n", s, r, ret);
		return;
	}
	passed++;
}

static void check_pretty(uint64_t size, unsigned int mode, const char *want)
{
	char buf[UNITS_BUFSIZE];
	const char *got = pretty_size(size, mode, buf);

	if (strcmp(got, want)) {
		failed++;
		fprintf(stderr, "pretty_size(%" PRIu64 ", %#x) = \"%s\"; want \"%s\"\n", size, mode,
			got, want);
		return;
	}
	passed++;
}

static void test_parse_u64(void)
{
	check_u64("0", 0, 0);
	check_u64("256", 0, 256);
	check_u64("18446744073709551615", 0, UINT64_MAX);
	check_u64("18446744073709551616", -ERANGE, 0);
	check_u64("99999999999999999999999", -ERANGE, 0);
	check_u64("-5", -EDOM, 0);
	check_u64("-", -EINVAL, 0);
	check_u64("", -EINVAL, 0);
	check_u64("x", -EINVAL, 0);
	check_u64("12x", -EINVAL, 0);
	check_u64(" 12", -EINVAL, 0);
	check_u64("0x10", -EINVAL, 0);
	check_u64("+1", -EINVAL, 0);
}

static void test_parse_size(void)
{
	check_size("0", 0, 0, false);
	check_size("1234", 0, 1234, false);
	check_size("10b", 0, 10, false);
	check_size("1k", 0, 1024, false);
	check_size("1K", 0, 1024, false);
	check_size("30M", 0, 30ULL << 20, false);
	check_size("5m", 0, 5ULL << 20, false);
	check_size("2g", 0, 2ULL << 30, false);
	check_size("3t", 0, 3ULL << 40, false);
	check_size("4p", 0, 4ULL << 50, false);
	check_size("15e", 0, 15ULL << 60, false);
	check_size("16e", -ERANGE, 0, false);
	check_size("none", 0, 0, true);
	check_size("NONE", 0, 0, true);
	check_size("None", 0, 0, true);
	check_size("18446744073709551615", 0, UINT64_MAX, false);
	check_size("18446744073709551616", -ERANGE, 0, false);
	check_size("-5", -EDOM, 0, false);
	check_size("12Q", -EINVAL, 0, false);
	check_size("1e99", -EINVAL, 0, false);
	check_size("1.5M", 0, 3ULL << 19, false);
	check_size("1.5G", 0, 3ULL << 29, false);
	check_size("10MiB", 0, 10ULL << 20, false);
	check_size("10mib", 0, 10ULL << 20, false);
	check_size("2KiB", 0, 2048, false);
	check_size("0.1k", 0, 102, false);		/* 102.4, rounded down */
	check_size("15.9999e", 0, (15ULL << 60) + (uint64_t)(((unsigned __int128)9999 << 60) / 10000), false);
	check_size("16.0e", -ERANGE, 0, false);
	check_size("1.5", -EINVAL, 0, false);		/* a fraction of a byte */
	check_size("1.5b", -EINVAL, 0, false);
	check_size("1.M", -EINVAL, 0, false);
	check_size(".5M", -EINVAL, 0, false);
	check_size("1.5.5M", -EINVAL, 0, false);
	check_size("1MB", -EINVAL, 0, false);
	check_size("1kB", -EINVAL, 0, false);
	check_size("1BiB", -EINVAL, 0, false);
	check_size("1Mi", -EINVAL, 0, false);
	check_size("1 M", -EINVAL, 0, false);
	check_size("M", -EINVAL, 0, false);
	check_size("", -EINVAL, 0, false);
	check_size("nonex", -EINVAL, 0, false);

	/* without allow_none, "none" is just a bad value */
	{
		uint64_t v;
		bool none;

		CHECK(parse_size("none", false, &v, &none) == -EINVAL);
	}
}

/* Overflow is named as such, with the largest size; 0 is the caller's to refuse */
static void test_parse_size_strerror(void)
{
	uint64_t v;

	CHECK(parse_size("99E", false, &v, NULL) == -ERANGE);
	CHECK(parse_size("16EiB", false, &v, NULL) == -ERANGE);
	CHECK(parse_size("18446744073709551616", false, &v, NULL) == -ERANGE);
	CHECK(!strcmp(parse_size_strerror(-ERANGE, "want a size"),
		      "too large: at most 18446744073709551615 bytes (16EiB - 1)"));
	/* the maximum named is the one parse_size() takes */
	CHECK(parse_size("18446744073709551615", false, &v, NULL) == 0 && v == UINT64_MAX);
	CHECK(!strcmp(parse_size_strerror(-EDOM, "want a size"), "negative value not allowed"));
	CHECK(!strcmp(parse_size_strerror(-EINVAL, "want a size"), "want a size"));
	CHECK(parse_size("0", false, &v, NULL) == 0 && v == 0);
}

static void test_parse_qgroupid(void)
{
	const uint64_t l1 = 1ULL << 48;

	check_qgid("0/5", 0, 5);
	check_qgid("0/256", 0, 256);
	check_qgid("1/1", 0, l1 | 1);
	check_qgid("2/100", 0, (2ULL << 48) | 100);
	check_qgid("257", 0, 257);
	check_qgid("1/0", 0, l1);
	/* boundaries: level < 2^16, id < 2^48 */
	check_qgid("65535/1", 0, (65535ULL << 48) | 1);
	check_qgid("0/281474976710655", 0, 281474976710655ULL);
	check_qgid("281474976710655", 0, 281474976710655ULL);
	check_qgid("0/281474976710656", -ERANGE, 0);
	check_qgid("281474976710656", -ERANGE, 0);
	check_qgid("65536/1", -ERANGE, 0);
	check_qgid("65535/x", -EINVAL, 0);
	/* malformed */
	check_qgid("1/", -EINVAL, 0);
	check_qgid("/5", -EINVAL, 0);
	check_qgid("x", -EINVAL, 0);
	check_qgid("0/0", -EINVAL, 0);
	check_qgid("0", -EINVAL, 0);
	check_qgid("1/1/1", -EINVAL, 0);
	check_qgid("1//1", -EINVAL, 0);
	check_qgid("-1/5", -EINVAL, 0);
	check_qgid("", -EINVAL, 0);
	check_qgid("1/5 ", -EINVAL, 0);

	/* strict form: LEVEL/ID only */
	check_strict("1/1", 0, l1 | 1);
	check_strict("0/257", 0, 257);
	check_strict("257", -EINVAL, 0);
	check_strict("1/", -EINVAL, 0);
	check_strict("/5", -EINVAL, 0);
	check_strict("0/0", -EINVAL, 0);
	check_strict("65536/1", -ERANGE, 0);
	check_strict("1/1/1", -EINVAL, 0);
}

static void test_pretty_size(void)
{
	const unsigned int kb = 1U << UNITS_FIXED_SHIFT;
	const unsigned int mb = 2U << UNITS_FIXED_SHIFT;

	/* values btrfs-progs 6.2 printed for the same numbers */
	check_pretty(16384, UNITS_DEFAULT, "16.00KiB");
	check_pretty(0, UNITS_DEFAULT, "0.00B");
	check_pretty(1023, UNITS_DEFAULT, "1023.00B");
	check_pretty(1024, UNITS_DEFAULT, "1.00KiB");
	check_pretty(3162112, UNITS_DEFAULT, "3.02MiB");
	check_pretty(1073741824, UNITS_DEFAULT, "1.00GiB");
	check_pretty(4214784, UNITS_DEFAULT, "4.02MiB");
	check_pretty(UINT64_MAX, UNITS_DEFAULT, "16.00EiB");
	check_pretty(16384, UNITS_DECIMAL, "16.38kB");
	check_pretty(2179072, UNITS_DECIMAL, "2.18MB");
	check_pretty(104857600, UNITS_DECIMAL, "104.86MB");
	check_pretty(3162112, kb, "3088.00KiB");
	check_pretty(10485760, kb, "10240.00KiB");
	check_pretty(2097152, kb, "2048.00KiB");
	check_pretty(16384, kb | UNITS_DECIMAL, "16.38kB");
	check_pretty(16384, mb | UNITS_DECIMAL, "0.02MB");
	check_pretty(3162112, UNITS_RAW, "3162112");
	check_pretty(0, UNITS_RAW, "0");
	check_pretty(UINT64_MAX, UNITS_RAW, "18446744073709551615");
}

static void test_units_from_args(void)
{
	char a0[] = "show", a1[] = "--raw", a2[] = "-p", a3[] = "--si", a4[] = "--kbytes";
	char a5[] = "--", a6[] = "--raw";
	char *argv[] = { a0, a1, a2, a3, a4, a5, a6, NULL };
	int argc = 7;
	unsigned int mode = units_from_args(&argc, argv, false);

	/* --raw then --si: human-readable base 1000, then fixed kB */
	CHECK(!(mode & UNITS_RAW));
	CHECK(mode & UNITS_DECIMAL);
	CHECK(((mode & UNITS_FIXED_MASK) >> UNITS_FIXED_SHIFT) == 1);
	CHECK(argc == 4);
	CHECK(!strcmp(argv[1], "-p"));
	CHECK(!strcmp(argv[2], "--"));
	CHECK(!strcmp(argv[3], "--raw"));	/* after "--": left alone */
	CHECK(argv[4] == NULL);

	{
		char b0[] = "show", b1[] = "--si", b2[] = "--raw", b3[] = "-k";
		char *bv[] = { b0, b1, b2, b3, NULL };
		int bc = 4;

		mode = units_from_args(&bc, bv, false);
		CHECK(mode & UNITS_RAW);	/* the last option wins */
		CHECK(bc == 2);			/* -k is not a unit option here */
		CHECK(!strcmp(bv[1], "-k"));
	}
}

/* Unit options combined, and what btrfs-progs prints for 3162112 bytes with them */
static void test_units_combined(void)
{
	static const struct {
		const char *args;
		bool short_opts;
		const char *want;
	} cases[] = {
		{ "--raw --kbytes", false, "3162112" },		/* raw keeps printing bytes */
		{ "--kbytes --raw", false, "3162112" },
		{ "--raw --si", false, "3.16MB" },		/* --si sets the mode only */
		{ "--si --raw", false, "3162112" },
		{ "--si --human-readable", false, "3.02MiB" },	/* back to base 1024 */
		{ "--human-readable --kbytes", false, "3088.00KiB" },
		{ "--kbytes --human-readable", false, "3.02MiB" },
		{ "--si --kbytes", false, "3162.11kB" },
		{ "--kbytes --si", false, "3162.11kB" },
		{ "--kbytes --iec", false, "3088.00KiB" },
		{ "--mbytes --kbytes", false, "3088.00KiB" },
		{ "-k -H", true, "3.16MB" },			/* -H clears the unit */
		{ "-H -k", true, "3162.11kB" },
		{ "-b -m", true, "3162112" },
		{ "-m -h", true, "3.02MiB" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[256], *argv[8], *save = NULL, out[UNITS_BUFSIZE];
		int argc = 0;

		snprintf(buf, sizeof(buf), "show %s", cases[i].args);
		for (char *t = strtok_r(buf, " ", &save); t && argc < 7; t = strtok_r(NULL, " ", &save))
			argv[argc++] = t;
		argv[argc] = NULL;
		pretty_size(3162112, units_from_args(&argc, argv, cases[i].short_opts), out);
		if (strcmp(out, cases[i].want))
			printf("units '%s': got %s, want %s\n", cases[i].args, out, cases[i].want);
		CHECK(!strcmp(out, cases[i].want));
		CHECK(argc == 1);
	}
}

/* --sort: keys by name, '+'/'-' prefixes, a repeated --sort appends */
static void test_parse_sort_keys(void)
{
	static const char *const names[] = { "id", "path", "rfer" };
	struct vc_sort_spec spec = { 0 };

	CHECK(parse_sort_keys("rfer,-id,+path", names, 3, &spec) == 0);
	CHECK(spec.nr == 3);
	CHECK(spec.key[0] == 2 && !spec.desc[0]);
	CHECK(spec.key[1] == 0 && spec.desc[1]);
	CHECK(spec.key[2] == 1 && !spec.desc[2]);
	CHECK(parse_sort_keys("-path", names, 3, &spec) == 0);
	CHECK(spec.nr == 4 && spec.key[3] == 1 && spec.desc[3]);
	memset(&spec, 0, sizeof(spec));
	CHECK(parse_sort_keys("bogus", names, 3, &spec) == -EINVAL);
	memset(&spec, 0, sizeof(spec));
	CHECK(parse_sort_keys("id,pat", names, 3, &spec) == -EINVAL);
	memset(&spec, 0, sizeof(spec));
	CHECK(parse_sort_keys("", names, 3, &spec) == -EINVAL);
	CHECK(parse_sort_keys(",", names, 3, &spec) == -EINVAL);
	CHECK(parse_sort_keys("-", names, 3, &spec) == -EINVAL);
	memset(&spec, 0, sizeof(spec));
	CHECK(parse_sort_keys("id,id,id,id,id,id,id,id", names, 3, &spec) == 0);
	CHECK(spec.nr == VC_SORT_MAX);
	CHECK(parse_sort_keys("path", names, 3, &spec) == -E2BIG);
}

int main(void)
{
	test_parse_u64();
	test_parse_size();
	test_parse_size_strerror();
	test_parse_qgroupid();
	test_parse_sort_keys();
	test_pretty_size();
	test_units_from_args();
	test_units_combined();
	printf("%d passed, %d failed, 0 skipped\n", passed, failed);
	return failed ? 1 : 0;
}
