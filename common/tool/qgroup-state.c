// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading the quota state through the backend: see qgroup-state.h.  Kept
 * apart from qgroup-out.c so that the output code never calls a backend;
 * the commands read the state here and pass it to the printers.
 */
#include <errno.h>
#include <string.h>
#include "common/backend/facts-qgroup.h"
#include "common/tool/qgroup-state.h"
#include "kernel-shared/qgroup-list.h"

static void count_levels(const struct btrfs_qgroup_list *list, struct quota_state *st)
{
	st->total = list->nr;
	for (size_t i = 0; i < list->nr; i++) {
		size_t level = btrfs_qgroup_level(list->groups[i].qgroupid);

		st->levels[level < QUOTA_MAX_LEVELS ? level : QUOTA_MAX_LEVELS - 1]++;
	}
}

/* The kernel's live view (sysfs) where there is one: fresher than the quota tree. */
static void apply_runtime(const struct vc_backend_ops *ops, struct vc_fs *fs,
			  struct quota_state *st)
{
	struct vc_quota_runtime rt;

	if (!ops->quota_runtime || ops->quota_runtime(fs, &rt) || !rt.enabled)
		return;
	/* the on-disk flag changes only at commit; like btrfs-progs, trust either */
	st->inconsistent |= rt.inconsistent;
	st->override_limits = rt.override_limits;
	st->drop_threshold = rt.drop_threshold;
}

static int state_read(const struct vc_backend_ops *ops, struct vc_fs *fs,
		      struct btrfs_qgroup_list *list, struct quota_state *st)
{
	struct vc_rescan_status rs = { 0 };
	int ret;

	if (!ops->tree_search)
		return -EOPNOTSUPP;
	ret = vc_facts_qgroups(fs, list);
	if (ret == -ENOENT)
		return 0;		/* no quota tree: disabled */
	if (ret)
		return ret;
	if (list->has_status) {
		st->has_status = true;
		st->status = list->status;
		st->sb_known = ops->super_features &&
			       !ops->super_features(fs, &st->sb.incompat, &st->sb.generation);
		st->status_faults = btrfs_qgroup_status_faults(&list->status,
							       st->sb_known ? &st->sb : NULL);
	}
	if (!list->has_status || !(list->status.flags & BTRFS_QGROUP_STATUS_FLAG_ON))
		return 0;
	st->enabled = true;
	/* an item the kernel cannot take says nothing reliable about the mode */
	st->simple = !st->status_faults &&
		     (list->status.flags & BTRFS_QGROUP_STATUS_FLAG_SIMPLE_MODE);
	st->inconsistent = list->status.flags & BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT;
	if (list->status.flags & BTRFS_QGROUP_STATUS_FLAG_RESCAN) {
		st->rescan_running = true;
		st->rescan_progress = list->status.rescan;
	}
	count_levels(list, st);
	/*
	 * Both are kernel settings that are not stored: offline, give what
	 * every mount starts with (and volctl's offline writes never override
	 * a limit).
	 */
	if (!ops->quota_runtime) {
		st->override_limits = 0;
		st->drop_threshold = QUOTA_DROP_SUBTREE_THRES_DEFAULT;
	}
	apply_runtime(ops, fs, st);
	/* the kernel's view is fresher than the on-disk flag; offline has only the flag */
	if (ops->rescan_status && !ops->rescan_status(fs, &rs)) {
		st->rescan_running = rs.running;
		if (rs.running)
			st->rescan_progress = rs.progress;
	}
	vc_fs_clear_error(fs);
	return 0;
}

int quota_state_read(const struct vc_backend_ops *ops, struct vc_fs *fs,
		     struct btrfs_qgroup_list *list, struct quota_state *st)
{
	struct btrfs_qgroup_list own;
	int ret;

	memset(st, 0, sizeof(*st));
	st->override_limits = -1;
	st->drop_threshold = -1;
	if (!list)
		list = &own;
	memset(list, 0, sizeof(*list));
	ret = state_read(ops, fs, list, st);
	if (list == &own)
		btrfs_qgroup_list_release(&own);
	return ret;
}

int quota_state_read_status(const struct vc_backend_ops *ops, struct vc_fs *fs,
			    struct btrfs_qgroup_list *list, struct quota_state *st)
{
	struct vc_quota_runtime rt;
	int ret = quota_state_read(ops, fs, list, st);

	/* without privilege the quota tree is closed, sysfs is not (btrfs-progs uses only it) */
	if (ret != -EPERM || !ops->quota_runtime || ops->quota_runtime(fs, &rt))
		return ret;
	vc_fs_clear_error(fs);
	st->enabled = rt.enabled;
	if (!rt.enabled)
		return 0;
	st->simple = rt.simple;
	st->inconsistent = rt.inconsistent;
	st->override_limits = rt.override_limits;
	st->drop_threshold = rt.drop_threshold;
	st->rescan_unknown = true;
	st->total = rt.total;
	memcpy(st->levels, rt.levels, sizeof(st->levels));
	return 0;
}
