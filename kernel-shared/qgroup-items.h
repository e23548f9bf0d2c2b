/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Quota tree item writers (on-disk-engine 9.1, layer 5): STATUS and INFO
 * updates, the quota tree and qgroup list of a transaction, and the limit
 * refusal.  Used by the commit's qgroup recompute (qgroup-recompute.c)
 * and by the qgroup operations (qgroup-write.c, layer 6); library-internal.
 */
#ifndef VOLCTL_KERNEL_SHARED_QGROUP_ITEMS_H
#define VOLCTL_KERNEL_SHARED_QGROUP_ITEMS_H

#include <stdbool.h>
#include "format.h"

/* Size of a QGROUP_INFO and of a QGROUP_LIMIT item */
#define BTRFS_QGROUP_ITEM_SIZE	40

struct btrfs_trans_handle;
struct btrfs_qgroup_list;
struct btrfs_root;
struct btrfs_fs;
struct btrfs_qgroup;

/** btrfs_qgroup_write_info - INFO of @id := {T, @rfer, @rfer, @excl, @excl} */
int btrfs_qgroup_write_info(struct btrfs_trans_handle *trans, struct btrfs_root *quota, u64 id,
			    u64 rfer, u64 excl);

/**
 * btrfs_qgroup_update_status - STATUS generation := T, flags &= ~@clear;
 * with @rescan_done the rescan progress is set to "done"
 */
int btrfs_qgroup_update_status(struct btrfs_trans_handle *trans, struct btrfs_root *quota,
			       u64 clear, bool rescan_done);

/**
 * btrfs_qgroup_check_limit - whether @qg may go from its info numbers to
 * @rfer/@excl under its limits: refused only when a limited number grows
 * past its limit.  Return: 0, or -EDQUOT with the group, the limit and the
 * overshoot in fs->errmsg.
 */
int btrfs_qgroup_check_limit(struct btrfs_fs *fs, const struct btrfs_qgroup *qg, u64 rfer,
			     u64 excl);

/**
 * btrfs_qgroup_quota_root - the quota tree of @trans's image
 * Return: 0, -ENOTCONN ("quota is not enabled" in fs->errmsg), or <0.
 */
int btrfs_qgroup_quota_root(struct btrfs_trans_handle *trans, struct btrfs_root **root);

/**
 * btrfs_qgroup_load_trans - the quota tree of @trans's image as a qgroup
 * list (qgroup-list.h; the caller frees it)
 * Return: 0, -ENOTCONN ("quota is not enabled" in fs->errmsg), or <0.
 */
int btrfs_qgroup_load_trans(struct btrfs_trans_handle *trans, struct btrfs_qgroup_list *list);

/** btrfs_qgroup_info_fill - an INFO item {@transid, @rfer, @rfer, @excl, @excl} at @p */
void btrfs_qgroup_info_fill(u8 *p, u64 transid, u64 rfer, u64 excl);

/**
 * btrfs_qgroup_info_add - add @delta to rfer, rfer_cmpr, excl, excl_cmpr
 * of qgroup @qgid; with simple quotas to rfer and excl only (the kernel's squota deltas leave
 * the compressed numbers alone, and a dropped subvolume's group whose
 * numbers are not all 0 stays); INFO generation := T.  No INFO item:
 * nothing to count.  Return: 0 or <0.
 */
int btrfs_qgroup_info_add(struct btrfs_trans_handle *trans, struct btrfs_root *quota, u64 qgid,
			  s64 delta);

/**
 * btrfs_qgroup_limit_refused - refuse a write with -EDQUOT: @qgroupid's
 * @exclusive (else referenced) @limit would be exceeded by @over bytes;
 * @reserve is what a new subvolume reserves in its parent when that is
 * the cause (0 otherwise).  The values go to fs->refusal, the words to
 * fs->errmsg.  Return: -EDQUOT.
 */
int btrfs_qgroup_limit_refused(struct btrfs_fs *fs, u64 qgroupid, bool exclusive, u64 limit,
			       u64 over, u64 reserve);

#endif /* VOLCTL_KERNEL_SHARED_QGROUP_ITEMS_H */
