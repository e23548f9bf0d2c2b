// SPDX-License-Identifier: GPL-2.0-only
/*
 * The online backend's accounting source: a read-only snapshot of a mounted
 * filesystem, read from its own devices with the offline reader.
 *
 * The tree search ioctl gives items, not tree blocks, and the accounting
 * engine needs the blocks (their bytenr and who points at them).  So the
 * filesystem is committed (BTRFS_IOC_SYNC), its devices are found with
 * BTRFS_IOC_FS_INFO and BTRFS_IOC_DEV_INFO, and the devices are opened
 * read-only with the image handle (common/image/image.h, VC_IMAGE_READ_LIVE: no
 * mount check, they are mounted; O_DIRECT reads, kernel-shared/io-direct.c:
 * the kernel writes tree blocks around the page cache, so cached pages of
 * the block device can be older than the disk).  The page cache of each
 * device is dropped first too, for a device that refuses O_DIRECT.
 * Nothing is ever written.
 *
 * This is a snapshot of a live filesystem: a transaction committed while we
 * read can free and rewrite a block we are about to read; the reader then
 * finds a bad checksum, a wrong bytenr or generation.  The caller retries
 * once (common/backend/acct-run.c) and says so when it fails again.
 *
 * Messages name no path: every caller prints them after the path it was
 * given ("PATH: computed numbers read the filesystem's devices: ...").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/btrfs.h>
#include "common/image/image.h"
#include "common/backend/online-internal.h"

#define ONLINE_ACCT_MAX_DEVS	VC_IMAGE_MAX_DEVS

/* The reader and the device paths it names in its messages */
struct online_acct {
	struct vc_image img;
	char *paths[ONLINE_ACCT_MAX_DEVS];
	int nr;
};

static void online_acct_free(struct online_acct *oa)
{
	if (!oa)
		return;
	vc_image_close(&oa->img);
	for (int i = 0; i < oa->nr; i++)
		free(oa->paths[i]);
	free(oa);
}

/* Drop clean cached pages of @path: the kernel's writes bypass them. */
static void drop_cache(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	fdatasync(fd);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
}

static int find_devices(struct vc_fs *fs, char **paths, int *nr)
{
	struct btrfs_ioctl_fs_info_args fi;
	int ret;

	memset(&fi, 0, sizeof(fi));
	ret = online_ioctl(fs, BTRFS_IOC_FS_INFO, &fi);
	if (ret) {
		vc_fs_set_error(fs, "cannot list the devices: %s", strerror(-ret));
		return ret;
	}
	*nr = 0;
	for (u64 devid = 0; devid <= fi.max_id; devid++) {
		struct btrfs_ioctl_dev_info_args di;

		memset(&di, 0, sizeof(di));
		di.devid = devid;
		ret = online_ioctl(fs, BTRFS_IOC_DEV_INFO, &di);
		if (ret == -ENODEV)
			continue;
		if (ret) {
			vc_fs_set_error(fs, "device %llu: %s", (unsigned long long)devid,
					strerror(-ret));
			return ret;
		}
		if (*nr >= ONLINE_ACCT_MAX_DEVS) {
			vc_fs_set_error(fs, "more than %d devices", ONLINE_ACCT_MAX_DEVS);
			return -E2BIG;
		}
		paths[*nr] = strndup((const char *)di.path, sizeof(di.path));
		if (!paths[*nr])
			return -ENOMEM;
		(*nr)++;
	}
	if (!*nr) {
		vc_fs_set_error(fs, "the kernel names no device");
		return -ENODEV;
	}
	return 0;
}

int online_devices_open(struct vc_fs *fs, const char *what, struct vc_acct_src *src)
{
	struct online_acct *oa;
	int ret;

	memset(src, 0, sizeof(*src));
	oa = calloc(1, sizeof(*oa));
	if (!oa)
		return -ENOMEM;
	ret = online_ioctl(fs, BTRFS_IOC_SYNC, NULL);
	if (ret) {
		vc_fs_set_error(fs, "cannot commit the filesystem: %s", strerror(-ret));
		goto fail;
	}
	ret = find_devices(fs, oa->paths, &oa->nr);
	if (ret)
		goto fail;
	for (int i = 0; i < oa->nr; i++)
		drop_cache(oa->paths[i]);
	ret = vc_image_open(&oa->img, &(struct vc_image_args){
		.paths = (const char *const *)oa->paths, .nr_paths = oa->nr, .mirror = BTRFS_SUPER_PRIMARY,
		.mode = VC_IMAGE_READ_LIVE });
	if (ret) {
		if (what)
			vc_fs_set_error(fs, "%s read the filesystem's devices: %s", what,
					oa->img.err);
		else
			vc_fs_set_error(fs, "%s", oa->img.err);
		goto fail;
	}
	src->bfs = oa->img.bfs;
	src->live = true;
	src->priv = oa;
	return 0;
fail:
	online_acct_free(oa);
	return ret;
}

int online_acct_open(struct vc_fs *fs, struct vc_acct_src *src)
{
	return online_devices_open(fs, "computed numbers", src);
}

void online_acct_close(struct vc_fs *fs, struct vc_acct_src *src)
{
	online_acct_free(src->priv);
	memset(src, 0, sizeof(*src));
}
