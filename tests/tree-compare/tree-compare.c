// SPDX-License-Identifier: GPL-2.0-only
/*
 * tree-compare: the differences between two trees of an image, through the
 * tree comparison engine (kernel-shared/tree-compare.c) or through a naive
 * full comparison, for tests/mounted/tree-compare.bats (a test helper, not
 * a volctl command).
 *
 *   tree-compare diff IMAGE LEFT RIGHT
 *	the engine's differences between trees LEFT and RIGHT (tree ids)
 *   tree-compare naive IMAGE LEFT RIGHT
 *	every item of both trees read and merged by key
 *
 * One line per difference, in key order, the same for both modes:
 *	KIND OBJECTID TYPE OFFSET LEFT_LEN RIGHT_LEN HASH
 * KIND is - (only in LEFT), + (only in RIGHT) or M (other bytes); HASH an
 * FNV-1a of the left then the right item's bytes.  Then, on stderr, one
 * line "blocks_read L R tree_blocks TL TR shared S compared C": the
 * blocks each side read (naive: every block of both trees) and each
 * tree's size in blocks.
 *
 * Exit status: 0, 1 on an error (the library's message on stderr), 2 on
 * bad usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernel-shared/fs.h"
#include "kernel-shared/io.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/walk.h"
#include "kernel-shared/tree-compare.h"

static u64 fnv(u64 h, const void *p, u32 len)
{
	const u8 *b = p;

	for (u32 i = 0; i < len; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static int print_diff(void *priv, enum btrfs_compare_result r, const struct btrfs_key *key,
		      const void *left, u32 left_len, const void *right, u32 right_len)
{
	static const char kinds[] = { [BTRFS_COMPARE_DELETED] = '-', [BTRFS_COMPARE_ADDED] = '+',
				      [BTRFS_COMPARE_CHANGED] = 'M' };
	u64 h = fnv(fnv(0xcbf29ce484222325ULL, left, left_len), right, right_len);

	if (printf("%c %llu %u %llu %u %u %016llx\n", kinds[r], (unsigned long long)key->objectid,
		   key->type, (unsigned long long)key->offset, left_len, right_len,
		   (unsigned long long)h) < 0)
		return -EIO;
	return 0;
}

/* ---- the naive comparison: both trees in memory, merged ---- */

struct item {
	struct btrfs_key key;
	u32 len;
	u8 *data;
};

struct items {
	struct item *v;
	size_t nr, cap;
};

static int collect(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct items *l = priv;

	if (l->nr == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 1024;
		struct item *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->nr].data = malloc(len ? len : 1);
	if (!l->v[l->nr].data)
		return -ENOMEM;
	memcpy(l->v[l->nr].data, data, len);
	l->v[l->nr].key = *key;
	l->v[l->nr].len = len;
	l->nr++;
	return 0;
}

static void items_release(struct items *l)
{
	for (size_t i = 0; i < l->nr; i++)
		free(l->v[i].data);
	free(l->v);
}

static int naive(struct btrfs_root *left, struct btrfs_root *right)
{
	struct btrfs_key min = { 0, 0, 0 }, max = { (u64)-1, 255, (u64)-1 };
	struct items l = { 0 }, r = { 0 };
	size_t i = 0, j = 0;
	int ret;

	ret = btrfs_iterate_items(left, &min, &max, collect, &l);
	if (ret == 0)
		ret = btrfs_iterate_items(right, &min, &max, collect, &r);
	while (ret == 0 && (i < l.nr || j < r.nr)) {
		int cmp = i == l.nr ? 1 : j == r.nr ? -1 : btrfs_key_cmp(&l.v[i].key, &r.v[j].key);

		if (cmp < 0) {
			ret = print_diff(NULL, BTRFS_COMPARE_DELETED, &l.v[i].key, l.v[i].data,
					 l.v[i].len, NULL, 0);
			i++;
		} else if (cmp > 0) {
			ret = print_diff(NULL, BTRFS_COMPARE_ADDED, &r.v[j].key, NULL, 0,
					 r.v[j].data, r.v[j].len);
			j++;
		} else {
			if (l.v[i].len != r.v[j].len || memcmp(l.v[i].data, r.v[j].data, l.v[i].len))
				ret = print_diff(NULL, BTRFS_COMPARE_CHANGED, &l.v[i].key,
						 l.v[i].data, l.v[i].len, r.v[j].data, r.v[j].len);
			i++;
			j++;
		}
	}
	items_release(&l);
	items_release(&r);
	return ret;
}

static int count_block(void *priv, const struct extent_buffer *eb,
		       const struct btrfs_walk_info *info)
{
	(*(u64 *)priv)++;
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: tree-compare diff|naive IMAGE LEFT RIGHT\n");
	return 2;
}

int main(int argc, char **argv)
{
	char msg[BTRFS_ERRMSG_SIZE] = "";
	struct btrfs_open_args args = { 0 };
	struct btrfs_compare_stats st = { 0 };
	struct btrfs_root *left, *right;
	struct btrfs_io_dev *dev;
	struct btrfs_fs *fs;
	u64 blocks[2] = { 0, 0 };
	bool engine;
	int ret;

	if (argc != 5 || (strcmp(argv[1], "diff") && strcmp(argv[1], "naive")))
		return usage();
	engine = strcmp(argv[1], "diff") == 0;
	ret = btrfs_io_open_file(argv[2], false, &dev);
	if (ret < 0) {
		fprintf(stderr, "tree-compare: %s: %s\n", argv[2], strerror(-ret));
		return 1;
	}
	args.devs = &dev;
	args.nr_devs = 1;
	args.super_mirror = BTRFS_SUPER_PRIMARY;
	args.errmsg = msg;
	ret = btrfs_fs_open(&fs, &args);
	if (ret < 0) {
		fprintf(stderr, "tree-compare: %s: %s\n", argv[2], msg[0] ? msg : strerror(-ret));
		btrfs_io_close(dev);
		return 1;
	}
	ret = btrfs_read_root(fs, strtoull(argv[3], NULL, 0), &left);
	if (ret == 0)
		ret = btrfs_read_root(fs, strtoull(argv[4], NULL, 0), &right);
	/* the trees' sizes; the engine counts the blocks it asks for, cached or not */
	if (ret == 0)
		ret = btrfs_walk_tree(left, count_block, &blocks[0]);
	if (ret == 0)
		ret = btrfs_walk_tree(right, count_block, &blocks[1]);
	if (ret == 0)
		ret = engine ? btrfs_compare_trees(left, right, print_diff, NULL, &st) :
			       naive(left, right);
	if (ret == 0 && fflush(stdout) != 0)
		ret = -EIO;
	if (ret == 0) {
		if (!engine) {
			st.blocks_read[0] = blocks[0];
			st.blocks_read[1] = blocks[1];
		}
		fprintf(stderr, "blocks_read %llu %llu tree_blocks %llu %llu shared %llu compared %llu\n",
			(unsigned long long)st.blocks_read[0], (unsigned long long)st.blocks_read[1],
			(unsigned long long)blocks[0], (unsigned long long)blocks[1],
			(unsigned long long)st.shared_skipped, (unsigned long long)st.items_compared);
	} else {
		fprintf(stderr, "tree-compare: %s\n", btrfs_fs_error(fs)[0] ? btrfs_fs_error(fs) :
			strerror(ret < 0 ? -ret : EIO));
	}
	btrfs_fs_close(fs);
	btrfs_io_close(dev);
	return ret == 0 ? 0 : 1;
}
