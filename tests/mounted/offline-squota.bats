#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Simple quotas (squota) offline, checked against kernel 6.18: enable
# writes the quota tree the kernel writes; create, snapshot, delete,
# set-default and qgroup changes charge tree blocks to their owner as the
# kernel does; disable leaves what the kernel leaves.  Debian's btrfs-progs
# 6.2 cannot open squota images (incompat 0x10000 unknown to it), so the
# oracles are the kernel (mount, its own later accounting, no errors in the
# log) and `volctl check`, whose simple-quota numbers are the owner rule.

load ../helpers
load ../fixtures/fixture-helpers

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
	local img=${IMG_ON:-$IMG}
	LOOPDEV=$(losetup -f --show "$img")
	USED_DEVS="${USED_DEVS:+$USED_DEVS|}${LOOPDEV#/dev/}"
	mount "$LOOPDEV" "$MNT" "$@"
}

umount_img() {
	umount "$MNT"
	losetup -d "$LOOPDEV"
	LOOPDEV=
}

# a kernel-made image: subvolumes, nested, files, a snapshot (no quotas)
populate() {
	truncate -s 384M "$IMG"
	mkfs.btrfs -q -f -n 4096 "$IMG" >/dev/null
	# mkfs 6.2's stale free space tree entries, which check reports (helpers.bash)
	"$VOLCTL" check --repair-free-space "$IMG" >/dev/null
	mount_img
	btrfs subvolume create "$MNT/a" >/dev/null
	btrfs subvolume create "$MNT/a/b" >/dev/null
	head -c 512K /dev/urandom >"$MNT/a/f"
	head -c 128K /dev/urandom >"$MNT/top"
	for i in $(seq 1 150); do echo "$i" >"$MNT/a/b/file$i"; done
	btrfs subvolume snapshot "$MNT/a" "$MNT/snap" >/dev/null
	umount_img
}

# the same image with simple quotas enabled by the kernel and data
# written after that (extents with EXTENT_OWNER_REF, charged blocks)
populate_squota() {
	populate
	mount_img
	"$VOLCTL" quota enable --simple "$MNT"
	head -c 256K /dev/urandom >"$MNT/a/g"
	head -c 64K /dev/urandom >"$MNT/snap/h"
	btrfs subvolume create "$MNT/c" >/dev/null
	echo small >"$MNT/c/s"
	umount_img
}

# the quota tree without what differs by design (checksums, fsid, offsets)
quota_tree() {
	"$VOLCTL" inspect tree -t quota "$1" |
		grep -vE '^ *(leaf|csum|fsid|chunk_tree_uuid|free_space) |itemoff'
}

super_line() {
	"$VOLCTL" inspect super "$2" | grep -E "^  $1 "
}

# "id rfer excl" of every qgroup, offline
offline_numbers() {
	"$VOLCTL" --image "$1" qgroup show --raw / | awk 'NR > 2 {print $1, $2, $3}'
}

# the same, from the kernel (online volctl: Debian's btrfs 6.2 has no squota)
kernel_numbers() {
	"$VOLCTL" qgroup show --raw "$1" | awk 'NR > 2 {print $1, $2, $3}'
}

qg() {
	awk -v id="$2" '$1 == id {print $2, $3}' <<<"$1"
}

assert_check_clean() {
	run_volctl check --qgroup-report "$1"
	assert_status 0
	assert_output_contains "all consistent"
}

# no btrfs error, warning or tree-checker complaint about the loop devices
# this test used (other developers' tests log on the same machine) since mark $1
assert_kernel_quiet() {
	local log
	dmesg | grep -q "$1" || { echo "kernel log mark $1 not found" >&2; return 1; }
	log=$(dmesg | awk -v m="$1" 'index($0, m) {on = 1; next} on' |
		grep -E "device ($USED_DEVS)[):]" || true)
	if grep -E 'BTRFS (error|critical|warning)|corrupt|write time tree block' <<<"$log"; then
		return 1
	fi
}

kernel_mark() {
	local m="volctl-squota-test-$$-$RANDOM"
	echo "$m" >/dev/kmsg
	echo "$m"
}

@test "squota enable offline writes the quota tree kernel 6.18 writes on the same image" {
	populate
	cp "$IMG" "$BATS_TEST_TMPDIR/k.img"
	IMG_ON="$BATS_TEST_TMPDIR/k.img" mount_img
	run_volctl quota enable --simple "$MNT"
	assert_status 0
	umount_img
	run_volctl --image "$IMG" quota enable --simple /
	assert_status 0
	# STATUS {ON|SIMPLE_MODE, enable_gen T + 1}, zero INFO and LIMIT per subvolume
	diff <(quota_tree "$BATS_TEST_TMPDIR/k.img") <(quota_tree "$IMG")
	quota_tree "$IMG" | grep -q 'flags 0x9 (ON|SIMPLE_MODE)'
	[ "$(quota_tree "$IMG" | awk '/enable_gen/ {print $2}')" = \
	  $(($(super_line generation "$IMG" | awk '{print $2}') + 1)) ]
	[ "$(super_line incompat_flags "$IMG")" = "$(super_line incompat_flags "$BATS_TEST_TMPDIR/k.img")" ]
	super_line incompat_flags "$IMG" | grep -q simple-quota
	[ "$(super_line generation "$IMG")" = "$(super_line generation "$BATS_TEST_TMPDIR/k.img")" ]
	assert_check_clean "$IMG"
	[ "$(offline_numbers "$IMG" | awk '$2 != 0 || $3 != 0' | wc -l)" -eq 0 ]
}

@test "squota enable offline: the kernel mounts, shows it, and charges later writes" {
	populate
	run_volctl --image "$IMG" quota enable --simple /
	assert_status 0
	local m before
	m=$(kernel_mark)
	before=$(offline_numbers "$IMG")
	mount_img -o ro
	[ "$(kernel_numbers "$MNT")" = "$before" ]
	run_volctl quota status "$MNT"
	assert_output_contains "squota (simplified accounting)"
	assert_output_contains "Inconsistent:            no"
	umount_img
	mount_img
	head -c 300K /dev/urandom >"$MNT/a/new"
	btrfs subvolume create "$MNT/d" >/dev/null
	head -c 64K /dev/urandom >"$MNT/d/x"
	sync -f "$MNT"
	umount_img
	assert_check_clean "$IMG"
	# 0/256 now holds at least the new data extent (older extents count nothing)
	local n
	n=$(offline_numbers "$IMG")
	[ "$(qg "$n" 0/256 | awk '{print $1}')" -ge 307200 ]
	[ "$(qg "$n" 0/258 | awk '{print $1}')" -eq 0 ]
	assert_kernel_quiet "$m"
}

# "KEY-OF-EXTENT" lines of every extent item holding an EXTENT_OWNER_REF
owner_refs() {
	"$VOLCTL" inspect tree -t extent "$1" |
		awk '/ key \(/ {k = $4 " " $5} /EXTENT_OWNER_REF/ {print k}'
}

@test "squota offline writes: blocks charged to their owner, check clean, kernel agrees and keeps counting" {
	populate_squota
	local m n refs
	m=$(kernel_mark)
	# the kernel puts owner refs on data extents only, and volctl keeps them
	refs=$(owner_refs "$IMG")
	[ -n "$refs" ]
	run ! grep -q METADATA_ITEM <<<"$refs"
	run_volctl --image "$IMG" subvolume create /new1
	assert_status 0
	assert_check_clean "$IMG"
	n=$(offline_numbers "$IMG")
	# a new subvolume: its own leaf, nothing else
	[ "$(qg "$n" 0/260)" = "4096 4096" ]
	run_volctl --image "$IMG" subvolume snapshot /a /snapA
	assert_status 0
	run_volctl --image "$IMG" subvolume snapshot -r /c /c-ro
	assert_status 0
	run_volctl --image "$IMG" subvolume create /a/inner
	assert_status 0
	assert_check_clean "$IMG"
	n=$(offline_numbers "$IMG")
	# a snapshot starts empty and is charged for its root copy only
	[ "$(qg "$n" 0/261)" = "4096 4096" ]
	[ "$(qg "$n" 0/262)" = "4096 4096" ]
	run_volctl --image "$IMG" subvolume set-default /new1
	assert_status 0
	run_volctl --image "$IMG" subvolume delete /c
	assert_status 0
	assert_check_clean "$IMG"
	[ "$(owner_refs "$IMG")" = "$refs" ]
	# the same state through the kernel's eyes
	n=$(offline_numbers "$IMG")
	mount_img -o ro,subvolid=5
	[ "$(kernel_numbers "$MNT")" = "$n" ]
	umount_img
	# the kernel writes, snapshots, deletes and cleans; its numbers stay exact
	mount_img -o subvolid=5
	head -c 192K /dev/urandom >"$MNT/new1/x"
	head -c 128K /dev/urandom >"$MNT/a/inner/y"
	btrfs subvolume snapshot "$MNT/new1" "$MNT/n1s" >/dev/null
	echo diverge >"$MNT/n1s/z"
	btrfs subvolume delete "$MNT/snapA" >/dev/null
	# the drop's last transaction is not committed when subvolume sync
	# returns, and the quota items are written at commit: sync after it
	wait_cleaned "$MNT" >/dev/null
	sync -f "$MNT"
	n=$(kernel_numbers "$MNT")
	[ "$(qg "$n" 0/260 | awk '{print $1}')" -ge 196608 ]
	umount_img
	assert_check_clean "$IMG"
	[ "$(offline_numbers "$IMG")" = "$n" ]
	assert_kernel_quiet "$m"
}

# ID of subvolume path $1 in $IMG (offline list), empty if none
subvol_id() {
	"$VOLCTL" --image "$IMG" subvolume list / | awk -v p="$1" '$NF == p {print $2}'
}

@test "squota offline drop: freed data back to its owner ref, 0/id kept while charged, the same numbers as the kernel's drop" {
	populate_squota
	local m n kn ka
	# A (260): files, a leaf level of its own; B (261) a snapshot of A with
	# its own files.  Then: data only A holds (freed: A uncharged), data
	# only B still holds (stays), and data owned by B that only A holds
	# (a reflink: freed, charged back to B, not to A)
	mount_img -o subvolid=5
	btrfs subvolume create "$MNT/A" >/dev/null
	head -c 256K /dev/urandom >"$MNT/A/f1"
	head -c 128K /dev/urandom >"$MNT/A/f2"
	for i in $(seq 1 150); do echo "$i" >"$MNT/A/file$i"; done
	btrfs subvolume snapshot "$MNT/A" "$MNT/B" >/dev/null
	head -c 96K /dev/urandom >"$MNT/B/own"
	head -c 160K /dev/urandom >"$MNT/A/only"
	rm "$MNT/A/f2"
	head -c 64K /dev/urandom >"$MNT/B/lent"
	cp --reflink=always "$MNT/B/lent" "$MNT/A/lent"
	rm "$MNT/B/lent"
	for i in $(seq 151 200); do echo "$i" >"$MNT/A/file$i"; done
	sync -f "$MNT"
	umount_img
	[ "$(subvol_id A)" = 260 ]
	[ "$(subvol_id B)" = 261 ]
	# the kernel's drop on a copy
	cp "$IMG" "$BATS_TEST_TMPDIR/k.img"
	IMG_ON="$BATS_TEST_TMPDIR/k.img" mount_img -o subvolid=5
	btrfs subvolume delete "$MNT/A" >/dev/null
	wait_cleaned "$MNT" >/dev/null
	sync -f "$MNT"
	kn=$(kernel_numbers "$MNT")
	umount_img
	# ours
	run_volctl --image "$IMG" subvolume delete /A
	assert_status 0
	assert_check_clean "$IMG"
	n=$(offline_numbers "$IMG")
	[ "$n" = "$kn" ]
	# A's blocks and f1 live on in B: 0/260 keeps its charge, as in the kernel
	ka=$(qg "$n" 0/260)
	[ -n "$ka" ]
	[ "$ka" != "0 0" ]
	[ -z "$(subvol_id A)" ]
	# the kernel mounts our image, shows the same and keeps counting
	m=$(kernel_mark)
	mount_img -o ro,subvolid=5
	[ "$(kernel_numbers "$MNT")" = "$n" ]
	umount_img
	mount_img -o subvolid=5
	head -c 64K /dev/urandom >"$MNT/B/more"
	rm "$MNT/B/f1"
	btrfs subvolume delete "$MNT/B" >/dev/null
	wait_cleaned "$MNT" >/dev/null
	sync -f "$MNT"
	kn=$(kernel_numbers "$MNT")
	umount_img
	assert_check_clean "$IMG"
	[ "$(offline_numbers "$IMG")" = "$kn" ]
	assert_kernel_quiet "$m"
}

@test "squota qgroup create/assign/limit/remove/destroy: the same numbers as the kernel" {
	populate_squota
	cp "$IMG" "$BATS_TEST_TMPDIR/k.img"
	local ops=(
		"qgroup create 1/1" "qgroup create 1/2" "qgroup create 2/1"
		"qgroup assign 0/256 1/1" "qgroup assign 0/258 1/1" "qgroup assign 0/259 1/2"
		"qgroup assign 1/1 2/1" "qgroup assign 1/2 2/1" "qgroup limit 100M 1/1"
		"qgroup remove 0/258 1/1" "qgroup create 1/3" "qgroup destroy 1/3"
	)
	local op
	IMG_ON="$BATS_TEST_TMPDIR/k.img" mount_img
	for op in "${ops[@]}"; do
		# shellcheck disable=SC2086
		"$VOLCTL" $op "$MNT"
	done
	sync -f "$MNT"
	umount_img
	for op in "${ops[@]}"; do
		# shellcheck disable=SC2086
		run_volctl --image "$IMG" $op /
		assert_status 0
	done
	local n
	n=$(offline_numbers "$IMG")
	[ "$n" = "$(offline_numbers "$BATS_TEST_TMPDIR/k.img")" ]
	# a parent holds the sum of its children
	local a b
	a=$(qg "$n" 0/256 | awk '{print $1}')
	b=$(qg "$n" 0/259 | awk '{print $1}')
	[ "$a" -gt 0 ]
	[ "$b" -gt 0 ]
	[ "$(qg "$n" 1/1)" = "$a $a" ]
	[ "$(qg "$n" 2/1)" = "$((a + b)) $((a + b))" ]
	assert_check_clean "$IMG"
	run_volctl --image "$IMG" qgroup show -re --raw /
	assert_output_contains "104857600"
	# the kernel mounts it and keeps charging the hierarchy
	local m
	m=$(kernel_mark)
	mount_img
	head -c 100K /dev/urandom >"$MNT/a/more"
	sync -f "$MNT"
	umount_img
	assert_check_clean "$IMG"
	n=$(offline_numbers "$IMG")
	[ "$(qg "$n" 2/1 | awk '{print $1}')" -eq \
	  $(( $(qg "$n" 0/256 | awk '{print $1}') + $(qg "$n" 0/259 | awk '{print $1}') )) ]
	assert_kernel_quiet "$m"
}

@test "squota relation into a diamond: each subvolume counts once (the kernel's quick path counts twice)" {
	populate_squota
	local op
	for op in "qgroup create 1/1" "qgroup create 1/2" "qgroup create 2/1" \
		  "qgroup assign 0/256 1/1" "qgroup assign 1/1 2/1" "qgroup assign 1/2 2/1" \
		  "qgroup assign 0/256 1/2"; do
		# shellcheck disable=SC2086
		run_volctl --image "$IMG" $op /
		assert_status 0
	done
	local n a
	n=$(offline_numbers "$IMG")
	a=$(qg "$n" 0/256 | awk '{print $1}')
	[ "$a" -gt 0 ]
	[ "$(qg "$n" 1/2)" = "$a $a" ]
	[ "$(qg "$n" 2/1)" = "$a $a" ]
	assert_check_clean "$IMG"
	# the kernel's later charges reach 2/1 once, so it stays exact
	mount_img
	head -c 64K /dev/urandom >"$MNT/a/d"
	sync -f "$MNT"
	umount_img
	assert_check_clean "$IMG"
	# removing one path keeps 0/256 below 2/1
	run_volctl --image "$IMG" qgroup remove 0/256 1/1 /
	assert_status 0
	n=$(offline_numbers "$IMG")
	[ "$(qg "$n" 1/1)" = "0 0" ]
	[ "$(qg "$n" 2/1)" = "$(qg "$n" 0/256)" ]
	assert_check_clean "$IMG"
}

@test "squota disable offline: quota tree gone, SIMPLE_QUOTA kept, as the kernel; enable again" {
	populate_squota
	cp "$IMG" "$BATS_TEST_TMPDIR/k.img"
	IMG_ON="$BATS_TEST_TMPDIR/k.img" mount_img
	run_volctl quota disable "$MNT"
	assert_status 0
	umount_img
	run_volctl --image "$IMG" quota disable /
	assert_status 0
	[ "$(super_line incompat_flags "$IMG")" = "$(super_line incompat_flags "$BATS_TEST_TMPDIR/k.img")" ]
	super_line incompat_flags "$IMG" | grep -q simple-quota
	run_volctl inspect tree -t quota "$IMG"
	assert_status 1
	run_volctl --image "$IMG" quota status /
	assert_output_contains "Enabled: no"
	local m
	m=$(kernel_mark)
	mount_img
	head -c 64K /dev/urandom >"$MNT/a/after"
	btrfs subvolume create "$MNT/e" >/dev/null
	umount_img
	run_volctl check "$IMG"
	assert_status 0
	# enable again: old extents (owner refs included) count nothing
	run_volctl --image "$IMG" quota enable --simple /
	assert_status 0
	[ "$(offline_numbers "$IMG" | awk '$2 != 0' | wc -l)" -eq 0 ]
	assert_check_clean "$IMG"
	mount_img
	head -c 64K /dev/urandom >"$MNT/e/f"
	umount_img
	assert_check_clean "$IMG"
	assert_kernel_quiet "$m"
}

@test "squota4k fixture: offline writes, check clean, the kernel shows the same and keeps counting" {
	fixture squota4k
	local m n
	run_volctl --image "$IMG" subvolume create /fresh
	assert_status 0
	run_volctl --image "$IMG" subvolume snapshot /snap-a /snap-a-again
	assert_status 0
	run_volctl --image "$IMG" subvolume snapshot -r /a/dir/nested /nested-ro
	assert_status 0
	run_volctl --image "$IMG" qgroup create 1/7 /
	assert_status 0
	run_volctl --image "$IMG" qgroup assign 0/5 1/7 /
	assert_status 0
	assert_check_clean "$IMG"
	n=$(offline_numbers "$IMG")
	[ "$(qg "$n" 1/7)" = "$(qg "$n" 0/5)" ]
	m=$(kernel_mark)
	mount_img -o ro,subvolid=5
	[ "$(kernel_numbers "$MNT")" = "$n" ]
	umount_img
	mount_img -o subvolid=5
	head -c 128K /dev/urandom >"$MNT/fresh/data"
	head -c 16K /dev/urandom >"$MNT/top-file"
	echo changed >>"$MNT/snap-a-again/f1" 2>/dev/null || echo new >"$MNT/snap-a-again/f1"
	sync -f "$MNT"
	wait_cleaned "$MNT" >/dev/null
	umount_img
	assert_check_clean "$IMG"
	n=$(offline_numbers "$IMG")
	[ "$(qg "$n" 1/7)" = "$(qg "$n" 0/5)" ]
	assert_kernel_quiet "$m"
}

@test "squota enable crash loop: every stop leaves quotas off or simple quotas on, never a mix" {
	populate
	cp "$IMG" "$BATS_TEST_TMPDIR/probe.img"
	if VOLCTL_FAIL_AFTER_WRITES=1 "$VOLCTL" --image "$BATS_TEST_TMPDIR/probe.img" \
		quota enable --simple / 2>/dev/null; then
		skip "built without --enable-fault-injection"
	fi
	cp "$IMG" "$BATS_TEST_TMPDIR/pristine.img"
	local n=1 rc olds=0 news=0
	while [ "$n" -lt 100 ]; do
		cp "$BATS_TEST_TMPDIR/pristine.img" "$IMG"
		rc=0
		VOLCTL_FAIL_AFTER_WRITES=$n "$VOLCTL" --image "$IMG" quota enable --simple / \
			>/dev/null 2>&1 || rc=$?
		run_volctl check "$IMG"
		assert_status 0
		if super_line incompat_flags "$IMG" | grep -q simple-quota; then
			run_volctl --image "$IMG" quota status /
			assert_output_contains "squota (simplified accounting)"
			news=$((news + 1))
		else
			run_volctl inspect tree -t quota "$IMG"
			assert_status 1
			olds=$((olds + 1))
		fi
		[ "$rc" -eq 0 ] && break
		[ "$rc" -eq 1 ]
		n=$((n + 1))
	done
	[ "$rc" -eq 0 ]
	[ "$olds" -ge 2 ]
	[ "$news" -ge 1 ]
}

@test "squota4k fixture: offline delete of snapshots and their sources, then sync: the same groups and numbers as the kernel's" {
	fixture squota4k
	local kn
	cp "$IMG" "$BATS_TEST_TMPDIR/k.img"
	# b (260) is deleted while ro-snap shares its blocks, so 0/260 stays;
	# deleting ro-snap then charges b's blocks back to 0/260, which the
	# kernel keeps at 0 0 too (only a drop removes a group); 0/265 is a
	# subvolume the kernel left deleted, dropped by sync
	IMG_ON="$BATS_TEST_TMPDIR/k.img" mount_img -o subvolid=5
	btrfs subvolume delete "$MNT/snap-a" "$MNT/b" "$MNT/snap-snap" "$MNT/ro-snap" >/dev/null
	wait_cleaned "$MNT" >/dev/null
	sync -f "$MNT"
	umount_img
	IMG_ON="$BATS_TEST_TMPDIR/k.img" mount_img -o ro,subvolid=5
	kn=$(kernel_numbers "$MNT")
	umount_img
	run_volctl --image "$IMG" subvolume delete /snap-a /b /snap-snap /ro-snap
	assert_status 0
	run_volctl --image "$IMG" subvolume sync /
	assert_status 0
	assert_check_clean "$IMG"
	[ "$(offline_numbers "$IMG")" = "$kn" ]
	[ "$(qg "$kn" 0/260)" = "0 0" ]
	[ -z "$(qg "$kn" 0/261)" ]
	[ -z "$(qg "$kn" 0/265)" ]
	# squota leaves the compressed numbers alone: the kernel's 0 stays 0
	[ -z "$("$VOLCTL" inspect tree -t quota "$IMG" | awk '/_compressed/ && $2 != 0')" ]
}
