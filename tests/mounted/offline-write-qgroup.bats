#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Offline set-default, quota and qgroup writes, checked by the kernel: the
# default subvolume is what a plain mount shows; the numbers volctl wrote
# are what the kernel's own rescan computes; limits show in qgroup show.

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
	mount "$LOOPDEV" "$MNT" "$@"
}

umount_img() {
	umount "$MNT"
	losetup -d "$LOOPDEV"
	LOOPDEV=
}

# qgroup numbers and limits, as "id rfer excl max_rfer max_excl" lines
progs_numbers() {
	btrfs qgroup show --raw -re "$1" | awk 'NR > 2 {print $1, $2, $3, $4, $5}'
}

# the kernel's view of qgroup consistency of the mounted image
kernel_inconsistent() {
	cat "/sys/fs/btrfs/$(blkid -s UUID -o value "$IMG")/qgroups/inconsistent"
}

# kernel-written content with shared extents: a subvolume, a snapshot
# of it that diverged, another subvolume
populate() {
	mount_img
	btrfs subvolume create "$MNT/a" >/dev/null
	for i in $(seq 1 40); do
		head -c 40000 /dev/urandom >"$MNT/a/f$i"
	done
	head -c 2M /dev/urandom >"$MNT/a/big"
	btrfs subvolume snapshot "$MNT/a" "$MNT/s" >/dev/null
	rm "$MNT/s/f1" "$MNT/s/f2"
	echo more >>"$MNT/s/f3"
	btrfs subvolume create "$MNT/c" >/dev/null
	echo in-c >"$MNT/c/file"
	umount_img
}

@test "set-default offline: a plain mount shows the default subvolume; get-default agrees" {
	populate
	run_volctl --image "$IMG" subvolume set-default /c
	assert_status 0
	run btrfs check --readonly "$IMG"
	assert_status 0
	mount_img
	[ "$(cat "$MNT/file")" = in-c ]
	run btrfs subvolume get-default "$MNT"
	assert_status 0
	assert_output_contains "ID 258 "
	assert_output_contains "path c"
	umount_img
	run_volctl --image "$IMG" subvolume set-default 0 /
	assert_status 0
	mount_img
	[ -d "$MNT/a" ]
	[ -d "$MNT/c" ]
	run btrfs subvolume get-default "$MNT"
	assert_output_contains "ID 5 (FS_TREE)"
	umount_img
}

@test "quota enable offline: the kernel's rescan finds the same numbers" {
	populate
	run_volctl --image "$IMG" quota enable /
	assert_status 0
	run btrfs check --readonly "$IMG"
	assert_status 0
	mount_img
	local ours theirs
	ours=$(progs_numbers "$MNT")
	[ "$(kernel_inconsistent)" = 0 ]
	[ "$(awk '$1 == "0/257" {print $3}' <<<"$ours")" -lt \
	  "$(awk '$1 == "0/257" {print $2}' <<<"$ours")" ]
	kernel_rescan "$MNT"
	theirs=$(progs_numbers "$MNT")
	[ "$ours" = "$theirs" ] || { diff <(echo "$ours") <(echo "$theirs") >&2; return 1; }
	umount_img
}

@test "qgroups offline: hierarchy, engine-computed parents and limits match the kernel" {
	populate
	run_volctl --image "$IMG" quota enable /
	for cmd in "qgroup create 1/1 /" "qgroup create 1/2 /" "qgroup create 2/1 /" \
		"qgroup assign 0/256 1/1 /" "qgroup assign 0/257 1/1 /" \
		"qgroup assign /c 1/2 /" "qgroup assign 1/1 2/1 /" "qgroup assign 1/2 2/1 /" \
		"qgroup limit 100M /a /" "qgroup limit -e 50M 1/1 /" "qgroup limit 1G 2/1 /"; do
		# shellcheck disable=SC2086
		run_volctl --image "$IMG" $cmd
		[ "$status" -eq 0 ] || { echo "$cmd: $output" >&2; return 1; }
	done
	run btrfs check --readonly "$IMG"
	assert_status 0
	mount_img
	local ours theirs
	ours=$(progs_numbers "$MNT")
	[ "$(kernel_inconsistent)" = 0 ]
	grep -q "^0/256 [0-9]* [0-9]* 104857600 none" <<<"$ours"
	grep -q "^1/1 [0-9]* [0-9]* none 52428800" <<<"$ours"
	grep -q "^2/1 [0-9]* [0-9]* 1073741824 none" <<<"$ours"
	kernel_rescan "$MNT"
	theirs=$(progs_numbers "$MNT")
	[ "$ours" = "$theirs" ] || { diff <(echo "$ours") <(echo "$theirs") >&2; return 1; }
	run btrfs qgroup show -pc "$MNT"
	assert_output_contains "0/256,0/257"
	umount_img
	# remove one member of 1/1 offline: recomputed, the kernel agrees again
	run_volctl --image "$IMG" qgroup remove 0/257 1/1 /
	assert_status 0
	mount_img
	ours=$(progs_numbers "$MNT")
	kernel_rescan "$MNT"
	theirs=$(progs_numbers "$MNT")
	[ "$ours" = "$theirs" ] || { diff <(echo "$ours") <(echo "$theirs") >&2; return 1; }
	umount_img
}

@test "quota rescan offline clears the kernel's INCONSISTENT with its numbers; disable offline" {
	populate
	mount_img
	btrfs quota enable "$MNT"
	kernel_rescan "$MNT"
	# a snapshot with shared extents joins a group: the kernel gives up
	btrfs qgroup create 1/1 "$MNT"
	btrfs qgroup assign --no-rescan 0/257 1/1 "$MNT" >/dev/null 2>&1 || true
	[ "$(kernel_inconsistent)" = 1 ]
	umount_img
	run btrfs inspect-internal dump-tree -t 8 "$IMG"
	assert_output_contains "INCONSISTENT"
	run_volctl --image "$IMG" quota rescan -w /
	assert_status 0
	run btrfs inspect-internal dump-tree -t 8 "$IMG"
	[[ "$output" != *"INCONSISTENT"* ]]
	run btrfs check --readonly "$IMG"
	assert_status 0
	mount_img
	[ "$(kernel_inconsistent)" = 0 ]
	local ours theirs
	ours=$(progs_numbers "$MNT")
	kernel_rescan "$MNT"
	theirs=$(progs_numbers "$MNT")
	[ "$ours" = "$theirs" ] || { diff <(echo "$ours") <(echo "$theirs") >&2; return 1; }
	umount_img
	run_volctl --image "$IMG" quota disable /
	assert_status 0
	run btrfs check --readonly "$IMG"
	assert_status 0
	mount_img
	run btrfs qgroup show "$MNT"
	[ "$status" -ne 0 ]
	echo x >"$MNT/c/new"
	umount_img
	run btrfs check --readonly "$IMG"
	assert_status 0
}

@test "subvolume create under a limited parent: offline refuses where the kernel refuses" {
	mount_img
	btrfs quota enable "$MNT"
	btrfs subvolume create "$MNT/a" >/dev/null
	kernel_rescan "$MNT"
	btrfs qgroup limit 48K 0/256 "$MNT"
	run btrfs subvolume create "$MNT/a/k"
	[ "$status" -ne 0 ]
	assert_output_contains "Disk quota exceeded"
	umount_img
	run_volctl --image "$IMG" subvolume create /a/x
	assert_status 1
	assert_output_contains "error: /a/x: Disk quota exceeded: qgroup 0/256 limit referenced 48.00KiB"
	run_volctl --image "$IMG" qgroup limit 64K 0/256 /
	assert_status 0
	run_volctl --image "$IMG" subvolume create /a/x
	assert_status 0
	mount_img
	run btrfs subvolume create "$MNT/a/k"
	assert_status 0
	[ -d "$MNT/a/x" ]
	umount_img
	run btrfs check --readonly "$IMG"
	assert_status 0
}
