#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# volctl check's free space tree verdict on kernel-written images agrees
# with btrfs-progs 6.19's (the oracle, $BTRFS619, default
# /work/progs619/btrfs; without it our verdict alone is held to the expected
# one): the kernel keeps Debian mkfs 6.2's stale entries (both report
# them), --repair-free-space drops them, and after the kernel writes,
# fragments (its bitmaps) and deletes, both find the tree clean.  Only
# clean images are mounted.

load ../helpers

: "${BTRFS619:=/work/progs619/btrfs}"

setup() {
	require_root_loop
	command -v jq >/dev/null || skip "needs jq"
	IMG="$BATS_TEST_TMPDIR/fs.img"
	MNT="$BATS_TEST_TMPDIR/mnt"
	mkdir -p "$MNT"
}

teardown() {
	cleanup_mount
}

mount_img() {
	LOOPDEV=$(losetup -f --show "$IMG")
	mount "$LOOPDEV" "$MNT"
}

umount_img() {
	umount "$MNT"
	losetup -d "$LOOPDEV"
	LOOPDEV=
}

# agree WANT: our check of $IMG exits WANT, and so does btrfs check 6.19 where it is built
agree() {
	local out
	run_volctl check "$IMG"
	if [ "$status" -ne "$1" ]; then
		echo "volctl check: exit $status, expected $1" >&2
		echo "$output" >&2
		return 1
	fi
	[ -x "$BTRFS619" ] || return 0
	if out=$("$BTRFS619" check --readonly "$IMG" 2>&1); then
		[ "$1" -eq 0 ] || { echo "btrfs check 6.19 clean, expected errors" >&2; return 1; }
	else
		[ "$1" -eq 1 ] || { echo "btrfs check 6.19: $out" >&2; return 1; }
	fi
}

@test "check free space: kernel writes keep mkfs 6.2's leftovers, both report them; repaired, both clean" {
	truncate -s 512M "$IMG"
	mkfs.btrfs -q -f "$IMG" >/dev/null
	mount_img
	btrfs subvolume create "$MNT/sv" >/dev/null
	dd if=/dev/urandom of="$MNT/sv/big" bs=1M count=20 status=none
	btrfs subvolume snapshot "$MNT/sv" "$MNT/snap" >/dev/null
	sync -f "$MNT"
	umount_img
	agree 1
	assert_output_contains "entries (2 items) for a block group that no longer exists, left by mkfs"
	run_volctl check --repair-free-space "$IMG"
	assert_status 0
	agree 0
	# the repaired image is clean: the kernel takes it and writes on
	mount_img
	rm "$MNT/sv/big"
	btrfs subvolume delete "$MNT/snap" >/dev/null
	wait_cleaned "$MNT" >/dev/null
	umount_img
	agree 0
}

@test "check free space: the kernel's bitmaps after fragmenting and deleting, both clean" {
	local i
	mkfs_mount 512M
	# 8 KiB files (not inlined) in the first data block group, every other one deleted:
	# more free extents than the kernel keeps in extent format (11 for 8 MiB)
	for i in $(seq 1 64); do
		dd if=/dev/urandom of="$MNT/f$i" bs=8K count=1 status=none
	done
	sync -f "$MNT"
	for i in $(seq 1 2 64); do
		rm "$MNT/f$i"
	done
	btrfs subvolume create "$MNT/sv" >/dev/null
	dd if=/dev/urandom of="$MNT/sv/g" bs=1M count=30 status=none
	sync -f "$MNT"
	cleanup_mount
	run "$VOLCTL" --format json check "$IMG"
	[ "$(jq '.check.free_space.bitmaps' <<<"$output")" -ge 1 ]
	agree 0
	# and volctl writes on top of the kernel's bitmaps
	run_volctl --image "$IMG" subvolume snapshot /sv /snap
	assert_status 0
	agree 0
}
