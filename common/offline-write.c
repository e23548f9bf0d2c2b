// SPDX-License-Identifier: GPL-2.0-only
/*
 * Write side of the offline backend: the write operations built on
 * kernel-shared/transaction.h, on a filesystem the image handle opened for
 * writing (common/image.h: every name of every member claimed, the claims
 * checked again before each commit's superblocks).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "common/backend.h"
#include "common/offline-write.h"
#include "kernel-shared/fs.h"
#include "kernel-shared/transaction.h"
#include "kernel-shared/subvol-create.h"
#include "kernel-shared/dir-create.h"

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

/* Split @path into its parent directory (resolved unless @resolve is false) and name; fill @a */
static int create_args(struct btrfs_fs *fs, const char *path, const struct vc_inherit *inh,
		       const struct timespec *now, bool resolve, size_t *dlenp,
		       struct btrfs_subvol_create_args *a)
{
	size_t len = strlen(path), dlen;

	memset(a, 0, sizeof(*a));
	if (inh) {
		a->inherit = inh->qgroups;
		a->nr_inherit = inh->nr;
	}
	while (len > 1 && path[len - 1] == '/')
		len--;
	dlen = len;
	while (dlen > 0 && path[dlen - 1] != '/')
		dlen--;
	a->name = path + dlen;
	a->name_len = len - dlen;
	a->now_sec = (u64)now->tv_sec;
	a->now_nsec = (u32)now->tv_nsec;
	a->uid = (u32)getuid();
	a->gid = (u32)getgid();
	*dlenp = dlen;
	return resolve ? btrfs_resolve_dir(fs, path, dlen, &a->parent_root, &a->parent_dir) : 0;
}

void vc_offline_error(struct btrfs_fs *fs, const char *path, int ret, char *err, size_t errlen)
{
	if (btrfs_fs_error(fs)[0])
		snprintf(err, errlen, "%s", btrfs_fs_error(fs));
	else
		snprintf(err, errlen, "%s: %s", path, vc_offline_errno_text(ret));
}

int vc_offline_subvol_create(struct btrfs_fs *fs, const char *path, bool parents,
			     const struct vc_inherit *inh, char *err, size_t errlen)
{
	struct btrfs_mkdir_args ma = { 0 };
	struct btrfs_subvol_create_args a;
	struct btrfs_trans_handle *trans = NULL;
	struct timespec now;
	size_t dlen;
	mode_t mask;
	int ret;

	btrfs_fs_clear_error(fs);
	clock_gettime(CLOCK_REALTIME, &now);
	ret = create_args(fs, path, inh, &now, !parents, &dlen, &a);
	if (ret < 0)
		goto fail;
	ret = btrfs_start_transaction(fs, &trans);
	if (ret < 0)
		goto fail;
	if (parents) {
		mask = umask(0);
		umask(mask);
		ma.mode = 0777 & ~(u32)mask;
		ma.uid = a.uid;
		ma.gid = a.gid;
		ma.now_sec = a.now_sec;
		ma.now_nsec = a.now_nsec;
		ret = btrfs_resolve_dir_create(trans, path, dlen, &ma, &a.parent_root,
					       &a.parent_dir);
		if (ret < 0) {
			btrfs_abort_transaction(trans);
			goto fail;
		}
	}
	ret = btrfs_subvol_create(trans, &a);
	if (ret < 0) {
		btrfs_abort_transaction(trans);
		goto fail;
	}
	ret = btrfs_commit_transaction(trans);
	if (ret < 0)
		goto fail;
	return 0;
fail:
	vc_offline_error(fs, path, ret, err, errlen);
	return ret;
}

int vc_offline_subvol_create_all(struct btrfs_fs *fs, const char *const *paths, size_t nr,
				 const struct vc_inherit *inh, char *err, size_t errlen)
{
	struct btrfs_subvol_create_args a;
	struct btrfs_trans_handle *trans = NULL;
	struct timespec now;
	size_t i = 0, dlen;
	int ret;

	btrfs_fs_clear_error(fs);
	clock_gettime(CLOCK_REALTIME, &now);
	ret = btrfs_start_transaction(fs, &trans);
	if (ret < 0)
		goto fail;
	for (i = 0; i < nr; i++) {
		if (i && trans->quota_on)
			ret = btrfs_run_pending_all(trans);
		if (!ret)
			ret = create_args(fs, paths[i], inh, &now, true, &dlen, &a);
		if (!ret)
			ret = btrfs_subvol_create(trans, &a);
		if (ret < 0) {
			btrfs_abort_transaction(trans);
			goto fail;
		}
	}
	i = 0;
	ret = btrfs_commit_transaction(trans);
	if (ret < 0)
		goto fail;
	return 0;
fail:
	vc_offline_error(fs, paths[i < nr ? i : 0], ret, err, errlen);
	return ret;
}
