/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Exact qgroup numbers at commit, limits on every write, and repair.
 *
 * An operation whose effect on the qgroups is not a plain sum (a copy of
 * a tree block shared with a snapshot, a snapshot into a hierarchy)
 * calls btrfs_trans_recompute_qgroups(); the commit then runs the
 * accounting engine on the transaction's own state, after every pending
 * extent update is applied and every ROOT_ITEM written, and gives every
 * qgroup (all levels) the computed numbers instead of the incremental
 * deltas.  A transaction that starts on numbers already marked
 * INCONSISTENT (or with a rescan pending) recomputes them the same way.
 * Writing those INFO items only changes the quota, root and
 * extent trees, never an fs tree, so the numbers stay valid while the
 * commit converges.
 *
 * Limits: the qgroups as committed are kept when the transaction starts;
 * before anything is written the commit compares every limited group's
 * final numbers with them, and refuses (-EDQUOT, the whole transaction
 * dropped) when a group grows past a limit.  A group already over its
 * limit is refused only if it grows.  Groups new in the transaction, and
 * transactions that only shrink or correct numbers (delete, rescan,
 * repair: btrfs_trans_ignore_qgroup_limits()), are not checked.
 */
#ifndef VOLCTL_KERNEL_SHARED_QGROUP_RECOMPUTE_H
#define VOLCTL_KERNEL_SHARED_QGROUP_RECOMPUTE_H

#include <stddef.h>
#include "format.h"
#include "qgroup-types.h"

struct btrfs_trans_handle;

/* Called by the transaction (transaction.c); each is a no-op with quotas off */

/** btrfs_qgroup_trans_begin - remember the committed qgroups for the limit check */
int btrfs_qgroup_trans_begin(struct btrfs_trans_handle *trans);

/**
 * btrfs_qgroup_commit_recompute - engine numbers into every INFO item,
 * INCONSISTENT and RESCAN cleared; call once pending updates converged
 * Return: 0 or <0 (fs->errmsg set for corrupt trees).
 */
int btrfs_qgroup_commit_recompute(struct btrfs_trans_handle *trans);

/**
 * btrfs_qgroup_commit_check_limits - refuse a transaction that takes a
 * group past a limit (see the overview); call after the last INFO change
 * Return: 0, -EDQUOT with "qgroup L/ID: referenced limit N would be
 * exceeded by M bytes" in fs->errmsg, <0.
 */
int btrfs_qgroup_commit_check_limits(struct btrfs_trans_handle *trans);

/** btrfs_qgroup_trans_end - free what btrfs_qgroup_trans_begin() kept */
void btrfs_qgroup_trans_end(struct btrfs_trans_handle *trans);


/**
 * btrfs_qgroup_repair - write the engine's numbers into every INFO item
 * and clear INCONSISTENT and RESCAN (an offline rescan that says what it
 * changed); never refused by a limit
 * @res:	may be NULL
 * Return: 0, -ENOTCONN (quotas off), -EINVAL (simple quotas), <0.
 */
int btrfs_qgroup_repair(struct btrfs_trans_handle *trans, struct btrfs_qgroup_repair_result *res);

/**
 * btrfs_quota_rescan - recompute every qgroup's numbers with the engine and
 * clear RESCAN and INCONSISTENT (btrfs_qgroup_repair() without the report)
 * Return: 0, -ENOTCONN (quotas off), -EINVAL (simple quotas), <0.
 */
int btrfs_quota_rescan(struct btrfs_trans_handle *trans);

#endif /* VOLCTL_KERNEL_SHARED_QGROUP_RECOMPUTE_H */
