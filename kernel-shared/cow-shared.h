/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reference updates when a subvolume tree block that may be shared with a
 * snapshot is copied (on-disk-engine 4.5, 4.6).
 */
#ifndef VOLCTL_KERNEL_SHARED_COW_SHARED_H
#define VOLCTL_KERNEL_SHARED_COW_SHARED_H

#include <stdbool.h>
#include "format.h"

struct btrfs_trans_handle;
struct btrfs_root;
struct extent_buffer;

/**
 * btrfs_cow_update_refs - back references for copying block @eb of
 * subvolume tree @root (the copy has the same children)
 * @ref_dropped:	set when @eb is still referenced by other trees and the
 *			reference @root held was removed here: the caller must
 *			not free @eb
 *
 * refs > 1, owned by @root, not FULL_BACKREF: every child gains a shared
 * ref naming @eb, which becomes FULL_BACKREF.  refs > 1 otherwise: every
 * child gains a ref from @root for the copy.  refs 1 and FULL_BACKREF:
 * normal refs for the copy, the shared refs naming @eb go.  Blocks of
 * other trees, and blocks newer than @root's last snapshot, need nothing.
 * With quotas on, a shared copy has the commit recompute every qgroup's
 * numbers exactly (btrfs_trans_recompute_qgroups()).
 * Return: 0 or <0.
 */
int btrfs_cow_update_refs(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			  const struct extent_buffer *eb, bool *ref_dropped);

/**
 * btrfs_inc_child_refs - one more reference from tree @root for every
 * child of @eb: TREE_BLOCK_REF(@root) for a node's children, and
 * EXTENT_DATA_REF(@root, ino, offset) for each regular file extent of a
 * leaf with a disk extent (also used for a snapshot's new root block)
 * Return: 0, -EUCLEAN (a short file extent item, a missing extent), or <0.
 */
int btrfs_inc_child_refs(struct btrfs_trans_handle *trans, const struct extent_buffer *eb,
			 u64 root);

#endif /* VOLCTL_KERNEL_SHARED_COW_SHARED_H */
