#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The kernel's side of tests/cli/mount-checks.bats and tree-checker.bats:
# kernel 6.18 refuses to mount (`mount -o ro`, loop device) each image volctl
# refuses when it opens it, for the reason volctl names, and mounts the ones
# volctl accepts.

load ../helpers
load ../fixtures/fixture-helpers

CORRUPT="$BATS_TEST_DIRNAME/../fixtures/corrupt.py"

setup() {
	require_root_loop
	MNT="$BATS_TEST_TMPDIR/mnt"
	mkdir -p "$MNT"
}

teardown() {
	cleanup_mount
}

# kernel_mount [OPTS]: mount -o ro[,OPTS] $IMG on a loop device of our own;
# $status, and $KLOG: what the kernel logged about that device meanwhile
kernel_mount() {
	local mark="volctl-mount-checks-$$-$RANDOM" dev
	echo "$mark" >/dev/kmsg
	LOOPDEV=$(losetup -f --show "$IMG")
	dev=$(basename "$LOOPDEV")
	run mount -o "ro${1:+,$1}" "$LOOPDEV" "$MNT"
	KLOG=$(dmesg | awk -v m="$mark" 'index($0, m) {on = 1; next} on' | grep -F "(device $dev)" ||
		true)
	cleanup_mount
}

# kernel_refuses TEXT [OPTS]: the mount fails and the kernel says TEXT
kernel_refuses() {
	kernel_mount "${2:-}"
	if [ "$status" -eq 0 ]; then
		echo "the kernel mounted $IMG" >&2
		return 1
	fi
	if ! grep -qF -- "$1" <<<"$KLOG"; then
		echo "the kernel did not say '$1':" >&2
		echo "$KLOG" >&2
		return 1
	fi
}

kernel_mounts() {
	kernel_mount "${1:-}"
	if [ "$status" -ne 0 ]; then
		echo "the kernel refused $IMG:" >&2
		echo "$KLOG" >&2
		return 1
	fi
}

# volctl_refuses TEXT: volctl check exits 1 naming TEXT
volctl_refuses() {
	run_volctl_split check "$IMG"
	if [ "$status" -ne 1 ] || [[ "$err" != *"$1"* ]]; then
		echo "volctl check: exit $status: $err" >&2
		return 1
	fi
}

@test "kernel: fsck-tests 010, tree 5 without its root directory inode" {
	command -v btrfs-image >/dev/null || skip "needs btrfs-image (btrfs-progs) to restore the dump"
	IMG="$BATS_TEST_TMPDIR/fsck-010.img"
	zstd -q -d -f "$FIXTURES/refused/fsck-010.metadump.zst" -o "$BATS_TEST_TMPDIR/010.dump"
	btrfs-image -r "$BATS_TEST_TMPDIR/010.dump" "$IMG"
	kernel_refuses "in btrfs_fill_super"
	grep -qF "errno=-2 No such entry" <<<"$KLOG"
	volctl_refuses "subvolume 5: no inode item for its root directory"
}

@test "kernel: fsck-tests 027, an extent item without flags" {
	fixture refused/fsck-027
	kernel_refuses "invalid extent flag"
	volctl_refuses "extent flags 0x0"
}

@test "kernel: fsck-tests 028, superblock total_bytes below the device's; mounted once raised" {
	fixture refused/fsck-028
	kernel_refuses "super_total_bytes 134217728 mismatch with fs_devices total_rw_bytes 134219776"
	volctl_refuses "total_bytes 134217728 is smaller than the 134219776 bytes of its devices"
	for sb in 65536 67108864; do
		python3 "$CORRUPT" "$IMG" set $((sb + 112)) 8 134219776
		python3 "$CORRUPT" "$IMG" csum $sb 4096
	done
	kernel_mounts
	run_volctl check "$IMG"
	assert_status 0
}

@test "kernel: fsck-tests 036, a device extent beyond the device" {
	fixture refused/fsck-036
	kernel_refuses "len 50331648 is beyond device boundary 134217728"
	volctl_refuses "ends beyond the device's 134217728 bytes"
}

@test "kernel: fsck-tests 068, a device extent without a chunk" {
	fixture refused/fsck-068
	kernel_refuses "dev extent physical offset 105906176 on devid 1 doesn't have corresponding chunk"
	volctl_refuses "extent at 105906176 belongs to chunk 63963136, which does not exist"
}

@test "kernel: device extents and chunks, superblock total_bytes, root directories (mkfs.btrfs image)" {
	IMG="$BATS_TEST_TMPDIR/base.img"
	truncate -s 300M "$IMG"
	mkfs.btrfs -q -f -m single -d single "$IMG" >/dev/null
	kernel_mounts
	cp "$IMG" "$BATS_TEST_TMPDIR/clean"
	run_volctl check "$IMG"
	assert_status 0
	# the last device extent: start, length, its chunk
	ext=$("$VOLCTL" --format json inspect tree -t dev "$IMG" | jq -r '[.trees[0].blocks[].items[]
		| select(.key.type_name == "DEV_EXTENT")] | last
		| "\(.key.offset) \(.body.length) \(.body.chunk_offset)"')
	read -r start len chunk <<<"$ext"
	[ "$len" -gt 0 ]
	total=$((300 << 20))

	python3 "$CORRUPT" "$IMG" item 1 204 "$start" 24 8 $((len + 4096))
	kernel_refuses "length doesn't match chunk $chunk, have $((len + 4096)) expect $len"
	volctl_refuses "extent at $start is $((len + 4096)) bytes, a stripe of chunk $chunk is $len"

	cp "$BATS_TEST_TMPDIR/clean" "$IMG"
	python3 "$CORRUPT" "$IMG" item 1 204 "$start" 16 8 $((1 << 40))
	kernel_refuses "dev extent physical offset $start on devid 1 doesn't have corresponding chunk"
	volctl_refuses "belongs to chunk $((1 << 40)), which does not exist"

	cp "$BATS_TEST_TMPDIR/clean" "$IMG"
	python3 "$CORRUPT" "$IMG" ktype 1 204 "$start" 205
	kernel_refuses "chunk $chunk has missing dev extent, have 0 expect 1"
	volctl_refuses "chunk $chunk: 0 of its 1 stripes have a device extent"

	# the DEV_ITEM's size below the end of the last extent (above its bytes_used)
	cp "$BATS_TEST_TMPDIR/clean" "$IMG"
	python3 "$CORRUPT" "$IMG" item 1 216 1 8 8 $((start + len - 4096))
	kernel_refuses "physical offset $start len $len is beyond device boundary $((start + len - 4096))"
	volctl_refuses "ends beyond the device's $((start + len - 4096)) bytes"

	# superblock total_bytes: below the device refused, above accepted
	for delta in -4096 4096; do
		cp "$BATS_TEST_TMPDIR/clean" "$IMG"
		for sb in 65536 67108864; do
			python3 "$CORRUPT" "$IMG" set $((sb + 112)) 8 $((total + delta))
			python3 "$CORRUPT" "$IMG" csum $sb 4096
		done
		if [ "$delta" -lt 0 ]; then
			kernel_refuses "super_total_bytes $((total + delta)) mismatch"
			volctl_refuses "total_bytes $((total + delta)) is smaller than the $total bytes"
		else
			kernel_mounts
			run_volctl check "$IMG"
			assert_status 0
		fi
	done

	# tree 5 without the inode item of its root directory (data reloc tree's left alone)
	cp "$BATS_TEST_TMPDIR/clean" "$IMG"
	python3 "$CORRUPT" "$IMG" ktype 256 1 0 2 5
	kernel_refuses "in btrfs_fill_super"
	volctl_refuses "subvolume 5: no inode item for its root directory"
}

@test "kernel: a subvolume without its root directory inode mounts, the subvolume does not" {
	fixture rich4k
	python3 "$CORRUPT" "$IMG" ktype 256 1 0 2 260
	kernel_mounts
	kernel_refuses "" subvolid=260
	kernel_mounts subvolid=256
	volctl_refuses "subvolume 260: no inode item for its root directory"
}
