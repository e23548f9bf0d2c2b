#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Offline `subvolume snapshot`, checked by the kernel: the snapshot mounts,
# holds the source's files, lists with -s, takes writes on both sides, and
# the image stays btrfs-check clean; qgroup numbers equal a kernel rescan.

load ../helpers

setup() {
	require_root_loop
	IMG="$BATS_TEST_TMPDIR/fs.img"
	MNT="$BATS_TEST_TMPDIR/mnt"
	mkdir -p "$MNT"
	truncate -s 512M "$IMG"
	mkfs.btrfs -q -f "$IMG" >/dev/null
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

check_clean() {
	run btrfs check --readonly "$IMG"
	if [ "$status" -ne 0 ]; then
		echo "$output" >&2
		return 1
	fi
}

# A subvolume "sv" with NR files written by the kernel
fill_source() {
	mount_img
	btrfs subvolume create "$MNT/sv" >/dev/null
	local i
	for i in $(seq 1 "${1:-200}"); do
		head -c $((RANDOM * 2 + 1)) /dev/urandom >"$MNT/sv/f$i"
	done
	mkdir "$MNT/sv/dir"
	echo inline >"$MNT/sv/dir/small"
	if [ -n "${2:-}" ]; then
		btrfs quota enable "$MNT"
		kernel_rescan "$MNT"
	fi
	umount_img
}

# qgroup rfer/excl as stored, and after a kernel rescan
qgroups_stored_vs_rescan() {
	local stored rescanned
	mount_img
	stored=$(btrfs qgroup show --raw "$MNT" | awk '$1 ~ /^[0-9]+\// {print $1, $2, $3}')
	kernel_rescan "$MNT"
	rescanned=$(btrfs qgroup show --raw "$MNT" | awk '$1 ~ /^[0-9]+\// {print $1, $2, $3}')
	umount_img
	if [ "$stored" != "$rescanned" ]; then
		echo "stored:" >&2
		echo "$stored" >&2
		echo "rescanned:" >&2
		echo "$rescanned" >&2
		return 1
	fi
}

@test "snapshot: the kernel mounts it, files equal, list -s, writes on both sides" {
	fill_source 300
	check_clean
	run_volctl --image "$IMG" subvolume snapshot /sv /snap
	assert_status 0
	run_volctl --image "$IMG" subvolume snapshot -r /sv /ro
	assert_status 0
	check_clean
	mount_img
	run btrfs subvolume list -s "$MNT"
	assert_status 0
	assert_output_contains "path snap"
	assert_output_contains "path ro"
	diff -r "$MNT/sv" "$MNT/snap"
	diff -r "$MNT/sv" "$MNT/ro"
	run btrfs property get "$MNT/ro" ro
	assert_output_contains "ro=true"
	run btrfs subvolume show "$MNT/snap"
	assert_output_contains "Parent UUID:"
	# CoW of shared blocks in the kernel, both sides
	echo changed >>"$MNT/sv/f1"
	echo new >"$MNT/snap/new"
	rm "$MNT/snap/f2"
	dd if=/dev/urandom of="$MNT/snap/big" bs=1M count=2 status=none
	sync -f "$MNT"
	umount_img
	check_clean
	mount_img
	[ "$(tail -c 8 "$MNT/sv/f1")" = changed ]
	[ "$(cat "$MNT/snap/new")" = new ]
	[ ! -e "$MNT/snap/f2" ]
	[ -e "$MNT/sv/f2" ]
	[ -e "$MNT/ro/f2" ]
	cmp "$MNT/ro/f3" "$MNT/snap/f3"
	umount_img
}

@test "snapshot with quotas: stored numbers equal a kernel rescan" {
	fill_source 200 quota
	run_volctl --image "$IMG" subvolume snapshot /sv /snap
	assert_status 0
	check_clean
	qgroups_stored_vs_rescan
	run btrfs inspect-internal dump-tree -t 8 "$IMG"
	[[ "$output" != *"INCONSISTENT"* ]]
}

@test "snapshot -i: quick inherit path into the source's only parent stays consistent" {
	fill_source 100 quota
	mount_img
	btrfs qgroup create 1/100 "$MNT"
	btrfs qgroup assign 0/256 1/100 "$MNT" 2>/dev/null || true
	kernel_rescan "$MNT"
	umount_img
	run_volctl --image "$IMG" subvolume snapshot -i 1/100 /sv /snap
	assert_status 0
	check_clean
	run btrfs inspect-internal dump-tree -t 8 "$IMG"
	[[ "$output" != *"INCONSISTENT"* ]]
	qgroups_stored_vs_rescan
	mount_img
	run btrfs qgroup show -p "$MNT"
	umount_img
	assert_output_contains "1/100"
	[ "$(grep -c '1/100' <<<"$output")" -ge 2 ]
}

@test "snapshot of a member without -i: recounted where the kernel marks inconsistent" {
	fill_source 20 quota
	mount_img
	btrfs qgroup create 1/100 "$MNT"
	btrfs qgroup assign 0/256 1/100 "$MNT" 2>/dev/null || true
	kernel_rescan "$MNT"
	umount_img
	run_volctl --image "$IMG" subvolume snapshot /sv /snap
	assert_status 0
	run btrfs inspect-internal dump-tree -t 8 "$IMG"
	[[ "$output" != *"INCONSISTENT"* ]]
	check_clean
	qgroups_stored_vs_rescan
}

@test "delete offline: the tree is dropped offline, nothing left for the cleaner, qgroup 0/id removed" {
	fill_source 100 quota
	mount_img
	btrfs subvolume snapshot "$MNT/sv" "$MNT/keep" >/dev/null
	btrfs qgroup limit 20K 0/256 "$MNT"
	btrfs subvolume create "$MNT/plain" >/dev/null
	umount_img
	# over its limit, still deletable
	run_volctl --image "$IMG" subvolume delete /sv /plain
	assert_status 0
	check_clean
	mount_img
	run btrfs subvolume list -d "$MNT"
	[[ "$output" != *"DELETED"* ]]
	wait_cleaned "$MNT"
	run btrfs subvolume list "$MNT"
	[[ "$output" != *"path sv"* ]]
	[[ "$output" != *"path plain"* ]]
	assert_output_contains "path keep"
	run btrfs qgroup show "$MNT"
	[[ "$output" != *"0/256 "* ]]
	[ -e "$MNT/keep/f1" ]
	echo more >>"$MNT/keep/f1"
	sync -f "$MNT"
	umount_img
	check_clean
	qgroups_stored_vs_rescan
}

@test "offline writes into kernel-made snapshots (shared and full-backref blocks), kernel agrees" {
	fill_source 400
	mount_img
	btrfs subvolume snapshot "$MNT/sv" "$MNT/ksnap" >/dev/null
	# the kernel copies shared leaves: full back refs appear
	echo change >>"$MNT/sv/f10"
	echo change >>"$MNT/ksnap/f300"
	sync -f "$MNT"
	umount_img
	check_clean
	local p
	for p in /sv/o1 /ksnap/o2 /o3; do
		run_volctl --image "$IMG" subvolume create "$p"
		[ "$status" -eq 0 ] || { echo "$p: $output" >&2; return 1; }
		check_clean
	done
	run_volctl --image "$IMG" subvolume snapshot /ksnap /osnap
	assert_status 0
	run_volctl --image "$IMG" subvolume create /osnap/o4
	assert_status 0
	run_volctl --image "$IMG" subvolume delete /sv/o1
	assert_status 0
	check_clean
	mount_img
	[ -d "$MNT/ksnap/o2" ]
	[ -d "$MNT/osnap/o4" ]
	[ ! -e "$MNT/sv/o1" ]
	cmp "$MNT/ksnap/f300" "$MNT/osnap/f300"
	echo more >>"$MNT/osnap/f200"
	echo more >>"$MNT/sv/f200"
	rm "$MNT/ksnap/f5"
	wait_cleaned "$MNT"
	sync -f "$MNT"
	umount_img
	check_clean
}

# The items of tree ID in image IMG, without what differs between two
# writers of the same tree (block addresses, times, inode sequence numbers)
# the items of tree $2, without where they sit: the leaf boundaries (and so
# the item numbers) of a tree that spans leaves are the writer's choice
tree_items() {
	btrfs inspect-internal dump-tree -t "$2" "$1" |
		grep -vE '^(leaf|node) |^(fs|chunk) uuid |time |^\s+key \(.*\) block [0-9]+|^total bytes|^bytes used' |
		sed -E 's/item [0-9]+ key/key/; s/itemoff [0-9]+ //; s/sequence [0-9]+ //'
}

@test "snapshot into its own source (snapshot /sv /sv/): the kernel's tree, no entry of its own, qgroups exact" {
	local k=$BATS_TEST_TMPDIR/kernel.img ino
	fill_source 300 quota
	cp --sparse=always "$IMG" "$k"
	run_volctl --image "$IMG" subvolume snapshot /sv /sv/
	assert_status 0
	[ "$output" = "Create snapshot of '/sv' in '/sv/sv'" ]
	check_clean
	qgroups_stored_vs_rescan
	# the kernel on a copy of the same image
	LOOPDEV=$(losetup -f --show "$k")
	mount "$LOOPDEV" "$MNT"
	btrfs subvolume snapshot "$MNT/sv" "$MNT/sv/" >/dev/null
	umount_img
	# tree 257, the snapshot: the same items as the kernel's (the source
	# before the link: no entry "sv", the old directory size); 256 after it
	diff <(tree_items "$k" 257) <(tree_items "$IMG" 257)
	diff <(tree_items "$k" 256) <(tree_items "$IMG" 256)
	run ! grep -q "location key (257 ROOT_ITEM" <<<"$(tree_items "$IMG" 257)"
	# the root items: the snapshot keeps the source's ctransid from before the link
	diff <(btrfs inspect-internal dump-tree -t 1 "$k" | grep -A6 -E 'key \(25[67] ROOT_ITEM' |
		grep -oE '(key \([0-9]+ ROOT_ITEM [0-9]+\)|ctransid [0-9]+ otransid [0-9]+|last_snapshot [0-9]+)') \
		<(btrfs inspect-internal dump-tree -t 1 "$IMG" | grep -A6 -E 'key \(25[67] ROOT_ITEM' |
		grep -oE '(key \([0-9]+ ROOT_ITEM [0-9]+\)|ctransid [0-9]+ otransid [0-9]+|last_snapshot [0-9]+)')
	mount_img
	[ "$(ls -A "$MNT/sv/sv" | sort)" = "$(ls -A "$MNT/sv" | grep -vx sv | sort)" ]
	cmp "$MNT/sv/f7" "$MNT/sv/sv/f7"
	ino=$(stat -c %i "$MNT/sv/sv")
	[ "$ino" -eq 256 ]
	umount_img
}
