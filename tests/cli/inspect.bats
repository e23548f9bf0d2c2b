#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# volctl inspect super / tree on the committed fixture images (no root).

load ../helpers
load ../fixtures/fixture-helpers

@test "inspect super: crc32c image, checksum matches" {
	fixture rich4k
	run_volctl inspect super "$IMG"
	assert_status 0
	assert_output_contains "csum_type_name crc32c"
	assert_output_contains "csum_status match"
	assert_output_contains "nodesize 4096"
	assert_output_contains "label rich4k"
	assert_output_contains "incompat_flags 0x343 (mixed-backref|default-subvol|extended-iref|skinny-metadata|no-holes)"
	assert_output_contains "compat_ro_flags 0x3 (free-space-tree|free-space-tree-valid)"
	assert_output_contains "key (256 CHUNK_ITEM 1048576)"
	assert_output_contains "backup 3"
}

@test "inspect super: every checksum type is verified" {
	for c in xxhash:xxhash64 sha256:sha256 blake2:blake2b; do
		fixture "csum-${c%%:*}"
		run_volctl inspect super "$IMG"
		assert_status 0
		assert_output_contains "csum_type_name ${c#*:}"
		assert_output_contains "csum_status match"
	done
}

@test "inspect super --all prints every copy that fits" {
	fixture rich4k
	run_volctl inspect super --all "$IMG"
	assert_status 0
	[ "$(grep -c '^superblock ' <<<"$output")" -eq 2 ]
	assert_output_contains "superblock 1 at 67108864"
}

@test "inspect super --super 2 beyond the end of a small image fails" {
	fixture rich4k
	run_volctl inspect super --super 2 "$IMG"
	assert_status 1
	assert_output_contains "superblock 2 lies beyond the end of the device"
}

@test "inspect super: JSON" {
	fixture noquota16k
	run_volctl --format json inspect super "$IMG"
	assert_status 0
	assert_json
	[ "$(jq '.superblocks[0].nodesize' <<<"$output")" -eq 16384 ]
	[ "$(jq -r '.superblocks[0].csum_status' <<<"$output")" = match ]
	jq -e '.superblocks[0].incompat_flags_names | index("skinny-metadata")' <<<"$output"
	[ "$(jq '.superblocks[0].backup_roots | length' <<<"$output")" -eq 4 ]
	[ "$(jq '.superblocks[0].sys_chunk_array[0].num_stripes' <<<"$output")" -eq 2 ]
}

@test "inspect super: bad checksum is shown and fails" {
	fixture rich4k
	printf 'X' | dd of="$IMG" bs=1 seek=$((65536 + 300)) conv=notrunc status=none
	run_volctl inspect super --super 0 "$IMG"
	assert_status 1
	assert_output_contains "csum_status mismatch"
	assert_output_contains "superblock 0: checksum mismatch"
	# without --super: the primary, the copy the kernel mounts from (not a valid mirror)
	run_volctl inspect super "$IMG"
	assert_status 1
	assert_output_contains "superblock 0 at 65536"
	assert_output_contains "superblock 0: checksum mismatch"
	run_volctl inspect super --super 1 "$IMG"
	assert_status 0
	assert_output_contains "superblock 1 at 67108864"
}

@test "inspect super/tree: not a btrfs image" {
	head -c 2M /dev/zero >"$BATS_TEST_TMPDIR/zero.img"
	run_volctl inspect tree "$BATS_TEST_TMPDIR/zero.img"
	assert_status 1
	assert_output_contains "zero.img: not a btrfs filesystem (no valid superblock)"
	run_volctl inspect super "$BATS_TEST_TMPDIR/zero.img"
	assert_status 1
	assert_output_contains "no btrfs magic"
	run_volctl inspect super "$BATS_TEST_TMPDIR/missing.img"
	assert_status 1
	assert_output_contains "missing.img: No such file or directory"
}

@test "inspect tree -t root decodes root items" {
	fixture rich4k
	run_volctl inspect tree -t root "$IMG"
	assert_status 0
	assert_output_contains "tree ROOT_TREE (1)"
	assert_output_contains "ROOT_ITEM"
	assert_output_contains "ROOT_BACKREF"
	assert_output_contains "name snap-a"
	assert_output_contains "(-5 ORPHAN_ITEM"
	assert_output_contains "flags 0x1000000000000 (DEAD)"
}

@test "inspect tree: every tree of the image, every item type we decode" {
	fixture rich4k
	run_volctl inspect tree "$IMG"
	assert_status 0
	for t in CHUNK_TREE ROOT_TREE EXTENT_TREE DEV_TREE FS_TREE CSUM_TREE QUOTA_TREE \
		UUID_TREE FREE_SPACE_TREE DATA_RELOC_TREE; do
		assert_output_contains "tree $t"
	done
	for i in INODE_ITEM INODE_REF DIR_ITEM DIR_INDEX EXTENT_DATA ROOT_REF METADATA_ITEM \
		EXTENT_ITEM EXTENT_DATA_REF BLOCK_GROUP_ITEM DEV_EXTENT DEV_ITEM CHUNK_ITEM \
		QGROUP_STATUS QGROUP_INFO QGROUP_LIMIT QGROUP_RELATION UUID_KEY_SUBVOL \
		FREE_SPACE_INFO FREE_SPACE_EXTENT; do
		grep -qw "$i" <<<"$output" || { echo "no $i" >&2; return 1; }
	done
	[[ "$output" != *"does not decode"* ]]
}

@test "inspect tree: JSON document" {
	fixture rich4k
	run_volctl --format json inspect tree -t quota "$IMG"
	assert_status 0
	assert_json
	[ "$(jq -r '.trees[0].name' <<<"$output")" = QUOTA_TREE ]
	[ "$(jq -r '.trees[0].blocks[0].items[0].key.type_name' <<<"$output")" = QGROUP_STATUS ]
	jq -e '.trees[0].blocks[0].items[0].body.flags_names | index("ON")' <<<"$output"
	run_volctl --format json inspect tree "$IMG"
	assert_status 0
	assert_json
}

@test "inspect tree --walk-only: counts, multi-level trees" {
	fixture multi4k
	run_volctl inspect tree --walk-only "$IMG"
	assert_status 0
	assert_output_contains "tree ROOT_TREE (1): 1 nodes, "
	assert_output_contains "total: "
	run_volctl --format json inspect tree --walk-only -t root "$IMG"
	assert_status 0
	[ "$(jq '.trees[0].leaves' <<<"$output")" -gt 20 ]
}

@test "inspect tree -b --follow walks the same blocks as -t" {
	fixture multi4k
	run_volctl --format json inspect super "$IMG"
	root=$(jq '.superblocks[0].root' <<<"$output")
	run_volctl inspect tree --walk-only -t root "$IMG"
	want=$(grep '^total' <<<"$output")
	run_volctl inspect tree --walk-only -b "$root" --follow "$IMG"
	assert_status 0
	[ "$(grep '^total' <<<"$output")" = "$want" ]
	run_volctl inspect tree -b "$root" "$IMG"
	assert_status 0
	assert_output_contains "node $root level 1"
}

@test "inspect tree: two-device RAID1 image" {
	fixture raid1
	run_volctl inspect tree -t chunk "$IMG" "$BATS_TEST_TMPDIR/raid1.dev2.img"
	assert_status 0
	assert_output_contains "type 0x14 (METADATA|RAID1)"
	assert_output_contains "key (1 DEV_ITEM 2)"
}

@test "inspect tree: usage errors" {
	fixture rich4k
	run_volctl inspect tree -t bogus "$IMG"
	assert_status 2
	run_volctl inspect tree -t root -b 4096 "$IMG"
	assert_status 2
	run_volctl inspect tree --follow "$IMG"
	assert_status 2
	run_volctl inspect tree
	assert_status 2
	run_volctl inspect tree -t 999 "$IMG"
	assert_status 1
	assert_output_contains "tree 999 does not exist"
}

@test "inspect tree: a corrupt block ends the dump with one error" {
	fixture rich4k
	root=$(super_field root)
	phys=$(phys_of "$root")
	[ "$phys" -gt 0 ]
	poke $((phys + 200)) 58
	run_volctl inspect tree "$IMG"
	assert_status 1
	assert_output_contains "tree block $root: checksum mismatch"
}

@test "inspect: help on stdout, exit 0" {
	run_volctl inspect super --help
	assert_status 0
	assert_output_contains "usage: volctl inspect super"
	run_volctl inspect tree --help
	assert_status 0
	assert_output_contains "--walk-only"
}

@test "inspect never writes to the image" {
	fixture rich4k
	before=$(image_sum)
	run_volctl inspect super --all "$IMG"
	run_volctl inspect tree "$IMG"
	run_volctl --format json inspect tree "$IMG"
	[ "$(image_sum)" = "$before" ]
}

@test "inspect: the global --image names the image too" {
	fixture raid1
	run_volctl "${IMGS[@]}" inspect tree --walk-only
	assert_status 0
	assert_output_contains "total: "
	run_volctl --image "$IMG" inspect super
	assert_status 0
	assert_output_contains "label raid1"
}
