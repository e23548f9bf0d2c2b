/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The findings of the free space tree check (fst-check.h) as plain types:
 * the state of the tree, the kinds of findings, one finding and what was
 * looked at, for the code that reports them without running the check.
 */
#ifndef VOLCTL_KERNEL_SHARED_FST_TYPES_H
#define VOLCTL_KERNEL_SHARED_FST_TYPES_H

#include <stdbool.h>
#include "format.h"

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

#endif
