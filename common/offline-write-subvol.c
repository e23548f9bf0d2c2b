// SPDX-License-Identifier: GPL-2.0-only
/*
 * Offline subvolume writes beyond `create` (see offline-write-subvol.h):
 * path resolution on the image, then one transaction of kernel-shared/.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "common/backend.h"
#include "common/offline-write-subvol.h"
#include "common/offline-write.h"
#include "kernel-shared/fs.h"
#include "kernel-shared/transaction.h"
#include "kernel-shared/subvol-create.h"
#include "kernel-shared/snapshot.h"
#include "kernel-shared/subvol-delete.h"

/* Length of @path without trailing slashes (but "/" stays) */
static size_t trimmed_len(const char *path)
{
	size_t len = strlen(path);

	while (len > 1 && path[len - 1] == '/')
		len--;
	return len;
}

int vc_offline_snapshot(struct btrfs_fs *fs, const char *src, const char *dst, bool readonly,
			const struct vc_inherit *inh, char *err, size_t errlen)
{
	struct btrfs_subvol_create_args a = { 0 };
	struct btrfs_trans_handle *trans = NULL;
	struct timespec now;
	size_t len = trimmed_len(dst), dlen;
	u64 src_root, src_dir;
	const char *failed = dst;
	int ret;

	if (inh) {
		a.inherit = inh->qgroups;
		a.nr_inherit = inh->nr;
	}
	dlen = len;
	while (dlen > 0 && dst[dlen - 1] != '/')
		dlen--;
	a.name = dst + dlen;
	a.name_len = len - dlen;
	btrfs_fs_clear_error(fs);
	ret = btrfs_resolve_dir(fs, src, trimmed_len(src), &src_root, &src_dir);
	if (ret < 0) {
		failed = src;
		goto fail;
	}
	if (src_dir != BTRFS_FIRST_FREE_OBJECTID) {
		snprintf(err, errlen, "%s: not a subvolume", src);
		return -EINVAL;
	}
	ret = btrfs_resolve_dir(fs, dst, dlen, &a.parent_root, &a.parent_dir);
	if (ret < 0)
		goto fail;
	clock_gettime(CLOCK_REALTIME, &now);
	a.now_sec = (u64)now.tv_sec;
	a.now_nsec = (u32)now.tv_nsec;
	ret = btrfs_start_transaction(fs, &trans);
	if (ret < 0)
		goto fail;
	ret = btrfs_snapshot_create(trans, src_root, readonly, &a);
	if (ret < 0) {
		btrfs_abort_transaction(trans);
		goto fail;
	}
	ret = btrfs_commit_transaction(trans);
	if (ret < 0)
		goto fail;
	return 0;
fail:
	vc_offline_error(fs, failed, ret, err, errlen);
	return ret;
}

int vc_offline_subvol_delete(struct btrfs_fs *fs, const char *path, u64 subvolid, char *err,
			     size_t errlen)
{
	struct btrfs_trans_handle *trans = NULL;
	struct timespec now;
	const char *what = path ? path : "subvolume";
	u64 root, dir;
	int ret;

	btrfs_fs_clear_error(fs);
	if (!subvolid) {
		ret = btrfs_resolve_dir(fs, path, trimmed_len(path), &root, &dir);
		if (ret < 0)
			goto fail;
		if (dir != BTRFS_FIRST_FREE_OBJECTID) {
			snprintf(err, errlen, "%s: not a subvolume", path);
			return -EINVAL;
		}
		subvolid = root;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	ret = btrfs_start_transaction(fs, &trans);
	if (ret < 0)
		goto fail;
	/* delete is always allowed, even when it copies shared blocks of a full group */
	btrfs_trans_ignore_qgroup_limits(trans);
	ret = btrfs_subvol_delete(trans, subvolid, (u64)now.tv_sec, (u32)now.tv_nsec, NULL);
	if (ret < 0) {
		btrfs_abort_transaction(trans);
		goto fail;
	}
	ret = btrfs_commit_transaction(trans);
	if (ret < 0)
		goto fail;
	return 0;
fail:
	vc_offline_error(fs, what, ret, err, errlen);
	return ret;
}

int vc_offline_subvol_clean(struct btrfs_fs *fs, u64 subvolid, char *err, size_t errlen)
{
	struct btrfs_trans_handle *trans = NULL;
	char what[32];
	int ret;

	btrfs_fs_clear_error(fs);
	ret = btrfs_start_transaction(fs, &trans);
	if (ret < 0)
		goto fail;
	/* like delete: freeing space is never refused by a limit */
	btrfs_trans_ignore_qgroup_limits(trans);
	ret = btrfs_subvol_clean(trans, subvolid, NULL);
	if (ret) {
		/* 1: gone already, nothing to write */
		btrfs_abort_transaction(trans);
		if (ret > 0)
			return 0;
		goto fail;
	}
	ret = btrfs_commit_transaction(trans);
	if (ret < 0)
		goto fail;
	return 0;
fail:
	snprintf(what, sizeof(what), "subvolume %llu", (unsigned long long)subvolid);
	vc_offline_error(fs, what, ret, err, errlen);
	return ret;
}
