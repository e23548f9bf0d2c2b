// SPDX-License-Identifier: GPL-2.0-only
/*
 * Whole-tree item scan with leaves read in runs (see tree-scan.h).
 *
 * Nodes come through the block cache as usual.  The children of a level 1
 * node are taken in groups of at most SCAN_BATCH_BYTES: each group is
 * mapped to the device (first copy), sorted by device offset, read with one
 * read per run of adjacent blocks into one buffer, verified in place, and
 * then its items are handed out in key order.  Leaves that the kernel
 * wrote in one transaction usually sit next to each other, so a group
 * costs a few reads instead of one per leaf.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "extent-buffer.h"
#include "fs.h"
#include "io.h"
#include "tree-scan.h"
#include "volumes.h"

#define SCAN_BATCH_BYTES	(1U << 20)

struct scan_leaf {
	u64 bytenr;
	u64 generation;
	struct btrfs_key first_key;
	struct btrfs_io_dev *io;	/* NULL: read through btrfs_read_tree_block() */
	u64 physical;
	u32 buf_slot;			/* where in the buffer it lands */
};

struct tree_scan {
	struct btrfs_fs *fs;
	u64 owner;
	btrfs_item_cb cb;
	void *priv;
	u8 *buf;
	u32 max_batch;			/* leaves per group */
	struct scan_leaf *leaves;	/* one group, in key order */
	u32 *by_dev;			/* indexes into leaves, sorted by device offset */
	bool have_last;
	struct btrfs_key last;		/* the last key handed out */
	bool stop;
};

static int cmp_dev_offset(const void *a, const void *b, void *priv)
{
	const struct scan_leaf *l = priv;
	const struct scan_leaf *x = &l[*(const u32 *)a], *y = &l[*(const u32 *)b];

	if (x->io != y->io)
		return (uintptr_t)x->io < (uintptr_t)y->io ? -1 : 1;
	if (x->physical != y->physical)
		return x->physical < y->physical ? -1 : 1;
	return 0;
}

static void leaf_check(const struct tree_scan *ts, const struct scan_leaf *l,
		       struct btrfs_tree_parent_check *check)
{
	memset(check, 0, sizeof(*check));
	check->transid = l->generation;
	check->owner_root = ts->owner;
	check->has_level = true;
	check->level = 0;
	check->has_first_key = true;
	check->first_key = l->first_key;
}

/* A leaf whose run could not be read, or whose first copy failed: the cache reader's way */
static int read_leaf_slow(struct tree_scan *ts, const struct scan_leaf *l)
{
	struct btrfs_tree_parent_check check;
	struct extent_buffer *eb;
	int ret;

	leaf_check(ts, l, &check);
	btrfs_fs_clear_error(ts->fs);
	ret = btrfs_read_tree_block(ts->fs, l->bytenr, &check, &eb);
	if (ret)
		return ret;
	memcpy(ts->buf + (size_t)l->buf_slot * ts->fs->nodesize, eb->data, ts->fs->nodesize);
	free_extent_buffer(eb);
	return 0;
}

/* Read and verify leaves [0, @n) of the group */
static int read_group(struct tree_scan *ts, u32 n)
{
	const u32 nodesize = ts->fs->nodesize;

	for (u32 i = 0; i < n; i++) {
		struct scan_leaf *l = &ts->leaves[i];
		struct btrfs_io_stripe st;
		char saved[BTRFS_ERRMSG_SIZE];

		ts->by_dev[i] = i;
		memcpy(saved, ts->fs->errmsg, sizeof(saved));
		if (!btrfs_map_block(ts->fs, l->bytenr, nodesize, 1, &st) && st.dev && st.dev->io) {
			l->io = st.dev->io;
			l->physical = st.physical;
		} else {
			l->io = NULL;	/* read_leaf_slow() says why */
		}
		memcpy(ts->fs->errmsg, saved, sizeof(saved));
	}
	qsort_r(ts->by_dev, n, sizeof(*ts->by_dev), cmp_dev_offset, ts->leaves);
	for (u32 i = 0; i < n; i++)
		ts->leaves[ts->by_dev[i]].buf_slot = i;
	for (u32 i = 0; i < n;) {
		const struct scan_leaf *first = &ts->leaves[ts->by_dev[i]];
		u32 j = i + 1;
		int rd = -EIO;

		if (first->io) {
			while (j < n && ts->leaves[ts->by_dev[j]].io == first->io &&
			       ts->leaves[ts->by_dev[j]].physical ==
			       first->physical + (u64)(j - i) * nodesize)
				j++;
			rd = btrfs_io_read(first->io, ts->buf + (size_t)i * nodesize,
					   (size_t)(j - i) * nodesize, first->physical);
		}
		for (u32 k = i; k < j; k++) {
			const struct scan_leaf *l = &ts->leaves[ts->by_dev[k]];
			struct btrfs_tree_parent_check check;
			int ret;

			leaf_check(ts, l, &check);
			if (!rd && !btrfs_verify_tree_block(ts->fs, l->bytenr,
							    ts->buf + (size_t)k * nodesize, &check))
				continue;
			ret = read_leaf_slow(ts, l);
			if (ret)
				return ret;
		}
		i = j;
	}
	return 0;
}

/* Hand out the items of one verified leaf */
static int emit_leaf(struct tree_scan *ts, u64 bytenr, const u8 *leaf)
{
	const struct btrfs_header *h = (const struct btrfs_header *)leaf;
	u32 nr = btrfs_header_nritems(h);

	for (u32 i = 0; i < nr; i++) {
		const struct btrfs_item *item = (const struct btrfs_item *)
			(leaf + sizeof(struct btrfs_header) + (size_t)i * sizeof(struct btrfs_item));
		struct btrfs_key key;
		int ret;

		btrfs_item_key(item, &key);
		if (ts->have_last && btrfs_key_cmp(&key, &ts->last) <= 0) {
			btrfs_fs_set_error(ts->fs, "tree block %llu: key (%llu %u %llu) out of order",
					   (unsigned long long)bytenr,
					   (unsigned long long)key.objectid, key.type,
					   (unsigned long long)key.offset);
			return -EUCLEAN;
		}
		ts->last = key;
		ts->have_last = true;
		ret = ts->cb(ts->priv, &key, leaf + BTRFS_LEAF_DATA_OFFSET + btrfs_item_offset(item),
			     btrfs_item_size(item));
		if (ret) {
			ts->stop = true;
			return ret < 0 ? ret : 0;
		}
	}
	return 0;
}

static int scan_level1(struct tree_scan *ts, const struct extent_buffer *node)
{
	u32 nr = btrfs_eb_nritems(node);

	for (u32 start = 0; start < nr && !ts->stop; start += ts->max_batch) {
		u32 n = nr - start < ts->max_batch ? nr - start : ts->max_batch;
		int ret;

		for (u32 i = 0; i < n; i++) {
			struct scan_leaf *l = &ts->leaves[i];

			l->bytenr = btrfs_eb_node_blockptr(node, start + i);
			l->generation = btrfs_eb_node_ptr_generation(node, start + i);
			btrfs_eb_node_key(node, start + i, &l->first_key);
		}
		ret = read_group(ts, n);
		for (u32 i = 0; !ret && i < n && !ts->stop; i++)
			ret = emit_leaf(ts, ts->leaves[i].bytenr,
					ts->buf + (size_t)ts->leaves[i].buf_slot * ts->fs->nodesize);
		if (ret)
			return ret;
	}
	return 0;
}

static int scan_node(struct tree_scan *ts, const struct extent_buffer *eb)
{
	u8 level = btrfs_eb_level(eb);

	if (level == 0)
		return emit_leaf(ts, eb->start, eb->data);
	if (level == 1)
		return scan_level1(ts, eb);
	for (u32 i = 0; i < btrfs_eb_nritems(eb) && !ts->stop; i++) {
		struct btrfs_tree_parent_check check = {
			.transid = btrfs_eb_node_ptr_generation(eb, i),
			.owner_root = ts->owner,
			.has_level = true,
			.level = level - 1,
			.has_first_key = true,
		};
		struct extent_buffer *child;
		int ret;

		btrfs_eb_node_key(eb, i, &check.first_key);
		ret = btrfs_read_tree_block(ts->fs, btrfs_eb_node_blockptr(eb, i), &check, &child);
		if (ret)
			return ret;
		ret = scan_node(ts, child);
		free_extent_buffer(child);
		if (ret)
			return ret;
	}
	return 0;
}

int btrfs_scan_tree_items(struct btrfs_root *root, btrfs_item_cb cb, void *priv)
{
	struct btrfs_fs *fs = root->fs;
	struct tree_scan ts = {
		.fs = fs,
		.owner = root->id,
		.cb = cb,
		.priv = priv,
	};
	int ret;

	ret = btrfs_root_load_node(root);
	if (ret)
		return ret;
	ts.max_batch = SCAN_BATCH_BYTES / fs->nodesize ? SCAN_BATCH_BYTES / fs->nodesize : 1;
	ts.buf = malloc((size_t)ts.max_batch * fs->nodesize);
	ts.leaves = calloc(ts.max_batch, sizeof(*ts.leaves));
	ts.by_dev = calloc(ts.max_batch, sizeof(*ts.by_dev));
	if (!ts.buf || !ts.leaves || !ts.by_dev)
		ret = -ENOMEM;
	else
		ret = scan_node(&ts, root->node);
	free(ts.buf);
	free(ts.leaves);
	free(ts.by_dev);
	return ret;
}
