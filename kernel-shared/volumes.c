// SPDX-License-Identifier: GPL-2.0-only
/*
 * Devices and the chunk map (see volumes.h).
 *
 * The map is a sorted array of chunks; lookups are binary searches.
 * Chunks come from untrusted metadata, so each is validated like the
 * kernel's tree-checker does before it is used for address arithmetic,
 * and chunks may not overlap.  Stripe devices are resolved by devid and
 * device uuid at lookup time, so a device learnt after a chunk still maps.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fs.h"
#include "volumes.h"

const char *btrfs_profile_name(u64 type)
{
	switch (type & BTRFS_BLOCK_GROUP_PROFILE_MASK) {
	case 0:				return "single";
	case BTRFS_BLOCK_GROUP_DUP:	return "dup";
	case BTRFS_BLOCK_GROUP_RAID0:	return "raid0";
	case BTRFS_BLOCK_GROUP_RAID1:	return "raid1";
	case BTRFS_BLOCK_GROUP_RAID1C3:	return "raid1c3";
	case BTRFS_BLOCK_GROUP_RAID1C4:	return "raid1c4";
	case BTRFS_BLOCK_GROUP_RAID10:	return "raid10";
	case BTRFS_BLOCK_GROUP_RAID5:	return "raid5";
	case BTRFS_BLOCK_GROUP_RAID6:	return "raid6";
	default:			return "unknown";
	}
}

static bool one_bit_at_most(u64 v)
{
	return !(v & (v - 1));
}

static int valid_stripe_count(u64 profile, u16 num, u16 sub)
{
	switch (profile) {
	case 0:				return num == 1;
	case BTRFS_BLOCK_GROUP_DUP:	return num == 2;
	case BTRFS_BLOCK_GROUP_RAID1:	return num == 2;
	case BTRFS_BLOCK_GROUP_RAID1C3:	return num == 3;
	case BTRFS_BLOCK_GROUP_RAID1C4:	return num == 4;
	case BTRFS_BLOCK_GROUP_RAID0:	return num >= 1;
	case BTRFS_BLOCK_GROUP_RAID10:	return sub == 2 && num >= 2 && num % 2 == 0;
	case BTRFS_BLOCK_GROUP_RAID5:	return num >= 2;
	case BTRFS_BLOCK_GROUP_RAID6:	return num >= 3;
	default:			return 0;
	}
}

int btrfs_chunk_validate(u32 sectorsize, bool mixed, u64 logical, const void *data, u32 len,
			 char *errmsg)
{
	const struct btrfs_chunk *c = data;
	u64 length, type, profile;
	u16 num, sub;

#define BAD(...) do { btrfs_errmsg_set(errmsg, __VA_ARGS__); return -EUCLEAN; } while (0)
	if (len < sizeof(struct btrfs_chunk))
		BAD("chunk %llu: item too short (%u bytes)", (unsigned long long)logical, len);
	num = btrfs_chunk_num_stripes(c);
	sub = btrfs_chunk_sub_stripes(c);
	length = btrfs_chunk_length(c);
	type = btrfs_chunk_type(c);
	profile = type & BTRFS_BLOCK_GROUP_PROFILE_MASK;
	if (!num)
		BAD("chunk %llu: no stripes", (unsigned long long)logical);
	if (len < btrfs_chunk_item_size(num))
		BAD("chunk %llu: %u stripes do not fit in %u bytes", (unsigned long long)logical,
		    num, len);
	if (logical % sectorsize)
		BAD("chunk %llu: start not aligned to sectorsize", (unsigned long long)logical);
	if (!length || length % sectorsize)
		BAD("chunk %llu: invalid length %llu", (unsigned long long)logical,
		    (unsigned long long)length);
	if (logical + length < logical)
		BAD("chunk %llu: length %llu overflows", (unsigned long long)logical,
		    (unsigned long long)length);
	/* the kernel keeps stripe numbers in 32 bits: 2^32 - 1 stripes of 64 KiB at most */
	if (length >= ((u64)UINT32_MAX << 16))
		BAD("chunk %llu: length %llu too large", (unsigned long long)logical,
		    (unsigned long long)length);
	if (btrfs_chunk_stripe_len(c) != BTRFS_STRIPE_LEN)
		BAD("chunk %llu: invalid stripe_len %llu", (unsigned long long)logical,
		    (unsigned long long)btrfs_chunk_stripe_len(c));
	if (btrfs_chunk_sector_size(c) != sectorsize)
		BAD("chunk %llu: sector_size %u differs from the filesystem's %u",
		    (unsigned long long)logical, btrfs_chunk_sector_size(c), sectorsize);
	if (type & ~(BTRFS_BLOCK_GROUP_TYPE_MASK | BTRFS_BLOCK_GROUP_PROFILE_MASK))
		BAD("chunk %llu: unknown type bits 0x%llx", (unsigned long long)logical,
		    (unsigned long long)type);
	if (!(type & BTRFS_BLOCK_GROUP_TYPE_MASK))
		BAD("chunk %llu: no data, metadata or system type", (unsigned long long)logical);
	if ((type & BTRFS_BLOCK_GROUP_SYSTEM) && (type & ~BTRFS_BLOCK_GROUP_SYSTEM &
						   BTRFS_BLOCK_GROUP_TYPE_MASK))
		BAD("chunk %llu: system chunk mixed with other types", (unsigned long long)logical);
	if (!mixed && (type & BTRFS_BLOCK_GROUP_DATA) && (type & BTRFS_BLOCK_GROUP_METADATA))
		BAD("chunk %llu: data and metadata chunk without mixed-groups",
		    (unsigned long long)logical);
	if (!one_bit_at_most(profile))
		BAD("chunk %llu: several profile bits 0x%llx", (unsigned long long)logical,
		    (unsigned long long)profile);
	if (!valid_stripe_count(profile, num, sub))
		BAD("chunk %llu: invalid num_stripes %u (sub_stripes %u) for %s",
		    (unsigned long long)logical, num, sub, btrfs_profile_name(type));
#undef BAD
	return 0;
}

/* Index of the first chunk whose start is > @logical */
static size_t chunk_upper(const struct btrfs_fs *fs, u64 logical)
{
	size_t lo = 0, hi = fs->nr_chunks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fs->chunks[mid]->start <= logical)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct btrfs_chunk_map *btrfs_chunk_map_lookup(const struct btrfs_fs *fs, u64 logical)
{
	size_t i = chunk_upper(fs, logical);
	const struct btrfs_chunk_map *map;

	if (!i)
		return NULL;
	map = fs->chunks[i - 1];
	if (logical - map->start >= map->length)
		return NULL;
	return map;
}

int btrfs_chunk_map_insert(struct btrfs_fs *fs, u64 logical, const void *data, u32 len)
{
	const struct btrfs_chunk *c = data;
	struct btrfs_chunk_map *map;
	size_t pos;
	u16 num;
	int ret;

	ret = btrfs_chunk_validate(fs->sectorsize,
				   btrfs_fs_has_incompat(fs, BTRFS_FEATURE_INCOMPAT_MIXED_GROUPS),
				   logical, data, len, fs->errmsg);
	if (ret < 0)
		return ret;
	num = btrfs_chunk_num_stripes(c);
	pos = chunk_upper(fs, logical);
	if (pos > 0) {
		const struct btrfs_chunk_map *prev = fs->chunks[pos - 1];

		if (prev->start == logical && prev->length == btrfs_chunk_length(c) &&
		    prev->type == btrfs_chunk_type(c) && prev->num_stripes == num)
			return 0;	/* sys_chunk_array copy of the same chunk */
		if (logical - prev->start < prev->length) {
			btrfs_fs_set_error(fs, "chunk %llu: overlaps chunk %llu",
					   (unsigned long long)logical,
					   (unsigned long long)prev->start);
			return -EUCLEAN;
		}
	}
	if (pos < fs->nr_chunks && fs->chunks[pos]->start - logical < btrfs_chunk_length(c)) {
		btrfs_fs_set_error(fs, "chunk %llu: overlaps chunk %llu",
				   (unsigned long long)logical,
				   (unsigned long long)fs->chunks[pos]->start);
		return -EUCLEAN;
	}
	if (fs->nr_chunks == fs->chunks_alloc) {
		size_t n = fs->chunks_alloc ? fs->chunks_alloc * 2 : 16;
		struct btrfs_chunk_map **p = realloc(fs->chunks, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		fs->chunks = p;
		fs->chunks_alloc = n;
	}
	map = calloc(1, sizeof(*map) + num * sizeof(map->stripes[0]));
	if (!map)
		return -ENOMEM;
	map->start = logical;
	map->length = btrfs_chunk_length(c);
	map->type = btrfs_chunk_type(c);
	map->stripe_len = btrfs_chunk_stripe_len(c);
	map->num_stripes = num;
	map->sub_stripes = btrfs_chunk_sub_stripes(c);
	for (u16 i = 0; i < num; i++) {
		const struct btrfs_stripe *s = btrfs_chunk_stripe(c, i);

		map->stripes[i].devid = btrfs_stripe_devid(s);
		map->stripes[i].physical = btrfs_stripe_offset(s);
		memcpy(map->stripes[i].dev_uuid, btrfs_stripe_dev_uuid(s), BTRFS_UUID_SIZE);
		map->stripes[i].dev = btrfs_device_find(fs, map->stripes[i].devid,
							map->stripes[i].dev_uuid);
	}
	memmove(fs->chunks + pos + 1, fs->chunks + pos, (fs->nr_chunks - pos) * sizeof(map));
	fs->chunks[pos] = map;
	fs->nr_chunks++;
	return 0;
}

void btrfs_chunk_map_remove(struct btrfs_fs *fs, u64 logical)
{
	size_t pos = chunk_upper(fs, logical);

	if (!pos || fs->chunks[pos - 1]->start != logical)
		return;
	free(fs->chunks[pos - 1]);
	memmove(fs->chunks + pos - 1, fs->chunks + pos,
		(fs->nr_chunks - pos) * sizeof(fs->chunks[0]));
	fs->nr_chunks--;
}

int btrfs_read_sys_chunk_array(struct btrfs_fs *fs)
{
	const u8 *array = btrfs_super_sys_chunk_array(&fs->super);
	u32 size = btrfs_super_sys_chunk_array_size(&fs->super);
	u32 cur = 0;
	int ret;

	while (cur < size) {
		struct btrfs_key key;
		u32 left;
		u16 num;

		if (size - cur < sizeof(struct btrfs_disk_key) + sizeof(struct btrfs_chunk)) {
			btrfs_fs_set_error(fs, "superblock: sys_chunk_array truncated at byte %u", cur);
			return -EUCLEAN;
		}
		btrfs_disk_key_to_cpu(&key, (const struct btrfs_disk_key *)(array + cur));
		cur += sizeof(struct btrfs_disk_key);
		if (key.type != BTRFS_CHUNK_ITEM_KEY) {
			btrfs_fs_set_error(fs, "superblock: sys_chunk_array has item type %u, not a chunk",
					   key.type);
			return -EUCLEAN;
		}
		left = size - cur;
		num = btrfs_chunk_num_stripes((const struct btrfs_chunk *)(array + cur));
		if (left < btrfs_chunk_item_size(num)) {
			btrfs_fs_set_error(fs, "superblock: sys_chunk_array chunk %llu truncated",
					   (unsigned long long)key.offset);
			return -EUCLEAN;
		}
		ret = btrfs_chunk_map_insert(fs, key.offset, array + cur, btrfs_chunk_item_size(num));
		if (ret < 0)
			return ret;
		if (!(btrfs_chunk_type((const struct btrfs_chunk *)(array + cur)) &
		      BTRFS_BLOCK_GROUP_SYSTEM)) {
			btrfs_fs_set_error(fs, "superblock: sys_chunk_array chunk %llu is not a system chunk",
					   (unsigned long long)key.offset);
			return -EUCLEAN;
		}
		cur += btrfs_chunk_item_size(num);
	}
	return 0;
}

int btrfs_chunk_tree_add_item(struct btrfs_fs *fs, const struct btrfs_key *key, const void *data,
			      u32 len)
{
	if (key->type == BTRFS_DEV_ITEM_KEY) {
		const struct btrfs_dev_item *di = data;
		struct btrfs_device *dev;

		if (len < sizeof(*di)) {
			btrfs_fs_set_error(fs, "chunk tree: dev item %llu too short",
					   (unsigned long long)key->offset);
			return -EUCLEAN;
		}
		dev = btrfs_device_add(fs, btrfs_dev_item_devid(di), btrfs_dev_item_uuid(di), NULL);
		if (!dev && fs->nr_devices > btrfs_super_num_devices(&fs->super) + 16) {
			btrfs_fs_set_error(fs, "chunk tree: more devices than the superblock's %llu",
					   (unsigned long long)btrfs_super_num_devices(&fs->super));
			return -EUCLEAN;
		}
		if (!dev)
			return -ENOMEM;
		dev->total_bytes = btrfs_dev_item_total_bytes(di);
		dev->bytes_used = btrfs_dev_item_bytes_used(di);
		dev->in_chunk_tree = true;
		memcpy(&dev->item, di, sizeof(*di));
		return 0;
	}
	if (key->type == BTRFS_CHUNK_ITEM_KEY) {
		if (len != btrfs_chunk_item_size(len >= sizeof(struct btrfs_chunk) ?
				btrfs_chunk_num_stripes(data) : 0)) {
			btrfs_fs_set_error(fs, "chunk %llu: item size %u does not match its stripes",
					   (unsigned long long)key->offset, len);
			return -EUCLEAN;
		}
		return btrfs_chunk_map_insert(fs, key->offset, data, len);
	}
	return 0;
}

/*
 * The kernel refuses to mount when the superblock's total_bytes is below the
 * sum of the DEV_ITEM sizes of the devices it opened (missing ones and the
 * replace target, devid 0, do not count)
 */
int btrfs_check_total_bytes(struct btrfs_fs *fs)
{
	u64 super_total = btrfs_super_total_bytes(&fs->super);
	u64 sum = 0;

	for (size_t i = 0; i < fs->nr_devices; i++) {
		const struct btrfs_device *dev = fs->devices[i];

		if (!dev->in_chunk_tree || !dev->io || !dev->devid)
			continue;
		sum = dev->total_bytes > UINT64_MAX - sum ? UINT64_MAX : sum + dev->total_bytes;
	}
	if (super_total >= sum)
		return 0;
	btrfs_fs_set_error(fs, "superblock: total_bytes %llu is smaller than the %llu bytes of "
			   "its devices", (unsigned long long)super_total, (unsigned long long)sum);
	return -EUCLEAN;
}


struct btrfs_device *btrfs_device_find(const struct btrfs_fs *fs, u64 devid, const u8 *uuid)
{
	for (size_t i = 0; i < fs->nr_devices; i++) {
		struct btrfs_device *d = fs->devices[i];

		if (d->devid != devid)
			continue;
		if (uuid && memcmp(d->uuid, uuid, BTRFS_UUID_SIZE))
			continue;
		return d;
	}
	return NULL;
}

struct btrfs_device *btrfs_device_add(struct btrfs_fs *fs, u64 devid, const u8 *uuid,
				      struct btrfs_io_dev *io)
{
	struct btrfs_device *d = btrfs_device_find(fs, devid, uuid);
	struct btrfs_device **p;

	if (d) {
		if (io && !d->io)
			d->io = io;
		return d;
	}
	/* a crafted chunk tree must not make device lookups quadratic */
	if (fs->nr_devices > btrfs_super_num_devices(&fs->super) + 16)
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	p = realloc(fs->devices, (fs->nr_devices + 1) * sizeof(*p));
	if (!p) {
		free(d);
		return NULL;
	}
	fs->devices = p;
	d->devid = devid;
	if (uuid)
		memcpy(d->uuid, uuid, BTRFS_UUID_SIZE);
	d->io = io;
	fs->devices[fs->nr_devices++] = d;
	return d;
}

static int raid56_parity(u64 type)
{
	if (type & BTRFS_BLOCK_GROUP_RAID5)
		return 1;
	if (type & BTRFS_BLOCK_GROUP_RAID6)
		return 2;
	return 0;
}

static int map_copies(const struct btrfs_chunk_map *map)
{
	u64 p = map->type & BTRFS_BLOCK_GROUP_PROFILE_MASK;

	if (p & (BTRFS_BLOCK_GROUP_DUP | BTRFS_BLOCK_GROUP_RAID1 | BTRFS_BLOCK_GROUP_RAID1C3 |
		 BTRFS_BLOCK_GROUP_RAID1C4))
		return map->num_stripes;
	if (p & BTRFS_BLOCK_GROUP_RAID10)
		return map->sub_stripes;
	return 1;	/* SINGLE, RAID0; RAID5/6 without reconstruction */
}

/* Bytes each stripe of @map takes on its device: the length over the data stripes */
static u64 chunk_stripe_size(const struct btrfs_chunk_map *map)
{
	return map->length / ((map->num_stripes - raid56_parity(map->type)) / map_copies(map));
}

int btrfs_num_copies(const struct btrfs_fs *fs, u64 logical, u64 len)
{
	const struct btrfs_chunk_map *map = btrfs_chunk_map_lookup(fs, logical);

	if (!map)
		return -ENOENT;
	return map_copies(map);
}

/*
 * Stripe index and device offset of copy @copy (0-based) of @logical.
 * The range [@logical, +@len) must stay inside one stripe.
 */
static int map_one(struct btrfs_fs *fs, const struct btrfs_chunk_map *map, u64 logical,
		   u64 len, int copy, struct btrfs_io_stripe *out)
{
	u64 off = logical - map->start;
	u64 stripe_nr = off / map->stripe_len;
	u64 in = off % map->stripe_len;
	u64 p = map->type & BTRFS_BLOCK_GROUP_PROFILE_MASK;
	u64 row = 0;
	u32 idx;
	const struct btrfs_chunk_stripe_map *s;

	if (len > map->length - off) {
		btrfs_fs_set_error(fs, "range at %llu crosses the end of chunk %llu",
				   (unsigned long long)logical, (unsigned long long)map->start);
		return -EUCLEAN;
	}
	if (p & (BTRFS_BLOCK_GROUP_DUP | BTRFS_BLOCK_GROUP_RAID1 | BTRFS_BLOCK_GROUP_RAID1C3 |
		 BTRFS_BLOCK_GROUP_RAID1C4) || !p) {
		idx = (u32)copy;
		out->physical = map->stripes[idx].physical + off;
		goto found;
	}
	if (in + len > map->stripe_len) {
		btrfs_fs_set_error(fs, "range at %llu crosses a stripe boundary",
				   (unsigned long long)logical);
		return -EUCLEAN;
	}
	if (p & BTRFS_BLOCK_GROUP_RAID0) {
		idx = (u32)(stripe_nr % map->num_stripes);
		row = stripe_nr / map->num_stripes;
	} else if (p & BTRFS_BLOCK_GROUP_RAID10) {
		u32 factor = map->num_stripes / map->sub_stripes;

		idx = (u32)(stripe_nr % factor) * map->sub_stripes + (u32)copy;
		row = stripe_nr / factor;
	} else {
		u32 nr_data = map->num_stripes - raid56_parity(map->type);

		row = stripe_nr / nr_data;
		idx = (u32)((stripe_nr % nr_data + row) % map->num_stripes);
	}
	out->physical = map->stripes[idx].physical + row * map->stripe_len + in;
found:
	s = &map->stripes[idx];
	out->dev = s->dev ? s->dev : btrfs_device_find(fs, s->devid, s->dev_uuid);
	if (!out->dev || !out->dev->io) {
		btrfs_fs_set_error(fs, "device %llu is missing", (unsigned long long)s->devid);
		return -ENXIO;
	}
	return 0;
}

int btrfs_chunk_rmap(const struct btrfs_chunk_map *map, u16 stripe, u64 physical, u64 *logical)
{
	u64 p = map->type & BTRFS_BLOCK_GROUP_PROFILE_MASK;
	const struct btrfs_chunk_stripe_map *s = &map->stripes[stripe];
	u64 data_stripes = 1, dev_len = chunk_stripe_size(map), off, row, stripe_nr;

	if (p & (BTRFS_BLOCK_GROUP_RAID5 | BTRFS_BLOCK_GROUP_RAID6))
		return -EOPNOTSUPP;
	if (p & BTRFS_BLOCK_GROUP_RAID0)
		data_stripes = map->num_stripes;
	else if (p & BTRFS_BLOCK_GROUP_RAID10)
		data_stripes = map->num_stripes / map->sub_stripes;
	if (physical < s->physical || physical - s->physical >= dev_len)
		return -ENOENT;
	off = physical - s->physical;
	if (data_stripes == 1) {
		*logical = map->start + off;
		return 0;
	}
	row = off / map->stripe_len;
	if (p & BTRFS_BLOCK_GROUP_RAID0)
		stripe_nr = row * map->num_stripes + stripe;
	else
		stripe_nr = row * data_stripes + stripe / map->sub_stripes;
	*logical = map->start + stripe_nr * map->stripe_len + off % map->stripe_len;
	return 0;
}

int btrfs_map_block(struct btrfs_fs *fs, u64 logical, u64 len, int mirror,
		    struct btrfs_io_stripe *out)
{
	const struct btrfs_chunk_map *map = btrfs_chunk_map_lookup(fs, logical);

	if (!map) {
		btrfs_fs_set_error(fs, "logical %llu: not mapped by any chunk",
				   (unsigned long long)logical);
		return -ENOENT;
	}
	if (mirror < 1 || mirror > map_copies(map))
		return -EINVAL;
	return map_one(fs, map, logical, len, mirror - 1, out);
}

int btrfs_map_block_all(struct btrfs_fs *fs, u64 logical, u64 len,
			struct btrfs_io_stripe *out, int *nr)
{
	const struct btrfs_chunk_map *map = btrfs_chunk_map_lookup(fs, logical);
	int copies;

	*nr = 0;
	if (!map) {
		btrfs_fs_set_error(fs, "logical %llu: not mapped by any chunk",
				   (unsigned long long)logical);
		return -ENOENT;
	}
	if (raid56_parity(map->type)) {
		btrfs_fs_set_error(fs, "chunk %llu: %s: writing not implemented offline (parity)",
				   (unsigned long long)map->start, btrfs_profile_name(map->type));
		return -EOPNOTSUPP;
	}
	copies = map_copies(map);
	for (int i = 0; i < copies; i++) {
		int ret = map_one(fs, map, logical, len, i, &out[i]);

		if (ret < 0)
			return ret;
	}
	*nr = copies;
	return 0;
}

int btrfs_read_logical(struct btrfs_fs *fs, u64 logical, void *buf, u64 len, int mirror)
{
	struct btrfs_io_stripe s;
	int ret;

	ret = btrfs_map_block(fs, logical, len, mirror, &s);
	if (ret < 0)
		return ret;
	ret = btrfs_io_read(s.dev->io, buf, len, s.physical);
	if (ret < 0)
		btrfs_fs_set_error(fs, "device %llu (%s): cannot read at %llu%s",
				   (unsigned long long)s.dev->devid, s.dev->io->name,
				   (unsigned long long)s.physical,
				   s.physical > s.dev->io->size || len > s.dev->io->size - s.physical ?
				   ": beyond its end" : "");
	return ret;
}

int btrfs_write_logical(struct btrfs_fs *fs, u64 logical, const void *buf, u64 len)
{
	struct btrfs_io_stripe s[BTRFS_MAX_MIRRORS];
	int nr, ret;

	ret = btrfs_map_block_all(fs, logical, len, s, &nr);
	if (ret < 0)
		return ret;
	for (int i = 0; i < nr; i++) {
		ret = btrfs_io_write(s[i].dev->io, buf, len, s[i].physical);
		if (ret < 0) {
			btrfs_fs_set_error(fs, "device %llu (%s): cannot write at %llu",
					   (unsigned long long)s[i].dev->devid, s[i].dev->io->name,
					   (unsigned long long)s[i].physical);
			return ret;
		}
	}
	return 0;
}

/* One DEV_EXTENT against the chunk map and its device (the kernel's order) */
int btrfs_dev_extent_check(struct btrfs_dev_extent_check *w, const struct btrfs_key *key,
			   const void *data, u32 len)
{
	struct btrfs_fs *fs = w->fs;
	const struct btrfs_dev_extent *de = data;
	const struct btrfs_chunk_map *map;
	const struct btrfs_device *dev;
	unsigned long long devid = key->objectid, start = key->offset;
	u64 length, chunk;
	size_t idx;
	u16 i;

	if (key->type != BTRFS_DEV_EXTENT_KEY)
		return 1;	/* the device extents come first; the kernel stops here too */
	if (len < sizeof(*de)) {
		btrfs_fs_set_error(fs, "device %llu: extent at %llu: item too short", devid, start);
		return -EUCLEAN;
	}
	length = btrfs_dev_extent_length(de);
	chunk = btrfs_dev_extent_chunk_offset(de);
	if (key->objectid == w->prev_devid && key->offset < w->prev_end) {
		btrfs_fs_set_error(fs, "device %llu: extent at %llu overlaps the previous one, "
				   "which ends at %llu", devid, start,
				   (unsigned long long)w->prev_end);
		return -EUCLEAN;
	}
	idx = chunk_upper(fs, chunk);
	map = idx ? fs->chunks[idx - 1] : NULL;
	if (!map || chunk - map->start >= map->length) {
		btrfs_fs_set_error(fs, "device %llu: extent at %llu belongs to chunk %llu, which "
				   "does not exist", devid, start, (unsigned long long)chunk);
		return -EUCLEAN;
	}
	if (length != chunk_stripe_size(map)) {
		btrfs_fs_set_error(fs, "device %llu: extent at %llu is %llu bytes, a stripe of "
				   "chunk %llu is %llu", devid, start, (unsigned long long)length,
				   (unsigned long long)map->start,
				   (unsigned long long)chunk_stripe_size(map));
		return -EUCLEAN;
	}
	for (i = 0; i < map->num_stripes; i++)
		if (map->stripes[i].devid == key->objectid && map->stripes[i].physical == start)
			break;
	if (i == map->num_stripes) {
		btrfs_fs_set_error(fs, "device %llu: extent at %llu is no stripe of chunk %llu",
				   devid, start, (unsigned long long)map->start);
		return -EUCLEAN;
	}
	if (w->matched[idx - 1] >= map->num_stripes) {
		btrfs_fs_set_error(fs, "chunk %llu: more device extents than its %u stripes",
				   (unsigned long long)map->start, map->num_stripes);
		return -EUCLEAN;
	}
	w->matched[idx - 1]++;
	dev = btrfs_device_find(fs, key->objectid, NULL);
	if (!dev || !dev->in_chunk_tree) {
		btrfs_fs_set_error(fs, "device %llu: has an extent at %llu but no DEV_ITEM", devid,
				   start);
		return -EUCLEAN;
	}
	if (length > dev->total_bytes || key->offset > dev->total_bytes - length) {
		btrfs_fs_set_error(fs, "device %llu: extent at %llu (%llu bytes) ends beyond the "
				   "device's %llu bytes", devid, start, (unsigned long long)length,
				   (unsigned long long)dev->total_bytes);
		return -EUCLEAN;
	}
	w->prev_devid = key->objectid;
	w->prev_end = key->offset + length;
	return 0;
}

int btrfs_dev_extent_check_start(struct btrfs_dev_extent_check *w, struct btrfs_fs *fs)
{
	memset(w, 0, sizeof(*w));
	w->fs = fs;
	w->matched = calloc(fs->nr_chunks ? fs->nr_chunks : 1, sizeof(*w->matched));
	return w->matched ? 0 : -ENOMEM;
}

int btrfs_dev_extent_check_finish(struct btrfs_dev_extent_check *w, int ret)
{
	struct btrfs_fs *fs = w->fs;

	for (size_t i = 0; !ret && i < fs->nr_chunks; i++) {
		const struct btrfs_chunk_map *map = fs->chunks[i];

		if (w->matched[i] == map->num_stripes)
			continue;
		btrfs_fs_set_error(fs, "chunk %llu: %u of its %u stripes have a device extent",
				   (unsigned long long)map->start, w->matched[i], map->num_stripes);
		ret = -EUCLEAN;
	}
	free(w->matched);
	w->matched = NULL;
	return ret;
}

void btrfs_volumes_release(struct btrfs_fs *fs)
{
	for (size_t i = 0; i < fs->nr_chunks; i++)
		free(fs->chunks[i]);
	free(fs->chunks);
	fs->chunks = NULL;
	fs->nr_chunks = fs->chunks_alloc = 0;
	for (size_t i = 0; i < fs->nr_devices; i++)
		free(fs->devices[i]);
	free(fs->devices);
	fs->devices = NULL;
	fs->nr_devices = 0;
}
