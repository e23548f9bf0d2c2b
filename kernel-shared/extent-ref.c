// SPDX-License-Identifier: GPL-2.0-only
/*
 * Adding back references to existing extent items (see extent-ref.h).
 *
 * An extent item is the fixed btrfs_extent_item, then (EXTENT_ITEM of a
 * tree block only) a tree_block_info, then inline refs sorted by type
 * ascending and, within a type, by their sequence descending (root id or
 * parent bytenr; the data ref hash for EXTENT_DATA_REF).  A new ref goes
 * inline unless a keyed ref of the extent exists already or the item would
 * reach the maximum inline size; then it becomes a keyed item right after
 * the extent item.  The item's refs counts every reference.
 * A grown item is deleted and inserted again with its new size.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fs.h"
#include "csum.h"
#include "ctree.h"
#include "ctree-write.h"
#include "transaction.h"
#include "extent-ref.h"

struct new_ref {
	u8 type;		/* TREE_BLOCK_REF, EXTENT_DATA_REF, SHARED_* */
	u64 seq;		/* root id, parent bytenr, or the data ref hash */
	u64 root, ino, offset;	/* EXTENT_DATA_REF only */
};

static u32 max_inline_item_size(u32 nodesize)
{
	return (btrfs_leaf_data_size(nodesize) >> 4) - (u32)sizeof(struct btrfs_item);
}

static int keyed_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	bool *found = priv;

	(void)key;
	(void)data;
	(void)len;
	*found = true;
	return 1;
}

/* Any keyed back reference of @bytenr? */
static int has_keyed_refs(struct btrfs_root *extent_root, u64 bytenr, bool *found)
{
	struct btrfs_key min = { bytenr, BTRFS_TREE_BLOCK_REF_KEY, 0 };
	struct btrfs_key max = { bytenr, BTRFS_SHARED_DATA_REF_KEY, (u64)-1 };

	*found = false;
	return btrfs_iterate_items(extent_root, &min, &max, keyed_cb, found);
}

/* Sequence that orders inline refs of the same type (descending) */
static u64 inline_ref_seq(const u8 *p)
{
	if (p[0] == BTRFS_EXTENT_DATA_REF_KEY) {
		const struct btrfs_extent_data_ref *dr = (const void *)(p + 1);

		return btrfs_extent_data_ref_hash(btrfs_extent_data_ref_root(dr),
						  btrfs_extent_data_ref_objectid(dr),
						  btrfs_extent_data_ref_offset(dr));
	}
	return get_le64(p + 1);
}

/* A keyed EXTENT_DATA_REF: count + 1 of the matching triple or a new item */
static int inc_keyed_data_ref(struct btrfs_trans_handle *trans, struct btrfs_root *extent_root,
			      u64 bytenr, const struct new_ref *r)
{
	struct btrfs_extent_data_ref dr;

	for (u64 off = r->seq;; off++) {
		struct btrfs_key key = { bytenr, BTRFS_EXTENT_DATA_REF_KEY, off };
		u32 len;
		int ret;

		ret = btrfs_lookup_item(extent_root, &key, &dr, sizeof(dr), &len);
		if (ret == -ENOENT) {
			btrfs_set_extent_data_ref_root(&dr, r->root);
			btrfs_set_extent_data_ref_objectid(&dr, r->ino);
			btrfs_set_extent_data_ref_offset(&dr, r->offset);
			btrfs_set_extent_data_ref_count(&dr, 1);
			return btrfs_insert_item(trans, extent_root, &key, &dr, sizeof(dr));
		}
		if (ret < 0)
			return ret;
		if (len != sizeof(dr))
			return -EUCLEAN;
		if (btrfs_extent_data_ref_root(&dr) == r->root &&
		    btrfs_extent_data_ref_objectid(&dr) == r->ino &&
		    btrfs_extent_data_ref_offset(&dr) == r->offset) {
			btrfs_set_extent_data_ref_count(&dr, btrfs_extent_data_ref_count(&dr) + 1);
			return btrfs_update_item(trans, extent_root, &key, &dr, sizeof(dr));
		}
	}
}

static int inc_keyed_shared_data_ref(struct btrfs_trans_handle *trans,
				     struct btrfs_root *extent_root, u64 bytenr, u64 parent)
{
	struct btrfs_key key = { bytenr, BTRFS_SHARED_DATA_REF_KEY, parent };
	u8 cnt[4];
	u32 len;
	int ret;

	ret = btrfs_lookup_item(extent_root, &key, cnt, sizeof(cnt), &len);
	if (ret == -ENOENT) {
		put_le32(cnt, 1);
		return btrfs_insert_item(trans, extent_root, &key, cnt, sizeof(cnt));
	}
	if (ret < 0)
		return ret;
	if (len != sizeof(cnt))
		return -EUCLEAN;
	put_le32(cnt, get_le32(cnt) + 1);
	return btrfs_update_item(trans, extent_root, &key, cnt, sizeof(cnt));
}

/*
 * Add @r to the extent item @key: inline (same-triple data ref: count + 1
 * in place; else grown item) or keyed.  refs + 1 in every case.
 */
static int add_ref(struct btrfs_trans_handle *trans, const struct btrfs_key *key,
		   const struct new_ref *r)
{
	struct btrfs_fs *fs = trans->fs;
	struct btrfs_root *extent_root;
	struct btrfs_path path;
	u32 len, refsize = btrfs_extent_inline_ref_size(r->type), off, pos = 0;
	bool keyed, tree_block;
	u8 *item, *buf = NULL;
	int ret;

	ret = btrfs_read_root(fs, BTRFS_EXTENT_TREE_OBJECTID, &extent_root);
	if (ret < 0)
		return ret;
	ret = has_keyed_refs(extent_root, key->objectid, &keyed);
	if (ret < 0)
		return ret;
	btrfs_path_init(&path);
	ret = btrfs_search_cow(trans, extent_root, key, &path, 0);
	if (ret) {
		btrfs_path_release(&path);
		if (ret > 0) {
			btrfs_fs_set_error(fs, "extent %llu: no extent item",
					   (unsigned long long)key->objectid);
			return -EUCLEAN;
		}
		return ret;
	}
	item = btrfs_path_item_ptr(&path, &len);
	if (len < sizeof(struct btrfs_extent_item))
		goto corrupt;
	tree_block = btrfs_extent_flags((struct btrfs_extent_item *)item) &
		     BTRFS_EXTENT_FLAG_TREE_BLOCK;
	off = sizeof(struct btrfs_extent_item);
	if (tree_block && key->type == BTRFS_EXTENT_ITEM_KEY)
		off += sizeof(struct btrfs_tree_block_info);
	/* find the insert position; a data ref of the same triple just counts */
	while (off < len) {
		u32 sz = btrfs_extent_inline_ref_size(item[off]);

		if (!sz || off + sz > len)
			goto corrupt;
		if (!pos && (item[off] > r->type ||
			     (item[off] == r->type && inline_ref_seq(item + off) < r->seq)))
			pos = off;
		if (item[off] == r->type && r->type == BTRFS_SHARED_DATA_REF_KEY &&
		    get_le64(item + off + 1) == r->seq) {
			put_le32(item + off + 9, get_le32(item + off + 9) + 1);
			goto inc_refs;
		}
		if (item[off] == r->type && (r->type == BTRFS_TREE_BLOCK_REF_KEY ||
					     r->type == BTRFS_SHARED_BLOCK_REF_KEY) &&
		    get_le64(item + off + 1) == r->seq) {
			btrfs_path_release(&path);
			btrfs_fs_set_error(fs, "tree block %llu: already referenced by tree %llu",
					   (unsigned long long)key->objectid,
					   (unsigned long long)r->root);
			return -EUCLEAN;
		}
		if (item[off] == r->type && r->type == BTRFS_EXTENT_DATA_REF_KEY) {
			struct btrfs_extent_data_ref *dr = (void *)(item + off + 1);

			if (btrfs_extent_data_ref_root(dr) == r->root &&
			    btrfs_extent_data_ref_objectid(dr) == r->ino &&
			    btrfs_extent_data_ref_offset(dr) == r->offset) {
				btrfs_set_extent_data_ref_count(dr,
						btrfs_extent_data_ref_count(dr) + 1);
				goto inc_refs;
			}
		}
		off += sz;
	}
	if (!pos)
		pos = len;
	if (keyed || len + refsize >= max_inline_item_size(fs->nodesize)) {
		ret = 0;
		if (r->type == BTRFS_TREE_BLOCK_REF_KEY || r->type == BTRFS_SHARED_BLOCK_REF_KEY) {
			struct btrfs_key k = { key->objectid, r->type, r->seq };

			ret = btrfs_insert_item(trans, extent_root, &k, NULL, 0);
		} else if (r->type == BTRFS_SHARED_DATA_REF_KEY) {
			ret = inc_keyed_shared_data_ref(trans, extent_root, key->objectid, r->seq);
		} else {
			ret = inc_keyed_data_ref(trans, extent_root, key->objectid, r);
		}
		if (ret < 0) {
			btrfs_path_release(&path);
			return ret;
		}
		/* the path may be stale after the insert: look the item up again */
		btrfs_path_release(&path);
		ret = btrfs_search_cow(trans, extent_root, key, &path, 0);
		if (ret) {
			btrfs_path_release(&path);
			return ret < 0 ? ret : -EUCLEAN;
		}
		item = btrfs_path_item_ptr(&path, &len);
		goto inc_refs;
	}
	buf = malloc(len + refsize);
	if (!buf) {
		btrfs_path_release(&path);
		return -ENOMEM;
	}
	memcpy(buf, item, pos);
	memset(buf + pos, 0, refsize);
	buf[pos] = r->type;
	if (r->type != BTRFS_EXTENT_DATA_REF_KEY) {
		put_le64(buf + pos + 1, r->seq);
		if (r->type == BTRFS_SHARED_DATA_REF_KEY)
			put_le32(buf + pos + 9, 1);
	} else {
		struct btrfs_extent_data_ref *dr = (void *)(buf + pos + 1);

		btrfs_set_extent_data_ref_root(dr, r->root);
		btrfs_set_extent_data_ref_objectid(dr, r->ino);
		btrfs_set_extent_data_ref_offset(dr, r->offset);
		btrfs_set_extent_data_ref_count(dr, 1);
	}
	memcpy(buf + pos + refsize, item + pos, len - pos);
	btrfs_set_extent_refs((struct btrfs_extent_item *)buf,
			      btrfs_extent_refs((struct btrfs_extent_item *)buf) + 1);
	ret = btrfs_del_item(trans, extent_root, &path);
	if (!ret)
		ret = btrfs_insert_item(trans, extent_root, key, buf, len + refsize);
	free(buf);
	return ret;

inc_refs:
	btrfs_set_extent_refs((struct btrfs_extent_item *)item,
			      btrfs_extent_refs((struct btrfs_extent_item *)item) + 1);
	btrfs_path_release(&path);
	return 0;
corrupt:
	btrfs_path_release(&path);
	btrfs_fs_set_error(fs, "extent %llu: corrupt extent item", (unsigned long long)key->objectid);
	return -EUCLEAN;
}

int btrfs_inc_tree_block_ref(struct btrfs_trans_handle *trans, u64 bytenr, u8 level, u64 root)
{
	struct btrfs_key key = { bytenr, BTRFS_METADATA_ITEM_KEY, level };
	struct new_ref r = { .type = BTRFS_TREE_BLOCK_REF_KEY, .seq = root, .root = root };

	return add_ref(trans, &key, &r);
}

int btrfs_inc_shared_block_ref(struct btrfs_trans_handle *trans, u64 bytenr, u8 level,
			       u64 parent)
{
	struct btrfs_key key = { bytenr, BTRFS_METADATA_ITEM_KEY, level };
	struct new_ref r = { .type = BTRFS_SHARED_BLOCK_REF_KEY, .seq = parent };

	return add_ref(trans, &key, &r);
}

int btrfs_inc_shared_data_ref(struct btrfs_trans_handle *trans, u64 bytenr, u64 num_bytes,
			      u64 parent)
{
	struct btrfs_key key = { bytenr, BTRFS_EXTENT_ITEM_KEY, num_bytes };
	struct new_ref r = { .type = BTRFS_SHARED_DATA_REF_KEY, .seq = parent };

	return add_ref(trans, &key, &r);
}

int btrfs_inc_data_ref(struct btrfs_trans_handle *trans, u64 bytenr, u64 num_bytes, u64 root,
		       u64 ino, u64 offset)
{
	struct btrfs_key key = { bytenr, BTRFS_EXTENT_ITEM_KEY, num_bytes };
	struct new_ref r = {
		.type = BTRFS_EXTENT_DATA_REF_KEY,
		.seq = btrfs_extent_data_ref_hash(root, ino, offset),
		.root = root, .ino = ino, .offset = offset,
	};

	return add_ref(trans, &key, &r);
}

/* Remove one @type ref with sequence @seq (count - 1 for SHARED_DATA_REF) */
static int drop_ref(struct btrfs_trans_handle *trans, const struct btrfs_key *key, u8 type,
		    u64 seq)
{
	struct btrfs_fs *fs = trans->fs;
	struct btrfs_root *extent_root;
	struct btrfs_path path;
	u32 len, off;
	u8 *item, *buf;
	int ret;

	ret = btrfs_read_root(fs, BTRFS_EXTENT_TREE_OBJECTID, &extent_root);
	if (ret < 0)
		return ret;
	btrfs_path_init(&path);
	ret = btrfs_search_cow(trans, extent_root, key, &path, 0);
	if (ret) {
		btrfs_path_release(&path);
		return ret < 0 ? ret : -EUCLEAN;
	}
	item = btrfs_path_item_ptr(&path, &len);
	if (len < sizeof(struct btrfs_extent_item) ||
	    btrfs_extent_refs((struct btrfs_extent_item *)item) < 2)
		goto corrupt;
	btrfs_set_extent_refs((struct btrfs_extent_item *)item,
			      btrfs_extent_refs((struct btrfs_extent_item *)item) - 1);
	off = sizeof(struct btrfs_extent_item);
	while (off < len) {
		u32 sz = btrfs_extent_inline_ref_size(item[off]);

		if (!sz || off + sz > len)
			goto corrupt;
		if (item[off] == type && get_le64(item + off + 1) == seq) {
			if (type == BTRFS_SHARED_DATA_REF_KEY && get_le32(item + off + 9) > 1) {
				put_le32(item + off + 9, get_le32(item + off + 9) - 1);
				btrfs_path_release(&path);
				return 0;
			}
			buf = malloc(len);
			if (!buf) {
				btrfs_path_release(&path);
				return -ENOMEM;
			}
			memcpy(buf, item, off);
			memcpy(buf + off, item + off + sz, len - off - sz);
			ret = btrfs_del_item(trans, extent_root, &path);
			if (!ret)
				ret = btrfs_insert_item(trans, extent_root, key, buf, len - sz);
			free(buf);
			return ret;
		}
		off += sz;
	}
	btrfs_path_release(&path);
	/* not inline: a keyed ref */
	{
		struct btrfs_key k = { key->objectid, type, seq };
		u8 cnt[4];

		if (type == BTRFS_SHARED_DATA_REF_KEY) {
			ret = btrfs_lookup_item(extent_root, &k, cnt, sizeof(cnt), &len);
			if (ret < 0)
				goto missing;
			if (len == sizeof(cnt) && get_le32(cnt) > 1) {
				put_le32(cnt, get_le32(cnt) - 1);
				return btrfs_update_item(trans, extent_root, &k, cnt, sizeof(cnt));
			}
		}
		ret = btrfs_delete_key(trans, extent_root, &k);
		if (ret == -ENOENT)
			goto missing;
		return ret;
	}
missing:
	btrfs_fs_set_error(fs, "extent %llu: back reference %u %llu not found",
			   (unsigned long long)key->objectid, type, (unsigned long long)seq);
	return -EUCLEAN;
corrupt:
	btrfs_path_release(&path);
	btrfs_fs_set_error(fs, "extent %llu: corrupt extent item or last reference",
			   (unsigned long long)key->objectid);
	return -EUCLEAN;
}

int btrfs_drop_tree_block_ref(struct btrfs_trans_handle *trans, u64 bytenr, u8 level, u8 type,
			      u64 seq)
{
	struct btrfs_key key = { bytenr, BTRFS_METADATA_ITEM_KEY, level };

	return drop_ref(trans, &key, type, seq);
}

int btrfs_drop_shared_data_ref(struct btrfs_trans_handle *trans, u64 bytenr, u64 num_bytes,
			       u64 parent)
{
	struct btrfs_key key = { bytenr, BTRFS_EXTENT_ITEM_KEY, num_bytes };

	return drop_ref(trans, &key, BTRFS_SHARED_DATA_REF_KEY, parent);
}

int btrfs_tree_block_info(struct btrfs_trans_handle *trans, u64 bytenr, u8 level, u64 *refs,
			  u64 *flags, bool set_full, bool clear_full)
{
	struct btrfs_key key = { bytenr, BTRFS_METADATA_ITEM_KEY, level };
	struct btrfs_root *extent_root;
	struct btrfs_path path;
	struct btrfs_extent_item *ei;
	u32 len;
	int ret;

	ret = btrfs_read_root(trans->fs, BTRFS_EXTENT_TREE_OBJECTID, &extent_root);
	if (ret < 0)
		return ret;
	btrfs_path_init(&path);
	if (set_full || clear_full)
		ret = btrfs_search_cow(trans, extent_root, &key, &path, 0);
	else
		ret = btrfs_search_slot(NULL, extent_root, &key, &path, 0, 0);
	if (ret) {
		btrfs_path_release(&path);
		if (ret > 0)
			btrfs_fs_set_error(trans->fs, "tree block %llu: no extent item",
					   (unsigned long long)bytenr);
		return ret < 0 ? ret : -EUCLEAN;
	}
	if (set_full || clear_full) {
		ei = (struct btrfs_extent_item *)btrfs_path_item_ptr(&path, &len);
	} else {
		ei = (struct btrfs_extent_item *)btrfs_path_item_data(&path, &len);
	}
	if (len < sizeof(*ei)) {
		btrfs_path_release(&path);
		return -EUCLEAN;
	}
	if (set_full)
		btrfs_set_extent_flags(ei, btrfs_extent_flags(ei) | BTRFS_BLOCK_FLAG_FULL_BACKREF);
	if (clear_full)
		btrfs_set_extent_flags(ei, btrfs_extent_flags(ei) & ~BTRFS_BLOCK_FLAG_FULL_BACKREF);
	if (refs)
		*refs = btrfs_extent_refs(ei);
	if (flags)
		*flags = btrfs_extent_flags(ei);
	btrfs_path_release(&path);
	return 0;
}
