#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# `subvolume diff` and `send-size` online when OLD, NEW or the snapshot is
# deleted while volctl reads it (common/backend/online-diff.c).  The test
# build's VOLCTL_RACE_CMD runs a command once the trees are located in the
# committed root tree, before they are walked: there the subvolume is
# deleted, the cleaner drops it, and its freed data is written over by
# other files (tree blocks are checked against the generation and owner
# their parent promised: tests/unit/test-reader-corrupt.c; the kernel
# reuses them too seldom for a test to rely on).  volctl must then either
# answer from the snapshot it located or say which path was deleted,
# exit 1; never a wrong line.
# (A deleted subvolume volctl holds open, NEW or the snapshot of
# send-size, is not dropped while it runs: those answer from the snapshot.)

load ../helpers

setup() {
	require_root_loop
	local IMG=$BATS_TEST_TMPDIR/probe-src.img
	truncate -s 256M "$IMG"
	mkfs.btrfs -q -f "$IMG" >/dev/null
	require_fault_injection
	mkfs_mount 512M
	RACE=$BATS_TEST_TMPDIR/race.sh
}

teardown() {
	cleanup_mount
}

# race_script SUBVOL WHAT [held]: $RACE deletes SUBVOL, waits for the
# cleaner to drop it (not when "held": volctl holds the path it opened, NEW
# or the snapshot of send-size, and the kernel drops a deleted subvolume
# only once nothing holds it), then writes: WHAT "data" (40 MiB of other
# files, over the data it freed) or "tree" (2000 small files rewritten, 10
# commits); then the device's cached pages are dropped, as memory pressure
# would.
race_script() {
	local wait="btrfs subvolume sync \"$MNT\" >/dev/null"

	[ "${3:-}" != held ] || wait=:
	cat >"$RACE" <<EOF
#!/bin/bash
set -e
btrfs -q subvolume delete "$1"
btrfs filesystem sync "$MNT"
$wait
btrfs filesystem sync "$MNT"
if [ "$2" = data ]; then
	mkdir -p "$MNT/churn"
	for i in \$(seq 1 40); do head -c 1M /dev/urandom >"$MNT/churn/x\$i"; done
else
	mkdir -p "$MNT/churn"
	for k in \$(seq 1 10); do
		for i in \$(seq 1 2000); do echo "\$k" >"$MNT/churn/c\$i"; done
		btrfs filesystem sync "$MNT"
	done
fi
btrfs filesystem sync "$MNT"
btrfs filesystem sync "$MNT"
dd if="$LOOPDEV" iflag=nocache count=0 status=none
EOF
	chmod +x "$RACE"
}

# $MNT/s: 8 files of 1 MiB; $MNT/old its snapshot; in s each rewritten in
# place with the same bytes (new extents, same data: "times" only)
same_bytes_pair() {
	btrfs -q subvolume create "$MNT/s"
	head -c 1M /dev/urandom >"$BATS_TEST_TMPDIR/blob"
	for i in $(seq 1 8); do cp "$BATS_TEST_TMPDIR/blob" "$MNT/s/b$i"; done
	btrfs -q subvolume snapshot -r "$MNT/s" "$MNT/old"
	for i in $(seq 1 8); do
		dd if="$BATS_TEST_TMPDIR/blob" of="$MNT/s/b$i" conv=notrunc status=none
	done
	btrfs filesystem sync "$MNT"
}

# $MNT/s: 3000 small files, $MNT/old its snapshot, then every file of s
# appended to: no tree block of old is shared any more
many_files_pair() {
	btrfs -q subvolume create "$MNT/s"
	for i in $(seq 1 3000); do echo "$i" >"$MNT/s/f$i"; done
	btrfs -q subvolume snapshot -r "$MNT/s" "$MNT/old"
	for i in $(seq 1 3000); do echo more >>"$MNT/s/f$i"; done
	btrfs filesystem sync "$MNT"
}

@test "subvolume diff online: OLD deleted while read, its data written over: named, exit 1, no false content" {
	same_bytes_pair
	run_volctl subvolume diff "$MNT/old" "$MNT/s"
	assert_status 0
	[ "$output" = "$(for i in $(seq 1 8); do printf 'M\t/b%s\t(times)\n' "$i"; done)" ]
	race_script "$MNT/old" data
	VOLCTL_RACE_CMD=$RACE run_volctl subvolume diff "$MNT/old" "$MNT/s"
	echo "$output"
	assert_status 1
	[ "$output" = "error: $MNT/old: deleted while being read" ]
}

@test "subvolume diff online: NEW (live) deleted while read, held, commits meanwhile: the answer located" {
	many_files_pair
	run_volctl subvolume diff "$MNT/old" "$MNT/s"
	assert_status 0
	want=$output
	race_script "$MNT/s" tree held
	VOLCTL_RACE_CMD=$RACE run_volctl subvolume diff "$MNT/old" "$MNT/s"
	echo "$output" | head -3
	assert_status 0
	[ "$output" = "$want" ]
	[ ! -e "$MNT/s" ]
}

@test "subvolume diff online: NEW deleted while read, file data compared, commits meanwhile: named, exit 1" {
	same_bytes_pair
	# the data it compared may have been rewritten (two commits): read
	# again, and NEW is gone
	race_script "$MNT/s" data held
	VOLCTL_RACE_CMD=$RACE run_volctl subvolume diff "$MNT/old" "$MNT/s"
	echo "$output"
	assert_status 1
	[ "$output" = "error: $MNT/s: deleted while being read" ]
}

@test "subvolume diff online: OLD deleted, nothing written over: the answer of the snapshot located" {
	many_files_pair
	run_volctl subvolume diff "$MNT/old" "$MNT/s"
	assert_status 0
	want=$output
	# deleted and committed once: what the cleaner frees is reused only
	# after the next commit, its blocks are still what they were
	VOLCTL_RACE_CMD="btrfs -q subvolume delete '$MNT/old' && btrfs filesystem sync '$MNT'" \
		run_volctl subvolume diff "$MNT/old" "$MNT/s"
	assert_status 0
	[ "$output" = "$want" ]
	[ ! -e "$MNT/old" ]
}

@test "send-size online: the snapshot deleted while read, held, commits meanwhile: the answer located" {
	many_files_pair
	run_volctl subvolume send-size "$MNT/old"
	assert_status 0
	want=$output
	race_script "$MNT/old" tree held
	VOLCTL_RACE_CMD=$RACE run_volctl subvolume send-size "$MNT/old"
	echo "$output"
	assert_status 0
	[ "$output" = "$want" ]
	[ ! -e "$MNT/old" ]
}

@test "send-size online: a -c clone source deleted while read, dropped, written over: the answer located" {
	# new's files are reflinks of csrc's: sizing new reads csrc's tree for the clones
	btrfs -q subvolume create "$MNT/c"
	for i in $(seq 1 300); do head -c 64K /dev/urandom >"$MNT/c/f$i"; done
	btrfs -q subvolume snapshot -r "$MNT/c" "$MNT/csrc"
	btrfs -q subvolume create "$MNT/s"
	btrfs -q subvolume snapshot -r "$MNT/s" "$MNT/old"
	for i in $(seq 1 300); do cp --reflink=always "$MNT/csrc/f$i" "$MNT/s/f$i"; done
	btrfs -q subvolume snapshot -r "$MNT/s" "$MNT/new"
	btrfs -q subvolume delete "$MNT/c"
	btrfs filesystem sync "$MNT"
	run_volctl subvolume send-size -p "$MNT/old" -c "$MNT/csrc" "$MNT/new"
	assert_status 0
	assert_output_contains "300 clones"
	want=$output
	race_script "$MNT/csrc" tree
	VOLCTL_RACE_CMD=$RACE run_volctl subvolume send-size -p "$MNT/old" -c "$MNT/csrc" "$MNT/new"
	echo "$output"
	assert_status 0
	[ "$output" = "$want" ]
	[ ! -e "$MNT/csrc" ]
}
