#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# subvolume delete --dry-run, qgroup show --compute and qgroup headroom: usage
# errors (exit 2 before anything is opened) and --image on the committed
# fixtures (tests/fixtures/README.md), checked against the qgroup numbers the
# kernel recorded there (rescanned and consistent, as check --qgroup-report
# confirms).  No root needed.

load ../helpers
load ../fixtures/fixture-helpers

# "qgroupid rfer excl" per line from a qgroup show JSON document on stdin
rows() {
	jq -r '.qgroup_show[] | "\(.qgroupid) \(.referenced) \(.exclusive)"' | sort
}

@test "acct: usage errors exit 2 before anything is opened" {
	run_volctl subvolume delete --dry-run
	assert_status 2
	for o in -c -C --delete-qgroup; do
		run_volctl subvolume delete --dry-run "$o" /nonexistent/a
		assert_status 2
		assert_output_contains "--dry-run cannot be used with"
	done
	# -i: exactly one path; ids from 256; several only with --dry-run
	run_volctl subvolume delete --dry-run -i 256 /nonexistent /b
	assert_status 2
	assert_output_contains "exactly 1 argument expected"
	run_volctl subvolume delete --dry-run -i 256 -i 5 /nonexistent
	assert_status 2
	assert_output_contains "subvolume id 5 out of range"
	run_volctl subvolume delete --dry-run -i 2x /nonexistent
	assert_status 2
	assert_output_contains "invalid subvolume id '2x'"
	run_volctl subvolume delete -i 256 -i 257 /nonexistent
	assert_status 2
	assert_output_contains "-i more than once needs --dry-run"
	# a real delete has its JSON document too: the error is the path's
	run_volctl --format json subvolume delete /nonexistent/a
	assert_status 1
	assert_output_contains "/nonexistent"
	[[ "$output" != *"not supported"* ]]
	run_volctl subvolume delete --raw /nonexistent/a
	assert_status 2
	run_volctl qgroup headroom
	assert_status 2
	run_volctl qgroup headroom 1/1 /a /b
	assert_status 2
	run_volctl qgroup headroom x/y /nonexistent
	assert_status 2
	assert_output_contains "invalid qgroup id 'x/y'"
	run_volctl qgroup headroom --bogus /nonexistent
	assert_status 2
	run_volctl qgroup show --compute
	assert_status 2
}

@test "acct: --help of headroom, and the new options in help" {
	run_volctl_split qgroup headroom --help
	[ "$status" -eq 0 ]
	[[ "$out" == "usage: volctl qgroup headroom"* ]]
	run_volctl qgroup show --help
	assert_output_contains "--compute"
	run_volctl subvolume delete --help
	assert_output_contains "--dry-run"
	run_volctl qgroup help
	assert_output_contains "  headroom "
}

@test "acct: qgroup show --compute --image equals the recorded numbers (rich4k, consistent)" {
	fixture rich4k
	recorded=$("$VOLCTL" --image "$IMG" --format json qgroup show / | rows)
	run_volctl --image "$IMG" --format json qgroup show --compute /
	assert_status 0
	assert_json
	[ "$(jq -r .computed.source <<<"$output")" = image ]
	computed=$(rows <<<"$output")
	[ "$(wc -l <<<"$computed")" -eq 14 ]
	[ "$computed" = "$recorded" ]
	run_volctl --image "$IMG" qgroup show --compute --raw /
	assert_status 0
	assert_output_contains "1/100           237568        40960"
	# the note is on stderr: stdout has the columns of a plain show, so
	# awk 'NR>2'-style scripts read the same rows
	run_volctl_split --image "$IMG" qgroup show --compute --raw /
	[ "$status" -eq 0 ]
	[ "$err" = "Computed numbers (from the image), not the recorded ones" ]
	[ "$(head -n 2 <<<"$out")" = "$("$VOLCTL" --image "$IMG" qgroup show --raw / | head -n 2)" ]
	[ "$(awk 'NR > 2 {print $1}' <<<"$out")" = "$("$VOLCTL" --image "$IMG" qgroup show --raw / | awk 'NR > 2 {print $1}')" ]
	run_volctl_split -q --image "$IMG" qgroup show --compute --raw /
	[ -z "$err" ]
	# the same for the other computed outputs
	run_volctl_split --image "$IMG" subvolume delete --dry-run /a
	[ "$status" -eq 0 ]
	[ "$err" = "Dry run, nothing deleted: numbers computed from the image" ]
	[[ "$(head -n 1 <<<"$out")" == "ID "*"Referenced"*"Exclusive"*"Path" ]]
	run_volctl_split --image "$IMG" qgroup headroom --compute /a
	[ "$status" -eq 0 ]
	[[ "$err" == "Limits on qgroup 0/256 and the groups above it (computed numbers):" ]]
}

@test "acct: qgroup show --compute --image without quotas: a row per live subvolume" {
	fixture noquota16k
	run_volctl --image "$IMG" qgroup show /
	assert_status 1
	run_volctl --image "$IMG" --format json qgroup show --compute /
	assert_status 0
	[ "$(jq '.quota.enabled' <<<"$output")" = false ]
	[ "$(jq '.qgroup_show | length' <<<"$output")" -eq 10 ]	# 0/5 + 9, not the deleted one
	[ "$(jq -r '.qgroup_show[] | select(.qgroupid == "0/257") | .exclusive' <<<"$output")" -eq 32768 ]
	run_volctl --image "$IMG" qgroup show --compute /
	assert_output_contains "quotas are off"
}

@test "acct: delete --dry-run --image: the set equals the level-1 qgroup holding exactly it" {
	fixture rich4k
	before=$(image_sum)
	# 1/100 holds exactly 0/256 (a) and 0/261 (snap-a)
	excl=$("$VOLCTL" --image "$IMG" --format json qgroup show / |
		jq '.qgroup_show[] | select(.qgroupid == "1/100") | .exclusive')
	run_volctl --image "$IMG" --format json subvolume delete --dry-run /a /snap-a
	assert_status 0
	assert_json
	[ "$(jq .subvolume_delete_dry_run.set.exclusive <<<"$output")" -eq "$excl" ]
	[ "$(jq .subvolume_delete_dry_run.set.count <<<"$output")" -eq 2 ]
	[ "$(jq -r .subvolume_delete_dry_run.source <<<"$output")" = image ]
	# each one alone is its level-0 qgroup's exclusive
	[ "$(jq '.subvolume_delete_dry_run.subvolumes[0].exclusive' <<<"$output")" -eq 4096 ]
	[ "$(jq '.subvolume_delete_dry_run.subvolumes[1].exclusive' <<<"$output")" -eq 36864 ]
	# data + metadata = exclusive; single metadata: raw = exclusive
	[ "$(jq '.subvolume_delete_dry_run.set | .data + .metadata == .exclusive' <<<"$output")" = true ]
	[ "$(jq '.subvolume_delete_dry_run.set | .raw == .exclusive' <<<"$output")" = true ]
	# the same path twice counts once
	run_volctl --image "$IMG" --format json subvolume delete --dry-run /a /a /snap-a
	[ "$(jq .subvolume_delete_dry_run.set.count <<<"$output")" -eq 2 ]
	# nothing was written
	[ "$(image_sum)" = "$before" ]
	"$VOLCTL" --image "$IMG" subvolume show /a >/dev/null
}

# "id exclusive" per member, then the set's numbers, of a dry run's JSON
dry_set() {
	jq -r '.subvolume_delete_dry_run | (.subvolumes[] | "\(.id) \(.exclusive)"),
		(.set | "set \(.count) \(.referenced) \(.exclusive) \(.data) \(.metadata) \(.raw)")'
}

@test "acct: delete --dry-run --image -R and -i: the same set as the explicit list" {
	fixture rich4k
	before=$(image_sum)
	explicit=$("$VOLCTL" --image "$IMG" --format json subvolume delete --dry-run /a /a/dir/nested |
		dry_set)
	[ "$(tail -n 1 <<<"$explicit")" = "set 2 221184 24576 16384 8192 24576" ]
	# -R: a and the subvolume nested in it, listed below the path given
	run_volctl --image "$IMG" --format json subvolume delete --dry-run -R /a
	assert_status 0
	[ "$(dry_set <<<"$output")" = "$explicit" ]
	[ "$(jq -r '.subvolume_delete_dry_run.subvolumes[1].path' <<<"$output")" = /a/dir/nested ]
	# -i: the same set by ids, through any path of the filesystem
	run_volctl --image "$IMG" --format json subvolume delete --dry-run -i 256 -i 257 /b
	assert_status 0
	[ "$(dry_set <<<"$output")" = "$explicit" ]
	[ "$(jq -r '.subvolume_delete_dry_run.subvolumes[0].path' <<<"$output")" = null ]
	[ "$(jq -r '.subvolume_delete_dry_run.subvolumes[1].absolute_path' <<<"$output")" = /a/dir/nested ]
	run_volctl --image "$IMG" --format json subvolume delete --dry-run -R -i 256 /
	[ "$(dry_set <<<"$output")" = "$explicit" ]
	# two levels down: deep and deep/inner
	deep=$("$VOLCTL" --image "$IMG" --format json subvolume delete --dry-run \
		/d1/d2/d3/d4/d5/deep /d1/d2/d3/d4/d5/deep/inner | dry_set)
	run_volctl --image "$IMG" --format json subvolume delete --dry-run -R /d1/d2/d3/d4/d5/deep
	[ "$(dry_set <<<"$output")" = "$deep" ]
	run_volctl --image "$IMG" subvolume delete --dry-run --raw -R -i 258 /
	assert_status 0
	assert_output_contains "259                4096           4096  /d1/d2/d3/d4/d5/deep/inner"
	# -R of a subvolume with nothing nested is the subvolume alone
	[ "$("$VOLCTL" --image "$IMG" --format json subvolume delete --dry-run -R /b | dry_set)" = \
	  "$("$VOLCTL" --image "$IMG" --format json subvolume delete --dry-run /b | dry_set)" ]
	# ids of no live subvolume: refused, nothing printed on stdout
	for id in 266 99999 265; do
		run_volctl_split --image "$IMG" subvolume delete --dry-run -i 256 -i "$id" /
		[ "$status" -eq 1 ]
		[ -z "$out" ]
		[ "$err" = "error: subvolume id $id: no such subvolume on the filesystem of /" ]
	done
	[ "$(image_sum)" = "$before" ]
}

@test "acct: delete --dry-run --image -i: a subvolume under deletion is refused" {
	fixture noquota16k
	run_volctl --image "$IMG" subvolume delete --dry-run -i 265 /
	assert_status 1
	assert_output_contains "subvolume id 265: no such subvolume"
}

@test "acct: delete --dry-run --image: DUP metadata doubles the raw bytes; refusals" {
	fixture noquota16k
	run_volctl --image "$IMG" --format json subvolume delete --dry-run /a /snap-a
	assert_status 0
	[ "$(jq -r .subvolume_delete_dry_run.metadata_profile <<<"$output")" = dup ]
	[ "$(jq '.subvolume_delete_dry_run.set | .raw == .data + 2 * .metadata' <<<"$output")" = true ]
	[ "$(jq '.subvolume_delete_dry_run.set.metadata % 16384' <<<"$output")" -eq 0 ]
	run_volctl --image "$IMG" subvolume delete --dry-run /a
	assert_status 0
	assert_output_contains "metadata profile dup (2 copies"
	run_volctl --image "$IMG" subvolume delete --dry-run /
	assert_status 1
	assert_output_contains "top-level subvolume cannot be deleted"
	run_volctl --image "$IMG" subvolume delete --dry-run /a/dir
	assert_status 1
	assert_output_contains "not a subvolume"
}

@test "acct: qgroup headroom --image: full below one write (a sector and a tree block), nothing reserved" {
	fixture rich4k
	run_volctl --image "$IMG" --format json qgroup headroom /a
	assert_status 0
	[ "$(jq '[.qgroup_headroom.limits[].reserved] | unique' -c <<<"$output")" = "[null]" ]
	[ "$(jq .qgroup_headroom.full <<<"$output")" = false ]
	run_volctl --image "$IMG" qgroup headroom --raw /a
	assert_output_contains "Offline nothing is reserved: no write is in flight"
	assert_output_contains "Used       Reserved            Max"
	# 0/256 uses 200704; sectorsize and nodesize 4096: one write needs 8192
	"$VOLCTL" --image "$IMG" qgroup limit $((200704 + 8191)) 0/256 /
	run_volctl --image "$IMG" --format json qgroup headroom /a
	[ "$(jq -c '.qgroup_headroom | [.headroom, .full]' <<<"$output")" = "[8191,true]" ]
	run_volctl --image "$IMG" qgroup headroom --raw /a
	assert_output_contains "Headroom: full: the referenced limit of 0/256 leaves 8191, less than the smallest write reserves (8192): writes are refused"
	"$VOLCTL" --image "$IMG" qgroup limit $((200704 + 8192)) 0/256 /
	run_volctl --image "$IMG" --format json qgroup headroom /a
	[ "$(jq -c '.qgroup_headroom | [.headroom, .full]' <<<"$output")" = "[8192,false]" ]
	# over the limit: left 0, full
	"$VOLCTL" --image "$IMG" qgroup limit 100000 0/256 /
	run_volctl --image "$IMG" --format json qgroup headroom /a
	[ "$(jq -c '.qgroup_headroom | [.headroom, .full]' <<<"$output")" = "[0,true]" ]
	# no limit: not full
	run_volctl --image "$IMG" --format json qgroup headroom /a/dir/nested
	[ "$(jq .qgroup_headroom.full <<<"$output")" = false ]
}

@test "acct: create and snapshot --image over a limit: the error names the group, its limit and the lift" {
	fixture rich4k
	"$VOLCTL" --image "$IMG" qgroup limit 5000 0/5 /
	before=$(image_sum)
	run_volctl --image "$IMG" subvolume create /x
	assert_status 1
	[ "$output" = "error: /x: Disk quota exceeded: qgroup 0/5 limit referenced 4.88KiB (used 4.00KiB, over by 11384 bytes); raise it with: volctl --image $IMG qgroup limit <size>|none 0/5 /" ]
	run_volctl --image "$IMG" subvolume snapshot /a /y
	assert_status 1
	[ "$output" = "error: /y: Disk quota exceeded: qgroup 0/5 limit referenced 4.88KiB (used 4.00KiB, over by 11384 bytes); raise it with: volctl --image $IMG qgroup limit <size>|none 0/5 /" ]
	# a group above: 1/100 (a, snap-a) with 232 KiB used; the snapshot goes into a
	"$VOLCTL" --image "$IMG" qgroup limit none 0/5 /
	"$VOLCTL" --image "$IMG" qgroup limit 200000 1/100 /
	before=$(image_sum)
	run_volctl --image "$IMG" subvolume snapshot /b /a/s
	assert_status 1
	[ "$output" = "error: /a/s: Disk quota exceeded: qgroup 1/100 limit referenced 195.31KiB (used 232.00KiB, over by 49856 bytes); raise it with: volctl --image $IMG qgroup limit <size>|none 1/100 /a" ]
	# an inherited group (-i) is the one named, not the parent's
	run_volctl --image "$IMG" subvolume snapshot -i 1/100 /b /s
	assert_status 1
	[[ "$output" == "error: /s: Disk quota exceeded: qgroup 1/100 limit referenced "*"; raise it with: volctl --image $IMG qgroup limit <size>|none 1/100 /" ]]
	[ "$(image_sum)" = "$before" ]
	# the printed command lifts it
	"$VOLCTL" --image "$IMG" qgroup limit none 1/100 /a
	run_volctl --image "$IMG" subvolume snapshot /b /a/s
	assert_status 0
}

@test "acct: qgroup headroom --image on rich4k: every limit up the hierarchy" {
	fixture rich4k
	run_volctl --image "$IMG" --format json qgroup headroom /a
	assert_status 0
	assert_json
	[ "$(jq -r '[.qgroup_headroom.limits[] | "\(.qgroupid):\(.type)"] | join(",")' <<<"$output")" = \
		"0/256:referenced,1/100:referenced,2/1:exclusive" ]
	[ "$(jq '.qgroup_headroom.headroom' <<<"$output")" -eq $((10 * 1048576 - 200704)) ]
	[ "$(jq -r .qgroup_headroom.lift_command <<<"$output")" = \
		"volctl --image $IMG qgroup limit none 0/256 /a" ]
	run_volctl --image "$IMG" --format json qgroup headroom /b
	[ "$(jq -r '.qgroup_headroom.limits[] | select(.binding) | "\(.qgroupid) \(.type)"' <<<"$output")" = "0/260 exclusive" ]
	[ "$(jq -r .qgroup_headroom.lift_command <<<"$output")" = \
		"volctl --image $IMG qgroup limit -e none 0/260 /b" ]
	# from a qgroup id: the groups above it only
	run_volctl --image "$IMG" --format json qgroup headroom --compute 1/100 /
	assert_status 0
	[ "$(jq -r .qgroup_headroom.numbers <<<"$output")" = computed ]
	[ "$(jq '.qgroup_headroom.limits | length' <<<"$output")" -eq 2 ]
	# no limit
	run_volctl --image "$IMG" --format json qgroup headroom /a/dir/nested
	assert_status 0
	[ "$(jq .qgroup_headroom.headroom <<<"$output")" = null ]
	run_volctl --image "$IMG" qgroup headroom --raw /a
	assert_output_contains "Headroom: $((10 * 1048576 - 200704)) can still be written before the referenced limit of 0/256 binds"
	run_volctl --image "$IMG" qgroup headroom 9/9 /
	assert_status 1
	assert_output_contains "qgroup 9/9: not found"
}

@test "acct: qgroup headroom --image with quotas off: nothing limited, computed numbers, exit 0" {
	fixture noquota16k
	run_volctl_split --image "$IMG" qgroup headroom /a
	assert_status 0
	[ "$err" = "Quotas are disabled: the numbers of qgroup 0/256 are computed" ]
	[ "$(sed -n 1p <<<"$out")" = "No limit applies: quotas are disabled, nothing is limited" ]
	[[ "$(sed -n 2p <<<"$out")" == "Used by 0/256: referenced "*", exclusive "* ]]
	[ "$(sed -n 3p <<<"$out")" = "To set a limit: volctl --image $IMG quota enable /a, then volctl --image $IMG qgroup limit <size> 0/256 /a" ]
	run_volctl --image "$IMG" --format json qgroup headroom /a
	assert_status 0
	[ "$(jq -c '.qgroup_headroom | [.quota_enabled, .numbers, .limits, .headroom, .full, .lift_command]' <<<"$output")" = \
		'[false,"computed",[],null,false,null]' ]
	# the engine's numbers, the same as qgroup show --compute gives without quotas
	[ "$(jq -r '.qgroup_headroom | "\(.referenced) \(.exclusive)"' <<<"$output")" = \
		"$("$VOLCTL" --image "$IMG" --format json qgroup show --compute / |
		   jq -r '.qgroup_show[] | select(.qgroupid == "0/256") | "\(.referenced) \(.exclusive)"')" ]
	[ "$(jq .qgroup_headroom.referenced <<<"$output")" -gt 0 ]
	# a level-0 id of a live subvolume is computed too; nothing else exists
	run_volctl --image "$IMG" --format json qgroup headroom 0/5 /
	assert_status 0
	[ "$(jq -r .qgroup_headroom.qgroupid <<<"$output")" = 0/5 ]
	run_volctl --image "$IMG" qgroup headroom 1/1 /
	assert_status 1
	[ "$output" = "error: qgroup 1/1: not found (quotas are disabled: there are no qgroups)" ]
	run_volctl --image "$IMG" qgroup headroom 0/999 /
	assert_status 1
	[ "$output" = "error: qgroup 0/999: not found (quotas are disabled, and no live subvolume has id 999)" ]
}

@test "acct: qgroup show --compute --image in simple-quota mode equals the recorded charges (squota4k)" {
	fixture squota4k
	recorded=$("$VOLCTL" --image "$IMG" --format json qgroup show / | rows)
	run_volctl --image "$IMG" --format json qgroup show --compute /
	assert_status 0
	[ "$(jq -r .quota.mode <<<"$output")" = simple ]
	computed=$(rows <<<"$output")
	[ -n "$computed" ]
	[ "$computed" = "$recorded" ]
}

@test "acct: check --format json counts the data back refs dump-tree shows (rich4k), none for simple quotas" {
	command -v btrfs >/dev/null || skip "needs btrfs-progs (dump-tree is the oracle)"
	fixture rich4k
	want=$(btrfs inspect-internal dump-tree -t 2 "$IMG" |
		grep -cE "extent data backref root|shared data backref parent")
	run_volctl --format json check --qgroup-report "$IMG"
	assert_status 0
	[ "$want" -gt 7 ]
	[ "$(jq -r .check.trees.data_back_refs <<<"$output")" -eq "$want" ]
	[ "$(jq -r .check.trees.data_extents <<<"$output")" -eq 7 ]
	fixture squota4k
	run_volctl --format json check --qgroup-report "$IMG"
	assert_status 0
	[ "$(jq -r .check.trees.data_back_refs <<<"$output")" -eq 0 ]
}
