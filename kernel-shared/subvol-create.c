// SPDX-License-Identifier: GPL-2.0-only
/*
 * Offline `subvolume create` (on-disk-engine 6.3), in one transaction:
 *   new tree N      one leaf: (256 INODE_ITEM 0), (256 INODE_REF 256) ".."
 *   root tree       (N ROOT_ITEM 0), (P ROOT_REF N), (N ROOT_BACKREF P)
 *   parent tree P   (D DIR_ITEM hash), (D DIR_INDEX idx), INODE_ITEM of D
 *                   (size += 2 * name_len, transid, ctime, mtime, sequence);
 *                   P's ROOT_ITEM ctransid and ctime
 *   UUID tree       (uuid SUBVOL) -> N
 *   quota tree      (0 QGROUP_INFO N), (0 QGROUP_LIMIT N) when quotas are on,
 *                   (N RELATION P), (P RELATION N) for each inherited P
 * N is the largest objectid among root tree keys in [256, -256] plus one.
 * The directory index is the largest DIR_INDEX of D plus one (at least 2).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <uuid/uuid.h>
#include "fs.h"
#include "csum.h"
#include "ctree.h"
#include "ctree-write.h"
#include "transaction.h"
#include "subvol-create.h"
#include "subvol-internal.h"
#include "qgroup-write.h"
#include "path-walk.h"

struct dir_match {
	const char *name;
	size_t name_len;
	bool found;
	struct btrfs_key location;
	u8 type;
	int err;
};

/* Walk the entries of one DIR_ITEM (several names may share a hash) */
static int match_dir_item(struct dir_match *m, const u8 *data, u32 len)
{
	u32 off = 0;

	while (off + sizeof(struct btrfs_dir_item) <= len) {
		const struct btrfs_dir_item *di = (const struct btrfs_dir_item *)(data + off);
		u32 nlen = btrfs_dir_name_len(di), dlen = btrfs_dir_data_len(di);
		u32 total = (u32)sizeof(*di) + nlen + dlen;

		if (off + total > len)
			return -EUCLEAN;
		if (nlen == m->name_len && !memcmp(data + off + sizeof(*di), m->name, nlen)) {
			m->found = true;
			btrfs_dir_location(di, &m->location);
			m->type = btrfs_dir_type(di);
			return 0;
		}
		off += total;
	}
	return 0;
}

int btrfs_lookup_dir_entry(struct btrfs_fs *fs, u64 root_id, u64 dir, const char *name,
			   size_t name_len, struct btrfs_key *location, u8 *type)
{
	struct btrfs_root *root;
	struct btrfs_key key = { dir, BTRFS_DIR_ITEM_KEY, btrfs_name_hash(name, name_len) };
	struct btrfs_path path;
	struct dir_match m = { .name = name, .name_len = name_len };
	const u8 *data;
	u32 len;
	int ret;

	ret = btrfs_read_root(fs, root_id, &root);
	if (ret < 0)
		return ret;
	btrfs_path_init(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret < 0)
		return ret;
	if (ret > 0) {
		btrfs_path_release(&path);
		return -ENOENT;
	}
	data = btrfs_path_item_data(&path, &len);
	ret = match_dir_item(&m, data, len);
	btrfs_path_release(&path);
	if (ret < 0) {
		btrfs_fs_set_error(fs, "tree %llu: corrupt dir item in directory %llu",
				   (unsigned long long)root_id, (unsigned long long)dir);
		return ret;
	}
	if (!m.found)
		return -ENOENT;
	*location = m.location;
	*type = m.type;
	return 0;
}

struct walk_ctx {
	struct btrfs_fs *fs;
	const char *path;
	btrfs_make_missing_fn make_missing;
	void *priv;
};

static int walk_lookup(void *priv, const struct btrfs_path_pos *dir, const char *name,
		       size_t len, struct btrfs_path_pos *next)
{
	struct walk_ctx *w = priv;
	int end = (int)(name + len - w->path);
	struct btrfs_key loc;
	u8 type;
	int ret;

	ret = btrfs_lookup_dir_entry(w->fs, dir->root, dir->ino, name, len, &loc, &type);
	if (ret == -ENOENT && w->make_missing) {
		ret = w->make_missing(w->priv, dir->root, dir->ino, name, len, &next->ino);
		if (ret < 0) {
			btrfs_fs_set_error_once(w->fs, "/%.*s: cannot create directory", end,
						w->path);
			return ret;
		}
		next->root = dir->root;
		next->is_dir = true;
		return 0;
	}
	if (ret == -ENOENT) {
		btrfs_fs_set_error(w->fs, "/%.*s: no such file or directory", end, w->path);
		return ret;
	}
	if (ret < 0)
		return ret;
	if (type != BTRFS_FT_DIR) {
		btrfs_fs_set_error(w->fs, w->make_missing ? "/%.*s: exists and is not a directory" :
				   "/%.*s: not a directory", end, w->path);
		return -ENOTDIR;
	}
	if (loc.type == BTRFS_ROOT_ITEM_KEY) {
		next->root = loc.objectid;
		next->ino = BTRFS_FIRST_FREE_OBJECTID;
	} else {
		next->root = dir->root;
		next->ino = loc.objectid;
	}
	next->is_dir = true;
	return 0;
}

int btrfs_walk_dir_path(struct btrfs_fs *fs, const char *path, size_t len,
			btrfs_make_missing_fn make_missing, void *priv, u64 *root_id, u64 *dir)
{
	struct walk_ctx w = { .fs = fs, .path = path, .make_missing = make_missing, .priv = priv };
	struct btrfs_path_pos pos;
	size_t end = 0;
	int ret;

	ret = btrfs_resolve_path(path, len, walk_lookup, &w, &pos, &end);
	if (ret == -ENAMETOOLONG)
		btrfs_fs_set_error(fs, "/%.*s: File name too long", (int)end, path);
	else if (ret == -ELOOP)
		btrfs_fs_set_error(fs, "%.*s: too many levels", (int)len, path);
	if (ret)
		return ret;
	*root_id = pos.root;
	*dir = pos.ino;
	return 0;
}

int btrfs_resolve_dir(struct btrfs_fs *fs, const char *path, size_t len, u64 *root_id,
		      u64 *dir)
{
	return btrfs_walk_dir_path(fs, path, len, NULL, NULL, root_id, dir);
}

/* Largest key <= @key in @root, or found = false */
static int find_prev_key(struct btrfs_root *root, const struct btrfs_key *key,
			 struct btrfs_key *out, bool *found)
{
	struct btrfs_path path;
	int ret;

	*found = false;
	btrfs_path_init(&path);
	ret = btrfs_search_slot(NULL, root, key, &path, 0, 0);
	if (ret < 0)
		return ret;
	if (ret == 0) {
		btrfs_path_item_key(&path, out);
		*found = true;
		btrfs_path_release(&path);
		return 0;
	}
	ret = btrfs_prev_item(root, &path);
	if (ret == 0) {
		btrfs_path_item_key(&path, out);
		*found = true;
	}
	btrfs_path_release(&path);
	return ret < 0 ? ret : 0;
}

int new_subvol_id(struct btrfs_fs *fs, u64 *id)
{
	struct btrfs_key key = { BTRFS_LAST_FREE_OBJECTID, (u8)-1, (u64)-1 }, found_key;
	bool found;
	int ret;

	ret = find_prev_key(fs->tree_root, &key, &found_key, &found);
	if (ret < 0)
		return ret;
	if (found && found_key.objectid >= BTRFS_FIRST_FREE_OBJECTID)
		*id = found_key.objectid + 1;
	else
		*id = BTRFS_FIRST_FREE_OBJECTID;
	if (*id > BTRFS_LAST_FREE_OBJECTID)
		return -EOVERFLOW;
	return 0;
}

int next_dir_index(struct btrfs_root *root, u64 dir, u64 *index)
{
	struct btrfs_key key = { dir, BTRFS_DIR_INDEX_KEY, (u64)-1 }, found_key;
	bool found;
	int ret;

	ret = find_prev_key(root, &key, &found_key, &found);
	if (ret < 0)
		return ret;
	if (found && found_key.objectid == dir && found_key.type == BTRFS_DIR_INDEX_KEY &&
	    found_key.offset >= 2)
		*index = found_key.offset + 1;
	else
		*index = 2;
	return 0;
}

static void set_time(struct btrfs_timespec *ts, const struct btrfs_subvol_create_args *a)
{
	btrfs_set_timespec_sec(ts, a->now_sec);
	btrfs_set_timespec_nsec(ts, a->now_nsec);
}

static int make_tree(struct btrfs_trans_handle *trans, const struct btrfs_subvol_create_args *a,
		     u64 id, u64 *bytenr)
{
	struct extent_buffer *leaf;
	struct btrfs_inode_item ii;
	u8 ref[sizeof(struct btrfs_inode_ref) + 2];
	struct btrfs_key key;
	int ret;

	ret = btrfs_alloc_tree_block(trans, id, 0, &leaf);
	if (ret < 0)
		return ret;
	memset(&ii, 0, sizeof(ii));
	btrfs_set_inode_generation(&ii, trans->transid);
	btrfs_set_inode_transid(&ii, trans->transid);
	btrfs_set_inode_nlink(&ii, 1);
	btrfs_set_inode_uid(&ii, a->uid);
	btrfs_set_inode_gid(&ii, a->gid);
	btrfs_set_inode_mode(&ii, 040755);
	set_time(btrfs_inode_atime(&ii), a);
	set_time(btrfs_inode_ctime(&ii), a);
	set_time(btrfs_inode_mtime(&ii), a);
	set_time(btrfs_inode_otime(&ii), a);
	key = (struct btrfs_key){ BTRFS_FIRST_FREE_OBJECTID, BTRFS_INODE_ITEM_KEY, 0 };
	ret = btrfs_leaf_append(leaf->data, leaf->len, &key, &ii, sizeof(ii));
	memset(ref, 0, sizeof(ref));
	btrfs_set_inode_ref_index((struct btrfs_inode_ref *)ref, 0);
	btrfs_set_inode_ref_name_len((struct btrfs_inode_ref *)ref, 2);
	memcpy(ref + sizeof(struct btrfs_inode_ref), "..", 2);
	key = (struct btrfs_key){ BTRFS_FIRST_FREE_OBJECTID, BTRFS_INODE_REF_KEY,
				  BTRFS_FIRST_FREE_OBJECTID };
	if (!ret)
		ret = btrfs_leaf_append(leaf->data, leaf->len, &key, ref, sizeof(ref));
	*bytenr = leaf->start;
	free_extent_buffer(leaf);
	return ret;
}

static int insert_root_item(struct btrfs_trans_handle *trans,
			    const struct btrfs_subvol_create_args *a, u64 id, u64 bytenr,
			    const u8 *uuid)
{
	struct btrfs_root_item ri;
	struct btrfs_inode_item *ii = btrfs_root_inode(&ri);
	struct btrfs_key key = { id, BTRFS_ROOT_ITEM_KEY, 0 };

	memset(&ri, 0, sizeof(ri));
	btrfs_set_inode_generation(ii, 1);
	btrfs_set_inode_size(ii, 3);
	btrfs_set_inode_nlink(ii, 1);
	btrfs_set_inode_nbytes(ii, trans->fs->nodesize);
	btrfs_set_inode_mode(ii, 040755);
	btrfs_set_inode_flags(ii, BTRFS_INODE_ROOT_ITEM_INIT);
	btrfs_set_root_generation(&ri, trans->transid);
	btrfs_set_root_root_dirid(&ri, BTRFS_FIRST_FREE_OBJECTID);
	btrfs_set_root_bytenr(&ri, bytenr);
	btrfs_set_root_bytes_used(&ri, trans->fs->nodesize);
	btrfs_set_root_refs(&ri, 1);
	btrfs_set_root_level(&ri, 0);
	btrfs_set_root_generation_v2(&ri, trans->transid);
	memcpy(btrfs_root_uuid(&ri), uuid, BTRFS_UUID_SIZE);
	btrfs_set_root_ctransid(&ri, trans->transid);
	btrfs_set_root_otransid(&ri, trans->transid);
	set_time(btrfs_root_ctime(&ri), a);
	set_time(btrfs_root_otime(&ri), a);
	return btrfs_insert_item(trans, trans->fs->tree_root, &key, &ri, sizeof(ri));
}

int insert_root_refs(struct btrfs_trans_handle *trans,
			    const struct btrfs_subvol_create_args *a, u64 id, u64 index)
{
	u32 size = (u32)(sizeof(struct btrfs_root_ref) + a->name_len);
	u8 *buf = calloc(1, size);
	struct btrfs_root_ref *rr = (struct btrfs_root_ref *)buf;
	struct btrfs_key key = { a->parent_root, BTRFS_ROOT_REF_KEY, id };
	int ret;

	if (!buf)
		return -ENOMEM;
	btrfs_set_root_ref_dirid(rr, a->parent_dir);
	btrfs_set_root_ref_sequence(rr, index);
	btrfs_set_root_ref_name_len(rr, (u16)a->name_len);
	memcpy(buf + sizeof(*rr), a->name, a->name_len);
	ret = btrfs_insert_item(trans, trans->fs->tree_root, &key, buf, size);
	if (!ret) {
		key = (struct btrfs_key){ id, BTRFS_ROOT_BACKREF_KEY, a->parent_root };
		ret = btrfs_insert_item(trans, trans->fs->tree_root, &key, buf, size);
	}
	free(buf);
	return ret;
}

int insert_dir_pair(struct btrfs_trans_handle *trans, struct btrfs_root *root, u64 dir,
		    u64 index, const char *name, size_t name_len, const struct btrfs_key *location)
{
	u32 size = (u32)(sizeof(struct btrfs_dir_item) + name_len);
	u8 *buf = calloc(1, size);
	struct btrfs_dir_item *di = (struct btrfs_dir_item *)buf;
	struct btrfs_key key = { dir, BTRFS_DIR_ITEM_KEY, btrfs_name_hash(name, name_len) };
	int ret;

	if (!buf)
		return -ENOMEM;
	btrfs_set_dir_location(di, location);
	btrfs_set_dir_transid(di, trans->transid);
	btrfs_set_dir_data_len(di, 0);
	btrfs_set_dir_name_len(di, (u16)name_len);
	btrfs_set_dir_type(di, BTRFS_FT_DIR);
	memcpy(buf + sizeof(*di), name, name_len);
	ret = btrfs_insert_item(trans, root, &key, buf, size);
	if (ret == -EEXIST) {
		/* another name with the same hash: entries would share one item */
		btrfs_fs_set_error(trans->fs, "%.*s: name hash collision, not implemented offline yet",
				   (int)name_len, name);
		ret = -EOPNOTSUPP;
	}
	if (!ret) {
		key = (struct btrfs_key){ dir, BTRFS_DIR_INDEX_KEY, index };
		ret = btrfs_insert_item(trans, root, &key, buf, size);
	}
	free(buf);
	return ret;
}

int update_parent_dir(struct btrfs_trans_handle *trans, struct btrfs_root *parent,
			     const struct btrfs_subvol_create_args *a)
{
	struct btrfs_key key = { a->parent_dir, BTRFS_INODE_ITEM_KEY, 0 };
	struct btrfs_path path;
	struct btrfs_inode_item *ii;
	u32 len;
	int ret;

	btrfs_path_init(&path);
	ret = btrfs_search_cow(trans, parent, &key, &path, 0);
	if (ret) {
		btrfs_path_release(&path);
		if (ret > 0) {
			btrfs_fs_set_error(trans->fs, "tree %llu: directory %llu has no inode item",
					   (unsigned long long)parent->id,
					   (unsigned long long)a->parent_dir);
			return -EUCLEAN;
		}
		return ret;
	}
	ii = (struct btrfs_inode_item *)btrfs_path_item_ptr(&path, &len);
	if (len < sizeof(*ii)) {
		btrfs_path_release(&path);
		return -EUCLEAN;
	}
	btrfs_set_inode_size(ii, btrfs_inode_size(ii) + 2 * a->name_len);
	btrfs_set_inode_transid(ii, trans->transid);
	btrfs_set_inode_sequence(ii, btrfs_inode_sequence(ii) + 1);
	set_time(btrfs_inode_ctime(ii), a);
	set_time(btrfs_inode_mtime(ii), a);
	btrfs_path_release(&path);

	ret = btrfs_trans_track_root(trans, parent, true);
	if (ret < 0)
		return ret;
	btrfs_set_root_ctransid(&parent->root_item, trans->transid);
	set_time(btrfs_root_ctime(&parent->root_item), a);
	return 0;
}

int insert_uuid_item(struct btrfs_trans_handle *trans, const u8 *uuid, u64 id)
{
	struct btrfs_root *root;
	struct btrfs_key key;
	u8 buf[8];
	int ret;

	ret = btrfs_read_root(trans->fs, BTRFS_UUID_TREE_OBJECTID, &root);
	if (ret == -ENOENT)
		return 0;	/* the kernel creates and fills it at the next mount */
	if (ret < 0)
		return ret;
	btrfs_uuid_to_key(uuid, BTRFS_UUID_KEY_SUBVOL, &key);
	put_le64(buf, id);
	return btrfs_insert_item(trans, root, &key, buf, sizeof(buf));
}

/*
 * (Re)set 0/@id INFO and LIMIT (a reused id may have stale ones); the
 * commit adds the new leaf's bytes through the qgroup deltas
 */
int insert_qgroup_items(struct btrfs_trans_handle *trans, u64 id)
{
	struct btrfs_root *root;
	struct btrfs_key key = { 0, BTRFS_QGROUP_INFO_KEY, id };
	u8 info[40], limit[40];
	int ret;

	ret = btrfs_read_root(trans->fs, BTRFS_QUOTA_TREE_OBJECTID, &root);
	if (ret < 0)
		return ret;
	memset(info, 0, sizeof(info));
	put_le64(info, trans->transid);
	memset(limit, 0, sizeof(limit));
	ret = btrfs_delete_key(trans, root, &key);
	if (ret < 0 && ret != -ENOENT)
		return ret;
	ret = btrfs_insert_item(trans, root, &key, info, sizeof(info));
	if (ret < 0)
		return ret;
	key.type = BTRFS_QGROUP_LIMIT_KEY;
	ret = btrfs_delete_key(trans, root, &key);
	if (ret < 0 && ret != -ENOENT)
		return ret;
	return btrfs_insert_item(trans, root, &key, limit, sizeof(limit));
}

/* Every inherited qgroup must exist and sit above level 0 */
int check_inherit(struct btrfs_trans_handle *trans, const struct btrfs_subvol_create_args *a)
{
	struct btrfs_fs *fs = trans->fs;
	struct btrfs_root *root;
	int ret;

	if (!trans->quota_on || !a->nr_inherit)
		return 0;
	ret = btrfs_read_root(fs, BTRFS_QUOTA_TREE_OBJECTID, &root);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < a->nr_inherit; i++) {
		u64 q = a->inherit[i];
		struct btrfs_key key = { 0, BTRFS_QGROUP_INFO_KEY, q };
		u8 buf[40];
		u32 len;

		if (btrfs_qgroup_level(q) == 0) {
			btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_QGROUP,
					       "qgroup %u/%llu: cannot inherit from a level-0 qgroup",
					       btrfs_qgroup_level(q),
					       (unsigned long long)btrfs_qgroup_subvolid(q));
			return -EINVAL;
		}
		ret = btrfs_lookup_item(root, &key, buf, sizeof(buf), &len);
		if (ret == -ENOENT)
			btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_QGROUP,
					       "qgroup %u/%llu: does not exist", btrfs_qgroup_level(q),
					       (unsigned long long)btrfs_qgroup_subvolid(q));
		if (ret < 0)
			return ret;
	}
	return 0;
}

int insert_relations(struct btrfs_trans_handle *trans,
			    const struct btrfs_subvol_create_args *a, u64 id)
{
	struct btrfs_root *root;
	int ret;

	ret = btrfs_read_root(trans->fs, BTRFS_QUOTA_TREE_OBJECTID, &root);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < a->nr_inherit; i++) {
		struct btrfs_key up = { id, BTRFS_QGROUP_RELATION_KEY, a->inherit[i] };
		struct btrfs_key down = { a->inherit[i], BTRFS_QGROUP_RELATION_KEY, id };

		/* a stale relation of a reused id is kept, not duplicated */
		ret = btrfs_insert_item(trans, root, &up, NULL, 0);
		if (ret < 0 && ret != -EEXIST)
			return ret;
		ret = btrfs_insert_item(trans, root, &down, NULL, 0);
		if (ret < 0 && ret != -EEXIST)
			return ret;
	}
	return 0;
}

int btrfs_subvol_create(struct btrfs_trans_handle *trans, struct btrfs_subvol_create_args *a)
{
	struct btrfs_fs *fs = trans->fs;
	struct btrfs_root *parent;
	struct btrfs_key loc;
	u8 uuid[BTRFS_UUID_SIZE];
	u64 id, index, bytenr;
	u8 type;
	int ret;

	if (!a->name_len || a->name_len > BTRFS_NAME_LEN || memchr(a->name, '/', a->name_len) ||
	    (a->name_len == 1 && a->name[0] == '.') ||
	    (a->name_len == 2 && !memcmp(a->name, "..", 2))) {
		btrfs_fs_set_error(fs, "%.*s: invalid subvolume name", (int)a->name_len, a->name);
		return -EINVAL;
	}
	ret = btrfs_read_root(fs, a->parent_root, &parent);
	if (ret < 0)
		return ret;
	if (btrfs_root_flags(&parent->root_item) & BTRFS_ROOT_SUBVOL_RDONLY) {
		btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_SUBVOL, "subvolume %llu: read-only",
				       (unsigned long long)a->parent_root);
		return -EROFS;
	}
	ret = btrfs_lookup_dir_entry(fs, a->parent_root, a->parent_dir, a->name, a->name_len,
				     &loc, &type);
	if (ret == 0)
		return -EEXIST;		/* the caller knows the full path */
	if (ret != -ENOENT)
		return ret;
	ret = btrfs_qgroup_check_create(trans, a->parent_root);
	if (ret < 0)
		return ret;
	ret = check_inherit(trans, a);
	if (!ret)
		ret = new_subvol_id(fs, &id);
	if (!ret)
		ret = next_dir_index(parent, a->parent_dir, &index);
	if (ret < 0)
		return ret;
	new_subvol_uuid(fs, id, uuid);
	ret = make_tree(trans, a, id, &bytenr);
	if (!ret)
		ret = insert_root_item(trans, a, id, bytenr, uuid);
	if (!ret)
		ret = insert_root_refs(trans, a, id, index);
	if (!ret) {
		loc = (struct btrfs_key){ id, BTRFS_ROOT_ITEM_KEY, 0 };
		ret = insert_dir_pair(trans, parent, a->parent_dir, index, a->name, a->name_len,
				      &loc);
	}
	if (!ret)
		ret = update_parent_dir(trans, parent, a);
	if (!ret)
		ret = insert_uuid_item(trans, uuid, id);
	if (!ret && trans->quota_on)
		ret = insert_qgroup_items(trans, id);
	if (!ret && trans->quota_on)
		ret = insert_relations(trans, a, id);
	if (ret < 0)
		return ret;
	a->subvolid = id;
	return 0;
}

int btrfs_subvol_set_readonly(struct btrfs_trans_handle *trans, u64 id)
{
	struct btrfs_root *root;
	int ret;

	if (!btrfs_is_fstree(id))
		return -EINVAL;
	ret = btrfs_read_root(trans->fs, id, &root);
	if (ret < 0)
		return ret;
	if (!root->has_item)
		return -ENOENT;
	ret = btrfs_trans_track_root(trans, root, true);
	if (ret < 0)
		return ret;
	btrfs_set_root_flags(&root->root_item,
			     btrfs_root_flags(&root->root_item) | BTRFS_ROOT_SUBVOL_RDONLY);
	return 0;
}

void new_subvol_uuid(struct btrfs_fs *fs, u64 id, u8 *uuid)
{
	if (fs->derive_uuids)
		btrfs_derive_uuid(fs->uuid_seed, "subvol", id, uuid);
	else
		uuid_generate(uuid);
}
