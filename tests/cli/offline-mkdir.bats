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

@test "create -p: crash after every write, old or new state, never a mix" {
	mkimg
	cp "$IMG" "$BATS_TEST_TMPDIR/probe.img"
	if VOLCTL_FAIL_AFTER_WRITES=1 "$VOLCTL" --image "$BATS_TEST_TMPDIR/probe.img" \
		subvolume create /probe 2>/dev/null; then
		skip "built without --enable-fault-injection"
	fi
	cp "$IMG" "$BATS_TEST_TMPDIR/pristine.img"
	local w rc dirs nold=0 nnew=0
	for w in $(seq 1 100); do
		cp "$BATS_TEST_TMPDIR/pristine.img" "$IMG"
		rc=0
		VOLCTL_FAIL_AFTER_WRITES=$w "$VOLCTL" --image "$IMG" subvolume create -p /a/b/sv \
			>/dev/null 2>&1 || rc=$?
		check_clean
		# a and b: DIR_ITEM, DIR_INDEX, INODE_REF each; sv: DIR_ITEM, DIR_INDEX
		# (its back ref is in the root tree): all eight or none
		dirs=$(btrfs inspect-internal dump-tree -t 5 "$IMG" |
			grep -cE "name: (a|b|sv)$") || true
		case $dirs in
		0) nold=$((nold + 1)); [ "$rc" -eq 1 ] ;;
		8) nnew=$((nnew + 1)) ;;
		*) echo "after $w writes: $dirs entries" >&2; return 1 ;;
		esac
		[ "$rc" -eq 0 ] && break
	done
	[ "$rc" -eq 0 ]
	[ "$nold" -gt 3 ]
	[ "$nnew" -ge 1 ]
}
