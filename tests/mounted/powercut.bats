#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# A power cut at every point of every offline write command: the writes and
# flushes of one run are recorded (VOLCTL_WRITE_LOG, test builds), the
# members are rebuilt as a disk with a volatile write cache could leave
# them (after each write, after each flush, and subsets of the writes since
# the last flush lost or landing out of order: tests/powercut/powercut.c
# says which subsets), and at each point the kernel mounts the image and
# scrubs it, btrfs check and volctl check are clean, the superblock copies
# agree with the primaries, and the state is the one before the command or
# one a commit of it left (tests/powercut/powercut.bash).
#
# make check samples subsets lightly (every subset of at most 3 unflushed
# writes; otherwise none, all, all but the first, the last alone and 2
# drawn from a seeded generator: 362 points in all); make check-powercut
# (POWERCUT_FULL=1) takes every subset of at most 8, and also each set with
# one write lost, each single write, each suffix and 32 drawn sets.
# Each write is atomic in the model (no torn sectors), and a run starts
# from its base image as if all of it were on the medium.

load ../helpers
load ../powercut/powercut

setup() {
	pc_setup
	B=$BATS_TEST_TMPDIR
}

teardown() {
	pc_teardown
}

# vb ARGS...: volctl on the base image (setting up, not under test)
vb() {
	"$VOLCTL" --image "$B/base.img" "$@" >/dev/null
}

# base_dup: volctl's own mkfs (DUP metadata, 16k nodes), full quotas,
# subvolumes /a, /b, /a/inner, a snapshot /snap of /a, group 1/1 over 0/257
base_dup() {
	"$VOLCTL" mkfs -s 128M --quota "$B/base.img" >/dev/null
	vb subvolume create /a /b
	vb subvolume create /a/inner
	vb subvolume snapshot /a /snap
	vb qgroup create 1/1 /
	vb qgroup assign 0/257 1/1 /
	PC_BASES=("$B/base.img")
}

# base_single [MKFS.BTRFS OPTIONS...]: pc_base_single (SINGLE metadata)
base_single() {
	pc_base_single "$B/base.img" "$@"
	PC_BASES=("$B/base.img")
}

# base_rich4k: the kernel-made rich4k fixture (4k nodes, a 3-level qgroup
# hierarchy with limits, a subvolume deleted but not yet cleaned), own fsid
base_rich4k() {
	zstd -q -d -f "$BATS_TEST_DIRNAME/../fixtures/rich4k.img.zst" -o "$B/base.img"
	pc_fresh_fsid "$B/base.img"
	PC_BASES=("$B/base.img")
}

# powercut_ok COMMITS ARGS...: powercut_run, with the points it checked in the TAP output
powercut_ok() {
	powercut_run "$@"
	echo "# $PC_POINTS points: $(for k in "${!PC_KINDS[@]}"; do printf '%s %s ' "${PC_KINDS[$k]}" "$k"; done)" >&3
}

@test "power cut: mkfs on a new file" {
	truncate -s 128M "$B/new.img"
	PC_BASES=("$B/new.img")
	powercut_ok 1 mkfs @IMG@
}

@test "power cut: mkfs -f over a filesystem, with quotas, subvolumes and a default" {
	# the old trees are where the new ones go: a new block landing before
	# the old primary is gone would show
	"$VOLCTL" mkfs -s 128M "$B/base.img" >/dev/null
	PC_BASES=("$B/base.img")
	powercut_ok 4 mkfs -f --quota --subvol /x --subvol /y --default-subvol /y @IMG@
}

@test "power cut: mkfs --rootdir with a subvolume and a snapshot: no commit before the last mounts" {
	local t=$B/tree
	mkdir -p "$t/home/u" "$t/etc"
	head -c 300K /dev/urandom >"$t/etc/big"
	echo small >"$t/home/u/f"
	ln -s f "$t/home/u/l"
	truncate -s 128M "$B/new.img"
	PC_BASES=("$B/new.img")
	# three transactions (the copy, the subvolume's, the snapshot's) after
	# the empty base, and only two commits that a reader accepts: the base
	# and the last; the superblocks between say "unfinished mkfs" (states
	# "none", allowed in mkfs), so no cut leaves a part of the tree
	powercut_ok 2 mkfs --rootdir "$t" --subvol rw:home \
		--snapshot home:home-factory:ro @IMG@
	run "$VOLCTL" --image "$PC/real0.img" subvolume list /
	assert_output_contains "home-factory"
}

@test "a cut mkfs --rootdir leaves superblocks that say it is unfinished, which check names" {
	local t=$B/tree set
	mkdir -p "$t"
	head -c 300K /dev/urandom >"$t/big"
	truncate -s 128M "$B/new.img"
	cp --sparse=always "$B/new.img" "$B/base.img"
	VOLCTL_WRITE_LOG=$B/log "$VOLCTL" mkfs --rootdir "$t" --snapshot /:snap "$B/new.img" >/dev/null
	# the last tree block written before the final superblocks
	set=$("$PC_TOOL" plan "$B/log" | awk -F'\t' '$2 == "prefix" && $4 !~ /superblock/ {s = $3}
		$2 == "commit" {last = s} END {print last}')
	[ -n "$set" ]
	cp --sparse=always "$B/base.img" "$B/cut.img"
	"$PC_TOOL" apply "$B/log" "$set" "$B/base.img" "$B/cut.img" >/dev/null
	run_volctl check "$B/cut.img"
	[ "$status" -ne 0 ]
	assert_output_contains "unfinished mkfs"
	run blkid -p -o value -s TYPE "$B/cut.img"
	[ "$output" != btrfs ]
	run_volctl check "$B/new.img"
	assert_status 0
}

@test "power cut: subvolume create (DUP metadata)" {
	base_dup
	powercut_ok 1 @IMGS@ subvolume create /a/new
}

@test "power cut: subvolume create -p (directories and a subvolume)" {
	base_single -R quota
	powercut_ok 1 @IMGS@ subvolume create -p /d/e/new
}

@test "power cut: subvolume snapshot (DUP metadata)" {
	base_dup
	powercut_ok 1 @IMGS@ subvolume snapshot /a /a2
}

@test "power cut: subvolume delete of a snapshot sharing blocks (DUP metadata)" {
	base_dup
	powercut_ok 1 @IMGS@ subvolume delete /snap
}

@test "power cut: subvolume set-default" {
	base_single -R quota
	powercut_ok 1 @IMGS@ subvolume set-default /a
}

@test "power cut: subvolume sync of a subvolume the kernel deleted" {
	base_rich4k
	powercut_ok 1 @IMGS@ subvolume sync /
}

@test "power cut: quota enable" {
	base_single
	powercut_ok 1 @IMGS@ quota enable /
}

@test "power cut: quota enable --simple" {
	base_single
	powercut_ok 1 @IMGS@ quota enable --simple /
}

@test "power cut: quota disable (full quotas)" {
	base_single -R quota
	powercut_ok 1 @IMGS@ quota disable /
}

@test "power cut: quota disable (simple quotas)" {
	base_single
	vb quota enable --simple /
	powercut_ok 1 @IMGS@ quota disable /
}

@test "power cut: quota rescan (full quotas; simple quotas refuse it without a write)" {
	base_single -R quota
	powercut_ok 1 @IMGS@ quota rescan -w /
	base_single
	vb quota enable --simple /
	rm -f "$PC/log"
	VOLCTL_WRITE_LOG=$PC/log run "$VOLCTL" --image "$B/base.img" quota rescan /
	assert_status 1
	assert_output_contains "not possible with simple quotas"
	[ ! -s "$PC/log" ]
}

@test "power cut: qgroup create" {
	base_single -R quota
	powercut_ok 1 @IMGS@ qgroup create 2/1 /
}

@test "power cut: qgroup destroy" {
	base_single -R quota
	powercut_ok 1 @IMGS@ qgroup destroy 1/2 /
}

@test "power cut: qgroup assign" {
	base_single -R quota
	powercut_ok 1 @IMGS@ qgroup assign 0/256 1/1 /
}

@test "power cut: qgroup remove" {
	base_single -R quota
	powercut_ok 1 @IMGS@ qgroup remove 0/257 1/1 /
}

@test "power cut: qgroup limit" {
	base_single -R quota
	powercut_ok 1 @IMGS@ qgroup limit 2M /a /
}

@test "power cut: qgroup clear-stale" {
	base_rich4k
	# the group of the subvolume being cleaned, 0/265, becomes 0/266: stale
	# (its numbers zeroed, as the group of no tree computes)
	python3 "$BATS_TEST_DIRNAME/../fixtures/corrupt.py" "$B/base.img" qrename 0/265 0/266
	python3 "$BATS_TEST_DIRNAME/../fixtures/corrupt.py" "$B/base.img" qgroup 0/266=-4096
	run "$VOLCTL" --image "$B/base.img" qgroup show /
	assert_output_contains "<stale>"
	powercut_ok 1 @IMGS@ qgroup clear-stale /
}

@test "power cut: check --repair-qgroups" {
	base_single -R quota
	python3 "$BATS_TEST_DIRNAME/../fixtures/corrupt.py" "$B/base.img" qgroup 0/256=4096 1/1=-4096
	run "$VOLCTL" check "$B/base.img"
	assert_status 1
	PC_QGROUP_DIFFS=1 powercut_ok 1 check --repair-qgroups @IMG@
	# the repaired image is clean
	run "$VOLCTL" check "$PC/real0.img"
	assert_status 0
}

@test "power cut: 2 devices, RAID1 metadata: snapshot" {
	truncate -s 128M "$B/m1.img" "$B/m2.img"
	mkfs.btrfs -q -f -m raid1 -d single "$B/m1.img" "$B/m2.img" >/dev/null 2>&1
	"$VOLCTL" --image "$B/m1.img" --image "$B/m2.img" subvolume create /a >/dev/null
	PC_BASES=("$B/m1.img" "$B/m2.img")
	powercut_ok 1 @IMGS@ subvolume snapshot /a /s
}
