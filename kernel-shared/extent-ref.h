/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Adding back references to existing extents (on-disk-engine 4.2-4.5):
 * what a snapshot does to the children of the copied root block.
 */
#ifndef VOLCTL_KERNEL_SHARED_EXTENT_REF_H
#define VOLCTL_KERNEL_SHARED_EXTENT_REF_H

#include "format.h"

struct btrfs_trans_handle;

/**
 * btrfs_inc_tree_block_ref - add TREE_BLOCK_REF(@root) to tree block
 * @bytenr (skinny METADATA_ITEM of @level); refs + 1
 * Return: 0, -EUCLEAN (no extent item, or the ref already exists), or <0.
 */
int btrfs_inc_tree_block_ref(struct btrfs_trans_handle *trans, u64 bytenr, u8 level, u64 root);

/**
 * btrfs_inc_data_ref - add one EXTENT_DATA_REF(@root, @ino, @offset) to
 * data extent (@bytenr, @num_bytes): count + 1 of a matching ref, or a new
 * ref, inline while the item stays small and no keyed ref exists; refs + 1
 * Return: 0, -EUCLEAN (no extent item), or <0.
 */
int btrfs_inc_data_ref(struct btrfs_trans_handle *trans, u64 bytenr, u64 num_bytes, u64 root,
		       u64 ino, u64 offset);

#endif /* VOLCTL_KERNEL_SHARED_EXTENT_REF_H */
