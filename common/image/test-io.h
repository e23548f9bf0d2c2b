/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The device wrappers of test builds (configure --enable-fault-injection),
 * set up from the environment for every offline write and for mkfs:
 *
 *   VOLCTL_FAIL_AFTER_WRITES=N   let N device writes through, then fail
 *                                every write with EIO (crash tests)
 *   VOLCTL_WRITE_LOG=FILE        append every device write and flush to
 *                                FILE, in the order issued (power-cut
 *                                tests, tests/powercut/)
 *
 * One struct vc_test_io covers every member of a filesystem: the write
 * count runs over all of them and members are numbered in the order they
 * were wrapped (the order of --image).  In other builds nothing is wrapped.
 *
 * Log records, host byte order, each followed by @len bytes of data for a
 * write (mkfs and the writer it opens for --subvol append to one log):
 *
 *   char tag[4]   "WRIT" or "FLSH"
 *   u32 dev       member number
 *   u64 off       byte offset on the member (writes)
 *   u64 len       bytes written (writes), 0 for a flush
 */
#ifndef VOLCTL_COMMON_TEST_IO_H
#define VOLCTL_COMMON_TEST_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "kernel-shared/io.h"

#define VC_TEST_IO_MAX_DEVS	64

struct vc_test_io_rec {
	char tag[4];
	uint32_t dev;
	uint64_t off;
	uint64_t len;
};

struct vc_test_io {
	struct btrfs_io_fault fault;
	bool logging;			/* @log_fd is open */
	int log_fd;
	const struct btrfs_io_dev *devs[VC_TEST_IO_MAX_DEVS];
	size_t nr_devs;
};

/**
 * vc_test_io_wrap - put *@dev behind the test wrappers the environment asks for
 * @t:		zeroed before the first member; shared by all members
 * @dev:	the device; replaced by the wrapper (unchanged without one)
 * @inner:	receives the original device when wrapped, to close after @dev
 *
 * Return: 0 or a negative errno (the log cannot be opened or is
 * unusable, no memory).
 */
int vc_test_io_wrap(struct vc_test_io *t, struct btrfs_io_dev **dev, struct btrfs_io_dev **inner);

/** vc_test_io_release - close the log of @t (the devices are the caller's) */
void vc_test_io_release(struct vc_test_io *t);

#endif /* VOLCTL_COMMON_TEST_IO_H */
