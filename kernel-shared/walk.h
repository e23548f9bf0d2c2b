/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Full tree walks: visit every block of a tree, parents before children.
 *
 * Used by inspect (block statistics) and the benchmark.  Each child is
 * verified against its parent pointer like a search does, and the key
 * range of every child is bounded by its neighbours, so the walk visits
 * each block of a valid tree exactly once and terminates on any image.
 */
#ifndef VOLCTL_KERNEL_SHARED_WALK_H
#define VOLCTL_KERNEL_SHARED_WALK_H

#include "format.h"
#include "extent-buffer.h"

struct btrfs_fs;
struct btrfs_root;

struct btrfs_walk_info {
	u64 tree_id;			/* tree being walked */
	u64 parent;			/* bytenr of the parent node, 0 for the root */
	int slot;			/* slot in the parent, -1 for the root */
	u8 depth;			/* 0 for the root block */
};

/*
 * Called once per block.  Return 0 to continue (descending into a node's
 * children), 1 to skip this node's children, <0 to abort the walk with
 * that error.
 */
typedef int (*btrfs_walk_cb)(void *priv, const struct extent_buffer *eb,
			     const struct btrfs_walk_info *info);

/**
 * btrfs_walk_tree - visit every block of @root in depth-first key order
 * Return: 0, or the callback's or the reader's negative errno (fs->errmsg
 * names the block).
 */
int btrfs_walk_tree(struct btrfs_root *root, btrfs_walk_cb cb, void *priv);

/**
 * btrfs_walk_all_trees - walk the chunk tree, the root tree, then every
 * tree that has a ROOT_ITEM, in root-tree order
 *
 * Deleted subvolumes whose drop is in progress are skipped (their blocks
 * behind drop_progress may be gone).
 * Roots loaded only for the walk drop their root block afterwards, so a
 * filesystem with thousands of snapshots does not pin thousands of blocks.
 * @skip_shared:	visit a block shared by several trees (snapshots) only
 *			the first time
 */
int btrfs_walk_all_trees(struct btrfs_fs *fs, bool skip_shared, btrfs_walk_cb cb, void *priv);

#endif /* VOLCTL_KERNEL_SHARED_WALK_H */
