#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# volctl under valgrind's memcheck on a committed fixture: reads, check, the
# dumps and offline writes give no report (uninitialised values, invalid
# accesses, definitely lost blocks).  The whole corpus, every fixture and
# every line of commands.list, is tests/valgrind/fixtures.sh without QUICK.

load ../helpers

@test "memcheck: reads, check, dumps and writes on rich4k report nothing" {
	command -v valgrind >/dev/null || skip "valgrind is not installed"
	# memcheck cannot run a binary built with AddressSanitizer (make check-asan)
	if ldd "$VOLCTL" 2>/dev/null | grep -q libasan; then
		skip "needs a build without AddressSanitizer (valgrind cannot run one)"
	fi
	QUICK=1 run "$BATS_TEST_DIRNAME/../valgrind/fixtures.sh" "$VOLCTL" "$BATS_TEST_TMPDIR/vg" rich4k
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"valgrind: "*" runs, 0 flagged" ]]
}
