// SPDX-License-Identifier: GPL-2.0-only
/*
 * Exact qgroup numbers at commit, the limit check of every commit, and
 * check --repair-qgroups (see qgroup-recompute.h).
 *
 * The engine (accounting.h) reads through the same paths as every other
 * reader: ROOT_ITEMs from the in-memory root tree, blocks from the buffer
 * cache, where the new blocks of the transaction live (dirty buffers are
 * never evicted), and the extent tree with every pending update applied.
 * So once the commit has converged, a run sees the transaction's state
 * exactly as the next mount will.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fs.h"
#include "ctree.h"
#include "transaction.h"
#include "accounting.h"
#include "qgroup-list.h"
#include "qgroup-items.h"
#include "qgroup-recompute.h"

int btrfs_qgroup_trans_begin(struct btrfs_trans_handle *trans)
{
	struct btrfs_qgroup_list *list;
	int ret;

	if (!trans->quota_on)
		return 0;
	list = calloc(1, sizeof(*list));
	if (!list)
		return -ENOMEM;
	ret = btrfs_qgroup_load_trans(trans, list);
	if (ret < 0) {
		free(list);
		return ret;
	}
	trans->qgroups_before = list;
	/* numbers known to be wrong are not added to: this write recounts them */
	if (!btrfs_qgroup_list_is_simple(list) &&
	    (list->status.flags & (BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT |
				   BTRFS_QGROUP_STATUS_FLAG_RESCAN)))
		btrfs_trans_recompute_qgroups(trans);
	return 0;
}

void btrfs_qgroup_trans_end(struct btrfs_trans_handle *trans)
{
	if (!trans->qgroups_before)
		return;
	btrfs_qgroup_list_release(trans->qgroups_before);
	free(trans->qgroups_before);
	trans->qgroups_before = NULL;
}

/*
 * Engine numbers into every INFO item of the quota tree as it is now;
 * with @res, what was recorded where it differs
 */
static int write_computed(struct btrfs_trans_handle *trans, struct btrfs_qgroup_repair_result *res)
{
	struct btrfs_qgroup_list list = { 0 };
	struct btrfs_acct_counts *counts = NULL;
	struct btrfs_acct *acct = NULL;
	struct btrfs_root *quota;
	int ret;

	ret = btrfs_read_root(trans->fs, BTRFS_QUOTA_TREE_OBJECTID, &quota);
	if (ret == -ENOENT) {
		btrfs_fs_set_error(trans->fs, "quota is not enabled");
		return -ENOTCONN;
	}
	if (!ret)
		ret = btrfs_qgroup_load_trans(trans, &list);
	if (ret < 0)
		return ret;
	if (res)
		res->old_flags = list.status.flags;
	if (btrfs_qgroup_list_is_simple(&list)) {
		btrfs_fs_set_error(trans->fs, "quota rescan is not possible with simple quotas");
		ret = -EINVAL;
	}
	if (!ret) {
		counts = calloc(list.nr + 1, sizeof(*counts));
		ret = counts ? btrfs_acct_run(trans->fs, NULL, &acct) : -ENOMEM;
	}
	if (!ret)
		ret = btrfs_acct_qgroups(acct, &list, counts);
	if (!ret && res) {
		res->fixes = calloc(list.nr + 1, sizeof(*res->fixes));
		if (!res->fixes)
			ret = -ENOMEM;
	}
	for (size_t i = 0; i < list.nr && !ret; i++) {
		const struct btrfs_qgroup *g = &list.groups[i];

		if (!g->has_info)
			continue;
		if (res && (g->info.rfer != counts[i].rfer || g->info.excl != counts[i].excl)) {
			struct btrfs_qgroup_fix *f = &res->fixes[res->nr_fixes++];

			f->qgroupid = g->qgroupid;
			f->old_rfer = g->info.rfer;
			f->old_excl = g->info.excl;
			f->rfer = counts[i].rfer;
			f->excl = counts[i].excl;
		}
		if (res)
			res->nr_groups++;
		ret = btrfs_qgroup_write_info(trans, quota, g->qgroupid, counts[i].rfer,
					      counts[i].excl);
	}
	if (!ret)
		ret = btrfs_qgroup_update_status(trans, quota, BTRFS_QGROUP_STATUS_FLAG_RESCAN |
						 BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT, true);
	btrfs_acct_free(acct);
	free(counts);
	btrfs_qgroup_list_release(&list);
	return ret;
}

int btrfs_qgroup_commit_recompute(struct btrfs_trans_handle *trans)
{
	if (!trans->quota_on)
		return 0;
	return write_computed(trans, NULL);
}

int btrfs_qgroup_repair(struct btrfs_trans_handle *trans, struct btrfs_qgroup_repair_result *res)
{
	int ret;

	if (res)
		memset(res, 0, sizeof(*res));
	/* correcting numbers is never refused, whatever the limits say */
	btrfs_trans_ignore_qgroup_limits(trans);
	ret = write_computed(trans, res);
	if (ret < 0 && res) {
		free(res->fixes);
		memset(res, 0, sizeof(*res));
	}
	return ret;
}

int btrfs_qgroup_commit_check_limits(struct btrfs_trans_handle *trans)
{
	const struct btrfs_qgroup_list *before = trans->qgroups_before;
	struct btrfs_qgroup_list after = { 0 };
	int ret;

	if (!trans->quota_on || trans->qgroup_no_limits || !before)
		return 0;
	/* numbers that were known wrong are no base to measure growth from */
	if (before->status.flags & BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT ||
	    btrfs_qgroup_list_is_simple(before))
		return 0;
	ret = btrfs_qgroup_load_trans(trans, &after);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < after.nr && !ret; i++) {
		const struct btrfs_qgroup *g = &after.groups[i];
		const struct btrfs_qgroup *old;
		struct btrfs_qgroup cmp;

		if (!g->has_info || !(g->limit.flags & (BTRFS_QGROUP_LIMIT_MAX_RFER |
							BTRFS_QGROUP_LIMIT_MAX_EXCL)))
			continue;
		old = btrfs_qgroup_list_find(before, g->qgroupid);
		if (!old || !old->has_info)
			continue;	/* born in this transaction with its numbers */
		cmp = *g;
		cmp.info = old->info;
		ret = btrfs_qgroup_check_limit(trans->fs, &cmp, g->info.rfer, g->info.excl);
	}
	btrfs_qgroup_list_release(&after);
	return ret;
}

int btrfs_quota_rescan(struct btrfs_trans_handle *trans)
{
	return btrfs_qgroup_repair(trans, NULL);
}
