/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Write side of the offline backend: opening an image for writing safely.
 * The writes themselves: offline-write-subvol.h, offline-write-qgroup.h,
 * each run by the one transaction runner (offline-run.h).
 */
#ifndef VOLCTL_COMMON_OFFLINE_WRITE_H
#define VOLCTL_COMMON_OFFLINE_WRITE_H

#include <stddef.h>
#include "kernel-shared/format.h"
#include "kernel-shared/io.h"
#include "common/test-io.h"
#include "kernel-shared/super.h"

struct btrfs_fs;
struct vc_storage;

#define VC_WRITER_MAX_DEVS	64

/* One member device opened for writing: every name of its storage claimed */
struct vc_writer_member {
	struct vc_storage *storage;
	int fd;				/* the storage's, not closed separately */
	struct btrfs_io_dev *dev;
	/* test builds: @dev is a fault device wrapping @inner */
	struct btrfs_io_dev *inner;
};

/* An image (every member of its filesystem) opened for writing */
struct vc_writer {
	struct vc_writer_member members[VC_WRITER_MAX_DEVS];
	size_t nr_members;
	struct btrfs_fs *fs;
	/* test builds: one write count and write log over all members */
	struct vc_test_io test_io;
	/* asked before each commit's superblocks: the claims still hold */
	struct btrfs_super_guard guard;
};

/**
 * vc_writer_open - open @path read-write for the offline writer
 *
 * Every name of the image's storage is claimed (common/storage.h: flock()
 * on files, O_EXCL on block devices), so a second volctl or a mount through
 * any of them is refused naming the holder; each commit checks again before
 * its superblocks.  The filesystem is opened with btrfs_fs_open(writable).
 * Return: 0 or a negative errno with @err set.
 */
int vc_writer_open(const char *path, int super_mirror, struct vc_writer *w,
			char *err, size_t errlen);

/**
 * vc_writer_open_multi - open every member of a multi-device filesystem
 * @paths:	every member (the caller finds those not given, common/offline.c)
 *
 * Each member gets the refusals of vc_writer_open() before any of them is
 * written; btrfs_fs_open(writable) then refuses a missing or stale member.
 * Return: 0 or a negative errno with @err set.
 */
int vc_writer_open_multi(const char *const *paths, size_t nr_paths, int super_mirror,
			 struct vc_writer *w, char *err, size_t errlen);

/**
 * vc_writer_open_claimed - vc_writer_open() of @path, whose storage @s the
 * caller has claimed already (vc_storage_open(O_RDWR)); @s is taken over,
 * also on failure
 */
int vc_writer_open_claimed(struct vc_storage *s, const char *path, struct vc_writer *w,
			   char *err, size_t errlen);

/** vc_writer_close - close what vc_writer_open() opened */
void vc_writer_close(struct vc_writer *w);

#endif /* VOLCTL_COMMON_OFFLINE_WRITE_H */
