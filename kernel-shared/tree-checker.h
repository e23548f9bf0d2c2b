/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tree-checker: structural validation of one tree block.
 *
 * Run on every block before anything else looks at it, and on every block
 * the writer is about to write.  Header facts (checksum, bytenr, fsid,
 * generation, level and first key against the parent) are checked by the
 * reader in extent-buffer.c; this file applies every rule of the kernel's
 * tree-checker (linux 6.18) to the block itself:
 *
 *  node:  written flag, level 1..7, 1 <= nritems <= ptrs per block, key
 *         pointers strictly ascending, every blockptr non-zero and
 *         sectorsize-aligned, generation non-zero and not above the
 *         superblock generation + 1
 *  leaf:  written flag, nritems small enough that the item headers fit, item
 *         data inside the data area, packed back to back from the end (no
 *         gap, no overlap, not over the item headers), keys strictly
 *         ascending, never-empty trees; then each item's content (inode,
 *         directory, ref, file extent, checksum and root items; extent items
 *         and back refs, block groups, chunks, devices, device extents; see
 *         kernel-shared/README.md for the list)
 *  owner: a block of a non-subvolume tree is owned by that tree; a block
 *         reached from a subvolume tree is owned by some subvolume tree
 *
 * Failures return -EUCLEAN and set fs->errmsg ("tree block X: bad key
 * order, slot 3"; "tree block X: slot 3: key (O TYPE F): <what is wrong>").
 */
#ifndef VOLCTL_KERNEL_SHARED_TREE_CHECKER_H
#define VOLCTL_KERNEL_SHARED_TREE_CHECKER_H

#include "format.h"

struct btrfs_fs;

/** btrfs_check_leaf - layout of leaf @buf (nodesize bytes) */
int btrfs_check_leaf(struct btrfs_fs *fs, const u8 *buf);

/** btrfs_check_node - layout of node @buf */
int btrfs_check_node(struct btrfs_fs *fs, const u8 *buf);

/**
 * btrfs_check_owner - block header owner against the tree it was reached from
 * @root_owner:	id of the tree being read, 0 if unknown
 */
int btrfs_check_owner(struct btrfs_fs *fs, const u8 *buf, u64 root_owner);

#endif /* VOLCTL_KERNEL_SHARED_TREE_CHECKER_H */
