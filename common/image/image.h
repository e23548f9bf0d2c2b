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
#include "common/image/test-io.h"
#include "kernel-shared/format.h"
#include "kernel-shared/super.h"

#define VC_IMAGE_MAX_DEVS	64

struct btrfs_fs;
struct btrfs_io_dev;
struct vc_storage;

enum vc_image_mode {
	VC_IMAGE_READ,		/* unmounted image, read-only; mounts noted for vc_image_warn() */
	VC_IMAGE_READ_LIVE,	/* devices of a mounted filesystem, read-only (online --compute) */
	VC_IMAGE_WRITE,		/* every member claimed, opened read-write */
	VC_IMAGE_CLAIM,		/* mkfs: the one member claimed, no filesystem read yet */
};

struct vc_image_args {
	const char *const *paths;	/* the members given */
	int nr_paths;
	int mirror;			/* superblock copy 0..2 (-1: the primary, as 0); writers: 0 */
	u32 cache_blocks;		/* clean tree blocks to cache (0: the reader's default) */
	enum vc_image_mode mode;
	long long wait_ms;		/* a writer: how long to wait for a held member (--wait) */
};

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

/**
 * vc_image_check_target - whether @path can hold a filesystem at all: a
 * regular file or block device, and (unless @any_size, for mkfs) a file long
 * enough for the primary superblock
 * Return: 0, or a negative errno with @err naming what @path is ("a
 * directory", "empty file (0 bytes)").
 */
int vc_image_check_target(const char *path, bool any_size, char *err, size_t errlen);

/**
 * vc_image_open - open the filesystem on @a->paths (see above)
 *
 * Return: 0, or a negative errno with img->err set (the image is then
 * already released, vc_image_close() is still safe).
 */
int vc_image_open(struct vc_image *img, const struct vc_image_args *a);

/**
 * vc_image_open_fs - read the filesystem of an image opened with
 * VC_IMAGE_CLAIM (mkfs, once it has written one), for writing
 * Return: 0, or a negative errno with img->err set (the claim stays).
 */
int vc_image_open_fs(struct vc_image *img);

/**
 * vc_image_primary - the primary superblock of member @i as the open read
 * it (check compares the mirrors with it), NULL when not at hand (--super
 * named a mirror, or a writer's)
 */
const struct btrfs_super_block *vc_image_primary(const struct vc_image *img, size_t i);

/** vc_image_fd - the descriptor of claimed member @i (VC_IMAGE_WRITE, VC_IMAGE_CLAIM) */
int vc_image_fd(const struct vc_image *img, size_t i);

/** vc_image_csum_type - the checksum type of the open filesystem */
u16 vc_image_csum_type(const struct vc_image *img);

/**
 * vc_image_missing - devices of the filesystem that are not open (degraded)
 * @list:	receives their devids, comma-separated
 * Return: how many are missing
 */
size_t vc_image_missing(const struct vc_image *img, char *list, size_t size);

/**
 * vc_image_missing_ids - the devids of the devices of @img that are not open
 * @ids:	receives an allocated array (NULL when none), for the caller to free
 * @nr:		receives its length
 * Return: 0, -ENOMEM
 */
int vc_image_missing_ids(const struct vc_image *img, u64 **ids, size_t *nr);

/**
 * vc_image_warn - warn on stderr that reading @img may not give the whole
 * truth: devices missing (degraded), or a member mounted (found at open)
 */
void vc_image_warn(const struct vc_image *img);

/** vc_image_close - release everything; safe on a failed or zeroed image */
void vc_image_close(struct vc_image *img);

/**
 * vc_image_set_error - img->err = "<image>: <reader message or strerror>"
 */
void vc_image_set_error(struct vc_image *img, int err);

#endif /* VOLCTL_COMMON_IMAGE_H */
