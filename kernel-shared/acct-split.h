/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The tree-block part of the engine's numbers for a set of subvolumes, so
 * that a caller can tell data bytes from metadata bytes (subvolume delete
 * --dry-run: raw space freed counts metadata once per copy of its profile).
 */
#ifndef VOLCTL_KERNEL_SHARED_ACCT_SPLIT_H
#define VOLCTL_KERNEL_SHARED_ACCT_SPLIT_H

#include <stddef.h>
#include "accounting.h"

/**
 * btrfs_acct_subvols_meta - like btrfs_acct_subvols(), tree blocks only
 * (full accounting: every fs tree block weighs nodesize).  The data part is
 * the difference.
 */
void btrfs_acct_subvols_meta(const struct btrfs_acct *acct, const u64 *ids, size_t n,
			     struct btrfs_acct_counts *meta);

#endif
