#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# volctl check verifies the free space tree (offline, no root): every block
# group has its info item, extent_count and the format flag match the
# entries, the entries lie inside their block group without overlapping,
# the free space is the complement of the extent tree, and items of block
# groups that do not exist are findings.  btrfs-progs 6.19's check is the
# oracle where it is built ($BTRFS619, default /work/progs619/btrfs): its
# verdict ("[4/8] checking free space tree") must agree with ours on images
# of Debian's mkfs 6.2 (stale entries), of mkfs 6.19 and volctl mkfs, after
# volctl's offline writes, on corruptions made with tests/fixtures/corrupt.py,
# and on FST_SEEDS seeds (default 3) of random offline writes.

load ../helpers
load ../fixtures/fixture-helpers

CORRUPT="$BATS_TEST_DIRNAME/../fixtures/corrupt.py"
: "${BTRFS619:=/work/progs619/btrfs}"
: "${MKFS619:=$(dirname "$BTRFS619")/mkfs.btrfs}"

setup() {
	command -v zstd >/dev/null || skip "needs zstd"
	command -v jq >/dev/null || skip "needs jq"
}

have_oracle() {
	[ -x "$BTRFS619" ]
}

# verdict_619 IMG: 0 clean, 1 errors (btrfs check 6.19 --readonly); its output in $ORACLE_OUT
verdict_619() {
	ORACLE_OUT=$("$BTRFS619" check --readonly "$1" 2>&1) && echo 0 || echo 1
}

# agree IMG WANT: our check exits WANT (0 or 1) and, where built, btrfs check 6.19 says the same
agree() {
	local v
	run_volctl check "$1"
	if [ "$status" -ne "$2" ]; then
		echo "volctl check $1: exit $status, expected $2" >&2
		echo "$output" >&2
		return 1
	fi
	have_oracle || return 0
	v=$(verdict_619 "$1")
	if [ "$v" -ne "$2" ]; then
		echo "btrfs check 6.19 $1: verdict $v, expected $2" >&2
		echo "$ORACLE_OUT" >&2
		return 1
	fi
}

# fst_kinds IMG: the kinds of our free space findings, sorted and unique
fst_kinds() {
	"$VOLCTL" --format json check "$1" | jq -r '.check.free_space.problems[].kind' | sort -u |
		tr '\n' ' '
}

# A Debian mkfs 6.2 image (stale entries of its temporary chunks at 1 MiB and 5 MiB)
debian_image() {
	command -v mkfs.btrfs >/dev/null || skip "needs mkfs.btrfs (Debian btrfs-progs)"
	IMG="$BATS_TEST_TMPDIR/d.img"
	truncate -s 512M "$IMG"
	mkfs.btrfs -q -f "$IMG" >/dev/null
}

# $IMG made by Debian's mkfs, then written once offline: clean for both
clean_image() {
	debian_image
	run_volctl --image "$IMG" subvolume create /base
	assert_status 0
}

@test "check free space: Debian mkfs 6.2 leftovers reported as btrfs check 6.19 reports them" {
	debian_image
	agree "$IMG" 1
	assert_output_contains "free space tree: 1048576 length 4194304: entries (2 items) for a block group that no longer exists, left by mkfs"
	assert_output_contains "free space tree: 5242880 length 8388608: entries (2 items)"
	assert_output_contains "any volctl offline write drops them"
	run "$VOLCTL" --format json check "$IMG"
	assert_json
	[ "$(jq -r '.check.free_space | "\(.state) \(.problem_count) \(.block_groups)"' <<<"$output")" = \
	  "checked 2 3" ]
	[ "$(jq -c '[.check.free_space.problems[] | [.kind, .block_group, .start, .length]]' <<<"$output")" = \
	  '[["stale",null,1048576,4194304],["stale",null,5242880,8388608]]' ]
	have_oracle || return 0
	# the same ranges, named the same way by 6.19
	verdict_619 "$IMG" >/dev/null
	[ "$(grep -c 'has no corresponding block group' <<<"$ORACLE_OUT")" -eq 2 ]
	[[ "$ORACLE_OUT" == *"Space key logical 1048576 length 4194304 has no corresponding"* ]]
	[[ "$ORACLE_OUT" == *"Space key logical 5242880 length 8388608 has no corresponding"* ]]
}

@test "check free space: a volctl offline write drops the leftovers, clean under both" {
	clean_image
	agree "$IMG" 0
	assert_output_contains "free space tree: 3 block groups verified, matches the extent tree"
	run_volctl --image "$IMG" subvolume snapshot /base /snap
	assert_status 0
	run_volctl --image "$IMG" subvolume delete /base
	assert_status 0
	agree "$IMG" 0
}

@test "check free space: volctl mkfs and mkfs 6.19 images are clean under both, before and after writes" {
	IMG="$BATS_TEST_TMPDIR/v.img"
	run_volctl mkfs -s 300M "$IMG"
	assert_status 0
	agree "$IMG" 0
	run_volctl --image "$IMG" subvolume create -p /a/b/c
	assert_status 0
	agree "$IMG" 0
	[ -x "$MKFS619" ] || skip "needs btrfs-progs 6.19's mkfs.btrfs ($MKFS619)"
	IMG="$BATS_TEST_TMPDIR/p.img"
	truncate -s 300M "$IMG"
	"$MKFS619" -q -f "$IMG" >/dev/null
	agree "$IMG" 0
	run_volctl --image "$IMG" subvolume create /s
	assert_status 0
	run_volctl --image "$IMG" subvolume snapshot /s /t
	assert_status 0
	agree "$IMG" 0
}

@test "check free space: kernel-made bitmaps are read (rich4k), clean under both" {
	fixture rich4k
	run "$VOLCTL" --format json check "$IMG"
	[ "$(jq '.check.free_space.bitmaps' <<<"$output")" -ge 1 ]
	agree "$IMG" 0
}

@test "check free space: --repair-free-space drops the leftovers, refuses other findings" {
	debian_image
	run_volctl check --repair-free-space "$IMG"
	assert_status 0
	[ "$output" = "free space tree: 4 items of block groups that do not exist deleted" ]
	agree "$IMG" 0
	run_volctl check --repair-free-space "$IMG"
	assert_status 0
	[ "$output" = "free space tree: no items of block groups that do not exist, nothing written" ]
	# with another finding nothing is written
	debian_image
	python3 "$CORRUPT" "$IMG" item 22020096 198 8388608 0 4 3
	local before
	before=$(sha256sum <"$IMG")
	run_volctl check --repair-free-space "$IMG"
	assert_status 1
	assert_output_contains "free space tree: 1 problem besides entries of block groups that do not exist (see volctl check): a rebuild is not implemented, nothing written"
	[ "$(sha256sum <"$IMG")" = "$before" ]
	run_volctl check --repair-free-space --show "$IMG"
	assert_status 2
}

@test "check free space: a free run across bitmap items counts once, clean under both" {
	clean_image
	# the 32 MiB METADATA group as 4 bitmaps of 8 MiB: its last free extent spans 3 of them
	python3 "$CORRUPT" "$IMG" fst-bitmaps 30408704
	run "$VOLCTL" --format json check "$IMG"
	[ "$(jq '.check.free_space.bitmaps' <<<"$output")" -eq 4 ]
	agree "$IMG" 0
}

@test "check free space: the superblock copy's window may be free or not, as for 6.19" {
	command -v mkfs.btrfs >/dev/null || skip "needs mkfs.btrfs (Debian btrfs-progs)"
	IMG="$BATS_TEST_TMPDIR/g.img"
	truncate -s 1G "$IMG"
	mkfs.btrfs -q -f "$IMG" >/dev/null
	run_volctl check --repair-free-space "$IMG"
	assert_status 0
	# METADATA DUP 30408704: stripe 0 at 38797312, so the copy at 64 MiB is logical 58720256
	[ "$(phys_of 30408704)" = 38797312 ]
	cp "$IMG" "$BATS_TEST_TMPDIR/base.img"
	python3 "$CORRUPT" "$IMG" fst-cut 58720256 65536
	agree "$IMG" 0
	# one sector more is a finding
	cp "$BATS_TEST_TMPDIR/base.img" "$IMG"
	python3 "$CORRUPT" "$IMG" fst-cut 58720256 69632
	agree "$IMG" 1
	assert_output_contains "block group 30408704 length 53673984: 58785792 length 4096 is allocated by no extent item but not free in the free space tree"
	# and so is the stripe before the window
	cp "$BATS_TEST_TMPDIR/base.img" "$IMG"
	python3 "$CORRUPT" "$IMG" fst-cut 58654720 65536
	agree "$IMG" 1
}

@test "check free space: a wrong extent_count is reported by both" {
	clean_image
	# the SYSTEM block group 22020096 records 2 free extents
	python3 "$CORRUPT" "$IMG" item 22020096 198 8388608 0 4 3
	agree "$IMG" 1
	assert_output_contains "free space tree: block group 22020096 length 8388608: info item records 3 free extents, counted 2"
	[ "$(fst_kinds "$IMG")" = "extent_count " ]
}

@test "check free space: a moved free space extent is reported by both" {
	clean_image
	# (22052864 FREE_SPACE_EXTENT 8355840) starts 4 KiB later: 4 KiB nobody uses is not free
	python3 "$CORRUPT" "$IMG" kmove 22052864 199 8355840 22056960 8351744
	agree "$IMG" 1
	assert_output_contains "block group 22020096 length 8388608: 22052864 length 4096 is allocated by no extent item but not free in the free space tree"
	[ "$(fst_kinds "$IMG")" = "unallocated_not_free " ]
}

@test "check free space: an extent over allocated blocks or past its block group is reported by both" {
	clean_image
	# the first free extent of the SYSTEM group (22020096+16384) grows over the chunk tree block after it
	python3 "$CORRUPT" "$IMG" kmove 22020096 199 16384 22020096 32768
	agree "$IMG" 1
	assert_output_contains "22036480 length 16384 is free in the free space tree but allocated in the extent tree"
	[[ "$(fst_kinds "$IMG")" == *free_but_allocated* ]]
	clean_image
	python3 "$CORRUPT" "$IMG" kmove 22052864 199 8355840 22052864 8359936
	agree "$IMG" 1
	assert_output_contains "free space extent 22052864 length 8359936 ends beyond the block group"
}

@test "check free space: a flipped bitmap bit is reported by both" {
	fixture rich4k
	# rich4k's METADATA group 5242880 is in bitmap format; byte 1 is 0xb7: sectors 11 and 14 in use
	run "$VOLCTL" --format json inspect tree -t 10 "$IMG"
	[ "$(jq -r '[.trees[0].blocks[].items[] | select(.key.type_name == "FREE_SPACE_BITMAP")][0].body.data[2:4]' <<<"$output")" = b7 ]
	python3 "$CORRUPT" "$IMG" item 5242880 200 8388608 1 1 0xbf
	agree "$IMG" 1
	assert_output_contains "block group 5242880 length 8388608: 5287936 length 4096 is free in the free space tree but allocated in the extent tree"
	assert_output_contains "info item records 14 free runs, counted 13"
}

@test "check free space: the bitmap flag on extents, and a bitmap too short for its range, are reported by both" {
	clean_image
	python3 "$CORRUPT" "$IMG" item 22020096 198 8388608 4 4 1
	agree "$IMG" 1
	assert_output_contains "free space extent 22020096 length 16384, but the info item says bitmaps"
	fixture rich4k
	# 2049 sectors need 257 bytes, the item has 256 (tree-checker); 6.19: ends beyond the group
	python3 "$CORRUPT" "$IMG" kmove 5242880 200 8388608 5242880 8392704
	agree "$IMG" 1
	assert_output_contains "FREE_SPACE_BITMAP 8392704): free space bitmap item size 256, too short for its range (257)"
}

@test "check free space: a tree marked not valid is checked, findings not counted as errors" {
	debian_image
	# clear FREE_SPACE_TREE_VALID (compat_ro bit 1) and fix the checksum, in every
	# superblock copy (a mirror that differs from the primary fails check)
	local sb
	for sb in 0x10000 0x4000000; do
		[ "$(stat -c %s "$IMG")" -ge $((sb + 4096)) ] || continue
		python3 "$CORRUPT" "$IMG" set $((sb + 0xb4)) 8 1
		python3 "$CORRUPT" "$IMG" csum "$sb" 4096
	done
	run_volctl check "$IMG"
	assert_status 0
	assert_output_contains "free space tree: not marked valid (the kernel rebuilds it at the next read-write mount): 2 problems (3 block groups verified), not counted as errors"
	run "$VOLCTL" --format json check "$IMG"
	[ "$(jq -r '.check.free_space.state' <<<"$output")" = not_valid ]
}

@test "check free space: space cache v1 images say the tree is not checked" {
	fixture node64k-nofst
	run_volctl check "$IMG"
	assert_status 0
	assert_output_contains "free space tree: not in use (space cache v1 or none), not checked"
	run "$VOLCTL" --format json check --qgroup-report "$IMG"
	[ "$(jq -r '.check.free_space.state' <<<"$output")" = not_checked ]
}

# random_writes SEED: offline writes on $IMG chosen by SEED
random_writes() {
	local n=0 i op a b
	RANDOM=$1
	local -a subs=()
	for i in $(seq 1 $((8 + RANDOM % 12))); do
		op=$((RANDOM % 5))
		if [ ${#subs[@]} -eq 0 ]; then
			op=0
		fi
		case $op in
		0|1) a=/s$n; n=$((n + 1))
		   "$VOLCTL" --image "$IMG" subvolume create "$a" >/dev/null && subs+=("$a") ;;
		2) a=${subs[RANDOM % ${#subs[@]}]}; b=/t$n; n=$((n + 1))
		   "$VOLCTL" --image "$IMG" subvolume snapshot "$a" "$b" >/dev/null && subs+=("$b") ;;
		3) a=/d$n/e$((RANDOM % 3)); n=$((n + 1))
		   "$VOLCTL" --image "$IMG" subvolume create -p "$a" >/dev/null && subs+=("$a") ;;
		4) i=$((RANDOM % ${#subs[@]})); a=${subs[i]}
		   "$VOLCTL" --image "$IMG" subvolume delete "$a" >/dev/null &&
			subs=("${subs[@]:0:i}" "${subs[@]:i+1}") ;;
		esac || return 1
	done
}

@test "check free space: random offline writes, our verdict and 6.19's agree (FST_SEEDS seeds)" {
	local seed
	for seed in $(seq 1 "${FST_SEEDS:-3}"); do
		debian_image
		random_writes "$seed" || { echo "seed $seed: a write failed" >&2; return 1; }
		agree "$IMG" 0 || { echo "seed $seed" >&2; return 1; }
	done
}
