#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Offline writes on multi-device filesystems made by mkfs.btrfs on files:
# every write command on RAID1, RAID1C3 and RAID10 metadata, checked by
# btrfs check on loop devices of all members and by the kernel mounting
# them; refusals (missing, stale, foreign, mounted, locked member, parity
# metadata) leave every member byte-identical; a crash after every device
# write leaves the old or the new state, btrfs-check clean.

load ../helpers

setup() {
	require_root_loop
	D=$BATS_TEST_TMPDIR
	MNT=$D/mnt
	mkdir -p "$MNT"
	LOOPS=()
	FILES=()
}

teardown() {
	if mountpoint -q "$MNT" 2>/dev/null; then
		umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null || true
	fi
	detach_all
}

# mkmulti N SIZE MKFS_OPTS...: members $D/devK.img in FILES, --image list in IMGS
mkmulti() {
	local n=$1 size=$2 i
	shift 2
	FILES=()
	for i in $(seq 1 "$n"); do
		rm -f "$D/dev$i.img"
		truncate -s "$size" "$D/dev$i.img"
		FILES+=("$D/dev$i.img")
	done
	mkfs.btrfs -q -f "$@" "${FILES[@]}" >/dev/null 2>&1
	set_imgs "${FILES[@]}"
}

set_imgs() {
	local f
	IMGS=()
	for f; do IMGS+=(--image "$f"); done
}

vc() {
	"$VOLCTL" "${IMGS[@]}" "$@"
}

sums() {
	sha256sum "${FILES[@]}" | awk '{print $1}'
}

# loop devices for every member, known to the kernel's device list
attach() {
	local f
	LOOPS=()
	for f in "${FILES[@]}"; do LOOPS+=("$(losetup -f --show "$f")"); done
	btrfs device scan "${LOOPS[@]}" >/dev/null
}

detach_all() {
	local l
	if [ "${#LOOPS[@]}" -gt 0 ]; then
		btrfs device scan --forget "${LOOPS[@]}" >/dev/null 2>&1 || true
		for l in "${LOOPS[@]}"; do losetup -d "$l" 2>/dev/null || true; done
	fi
	LOOPS=()
}

# btrfs check --readonly on the member set; prints its output on failure
check_members() {
	local rc=0 out
	attach
	out=$(btrfs check --readonly "${LOOPS[0]}" 2>&1) || rc=$?
	detach_all
	if [ "$rc" -ne 0 ]; then
		echo "btrfs check failed ($rc):" >&2
		echo "$out" >&2
		return 1
	fi
}

mount_members() {
	local opts=subvolid=5 l
	attach
	for l in "${LOOPS[@]}"; do opts+=",device=$l"; done
	mount -o "$opts" "${LOOPS[0]}" "$MNT"
}

umount_members() {
	umount "$MNT"
	detach_all
}

qg_lines() {
	awk '$1 ~ /^[0-9]+\/[0-9]+$/ {print $1, $2, $3}'
}

# Every write command, then btrfs check and the kernel's view.
every_write_command() {
	local before offline_list kernel_list offline_qg stored rescanned
	before=$(sums)
	vc subvolume create /a /b /c >/dev/null
	vc subvolume snapshot /a /snap >/dev/null
	vc subvolume snapshot -r /b /ro-snap >/dev/null
	vc subvolume set-default 256 / >/dev/null
	vc quota enable / >/dev/null
	vc qgroup create 1/100 / >/dev/null
	vc qgroup create 1/200 / >/dev/null
	vc qgroup assign 0/256 1/100 / >/dev/null
	vc qgroup assign 0/257 1/100 / >/dev/null
	vc qgroup limit 64M 1/100 / >/dev/null
	vc qgroup destroy 1/200 / >/dev/null
	vc subvolume create -i 1/100 /inherits >/dev/null
	vc quota rescan -w / >/dev/null
	[ "$(sums)" != "$before" ]
	check_members

	offline_list=$(vc subvolume list /)
	offline_qg=$(vc qgroup show --raw / | qg_lines)
	[[ "$offline_list" == *"path ro-snap"* ]]
	[[ "$offline_qg" == *"1/100 "* ]]
	mount_members
	kernel_list=$(btrfs subvolume list "$MNT" | sed "s| path $MNT/| path |")
	stored=$(btrfs qgroup show --raw "$MNT" | qg_lines)
	kernel_rescan "$MNT"
	rescanned=$(btrfs qgroup show --raw "$MNT" | qg_lines)
	[ "$(btrfs subvolume get-default "$MNT" | awk '{print $2}')" = 256 ]
	# the kernel writes through the offline-made trees
	dd if=/dev/urandom of="$MNT/a/file" bs=64K count=8 status=none
	sync -f "$MNT"
	umount_members
	diff <(echo "$offline_list") <(echo "$kernel_list")
	diff <(echo "$offline_qg") <(echo "$stored")
	diff <(echo "$offline_qg") <(echo "$rescanned")
	check_members

	# delete, after the kernel wrote: unlinked offline, dropped by the kernel's cleaner
	vc subvolume delete /c >/dev/null
	check_members
	offline_list=$(vc subvolume list /)
	[[ "$offline_list" != *"path c"* ]]
	vc quota disable / >/dev/null
	check_members
	mount_members
	kernel_list=$(btrfs subvolume list "$MNT" | sed "s| path $MNT/| path |")
	[ "$(stat -c %s "$MNT/a/file")" -eq 524288 ]
	run btrfs qgroup show "$MNT"
	[ "$status" -ne 0 ]
	umount_members
	diff <(echo "$offline_list") <(echo "$kernel_list")
	check_members
}

@test "2 devices, RAID1 metadata: every write command, check clean, the kernel agrees" {
	mkmulti 2 256M -m raid1 -d single
	every_write_command
	# both members carry the same generation and their own dev_item
	local g1 g2
	g1=$(btrfs inspect-internal dump-super "${FILES[0]}" | awk '$1 == "generation" {print $2}')
	g2=$(btrfs inspect-internal dump-super "${FILES[1]}" | awk '$1 == "generation" {print $2}')
	[ "$g1" = "$g2" ]
	btrfs inspect-internal dump-super "${FILES[1]}" | grep -Eq '^dev_item.devid[[:space:]]+2$'
}

@test "3 devices, RAID1C3 metadata: every write command, check clean, the kernel agrees" {
	mkmulti 3 256M -m raid1c3 -d single
	every_write_command
}

@test "3 devices, RAID10 metadata and data: every write command, check clean, the kernel agrees" {
	mkmulti 3 256M -m raid10 -d raid10
	attach
	run btrfs inspect-internal dump-tree -t 3 "${LOOPS[0]}"
	detach_all
	assert_output_contains "type METADATA|RAID10"
	every_write_command
}

@test "2 devices, RAID1: offline writes after the kernel wrote; numbers exact" {
	mkmulti 2 512M -m raid1 -d raid1
	mount_members
	btrfs quota enable "$MNT"
	btrfs subvolume create "$MNT/k" >/dev/null
	dd if=/dev/urandom of="$MNT/k/f" bs=1M count=8 status=none
	btrfs subvolume snapshot "$MNT/k" "$MNT/k-snap" >/dev/null
	kernel_rescan "$MNT"
	umount_members
	vc subvolume snapshot -r /k /k-ro >/dev/null
	vc subvolume create /k/inner >/dev/null
	vc qgroup create 1/7 / >/dev/null
	vc qgroup assign 0/256 1/7 / >/dev/null
	vc qgroup assign 0/258 1/7 / >/dev/null
	check_members
	local offline_qg stored rescanned
	offline_qg=$(vc qgroup show --raw / | qg_lines)
	mount_members
	[ "$(stat -c %s "$MNT/k-ro/f")" -eq 8388608 ]
	[ -d "$MNT/k/inner" ]
	stored=$(btrfs qgroup show --raw "$MNT" | qg_lines)
	kernel_rescan "$MNT"
	rescanned=$(btrfs qgroup show --raw "$MNT" | qg_lines)
	umount_members
	diff <(echo "$offline_qg") <(echo "$stored")
	diff <(echo "$offline_qg") <(echo "$rescanned")
	# 1/7 holds k and k-ro, which share the 8 MiB with k-snap: referenced, not exclusive
	[ "$(awk '$1 == "1/7" {print $2}' <<<"$offline_qg")" -gt 8388608 ]
	[ "$(awk '$1 == "1/7" {print $3}' <<<"$offline_qg")" -lt 1048576 ]
	check_members
	# delete a kernel-made snapshot offline; the kernel's cleaner drops it
	vc subvolume delete /k-snap >/dev/null
	check_members
	mount_members
	wait_cleaned "$MNT" >/dev/null
	run btrfs subvolume list "$MNT"
	[[ "$output" != *"k-snap"* ]]
	umount_members
	check_members
}

@test "2 devices, RAID1: 300 subvolumes in one run grow the trees, check clean" {
	mkmulti 2 256M -m raid1 -d raid1
	local names=() i
	for i in $(seq 1 300); do names+=("/subvolume-with-a-long-name-$i"); done
	vc subvolume create "${names[@]}" >/dev/null
	check_members
	mount_members
	[ "$(btrfs subvolume list "$MNT" | wc -l)" -eq 300 ]
	umount_members
}

@test "4 devices, RAID1C4 and RAID0 data: create and snapshot, check clean" {
	mkmulti 4 192M -m raid1c4 -d raid0
	vc subvolume create /a /b >/dev/null
	vc subvolume snapshot /a /s >/dev/null
	check_members
	mount_members
	btrfs subvolume list "$MNT" | grep -q "path s$"
	umount_members
}

@test "refusals: missing, foreign, same file twice; every member untouched" {
	mkmulti 2 256M -m raid1 -d single
	local before
	before=$(sums)
	run "$VOLCTL" --image "${FILES[0]}" subvolume create /x
	assert_status 1
	assert_output_contains "device 2 is missing"
	run "$VOLCTL" --image "${FILES[0]}" --image "${FILES[0]}" subvolume create /x
	assert_status 1
	assert_output_contains "given twice"
	truncate -s 256M "$D/other.img"
	mkfs.btrfs -q -f "$D/other.img" >/dev/null
	run "$VOLCTL" --image "${FILES[0]}" --image "$D/other.img" subvolume create /x
	assert_status 1
	assert_output_contains "another filesystem"
	[ "$(sums)" = "$before" ]
	check_members
}

@test "refusals: a stale member is named, nothing written" {
	mkmulti 2 256M -m raid1 -d single
	cp --sparse=always "${FILES[1]}" "$D/old2.img"
	vc subvolume create /a >/dev/null
	cp --sparse=always "$D/old2.img" "${FILES[1]}"
	local before
	before=$(sums)
	run_volctl "${IMGS[@]}" subvolume create /b
	assert_status 1
	assert_output_contains "${FILES[1]}: device 2 is stale"
	[ "$(sums)" = "$before" ]
	# reading takes the newest member
	run_volctl "${IMGS[@]}" subvolume list /
	assert_status 0
	assert_output_contains "path a"
}

@test "refusals: mounted members, a locked member; every member untouched" {
	mkmulti 2 256M -m raid1 -d single
	local before
	mount_members
	run_volctl "${IMGS[@]}" subvolume create /x
	assert_status 1
	assert_output_contains "mounted"
	run_volctl --image "${LOOPS[0]}" --image "${LOOPS[1]}" subvolume create /x
	assert_status 1
	assert_output_contains "mounted"
	# only the second member's backing file is named: still refused
	run_volctl --image "${FILES[1]}" --image "${FILES[0]}" subvolume create /x
	assert_status 1
	assert_output_contains "${FILES[1]}: loop device ${LOOPS[1]} is a member of the btrfs mounted on"
	umount_members
	before=$(sums)
	# a second volctl holds the second member
	local lockfd
	exec {lockfd}<"${FILES[1]}"
	flock -x "$lockfd"
	run_volctl "${IMGS[@]}" subvolume create /x
	assert_status 1
	assert_output_contains "${FILES[1]}: locked by another process (pid "
	exec {lockfd}<&-
	[ "$(sums)" = "$before" ]
	run_volctl "${IMGS[@]}" subvolume create /x
	assert_status 0
	check_members
}

@test "RAID5/6 metadata is refused (parity); RAID5 data with RAID1 metadata is written" {
	mkmulti 3 192M -m raid5 -d raid5
	local before
	before=$(sums)
	run_volctl "${IMGS[@]}" subvolume create /x
	assert_status 1
	assert_output_contains "raid5: writing not implemented offline (parity)"
	[ "$(sums)" = "$before" ]
	mkmulti 3 192M -m raid1 -d raid5
	run_volctl "${IMGS[@]}" subvolume create /x
	assert_status 0
	check_members
	mount_members
	btrfs subvolume list "$MNT" | grep -q "path x$"
	umount_members
}

@test "loop device members: the others are found with libblkid and written" {
	mkmulti 2 256M -m raid1 -d single
	attach
	run_volctl -v --image "${LOOPS[0]}" subvolume create /found
	assert_status 0
	assert_output_contains "using ${LOOPS[1]}, another device of the filesystem"
	run btrfs check --readonly "${LOOPS[0]}"
	assert_status 0
	# every member given as a loop device
	run_volctl --image "${LOOPS[1]}" --image "${LOOPS[0]}" subvolume create /both
	assert_status 0
	run btrfs check --readonly "${LOOPS[0]}"
	assert_status 0
	detach_all
	run_volctl "${IMGS[@]}" subvolume list /
	assert_output_contains "path found"
	assert_output_contains "path both"
}

@test "refusals: a read-only member, nothing written" {
	mkmulti 2 256M -m raid1 -d single
	local before ro
	before=$(sums)
	ro=$(losetup -r -f --show "${FILES[1]}")
	LOOPS=("$ro")
	run_volctl --image "${FILES[0]}" --image "$ro" subvolume create /x
	detach_all
	assert_status 1
	assert_output_contains "$ro: read-only, cannot write"
	[ "$(sums)" = "$before" ]
}

# state of the member files as the reader sees them: old, new or other
snap_state() {
	local list
	list=$("$VOLCTL" "${IMGS[@]}" subvolume list / 2>&1) || { echo "unreadable: $list"; return; }
	case $list in
	*"path snap"*) [[ $list == *"path a"* ]] && echo new || echo "mixed: $list" ;;
	*"path a"*) echo old ;;
	*) echo "other: $list" ;;
	esac
}

# Members at two generations (a crash between their primary superblocks):
# the writer refuses the older one; the kernel mounts the new state, and
# its next commit levels the members, after which the writer works again.
torn_member_state() {
	local out
	out=$("$VOLCTL" "${IMGS[@]}" subvolume create /after 2>&1) && return 1
	[[ $out == *"is stale"* ]] || { echo "$out" >&2; return 1; }
	mount_members
	[ -d "$MNT/snap" ] || { echo "kernel does not see the snapshot" >&2; return 1; }
	# a mount alone commits nothing; any change makes the kernel write every member
	touch "$MNT/leveled"
	umount_members
	"$VOLCTL" "${IMGS[@]}" subvolume create /after >/dev/null
	check_members
}

# crash_loop: snapshot /a /snap with the fault switch failing after 1, 2, ...
# device writes (counted over all members) until it succeeds; after each,
# btrfs check on the member set is clean and the state is old or new.
crash_loop() {
	vc subvolume create /a >/dev/null
	mkdir -p "$D/pristine"
	cp --sparse=always "${FILES[@]}" "$D/pristine/"
	if VOLCTL_FAIL_AFTER_WRITES=1 "$VOLCTL" "${IMGS[@]}" subvolume snapshot /a /snap \
		>/dev/null 2>&1; then
		skip "built without --enable-fault-injection"
	fi
	local n=1 rc st olds=0 news=0 torn=0 gens
	while [ "$n" -lt 400 ]; do
		cp --sparse=always "$D"/pristine/dev*.img "$D/"
		rc=0
		VOLCTL_FAIL_AFTER_WRITES=$n "$VOLCTL" "${IMGS[@]}" subvolume snapshot /a /snap \
			>/dev/null 2>&1 || rc=$?
		check_members || { echo "after $n writes" >&2; return 1; }
		st=$(snap_state)
		case $st in
		old) olds=$((olds + 1)) ;;
		new) news=$((news + 1)) ;;
		*) echo "after $n writes: $st" >&2; return 1 ;;
		esac
		gens=$(for f in "${FILES[@]}"; do
			btrfs inspect-internal dump-super "$f" | awk '$1 == "generation" {print $2}'
		done | sort -u | wc -l)
		if [ "$gens" -ne 1 ]; then
			torn=$((torn + 1))
			torn_member_state
		fi
		if [ "$rc" -eq 0 ]; then
			[ "$st" = new ]
			[ "$gens" -eq 1 ]
			break
		fi
		[ "$rc" -eq 1 ]
		n=$((n + 1))
	done
	echo "# $n writes: $olds old, $news new, $torn with members at two generations" >&3
	[ "$rc" -eq 0 ]
	[ "$olds" -gt 3 ]
	[ "$news" -ge 1 ]
	# one primary superblock per member but the last can be the only one written
	[ "$torn" -eq $((${#FILES[@]} - 1)) ]
}

@test "crash after every device write on 2 devices (RAID1): old or new, check clean" {
	mkmulti 2 192M -m raid1 -d single
	crash_loop
}

@test "crash after every device write on 3 devices (RAID10): old or new, check clean" {
	mkmulti 3 192M -m raid10 -d single
	crash_loop
}
