// SPDX-License-Identifier: GPL-2.0-only
/*
 * volctl quota: enable, disable and rescan quota accounting, show its state.
 *
 * Writes go through ops->quota_ctl / rescan_*; "status" reads the quota tree
 * through ops->tree_search (common/output/qgroup-out.c), so it works the same on a
 * mounted filesystem and on an image.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "cmds/commands.h"
#include "common/util/messages.h"
#include "common/output/qgroup-out.h"
#include "common/tool/qgroup-state.h"
#include "common/output/records.h"

/* 0 when quotas are on, else the error is printed and VC_EXIT_FAILURE returned. */
static int require_enabled(const struct vc_ctx *ctx, struct vc_fs *fs, const char *path)
{
	struct quota_state st;
	int ret = quota_state_read(ctx->ops, fs, NULL, &st);

	if (ret)
		return cmd_report(ctx, fs, ret, path);
	if (!st.enabled) {
		error("%s: quota is not enabled (run 'volctl quota enable %s')", path, path);
		return VC_EXIT_FAILURE;
	}
	return 0;
}

/*
 * --format json of enable, disable and rescan: the quota status after the
 * change, read through a handle opened afresh (offline, the writer's
 * handle still caches the quota root a disable removed).  The change is
 * done; a state that cannot be read then is a warning, not a failure.
 */
static void print_result(const struct vc_ctx *ctx, const char *path, const struct rec_doc *doc)
{
	struct quota_state st;
	struct vc_fs *fs = NULL;
	int ret;

	if (ctx->cfg->format != VC_FORMAT_JSON)
		return;
	ret = ctx->ops->open(&fs, ctx->cfg, path, false);
	if (!ret)
		ret = quota_state_read_status(ctx->ops, fs, NULL, &st);
	if (ret)
		warning("%s: done, but the quota state cannot be read back: %s", path,
			fs && vc_fs_error(fs) ? vc_fs_error(fs) : strerror(-ret));
	else
		quota_print_result(stdout, path, &st, doc);
	cmd_close(ctx, fs);
}

/* ---- enable / disable ---- */

/*
 * The kernel accepts enabling quotas that are already on and keeps the old
 * mode without a word; say so instead of pretending the mode changed.
 */
static int check_mode_switch(const struct vc_ctx *ctx, struct vc_fs *fs, const char *path,
			     enum vc_quota_mode mode)
{
	struct quota_state st;
	int ret;

	if (mode == VC_QUOTA_DISABLE)
		return 0;
	ret = quota_state_read(ctx->ops, fs, NULL, &st);
	vc_fs_clear_error(fs);
	if (ret || !st.enabled)
		return 0;	/* let the kernel decide and report */
	if (st.simple && mode == VC_QUOTA_ENABLE) {
		error("%s: simple quotas are enabled; run 'volctl quota disable %s' first to "
		      "switch to full accounting", path, path);
		return VC_EXIT_FAILURE;
	}
	if (!st.simple && mode == VC_QUOTA_ENABLE_SIMPLE) {
		error("%s: full quota accounting is enabled; run 'volctl quota disable %s' first "
		      "to switch to simple quotas", path, path);
		return VC_EXIT_FAILURE;
	}
	return 0;
}

static int quota_ctl(const struct vc_ctx *ctx, const char *path, enum vc_quota_mode mode)
{
	struct vc_fs *fs;
	int ret;

	ret = cmd_open(ctx, path, true, &fs);
	if (ret)
		return ret;
	ret = check_mode_switch(ctx, fs, path, mode);
	if (!ret)
		ret = CMD_OP(ctx, quota_ctl, fs, mode);
	if (ret < 0)
		ret = cmd_report(ctx, fs, ret, path);
	ctx->ops->close(fs);
	if (!ret)
		print_result(ctx, path, mode == VC_QUOTA_DISABLE ? &rec_doc_quota_disable :
			     &rec_doc_quota_enable);
	return ret;
}

static int cmd_quota_enable(const struct cmd_struct *cmd, const struct vc_ctx *ctx, int argc,
			    char **argv)
{
	static const struct option longopts[] = {
		{ "simple", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	enum vc_quota_mode mode = VC_QUOTA_ENABLE;
	int c, ret;

	while ((c = cmd_getopt(ctx, argc, argv, "s", longopts)) != -1) {
		switch (c) {
		case 's':
			mode = VC_QUOTA_ENABLE_SIMPLE;
			break;
		default:
			return VC_EXIT_USAGE;
		}
	}
	ret = cmd_check_argc_exact(ctx, argc - optind, 1);
	if (ret)
		return ret;
	return quota_ctl(ctx, argv[optind], mode);
}

static int cmd_quota_disable(const struct cmd_struct *cmd, const struct vc_ctx *ctx, int argc,
			     char **argv)
{
	int c, ret;

	while ((c = cmd_getopt(ctx, argc, argv, "", NULL)) != -1)
		return VC_EXIT_USAGE;
	ret = cmd_check_argc_exact(ctx, argc - optind, 1);
	if (ret)
		return ret;
	return quota_ctl(ctx, argv[optind], VC_QUOTA_DISABLE);
}

/* ---- rescan ---- */

enum rescan_mode { RESCAN_START, RESCAN_STATUS, RESCAN_START_WAIT, RESCAN_WAIT_ONLY };

static int rescan_status(const struct vc_ctx *ctx, struct vc_fs *fs, const char *path)
{
	struct vc_rescan_status st = { 0 };
	int ret;

	ret = CMD_OP(ctx, rescan_status, fs, &st);
	if (ret)
		return cmd_report(ctx, fs, ret, path);
	if (st.running)
		pr_out(ctx->cfg, "rescan operation running (current key %llu)\n",
		       (unsigned long long)st.progress);
	else
		pr_out(ctx->cfg, "no rescan operation in progress\n");
	return 0;
}

static int rescan_run(const struct vc_ctx *ctx, struct vc_fs *fs, const char *path,
		      enum rescan_mode mode)
{
	int ret;

	if (mode != RESCAN_WAIT_ONLY) {
		ret = CMD_OP(ctx, rescan_start, fs);
		if (ret == -EINPROGRESS && mode == RESCAN_START_WAIT)
			pr_out(ctx->cfg, "quota rescan already running, waiting for it\n");
		else if (ret)
			return cmd_report(ctx, fs, ret, path);
		else
			pr_out(ctx->cfg, "quota rescan started\n");
		if (mode == RESCAN_START)
			return 0;
	}
	ret = CMD_OP(ctx, rescan_wait, fs);
	if (ret)
		return cmd_report(ctx, fs, ret, path);
	return 0;
}

static int cmd_quota_rescan(const struct cmd_struct *cmd, const struct vc_ctx *ctx, int argc,
			    char **argv)
{
	static const struct option longopts[] = {
		{ "status", no_argument, NULL, 's' },
		{ "wait", no_argument, NULL, 'w' },
		{ "wait-norescan", no_argument, NULL, 'W' },
		{ NULL, 0, NULL, 0 },
	};
	bool status = false, wait = false, wait_only = false;
	enum rescan_mode mode = RESCAN_START;
	struct vc_fs *fs;
	const char *path;
	int c, ret;

	while ((c = cmd_getopt(ctx, argc, argv, "swW", longopts)) != -1) {
		switch (c) {
		case 's':
			status = true;
			break;
		case 'w':
			wait = true;
			break;
		case 'W':
			wait_only = true;
			break;
		default:
			return VC_EXIT_USAGE;
		}
	}
	if (status && (wait || wait_only))
		return cmd_usage_error(ctx, "-s cannot be combined with -w or -W");
	ret = cmd_check_argc_exact(ctx, argc - optind, 1);
	if (ret)
		return ret;
	path = argv[optind];
	if (status)
		mode = RESCAN_STATUS;
	else if (wait_only)
		mode = RESCAN_WAIT_ONLY;
	else if (wait)
		mode = RESCAN_START_WAIT;

	ret = cmd_open(ctx, path, mode == RESCAN_START || mode == RESCAN_START_WAIT, &fs);
	if (ret)
		return ret;
	ret = require_enabled(ctx, fs, path);
	if (!ret) {
		if (mode == RESCAN_STATUS)
			ret = rescan_status(ctx, fs, path);
		else
			ret = rescan_run(ctx, fs, path, mode);
	}
	ctx->ops->close(fs);
	if (!ret)
		print_result(ctx, path, &rec_doc_quota_rescan);
	return ret;
}

/* ---- status ---- */

static int cmd_quota_status(const struct cmd_struct *cmd, const struct vc_ctx *ctx, int argc,
			    char **argv)
{
	enum { OPT_IS_ENABLED = 256 };
	static const struct option longopts[] = {
		{ "is-enabled", no_argument, NULL, OPT_IS_ENABLED },
		{ NULL, 0, NULL, 0 },
	};
	struct quota_state st;
	bool is_enabled = false;
	struct vc_fs *fs;
	const char *path;
	int c, ret;

	while ((c = cmd_getopt(ctx, argc, argv, "", longopts)) != -1) {
		switch (c) {
		case OPT_IS_ENABLED:
			is_enabled = true;
			break;
		default:
			return VC_EXIT_USAGE;
		}
	}
	ret = cmd_check_argc_exact(ctx, argc - optind, 1);
	if (ret)
		return ret;
	path = argv[optind];
	ret = cmd_open(ctx, path, false, &fs);
	if (ret)
		return ret;
	ret = quota_state_read_status(ctx->ops, fs, NULL, &st);
	if (ret) {
		ret = cmd_report(ctx, fs, ret, path);
	} else if (is_enabled) {
		ret = st.enabled ? VC_EXIT_OK : VC_EXIT_FAILURE;
	} else if (!ctx->cfg->quiet || ctx->cfg->format == VC_FORMAT_JSON) {
		quota_print_status(stdout, path, &st, ctx->cfg);
	}
	ctx->ops->close(fs);
	return ret;
}

/* ---- table ---- */

static const char *const cmd_quota_enable_usage[] = { "quota enable [-s|--simple] <path>", NULL };
static const char *const cmd_quota_enable_details[] = {
	"Turn on quota accounting for the filesystem at <path>.  In full mode the",
	"kernel starts a rescan, so data that already exists is counted once it",
	"finishes ('volctl quota rescan -W <path>' waits for it).",
	"",
	OPTLINE("-s|--simple", "simple quotas (squota, Linux 6.7+): every extent is charged "
		"to the\n\tsubvolume that allocated it; cheap, no rescan, but snapshots share "
		"nothing"),
	NULL,
};
static const struct cmd_help enable_help = {
	cmd_quota_enable_usage, "enable quota accounting", cmd_quota_enable_details,
};

static const char *const cmd_quota_disable_usage[] = { "quota disable <path>", NULL };
static const char *const cmd_quota_disable_details[] = {
	"Turn off quota accounting.  This removes the quota tree: every qgroup,",
	"relation and limit is gone afterwards.",
	NULL,
};
static const struct cmd_help disable_help = {
	cmd_quota_disable_usage, "disable quota accounting", cmd_quota_disable_details,
};

static const char *const cmd_quota_rescan_usage[] = { "quota rescan [-s] [-w] [-W] <path>", NULL };
static const char *const cmd_quota_rescan_details[] = {
	"Recompute all qgroup numbers from the extent tree.  Needed after the",
	"numbers became inconsistent ('volctl quota status' says so).",
	"",
	OPTLINE("-s|--status", "show whether a rescan is running and how far it is"),
	OPTLINE("-w|--wait", "start a rescan and wait for it to finish (if one is already"
		"\n\trunning, wait for that one)"),
	OPTLINE("-W|--wait-norescan", "only wait for a running rescan to finish"),
	NULL,
};
static const struct cmd_help rescan_help = {
	cmd_quota_rescan_usage, "rescan the quota numbers", cmd_quota_rescan_details,
};

static const char *const cmd_quota_status_usage[] = { "quota status [--is-enabled] <path>", NULL };
static const char *const cmd_quota_status_details[] = {
	"Show whether quotas are enabled, in which mode, whether the numbers are",
	"consistent, whether a rescan is running, and how many qgroups exist per",
	"level.  Says what to run when the numbers need a rescan.",
	"",
	OPTLINE("--is-enabled", "print nothing; exit 0 when quotas are enabled, 1 otherwise"),
	OPTLINE("--format json", "(global option) the same as a JSON document"),
	NULL,
};
static const struct cmd_help status_help = {
	cmd_quota_status_usage, "show the quota state", cmd_quota_status_details,
};

#define QUOTA_WRITES (CMD_WRITES | CMD_ONLINE | CMD_OFFLINE | CMD_FORMAT_JSON)

static const struct cmd_struct cmd_struct_quota_enable = {
	"enable", cmd_quota_enable, &enable_help, NULL, QUOTA_WRITES,
};
static const struct cmd_struct cmd_struct_quota_disable = {
	"disable", cmd_quota_disable, &disable_help, NULL, QUOTA_WRITES,
};
static const struct cmd_struct cmd_struct_quota_rescan = {
	"rescan", cmd_quota_rescan, &rescan_help, NULL, QUOTA_WRITES,
};
static const struct cmd_struct cmd_struct_quota_status = {
	"status", cmd_quota_status, &status_help, NULL,
	CMD_FORMAT_JSON | CMD_ONLINE | CMD_OFFLINE,
};

static const struct cmd_struct *const cmd_group_quota_commands[] = {
	&cmd_struct_quota_enable,
	&cmd_struct_quota_disable,
	&cmd_struct_quota_rescan,
	&cmd_struct_quota_status,
	NULL,
};

const struct cmd_group cmd_group_quota = {
	.token = "quota",
	.summary = "enable, disable and rescan quota accounting",
	.commands = cmd_group_quota_commands,
};
