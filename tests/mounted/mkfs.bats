#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# volctl mkfs checked by the kernel: the filesystem mounts, takes data,
# grows chunks, shows the subvolumes, default subvolume and qgroups; a
# mounted target is refused; an unmounted loop device works.

load ../helpers

setup() {
	require_root_loop
	IMG="$BATS_TEST_TMPDIR/fs.img"
	MNT="$BATS_TEST_TMPDIR/mnt"
	mkdir -p "$MNT"
}

teardown() {
	cleanup_mount
}

mount_img() {
	LOOPDEV=$(losetup -f --show "$IMG")
	mount "$LOOPDEV" "$MNT" "$@"
}

umount_img() {
	umount "$MNT"
	losetup -d "$LOOPDEV"
	LOOPDEV=
}

@test "mkfs: the kernel mounts it, writes more than the first chunks hold, check clean" {
	run_volctl mkfs -s 1G "$IMG"
	assert_status 0
	mount_img
	dd if=/dev/urandom of="$MNT/big" bs=1M count=300 status=none
	mkdir "$MNT/d"
	for i in $(seq 1 500); do echo "$i" >"$MNT/d/f$i"; done
	btrfs subvolume create "$MNT/k" >/dev/null
	btrfs subvolume snapshot "$MNT/k" "$MNT/ks" >/dev/null
	sync -f "$MNT"
	run btrfs filesystem df "$MNT"
	assert_output_contains "Metadata, DUP"
	umount_img
	run btrfs check --readonly "$IMG"
	assert_status 0
	mount_img
	[ "$(stat -c %s "$MNT/big")" -eq $((300 << 20)) ]
	[ "$(cat "$MNT/d/f321")" = 321 ]
	umount_img
}

@test "mkfs -m single (plain, --quota, --rootdir --shrink): the kernel mounts it, Metadata single, writes, check clean" {
	local src="$BATS_TEST_TMPDIR/src" stored rescanned i
	run_volctl mkfs -m single -s 1G "$IMG"
	assert_status 0
	mount_img
	run btrfs filesystem df "$MNT"
	assert_output_contains "Metadata, single"
	assert_output_contains "System, single"
	[[ "$output" != *"DUP"* ]]
	dd if=/dev/urandom of="$MNT/big" bs=1M count=200 status=none
	mkdir "$MNT/d"
	for i in $(seq 1 500); do echo "$i" >"$MNT/d/f$i"; done
	btrfs subvolume create "$MNT/k" >/dev/null
	sync -f "$MNT"
	umount_img
	run btrfs check --readonly "$IMG"
	assert_status 0
	rm -f "$IMG"
	run_volctl mkfs -m single --quota --subvol @ --subvol @home -s 512M "$IMG"
	assert_status 0
	mount_img
	run btrfs filesystem df "$MNT"
	assert_output_contains "Metadata, single"
	stored=$(btrfs qgroup show --raw "$MNT" | awk '$1 ~ /^0\// {print $1, $2, $3}')
	kernel_rescan "$MNT"
	rescanned=$(btrfs qgroup show --raw "$MNT" | awk '$1 ~ /^0\// {print $1, $2, $3}')
	[ "$stored" = "$rescanned" ]
	umount_img
	run btrfs check --readonly "$IMG"
	assert_status 0
	rm -f "$IMG"
	mkdir -p "$src/a"
	for i in $(seq 1 300); do head -c $((i * 200)) /dev/urandom >"$src/a/f$i"; done
	run_volctl mkfs -m single -s 256M -r "$src" --shrink "$IMG"
	assert_status 0
	mount_img
	run btrfs filesystem df "$MNT"
	assert_output_contains "Metadata, single"
	cmp "$src/a/f123" "$MNT/a/f123"
	umount_img
	run btrfs check --readonly "$IMG"
	assert_status 0
}

@test "mkfs --quota --subvol --default-subvol: kernel sees them, numbers equal a rescan" {
	run_volctl mkfs -s 512M --quota --subvol @ --subvol @home --subvol @/nested \
		--default-subvol @ "$IMG"
	assert_status 0
	mount_img
	run btrfs subvolume get-default "$MNT"
	assert_output_contains "path @"
	[ -d "$MNT/nested" ]
	umount_img
	mount_img -o subvolid=5
	run btrfs subvolume list "$MNT"
	assert_output_contains "path @home"
	assert_output_contains "path @/nested"
	local stored rescanned
	stored=$(btrfs qgroup show --raw "$MNT" | awk '$1 ~ /^0\// {print $1, $2, $3}')
	kernel_rescan "$MNT"
	rescanned=$(btrfs qgroup show --raw "$MNT" | awk '$1 ~ /^0\// {print $1, $2, $3}')
	[ "$stored" = "$rescanned" ]
	[[ "$stored" == *"0/258 "* ]]
	run btrfs quota status "$MNT"
	[[ "$output" != *"nconsistent: yes"* ]]
	umount_img
}

@test "mkfs -n 4096 --quota: kernel mounts, quota works, numbers equal a rescan" {
	run_volctl mkfs -s 256M -n 4096 --quota --subvol @ "$IMG"
	assert_status 0
	mount_img -o subvolid=5
	run btrfs qgroup show --raw "$MNT"
	assert_status 0
	assert_output_contains "0/256"
	dd if=/dev/zero of="$MNT/@/f" bs=1M count=3 status=none
	btrfs subvolume create "$MNT/k" >/dev/null
	sync -f "$MNT"
	local stored rescanned
	stored=$(btrfs qgroup show --raw "$MNT" | awk '$1 ~ /^0\// {print $1, $2, $3}')
	kernel_rescan "$MNT"
	rescanned=$(btrfs qgroup show --raw "$MNT" | awk '$1 ~ /^0\// {print $1, $2, $3}')
	[ "$stored" = "$rescanned" ]
	[[ "$stored" == *"0/256 3"* ]]
	[[ "$stored" == *"0/257 "* ]]
	run cat "/sys/fs/btrfs/$(btrfs filesystem show "$MNT" | awk '/uuid:/ {print $NF}')/qgroups/inconsistent"
	[ "$output" = 0 ]
	umount_img
	run btrfs check --readonly "$IMG"
	assert_status 0
}

@test "mkfs: a mounted target is refused, an unmounted loop device works" {
	run_volctl mkfs -s 256M "$IMG"
	assert_status 0
	mount_img
	echo keep >"$MNT/file"
	sync -f "$MNT"
	run_volctl mkfs -f "$IMG"
	assert_status 1
	assert_output_contains "mounted"
	run_volctl mkfs -f "$LOOPDEV"
	assert_status 1
	[ "$(cat "$MNT/file")" = keep ]
	umount "$MNT"
	run_volctl mkfs -f -L onloop "$LOOPDEV"
	assert_status 0
	mount "$LOOPDEV" "$MNT"
	run btrfs filesystem label "$MNT"
	assert_output_contains "onloop"
	[ ! -e "$MNT/file" ]
	umount_img
	run btrfs check --readonly "$IMG"
	assert_status 0
}

# Our online qgroup show (Debian's btrfs-progs 6.2 cannot open squota
# filesystems): "<qgroupid> <rfer> <excl>" of every level-0 group
squota_numbers() {
	"$VOLCTL" qgroup show --raw "$MNT" | awk '$1 ~ /^0\// {print $1, $2, $3}'
}

# mkfs --simple-quota with node size $1: the kernel mounts it in simple mode
# with our numbers, charges new data and tree blocks to the writer, and the
# image it leaves is consistent for volctl check
squota_kernel_round() {
	local ns=$1
	run_volctl mkfs -s 512M -n "$ns" --simple-quota --subvol /sv "$IMG"
	assert_status 0
	mount_img
	run "$VOLCTL" quota status "$MNT"
	assert_status 0
	assert_output_contains "squota"
	assert_output_contains "Inconsistent:            no"
	# as mkfs wrote them: one tree leaf each
	[ "$(squota_numbers)" = "0/5 $ns $ns
0/256 $ns $ns" ]
	dd if=/dev/urandom of="$MNT/top" bs=1M count=2 status=none
	dd if=/dev/urandom of="$MNT/sv/f" bs=1M count=3 status=none
	sync -f "$MNT"
	# each tree is still one leaf (old one freed, new one charged) plus the data
	[ "$(squota_numbers)" = "0/5 $(((2 << 20) + ns)) $(((2 << 20) + ns))
0/256 $(((3 << 20) + ns)) $(((3 << 20) + ns))" ]
	rm "$MNT/top"
	sync -f "$MNT"
	[[ "$(squota_numbers)" == "0/5 $ns $ns"* ]]
	umount_img
	run_volctl check "$IMG"
	assert_status 0
	assert_output_contains "all consistent"
	# and the kernel still accepts what it wrote
	mount_img
	[ "$(stat -c %s "$MNT/sv/f")" -eq $((3 << 20)) ]
	umount_img
}

@test "mkfs --simple-quota --subvol: kernel mounts it in simple mode, charges writes, check clean" {
	squota_kernel_round 16384
}

@test "mkfs -n 4096 --simple-quota --subvol: the same with 4 KiB nodes" {
	squota_kernel_round 4096
}
