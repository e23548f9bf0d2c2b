#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Offline writer, checked by the kernel: subvolumes made offline mount and
# list, take files, and stay btrfs-check clean; a mounted image is refused.

load ../helpers

setup() {
	require_root_loop
	IMG="$BATS_TEST_TMPDIR/fs.img"
	MNT="$BATS_TEST_TMPDIR/mnt"
	mkdir -p "$MNT"
	truncate -s 512M "$IMG"
	mkfs.btrfs -q -f "$IMG" >/dev/null
}

teardown() {
	cleanup_mount
}

mount_img() {
	LOOPDEV=$(losetup -f --show "$IMG")
	mount "$LOOPDEV" "$MNT"
}

umount_img() {
	umount "$MNT"
	losetup -d "$LOOPDEV"
	LOOPDEV=
}

@test "offline subvolumes mount, list, take files, stay clean" {
	run_volctl --image "$IMG" subvolume create /a /a/b /c
	assert_status 0
	mount_img
	run btrfs subvolume list "$MNT"
	assert_status 0
	assert_output_contains "path a"
	assert_output_contains "path a/b"
	assert_output_contains "path c"
	run btrfs subvolume show "$MNT/a/b"
	assert_status 0
	dd if=/dev/urandom of="$MNT/a/b/file" bs=64K count=16 status=none
	mkdir "$MNT/c/dir"
	echo hello > "$MNT/c/dir/f"
	sync -f "$MNT"
	umount_img
	run btrfs check --readonly "$IMG"
	assert_status 0
	mount_img
	[ "$(cat "$MNT/c/dir/f")" = hello ]
	[ "$(stat -c %s "$MNT/a/b/file")" -eq 1048576 ]
	umount_img
}

@test "offline create after the kernel wrote the image" {
	mount_img
	btrfs subvolume create "$MNT/k" >/dev/null
	dd if=/dev/zero of="$MNT/k/f" bs=1M count=4 status=none
	umount_img
	run_volctl --image "$IMG" subvolume create /k/off /top
	assert_status 0
	run btrfs check --readonly "$IMG"
	assert_status 0
	mount_img
	run btrfs subvolume list "$MNT"
	assert_output_contains "path k/off"
	assert_output_contains "path top"
	touch "$MNT/k/off/x"
	umount_img
	run btrfs check --readonly "$IMG"
	assert_status 0
}

@test "a mounted image is refused and left alone" {
	mount_img
	run_volctl --image "$IMG" subvolume create /a
	assert_status 1
	assert_output_contains "mounted"
	run_volctl --image "$LOOPDEV" subvolume create /a
	assert_status 1
	assert_output_contains "mounted"
	umount_img
	run btrfs check --readonly "$IMG"
	assert_status 0
}

@test "quotas with a level-1 parent: numbers stay exact, kernel agrees" {
	mount_img
	btrfs quota enable "$MNT"
	btrfs qgroup create 1/100 "$MNT"
	btrfs qgroup assign 0/5 1/100 "$MNT" 2>/dev/null || true
	kernel_rescan "$MNT"
	umount_img
	local long names=()
	long=$(printf 'q%.0s' $(seq 1 200))
	for i in $(seq 1 40); do names+=("/$long$i"); done
	run_volctl --image "$IMG" subvolume create "${names[@]}"
	assert_status 0
	run_volctl --image "$IMG" subvolume create -i 1/100 /inherits
	assert_status 0
	run btrfs check --readonly "$IMG"
	assert_status 0
	[[ "$output" != *"are different"* ]]
	mount_img
	# what the offline writer stored, then what a kernel rescan computes
	local stored rescanned
	stored=$(btrfs qgroup show --raw "$MNT" | awk '$1 ~ /^[01]\// {print $1, $2, $3}')
	kernel_rescan "$MNT"
	rescanned=$(btrfs qgroup show --raw "$MNT" | awk '$1 ~ /^[01]\// {print $1, $2, $3}')
	umount_img
	[ "$stored" = "$rescanned" ]
	[[ "$stored" == *"1/100 "* ]]
	[ "$(awk '$1 == "1/100" {print $2}' <<<"$stored")" -gt 16384 ]
}

@test "read-only subvolume refused, image untouched; snapshot-shared trees written" {
	mount_img
	btrfs subvolume create "$MNT/ro" >/dev/null
	btrfs property set "$MNT/ro" ro true
	btrfs subvolume create "$MNT/src" >/dev/null
	btrfs subvolume snapshot "$MNT/src" "$MNT/snap" >/dev/null
	umount_img
	local before
	before=$(sha256sum < "$IMG")
	run_volctl --image "$IMG" subvolume create /ro/x
	assert_status 1
	assert_output_contains "read-only"
	[ "$(sha256sum < "$IMG")" = "$before" ]
	run_volctl --image "$IMG" subvolume create /snap/x
	assert_status 0
	run_volctl --image "$IMG" subvolume create /src/x
	assert_status 0
	run btrfs check --readonly "$IMG"
	assert_status 0
	mount_img
	[ -d "$MNT/snap/x" ]
	[ -d "$MNT/src/x" ]
	umount_img
	run_volctl --image "$IMG" subvolume create /fine
	assert_status 0
	run btrfs check --readonly "$IMG"
	assert_status 0
}

@test "an unmounted loop device is written (O_EXCL), then mounts" {
	LOOPDEV=$(losetup -f --show "$IMG")
	run_volctl --image "$LOOPDEV" subvolume create /on-dev
	assert_status 0
	losetup -d "$LOOPDEV"
	LOOPDEV=
	run btrfs check --readonly "$IMG"
	assert_status 0
	mount_img
	run btrfs subvolume list "$MNT"
	assert_output_contains "path on-dev"
	umount_img
}
