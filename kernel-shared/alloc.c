// SPDX-License-Identifier: GPL-2.0-only
/*
 * Metadata space: block groups, the allocator and free space tree updates
 * (see alloc.h for the rules).
 *
 * The allocator's free list is built once per transaction from the
 * committed state and only shrinks: blocks freed in T are never handed
 * out again before T is on disk.  The free space tree is kept in extent
 * format: one FREE_SPACE_EXTENT per maximal free run, extent_count in the
 * block group's FREE_SPACE_INFO.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fs.h"
#include "ctree.h"
#include "ctree-write.h"
#include "transaction.h"
#include "alloc.h"
#include "alloc-internal.h"
#include "chunk-alloc.h"

struct bg_load {
	struct btrfs_alloc_ctx *ctx;
	size_t cap;
	int err;
};

int btrfs_range_push(struct btrfs_free_range **arr, size_t *nr, size_t *cap, u64 start, u64 len)
{
	if (!len)
		return 0;
	if (*nr == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		struct btrfs_free_range *p = realloc(*arr, ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*arr = p;
		*cap = ncap;
	}
	(*arr)[*nr].start = start;
	(*arr)[*nr].len = len;
	(*nr)++;
	return 0;
}

static int bg_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct bg_load *l = priv;
	struct btrfs_alloc_ctx *ctx = l->ctx;
	const struct btrfs_block_group_item *bgi = data;
	struct btrfs_bg *bg;

	if (key->type != BTRFS_BLOCK_GROUP_ITEM_KEY)
		return 0;
	if (len < sizeof(*bgi)) {
		l->err = -EUCLEAN;
		return 1;
	}
	if (ctx->nr_bgs == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 16;
		struct btrfs_bg *p = realloc(ctx->bgs, ncap * sizeof(*p));

		if (!p) {
			l->err = -ENOMEM;
			return 1;
		}
		ctx->bgs = p;
		l->cap = ncap;
	}
	bg = &ctx->bgs[ctx->nr_bgs++];
	bg->start = key->objectid;
	bg->length = key->offset;
	bg->flags = btrfs_block_group_flags(bgi);
	bg->used = btrfs_block_group_used(bgi);
	bg->dirty = false;
	bg->fst_bitmaps = false;
	bg->new_chunk = -1;
	return 0;
}

/* Format of a block group's free space tree entries (data block groups: for frees) */
static int load_fst_format(struct btrfs_fs *fs, struct btrfs_bg *bg)
{
	struct btrfs_key key = { bg->start, BTRFS_FREE_SPACE_INFO_KEY, bg->length };
	struct btrfs_free_space_info info;
	struct btrfs_root *fst;
	u32 len;
	int ret;

	ret = btrfs_read_root(fs, BTRFS_FREE_SPACE_TREE_OBJECTID, &fst);
	if (!ret)
		ret = btrfs_lookup_item(fst, &key, &info, sizeof(info), &len);
	if (ret == -ENOENT)
		return 0;
	if (ret < 0)
		return ret;
	if (len < sizeof(info))
		return -EUCLEAN;
	bg->fst_bitmaps = btrfs_free_space_info_flags(&info) & BTRFS_FREE_SPACE_USING_BITMAPS;
	return 0;
}

struct bg_block_group_bounds {
	u64 start, end;
};

struct space_load {
	struct btrfs_fs *fs;
	struct btrfs_bg *bg;
	struct btrfs_free_range *ranges;
	size_t nr, cap;
	u64 cursor;			/* extent-tree mode: end of the last used range */
	int err;
};

/* Free runs of one FREE_SPACE_BITMAP item */
static int load_bitmap(struct space_load *l, const struct btrfs_key *key, const u8 *bits,
		       u32 len)
{
	u64 ss = l->fs->sectorsize, nbits = key->offset / ss;
	u64 run = 0, i;

	if (key->objectid < l->bg->start ||
	    key->objectid + key->offset > l->bg->start + l->bg->length)
		return 0;
	if (key->offset % ss || (nbits + 7) / 8 > len) {
		btrfs_fs_set_error(l->fs, "free space tree: bad bitmap item %llu+%llu",
				   (unsigned long long)key->objectid,
				   (unsigned long long)key->offset);
		l->err = -EUCLEAN;
		return 1;
	}
	for (i = 0; i <= nbits; i++) {
		bool set = i < nbits && (bits[i / 8] >> (i % 8)) & 1;

		if (set) {
			run++;
			continue;
		}
		if (run) {
			l->err = btrfs_range_push(&l->ranges, &l->nr, &l->cap,
					    key->objectid + (i - run) * ss, run * ss);
			if (l->err)
				return 1;
		}
		run = 0;
	}
	return 0;
}

static int fst_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct space_load *l = priv;

	if (key->type == BTRFS_FREE_SPACE_INFO_KEY) {
		const struct btrfs_free_space_info *info = data;

		if (len < sizeof(*info)) {
			l->err = -EUCLEAN;
			return 1;
		}
		if (key->objectid == l->bg->start)
			l->bg->fst_bitmaps = btrfs_free_space_info_flags(info) &
				BTRFS_FREE_SPACE_USING_BITMAPS;
		return 0;
	}
	if (key->type == BTRFS_FREE_SPACE_BITMAP_KEY)
		return load_bitmap(l, key, data, len);
	if (key->type != BTRFS_FREE_SPACE_EXTENT_KEY)
		return 0;
	if (key->objectid < l->bg->start ||
	    key->objectid + key->offset > l->bg->start + l->bg->length)
		return 0;
	l->err = btrfs_range_push(&l->ranges, &l->nr, &l->cap, key->objectid, key->offset);
	return l->err ? 1 : 0;
}

/* Without a free space tree: the gaps between extent items are free */
static int extent_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct space_load *l = priv;
	u64 end;

	if (key->type != BTRFS_EXTENT_ITEM_KEY && key->type != BTRFS_METADATA_ITEM_KEY)
		return 0;
	end = key->objectid + (key->type == BTRFS_METADATA_ITEM_KEY ? l->fs->nodesize : key->offset);
	if (key->objectid > l->cursor) {
		l->err = btrfs_range_push(&l->ranges, &l->nr, &l->cap, l->cursor,
				    key->objectid - l->cursor);
		if (l->err)
			return 1;
	}
	if (end > l->cursor)
		l->cursor = end;
	return 0;
}

int btrfs_range_cut(struct btrfs_free_range **ranges, size_t *nr, size_t *cap, u64 start,
		    u64 len)
{
	u64 end = start + len;

	for (size_t i = 0; i < *nr; i++) {
		struct btrfs_free_range *r = &(*ranges)[i];
		u64 rend = r->start + r->len;

		if (rend <= start || r->start >= end)
			continue;
		if (r->start < start && rend > end) {
			/* split: keep the head here, append the tail (sorted later) */
			r->len = start - r->start;
			return btrfs_range_push(ranges, nr, cap, end, rend - end);
		}
		if (r->start < start) {
			r->len = start - r->start;
		} else if (rend > end) {
			r->len = rend - end;
			r->start = end;
		} else {
			r->len = 0;
		}
	}
	return 0;
}

static int range_cmp(const void *a, const void *b)
{
	const struct btrfs_free_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

void btrfs_range_normalize(struct btrfs_free_range *ranges, size_t *nr, bool merge)
{
	size_t out = 0;

	if (*nr)
		qsort(ranges, *nr, sizeof(*ranges), range_cmp);
	for (size_t i = 0; i < *nr; i++) {
		if (!ranges[i].len)
			continue;
		if (merge && out && ranges[out - 1].start + ranges[out - 1].len >= ranges[i].start) {
			u64 end = ranges[i].start + ranges[i].len;

			if (end > ranges[out - 1].start + ranges[out - 1].len)
				ranges[out - 1].len = end - ranges[out - 1].start;
			continue;
		}
		ranges[out++] = ranges[i];
	}
	*nr = out;
}

/* The logical windows that map onto a superblock copy must never be allocated */
int btrfs_range_cut_super(struct btrfs_fs *fs, struct btrfs_free_range **ranges, size_t *nr,
			  size_t *cap, const struct btrfs_bg *bg)
{
	const struct btrfs_chunk_map *map = btrfs_chunk_map_lookup(fs, bg->start);
	int ret;

	if (!map)
		return -EUCLEAN;
	if (map->type & (BTRFS_BLOCK_GROUP_RAID5 | BTRFS_BLOCK_GROUP_RAID6)) {
		btrfs_fs_set_error(fs, "block group %llu: %s profile, writing not implemented offline yet",
				   (unsigned long long)bg->start, btrfs_profile_name(map->type));
		return -EOPNOTSUPP;
	}
	if (bg->start < BTRFS_SUPER_INFO_OFFSET + BTRFS_STRIPE_LEN) {
		ret = btrfs_range_cut(ranges, nr, cap, bg->start, BTRFS_SUPER_INFO_OFFSET + BTRFS_STRIPE_LEN);
		if (ret)
			return ret;
	}
	for (int m = 0; m < BTRFS_SUPER_MIRROR_MAX; m++) {
		u64 phys = btrfs_sb_offset(m);

		for (u16 s = 0; s < map->num_stripes; s++) {
			u64 pstart = map->stripes[s].physical;
			u64 logical;

			/* a copy straddling the extent's start is cut from its first stripe */
			if (btrfs_chunk_rmap(map, s, phys > pstart ? phys : pstart, &logical) ||
			    phys + BTRFS_SUPER_INFO_SIZE <= pstart)
				continue;
			logical &= ~(BTRFS_STRIPE_LEN - 1);
			ret = btrfs_range_cut(ranges, nr, cap, logical, 2 * BTRFS_STRIPE_LEN);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int load_bg_space(struct btrfs_trans_handle *trans, struct btrfs_bg *bg,
			 struct space_load *l)
{
	struct btrfs_fs *fs = trans->fs;
	struct btrfs_root *root;
	struct btrfs_key min = { bg->start, 0, 0 };
	struct btrfs_key max = { bg->start + bg->length - 1, (u8)-1, (u64)-1 };
	int ret;

	l->fs = fs;
	l->bg = bg;
	l->cursor = bg->start;
	if (trans->alloc.has_fst) {
		ret = btrfs_read_root(fs, BTRFS_FREE_SPACE_TREE_OBJECTID, &root);
		if (ret < 0)
			return ret;
		ret = btrfs_iterate_items(root, &min, &max, fst_cb, l);
	} else {
		ret = btrfs_read_root(fs, BTRFS_EXTENT_TREE_OBJECTID, &root);
		if (ret < 0)
			return ret;
		ret = btrfs_iterate_items(root, &min, &max, extent_cb, l);
		if (!ret && !l->err && l->cursor < bg->start + bg->length)
			l->err = btrfs_range_push(&l->ranges, &l->nr, &l->cap, l->cursor,
					    bg->start + bg->length - l->cursor);
	}
	if (ret < 0)
		return ret;
	return l->err;
}

/* Free ranges of every block group whose flags are exactly of @kind's type */
static int load_free(struct btrfs_trans_handle *trans, u64 type, struct btrfs_free_range **out,
		     size_t *nr_out, size_t *cap_out)
{
	struct btrfs_alloc_ctx *ctx = &trans->alloc;
	struct space_load sl = { 0 };
	int ret;

	for (size_t i = 0; i < ctx->nr_bgs; i++) {
		struct btrfs_bg *bg = &ctx->bgs[i];

		if ((bg->flags & BTRFS_BLOCK_GROUP_TYPE_MASK) != type)
			continue;
		ret = load_bg_space(trans, bg, &sl);
		if (ret < 0)
			goto fail;
		ret = btrfs_range_cut_super(trans->fs, &sl.ranges, &sl.nr, &sl.cap, bg);
		if (ret < 0)
			goto fail;
	}
	/* never merged: a range must not cross from one block group into the next */
	btrfs_range_normalize(sl.ranges, &sl.nr, false);
	*out = sl.ranges;
	*nr_out = sl.nr;
	if (cap_out)
		*cap_out = sl.cap;
	return 0;
fail:
	free(sl.ranges);
	return ret;
}

int btrfs_alloc_init(struct btrfs_trans_handle *trans)
{
	struct btrfs_fs *fs = trans->fs;
	struct btrfs_alloc_ctx *ctx = &trans->alloc;
	struct bg_load bl = { .ctx = ctx };
	struct btrfs_key min = { 0, 0, 0 }, max = { (u64)-1, (u8)-1, (u64)-1 };
	struct btrfs_root *root;
	int ret;

	memset(ctx, 0, sizeof(*ctx));
	ctx->has_fst = btrfs_fs_has_compat_ro(fs, BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE);
	ctx->bg_tree = btrfs_fs_has_compat_ro(fs, BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE) ?
		BTRFS_BLOCK_GROUP_TREE_OBJECTID : BTRFS_EXTENT_TREE_OBJECTID;
	ret = btrfs_read_root(fs, ctx->bg_tree, &root);
	if (ret < 0)
		return ret;
	min.type = BTRFS_BLOCK_GROUP_ITEM_KEY;
	ret = btrfs_iterate_items(root, &min, &max, bg_cb, &bl);
	if (!ret)
		ret = bl.err;
	ctx->bgs_cap = bl.cap;
	if (ret < 0)
		goto fail;
	/* room for the chunks T may add: bg pointers stay valid during tree changes */
	{
		struct btrfs_bg *p = realloc(ctx->bgs, (ctx->nr_bgs + BTRFS_MAX_NEW_CHUNKS) *
					     sizeof(*p));

		if (!p) {
			ret = -ENOMEM;
			goto fail;
		}
		ctx->bgs = p;
		ctx->bgs_cap = ctx->nr_bgs + BTRFS_MAX_NEW_CHUNKS;
	}
	/* mixed DATA|METADATA block groups are never allocated from */
	ret = load_free(trans, BTRFS_BLOCK_GROUP_METADATA, &ctx->free, &ctx->nr_free,
			&ctx->free_cap);
	if (ret < 0)
		goto fail;
	ret = load_free(trans, BTRFS_BLOCK_GROUP_SYSTEM, &ctx->sys_free, &ctx->nr_sys_free, NULL);
	if (ret < 0)
		goto fail;
	/* data block groups: only the format of their entries, for frees */
	for (size_t i = 0; ctx->has_fst && i < ctx->nr_bgs; i++) {
		if (!(ctx->bgs[i].flags & BTRFS_BLOCK_GROUP_DATA))
			continue;
		ret = load_fst_format(fs, &ctx->bgs[i]);
		if (ret < 0)
			goto fail;
	}
	return 0;
fail:
	btrfs_alloc_release(ctx);
	return ret;
}

void btrfs_alloc_release(struct btrfs_alloc_ctx *ctx)
{
	for (size_t i = 0; i < ctx->nr_new_chunks; i++)
		free(ctx->new_chunks[i].fst);
	free(ctx->new_chunks);
	free(ctx->bgs);
	free(ctx->free);
	free(ctx->sys_free);
	free(ctx->data_free);
	memset(ctx, 0, sizeof(*ctx));
}

/* First fit of one nodesize-aligned block in @ranges */
static bool take_block(struct btrfs_free_range *ranges, size_t nr, u64 ns, u64 *bytenr)
{
	for (size_t i = 0; i < nr; i++) {
		struct btrfs_free_range *r = &ranges[i];
		u64 start = (r->start + ns - 1) & ~(ns - 1);
		u64 end = r->start + r->len;

		if (start + ns > end)
			continue;
		*bytenr = start;
		if (start == r->start) {
			r->start += ns;
			r->len -= ns;
		} else {
			/* the unaligned head stays unused for this transaction */
			r->len -= start + ns - r->start;
			r->start = start + ns;
		}
		return true;
	}
	return false;
}

/* A chunk too small for one block after the superblock windows: try again, a few times */
#define MAX_CHUNK_TRIES		4

int btrfs_alloc_metadata(struct btrfs_trans_handle *trans, u64 owner, u64 *bytenr)
{
	struct btrfs_alloc_ctx *ctx = &trans->alloc;
	u64 ns = trans->fs->nodesize;
	int ret;

	if (owner == BTRFS_CHUNK_TREE_OBJECTID) {
		if (take_block(ctx->sys_free, ctx->nr_sys_free, ns, bytenr))
			return 0;
		btrfs_fs_set_error(trans->fs, "chunk tree: no free space left in the system block groups (new system chunks are not implemented offline)");
		return -ENOSPC;
	}
	for (int tries = 0; tries <= MAX_CHUNK_TRIES; tries++) {
		if (take_block(ctx->free, ctx->nr_free, ns, bytenr))
			return 0;
		if (tries == MAX_CHUNK_TRIES)
			break;
		ret = btrfs_chunk_alloc_metadata(trans);
		if (ret < 0)
			return ret;
	}
	btrfs_fs_set_error(trans->fs, "no free space left in the metadata block groups");
	return -ENOSPC;
}

static int load_data_free(struct btrfs_trans_handle *trans)
{
	struct btrfs_alloc_ctx *ctx = &trans->alloc;
	int ret;

	if (ctx->data_loaded)
		return 0;
	/* read on first use: most transactions never write file data */
	ret = load_free(trans, BTRFS_BLOCK_GROUP_DATA, &ctx->data_free, &ctx->nr_data_free, NULL);
	if (ret < 0)
		return ret;
	ctx->data_loaded = true;
	return 0;
}

/* [start, start + len) of range @r taken */
static void take_range(struct btrfs_free_range *r, u64 start, u64 len)
{
	r->len -= start + len - r->start;
	r->start = start + len;
}

int btrfs_alloc_data(struct btrfs_trans_handle *trans, u64 len, u64 *bytenr)
{
	u64 got;
	int ret = btrfs_alloc_data_upto(trans, len, len, bytenr, &got);

	if (!ret && got != len)
		return -EUCLEAN;	/* cannot happen: @min is @len */
	return ret;
}

int btrfs_alloc_data_upto(struct btrfs_trans_handle *trans, u64 len, u64 min, u64 *bytenr,
			  u64 *got)
{
	struct btrfs_alloc_ctx *ctx = &trans->alloc;
	u64 ss = trans->fs->sectorsize;
	struct btrfs_free_range *best = NULL;
	u64 best_start = 0, best_len = 0;
	int ret;

	if (!len || (len & (ss - 1)) || !min || min > len || (min & (ss - 1)))
		return -EINVAL;
	ret = load_data_free(trans);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < ctx->nr_data_free; i++) {
		struct btrfs_free_range *r = &ctx->data_free[i];
		u64 start = (r->start + ss - 1) & ~(ss - 1);
		u64 room = start < r->start + r->len ? (r->start + r->len - start) & ~(ss - 1) : 0;

		if (room >= len) {
			/* first fit of the whole length */
			*bytenr = start;
			*got = len;
			take_range(r, start, len);
			return 0;
		}
		if (room >= min && !best) {
			best = r;
			best_start = start;
			best_len = room;
		}
	}
	if (best) {
		/* no room for all of it: the first range that takes @min, to its end */
		*bytenr = best_start;
		*got = best_len;
		take_range(best, best_start, best_len);
		return 0;
	}
	btrfs_fs_set_error(trans->fs, "no room for a %llu-byte data extent in the data block groups",
			   (unsigned long long)min);
	return -ENOSPC;
}

struct btrfs_bg *btrfs_bg_lookup(struct btrfs_alloc_ctx *ctx, u64 bytenr)
{
	for (size_t i = 0; i < ctx->nr_bgs; i++) {
		if (bytenr >= ctx->bgs[i].start && bytenr < ctx->bgs[i].start + ctx->bgs[i].length)
			return &ctx->bgs[i];
	}
	return NULL;
}

/* ---- free space tree updates ---- */

static int fst_adjust_count(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			    const struct btrfs_bg *bg, int delta)
{
	struct btrfs_key key = { bg->start, BTRFS_FREE_SPACE_INFO_KEY, bg->length };
	struct btrfs_path path;
	struct btrfs_free_space_info *info;
	u32 len, count;
	int ret;

	btrfs_path_init(&path);
	ret = btrfs_search_cow(trans, root, &key, &path, 0);
	if (ret) {
		btrfs_path_release(&path);
		if (ret > 0) {
			btrfs_fs_set_error(trans->fs, "free space tree: no info item for block group %llu",
					   (unsigned long long)bg->start);
			return -EUCLEAN;
		}
		return ret;
	}
	info = (struct btrfs_free_space_info *)btrfs_path_item_ptr(&path, &len);
	if (len < sizeof(*info)) {
		btrfs_path_release(&path);
		return -EUCLEAN;
	}
	count = btrfs_free_space_info_extent_count(info) + (u32)delta;
	btrfs_set_free_space_info_extent_count(info, count);
	btrfs_path_release(&path);
	return 0;
}

/*
 * The FREE_SPACE_EXTENT item with the highest start <= @start inside @bg,
 * or found = false.
 */
static int fst_find_before(struct btrfs_root *root, const struct btrfs_bg *bg, u64 start,
			   struct btrfs_key *found_key, bool *found)
{
	struct btrfs_key key = { start, BTRFS_FREE_SPACE_EXTENT_KEY, (u64)-1 };
	struct btrfs_path path;
	int ret;

	*found = false;
	btrfs_path_init(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret < 0)
		return ret;
	ret = btrfs_prev_item(root, &path);
	if (ret < 0) {
		btrfs_path_release(&path);
		return ret;
	}
	if (ret == 0) {
		btrfs_path_item_key(&path, found_key);
		if (found_key->type == BTRFS_FREE_SPACE_EXTENT_KEY &&
		    found_key->objectid >= bg->start)
			*found = true;
	}
	btrfs_path_release(&path);
	return 0;
}

/* Key of the FREE_SPACE_BITMAP item of @bg covering @addr */
static int bitmap_find(struct btrfs_root *root, const struct btrfs_bg *bg, u64 addr,
		       struct btrfs_key *found_key)
{
	struct btrfs_key key = { addr, BTRFS_FREE_SPACE_BITMAP_KEY, (u64)-1 };
	struct btrfs_path path;
	int ret;

	btrfs_path_init(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret < 0)
		return ret;
	ret = btrfs_prev_item(root, &path);
	if (ret == 0)
		btrfs_path_item_key(&path, found_key);
	btrfs_path_release(&path);
	if (ret < 0)
		return ret;
	if (ret > 0 || found_key->type != BTRFS_FREE_SPACE_BITMAP_KEY ||
	    found_key->objectid < bg->start || addr >= found_key->objectid + found_key->offset)
		return -ENOENT;
	return 0;
}

/* Whether the sector at @addr is free (false outside @bg) */
static int bitmap_test(struct btrfs_fs *fs, struct btrfs_root *root, const struct btrfs_bg *bg,
		       u64 addr, bool *free_out)
{
	struct btrfs_key key;
	const u8 *bits;
	u64 bit;
	u32 len;
	int ret;

	*free_out = false;
	if (addr < bg->start || addr >= bg->start + bg->length)
		return 0;
	ret = bitmap_find(root, bg, addr, &key);
	if (ret == -ENOENT)
		return 0;
	if (ret < 0)
		return ret;
	{
		struct btrfs_path path;

		btrfs_path_init(&path);
		ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
		if (ret) {
			btrfs_path_release(&path);
			return ret < 0 ? ret : -EUCLEAN;
		}
		bits = btrfs_path_item_data(&path, &len);
		bit = (addr - key.objectid) / fs->sectorsize;
		if (bit / 8 < len)
			*free_out = (bits[bit / 8] >> (bit % 8)) & 1;
		btrfs_path_release(&path);
	}
	return 0;
}

/*
 * Set (@free) or clear the bits of [@start, @start + @len), which must all
 * be in the opposite state; adjust extent_count by the runs split or merged
 */
static int bitmap_update(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			 struct btrfs_bg *bg, u64 start, u64 len, bool free)
{
	struct btrfs_fs *fs = trans->fs;
	u64 ss = fs->sectorsize;
	struct btrfs_key key;
	struct btrfs_path path;
	bool prev, next;
	u32 size;
	u8 *bits;
	int delta, ret;

	ret = bitmap_test(fs, root, bg, start - ss, &prev);
	if (!ret)
		ret = bitmap_test(fs, root, bg, start + len, &next);
	if (!ret)
		ret = bitmap_find(root, bg, start, &key);
	if (ret == -ENOENT || (!ret && start + len > key.objectid + key.offset)) {
		btrfs_fs_set_error(fs, "free space tree: no bitmap covers %llu+%llu",
				   (unsigned long long)start, (unsigned long long)len);
		return -EUCLEAN;
	}
	if (ret < 0)
		return ret;
	btrfs_path_init(&path);
	ret = btrfs_search_cow(trans, root, &key, &path, 0);
	if (ret) {
		btrfs_path_release(&path);
		return ret < 0 ? ret : -EUCLEAN;
	}
	bits = btrfs_path_item_ptr(&path, &size);
	for (u64 a = start; a < start + len; a += ss) {
		u64 bit = (a - key.objectid) / ss;
		u8 mask = (u8)(1U << (bit % 8));

		if (bit / 8 >= size || !!(bits[bit / 8] & mask) == free) {
			btrfs_path_release(&path);
			btrfs_fs_set_error(fs, "free space tree: range %llu+%llu is %s",
					   (unsigned long long)start, (unsigned long long)len,
					   free ? "already free" : "not free");
			return -EUCLEAN;
		}
		if (free)
			bits[bit / 8] |= mask;
		else
			bits[bit / 8] &= (u8)~mask;
	}
	btrfs_path_release(&path);
	if (prev && next)
		delta = free ? -1 : 1;
	else if (!prev && !next)
		delta = free ? 1 : -1;
	else
		delta = 0;
	return delta ? fst_adjust_count(trans, root, bg, delta) : 0;
}

int btrfs_fst_remove(struct btrfs_trans_handle *trans, u64 start, u64 len)
{
	struct btrfs_fs *fs = trans->fs;
	struct btrfs_bg *bg = btrfs_bg_lookup(&trans->alloc, start);
	struct btrfs_root *root;
	struct btrfs_key key, piece;
	bool found;
	u64 end = start + len, kend;
	int delta = -1;
	int ret;

	if (!bg)
		return -EUCLEAN;
	ret = btrfs_chunk_fst_pending(trans, bg, start, len, false);
	if (ret)
		return ret < 0 ? ret : 0;
	ret = btrfs_read_root(fs, BTRFS_FREE_SPACE_TREE_OBJECTID, &root);
	if (ret < 0)
		return ret;
	if (bg->fst_bitmaps)
		return bitmap_update(trans, root, bg, start, len, false);
	ret = fst_find_before(root, bg, start, &key, &found);
	if (ret < 0)
		return ret;
	kend = key.objectid + key.offset;
	if (!found || kend < end) {
		btrfs_fs_set_error(fs, "free space tree: range %llu+%llu is not free",
				   (unsigned long long)start, (unsigned long long)len);
		return -EUCLEAN;
	}
	ret = btrfs_delete_key(trans, root, &key);
	if (ret < 0)
		return ret;
	if (key.objectid < start) {
		piece = (struct btrfs_key){ key.objectid, BTRFS_FREE_SPACE_EXTENT_KEY,
					    start - key.objectid };
		ret = btrfs_insert_item(trans, root, &piece, NULL, 0);
		if (ret < 0)
			return ret;
		delta++;
	}
	if (kend > end) {
		piece = (struct btrfs_key){ end, BTRFS_FREE_SPACE_EXTENT_KEY, kend - end };
		ret = btrfs_insert_item(trans, root, &piece, NULL, 0);
		if (ret < 0)
			return ret;
		delta++;
	}
	return delta ? fst_adjust_count(trans, root, bg, delta) : 0;
}

int btrfs_fst_add(struct btrfs_trans_handle *trans, u64 start, u64 len)
{
	struct btrfs_fs *fs = trans->fs;
	struct btrfs_bg *bg = btrfs_bg_lookup(&trans->alloc, start);
	struct btrfs_root *root;
	struct btrfs_key prev, next, key;
	struct btrfs_path path;
	bool found;
	u64 new_start = start, new_end = start + len;
	int delta = 1;
	int ret;

	if (!bg)
		return -EUCLEAN;
	ret = btrfs_chunk_fst_pending(trans, bg, start, len, true);
	if (ret)
		return ret < 0 ? ret : 0;
	ret = btrfs_read_root(fs, BTRFS_FREE_SPACE_TREE_OBJECTID, &root);
	if (ret < 0)
		return ret;
	if (bg->fst_bitmaps)
		return bitmap_update(trans, root, bg, start, len, true);
	ret = fst_find_before(root, bg, start, &prev, &found);
	if (ret < 0)
		return ret;
	if (found && prev.objectid + prev.offset > start) {
		btrfs_fs_set_error(fs, "free space tree: range %llu+%llu is already free",
				   (unsigned long long)start, (unsigned long long)len);
		return -EUCLEAN;
	}
	if (found && prev.objectid + prev.offset == start) {
		ret = btrfs_delete_key(trans, root, &prev);
		if (ret < 0)
			return ret;
		new_start = prev.objectid;
		delta--;
	}
	/* the next free extent, if it starts right at our end */
	key = (struct btrfs_key){ new_end, BTRFS_FREE_SPACE_EXTENT_KEY, 0 };
	btrfs_path_init(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret >= 0)
		ret = btrfs_valid_slot(root, &path);
	if (ret < 0) {
		btrfs_path_release(&path);
		return ret;
	}
	found = false;
	if (ret == 0) {
		btrfs_path_item_key(&path, &next);
		found = next.type == BTRFS_FREE_SPACE_EXTENT_KEY && next.objectid == new_end &&
			next.objectid + next.offset <= bg->start + bg->length;
	}
	btrfs_path_release(&path);
	if (found) {
		ret = btrfs_delete_key(trans, root, &next);
		if (ret < 0)
			return ret;
		new_end = next.objectid + next.offset;
		delta--;
	}
	key = (struct btrfs_key){ new_start, BTRFS_FREE_SPACE_EXTENT_KEY, new_end - new_start };
	ret = btrfs_insert_item(trans, root, &key, NULL, 0);
	if (ret < 0)
		return ret;
	return delta ? fst_adjust_count(trans, root, bg, delta) : 0;
}

struct stale_scan {
	struct btrfs_alloc_ctx *ctx;
	struct btrfs_key *keys;
	size_t nr, cap;
	int err;
};

static int stale_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct stale_scan *st = priv;
	struct btrfs_bg *bg;

	if (key->type != BTRFS_FREE_SPACE_INFO_KEY && key->type != BTRFS_FREE_SPACE_EXTENT_KEY &&
	    key->type != BTRFS_FREE_SPACE_BITMAP_KEY)
		return 0;
	bg = btrfs_bg_lookup(st->ctx, key->objectid);
	if (bg && key->objectid + key->offset <= bg->start + bg->length &&
	    (key->type != BTRFS_FREE_SPACE_INFO_KEY ||
	     (key->objectid == bg->start && key->offset == bg->length)))
		return 0;
	if (st->nr == st->cap) {
		size_t ncap = st->cap ? st->cap * 2 : 8;
		struct btrfs_key *p = realloc(st->keys, ncap * sizeof(*p));

		if (!p) {
			st->err = -ENOMEM;
			return 1;
		}
		st->keys = p;
		st->cap = ncap;
	}
	st->keys[st->nr++] = *key;
	return 0;
}

int btrfs_fst_drop_stale(struct btrfs_trans_handle *trans)
{
	struct btrfs_key min = { 0, 0, 0 }, max = { (u64)-1, (u8)-1, (u64)-1 };
	struct stale_scan st = { .ctx = &trans->alloc };
	struct btrfs_root *root;
	int ret;

	if (!trans->alloc.has_fst)
		return 0;
	ret = btrfs_read_root(trans->fs, BTRFS_FREE_SPACE_TREE_OBJECTID, &root);
	if (ret < 0)
		return ret;
	ret = btrfs_iterate_items(root, &min, &max, stale_cb, &st);
	if (!ret)
		ret = st.err;
	for (size_t i = 0; i < st.nr && !ret; i++)
		ret = btrfs_delete_key(trans, root, &st.keys[i]);
	free(st.keys);
	return ret < 0 ? ret : (int)st.nr;
}
