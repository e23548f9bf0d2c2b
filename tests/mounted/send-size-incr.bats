#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# `subvolume send-size -p PARENT` and `-c CLONE` against the kernel: the bytes
# of `btrfs send -p | wc -c` for protocol 1 and for --proto 2
# --compressed-data, exact.  On tests/kdiff/pairgen.py pairs (creates,
# deletes, renames and moves of files and directories, hard links, rewrites,
# appends, truncates, hole punches, reflinks, dedupes, xattrs, owners, an
# inode number reused), plain and compressed, also with the pair swapped (a
# parent that is newer) and with -c instead of -p (btrfs send then picks the
# parent); on hand-made renames the kernel must delay (a directory moved
# below one of its own children, a directory waiting for its removal, two
# names swapped); a tie between two clone sources that the send's backref
# cache breaks; then what it refuses: a writable parent, itself as parent,
# -c with no parent to pick, an unrelated parent (with what the kernel would
# send), a path that is not a subvolume.

load ../helpers

K="$BATS_TEST_DIRNAME/../kdiff"

setup() {
	require_root_loop
	command -v python3 >/dev/null || skip "needs python3"
	W="$BATS_TEST_TMPDIR/si"
}

teardown() {
	cleanup_mount
}

pair() {
	run "$K/sendsize-incr.sh" "$VOLCTL" "$W" "$@"
	echo "$output"
	assert_status 0
	[ "$(echo "$output" | grep -c ' ok$')" -eq 3 ]
}

@test "send-size -p: pairgen seed 1 plain, inc/swapped/-c: equal to btrfs send -p | wc -c" {
	pair 1
}

@test "send-size -p: pairgen seed 2 compress=zstd: equal, v2 encoded writes included" {
	pair 2 compress=zstd
}

@test "send-size -p: pairgen seed 7 compress-force=zstd and seed 4 compress=lzo: equal" {
	pair 7 compress-force=zstd
	pair 4 compress=lzo
}

# both numbers of the kernel for -p $1 $2, then volctl's on the image
exact_after() {
	local k1 k2
	k1=$(btrfs send -q -p "$MNT/$1" "$MNT/$2" | wc -c)
	k2=$(btrfs send -q --proto 2 --compressed-data -p "$MNT/$1" "$MNT/$2" | wc -c)
	btrfs send -q -p "$MNT/$1" "$MNT/$2" | btrfs receive --dump >"$BATS_TEST_TMPDIR/dump" 2>&1
	umount "$MNT"
	run_volctl --image "$IMG" subvolume send-size -p "/$1" "/$2"
	echo "$output kernel v1 $k1 v2c $k2"
	assert_status 0
	assert_output_contains "v1: $k1 bytes"
	assert_output_contains "v2 compressed: $k2 bytes"
	mount -o loop "$IMG" "$MNT"
}

@test "send-size -p: renames the kernel must delay or orphanize: exact" {
	mkfs_mount
	btrfs -q subvolume create "$MNT/sv"
	cd "$MNT/sv"
	# a directory moved below its own former child
	mkdir -p a/b/c/d a/b/c2
	# a directory that can only go once its child moved out
	mkdir -p p/q/r/x p/q/y
	echo data >p/q/r/foo.txt
	# two names swapped, a file and a directory on each other's name
	mkdir s1 s2 && echo one >s1/f && echo two >s2/f
	echo f >n1 && mkdir n2
	# a chain of renames in one directory
	for i in 1 2 3 4 5; do echo $i >"k$i"; done
	cd /
	btrfs -q subvolume snapshot -r "$MNT/sv" "$MNT/old"
	cd "$MNT/sv"
	mv a/b/c/d a/b/c2/d2
	mv a/b/c a/b/c2/d2/cc
	rm p/q/r/foo.txt
	mv p/q/y p/q/YY
	mv p/q/r/x p/q/YY
	rmdir p/q/r
	mv s1 tmp && mv s2 s1 && mv tmp s2
	mv n1 tmp && mv n2 n1 && mv tmp n2
	mv k5 k6 && mv k4 k5 && mv k3 k4 && mv k2 k3 && mv k1 k2
	cd /
	btrfs -q subvolume snapshot -r "$MNT/sv" "$MNT/new"
	exact_after old new
	grep -q "rename.*o2[0-9][0-9]-" "$BATS_TEST_TMPDIR/dump"
	exact_after new old
}

@test "send-size -p: a tie between clone sources broken by the send's backref cache, as the kernel does" {
	mkfs_mount
	tie_leaf old
	btrfs -q subvolume snapshot -r "$MNT/sv" "$MNT/new"
	# sending old: t may clone c1 or the longer name (equal lengths); the
	# leaf's roots were cached at c1, so the kernel offers its items in
	# slot order at once (c1 first), not in the reversed order of a
	# shared leaf's list (the longer name first)
	exact_after new old
	grep -q "clone *./old/t .*from=./old/c1 " "$BATS_TEST_TMPDIR/dump"
}

@test "send-size -p: refusals: a writable parent, itself, -c without a parent to pick, an unrelated parent, not a subvolume" {
	mkfs_mount
	btrfs -q subvolume create "$MNT/sv"
	head -c 100000 /dev/urandom >"$MNT/sv/a"
	btrfs -q subvolume snapshot -r "$MNT/sv" "$MNT/s1"
	echo more >>"$MNT/sv/a"
	btrfs -q subvolume snapshot -r "$MNT/sv" "$MNT/s2"
	btrfs -q subvolume create "$MNT/other"
	mkdir "$MNT/other/dir"
	head -c 50000 /dev/urandom >"$MNT/other/dir/b"
	btrfs property set -ts "$MNT/other" ro true
	ku=$(btrfs send -q -p "$MNT/other" "$MNT/s2" | wc -c)
	kf=$(btrfs send -q "$MNT/s2" | wc -c)
	run btrfs send -q -c "$MNT/other" "$MNT/s2" -f /dev/null
	[ "$status" -ne 0 ]
	umount "$MNT"
	run_volctl --image "$IMG" subvolume send-size -p /sv /s2
	assert_status 1
	assert_output_contains "error: /sv: not read-only, and btrfs send refuses a writable parent"
	run_volctl --image "$IMG" subvolume send-size -p /s2 /s2
	assert_status 1
	assert_output_contains "its own parent"
	run_volctl --image "$IMG" subvolume send-size -c /other /s2
	assert_status 1
	assert_output_contains "finds no parent among the clone sources"
	run_volctl --image "$IMG" subvolume send-size -p /other /s2
	assert_status 1
	echo "kernel: unrelated $ku full $kf"
	assert_output_contains "/other shares no origin with it"
	assert_output_contains "would still send it: $ku bytes (v1;"
	assert_output_contains "where a full send is $kf bytes"
	run_volctl --image "$IMG" subvolume send-size -p /sv/a /s2
	assert_status 1
	assert_output_contains "/sv/a: not a subvolume"
	run_volctl --image "$IMG" subvolume send-size -p /s1 /s2
	assert_status 0
}
