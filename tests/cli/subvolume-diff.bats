#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# volctl subvolume diff on images (no root needed): a snapshot of an
# untouched subvolume has no line, the line formats (text, -H, -F, -t,
# escaping), and the refusals.  What the diff finds is held to the kernel
# in tests/mounted/subvol-diff-oracle.bats (random snapshot pairs).

load ../helpers

setup() {
	command -v btrfs >/dev/null || skip "needs btrfs-progs"
	IMG="$BATS_TEST_TMPDIR/fs.img"
	SRC="$BATS_TEST_TMPDIR/src"
	mkdir -p "$SRC/a/d" "$SRC/b/d"
	# a and b: the same tree shape, so their inodes have the same numbers and
	# generation (one commit): b's differences read as changes of a's inodes
	printf 'one' >"$SRC/a/d/f"
	printf 'two' >"$SRC/b/d/f"
	printf 'same' >"$SRC/a/g"
	printf 'same' >"$SRC/b/g"
	touch -d '2020-01-01 00:00:00' "$SRC/a/g" "$SRC/b/g" "$SRC/a/d/f"
	touch -d '2021-01-01 00:00:00' "$SRC/b/d/f"
	chmod 600 "$SRC/b/g"
	run_volctl mkfs -s 256M -r "$SRC" --subvol /a --subvol /b --snapshot a:/a-snap "$IMG"
	assert_status 0
}

@test "subvolume diff: a snapshot and its untouched source: no line, exit 0" {
	run_volctl --image "$IMG" subvolume diff /a /a-snap
	assert_status 0
	[ -z "$output" ]
	run_volctl --image "$IMG" subvolume diff /a-snap /a
	assert_status 0
	[ -z "$output" ]
}

@test "subvolume diff: M lines with what changed, in text, -H, -F and -t" {
	run_volctl --image "$IMG" subvolume diff /a /b
	assert_status 0
	[ "$output" = "$(printf 'M\t/d/f\t(content, times)\nM\t/g\t(mode)')" ] || { echo "$output"; false; }
	run_volctl --image "$IMG" subvolume diff -H /a /b
	[ "$output" = "$(printf 'M\t/d/f\tcontent,times\nM\t/g\tmode')" ] || { echo "$output"; false; }
	run_volctl --image "$IMG" subvolume diff -F /a /b
	[ "$output" = "$(printf 'M\tF\t/d/f\t(content, times)\nM\tF\t/g\t(mode)')" ] || { echo "$output"; false; }
	run_volctl --image "$IMG" subvolume diff -t /a /b
	echo "$output" | grep -qE "^[0-9]+\.[0-9]{9}$(printf '\t')M$(printf '\t')/g$(printf '\t')\(mode\)$"
}

@test "subvolume diff: refusals: usage, a path that is no subvolume, online off btrfs" {
	run_volctl --image "$IMG" subvolume diff /a
	assert_status 2
	run_volctl --image "$IMG" subvolume diff /a /a/d
	assert_status 1
	assert_output_contains "/a/d: not a subvolume"
	run_volctl --image "$IMG" subvolume diff /a /nope
	assert_status 1
	assert_output_contains "/nope"
	# online (tests/mounted/subvol-diff-online.bats): a path off btrfs
	run_volctl subvolume diff /proc /proc
	assert_status 1
	assert_output_contains "/proc: not a btrfs filesystem"
}
