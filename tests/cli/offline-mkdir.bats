#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# `subvolume create -p` offline (no root needed): missing parent directories
# made as plain directories in the subvolume's transaction, btrfs check as
# the oracle; a file in the way or a read-only subvolume changes nothing.

load ../helpers

setup() {
	command -v mkfs.btrfs >/dev/null || skip "needs mkfs.btrfs"
	IMG="$BATS_TEST_TMPDIR/fs.img"
	umask 022
}

mkimg() {
	truncate -s 256M "$IMG"
	mkfs.btrfs -q -f "$@" "$IMG" >/dev/null
}

check_clean() {
	run btrfs check --readonly "$IMG"
	assert_status 0
}

@test "create -p: directories, then the subvolume; items and sizes as the kernel's mkdir" {
	mkimg
	run_volctl --image "$IMG" subvolume create -p /a/b/c/sv
	assert_status 0
	[ "$output" = "Create subvolume '/a/b/c/sv'" ]
	check_clean
	run btrfs inspect-internal dump-tree -t 5 "$IMG"
	# a = 257, b = 258, c = 259: the tree's highest inode number plus one
	assert_output_contains "(257 INODE_ITEM 0)"
	assert_output_contains "(259 INODE_REF 258)"
	assert_output_contains "index 2 namelen 1 name: c"
	assert_output_contains "location key (259 INODE_ITEM 0) type DIR"
	assert_output_contains "location key (256 ROOT_ITEM 0) type DIR"
	assert_output_contains "mode 40755"
	# dir 256 holds "a" (size 2), c holds "sv" (size 4)
	[ "$(btrfs inspect-internal dump-tree -t 5 "$IMG" |
		awk '/key \(259 INODE_ITEM 0\) itemoff/ { getline; print $6 }')" = 4 ]
	run_volctl --image "$IMG" subvolume list /
	assert_output_contains "path a/b/c/sv"
}

@test "create -p: existing parents reused, into a subvolume, several at once" {
	mkimg
	run_volctl --image "$IMG" subvolume create -p /a/b/c/sv /a/b/sv2 /x/y/sv3 /a/b/c/sv/in/deep
	assert_status 0
	check_clean
	run_volctl --image "$IMG" subvolume list /
	assert_output_contains "top level 5 path a/b/sv2"
	assert_output_contains "top level 5 path x/y/sv3"
	assert_output_contains "top level 256 path a/b/c/sv/in/deep"
	# "in" is a directory of subvolume 256, not of tree 5
	run btrfs inspect-internal dump-tree -t 256 "$IMG"
	assert_output_contains "name: in"
	# an existing path: EEXIST, nothing changed
	local before
	before=$(sha256sum <"$IMG")
	run_volctl --image "$IMG" subvolume create -p /a/b/c/sv
	assert_status 1
	assert_output_contains "file exists"
	[ "$(sha256sum <"$IMG")" = "$before" ]
}

@test "create -p: a file in the way, a read-only subvolume: refused, image unchanged" {
	local dir="$BATS_TEST_TMPDIR/root" before
	mkdir -p "$dir"
	echo data >"$dir/file"
	mkimg --rootdir "$dir"
	run_volctl --image "$IMG" subvolume create /ro
	assert_status 0
	run_volctl --image "$IMG" subvolume snapshot -r /ro /ro-snap
	assert_status 0
	before=$(sha256sum <"$IMG")
	run_volctl --image "$IMG" subvolume create -p /file/sub
	assert_status 1
	assert_output_contains "/file: exists and is not a directory"
	run_volctl --image "$IMG" subvolume create -p /ro-snap/d/sub
	assert_status 1
	assert_output_contains "read-only"
	[ "$(sha256sum <"$IMG")" = "$before" ]
	check_clean
}

@test "create -p with quotas: numbers stay exact" {
	mkimg -n 4096 -R quota
	run_volctl --image "$IMG" subvolume create -p /d1/d2/sv
	assert_status 0
	check_clean
	run_volctl check --qgroup-report "$IMG"
	assert_status 0
	run btrfs check --readonly --qgroup-report "$IMG"
	assert_status 0
	[[ "$output" != *"are different"* ]]
}
