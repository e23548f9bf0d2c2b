// SPDX-License-Identifier: GPL-2.0-only
/*
 * The verifying walk behind `inspect tree --walk-only`: read every tree
 * block of the filesystem (or of one tree) once and verify it, as fast as
 * the device allows.
 *
 * It goes breadth first over all trees at once.  Each pass takes the blocks
 * found in the previous one, sorts them by device offset, reads runs of
 * adjacent blocks with one large read each and verifies every block with the
 * reader's own checks (btrfs_verify_tree_block(): checksum, bytenr, fsid,
 * generation, level and first key against the parent pointer, owner, tree
 * checker), plus the key range its parent allows.  A block that fails on the
 * first copy is read again through btrfs_read_tree_block(), which tries the
 * other mirrors.  The I/O is then close to a plain sequential read of the
 * metadata instead of one small read per block in tree order.
 *
 * A block reached twice (shared by snapshots) is visited once; levels
 * strictly decrease along every pointer, so a corrupt image cannot loop.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "common/image/offline-walk.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/extent-buffer.h"
#include "kernel-shared/fs.h"
#include "kernel-shared/items.h"
#include "kernel-shared/u64map.h"

/* Largest single read: runs of adjacent blocks are split at this size */
#define WALK_MAX_READ	(2U << 20)
/* How far ahead of the current read the kernel is asked to read */
#define WALK_AHEAD	(32U << 20)
/* One hint covers at most this much, bridging gaps up to WALK_HINT_GAP */
#define WALK_HINT_MAX	(4U << 20)
#define WALK_HINT_GAP	(256U << 10)

struct walk_block {
	u64 bytenr;
	u64 generation;
	u64 physical;			/* copy 1 */
	struct btrfs_device *dev;
	struct btrfs_key first_key;
	struct btrfs_key bound;		/* keys must stay below (exclusive) */
	u32 tree;			/* index into the stats array */
	u8 level;
	bool has_first_key;
	bool has_bound;
};

struct walk_list {
	struct walk_block *b;
	size_t nr, alloc;
};

/* A visited block and what the first pointer to it promised */
struct seen_entry {
	u64 generation;
	struct btrfs_key first_key;
	u8 level;
	bool has_first_key;
};

struct walk_ctx {
	struct btrfs_fs *fs;
	struct vc_walk_stats *stats;
	struct walk_list next;
	/* visited blocks: bytenr -> index in seen[] */
	struct btrfs_u64map seen_map;
	struct seen_entry *seen;
	u32 seen_nr, seen_alloc;
	u8 *buf;
};

static int list_add(struct walk_list *l, const struct walk_block *b)
{
	if (l->nr == l->alloc) {
		size_t na = l->alloc ? l->alloc * 2 : 256;
		struct walk_block *n = realloc(l->b, na * sizeof(*n));

		if (!n)
			return -ENOMEM;
		l->b = n;
		l->alloc = na;
	}
	l->b[l->nr++] = *b;
	return 0;
}

/*
 * 1 if @b's block was visited before, 0 after recording it, <0 on error.
 * A block reached again (shared by snapshots) must be promised the same
 * level, generation and first key, else the image is corrupt.
 */
static int seen_test_and_set(struct walk_ctx *w, const struct walk_block *b)
{
	struct seen_entry *e;
	u32 idx;
	int ret;

	if (w->seen_nr == w->seen_alloc) {
		u32 na = w->seen_alloc ? w->seen_alloc * 2 : 4096;
		struct seen_entry *n = realloc(w->seen, (size_t)na * sizeof(*n));

		if (!n)
			return -ENOMEM;
		w->seen = n;
		w->seen_alloc = na;
	}
	ret = btrfs_u64map_insert(&w->seen_map, b->bytenr, w->seen_nr, &idx);
	if (ret < 0)
		return ret;
	if (ret) {
		e = &w->seen[idx];
		if (e->level != b->level || e->generation != b->generation ||
		    (e->has_first_key && b->has_first_key &&
		     btrfs_key_cmp(&e->first_key, &b->first_key))) {
			btrfs_fs_set_error(w->fs, "tree block %" PRIu64
					   ": reached by two pointers that disagree on it",
					   b->bytenr);
			return -EUCLEAN;
		}
		return 1;
	}
	e = &w->seen[w->seen_nr++];
	e->generation = b->generation;
	e->level = b->level;
	e->has_first_key = b->has_first_key;
	e->first_key = b->first_key;
	return 0;
}

static int block_cmp(const void *a, const void *b)
{
	const struct walk_block *x = a, *y = b;

	if (x->dev != y->dev)
		return (uintptr_t)x->dev < (uintptr_t)y->dev ? -1 : 1;
	if (x->physical != y->physical)
		return x->physical < y->physical ? -1 : 1;
	return 0;
}

/* Last key of a verified block */
static void block_last_key(const u8 *buf, struct btrfs_key *key)
{
	const struct btrfs_header *h = (const struct btrfs_header *)buf;
	u32 nr = btrfs_header_nritems(h);

	if (btrfs_header_level(h))
		btrfs_key_ptr_key((const struct btrfs_key_ptr *)(buf + sizeof(*h) +
				  (size_t)(nr - 1) * sizeof(struct btrfs_key_ptr)), key);
	else
		btrfs_item_key((const struct btrfs_item *)(buf + sizeof(*h) +
			       (size_t)(nr - 1) * sizeof(struct btrfs_item)), key);
}

/* Count @buf and queue its children for the next pass. */
static int process_block(struct walk_ctx *w, const struct walk_block *b, const u8 *buf)
{
	const struct btrfs_header *h = (const struct btrfs_header *)buf;
	struct vc_walk_stats *st = &w->stats[b->tree];
	u32 nr = btrfs_header_nritems(h);
	int ret;

	if (b->has_bound && nr) {
		struct btrfs_key last;

		block_last_key(buf, &last);
		if (btrfs_key_cmp(&last, &b->bound) >= 0) {
			btrfs_fs_set_error(w->fs, "tree block %" PRIu64
					   ": keys beyond the range of its parent pointer",
					   b->bytenr);
			return -EUCLEAN;
		}
	}
	if (!b->level) {
		st->leaves++;
		st->items += nr;
		return 0;
	}
	st->nodes++;
	for (u32 i = 0; i < nr; i++) {
		const struct btrfs_key_ptr *p = (const struct btrfs_key_ptr *)(buf + sizeof(*h) +
						(size_t)i * sizeof(struct btrfs_key_ptr));
		struct walk_block c = {
			.bytenr = btrfs_key_ptr_blockptr(p),
			.generation = btrfs_key_ptr_generation(p),
			.tree = b->tree,
			.level = b->level - 1,
			.has_first_key = true,
		};

		btrfs_key_ptr_key(p, &c.first_key);
		if (i + 1 < nr) {
			btrfs_key_ptr_key(p + 1, &c.bound);
			c.has_bound = true;
		} else {
			c.bound = b->bound;
			c.has_bound = b->has_bound;
		}
		ret = list_add(&w->next, &c);
		if (ret)
			return ret;
	}
	return 0;
}

static void block_check(const struct walk_ctx *w, const struct walk_block *b,
			struct btrfs_tree_parent_check *check)
{
	memset(check, 0, sizeof(*check));
	check->transid = b->generation;
	check->owner_root = w->stats[b->tree].tree_id;
	check->has_level = true;
	check->level = b->level;
	check->has_first_key = b->has_first_key;
	check->first_key = b->first_key;
}

/* Verify the copy in @buf; on failure let the reader try every mirror. */
static int verify_block(struct walk_ctx *w, const struct walk_block *b, const u8 *buf)
{
	struct btrfs_tree_parent_check check;
	struct extent_buffer *eb;
	int ret;

	block_check(w, b, &check);
	if (buf && !btrfs_verify_tree_block(w->fs, b->bytenr, buf, &check))
		return process_block(w, b, buf);
	btrfs_fs_clear_error(w->fs);
	ret = btrfs_read_tree_block(w->fs, b->bytenr, &check, &eb);
	if (ret)
		return ret;
	ret = process_block(w, b, eb->data);
	free_extent_buffer(eb);
	return ret;
}

/* End (exclusive) of the run of adjacent blocks starting at @i */
static size_t run_end(const struct walk_list *cur, size_t n, size_t i, u32 nodesize)
{
	size_t j = i + 1;

	if (!cur->b[i].dev)
		return j;
	while (j < n && cur->b[j].dev == cur->b[i].dev &&
	       cur->b[j].physical == cur->b[j - 1].physical + nodesize &&
	       (j - i + 1) * nodesize <= WALK_MAX_READ)
		j++;
	return j;
}

/*
 * Tell the kernel about the runs after the one being read, up to
 * WALK_AHEAD bytes, so the device works while we verify (the plain read we
 * compare with gets the same from the kernel's sequential read-ahead).
 * One hint covers a whole stretch, small gaps included: a few big requests
 * keep the device busier than many small ones.
 */
static void hint_ahead(struct walk_ctx *w, const struct walk_list *cur, size_t n,
		       size_t from, size_t *hinted)
{
	u32 nodesize = w->fs->nodesize;
	struct btrfs_readahead ra;

	if (*hinted < from)
		*hinted = from;
	btrfs_readahead_init(&ra, WALK_HINT_GAP, WALK_HINT_MAX);
	for (; *hinted < n && (*hinted - from) * nodesize < WALK_AHEAD; (*hinted)++) {
		const struct walk_block *b = &cur->b[*hinted];

		if (b->dev)
			btrfs_readahead_add(&ra, b->dev->io, b->physical, nodesize);
	}
	btrfs_readahead_flush(&ra);
}

/* One breadth-first pass over @cur: read in device order, verify, queue children. */
static int walk_pass(struct walk_ctx *w, struct walk_list *cur)
{
	u32 nodesize = w->fs->nodesize;
	size_t n = 0, hinted = 0;
	int ret;

	/* drop blocks seen before, map the rest to their first copy */
	for (size_t i = 0; i < cur->nr; i++) {
		struct walk_block *b = &cur->b[i];
		struct btrfs_io_stripe st;

		ret = seen_test_and_set(w, b);
		if (ret < 0)
			return ret;
		if (ret)
			continue;
		if (btrfs_map_block(w->fs, b->bytenr, nodesize, 1, &st) || !st.dev || !st.dev->io) {
			b->dev = NULL;	/* verify_block() reports it through the reader */
			b->physical = 0;
		} else {
			b->dev = st.dev;
			b->physical = st.physical;
		}
		cur->b[n++] = *b;
	}
	qsort(cur->b, n, sizeof(*cur->b), block_cmp);
	for (size_t i = 0; i < n;) {
		struct walk_block *first = &cur->b[i];
		size_t j = run_end(cur, n, i, nodesize);

		if (!first->dev) {
			ret = verify_block(w, first, NULL);
			if (ret)
				return ret;
			i = j;
			continue;
		}
		hint_ahead(w, cur, n, j, &hinted);
		ret = btrfs_io_read(first->dev->io, w->buf, (j - i) * nodesize, first->physical);
		for (size_t k = i; k < j; k++) {
			int r = verify_block(w, &cur->b[k], ret ? NULL : w->buf + (k - i) * nodesize);

			if (r)
				return r;
		}
		i = j;
	}
	return 0;
}

struct root_list_ctx {
	struct vc_walk_stats **stats;
	size_t *nr, *alloc;
	struct walk_list *roots;
};

static int add_tree(struct vc_walk_stats **stats, size_t *nr, size_t *alloc,
		    struct walk_list *roots, u64 id, u64 bytenr, u64 gen, u8 level)
{
	struct walk_block b = {
		.bytenr = bytenr,
		.generation = gen,
		.level = level,
		.tree = (u32)*nr,
	};

	if (*nr == *alloc) {
		size_t na = *alloc ? *alloc * 2 : 32;
		struct vc_walk_stats *s = realloc(*stats, na * sizeof(*s));

		if (!s)
			return -ENOMEM;
		*stats = s;
		*alloc = na;
	}
	memset(&(*stats)[*nr], 0, sizeof(**stats));
	(*stats)[*nr].tree_id = id;
	(*nr)++;
	return list_add(roots, &b);
}

static int root_item_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct root_list_ctx *c = priv;
	struct btrfs_root_rec r;
	int ret;

	if (key->type != BTRFS_ROOT_ITEM_KEY)
		return 0;
	ret = btrfs_decode_root_item(data, len, &r);
	if (ret)
		return ret;
	return add_tree(c->stats, c->nr, c->alloc, c->roots, key->objectid, r.bytenr,
			r.generation, r.level);
}

int vc_walk_verify(struct btrfs_fs *fs, const u64 *tree_id, struct vc_walk_stats **statsp,
		   size_t *nr_stats)
{
	struct walk_ctx w = { .fs = fs };
	struct walk_list cur = { 0 };
	struct vc_walk_stats *stats = NULL;
	size_t nr = 0, alloc = 0;
	int ret;

	w.buf = malloc(WALK_MAX_READ);
	if (!w.buf || btrfs_u64map_init(&w.seen_map, 4096)) {
		free(w.buf);
		return -ENOMEM;
	}
	if (tree_id) {
		struct btrfs_root *root;

		ret = btrfs_read_root(fs, *tree_id, &root);
		if (!ret)
			ret = add_tree(&stats, &nr, &alloc, &cur, *tree_id, root->bytenr,
				       root->generation, root->level);
	} else {
		const struct btrfs_super_block *sb = &fs->super;
		struct btrfs_key min = { 0, BTRFS_ROOT_ITEM_KEY, 0 };
		struct btrfs_key max = { (u64)-1, BTRFS_ROOT_ITEM_KEY, (u64)-1 };
		struct root_list_ctx c = { &stats, &nr, &alloc, &cur };

		ret = add_tree(&stats, &nr, &alloc, &cur, BTRFS_CHUNK_TREE_OBJECTID,
			       btrfs_super_chunk_root(sb), btrfs_super_chunk_root_generation(sb),
			       btrfs_super_chunk_root_level(sb));
		if (!ret)
			ret = add_tree(&stats, &nr, &alloc, &cur, BTRFS_ROOT_TREE_OBJECTID,
				       btrfs_super_root(sb), btrfs_super_generation(sb),
				       btrfs_super_root_level(sb));
		if (!ret)
			ret = btrfs_iterate_items(fs->tree_root, &min, &max, root_item_cb, &c);
	}
	w.stats = stats;	/* complete now: no more realloc */
	for (int pass = 0; !ret && cur.nr; pass++) {
		/* more passes than levels means pointers that never reach a leaf */
		if (pass > BTRFS_MAX_LEVEL) {
			btrfs_fs_set_error(fs, "tree walk deeper than %d levels", BTRFS_MAX_LEVEL);
			ret = -EUCLEAN;
			break;
		}
		ret = walk_pass(&w, &cur);
		if (ret)
			break;
		free(cur.b);
		cur = w.next;
		memset(&w.next, 0, sizeof(w.next));
	}
	free(cur.b);
	free(w.next.b);
	free(w.seen);
	btrfs_u64map_release(&w.seen_map);
	free(w.buf);
	if (ret) {
		free(stats);
		return ret;
	}
	*statsp = stats;
	*nr_stats = nr;
	return 0;
}
