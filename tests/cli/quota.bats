#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# volctl quota: help, usage errors and argument checking; no root needed.

load ../helpers

@test "quota: --help of every command prints usage on stdout and exits 0" {
	for c in enable disable rescan status; do
		run_volctl_split quota "$c" --help
		[ "$status" -eq 0 ] || { echo "quota $c --help: $status"; false; }
		[[ "$out" == "usage: volctl quota $c"* ]] || { echo "quota $c: $out"; false; }
		[ -z "$err" ]
	done
}

@test "quota: unique prefixes select commands" {
	run_volctl quo st --help
	assert_status 0
	assert_output_contains "usage: volctl quota status"
	run_volctl quota r --help
	assert_status 0
	assert_output_contains "usage: volctl quota rescan"
}

@test "quota: argument counts are usage errors" {
	run_volctl quota enable
	assert_status 2
	assert_output_contains "exactly 1 argument expected, 0 given"
	run_volctl quota disable a b
	assert_status 2
	assert_output_contains "exactly 1 argument expected, 2 given"
	run_volctl quota status
	assert_status 2
	run_volctl quota rescan a b
	assert_status 2
}

@test "quota rescan: -s does not combine with -w or -W, in any order" {
	for opts in "-s -w" "-w -s" "-s -W" "-W -s" "--status --wait"; do
		# shellcheck disable=SC2086
		run_volctl quota rescan $opts /nonexistent
		[ "$status" -eq 2 ] || { echo "$opts: $status $output"; false; }
		[[ "$output" == *"-s cannot be combined with -w or -W"* ]]
	done
}

@test "quota: unknown options are usage errors" {
	run_volctl quota enable --bogus /nonexistent
	assert_status 2
	assert_output_contains "unknown option"
	run_volctl quota rescan -x /nonexistent
	assert_status 2
}

@test "quota: a missing path or a non-btrfs path fails with exit 1" {
	run_volctl quota status /nonexistent
	assert_status 1
	assert_output_contains "/nonexistent"
	run_volctl quota status "$BATS_TEST_TMPDIR"
	assert_status 1
	assert_output_contains "not a btrfs filesystem"
	run_volctl quota enable -s "$BATS_TEST_TMPDIR"
	assert_status 1
}

@test "quota: --format json for every command" {
	for c in enable disable rescan status; do
		run_volctl --format json quota $c /nonexistent
		[ "$status" -eq 1 ] || { echo "$c: $status $output"; false; }
		[[ "$output" != *"not supported"* ]] || { echo "$c: $output"; false; }
	done
}
