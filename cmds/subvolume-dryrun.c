// SPDX-License-Identifier: GPL-2.0-only
/*
 * volctl subvolume delete --dry-run PATH...: what deleting exactly that set
 * of subvolumes would free, without deleting anything.
 *
 * The answer is the exclusive bytes of the set as one (the accounting
 * engine through common/acct-run.h, vc_acct_delete_split()): the bytes reachable from these
 * subvolumes and from no other tree, data extents at their on-disk size and
 * tree blocks at nodesize.  It is what a level-1 qgroup holding exactly these
 * subvolumes would show as exclusive after a rescan.  Each subvolume's own
 * exclusive bytes are printed too; they do not add up to the set's, since
 * extents shared only among members of the set belong to the set alone.
 *
 * Raw device space freed is larger: a tree block is counted once here, but a
 * DUP (or RAID1...) metadata profile stores it two or more times; the output
 * splits data from tree blocks and gives the raw figure for the metadata
 * and data profiles found.  Online the
 * numbers come from a committed snapshot of the live filesystem.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cmds/subvolume.h"
#include "common/acct-run.h"
#include "common/messages.h"
#include "common/output.h"
#include "common/records.h"
#include "common/units.h"

struct dry_member {
	const char *path;
	char *abs;			/* ops->absolute_path of it, or NULL */
	u64 id;
	struct btrfs_acct_counts alone;
};

/* The dry run (common/records.c); text ends with the command's sentences. */
static int print_result(const struct vc_ctx *ctx, const struct dry_member *m, size_t n,
			const struct vc_acct_delete *set, const struct vc_acct_result *res,
			unsigned int units)
{
	struct dryrun_row_rec *rows = calloc(n ? n : 1, sizeof(*rows));
	char b1[UNITS_BUFSIZE], b2[UNITS_BUFSIZE], b3[UNITS_BUFSIZE];
	struct dryrun_rec r = {
		.source = res->live ? "live_snapshot" : "image",
		.subvolumes = { &rec_dryrun_row, rows, n, sizeof(*rows) },
		.count = n,
		.rfer = set->all.rfer,
		.excl = set->all.excl,
		.would_free = set->all.excl,
		.data = set->data,
		.meta = set->meta,
		.raw = set->raw,
		.metadata_profile = set->profile,
		.metadata_copies = (u64)set->copies,
		.data_profile = set->data_profile,
		.data_copies = (u64)set->data_copies,
	};
	struct kvout kv;

	if (!rows)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		rows[i] = (struct dryrun_row_rec){ m[i].id, m[i].path, m[i].abs, m[i].alone.rfer,
						   m[i].alone.excl };
	kvout_init(&kv, ctx->cfg, stdout, units);
	if (kv.json) {
		rec_print_document(&kv, &rec_doc_dryrun, &rec_dryrun, &r);
		free(rows);
		return 0;
	}
	if (!kv.quiet) {
		pr_note(ctx->cfg, "Dry run, nothing deleted: numbers computed from %s",
			res->live ? "a committed snapshot of the mounted filesystem" : "the image");
		rec_emit(&kv, &rec_dryrun, &r);
		printf("Would free %s (exclusive bytes of the set of %zu subvolume%s; referenced %s)\n",
		       pretty_size(set->all.excl, units, b1), n, n == 1 ? "" : "s",
		       pretty_size(set->all.rfer, units, b2));
		printf("  data %s, metadata %s (tree blocks, each counted once)\n",
		       pretty_size(set->data, units, b1), pretty_size(set->meta, units, b2));
		printf("Raw device space freed is larger by the metadata profile %s (%d cop%s, "
		       "data %s): %s\n", set->profile, set->copies, set->copies == 1 ? "y" : "ies",
		       set->data_profile, pretty_size(set->raw, units, b3));
	}
	free(rows);
	return 0;
}

/* Resolve every path to a subvolume id; duplicates are dropped. */
static int resolve_members(const struct vc_ctx *ctx, struct vc_fs *fs, char **paths, int nr,
			   struct dry_member *m, size_t *n)
{
	*n = 0;
	for (int i = 0; i < nr; i++) {
		struct vc_path_info info;
		bool dup = false;

		if (sv_require_subvol(ctx, fs, paths[i], &info))
			return VC_EXIT_FAILURE;
		if (info.subvolid == BTRFS_FS_TREE_OBJECTID) {
			error("%s: the top-level subvolume cannot be deleted", paths[i]);
			return VC_EXIT_FAILURE;
		}
		for (size_t j = 0; j < *n; j++)
			dup |= m[j].id == info.subvolid;
		if (dup)
			continue;
		m[*n].path = paths[i];
		m[*n].id = info.subvolid;
		(*n)++;
	}
	return 0;
}

/* Where each member is for the user, through its path from the top level */
static void members_abs(const struct vc_ctx *ctx, struct vc_fs *fs, struct dry_member *m,
			size_t n)
{
	struct btrfs_subvol_list l = { 0 };
	const struct btrfs_subvol *s;

	if (!ctx->ops->absolute_path || sv_load_list(ctx, fs, &l))
		return;
	for (size_t i = 0; i < n; i++) {
		s = btrfs_subvol_list_find(&l, m[i].id);
		m[i].abs = s && s->path ? ctx->ops->absolute_path(fs, s->path) : NULL;
	}
	btrfs_subvol_list_release(&l);
}

/**
 * sv_delete_dry_run - print what deleting the subvolumes @paths would free
 * All paths must be on one filesystem (the one holding the first).
 */
int sv_delete_dry_run(const struct vc_ctx *ctx, char **paths, int nr, unsigned int units)
{
	struct vc_acct_result res;
	struct btrfs_acct_counts *alone;
	struct vc_acct_delete set;
	struct dry_member *m;
	struct vc_fs *fs;
	u64 *ids = NULL;
	size_t n = 0;
	int ret;

	m = calloc((size_t)nr, sizeof(*m));
	ids = calloc((size_t)nr, sizeof(*ids));
	alone = calloc((size_t)nr, sizeof(*alone));
	if (!m || !ids || !alone) {
		free(m);
		free(ids);
		free(alone);
		error("out of memory");
		return VC_EXIT_FAILURE;
	}
	ret = cmd_open(ctx, paths[0], false, &fs);
	if (ret) {
		ret = VC_EXIT_FAILURE;
		goto out_free;
	}
	ret = resolve_members(ctx, fs, paths, nr, m, &n);
	if (ret)
		goto out_close;
	if (ctx->cfg->format == VC_FORMAT_JSON)
		members_abs(ctx, fs, m, n);
	ret = vc_acct_compute(ctx->ops, fs, false, 0, &res);
	if (ret) {
		error("%s: %s", paths[0], res.err);
		ret = VC_EXIT_FAILURE;
		goto out_release;
	}
	if (res.retried)
		warning("%s: the filesystem changed while it was read; the second read succeeded",
			paths[0]);
	for (size_t i = 0; i < n; i++)
		ids[i] = m[i].id;
	vc_acct_delete_split(&res, ids, n, alone, &set);
	for (size_t i = 0; i < n; i++)
		m[i].alone = alone[i];
	ret = print_result(ctx, m, n, &set, &res, units);
	ret = ret ? cmd_report(ctx, NULL, ret, "dry run") : VC_EXIT_OK;
out_release:
	vc_acct_release(ctx->ops, fs, &res);
out_close:
	cmd_close(ctx, fs);
out_free:
	for (int i = 0; i < nr; i++)
		free(m[i].abs);
	free(ids);
	free(alone);
	free(m);
	return ret;
}
