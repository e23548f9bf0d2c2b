#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# volctl subvolume: help, prefixes, usage errors, refused --format json; no root needed.
# Usage errors exit 2 before anything is opened, so a path that does not exist
# proves the argument was rejected first.

load ../helpers

SV_CMDS="create delete snapshot list show get-default set-default sync"

@test "subvolume: --help of every command prints usage on stdout and exits 0" {
	for c in $SV_CMDS; do
		run_volctl_split subvolume "$c" --help
		[ "$status" -eq 0 ] || { echo "subvolume $c --help: $status"; false; }
		[[ "$out" == "usage: volctl subvolume $c"* ]] || { echo "subvolume $c: $out"; false; }
		[ -z "$err" ]
	done
}

@test "subvolume: help lists every command; help COMMAND prints its usage" {
	run_volctl subvolume help
	assert_status 0
	for c in $SV_CMDS; do
		assert_output_contains "  $c "
	done
	run_volctl subvolume help snapshot
	assert_status 0
	assert_output_contains "usage: volctl subvolume snapshot [-r]"
}

@test "subvolume: unique prefixes select commands, ambiguous ones are refused" {
	run_volctl sub li --help
	assert_status 0
	assert_output_contains "usage: volctl subvolume list"
	run_volctl subvol sn --help
	assert_status 0
	assert_output_contains "usage: volctl subvolume snapshot"
	run_volctl sub get --help
	assert_status 0
	assert_output_contains "usage: volctl subvolume get-default"
	run_volctl sub s /tmp
	assert_status 2
	assert_output_contains "ambiguous command 's'"
	run_volctl sub bogus /tmp
	assert_status 2
	assert_output_contains "unknown command 'bogus'"
}

@test "subvolume: --format json is accepted by every command (and by mkfs)" {
	for c in create delete "snapshot /nonexistent" set-default sync; do
		# shellcheck disable=SC2086
		run_volctl --format json subvolume $c /nonexistent
		[ "$status" -eq 1 ] || { echo "$c: $status $output"; false; }
		[[ "$output" != *"not supported"* ]] || { echo "$output"; false; }
	done
	# mkfs prints its summary (json-schema.bats validates it); a failure prints no document
	run_volctl --format json mkfs "$BATS_TEST_TMPDIR/x.img"
	assert_status 1
	[[ "$output" != *"not supported"* ]] || { echo "$output"; false; }
	[[ "$output" != *'"mkfs"'* ]] || { echo "$output"; false; }
	[ ! -e "$BATS_TEST_TMPDIR/x.img" ]
	for c in list show get-default; do
		run_volctl --format json subvolume "$c" /nonexistent
		[ "$status" -eq 1 ] || { echo "$c: $status $output"; false; }
		[[ "$output" == *"/nonexistent: No such file or directory"* ]]
	done
}

@test "subvolume: argument counts are usage errors" {
	run_volctl subvolume create
	assert_status 2
	assert_output_contains "not enough arguments"
	run_volctl subvolume snapshot a
	assert_status 2
	assert_output_contains "exactly 2 arguments expected, 1 given"
	run_volctl subvolume list
	assert_status 2
	run_volctl subvolume list a b
	assert_status 2
	run_volctl subvolume show
	assert_status 2
	run_volctl subvolume get-default a b
	assert_status 2
	run_volctl subvolume set-default
	assert_status 2
	run_volctl subvolume set-default 1 2 3
	assert_status 2
	assert_output_contains "too many arguments"
	run_volctl subvolume delete
	assert_status 2
	run_volctl subvolume delete -i 256 a b
	assert_status 2
	run_volctl subvolume sync
	assert_status 2
}

@test "subvolume: unknown options are usage errors with a hint" {
	run_volctl subvolume list -x /nonexistent
	assert_status 2
	assert_output_contains "unknown option '-x'"
	assert_output_contains "Try 'volctl subvolume list --help'"
	run_volctl subvolume delete --bogus /nonexistent
	assert_status 2
	assert_output_contains "unknown option '--bogus'"
}

@test "subvolume create/snapshot: invalid -i qgroup ids are usage errors" {
	for id in 1/ x 0/0 65536/1 1/1/1 1//1 -5; do
		run_volctl subvolume create -i "$id" /nonexistent/x
		[ "$status" -eq 2 ] || { echo "create -i $id: $status $output"; false; }
		[[ "$output" == *"invalid qgroup id '$id'"* ]] || { echo "$output"; false; }
		run_volctl subvolume snapshot -i "$id" /nonexistent/a /nonexistent/b
		[ "$status" -eq 2 ] || { echo "snapshot -i $id: $status"; false; }
	done
	run_volctl subvolume create -i 65536/1 /nonexistent/x
	assert_output_contains "value too large"
}

@test "subvolume delete: option conflicts and bad ids" {
	run_volctl subvolume delete -c -C /nonexistent
	assert_status 2
	assert_output_contains "-c and -C are mutually exclusive"
	run_volctl subvolume delete -R -i 256 /nonexistent
	assert_status 2
	assert_output_contains "-R cannot be used with -i"
	for id in x 5 0 255 -1 18446744073709551616; do
		run_volctl subvolume delete -i "$id" /nonexistent
		[ "$status" -eq 2 ] || { echo "delete -i $id: $status $output"; false; }
	done
}

@test "subvolume list: bad filters and sort keys are usage errors" {
	run_volctl subvolume list --sort=bogus /nonexistent
	assert_status 2
	assert_output_contains "invalid --sort 'bogus'"
	run_volctl subvolume list -G x /nonexistent
	assert_status 2
	assert_output_contains "invalid generation filter"
	run_volctl subvolume list -C +1x /nonexistent
	assert_status 2
	run_volctl subvolume list -a -o /nonexistent
	assert_status 2
	assert_output_contains "-a and -o are mutually exclusive"
}

@test "subvolume show/set-default/sync: bad values are usage errors" {
	run_volctl subvolume show -r 1 -u 2 /nonexistent
	assert_status 2
	assert_output_contains "-r and -u are mutually exclusive"
	run_volctl subvolume show -u not-a-uuid /nonexistent
	assert_status 2
	assert_output_contains "invalid uuid 'not-a-uuid'"
	run_volctl subvolume show -r x /nonexistent
	assert_status 2
	run_volctl subvolume set-default x /nonexistent
	assert_status 2
	assert_output_contains "invalid subvolume id 'x'"
	run_volctl subvolume sync /nonexistent 5
	assert_status 2
	assert_output_contains "invalid subvolume id '5'"
	run_volctl subvolume sync -s 0 /nonexistent
	assert_status 2
	assert_output_contains "invalid sleep interval '0'"
}

@test "subvolume: a missing path is an error naming it, exit 1" {
	for c in list show get-default sync; do
		run_volctl subvolume "$c" /nonexistent/path
		[ "$status" -eq 1 ] || { echo "$c: $status"; false; }
		[[ "$output" == "error: /nonexistent/path: No such file or directory" ]] ||
			{ echo "$c: $output"; false; }
	done
}

@test "subvolume: a path on another filesystem is not btrfs" {
	local fstype
	fstype=$(stat -f -c %T /proc)
	[ "$fstype" = proc ]
	run_volctl subvolume list /proc
	assert_status 1
	[ "$output" = "error: /proc: not a btrfs filesystem" ]
}

@test "subvolume create: bad names are refused before anything is opened" {
	long=$(printf 'x%.0s' $(seq 256))
	for name in .. . "$long"; do
		run_volctl subvolume create "/nonexistent/$name"
		[ "$status" -eq 1 ] || { echo "$name: $status"; false; }
		[[ "$output" == *"invalid subvolume name"* ]] || { echo "$output"; false; }
	done
	[[ "$output" == *"name longer than 255 bytes"* ]]
}

@test "an empty argument is a usage error in every command, online and offline; nothing is written" {
	local img=$BATS_TEST_TMPDIR/e.img before c
	"$VOLCTL" mkfs -s 200M --quota --subvol /a "$img" >/dev/null
	before=$(sha256sum <"$img")
	while read -r c; do
		for mode in online offline; do
			if [ "$mode" = offline ]; then
				# shellcheck disable=SC2086
				eval "run_volctl --image \"\$img\" $c"
			else
				# shellcheck disable=SC2086
				eval "run_volctl $c"
			fi
			[ "$status" -eq 2 ] || { echo "$mode $c: status $status: $output" >&2; return 1; }
			[[ "$output" == *"is empty: give a path, id or value"* ]] ||
				{ echo "$mode $c: $output" >&2; return 1; }
		done
	done <<-'LIST'
	subvolume snapshot '' /x
	subvolume snapshot /a ''
	subvolume create ''
	subvolume create /b ''
	subvolume delete ''
	subvolume show ''
	subvolume list ''
	subvolume get-default ''
	subvolume set-default ''
	subvolume set-default 256 ''
	subvolume sync ''
	subvolume sync / ''
	qgroup show ''
	qgroup create 1/1 ''
	qgroup destroy 1/1 ''
	qgroup assign 0/256 '' /
	qgroup remove 0/256 1/1 ''
	qgroup limit '' /
	qgroup clear-stale ''
	quota enable ''
	quota disable ''
	quota rescan ''
	quota status ''
	check ''
	inspect super ''
	LIST
	[ "$(sha256sum <"$img")" = "$before" ]
	run_volctl --image '' subvolume list /
	assert_status 2
	[ "$output" = "error: --image: empty path" ]
	run_volctl --image "$img" subvolume list /
	[ "$output" = "ID 256 gen 2 top level 5 path a" ]
}
