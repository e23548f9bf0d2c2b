/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tree-checker internals: the item being checked and the per-family item
 * checks (library-internal, see tree-checker.h for the contract).
 *
 * tree-checker.c checks a leaf's layout and then hands each item, whose
 * payload is known to lie inside the block, to tc_check_item().  The item
 * checks in tree-checker-fs.c (subvolume trees, checksums, root items) and
 * tree-checker-extent.c (extent, chunk and device trees) only read
 * inside [data, data + size) and the previous item's payload.
 */
#ifndef VOLCTL_KERNEL_SHARED_TREE_CHECKER_INTERNAL_H
#define VOLCTL_KERNEL_SHARED_TREE_CHECKER_INTERNAL_H

#include "format.h"

struct btrfs_fs;

/* One leaf item under check */
struct tc_item {
	struct btrfs_fs *fs;
	u64 bytenr;			/* the leaf */
	u64 owner;			/* header owner of the leaf */
	u32 slot;
	struct btrfs_key key;
	struct btrfs_key prev;		/* key of slot - 1; all zero at slot 0 */
	const u8 *data;			/* payload, inside the leaf */
	u32 size;
	const u8 *prev_data;		/* payload of slot - 1; NULL at slot 0 */
	u32 prev_size;
};

/**
 * tc_bad - record why @it is refused
 *
 * The message reads "tree block B: slot S: key (O T F): <reason>".
 *
 * Return: -EUCLEAN, for "return tc_bad(...)".
 */
int tc_bad(const struct tc_item *it, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), cold));

/*
 * Subvolume trees as the kernel's tree-checker counts them: 5, and ids from
 * 256 up (signed) whose top 16 bits (a qgroup level) are zero.
 */
static inline bool tc_is_fstree(u64 id)
{
	return id == BTRFS_FS_TREE_OBJECTID ||
	       ((s64)id >= (s64)BTRFS_FIRST_FREE_OBJECTID && !btrfs_qgroup_level(id));
}

static inline bool tc_aligned(u64 v, u32 align)
{
	return (v & (align - 1)) == 0;
}

/* tree-checker-fs.c: INODE_ITEM, ROOT_ITEM, INODE_REF, INODE_EXTREF,
 * DIR_ITEM, DIR_INDEX, XATTR_ITEM, EXTENT_DATA, EXTENT_CSUM; 0 or a
 * negative errno for those, 1 for an item of any other type */
int tc_check_fs_item(const struct tc_item *it);

/* tree-checker-extent.c: EXTENT_ITEM, METADATA_ITEM, keyed back refs,
 * BLOCK_GROUP_ITEM, CHUNK_ITEM, DEV_ITEM, DEV_EXTENT, RAID_STRIPE */
int tc_check_tree_item(const struct tc_item *it);

#endif /* VOLCTL_KERNEL_SHARED_TREE_CHECKER_INTERNAL_H */
