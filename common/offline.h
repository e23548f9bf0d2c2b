/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Opening an unmounted image for the offline backend and for `inspect`.
 *
 * struct vc_image owns the io devices (every --image, plus block devices of
 * the same filesystem found with libblkid when members are missing) and the
 * reader context over them.  Everything is opened read-only: an open image
 * never receives a single written byte.
 */
#ifndef VOLCTL_COMMON_OFFLINE_H
#define VOLCTL_COMMON_OFFLINE_H

#include <stdbool.h>
#include <stddef.h>
#include "kernel-shared/ctree.h"
#include "kernel-shared/fs.h"

#define VC_IMAGE_MAX_DEVS	64

struct vc_image {
	struct btrfs_fs *bfs;
	struct btrfs_io_dev *devs[VC_IMAGE_MAX_DEVS];
	size_t nr_devs;
	size_t nr_given;		/* devs[nr_given..] were found with libblkid */
	const char *name;		/* first image as given, for messages */
	char err[512];			/* "disk.img: tree block X: checksum mismatch" */
};

/**
 * vc_image_open - open the filesystem on @paths read-only
 * @mirror:	superblock copy to use, or -1 for the best valid one
 * @cache_blocks: clean tree blocks the reader keeps (0: its default); a
 *		one-pass walk wants few, so memory is reused instead of grown
 *
 * Return: 0, or a negative errno with img->err set (the image is then
 * already released, vc_image_close() is still safe).
 */
int vc_image_open(struct vc_image *img, const char *const *paths, int nr_paths, int mirror,
		  u32 cache_blocks);

/**
 * vc_image_missing - devices of the filesystem that are not open (degraded)
 * @list:	receives their devids, comma-separated
 * Return: how many are missing
 */
size_t vc_image_missing(const struct vc_image *img, char *list, size_t size);

/**
 * vc_image_warn - warn on stderr that reading @img may not give the whole
 * truth: devices missing (degraded), or one of @paths mounted
 */
void vc_image_warn(const struct vc_image *img, const char *const *paths, int nr_paths);

/** vc_image_close - release everything; safe on a failed or zeroed image */
void vc_image_close(struct vc_image *img);

/**
 * vc_image_set_error - img->err = "<image>: <reader message or strerror>"
 */
void vc_image_set_error(struct vc_image *img, int err);

/* What the verifying walk found in one tree */
struct vc_walk_stats {
	u64 tree_id;
	u64 nodes;
	u64 leaves;
	u64 items;
};

/**
 * vc_walk_verify - read and verify every tree block once (common/offline-walk.c)
 * @tree_id:	only this tree, or NULL for the chunk tree, the root tree and
 *		every tree with a ROOT_ITEM (blocks shared by several trees are
 *		counted in the first)
 * @stats:	receives a malloc'ed array, one entry per tree in that order
 *
 * Return: 0, or a negative errno with btrfs_fs_error(@fs) naming the block.
 */
int vc_walk_verify(struct btrfs_fs *fs, const u64 *tree_id, struct vc_walk_stats **stats,
		   size_t *nr_stats);

#endif
