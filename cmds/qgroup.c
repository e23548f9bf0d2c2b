// SPDX-License-Identifier: GPL-2.0-only
/*
 * volctl qgroup: create, destroy, assign, remove, limit, show and clear-stale.
 *
 * Arguments are checked completely before anything is opened or changed, so a
 * usage error (exit 2) never leaves a half-done change behind.  Qgroup ids
 * are "L/ID" or a bare subvolume id; where btrfs-progs accepts a path instead
 * of an id (assign, remove, limit) an absolute path of a subvolume root is
 * resolved through ops->path_info.
 *
 * "show" and "clear-stale" read only through the backend's tree search
 * (kernel-shared/qgroup-list.c, kernel-shared/subvol-list.c); rendering is in
 * common/output/qgroup-out.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmds/commands.h"
#include "common/util/messages.h"
#include "common/util/parse-utils.h"
#include "common/backend/acct-run.h"
#include "common/backend/facts.h"
#include "common/backend/facts-qgroup.h"
#include "common/output/qgroup-out.h"
#include "common/tool/qgroup-state.h"
#include "common/output/records.h"
#include "common/util/units.h"

/* ---- helpers shared by the commands ---- */

/*
 * A qgroup id argument: "L/ID" or a bare id, or (with @allow_path) an
 * absolute path, left for qgid_resolve() once the filesystem is open.
 */
struct qgid_arg {
	const char *text;
	bool is_path;
	u64 id;
};

static int qgid_parse(const struct vc_ctx *ctx, const char *text, bool allow_path,
		      struct qgid_arg *arg)
{
	static const char expect[] = "expected LEVEL/ID or a subvolume id";
	static const char expect_or_path[] =
		"expected LEVEL/ID, a subvolume id or an absolute subvolume path";
	int ret;

	arg->text = text;
	arg->is_path = false;
	if (allow_path && text[0] == '/' && text[1] && !strchr(text + 1, '/') &&
	    !parse_u64(text + 1, &arg->id)) {
		/* "/5" reads as a mistyped id, not as a path */
		return cmd_usage_error(ctx, "invalid qgroup id '%s': expected LEVEL/ID", text);
	}
	if (allow_path && text[0] == '/') {
		arg->is_path = true;
		return 0;
	}
	ret = parse_qgroupid(text, &arg->id);
	if (ret)
		return cmd_usage_error(ctx, "invalid qgroup id '%s': %s", text,
				       parse_strerror(ret, allow_path ? expect_or_path : expect));
	return 0;
}

/* The subvolume whose root is @path, as qgroup 0/ID. */
static int subvol_qgroup_of(const struct vc_ctx *ctx, struct vc_fs *fs, const char *path,
			    u64 *id)
{
	struct vc_path_info info;
	int ret;

	ret = CMD_OP(ctx, path_info, fs, path, &info);
	if (ret)
		return cmd_report(ctx, fs, ret, path);
	if (!info.is_subvol_root) {
		error("%s: not a subvolume (the subvolume containing it is %" PRIu64 ")", path,
		      info.subvolid);
		return VC_EXIT_FAILURE;
	}
	*id = info.subvolid;
	return 0;
}

static int qgid_resolve(const struct vc_ctx *ctx, struct vc_fs *fs, struct qgid_arg *arg)
{
	if (!arg->is_path)
		return 0;
	return subvol_qgroup_of(ctx, fs, arg->text, &arg->id);
}

static const char *qgid(u64 id, char *buf)
{
	return vc_qgroupid_str(id, buf);
}

/* Whether a subvolume can have @qgroupid as its level-0 group: 0/5 or 0/256 and up. */
static bool qgid_is_subvol(u64 qgroupid)
{
	u64 sub = btrfs_qgroup_subvolid(qgroupid);

	return !btrfs_qgroup_level(qgroupid) &&
	       (sub == BTRFS_FS_TREE_OBJECTID || sub >= BTRFS_FIRST_FREE_OBJECTID);
}

/* ---- create / destroy ---- */

/*
 * create and destroy take only LEVEL/ID, as btrfs-progs does: a bare "1"
 * could mean 0/1 or 1/1.  create also refuses, before any ioctl, a level-0
 * id that no subvolume can have (below 256, other than the top level 5):
 * the kernel accepts some of them and then can never destroy the group.
 * Other level-0 ids are left to the kernel (current ones refuse them).
 */
static int qgid_parse_strict(const struct vc_ctx *ctx, const char *text, bool create, u64 *id)
{
	u64 sub;
	int ret;

	ret = parse_qgroupid_strict(text, id);
	if (ret == -EINVAL && !parse_u64(text, &sub))
		return cmd_usage_error(ctx, "invalid qgroup id '%s': expected LEVEL/ID, a bare "
				       "id is not accepted here (0/%s or 1/%s?)", text, text, text);
	if (ret)
		return cmd_usage_error(ctx, "invalid qgroup id '%s': %s", text,
				       parse_strerror(ret, "expected LEVEL/ID"));
	if (create && !btrfs_qgroup_level(*id) && !qgid_is_subvol(*id))
		return cmd_usage_error(ctx, "invalid qgroup id '%s': no subvolume can have the "
				       "level-0 id %" PRIu64 " (create groups of level 1 or higher)",
				       text, btrfs_qgroup_subvolid(*id));
	return 0;
}

static int qgroup_create_destroy(const struct vc_ctx *ctx, int argc, char **argv, bool create)
{
	struct qgid_arg arg = { 0 };
	struct vc_fs *fs;
	int c, ret;

	while ((c = cmd_getopt(ctx, argc, argv, "", NULL)) != -1)
		return VC_EXIT_USAGE;
	ret = cmd_check_argc_exact(ctx, argc - optind, 2);
	if (ret)
		return ret;
	ret = qgid_parse_strict(ctx, argv[optind], create, &arg.id);
	if (ret)
		return ret;
	ret = cmd_open(ctx, argv[optind + 1], true, &fs);
	if (ret)
		return ret;
	ret = create ? CMD_OP(ctx, qgroup_create, fs, arg.id) :
		       CMD_OP(ctx, qgroup_destroy, fs, arg.id);
	if (ret < 0) {
		ret = cmd_report(ctx, fs, ret, argv[optind + 1]);
	} else {
		struct qgroup_done_rec r = { arg.id, argv[optind + 1] };

		cmd_print_doc(ctx, create ? &rec_doc_qgroup_create : &rec_doc_qgroup_destroy,
			      &rec_qgroup_done, &r);
	}
	ctx->ops->close(fs);
	return ret;
}

static int cmd_qgroup_create(const struct cmd_struct *cmd, const struct vc_ctx *ctx, int argc,
			     char **argv)
{
	return qgroup_create_destroy(ctx, argc, argv, true);
}

static int cmd_qgroup_destroy(const struct cmd_struct *cmd, const struct vc_ctx *ctx, int argc,
			      char **argv)
{
	return qgroup_create_destroy(ctx, argc, argv, false);
}

/* ---- assign / remove ---- */

/* --rescan (the default) / --no-rescan */
static int relation_parse_opts(const struct vc_ctx *ctx, int argc, char **argv, bool *rescan)
{
	enum { OPT_RESCAN = 256, OPT_NO_RESCAN };
	static const struct option longopts[] = {
		{ "rescan", no_argument, NULL, OPT_RESCAN },
		{ "no-rescan", no_argument, NULL, OPT_NO_RESCAN },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*rescan = true;
	while ((c = cmd_getopt(ctx, argc, argv, "", longopts)) != -1) {
		switch (c) {
		case OPT_RESCAN:
			*rescan = true;
			break;
		case OPT_NO_RESCAN:
			*rescan = false;
			break;
		default:
			return VC_EXIT_USAGE;
		}
	}
	return 0;
}

/* The relation change made the quota numbers stale: start a rescan, or warn. */
static int relation_after_change(const struct vc_ctx *ctx, struct vc_fs *fs, const char *path,
				 bool rescan, struct qgroup_relation_rec *r)
{
	int ret;

	if (!rescan) {
		warning("%s: quota numbers are now inconsistent and limits are not reliable; "
			"run 'volctl quota rescan %s'", path, path);
		return 0;
	}
	pr_out(ctx->cfg, "Quota data changed, rescan scheduled\n");
	ret = CMD_OP(ctx, rescan_start, fs);
	/* -EINPROGRESS: one runs already, which counts the change too */
	r->rescan_started = !ret || ret == -EINPROGRESS;
	if (ret && ret != -EINPROGRESS)
		return cmd_report(ctx, fs, ret, path);
	return 0;
}

static int qgroup_relation(const struct vc_ctx *ctx, int argc, char **argv, bool assign)
{
	char sb[BTRFS_QGROUPID_BUFSIZE], db[BTRFS_QGROUPID_BUFSIZE];
	struct qgid_arg src, dst;
	struct qgroup_relation_rec r = { 0 };
	bool rescan;
	struct vc_fs *fs;
	const char *path;
	int ret;

	ret = relation_parse_opts(ctx, argc, argv, &rescan);
	if (ret)
		return ret;
	ret = cmd_check_argc_exact(ctx, argc - optind, 3);
	if (ret)
		return ret;
	ret = qgid_parse(ctx, argv[optind], true, &src);
	if (!ret)
		ret = qgid_parse(ctx, argv[optind + 1], true, &dst);
	if (ret)
		return ret;
	if (!src.is_path && !dst.is_path &&
	    btrfs_qgroup_level(src.id) >= btrfs_qgroup_level(dst.id))
		return cmd_usage_error(ctx, "cannot %s %s %s %s: the parent's level must be higher",
				       assign ? "assign" : "remove", qgid(src.id, sb),
				       assign ? "to" : "from", qgid(dst.id, db));
	path = argv[optind + 2];
	ret = cmd_open(ctx, path, true, &fs);
	if (ret)
		return ret;
	ret = qgid_resolve(ctx, fs, &src);
	if (!ret)
		ret = qgid_resolve(ctx, fs, &dst);
	if (!ret && btrfs_qgroup_level(src.id) >= btrfs_qgroup_level(dst.id)) {
		error("cannot %s %s %s %s: the parent's level must be higher",
		      assign ? "assign" : "remove", qgid(src.id, sb), assign ? "to" : "from",
		      qgid(dst.id, db));
		ret = VC_EXIT_FAILURE;
	}
	if (ret)
		goto out;
	ret = CMD_OP(ctx, qgroup_assign, fs, src.id, dst.id, assign);
	if (ret < 0) {
		ret = cmd_report(ctx, fs, ret, path);
		goto out;
	}
	r = (struct qgroup_relation_rec){ src.id, dst.id, path, ret > 0, false };
	if (ret > 0)
		ret = relation_after_change(ctx, fs, path, rescan, &r);
	/* the relation is changed even when the rescan could not start */
	cmd_print_doc(ctx, assign ? &rec_doc_qgroup_assign : &rec_doc_qgroup_remove,
		      &rec_qgroup_relation, &r);
out:
	ctx->ops->close(fs);
	return ret;
}

static int cmd_qgroup_assign(const struct cmd_struct *cmd, const struct vc_ctx *ctx, int argc,
			     char **argv)
{
	return qgroup_relation(ctx, argc, argv, true);
}

static int cmd_qgroup_remove(const struct cmd_struct *cmd, const struct vc_ctx *ctx, int argc,
			     char **argv)
{
	return qgroup_relation(ctx, argc, argv, false);
}

/* ---- limit ---- */

#define LIMIT_TOO_LARGE "too large: at most 18446744073709551614 bytes (16EiB - 2; 'none' " \
			"removes the limit)"

/* The SIZE argument: bytes with an optional suffix, or 'none' (*none set). */
static int limit_parse_size(const struct vc_ctx *ctx, const char *size_arg, u64 *size, bool *none)
{
	int ret = parse_size(size_arg, true, size, none);

	if (ret)
		return cmd_usage_error(ctx, "invalid size '%s': %s", size_arg,
				       ret == -ERANGE ? LIMIT_TOO_LARGE :
				       parse_strerror(ret, "expected a number with an optional "
						      "suffix k, m, g, t, p, e or KiB ... EiB (powers "
						      "of 1024; 1.5G with a suffix), or 'none'"));
	/* (u64)-1 is the kernel's "no limit" */
	if (!*none && *size == (u64)-1)
		return cmd_usage_error(ctx, "invalid size '%s': %s", size_arg, LIMIT_TOO_LARGE);
	return 0;
}

/* Open PATH for writing; "limit 10M 1/100" (the path forgotten) gets a usage error. */
static int limit_open(const struct vc_ctx *ctx, const char *path, int nargs, struct vc_fs **fs)
{
	u64 id;
	int ret = ctx->ops->open(fs, ctx->cfg, path, true);

	if (ret == -ENOENT && nargs == 2 && !parse_qgroupid(path, &id)) {
		cmd_close(ctx, *fs);
		return cmd_usage_error(ctx, "path missing: '%s' is a qgroup id, and no such path "
				       "exists (give the path after it)", path);
	}
	if (ret) {
		cmd_report(ctx, *fs, ret, path);
		cmd_close(ctx, *fs);
	}
	return ret;
}

static int cmd_qgroup_limit(const struct cmd_struct *cmd, const struct vc_ctx *ctx, int argc,
			    char **argv)
{
	bool compressed = false, exclusive = false, none;
	struct qgid_arg arg = { 0 };
	u64 size, flags, max_rfer = 0, max_excl = 0;
	const char *path;
	struct vc_fs *fs;
	int c, nargs, ret;

	/* "-5" would otherwise be taken for an option */
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (argv[i][0] == '-' && argv[i][1] >= '0' && argv[i][1] <= '9')
			return cmd_usage_error(ctx, "invalid size '%s': %s", argv[i],
					       parse_strerror(-EDOM, ""));
	while ((c = cmd_getopt(ctx, argc, argv, "ce", NULL)) != -1) {
		switch (c) {
		case 'c':
			compressed = true;
			break;
		case 'e':
			exclusive = true;
			break;
		default:
			return VC_EXIT_USAGE;
		}
	}
	nargs = argc - optind;
	ret = cmd_check_argc_min(ctx, nargs, 2);
	if (!ret)
		ret = cmd_check_argc_max(ctx, nargs, 3);
	if (ret)
		return ret;
	ret = limit_parse_size(ctx, argv[optind], &size, &none);
	if (ret)
		return ret;
	if (nargs == 3) {
		ret = qgid_parse(ctx, argv[optind + 1], true, &arg);
		if (ret)
			return ret;
	}
	path = argv[argc - 1];
	ret = limit_open(ctx, path, nargs, &fs);
	if (ret)
		return ret;
	if (nargs == 3)
		ret = qgid_resolve(ctx, fs, &arg);
	else
		ret = subvol_qgroup_of(ctx, fs, path, &arg.id);
	if (ret)
		goto out;
	flags = exclusive ? BTRFS_QGROUP_LIMIT_MAX_EXCL : BTRFS_QGROUP_LIMIT_MAX_RFER;
	if (compressed)
		flags |= BTRFS_QGROUP_LIMIT_RFER_CMPR | BTRFS_QGROUP_LIMIT_EXCL_CMPR;
	/* (u64)-1 tells the kernel to clear the limit */
	if (exclusive)
		max_excl = none ? (u64)-1 : size;
	else
		max_rfer = none ? (u64)-1 : size;
	ret = CMD_OP(ctx, qgroup_limit, fs, arg.id, flags, max_rfer, max_excl);
	if (ret < 0) {
		ret = cmd_report(ctx, fs, ret, path);
	} else {
		struct qgroup_limit_rec r = {
			arg.id, path, exclusive ? "exclusive" : "referenced", none ? NULL : &size,
			compressed,
		};

		cmd_print_doc(ctx, &rec_doc_qgroup_limit, &rec_qgroup_limit, &r);
	}
out:
	ctx->ops->close(fs);
	return ret;
}

/* ---- show ---- */

enum sort_key { SORT_QGROUPID, SORT_RFER, SORT_EXCL, SORT_MAX_RFER, SORT_MAX_EXCL, SORT_PATH };

static int parse_sort(const char *text, struct vc_sort_spec *spec)
{
	static const char *const names[] = {
		[SORT_QGROUPID] = "qgroupid", [SORT_RFER] = "rfer", [SORT_EXCL] = "excl",
		[SORT_MAX_RFER] = "max_rfer", [SORT_MAX_EXCL] = "max_excl", [SORT_PATH] = "path",
	};

	return parse_sort_keys(text, names, sizeof(names) / sizeof(names[0]), spec);
}

static int cmp_u64(u64 a, u64 b)
{
	return a < b ? -1 : a > b;
}

/* btrfs-progs order: '/' before any other byte, a missing path last */
static int cmp_path(const struct qgroup_row *a, const struct qgroup_row *b)
{
	const unsigned char *p = (const unsigned char *)a->path;
	const unsigned char *q = (const unsigned char *)b->path;
	int la = btrfs_qgroup_level(a->qg->qgroupid), lb = btrfs_qgroup_level(b->qg->qgroupid);

	if (la != lb)
		return cmp_u64(a->qg->qgroupid, b->qg->qgroupid);
	if (!p || !q)
		return !p - !q;
	for (; *p && *p == *q; p++, q++)
		;
	if (*p == *q)
		return 0;
	if (*p == '/')
		return *q ? -1 : 1;
	if (*q == '/')
		return *p ? 1 : -1;
	return *p < *q ? -1 : 1;
}

static u64 limit_value(const struct btrfs_qgroup *qg, u64 flag, u64 value)
{
	return (qg->limit.flags & flag) ? value : 0;
}

static int row_cmp(const void *va, const void *vb, void *priv)
{
	const struct qgroup_row *a = va, *b = vb;
	const struct vc_sort_spec *spec = priv;

	for (int i = 0; i < spec->nr; i++) {
		int r;

		switch ((enum sort_key)spec->key[i]) {
		case SORT_RFER:
			r = cmp_u64(a->qg->info.rfer, b->qg->info.rfer);
			break;
		case SORT_EXCL:
			r = cmp_u64(a->qg->info.excl, b->qg->info.excl);
			break;
		case SORT_MAX_RFER:
			r = cmp_u64(limit_value(a->qg, BTRFS_QGROUP_LIMIT_MAX_RFER,
						a->qg->limit.max_rfer),
				    limit_value(b->qg, BTRFS_QGROUP_LIMIT_MAX_RFER,
						b->qg->limit.max_rfer));
			break;
		case SORT_MAX_EXCL:
			r = cmp_u64(limit_value(a->qg, BTRFS_QGROUP_LIMIT_MAX_EXCL,
						a->qg->limit.max_excl),
				    limit_value(b->qg, BTRFS_QGROUP_LIMIT_MAX_EXCL,
						b->qg->limit.max_excl));
			break;
		case SORT_PATH:
			r = cmp_path(a, b);
			break;
		case SORT_QGROUPID:
		default:
			r = cmp_u64(a->qg->qgroupid, b->qg->qgroupid);
			break;
		}
		if (r)
			return spec->desc[i] ? -r : r;
	}
	return cmp_u64(a->qg->qgroupid, b->qg->qgroupid);
}

enum show_filter { FILTER_NONE, FILTER_ONLY, FILTER_ANCESTORS };

struct show_opts {
	struct qgroup_show_opts out;
	struct vc_sort_spec sort;
	enum show_filter filter;
	bool tree;
	bool sync;
	bool compute;
};

static int build_view(const struct vc_ctx *ctx, struct vc_fs *fs, const char *path,
		      const struct show_opts *opts, const struct btrfs_subvol_list *subvols,
		      struct qgroup_view *view)
{
	const struct btrfs_qgroup_list *list = view->list;
	const struct btrfs_qgroup **chain = NULL;
	size_t nr = list->nr;

	view->rows = calloc(list->nr ? list->nr : 1, sizeof(*view->rows));
	if (!view->rows)
		return -ENOMEM;
	if (opts->filter != FILTER_NONE) {
		struct vc_path_info info;
		int ret = CMD_OP(ctx, path_info, fs, path, &info);

		if (!ret)
			ret = vc_fact_qgroup_chain(list, info.subvolid, opts->filter ==
						   FILTER_ANCESTORS ? VC_QGROUPS_ABOVE : 0,
						   &chain, &nr);
		if (ret)
			return ret;
	}
	for (size_t i = 0; i < nr; i++) {
		struct qgroup_row *row = &view->rows[view->nr];
		const struct btrfs_subvol *sv;

		row->qg = chain ? chain[i] : &list->groups[i];
		row->kind = vc_fact_qgroup_kind(list, row->qg, subvols);
		row->path = NULL;
		if (row->kind == BTRFS_QGROUP_KIND_SUBVOL ||
		    row->kind == BTRFS_QGROUP_KIND_TOPLEVEL) {
			sv = btrfs_subvol_list_find(subvols,
						    btrfs_qgroup_subvolid(row->qg->qgroupid));
			row->path = sv ? sv->path : NULL;
			if (row->path && ctx->cfg->format == VC_FORMAT_JSON &&
			    ctx->ops->absolute_path)
				row->abs = ctx->ops->absolute_path(fs, row->path);
		}
		view->nr++;
	}
	free(chain);
	qsort_r(view->rows, view->nr, sizeof(*view->rows), row_cmp, (void *)&opts->sort);
	return 0;
}

static void show_warnings(const struct quota_state *st, const char *path)
{
	if (st->rescan_running)
		warning("%s: a quota rescan is running, the numbers are incomplete until it "
			"finishes ('volctl quota rescan -W %s' waits for it)", path, path);
	else if (st->inconsistent)
		warning("%s: qgroup numbers are inconsistent and limits are not reliable; "
			"run 'volctl quota rescan -w %s'", path, path);
}

/*
 * --compute: replace the recorded numbers with the engine's; without quotas,
 * one level-0 row per live subvolume.  Returns 0, a negative errno for
 * cmd_report(), or VC_EXIT_FAILURE after printing the error.
 */
static int show_compute(const struct vc_ctx *ctx, struct vc_fs *fs, const char *path,
			const struct btrfs_subvol_list *subvols, struct qgroup_view *view,
			struct btrfs_qgroup_list *list)
{
	bool simple = view->quota.enabled && view->quota.simple;
	struct vc_acct_result res;
	int ret;

	ret = vc_acct_compute(ctx->ops, fs, simple, list->status.enable_gen, &res);
	if (ret) {
		error("%s: %s", path, res.err);
		vc_acct_release(ctx->ops, fs, &res);
		return VC_EXIT_FAILURE;
	}
	if (res.retried)
		warning("%s: the filesystem changed while it was read; the second read succeeded",
			path);
	if (view->quota.enabled) {
		ret = vc_acct_fill_qgroups(&res, list);
	} else {
		vc_qgroups_release(list);
		ret = vc_acct_subvol_qgroups(&res, subvols, list);
	}
	view->computed = res.live ? "live_snapshot" : "image";
	if (!ret && ctx->cfg->format != VC_FORMAT_JSON)
		pr_note(ctx->cfg, "Computed numbers (from %s%s), not the recorded ones",
			res.live ? "a committed snapshot of the mounted filesystem" : "the image",
			view->quota.enabled ? "" : "; quotas are off: one level-0 row per subvolume");
	vc_acct_release(ctx->ops, fs, &res);
	return ret;
}

/* Dirty data written, then a commit: the numbers read next include it. */
static void sync_first(const struct vc_ctx *ctx, struct vc_fs *fs, const char *path)
{
	int ret = CMD_OP(ctx, sync, fs);

	if (ret && ret != -EOPNOTSUPP)
		warning("%s: cannot sync the filesystem first: %s", path, strerror(-ret));
	vc_fs_clear_error(fs);
}

static int show_run(const struct vc_ctx *ctx, struct vc_fs *fs, const char *path,
		    const struct show_opts *opts)
{
	struct btrfs_subvol_list subvols = { 0 };
	struct btrfs_qgroup_list list = { 0 };
	struct qgroup_view view = { .list = &list };
	int ret;

	if (opts->sync)
		sync_first(ctx, fs, path);
	ret = quota_state_read(ctx->ops, fs, &list, &view.quota);
	if (ret) {
		ret = cmd_report(ctx, fs, ret, path);
		goto out;
	}
	if (!view.quota.enabled && !opts->compute) {
		error("%s: quota is not enabled (run 'volctl quota enable %s')", path, path);
		ret = VC_EXIT_FAILURE;
		goto out;
	}
	if (!opts->compute)
		show_warnings(&view.quota, path);
	ret = vc_facts_subvols(fs, &subvols);
	if (!ret && opts->compute)
		ret = show_compute(ctx, fs, path, &subvols, &view, &list);
	if (ret > 0)
		goto out;
	if (!ret)
		ret = build_view(ctx, fs, path, opts, &subvols, &view);
	if (ret) {
		ret = cmd_report(ctx, fs, ret, path);
		goto out;
	}
	if (ctx->cfg->format == VC_FORMAT_JSON)
		ret = qgroup_print_json(stdout, &view, ctx->cfg->json_v1);
	else if (opts->tree)
		ret = qgroup_print_tree(stdout, &view, &opts->out);
	else
		ret = qgroup_print_table(stdout, &view, &opts->out);
	if (ret)
		ret = cmd_report(ctx, NULL, ret, path);
out:
	for (size_t i = 0; i < view.nr; i++)
		free(view.rows[i].abs);
	free(view.rows);
	btrfs_subvol_list_release(&subvols);
	vc_qgroups_release(&list);
	return ret;
}

static int cmd_qgroup_show(const struct cmd_struct *cmd, const struct vc_ctx *ctx, int argc,
			   char **argv)
{
	enum { OPT_SORT = 256, OPT_SYNC, OPT_TREE, OPT_COMPUTE };
	static const struct option longopts[] = {
		{ "compute", no_argument, NULL, OPT_COMPUTE },
		{ "sort", required_argument, NULL, OPT_SORT },
		{ "sync", no_argument, NULL, OPT_SYNC },
		{ "tree", no_argument, NULL, OPT_TREE },
		{ NULL, 0, NULL, 0 },
	};
	struct show_opts opts = { .filter = FILTER_NONE };
	struct vc_fs *fs;
	const char *path;
	int c, ret;

	opts.out.units = units_from_args(&argc, argv, false);
	while ((c = cmd_getopt(ctx, argc, argv, "pcreFf", longopts)) != -1) {
		switch (c) {
		case 'p':
			opts.out.parent = true;
			break;
		case 'c':
			opts.out.child = true;
			break;
		case 'r':
			opts.out.max_rfer = true;
			break;
		case 'e':
			opts.out.max_excl = true;
			break;
		case 'F':
		case 'f':
			if (opts.filter != FILTER_NONE)
				return cmd_usage_error(ctx, "-f and -F are mutually exclusive");
			opts.filter = c == 'F' ? FILTER_ANCESTORS : FILTER_ONLY;
			break;
		case OPT_SORT:
			ret = parse_sort(optarg, &opts.sort);
			if (ret == -ENOMEM)
				return VC_EXIT_FAILURE;
			if (ret)
				return cmd_usage_error(ctx, "invalid sort '%s': use [+|-]KEY[,...] "
						       "with KEY qgroupid, rfer, excl, max_rfer, "
						       "max_excl or path", optarg);
			break;
		case OPT_SYNC:
			opts.sync = true;
			break;
		case OPT_TREE:
			opts.tree = true;
			break;
		case OPT_COMPUTE:
			opts.compute = true;
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
	ret = show_run(ctx, fs, path, &opts);
	ctx->ops->close(fs);
	return ret;
}

/* ---- clear-stale ---- */

/* --format json of clear-stale: the groups destroyed and those left */
struct stale_done {
	u64 *destroyed, *skipped;
	size_t nr_destroyed, nr_skipped;
};

/* Add @id to @ids (room for every group is allocated up front) */
static void stale_note(u64 *ids, size_t *nr, u64 id)
{
	if (ids)
		ids[(*nr)++] = id;
}

static int clear_one(const struct vc_ctx *ctx, struct vc_fs *fs, const struct qgroup_row *row,
		     bool inconsistent, struct stale_done *sd)
{
	const struct btrfs_qgroup *qg = row->qg;
	char qb[BTRFS_QGROUPID_BUFSIZE];
	bool nonempty = qg->info.rfer || qg->info.excl;
	int ret;

	qgid(qg->qgroupid, qb);
	switch (row->kind) {
	case BTRFS_QGROUP_KIND_UNDER_DELETION:
		pr_out(ctx->cfg, "Skip qgroup %s: subvolume %" PRIu64 " is still being cleaned "
		       "(run 'volctl subvolume sync' and try again)\n", qb,
		       btrfs_qgroup_subvolid(qg->qgroupid));
		stale_note(sd->skipped, &sd->nr_skipped, qg->qgroupid);
		return 0;
	case BTRFS_QGROUP_KIND_SQUOTA_HOLDER:
		pr_out(ctx->cfg, "Skip qgroup %s: simple-quota space holder, still charged for "
		       "extents in use\n", qb);
		stale_note(sd->skipped, &sd->nr_skipped, qg->qgroupid);
		return 0;
	case BTRFS_QGROUP_KIND_STALE:
		break;
	default:
		return 0;
	}
	if (!qgid_is_subvol(qg->qgroupid)) {
		/*
		 * 0/N with N below 256 and not 5 (made by a qgroup create
		 * that did not check): the kernel destroys it only when no
		 * tree N exists.  One it keeps is reported, not a failure:
		 * clear-stale must not fail on every run from then on.
		 */
		ret = CMD_OP(ctx, qgroup_destroy, fs, qg->qgroupid);
		if (!ret)
			pr_out(ctx->cfg, "Delete stale qgroup %s\n", qb);
		else if (ret == -EBUSY)
			warning("qgroup %s: not a subvolume's group and the filesystem has a tree "
				"%" PRIu64 ", so it cannot be destroyed; left in place", qb,
				btrfs_qgroup_subvolid(qg->qgroupid));
		if (!ret)
			stale_note(sd->destroyed, &sd->nr_destroyed, qg->qgroupid);
		else if (ret == -EBUSY)
			stale_note(sd->skipped, &sd->nr_skipped, qg->qgroupid);
		return ret == -EBUSY ? 0 : ret ? cmd_report(ctx, fs, ret, qb) : 0;
	}
	pr_out(ctx->cfg, "Delete stale qgroup %s\n", qb);
	ret = CMD_OP(ctx, qgroup_destroy, fs, qg->qgroupid);
	if (!ret) {
		stale_note(sd->destroyed, &sd->nr_destroyed, qg->qgroupid);
		return 0;
	}
	if (inconsistent && nonempty) {
		warning("qgroup %s: not deleted, it still has non-zero numbers while quotas are "
			"inconsistent (run 'volctl quota rescan -w' first)", qb);
		stale_note(sd->skipped, &sd->nr_skipped, qg->qgroupid);
		return 0;
	}
	return cmd_report(ctx, fs, ret, qb);
}

static int clear_stale_run(const struct vc_ctx *ctx, struct vc_fs *fs, const char *path)
{
	struct btrfs_subvol_list subvols = { 0 };
	struct btrfs_qgroup_list list = { 0 };
	struct stale_done sd = { 0 };
	struct clear_stale_rec doc;
	struct quota_state st;
	int ret, failed = 0;
	size_t nr_stale = 0;

	sync_first(ctx, fs, path);
	ret = quota_state_read(ctx->ops, fs, &list, &st);
	if (!ret && !st.enabled) {
		error("%s: quota is not enabled (run 'volctl quota enable %s')", path, path);
		ret = VC_EXIT_FAILURE;
		goto out;
	}
	if (!ret)
		ret = vc_facts_subvols(fs, &subvols);
	if (ret) {
		ret = cmd_report(ctx, fs, ret, path);
		goto out;
	}
	if (ctx->cfg->format == VC_FORMAT_JSON && list.nr) {
		sd.destroyed = calloc(list.nr, sizeof(*sd.destroyed));
		sd.skipped = calloc(list.nr, sizeof(*sd.skipped));
		if (!sd.destroyed || !sd.skipped) {
			ret = cmd_report(ctx, fs, -ENOMEM, path);
			goto out;
		}
	}
	for (size_t i = 0; i < list.nr; i++) {
		struct qgroup_row row = { .qg = &list.groups[i] };

		if (btrfs_qgroup_level(row.qg->qgroupid))
			continue;
		row.kind = vc_fact_qgroup_kind(&list, row.qg, &subvols);
		if (row.kind == BTRFS_QGROUP_KIND_STALE)
			nr_stale++;
		if (clear_one(ctx, fs, &row, st.inconsistent, &sd))
			failed++;
	}
	if (!nr_stale)
		pr_out(ctx->cfg, "No stale qgroups\n");
	doc = (struct clear_stale_rec){ path, { sd.destroyed, sd.nr_destroyed },
					{ sd.skipped, sd.nr_skipped }, (uint64_t)failed };
	cmd_print_doc(ctx, &rec_doc_qgroup_clear_stale, &rec_clear_stale, &doc);
	ret = failed ? VC_EXIT_FAILURE : 0;
out:
	free(sd.destroyed);
	free(sd.skipped);
	btrfs_subvol_list_release(&subvols);
	vc_qgroups_release(&list);
	return ret;
}

static int cmd_qgroup_clear_stale(const struct cmd_struct *cmd, const struct vc_ctx *ctx,
				  int argc, char **argv)
{
	struct vc_fs *fs;
	int c, ret;

	while ((c = cmd_getopt(ctx, argc, argv, "", NULL)) != -1)
		return VC_EXIT_USAGE;
	ret = cmd_check_argc_exact(ctx, argc - optind, 1);
	if (ret)
		return ret;
	ret = cmd_open(ctx, argv[optind], true, &fs);
	if (ret)
		return ret;
	ret = clear_stale_run(ctx, fs, argv[optind]);
	ctx->ops->close(fs);
	return ret;
}

/* ---- table ---- */

static const char *const cmd_qgroup_create_usage[] = { "qgroup create <qgroupid> <path>", NULL };
static const char *const cmd_qgroup_create_details[] = {
	"Create a quota group.  <qgroupid> is LEVEL/ID with LEVEL 1 or higher; a",
	"bare id is refused.  Level-0 groups belong to subvolumes and are created",
	"with them: 0/ID with ID below 256 (other than 5) is refused, any other",
	"level-0 id is passed to the kernel, which refuses it too (Linux 6.x).",
	NULL,
};
static const struct cmd_help create_help = {
	cmd_qgroup_create_usage, "create a quota group", cmd_qgroup_create_details,
};

static const char *const cmd_qgroup_destroy_usage[] = { "qgroup destroy <qgroupid> <path>", NULL };
static const char *const cmd_qgroup_destroy_details[] = {
	"Destroy a quota group, given as LEVEL/ID (a bare id is refused).  It must",
	"have no members; a level-0 group can only go once its subvolume is gone.",
	NULL,
};
static const struct cmd_help destroy_help = {
	cmd_qgroup_destroy_usage, "destroy a quota group", cmd_qgroup_destroy_details,
};

static const char *const cmd_qgroup_assign_usage[] = {
	"qgroup assign [--rescan|--no-rescan] <src> <dst> <path>", NULL,
};
static const char *const cmd_qgroup_relation_details[] = {
	"<src> and <dst> are LEVEL/ID, a subvolume id, or the absolute path of a",
	"subvolume; <dst> must have a higher level than <src>.  When the kernel",
	"cannot update the numbers in place it marks them inconsistent; a rescan",
	"is then started unless --no-rescan is given.",
	"",
	OPTLINE("--rescan", "start a rescan when one is needed (default)"),
	OPTLINE("--no-rescan", "leave the numbers inconsistent (warns)"),
	NULL,
};
static const struct cmd_help assign_help = {
	cmd_qgroup_assign_usage, "make <src> a member of the group <dst>", cmd_qgroup_relation_details,
};

static const char *const cmd_qgroup_remove_usage[] = {
	"qgroup remove [--rescan|--no-rescan] <src> <dst> <path>", NULL,
};
static const struct cmd_help remove_help = {
	cmd_qgroup_remove_usage, "remove <src> from the group <dst>", cmd_qgroup_relation_details,
};

static const char *const cmd_qgroup_limit_usage[] = {
	"qgroup limit [-c] [-e] <size>|none [<qgroupid>] <path>", NULL,
};
static const char *const cmd_qgroup_limit_details[] = {
	"Set or clear (none) the referenced limit of a qgroup, or with -e its",
	"exclusive limit.  <size> takes the suffixes k m g t p e or KiB MiB GiB",
	"TiB PiB EiB (any case, powers of 1024; MB and GB are refused) and, with",
	"a suffix, a fraction: 10M, 10MiB, 1.5G (rounded down to a byte).",
	"Without <qgroupid> the subvolume at <path> is limited.  <qgroupid> may be",
	"LEVEL/ID, a subvolume id or the absolute path of a subvolume.  <path>",
	"is always needed: a qgroup id with no path after it is a usage error.",
	"",
	OPTLINE("-c", "count compressed sizes (the kernel's default)"),
	OPTLINE("-e", "limit the exclusive size instead of the referenced size"),
	NULL,
};
static const struct cmd_help limit_help = {
	cmd_qgroup_limit_usage, "set or clear the limit of a qgroup", cmd_qgroup_limit_details,
};

static const char *const cmd_qgroup_show_usage[] = {
	"qgroup show [options] <path>", NULL,
};
static const char *const cmd_qgroup_show_details[] = {
	"List the qgroups of the filesystem at <path> with their usage.",
	"",
	OPTLINE("-p", "show the parent groups of each qgroup"),
	OPTLINE("-c", "show the members (children) of each qgroup"),
	OPTLINE("-r", "show the referenced limit"),
	OPTLINE("-e", "show the exclusive limit"),
	OPTLINE("-F", "only the qgroup of the subvolume holding <path> and all groups above it"),
	OPTLINE("-f", "only the qgroup of the subvolume holding <path>"),
	OPTLINE("--sort=[+|-]KEY[,...]", "sort by qgroupid, rfer, excl, max_rfer, max_excl, path"),
	OPTLINE("--tree", "draw the hierarchy as a tree, with limits as used/limit and how "
		"full\n\teach limited group is"),
	OPTLINE("--sync", "write dirty data and commit first, so the numbers include\n\teverything written so far"),
	OPTLINE("--compute", "compute the numbers from the trees instead of showing the\n\t"
		"recorded ones (works with quotas off: one level-0 row per\n\tsubvolume); "
		"mounted: reads a committed snapshot of the devices"),
	OPTLINE("--raw", "sizes in bytes"),
	OPTLINE("--human-readable", "sizes with a binary suffix (default)"),
	OPTLINE("--iec", "powers of 1024 (KiB, MiB, ...)"),
	OPTLINE("--si", "powers of 1000 (kB, MB, ...)"),
	OPTLINE("--kbytes|--mbytes|--gbytes|--tbytes", "sizes in that unit"),
	OPTLINE("--format json", "(global option) a JSON document, sizes in bytes"),
	NULL,
};
static const struct cmd_help show_help = {
	cmd_qgroup_show_usage, "show qgroups, their usage, limits and hierarchy", cmd_qgroup_show_details,
};

static const char *const cmd_qgroup_clear_stale_usage[] = { "qgroup clear-stale <path>", NULL };
static const char *const cmd_qgroup_clear_stale_details[] = {
	"Destroy the level-0 qgroups whose subvolume no longer exists.  Groups of",
	"subvolumes that are still being cleaned are skipped and named; run",
	"'volctl subvolume sync <path>' first to wait for them.  A group 0/ID with",
	"ID below 256 (not 5) that the kernel keeps because tree ID exists is",
	"reported with a warning and left; it does not make the exit status 1.",
	NULL,
};
static const struct cmd_help clear_stale_help = {
	cmd_qgroup_clear_stale_usage, "destroy qgroups of deleted subvolumes",
	cmd_qgroup_clear_stale_details,
};

#define QG_WRITES (CMD_WRITES | CMD_ONLINE | CMD_OFFLINE | CMD_FORMAT_JSON)
#define QG_READS (CMD_FORMAT_JSON | CMD_ONLINE | CMD_OFFLINE)

static const struct cmd_struct cmd_struct_qgroup_create = {
	"create", cmd_qgroup_create, &create_help, NULL, QG_WRITES,
};
static const struct cmd_struct cmd_struct_qgroup_destroy = {
	"destroy", cmd_qgroup_destroy, &destroy_help, NULL, QG_WRITES,
};
static const struct cmd_struct cmd_struct_qgroup_assign = {
	"assign", cmd_qgroup_assign, &assign_help, NULL, QG_WRITES,
};
static const struct cmd_struct cmd_struct_qgroup_remove = {
	"remove", cmd_qgroup_remove, &remove_help, NULL, QG_WRITES,
};
static const struct cmd_struct cmd_struct_qgroup_limit = {
	"limit", cmd_qgroup_limit, &limit_help, NULL, QG_WRITES,
};
static const struct cmd_struct cmd_struct_qgroup_show = {
	"show", cmd_qgroup_show, &show_help, NULL, QG_READS,
};
static const struct cmd_struct cmd_struct_qgroup_clear_stale = {
	"clear-stale", cmd_qgroup_clear_stale, &clear_stale_help, NULL, QG_WRITES,
};

extern const struct cmd_struct cmd_struct_qgroup_headroom;	/* cmds/qgroup-headroom.c */

static const struct cmd_struct *const cmd_group_qgroup_commands[] = {
	&cmd_struct_qgroup_create,
	&cmd_struct_qgroup_destroy,
	&cmd_struct_qgroup_assign,
	&cmd_struct_qgroup_remove,
	&cmd_struct_qgroup_limit,
	&cmd_struct_qgroup_show,
	&cmd_struct_qgroup_headroom,
	&cmd_struct_qgroup_clear_stale,
	NULL,
};

const struct cmd_group cmd_group_qgroup = {
	.token = "qgroup",
	.summary = "manage quota groups",
	.commands = cmd_group_qgroup_commands,
};
