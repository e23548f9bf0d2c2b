#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# tests/powercut/powercut, the tool behind tests/mounted/powercut.bats (no
# root needed): the cut points it plans from a write log, how it rebuilds a
# member, the superblock rule, and what volctl records with VOLCTL_WRITE_LOG.

load ../helpers
load ../powercut/powercut

setup() {
	[ -x "$PC_TOOL" ] || { echo "$PC_TOOL: not built (make tests/powercut/powercut)" >&2; return 1; }
	D=$BATS_TEST_TMPDIR
}

# le BYTES VALUE: VALUE as BYTES little-endian bytes
le() {
	local i v=$2
	for ((i = 0; i < $1; i++)); do
		printf "\\x$(printf %02x $((v & 255)))"
		v=$((v >> 8))
	done
}

# rec LOG W|F OFF [BYTE [MAGIC]]: append a write of 4096 bytes BYTE (with
# the superblock magic at 64 if MAGIC) at OFF of member 0, or a flush
rec() {
	local log=$1 op=$2 off=${3:-0} byte=${4:-0} magic=${5:-}
	if [ "$op" = F ]; then
		{ printf FLSH; le 4 0; le 8 0; le 8 0; } >>"$log"
		return
	fi
	{
		printf WRIT; le 4 0; le 8 "$off"; le 8 4096
		if [ -n "$magic" ]; then
			head -c 64 /dev/zero | tr '\0' "\\$(printf %03o "$byte")"
			printf _BHRfS_M
			head -c 4024 /dev/zero | tr '\0' "\\$(printf %03o "$byte")"
		else
			head -c 4096 /dev/zero | tr '\0' "\\$(printf %03o "$byte")"
		fi
	} >>"$log"
}

# a commit's shape: two blocks, flush, primary superblock, flush, mirror
commit_log() {
	rec "$1" W 1048576 1
	rec "$1" W 1052672 2
	rec "$1" F
	rec "$1" W 65536 3 magic
	rec "$1" F
	rec "$1" W 67108864 4 magic
}

@test "powercut plan: after each write and flush, every subset before a flush, the commit" {
	commit_log "$D/log"
	run "$PC_TOOL" plan "$D/log"
	assert_status 0
	# kind and set of each point, in order; a set met again is not repeated
	[ "$(cut -f2,3 <<<"$output" | tr '\t\n' ' ;')" = \
		"prefix -;prefix 0;subset 1;subset 0-1;commit 0-2;subset 0-3;" ] ||
		{ echo "$output" >&2; return 1; }
	run "$PC_TOOL" info "$D/log"
	assert_output_contains "writes 4"
	assert_output_contains "flushes 2"
	assert_output_contains "commits 1"
	assert_output_contains "overlaps 0"
}

@test "powercut plan: without the flush before the superblock, it lands alone" {
	rec "$D/log" W 1048576 1
	rec "$D/log" W 1052672 2
	rec "$D/log" W 1056768 5
	rec "$D/log" W 1060864 6
	rec "$D/log" W 65536 3 magic
	rec "$D/log" F
	run "$PC_TOOL" plan "$D/log"
	assert_status 0
	# none, all, all but the first, the superblock alone
	assert_output_contains $'\tsubset\t1-4\t'
	assert_output_contains $'\tsubset\t4\t'
	[[ "$output" == *$'\tcommit\t0-4\t'* ]]
	# --full also loses each write once
	run "$PC_TOOL" plan --full "$D/log"
	assert_output_contains $'\tsubset\t0-1,3-4\t'
}

@test "powercut info: unflushed writes that overlap are counted" {
	rec "$D/log" W 1048576 1
	rec "$D/log" F
	rec "$D/log" W 1048576 2
	run "$PC_TOOL" info "$D/log"
	assert_output_contains "overlaps 0"
	rec "$D/log" W 1050624 3
	run "$PC_TOOL" info "$D/log"
	assert_output_contains "overlaps 1"
}

@test "powercut apply: the base back wherever the log writes, then the chosen writes" {
	commit_log "$D/log"
	truncate -s 128M "$D/base.img"
	printf 'old' | dd of="$D/base.img" bs=1 seek=1052672 conv=notrunc status=none
	cp "$D/base.img" "$D/out.img"
	run "$PC_TOOL" apply "$D/log" 0,2 "$D/base.img" "$D/out.img"
	assert_status 0
	[ "$(od -An -tx1 -j 1048576 -N 1 "$D/out.img")" = " 01" ]
	[ "$(head -c 1052675 "$D/out.img" | tail -c 3)" = old ]
	[ "$(od -An -tx1 -j 65536 -N 1 "$D/out.img")" = " 03" ]
	run "$PC_TOOL" apply "$D/log" - "$D/base.img" "$D/out.img"
	cmp "$D/base.img" "$D/out.img"
	run "$PC_TOOL" apply "$D/log" 0-9 "$D/base.img" "$D/out.img"
	assert_status 2
}

@test "powercut supers: the primaries must carry every valid copy" {
	"$VOLCTL" mkfs -s 128M "$D/a.img" >/dev/null
	run "$PC_TOOL" supers "$D/a.img"
	[[ "$output" == "ok "*" 1 "* ]]
	# the next commit's mirror on the old image: ahead of its primary
	cp "$D/a.img" "$D/b.img"
	"$VOLCTL" --image "$D/b.img" subvolume create /s >/dev/null
	dd if="$D/b.img" of="$D/a.img" bs=4096 skip=16384 seek=16384 count=1 conv=notrunc status=none
	run "$PC_TOOL" supers "$D/a.img"
	assert_output_contains "superblock copy 1 at generation 2, ahead of a primary at 1"
	# a mirror without its primary
	dd if=/dev/zero of="$D/b.img" bs=4096 seek=16 count=1 conv=notrunc status=none
	run "$PC_TOOL" supers "$D/b.img"
	assert_output_contains "primary superblock: no magic, while another copy is valid"
	dd if=/dev/zero of="$D/b.img" bs=4096 seek=16384 count=1 conv=notrunc status=none
	run "$PC_TOOL" supers "$D/b.img"
	[ "$output" = none ]
}

@test "VOLCTL_WRITE_LOG: every write and flush of mkfs and a commit, replayed to the same bytes" {
	truncate -s 128M "$D/base.img"
	cp "$D/base.img" "$D/real.img"
	VOLCTL_WRITE_LOG=$D/log "$VOLCTL" mkfs --subvol /a "$D/real.img" >/dev/null
	[ -s "$D/log" ] || skip "built without --enable-fault-injection"
	run "$PC_TOOL" info "$D/log"
	assert_output_contains "commits 2"
	assert_output_contains "overlaps 0"
	cp "$D/base.img" "$D/out.img"
	"$PC_TOOL" apply "$D/log" all "$D/base.img" "$D/out.img" >/dev/null
	cmp "$D/real.img" "$D/out.img"
	# a failed write is not recorded: the log ends where the image stops changing
	rm -f "$D/log2"
	cp "$D/base.img" "$D/real2.img"
	VOLCTL_FAIL_AFTER_WRITES=5 VOLCTL_WRITE_LOG=$D/log2 run "$VOLCTL" mkfs "$D/real2.img"
	assert_status 1
	run "$PC_TOOL" info "$D/log2"
	assert_output_contains "writes 5"
	cp "$D/base.img" "$D/out.img"
	"$PC_TOOL" apply "$D/log2" all "$D/base.img" "$D/out.img" >/dev/null
	cmp "$D/real2.img" "$D/out.img"
}
