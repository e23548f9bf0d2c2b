/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The bytes a full `btrfs send` of a read-only subvolume writes (layer 3,
 * read-only): stream protocol 1, and protocol 2 with --compressed-data.
 *
 * The fs tree is read once, in key order, and the kernel's full send is
 * replayed on it as sizes only: the stream header, the subvol command, per
 * inode in inode order its creation under the orphan name o<ino>-<gen>-0,
 * the rename to its first name and a link per other name (a parent
 * directory with a higher number is created first, under its orphan name),
 * xattrs, writes in chunks of 48 KiB (v1) or 128 KiB (v2), encoded writes of
 * compressed extents (v2) unless their compressed bytes are more than the
 * range sent (clipped at i_size; then a plain write), a truncate when the
 * last write does not end at i_size, chown, chmod (not for symlinks),
 * security.capability (only there, not among the other xattrs), and utimes
 * (v2 with otime); the utimes of directories go through the kernel's cache
 * of 64 directories; then end.
 * Extents referenced more than once within the subvolume follow the
 * kernel's find_extent_clone() and clone_range(): the candidates are the
 * other references in the subvolume that cover the extent's start (all of
 * them for a compressed extent), in a lower inode or in the same inode
 * below the last write, not the inode's own data reference; the largest
 * wins, the first on a tie.  A clone is sent when the range ends on a
 * sector, or unaligned at i_size when the source range ends at the
 * source's i_size; never for the first sector alone; the source's holes
 * and other extents become writes, and its 64 KiB-unaligned end-of-file
 * block cloned into the middle of a file is written.
 * Not computed yet (refused with -EOPNOTSUPP, never guessed): an extent
 * referenced more than 1024 times within the subvolume (the kernel's limit
 * on backrefs then decides).
 */
#ifndef VOLCTL_KERNEL_SHARED_SEND_SIZE_H
#define VOLCTL_KERNEL_SHARED_SEND_SIZE_H

#include "format.h"
#include "send-types.h"

struct btrfs_fs;

/**
 * btrfs_send_size - the size of a full send of subvolume @subvolid
 * Return: 0, -ENOENT (no such subvolume), -EPERM when the subvolume is not
 * read-only (send refuses it), -EOPNOTSUPP for what is not computed yet,
 * -EUCLEAN, -EIO, -ENOMEM; fs->errmsg says more.
 */
int btrfs_send_size(struct btrfs_fs *fs, u64 subvolid, struct btrfs_send_size *out);

#endif /* VOLCTL_KERNEL_SHARED_SEND_SIZE_H */
