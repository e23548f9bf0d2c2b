#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Corrupted images: every read-only command exits 1 with exactly one clear
# "error: ..." line on stderr; never a signal (exit >= 128), never a hang
# (timeout 20).  The corruptions are made with tests/fixtures/corrupt.py on
# the rich4k fixture (crc32c, 4k nodes, SINGLE metadata: one copy of every
# block, so nothing can be read from another mirror).

load ../helpers
load ../fixtures/fixture-helpers

CORRUPT="$BATS_TEST_DIRNAME/../fixtures/corrupt.py"
NODESIZE=4096

# commands that each read the chunk tree, the root tree and more
ALL_CMDS=(
	"subvolume list /"
	"subvolume list -d /"
	"subvolume show /a"
	"subvolume get-default /"
	"qgroup show -pcre /"
	"quota status /"
	"--format json subvolume list /"
)

setup() {
	fixture rich4k
	ROOT=$(super_field root)
	ROOT_PHYS=$(phys_of "$ROOT")
	CHUNK=$(super_field chunk_root)
	CHUNK_PHYS=$(phys_of "$CHUNK")
	# first leaf under the root tree's root node (level 1 in rich4k)
	LEAF=$("$VOLCTL" --format json inspect tree -b "$ROOT" "$IMG" |
		jq '.trees[0].blocks[0].ptrs[0].blockptr')
	LEAF_PHYS=$(phys_of "$LEAF")
	[ "$ROOT_PHYS" -gt 0 ]
	[ "$CHUNK_PHYS" -gt 0 ]
	[ "$LEAF_PHYS" -gt 0 ]
}

set_le() {
	python3 "$CORRUPT" "$IMG" set "$@"
}

block_csum() {
	python3 "$CORRUPT" "$IMG" csum "$1" "$NODESIZE"
}

super_csum_all() {
	python3 "$CORRUPT" "$IMG" csum 65536 4096
	python3 "$CORRUPT" "$IMG" csum 67108864 4096
}

# set a superblock field in both copies (the image has two) and re-checksum
super_set() {
	local off=$1 size=$2 value=$3
	set_le $((65536 + off)) "$size" "$value"
	set_le $((67108864 + off)) "$size" "$value"
	super_csum_all
}

# run one command: exit 1..127 (not a signal, not the timeout), one error line
expect_clean_failure() {
	local errf="$BATS_TEST_TMPDIR/err" rc=0 lines
	# shellcheck disable=SC2086
	timeout 20 "$VOLCTL" --image "$IMG" "$@" >/dev/null 2>"$errf" || rc=$?
	lines=$(wc -l <"$errf")
	if [ "$rc" -eq 0 ] || [ "$rc" -ge 124 ]; then
		echo "volctl $*: exit $rc" >&2
		cat "$errf" >&2
		return 1
	fi
	if [ "$lines" -ne 1 ] || ! grep -q '^error: ' "$errf"; then
		echo "volctl $*: exit $rc, stderr not one error line:" >&2
		cat "$errf" >&2
		return 1
	fi
	# the message names the image once: the object first, no echo
	if [ "$(grep -o "$(basename "$IMG")" "$errf" | wc -l)" -ne 1 ]; then
		echo "volctl $*: the image is not named exactly once:" >&2
		cat "$errf" >&2
		return 1
	fi
	LAST_ERR=$(cat "$errf")
}

# inspect tree --walk-only fails cleanly too (it takes the image as argument)
expect_clean_failure_walk() {
	local rc=0
	timeout 20 "$VOLCTL" inspect tree --walk-only "$IMG" >/dev/null 2>"$BATS_TEST_TMPDIR/err" || rc=$?
	[ "$rc" -ge 1 ] && [ "$rc" -lt 124 ] && [ "$(wc -l <"$BATS_TEST_TMPDIR/err")" -eq 1 ] || {
		echo "walk-only: exit $rc" >&2
		cat "$BATS_TEST_TMPDIR/err" >&2
		return 1
	}
}

all_fail() {
	local c
	for c in "${ALL_CMDS[@]}"; do
		# shellcheck disable=SC2086
		expect_clean_failure $c || return 1
	done
	# the dump and the verifying walk stop at the first bad block, never crash
	local rc=0
	timeout 20 "$VOLCTL" inspect tree "$IMG" >/dev/null 2>&1 || rc=$?
	[ "$rc" -ge 1 ] && [ "$rc" -lt 124 ] || { echo "inspect tree: exit $rc" >&2; return 1; }
	rc=0
	timeout 20 "$VOLCTL" inspect tree --walk-only "$IMG" >/dev/null 2>&1 || rc=$?
	[ "$rc" -ge 1 ] && [ "$rc" -lt 124 ] || { echo "walk-only: exit $rc" >&2; return 1; }
}

@test "corrupt: superblock magic in every copy" {
	set_le $((65536 + 64)) 8 0
	set_le $((67108864 + 64)) 8 0
	all_fail
	[[ "$LAST_ERR" == *"not a btrfs filesystem (no valid superblock)"* ]]
}

@test "corrupt: superblock checksum in every copy" {
	set_le $((65536 + 200)) 1 0x55
	set_le $((67108864 + 200)) 1 0x55
	all_fail
	[[ "$LAST_ERR" == *checksum* ]]
}

@test "corrupt: superblock 0 alone is bad: refused as the kernel refuses it, --super 1 reads the mirror" {
	set_le $((65536 + 200)) 1 0x55
	all_fail
	[[ "$LAST_ERR" == *"superblock mirror 0: checksum mismatch"*"--super 1 reads it"* ]]
	expect_clean_failure --super 0 subvolume list /
	run_volctl --super 1 --image "$IMG" subvolume list /
	assert_status 0
	assert_output_contains "using superblock mirror 1 at 67108864"
}

@test "corrupt: superblock nodesize not a power of two" {
	super_set 148 4 3000
	all_fail
}

@test "corrupt: superblock sectorsize zero" {
	super_set 144 4 0
	all_fail
}

@test "corrupt: superblock root level 9" {
	super_set 198 1 9
	all_fail
}

@test "corrupt: superblock root pointer unaligned" {
	super_set 80 8 $((ROOT + 100))
	all_fail
}

@test "corrupt: superblock root pointer to an unmapped address" {
	super_set 80 8 $((1 << 40))
	all_fail
}

@test "corrupt: superblock sys_chunk_array_size too large" {
	super_set 160 4 5000
	all_fail
}

@test "corrupt: superblock sys_chunk_array chunk with zero stripes" {
	# first entry: 17-byte key, then the chunk item; num_stripes at +44
	super_set $((811 + 17 + 44)) 2 0
	all_fail
}

@test "corrupt: superblock generation older than the root block" {
	super_set 72 8 3
	all_fail
}

@test "corrupt: checksum of the chunk tree block" {
	set_le $((CHUNK_PHYS + 300)) 1 0x77
	all_fail
	[[ "$LAST_ERR" == *"tree block $CHUNK: checksum mismatch"* ]]
}

@test "corrupt: checksum of the root tree root" {
	set_le $((ROOT_PHYS + 200)) 1 0x77
	all_fail
	[[ "$LAST_ERR" == *"checksum mismatch"* ]]
}

@test "corrupt: zeroed root tree root block" {
	dd if=/dev/zero of="$IMG" bs=1 seek="$ROOT_PHYS" count=$NODESIZE conv=notrunc status=none
	all_fail
}

@test "corrupt: leaf claims to be a node (level 1)" {
	set_le $((LEAF_PHYS + 100)) 1 1
	block_csum "$LEAF_PHYS"
	expect_clean_failure subvolume list /
	expect_clean_failure qgroup show /
	expect_clean_failure_walk
}

@test "corrupt: root node level 7 with leaves below" {
	set_le $((ROOT_PHYS + 100)) 1 7
	block_csum "$ROOT_PHYS"
	super_set 198 1 7
	all_fail
}

@test "corrupt: node pointer to itself (a loop)" {
	# ptr 1 of the root node: blockptr at 101 + 33 + 17, generation at +25
	gen=$(super_field generation)
	set_le $((ROOT_PHYS + 101 + 33 + 17)) 8 "$ROOT"
	set_le $((ROOT_PHYS + 101 + 33 + 25)) 8 "$gen"
	block_csum "$ROOT_PHYS"
	expect_clean_failure subvolume list /
	expect_clean_failure qgroup show /
	expect_clean_failure_walk
}

@test "corrupt: two node pointers to the same child" {
	python3 "$CORRUPT" "$IMG" copy $((ROOT_PHYS + 101 + 17)) $((ROOT_PHYS + 101 + 33 + 17)) 16
	block_csum "$ROOT_PHYS"
	expect_clean_failure subvolume list /
	expect_clean_failure qgroup show /
	expect_clean_failure_walk
}

@test "corrupt: node pointer generation does not match the child" {
	set_le $((ROOT_PHYS + 101 + 25)) 8 1
	block_csum "$ROOT_PHYS"
	expect_clean_failure subvolume list /
	expect_clean_failure_walk
}

@test "corrupt: overlapping items in the chunk tree leaf" {
	# item 1 offset := item 0 offset
	python3 "$CORRUPT" "$IMG" copy $((CHUNK_PHYS + 101 + 17)) $((CHUNK_PHYS + 101 + 25 + 17)) 4
	block_csum "$CHUNK_PHYS"
	all_fail
}

@test "corrupt: item data beyond the end of the leaf" {
	set_le $((CHUNK_PHYS + 101 + 17)) 4 $((NODESIZE - 50))
	block_csum "$CHUNK_PHYS"
	all_fail
}

@test "corrupt: huge item count" {
	set_le $((CHUNK_PHYS + 96)) 4 0xffffffff
	block_csum "$CHUNK_PHYS"
	all_fail
}

@test "corrupt: huge item count in a root tree leaf" {
	set_le $((LEAF_PHYS + 96)) 4 0x7fffffff
	block_csum "$LEAF_PHYS"
	expect_clean_failure subvolume list /
	expect_clean_failure_walk
}

@test "corrupt: keys out of order in a root tree leaf" {
	# swap the objectid of item 0 with a huge one
	set_le $((LEAF_PHYS + 101)) 8 0x7fffffffffff
	block_csum "$LEAF_PHYS"
	expect_clean_failure subvolume list /
	expect_clean_failure_walk
}

@test "corrupt: wrong fsid in the root tree root" {
	set_le $((ROOT_PHYS + 32)) 8 0x1234
	block_csum "$ROOT_PHYS"
	all_fail
}

@test "corrupt: wrong bytenr in the root tree root" {
	set_le $((ROOT_PHYS + 48)) 8 $((ROOT + 4096))
	block_csum "$ROOT_PHYS"
	all_fail
}

@test "corrupt: truncated image (metadata cut off)" {
	truncate -s $((ROOT_PHYS)) "$IMG"
	all_fail
}

@test "corrupt: truncated image (only the first superblock left)" {
	truncate -s $((65536 + 4096)) "$IMG"
	all_fail
}

@test "corrupt: image shorter than the recorded device size" {
	truncate -s $((100 * 1024 * 1024)) "$IMG"
	all_fail
	[[ "$LAST_ERR" == *"smaller than"* ]]
}

@test "corrupt: recorded device size larger than the image" {
	# dev_item.total_bytes in both superblock copies
	super_set $((201 + 8)) 8 $((1 << 40))
	all_fail
	[[ "$LAST_ERR" == *"smaller than"* ]]
}

@test "corrupt: qgroup status item the kernel hangs on (never mounted): check fails, writes refused" {
	# simple mode without the SIMPLE_QUOTA incompat bit, and unknown flag bits:
	# kernel 6.18 hangs in open_ctree on such an image, so it is never mounted
	local flags before
	for flags in 8 0x100; do
		fixture rich4k
		cp "$IMG" "$BATS_TEST_TMPDIR/q.img"
		IMG="$BATS_TEST_TMPDIR/q.img"
		python3 "$CORRUPT" "$IMG" qstatus "$flags"
		before=$(sha256sum <"$IMG")
		run "$VOLCTL" check "$IMG"
		[ "$status" -eq 1 ]
		[[ "$output" == *"quota status item"*"the kernel may hang or refuse mounting"* ]]
		expect_clean_failure subvolume snapshot /a /q-snap
		[[ "$LAST_ERR" == *"quota status item"* ]]
		expect_clean_failure quota enable /
		[ "$(sha256sum <"$IMG")" = "$before" ]
		# readers still read it
		run "$VOLCTL" --image "$IMG" subvolume list /
		[ "$status" -eq 0 ]
	done
}

@test "corrupt: random bytes over the metadata never crash or hang" {
	# 20 rounds of 16 random bytes at random places of the metadata chunk
	for i in $(seq 20); do
		cp "$BATS_TEST_TMPDIR/rich4k.img" "$BATS_TEST_TMPDIR/r.img"
		off=$((5242880 + (RANDOM * 32768 + RANDOM) % 8388608))
		dd if=/dev/urandom of="$BATS_TEST_TMPDIR/r.img" bs=1 seek=$off count=16 \
			conv=notrunc status=none
		for c in "subvolume list /" "qgroup show /" "subvolume show /a"; do
			rc=0
			# shellcheck disable=SC2086
			timeout 20 "$VOLCTL" --image "$BATS_TEST_TMPDIR/r.img" $c >/dev/null \
				2>"$BATS_TEST_TMPDIR/err" || rc=$?
			[ "$rc" -lt 124 ] || { echo "rc $rc at $off: $c" >&2; return 1; }
			[ "$rc" -eq 0 ] || [ "$(wc -l <"$BATS_TEST_TMPDIR/err")" -eq 1 ] ||
				{ echo "at $off: $c:" >&2; cat "$BATS_TEST_TMPDIR/err" >&2; return 1; }
		done
	done
}
