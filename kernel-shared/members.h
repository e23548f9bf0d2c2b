/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The member devices of a filesystem opened for writing.
 *
 * The reader is lenient: it takes the newest superblock of the devices it
 * was given and reads around a missing one when the profile allows.  The
 * writer is not: a commit must reach every device, so before anything is
 * written every member named by the chunk tree's DEV_ITEMs must be open,
 * every open device must be one of them, all must agree on fsid and
 * num_devices, and all must carry the same superblock generation (an older
 * one is a stale member: writing around it would leave it behind for good).
 * Metadata and system chunks with parity (RAID5/6) are refused: their
 * stripes would need a read-modify-write of the parity.
 *
 * The superblock written at commit is the same on every member except the
 * embedded dev_item, which describes that member: the fields the kernel
 * refreshes on every commit (devid, type, total_bytes, bytes_used, io_align,
 * io_width, sector_size, uuid; generation 0; fsid = metadata uuid) come
 * from the chunk tree's DEV_ITEM, the rest stays as the member had it.
 */
#ifndef VOLCTL_KERNEL_SHARED_MEMBERS_H
#define VOLCTL_KERNEL_SHARED_MEMBERS_H

#include "format.h"

struct btrfs_fs;

/**
 * btrfs_members_check_supers - before the chunk tree is read: every opened
 * device at the filesystem's generation and num_devices, no replace target
 * Return: 0, -ESTALE (older generation), -EINVAL (members disagree).
 */
int btrfs_members_check_supers(struct btrfs_fs *fs);

/**
 * btrfs_members_check_complete - after the chunk tree is read: every
 * DEV_ITEM has an opened device, every opened device has a DEV_ITEM, each
 * device is at least as large as its DEV_ITEM says, and no metadata or
 * system chunk has parity
 * Return: 0, -ENXIO (missing member), -EINVAL (not a member),
 * -EUCLEAN (truncated device), -EOPNOTSUPP (RAID5/6 metadata).
 */
int btrfs_members_check_complete(struct btrfs_fs *fs);

/** btrfs_members_flush - flush every member; the first error wins */
int btrfs_members_flush(struct btrfs_fs *fs);

/**
 * btrfs_members_write_supers - write @sb to every member: the primary copy
 * on every device, flush all, then each mirror copy on every device, flush
 * all.  @sb is the new superblock as prepared for the first member; its
 * dev_item, bytenr and checksum are set per copy.
 *
 * Return: 0 or the first error.  *@primaries receives how many primary
 * copies were written (0: the image is unchanged as far as a reader goes).
 */
int btrfs_members_write_supers(struct btrfs_fs *fs, const struct btrfs_super_block *sb,
			       int *primaries);

/**
 * btrfs_members_write_supers_mirrors_first - the same in the other order:
 * every mirror copy, flush, then the primaries (not flushed).  For a
 * superblock that makes the filesystem unreadable (BTRFS_MAGIC_TEMPORARY):
 * no valid mirror is left behind an invalid primary.
 */
int btrfs_members_write_supers_mirrors_first(struct btrfs_fs *fs,
					     const struct btrfs_super_block *sb, int *primaries);

#endif /* VOLCTL_KERNEL_SHARED_MEMBERS_H */
