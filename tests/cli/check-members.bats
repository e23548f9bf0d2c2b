#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Multi-device images offline (made by mkfs.btrfs on files, no root): check
# takes every member, as arguments or with --image, and says when one is
# missing; reading a degraded set with --image warns; members of two
# filesystems are never mixed.

load ../helpers

setup() {
	command -v mkfs.btrfs >/dev/null || skip "needs mkfs.btrfs (Debian btrfs-progs)"
	D=$BATS_TEST_TMPDIR
	truncate -s 256M "$D/m1.img" "$D/m2.img" "$D/other.img"
	mkfs.btrfs -q -f -m raid1 -d raid1 "$D/m1.img" "$D/m2.img" >/dev/null
	# an offline write drops the free space tree entries mkfs 6.2 leaves (check fails on them)
	"$VOLCTL" --image "$D/m1.img" --image "$D/m2.img" subvolume create /s >/dev/null
	mkfs.btrfs -q -f "$D/other.img" >/dev/null
}

@test "check with one member of two warns that device 2 is missing; with both it is silent" {
	run_volctl_split check "$D/m1.img"
	[ "$status" -eq 0 ] || { echo "$err"; return 1; }
	[[ "$err" == *"warning: $D/m1.img: degraded: device 2 of the filesystem missing"* ]]
	run_volctl_split check "$D/m1.img" "$D/m2.img"
	[ "$status" -eq 0 ] || { echo "$err"; return 1; }
	[ -z "$err" ]
	[[ "$out" == *"blocks verified"* ]]
	run_volctl_split --image "$D/m2.img" --image "$D/m1.img" check
	[ "$status" -eq 0 ] || { echo "$err"; return 1; }
	[ -z "$err" ]
	run_volctl_split --format json check "$D/m1.img"
	[ "$(printf '%s\n' "$out" | jq -c '.check.missing_devices')" = "[2]" ]
	run_volctl_split --format json check "$D/m1.img" "$D/m2.img"
	[ "$(printf '%s\n' "$out" | jq -c '.check.missing_devices')" = "[]" ]
}

@test "check and --image refuse members of two filesystems, naming both" {
	run_volctl check "$D/m1.img" "$D/other.img"
	assert_status 1
	assert_output_contains "$D/other.img: a device of another filesystem"
	assert_output_contains "than $D/m1.img"
	run_volctl --image "$D/m1.img" --image "$D/other.img" subvolume list /
	assert_status 1
	assert_output_contains "a device of another filesystem"
}

@test "reading a degraded set through --image warns on stderr" {
	run_volctl_split --image "$D/m2.img" subvolume list /
	[ "$status" -eq 0 ]
	[[ "$err" == *"$D/m2.img: degraded: device 1 of the filesystem missing"* ]]
	run_volctl_split --image "$D/m2.img" --image "$D/m1.img" quota status /
	[ "$status" -eq 0 ]
	[ -z "$err" ]
	run_volctl_split --image "$D/m1.img" inspect tree -t root
	[ "$status" -eq 0 ]
	[[ "$err" == *"degraded: device 2"* ]]
	# a degraded set is never written
	run_volctl --image "$D/m1.img" subvolume create /x
	assert_status 1
	assert_output_contains "device 2 is missing"
}

@test "check --help names every member" {
	run_volctl check --help
	assert_status 0
	assert_output_contains "usage: volctl check [--qgroup-report] [--show] <image>..."
	assert_output_contains "global option --image once per device"
}
