// SPDX-License-Identifier: GPL-2.0-only
/*
 * Rendering of qgroups and quota status: see qgroup-out.h.
 *
 * One record per group, described in common/output/records.c (rec_qgroup_row): its
 * JSON object and its row of the text table, which keeps the layout scripts
 * parse (btrfs-progs: minimum column widths, right-aligned sizes, "Path"
 * last, a dashes line; libsmartcols cannot produce that header) through the
 * auto-width table of common/output/record.c.  The tree view has no legacy to keep
 * and uses libsmartcols' tree mode, its columns rec_qgroup_tree.  Sizes in
 * JSON are always raw bytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libsmartcols.h>
#include "common/output/output.h"
#include "common/output/qgroup-out.h"
#include "common/output/records.h"
#include "common/util/units.h"
#include "kernel-shared/qgroup-list.h"

/* Room below which a set limit counts as full: 1% of it, at least 256 KiB. */
#define FULL_SLACK_MIN	(256ULL * 1024)

int qgroup_limit_percent(u64 used, u64 limit, bool set)
{
	if (!set)
		return -1;
	if (!limit)
		return used ? 100 : 0;
	if (used / limit >= 100)
		return 9999;
	return (int)((double)used * 100.0 / (double)limit);
}

bool qgroup_limit_is_full(u64 used, u64 limit, bool set)
{
	u64 slack;

	if (!set)
		return false;
	slack = limit / 100;
	if (slack < FULL_SLACK_MIN)
		slack = FULL_SLACK_MIN;
	return used >= limit || limit - used < slack;
}

static bool has_max_rfer(const struct btrfs_qgroup *qg)
{
	return qg->limit.flags & BTRFS_QGROUP_LIMIT_MAX_RFER;
}

static bool has_max_excl(const struct btrfs_qgroup *qg)
{
	return qg->limit.flags & BTRFS_QGROUP_LIMIT_MAX_EXCL;
}

const char *qgroup_row_label(const struct qgroup_row *row, char *buf, size_t size)
{
	struct count_rec n;
	char *text;

	switch (row->kind) {
	case BTRFS_QGROUP_KIND_TOPLEVEL:
		return "<toplevel>";
	case BTRFS_QGROUP_KIND_SUBVOL:
		return row->path ? row->path : "<under deletion>";
	case BTRFS_QGROUP_KIND_UNDER_DELETION:
		return "<under deletion>";
	case BTRFS_QGROUP_KIND_STALE:
		return "<stale>";
	case BTRFS_QGROUP_KIND_SQUOTA_HOLDER:
		return "<squota space holder>";
	case BTRFS_QGROUP_KIND_GROUP:
	default:
		n.n = row->qg->nr_children;
		text = rec_text_string(&rec_members_label, &n, 0);
		snprintf(buf, size, "%s", text ? text : "");
		free(text);
		return buf;
	}
}

static const char *kind_name(enum btrfs_qgroup_kind kind)
{
	switch (kind) {
	case BTRFS_QGROUP_KIND_TOPLEVEL:
		return "toplevel";
	case BTRFS_QGROUP_KIND_SUBVOL:
		return "subvolume";
	case BTRFS_QGROUP_KIND_UNDER_DELETION:
		return "under-deletion";
	case BTRFS_QGROUP_KIND_STALE:
		return "stale";
	case BTRFS_QGROUP_KIND_SQUOTA_HOLDER:
		return "squota-space-holder";
	case BTRFS_QGROUP_KIND_GROUP:
	default:
		return "group";
	}
}

/* The record of @row (common/output/records.c): JSON object and text table row */
static void row_rec(struct qgroup_row_rec *r, const struct qgroup_row *row, char *label,
		    size_t size)
{
	const struct btrfs_qgroup *qg = row->qg;
	bool rset = has_max_rfer(qg), eset = has_max_excl(qg);
	bool reachable = row->kind == BTRFS_QGROUP_KIND_TOPLEVEL ||
			 row->kind == BTRFS_QGROUP_KIND_SUBVOL;

	*r = (struct qgroup_row_rec){
		.qgroupid = qg->qgroupid,
		.level = btrfs_qgroup_level(qg->qgroupid),
		.id = btrfs_qgroup_subvolid(qg->qgroupid),
		.rfer = qg->info.rfer,
		.excl = qg->info.excl,
		.path = row->kind == BTRFS_QGROUP_KIND_TOPLEVEL ? "" :
			row->kind == BTRFS_QGROUP_KIND_SUBVOL ? row->path : NULL,
		.abs = reachable ? row->abs : NULL,
		.status = kind_name(row->kind),
		.parents = { qg->parents, qg->nr_parents },
		.children = { qg->children, qg->nr_children },
		.rfer_cmpr = qg->info.rfer_cmpr,
		.excl_cmpr = qg->info.excl_cmpr,
		.full = qgroup_limit_is_full(qg->info.rfer, qg->limit.max_rfer, rset) ||
			qgroup_limit_is_full(qg->info.excl, qg->limit.max_excl, eset),
		.label = qgroup_row_label(row, label, size),
		.v = { qg->limit.max_rfer, qg->limit.max_excl,
		       (u64)qgroup_limit_percent(qg->info.rfer, qg->limit.max_rfer, true),
		       (u64)qgroup_limit_percent(qg->info.excl, qg->limit.max_excl, true) },
	};
	r->max_rfer = rset ? &r->v[0] : NULL;
	r->max_excl = eset ? &r->v[1] : NULL;
	r->rfer_percent = rset ? &r->v[2] : NULL;
	r->excl_percent = eset ? &r->v[3] : NULL;
}

/* ---- text table ---- */

int qgroup_print_table(FILE *out, const struct qgroup_view *view,
		       const struct qgroup_show_opts *opts)
{
	unsigned int show = (opts->max_rfer ? QG_COL_MAX_RFER : 0) |
			    (opts->max_excl ? QG_COL_MAX_EXCL : 0) |
			    (opts->parent ? QG_COL_PARENT : 0) | (opts->child ? QG_COL_CHILD : 0);
	struct vc_config cfg = { .format = VC_FORMAT_TEXT };
	struct qgroup_row_rec r;
	struct rec_autotab t;
	struct kvout kv;
	char label[64];
	int ret;

	kvout_init(&kv, &cfg, out, opts->units);
	ret = rec_autotab_init(&t, &kv, &rec_qgroup_row, show);
	if (ret)
		return ret;
	for (size_t i = 0; i < view->nr; i++) {
		row_rec(&r, &view->rows[i], label, sizeof(label));
		rec_autotab_measure(&t, &r);
	}
	ret = rec_autotab_header(&t);
	for (size_t i = 0; i < view->nr && !ret; i++) {
		row_rec(&r, &view->rows[i], label, sizeof(label));
		ret = rec_autotab_row(&t, &r);
	}
	rec_autotab_release(&t);
	return ret;
}

/* ---- tree ---- */

struct tree_ctx {
	const struct qgroup_view *view;
	const struct qgroup_show_opts *opts;
	struct libscols_table *tb;
	struct rec_text cell;
	long *row_of;		/* index in list->groups -> index in view->rows, or -1 */
};

static const char *used_of_limit(u64 used, u64 limit, bool set, unsigned int units, char *buf,
				 size_t size)
{
	char a[UNITS_BUFSIZE], b[UNITS_BUFSIZE];

	if (!set)
		return "-";
	snprintf(buf, size, "%s/%s", pretty_size(used, units, a), pretty_size(limit, units, b));
	return buf;
}

static const char *use_text(const struct btrfs_qgroup *qg, char *buf, size_t size)
{
	int pr = qgroup_limit_percent(qg->info.rfer, qg->limit.max_rfer, has_max_rfer(qg));
	int pe = qgroup_limit_percent(qg->info.excl, qg->limit.max_excl, has_max_excl(qg));
	bool full = qgroup_limit_is_full(qg->info.rfer, qg->limit.max_rfer, has_max_rfer(qg)) ||
		    qgroup_limit_is_full(qg->info.excl, qg->limit.max_excl, has_max_excl(qg));
	int p = pr > pe ? pr : pe;

	if (p < 0)
		return "-";
	snprintf(buf, size, "%d%%%s", p, full ? " full" : "");
	return buf;
}

static int tree_add(struct tree_ctx *ctx, size_t ri, struct libscols_line *parent, int depth)
{
	const struct qgroup_row *row = &ctx->view->rows[ri];
	const struct btrfs_qgroup *qg = row->qg;
	const struct btrfs_qgroup_list *list = ctx->view->list;
	const struct rec_desc *d = &rec_qgroup_tree;
	unsigned int units = ctx->opts->units;
	char rl[2 * UNITS_BUFSIZE + 2], el[2 * UNITS_BUFSIZE + 2], use[32], label[64];
	struct qgroup_tree_rec r = {
		.qgroupid = qg->qgroupid,
		.rfer = qg->info.rfer,
		.excl = qg->info.excl,
		.rfer_limit = used_of_limit(qg->info.rfer, qg->limit.max_rfer, has_max_rfer(qg),
					    units, rl, sizeof(rl)),
		.excl_limit = used_of_limit(qg->info.excl, qg->limit.max_excl, has_max_excl(qg),
					    units, el, sizeof(el)),
		.use = use_text(qg, use, sizeof(use)),
		.label = qgroup_row_label(row, label, sizeof(label)),
	};
	struct libscols_line *ln;
	int ret = 0, col = 0;

	if (depth > 32)
		return -EUCLEAN;	/* relations form a cycle: corrupt quota tree */
	ln = scols_table_new_line(ctx->tb, parent);
	if (!ln)
		return -ENOMEM;
	for (size_t i = 0; i < d->nr; i++) {
		const char *text;

		if (!d->fields[i].label)
			continue;
		text = rec_cell(&ctx->cell, &d->fields[i], &r, units);
		if (!text || scols_line_set_data(ln, col++, text))
			return -ENOMEM;
	}
	for (size_t i = 0; i < qg->nr_children; i++) {
		const struct btrfs_qgroup *child = btrfs_qgroup_list_find(list, qg->children[i]);
		long cr;

		if (!child)
			continue;
		cr = ctx->row_of[child - list->groups];
		if (cr < 0)
			continue;
		ret = tree_add(ctx, (size_t)cr, ln, depth + 1);
		if (ret)
			return ret;
	}
	return 0;
}

/* A row is a root of the tree when none of its parents is shown. */
static bool is_root(const struct tree_ctx *ctx, const struct btrfs_qgroup *qg)
{
	const struct btrfs_qgroup_list *list = ctx->view->list;

	for (size_t i = 0; i < qg->nr_parents; i++) {
		const struct btrfs_qgroup *p = btrfs_qgroup_list_find(list, qg->parents[i]);

		if (p && ctx->row_of[p - list->groups] >= 0)
			return false;
	}
	return true;
}

static int tree_build(struct tree_ctx *ctx)
{
	const struct rec_desc *d = &rec_qgroup_tree;
	const struct qgroup_view *view = ctx->view;
	int top_level = 0, nr = 0;
	int ret;

	/* the labelled fields, the first drawing the tree; width: the hint in percent */
	for (size_t i = 0; i < d->nr; i++) {
		const struct rec_field *f = &d->fields[i];
		int flags = f->align == REC_RIGHT ? SCOLS_FL_RIGHT : 0;

		if (!f->label)
			continue;
		if (!scols_table_new_column(ctx->tb, f->label, f->width / 100.0,
					    nr++ ? flags : flags | SCOLS_FL_TREE))
			return -ENOMEM;
	}
	for (size_t i = 0; i < view->nr; i++) {
		int level = btrfs_qgroup_level(view->rows[i].qg->qgroupid);

		if (level > top_level)
			top_level = level;
	}
	/* roots from the highest level down, so groups come before loose subvolumes */
	for (int level = top_level; level >= 0; level--) {
		for (size_t i = 0; i < view->nr; i++) {
			const struct btrfs_qgroup *qg = view->rows[i].qg;

			if (btrfs_qgroup_level(qg->qgroupid) != level || !is_root(ctx, qg))
				continue;
			ret = tree_add(ctx, i, NULL, 0);
			if (ret)
				return ret;
		}
	}
	return 0;
}

int qgroup_print_tree(FILE *out, const struct qgroup_view *view,
		      const struct qgroup_show_opts *opts)
{
	const struct btrfs_qgroup_list *list = view->list;
	struct tree_ctx ctx = { .view = view, .opts = opts };
	int ret;

	ctx.row_of = malloc((list->nr ? list->nr : 1) * sizeof(*ctx.row_of));
	ctx.tb = scols_new_table();
	if (!ctx.row_of || !ctx.tb) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < list->nr; i++)
		ctx.row_of[i] = -1;
	for (size_t i = 0; i < view->nr; i++)
		ctx.row_of[view->rows[i].qg - list->groups] = (long)i;
	scols_table_set_stream(ctx.tb, out);
	ret = tree_build(&ctx);
	if (!ret && scols_print_table(ctx.tb))
		ret = -EIO;
out:
	scols_unref_table(ctx.tb);
	rec_text_release(&ctx.cell);
	free(ctx.row_of);
	return ret;
}

/* ---- JSON ---- */

int qgroup_print_json(FILE *out, const struct qgroup_view *view, bool v1)
{
	const struct quota_state *st = &view->quota;
	struct vc_config cfg = { .format = VC_FORMAT_JSON, .json_v1 = v1 };
	struct qgroup_head_rec head = {
		.enabled = st->enabled,
		.mode = !st->enabled || st->status_faults ? NULL : st->simple ? "simple" : "full",
		.inconsistent = st->inconsistent,
		.rescan_running = st->rescan_running,
		.source = view->computed,
	};
	struct qgroup_row_rec r;
	struct kvout kv;
	char label[64];

	kvout_init(&kv, &cfg, out, 0);
	rec_doc_begin(&kv, &rec_doc_qgroup_show);
	rec_emit(&kv, &rec_qgroup_quota, &head);
	if (view->computed)
		rec_emit(&kv, &rec_qgroup_computed, &head);
	/* json-v1: the version-1 name (the values did not change) */
	kvout_array_open(&kv, rec_doc_key(&kv, &rec_doc_qgroup_show));
	for (size_t i = 0; i < view->nr; i++) {
		row_rec(&r, &view->rows[i], label, sizeof(label));
		kvout_object_open(&kv, NULL);
		rec_emit(&kv, &rec_qgroup_row, &r);
		kvout_object_close(&kv);
	}
	kvout_array_close(&kv);
	kvout_document_close(&kv);
	return 0;
}

/* ---- quota status ---- */

/* Levels with groups, from 0 to the highest (level 0 always when enabled) */
static size_t top_level(const struct quota_state *st)
{
	size_t top = 0;

	for (size_t l = 0; l < QUOTA_MAX_LEVELS; l++)
		if (st->levels[l])
			top = l;
	return top;
}

void qstatus_faults_fill(struct qstatus_faults *out, unsigned int faults,
			 const struct btrfs_qgroup_status_rec *st,
			 const struct btrfs_qstatus_super *sb)
{
	out->nr = 0;
	for (unsigned int bit = 1; bit & BTRFS_QSTATUS_FAULT_ALL; bit <<= 1) {
		if (!(faults & bit) || out->nr == QSTATUS_MAX_FAULTS)
			continue;
		btrfs_qgroup_status_fault_str(bit, st, sb, out->msg[out->nr],
					      sizeof(out->msg[out->nr]));
		out->rec[out->nr].fault = btrfs_qgroup_status_fault_name(bit);
		out->rec[out->nr].message = out->msg[out->nr];
		out->nr++;
	}
}

/* What a quota status record points into */
struct status_buf {
	struct quota_level_rec lv[QUOTA_MAX_LEVELS];
	struct qstatus_faults qf;
	char rescan[64], mode[96];
	bool b[2];
	uint64_t u[2];
};

/* The quota status record (common/output/records.c) of @st, pointing into @sb */
static void status_rec(struct quota_status_rec *r, struct status_buf *sb, const char *path,
		       const struct quota_state *st)
{
	struct quota_level_rec *lv = sb->lv;
	const struct qstatus_faults *qf = &sb->qf;
	bool *b = sb->b;
	uint64_t *u = sb->u;
	char *buf = sb->rescan, *mode = sb->mode;
	size_t size = sizeof(sb->rescan), mode_size = sizeof(sb->mode);
	size_t top = top_level(st), nr = 0;

	qstatus_faults_fill(&sb->qf, st->status_faults, &st->status, st->sb_known ? &st->sb : NULL);

	/* b[0] override_limits, b[1] rescan_running; u[0] drop threshold, u[1] progress */
	b[0] = st->override_limits > 0;
	b[1] = st->rescan_running;
	u[0] = (uint64_t)st->drop_threshold;
	u[1] = st->rescan_progress;
	*r = (struct quota_status_rec){
		.path = path,
		.enabled = st->enabled,
		.mode_text = st->status_faults ? mode : st->simple ? "squota (simplified accounting)" :
			     "qgroup (full accounting)",
		.mode = !st->enabled || st->status_faults ? NULL : st->simple ? "simple" : "full",
		.inconsistent_text = st->inconsistent ? "yes (rescan needed)" : "no",
		.inconsistent = st->inconsistent,
		.override_limits = st->enabled && st->override_limits >= 0 ? &b[0] : NULL,
		.drop_threshold = st->enabled && st->drop_threshold >= 0 ? &u[0] : NULL,
		.rescan_running = st->rescan_unknown ? NULL : &b[1],
		.rescan_progress = st->rescan_running ? &u[1] : NULL,
		.total = st->total,
		.rescan_text = buf,
		.status_flags = st->has_status ? &st->status.flags : NULL,
		.status_faults = { &rec_qstatus_fault, qf->rec, qf->nr, sizeof(*qf->rec) },
	};
	snprintf(mode, mode_size, "unknown: invalid status item (flags 0x%" PRIx64 ")",
		 st->status.flags);
	/* every level with groups, level 0 always; JSON lists none when there are no groups */
	for (size_t l = 0; l <= top; l++) {
		if (!st->levels[l] && l)
			continue;
		snprintf(lv[nr].label, sizeof(lv[nr].label), "Level %zu:", l);
		lv[nr].level_text = lv[nr].label;
		lv[nr].level = l;
		lv[nr].count = st->levels[l];
		nr++;
	}
	r->levels = (struct rec_table){ &rec_quota_level, lv, st->total ? nr : 0, sizeof(*lv) };
	r->level_lines = (struct rec_table){ &rec_quota_level, lv, nr, sizeof(*lv) };
	if (st->rescan_unknown)
		snprintf(buf, size, "unknown (reading it needs CAP_SYS_ADMIN)");
	else if (st->rescan_running && st->rescan_progress != (u64)-1)
		snprintf(buf, size, "running (at objectid %" PRIu64 ")", st->rescan_progress);
	else
		snprintf(buf, size, "%s", st->rescan_running ? "running" : "not running");
}

int quota_print_status(FILE *out, const char *path, const struct quota_state *st,
		       const struct vc_config *run)
{
	struct quota_status_rec r;
	bool json = run->format == VC_FORMAT_JSON;
	struct vc_config cfg = { .format = run->format, .json_v1 = run->json_v1 };
	struct kvout kv;
	struct status_buf sb;
	const struct qstatus_faults *qf = &sb.qf;

	status_rec(&r, &sb, path, st);
	kvout_init(&kv, &cfg, out, 0);
	if (json) {
		rec_print_document(&kv, &rec_doc_quota_status, &rec_quota_status, &r);
		return 0;
	}
	fprintf(out, "Quotas on %s:\n", path);
	if (!st->enabled) {
		fprintf(out, "  Enabled: no\n");
	} else {
		rec_emit(&kv, &rec_quota_status, &r);
	}
	/* quotas on or not, the kernel reads the item at every mount */
	for (size_t i = 0; i < qf->nr; i++)
		fprintf(out, "Invalid status item: %s\n", qf->msg[i]);
	if (qf->nr)
		fprintf(out, "Note: the kernel may hang or refuse mounting this filesystem; "
			"'volctl check' reports the item and offline writes refuse it\n");
	if (!st->enabled)
		return 0;
	if (st->rescan_running)
		fprintf(out, "Note: a rescan is running; the numbers are incomplete until it "
			"finishes ('volctl quota rescan -W %s' waits for it)\n", path);
	else if (st->inconsistent)
		fprintf(out, "Note: the numbers are inconsistent and limits are not reliably "
			"enforced; run 'volctl quota rescan -w %s'\n", path);
	return 0;
}

void quota_print_result(FILE *out, const char *path, const struct quota_state *st,
			const struct rec_doc *doc)
{
	struct quota_status_rec r;
	struct vc_config cfg = { .format = VC_FORMAT_JSON };
	struct kvout kv;
	struct status_buf sb;

	status_rec(&r, &sb, path, st);
	kvout_init(&kv, &cfg, out, 0);
	rec_print_document(&kv, doc, &rec_quota_status, &r);
}
