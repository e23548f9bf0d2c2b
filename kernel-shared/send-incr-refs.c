// SPDX-License-Identifier: GPL-2.0-only
/*
 * Incremental send sizes (send-incr.c): the references of an inode:
 * recorded, processed (renames, links, unlinks, orphans), directories
 * waiting for their removal and renames delayed behind a parent's.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "csum.h"
#include "fs.h"
#include "array.h"
#include "extent-buffer.h"
#include "send-incr-internal.h"

/* ---- directories to remove ---- */

struct rmdir_scan {
	struct inc *s;
	u64 high_ino, last_index;
	int verdict;		/* -1 go on, 0 cannot, 1 can */
	u64 dir, dir_gen;
	bool last_only;
	bool found_any;
};

static int rmdir_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct rmdir_scan *r = priv;
	struct btrfs_dir_item_rec d;
	struct wdm *w;
	u32 pos = 0;
	int ret;

	ret = btrfs_dir_item_next(data, len, &pos, &d);
	if (ret < 0)
		return ret;
	if (ret)
		return 0;
	r->found_any = true;
	if (r->last_only) {
		r->high_ino = d.location.objectid;	/* the last one wins */
		return 0;
	}
	if (d.location.objectid > r->high_ino)
		r->high_ino = d.location.objectid;
	r->last_index = key->offset;
	w = si_get_waiting(r->s, d.location.objectid);
	if (w) {
		w->rmdir_ino = r->dir;
		w->rmdir_gen = r->dir_gen;
		r->verdict = 0;
		return 1;
	}
	if (d.location.objectid > r->s->cur_ino) {
		r->verdict = 0;
		return 1;
	}
	return 0;
}

/* whether directory @dir can be removed now: every entry it had in the parent is processed */
static int can_rmdir(struct inc *s, u64 dir, u64 dir_gen)
{
	struct btrfs_key min = { dir, BTRFS_DIR_INDEX_KEY, 0 };
	struct btrfs_key max = { dir, BTRFS_DIR_INDEX_KEY, (u64)-1 };
	struct rmdir_scan r = { .s = s, .verdict = -1, .dir = dir, .dir_gen = dir_gen };
	struct odi *o;
	int ret;

	if (dir == TOP)
		return 0;
	o = si_get_orphan(s, dir, dir_gen);
	if (o && s->cur_ino < o->high_ino)
		return 0;
	if (!o) {
		/* the entry with the highest index, very likely the highest inode */
		struct rmdir_scan last = { .s = s, .last_only = true };

		ret = btrfs_iterate_items(s->parent, &min, &max, rmdir_cb, &last);
		if (ret < 0)
			return ret;
		if (!last.found_any)
			return 1;
		r.high_ino = last.high_ino;
		if (s->cur_ino < r.high_ino)
			goto cannot;
	} else {
		min.offset = o->last_index;
	}
	ret = btrfs_iterate_items(s->parent, &min, &max, rmdir_cb, &r);
	if (ret < 0)
		return ret;
	if (r.verdict != 0) {
		if (o)
			si_free_orphan(s, o);
		return 1;
	}
cannot:
	if (!o) {
		o = si_add_orphan(s, dir, dir_gen);
		if (!o)
			return -ENOMEM;
	}
	o->last_index = r.last_index;
	if (r.high_ino > o->high_ino)
		o->high_ino = r.high_ino;
	return 0;
}

/* ---- delayed directory moves ---- */

static int dref_push(struct dref **a, u32 *nr, u64 dir, u64 dir_gen)
{
	struct dref *n = realloc(*a, (*nr + 1) * sizeof(**a));

	if (!n)
		return -ENOMEM;
	*a = n;
	n[(*nr)++] = (struct dref){ dir, dir_gen };
	return 0;
}

static int add_pending_dir_move(struct inc *s, u64 ino, u64 ino_gen, u64 parent_ino,
				const struct dref *refs, u32 nr_refs, bool is_orphan)
{
	struct pdm *pm = calloc(1, sizeof(*pm));
	struct pgroup *g;
	int ret;

	if (!pm)
		return -ENOMEM;
	pm->parent_ino = parent_ino;
	pm->ino = ino;
	pm->gen = ino_gen;
	for (u32 i = 0; i < nr_refs; i++) {
		ret = dref_push(&pm->refs, &pm->nr_refs, refs[i].dir, refs[i].dir_gen);
		if (ret < 0)
			goto fail;
	}
	ret = si_add_waiting(s, ino, is_orphan);
	if (ret < 0)
		goto fail;
	g = si_get_group(s, parent_ino);
	if (!g) {
		ret = btrfs_array_grow((void **)&s->groups, &s->cap_groups, s->nr_groups + 1,
				       sizeof(*s->groups));
		if (ret < 0)
			goto fail;
		g = &s->groups[s->nr_groups++];
		memset(g, 0, sizeof(*g));
		g->parent_ino = parent_ino;
	}
	ret = btrfs_array_grow((void **)&g->pms, &g->cap, g->nr + 1, sizeof(*g->pms));
	if (ret < 0)
		goto fail;
	g->pms[g->nr++] = pm;
	return 0;
fail:
	si_pdm_free(pm);
	return ret;
}

/* the new and deleted refs of the current inode, as the kernel copies them */
static int cur_refs(struct inc *s, struct dref **out, u32 *nr)
{
	int ret = 0;

	*out = NULL;
	*nr = 0;
	for (size_t i = 0; i < s->nr_del && !ret; i++)
		ret = dref_push(out, nr, s->del_refs[i].dir, s->del_refs[i].dir_gen);
	for (size_t i = 0; i < s->nr_new && !ret; i++)
		ret = dref_push(out, nr, s->new_refs[i].dir, s->new_refs[i].dir_gen);
	return ret;
}

static int add_pending_cur(struct inc *s, u64 parent_ino, bool is_orphan)
{
	struct dref *refs;
	u32 nr;
	int ret = cur_refs(s, &refs, &nr);

	if (ret == 0)
		ret = add_pending_dir_move(s, s->cur_ino, s->cur_gen, parent_ino, refs, nr,
					   is_orphan);
	free(refs);
	return ret;
}

/* a loop: @ino's new parent chain reaches @ino again (1), and the first waiting ancestor */
static int path_loop(struct inc *s, struct fpath *name, u64 ino, u64 gen, u64 *ancestor)
{
	u64 parent_inode = 0, parent_gen = 0, start = ino;
	int ret = 0, depth = 0;

	*ancestor = 0;
	while (ino != TOP) {
		if (++depth > 4096)
			return -ELOOP;
		fp_reset(name);
		if (si_is_waiting_for_rm(s, ino, gen))
			break;
		if (si_is_waiting_for_move(s, ino)) {
			if (*ancestor == 0)
				*ancestor = ino;
			ret = si_get_first_ref(s, s->parent, ino, &parent_inode, &parent_gen, name);
		} else {
			ret = si_get_cur_name_and_parent(s, ino, gen, &parent_inode, &parent_gen, name);
			if (ret > 0) {
				ret = 0;
				break;
			}
		}
		if (ret < 0)
			break;
		if (parent_inode == start) {
			ret = 1;
			if (*ancestor == 0)
				*ancestor = ino;
			break;
		}
		ino = parent_inode;
		gen = parent_gen;
	}
	return ret;
}

static int apply_dir_move(struct inc *s, struct pdm *pm)
{
	struct fpath *name = malloc(sizeof(*name)), *from = malloc(sizeof(*from));
	u64 orig_progress = s->send_progress, parent_ino, parent_gen, rmdir_ino, rmdir_gen;
	u64 ancestor;
	struct wdm *w;
	bool is_orphan;
	int ret;

	if (!name || !from) {
		ret = -ENOMEM;
		goto out;
	}
	fp_reset(name);
	fp_reset(from);
	w = si_get_waiting(s, pm->ino);
	if (!w) {
		ret = -EUCLEAN;
		goto out;
	}
	rmdir_ino = w->rmdir_ino;
	rmdir_gen = w->rmdir_gen;
	is_orphan = w->orphanized;
	si_free_waiting(s, w);
	if (is_orphan) {
		ret = si_gen_unique_name(s, pm->ino, pm->gen, from);
	} else {
		ret = si_get_first_ref(s, s->parent, pm->ino, &parent_ino, &parent_gen, name);
		if (ret == 0)
			ret = si_get_cur_path(s, parent_ino, parent_gen, from);
		if (ret == 0)
			ret = fp_add(from, name->s, name->len);
	}
	if (ret < 0)
		goto out;
	s->send_progress = s->cur_ino + 1;
	ret = path_loop(s, name, pm->ino, pm->gen, &ancestor);
	if (ret < 0)
		goto out;
	if (ret) {
		ret = add_pending_dir_move(s, pm->ino, pm->gen, ancestor, pm->refs, pm->nr_refs,
					   is_orphan);
		if (ret < 0)
			goto out;
		if (rmdir_ino) {
			w = si_get_waiting(s, pm->ino);
			w->rmdir_ino = rmdir_ino;
			w->rmdir_gen = rmdir_gen;
		}
		ret = 0;
		goto out;
	}
	ret = si_get_cur_path(s, pm->ino, pm->gen, name);
	if (ret < 0)
		goto out;
	si_send_rename(s, from, name);
	if (rmdir_ino) {
		struct odi *o = si_get_orphan(s, rmdir_ino, rmdir_gen);

		if (o) {
			u64 gen = o->gen;

			ret = can_rmdir(s, rmdir_ino, gen);
			if (ret < 0)
				goto out;
			if (ret) {
				ret = si_get_cur_path(s, rmdir_ino, gen, name);
				if (ret < 0)
					goto out;
				si_send_rmdir(s, name);
			}
		}
	}
	ret = si_cache_dir_utimes(s, pm->ino, pm->gen);
	if (ret < 0)
		goto out;
	for (u32 i = 0; i < pm->nr_refs; i++) {
		ret = si_get_inode_info(s, s->send, pm->refs[i].dir, NULL);
		if (ret == -ENOENT) {
			ret = 0;
			continue;
		}
		if (ret < 0)
			goto out;
		ret = si_cache_dir_utimes(s, pm->refs[i].dir, pm->refs[i].dir_gen);
		if (ret < 0)
			goto out;
	}
out:
	free(name);
	free(from);
	s->send_progress = orig_progress;
	return ret;
}

/* take the moves waiting for @parent_ino out of the set, in their order, onto @stack */
static int take_group(struct inc *s, u64 parent_ino, struct pdm ***stack, size_t *nr,
		      size_t *cap)
{
	struct pgroup *g = si_get_group(s, parent_ino);
	size_t gi;
	int ret;

	if (!g)
		return 0;
	ret = btrfs_array_grow((void **)stack, cap, *nr + g->nr, sizeof(**stack));
	if (ret < 0)
		return ret;
	memcpy(*stack + *nr, g->pms, g->nr * sizeof(*g->pms));
	*nr += g->nr;
	free(g->pms);
	gi = (size_t)(g - s->groups);
	memmove(g, g + 1, (s->nr_groups - gi - 1) * sizeof(*g));
	s->nr_groups--;
	return 0;
}

int si_apply_children_dir_moves(struct inc *s)
{
	struct pdm **stack = NULL;
	size_t nr = 0, cap = 0, head = 0;
	int ret;

	ret = take_group(s, s->cur_ino, &stack, &nr, &cap);
	while (ret == 0 && head < nr) {
		struct pdm *pm = stack[head++];
		u64 parent_ino = pm->ino;

		/* a corrupt tree must not keep re-queueing moves for ever */
		if (++s->moves_applied > MAX_DIR_MOVES)
			ret = -EUCLEAN;
		else
			ret = apply_dir_move(s, pm);
		si_pdm_free(pm);
		if (ret == 0)
			ret = take_group(s, parent_ino, &stack, &nr, &cap);
	}
	while (head < nr)
		si_pdm_free(stack[head++]);
	free(stack);
	return ret;
}

/* a rename onto the old name of a directory whose own rename waits: wait too */
static int wait_for_dest_dir_move(struct inc *s, const struct rref *ref, bool is_orphan)
{
	u64 other = 0, left_gen, right_gen;
	struct wdm *w;
	int ret;

	if (!s->nr_waiting)
		return 0;
	ret = si_lookup_dir_item_inode(s->parent, ref->dir, ref->path + ref->name,
				    ref->len - ref->name, &other);
	if (ret == -ENOENT)
		return 0;
	if (ret < 0)
		return ret;
	ret = si_get_inode_gen(s, s->parent, other, &left_gen);
	if (ret < 0)
		return ret;
	ret = si_get_inode_gen(s, s->send, other, &right_gen);
	if (ret == -ENOENT)
		return 0;
	if (ret < 0)
		return ret;
	if (right_gen != left_gen)
		return 0;
	w = si_get_waiting(s, other);
	if (w && !w->orphanized) {
		ret = add_pending_cur(s, other, is_orphan);
		return ret < 0 ? ret : 1;
	}
	return 0;
}

static int check_ino_in_path(struct inc *s, struct btrfs_root *root, u64 ino1, u64 ino1_gen,
			     u64 ino2, u64 ino2_gen, struct fpath *fp)
{
	u64 ino = ino2;
	int depth = 0;

	if (ino1 == ino2)
		return ino1_gen == ino2_gen;
	while (ino > TOP) {
		u64 parent, parent_gen;
		int ret;

		if (++depth > 4096)
			return -ELOOP;
		fp_reset(fp);
		ret = si_get_first_ref(s, root, ino, &parent, &parent_gen, fp);
		if (ret < 0)
			return ret;
		if (parent == ino1)
			return parent_gen == ino1_gen;
		ino = parent;
	}
	return 0;
}

struct anc_scan {
	struct inc *s;
	struct btrfs_root *root;
	u64 ino1, ino1_gen;
	struct fpath *fp;
	int ret;
};

static int ancestor_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct anc_scan *a = priv;
	u32 pos = 0;
	int ret;

	for (;;) {
		u64 parent, parent_gen;

		if (key->type == BTRFS_INODE_EXTREF_KEY) {
			struct btrfs_inode_extref_rec r;

			ret = btrfs_inode_extref_next(data, len, &pos, &r);
			if (ret)
				return ret < 0 ? ret : 0;
			parent = r.parent;
		} else {
			if (pos)
				return 0;
			parent = key->offset;
			pos = len;
		}
		ret = si_get_inode_gen(a->s, a->root, parent, &parent_gen);
		if (ret < 0)
			return ret;
		ret = check_ino_in_path(a->s, a->root, a->ino1, a->ino1_gen, parent, parent_gen,
					a->fp);
		if (ret) {
			a->ret = ret;
			return ret < 0 ? ret : 1;
		}
	}
}

/* whether @ino1 is an ancestor of @ino2 in @root along any of its names */
static int is_ancestor(struct inc *s, struct btrfs_root *root, u64 ino1, u64 ino1_gen, u64 ino2,
		       struct fpath *fp)
{
	struct btrfs_key min = { ino2, BTRFS_INODE_REF_KEY, 0 };
	struct btrfs_key max = { ino2, BTRFS_INODE_EXTREF_KEY, (u64)-1 };
	struct fpath *own = NULL;
	struct anc_scan a = { .s = s, .root = root, .ino1 = ino1, .ino1_gen = ino1_gen, .fp = fp };
	int ret;

	if (!root)
		return 0;
	if (!fp) {
		own = malloc(sizeof(*own));
		if (!own)
			return -ENOMEM;
		a.fp = own;
	}
	ret = btrfs_iterate_items(root, &min, &max, ancestor_cb, &a);
	free(own);
	if (ret < 0)
		return ret;
	return a.ret;
}

/* an ancestor with a higher number moves too: our rename waits for it */
static int wait_for_parent_move(struct inc *s, const struct rref *ref, bool is_orphan)
{
	struct fpath *before = malloc(sizeof(*before)), *after = malloc(sizeof(*after));
	u64 ino = ref->dir, ino_gen = ref->dir_gen, parent_before, parent_after;
	int ret = 0, depth = 0;

	if (!before || !after) {
		ret = -ENOMEM;
		goto out;
	}
	while (ino > TOP) {
		u64 parent_after_gen;

		if (++depth > 4096) {
			ret = -ELOOP;
			break;
		}
		if (si_is_waiting_for_move(s, ino)) {
			ret = is_ancestor(s, s->parent, s->cur_ino, s->cur_gen, ino, before);
			if (ret)
				break;
		}
		fp_reset(before);
		fp_reset(after);
		ret = si_get_first_ref(s, s->send, ino, &parent_after, &parent_after_gen, after);
		if (ret < 0)
			break;
		ret = si_get_first_ref(s, s->parent, ino, &parent_before, NULL, before);
		if (ret == -ENOENT) {
			ret = 0;
			break;
		}
		if (ret < 0)
			break;
		if (ino > s->cur_ino && (parent_before != parent_after || before->len != after->len ||
					 memcmp(before->s, after->s, before->len))) {
			u64 parent_ino_gen;

			ret = si_get_inode_gen(s, s->parent, ino, &parent_ino_gen);
			if (ret < 0)
				break;
			if (ino_gen == parent_ino_gen) {
				ret = 1;
				break;
			}
		}
		ino = parent_after;
		ino_gen = parent_after_gen;
	}
out:
	free(before);
	free(after);
	if (ret == 1) {
		ret = add_pending_cur(s, ino, is_orphan);
		return ret < 0 ? ret : 1;
	}
	return ret;
}

/* ---- references ---- */

static void rref_set(struct rref *r, char *path, u32 len)
{
	u32 i = len;

	while (i > 0 && path[i - 1] != '/')
		i--;
	r->path = path;
	r->len = len;
	r->name = i;
}

void si_refs_free(struct rref *a, size_t *nr)
{
	for (size_t i = 0; i < *nr; i++)
		free(a[i].path);
	*nr = 0;
}

static int same_ref(const struct rref *r, u64 dir, u64 dir_gen, const char *name, u32 name_len)
{
	return r->dir == dir && r->dir_gen == dir_gen && r->len - r->name == name_len &&
	       !memcmp(r->path + r->name, name, name_len);
}

/* a ref of the current inode: cancels its twin in @other, else joins @list */
static int record_ref(struct inc *s, bool is_new, u64 dir, const char *name, u32 name_len)
{
	struct rref **list = is_new ? &s->new_refs : &s->del_refs;
	struct rref *other = is_new ? s->del_refs : s->new_refs;
	size_t *nr = is_new ? &s->nr_new : &s->nr_del;
	size_t *cap = is_new ? &s->cap_new : &s->cap_del;
	size_t *nr_other = is_new ? &s->nr_del : &s->nr_new;
	struct fpath *p;
	u64 dir_gen;
	char *copy;
	int ret;

	ret = si_get_inode_gen(s, is_new ? s->send : s->parent, dir, &dir_gen);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < *nr_other; i++) {
		if (same_ref(&other[i], dir, dir_gen, name, name_len)) {
			free(other[i].path);
			memmove(other + i, other + i + 1, (*nr_other - i - 1) * sizeof(*other));
			(*nr_other)--;
			return 0;
		}
	}
	p = malloc(sizeof(*p));
	if (!p)
		return -ENOMEM;
	ret = si_get_cur_path(s, dir, dir_gen, p);
	if (ret == 0)
		ret = fp_add(p, name, name_len);
	if (ret == 0)
		ret = btrfs_array_grow((void **)list, cap, *nr + 1, sizeof(**list));
	if (ret == 0) {
		copy = malloc(p->len + 1);
		if (!copy) {
			ret = -ENOMEM;
		} else {
			memcpy(copy, p->s, p->len + 1);
			(*list)[*nr].dir = dir;
			(*list)[*nr].dir_gen = dir_gen;
			rref_set(&(*list)[*nr], copy, p->len);
			(*nr)++;
		}
	}
	free(p);
	return ret;
}

/* every name in one INODE_REF or INODE_EXTREF item */
int si_record_item_refs(struct inc *s, bool is_new, const struct btrfs_key *key,
			    const u8 *data, u32 len)
{
	u32 pos = 0;
	int ret;

	for (;;) {
		if (key->type == BTRFS_INODE_REF_KEY) {
			struct btrfs_inode_ref_rec r;

			ret = btrfs_inode_ref_next(data, len, &pos, &r);
			if (ret)
				return ret < 0 ? ret : 0;
			ret = record_ref(s, is_new, key->offset, r.name, r.name_len);
		} else {
			struct btrfs_inode_extref_rec r;

			ret = btrfs_inode_extref_next(data, len, &pos, &r);
			if (ret)
				return ret < 0 ? ret : 0;
			ret = record_ref(s, is_new, r.parent, r.name, r.name_len);
		}
		if (ret < 0)
			return ret;
	}
}

static int refresh_ref_path(struct inc *s, struct rref *r)
{
	struct fpath *p = malloc(sizeof(*p));
	char *copy;
	int ret;

	if (!p)
		return -ENOMEM;
	ret = si_get_cur_path(s, r->dir, r->dir_gen, p);
	if (ret == 0)
		ret = fp_add(p, r->path + r->name, r->len - r->name);
	if (ret == 0) {
		copy = malloc(p->len + 1);
		if (!copy) {
			ret = -ENOMEM;
		} else {
			memcpy(copy, p->s, p->len + 1);
			free(r->path);
			rref_set(r, copy, p->len);
		}
	}
	free(p);
	return ret;
}

/* a rename of the current inode: the receiver's name for it and the cached path follow */
static int rename_current_inode(struct inc *s, struct fpath *cur, const struct fpath *to)
{
	int ret;

	si_send_rename(s, cur, to);
	ret = fp_copy(&s->cur_path, to->s, to->len);
	if (ret == 0)
		ret = fp_copy(cur, to->s, to->len);
	return ret;
}

static int fpath_of(struct fpath *p, const struct rref *r);

/* an unlink of name @r (its path computed again first when @refresh) */
static int unlink_ref(struct inc *s, struct rref *r, bool refresh, struct fpath *tmp)
{
	int ret = refresh ? refresh_ref_path(s, r) : 0;

	if (ret == 0)
		ret = fpath_of(tmp, r);
	if (ret == 0)
		si_send_unlink(s, tmp);
	return ret;
}

static int fpath_of(struct fpath *p, const struct rref *r)
{
	return fp_copy(p, r->path, r->len);
}

int si_process_recorded_refs(struct inc *s, int *pending_move)
{
	struct fpath *valid = malloc(sizeof(*valid)), *tmp = malloc(sizeof(*tmp));
	struct dref *check = NULL;
	u32 nr_check = 0;
	u64 ow_inode = 0, ow_gen = 0, ow_mode = 0, last_dir_ino_rm = 0;
	bool is_orphan = false, can_rename = true, orphanized_dir = false;
	bool orphanized_ancestor = false;
	int ret = 0;

	if (!valid || !tmp) {
		ret = -ENOMEM;
		goto out;
	}
	fp_reset(valid);
	if (s->cur_ino <= TOP) {
		ret = -EUCLEAN;
		goto out;
	}
	if (!s->cur_new) {
		ret = si_did_overwrite_first_ref(s, s->cur_ino, s->cur_gen);
		if (ret < 0)
			goto out;
	}
	if (s->cur_new || ret) {
		ret = si_gen_unique_name(s, s->cur_ino, s->cur_gen, valid);
		is_orphan = true;
	} else {
		ret = si_get_cur_path(s, s->cur_ino, s->cur_gen, valid);
	}
	if (ret < 0)
		goto out;

	/* first pass: orphanize what a new name would overwrite */
	for (size_t i = 0; i < s->nr_new; i++) {
		struct rref *cur = &s->new_refs[i];

		ret = si_get_cur_inode_state(s, cur->dir, cur->dir_gen, NULL, NULL);
		if (ret < 0)
			goto out;
		if (ret == ST_WILL_CREATE)
			continue;
		ret = si_will_overwrite_ref(s, cur->dir, cur->dir_gen, cur->path + cur->name,
					 cur->len - cur->name, &ow_inode, &ow_gen, &ow_mode);
		if (ret < 0)
			goto out;
		if (!ret)
			continue;
		ret = si_is_first_ref(s, s->parent, ow_inode, cur->dir, cur->path + cur->name,
				   cur->len - cur->name);
		if (ret < 0)
			goto out;
		if (ret) {
			struct wdm *w;
			struct nce *e;

			if (orphanized_dir) {
				ret = refresh_ref_path(s, cur);
				if (ret < 0)
					goto out;
			}
			ret = fpath_of(tmp, cur);
			if (ret == 0)
				ret = si_orphanize_inode(s, ow_inode, ow_gen, tmp);
			if (ret < 0)
				goto out;
			if (S_ISDIR(ow_mode))
				orphanized_dir = true;
			w = si_get_waiting(s, ow_inode);
			if (w)
				w->orphanized = true;
			e = si_nc_lookup(s, ow_inode, ow_gen);
			if (e)
				si_nc_remove(s, e);
			ret = is_ancestor(s, s->parent, ow_inode, ow_gen, s->cur_ino, NULL);
			if (ret > 0) {
				orphanized_ancestor = true;
				fp_reset(&s->cur_path);
				ret = si_get_cur_path(s, s->cur_ino, s->cur_gen, valid);
			}
			if (ret < 0)
				goto out;
		} else {
			ret = unlink_ref(s, cur, orphanized_dir, tmp);
			if (ret < 0)
				goto out;
		}
	}

	for (size_t i = 0; i < s->nr_new; i++) {
		struct rref *cur = &s->new_refs[i];

		ret = si_get_cur_inode_state(s, cur->dir, cur->dir_gen, NULL, NULL);
		if (ret < 0)
			goto out;
		if (ret == ST_WILL_CREATE) {
			ret = 0;
			for (size_t j = 0; j < i; j++) {
				if (s->new_refs[j].dir == cur->dir) {
					ret = 1;
					break;
				}
			}
			if (!ret)
				ret = si_did_create_dir(s, cur->dir);
			if (ret < 0)
				goto out;
			if (!ret) {
				ret = si_send_create_inode(s, cur->dir);
				if (ret == 0)
					ret = si_mark_created(s, cur->dir);
				if (ret < 0)
					goto out;
			}
		}
		if (S_ISDIR(s->cur_mode) && s->parent) {
			ret = wait_for_dest_dir_move(s, cur, is_orphan);
			if (ret < 0)
				goto out;
			if (ret == 1) {
				can_rename = false;
				*pending_move = 1;
			}
		}
		if (S_ISDIR(s->cur_mode) && s->parent && can_rename) {
			ret = wait_for_parent_move(s, cur, is_orphan);
			if (ret < 0)
				goto out;
			if (ret == 1) {
				can_rename = false;
				*pending_move = 1;
			}
		}
		ret = fpath_of(tmp, cur);
		if (ret < 0)
			goto out;
		if (is_orphan && can_rename) {
			ret = rename_current_inode(s, valid, tmp);
			is_orphan = false;
		} else if (can_rename) {
			if (S_ISDIR(s->cur_mode)) {
				ret = rename_current_inode(s, valid, tmp);
			} else {
				if (orphanized_dir) {
					ret = refresh_ref_path(s, cur);
					if (ret == 0)
						ret = fpath_of(tmp, cur);
					if (ret < 0)
						goto out;
				}
				si_send_link(s, tmp, valid);
			}
		}
		if (ret == 0)
			ret = dref_push(&check, &nr_check, cur->dir, cur->dir_gen);
		if (ret < 0)
			goto out;
	}

	if (S_ISDIR(s->cur_mode) && s->cur_deleted) {
		ret = can_rmdir(s, s->cur_ino, s->cur_gen);
		if (ret < 0)
			goto out;
		if (ret) {
			si_send_rmdir(s, valid);
		} else if (!is_orphan) {
			ret = si_orphanize_inode(s, s->cur_ino, s->cur_gen, valid);
			if (ret < 0)
				goto out;
			is_orphan = true;
		}
		for (size_t i = 0; i < s->nr_del; i++) {
			ret = dref_push(&check, &nr_check, s->del_refs[i].dir, s->del_refs[i].dir_gen);
			if (ret < 0)
				goto out;
		}
	} else if (S_ISDIR(s->cur_mode) && s->nr_del) {
		ret = dref_push(&check, &nr_check, s->del_refs[0].dir, s->del_refs[0].dir_gen);
		if (ret < 0)
			goto out;
	} else if (!S_ISDIR(s->cur_mode)) {
		for (size_t i = 0; i < s->nr_del; i++) {
			struct rref *cur = &s->del_refs[i];

			ret = si_did_overwrite_ref(s, cur->dir, cur->dir_gen, s->cur_ino, s->cur_gen,
						cur->path + cur->name, cur->len - cur->name);
			if (ret < 0)
				goto out;
			if (!ret) {
				ret = unlink_ref(s, cur, orphanized_ancestor, tmp);
				if (ret < 0)
					goto out;
				if (tmp->len == s->cur_path.len && !memcmp(tmp->s, s->cur_path.s, tmp->len))
					fp_reset(&s->cur_path);
			}
			ret = dref_push(&check, &nr_check, cur->dir, cur->dir_gen);
			if (ret < 0)
				goto out;
		}
		if (is_orphan)
			si_send_unlink(s, valid);
	}

	for (u32 i = 0; i < nr_check; i++) {
		struct dref *cur = &check[i];

		if (cur->dir > s->cur_ino)
			continue;
		ret = si_get_cur_inode_state(s, cur->dir, cur->dir_gen, NULL, NULL);
		if (ret < 0)
			goto out;
		if (ret == ST_DID_CREATE || ret == ST_NO_CHANGE) {
			ret = si_cache_dir_utimes(s, cur->dir, cur->dir_gen);
			if (ret < 0)
				goto out;
		} else if (ret == ST_DID_DELETE && cur->dir != last_dir_ino_rm) {
			ret = can_rmdir(s, cur->dir, cur->dir_gen);
			if (ret < 0)
				goto out;
			if (ret) {
				ret = si_get_cur_path(s, cur->dir, cur->dir_gen, valid);
				if (ret < 0)
					goto out;
				si_send_rmdir(s, valid);
				last_dir_ino_rm = cur->dir;
			}
		}
	}
	ret = 0;
out:
	free(check);
	si_refs_free(s->new_refs, &s->nr_new);
	si_refs_free(s->del_refs, &s->nr_del);
	free(valid);
	free(tmp);
	return ret;
}

struct all_refs {
	struct inc *s;
	bool is_new;
};

static int all_refs_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct all_refs *a = priv;

	return si_record_item_refs(a->s, a->is_new, key, data, len);
}

/* an inode deleted or created whole (its generation changed): every ref at once */
int si_process_all_refs(struct inc *s, bool is_new)
{
	struct btrfs_key min = { s->cmp_key.objectid, BTRFS_INODE_REF_KEY, 0 };
	struct btrfs_key max = { s->cmp_key.objectid, BTRFS_INODE_EXTREF_KEY, (u64)-1 };
	struct all_refs a = { s, is_new };
	int pending = 0, ret;

	ret = btrfs_iterate_items(is_new ? s->send : s->parent, &min, &max, all_refs_cb, &a);
	if (ret < 0)
		return ret;
	return si_process_recorded_refs(s, &pending);
}
