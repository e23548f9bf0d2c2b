// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tree comparison (see tree-compare.h).
 *
 * Each side is a cursor: the blocks from its root down to the current
 * level, the slot taken in each, and the current key (a node key above
 * the leaves, an item key in a leaf).  A cursor moves in two ways: down
 * into the child at its slot, or on to the next slot, going up while a
 * block is used up.  A step down keeps the key (the child starts at its
 * parent's key: first key check) one level lower (level check), a step on
 * goes to a larger key (keys sorted in each block, every child below its
 * parent's next key: bound check), and each turn of the loop below moves
 * at least one cursor, so the loop ends on any image.
 *
 * The merge (merge_step()): every key below both cursors' keys is done,
 * and the side ahead has nothing between the two keys.  So the cursor
 * behind reports its item as on its side only, or goes down; at equal keys
 * the higher cursor goes down to the other's level, pointers to one block
 * (bytenr and generation) are a shared subtree that both skip, and two
 * leaf items are compared byte for byte.  A cursor at its end leaves the
 * other to report the rest.  Unlike the kernel's walk, a cursor ahead never
 * goes down just because the other is lower: the subtree it stands on may
 * still turn out to be shared, so a change next to a shared block does not
 * read it.
 */
#include <errno.h>
#include <string.h>
#include "fs.h"
#include "ctree.h"
#include "extent-buffer.h"
#include "tree-compare.h"

struct cmp_cursor {
	struct btrfs_root *root;
	struct extent_buffer *nodes[BTRFS_MAX_LEVEL];
	u32 slots[BTRFS_MAX_LEVEL];
	struct btrfs_key bound[BTRFS_MAX_LEVEL];	/* exclusive upper bound of nodes[l] */
	bool has_bound[BTRFS_MAX_LEVEL];
	int level;			/* level of the current slot */
	int root_level;
	bool end;
	struct btrfs_key key;		/* key at nodes[level], slots[level] */
	u64 *reads;
	struct cmp_cursor *peer;	/* the other tree's cursor */
	u32 hinted[BTRFS_MAX_LEVEL];	/* children of nodes[l] before this slot: hinted */
};

/* Children hinted to the prefetch worker ahead of each step down */
#define PREFETCH_AHEAD	16
/* ... looked for among at most this many slots */
#define PREFETCH_SCAN	(4 * PREFETCH_AHEAD)

enum child_owner { CHILD_OWN, CHILD_SHARED, CHILD_UNKNOWN };

/*
 * Worth hinting: is the child at @slot of @c's node at @level one the
 * other tree does not hold?  Newer than every block of the other tree:
 * its own.  Inside the key range of the other cursor's node of that level:
 * shared if that node points to the same block at the same key (a shared
 * subtree starts at the same key and level in both), else its own.
 * Outside that range it is not known yet: asked again when the other
 * cursor has moved (a wasted read would take the worker's time from the
 * blocks that are read).
 */
static enum child_owner child_owner(const struct cmp_cursor *c, int level, u32 slot)
{
	const struct extent_buffer *eb = c->nodes[level], *pe;
	const struct cmp_cursor *p = c->peer;
	struct btrfs_key key, first;
	bool found;
	u32 ps;

	if (!p || !p->root->node)
		return CHILD_UNKNOWN;
	if (btrfs_eb_node_ptr_generation(eb, slot) > btrfs_eb_generation(p->root->node))
		return CHILD_OWN;
	pe = p->end ? NULL : p->nodes[level];
	if (!pe)
		return CHILD_UNKNOWN;
	btrfs_eb_node_key(eb, slot, &key);
	btrfs_eb_node_key(pe, 0, &first);
	if (btrfs_key_cmp(&key, &first) < 0 ||
	    (p->has_bound[level] && btrfs_key_cmp(&key, &p->bound[level]) >= 0))
		return CHILD_UNKNOWN;
	ps = btrfs_eb_bin_search(pe, &key, &found);
	if (found && btrfs_eb_node_blockptr(pe, ps) == btrfs_eb_node_blockptr(eb, slot) &&
	    btrfs_eb_node_ptr_generation(pe, ps) == btrfs_eb_node_ptr_generation(eb, slot))
		return CHILD_SHARED;
	return CHILD_OWN;
}

/*
 * Hint the next children of @c's node at @level that it will read, up to
 * PREFETCH_AHEAD of them, from @from on; stops at one not known yet.
 */
static void cursor_hint_from(struct cmp_cursor *c, int level, u32 from)
{
	const struct extent_buffer *eb = c->nodes[level];
	u32 nr, slot, end, n = 0;

	if (level < 1 || !eb || !c->root->fs->prefetching)
		return;	/* no worker: nothing to hint */
	nr = btrfs_eb_nritems(eb);
	slot = from > c->hinted[level] ? from : c->hinted[level];
	end = slot + PREFETCH_SCAN < nr ? slot + PREFETCH_SCAN : nr;
	for (; slot < end && n < PREFETCH_AHEAD; slot++) {
		enum child_owner o = child_owner(c, level, slot);

		if (o == CHILD_UNKNOWN)
			break;
		if (o == CHILD_SHARED)
			continue;
		btrfs_prefetch_tree_block(c->root->fs, btrfs_eb_node_blockptr(eb, slot));
		n++;
	}
	c->hinted[level] = slot;
}

/*
 * Before going down at the current slot: hint what comes next below it
 * and, now that this side has moved, below the other cursor too.
 */
static void cursor_hint_ahead(struct cmp_cursor *c)
{
	struct cmp_cursor *p = c->peer;
	int pl;

	cursor_hint_from(c, c->level, c->slots[c->level] + 1);
	if (!p || p->end)
		return;
	pl = p->level ? p->level : 1;	/* on a leaf: what comes after it */
	if (pl <= p->root_level)
		cursor_hint_from(p, pl, p->slots[pl] + 1);
}

enum cmp_step { STEP_NONE, STEP_DOWN, STEP_NEXT };

static void cursor_release(struct cmp_cursor *c)
{
	for (int i = 0; i < BTRFS_MAX_LEVEL; i++) {
		free_extent_buffer(c->nodes[i]);
		c->nodes[i] = NULL;
	}
}

static void cursor_load_key(struct cmp_cursor *c)
{
	const struct extent_buffer *eb = c->nodes[c->level];

	if (c->level == 0)
		btrfs_eb_item_key(eb, c->slots[0], &c->key);
	else
		btrfs_eb_node_key(eb, c->slots[c->level], &c->key);
}

static int cursor_init(struct cmp_cursor *c, struct btrfs_root *root, u64 *reads)
{
	int ret;

	memset(c, 0, sizeof(*c));
	c->root = root;
	c->reads = reads;
	ret = btrfs_root_load_node(root);
	if (ret < 0)
		return ret;
	(*reads)++;
	c->nodes[btrfs_eb_level(root->node)] = extent_buffer_get(root->node);
	c->level = c->root_level = btrfs_eb_level(root->node);
	if (btrfs_eb_nritems(root->node) == 0) {
		c->end = true;	/* an empty leaf root (nodes are never empty) */
		return 0;
	}
	cursor_load_key(c);
	return 0;
}

static void block_last_key(const struct extent_buffer *eb, struct btrfs_key *key)
{
	u32 last = btrfs_eb_nritems(eb) - 1;

	if (btrfs_eb_level(eb))
		btrfs_eb_node_key(eb, last, key);
	else
		btrfs_eb_item_key(eb, last, key);
}

/* Into the child at the current slot of a node, verified as the reader does */
static int cursor_down(struct cmp_cursor *c)
{
	const struct extent_buffer *parent = c->nodes[c->level];
	u32 slot = c->slots[c->level];
	struct btrfs_tree_parent_check check = {
		.transid = btrfs_eb_node_ptr_generation(parent, slot),
		.owner_root = c->root->id,
		.has_level = true,
		.level = (u8)(c->level - 1),
		.has_first_key = true,
		.first_key = c->key,
	};
	struct extent_buffer *child;
	struct btrfs_key bound, last;
	bool has_bound;
	int ret;

	if (slot + 1 < btrfs_eb_nritems(parent)) {
		btrfs_eb_node_key(parent, slot + 1, &bound);
		has_bound = true;
	} else {
		bound = c->bound[c->level];
		has_bound = c->has_bound[c->level];
	}
	cursor_hint_ahead(c);
	ret = btrfs_read_tree_block(c->root->fs, btrfs_eb_node_blockptr(parent, slot), &check,
				    &child);
	if (ret < 0)
		return ret;
	(*c->reads)++;
	block_last_key(child, &last);
	if (has_bound && btrfs_key_cmp(&last, &bound) >= 0) {
		btrfs_fs_set_error(c->root->fs, "tree block %llu: key (%llu %u %llu) beyond its parent's range",
				   (unsigned long long)child->start,
				   (unsigned long long)last.objectid, last.type,
				   (unsigned long long)last.offset);
		free_extent_buffer(child);
		return -EUCLEAN;
	}
	c->level--;
	free_extent_buffer(c->nodes[c->level]);
	c->nodes[c->level] = child;
	c->slots[c->level] = 0;
	c->hinted[c->level] = 0;
	c->bound[c->level] = bound;
	c->has_bound[c->level] = has_bound;
	cursor_load_key(c);
	return 0;
}

/* On to the next slot, up through every block that is used up */
static void cursor_next(struct cmp_cursor *c)
{
	c->slots[c->level]++;
	while (c->slots[c->level] >= btrfs_eb_nritems(c->nodes[c->level])) {
		if (c->level == c->root_level) {
			c->end = true;
			return;
		}
		free_extent_buffer(c->nodes[c->level]);
		c->nodes[c->level] = NULL;
		c->level++;
		c->slots[c->level]++;
	}
	cursor_load_key(c);
}

static int cursor_step(struct cmp_cursor *c, enum cmp_step step)
{
	if (step == STEP_NONE || c->end)
		return 0;
	if (step == STEP_DOWN && c->level > 0)
		return cursor_down(c);
	cursor_next(c);
	return 0;
}

static const u8 *cursor_item(const struct cmp_cursor *c, u32 *len)
{
	*len = btrfs_eb_item_size(c->nodes[0], c->slots[0]);
	return btrfs_eb_item_data(c->nodes[0], c->slots[0]);
}

struct cmp_ctx {
	btrfs_compare_cb cb;
	void *priv;
	struct btrfs_compare_stats *stats;
};

static int report(struct cmp_ctx *x, enum btrfs_compare_result r, const struct btrfs_key *key,
		  const void *left, u32 left_len, const void *right, u32 right_len)
{
	x->stats->differences++;
	return x->cb(x->priv, r, key, left, left_len, right, right_len);
}

/* Both cursors on leaves at the same key: one item, the same or changed */
static int compare_items(struct cmp_ctx *x, const struct cmp_cursor *l, const struct cmp_cursor *r)
{
	u32 llen, rlen;
	const u8 *ld = cursor_item(l, &llen);
	const u8 *rd = cursor_item(r, &rlen);

	x->stats->items_compared++;
	if (llen == rlen && memcmp(ld, rd, llen) == 0)
		return 0;
	return report(x, BTRFS_COMPARE_CHANGED, &l->key, ld, llen, rd, rlen);
}

/* Both cursors on nodes of one level at the same key: the same subtree? */
static bool same_child(const struct cmp_cursor *l, const struct cmp_cursor *r)
{
	const struct extent_buffer *le = l->nodes[l->level], *re = r->nodes[r->level];
	u32 ls = l->slots[l->level], rs = r->slots[r->level];

	return btrfs_eb_node_blockptr(le, ls) == btrfs_eb_node_blockptr(re, rs) &&
	       btrfs_eb_node_ptr_generation(le, ls) == btrfs_eb_node_ptr_generation(re, rs);
}

/* The cursor @c behind the other: its item is on its side only, or it goes down */
static int step_behind(struct cmp_ctx *x, const struct cmp_cursor *c, bool is_left,
		       enum cmp_step *step)
{
	const void *d;
	u32 len;

	if (c->level > 0) {
		*step = STEP_DOWN;
		return 0;
	}
	*step = STEP_NEXT;
	d = cursor_item(c, &len);
	if (is_left)
		return report(x, BTRFS_COMPARE_DELETED, &c->key, d, len, NULL, 0);
	return report(x, BTRFS_COMPARE_ADDED, &c->key, NULL, 0, d, len);
}

/*
 * One step of the merge: report what the positions show and say how each
 * cursor moves on.  The cursor with the smaller key is behind: the other
 * side has nothing between the two keys, so a leaf item there is on one
 * side only, and a node there is read (it holds such items; a subtree the
 * other side shares would have started at the same key).  At equal keys a
 * cursor above the other's level goes down to it.
 * Return: 0, or the callback's non-zero return.
 */
static int merge_step(struct cmp_ctx *x, const struct cmp_cursor *l, const struct cmp_cursor *r,
		      enum cmp_step *ls, enum cmp_step *rs)
{
	int cmp;

	*ls = *rs = STEP_NONE;
	if (l->end)
		return step_behind(x, r, false, rs);
	if (r->end)
		return step_behind(x, l, true, ls);
	cmp = btrfs_key_cmp(&l->key, &r->key);
	if (cmp < 0)
		return step_behind(x, l, true, ls);
	if (cmp > 0)
		return step_behind(x, r, false, rs);
	if (l->level != r->level) {
		if (l->level > r->level)
			*ls = STEP_DOWN;
		else
			*rs = STEP_DOWN;
		return 0;
	}
	if (l->level > 0) {
		if (same_child(l, r)) {
			x->stats->shared_skipped++;
			*ls = *rs = STEP_NEXT;
		} else {
			*ls = *rs = STEP_DOWN;
		}
		return 0;
	}
	*ls = *rs = STEP_NEXT;
	return compare_items(x, l, r);
}

int btrfs_compare_trees(struct btrfs_root *left, struct btrfs_root *right,
			btrfs_compare_cb cb, void *priv, struct btrfs_compare_stats *stats)
{
	struct btrfs_compare_stats dummy = { 0 };
	struct cmp_ctx x = { .cb = cb, .priv = priv, .stats = stats ? stats : &dummy };
	struct cmp_cursor l, r;
	int ret;

	if (left->fs != right->fs) {
		btrfs_fs_set_error(left->fs, "trees %llu and %llu: not of the same filesystem",
				   (unsigned long long)left->id, (unsigned long long)right->id);
		return -EINVAL;
	}
	if (left->bytenr == right->bytenr && left->generation == right->generation &&
	    left->level == right->level) {
		x.stats->shared_skipped++;
		return 0;
	}
	ret = cursor_init(&l, left, &x.stats->blocks_read[0]);
	if (ret == 0)
		ret = cursor_init(&r, right, &x.stats->blocks_read[1]);
	else
		memset(&r, 0, sizeof(r));
	l.peer = &r;
	r.peer = &l;
	btrfs_prefetch_begin(left->fs);
	while (ret == 0 && !(l.end && r.end)) {
		enum cmp_step ls, rs;

		ret = merge_step(&x, &l, &r, &ls, &rs);
		if (ret == 0)
			ret = cursor_step(&l, ls);
		if (ret == 0)
			ret = cursor_step(&r, rs);
	}
	{
		struct btrfs_io_prefetch_stats pf = { 0 };

		btrfs_prefetch_end(left->fs, &pf);
		x.stats->prefetch_hinted += pf.hinted;
		x.stats->prefetched += pf.hits;
	}
	cursor_release(&l);
	cursor_release(&r);
	return ret;
}

/* ---- the kernel send's walk ---- */

static void cmp_item_at(const struct cmp_cursor *c, struct btrfs_cmp_item *it)
{
	memset(it, 0, sizeof(*it));
	if (c->end || c->level != 0)
		return;
	it->data = cursor_item(c, &it->len);
	it->slot = c->slots[0];
	it->valid = true;
}

static int send_report(btrfs_send_cmp_cb cb, void *priv, enum btrfs_send_cmp r,
		       const struct btrfs_key *key, const struct cmp_cursor *l,
		       const struct cmp_cursor *rc)
{
	struct btrfs_cmp_item li, ri;
	struct btrfs_key k = *key;

	cmp_item_at(l, &li);
	cmp_item_at(rc, &ri);
	return cb(priv, r, &k, &li, &ri);
}

int btrfs_compare_trees_send(struct btrfs_root *send, struct btrfs_root *parent,
			     btrfs_send_cmp_cb cb, void *priv)
{
	u64 reads[2] = { 0, 0 };
	struct cmp_cursor l, r;
	enum cmp_step al = STEP_NONE, ar = STEP_NONE;
	int ret;

	if (send->fs != parent->fs) {
		btrfs_fs_set_error(send->fs, "trees %llu and %llu: not of the same filesystem",
				   (unsigned long long)send->id, (unsigned long long)parent->id);
		return -EINVAL;
	}
	ret = cursor_init(&l, send, &reads[0]);
	if (ret == 0)
		ret = cursor_init(&r, parent, &reads[1]);
	else
		memset(&r, 0, sizeof(r));
	l.peer = &r;
	r.peer = &l;
	btrfs_prefetch_begin(send->fs);
	while (ret == 0) {
		int cmp;

		ret = cursor_step(&l, al);
		if (ret == 0)
			ret = cursor_step(&r, ar);
		if (ret)
			break;
		al = ar = STEP_NONE;
		if (l.end && r.end)
			break;
		if (l.end || r.end) {
			struct cmp_cursor *c = l.end ? &r : &l;

			if (c->level == 0)
				ret = send_report(cb, priv, l.end ? BTRFS_SEND_CMP_DELETED :
						  BTRFS_SEND_CMP_NEW, &c->key, &l, &r);
			if (l.end)
				ar = STEP_DOWN;
			else
				al = STEP_DOWN;
			continue;
		}
		cmp = btrfs_key_cmp(&l.key, &r.key);
		if (l.level == 0 && r.level == 0) {
			if (cmp < 0) {
				ret = send_report(cb, priv, BTRFS_SEND_CMP_NEW, &l.key, &l, &r);
				al = STEP_DOWN;
			} else if (cmp > 0) {
				ret = send_report(cb, priv, BTRFS_SEND_CMP_DELETED, &r.key, &l, &r);
				ar = STEP_DOWN;
			} else {
				u32 ll, rl;
				const u8 *ld = cursor_item(&l, &ll), *rd = cursor_item(&r, &rl);
				bool same = ll == rl && memcmp(ld, rd, ll) == 0;

				ret = send_report(cb, priv, same ? BTRFS_SEND_CMP_SAME :
						  BTRFS_SEND_CMP_CHANGED, &l.key, &l, &r);
				al = ar = STEP_DOWN;
			}
		} else if (l.level == r.level) {
			if (cmp < 0)
				al = STEP_DOWN;
			else if (cmp > 0)
				ar = STEP_DOWN;
			else if (same_child(&l, &r))
				al = ar = STEP_NEXT;
			else
				al = ar = STEP_DOWN;
		} else if (l.level < r.level) {
			ar = STEP_DOWN;
		} else {
			al = STEP_DOWN;
		}
	}
	btrfs_prefetch_end(send->fs, NULL);	/* send-size counts commands, not blocks */
	cursor_release(&l);
	cursor_release(&r);
	return ret;
}
