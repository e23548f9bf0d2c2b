#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# New METADATA chunks made offline, checked by the kernel: the kernel makes
# the same chunk on the same image, mounts ours, reports the same space in
# `filesystem df`/`usage`, and writes files and subvolumes afterwards.

load ../helpers

setup() {
	require_root_loop
	if [ -d /dev/shm ] && [ -w /dev/shm ]; then
		WORK=$(mktemp -d /dev/shm/volctl-chunks.XXXXXX)
	else
		WORK="$BATS_TEST_TMPDIR"
	fi
	IMG="$WORK/fs.img"
	MNT="$BATS_TEST_TMPDIR/mnt"
	mkdir -p "$MNT"
}

teardown() {
	cleanup_mount
	if [ -n "${WORK:-}" ] && [ "$WORK" != "$BATS_TEST_TMPDIR" ]; then
		rm -rf "$WORK"
	fi
}

mount_img() {
	LOOPDEV=$(losetup -f --show "$1")
	mount "$LOOPDEV" "$MNT"
}

umount_img() {
	umount "$MNT"
	losetup -d "$LOOPDEV"
	LOOPDEV=
}

# The lines of CHUNK_ITEM @2 in image @1 (key, length/type, io, stripes)
chunk_lines() {
	btrfs inspect-internal dump-tree -t chunk "$1" |
		awk -v k="CHUNK_ITEM $2)" 'index($0, k) { p = 1; print "key " k; next }
			p && /^\titem/ { p = 0 } p { print }'
}

@test "the kernel makes the same metadata chunk on the same image" {
	truncate -s 300M "$IMG"
	mkfs.btrfs -q -f -n 4096 "$IMG" >/dev/null
	cp "$IMG" "$WORK/kernel.img"
	# offline: subvolumes until the 32 MiB DUP block group is full
	# shellcheck disable=SC2046
	run_volctl --image "$IMG" subvolume create $(seq -f "/s%g" 1 6000)
	assert_status 0
	# kernel: inline files until it adds a metadata chunk
	mount_img "$WORK/kernel.img"
	local i
	for i in $(seq 1 40000); do
		printf '%2000s' x > "$MNT/f$i"
		if [ $((i % 2000)) -eq 0 ]; then
			sync
			btrfs filesystem df "$MNT" | grep -q "Metadata, DUP: total=64.00MiB" && break
		fi
	done
	umount_img
	run btrfs inspect-internal dump-tree -t chunk "$WORK/kernel.img"
	assert_output_contains "CHUNK_ITEM 63963136)"
	local ours theirs
	ours=$(chunk_lines "$IMG" 63963136)
	theirs=$(chunk_lines "$WORK/kernel.img" 63963136)
	[ -n "$ours" ]
	# dev uuids differ between the two images: compare without them
	[ "$(sed 's/dev_uuid.*//' <<<"$ours")" = "$(sed 's/dev_uuid.*//' <<<"$theirs")" ]
}

@test "image with an offline chunk: mounts, df/usage agree, kernel writes, check clean" {
	truncate -s 300M "$IMG"
	mkfs.btrfs -q -f -n 4096 "$IMG" >/dev/null
	# shellcheck disable=SC2046
	run_volctl --image "$IMG" subvolume create $(seq -f "/s%g" 1 6000)
	assert_status 0
	local dev_used
	dev_used=$(btrfs inspect-internal dump-super "$IMG" | awk '$1 == "dev_item.bytes_used" { print $2 }')
	mount_img "$IMG"
	run btrfs filesystem df "$MNT"
	assert_status 0
	assert_output_contains "Metadata, DUP: total=64.00MiB"
	run btrfs filesystem usage -b "$MNT"
	assert_status 0
	assert_output_contains "Device allocated:		         $dev_used"
	run btrfs subvolume list "$MNT"
	[ "$(wc -l <<<"$output")" -eq 6000 ]
	dd if=/dev/urandom of="$MNT/s6000/data" bs=1M count=20 status=none
	btrfs subvolume snapshot "$MNT/s6000" "$MNT/snap" >/dev/null
	btrfs subvolume create "$MNT/k1" >/dev/null
	sync
	umount_img
	run btrfs check --readonly "$IMG"
	assert_status 0
	run_volctl check "$IMG"
	assert_status 0
	# and offline again on what the kernel left
	run_volctl --image "$IMG" subvolume create /after-kernel
	assert_status 0
	run btrfs check --readonly "$IMG"
	assert_status 0
}

@test "volctl mkfs image with offline chunks: kernel mounts and writes, check clean" {
	truncate -s 160M "$IMG"
	run_volctl mkfs -n 4096 "$IMG"
	assert_status 0
	# shellcheck disable=SC2046
	run_volctl --image "$IMG" subvolume create $(seq -f "/s%g" 1 5000)
	assert_status 0
	run btrfs inspect-internal dump-tree -t chunk "$IMG"
	[ "$(grep -c "type METADATA|DUP" <<<"$output")" -ge 2 ]
	mount_img "$IMG"
	run btrfs filesystem df "$MNT"
	assert_status 0
	[[ "$output" != *"Metadata, DUP: total=16.00MiB"* ]]
	dd if=/dev/urandom of="$MNT/s1/data" bs=1M count=10 status=none
	btrfs subvolume create "$MNT/k1" >/dev/null
	sync
	umount_img
	run btrfs check --readonly "$IMG"
	assert_status 0
}
