// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the subvolume writes did, for --format json: the subvolumes create
 * and snapshot made (looked up after the write: id, uuid, parent, level-0
 * qgroup; what cannot be read, unprivileged online, stays null and never
 * fails the command), the subvolumes delete deleted, and offline the bytes
 * the deleted set frees.  The records are described in common/output/records.c,
 * and so are the text lines of the writes (struct write_line_rec), which
 * cmds/subvolume.c prints with cmd_print_text().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmds/subvolume.h"
#include "common/backend/acct-run.h"
#include "common/backend/subvol-plan.h"
#include "common/output/records.h"

/* ---- create, snapshot ---- */

void sv_made_describe(const struct vc_ctx *ctx, struct vc_fs *fs, const char *path,
		      const u64 *inherit, size_t nr_inherit, u64 source_id, struct sv_made *m)
{
	struct btrfs_subvol_list l = { 0 };
	const struct btrfs_subvol *s;
	struct vc_path_info info;
	bool present;
	int ret;

	memset(m, 0, sizeof(*m));
	m->path = strdup(path);
	m->rec.inherit.v = inherit;
	m->rec.inherit.nr = nr_inherit;
	m->rec.source_id = source_id;
	if (sv_path_info(ctx, fs, path, &info) == 0)
		m->rec.id = info.subvolid;
	vc_fs_clear_error(fs);
	if (m->rec.id && vc_facts_subvols(fs, &l) == 0) {
		s = btrfs_subvol_list_find(&l, m->rec.id);
		if (s) {
			memcpy(m->uuid, s->root.uuid, sizeof(m->uuid));
			m->rec.parent = s->parent_id;
			if (s->path && ctx->ops->absolute_path)
				m->abs = ctx->ops->absolute_path(fs, s->path);
		}
		s = source_id ? btrfs_subvol_list_find(&l, source_id) : NULL;
		if (s)
			memcpy(m->source_uuid, s->root.uuid, sizeof(m->source_uuid));
	}
	btrfs_subvol_list_release(&l);
	vc_fs_clear_error(fs);
	ret = m->rec.id ? vc_fact_qgroup_present(fs, m->rec.id, &present) : -ENOENT;
	if (!ret && present) {
		snprintf(m->qgroup, sizeof(m->qgroup), "0/%llu", (unsigned long long)m->rec.id);
		m->rec.qgroup = m->qgroup;
	}
	vc_fs_clear_error(fs);
}

struct sv_made *sv_made_add(struct sv_made_list *ml)
{
	struct sv_made *n = realloc(ml->m, (ml->nr + 1) * sizeof(*n));

	if (!n)
		return NULL;
	ml->m = n;
	return &ml->m[ml->nr++];
}

void sv_made_fix(struct sv_made_list *ml)
{
	for (size_t i = 0; i < ml->nr; i++) {
		struct sv_made *m = &ml->m[i];

		m->rec.path = m->path;
		m->rec.abs = m->abs;
		m->rec.uuid = m->uuid;
		m->rec.source_uuid = m->source_uuid;
		if (m->rec.qgroup)
			m->rec.qgroup = m->qgroup;
	}
}

void sv_made_release(struct sv_made_list *ml)
{
	for (size_t i = 0; i < ml->nr; i++) {
		free(ml->m[i].path);
		free(ml->m[i].abs);
	}
	free(ml->m);
	ml->m = NULL;
	ml->nr = 0;
}

/* ---- delete ---- */

void sv_deleted_add(const struct vc_ctx *ctx, struct sv_deleted_list *dl, u64 id,
		    const char *path, const char *mode)
{
	struct deleted_rec *n;
	char (*q)[32];

	if (ctx->cfg->format != VC_FORMAT_JSON)
		return;
	n = realloc(dl->d, (dl->nr + 1) * sizeof(*n));
	if (n)
		dl->d = n;
	q = realloc(dl->qgroup, (dl->nr + 1) * sizeof(*q));
	if (q)
		dl->qgroup = q;
	if (!n || !q)
		return;
	memset(&n[dl->nr], 0, sizeof(*n));
	n[dl->nr].id = id;
	n[dl->nr].path = path ? strdup(path) : NULL;
	n[dl->nr].commit = !strcmp(mode, "commit");
	dl->nr++;
}

void sv_deleted_qgroup(struct sv_deleted_list *dl, u64 id, const char *result)
{
	for (size_t i = dl->nr; i-- > 0;) {
		if (dl->d[i].id != id)
			continue;
		snprintf(dl->qgroup[i], sizeof(dl->qgroup[i]), "0/%llu", (unsigned long long)id);
		dl->d[i].qgroup = dl->qgroup[i];
		dl->d[i].qgroup_result = result;
		return;
	}
}

static int plan_add(struct sv_delete_plan *p, u64 id)
{
	u64 *n;

	for (size_t i = 0; i < p->nr; i++)
		if (p->ids[i] == id)
			return 0;
	n = realloc(p->ids, (p->nr + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	p->ids = n;
	p->ids[p->nr++] = id;
	return 0;
}

int sv_delete_plan(const struct vc_ctx *ctx, char **args, int nargs, u64 subvolid, bool recursive,
		   bool delete_qgroup, struct sv_delete_plan *p)
{
	struct btrfs_subvol_list l = { 0 };
	struct btrfs_acct_counts *alone = NULL;
	struct vc_acct_delete set;
	struct vc_acct_result res;
	struct vc_path_info info;
	struct vc_fs *fs = NULL;
	size_t given;
	int ret;

	if (ctx->cfg->format != VC_FORMAT_JSON || !ctx->cfg->nr_images || delete_qgroup)
		return -EOPNOTSUPP;
	ret = ctx->ops->open(&fs, ctx->cfg, "/", false);
	for (int i = 0; !ret && !subvolid && i < nargs; i++) {
		ret = sv_path_info(ctx, fs, args[i], &info);
		if (!ret && !info.is_subvol_root)
			ret = -EINVAL;
		if (!ret)
			ret = plan_add(p, info.subvolid);
	}
	if (!ret && subvolid)
		ret = plan_add(p, subvolid);
	if (!ret && recursive)
		ret = vc_facts_subvols(fs, &l);
	given = p->nr;
	for (size_t i = 0; !ret && recursive && i < given; i++) {
		const struct btrfs_subvol **below;
		size_t nb;

		ret = vc_nested_below(&l, p->ids[i], &below, &nb);
		for (size_t j = 0; !ret && j < nb; j++)
			ret = plan_add(p, below[j]->id);
		free(below);
	}
	alone = ret ? NULL : calloc(p->nr ? p->nr : 1, sizeof(*alone));
	if (!ret && !alone)
		ret = -ENOMEM;
	if (!ret) {
		ret = vc_acct_compute(ctx->ops, fs, false, 0, &res);
		if (!ret) {
			vc_acct_delete_split(&res, p->ids, p->nr, alone, &set);
			p->freed = set.all.excl;
		}
		vc_acct_release(ctx->ops, fs, &res);
	}
	btrfs_subvol_list_release(&l);
	cmd_close(ctx, fs);
	free(alone);
	return ret;
}

/* Whether the subvolumes deleted are exactly the planned set */
static bool plan_done(const struct sv_delete_plan *p, const struct sv_deleted_list *dl)
{
	if (!p->nr || p->nr != dl->nr)
		return false;
	for (size_t i = 0; i < dl->nr; i++) {
		bool found = false;

		for (size_t j = 0; j < p->nr; j++)
			found |= p->ids[j] == dl->d[i].id;
		if (!found)
			return false;
	}
	return true;
}

void sv_deleted_print(const struct vc_ctx *ctx, struct sv_deleted_list *dl, enum vc_commit commit,
		      int failed, const struct sv_delete_plan *plan)
{
	struct delete_rec doc = {
		.subvolumes = { &rec_deleted, dl->d, dl->nr, sizeof(*dl->d) },
		.commit = commit == VC_COMMIT_EACH ? "each" :
			  commit == VC_COMMIT_AFTER ? "after" : "none",
		.failed = (uint64_t)failed,
	};

	if (plan && plan_done(plan, dl))
		doc.freed = &plan->freed;

	for (size_t i = 0; i < dl->nr; i++)
		if (dl->d[i].qgroup)
			dl->d[i].qgroup = dl->qgroup[i];
	cmd_print_doc(ctx, &rec_doc_delete, &rec_delete, &doc);
	for (size_t i = 0; i < dl->nr; i++)
		free((char *)dl->d[i].path);
	free(dl->d);
	free(dl->qgroup);
}
