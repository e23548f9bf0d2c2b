// SPDX-License-Identifier: GPL-2.0-only
/*
 * New METADATA chunks in an offline transaction (see chunk-alloc.h).
 *
 * Facts from the kernel (fs/btrfs/volumes.c btrfs_create_chunk(),
 * gather_device_info(), decide_stripe_size_regular(), find_free_dev_extent();
 * space-info.c calc_chunk_size(); block-group.c btrfs_make_block_group();
 * free-space-tree.c add_block_group_free_space()):
 * - metadata chunk size 256 MiB (1 GiB when the writable devices hold more
 *   than 50 GiB), capped at 10% of the writable bytes; a device extent is
 *   never larger than 1 GiB;
 * - the device search asks for the uncapped size times the stripes per
 *   device (DUP: both copies in one hole, one after the other), takes the
 *   first hole that big from 1 MiB on, else the largest hole; a hole under
 *   64 KiB per stripe does not count;
 * - devices (gather_device_info()): every member with at least 64 KiB
 *   per stripe unallocated and in its hole, sorted by hole size, then
 *   unallocated bytes (the kernel's sort is not stable: equal devices are
 *   taken here by devid); the count rounded down to devs_increment, at
 *   least devs_min (else ENOSPC), at most devs_max (btrfs_raid_array);
 * - the stripe is the smallest chosen hole divided by the stripes per
 *   device; when stripe * data stripes (stripes / ncopies) exceeds the cap,
 *   it becomes cap / data stripes rounded up to 16 MiB if that is smaller;
 *   at most 1 GiB, rounded down to 64 KiB; the chunk is stripe * data
 *   stripes long;
 * - the logical start is the end of the last chunk.
 * Like the kernel, the free space tree gets the new block group as one free
 * extent, superblock copies included: readers (the kernel, btrfs check)
 * exclude those windows themselves, and btrfs check 6.2 reports a window
 * left out of the tree as missing free space.  Only the allocator's own
 * free ranges leave them out.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fs.h"
#include "ctree.h"
#include "ctree-write.h"
#include "volumes.h"
#include "transaction.h"
#include "alloc.h"
#include "alloc-internal.h"
#include "chunk-alloc.h"

#define SZ_1M			(1ULL << 20)
#define SZ_16M			(16ULL << 20)
#define SZ_256M			(256ULL << 20)
#define SZ_1G			(1ULL << 30)
#define DEVICE_RANGE_RESERVED	SZ_1M	/* the kernel never allocates below 1 MiB */

static const char *dev_name(const struct btrfs_device *dev)
{
	return dev->io && dev->io->name[0] ? dev->io->name : "(unknown)";
}

/*
 * Per-profile stripe rules (the kernel's btrfs_raid_array, 6.x values):
 * devs_max 0 means as many devices as have room.
 */
struct profile_rules {
	u64 flag;
	u16 sub_stripes;
	u16 dev_stripes;	/* stripes on one device */
	u16 devs_max;
	u16 devs_min;
	u16 devs_increment;
	u16 ncopies;
};

static const struct profile_rules profile_table[] = {
	{ 0,				1, 1, 1, 1, 1, 1 },	/* SINGLE */
	{ BTRFS_BLOCK_GROUP_DUP,	1, 2, 1, 1, 1, 2 },
	{ BTRFS_BLOCK_GROUP_RAID0,	1, 1, 0, 1, 1, 1 },
	{ BTRFS_BLOCK_GROUP_RAID1,	1, 1, 2, 2, 2, 2 },
	{ BTRFS_BLOCK_GROUP_RAID1C3,	1, 1, 3, 3, 3, 3 },
	{ BTRFS_BLOCK_GROUP_RAID1C4,	1, 1, 4, 4, 4, 4 },
	{ BTRFS_BLOCK_GROUP_RAID10,	2, 1, 0, 2, 2, 2 },
};

static const struct profile_rules *rules_of(u64 profile)
{
	for (size_t i = 0; i < sizeof(profile_table) / sizeof(profile_table[0]); i++)
		if (profile_table[i].flag == profile)
			return &profile_table[i];
	return NULL;	/* RAID5/6: parity stripes are not written offline */
}

/* Profile bits of the new chunk, from the existing METADATA block groups */
static int pick_profile(struct btrfs_trans_handle *trans, u64 *profile)
{
	struct btrfs_alloc_ctx *ctx = &trans->alloc;
	struct btrfs_fs *fs = trans->fs;
	bool found = false;

	for (size_t i = 0; i < ctx->nr_bgs; i++) {
		u64 flags = ctx->bgs[i].flags;

		if ((flags & BTRFS_BLOCK_GROUP_METADATA) && (flags & BTRFS_BLOCK_GROUP_DATA)) {
			btrfs_fs_set_error(fs, "mixed data and metadata block groups: new chunks are not implemented offline yet");
			return -EOPNOTSUPP;
		}
		if (!(flags & BTRFS_BLOCK_GROUP_METADATA))
			continue;
		/* the newest block group wins, as after a profile conversion */
		*profile = flags & BTRFS_BLOCK_GROUP_PROFILE_MASK;
		found = true;
	}
	if (!found) {
		btrfs_fs_set_error(fs, "no metadata block group to take the profile of a new chunk from");
		return -EUCLEAN;
	}
	if (!rules_of(*profile)) {
		btrfs_fs_set_error(fs, "metadata block groups: %s profile, new chunks are not implemented offline yet",
				   btrfs_profile_name(*profile));
		return -EOPNOTSUPP;
	}
	return 0;
}

struct dev_ranges {
	struct btrfs_fs *fs;
	u64 devid;
	struct btrfs_free_range *used;
	size_t nr, cap;
	int err;
};

static int dev_extent_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct dev_ranges *d = priv;
	const struct btrfs_dev_extent *de = data;
	u64 length;

	if (key->objectid != d->devid || key->type != BTRFS_DEV_EXTENT_KEY)
		return 0;
	if (len < sizeof(*de)) {
		d->err = -EUCLEAN;
		btrfs_fs_set_error(d->fs, "dev extent %llu: item too short",
				   (unsigned long long)key->offset);
		return 1;
	}
	length = btrfs_dev_extent_length(de);
	if (!length || key->offset + length < key->offset) {
		d->err = -EUCLEAN;
		btrfs_fs_set_error(d->fs, "dev extent %llu: invalid length %llu",
				   (unsigned long long)key->offset, (unsigned long long)length);
		return 1;
	}
	d->err = btrfs_range_push(&d->used, &d->nr, &d->cap, key->offset, length);
	return d->err ? 1 : 0;
}

/*
 * The kernel's hole search on @dev: the first hole of at least @want bytes,
 * else the largest one; *@avail is the whole size of the hole taken (the
 * first big enough hole is also the largest seen so far).
 */
static int find_dev_hole(struct btrfs_trans_handle *trans, struct btrfs_device *dev, u64 want,
			 u64 *hole_start, u64 *avail)
{
	struct btrfs_fs *fs = trans->fs;
	struct btrfs_alloc_ctx *ctx = &trans->alloc;
	struct dev_ranges d = { .fs = fs, .devid = dev->devid };
	struct btrfs_key min = { dev->devid, BTRFS_DEV_EXTENT_KEY, 0 };
	struct btrfs_key max = { dev->devid, BTRFS_DEV_EXTENT_KEY, (u64)-1 };
	struct btrfs_root *root;
	u64 cursor = DEVICE_RANGE_RESERVED, end = dev->total_bytes;
	u64 best_start = cursor, best = 0;
	int ret;

	ret = btrfs_read_root(fs, BTRFS_DEV_TREE_OBJECTID, &root);
	if (ret < 0)
		return ret;
	ret = btrfs_iterate_items(root, &min, &max, dev_extent_cb, &d);
	if (!ret)
		ret = d.err;
	/*
	 * Extents of chunks made earlier in this transaction may not be in
	 * the tree yet (or be half inserted): all of them count, overlaps merge.
	 */
	for (size_t i = 0; i < ctx->nr_new_chunks && !ret; i++) {
		const struct btrfs_new_chunk *nc = &ctx->new_chunks[i];

		for (u16 s = 0; s < nc->num_stripes && !ret; s++)
			if (nc->devid[s] == dev->devid)
				ret = btrfs_range_push(&d.used, &d.nr, &d.cap, nc->physical[s],
						       nc->stripe_size);
	}
	if (ret < 0) {
		free(d.used);
		return ret;
	}
	btrfs_range_normalize(d.used, &d.nr, true);
	for (size_t i = 0; i <= d.nr; i++) {
		u64 next = i < d.nr ? d.used[i].start : end;
		u64 hole;

		if (next > end)
			next = end;
		if (next > cursor) {
			hole = next - cursor;
			if (hole > best) {
				best = hole;
				best_start = cursor;
			}
			if (hole >= want)
				break;
		}
		if (i < d.nr && d.used[i].start + d.used[i].len > cursor)
			cursor = d.used[i].start + d.used[i].len;
		if (cursor >= end)
			break;
	}
	free(d.used);
	*hole_start = best_start;
	*avail = best;
	return 0;
}

/* Chunk item bytes for @nc, as the kernel's btrfs_chunk_alloc_add_chunk_item() fills them */
static u32 fill_chunk_item(struct btrfs_fs *fs, const struct btrfs_new_chunk *nc, u8 *buf)
{
	struct btrfs_chunk *c = (struct btrfs_chunk *)buf;
	u32 size = btrfs_chunk_item_size(nc->num_stripes);

	memset(buf, 0, size);
	btrfs_set_chunk_length(c, nc->length);
	btrfs_set_chunk_owner(c, BTRFS_EXTENT_TREE_OBJECTID);
	btrfs_set_chunk_stripe_len(c, BTRFS_STRIPE_LEN);
	btrfs_set_chunk_type(c, nc->type);
	btrfs_set_chunk_io_align(c, BTRFS_STRIPE_LEN);
	btrfs_set_chunk_io_width(c, BTRFS_STRIPE_LEN);
	btrfs_set_chunk_sector_size(c, fs->sectorsize);
	btrfs_set_chunk_num_stripes(c, nc->num_stripes);
	btrfs_set_chunk_sub_stripes(c, nc->sub_stripes);
	for (u16 s = 0; s < nc->num_stripes; s++) {
		struct btrfs_stripe *st = btrfs_chunk_stripe(c, s);
		const struct btrfs_device *dev = btrfs_device_find(fs, nc->devid[s], NULL);

		btrfs_set_stripe_devid(st, nc->devid[s]);
		btrfs_set_stripe_offset(st, nc->physical[s]);
		if (dev)
			btrfs_set_stripe_dev_uuid(st, dev->uuid);
	}
	return size;
}

/*
 * Size the stripes like decide_stripe_size_regular(): @avail is the hole of
 * the device with the least room among those used, @data_stripes the
 * stripes whose sum is the chunk length.
 */
static u64 stripe_size_for(u64 total_rw, u64 avail, u16 dev_stripes, u16 data_stripes)
{
	u64 max_chunk = total_rw > 50 * SZ_1G ? SZ_1G : SZ_256M;
	u64 stripe;

	if (total_rw / 10 < max_chunk)
		max_chunk = total_rw / 10;
	stripe = avail / dev_stripes;
	if (stripe * data_stripes > max_chunk) {
		u64 capped = (max_chunk / data_stripes + SZ_16M - 1) & ~(SZ_16M - 1);

		if (capped < stripe)
			stripe = capped;
	}
	if (stripe > SZ_1G)
		stripe = SZ_1G;
	return stripe & ~(BTRFS_STRIPE_LEN - 1);
}

/* Phase 1: the new chunk exists in memory and its space is allocatable */
static int register_chunk(struct btrfs_trans_handle *trans, struct btrfs_new_chunk *nc)
{
	struct btrfs_fs *fs = trans->fs;
	struct btrfs_alloc_ctx *ctx = &trans->alloc;
	u8 buf[sizeof(struct btrfs_chunk) + BTRFS_NEW_CHUNK_MAX_STRIPES * sizeof(struct btrfs_stripe)];
	struct btrfs_free_range *usable = NULL;
	size_t nr_usable = 0, cap_usable = 0;
	struct btrfs_bg *bg;
	u32 size;
	int ret;

	size = fill_chunk_item(fs, nc, buf);
	ret = btrfs_chunk_map_insert(fs, nc->logical, buf, size);
	if (ret < 0)
		return ret;
	bg = &ctx->bgs[ctx->nr_bgs];
	memset(bg, 0, sizeof(*bg));
	bg->start = nc->logical;
	bg->length = nc->length;
	bg->flags = nc->type;
	bg->new_chunk = (int)ctx->nr_new_chunks;
	/* the FST gets the whole block group, like the kernel's; the allocator less */
	ret = btrfs_range_push(&nc->fst, &nc->nr_fst, &nc->fst_cap, nc->logical, nc->length);
	if (!ret)
		ret = btrfs_range_push(&usable, &nr_usable, &cap_usable, nc->logical, nc->length);
	if (!ret)
		ret = btrfs_range_cut_super(fs, &usable, &nr_usable, &cap_usable, bg);
	if (ret < 0)
		goto fail;
	btrfs_range_normalize(usable, &nr_usable, true);
	/* the chunk lies after every other one: appending keeps the free list sorted */
	for (size_t i = 0; i < nr_usable; i++) {
		ret = btrfs_range_push(&ctx->free, &ctx->nr_free, &ctx->free_cap,
				       usable[i].start, usable[i].len);
		if (ret < 0)
			goto fail;
	}
	free(usable);
	ctx->nr_bgs++;
	ctx->nr_new_chunks++;
	for (u16 s = 0; s < nc->num_stripes; s++)
		btrfs_device_find(fs, nc->devid[s], NULL)->bytes_used += nc->stripe_size;
	return 0;
fail:
	free(usable);
	free(nc->fst);
	nc->fst = NULL;
	btrfs_chunk_map_remove(fs, nc->logical);
	return ret;
}

/* A device that can take stripes of the new chunk (gather_device_info()) */
struct dev_room {
	struct btrfs_device *dev;
	u64 hole_start;
	u64 max_avail;		/* the hole taken */
	u64 total_avail;	/* total_bytes - bytes_used */
};

/* Most room first: the hole, then the unallocated bytes; ties by devid */
static int cmp_dev_room(const void *a, const void *b)
{
	const struct dev_room *x = a, *y = b;

	if (x->max_avail != y->max_avail)
		return x->max_avail > y->max_avail ? -1 : 1;
	if (x->total_avail != y->total_avail)
		return x->total_avail > y->total_avail ? -1 : 1;
	return x->dev->devid < y->dev->devid ? -1 : x->dev->devid > y->dev->devid;
}

int btrfs_chunk_alloc_metadata(struct btrfs_trans_handle *trans)
{
	struct btrfs_fs *fs = trans->fs;
	struct btrfs_alloc_ctx *ctx = &trans->alloc;
	const struct profile_rules *rules;
	struct btrfs_new_chunk *nc;
	struct dev_room *rooms;
	u64 profile = 0, total_rw = 0, want, min_extent, stripe;
	size_t ndevs = 0, devs_max;
	u16 data_stripes;
	int ret;

	ret = pick_profile(trans, &profile);
	if (ret < 0)
		return ret;
	rules = rules_of(profile);
	if (ctx->nr_new_chunks >= BTRFS_MAX_NEW_CHUNKS || ctx->nr_bgs >= ctx->bgs_cap) {
		btrfs_fs_set_error(fs, "transaction %llu: more than %d new chunks",
				   (unsigned long long)trans->transid, BTRFS_MAX_NEW_CHUNKS);
		return -ENOSPC;
	}
	if (!ctx->new_chunks) {
		ctx->new_chunks = calloc(BTRFS_MAX_NEW_CHUNKS, sizeof(*ctx->new_chunks));
		if (!ctx->new_chunks)
			return -ENOMEM;
		ctx->new_chunks_cap = BTRFS_MAX_NEW_CHUNKS;
	}
	for (size_t i = 0; i < fs->nr_devices; i++) {
		if (!fs->devices[i]->io) {
			btrfs_fs_set_error(fs, "device %llu is missing: no new chunk without every member",
					   (unsigned long long)fs->devices[i]->devid);
			return -ENXIO;
		}
		total_rw += fs->devices[i]->total_bytes;
	}
	rooms = calloc(fs->nr_devices ? fs->nr_devices : 1, sizeof(*rooms));
	if (!rooms)
		return -ENOMEM;
	/* the device search asks for the uncapped size; a hole under 64 KiB per stripe is none */
	want = (total_rw > 50 * SZ_1G ? SZ_1G : SZ_256M) * rules->dev_stripes;
	min_extent = BTRFS_STRIPE_LEN * rules->dev_stripes;
	for (size_t i = 0; i < fs->nr_devices; i++) {
		struct btrfs_device *dev = fs->devices[i];
		struct dev_room *r = &rooms[ndevs];

		r->dev = dev;
		r->total_avail = dev->total_bytes > dev->bytes_used ?
			dev->total_bytes - dev->bytes_used : 0;
		if (r->total_avail < min_extent)
			continue;
		ret = find_dev_hole(trans, dev, want, &r->hole_start, &r->max_avail);
		if (ret < 0)
			goto out;
		if (r->max_avail < min_extent)
			continue;
		ndevs++;
	}
	qsort(rooms, ndevs, sizeof(*rooms), cmp_dev_room);
	ndevs -= ndevs % rules->devs_increment;
	if (ndevs < rules->devs_min && fs->nr_devices == 1) {
		btrfs_fs_set_error(fs, "device %llu (%s): no free space left for a new metadata chunk (%s needs at least %llu bytes, largest free range %llu bytes)",
				   (unsigned long long)rooms[0].dev->devid, dev_name(rooms[0].dev),
				   btrfs_profile_name(profile), (unsigned long long)min_extent,
				   (unsigned long long)rooms[0].max_avail);
		ret = -ENOSPC;
		goto out;
	}
	if (ndevs < rules->devs_min) {
		btrfs_fs_set_error(fs, "no free space left for a new %s metadata chunk: it needs %u device%s with at least %llu free bytes, %zu of %zu have them",
				   btrfs_profile_name(profile), rules->devs_min,
				   rules->devs_min > 1 ? "s" : "",
				   (unsigned long long)min_extent, ndevs, fs->nr_devices);
		ret = -ENOSPC;
		goto out;
	}
	devs_max = rules->devs_max ? rules->devs_max : ndevs;
	if (ndevs > devs_max)
		ndevs = devs_max;
	if (ndevs * rules->dev_stripes > BTRFS_NEW_CHUNK_MAX_STRIPES) {
		btrfs_fs_set_error(fs, "a new %s metadata chunk over %zu devices: more than %d stripes are not implemented offline",
				   btrfs_profile_name(profile), ndevs, BTRFS_NEW_CHUNK_MAX_STRIPES);
		ret = -EOPNOTSUPP;
		goto out;
	}
	data_stripes = (u16)(ndevs * rules->dev_stripes / rules->ncopies);
	stripe = stripe_size_for(total_rw, rooms[ndevs - 1].max_avail, rules->dev_stripes,
				 data_stripes);
	if (!stripe) {
		ret = -ENOSPC;
		goto out;
	}
	nc = &ctx->new_chunks[ctx->nr_new_chunks];
	memset(nc, 0, sizeof(*nc));
	nc->logical = fs->nr_chunks ? fs->chunks[fs->nr_chunks - 1]->start +
		fs->chunks[fs->nr_chunks - 1]->length : 0;
	nc->length = stripe * data_stripes;
	nc->type = BTRFS_BLOCK_GROUP_METADATA | profile;
	nc->stripe_size = stripe;
	nc->num_stripes = (u16)(ndevs * rules->dev_stripes);
	nc->sub_stripes = rules->sub_stripes;
	for (size_t i = 0; i < ndevs; i++) {
		for (u16 j = 0; j < rules->dev_stripes; j++) {
			u16 s = (u16)(i * rules->dev_stripes + j);

			nc->devid[s] = rooms[i].dev->devid;
			nc->physical[s] = rooms[i].hole_start + j * stripe;
		}
	}
	ret = register_chunk(trans, nc);
out:
	free(rooms);
	return ret;
}

static struct btrfs_bg *bg_of(struct btrfs_alloc_ctx *ctx, u64 start)
{
	struct btrfs_bg *bg = btrfs_bg_lookup(ctx, start);

	return bg && bg->start == start ? bg : NULL;
}

static int insert_dev_extents(struct btrfs_trans_handle *trans, const struct btrfs_new_chunk *nc)
{
	struct btrfs_fs *fs = trans->fs;
	struct btrfs_dev_extent de;
	struct btrfs_root *root;
	int ret;

	ret = btrfs_read_root(fs, BTRFS_DEV_TREE_OBJECTID, &root);
	if (ret < 0)
		return ret;
	memset(&de, 0, sizeof(de));
	btrfs_set_dev_extent_chunk_tree(&de, BTRFS_CHUNK_TREE_OBJECTID);
	btrfs_set_dev_extent_chunk_objectid(&de, BTRFS_FIRST_CHUNK_TREE_OBJECTID);
	btrfs_set_dev_extent_chunk_offset(&de, nc->logical);
	btrfs_set_dev_extent_length(&de, nc->stripe_size);
	btrfs_set_dev_extent_chunk_tree_uuid(&de, fs->chunk_tree_uuid);
	for (u16 s = 0; s < nc->num_stripes; s++) {
		struct btrfs_key key = { nc->devid[s], BTRFS_DEV_EXTENT_KEY, nc->physical[s] };

		ret = btrfs_insert_item(trans, root, &key, &de, sizeof(de));
		if (ret == -EEXIST)
			btrfs_fs_set_error(fs, "dev tree: dev extent %llu already exists",
					   (unsigned long long)nc->physical[s]);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int update_dev_item(struct btrfs_trans_handle *trans, const struct btrfs_device *dev)
{
	struct btrfs_key key = { BTRFS_DEV_ITEMS_OBJECTID, BTRFS_DEV_ITEM_KEY, dev->devid };
	struct btrfs_path path;
	u8 *p;
	u32 len;
	int ret;

	btrfs_path_init(&path);
	ret = btrfs_search_cow(trans, trans->fs->chunk_root, &key, &path, 0);
	if (ret) {
		btrfs_path_release(&path);
		if (ret > 0) {
			btrfs_fs_set_error(trans->fs, "chunk tree: no dev item for device %llu",
					   (unsigned long long)dev->devid);
			return -EUCLEAN;
		}
		return ret;
	}
	p = btrfs_path_item_ptr(&path, &len);
	if (len < sizeof(struct btrfs_dev_item)) {
		btrfs_path_release(&path);
		return -EUCLEAN;
	}
	btrfs_set_dev_item_bytes_used((struct btrfs_dev_item *)p, dev->bytes_used);
	btrfs_path_release(&path);
	return 0;
}

static int insert_fst_items(struct btrfs_trans_handle *trans, const struct btrfs_new_chunk *nc)
{
	struct btrfs_key key = { nc->logical, BTRFS_FREE_SPACE_INFO_KEY, nc->length };
	struct btrfs_free_space_info info;
	struct btrfs_root *root;
	int ret;

	ret = btrfs_read_root(trans->fs, BTRFS_FREE_SPACE_TREE_OBJECTID, &root);
	if (ret < 0)
		return ret;
	btrfs_set_free_space_info_extent_count(&info, (u32)nc->nr_fst);
	btrfs_set_free_space_info_flags(&info, 0);
	ret = btrfs_insert_item(trans, root, &key, &info, sizeof(info));
	for (size_t i = 0; i < nc->nr_fst && !ret; i++) {
		key = (struct btrfs_key){ nc->fst[i].start, BTRFS_FREE_SPACE_EXTENT_KEY,
					  nc->fst[i].len };
		ret = btrfs_insert_item(trans, root, &key, NULL, 0);
	}
	return ret;
}

/* Phase 2 for new chunk @idx: every item, then the FST takes over its free space */
static int create_chunk_items(struct btrfs_trans_handle *trans, size_t idx)
{
	struct btrfs_fs *fs = trans->fs;
	struct btrfs_alloc_ctx *ctx = &trans->alloc;
	struct btrfs_new_chunk *nc = &ctx->new_chunks[idx];	/* never moves */
	u8 buf[sizeof(struct btrfs_chunk) + BTRFS_NEW_CHUNK_MAX_STRIPES * sizeof(struct btrfs_stripe)];
	struct btrfs_key key = { BTRFS_FIRST_CHUNK_TREE_OBJECTID, BTRFS_CHUNK_ITEM_KEY,
				 nc->logical };
	struct btrfs_block_group_item bgi;
	struct btrfs_root *bg_root;
	struct btrfs_bg *bg;
	u32 size;
	int ret;

	nc->items_done = true;
	ret = insert_dev_extents(trans, nc);
	if (ret < 0)
		return ret;
	size = fill_chunk_item(fs, nc, buf);
	ret = btrfs_insert_item(trans, fs->chunk_root, &key, buf, size);
	if (ret < 0)
		return ret;
	/* each device of the chunk once (DUP, RAID10 repeat none but DUP repeats one) */
	for (u16 s = 0; s < nc->num_stripes; s++) {
		const struct btrfs_device *dev = btrfs_device_find(fs, nc->devid[s], NULL);
		bool seen = false;

		for (u16 t = 0; t < s; t++)
			seen |= nc->devid[t] == nc->devid[s];
		if (seen)
			continue;
		if (!dev)
			return -EUCLEAN;
		ret = update_dev_item(trans, dev);
		if (ret < 0)
			return ret;
	}
	ret = btrfs_read_root(fs, ctx->bg_tree, &bg_root);
	if (ret < 0)
		return ret;
	bg = bg_of(ctx, nc->logical);
	if (!bg)
		return -EUCLEAN;
	btrfs_set_block_group_used(&bgi, bg->used);
	btrfs_set_block_group_chunk_objectid(&bgi, BTRFS_FIRST_CHUNK_TREE_OBJECTID);
	btrfs_set_block_group_flags(&bgi, nc->type);
	key = (struct btrfs_key){ nc->logical, BTRFS_BLOCK_GROUP_ITEM_KEY, nc->length };
	ret = btrfs_insert_item(trans, bg_root, &key, &bgi, sizeof(bgi));
	if (ret < 0)
		return ret;
	/* used may still change in this transaction: rewritten with the others */
	bg = bg_of(ctx, nc->logical);
	bg->dirty = true;
	if (ctx->has_fst) {
		/*
		 * Frees and allocations of this block group go to nc->fst
		 * until the FST items exist; nothing calls them while the
		 * items are inserted (run_pending() is not running).
		 */
		ret = insert_fst_items(trans, nc);
		if (ret < 0)
			return ret;
	}
	bg = bg_of(ctx, nc->logical);
	bg->new_chunk = -1;
	return 1;
}

int btrfs_chunk_create_items(struct btrfs_trans_handle *trans)
{
	struct btrfs_alloc_ctx *ctx = &trans->alloc;
	int done = 0;
	int ret;

	/* creating items may make another chunk: the count is read again */
	for (size_t i = 0; i < ctx->nr_new_chunks; i++) {
		if (ctx->new_chunks[i].items_done)
			continue;
		ret = create_chunk_items(trans, i);
		if (ret < 0)
			return ret;
		done += ret;
	}
	return done;
}

int btrfs_chunk_fst_pending(struct btrfs_trans_handle *trans, struct btrfs_bg *bg, u64 start,
			    u64 len, bool free_it)
{
	struct btrfs_alloc_ctx *ctx = &trans->alloc;
	struct btrfs_new_chunk *nc;
	int ret;

	if (bg->new_chunk < 0)
		return 0;
	nc = &ctx->new_chunks[bg->new_chunk];
	if (free_it)
		ret = btrfs_range_push(&nc->fst, &nc->nr_fst, &nc->fst_cap, start, len);
	else
		ret = btrfs_range_cut(&nc->fst, &nc->nr_fst, &nc->fst_cap, start, len);
	if (ret < 0)
		return ret;
	btrfs_range_normalize(nc->fst, &nc->nr_fst, true);
	return 1;
}

void btrfs_chunk_update_super(struct btrfs_trans_handle *trans, struct btrfs_super_block *sb)
{
	struct btrfs_fs *fs = trans->fs;
	struct btrfs_dev_item *di = btrfs_super_dev_item(sb);
	struct btrfs_device *dev = btrfs_device_find(fs, btrfs_dev_item_devid(di), NULL);

	if (dev)
		btrfs_set_dev_item_bytes_used(di, dev->bytes_used);
	if (fs->chunk_root) {
		btrfs_set_super_chunk_root(sb, fs->chunk_root->bytenr);
		btrfs_set_super_chunk_root_level(sb, fs->chunk_root->level);
		btrfs_set_super_chunk_root_generation(sb, fs->chunk_root->generation);
	}
}

void btrfs_chunk_alloc_abort(struct btrfs_trans_handle *trans)
{
	struct btrfs_fs *fs = trans->fs;
	struct btrfs_alloc_ctx *ctx = &trans->alloc;

	for (size_t i = 0; i < ctx->nr_new_chunks; i++) {
		const struct btrfs_new_chunk *nc = &ctx->new_chunks[i];

		btrfs_chunk_map_remove(fs, nc->logical);
		for (u16 s = 0; s < nc->num_stripes; s++) {
			struct btrfs_device *dev = btrfs_device_find(fs, nc->devid[s], NULL);

			if (dev)
				dev->bytes_used -= nc->stripe_size;
		}
	}
}
