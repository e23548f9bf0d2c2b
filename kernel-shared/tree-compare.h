/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tree comparison: the items that differ between two trees of one
 * filesystem (two snapshots' fs trees, a snapshot and its source), in key
 * order, reading only the blocks the two trees do not share.
 *
 * Both trees are walked in key order at once.  Where both sides stand at
 * the same key on the same level and their pointers name the same block
 * (same bytenr and generation), the subtree is shared and skipped without
 * being read, as the kernel's send does (fs/btrfs/send.c,
 * btrfs_compare_trees()).  So comparing a snapshot with its unchanged
 * source reads the two root blocks only, and a change costs the blocks on
 * its path in each tree.  Every block read is verified like the reader's
 * (btrfs_read_tree_block(): checksum, level, generation, first key and
 * owner against the parent pointer) and must keep its keys below its
 * parent's next key, so the walk's keys strictly increase and it ends on
 * any image.  Read-only; no printing.
 */
#ifndef VOLCTL_KERNEL_SHARED_TREE_COMPARE_H
#define VOLCTL_KERNEL_SHARED_TREE_COMPARE_H

#include "format.h"

struct btrfs_root;

enum btrfs_compare_result {
	BTRFS_COMPARE_DELETED = 1,	/* only in the left tree */
	BTRFS_COMPARE_ADDED,		/* only in the right tree */
	BTRFS_COMPARE_CHANGED,		/* in both, with other size or bytes */
};

/*
 * One difference.  @left/@left_len are the left tree's item (NULL, 0 for
 * ADDED), @right/@right_len the right tree's (NULL, 0 for DELETED); both
 * point into blocks and are valid only during the call.  A non-zero return
 * stops the comparison, which returns that value.
 */
typedef int (*btrfs_compare_cb)(void *priv, enum btrfs_compare_result r,
				const struct btrfs_key *key, const void *left, u32 left_len,
				const void *right, u32 right_len);

/* What a comparison cost; the caller zeroes it, the comparison adds to it */
struct btrfs_compare_stats {
	u64 blocks_read[2];		/* tree blocks read, left and right (roots included) */
	u64 shared_skipped;		/* subtrees skipped: the same block on both sides */
	u64 items_compared;		/* items present on both sides, compared byte for byte */
	u64 differences;		/* callback calls */
	u64 prefetch_hinted;		/* blocks hinted to the prefetch workers (io.h) */
	u64 prefetched;			/* ... and reads served from their slots */
};

/**
 * btrfs_compare_trees - report every item that differs between @left and
 * @right, in key order, through @cb
 * @stats:	may be NULL
 *
 * The two roots must belong to the same filesystem.  Two roots naming the
 * same root block (bytenr and generation) are equal without a read.
 *
 * Return: 0 when every difference was reported, the callback's non-zero
 * return when it stopped the walk, -EINVAL for roots of two filesystems
 * (fs->errmsg of @left set), or the reader's negative errno (-EUCLEAN,
 * -EIO, -ENOMEM; fs->errmsg names the block).
 */
int btrfs_compare_trees(struct btrfs_root *left, struct btrfs_root *right,
			btrfs_compare_cb cb, void *priv, struct btrfs_compare_stats *stats);

/*
 * The kernel's own walk (fs/btrfs/send.c, btrfs_compare_trees()), for a
 * send simulated as sizes: @send is the left tree, @parent the right one.
 * Unlike btrfs_compare_trees() above it goes down wherever the kernel goes
 * down (both sides at one level and different keys, or at different
 * levels), and it also reports the items that are equal on both sides of
 * two leaves it compares (BTRFS_SEND_CMP_SAME): send acts on some of them.
 * The blocks it reads are verified the same way.
 */
enum btrfs_send_cmp {
	BTRFS_SEND_CMP_NEW = 1,		/* only in @send */
	BTRFS_SEND_CMP_DELETED,		/* only in @parent */
	BTRFS_SEND_CMP_CHANGED,
	BTRFS_SEND_CMP_SAME,
};

/* An item at a cursor: its bytes (valid during the call) and its slot in its leaf */
struct btrfs_cmp_item {
	const u8 *data;
	u32 len;
	u32 slot;
	bool valid;			/* false when that side is not at a leaf item */
};

typedef int (*btrfs_send_cmp_cb)(void *priv, enum btrfs_send_cmp r, const struct btrfs_key *key,
				 const struct btrfs_cmp_item *send_item,
				 const struct btrfs_cmp_item *parent_item);

/**
 * btrfs_compare_trees_send - the kernel send's walk over @send and @parent
 * Return: as btrfs_compare_trees().
 */
int btrfs_compare_trees_send(struct btrfs_root *send, struct btrfs_root *parent,
			     btrfs_send_cmp_cb cb, void *priv);

#endif /* VOLCTL_KERNEL_SHARED_TREE_COMPARE_H */
