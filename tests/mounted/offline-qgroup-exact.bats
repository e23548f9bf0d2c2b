#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Offline writes keep qgroup numbers exact: on kernel-made images with
# snapshots, every offline write that copies blocks shared with a
# snapshot leaves the quota tree consistent, volctl check and btrfs check
# clean, and numbers the kernel's own rescan agrees with, for every
# qgroup.  Limits refuse writes before anything is written;
# check --repair-qgroups and qgroup clear-stale work offline as the kernel.

load ../helpers

setup() {
	require_root_loop
	IMG="$BATS_TEST_TMPDIR/fs.img"
	MNT="$BATS_TEST_TMPDIR/mnt"
	mkdir -p "$MNT"
	truncate -s 512M "$IMG"
	mkfs.btrfs -q -f -n 4096 "$IMG" >/dev/null
	# mkfs 6.2's stale free space tree entries, which check reports (helpers.bash)
	"$VOLCTL" check --repair-free-space "$IMG" >/dev/null
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

# "id rfer excl max_rfer max_excl" per qgroup
progs_numbers() {
	btrfs qgroup show --raw -re "$1" | awk 'NR > 2 {print $1, $2, $3, $4, $5}'
}

kernel_inconsistent() {
	cat "/sys/fs/btrfs/$(blkid -s UUID -o value "$IMG")/qgroups/inconsistent"
}

# A kernel-made image: quotas, a 3-level hierarchy, subvolume a with files,
# a snapshot s of a that diverged, a snapshot of the top level, and c
populate() {
	mount_img
	btrfs quota enable "$MNT"
	btrfs subvolume create "$MNT/a" >/dev/null
	mkdir "$MNT/a/d"
	for i in $(seq 1 60); do
		head -c 30000 /dev/urandom >"$MNT/a/d/f$i"
	done
	head -c 1M /dev/urandom >"$MNT/a/big"
	btrfs subvolume snapshot "$MNT/a" "$MNT/s" >/dev/null
	rm "$MNT/s/d/f1" "$MNT/s/d/f2"
	echo more >>"$MNT/s/d/f3"
	btrfs subvolume create "$MNT/c" >/dev/null
	echo in-c >"$MNT/c/file"
	for i in $(seq 1 40); do
		head -c 5000 /dev/urandom >"$MNT/top$i"
	done
	btrfs subvolume snapshot "$MNT" "$MNT/snap5" >/dev/null
	btrfs qgroup create 1/1 "$MNT"
	btrfs qgroup create 1/2 "$MNT"
	btrfs qgroup create 2/1 "$MNT"
	btrfs qgroup assign --no-rescan 0/256 1/1 "$MNT"
	btrfs qgroup assign --no-rescan 0/257 1/1 "$MNT"
	btrfs qgroup assign --no-rescan 0/258 1/2 "$MNT"
	btrfs qgroup assign --no-rescan 1/1 2/1 "$MNT"
	btrfs qgroup assign --no-rescan 1/2 2/1 "$MNT"
	kernel_rescan "$MNT"
	umount_img
}

# Quota tree consistent, volctl check and btrfs check clean
offline_clean() {
	run btrfs inspect-internal dump-tree -t 8 "$IMG"
	assert_status 0
	if [[ "$output" == *INCONSISTENT* ]]; then
		echo "quota tree left INCONSISTENT" >&2
		return 1
	fi
	run_volctl check "$IMG"
	assert_status 0
	run btrfs check --readonly "$IMG"
	assert_status 0
}

# What volctl wrote (read by the kernel) equals the kernel's rescan, every qgroup
kernel_agrees() {
	local ours theirs
	mount_img
	ours=$(progs_numbers "$MNT")
	[ "$(kernel_inconsistent)" = 0 ]
	kernel_rescan "$MNT"
	theirs=$(progs_numbers "$MNT")
	umount_img
	[ "$ours" = "$theirs" ] || { diff <(echo "$ours") <(echo "$theirs") >&2; return 1; }
}

@test "offline writes over blocks shared with snapshots: numbers exact, the kernel agrees" {
	populate
	local cmd
	for cmd in "subvolume create /a/x" "subvolume create /a/d/y" "subvolume create /z" \
		"subvolume snapshot /a /a/s2" "subvolume snapshot -i 1/2 /s /s3" \
		"subvolume snapshot -r /snap5 /snap5/r" "subvolume create -i 1/1 /snap5/w" \
		"subvolume set-default /s"; do
		# shellcheck disable=SC2086
		run_volctl --image "$IMG" $cmd
		[ "$status" -eq 0 ] || { echo "$cmd: $output" >&2; return 1; }
		offline_clean
		kernel_agrees
	done
}

@test "offline delete over shared blocks: numbers exact until the kernel's cleaner runs" {
	populate
	run_volctl --image "$IMG" subvolume create /a/x
	assert_status 0
	run_volctl --image "$IMG" subvolume delete /a/x
	assert_status 0
	offline_clean
	run_volctl --image "$IMG" subvolume delete /snap5
	assert_status 0
	offline_clean
	# read-only: the cleaner does not run, so these are the numbers volctl wrote
	local ours theirs
	mount_img -o ro
	[ "$(kernel_inconsistent)" = 0 ]
	ours=$(progs_numbers "$MNT")
	umount_img
	mount_img
	wait_cleaned "$MNT" >/dev/null
	kernel_rescan "$MNT"
	theirs=$(progs_numbers "$MNT")
	umount_img
	# the dropped trees' groups go (or empty); nothing else shared with them
	# except 0/5 with /snap5, whose drop makes 0/5's blocks exclusive again
	ours=$(grep -v -e '^0/259 ' -e '^0/260 ' -e '^0/5 ' <<<"$ours")
	theirs=$(grep -v -e '^0/259 ' -e '^0/260 ' -e '^0/5 ' <<<"$theirs")
	[ "$ours" = "$theirs" ] || { diff <(echo "$ours") <(echo "$theirs") >&2; return 1; }
	run_volctl check "$IMG"
	assert_status 0
}

@test "check --repair-qgroups: altered numbers rewritten, the kernel agrees; mounted images refused" {
	populate
	local corrupt="$BATS_TEST_DIRNAME/../fixtures/corrupt.py"
	python3 "$corrupt" "$IMG" qgroup 0/256=-8192 1/1=4096 2/1=1048576 0/259=-4096
	python3 "$corrupt" "$IMG" qstatus 4
	local before
	before=$(sha256sum <"$IMG")
	mount_img -o ro		# read-only: the kernel writes nothing either
	run_volctl check --repair-qgroups "$IMG"
	assert_status 1
	assert_output_contains "$IMG: loop device $LOOPDEV is mounted on $MNT"
	umount_img
	[ "$(sha256sum <"$IMG")" = "$before" ]
	run_volctl check --repair-qgroups "$IMG"
	assert_status 0
	assert_output_contains "qgroups: 4 of"
	assert_output_contains "inconsistent flag cleared"
	offline_clean
	kernel_agrees
}

@test "qgroup clear-stale offline does what the kernel does, on a copy" {
	populate
	local corrupt="$BATS_TEST_DIRNAME/../fixtures/corrupt.py"
	# two stale groups: the keys of 0/259 (no parents) and 0/258 (in 1/2) renamed
	# past every live subvolume, in an order that keeps the quota keys sorted
	python3 "$corrupt" "$IMG" qrename 0/259 0/300
	python3 "$corrupt" "$IMG" qrename 0/258 0/290
	mount_img
	kernel_rescan "$MNT"
	umount_img
	local copy="$BATS_TEST_TMPDIR/copy.img" ours theirs
	cp "$IMG" "$copy"
	run_volctl --image "$copy" qgroup show /
	assert_output_contains "0/290 "
	assert_output_contains "<stale>"
	run_volctl --image "$copy" qgroup clear-stale /
	assert_status 0
	ours=$output
	[ "$(grep -c '^Delete stale qgroup' <<<"$ours")" -eq 2 ]
	mount_img
	run_volctl qgroup clear-stale "$MNT"
	assert_status 0
	theirs=$output
	umount_img
	[ "$ours" = "$theirs" ] || { diff <(echo "$ours") <(echo "$theirs") >&2; return 1; }
	ours=$("$VOLCTL" --image "$copy" qgroup show -pc --raw /)
	theirs=$("$VOLCTL" --image "$IMG" qgroup show -pc --raw /)
	[ "$ours" = "$theirs" ] || { diff <(echo "$ours") <(echo "$theirs") >&2; return 1; }
	[[ "$ours" != *"0/290"* && "$ours" != *"0/300"* ]]
	run_volctl --image "$copy" qgroup clear-stale /
	assert_status 0
	[ "$output" = "No stale qgroups" ]
	IMG=$copy
	offline_clean
	kernel_agrees
}

@test "snapshot into a parent near its limit: offline refuses exactly where the kernel refuses" {
	mount_img
	btrfs quota enable "$MNT"
	btrfs subvolume create "$MNT/a" >/dev/null
	head -c 100000 /dev/urandom >"$MNT/a/f"
	kernel_rescan "$MNT"
	local rfer copy="$BATS_TEST_TMPDIR/copy.img" before
	rfer=$(btrfs qgroup show --raw "$MNT" | awk '$1 == "0/5" {print $2}')
	# the kernel reserves 3 tree blocks in the parent's groups for a snapshot
	btrfs qgroup limit $((rfer + 8192)) 0/5 "$MNT"
	umount_img
	cp "$IMG" "$copy"
	before=$(sha256sum <"$copy")
	run_volctl --image "$copy" subvolume snapshot /a /s
	assert_status 1
	[[ "$output" == "error: /s: Disk quota exceeded: qgroup 0/5 limit referenced "*" (used "*", over by 4096 bytes); raise it with: volctl --image $copy qgroup limit <size>|none 0/5 /" ]]
	[ "$(sha256sum <"$copy")" = "$before" ]
	mount_img
	run btrfs subvolume snapshot "$MNT/a" "$MNT/s"
	[ "$status" -ne 0 ]
	assert_output_contains "Disk quota exceeded"
	btrfs qgroup limit $((rfer + 12288)) 0/5 "$MNT"
	umount_img
	cp "$IMG" "$copy"
	run_volctl --image "$copy" subvolume snapshot /a /s
	assert_status 0
	IMG=$copy offline_clean
	mount_img
	run btrfs subvolume snapshot "$MNT/a" "$MNT/s"
	assert_status 0
	umount_img
}

@test "create and snapshot -i into a full group: the kernel lets them through, offline refuses" {
	mount_img
	btrfs quota enable "$MNT"
	btrfs subvolume create "$MNT/src" >/dev/null
	btrfs qgroup create 1/1 "$MNT"
	btrfs qgroup limit 1 1/1 "$MNT"
	kernel_rescan "$MNT"
	umount_img
	local copy="$BATS_TEST_TMPDIR/copy.img" before
	cp "$IMG" "$copy"
	before=$(sha256sum <"$copy")
	run_volctl --image "$copy" subvolume create -i 1/1 /z
	assert_status 1
	[ "$output" = "error: /z: Disk quota exceeded: qgroup 1/1 limit referenced 1.00B (used 0.00B, over by 4095 bytes); raise it with: volctl --image $copy qgroup limit <size>|none 1/1 /" ]
	run_volctl --image "$copy" subvolume snapshot -i 1/1 /src /sn
	assert_status 1
	assert_output_contains "error: /sn: Disk quota exceeded: qgroup 1/1 limit referenced 1.00B"
	[ "$(sha256sum <"$copy")" = "$before" ]
	# the kernel checks only the parent's groups (documented difference)
	mount_img
	run btrfs subvolume create -i 1/1 "$MNT/z"
	assert_status 0
	umount_img
	# with room for exactly one leaf, offline lets the create through too
	run_volctl --image "$copy" qgroup limit 4096 1/1 /
	assert_status 0
	run_volctl --image "$copy" subvolume create -i 1/1 /z
	assert_status 0
	IMG=$copy offline_clean
	IMG=$copy kernel_agrees
}
