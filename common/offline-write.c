// SPDX-License-Identifier: GPL-2.0-only
/*
 * Write side of the offline backend.
 *
 * Before any write every name of the image's storage is claimed
 * (common/storage.c: the file and its loop devices, a device and its
 * partitions; flock() or O_EXCL, which also keeps the kernel from mounting
 * them), so a second volctl or a mount is refused naming the holder, and
 * the claim is checked again just before each commit's superblocks are
 * written (a loop device attached and mounted meanwhile).  Test builds
 * (configure --enable-fault-injection) put the members behind the wrappers of
 * common/test-io.c (VOLCTL_WRITE_LOG=FILE records every write and flush) and
 * read VOLCTL_FAIL_AFTER_WRITES=N: a fault-injecting device (kernel-shared/io-fault.c) that
 * fails every device write after the Nth (N >= 1; 0 or unset: no faults).
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/fs.h>
#include "common/backend.h"
#include "common/offline-write.h"
#include "common/storage.h"
#include "kernel-shared/fs.h"
#include "kernel-shared/io.h"
#include "kernel-shared/super.h"

/*
 * The refusals of one member: given twice, any name of its storage taken,
 * read-only.  @claimed: its storage, claimed by the caller (taken over).
 */
static int member_open(struct vc_writer *w, const char *path, struct vc_storage *claimed,
		       char *err, size_t errlen)
{
	struct vc_writer_member *m = &w->members[w->nr_members];
	struct stat st;
	int ret;

	if (w->nr_members == VC_WRITER_MAX_DEVS) {
		vc_storage_close(claimed);
		snprintf(err, errlen, "%s: too many devices", path);
		return -E2BIG;
	}
	if (!claimed && stat(path, &st) == 0) {
		for (size_t i = 0; i < w->nr_members; i++) {
			struct stat ost;

			if (fstat(w->members[i].fd, &ost) == 0 && ost.st_dev == st.st_dev &&
			    ost.st_ino == st.st_ino) {
				snprintf(err, errlen, "%s: same file as %s, given twice", path,
					 w->members[i].dev->name);
				return -EINVAL;
			}
		}
	}
	m->fd = -1;
	m->storage = claimed;
	if (!claimed) {
		ret = vc_storage_open(path, O_RDWR, &m->storage, err, errlen);
		if (ret < 0)
			return ret;
	}
	m->fd = vc_storage_fd(m->storage);
	w->nr_members++;
	/* a read-only block device opens O_RDWR and fails only at the first write */
	if (fstat(m->fd, &st) == 0 && S_ISBLK(st.st_mode)) {
		int ro = 0;

		if (ioctl(m->fd, BLKROGET, &ro) == 0 && ro) {
			snprintf(err, errlen, "%s: read-only, cannot write", path);
			return -EROFS;
		}
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

/* Before a commit's superblocks: no name of any member taken since the open */
static int writer_guard(void *priv, char *msg)
{
	struct vc_writer *w = priv;

	for (size_t i = 0; i < w->nr_members; i++) {
		int ret = vc_storage_recheck(w->members[i].storage, msg, BTRFS_ERRMSG_SIZE);

		if (ret < 0)
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

static int writer_open(const char *const *paths, size_t nr_paths, struct vc_storage *claimed,
		       int super_mirror, struct vc_writer *w, char *err, size_t errlen)
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
		ret = member_open(w, paths[i], i ? NULL : claimed, err, errlen);
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
	w->guard.check = writer_guard;
	w->guard.priv = w;
	btrfs_fs_set_super_guard(w->fs, &w->guard);
	return 0;
fail:
	vc_writer_close(w);
	return ret;
}

int vc_writer_open_multi(const char *const *paths, size_t nr_paths, int super_mirror,
			 struct vc_writer *w, char *err, size_t errlen)
{
	return writer_open(paths, nr_paths, NULL, super_mirror, w, err, errlen);
}

int vc_writer_open(const char *path, int super_mirror, struct vc_writer *w,
		   char *err, size_t errlen)
{
	return writer_open(&path, 1, NULL, super_mirror, w, err, errlen);
}

int vc_writer_open_claimed(struct vc_storage *s, const char *path, struct vc_writer *w,
			   char *err, size_t errlen)
{
	return writer_open(&path, 1, s, BTRFS_SUPER_MIRROR_AUTO, w, err, errlen);
}

void vc_writer_close(struct vc_writer *w)
{
	if (w->fs)
		btrfs_fs_close(w->fs);
	for (size_t i = 0; i < w->nr_members; i++) {
		struct vc_writer_member *m = &w->members[i];

		btrfs_io_close(m->dev);
		btrfs_io_close(m->inner);
		vc_storage_close(m->storage);	/* closes m->fd */
	}
	vc_test_io_release(&w->test_io);
	memset(w, 0, sizeof(*w));
}
