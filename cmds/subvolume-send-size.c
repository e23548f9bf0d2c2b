// SPDX-License-Identifier: GPL-2.0-only
/*
 * volctl subvolume send-size: the bytes `btrfs send` would write for a
 * read-only subvolume, protocol 1 and protocol 2 with --compressed-data.
 * The work is the backend's (kernel-shared/send-size.h, on an image or on
 * the committed trees of a mounted filesystem); here the options are
 * parsed and the numbers printed.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "cmds/commands.h"
#include "cmds/subvolume.h"
#include "common/backend/backend.h"
#include "common/backend/facts.h"
#include "common/output/records.h"
#include "common/util/messages.h"

static const char *const cmd_subvolume_send_size_usage[] = {
	"subvolume send-size [-p <parent>] [-c <clone-src>]... <subvolume>",
	NULL,
};

static const char *const cmd_subvolume_send_size_details[] = {
	"The number of bytes 'btrfs send' with the same arguments writes, for",
	"stream protocol 1 and for protocol 2 with --compressed-data, computed",
	"from the trees without sending, clones included.  The subvolume, the",
	"parent and the clone sources must be read-only, as for send.  As btrfs",
	"send does, -c without -p picks the parent among the clone sources.",
	"On a mounted filesystem it is committed first and its devices are read,",
	"which needs CAP_SYS_ADMIN (root); offline with --image.",
	"",
	OPTLINE("-p <parent>", "incremental send from <parent> (also a clone source)"),
	OPTLINE("-c <clone-src>", "another subvolume extents may be cloned from (repeatable)"),
	OPTLINE("--format json", "(global option) a JSON document with the breakdown"),
	NULL,
};

static const struct cmd_help send_size_help = {
	cmd_subvolume_send_size_usage, "show how many bytes a send of a subvolume writes",
	cmd_subvolume_send_size_details,
};

static void print_proto(const char *name, const struct btrfs_send_size_proto *p)
{
	printf("%s: %" PRIu64 " bytes (data %" PRIu64 ", %" PRIu64 " commands, %" PRIu64
	       " writes, %" PRIu64 " clones)\n", name, p->total, p->data, p->commands,
	       p->writes, p->clones);
}

/*
 * btrfs send does not check that the parent is related: the stream turns
 * the parent into the subvolume, so for unrelated trees it carries all of
 * one and the removal of all of the other.  Say so, with the numbers.
 */
static int unrelated_parent(const struct vc_ctx *ctx, struct vc_fs *fs, const char *path,
			    const char *parent, const struct btrfs_send_size *sz)
{
	struct vc_send_req full = { .subvolid = 0 };
	struct vc_path_info info;
	struct btrfs_send_size f;
	int ret;

	ret = sv_require_subvol(ctx, fs, path, &info);
	if (ret)
		return VC_EXIT_FAILURE;
	full.subvolid = info.subvolid;
	vc_fs_clear_error(fs);
	ret = ctx->ops->send_size(fs, &full, &f);
	if (ret)
		return cmd_report(ctx, fs, ret, path);
	error("%s: %s shares no origin with it (neither is a snapshot of the other or of a common subvolume); btrfs send -p would still send it: %" PRIu64 " bytes (v1; %" PRIu64 " with --proto 2 --compressed-data), all of one and the removal of all of the other, where a full send is %" PRIu64 " bytes",
	      path, parent, sz->v1.total, sz->v2c.total, f.v1.total);
	return VC_EXIT_FAILURE;
}

struct send_args {
	const char *parent;
	const char **clones;		/* NULL-terminated */
	u32 nr_clones;
};

/*
 * Send refuses a subvolume, parent or clone source that is not read-only,
 * and the library names it by id: name the path as given, and what to do.
 * 0 when none of them is writable (the refusal was something else), or the
 * list cannot be read (no privilege online: the library's line stands).
 */
static int writable_refusal(struct vc_fs *fs, const char *path, const struct send_args *a,
			    const struct vc_send_req *req)
{
	struct btrfs_subvol_list l;
	const struct btrfs_subvol *s;
	const char *name = NULL, *what = NULL;

	if (vc_facts_subvols(fs, &l))
		return 0;
	s = btrfs_subvol_list_find(&l, req->subvolid);
	if (s && !(s->root.flags & BTRFS_ROOT_SUBVOL_RDONLY))
		name = path, what = "subvolume";
	s = req->parent ? btrfs_subvol_list_find(&l, req->parent) : NULL;
	if (!name && s && !(s->root.flags & BTRFS_ROOT_SUBVOL_RDONLY))
		name = a->parent, what = "parent";
	for (u32 i = 0; !name && i < a->nr_clones; i++) {
		s = btrfs_subvol_list_find(&l, req->clones[i]);
		if (s && !(s->root.flags & BTRFS_ROOT_SUBVOL_RDONLY))
			name = a->clones[i], what = "clone source";
	}
	btrfs_subvol_list_release(&l);
	if (!name)
		return 0;
	error("%s: not read-only, and btrfs send refuses a writable %s (send a read-only snapshot of it: volctl subvolume snapshot -r)",
	      name, what);
	return VC_EXIT_FAILURE;
}

/* the numbers; in JSON with the parent sent against and the clone sources */
static int send_size_print(const struct vc_ctx *ctx, const char *path, const struct send_args *a,
			   const u64 *clones, const struct btrfs_send_size *sz)
{
	const char *parent = a->parent;

	/* -c alone: the clone source btrfs send picked as the parent */
	for (u32 i = 0; !parent && sz->parent && i < a->nr_clones; i++)
		if (clones[i] == sz->parent)
			parent = a->clones[i];
	if (ctx->cfg->format == VC_FORMAT_JSON) {
		struct send_size_rec doc = {
			.subvolume = path,
			.parent = parent,
			.clone_sources = a->clones,
			.v1 = { sz->v1.total, sz->v1.data, sz->v1.commands, sz->v1.writes,
				sz->v1.clones },
			.v2c = { sz->v2c.total, sz->v2c.data, sz->v2c.commands, sz->v2c.writes,
				 sz->v2c.clones },
		};

		cmd_print_doc(ctx, &rec_doc_send_size, &rec_send_size, &doc);
	} else {
		print_proto("v1", &sz->v1);
		print_proto("v2 compressed", &sz->v2c);
	}
	return VC_EXIT_OK;
}

static int send_size_run(const struct vc_ctx *ctx, struct vc_fs *fs, const char *path,
			 const struct send_args *a)
{
	struct vc_send_req req = { .nr_clones = a->nr_clones };
	char *paths[2] = { (char *)path, (char *)a->parent };
	struct vc_path_info info, was[2];
	struct btrfs_send_size sz;
	u64 *clones = NULL;
	int ret, ret2;

	ret = sv_require_subvol(ctx, fs, path, &was[0]);
	if (ret)
		return VC_EXIT_FAILURE;
	req.subvolid = was[0].subvolid;
	if (a->parent) {
		ret = sv_require_subvol(ctx, fs, a->parent, &was[1]);
		if (ret)
			return VC_EXIT_FAILURE;
		req.parent = was[1].subvolid;
	}
	if (a->nr_clones) {
		clones = calloc(a->nr_clones, sizeof(*clones));
		if (!clones)
			return cmd_report(ctx, NULL, -ENOMEM, path);
		for (u32 i = 0; i < a->nr_clones; i++) {
			ret = sv_require_subvol(ctx, fs, a->clones[i], &info);
			if (ret) {
				free(clones);
				return VC_EXIT_FAILURE;
			}
			clones[i] = info.subvolid;
		}
		req.clones = clones;
	}
	vc_fs_clear_error(fs);
	ret = ctx->ops->send_size(fs, &req, &sz);
	if (ret == -EPERM && (ret2 = writable_refusal(fs, path, a, &req)))
		ret = ret2;
	else if (ret == -ESTALE)
		ret = sv_report_gone(ctx, fs, paths, was, a->parent ? 2 : 1, ret);
	else if (ret)
		ret = cmd_report(ctx, fs, ret, path);
	else if (sz.unrelated)
		ret = unrelated_parent(ctx, fs, path, a->parent ? a->parent : "the parent", &sz);
	else
		ret = send_size_print(ctx, path, a, clones, &sz);
	free(clones);
	return ret;
}

static int cmd_subvolume_send_size(const struct cmd_struct *cmd, const struct vc_ctx *ctx,
				   int argc, char **argv)
{
	struct send_args a = { 0 };
	struct vc_fs *fs;
	int c, ret;

	(void)cmd;
	a.clones = calloc((size_t)argc + 1, sizeof(*a.clones));
	if (!a.clones)
		return cmd_report(ctx, NULL, -ENOMEM, "subvolume send-size");
	while ((c = cmd_getopt(ctx, argc, argv, "p:c:", NULL)) != -1) {
		switch (c) {
		case 'p':
			a.parent = optarg;
			break;
		case 'c':
			a.clones[a.nr_clones++] = optarg;
			break;
		default:
			free(a.clones);
			return VC_EXIT_USAGE;
		}
	}
	ret = cmd_check_argc_exact(ctx, argc - optind, 1);
	if (ret) {
		free(a.clones);
		return ret;
	}
	ret = cmd_open(ctx, argv[optind], false, &fs);
	if (ret) {
		free(a.clones);
		return VC_EXIT_FAILURE;
	}
	ret = send_size_run(ctx, fs, argv[optind], &a);
	cmd_close(ctx, fs);
	free(a.clones);
	return ret;
}

const struct cmd_struct cmd_struct_subvolume_send_size = {
	"send-size", cmd_subvolume_send_size, &send_size_help, NULL,
	CMD_ONLINE | CMD_OFFLINE | CMD_FORMAT_JSON,
};
