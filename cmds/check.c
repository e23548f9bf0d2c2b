// SPDX-License-Identifier: GPL-2.0-only
/*
 * volctl check [--qgroup-report] [--show] IMAGE: read-only verification of an
 * unmounted image.
 *
 * Without options every block of every tree is verified, then the free
 * space tree against the block groups and the extent tree, then, when
 * quotas are on, the qgroup numbers are recomputed and compared with the
 * recorded ones (common/tool/offline-check.c does all three; this file parses
 * and prints).  Exit 1 on any free space tree finding, as btrfs check 6.19.
 * Exit 1 when any qgroup differs, unless the quota status already
 * says the numbers are stale (inconsistent or rescan running), as btrfs check
 * does, and when data back references name a tree, leaf or inode that holds
 * no matching file extent item (a consistent image has none).
 *
 * --repair-qgroups is the one writing mode: it opens the image as every
 * offline writer does (refused when mounted, locked), verifies every tree
 * block first, then writes the engine's numbers into every QGROUP_INFO item
 * and clears INCONSISTENT and RESCAN in one transaction, printing each group
 * it changed.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cmds/commands.h"
#include "common/util/messages.h"
#include "common/tool/offline-check.h"
#include "common/backend/facts-qgroup.h"
#include "common/output/output.h"
#include "common/output/qgroup-out.h"
#include "common/output/records.h"
#include "kernel-shared/format.h"

struct check_opts {
	bool qgroup_report;
	bool show;
	bool repair_qgroups;
	bool repair_fst;
	const char *image;		/* the first member, for messages */
	const char *const *images;	/* every member given */
	int nr_images;
};

static const char *fst_entry_name(u8 type)
{
	switch (type) {
	case BTRFS_FREE_SPACE_INFO_KEY:
		return "info item";
	case BTRFS_FREE_SPACE_EXTENT_KEY:
		return "free space extent";
	case BTRFS_FREE_SPACE_BITMAP_KEY:
		return "free space bitmap";
	default:
		return "item";
	}
}

/* JSON "kind" of a free space tree finding */
static const char *fst_kind_name(enum btrfs_fst_kind kind)
{
	static const char *const names[] = {
		[BTRFS_FST_STALE] = "stale",
		[BTRFS_FST_NO_INFO] = "no_info",
		[BTRFS_FST_BAD_INFO] = "bad_info",
		[BTRFS_FST_COUNT] = "extent_count",
		[BTRFS_FST_FORMAT] = "format",
		[BTRFS_FST_BEYOND] = "beyond_block_group",
		[BTRFS_FST_OVERLAP] = "overlap",
		[BTRFS_FST_UNMERGED] = "unmerged",
		[BTRFS_FST_UNEXPECTED] = "unexpected_item",
		[BTRFS_FST_FREE_ALLOCATED] = "free_but_allocated",
		[BTRFS_FST_NOT_FREE] = "unallocated_not_free",
	};

	return (size_t)kind < sizeof(names) / sizeof(names[0]) && names[kind] ? names[kind] : "";
}

/* The sentence of a finding (common/output/records.c) in @buf */
static void fst_problem_text(const struct btrfs_fst_problem *p, char *buf, size_t size)
{
	static const struct rec_desc *const texts[] = {
		[BTRFS_FST_NO_INFO] = &rec_fst_no_info,
		[BTRFS_FST_BAD_INFO] = &rec_fst_bad_info,
		[BTRFS_FST_COUNT] = &rec_fst_count,
		[BTRFS_FST_FORMAT] = &rec_fst_format,
		[BTRFS_FST_BEYOND] = &rec_fst_beyond,
		[BTRFS_FST_OVERLAP] = &rec_fst_overlap,
		[BTRFS_FST_UNMERGED] = &rec_fst_unmerged,
		[BTRFS_FST_UNEXPECTED] = &rec_fst_unexpected,
		[BTRFS_FST_FREE_ALLOCATED] = &rec_fst_free_allocated,
		[BTRFS_FST_NOT_FREE] = &rec_fst_not_free,
	};
	bool stale = p->kind == BTRFS_FST_STALE;
	struct check_fst_text_rec r = {
		.in_block_group = !stale, .bg_start = p->bg_start, .bg_length = p->bg_length,
		.start = p->start, .length = p->length, .recorded = p->recorded,
		.counted = p->counted, .type = p->type, .entry = fst_entry_name(p->type),
		.unit = p->bitmaps ? "runs" : "extents", .says = p->bitmaps ? "bitmaps" : "extents",
	};
	char *text;

	r.what.rec = &r;
	if (stale)
		r.what.desc = p->type == BTRFS_FREE_SPACE_INFO_KEY ? &rec_fst_stale_info : &rec_fst_stale;
	else if ((size_t)p->kind < sizeof(texts) / sizeof(texts[0]))
		r.what.desc = texts[p->kind];
	if (!r.what.desc) {
		r.in_block_group = false;
		r.what.desc = &rec_fst_no_info;
	}
	text = rec_text_string(&rec_check_fst_text, &r, 0);
	snprintf(buf, size, "%s", text ? text : "");
	free(text);
}

static void print_fst_text(struct kvout *kv, const struct vc_check_result *res)
{
	struct check_fst_sum_rec sum = {
		.absent = res->fst.state == BTRFS_FST_STATE_ABSENT,
		.more = res->fst.problems > res->nr_fst_problems,
		.more_nr = res->fst.problems - res->nr_fst_problems,
		.problem_nr = res->fst.problems, .block_groups = res->fst.block_groups,
	};
	char line[256];

	if (!res->fst_checked)
		return;
	for (size_t i = 0; !sum.absent && i < res->nr_fst_problems; i++) {
		struct check_fst_line_rec l = { line };

		fst_problem_text(&res->fst_problems[i], line, sizeof(line));
		rec_emit(kv, &rec_check_fst_line, &l);
		sum.stale |= res->fst_problems[i].kind == BTRFS_FST_STALE;
	}
	if (sum.absent) {
		sum.more = false;
	} else {
		sum.not_valid = res->fst.state == BTRFS_FST_STATE_NOT_VALID;
		sum.problems = !sum.not_valid && res->fst.problems;
		sum.clean = !sum.not_valid && !res->fst.problems;
	}
	rec_emit(kv, &rec_check_fst_sum, &sum);
}

/* The trees, the back references and the deleted subvolumes */
static void print_trees_text(struct kvout *kv, const struct vc_check_result *res)
{
	const struct btrfs_acct_stats *st = &res->stats;
	struct check_trees_text_rec t = {
		st->roots, st->dead_roots, st->partly_dropped, st->tree_blocks, st->data_extents,
		st->unresolved_refs, st->reloc_refs, st->unresolved_refs != 0, st->reloc_refs != 0,
	};

	rec_emit(kv, &rec_check_trees_text, &t);
	for (size_t i = 0; i < res->nr_roots; i++) {
		const struct btrfs_acct_root *r = &res->roots[i];
		struct check_deleted_text_rec d = {
			r->id, r->drop_progress.objectid, r->drop_progress.type,
			r->drop_progress.offset, r->drop_level, r->partly_dropped,
		};

		if (r->partly_dropped || r->dead)
			rec_emit(kv, &rec_check_deleted_text, &d);
	}
}

/* The qgroups: --show's table, each group that differs, the summary line */
static void print_qgroups_text(struct kvout *kv, const struct check_opts *o,
			       const struct vc_check_result *res)
{
	struct check_qsum_rec sum = {
		.faults = res->status_faults, .off = !res->status_faults && !res->quotas,
		.differ = res->differ != 0, .differ_nr = res->differ, .nr = res->list.nr,
	};

	sum.compared = !sum.faults && !sum.off;
	if (sum.compared && o->show) {
		rec_row_header(kv, &rec_check_qgroup);
		for (size_t i = 0; i < res->list.nr; i++) {
			const struct btrfs_qgroup *qg = &res->list.groups[i];
			struct check_qgroup_rec row = {
				.qgroupid = qg->qgroupid, .rfer = res->counts[i].rfer,
				.excl = res->counts[i].excl, .recorded_rfer = qg->info.rfer,
				.recorded_excl = qg->info.excl,
			};

			rec_row(kv, &rec_check_qgroup, &row);
		}
	}
	for (size_t i = 0; sum.compared && i < res->list.nr; i++) {
		const struct btrfs_qgroup *qg = &res->list.groups[i];
		struct check_qdiff_rec d = {
			qg->qgroupid, res->counts[i].rfer, res->counts[i].excl, qg->info.rfer,
			qg->info.excl, (int64_t)(res->counts[i].rfer - qg->info.rfer),
			(int64_t)(res->counts[i].excl - qg->info.excl),
		};

		if (qg->info.rfer != res->counts[i].rfer || qg->info.excl != res->counts[i].excl)
			rec_emit(kv, &rec_check_qdiff, &d);
	}
	rec_emit(kv, &rec_check_qsum, &sum);
}

/* The text report: every line from a description of common/output/records.c */
static void print_text(const struct vc_ctx *ctx, const struct check_opts *o,
		       const struct vc_check_result *res)
{
	struct check_head_rec head = {
		.copies = res->super_copies, .devices = res->nr_supers,
		.errors = res->super_errors, .warnings = res->super_warnings,
		.problems = res->super_errors || res->super_warnings,
		.trees = !o->qgroup_report, .walked_blocks = res->walked_blocks,
	};
	struct kvout kv;

	if (ctx->cfg->quiet)
		return;
	kvout_init(&kv, ctx->cfg, stdout, 0);
	rec_emit(&kv, &rec_check_head, &head);
	print_fst_text(&kv, res);
	print_trees_text(&kv, res);
	print_qgroups_text(&kv, o, res);
}

static const char *finding_name(enum btrfs_super_finding f)
{
	switch (f) {
	case BTRFS_SUPER_PRIMARY_BAD:
		return "primary_bad";
	case BTRFS_SUPER_NEWER:
		return "newer_than_primary";
	case BTRFS_SUPER_DIFFERS:
		return "differs_from_primary";
	case BTRFS_SUPER_STALE:
		return "older_than_primary";
	case BTRFS_SUPER_MIRROR_BAD:
		return "mirror_bad";
	default:
		return "ok";
	}
}

/* The copies that belong to their device, as rows of @rows (3 per member) */
static size_t super_rows(const struct vc_check_result *res, struct check_super_rec *rows)
{
	size_t n = 0;

	for (size_t i = 0; i < res->nr_supers; i++) {
		const struct vc_check_super *s = &res->supers[i];

		for (int m = 0; m < BTRFS_SUPER_MIRROR_MAX; m++) {
			const struct btrfs_super_copy *c = &s->copies[m];

			if (c->finding == BTRFS_SUPER_ABSENT)
				continue;
			rows[n++] = (struct check_super_rec){
				.device = s->device, .mirror = (uint64_t)m, .bytenr = c->bytenr,
				.generation = c->valid ? &c->generation : NULL, .valid = c->valid,
				.finding = finding_name(c->finding),
				.error = btrfs_super_finding_is_error(c->finding),
				.problem = c->valid ? NULL : c->msg,
			};
		}
	}
	return n;
}

/* The free space tree findings as rows of @fr, each with its sentence in @msg */
static void fst_rows(const struct vc_check_result *res, struct check_fst_rec *fr,
		     char (*msg)[256])
{
	const struct btrfs_fst_problem *fp = res->fst_problems;

	for (size_t i = 0; i < res->nr_fst_problems; i++) {
		bool count = fp[i].kind == BTRFS_FST_COUNT;

		fst_problem_text(&fp[i], msg[i], sizeof(msg[i]));
		fr[i] = (struct check_fst_rec){
			.kind = fst_kind_name(fp[i].kind),
			.block_group = fp[i].kind == BTRFS_FST_STALE ? NULL : &fp[i].bg_start,
			.block_group_length = fp[i].kind == BTRFS_FST_STALE ? NULL : &fp[i].bg_length,
			.start = fp[i].start, .length = fp[i].length,
			.recorded = count ? &fp[i].recorded : NULL,
			.counted = count ? &fp[i].counted : NULL,
			.message = msg[i],
		};
	}
}

/* The deleted and partly dropped subvolumes as rows of @del */
static size_t deleted_rows(const struct vc_check_result *res, struct check_deleted_rec *del)
{
	size_t ndel = 0;

	for (size_t i = 0; i < res->nr_roots; i++)
		if (res->roots[i].dead || res->roots[i].partly_dropped)
			del[ndel++] = (struct check_deleted_rec){ res->roots[i].id,
								  res->roots[i].partly_dropped };
	return ndel;
}

/* The recorded and computed numbers of the first @nq qgroups as rows of @qr */
static void qgroup_rows(const struct vc_check_result *res, struct check_qgroup_rec *qr, size_t nq)
{
	for (size_t i = 0; i < nq; i++) {
		const struct btrfs_qgroup *qg = &res->list.groups[i];

		qr[i] = (struct check_qgroup_rec){
			qg->qgroupid, btrfs_qgroup_level(qg->qgroupid),
			btrfs_qgroup_subvolid(qg->qgroupid), res->counts[i].rfer,
			res->counts[i].excl, qg->info.rfer, qg->info.excl,
			qg->info.rfer == res->counts[i].rfer && qg->info.excl == res->counts[i].excl,
		};
	}
}

/* The check report (common/output/records.c) as a JSON document */
static int print_json(const struct vc_ctx *ctx, const struct check_opts *o,
		      const struct vc_check_result *res)
{
	size_t ndel = 0, nq = res->quotas && !res->status_faults ? res->list.nr : 0;
	size_t norph = res->nr_orphans < VC_CHECK_MAX_ORPHANS ? res->nr_orphans : VC_CHECK_MAX_ORPHANS;
	struct check_deleted_rec *del = calloc(res->nr_roots + 1, sizeof(*del));
	struct check_qgroup_rec *qr = calloc(nq + 1, sizeof(*qr));
	struct check_orphan_rec orph[VC_CHECK_MAX_ORPHANS];
	struct check_super_rec *sup = calloc(res->nr_supers * BTRFS_SUPER_MIRROR_MAX + 1,
					     sizeof(*sup));
	size_t nsup;
	struct qstatus_faults qf;
	struct qgroup_head_rec quota = {
		.enabled = res->quotas,
		.mode = !res->quotas || res->status_faults ? NULL : res->simple ? "simple" : "full",
		.inconsistent = res->quotas &&
				(res->list.status.flags & BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT),
		.rescan_running = res->quotas &&
				  (res->list.status.flags & BTRFS_QGROUP_STATUS_FLAG_RESCAN),
	};
	struct check_rec r;
	struct kvout kv;
	size_t nf = res->nr_fst_problems;
	struct check_fst_rec *fr = calloc(nf + 1, sizeof(*fr));
	char (*msg)[256] = calloc(nf + 1, sizeof(*msg));
	int ret = -ENOMEM;

	if (!del || !qr || !sup || !fr || !msg)
		goto out;
	nsup = super_rows(res, sup);
	fst_rows(res, fr, msg);
	ndel = deleted_rows(res, del);
	qgroup_rows(res, qr, nq);
	for (size_t i = 0; i < norph; i++)
		orph[i] = (struct check_orphan_rec){ res->orphans[i].child, res->orphans[i].parent };
	qstatus_faults_fill(&qf, res->status_faults, &res->list.status, &res->sb);
	r = (struct check_rec){
		.image = o->image,
		.missing_devices = { res->missing, res->nr_missing },
		.superblocks = { &rec_check_super, sup, nsup, sizeof(*sup) },
		.superblock_errors = res->super_errors,
		.superblock_warnings = res->super_warnings,
		.blocks_verified = o->qgroup_report ? NULL : &res->walked_blocks,
		.fs_trees = res->stats.roots,
		.deleted = res->stats.dead_roots,
		.partly_dropped = res->stats.partly_dropped,
		.fs_tree_blocks = res->stats.tree_blocks,
		.data_extents = res->stats.data_extents,
		.data_back_refs = res->stats.data_refs,
		.root_sets = res->stats.root_sets,
		.unresolved_refs = res->stats.unresolved_refs,
		.relocation_refs = res->stats.reloc_refs,
		.deleted_subvolumes = { &rec_check_deleted, del, ndel, sizeof(*del) },
		.quota = { &rec_qgroup_quota, &quota },
		.qgroups = { &rec_check_qgroup, qr, nq, sizeof(*qr) },
		.orphan_relations = { &rec_check_orphan, orph, norph, sizeof(*orph) },
		.quota_status_faults = { &rec_qstatus_fault, qf.rec, qf.nr, sizeof(*qf.rec) },
		.differences = res->differ,
		.consistent = res->differ == 0 && !res->status_faults,
		.fst_state = !res->fst_checked ? "not_checked" :
			     res->fst.state == BTRFS_FST_STATE_ABSENT ? "absent" :
			     res->fst.state == BTRFS_FST_STATE_NOT_VALID ? "not_valid" : "checked",
		.fst_block_groups = res->fst.block_groups,
		.fst_extents = res->fst.extents,
		.fst_bitmaps = res->fst.bitmaps,
		.fst_problem_count = res->fst.problems,
		.fst_problems = { &rec_check_fst, fr, nf, sizeof(*fr) },
	};
	kvout_init(&kv, ctx->cfg, stdout, 0);
	kv.quiet = false;	/* the document is printed under -q too, as it always was */
	rec_print_document(&kv, &rec_doc_check, &rec_check, &r);
	ret = 0;
out:
	free(del);
	free(qr);
	free(sup);
	free(fr);
	free(msg);
	return ret;
}

/* A STATUS item the kernel cannot take: each fault an error, then what it means */
static void report_status_faults(const struct check_opts *o, const struct vc_check_result *res)
{
	struct qstatus_faults qf;

	qstatus_faults_fill(&qf, res->status_faults, &res->list.status, &res->sb);
	for (size_t i = 0; i < qf.nr; i++)
		error("%s: quota status item: %s", o->image, qf.msg[i]);
	if (qf.nr)
		warning("%s: the kernel may hang or refuse mounting this filesystem (linux 6.18 "
			"hangs in open_ctree on such an item): do not mount it; offline writes "
			"refuse it", o->image);
}

static void warn_anomalies(const struct check_opts *o, const struct vc_check_result *res)
{
	char qa[BTRFS_QGROUPID_BUFSIZE], qb[BTRFS_QGROUPID_BUFSIZE];

	for (size_t i = 0; i < res->nr_orphans && i < VC_CHECK_MAX_ORPHANS; i++)
		warning("qgroup relation %s -> %s: names a qgroup that no longer exists",
			vc_qgroupid_str(res->orphans[i].child, qa),
			vc_qgroupid_str(res->orphans[i].parent, qb));
	if (!res->differ)
		return;
	if (res->list.status.flags & BTRFS_QGROUP_STATUS_FLAG_RESCAN)
		warning("%s: a qgroup rescan is in progress: differences are expected", o->image);
	else if (res->list.status.flags & BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT)
		warning("%s: qgroups are marked inconsistent: differences are expected until a rescan",
			o->image);
}

/* The repair (common/output/records.c): JSON the document; text each group, the summary */
static int print_repair(const struct vc_ctx *ctx, const struct check_opts *o,
			const struct btrfs_qgroup_repair_result *r, bool written)
{
	struct check_fix_rec *fix = calloc(r->nr_fixes + 1, sizeof(*fix));
	struct check_repair_rec rep = {
		.image = o->image,
		.written = written,
		.groups = r->nr_groups,
		.inconsistent_cleared = written &&
					(r->old_flags & BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT),
		.rescan_cleared = written && (r->old_flags & BTRFS_QGROUP_STATUS_FLAG_RESCAN),
		.repaired = { &rec_check_fix, fix, r->nr_fixes, sizeof(*fix) },
		.repaired_nr = r->nr_fixes,
	};
	struct kvout kv;

	if (!fix)
		return -ENOMEM;
	for (size_t i = 0; i < r->nr_fixes; i++) {
		const struct btrfs_qgroup_fix *f = &r->fixes[i];

		fix[i] = (struct check_fix_rec){ f->qgroupid, f->old_rfer, f->old_excl, f->rfer,
						 f->excl };
	}
	kvout_init(&kv, ctx->cfg, stdout, 0);
	if (kv.json) {
		kv.quiet = false;	/* the document is printed under -q too, as it always was */
		rec_print_document(&kv, &rec_doc_check, &rec_check_repair, &rep);
	} else {
		for (size_t i = 0; i < r->nr_fixes; i++)
			rec_emit(&kv, &rec_check_fix, &fix[i]);
		rec_emit(&kv, &rec_check_repair, &rep);
	}
	free(fix);
	return 0;
}

/* check --repair-qgroups: verify every tree, then write the computed numbers */
/* The arguments of the checks in common/tool/offline-check.c */
static struct vc_check_args check_args(const struct vc_ctx *ctx, struct check_opts *o)
{
	return (struct vc_check_args){
		.images = o->images, .nr_images = o->nr_images,
		.mirror = ctx->cfg->super_mirror, .wait_ms = ctx->cfg->lock_wait_ms, .qgroup_report = o->qgroup_report,
		.progress = isatty(STDERR_FILENO) && !ctx->cfg->quiet,
	};
}

/* check --repair-qgroups: verify every tree, then write the computed numbers */
static int run_repair(const struct vc_ctx *ctx, struct check_opts *o)
{
	struct vc_check_args a = check_args(ctx, o);
	struct btrfs_qgroup_repair_result r = { 0 };
	bool written = false;
	int ret;

	ret = vc_check_repair(&a, &r, &written);
	if (!ret) {
		ret = print_repair(ctx, o, &r, written);
		if (ret)
			error("%s: cannot print the report: %s", o->image, strerror(-ret));
	}
	free(r.fixes);
	return ret ? VC_EXIT_FAILURE : VC_EXIT_OK;
}

/* check --repair-free-space: drop the entries of block groups that do not exist */
static int run_repair_fst(const struct vc_ctx *ctx, struct check_opts *o)
{
	struct vc_check_args a = check_args(ctx, o);
	struct check_repair_fst_rec rep = { .image = o->image };
	struct kvout kv;
	int ret;

	ret = vc_check_repair_fst(&a, &rep.dropped, &rep.written);
	if (ret)
		return VC_EXIT_FAILURE;
	kvout_init(&kv, ctx->cfg, stdout, 0);
	if (kv.json) {
		kv.quiet = false;	/* the document is printed under -q too */
		rec_print_document(&kv, &rec_doc_check, &rec_check_repair_fst, &rep);
	} else {
		rec_emit(&kv, &rec_check_repair_fst, &rep);
	}
	return VC_EXIT_OK;
}

/* The exit code of a check that ran (the scalars of @res stay valid after the release) */
static int check_exit(const struct vc_check_result *res)
{
	/* the kernel would not mount this, or would mount another state than a copy holds */
	if (res->super_errors)
		return VC_EXIT_FAILURE;
	if (res->stats.unresolved_refs || res->status_faults ||
	    (res->fst.problems && res->fst.state == BTRFS_FST_STATE_CHECKED))
		return VC_EXIT_FAILURE;
	return res->differ && !res->stale_status ? VC_EXIT_FAILURE : VC_EXIT_OK;
}

/* The options that cannot go together: a usage error, else 0 */
static int check_conflicts(const struct vc_ctx *ctx, const struct check_opts *o, bool readonly)
{
	if (o->repair_qgroups && (o->qgroup_report || o->show || readonly))
		return cmd_usage_error(ctx, "--repair-qgroups cannot be combined with %s",
				       readonly ? "--readonly" : o->show ? "--show" :
				       "--qgroup-report");
	if (o->repair_fst && (o->repair_qgroups || o->qgroup_report || o->show || readonly))
		return cmd_usage_error(ctx, "--repair-free-space cannot be combined with %s",
				       readonly ? "--readonly" : o->show ? "--show" :
				       o->qgroup_report ? "--qgroup-report" : "--repair-qgroups");
	return 0;
}

static int cmd_check(const struct cmd_struct *cmd, const struct vc_ctx *ctx, int argc,
		     char **argv)
{
	enum { OPT_QGROUP_REPORT = 256, OPT_SHOW, OPT_REPAIR_QGROUPS, OPT_REPAIR_FST };
	static const struct option longopts[] = {
		{ "qgroup-report", no_argument, NULL, OPT_QGROUP_REPORT },
		{ "show", no_argument, NULL, OPT_SHOW },
		{ "repair-qgroups", no_argument, NULL, OPT_REPAIR_QGROUPS },
		{ "repair-free-space", no_argument, NULL, OPT_REPAIR_FST },
		{ "readonly", no_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	struct check_opts o = { 0 };
	struct vc_check_result res = { 0 };
	struct vc_check_args a;
	bool readonly = false;
	int c, ret;

	while ((c = cmd_getopt(ctx, argc, argv, "r", longopts)) != -1) {
		switch (c) {
		case OPT_QGROUP_REPORT:
			o.qgroup_report = true;
			break;
		case OPT_SHOW:
			o.show = true;
			break;
		case OPT_REPAIR_QGROUPS:
			o.repair_qgroups = true;
			break;
		case OPT_REPAIR_FST:
			o.repair_fst = true;
			break;
		case 'r':
			readonly = true;	/* the default; accepted for btrfs check users */
			break;
		default:
			return VC_EXIT_USAGE;
		}
	}
	if (ctx->cfg->nr_images && argc > optind)
		return cmd_usage_error(ctx, "give the images as arguments or with --image, not both");
	if (ctx->cfg->nr_images) {
		o.images = ctx->cfg->images;
		o.nr_images = ctx->cfg->nr_images;
	} else {
		ret = cmd_check_argc_min(ctx, argc - optind, 1);
		if (ret)
			return ret;
		if (argc - optind > VC_MAX_IMAGES)
			return cmd_usage_error(ctx, "too many images: at most %d", VC_MAX_IMAGES);
		o.images = (const char *const *)argv + optind;
		o.nr_images = argc - optind;
	}
	o.image = o.images[0];
	ret = check_conflicts(ctx, &o, readonly);
	if (ret)
		return ret;
	if (o.repair_qgroups)
		return run_repair(ctx, &o);
	if (o.repair_fst)
		return run_repair_fst(ctx, &o);
	a = check_args(ctx, &o);
	ret = vc_check_run(&a, &res);
	if (!ret) {
		report_status_faults(&o, &res);
		warn_anomalies(&o, &res);
		if (ctx->cfg->format == VC_FORMAT_JSON) {
			ret = print_json(ctx, &o, &res);
			if (ret)
				error("%s: cannot print the report: %s", o.image, strerror(-ret));
		} else
			print_text(ctx, &o, &res);
	}
	vc_check_release(&res);
	if (ret)
		return VC_EXIT_FAILURE;
	return check_exit(&res);
}

static const char *const cmd_check_usage[] = {
	"check [--qgroup-report] [--show] <image>...",
	"check --repair-qgroups <image>...",
	"check --repair-free-space <image>...",
	NULL,
};

static const char *const cmd_check_details[] = {
	"Verify an unmounted image read-only: every tree block (checksum, parent",
	"pointers, structure), the free space tree against the block groups and",
	"the extent tree, then, when quotas are enabled, recompute the",
	"referenced and exclusive bytes of every qgroup and compare them with",
	"the recorded numbers.  Each qgroup that differs is printed; the exit",
	"status is 1 when any does (0 when the quota status already says the",
	"numbers are inconsistent or a rescan is running).",
	"With --repair-qgroups, write the computed numbers instead (refused on a",
	"mounted image) and print each group that changed.  With",
	"--repair-free-space, delete the free space tree entries of block groups",
	"that do not exist (mkfs.btrfs 6.2 leaves some), nothing else.",
	"Give every device of a multi-device filesystem, as arguments or with the",
	"global option --image once per device; a missing member (degraded) and a",
	"mounted image are named in a warning.",
	"",
	OPTLINE("--qgroup-report", "only verify qgroups (and the trees that takes)"),
	OPTLINE("--show", "print the computed and recorded numbers of every qgroup"),
	OPTLINE("--repair-qgroups", "write the computed numbers into every qgroup"),
	OPTLINE("--repair-free-space", "delete free space tree entries of no block group"),
	OPTLINE("-r, --readonly", "accepted for compatibility; only --repair-qgroups writes"),
	NULL,
};

static const struct cmd_help check_help = {
	.synopsis = cmd_check_usage,
	.summary = "verify an unmounted image and its qgroup numbers",
	.details = cmd_check_details,
};

const struct cmd_struct cmd_struct_check = {
	.token = "check",
	.fn = cmd_check,
	.help = &check_help,
	.flags = CMD_IMAGE_ARG | CMD_FORMAT_JSON,
};
