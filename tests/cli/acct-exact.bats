#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The accounting engine on kernel-made images that volctl's own generators do
# not make, against the numbers the kernel recorded after `quota rescan -w`
# (which `btrfs check --qgroup-report` v6.19 also agrees with):
#
#  - qgroup-undercount.metadump: 104 subvolumes (95 snapshots, 10 rounds of
#    overwrites, appends, truncates, hole punches, clones and reflinks; 6
#    subvolumes deleted and cleaned), 105 groups, 11,997 data extents;
#  - bgt-quota.img.zst: block-group tree, 3-level hierarchy with limits.
#
# Both hold EXTENT_DATA_REFs whose offset (file offset - offset into the
# extent) wrapped below zero, which clones of the middle of an extent to a
# lower file offset write: 149 and 2 of them.  The engine once missed those
# (12 groups too low, and a warning on a healthy image).

load ../helpers
load ../fixtures/fixture-helpers

setup() {
	command -v zstd >/dev/null || skip "needs zstd"
}

# every group: computed == recorded, and nothing left unresolved
assert_exact() {
	local groups=$1
	run_volctl_split --format json check --qgroup-report "$IMG"
	[ "$status" -eq 0 ] || { echo "$out$err" >&2; return 1; }
	[ -z "$err" ] || { echo "stderr: $err" >&2; return 1; }
	[ "$(jq '.check.qgroups | length' <<<"$out")" -eq "$groups" ]
	[ "$(jq '[.check.qgroups[] | select(.referenced != .recorded_referenced or
	                                     .exclusive != .recorded_exclusive)] | length' <<<"$out")" -eq 0 ]
	[ "$(jq .check.trees.unresolved_refs <<<"$out")" -eq 0 ]
	[ "$(jq .check.differences <<<"$out")" -eq 0 ]
}

# EXTENT_DATA_REFs with a wrapped offset, counted in dump-tree's output
wrapped_refs() {
	btrfs inspect-internal dump-tree -t extent "$IMG" |
		grep -cE 'extent data backref root [0-9]+ objectid [0-9]+ offset (9[0-9]{18}|1[0-9]{19}) '
}

@test "exact: qgroup-undercount, all 105 groups equal the kernel's, wrapped data ref offsets resolved" {
	command -v btrfs-image >/dev/null || skip "needs btrfs-image (btrfs-progs) to restore the metadump"
	fixture_metadump qgroup-undercount
	[ "$(wrapped_refs)" -eq 149 ]
	assert_exact 105
	run_volctl check --qgroup-report "$IMG"
	assert_status 0
	assert_output_contains "qgroups: 105 groups verified, all consistent"
	[[ "$output" != *warning* ]]
	# 0/256 was 53,248 bytes short; qgroup show --compute uses the same engine
	run_volctl --format json --image "$IMG" qgroup show --compute /
	assert_status 0
	[ "$(jq '.["qgroup_show"][] | select(.qgroupid == "0/256") | .referenced' <<<"$output")" -eq 32985088 ]
}

@test "exact: bgt-quota (block-group tree, 3 levels, limits): every group equal, no warning" {
	command -v btrfs >/dev/null || skip "needs btrfs-progs (dump-tree counts the refs)"
	fixture bgt-quota
	[ "$(wrapped_refs)" -eq 2 ]
	assert_exact 19
}

@test "exact: a data back ref that matches no file extent item is reported as an inconsistency, exit 1" {
	command -v btrfs >/dev/null || skip "needs btrfs-progs (dump-tree finds the extent)"
	fixture rich4k
	# the one inline EXTENT_DATA_REF of extent 14123008 (root 257, inode 257,
	# offset 0): its offset field (item data byte 24 + 1 + 16) moved by 1 MiB
	btrfs inspect-internal dump-tree -t extent "$IMG" |
		grep -A2 "key (14123008 EXTENT_ITEM 16384)" | grep -q "root 257 objectid 257 offset 0 count 1"
	python3 "$BATS_TEST_DIRNAME/../fixtures/corrupt.py" "$IMG" item 14123008 168 16384 41 8 1048576
	run_volctl_split check "$IMG"
	[ "$status" -eq 1 ]
	[[ "$out" == *"back references: 1 name a tree, leaf or inode with no matching file extent item: the extent tree does not match the subvolume trees"* ]]
	[[ "$err" != *warning* ]]
	run_volctl --format json check --qgroup-report "$IMG"
	assert_status 1
	[ "$(jq .check.trees.unresolved_refs <<<"$output")" -eq 1 ]
	[ "$(jq .check.trees.relocation_refs <<<"$output")" -eq 0 ]
}
