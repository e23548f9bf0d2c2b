/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Offline `subvolume snapshot` (on-disk-engine 7).
 */
#ifndef VOLCTL_KERNEL_SHARED_SNAPSHOT_H
#define VOLCTL_KERNEL_SHARED_SNAPSHOT_H

#include <stdbool.h>
#include "format.h"
#include "subvol-create.h"

struct btrfs_trans_handle;

/**
 * btrfs_snapshot_create - snapshot subvolume @source as @args->name in
 * @args->parent_dir of @args->parent_root inside @trans
 * @readonly:	set BTRFS_ROOT_SUBVOL_RDONLY on the snapshot
 *
 * The destination's directory entries come first (as in the kernel, a
 * snapshot of the subvolume that holds the destination sees its own
 * entry).  Then the source root block is copied to a new block owned by
 * the snapshot and each of its children gains a reference from the new
 * tree: TREE_BLOCK_REF(N) per child block of a node, EXTENT_DATA_REF(N, ...)
 * per file extent of a leaf.  The source's last_snapshot becomes T.  The
 * new ROOT_ITEM (key offset T) is the source's with a new uuid,
 * parent_uuid, otransid/otime and flags; ROOT_REF/BACKREF, UUID items.
 * With quotas on, 0/N gets the source's rfer and limits, excl = nodesize,
 * and the source's excl becomes nodesize; higher qgroups follow the
 * kernel's quick inherit path where it is exact; otherwise the commit
 * recomputes every qgroup with the engine.
 * Return: 0, -EEXIST, -EROFS, -EINVAL, -ENOENT, -EOPNOTSUPP, or <0
 * (fs->errmsg says more).
 */
int btrfs_snapshot_create(struct btrfs_trans_handle *trans, u64 source, bool readonly,
			  struct btrfs_subvol_create_args *args);

#endif /* VOLCTL_KERNEL_SHARED_SNAPSHOT_H */
