/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A fault-injecting block device for crash tests.
 *
 * It wraps another struct btrfs_io_dev and lets the first @fail_after
 * writes through; every later write fails with -EIO without touching the
 * inner device, as if the machine had stopped there.  Reads and flushes go
 * through.  Closing it closes the inner device.
 */
#ifndef VOLCTL_KERNEL_SHARED_IO_FAULT_H
#define VOLCTL_KERNEL_SHARED_IO_FAULT_H

#include "format.h"
#include "io.h"

/**
 * btrfs_io_open_fault - wrap @inner (ownership moves to the new device)
 * Return: 0 or -ENOMEM (then @inner is still the caller's).
 */
int btrfs_io_open_fault(struct btrfs_io_dev *inner, u64 fail_after, struct btrfs_io_dev **out);

/** btrfs_io_fault_writes - writes let through so far */
u64 btrfs_io_fault_writes(const struct btrfs_io_dev *dev);

#endif /* VOLCTL_KERNEL_SHARED_IO_FAULT_H */
