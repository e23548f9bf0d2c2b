/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Minimal unit test harness.  Each test program includes this once, runs
 * CHECK*() assertions from main() and ends with `return unit_finish();`,
 * which prints exactly one line "N passed, N failed, N skipped" on stdout
 * and returns non-zero if anything failed.  Failures are reported on stderr
 * with file:line, and the test keeps going.  UNIT_SKIP() counts a part that
 * cannot run for a missing prerequisite (a tool, root), named on stderr; a
 * state the test failed to reach is a CHECK() failure, never a skip.
 */
#ifndef VOLCTL_TESTS_UNIT_H
#define VOLCTL_TESTS_UNIT_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static unsigned long unit_passed;
static unsigned long unit_failed;
static unsigned long unit_skipped;

#define UNIT_SKIP(...) do {							\
	unit_skipped++;								\
	fprintf(stderr, "skip: " __VA_ARGS__);					\
	fputc('\n', stderr);							\
} while (0)

static inline int unit_check(int ok, const char *file, int line, const char *expr)
{
	if (ok) {
		unit_passed++;
		return 1;
	}
	unit_failed++;
	fprintf(stderr, "%s:%d: check failed: %s\n", file, line, expr);
	return 0;
}

static inline int unit_check_u64(uint64_t a, uint64_t b, const char *file, int line,
				 const char *ea, const char *eb)
{
	if (a == b) {
		unit_passed++;
		return 1;
	}
	unit_failed++;
	fprintf(stderr, "%s:%d: check failed: %s == %s (0x%" PRIx64 " [%" PRIu64 "] != 0x%"
		PRIx64 " [%" PRIu64 "])\n", file, line, ea, eb, a, a, b, b);
	return 0;
}

static inline int unit_check_str(const char *a, const char *b, const char *file, int line,
				 const char *ea, const char *eb)
{
	if (a && b && strcmp(a, b) == 0) {
		unit_passed++;
		return 1;
	}
	unit_failed++;
	fprintf(stderr, "%s:%d: check failed: %s == %s (\"%s\" != \"%s\")\n", file, line,
		ea, eb, a ? a : "(null)", b ? b : "(null)");
	return 0;
}

static inline int unit_check_mem(const void *a, const void *b, size_t len, const char *file,
				 int line, const char *ea, const char *eb)
{
	if (memcmp(a, b, len) == 0) {
		unit_passed++;
		return 1;
	}
	unit_failed++;
	fprintf(stderr, "%s:%d: check failed: %s == %s (%zu bytes differ)\n", file, line,
		ea, eb, len);
	return 0;
}

#define CHECK(cond)		unit_check(!!(cond), __FILE__, __LINE__, #cond)
#define CHECK_EQ_U64(a, b)	unit_check_u64((uint64_t)(a), (uint64_t)(b), __FILE__, __LINE__, #a, #b)
#define CHECK_EQ_INT(a, b)	CHECK_EQ_U64((int64_t)(a), (int64_t)(b))
#define CHECK_STR(a, b)		unit_check_str((a), (b), __FILE__, __LINE__, #a, #b)
#define CHECK_MEM(a, b, len)	unit_check_mem((a), (b), (len), __FILE__, __LINE__, #a, #b)

static inline int unit_finish(void)
{
	printf("%lu passed, %lu failed, %lu skipped\n", unit_passed, unit_failed, unit_skipped);
	if (fflush(stdout) != 0)
		return 1;
	return unit_failed ? 1 : 0;
}

#endif /* VOLCTL_TESTS_UNIT_H */
