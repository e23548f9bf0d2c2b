#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# New METADATA chunks made offline, checked by the kernel: the kernel makes
# the same chunk on the same image, mounts ours, reports the same space in
# `filesystem df`/`usage`, and writes files and subvolumes afterwards.
# Multi-device filesystems (RAID1, RAID1C3, RAID10 metadata) the same way,
# on loop devices for every member; a full member gives ENOSPC and leaves
# every member byte-identical.

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
	md_detach
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

# dev_super_field FILE FIELD: one field of FILE's superblock
dev_super_field() {
	btrfs inspect-internal dump-super "$1" | awk -v f="$2" '$1 == f { print $2 }'
}

@test "the kernel makes the same metadata chunk on the same image" {
	truncate -s 300M "$IMG"
	mkfs.btrfs -q -f -n 4096 "$IMG" >/dev/null
	cp "$IMG" "$WORK/kernel.img"
	# offline: subvolumes until the 32 MiB DUP block group is full (9000: the leaves are full)
	# shellcheck disable=SC2046
	run_volctl --image "$IMG" subvolume create $(seq -f "/s%g" 1 9000)
	assert_status 0
	# kernel: inline files until it adds a metadata chunk
	mount_img "$WORK/kernel.img"
	local i
	for i in $(seq 1 40000); do
		printf '%2000s' x > "$MNT/f$i"
		if [ $((i % 2000)) -eq 0 ]; then
			sync -f "$MNT"
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
	run_volctl --image "$IMG" subvolume create $(seq -f "/s%g" 1 9000)
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
	[ "$(wc -l <<<"$output")" -eq 9000 ]
	dd if=/dev/urandom of="$MNT/s9000/data" bs=1M count=20 status=none
	btrfs subvolume snapshot "$MNT/s9000" "$MNT/snap" >/dev/null
	btrfs subvolume create "$MNT/k1" >/dev/null
	sync -f "$MNT"
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
	sync -f "$MNT"
	umount_img
	run btrfs check --readonly "$IMG"
	assert_status 0
}

# Multi-device: members $WORK/dN.img in FILES, --image list in IMGS
md_mkfs() {
	local n=$1 size=$2 i
	shift 2
	FILES=()
	IMGS=()
	for i in $(seq 1 "$n"); do
		truncate -s "$size" "$WORK/d$i.img"
		FILES+=("$WORK/d$i.img")
		IMGS+=(--image "$WORK/d$i.img")
	done
	mkfs.btrfs -q -f -n 4096 "$@" "${FILES[@]}" >/dev/null 2>&1
}

# md_attach FILE...: loop devices in LOOPS, known to the kernel
md_attach() {
	local f
	LOOPS=()
	for f; do LOOPS+=("$(losetup -f --show "$f")"); done
	btrfs device scan "${LOOPS[@]}" >/dev/null
}

md_detach() {
	local l
	if [ "${#LOOPS[@]}" -gt 0 ]; then
		btrfs device scan --forget "${LOOPS[@]}" >/dev/null 2>&1 || true
		for l in "${LOOPS[@]}"; do losetup -d "$l" 2>/dev/null || true; done
	fi
	LOOPS=()
}

md_mount() {
	local opts=subvolid=5 l
	md_attach "$@"
	for l in "${LOOPS[@]}"; do opts+=",device=$l"; done
	mount -o "$opts" "${LOOPS[0]}" "$MNT"
}

md_umount() {
	umount "$MNT"
	md_detach
}

md_check() {
	local rc=0 out
	md_attach "$@"
	out=$(btrfs check --readonly "${LOOPS[0]}" 2>&1) || rc=$?
	md_detach
	if [ "$rc" -ne 0 ]; then
		echo "btrfs check failed ($rc): $out" >&2
		return 1
	fi
}

# The metadata chunk keys of image @1, one a line
meta_chunks() {
	btrfs inspect-internal dump-tree -t chunk "$1" |
		awk '/CHUNK_ITEM/ { k = $6; sub(/\)/, "", k) } /type METADATA/ { print k }'
}

# dev_item.bytes_used of each member's superblock must be its DEV_ITEM's
md_dev_items_agree() {
	local f devid sb_used tree_used tree
	md_attach "${FILES[@]}"
	tree=$(btrfs inspect-internal dump-tree -t chunk "${LOOPS[0]}")
	md_detach
	for f in "${FILES[@]}"; do
		devid=$(btrfs inspect-internal dump-super "$f" | awk '$1 == "dev_item.devid" { print $2 }')
		sb_used=$(btrfs inspect-internal dump-super "$f" | awk '$1 == "dev_item.bytes_used" { print $2 }')
		tree_used=$(awk -v d="$devid" '/DEV_ITEM/ { p = ($6 == d ")") } p && $1 == "devid" { print $6; p = 0 }' <<<"$tree")
		[ -n "$sb_used" ]
		[ "$sb_used" = "$tree_used" ] || { echo "$f: super $sb_used, tree $tree_used" >&2; return 1; }
	done
}

# md_chunk_of DEV KEY: chunk KEY with its stripes sorted by devid (when
# devices have the same room, the kernel's unstable sort decides their order)
md_chunk_of() {
	chunk_lines "$1" "$2" | sed 's/dev_uuid.*//' | awk '/stripe [0-9]+ devid/ { print "stripe devid", $4, "offset", $6; next } { print }' | sort
}

# md_same_as_kernel N SIZE SUBVOLS MKFS_OPTS...: offline subvolumes until a new
# metadata chunk appears; the kernel, filling a copy, makes the same chunk
# (dump-tree reads through loop devices: RAID10 trees span the members)
md_same_as_kernel() {
	local n=$1 size=$2 subvols=$3 i f new ours theirs before
	shift 3
	md_mkfs "$n" "$size" "$@"
	local -a kfiles=()
	for f in "${FILES[@]}"; do cp "$f" "$f.kernel"; kfiles+=("$f.kernel"); done
	md_attach "${FILES[@]}"
	before=$(meta_chunks "${LOOPS[0]}" | wc -l)
	md_detach
	# shellcheck disable=SC2046
	run "$VOLCTL" "${IMGS[@]}" subvolume create $(seq -f "/s%g" 1 "$subvols")
	assert_status 0
	md_attach "${FILES[@]}"
	[ "$(meta_chunks "${LOOPS[0]}" | wc -l)" -eq $((before + 1)) ]
	new=$(meta_chunks "${LOOPS[0]}" | tail -1)
	ours=$(md_chunk_of "${LOOPS[0]}" "$new")
	md_detach
	md_dev_items_agree
	md_check "${FILES[@]}"
	md_mount "${kfiles[@]}"
	for i in $(seq 1 60000); do
		printf '%2000s' x > "$MNT/f$i"
		if [ $((i % 1000)) -eq 0 ]; then
			sync -f "$MNT"
			[ "$(meta_chunks "${LOOPS[0]}" | wc -l)" -gt "$before" ] && break
		fi
	done
	theirs=$(md_chunk_of "${LOOPS[0]}" "$new")
	md_umount
	[ -n "$ours" ]
	diff <(echo "$ours") <(echo "$theirs")
}

@test "2-device RAID1: the kernel makes the same metadata chunk on a copy" {
	md_same_as_kernel 2 300M 9000 -m raid1 -d single
	run btrfs inspect-internal dump-tree -t chunk "${FILES[0]}"
	assert_output_contains "type METADATA|RAID1"
}

@test "3-device RAID1C3: the kernel makes the same metadata chunk on a copy" {
	md_same_as_kernel 3 200M 9000 -m raid1c3 -d single
}

@test "4-device RAID10: the kernel makes the same metadata chunk on a copy" {
	md_same_as_kernel 4 200M 18000 -m raid10 -d single
}

@test "2-device RAID1 image with an offline chunk: mounts, usage agrees, kernel writes, check clean" {
	md_mkfs 2 300M -m raid1 -d single
	# shellcheck disable=SC2046
	run "$VOLCTL" "${IMGS[@]}" subvolume create $(seq -f "/s%g" 1 9000)
	assert_status 0
	[ "$(meta_chunks "${FILES[0]}" | wc -l)" -eq 2 ]
	md_dev_items_agree
	md_check "${FILES[@]}"
	local f total=0 used
	for f in "${FILES[@]}"; do
		used=$(btrfs inspect-internal dump-super "$f" | awk '$1 == "dev_item.bytes_used" { print $2 }')
		total=$((total + used))
	done
	md_mount "${FILES[@]}"
	run btrfs filesystem df "$MNT"
	assert_status 0
	assert_output_contains "Metadata, RAID1: total=96.00MiB"
	run btrfs filesystem usage -b "$MNT"
	assert_status 0
	[ "$(awk '$1 == "Device" && $2 == "allocated:" { print $3 }' <<<"$output")" = "$total" ]
	run btrfs subvolume list "$MNT"
	[ "$(wc -l <<<"$output")" -eq 9000 ]
	dd if=/dev/urandom of="$MNT/s9000/data" bs=1M count=4 status=none
	btrfs subvolume snapshot "$MNT/s9000" "$MNT/snap" >/dev/null
	for f in $(seq 1 3000); do printf '%2000s' x > "$MNT/s1/f$f"; done
	sync -f "$MNT"
	md_umount
	md_check "${FILES[@]}"
	run "$VOLCTL" "${IMGS[@]}" subvolume create /after-kernel
	assert_status 0
	md_check "${FILES[@]}"
}

@test "2-device RAID1, a member full: ENOSPC names the profile, members byte-identical" {
	md_mkfs 2 150M -m raid1 -d single
	local i before after
	# each subvolume is its own commit: fill until one is refused
	for i in $(seq 1 40); do
		# shellcheck disable=SC2046
		run "$VOLCTL" "${IMGS[@]}" subvolume create $(seq -f "/r$i-%g" 1 3000)
		[ "$status" -eq 0 ] || break
	done
	assert_status 1
	before=$(sha256sum "${FILES[@]}")
	run "$VOLCTL" "${IMGS[@]}" subvolume create /one-more
	assert_status 1
	assert_output_contains "no free space left for a new raid1 metadata chunk: it needs 2 devices"
	after=$(sha256sum "${FILES[@]}")
	[ "$before" = "$after" ]
	[ "$(meta_chunks "${FILES[0]}" | wc -l)" -ge 3 ]
	md_dev_items_agree
	md_check "${FILES[@]}"
	md_mount "${FILES[@]}"
	run btrfs subvolume list "$MNT"
	assert_status 0
	[ "$(wc -l <<<"$output")" -ge 3000 ]
	md_umount
}

@test "2-device RAID1, crash after every write while making a chunk: old or new, check clean" {
	md_mkfs 2 300M -m raid1 -d single
	if VOLCTL_FAIL_AFTER_WRITES=1 "$VOLCTL" "${IMGS[@]}" subvolume create /probe >/dev/null 2>&1; then
		skip "built without --enable-fault-injection"
	fi
	local f i n rc before st out olds=0 news=0
	mkdir -p "$WORK/pristine"
	# shellcheck disable=SC2046
	run "$VOLCTL" "${IMGS[@]}" subvolume create $(seq -f "/s%g" 1 5000)
	assert_status 0
	before=$(meta_chunks "${FILES[0]}" | wc -l)
	# on a copy, the create that makes the chunk: with -p each create is its
	# own commit, and the one that made the chunk committed generation
	# chunk_root_generation (random uuids move the point by a create or two)
	local gen0 k
	cp --sparse=always "${FILES[@]}" "$WORK/pristine/"
	gen0=$(dev_super_field "${FILES[0]}" generation)
	# shellcheck disable=SC2046
	run "$VOLCTL" "${IMGS[@]}" subvolume create -p $(seq -f "/s%g" 5001 7000)
	assert_status 0
	[ "$(meta_chunks "${FILES[0]}" | wc -l)" -gt "$before" ]
	k=$(( $(dev_super_field "${FILES[0]}" chunk_root_generation) - gen0 ))
	[ "$k" -gt 10 ] || { echo "chunk made by create $k" >&2; return 1; }
	[ "$k" -le 2000 ]
	# from the same state the point moves by up to about 5 creates (random
	# uuids): stop short of it, and further short while the chunk still comes
	local m=20
	while :; do
		for f in "${FILES[@]}"; do cp --sparse=always "$WORK/pristine/${f##*/}" "$f"; done
		# shellcheck disable=SC2046
		run "$VOLCTL" "${IMGS[@]}" subvolume create -p $(seq -f "/s%g" 5001 $((5000 + k - m)))
		assert_status 0
		[ "$(meta_chunks "${FILES[0]}" | wc -l)" -eq "$before" ] && break
		m=$((m * 2))
		[ "$m" -lt "$k" ] || { echo "the chunk came before create $((k - m / 2))" >&2; return 1; }
	done
	# then one subvolume at a time until the next one makes the chunk
	for i in $(seq $((5000 + k - m + 1)) 7000); do
		cp --sparse=always "${FILES[@]}" "$WORK/pristine/"
		"$VOLCTL" "${IMGS[@]}" subvolume create "/s$i" >/dev/null
		[ "$(meta_chunks "${FILES[0]}" | wc -l)" -eq "$before" ] || break
	done
	[ "$(meta_chunks "${FILES[0]}" | wc -l)" -eq $((before + 1)) ]
	# random subvolume uuids move the point: the same create from the same
	# state may fit without the chunk; then go on from its state with the next
	local tries made=0
	for tries in $(seq 1 10); do
		n=1
		while [ "$n" -lt 300 ]; do
			for f in "${FILES[@]}"; do cp --sparse=always "$WORK/pristine/${f##*/}" "$f"; done
			rc=0
			VOLCTL_FAIL_AFTER_WRITES=$n "$VOLCTL" "${IMGS[@]}" subvolume create "/s$i" \
				>/dev/null 2>&1 || rc=$?
			# one attach for btrfs check and the chunk count
			md_attach "${FILES[@]}"
			out=$(btrfs check --readonly "${LOOPS[0]}" 2>&1) ||
				{ md_detach; echo "after $n writes: btrfs check: $out" >&2; return 1; }
			st=$(meta_chunks "${LOOPS[0]}" | wc -l)
			md_detach
			case $st in
			"$before") olds=$((olds + 1)) ;;
			$((before + 1))) news=$((news + 1)) ;;
			*) echo "after $n writes: $st metadata chunks" >&2; return 1 ;;
			esac
			[ "$rc" -eq 0 ] && break
			[ "$rc" -eq 1 ]
			n=$((n + 1))
		done
		[ "$rc" -eq 0 ]
		if [ "$st" -eq $((before + 1)) ]; then
			made=1
			break
		fi
		cp --sparse=always "${FILES[@]}" "$WORK/pristine/"
		i=$((i + 1))
	done
	echo "# $n writes: $olds old, $news new, $tries creates tried" >&3
	[ "$made" -eq 1 ]
	[ "$olds" -gt 3 ]
	md_dev_items_agree
}

@test "2-device RAID0: the kernel makes the same metadata chunk on a copy" {
	md_same_as_kernel 2 300M 18000 -m raid0 -d single
}

@test "4-device RAID1C4: the kernel makes the same metadata chunk on a copy" {
	md_same_as_kernel 4 200M 9000 -m raid1c4 -d single
}
