/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A whole-tree item scan for readers that visit every item once (the
 * accounting engine's extent tree stream): the same items in the same
 * order as btrfs_iterate_items() over the full key range, but the leaves
 * below each level 1 node come in with one read per run of blocks that are
 * adjacent on the device, and are verified in place instead of going
 * through the block cache one block at a time.
 */
#ifndef VOLCTL_KERNEL_SHARED_TREE_SCAN_H
#define VOLCTL_KERNEL_SHARED_TREE_SCAN_H

#include "ctree.h"

/**
 * btrfs_scan_tree_items - call @cb for every item of @root in key order
 *
 * Every block passes the checks of btrfs_read_tree_block() (a leaf whose
 * first copy fails is read again through it, which tries the mirrors), and
 * the keys must rise strictly across leaves.  At most one run buffer
 * (1 MiB) is held at a time.
 *
 * Return: 0 (also when @cb stopped with 1), or the first negative errno,
 * with the reason in fs->errmsg for a bad block.
 */
int btrfs_scan_tree_items(struct btrfs_root *root, btrfs_item_cb cb, void *priv);

#endif /* VOLCTL_KERNEL_SHARED_TREE_SCAN_H */
