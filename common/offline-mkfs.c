// SPDX-License-Identifier: GPL-2.0-only
/*
 * `volctl mkfs` (see offline-mkfs.h).
 *
 * The target must not be mounted (common/offline-write.c's check); a
 * block device is opened O_EXCL, a file is created or grown to -s SIZE.
 * An existing btrfs is overwritten only with --force, like mkfs.btrfs.
 * kernel-shared/mkfs.c writes the base image; then each --subvol is one
 * offline transaction on the committed image, and --default-subvol a last
 * one that points the root directory's "default" entry at it.  Test
 * builds honour VOLCTL_FAIL_AFTER_WRITES and VOLCTL_WRITE_LOG
 * (common/test-io.h) for the base image too.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include "common/offline-mkfs.h"
#include "common/offline-write.h"
#include "kernel-shared/default-subvol.h"
#include "kernel-shared/errmsg.h"
#include "kernel-shared/fs.h"
#include "kernel-shared/io.h"
#include "kernel-shared/mkfs.h"
#include "kernel-shared/super.h"
#include "kernel-shared/subvol-create.h"
#include "kernel-shared/transaction.h"

static int open_target(const struct vc_mkfs_opts *o, int *fdp, char *err, size_t errlen)
{
	struct stat st;
	int flags = O_RDWR | O_CLOEXEC;
	int fd, ret;

	if (stat(o->path, &st) < 0) {
		if (errno != ENOENT || !o->size) {
			ret = -errno;
			if (ret == -ENOENT)
				snprintf(err, errlen, "%s: no such file (give -s SIZE to create it)",
					 o->path);
			else
				snprintf(err, errlen, "%s: %s", o->path, strerror(errno));
			return ret;
		}
		flags |= O_CREAT | O_EXCL;
	} else if (S_ISBLK(st.st_mode)) {
		flags |= O_EXCL;
	} else if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file or block device", o->path);
		return -EINVAL;
	}
	if (!(flags & O_CREAT)) {
		ret = vc_image_check_unmounted(o->path, err, errlen);
		if (ret < 0)
			return ret;
	}
	fd = open(o->path, flags, 0644);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", o->path,
			 ret == -EBUSY ? "device is busy (mounted?)" : strerror(-ret));
		return ret;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", o->path, ret == -EWOULDBLOCK ?
			 "image is in use by another volctl" : strerror(-ret));
		close(fd);
		return ret;
	}
	if (o->size && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (u64)st.st_size < o->size && ftruncate(fd, (off_t)o->size) < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: cannot grow to %llu bytes: %s", o->path,
			 (unsigned long long)o->size, strerror(errno));
		close(fd);
		return ret;
	}
	*fdp = fd;
	return 0;
}

static int write_base(const struct vc_mkfs_opts *o, char *err, size_t errlen)
{
	char msg[BTRFS_ERRMSG_SIZE] = "";
	struct btrfs_super_block sb;
	struct btrfs_mkfs_args a = { 0 };
	struct btrfs_io_dev *dev = NULL, *inner = NULL;
	struct vc_test_io test_io = { 0 };
	int fd = -1, ret;

	ret = open_target(o, &fd, err, errlen);
	if (ret < 0)
		return ret;
	ret = btrfs_io_open_fd(fd, o->path, true, &dev);
	if (ret < 0) {
		snprintf(err, errlen, "%s: %s", o->path, strerror(-ret));
		goto out;
	}
	if (!o->force && btrfs_super_read(dev, BTRFS_SUPER_MIRROR_AUTO, &sb, NULL, msg) == 0) {
		snprintf(err, errlen, "%s: contains a btrfs filesystem (use --force to overwrite)",
			 o->path);
		ret = -EEXIST;
		goto out;
	}
	msg[0] = '\0';
	ret = vc_test_io_wrap(&test_io, &dev, &inner);
	if (ret < 0) {
		snprintf(err, errlen, "%s: %s", o->path, strerror(-ret));
		goto out;
	}
	a.dev = dev;
	a.size = o->size;
	a.nodesize = o->nodesize;
	a.csum_type = o->csum_type;
	a.label = o->label;
	a.fsid = o->fsid;
	a.quota = o->quota || o->simple_quota;
	a.simple_quota = o->simple_quota;
	a.now_sec = (u64)time(NULL);
	a.errmsg = msg;
	ret = btrfs_mkfs(&a);
	if (ret < 0)
		snprintf(err, errlen, "%s: %s", o->path, msg[0] ? msg : strerror(-ret));
out:
	btrfs_io_close(dev);
	btrfs_io_close(inner);
	vc_test_io_release(&test_io);
	if (fd >= 0)
		close(fd);
	return ret;
}

/* Make @path's subvolume the default (kernel-shared/default-subvol.c) */
static int set_default(struct btrfs_fs *fs, const char *path)
{
	struct btrfs_trans_handle *trans;
	u64 id, dir;
	int ret;

	ret = btrfs_resolve_dir(fs, path, strlen(path), &id, &dir);
	if (ret < 0)
		return ret;
	if (dir != BTRFS_FIRST_FREE_OBJECTID) {
		btrfs_fs_set_error(fs, "%s: not a subvolume", path);
		return -EINVAL;
	}
	ret = btrfs_start_transaction(fs, &trans);
	if (ret < 0)
		return ret;
	ret = btrfs_set_default_subvol(trans, id);
	if (ret < 0) {
		btrfs_abort_transaction(trans);
		return ret;
	}
	return btrfs_commit_transaction(trans);
}

int vc_mkfs(const struct vc_mkfs_opts *o, char *err, size_t errlen)
{
	struct vc_writer w;
	int ret;

	ret = write_base(o, err, errlen);
	if (ret < 0 || (!o->nr_subvols && !o->default_subvol))
		return ret;
	ret = vc_writer_open(o->path, BTRFS_SUPER_MIRROR_AUTO, &w, err, errlen);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < o->nr_subvols && !ret; i++)
		ret = vc_offline_subvol_create(w.fs, o->subvols[i], false, NULL, err, errlen);
	if (!ret && o->default_subvol) {
		btrfs_fs_clear_error(w.fs);
		ret = set_default(w.fs, o->default_subvol);
		if (ret < 0)
			snprintf(err, errlen, "%s", btrfs_fs_error(w.fs)[0] ? btrfs_fs_error(w.fs) :
				 strerror(-ret));
	}
	vc_writer_close(&w);
	return ret;
}
