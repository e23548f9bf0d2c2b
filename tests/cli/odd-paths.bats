#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Odd paths offline: reads and writes resolve ".." the same way, as the VFS
# does without symlinks: ".." is the parent of the directory reached so far,
# and ".." at the top stays at the top.

load ../helpers

setup() {
	command -v mkfs.btrfs >/dev/null || skip "needs mkfs.btrfs"
	IMG="$BATS_TEST_TMPDIR/fs.img"
	truncate -s 256M "$IMG"
	mkfs.btrfs -q -f "$IMG" >/dev/null
	run_volctl --image "$IMG" subvolume create /a
	assert_status 0
	run_volctl --image "$IMG" subvolume create -p /d/e/sv
	assert_status 0
}

# subvol_id PATH: the subvolume id that `subvolume show` reads for PATH
subvol_id() {
	volctl_bin=${VOLCTL:-volctl}
	"$volctl_bin" --image "$IMG" subvolume show "$1" | awk '/Subvolume ID:/ { print $3 }'
}

@test "create: a/../b makes /b, the subvolume show names" {
	run_volctl --image "$IMG" subvolume create //a/../b/
	assert_status 0
	[ -n "$(subvol_id /b)" ]
	[ "$(subvol_id /b)" = "$(subvol_id /a/../b)" ]
}

@test "create: .. at the top stays at the top, for reads and writes" {
	run_volctl --image "$IMG" subvolume create /../../c
	assert_status 0
	[ "$(subvol_id /c)" = "$(subvol_id /../c)" ]
}

@test "create -p: .. after a made directory goes back to its parent" {
	run_volctl --image "$IMG" subvolume create -p /m/n/../sv2
	assert_status 0
	[ -n "$(subvol_id /m/sv2)" ]
}

@test "snapshot: source and destination with .. name what show names" {
	run_volctl --image "$IMG" subvolume snapshot /d/e/../e/sv /a/../snap
	assert_status 0
	[ -n "$(subvol_id /snap)" ]
	[ "$(subvol_id /snap)" != "$(subvol_id /d/e/sv)" ]
	run_volctl --image "$IMG" subvolume snapshot /d/e/../x/sv /snap2
	[ "$status" -ne 0 ]
}

@test "delete: a path with .. deletes the subvolume show names" {
	run_volctl --image "$IMG" subvolume delete /d/../d/e/sv
	assert_status 0
	run_volctl --image "$IMG" subvolume show /d/e/sv
	[ "$status" -ne 0 ]
}

@test "too-long component: reads and writes both fail with File name too long" {
	long=$(printf 'x%.0s' $(seq 256))
	run_volctl --image "$IMG" subvolume show "/$long/a"
	assert_status 1
	[[ "$output" == *"File name too long"* ]]
	run_volctl --image "$IMG" subvolume create "/$long/b"
	assert_status 1
	[[ "$output" == *"File name too long"* ]]
	run_volctl --image "$IMG" subvolume snapshot /a "/$long/s"
	assert_status 1
	[[ "$output" == *"File name too long"* ]]
}

# same_as CMD...: CMD on each odd spelling of /a prints and exits as on /a
same_as() {
	volctl_bin=${VOLCTL:-volctl}
	want=$("$volctl_bin" --image "$IMG" "$@" /a 2>&1; echo "rc=$?")
	for p in //a /a/ /./a /a/. /d/../a /d/e/../../a /../a; do
		got=$("$volctl_bin" --image "$IMG" "$@" "$p" 2>&1; echo "rc=$?")
		[ "${got//$p/\/a}" = "$want" ] || { echo "$* $p: $got != $want"; return 1; }
	done
}

@test "show, list, sync, qgroup show -f: odd spellings of /a read as /a" {
	same_as subvolume show
	same_as subvolume list
	same_as subvolume sync
	same_as qgroup show -f
}

@test "set-default: an odd spelling sets the subvolume show names" {
	id=$(subvol_id /a)
	run_volctl --image "$IMG" subvolume set-default /d/e/../../a/
	assert_status 0
	run_volctl --image "$IMG" subvolume get-default /
	assert_status 0
	[[ "$output" == *"ID $id "* ]]
}
