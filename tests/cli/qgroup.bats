#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# volctl qgroup: help, usage errors and argument checking; no root needed.
# Usage errors must exit 2 before anything is opened, so a path that does not
# exist is enough to prove the argument was rejected first.

load ../helpers

QG_CMDS="create destroy assign remove limit show clear-stale"

@test "qgroup: --help of every command prints usage on stdout and exits 0" {
	for c in $QG_CMDS; do
		run_volctl_split qgroup "$c" --help
		[ "$status" -eq 0 ] || { echo "qgroup $c --help: $status"; false; }
		[[ "$out" == "usage: volctl qgroup $c"* ]] || { echo "qgroup $c: $out"; false; }
		[ -z "$err" ]
	done
}

@test "qgroup: help COMMAND and the group usage" {
	run_volctl qgroup help limit
	assert_status 0
	assert_output_contains "usage: volctl qgroup limit [-c] [-e] <size>|none [<qgroupid>] <path>"
	run_volctl qgroup help
	assert_status 0
	for c in $QG_CMDS; do
		assert_output_contains "  $c "
	done
}

@test "qgroup: unique prefixes select commands" {
	run_volctl qg sh --help
	assert_status 0
	assert_output_contains "usage: volctl qgroup show"
	run_volctl qgroup cl --help
	assert_status 0
	assert_output_contains "usage: volctl qgroup clear-stale"
	run_volctl qgroup c --help
	assert_status 2
	assert_output_contains "ambiguous command 'c'"
}

@test "qgroup: invalid qgroup ids are usage errors naming the argument" {
	for id in 1/ /5 x 0/0 65536/1 1/1/1 1//1 65535/x 0/281474976710656; do
		run_volctl qgroup create "$id" /nonexistent
		[ "$status" -eq 2 ] || { echo "create $id: $status $output"; false; }
		[[ "$output" == *"invalid qgroup id '$id'"* ]] || { echo "$output"; false; }
		run_volctl qgroup destroy "$id" /nonexistent
		[ "$status" -eq 2 ]
		run_volctl qgroup assign "$id" 1/1 /nonexistent
		[ "$status" -eq 2 ] || { echo "assign $id: $status $output"; false; }
		[[ "$output" == *"'$id'"* ]]
		run_volctl qgroup limit 1M "$id" /nonexistent
		[ "$status" -eq 2 ] || { echo "limit $id: $status $output"; false; }
	done
}

@test "qgroup: valid ids at the boundaries get past parsing" {
	# parsing succeeds, so the failure is the missing path (exit 1, not 2)
	for id in 65535/1 0/281474976710655 1/0; do
		run_volctl qgroup destroy "$id" /nonexistent
		assert_status 1
		assert_output_contains "/nonexistent"
	done
	run_volctl qgroup assign 281474976710655 1/1 /nonexistent
	assert_status 1
}

@test "qgroup create, destroy: bare ids and level-0 ids no subvolume can have are refused before anything is opened" {
	# exit 2 on a path that does not exist: refused before any open or ioctl
	for id in 1 2 257; do
		for c in create destroy; do
			run_volctl qgroup "$c" "$id" /nonexistent
			assert_status 2
			assert_output_contains "invalid qgroup id '$id': expected LEVEL/ID, a bare id is not accepted"
		done
	done
	for id in 0/1 0/2 0/255 0/4; do
		run_volctl qgroup create "$id" /nonexistent
		assert_status 2
		assert_output_contains "no subvolume can have the level-0 id"
		# destroying one is allowed: that is how a group made by mistake goes
		run_volctl qgroup destroy "$id" /nonexistent
		assert_status 1
	done
	# ids a subvolume can have are left to the kernel, which decides
	for id in 0/5 0/256 0/300 1/1; do
		run_volctl qgroup create "$id" /nonexistent
		assert_status 1
	done
	run_volctl qgroup create --help
	assert_output_contains "0/ID with ID below 256 (other than 5) is refused"
}

@test "qgroup limit: sizes as people type them get past parsing" {
	# the failure is the missing path (exit 1), not the size (exit 2)
	for size in 10M 10m 10MiB 10mib 1.5G 0.5t 512KiB 4096 none; do
		run_volctl qgroup limit "$size" 0/256 /nonexistent
		[ "$status" -eq 1 ] || { echo "limit '$size': $status $output"; false; }
	done
	run_volctl qgroup limit 10MB 0/256 /nonexistent
	assert_status 2
	assert_output_contains "KiB ... EiB (powers of 1024"
}

@test "qgroup limit: invalid sizes are usage errors naming the argument" {
	for size in -5 12Q 1e99 18446744073709551616 1.5 1MB 10GB M; do
		run_volctl qgroup limit "$size" 0/256 /nonexistent
		[ "$status" -eq 2 ] || { echo "limit '$size': $status $output"; false; }
		[[ "$output" == *"invalid size '$size'"* ]] || { echo "$output"; false; }
	done
	# too large: said so, with the largest limit ((u64)-1 is the kernel's "none")
	for size in 99E 16EiB 18446744073709551616 18446744073709551615; do
		run_volctl qgroup limit "$size" 0/256 /nonexistent
		assert_status 2
		assert_output_contains "invalid size '$size': too large: at most 18446744073709551614 bytes"
	done
	# empty: refused like every empty argument
	run_volctl qgroup limit '' 0/256 /nonexistent
	assert_status 2
	assert_output_contains "argument 1 is empty"
}

@test "qgroup limit: argument count" {
	run_volctl qgroup limit 1M
	assert_status 2
	assert_output_contains "not enough arguments"
	run_volctl qgroup limit 1M 0/5 /a /b
	assert_status 2
	assert_output_contains "too many arguments"
}

@test "qgroup limit: a qgroup id where the path should be is a usage error naming the missing path" {
	cd "$BATS_TEST_TMPDIR"
	local id
	for id in 1/100 0/5 257; do
		run_volctl qgroup limit 10M "$id"
		assert_status 2
		[ "${lines[0]}" = "error: volctl qgroup limit: path missing: '$id' is a qgroup id, and no such path exists (give the path after it)" ]
		[ "${lines[1]}" = "Try 'volctl qgroup limit --help' for more information." ]
	done
	# a path that looks like an id but exists is a path (not btrfs here, or not a subvolume)
	mkdir -p 1/100
	run_volctl qgroup limit 10M 1/100
	assert_status 1
	[[ "$output" == "error: 1/100: "* ]]
	[[ "$output" != *"path missing"* ]]
	run_volctl qgroup limit 10M nosuchdir
	assert_status 1
	[ "$output" = "error: nosuchdir: No such file or directory" ]
	"$VOLCTL" mkfs -s 128M --quota img >/dev/null
	run_volctl --image img qgroup limit 10M 1/100
	assert_status 2
	[ "${lines[0]}" = "error: volctl qgroup limit: path missing: '1/100' is a qgroup id, and no such path exists (give the path after it)" ]
}

@test "qgroup assign/remove: the parent's level must be higher" {
	run_volctl qgroup assign 1/1 1/2 /nonexistent
	assert_status 2
	assert_output_contains "cannot assign 1/1 to 1/2: the parent's level must be higher"
	run_volctl qgroup remove 2/1 0/5 /nonexistent
	assert_status 2
	assert_output_contains "cannot remove 2/1 from 0/5: the parent's level must be higher"
	run_volctl qgroup assign 0/5 1/1
	assert_status 2
	assert_output_contains "exactly 3 arguments expected, 2 given"
}

@test "qgroup show: bad options are usage errors" {
	run_volctl qgroup show --sort=bogus /nonexistent
	assert_status 2
	assert_output_contains "invalid sort 'bogus'"
	run_volctl qgroup show --sort=+rfer,-nope /nonexistent
	assert_status 2
	run_volctl qgroup show -f -F /nonexistent
	assert_status 2
	assert_output_contains "mutually exclusive"
	run_volctl qgroup show -x /nonexistent
	assert_status 2
	assert_output_contains "unknown option"
	run_volctl qgroup show
	assert_status 2
	# a good sort and unit options parse; the missing path is the failure
	run_volctl qgroup show --sort=-excl,qgroupid,+path --raw --si -pcre /nonexistent
	assert_status 1
	assert_output_contains "/nonexistent"
}

@test "qgroup: not a btrfs filesystem" {
	run_volctl qgroup show "$BATS_TEST_TMPDIR"
	assert_status 1
	assert_output_contains "not a btrfs filesystem"
}

@test "qgroup: --format json is accepted by the writes too" {
	for c in "create 1/1" "destroy 1/1" "assign 0/256 1/1" "remove 0/256 1/1" "limit 1M" \
		 clear-stale; do
		# shellcheck disable=SC2086
		run_volctl --format json qgroup $c /nonexistent
		[ "$status" -eq 1 ] || { echo "$c: $status $output"; false; }
		[[ "$output" != *"not supported"* ]] || { echo "$c: $output"; false; }
	done
}
