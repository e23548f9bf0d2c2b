// SPDX-License-Identifier: GPL-2.0-only
/*
 * Inodes written offline (see inode-write.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fs.h"
#include "csum.h"
#include "ctree.h"
#include "ctree-write.h"
#include "transaction.h"
#include "data-write.h"
#include "inode-write.h"

/* The kernel's default max_inline mount option */
#define DEFAULT_MAX_INLINE	2048U

static void set_time(struct btrfs_timespec *ts, const struct btrfs_time *t)
{
	btrfs_set_timespec_sec(ts, (u64)t->sec);
	btrfs_set_timespec_nsec(ts, t->nsec);
}

static void fill_inode(struct btrfs_inode_item *ii, u64 transid, const struct btrfs_inode_args *a)
{
	btrfs_set_inode_transid(ii, transid);
	btrfs_set_inode_size(ii, a->size);
	btrfs_set_inode_nbytes(ii, a->nbytes);
	btrfs_set_inode_nlink(ii, a->nlink);
	btrfs_set_inode_uid(ii, a->uid);
	btrfs_set_inode_gid(ii, a->gid);
	btrfs_set_inode_mode(ii, a->mode);
	btrfs_set_inode_rdev(ii, a->rdev);
	btrfs_set_inode_flags(ii, a->flags);
	set_time(btrfs_inode_atime(ii), &a->atime);
	set_time(btrfs_inode_ctime(ii), &a->ctime);
	set_time(btrfs_inode_mtime(ii), &a->mtime);
	set_time(btrfs_inode_otime(ii), &a->otime);
}

int btrfs_insert_inode_item(struct btrfs_trans_handle *trans, struct btrfs_root *root, u64 ino,
			    const struct btrfs_inode_args *a)
{
	struct btrfs_key key = { ino, BTRFS_INODE_ITEM_KEY, 0 };
	struct btrfs_inode_item ii;

	memset(&ii, 0, sizeof(ii));
	btrfs_set_inode_generation(&ii, trans->transid);
	fill_inode(&ii, trans->transid, a);
	return btrfs_insert_item(trans, root, &key, &ii, sizeof(ii));
}

int btrfs_update_inode_item(struct btrfs_trans_handle *trans, struct btrfs_root *root, u64 ino,
			    const struct btrfs_inode_args *a)
{
	struct btrfs_key key = { ino, BTRFS_INODE_ITEM_KEY, 0 };
	struct btrfs_path path;
	struct btrfs_inode_item *ii;
	u32 len;
	int ret;

	btrfs_path_init(&path);
	ret = btrfs_search_cow(trans, root, &key, &path, 0);
	if (ret) {
		btrfs_path_release(&path);
		return ret > 0 ? -ENOENT : ret;
	}
	ii = (struct btrfs_inode_item *)btrfs_path_item_ptr(&path, &len);
	if (len < sizeof(*ii)) {
		btrfs_path_release(&path);
		return -EUCLEAN;
	}
	fill_inode(ii, trans->transid, a);
	btrfs_path_release(&path);
	return 0;
}

/*
 * Insert @key, or append @data to the item @key already is (names with one
 * hash share an item); -EOVERFLOW when the item would grow past the largest
 */
static int insert_or_append(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			    const struct btrfs_key *key, const void *data, u32 size)
{
	struct btrfs_path path;
	u32 old_len, max = btrfs_max_item_size(trans->fs->nodesize);
	u8 *old, *buf;
	int ret;

	ret = btrfs_insert_item(trans, root, key, data, size);
	if (ret != -EEXIST)
		return ret;
	btrfs_path_init(&path);
	ret = btrfs_search_cow(trans, root, key, &path, 0);
	if (ret) {
		btrfs_path_release(&path);
		return ret > 0 ? -EUCLEAN : ret;
	}
	old = btrfs_path_item_ptr(&path, &old_len);
	if (old_len + size > max) {
		btrfs_path_release(&path);
		return -EOVERFLOW;
	}
	buf = malloc(old_len + size);
	if (!buf) {
		btrfs_path_release(&path);
		return -ENOMEM;
	}
	memcpy(buf, old, old_len);
	memcpy(buf + old_len, data, size);
	ret = btrfs_del_item(trans, root, &path);
	if (!ret)
		ret = btrfs_insert_item(trans, root, key, buf, old_len + size);
	free(buf);
	return ret;
}

static int insert_extrefs(struct btrfs_trans_handle *trans, struct btrfs_root *root, u64 ino,
			  u64 parent, const struct btrfs_link_name *names, size_t nr)
{
	u8 buf[sizeof(struct btrfs_inode_extref) + 65535];
	int ret;

	for (size_t i = 0; i < nr; i++) {
		struct btrfs_inode_extref *x = (struct btrfs_inode_extref *)buf;
		struct btrfs_key key = { ino, BTRFS_INODE_EXTREF_KEY,
			btrfs_extref_hash(parent, names[i].name, names[i].len) };

		btrfs_set_inode_extref_parent_objectid(x, parent);
		btrfs_set_inode_extref_index(x, names[i].index);
		btrfs_set_inode_extref_name_len(x, names[i].len);
		memcpy(buf + sizeof(*x), names[i].name, names[i].len);
		ret = insert_or_append(trans, root, &key, buf, (u32)(sizeof(*x) + names[i].len));
		if (ret < 0)
			return ret;
	}
	return 0;
}

int btrfs_insert_inode_refs(struct btrfs_trans_handle *trans, struct btrfs_root *root, u64 ino,
			    u64 parent, const struct btrfs_link_name *names, size_t nr)
{
	u32 max = btrfs_max_item_size(trans->fs->nodesize), len = 0;
	struct btrfs_key key = { ino, BTRFS_INODE_REF_KEY, parent };
	size_t fit = 0;
	u8 *buf;
	int ret;

	while (fit < nr && len + sizeof(struct btrfs_inode_ref) + names[fit].len <= max)
		len += (u32)sizeof(struct btrfs_inode_ref) + names[fit++].len;
	if (!fit)
		return insert_extrefs(trans, root, ino, parent, names, nr);
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	len = 0;
	for (size_t i = 0; i < fit; i++) {
		struct btrfs_inode_ref *r = (struct btrfs_inode_ref *)(buf + len);

		btrfs_set_inode_ref_index(r, names[i].index);
		btrfs_set_inode_ref_name_len(r, names[i].len);
		memcpy(buf + len + sizeof(*r), names[i].name, names[i].len);
		len += (u32)sizeof(*r) + names[i].len;
	}
	ret = btrfs_insert_item(trans, root, &key, buf, len);
	free(buf);
	if (!ret && fit < nr)
		ret = insert_extrefs(trans, root, ino, parent, names + fit, nr - fit);
	return ret;
}

/* A dir item (DIR_ITEM, DIR_INDEX or XATTR_ITEM payload) in a fresh buffer */
static u8 *dir_item(u64 transid, const struct btrfs_key *location, u8 type, const char *name,
		    size_t name_len, const void *data, size_t data_len, u32 *size)
{
	u8 *buf;
	struct btrfs_dir_item *di;

	*size = (u32)(sizeof(*di) + name_len + data_len);
	buf = calloc(1, *size);
	if (!buf)
		return NULL;
	di = (struct btrfs_dir_item *)buf;
	btrfs_set_dir_location(di, location);
	btrfs_set_dir_transid(di, transid);
	btrfs_set_dir_data_len(di, (u16)data_len);
	btrfs_set_dir_name_len(di, (u16)name_len);
	btrfs_set_dir_type(di, type);
	memcpy(buf + sizeof(*di), name, name_len);
	if (data_len)
		memcpy(buf + sizeof(*di) + name_len, data, data_len);
	return buf;
}

int btrfs_insert_dir_entry(struct btrfs_trans_handle *trans, struct btrfs_root *root, u64 dir,
			   u64 index, const char *name, size_t name_len,
			   const struct btrfs_key *location, u8 type)
{
	struct btrfs_key key = { dir, BTRFS_DIR_ITEM_KEY, btrfs_name_hash(name, name_len) };
	u32 size;
	u8 *buf;
	int ret;

	if (!name_len || name_len > BTRFS_NAME_LEN)
		return -EINVAL;
	buf = dir_item(trans->transid, location, type, name, name_len, NULL, 0, &size);
	if (!buf)
		return -ENOMEM;
	ret = insert_or_append(trans, root, &key, buf, size);
	if (!ret) {
		key = (struct btrfs_key){ dir, BTRFS_DIR_INDEX_KEY, index };
		ret = btrfs_insert_item(trans, root, &key, buf, size);
	}
	free(buf);
	return ret;
}

u32 btrfs_max_xattr_size(u32 nodesize)
{
	return btrfs_max_item_size(nodesize) - (u32)sizeof(struct btrfs_dir_item);
}

int btrfs_insert_xattr(struct btrfs_trans_handle *trans, struct btrfs_root *root, u64 ino,
		       const char *name, size_t name_len, const void *value, size_t value_len)
{
	struct btrfs_key key = { ino, BTRFS_XATTR_ITEM_KEY, btrfs_name_hash(name, name_len) };
	struct btrfs_key none = { 0, 0, 0 };
	u32 size;
	u8 *buf;
	int ret;

	if (!name_len || name_len > BTRFS_NAME_LEN)
		return -EINVAL;
	if (name_len + value_len > btrfs_max_xattr_size(trans->fs->nodesize))
		return -E2BIG;
	buf = dir_item(trans->transid, &none, BTRFS_FT_XATTR, name, name_len, value, value_len,
		       &size);
	if (!buf)
		return -ENOMEM;
	ret = insert_or_append(trans, root, &key, buf, size);
	free(buf);
	return ret;
}

u32 btrfs_max_inline(u32 nodesize, u32 sectorsize)
{
	u32 item = btrfs_max_item_size(nodesize) - BTRFS_FILE_EXTENT_INLINE_DATA_START;
	u32 max = DEFAULT_MAX_INLINE;

	if (max > sectorsize - 1)
		max = sectorsize - 1;
	return max < item ? max : item;
}

/* lzo and zstd extents need their incompat bit (zlib is in every kernel) */
static void note_compression(struct btrfs_trans_handle *trans, u8 type)
{
	if (type == BTRFS_COMPRESS_LZO)
		trans->incompat_set |= BTRFS_FEATURE_INCOMPAT_COMPRESS_LZO;
	else if (type == BTRFS_COMPRESS_ZSTD)
		trans->incompat_set |= BTRFS_FEATURE_INCOMPAT_COMPRESS_ZSTD;
}

static int insert_inline(struct btrfs_trans_handle *trans, struct btrfs_root *root, u64 ino,
			 const void *data, size_t len, u64 ram_bytes, u8 type)
{
	struct btrfs_key key = { ino, BTRFS_EXTENT_DATA_KEY, 0 };
	u32 size = BTRFS_FILE_EXTENT_INLINE_DATA_START + (u32)len;
	struct btrfs_file_extent_item *fi;
	u8 *buf;
	int ret;

	if (len > btrfs_max_item_size(trans->fs->nodesize) - BTRFS_FILE_EXTENT_INLINE_DATA_START)
		return -E2BIG;
	buf = calloc(1, size);
	if (!buf)
		return -ENOMEM;
	fi = (struct btrfs_file_extent_item *)buf;
	btrfs_set_file_extent_generation(fi, trans->transid);
	btrfs_set_file_extent_ram_bytes(fi, ram_bytes);
	btrfs_set_file_extent_compression(fi, type);
	btrfs_set_file_extent_type(fi, BTRFS_FILE_EXTENT_INLINE);
	memcpy(buf + BTRFS_FILE_EXTENT_INLINE_DATA_START, data, len);
	ret = btrfs_insert_item(trans, root, &key, buf, size);
	free(buf);
	if (!ret)
		note_compression(trans, type);
	return ret;
}

int btrfs_insert_inline_extent(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			       u64 ino, const void *data, size_t len)
{
	return insert_inline(trans, root, ino, data, len, len, BTRFS_COMPRESS_NONE);
}

int btrfs_insert_inline_compressed(struct btrfs_trans_handle *trans, struct btrfs_root *root,
				   u64 ino, const void *data, size_t len, u64 ram_bytes, u8 type)
{
	if (type == BTRFS_COMPRESS_NONE || type > BTRFS_COMPRESS_ZSTD)
		return -EINVAL;
	return insert_inline(trans, root, ino, data, len, ram_bytes, type);
}

static int insert_reg(struct btrfs_trans_handle *trans, struct btrfs_root *root, u64 ino,
		      u64 file_off, u64 disk_bytenr, u64 disk_len, u64 ram_bytes, u64 num_bytes,
		      u8 type)
{
	struct btrfs_key key = { ino, BTRFS_EXTENT_DATA_KEY, file_off };
	struct btrfs_file_extent_item fi;
	int ret;

	memset(&fi, 0, sizeof(fi));
	btrfs_set_file_extent_generation(&fi, trans->transid);
	btrfs_set_file_extent_ram_bytes(&fi, ram_bytes);
	btrfs_set_file_extent_compression(&fi, type);
	btrfs_set_file_extent_type(&fi, BTRFS_FILE_EXTENT_REG);
	btrfs_set_file_extent_disk_bytenr(&fi, disk_bytenr);
	btrfs_set_file_extent_disk_num_bytes(&fi, disk_len);
	btrfs_set_file_extent_offset(&fi, 0);
	btrfs_set_file_extent_num_bytes(&fi, num_bytes);
	ret = btrfs_insert_item(trans, root, &key, &fi, sizeof(fi));
	if (!ret)
		ret = btrfs_add_data_extent(trans, disk_bytenr, disk_len, root->id, ino, file_off);
	if (!ret)
		note_compression(trans, type);
	return ret;
}

int btrfs_insert_file_extent(struct btrfs_trans_handle *trans, struct btrfs_root *root, u64 ino,
			     u64 file_off, u64 disk_bytenr, u64 disk_len, u64 num_bytes)
{
	return insert_reg(trans, root, ino, file_off, disk_bytenr, disk_len, disk_len, num_bytes,
			  BTRFS_COMPRESS_NONE);
}

int btrfs_insert_compressed_extent(struct btrfs_trans_handle *trans, struct btrfs_root *root,
				   u64 ino, u64 file_off, u64 disk_bytenr, u64 disk_len,
				   u64 ram_bytes, u8 type)
{
	u64 ss = trans->fs->sectorsize;

	if (type == BTRFS_COMPRESS_NONE || type > BTRFS_COMPRESS_ZSTD || (ram_bytes & (ss - 1)) ||
	    !ram_bytes || ram_bytes > 128 * 1024 || (disk_len & (ss - 1)) || disk_len >= ram_bytes)
		return -EINVAL;
	return insert_reg(trans, root, ino, file_off, disk_bytenr, disk_len, ram_bytes, ram_bytes,
			  type);
}
