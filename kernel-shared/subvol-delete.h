/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Offline `subvolume delete`: the unlink the kernel's ioctl performs
 * (on-disk-engine 8.1).
 */
#ifndef VOLCTL_KERNEL_SHARED_SUBVOL_DELETE_H
#define VOLCTL_KERNEL_SHARED_SUBVOL_DELETE_H

#include "format.h"
#include "subvol-drop.h"

struct btrfs_trans_handle;
struct btrfs_fs;

/* An inode flag that makes the kernel refuse a delete (EPERM) */
enum btrfs_delete_block {
	BTRFS_DELETE_ALLOWED,
	BTRFS_DELETE_IMMUTABLE,		/* the subvolume's root directory: chattr +i */
	BTRFS_DELETE_APPEND,		/* the same, chattr +a */
	BTRFS_DELETE_PARENT_IMMUTABLE,	/* the directory holding it: chattr +i */
	BTRFS_DELETE_PARENT_APPEND,	/* the same, chattr +a */
};

/**
 * btrfs_subvol_delete_block - whether an inode flag blocks the delete of
 * subvolume @subvolid, as the kernel's ioctl checks it: the directory
 * holding it immutable or append-only, then its root directory
 * Return: 0 with *@why (BTRFS_DELETE_ALLOWED also for a subvolume linked
 * nowhere), or <0.
 */
int btrfs_subvol_delete_block(struct btrfs_fs *fs, u64 subvolid, enum btrfs_delete_block *why);
/* The words for @why: "the subvolume is immutable", ... */
const char *btrfs_delete_block_str(enum btrfs_delete_block why);
/* The chattr option that lifts @why: "-i" or "-a" */
const char *btrfs_delete_block_chattr(enum btrfs_delete_block why);

/**
 * btrfs_subvol_unlink - unlink subvolume @subvolid inside @trans
 *
 * Removes its DIR_ITEM and DIR_INDEX from the parent directory (whose
 * size, times and transid change), ROOT_REF and ROOT_BACKREF, its UUID
 * tree entries; sets refs 0 and SUBVOL_DEAD in its ROOT_ITEM and inserts
 * the ORPHAN item (-5 ORPHAN_ITEM id).  The tree, its extents and its
 * qgroup stay: this is the state the kernel leaves after the ioctl, which
 * `btrfs check` accepts, and the kernel's cleaner drops the tree (and,
 * since 6.11, removes qgroup 0/id) after the next read-write mount.
 * Quota limits do not apply: deleting is always allowed.
 * Return: 0, -ENOENT (no such subvolume, or already deleted), -EPERM (the
 * default subvolume, tree 5, or an inode flag: btrfs_subvol_delete_block()),
 * -ENOTEMPTY (holds subvolumes), -EROFS
 * (read-only parent), -EOPNOTSUPP, or <0 (fs->errmsg says more).
 */
int btrfs_subvol_unlink(struct btrfs_trans_handle *trans, u64 subvolid, u64 now_sec,
			u32 now_nsec);

/**
 * btrfs_subvol_delete - unlink subvolume @subvolid and drop its tree inside
 * @trans: what the ioctl and the kernel's cleaner do together
 *
 * The unlink of btrfs_subvol_unlink() without the ORPHAN item, then
 * btrfs_subvol_drop(): every block and data extent the tree alone held is
 * freed, its ROOT_ITEM and qgroup 0/id go.  Same refusals as the unlink;
 * always allowed by quota limits.
 * @stats:	what the drop did; may be NULL
 */
int btrfs_subvol_delete(struct btrfs_trans_handle *trans, u64 subvolid, u64 now_sec,
			u32 now_nsec, struct btrfs_drop_stats *stats);

/**
 * btrfs_subvol_clean - the kernel cleaner's work for deleted subvolume
 * @subvolid inside @trans: btrfs_subvol_drop() of its dead tree, resuming
 * where a kernel drop stopped (drop_progress)
 * Return: 0 dropped, 1 already gone (no ROOT_ITEM, but a subvolume with a
 * higher id exists, so it existed once), -ENOENT (never existed), -EINVAL
 * (not deleted), or <0.
 */
int btrfs_subvol_clean(struct btrfs_trans_handle *trans, u64 subvolid,
		       struct btrfs_drop_stats *stats);

#endif /* VOLCTL_KERNEL_SHARED_SUBVOL_DELETE_H */
