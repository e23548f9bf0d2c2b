/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private state of the accounting engine, shared by accounting.c (roots,
 * tree blocks, results) and acct-extents.c (the extent tree stream).
 */
#ifndef VOLCTL_KERNEL_SHARED_ACCT_INTERNAL_H
#define VOLCTL_KERNEL_SHARED_ACCT_INTERNAL_H

#include "accounting.h"
#include "ctree.h"
#include "u64map.h"

#define ACCT_BLOCK_ROOT		(1U << 0)	/* root block of some fs tree */
#define ACCT_BLOCK_READ		(1U << 1)	/* read and verified */

/* One distinct fs tree block */
struct acct_block {
	u64 bytenr;
	u64 generation;		/* what the first parent pointer promised */
	u64 owner;		/* header owner, once read */
	u32 set;		/* interned root set */
	u8 level;
	u8 flags;
};

/* Blocks by bytenr: index maps bytenr to the block's place in blocks[] */
struct acct_block_table {
	struct acct_block *blocks;
	u32 nr, alloc;
	struct btrfs_u64map index;
};

/*
 * Paths kept at the leaves the extent stream searched last, several per
 * tree: the extents of neighbouring files interleave on disk, so the refs
 * of one tree come to a few leaves by turns.  The oldest is reused.
 */
#define ACCT_PATH_CACHE	64

struct acct_path_cache {
	struct btrfs_root *root;	/* of tree path_roots[i] (struct btrfs_acct) */
	struct btrfs_path path;	/* at the last leaf searched in that root */
	bool has_range;		/* the leaf of path has items, first..last */
	struct btrfs_key first, last;
	u64 used;		/* when it was last used (a counter) */
};

struct btrfs_acct {
	struct btrfs_fs *fs;
	struct btrfs_acct_options opts;
	struct btrfs_rootsets sets;
	struct acct_block_table table;
	struct btrfs_acct_root *roots;
	size_t nr_roots;
	u64 *set_bytes;		/* set id -> bytes */
	size_t set_bytes_alloc;
	struct acct_path_cache paths[ACCT_PATH_CACHE];
	u64 path_roots[ACCT_PATH_CACHE];	/* the tree of paths[i], 0: unused */
	u64 path_clock;
	struct btrfs_acct_stats stats;
	u64 progress_tick;
};

struct acct_block *acct_block_find(struct btrfs_acct *acct, u64 bytenr);
int acct_add_bytes(struct btrfs_acct *acct, u32 set, u64 bytes);
int acct_progress(struct btrfs_acct *acct, enum btrfs_acct_phase phase, u64 done);

/* acct-extents.c */
int acct_scan_extents(struct btrfs_acct *acct);
void acct_paths_release(struct btrfs_acct *acct);

#endif /* VOLCTL_KERNEL_SHARED_ACCT_INTERNAL_H */
