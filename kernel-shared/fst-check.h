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

struct btrfs_fs;

enum btrfs_fst_state {
	BTRFS_FST_STATE_CHECKED,	/* the tree was verified */
	BTRFS_FST_STATE_ABSENT,		/* no free space tree (space cache v1, or none) */
	BTRFS_FST_STATE_NOT_VALID,	/* FREE_SPACE_TREE without FREE_SPACE_TREE_VALID:
					 * verified, but the kernel rebuilds it at the next
					 * read-write mount, so findings are expected */
};

enum btrfs_fst_kind {
	BTRFS_FST_STALE,		/* items of a block group that does not exist */
	BTRFS_FST_NO_INFO,		/* block group without FREE_SPACE_INFO */
	BTRFS_FST_BAD_INFO,		/* an info item inside a block group, not its own */
	BTRFS_FST_COUNT,		/* extent_count differs from the runs counted */
	BTRFS_FST_FORMAT,		/* an entry of the other format than the info says */
	BTRFS_FST_BEYOND,		/* an entry ends beyond its block group */
	BTRFS_FST_OVERLAP,		/* an entry overlaps the previous one */
	BTRFS_FST_UNMERGED,		/* an extent starts where the previous one ends */
	BTRFS_FST_UNEXPECTED,		/* an item of another type */
	BTRFS_FST_FREE_ALLOCATED,	/* free in the tree, allocated in the extent tree */
	BTRFS_FST_NOT_FREE,		/* allocated by no extent item, not free in the tree */
};

/* One finding */
struct btrfs_fst_problem {
	enum btrfs_fst_kind kind;
	u64 bg_start, bg_length;	/* the block group; 0 and 0 for STALE */
	u64 start, length;		/* the range: the item's key, or the bytes that differ */
	u8 type;			/* the item's key type (entry kinds, STALE) */
	u64 recorded, counted;		/* COUNT: extent_count, runs; STALE: -, items */
	bool bitmaps;			/* FORMAT: the info item's USING_BITMAPS */
};

/* What was looked at */
struct btrfs_fst_stats {
	enum btrfs_fst_state state;
	u64 block_groups;
	u64 extents, bitmaps;		/* FREE_SPACE_EXTENT and FREE_SPACE_BITMAP items */
	u64 problems;
};

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
