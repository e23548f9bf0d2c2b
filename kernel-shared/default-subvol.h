/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Offline `subvolume set-default`: the "default" entry of the root tree
 * directory (on-disk-engine 5.4).
 */
#ifndef VOLCTL_KERNEL_SHARED_DEFAULT_SUBVOL_H
#define VOLCTL_KERNEL_SHARED_DEFAULT_SUBVOL_H

#include "format.h"

struct btrfs_trans_handle;

/**
 * btrfs_set_default_subvol - point the "default" DIR_ITEM at subvolume @id
 *
 * The DIR_ITEM (root_dir_objectid, DIR_ITEM, hash("default")) of the root
 * tree gets the subvolume's ROOT_ITEM key as its location (the key offset
 * of a snapshot is its creation transid, as the kernel writes it); its
 * transid is left alone.  Incompat DEFAULT_SUBVOL is set in the in-memory
 * superblock, which the commit writes (the caller restores it on failure).
 * Return: 0; -ENOENT (no such live subvolume, or no "default" entry; the
 * message says which), or <0.
 */
int btrfs_set_default_subvol(struct btrfs_trans_handle *trans, u64 id);

#endif /* VOLCTL_KERNEL_SHARED_DEFAULT_SUBVOL_H */
