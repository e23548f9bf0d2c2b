// SPDX-License-Identifier: GPL-2.0-only
/*
 * Plain directories created offline (`subvolume create -p`), as the
 * kernel's mkdir makes them (on-disk-engine 6.1), in tree P under
 * directory D:
 *   (I INODE_ITEM 0)     mode S_IFDIR | mode, nlink 1, size 0, uid/gid,
 *                        generation and transid T, all four times now
 *   (I INODE_REF D)      index, name
 *   (D DIR_ITEM hash)    location (I INODE_ITEM 0), type DIR, transid T
 *   (D DIR_INDEX index)  the same entry
 *   D's INODE_ITEM       size += 2 * name length, transid, ctime, mtime,
 *                        sequence (update_parent_dir(), shared with create)
 * I is the highest inode number in P plus one (the kernel's
 * btrfs_find_free_objectid()), the index the largest DIR_INDEX of D plus
 * one.  A directory has nlink 1 whatever it holds, as in Btrfs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fs.h"
#include "csum.h"
#include "ctree.h"
#include "ctree-write.h"
#include "transaction.h"
#include "subvol-create.h"
#include "subvol-internal.h"
#include "dir-create.h"

/* Highest inode number in @root plus one */
static int new_inode_number(struct btrfs_root *root, u64 *ino)
{
	struct btrfs_key key = { BTRFS_LAST_FREE_OBJECTID, (u8)-1, (u64)-1 }, found;
	struct btrfs_path path;
	int ret;

	*ino = BTRFS_FIRST_FREE_OBJECTID + 1;
	btrfs_path_init(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret < 0)
		return ret;
	ret = btrfs_prev_item(root, &path);
	if (ret == 0) {
		btrfs_path_item_key(&path, &found);
		if (found.objectid >= BTRFS_FIRST_FREE_OBJECTID)
			*ino = found.objectid + 1;
	}
	btrfs_path_release(&path);
	if (ret < 0)
		return ret;
	if (*ino > BTRFS_LAST_FREE_OBJECTID)
		return -EOVERFLOW;
	return 0;
}

static void set_time(struct btrfs_timespec *ts, const struct btrfs_mkdir_args *a)
{
	btrfs_set_timespec_sec(ts, a->now_sec);
	btrfs_set_timespec_nsec(ts, a->now_nsec);
}

static int insert_inode(struct btrfs_trans_handle *trans, struct btrfs_root *root, u64 ino,
			u64 parent, u64 index, const char *name, size_t name_len,
			const struct btrfs_mkdir_args *a)
{
	struct btrfs_inode_item ii;
	struct btrfs_key key = { ino, BTRFS_INODE_ITEM_KEY, 0 };
	u32 size = (u32)(sizeof(struct btrfs_inode_ref) + name_len);
	u8 *ref;
	int ret;

	memset(&ii, 0, sizeof(ii));
	btrfs_set_inode_generation(&ii, trans->transid);
	btrfs_set_inode_transid(&ii, trans->transid);
	btrfs_set_inode_nlink(&ii, 1);
	btrfs_set_inode_uid(&ii, a->uid);
	btrfs_set_inode_gid(&ii, a->gid);
	btrfs_set_inode_mode(&ii, 040000 | (a->mode & 07777));
	set_time(btrfs_inode_atime(&ii), a);
	set_time(btrfs_inode_ctime(&ii), a);
	set_time(btrfs_inode_mtime(&ii), a);
	set_time(btrfs_inode_otime(&ii), a);
	ret = btrfs_insert_item(trans, root, &key, &ii, sizeof(ii));
	if (ret < 0)
		return ret;
	ref = calloc(1, size);
	if (!ref)
		return -ENOMEM;
	btrfs_set_inode_ref_index((struct btrfs_inode_ref *)ref, index);
	btrfs_set_inode_ref_name_len((struct btrfs_inode_ref *)ref, (u16)name_len);
	memcpy(ref + sizeof(struct btrfs_inode_ref), name, name_len);
	key = (struct btrfs_key){ ino, BTRFS_INODE_REF_KEY, parent };
	ret = btrfs_insert_item(trans, root, &key, ref, size);
	free(ref);
	return ret;
}

/* Directory @name in directory @dir of tree @root_id; its inode number in *@ino */
static int make_dir(struct btrfs_trans_handle *trans, u64 root_id, u64 dir, const char *name,
		    size_t name_len, const struct btrfs_mkdir_args *a, u64 *ino)
{
	struct btrfs_fs *fs = trans->fs;
	struct btrfs_subvol_create_args pa = { 0 };
	struct btrfs_root *root;
	u64 index;
	int ret;

	ret = btrfs_read_root(fs, root_id, &root);
	if (ret < 0)
		return ret;
	if (root->has_item && (btrfs_root_flags(&root->root_item) & BTRFS_ROOT_SUBVOL_RDONLY)) {
		btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_SUBVOL,
				       "subvolume %llu: read-only", (unsigned long long)root_id);
		return -EROFS;
	}
	ret = new_inode_number(root, ino);
	if (!ret)
		ret = next_dir_index(root, dir, &index);
	if (!ret)
		ret = insert_inode(trans, root, *ino, dir, index, name, name_len, a);
	if (!ret) {
		struct btrfs_key loc = { *ino, BTRFS_INODE_ITEM_KEY, 0 };

		ret = insert_dir_pair(trans, root, dir, index, name, name_len, &loc);
	}
	if (ret < 0)
		return ret;
	pa.parent_root = root_id;
	pa.parent_dir = dir;
	pa.name = name;
	pa.name_len = name_len;
	pa.now_sec = a->now_sec;
	pa.now_nsec = a->now_nsec;
	return update_parent_dir(trans, root, &pa);
}

struct make_missing_ctx {
	struct btrfs_trans_handle *trans;
	const struct btrfs_mkdir_args *a;
};

static int make_missing(void *priv, u64 root, u64 dir, const char *name, size_t name_len,
			u64 *new_dir)
{
	struct make_missing_ctx *c = priv;

	return make_dir(c->trans, root, dir, name, name_len, c->a, new_dir);
}

int btrfs_resolve_dir_create(struct btrfs_trans_handle *trans, const char *path, size_t len,
			     const struct btrfs_mkdir_args *a, u64 *root_id, u64 *dir)
{
	struct make_missing_ctx c = { trans, a };

	return btrfs_walk_dir_path(trans->fs, path, len, make_missing, &c, root_id, dir);
}
