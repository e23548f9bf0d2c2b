#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Offline `subvolume delete` drops the tree in the same transaction: checked
# against the kernel deleting the same subvolume in a copy of the same
# kernel-made image and its cleaner finishing (`subvolume sync`).  Both
# images must hold the same data extents with the same back references,
# the same data bytes, and qgroup numbers equal to a kernel rescan.

load ../helpers

# One kernel-made image for the whole file (4 KiB nodes, quotas on):
#   sv     1200 small files (a 3-level tree), 4 MiB and 3 MiB files, an
#          inline file, a zstd-compressed file, reflinks inside sv (41: keyed
#          back refs), a data ref with count 2
#   other  a reflink of sv's 4 MiB file, a file of its own
#   snap   snapshot of sv, then both sides rewritten in places (shared
#          blocks, FULL_BACKREF leaves, shared data refs)
#   1/100  holds sv and other
setup_file() {
	[ "$(id -u)" -eq 0 ] || return 0
	grep -qw btrfs /proc/filesystems 2>/dev/null || modprobe btrfs 2>/dev/null || return 0
	local img="$BATS_FILE_TMPDIR/base.img" mnt="$BATS_FILE_TMPDIR/mnt" dev i
	mkdir -p "$mnt"
	truncate -s 512M "$img"
	mkfs.btrfs -q -f -n 4096 "$img" >/dev/null
	dev=$(losetup -f --show "$img")
	mount -o compress=zstd "$dev" "$mnt"
	btrfs quota enable "$mnt"
	btrfs subvolume create "$mnt/sv" >/dev/null
	btrfs subvolume create "$mnt/other" >/dev/null
	for i in $(seq 1 1200); do
		head -c $((RANDOM % 9000 + 1)) /dev/urandom >"$mnt/sv/f$i"
	done
	head -c 4M /dev/urandom >"$mnt/sv/big"
	head -c 3M /dev/urandom >"$mnt/sv/big3"
	echo inline >"$mnt/sv/small"
	yes compressible | head -c 2M >"$mnt/sv/comp"
	cp --reflink=always "$mnt/sv/big" "$mnt/sv/big.ref"
	cp --reflink=always "$mnt/sv/big" "$mnt/other/big"
	# 40 more reflinks: keyed EXTENT_DATA_REF items; a block rewritten in the
	# middle of a file: one extent, two file items, a data ref with count 2
	for i in $(seq 1 40); do
		cp --reflink=always "$mnt/sv/big3" "$mnt/sv/r$i"
	done
	dd if=/dev/urandom of="$mnt/sv/big3" bs=4K seek=100 count=1 conv=notrunc status=none
	head -c 1M /dev/urandom >"$mnt/other/own"
	btrfs subvolume snapshot "$mnt/sv" "$mnt/snap" >/dev/null
	for i in $(seq 1 40 1200); do
		echo changed >>"$mnt/sv/f$i"
		echo changed >>"$mnt/snap/f$((i + 13))"
	done
	head -c 1M /dev/urandom | dd of="$mnt/snap/big3" bs=64K seek=4 conv=notrunc status=none
	btrfs qgroup create 1/100 "$mnt"
	btrfs qgroup assign 0/256 1/100 "$mnt" 2>/dev/null || true
	btrfs qgroup assign 0/257 1/100 "$mnt" 2>/dev/null || true
	sync -f "$mnt"
	kernel_rescan "$mnt"
	umount "$mnt"
	losetup -d "$dev"
}

setup() {
	require_root_loop
	# root and loop devices are there: a missing base image is a failure
	[ -f "$BATS_FILE_TMPDIR/base.img" ] || { echo "setup_file did not build the base image" >&2; return 1; }
	IMG="$BATS_TEST_TMPDIR/fs.img"
	KIMG="$BATS_TEST_TMPDIR/kernel.img"
	MNT="$BATS_TEST_TMPDIR/mnt"
	mkdir -p "$MNT"
	cp "$BATS_FILE_TMPDIR/base.img" "$IMG"
}

teardown() {
	cleanup_mount
}

mount_img() {
	LOOPDEV=$(losetup -f --show "${1:-$IMG}")
	mount "$LOOPDEV" "$MNT"
}

umount_img() {
	umount "$MNT"
	losetup -d "$LOOPDEV"
	LOOPDEV=
}

check_clean() {
	run btrfs check --readonly "${1:-$IMG}"
	if [ "$status" -ne 0 ]; then
		echo "$output" >&2
		return 1
	fi
}

# The kernel deletes the same subvolumes in a copy of $SRC (the base image
# unless set) and its cleaner finishes
kernel_delete() {
	local v
	cp "${SRC:-$BATS_FILE_TMPDIR/base.img}" "$KIMG"
	mount_img "$KIMG"
	for v in "$@"; do
		btrfs subvolume delete "$MNT/$v" >/dev/null
	done
	wait_cleaned "$MNT" >/dev/null
	settle_kernel_qgroups
	umount_img
}

# The cleaner removes qgroup 0/id after the root item is gone, that is
# after `subvolume sync` returns, and a removal racing a rescan leaves the
# numbers inconsistent: rescan until the kernel stops warning
settle_kernel_qgroups() {
	local i
	for i in 1 2 3 4 5; do
		btrfs filesystem sync "$MNT"
		kernel_rescan "$MNT"
		if ! btrfs qgroup show "$MNT" 2>&1 | grep -q "inconsistent"; then
			return 0
		fi
		sleep 1
	done
	return 1
}

# Data extent items and their back refs (tree 2), without generations
data_refs() {
	btrfs inspect-internal dump-tree -t 2 "$1" | awk '
		/^\titem [0-9]+ key/ {
			keep = ($5 == "EXTENT_ITEM" || $5 == "EXTENT_DATA_REF" || $5 == "SHARED_DATA_REF")
			if (keep) print $4, $5, $6
			next
		}
		/^[^\t]/ { keep = 0 }
		keep { gsub(/gen [0-9]+ /, ""); print }'
}

# Bytes used in the data block groups
data_used() {
	btrfs inspect-internal dump-tree -t 2 "$1" | awk '
		/BLOCK_GROUP_ITEM/ { bg = 1; next }
		bg && /flags DATA/ { sum += $4 }
		{ bg = 0 }
		END { print sum + 0 }'
}

# qgroup rfer/excl of $1 as stored by whoever wrote it last
stored_qgroups() {
	mount_img "$1"
	btrfs qgroup show --raw "$MNT" | awk '$1 ~ /^[0-9]+\// {print $1, $2, $3}'
	umount_img
}

# Everything the drop must agree on with the kernel, offline image first
same_as_kernel() {
	local ours theirs
	check_clean "$IMG"
	check_clean "$KIMG"
	# no dead root, no orphan, nothing for the cleaner
	run btrfs inspect-internal dump-tree -t 1 "$IMG"
	[[ "$output" != *"ORPHAN_ITEM"* ]]
	[[ "$output" != *"0x1000000000000(none) refs 0"* ]]
	[ "$(data_used "$IMG")" = "$(data_used "$KIMG")" ]
	ours=$(data_refs "$IMG")
	theirs=$(data_refs "$KIMG")
	if [ "$ours" != "$theirs" ]; then
		diff <(echo "$ours") <(echo "$theirs") | head -20 >&2
		return 1
	fi
	# numbers volctl wrote equal the kernel's after the drop and a rescan
	ours=$(stored_qgroups "$IMG")
	theirs=$(stored_qgroups "$KIMG")
	if [ "$ours" != "$theirs" ]; then
		echo "volctl:" >&2
		echo "$ours" >&2
		echo "kernel:" >&2
		echo "$theirs" >&2
		return 1
	fi
	run_volctl --image "$IMG" quota status /
	assert_output_contains "Inconsistent:            no"
	mount_img "$IMG"
	run btrfs subvolume list -d "$MNT"
	[ -z "$output" ]
	run btrfs qgroup show --raw "$MNT"
	[[ "$output" != *"WARNING"* ]]
	kernel_rescan "$MNT"
	theirs=$(btrfs qgroup show --raw "$MNT" | awk '$1 ~ /^[0-9]+\// {print $1, $2, $3}')
	umount_img
	[ "$ours" = "$theirs" ]
}

@test "delete a subvolume that shares with a snapshot and a reflink: same as the kernel's cleaner" {
	run_volctl --image "$IMG" subvolume delete /sv
	assert_status 0
	kernel_delete sv
	same_as_kernel
	# the blocks the snapshot shared with sv carry full back refs, none names 256
	run btrfs inspect-internal dump-tree -t 2 "$IMG"
	assert_output_contains "FULL_BACKREF"
	run ! grep -qE "backref root 256$|data backref root 256 " <<<"$output"
	mount_img
	[ "$(cat "$MNT/snap/small")" = inline ]
	cmp "$MNT/snap/big" "$MNT/other/big"
	umount_img
}

@test "delete the snapshot, the origin keeps everything: same as the kernel's cleaner" {
	run_volctl --image "$IMG" subvolume delete /snap
	assert_status 0
	kernel_delete snap
	same_as_kernel
	mount_img
	cmp "$MNT/sv/big" "$MNT/sv/big.ref"
	[ "$(cat "$MNT/sv/small")" = inline ]
	# the kernel writes into the survivors afterwards
	echo more >>"$MNT/sv/f2"
	rm "$MNT/sv/f3"
	sync -f "$MNT"
	umount_img
	check_clean
}

@test "delete several in one command, over a qgroup limit: freed like the kernel, 0/id gone" {
	mount_img
	btrfs qgroup limit 64K 1/100 "$MNT"
	btrfs qgroup limit 16K 0/258 "$MNT"
	umount_img
	SRC="$BATS_TEST_TMPDIR/limited.img"
	cp "$IMG" "$SRC"
	run_volctl --image "$IMG" subvolume delete -c /snap /other /sv
	assert_status 0
	kernel_delete snap other sv
	same_as_kernel
	run btrfs inspect-internal dump-tree -t 8 "$IMG"
	[[ "$output" != *"0/256"* && "$output" != *"INFO 256)"* ]]
	[[ "$output" != *"RELATION 256)"* && "$output" != *"RELATION 257)"* ]]
	# every data extent is gone: only the top level's (none) remain
	[ "$(data_used "$IMG")" -eq 0 ]
	run btrfs inspect-internal dump-tree -t 7 "$IMG"
	[[ "$output" != *"EXTENT_CSUM"* ]]
}

@test "delete refusals stay (a subvolume holding subvolumes, image unchanged); -R and --delete-qgroup" {
	mount_img
	btrfs subvolume create "$MNT/other/inner" >/dev/null
	umount_img
	local before
	before=$(sha256sum <"$IMG")
	run_volctl --image "$IMG" subvolume delete /other
	assert_status 1
	assert_output_contains "contains other subvolumes"
	[ "$(sha256sum <"$IMG")" = "$before" ]
	# -R: deepest first, each in its own transaction on one open image
	run_volctl --image "$IMG" subvolume delete -R /other
	assert_status 0
	assert_output_contains "Delete subvolume 259"
	assert_output_contains "Delete subvolume 257"
	check_clean
	# --delete-qgroup: the group went with the tree already
	run_volctl --image "$IMG" subvolume delete --delete-qgroup /snap
	assert_status 0
	check_clean
	run_volctl --image "$IMG" subvolume list -d /
	[ -z "$output" ]
}

# del_state: "old" or "new": is subvolume 256 still there, or gone with its data?
del_state() {
	local roots dirs used
	roots=$(btrfs inspect-internal dump-tree -t 1 "$IMG" | grep -c "key (256 ROOT_ITEM") || true
	dirs=$(btrfs inspect-internal dump-tree -t 5 "$IMG" |
		grep -c "location key (256 ROOT_ITEM") || true
	used=$(data_used "$IMG")
	if [ "$roots" -eq 1 ] && [ "$dirs" -eq 2 ] && [ "$used" = "$OLD_USED" ]; then
		echo old
	elif [ "$roots" -eq 0 ] && [ "$dirs" -eq 0 ] && [ "$used" = "$NEW_USED" ]; then
		echo new
	else
		echo "mixed roots=$roots dirs=$dirs used=$used"
	fi
}

@test "crash after every device write of a delete that frees extents: old or new, check clean" {
	local dev i
	truncate -s 256M "$IMG"
	mkfs.btrfs -q -f -n 4096 "$IMG" >/dev/null
	mount_img
	btrfs quota enable "$MNT"
	btrfs subvolume create "$MNT/a" >/dev/null
	for i in $(seq 1 150); do
		head -c $((RANDOM % 20000 + 1)) /dev/urandom >"$MNT/a/f$i"
	done
	btrfs subvolume snapshot "$MNT/a" "$MNT/s" >/dev/null
	for i in $(seq 1 10 150); do echo x >>"$MNT/a/f$i"; done
	kernel_rescan "$MNT"
	umount_img
	cp "$IMG" "$BATS_TEST_TMPDIR/probe.img"
	if VOLCTL_FAIL_AFTER_WRITES=1 "$VOLCTL" --image "$BATS_TEST_TMPDIR/probe.img" \
		subvolume delete /a 2>/dev/null; then
		skip "built without --enable-fault-injection"
	fi
	cp "$IMG" "$BATS_TEST_TMPDIR/pristine.img"
	OLD_USED=$(data_used "$IMG")
	"$VOLCTL" --image "$BATS_TEST_TMPDIR/probe.img" subvolume delete /a >/dev/null
	NEW_USED=$(data_used "$BATS_TEST_TMPDIR/probe.img")
	[ "$NEW_USED" -lt "$OLD_USED" ]
	# btrfs check on every 7th image and on the last one
	CRASH_STATE=del_state CRASH_CHECK=check_clean CRASH_CHECK_EVERY=7 CRASH_MAX=2000 \
		crash_loop_writes --image @IMG@ subvolume delete /a
	[ "$CRASH_OLDS" -gt 3 ]
	[ "$CRASH_NEWS" -ge 1 ]
	mount_img
	[ -s "$MNT/s/f1" ]
	kernel_rescan "$MNT"
	umount_img
	check_clean
}

# The kernel's cleaner finishes a copy of $IMG (mount, subvolume sync, rescan)
kernel_clean() {
	cp "$IMG" "$KIMG"
	mount_img "$KIMG"
	wait_cleaned "$MNT" >/dev/null
	settle_kernel_qgroups
	umount_img
}

@test "sync offline: a subvolume the kernel deleted but did not clean (fixture rich4k) is dropped like its cleaner does" {
	zstd -dqf "$BATS_TEST_DIRNAME/../fixtures/rich4k.img.zst" -o "$IMG"
	run_volctl --image "$IMG" subvolume list -d /
	assert_output_contains "DELETED"
	kernel_clean
	run_volctl --image "$IMG" subvolume sync /
	assert_status 0
	assert_output_contains "is gone (1/1)"
	same_as_kernel
	# again: nothing left to do; an id that was never used is an error
	run_volctl --image "$IMG" subvolume sync /
	assert_status 0
	run_volctl --image "$IMG" subvolume sync / 99999
	assert_status 1
	assert_output_contains "does not exist"
	run_volctl --image "$IMG" subvolume sync / 256
	assert_status 1
	assert_output_contains "not deleted"
}

@test "sync offline resumes a drop the kernel left half done (drop_progress), same end state as the kernel" {
	local d i
	truncate -s 2G "$IMG"
	mkfs.btrfs -q -f -n 4096 "$IMG" >/dev/null
	mount_img
	btrfs quota enable "$MNT"
	btrfs subvolume create "$MNT/big" >/dev/null
	for d in $(seq 1 20); do
		mkdir "$MNT/big/d$d"
		(cd "$MNT/big/d$d" && seq 1 5000 | xargs touch)
	done
	for i in $(seq 1 100); do head -c 20000 /dev/urandom >"$MNT/big/d1/data$i"; done
	sync -f "$MNT"
	btrfs subvolume snapshot "$MNT/big" "$MNT/snap" >/dev/null
	for i in $(seq 1 10); do echo x >>"$MNT/snap/d1/data$i"; done
	# data of big alone: seconds of drop to catch half way
	slow_drop_data "$MNT/big/z"
	kernel_rescan "$MNT"
	btrfs subvolume delete "$MNT/big" >/dev/null
	freeze_mid_drop "$MNT" "$IMG" 256 "$BATS_TEST_TMPDIR/half.img"
	umount_img
	mv "$BATS_TEST_TMPDIR/half.img" "$IMG"
	btrfs inspect-internal dump-tree -t 1 "$IMG" | grep -A3 "key (256 ROOT_ITEM" |
		grep -q "drop_level [1-9]"
	kernel_clean
	run_volctl --image "$IMG" subvolume sync /
	assert_status 0
	assert_output_contains "Subvolume id 256 is gone"
	same_as_kernel
	mount_img
	[ -e "$MNT/snap/d20/5000" ]
	[ "$(stat -c %s "$MNT/snap/d1/data50")" -eq 20000 ]
	umount_img
}
