/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Changing B-trees inside a transaction.
 *
 * btrfs_search_cow() descends like btrfs_search_slot() but copies every
 * block on the path that was not allocated in the transaction (top-down,
 * the copy gets generation T, its parent pointer or root is rewritten and
 * the old block is freed), and splits full nodes and, for an insertion,
 * a leaf without room, then restarts.  Leaves are never merged: a leaf may
 * be as empty as the format allows; an emptied leaf is removed from its
 * parent.  Inserting or deleting at slot 0 fixes the keys in the parents.
 */
#ifndef VOLCTL_KERNEL_SHARED_CTREE_WRITE_H
#define VOLCTL_KERNEL_SHARED_CTREE_WRITE_H

#include "format.h"
#include "ctree.h"

struct btrfs_trans_handle;

/**
 * btrfs_search_cow - find @key in @root for modification
 * @ins_len:	>0: bytes (item header included) an insertion needs in the leaf
 *
 * Return: 0 found, 1 not found (path at the insert position), <0 error.
 */
int btrfs_search_cow(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		     const struct btrfs_key *key, struct btrfs_path *path, int ins_len);

/**
 * btrfs_insert_empty_item - make room for item @key of @size bytes (zeroed)
 * Return: 0 with the path at the new item, -EEXIST, or <0.
 */
int btrfs_insert_empty_item(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			    struct btrfs_path *path, const struct btrfs_key *key, u32 size);

/** btrfs_insert_item - insert @key with a copy of @data */
int btrfs_insert_item(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		      const struct btrfs_key *key, const void *data, u32 size);

/** btrfs_del_item - delete the item the (CoW) path points at; releases the path */
int btrfs_del_item(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		   struct btrfs_path *path);

/** btrfs_delete_key - delete exactly @key; -ENOENT if absent */
int btrfs_delete_key(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		     const struct btrfs_key *key);

/**
 * btrfs_update_item - overwrite item @key (same size) with @data
 * Return: 0, -ENOENT, -EUCLEAN when the item has another size.
 */
int btrfs_update_item(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		      const struct btrfs_key *key, const void *data, u32 size);

/** btrfs_path_item_ptr - writable data of the item at the path (CoW path only) */
u8 *btrfs_path_item_ptr(struct btrfs_path *path, u32 *len);

/**
 * btrfs_leaf_append - append item @key with a copy of @data (@size bytes)
 * to the new leaf in @buf (@len bytes, zeroed when it was started)
 *
 * The one leaf builder: mkfs, a new subvolume's tree and a new quota tree
 * fill their leaves with it.  Keys must come in increasing order; the
 * header's nritems counts the items.
 * Return: 0, -EOVERFLOW when the item does not fit.
 */
int btrfs_leaf_append(u8 *buf, u32 len, const struct btrfs_key *key, const void *data, u32 size);

#endif /* VOLCTL_KERNEL_SHARED_CTREE_WRITE_H */
