#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Images the kernel's tree-checker refuses: volctl check reports them (exit
# 1, the block, slot and key named) and every offline write that reads the
# bad block refuses before writing a byte.
#
# refused/fsck-027.img.zst is btrfs-progs' tests/fsck-tests/027-bad-extent-inline-ref-type
# image (GPL-2.0, as volctl): the METADATA_ITEM of the tree block at 29360128
# has flags 0, and kernel 6.18 refuses to mount it ("invalid extent flag").
# It has one extent tree leaf, so every write, which allocates a tree block,
# reads it.  The other cases corrupt the rich4k fixture with corrupt.py.

load ../helpers
load ../fixtures/fixture-helpers

CORRUPT="$BATS_TEST_DIRNAME/../fixtures/corrupt.py"
BAD027='tree block 29376512: slot 3: key (29360128 METADATA_ITEM 0): extent flags 0x0, need exactly one of data and tree block'

@test "tree-checker: fsck-tests 027: check exits 1 naming the extent item" {
	fixture refused/fsck-027
	WANT=$BAD027
	refused check "$IMG"
	refused check --qgroup-report "$IMG"
}

@test "tree-checker: fsck-tests 027: every offline write refuses it, image unchanged" {
	fixture refused/fsck-027
	WANT=$BAD027
	refused --image "$IMG" quota enable /
	refused --image "$IMG" quota enable --simple /
	refused --image "$IMG" subvolume create /new
	refused --image "$IMG" subvolume create -p /a/b
	refused --image "$IMG" subvolume snapshot / /snap
	refused check --repair-qgroups "$IMG"
	# and a read that never touches the extent tree still works
	run_volctl --image "$IMG" subvolume list /
	assert_status 0
}

@test "tree-checker: a data extent item without flags: check, rescan and repair refuse it" {
	fixture rich4k
	WANT='key (13631488 EXTENT_ITEM 65536): extent flags 0x0, need exactly one of data and tree block'
	run_volctl check "$IMG"
	assert_status 0
	python3 "$CORRUPT" "$IMG" item 13631488 168 65536 16 8 0
	refused check "$IMG"
	refused check --repair-qgroups "$IMG"
	refused --image "$IMG" quota rescan /
	refused --image "$IMG" quota disable /
}

@test "tree-checker: inline data refs: more than the extent's refs, a root that owns no data" {
	fixture rich4k
	# the first inline ref's count 1 -> 2: the refs sum to 4, one more than recorded
	WANT='key (13631488 EXTENT_ITEM 65536): extent refs 3, fewer than its 4 inline refs'
	python3 "$CORRUPT" "$IMG" item 13631488 168 65536 $((24 + 1 + 24)) 4 2
	refused check "$IMG"
	refused check --repair-qgroups "$IMG"
	# the first ref's root 262 -> qgroup 1/262, which is no tree (a fresh copy)
	rm -f "$IMG"
	fixture rich4k
	python3 "$CORRUPT" "$IMG" item 13631488 168 65536 $((24 + 1)) 8 $(((1 << 48) | 262))
	WANT="data ref root $(((1 << 48) | 262)) cannot own data"
	refused check "$IMG"
}

@test "tree-checker: an unknown read-only inode flag: check passes, writes refuse" {
	fixture rich4k
	# inode 256 of every subvolume: read-only compatible flag bit 1 (bit 33)
	python3 "$CORRUPT" "$IMG" item 256 1 0 64 8 $((1 << 33))
	run_volctl check "$IMG"
	assert_status 0
	WANT='key (256 INODE_ITEM 0): inode has unknown read-only compatible flags 0x2, cannot write'
	refused --image "$IMG" subvolume create /new
	refused --image "$IMG" subvolume snapshot /a /snap
}

@test "tree-checker: a directory entry whose hash does not match its name" {
	fixture rich4k
	# the first name byte of DIR_ITEM "a" in the top directory of tree 5
	hash=$("$VOLCTL" --format json inspect tree -t 5 "$IMG" | jq '[.trees[0].blocks[].items[]
		| select(.key.objectid == 256 and .key.type_name == "DIR_ITEM")][0].key.offset')
	[ "$hash" -gt 0 ]
	python3 "$CORRUPT" "$IMG" item 256 84 "$hash" 30 1 0x7a
	WANT="key (256 DIR_ITEM $hash): name hash"
	refused check "$IMG"
	refused --image "$IMG" subvolume create /new
}
