// SPDX-License-Identifier: GPL-2.0-only
/*
 * The accounting engine: fs tree roots, the level-by-level walk of every
 * distinct fs tree block, and turning per-set bytes into qgroup numbers.
 * The extent tree stream lives in acct-extents.c.  See accounting.h for the
 * model.
 *
 * The walk processes all trees together, one level at a time from the top
 * (level 7) down.  When a node is processed its root set is final: every
 * parent sits one level higher and was processed before.  Its set is then
 * unioned into each child's.  Blocks are kept in one table by bytenr (32
 * bytes each); the per-level work lists are freed as soon as a level is
 * done.  Each node is read once, children in bytenr order; leaves are read
 * only when asked (verification, simple quotas), because a leaf's set is
 * known from its parents, and then in runs of device-adjacent leaves, one
 * read per run, verified in place without the block cache.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "acct-internal.h"
#include "fs.h"
#include "items.h"
#include "qgroup-list.h"
#include "volumes.h"

#define PROGRESS_EVERY	4096
/* Leaves adjacent on the device are read with one read of at most this */
#define LEAF_BATCH_BYTES	(1U << 20)

/* ---- block table ---- */

static struct acct_block *table_find(const struct acct_block_table *t, u64 bytenr)
{
	u32 idx;

	return btrfs_u64map_find(&t->index, bytenr, &idx) ? &t->blocks[idx] : NULL;
}

/* Index of the block at @bytenr, inserted (zeroed) if new; *@is_new says which */
static int table_insert(struct acct_block_table *t, u64 bytenr, u32 *idx, bool *is_new)
{
	int ret;

	if (t->nr == t->alloc) {
		u32 na = t->alloc ? t->alloc * 2 : 4096;
		struct acct_block *nb = realloc(t->blocks, (size_t)na * sizeof(*nb));

		if (!nb)
			return -ENOMEM;
		t->blocks = nb;
		t->alloc = na;
	}
	ret = btrfs_u64map_insert(&t->index, bytenr, t->nr, idx);
	if (ret < 0)
		return ret;
	*is_new = ret == 0;
	if (ret)
		return 0;
	memset(&t->blocks[t->nr], 0, sizeof(t->blocks[t->nr]));
	t->blocks[t->nr].bytenr = bytenr;
	*idx = t->nr++;
	return 0;
}

struct acct_block *acct_block_find(struct btrfs_acct *acct, u64 bytenr)
{
	return table_find(&acct->table, bytenr);
}

int acct_add_bytes(struct btrfs_acct *acct, u32 set, u64 bytes)
{
	if (set >= acct->set_bytes_alloc) {
		size_t na = acct->set_bytes_alloc ? acct->set_bytes_alloc : 256;
		u64 *nb;

		while (na <= set)
			na *= 2;
		nb = realloc(acct->set_bytes, na * sizeof(*nb));
		if (!nb)
			return -ENOMEM;
		memset(nb + acct->set_bytes_alloc, 0, (na - acct->set_bytes_alloc) * sizeof(*nb));
		acct->set_bytes = nb;
		acct->set_bytes_alloc = na;
	}
	acct->set_bytes[set] += bytes;
	return 0;
}

int acct_progress(struct btrfs_acct *acct, enum btrfs_acct_phase phase, u64 done)
{
	if (!acct->opts.progress)
		return 0;
	if (phase != BTRFS_ACCT_PHASE_DONE && ++acct->progress_tick % PROGRESS_EVERY)
		return 0;
	return acct->opts.progress(acct->opts.progress_priv, phase, done);
}

/* ---- fs tree roots ---- */

struct roots_ctx {
	struct btrfs_acct *acct;
	size_t alloc;
};

static int root_item_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct roots_ctx *ctx = priv;
	struct btrfs_acct *acct = ctx->acct;
	struct btrfs_root_rec rec;
	struct btrfs_acct_root *r;
	int ret;

	if (key->type != BTRFS_ROOT_ITEM_KEY || !btrfs_is_fstree(key->objectid))
		return 0;
	ret = btrfs_decode_root_item(data, len, &rec);
	if (ret) {
		btrfs_fs_set_error_once(acct->fs, "root item %llu: cannot be decoded",
					(unsigned long long)key->objectid);
		return ret;
	}
	if (acct->nr_roots == ctx->alloc) {
		size_t na = ctx->alloc ? ctx->alloc * 2 : 64;
		struct btrfs_acct_root *n = realloc(acct->roots, na * sizeof(*n));

		if (!n)
			return -ENOMEM;
		acct->roots = n;
		ctx->alloc = na;
	}
	r = &acct->roots[acct->nr_roots++];
	memset(r, 0, sizeof(*r));
	r->id = key->objectid;
	r->bytenr = rec.bytenr;
	r->generation = rec.generation;
	r->level = rec.level;
	r->dead = rec.refs == 0 || (rec.flags & BTRFS_ROOT_SUBVOL_DEAD);
	r->partly_dropped = rec.drop_progress.objectid != 0;
	r->drop_progress = rec.drop_progress;
	r->drop_level = rec.drop_level;
	if (r->level >= BTRFS_MAX_LEVEL || (r->partly_dropped && r->drop_level > r->level)) {
		btrfs_fs_set_error_once(acct->fs, "root item %llu: level %u, drop level %u out of range",
					(unsigned long long)r->id, r->level, r->drop_level);
		return -EUCLEAN;
	}
	return 0;
}

static int load_roots(struct btrfs_acct *acct)
{
	struct btrfs_key min = { 0, 0, 0 };
	struct btrfs_key max = { (u64)-1, (u8)-1, (u64)-1 };
	struct roots_ctx ctx = { .acct = acct };
	struct btrfs_root *tree_root;
	int ret;

	ret = btrfs_read_root(acct->fs, BTRFS_ROOT_TREE_OBJECTID, &tree_root);
	if (ret)
		return ret;
	ret = btrfs_iterate_items(tree_root, &min, &max, root_item_cb, &ctx);
	if (ret)
		return ret;
	for (size_t i = 0; i < acct->nr_roots; i++) {
		acct->stats.roots++;
		acct->stats.dead_roots += acct->roots[i].dead;
		acct->stats.partly_dropped += acct->roots[i].partly_dropped;
	}
	return 0;
}

/* ---- the level-by-level walk ---- */

struct level_list {
	u32 *idx;
	size_t nr, alloc;
};

static int level_push(struct level_list *l, u32 idx)
{
	if (l->nr == l->alloc) {
		size_t na = l->alloc ? l->alloc * 2 : 1024;
		u32 *n = realloc(l->idx, na * sizeof(*n));

		if (!n)
			return -ENOMEM;
		l->idx = n;
		l->alloc = na;
	}
	l->idx[l->nr++] = idx;
	return 0;
}

static int cmp_by_bytenr(const void *a, const void *b, void *priv)
{
	const struct acct_block_table *t = priv;
	u64 x = t->blocks[*(const u32 *)a].bytenr;
	u64 y = t->blocks[*(const u32 *)b].bytenr;

	return x < y ? -1 : x > y;
}

/*
 * Whether partly dropped root @r no longer reaches child @slot of @eb (level
 * @level): at drop_level the slots before drop_progress are gone, above it
 * the slots whose whole key range lies before drop_progress.
 */
static bool slot_dropped(const struct btrfs_acct_root *r, const struct extent_buffer *eb,
			 u8 level, u32 slot)
{
	struct btrfs_key k;

	if (level < r->drop_level)
		return false;
	if (level == r->drop_level) {
		btrfs_eb_node_key(eb, slot, &k);
		return btrfs_key_cmp(&k, &r->drop_progress) < 0;
	}
	if (slot + 1 >= btrfs_eb_nritems(eb))
		return false;
	btrfs_eb_node_key(eb, slot + 1, &k);
	return btrfs_key_cmp(&k, &r->drop_progress) <= 0;
}

static int read_block(struct btrfs_acct *acct, u32 idx, struct extent_buffer **eb)
{
	struct acct_block *b = &acct->table.blocks[idx];
	struct btrfs_tree_parent_check check = {
		.transid = b->generation,
		.owner_root = BTRFS_FS_TREE_OBJECTID,	/* any fs tree may own it */
		.has_level = true,
		.level = b->level,
	};
	int ret;

	ret = btrfs_read_tree_block(acct->fs, b->bytenr, &check, eb);
	if (ret)
		return ret;
	b->owner = btrfs_eb_owner(*eb);
	b->flags |= ACCT_BLOCK_READ;
	return 0;
}

/* First copy of leaf @idx on its device; false when it cannot be read directly */
static bool leaf_physical(struct btrfs_acct *acct, u32 idx, struct btrfs_io_stripe *st)
{
	char saved[BTRFS_ERRMSG_SIZE];
	bool ok;

	memcpy(saved, acct->fs->errmsg, sizeof(saved));
	ok = !btrfs_map_block(acct->fs, acct->table.blocks[idx].bytenr, acct->fs->nodesize, 1,
			      st) && st->dev && st->dev->io;
	memcpy(acct->fs->errmsg, saved, sizeof(saved));	/* read_block() will say why */
	return ok;
}

/* Verify one leaf of a batch in place; a bad copy goes to read_block() and its mirrors */
static int verify_leaf(struct btrfs_acct *acct, u32 idx, const u8 *buf)
{
	struct acct_block *b = &acct->table.blocks[idx];
	struct btrfs_tree_parent_check check = {
		.transid = b->generation,
		.owner_root = BTRFS_FS_TREE_OBJECTID,
		.has_level = true,
		.level = 0,
	};
	struct extent_buffer *eb;
	int ret;

	if (buf && !btrfs_verify_tree_block(acct->fs, b->bytenr, buf, &check)) {
		b->owner = btrfs_header_owner((const struct btrfs_header *)buf);
		b->flags |= ACCT_BLOCK_READ;
		return 0;
	}
	btrfs_fs_clear_error(acct->fs);
	ret = read_block(acct, idx, &eb);
	free_extent_buffer(eb);
	return ret;
}

/*
 * Read and verify every leaf of @l (sorted by bytenr): runs of leaves that
 * are adjacent on the device come in with one read each and are verified
 * in place, without going through the block cache (nothing needs them
 * again soon: the extent stream searches few of them).  The read-only
 * walk of inspect tree does the same.
 */
static int read_leaves(struct btrfs_acct *acct, const struct level_list *l, u64 *done)
{
	const u32 nodesize = acct->fs->nodesize;
	const size_t max = LEAF_BATCH_BYTES / nodesize ? LEAF_BATCH_BYTES / nodesize : 1;
	u8 *buf = malloc((size_t)max * nodesize);
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; !ret && i < l->nr;) {
		struct btrfs_io_stripe first, st;
		size_t j = i + 1;
		int rd;

		if (!leaf_physical(acct, l->idx[i], &first)) {
			ret = verify_leaf(acct, l->idx[i], NULL);
			i++;
			continue;
		}
		while (j < l->nr && j - i < max && leaf_physical(acct, l->idx[j], &st) &&
		       st.dev == first.dev && st.physical == first.physical + (j - i) * nodesize)
			j++;
		rd = btrfs_io_read(first.dev->io, buf, (j - i) * nodesize, first.physical);
		for (size_t k = i; !ret && k < j; k++) {
			ret = verify_leaf(acct, l->idx[k], rd ? NULL : buf + (k - i) * nodesize);
			acct->stats.leaves_read += !ret;
			if (!ret)
				ret = acct_progress(acct, BTRFS_ACCT_PHASE_TREES, ++*done);
		}
		i = j;
	}
	free(buf);
	return ret;
}

/* A parent's contribution to a child's set, resolved once the level is done */
struct edge {
	u32 child;
	u32 set;
};

struct edge_list {
	struct edge *e;
	size_t nr, alloc;
};

static int edge_push(struct edge_list *l, u32 child, u32 set)
{
	if (l->nr == l->alloc) {
		size_t na = l->alloc ? l->alloc * 2 : 1024;
		struct edge *n = realloc(l->e, na * sizeof(*n));

		if (!n)
			return -ENOMEM;
		l->e = n;
		l->alloc = na;
	}
	l->e[l->nr].child = child;
	l->e[l->nr].set = set;
	l->nr++;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/* Sort the @n sets of one child (usually one to three) and drop repeats */
static size_t sort_unique(u32 *v, size_t n)
{
	size_t out = 0;

	if (n > 16) {
		qsort(v, n, sizeof(*v), cmp_u32);
	} else {
		for (size_t i = 1; i < n; i++) {
			u32 x = v[i];
			size_t j = i;

			for (; j > 0 && v[j - 1] > x; j--)
				v[j] = v[j - 1];
			v[j] = x;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (out == 0 || v[out - 1] != v[i])
			v[out++] = v[i];
	return out;
}

/*
 * Every parent of the level below is done: give each child the union of
 * its parents' sets in one step, so no intermediate set is interned.  The
 * edges are grouped by child with a counting sort over the block table
 * (children are table indexes), then each child's few sets are sorted.
 */
static int resolve_edges(struct btrfs_acct *acct, struct edge_list *l)
{
	const u32 nb = acct->table.nr;
	u32 *pos = NULL, *sets = NULL, *ids = NULL;
	size_t alloc = 0;
	int ret = 0;

	if (!l->nr)
		goto out;
	pos = calloc((size_t)nb + 1, sizeof(*pos));
	sets = malloc(l->nr * sizeof(*sets));
	if (!pos || !sets) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < l->nr; i++)
		pos[l->e[i].child + 1]++;
	for (u32 c = 0; c < nb; c++)
		pos[c + 1] += pos[c];
	/* pos[c] is where child c's sets go; it ends at the start of c + 1 */
	for (size_t i = 0; i < l->nr; i++)
		sets[pos[l->e[i].child]++] = l->e[i].set;
	for (u32 c = 0, begin = 0; !ret && c < nb; begin = pos[c], c++) {
		struct acct_block *b = &acct->table.blocks[c];
		size_t n = pos[c] - begin;

		if (!n)
			continue;
		if (n + 1 > alloc) {
			u32 *nids = realloc(ids, (n + 1) * sizeof(*ids));

			if (!nids) {
				ret = -ENOMEM;
				break;
			}
			ids = nids;
			alloc = n + 1;
		}
		ids[0] = b->set;
		memcpy(ids + 1, sets + begin, n * sizeof(*ids));
		n = sort_unique(ids, n + 1);
		ret = btrfs_rootsets_union_many(&acct->sets, ids, n, &b->set);
	}
out:
	free(pos);
	free(sets);
	free(ids);
	free(l->e);
	memset(l, 0, sizeof(*l));
	return ret;
}

static int process_node(struct btrfs_acct *acct, u32 idx, struct level_list *below,
			struct edge_list *edges, const struct btrfs_acct_root **partial,
			size_t nr_partial)
{
	struct extent_buffer *eb;
	const struct btrfs_acct_root *mine[8];
	size_t nr_mine = 0;
	u32 nritems, set;
	u8 level;
	int ret;

	ret = read_block(acct, idx, &eb);
	if (ret)
		return ret;
	set = acct->table.blocks[idx].set;
	level = acct->table.blocks[idx].level;
	for (size_t i = 0; i < nr_partial && nr_mine < 8; i++)
		if (btrfs_rootsets_has(&acct->sets, set, partial[i]->id))
			mine[nr_mine++] = partial[i];
	nritems = btrfs_eb_nritems(eb);
	for (u32 slot = 0; slot < nritems; slot++) {
		u64 child = btrfs_eb_node_blockptr(eb, slot);
		u64 gen = btrfs_eb_node_ptr_generation(eb, slot);
		struct acct_block *c;
		u32 cset = set, cidx;
		bool is_new;

		for (size_t i = 0; i < nr_mine; i++) {
			if (!slot_dropped(mine[i], eb, level, slot))
				continue;
			ret = btrfs_rootsets_remove(&acct->sets, cset, mine[i]->id, &cset);
			if (ret)
				goto out;
		}
		if (cset == 0)
			continue;
		ret = table_insert(&acct->table, child, &cidx, &is_new);
		if (ret)
			goto out;
		c = &acct->table.blocks[cidx];
		if (is_new) {
			c->generation = gen;
			c->level = level - 1;
			ret = level_push(below, cidx);
			if (ret)
				goto out;
		} else if (c->generation != gen || c->level != level - 1) {
			btrfs_fs_set_error_once(acct->fs,
				"tree block %llu: pointed to with generation %llu level %u from node %llu, with generation %llu level %u elsewhere",
				(unsigned long long)child, (unsigned long long)gen, level - 1,
				(unsigned long long)eb->start, (unsigned long long)c->generation,
				c->level);
			ret = -EUCLEAN;
			goto out;
		}
		ret = edge_push(edges, cidx, cset);
		if (ret)
			goto out;
	}
out:
	free_extent_buffer(eb);
	return ret;
}

static int add_root_blocks(struct btrfs_acct *acct, struct level_list *levels)
{
	for (size_t i = 0; i < acct->nr_roots; i++) {
		const struct btrfs_acct_root *r = &acct->roots[i];
		struct acct_block *b;
		u32 idx, single;
		bool is_new;
		int ret;

		ret = table_insert(&acct->table, r->bytenr, &idx, &is_new);
		if (ret)
			return ret;
		b = &acct->table.blocks[idx];
		if (is_new) {
			b->generation = r->generation;
			b->level = r->level;
			ret = level_push(&levels[r->level], idx);
			if (ret)
				return ret;
		} else if (b->level != r->level) {
			btrfs_fs_set_error_once(acct->fs, "tree %llu: root block %llu also used at another level",
						(unsigned long long)r->id, (unsigned long long)r->bytenr);
			return -EUCLEAN;
		}
		b->flags |= ACCT_BLOCK_ROOT;
		ret = btrfs_rootsets_single(&acct->sets, r->id, &single);
		if (ret)
			return ret;
		ret = btrfs_rootsets_union(&acct->sets, b->set, single, &b->set);
		if (ret)
			return ret;
	}
	return 0;
}

static int walk_trees(struct btrfs_acct *acct)
{
	struct level_list levels[BTRFS_MAX_LEVEL] = { 0 };
	struct edge_list edges = { 0 };
	const struct btrfs_acct_root **partial = NULL;
	size_t nr_partial = 0;
	u64 done = 0;
	int ret;

	partial = calloc(acct->nr_roots + 1, sizeof(*partial));
	if (!partial)
		return -ENOMEM;
	for (size_t i = 0; i < acct->nr_roots; i++)
		if (acct->roots[i].partly_dropped)
			partial[nr_partial++] = &acct->roots[i];
	ret = add_root_blocks(acct, levels);
	for (int level = BTRFS_MAX_LEVEL - 1; !ret && level >= 0; level--) {
		struct level_list *l = &levels[level];

		if (l->nr)
			qsort_r(l->idx, l->nr, sizeof(*l->idx), cmp_by_bytenr, &acct->table);
		if (level == 0 && acct->opts.read_leaves) {
			ret = read_leaves(acct, l, &done);
		} else {
			for (size_t i = 0; !ret && i < l->nr; i++) {
				if (level > 0)
					ret = process_node(acct, l->idx[i], &levels[level - 1],
							   &edges, partial, nr_partial);
				if (!ret)
					ret = acct_progress(acct, BTRFS_ACCT_PHASE_TREES, ++done);
			}
		}
		free(l->idx);
		l->idx = NULL;
		if (!ret && level > 0)
			ret = resolve_edges(acct, &edges);
	}
	free(edges.e);
	for (int level = 0; level < BTRFS_MAX_LEVEL; level++)
		free(levels[level].idx);
	free(partial);
	return ret;
}

/* Full mode: every distinct fs tree block weighs nodesize in its set */
static int account_tree_blocks(struct btrfs_acct *acct)
{
	acct->stats.tree_blocks = acct->table.nr;
	if (acct->opts.simple)
		return 0;	/* charged by owner in the extent stream */
	for (u32 i = 0; i < acct->table.nr; i++) {
		int ret = acct_add_bytes(acct, acct->table.blocks[i].set, acct->fs->nodesize);

		if (ret)
			return ret;
		acct->stats.meta_bytes += acct->fs->nodesize;
	}
	return 0;
}

int btrfs_acct_run(struct btrfs_fs *fs, const struct btrfs_acct_options *opts,
		   struct btrfs_acct **out)
{
	struct btrfs_acct *acct = calloc(1, sizeof(*acct));
	int ret;

	if (!acct)
		return -ENOMEM;
	acct->fs = fs;
	if (opts)
		acct->opts = *opts;
	if (acct->opts.simple)
		acct->opts.read_leaves = true;	/* owners of leaves are needed */
	for (int i = 0; i < ACCT_PATH_CACHE; i++)
		btrfs_path_init(&acct->paths[i].path);
	ret = btrfs_rootsets_init(&acct->sets);
	if (ret) {
		free(acct);
		return ret;
	}
	ret = btrfs_u64map_init(&acct->table.index, 512);
	if (!ret)
		ret = acct_progress(acct, BTRFS_ACCT_PHASE_ROOTS, 0);
	if (!ret)
		ret = load_roots(acct);
	if (!ret)
		ret = walk_trees(acct);
	if (!ret)
		ret = account_tree_blocks(acct);
	if (!ret)
		ret = acct_scan_extents(acct);
	acct_paths_release(acct);
	if (!ret)
		ret = acct_progress(acct, BTRFS_ACCT_PHASE_DONE, 0);
	acct->stats.root_sets = acct->sets.nr;
	acct->stats.unions = acct->sets.unions;
	acct->stats.union_memo_hits = acct->sets.memo_hits;
	if (ret) {
		btrfs_acct_free(acct);
		return ret;
	}
	*out = acct;
	return 0;
}

void btrfs_acct_free(struct btrfs_acct *acct)
{
	if (!acct)
		return;
	acct_paths_release(acct);
	btrfs_rootsets_release(&acct->sets);
	free(acct->table.blocks);
	btrfs_u64map_release(&acct->table.index);
	free(acct->roots);
	free(acct->set_bytes);
	free(acct);
}

void btrfs_acct_get_stats(const struct btrfs_acct *acct, struct btrfs_acct_stats *stats)
{
	*stats = acct->stats;
}

const struct btrfs_acct_root *btrfs_acct_roots(const struct btrfs_acct *acct, size_t *nr)
{
	*nr = acct->nr_roots;
	return acct->roots;
}

/* ---- results ---- */

static size_t group_index(const struct btrfs_qgroup_list *list, u64 qgroupid)
{
	const struct btrfs_qgroup *g = btrfs_qgroup_list_find(list, qgroupid);

	return g ? (size_t)(g - list->groups) : (size_t)-1;
}

/* Group indexes looked up once, not once per member of every set */
struct group_map {
	size_t *of_dense;	/* dense root number -> its level-0 group, or SIZE_MAX */
	size_t *pstart;		/* group -> first of its parents in pidx */
	size_t *pidx;		/* parents' group indexes (SIZE_MAX: not in the list) */
};

static void group_map_free(struct group_map *m)
{
	free(m->of_dense);
	free(m->pstart);
	free(m->pidx);
}

static int group_map_build(const struct btrfs_rootsets *rs, const struct btrfs_qgroup_list *list,
			   struct group_map *m)
{
	size_t nr_parents = 0;

	for (size_t g = 0; g < list->nr; g++)
		nr_parents += list->groups[g].nr_parents;
	m->of_dense = calloc(rs->nr_dense ? rs->nr_dense : 1, sizeof(*m->of_dense));
	m->pstart = calloc(list->nr + 1, sizeof(*m->pstart));
	m->pidx = calloc(nr_parents ? nr_parents : 1, sizeof(*m->pidx));
	if (!m->of_dense || !m->pstart || !m->pidx) {
		group_map_free(m);
		return -ENOMEM;
	}
	for (u32 d = 0; d < rs->nr_dense; d++)
		m->of_dense[d] = group_index(list, rs->dense_ids[d]);
	nr_parents = 0;
	for (size_t g = 0; g < list->nr; g++) {
		m->pstart[g] = nr_parents;
		for (size_t p = 0; p < list->groups[g].nr_parents; p++)
			m->pidx[nr_parents++] = group_index(list, list->groups[g].parents[p]);
	}
	m->pstart[list->nr] = nr_parents;
	return 0;
}

/*
 * Add one set's bytes: c(G) = number of roots of the set at or below G,
 * each root counted once per G (@stamp marks groups already reached from
 * the current root).
 */
static void distribute_set(const struct group_map *m, const u32 *dense, u32 n,
			   u64 bytes, struct btrfs_acct_counts *counts, u32 *cnt, u32 *stamp,
			   u32 *stamp_gen, size_t *queue, size_t *touched)
{
	size_t nr_touched = 0;

	for (u32 r = 0; r < n; r++) {
		size_t head = 0, tail = 0, start = m->of_dense[dense[r]];

		if (start == (size_t)-1)
			continue;
		++*stamp_gen;
		queue[tail++] = start;
		stamp[start] = *stamp_gen;
		while (head < tail) {
			size_t g = queue[head++];

			if (cnt[g]++ == 0)
				touched[nr_touched++] = g;
			for (size_t p = m->pstart[g]; p < m->pstart[g + 1]; p++) {
				size_t pi = m->pidx[p];

				if (pi == (size_t)-1 || stamp[pi] == *stamp_gen)
					continue;
				stamp[pi] = *stamp_gen;
				queue[tail++] = pi;
			}
		}
	}
	for (size_t i = 0; i < nr_touched; i++) {
		size_t g = touched[i];

		counts[g].rfer += bytes;
		if (cnt[g] == n)
			counts[g].excl += bytes;
		cnt[g] = 0;
	}
}

int btrfs_acct_qgroups(const struct btrfs_acct *acct, const struct btrfs_qgroup_list *list,
		       struct btrfs_acct_counts *counts)
{
	size_t n = list->nr ? list->nr : 1;
	u32 *cnt = calloc(n, sizeof(*cnt));
	u32 *stamp = calloc(n, sizeof(*stamp));
	size_t *queue = calloc(n, sizeof(*queue));
	size_t *touched = calloc(n, sizeof(*touched));
	struct group_map map = { 0 };
	u32 *dense = calloc(acct->sets.nr_dense ? acct->sets.nr_dense : 1, sizeof(*dense));
	u32 stamp_gen = 0;
	int ret = 0;

	if (!cnt || !stamp || !queue || !touched || !dense) {
		ret = -ENOMEM;
		goto out;
	}
	ret = group_map_build(&acct->sets, list, &map);
	if (ret)
		goto out;
	memset(counts, 0, list->nr * sizeof(*counts));
	for (u32 set = 1; set < acct->sets.nr && set < acct->set_bytes_alloc; set++) {
		if (!acct->set_bytes[set])
			continue;
		u32 nr = btrfs_rootsets_copy(&acct->sets, set, NULL, dense);

		distribute_set(&map, dense, nr, acct->set_bytes[set], counts, cnt, stamp,
			       &stamp_gen, queue, touched);
	}
	group_map_free(&map);
out:
	free(cnt);
	free(stamp);
	free(queue);
	free(touched);
	free(dense);
	return ret;
}

void btrfs_acct_subvols(const struct btrfs_acct *acct, const u64 *ids, size_t n,
			struct btrfs_acct_counts *counts)
{
	counts->rfer = 0;
	counts->excl = 0;
	for (u32 set = 1; set < acct->sets.nr && set < acct->set_bytes_alloc; set++) {
		u32 nr, in;

		if (!acct->set_bytes[set])
			continue;
		nr = btrfs_rootsets_len(&acct->sets, set);
		in = btrfs_rootsets_count_in(&acct->sets, set, ids, n);
		if (in)
			counts->rfer += acct->set_bytes[set];
		if (in == nr)
			counts->excl += acct->set_bytes[set];
	}
}

/* ---- quota tree anomalies ---- */

struct orphan_ctx {
	const struct btrfs_qgroup_list *list;
	struct btrfs_acct_orphan_rel *rels;
	size_t max, nr;
};

static int relation_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct orphan_ctx *ctx = priv;

	/* one direction is enough: (child, 246, parent) with child < parent */
	if (key->type != BTRFS_QGROUP_RELATION_KEY || key->objectid >= key->offset)
		return 0;
	if (btrfs_qgroup_list_find(ctx->list, key->objectid) &&
	    btrfs_qgroup_list_find(ctx->list, key->offset))
		return 0;
	if (ctx->nr < ctx->max) {
		ctx->rels[ctx->nr].child = key->objectid;
		ctx->rels[ctx->nr].parent = key->offset;
	}
	ctx->nr++;
	return 0;
}

int btrfs_acct_orphan_relations(struct btrfs_fs *fs, const struct btrfs_qgroup_list *list,
				struct btrfs_acct_orphan_rel *rels, size_t max, size_t *nr)
{
	struct btrfs_key min = { 1, BTRFS_QGROUP_RELATION_KEY, 0 };
	struct btrfs_key maxk = { (u64)-1, BTRFS_QGROUP_RELATION_KEY, (u64)-1 };
	struct orphan_ctx ctx = { .list = list, .rels = rels, .max = max };
	struct btrfs_root *quota;
	int ret;

	ret = btrfs_read_root(fs, BTRFS_QUOTA_TREE_OBJECTID, &quota);
	if (ret)
		return ret;
	/* relation items of 0/5 have objectid 5: start right after the INFO/LIMIT items */
	ret = btrfs_iterate_items(quota, &min, &maxk, relation_cb, &ctx);
	*nr = ctx.nr;
	return ret;
}
