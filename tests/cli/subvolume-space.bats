#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# subvolume space offline (--image) on the committed fixtures: the columns,
# the JSON document against the schema, the set numbers checked against
# subvolume delete --dry-run of the same sets and qgroup show --compute,
# sorting, -s, the subtree, units, quotas off, and bad input.  No root.

load ../helpers
load ../fixtures/fixture-helpers

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

# The rows of a subvolume space JSON document on stdin, one "KEY..." line each
space_rows() {
	jq -r ".subvolume_space.subvolumes[] | [$1] | map(tostring) | join(\" \")"
}

@test "space: usage errors exit 2 with the error on one line" {
	fixture rich4k
	run_volctl "${IMGS[@]}" subvolume space
	assert_status 2
	assert_output_contains "exactly 1 argument expected, 0 given"
	run_volctl "${IMGS[@]}" subvolume space / /a
	assert_status 2
	run_volctl_split "${IMGS[@]}" subvolume space --sort=bogus /
	[ "$status" -eq 2 ]
	[ -z "$out" ]
	[[ "$(head -n 1 <<<"$err")" == "error: volctl subvolume space: invalid sort 'bogus': use [+|-]KEY[,...] with KEY id, path, rfer, excl, usedsnap, withsnap, snaps or left" ]]
	run_volctl "${IMGS[@]}" subvolume space --sort=id,-nope /
	assert_status 2
	assert_output_contains "invalid sort 'id,-nope'"
	run_volctl "${IMGS[@]}" subvolume space --sort= /
	assert_status 2
	run_volctl "${IMGS[@]}" subvolume space --bogus /
	assert_status 2
	run_volctl_split subvolume space --help
	[ "$status" -eq 0 ]
	[[ "$out" == "usage: volctl subvolume space"* ]]
}

@test "space: a path that is no subvolume is one error line, exit 1" {
	fixture rich4k
	run_volctl_split "${IMGS[@]}" subvolume space /d1
	[ "$status" -eq 1 ]
	[ -z "$out" ]
	[ "$err" = "error: /d1: not a subvolume" ]
	run_volctl_split "${IMGS[@]}" subvolume space /no/such/dir
	[ "$status" -eq 1 ]
	[ "$(wc -l <<<"$err")" -eq 1 ]
}

@test "space: columns, the note, and the numbers of rich4k" {
	fixture rich4k
	run_volctl_split "${IMGS[@]}" subvolume space --raw /
	[ "$status" -eq 0 ]
	[ "$err" = "Space of 10 subvolumes computed from the image by the accounting engine (exact, quotas not needed); limits from the computed qgroup numbers" ]
	[ "$(head -n 1 <<<"$out" | tr -s ' ')" = "ID Snaps Referenced Exclusive Used by snaps With snaps Limit Left Bound by Path" ]
	# 10 live subvolumes (the deleted one is no row), the top level included
	[ "$(wc -l <<<"$out")" -eq 11 ]
	[ "$(sed -n 2p <<<"$out" | tr -s ' ')" = "5 0 4096 4096 0 4096 none none - <toplevel>" ]
	# a has one snapshot (snap-a): what deleting it frees, and the family's bytes
	[ "$(grep ' a$' <<<"$out" | tr -s ' ')" = "256 1 200704 4096 36864 40960 10485760 10285056 0/256 rfer a" ]
	[ "$(grep ' b$' <<<"$out" | tr -s ' ')" = "260 1 266240 4096 4096 270336 5242880 5238784 0/260 excl b" ]
}

@test "space: referenced and exclusive are the engine's 0/ID numbers" {
	fixture bgt-quota
	want=$("$VOLCTL" "${IMGS[@]}" --format json qgroup show --compute / |
	       jq -r '.qgroup_show[] | select(.level == 0 and .status != "stale") | "\(.id) \(.referenced) \(.exclusive)"' | sort)
	got=$("$VOLCTL" "${IMGS[@]}" --format json subvolume space / | space_rows '.id, .referenced, .exclusive' | sort)
	[ -n "$got" ]
	[ "$got" = "$want" ]
}

@test "space: used by snapshots and with snapshots are set exclusivity (as delete --dry-run), not sums" {
	fixture bgt-quota
	doc=$("$VOLCTL" "${IMGS[@]}" --format json subvolume space /)
	summed_differs=0
	checked=0
	for id in $(jq -r '.subvolume_space.subvolumes[] | select(.snapshots > 0) | .id' <<<"$doc"); do
		snaps=$(jq -r --argjson id "$id" '[.subvolume_space.subvolumes[] | select(.snapshot_of == $id) | .id] | join(" ")' <<<"$doc")
		args=()
		for s in $snaps; do args+=(-i "$s"); done
		set_excl=$("$VOLCTL" "${IMGS[@]}" --format json subvolume delete --dry-run "${args[@]}" / |
			   jq '.subvolume_delete_dry_run.set.exclusive')
		fam_excl=$("$VOLCTL" "${IMGS[@]}" --format json subvolume delete --dry-run -i "$id" "${args[@]}" / |
			   jq '.subvolume_delete_dry_run.set.exclusive')
		row=$(jq -c --argjson id "$id" '.subvolume_space.subvolumes[] | select(.id == $id)' <<<"$doc")
		[ "$(jq .used_by_snapshots <<<"$row")" -eq "$set_excl" ]
		[ "$(jq .exclusive_with_snapshots <<<"$row")" -eq "$fam_excl" ]
		sum=$(jq -r --argjson id "$id" '[.subvolume_space.subvolumes[] | select(.snapshot_of == $id) | .exclusive] | add' <<<"$doc")
		[ "$sum" -eq "$set_excl" ] || summed_differs=$((summed_differs + 1))
		checked=$((checked + 1))
	done
	[ "$checked" -eq 4 ]
	# the fixture has snapshots sharing bytes only among themselves: a sum
	# of their own exclusive bytes would give other numbers
	[ "$summed_differs" -gt 0 ]
}

@test "space: snapshots of snapshots count for the snapshot they were taken of" {
	fixture rich4k
	doc=$("$VOLCTL" "${IMGS[@]}" --format json subvolume space /)
	# snap-snap (262) is a snapshot of snap-a (261), itself a snapshot of a (256)
	[ "$(jq -c '[.subvolume_space.subvolumes[] | select(.id == 262) | .snapshot_of]' <<<"$doc")" = "[261]" ]
	[ "$(jq -c '[.subvolume_space.subvolumes[] | select(.id == 256) | .snapshots]' <<<"$doc")" = "[1]" ]
	[ "$(jq -c '[.subvolume_space.subvolumes[] | select(.id == 261) | .snapshots]' <<<"$doc")" = "[1]" ]
}

@test "space: the JSON document validates against the schema" {
	fixture rich4k
	mkdir -p "$BATS_TEST_TMPDIR/docs"
	"$VOLCTL" "${IMGS[@]}" --format json subvolume space / >"$BATS_TEST_TMPDIR/docs/top.json"
	"$VOLCTL" "${IMGS[@]}" --format json subvolume space -s --sort=-left /a >"$BATS_TEST_TMPDIR/docs/a.json"
	fixture noquota16k
	"$VOLCTL" "${IMGS[@]}" --format json subvolume space / >"$BATS_TEST_TMPDIR/docs/noquota.json"
	fixture squota4k
	"$VOLCTL" "${IMGS[@]}" --format json subvolume space / >"$BATS_TEST_TMPDIR/docs/squota.json"
	rc=0
	python3 "$TOP/tests/json-validate.py" "$TOP/Documentation/volctl.schema.json" \
		"$BATS_TEST_TMPDIR"/docs/*.json || rc=$?
	[ "$rc" -ne 77 ] || skip "needs python3-jsonschema"
	[ "$rc" -eq 0 ]
	[ "$(jq -r .subvolume_space.limit_numbers "$BATS_TEST_TMPDIR/docs/top.json")" = computed ]
	[ "$(jq -r .subvolume_space.limit_numbers "$BATS_TEST_TMPDIR/docs/squota.json")" = recorded ]
	[ "$(jq -r .subvolume_space.source "$BATS_TEST_TMPDIR/docs/top.json")" = image ]
}

@test "space: quotas off: every number still there, no limit" {
	fixture noquota16k
	run_volctl_split "${IMGS[@]}" subvolume space /
	[ "$status" -eq 0 ]
	[[ "$err" == *"quotas are off: no limits" ]]
	doc=$("$VOLCTL" "${IMGS[@]}" --format json subvolume space /)
	[ "$(jq .subvolume_space.quota_enabled <<<"$doc")" = false ]
	[ "$(jq .subvolume_space.limit_numbers <<<"$doc")" = null ]
	[ "$(jq '[.subvolume_space.subvolumes[] | select(.limit != null or .left != null)] | length' <<<"$doc")" -eq 0 ]
	[ "$(jq '[.subvolume_space.subvolumes[] | select(.exclusive > 0)] | length' <<<"$doc")" -eq 10 ]
}

@test "space: --sort, one key or several, ascending or descending" {
	fixture bgt-quota
	got=$("$VOLCTL" "${IMGS[@]}" --format json subvolume space --sort=-usedsnap / | space_rows .used_by_snapshots)
	[ "$(wc -l <<<"$got")" -eq 12 ]
	[ "$got" = "$(sort -rn <<<"$got")" ]
	[ "$got" != "$(sort -n <<<"$got")" ]
	got=$("$VOLCTL" "${IMGS[@]}" --format json subvolume space --sort=path / | space_rows .path)
	[ "$got" = "$(LC_ALL=C sort <<<"$got")" ]
	got=$("$VOLCTL" "${IMGS[@]}" --format json subvolume space / | space_rows .id)
	[ "$got" = "$(sort -n <<<"$got")" ]
	# by count of snapshots descending, then exclusive ascending
	got=$("$VOLCTL" "${IMGS[@]}" --format json subvolume space --sort=-snaps,+excl / | space_rows '.snapshots, .exclusive')
	[ "$got" = "$(sort -k1,1nr -k2,2n <<<"$got")" ]
	[ "$(head -n 1 <<<"$got" | cut -d' ' -f1)" -eq 2 ]
	# the text rows in the same order as JSON
	text=$("$VOLCTL" "${IMGS[@]}" subvolume space --sort=-excl / 2>/dev/null | tail -n +2 | awk '{print $1}')
	json=$("$VOLCTL" "${IMGS[@]}" --format json subvolume space --sort=-excl / | space_rows .id)
	[ "$text" = "$json" ]
}

@test "space: -s shows the snapshots only, the same as subvolume list -s" {
	fixture bgt-quota
	got=$("$VOLCTL" "${IMGS[@]}" --format json subvolume space -s / | space_rows .id)
	want=$("$VOLCTL" "${IMGS[@]}" subvolume list -s / | awk '{print $2}')
	[ "$(wc -l <<<"$got")" -eq 7 ]
	[ "$got" = "$want" ]
	run_volctl "${IMGS[@]}" --format json subvolume space -s /
	[ "$(jq '[.subvolume_space.subvolumes[] | select(.snapshot | not)] | length' <<<"$output")" -eq 0 ]
}

@test "space: the subtree of a path, -a for the whole filesystem, numbers unchanged" {
	fixture rich4k
	[ "$("$VOLCTL" "${IMGS[@]}" --format json subvolume space /a | space_rows .id | paste -sd' ')" = "256 257" ]
	[ "$("$VOLCTL" "${IMGS[@]}" --format json subvolume space /d1/d2/d3/d4/d5/deep | space_rows .id | paste -sd' ')" = "258 259" ]
	[ "$("$VOLCTL" "${IMGS[@]}" --format json subvolume space /a/dir/nested | space_rows .id)" = 257 ]
	[ "$("$VOLCTL" "${IMGS[@]}" --format json subvolume space -a /a | space_rows .id | wc -l)" -eq 10 ]
	all=$("$VOLCTL" "${IMGS[@]}" --format json subvolume space / | space_rows '.id, .referenced, .exclusive, .used_by_snapshots, .exclusive_with_snapshots')
	[ "$(head -n 1 <<<"$all" | cut -d' ' -f1)" -eq 5 ]
	sub=$("$VOLCTL" "${IMGS[@]}" --format json subvolume space /a | space_rows '.id, .referenced, .exclusive, .used_by_snapshots, .exclusive_with_snapshots')
	[ "$sub" = "$(grep -E '^25[67] ' <<<"$all")" ]
	# the snapshot of a (snap-a, outside /a) still counts for a
	[ "$(grep '^256 ' <<<"$sub" | cut -d' ' -f4)" -eq 36864 ]
}

@test "space: unit options" {
	fixture rich4k
	row() { "$VOLCTL" "${IMGS[@]}" subvolume space "$@" /a 2>/dev/null | grep ' a$' | tr -s ' '; }
	[ "$(row --raw)" = "256 1 200704 4096 36864 40960 10485760 10285056 0/256 rfer a" ]
	[ "$(row)" = "256 1 196.00KiB 4.00KiB 36.00KiB 40.00KiB 10.00MiB 9.81MiB 0/256 rfer a" ]
	[ "$(row --human-readable)" = "$(row)" ]
	[ "$(row -b)" = "$(row --raw)" ]
	[ "$(row -k)" = "256 1 196.00KiB 4.00KiB 36.00KiB 40.00KiB 10240.00KiB 10044.00KiB 0/256 rfer a" ]
	[ "$(row --si)" = "256 1 200.70kB 4.10kB 36.86kB 40.96kB 10.48MB 10.28MB 0/256 rfer a" ]
	[ "$(row --si -k)" = "256 1 200.70kB 4.10kB 36.86kB 40.96kB 10485.76kB 10285.06kB 0/256 rfer a" ]
	[ "$(row -m)" = "256 1 0.19MiB 0.00MiB 0.04MiB 0.04MiB 10.00MiB 9.81MiB 0/256 rfer a" ]
	# JSON: bytes whatever the units asked
	[ "$("$VOLCTL" "${IMGS[@]}" --format json subvolume space -m /a | space_rows .referenced | head -n 1)" -eq 200704 ]
}
