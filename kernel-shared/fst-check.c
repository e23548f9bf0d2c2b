// SPDX-License-Identifier: GPL-2.0-only
/*
 * Free space tree verification (see fst-check.h for what is checked).
 *
 * Block group by block group, in logical order: the free space tree items
 * of the key range [start, end) are read into a sorted list of free ranges
 * (bitmaps expanded into their runs), the extent tree items of the same
 * range into a list of allocated ranges, and the two compared after the
 * superblock windows are cut out of both.  The key ranges between block
 * groups hold no valid item: whatever is found there is stale.  Every
 * length comes from a key the tree-checker has seen, and is still clipped
 * to its block group and to the item's size before it is used.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fs.h"
#include "ctree.h"
#include "volumes.h"
#include "fst-check.h"

/* [start, end), end exclusive */
struct fst_range {
	u64 start, end;
};

/* A sorted list of disjoint, non-adjacent ranges */
struct fst_rlist {
	struct fst_range *r;
	size_t nr, cap;
};

struct fst_bg {
	u64 start, length;
};

struct fst_ctx {
	struct btrfs_fs *fs;
	btrfs_fst_problem_cb cb;
	void *priv;
	struct btrfs_fst_stats *st;
	int err;			/* <0 an error, >0 what the callback returned */
	/* the block group being read */
	u64 bg_start, bg_end;
	bool have_info, bitmaps, format_reported, have_prev, prev_extent, run_open;
	u32 info_count;
	u64 counted, prev_end;
	struct fst_rlist free, used, super, tmp[4];
	/* the stale items found so far in a key range between block groups */
	bool stale_pending;
	u64 stale_end;
	struct btrfs_fst_problem stale;
	/* block groups, in logical order */
	struct fst_bg *bgs;
	size_t nr_bgs, cap_bgs;
};

/* Append [start, end) to a list sorted by start, merging what touches the last range */
static int rl_push(struct fst_rlist *l, u64 start, u64 end)
{
	if (start >= end)
		return 0;
	if (l->nr && start <= l->r[l->nr - 1].end) {
		if (end > l->r[l->nr - 1].end)
			l->r[l->nr - 1].end = end;
		return 0;
	}
	if (l->nr == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 64;
		struct fst_range *p = realloc(l->r, ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		l->r = p;
		l->cap = ncap;
	}
	l->r[l->nr].start = start;
	l->r[l->nr].end = end;
	l->nr++;
	return 0;
}

/* @out = @a minus @b (all sorted and disjoint); linear in the lengths of both */
static int rl_diff(const struct fst_rlist *a, const struct fst_rlist *b, struct fst_rlist *out)
{
	size_t j = 0;
	int ret;

	out->nr = 0;
	for (size_t i = 0; i < a->nr; i++) {
		u64 s = a->r[i].start, e = a->r[i].end;
		size_t k;

		while (j < b->nr && b->r[j].end <= s)
			j++;
		for (k = j; s < e && k < b->nr && b->r[k].start < e; k++) {
			if (b->r[k].start > s) {
				ret = rl_push(out, s, b->r[k].start);
				if (ret)
					return ret;
			}
			if (b->r[k].end > s)
				s = b->r[k].end;
		}
		if (s < e) {
			ret = rl_push(out, s, e);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int report(struct fst_ctx *c, struct btrfs_fst_problem *p)
{
	int ret;

	c->st->problems++;
	ret = c->cb ? c->cb(c->priv, p) : 0;
	if (ret)
		c->err = ret;
	return ret;
}

/* A finding about the block group being read; 1 when the scan must stop */
static int bg_report(struct fst_ctx *c, enum btrfs_fst_kind kind, const struct btrfs_key *key)
{
	struct btrfs_fst_problem p = {
		.kind = kind,
		.bg_start = c->bg_start,
		.bg_length = c->bg_end - c->bg_start,
		.start = key ? key->objectid : 0,
		.length = key ? key->offset : 0,
		.type = key ? key->type : 0,
		.bitmaps = c->bitmaps,
	};

	return report(c, &p) ? 1 : 0;
}

/* The free runs of one bitmap item, counted the kernel's way */
static int read_bitmap(struct fst_ctx *c, u64 start, u64 end, const u8 *bits, u32 len)
{
	u64 ss = c->fs->sectorsize, nbits = (end - start) / ss, run_start = 0;
	bool in_run = false;
	int ret;

	if (nbits > (u64)len * 8)
		nbits = (u64)len * 8;
	for (u64 i = 0; i < nbits; i++) {
		bool set = (bits[i / 8] >> (i % 8)) & 1;

		if (set && !in_run) {
			/* a run the previous bitmap ended with goes on */
			if (!(i == 0 && c->run_open && c->prev_end == start))
				c->counted++;
			run_start = start + i * ss;
			in_run = true;
		} else if (!set && in_run) {
			ret = rl_push(&c->free, run_start, start + i * ss);
			if (ret)
				return ret;
			in_run = false;
		}
	}
	c->run_open = in_run;
	return in_run ? rl_push(&c->free, run_start, start + nbits * ss) : 0;
}

static int info_item(struct fst_ctx *c, const struct btrfs_key *key, const void *data, u32 len)
{
	const struct btrfs_free_space_info *info = data;

	if (c->have_info || key->objectid != c->bg_start ||
	    key->offset != c->bg_end - c->bg_start || len < sizeof(*info))
		return bg_report(c, BTRFS_FST_BAD_INFO, key);
	c->have_info = true;
	c->bitmaps = btrfs_free_space_info_flags(info) & BTRFS_FREE_SPACE_USING_BITMAPS;
	c->info_count = btrfs_free_space_info_extent_count(info);
	return 0;
}

static int bg_item_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct fst_ctx *c = priv;
	bool bitmap = key->type == BTRFS_FREE_SPACE_BITMAP_KEY;
	u64 end = key->objectid + key->offset;
	int ret;

	if (key->type == BTRFS_FREE_SPACE_INFO_KEY)
		return info_item(c, key, data, len);
	if (key->type != BTRFS_FREE_SPACE_EXTENT_KEY && !bitmap)
		return bg_report(c, BTRFS_FST_UNEXPECTED, key);
	if (bitmap)
		c->st->bitmaps++;
	else
		c->st->extents++;
	if (c->have_info && bitmap != c->bitmaps && !c->format_reported) {
		c->format_reported = true;
		if (bg_report(c, BTRFS_FST_FORMAT, key))
			return 1;
	}
	if (end < key->objectid || end > c->bg_end) {
		if (bg_report(c, BTRFS_FST_BEYOND, key))
			return 1;
		end = c->bg_end;
	}
	if (c->have_prev && key->objectid < c->prev_end) {
		if (bg_report(c, BTRFS_FST_OVERLAP, key))
			return 1;
	} else if (c->have_prev && !bitmap && c->prev_extent && key->objectid == c->prev_end) {
		if (bg_report(c, BTRFS_FST_UNMERGED, key))
			return 1;
	}
	if (bitmap) {
		ret = read_bitmap(c, key->objectid, end, data, len);
	} else {
		c->counted++;
		c->run_open = false;
		ret = rl_push(&c->free, key->objectid, end);
	}
	if (ret) {
		c->err = ret;
		return 1;
	}
	if (!c->have_prev || end > c->prev_end)
		c->prev_end = end;
	c->have_prev = true;
	c->prev_extent = !bitmap;
	return 0;
}

static int used_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct fst_ctx *c = priv;
	u64 end;
	int ret;

	if (key->type == BTRFS_EXTENT_ITEM_KEY)
		end = key->objectid + key->offset;
	else if (key->type == BTRFS_METADATA_ITEM_KEY)
		end = key->objectid + c->fs->nodesize;
	else
		return 0;
	if (end < key->objectid || end > c->bg_end)
		end = c->bg_end;
	ret = rl_push(&c->used, key->objectid, end);
	if (ret) {
		c->err = ret;
		return 1;
	}
	return 0;
}

static int range_cmp(const void *a, const void *b)
{
	const struct fst_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Add [start, start + len) clipped to the block group, unsorted */
static int super_add(struct fst_ctx *c, struct fst_rlist *raw, u64 start, u64 len)
{
	u64 end = start + len;

	if (start < c->bg_start)
		start = c->bg_start;
	if (end > c->bg_end || end < start)
		end = c->bg_end;
	if (start >= end)
		return 0;
	if (raw->nr == raw->cap) {
		size_t ncap = raw->cap ? raw->cap * 2 : 16;
		struct fst_range *p = realloc(raw->r, ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		raw->r = p;
		raw->cap = ncap;
	}
	raw->r[raw->nr++] = (struct fst_range){ start, end };
	return 0;
}

/*
 * The logical windows of the block group that hold a superblock copy on
 * some device, as the kernel excludes them: for each copy inside a
 * stripe's device extent, the whole stripe-length window (a full row for
 * RAID5/6) it falls in.
 */
static int super_windows(struct fst_ctx *c)
{
	const struct btrfs_chunk_map *map = btrfs_chunk_map_lookup(c->fs, c->bg_start);
	struct fst_rlist *raw = &c->tmp[3];
	u64 p, dev_len, rmap_len;
	int ret;

	c->super.nr = 0;
	raw->nr = 0;
	if (c->bg_start < BTRFS_SUPER_INFO_OFFSET) {
		ret = super_add(c, raw, c->bg_start, BTRFS_SUPER_INFO_OFFSET - c->bg_start);
		if (ret)
			return ret;
	}
	if (!map || !map->num_stripes || !map->stripe_len)
		goto sort;
	p = map->type & BTRFS_BLOCK_GROUP_PROFILE_MASK;
	dev_len = map->length;
	rmap_len = map->stripe_len;
	if (p & BTRFS_BLOCK_GROUP_RAID10) {
		if (!map->sub_stripes || map->num_stripes < map->sub_stripes)
			goto sort;
		dev_len = map->length / (map->num_stripes / map->sub_stripes);
	} else if (p & BTRFS_BLOCK_GROUP_RAID0) {
		dev_len = map->length / map->num_stripes;
	} else if (p & (BTRFS_BLOCK_GROUP_RAID5 | BTRFS_BLOCK_GROUP_RAID6)) {
		u16 parity = p & BTRFS_BLOCK_GROUP_RAID5 ? 1 : 2;

		if (map->num_stripes <= parity)
			goto sort;
		dev_len = map->length / (map->num_stripes - parity);
		rmap_len = map->stripe_len * (map->num_stripes - parity);
	}
	for (int m = 0; m < BTRFS_SUPER_MIRROR_MAX; m++) {
		u64 phys = btrfs_sb_offset(m);

		for (u16 i = 0; i < map->num_stripes; i++) {
			u64 pstart = map->stripes[i].physical, nr;

			if (pstart > phys || phys - pstart >= dev_len)
				continue;
			nr = (phys - pstart) / map->stripe_len;
			if (p & BTRFS_BLOCK_GROUP_RAID10)
				nr = (nr * map->num_stripes + i) / map->sub_stripes;
			else if (p & BTRFS_BLOCK_GROUP_RAID0)
				nr = nr * map->num_stripes + i;
			ret = super_add(c, raw, map->start + nr * rmap_len, rmap_len);
			if (ret)
				return ret;
		}
	}
sort:
	if (raw->nr)
		qsort(raw->r, raw->nr, sizeof(*raw->r), range_cmp);
	for (size_t i = 0; i < raw->nr; i++) {
		ret = rl_push(&c->super, raw->r[i].start, raw->r[i].end);
		if (ret)
			return ret;
	}
	return 0;
}

/* Report each range of @l as @kind; 1 when the callback stopped */
static int report_ranges(struct fst_ctx *c, const struct fst_rlist *l, enum btrfs_fst_kind kind)
{
	for (size_t i = 0; i < l->nr; i++) {
		struct btrfs_key key = { l->r[i].start, 0, l->r[i].end - l->r[i].start };

		if (bg_report(c, kind, &key))
			return 1;
	}
	return 0;
}

/* Free space of the tree against the complement of the extent tree, outside the windows */
static int compare_space(struct fst_ctx *c)
{
	struct fst_rlist whole = { &(struct fst_range){ c->bg_start, c->bg_end }, 1, 1 };
	struct fst_rlist *expect = &c->tmp[0], *have = &c->tmp[1], *d = &c->tmp[2];
	int ret;

	ret = super_windows(c);
	if (!ret)
		ret = rl_diff(&whole, &c->used, d);
	if (!ret)
		ret = rl_diff(d, &c->super, expect);
	if (!ret)
		ret = rl_diff(&c->free, &c->super, have);
	if (!ret)
		ret = rl_diff(have, expect, d);
	if (ret)
		return ret;
	if (report_ranges(c, d, BTRFS_FST_FREE_ALLOCATED))
		return c->err;
	ret = rl_diff(expect, have, d);
	if (ret)
		return ret;
	if (report_ranges(c, d, BTRFS_FST_NOT_FREE))
		return c->err;
	return 0;
}

static int check_bg(struct fst_ctx *c, struct btrfs_root *fst, struct btrfs_root *extent,
		    const struct fst_bg *bg)
{
	struct btrfs_key min = { bg->start, 0, 0 };
	struct btrfs_key max = { bg->start + bg->length - 1, (u8)-1, (u64)-1 };
	struct btrfs_fst_problem p;
	int ret;

	c->bg_start = bg->start;
	c->bg_end = bg->start + bg->length;
	c->have_info = c->bitmaps = c->format_reported = false;
	c->have_prev = c->prev_extent = c->run_open = false;
	c->info_count = 0;
	c->counted = c->prev_end = 0;
	c->free.nr = c->used.nr = 0;
	c->st->block_groups++;
	ret = btrfs_iterate_items(fst, &min, &max, bg_item_cb, c);
	if (ret || c->err)
		return ret ? ret : c->err;
	if (!c->have_info) {
		if (bg_report(c, BTRFS_FST_NO_INFO, NULL))
			return c->err;
	} else if (c->counted != c->info_count) {
		p = (struct btrfs_fst_problem){
			.kind = BTRFS_FST_COUNT, .bg_start = c->bg_start, .bg_length = bg->length,
			.start = bg->start, .length = bg->length, .type = BTRFS_FREE_SPACE_INFO_KEY,
			.recorded = c->info_count, .counted = c->counted, .bitmaps = c->bitmaps,
		};
		if (report(c, &p))
			return c->err;
	}
	ret = btrfs_iterate_items(extent, &min, &max, used_cb, c);
	if (ret || c->err)
		return ret ? ret : c->err;
	return compare_space(c);
}

static int stale_flush(struct fst_ctx *c)
{
	if (!c->stale_pending)
		return 0;
	c->stale_pending = false;
	return report(c, &c->stale);
}

/* Items in a key range no block group covers; those after a stale info item are its own */
static int stale_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct fst_ctx *c = priv;

	if (c->stale_pending && key->type != BTRFS_FREE_SPACE_INFO_KEY &&
	    c->stale.type == BTRFS_FREE_SPACE_INFO_KEY && key->objectid >= c->stale.start &&
	    key->objectid < c->stale_end) {
		c->stale.counted++;
		return 0;
	}
	if (stale_flush(c))
		return 1;
	c->stale = (struct btrfs_fst_problem){
		.kind = BTRFS_FST_STALE, .start = key->objectid, .length = key->offset,
		.type = key->type, .counted = 1,
	};
	c->stale_end = key->objectid + key->offset;
	if (c->stale_end < key->objectid)
		c->stale_end = (u64)-1;
	c->stale_pending = true;
	return 0;
}

static int check_gap(struct fst_ctx *c, struct btrfs_root *fst, u64 start, u64 last)
{
	struct btrfs_key min = { start, 0, 0 }, max = { last, (u8)-1, (u64)-1 };
	int ret;

	ret = btrfs_iterate_items(fst, &min, &max, stale_cb, c);
	if (ret || c->err)
		return ret ? ret : c->err;
	return stale_flush(c);
}

static int bg_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct fst_ctx *c = priv;

	if (key->type != BTRFS_BLOCK_GROUP_ITEM_KEY || !key->offset ||
	    key->objectid + key->offset < key->objectid)
		return 0;
	if (c->nr_bgs == c->cap_bgs) {
		size_t ncap = c->cap_bgs ? c->cap_bgs * 2 : 64;
		struct fst_bg *p = realloc(c->bgs, ncap * sizeof(*p));

		if (!p) {
			c->err = -ENOMEM;
			return 1;
		}
		c->bgs = p;
		c->cap_bgs = ncap;
	}
	c->bgs[c->nr_bgs++] = (struct fst_bg){ key->objectid, key->offset };
	return 0;
}

static int load_bgs(struct fst_ctx *c, struct btrfs_root *extent)
{
	struct btrfs_key min = { 0, 0, 0 }, max = { (u64)-1, (u8)-1, (u64)-1 };
	struct btrfs_root *root = extent;
	int ret;

	if (btrfs_fs_has_compat_ro(c->fs, BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE)) {
		ret = btrfs_read_root(c->fs, BTRFS_BLOCK_GROUP_TREE_OBJECTID, &root);
		if (ret)
			return ret;
	}
	ret = btrfs_iterate_items(root, &min, &max, bg_cb, c);
	return ret ? ret : c->err;
}

static int run(struct fst_ctx *c)
{
	struct btrfs_root *fst, *extent;
	u64 next = 0;
	int ret;

	ret = btrfs_read_root(c->fs, BTRFS_EXTENT_TREE_OBJECTID, &extent);
	if (ret)
		return ret;
	ret = btrfs_read_root(c->fs, BTRFS_FREE_SPACE_TREE_OBJECTID, &fst);
	if (ret == -ENOENT) {
		btrfs_fs_set_error(c->fs, "free space tree: the feature is set but tree 10 does not exist");
		return -EUCLEAN;
	}
	if (ret)
		return ret;
	ret = load_bgs(c, extent);
	if (ret)
		return ret;
	for (size_t i = 0; i < c->nr_bgs; i++) {
		const struct fst_bg *bg = &c->bgs[i];

		if (bg->start > next) {
			ret = check_gap(c, fst, next, bg->start - 1);
			if (ret)
				return ret;
		}
		ret = check_bg(c, fst, extent, bg);
		if (ret)
			return ret;
		if (bg->start + bg->length > next)
			next = bg->start + bg->length;
	}
	/* after the last block group (none: the whole tree is stale) */
	if (next || !c->nr_bgs)
		return check_gap(c, fst, next, (u64)-1);
	return 0;
}

int btrfs_fst_check(struct btrfs_fs *fs, btrfs_fst_problem_cb cb, void *priv,
		    struct btrfs_fst_stats *st)
{
	struct fst_ctx c = { .fs = fs, .cb = cb, .priv = priv, .st = st };
	int ret;

	memset(st, 0, sizeof(*st));
	if (!btrfs_fs_has_compat_ro(fs, BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE)) {
		st->state = BTRFS_FST_STATE_ABSENT;
		return 0;
	}
	/* checked all the same: the findings are what the kernel will throw away */
	st->state = btrfs_fs_has_compat_ro(fs, BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE_VALID) ?
		BTRFS_FST_STATE_CHECKED : BTRFS_FST_STATE_NOT_VALID;
	ret = run(&c);
	free(c.free.r);
	free(c.used.r);
	free(c.super.r);
	for (size_t i = 0; i < 4; i++)
		free(c.tmp[i].r);
	free(c.bgs);
	return ret;
}
