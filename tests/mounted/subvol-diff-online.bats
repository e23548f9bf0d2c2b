#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# `subvolume diff` online (common/backend/online-diff.c): the filesystem is
# committed, its devices are read with the offline reader and the same
# engine runs on the committed trees.  Here: the same lines as offline on
# the same image once unmounted, a live NEW (a file written and not synced
# is in the diff), and the refusals: two filesystems, a path that is not a
# subvolume, no privilege.  The oracle seeds online are in
# subvol-diff-oracle.bats (tests/kdiff/run-pair.sh, tool1 and tool2).

load ../helpers

setup() {
	require_root_loop
	mkfs_mount 512M
	btrfs subvolume create "$MNT/s" >/dev/null
	mkdir "$MNT/s/d"
	echo one >"$MNT/s/d/f"
	echo keep >"$MNT/s/g"
	printf 'tab\there' >"$MNT/s/odd	name"
	btrfs subvolume snapshot -r "$MNT/s" "$MNT/old" >/dev/null
}

teardown() {
	cleanup_mount2
	cleanup_mount
}

# the lines of every output form, into $1.{txt,H,F,t,json}
all_forms() {
	local p=$1
	shift
	"$VOLCTL" "${@:1:$#-2}" subvolume diff "${@: -2}" >"$p.txt"
	"$VOLCTL" "${@:1:$#-2}" subvolume diff -H "${@: -2}" >"$p.H"
	"$VOLCTL" "${@:1:$#-2}" subvolume diff -F "${@: -2}" >"$p.F"
	"$VOLCTL" "${@:1:$#-2}" subvolume diff -t "${@: -2}" >"$p.t"
	"$VOLCTL" "${@:1:$#-2}" --format json subvolume diff "${@: -2}" |
		grep -v '"old":\|"new":' >"$p.json"
}

@test "subvolume diff online: a live NEW (written, not synced) has the same lines as offline after the unmount" {
	echo two >"$MNT/s/d/f"
	# a time of its own: a rewrite within the clock tick of the setup's write keeps its mtime
	touch -m -d @1000000000 "$MNT/s/d/f"
	echo new >"$MNT/s/added"
	mv "$MNT/s/g" "$MNT/s/d/g2"
	chmod 600 "$MNT/s/odd	name"
	# no sync: the diff commits this filesystem itself
	run_volctl subvolume diff "$MNT/old" "$MNT/s"
	assert_status 0
	echo "$output"
	[ "$output" = "$(printf '+\t/added\nM\t/d/f\t(content, times)\nR\t/g -> /d/g2\nM\t/odd\\tname\t(mode)')" ]
	all_forms "$BATS_TEST_TMPDIR/on" "$MNT/old" "$MNT/s"
	umount "$MNT"
	all_forms "$BATS_TEST_TMPDIR/off" --image "$IMG" /old /s
	for f in txt H F t json; do
		diff "$BATS_TEST_TMPDIR/on.$f" "$BATS_TEST_TMPDIR/off.$f"
	done
	grep -q '"change": "renamed"' "$BATS_TEST_TMPDIR/on.json"
}

@test "subvolume diff online: a snapshot against its untouched source, the top level against itself: no line" {
	run_volctl subvolume diff "$MNT/old" "$MNT/s"
	assert_status 0
	[ -z "$output" ]
	run_volctl subvolume diff "$MNT" "$MNT"
	assert_status 0
	[ -z "$output" ]
}

@test "subvolume diff online: OLD and NEW on two filesystems are refused, naming both" {
	mkfs_mount2 512M
	btrfs subvolume create "$MNT2/s" >/dev/null
	fsid1=$(btrfs filesystem show "$MNT" | awk '/uuid:/ {print $NF}')
	fsid2=$(btrfs filesystem show "$MNT2" | awk '/uuid:/ {print $NF}')
	run_volctl subvolume diff "$MNT2/s" "$MNT/s"
	assert_status 1
	assert_output_contains "$MNT2/s: on another filesystem (fsid $fsid2) than $MNT/s (fsid $fsid1)"
	[ "$(echo "$output" | wc -l)" -eq 1 ]
}

@test "subvolume diff online: a path that is not a subvolume is refused" {
	run_volctl subvolume diff "$MNT/old" "$MNT/s/d"
	assert_status 1
	[ "$output" = "error: $MNT/s/d: not a subvolume" ]
	run_volctl subvolume diff "$MNT/s/g" "$MNT/s"
	assert_status 1
	[ "$output" = "error: $MNT/s/g: not a subvolume" ]
	run_volctl subvolume diff "$MNT/old" "$MNT/nope"
	assert_status 1
	assert_output_contains "$MNT/nope"
}

@test "subvolume diff online: without privilege (nobody) refused, naming CAP_SYS_ADMIN" {
	command -v setpriv >/dev/null || skip "needs setpriv"
	let_nobody_reach_mnt
	run setpriv --reuid=nobody --regid=nogroup --clear-groups "$VOLCTL" subvolume diff "$MNT/old" "$MNT/s"
	assert_status 1
	echo "$output"
	[ "$(echo "$output" | wc -l)" -eq 1 ]
	assert_output_contains "error: $MNT/s: subvolume diff reads the filesystem's devices, which needs CAP_SYS_ADMIN (root): $LOOPDEV: Permission denied"
}

@test "subvolume diff, send-size -p on an unmounted block device (prefetch workers): the same as on the image file" {
	for i in $(seq 1 2000); do echo "$i" >"$MNT/s/d/f$i"; done
	btrfs subvolume snapshot -r "$MNT/s" "$MNT/a" >/dev/null
	for i in $(seq 1 7 2000); do echo more >>"$MNT/s/d/f$i"; done
	for i in $(seq 3 11 2000); do mv "$MNT/s/d/f$i" "$MNT/s/moved$i"; done
	rm "$MNT/s/d/f5" "$MNT/s/d/f6"
	btrfs subvolume snapshot -r "$MNT/s" "$MNT/b" >/dev/null
	umount "$MNT"
	# the loop device stays: its page cache is dropped, so the reads wait on it
	blockdev --flushbufs "$LOOPDEV"
	run_volctl --image "$LOOPDEV" subvolume diff /a /b
	assert_status 0
	dev_diff=$output
	run_volctl --image "$LOOPDEV" subvolume send-size -p /a /b
	assert_status 0
	dev_size=$output
	run_volctl --image "$IMG" subvolume diff /a /b
	assert_status 0
	[ "$output" = "$dev_diff" ]
	[ "$(grep -c . <<<"$output")" -gt 400 ]
	run_volctl --image "$IMG" subvolume send-size -p /a /b
	assert_status 0
	[ "$output" = "$dev_size" ]
}
