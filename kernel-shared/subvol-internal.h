/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Steps of `subvolume create` that `subvolume snapshot` shares
 * (subvol-create.c); library-internal, not for common/ or cmds/.
 */
#ifndef VOLCTL_KERNEL_SHARED_SUBVOL_INTERNAL_H
#define VOLCTL_KERNEL_SHARED_SUBVOL_INTERNAL_H

#include "format.h"
#include "ctree.h"
#include "subvol-create.h"

struct btrfs_trans_handle;

/* The UUID of new subvolume @id: derived (fs->derive_uuids) or random */
void new_subvol_uuid(struct btrfs_fs *fs, u64 id, u8 *uuid);
/* Largest subvolume id in the root tree plus one */
int new_subvol_id(struct btrfs_fs *fs, u64 *id);
/* Largest DIR_INDEX of @dir plus one (at least 2) */
int next_dir_index(struct btrfs_root *root, u64 dir, u64 *index);
/* ROOT_REF (parent, id) and ROOT_BACKREF (id, parent) */
int insert_root_refs(struct btrfs_trans_handle *trans, const struct btrfs_subvol_create_args *a,
		     u64 id, u64 index);
/* Directory size, times, transid and the parent's ROOT_ITEM ctransid/ctime */
int update_parent_dir(struct btrfs_trans_handle *trans, struct btrfs_root *parent,
		      const struct btrfs_subvol_create_args *a);
/* DIR_ITEM and DIR_INDEX of directory-type entry @name in @dir pointing at @location */
int insert_dir_pair(struct btrfs_trans_handle *trans, struct btrfs_root *root, u64 dir,
		    u64 index, const char *name, size_t name_len, const struct btrfs_key *location);
/* UUID tree: uuid (SUBVOL) -> id */
int insert_uuid_item(struct btrfs_trans_handle *trans, const u8 *uuid, u64 id);
/* Fresh 0/id INFO and LIMIT items */
int insert_qgroup_items(struct btrfs_trans_handle *trans, u64 id);
/* Every inherited qgroup exists and is above level 0 */
int check_inherit(struct btrfs_trans_handle *trans, const struct btrfs_subvol_create_args *a);
/* RELATION items between 0/id and each inherited qgroup */
int insert_relations(struct btrfs_trans_handle *trans, const struct btrfs_subvol_create_args *a,
		     u64 id);

/* Makes the missing directory @name in (@root, @dir); its inode in @new_dir */
typedef int (*btrfs_make_missing_fn)(void *priv, u64 root, u64 dir, const char *name,
				     size_t name_len, u64 *new_dir);
/*
 * btrfs_resolve_dir() (subvol-create.h), and with @make_missing the
 * directories it does not find are made instead of failing with -ENOENT.
 * Path rule: btrfs_resolve_path() (path-walk.h, Documentation/volctl.8),
 * shared with the readers' resolve_path() in common/backend/offline.c: empty and
 * "." components are skipped; ".." goes back to
 * the directory the walk came from, and at the top-level subvolume stays
 * there (as at "/"; online ".." at the mount point leaves the filesystem,
 * which offline cannot name); a symlink is not followed (it is
 * not a directory: -ENOTDIR); more than 256 levels: -ELOOP.
 */
int btrfs_walk_dir_path(struct btrfs_fs *fs, const char *path, size_t len,
			btrfs_make_missing_fn make_missing, void *priv, u64 *root_id, u64 *dir);

#endif /* VOLCTL_KERNEL_SHARED_SUBVOL_INTERNAL_H */
