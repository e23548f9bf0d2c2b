#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# `subvolume create -p` offline against the kernel: the same paths created
# online (mkdir -p, then the ioctl) and offline give the same tree shape:
# subvolume list, inode numbers, modes, sizes, link counts.

load ../helpers

setup() {
	require_root_loop
	IMG="$BATS_TEST_TMPDIR/fs.img"
	MNT="$BATS_TEST_TMPDIR/mnt"
	mkdir -p "$MNT"
	umask 022
}

teardown() {
	cleanup_mount
}

mount_img() {
	LOOPDEV=$(losetup -f --show "$1")
	mount "$LOOPDEV" "$MNT"
}

umount_img() {
	umount "$MNT"
	losetup -d "$LOOPDEV"
	LOOPDEV=
}

# path, inode, mode, size, type, links, owner of everything under $MNT
shape() {
	(cd "$MNT" && find . -mindepth 1 -printf '%P %i %m %s %y %n %U %G\n' | sort)
	btrfs subvolume list "$MNT" | awk '{ print $2, $7, $9 }'
}

@test "create -p offline: same shape as the kernel's mkdir -p + create" {
	local paths=(a/b/c/sv a/b/sv2 x/y/sv3 a/b/c/sv/in/deep) p ours theirs
	truncate -s 512M "$IMG"
	mkfs.btrfs -q -f "$IMG" >/dev/null
	cp "$IMG" "$BATS_TEST_TMPDIR/kernel.img"
	for p in "${paths[@]}"; do
		run_volctl --image "$IMG" subvolume create -p "/$p"
		assert_status 0
	done
	run btrfs check --readonly "$IMG"
	assert_status 0
	mount_img "$BATS_TEST_TMPDIR/kernel.img"
	for p in "${paths[@]}"; do
		run_volctl subvolume create -p "$MNT/$p"
		assert_status 0
	done
	theirs=$(shape)
	umount_img
	mount_img "$IMG"
	ours=$(shape)
	[ -n "$ours" ]
	if [ "$ours" != "$theirs" ]; then
		diff <(echo "$theirs") <(echo "$ours") >&2
		return 1
	fi
	# the kernel uses the new directories like its own
	echo data >"$MNT/a/b/c/file"
	mkdir "$MNT/x/y/more"
	btrfs subvolume create "$MNT/a/b/c/sv/in/k" >/dev/null
	umount_img
	run btrfs check --readonly "$IMG"
	assert_status 0
}
