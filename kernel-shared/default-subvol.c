// SPDX-License-Identifier: GPL-2.0-only
/*
 * Offline `subvolume set-default` (on-disk-engine 5.4).
 *
 * Tree 1 holds a tiny directory, inode super.root_dir_objectid (6), whose
 * only entry "default" names the subvolume a mount without subvol= uses.
 * Only the location key of that entry changes, as in the kernel's
 * DEFAULT_SUBVOL ioctl; there is no DIR_INDEX for it.  Like the kernel, an
 * id that is not a live subvolume (refs 0: unlinked, waiting for the
 * cleaner) is refused with -ENOENT.
 */
#include <errno.h>
#include <string.h>
#include "fs.h"
#include "csum.h"
#include "ctree.h"
#include "ctree-write.h"
#include "transaction.h"
#include "default-subvol.h"

static const char default_name[] = "default";

/* Offset of the "default" entry inside the DIR_ITEM @data, or -ENOENT */
static int find_default_entry(const u8 *data, u32 len, u32 *entry)
{
	const size_t nlen = sizeof(default_name) - 1;
	u32 off = 0;

	while (off + sizeof(struct btrfs_dir_item) <= len) {
		const struct btrfs_dir_item *di = (const struct btrfs_dir_item *)(data + off);
		u32 total = (u32)sizeof(*di) + btrfs_dir_name_len(di) + btrfs_dir_data_len(di);

		if (off + total > len)
			return -EUCLEAN;
		if (btrfs_dir_name_len(di) == nlen &&
		    !memcmp(data + off + sizeof(*di), default_name, nlen)) {
			*entry = off;
			return 0;
		}
		off += total;
	}
	return -ENOENT;
}

int btrfs_set_default_subvol(struct btrfs_trans_handle *trans, u64 id)
{
	struct btrfs_fs *fs = trans->fs;
	u64 dir = btrfs_super_root_dir_objectid(&fs->super);
	struct btrfs_key key = { dir, BTRFS_DIR_ITEM_KEY,
				 btrfs_name_hash(default_name, sizeof(default_name) - 1) };
	struct btrfs_root *root;
	struct btrfs_path path;
	u8 *data;
	u32 len, entry;
	int ret;

	if (!btrfs_is_fstree(id)) {
		btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_SUBVOL,
				       "subvolume %llu does not exist", (unsigned long long)id);
		return -ENOENT;
	}
	ret = btrfs_read_root(fs, id, &root);
	if (ret == -ENOENT || (!ret && root->has_item && !btrfs_root_refs(&root->root_item))) {
		btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_SUBVOL,
				       "subvolume %llu does not exist", (unsigned long long)id);
		return -ENOENT;
	}
	if (ret < 0)
		return ret;
	btrfs_path_init(&path);
	ret = btrfs_search_cow(trans, fs->tree_root, &key, &path, 0);
	if (ret == 0) {
		data = btrfs_path_item_ptr(&path, &len);
		ret = find_default_entry(data, len, &entry);
		if (ret == 0) {
			struct btrfs_dir_item *di = (struct btrfs_dir_item *)(data + entry);

			btrfs_set_dir_location(di, &root->root_key);
		}
	} else if (ret > 0) {
		ret = -ENOENT;
	}
	btrfs_path_release(&path);
	if (ret == -ENOENT)
		btrfs_fs_set_error(fs, "root tree: no \"default\" entry in directory %llu",
				   (unsigned long long)dir);
	else if (ret == -EUCLEAN)
		btrfs_fs_set_error(fs, "root tree: corrupt dir item in directory %llu",
				   (unsigned long long)dir);
	if (ret < 0)
		return ret;
	trans->incompat_set |= BTRFS_FEATURE_INCOMPAT_DEFAULT_SUBVOL;
	return 0;
}
