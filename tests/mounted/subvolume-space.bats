#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# subvolume space against the kernel: a subvolume with a timeline of
# snapshots and overwrites in between, quotas on, and after `quota rescan -w`
#   exclusive, referenced     = the kernel's 0/ID qgroup of each subvolume
#   used by snapshots         = a level-1 qgroup holding exactly its snapshots
#   with snapshots            = a level-1 qgroup holding it and its snapshots
# then the same numbers from --image on the unmounted loop file, and with
# quotas off.

load ../helpers

setup() {
	require_root_loop
	command -v jq >/dev/null || skip "needs jq"
	mkfs_mount 1G
}

teardown() {
	cleanup_mount
}

# sv, three snapshots of it taken between overwrites (snaps/s1..s3), a
# snapshot of s1 (a snapshot of a snapshot: not one of sv's) written to, and
# a subvolume outside the family sharing an extent with sv by reflink
make_timeline() {
	local i
	btrfs subvolume create "$MNT/sv" >/dev/null
	mkdir "$MNT/snaps"
	for i in 1 2 3 4; do
		dd if=/dev/urandom of="$MNT/sv/f$i" bs=1M count=4 status=none
	done
	mkdir "$MNT/sv/dir"
	for i in $(seq 1 150); do echo "small $i" >"$MNT/sv/dir/s$i"; done
	sync -f "$MNT"
	btrfs subvolume snapshot -r "$MNT/sv" "$MNT/snaps/s1" >/dev/null
	dd if=/dev/urandom of="$MNT/sv/f1" bs=1M count=2 conv=notrunc status=none
	dd if=/dev/urandom of="$MNT/sv/new" bs=1M count=3 status=none
	dd if=/dev/urandom of="$MNT/sv/g" bs=1M count=2 status=none
	sync -f "$MNT"
	btrfs subvolume snapshot -r "$MNT/sv" "$MNT/snaps/s2" >/dev/null
	dd if=/dev/urandom of="$MNT/sv/f2" bs=1M count=4 conv=notrunc status=none
	rm "$MNT/sv/f3"
	sync -f "$MNT"
	btrfs subvolume snapshot -r "$MNT/sv" "$MNT/snaps/s3" >/dev/null
	# g stays in s2 and s3 only: exclusive to the set, to neither alone
	rm "$MNT/sv/g"
	dd if=/dev/urandom of="$MNT/sv/f1" bs=512K count=1 seek=6 conv=notrunc status=none
	rm "$MNT/sv/dir/s1"*
	btrfs subvolume snapshot "$MNT/snaps/s1" "$MNT/s1-copy" >/dev/null
	dd if=/dev/urandom of="$MNT/s1-copy/f4" bs=1M count=1 conv=notrunc status=none
	btrfs subvolume create "$MNT/other" >/dev/null
	cp --reflink=always "$MNT/sv/new" "$MNT/other/new"
	dd if=/dev/urandom of="$MNT/other/own" bs=1M count=1 status=none
	sync -f "$MNT"
}

rootid() {
	btrfs inspect-internal rootid "$MNT/$1"
}

# the kernel's rfer or excl (column 2 or 3) of qgroup $1
kernel_q() {
	btrfs qgroup show --raw "$MNT" | awk -v q="$1" -v c="$2" '$1 == q { print $c }'
}

# field $2 of the row of subvolume $1 in the JSON document $DOC
row_field() {
	jq -r --argjson id "$1" ".subvolume_space.subvolumes[] | select(.id == \$id) | .$2" <<<"$DOC"
}

# the numbers of every row, one line each: what must not depend on the backend
numbers() {
	jq -r '.subvolume_space.subvolumes[] | [.id, .path, .snapshot_of, .snapshots, .referenced,
		.exclusive, .used_by_snapshots, .exclusive_with_snapshots, .limit, .limit_qgroupid,
		.limit_type] | map(tostring) | join(" ")'
}

@test "space: the numbers equal the kernel's qgroups after a rescan, mounted and --image" {
	make_timeline
	sv=$(rootid sv)
	s1=$(rootid snaps/s1)
	s2=$(rootid snaps/s2)
	s3=$(rootid snaps/s3)
	btrfs quota enable "$MNT"
	btrfs qgroup create 1/100 "$MNT"
	btrfs qgroup create 1/101 "$MNT"
	for id in "$s1" "$s2" "$s3"; do
		btrfs qgroup assign --no-rescan "0/$id" 1/100 "$MNT" 2>/dev/null || true
	done
	for id in "$sv" "$s1" "$s2" "$s3"; do
		btrfs qgroup assign --no-rescan "0/$id" 1/101 "$MNT" 2>/dev/null || true
	done
	btrfs qgroup limit 200M "$MNT/sv"
	kernel_rescan "$MNT"

	run_volctl_split --format json subvolume space "$MNT"
	[ "$status" -eq 0 ]
	DOC=$out
	[ "$(jq -r .subvolume_space.source <<<"$DOC")" = live_snapshot ]
	[ "$(jq -r .subvolume_space.limit_numbers <<<"$DOC")" = computed ]
	# every subvolume's own numbers are its level-0 qgroup's
	n=0
	for id in $(jq -r '.subvolume_space.subvolumes[].id' <<<"$DOC"); do
		echo "0/$id: rfer $(row_field "$id" referenced) kernel $(kernel_q "0/$id" 2), excl $(row_field "$id" exclusive) kernel $(kernel_q "0/$id" 3)"
		[ "$(row_field "$id" referenced)" -eq "$(kernel_q "0/$id" 2)" ]
		[ "$(row_field "$id" exclusive)" -eq "$(kernel_q "0/$id" 3)" ]
		n=$((n + 1))
	done
	# 5, sv, s1, s2, s3, s1-copy, other
	[ "$n" -eq 7 ]
	[ "$(row_field "$sv" snapshots)" -eq 3 ]
	[ "$(row_field "$s1" snapshots)" -eq 1 ]
	[ "$(row_field "$(rootid s1-copy)" snapshot_of)" -eq "$s1" ]
	used=$(row_field "$sv" used_by_snapshots)
	with=$(row_field "$sv" exclusive_with_snapshots)
	echo "used by snapshots $used, kernel 1/100 $(kernel_q 1/100 3); with snapshots $with, kernel 1/101 $(kernel_q 1/101 3)"
	[ "$used" -eq "$(kernel_q 1/100 3)" ]
	[ "$with" -eq "$(kernel_q 1/101 3)" ]
	# g (2 MiB) is held by s2 and s3 together: the set frees it, a sum of
	# the snapshots' own exclusive bytes would miss it
	sum=$(( $(row_field "$s1" exclusive) + $(row_field "$s2" exclusive) + $(row_field "$s3" exclusive) ))
	echo "sum of the snapshots' own exclusive bytes $sum"
	[ "$used" -ge $((sum + 2 * 1048576)) ]
	# the limit that binds sv
	[ "$(row_field "$sv" limit)" -eq 209715200 ]
	[ "$(row_field "$sv" limit_qgroupid)" = "0/$sv" ]
	[ "$(row_field "$sv" limit_type)" = referenced ]
	[ "$(row_field "$sv" left)" -le $((209715200 - $(row_field "$sv" referenced))) ]
	[ "$(row_field "$s1" limit)" = null ]

	# text: the note says where the numbers come from
	run_volctl_split subvolume space --raw "$MNT/sv"
	[ "$status" -eq 0 ]
	[[ "$err" == "Space of 1 subvolume computed from a committed snapshot of the mounted filesystem by the accounting engine"* ]]
	[ "$(tail -n 1 <<<"$out" | awk '{print $1, $5, $6}')" = "$sv $used $with" ]

	# the same numbers offline, on the unmounted loop file
	numbers <<<"$DOC" >"$BATS_TEST_TMPDIR/online.txt"
	cleanup_mount
	run_volctl_split --image "$IMG" --format json subvolume space /
	[ "$status" -eq 0 ]
	[ "$(jq -r .subvolume_space.source <<<"$out")" = image ]
	numbers <<<"$out" >"$BATS_TEST_TMPDIR/offline.txt"
	diff -u "$BATS_TEST_TMPDIR/online.txt" "$BATS_TEST_TMPDIR/offline.txt"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/offline.txt")" -eq 7 ]
	# and the text table, but for the room left (online reservations count)
	run_volctl_split --image "$IMG" subvolume space --raw /sv
	[ "$status" -eq 0 ]
	[ "$(tail -n 1 <<<"$out" | awk '{print $1, $5, $6}')" = "$sv $used $with" ]
}

@test "space: quotas off, the same numbers as a level-1 group would show, no limits" {
	make_timeline
	sv=$(rootid sv)
	run_volctl_split --format json subvolume space "$MNT/sv"
	[ "$status" -eq 0 ]
	DOC=$out
	[ "$(jq .subvolume_space.quota_enabled <<<"$DOC")" = false ]
	[ "$(jq '.subvolume_space.subvolumes | length' <<<"$DOC")" -eq 1 ]
	[ "$(row_field "$sv" limit)" = null ]
	used=$(row_field "$sv" used_by_snapshots)
	with=$(row_field "$sv" exclusive_with_snapshots)
	excl=$(row_field "$sv" exclusive)
	run_volctl_split subvolume space "$MNT"
	[ "$status" -eq 0 ]
	[[ "$err" == *"quotas are off: no limits" ]]

	# now ask the kernel
	s1=$(rootid snaps/s1)
	s2=$(rootid snaps/s2)
	s3=$(rootid snaps/s3)
	btrfs quota enable "$MNT"
	btrfs qgroup create 1/100 "$MNT"
	for id in "$s1" "$s2" "$s3"; do
		btrfs qgroup assign --no-rescan "0/$id" 1/100 "$MNT" 2>/dev/null || true
	done
	kernel_rescan "$MNT"
	echo "quotas off: used by snapshots $used, kernel 1/100 $(kernel_q 1/100 3)"
	[ "$used" -eq "$(kernel_q 1/100 3)" ]
	[ "$excl" -eq "$(kernel_q "0/$sv" 3)" ]
	[ "$with" -gt "$used" ]
}
