// SPDX-License-Identifier: GPL-2.0-only
/*
 * volctl qgroup headroom [--compute] <path> | <qgroupid> <path>: every limit
 * that applies to a subvolume (or to a qgroup) through the hierarchy, how
 * much of each is used, how many bytes can still be written before the
 * first one binds, and the command that would lift that one.
 *
 * New data written into a subvolume is referenced and exclusive to it, so it
 * adds to the rfer and the excl of its level-0 group and of every group
 * above it, transitively: each max_rfer and max_excl of that chain leaves
 * limit - used bytes, and the smallest of them is the headroom.  The numbers
 * are the recorded ones (with --compute the engine's).
 *
 * The kernel also reserves space for writes in flight and for metadata ahead
 * of time, and refuses a write (EDQUOT) when used + reserved + its bytes
 * would pass a limit.  Online the reservations (sysfs qgroups/L_ID/rsv_*)
 * count as used, so left is limit - (used + reserved).  The headroom is
 * "full" when what is left is less than the smallest write reserves: one
 * data sector and, for its metadata, one tree block.  Offline nothing is in
 * flight and nothing is reserved.
 *
 * With quotas disabled nothing is limited: that is the answer (exit 0), with
 * the numbers of the subvolume's level-0 group computed by the engine (there
 * are no recorded ones) and the commands that would set a limit.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cmds/commands.h"
#include "common/backend/acct-run.h"
#include "common/backend/facts.h"
#include "common/backend/facts-qgroup.h"
#include "common/util/messages.h"
#include "common/output/output.h"
#include "common/util/parse-utils.h"
#include "common/util/path-utils.h"
#include "common/output/qgroup-out.h"
#include "common/tool/qgroup-state.h"
#include "common/output/records.h"
#include "common/util/units.h"

struct headroom {
	u64 qgroupid;			/* where it starts */
	const char *numbers;		/* "recorded" or "computed" */
	struct vc_qgroup_limit *limits;
	size_t nr;
	ssize_t binding;		/* index of the first limit to bind, -1: none */
	char lift[512];			/* the command that lifts it */
	bool online;			/* reservations are read */
	u64 one_write;			/* what the smallest write reserves */
	bool full;			/* the binding limit leaves less than that */
	bool quota_enabled;
	u64 rfer, excl;			/* of the group it starts at */
};

static void image_option(const struct vc_ctx *ctx, char *buf, size_t size)
{
	buf[0] = '\0';
	if (ctx->cfg->nr_images)
		snprintf(buf, size, "--image %s ", ctx->cfg->images[0]);
}

static void lift_command(const struct vc_ctx *ctx, const char *path,
			 const struct vc_qgroup_limit *l, char *buf, size_t size)
{
	char qb[BTRFS_QGROUPID_BUFSIZE];
	char image[300];

	image_option(ctx, image, sizeof(image));
	snprintf(buf, size, "volctl %sqgroup limit %snone %s %s", image,
		 l->exclusive ? "-e " : "", vc_qgroupid_str(l->qg->qgroupid, qb), path);
}

/* Quotas off: the two commands that would set a limit on @qgroupid */
static void set_command(const struct vc_ctx *ctx, const char *path, u64 qgroupid, char *buf,
			size_t size)
{
	char qb[BTRFS_QGROUPID_BUFSIZE];
	char image[300];

	image_option(ctx, image, sizeof(image));
	snprintf(buf, size, "volctl %squota enable %s, then volctl %sqgroup limit <size> %s %s",
		 image, path, image, vc_qgroupid_str(qgroupid, qb), path);
}

/* The limits on h->qgroupid and the groups above it, and the one that binds first */
static int collect(struct vc_fs *fs, const struct btrfs_qgroup_list *list, struct headroom *h)
{
	struct vc_qgroup_limits ls;
	int ret = vc_fact_qgroup_limits(fs, list, h->qgroupid, &ls);

	if (ret)
		return ret;
	h->limits = ls.limits;
	h->nr = ls.nr;
	h->binding = ls.binding;
	h->full = h->binding >= 0 && h->limits[h->binding].left < h->one_write;
	return 0;
}

_Static_assert(sizeof(((struct headroom_row_rec *)0)->qgid) >= BTRFS_QGROUPID_BUFSIZE,
	       "headroom_row_rec.qgid holds a qgroup id");

/* The headroom (common/output/records.c); text ends with the command's sentences. */
static int print_result(const struct vc_ctx *ctx, const struct headroom *h, unsigned int units)
{
	struct headroom_row_rec *rows = calloc(h->nr ? h->nr : 1, sizeof(*rows));
	char qb[BTRFS_QGROUPID_BUFSIZE];
	const struct vc_qgroup_limit *bind = h->binding >= 0 ? &h->limits[h->binding] : NULL;
	struct headroom_rec r = {
		.qgroupid = vc_qgroupid_str(h->qgroupid, qb),
		.numbers = h->numbers,
		.limits = { &rec_headroom_row, rows, h->nr, sizeof(*rows) },
		.headroom = bind ? &bind->left : NULL,
		.full = h->full,
		.lift_command = bind ? h->lift : NULL,
		.quota_enabled = h->quota_enabled,
		.referenced = h->rfer,
		.exclusive = h->excl,
		.limited = bind,
		.online = h->online,
		.lift = h->lift,
		.bind_type = bind && bind->exclusive ? "exclusive" : "referenced",
		.bind_qgroupid = bind ? bind->qg->qgroupid : 0,
		.one_write = h->one_write,
	};
	struct kvout kv;

	if (!rows)
		return -ENOMEM;
	for (size_t i = 0; i < h->nr; i++) {
		const struct vc_qgroup_limit *l = &h->limits[i];
		struct headroom_row_rec *row = &rows[i];

		vc_qgroupid_str(l->qg->qgroupid, row->qgid);
		row->qgroupid = row->qgid;
		row->level = btrfs_qgroup_level(l->qg->qgroupid);
		row->type = l->exclusive ? "exclusive" : "referenced";
		row->limit = l->limit;
		row->used = l->used;
		row->reserved = l->has_reserved ? &l->reserved : NULL;
		row->left = l->left;
		row->binding = l == bind;
		row->marker = l == bind ? "  <- binds first" : "";
	}
	kvout_init(&kv, ctx->cfg, stdout, units);
	if (kv.json) {
		rec_print_document(&kv, &rec_doc_headroom, &rec_headroom, &r);
	} else if (!kv.quiet) {
		if (h->quota_enabled)
			pr_note(ctx->cfg, "Limits on qgroup %s and the groups above it (%s "
				"numbers):", r.qgroupid, h->numbers);
		else
			pr_note(ctx->cfg, "Quotas are disabled: the numbers of qgroup %s are "
				"computed", r.qgroupid);
		rec_emit(&kv, &rec_headroom, &r);
	}
	free(rows);
	return 0;
}

/*
 * The numbers of the group the search starts at (h->qgroupid), with
 * @compute or with quotas off (when there are no others) from the engine:
 * without quotas @list becomes one level-0 group per live subvolume.
 */
static int headroom_numbers(const struct vc_ctx *ctx, struct vc_fs *fs, const char *path,
			    const struct quota_state *st, bool compute,
			    struct btrfs_qgroup_list *list, struct headroom *h)
{
	struct btrfs_subvol_list subvols = { 0 };
	struct vc_acct_result res;
	int ret;

	if (!compute && st->enabled) {
		if (st->inconsistent || st->rescan_running)
			warning("%s: the recorded qgroup numbers are %s: the headroom may be wrong "
				"(try --compute)", path, st->rescan_running ?
				"incomplete (rescan running)" : "inconsistent");
		return 0;
	}
	if (!st->enabled) {
		ret = vc_facts_subvols(fs, &subvols);
		if (ret)
			return cmd_report(ctx, fs, ret, path);
	}
	ret = vc_acct_compute(ctx->ops, fs, st->simple, list->status.enable_gen, &res);
	if (ret) {
		error("%s: %s", path, res.err);
		ret = VC_EXIT_FAILURE;
	} else if (st->enabled) {
		ret = vc_acct_fill_qgroups(&res, list);
	} else {
		vc_qgroups_release(list);
		ret = vc_acct_subvol_qgroups(&res, &subvols, list);
	}
	vc_acct_release(ctx->ops, fs, &res);
	btrfs_subvol_list_release(&subvols);
	if (ret < 0)
		ret = cmd_report(ctx, NULL, ret, path);
	h->numbers = "computed";
	return ret;
}

static int headroom_run(const struct vc_ctx *ctx, struct vc_fs *fs, const char *path,
			bool have_id, u64 qgroupid, bool compute, unsigned int units)
{
	struct btrfs_qgroup_list list = { 0 };
	struct headroom h = { .qgroupid = qgroupid, .numbers = "recorded" };
	const struct btrfs_qgroup *start;
	struct quota_state st;
	char qb[BTRFS_QGROUPID_BUFSIZE];
	u32 sectorsize = 4096, nodesize = 16384;
	int ret;

	if (!have_id) {
		struct vc_path_info info;

		vc_fs_clear_error(fs);
		ret = CMD_OP(ctx, path_info, fs, path, &info);
		if (ret)
			return cmd_report(ctx, fs, ret, path);
		h.qgroupid = info.subvolid;
	}
	ret = quota_state_read(ctx->ops, fs, &list, &st);
	if (ret) {
		ret = cmd_report(ctx, fs, ret, path);
		goto out;
	}
	h.quota_enabled = st.enabled;
	/* quotas off: only a live subvolume's level-0 group has numbers (computed) */
	if (st.enabled ? !vc_qgroup_find(&list, h.qgroupid) :
	    btrfs_qgroup_level(h.qgroupid) != 0) {
		error("qgroup %s: not found%s", vc_qgroupid_str(h.qgroupid, qb),
		      st.enabled ? "" : " (quotas are disabled: there are no qgroups)");
		ret = VC_EXIT_FAILURE;
		goto out;
	}
	ret = headroom_numbers(ctx, fs, path, &st, compute, &list, &h);
	if (ret)
		goto out;
	start = vc_qgroup_find(&list, h.qgroupid);
	if (!start) {
		error("qgroup %s: not found (quotas are disabled, and no live subvolume has "
		      "id %llu)", vc_qgroupid_str(h.qgroupid, qb),
		      (unsigned long long)btrfs_qgroup_subvolid(h.qgroupid));
		ret = VC_EXIT_FAILURE;
		goto out;
	}
	h.rfer = start->info.rfer;
	h.excl = start->info.excl;
	h.online = ctx->ops->qgroup_reserved != NULL;
	if (ctx->ops->block_sizes)
		ctx->ops->block_sizes(fs, &sectorsize, &nodesize);
	h.one_write = (u64)sectorsize + nodesize;
	ret = collect(fs, &list, &h);
	if (ret) {
		ret = cmd_report(ctx, NULL, ret, path);
		goto out;
	}
	if (!st.enabled)
		set_command(ctx, path, h.qgroupid, h.lift, sizeof(h.lift));
	else if (h.binding >= 0)
		lift_command(ctx, path, &h.limits[h.binding], h.lift, sizeof(h.lift));
	ret = print_result(ctx, &h, units);
	ret = ret ? cmd_report(ctx, NULL, ret, path) : VC_EXIT_OK;
out:
	free(h.limits);
	vc_qgroups_release(&list);
	return ret;
}

int cmd_report_edquot(const struct vc_ctx *ctx, struct vc_fs *fs, const char *what,
		      const char *dir)
{
	struct btrfs_qgroup_list list = { 0 };
	struct headroom h = { .binding = -1 };
	const struct vc_qgroup_limit *l;
	struct vc_path_info info;
	struct quota_state st;
	char qb[BTRFS_QGROUPID_BUFSIZE], b1[UNITS_BUFSIZE], b2[UNITS_BUFSIZE];
	char b3[UNITS_BUFSIZE], image[300] = "", rsv[UNITS_BUFSIZE + 16] = "";
	const char *err = vc_fs_error(fs);
	struct vc_limit_refusal refused;
	char saved[512] = "", *shown;
	const char *msg = err ? saved : NULL;
	bool named;
	int ret;

	if (err)
		snprintf(saved, sizeof(saved), "%s", err);
	/* offline: the limit that refused, as values */
	named = !CMD_OP(ctx, limit_refusal, fs, &refused);
	h.online = ctx->ops->qgroup_reserved != NULL;
	if (named) {
		h.qgroupid = refused.qgroupid;
	} else {
		vc_fs_clear_error(fs);
		if (CMD_OP(ctx, path_info, fs, dir, &info))
			goto fallback;
		h.qgroupid = info.subvolid;
	}
	vc_fs_clear_error(fs);
	ret = quota_state_read(ctx->ops, fs, &list, &st);
	if (ret || !st.enabled || !vc_qgroup_find(&list, h.qgroupid) ||
	    collect(fs, &list, &h) || h.binding < 0)
		goto fallback;
	for (size_t i = 0; named && i < h.nr; i++)
		if (h.limits[i].qg->qgroupid == refused.qgroupid &&
		    h.limits[i].exclusive == refused.exclusive)
			h.binding = (ssize_t)i;
	l = &h.limits[h.binding];
	if (ctx->cfg->nr_images)
		snprintf(image, sizeof(image), "--image %s ", ctx->cfg->images[0]);
	if (l->reserved)
		snprintf(rsv, sizeof(rsv), ", reserved %s", pretty_size(l->reserved, UNITS_DEFAULT, b3));
	else if (named && refused.over)
		snprintf(rsv, sizeof(rsv), ", over by %llu bytes", (unsigned long long)refused.over);
	/* the command suggested is clean: "a//b/" is "a/b" */
	shown = path_clean(dir);
	error("%s: %s: qgroup %s limit %s %s (used %s%s); raise it with: volctl %sqgroup limit "
	      "%s<size>|none %s %s", what, strerror(EDQUOT), vc_qgroupid_str(l->qg->qgroupid, qb),
	      l->exclusive ? "exclusive" : "referenced", pretty_size(l->limit, UNITS_DEFAULT, b1),
	      pretty_size(l->used, UNITS_DEFAULT, b2), rsv, image, l->exclusive ? "-e " : "",
	      qb, shown ? shown : dir);
	free(shown);
	free(h.limits);
	vc_qgroups_release(&list);
	return VC_EXIT_FAILURE;
fallback:
	free(h.limits);
	vc_qgroups_release(&list);
	vc_fs_clear_error(fs);
	if (msg)
		vc_fs_set_error(fs, "%s", msg);
	return cmd_report(ctx, fs, -EDQUOT, what);
}

static int cmd_qgroup_headroom(const struct cmd_struct *cmd, const struct vc_ctx *ctx, int argc,
			       char **argv)
{
	enum { OPT_COMPUTE = 256 };
	static const struct option longopts[] = {
		{ "compute", no_argument, NULL, OPT_COMPUTE },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int units = units_from_args(&argc, argv, false);
	bool compute = false, have_id = false;
	struct vc_fs *fs;
	const char *path;
	u64 qgroupid = 0;
	int c, ret, nargs;

	while ((c = cmd_getopt(ctx, argc, argv, "", longopts)) != -1) {
		if (c != OPT_COMPUTE)
			return VC_EXIT_USAGE;
		compute = true;
	}
	nargs = argc - optind;
	ret = cmd_check_argc_min(ctx, nargs, 1);
	if (!ret)
		ret = cmd_check_argc_max(ctx, nargs, 2);
	if (ret)
		return ret;
	if (nargs == 2) {
		ret = parse_qgroupid(argv[optind], &qgroupid);
		if (ret)
			return cmd_usage_error(ctx, "invalid qgroup id '%s': %s", argv[optind],
					       parse_strerror(ret, "expected LEVEL/ID or a "
							      "subvolume id"));
		have_id = true;
	}
	path = argv[optind + nargs - 1];
	ret = cmd_open(ctx, path, false, &fs);
	if (ret)
		return VC_EXIT_FAILURE;
	ret = headroom_run(ctx, fs, path, have_id, qgroupid, compute, units);
	cmd_close(ctx, fs);
	return ret;
}

static const char *const cmd_qgroup_headroom_usage[] = {
	"qgroup headroom [--compute] [--raw|--human-readable|...] <path>",
	"qgroup headroom [--compute] [--raw|--human-readable|...] <qgroupid> <path>",
	NULL,
};
static const char *const cmd_qgroup_headroom_details[] = {
	"Show every limit that applies to the subvolume holding <path> (or to",
	"<qgroupid>) through the qgroup hierarchy: the referenced and exclusive",
	"limits of its qgroup and of every group above it, how much of each is",
	"used, the bytes that can still be written before the first limit binds,",
	"and the command that would lift that limit.  Mounted, the bytes the",
	"kernel holds reserved for writes in flight count as used (offline",
	"nothing is reserved); \"full\" when less is left than the smallest write",
	"reserves (one data sector and one tree block): the kernel refuses writes.",
	"With quotas disabled nothing is limited: it says so (exit status 0) and",
	"shows the computed numbers of the subvolume's level-0 group.",
	"",
	OPTLINE("--compute", "use numbers computed from the trees instead of the recorded\n\t"
		"ones (mounted: reads a committed snapshot of the devices)"),
	OPTLINE("--raw", "sizes in bytes"),
	OPTLINE("--human-readable", "sizes with a binary suffix (default)"),
	OPTLINE("--format json", "(global option) a JSON document, sizes in bytes"),
	NULL,
};
static const struct cmd_help headroom_help = {
	cmd_qgroup_headroom_usage, "show the limits that apply and how much can still be written",
	cmd_qgroup_headroom_details,
};

const struct cmd_struct cmd_struct_qgroup_headroom = {
	"headroom", cmd_qgroup_headroom, &headroom_help, NULL,
	CMD_FORMAT_JSON | CMD_ONLINE | CMD_OFFLINE,
};
