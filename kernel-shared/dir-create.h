/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Plain directories created offline, for `subvolume create -p`.
 */
#ifndef VOLCTL_KERNEL_SHARED_DIR_CREATE_H
#define VOLCTL_KERNEL_SHARED_DIR_CREATE_H

#include <stddef.h>
#include "format.h"

struct btrfs_trans_handle;

struct btrfs_mkdir_args {
	u32 mode;			/* permission bits (S_IFDIR is added) */
	u32 uid, gid;
	u64 now_sec;
	u32 now_nsec;
};

/**
 * btrfs_resolve_dir_create - btrfs_resolve_dir() that creates what is missing
 *
 * Walks @path from the top-level subvolume like btrfs_resolve_dir(); each
 * missing component is made a directory in @trans as the kernel's mkdir
 * makes it: a new inode (the tree's highest inode number plus one) with
 * INODE_ITEM and INODE_REF, DIR_ITEM and DIR_INDEX in the parent, the
 * parent's size (+ 2 * name length), times, transid and sequence.
 * Return: 0 with *@root_id and *@dir, -ENOTDIR, -EROFS (read-only
 * subvolume), -EINVAL, -EOPNOTSUPP (name hash collision), or <0; fs->errmsg
 * names the component.
 */
int btrfs_resolve_dir_create(struct btrfs_trans_handle *trans, const char *path, size_t len,
			     const struct btrfs_mkdir_args *a, u64 *root_id, u64 *dir);

#endif /* VOLCTL_KERNEL_SHARED_DIR_CREATE_H */
