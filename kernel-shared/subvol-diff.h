/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What changed between two subvolumes of one filesystem (`subvolume diff`),
 * path by path (layer 3, read-only).
 *
 * The two fs trees are compared with btrfs_compare_trees(), so subtrees
 * they share are never read; every inode an item difference touches is
 * looked at on both sides as soon as the comparison has passed it (while
 * its blocks are still in a small cache; errors as if it came after the
 * comparison).  The rules (tests/kdiff/README.md, the
 * contract the oracle holds it to):
 * - an inode is (inode number, generation): the same number with another
 *   generation is another inode (removed, then added);
 * - a name is (parent directory, entry name); of one inode's names, one
 *   removed and one added is a rename (R old -> new), otherwise removed
 *   names are -, added ones +, and the names it kept get M when it changed;
 * - M says what changed: content (the bytes, compared where the extents
 *   differ; a symlink's target, a device's number), size, mode, owner,
 *   xattrs, times (mtime; atime is ignored, ctime follows every change),
 *   links; a directory is M for mode, owner or xattrs only (its size and
 *   times follow its entries);
 * - nested subvolumes are not entered.
 */
#ifndef VOLCTL_KERNEL_SHARED_SUBVOL_DIFF_H
#define VOLCTL_KERNEL_SHARED_SUBVOL_DIFF_H

#include "format.h"
#include "diff-types.h"

struct btrfs_fs;

/**
 * btrfs_subvol_diff - the changes from subvolume @old to subvolume @new
 * Return: 0 with @d filled (release it with btrfs_diff_release()), -ENOENT
 * (no such subvolume), -EUCLEAN, -EIO, -ENOMEM; fs->errmsg says more.
 */
int btrfs_subvol_diff(struct btrfs_fs *fs, u64 old, u64 new, struct btrfs_diff *d);

void btrfs_diff_release(struct btrfs_diff *d);

#endif /* VOLCTL_KERNEL_SHARED_SUBVOL_DIFF_H */
