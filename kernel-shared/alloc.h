/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Metadata space: block groups, the allocator and the free space tree.
 *
 * At transaction start the block group items are read (extent tree, or the
 * block group tree when BLOCK_GROUP_TREE is set) and the free ranges of
 * every METADATA block group are taken from the committed free space tree
 * (or, without one, from the gaps between extent items).  Superblock
 * mirror windows are cut out.  The allocator hands out nodesize-aligned
 * blocks from those ranges only, first fit, so it never returns a block of
 * the committed state, nor one freed in this transaction.
 *
 * The free space tree itself is updated at commit (btrfs_fst_remove() and
 * btrfs_fst_add(), called by extent-tree.c) in the format each block group
 * already uses, extents or bitmaps.  The writer never converts between the
 * two: the kernel's thresholds only trade space, and the kernel converts
 * by itself the next time it changes that block group.
 */
#ifndef VOLCTL_KERNEL_SHARED_ALLOC_H
#define VOLCTL_KERNEL_SHARED_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include "format.h"

struct btrfs_trans_handle;
struct btrfs_fs;

struct btrfs_bg {
	u64 start;
	u64 length;
	u64 flags;
	u64 used;
	bool dirty;			/* item must be rewritten */
	bool fst_bitmaps;		/* its free space tree entries are bitmaps */
	int new_chunk;			/* index in new_chunks while its items are pending, else -1 */
};

struct btrfs_free_range {
	u64 start;
	u64 len;
};

/* Most chunks one transaction creates (arrays are sized once and never move) */
#define BTRFS_MAX_NEW_CHUNKS	64

/* Most stripes of a chunk this transaction creates (RAID0/RAID10: one per device) */
#define BTRFS_NEW_CHUNK_MAX_STRIPES	16

/* A chunk created in this transaction (chunk-alloc.c) */
struct btrfs_new_chunk {
	u64 logical;
	u64 length;
	u64 type;
	u64 stripe_size;		/* per device extent */
	u16 num_stripes;
	u16 sub_stripes;		/* 2 for RAID10, else 1 */
	u64 devid[BTRFS_NEW_CHUNK_MAX_STRIPES];
	u64 physical[BTRFS_NEW_CHUNK_MAX_STRIPES];
	bool items_done;		/* dev extents, chunk, block group, FST items inserted */
	/* its free space until the FST items exist: sorted, disjoint */
	struct btrfs_free_range *fst;
	size_t nr_fst, fst_cap;
};

struct btrfs_alloc_ctx {
	struct btrfs_bg *bgs;		/* sorted by start */
	size_t nr_bgs, bgs_cap;
	struct btrfs_free_range *free;	/* allocatable now, sorted */
	size_t nr_free, free_cap;
	struct btrfs_free_range *sys_free;	/* SYSTEM block groups, for the chunk tree */
	size_t nr_sys_free;
	struct btrfs_free_range *data_free;	/* DATA block groups, for new file data */
	size_t nr_data_free;
	bool data_loaded;		/* @data_free read (on the first data allocation) */
	bool has_fst;
	u64 bg_tree;			/* tree holding BLOCK_GROUP_ITEMs (2 or 11) */
	struct btrfs_new_chunk *new_chunks;
	size_t nr_new_chunks, new_chunks_cap;
};

/** btrfs_alloc_init - read block groups and metadata free space for @trans */
int btrfs_alloc_init(struct btrfs_trans_handle *trans);

/** btrfs_alloc_release - free the allocator state */
void btrfs_alloc_release(struct btrfs_alloc_ctx *ctx);

/**
 * btrfs_alloc_metadata - reserve one nodesize block for a block of tree @owner
 *
 * Chunk tree blocks come from the SYSTEM block groups, every other tree's
 * from the METADATA block groups.  When those are full, a new METADATA
 * chunk is created (chunk-alloc.c) and the block comes from it.
 * Return: 0 and *bytenr, -ENOSPC (device or SYSTEM block group full) or
 * -EOPNOTSUPP (a profile new chunks cannot be made for), message in fs->errmsg.
 */
int btrfs_alloc_metadata(struct btrfs_trans_handle *trans, u64 owner, u64 *bytenr);

/**
 * btrfs_alloc_data - reserve @len bytes (a multiple of the sector size)
 * of contiguous space in the DATA block groups for a new data extent
 *
 * First fit, sector aligned, never inside one block group's boundary and
 * the next.  No DATA chunk is created offline: an image meant to take
 * file data gets its DATA chunks at mkfs (btrfs_mkfs_args.data_size).
 * The extent item is added at commit (btrfs_add_data_extent()).
 * Return: 0 and *@bytenr, -EINVAL (@len), -ENOSPC with fs->errmsg.
 */
int btrfs_alloc_data(struct btrfs_trans_handle *trans, u64 len, u64 *bytenr);

/**
 * btrfs_alloc_data_upto - btrfs_alloc_data() of at most @len bytes and at
 * least @min: the whole @len where a free range holds it (first fit), else
 * all of the first free range that holds @min, so that extents fill the
 * ends of the block groups instead of leaving them unused
 * Return: 0 with *@bytenr and *@got, -EINVAL, -ENOSPC with fs->errmsg.
 */
int btrfs_alloc_data_upto(struct btrfs_trans_handle *trans, u64 len, u64 min, u64 *bytenr,
			  u64 *got);

/** btrfs_bg_lookup - block group containing @bytenr, or NULL */
struct btrfs_bg *btrfs_bg_lookup(struct btrfs_alloc_ctx *ctx, u64 bytenr);

/**
 * btrfs_fst_drop_stale - delete free space tree items of block groups that
 * do not exist (Debian's mkfs 6.2 leaves some for its temporary chunks;
 * newer `btrfs check` rejects them)
 * Return: number of items deleted, or <0.
 */
int btrfs_fst_drop_stale(struct btrfs_trans_handle *trans);

/** btrfs_fst_remove - mark [@start, @start + @len) used in the free space tree */
int btrfs_fst_remove(struct btrfs_trans_handle *trans, u64 start, u64 len);

/** btrfs_fst_add - mark [@start, @start + @len) free, merging with neighbours */
int btrfs_fst_add(struct btrfs_trans_handle *trans, u64 start, u64 len);

#endif /* VOLCTL_KERNEL_SHARED_ALLOC_H */
