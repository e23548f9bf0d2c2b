#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# volctl check: usage, exit status, JSON, and corrupt images.  The first tests
# need no root; the others build images on a loop mount.

load ../helpers

teardown() {
	cleanup_mount
}

@test "check: --help prints usage on stdout and exits 0" {
	run_volctl check --help
	assert_status 0
	assert_output_contains "usage: volctl check [--qgroup-report] [--show] <image>"
}

@test "check: listed in the main help" {
	run_volctl --help
	assert_status 0
	assert_output_contains "check"
	assert_output_contains "verify an unmounted image and its qgroup numbers"
}

@test "check: usage errors exit 2" {
	run_volctl check
	assert_status 2
	run_volctl check --bogus x.img
	assert_status 2
	assert_output_contains "unknown option"
	run_volctl --image a.img check b.img
	assert_status 2
	assert_output_contains "not both"
}

@test "check: a missing image is an error, not a crash" {
	run_volctl check "$BATS_TEST_TMPDIR/missing.img"
	assert_status 1
	assert_output_contains "missing.img"
	truncate -s 10M "$BATS_TEST_TMPDIR/zero.img"
	run_volctl check "$BATS_TEST_TMPDIR/zero.img"
	assert_status 1
}

@test "check: a corrupt subvolume leaf fails both modes with the block named" {
	require_root_loop
	mkfs_mount 256M
	btrfs quota enable "$MNT"
	btrfs subvolume create "$MNT/a" >/dev/null
	for i in $(seq 1 300); do echo "file $i" >"$MNT/a/f$i"; done
	kernel_rescan "$MNT"
	cleanup_mount
	run_volctl check --qgroup-report "$IMG"
	assert_status 0
	# flip one byte inside the items of every copy of tree 256's first leaf
	local leaf
	leaf=$(btrfs inspect-internal dump-tree -t 256 "$IMG" | awk '/^leaf /{ print $2; exit }')
	[ -n "$leaf" ]
	python3 - "$IMG" "$leaf" <<'EOF'
import mmap, struct, sys
img, leaf = sys.argv[1], int(sys.argv[2])
with open(img, 'r+b') as f:
    mm = mmap.mmap(f.fileno(), 0)
    n = 0
    for off in range(0, len(mm) - 4096, 4096):
        if mm[off + 48:off + 56] == struct.pack('<Q', leaf):
            mm[off + 200] ^= 0xff
            n += 1
    mm.flush()
    sys.exit(0 if n else 1)
EOF
	run_volctl check --qgroup-report "$IMG"
	assert_status 1
	assert_output_contains "$leaf"
	run_volctl check "$IMG"
	assert_status 1
	assert_output_contains "$leaf"
}

@test "check: JSON document, quota status and exit 0 on a fresh filesystem" {
	require_root_loop
	mkfs_mount 256M
	btrfs quota enable "$MNT"
	kernel_rescan "$MNT"
	cleanup_mount
	run_volctl --format json check "$IMG"
	assert_status 0
	assert_json
	[ "$(jq -r '.check.quota.mode' <<<"$output")" = full ]
	[ "$(jq -r '.check.consistent' <<<"$output")" = true ]
	[ "$(jq -r '.check.qgroups[0].qgroupid' <<<"$output")" = 0/5 ]
	[ "$(jq -r '.check.trees.blocks_verified' <<<"$output")" -gt 5 ]
	run_volctl --super 1 check --show "$IMG"
	assert_status 0
	assert_output_contains "recorded rfer"
}

@test "check: numbers marked inconsistent are reported but do not fail" {
	require_root_loop
	mkfs_mount 256M
	btrfs quota enable "$MNT"
	btrfs subvolume create "$MNT/a" >/dev/null
	head -c 200000 /dev/urandom >"$MNT/a/f"
	kernel_rescan "$MNT"
	btrfs qgroup create 1/1 "$MNT"
	btrfs qgroup assign --no-rescan 0/256 1/1 "$MNT"
	# a plain snapshot of a member of 1/1: the kernel marks qgroups inconsistent
	btrfs subvolume snapshot "$MNT/a" "$MNT/s" >/dev/null
	sync -f "$MNT"
	cleanup_mount
	# the premise, read by btrfs-progs: the kernel's status item says inconsistent
	btrfs inspect-internal dump-tree -t quota "$IMG" | grep -E "^\s+version 1 generation [0-9]+ flags ON\|INCONSISTENT"
	run_volctl_split --format json check --qgroup-report "$IMG"
	[ "$(jq -r '.check.quota.inconsistent' <<<"$out")" = true ]
	[ "$status" -eq 0 ]
	# 1/1 kept its old exclusive bytes: now shared with the snapshot
	[ "$(jq -r '.check.qgroups[] | select(.qgroupid == "1/1") | .consistent' <<<"$out")" = false ]
	[[ "$err" == *"marked inconsistent"* ]]
	run_volctl check --qgroup-report "$IMG"
	assert_status 0
	assert_output_contains "qgroup 1/1: counts differ"
}

@test "check: a mounted image gets a warning" {
	require_root_loop
	mkfs_mount 256M
	run_volctl_split check --qgroup-report "$IMG"
	[[ "$err" == *"$IMG: loop device $LOOPDEV is mounted on $MNT: the filesystem may change"* ]]
	# every read through --image says so too
	run_volctl_split --image "$IMG" subvolume list /
	[ "$status" -eq 0 ]
	[[ "$err" == *"$IMG: loop device $LOOPDEV is mounted on $MNT: the filesystem may change"* ]]
	run_volctl_split --image "$IMG" inspect tree -t root
	[[ "$err" == *"loop device $LOOPDEV is mounted on $MNT"* ]]
	cleanup_mount
	run_volctl_split check --qgroup-report "$IMG"
	[ "$status" -eq 0 ]
	[[ "$err" != *"mounted"* ]]
}
