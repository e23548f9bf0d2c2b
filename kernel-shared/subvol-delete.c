// SPDX-License-Identifier: GPL-2.0-only
/*
 * Offline `subvolume delete` (on-disk-engine 8.1), in one transaction:
 *   parent tree P  (D DIR_ITEM hash) and (D DIR_INDEX seq) removed; D's
 *                  inode item: size -= 2 * name_len, transid, times
 *   root tree      (P ROOT_REF N), (N ROOT_BACKREF P) removed; ROOT_ITEM
 *                  of N: refs 0, flags |= SUBVOL_DEAD; (-5 ORPHAN N) added
 *   UUID tree      N removed from its uuid (and received uuid) items
 * The tree itself is left for the kernel's cleaner (see subvol-delete.h).
 * Refused as the kernel's ioctl refuses it: an immutable or append-only
 * root directory of N or directory holding it (EPERM, before anything
 * else), the default subvolume (EPERM), nested subvolumes (ENOTEMPTY).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fs.h"
#include "csum.h"
#include "ctree.h"
#include "ctree-write.h"
#include "transaction.h"
#include "subvol-drop.h"
#include "subvol-delete.h"

struct backref {
	bool found;
	u64 parent, dirid, seq;
	char name[BTRFS_NAME_LEN + 1];
	u16 name_len;
	int err;
};

static int backref_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct backref *b = priv;
	const struct btrfs_root_ref *rr = data;

	if (key->type != BTRFS_ROOT_BACKREF_KEY)
		return 0;
	if (len < sizeof(*rr) || btrfs_root_ref_name_len(rr) > BTRFS_NAME_LEN ||
	    len < sizeof(*rr) + btrfs_root_ref_name_len(rr)) {
		b->err = -EUCLEAN;
		return 1;
	}
	b->found = true;
	b->parent = key->offset;
	b->dirid = btrfs_root_ref_dirid(rr);
	b->seq = btrfs_root_ref_sequence(rr);
	b->name_len = btrfs_root_ref_name_len(rr);
	memcpy(b->name, (const u8 *)data + sizeof(*rr), b->name_len);
	return 1;
}

static int any_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	(void)key;
	(void)data;
	(void)len;
	*(bool *)priv = true;
	return 1;
}

/* Is @id the subvolume the root directory's "default" entry names? */
static int is_default(struct btrfs_fs *fs, u64 id, bool *yes)
{
	struct btrfs_key key = { BTRFS_ROOT_TREE_DIR_OBJECTID, BTRFS_DIR_ITEM_KEY,
				 btrfs_name_hash("default", 7) };
	u8 buf[sizeof(struct btrfs_dir_item) + 64];
	struct btrfs_key loc;
	u32 len;
	int ret;

	*yes = false;
	ret = btrfs_lookup_item(fs->tree_root, &key, buf, sizeof(buf), &len);
	if (ret == -ENOENT)
		return 0;
	if (ret < 0)
		return ret;
	if (len < sizeof(struct btrfs_dir_item))
		return -EUCLEAN;
	btrfs_dir_location((struct btrfs_dir_item *)buf, &loc);
	*yes = loc.objectid == id;
	return 0;
}

/* Delete the DIR_ITEM of @b->name; it must hold no other name */
static int delete_dir_item(struct btrfs_trans_handle *trans, struct btrfs_root *parent,
			   const struct backref *b, u64 id)
{
	struct btrfs_key key = { b->dirid, BTRFS_DIR_ITEM_KEY,
				 btrfs_name_hash(b->name, b->name_len) };
	struct btrfs_path path;
	const struct btrfs_dir_item *di;
	struct btrfs_key loc;
	const u8 *data;
	u32 len;
	int ret;

	btrfs_path_init(&path);
	ret = btrfs_search_cow(trans, parent, &key, &path, -1);
	if (ret) {
		btrfs_path_release(&path);
		if (ret > 0) {
			btrfs_fs_set_obj_error(trans->fs, BTRFS_ERR_OBJ_SUBVOL,
					       "subvolume %llu: no dir item for %.*s",
					       (unsigned long long)id, (int)b->name_len, b->name);
			return -EUCLEAN;
		}
		return ret;
	}
	data = btrfs_path_item_data(&path, &len);
	di = (const struct btrfs_dir_item *)data;
	if (len < sizeof(*di)) {
		btrfs_path_release(&path);
		return -EUCLEAN;
	}
	btrfs_dir_location(di, &loc);
	if (len != sizeof(*di) + b->name_len + btrfs_dir_data_len(di) ||
	    btrfs_dir_name_len(di) != b->name_len || loc.objectid != id ||
	    loc.type != BTRFS_ROOT_ITEM_KEY) {
		btrfs_path_release(&path);
		btrfs_fs_set_error(trans->fs, "%.*s: dir item shared with another name, not implemented offline yet",
				   (int)b->name_len, b->name);
		return -EOPNOTSUPP;
	}
	return btrfs_del_item(trans, parent, &path);
}

static int update_dir_inode(struct btrfs_trans_handle *trans, struct btrfs_root *parent,
			    const struct backref *b, u64 now_sec, u32 now_nsec)
{
	struct btrfs_key key = { b->dirid, BTRFS_INODE_ITEM_KEY, 0 };
	struct btrfs_path path;
	struct btrfs_inode_item *ii;
	u32 len;
	int ret;

	btrfs_path_init(&path);
	ret = btrfs_search_cow(trans, parent, &key, &path, 0);
	if (ret) {
		btrfs_path_release(&path);
		return ret < 0 ? ret : -EUCLEAN;
	}
	ii = (struct btrfs_inode_item *)btrfs_path_item_ptr(&path, &len);
	if (len < sizeof(*ii)) {
		btrfs_path_release(&path);
		return -EUCLEAN;
	}
	if (btrfs_inode_size(ii) >= 2u * b->name_len)
		btrfs_set_inode_size(ii, btrfs_inode_size(ii) - 2u * b->name_len);
	btrfs_set_inode_transid(ii, trans->transid);
	btrfs_set_inode_sequence(ii, btrfs_inode_sequence(ii) + 1);
	btrfs_set_timespec_sec(btrfs_inode_ctime(ii), now_sec);
	btrfs_set_timespec_nsec(btrfs_inode_ctime(ii), now_nsec);
	btrfs_set_timespec_sec(btrfs_inode_mtime(ii), now_sec);
	btrfs_set_timespec_nsec(btrfs_inode_mtime(ii), now_nsec);
	btrfs_path_release(&path);
	return 0;
}

/* Remove @id from the UUID tree item of @uuid/@type (a list of ids) */
static int uuid_remove(struct btrfs_trans_handle *trans, const u8 *uuid, u8 type, u64 id)
{
	static const u8 zero[BTRFS_UUID_SIZE];
	struct btrfs_root *root;
	struct btrfs_key key;
	u8 buf[512];
	u32 len, out = 0;
	int ret;

	if (!memcmp(uuid, zero, BTRFS_UUID_SIZE))
		return 0;
	ret = btrfs_read_root(trans->fs, BTRFS_UUID_TREE_OBJECTID, &root);
	if (ret == -ENOENT)
		return 0;
	if (ret < 0)
		return ret;
	btrfs_uuid_to_key(uuid, type, &key);
	ret = btrfs_lookup_item(root, &key, buf, sizeof(buf), &len);
	if (ret == -ENOENT)
		return 0;
	if (ret < 0)
		return ret;
	if (len % 8 || len > sizeof(buf))
		return -EUCLEAN;
	for (u32 off = 0; off < len; off += 8) {
		if (get_le64(buf + off) != id) {
			memmove(buf + out, buf + off, 8);
			out += 8;
		}
	}
	if (out == len)
		return 0;
	ret = btrfs_delete_key(trans, root, &key);
	if (!ret && out)
		ret = btrfs_insert_item(trans, root, &key, buf, out);
	return ret;
}

/* The flags of inode @ino of @root; 0 when it has no inode item */
static int inode_flags(struct btrfs_root *root, u64 ino, u64 *flags)
{
	struct btrfs_key key = { ino, BTRFS_INODE_ITEM_KEY, 0 };
	struct btrfs_inode_item ii;
	u32 len;
	int ret;

	*flags = 0;
	ret = btrfs_lookup_item(root, &key, &ii, sizeof(ii), &len);
	if (ret == -ENOENT)
		return 0;
	if (ret < 0)
		return ret;
	if (len < sizeof(ii))
		return -EUCLEAN;
	*flags = btrfs_inode_flags(&ii);
	return 0;
}

/*
 * The inode flags the kernel's ioctl checks before a delete (may_delete):
 * the directory holding the subvolume first (immutable: no write into it;
 * append-only: nothing leaves it), then the subvolume's root directory.
 */
static int delete_block(struct btrfs_fs *fs, struct btrfs_root *victim, const struct backref *b,
			enum btrfs_delete_block *why)
{
	struct btrfs_root *parent;
	u64 dir_flags = 0, root_flags = 0;
	int ret;

	*why = BTRFS_DELETE_ALLOWED;
	ret = btrfs_read_root(fs, b->parent, &parent);
	if (!ret)
		ret = inode_flags(parent, b->dirid, &dir_flags);
	if (!ret)
		ret = inode_flags(victim, BTRFS_FIRST_FREE_OBJECTID, &root_flags);
	if (ret < 0)
		return ret;
	if (dir_flags & BTRFS_INODE_IMMUTABLE)
		*why = BTRFS_DELETE_PARENT_IMMUTABLE;
	else if (dir_flags & BTRFS_INODE_APPEND)
		*why = BTRFS_DELETE_PARENT_APPEND;
	else if (root_flags & BTRFS_INODE_IMMUTABLE)
		*why = BTRFS_DELETE_IMMUTABLE;
	else if (root_flags & BTRFS_INODE_APPEND)
		*why = BTRFS_DELETE_APPEND;
	return 0;
}

const char *btrfs_delete_block_str(enum btrfs_delete_block why)
{
	switch (why) {
	case BTRFS_DELETE_IMMUTABLE:
		return "the subvolume is immutable";
	case BTRFS_DELETE_APPEND:
		return "the subvolume is append-only";
	case BTRFS_DELETE_PARENT_IMMUTABLE:
		return "its parent directory is immutable";
	case BTRFS_DELETE_PARENT_APPEND:
		return "its parent directory is append-only";
	default:
		return "nothing blocks it";
	}
}

const char *btrfs_delete_block_chattr(enum btrfs_delete_block why)
{
	return why == BTRFS_DELETE_APPEND || why == BTRFS_DELETE_PARENT_APPEND ? "-a" : "-i";
}

int btrfs_subvol_delete_block(struct btrfs_fs *fs, u64 id, enum btrfs_delete_block *why)
{
	struct btrfs_key min = { id, BTRFS_ROOT_BACKREF_KEY, 0 };
	struct btrfs_key max = { id, BTRFS_ROOT_BACKREF_KEY, (u64)-1 };
	struct btrfs_root *victim;
	struct backref b = { 0 };
	int ret;

	*why = BTRFS_DELETE_ALLOWED;
	ret = btrfs_read_root(fs, id, &victim);
	if (!ret)
		ret = btrfs_iterate_items(fs->tree_root, &min, &max, backref_cb, &b);
	if (!ret)
		ret = b.err;
	if (ret < 0)
		return ret;
	/* not linked: the delete refuses it for that */
	return b.found ? delete_block(fs, victim, &b, why) : 0;
}

static int check_deletable(struct btrfs_fs *fs, struct btrfs_root *victim, struct backref *b)
{
	u64 id = victim->id;
	struct btrfs_key min = { id, BTRFS_ROOT_BACKREF_KEY, 0 };
	struct btrfs_key max = { id, BTRFS_ROOT_BACKREF_KEY, (u64)-1 };
	enum btrfs_delete_block why;
	bool children = false, def;
	int ret;

	if (btrfs_root_refs(&victim->root_item) == 0) {
		btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_SUBVOL,
				       "subvolume %llu: already deleted", (unsigned long long)id);
		return -ENOENT;
	}
	ret = btrfs_iterate_items(fs->tree_root, &min, &max, backref_cb, b);
	if (!ret)
		ret = b->err;
	if (ret < 0)
		return ret;
	if (!b->found) {
		btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_SUBVOL,
				       "subvolume %llu: not linked in any directory",
				       (unsigned long long)id);
		return -ENOENT;
	}
	/* the ioctl checks the inode flags before anything else */
	ret = delete_block(fs, victim, b, &why);
	if (ret < 0)
		return ret;
	if (why != BTRFS_DELETE_ALLOWED) {
		btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_SUBVOL,
				       "subvolume %llu: cannot delete: %s (chattr %s on a mount "
				       "lifts it)", (unsigned long long)id, btrfs_delete_block_str(why),
				       btrfs_delete_block_chattr(why));
		return -EPERM;
	}
	min = (struct btrfs_key){ id, BTRFS_ROOT_REF_KEY, 0 };
	max = (struct btrfs_key){ id, BTRFS_ROOT_REF_KEY, (u64)-1 };
	ret = btrfs_iterate_items(fs->tree_root, &min, &max, any_cb, &children);
	if (ret < 0)
		return ret;
	if (children) {
		btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_SUBVOL,
				       "subvolume %llu: contains other subvolumes",
				       (unsigned long long)id);
		return -ENOTEMPTY;
	}
	ret = is_default(fs, id, &def);
	if (ret < 0)
		return ret;
	if (def) {
		btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_SUBVOL,
				       "subvolume %llu: is the default subvolume",
				       (unsigned long long)id);
		return -EPERM;
	}
	return 0;
}

static int unlink_subvol(struct btrfs_trans_handle *trans, u64 id, u64 now_sec, u32 now_nsec,
			 bool orphan, struct btrfs_root **out)
{
	struct btrfs_fs *fs = trans->fs;
	struct btrfs_root *victim, *parent;
	struct backref b = { 0 };
	struct btrfs_key key;
	int ret;

	if (id < BTRFS_FIRST_FREE_OBJECTID || id > BTRFS_LAST_FREE_OBJECTID) {
		btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_SUBVOL,
				       "subvolume %llu: cannot be deleted", (unsigned long long)id);
		return -EPERM;
	}
	ret = btrfs_read_root(fs, id, &victim);
	if (ret == -ENOENT)
		btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_SUBVOL,
				       "subvolume %llu: does not exist", (unsigned long long)id);
	if (ret < 0)
		return ret;
	ret = check_deletable(fs, victim, &b);
	if (ret < 0)
		return ret;
	ret = btrfs_read_root(fs, b.parent, &parent);
	if (ret < 0)
		return ret;
	if (btrfs_root_flags(&parent->root_item) & BTRFS_ROOT_SUBVOL_RDONLY) {
		btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_SUBVOL,
				       "subvolume %llu: read-only", (unsigned long long)b.parent);
		return -EROFS;
	}
	ret = delete_dir_item(trans, parent, &b, id);
	if (!ret) {
		key = (struct btrfs_key){ b.dirid, BTRFS_DIR_INDEX_KEY, b.seq };
		ret = btrfs_delete_key(trans, parent, &key);
	}
	if (!ret)
		ret = update_dir_inode(trans, parent, &b, now_sec, now_nsec);
	if (!ret) {
		key = (struct btrfs_key){ b.parent, BTRFS_ROOT_REF_KEY, id };
		ret = btrfs_delete_key(trans, fs->tree_root, &key);
	}
	if (!ret) {
		key = (struct btrfs_key){ id, BTRFS_ROOT_BACKREF_KEY, b.parent };
		ret = btrfs_delete_key(trans, fs->tree_root, &key);
	}
	if (!ret && orphan) {
		key = (struct btrfs_key){ BTRFS_ORPHAN_OBJECTID, BTRFS_ORPHAN_ITEM_KEY, id };
		ret = btrfs_insert_item(trans, fs->tree_root, &key, NULL, 0);
	}
	if (!ret)
		ret = uuid_remove(trans, btrfs_root_uuid(&victim->root_item),
				  BTRFS_UUID_KEY_SUBVOL, id);
	if (!ret)
		ret = uuid_remove(trans, btrfs_root_received_uuid(&victim->root_item),
				  BTRFS_UUID_KEY_RECEIVED_SUBVOL, id);
	if (!ret)
		ret = btrfs_trans_track_root(trans, victim, true);
	if (ret < 0)
		return ret;
	btrfs_set_root_refs(&victim->root_item, 0);
	btrfs_set_root_flags(&victim->root_item,
			     btrfs_root_flags(&victim->root_item) | BTRFS_ROOT_SUBVOL_DEAD);
	*out = victim;
	return 0;
}

int btrfs_subvol_unlink(struct btrfs_trans_handle *trans, u64 id, u64 now_sec, u32 now_nsec)
{
	struct btrfs_root *victim;

	return unlink_subvol(trans, id, now_sec, now_nsec, true, &victim);
}

int btrfs_subvol_delete(struct btrfs_trans_handle *trans, u64 id, u64 now_sec, u32 now_nsec,
			struct btrfs_drop_stats *stats)
{
	struct btrfs_root *victim;
	int ret;

	/* the ORPHAN item would be inserted and deleted again in this transaction */
	ret = unlink_subvol(trans, id, now_sec, now_nsec, false, &victim);
	if (!ret)
		ret = btrfs_subvol_drop(trans, victim, stats);
	return ret;
}

struct highest_id {
	u64 id;
};

static int highest_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct highest_id *h = priv;

	(void)data;
	(void)len;
	if (key->type == BTRFS_ROOT_ITEM_KEY && btrfs_is_fstree(key->objectid))
		h->id = key->objectid;
	return 0;
}

int btrfs_subvol_clean(struct btrfs_trans_handle *trans, u64 id, struct btrfs_drop_stats *stats)
{
	struct btrfs_fs *fs = trans->fs;
	struct btrfs_key min = { BTRFS_FIRST_FREE_OBJECTID, BTRFS_ROOT_ITEM_KEY, 0 };
	struct btrfs_key max = { BTRFS_LAST_FREE_OBJECTID, BTRFS_ROOT_ITEM_KEY, (u64)-1 };
	struct highest_id h = { 0 };
	struct btrfs_root *root;
	int ret;

	if (id < BTRFS_FIRST_FREE_OBJECTID || id > BTRFS_LAST_FREE_OBJECTID) {
		btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_SUBVOL,
				       "subvolume %llu: not a subvolume id", (unsigned long long)id);
		return -EINVAL;
	}
	ret = btrfs_read_root(fs, id, &root);
	if (!ret) {
		/* a root dropped earlier in this process stays cached: ask the root tree */
		u8 buf[1];
		u32 len;

		ret = btrfs_lookup_item(fs->tree_root, &root->root_key, buf, 0, &len);
	}
	if (ret == -ENOENT) {
		/* gone: cleaned already, unless no subvolume ever had that id */
		ret = btrfs_iterate_items(fs->tree_root, &min, &max, highest_cb, &h);
		if (ret < 0)
			return ret;
		if (id > h.id) {
			btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_SUBVOL,
					       "subvolume %llu: does not exist", (unsigned long long)id);
			return -ENOENT;
		}
		return 1;
	}
	if (ret < 0)
		return ret;
	if (btrfs_root_refs(&root->root_item)) {
		btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_SUBVOL,
				       "subvolume %llu: not deleted", (unsigned long long)id);
		return -EINVAL;
	}
	return btrfs_subvol_drop(trans, root, stats);
}
