/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Offline quota and qgroup changes (on-disk-engine 9, 10): quota
 * enable/disable/rescan, qgroup create/destroy/limit and relations.
 *
 * Numbers are always exact: where the kernel would mark the qgroups
 * INCONSISTENT and need a rescan, the accounting engine (accounting.h)
 * computes them from the trees.  Every function works inside @trans and
 * sets fs->errmsg for the errors a user can act on.
 */
#ifndef VOLCTL_KERNEL_SHARED_QGROUP_WRITE_H
#define VOLCTL_KERNEL_SHARED_QGROUP_WRITE_H

#include <stdbool.h>
#include "format.h"

struct btrfs_trans_handle;

/**
 * btrfs_quota_enable - create the quota tree (full or simple accounting)
 *
 * STATUS {version 1, generation T, flags ON}, INFO (exact numbers, from the
 * engine) + LIMIT for 0/5 and every subvolume linked by a ROOT_REF.
 * @simple: as kernel 6.18 does, flags ON|SIMPLE_MODE, enable_gen T + 1,
 * every INFO zero (nothing existing is charged), incompat SIMPLE_QUOTA set
 * by the commit.
 * Already enabled: 0, nothing changes (as the kernel); simple quotas asked
 * while full ones are on: -EINVAL.  Items that do not fit one leaf are
 * inserted one by one (the tree grows by leaf splits).
 * Return: 0, -EINVAL, or <0.
 */
int btrfs_quota_enable(struct btrfs_trans_handle *trans, bool simple);

/**
 * btrfs_quota_disable - delete the quota tree; 0 when quotas are off
 *
 * In simple mode incompat SIMPLE_QUOTA stays set, as the kernel leaves it
 * (data extents keep their EXTENT_OWNER_REFs).
 */
int btrfs_quota_disable(struct btrfs_trans_handle *trans);

/** btrfs_qgroup_create - INFO + LIMIT of a new qgroup; -EEXIST, -EINVAL, -ENOTCONN */
int btrfs_qgroup_create(struct btrfs_trans_handle *trans, u64 qgroupid);

/**
 * btrfs_qgroup_destroy - remove a qgroup without members
 *
 * Its own parent relations are removed with it (the parents' numbers
 * follow), as kernel 6.18 does.  Return: 0, -ENOENT, -EBUSY (members, or
 * a level-0 group whose subvolume still exists), -ENOTCONN, <0.
 */
int btrfs_qgroup_destroy(struct btrfs_trans_handle *trans, u64 qgroupid);

/**
 * btrfs_qgroup_relation - add (@assign) or remove the relation @src in @dst
 *
 * Both RELATION items; @dst and every qgroup above it get exact numbers:
 * plain addition or subtraction when every extent of @src is exclusive to
 * it and no subvolume below @src is below them by another path (the
 * kernel's quick path), the engine otherwise.  Simple quotas: each group
 * holds the sum of the distinct level-0 groups below it.  A change that would take a
 * group past a limit is refused with -EDQUOT naming the group, the limit
 * and the overshoot.
 * Return: 0, -EINVAL (levels), -ENOENT, -EEXIST, -EDQUOT, -ENOTCONN, <0.
 */
int btrfs_qgroup_relation(struct btrfs_trans_handle *trans, u64 src, u64 dst, bool assign);

/**
 * btrfs_qgroup_limit - set limits as the kernel's QGROUP_LIMIT does
 * @flags:	BTRFS_QGROUP_LIMIT_* to change; a value of (u64)-1 clears it
 * Return: 0, -ENOENT, -ENOTCONN, <0.
 */
int btrfs_qgroup_limit(struct btrfs_trans_handle *trans, u64 qgroupid, u64 flags,
		       u64 max_rfer, u64 max_excl);

/**
 * btrfs_qgroup_check_create - the kernel's limit check for a new subvolume
 * in @parent_root: 3 tree blocks reserved against 0/@parent_root and every
 * group above it (rfer and excl, where limited).  Inherited groups are not
 * checked, as in the kernel.  Nothing is checked when quotas are off or
 * INCONSISTENT.
 * Return: 0, -EDQUOT naming the group, its limit and the overshoot, <0.
 */
int btrfs_qgroup_check_create(struct btrfs_trans_handle *trans, u64 parent_root);

#endif /* VOLCTL_KERNEL_SHARED_QGROUP_WRITE_H */
