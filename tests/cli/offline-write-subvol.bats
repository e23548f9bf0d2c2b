#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Offline `subvolume snapshot` on mkfs.btrfs images (no root needed):
# btrfs check --readonly as the oracle (back references and qgroups),
# the items the kernel writes, refusals, crash safety by fault injection.

load ../helpers

setup() {
	command -v mkfs.btrfs >/dev/null || skip "needs mkfs.btrfs"
	IMG="$BATS_TEST_TMPDIR/fs.img"
}

mkimg() {
	truncate -s "${1:-256M}" "$IMG"
	shift || true
	mkfs.btrfs -q -f "$@" "$IMG" >/dev/null
}

# Files for mkfs --rootdir: NR files with data extents, one inline file
make_rootdir() {
	local dir="$BATS_TEST_TMPDIR/root" i
	mkdir -p "$dir/d"
	for i in $(seq 1 "${1:-20}"); do
		head -c $((8192 + i * 4096)) /dev/urandom >"$dir/d/f$i"
	done
	echo small >"$dir/inline"
	echo "$dir"
}

check_clean() {
	run btrfs check --readonly "$IMG"
	if [ "$status" -ne 0 ]; then
		echo "$output" >&2
		return 1
	fi
	[[ "$output" != *"ERROR"* ]] || { echo "$output" >&2; return 1; }
}

@test "snapshot of a new subvolume: check clean, kernel's items" {
	mkimg
	run_volctl --image "$IMG" subvolume create /a
	assert_status 0
	run_volctl --image "$IMG" subvolume snapshot /a /s
	assert_status 0
	[ "$output" = "Create snapshot of '/a' in '/s'" ]
	check_clean
	run btrfs inspect-internal dump-tree -t 1 "$IMG"
	# ROOT_ITEM key offset = the snapshot's transid; parent_uuid = a's uuid
	local gen
	gen=$(btrfs inspect-internal dump-super "$IMG" | awk '$1 == "generation" {print $2}')
	assert_output_contains "(257 ROOT_ITEM $gen)"
	assert_output_contains "(FS_TREE ROOT_REF 257)"
	assert_output_contains "(257 ROOT_BACKREF 5)"
	local auuid puuid
	auuid=$(grep -A12 "(256 ROOT_ITEM 0)" <<<"$output" | awk '$1 == "uuid" {print $2; exit}')
	puuid=$(grep -A12 "(257 ROOT_ITEM $gen)" <<<"$output" | awk '$1 == "parent_uuid" {print $2; exit}')
	[ -n "$auuid" ]
	[ "$auuid" = "$puuid" ]
	run btrfs inspect-internal dump-tree -t 5 "$IMG"
	assert_output_contains "location key (257 ROOT_ITEM 18446744073709551615)"
	run_volctl --image "$IMG" subvolume list -s /
	assert_status 0
	assert_output_contains "path s"
	run_volctl --image "$IMG" subvolume show /s
	assert_status 0
	assert_output_contains "Parent UUID:"
	assert_output_contains "$auuid"
}

@test "snapshot -r: read-only flag; the snapshot refuses a new subvolume" {
	mkimg
	"$VOLCTL" --image "$IMG" subvolume create /a >/dev/null
	run_volctl --image "$IMG" subvolume snapshot -r /a /ro
	assert_status 0
	[ "$output" = "Create readonly snapshot of '/a' in '/ro'" ]
	check_clean
	run btrfs inspect-internal dump-tree -t 1 "$IMG"
	assert_output_contains "flags 0x1(RDONLY)"
	run_volctl --image "$IMG" subvolume create /ro/x
	assert_status 1
	assert_output_contains "read-only"
}

@test "snapshot of the top level with data extents (leaf root): data refs for the snapshot" {
	local dir
	dir=$(make_rootdir 10)
	mkimg 256M --rootdir "$dir"
	check_clean
	run_volctl --image "$IMG" subvolume snapshot / /snap
	assert_status 0
	check_clean
	run btrfs inspect-internal dump-tree -t 2 "$IMG"
	assert_output_contains "extent data backref root 256 "
	run_volctl --image "$IMG" subvolume list /
	assert_output_contains "path snap"
}

@test "snapshot of a two-level tree (node root, 4 KiB nodes): tree block refs, three snapshots" {
	local dir
	dir=$(make_rootdir 150)
	mkimg 256M -n 4096 --rootdir "$dir"
	[ "$(btrfs inspect-internal dump-tree -t 5 "$IMG" | grep -c '^node ')" -ge 1 ]
	"$VOLCTL" --image "$IMG" subvolume create /sub >/dev/null
	run_volctl --image "$IMG" subvolume snapshot / /sub/s1
	assert_status 0
	check_clean
	# the top level shares blocks now: writing into it copies shared blocks
	run_volctl --image "$IMG" subvolume snapshot / /s2
	assert_status 0
	check_clean
	run btrfs inspect-internal dump-tree -t 2 "$IMG"
	assert_output_contains "FULL_BACKREF"
	run_volctl --image "$IMG" subvolume snapshot / /sub/s2
	assert_status 0
	run_volctl --image "$IMG" subvolume snapshot /sub/s1 /sub/s3
	assert_status 0
	check_clean
	run btrfs inspect-internal dump-tree -t 2 "$IMG"
	assert_output_contains "tree block backref root 258"
	assert_output_contains "tree block backref root 259"
}

@test "writes into snapshots and their sources: shared blocks copied with full back refs" {
	local dir
	dir=$(make_rootdir 120)
	mkimg 256M -n 4096 -R quota --rootdir "$dir"
	"$VOLCTL" --image "$IMG" subvolume snapshot / /s1 >/dev/null
	"$VOLCTL" --image "$IMG" subvolume snapshot /s1 /s1/s2 >/dev/null
	local p
	for p in /a /s1/b /s1/s2/c /s1/sv-d /e; do
		run_volctl --image "$IMG" subvolume create "$p"
		[ "$status" -eq 0 ] || { echo "$p: $output" >&2; return 1; }
		check_clean
	done
	run_volctl --image "$IMG" subvolume delete /s1/sv-d
	assert_status 0
	check_clean
	# shared copies: every qgroup recomputed at commit, nothing left inconsistent
	run btrfs inspect-internal dump-tree -t 8 "$IMG"
	[[ "$output" != *INCONSISTENT* ]]
	run_volctl check --qgroup-report "$IMG"
	assert_status 0
	run_volctl --image "$IMG" subvolume list /
	assert_output_contains "path s1/s2/c"
}

@test "quotas on: the kernel's numbers for a snapshot, check's qgroup verification agrees" {
	local dir
	dir=$(make_rootdir 30)
	mkimg 256M -R quota --rootdir "$dir"
	check_clean
	"$VOLCTL" --image "$IMG" subvolume create /sub >/dev/null
	run_volctl --image "$IMG" subvolume snapshot / /sub/snap
	assert_status 0
	check_clean
	run btrfs check --readonly --qgroup-report "$IMG"
	assert_status 0
	[[ "$output" != *"are different"* ]]
	run_volctl --image "$IMG" qgroup show --raw /
	assert_status 0
	local rfer5 rfer257 excl5 excl257
	rfer5=$(awk '$1 == "0/5" {print $2}' <<<"$output")
	rfer257=$(awk '$1 == "0/257" {print $2}' <<<"$output")
	excl5=$(awk '$1 == "0/5" {print $3}' <<<"$output")
	excl257=$(awk '$1 == "0/257" {print $3}' <<<"$output")
	[ "$rfer5" = "$rfer257" ]
	[ "$rfer5" -gt 100000 ]
	[ "$excl5" = 16384 ]
	[ "$excl257" = 16384 ]
	run btrfs inspect-internal dump-tree -t 8 "$IMG"
	[[ "$output" != *"INCONSISTENT"* ]]
}

@test "refusals: missing source, not a subvolume, existing destination; image unchanged" {
	local dir
	dir=$(make_rootdir 2)
	mkimg 256M --rootdir "$dir"
	"$VOLCTL" --image "$IMG" subvolume create /a >/dev/null
	local before
	before=$(sha256sum <"$IMG")
	run_volctl --image "$IMG" subvolume snapshot /nope /x
	assert_status 1
	assert_output_contains "nope"
	run_volctl --image "$IMG" subvolume snapshot /d /x
	assert_status 1
	assert_output_contains "not a subvolume"
	run_volctl --image "$IMG" subvolume snapshot /a /inline
	assert_status 1
	run_volctl --image "$IMG" subvolume snapshot /a /missing/x
	assert_status 1
	assert_output_contains "missing"
	[ "$(sha256sum <"$IMG")" = "$before" ]
}

@test "snapshot into an existing subvolume or directory: inside it, as btrfs-progs; into itself without its own entry" {
	mkimg 256M -R quota
	"$VOLCTL" --image "$IMG" subvolume create /a /b >/dev/null
	"$VOLCTL" --image "$IMG" subvolume create -p /d/e >/dev/null
	run_volctl --image "$IMG" subvolume snapshot /a /b
	assert_status 0
	[ "$output" = "Create snapshot of '/a' in '/b/a'" ]
	run_volctl --image "$IMG" subvolume snapshot /a /d//
	assert_status 0
	[ "$output" = "Create snapshot of '/a' in '/d/a'" ]
	# into itself, the issue's "snapshot /a /a/"
	run_volctl --image "$IMG" subvolume snapshot /a /a/
	assert_status 0
	[ "$output" = "Create snapshot of '/a' in '/a/a'" ]
	[ "$("$VOLCTL" --image "$IMG" subvolume list / | awk '{ print $NF }' | tr '\n' ' ')" = \
		"a b d/e b/a d/a a/a " ]
	# the kernel copies the source before it links the snapshot: no entry of
	# its own in the snapshot's root directory, whose size (2 x names) stays 0
	local id
	id=$("$VOLCTL" --image "$IMG" subvolume list / | awk '$NF == "a/a" { print $2 }')
	run ! grep -q "location key ($id ROOT_ITEM" <<<"$(btrfs inspect-internal dump-tree -t "$id" "$IMG")"
	btrfs inspect-internal dump-tree -t "$id" "$IMG" | grep -A1 "key (256 INODE_ITEM 0)" |
		grep -q " size 0 "
	btrfs inspect-internal dump-tree -t 256 "$IMG" | grep -q "location key ($id ROOT_ITEM"
	check_clean
	run_volctl check "$IMG"
	assert_status 0
	assert_output_contains "all consistent"
	# the name taken: the real problem, a clean path; a source with no name
	local before
	before=$(sha256sum <"$IMG")
	run_volctl --image "$IMG" subvolume snapshot /a /a
	assert_status 1
	[[ "$output" == "error: /a/a: "*"exists"* ]]
	run ! grep -q '//' <<<"$output"
	run_volctl --image "$IMG" subvolume snapshot / /b/
	assert_status 1
	[ "$output" = "error: /b: the snapshot would go inside this subvolume, but / has no name to give it: give /b/<name>" ]
	run_volctl --image "$IMG" subvolume snapshot / /
	assert_status 1
	[ "$output" = "error: /: the snapshot would go inside this subvolume, but / has no name to give it: give /<name>" ]
	[ "$(sha256sum <"$IMG")" = "$before" ]
}

# snap_state: "old" or "new" whether a snapshot (id 258) is linked in tree 5
snap_state() {
	local roots dirs
	roots=$(btrfs inspect-internal dump-tree -t 1 "$IMG" | grep -c "(258 ROOT_ITEM ") || true
	dirs=$(btrfs inspect-internal dump-tree -t 5 "$IMG" |
		grep -c "location key (258 ROOT_ITEM") || true
	if [ "$roots" -eq 0 ] && [ "$dirs" -eq 0 ]; then
		echo old
	elif [ "$roots" -eq 1 ] && [ "$dirs" -eq 2 ]; then
		echo new
	else
		echo "mixed roots=$roots dirs=$dirs"
	fi
}

@test "crash after every device write of a snapshot: old or new, check clean" {
	local dir
	dir=$(make_rootdir 40)
	mkimg 256M -n 4096 -R quota --rootdir "$dir"
	"$VOLCTL" --image "$IMG" subvolume create /sub >/dev/null
	"$VOLCTL" --image "$IMG" subvolume create /sub2 >/dev/null
	require_fault_injection
	cp "$IMG" "$BATS_TEST_TMPDIR/pristine.img"
	CRASH_STATE=snap_state CRASH_MAX=400 CRASH_CHECK=check_clean crash_loop_writes --image @IMG@ subvolume snapshot /sub /snap
	[ "$CRASH_OLDS" -gt 3 ]
	[ "$CRASH_NEWS" -ge 1 ]
}

@test "delete: unlinked and dropped, no orphan or dead root left, check clean" {
	mkimg 256M -R quota
	"$VOLCTL" --image "$IMG" subvolume create /a /b /b/c >/dev/null
	"$VOLCTL" --image "$IMG" subvolume snapshot /a /snap >/dev/null
	run_volctl --image "$IMG" subvolume delete /a
	assert_status 0
	assert_output_contains "Delete subvolume 256 (no-commit): '/a'"
	check_clean
	run btrfs inspect-internal dump-tree -t 1 "$IMG"
	[[ "$output" != *"ORPHAN_ITEM 256)"* ]]
	[[ "$output" != *"ROOT_REF 256)"* ]]
	[[ "$output" != *"(256 ROOT_BACKREF"* ]]
	[[ "$output" != *"(256 ROOT_ITEM"* ]]
	[[ "$output" != *"0x1000000000000(none) refs 0"* ]]
	run btrfs inspect-internal dump-tree -t 5 "$IMG"
	[[ "$output" != *"location key (256 ROOT_ITEM"* ]]
	run btrfs inspect-internal dump-tree -t 9 "$IMG"
	[[ "$output" != *"subvol_id 256"* ]]
	run_volctl --image "$IMG" subvolume list /
	[[ "$output" != *"path a"$'\n'* && "$output" != *"path a" ]]
	assert_output_contains "path snap"
	run_volctl --image "$IMG" subvolume list -d /
	[[ "$output" != *"ID 256"* ]]
	# by id, with -c (every offline write is already committed)
	run_volctl --image "$IMG" subvolume delete -c -i 259 /
	assert_status 0
	check_clean
	# the same name can be created again
	run_volctl --image "$IMG" subvolume create /a
	assert_status 0
	check_clean
}

@test "delete refusals: nested subvolumes, top level, default, missing; image unchanged" {
	mkimg 256M
	"$VOLCTL" --image "$IMG" subvolume create /b /b/c >/dev/null
	local before
	before=$(sha256sum <"$IMG")
	run_volctl --image "$IMG" subvolume delete /b
	assert_status 1
	assert_output_contains "contains other subvolumes"
	run_volctl --image "$IMG" subvolume delete /
	assert_status 1
	run_volctl --image "$IMG" subvolume delete /nope
	assert_status 1
	run_volctl --image "$IMG" subvolume delete -i 300 /
	assert_status 1
	[ "$(sha256sum <"$IMG")" = "$before" ]
	run_volctl --image "$IMG" subvolume delete /b/c /b
	assert_status 0
	check_clean
}

@test "delete of the default subvolume is refused (mkfs --default-subvol)" {
	run_volctl mkfs -s 256M --subvol /root --default-subvol /root "$IMG"
	assert_status 0
	local before
	before=$(sha256sum <"$IMG")
	run_volctl --image "$IMG" subvolume delete /root
	assert_status 1
	assert_output_contains "default"
	[ "$(sha256sum <"$IMG")" = "$before" ]
}

# del_state: "old" or "new" whether subvolume 256 is gone (no root item, no dir entries)
del_state() {
	local roots dirs
	roots=$(btrfs inspect-internal dump-tree -t 1 "$IMG" | grep -c "key (256 ROOT_ITEM") || true
	dirs=$(btrfs inspect-internal dump-tree -t 5 "$IMG" |
		grep -c "location key (256 ROOT_ITEM") || true
	if [ "$roots" -eq 1 ] && [ "$dirs" -eq 2 ]; then
		echo old
	elif [ "$roots" -eq 0 ] && [ "$dirs" -eq 0 ]; then
		echo new
	else
		echo "mixed roots=$roots dirs=$dirs"
	fi
}

@test "crash after every device write of a delete: old or new, check clean" {
	mkimg 256M -R quota
	"$VOLCTL" --image "$IMG" subvolume create /a /b >/dev/null
	require_fault_injection
	cp "$IMG" "$BATS_TEST_TMPDIR/pristine.img"
	CRASH_STATE=del_state CRASH_MAX=300 CRASH_CHECK=check_clean crash_loop_writes --image @IMG@ subvolume delete /a
	[ "$CRASH_OLDS" -gt 3 ]
	[ "$CRASH_NEWS" -ge 1 ]
}

# new_in_snap_state: "old" or "new" whether subvolume 257 has its root item
new_in_snap_state() {
	local roots
	roots=$(btrfs inspect-internal dump-tree -t 1 "$IMG" | grep -c "(257 ROOT_ITEM 0)") || true
	case $roots in
	0) echo old ;;
	1) echo new ;;
	*) echo "mixed roots=$roots" ;;
	esac
}

@test "crash after every device write of a create inside a snapshot (shared blocks copied)" {
	local dir
	dir=$(make_rootdir 60)
	mkimg 256M -n 4096 --rootdir "$dir"
	"$VOLCTL" --image "$IMG" subvolume snapshot / /s1 >/dev/null
	require_fault_injection
	cp "$IMG" "$BATS_TEST_TMPDIR/pristine.img"
	CRASH_STATE=new_in_snap_state CRASH_MAX=400 CRASH_CHECK=check_clean crash_loop_writes --image @IMG@ subvolume create /s1/new
	[ "$CRASH_OLDS" -gt 3 ]
	[ "$CRASH_NEWS" -ge 1 ]
}
