/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An item source: anything that can enumerate the items of a tree in key order.
 *
 * The offline reader implements it by walking tree blocks; the online backend
 * by BTRFS_IOC_TREE_SEARCH_V2.  Listing code in kernel-shared/ (subvolumes,
 * qgroups, default subvolume, paths) is written against this interface only,
 * so it neither knows nor cares which backend feeds it.
 */
#ifndef VOLCTL_KSHARED_ITEMSRC_H
#define VOLCTL_KSHARED_ITEMSRC_H

#include "format.h"

/*
 * Called once per item in ascending key order.  @data/@len is the item body
 * exactly as on disk.  Return 0 to continue, 1 to stop early (search returns
 * 0), or a negative errno to abort (search returns it).
 */
typedef int (*btrfs_item_cb)(void *priv, const struct btrfs_key *key, const void *data,
			     u32 len);

struct btrfs_item_source {
	/*
	 * Visit every item of tree @tree_id whose key k satisfies
	 * *min <= k <= *max (full key comparison).  Returns 0, or -ENOENT when
	 * the tree does not exist, or another negative errno.
	 */
	int (*search)(void *src_priv, u64 tree_id, const struct btrfs_key *min,
		      const struct btrfs_key *max, btrfs_item_cb cb, void *priv);
	void *src_priv;
};

static inline int btrfs_item_source_search(const struct btrfs_item_source *src, u64 tree_id,
					   const struct btrfs_key *min,
					   const struct btrfs_key *max, btrfs_item_cb cb,
					   void *priv)
{
	return src->search(src->src_priv, tree_id, min, max, cb, priv);
}

#endif
