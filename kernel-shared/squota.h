/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Simple quotas (squota) in the offline writer (on-disk-engine 10.6).
 *
 * In simple mode a qgroup is charged when its subvolume allocates an extent
 * and uncharged when that extent is freed, whoever still shares it: tree
 * blocks go to their header owner, data extents to their EXTENT_OWNER_REF.
 * Only extents of generation >= enable_gen (STATUS item) count.  rfer ==
 * excl in every group; a higher group holds the sum over the distinct
 * level-0 groups below it.  The writer allocates only tree blocks
 * (charged in extent-tree.c); data extents it frees (a subvolume drop) are
 * charged back to their owner ref (extent-free.c).
 */
#ifndef VOLCTL_KERNEL_SHARED_SQUOTA_H
#define VOLCTL_KERNEL_SHARED_SQUOTA_H

#include <stdbool.h>
#include "format.h"

struct btrfs_fs;
struct btrfs_trans_handle;

/**
 * btrfs_squota_load - note in @trans whether quotas are in simple mode
 *
 * Reads the STATUS item of an existing quota tree: SIMPLE_MODE sets
 * trans->squota and trans->squota_enable_gen.  Every offline write starts
 * here (btrfs_start_transaction()), so this is where an item the kernel
 * cannot mount is refused, -EUCLEAN with the message naming the image and
 * each fault (btrfs_qgroup_status_faults(): unknown flags, a version other
 * than 1, simple mode without the SIMPLE_QUOTA incompat bit, without
 * enable_gen or with one after the filesystem generation).
 * Return: 0 (also when quotas are off) or a negative errno.
 */
int btrfs_squota_load(struct btrfs_trans_handle *trans);

/**
 * btrfs_squota_check - the refusal of btrfs_squota_load() without a
 * transaction, for a write that finds nothing to do (quota enable when
 * quotas are on): it still refuses an image the kernel cannot mount
 * Return: 0 (also when quotas are off) or -EUCLEAN with the message set.
 */
int btrfs_squota_check(struct btrfs_fs *fs);

/**
 * btrfs_squota_counts - an extent of @generation is charged in simple mode
 */
bool btrfs_squota_counts(const struct btrfs_trans_handle *trans, u64 generation);

#endif /* VOLCTL_KERNEL_SHARED_SQUOTA_H */
