#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Simple quotas offline without root: the kernel-made squota4k fixture and
# mkfs.btrfs images.  Debian's btrfs-progs 6.2 cannot open squota images,
# so `volctl check` (simple-quota numbers by owner) is the oracle here;
# tests/mounted/offline-squota.bats checks the same against the kernel.

load ../helpers
load ../fixtures/fixture-helpers

setup() {
	IMG="$BATS_TEST_TMPDIR/fs.img"
}

vc() {
	run_volctl --image "$IMG" "$@"
}

qg_raw() {
	"$VOLCTL" --image "$IMG" qgroup show --raw / | awk -v id="$1" '$1 == id {print $2, $3}'
}

check_clean() {
	run_volctl check "$IMG"
	if [ "$status" -ne 0 ] || [[ "$output" != *"all consistent"* ]]; then
		echo "$output" >&2
		return 1
	fi
}

@test "squota4k: create and snapshot start at one block, the rest unchanged, check clean" {
	fixture squota4k
	local before
	before=$("$VOLCTL" --image "$IMG" qgroup show --raw / | awk 'NR > 2 && $1 != "0/5" {print $1, $2, $3}')
	vc subvolume create /new
	assert_status 0
	vc subvolume snapshot -r /b /b-ro
	assert_status 0
	check_clean
	[ "$(qg_raw 0/266)" = "4096 4096" ]
	[ "$(qg_raw 0/267)" = "4096 4096" ]
	# only the top level's tree changed among the old subvolumes (b's root is
	# copied, not changed): their charges stay
	[ "$("$VOLCTL" --image "$IMG" qgroup show --raw / |
		awk 'NR > 2 && $1 != "0/5" && $1 != "0/266" && $1 != "0/267" {print $1, $2, $3}')" = "$before" ]
	vc quota status /
	assert_output_contains "squota (simplified accounting)"
	assert_output_contains "Inconsistent:            no"
}

@test "squota4k: writes inside a snapshotted subvolume charge the copies to their owner" {
	fixture squota4k
	# a/dir/nested lives in a; snap-a shares a's blocks: creating a
	# subvolume inside a copies a's shared leaf (no INCONSISTENT in squota)
	vc subvolume create /a/dir/offline
	assert_status 0
	check_clean
	vc subvolume create /snap-a/inside
	assert_status 0
	check_clean
	vc quota status /
	assert_output_contains "Inconsistent:            no"
}

@test "squota4k: relations sum the distinct level-0 groups; limits are enforced; check clean" {
	fixture squota4k
	local a b
	a=$(qg_raw 0/256 | cut -d' ' -f1)
	b=$(qg_raw 0/260 | cut -d' ' -f1)
	vc qgroup create 1/1 /
	assert_status 0
	vc qgroup create 2/1 /
	assert_status 0
	vc qgroup assign 1/1 2/1 /
	assert_status 0
	vc qgroup assign 0/256 1/1 /
	assert_status 0
	vc qgroup assign 0/260 2/1 /
	assert_status 0
	[ "$(qg_raw 1/1)" = "$a $a" ]
	[ "$(qg_raw 2/1)" = "$((a + b)) $((a + b))" ]
	check_clean
	# a limit the assign would pass: refused, image byte-identical
	vc qgroup create 1/2 /
	vc qgroup limit 4096 1/2 /
	assert_status 0
	local sum
	sum=$(image_sum)
	vc qgroup assign 0/260 1/2 /
	assert_status 1
	assert_output_contains "qgroup 1/2: referenced limit 4096 would be exceeded by $((b - 4096)) bytes"
	[ "$(image_sum)" = "$sum" ]
	vc qgroup remove 0/256 1/1 /
	assert_status 0
	[ "$(qg_raw 1/1)" = "0 0" ]
	[ "$(qg_raw 2/1)" = "$b $b" ]
	vc qgroup destroy 1/1 /
	assert_status 0
	[ "$(qg_raw 2/1)" = "$b $b" ]
	check_clean
}

@test "squota4k: rescan refused untouched; disable keeps the incompat flag; enable --simple again" {
	fixture squota4k
	local sum
	sum=$(image_sum)
	vc quota rescan /
	assert_status 1
	assert_output_contains "not possible with simple quotas"
	vc quota enable /
	[ "$(image_sum)" = "$sum" ]
	vc quota disable /
	assert_status 0
	"$VOLCTL" inspect super "$IMG" | grep -q 'incompat_flags .*simple-quota'
	vc quota status /
	assert_output_contains "Enabled: no"
	vc subvolume create /after
	assert_status 0
	vc quota enable --simple /
	assert_status 0
	check_clean
	# nothing existing is charged: enable_gen is one past the enabling commit
	[ "$("$VOLCTL" --image "$IMG" qgroup show --raw / | awk 'NR > 2 && ($2 != 0 || $3 != 0)' | wc -l)" -eq 0 ]
	local gen
	gen=$("$VOLCTL" inspect super "$IMG" | awk '$1 == "generation" {print $2; exit}')
	"$VOLCTL" inspect tree -t quota "$IMG" | grep -q "enable_gen $((gen + 1))\$"
	vc subvolume create /charged
	assert_status 0
	[ "$(qg_raw 0/267)" = "4096 4096" ]
	check_clean
}

@test "enable --simple on a mkfs.btrfs image: incompat flag, zero groups, writes charged" {
	command -v mkfs.btrfs >/dev/null || skip "needs mkfs.btrfs"
	truncate -s 256M "$IMG"
	mkfs.btrfs -q -f -n 4096 "$IMG" >/dev/null
	vc subvolume create /a /b
	assert_status 0
	vc quota enable -s /
	assert_status 0
	"$VOLCTL" inspect super "$IMG" | grep -q 'incompat_flags .*simple-quota'
	[ "$(qg_raw 0/256)" = "0 0" ]
	vc subvolume snapshot /a /s
	assert_status 0
	vc subvolume create -i 1/5 /c
	assert_status 1
	vc qgroup create 1/5 /
	vc subvolume create -i 1/5 /c
	assert_status 0
	[ "$(qg_raw 0/259)" = "4096 4096" ]
	[ "$(qg_raw 1/5)" = "4096 4096" ]
	[ "$(qg_raw 0/258)" = "4096 4096" ]
	check_clean
}
