// SPDX-License-Identifier: GPL-2.0-only
/* A fault-injecting block device for crash tests (see io-fault.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "io-fault.h"

struct fault_priv {
	struct btrfs_io_dev *inner;
	u64 fail_after;
	u64 writes;
};

static int fault_pread(struct btrfs_io_dev *dev, void *buf, size_t len, u64 off)
{
	struct fault_priv *fp = dev->priv;

	return btrfs_io_read(fp->inner, buf, len, off);
}

static int fault_pwrite(struct btrfs_io_dev *dev, const void *buf, size_t len, u64 off)
{
	struct fault_priv *fp = dev->priv;

	if (fp->writes >= fp->fail_after)
		return -EIO;
	fp->writes++;
	return btrfs_io_write(fp->inner, buf, len, off);
}

static int fault_flush(struct btrfs_io_dev *dev)
{
	struct fault_priv *fp = dev->priv;

	return btrfs_io_flush(fp->inner);
}

static void fault_close(struct btrfs_io_dev *dev)
{
	struct fault_priv *fp = dev->priv;

	btrfs_io_close(fp->inner);
	free(fp);
	dev->priv = NULL;
}

static const struct btrfs_io_ops fault_ops = {
	.name = "fault",
	.pread = fault_pread,
	.pwrite = fault_pwrite,
	.flush = fault_flush,
	.close = fault_close,
};

int btrfs_io_open_fault(struct btrfs_io_dev *inner, u64 fail_after, struct btrfs_io_dev **out)
{
	struct btrfs_io_dev *dev = calloc(1, sizeof(*dev));
	struct fault_priv *fp = calloc(1, sizeof(*fp));

	if (!dev || !fp) {
		free(dev);
		free(fp);
		return -ENOMEM;
	}
	fp->inner = inner;
	fp->fail_after = fail_after;
	dev->ops = &fault_ops;
	dev->priv = fp;
	dev->size = inner->size;
	dev->writable = inner->writable;
	snprintf(dev->name, sizeof(dev->name), "%s", inner->name);
	*out = dev;
	return 0;
}

u64 btrfs_io_fault_writes(const struct btrfs_io_dev *dev)
{
	const struct fault_priv *fp = dev->priv;

	return dev->ops == &fault_ops ? fp->writes : 0;
}
