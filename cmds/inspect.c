// SPDX-License-Identifier: GPL-2.0-only
/*
 * volctl inspect: dump superblocks and trees of an unmounted image.
 *
 *   inspect super [--super N] [--all] IMAGE
 *   inspect tree [-t TREE] [-b BYTENR [--follow]] [--walk-only] IMAGE...
 *
 * Both take the image as their own argument (CMD_IMAGE_ARG); the reading is
 * common/tool/offline-inspect.c's (the image opened once, read-only, through
 * common/image/image.h), the rendering (text or --format json)
 * common/output/offline-dump.c's, of the descriptions in common/output/records-inspect.c
 * (the per-tree counts and the total of --walk-only too).  `tree
 * --walk-only` reads and verifies every block without printing them: the
 * benchmark and a quick check.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cmds/commands.h"
#include "common/util/messages.h"
#include "common/tool/offline-inspect.h"
#include "common/util/parse-utils.h"
#include "common/output/records-inspect.h"
#include "kernel-shared/format.h"

/* ------------------------------------------------------------------ */
/* inspect super                                                       */
/* ------------------------------------------------------------------ */

static const char *const cmd_inspect_super_usage[] = {
	"inspect super [--super N] [--all] <image>",
	NULL,
};

static const char *const cmd_inspect_super_details[] = {
	"Print every field of a superblock copy: flags decoded by name, the",
	"checksum type and whether the checksum matches, the device item, the",
	"system chunk array and the four backup roots.  Nothing is written.",
	"",
	"Options:",
	OPTLINE("-s|--super N", "copy to print: 0 (64KiB), 1 (64MiB), 2 (256GiB); default:"),
	"\tthe primary (0), the only copy the kernel mounts from",
	OPTLINE("-a|--all", "print every copy that fits on the device"),
	"",
	"Exit status is 1 when a printed copy is not valid (bad magic, checksum",
	"or field), after printing it.",
	NULL,
};

static const struct cmd_help super_help = {
	.synopsis = cmd_inspect_super_usage,
	.summary = "print the superblock of an image",
	.details = cmd_inspect_super_details,
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

static int cmd_inspect_super(const struct cmd_struct *cmd, const struct vc_ctx *ctx, int argc,
			     char **argv)
{
	static const struct option longopts[] = {
		{ "super", required_argument, NULL, 's' },
		{ "all", no_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 },
	};
	int mirror = ctx->cfg->super_mirror;
	bool all = false;
	const char *name;
	int c;

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
	return vc_inspect_super(name, mirror, all, ctx->cfg->format == VC_FORMAT_JSON) ?
	       VC_EXIT_FAILURE : VC_EXIT_OK;
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

static const char *const cmd_inspect_tree_usage[] = {
	"inspect tree [-t <tree>] [--walk-only] <image> [<image>...]",
	"inspect tree -b <bytenr> [--follow] <image> [<image>...]",
	NULL,
};

static const char *const cmd_inspect_tree_details[] = {
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
	.synopsis = cmd_inspect_tree_usage,
	.summary = "print or verify the trees of an image",
	.details = cmd_inspect_tree_details,
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
		n = vc_tree_name(tree_names[i].id);
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

static void tree_title(u64 id, char *buf, size_t size)
{
	const char *n = vc_tree_name(id);

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
			struct vc_dump_tree_rec r = {
				.tree_id = w->cur.tree_id, .name = vc_tree_name(w->cur.tree_id),
				.nodes = w->cur.nodes, .leaves = w->cur.leaves, .items = w->cur.items,
			};

			vc_dump_elem(d, &vc_dump_walk_trees, 0, &r);
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
	struct vc_dump_tree_rec r = { .tree_id = id, .name = vc_tree_name(id) };
	char title[64];

	walk_close_tree(w);
	memset(&w->cur, 0, sizeof(w->cur));
	w->cur.tree_id = id;
	w->in_tree = true;
	if (w->walk_only)
		return;
	tree_title(id, title, sizeof(title));
	vc_dump_open(d, NULL, title);
	vc_dump_rec(d, &vc_dump_tree_head, &r);
	vc_dump_list_begin(d, &vc_dump_tree_blocks);
}

static void walk_count(struct tree_walk *w, const struct vc_block_info *bi)
{
	if (bi->level) {
		w->cur.nodes++;
		w->total.nodes++;
	} else {
		w->cur.leaves++;
		w->total.leaves++;
		w->cur.items += bi->nritems;
		w->total.items += bi->nritems;
	}
}

static void walk_tree_cb(void *priv, u64 tree_id)
{
	walk_open_tree(priv, tree_id);
}

static int walk_block_cb(void *priv, const struct extent_buffer *eb,
			 const struct vc_block_info *bi)
{
	struct tree_walk *w = priv;

	walk_count(w, bi);
	if (!w->walk_only)
		vc_dump_block(w->d, eb);
	return 0;
}

/* --walk-only without -b: the fast verifying walk of common/image/offline-walk.c */
static int walk_verify(struct vc_image *img, struct tree_walk *w, const u64 *tree_id)
{
	struct vc_walk_stats *st;
	size_t nr;
	int ret;

	ret = vc_inspect_walk_verify(img, tree_id, &st, &nr);
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
	const struct vc_block_visitor visitor = {
		.tree = walk_tree_cb, .block = walk_block_cb, .priv = &w,
	};
	struct tree_opts o;
	struct vc_image *img;
	struct vc_dump d;
	const char *const *paths;
	int ret, nr_paths;

	ret = tree_parse_opts(ctx, argc, argv, &o);
	if (ret)
		return ret;
	paths = argc > optind ? (const char *const *)argv + optind : ctx->cfg->images;
	nr_paths = argc > optind ? argc - optind : ctx->cfg->nr_images;
	img = vc_image_new();
	if (!img) {
		error("%s", strerror(ENOMEM));
		return VC_EXIT_FAILURE;
	}
	ret = vc_image_open(img, &(struct vc_image_args){ .paths = paths, .nr_paths = nr_paths,
			    .mirror = ctx->cfg->super_mirror, .cache_blocks = WALK_CACHE_BLOCKS,
			    .mode = VC_IMAGE_READ });
	if (ret) {
		error("%s", vc_image_error(img));
		vc_image_free(img);
		return VC_EXIT_FAILURE;
	}
	vc_image_warn(img);
	vc_dump_init(&d, stdout, ctx->cfg->format == VC_FORMAT_JSON);
	d.csum_type = vc_image_csum_type(img);
	w.d = &d;
	w.walk_only = o.walk_only;
	vc_dump_list_begin(&d, &vc_dump_trees);
	if (o.has_block)
		ret = vc_inspect_block(img, o.bytenr, o.follow, &visitor);
	else if (o.walk_only)
		ret = walk_verify(img, &w, o.has_tree ? &o.tree_id : NULL);
	else
		ret = vc_inspect_walk(img, o.has_tree ? &o.tree_id : NULL, &visitor);
	walk_close_tree(&w);
	vc_dump_list_close(&d);
	if (o.walk_only && !ret) {
		if (d.json) {
			struct vc_dump_tree_rec r = {
				.nodes = w.total.nodes, .leaves = w.total.leaves, .items = w.total.items,
			};

			vc_dump_list_begin(&d, &vc_dump_total);
			vc_dump_rec(&d, &vc_dump_total_counts, &r);
			vc_dump_close(&d);
		} else {
			printf("total: %" PRIu64 " nodes, %" PRIu64 " leaves, %" PRIu64 " items\n",
			       w.total.nodes, w.total.leaves, w.total.items);
		}
	}
	vc_dump_finish(&d);
	if (ret) {
		vc_image_set_error(img, ret);
		error("%s", vc_image_error(img));
	}
	vc_image_free(img);
	return ret ? VC_EXIT_FAILURE : VC_EXIT_OK;
}

static const struct cmd_struct cmd_struct_inspect_tree = {
	.token = "tree",
	.fn = cmd_inspect_tree,
	.help = &tree_help,
	.flags = CMD_FORMAT_JSON | CMD_IMAGE_ARG,
};

static const struct cmd_struct *const cmd_group_inspect_commands[] = {
	&cmd_struct_inspect_super,
	&cmd_struct_inspect_tree,
	NULL,
};

const struct cmd_group cmd_group_inspect = {
	.token = "inspect",
	.summary = "dump superblocks and trees of an image",
	.commands = cmd_group_inspect_commands,
};
