/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Offline `subvolume create` and the directory lookups it needs.
 */
#ifndef VOLCTL_KERNEL_SHARED_SUBVOL_CREATE_H
#define VOLCTL_KERNEL_SHARED_SUBVOL_CREATE_H

#include <stddef.h>
#include "format.h"

struct btrfs_fs;
struct btrfs_trans_handle;

struct btrfs_subvol_create_args {
	u64 parent_root;		/* subvolume holding the directory */
	u64 parent_dir;			/* directory inode in it */
	const char *name;
	size_t name_len;
	u32 uid, gid;			/* owner of the new root directory */
	u64 now_sec;			/* creation time */
	u32 now_nsec;
	const u64 *inherit;		/* qgroups (level > 0) the new 0/ID joins */
	size_t nr_inherit;
	u64 subvolid;			/* out: id of the new subvolume */
};

/**
 * btrfs_lookup_dir_entry - find @name in directory @dir of tree @root_id
 * @location:	receives the entry's location key (ROOT_ITEM for a subvolume)
 * @type:	receives the BTRFS_FT_* type
 * Return: 0, -ENOENT, or <0.
 */
int btrfs_lookup_dir_entry(struct btrfs_fs *fs, u64 root_id, u64 dir, const char *name,
			   size_t name_len, struct btrfs_key *location, u8 *type);

/**
 * btrfs_resolve_dir - walk @path ("/a/b", components separated by '/')
 * from the top-level subvolume and return the tree and directory inode it
 * names; entering a subvolume moves to its tree.
 * Return: 0, -ENOENT (a component is missing; fs->errmsg names it),
 * -ENOTDIR, or <0.
 */
int btrfs_resolve_dir(struct btrfs_fs *fs, const char *path, size_t len, u64 *root_id,
		      u64 *dir);

/**
 * btrfs_subvol_create - create an empty subvolume @args->name in
 * @args->parent_dir of @args->parent_root inside @trans
 *
 * Adds the new tree (one leaf: INODE_ITEM 256 and INODE_REF ".."), its
 * ROOT_ITEM with a random uuid, ROOT_REF/ROOT_BACKREF, DIR_ITEM and
 * DIR_INDEX in the parent directory (whose size, ctime, mtime and transid
 * change), the UUID tree entry, and qgroup 0/ID INFO+LIMIT items when
 * quotas are on, made a member of each @args->inherit qgroup (both
 * RELATION items; the commit adds the new leaf to them like to 0/ID).
 * Without quotas the inherit list is ignored, as the kernel does.
 * Return: 0, -EEXIST, -ENOTDIR, -ENOENT (inherit qgroup missing),
 * -EINVAL (inherit qgroup of level 0), -EOPNOTSUPP, or <0 (fs->errmsg says more).
 */
int btrfs_subvol_create(struct btrfs_trans_handle *trans, struct btrfs_subvol_create_args *args);

/**
 * btrfs_subvol_set_readonly - set BTRFS_ROOT_SUBVOL_RDONLY on subvolume @id
 * (the ROOT_ITEM is rewritten at commit)
 * Return: 0, -ENOENT, -EINVAL (not a subvolume), <0.
 */
int btrfs_subvol_set_readonly(struct btrfs_trans_handle *trans, u64 id);

#endif /* VOLCTL_KERNEL_SHARED_SUBVOL_CREATE_H */
