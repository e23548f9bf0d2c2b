// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tree comparison engine (kernel-shared/tree-compare.c) on memory
 * devices: trees of test items (type PERSISTENT_ITEM, which the
 * tree-checker leaves alone) built with the offline writer, snapshotted
 * (an offline snapshot shares its source's children) and changed.
 *
 * The oracle is a naive comparison: every item of both trees read through
 * btrfs_iterate_items() and merged by key.  Block counts prove the shared
 * subtrees are skipped: identical trees read their two roots only, one
 * changed item its path in each tree, N changes at most a leaf and a node
 * each (N = 1, 10, 100, 1000, the counts printed).  Randomized trees (seeded, 200 seeds
 * by default, or the count given: sizes from one leaf to three levels,
 * random inserts, deletes, rewrites with the same and with other bytes and
 * sizes, in two rounds with a snapshot between) compare every pair both
 * ways against the oracle.  Blocks are verified as the reader does: a bad
 * block reached is -EUCLEAN (a checksum, a leaf reaching its parent's next
 * key), a bad block in a shared subtree is not read.
 * The kernel's trees are compared in tests/mounted/tree-compare.bats.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "unit.h"
#include "kernel-shared/fs.h"
#include "kernel-shared/io.h"
#include "kernel-shared/mkfs.h"
#include "kernel-shared/subvol-create.h"
#include "kernel-shared/snapshot.h"
#include "kernel-shared/transaction.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/ctree-write.h"
#include "kernel-shared/walk.h"
#include "kernel-shared/volumes.h"
#include "kernel-shared/csum.h"
#include "kernel-shared/tree-compare.h"

#define IMG_SIZE	(128ULL << 20)
#define NODESIZE	4096
#define KEY_TYPE	BTRFS_PERSISTENT_ITEM_KEY
/* test keys: objectid 100..499 (around the root directory's 256), offset 0..15 */
#define OBJ_FIRST	100
#define OBJ_COUNT	400
#define OFF_COUNT	16
#define KEY_SPACE	(OBJ_COUNT * OFF_COUNT)
#define MAX_ITEM	300

struct env {
	void *buf;
	struct btrfs_io_dev *dev;
	struct btrfs_fs *fs;
	struct btrfs_trans_handle *trans;
	u64 now;
};

static u64 rng_state;

static u64 rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void rng_seed(u64 seed)
{
	rng_state = seed * 0x9e3779b97f4a7c15ULL + 1;
	for (int i = 0; i < 4; i++)
		rng();
}

static struct btrfs_key key_of(u32 idx)
{
	return (struct btrfs_key){ OBJ_FIRST + idx / OFF_COUNT, KEY_TYPE, idx % OFF_COUNT };
}

static int env_open(struct env *e)
{
	char msg[BTRFS_ERRMSG_SIZE] = "";
	struct btrfs_mkfs_args a = { 0 };
	struct btrfs_open_args o = { 0 };

	memset(e, 0, sizeof(*e));
	e->now = 1700000000;
	e->buf = calloc(1, IMG_SIZE);
	if (!e->buf || btrfs_io_open_memory(e->buf, IMG_SIZE, false, true, &e->dev))
		return -ENOMEM;
	a.dev = e->dev;
	a.nodesize = NODESIZE;
	a.now_sec = e->now;
	a.errmsg = msg;
	if (btrfs_mkfs(&a)) {
		fprintf(stderr, "mkfs: %s\n", msg);
		return -EIO;
	}
	o.devs = &e->dev;
	o.nr_devs = 1;
	o.super_mirror = BTRFS_SUPER_PRIMARY;
	o.writable = true;
	o.errmsg = msg;
	if (btrfs_fs_open(&e->fs, &o) < 0) {
		fprintf(stderr, "open: %s\n", msg);
		return -EIO;
	}
	return 0;
}

static void env_close(struct env *e)
{
	if (e->fs)
		btrfs_fs_close(e->fs);
	if (e->dev)
		btrfs_io_close(e->dev);
	free(e->buf);
}

/* Close and open the filesystem again (an empty block cache) */
static int env_reopen(struct env *e)
{
	char msg[BTRFS_ERRMSG_SIZE] = "";
	struct btrfs_open_args o = { 0 };

	btrfs_fs_close(e->fs);
	e->fs = NULL;
	o.devs = &e->dev;
	o.nr_devs = 1;
	o.super_mirror = BTRFS_SUPER_PRIMARY;
	o.errmsg = msg;
	return btrfs_fs_open(&e->fs, &o);
}

/*
 * Go on from an image file instead of the memory device: a file device
 * has the prefetch worker (io-prefetch.c), which the memory device lacks,
 * so the comparisons below run with the worker reading ahead.
 */
static int env_to_file(struct env *e)
{
	char path[] = "/tmp/volctl-tree-compare-XXXXXX";
	struct btrfs_io_dev *dev;
	static const u8 zero[4096];
	int fd = mkstemp(path), ret = 0;

	if (fd < 0)
		return -errno;
	/* sparse: only the pages mkfs and the edits wrote */
	if (ftruncate(fd, (off_t)IMG_SIZE) < 0)
		ret = -errno;
	for (u64 off = 0; ret == 0 && off < IMG_SIZE; off += sizeof(zero)) {
		const u8 *p = (const u8 *)e->buf + off;

		if (memcmp(p, zero, sizeof(zero)) &&
		    pwrite(fd, p, sizeof(zero), (off_t)off) != (ssize_t)sizeof(zero))
			ret = -EIO;
	}
	close(fd);
	if (ret < 0) {
		unlink(path);
		return ret;
	}
	ret = btrfs_io_open_file(path, false, &dev);
	unlink(path);
	if (ret < 0)
		return ret;
	dev->prefetch_workers = 1;	/* none by default on a file */
	btrfs_fs_close(e->fs);
	e->fs = NULL;
	btrfs_io_close(e->dev);
	e->dev = dev;
	return env_reopen(e);
}

/* Flip a byte in every copy of tree block @bytenr on the memory device */
static int corrupt_block(struct env *e, u64 bytenr)
{
	int copies = btrfs_num_copies(e->fs, bytenr, NODESIZE);

	for (int m = 1; m <= copies; m++) {
		struct btrfs_io_stripe st;

		if (btrfs_map_block(e->fs, bytenr, NODESIZE, m, &st))
			return -EIO;
		((u8 *)e->buf)[st.physical + 200] ^= 0xff;
	}
	return copies > 0 ? 0 : -EIO;
}

/*
 * In every copy of leaf @bytenr, the last item's key becomes @key (still
 * sorted inside the leaf), checksum recomputed: only the range check
 * against the parent's next key can tell
 */
static int rekey_last_item(struct env *e, u64 bytenr, const struct btrfs_key *key)
{
	int copies = btrfs_num_copies(e->fs, bytenr, NODESIZE);

	for (int m = 1; m <= copies; m++) {
		struct btrfs_io_stripe st;
		u8 *blk, c[BTRFS_CSUM_MAX_SIZE];
		u32 nr;

		if (btrfs_map_block(e->fs, bytenr, NODESIZE, m, &st))
			return -EIO;
		blk = (u8 *)e->buf + st.physical;
		nr = btrfs_header_nritems((struct btrfs_header *)blk);
		btrfs_set_item_key((struct btrfs_item *)(blk + sizeof(struct btrfs_header) +
							 (nr - 1) * sizeof(struct btrfs_item)), key);
		btrfs_csum_data(e->fs->csum_type, blk + BTRFS_CSUM_SIZE, NODESIZE - BTRFS_CSUM_SIZE, c);
		memcpy(blk, c, BTRFS_CSUM_SIZE);
	}
	return copies > 0 ? 0 : -EIO;
}

static u64 leaf_of(struct btrfs_root *root, u32 idx)
{
	struct btrfs_path p;
	struct btrfs_key k = key_of(idx);
	u64 bytenr = 0;

	btrfs_path_init(&p);
	if (btrfs_search_slot(NULL, root, &k, &p, 0, 0) == 0)
		bytenr = p.nodes[0]->start;
	btrfs_path_release(&p);
	return bytenr;
}

static int begin(struct env *e)
{
	return btrfs_start_transaction(e->fs, &e->trans);
}

static int commit(struct env *e)
{
	int ret = btrfs_commit_transaction(e->trans);

	e->trans = NULL;
	return ret;
}

static int new_subvol(struct env *e, const char *name, u64 src, u64 *id)
{
	struct btrfs_subvol_create_args a = { 0 };
	int ret;

	a.parent_root = BTRFS_FS_TREE_OBJECTID;
	a.parent_dir = 256;
	a.name = name;
	a.name_len = strlen(name);
	a.now_sec = ++e->now;
	ret = begin(e);
	if (ret)
		return ret;
	ret = src ? btrfs_snapshot_create(e->trans, src, true, &a) : btrfs_subvol_create(e->trans, &a);
	if (ret) {
		btrfs_abort_transaction(e->trans);
		e->trans = NULL;
		return ret;
	}
	*id = a.subvolid;
	return commit(e);
}

static struct btrfs_root *root_of(struct env *e, u64 id)
{
	struct btrfs_root *root = NULL;

	if (btrfs_read_root(e->fs, id, &root) || btrfs_root_load_node(root))
		return NULL;
	return root;
}

static u32 fill(u8 *data, u32 idx, u32 salt)
{
	u32 len = 1 + (u32)(rng() % MAX_ITEM);

	for (u32 i = 0; i < len; i++)
		data[i] = (u8)(idx * 7 + salt * 13 + i);
	return len;
}

/* ---- one tree's items and the naive comparison -------------------------- */

struct item {
	struct btrfs_key key;
	u32 len;
	u8 *data;
};

struct items {
	struct item *v;
	size_t nr, cap;
};

static int items_add(struct items *l, const struct btrfs_key *key, const void *data, u32 len)
{
	if (l->nr == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 256;
		struct item *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->nr].key = *key;
	l->v[l->nr].len = len;
	l->v[l->nr].data = malloc(len ? len : 1);
	if (!l->v[l->nr].data)
		return -ENOMEM;
	memcpy(l->v[l->nr].data, data, len);
	l->nr++;
	return 0;
}

static void items_release(struct items *l)
{
	for (size_t i = 0; i < l->nr; i++)
		free(l->v[i].data);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int collect_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	return items_add(priv, key, data, len) ? -ENOMEM : 0;
}

static int all_items(struct btrfs_root *root, struct items *out)
{
	struct btrfs_key min = { 0, 0, 0 }, max = { (u64)-1, 255, (u64)-1 };

	memset(out, 0, sizeof(*out));
	return btrfs_iterate_items(root, &min, &max, collect_cb, out);
}

struct diff {
	enum btrfs_compare_result r;
	struct btrfs_key key;
	u32 llen, rlen;
	u8 *ldata, *rdata;
};

struct diffs {
	struct diff *v;
	size_t nr, cap;
	int stop_after;			/* > 0: return 7 at this many */
};

static u8 *dup_bytes(const void *p, u32 len)
{
	u8 *d = malloc(len ? len : 1);

	if (d && len)
		memcpy(d, p, len);
	return d;
}

static int diffs_add(struct diffs *d, enum btrfs_compare_result r, const struct btrfs_key *key,
		     const void *l, u32 llen, const void *rt, u32 rlen)
{
	if (d->nr == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 64;
		struct diff *v = realloc(d->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		d->v = v;
		d->cap = cap;
	}
	d->v[d->nr] = (struct diff){ r, *key, llen, rlen, dup_bytes(l, llen), dup_bytes(rt, rlen) };
	d->nr++;
	return 0;
}

static void diffs_release(struct diffs *d)
{
	for (size_t i = 0; i < d->nr; i++) {
		free(d->v[i].ldata);
		free(d->v[i].rdata);
	}
	free(d->v);
	memset(d, 0, sizeof(*d));
}

static int diff_cb(void *priv, enum btrfs_compare_result r, const struct btrfs_key *key,
		   const void *left, u32 left_len, const void *right, u32 right_len)
{
	struct diffs *d = priv;

	if ((r == BTRFS_COMPARE_ADDED) != (left == NULL) ||
	    (r == BTRFS_COMPARE_DELETED) != (right == NULL))
		return -EFAULT;
	if (diffs_add(d, r, key, left, left_len, right, right_len))
		return -ENOMEM;
	if (d->stop_after && (int)d->nr == d->stop_after)
		return 7;
	return 0;
}

/* Every item of both trees, merged by key */
static int naive_compare(struct btrfs_root *left, struct btrfs_root *right, struct diffs *out)
{
	struct items l, r;
	size_t i = 0, j = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = all_items(left, &l);
	if (ret == 0)
		ret = all_items(right, &r);
	else
		memset(&r, 0, sizeof(r));
	while (ret == 0 && (i < l.nr || j < r.nr)) {
		int cmp = i == l.nr ? 1 : j == r.nr ? -1 : btrfs_key_cmp(&l.v[i].key, &r.v[j].key);

		if (cmp < 0) {
			ret = diffs_add(out, BTRFS_COMPARE_DELETED, &l.v[i].key, l.v[i].data,
					l.v[i].len, NULL, 0);
			i++;
		} else if (cmp > 0) {
			ret = diffs_add(out, BTRFS_COMPARE_ADDED, &r.v[j].key, NULL, 0, r.v[j].data,
					r.v[j].len);
			j++;
		} else {
			if (l.v[i].len != r.v[j].len || memcmp(l.v[i].data, r.v[j].data, l.v[i].len))
				ret = diffs_add(out, BTRFS_COMPARE_CHANGED, &l.v[i].key, l.v[i].data,
						l.v[i].len, r.v[j].data, r.v[j].len);
			i++;
			j++;
		}
	}
	items_release(&l);
	items_release(&r);
	return ret;
}

static bool diffs_equal(const struct diffs *a, const struct diffs *b)
{
	if (a->nr != b->nr)
		return false;
	for (size_t i = 0; i < a->nr; i++) {
		const struct diff *x = &a->v[i], *y = &b->v[i];

		if (x->r != y->r || btrfs_key_cmp(&x->key, &y->key) || x->llen != y->llen ||
		    x->rlen != y->rlen || memcmp(x->ldata, y->ldata, x->llen) ||
		    memcmp(x->rdata, y->rdata, x->rlen))
			return false;
	}
	return true;
}

/* The engine against the oracle; the engine's differences stay in @out */
static bool compare_checked(struct btrfs_root *left, struct btrfs_root *right, struct diffs *out,
			    struct btrfs_compare_stats *st)
{
	struct diffs naive;
	bool ok;
	int ret;

	memset(out, 0, sizeof(*out));
	memset(st, 0, sizeof(*st));
	ret = btrfs_compare_trees(left, right, diff_cb, out, st);
	if (!CHECK_EQ_INT(ret, 0))
		fprintf(stderr, "compare: %s\n", btrfs_fs_error(left->fs));
	CHECK_EQ_INT(naive_compare(left, right, &naive), 0);
	ok = CHECK(diffs_equal(out, &naive));
	if (!ok)
		fprintf(stderr, "trees %llu/%llu: engine %zu differences, naive %zu\n",
			(unsigned long long)left->id, (unsigned long long)right->id, out->nr,
			naive.nr);
	CHECK_EQ_U64(st->differences, out->nr);
	diffs_release(&naive);
	return ok && ret == 0;
}

static int count_cb(void *priv, const struct extent_buffer *eb, const struct btrfs_walk_info *info)
{
	(*(u64 *)priv)++;
	return 0;
}

static u64 tree_blocks(struct btrfs_root *root)
{
	u64 n = 0;

	CHECK_EQ_INT(btrfs_walk_tree(root, count_cb, &n), 0);
	return n;
}

/* ---- building trees -------------------------------------------------------- */

/* @n new random test items in tree @id, one transaction */
static int insert_random(struct env *e, u64 id, bool *present, u32 n, u32 salt)
{
	struct btrfs_root *root;
	u8 data[MAX_ITEM] = { 0 };
	int ret = begin(e);

	if (ret)
		return ret;
	if (btrfs_read_root(e->fs, id, &root))
		return -ENOENT;
	for (u32 done = 0, tries = 0; done < n && tries < 50 * n; tries++) {
		u32 idx = (u32)(rng() % KEY_SPACE);
		struct btrfs_key k = key_of(idx);

		if (present[idx])
			continue;
		ret = btrfs_insert_item(e->trans, root, &k, data, fill(data, idx, salt));
		if (ret)
			return ret;
		present[idx] = true;
		done++;
	}
	return commit(e);
}

/* Items in key order */
static int insert_range(struct env *e, u64 id, bool *present, u32 first, u32 n, u32 len)
{
	struct btrfs_root *root;
	u8 data[MAX_ITEM] = { 0 };
	int ret = begin(e);

	if (ret)
		return ret;
	if (btrfs_read_root(e->fs, id, &root))
		return -ENOENT;
	memset(data, 0x5a, sizeof(data));
	for (u32 idx = first; idx < first + n; idx++) {
		struct btrfs_key k = key_of(idx);

		data[0] = (u8)idx;
		ret = btrfs_insert_item(e->trans, root, &k, data, len);
		if (ret)
			return ret;
		present[idx] = true;
	}
	return commit(e);
}

static u32 pick_present(const bool *present)
{
	u32 idx = (u32)(rng() % KEY_SPACE);

	for (u32 i = 0; i < KEY_SPACE; i++, idx = (idx + 1) % KEY_SPACE)
		if (present[idx])
			return idx;
	return KEY_SPACE;
}

/* @n random edits of tree @id: inserts, deletes, rewrites (same size, other size, same bytes) */
static int edit_random(struct env *e, u64 id, bool *present, u32 n, u32 salt)
{
	struct btrfs_root *root;
	u8 data[MAX_ITEM] = { 0 };
	int ret = begin(e);

	if (ret)
		return ret;
	if (btrfs_read_root(e->fs, id, &root))
		return -ENOENT;
	for (u32 i = 0; i < n && ret == 0; i++) {
		u32 op = (u32)(rng() % 5), idx = pick_present(present), len;
		struct btrfs_key k;

		if (idx == KEY_SPACE)
			op = 0;
		if (op == 0) {
			idx = (u32)(rng() % KEY_SPACE);
			if (present[idx])
				continue;
			k = key_of(idx);
			ret = btrfs_insert_item(e->trans, root, &k, data, fill(data, idx, salt + i));
			present[idx] = true;
			continue;
		}
		k = key_of(idx);
		if (op == 1) {
			ret = btrfs_delete_key(e->trans, root, &k);
			present[idx] = false;
			continue;
		}
		ret = btrfs_lookup_item(root, &k, data, sizeof(data), &len);
		if (ret)
			break;
		if (op == 2) {			/* same size, other bytes */
			data[rng() % len] ^= 0x80;
			ret = btrfs_update_item(e->trans, root, &k, data, len);
		} else if (op == 3) {		/* same bytes: no difference */
			ret = btrfs_update_item(e->trans, root, &k, data, len);
		} else {			/* other size */
			ret = btrfs_delete_key(e->trans, root, &k);
			if (ret == 0)
				ret = btrfs_insert_item(e->trans, root, &k, data,
							len % MAX_ITEM + 1);
		}
	}
	if (ret) {
		btrfs_abort_transaction(e->trans);
		e->trans = NULL;
		return ret;
	}
	return commit(e);
}

/* ---- tests ------------------------------------------------------------------- */

static bool present[KEY_SPACE];

/* what the random seeds covered */
static struct {
	u64 comparisons, differences, blocks_read, blocks, max_level;
	u64 file_comparisons, hinted, prefetched;
} cover;

/* A 3-level tree @ida of 6000 test items of 150 bytes and a snapshot @ids of it */
static bool build_base(struct env *e, u64 *ida, u64 *ids)
{
	memset(present, 0, sizeof(present));
	if (!CHECK_EQ_INT(env_open(e), 0) || !CHECK_EQ_INT(new_subvol(e, "a", 0, ida), 0) ||
	    !CHECK_EQ_INT(insert_range(e, *ida, present, 0, 6000, 150), 0) ||
	    !CHECK_EQ_INT(new_subvol(e, "s", *ida, ids), 0))
		return false;
	return true;
}

/* Identical trees read their roots only; one item changed, its path */
static void test_one_change(void)
{
	struct btrfs_compare_stats st;
	struct btrfs_root *a, *s;
	struct diffs d;
	struct env e;
	u64 ida, ids;
	u8 data[MAX_ITEM] = { 0 };
	u32 len;

	if (!build_base(&e, &ida, &ids))
		goto out;
	a = root_of(&e, ida);
	s = root_of(&e, ids);
	if (!CHECK(a && s))
		goto out;
	CHECK_EQ_INT(btrfs_eb_level(a->node), 2);
	CHECK(a->bytenr != s->bytenr);

	/* identical: the two roots only */
	CHECK(compare_checked(s, a, &d, &st));
	CHECK_EQ_U64(d.nr, 0);
	CHECK_EQ_U64(st.blocks_read[0], 1);
	CHECK_EQ_U64(st.blocks_read[1], 1);
	CHECK_EQ_U64(st.shared_skipped, btrfs_eb_nritems(a->node));
	printf("# identical 3-level trees (%llu blocks each): blocks read %llu + %llu\n",
	       (unsigned long long)tree_blocks(a), (unsigned long long)st.blocks_read[0],
	       (unsigned long long)st.blocks_read[1]);
	diffs_release(&d);
	/* a tree with itself: nothing read */
	CHECK(compare_checked(a, a, &d, &st));
	CHECK_EQ_U64(st.blocks_read[0] + st.blocks_read[1], 0);
	diffs_release(&d);

	/* one item in one leaf changed: that item, the path in each tree */
	CHECK_EQ_INT(begin(&e), 0);
	{
		struct btrfs_key k = key_of(3001);

		CHECK_EQ_INT(btrfs_lookup_item(a, &k, data, sizeof(data), &len), 0);
		data[10] ^= 1;
		CHECK_EQ_INT(btrfs_update_item(e.trans, a, &k, data, len), 0);
	}
	CHECK_EQ_INT(commit(&e), 0);
	a = root_of(&e, ida);
	CHECK(compare_checked(s, a, &d, &st));
	if (CHECK_EQ_U64(d.nr, 1)) {
		struct btrfs_key k = key_of(3001);

		CHECK_EQ_INT(d.v[0].r, BTRFS_COMPARE_CHANGED);
		CHECK(btrfs_key_cmp(&d.v[0].key, &k) == 0);
		CHECK_EQ_U64(d.v[0].llen, 150);
		CHECK_EQ_U64(d.v[0].rlen, 150);
		CHECK_EQ_INT(d.v[0].ldata[10] ^ d.v[0].rdata[10], 1);
	}
	CHECK_EQ_U64(st.blocks_read[0], 3);
	CHECK_EQ_U64(st.blocks_read[1], 3);
	printf("# one changed item: blocks read %llu + %llu, items compared %llu\n",
	       (unsigned long long)st.blocks_read[0], (unsigned long long)st.blocks_read[1],
	       (unsigned long long)st.items_compared);
	diffs_release(&d);

	/* reversed: the same item, left and right swapped */
	CHECK(compare_checked(a, s, &d, &st));
	CHECK_EQ_U64(d.nr, 1);
	diffs_release(&d);

	/* the callback stops the walk with its own value */
	memset(&d, 0, sizeof(d));
	d.stop_after = 1;
	CHECK_EQ_INT(btrfs_compare_trees(s, a, diff_cb, &d, NULL), 7);
	diffs_release(&d);

out:
	env_close(&e);
}

/*
 * Edges: items before the first and after the last key, the first and
 * last item of a leaf deleted, the last test item deleted.
 */
static void test_edges(void)
{
	struct btrfs_compare_stats st;
	struct btrfs_root *a, *s, *t;
	struct diffs d;
	struct env e;
	u64 ida, ids, idt;
	u8 data[MAX_ITEM] = { 0 };

	if (!build_base(&e, &ida, &ids))
		goto out;
	a = root_of(&e, ida);
	if (!CHECK(a))
		goto out;
	CHECK_EQ_INT(new_subvol(&e, "t", ida, &idt), 0);
	CHECK_EQ_INT(begin(&e), 0);
	{
		struct btrfs_path p;
		struct btrfs_key k = key_of(4000), first, last;

		btrfs_path_init(&p);
		CHECK(btrfs_search_slot(NULL, a, &k, &p, 0, 0) == 0);
		btrfs_eb_item_key(p.nodes[0], 0, &first);
		btrfs_eb_item_key(p.nodes[0], btrfs_eb_nritems(p.nodes[0]) - 1, &last);
		btrfs_path_release(&p);
		CHECK_EQ_INT(btrfs_delete_key(e.trans, a, &first), 0);
		CHECK_EQ_INT(btrfs_delete_key(e.trans, a, &last), 0);
		k = (struct btrfs_key){ 1, KEY_TYPE, 0 };		/* before everything */
		CHECK_EQ_INT(btrfs_insert_item(e.trans, a, &k, data, 20), 0);
		k = (struct btrfs_key){ 1ULL << 40, KEY_TYPE, 0 };	/* after everything */
		CHECK_EQ_INT(btrfs_insert_item(e.trans, a, &k, data, 20), 0);
		k = key_of(5999);
		CHECK_EQ_INT(btrfs_delete_key(e.trans, a, &k), 0);	/* the last test item */
	}
	CHECK_EQ_INT(commit(&e), 0);
	a = root_of(&e, ida);
	t = root_of(&e, idt);
	s = root_of(&e, ids);
	if (CHECK(a && t && s)) {
		CHECK(compare_checked(t, a, &d, &st));
		CHECK_EQ_U64(d.nr, 5);
		if (d.nr == 5) {
			CHECK_EQ_INT(d.v[0].r, BTRFS_COMPARE_ADDED);
			CHECK_EQ_U64(d.v[0].key.objectid, 1);
			CHECK_EQ_INT(d.v[1].r, BTRFS_COMPARE_DELETED);
			CHECK_EQ_INT(d.v[2].r, BTRFS_COMPARE_DELETED);
			CHECK_EQ_INT(d.v[3].r, BTRFS_COMPARE_DELETED);
			CHECK(btrfs_key_cmp(&d.v[3].key, &(struct btrfs_key){ OBJ_FIRST + 5999 / 16,
						KEY_TYPE, 5999 % 16 }) == 0);
			CHECK_EQ_INT(d.v[4].r, BTRFS_COMPARE_ADDED);
		}
		printf("# 5 edge changes: blocks read %llu + %llu of %llu\n",
		       (unsigned long long)st.blocks_read[0], (unsigned long long)st.blocks_read[1],
		       (unsigned long long)tree_blocks(a));
		CHECK(st.blocks_read[0] + st.blocks_read[1] <= 30);
		diffs_release(&d);
		CHECK(compare_checked(s, a, &d, &st));	/* the same, two generations apart */
		CHECK_EQ_U64(d.nr, 5);
		diffs_release(&d);
	}

out:
	env_close(&e);
}

/*
 * A whole leaf deleted between shared leaves: its items, and no read of
 * the shared leaf after it (the kernel's walk goes down into it on both
 * sides, because the other cursor is lower by then)
 */
static void test_leaf_gone(void)
{
	struct btrfs_compare_stats st;
	struct btrfs_root *a, *s;
	struct btrfs_path p;
	struct diffs d;
	struct env e;
	u64 ida, ids;
	struct btrfs_key key = key_of(3001);
	u32 nr = 0;

	btrfs_path_init(&p);
	if (!build_base(&e, &ida, &ids))
		goto out;
	a = root_of(&e, ida);
	if (!CHECK(a) || !CHECK_EQ_INT(btrfs_search_slot(NULL, a, &key, &p, 0, 0), 0))
		goto out;
	nr = btrfs_eb_nritems(p.nodes[0]);
	CHECK(p.slots[1] > 0 && (u32)p.slots[1] + 1 < btrfs_eb_nritems(p.nodes[1]));
	CHECK_EQ_INT(begin(&e), 0);
	for (u32 i = 0; i < nr; i++) {
		struct btrfs_key k;

		btrfs_eb_item_key(p.nodes[0], i, &k);
		CHECK_EQ_INT(btrfs_delete_key(e.trans, a, &k), 0);
	}
	btrfs_path_release(&p);
	CHECK_EQ_INT(commit(&e), 0);
	a = root_of(&e, ida);
	s = root_of(&e, ids);
	if (CHECK(a && s)) {
		CHECK(compare_checked(s, a, &d, &st));
		CHECK_EQ_U64(d.nr, nr);
		CHECK_EQ_U64(st.blocks_read[0], 3);	/* root, node, the leaf */
		CHECK_EQ_U64(st.blocks_read[1], 2);	/* root, node */
		printf("# a leaf of %u items gone: blocks read %llu + %llu\n", nr,
		       (unsigned long long)st.blocks_read[0], (unsigned long long)st.blocks_read[1]);
		diffs_release(&d);
	}
out:
	btrfs_path_release(&p);
	env_close(&e);
}

/* Trees of other heights, both ways */
static void test_heights(void)
{
	struct btrfs_compare_stats st;
	struct btrfs_root *a, *s, *b;
	struct diffs d;
	struct env e;
	u64 ida, ids, idb;

	if (!build_base(&e, &ida, &ids))
		goto out;
	/* other heights: a one-leaf tree against the 3-level one, both ways */
	memset(present, 0, sizeof(present));
	CHECK_EQ_INT(new_subvol(&e, "b", 0, &idb), 0);
	CHECK_EQ_INT(insert_range(&e, idb, present, 2990, 10, 150), 0);
	b = root_of(&e, idb);
	a = root_of(&e, ida);
	if (CHECK(a && b)) {
		CHECK_EQ_INT(btrfs_eb_level(b->node), 0);
		CHECK(compare_checked(b, a, &d, &st));
		diffs_release(&d);
		CHECK(compare_checked(a, b, &d, &st));
		diffs_release(&d);
	}
	/* a snapshot of one leaf, its source grown to 3 levels */
	CHECK_EQ_INT(new_subvol(&e, "bs", idb, &ids), 0);
	CHECK_EQ_INT(insert_range(&e, idb, present, 0, 2990, 150), 0);
	b = root_of(&e, idb);
	s = root_of(&e, ids);
	if (CHECK(b && s)) {
		CHECK_EQ_INT(btrfs_eb_level(s->node), 0);
		CHECK_EQ_INT(btrfs_eb_level(b->node), 2);
		CHECK(compare_checked(s, b, &d, &st));
		CHECK_EQ_U64(d.nr, 2990);
		diffs_release(&d);
		CHECK(compare_checked(b, s, &d, &st));
		diffs_release(&d);
	}
out:
	env_close(&e);
}

/*
 * Blocks are verified as the reader does: a bad block the walk reaches is
 * -EUCLEAN; a bad block in a shared subtree is never read.
 */
static void test_corrupt(void)
{
	struct btrfs_root *a, *s;
	struct env e;
	u64 ida, ids, shared, changed;
	u8 data[MAX_ITEM] = { 0 };
	u32 len;
	struct btrfs_key k = key_of(3001);

	memset(present, 0, sizeof(present));
	if (!CHECK_EQ_INT(env_open(&e), 0))
		goto out;
	CHECK_EQ_INT(new_subvol(&e, "a", 0, &ida), 0);
	CHECK_EQ_INT(insert_range(&e, ida, present, 0, 6000, 150), 0);
	CHECK_EQ_INT(new_subvol(&e, "s", ida, &ids), 0);
	a = root_of(&e, ida);
	CHECK_EQ_INT(begin(&e), 0);
	CHECK_EQ_INT(btrfs_lookup_item(a, &k, data, sizeof(data), &len), 0);
	data[0] ^= 1;
	CHECK_EQ_INT(btrfs_update_item(e.trans, a, &k, data, len), 0);
	CHECK_EQ_INT(commit(&e), 0);
	a = root_of(&e, ida);
	shared = leaf_of(a, 10);
	changed = leaf_of(a, 3001);
	if (!CHECK(shared && changed && shared != changed))
		goto out;

	/* the changed leaf reaching its parent's next key: refused, not followed */
	{
		struct btrfs_path p;
		struct btrfs_key next;
		u8 *save = malloc(IMG_SIZE);

		btrfs_path_init(&p);
		CHECK_EQ_INT(btrfs_search_slot(NULL, a, &k, &p, 0, 0), 0);
		CHECK((u32)p.slots[1] + 1 < btrfs_eb_nritems(p.nodes[1]));
		btrfs_eb_node_key(p.nodes[1], (u32)p.slots[1] + 1, &next);
		btrfs_path_release(&p);
		if (CHECK(save)) {
			memcpy(save, e.buf, IMG_SIZE);
			CHECK_EQ_INT(rekey_last_item(&e, changed, &next), 0);
			CHECK_EQ_INT(env_reopen(&e), 0);
			a = root_of(&e, ida);
			s = root_of(&e, ids);
			if (CHECK(a && s)) {
				struct diffs d = { 0 };

				CHECK_EQ_INT(btrfs_compare_trees(s, a, diff_cb, &d, NULL), -EUCLEAN);
				CHECK(strstr(btrfs_fs_error(e.fs), "beyond its parent's range") != NULL);
				diffs_release(&d);
			}
			memcpy(e.buf, save, IMG_SIZE);
			free(save);
			CHECK_EQ_INT(env_reopen(&e), 0);
		}
	}
	CHECK_EQ_INT(corrupt_block(&e, shared), 0);
	CHECK_EQ_INT(env_reopen(&e), 0);
	a = root_of(&e, ida);
	s = root_of(&e, ids);
	if (CHECK(a && s)) {
		struct diffs d = { 0 };

		CHECK_EQ_INT(btrfs_compare_trees(s, a, diff_cb, &d, NULL), 0);
		CHECK_EQ_U64(d.nr, 1);
		diffs_release(&d);
	}
	CHECK_EQ_INT(corrupt_block(&e, changed), 0);
	CHECK_EQ_INT(env_reopen(&e), 0);
	a = root_of(&e, ida);
	s = root_of(&e, ids);
	if (CHECK(a && s)) {
		struct diffs d = { 0 };

		CHECK_EQ_INT(btrfs_compare_trees(s, a, diff_cb, &d, NULL), -EUCLEAN);
		CHECK(strstr(btrfs_fs_error(e.fs), "checksum") != NULL);
		diffs_release(&d);
	}
out:
	env_close(&e);
}

/*
 * Cost grows with the change: N items rewritten (other bytes, same size)
 * in a 3-level tree of 6000 items, against a snapshot taken before.
 * Each change costs at most its leaf and its level-1 node per side.
 */
static void test_scaling(void)
{
	static const u32 counts[] = { 1, 10, 100, 1000 };
	struct btrfs_compare_stats st;
	struct btrfs_root *a, *s;
	struct diffs d;
	struct env e;
	u64 ida, ids, blocks;
	char name[16];

	memset(present, 0, sizeof(present));
	if (!CHECK_EQ_INT(env_open(&e), 0))
		goto out;
	CHECK_EQ_INT(new_subvol(&e, "a", 0, &ida), 0);
	CHECK_EQ_INT(insert_range(&e, ida, present, 0, 6000, 150), 0);
	for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		u8 data[MAX_ITEM];
		u32 len, n = 0;

		snprintf(name, sizeof(name), "s%zu", c);
		CHECK_EQ_INT(new_subvol(&e, name, ida, &ids), 0);
		a = root_of(&e, ida);
		CHECK_EQ_INT(begin(&e), 0);
		for (u32 i = 0; i < counts[c]; i++) {
			/* spread over the tree, distinct keys */
			struct btrfs_key k = key_of((u32)((u64)i * 5987 % 6000));

			if (btrfs_lookup_item(a, &k, data, sizeof(data), &len))
				continue;
			data[len - 1] ^= 0x40;
			n += btrfs_update_item(e.trans, a, &k, data, len) == 0;
		}
		CHECK_EQ_INT(commit(&e), 0);
		CHECK_EQ_U64(n, counts[c]);
		a = root_of(&e, ida);
		s = root_of(&e, ids);
		if (!CHECK(a && s))
			break;
		CHECK(compare_checked(s, a, &d, &st));
		CHECK_EQ_U64(d.nr, counts[c]);
		blocks = tree_blocks(a);
		CHECK(st.blocks_read[0] <= 1 + 2 * (u64)counts[c]);
		CHECK(st.blocks_read[1] <= 1 + 2 * (u64)counts[c]);
		printf("# %u items changed: blocks read %llu + %llu of %llu + %llu, %llu subtrees skipped\n",
		       counts[c], (unsigned long long)st.blocks_read[0],
		       (unsigned long long)st.blocks_read[1], (unsigned long long)tree_blocks(s),
		       (unsigned long long)blocks, (unsigned long long)st.shared_skipped);
		diffs_release(&d);
	}
out:
	env_close(&e);
}

/* Roots of two filesystems are refused */
static void test_two_fs(void)
{
	struct btrfs_root *a, *b;
	struct env e1, e2;

	if (CHECK_EQ_INT(env_open(&e1), 0) && CHECK_EQ_INT(env_open(&e2), 0)) {
		a = root_of(&e1, BTRFS_FS_TREE_OBJECTID);
		b = root_of(&e2, BTRFS_FS_TREE_OBJECTID);
		if (CHECK(a && b)) {
			CHECK_EQ_INT(btrfs_compare_trees(a, b, diff_cb, NULL, NULL), -EINVAL);
			CHECK(strstr(btrfs_fs_error(e1.fs), "same filesystem") != NULL);
		}
	}
	env_close(&e1);
	env_close(&e2);
}

/* Random trees, random edits, every pair both ways against the oracle */
static void test_random(u64 seed)
{
	static const u32 sizes[] = { 0, 5, 40, 300, 1500, 4000 };
	static const u32 edits[] = { 0, 1, 3, 20, 200, 2000 };
	struct btrfs_compare_stats st;
	struct btrfs_root *r[3];
	struct diffs d;
	struct env e;
	u64 id[3];
	bool ok = true, on_file;

	rng_seed(seed);
	memset(present, 0, sizeof(present));
	if (!CHECK_EQ_INT(env_open(&e), 0))
		goto out;
	CHECK_EQ_INT(new_subvol(&e, "a", 0, &id[0]), 0);
	CHECK_EQ_INT(insert_random(&e, id[0], present, sizes[rng() % 6], 1), 0);
	CHECK_EQ_INT(new_subvol(&e, "s1", id[0], &id[1]), 0);
	CHECK_EQ_INT(edit_random(&e, id[0], present, edits[rng() % 6], 2), 0);
	CHECK_EQ_INT(new_subvol(&e, "s2", id[0], &id[2]), 0);
	CHECK_EQ_INT(edit_random(&e, id[0], present, edits[rng() % 6], 3), 0);
	on_file = seed % 2 == 0;
	if (on_file && !CHECK_EQ_INT(env_to_file(&e), 0))
		goto out;
	for (int i = 0; i < 3; i++) {
		r[i] = root_of(&e, id[i]);
		if (!CHECK(r[i]))
			goto out;
	}
	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 3; j++) {
			ok &= compare_checked(r[i], r[j], &d, &st);
			ok &= CHECK(st.blocks_read[0] <= tree_blocks(r[i]));
			ok &= CHECK(st.blocks_read[1] <= tree_blocks(r[j]));
			cover.comparisons++;
			cover.file_comparisons += on_file;
			cover.hinted += st.prefetch_hinted;
			cover.prefetched += st.prefetched;
			/* hints only where a worker runs: on the image files */
			if (!on_file)
				ok &= CHECK_EQ_U64(st.prefetch_hinted, 0);
			cover.differences += d.nr;
			cover.blocks_read += st.blocks_read[0] + st.blocks_read[1];
			cover.blocks += tree_blocks(r[i]) + tree_blocks(r[j]);
			if (btrfs_eb_level(r[i]->node) > cover.max_level)
				cover.max_level = btrfs_eb_level(r[i]->node);
			diffs_release(&d);
		}
	}
	if (!ok)
		fprintf(stderr, "seed %llu failed\n", (unsigned long long)seed);
out:
	env_close(&e);
}

int main(int argc, char **argv)
{
	u64 seeds = argc > 1 ? strtoull(argv[1], NULL, 0) : 200;

	test_one_change();
	test_edges();
	test_heights();
	test_leaf_gone();
	test_two_fs();
	test_corrupt();
	test_scaling();
	for (u64 seed = 1; seed <= seeds; seed++)
		test_random(seed);
	/* the walk hints ahead of itself (how many the worker served is timing) */
	if (seeds >= 20)
		CHECK(cover.hinted > 0);
	printf("# on image files: %llu comparisons, %llu blocks hinted, %llu read from the worker's slots\n",
	       (unsigned long long)cover.file_comparisons, (unsigned long long)cover.hinted,
	       (unsigned long long)cover.prefetched);
	printf("# random: seeds 1-%llu, %llu comparisons, %llu differences, %llu of %llu blocks read, levels up to %llu\n",
	       (unsigned long long)seeds, (unsigned long long)cover.comparisons,
	       (unsigned long long)cover.differences, (unsigned long long)cover.blocks_read,
	       (unsigned long long)cover.blocks, (unsigned long long)cover.max_level);
	return unit_finish();
}
