/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Dropping a deleted subvolume's tree inside a transaction: what the
 * kernel's cleaner (btrfs_drop_snapshot) does after the next mount
 * (on-disk-engine 8.2-8.5).
 */
#ifndef VOLCTL_KERNEL_SHARED_SUBVOL_DROP_H
#define VOLCTL_KERNEL_SHARED_SUBVOL_DROP_H

#include <stdbool.h>
#include "format.h"

struct btrfs_trans_handle;
struct btrfs_root;

/* What a drop did */
struct btrfs_drop_stats {
	u64 blocks_freed;		/* tree blocks whose last reference went */
	u64 blocks_shared;		/* shared blocks that only lost this tree's ref */
	u64 blocks_converted;		/* blocks given FULL_BACKREF for the other sharers */
	u64 data_freed;			/* data extents freed */
	u64 data_bytes_freed;
	u64 data_refs_dropped;		/* data refs dropped whose extent stays */
};

/**
 * btrfs_subvol_drop - drop dead subvolume tree @root (refs 0) completely
 *
 * Walks the tree depth first holding one block per level.  A block with
 * one reference is descended and freed (a leaf first drops the data refs of
 * its file extents; a data extent losing its last ref is freed with its
 * checksums).  A shared block is not descended: if this tree owns it, it is
 * not FULL_BACKREF and newer than the tree's origin, its children get
 * shared refs naming it and it becomes FULL_BACKREF (recursively below it,
 * as the kernel's UPDATE_BACKREF stage); then this tree's ref to it goes.
 * Afterwards the ROOT_ITEM, the ORPHAN item and (quotas on) qgroup 0/id with
 * its LIMIT and RELATION items are deleted, as kernel 6.11+ does once the
 * group's numbers are 0 (with simple quotas a group still charged stays;
 * freed data is charged back to its EXTENT_OWNER_REF, freed blocks to their
 * header owner).  The qgroup numbers of the other groups stay
 * exact: by the per-tree deltas when nothing was shared, otherwise by the
 * commit's recompute (btrfs_trans_recompute_qgroups()).
 * A drop the kernel left half done (drop_progress set) resumes there.
 * @stats:	may be NULL
 * Return: 0 or <0 (fs->errmsg says more); on error abort @trans.
 */
int btrfs_subvol_drop(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		      struct btrfs_drop_stats *stats);

#endif /* VOLCTL_KERNEL_SHARED_SUBVOL_DROP_H */
