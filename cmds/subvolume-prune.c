// SPDX-License-Identifier: GPL-2.0-only
/*
 * volctl subvolume prune [options] SOURCE [DIR]: retention for the
 * snapshots of one subvolume.
 *
 * The snapshots of SOURCE are the live subvolumes whose parent UUID is
 * SOURCE's UUID (below DIR when it is given, anywhere on the filesystem
 * otherwise).  The keep rules are common/util/retention.c's (a pure module);
 * the default subvolume and mounted snapshots are never deleted.  What the
 * deleted set frees is the accounting engine's exclusive bytes of the set
 * as one, the numbers of `subvolume delete --dry-run` (the same record is
 * printed).  --free SIZE adds the oldest snapshots kept by timeline rules
 * alone until that set frees SIZE: the set's bytes grow as members join, so
 * the shortest prefix of that order which reaches SIZE is found by halving.
 *
 * Two guards refuse the whole run before anything is deleted (also under
 * --dry-run, whose plan then shows every snapshot kept): a keep rule that
 * keeps none of the snapshots (a mistyped or empty --keep-name in a cron
 * job would otherwise delete them all) unless --force, and --max-delete N
 * or PERCENT% when the plan, --free's part included, deletes more.
 *
 * The deletion goes through ->subvol_delete_all: online one by one (a
 * refusal is reported and the rest go on), offline in one transaction.
 * A snapshot of the plan that is already deleted when its turn comes (two
 * overlapping runs from cron) is done, not a failure, as `subvolume sync`
 * counts a gone subvolume; it is shown as gone and not counted in the
 * bytes freed.  Then, as `delete --delete-qgroup`, the cleaner is waited
 * for and each 0/ID qgroup the kernel left is destroyed (of the snapshots
 * this run deleted: a gone one's are the business of whoever deleted it).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cmds/subvolume.h"
#include "common/backend/acct-run.h"
#include "common/backend/subvol-plan.h"
#include "common/util/messages.h"
#include "common/output/output.h"
#include "common/util/parse-utils.h"
#include "common/util/path-utils.h"
#include "common/output/records.h"
#include "common/util/retention.h"
#include "common/util/units.h"

static const char *const cmd_subvolume_prune_usage[] = {
	"subvolume prune [--keep-last N] [--keep-hourly N] [--keep-daily N] [--keep-weekly N]\n"
	"\t[--keep-monthly N] [--keep-yearly N] [--keep-within DURATION] [--keep-name GLOB]...\n"
	"\t[--free SIZE] [--max-delete N|PERCENT%] [--force] [--dry-run]\n"
	"\t[--raw|--human-readable|...] <source> [<dir>]",
	NULL,
};
static const char *const cmd_subvolume_prune_details[] = {
	"Delete the snapshots of subvolume <source> (those whose parent UUID is its",
	"UUID; only those below <dir> when given) that no keep rule keeps.  Periods",
	"are UTC, weeks ISO weeks (Monday first); each rule keeps the newest",
	"snapshot of each of its last N periods that have one.  The default",
	"subvolume and mounted snapshots are always kept.  At least one keep rule",
	"or --free is needed.  The space freed is exact: the exclusive bytes of the",
	"deleted set as one.  Each deleted snapshot's 0/<id> qgroup goes too.",
	"",
	OPTLINE("--keep-last N", "keep the N newest"),
	OPTLINE("--keep-hourly N", "keep the newest of each of the last N hours with one"),
	OPTLINE("--keep-daily N", "the same for days"),
	OPTLINE("--keep-weekly N", "the same for ISO weeks"),
	OPTLINE("--keep-monthly N", "the same for months"),
	OPTLINE("--keep-yearly N", "the same for years"),
	OPTLINE("--keep-within DURATION", "keep all newer than the newest snapshot minus\n\t"
		"DURATION: NUMBER UNIT pairs, y m w d h (1y2m, 36h)"),
	OPTLINE("--keep-name GLOB", "keep the snapshots whose name (the last path component)\n\t"
		"matches (repeatable; not empty, no '/')"),
	OPTLINE("--free SIZE", "also delete the oldest snapshots kept only by timeline\n\t"
		"rules until the deleted set frees SIZE; if no allowed set\n\t"
		"does, delete nothing and fail"),
	OPTLINE("--max-delete N|PERCENT%", "refuse the run (delete nothing) when the plan\n\t"
		"deletes more than N snapshots, or more than PERCENT% of them"),
	OPTLINE("--force", "prune even when a keep rule keeps no snapshot (refused\n\t"
		"otherwise: a mistyped rule would delete them all)"),
	OPTLINE("--dry-run", "print the plan and what it would free; delete nothing"),
	"",
	"Exit status 1 when a snapshot could not be deleted (the others were),",
	"--free cannot be reached, or a guard refused the run (nothing was deleted;",
	"also with --dry-run).",
	NULL,
};
static const struct cmd_help cmd_prune_help = {
	cmd_subvolume_prune_usage, "delete the snapshots a retention policy does not keep",
	cmd_subvolume_prune_details,
};

struct prune_opts {
	struct vc_ret_policy pol;
	bool dry_run;
	bool have_free;
	bool force;			/* a keep rule may keep nothing */
	u64 free;
	struct vc_ret_limit max_delete;
	const char *max_delete_arg;	/* as given */
	unsigned int units;
};

/* One snapshot of SOURCE, beside its policy record */
struct prune_snap {
	const struct btrfs_subvol *sv;
	char *abs;
	char created[32];
	const char *reasons[VC_RET_NR_REASONS + 2];
	char reason[160];
	struct vc_delete_status st;
	bool deleted;
	bool gone;			/* deleted already by someone else: done */
};

/* Per-run state */
struct prune_run {
	const struct vc_ctx *ctx;
	const struct prune_opts *o;
	struct vc_fs *fs;
	struct btrfs_subvol_list l;
	const struct btrfs_subvol *src;
	char *dir_path;			/* DIR from the top level, or NULL */
	struct vc_ret_snap *rs;
	struct prune_snap *ps;
	size_t n;
	struct vc_acct_result res;
	bool have_res;
	bool unreached;			/* --free cannot be met: nothing goes */
	char idle[128];			/* a keep rule that keeps none, or "" */
	const char *refused;		/* a guard refused the run (nothing goes): which */
};

/* DIR as a path from the top level, for comparing with the snapshots' */
static int resolve_dir(struct prune_run *r, const char *dir)
{
	struct vc_path_info info;
	int ret;

	ret = sv_path_info(r->ctx, r->fs, dir, &info);
	if (ret) {
		cmd_report(r->ctx, r->fs, ret, dir);
		return ret;
	}
	if (!info.is_dir) {
		error("%s: not a directory", dir);
		return -ENOTDIR;
	}
	ret = vc_dir_path_from_top(r->fs, &r->l, info.subvolid, info.ino, &r->dir_path);
	if (ret == 1) {
		error("%s: its subvolume cannot be reached from the top level", dir);
		return -ENOENT;
	}
	if (ret && ret != -ENOMEM)
		error("%s: cannot find its path: %s", dir, strerror(-ret));
	return ret;
}

/* The snapshots of SOURCE (below DIR), and why any may never go */
static int collect(struct prune_run *r)
{
	struct vc_prune_cand *c;
	bool mounts_unknown;
	size_t nr;
	int ret;

	ret = vc_prune_candidates(r->fs, &r->l, r->src, r->dir_path, &c, &nr, &mounts_unknown);
	if (mounts_unknown)
		warning("cannot read the mount table: mounted snapshots are left to the kernel");
	if (ret)
		return ret;
	r->rs = calloc(nr ? nr : 1, sizeof(*r->rs));
	r->ps = calloc(nr ? nr : 1, sizeof(*r->ps));
	for (size_t i = 0; r->rs && r->ps && i < nr; i++) {
		r->ps[i].sv = c[i].sv;
		r->rs[i] = (struct vc_ret_snap){
			.id = c[i].sv->id, .otime = (int64_t)c[i].sv->root.otime.sec,
			.name = c[i].sv->name, .protect = c[i].protect,
		};
	}
	r->n = r->rs && r->ps ? nr : 0;
	free(c);
	return r->rs && r->ps ? 0 : -ENOMEM;
}

/* The ids to delete: the rules' and --free's; @extra more from @order */
static size_t delete_set(const struct prune_run *r, const size_t *order, size_t extra, u64 *ids)
{
	size_t nr = 0;

	for (size_t i = 0; i < r->n; i++)
		if (!r->rs[i].reasons)
			ids[nr++] = r->rs[i].id;
	for (size_t i = 0; i < extra; i++)
		ids[nr++] = r->rs[order[i]].id;
	return nr;
}

static void set_numbers(const struct prune_run *r, const u64 *ids, size_t nr,
			struct btrfs_acct_counts *alone, struct vc_acct_delete *set)
{
	vc_acct_delete_split(&r->res, ids, nr, alone, set);
}

/*
 * --free: the fewest of the oldest timeline-only snapshots to add so that
 * the set frees o->free.  Return: 0 (marked ->by_free), 1 when even all of
 * them fall short (@best: what that set frees), <0.
 */
static int plan_free(struct prune_run *r, u64 *ids, struct btrfs_acct_counts *alone, u64 *best)
{
	struct vc_acct_delete set;
	size_t *order = calloc(r->n ? r->n : 1, sizeof(*order));
	size_t nr, lo = 0, hi;

	if (!order)
		return -ENOMEM;
	hi = vc_ret_free_order(r->rs, r->n, order);
	nr = delete_set(r, order, hi, ids);
	set_numbers(r, ids, nr, alone, &set);
	if (set.all.excl < r->o->free) {
		*best = set.all.excl;
		free(order);
		return 1;
	}
	/* the smallest k with free(rules + first k) >= SIZE; free(rules + all) is */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		nr = delete_set(r, order, mid, ids);
		set_numbers(r, ids, nr, alone, &set);
		if (set.all.excl >= r->o->free)
			hi = mid;
		else
			lo = mid + 1;
	}
	for (size_t i = 0; i < lo; i++) {
		r->rs[order[i]].reasons = 0;
		r->rs[order[i]].by_free = true;
	}
	free(order);
	return 0;
}

static int cmp_newest(const void *a, const void *b)
{
	const struct vc_ret_snap *x = *(const struct vc_ret_snap *const *)a;
	const struct vc_ret_snap *y = *(const struct vc_ret_snap *const *)b;

	if (x->otime != y->otime)
		return x->otime > y->otime ? -1 : 1;
	return x->id > y->id ? -1 : x->id < y->id ? 1 : 0;
}

/* The row texts of snapshot @i */
static void describe(struct prune_run *r, size_t i)
{
	struct vc_ret_snap *rs = &r->rs[i];
	struct prune_snap *ps = &r->ps[i];
	time_t t = (time_t)rs->otime;
	size_t nr = 0, off = 0;
	struct tm tm;

	if (gmtime_r(&t, &tm))
		strftime(ps->created, sizeof(ps->created), "%Y-%m-%d %H:%M:%S", &tm);
	if (rs->by_free)
		ps->reasons[nr++] = "--free";
	for (unsigned int b = 0; b < VC_RET_NR_REASONS; b++) {
		if (!(rs->reasons & (1U << b)))
			continue;
		ps->reasons[nr++] = (1U << b) == VC_RET_PROTECTED ? rs->protect :
				    vc_ret_reason_name(1U << b);
	}
	ps->reasons[nr] = NULL;
	ps->reason[0] = 0;
	for (size_t k = 0; k < nr && off < sizeof(ps->reason); k++)
		off += (size_t)snprintf(ps->reason + off, sizeof(ps->reason) - off, "%s%s",
					k ? "," : "", ps->reasons[k]);
	if (!nr && r->unreached)
		snprintf(ps->reason, sizeof(ps->reason), "--free not reached");
	else if (!nr)
		snprintf(ps->reason, sizeof(ps->reason), "no rule keeps it");
	if (r->refused && (!rs->reasons || rs->by_free)) {
		/* the plan would delete it: say why, and that the run was refused */
		char why[sizeof(ps->reason)];

		snprintf(why, sizeof(why), "%s", ps->reason);
		snprintf(ps->reason, sizeof(ps->reason), "refused: %.140s", why);
	}
}

/* Nothing goes: --free out of reach, or a guard refused the run */
static bool run_stopped(const struct prune_run *r)
{
	return r->unreached || r->refused;
}

static const char *action_of(const struct prune_run *r, size_t i)
{
	if (r->rs[i].reasons || run_stopped(r))
		return "keep";
	if (r->o->dry_run)
		return "delete";
	if (r->ps[i].gone)
		return "gone";
	return r->ps[i].deleted ? "deleted" : "failed";
}

/* The rows of the snapshots, newest first, and the counts of each outcome into @p */
static void fill_prune_rows(struct prune_run *r, struct prune_row_rec *rows,
			    const struct vc_ret_snap **order, struct prune_rec *p)
{
	for (size_t i = 0; i < r->n; i++)
		order[i] = &r->rs[i];
	qsort(order, r->n, sizeof(*order), cmp_newest);
	for (size_t k = 0; k < r->n; k++) {
		size_t i = (size_t)(order[k] - r->rs);
		struct prune_snap *ps = &r->ps[i];

		rows[k] = (struct prune_row_rec){
			.id = r->rs[i].id, .path = ps->sv->path, .abs = ps->abs,
			.otime = r->rs[i].otime, .created = ps->created,
			.action = action_of(r, i), .reason = ps->reason, .reasons = ps->reasons,
			.error = ps->st.err ? ps->st.msg : NULL,
			.shown = ps->abs ? ps->abs : ps->sv->path,
		};
		if (r->rs[i].reasons || run_stopped(r))
			p->kept++;
		else if (ps->gone)
			p->gone++;
		else if (ps->deleted || r->o->dry_run)
			p->deleted++;
		else
			p->failed++;
	}
}

/* The rows of the deleted set, with what each frees alone */
static void fill_set_rows(struct prune_run *r, struct dryrun_row_rec *drows, const u64 *ids,
			  size_t nr, const struct btrfs_acct_counts *alone)
{
	for (size_t j = 0; j < nr; j++) {
		const struct btrfs_subvol *s = btrfs_subvol_list_find(&r->l, ids[j]);
		size_t i = 0;

		while (i < r->n && r->rs[i].id != ids[j])
			i++;
		drows[j] = (struct dryrun_row_rec){ ids[j], s && s->path ? s->path : "",
			i < r->n ? r->ps[i].abs : NULL, alone[j].rfer, alone[j].excl,
			i < r->n && r->ps[i].abs ? r->ps[i].abs : s ? s->path : NULL };
	}
}

/* The text form: the note, the summary line, the table and what the set frees */
static void print_plan_text(struct prune_run *r, struct kvout *kv, const char *source,
			    const struct prune_rec *p, const struct prune_row_rec *rows,
			    const struct vc_acct_delete *set, size_t nr)
{
	struct prune_summary_rec sum = {
		.subvolume = source, .subvolume_id = r->src->id,
		.kept = p->kept, .deleted = p->deleted, .gone = p->gone, .refused = p->failed,
		.deleted_word = r->o->dry_run ? "to delete" : "deleted",
		.any_gone = p->gone != 0, .any_refused = p->failed != 0,
	};

	if (r->o->dry_run)
		pr_note(r->ctx->cfg, "Dry run, nothing deleted: numbers computed from %s",
			r->res.live ? "a committed snapshot of the mounted filesystem" :
			"the image");
	rec_emit(kv, &rec_prune_summary, &sum);
	if (r->n) {
		rec_row_header(kv, &rec_prune_row);
		for (size_t k = 0; k < r->n; k++)
			rec_row(kv, &rec_prune_row, &rows[k]);
	}
	if (!run_stopped(r))
		sv_print_set_freed(set, nr, r->o->units, !r->o->dry_run);
}

/* The plan or the outcome, text or JSON */
static int print_plan(struct prune_run *r, const char *source, const char *dir, const u64 *ids,
		      size_t nr, const struct btrfs_acct_counts *alone,
		      const struct vc_acct_delete *set, const u64 *best, bool reached)
{
	struct prune_row_rec *rows = calloc(r->n ? r->n : 1, sizeof(*rows));
	struct dryrun_row_rec *drows = calloc(nr ? nr : 1, sizeof(*drows));
	const struct vc_ret_snap **order = calloc(r->n ? r->n : 1, sizeof(*order));
	struct dryrun_rec d = {
		.source = r->res.live ? "live_snapshot" : "image",
		.subvolumes = { &rec_dryrun_row, drows, nr, sizeof(*drows) },
		.count = nr, .rfer = set->all.rfer, .excl = set->all.excl,
		.would_free = set->all.excl, .data = set->data, .meta = set->meta, .raw = set->raw,
		.metadata_profile = set->profile, .metadata_copies = (u64)set->copies,
		.data_profile = set->data_profile, .data_copies = (u64)set->data_copies,
	};
	struct prune_rec p = {
		.subvolume = source, .subvolume_id = r->src->id, .directory = dir,
		.dry_run = r->o->dry_run,
		.snapshots = { &rec_prune_row, rows, r->n, sizeof(*rows) },
		.free_target = r->o->have_free ? &r->o->free : NULL,
		.free_reached = r->o->have_free ? &reached : NULL,
		.best_free = best,
		.deleted_set = { &rec_dryrun, &d },
		.refused = r->refused,
	};
	struct kvout kv;

	if (!rows || !drows || !order) {
		free(rows);
		free(drows);
		free(order);
		return -ENOMEM;
	}
	fill_prune_rows(r, rows, order, &p);
	fill_set_rows(r, drows, ids, nr, alone);
	kvout_init(&kv, r->ctx->cfg, stdout, r->o->units);
	if (kv.json) {
		rec_print_document(&kv, &rec_doc_prune, &rec_prune, &p);
	} else if (!kv.quiet) {
		print_plan_text(r, &kv, source, &p, rows, set, nr);
	}
	free(rows);
	free(drows);
	free(order);
	return 0;
}

/* --delete-qgroup's work for every deleted one, quietly: the cleaner, then 0/ID */
static int drop_qgroups(struct prune_run *r, const u64 *ids, size_t nr)
{
	int ret, failed = 0;

	ret = CMD_OP(r->ctx, commit, r->fs, true);
	if (ret)
		return cmd_report(r->ctx, r->fs, ret, "commit");
	for (size_t i = 0; i < nr; i++) {
		bool present = false;

		vc_fs_clear_error(r->fs);
		ret = CMD_OP(r->ctx, wait_cleaned, r->fs, ids[i], 1);
		if (ret && ret != -ENOENT) {
			cmd_report(r->ctx, r->fs, ret, "waiting for the cleaner");
			failed++;
			continue;
		}
		vc_fs_clear_error(r->fs);
		ret = vc_fact_qgroup_present(r->fs, ids[i], &present);
		if (ret == -ENOENT)
			break;		/* quotas are off */
		if (!ret && present) {
			vc_fs_clear_error(r->fs);
			ret = CMD_OP(r->ctx, qgroup_destroy, r->fs, ids[i]);
			if (ret == -ENOENT)
				ret = 0;
		}
		if (ret) {
			cmd_report(r->ctx, r->fs, ret, "cannot destroy the qgroup");
			failed++;
		}
	}
	return failed ? VC_EXIT_FAILURE : 0;
}

#if VOLCTL_FAULT_INJECTION
/*
 * Test builds: what an overlapping prune does between this run's plan and
 * its deletion, deterministically (tests/{cli,mounted}/subvolume-prune.bats):
 *   VOLCTL_RACE_CMD=COMMAND	run COMMAND with the shell, another process
 *				(taken out of the environment first, so a
 *				volctl it runs does not run it again)
 *   VOLCTL_RACE_DELETE=ID,...	delete those subvolumes through the same ops
 *				(offline a committed transaction each: no
 *				other process can write the locked image)
 */
static void race_hooks(struct prune_run *r)
{
	const char *cmd = getenv("VOLCTL_RACE_CMD");
	const char *p = getenv("VOLCTL_RACE_DELETE");
	char *end;

	if (cmd) {
		char *copy = strdup(cmd);

		unsetenv("VOLCTL_RACE_CMD");
		fflush(NULL);
		if (!copy || system(copy) != 0)
			warning("VOLCTL_RACE_CMD: the command failed");
		free(copy);
	}
	while (p && *p) {
		unsigned long long id = strtoull(p, &end, 10);
		int ret;

		if (end == p)
			break;
		vc_fs_clear_error(r->fs);
		ret = CMD_OP(r->ctx, subvol_delete, r->fs, NULL, (u64)id);
		if (ret)
			cmd_report(r->ctx, r->fs, ret, "VOLCTL_RACE_DELETE");
		p = *end == ',' ? end + 1 : end;
	}
}
#endif

/* Delete @ids; mark each deleted one, keep each refusal's message */
static int delete_all(struct prune_run *r, const u64 *ids, size_t nr)
{
	struct vc_delete_status *st = calloc(nr ? nr : 1, sizeof(*st));
	u64 *done = calloc(nr ? nr : 1, sizeof(*done));
	size_t nr_done = 0, nr_gone = 0;
	int ret = 0, failed = 0;

	if (!st || !done) {
		free(st);
		free(done);
		return -ENOMEM;
	}
#if VOLCTL_FAULT_INJECTION
	race_hooks(r);
#endif
	if (!r->ctx->ops->subvol_delete_all)	/* both backends have it */
		for (size_t i = 0; i < nr; i++)
			st[i].err = -EOPNOTSUPP;
	else
		r->ctx->ops->subvol_delete_all(r->fs, ids, nr, st);
	for (size_t j = 0; j < nr; j++) {
		for (size_t i = 0; i < r->n; i++) {
			if (r->rs[i].id != ids[j])
				continue;
			r->ps[i].st = st[j];
			r->ps[i].gone = !st[j].err && st[j].gone;
			r->ps[i].deleted = !st[j].err && !st[j].gone;
			if (r->ps[i].gone)
				pr_verbose(r->ctx->cfg, 1, "subvolume %llu (%s): already deleted, "
					   "counted as done", (unsigned long long)ids[j],
					   r->ps[i].sv->path ? r->ps[i].sv->path : "?");
		}
		if (st[j].err) {
			error("%s", st[j].msg[0] ? st[j].msg : strerror(-st[j].err));
			failed++;
		} else if (st[j].gone) {
			/* its cleaner and qgroup are the business of who deleted it */
			nr_gone++;
		} else {
			done[nr_done++] = ids[j];
		}
	}
	if (nr_gone)
		cmd_note_text(r->ctx, &rec_prune_gone_note, &(struct count_rec){ nr_gone });
	free(st);
	/* the cleaner is waited for only where there is something to clean */
	if (nr_done)
		ret = drop_qgroups(r, done, nr_done);
	free(done);
	return failed ? VC_EXIT_FAILURE : ret;
}

/* SOURCE's snapshots (below DIR) with the policy applied; prints its errors */
static int find_snapshots(struct prune_run *r, const char *source, const char *dir)
{
	struct vc_path_info info;
	int ret;

	if (sv_require_subvol(r->ctx, r->fs, source, &info) || sv_load_list(r->ctx, r->fs, &r->l))
		return VC_EXIT_FAILURE;
	r->src = btrfs_subvol_list_find(&r->l, info.subvolid);
	if (!r->src || vc_uuid_is_zero(r->src->root.uuid)) {
		error("%s: the subvolume has no UUID: its snapshots cannot be found", source);
		return VC_EXIT_FAILURE;
	}
	if (dir && resolve_dir(r, dir))
		return VC_EXIT_FAILURE;
	ret = collect(r);
	if (!ret)
		ret = vc_ret_apply(&r->o->pol, r->rs, r->n);
	if (ret)
		return cmd_report(r->ctx, NULL, ret, "prune");
	/* what each rule keeps before --free takes any */
	if (!vc_ret_idle_rule(&r->o->pol, r->rs, r->n, r->idle, sizeof(r->idle)))
		r->idle[0] = 0;
	for (size_t i = 0; i < r->n; i++)
		r->ps[i].abs = r->ps[i].sv->path && r->ctx->ops->absolute_path ?
			       r->ctx->ops->absolute_path(r->fs, r->ps[i].sv->path) : NULL;
	return 0;
}

/* --free out of reach: the plan with everything kept, and what the best set frees */
static int report_unreached(struct prune_run *r, const char *source, const char *dir,
			    const struct btrfs_acct_counts *alone, u64 best)
{
	struct vc_acct_delete none = { .profile = "unknown", .data_profile = "unknown" };
	char b1[UNITS_BUFSIZE], b2[UNITS_BUFSIZE];

	r->unreached = true;
	for (size_t i = 0; i < r->n; i++)
		describe(r, i);
	if (print_plan(r, source, dir, NULL, 0, alone, &none, &best, false))
		return cmd_report(r->ctx, NULL, -ENOMEM, "prune");
	error("%s: no allowed set of snapshots frees %s: the best (all but those kept by name, "
	      "the default and mounted ones) frees %s; nothing deleted", source,
	      pretty_size(r->o->free, r->o->units, b1), pretty_size(best, r->o->units, b2));
	return VC_EXIT_FAILURE;
}

/*
 * The guards, on the plan of @nr deletions: a keep rule that keeps none
 * (unless --force), then --max-delete.  Return: 0 to go on, or, the
 * refusal printed (the plan with everything kept, then the error), 1.
 */
static int check_guards(struct prune_run *r, const char *source, const char *dir, size_t nr,
			const struct btrfs_acct_counts *alone)
{
	struct vc_acct_delete none = { .profile = "unknown", .data_profile = "unknown" };
	const struct prune_opts *o = r->o;
	bool idle = nr && r->idle[0] && !o->force;

	if (nr && r->idle[0] && o->force)
		warning("%s: keeps none of the %zu snapshots of %s: pruning anyway (--force)",
			r->idle, r->n, source);
	if (idle)
		r->refused = "a rule keeps none";
	else if (vc_ret_over_limit(&o->max_delete, nr, r->n))
		r->refused = "over --max-delete";
	else
		return 0;
	for (size_t i = 0; i < r->n; i++)
		describe(r, i);
	if (print_plan(r, source, dir, NULL, 0, alone, &none, NULL, true))
		return cmd_report(r->ctx, NULL, -ENOMEM, "prune");
	if (idle)
		error("%s: keeps none of the %zu snapshots of %s (the plan would delete %zu of "
		      "them): refused, nothing deleted; --force prunes anyway", r->idle, r->n,
		      source, nr);
	else if (o->max_delete.percent)
		error("%s: the plan would delete %zu of its %zu snapshots, more than --max-delete "
		      "%s allows (%llu): refused, nothing deleted", source, nr, r->n,
		      o->max_delete_arg,
		      (unsigned long long)vc_ret_limit_allows(&o->max_delete, r->n));
	else
		error("%s: the plan would delete %zu of its %zu snapshots, more than --max-delete "
		      "%s: refused, nothing deleted", source, nr, r->n, o->max_delete_arg);
	return VC_EXIT_FAILURE;
}

static int run_prune(struct prune_run *r, const char *source, const char *dir)
{
	struct btrfs_acct_counts *alone = NULL;
	struct vc_acct_delete set;
	u64 *ids = NULL, best = 0;
	size_t nr, nr_gone;
	int ret;

	ret = find_snapshots(r, source, dir);
	if (ret)
		return ret;
	ids = calloc(r->n ? r->n : 1, sizeof(*ids));
	alone = calloc(r->n ? r->n : 1, sizeof(*alone));
	if (!ids || !alone) {
		ret = cmd_report(r->ctx, NULL, -ENOMEM, "prune");
		goto out;
	}
	ret = vc_acct_compute(r->ctx->ops, r->fs, false, 0, &r->res);
	r->have_res = true;
	if (ret) {
		error("%s: %s", source, r->res.err);
		ret = VC_EXIT_FAILURE;
		goto out;
	}
	if (r->res.retried)
		warning("%s: the filesystem changed while it was read; the second read succeeded",
			source);
	ret = r->o->have_free ? plan_free(r, ids, alone, &best) : 0;
	if (ret) {
		ret = ret < 0 ? cmd_report(r->ctx, NULL, ret, "prune") :
				report_unreached(r, source, dir, alone, best);
		goto out;
	}
	nr = delete_set(r, NULL, 0, ids);
	ret = check_guards(r, source, dir, nr, alone);
	if (ret)
		goto out;
	set_numbers(r, ids, nr, alone, &set);
	for (size_t i = 0; i < r->n; i++)
		describe(r, i);
	if (!r->o->dry_run && nr) {
		ret = delete_all(r, ids, nr);
		if (ret < 0)
			ret = cmd_report(r->ctx, NULL, ret, "prune");
		/* what was freed: the set of those the kernel deleted */
		nr_gone = 0;
		for (size_t j = 0; j < nr; j++)
			for (size_t i = 0; i < r->n; i++)
				if (r->rs[i].id == ids[j] && r->ps[i].deleted)
					ids[nr_gone++] = ids[j];
		nr = nr_gone;
		set_numbers(r, ids, nr, alone, &set);
	}
	if (print_plan(r, source, dir, ids, nr, alone, &set, NULL, true))
		ret = cmd_report(r->ctx, NULL, -ENOMEM, "prune");
	ret = ret ? VC_EXIT_FAILURE : VC_EXIT_OK;
out:
	free(ids);
	free(alone);
	return ret;
}

static int parse_count(const struct vc_ctx *ctx, const char *opt, const char *arg,
		       unsigned int *out)
{
	u64 v;
	int ret = parse_u64(arg, &v);

	if (ret || v == 0 || v > 1000000) {
		cmd_usage_error(ctx, "--%s '%s': want a count from 1 to 1000000", opt, arg);
		return VC_EXIT_USAGE;
	}
	*out = (unsigned int)v;
	return 0;
}

enum { OPT_LAST = 256, OPT_HOURLY, OPT_DAILY, OPT_WEEKLY, OPT_MONTHLY, OPT_YEARLY,
       OPT_WITHIN, OPT_NAME, OPT_FREE, OPT_DRY_RUN, OPT_MAX_DELETE, OPT_FORCE };

/* One option @c of prune into @o (--keep-name: into @names, o->pol.names); an exit code */
static int prune_option(const struct vc_ctx *ctx, struct prune_opts *o, const char **names, int c,
			char *arg)
{
	const char *why;
	int ret = 0;

	switch (c) {
	case OPT_LAST:
		ret = parse_count(ctx, "keep-last", arg, &o->pol.last);
		break;
	case OPT_HOURLY:
		ret = parse_count(ctx, "keep-hourly", arg, &o->pol.hourly);
		break;
	case OPT_DAILY:
		ret = parse_count(ctx, "keep-daily", arg, &o->pol.daily);
		break;
	case OPT_WEEKLY:
		ret = parse_count(ctx, "keep-weekly", arg, &o->pol.weekly);
		break;
	case OPT_MONTHLY:
		ret = parse_count(ctx, "keep-monthly", arg, &o->pol.monthly);
		break;
	case OPT_YEARLY:
		ret = parse_count(ctx, "keep-yearly", arg, &o->pol.yearly);
		break;
	case OPT_WITHIN:
		if (vc_ret_parse_duration(arg, &o->pol.within))
			ret = cmd_usage_error(ctx, "--keep-within '%s': want a "
					      "duration such as 2d, 12h, 1w, 3m, 1y or 1y2m",
					      arg);
		o->pol.has_within = true;
		break;
	case OPT_NAME:
		why = vc_ret_glob_invalid(arg);
		if (why)
			ret = cmd_usage_error(ctx, "--keep-name '%s': %s", arg, why);
		names[o->pol.nr_names++] = arg;
		break;
	case OPT_FREE:
		ret = parse_size(arg, false, &o->free, NULL);
		if (ret || !o->free)
			ret = cmd_usage_error(ctx, "--free '%s': %s", arg,
					      parse_size_strerror(ret, "want a size above 0 "
								  "such as 512M or 20G"));
		o->have_free = true;
		break;
	case OPT_DRY_RUN:
		o->dry_run = true;
		break;
	case OPT_MAX_DELETE:
		if (vc_ret_parse_max_delete(arg, &o->max_delete))
			ret = cmd_usage_error(ctx, "--max-delete '%s': want a number of "
					      "snapshots (0 or more) or a percentage from 0%% "
					      "to 100%%, such as 10 or 25%%", arg);
		o->max_delete_arg = arg;
		break;
	case OPT_FORCE:
		o->force = true;
		break;
	default:
		ret = VC_EXIT_USAGE;
	}
	return ret;
}

/* What a prune run holds, once it is done */
static void prune_run_release(struct prune_run *r)
{
	if (r->have_res)
		vc_acct_release(r->ctx->ops, r->fs, &r->res);
	cmd_close(r->ctx, r->fs);
	for (size_t i = 0; r->ps && i < r->n; i++)
		free(r->ps[i].abs);
	free(r->ps);
	free(r->rs);
	free(r->dir_path);
	btrfs_subvol_list_release(&r->l);
}

static int cmd_subvolume_prune(const struct cmd_struct *cmd, const struct vc_ctx *ctx, int argc,
			       char **argv)
{
	static const struct option longopts[] = {
		{ "keep-last", required_argument, NULL, OPT_LAST },
		{ "keep-hourly", required_argument, NULL, OPT_HOURLY },
		{ "keep-daily", required_argument, NULL, OPT_DAILY },
		{ "keep-weekly", required_argument, NULL, OPT_WEEKLY },
		{ "keep-monthly", required_argument, NULL, OPT_MONTHLY },
		{ "keep-yearly", required_argument, NULL, OPT_YEARLY },
		{ "keep-within", required_argument, NULL, OPT_WITHIN },
		{ "keep-name", required_argument, NULL, OPT_NAME },
		{ "free", required_argument, NULL, OPT_FREE },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "max-delete", required_argument, NULL, OPT_MAX_DELETE },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ NULL, 0, NULL, 0 },
	};
	struct prune_opts o = { .units = units_from_args(&argc, argv, false) };
	struct prune_run r = { .ctx = ctx, .o = &o };
	const char **names;
	const char *dir;
	int c, ret = 0, nargs;

	names = calloc((size_t)argc + 1, sizeof(*names));
	if (!names) {
		error("out of memory");
		return VC_EXIT_FAILURE;
	}
	o.pol.names = names;
	while (!ret && (c = cmd_getopt(ctx, argc, argv, "", longopts)) != -1) {
		ret = prune_option(ctx, &o, names, c, optarg);
	}
	nargs = argc - optind;
	if (!ret && !vc_ret_has_rule(&o.pol) && !o.have_free)
		ret = cmd_usage_error(ctx, "no keep rule and no --free: that would delete every "
				      "snapshot; give at least one --keep-* option or --free");
	if (!ret)
		ret = cmd_check_argc_min(ctx, nargs, 1);
	if (!ret)
		ret = cmd_check_argc_max(ctx, nargs, 2);
	if (ret) {
		free(names);
		return ret;
	}
	dir = nargs == 2 ? argv[optind + 1] : NULL;
	ret = cmd_open(ctx, argv[optind], !o.dry_run, &r.fs);
	if (ret) {
		free(names);
		return VC_EXIT_FAILURE;
	}
	ret = run_prune(&r, argv[optind], dir);
	prune_run_release(&r);
	free(names);
	return ret;
}

const struct cmd_struct cmd_struct_subvolume_prune = {
	"prune", cmd_subvolume_prune, &cmd_prune_help, NULL,
	CMD_WRITES | CMD_ONLINE | CMD_OFFLINE | CMD_FORMAT_JSON,
};
