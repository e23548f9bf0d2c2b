// SPDX-License-Identifier: GPL-2.0-only
/*
 * A new filesystem on one device (on-disk-engine 1, 3, 11.3).
 *
 * Layout: device extents from 1 MiB on, SYSTEM DUP (2 x 8 MiB), METADATA
 * DUP (both single, one copy, with meta_single), DATA single, each copy moved past any superblock mirror it would
 * cover, so no block group holds a superblock and the free space tree
 * needs no excluded ranges.  Logical addresses equal the physical offset
 * of the first copy.
 *
 * Trees, each one leaf of generation 1: chunk (SYSTEM chunk), root,
 * extent, dev, fs (5), csum, uuid, free space, data reloc, quota (with
 * --quota or --simple-quota), in this order in the METADATA chunk.  Only the root tree may
 * not fit one leaf (4 KiB nodes with quotas: eight ROOT_ITEMs): it is then
 * a level-1 node over two leaves, the node first.  The root tree holds the
 * ROOT_ITEMs, root directory 6 with its "default" entry; the extent tree
 * a METADATA_ITEM per leaf and the BLOCK_GROUP_ITEMs; the free space tree
 * the free extents of every block group.
 *
 * Simple quotas: mkfs.btrfs enables them in a second transaction and then
 * dirties the fs tree's leaf so that it is charged to 0/5 (generation >=
 * enable_gen).  Here everything is one commit of generation 1 and
 * enable_gen is 1, so the one fs tree leaf counts already: 0/5 = one
 * nodesize, the same as a kernel mount then keeps.  As the kernel does in
 * simple mode, the *_cmpr fields stay 0.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <uuid/uuid.h>
#include "csum.h"
#include "ctree-write.h"
#include "errmsg.h"
#include "io.h"
#include "super.h"
#include "mkfs.h"
#include "ctree.h"
#include "fs.h"
#include "volumes.h"

#define MKFS_GEN		1ULL
#define SZ_1M			(1ULL << 20)
#define SYS_CHUNK_SIZE		(8ULL << 20)
#define SYS_CHUNK_SIZE_SHRINK	(4ULL << 20)
#define STRIPE_LEN		65536U
#define SECTORSIZE		4096U

enum { T_CHUNK, T_ROOT, T_EXTENT, T_DEV, T_FS, T_CSUM, T_UUID, T_FST, T_RELOC, T_QUOTA, T_MAX };

static const u64 tree_ids[T_MAX] = {
	BTRFS_CHUNK_TREE_OBJECTID, BTRFS_ROOT_TREE_OBJECTID, BTRFS_EXTENT_TREE_OBJECTID,
	BTRFS_DEV_TREE_OBJECTID, BTRFS_FS_TREE_OBJECTID, BTRFS_CSUM_TREE_OBJECTID,
	BTRFS_UUID_TREE_OBJECTID, BTRFS_FREE_SPACE_TREE_OBJECTID, BTRFS_DATA_RELOC_TREE_OBJECTID,
	BTRFS_QUOTA_TREE_OBJECTID,
};

struct mk_chunk {
	u64 logical, length, type;
	int nr_stripes;
	u64 phys[2];
	u64 used;
};

/* SYSTEM, METADATA, then up to MKFS_MAX_DATA_CHUNKS DATA chunks */
enum { C_SYS, C_META, C_DATA, C_MAX = C_DATA + BTRFS_MKFS_MAX_DATA_CHUNKS };

struct mk_item {
	struct btrfs_key key;
	u8 *data;
	u32 size;
};

struct mk_leaf {
	struct mk_item *items;
	u32 nr, cap;
};

struct mkfs_ctx {
	const struct btrfs_mkfs_args *a;
	u32 ns;
	u64 size;
	u8 fsid[BTRFS_FSID_SIZE], chunk_uuid[BTRFS_UUID_SIZE], dev_uuid[BTRFS_UUID_SIZE];
	u8 fs_uuid[BTRFS_UUID_SIZE];
	struct mk_chunk chunks[C_MAX];
	int nr_chunks;
	u64 bytenr[T_MAX];
	bool has[T_MAX];
	struct mk_leaf leaves[T_MAX];
	u64 dev_used;
	/* root tree as a node over two leaves (bytenr[T_ROOT] is the node) */
	bool root_split;
	u64 root_leaf[2];
	u32 root_split_at;		/* first item of the second leaf */
};

static int leaf_add(struct mk_leaf *l, u64 objectid, u8 type, u64 offset, const void *data,
		    u32 size)
{
	struct mk_item *it;

	if (l->nr == l->cap) {
		u32 ncap = l->cap ? l->cap * 2 : 16;
		struct mk_item *p = realloc(l->items, ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		l->items = p;
		l->cap = ncap;
	}
	it = &l->items[l->nr];
	it->key = (struct btrfs_key){ objectid, type, offset };
	it->size = size;
	it->data = NULL;
	if (size) {
		it->data = malloc(size);
		if (!it->data)
			return -ENOMEM;
		memcpy(it->data, data, size);
	}
	l->nr++;
	return 0;
}

static int item_cmp(const void *x, const void *y)
{
	return btrfs_key_cmp(&((const struct mk_item *)x)->key, &((const struct mk_item *)y)->key);
}

static void leaf_release(struct mk_leaf *l)
{
	for (u32 i = 0; i < l->nr; i++)
		free(l->items[i].data);
	free(l->items);
	memset(l, 0, sizeof(*l));
}

/* Physical range for @len bytes at or after *@cur, clear of superblock mirrors */
static u64 place(struct mkfs_ctx *c, u64 *cur, u64 len)
{
	for (int m = 1; m < BTRFS_SUPER_MIRROR_MAX; m++) {
		u64 sb = btrfs_sb_offset(m);

		if (*cur < sb + BTRFS_SUPER_INFO_SIZE && sb < *cur + len)
			*cur = (sb + BTRFS_SUPER_INFO_SIZE + SZ_1M - 1) & ~(SZ_1M - 1);
	}
	(void)c;
	*cur += len;
	return *cur - len;
}

static u64 clamp_mb(u64 v, u64 lo, u64 hi)
{
	v &= ~(SZ_1M - 1);
	return v < lo ? lo : v > hi ? hi : v;
}

/* Bytes from *@cur to the next superblock copy's window, 0 if none is that close */
static u64 room_before_mirror(u64 cur, u64 len)
{
	for (int m = 1; m < BTRFS_SUPER_MIRROR_MAX; m++) {
		u64 sb = btrfs_sb_offset(m);

		if (cur < sb + BTRFS_SUPER_INFO_SIZE && sb < cur + len)
			return sb > cur ? (sb - cur) & ~(SZ_1M - 1) : 0;
	}
	return 0;
}

/*
 * DATA chunks of @data bytes in all, each at most BTRFS_MKFS_DATA_CHUNK_MAX;
 * with shrink a chunk that would cover a superblock copy is cut before it
 * (the rest follows it) instead of moving past it and leaving the gap
 */
static int place_data(struct mkfs_ctx *c, u64 *cur, u64 data)
{
	while (data) {
		u64 len = data < BTRFS_MKFS_DATA_CHUNK_MAX ? data : BTRFS_MKFS_DATA_CHUNK_MAX;
		u64 room = c->a->shrink ? room_before_mirror(*cur, len) : 0;
		struct mk_chunk *ch;

		if (room)
			len = room;

		if (c->nr_chunks == C_MAX) {
			btrfs_errmsg_set(c->a->errmsg, "%llu bytes of data chunks: at most %d chunks of %llu bytes",
					 (unsigned long long)c->a->data_size, BTRFS_MKFS_MAX_DATA_CHUNKS,
					 (unsigned long long)BTRFS_MKFS_DATA_CHUNK_MAX);
			return -EOPNOTSUPP;
		}
		ch = &c->chunks[c->nr_chunks++];
		ch->type = BTRFS_BLOCK_GROUP_DATA;
		ch->length = len;
		ch->nr_stripes = 1;
		ch->phys[0] = place(c, cur, ch->length);
		data -= len;
	}
	return 0;
}

/* A SYSTEM or METADATA chunk of @len bytes: DUP (two copies) or single */
static void place_meta(struct mkfs_ctx *c, u64 *cur, struct mk_chunk *ch, u64 type, u64 len)
{
	ch->type = type | (c->a->meta_single ? 0 : BTRFS_BLOCK_GROUP_DUP);
	ch->length = len;
	ch->nr_stripes = c->a->meta_single ? 1 : 2;
	for (int s = 0; s < ch->nr_stripes; s++)
		ch->phys[s] = place(c, cur, ch->length);
}

static int layout(struct mkfs_ctx *c)
{
	u64 cur = SZ_1M;
	u64 meta = c->a->meta_size ? c->a->meta_size :
		   clamp_mb(c->size / 10, 16 * SZ_1M, 256 * SZ_1M);
	u64 data = c->a->data_size ? c->a->data_size :
		   clamp_mb(c->size / 10, 8 * SZ_1M, 1024 * SZ_1M);
	struct mk_chunk *ch;
	int ret = 0;

	c->nr_chunks = C_DATA;
	ch = &c->chunks[C_SYS];
	/* shrink: btrfs-progs' smallest system chunk, room for 256 chunk tree blocks */
	place_meta(c, &cur, ch, BTRFS_BLOCK_GROUP_SYSTEM,
		   c->a->shrink ? SYS_CHUNK_SIZE_SHRINK : SYS_CHUNK_SIZE);
	/* shrink: data first, so the metadata sized by a measuring run ends the device */
	if (c->a->shrink)
		ret = place_data(c, &cur, data);
	ch = &c->chunks[C_META];
	place_meta(c, &cur, ch, BTRFS_BLOCK_GROUP_METADATA, meta);
	if (!c->a->shrink)
		ret = place_data(c, &cur, data);
	if (ret < 0)
		return ret;
	if (c->a->shrink) {
		if (cur > c->a->dev->size) {
			btrfs_errmsg_set(c->a->errmsg, "device too small: %llu bytes, the tree needs %llu",
					 (unsigned long long)c->a->dev->size,
					 (unsigned long long)cur);
			return -ENOSPC;
		}
		c->size = cur;
	}
	if (cur > c->size) {
		btrfs_errmsg_set(c->a->errmsg, "device too small: %llu bytes, this layout needs %llu",
				 (unsigned long long)c->size, (unsigned long long)cur);
		return -ENOSPC;
	}
	c->dev_used = 0;
	for (int i = 0; i < c->nr_chunks; i++) {
		c->chunks[i].logical = c->chunks[i].phys[0];
		c->dev_used += c->chunks[i].length * (u64)c->chunks[i].nr_stripes;
	}
	/* tree blocks: the chunk tree in SYSTEM, the rest in METADATA */
	c->bytenr[T_CHUNK] = c->chunks[C_SYS].logical;
	c->chunks[C_SYS].used = c->ns;
	for (int t = T_ROOT, n = 0; t < T_MAX; t++) {
		if (!c->has[t])
			continue;
		c->bytenr[t] = c->chunks[C_META].logical + (u64)n++ * c->ns;
		c->chunks[C_META].used += c->ns;
		if (t == T_ROOT && c->root_split) {
			for (int i = 0; i < 2; i++) {
				c->root_leaf[i] = c->chunks[C_META].logical + (u64)n++ * c->ns;
				c->chunks[C_META].used += c->ns;
			}
		}
	}
	return 0;
}

/* Bytes the root tree's items take in a leaf (fill_root_tree() adds them) */
static u32 root_tree_bytes(const struct mkfs_ctx *c)
{
	const u32 hdr = sizeof(struct btrfs_item);
	u32 bytes = 0;

	for (int t = T_EXTENT; t < T_MAX; t++) {
		if (c->has[t])
			bytes += hdr + (u32)sizeof(struct btrfs_root_item);
	}
	bytes += hdr + (u32)sizeof(struct btrfs_inode_item);		/* dir 6 */
	bytes += hdr + (u32)sizeof(struct btrfs_inode_ref) + 2;	/* ".." */
	bytes += hdr + (u32)sizeof(struct btrfs_dir_item) + 7;	/* "default" */
	return bytes;
}

static void set_time(struct btrfs_timespec *ts, u64 sec)
{
	btrfs_set_timespec_sec(ts, sec);
	btrfs_set_timespec_nsec(ts, 0);
}

static void dir_inode(struct btrfs_inode_item *ii, u64 nbytes, u64 now)
{
	memset(ii, 0, sizeof(*ii));
	btrfs_set_inode_generation(ii, MKFS_GEN);
	btrfs_set_inode_transid(ii, MKFS_GEN);
	btrfs_set_inode_nbytes(ii, nbytes);
	btrfs_set_inode_nlink(ii, 1);
	btrfs_set_inode_mode(ii, 040755);
	set_time(btrfs_inode_atime(ii), now);
	set_time(btrfs_inode_ctime(ii), now);
	set_time(btrfs_inode_mtime(ii), now);
	set_time(btrfs_inode_otime(ii), now);
}

static int add_inode_ref(struct mk_leaf *l, u64 ino, u64 parent, const char *name)
{
	u8 buf[sizeof(struct btrfs_inode_ref) + 16];
	size_t len = strlen(name);

	memset(buf, 0, sizeof(buf));
	btrfs_set_inode_ref_index((struct btrfs_inode_ref *)buf, 0);
	btrfs_set_inode_ref_name_len((struct btrfs_inode_ref *)buf, (u16)len);
	memcpy(buf + sizeof(struct btrfs_inode_ref), name, len);
	return leaf_add(l, ino, BTRFS_INODE_REF_KEY, parent, buf,
			(u32)(sizeof(struct btrfs_inode_ref) + len));
}

/* A subvolume-style tree: directory 256 with ".." */
static int fill_dir_tree(struct mkfs_ctx *c, struct mk_leaf *l, u64 nbytes)
{
	struct btrfs_inode_item ii;
	int ret;

	dir_inode(&ii, nbytes, c->a->now_sec);
	ret = leaf_add(l, BTRFS_FIRST_FREE_OBJECTID, BTRFS_INODE_ITEM_KEY, 0, &ii, sizeof(ii));
	if (!ret)
		ret = add_inode_ref(l, BTRFS_FIRST_FREE_OBJECTID, BTRFS_FIRST_FREE_OBJECTID, "..");
	return ret;
}

static int add_root_item(struct mkfs_ctx *c, int t)
{
	struct btrfs_root_item ri;

	memset(&ri, 0, sizeof(ri));
	btrfs_set_root_generation(&ri, MKFS_GEN);
	btrfs_set_root_generation_v2(&ri, MKFS_GEN);
	btrfs_set_root_bytenr(&ri, c->bytenr[t]);
	btrfs_set_root_bytes_used(&ri, c->ns);
	btrfs_set_root_refs(&ri, 1);
	if (t == T_FS || t == T_RELOC) {
		struct btrfs_inode_item *ii = btrfs_root_inode(&ri);

		btrfs_set_root_root_dirid(&ri, BTRFS_FIRST_FREE_OBJECTID);
		btrfs_set_inode_generation(ii, 1);
		btrfs_set_inode_size(ii, 3);
		btrfs_set_inode_nlink(ii, 1);
		btrfs_set_inode_nbytes(ii, c->ns);
		btrfs_set_inode_mode(ii, 040755);
		btrfs_set_inode_flags(ii, BTRFS_INODE_ROOT_ITEM_INIT);
	}
	if (t == T_FS) {
		memcpy(btrfs_root_uuid(&ri), c->fs_uuid, BTRFS_UUID_SIZE);
		set_time(btrfs_root_ctime(&ri), c->a->now_sec);
		set_time(btrfs_root_otime(&ri), c->a->now_sec);
	}
	return leaf_add(&c->leaves[T_ROOT], tree_ids[t], BTRFS_ROOT_ITEM_KEY, 0, &ri, sizeof(ri));
}

static int fill_root_tree(struct mkfs_ctx *c)
{
	struct mk_leaf *l = &c->leaves[T_ROOT];
	struct btrfs_inode_item ii;
	u8 di[sizeof(struct btrfs_dir_item) + 7];
	struct btrfs_key loc = { BTRFS_FS_TREE_OBJECTID, BTRFS_ROOT_ITEM_KEY, (u64)-1 };
	int ret = 0;

	for (int t = T_EXTENT; t < T_MAX && !ret; t++) {
		if (c->has[t])
			ret = add_root_item(c, t);
	}
	if (ret)
		return ret;
	/* the root tree directory and its "default" entry (5.4) */
	dir_inode(&ii, c->ns, c->a->now_sec);
	ret = leaf_add(l, BTRFS_ROOT_TREE_DIR_OBJECTID, BTRFS_INODE_ITEM_KEY, 0, &ii, sizeof(ii));
	if (!ret)
		ret = add_inode_ref(l, BTRFS_ROOT_TREE_DIR_OBJECTID, BTRFS_ROOT_TREE_DIR_OBJECTID, "..");
	memset(di, 0, sizeof(di));
	btrfs_set_dir_location((struct btrfs_dir_item *)di, &loc);
	btrfs_set_dir_name_len((struct btrfs_dir_item *)di, 7);
	btrfs_set_dir_type((struct btrfs_dir_item *)di, BTRFS_FT_DIR);
	memcpy(di + sizeof(struct btrfs_dir_item), "default", 7);
	if (!ret)
		ret = leaf_add(l, BTRFS_ROOT_TREE_DIR_OBJECTID, BTRFS_DIR_ITEM_KEY,
			       btrfs_name_hash("default", 7), di, sizeof(di));
	return ret;
}

static int fill_chunk_tree(struct mkfs_ctx *c, u8 *sys_array, u32 *sys_array_size)
{
	struct mk_leaf *l = &c->leaves[T_CHUNK];
	struct btrfs_dev_item dev;
	int ret;

	memset(&dev, 0, sizeof(dev));
	btrfs_set_dev_item_devid(&dev, 1);
	btrfs_set_dev_item_total_bytes(&dev, c->size);
	btrfs_set_dev_item_bytes_used(&dev, c->dev_used);
	btrfs_set_dev_item_io_align(&dev, SECTORSIZE);
	btrfs_set_dev_item_io_width(&dev, SECTORSIZE);
	btrfs_set_dev_item_sector_size(&dev, SECTORSIZE);
	btrfs_set_dev_item_uuid(&dev, c->dev_uuid);
	btrfs_set_dev_item_fsid(&dev, c->fsid);
	ret = leaf_add(l, BTRFS_DEV_ITEMS_OBJECTID, BTRFS_DEV_ITEM_KEY, 1, &dev, sizeof(dev));
	*sys_array_size = 0;
	for (int i = 0; i < c->nr_chunks && !ret; i++) {
		const struct mk_chunk *ch = &c->chunks[i];
		u8 buf[sizeof(struct btrfs_chunk) + 2 * sizeof(struct btrfs_stripe)];
		struct btrfs_chunk *chunk = (struct btrfs_chunk *)buf;
		u32 size = btrfs_chunk_item_size((u32)ch->nr_stripes);

		memset(buf, 0, sizeof(buf));
		btrfs_set_chunk_length(chunk, ch->length);
		btrfs_set_chunk_owner(chunk, BTRFS_EXTENT_TREE_OBJECTID);
		btrfs_set_chunk_stripe_len(chunk, STRIPE_LEN);
		btrfs_set_chunk_type(chunk, ch->type);
		btrfs_set_chunk_io_align(chunk, STRIPE_LEN);
		btrfs_set_chunk_io_width(chunk, STRIPE_LEN);
		btrfs_set_chunk_sector_size(chunk, SECTORSIZE);
		btrfs_set_chunk_num_stripes(chunk, (u16)ch->nr_stripes);
		btrfs_set_chunk_sub_stripes(chunk, 1);
		for (int s = 0; s < ch->nr_stripes; s++) {
			struct btrfs_stripe *st = btrfs_chunk_stripe(chunk, s);

			btrfs_set_stripe_devid(st, 1);
			btrfs_set_stripe_offset(st, ch->phys[s]);
			btrfs_set_stripe_dev_uuid(st, c->dev_uuid);
		}
		ret = leaf_add(l, BTRFS_FIRST_CHUNK_TREE_OBJECTID, BTRFS_CHUNK_ITEM_KEY, ch->logical,
			       buf, size);
		if (!ret && (ch->type & BTRFS_BLOCK_GROUP_SYSTEM)) {
			struct btrfs_key k = { BTRFS_FIRST_CHUNK_TREE_OBJECTID, BTRFS_CHUNK_ITEM_KEY,
					       ch->logical };

			btrfs_cpu_key_to_disk((struct btrfs_disk_key *)(sys_array + *sys_array_size),
					      &k);
			*sys_array_size += sizeof(struct btrfs_disk_key);
			memcpy(sys_array + *sys_array_size, buf, size);
			*sys_array_size += size;
		}
	}
	return ret;
}

static int fill_dev_tree(struct mkfs_ctx *c)
{
	int ret = 0;

	for (int i = 0; i < c->nr_chunks && !ret; i++) {
		for (int s = 0; s < c->chunks[i].nr_stripes && !ret; s++) {
			struct btrfs_dev_extent de;

			memset(&de, 0, sizeof(de));
			btrfs_set_dev_extent_chunk_tree(&de, BTRFS_CHUNK_TREE_OBJECTID);
			btrfs_set_dev_extent_chunk_objectid(&de, BTRFS_FIRST_CHUNK_TREE_OBJECTID);
			btrfs_set_dev_extent_chunk_offset(&de, c->chunks[i].logical);
			btrfs_set_dev_extent_length(&de, c->chunks[i].length);
			btrfs_set_dev_extent_chunk_tree_uuid(&de, c->chunk_uuid);
			ret = leaf_add(&c->leaves[T_DEV], 1, BTRFS_DEV_EXTENT_KEY, c->chunks[i].phys[s],
				       &de, sizeof(de));
		}
	}
	return ret;
}

static int fill_extent_tree(struct mkfs_ctx *c)
{
	struct mk_leaf *l = &c->leaves[T_EXTENT];
	int ret = 0;

	for (int t = 0; t < T_MAX && !ret; t++) {
		u8 buf[sizeof(struct btrfs_extent_item) + 9];
		struct btrfs_extent_item *ei = (struct btrfs_extent_item *)buf;

		if (!c->has[t])
			continue;
		memset(buf, 0, sizeof(buf));
		btrfs_set_extent_refs(ei, 1);
		btrfs_set_extent_generation(ei, MKFS_GEN);
		btrfs_set_extent_flags(ei, BTRFS_EXTENT_FLAG_TREE_BLOCK);
		buf[sizeof(*ei)] = BTRFS_TREE_BLOCK_REF_KEY;
		put_le64(buf + sizeof(*ei) + 1, tree_ids[t]);
		if (t == T_ROOT && c->root_split) {
			ret = leaf_add(l, c->bytenr[t], BTRFS_METADATA_ITEM_KEY, 1, buf,
				       sizeof(buf));
			for (int i = 0; i < 2 && !ret; i++)
				ret = leaf_add(l, c->root_leaf[i], BTRFS_METADATA_ITEM_KEY, 0, buf,
					       sizeof(buf));
			continue;
		}
		ret = leaf_add(l, c->bytenr[t], BTRFS_METADATA_ITEM_KEY, 0, buf, sizeof(buf));
	}
	for (int i = 0; i < c->nr_chunks && !ret; i++) {
		struct btrfs_block_group_item bg;

		btrfs_set_block_group_used(&bg, c->chunks[i].used);
		btrfs_set_block_group_chunk_objectid(&bg, BTRFS_FIRST_CHUNK_TREE_OBJECTID);
		btrfs_set_block_group_flags(&bg, c->chunks[i].type);
		ret = leaf_add(l, c->chunks[i].logical, BTRFS_BLOCK_GROUP_ITEM_KEY,
			       c->chunks[i].length, &bg, sizeof(bg));
	}
	return ret;
}

/* Used space of each block group is one run at its start */
static int fill_fst(struct mkfs_ctx *c)
{
	struct mk_leaf *l = &c->leaves[T_FST];
	int ret = 0;

	for (int i = 0; i < c->nr_chunks && !ret; i++) {
		const struct mk_chunk *ch = &c->chunks[i];
		struct btrfs_free_space_info info;
		bool any = ch->used < ch->length;

		btrfs_set_free_space_info_extent_count(&info, any ? 1 : 0);
		btrfs_set_free_space_info_flags(&info, 0);
		ret = leaf_add(l, ch->logical, BTRFS_FREE_SPACE_INFO_KEY, ch->length, &info,
			       sizeof(info));
		if (!ret && any)
			ret = leaf_add(l, ch->logical + ch->used, BTRFS_FREE_SPACE_EXTENT_KEY,
				       ch->length - ch->used, NULL, 0);
	}
	return ret;
}

static int fill_quota_tree(struct mkfs_ctx *c)
{
	struct mk_leaf *l = &c->leaves[T_QUOTA];
	struct btrfs_qgroup_status_item st;
	struct btrfs_qgroup_info_item info;
	struct btrfs_qgroup_limit_item lim;
	int ret;

	memset(&st, 0, sizeof(st));
	btrfs_set_qgroup_status_version(&st, BTRFS_QGROUP_STATUS_VERSION);
	btrfs_set_qgroup_status_generation(&st, MKFS_GEN);
	if (c->a->simple_quota) {
		btrfs_set_qgroup_status_flags(&st, BTRFS_QGROUP_STATUS_FLAG_ON |
					      BTRFS_QGROUP_STATUS_FLAG_SIMPLE_MODE);
		btrfs_set_qgroup_status_enable_gen(&st, MKFS_GEN);
	} else {
		btrfs_set_qgroup_status_flags(&st, BTRFS_QGROUP_STATUS_FLAG_ON);
	}
	ret = leaf_add(l, 0, BTRFS_QGROUP_STATUS_KEY, 0, &st, sizeof(st));
	/* 0/5 holds exactly the fs tree's leaf */
	memset(&info, 0, sizeof(info));
	btrfs_set_qgroup_info_generation(&info, MKFS_GEN);
	btrfs_set_qgroup_info_rfer(&info, c->ns);
	btrfs_set_qgroup_info_excl(&info, c->ns);
	if (!c->a->simple_quota) {
		btrfs_set_qgroup_info_rfer_cmpr(&info, c->ns);
		btrfs_set_qgroup_info_excl_cmpr(&info, c->ns);
	}
	if (!ret)
		ret = leaf_add(l, 0, BTRFS_QGROUP_INFO_KEY, BTRFS_FS_TREE_OBJECTID, &info,
			       sizeof(info));
	memset(&lim, 0, sizeof(lim));
	if (!ret)
		ret = leaf_add(l, 0, BTRFS_QGROUP_LIMIT_KEY, BTRFS_FS_TREE_OBJECTID, &lim,
			       sizeof(lim));
	return ret;
}

static int fill_trees(struct mkfs_ctx *c, u8 *sys_array, u32 *sys_array_size)
{
	struct btrfs_key key;
	u8 id[8];
	int ret;

	ret = fill_chunk_tree(c, sys_array, sys_array_size);
	if (!ret)
		ret = fill_root_tree(c);
	if (!ret)
		ret = fill_extent_tree(c);
	if (!ret)
		ret = fill_dev_tree(c);
	if (!ret)
		ret = fill_dir_tree(c, &c->leaves[T_FS], c->ns);
	if (!ret)
		ret = fill_dir_tree(c, &c->leaves[T_RELOC], 0);
	if (!ret) {
		btrfs_uuid_to_key(c->fs_uuid, BTRFS_UUID_KEY_SUBVOL, &key);
		put_le64(id, BTRFS_FS_TREE_OBJECTID);
		ret = leaf_add(&c->leaves[T_UUID], key.objectid, key.type, key.offset, id, 8);
	}
	if (!ret)
		ret = fill_fst(c);
	if (!ret && c->has[T_QUOTA])
		ret = fill_quota_tree(c);
	return ret;
}

/* Header and checksum of a block of tree @t at @bytenr */
static int finish_block(struct mkfs_ctx *c, int t, u64 bytenr, u8 level, u32 nritems, u8 *buf)
{
	struct btrfs_header *h = (struct btrfs_header *)buf;
	u8 csum[BTRFS_CSUM_MAX_SIZE];
	int ret;

	btrfs_set_header_fsid(h, c->fsid);
	btrfs_set_header_bytenr(h, bytenr);
	btrfs_set_header_flags(h, BTRFS_HEADER_FLAG_WRITTEN |
			       ((u64)BTRFS_MIXED_BACKREF_REV << BTRFS_BACKREF_REV_SHIFT));
	btrfs_set_header_chunk_tree_uuid(h, c->chunk_uuid);
	btrfs_set_header_generation(h, MKFS_GEN);
	btrfs_set_header_owner(h, tree_ids[t]);
	btrfs_set_header_nritems(h, nritems);
	btrfs_set_header_level(h, level);
	memset(csum, 0, sizeof(csum));
	ret = btrfs_csum_data(c->a->csum_type, buf + BTRFS_CSUM_SIZE, c->ns - BTRFS_CSUM_SIZE,
			      csum);
	if (ret < 0)
		return ret;
	memcpy(buf, csum, BTRFS_CSUM_SIZE);
	return 0;
}

/* Pack the sorted items [@from, @to) of tree @t into the leaf at @bytenr */
static int build_leaf(struct mkfs_ctx *c, int t, u32 from, u32 to, u64 bytenr, u8 *buf)
{
	struct mk_leaf *l = &c->leaves[t];

	memset(buf, 0, c->ns);
	for (u32 i = from; i < to; i++) {
		if (btrfs_leaf_append(buf, c->ns, &l->items[i].key, l->items[i].data,
				      l->items[i].size)) {
			btrfs_errmsg_set(c->a->errmsg, "tree %lld: does not fit one leaf",
					 (long long)tree_ids[t]);
			return -EOVERFLOW;
		}
	}
	return finish_block(c, t, bytenr, 0, to - from, buf);
}

/* The root tree's level-1 node over its two leaves */
static int build_root_node(struct mkfs_ctx *c, u8 *buf)
{
	struct mk_leaf *l = &c->leaves[T_ROOT];
	u32 first[2] = { 0, c->root_split_at };

	memset(buf, 0, c->ns);
	for (int i = 0; i < 2; i++) {
		struct btrfs_key_ptr *kp = (struct btrfs_key_ptr *)(buf + sizeof(struct btrfs_header) +
								    i * sizeof(struct btrfs_key_ptr));

		btrfs_set_key_ptr_key(kp, &l->items[first[i]].key);
		btrfs_set_key_ptr_blockptr(kp, c->root_leaf[i]);
		btrfs_set_key_ptr_generation(kp, MKFS_GEN);
	}
	return finish_block(c, T_ROOT, c->bytenr[T_ROOT], 1, 2, buf);
}

/* Bytes items [@from, @to) of @l take in a leaf */
static u32 items_bytes(const struct mk_leaf *l, u32 from, u32 to)
{
	u32 bytes = 0;

	for (u32 i = from; i < to; i++)
		bytes += (u32)sizeof(struct btrfs_item) + l->items[i].size;
	return bytes;
}

/* Split point of the root tree: the first leaf as full as half the bytes */
static int split_root_tree(struct mkfs_ctx *c)
{
	struct mk_leaf *l = &c->leaves[T_ROOT];
	u32 total = items_bytes(l, 0, l->nr), at = 0;

	while (at < l->nr && 2 * items_bytes(l, 0, at + 1) <= total)
		at++;
	if (at == 0 || at >= l->nr ||
	    items_bytes(l, 0, at) > btrfs_leaf_data_size(c->ns) ||
	    items_bytes(l, at, l->nr) > btrfs_leaf_data_size(c->ns)) {
		btrfs_errmsg_set(c->a->errmsg, "root tree: does not fit two leaves");
		return -EOVERFLOW;
	}
	c->root_split_at = at;
	return 0;
}

/* Write every leaf to every copy of its chunk */
static int write_leaves(struct mkfs_ctx *c)
{
	u8 *buf = malloc(c->ns);
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	for (int t = 0; t < T_MAX && !ret; t++) {
		const struct mk_chunk *ch = &c->chunks[t == T_CHUNK ? C_SYS : C_META];

		struct mk_leaf *l = &c->leaves[t];
		u64 blocks[3];
		int nr_blocks = 1;

		if (!c->has[t])
			continue;
		if (l->nr)
			qsort(l->items, l->nr, sizeof(*l->items), item_cmp);
		blocks[0] = c->bytenr[t];
		if (t == T_ROOT && c->root_split) {
			ret = split_root_tree(c);
			blocks[1] = c->root_leaf[0];
			blocks[2] = c->root_leaf[1];
			nr_blocks = 3;
		}
		for (int b = 0; b < nr_blocks && !ret; b++) {
			if (nr_blocks == 1)
				ret = build_leaf(c, t, 0, l->nr, blocks[0], buf);
			else if (b == 0)
				ret = build_root_node(c, buf);
			else
				ret = build_leaf(c, t, b == 1 ? 0 : c->root_split_at,
						 b == 1 ? c->root_split_at : l->nr, blocks[b], buf);
			for (int s = 0; s < ch->nr_stripes && !ret; s++)
				ret = btrfs_io_write(c->a->dev, buf, c->ns,
						     ch->phys[s] + (blocks[b] - ch->logical));
		}
	}
	free(buf);
	return ret;
}

static void fill_super(struct mkfs_ctx *c, struct btrfs_super_block *sb, const u8 *sys_array,
		       u32 sys_array_size)
{
	struct btrfs_dev_item *dev = btrfs_super_dev_item(sb);
	struct btrfs_root_backup *b = btrfs_super_backup(sb, 0);
	u64 incompat = BTRFS_FEATURE_INCOMPAT_MIXED_BACKREF | BTRFS_FEATURE_INCOMPAT_EXTENDED_IREF |
		       BTRFS_FEATURE_INCOMPAT_SKINNY_METADATA | BTRFS_FEATURE_INCOMPAT_NO_HOLES;
	u64 used = 0;

	if (c->ns > SECTORSIZE)
		incompat |= BTRFS_FEATURE_INCOMPAT_BIG_METADATA;
	if (c->a->simple_quota)
		incompat |= BTRFS_FEATURE_INCOMPAT_SIMPLE_QUOTA;
	for (int i = 0; i < c->nr_chunks; i++)
		used += c->chunks[i].used;
	memset(sb, 0, sizeof(*sb));
	btrfs_set_super_fsid(sb, c->fsid);
	btrfs_set_super_flags(sb, BTRFS_HEADER_FLAG_WRITTEN);
	btrfs_set_super_magic(sb, BTRFS_MAGIC);
	btrfs_set_super_generation(sb, MKFS_GEN);
	btrfs_set_super_root(sb, c->bytenr[T_ROOT]);
	btrfs_set_super_root_level(sb, c->root_split ? 1 : 0);
	btrfs_set_super_chunk_root(sb, c->bytenr[T_CHUNK]);
	btrfs_set_super_total_bytes(sb, c->size);
	btrfs_set_super_bytes_used(sb, used);
	btrfs_set_super_root_dir_objectid(sb, BTRFS_ROOT_TREE_DIR_OBJECTID);
	btrfs_set_super_num_devices(sb, 1);
	btrfs_set_super_sectorsize(sb, SECTORSIZE);
	btrfs_set_super_nodesize(sb, c->ns);
	btrfs_set_super_unused_leafsize(sb, c->ns);
	btrfs_set_super_stripesize(sb, SECTORSIZE);
	btrfs_set_super_sys_chunk_array_size(sb, sys_array_size);
	memcpy(btrfs_super_sys_chunk_array(sb), sys_array, sys_array_size);
	btrfs_set_super_chunk_root_generation(sb, MKFS_GEN);
	btrfs_set_super_compat_ro_flags(sb, BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE |
					BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE_VALID);
	btrfs_set_super_incompat_flags(sb, incompat);
	btrfs_set_super_csum_type(sb, c->a->csum_type);
	btrfs_set_super_uuid_tree_generation(sb, MKFS_GEN);
	if (c->a->label)
		memcpy(btrfs_super_label(sb), c->a->label, strlen(c->a->label));
	btrfs_set_dev_item_devid(dev, 1);
	btrfs_set_dev_item_total_bytes(dev, c->size);
	btrfs_set_dev_item_bytes_used(dev, c->dev_used);
	btrfs_set_dev_item_io_align(dev, SECTORSIZE);
	btrfs_set_dev_item_io_width(dev, SECTORSIZE);
	btrfs_set_dev_item_sector_size(dev, SECTORSIZE);
	btrfs_set_dev_item_uuid(dev, c->dev_uuid);
	btrfs_set_dev_item_fsid(dev, c->fsid);
	btrfs_set_backup_tree_root(b, c->bytenr[T_ROOT]);
	btrfs_set_backup_tree_root_gen(b, MKFS_GEN);
	btrfs_set_backup_tree_root_level(b, c->root_split ? 1 : 0);
	btrfs_set_backup_chunk_root(b, c->bytenr[T_CHUNK]);
	btrfs_set_backup_chunk_root_gen(b, MKFS_GEN);
	btrfs_set_backup_extent_root(b, c->bytenr[T_EXTENT]);
	btrfs_set_backup_extent_root_gen(b, MKFS_GEN);
	btrfs_set_backup_fs_root(b, c->bytenr[T_FS]);
	btrfs_set_backup_fs_root_gen(b, MKFS_GEN);
	btrfs_set_backup_dev_root(b, c->bytenr[T_DEV]);
	btrfs_set_backup_dev_root_gen(b, MKFS_GEN);
	btrfs_set_backup_csum_root(b, c->bytenr[T_CSUM]);
	btrfs_set_backup_csum_root_gen(b, MKFS_GEN);
	btrfs_set_backup_total_bytes(b, c->size);
	btrfs_set_backup_bytes_used(b, used);
	btrfs_set_backup_num_devices(b, 1);
}

/* Superblock copies that fit, in order: primary first, flushed before the others */
static int write_supers(struct mkfs_ctx *c, struct btrfs_super_block *sb)
{
	int ret;

	for (int m = 0; m < BTRFS_SUPER_MIRROR_MAX; m++) {
		u64 off = btrfs_sb_offset(m);

		/* the filesystem's size, not the device's (a shrunk one ends before) */
		if (off + BTRFS_SUPER_INFO_SIZE > c->size)
			break;
		btrfs_set_super_bytenr(sb, off);
		ret = btrfs_super_csum_update(sb);
		if (ret < 0)
			return ret;
		ret = btrfs_io_write(c->a->dev, sb, sizeof(*sb), off);
		if (ret < 0)
			return ret;
		if (m == 0) {
			/* the primary is what makes the image valid: on disk first */
			ret = btrfs_io_flush(c->a->dev);
			if (ret < 0)
				return ret;
		}
	}
	return btrfs_io_flush(c->a->dev);
}

/*
 * An old filesystem stops being one before anything else is written: the
 * other copies are zeroed and flushed first, then the primary, flushed
 * before any tree block lands where the old trees may be.  A power cut on
 * the way leaves the old filesystem whole or no filesystem, never a valid
 * copy without its primary (the kernel reads only the primary; a tool that
 * takes the newest valid copy would find the old filesystem there) nor an
 * old primary over overwritten trees.
 */
static int zero_supers(struct mkfs_ctx *c)
{
	static const u8 zero[BTRFS_SUPER_INFO_SIZE];
	int ret;

	for (int m = 1; m < BTRFS_SUPER_MIRROR_MAX; m++) {
		u64 off = btrfs_sb_offset(m);

		if (off + BTRFS_SUPER_INFO_SIZE > c->a->dev->size)
			break;
		ret = btrfs_io_write(c->a->dev, zero, sizeof(zero), off);
		if (ret < 0)
			return ret;
	}
	ret = btrfs_io_flush(c->a->dev);
	if (!ret)
		ret = btrfs_io_write(c->a->dev, zero, sizeof(zero), btrfs_sb_offset(0));
	if (!ret)
		ret = btrfs_io_flush(c->a->dev);
	return ret;
}

static int check_args(struct mkfs_ctx *c)
{
	const struct btrfs_mkfs_args *a = c->a;

	c->ns = a->nodesize ? a->nodesize : 16384;
	if (c->ns < SECTORSIZE || c->ns > 65536 || (c->ns & (c->ns - 1))) {
		btrfs_errmsg_set(a->errmsg, "nodesize %u: must be a power of two from 4096 to 65536",
				 c->ns);
		return -EINVAL;
	}
	if (btrfs_csum_size(a->csum_type) <= 0) {
		btrfs_errmsg_set(a->errmsg, "checksum type %u: unknown", a->csum_type);
		return -EINVAL;
	}
	if (a->simple_quota && !a->quota) {
		btrfs_errmsg_set(a->errmsg, "simple quotas: need quotas enabled");
		return -EINVAL;
	}
	if (a->label && strlen(a->label) >= BTRFS_LABEL_SIZE) {
		btrfs_errmsg_set(a->errmsg, "label: longer than %d bytes", BTRFS_LABEL_SIZE - 1);
		return -EINVAL;
	}
	c->size = a->size ? a->size : a->dev->size;
	c->size &= ~(u64)(SECTORSIZE - 1);
	if (c->size > a->dev->size) {
		btrfs_errmsg_set(a->errmsg, "size %llu: larger than the device (%llu bytes)",
				 (unsigned long long)c->size, (unsigned long long)a->dev->size);
		return -EINVAL;
	}
	if (c->size < BTRFS_MKFS_MIN_SIZE) {
		btrfs_errmsg_set(a->errmsg, "device too small: %llu bytes, need at least %llu",
				 (unsigned long long)c->size,
				 (unsigned long long)BTRFS_MKFS_MIN_SIZE);
		return -ENOSPC;
	}
	return 0;
}

int btrfs_mkfs(const struct btrfs_mkfs_args *a)
{
	struct mkfs_ctx *c = calloc(1, sizeof(*c));
	struct btrfs_super_block *sb = NULL;
	u8 sys_array[BTRFS_SYSTEM_CHUNK_ARRAY_SIZE];
	u32 sys_array_size = 0;
	int ret;

	if (!c)
		return -ENOMEM;
	c->a = a;
	ret = check_args(c);
	if (ret < 0)
		goto out;
	if (a->fsid)
		memcpy(c->fsid, a->fsid, BTRFS_FSID_SIZE);
	else
		uuid_generate(c->fsid);
	if (a->derive_uuids) {
		/* the roles and keys of btrfs-progs#1126 (RFC 9562 v8 bits set here) */
		btrfs_derive_uuid(c->fsid, "chunk-tree", 0, c->chunk_uuid);
		btrfs_derive_uuid(c->fsid, "device", 1, c->dev_uuid);
		btrfs_derive_uuid(c->fsid, "subvol", BTRFS_FS_TREE_OBJECTID, c->fs_uuid);
	} else {
		uuid_generate(c->chunk_uuid);
		uuid_generate(c->dev_uuid);
		uuid_generate(c->fs_uuid);
	}
	for (int t = 0; t < T_MAX; t++)
		c->has[t] = t != T_QUOTA || a->quota;
	/* 4 KiB nodes with quotas: eight ROOT_ITEMs do not fit one leaf */
	c->root_split = root_tree_bytes(c) > btrfs_leaf_data_size(c->ns);
	ret = layout(c);
	if (!ret)
		ret = fill_trees(c, sys_array, &sys_array_size);
	if (ret < 0)
		goto out;
	sb = calloc(1, sizeof(*sb));
	if (!sb) {
		ret = -ENOMEM;
		goto out;
	}
	/* an old filesystem stops being one before anything else is written */
	ret = zero_supers(c);
	if (!ret)
		ret = write_leaves(c);
	if (!ret)
		ret = btrfs_io_flush(a->dev);
	if (!ret && a->guard) {
		char msg[BTRFS_ERRMSG_SIZE] = "";

		ret = btrfs_super_guard_check(a->guard, msg);
		if (ret < 0) {
			btrfs_errmsg_set(a->errmsg, "%s", msg);
			goto out;
		}
	}
	if (!ret) {
		fill_super(c, sb, sys_array, sys_array_size);
		ret = write_supers(c, sb);
	}
	if (ret < 0)
		btrfs_errmsg_set_once(a->errmsg, "%s: write failed", a->dev->name);
out:
	for (int t = 0; t < T_MAX; t++)
		leaf_release(&c->leaves[t]);
	free(sb);
	free(c);
	return ret;
}

struct measure {
	struct btrfs_fs *fs;
	const struct btrfs_chunk_map *last_data;	/* the data chunk with the highest extent */
	u64 data_end, meta_end, meta_start;
	int err;
};

static int measure_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct measure *m = priv;
	const struct btrfs_chunk_map *map;
	u64 end;

	(void)data;
	(void)len;
	if (key->type != BTRFS_EXTENT_ITEM_KEY && key->type != BTRFS_METADATA_ITEM_KEY)
		return 0;
	end = key->objectid + (key->type == BTRFS_EXTENT_ITEM_KEY ? key->offset : m->fs->nodesize);
	map = btrfs_chunk_map_lookup(m->fs, key->objectid);
	if (!map) {
		m->err = -EUCLEAN;
		return 1;
	}
	if (map->type & BTRFS_BLOCK_GROUP_DATA) {
		if (end > m->data_end) {
			m->data_end = end;
			m->last_data = map;
		}
	} else if (map->type & BTRFS_BLOCK_GROUP_METADATA) {
		if (m->meta_start && m->meta_start != map->start) {
			m->err = -EOPNOTSUPP;
			return 1;
		}
		m->meta_start = map->start;
		if (end > m->meta_end)
			m->meta_end = end;
	}
	return 0;
}

int btrfs_mkfs_measure(struct btrfs_fs *fs, u64 *data, u64 *meta)
{
	struct btrfs_key min = { 0, 0, 0 }, max = { (u64)-1, (u8)-1, (u64)-1 };
	struct measure m = { .fs = fs };
	struct btrfs_root *root;
	int ret;

	ret = btrfs_read_root(fs, BTRFS_EXTENT_TREE_OBJECTID, &root);
	if (ret < 0)
		return ret;
	ret = btrfs_iterate_items(root, &min, &max, measure_cb, &m);
	if (ret < 0)
		return ret;
	if (m.err)
		return m.err;
	*data = 0;
	for (size_t i = 0; m.last_data && i < fs->nr_chunks; i++) {
		const struct btrfs_chunk_map *c = fs->chunks[i];

		if (!(c->type & BTRFS_BLOCK_GROUP_DATA) || c->start > m.last_data->start)
			continue;
		*data += c == m.last_data ? m.data_end - c->start : c->length;
	}
	*meta = m.meta_start ? m.meta_end - m.meta_start : 0;
	return 0;
}
