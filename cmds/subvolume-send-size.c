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
#include "cmds/commands.h"
#include "cmds/subvolume.h"
#include "common/backend/backend.h"
#include "common/output/records.h"
#include "common/util/messages.h"

static const char *const cmd_subvolume_send_size_usage[] = {
	"subvolume send-size [-p <parent>] [-c <clone-src>]... <subvolume>",
	NULL,
};

static const char *const cmd_subvolume_send_size_details[] = {
	"The number of bytes 'btrfs send <subvolume>' writes, for stream protocol",
	"1 and for protocol 2 with --compressed-data, computed from the trees",
	"without sending, clones within the subvolume included.  Full sends only",
	"for now (-p and -c are refused).  The subvolume must be read-only, as",
	"for send.",
	"On a mounted filesystem it is committed first and its devices are read,",
	"which needs CAP_SYS_ADMIN (root); offline with --image.",
	"",
	OPTLINE("-p <parent>", "incremental send from <parent> (not implemented yet)"),
	OPTLINE("-c <clone-src>", "clone source (not implemented yet)"),
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

static int send_size_run(const struct vc_ctx *ctx, struct vc_fs *fs, const char *path)
{
	struct vc_path_info info;
	struct btrfs_send_size sz;
	int ret;

	ret = sv_require_subvol(ctx, fs, path, &info);
	if (ret)
		return VC_EXIT_FAILURE;
	vc_fs_clear_error(fs);
	ret = ctx->ops->send_size(fs, info.subvolid, &sz);
	if (ret == -ESTALE)
		return sv_report_gone(ctx, fs, (char **)&path, &info, 1, ret);
	if (ret)
		return cmd_report(ctx, fs, ret, path);
	if (ctx->cfg->format == VC_FORMAT_JSON) {
		struct send_size_rec doc = {
			.subvolume = path,
			.v1 = { sz.v1.total, sz.v1.data, sz.v1.commands, sz.v1.writes, sz.v1.clones },
			.v2c = { sz.v2c.total, sz.v2c.data, sz.v2c.commands, sz.v2c.writes,
				 sz.v2c.clones },
		};

		cmd_print_doc(ctx, &rec_doc_send_size, &rec_send_size, &doc);
	} else {
		print_proto("v1", &sz.v1);
		print_proto("v2 compressed", &sz.v2c);
	}
	return VC_EXIT_OK;
}

static int cmd_subvolume_send_size(const struct cmd_struct *cmd, const struct vc_ctx *ctx,
				   int argc, char **argv)
{
	struct vc_fs *fs;
	bool incremental = false;
	int c, ret;

	(void)cmd;
	while ((c = cmd_getopt(ctx, argc, argv, "p:c:", NULL)) != -1) {
		switch (c) {
		case 'p':
		case 'c':
			incremental = true;
			break;
		default:
			return VC_EXIT_USAGE;
		}
	}
	ret = cmd_check_argc_exact(ctx, argc - optind, 1);
	if (ret)
		return ret;
	if (incremental) {
		error("subvolume send-size: -p/-c not implemented yet");
		return VC_EXIT_FAILURE;
	}
	if (!ctx->ops->send_size) {
		error("subvolume send-size: not implemented online yet; use --image");
		return VC_EXIT_FAILURE;
	}
	ret = cmd_open(ctx, argv[optind], false, &fs);
	if (ret)
		return VC_EXIT_FAILURE;
	ret = send_size_run(ctx, fs, argv[optind]);
	cmd_close(ctx, fs);
	return ret;
}

const struct cmd_struct cmd_struct_subvolume_send_size = {
	"send-size", cmd_subvolume_send_size, &send_size_help, NULL,
	CMD_ONLINE | CMD_OFFLINE | CMD_FORMAT_JSON,
};
