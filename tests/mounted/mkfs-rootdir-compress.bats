#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# volctl mkfs --rootdir --compress against the kernel: for zstd, lzo and
# zlib the kernel mounts the image and reads every file as in the tree, a
# scrub is clean, the extents are compressed where the data shrinks and
# plain where it does not (dump-tree: compsize is not in Debian 12's
# archive), the qgroup numbers written equal the kernel's rescan, and the
# image takes writes to compressed files and stays clean.

load ../helpers

setup() {
	require_root_loop
	SRC="$BATS_TEST_TMPDIR/src"
	IMG="$BATS_TEST_TMPDIR/fs.img"
	MNT="$BATS_TEST_TMPDIR/mnt"
	mkdir -p "$SRC" "$MNT"
	LOOPDEV=
}

teardown() {
	mountpoint -q "$MNT" && umount "$MNT"
	[ -n "$LOOPDEV" ] && losetup -d "$LOOPDEV" 2>/dev/null
	true
}

make_tree() {
	mkdir -p "$SRC/text" "$SRC/bin"
	seq 1 300000 >"$SRC/text/numbers"
	for i in 1 2 3 4 5; do
		yes "line $i of a small text file" | head -c $((1000 * i)) >"$SRC/text/small$i"
	done
	head -c 700000 /dev/urandom >"$SRC/bin/random"
	head -c 3000 /dev/urandom >"$SRC/bin/random-small"
	# 128 KiB chunks: two random, two text, two random
	{ head -c 262144 /dev/urandom; seq 1 60000 | head -c 262144; head -c 262144 /dev/urandom; } \
		>"$SRC/bin/mixed"
	truncate -s 4M "$SRC/text/sparse"
	seq 1 20000 | dd of="$SRC/text/sparse" bs=4096 seek=300 conv=notrunc status=none
	: >"$SRC/text/empty"
}

attach() {
	LOOPDEV=$(losetup -f --show "$@" "$IMG")
}

detach() {
	umount "$MNT"
	losetup -d "$LOOPDEV"
	LOOPDEV=
}

# COMPRESSION (zstd, lzo, zlib, none) of every file extent of the file at
# path $2 in the image, one a line, from dump-tree of tree $1
extent_types() {
	local ino
	ino=$(stat -c %i "$MNT/$2")
	btrfs inspect-internal dump-tree -t "$1" "$LOOPDEV" | awk -v ino="$ino" '
		$3 == "key" && $4 == "(" ino { on = ($5 == "EXTENT_DATA"); next }
		on && /inline extent data size/ { print $NF; on = 0 }
		on && /extent compression/ { print $NF; on = 0 }' | tr -d '()'
}

@test "mkfs --rootdir --compress: the kernel reads every file back, scrub clean, extents compressed where data shrinks" {
	make_tree
	for alg in zstd lzo zlib:9; do
		name=${alg%%:*}
		rm -f "$IMG"
		run "$VOLCTL" mkfs -s 256M -r "$SRC" --compress "$alg" "$IMG"
		[ "$status" -eq 0 ] || { echo "$output" >&2; false; }
		attach -r
		mount -o ro "$LOOPDEV" "$MNT"
		run diff -r "$SRC" "$MNT"
		[ "$status" -eq 0 ] || { echo "$alg: $output" >&2; false; }
		run btrfs scrub start -B -r "$MNT"
		[ "$status" -eq 0 ] || { echo "$alg scrub: $output" >&2; false; }
		assert_output_contains "no errors found"
		# text: compressed, every extent
		[ "$(extent_types 5 text/numbers | sort -u)" = "$name" ]
		for i in 1 2 3 4; do
			[ "$(extent_types 5 text/small$i)" = "$name" ] ||
				{ echo "$alg small$i: $(extent_types 5 text/small$i)" >&2; false; }
		done
		# 5000 bytes: two sectors into one, a regular compressed extent
		[ "$(extent_types 5 text/small5)" = "$name" ]
		# random: plain
		[ "$(extent_types 5 bin/random | sort -u)" = none ]
		[ "$(extent_types 5 bin/random-small)" = none ]
		# mixed: plain, compressed, then plain again
		got=$(extent_types 5 bin/mixed | uniq | tr '\n' ' ')
		[ "$got" = "none $name none " ] || { echo "$alg mixed: $got" >&2; false; }
		[ "$(extent_types 5 text/sparse | sort -u)" = "$name" ]
		# the kernel reports the compressed extents as encoded (filefrag)
		if command -v filefrag >/dev/null; then
			run filefrag -v "$MNT/text/numbers"
			assert_output_contains "encoded"
		fi
		detach
	done
}

@test "mkfs --rootdir --compress --quota: written numbers equal the kernel's rescan" {
	make_tree
	for alg in zstd lzo zlib; do
		rm -f "$IMG"
		run "$VOLCTL" mkfs -s 256M -r "$SRC" --compress "$alg" --quota --subvol /bin "$IMG"
		[ "$status" -eq 0 ] || { echo "$output" >&2; false; }
		attach
		mount "$LOOPDEV" "$MNT"
		before=$(btrfs qgroup show --raw "$MNT" | awk '/^0\//{print $1, $2, $3}')
		[ -n "$before" ]
		btrfs quota rescan -w "$MNT" >/dev/null
		after=$(btrfs qgroup show --raw "$MNT" | awk '/^0\//{print $1, $2, $3}')
		[ "$before" = "$after" ] || { echo "$alg written: $before / rescan: $after" >&2; false; }
		detach
	done
}

@test "mkfs --rootdir --compress: a read-write mount changes compressed files, check stays clean" {
	make_tree
	run "$VOLCTL" mkfs -s 256M -r "$SRC" --compress zstd "$IMG"
	[ "$status" -eq 0 ] || { echo "$output" >&2; false; }
	attach
	mount -o compress=zstd "$LOOPDEV" "$MNT"
	# overwrite the middle of a compressed extent, append, truncate, delete
	printf 'OVERWRITTEN' | dd of="$MNT/text/numbers" bs=1 seek=200000 conv=notrunc status=none
	printf 'OVERWRITTEN' | dd of="$SRC/text/numbers" bs=1 seek=200000 conv=notrunc status=none
	seq 1 1000 >>"$MNT/text/small3"
	seq 1 1000 >>"$SRC/text/small3"
	truncate -s 100000 "$MNT/bin/mixed" "$SRC/bin/mixed"
	rm "$MNT/text/small1" "$SRC/text/small1"
	sync -f "$MNT"
	umount "$MNT"
	mount -o ro "$LOOPDEV" "$MNT"
	run diff -r "$SRC" "$MNT"
	[ "$status" -eq 0 ] || { echo "$output" >&2; false; }
	umount "$MNT"
	run btrfs check --readonly --check-data-csum "$LOOPDEV"
	[ "$status" -eq 0 ] || { echo "$output" >&2; false; }
	losetup -d "$LOOPDEV"
	LOOPDEV=
}
