#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The tree comparison engine (kernel-shared/tree-compare.c) on trees the
# kernel wrote: a subvolume of 4000 files, read-only snapshots of it, then
# changes.  The test helper tests/tree-compare/tree-compare (built by the
# Makefile, $TREE_COMPARE) lists the differences between two fs trees of
# the unmounted image through the engine and through a naive full
# comparison (every item of both trees read and merged by key): the lists
# must be equal, and the engine must read far fewer blocks than the trees
# hold, since the snapshots share every unchanged subtree.

load ../helpers

# One kernel-made image for the whole file (4 KiB nodes: a 3-level tree):
#   sv   4000 small files in 20 directories, a few of 64-300 KiB
#   s0   read-only snapshot of sv
#   s1   read-only snapshot of sv right after s0 (no change between)
#   s2   read-only snapshot after one file was appended to
#   then sv changed: appends, rewrites, deletes, creates, chmod, renames
#   across directories, a hard link, a new directory, a truncated file
setup_file() {
	[ "$(id -u)" -eq 0 ] || return 0
	grep -qw btrfs /proc/filesystems 2>/dev/null || modprobe btrfs 2>/dev/null || return 0
	local img="$BATS_FILE_TMPDIR/base.img" mnt="$BATS_FILE_TMPDIR/mnt" dev i d
	mkdir -p "$mnt"
	truncate -s 512M "$img"
	mkfs.btrfs -q -f -n 4096 "$img" >/dev/null
	dev=$(losetup -f --show "$img")
	mount "$dev" "$mnt"
	btrfs subvolume create "$mnt/sv" >/dev/null
	for d in $(seq 0 19); do
		mkdir "$mnt/sv/d$d"
	done
	for i in $(seq 1 4000); do
		printf 'file %d of the tree-compare test\n' "$i" >"$mnt/sv/d$((i % 20))/f$i"
	done
	for i in 1 2 3 4 5; do
		head -c $((i * 64 * 1024)) /dev/urandom >"$mnt/sv/d$i/big$i"
	done
	sync -f "$mnt"
	btrfs subvolume snapshot -r "$mnt/sv" "$mnt/s0" >/dev/null
	btrfs subvolume snapshot -r "$mnt/sv" "$mnt/s1" >/dev/null
	echo one more line >>"$mnt/sv/d7/f1207"
	sync -f "$mnt"
	btrfs subvolume snapshot -r "$mnt/sv" "$mnt/s2" >/dev/null
	for i in $(seq 11 200 4000); do
		echo appended >>"$mnt/sv/d$((i % 20))/f$i"
	done
	for i in $(seq 53 400 4000); do
		rm "$mnt/sv/d$((i % 20))/f$i"
	done
	for i in $(seq 1 10); do
		echo new >"$mnt/sv/d$((i % 3))/new$i"
	done
	for i in $(seq 97 800 4000); do
		chmod 600 "$mnt/sv/d$((i % 20))/f$i"
	done
	mv "$mnt/sv/d1/f1001" "$mnt/sv/d2/moved1001"
	mv "$mnt/sv/d3/f3003" "$mnt/sv/d3/renamed3003"
	ln "$mnt/sv/d4/f2004" "$mnt/sv/d5/link2004"
	mkdir "$mnt/sv/newdir"
	truncate -s 1000 "$mnt/sv/d3/big3"
	dd if=/dev/urandom of="$mnt/sv/d4/big4" bs=4K seek=10 count=2 conv=notrunc status=none
	sync -f "$mnt"
	for d in sv s0 s1 s2; do
		btrfs inspect-internal rootid "$mnt/$d" >"$BATS_FILE_TMPDIR/id.$d"
	done
	umount "$mnt"
	losetup -d "$dev"
}

setup() {
	require_root_loop
	[ -f "$BATS_FILE_TMPDIR/base.img" ] || { echo "setup_file did not build the base image" >&2; return 1; }
	[ -x "${TREE_COMPARE:-}" ] || { echo "TREE_COMPARE (tests/tree-compare/tree-compare) is not built" >&2; return 1; }
	IMG="$BATS_FILE_TMPDIR/base.img"
}

id_of() {
	cat "$BATS_FILE_TMPDIR/id.$1"
}

# compare LEFT RIGHT: engine and naive lists into $OUT.{diff,naive}, the
# engine's counts in $BLOCKS_L $BLOCKS_R $TREE_L $TREE_R
compare() {
	OUT="$BATS_TEST_TMPDIR/$1-$2"
	"$TREE_COMPARE" diff "$IMG" "$(id_of "$1")" "$(id_of "$2")" >"$OUT.diff" 2>"$OUT.diff.err"
	"$TREE_COMPARE" naive "$IMG" "$(id_of "$1")" "$(id_of "$2")" >"$OUT.naive" 2>"$OUT.naive.err"
	diff -u "$OUT.naive" "$OUT.diff"
	read -r _ BLOCKS_L BLOCKS_R _ TREE_L TREE_R _ <"$OUT.diff.err"
	echo "# $1 -> $2: $(wc -l <"$OUT.diff") differences, blocks read $BLOCKS_L + $BLOCKS_R of $TREE_L + $TREE_R" >&3
}

@test "tree-compare: two snapshots of an unchanged subvolume differ in nothing and read their roots only" {
	compare s0 s1
	[ ! -s "$OUT.diff" ]
	[ "$BLOCKS_L" -eq 1 ]
	[ "$BLOCKS_R" -eq 1 ]
	[ "$TREE_L" -gt 300 ]		# a tree of hundreds of blocks, 3 levels
}

@test "tree-compare: one appended file: its items only, a handful of blocks" {
	compare s0 s2
	[ -s "$OUT.diff" ]
	# the items of f1207's inode only (its INODE_ITEM, its inline extent)
	[ "$(awk '{ print $2 }' "$OUT.diff" | sort -u | wc -l)" -eq 1 ]
	[ "$BLOCKS_L" -le 10 ]
	[ "$BLOCKS_R" -le 10 ]
	# and the other way round
	compare s2 s0
	[ "$(wc -l <"$OUT.diff")" -eq "$(wc -l <"$BATS_TEST_TMPDIR/s0-s2.diff")" ]
}

@test "tree-compare: many changes equal the full comparison, at a fraction of the blocks" {
	compare s0 sv
	[ "$(wc -l <"$OUT.diff")" -gt 50 ]
	grep -q '^- ' "$OUT.diff"
	grep -q '^+ ' "$OUT.diff"
	grep -q '^M ' "$OUT.diff"
	[ $((BLOCKS_L * 4)) -lt "$TREE_L" ]
	[ $((BLOCKS_R * 4)) -lt "$TREE_R" ]
	compare sv s0
	compare s2 sv
	compare s1 s2
}

@test "tree-compare: trees of the same filesystem that share nothing" {
	echo 5 >"$BATS_FILE_TMPDIR/id.top"
	compare top sv
	[ -s "$OUT.diff" ]
}

@test "tree-compare: a tree that does not exist is an error" {
	run "$TREE_COMPARE" diff "$IMG" "$(id_of s0)" 4242
	[ "$status" -eq 1 ]
}
