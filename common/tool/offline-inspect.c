// SPDX-License-Identifier: GPL-2.0-only
/*
 * `volctl inspect` below its printing (see offline-inspect.h): superblock
 * copies read straight from the device (a broken one is still printed),
 * tree walks over an image opened once with the image handle.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "common/util/messages.h"
#include "common/image/image.h"
#include "common/tool/offline-inspect.h"
#include "common/output/records-inspect.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/extent-buffer.h"
#include "kernel-shared/fs.h"
#include "kernel-shared/io.h"
#include "kernel-shared/items.h"
#include "kernel-shared/walk.h"

/* ------------------------------------------------------------------ */
/* Superblocks                                                         */
/* ------------------------------------------------------------------ */

/* Dump copy @mirror of @dev; 1 when it is missing, <0 on I/O error. */
static int dump_one_super(struct vc_dump *d, struct btrfs_io_dev *dev, const char *name,
			  int mirror, bool *invalid)
{
	struct btrfs_super_block sb;
	char msg[BTRFS_ERRMSG_SIZE] = "";
	u64 off = btrfs_sb_offset(mirror);
	int ret;

	if (off + BTRFS_SUPER_INFO_SIZE > dev->size)
		return 1;
	ret = btrfs_io_read(dev, &sb, sizeof(sb), off);
	if (ret)
		return ret;
	vc_dump_super(d, &sb, mirror, off, name);
	if (btrfs_super_magic(&sb) != BTRFS_MAGIC) {
		error("%s: superblock %d: no btrfs magic", name, mirror);
		*invalid = true;
	} else if (btrfs_super_csum_verify(&sb)) {
		error("%s: superblock %d: checksum mismatch", name, mirror);
		*invalid = true;
	} else if (btrfs_super_validate(&sb, off, msg)) {
		error("%s: superblock %d: %s", name, mirror, msg[0] ? msg : "invalid");
		*invalid = true;
	}
	return 0;
}

int vc_inspect_super(const char *name, int mirror, bool all, bool json)
{
	struct btrfs_io_dev *dev;
	bool invalid = false;
	struct vc_dump d;
	char err[512];
	int ret;

	ret = vc_image_check_target(name, false, err, sizeof(err));
	if (ret) {
		error("%s", err);
		return 1;
	}
	ret = btrfs_io_open_file(name, false, &dev);
	if (ret) {
		error("%s: %s", name, strerror(-ret));
		return 1;
	}
	if (mirror < 0)
		mirror = BTRFS_SUPER_PRIMARY;	/* what the kernel mounts from */
	vc_dump_init(&d, stdout, json);
	vc_dump_list_begin(&d, &vc_dump_superblocks);
	for (int m = all ? 0 : mirror; m < BTRFS_SUPER_MIRROR_MAX; m++) {
		ret = dump_one_super(&d, dev, name, m, &invalid);
		if (ret == 1 && !all) {
			error("%s: superblock %d lies beyond the end of the device", name, m);
			invalid = true;
		}
		if (ret < 0) {
			error("%s: superblock %d: %s", name, m, strerror(-ret));
			invalid = true;
		}
		if (!all || ret)
			break;
	}
	vc_dump_list_close(&d);
	vc_dump_finish(&d);
	btrfs_io_close(dev);
	return invalid ? 1 : 0;
}

/* ------------------------------------------------------------------ */
/* Trees                                                               */
/* ------------------------------------------------------------------ */

const char *vc_tree_name(u64 id)
{
	return btrfs_tree_name(id);
}

/* Append the child pointers of node @eb to the growing array *@ptrs. */
static int collect_ptrs(const struct extent_buffer *eb, u64 **ptrs, u32 *n, u32 *alloc)
{
	u32 nr = btrfs_eb_nritems(eb);

	if (*n + nr > *alloc) {
		u32 na = (*n + nr) * 2;
		u64 *p = realloc(*ptrs, (size_t)na * sizeof(**ptrs));

		if (!p)
			return -ENOMEM;
		*ptrs = p;
		*alloc = na;
	}
	for (u32 i = 0; i < nr; i++)
		(*ptrs)[(*n)++] = btrfs_eb_node_blockptr(eb, i);
	return 0;
}

/*
 * Read-ahead policy of the walk: a node prefetches its children; a level 2
 * node also reads its level 1 children right away (they are next anyway)
 * and prefetches all their leaves in one sorted batch, so the whole leaf
 * level streams like a sequential read instead of stalling at each level 1
 * node.  A level 1 node below a level 2 node has nothing left to do.
 */
static void walk_prefetch(const struct extent_buffer *eb, const struct btrfs_walk_info *info)
{
	struct btrfs_fs *fs = eb->fs;
	u8 level = btrfs_eb_level(eb);
	u32 n = 0, alloc = 0;
	u64 *ptrs = NULL;

	if (level == 0 || (level == 1 && info->depth > 0))
		return;
	if (collect_ptrs(eb, &ptrs, &n, &alloc))
		return;
	btrfs_readahead_tree_blocks(fs, ptrs, n);
	if (level == 2) {
		u32 nr_children = n;

		n = 0;
		for (u32 i = 0; i < nr_children; i++) {
			struct btrfs_tree_parent_check check = {
				.transid = btrfs_eb_node_ptr_generation(eb, i),
				.has_level = true,
				.level = 1,
				.has_first_key = true,
			};
			struct extent_buffer *child;
			u64 ptr = btrfs_eb_node_blockptr(eb, i);

			btrfs_eb_node_key(eb, i, &check.first_key);
			if (btrfs_read_tree_block(fs, ptr, &check, &child))
				break;
			/* the children array is reused from its start for the leaves */
			if (collect_ptrs(child, &ptrs, &n, &alloc)) {
				free_extent_buffer(child);
				break;
			}
			free_extent_buffer(child);
		}
		/* a bad child is the walk's to report, with its own message */
		btrfs_fs_clear_error(fs);
		btrfs_readahead_tree_blocks(fs, ptrs, n);
	}
	free(ptrs);
}

/* A walk in progress: the visitor is told when the tree changes */
struct inspect_walk {
	const struct vc_block_visitor *v;
	bool in_tree;
	u64 tree_id;
};

static void walk_tree(struct inspect_walk *w, u64 tree_id)
{
	w->in_tree = true;
	w->tree_id = tree_id;
	if (w->v->tree)
		w->v->tree(w->v->priv, tree_id);
}

static int visit(struct inspect_walk *w, const struct extent_buffer *eb)
{
	struct vc_block_info bi = {
		.tree_id = w->tree_id,
		.level = btrfs_eb_level(eb),
		.nritems = btrfs_eb_nritems(eb),
	};

	return w->v->block(w->v->priv, eb, &bi);
}

static int walk_cb(void *priv, const struct extent_buffer *eb, const struct btrfs_walk_info *info)
{
	struct inspect_walk *w = priv;

	if (!w->in_tree || info->tree_id != w->tree_id)
		walk_tree(w, info->tree_id);
	walk_prefetch(eb, info);
	return visit(w, eb);
}

int vc_inspect_walk(struct vc_image *img, const u64 *tree_id, const struct vc_block_visitor *v)
{
	struct inspect_walk w = { .v = v };
	struct btrfs_root *root;
	int ret;

	btrfs_fs_clear_error(img->bfs);
	if (!tree_id)
		return btrfs_walk_all_trees(img->bfs, false, walk_cb, &w);
	ret = btrfs_read_root(img->bfs, *tree_id, &root);
	if (ret == -ENOENT)
		btrfs_fs_set_error_once(img->bfs, "tree %" PRIu64 " does not exist", *tree_id);
	if (ret)
		return ret;
	walk_tree(&w, *tree_id);
	return btrfs_walk_tree(root, walk_cb, &w);
}

/* -b --follow: @eb and, below it, every child verified against its pointer */
static int follow_block(struct btrfs_fs *fs, struct inspect_walk *w,
			const struct extent_buffer *eb)
{
	u8 level = btrfs_eb_level(eb);
	int ret;

	ret = visit(w, eb);
	if (ret || !level)
		return ret;
	for (u32 i = 0; i < btrfs_eb_nritems(eb) && !ret; i++) {
		struct btrfs_tree_parent_check check = {
			.transid = btrfs_eb_node_ptr_generation(eb, i),
			.has_level = true,
			.level = level - 1,
			.has_first_key = true,
		};
		struct extent_buffer *child;

		btrfs_eb_node_key(eb, i, &check.first_key);
		ret = btrfs_read_tree_block(fs, btrfs_eb_node_blockptr(eb, i), &check, &child);
		if (ret)
			break;
		ret = follow_block(fs, w, child);
		free_extent_buffer(child);
	}
	return ret;
}

int vc_inspect_block(struct vc_image *img, u64 bytenr, bool follow,
		     const struct vc_block_visitor *v)
{
	struct inspect_walk w = { .v = v };
	struct extent_buffer *eb;
	int ret;

	btrfs_fs_clear_error(img->bfs);
	ret = btrfs_read_tree_block(img->bfs, bytenr, NULL, &eb);
	if (ret)
		return ret;
	walk_tree(&w, btrfs_eb_owner(eb));
	ret = follow ? follow_block(img->bfs, &w, eb) : visit(&w, eb);
	free_extent_buffer(eb);
	return ret;
}

int vc_inspect_walk_verify(struct vc_image *img, const u64 *tree_id, struct vc_walk_stats **st,
			   size_t *nr)
{
	int ret;

	btrfs_fs_clear_error(img->bfs);
	ret = vc_walk_verify(img->bfs, tree_id, st, nr);
	if (ret == -ENOENT && tree_id)
		btrfs_fs_set_error_once(img->bfs, "tree %" PRIu64 " does not exist", *tree_id);
	return ret;
}
