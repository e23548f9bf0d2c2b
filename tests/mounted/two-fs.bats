#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Paths on two mounted filesystems in one command: every command that takes
# several paths, or a path as a qgroup id, works on one filesystem and must
# refuse a path on another one, naming both, before it changes anything.
# Subvolume ids collide on purpose (both filesystems have 256 and 257).

load ../helpers

setup() {
	require_root_loop
	mkfs_mount 512M
	mkfs_mount2 512M
	for m in "$MNT" "$MNT2"; do
		btrfs quota enable "$m"
		btrfs subvolume create "$m/a" >/dev/null
		btrfs subvolume create "$m/b" >/dev/null
	done
	dd if=/dev/zero of="$MNT2/b/f" bs=1M count=3 status=none
	btrfs quota rescan -w "$MNT" >/dev/null
	btrfs quota rescan -w "$MNT2" >/dev/null
}

teardown() {
	cleanup_mount2
	cleanup_mount
}

# btrfs-progs' view of the qgroups of both filesystems
state() {
	btrfs qgroup show -pcre --raw "$MNT"
	btrfs qgroup show -pcre --raw "$MNT2"
}

fsid_of() {
	btrfs filesystem show "$1" | awk '/uuid:/ {print $NF}'
}

@test "delete --dry-run with paths on two filesystems is refused, naming both" {
	run_volctl subvolume delete --dry-run "$MNT/a" "$MNT2/b"
	assert_status 1
	assert_output_contains "$MNT2/b: on another filesystem (fsid $(fsid_of "$MNT2")) than $MNT/a (fsid $(fsid_of "$MNT"))"
	[[ "$output" != *"Would free"* ]]
	# the same id on both filesystems must not make it "a set of 1 subvolume"
	run_volctl subvolume delete --dry-run "$MNT/b" "$MNT2/b"
	assert_status 1
	[[ "$output" != *"set of 1"* ]]
	run_volctl subvolume delete --dry-run "$MNT/a" "$MNT/b"
	assert_status 0
	assert_output_contains "set of 2 subvolumes"
}

@test "path-form qgroup ids on another filesystem are refused: limit, assign, remove, create -i, snapshot -i" {
	local before
	btrfs qgroup create 1/1 "$MNT"
	before=$(state)
	run_volctl qgroup limit 77M "$MNT2/b" "$MNT"
	assert_status 1
	assert_output_contains "$MNT2/b: on another filesystem"
	assert_output_contains "than $MNT (fsid"
	run_volctl qgroup assign "$MNT2/b" 1/1 "$MNT"
	assert_status 1
	assert_output_contains "$MNT2/b: on another filesystem"
	run_volctl qgroup remove "$MNT2/b" 1/1 "$MNT"
	assert_status 1
	assert_output_contains "$MNT2/b: on another filesystem"
	run_volctl subvolume create -i "$MNT2/b" "$MNT/new"
	assert_status 1
	assert_output_contains "$MNT2/b: on another filesystem"
	[ ! -e "$MNT/new" ]
	run_volctl subvolume snapshot -i "$MNT2/b" "$MNT/a" "$MNT/snap"
	assert_status 1
	assert_output_contains "$MNT2/b: on another filesystem"
	[ ! -e "$MNT/snap" ]
	[ "$(state)" = "$before" ]
	# the same path on its own filesystem works
	run_volctl qgroup limit 77M "$MNT/b" "$MNT"
	assert_status 0
	run btrfs qgroup show -r --raw "$MNT"
	[[ "$output" == *"80740352"* ]]
}

@test "snapshot into another filesystem names both instead of the kernel's EXDEV" {
	run_volctl subvolume snapshot "$MNT/a" "$MNT2/"
	assert_status 1
	assert_output_contains "$MNT2/: on another filesystem"
	[ ! -e "$MNT2/a/a" ]
}
