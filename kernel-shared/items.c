/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Item decoders (see items.h).
 *
 * Each decoder first proves that the bytes it is about to read lie inside
 * the item, then reads them through the format.h accessors.  Nothing here
 * trusts a length or count read from disk before comparing it with @len.
 */
#include <errno.h>
#include <string.h>

#include "items.h"

static void decode_time(const struct btrfs_timespec *ts, struct btrfs_time *out)
{
	out->sec = (s64)btrfs_timespec_sec(ts);
	out->nsec = btrfs_timespec_nsec(ts);
}

/* Copy a name of @name_len bytes that is known to lie inside the item */
static void copy_name(char dst[BTRFS_NAME_LEN + 1], const u8 *src, u16 name_len)
{
	memcpy(dst, src, name_len);
	dst[name_len] = '\0';
}

int btrfs_decode_inode_item(const void *data, u32 len, struct btrfs_inode_rec *out)
{
	const struct btrfs_inode_item *ii = data;

	memset(out, 0, sizeof(*out));
	if (len < sizeof(*ii))
		return -EUCLEAN;
	out->generation = btrfs_inode_generation(ii);
	out->transid = btrfs_inode_transid(ii);
	out->size = btrfs_inode_size(ii);
	out->nbytes = btrfs_inode_nbytes(ii);
	out->block_group = btrfs_inode_block_group(ii);
	out->nlink = btrfs_inode_nlink(ii);
	out->uid = btrfs_inode_uid(ii);
	out->gid = btrfs_inode_gid(ii);
	out->mode = btrfs_inode_mode(ii);
	out->rdev = btrfs_inode_rdev(ii);
	out->flags = btrfs_inode_flags(ii);
	out->sequence = btrfs_inode_sequence(ii);
	decode_time(btrfs_inode_atime(ii), &out->atime);
	decode_time(btrfs_inode_ctime(ii), &out->ctime);
	decode_time(btrfs_inode_mtime(ii), &out->mtime);
	decode_time(btrfs_inode_otime(ii), &out->otime);
	return 0;
}

static void decode_root_v2(const struct btrfs_root_item *ri, struct btrfs_root_rec *out)
{
	memcpy(out->uuid, btrfs_root_uuid(ri), BTRFS_UUID_SIZE);
	memcpy(out->parent_uuid, btrfs_root_parent_uuid(ri), BTRFS_UUID_SIZE);
	memcpy(out->received_uuid, btrfs_root_received_uuid(ri), BTRFS_UUID_SIZE);
	out->ctransid = btrfs_root_ctransid(ri);
	out->otransid = btrfs_root_otransid(ri);
	out->stransid = btrfs_root_stransid(ri);
	out->rtransid = btrfs_root_rtransid(ri);
	decode_time(btrfs_root_ctime(ri), &out->ctime);
	decode_time(btrfs_root_otime(ri), &out->otime);
	decode_time(btrfs_root_stime(ri), &out->stime);
	decode_time(btrfs_root_rtime(ri), &out->rtime);
}

int btrfs_decode_root_item(const void *data, u32 len, struct btrfs_root_rec *out)
{
	const struct btrfs_root_item *ri = data;
	int ret;

	memset(out, 0, sizeof(*out));
	if (len < BTRFS_ROOT_ITEM_LEGACY_SIZE)
		return -EUCLEAN;
	ret = btrfs_decode_inode_item(btrfs_root_inode(ri), sizeof(struct btrfs_inode_item),
				      &out->inode);
	if (ret < 0)
		return ret;
	out->generation = btrfs_root_generation(ri);
	out->root_dirid = btrfs_root_root_dirid(ri);
	out->bytenr = btrfs_root_bytenr(ri);
	out->byte_limit = btrfs_root_byte_limit(ri);
	out->bytes_used = btrfs_root_bytes_used(ri);
	out->last_snapshot = btrfs_root_last_snapshot(ri);
	out->flags = btrfs_root_flags(ri);
	out->refs = btrfs_root_refs(ri);
	btrfs_root_drop_progress(ri, &out->drop_progress);
	out->drop_level = btrfs_root_drop_level(ri);
	out->level = btrfs_root_level(ri);

	/*
	 * Like the kernel, treat anything shorter than the full item as the
	 * legacy layout, and v2 fields with a stale generation_v2 as absent.
	 */
	if (len < sizeof(*ri))
		return 0;
	out->generation_v2 = btrfs_root_generation_v2(ri);
	if (out->generation_v2 != out->generation)
		return 0;
	out->has_v2 = true;
	decode_root_v2(ri, out);
	return 0;
}

int btrfs_decode_root_ref(const void *data, u32 len, struct btrfs_root_ref_rec *out)
{
	const struct btrfs_root_ref *rr = data;

	memset(out, 0, sizeof(*out));
	if (len < sizeof(*rr))
		return -EUCLEAN;
	out->dirid = btrfs_root_ref_dirid(rr);
	out->sequence = btrfs_root_ref_sequence(rr);
	out->name_len = btrfs_root_ref_name_len(rr);
	if (out->name_len > BTRFS_NAME_LEN || out->name_len > len - sizeof(*rr))
		return -EUCLEAN;
	copy_name(out->name, (const u8 *)data + sizeof(*rr), out->name_len);
	return 0;
}

/*
 * Common start of the *_next() walkers: 1 at the end, -EINVAL for a
 * position past the end (a caller bug), 0 to go on.
 */
static int walk_start(u32 len, u32 pos)
{
	if (pos == len)
		return 1;
	if (pos > len)
		return -EINVAL;
	return 0;
}

int btrfs_inode_ref_next(const void *data, u32 len, u32 *pos, struct btrfs_inode_ref_rec *out)
{
	const struct btrfs_inode_ref *ref;
	const u8 *p;
	u32 left;
	int ret;

	ret = walk_start(len, *pos);
	if (ret)
		return ret;
	p = (const u8 *)data + *pos;
	ref = (const struct btrfs_inode_ref *)p;
	left = len - *pos;
	memset(out, 0, sizeof(*out));
	if (left < sizeof(*ref))
		return -EUCLEAN;
	out->index = btrfs_inode_ref_index(ref);
	out->name_len = btrfs_inode_ref_name_len(ref);
	if (out->name_len > BTRFS_NAME_LEN || out->name_len > left - sizeof(*ref))
		return -EUCLEAN;
	copy_name(out->name, p + sizeof(*ref), out->name_len);
	*pos += (u32)sizeof(*ref) + out->name_len;
	return 0;
}

int btrfs_inode_extref_next(const void *data, u32 len, u32 *pos,
			    struct btrfs_inode_extref_rec *out)
{
	const struct btrfs_inode_extref *ref;
	const u8 *p;
	u32 left;
	int ret;

	ret = walk_start(len, *pos);
	if (ret)
		return ret;
	p = (const u8 *)data + *pos;
	ref = (const struct btrfs_inode_extref *)p;
	left = len - *pos;
	memset(out, 0, sizeof(*out));
	if (left < sizeof(*ref))
		return -EUCLEAN;
	out->parent = btrfs_inode_extref_parent_objectid(ref);
	out->index = btrfs_inode_extref_index(ref);
	out->name_len = btrfs_inode_extref_name_len(ref);
	if (out->name_len > BTRFS_NAME_LEN || out->name_len > left - sizeof(*ref))
		return -EUCLEAN;
	copy_name(out->name, p + sizeof(*ref), out->name_len);
	*pos += (u32)sizeof(*ref) + out->name_len;
	return 0;
}

int btrfs_dir_item_next(const void *data, u32 len, u32 *pos, struct btrfs_dir_item_rec *out)
{
	const struct btrfs_dir_item *di;
	const u8 *p;
	u32 left, total;
	int ret;

	ret = walk_start(len, *pos);
	if (ret)
		return ret;
	p = (const u8 *)data + *pos;
	di = (const struct btrfs_dir_item *)p;
	left = len - *pos;
	memset(out, 0, sizeof(*out));
	if (left < sizeof(*di))
		return -EUCLEAN;
	btrfs_dir_location(di, &out->location);
	out->transid = btrfs_dir_transid(di);
	out->data_len = btrfs_dir_data_len(di);
	out->name_len = btrfs_dir_name_len(di);
	out->type = btrfs_dir_type(di);
	total = (u32)sizeof(*di) + out->name_len + out->data_len;
	if (out->name_len > BTRFS_NAME_LEN || total > left)
		return -EUCLEAN;
	copy_name(out->name, p + sizeof(*di), out->name_len);
	out->data = p + sizeof(*di) + out->name_len;
	*pos += total;
	return 0;
}

int btrfs_decode_qgroup_status(const void *data, u32 len, struct btrfs_qgroup_status_rec *out)
{
	const struct btrfs_qgroup_status_item *st = data;

	memset(out, 0, sizeof(*out));
	if (len < BTRFS_QGROUP_STATUS_ITEM_V1_SIZE)
		return -EUCLEAN;
	out->version = btrfs_qgroup_status_version(st);
	out->generation = btrfs_qgroup_status_generation(st);
	out->flags = btrfs_qgroup_status_flags(st);
	out->rescan = btrfs_qgroup_status_rescan(st);
	out->size = len;
	if (len >= sizeof(*st)) {
		out->enable_gen = btrfs_qgroup_status_enable_gen(st);
		out->has_enable_gen = true;
	}
	return 0;
}

int btrfs_decode_qgroup_info(const void *data, u32 len, struct btrfs_qgroup_info_rec *out)
{
	const struct btrfs_qgroup_info_item *qi = data;

	memset(out, 0, sizeof(*out));
	if (len < sizeof(*qi))
		return -EUCLEAN;
	out->generation = btrfs_qgroup_info_generation(qi);
	out->rfer = btrfs_qgroup_info_rfer(qi);
	out->rfer_cmpr = btrfs_qgroup_info_rfer_cmpr(qi);
	out->excl = btrfs_qgroup_info_excl(qi);
	out->excl_cmpr = btrfs_qgroup_info_excl_cmpr(qi);
	return 0;
}

int btrfs_decode_qgroup_limit(const void *data, u32 len, struct btrfs_qgroup_limit_rec *out)
{
	const struct btrfs_qgroup_limit_item *ql = data;

	memset(out, 0, sizeof(*out));
	if (len < sizeof(*ql))
		return -EUCLEAN;
	out->flags = btrfs_qgroup_limit_flags(ql);
	out->max_rfer = btrfs_qgroup_limit_max_rfer(ql);
	out->max_excl = btrfs_qgroup_limit_max_excl(ql);
	out->rsv_rfer = btrfs_qgroup_limit_rsv_rfer(ql);
	out->rsv_excl = btrfs_qgroup_limit_rsv_excl(ql);
	return 0;
}

int btrfs_decode_chunk(const void *data, u32 len, struct btrfs_chunk_rec *out)
{
	const struct btrfs_chunk *c = data;

	memset(out, 0, sizeof(*out));
	if (len < sizeof(*c))
		return -EUCLEAN;
	out->length = btrfs_chunk_length(c);
	out->owner = btrfs_chunk_owner(c);
	out->stripe_len = btrfs_chunk_stripe_len(c);
	out->type = btrfs_chunk_type(c);
	out->io_align = btrfs_chunk_io_align(c);
	out->io_width = btrfs_chunk_io_width(c);
	out->sector_size = btrfs_chunk_sector_size(c);
	out->num_stripes = btrfs_chunk_num_stripes(c);
	out->sub_stripes = btrfs_chunk_sub_stripes(c);
	if (out->num_stripes == 0)
		return -EUCLEAN;
	out->item_size = btrfs_chunk_item_size(out->num_stripes);
	if (out->item_size > len)
		return -EUCLEAN;
	out->stripe_data = (const u8 *)data + sizeof(*c);
	return 0;
}

int btrfs_chunk_rec_stripe(const struct btrfs_chunk_rec *chunk, u16 nr, struct btrfs_stripe_rec *out)
{
	const struct btrfs_stripe *s;

	memset(out, 0, sizeof(*out));
	if (nr >= chunk->num_stripes || !chunk->stripe_data)
		return -EINVAL;
	s = (const struct btrfs_stripe *)(chunk->stripe_data + (size_t)nr * sizeof(*s));
	out->devid = btrfs_stripe_devid(s);
	out->offset = btrfs_stripe_offset(s);
	memcpy(out->dev_uuid, btrfs_stripe_dev_uuid(s), BTRFS_UUID_SIZE);
	return 0;
}

int btrfs_decode_dev_item(const void *data, u32 len, struct btrfs_dev_item_rec *out)
{
	const struct btrfs_dev_item *d = data;

	memset(out, 0, sizeof(*out));
	if (len < sizeof(*d))
		return -EUCLEAN;
	out->devid = btrfs_dev_item_devid(d);
	out->total_bytes = btrfs_dev_item_total_bytes(d);
	out->bytes_used = btrfs_dev_item_bytes_used(d);
	out->io_align = btrfs_dev_item_io_align(d);
	out->io_width = btrfs_dev_item_io_width(d);
	out->sector_size = btrfs_dev_item_sector_size(d);
	out->type = btrfs_dev_item_type(d);
	out->generation = btrfs_dev_item_generation(d);
	out->start_offset = btrfs_dev_item_start_offset(d);
	out->dev_group = btrfs_dev_item_dev_group(d);
	out->seek_speed = btrfs_dev_item_seek_speed(d);
	out->bandwidth = btrfs_dev_item_bandwidth(d);
	memcpy(out->uuid, btrfs_dev_item_uuid(d), BTRFS_UUID_SIZE);
	memcpy(out->fsid, btrfs_dev_item_fsid(d), BTRFS_UUID_SIZE);
	return 0;
}

int btrfs_decode_block_group(const void *data, u32 len, struct btrfs_block_group_rec *out)
{
	const struct btrfs_block_group_item *bg = data;

	memset(out, 0, sizeof(*out));
	if (len < sizeof(*bg))
		return -EUCLEAN;
	out->used = btrfs_block_group_used(bg);
	out->chunk_objectid = btrfs_block_group_chunk_objectid(bg);
	out->flags = btrfs_block_group_flags(bg);
	return 0;
}

int btrfs_decode_dev_extent(const void *data, u32 len, struct btrfs_dev_extent_rec *out)
{
	const struct btrfs_dev_extent *de = data;

	memset(out, 0, sizeof(*out));
	if (len < sizeof(*de))
		return -EUCLEAN;
	out->chunk_tree = btrfs_dev_extent_chunk_tree(de);
	out->chunk_objectid = btrfs_dev_extent_chunk_objectid(de);
	out->chunk_offset = btrfs_dev_extent_chunk_offset(de);
	out->length = btrfs_dev_extent_length(de);
	memcpy(out->chunk_tree_uuid, btrfs_dev_extent_chunk_tree_uuid(de), BTRFS_UUID_SIZE);
	return 0;
}

int btrfs_decode_free_space_info(const void *data, u32 len, struct btrfs_free_space_info_rec *out)
{
	const struct btrfs_free_space_info *fsi = data;

	memset(out, 0, sizeof(*out));
	if (len < sizeof(*fsi))
		return -EUCLEAN;
	out->extent_count = btrfs_free_space_info_extent_count(fsi);
	out->flags = btrfs_free_space_info_flags(fsi);
	return 0;
}

int btrfs_decode_extent_item(const void *data, u32 len, u8 key_type, struct btrfs_extent_rec *out)
{
	const struct btrfs_extent_item *ei = data;
	const struct btrfs_tree_block_info *info;

	memset(out, 0, sizeof(*out));
	if (key_type != BTRFS_EXTENT_ITEM_KEY && key_type != BTRFS_METADATA_ITEM_KEY)
		return -EINVAL;
	/* Also rejects the pre-2.6.31 4-byte extent_item_v0 */
	if (len < sizeof(*ei))
		return -EUCLEAN;
	out->refs = btrfs_extent_refs(ei);
	out->generation = btrfs_extent_generation(ei);
	out->flags = btrfs_extent_flags(ei);
	out->inline_start = sizeof(*ei);
	if (key_type == BTRFS_EXTENT_ITEM_KEY && (out->flags & BTRFS_EXTENT_FLAG_TREE_BLOCK)) {
		if (len < sizeof(*ei) + sizeof(*info))
			return -EUCLEAN;
		info = (const struct btrfs_tree_block_info *)((const u8 *)data + sizeof(*ei));
		btrfs_tree_block_key(info, &out->tree_block_key);
		out->tree_block_level = btrfs_tree_block_level(info);
		out->has_tree_block_info = true;
		out->inline_start += sizeof(*info);
	}
	return 0;
}

static void decode_data_ref(const struct btrfs_extent_data_ref *dref,
			    struct btrfs_extent_ref_rec *out)
{
	out->root = btrfs_extent_data_ref_root(dref);
	out->objectid = btrfs_extent_data_ref_objectid(dref);
	out->offset = btrfs_extent_data_ref_offset(dref);
	out->count = btrfs_extent_data_ref_count(dref);
}

int btrfs_extent_inline_ref_next(const void *data, u32 len, u32 *pos,
				 struct btrfs_extent_ref_rec *out)
{
	const struct btrfs_extent_inline_ref *iref;
	const u8 *p;
	u32 left, size;
	int ret;

	ret = walk_start(len, *pos);
	if (ret)
		return ret;
	p = (const u8 *)data + *pos;
	iref = (const struct btrfs_extent_inline_ref *)p;
	left = len - *pos;
	memset(out, 0, sizeof(*out));
	out->type = btrfs_extent_inline_ref_type(iref);
	size = btrfs_extent_inline_ref_size(out->type);
	if (size == 0 || size > left)
		return -EUCLEAN;

	switch (out->type) {
	case BTRFS_TREE_BLOCK_REF_KEY:
		out->root = btrfs_extent_inline_ref_offset(iref);
		out->count = 1;
		break;
	case BTRFS_SHARED_BLOCK_REF_KEY:
		out->parent = btrfs_extent_inline_ref_offset(iref);
		out->count = 1;
		break;
	case BTRFS_EXTENT_OWNER_REF_KEY:
		out->root = btrfs_extent_inline_ref_offset(iref);
		out->count = 0;
		break;
	case BTRFS_EXTENT_DATA_REF_KEY:
		/* The data ref takes the place of the offset field */
		decode_data_ref((const struct btrfs_extent_data_ref *)(p + 1), out);
		break;
	case BTRFS_SHARED_DATA_REF_KEY:
		out->parent = btrfs_extent_inline_ref_offset(iref);
		out->count = btrfs_shared_data_ref_count((const struct btrfs_shared_data_ref *)
							 (p + sizeof(*iref)));
		break;
	}
	*pos += size;
	return 0;
}

int btrfs_decode_keyed_ref(const struct btrfs_key *key, const void *data, u32 len,
			   struct btrfs_extent_ref_rec *out)
{
	memset(out, 0, sizeof(*out));
	out->type = key->type;
	switch (key->type) {
	case BTRFS_TREE_BLOCK_REF_KEY:
		out->root = key->offset;
		out->count = 1;
		return 0;
	case BTRFS_SHARED_BLOCK_REF_KEY:
		out->parent = key->offset;
		out->count = 1;
		return 0;
	case BTRFS_EXTENT_DATA_REF_KEY:
		if (len < sizeof(struct btrfs_extent_data_ref))
			return -EUCLEAN;
		decode_data_ref(data, out);
		return 0;
	case BTRFS_SHARED_DATA_REF_KEY:
		if (len < sizeof(struct btrfs_shared_data_ref))
			return -EUCLEAN;
		out->parent = key->offset;
		out->count = btrfs_shared_data_ref_count(data);
		return 0;
	default:
		out->type = 0;
		return -EINVAL;
	}
}

int btrfs_decode_file_extent(const void *data, u32 len, struct btrfs_file_extent_rec *out)
{
	const struct btrfs_file_extent_item *fi = data;

	memset(out, 0, sizeof(*out));
	if (len < BTRFS_FILE_EXTENT_INLINE_DATA_START)
		return -EUCLEAN;
	out->generation = btrfs_file_extent_generation(fi);
	out->ram_bytes = btrfs_file_extent_ram_bytes(fi);
	out->compression = btrfs_file_extent_compression(fi);
	out->encryption = btrfs_file_extent_encryption(fi);
	out->other_encoding = btrfs_file_extent_other_encoding(fi);
	out->type = btrfs_file_extent_type(fi);
	switch (out->type) {
	case BTRFS_FILE_EXTENT_INLINE:
		out->inline_len = len - BTRFS_FILE_EXTENT_INLINE_DATA_START;
		out->inline_data = btrfs_file_extent_inline_data(fi);
		return 0;
	case BTRFS_FILE_EXTENT_REG:
	case BTRFS_FILE_EXTENT_PREALLOC:
		if (len < sizeof(*fi))
			return -EUCLEAN;
		out->disk_bytenr = btrfs_file_extent_disk_bytenr(fi);
		out->disk_num_bytes = btrfs_file_extent_disk_num_bytes(fi);
		out->offset = btrfs_file_extent_offset(fi);
		out->num_bytes = btrfs_file_extent_num_bytes(fi);
		return 0;
	default:
		return -EUCLEAN;
	}
}

int btrfs_uuid_item_next(const void *data, u32 len, u32 *pos, u64 *subvolid)
{
	int ret;

	*subvolid = 0;
	if (len % sizeof(u64))
		return -EUCLEAN;
	ret = walk_start(len, *pos);
	if (ret)
		return ret;
	if (len - *pos < sizeof(u64))
		return -EUCLEAN;
	*subvolid = get_le64((const u8 *)data + *pos);
	*pos += (u32)sizeof(u64);
	return 0;
}

const char *btrfs_item_type_name(u8 type)
{
	static const char *const names[256] = {
		[BTRFS_INODE_ITEM_KEY] = "INODE_ITEM",
		[BTRFS_INODE_REF_KEY] = "INODE_REF",
		[BTRFS_INODE_EXTREF_KEY] = "INODE_EXTREF",
		[BTRFS_XATTR_ITEM_KEY] = "XATTR_ITEM",
		[BTRFS_VERITY_DESC_ITEM_KEY] = "VERITY_DESC_ITEM",
		[BTRFS_VERITY_MERKLE_ITEM_KEY] = "VERITY_MERKLE_ITEM",
		[BTRFS_ORPHAN_ITEM_KEY] = "ORPHAN_ITEM",
		[BTRFS_DIR_LOG_ITEM_KEY] = "DIR_LOG_ITEM",
		[BTRFS_DIR_LOG_INDEX_KEY] = "DIR_LOG_INDEX",
		[BTRFS_DIR_ITEM_KEY] = "DIR_ITEM",
		[BTRFS_DIR_INDEX_KEY] = "DIR_INDEX",
		[BTRFS_EXTENT_DATA_KEY] = "EXTENT_DATA",
		[BTRFS_EXTENT_CSUM_KEY] = "EXTENT_CSUM",
		[BTRFS_ROOT_ITEM_KEY] = "ROOT_ITEM",
		[BTRFS_ROOT_BACKREF_KEY] = "ROOT_BACKREF",
		[BTRFS_ROOT_REF_KEY] = "ROOT_REF",
		[BTRFS_EXTENT_ITEM_KEY] = "EXTENT_ITEM",
		[BTRFS_METADATA_ITEM_KEY] = "METADATA_ITEM",
		[BTRFS_EXTENT_OWNER_REF_KEY] = "EXTENT_OWNER_REF",
		[BTRFS_TREE_BLOCK_REF_KEY] = "TREE_BLOCK_REF",
		[BTRFS_EXTENT_DATA_REF_KEY] = "EXTENT_DATA_REF",
		[BTRFS_SHARED_BLOCK_REF_KEY] = "SHARED_BLOCK_REF",
		[BTRFS_SHARED_DATA_REF_KEY] = "SHARED_DATA_REF",
		[BTRFS_BLOCK_GROUP_ITEM_KEY] = "BLOCK_GROUP_ITEM",
		[BTRFS_FREE_SPACE_INFO_KEY] = "FREE_SPACE_INFO",
		[BTRFS_FREE_SPACE_EXTENT_KEY] = "FREE_SPACE_EXTENT",
		[BTRFS_FREE_SPACE_BITMAP_KEY] = "FREE_SPACE_BITMAP",
		[BTRFS_DEV_EXTENT_KEY] = "DEV_EXTENT",
		[BTRFS_DEV_ITEM_KEY] = "DEV_ITEM",
		[BTRFS_CHUNK_ITEM_KEY] = "CHUNK_ITEM",
		[BTRFS_RAID_STRIPE_KEY] = "RAID_STRIPE",
		[BTRFS_QGROUP_STATUS_KEY] = "QGROUP_STATUS",
		[BTRFS_QGROUP_INFO_KEY] = "QGROUP_INFO",
		[BTRFS_QGROUP_LIMIT_KEY] = "QGROUP_LIMIT",
		[BTRFS_QGROUP_RELATION_KEY] = "QGROUP_RELATION",
		[BTRFS_TEMPORARY_ITEM_KEY] = "TEMPORARY_ITEM",
		[BTRFS_PERSISTENT_ITEM_KEY] = "PERSISTENT_ITEM",
		[BTRFS_DEV_REPLACE_KEY] = "DEV_REPLACE",
		[BTRFS_UUID_KEY_SUBVOL] = "UUID_KEY_SUBVOL",
		[BTRFS_UUID_KEY_RECEIVED_SUBVOL] = "UUID_KEY_RECEIVED_SUBVOL",
		[BTRFS_STRING_ITEM_KEY] = "STRING_ITEM",
	};

	return names[type];
}

const char *btrfs_tree_name(u64 id)
{
	switch (id) {
	case BTRFS_ROOT_TREE_OBJECTID:
		return "ROOT_TREE";
	case BTRFS_EXTENT_TREE_OBJECTID:
		return "EXTENT_TREE";
	case BTRFS_CHUNK_TREE_OBJECTID:
		return "CHUNK_TREE";
	case BTRFS_DEV_TREE_OBJECTID:
		return "DEV_TREE";
	case BTRFS_FS_TREE_OBJECTID:
		return "FS_TREE";
	case BTRFS_CSUM_TREE_OBJECTID:
		return "CSUM_TREE";
	case BTRFS_QUOTA_TREE_OBJECTID:
		return "QUOTA_TREE";
	case BTRFS_UUID_TREE_OBJECTID:
		return "UUID_TREE";
	case BTRFS_FREE_SPACE_TREE_OBJECTID:
		return "FREE_SPACE_TREE";
	case BTRFS_BLOCK_GROUP_TREE_OBJECTID:
		return "BLOCK_GROUP_TREE";
	case BTRFS_RAID_STRIPE_TREE_OBJECTID:
		return "RAID_STRIPE_TREE";
	case BTRFS_REMAP_TREE_OBJECTID:
		return "REMAP_TREE";
	case BTRFS_TREE_LOG_OBJECTID:
		return "TREE_LOG";
	case BTRFS_TREE_LOG_FIXUP_OBJECTID:
		return "TREE_LOG_FIXUP";
	case BTRFS_TREE_RELOC_OBJECTID:
		return "TREE_RELOC";
	case BTRFS_DATA_RELOC_TREE_OBJECTID:
		return "DATA_RELOC_TREE";
	default:
		return NULL;
	}
}
