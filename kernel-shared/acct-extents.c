// SPDX-License-Identifier: GPL-2.0-only
/*
 * The extent tree stream of the accounting engine (see accounting.h).
 *
 * One pass over tree 2 in key order.  An EXTENT_ITEM of a data extent opens
 * a record; its inline refs and the keyed refs that follow it (same
 * objectid) add leaves to the record's root set; the next extent item closes
 * it and its bytes go to the set.  Only the current record is in memory.
 *
 * Resolving a back ref to leaves (full quotas):
 *  - SHARED_DATA_REF(parent): the leaf is named; its set is in the block
 *    table built by the tree walk, copied into a compact leaf map.  The
 *    leaves of one extent are looked up together when the extent closes.
 *  - EXTENT_DATA_REF(root, ino, offset, count): the items live in leaves of
 *    tree root, at keys (ino, EXTENT_DATA, k) with k - file_extent.offset ==
 *    offset in u64 arithmetic, so k lies in [offset, offset + max(extent
 *    size, 128 KiB)) modulo 2^64 (a clone can make the offset wrap below
 *    zero; see resolve_data_ref()).  That range is searched and every leaf
 *    holding an item that points at the extent contributes its set.  As in
 *    the kernel's backref walk, the search ends once it has met count such
 *    items in leaves that tree owns and no SHARED_DATA_REF of the extent
 *    names (the items this ref counts); so these refs are resolved when the
 *    extent closes, once all of its shared refs are known.  Paths stay at
 *    the leaves searched last (acct-internal.h), so consecutive extents of a
 *    few files cost a binary search in a cached leaf.
 *  A ref naming a leaf of a relocation tree (a balance stopped half way)
 *  adds no root, as in the kernel, and is counted apart.  A ref naming a tree
 *  that is gone, a leaf that is not a tree leaf, or a tree and inode with no
 *  matching file extent item adds no root either and is counted as
 *  unresolved: on a consistent image there are none, so the checker reports
 *  them as an inconsistency between the extent tree and the fs trees.
 *
 * Simple quotas: a data extent goes to its EXTENT_OWNER_REF root, a tree
 * block to its header owner, when the extent generation >= enable_gen.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "acct-internal.h"
#include "fs.h"
#include "items.h"
#include "tree-scan.h"

#define MAX_COMPRESSED_RAM	(128ULL * 1024)

/*
 * Every fs tree leaf's set by bytenr, in a u64 map of its own (16 bytes a
 * leaf).  Back refs name leaves in no useful order, so each lookup is a
 * cache miss: one here instead of two in the block table (slot, then
 * block), and the parents of one extent are looked up together after a
 * prefetch of each, so their misses overlap.
 */
struct extent_rec {
	bool active;		/* a data extent is open */
	u64 bytenr;
	u64 size;
	u64 generation;
	u64 owner;		/* simple quotas: EXTENT_OWNER_REF root, 0 if none */
	u32 *leaf_sets;		/* sets of the leaves found so far (kept across extents) */
	size_t nr_leaf_sets, alloc_leaf_sets;
	u64 *parents;		/* SHARED_DATA_REF leaves, looked up when the extent closes */
	size_t nr_parents, alloc_parents;
	struct btrfs_extent_ref_rec *data_refs;	/* EXTENT_DATA_REFs, resolved at close */
	size_t nr_data_refs, alloc_data_refs;
	struct btrfs_u64map map;	/* fs tree leaf bytenr -> its set */
	u32 *shared_mark;	/* per slot of map: serial of the last extent naming the leaf */
	u32 serial;		/* of the open extent */
};

struct scan_ctx {
	struct btrfs_acct *acct;
	struct extent_rec rec;
	u64 items;
};

void acct_paths_release(struct btrfs_acct *acct)
{
	for (int i = 0; i < ACCT_PATH_CACHE; i++) {
		btrfs_path_release(&acct->paths[i].path);
		acct->path_roots[i] = 0;
		acct->paths[i].root = NULL;
		acct->paths[i].used = 0;
		acct->paths[i].has_range = false;
	}
}

/* Remember the key range of the leaf @pc's path is at (it moves as the scan goes on) */
static void note_range(struct acct_path_cache *pc)
{
	const struct extent_buffer *leaf = pc->path.nodes[0];

	pc->has_range = leaf && btrfs_eb_nritems(leaf) > 0;
	if (pc->has_range) {
		btrfs_eb_item_key(leaf, 0, &pc->first);
		btrfs_eb_item_key(leaf, btrfs_eb_nritems(leaf) - 1, &pc->last);
	}
}

/*
 * A path of tree @root_id at @key: a kept one whose leaf covers it, else the
 * oldest one, searched anew.  *@out is NULL if the tree is gone.
 */
static int path_at(struct btrfs_acct *acct, u64 root_id, const struct btrfs_key *key,
		   struct acct_path_cache **out)
{
	struct acct_path_cache *pc = NULL;
	struct btrfs_root *root = NULL;
	int ret;

	*out = NULL;
	for (int i = 0; i < ACCT_PATH_CACHE; i++) {
		struct acct_path_cache *c = &acct->paths[i];

		if (acct->path_roots[i] != root_id)
			continue;
		root = c->root;
		if (c->has_range && btrfs_key_cmp(key, &c->first) >= 0 &&
		    btrfs_key_cmp(key, &c->last) <= 0) {
			bool found;

			c->path.slots[0] = (int)btrfs_eb_bin_search(c->path.nodes[0], key, &found);
			pc = c;
			break;
		}
	}
	if (!pc) {
		if (!root) {
			ret = btrfs_read_root(acct->fs, root_id, &root);
			if (ret == -ENOENT)
				return 0;
			if (ret)
				return ret;
		}
		pc = &acct->paths[0];
		for (int i = 1; i < ACCT_PATH_CACHE; i++)
			if (acct->paths[i].used < pc->used)
				pc = &acct->paths[i];
		btrfs_path_release(&pc->path);
		acct->path_roots[pc - acct->paths] = root_id;
		pc->root = root;
		pc->has_range = false;
		acct->stats.searches++;
		ret = btrfs_search_slot(NULL, root, key, &pc->path, 0, 0);
		if (ret < 0) {
			btrfs_path_release(&pc->path);
			acct->path_roots[pc - acct->paths] = 0;
			return ret;
		}
	}
	pc->used = ++acct->path_clock;
	*out = pc;
	return 0;
}

static int leaf_map_build(struct btrfs_acct *acct, struct btrfs_u64map *m)
{
	const struct acct_block_table *t = &acct->table;
	u32 leaves = 0;
	int ret;

	for (u32 i = 0; i < t->nr; i++)
		leaves += t->blocks[i].level == 0;
	ret = btrfs_u64map_init(m, leaves);
	for (u32 i = 0; !ret && i < t->nr; i++) {
		if (t->blocks[i].level == 0)
			ret = btrfs_u64map_add(m, t->blocks[i].bytenr, t->blocks[i].set);
	}
	return ret;
}

static int push_leaf_set(struct extent_rec *rec, u32 set)
{
	if (rec->nr_leaf_sets && rec->leaf_sets[rec->nr_leaf_sets - 1] == set)
		return 0;
	if (rec->nr_leaf_sets == rec->alloc_leaf_sets) {
		size_t na = rec->alloc_leaf_sets ? rec->alloc_leaf_sets * 2 : 64;
		u32 *n = realloc(rec->leaf_sets, na * sizeof(*n));

		if (!n)
			return -ENOMEM;
		rec->leaf_sets = n;
		rec->alloc_leaf_sets = na;
	}
	rec->leaf_sets[rec->nr_leaf_sets++] = set;
	return 0;
}

/* Remember the set of @leaf; the union is taken once, when the extent closes */
static int union_leaf(struct extent_rec *rec, u64 leaf, bool *found)
{
	u32 set;

	if (!btrfs_u64map_find(&rec->map, leaf, &set))
		return 0;
	*found = true;
	return push_leaf_set(rec, set);
}

/* A SHARED_DATA_REF: its leaf is looked up with the others when the extent closes */
static int defer_parent(struct extent_rec *rec, u64 parent)
{
	if (rec->nr_parents == rec->alloc_parents) {
		size_t na = rec->alloc_parents ? rec->alloc_parents * 2 : 64;
		u64 *n = realloc(rec->parents, na * sizeof(*n));

		if (!n)
			return -ENOMEM;
		rec->parents = n;
		rec->alloc_parents = na;
	}
	rec->parents[rec->nr_parents++] = parent;
	return 0;
}

/*
 * A SHARED_DATA_REF whose leaf no fs tree reaches: a leaf of a relocation
 * tree (a balance stopped half way keeps those; the kernel resolves them to
 * the relocation tree, which has no qgroup), or an inconsistency.  Rare, so
 * the block is read here; a block that cannot be read is no relocation leaf.
 */
static bool is_reloc_leaf(struct btrfs_acct *acct, u64 bytenr)
{
	struct btrfs_tree_parent_check check = { .level = 0, .has_level = true };
	struct extent_buffer *eb;
	bool reloc;

	if (btrfs_read_tree_block(acct->fs, bytenr, &check, &eb)) {
		btrfs_fs_clear_error(acct->fs);
		return false;
	}
	reloc = btrfs_eb_owner(eb) == BTRFS_TREE_RELOC_OBJECTID;
	free_extent_buffer(eb);
	return reloc;
}

static int resolve_parents(struct btrfs_acct *acct, struct extent_rec *rec)
{
	const struct btrfs_u64map *m = &rec->map;
	int ret = 0;

	for (size_t i = 0; i < rec->nr_parents; i++)
		btrfs_u64map_prefetch(m, rec->parents[i]);
	for (size_t i = 0; !ret && i < rec->nr_parents; i++) {
		u32 set, pos;

		if (btrfs_u64map_find_pos(m, rec->parents[i], &set, &pos)) {
			rec->shared_mark[pos] = rec->serial;
			ret = push_leaf_set(rec, set);
		}
		else if (is_reloc_leaf(acct, rec->parents[i]))
			acct->stats.reloc_refs++;
		else
			acct->stats.unresolved_refs++;
	}
	rec->nr_parents = 0;
	return ret;
}

/* Whether @leaf is the parent of one of the open extent's SHARED_DATA_REFs */
static bool is_shared_parent(const struct extent_rec *rec, u64 leaf)
{
	u32 set, pos;

	return btrfs_u64map_find_pos(&rec->map, leaf, &set, &pos) &&
	       rec->shared_mark[pos] == rec->serial;
}

/*
 * Scan the file extent items of @ref's inode from key offset @lo up to
 * @hi for items pointing at the extent with k - file_extent.offset ==
 * ref->offset (in u64, so an offset that wrapped below zero matches too).
 * @counted: the items met so far that the ref counts; the scan ends when
 * they reach its count.
 */
static int scan_data_ref_range(struct btrfs_acct *acct, struct extent_rec *rec,
			       const struct btrfs_extent_ref_rec *ref, u64 lo, u64 hi,
			       u32 *counted, bool *found)
{
	struct btrfs_key key = { ref->objectid, BTRFS_EXTENT_DATA_KEY, lo };
	struct acct_path_cache *pc;
	int ret;

	ret = path_at(acct, ref->root, &key, &pc);
	if (ret || !pc)
		return ret;
	while (*counted < ref->count) {
		const struct extent_buffer *leaf;
		struct btrfs_file_extent_rec fe;
		struct btrfs_key k;
		const u8 *data;
		u32 len;

		ret = btrfs_valid_slot(pc->root, &pc->path);
		if (ret)
			break;
		btrfs_path_item_key(&pc->path, &k);
		if (k.objectid != ref->objectid || k.type != BTRFS_EXTENT_DATA_KEY ||
		    k.offset >= hi)
			break;
		data = btrfs_path_item_data(&pc->path, &len);
		ret = btrfs_decode_file_extent(data, len, &fe);
		if (ret) {
			btrfs_fs_set_error_once(acct->fs,
				"tree %llu inode %llu: file extent at %llu cannot be decoded",
				(unsigned long long)ref->root, (unsigned long long)k.objectid,
				(unsigned long long)k.offset);
			return ret;
		}
		leaf = pc->path.nodes[0];
		if (fe.type != BTRFS_FILE_EXTENT_INLINE && fe.disk_bytenr == rec->bytenr &&
		    k.offset - fe.offset == ref->offset) {
			ret = union_leaf(rec, leaf->start, found);
			if (ret)
				return ret;
			if (btrfs_eb_owner(leaf) == ref->root && !is_shared_parent(rec, leaf->start))
				(*counted)++;
		}
		pc->path.slots[0]++;
	}
	if (ret < 0) {
		btrfs_path_release(&pc->path);
		acct->path_roots[pc - acct->paths] = 0;
		pc->has_range = false;
		return ret;
	}
	note_range(pc);
	return 0;
}

/*
 * EXTENT_DATA_REF(root, ino, offset): the items sit at keys k = offset +
 * file_extent.offset, file_extent.offset < span.  The offset is a u64
 * difference, and it wraps below zero when a clone puts the middle of an
 * extent at a file offset smaller than its offset into the extent (cp
 * --reflink of a range, FICLONERANGE): the kernel writes those refs that way
 * and resolves them by searching from key offset 0.  So the key range
 * [offset, offset + span) is taken modulo 2^64: one piece, or two when it
 * wraps (the piece at the top of the key space is normally empty).
 */
static int resolve_data_ref(struct btrfs_acct *acct, struct extent_rec *rec,
			    const struct btrfs_extent_ref_rec *ref)
{
	u64 span = rec->size > MAX_COMPRESSED_RAM ? rec->size : MAX_COMPRESSED_RAM;
	u64 end = ref->offset + span;
	bool found = false;
	u32 counted = 0;
	int ret;

	if (end > ref->offset) {
		ret = scan_data_ref_range(acct, rec, ref, ref->offset, end, &counted, &found);
	} else {
		ret = scan_data_ref_range(acct, rec, ref, ref->offset, (u64)-1, &counted, &found);
		if (!ret && end)
			ret = scan_data_ref_range(acct, rec, ref, 0, end, &counted, &found);
	}
	if (ret)
		return ret;
	if (!found)
		acct->stats.unresolved_refs++;
	return 0;
}

/* An EXTENT_DATA_REF waits for the extent's shared refs (see the top) */
static int defer_data_ref(struct extent_rec *rec, const struct btrfs_extent_ref_rec *ref)
{
	if (rec->nr_data_refs == rec->alloc_data_refs) {
		size_t na = rec->alloc_data_refs ? rec->alloc_data_refs * 2 : 16;
		struct btrfs_extent_ref_rec *n = realloc(rec->data_refs, na * sizeof(*n));

		if (!n)
			return -ENOMEM;
		rec->data_refs = n;
		rec->alloc_data_refs = na;
	}
	rec->data_refs[rec->nr_data_refs++] = *ref;
	return 0;
}

static int resolve_data_refs(struct btrfs_acct *acct, struct extent_rec *rec)
{
	int ret = 0;

	for (size_t i = 0; !ret && i < rec->nr_data_refs; i++)
		ret = resolve_data_ref(acct, rec, &rec->data_refs[i]);
	rec->nr_data_refs = 0;
	return ret;
}

static int handle_ref(struct btrfs_acct *acct, struct extent_rec *rec,
		      const struct btrfs_extent_ref_rec *ref)
{
	if (acct->opts.simple) {
		if (ref->type == BTRFS_EXTENT_OWNER_REF_KEY && !rec->owner)
			rec->owner = ref->root;
		return 0;
	}
	switch (ref->type) {
	case BTRFS_SHARED_DATA_REF_KEY:
		acct->stats.data_refs++;
		return defer_parent(rec, ref->parent);
	case BTRFS_EXTENT_DATA_REF_KEY:
		if (!btrfs_is_fstree(ref->root))
			return 0;	/* data relocation tree: no qgroup */
		acct->stats.data_refs++;
		return defer_data_ref(rec, ref);
	default:
		return 0;
	}
}

static int close_extent(struct btrfs_acct *acct, struct extent_rec *rec)
{
	u32 set = 0;
	int ret;

	if (!rec->active)
		return 0;
	rec->active = false;
	acct->stats.data_extents++;
	ret = resolve_parents(acct, rec);
	if (!ret)
		ret = resolve_data_refs(acct, rec);
	if (ret)
		return ret;
	ret = btrfs_rootsets_union_many(&acct->sets, rec->leaf_sets, rec->nr_leaf_sets, &set);
	if (ret)
		return ret;
	if (acct->opts.simple) {
		if (!rec->owner || !btrfs_is_fstree(rec->owner) ||
		    rec->generation < acct->opts.enable_gen)
			return 0;
		ret = btrfs_rootsets_single(&acct->sets, rec->owner, &set);
		if (ret)
			return ret;
	}
	if (!set)
		return 0;
	acct->stats.data_bytes += rec->size;
	return acct_add_bytes(acct, set, rec->size);
}

/* Simple quotas: a tree block is charged to its header owner */
static int simple_tree_block(struct btrfs_acct *acct, u64 bytenr, u64 generation)
{
	struct acct_block *b = acct_block_find(acct, bytenr);
	u32 set;
	int ret;

	if (generation < acct->opts.enable_gen || !b || !(b->flags & ACCT_BLOCK_READ) ||
	    !btrfs_is_fstree(b->owner))
		return 0;
	ret = btrfs_rootsets_single(&acct->sets, b->owner, &set);
	if (ret)
		return ret;
	acct->stats.meta_bytes += acct->fs->nodesize;
	return acct_add_bytes(acct, set, acct->fs->nodesize);
}

static int open_extent(struct btrfs_acct *acct, struct extent_rec *rec,
		       const struct btrfs_key *key, const void *data, u32 len)
{
	struct btrfs_extent_ref_rec ref;
	struct btrfs_extent_rec ei;
	u32 pos;
	int ret;

	ret = btrfs_decode_extent_item(data, len, key->type, &ei);
	if (ret) {
		btrfs_fs_set_error_once(acct->fs, "extent %llu: extent item cannot be decoded",
					(unsigned long long)key->objectid);
		return ret;
	}
	if (ei.flags & BTRFS_EXTENT_FLAG_TREE_BLOCK) {
		if (acct->opts.simple)
			return simple_tree_block(acct, key->objectid, ei.generation);
		return 0;
	}
	if (!(ei.flags & BTRFS_EXTENT_FLAG_DATA) || key->type != BTRFS_EXTENT_ITEM_KEY)
		return 0;
	rec->nr_leaf_sets = 0;
	rec->nr_parents = 0;
	rec->nr_data_refs = 0;
	rec->owner = 0;
	if (!acct->opts.simple && ++rec->serial == 0) {	/* wrapped: forget the old marks */
		memset(rec->shared_mark, 0, btrfs_u64map_slots(&rec->map) * sizeof(u32));
		rec->serial = 1;
	}
	rec->active = true;
	rec->bytenr = key->objectid;
	rec->size = key->offset;
	rec->generation = ei.generation;
	pos = ei.inline_start;
	while ((ret = btrfs_extent_inline_ref_next(data, len, &pos, &ref)) == 0) {
		ret = handle_ref(acct, rec, &ref);
		if (ret)
			return ret;
	}
	if (ret < 0) {
		btrfs_fs_set_error_once(acct->fs, "extent %llu: bad inline back reference",
					(unsigned long long)key->objectid);
		return ret;
	}
	return 0;
}

static int extent_item_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct scan_ctx *ctx = priv;
	struct btrfs_acct *acct = ctx->acct;
	struct btrfs_extent_ref_rec ref;
	int ret = 0;

	switch (key->type) {
	case BTRFS_EXTENT_ITEM_KEY:
	case BTRFS_METADATA_ITEM_KEY:
		ret = close_extent(acct, &ctx->rec);
		if (!ret)
			ret = open_extent(acct, &ctx->rec, key, data, len);
		break;
	case BTRFS_TREE_BLOCK_REF_KEY:
	case BTRFS_SHARED_BLOCK_REF_KEY:
	case BTRFS_EXTENT_DATA_REF_KEY:
	case BTRFS_SHARED_DATA_REF_KEY:
		if (!ctx->rec.active || key->objectid != ctx->rec.bytenr)
			break;
		ret = btrfs_decode_keyed_ref(key, data, len, &ref);
		if (ret) {
			btrfs_fs_set_error_once(acct->fs, "extent %llu: bad keyed back reference",
						(unsigned long long)key->objectid);
			break;
		}
		ret = handle_ref(acct, &ctx->rec, &ref);
		break;
	default:
		break;
	}
	if (!ret)
		ret = acct_progress(acct, BTRFS_ACCT_PHASE_EXTENTS, ++ctx->items);
	return ret < 0 ? ret : 0;
}

int acct_scan_extents(struct btrfs_acct *acct)
{
	struct scan_ctx ctx = { .acct = acct };
	struct btrfs_root *extent_root;
	int ret;

	ret = btrfs_read_root(acct->fs, BTRFS_EXTENT_TREE_OBJECTID, &extent_root);
	if (ret)
		return ret;
	if (!acct->opts.simple) {
		ret = leaf_map_build(acct, &ctx.rec.map);
		if (!ret) {
			ctx.rec.shared_mark = calloc(btrfs_u64map_slots(&ctx.rec.map) + 1, sizeof(u32));
			if (!ctx.rec.shared_mark)
				ret = -ENOMEM;
		}
		if (ret) {
			btrfs_u64map_release(&ctx.rec.map);
			return ret;
		}
	}
	ret = btrfs_scan_tree_items(extent_root, extent_item_cb, &ctx);
	if (!ret)
		ret = close_extent(acct, &ctx.rec);
	free(ctx.rec.leaf_sets);
	free(ctx.rec.parents);
	free(ctx.rec.data_refs);
	free(ctx.rec.shared_mark);
	btrfs_u64map_release(&ctx.rec.map);
	return ret;
}
