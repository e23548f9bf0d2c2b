// SPDX-License-Identifier: GPL-2.0-only
/*
 * Write side of the offline backend.
 *
 * Before any write: the image must not be mounted (libmount's table,
 * matched by device number for block devices, and through every loop
 * device whose backing file is the image), block devices are opened
 * O_EXCL (the kernel refuses it while mounted), and an exclusive flock()
 * keeps a second volctl out.  Test builds (configure
 * --enable-fault-injection) put the members behind the wrappers of
 * common/test-io.c: VOLCTL_FAIL_AFTER_WRITES=N fails every device write
 * after the Nth (N >= 1; 0 or unset: no faults), VOLCTL_WRITE_LOG=FILE
 * records every write and flush.
 *
 * A multi-device filesystem is opened member by member with the same
 * refusals for each, all before the filesystem is read, so a refusal of
 * any member leaves every member untouched; the writable btrfs_fs_open()
 * then refuses a missing, stale or foreign member (kernel-shared/members.c).
 * The fault count runs over the writes of all members together.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <libmount.h>
#include <linux/fs.h>
#include "common/backend.h"
#include "common/offline-write.h"
#include "kernel-shared/fs.h"
#include "kernel-shared/io.h"
#include "kernel-shared/super.h"
#include "kernel-shared/transaction.h"
#include "kernel-shared/subvol-create.h"
#include "kernel-shared/dir-create.h"

/* Block device numbers (and names, "loopN") of loop devices backed by the file @st */
static size_t loop_devices_of(const struct stat *st, dev_t *out, char (*names)[32], size_t max)
{
	glob_t g;
	size_t n = 0;

	if (glob("/sys/block/loop*/loop/backing_file", 0, NULL, &g) != 0)
		return 0;
	for (size_t i = 0; i < g.gl_pathc && n < max; i++) {
		char backing[4096], devpath[4096];
		struct stat bst;
		unsigned int maj, min;
		FILE *f = fopen(g.gl_pathv[i], "r");
		char *nl;

		if (!f)
			continue;
		if (!fgets(backing, sizeof(backing), f)) {
			fclose(f);
			continue;
		}
		fclose(f);
		nl = strchr(backing, '\n');
		if (nl)
			*nl = '\0';
		if (stat(backing, &bst) || bst.st_dev != st->st_dev || bst.st_ino != st->st_ino)
			continue;
		/* /sys/block/loopN/loop/backing_file -> /sys/block/loopN/dev */
		snprintf(devpath, sizeof(devpath), "%s", g.gl_pathv[i]);
		*strrchr(devpath, '/') = '\0';
		*strrchr(devpath, '/') = '\0';
		strncat(devpath, "/dev", sizeof(devpath) - strlen(devpath) - 1);
		f = fopen(devpath, "r");
		if (!f)
			continue;
		if (fscanf(f, "%u:%u", &maj, &min) == 2) {
			/* /sys/block/loopN/dev -> loopN */
			*strrchr(devpath, '/') = '\0';
			snprintf(names[n], sizeof(names[n]), "%s", strrchr(devpath, '/') + 1);
			out[n++] = makedev(maj, min);
		}
		fclose(f);
	}
	globfree(&g);
	return n;
}

int vc_image_check_unmounted(const char *path, char *err, size_t errlen)
{
	struct libmnt_table *tb;
	struct libmnt_iter *itr;
	struct libmnt_fs *mfs;
	struct stat st;
	dev_t devs[64];
	char names[64][32];
	size_t nr = 0;
	int ret = 0;

	if (stat(path, &st) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (S_ISBLK(st.st_mode))
		devs[nr++] = st.st_rdev;
	else if (S_ISREG(st.st_mode))
		nr = loop_devices_of(&st, devs, names, 64);
	if (!nr)
		return 0;
	tb = mnt_new_table_from_file("/proc/self/mountinfo");
	if (!tb) {
		snprintf(err, errlen, "%s: cannot read the mount table", path);
		return -EIO;
	}
	itr = mnt_new_iter(MNT_ITER_FORWARD);
	while (itr && mnt_table_next_fs(tb, itr, &mfs) == 0) {
		/* btrfs reports an anonymous st_dev: match the source device */
		const char *src = mnt_fs_get_srcpath(mfs);
		struct stat sst;

		if (!src || src[0] != '/' || stat(src, &sst) < 0 || !S_ISBLK(sst.st_mode))
			continue;
		for (size_t i = 0; i < nr; i++) {
			if (sst.st_rdev == devs[i]) {
				snprintf(err, errlen, "%s: image is mounted on %s", path,
					 mnt_fs_get_target(mfs) ?: "?");
				ret = -EBUSY;
				goto out;
			}
		}
	}
out:
	mnt_free_iter(itr);
	mnt_unref_table(tb);
	/*
	 * A member of a mounted multi-device filesystem is not in the mount
	 * table (only one device is), but the kernel holds its loop device
	 * exclusively: O_EXCL says so.
	 */
	for (size_t i = 0; !ret && S_ISREG(st.st_mode) && i < nr; i++) {
		char dev[64];
		int fd;

		snprintf(dev, sizeof(dev), "/dev/%.31s", names[i]);
		fd = open(dev, O_RDONLY | O_EXCL | O_CLOEXEC);
		if (fd >= 0) {
			close(fd);
			continue;
		}
		if (errno == EBUSY) {
			snprintf(err, errlen, "%s: image is mounted or in use through loop device %s",
				 path, dev);
			ret = -EBUSY;
		}
	}
	return ret;
}

/* The refusals of one member: mounted, O_EXCL busy, locked, read-only */
static int member_open(struct vc_writer *w, const char *path, char *err, size_t errlen)
{
	struct vc_writer_member *m = &w->members[w->nr_members];
	struct stat st;
	int flags = O_RDWR | O_CLOEXEC;
	int ret;

	if (w->nr_members == VC_WRITER_MAX_DEVS) {
		snprintf(err, errlen, "%s: too many devices", path);
		return -E2BIG;
	}
	ret = vc_image_check_unmounted(path, err, errlen);
	if (ret < 0)
		return ret;
	if (stat(path, &st) == 0) {
		for (size_t i = 0; i < w->nr_members; i++) {
			struct stat ost;

			if (fstat(w->members[i].fd, &ost) == 0 && ost.st_dev == st.st_dev &&
			    ost.st_ino == st.st_ino) {
				snprintf(err, errlen, "%s: same file as %s, given twice", path,
					 w->members[i].dev->name);
				return -EINVAL;
			}
		}
		if (S_ISBLK(st.st_mode))
			flags |= O_EXCL;
	}
	m->fd = open(path, flags);
	if (m->fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path,
			 ret == -EBUSY ? "device is busy (mounted?)" :
			 ret == -EROFS || ret == -EACCES ? "read-only, cannot write" :
			 vc_offline_errno_text(ret));
		return ret;
	}
	w->nr_members++;
	/* a read-only block device opens O_RDWR and fails only at the first write */
	if (flags & O_EXCL) {
		int ro = 0;

		if (ioctl(m->fd, BLKROGET, &ro) == 0 && ro) {
			snprintf(err, errlen, "%s: read-only, cannot write", path);
			return -EROFS;
		}
	}
	if (flock(m->fd, LOCK_EX | LOCK_NB) < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, ret == -EWOULDBLOCK ?
			 "image is in use by another volctl" : strerror(-ret));
		return ret;
	}
	ret = btrfs_io_open_fd(m->fd, path, true, &m->dev);
	if (ret < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	ret = vc_test_io_wrap(&w->test_io, &m->dev, &m->inner);
	if (ret < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	return 0;
}

/* Whether @msg starts with the name of a member ("b.img: device 2 is stale") */
static bool names_member(const struct vc_writer *w, const char *msg)
{
	for (size_t i = 0; i < w->nr_members; i++) {
		const char *name = w->members[i].dev->name;
		size_t len = strlen(name);

		if (!strncmp(msg, name, len) && msg[len] == ':')
			return true;
	}
	return false;
}

int vc_writer_open_multi(const char *const *paths, size_t nr_paths, int super_mirror,
			 struct vc_writer *w, char *err, size_t errlen)
{
	char msg[BTRFS_ERRMSG_SIZE] = "";
	struct btrfs_io_dev *devs[VC_WRITER_MAX_DEVS];
	struct btrfs_open_args args = { 0 };
	int ret;

	memset(w, 0, sizeof(*w));
	if (!nr_paths) {
		snprintf(err, errlen, "no image given");
		return -EINVAL;
	}
	/* every member passes its refusals before the filesystem is even read */
	for (size_t i = 0; i < nr_paths; i++) {
		ret = member_open(w, paths[i], err, errlen);
		if (ret < 0)
			goto fail;
		devs[i] = w->members[i].dev;
	}
	args.devs = devs;
	args.nr_devs = w->nr_members;
	args.super_mirror = super_mirror;
	args.writable = true;
	args.errmsg = msg;
	ret = btrfs_fs_open(&w->fs, &args);
	if (ret < 0) {
		/* member messages name their device; others are about the filesystem */
		if (names_member(w, msg))
			snprintf(err, errlen, "%s", msg);
		else
			snprintf(err, errlen, "%s: %s", paths[0], msg[0] ? msg : strerror(-ret));
		goto fail;
	}
	return 0;
fail:
	vc_writer_close(w);
	return ret;
}

int vc_writer_open(const char *path, int super_mirror, struct vc_writer *w,
		   char *err, size_t errlen)
{
	return vc_writer_open_multi(&path, 1, super_mirror, w, err, errlen);
}

void vc_writer_close(struct vc_writer *w)
{
	if (w->fs)
		btrfs_fs_close(w->fs);
	for (size_t i = 0; i < w->nr_members; i++) {
		struct vc_writer_member *m = &w->members[i];

		btrfs_io_close(m->dev);
		btrfs_io_close(m->inner);
		if (m->fd >= 0)
			close(m->fd);
	}
	vc_test_io_release(&w->test_io);
	memset(w, 0, sizeof(*w));
}

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
