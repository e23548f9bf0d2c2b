// SPDX-License-Identifier: GPL-2.0-only
/*
 * Offline set-default, quota and qgroup writes (see offline-write-qgroup.h).
 *
 * Each op is one transaction: start, the kernel-shared change
 * (default-subvol.c, qgroup-write.c), commit.  Any error before the commit
 * aborts and leaves the image untouched; the incompat flags the op set in
 * the in-memory superblock are put back.  Messages name the object first,
 * as the online backend's do for the same mistakes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "common/offline-write-qgroup.h"
#include "kernel-shared/fs.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/transaction.h"
#include "kernel-shared/default-subvol.h"
#include "kernel-shared/qgroup-write.h"
#include "kernel-shared/qgroup-recompute.h"

static int run_op(struct btrfs_trans_handle *trans, const struct vc_qwrite_args *a)
{
	switch (a->op) {
	case VC_QW_SET_DEFAULT:
		return btrfs_set_default_subvol(trans, a->id);
	case VC_QW_QUOTA_CTL:
		if (a->mode == VC_QUOTA_DISABLE)
			return btrfs_quota_disable(trans);
		return btrfs_quota_enable(trans, a->mode == VC_QUOTA_ENABLE_SIMPLE);
	case VC_QW_RESCAN:
		return btrfs_quota_rescan(trans);
	case VC_QW_QGROUP_CREATE:
		return btrfs_qgroup_create(trans, a->id);
	case VC_QW_QGROUP_DESTROY:
		return btrfs_qgroup_destroy(trans, a->id);
	case VC_QW_QGROUP_ASSIGN:
	case VC_QW_QGROUP_REMOVE:
		return btrfs_qgroup_relation(trans, a->id, a->parent, a->op == VC_QW_QGROUP_ASSIGN);
	case VC_QW_QGROUP_LIMIT:
		return btrfs_qgroup_limit(trans, a->id, a->flags, a->max_rfer, a->max_excl);
	}
	return -EOPNOTSUPP;
}

/* Messages about a named object stand alone; the rest get the image name */
static bool names_object(const char *msg)
{
	static const char *const heads[] = { "qgroup ", "subvolume ", "cannot ", NULL };

	for (int i = 0; heads[i]; i++)
		if (!strncmp(msg, heads[i], strlen(heads[i])))
			return true;
	return false;
}

static void set_err(struct btrfs_fs *fs, const char *image, int ret, char *err, size_t errlen)
{
	const char *msg = btrfs_fs_error(fs);

	if (ret == -ENOTCONN)
		snprintf(err, errlen, "%s: quota is not enabled (run 'volctl --image %s quota "
			 "enable /')", image, image);
	else if (msg && msg[0] && names_object(msg))
		snprintf(err, errlen, "%s", msg);
	else if (msg && msg[0])
		snprintf(err, errlen, "%s: %s", image, msg);
	else
		snprintf(err, errlen, "%s: %s", image, strerror(-ret));
}

int vc_offline_qgroup_write(struct btrfs_fs *fs, const char *image,
			    const struct vc_qwrite_args *a, char *err, size_t errlen)
{
	u64 incompat = btrfs_super_incompat_flags(&fs->super);
	struct btrfs_trans_handle *trans;
	int ret;

	btrfs_fs_clear_error(fs);
	if (a->op == VC_QW_QUOTA_CTL && a->mode != VC_QUOTA_ENABLE_SIMPLE) {
		/* already in the asked state: no transaction, as the kernel */
		struct btrfs_root *root;
		bool on = btrfs_read_root(fs, BTRFS_QUOTA_TREE_OBJECTID, &root) == 0;

		if (on == (a->mode != VC_QUOTA_DISABLE))
			return 0;
	}
	ret = btrfs_start_transaction(fs, &trans);
	if (ret == 0) {
		ret = run_op(trans, a);
		if (ret < 0)
			btrfs_abort_transaction(trans);
		else
			ret = btrfs_commit_transaction(trans);
	}
	if (ret < 0) {
		btrfs_set_super_incompat_flags(&fs->super, incompat);
		set_err(fs, image, ret, err, errlen);
	}
	return ret < 0 ? ret : 0;
}

int vc_offline_quota_enabled(struct btrfs_fs *fs, const char *image, char *err, size_t errlen)
{
	struct btrfs_root *root;
	int ret = btrfs_read_root(fs, BTRFS_QUOTA_TREE_OBJECTID, &root);

	if (ret == -ENOENT)
		ret = -ENOTCONN;
	if (ret < 0)
		set_err(fs, image, ret, err, errlen);
	return ret;
}

int vc_offline_repair_qgroups(struct btrfs_fs *fs, const char *image,
			      struct btrfs_qgroup_repair_result *res, bool *written, char *err,
			      size_t errlen)
{
	struct btrfs_trans_handle *trans;
	int ret;

	*written = false;
	btrfs_fs_clear_error(fs);
	ret = vc_offline_quota_enabled(fs, image, err, errlen);
	if (ret < 0)
		return ret;
	ret = btrfs_start_transaction(fs, &trans);
	if (ret < 0) {
		set_err(fs, image, ret, err, errlen);
		return ret;
	}
	ret = btrfs_qgroup_repair(trans, res);
	if (ret < 0) {
		btrfs_abort_transaction(trans);
	} else if (!res->nr_fixes && !(res->old_flags & (BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT |
							  BTRFS_QGROUP_STATUS_FLAG_RESCAN))) {
		/* nothing to repair: the image stays as it is */
		btrfs_abort_transaction(trans);
	} else {
		ret = btrfs_commit_transaction(trans);
		*written = ret == 0;
	}
	if (ret < 0)
		set_err(fs, image, ret, err, errlen);
	return ret;
}
