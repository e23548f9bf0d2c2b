// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tree-checker: items of the extent, chunk, device and raid stripe trees
 * (extent items with their inline back references, keyed back references,
 * block groups, chunks, devices and device extents).
 *
 * The rules are the ones the kernel's tree-checker applies when it reads a
 * leaf (fs/btrfs/tree-checker.c of linux 6.18).  Each check reads only
 * inside the item's payload, which tree-checker.c has placed inside the leaf.
 */
#include <errno.h>
#include "csum.h"
#include "fs.h"
#include "volumes.h"
#include "tree-checker-internal.h"

/* A data back reference may name a subvolume, the data relocation tree or
 * the root tree (v1 free space cache inodes) */
static bool valid_data_ref_root(u64 root)
{
	return tc_is_fstree(root) || root == BTRFS_DATA_RELOC_TREE_OBJECTID ||
	       root == BTRFS_ROOT_TREE_OBJECTID;
}

/* Fields of one EXTENT_DATA_REF, inline or keyed */
static int check_data_ref(const struct tc_item *it, const struct btrfs_extent_data_ref *dref)
{
	u64 root = btrfs_extent_data_ref_root(dref);
	u64 ino = btrfs_extent_data_ref_objectid(dref);
	u64 off = btrfs_extent_data_ref_offset(dref);

	if (!valid_data_ref_root(root))
		return tc_bad(it, "data ref root %llu cannot own data", (unsigned long long)root);
	if (ino < BTRFS_FIRST_FREE_OBJECTID || ino > BTRFS_LAST_FREE_OBJECTID)
		return tc_bad(it, "data ref objectid %llu is not an inode number",
			      (unsigned long long)ino);
	if (!tc_aligned(off, it->fs->sectorsize))
		return tc_bad(it, "data ref offset %llu not aligned to %u", (unsigned long long)off,
			      it->fs->sectorsize);
	if (!btrfs_extent_data_ref_count(dref))
		return tc_bad(it, "data ref count is 0");
	return 0;
}

/* Inline refs walk: type order, order inside a type, counts */
struct inline_walk {
	u8 last_type;
	u64 last_seq;
	u64 refs;
};

/* One inline ref at @p (its size already checked to fit) */
static int check_inline_ref(const struct tc_item *it, const u8 *p, struct inline_walk *w)
{
	const struct btrfs_extent_inline_ref *iref = (const struct btrfs_extent_inline_ref *)p;
	u8 type = btrfs_extent_inline_ref_type(iref);
	u64 off = btrfs_extent_inline_ref_offset(iref);
	u64 seq = off;
	int ret = 0;

	switch (type) {
	case BTRFS_TREE_BLOCK_REF_KEY:	/* offset: owning tree */
		w->refs++;
		break;
	case BTRFS_SHARED_BLOCK_REF_KEY:	/* offset: parent block */
		if (!tc_aligned(off, it->fs->sectorsize))
			return tc_bad(it, "shared block ref parent %llu not aligned to %u",
				      (unsigned long long)off, it->fs->sectorsize);
		w->refs++;
		break;
	case BTRFS_EXTENT_DATA_REF_KEY: {
		const struct btrfs_extent_data_ref *dref =
			(const struct btrfs_extent_data_ref *)(p + 1);

		/* ordered by the hash its keyed form would have */
		seq = btrfs_extent_data_ref_hash(btrfs_extent_data_ref_root(dref),
						 btrfs_extent_data_ref_objectid(dref),
						 btrfs_extent_data_ref_offset(dref));
		ret = check_data_ref(it, dref);
		w->refs += btrfs_extent_data_ref_count(dref);
		break;
	}
	case BTRFS_SHARED_DATA_REF_KEY: {
		const struct btrfs_shared_data_ref *sref =
			(const struct btrfs_shared_data_ref *)(iref + 1);

		if (!tc_aligned(off, it->fs->sectorsize))
			return tc_bad(it, "shared data ref parent %llu not aligned to %u",
				      (unsigned long long)off, it->fs->sectorsize);
		if (!btrfs_shared_data_ref_count(sref))
			return tc_bad(it, "shared data ref count is 0");
		w->refs += btrfs_shared_data_ref_count(sref);
		break;
	}
	case BTRFS_EXTENT_OWNER_REF_KEY:	/* simple quota owner: not a reference */
		break;
	default:
		return tc_bad(it, "unknown inline ref type %u", type);
	}
	if (ret)
		return ret;
	if (type < w->last_type)
		return tc_bad(it, "inline ref type %u after type %u", type, w->last_type);
	if (type > w->last_type)
		w->last_seq = (u64)-1;
	if (seq > w->last_seq)
		return tc_bad(it, "inline refs of type %u out of order", type);
	w->last_type = type;
	w->last_seq = seq;
	return 0;
}

/* EXTENT_ITEM / METADATA_ITEM header: key, size, generation, flags */
static int check_extent_head(const struct tc_item *it, bool *tree_block)
{
	const struct btrfs_extent_item *ei = (const struct btrfs_extent_item *)it->data;
	bool metadata = it->key.type == BTRFS_METADATA_ITEM_KEY;
	u64 limit = it->fs->generation + 1;
	u64 flags, kind;

	if (metadata && !btrfs_fs_has_incompat(it->fs, BTRFS_FEATURE_INCOMPAT_SKINNY_METADATA))
		return tc_bad(it, "metadata item without skinny-metadata");
	if (!tc_aligned(it->key.objectid, it->fs->sectorsize))
		return tc_bad(it, "extent start not aligned to %u", it->fs->sectorsize);
	if (metadata && it->key.offset >= BTRFS_MAX_LEVEL)
		return tc_bad(it, "metadata item level %llu, at most %u",
			      (unsigned long long)it->key.offset, BTRFS_MAX_LEVEL - 1);
	if (it->size < sizeof(*ei))
		return tc_bad(it, "extent item size %u, need %zu", it->size, sizeof(*ei));
	if (btrfs_extent_generation(ei) > limit)
		return tc_bad(it, "extent generation %llu is beyond %llu",
			      (unsigned long long)btrfs_extent_generation(ei),
			      (unsigned long long)limit);
	flags = btrfs_extent_flags(ei);
	kind = flags & (BTRFS_EXTENT_FLAG_DATA | BTRFS_EXTENT_FLAG_TREE_BLOCK);
	if (kind != BTRFS_EXTENT_FLAG_DATA && kind != BTRFS_EXTENT_FLAG_TREE_BLOCK)
		return tc_bad(it, "extent flags 0x%llx, need exactly one of data and tree block",
			      (unsigned long long)flags);
	*tree_block = kind == BTRFS_EXTENT_FLAG_TREE_BLOCK;
	if (*tree_block) {
		if (!metadata && it->key.offset != it->fs->nodesize)
			return tc_bad(it, "tree block extent length %llu, expected %u",
				      (unsigned long long)it->key.offset, it->fs->nodesize);
		return 0;
	}
	if (metadata)
		return tc_bad(it, "metadata item for a data extent");
	if (!tc_aligned(it->key.offset, it->fs->sectorsize))
		return tc_bad(it, "data extent length %llu not aligned to %u",
			      (unsigned long long)it->key.offset, it->fs->sectorsize);
	if (flags & BTRFS_BLOCK_FLAG_FULL_BACKREF)
		return tc_bad(it, "data extent with the full backref flag");
	return 0;
}

static int check_extent_item(const struct tc_item *it)
{
	const struct btrfs_extent_item *ei = (const struct btrfs_extent_item *)it->data;
	struct inline_walk w = { 0, (u64)-1, 0 };
	bool tree_block = false;
	u32 cur = sizeof(*ei);
	int ret;

	ret = check_extent_head(it, &tree_block);
	if (ret)
		return ret;
	/* a non-skinny tree block carries its first key and level */
	if (tree_block && it->key.type == BTRFS_EXTENT_ITEM_KEY) {
		const struct btrfs_tree_block_info *info;

		if (it->size - cur < sizeof(*info))
			return tc_bad(it, "extent item too small for its tree block info");
		info = (const struct btrfs_tree_block_info *)(it->data + cur);
		if (btrfs_tree_block_level(info) >= BTRFS_MAX_LEVEL)
			return tc_bad(it, "tree block info level %u, at most %u",
				      btrfs_tree_block_level(info), BTRFS_MAX_LEVEL - 1);
		cur += sizeof(*info);
	}
	while (cur < it->size) {
		u32 len;

		if (it->size - cur < sizeof(struct btrfs_extent_inline_ref))
			return tc_bad(it, "inline ref crosses the item end");
		len = btrfs_extent_inline_ref_size(it->data[cur]);
		if (it->size - cur < len)
			return tc_bad(it, "inline ref of type %u crosses the item end", it->data[cur]);
		ret = check_inline_ref(it, it->data + cur, &w);
		if (ret)
			return ret;
		cur += len;
	}
	if (w.refs > btrfs_extent_refs(ei))
		return tc_bad(it, "extent refs %llu, fewer than its %llu inline refs",
			      (unsigned long long)btrfs_extent_refs(ei), (unsigned long long)w.refs);
	if (it->prev.type == BTRFS_EXTENT_ITEM_KEY || it->prev.type == BTRFS_METADATA_ITEM_KEY) {
		u64 prev_end = it->prev.objectid + (it->prev.type == BTRFS_METADATA_ITEM_KEY ?
						    it->fs->nodesize : it->prev.offset);

		if (prev_end > it->key.objectid)
			return tc_bad(it, "overlaps the previous extent (%llu %u %llu)",
				      (unsigned long long)it->prev.objectid, it->prev.type,
				      (unsigned long long)it->prev.offset);
	}
	return 0;
}

/* TREE_BLOCK_REF, SHARED_BLOCK_REF (no payload) and SHARED_DATA_REF (a count) */
static int check_keyed_ref(const struct tc_item *it)
{
	bool shared_data = it->key.type == BTRFS_SHARED_DATA_REF_KEY;
	u32 want = shared_data ? sizeof(struct btrfs_shared_data_ref) : 0;

	if (it->size != want)
		return tc_bad(it, "back ref size %u, expected %u", it->size, want);
	if (shared_data && !btrfs_shared_data_ref_count((const struct btrfs_shared_data_ref *)it->data))
		return tc_bad(it, "shared data ref count is 0");
	if (!tc_aligned(it->key.objectid, it->fs->sectorsize))
		return tc_bad(it, "back ref extent start not aligned to %u", it->fs->sectorsize);
	if (it->key.type != BTRFS_TREE_BLOCK_REF_KEY &&
	    !tc_aligned(it->key.offset, it->fs->sectorsize))
		return tc_bad(it, "back ref parent %llu not aligned to %u",
			      (unsigned long long)it->key.offset, it->fs->sectorsize);
	return 0;
}

/* Keyed EXTENT_DATA_REF: an array of refs (hash collisions share one key) */
static int check_keyed_data_ref(const struct tc_item *it)
{
	const u32 one = sizeof(struct btrfs_extent_data_ref);
	int ret = 0;

	if (it->size % one)
		return tc_bad(it, "data ref size %u not a multiple of %u", it->size, one);
	if (!tc_aligned(it->key.objectid, it->fs->sectorsize))
		return tc_bad(it, "data ref extent start not aligned to %u", it->fs->sectorsize);
	for (u32 cur = 0; !ret && cur < it->size; cur += one)
		ret = check_data_ref(it, (const struct btrfs_extent_data_ref *)(it->data + cur));
	return ret;
}

static int popcount64(u64 v)
{
	return __builtin_popcountll(v);
}

static int check_block_group(const struct tc_item *it)
{
	const struct btrfs_block_group_item *bg = (const struct btrfs_block_group_item *)it->data;
	u64 flags, type;

	if (!it->key.offset)
		return tc_bad(it, "block group of length 0");
	if (it->size != sizeof(*bg))
		return tc_bad(it, "block group item size %u, expected %zu", it->size, sizeof(*bg));
	if (btrfs_block_group_chunk_objectid(bg) != BTRFS_FIRST_CHUNK_TREE_OBJECTID)
		return tc_bad(it, "block group chunk objectid %llu, expected %llu",
			      (unsigned long long)btrfs_block_group_chunk_objectid(bg),
			      BTRFS_FIRST_CHUNK_TREE_OBJECTID);
	if (btrfs_block_group_used(bg) > it->key.offset)
		return tc_bad(it, "block group used %llu exceeds its length",
			      (unsigned long long)btrfs_block_group_used(bg));
	flags = btrfs_block_group_flags(bg);
	if (popcount64(flags & BTRFS_BLOCK_GROUP_PROFILE_MASK) > 1)
		return tc_bad(it, "block group has several profile bits 0x%llx",
			      (unsigned long long)(flags & BTRFS_BLOCK_GROUP_PROFILE_MASK));
	type = flags & BTRFS_BLOCK_GROUP_TYPE_MASK;
	if (type != BTRFS_BLOCK_GROUP_DATA && type != BTRFS_BLOCK_GROUP_METADATA &&
	    type != BTRFS_BLOCK_GROUP_SYSTEM &&
	    type != (BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_METADATA))
		return tc_bad(it, "block group type 0x%llx is not data, metadata, system or mixed",
			      (unsigned long long)type);
	return 0;
}

static int check_chunk_item(const struct tc_item *it)
{
	char msg[BTRFS_ERRMSG_SIZE] = "";
	u16 num;

	/* the kernel's chunk struct counts one stripe */
	if (it->size < btrfs_chunk_item_size(1))
		return tc_bad(it, "chunk item size %u, need %u", it->size, btrfs_chunk_item_size(1));
	num = btrfs_chunk_num_stripes((const struct btrfs_chunk *)it->data);
	if (num && it->size != btrfs_chunk_item_size(num))
		return tc_bad(it, "chunk item size %u, %u stripes need %u", it->size, num,
			      btrfs_chunk_item_size(num));
	if (btrfs_chunk_validate(it->fs->sectorsize,
				 btrfs_fs_has_incompat(it->fs, BTRFS_FEATURE_INCOMPAT_MIXED_GROUPS),
				 it->key.offset, it->data, it->size, msg) < 0)
		return tc_bad(it, "%s", msg);
	return 0;
}

static int check_dev_item(const struct tc_item *it)
{
	const struct btrfs_dev_item *di = (const struct btrfs_dev_item *)it->data;

	if (it->key.objectid != BTRFS_DEV_ITEMS_OBJECTID)
		return tc_bad(it, "device item objectid, expected %llu", BTRFS_DEV_ITEMS_OBJECTID);
	if (it->size != sizeof(*di))
		return tc_bad(it, "device item size %u, expected %zu", it->size, sizeof(*di));
	if (btrfs_dev_item_devid(di) != it->key.offset)
		return tc_bad(it, "device item holds devid %llu",
			      (unsigned long long)btrfs_dev_item_devid(di));
	if (btrfs_dev_item_bytes_used(di) > btrfs_dev_item_total_bytes(di))
		return tc_bad(it, "device bytes_used %llu exceeds total_bytes %llu",
			      (unsigned long long)btrfs_dev_item_bytes_used(di),
			      (unsigned long long)btrfs_dev_item_total_bytes(di));
	return 0;
}

static int check_dev_extent(const struct tc_item *it)
{
	const struct btrfs_dev_extent *de = (const struct btrfs_dev_extent *)it->data;
	u32 ss = it->fs->sectorsize;

	if (it->size != sizeof(*de))
		return tc_bad(it, "device extent size %u, expected %zu", it->size, sizeof(*de));
	if (btrfs_dev_extent_chunk_tree(de) != BTRFS_CHUNK_TREE_OBJECTID)
		return tc_bad(it, "device extent chunk tree %llu, expected %llu",
			      (unsigned long long)btrfs_dev_extent_chunk_tree(de),
			      BTRFS_CHUNK_TREE_OBJECTID);
	if (btrfs_dev_extent_chunk_objectid(de) != BTRFS_FIRST_CHUNK_TREE_OBJECTID)
		return tc_bad(it, "device extent chunk objectid %llu, expected %llu",
			      (unsigned long long)btrfs_dev_extent_chunk_objectid(de),
			      BTRFS_FIRST_CHUNK_TREE_OBJECTID);
	if (!tc_aligned(it->key.offset, ss) || !tc_aligned(btrfs_dev_extent_chunk_offset(de), ss) ||
	    !tc_aligned(btrfs_dev_extent_length(de), ss))
		return tc_bad(it, "device extent start, chunk or length not aligned to %u", ss);
	if (it->slot && it->prev.objectid == it->key.objectid && it->prev.type == it->key.type) {
		u64 prev_len = btrfs_dev_extent_length((const struct btrfs_dev_extent *)it->prev_data);

		if (it->prev.offset + prev_len > it->key.offset)
			return tc_bad(it, "overlaps the previous device extent at %llu",
				      (unsigned long long)it->prev.offset);
	}
	return 0;
}

int tc_check_tree_item(const struct tc_item *it)
{
	switch (it->key.type) {
	case BTRFS_EXTENT_ITEM_KEY:
	case BTRFS_METADATA_ITEM_KEY:
		return check_extent_item(it);
	case BTRFS_TREE_BLOCK_REF_KEY:
	case BTRFS_SHARED_BLOCK_REF_KEY:
	case BTRFS_SHARED_DATA_REF_KEY:
		return check_keyed_ref(it);
	case BTRFS_EXTENT_DATA_REF_KEY:
		return check_keyed_data_ref(it);
	case BTRFS_BLOCK_GROUP_ITEM_KEY:
		return check_block_group(it);
	case BTRFS_CHUNK_ITEM_KEY:
		return check_chunk_item(it);
	case BTRFS_DEV_ITEM_KEY:
		return check_dev_item(it);
	case BTRFS_DEV_EXTENT_KEY:
		return check_dev_extent(it);
	case BTRFS_RAID_STRIPE_KEY:
		if (!tc_aligned(it->key.objectid, it->fs->sectorsize))
			return tc_bad(it, "raid stripe extent start not aligned to %u",
				      it->fs->sectorsize);
		if (!btrfs_fs_has_incompat(it->fs, BTRFS_FEATURE_INCOMPAT_RAID_STRIPE_TREE))
			return tc_bad(it, "raid stripe item without raid-stripe-tree");
		return 0;
	default:
		return 0;
	}
}
