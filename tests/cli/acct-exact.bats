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
	[ "$(jq '.["qgroup-show"][] | select(.qgroupid == "0/256") | .referenced' <<<"$output")" -eq 32985088 ]
}

@test "exact: bgt-quota (block-group tree, 3 levels, limits): every group equal, no warning" {
	command -v btrfs >/dev/null || skip "needs btrfs-progs (dump-tree counts the refs)"
	fixture bgt-quota
	[ "$(wrapped_refs)" -eq 2 ]
	assert_exact 19
}
