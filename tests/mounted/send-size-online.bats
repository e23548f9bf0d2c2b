#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# `subvolume send-size` online (common/backend/online-diff.c): the filesystem
# is committed, its devices are read with the offline reader and the same
# engine runs on the committed trees.  Here: equal to `btrfs send | wc -c`
# (v1 and --proto 2 --compressed-data) and to --image after the unmount,
# text and JSON; and the refusals: a path that is not a subvolume, a
# writable subvolume (the words of offline), itself as its parent, no
# privilege; and an incremental send (-p, -c) equal to the kernel's.

load ../helpers

setup() {
	require_root_loop
	mkfs_mount 512M
	mount -o remount,compress=zstd "$MNT"
	btrfs -q subvolume create "$MNT/sv"
	mkdir "$MNT/sv/d"
	head -c 300000 /dev/urandom >"$MNT/sv/a"
	yes abcdefgh | head -c 500000 >"$MNT/sv/d/z"
	cp --reflink=always "$MNT/sv/a" "$MNT/sv/d/a2"
	ln -s a "$MNT/sv/l"
	echo small >"$MNT/sv/b"
	btrfs -q subvolume snapshot -r "$MNT/sv" "$MNT/ro"
}

teardown() {
	cleanup_mount
}

@test "send-size online: equal to btrfs send | wc -c (v1, v2 compressed) and to --image after the unmount" {
	k1=$(btrfs send -q "$MNT/ro" | wc -c)
	k2=$(btrfs send -q --proto 2 --compressed-data "$MNT/ro" | wc -c)
	run_volctl subvolume send-size "$MNT/ro"
	assert_status 0
	echo "$output kernel v1 $k1 v2c $k2"
	assert_output_contains "v1: $k1 bytes"
	assert_output_contains "v2 compressed: $k2 bytes"
	assert_output_contains ", 1 clones)"
	on=$output
	run_volctl --format json subvolume send-size "$MNT/ro"
	assert_status 0
	assert_json
	assert_output_contains "\"total\": $k1,"
	assert_output_contains "\"total\": $k2,"
	onj=$(echo "$output" | grep -v '"subvolume":')
	cleanup_mount
	run_volctl --image "$IMG" subvolume send-size /ro
	assert_status 0
	[ "$output" = "$on" ]
	run_volctl --image "$IMG" --format json subvolume send-size /ro
	assert_status 0
	[ "$(echo "$output" | grep -v '"subvolume":')" = "$onj" ]
}

@test "send-size online: -p and -c after changes, equal to btrfs send -p | wc -c and to --image" {
	mv "$MNT/sv/d" "$MNT/sv/e"
	mkdir "$MNT/sv/d"
	mv "$MNT/sv/e" "$MNT/sv/d/e"
	head -c 70000 /dev/urandom >>"$MNT/sv/a"
	cp --reflink=always "$MNT/sv/a" "$MNT/sv/d/a3"
	rm "$MNT/sv/b"
	btrfs -q subvolume snapshot -r "$MNT/sv" "$MNT/ro2"
	k1=$(btrfs send -q -p "$MNT/ro" "$MNT/ro2" | wc -c)
	k2=$(btrfs send -q --proto 2 --compressed-data -p "$MNT/ro" "$MNT/ro2" | wc -c)
	kc=$(btrfs send -q -c "$MNT/ro" "$MNT/ro2" | wc -c)
	run_volctl subvolume send-size -p "$MNT/ro" "$MNT/ro2"
	assert_status 0
	echo "$output kernel v1 $k1 v2c $k2 -c $kc"
	assert_output_contains "v1: $k1 bytes"
	assert_output_contains "v2 compressed: $k2 bytes"
	on=$output
	run_volctl subvolume send-size -c "$MNT/ro" "$MNT/ro2"
	assert_status 0
	assert_output_contains "v1: $kc bytes"
	cleanup_mount
	run_volctl --image "$IMG" subvolume send-size -p /ro /ro2
	assert_status 0
	[ "$output" = "$on" ]
}

@test "send-size online: not a subvolume, a writable subvolume, itself as parent: refused with the words of offline" {
	run_volctl subvolume send-size "$MNT/sv/d"
	assert_status 1
	[ "$output" = "error: $MNT/sv/d: not a subvolume" ]
	run_volctl subvolume send-size "$MNT/sv/b"
	assert_status 1
	[ "$output" = "error: $MNT/sv/b: not a subvolume" ]
	run_volctl subvolume send-size "$MNT/nope"
	assert_status 1
	assert_output_contains "$MNT/nope"
	run_volctl subvolume send-size "$MNT/sv"
	assert_status 1
	[ "$output" = "error: $MNT/sv: not read-only, and btrfs send refuses a writable subvolume (send a read-only snapshot of it: volctl subvolume snapshot -r)" ]
	on=${output#"error: $MNT/sv"}
	run_volctl subvolume send-size -p "$MNT/ro" "$MNT/ro"
	assert_status 1
	[ "$output" = "error: subvolume $(btrfs inspect-internal rootid "$MNT/ro"): its own parent (Invalid argument)" ]
	cleanup_mount
	run_volctl --image "$IMG" subvolume send-size /sv
	assert_status 1
	[ "$output" = "error: /sv$on" ]
}

@test "send-size online: without privilege (nobody) refused, naming CAP_SYS_ADMIN" {
	command -v setpriv >/dev/null || skip "needs setpriv"
	let_nobody_reach_mnt
	run setpriv --reuid=nobody --regid=nogroup --clear-groups "$VOLCTL" subvolume send-size "$MNT/ro"
	assert_status 1
	echo "$output"
	[ "$(echo "$output" | wc -l)" -eq 1 ]
	assert_output_contains "error: $MNT/ro: subvolume send-size reads the filesystem's devices, which needs CAP_SYS_ADMIN (root): $LOOPDEV: Permission denied"
}
