/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Adding back references to existing extents (on-disk-engine 4.2-4.5):
 * what a snapshot does to the children of the copied root block.
 */
#ifndef VOLCTL_KERNEL_SHARED_EXTENT_REF_H
#define VOLCTL_KERNEL_SHARED_EXTENT_REF_H

#include <stdbool.h>
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

/** btrfs_inc_shared_block_ref - add SHARED_BLOCK_REF(@parent) to tree block @bytenr */
int btrfs_inc_shared_block_ref(struct btrfs_trans_handle *trans, u64 bytenr, u8 level,
			       u64 parent);

/** btrfs_inc_shared_data_ref - SHARED_DATA_REF(@parent) count + 1 on a data extent */
int btrfs_inc_shared_data_ref(struct btrfs_trans_handle *trans, u64 bytenr, u64 num_bytes,
			      u64 parent);

/**
 * btrfs_drop_tree_block_ref - remove one @type (TREE_BLOCK_REF or
 * SHARED_BLOCK_REF) ref with root/parent @seq from tree block @bytenr;
 * refs - 1.  Never the last reference: -EUCLEAN then.
 */
int btrfs_drop_tree_block_ref(struct btrfs_trans_handle *trans, u64 bytenr, u8 level, u8 type,
			      u64 seq);

/** btrfs_drop_shared_data_ref - SHARED_DATA_REF(@parent) count - 1 (never the last ref) */
int btrfs_drop_shared_data_ref(struct btrfs_trans_handle *trans, u64 bytenr, u64 num_bytes,
			       u64 parent);

/**
 * btrfs_tree_block_info - refs and flags of tree block @bytenr; optionally
 * set or clear FULL_BACKREF in its extent item first
 */
int btrfs_tree_block_info(struct btrfs_trans_handle *trans, u64 bytenr, u8 level, u64 *refs,
			  u64 *flags, bool set_full, bool clear_full);

#endif /* VOLCTL_KERNEL_SHARED_EXTENT_REF_H */
