/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The image handle: the one way volctl opens an unmounted filesystem (or
 * the devices of a mounted one, read as a snapshot).
 *
 * vc_image_open() does every step once, in this order:
 *   1. each given member: its storage looked at once (common/image/storage.h).
 *      A writer claims every name of it (flock() on files, O_EXCL on block
 *      devices: a mount or another volctl is refused naming the holder)
 *      and gets a read-only block device refused; a reader is told whether
 *      a name is mounted (vc_image_warn() says so) and claims nothing;
 *   2. the superblock of each member, read once and handed to the reader
 *      in kernel-shared/fs.c, which does not read it again: the primary,
 *      as the kernel mounts it (a bad one is an error naming a valid
 *      mirror), or the copy --super names (readers only; vc_image_warn()
 *      says so);
 *   3. members not given: when the superblock counts more devices than
 *      were given, libblkid's block devices with the same fsid (members
 *      already given, by devid, are not opened twice), claimed like the
 *      given ones when writing;
 *   4. btrfs_fs_open() over all of them (writable: every member present, at
 *      one generation, kernel-shared/members.c), and for a writer the super
 *      guard that checks the claims again before each commit's superblocks.
 * The opened filesystem (img->bfs) is then what the offline backend
 * (common/backend/offline.c), the accounting engine, check, inspect, mkfs and the
 * online accounting snapshot (common/backend/online-acct.c) work on; nothing opens
 * the image a second time.
 *
 * Test builds (configure --enable-fault-injection) put a writer's members
 * behind the wrappers of common/image/test-io.h: VOLCTL_FAIL_AFTER_WRITES and
 * VOLCTL_WRITE_LOG, one count and one log over all members.
 */
#ifndef VOLCTL_COMMON_IMAGE_H
#define VOLCTL_COMMON_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include "common/image/image-handle.h"
#include "common/image/test-io.h"
#include "kernel-shared/format.h"
#include "kernel-shared/super.h"

#define VC_IMAGE_MAX_DEVS	64

struct btrfs_fs;
struct btrfs_io_dev;
struct vc_storage;

struct vc_image {
	struct btrfs_fs *bfs;
	struct btrfs_io_dev *devs[VC_IMAGE_MAX_DEVS];
	size_t nr_devs;
	size_t nr_given;		/* devs[nr_given..] were found with libblkid */
	const char *name;		/* first image as given, for messages */
	enum vc_image_mode mode;
	int mirror;
	u32 cache_blocks;
	long long wait_ms;
	/* a writer's claims (common/image/storage.h), one per member; NULL for readers */
	struct vc_storage *claims[VC_IMAGE_MAX_DEVS];
	/* test builds: devs[i] wraps inner[i]; one write count and log over all */
	struct btrfs_io_dev *inner[VC_IMAGE_MAX_DEVS];
	struct vc_test_io test_io;
	/* asked before each commit's superblocks: the claims still hold (mkfs: its own too) */
	struct btrfs_super_guard guard;
	char *mounted;			/* a reader: "PATH: ... mounted on ...", one line a member */
	/* the superblock read of each member (NULL: read by btrfs_fs_open(), a writer's) */
	struct btrfs_super_block *sbs[VC_IMAGE_MAX_DEVS];
	char err[512];			/* "disk.img: tree block X: checksum mismatch" */
};

#endif /* VOLCTL_COMMON_IMAGE_H */
