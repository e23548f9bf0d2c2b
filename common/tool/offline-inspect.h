/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `volctl inspect` below its printing: superblock copies of a device, and
 * the tree blocks of an image opened with the image handle
 * (common/image/image.h), each verified before a visitor sees it.  The rendering
 * (text or JSON) is the caller's, through common/output/offline-dump.h.
 */
#ifndef VOLCTL_COMMON_OFFLINE_INSPECT_H
#define VOLCTL_COMMON_OFFLINE_INSPECT_H

#include <stdbool.h>
#include "common/image/image-handle.h"
#include "common/image/offline-walk.h"
#include "common/output/offline-dump.h"

struct extent_buffer;

/* One verified tree block, for a visitor */
struct vc_block_info {
	u64 tree_id;			/* the tree being walked */
	u8 level;
	u32 nritems;
};

struct vc_block_visitor {
	/* a tree begins, before its first block is passed */
	void (*tree)(void *priv, u64 tree_id);
	/* one block (for vc_dump_block()); non-zero stops the walk */
	int (*block)(void *priv, const struct extent_buffer *eb, const struct vc_block_info *bi);
	void *priv;
};

/**
 * vc_inspect_walk - every block of tree @tree_id (NULL: the chunk tree, the
 * root tree and every tree the root tree lists), parents first, children
 * read ahead
 * Return: 0 or a negative errno with the message in the image's reader
 * ("tree N does not exist" for a missing @tree_id); vc_image_set_error().
 */
int vc_inspect_walk(struct vc_image *img, const u64 *tree_id, const struct vc_block_visitor *v);

/**
 * vc_inspect_block - the block at @bytenr (its owner's tree), and with
 * @follow every block below it, each verified against its parent pointer
 */
int vc_inspect_block(struct vc_image *img, u64 bytenr, bool follow,
		     const struct vc_block_visitor *v);

/**
 * vc_inspect_walk_verify - vc_walk_verify() of the image's filesystem
 * ("tree N does not exist" for a missing @tree_id)
 */
int vc_inspect_walk_verify(struct vc_image *img, const u64 *tree_id, struct vc_walk_stats **st,
			   size_t *nr);

/** vc_tree_name - "ROOT_TREE", "FS_TREE", ... for a tree id; NULL if it has none */
const char *vc_tree_name(u64 id);

/**
 * vc_inspect_super - print copy @mirror (-1: the valid one with the highest
 * generation) of @path's superblock, or with @all every copy on the device
 * Return: 0, or 1 when a printed copy is not valid or the device cannot be
 * read (after printing the error).
 */
int vc_inspect_super(const char *path, int mirror, bool all, bool json);

#endif /* VOLCTL_COMMON_OFFLINE_INSPECT_H */
