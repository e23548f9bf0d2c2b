/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Free range lists shared by the allocator (alloc.c) and the chunk
 * allocator (chunk-alloc.c); library-internal.
 */
#ifndef VOLCTL_KERNEL_SHARED_ALLOC_INTERNAL_H
#define VOLCTL_KERNEL_SHARED_ALLOC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include "format.h"
#include "alloc.h"

struct btrfs_fs;

/* Append [@start, @start + @len) (nothing when @len is 0) */
int btrfs_range_push(struct btrfs_free_range **arr, size_t *nr, size_t *cap, u64 start, u64 len);

/* Cut [@start, @start + @len) out of disjoint @ranges; the result may be unsorted */
int btrfs_range_cut(struct btrfs_free_range **ranges, size_t *nr, size_t *cap, u64 start,
		    u64 len);

/* Sort by start, drop empty ranges and, with @merge, join touching ones */
void btrfs_range_normalize(struct btrfs_free_range *ranges, size_t *nr, bool merge);

/* Cut the logical windows of block group @bg that map onto a superblock copy */
int btrfs_range_cut_super(struct btrfs_fs *fs, struct btrfs_free_range **ranges, size_t *nr,
			  size_t *cap, const struct btrfs_bg *bg);

#endif /* VOLCTL_KERNEL_SHARED_ALLOC_INTERNAL_H */
