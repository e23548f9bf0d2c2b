// SPDX-License-Identifier: GPL-2.0-only
/*
 * The clone source of an extent, as the kernel's send finds it
 * (send-clone.h): its backref walk, in its order, with the send's cache of
 * the leaves it walked.  Used by the full and the incremental send models.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "ctree.h"
#include "extent-buffer.h"
#include "fs.h"
#include "items.h"
#include "send-clone.h"


/*
 * The kernel finds clone sources with its backref walk, and the first
 * reference at least as long as the extent ends the walk: so the order
 * matters.  The walk's order (fs/btrfs/backref.c and send.c, checked
 * against the kernel's streams):
 *  - each data ref (sorted by root, inode and offset, descending) is
 *    resolved to the leaves holding its items (in the tree of its root,
 *    which may be no clone source itself: the subvolume the snapshots were
 *    taken of; only leaves that root owns and no shared ref names), then
 *    each shared ref's leaf is scanned, in slot order;
 *  - an item found in a leaf the send's backref cache holds is offered at
 *    once to the roots cached for it (struct bcache_ent), so a perfect
 *    source there ends the walk before the leaves below are visited;
 *  - then the leaves: those of the data refs in the order their first ref
 *    names them (one ref's by descending address), then those of the
 *    shared refs; in a leaf, each root that reaches it (newest first; the
 *    leaf and its roots are then cached), then its items: those of each
 *    data ref in the refs' order, each ref's in key order, a shared leaf's
 *    in descending key order (its list was built by prepending).
 */
struct bref {
	u64 root, ino, off;	/* a data ref; root 0: a shared ref of leaf @off */
	u32 count;
};

struct elem {
	u64 ino, offset, num;
};

struct bleaf {
	u64 bytenr;
	size_t order;		/* the rank of the first ref that names it */
	bool shared;		/* named by a shared ref */
	struct elem *elems;
	size_t nr, cap;
};

struct refscan {
	const struct clone_search *cs;
	struct bref *refs;
	size_t nr, cap;
	u64 total;
	bool found_item;
};

static int add_bref(struct refscan *r, u64 root, u64 ino, u64 off, u32 count)
{
	/* a full send: the extent's own data ref is not resolved (skip_self_data_ref()) */
	if (r->cs->nr_croots == 1 && root && ino == r->cs->cur_ino && root == r->cs->self_owner &&
	    off == r->cs->self_offset)
		return 0;
	if (btrfs_array_grow((void **)&r->refs, &r->cap, r->nr + 1, sizeof(*r->refs)) < 0)
		return -ENOMEM;
	r->refs[r->nr++] = (struct bref){ root, ino, off, count };
	return 0;
}

static int extent_refs_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct refscan *r = priv;
	struct btrfs_extent_ref_rec ref;
	int ret;

	if (key->type == BTRFS_EXTENT_ITEM_KEY) {
		struct btrfs_extent_rec e;
		u32 pos;

		ret = btrfs_decode_extent_item(data, len, key->type, &e);
		if (ret < 0)
			return ret;
		r->found_item = true;
		r->total = e.refs;
		pos = e.inline_start;
		for (;;) {
			ret = btrfs_extent_inline_ref_next(data, len, &pos, &ref);
			if (ret)
				return ret < 0 ? ret : 0;
			if (ref.type == BTRFS_EXTENT_DATA_REF_KEY)
				ret = add_bref(r, ref.root, ref.objectid, ref.offset, ref.count);
			else if (ref.type == BTRFS_SHARED_DATA_REF_KEY)
				ret = add_bref(r, 0, 0, ref.parent, ref.count);
			if (ret < 0)
				return ret;
		}
	}
	if (key->type == BTRFS_EXTENT_DATA_REF_KEY || key->type == BTRFS_SHARED_DATA_REF_KEY) {
		ret = btrfs_decode_keyed_ref(key, data, len, &ref);
		if (ret < 0)
			return ret;
		if (ref.type == BTRFS_EXTENT_DATA_REF_KEY)
			return add_bref(r, ref.root, ref.objectid, ref.offset, ref.count);
		return add_bref(r, 0, 0, ref.parent, ref.count);
	}
	return 0;
}

/*
 * The leaves of data refs first, then those of shared refs; each in the
 * order of the ref first naming it, the leaves of one ref by descending
 * address (the kernel keeps resolved refs sorted so, parent last).
 */
static int cmp_leaf(const void *a, const void *b)
{
	const struct bleaf *x = a, *y = b;

	if (x->shared != y->shared)
		return x->shared ? 1 : -1;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return x->bytenr > y->bytenr ? -1 : x->bytenr < y->bytenr;
}

static int cmp_bref_desc(const void *a, const void *b)
{
	const struct bref *x = a, *y = b;

	if (x->root != y->root)
		return x->root > y->root ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino > y->ino ? -1 : 1;
	if (x->off != y->off)
		return x->off > y->off ? -1 : 1;
	return 0;
}

struct walk {
	struct clone_search *s;
	struct bleaf *leaves;
	size_t nr, cap;
	u64 bytenr, pos;
	bool compressed;
	size_t rank;		/* of the ref being resolved */
	u64 data_offset, extent_len;
	bool stop;		/* a perfect source found: the walk ends */
};

static int consider(struct clone_search *s, struct croot *c, const struct elem *e, u64 data_offset,
		    u64 extent_len);

/* the cache entry of @leaf, made the most recently used; NULL if none */
static const struct bcache_ent *bcache_lookup(struct clone_search *s, u64 leaf)
{
	for (u32 i = 0; i < s->nr_bcache; i++)
		if (s->bcache[i].leaf == leaf) {
			s->bcache[i].stamp = ++s->bcache_clock;
			return &s->bcache[i];
		}
	return NULL;
}

/* keep the clone roots reaching @leaf, pushing out the least recently used */
static void bcache_store(struct clone_search *s, u64 leaf, const u8 *roots, u32 nr)
{
	struct bcache_ent *e;

	if (nr > BREF_CACHE_ROOTS)
		return;
	if (s->nr_bcache < BREF_CACHE_SIZE) {
		e = &s->bcache[s->nr_bcache++];
	} else {
		e = &s->bcache[0];
		for (u32 i = 1; i < s->nr_bcache; i++)
			if (s->bcache[i].stamp < e->stamp)
				e = &s->bcache[i];
	}
	e->leaf = leaf;
	e->stamp = ++s->bcache_clock;
	e->nr = nr;
	memcpy(e->roots, roots, nr);
}

/* offer one reference to the cached roots of @leaf, as it is found */
static void offer_cached(struct walk *w, u64 leaf, const struct elem *e)
{
	const struct bcache_ent *c = bcache_lookup(w->s, leaf);

	for (u32 i = 0; c && i < c->nr && !w->stop; i++)
		w->stop = consider(w->s, &w->s->croots[c->roots[i]], e, w->data_offset,
				   w->extent_len);
}

static struct bleaf *walk_leaf(struct walk *w, u64 bytenr)
{
	for (size_t i = 0; i < w->nr; i++)
		if (w->leaves[i].bytenr == bytenr)
			return &w->leaves[i];
	if (btrfs_array_grow((void **)&w->leaves, &w->cap, w->nr + 1, sizeof(*w->leaves)) < 0)
		return NULL;
	memset(&w->leaves[w->nr], 0, sizeof(w->leaves[0]));
	w->leaves[w->nr].bytenr = bytenr;
	w->leaves[w->nr].order = w->rank;
	return &w->leaves[w->nr++];
}

/*
 * A reference of the extent at file item (@ino, @key_offset) in @leaf: an
 * elem if it covers the position, offered at once to the roots cached for
 * the leaf (the kernel's check_extent_in_eb()).
 */
static int add_elem(struct walk *w, u64 leaf, struct elem **list, size_t *nr, size_t *cap,
		    u64 ino, u64 key_offset, const struct btrfs_file_extent_rec *fe)
{
	u64 offset = key_offset;
	struct elem e;

	if (!w->compressed) {
		if (w->pos < fe->offset || w->pos >= fe->offset + fe->num_bytes)
			return 0;
		offset += w->pos - fe->offset;
	}
	e = (struct elem){ ino, offset, fe->num_bytes };
	offer_cached(w, leaf, &e);
	if (w->stop)
		return 0;
	if (btrfs_array_grow((void **)list, cap, *nr + 1, sizeof(**list)) < 0)
		return -ENOMEM;
	(*list)[(*nr)++] = e;
	return 0;
}

/*
 * Append the elems of one ref (found in key order) to its leaf's list: a
 * data ref's in key order (the kernel appends each item's), a shared ref's
 * reversed (the kernel's scan of the leaf prepends).
 */
static int leaf_take(struct walk *w, u64 leaf, const struct elem *e, size_t n, bool reversed)
{
	struct bleaf *l = walk_leaf(w, leaf);

	if (!l)
		return -ENOMEM;
	l->shared |= reversed;
	for (size_t k = 0; k < n; k++) {
		if (btrfs_array_grow((void **)&l->elems, &l->cap, l->nr + 1, sizeof(*l->elems)) < 0)
			return -ENOMEM;
		l->elems[l->nr++] = e[reversed ? n - 1 - k : k];
	}
	return 0;
}

static bool is_shared_leaf(const struct refscan *r, u64 leaf)
{
	for (size_t i = 0; i < r->nr; i++)
		if (!r->refs[i].root && r->refs[i].off == leaf)
			return true;
	return false;
}

/* a leaf the data ref @b does not resolve to: another root's, or a shared ref's */
static bool not_the_refs_leaf(const struct refscan *r, const struct bref *b,
			      const struct extent_buffer *eb)
{
	return btrfs_eb_owner(eb) != b->root || is_shared_leaf(r, eb->start);
}

/*
 * A data ref: its items in the tree of its root, up to its count, in the
 * leaves that root owns and no shared ref names (the kernel's
 * add_all_parents()).  An offset that wrapped below 0 (a clone into the
 * start of a file from inside an extent) is searched from 0.
 */
static int resolve_data_ref(struct clone_search *s, struct walk *w, const struct refscan *r,
			    const struct bref *b)
{
	struct btrfs_key key = { b->ino, BTRFS_EXTENT_DATA_KEY, b->off };
	const struct extent_buffer *eb0;
	struct btrfs_root *root;
	struct btrfs_path path;
	struct elem *cur = NULL;
	size_t nr = 0, cap = 0;
	u64 cur_leaf = 0;
	u32 count = 0;
	int ret;

	ret = btrfs_read_root(s->fs, b->root, &root);
	if (ret == -ENOENT)
		return 0;	/* a tree gone: nothing to resolve */
	if (ret < 0)
		return ret;
	if (key.offset >= (u64)LLONG_MAX)
		key.offset = 0;
	btrfs_path_init(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret < 0)
		return ret;
	/* a leaf of another owner or a shared ref's: at the start, and at each next leaf's first item */
	eb0 = path.nodes[0];
	if (eb0 && (u32)path.slots[0] < btrfs_eb_nritems(eb0) && not_the_refs_leaf(r, b, eb0))
		path.slots[0] = (int)btrfs_eb_nritems(eb0);
	while (count < b->count && !w->stop) {
		struct btrfs_file_extent_rec fe;
		const struct extent_buffer *eb;
		const u8 *data;
		u32 len;

		ret = btrfs_valid_slot(root, &path);
		if (ret)
			break;
		eb = path.nodes[0];
		btrfs_path_item_key(&path, &key);
		if (key.objectid != b->ino || key.type != BTRFS_EXTENT_DATA_KEY)
			break;
		if (path.slots[0] == 0 && not_the_refs_leaf(r, b, eb)) {
			path.slots[0] = (int)btrfs_eb_nritems(eb);	/* on to the next leaf */
			continue;
		}
		if (eb->start != cur_leaf && nr) {
			ret = leaf_take(w, cur_leaf, cur, nr, false);
			nr = 0;
			if (ret < 0)
				break;
		}
		cur_leaf = eb->start;
		data = btrfs_path_item_data(&path, &len);
		if (btrfs_decode_file_extent(data, len, &fe) == 0 &&
		    fe.type != BTRFS_FILE_EXTENT_INLINE && fe.disk_bytenr == w->bytenr &&
		    key.offset - fe.offset == b->off) {
			count++;
			ret = add_elem(w, eb->start, &cur, &nr, &cap, key.objectid, key.offset, &fe);
			if (ret < 0)
				break;
		}
		path.slots[0]++;
	}
	if (ret >= 0 && nr)
		ret = leaf_take(w, cur_leaf, cur, nr, false);
	free(cur);
	btrfs_path_release(&path);
	return ret < 0 ? ret : 0;
}

/* a shared ref: every item of the leaf that points at the extent */
static int resolve_shared_ref(struct clone_search *s, struct walk *w, u64 leaf)
{
	struct extent_buffer *eb;
	struct elem *cur = NULL;
	size_t nr = 0, cap = 0;
	int ret;

	ret = btrfs_read_tree_block(s->fs, leaf, NULL, &eb);
	if (ret < 0)
		return ret;
	if (btrfs_eb_level(eb) != 0) {
		free_extent_buffer(eb);
		return -EUCLEAN;
	}
	for (u32 i = 0; i < btrfs_eb_nritems(eb) && ret == 0 && !w->stop; i++) {
		struct btrfs_key k;
		struct btrfs_file_extent_rec fe;

		btrfs_eb_item_key(eb, i, &k);
		if (k.type != BTRFS_EXTENT_DATA_KEY)
			continue;
		if (btrfs_decode_file_extent(btrfs_eb_item_data(eb, i), btrfs_eb_item_size(eb, i),
					     &fe) < 0 || fe.type == BTRFS_FILE_EXTENT_INLINE)
			continue;
		if (fe.disk_bytenr == w->bytenr)
			ret = add_elem(w, leaf, &cur, &nr, &cap, k.objectid, k.offset, &fe);
	}
	free_extent_buffer(eb);
	if (ret == 0 && nr)
		ret = leaf_take(w, leaf, cur, nr, true);
	free(cur);
	return ret;
}

/* whether tree @root holds leaf @leaf: a search for its first key ends there */
static int root_has_leaf(struct clone_search *s, struct btrfs_root *root, u64 leaf, bool *has)
{
	struct extent_buffer *eb;
	struct btrfs_path path;
	struct btrfs_key first;
	int ret;

	*has = false;
	ret = btrfs_read_tree_block(s->fs, leaf, NULL, &eb);
	if (ret < 0)
		return ret;
	if (btrfs_eb_nritems(eb) == 0) {
		free_extent_buffer(eb);
		return 0;
	}
	btrfs_eb_item_key(eb, 0, &first);
	free_extent_buffer(eb);
	btrfs_path_init(&path);
	ret = btrfs_search_slot(NULL, root, &first, &path, 0, 0);
	if (ret >= 0) {
		*has = path.nodes[0] && path.nodes[0]->start == leaf;
		ret = 0;
	}
	btrfs_path_release(&path);
	return ret;
}

/* iterate_backrefs(): one reference of the extent in clone root @c; 1 stops the walk */
static int consider(struct clone_search *s, struct croot *c, const struct elem *e, u64 data_offset,
		    u64 extent_len)
{
	if (c->root == s->send) {
		if (e->ino == s->cur_ino && e->offset == data_offset)
			return 0;
		if (e->ino > s->cur_ino)
			return 0;
		if (e->ino == s->cur_ino && e->offset + extent_len > s->cur_next_write)
			return 0;
	}
	c->found = true;
	if (e->num > c->num_bytes) {
		c->ino = e->ino;
		c->offset = e->offset;
		c->num_bytes = e->num;
		if (e->num >= extent_len)
			return 1;
	}
	return 0;
}

int btrfs_send_find_clone(struct clone_search *s, const struct btrfs_file_extent_rec *fe,
			  u64 data_offset, u64 ino_size, struct croot **found)
{
	u64 extent_len;
	struct refscan r = { .cs = s };
	struct walk w = { .s = s, .bytenr = fe->disk_bytenr,
			  .pos = fe->compression ? 0 : fe->offset,
			  .compressed = fe->compression != 0, .data_offset = data_offset };
	struct btrfs_root *extent_root;
	struct croot *best = NULL;
	int ret;

	*found = NULL;
	if (data_offset >= ino_size)
		return 0;
	if (fe->type == BTRFS_FILE_EXTENT_INLINE || fe->disk_bytenr == 0)
		return 0;
	for (u32 i = 0; i < s->nr_croots; i++) {
		s->croots[i].ino = (u64)-1;
		s->croots[i].offset = 0;
		s->croots[i].num_bytes = 0;
		s->croots[i].found = false;
	}
	extent_len = data_offset + fe->num_bytes >= ino_size ? ino_size - data_offset : fe->num_bytes;
	w.extent_len = extent_len;
	ret = btrfs_read_root(s->fs, BTRFS_EXTENT_TREE_OBJECTID, &extent_root);
	if (ret < 0)
		return ret;
	{
		struct btrfs_key min = { fe->disk_bytenr, BTRFS_EXTENT_ITEM_KEY, 0 };
		struct btrfs_key max = { fe->disk_bytenr, BTRFS_SHARED_DATA_REF_KEY, (u64)-1 };

		ret = btrfs_iterate_items(extent_root, &min, &max, extent_refs_cb, &r);
	}
	if (ret < 0)
		goto out;
	/* check_extent_item(): a lone reference of a full send is our own */
	if (!r.found_item || r.total > SEND_MAX_EXTENT_REFS || (r.total == 1 && s->nr_croots == 1))
		goto out;
	qsort(r.refs, r.nr, sizeof(*r.refs), cmp_bref_desc);
	for (size_t i = 0; i < r.nr && ret == 0 && !w.stop; i++) {
		w.rank = i;
		if (r.refs[i].root)
			ret = resolve_data_ref(s, &w, &r, &r.refs[i]);
		else
			ret = resolve_shared_ref(s, &w, r.refs[i].off);
	}
	if (ret < 0)
		goto out;
	if (!w.stop)
		qsort(w.leaves, w.nr, sizeof(*w.leaves), cmp_leaf);
	for (size_t i = 0; i < w.nr && !w.stop; i++) {
		const struct bleaf *l = &w.leaves[i];
		const struct bcache_ent *c = bcache_lookup(s, l->bytenr);
		u8 roots[MAX_CLONE_ROOTS];
		u32 nr = 0;

		if (c) {
			nr = c->nr;
			memcpy(roots, c->roots, nr);
		} else {
			for (u32 k = s->nr_croots; k-- > 0;) {
				bool has;

				ret = root_has_leaf(s, s->croots[k].root, l->bytenr, &has);
				if (ret < 0)
					goto out;
				if (has)
					roots[nr++] = (u8)k;
			}
			bcache_store(s, l->bytenr, roots, nr);
		}
		for (u32 k = 0; k < nr && !w.stop; k++)
			for (size_t j = 0; j < l->nr && !w.stop; j++)
				w.stop = consider(s, &s->croots[roots[k]], &l->elems[j], data_offset,
						  extent_len);
	}
	for (u32 i = 0; i < s->nr_croots; i++) {
		struct croot *c = &s->croots[i];

		if (!c->found)
			continue;
		if (!best || c->num_bytes > best->num_bytes) {
			best = c;
			if (c->num_bytes >= extent_len)
				break;
		}
	}
	*found = best;
out:
	for (size_t i = 0; i < w.nr; i++)
		free(w.leaves[i].elems);
	free(w.leaves);
	free(r.refs);
	return ret;
}

