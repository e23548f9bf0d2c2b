/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The image handle as its users outside common/image/ see it: the opening
 * arguments and the functions, with struct vc_image opaque (its members,
 * and the kernel-shared/ headers they need, are common/image/image.h's,
 * which includes this header and says how an image is opened).  A command
 * holds a handle from vc_image_new() and reads its error text with
 * vc_image_error().
 */
#ifndef VOLCTL_COMMON_IMAGE_HANDLE_H
#define VOLCTL_COMMON_IMAGE_HANDLE_H

#include <stdbool.h>
#include <stddef.h>
#include "kernel-shared/format.h"

struct btrfs_super_block;
struct vc_image;

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

/** vc_image_new - a zeroed handle (NULL: no memory); vc_image_free() it */
struct vc_image *vc_image_new(void);

/** vc_image_free - vc_image_close() and free @img; NULL is safe */
void vc_image_free(struct vc_image *img);

/** vc_image_error - the text of the last failure of @img (img->err), "" when none */
const char *vc_image_error(const struct vc_image *img);

/**
 * vc_image_check_target - whether @path can hold a filesystem at all: a
 * regular file or block device, and (unless @any_size, for mkfs) a file long
 * enough for the primary superblock
 * Return: 0, or a negative errno with @err naming what @path is ("a
 * directory", "empty file (0 bytes)").
 */
int vc_image_check_target(const char *path, bool any_size, char *err, size_t errlen);

/**
 * vc_image_open - open the filesystem on @a->paths (the steps: common/image/image.h)
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

#endif /* VOLCTL_COMMON_IMAGE_HANDLE_H */
