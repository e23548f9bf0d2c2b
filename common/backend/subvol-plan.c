// SPDX-License-Identifier: GPL-2.0-only
/* What delete -R, delete by id and prune are to do, from the facts (see subvol-plan.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common/backend/facts.h"
#include "common/backend/subvol-plan.h"
#include "common/util/path-utils.h"

static int cmp_path_len_desc(const void *a, const void *b)
{
	const struct btrfs_subvol *const *x = a, *const *y = b;
	size_t lx = strlen((*x)->path), ly = strlen((*y)->path);

	return lx < ly ? 1 : lx > ly ? -1 : 0;
}

int vc_nested_below(const struct btrfs_subvol_list *l, u64 top, const struct btrfs_subvol ***out,
		    size_t *nr)
{
	const struct btrfs_subvol **below = calloc(l->nr ? l->nr : 1, sizeof(*below));

	*out = NULL;
	*nr = 0;
	if (!below)
		return -ENOMEM;
	for (size_t i = 0; i < l->nr; i++)
		if (l->subvols[i].path && vc_subvol_below(l, &l->subvols[i], top))
			below[(*nr)++] = &l->subvols[i];
	/* a deeper path first: a subvolume goes before the one that holds it */
	qsort(below, *nr, sizeof(*below), cmp_path_len_desc);
	*out = below;
	return 0;
}

void vc_nested_release(struct vc_nested *n, size_t nr)
{
	for (size_t i = 0; n && i < nr; i++)
		free(n[i].path);
	free(n);
}

int vc_nested_plan(const struct btrfs_subvol_list *l, u64 top, const char *arg,
		   struct vc_nested **out, size_t *nr)
{
	const struct btrfs_subvol *t = btrfs_subvol_list_find(l, top), **below = NULL;
	struct vc_nested *n;
	size_t nb = 0, toplen;
	int ret;

	*out = NULL;
	*nr = 0;
	if (!t || !t->path)
		return 0;
	toplen = strlen(t->path);
	ret = vc_nested_below(l, top, &below, &nb);
	if (ret)
		return ret;
	n = calloc(nb ? nb : 1, sizeof(*n));
	for (size_t i = 0; n && i < nb; i++) {
		n[i].id = below[i]->id;
		n[i].path = path_join2(arg, below[i]->path + toplen + (toplen ? 1 : 0));
		if (!n[i].path) {
			vc_nested_release(n, i);
			n = NULL;
		}
	}
	free(below);
	if (!n)
		return -ENOMEM;
	*out = n;
	*nr = nb;
	return 0;
}

char *vc_subvol_shown_path(const struct btrfs_subvol_list *l, u64 arg_subvol, bool arg_is_dir,
			   const char *arg, u64 id)
{
	const struct btrfs_subvol *top = btrfs_subvol_list_find(l, arg_subvol);
	const struct btrfs_subvol *s = btrfs_subvol_list_find(l, id);
	char *dir, *shown;

	if (!s || !s->path)
		return NULL;
	if (top && top->path && (top->id == BTRFS_FS_TREE_OBJECTID || vc_subvol_below(l, s, top->id))) {
		dir = arg_is_dir ? strdup(arg) : path_dirname(arg);
		shown = dir ? path_join2(dir, s->path + strlen(top->path) + (top->path[0] ? 1 : 0))
			    : NULL;
		free(dir);
		return shown;
	}
	return s->path[0] ? path_join2(arg, s->path) : NULL;
}

int vc_dir_path_from_top(struct vc_fs *fs, const struct btrfs_subvol_list *l, u64 subvolid,
			 u64 ino, char **path)
{
	const struct btrfs_subvol *holder = btrfs_subvol_list_find(l, subvolid);
	char *rel = NULL;
	int ret;

	*path = NULL;
	if (!holder || !holder->path)
		return 1;
	ret = vc_fact_inode_path(fs, subvolid, ino, &rel);
	if (ret)
		return ret;
	if (!holder->path[0])
		*path = strdup(rel);
	else if (!rel[0])
		*path = strdup(holder->path);
	else
		*path = path_join2(holder->path, rel);
	free(rel);
	return *path ? 0 : -ENOMEM;
}

/* Whether @path lies below directory @dir (both from the top level; "" is the top) */
static bool below_dir(const char *dir, const char *path)
{
	size_t len = strlen(dir);

	if (!path)
		return false;
	if (!len)
		return true;
	return !strncmp(path, dir, len) && path[len] == '/';
}

static bool id_in(const u64 *ids, size_t nr, u64 id)
{
	for (size_t i = 0; i < nr; i++)
		if (ids[i] == id)
			return true;
	return false;
}

int vc_prune_candidates(struct vc_fs *fs, const struct btrfs_subvol_list *l,
			const struct btrfs_subvol *src, const char *dir_path,
			struct vc_prune_cand **out, size_t *nr, bool *mounts_unknown)
{
	const struct vc_backend_ops *ops = ((const struct vc_fs_base *)fs)->ops;
	const struct btrfs_subvol **snaps = NULL;
	u64 def = 0, *mounted = NULL;
	size_t nr_mounted = 0, ns = 0;
	struct vc_prune_cand *c = NULL;

	*out = NULL;
	*nr = 0;
	*mounts_unknown = false;
	if (vc_fact_default_subvol(fs, &def))
		def = BTRFS_FS_TREE_OBJECTID;
	vc_fs_clear_error(fs);
	if (ops->mounted_subvols && ops->mounted_subvols(fs, &mounted, &nr_mounted))
		*mounts_unknown = true;
	if (!vc_fact_snapshots_of(l, src, VC_SNAPS_NO_SELF | VC_SNAPS_NO_DELETED, &snaps, &ns))
		c = calloc(ns ? ns : 1, sizeof(*c));
	for (size_t i = 0; c && i < ns; i++) {
		const struct btrfs_subvol *s = snaps[i];

		if (dir_path && !below_dir(dir_path, s->path))
			continue;
		c[*nr].sv = s;
		if (s->id == def)
			c[*nr].protect = "default subvolume";
		else if (id_in(mounted, nr_mounted, s->id))
			c[*nr].protect = "mounted";
		(*nr)++;
	}
	free(snaps);
	free(mounted);
	*out = c;
	return c ? 0 : -ENOMEM;
}
