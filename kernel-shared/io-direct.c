// SPDX-License-Identifier: GPL-2.0-only
/*
 * Read-only block device with O_DIRECT reads (see io.h,
 * btrfs_io_open_direct()): the devices of a mounted filesystem.
 *
 * The kernel writes tree blocks to the device with bios, around the page
 * cache of the block device, so a page cached there can be older than the
 * disk: the superblock of an earlier commit, or a block since rewritten.
 * Dropping the cache before reading (POSIX_FADV_DONTNEED) skips pages it
 * cannot evict and leaves a window for other readers to fill it again;
 * O_DIRECT reads the disk.  It wants the buffer, offset and length aligned
 * to the logical block size: reads go through an aligned bounce buffer of
 * whole DIRECT_ALIGN units (4096, a multiple of every logical block size
 * in use), or straight into the caller's buffer when that is aligned.
 * Where O_DIRECT is refused (at open or at the first read: tmpfs, some
 * FUSE files) the descriptor falls back to buffered reads.
 *
 * Read-ahead cannot go through the page cache these reads bypass: a hint
 * is read at once, in one O_DIRECT read, into one of a few windows of
 * our own (the oldest replaced), and the reads that follow inside a window
 * are copied from it.  What a window holds was on the disk during this
 * run, as the page cache's read-ahead would have held.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "io.h"

#define DIRECT_ALIGN	4096u
#define BOUNCE_MAX	(1u << 20)	/* larger reads are split */
#define RA_WINDOWS	4
#define RA_WINDOW_MAX	(2u << 20)	/* the reader's read-ahead hints are at most this */

struct ra_window {
	u8 *buf;		/* DIRECT_ALIGN-aligned, RA_WINDOW_MAX bytes */
	u64 start, len;		/* what it holds (len 0: nothing) */
};

struct direct_priv {
	int fd;
	bool direct;		/* O_DIRECT in effect (else buffered) */
	u8 *bounce;		/* DIRECT_ALIGN-aligned, BOUNCE_MAX bytes */
	struct ra_window win[RA_WINDOWS];
	unsigned int next;	/* the window the next hint replaces */
};

/* pread of exactly @len bytes, or fewer only at the end of the device */
static ssize_t pread_full(int fd, u8 *p, size_t len, u64 off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t ret = pread(fd, p + done, len - done, (off_t)(off + done));

		if (ret < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (ret == 0)
			break;
		done += (size_t)ret;
	}
	return (ssize_t)done;
}

/* Buffered from now on: O_DIRECT refused by the file's filesystem */
static int direct_give_up(struct direct_priv *dp)
{
	int fl = fcntl(dp->fd, F_GETFL);

	if (fl < 0 || fcntl(dp->fd, F_SETFL, fl & ~O_DIRECT) < 0)
		return -errno;
	dp->direct = false;
	return 0;
}

static bool aligned(const void *buf, size_t len, u64 off)
{
	return !((uintptr_t)buf % DIRECT_ALIGN) && !(len % DIRECT_ALIGN) &&
	       !(off % DIRECT_ALIGN);
}

/* [@off, @off + @len) through the bounce buffer, @len + slack <= BOUNCE_MAX */
static ssize_t bounce_read(struct direct_priv *dp, u8 *buf, size_t len, u64 off)
{
	u64 start = off - off % DIRECT_ALIGN;
	size_t head = (size_t)(off - start);
	size_t span = (head + len + DIRECT_ALIGN - 1) / DIRECT_ALIGN * DIRECT_ALIGN;
	ssize_t got = pread_full(dp->fd, dp->bounce, span, start);

	if (got < 0)
		return got;
	if ((size_t)got < head + len)
		return -EIO;	/* the end of the device inside the range */
	memcpy(buf, dp->bounce + head, len);
	return (ssize_t)len;
}

/* Copy [@off, @off + @len) from a window holding all of it */
static bool window_read(struct direct_priv *dp, void *buf, size_t len, u64 off)
{
	for (unsigned int i = 0; i < RA_WINDOWS; i++) {
		const struct ra_window *w = &dp->win[i];

		if (w->len && off >= w->start && len <= w->len && off - w->start <= w->len - len) {
			memcpy(buf, w->buf + (off - w->start), len);
			return true;
		}
	}
	return false;
}

static int direct_readahead(struct btrfs_io_dev *dev, u64 off, u64 len)
{
	struct direct_priv *dp = dev->priv;
	struct ra_window *w;
	u64 start = off - off % DIRECT_ALIGN;
	ssize_t got;

	if (!dp->direct)
		return 0;
	len = (off - start + len + DIRECT_ALIGN - 1) / DIRECT_ALIGN * DIRECT_ALIGN;
	if (len > RA_WINDOW_MAX)
		len = RA_WINDOW_MAX;
	w = &dp->win[dp->next];
	if (!w->buf && posix_memalign((void **)&w->buf, DIRECT_ALIGN, RA_WINDOW_MAX)) {
		w->buf = NULL;
		return 0;
	}
	dp->next = (dp->next + 1) % RA_WINDOWS;
	got = pread_full(dp->fd, w->buf, (size_t)len, start);
	w->start = start;
	w->len = got > 0 ? (u64)got : 0;	/* a failed hint: the reads will say */
	return 0;
}

static int direct_pread(struct btrfs_io_dev *dev, void *buf, size_t len, u64 off)
{
	struct direct_priv *dp = dev->priv;
	u8 *p = buf;

	if (dp->direct && window_read(dp, buf, len, off))
		return 0;
	while (len) {
		size_t n = len < BOUNCE_MAX - DIRECT_ALIGN ? len : BOUNCE_MAX - DIRECT_ALIGN;
		ssize_t got;

		if (!dp->direct)
			got = pread_full(dp->fd, p, n, off);
		else if (aligned(p, n, off))
			got = pread_full(dp->fd, p, n, off);
		else
			got = bounce_read(dp, p, n, off);
		if (got == -EINVAL && dp->direct) {
			int ret = direct_give_up(dp);

			if (ret < 0)
				return ret;
			continue;
		}
		if (got < 0)
			return (int)got;
		if ((size_t)got < n)
			return -EIO;
		p += n;
		len -= n;
		off += n;
	}
	return 0;
}

/*
 * The prefetch worker's read (io-prefetch.c): straight into its aligned
 * slot, touching nothing of @dp but the descriptor; an unaligned range
 * is left to the reader (-EINVAL: the slot is read again by direct_pread).
 */
static int direct_pread_parallel(struct btrfs_io_dev *dev, void *buf, size_t len, u64 off)
{
	struct direct_priv *dp = dev->priv;
	ssize_t got;

	if (!aligned(buf, len, off))
		return -EINVAL;
	got = pread_full(dp->fd, buf, len, off);
	if (got < 0)
		return (int)got;
	return (size_t)got < len ? -EIO : 0;
}

static void direct_close(struct btrfs_io_dev *dev)
{
	struct direct_priv *dp = dev->priv;

	if (dp) {
		close(dp->fd);
		free(dp->bounce);
		for (unsigned int i = 0; i < RA_WINDOWS; i++)
			free(dp->win[i].buf);
	}
	free(dp);
	dev->priv = NULL;
}

static const struct btrfs_io_ops direct_ops = {
	.name = "direct",
	.pread = direct_pread,
	.close = direct_close,
	.readahead = direct_readahead,
	.pread_parallel = direct_pread_parallel,
};

static int fd_size(int fd, u64 *size)
{
	struct stat st;
	off_t end;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISREG(st.st_mode)) {
		*size = (u64)st.st_size;
		return 0;
	}
	if (!S_ISBLK(st.st_mode))
		return -EINVAL;
	end = lseek(fd, 0, SEEK_END);
	if (end < 0)
		return -errno;
	*size = (u64)end;
	return 0;
}

int btrfs_io_open_direct(const char *path, struct btrfs_io_dev **out)
{
	struct btrfs_io_dev *dev = NULL;
	struct direct_priv *dp = NULL;
	void *bounce = NULL;
	bool direct = true;
	u64 size = 0;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_DIRECT);
	if (fd < 0 && errno == EINVAL) {
		direct = false;
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		return -errno;
	ret = fd_size(fd, &size);
	if (ret < 0)
		goto fail;
	ret = -ENOMEM;
	dev = calloc(1, sizeof(*dev));
	dp = calloc(1, sizeof(*dp));
	if (!dev || !dp || posix_memalign(&bounce, DIRECT_ALIGN, BOUNCE_MAX))
		goto fail;
	dp->fd = fd;
	dp->direct = direct;
	dp->bounce = bounce;
	dev->ops = &direct_ops;
	dev->prefetch_workers = 2;
	dev->priv = dp;
	dev->size = size;
	snprintf(dev->name, sizeof(dev->name), "%s", path);
	*out = dev;
	return 0;
fail:
	free(bounce);
	free(dp);
	free(dev);
	close(fd);
	return ret;
}
