#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Crash after every device write (VOLCTL_FAIL_AFTER_WRITES, test builds) for
# the offline writes whose own files have no crash loop: quota enable,
# disable (full and simple) and rescan, qgroup create, destroy, remove,
# limit and clear-stale, subvolume sync, and mkfs with subvolumes and a
# default (one commit each: a crash between them leaves what mkfs and the
# subvolume commands would have left so far).  Every stop leaves volctl
# check and btrfs check clean and a state that a completed command left:
# the one before, the one after (or, for mkfs, no filesystem or a commit
# on the way); the run that is let through leaves the one after.
# The others are in offline-write*.bats, offline-create-batch.bats,
# offline-mkdir.bats, check-repair.bats, mkfs.bats (cli) and
# offline-squota.bats, offline-drop.bats, offline-multidev.bats,
# offline-chunks.bats (mounted); tests/mounted/powercut.bats cuts the power
# at every point of each of them.

load ../helpers
load ../powercut/powercut

CORRUPT="$BATS_TEST_DIRNAME/../fixtures/corrupt.py"

setup() {
	command -v mkfs.btrfs >/dev/null || skip "needs mkfs.btrfs"
	command -v zstd >/dev/null || skip "needs zstd"
	IMG="$BATS_TEST_TMPDIR/fs.img"
}

vb() {
	"$VOLCTL" --image "$IMG" "$@" >/dev/null
}

# base [MKFS.BTRFS OPTIONS...]: SINGLE metadata, subvolumes, a snapshot,
# with quotas some groups and a limit (tests/powercut/powercut.bash)
base() {
	pc_base_single "$IMG" "$@"
}

# base_rich4k: the kernel-made fixture with a subvolume deleted, not cleaned
base_rich4k() {
	zstd -q -d -f "$BATS_TEST_DIRNAME/../fixtures/rich4k.img.zst" -o "$IMG"
}

# state [IMG]: what an offline write may change, without times and uuids
# (random in each run): generation, subvolumes, deleted ones, the default,
# quota status and every group's numbers, limits and parents; "none" with
# no valid superblock; what is wrong when volctl check is not clean.
# (ASan builds: these reads look for memory errors, not for leaks.)
state() {
	local img=${1:-$IMG} sup list chk def qg
	local -x ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:detect_leaks=0}
	sup=$("$VOLCTL" --format json inspect super "$img" 2>/dev/null) || { echo none; return; }
	# stderr apart: a warning (a stale mirror after a stop between the primary
	# and the mirror copies) is no part of the state
	chk=$("$VOLCTL" --format json check "$img" 2>"$BATS_TEST_TMPDIR/check.err") ||
		{ echo "volctl check: $chk $(cat "$BATS_TEST_TMPDIR/check.err")"; return; }
	list=$("$VOLCTL" --format json --image "$img" subvolume list /) &&
	def=$("$VOLCTL" --format json --image "$img" subvolume get-default /) ||
		{ echo "unreadable"; return; }
	qg=$("$VOLCTL" --format json --image "$img" qgroup show --raw / 2>/dev/null) || qg='{}'
	jq -cn --argjson s "$sup" --argjson l "$list" --argjson c "$chk" --argjson d "$def" \
		--argjson q "$qg" '{gen: $s.superblocks[0].generation,
		subvols: [$l."subvolume_list"[] | {id, path, parent, flags, generation}],
		deleted: $c.check.trees.deleted_subvolumes,
		default: $d.subvolume_get_default.id, quota: $c.check.quota,
		groups: [($q."qgroup_show" // [])[] | {qgroupid, referenced, exclusive,
			max_referenced, max_exclusive, parents}]}'
}

# old or new, against OLD_STATE and NEW_STATE
old_or_new() {
	local st
	st=$(state)
	if [ "$st" = "$OLD_STATE" ]; then
		echo old
	elif [ "$st" = "$NEW_STATE" ]; then
		echo new
	else
		echo "neither: $st"
	fi
}

# btrfs check clean (btrfs-progs 6.2 cannot open an image with the simple
# quota feature: volctl check alone there, which state runs everywhere)
btrfs_clean() {
	local out
	out=$(btrfs check --readonly "$IMG" 2>&1) ||
		[[ "$out" == *"unsupported option features (10000)"* ]] || { echo "$out" >&2; return 1; }
}

# crash_loop ARGS...: the command (@IMG@ the image) run once to learn the
# state after, then stopped after 1, 2, ... writes on the image as it is now
crash_loop() {
	require_fault_injection
	cp "$IMG" "$BATS_TEST_TMPDIR/pristine.img"
	OLD_STATE=$(state)
	"$VOLCTL" "${@//@IMG@/$IMG}" >/dev/null
	NEW_STATE=$(state)
	[ "$OLD_STATE" != "$NEW_STATE" ]
	[[ "$OLD_STATE" == "{"* ]]
	[[ "$NEW_STATE" == "{"* ]]
	CRASH_STATE=old_or_new CRASH_CHECK=btrfs_clean CRASH_MAX=100 crash_loop_writes "$@"
	echo "# $CRASH_OLDS stops left the state before, $CRASH_NEWS the state after" >&3
	[ "$CRASH_OLDS" -ge 3 ]
	[ "$CRASH_NEWS" -ge 1 ]
}

@test "crash loop: quota enable" {
	base
	crash_loop --image @IMG@ quota enable /
}

@test "crash loop: quota disable, full quotas" {
	base -R quota
	crash_loop --image @IMG@ quota disable /
}

@test "crash loop: quota disable, simple quotas" {
	base
	vb quota enable --simple /
	crash_loop --image @IMG@ quota disable /
}

@test "crash loop: quota rescan" {
	base -R quota
	crash_loop --image @IMG@ quota rescan -w /
}

@test "crash loop: qgroup create" {
	base -R quota
	crash_loop --image @IMG@ qgroup create 2/1 /
}

@test "crash loop: qgroup destroy" {
	base -R quota
	crash_loop --image @IMG@ qgroup destroy 1/2 /
}

@test "crash loop: qgroup remove" {
	base -R quota
	crash_loop --image @IMG@ qgroup remove 0/257 1/1 /
}

@test "crash loop: qgroup limit" {
	base -R quota
	crash_loop --image @IMG@ qgroup limit 2M /a /
}

@test "crash loop: qgroup clear-stale" {
	base_rich4k
	# 0/265 (subvolume being cleaned) becomes 0/266, of no subvolume, numbers zeroed
	python3 "$CORRUPT" "$IMG" qrename 0/265 0/266
	python3 "$CORRUPT" "$IMG" qgroup 0/266=-4096
	crash_loop --image @IMG@ qgroup clear-stale /
	[[ "$NEW_STATE" != *'"0/266"'* ]]
	[[ "$OLD_STATE" == *'"0/266"'* ]]
}

@test "crash loop: subvolume sync drops what the kernel deleted" {
	base_rich4k
	crash_loop --image @IMG@ subvolume sync /
	[[ "$OLD_STATE" == *'"deleted":[{"id":265,'* ]]
	[[ "$NEW_STATE" == *'"deleted":[]'* ]]
}

@test "crash loop: mkfs --quota --subvol --default-subvol, each commit whole" {
	local uuid=0b3c1bd4-3ec4-4c3c-9d56-35b0c2a9a4f1 n=1 rc st k
	local -a states=(none) seen=()
	if VOLCTL_FAIL_AFTER_WRITES=1 "$VOLCTL" mkfs -s 128M "$BATS_TEST_TMPDIR/probe.img" 2>/dev/null; then
		skip "built without --enable-fault-injection"
	fi
	# the states its commits leave, made by the commands one at a time
	"$VOLCTL" mkfs -s 128M -U "$uuid" --quota "$IMG" >/dev/null
	states+=("$(state)")
	vb subvolume create /x
	states+=("$(state)")
	vb subvolume create /y
	states+=("$(state)")
	vb subvolume set-default /y
	states+=("$(state)")
	while [ "$n" -lt 200 ]; do
		# a file mkfs did not create: a failed mkfs removes one it created
		rm -f "$IMG"
		truncate -s 128M "$IMG"
		rc=0
		VOLCTL_FAIL_AFTER_WRITES=$n "$VOLCTL" mkfs -s 128M -U "$uuid" --quota --subvol /x \
			--subvol /y --default-subvol /y "$IMG" >/dev/null 2>&1 || rc=$?
		st=$(state)
		for k in "${!states[@]}"; do
			[ "$st" = "${states[$k]}" ] && break
		done
		[ "$st" = "${states[$k]}" ] || { echo "after $n writes: $st" >&2; return 1; }
		[ "$k" -eq 0 ] || btrfs_clean
		seen[k]=1
		[ "$rc" -eq 0 ] && break
		[ "$rc" -eq 1 ]
		n=$((n + 1))
	done
	[ "$rc" -eq 0 ]
	[ "$k" -eq 4 ]
	# every state on the way was met: no filesystem, then each commit
	[ "${#seen[@]}" -eq 5 ]
}
