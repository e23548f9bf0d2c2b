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
 *  - EXTENT_DATA_REF(root, ino, offset): the items live in leaves of tree
 *    root, at keys (ino, EXTENT_DATA, k) with k - file_extent.offset ==
 *    offset in u64 arithmetic, so k lies in [offset, offset + max(extent
 *    size, 128 KiB)) modulo 2^64 (a clone can make the offset wrap below
 *    zero; see resolve_data_ref()).  That range is searched and every leaf
 *    holding an item that points at the extent contributes its set.  The last path of each root is cached, so
 *    consecutive extents of one file cost a binary search in a cached leaf.
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
	struct btrfs_u64map map;	/* fs tree leaf bytenr -> its set */
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
		acct->paths[i].root_id = 0;
		acct->paths[i].root = NULL;
	}
}

/* The cached path of tree @root_id (released if it was another tree's); NULL if gone */
static int path_for_root(struct btrfs_acct *acct, u64 root_id, struct acct_path_cache **out)
{
	struct acct_path_cache *pc;
	struct btrfs_root *root;
	int ret;

	for (int i = 0; i < ACCT_PATH_CACHE; i++) {
		if (acct->paths[i].root_id == root_id) {
			*out = &acct->paths[i];
			return 0;
		}
	}
	ret = btrfs_read_root(acct->fs, root_id, &root);
	if (ret == -ENOENT) {
		*out = NULL;
		return 0;
	}
	if (ret)
		return ret;
	pc = &acct->paths[acct->next_path++ % ACCT_PATH_CACHE];
	btrfs_path_release(&pc->path);
	pc->root_id = root_id;
	pc->root = root;
	*out = pc;
	return 0;
}

/* Point the cached leaf at the first item >= @key if it covers @key; false otherwise */
static bool position_in_cached_leaf(struct btrfs_path *path, const struct btrfs_key *key)
{
	const struct extent_buffer *leaf = path->nodes[0];
	struct btrfs_key k;
	bool found;

	if (!leaf || btrfs_eb_nritems(leaf) == 0)
		return false;
	btrfs_eb_item_key(leaf, 0, &k);
	if (btrfs_key_cmp(key, &k) < 0)
		return false;
	btrfs_eb_item_key(leaf, btrfs_eb_nritems(leaf) - 1, &k);
	if (btrfs_key_cmp(key, &k) > 0)
		return false;
	path->slots[0] = (int)btrfs_eb_bin_search(leaf, key, &found);
	return true;
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
		u32 set;

		if (btrfs_u64map_find(m, rec->parents[i], &set))
			ret = push_leaf_set(rec, set);
		else if (is_reloc_leaf(acct, rec->parents[i]))
			acct->stats.reloc_refs++;
		else
			acct->stats.unresolved_refs++;
	}
	rec->nr_parents = 0;
	return ret;
}

/*
 * Scan the file extent items of @ref's inode at keys [@lo, @hi) for items
 * pointing at the extent with k - file_extent.offset == ref->offset (in u64,
 * so an offset that wrapped below zero matches too).
 */
static int scan_data_ref_range(struct btrfs_acct *acct, struct extent_rec *rec,
			       struct acct_path_cache *pc, const struct btrfs_extent_ref_rec *ref,
			       u64 lo, u64 hi, bool *found)
{
	struct btrfs_key key = { ref->objectid, BTRFS_EXTENT_DATA_KEY, lo };
	int ret;

	if (!position_in_cached_leaf(&pc->path, &key)) {
		btrfs_path_release(&pc->path);
		acct->stats.searches++;
		ret = btrfs_search_slot(NULL, pc->root, &key, &pc->path, 0, 0);
		if (ret < 0)
			return ret;
	}
	for (;;) {
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
		if (fe.type != BTRFS_FILE_EXTENT_INLINE && fe.disk_bytenr == rec->bytenr &&
		    k.offset - fe.offset == ref->offset) {
			ret = union_leaf(rec, pc->path.nodes[0]->start, found);
			if (ret)
				return ret;
		}
		pc->path.slots[0]++;
	}
	if (ret < 0) {
		btrfs_path_release(&pc->path);
		return ret;
	}
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
	struct acct_path_cache *pc;
	bool found = false;
	int ret;

	ret = path_for_root(acct, ref->root, &pc);
	if (ret)
		return ret;
	if (!pc) {
		acct->stats.unresolved_refs++;
		return 0;
	}
	if (end > ref->offset) {
		ret = scan_data_ref_range(acct, rec, pc, ref, ref->offset, end, &found);
	} else {
		ret = scan_data_ref_range(acct, rec, pc, ref, ref->offset, (u64)-1, &found);
		if (!ret && end)
			ret = scan_data_ref_range(acct, rec, pc, ref, 0, end, &found);
	}
	if (ret)
		return ret;
	if (!found)
		acct->stats.unresolved_refs++;
	return 0;
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
		return resolve_data_ref(acct, rec, ref);
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
	rec->owner = 0;
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
		if (ret)
			return ret;
	}
	ret = btrfs_scan_tree_items(extent_root, extent_item_cb, &ctx);
	if (!ret)
		ret = close_extent(acct, &ctx.rec);
	free(ctx.rec.leaf_sets);
	free(ctx.rec.parents);
	btrfs_u64map_release(&ctx.rec.map);
	return ret;
}
