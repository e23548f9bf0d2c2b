#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# volctl subvolume send-size -p/-c on images (no root needed): what it
# refuses, in one line each with exit 1, and the parent -c picks.  The
# numbers are held to the kernel's streams in tests/mounted/send-size*.bats.

load ../helpers

setup() {
	IMG="$BATS_TEST_TMPDIR/fs.img"
	SRC="$BATS_TEST_TMPDIR/src"
	mkdir -p "$SRC/a/d" "$SRC/b/d"
	printf 'one' >"$SRC/a/d/f"
	printf 'two' >"$SRC/b/d/f"
	run_volctl mkfs -s 256M -r "$SRC" --subvol /a --subvol /b --snapshot a:/a1:ro \
		--snapshot a:/a2:ro "$IMG"
	assert_status 0
	run_volctl --image "$IMG" subvolume snapshot -r /b /b1
	assert_status 0
}

@test "send-size -p: two snapshots of one subvolume: the numbers, text and JSON" {
	run_volctl --image "$IMG" subvolume send-size -p /a1 /a2
	assert_status 0
	assert_output_contains "v1: "
	assert_output_contains "v2 compressed: "
	run_volctl --image "$IMG" --format json subvolume send-size -p /a1 /a2
	assert_status 0
	assert_json
	# the stream of an unchanged pair: the header, the snapshot command, end
	[ "$(echo "$output" | jq '.subvolume_send_size.v1.data')" = 0 ]
}

@test "send-size -p/-c: refusals in one line: a writable parent, itself, an unrelated parent, -c with no parent, not a subvolume" {
	run_volctl --image "$IMG" subvolume send-size -p /a /a1
	assert_status 1
	[ "$output" = "error: /a: not read-only, and btrfs send refuses a writable parent (send a read-only snapshot of it: volctl subvolume snapshot -r)" ]
	run_volctl --image "$IMG" subvolume send-size -p /a1 /a1
	assert_status 1
	assert_output_contains "its own parent"
	run_volctl --image "$IMG" subvolume send-size -p /b1 /a1
	assert_status 1
	assert_output_contains "/b1 shares no origin with it"
	assert_output_contains "where a full send is "
	run_volctl --image "$IMG" subvolume send-size -c /b1 /a1
	assert_status 1
	assert_output_contains "finds no parent among the clone sources"
	run_volctl --image "$IMG" subvolume send-size -p /a/d /a1
	assert_status 1
	assert_output_contains "/a/d: not a subvolume"
	[ "$(echo "$output" | wc -l)" -eq 1 ]
}

@test "send-size -c: the parent picked as btrfs send picks it (a snapshot of the same origin)" {
	run_volctl --image "$IMG" subvolume send-size -p /a1 /a2
	assert_status 0
	p=$output
	run_volctl --image "$IMG" subvolume send-size -c /a1 /a2
	assert_status 0
	[ "$output" = "$p" ]
	run_volctl --image "$IMG" subvolume send-size -c /b1 -c /a1 /a2
	assert_status 0
	[ "$output" = "$p" ]
}
