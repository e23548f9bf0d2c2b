/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The verifying walk of the offline reader (common/image/offline-walk.c), on a
 * filesystem opened with the image handle (common/image/image.h).
 */
#ifndef VOLCTL_COMMON_OFFLINE_H
#define VOLCTL_COMMON_OFFLINE_H

#include <stddef.h>
#include "kernel-shared/format.h"

struct btrfs_fs;

/* What the verifying walk found in one tree */
struct vc_walk_stats {
	u64 tree_id;
	u64 nodes;
	u64 leaves;
	u64 items;
};

/**
 * vc_walk_verify - read and verify every tree block once (common/image/offline-walk.c)
 * @tree_id:	only this tree, or NULL for the chunk tree, the root tree and
 *		every tree with a ROOT_ITEM (blocks shared by several trees are
 *		counted in the first)
 * @stats:	receives a malloc'ed array, one entry per tree in that order
 *
 * Return: 0, or a negative errno with btrfs_fs_error(@fs) naming the block.
 */
int vc_walk_verify(struct btrfs_fs *fs, const u64 *tree_id, struct vc_walk_stats **stats,
		   size_t *nr_stats);

#endif
