// SPDX-License-Identifier: GPL-2.0-only
/*
 * Block I/O implementations: file/block device and memory.
 *
 * The generic wrappers btrfs_io_read()/btrfs_io_write() check the range
 * against the device size before calling the op, so no implementation can
 * be asked for bytes beyond the end of the device.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "io.h"

struct file_priv {
	int fd;
	bool own_fd;
};

static int file_pread(struct btrfs_io_dev *dev, void *buf, size_t len, u64 off)
{
	struct file_priv *fp = dev->priv;
	u8 *p = buf;

	while (len) {
		ssize_t ret = pread(fp->fd, p, len, (off_t)off);

		if (ret < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (ret == 0)
			return -EIO;
		p += ret;
		len -= (size_t)ret;
		off += (u64)ret;
	}
	return 0;
}

static int file_pwrite(struct btrfs_io_dev *dev, const void *buf, size_t len, u64 off)
{
	struct file_priv *fp = dev->priv;
	const u8 *p = buf;

	while (len) {
		ssize_t ret = pwrite(fp->fd, p, len, (off_t)off);

		if (ret < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (ret == 0)
			return -EIO;
		p += ret;
		len -= (size_t)ret;
		off += (u64)ret;
	}
	return 0;
}

static int file_flush(struct btrfs_io_dev *dev)
{
	struct file_priv *fp = dev->priv;

	if (fsync(fp->fd) < 0)
		return -errno;
	return 0;
}

static void file_close(struct btrfs_io_dev *dev)
{
	struct file_priv *fp = dev->priv;

	if (fp && fp->own_fd)
		close(fp->fd);
	free(fp);
	dev->priv = NULL;
}

static int file_readahead(struct btrfs_io_dev *dev, u64 off, u64 len)
{
	struct file_priv *fp = dev->priv;

	return -posix_fadvise(fp->fd, (off_t)off, (off_t)len, POSIX_FADV_WILLNEED);
}

static const struct btrfs_io_ops file_ops = {
	.name = "file",
	.pread = file_pread,
	.pwrite = file_pwrite,
	.flush = file_flush,
	.close = file_close,
	.readahead = file_readahead,
	.pread_parallel = file_pread,	/* pread on the descriptor only */
};

static int fd_size(int fd, u64 *size, bool *blk)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	*blk = S_ISBLK(st.st_mode);
	if (*blk) {
		/* the end of a block device is its size; no ioctl needed */
		off_t end = lseek(fd, 0, SEEK_END);

		if (end < 0)
			return -errno;
		*size = (u64)end;
		return 0;
	}
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	*size = (u64)st.st_size;
	return 0;
}

static int open_fd_common(int fd, bool own, const char *name, bool writable,
			  struct btrfs_io_dev **out)
{
	struct btrfs_io_dev *dev;
	struct file_priv *fp;
	u64 size = 0;
	bool blk = false;
	int ret;

	ret = fd_size(fd, &size, &blk);
	if (ret < 0)
		return ret;
	dev = calloc(1, sizeof(*dev));
	fp = calloc(1, sizeof(*fp));
	if (!dev || !fp) {
		free(dev);
		free(fp);
		return -ENOMEM;
	}
	fp->fd = fd;
	fp->own_fd = own;
	dev->ops = &file_ops;
	dev->priv = fp;
	dev->size = size;
	dev->writable = writable;
	/* a block device's reads may wait on the disk, a file's are warm copies */
	dev->prefetch_workers = blk ? 2 : 0;
	snprintf(dev->name, sizeof(dev->name), "%s", name ? name : "(fd)");
	*out = dev;
	return 0;
}

int btrfs_io_open_file(const char *path, bool writable, struct btrfs_io_dev **out)
{
	int fd;
	int ret;

	fd = open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = open_fd_common(fd, true, path, writable, out);
	if (ret < 0)
		close(fd);
	return ret;
}

int btrfs_io_open_fd(int fd, const char *name, bool writable, struct btrfs_io_dev **out)
{
	return open_fd_common(fd, false, name, writable, out);
}

struct mem_priv {
	u8 *buf;
	bool own;
};

static int mem_pread(struct btrfs_io_dev *dev, void *buf, size_t len, u64 off)
{
	struct mem_priv *mp = dev->priv;

	memcpy(buf, mp->buf + off, len);
	return 0;
}

static int mem_pwrite(struct btrfs_io_dev *dev, const void *buf, size_t len, u64 off)
{
	struct mem_priv *mp = dev->priv;

	memcpy(mp->buf + off, buf, len);
	return 0;
}

static int mem_flush(struct btrfs_io_dev *dev)
{
	return 0;
}

static void mem_close(struct btrfs_io_dev *dev)
{
	struct mem_priv *mp = dev->priv;

	if (mp && mp->own)
		free(mp->buf);
	free(mp);
	dev->priv = NULL;
}

static const struct btrfs_io_ops mem_ops = {
	.name = "memory",
	.pread = mem_pread,
	.pwrite = mem_pwrite,
	.flush = mem_flush,
	.close = mem_close,
};

int btrfs_io_open_memory(void *buf, size_t size, bool copy, bool writable,
			 struct btrfs_io_dev **out)
{
	struct btrfs_io_dev *dev;
	struct mem_priv *mp;

	dev = calloc(1, sizeof(*dev));
	mp = calloc(1, sizeof(*mp));
	if (!dev || !mp)
		goto nomem;
	if (copy) {
		mp->buf = malloc(size ? size : 1);
		if (!mp->buf)
			goto nomem;
		if (size)
			memcpy(mp->buf, buf, size);
		mp->own = true;
	} else {
		mp->buf = buf;
	}
	dev->ops = &mem_ops;
	dev->priv = mp;
	dev->size = size;
	dev->writable = writable;
	snprintf(dev->name, sizeof(dev->name), "memory");
	*out = dev;
	return 0;
nomem:
	free(dev);
	free(mp);
	return -ENOMEM;
}

void btrfs_io_close(struct btrfs_io_dev *dev)
{
	if (!dev)
		return;
	while (dev->prefetch)
		btrfs_io_prefetch_stop(dev, NULL);
	if (dev->ops && dev->ops->close)
		dev->ops->close(dev);
	free(dev);
}

static bool range_ok(const struct btrfs_io_dev *dev, size_t len, u64 off)
{
	return off <= dev->size && len <= dev->size - off;
}

int btrfs_io_read(struct btrfs_io_dev *dev, void *buf, size_t len, u64 off)
{
	if (!range_ok(dev, len, off))
		return -EIO;
	if (!len)
		return 0;
	if (dev->prefetch && btrfs_io_prefetch_take(dev, buf, len, off))
		return 0;
	return dev->ops->pread(dev, buf, len, off);
}

int btrfs_io_write(struct btrfs_io_dev *dev, const void *buf, size_t len, u64 off)
{
	if (!dev->writable || !dev->ops->pwrite)
		return -EROFS;
	if (!range_ok(dev, len, off))
		return -EIO;
	if (!len)
		return 0;
	if (dev->prefetch)
		btrfs_io_prefetch_drop(dev, off, len);
	return dev->ops->pwrite(dev, buf, len, off);
}

int btrfs_io_readahead(struct btrfs_io_dev *dev, u64 off, u64 len)
{
	if (!dev->ops->readahead || off >= dev->size || !len)
		return 0;
	if (len > dev->size - off)
		len = dev->size - off;
	return dev->ops->readahead(dev, off, len);
}

int btrfs_io_flush(struct btrfs_io_dev *dev)
{
	if (!dev->ops->flush)
		return 0;
	return dev->ops->flush(dev);
}
