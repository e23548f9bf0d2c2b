#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# qgroup clear-stale offline on the kernel-made rich4k fixture (no root
# needed): the same rules and output as online (stale groups destroyed and
# named, groups of subvolumes being cleaned skipped and named), checks clean
# afterwards, nothing to do writes nothing.  A stale group is made by
# renaming a group's quota keys with tests/fixtures/corrupt.py.

load ../helpers
load ../fixtures/fixture-helpers

CORRUPT="$BATS_TEST_DIRNAME/../fixtures/corrupt.py"

setup() {
	command -v btrfs >/dev/null || skip "needs btrfs-progs"
	command -v zstd >/dev/null || skip "needs zstd"
}

@test "clear-stale offline: a group being cleaned is skipped and named, nothing written" {
	fixture rich4k
	local before
	before=$(image_sum)
	run_volctl --image "$IMG" qgroup clear-stale /
	assert_status 0
	[ "$output" = "Skip qgroup 0/265: subvolume 265 is still being cleaned (run 'volctl subvolume sync' and try again)
No stale qgroups" ]
	[ "$(image_sum)" = "$before" ]
}

@test "clear-stale offline: stale groups destroyed and named, checks clean" {
	fixture rich4k
	# 0/265 (subvolume being cleaned) becomes 0/266, a group without a subvolume
	python3 "$CORRUPT" "$IMG" qrename 0/265 0/266
	run_volctl --image "$IMG" qgroup show /
	assert_output_contains "<stale>"
	run_volctl --image "$IMG" qgroup clear-stale /
	assert_status 0
	[ "$output" = "Delete stale qgroup 0/266" ]
	run_volctl --image "$IMG" qgroup show /
	[[ "$output" != *"0/266"* ]]
	run_volctl check "$IMG"
	assert_status 0
	assert_output_contains "qgroups: 13 groups verified, all consistent"
	run btrfs check --readonly "$IMG"
	assert_status 0
	local before
	before=$(image_sum)
	run_volctl --image "$IMG" qgroup clear-stale /
	assert_status 0
	[ "$output" = "No stale qgroups" ]
	[ "$(image_sum)" = "$before" ]
}

@test "clear-stale offline: quotas off is an error, as online" {
	fixture noquota16k
	local before
	before=$(image_sum)
	run_volctl --image "$IMG" qgroup clear-stale /
	assert_status 1
	assert_output_contains "quota is not enabled"
	[ "$(image_sum)" = "$before" ]
}
