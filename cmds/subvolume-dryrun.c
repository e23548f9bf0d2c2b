// SPDX-License-Identifier: GPL-2.0-only
/*
 * volctl subvolume delete --dry-run PATH...: what deleting exactly that set
 * of subvolumes would free, without deleting anything.
 *
 * The answer is the exclusive bytes of the set as one (the accounting
 * engine through common/backend/acct-run.h, vc_acct_delete_split()): the bytes reachable from these
 * subvolumes and from no other tree, data extents at their on-disk size and
 * tree blocks at nodesize.  It is what a level-1 qgroup holding exactly these
 * subvolumes would show as exclusive after a rescan.  Each subvolume's own
 * exclusive bytes are printed too; they do not add up to the set's, since
 * extents shared only among members of the set belong to the set alone.
 *
 * -R adds every subvolume nested below each one, recursively (as the real
 * delete -R would delete them); -i ID... names the set by ids instead of
 * paths, on the filesystem holding the one path given, reachable through
 * it or not.
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
#include "common/backend/acct-run.h"
#include "common/util/messages.h"
#include "common/output/output.h"
#include "common/util/path-utils.h"
#include "common/output/records.h"
#include "common/util/units.h"

struct dry_member {
	const char *path;		/* as given, or below a given path (-R); NULL: by id */
	char *own;			/* path when allocated here */
	char *abs;			/* ops->absolute_path of it, or NULL */
	u64 id;
	struct btrfs_acct_counts alone;
};

/**
 * sv_print_set_freed - the sentences closing a dry run (and a prune): what
 * deleting the set of @n frees, data and tree blocks, and the raw bytes;
 * @done: it was deleted ("Freed") rather than would be ("Would free")
 */
void sv_print_set_freed(const struct vc_acct_delete *set, size_t n, unsigned int units, bool done)
{
	const struct vc_config text = { .format = VC_FORMAT_TEXT };
	struct set_freed_rec r = {
		.verb = done ? "Freed" : "Would free",
		.excl = set->all.excl,
		.rfer = set->all.rfer,
		.count = n,
		.data = set->data,
		.meta = set->meta,
		.raw = set->raw,
		.profile = set->profile,
		.data_profile = set->data_profile,
		.copies = (u64)set->copies,
	};
	struct kvout kv;

	kvout_init(&kv, &text, stdout, units);
	rec_emit(&kv, &rec_set_freed, &r);
}

/* The dry run (common/output/records.c); text ends with the command's sentences. */
static int print_result(const struct vc_ctx *ctx, const struct dry_member *m, size_t n,
			const struct vc_acct_delete *set, const struct vc_acct_result *res,
			unsigned int units)
{
	struct dryrun_row_rec *rows = calloc(n ? n : 1, sizeof(*rows));
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
						   m[i].alone.excl, m[i].path ? m[i].path : m[i].abs };
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
		sv_print_set_freed(set, n, units, false);
	}
	free(rows);
	return 0;
}

static bool have_member(const struct dry_member *m, size_t n, u64 id)
{
	for (size_t j = 0; j < n; j++)
		if (m[j].id == id)
			return true;
	return false;
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

/* -i: every id must be a live subvolume of the filesystem; duplicates are dropped. */
static int id_members(const struct btrfs_subvol_list *l, const char *path, const u64 *ids,
		      size_t nr_ids, struct dry_member *m, size_t *n)
{
	*n = 0;
	for (size_t i = 0; i < nr_ids; i++) {
		const struct btrfs_subvol *s = btrfs_subvol_list_find(l, ids[i]);

		if (!s || s->deleted) {
			error("subvolume id %llu: no such subvolume on the filesystem of %s",
			      (unsigned long long)ids[i], path);
			return VC_EXIT_FAILURE;
		}
		if (have_member(m, *n, ids[i]))
			continue;
		m[*n].id = ids[i];
		(*n)++;
	}
	return 0;
}

/*
 * -R: add every live subvolume nested below each member, recursively; one
 * below a given path gets that path joined with its own below it.
 */
static int add_nested(const struct btrfs_subvol_list *l, struct dry_member *m, size_t *n)
{
	size_t given = *n;

	for (size_t i = 0; i < given; i++) {
		const struct btrfs_subvol *top = btrfs_subvol_list_find(l, m[i].id);
		size_t toplen = top && top->path ? strlen(top->path) : 0;

		for (size_t j = 0; j < l->nr; j++) {
			const struct btrfs_subvol *s = &l->subvols[j];
			struct dry_member *add = &m[*n];

			if (!vc_subvol_below(l, s, m[i].id) || have_member(m, *n, s->id))
				continue;
			add->id = s->id;
			if (m[i].path && top && top->path && s->path &&
			    !strncmp(s->path, top->path, toplen) && s->path[toplen] == '/') {
				add->own = path_join2(m[i].path, s->path + toplen + 1);
				if (!add->own)
					return -ENOMEM;
				add->path = add->own;
			}
			(*n)++;
		}
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
 * All paths must be on one filesystem (the one holding the first).  With
 * @nr_ids, the set is @ids on the filesystem holding @paths[0] (the only
 * path); with @recursive, every subvolume nested below a member joins it.
 */
int sv_delete_dry_run(const struct vc_ctx *ctx, char **paths, int nr, const u64 *ids,
		      size_t nr_ids, bool recursive, unsigned int units)
{
	struct btrfs_subvol_list l = { 0 };
	struct vc_acct_result res;
	struct btrfs_acct_counts *alone = NULL;
	struct vc_acct_delete set;
	struct dry_member *m = NULL;
	struct vc_fs *fs;
	u64 *set_ids = NULL;
	size_t n = 0, cap;
	int ret;

	ret = cmd_open(ctx, paths[0], false, &fs);
	if (ret)
		return VC_EXIT_FAILURE;
	if ((nr_ids || recursive) && sv_load_list(ctx, fs, &l)) {
		ret = VC_EXIT_FAILURE;
		goto out_close;
	}
	cap = (size_t)nr + nr_ids + l.nr;
	m = calloc(cap, sizeof(*m));
	set_ids = calloc(cap, sizeof(*set_ids));
	alone = calloc(cap, sizeof(*alone));
	if (!m || !set_ids || !alone) {
		error("out of memory");
		ret = VC_EXIT_FAILURE;
		goto out_close;
	}
	if (nr_ids)
		ret = id_members(&l, paths[0], ids, nr_ids, m, &n);
	else
		ret = resolve_members(ctx, fs, paths, nr, m, &n);
	if (!ret && recursive && add_nested(&l, m, &n))
		ret = cmd_report(ctx, NULL, -ENOMEM, "dry run");
	if (ret)
		goto out_close;
	if (ctx->cfg->format == VC_FORMAT_JSON || nr_ids)
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
		set_ids[i] = m[i].id;
	vc_acct_delete_split(&res, set_ids, n, alone, &set);
	for (size_t i = 0; i < n; i++)
		m[i].alone = alone[i];
	ret = print_result(ctx, m, n, &set, &res, units);
	ret = ret ? cmd_report(ctx, NULL, ret, "dry run") : VC_EXIT_OK;
out_release:
	vc_acct_release(ctx->ops, fs, &res);
out_close:
	cmd_close(ctx, fs);
	for (size_t i = 0; m && i < n; i++) {
		free(m[i].abs);
		free(m[i].own);
	}
	btrfs_subvol_list_release(&l);
	free(set_ids);
	free(alone);
	free(m);
	return ret;
}
