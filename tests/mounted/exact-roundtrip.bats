#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Offline writes do not spread a wrong number: on the kernel-made
# qgroup-undercount fixture (104 subvolumes, clones with wrapped data ref
# offsets, bookends, hole punches, cleaned deletions), what volctl writes
# with check --repair-qgroups, an offline snapshot and an offline delete is
# what the kernel's own rescan of the result records, for all groups.

load ../helpers
load ../fixtures/fixture-helpers

setup() {
	require_root_loop
	command -v btrfs-image >/dev/null || skip "needs btrfs-image (btrfs-progs)"
	fixture_metadump qgroup-undercount
	writable_metadump
	MNT="$BATS_TEST_TMPDIR/mnt"
	mkdir -p "$MNT"
}

teardown() {
	cleanup_mount
}

# "qgroupid rfer excl" of every group as recorded in the image
recorded() {
	"$VOLCTL" --format json check --qgroup-report "$IMG" |
		jq -r '.check.qgroups[] | "\(.qgroupid) \(.recorded_referenced) \(.recorded_exclusive)"'
}

# the kernel's rescan of the image, then its recorded numbers
kernel_rescan() {
	LOOPDEV=$(losetup -f --show "$IMG")
	mount "$LOOPDEV" "$MNT"
	btrfs quota rescan -w "$MNT" >/dev/null
	umount "$MNT"
	losetup -d "$LOOPDEV"
	LOOPDEV=
	recorded
}

# volctl's check is clean and the kernel's rescan keeps every number volctl wrote
assert_kernel_agrees() {
	local groups=$1 written kernel
	run_volctl check --qgroup-report "$IMG"
	assert_status 0
	assert_output_contains "qgroups: $groups groups verified, all consistent"
	written=$(recorded)
	[ "$(wc -l <<<"$written")" -eq "$groups" ]
	kernel=$(kernel_rescan)
	if [ "$written" != "$kernel" ]; then
		diff <(echo "$written") <(echo "$kernel") >&2
		return 1
	fi
}

@test "roundtrip: check --repair-qgroups writes what the kernel's rescan records (qgroup-undercount)" {
	python3 "$BATS_TEST_DIRNAME/../fixtures/corrupt.py" "$IMG" qgroup 0/256=-53248 0/326=-53248 0/358=4096
	run_volctl check --repair-qgroups "$IMG"
	assert_status 0
	[ "$(grep -c ': repaired$' <<<"$output")" -eq 3 ]
	assert_output_contains "qgroup 0/256: repaired"
	assert_output_contains "  referenced  recorded 32931840, written 32985088"
	assert_kernel_agrees 105
}

@test "roundtrip: an offline snapshot records what the kernel's rescan records (qgroup-undercount)" {
	run_volctl --image "$IMG" subvolume snapshot /sv/sv0001 /snap-offline
	assert_status 0
	run_volctl --image "$IMG" subvolume snapshot -r /snap-offline /snap-offline-ro
	assert_status 0
	assert_kernel_agrees 107
}

@test "roundtrip: an offline delete records what the kernel's rescan records (qgroup-undercount)" {
	# a subvolume with snapshots of it: the drop leaves shared blocks behind
	run_volctl --image "$IMG" subvolume delete /sv/sv0001
	assert_status 0
	assert_kernel_agrees 104
}
