#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Offline writer on mkfs.btrfs images (no root needed): subvolume create,
# btrfs check as the oracle, refusals, crash safety by fault injection.

load ../helpers
load ../fixtures/fixture-helpers

setup() {
	command -v mkfs.btrfs >/dev/null || skip "needs mkfs.btrfs"
	IMG="$BATS_TEST_TMPDIR/fs.img"
}

mkimg() {
	truncate -s "${1:-256M}" "$IMG"
	shift || true
	mkfs.btrfs -q -f "$@" "$IMG" >/dev/null
}

# state_of IMG [ID PARENT_TREE]: prints "old" or "new" whether subvolume ID
# (default 256) and its two dir entries in PARENT_TREE (default 5) exist,
# anything else for a mixed state.
state_of() {
	local id=${2:-256} parent=${3:-5} roots dirs
	roots=$(btrfs inspect-internal dump-tree -t 1 "$1" | grep -c "($id ROOT_ITEM 0)") || true
	dirs=$(btrfs inspect-internal dump-tree -t "$parent" "$1" |
		grep -c "location key ($id ROOT_ITEM 0)") || true
	if [ "$roots" -eq 0 ] && [ "$dirs" -eq 0 ]; then
		echo old
	elif [ "$roots" -eq 1 ] && [ "$dirs" -eq 2 ]; then
		echo new
	else
		echo "mixed roots=$roots dirs=$dirs"
	fi
}

@test "create /a: btrfs check clean, items in place" {
	mkimg
	run btrfs check --readonly "$IMG"
	assert_status 0
	run_volctl --image "$IMG" subvolume create /a
	assert_status 0
	run btrfs check --readonly "$IMG"
	assert_status 0
	[ "$(state_of "$IMG")" = new ]
	run btrfs inspect-internal dump-tree -t 1 "$IMG"
	assert_output_contains "root ref key dirid 256 sequence 2 name a"
	assert_output_contains "root backref key dirid 256 sequence 2 name a"
	# mkfs 6.2's stale free space entries (no block group at 1 MiB) are gone
	run btrfs inspect-internal dump-tree -t 10 "$IMG"
	[[ "$output" != *"(1048576 FREE_SPACE_INFO"* ]]
	assert_output_contains "FREE_SPACE_INFO"
}

@test "nested and several subvolumes in one image" {
	mkimg
	run_volctl --image "$IMG" subvolume create /a /a/b /c /a/b/d
	assert_status 0
	run btrfs check --readonly "$IMG"
	assert_status 0
	run btrfs inspect-internal dump-tree -t 1 "$IMG"
	assert_output_contains "(FS_TREE ROOT_REF 256)"
	assert_output_contains "(256 ROOT_REF 257)"
	assert_output_contains "(257 ROOT_REF 259)"
	assert_output_contains "(258 ROOT_BACKREF 5)"
}

@test "100 subvolumes, one transaction each" {
	mkimg
	local names=()
	for i in $(seq 1 100); do names+=("/s$i"); done
	run_volctl --image "$IMG" subvolume create "${names[@]}"
	assert_status 0
	run btrfs check --readonly "$IMG"
	assert_status 0
	[ "$(btrfs inspect-internal dump-tree -t 1 "$IMG" | grep -c 'ROOT_BACKREF 5) itemoff')" -eq 100 ]
}

@test "existing name and missing parent fail, image byte-identical" {
	mkimg
	"$VOLCTL" --image "$IMG" subvolume create /a
	local before
	before=$(sha256sum < "$IMG")
	run_volctl --image "$IMG" subvolume create /a
	assert_status 1
	assert_output_contains "/a: file exists"
	run_volctl --image "$IMG" subvolume create /missing/x
	assert_status 1
	assert_output_contains "/missing: "
	[ "$(sha256sum < "$IMG")" = "$before" ]
}

@test "quota enabled: qgroup 0/256 items, check clean" {
	mkimg 256M -R quota
	run_volctl --image "$IMG" subvolume create /a /b
	assert_status 0
	run btrfs check --readonly "$IMG"
	assert_status 0
	run btrfs inspect-internal dump-tree -t 8 "$IMG"
	assert_output_contains "(0 QGROUP_INFO 0/256)"
	assert_output_contains "(0 QGROUP_LIMIT 0/257)"
}

@test "quota enabled: tree 5 grows by leaf splits, qgroup 0/5 follows" {
	mkimg 256M -R quota
	local long names=()
	long=$(printf 'n%.0s' $(seq 1 200))
	for i in $(seq 1 40); do names+=("/$long$i"); done
	run_volctl --image "$IMG" subvolume create "${names[@]}"
	assert_status 0
	[ "$(btrfs inspect-internal dump-tree -t 5 "$IMG" | grep -c '^leaf ')" -gt 1 ]
	run btrfs check --readonly "$IMG"
	assert_status 0
	[[ "$output" != *"are different"* ]]
}

@test "image without skinny-metadata is refused, naming the feature" {
	mkimg 256M -O ^skinny-metadata
	local before
	before=$(sha256sum < "$IMG")
	run_volctl --image "$IMG" subvolume create /a
	assert_status 1
	assert_output_contains "skinny-metadata"
	[ "$(sha256sum < "$IMG")" = "$before" ]
}

@test "image without free space tree: allocation from extent tree gaps" {
	mkimg 256M -R ^free-space-tree
	run_volctl --image "$IMG" subvolume create /a /b
	assert_status 0
	run btrfs check --readonly "$IMG"
	assert_status 0
}

# crash_loop PATH ID PARENT_TREE: fail after 1, 2, ... device writes
crash_loop() {
	require_fault_injection
	cp "$IMG" "$BATS_TEST_TMPDIR/pristine.img"
	CL_ID=$2 CL_PARENT=$3
	CRASH_STATE=crash_state CRASH_MAX=300 crash_loop_writes --image @IMG@ subvolume create "$1"
	[ "$CRASH_OLDS" -gt 3 ]
	[ "$CRASH_NEWS" -ge 1 ]
}

crash_state() {
	state_of "$IMG" "$CL_ID" "$CL_PARENT"
}

@test "crash after every device write: old or new state, never a mix" {
	mkimg
	crash_loop /a 256 5
}

@test "crash loop, nested, quotas on, single metadata" {
	mkimg 256M -R quota -m single
	"$VOLCTL" --image "$IMG" subvolume create /a >/dev/null
	crash_loop /a/b 257 256
}

@test "kernel-made fixtures (bitmap free space tree, qgroup relations, csums)" {
	local name n=0
	for name in rich4k multi4k noquota16k csum-xxhash csum-sha256 csum-blake2; do
		[ -e "$FIXTURES/$name.img.zst" ] || continue
		fixture "$name"
		run btrfs check --readonly "$IMG"
		[ "$status" -eq 0 ] || { echo "$name: baseline not clean" >&2; continue; }
		run_volctl --image "$IMG" subvolume create /offline-new
		[ "$status" -eq 0 ] || { echo "$name: $output" >&2; return 1; }
		run btrfs check --readonly "$IMG"
		[ "$status" -eq 0 ] || { echo "$name: $output" >&2; return 1; }
		run_volctl --image "$IMG" subvolume list /
		assert_output_contains "path offline-new"
		n=$((n + 1))
	done
	[ "$n" -ge 3 ]
}

@test "a missing member is refused, untouched; all members are written" {
	local before
	fixture raid1
	before=$(image_sum)
	run_volctl --image "$IMG" subvolume create /x
	assert_status 1
	assert_output_contains "device 2 is missing"
	[ "$(image_sum)" = "$before" ]
	# with every member given it is written (tests/mounted/offline-multidev.bats)
	run_volctl "${IMGS[@]}" subvolume create /x
	assert_status 0
	run_volctl "${IMGS[@]}" subvolume list /
	assert_output_contains "path x"
}

@test "create -i: new qgroup joins 1/100, parents grow, check clean; bad -i refused" {
	fixture rich4k
	local before
	before=$(image_sum)
	run_volctl --image "$IMG" subvolume create -i 1/999 /x
	assert_status 1
	assert_output_contains "1/999: does not exist"
	run_volctl --image "$IMG" subvolume create -i 0/5 /x
	assert_status 1
	assert_output_contains "level-0"
	[ "$(image_sum)" = "$before" ]
	run_volctl --image "$IMG" subvolume create -i 1/100 /inh
	assert_status 0
	run btrfs check --readonly "$IMG"
	assert_status 0
	[[ "$output" != *"are different"* ]]
	run btrfs inspect-internal dump-tree -t 8 "$IMG"
	assert_output_contains "(0/266 QGROUP_RELATION 1/100)"
	assert_output_contains "(1/100 QGROUP_RELATION 0/266)"
}

# a full metadata block group gets a new chunk: tests/cli/offline-chunks.bats
