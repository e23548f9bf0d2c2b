/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Free space tree verification, read-only (`volctl check`).
 *
 * For every block group: one FREE_SPACE_INFO item (bg start, 198, bg
 * length); the entries under it (FREE_SPACE_EXTENT, or FREE_SPACE_BITMAP
 * when USING_BITMAPS is set) of that one format, inside the block group,
 * in order and not overlapping, extents merged with their neighbours;
 * extent_count equal to the free runs as the kernel counts them (one per
 * extent item, one per run of set bits, a run going on into the next
 * bitmap); and the free space exactly the complement of the extent tree's
 * EXTENT_ITEMs (key offset bytes) and METADATA_ITEMs (nodesize) in the
 * block group.  The windows that map onto a superblock copy (and, for a
 * block group starting below 64 KiB, [start, 64 KiB)) are left out of the
 * comparison: the kernel excludes them when it loads the tree, so either
 * state is valid there.  Items whose key lies in no block group (Debian's
 * mkfs 6.2 leaves some of its temporary chunks) are findings too.
 *
 * Cost: one pass over the free space tree, two over the extent tree (its
 * block group items, then its extents block group by block group); memory
 * grows with the entries of one block group, never with the tree.
 */
#ifndef VOLCTL_KERNEL_SHARED_FST_CHECK_H
#define VOLCTL_KERNEL_SHARED_FST_CHECK_H

#include "format.h"
#include "fst-types.h"

struct btrfs_fs;

/* Called for each finding; a non-zero return stops the check with that value */
typedef int (*btrfs_fst_problem_cb)(void *priv, const struct btrfs_fst_problem *p);

/**
 * btrfs_fst_check - verify the free space tree against the block groups
 * and the extent tree (see the top of this file)
 * @cb:		told of each finding, in key order
 * @st:		filled; st->state says whether anything was checked
 *
 * The trees are read through the verifying reader; a block that fails
 * verification ends the check with its error (fs->errmsg).
 * Return: 0 (findings or not), <0 on a read error or what @cb returned.
 */
int btrfs_fst_check(struct btrfs_fs *fs, btrfs_fst_problem_cb cb, void *priv,
		    struct btrfs_fst_stats *st);

#endif /* VOLCTL_KERNEL_SHARED_FST_CHECK_H */
