/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Offline set-default, quota and qgroup writes: each op is one transaction
 * on an image opened for writing with the image handle (common/image.h).
 */
#ifndef VOLCTL_COMMON_OFFLINE_WRITE_QGROUP_H
#define VOLCTL_COMMON_OFFLINE_WRITE_QGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include "common/backend.h"
#include "kernel-shared/format.h"

struct btrfs_fs;

/* What the op changes; arguments as in struct vc_backend_ops */
enum vc_qwrite_op {
	VC_QW_SET_DEFAULT,
	VC_QW_QUOTA_CTL,
	VC_QW_RESCAN,
	VC_QW_QGROUP_CREATE,
	VC_QW_QGROUP_DESTROY,
	VC_QW_QGROUP_ASSIGN,
	VC_QW_QGROUP_REMOVE,
	VC_QW_QGROUP_LIMIT,
};

struct vc_qwrite_args {
	enum vc_qwrite_op op;
	u64 id;				/* subvolume or qgroup */
	u64 parent;			/* assign/remove: the parent qgroup */
	enum vc_quota_mode mode;	/* quota_ctl */
	u64 flags, max_rfer, max_excl;	/* limit */
};

/**
 * vc_offline_qgroup_write - run one op in its own transaction on @fs
 * @image:	image name, for messages
 * Return: 0 or a negative errno with @err set (-EOPNOTSUPP: not implemented
 * offline yet).
 */
int vc_offline_qgroup_write(struct btrfs_fs *fs, const char *image,
			    const struct vc_qwrite_args *a, char *err, size_t errlen);

/** vc_offline_quota_enabled - 0 when the image has a quota tree, else -ENOTCONN with @err */
int vc_offline_quota_enabled(struct btrfs_fs *fs, const char *image, char *err, size_t errlen);

struct btrfs_qgroup_repair_result;

/**
 * vc_offline_repair_qgroups - check --repair-qgroups: every qgroup gets the
 * engine's numbers, INCONSISTENT and RESCAN are cleared, in one transaction
 * @res:	what was found and written (free res->fixes)
 * @written:	false when nothing differed and no flag was set: nothing is
 *		written then (the transaction is dropped)
 * Return: 0 or <0 with @err.
 */
int vc_offline_repair_qgroups(struct btrfs_fs *fs, const char *image,
			      struct btrfs_qgroup_repair_result *res, bool *written, char *err,
			      size_t errlen);

#endif /* VOLCTL_COMMON_OFFLINE_WRITE_QGROUP_H */
