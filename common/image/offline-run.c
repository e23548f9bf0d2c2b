// SPDX-License-Identifier: GPL-2.0-only
/*
 * How an offline write runs and how its failure reads (see offline-run.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "common/image/offline-run.h"

/* strerror() starts with a capital letter; messages here are lowercase */
const char *vc_offline_errno_text(int err)
{
	switch (err) {
	case -EEXIST:
		return "file exists";
	case -ENOENT:
		return "no such file or directory";
	case -ENOTDIR:
		return "not a directory";
	case -ENOSPC:
		return "no space left on device";
	case -EOPNOTSUPP:
		return "not implemented offline yet";
	case -EIO:
		return "input/output error";
	case -EROFS:
		return "read-only subvolume";
	case -EINVAL:
		return "invalid argument";
	case -ENOTEMPTY:
		return "contains other subvolumes";
	case -EPERM:
		return "operation not permitted";
	default:
		return strerror(-err);
	}
}

void vc_write_err_format(const struct vc_write_err *e, char *err, size_t errlen)
{
	bool on_image = e->kind == VC_WRITE_IMAGE;

	if (on_image && e->err == -ENOTCONN)
		snprintf(err, errlen, "%s: quota is not enabled (run 'volctl --image %s quota "
			 "enable /')", e->object, e->object);
	else if (e->cause[0] && (e->cause_object != BTRFS_ERR_OBJ_NONE || !on_image))
		snprintf(err, errlen, "%s", e->cause);
	else if (e->cause[0])
		snprintf(err, errlen, "%s: %s", e->object, e->cause);
	else
		snprintf(err, errlen, "%s: %s", e->object,
			 on_image ? strerror(-e->err) : vc_offline_errno_text(e->err));
}

void vc_offline_error(struct btrfs_fs *fs, enum vc_write_object kind, const char *object,
		      int ret, char *err, size_t errlen)
{
	struct vc_write_err e = {
		.kind = kind,
		.object = object,
		.err = ret,
		.cause_object = btrfs_fs_error_object(fs),
		.cause = btrfs_fs_error(fs),
	};

	vc_write_err_format(&e, err, errlen);
}

int vc_offline_run(struct btrfs_fs *fs, enum vc_write_object kind, const char *object,
		   unsigned int flags, btrfs_trans_op_fn op, void *arg, char *err, size_t errlen)
{
	int ret = btrfs_run_transaction(fs, flags, op, arg);

	if (ret < 0)
		vc_offline_error(fs, kind, object, ret, err, errlen);
	return ret;
}
