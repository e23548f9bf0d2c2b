#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# --image of one member of a multi-device filesystem: the other members are
# found with libblkid among the block devices (root, loop devices).

load ../helpers
load ../fixtures/fixture-helpers

setup() {
	require_root_loop
	fixture raid1
	L1=$(losetup -r -f --show "$IMG")
	L2=$(losetup -r -f --show "$BATS_TEST_TMPDIR/raid1.dev2.img")
}

teardown() {
	[ -n "${L1:-}" ] && losetup -d "$L1" 2>/dev/null || true
	[ -n "${L2:-}" ] && losetup -d "$L2" 2>/dev/null || true
}

@test "offline: the second RAID1 member is found with libblkid" {
	run_volctl -v --image "$L1" subvolume list /
	assert_status 0
	assert_output_contains "using $L2, another device of the filesystem"
	assert_output_contains "path snap-a"
	# same answer as with both devices given
	diff <("$VOLCTL" --image "$L1" subvolume list -a /) \
		<("$VOLCTL" --image "$IMG" --image "$BATS_TEST_TMPDIR/raid1.dev2.img" subvolume list -a /)
}

@test "offline: a member given explicitly is not opened twice" {
	run_volctl -v --image "$L1" --image "$L2" qgroup show /
	assert_status 0
	[[ "$output" != *"another device of the filesystem"* ]]
}
