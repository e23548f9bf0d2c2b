// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test builds' device wrappers (see test-io.h): the fault device of
 * kernel-shared/io-fault.c with a write limit from VOLCTL_FAIL_AFTER_WRITES
 * and a recorder appending to VOLCTL_WRITE_LOG.
 *
 * The log is opened O_APPEND and each record goes out in one writev(), so
 * the records of mkfs's base image and of the writer it opens afterwards
 * follow each other in the file.  A record that cannot be written fails
 * the device operation: a test must never read a log with a hole in it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>
#include "common/image/test-io.h"

#if VOLCTL_FAULT_INJECTION
static int record(void *ctx, const struct btrfs_io_dev *dev, const void *buf, size_t len, u64 off)
{
	struct vc_test_io *t = ctx;
	struct vc_test_io_rec rec = { .off = off, .len = len };
	struct iovec iov[2] = { { &rec, sizeof(rec) }, { (void *)buf, len } };
	size_t i, want = sizeof(rec) + len;
	ssize_t n;

	for (i = 0; i < t->nr_devs && t->devs[i] != dev; i++)
		;
	if (i == t->nr_devs)
		return -EINVAL;
	memcpy(rec.tag, buf ? "WRIT" : "FLSH", sizeof(rec.tag));
	rec.dev = (uint32_t)i;
	n = writev(t->log_fd, iov, buf ? 2 : 1);
	if (n < 0)
		return -errno;
	return (size_t)n == want ? 0 : -EIO;
}
#endif

int vc_test_io_wrap(struct vc_test_io *t, struct btrfs_io_dev **dev, struct btrfs_io_dev **inner)
{
#if VOLCTL_FAULT_INJECTION
	const char *limit = getenv("VOLCTL_FAIL_AFTER_WRITES");
	const char *log = getenv("VOLCTL_WRITE_LOG");
	struct btrfs_io_dev *f;
	int ret;

	if (limit && *limit)
		t->fault.write_limit = strtoull(limit, NULL, 10);
	if (log && *log && !t->logging) {
		t->log_fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (t->log_fd < 0)
			return -errno;
		t->logging = true;
		t->fault.record = record;
		t->fault.record_ctx = t;
	}
	if (!t->fault.write_limit && !t->logging)
		return 0;
	if (t->nr_devs == VC_TEST_IO_MAX_DEVS)
		return -E2BIG;
	/* every member shares t->fault: the count runs over all of them */
	ret = btrfs_io_open_fault(*dev, &t->fault, &f);
	if (ret < 0)
		return ret;
	t->devs[t->nr_devs++] = f;
	*inner = *dev;
	*dev = f;
#else
	(void)t;
	(void)dev;
	(void)inner;
#endif
	return 0;
}

void vc_test_io_release(struct vc_test_io *t)
{
	if (t->logging)
		close(t->log_fd);
	t->logging = false;
	t->nr_devs = 0;
}
