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
 * wins, the first in the kernel's walk on a tie (send-clone.c, with the
 * send's cache of the leaves walked); an extent with more than 1024
 * references is written.  A clone is sent when the range ends on a
 * sector, or unaligned at i_size when the source range ends at the
 * source's i_size; never for the first sector alone; the source's holes
 * and other extents become writes, and its 64 KiB-unaligned end-of-file
 * block cloned into the middle of a file is written.
 */
#ifndef VOLCTL_KERNEL_SHARED_SEND_SIZE_H
#define VOLCTL_KERNEL_SHARED_SEND_SIZE_H

#include "format.h"
#include "send-types.h"

struct btrfs_fs;

/**
 * btrfs_send_size - the size of a full send of subvolume @subvolid
 * Return: 0, -ENOENT (no such subvolume), -EPERM when the subvolume is not
 * read-only (send refuses it), -EUCLEAN, -EIO, -ENOMEM; fs->errmsg says more.
 */
int btrfs_send_size(struct btrfs_fs *fs, u64 subvolid, struct btrfs_send_size *out);

/**
 * btrfs_send_name_len - the length of the name send writes for subvolume
 * @subvolid (its ROOT_BACKREF's; 0 when it has none)
 */
int btrfs_send_name_len(struct btrfs_fs *fs, u64 subvolid, u64 *len);

/**
 * btrfs_send_size_from - the size of `btrfs send -p @parent_id -c ...`
 * of subvolume @subvolid (incremental when @parent_id is not 0), with the
 * clone sources @clone_ids (the parent is one too, as btrfs send adds it)
 *
 * The kernel's send is run as a state machine that counts each command it
 * would write (send-incr.c): the trees are compared the way the kernel
 * compares them, and every path is built as the receiver has it at that
 * point of the stream.  A clone source for a changed extent is looked up
 * through the extent tree's back references, in the order the kernel's
 * backref walk finds them (the first of equally good ones wins, and one as
 * long as the extent ends the walk; send-incr.c says which order).
 * Return: as btrfs_send_size(); -EINVAL when @parent_id is @subvolid.
 */
int btrfs_send_size_from(struct btrfs_fs *fs, u64 subvolid, u64 parent_id, const u64 *clone_ids,
			 u32 nr_clones, struct btrfs_send_size *out);

/**
 * btrfs_send_pick_parent - the parent `btrfs send -c ...` (no -p) uses:
 * the origin of @subvolid (its parent UUID) when it is a clone source,
 * else the clone source with the same origin whose ctransid is closest to
 * the origin's
 * Return: 0 and *@parent_id, -ENOENT when there is none (btrfs send fails:
 * "parent determination failed"), or the reader's error.
 */
int btrfs_send_pick_parent(struct btrfs_fs *fs, u64 subvolid, const u64 *clone_ids, u32 nr_clones,
			   u64 *parent_id);

/**
 * btrfs_send_related - whether subvolumes @a and @b share an origin: one is
 * a snapshot of the other, or their chains of parent UUIDs meet
 * Return: 1, 0 (unrelated: an incremental send between them carries the
 * whole of one and the removal of the other), or a negative errno.
 */
int btrfs_send_related(struct btrfs_fs *fs, u64 a, u64 b);

#endif /* VOLCTL_KERNEL_SHARED_SEND_SIZE_H */
