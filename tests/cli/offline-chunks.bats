#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# New METADATA chunks made by the offline writer when the metadata block
# groups are full (no root needed): the chunk the kernel would make, every
# item that goes with it, btrfs check as the oracle, a full device refused
# with the image unchanged, crash safety of the chunk-making transaction.
# Images live in /dev/shm when it is there: one transaction per subvolume
# is an fsync each, and thousands are needed to fill a block group.

load ../helpers

setup() {
	command -v mkfs.btrfs >/dev/null || skip "needs mkfs.btrfs"
	if [ -d /dev/shm ] && [ -w /dev/shm ]; then
		WORK=$(mktemp -d /dev/shm/volctl-chunks.XXXXXX)
	else
		WORK="$BATS_TEST_TMPDIR"
	fi
	IMG="$WORK/fs.img"
}

teardown() {
	if [ -n "${WORK:-}" ] && [ "$WORK" != "$BATS_TEST_TMPDIR" ]; then
		rm -rf "$WORK"
	fi
}

mkimg() {
	truncate -s "$1" "$IMG"
	shift
	mkfs.btrfs -q -f "$@" "$IMG" >/dev/null
}

# create FIRST LAST: subvolumes /sFIRST.../sLAST, one transaction each
# One transaction per subvolume (with -p, several paths are created one by
# one; without it they share one transaction), so that generations count creates.
create_range() {
	# shellcheck disable=SC2046
	run_volctl --image "$IMG" subvolume create -p $(seq -f "/s%g" "$1" "$2")
}

chunk_items() {
	btrfs inspect-internal dump-tree -t chunk "$IMG" | grep -c "CHUNK_ITEM"
}

super_field() {
	btrfs inspect-internal dump-super "$IMG" | awk -v f="$1" '$1 == f { print $2 }'
}

# Σ DEV_EXTENT lengths in the dev tree
dev_extent_sum() {
	btrfs inspect-internal dump-tree -t dev "$IMG" |
		awk '/DEV_EXTENT/ { de = 1; next } de && /length/ { s += $NF; de = 0 } END { print s + 0 }'
}

check_clean() {
	run btrfs check --readonly "$IMG"
	assert_status 0
	[[ "$output" != *"ERROR"* ]]
}

@test "dup metadata full: a 32 MiB DUP chunk where the kernel puts it, check clean" {
	mkimg 300M -n 4096
	[ "$(chunk_items)" -eq 3 ]
	create_range 1 9000
	assert_status 0
	[ "$(chunk_items)" -eq 4 ]
	run btrfs inspect-internal dump-tree -t chunk "$IMG"
	# the same chunk kernel 6.18 makes on this image (tests/mounted/offline-chunks.bats)
	assert_output_contains "(FIRST_CHUNK_TREE CHUNK_ITEM 63963136)"
	assert_output_contains "length 33554432 owner 2 stripe_len 65536 type METADATA|DUP"
	assert_output_contains "io_align 65536 io_width 65536 sector_size 4096"
	assert_output_contains "stripe 0 devid 1 offset 105906176"
	assert_output_contains "stripe 1 devid 1 offset 139460608"
	run btrfs inspect-internal dump-tree -t dev "$IMG"
	assert_output_contains "(1 DEV_EXTENT 105906176)"
	assert_output_contains "(1 DEV_EXTENT 139460608)"
	assert_output_contains "chunk_offset 63963136"
	run btrfs inspect-internal dump-tree -t extent "$IMG"
	assert_output_contains "(63963136 BLOCK_GROUP_ITEM 33554432)"
	run btrfs inspect-internal dump-tree -t 10 "$IMG"
	assert_output_contains "(63963136 FREE_SPACE_INFO 33554432)"
	# device bytes_used = Σ dev extents, in the chunk tree and the superblock
	local sum
	sum=$(dev_extent_sum)
	[ "$sum" -eq $((8 * 1048576 + 2 * 8 * 1048576 + 4 * 32 * 1048576)) ]
	[ "$(super_field dev_item.bytes_used)" -eq "$sum" ]
	run btrfs inspect-internal dump-tree -t chunk "$IMG"
	assert_output_contains "bytes_used $sum"
	check_clean
	# later transactions allocate from the new block group
	create_range 9001 9100
	assert_status 0
	check_clean
}

@test "single metadata full: a SINGLE chunk capped at 10% of the device" {
	mkimg 128M -m single -n 4096
	create_range 1 3000
	assert_status 0
	[ "$(chunk_items)" -ge 4 ]
	run btrfs inspect-internal dump-tree -t chunk "$IMG"
	# 10% of 128 MiB rounded up to 16 MiB, as decide_stripe_size_regular() does
	assert_output_contains "length 16777216 owner 2 stripe_len 65536 type METADATA|single"
	[ "$(super_field dev_item.bytes_used)" -eq "$(dev_extent_sum)" ]
	check_clean
}

@test "a new chunk over the superblock copy at 64 MiB: copy never allocated, check clean" {
	mkimg 128M -m single -n 4096
	# five transactions of 2,000 creates (not 10,000 commits: the chunks are
	# made inside a transaction either way, in the same places)
	local i
	for i in 0 2000 4000 6000 8000; do
		# shellcheck disable=SC2046
		run_volctl --image "$IMG" subvolume create $(seq -f "/s%g" $((i + 1)) $((i + 2000)))
		assert_status 0
	done
	# the third new 16 MiB chunk, at device offset 53 MiB, holds the copy
	run btrfs inspect-internal dump-tree -t chunk "$IMG"
	assert_output_contains "(FIRST_CHUNK_TREE CHUNK_ITEM 55574528)"
	assert_output_contains "stripe 0 devid 1 offset 55574528"
	# no tree block in the 64 KiB window of the copy (logical = physical here)
	run bash -c "btrfs inspect-internal dump-tree -t extent '$IMG' |
		awk '/METADATA_ITEM/ { a = substr(\$4, 2) + 0; if (a + 4096 > 67108864 && a < 67174400) print a }'"
	[ -z "$output" ]
	# the free space tree covers it, as the kernel writes it
	run btrfs inspect-internal dump-tree -t 10 "$IMG"
	assert_output_contains "(55574528 FREE_SPACE_INFO 16777216)"
	check_clean
	[ "$(super_field dev_item.bytes_used)" -eq "$(dev_extent_sum)" ]
}

@test "new chunk with quotas on: qgroup numbers stay exact" {
	mkimg 128M -m single -n 4096 -R quota
	create_range 1 2500
	assert_status 0
	[ "$(chunk_items)" -ge 4 ]
	# btrfs check cannot load this many qgroups (one quota leaf at most): ours verifies all
	run_volctl check --qgroup-report "$IMG"
	assert_status 0
	run_volctl --image "$IMG" quota status /
	assert_status 0
	[[ "$output" =~ Inconsistent:\ +no ]]
}

@test "volctl mkfs image: new chunk, check clean" {
	truncate -s 160M "$IMG"
	run_volctl mkfs -n 4096 "$IMG"
	assert_status 0
	local before
	before=$(chunk_items)
	create_range 1 5000
	assert_status 0
	[ "$(chunk_items)" -gt "$before" ]
	run btrfs inspect-internal dump-tree -t chunk "$IMG"
	assert_output_contains "type METADATA|DUP"
	[ "$(super_field dev_item.bytes_used)" -eq "$(dev_extent_sum)" ]
	check_clean
}

@test "device full: ENOSPC names the device and the space, image unchanged" {
	truncate -s 48M "$IMG"
	mkfs.btrfs -q -f -m single -n 4096 "$IMG" >/dev/null
	# about 8,000 fit (mkfs.btrfs 6.2, full leaves); the rest would each fail the same way
	create_range 1 9000
	assert_status 1
	assert_output_contains "device 1 ($IMG): no free space left for a new metadata chunk"
	assert_output_contains "needs at least 65536 bytes"
	check_clean
	local before
	before=$(sha256sum < "$IMG")
	run_volctl --image "$IMG" subvolume create /one-more
	assert_status 1
	assert_output_contains "no free space left"
	[ "$(sha256sum < "$IMG")" = "$before" ]
}

# crash_loop NAME: fail after 1, 2, ... device writes while creating NAME on
# a copy of $WORK/pristine.img; every state is check-clean and either old
# (no NAME, no new chunk) or new (NAME, maybe a new chunk).  Sets $made to
# whether the completed create made a chunk.
crash_loop() {
	local w rc st chunks0 nold=0
	cp "$WORK/pristine.img" "$IMG"
	chunks0=$(chunk_items)
	for w in $(seq 1 300); do
		cp "$WORK/pristine.img" "$IMG"
		rc=0
		VOLCTL_FAIL_AFTER_WRITES=$w "$VOLCTL" --image "$IMG" subvolume create "$1" \
			>/dev/null 2>&1 || rc=$?
		check_clean
		if btrfs inspect-internal dump-tree -t 5 "$IMG" | grep -q "name: ${1#/}\$"; then
			st=new
		else
			st=old
			[ "$(chunk_items)" -eq "$chunks0" ]
			nold=$((nold + 1))
		fi
		if [ "$rc" -eq 0 ]; then
			[ "$st" = new ]
			break
		fi
		[ "$rc" -eq 1 ]
	done
	[ "$rc" -eq 0 ]
	[ "$nold" -gt 3 ]
	made=0
	if [ "$(chunk_items)" -eq $((chunks0 + 1)) ]; then
		made=1
	else
		[ "$(chunk_items)" -eq "$chunks0" ]
	fi
}

@test "crash while making a chunk: old or new state, never a mix" {
	mkimg 128M -m single -n 4096
	cp "$IMG" "$WORK/probe.img"
	if VOLCTL_FAIL_AFTER_WRITES=1 "$VOLCTL" --image "$WORK/probe.img" \
		subvolume create /probe 2>/dev/null; then
		skip "built without --enable-fault-injection"
	fi
	cp "$IMG" "$WORK/fresh.img"
	local gen0 n chunks0 made=0 tries
	gen0=$(super_field generation)
	create_range 1 3000
	assert_status 0
	# the create that made the chunk committed generation chunk_root_generation;
	# random subvolume uuids move the point by a few creates (they decide where
	# leaves split or push items into siblings), so start early
	n=$(( $(super_field chunk_root_generation) - gen0 ))
	[ "$n" -gt 10 ] || { echo "chunk made by create $n" >&2; return 1; }
	[ "$n" -le 3000 ]
	cp "$WORK/fresh.img" "$IMG"
	create_range 1 $((n - 12))
	assert_status 0
	chunks0=$(chunk_items)
	for tries in $(seq 1 30); do
		cp "$IMG" "$WORK/pristine.img"
		crash_loop "/c$tries"
		[ "$made" -eq 0 ] || break
	done
	[ "$made" -eq 1 ]
	[ "$(chunk_items)" -eq $((chunks0 + 1)) ]
}
