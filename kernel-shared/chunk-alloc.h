/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * New METADATA chunks inside an offline transaction.
 *
 * When the METADATA block groups are full, btrfs_chunk_alloc_metadata()
 * makes a chunk the way the kernel's btrfs_create_chunk() would on this
 * filesystem: the profile of the existing METADATA block groups (SINGLE,
 * DUP, RAID0, RAID1, RAID1C3, RAID1C4, RAID10; not RAID5/6), the kernel's
 * size rule (the metadata chunk size, 256 MiB or 1 GiB above 50 GiB,
 * capped at 10% of all devices, stripes rounded up to 16 MiB and down to
 * 64 KiB), on each device the first hole big enough for the largest such
 * chunk, else its largest hole, never below 1 MiB; the devices with the
 * largest holes (then the most unallocated bytes, then the lowest devid),
 * as many as the profile's devs_min/devs_max/devs_increment allow; the
 * logical start right after the last chunk.  Like the kernel it works in
 * two phases:
 *  1. in memory, at once (no tree is touched, so it can run in the middle
 *     of a tree change that needs a block): chunk map entry, block group,
 *     free ranges for the allocator, the device's bytes_used;
 *  2. at commit, btrfs_chunk_create_items(): DEV_EXTENT per stripe (dev
 *     tree), CHUNK_ITEM and each member's DEV_ITEM bytes_used (chunk tree, whose blocks
 *     come from the SYSTEM block group), BLOCK_GROUP_ITEM (extent or block
 *     group tree), FREE_SPACE_INFO + FREE_SPACE_EXTENTs.  Until then
 *     allocations in the new block group are tracked in memory.
 * The superblock gets the device's bytes_used and the chunk root at
 * commit; an abort removes the chunk map entries again.
 * Only METADATA chunks are made: SYSTEM chunks (sys_chunk_array) and DATA
 * chunks are not needed by any offline operation.
 */
#ifndef VOLCTL_KERNEL_SHARED_CHUNK_ALLOC_H
#define VOLCTL_KERNEL_SHARED_CHUNK_ALLOC_H

#include "format.h"

struct btrfs_trans_handle;
struct btrfs_super_block;
struct btrfs_bg;

/**
 * btrfs_chunk_alloc_metadata - add a METADATA chunk to @trans (phase 1)
 * Return: 0, -ENOSPC (too few devices with room; message names the
 * profile, the devices needed and how many have room), -EOPNOTSUPP
 * (profile, more than BTRFS_NEW_CHUNK_MAX_STRIPES stripes), -ENXIO
 * (missing member), -EUCLEAN, -ENOMEM.
 */
int btrfs_chunk_alloc_metadata(struct btrfs_trans_handle *trans);

/**
 * btrfs_chunk_create_items - insert the items of chunks made in @trans (phase 2)
 * Return: number of chunks done (0: none pending), or <0.
 */
int btrfs_chunk_create_items(struct btrfs_trans_handle *trans);

/**
 * btrfs_chunk_fst_pending - free space change in a block group whose FST
 * items do not exist yet
 * Return: 1 handled in memory, 0 the block group has FST items, <0 error.
 */
int btrfs_chunk_fst_pending(struct btrfs_trans_handle *trans, struct btrfs_bg *bg, u64 start,
			    u64 len, bool free);

/** btrfs_chunk_update_super - device bytes_used and chunk root into @sb */
void btrfs_chunk_update_super(struct btrfs_trans_handle *trans, struct btrfs_super_block *sb);

/** btrfs_chunk_alloc_abort - forget the chunks of @trans (chunk map, device) */
void btrfs_chunk_alloc_abort(struct btrfs_trans_handle *trans);

#endif /* VOLCTL_KERNEL_SHARED_CHUNK_ALLOC_H */
