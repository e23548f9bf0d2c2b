// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fault-injecting block device (see io.h, struct btrfs_io_fault).
 *
 * Wraps another struct btrfs_io_dev.  Reads touching a chosen range fail
 * with -EIO (a bad sector: the reader must fall back to another mirror);
 * writes past a count fail with -EIO or are silently dropped (power loss in
 * the middle of a commit: the image must still be the old, consistent one).
 * The description also receives counters so tests can pick their limits,
 * and an optional recorder sees every write and flush that got through,
 * in order: the power-cut tests rebuild the device from that log at every
 * point a power cut could leave it (tests/powercut/).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "io.h"

struct fault_priv {
	struct btrfs_io_dev *inner;
	struct btrfs_io_fault *fault;
};

static int fault_pread(struct btrfs_io_dev *dev, void *buf, size_t len, u64 off)
{
	struct fault_priv *fp = dev->priv;
	struct btrfs_io_fault *f = fp->fault;

	f->reads++;
	if (f->read_len && off < f->read_off + f->read_len && f->read_off < off + len) {
		f->faults++;
		return -EIO;
	}
	return btrfs_io_read(fp->inner, buf, len, off);
}

static int fault_pwrite(struct btrfs_io_dev *dev, const void *buf, size_t len, u64 off)
{
	struct fault_priv *fp = dev->priv;
	struct btrfs_io_fault *f = fp->fault;
	int ret;

	if (f->write_limit && f->writes >= f->write_limit) {
		f->faults++;
		return f->drop_writes ? 0 : -EIO;
	}
	f->writes++;
	ret = btrfs_io_write(fp->inner, buf, len, off);
	if (!ret && f->record)
		ret = f->record(f->record_ctx, dev, buf, len, off);
	return ret;
}

static int fault_flush(struct btrfs_io_dev *dev)
{
	struct fault_priv *fp = dev->priv;
	struct btrfs_io_fault *f = fp->fault;
	int ret = btrfs_io_flush(fp->inner);

	if (!ret && f->record)
		ret = f->record(f->record_ctx, dev, NULL, 0, 0);
	return ret;
}

static void fault_close(struct btrfs_io_dev *dev)
{
	free(dev->priv);
	dev->priv = NULL;
}

static const struct btrfs_io_ops fault_ops = {
	.name = "fault",
	.pread = fault_pread,
	.pwrite = fault_pwrite,
	.flush = fault_flush,
	.close = fault_close,
};

int btrfs_io_open_fault(struct btrfs_io_dev *inner, struct btrfs_io_fault *fault,
			struct btrfs_io_dev **out)
{
	struct btrfs_io_dev *dev = calloc(1, sizeof(*dev));
	struct fault_priv *fp = calloc(1, sizeof(*fp));

	if (!dev || !fp) {
		free(dev);
		free(fp);
		return -ENOMEM;
	}
	fp->inner = inner;
	fp->fault = fault;
	dev->ops = &fault_ops;
	dev->priv = fp;
	dev->size = inner->size;
	dev->writable = inner->writable;
	snprintf(dev->name, sizeof(dev->name), "%.240s (faulty)", inner->name);
	*out = dev;
	return 0;
}
