#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The image handle (common/image/image.h): one command run opens the image once
# and reads its superblock once, reading or writing.

load ../helpers

setup() {
	command -v mkfs.btrfs >/dev/null || skip "needs mkfs.btrfs"
	command -v strace >/dev/null || skip "needs strace (to count the opens and reads)"
	IMG="$BATS_TEST_TMPDIR/fs.img"
	truncate -s 256M "$IMG"
	mkfs.btrfs -q -f "$IMG" >/dev/null
	"$VOLCTL" --image "$IMG" quota enable /
	"$VOLCTL" --image "$IMG" subvolume create /sv >/dev/null
}

# counts VOLCTL ARGS...: "OPENS SUPERS", the opens of the image and the
# reads of its primary superblock copy (64 KiB) by one run; a failing run
# prints its errors and fails.  LeakSanitizer cannot run under ptrace, so an
# ASan build is traced with leak detection off (the other runs keep it).
counts() {
	local log="$BATS_TEST_TMPDIR/strace.log" err="$BATS_TEST_TMPDIR/strace.err"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -o "$log" -e trace=openat,pread64 "$VOLCTL" "$@" >/dev/null 2>"$err" ||
		{ cat "$err"; return 1; }
	echo "$(grep -c "openat(.*\"$IMG\"" "$log") $(grep -cE 'pread64\(.*, 4096, 65536\) = 4096' "$log")"
}

@test "an offline snapshot opens the image once and reads its superblock once" {
	run counts --image "$IMG" subvolume snapshot /sv /snap
	assert_status 0
	[ "$output" = "1 1" ]
	run "$VOLCTL" --image "$IMG" subvolume list /
	assert_output_contains "path snap"
}

@test "an offline qgroup create opens the image once and reads its superblock once" {
	run counts --image "$IMG" qgroup create 1/100 /
	assert_status 0
	[ "$output" = "1 1" ]
}

@test "check and inspect open the image once and read its superblock once" {
	run counts check "$IMG"
	assert_status 0
	[ "$output" = "1 1" ]
	run counts inspect tree --walk-only "$IMG"
	assert_status 0
	[ "$output" = "1 1" ]
}
