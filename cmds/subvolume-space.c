// SPDX-License-Identifier: GPL-2.0-only
/*
 * volctl subvolume space [-a] [-s] [--sort=KEY[,...]] PATH: where the space
 * went, one row per subvolume, like `zfs list -o space` but exact for the
 * sharing of Btrfs.
 *
 * Every number comes from the accounting engine (common/backend/acct-run.h, the
 * same run as subvolume delete --dry-run), so quotas are not needed:
 *  - referenced and exclusive: the subvolume's own (its 0/ID qgroup after
 *    a rescan);
 *  - used by snapshots: the exclusive bytes of the SET of its snapshots,
 *    i.e. what deleting all of them together would free; not a sum of
 *    their own exclusive bytes, which misses what they share;
 *  - with snapshots: the exclusive bytes of the set {subvolume} ∪ its
 *    snapshots, the bytes held by that family alone.
 * The snapshots of a subvolume are its direct snapshots: the live
 * subvolumes whose parent uuid is its uuid (as zfs counts the snapshots of
 * a dataset).  A snapshot of a snapshot belongs to the snapshot it was
 * taken of, not to the original; bytes it shares with the original's
 * snapshots keep them out of the original's numbers.  Subvolumes deleted
 * and not yet cleaned hold their bytes and belong to no set.
 *
 * The limit is the one qgroup headroom finds binding first
 * (vc_fact_qgroup_binding(), reservations counted online), on the engine's
 * numbers (full quotas) or the recorded ones (simple quotas, which are
 * exact by construction).
 *
 * The rows: PATH's subvolume and every subvolume below it; for the top
 * level (or with -a) every subvolume of the filesystem, the top level
 * included.  The numbers of a row never depend on which rows are shown:
 * a snapshot outside the subtree still counts for its origin inside it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cmds/subvolume.h"
#include "common/backend/acct-run.h"
#include "common/backend/facts-qgroup.h"
#include "common/util/messages.h"
#include "common/output/output.h"
#include "common/util/parse-utils.h"
#include "common/output/qgroup-out.h"
#include "common/tool/qgroup-state.h"
#include "common/output/records.h"
#include "common/util/units.h"

enum space_sort {
	SPACE_SORT_ID, SPACE_SORT_PATH, SPACE_SORT_RFER, SPACE_SORT_EXCL, SPACE_SORT_USEDSNAP,
	SPACE_SORT_WITHSNAP, SPACE_SORT_SNAPS, SPACE_SORT_LEFT,
};

/* the sort keys */
static const char *const space_sort_names[] = {
	[SPACE_SORT_ID] = "id",				/* not a column label */
	[SPACE_SORT_PATH] = "path",			/* not a column label */
	[SPACE_SORT_RFER] = "rfer",			/* not a column label */
	[SPACE_SORT_EXCL] = "excl",			/* not a column label */
	[SPACE_SORT_USEDSNAP] = "usedsnap",
	[SPACE_SORT_WITHSNAP] = "withsnap",
	[SPACE_SORT_SNAPS] = "snaps",
	[SPACE_SORT_LEFT] = "left",
};

struct space_opts {
	bool all;			/* -a: the whole filesystem whatever PATH */
	bool snapshots_only;		/* -s */
	struct vc_sort_spec sort;
	unsigned int units;
};

struct space_row {
	const struct btrfs_subvol *sv;
	struct btrfs_acct_family fam;
	u64 snapshot_of;		/* 0: none known */
	u64 snapshots;
	bool has_limit;
	struct vc_qgroup_limit bind;
	char *abs;
	char bound[BTRFS_QGROUPID_BUFSIZE + 8];
	char qgid[BTRFS_QGROUPID_BUFSIZE];
};

static int cmp_u64(u64 a, u64 b)
{
	return a < b ? -1 : a > b;
}

/* A missing path (unreachable) last */
static int cmp_path(const char *a, const char *b)
{
	if (!a || !b)
		return !a - !b;
	return strcmp(a, b);
}

/* Room left; no limit is unlimited room */
static u64 row_left(const struct space_row *r)
{
	return r->has_limit ? r->bind.left : (u64)-1;
}

static int row_cmp(const void *va, const void *vb, void *priv)
{
	const struct space_row *a = va, *b = vb;
	const struct vc_sort_spec *spec = priv;

	for (int i = 0; i < spec->nr; i++) {
		int r;

		switch ((enum space_sort)spec->key[i]) {
		case SPACE_SORT_PATH:
			r = cmp_path(a->sv->path, b->sv->path);
			break;
		case SPACE_SORT_RFER:
			r = cmp_u64(a->fam.rfer, b->fam.rfer);
			break;
		case SPACE_SORT_EXCL:
			r = cmp_u64(a->fam.excl, b->fam.excl);
			break;
		case SPACE_SORT_USEDSNAP:
			r = cmp_u64(a->fam.snap_excl, b->fam.snap_excl);
			break;
		case SPACE_SORT_WITHSNAP:
			r = cmp_u64(a->fam.family_excl, b->fam.family_excl);
			break;
		case SPACE_SORT_SNAPS:
			r = cmp_u64(a->snapshots, b->snapshots);
			break;
		case SPACE_SORT_LEFT:
			r = cmp_u64(row_left(a), row_left(b));
			break;
		case SPACE_SORT_ID:
		default:
			r = cmp_u64(a->sv->id, b->sv->id);
			break;
		}
		if (r)
			return spec->desc[i] ? -r : r;
	}
	return cmp_u64(a->sv->id, b->sv->id);
}

static void row_rec(struct space_row_rec *rec, struct space_row *r)
{
	bool top = r->sv->id == BTRFS_FS_TREE_OBJECTID;

	*rec = (struct space_row_rec){
		.id = r->sv->id,
		.path = r->sv->path,
		.abs = r->abs,
		.snapshot = !vc_uuid_is_zero(r->sv->root.parent_uuid),
		.snapshot_of = r->snapshot_of ? &r->snapshot_of : NULL,
		.snapshots = r->snapshots,
		.rfer = r->fam.rfer,
		.excl = r->fam.excl,
		.used_by_snapshots = r->fam.snap_excl,
		.with_snapshots = r->fam.family_excl,
		.limit = r->has_limit ? &r->bind.limit : NULL,
		.left = r->has_limit ? &r->bind.left : NULL,
		.limit_qgroupid = r->has_limit ? r->qgid : NULL,
		.limit_type = !r->has_limit ? NULL : r->bind.exclusive ? "exclusive" : "referenced",
		.bound_by = r->has_limit ? r->bound : NULL,
		.label = top ? "<toplevel>" : r->sv->path ? r->sv->path : "<unreachable>",
	};
}

static int print_text(const struct vc_ctx *ctx, struct space_row *rows, size_t n,
		      unsigned int units)
{
	struct space_row_rec rec;
	struct rec_autotab t;
	struct kvout kv;
	int ret;

	kvout_init(&kv, ctx->cfg, stdout, units);
	if (kv.quiet)
		return 0;
	ret = rec_autotab_init(&t, &kv, &rec_space_row, 0);
	if (ret)
		return ret;
	for (size_t i = 0; i < n; i++) {
		row_rec(&rec, &rows[i]);
		rec_autotab_measure(&t, &rec);
	}
	ret = rec_autotab_header(&t);
	for (size_t i = 0; i < n && !ret; i++) {
		row_rec(&rec, &rows[i]);
		ret = rec_autotab_row(&t, &rec);
	}
	rec_autotab_release(&t);
	return ret;
}

static int print_json(const struct vc_ctx *ctx, struct space_row *rows, size_t n,
		      const struct vc_acct_result *res, const struct quota_state *st,
		      const char *limit_numbers, unsigned int units)
{
	struct space_row_rec *recs = calloc(n ? n : 1, sizeof(*recs));
	struct space_rec doc = {
		.source = res->live ? "live_snapshot" : "image",
		.quota_enabled = st->enabled,
		.limit_numbers = limit_numbers,
		.subvolumes = { &rec_space_row, recs, n, sizeof(*recs) },
	};
	struct kvout kv;

	if (!recs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		row_rec(&recs[i], &rows[i]);
	kvout_init(&kv, ctx->cfg, stdout, units);
	rec_print_document(&kv, &rec_doc_space, &rec_space, &doc);
	free(recs);
	return 0;
}

/* Which live subvolumes are rows: PATH's and below it, or all of them */
static bool row_wanted(const struct btrfs_subvol_list *l, const struct btrfs_subvol *s, u64 top,
		       const struct space_opts *o)
{
	if (o->snapshots_only && vc_uuid_is_zero(s->root.parent_uuid))
		return false;
	return o->all || top == BTRFS_FS_TREE_OBJECTID || s->id == top ||
	       vc_subvol_below(l, s, top);
}

struct space_run {
	struct btrfs_subvol_list list;
	const struct btrfs_subvol **live;	/* not deleted */
	u64 *ids;
	size_t *origin;
	u64 *nsnaps;			/* how many subvolumes have each as origin */
	struct btrfs_acct_family *fam;
	size_t n;
	struct space_row *rows;
	size_t nr_rows;
	struct btrfs_qgroup_list qgroups;
	struct quota_state st;
	const char *limit_numbers;
};

static int space_alloc(struct space_run *s)
{
	size_t cap = s->list.nr ? s->list.nr : 1;
	int ret;

	s->live = calloc(cap, sizeof(*s->live));
	s->ids = calloc(cap, sizeof(*s->ids));
	s->origin = calloc(cap, sizeof(*s->origin));
	s->fam = calloc(cap, sizeof(*s->fam));
	s->nsnaps = calloc(cap, sizeof(*s->nsnaps));
	s->rows = calloc(cap, sizeof(*s->rows));
	if (!s->live || !s->ids || !s->origin || !s->fam || !s->nsnaps || !s->rows)
		return -ENOMEM;
	for (size_t i = 0; i < s->list.nr; i++) {
		if (s->list.subvols[i].deleted)
			continue;
		s->live[s->n] = &s->list.subvols[i];
		s->ids[s->n++] = s->list.subvols[i].id;
	}
	ret = vc_fact_snapshot_origins(s->live, s->n, s->origin);
	for (size_t i = 0; !ret && i < s->n; i++)
		if (s->origin[i] != BTRFS_ACCT_NO_ORIGIN)
			s->nsnaps[s->origin[i]]++;
	return ret;
}

/* The limits: the recorded state, with the engine's numbers for full quotas */
static int space_limits(const struct vc_ctx *ctx, struct vc_fs *fs, const char *path,
			const struct vc_acct_result *res, struct space_run *s)
{
	int ret = quota_state_read(ctx->ops, fs, &s->qgroups, &s->st);

	if (ret)
		return cmd_report(ctx, fs, ret, path);
	if (!s->st.enabled)
		return 0;
	s->limit_numbers = "recorded";
	if (!s->st.simple) {
		ret = vc_acct_fill_qgroups(res, &s->qgroups);
		if (ret)
			return cmd_report(ctx, NULL, ret, path);
		s->limit_numbers = "computed";
	}
	return 0;
}

static int space_rows(const struct vc_ctx *ctx, struct vc_fs *fs, u64 top,
		      const struct space_opts *o, struct space_run *s)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct btrfs_subvol *sv = s->live[i];
		struct space_row *r;
		int ret;

		if (!row_wanted(&s->list, sv, top, o))
			continue;
		r = &s->rows[s->nr_rows++];
		r->sv = sv;
		r->fam = s->fam[i];
		if (s->origin[i] != BTRFS_ACCT_NO_ORIGIN)
			r->snapshot_of = s->ids[s->origin[i]];
		r->snapshots = s->nsnaps[i];
		if (ctx->cfg->format == VC_FORMAT_JSON && sv->path && ctx->ops->absolute_path)
			r->abs = ctx->ops->absolute_path(fs, sv->path);
		if (!s->st.enabled || !vc_qgroup_find(&s->qgroups, sv->id))
			continue;
		ret = vc_fact_qgroup_binding(fs, &s->qgroups, sv->id, &r->bind);
		if (ret < 0)
			return ret;
		r->has_limit = ret;
		vc_qgroupid_str(r->has_limit ? r->bind.qg->qgroupid : 0, r->qgid);
		snprintf(r->bound, sizeof(r->bound), "%s %s", r->qgid,
			 r->bind.exclusive ? "excl" : "rfer");	/* not a column label */
	}
	return 0;
}

static void space_release(struct space_run *s)
{
	for (size_t i = 0; s->rows && i < s->nr_rows; i++)
		free(s->rows[i].abs);
	free(s->rows);
	free(s->fam);
	free(s->nsnaps);
	free(s->origin);
	free(s->ids);
	free(s->live);
	vc_qgroups_release(&s->qgroups);
	btrfs_subvol_list_release(&s->list);
}

static int space_print(const struct vc_ctx *ctx, struct space_run *s,
		       const struct vc_acct_result *res, unsigned int units)
{
	if (ctx->cfg->format == VC_FORMAT_JSON)
		return print_json(ctx, s->rows, s->nr_rows, res, &s->st, s->limit_numbers, units);
	cmd_note_text(ctx, &rec_space_note, &(struct space_note_rec){
		.n = s->nr_rows, .numbers = s->limit_numbers, .limits = s->limit_numbers != NULL,
		.source = res->live ? "a committed snapshot of the mounted filesystem" : "the image",
	});
	return print_text(ctx, s->rows, s->nr_rows, units);
}

static int space_run(const struct vc_ctx *ctx, struct vc_fs *fs, const char *path,
		     const struct space_opts *o)
{
	struct space_run s = { 0 };
	struct vc_acct_result res;
	struct vc_path_info info;
	int ret;

	if (sv_require_subvol(ctx, fs, path, &info))
		return VC_EXIT_FAILURE;
	if (sv_load_list(ctx, fs, &s.list))
		return VC_EXIT_FAILURE;
	ret = space_alloc(&s);
	if (ret) {
		ret = cmd_report(ctx, NULL, ret, path);
		goto out;
	}
	ret = vc_acct_compute(ctx->ops, fs, false, 0, &res);
	if (ret) {
		error("%s: %s", path, res.err);
		ret = VC_EXIT_FAILURE;
		goto out_release;
	}
	if (res.retried)
		warning("%s: the filesystem changed while it was read; the second read succeeded",
			path);
	ret = vc_acct_families(&res, s.ids, s.origin, s.n, s.fam);
	if (ret) {
		ret = cmd_report(ctx, NULL, ret, path);
		goto out_release;
	}
	ret = space_limits(ctx, fs, path, &res, &s);
	if (ret)
		goto out_release;
	ret = space_rows(ctx, fs, info.subvolid, o, &s);
	if (ret) {
		ret = cmd_report(ctx, NULL, ret, path);
		goto out_release;
	}
	qsort_r(s.rows, s.nr_rows, sizeof(*s.rows), row_cmp, (void *)&o->sort);
	ret = space_print(ctx, &s, &res, o->units);
	ret = ret ? cmd_report(ctx, NULL, ret, path) : VC_EXIT_OK;
out_release:
	vc_acct_release(ctx->ops, fs, &res);
out:
	space_release(&s);
	return ret;
}

static int cmd_subvolume_space(const struct cmd_struct *cmd, const struct vc_ctx *ctx, int argc,
			       char **argv)
{
	enum { OPT_SORT = 256 };
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "snapshots", no_argument, NULL, 's' },
		{ "sort", required_argument, NULL, OPT_SORT },
		{ NULL, 0, NULL, 0 },
	};
	struct space_opts o = { .units = units_from_args(&argc, argv, true) };
	struct vc_fs *fs;
	int c, ret;

	while ((c = cmd_getopt(ctx, argc, argv, "as", longopts)) != -1) {
		switch (c) {
		case 'a':
			o.all = true;
			break;
		case 's':
			o.snapshots_only = true;
			break;
		case OPT_SORT:
			ret = parse_sort_keys(optarg, space_sort_names,
					      sizeof(space_sort_names) / sizeof(space_sort_names[0]),
					      &o.sort);
			if (ret == -ENOMEM)
				return VC_EXIT_FAILURE;
			if (ret)
				return cmd_usage_error(ctx, "invalid sort '%s': use [+|-]KEY[,...] "
						       "with KEY id, path, rfer, excl, usedsnap, "
						       "withsnap, snaps or left", optarg);
			break;
		default:
			return VC_EXIT_USAGE;
		}
	}
	ret = cmd_check_argc_exact(ctx, argc - optind, 1);
	if (ret)
		return ret;
	ret = cmd_open(ctx, argv[optind], false, &fs);
	if (ret)
		return VC_EXIT_FAILURE;
	ret = space_run(ctx, fs, argv[optind], &o);
	cmd_close(ctx, fs);
	return ret;
}

static const char *const cmd_subvolume_space_usage[] = {
	"subvolume space [-a] [-s] [--sort=[+|-]KEY[,...]] [--raw|--human-readable|...] <path>",
	NULL,
};
static const char *const cmd_subvolume_space_details[] = {
	"Show where the space went, one row per subvolume: the bytes it references,",
	"its exclusive bytes, what deleting all of its snapshots together would free",
	"(the exclusive bytes of the set of them, not a sum), the bytes held only by",
	"it and its snapshots together, and the qgroup limit that binds it first",
	"with the room left.  Its snapshots are its direct snapshots: the",
	"subvolumes whose parent uuid is its uuid.  Every number is computed by the",
	"accounting engine (mounted: from a committed snapshot of the devices), so",
	"quotas are not needed; the limit columns are empty without them.",
	"",
	"The rows are the subvolume at <path> and every subvolume below it; for the",
	"top level, every subvolume of the filesystem (the top level too).",
	"",
	OPTLINE("-a, --all", "every subvolume of the filesystem, whatever <path>"),
	OPTLINE("-s, --snapshots", "only snapshots (subvolumes with a parent uuid)"),
	OPTLINE("--sort=[+|-]KEY[,...]", "sort by id (default), path, rfer, excl, usedsnap,\n\t"
		"withsnap, snaps or left; '-' for descending"),
	OPTLINE("--raw", "sizes in bytes"),
	OPTLINE("--human-readable", "sizes with a binary suffix (default)"),
	OPTLINE("--iec, --si", "binary (1024) or decimal (1000) suffixes"),
	OPTLINE("-b|-k|-m|-g|-t", "sizes in bytes, KiB, MiB, GiB or TiB"),
	OPTLINE("--format json", "(global option) a JSON document, sizes in bytes"),
	NULL,
};
static const struct cmd_help space_help = {
	cmd_subvolume_space_usage, "show the space used by each subvolume and its snapshots",
	cmd_subvolume_space_details,
};

const struct cmd_struct cmd_struct_subvolume_space = {
	"space", cmd_subvolume_space, &space_help, NULL,
	CMD_FORMAT_JSON | CMD_ONLINE | CMD_OFFLINE,
};
