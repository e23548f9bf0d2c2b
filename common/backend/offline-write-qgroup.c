// SPDX-License-Identifier: GPL-2.0-only
/*
 * Offline set-default, quota and qgroup writes (see offline-write-qgroup.h).
 *
 * Each op hands its own kernel-shared change (default-subvol.c,
 * qgroup-write.c, qgroup-recompute.c) with its typed arguments to the one
 * transaction runner (vc_offline_run(), btrfs_run_transaction()): start,
 * the change, commit (qgroup limits checked), or abort.  An abort leaves
 * the image untouched and puts back what the op changed in memory
 * (btrfs_abort_transaction()).  The
 * library's message names the subvolume or qgroup when it is about one
 * (fs->errobj); any other message gets the image name first, as the online
 * backend's do for the same mistakes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "common/image/offline-run.h"
#include "common/backend/offline-write-qgroup.h"
#include "kernel-shared/fs.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/transaction.h"
#include "kernel-shared/default-subvol.h"
#include "kernel-shared/qgroup-write.h"
#include "kernel-shared/squota.h"
#include "kernel-shared/qgroup-recompute.h"

/* One op on the image: its failure names the image unless the library names the object */
static int image_write(struct btrfs_fs *fs, const char *image, btrfs_trans_op_fn op, void *arg,
		       char *err, size_t errlen)
{
	int ret = vc_offline_run(fs, VC_WRITE_IMAGE, image, 0, op, arg, err, errlen);

	return ret < 0 ? ret : 0;
}

static int set_default_op(struct btrfs_trans_handle *trans, void *arg)
{
	return btrfs_set_default_subvol(trans, *(const u64 *)arg);
}

int vc_offline_set_default(struct btrfs_fs *fs, const char *image, u64 subvolid, char *err,
			   size_t errlen)
{
	return image_write(fs, image, set_default_op, &subvolid, err, errlen);
}

int vc_offline_set_default_path(struct btrfs_fs *fs, const char *path, u64 subvolid, char *err,
				size_t errlen)
{
	int ret = vc_offline_run(fs, VC_WRITE_PATH, path, 0, set_default_op, &subvolid, err, errlen);

	return ret < 0 ? ret : 0;
}

static int quota_ctl_op(struct btrfs_trans_handle *trans, void *arg)
{
	enum vc_quota_mode mode = *(const enum vc_quota_mode *)arg;

	if (mode == VC_QUOTA_DISABLE)
		return btrfs_quota_disable(trans);
	return btrfs_quota_enable(trans, mode == VC_QUOTA_ENABLE_SIMPLE);
}

int vc_offline_quota_ctl(struct btrfs_fs *fs, const char *image, enum vc_quota_mode mode,
			 char *err, size_t errlen)
{
	if (mode != VC_QUOTA_ENABLE_SIMPLE) {
		/* already in the asked state: no transaction, as the kernel */
		struct btrfs_root *root;
		bool on = btrfs_read_root(fs, BTRFS_QUOTA_TREE_OBJECTID, &root) == 0;

		if (on == (mode != VC_QUOTA_DISABLE)) {
			int ret = btrfs_squota_check(fs);

			if (ret < 0)
				vc_offline_error(fs, VC_WRITE_IMAGE, image, ret, err, errlen);
			return ret;
		}
	}
	return image_write(fs, image, quota_ctl_op, &mode, err, errlen);
}

static int rescan_op(struct btrfs_trans_handle *trans, void *arg)
{
	(void)arg;
	return btrfs_quota_rescan(trans);
}

int vc_offline_rescan(struct btrfs_fs *fs, const char *image, char *err, size_t errlen)
{
	return image_write(fs, image, rescan_op, NULL, err, errlen);
}

static int qgroup_create_op(struct btrfs_trans_handle *trans, void *arg)
{
	return btrfs_qgroup_create(trans, *(const u64 *)arg);
}

int vc_offline_qgroup_create(struct btrfs_fs *fs, const char *image, u64 qgroupid, char *err,
			     size_t errlen)
{
	return image_write(fs, image, qgroup_create_op, &qgroupid, err, errlen);
}

static int qgroup_destroy_op(struct btrfs_trans_handle *trans, void *arg)
{
	return btrfs_qgroup_destroy(trans, *(const u64 *)arg);
}

int vc_offline_qgroup_destroy(struct btrfs_fs *fs, const char *image, u64 qgroupid, char *err,
			      size_t errlen)
{
	return image_write(fs, image, qgroup_destroy_op, &qgroupid, err, errlen);
}

struct relation_args {
	u64 src, dst;
	bool assign;
};

static int qgroup_assign_op(struct btrfs_trans_handle *trans, void *arg)
{
	const struct relation_args *a = arg;

	return btrfs_qgroup_relation(trans, a->src, a->dst, a->assign);
}

int vc_offline_qgroup_assign(struct btrfs_fs *fs, const char *image, u64 src, u64 dst,
			     bool assign, char *err, size_t errlen)
{
	struct relation_args a = { .src = src, .dst = dst, .assign = assign };

	return image_write(fs, image, qgroup_assign_op, &a, err, errlen);
}

struct limit_args {
	u64 qgroupid, flags, max_rfer, max_excl;
};

static int qgroup_limit_op(struct btrfs_trans_handle *trans, void *arg)
{
	const struct limit_args *a = arg;

	return btrfs_qgroup_limit(trans, a->qgroupid, a->flags, a->max_rfer, a->max_excl);
}

int vc_offline_qgroup_limit(struct btrfs_fs *fs, const char *image, u64 qgroupid, u64 flags,
			    u64 max_rfer, u64 max_excl, char *err, size_t errlen)
{
	struct limit_args a = { qgroupid, flags, max_rfer, max_excl };

	return image_write(fs, image, qgroup_limit_op, &a, err, errlen);
}

int vc_offline_quota_enabled(struct btrfs_fs *fs, const char *image, char *err, size_t errlen)
{
	struct btrfs_root *root;
	int ret = btrfs_read_root(fs, BTRFS_QUOTA_TREE_OBJECTID, &root);

	if (ret == -ENOENT)
		ret = -ENOTCONN;
	if (ret < 0)
		vc_offline_error(fs, VC_WRITE_IMAGE, image, ret, err, errlen);
	return ret;
}

static int repair_op(struct btrfs_trans_handle *trans, void *arg)
{
	struct btrfs_qgroup_repair_result *res = arg;
	int ret = btrfs_qgroup_repair(trans, res);

	if (ret < 0)
		return ret;
	/* nothing to repair: the image stays as it is */
	if (!res->nr_fixes && !(res->old_flags & (BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT |
						  BTRFS_QGROUP_STATUS_FLAG_RESCAN)))
		return 1;
	return 0;
}

int vc_offline_repair_qgroups(struct btrfs_fs *fs, const char *image,
			      struct btrfs_qgroup_repair_result *res, bool *written, char *err,
			      size_t errlen)
{
	int ret;

	*written = false;
	btrfs_fs_clear_error(fs);
	ret = vc_offline_quota_enabled(fs, image, err, errlen);
	if (ret < 0)
		return ret;
	ret = vc_offline_run(fs, VC_WRITE_IMAGE, image, 0, repair_op, res, err, errlen);
	*written = ret == 0;
	return ret < 0 ? ret : 0;
}
