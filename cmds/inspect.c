// SPDX-License-Identifier: GPL-2.0-only
/*
 * volctl inspect: dump superblocks and trees of an unmounted image.
 *
 *   inspect super [--super N] [--all] IMAGE
 *   inspect tree [-t TREE] [-b BYTENR [--follow]] [--walk-only] IMAGE...
 *
 * Both take the image as their own argument (CMD_IMAGE_ARG) and open it
 * read-only through common/offline.h; the rendering (text or --format json)
 * lives in common/offline-dump.c.  `tree --walk-only` reads and verifies
 * every block without printing them: the benchmark and a quick check.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cmds/commands.h"
#include "common/messages.h"
#include "common/offline.h"
#include "common/offline-dump.h"
#include "common/parse-utils.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/fs.h"
#include "kernel-shared/items.h"
#include "kernel-shared/volumes.h"
#include "kernel-shared/walk.h"

/* ------------------------------------------------------------------ */
/* inspect super                                                       */
/* ------------------------------------------------------------------ */

static const char *const super_synopsis[] = {
	"inspect super [--super N] [--all] <image>",
	NULL,
};

static const char *const super_details[] = {
	"Print every field of a superblock copy: flags decoded by name, the",
	"checksum type and whether the checksum matches, the device item, the",
	"system chunk array and the four backup roots.  Nothing is written.",
	"",
	"Options:",
	OPTLINE("-s|--super N", "copy to print: 0 (64KiB), 1 (64MiB), 2 (256GiB); default:"),
	"\tthe valid copy with the highest generation",
	OPTLINE("-a|--all", "print every copy that fits on the device"),
	"",
	"Exit status is 1 when a printed copy is not valid (bad magic, checksum",
	"or field), after printing it.",
	NULL,
};

static const struct cmd_help super_help = {
	.synopsis = super_synopsis,
	.summary = "print the superblock of an image",
	.details = super_details,
};

enum { OPT_FOLLOW = 256, OPT_WALK_ONLY };

static int parse_mirror(const struct vc_ctx *ctx, const char *arg, int *mirror)
{
	u64 v;

	if (parse_u64(arg, &v) || v >= BTRFS_SUPER_MIRROR_MAX)
		return cmd_usage_error(ctx, "invalid superblock mirror '%s': use 0, 1 or 2", arg);
	*mirror = (int)v;
	return 0;
}

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

/* The valid copy with the highest generation, 0 when none is valid. */
static int best_mirror(struct btrfs_io_dev *dev)
{
	struct btrfs_super_block sb;
	u64 best_gen = 0;
	int best = 0;

	for (int m = 0; m < BTRFS_SUPER_MIRROR_MAX; m++) {
		if (btrfs_super_read_mirror(dev, m, &sb, NULL))
			continue;
		if (btrfs_super_generation(&sb) > best_gen) {
			best_gen = btrfs_super_generation(&sb);
			best = m;
		}
	}
	return best;
}

static int cmd_inspect_super(const struct cmd_struct *cmd, const struct vc_ctx *ctx, int argc,
			     char **argv)
{
	static const struct option longopts[] = {
		{ "super", required_argument, NULL, 's' },
		{ "all", no_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 },
	};
	int mirror = ctx->cfg->super_mirror;
	struct btrfs_io_dev *dev;
	bool all = false, invalid = false;
	struct vc_dump d;
	const char *name;
	int c, ret;

	while ((c = cmd_getopt(ctx, argc, argv, "s:a", longopts)) != -1) {
		switch (c) {
		case 's':
			if (parse_mirror(ctx, optarg, &mirror))
				return VC_EXIT_USAGE;
			break;
		case 'a':
			all = true;
			break;
		default:
			return VC_EXIT_USAGE;
		}
	}
	/* the image is our own argument; a lone global --image also does */
	if (argc - optind == 0 && ctx->cfg->nr_images == 1)
		name = ctx->cfg->images[0];
	else if (cmd_check_argc_exact(ctx, argc - optind, 1))
		return VC_EXIT_USAGE;
	else
		name = argv[optind];
	ret = btrfs_io_open_file(name, false, &dev);
	if (ret) {
		error("%s: %s", name, strerror(-ret));
		return VC_EXIT_FAILURE;
	}
	if (mirror < 0)
		mirror = best_mirror(dev);
	vc_dump_init(&d, stdout, ctx->cfg->format == VC_FORMAT_JSON);
	vc_dump_list_open(&d, "superblocks", NULL);
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
	return invalid ? VC_EXIT_FAILURE : VC_EXIT_OK;
}

static const struct cmd_struct cmd_struct_inspect_super = {
	.token = "super",
	.fn = cmd_inspect_super,
	.help = &super_help,
	.flags = CMD_FORMAT_JSON | CMD_IMAGE_ARG,
};

/* ------------------------------------------------------------------ */
/* inspect tree                                                        */
/* ------------------------------------------------------------------ */

static const char *const tree_synopsis[] = {
	"inspect tree [-t <tree>] [--walk-only] <image> [<image>...]",
	"inspect tree -b <bytenr> [--follow] <image> [<image>...]",
	NULL,
};

static const char *const tree_details[] = {
	"Print tree blocks: the header, then every key pointer of a node or",
	"every item of a leaf with its key and its decoded body (unknown item",
	"types as hex).  Without -t or -b: the chunk tree, the root tree and",
	"every tree the root tree lists.  Every block is verified (checksum,",
	"parent pointer, structure) before it is printed; the first bad block",
	"ends the dump with an error.  Give every device of a multi-device",
	"filesystem, or let libblkid find the block devices.",
	"",
	"Options:",
	OPTLINE("-t|--tree <tree>", "only this tree: an id or a name (root, extent, chunk, dev,"),
	"\tfs, csum, quota, uuid, free-space, block-group, data-reloc)",
	OPTLINE("-b|--block <bytenr>", "only the block at this logical address"),
	OPTLINE("--follow", "with -b: also every block below it"),
	OPTLINE("--walk-only", "read and verify every block, print only counts per tree"),
	NULL,
};

static const struct cmd_help tree_help = {
	.synopsis = tree_synopsis,
	.summary = "print or verify the trees of an image",
	.details = tree_details,
};

static const struct {
	const char *name;
	u64 id;
} tree_names[] = {
	{ "root", BTRFS_ROOT_TREE_OBJECTID },
	{ "extent", BTRFS_EXTENT_TREE_OBJECTID },
	{ "chunk", BTRFS_CHUNK_TREE_OBJECTID },
	{ "dev", BTRFS_DEV_TREE_OBJECTID },
	{ "fs", BTRFS_FS_TREE_OBJECTID },
	{ "csum", BTRFS_CSUM_TREE_OBJECTID },
	{ "quota", BTRFS_QUOTA_TREE_OBJECTID },
	{ "uuid", BTRFS_UUID_TREE_OBJECTID },
	{ "free-space", BTRFS_FREE_SPACE_TREE_OBJECTID },
	{ "block-group", BTRFS_BLOCK_GROUP_TREE_OBJECTID },
	{ "raid-stripe", BTRFS_RAID_STRIPE_TREE_OBJECTID },
	{ "data-reloc", BTRFS_DATA_RELOC_TREE_OBJECTID },
};

static int parse_tree_id(const char *s, u64 *id)
{
	const char *n;

	if (!parse_u64(s, id))
		return 0;
	for (size_t i = 0; i < sizeof(tree_names) / sizeof(tree_names[0]); i++) {
		if (!strcasecmp(s, tree_names[i].name)) {
			*id = tree_names[i].id;
			return 0;
		}
		/* the names dump-tree prints: ROOT_TREE, FS_TREE, ... */
		n = btrfs_tree_name(tree_names[i].id);
		if (n && !strcasecmp(s, n)) {
			*id = tree_names[i].id;
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * A walk visits each block once (shared blocks aside): a small cache keeps
 * the reader reusing its buffers instead of growing the heap.
 */
#define WALK_CACHE_BLOCKS	256

/* What a walk counts, per tree and in total */
#define tree_count vc_walk_stats

struct tree_walk {
	struct vc_dump *d;
	bool walk_only;
	bool in_tree;			/* a per-tree container is open */
	struct tree_count cur;
	struct tree_count total;
};

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

static void tree_title(u64 id, char *buf, size_t size)
{
	const char *n = btrfs_tree_name(id);

	if (n)
		snprintf(buf, size, "tree %s (%" PRId64 ")", n, (s64)id);
	else
		snprintf(buf, size, "tree %" PRIu64, id);
}

static void walk_close_tree(struct tree_walk *w)
{
	struct vc_dump *d = w->d;
	char title[64];

	if (!w->in_tree)
		return;
	if (w->walk_only) {
		tree_title(w->cur.tree_id, title, sizeof(title));
		if (d->json) {
			vc_dump_open(d, NULL, NULL);
			vc_dump_u64(d, "tree_id", w->cur.tree_id);
			vc_dump_str(d, "name", btrfs_tree_name(w->cur.tree_id));
			vc_dump_u64(d, "nodes", w->cur.nodes);
			vc_dump_u64(d, "leaves", w->cur.leaves);
			vc_dump_u64(d, "items", w->cur.items);
			vc_dump_close(d);
		} else {
			fprintf(d->out, "%s: %" PRIu64 " nodes, %" PRIu64 " leaves, %" PRIu64
				" items\n", title, w->cur.nodes, w->cur.leaves, w->cur.items);
		}
	} else {
		vc_dump_list_close(d);
		vc_dump_close(d);
	}
	w->in_tree = false;
}

static void walk_open_tree(struct tree_walk *w, u64 id)
{
	struct vc_dump *d = w->d;
	char title[64];

	walk_close_tree(w);
	memset(&w->cur, 0, sizeof(w->cur));
	w->cur.tree_id = id;
	w->in_tree = true;
	if (w->walk_only)
		return;
	tree_title(id, title, sizeof(title));
	vc_dump_open(d, NULL, title);
	vc_dump_u64_json(d, "tree_id", id);
	if (d->json)
		vc_dump_str(d, "name", btrfs_tree_name(id));
	vc_dump_list_open(d, "blocks", NULL);
}

static void walk_count(struct tree_walk *w, const struct extent_buffer *eb)
{
	if (btrfs_eb_level(eb)) {
		w->cur.nodes++;
		w->total.nodes++;
	} else {
		w->cur.leaves++;
		w->total.leaves++;
		w->cur.items += btrfs_eb_nritems(eb);
		w->total.items += btrfs_eb_nritems(eb);
	}
}

static int walk_cb(void *priv, const struct extent_buffer *eb, const struct btrfs_walk_info *info)
{
	struct tree_walk *w = priv;

	if (!w->in_tree || info->tree_id != w->cur.tree_id)
		walk_open_tree(w, info->tree_id);
	walk_count(w, eb);
	walk_prefetch(eb, info);
	if (!w->walk_only)
		vc_dump_block(w->d, eb);
	return 0;
}

/* -b --follow: @eb and, below it, every child verified against its pointer */
static int follow_block(struct btrfs_fs *fs, struct tree_walk *w, const struct extent_buffer *eb)
{
	u8 level = btrfs_eb_level(eb);
	int ret = 0;

	walk_count(w, eb);
	if (!w->walk_only)
		vc_dump_block(w->d, eb);
	if (!level)
		return 0;
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

static int dump_from_block(struct btrfs_fs *fs, struct tree_walk *w, u64 bytenr, bool follow)
{
	struct extent_buffer *eb;
	int ret;

	ret = btrfs_read_tree_block(fs, bytenr, NULL, &eb);
	if (ret)
		return ret;
	walk_open_tree(w, btrfs_eb_owner(eb));
	if (follow) {
		ret = follow_block(fs, w, eb);
	} else {
		walk_count(w, eb);
		if (!w->walk_only)
			vc_dump_block(w->d, eb);
	}
	free_extent_buffer(eb);
	return ret;
}

/* --walk-only without -b: the fast verifying walk of common/offline-walk.c */
static int walk_verify(struct vc_image *img, struct tree_walk *w, const u64 *tree_id)
{
	struct vc_walk_stats *st;
	size_t nr;
	int ret;

	ret = vc_walk_verify(img->bfs, tree_id, &st, &nr);
	if (ret == -ENOENT && tree_id)
		btrfs_fs_set_error_once(img->bfs, "tree %" PRIu64 " does not exist", *tree_id);
	if (ret)
		return ret;
	for (size_t i = 0; i < nr; i++) {
		walk_open_tree(w, st[i].tree_id);
		w->cur = st[i];
		w->total.nodes += st[i].nodes;
		w->total.leaves += st[i].leaves;
		w->total.items += st[i].items;
		walk_close_tree(w);
	}
	free(st);
	return 0;
}

struct tree_opts {
	bool has_tree, has_block, follow, walk_only;
	u64 tree_id, bytenr;
};

static int tree_parse_opts(const struct vc_ctx *ctx, int argc, char **argv, struct tree_opts *o)
{
	static const struct option longopts[] = {
		{ "tree", required_argument, NULL, 't' },
		{ "block", required_argument, NULL, 'b' },
		{ "follow", no_argument, NULL, OPT_FOLLOW },
		{ "walk-only", no_argument, NULL, OPT_WALK_ONLY },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	while ((c = cmd_getopt(ctx, argc, argv, "t:b:", longopts)) != -1) {
		switch (c) {
		case 't':
			if (parse_tree_id(optarg, &o->tree_id))
				return cmd_usage_error(ctx, "unknown tree '%s'", optarg);
			o->has_tree = true;
			break;
		case 'b':
			if (parse_u64(optarg, &o->bytenr))
				return cmd_usage_error(ctx, "invalid block address '%s'", optarg);
			o->has_block = true;
			break;
		case OPT_FOLLOW:
			o->follow = true;
			break;
		case OPT_WALK_ONLY:
			o->walk_only = true;
			break;
		default:
			return VC_EXIT_USAGE;
		}
	}
	if (o->has_tree && o->has_block)
		return cmd_usage_error(ctx, "options -t and -b are mutually exclusive");
	if (o->follow && !o->has_block)
		return cmd_usage_error(ctx, "option --follow needs -b");
	if (argc - optind == 0 && ctx->cfg->nr_images > 0)
		return 0;	/* the global --image options name the devices */
	return cmd_check_argc_min(ctx, argc - optind, 1);
}

static int cmd_inspect_tree(const struct cmd_struct *cmd, const struct vc_ctx *ctx, int argc,
			    char **argv)
{
	struct tree_walk w = { 0 };
	struct tree_opts o;
	struct vc_image img;
	struct vc_dump d;
	const char *const *paths;
	int ret, nr_paths;

	ret = tree_parse_opts(ctx, argc, argv, &o);
	if (ret)
		return ret;
	paths = argc > optind ? (const char *const *)argv + optind : ctx->cfg->images;
	nr_paths = argc > optind ? argc - optind : ctx->cfg->nr_images;
	ret = vc_image_open(&img, &(struct vc_image_args){ .paths = paths, .nr_paths = nr_paths,
			    .mirror = ctx->cfg->super_mirror, .cache_blocks = WALK_CACHE_BLOCKS,
			    .mode = VC_IMAGE_READ });
	if (ret) {
		error("%s", img.err);
		return VC_EXIT_FAILURE;
	}
	vc_image_warn(&img);
	vc_dump_init(&d, stdout, ctx->cfg->format == VC_FORMAT_JSON);
	d.csum_type = img.bfs->csum_type;
	w.d = &d;
	w.walk_only = o.walk_only;
	vc_dump_list_open(&d, "trees", NULL);
	btrfs_fs_clear_error(img.bfs);
	if (o.has_block) {
		ret = dump_from_block(img.bfs, &w, o.bytenr, o.follow);
	} else if (o.walk_only) {
		ret = walk_verify(&img, &w, o.has_tree ? &o.tree_id : NULL);
	} else if (o.has_tree) {
		struct btrfs_root *root;

		ret = btrfs_read_root(img.bfs, o.tree_id, &root);
		if (ret == -ENOENT) {
			btrfs_fs_set_error_once(img.bfs, "tree %" PRIu64 " does not exist",
						o.tree_id);
		} else if (!ret) {
			walk_open_tree(&w, o.tree_id);
			ret = btrfs_walk_tree(root, walk_cb, &w);
		}
	} else {
		ret = btrfs_walk_all_trees(img.bfs, o.walk_only, walk_cb, &w);
	}
	walk_close_tree(&w);
	vc_dump_list_close(&d);
	if (o.walk_only && !ret) {
		if (d.json) {
			vc_dump_open(&d, "total", NULL);
			vc_dump_u64(&d, "nodes", w.total.nodes);
			vc_dump_u64(&d, "leaves", w.total.leaves);
			vc_dump_u64(&d, "items", w.total.items);
			vc_dump_close(&d);
		} else {
			printf("total: %" PRIu64 " nodes, %" PRIu64 " leaves, %" PRIu64 " items\n",
			       w.total.nodes, w.total.leaves, w.total.items);
		}
	}
	vc_dump_finish(&d);
	if (ret) {
		vc_image_set_error(&img, ret);
		error("%s", img.err);
	}
	vc_image_close(&img);
	return ret ? VC_EXIT_FAILURE : VC_EXIT_OK;
}

static const struct cmd_struct cmd_struct_inspect_tree = {
	.token = "tree",
	.fn = cmd_inspect_tree,
	.help = &tree_help,
	.flags = CMD_FORMAT_JSON | CMD_IMAGE_ARG,
};

static const struct cmd_struct *const inspect_commands[] = {
	&cmd_struct_inspect_super,
	&cmd_struct_inspect_tree,
	NULL,
};

const struct cmd_group inspect_cmd_group = {
	.token = "inspect",
	.summary = "dump superblocks and trees of an image",
	.commands = inspect_commands,
};
