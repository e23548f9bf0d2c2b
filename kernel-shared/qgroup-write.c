// SPDX-License-Identifier: GPL-2.0-only
/*
 * Offline quota and qgroup changes (see qgroup-write.h).
 *
 * Quota tree items (on-disk-engine 9.1): STATUS (0, 240, 0), INFO
 * (0, 242, id), LIMIT (0, 244, id), and two RELATION items per edge,
 * (child, 246, parent) and (parent, 246, child).  Every qgroup has both
 * INFO and LIMIT; every INFO written gets generation T.
 *
 * Relation changes follow the kernel's quick path when it is exact (the
 * child's rfer == excl, and its subvolumes are not already below the
 * group by another path); otherwise the accounting engine computes the
 * numbers of the changed groups from the level-0 groups below them
 * (btrfs_acct_subvols()), so the quota tree never becomes INCONSISTENT.
 * All reading and checking happens before the first change, so a refusal
 * leaves the transaction untouched.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fs.h"
#include "ctree.h"
#include "ctree-write.h"
#include "transaction.h"
#include "accounting.h"
#include "qgroup-list.h"
#include "qgroup-items.h"
#include "qgroup-write.h"

static int run_engine(struct btrfs_trans_handle *trans, struct btrfs_acct **acct)
{
	if (*acct)
		return 0;
	return btrfs_acct_run(trans->fs, NULL, acct);
}

/* ---- sets of level-0 ids below a group ---- */

struct idset {
	u64 *ids;
	size_t nr, cap;
};

static int idset_add(struct idset *s, u64 id)
{
	for (size_t i = 0; i < s->nr; i++)
		if (s->ids[i] == id)
			return 0;
	if (s->nr == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 16;
		u64 *p = realloc(s->ids, ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->ids = p;
		s->cap = ncap;
	}
	s->ids[s->nr++] = id;
	return 0;
}

static bool idset_has(const struct idset *s, u64 id)
{
	for (size_t i = 0; i < s->nr; i++)
		if (s->ids[i] == id)
			return true;
	return false;
}

static bool idset_meets(const struct idset *a, const struct idset *b)
{
	for (size_t i = 0; i < a->nr; i++)
		if (idset_has(b, a->ids[i]))
			return true;
	return false;
}

/* An edge src -> dst added or taken away while walking the graph */
struct edge_change {
	u64 src, dst;
	bool assign;
	bool active;
};

static int collect_l0(const struct btrfs_qgroup_list *list, u64 id, const struct edge_change *ec,
		      struct idset *out, int depth)
{
	const struct btrfs_qgroup *qg = btrfs_qgroup_list_find(list, id);
	int ret;

	if (depth > 16)
		return -EUCLEAN;	/* levels go down at every step: a deeper graph is corrupt */
	if (btrfs_qgroup_level(id) == 0)
		return idset_add(out, id);
	if (ec && ec->active && ec->assign && ec->dst == id) {
		ret = collect_l0(list, ec->src, ec, out, depth + 1);
		if (ret < 0)
			return ret;
	}
	if (!qg)
		return 0;
	for (size_t i = 0; i < qg->nr_children; i++) {
		if (ec && ec->active && !ec->assign && ec->dst == id && qg->children[i] == ec->src)
			continue;
		ret = collect_l0(list, qg->children[i], ec, out, depth + 1);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* ---- relations ---- */

struct group_update {
	u64 id;
	u64 rfer, excl;
};

/*
 * New numbers of @dst and its ancestors after the edge change: quick path
 * or engine.  @ups receives one entry per changed group.
 */
static int relation_numbers(struct btrfs_trans_handle *trans, const struct btrfs_qgroup_list *list,
			    const struct edge_change *ec, struct btrfs_acct **acct,
			    struct group_update *ups, size_t *nr_ups)
{
	const struct btrfs_qgroup *src = btrfs_qgroup_list_find(list, ec->src);
	struct idset below_src = { 0 };
	bool *mark = calloc(list->nr + 1, sizeof(*mark));
	bool quick;
	int ret;

	*nr_ups = 0;
	if (!mark)
		return -ENOMEM;
	btrfs_qgroup_list_mark(list, ec->dst, true, mark);
	ret = collect_l0(list, ec->src, NULL, &below_src, 0);
	/* stored numbers are only a base to add to when they are consistent */
	quick = src->info.rfer == src->info.excl &&
		!(list->status.flags & BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT);
	for (size_t i = 0; i < list->nr && !ret && quick; i++) {
		struct idset s = { 0 };

		if (!mark[i])
			continue;
		/* assign: not below already; remove: not below any more */
		ret = collect_l0(list, list->groups[i].qgroupid, ec->assign ? NULL : ec, &s, 0);
		if (!ret && idset_meets(&below_src, &s))
			quick = false;
		if (!ec->assign && (list->groups[i].info.rfer < src->info.excl ||
				    list->groups[i].info.excl < src->info.excl))
			quick = false;
		free(s.ids);
	}
	for (size_t i = 0; i < list->nr && !ret; i++) {
		const struct btrfs_qgroup *g = &list->groups[i];
		struct group_update *u = &ups[*nr_ups];

		if (!mark[i])
			continue;
		u->id = g->qgroupid;
		if (quick && ec->assign) {
			u->rfer = g->info.rfer + src->info.excl;
			u->excl = g->info.excl + src->info.excl;
		} else if (quick) {
			u->rfer = g->info.rfer - src->info.excl;
			u->excl = g->info.excl - src->info.excl;
		} else {
			struct idset s = { 0 };
			struct btrfs_acct_counts c;

			ret = run_engine(trans, acct);
			if (!ret)
				ret = collect_l0(list, g->qgroupid, ec, &s, 0);
			if (!ret) {
				for (size_t j = 0; j < s.nr; j++)
					s.ids[j] = btrfs_qgroup_subvolid(s.ids[j]);
				btrfs_acct_subvols(*acct, s.ids, s.nr, &c);
				u->rfer = c.rfer;
				u->excl = c.excl;
			}
			free(s.ids);
			if (ret)
				break;
		}
		ret = btrfs_qgroup_check_limit(trans->fs, g, u->rfer, u->excl);
		(*nr_ups)++;
	}
	free(below_src.ids);
	free(mark);
	return ret;
}

/*
 * Simple quotas: every group's usage is the sum of the charges of the
 * distinct level-0 groups below it (each extent is charged to one owner,
 * and the kernel adds a charge to every group above the owner once).  The
 * new numbers of @dst and its ancestors come from the recorded level-0
 * numbers, which simple quotas keep exact.  The kernel's quick path adds
 * the child's usage to @dst and each ancestor instead: the same numbers,
 * except when the child's subvolumes already reach a group by another path
 * (the kernel then counts them twice there, its later charges once).
 */
static int squota_relation_numbers(struct btrfs_trans_handle *trans,
				   const struct btrfs_qgroup_list *list,
				   const struct edge_change *ec, struct group_update *ups,
				   size_t *nr_ups)
{
	bool *mark = calloc(list->nr + 1, sizeof(*mark));
	int ret = 0;

	*nr_ups = 0;
	if (!mark)
		return -ENOMEM;
	btrfs_qgroup_list_mark(list, ec->dst, true, mark);
	for (size_t i = 0; i < list->nr && !ret; i++) {
		const struct btrfs_qgroup *g = &list->groups[i];
		struct group_update *u = &ups[*nr_ups];
		struct idset s = { 0 };

		if (!mark[i])
			continue;
		ret = collect_l0(list, g->qgroupid, ec, &s, 0);
		u->id = g->qgroupid;
		u->rfer = u->excl = 0;
		for (size_t j = 0; j < s.nr && !ret; j++) {
			const struct btrfs_qgroup *c = btrfs_qgroup_list_find(list, s.ids[j]);

			if (c && c->has_info) {
				u->rfer += c->info.rfer;
				u->excl += c->info.excl;
			}
		}
		free(s.ids);
		if (!ret)
			ret = btrfs_qgroup_check_limit(trans->fs, g, u->rfer, u->excl);
		(*nr_ups)++;
	}
	free(mark);
	return ret;
}

static int change_relation(struct btrfs_trans_handle *trans, u64 src, u64 dst, bool assign,
			   struct btrfs_acct **acct)
{
	struct btrfs_fs *fs = trans->fs;
	struct edge_change ec = { src, dst, assign, true };
	struct btrfs_qgroup_list list = { 0 };
	struct btrfs_key up = { src, BTRFS_QGROUP_RELATION_KEY, dst };
	struct btrfs_key down = { dst, BTRFS_QGROUP_RELATION_KEY, src };
	char sb[BTRFS_QGROUPID_BUFSIZE], db[BTRFS_QGROUPID_BUFSIZE];
	struct group_update *ups = NULL;
	const struct btrfs_qgroup *s, *d;
	struct btrfs_root *quota;
	size_t nr_ups = 0;
	bool linked = false;
	int ret;

	ret = btrfs_qgroup_quota_root(trans, &quota);
	if (!ret)
		ret = btrfs_qgroup_load_trans(trans, &list);
	if (ret < 0)
		return ret;
	btrfs_qgroupid_str(src, sb);
	btrfs_qgroupid_str(dst, db);
	s = btrfs_qgroup_list_find(&list, src);
	d = btrfs_qgroup_list_find(&list, dst);
	if (btrfs_qgroup_level(src) >= btrfs_qgroup_level(dst)) {
		btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_QGROUP,
				       "cannot %s %s %s %s: the parent's level must be higher",
				       assign ? "assign" : "remove", sb, assign ? "to" : "from", db);
		ret = -EINVAL;
	} else if (!s || !s->has_info || !d || !d->has_info) {
		btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_QGROUP,
				       "qgroup %s does not exist", (!s || !s->has_info) ? sb : db);
		/* the kernel's errnos: EINVAL for an assign, ENOENT for a remove */
		ret = assign ? -EINVAL : -ENOENT;
	}
	if (!ret) {
		for (size_t i = 0; i < s->nr_parents; i++)
			if (s->parents[i] == dst)
				linked = true;
		if (assign && linked) {
			btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_QGROUP,
					       "qgroup %s is already a member of %s", sb, db);
			ret = -EEXIST;
		} else if (!assign && !linked) {
			btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_QGROUP,
					       "qgroup %s is not a member of %s", sb, db);
			ret = -ENOENT;
		}
	}
	if (!ret) {
		ups = calloc(list.nr + 1, sizeof(*ups));
		if (!ups)
			ret = -ENOMEM;
		else if (btrfs_qgroup_list_is_simple(&list))
			ret = squota_relation_numbers(trans, &list, &ec, ups, &nr_ups);
		else
			ret = relation_numbers(trans, &list, &ec, acct, ups, &nr_ups);
	}
	if (!ret && assign) {
		ret = btrfs_insert_item(trans, quota, &up, NULL, 0);
		if (!ret)
			ret = btrfs_insert_item(trans, quota, &down, NULL, 0);
	} else if (!ret) {
		ret = btrfs_delete_key(trans, quota, &up);
		if (!ret)
			ret = btrfs_delete_key(trans, quota, &down);
	}
	for (size_t i = 0; i < nr_ups && !ret; i++)
		ret = btrfs_qgroup_write_info(trans, quota, ups[i].id, ups[i].rfer, ups[i].excl);
	free(ups);
	btrfs_qgroup_list_release(&list);
	return ret;
}

int btrfs_qgroup_relation(struct btrfs_trans_handle *trans, u64 src, u64 dst, bool assign)
{
	struct btrfs_acct *acct = NULL;
	int ret = change_relation(trans, src, dst, assign, &acct);

	btrfs_acct_free(acct);
	return ret;
}

/* ---- create, destroy, limit ---- */

int btrfs_qgroup_create(struct btrfs_trans_handle *trans, u64 qgroupid)
{
	struct btrfs_key key = { 0, BTRFS_QGROUP_INFO_KEY, qgroupid };
	char b[BTRFS_QGROUPID_BUFSIZE];
	u8 info[BTRFS_QGROUP_ITEM_SIZE], limit[BTRFS_QGROUP_ITEM_SIZE];
	struct btrfs_root *quota;
	u32 len;
	int ret;

	ret = btrfs_qgroup_quota_root(trans, &quota);
	if (ret < 0)
		return ret;
	btrfs_qgroupid_str(qgroupid, b);
	if (!qgroupid || (btrfs_qgroup_level(qgroupid) == 0 && btrfs_is_fstree(qgroupid))) {
		btrfs_fs_set_obj_error(trans->fs, BTRFS_ERR_OBJ_QGROUP,
				       "qgroup %s: level-0 qgroups belong to subvolumes and "
				       "are created with them; create a group of level 1 or higher", b);
		return -EINVAL;
	}
	ret = btrfs_lookup_item(quota, &key, info, sizeof(info), &len);
	if (ret == 0) {
		btrfs_fs_set_obj_error(trans->fs, BTRFS_ERR_OBJ_QGROUP,
				       "qgroup %s already exists", b);
		return -EEXIST;
	}
	if (ret != -ENOENT)
		return ret;
	btrfs_qgroup_info_fill(info, trans->transid, 0, 0);
	memset(limit, 0, sizeof(limit));
	ret = btrfs_insert_item(trans, quota, &key, info, sizeof(info));
	if (ret < 0)
		return ret;
	key.type = BTRFS_QGROUP_LIMIT_KEY;
	ret = btrfs_delete_key(trans, quota, &key);	/* a stale LIMIT alone */
	if (ret < 0 && ret != -ENOENT)
		return ret;
	return btrfs_insert_item(trans, quota, &key, limit, sizeof(limit));
}

/* Why a group cannot go, in the words of the online backend */
static int destroy_busy(struct btrfs_fs *fs, const struct btrfs_qgroup *qg)
{
	char b[BTRFS_QGROUPID_BUFSIZE], list[160] = "";
	struct btrfs_root *root;

	btrfs_qgroupid_str(qg->qgroupid, b);
	if (qg->nr_children) {
		for (size_t i = 0; i < qg->nr_children; i++) {
			char c[BTRFS_QGROUPID_BUFSIZE];
			size_t len = strlen(list);

			if (len + 40 >= sizeof(list)) {
				strcat(list, ", ...");
				break;
			}
			snprintf(list + len, sizeof(list) - len, "%s%s", len ? ", " : "",
				 btrfs_qgroupid_str(qg->children[i], c));
		}
		btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_QGROUP,
				       "qgroup %s still has members (%s): remove them first with "
				       "'volctl qgroup remove'", b, list);
		return -EBUSY;
	}
	if (btrfs_qgroup_level(qg->qgroupid) == 0 &&
	    btrfs_read_root(fs, btrfs_qgroup_subvolid(qg->qgroupid), &root) == 0) {
		u64 sub = btrfs_qgroup_subvolid(qg->qgroupid);

		if (sub != BTRFS_FS_TREE_OBJECTID && sub < BTRFS_FIRST_FREE_OBJECTID) {
			btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_QGROUP,
					       "qgroup %s is not a subvolume's group, and the "
					       "kernel keeps it while tree %llu exists", b,
					       (unsigned long long)sub);
			return -EBUSY;
		}
		btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_QGROUP,
				       "qgroup %s belongs to subvolume %llu, which still exists or "
				       "is still being cleaned (or is a simple-quota space holder)", b,
				       (unsigned long long)btrfs_qgroup_subvolid(qg->qgroupid));
		return -EBUSY;
	}
	return 0;
}

int btrfs_qgroup_destroy(struct btrfs_trans_handle *trans, u64 qgroupid)
{
	struct btrfs_qgroup_list list = { 0 };
	struct btrfs_acct *acct = NULL;
	char b[BTRFS_QGROUPID_BUFSIZE];
	struct btrfs_qgroup *qg;
	struct btrfs_root *quota;
	struct btrfs_key key = { 0, BTRFS_QGROUP_INFO_KEY, qgroupid };
	u64 *parents = NULL;
	size_t nr_parents = 0;
	int ret;

	ret = btrfs_qgroup_quota_root(trans, &quota);
	if (!ret)
		ret = btrfs_qgroup_load_trans(trans, &list);
	if (ret < 0)
		return ret;
	btrfs_qgroupid_str(qgroupid, b);
	qg = btrfs_qgroup_list_find(&list, qgroupid);
	if (!qgroupid) {
		btrfs_fs_set_obj_error(trans->fs, BTRFS_ERR_OBJ_QGROUP,
				       "qgroup 0/0 is not a valid qgroup");
		ret = -EINVAL;
	} else if (!qg || !qg->has_info) {
		btrfs_fs_set_obj_error(trans->fs, BTRFS_ERR_OBJ_QGROUP,
				       "qgroup %s does not exist", b);
		ret = -ENOENT;
	} else {
		ret = destroy_busy(trans->fs, qg);
	}
	if (!ret && qg->nr_parents) {
		parents = malloc(qg->nr_parents * sizeof(*parents));
		if (!parents)
			ret = -ENOMEM;
		else
			memcpy(parents, qg->parents, qg->nr_parents * sizeof(*parents));
		nr_parents = qg->nr_parents;
	}
	btrfs_qgroup_list_release(&list);
	for (size_t i = 0; i < nr_parents && !ret; i++)
		ret = change_relation(trans, qgroupid, parents[i], false, &acct);
	free(parents);
	btrfs_acct_free(acct);
	if (!ret)
		ret = btrfs_delete_key(trans, quota, &key);
	key.type = BTRFS_QGROUP_LIMIT_KEY;
	if (!ret) {
		ret = btrfs_delete_key(trans, quota, &key);
		if (ret == -ENOENT)
			ret = 0;
	}
	return ret;
}

int btrfs_qgroup_limit(struct btrfs_trans_handle *trans, u64 qgroupid, u64 flags,
		       u64 max_rfer, u64 max_excl)
{
	struct btrfs_key key = { 0, BTRFS_QGROUP_INFO_KEY, qgroupid };
	char b[BTRFS_QGROUPID_BUFSIZE];
	u8 buf[BTRFS_QGROUP_ITEM_SIZE];
	struct btrfs_root *quota;
	u64 cur_flags;
	u32 len;
	int ret;

	ret = btrfs_qgroup_quota_root(trans, &quota);
	if (ret < 0)
		return ret;
	ret = btrfs_lookup_item(quota, &key, buf, sizeof(buf), &len);
	if (ret == -ENOENT) {
		btrfs_fs_set_obj_error(trans->fs, BTRFS_ERR_OBJ_QGROUP,
				       "qgroup %s does not exist", btrfs_qgroupid_str(qgroupid, b));
		return ret;
	}
	if (ret < 0)
		return ret;
	key.type = BTRFS_QGROUP_LIMIT_KEY;
	memset(buf, 0, sizeof(buf));
	ret = btrfs_lookup_item(quota, &key, buf, sizeof(buf), &len);
	if (ret < 0 && ret != -ENOENT)
		return ret;
	if (ret == 0 && len != BTRFS_QGROUP_ITEM_SIZE)
		return -EUCLEAN;
	if (ret == -ENOENT) {
		ret = btrfs_insert_item(trans, quota, &key, buf, sizeof(buf));
		if (ret < 0)
			return ret;
	}
	/* (u64)-1 clears a value and its flag; other flags accumulate (kernel) */
	cur_flags = get_le64(buf);
	if (flags & BTRFS_QGROUP_LIMIT_MAX_RFER) {
		if (max_rfer == (u64)-1) {
			flags &= ~BTRFS_QGROUP_LIMIT_MAX_RFER;
			cur_flags &= ~BTRFS_QGROUP_LIMIT_MAX_RFER;
			max_rfer = 0;
		}
		put_le64(buf + 8, max_rfer);
	}
	if (flags & BTRFS_QGROUP_LIMIT_MAX_EXCL) {
		if (max_excl == (u64)-1) {
			flags &= ~BTRFS_QGROUP_LIMIT_MAX_EXCL;
			cur_flags &= ~BTRFS_QGROUP_LIMIT_MAX_EXCL;
			max_excl = 0;
		}
		put_le64(buf + 16, max_excl);
	}
	put_le64(buf, cur_flags | flags);
	return btrfs_update_item(trans, quota, &key, buf, sizeof(buf));
}

/* ---- quota enable, disable, rescan ---- */

static int ref_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct idset *s = priv;

	if (key->type != BTRFS_ROOT_REF_KEY || !btrfs_is_fstree(key->offset))
		return 0;
	return idset_add(s, key->offset) < 0 ? -ENOMEM : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* The one leaf of a new quota tree: STATUS, every INFO, every LIMIT */
static int build_quota_leaf(struct btrfs_trans_handle *trans, const struct idset *ids,
			    const struct btrfs_acct_counts *counts, bool simple, u64 *bytenr,
			    bool *full)
{
	struct btrfs_fs *fs = trans->fs;
	u32 item = (u32)sizeof(struct btrfs_item) + BTRFS_QGROUP_ITEM_SIZE;
	struct extent_buffer *leaf;
	struct btrfs_key key = { 0, BTRFS_QGROUP_STATUS_KEY, 0 };
	u8 buf[BTRFS_QGROUP_ITEM_SIZE];
	int ret;

	/* too many for one leaf: STATUS only here, the rest inserted later */
	if ((u64)item * (1 + 2 * ids->nr) > btrfs_leaf_data_size(fs->nodesize))
		ids = NULL;
	ret = btrfs_alloc_tree_block(trans, BTRFS_QUOTA_TREE_OBJECTID, 0, &leaf);
	if (ret < 0)
		return ret;
	memset(buf, 0, sizeof(buf));
	put_le64(buf, 1);			/* version */
	put_le64(buf + 8, trans->transid);
	put_le64(buf + 16, BTRFS_QGROUP_STATUS_FLAG_ON |
		 (simple ? BTRFS_QGROUP_STATUS_FLAG_SIMPLE_MODE : 0));
	/* simple: extents of T and older count nothing (enable_gen = T + 1, kernel) */
	if (simple)
		put_le64(buf + 32, trans->transid + 1);
	ret = btrfs_leaf_append(leaf->data, leaf->len, &key, buf, sizeof(buf));
	key.type = BTRFS_QGROUP_INFO_KEY;
	for (size_t i = 0; !ret && ids && i < ids->nr; i++) {
		key.offset = ids->ids[i];
		btrfs_qgroup_info_fill(buf, trans->transid, counts[i].rfer, counts[i].excl);
		ret = btrfs_leaf_append(leaf->data, leaf->len, &key, buf, sizeof(buf));
	}
	key.type = BTRFS_QGROUP_LIMIT_KEY;
	memset(buf, 0, sizeof(buf));
	for (size_t i = 0; !ret && ids && i < ids->nr; i++) {
		key.offset = ids->ids[i];
		ret = btrfs_leaf_append(leaf->data, leaf->len, &key, buf, sizeof(buf));
	}
	*bytenr = leaf->start;
	*full = ids != NULL;
	free_extent_buffer(leaf);
	return ret;
}

static int insert_quota_root_item(struct btrfs_trans_handle *trans, u64 bytenr)
{
	struct btrfs_root_item ri;
	struct btrfs_key key = { BTRFS_QUOTA_TREE_OBJECTID, BTRFS_ROOT_ITEM_KEY, 0 };

	memset(&ri, 0, sizeof(ri));
	btrfs_set_root_generation(&ri, trans->transid);
	btrfs_set_root_generation_v2(&ri, trans->transid);
	btrfs_set_root_bytenr(&ri, bytenr);
	btrfs_set_root_level(&ri, 0);
	btrfs_set_root_refs(&ri, 1);
	btrfs_set_root_bytes_used(&ri, trans->fs->nodesize);
	return btrfs_insert_item(trans, trans->fs->tree_root, &key, &ri, sizeof(ri));
}

/* INFO and LIMIT items one by one into the new tree (leaves split as needed) */
static int insert_qgroups(struct btrfs_trans_handle *trans, const struct idset *ids,
			  const struct btrfs_acct_counts *counts)
{
	struct btrfs_root *quota;
	u8 buf[BTRFS_QGROUP_ITEM_SIZE];
	int ret;

	ret = btrfs_read_root(trans->fs, BTRFS_QUOTA_TREE_OBJECTID, &quota);
	for (size_t i = 0; i < ids->nr && !ret; i++) {
		struct btrfs_key key = { 0, BTRFS_QGROUP_INFO_KEY, ids->ids[i] };

		btrfs_qgroup_info_fill(buf, trans->transid, counts[i].rfer, counts[i].excl);
		ret = btrfs_insert_item(trans, quota, &key, buf, sizeof(buf));
		if (ret)
			break;
		memset(buf, 0, sizeof(buf));
		key.type = BTRFS_QGROUP_LIMIT_KEY;
		ret = btrfs_insert_item(trans, quota, &key, buf, sizeof(buf));
	}
	return ret;
}

int btrfs_quota_enable(struct btrfs_trans_handle *trans, bool simple)
{
	struct btrfs_fs *fs = trans->fs;
	struct btrfs_key min = { 0, 0, 0 }, max = { (u64)-1, (u8)-1, (u64)-1 };
	struct btrfs_acct_counts *counts = NULL;
	struct btrfs_acct *acct = NULL;
	struct idset ids = { 0 };
	struct btrfs_root *root;
	bool full = false;
	u64 bytenr;
	int ret;

	ret = btrfs_read_root(fs, BTRFS_QUOTA_TREE_OBJECTID, &root);
	if (!ret && simple) {
		struct btrfs_qgroup_list list = { 0 };

		ret = btrfs_qgroup_load_trans(trans, &list);
		if (!ret && !btrfs_qgroup_list_is_simple(&list)) {
			btrfs_fs_set_error(fs, "quotas are already enabled in full mode (disable them first)");
			ret = -EINVAL;
		}
		btrfs_qgroup_list_release(&list);
		return ret;
	}
	if (ret != -ENOENT)
		return ret;		/* 0: already enabled, nothing to do */
	ret = idset_add(&ids, BTRFS_FS_TREE_OBJECTID);
	if (!ret)
		ret = btrfs_iterate_items(fs->tree_root, &min, &max, ref_cb, &ids);
	if (!ret)
		qsort(ids.ids, ids.nr, sizeof(*ids.ids), cmp_u64);
	/* simple quotas start empty: nothing existing is charged */
	if (!ret && !simple)
		ret = btrfs_acct_run(fs, NULL, &acct);
	if (!ret) {
		counts = calloc(ids.nr, sizeof(*counts));
		if (!counts)
			ret = -ENOMEM;
	}
	for (size_t i = 0; i < ids.nr && !ret && !simple; i++)
		btrfs_acct_subvols(acct, &ids.ids[i], 1, &counts[i]);
	if (!ret)
		ret = build_quota_leaf(trans, &ids, counts, simple, &bytenr, &full);
	if (!ret && simple)
		trans->incompat_set |= BTRFS_FEATURE_INCOMPAT_SIMPLE_QUOTA;
	if (!ret)
		ret = insert_quota_root_item(trans, bytenr);
	if (!ret && !full)
		ret = insert_qgroups(trans, &ids, counts);
	btrfs_acct_free(acct);
	free(counts);
	free(ids.ids);
	return ret;
}

static int free_tree_blocks(struct btrfs_trans_handle *trans, u64 owner,
			    struct extent_buffer *eb, int depth)
{
	int ret = 0;

	if (depth > BTRFS_MAX_LEVEL)
		return -EUCLEAN;
	for (u32 i = 0; btrfs_eb_level(eb) > 0 && i < btrfs_eb_nritems(eb) && !ret; i++) {
		struct extent_buffer *child;

		ret = btrfs_read_tree_block(trans->fs, btrfs_eb_node_blockptr(eb, i), NULL, &child);
		if (ret < 0)
			return ret;
		ret = free_tree_blocks(trans, owner, child, depth + 1);
		free_extent_buffer(child);
	}
	if (!ret)
		ret = btrfs_free_tree_block(trans, owner, eb);
	return ret;
}

int btrfs_quota_disable(struct btrfs_trans_handle *trans)
{
	struct btrfs_fs *fs = trans->fs;
	struct btrfs_qgroup_list list = { 0 };
	struct btrfs_root *root;
	int ret;

	ret = btrfs_read_root(fs, BTRFS_QUOTA_TREE_OBJECTID, &root);
	if (ret == -ENOENT)
		return 0;		/* not enabled: nothing to do, as the kernel */
	if (!ret)
		ret = btrfs_qgroup_load_trans(trans, &list);
	if (ret < 0)
		return ret;
	/*
	 * Simple quotas go the same way; SIMPLE_QUOTA stays set, as the
	 * kernel leaves it: data extents keep their EXTENT_OWNER_REFs.
	 */
	btrfs_qgroup_list_release(&list);
	ret = btrfs_root_load_node(root);
	if (!ret)
		ret = free_tree_blocks(trans, BTRFS_QUOTA_TREE_OBJECTID, root->node, 0);
	if (!ret)
		ret = btrfs_delete_key(trans, fs->tree_root, &root->root_key);
	if (ret < 0)
		return ret;
	/* the tree is gone: no ROOT_ITEM to keep up, no STATUS to stamp */
	root->has_item = false;
	trans->quota_on = false;
	return 0;
}

/* ---- limits on subvolume creation ---- */

int btrfs_qgroup_check_create(struct btrfs_trans_handle *trans, u64 parent_root)
{
	struct btrfs_fs *fs = trans->fs;
	struct btrfs_qgroup_list list = { 0 };
	u64 need = 3 * (u64)fs->nodesize;
	bool *mark;
	int ret;

	if (!trans->quota_on)
		return 0;
	ret = btrfs_qgroup_load_trans(trans, &list);
	if (ret < 0)
		return ret;
	/* an inconsistent tree has no working limits, in the kernel either */
	if (list.status.flags & BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT ||
	    btrfs_qgroup_list_is_simple(&list)) {
		btrfs_qgroup_list_release(&list);
		return 0;
	}
	mark = calloc(list.nr + 1, sizeof(*mark));
	if (!mark) {
		btrfs_qgroup_list_release(&list);
		return -ENOMEM;
	}
	btrfs_qgroup_list_mark(&list, parent_root, true, mark);
	for (size_t i = 0; i < list.nr && !ret; i++) {
		const struct btrfs_qgroup *g = &list.groups[i];
		const struct btrfs_qgroup_limit_rec *lim = &g->limit;

		if (!mark[i])
			continue;
		if ((lim->flags & BTRFS_QGROUP_LIMIT_MAX_RFER) &&
		    g->info.rfer + need > lim->max_rfer)
			ret = btrfs_qgroup_limit_refused(fs, g->qgroupid, false, lim->max_rfer,
							 g->info.rfer + need - lim->max_rfer, need);
		else if ((lim->flags & BTRFS_QGROUP_LIMIT_MAX_EXCL) &&
			 g->info.excl + need > lim->max_excl)
			ret = btrfs_qgroup_limit_refused(fs, g->qgroupid, true, lim->max_excl,
							 g->info.excl + need - lim->max_excl, need);
	}
	free(mark);
	btrfs_qgroup_list_release(&list);
	return ret;
}
