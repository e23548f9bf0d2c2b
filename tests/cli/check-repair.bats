#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# volctl check --repair-qgroups on kernel-made fixtures (no root needed):
# QGROUP_INFO items and the status flags altered on purpose
# (tests/fixtures/corrupt.py) are rewritten with the computed numbers and
# named; volctl check and btrfs check are clean afterwards; nothing to
# repair writes nothing; refusals leave the image byte-identical.

load ../helpers
load ../fixtures/fixture-helpers

CORRUPT="$BATS_TEST_DIRNAME/../fixtures/corrupt.py"

setup() {
	command -v btrfs >/dev/null || skip "needs btrfs-progs"
	command -v zstd >/dev/null || skip "needs zstd"
}

# btrfs check clean, qgroup report included
check_clean_qgroups() {
	run btrfs check --readonly "$IMG"
	if [ "$status" -ne 0 ] || [[ "$output" == *"are different"* ]]; then
		echo "$output" >&2
		return 1
	fi
}

@test "repair-qgroups: altered INFO items are rewritten, named, and both checkers agree" {
	fixture rich4k
	python3 "$CORRUPT" "$IMG" qgroup 0/257=4096 1/100=-8192 2/1=65536
	run_volctl check "$IMG"
	assert_status 1
	assert_output_contains "qgroups: 3 of 14 groups differ"
	run_volctl check --repair-qgroups "$IMG"
	assert_status 0
	[ "$(grep -c ': repaired$' <<<"$output")" -eq 3 ]
	assert_output_contains "qgroup 0/257: repaired"
	assert_output_contains "qgroup 1/100: repaired"
	assert_output_contains "qgroup 2/1: repaired"
	assert_output_contains "  referenced  recorded 24576, written 20480"
	assert_output_contains "qgroups: 3 of 14 groups repaired"
	[[ "$output" != *"flag cleared"* ]]
	run_volctl check "$IMG"
	assert_status 0
	assert_output_contains "qgroups: 14 groups verified, all consistent"
	check_clean_qgroups
	# nothing left to repair: nothing written
	local before
	before=$(image_sum)
	run_volctl check --repair-qgroups "$IMG"
	assert_status 0
	assert_output_contains "qgroups: 14 groups verified, all consistent, nothing written"
	[ "$(image_sum)" = "$before" ]
}

@test "repair-qgroups: INCONSISTENT and RESCAN are cleared with the numbers" {
	fixture rich4k
	python3 "$CORRUPT" "$IMG" qgroup 0/5=-4096
	python3 "$CORRUPT" "$IMG" qstatus 6
	run_volctl check "$IMG"
	assert_status 0		# differences are expected while the status says so
	run_volctl check --repair-qgroups "$IMG"
	assert_status 0
	assert_output_contains "qgroup 0/5: repaired"
	assert_output_contains "qgroups: 1 of 14 groups repaired; inconsistent and rescan flags cleared"
	run btrfs inspect-internal dump-tree -t 8 "$IMG"
	[[ "$output" != *INCONSISTENT* && "$output" != *RESCAN* ]]
	run_volctl check "$IMG"
	assert_status 0
	assert_output_contains "all consistent"
	check_clean_qgroups
	run_volctl --image "$IMG" quota status /
	assert_status 0
	assert_output_contains "Inconsistent:            no"
}

@test "repair-qgroups: a quota tree of several leaves, JSON output" {
	fixture multi4k
	local groups
	groups=$("$VOLCTL" --format json check --qgroup-report "$IMG" | jq '.check.qgroups | length')
	[ "$groups" -gt 300 ]
	# INFO items in the first, a middle and the last of the quota leaves
	python3 "$CORRUPT" "$IMG" qgroup 0/5=4096 0/300=-4096 0/585=12288
	run_volctl --format json check --repair-qgroups "$IMG"
	assert_status 0
	assert_json
	[ "$(jq -r '.check.repair_qgroups.repaired | map(.qgroupid) | join(",")' <<<"$output")" = \
		"0/5,0/300,0/585" ]
	[ "$(jq -r '.check.repair_qgroups.written' <<<"$output")" = true ]
	[ "$(jq -r '.check.repair_qgroups.groups' <<<"$output")" -eq "$groups" ]
	[ "$(jq -r '.check.repair_qgroups.repaired[1] | .recorded_referenced - .referenced' \
		<<<"$output")" -eq -4096 ]
	run_volctl check "$IMG"
	assert_status 0
	assert_output_contains "all consistent"
}

@test "repair-qgroups: refusals change nothing" {
	fixture noquota16k
	local before
	before=$(image_sum)
	run_volctl check --repair-qgroups "$IMG"
	assert_status 1
	assert_output_contains "quota is not enabled"
	[ "$(image_sum)" = "$before" ]
	fixture rich4k
	python3 "$CORRUPT" "$IMG" qgroup 0/257=4096
	before=$(image_sum)
	run_volctl check --repair-qgroups --show "$IMG"
	assert_status 2
	run_volctl check --repair-qgroups --readonly "$IMG"
	assert_status 2
	run_volctl check --repair-qgroups --qgroup-report "$IMG"
	assert_status 2
	run_volctl --image "$IMG" check --repair-qgroups "$IMG"
	assert_status 2
	# a damaged tree block: refused before anything is written (subvolume
	# 256: tree 5 is read when the image is opened, which refuses it sooner)
	local leaf
	leaf=$("$VOLCTL" --format json inspect tree -t 256 "$IMG" | jq '.trees[0].blocks[0].bytenr')
	python3 "$CORRUPT" "$IMG" set "$(phys_of "$leaf")" 1 0xff
	before=$(image_sum)
	run_volctl check --repair-qgroups "$IMG"
	assert_status 1
	assert_output_contains "nothing repaired"
	[ "$(image_sum)" = "$before" ]
}

@test "any offline write on numbers marked inconsistent recounts them" {
	fixture rich4k
	python3 "$CORRUPT" "$IMG" qgroup 0/256=4096 2/1=-4096
	python3 "$CORRUPT" "$IMG" qstatus 4
	run_volctl --image "$IMG" qgroup create 1/7 /
	assert_status 0
	run btrfs inspect-internal dump-tree -t 8 "$IMG"
	[[ "$output" != *INCONSISTENT* ]]
	run_volctl check "$IMG"
	assert_status 0
	assert_output_contains "qgroups: 15 groups verified, all consistent"
	check_clean_qgroups
}

# crash_loop STATE_FN ARGS...: volctl ARGS (@IMG@ = the image) with the fault
# switch failing after 1, 2, ... device writes; every time btrfs check passes
# (status only: the old state of a repair has differences, marked expected)
# and STATE_FN says old or new
crash_loop() {
	local state_fn=$1
	shift
	require_fault_injection
	cp "$IMG" "$BATS_TEST_TMPDIR/pristine.img"
	CRASH_STATE=$state_fn crash_loop_writes "$@"
	[ "$CRASH_OLDS" -gt 3 ]
	[ "$CRASH_NEWS" -ge 1 ]
}

repair_state() {
	if btrfs inspect-internal dump-tree -t 8 "$IMG" | grep -q INCONSISTENT; then
		echo old
	elif "$VOLCTL" check --qgroup-report "$IMG" >/dev/null 2>&1; then
		echo new
	else
		echo "mixed: consistent flag, wrong numbers"
	fi
}

@test "repair-qgroups: a crash at any write leaves the old or the repaired image" {
	fixture rich4k
	python3 "$CORRUPT" "$IMG" qgroup 0/257=4096 2/1=-8192
	python3 "$CORRUPT" "$IMG" qstatus 4
	crash_loop repair_state check --repair-qgroups @IMG@
}

create_state() {
	local list
	list=$("$VOLCTL" --image "$IMG" subvolume list / 2>&1) || { echo "list failed"; return; }
	if [[ "$list" != *"path a/new"* ]]; then
		echo old
	elif "$VOLCTL" check --qgroup-report "$IMG" >/dev/null 2>&1; then
		echo new
	else
		echo "mixed: new subvolume, numbers not recounted"
	fi
}

@test "recount at commit: a crash at any write leaves the old or the new image" {
	fixture rich4k
	# a is snapshotted (snap-a): its blocks are shared, so the commit recounts
	crash_loop create_state --image @IMG@ subvolume create /a/new
}
