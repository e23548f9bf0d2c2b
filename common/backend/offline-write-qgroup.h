/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Offline set-default, quota and qgroup writes: each op is one transaction
 * (vc_offline_run()) on an image opened for writing with the image handle
 * (common/image/image.h).  Arguments as in struct vc_backend_ops; @image names the
 * image in messages.
 * Return: 0 or a negative errno with @err set.
 */
#ifndef VOLCTL_COMMON_OFFLINE_WRITE_QGROUP_H
#define VOLCTL_COMMON_OFFLINE_WRITE_QGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include "common/backend/backend.h"
#include "kernel-shared/format.h"

struct btrfs_fs;

int vc_offline_set_default(struct btrfs_fs *fs, const char *image, u64 subvolid, char *err,
			   size_t errlen);

/* The same for mkfs --default-subvol: a failure names @path, as the subvolume writes do */
int vc_offline_set_default_path(struct btrfs_fs *fs, const char *path, u64 subvolid, char *err,
				size_t errlen);

/* enable or disable; nothing is written when quotas are already in the asked state */
int vc_offline_quota_ctl(struct btrfs_fs *fs, const char *image, enum vc_quota_mode mode,
			 char *err, size_t errlen);

/* the whole rescan, to its end */
int vc_offline_rescan(struct btrfs_fs *fs, const char *image, char *err, size_t errlen);

int vc_offline_qgroup_create(struct btrfs_fs *fs, const char *image, u64 qgroupid, char *err,
			     size_t errlen);

int vc_offline_qgroup_destroy(struct btrfs_fs *fs, const char *image, u64 qgroupid, char *err,
			      size_t errlen);

/* @assign: make @src a member of @dst, else remove it */
int vc_offline_qgroup_assign(struct btrfs_fs *fs, const char *image, u64 src, u64 dst,
			     bool assign, char *err, size_t errlen);

int vc_offline_qgroup_limit(struct btrfs_fs *fs, const char *image, u64 qgroupid, u64 flags,
			    u64 max_rfer, u64 max_excl, char *err, size_t errlen);

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
