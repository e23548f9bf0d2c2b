#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Offline `subvolume prune` on mkfs.btrfs images (no root needed): the
# plan (text and schema-valid JSON), its bytes equal to `subvolume delete
# --dry-run` of the same set, refusals, the deletion in one transaction
# (volctl check and btrfs check clean, qgroups 0/ID gone, one generation),
# a refusal inside it leaving the image byte-identical, and crash safety by
# fault injection.  The policy's calendar rules are tests/unit/test-retention.c's;
# here the snapshots are a second apart, so only last, name and within apply.

load ../helpers

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

setup() {
	command -v mkfs.btrfs >/dev/null || skip "needs mkfs.btrfs"
	IMG="$BATS_TEST_TMPDIR/fs.img"
	truncate -s 256M "$IMG"
	mkfs.btrfs -q -f "$IMG" >/dev/null
}

vb() {
	"$VOLCTL" --image "$IMG" "$@" >/dev/null
}

# /sv with snapshots /snaps/sv.1..4 (a second apart; sv.1 the default),
# /snaps/keep-me and /other, all of /sv; /snaps/x.1 of /snaps itself
timeline() {
	vb quota enable /
	vb subvolume create /sv /snaps
	local i
	for i in 1 2 3 4; do
		vb subvolume snapshot -r /sv "/snaps/sv.$i"
		sleep 1
	done
	vb subvolume snapshot /sv /snaps/keep-me
	vb subvolume snapshot /sv /other
	vb subvolume snapshot /snaps /snaps/x.1
	vb subvolume set-default /snaps/sv.1
}

# the id of subvolume PATH
id_of() {
	"$VOLCTL" --image "$IMG" subvolume list / | awk -v p="$1" '$NF == p { print $2 }'
}

# the row of snapshot PATH in the plan in $output, spaces squeezed
row() {
	grep -E " /$1\$" <<<"$output" | tr -s ' '
}

@test "prune --dry-run: the plan, kept by rule, name, default; DIR limits the set" {
	timeline
	cp "$IMG" "$BATS_TEST_TMPDIR/before.img"
	run_volctl --image "$IMG" subvolume prune --keep-last 2 --keep-name 'keep-*' --dry-run \
		/sv /snaps
	assert_status 0
	assert_output_contains "Snapshots of '/sv' (subvolume $(id_of sv)), newest first: 3 kept, 2 to delete"
	[[ "$(row snaps/keep-me)" == *" keep name,last /snaps/keep-me" ]]
	[[ "$(row snaps/sv.4)" == *" keep last /snaps/sv.4" ]]
	[[ "$(row snaps/sv.3)" == *" delete no rule keeps it /snaps/sv.3" ]]
	[[ "$(row snaps/sv.2)" == *" delete no rule keeps it /snaps/sv.2" ]]
	[[ "$(row snaps/sv.1)" == *" keep default subvolume /snaps/sv.1" ]]
	assert_output_contains "Would free 32.00KiB (exclusive bytes of the set of 2 subvolumes"
	# /other is outside DIR, /snaps/x.1 is no snapshot of /sv
	run ! grep -q -e /other -e x.1 <<<"$output"
	# nothing written
	cmp "$IMG" "$BATS_TEST_TMPDIR/before.img"

	# without DIR: anywhere on the filesystem, /other the newest
	run_volctl --image "$IMG" subvolume prune --keep-last 1 --dry-run /sv
	assert_status 0
	[[ "$(row other)" == *" keep last /other" ]]
	[[ "$(row snaps/keep-me)" == *" delete no rule keeps it /snaps/keep-me" ]]
	[[ "$(row snaps/sv.1)" == *" keep default subvolume /snaps/sv.1" ]]
	assert_output_contains "newest first: 2 kept, 4 to delete"

	# keep-within: the newest minus an hour keeps all
	run_volctl --image "$IMG" subvolume prune --keep-within 1h --dry-run /sv
	assert_status 0
	assert_output_contains "6 kept, 0 to delete"
}

@test "prune --dry-run: the set's bytes are subvolume delete --dry-run's for that set; JSON valid" {
	timeline
	local a b
	run_volctl --image "$IMG" --format json subvolume prune --keep-last 1 --dry-run /sv
	assert_status 0
	echo "$output" >"$BATS_TEST_TMPDIR/prune.json"
	a=$(jq -c '.subvolume_prune.deleted_set.set' "$BATS_TEST_TMPDIR/prune.json")
	[ "$(jq -r '[.subvolume_prune.snapshots[] | select(.action == "delete")] | length' \
		"$BATS_TEST_TMPDIR/prune.json")" = 4 ]
	[ "$(jq -r '.subvolume_prune.snapshots[] | select(.id == '"$(id_of snaps/sv.1)"') |
		.reasons[0]' "$BATS_TEST_TMPDIR/prune.json")" = "default subvolume" ]
	[ "$(jq -r '.subvolume_prune.free_target' "$BATS_TEST_TMPDIR/prune.json")" = null ]
	run_volctl --image "$IMG" --format json subvolume delete --dry-run /snaps/sv.2 \
		/snaps/sv.3 /snaps/sv.4 /snaps/keep-me
	assert_status 0
	b=$(jq -c '.subvolume_delete_dry_run.set' <<<"$output")
	[ "$a" = "$b" ]
	[ "$(jq -r .exclusive <<<"$a")" -gt 0 ]
	run python3 "$TOP/tests/json-validate.py" "$TOP/Documentation/volctl.schema.json" \
		"$BATS_TEST_TMPDIR/prune.json"
	[ "$status" -ne 77 ] || skip "needs python3-jsonschema"
	assert_status 0
}

@test "prune refusals: one clear line each, usage or failure, nothing written" {
	timeline
	vb subvolume create -p /plain/sub
	cp "$IMG" "$BATS_TEST_TMPDIR/before.img"
	run_volctl --image "$IMG" subvolume prune /sv
	assert_status 2
	assert_output_contains "no keep rule and no --free: that would delete every snapshot"
	run_volctl --image "$IMG" subvolume prune --keep-within 2x /sv
	assert_status 2
	assert_output_contains "--keep-within '2x': want a duration"
	run_volctl --image "$IMG" subvolume prune --keep-within 0d /sv
	assert_status 2
	run_volctl --image "$IMG" subvolume prune --free 12Q /sv
	assert_status 2
	assert_output_contains "--free '12Q': want a size above 0"
	run_volctl --image "$IMG" subvolume prune --free 0 /sv
	assert_status 2
	assert_output_contains "--free '0': want a size above 0"
	# too large is said so, with the largest size, not "above 0"
	run_volctl --image "$IMG" subvolume prune --free 99E /sv
	assert_status 2
	assert_output_contains "--free '99E': too large: at most 18446744073709551615 bytes (16EiB - 1)"
	run ! grep -q "above 0" <<<"$output"
	run_volctl --image "$IMG" subvolume prune --keep-daily 0 /sv
	assert_status 2
	assert_output_contains "--keep-daily '0': want a count from 1"
	# SOURCE a plain directory, or missing; DIR missing; too many arguments
	run_volctl --image "$IMG" subvolume prune --keep-last 1 /plain
	assert_status 1
	[ "$output" = "error: /plain: not a subvolume" ]
	run_volctl --image "$IMG" subvolume prune --keep-last 1 /nonexistent
	assert_status 1
	[ "${#lines[@]}" -eq 1 ]
	run_volctl --image "$IMG" subvolume prune --keep-last 1 /sv /nonexistent
	assert_status 1
	[ "${#lines[@]}" -eq 1 ]
	run_volctl --image "$IMG" subvolume prune --keep-last 1 /sv /snaps /x
	assert_status 2
	cmp "$IMG" "$BATS_TEST_TMPDIR/before.img"
}

@test "prune --keep-name: an empty glob or one with '/' is a usage error, nothing written" {
	timeline
	cp "$IMG" "$BATS_TEST_TMPDIR/before.img"
	run_volctl --image "$IMG" subvolume prune --keep-name '' /sv
	assert_status 2
	assert_output_contains "--keep-name '': empty glob"
	run_volctl --image "$IMG" subvolume prune --keep-last 2 --keep-name "" --dry-run /sv
	assert_status 2
	run_volctl --image "$IMG" subvolume prune --keep-name 'snaps/keep-*' /sv
	assert_status 2
	assert_output_contains "--keep-name 'snaps/keep-*': a glob with '/' never matches"
	run_volctl --image "$IMG" subvolume prune --keep-name '*/' --dry-run /sv
	assert_status 2
	cmp "$IMG" "$BATS_TEST_TMPDIR/before.img"
}

@test "prune: a keep rule that keeps none refuses the run, also dry; --force prunes anyway" {
	timeline
	cp "$IMG" "$BATS_TEST_TMPDIR/before.img"
	# the only rule matches nothing: the issue's "0 kept, 240 to delete"
	run_volctl_split --image "$IMG" subvolume prune --keep-name 'nightly-*' /sv /snaps
	assert_status 1
	[ "$err" = "error: --keep-name 'nightly-*': keeps none of the 5 snapshots of /sv (the plan would delete 4 of them): refused, nothing deleted; --force prunes anyway" ]
	[[ "$out" == *"newest first: 5 kept, 0 deleted"* ]]
	output=$out
	[[ "$(row snaps/sv.3)" == *" keep refused: no rule keeps it /snaps/sv.3" ]]
	[[ "$(row snaps/sv.1)" == *" keep default subvolume /snaps/sv.1" ]]
	run ! grep -q "Freed" <<<"$out"
	cmp "$IMG" "$BATS_TEST_TMPDIR/before.img"
	# the plan shows the refusal too, and so does its exit status
	run_volctl_split --image "$IMG" subvolume prune --keep-name 'nightly-*' --dry-run /sv /snaps
	assert_status 1
	[[ "$err" == *"error: --keep-name 'nightly-*': keeps none of the 5 snapshots"* ]]
	[[ "$out" == *"newest first: 5 kept, 0 to delete"* ]]
	run ! grep -q "Would free" <<<"$out"
	# beside rules that keep some, the idle glob is named
	run_volctl --image "$IMG" subvolume prune --keep-last 1 --keep-name 'keep-*' \
		--keep-name 'nightly-*' /sv /snaps
	assert_status 1
	assert_output_contains "error: --keep-name 'nightly-*': keeps none of the 5 snapshots of /sv (the plan would delete 3 of them)"
	# a timeline rule keeps the newest at least: --keep-last is never idle
	run_volctl --image "$IMG" subvolume prune --keep-last 1 --dry-run /sv /snaps
	assert_status 0
	# an idle rule where the plan deletes nothing: no refusal
	run_volctl --image "$IMG" subvolume prune --keep-within 1d --keep-name 'nightly-*' \
		--dry-run /sv /snaps
	assert_status 0
	assert_output_contains "5 kept, 0 to delete"
	cmp "$IMG" "$BATS_TEST_TMPDIR/before.img"
	# --force: deleted, with a warning naming the rule
	run_volctl_split --image "$IMG" subvolume prune --keep-name 'nightly-*' --force /sv /snaps
	assert_status 0
	[ "$err" = "warning: --keep-name 'nightly-*': keeps none of the 5 snapshots of /sv: pruning anyway (--force)" ]
	[[ "$out" == *"newest first: 1 kept, 4 deleted"* ]]
	run_volctl --image "$IMG" subvolume list /
	run ! grep -qE 'snaps/(sv\.[234]|keep-me)$' <<<"$output"
	run btrfs check --readonly "$IMG"
	assert_status 0
}

@test "prune --max-delete N|PERCENT%: more is refused, nothing deleted, also dry; --free counts" {
	timeline
	cp "$IMG" "$BATS_TEST_TMPDIR/before.img"
	# --keep-last 1 keeps keep-me, sv.1 is the default: sv.2, sv.3, sv.4 go, 3 of 5
	run_volctl_split --image "$IMG" subvolume prune --keep-last 1 --max-delete 2 /sv /snaps
	assert_status 1
	[ "$err" = "error: /sv: the plan would delete 3 of its 5 snapshots, more than --max-delete 2: refused, nothing deleted" ]
	[[ "$out" == *"newest first: 5 kept, 0 deleted"* ]]
	output=$out
	[[ "$(row snaps/sv.4)" == *" keep refused: no rule keeps it /snaps/sv.4" ]]
	cmp "$IMG" "$BATS_TEST_TMPDIR/before.img"
	run_volctl_split --image "$IMG" subvolume prune --keep-last 1 --max-delete 2 --dry-run \
		/sv /snaps
	assert_status 1
	[[ "$err" == *"the plan would delete 3 of its 5 snapshots, more than --max-delete 2:"* ]]
	[[ "$out" == *"newest first: 5 kept, 0 to delete"* ]]
	# a percentage of those found, rounded down: 50% of 5 allows 2, 60% allows 3
	run_volctl --image "$IMG" subvolume prune --keep-last 1 --max-delete 50% --dry-run /sv /snaps
	assert_status 1
	assert_output_contains "more than --max-delete 50% allows (2): refused, nothing deleted"
	run_volctl --image "$IMG" subvolume prune --keep-last 1 --max-delete 60% --dry-run /sv /snaps
	assert_status 0
	assert_output_contains "2 kept, 3 to delete"
	# what --free adds counts: the rules delete none, --free 1 takes sv.2
	run_volctl --image "$IMG" subvolume prune --keep-last 4 --free 1 --max-delete 0 --dry-run \
		/sv /snaps
	assert_status 1
	assert_output_contains "the plan would delete 1 of its 5 snapshots, more than --max-delete 0"
	output=$(tr -s ' ' <<<"$output")
	[[ "$output" == *" keep refused: --free /snaps/sv.2"* ]]
	# JSON: the refused plan is a valid document with everything kept
	run_volctl_split --image "$IMG" --format json subvolume prune --keep-last 1 --max-delete 2 \
		--dry-run /sv /snaps
	assert_status 1
	[[ "$err" == *"more than --max-delete 2: refused, nothing deleted" ]]
	echo "$out" >"$BATS_TEST_TMPDIR/refused.json"
	[ "$(jq -r '[.subvolume_prune.snapshots[].action] | unique | join(",")' \
		"$BATS_TEST_TMPDIR/refused.json")" = keep ]
	[ "$(jq -r '.subvolume_prune.deleted' "$BATS_TEST_TMPDIR/refused.json")" = 0 ]
	if python3 -c 'import jsonschema' 2>/dev/null; then
		python3 "$TOP/tests/json-validate.py" "$TOP/Documentation/volctl.schema.json" \
			"$BATS_TEST_TMPDIR/refused.json"
	fi
	cmp "$IMG" "$BATS_TEST_TMPDIR/before.img"
	# within the limit: deleted
	run_volctl --image "$IMG" subvolume prune --keep-last 1 --max-delete 3 /sv /snaps
	assert_status 0
	assert_output_contains "2 kept, 3 deleted"
	# malformed values are usage errors
	for v in 101% -1 1.5 x 5%% ''; do
		run_volctl --image "$IMG" subvolume prune --keep-last 1 --max-delete "$v" /sv
		[ "$status" -eq 2 ] || { echo "--max-delete '$v': $status $output"; false; }
		[[ "$output" == *"--max-delete '$v': want a number of snapshots"* ]]
	done
}

@test "prune: one transaction deletes the set, check clean, 0/ID qgroups gone" {
	timeline
	local gen0 gen1 s2 s3
	s2=$(id_of snaps/sv.2)
	s3=$(id_of snaps/sv.3)
	gen0=$(btrfs inspect-internal dump-super "$IMG" | awk '$1 == "generation" { print $2 }')
	run_volctl --image "$IMG" subvolume prune --keep-last 2 --keep-name 'keep-*' /sv /snaps
	assert_status 0
	assert_output_contains "3 kept, 2 deleted"
	[[ "$(row snaps/sv.3)" == *" deleted no rule keeps it /snaps/sv.3" ]]
	assert_output_contains "Freed 32.00KiB (exclusive bytes of the set of 2 subvolumes"
	gen1=$(btrfs inspect-internal dump-super "$IMG" | awk '$1 == "generation" { print $2 }')
	[ "$gen1" -eq $((gen0 + 1)) ]
	run_volctl --image "$IMG" subvolume list /
	assert_output_contains "snaps/sv.1"
	assert_output_contains "snaps/sv.4"
	run ! grep -qE 'snaps/sv\.[23]$' <<<"$output"
	run_volctl --image "$IMG" qgroup show /
	run ! grep -qE "^0/($s2|$s3) " <<<"$output"
	run_volctl check "$IMG"
	assert_status 0
	run btrfs check --readonly "$IMG"
	assert_status 0
}

@test "prune: a refusal inside the transaction leaves the image byte-identical" {
	timeline
	# w.1 holds a subvolume: its delete is refused, so the others' are not committed
	vb subvolume snapshot /sv /snaps/w.1
	vb subvolume create /snaps/w.1/inner
	cp "$IMG" "$BATS_TEST_TMPDIR/before.img"
	run_volctl --image "$IMG" subvolume prune --keep-name sv.4 /sv /snaps
	assert_status 1
	assert_output_contains "subvolume $(id_of snaps/w.1)"
	assert_output_contains "not deleted, the one transaction was abandoned"
	cmp "$IMG" "$BATS_TEST_TMPDIR/before.img"
}

@test "prune: snapshots of the plan deleted meanwhile are done, not failures nor freed bytes" {
	timeline
	require_fault_injection
	local s2 s3 want
	s2=$(id_of snaps/sv.2)
	s3=$(id_of snaps/sv.3)
	# what the one this run still deletes (sv.4) frees, as delete --dry-run says
	want=$("$VOLCTL" --image "$IMG" --format json subvolume delete --dry-run /snaps/sv.4 |
		jq -c '.subvolume_delete_dry_run.set')
	# another writer deletes sv.2 and sv.3 after the plan, before the deletion
	VOLCTL_RACE_DELETE="$s2,$s3" run_volctl_split -v --image "$IMG" --format json \
		subvolume prune --keep-last 1 /sv /snaps
	assert_status 0
	[[ "$err" == *"subvolume $s2 (snaps/sv.2): already deleted, counted as done"* ]]
	[[ "$err" == *"2 snapshots of the plan were deleted already (by another process, such as an overlapping prune): done, not counted as freed"* ]]
	[ "$(jq -r '[.subvolume_prune.snapshots[] | .path + ":" + .action] | join(" ")' <<<"$out")" = \
		"snaps/keep-me:keep snaps/sv.4:deleted snaps/sv.3:gone snaps/sv.2:gone snaps/sv.1:keep" ]
	[ "$(jq -r '.subvolume_prune.deleted, .subvolume_prune.failed' <<<"$out" | tr '\n' ' ')" = "1 0 " ]
	[ "$(jq -c '.subvolume_prune.deleted_set.set' <<<"$out")" = "$want" ]
	[ "$(jq -r '.count' <<<"$want")" = 1 ]
	echo "$out" >"$BATS_TEST_TMPDIR/gone.json"
	run python3 "$TOP/tests/json-validate.py" "$TOP/Documentation/volctl.schema.json" \
		"$BATS_TEST_TMPDIR/gone.json"
	[ "$status" -eq 0 ] || [ "$status" -eq 77 ]
	run btrfs check --readonly "$IMG"
	assert_status 0
	[ "$("$VOLCTL" --image "$IMG" subvolume list / | awk '{ print $NF }' | tr '\n' ' ')" = \
		"sv snaps snaps/sv.1 snaps/keep-me other snaps/x.1 " ]
}

@test "prune: every snapshot of the plan gone: nothing written by the prune, exit 0, text" {
	timeline
	require_fault_injection
	local s2 s3 s4 k gen0 gen1
	gen0=$(btrfs inspect-internal dump-super "$IMG" | awk '$1 == "generation" { print $2 }')
	s2=$(id_of snaps/sv.2)
	s3=$(id_of snaps/sv.3)
	s4=$(id_of snaps/sv.4)
	k=$(id_of snaps/keep-me)
	VOLCTL_RACE_DELETE="$s2,$s3,$s4,$k" run_volctl_split --image "$IMG" subvolume prune \
		--keep-name sv.1 /sv /snaps
	assert_status 0
	[[ "$out" == "Snapshots of '/sv' (subvolume $(id_of sv)), newest first: 1 kept, 0 deleted, 4 already gone"* ]]
	output=$out
	[[ "$(row snaps/sv.3)" == *" gone no rule keeps it /snaps/sv.3" ]]
	assert_output_contains "Freed 0.00B (exclusive bytes of the set of 0 subvolumes"
	[[ "$err" == *"4 snapshots of the plan were deleted already"* ]]
	# the four deletions of the other writer, one commit each, and no commit of the prune
	gen1=$(btrfs inspect-internal dump-super "$IMG" | awk '$1 == "generation" { print $2 }')
	[ "$gen1" -eq $((gen0 + 4)) ]
	run btrfs check --readonly "$IMG"
	assert_status 0
}

# subvolumes and qgroups, for old/new
prune_state() {
	"$VOLCTL" --image "$IMG" subvolume list / | awk '{ print $2, $NF }'
	"$VOLCTL" --image "$IMG" qgroup show --raw / | awk 'NR > 2 { print $1, $2, $3 }'
}

old_or_new() {
	local st
	st=$(prune_state)
	if [ "$st" = "$OLD_STATE" ]; then
		echo old
	elif [ "$st" = "$NEW_STATE" ]; then
		echo new
	else
		echo "neither: $st"
	fi
}

@test "prune crash loop: every stop leaves the state before or after, check clean" {
	timeline
	require_fault_injection
	cp "$IMG" "$BATS_TEST_TMPDIR/pristine.img"
	OLD_STATE=$(prune_state)
	vb subvolume prune --keep-last 2 /sv /snaps
	NEW_STATE=$(prune_state)
	[ "$OLD_STATE" != "$NEW_STATE" ]
	CRASH_STATE=old_or_new CRASH_MAX=100 crash_loop_writes --image @IMG@ subvolume prune \
		--keep-last 2 /sv /snaps
	echo "# $CRASH_OLDS stops left the state before, $CRASH_NEWS the state after" >&3
	[ "$CRASH_OLDS" -ge 3 ]
	[ "$CRASH_NEWS" -ge 1 ]
}
