#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The accounting engine against the kernel on images the kernel built from a
# seed (tests/kdiff/kdiff.py): snapshots, nested subvolumes, -i groups,
# buffered and O_DIRECT writes, bookends, appends, truncates, hole punches,
# preallocation, clones within and across files and subvolumes, inline
# files, hard links, compression, 4/16/64 KiB nodes, DUP and SINGLE,
# deletions cleaned, left to the cleaner or stopped half way, quotas enabled
# at the start or the end, 1-3 group levels with shared parents.  Per seed:
# every group of check --qgroup-report and qgroup show --compute equals the
# kernel's rescan, a random set's delete --dry-run equals a level-1 group over
# that set, and offline writes record what the kernel's rescan gives.
# A few small seeds here; `make soak SEEDS=200 SIZE=large` runs many.

load ../helpers

setup() {
	require_root_loop
	command -v python3 >/dev/null || skip "needs python3"
}

run_seeds() {
	run python3 "$BATS_TEST_DIRNAME/../kdiff/kdiff.py" --volctl "$VOLCTL" \
		--workdir "$BATS_TEST_TMPDIR/kdiff" "$@"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"kdiff: $# seeds, $# passed, 0 failed"* ]]
}

@test "kdiff: volctl equals the kernel on seeds 1-4 (small images)" {
	run_seeds 1 2 3 4
}

@test "kdiff: volctl equals the kernel on seeds 5-8 (small images)" {
	run_seeds 5 6 7 8
}
