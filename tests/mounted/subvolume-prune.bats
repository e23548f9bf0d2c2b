#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# volctl subvolume prune against the kernel on a loop-mounted image: a
# timeline of snapshots with overwrites between them; the data bytes the
# plan says the deleted set frees equal the drop of `btrfs filesystem df -b`
# Data used after the delete, `btrfs subvolume sync` and sync (exactly;
# metadata within the man page's bound); refusals (a nested subvolume, the
# default subvolume, a mounted snapshot) keep those snapshots while the
# rest go, and the exit status says so; --free reaching and not reaching
# its size.

load ../helpers

setup() {
	require_root_loop
	command -v jq >/dev/null || skip "needs jq"
	mkfs_mount 1G
	cd "$MNT"
	btrfs quota enable "$MNT"
}

teardown() {
	cd /
	[ -z "${IMMUTABLE:-}" ] || chattr -i "$IMMUTABLE" 2>/dev/null || true
	if [ -n "${MNT2:-}" ] && mountpoint -q "$MNT2" 2>/dev/null; then
		umount "$MNT2" || true
	fi
	cleanup_mount
}

# overwrite FILE with KIB KiB of new data (new extents: the old stay with the snapshots)
overwrite() {
	head -c "$(($2 * 1024))" /dev/urandom >"$1.new"
	mv "$1.new" "$1"
}

# src with snapshots snaps/s.1 .. s.5, each holding its own 1 MiB version of
# f; g (512 KiB) is in s.2 and s.3 only: exclusive to any set holding both,
# to neither alone
timeline() {
	"$VOLCTL" subvolume create src snaps >/dev/null
	local i
	for i in 1 2 3 4 5; do
		overwrite src/f 1024
		[ "$i" -ne 2 ] || overwrite src/g 512
		[ "$i" -ne 4 ] || rm src/g
		"$VOLCTL" subvolume snapshot -r src "snaps/s.$i" >/dev/null
	done
	overwrite src/f 1024
	btrfs filesystem sync "$MNT"
}

data_used() {
	btrfs filesystem df -b "$MNT" | awk -F'used=' '/^Data/ { print $2 + 0 }'
}

meta_used() {
	btrfs filesystem df -b "$MNT" | awk -F'used=' '/^Metadata/ { print $2 + 0 }'
}

sid() {
	btrfs subvolume list "$MNT" | awk -v p="$1" '$NF == p { print $2 }'
}

# settle: the cleaner done and committed
settle() {
	wait_cleaned "$MNT" >/dev/null
	sync -f "$MNT"
	btrfs filesystem sync "$MNT"
}

@test "prune: the plan's data bytes are what df drops by, the set's, not a sum" {
	timeline
	local d0 d1 m0 m1 plan data meta alone_sum s3
	s3=$(sid snaps/s.3)
	run_volctl --format json subvolume prune --keep-last 2 --dry-run src
	assert_status 0
	plan=$output
	data=$(jq -r '.subvolume_prune.deleted_set.set.data' <<<"$plan")
	meta=$(jq -r '.subvolume_prune.deleted_set.set.metadata' <<<"$plan")
	alone_sum=$(jq -r '[.subvolume_prune.deleted_set.subvolumes[].exclusive] | add' <<<"$plan")
	[ "$(jq -r '[.subvolume_prune.snapshots[] | select(.action == "delete") | .path] |
		join(" ")' <<<"$plan")" = "snaps/s.3 snaps/s.2 snaps/s.1" ]
	# three versions of f and g: 3.5 MiB of data, more than the members' own
	[ "$data" -eq $((3 * 1048576 + 524288)) ]
	[ "$alone_sum" -lt $((data + meta)) ]
	settle
	d0=$(data_used)
	m0=$(meta_used)
	run_volctl --format json subvolume prune --keep-last 2 src
	assert_status 0
	[ "$(jq -r '.subvolume_prune.deleted' <<<"$output")" = 3 ]
	[ "$(jq -r '.subvolume_prune.deleted_set.set.data' <<<"$output")" = "$data" ]
	settle
	d1=$(data_used)
	m1=$(meta_used)
	echo "# data used $d0 -> $d1 (plan $data); metadata $m0 -> $m1 (plan $meta)" >&3
	[ $((d0 - d1)) -eq "$data" ]
	# metadata: the plan's tree blocks (DUP: twice), give or take 1 MiB of the
	# kernel's own bookkeeping (extent, free space, quota and root trees)
	local dm=$((m0 - m1)) want=$((2 * meta))
	[ "$dm" -ge $((want - 1048576)) ]
	[ "$dm" -le $((want + 1048576)) ]
	[ "$(btrfs subvolume list "$MNT" | awk '{ print $NF }' | sort | tr '\n' ' ')" = \
		"snaps snaps/s.4 snaps/s.5 src " ]
	# --delete-qgroup semantics: 0/ID of the deleted ones gone
	run ! grep -q "^0/$s3 " <<<"$(btrfs qgroup show "$MNT")"
}

@test "prune: refusals keep those snapshots, the rest go, exit 1 with the kernel's reason" {
	timeline
	local out
	# s.1 holds a nested subvolume (ENOTEMPTY), s.2 is the default, s.3 mounted
	"$VOLCTL" subvolume snapshot src snaps/w.0 >/dev/null
	"$VOLCTL" subvolume create snaps/w.0/inner >/dev/null
	btrfs subvolume set-default "$(sid snaps/s.2)" "$MNT"
	MNT2=$BATS_TEST_TMPDIR/mnt2
	mkdir -p "$MNT2"
	mount -o subvol=snaps/s.3 "$LOOPDEV" "$MNT2"
	run_volctl_split subvolume prune --keep-name s.5 src
	[ "$status" -eq 1 ]
	[[ "$err" == *"subvolume $(sid snaps/w.0): subvolume contains other subvolumes"* ]]
	out=$(tr -s ' ' <<<"$out")
	[[ "$out" == *" keep mounted $MNT/snaps/s.3"* ]]
	[[ "$out" == *" keep default subvolume $MNT/snaps/s.2"* ]]
	[[ "$out" == *" failed no rule keeps it $MNT/snaps/w.0"* ]]
	[[ "$out" == *" deleted no rule keeps it $MNT/snaps/s.1"* ]]
	[[ "$out" == *" deleted no rule keeps it $MNT/snaps/s.4"* ]]
	[[ "$out" == *"3 kept, 2 deleted, 1 refused"* ]]
	settle
	[ "$(btrfs subvolume list "$MNT" | awk '{ print $NF }' | sort | tr '\n' ' ')" = \
		"snaps snaps/s.2 snaps/s.3 snaps/s.5 snaps/w.0 snaps/w.0/inner src " ]
}

@test "prune: an immutable snapshot (chattr +i) is refused with EPERM's words, the rest go" {
	timeline
	"$VOLCTL" subvolume snapshot src snaps/w.1 >/dev/null
	IMMUTABLE=$MNT/snaps/w.1
	chattr +i "$IMMUTABLE"
	run_volctl_split --format json subvolume prune --keep-name s.5 src
	[ "$status" -eq 1 ]
	[[ "$err" == *"subvolume $(sid snaps/w.1): cannot delete: the subvolume is immutable (chattr -i $IMMUTABLE to allow it)"* ]]
	[ "$(jq -r '.subvolume_prune.snapshots[] | select(.action == "failed") | .path' <<<"$out")" = \
		snaps/w.1 ]
	[ "$(jq -r '.subvolume_prune.failed, .subvolume_prune.deleted' <<<"$out" | tr '\n' ' ')" = "1 4 " ]
	[[ "$(jq -r '.subvolume_prune.snapshots[] | select(.action == "failed") | .error' <<<"$out")" == \
		*"cannot delete: the subvolume is immutable"* ]]
	# what was freed is the set actually deleted: s.1 .. s.4
	[ "$(jq -r '.subvolume_prune.deleted_set.set.count' <<<"$out")" = 4 ]
	settle
	[ "$(btrfs subvolume list "$MNT" | awk '{ print $NF }' | sort | tr '\n' ' ')" = \
		"snaps snaps/s.5 snaps/w.1 src " ]
}

@test "prune --free: adds the oldest timeline-kept snapshots until the set frees SIZE" {
	timeline
	local d0 d1 data
	settle
	d0=$(data_used)
	# the rules delete s.1 (1 MiB); s.2 adds 1 MiB, s.3 1.5 MiB (g with it)
	run_volctl --format json subvolume prune --keep-last 4 --free 2500K src
	assert_status 0
	[ "$(jq -r '.subvolume_prune.free_reached' <<<"$output")" = true ]
	[ "$(jq -r '[.subvolume_prune.snapshots[] | select(.action == "deleted") |
		(.path + ":" + (.reasons | join(",")))] | join(" ")' <<<"$output")" = \
		"snaps/s.3:--free snaps/s.2:--free snaps/s.1:" ]
	data=$(jq -r '.subvolume_prune.deleted_set.set.data' <<<"$output")
	[ "$data" -eq $((3 * 1048576 + 524288)) ]
	settle
	d1=$(data_used)
	[ $((d0 - d1)) -eq "$data" ]
}

@test "prune --free alone takes only what is needed; unreachable: nothing deleted, exit 1" {
	timeline
	run_volctl subvolume prune --free 1M src
	assert_status 0
	assert_output_contains "4 kept, 1 deleted"
	[[ "$(tr -s ' ' <<<"$output")" == *" deleted --free $MNT/snaps/s.1"* ]]
	run_volctl_split subvolume prune --keep-name s.5 --free 100M src
	[ "$status" -eq 1 ]
	[[ "$err" == *"no allowed set of snapshots frees 100.00MiB: the best"*" frees 3.5"*"MiB; nothing deleted" ]]
	[[ "$out" == *"4 kept, 0 deleted"* ]]
	settle
	[ "$(btrfs subvolume list "$MNT" | awk '{ print $NF }' | sort | tr '\n' ' ')" = \
		"snaps snaps/s.2 snaps/s.3 snaps/s.4 snaps/s.5 src " ]
}

# the subvolume paths below $MNT, sorted, on one line
subvols() {
	btrfs subvolume list "$MNT" | awk '{ print $NF }' | sort | tr '\n' ' '
}

@test "prune guards online: a rule keeping none and --max-delete refuse, nothing deleted; --force" {
	local i before
	"$VOLCTL" subvolume create src snaps >/dev/null
	for i in 1 2 3 4 5; do
		"$VOLCTL" subvolume snapshot -r src "snaps/s.$i" >/dev/null
	done
	before=$(subvols)
	run_volctl_split subvolume prune --keep-name 'nightly-*' src snaps
	[ "$status" -eq 1 ]
	[ "$err" = "error: --keep-name 'nightly-*': keeps none of the 5 snapshots of src (the plan would delete 5 of them): refused, nothing deleted; --force prunes anyway" ]
	[[ "$out" == *"newest first: 5 kept, 0 deleted"* ]]
	[[ "$(tr -s ' ' <<<"$out")" == *" keep refused: no rule keeps it $MNT/snaps/s.3"* ]]
	[ "$(subvols)" = "$before" ]
	run_volctl_split subvolume prune --keep-last 1 --max-delete 50% --dry-run src snaps
	[ "$status" -eq 1 ]
	[[ "$err" == *$'\n'"error: src: the plan would delete 4 of its 5 snapshots, more than --max-delete 50% allows (2): refused, nothing deleted" ]]
	run_volctl subvolume prune --keep-last 1 --max-delete 3 src snaps
	assert_status 1
	[ "$(subvols)" = "$before" ]
	# --force, within the limit: the plan goes through
	run_volctl_split subvolume prune --keep-name 's.5' --keep-name 'nightly-*' --force \
		--max-delete 4 src snaps
	[ "$status" -eq 0 ]
	[[ "$err" == "warning: --keep-name 'nightly-*': keeps none of the 5 snapshots of src: pruning anyway (--force)" ]]
	[[ "$out" == *"newest first: 1 kept, 4 deleted"* ]]
	[ "$(subvols)" = "snaps snaps/s.5 src " ]
}

# Skip unless volctl has the test hooks of --enable-fault-injection (probed on
# a scratch image: never on $IMG, which is mounted)
require_race_hooks() {
	local IMG=$BATS_TEST_TMPDIR/probe-src.img
	truncate -s 256M "$IMG"
	mkfs.btrfs -q -f "$IMG" >/dev/null
	require_fault_injection
}

@test "prune overlapping another: its deletions meanwhile are done, the rest go, bytes only of those" {
	timeline
	require_race_hooks
	local s1 s2 s3 s4
	s1=$(sid snaps/s.1)
	s2=$(sid snaps/s.2)
	s3=$(sid snaps/s.3)
	s4=$(sid snaps/s.4)
	# another process (btrfs-progs) deletes s.2 and s.3 after this run's plan,
	# before its deletion: the kernel answers ENOENT for them
	VOLCTL_RACE_CMD="btrfs subvolume delete snaps/s.2 snaps/s.3 >/dev/null" \
		run_volctl_split -v --format json subvolume prune --keep-last 1 src
	[ "$status" -eq 0 ]
	[[ "$err" == *"subvolume $s2 (snaps/s.2): already deleted, counted as done"* ]]
	[[ "$err" == *"subvolume $s3 (snaps/s.3): already deleted, counted as done"* ]]
	[[ "$err" == *"2 snapshots of the plan were deleted already"* ]]
	[ "$(jq -r '[.subvolume_prune.snapshots[] | .path + ":" + .action] | join(" ")' <<<"$out")" = \
		"snaps/s.5:keep snaps/s.4:deleted snaps/s.3:gone snaps/s.2:gone snaps/s.1:deleted" ]
	[ "$(jq -r '.subvolume_prune.deleted, .subvolume_prune.failed' <<<"$out" | tr '\n' ' ')" = "2 0 " ]
	# freed: the set of s.1 and s.4 only, their own versions of f; g (in s.2 and s.3) not
	[ "$(jq -r '.subvolume_prune.deleted_set.set.count' <<<"$out")" = 2 ]
	[ "$(jq -r '.subvolume_prune.deleted_set.set.data' <<<"$out")" -eq $((2 * 1048576)) ]
	[ "$(jq -r '[.subvolume_prune.deleted_set.subvolumes[].id] | sort | join(" ")' <<<"$out")" = \
		"$s1 $s4" ]
	wait_cleaned "$MNT" >/dev/null
	[ "$(subvols)" = "snaps snaps/s.5 src " ]
	# --delete-qgroup semantics for the two it deleted
	run ! grep -qE "^0/($s1|$s4) " <<<"$(btrfs qgroup show "$MNT")"
}

@test "two overlapping prunes: the second, run inside the first's window, leaves it nothing to fail on" {
	timeline
	require_race_hooks
	# the inner prune runs whole (deletes, waits for the cleaner, drops the
	# qgroups) between the outer's plan and its deletion
	VOLCTL_RACE_CMD="\"$VOLCTL\" subvolume prune --keep-last 1 src >\"$BATS_TEST_TMPDIR/inner.out\"" \
		run_volctl_split subvolume prune --keep-last 1 src
	[ "$status" -eq 0 ]
	[[ "$(cat "$BATS_TEST_TMPDIR/inner.out")" == *"newest first: 1 kept, 4 deleted"* ]]
	[[ "$out" == *"newest first: 1 kept, 0 deleted, 4 already gone"* ]]
	[[ "$(tr -s ' ' <<<"$out")" == *" gone no rule keeps it $MNT/snaps/s.2"* ]]
	[[ "$out" == *"Freed 0.00B (exclusive bytes of the set of 0 subvolumes"* ]]
	[[ "$err" == *"4 snapshots of the plan were deleted already"* ]]
	[ "$(subvols)" = "snaps snaps/s.5 src " ]
}
