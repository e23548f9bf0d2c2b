/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Dropping data references down to freeing the extent (on-disk-engine 4.2,
 * 4.3, 8.2): what the kernel's __btrfs_free_extent does for data.
 */
#ifndef VOLCTL_KERNEL_SHARED_EXTENT_FREE_H
#define VOLCTL_KERNEL_SHARED_EXTENT_FREE_H

#include <stdbool.h>
#include "format.h"

struct btrfs_trans_handle;

/* Which reference of a data extent to drop */
struct btrfs_data_ref {
	u64 parent;		/* != 0: SHARED_DATA_REF(parent leaf) */
	u64 root, ino, offset;	/* parent == 0: EXTENT_DATA_REF(root, ino, offset) */
};

/**
 * btrfs_drop_data_ref - one reference of data extent (@bytenr, @num_bytes)
 * goes: count - 1 of the matching inline or keyed ref (removed at 0),
 * refs - 1 in the extent item
 * @qgroup_root:	subvolume charged when the extent is freed (full quotas;
 *			simple quotas charge the extent's EXTENT_OWNER_REF)
 * @freed:		set when this was the last reference: the extent item
 *			is deleted, its checksums removed, its block group's
 *			used, super bytes_used and the free space tree updated
 * Return: 0, -EUCLEAN (no such extent or reference), or <0.
 */
int btrfs_drop_data_ref(struct btrfs_trans_handle *trans, u64 bytenr, u64 num_bytes,
			const struct btrfs_data_ref *ref, u64 qgroup_root, bool *freed);

/**
 * btrfs_csum_delete_range - remove the checksums of [@start, @start + @len)
 * from the checksum tree, cutting items that reach over the edges
 */
int btrfs_csum_delete_range(struct btrfs_trans_handle *trans, u64 start, u64 len);

#endif /* VOLCTL_KERNEL_SHARED_EXTENT_FREE_H */
