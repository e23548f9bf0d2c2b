// SPDX-License-Identifier: GPL-2.0-only
/*
 * Dropping data references, and freeing a data extent with its last one
 * (see extent-free.h).
 *
 * A data extent item (bytenr, EXTENT_ITEM, num_bytes) counts in refs the
 * sum of the counts of its references: inline EXTENT_DATA_REF(root, ino,
 * offset, count) and SHARED_DATA_REF(parent, count) after the fixed part,
 * or keyed items (bytenr, EXTENT_DATA_REF, hash + collision index) and
 * (bytenr, SHARED_DATA_REF, parent).  A count reaching 0 removes its ref;
 * refs reaching 0 removes the extent: its item, the checksum items over
 * its range (cut at the edges: an item may span several extents), its
 * bytes from the block group, the superblock and the subvolume's qgroups
 * (btrfs_account_data_free()), and the range returns to the free space
 * tree.  The caller's transaction pins nothing: the writer never
 * allocates data, so the range cannot be reused before the commit.
 *
 * Simple quotas (the kernel's __btrfs_free_extent with
 * btrfs_record_squota_delta): the freed bytes leave the subvolume named by
 * the extent's EXTENT_OWNER_REF, read from the item before it is deleted,
 * not the tree that dropped the last reference; an extent without one, or
 * older than enable_gen, was never charged and charges nothing back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fs.h"
#include "csum.h"
#include "ctree.h"
#include "ctree-write.h"
#include "transaction.h"
#include "alloc.h"
#include "squota.h"
#include "extent-free.h"

/* Keyed EXTENT_DATA_REF hash collisions tolerated before calling it corrupt */
#define MAX_HASH_PROBES		4096
#define DATA_REF_SIZE		(sizeof(struct btrfs_extent_data_ref))

static bool data_ref_matches(const struct btrfs_extent_data_ref *dr,
			     const struct btrfs_data_ref *ref)
{
	return btrfs_extent_data_ref_root(dr) == ref->root &&
	       btrfs_extent_data_ref_objectid(dr) == ref->ino &&
	       btrfs_extent_data_ref_offset(dr) == ref->offset;
}

/* The extent lost its last reference: everything that described it goes */
static int free_data_extent(struct btrfs_trans_handle *trans, u64 bytenr, u64 num_bytes,
			    u64 qgroup_root)
{
	int ret;

	ret = btrfs_csum_delete_range(trans, bytenr, num_bytes);
	if (!ret)
		ret = btrfs_account_data_free(trans, bytenr, num_bytes, qgroup_root);
	if (!ret && trans->alloc.has_fst)
		ret = btrfs_fst_add(trans, bytenr, num_bytes);
	return ret;
}

/*
 * Count - 1 of the keyed ref; *gone when the ref had count 1
 * Return: 0, -ENOENT when there is no such keyed ref, or <0.
 */
static int drop_keyed_ref(struct btrfs_trans_handle *trans, struct btrfs_root *extent_root,
			  u64 bytenr, const struct btrfs_data_ref *ref)
{
	struct btrfs_extent_data_ref dr;
	struct btrfs_key key;
	u8 cnt[4];
	u32 len;
	int ret;

	if (ref->parent) {
		key = (struct btrfs_key){ bytenr, BTRFS_SHARED_DATA_REF_KEY, ref->parent };
		ret = btrfs_lookup_item(extent_root, &key, cnt, sizeof(cnt), &len);
		if (ret < 0)
			return ret;
		if (len != sizeof(cnt) || !get_le32(cnt))
			return -EUCLEAN;
		if (get_le32(cnt) == 1)
			return btrfs_delete_key(trans, extent_root, &key);
		put_le32(cnt, get_le32(cnt) - 1);
		return btrfs_update_item(trans, extent_root, &key, cnt, sizeof(cnt));
	}
	key = (struct btrfs_key){ bytenr, BTRFS_EXTENT_DATA_REF_KEY,
				  btrfs_extent_data_ref_hash(ref->root, ref->ino, ref->offset) };
	for (int probe = 0; probe < MAX_HASH_PROBES; probe++, key.offset++) {
		ret = btrfs_lookup_item(extent_root, &key, &dr, sizeof(dr), &len);
		if (ret < 0)
			return ret;
		if (len != DATA_REF_SIZE)
			return -EUCLEAN;
		if (!data_ref_matches(&dr, ref))
			continue;
		if (!btrfs_extent_data_ref_count(&dr))
			return -EUCLEAN;
		if (btrfs_extent_data_ref_count(&dr) == 1)
			return btrfs_delete_key(trans, extent_root, &key);
		btrfs_set_extent_data_ref_count(&dr, btrfs_extent_data_ref_count(&dr) - 1);
		return btrfs_update_item(trans, extent_root, &key, &dr, sizeof(dr));
	}
	return -EUCLEAN;
}

/* Offset of the matching inline ref in @item, 0 if none; <0 if the item is corrupt */
static long find_inline_ref(const u8 *item, u32 len, const struct btrfs_data_ref *ref)
{
	u32 off = sizeof(struct btrfs_extent_item);

	while (off < len) {
		u32 sz = btrfs_extent_inline_ref_size(item[off]);

		if (!sz || off + sz > len)
			return -EUCLEAN;
		if (ref->parent && item[off] == BTRFS_SHARED_DATA_REF_KEY &&
		    get_le64(item + off + 1) == ref->parent)
			return off;
		if (!ref->parent && item[off] == BTRFS_EXTENT_DATA_REF_KEY &&
		    data_ref_matches((const void *)(item + off + 1), ref))
			return off;
		off += sz;
	}
	return 0;
}

/* Count of the inline ref at @item + @off, and a pointer to it */
static u8 *inline_count(u8 *item, u32 off)
{
	if (item[off] == BTRFS_SHARED_DATA_REF_KEY)
		return item + off + 9;
	return item + off + 1 + 24;
}

/*
 * Qgroup charged back when the extent item @item (@len bytes, checked
 * for the fixed part) goes: @qgroup_root with full quotas; with simple
 * quotas the root of its EXTENT_OWNER_REF (at most one, first of the
 * inline refs) if its generation counts, else 0 (no subvolume: no charge)
 */
static u64 free_charge_root(const struct btrfs_trans_handle *trans, const u8 *item, u32 len,
			    u64 qgroup_root)
{
	u32 off = sizeof(struct btrfs_extent_item);

	if (!trans->squota)
		return qgroup_root;
	if (!btrfs_squota_counts(trans, btrfs_extent_generation((const void *)item)))
		return 0;
	if (off + btrfs_extent_inline_ref_size(BTRFS_EXTENT_OWNER_REF_KEY) > len ||
	    item[off] != BTRFS_EXTENT_OWNER_REF_KEY)
		return 0;
	return get_le64(item + off + 1);
}

int btrfs_drop_data_ref(struct btrfs_trans_handle *trans, u64 bytenr, u64 num_bytes,
			const struct btrfs_data_ref *ref, u64 qgroup_root, bool *freed)
{
	struct btrfs_fs *fs = trans->fs;
	struct btrfs_key key = { bytenr, BTRFS_EXTENT_ITEM_KEY, num_bytes };
	struct btrfs_root *extent_root;
	struct btrfs_path path;
	u8 *item, *buf, *cnt;
	u64 refs, charge = 0;
	long off;
	u32 len;
	int ret;

	*freed = false;
	ret = btrfs_read_root(fs, BTRFS_EXTENT_TREE_OBJECTID, &extent_root);
	if (ret < 0)
		return ret;
	btrfs_path_init(&path);
	ret = btrfs_search_cow(trans, extent_root, &key, &path, 0);
	if (ret) {
		btrfs_path_release(&path);
		if (ret > 0) {
			btrfs_fs_set_error(fs, "data extent %llu: no extent item",
					   (unsigned long long)bytenr);
			return -EUCLEAN;
		}
		return ret;
	}
	item = btrfs_path_item_ptr(&path, &len);
	if (len < sizeof(struct btrfs_extent_item) ||
	    !(btrfs_extent_flags((struct btrfs_extent_item *)item) & BTRFS_EXTENT_FLAG_DATA))
		goto corrupt;
	refs = btrfs_extent_refs((struct btrfs_extent_item *)item);
	off = find_inline_ref(item, len, ref);
	if (off < 0 || !refs)
		goto corrupt;
	if (off) {
		cnt = inline_count(item, (u32)off);
		if (!get_le32(cnt) || get_le32(cnt) > refs)
			goto corrupt;
		if (refs == 1) {
			charge = free_charge_root(trans, item, len, qgroup_root);
			ret = btrfs_del_item(trans, extent_root, &path);
			goto free_extent;
		}
		btrfs_set_extent_refs((struct btrfs_extent_item *)item, refs - 1);
		if (get_le32(cnt) > 1) {
			put_le32(cnt, get_le32(cnt) - 1);
			btrfs_path_release(&path);
			return 0;
		}
		/* the ref goes: the item shrinks (deleted, inserted again) */
		{
			u32 sz = btrfs_extent_inline_ref_size(item[off]);

			buf = malloc(len);
			if (!buf) {
				btrfs_path_release(&path);
				return -ENOMEM;
			}
			memcpy(buf, item, (size_t)off);
			memcpy(buf + off, item + off + sz, len - (u32)off - sz);
			ret = btrfs_del_item(trans, extent_root, &path);
			if (!ret)
				ret = btrfs_insert_item(trans, extent_root, &key, buf, len - sz);
			free(buf);
			return ret;
		}
	}
	/* a keyed reference; the extent item changes afterwards */
	btrfs_path_release(&path);
	ret = drop_keyed_ref(trans, extent_root, bytenr, ref);
	if (ret == -ENOENT || ret == -EUCLEAN)
		goto missing;
	if (ret < 0)
		return ret;
	ret = btrfs_search_cow(trans, extent_root, &key, &path, 0);
	if (ret) {
		btrfs_path_release(&path);
		return ret < 0 ? ret : -EUCLEAN;
	}
	item = btrfs_path_item_ptr(&path, &len);
	if (len < sizeof(struct btrfs_extent_item) ||
	    btrfs_extent_refs((struct btrfs_extent_item *)item) != refs)
		goto corrupt;
	if (refs == 1) {
		charge = free_charge_root(trans, item, len, qgroup_root);
		ret = btrfs_del_item(trans, extent_root, &path);
		goto free_extent;
	}
	btrfs_set_extent_refs((struct btrfs_extent_item *)item, refs - 1);
	btrfs_path_release(&path);
	return 0;

free_extent:
	if (ret < 0)
		return ret;
	*freed = true;
	return free_data_extent(trans, bytenr, num_bytes, charge);
missing:
	btrfs_fs_set_error(fs, "data extent %llu: back reference %s %llu not found",
			   (unsigned long long)bytenr, ref->parent ? "parent" : "root",
			   (unsigned long long)(ref->parent ? ref->parent : ref->root));
	return -EUCLEAN;
corrupt:
	btrfs_path_release(&path);
	btrfs_fs_set_error(fs, "data extent %llu: corrupt extent item", (unsigned long long)bytenr);
	return -EUCLEAN;
}

struct csum_find {
	u64 start, end;		/* range to clear */
	u32 sectorsize, csum_size;
	struct btrfs_key key;	/* first overlapping item */
	u8 *data;		/* its copy (nodesize bytes) */
	u32 len;
	bool found;
	int err;
};

static int csum_find_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct csum_find *f = priv;
	u64 iend;

	if (key->objectid != BTRFS_EXTENT_CSUM_OBJECTID || key->type != BTRFS_EXTENT_CSUM_KEY)
		return 0;
	if (len % f->csum_size || key->offset % f->sectorsize) {
		f->err = -EUCLEAN;
		return 1;
	}
	iend = key->offset + (u64)(len / f->csum_size) * f->sectorsize;
	if (iend <= f->start || key->offset >= f->end)
		return 0;
	f->key = *key;
	memcpy(f->data, data, len);
	f->len = len;
	f->found = true;
	return 1;
}

int btrfs_csum_delete_range(struct btrfs_trans_handle *trans, u64 start, u64 len)
{
	struct btrfs_fs *fs = trans->fs;
	u32 ss = fs->sectorsize, cs = (u32)fs->csum_size;
	/* no item covers more than a leaf full of checksums */
	u64 span = (u64)(fs->nodesize / cs) * ss;
	struct csum_find f = { .start = start, .end = start + len, .sectorsize = ss,
			       .csum_size = cs };
	struct btrfs_root *root;
	int ret;

	if (!len || start % ss || len % ss) {
		btrfs_fs_set_error(fs, "data extent %llu: length %llu not sector aligned",
				   (unsigned long long)start, (unsigned long long)len);
		return -EUCLEAN;
	}
	ret = btrfs_read_root(fs, BTRFS_CSUM_TREE_OBJECTID, &root);
	if (ret == -ENOENT)
		return 0;
	if (ret < 0)
		return ret;
	f.data = malloc(fs->nodesize);
	if (!f.data)
		return -ENOMEM;
	/* each pass removes one overlapping item: at most len / sectorsize + 2 of them */
	for (u64 pass = 0; pass < len / ss + 2; pass++) {
		struct btrfs_key min = { BTRFS_EXTENT_CSUM_OBJECTID, BTRFS_EXTENT_CSUM_KEY,
					 start > span ? start - span : 0 };
		struct btrfs_key max = { BTRFS_EXTENT_CSUM_OBJECTID, BTRFS_EXTENT_CSUM_KEY,
					 f.end - 1 };
		u64 istart, iend;

		f.found = false;
		ret = btrfs_iterate_items(root, &min, &max, csum_find_cb, &f);
		if (!ret)
			ret = f.err;
		if (ret < 0 || !f.found)
			break;
		istart = f.key.offset;
		iend = istart + (u64)(f.len / cs) * ss;
		ret = btrfs_delete_key(trans, root, &f.key);
		if (!ret && istart < start) {
			/* the head stays under its key */
			ret = btrfs_insert_item(trans, root, &f.key, f.data,
						(u32)((start - istart) / ss) * cs);
		}
		if (!ret && iend > f.end) {
			struct btrfs_key tail = { BTRFS_EXTENT_CSUM_OBJECTID, BTRFS_EXTENT_CSUM_KEY,
						  f.end };
			u32 skip = (u32)((f.end - istart) / ss) * cs;

			ret = btrfs_insert_item(trans, root, &tail, f.data + skip, f.len - skip);
		}
		if (ret < 0)
			break;
	}
	free(f.data);
	if (!ret && f.found) {
		btrfs_fs_set_error(fs, "checksum tree: items over %llu do not shrink",
				   (unsigned long long)start);
		ret = -EUCLEAN;
	}
	return ret;
}
