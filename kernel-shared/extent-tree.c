// SPDX-License-Identifier: GPL-2.0-only
/*
 * Extent tree side of a transaction: tree block allocation and freeing.
 *
 * Allocations and frees are only queued while trees change; at commit
 * btrfs_run_pending() turns each into its on-disk consequences:
 * - new block X of tree R: METADATA_ITEM (X, 169, level) with refs 1,
 *   generation T, flags TREE_BLOCK and one inline TREE_BLOCK_REF(R);
 * - freed block: its METADATA_ITEM deleted (it must hold exactly one
 *   reference, inline or keyed: shared blocks only lose one ref, in
 *   cow-shared.c and subvol-drop.c);
 * - block group used and super bytes_used +/- nodesize, R's ROOT_ITEM
 *   bytes_used +/- nodesize, the free space tree range removed/added.
 * With quotas on, bytes gained or lost by subvolume trees also go to
 * their qgroups (btrfs_run_qgroup_deltas()); in simple mode to the block's
 * header owner, and only for blocks of generation >= enable_gen (squota.h).
 * Applying these changes trees again, which queues more work; the commit
 * loops until a pass finds nothing.  A block allocated and freed inside T
 * is simply forgotten (or its recorded effects undone).
 * Only skinny metadata is written (the transaction refuses other images).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fs.h"
#include "ctree.h"
#include "ctree-write.h"
#include "transaction.h"
#include "squota.h"
#include "qgroup-items.h"
#include "data-write.h"

#define METADATA_ITEM_SIZE	(sizeof(struct btrfs_extent_item) + 9)

static int grow(void **arr, size_t *cap, size_t nr, size_t elem)
{
	void *p;
	size_t ncap;

	if (nr < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	p = realloc(*arr, ncap * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

int btrfs_alloc_tree_block(struct btrfs_trans_handle *trans, u64 owner, u8 level,
			   struct extent_buffer **out)
{
	struct btrfs_fs *fs = trans->fs;
	struct btrfs_trans_block *b;
	struct extent_buffer *eb;
	struct btrfs_header *h;
	u64 bytenr;
	int ret;

	ret = grow((void **)&trans->blocks, &trans->blocks_cap, trans->nr_blocks,
		   sizeof(*trans->blocks));
	if (ret < 0)
		return ret;
	ret = btrfs_alloc_metadata(trans, owner, &bytenr);
	if (ret < 0)
		return ret;
	ret = btrfs_alloc_tree_block_buffer(fs, bytenr, &eb);
	if (ret < 0)
		return ret;
	h = (struct btrfs_header *)eb->data;
	btrfs_set_header_fsid(h, fs->metadata_uuid);
	btrfs_set_header_chunk_tree_uuid(h, fs->chunk_tree_uuid);
	btrfs_set_header_bytenr(h, bytenr);
	btrfs_set_header_flags(h, BTRFS_HEADER_FLAG_WRITTEN);
	btrfs_set_header_backref_rev(h, BTRFS_MIXED_BACKREF_REV);
	btrfs_set_header_generation(h, trans->transid);
	btrfs_set_header_owner(h, owner);
	btrfs_set_header_level(h, level);
	btrfs_mark_buffer_dirty(eb);
	ret = btrfs_u64map_add(&trans->block_index, bytenr, (u32)trans->nr_blocks);
	if (ret < 0) {
		free_extent_buffer(eb);
		return ret;
	}
	b = &trans->blocks[trans->nr_blocks++];
	memset(b, 0, sizeof(*b));
	b->eb = extent_buffer_get(eb);
	b->bytenr = bytenr;
	b->owner = owner;
	b->level = level;
	*out = eb;
	return 0;
}

/* The latest allocation of @bytenr in @trans that is not freed again */
static struct btrfs_trans_block *find_new_block(struct btrfs_trans_handle *trans, u64 bytenr)
{
	struct btrfs_trans_block *best = NULL;
	uint32_t pos = btrfs_u64map_first(&trans->block_index, bytenr), idx;

	while (btrfs_u64map_next(&trans->block_index, bytenr, &pos, &idx)) {
		if (!trans->blocks[idx].freed && (!best || &trans->blocks[idx] > best))
			best = &trans->blocks[idx];
	}
	return best;
}

int btrfs_free_tree_block(struct btrfs_trans_handle *trans, u64 owner,
			  const struct extent_buffer *eb)
{
	struct btrfs_trans_block *b = find_new_block(trans, eb->start);
	struct btrfs_trans_free *f;
	int ret;

	if (b) {
		b->freed = true;
		btrfs_clear_buffer_dirty(b->eb);
		return 0;
	}
	/* freed twice would be a bug: btrfs_run_pending() refuses duplicates */
	ret = grow((void **)&trans->frees, &trans->frees_cap, trans->nr_frees,
		   sizeof(*trans->frees));
	if (ret < 0)
		return ret;
	f = &trans->frees[trans->nr_frees++];
	f->bytenr = eb->start;
	f->owner = owner;
	f->hdr_owner = btrfs_eb_owner(eb);
	f->generation = btrfs_eb_generation(eb);
	f->level = btrfs_eb_level(eb);
	f->done = false;
	return 0;
}

static int insert_metadata_item(struct btrfs_trans_handle *trans, u64 bytenr, u8 level,
				u64 owner)
{
	struct btrfs_root *extent_root;
	struct btrfs_key key = { bytenr, BTRFS_METADATA_ITEM_KEY, level };
	u8 buf[METADATA_ITEM_SIZE];
	struct btrfs_extent_item *ei = (struct btrfs_extent_item *)buf;
	int ret;

	ret = btrfs_read_root(trans->fs, BTRFS_EXTENT_TREE_OBJECTID, &extent_root);
	if (ret < 0)
		return ret;
	memset(buf, 0, sizeof(buf));
	btrfs_set_extent_refs(ei, 1);
	btrfs_set_extent_generation(ei, trans->transid);
	btrfs_set_extent_flags(ei, BTRFS_EXTENT_FLAG_TREE_BLOCK);
	buf[sizeof(*ei)] = BTRFS_TREE_BLOCK_REF_KEY;
	put_le64(buf + sizeof(*ei) + 1, owner);
	ret = btrfs_insert_item(trans, extent_root, &key, buf, sizeof(buf));
	if (ret == -EEXIST)
		btrfs_fs_set_error(trans->fs, "extent tree: block %llu already has an extent item",
				   (unsigned long long)bytenr);
	return ret;
}

static int first_key_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	(void)data;
	(void)len;
	*(struct btrfs_key *)priv = *key;
	return 1;
}

/* Delete the one keyed TREE_BLOCK_REF or SHARED_BLOCK_REF item of @bytenr */
static int delete_keyed_block_ref(struct btrfs_trans_handle *trans,
				  struct btrfs_root *extent_root, u64 bytenr)
{
	struct btrfs_key min = { bytenr, BTRFS_TREE_BLOCK_REF_KEY, 0 };
	struct btrfs_key max = { bytenr, BTRFS_SHARED_BLOCK_REF_KEY, (u64)-1 };
	struct btrfs_key found = { 0, 0, 0 };
	int ret;

	ret = btrfs_iterate_items(extent_root, &min, &max, first_key_cb, &found);
	if (ret < 0)
		return ret;
	if (found.objectid != bytenr ||
	    (found.type != BTRFS_TREE_BLOCK_REF_KEY && found.type != BTRFS_SHARED_BLOCK_REF_KEY)) {
		btrfs_fs_set_error(trans->fs, "tree block %llu: refs 1 but no back reference",
				   (unsigned long long)bytenr);
		return -EUCLEAN;
	}
	return btrfs_delete_key(trans, extent_root, &found);
}

static int delete_metadata_item(struct btrfs_trans_handle *trans, u64 bytenr, u8 level)
{
	struct btrfs_root *extent_root;
	struct btrfs_key key = { bytenr, BTRFS_METADATA_ITEM_KEY, level };
	struct btrfs_path path;
	const struct btrfs_extent_item *ei;
	const u8 *data;
	bool inline_ref;
	u32 len;
	int ret;

	ret = btrfs_read_root(trans->fs, BTRFS_EXTENT_TREE_OBJECTID, &extent_root);
	if (ret < 0)
		return ret;
	btrfs_path_init(&path);
	ret = btrfs_search_cow(trans, extent_root, &key, &path, -1);
	if (ret) {
		btrfs_path_release(&path);
		if (ret > 0) {
			btrfs_fs_set_error(trans->fs, "extent tree: no extent item for tree block %llu",
					   (unsigned long long)bytenr);
			return -EUCLEAN;
		}
		return ret;
	}
	data = btrfs_path_item_data(&path, &len);
	ei = (const struct btrfs_extent_item *)data;
	if (len < sizeof(*ei) || btrfs_extent_refs(ei) != 1) {
		btrfs_path_release(&path);
		btrfs_fs_set_error(trans->fs,
				   "tree block %llu: still shared (refs %llu) when freed",
				   (unsigned long long)bytenr,
				   len >= sizeof(*ei) ? (unsigned long long)btrfs_extent_refs(ei) : 0ULL);
		return -EUCLEAN;
	}
	/* the last reference may be inline (usual) or a keyed item (after a drop) */
	inline_ref = len > sizeof(*ei);
	ret = btrfs_del_item(trans, extent_root, &path);
	if (ret < 0 || inline_ref)
		return ret;
	return delete_keyed_block_ref(trans, extent_root, bytenr);
}

static int qgroup_delta_add(struct btrfs_trans_handle *trans, u64 subvolid, s64 delta)
{
	int ret;

	for (size_t i = 0; i < trans->nr_qdeltas; i++) {
		if (trans->qdeltas[i].subvolid == subvolid) {
			trans->qdeltas[i].bytes += delta;
			return 0;
		}
	}
	ret = grow((void **)&trans->qdeltas, &trans->qdeltas_cap, trans->nr_qdeltas,
		   sizeof(*trans->qdeltas));
	if (ret < 0)
		return ret;
	trans->qdeltas[trans->nr_qdeltas].subvolid = subvolid;
	trans->qdeltas[trans->nr_qdeltas].bytes = delta;
	trans->nr_qdeltas++;
	return 0;
}

/* Change used of the block group of @bytenr, super bytes_used and @owner's bytes_used */
static int account(struct btrfs_trans_handle *trans, u64 bytenr, u64 owner, s64 delta)
{
	struct btrfs_fs *fs = trans->fs;
	struct btrfs_bg *bg = btrfs_bg_lookup(&trans->alloc, bytenr);
	int ret;

	if (!bg) {
		btrfs_fs_set_error(fs, "tree block %llu: not in any block group",
				   (unsigned long long)bytenr);
		return -EUCLEAN;
	}
	bg->used += (u64)delta;
	bg->dirty = true;
	trans->bytes_used_delta += delta;
	for (size_t i = 0; i < fs->nr_roots; i++) {
		struct btrfs_root *root = fs->roots[i];

		if (root->id != owner || !root->has_item)
			continue;
		ret = btrfs_trans_track_root(trans, root, true);
		if (ret < 0)
			return ret;
		btrfs_set_root_bytes_used(&root->root_item,
					  btrfs_root_bytes_used(&root->root_item) + (u64)delta);
	}
	return 0;
}

/*
 * Qgroup of a tree block's @delta: full mode the tree @owner holding it;
 * simple mode the header owner, if the block is new enough to count
 */
static int charge_qgroup(struct btrfs_trans_handle *trans, u64 owner, u64 hdr_owner, u64 gen,
			 s64 delta)
{
	if (!trans->quota_on)
		return 0;
	if (trans->squota) {
		if (!btrfs_squota_counts(trans, gen))
			return 0;
		owner = hdr_owner;
	}
	return btrfs_is_fstree(owner) ? qgroup_delta_add(trans, owner, delta) : 0;
}

int btrfs_account_data_free(struct btrfs_trans_handle *trans, u64 bytenr, u64 num_bytes,
			    u64 root)
{
	struct btrfs_bg *bg = btrfs_bg_lookup(&trans->alloc, bytenr);

	if (!bg || !(bg->flags & BTRFS_BLOCK_GROUP_DATA) || bytenr + num_bytes > bg->start + bg->length ||
	    bg->used < num_bytes) {
		btrfs_fs_set_error(trans->fs, "data extent %llu: not inside a data block group",
				   (unsigned long long)bytenr);
		return -EUCLEAN;
	}
	bg->used -= num_bytes;
	bg->dirty = true;
	trans->bytes_used_delta -= (s64)num_bytes;
	if (trans->quota_on && btrfs_is_fstree(root))
		return qgroup_delta_add(trans, root, -(s64)num_bytes);
	return 0;
}

int btrfs_account_data_new(struct btrfs_trans_handle *trans, u64 bytenr, u64 num_bytes,
			   u64 root)
{
	(void)bytenr;
	trans->bytes_used_delta += (s64)num_bytes;
	/* new, so not shared: rfer and excl of @root (simple quotas: its owner) */
	if (trans->quota_on && btrfs_is_fstree(root))
		return qgroup_delta_add(trans, root, (s64)num_bytes);
	return 0;
}

static int apply_alloc(struct btrfs_trans_handle *trans, size_t i)
{
	struct btrfs_trans_block b = trans->blocks[i];
	u32 ns = trans->fs->nodesize;
	int ret;

	trans->blocks[i].recorded = true;
	ret = insert_metadata_item(trans, b.bytenr, b.level, b.owner);
	if (!ret)
		ret = account(trans, b.bytenr, b.owner, ns);
	if (!ret)
		ret = charge_qgroup(trans, b.owner, b.owner, trans->transid, ns);
	if (!ret && trans->alloc.has_fst)
		ret = btrfs_fst_remove(trans, b.bytenr, ns);
	return ret;
}

static int undo_alloc(struct btrfs_trans_handle *trans, size_t i)
{
	struct btrfs_trans_block b = trans->blocks[i];
	u32 ns = trans->fs->nodesize;
	int ret;

	trans->blocks[i].free_done = true;
	ret = delete_metadata_item(trans, b.bytenr, b.level);
	if (!ret)
		ret = account(trans, b.bytenr, b.owner, -(s64)ns);
	if (!ret)
		ret = charge_qgroup(trans, b.owner, b.owner, trans->transid, -(s64)ns);
	if (!ret && trans->alloc.has_fst)
		ret = btrfs_fst_add(trans, b.bytenr, ns);
	return ret;
}

static int apply_free(struct btrfs_trans_handle *trans, size_t i)
{
	struct btrfs_trans_free f = trans->frees[i];
	u32 ns = trans->fs->nodesize;
	int ret;

	trans->frees[i].done = true;
	ret = delete_metadata_item(trans, f.bytenr, f.level);
	if (!ret)
		ret = account(trans, f.bytenr, f.owner, -(s64)ns);
	if (!ret)
		ret = charge_qgroup(trans, f.owner, f.hdr_owner, f.generation, -(s64)ns);
	if (!ret && trans->alloc.has_fst)
		ret = btrfs_fst_add(trans, f.bytenr, ns);
	return ret;
}

static int free_cmp(const void *a, const void *b)
{
	const struct btrfs_trans_free *x = a, *y = b;

	return x->bytenr < y->bytenr ? -1 : x->bytenr > y->bytenr;
}

/*
 * A block freed twice is a bug, never written: sorted by bytenr, the
 * check costs n log n even when a drop frees a whole subvolume
 */
static int check_double_frees(struct btrfs_trans_handle *trans)
{
	if (trans->nr_frees < 2)
		return 0;
	qsort(trans->frees, trans->nr_frees, sizeof(*trans->frees), free_cmp);
	for (size_t i = 1; i < trans->nr_frees; i++) {
		if (trans->frees[i].bytenr == trans->frees[i - 1].bytenr) {
			btrfs_fs_set_error(trans->fs, "tree block %llu: freed twice in one transaction",
					   (unsigned long long)trans->frees[i].bytenr);
			return -EUCLEAN;
		}
	}
	return 0;
}

int btrfs_run_pending(struct btrfs_trans_handle *trans)
{
	int done = 0;
	int ret;

	ret = check_double_frees(trans);
	if (ret < 0)
		return ret;
	ret = btrfs_run_pending_data(trans);
	if (ret < 0)
		return ret;
	done += ret;

	/* the arrays may grow while we work: index, never keep pointers */
	for (size_t i = 0; i < trans->nr_blocks; i++) {
		if (trans->blocks[i].freed && !trans->blocks[i].recorded) {
			/* born and dropped in T: nothing reached the trees */
			trans->blocks[i].recorded = true;
			trans->blocks[i].free_done = true;
			continue;
		}
		if (!trans->blocks[i].recorded) {
			ret = apply_alloc(trans, i);
			if (ret < 0)
				return ret;
			done++;
		}
		if (trans->blocks[i].freed && !trans->blocks[i].free_done) {
			ret = undo_alloc(trans, i);
			if (ret < 0)
				return ret;
			done++;
		}
	}
	for (size_t i = 0; i < trans->nr_frees; i++) {
		if (trans->frees[i].done)
			continue;
		ret = apply_free(trans, i);
		if (ret < 0)
			return ret;
		done++;
	}
	return done;
}

int btrfs_write_dirty_block_groups(struct btrfs_trans_handle *trans)
{
	struct btrfs_alloc_ctx *ctx = &trans->alloc;
	struct btrfs_root *root;
	int done = 0;
	int ret;

	ret = btrfs_read_root(trans->fs, ctx->bg_tree, &root);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < ctx->nr_bgs; i++) {
		struct btrfs_bg *bg = &ctx->bgs[i];
		struct btrfs_key key = { bg->start, BTRFS_BLOCK_GROUP_ITEM_KEY, bg->length };
		struct btrfs_block_group_item item;

		if (!bg->dirty)
			continue;
		bg->dirty = false;
		btrfs_set_block_group_used(&item, bg->used);
		btrfs_set_block_group_chunk_objectid(&item, BTRFS_FIRST_CHUNK_TREE_OBJECTID);
		btrfs_set_block_group_flags(&item, bg->flags);
		ret = btrfs_update_item(trans, root, &key, &item, sizeof(item));
		if (ret < 0)
			return ret;
		done++;
	}
	return done;
}

struct parent_list {
	u64 child;
	u64 *ids;
	size_t nr, cap;
	int err;
};

static int parent_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct parent_list *l = priv;

	if (key->type != BTRFS_QGROUP_RELATION_KEY || key->objectid != l->child ||
	    key->offset <= l->child)
		return 0;
	for (size_t i = 0; i < l->nr; i++) {
		if (l->ids[i] == key->offset)
			return 0;
	}
	l->err = grow((void **)&l->ids, &l->cap, l->nr, sizeof(*l->ids));
	if (l->err)
		return 1;
	l->ids[l->nr++] = key->offset;
	return 0;
}

int btrfs_run_qgroup_deltas(struct btrfs_trans_handle *trans)
{
	struct btrfs_root *quota;
	int done = 0;
	int ret;

	/* with a recompute the commit writes the engine's numbers instead */
	if (!trans->quota_on || trans->qgroup_recompute)
		return 0;
	ret = btrfs_read_root(trans->fs, BTRFS_QUOTA_TREE_OBJECTID, &quota);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < trans->nr_qdeltas; i++) {
		struct parent_list l = { 0 };
		s64 delta = trans->qdeltas[i].bytes;

		if (!delta)
			continue;
		trans->qdeltas[i].bytes = 0;
		/* the qgroup and, breadth first, every qgroup above it, each once */
		l.ids = malloc(sizeof(*l.ids));
		if (!l.ids)
			return -ENOMEM;
		l.ids[0] = trans->qdeltas[i].subvolid;
		l.nr = l.cap = 1;
		for (size_t j = 0; j < l.nr && !ret; j++) {
			struct btrfs_key min = { l.ids[j], BTRFS_QGROUP_RELATION_KEY, 0 };
			struct btrfs_key max = { l.ids[j], BTRFS_QGROUP_RELATION_KEY, (u64)-1 };

			l.child = l.ids[j];
			ret = btrfs_iterate_items(quota, &min, &max, parent_cb, &l);
			if (!ret)
				ret = l.err;
			if (!ret)
				ret = btrfs_qgroup_info_add(trans, quota, l.ids[j], delta);
		}
		free(l.ids);
		if (ret < 0)
			return ret;
		done++;
	}
	return done;
}

int btrfs_run_pending_all(struct btrfs_trans_handle *trans)
{
	for (int pass = 0; pass < 64; pass++) {
		int a, b;

		a = btrfs_run_pending(trans);
		if (a < 0)
			return a;
		b = btrfs_run_qgroup_deltas(trans);
		if (b < 0)
			return b;
		if (!a && !b)
			return 0;
	}
	return -ELOOP;
}
