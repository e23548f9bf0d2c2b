// SPDX-License-Identifier: GPL-2.0-only
/*
 * New file data inside an offline transaction (see data-write.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fs.h"
#include "csum.h"
#include "ctree.h"
#include "ctree-write.h"
#include "volumes.h"
#include "alloc.h"
#include "chunk-alloc.h"
#include "transaction.h"
#include "data-write.h"
#include "array.h"

/* extent item, [EXTENT_OWNER_REF (simple quotas)], EXTENT_DATA_REF */
#define OWNER_REF_SIZE		(1 + 8)
#define DATA_EXTENT_ITEM_MAX \
	(sizeof(struct btrfs_extent_item) + OWNER_REF_SIZE + 1 + sizeof(struct btrfs_extent_data_ref))

/* The kernel's largest csum item: (leaf data - 2 item headers) / csum size - 1 checksums */
static size_t max_csum_item_bytes(const struct btrfs_fs *fs)
{
	u32 cs = (u32)fs->csum_size;

	return (size_t)(((btrfs_leaf_data_size(fs->nodesize) -
			  2 * (u32)sizeof(struct btrfs_item)) / cs - 1) * cs);
}

int btrfs_csum_flush(struct btrfs_trans_handle *trans)
{
	struct btrfs_fs *fs = trans->fs;
	size_t max = max_csum_item_bytes(fs), done = 0;
	struct btrfs_root *root;
	int ret;

	if (!trans->csum_run_len)
		return 0;
	ret = btrfs_read_root(fs, BTRFS_CSUM_TREE_OBJECTID, &root);
	if (ret < 0)
		return ret;
	while (done < trans->csum_run_len) {
		size_t n = trans->csum_run_len - done;
		struct btrfs_key key = { BTRFS_EXTENT_CSUM_OBJECTID, BTRFS_EXTENT_CSUM_KEY,
			trans->csum_start + done / (size_t)fs->csum_size * fs->sectorsize };

		if (n > max)
			n = max;
		ret = btrfs_insert_item(trans, root, &key, trans->csum_run + done, (u32)n);
		if (ret < 0)
			return ret;
		done += n;
	}
	trans->csum_run_len = 0;
	return 0;
}

/*
 * Room in the checksum run for @sectors sectors from @bytenr (the run is
 * flushed first when it does not end there); *@dst where they go
 */
static int csum_room(struct btrfs_trans_handle *trans, u64 bytenr, u64 sectors, u8 **dst)
{
	struct btrfs_fs *fs = trans->fs;
	size_t cs = (size_t)fs->csum_size;
	int ret;

	if (trans->csum_run_len && trans->csum_start +
	    trans->csum_run_len / cs * fs->sectorsize != bytenr) {
		ret = btrfs_csum_flush(trans);
		if (ret < 0)
			return ret;
	}
	if (!trans->csum_run_len)
		trans->csum_start = bytenr;
	ret = btrfs_array_grow((void **)&trans->csum_run, &trans->csum_run_cap,
		   trans->csum_run_len + sectors * cs, 1);
	if (ret < 0)
		return ret;
	*dst = trans->csum_run + trans->csum_run_len;
	trans->csum_run_len += sectors * cs;
	return 0;
}

/* Checksums of the sectors of @buf (@len a multiple of the sector size) at @bytenr */
static int csum_add(struct btrfs_trans_handle *trans, u64 bytenr, const u8 *buf, u64 len)
{
	struct btrfs_fs *fs = trans->fs;
	u64 sectors = len / fs->sectorsize;
	size_t cs = (size_t)fs->csum_size;
	u8 *dst;
	int ret;

	ret = csum_room(trans, bytenr, sectors, &dst);
	for (u64 i = 0; i < sectors && !ret; i++) {
		u8 c[BTRFS_CSUM_MAX_SIZE];

		ret = btrfs_csum_data(fs->csum_type, buf + i * fs->sectorsize, fs->sectorsize, c);
		memcpy(dst + i * cs, c, cs);
	}
	return ret;
}

static int data_write(struct btrfs_trans_handle *trans, u64 bytenr, const void *buf, u64 len,
		      bool csum);

int btrfs_data_write(struct btrfs_trans_handle *trans, u64 bytenr, const void *buf, u64 len)
{
	return data_write(trans, bytenr, buf, len, true);
}

int btrfs_data_write_nocsum(struct btrfs_trans_handle *trans, u64 bytenr, const void *buf,
			    u64 len)
{
	return buf ? data_write(trans, bytenr, buf, len, false) : 0;
}

static int data_write(struct btrfs_trans_handle *trans, u64 bytenr, const void *buf, u64 len,
		      bool csum)
{
	struct btrfs_fs *fs = trans->fs;
	u64 ss = fs->sectorsize;
	u64 whole = len & ~(ss - 1);
	int ret;

	if ((bytenr & (ss - 1)) || !len)
		return -EINVAL;
	if (!buf) {
		/* a measuring run: the items as they will be, nothing on the device */
		u64 sectors = (len + ss - 1) / ss;
		u8 *dst;

		ret = csum_room(trans, bytenr, sectors, &dst);
		if (!ret)
			memset(dst, 0, sectors * (size_t)fs->csum_size);
		return ret;
	}
	if (whole) {
		ret = btrfs_write_logical(fs, bytenr, buf, whole);
		if (!ret && csum)
			ret = csum_add(trans, bytenr, buf, whole);
		if (ret < 0)
			return ret;
	}
	if (whole < len) {
		u8 *tail = calloc(1, ss);

		if (!tail)
			return -ENOMEM;
		memcpy(tail, (const u8 *)buf + whole, len - whole);
		ret = btrfs_write_logical(fs, bytenr + whole, tail, ss);
		if (!ret && csum)
			ret = csum_add(trans, bytenr + whole, tail, ss);
		free(tail);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int btrfs_add_data_extent(struct btrfs_trans_handle *trans, u64 bytenr, u64 len, u64 root,
			  u64 ino, u64 offset)
{
	struct btrfs_trans_data *d;
	int ret;

	ret = btrfs_array_grow((void **)&trans->data, &trans->data_cap, trans->nr_data + 1,
		   sizeof(*trans->data));
	if (ret < 0)
		return ret;
	d = &trans->data[trans->nr_data++];
	*d = (struct btrfs_trans_data){ bytenr, len, root, ino, offset, false };
	return 0;
}

static int insert_data_extent_item(struct btrfs_trans_handle *trans,
				   const struct btrfs_trans_data *d)
{
	struct btrfs_key key = { d->bytenr, BTRFS_EXTENT_ITEM_KEY, d->len };
	u8 buf[DATA_EXTENT_ITEM_MAX];
	struct btrfs_extent_item *ei = (struct btrfs_extent_item *)buf;
	struct btrfs_extent_data_ref *dr;
	struct btrfs_root *extent_root;
	u32 off = sizeof(*ei);
	int ret;

	ret = btrfs_read_root(trans->fs, BTRFS_EXTENT_TREE_OBJECTID, &extent_root);
	if (ret < 0)
		return ret;
	memset(buf, 0, sizeof(buf));
	btrfs_set_extent_refs(ei, 1);
	btrfs_set_extent_generation(ei, trans->transid);
	btrfs_set_extent_flags(ei, BTRFS_EXTENT_FLAG_DATA);
	if (trans->squota) {
		/* simple quotas: the owner ref comes first, as the kernel writes it */
		buf[off] = BTRFS_EXTENT_OWNER_REF_KEY;
		put_le64(buf + off + 1, d->root);
		off += OWNER_REF_SIZE;
	}
	buf[off] = BTRFS_EXTENT_DATA_REF_KEY;
	dr = (struct btrfs_extent_data_ref *)(buf + off + 1);
	off += 1 + (u32)sizeof(*dr);
	btrfs_set_extent_data_ref_root(dr, d->root);
	btrfs_set_extent_data_ref_objectid(dr, d->ino);
	btrfs_set_extent_data_ref_offset(dr, d->offset);
	btrfs_set_extent_data_ref_count(dr, 1);
	ret = btrfs_insert_item(trans, extent_root, &key, buf, off);
	if (ret == -EEXIST)
		btrfs_fs_set_error(trans->fs, "extent tree: data extent %llu already has an extent item",
				   (unsigned long long)d->bytenr);
	return ret;
}

int btrfs_run_pending_data(struct btrfs_trans_handle *trans)
{
	int done = 0, ret;

	/* the array may grow while we work: index, never keep pointers */
	for (size_t i = 0; i < trans->nr_data; i++) {
		struct btrfs_trans_data d = trans->data[i];
		struct btrfs_bg *bg;

		if (d.recorded)
			continue;
		trans->data[i].recorded = true;
		bg = btrfs_bg_lookup(&trans->alloc, d.bytenr);
		if (!bg || !(bg->flags & BTRFS_BLOCK_GROUP_DATA) ||
		    d.bytenr + d.len > bg->start + bg->length) {
			btrfs_fs_set_error(trans->fs, "data extent %llu: not inside a data block group",
					   (unsigned long long)d.bytenr);
			return -EUCLEAN;
		}
		ret = insert_data_extent_item(trans, &d);
		if (ret < 0)
			return ret;
		bg->used += d.len;
		bg->dirty = true;
		ret = btrfs_account_data_new(trans, d.bytenr, d.len, d.root);
		if (ret < 0)
			return ret;
		if (trans->alloc.has_fst) {
			ret = btrfs_fst_remove(trans, d.bytenr, d.len);
			if (ret < 0)
				return ret;
		}
		done++;
	}
	return done;
}

void btrfs_data_release(struct btrfs_trans_handle *trans)
{
	free(trans->data);
	free(trans->csum_run);
	trans->data = NULL;
	trans->csum_run = NULL;
	trans->nr_data = trans->data_cap = 0;
	trans->csum_run_len = trans->csum_run_cap = 0;
}
