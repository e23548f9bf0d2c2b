// SPDX-License-Identifier: GPL-2.0-only
/*
 * The qgroup facts (common/backend/facts-qgroup.h): answers for both
 * backends, read through the backend's item source with the parser of
 * kernel-shared/qgroup-list.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common/backend/backend.h"
#include "common/backend/facts-qgroup.h"
#include "kernel-shared/qgroup-list.h"
#include "kernel-shared/subvol-list.h"

int vc_facts_qgroups(struct vc_fs *fs, struct btrfs_qgroup_list *list)
{
	struct btrfs_item_source src = vc_fs_item_source(fs);

	return btrfs_qgroup_list_load(&src, list);
}

void vc_qgroups_release(struct btrfs_qgroup_list *list)
{
	btrfs_qgroup_list_release(list);
}

const struct btrfs_qgroup *vc_qgroup_find(const struct btrfs_qgroup_list *list, u64 qgroupid)
{
	return btrfs_qgroup_list_find(list, qgroupid);
}

const char *vc_qgroupid_str(u64 qgroupid, char *buf)
{
	return btrfs_qgroupid_str(qgroupid, buf);
}

int vc_fact_qgroup_chain(const struct btrfs_qgroup_list *list, u64 qgroupid, unsigned int flags,
			 const struct btrfs_qgroup ***out, size_t *nr)
{
	size_t cap = list->nr ? list->nr : 1;
	bool *mark = calloc(cap, sizeof(*mark));
	const struct btrfs_qgroup **chain = malloc(cap * sizeof(*chain));
	size_t n = 0;

	*out = NULL;
	*nr = 0;
	if (!mark || !chain) {
		free(mark);
		free(chain);
		return -ENOMEM;
	}
	btrfs_qgroup_list_mark(list, qgroupid, flags & VC_QGROUPS_ABOVE, mark);
	for (size_t i = 0; i < list->nr; i++)
		if (mark[i])
			chain[n++] = &list->groups[i];
	free(mark);
	*out = chain;
	*nr = n;
	return 0;
}

enum btrfs_qgroup_kind vc_fact_qgroup_kind(const struct btrfs_qgroup_list *list,
					   const struct btrfs_qgroup *qg,
					   const struct btrfs_subvol_list *subvols)
{
	return btrfs_qgroup_kind(list, qg, subvols);
}

/* The kernel's reservations for @qg, where the backend of @fs reads them */
static bool reserved_of(struct vc_fs *fs, const struct btrfs_qgroup *qg, u64 *reserved)
{
	const struct vc_backend_ops *ops = fs ? ((struct vc_fs_base *)fs)->ops : NULL;
	struct vc_qgroup_rsv rsv = { 0 };
	bool has = false;

	if (ops && ops->qgroup_reserved &&
	    (qg->limit.flags & (BTRFS_QGROUP_LIMIT_MAX_RFER | BTRFS_QGROUP_LIMIT_MAX_EXCL)))
		has = !ops->qgroup_reserved(fs, qg->qgroupid, &rsv);
	*reserved = rsv.data + rsv.meta_pertrans + rsv.meta_prealloc;
	return has;
}

int vc_fact_qgroup_limits(struct vc_fs *fs, const struct btrfs_qgroup_list *list, u64 qgroupid,
			  struct vc_qgroup_limits *out)
{
	const struct btrfs_qgroup **chain;
	size_t nr;
	int ret = vc_fact_qgroup_chain(list, qgroupid, VC_QGROUPS_ABOVE, &chain, &nr);

	memset(out, 0, sizeof(*out));
	out->binding = -1;
	if (ret)
		return ret;
	out->limits = calloc(2 * (nr ? nr : 1), sizeof(*out->limits));
	if (!out->limits) {
		free(chain);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nr; i++) {
		const struct btrfs_qgroup *qg = chain[i];
		u64 reserved;
		bool has_reserved = reserved_of(fs, qg, &reserved);

		for (int excl = 0; excl < 2; excl++) {
			u64 flag = excl ? BTRFS_QGROUP_LIMIT_MAX_EXCL : BTRFS_QGROUP_LIMIT_MAX_RFER;
			struct vc_qgroup_limit *l = &out->limits[out->nr];

			if (!(qg->limit.flags & flag))
				continue;
			l->qg = qg;
			l->exclusive = excl;
			l->limit = excl ? qg->limit.max_excl : qg->limit.max_rfer;
			l->used = excl ? qg->info.excl : qg->info.rfer;
			l->has_reserved = has_reserved;
			l->reserved = reserved;
			l->left = l->limit > l->used + l->reserved ?
				  l->limit - (l->used + l->reserved) : 0;
			if (out->binding < 0 || l->left < out->limits[out->binding].left)
				out->binding = (ssize_t)out->nr;
			out->nr++;
		}
	}
	free(chain);
	return 0;
}

int vc_fact_qgroup_binding(struct vc_fs *fs, const struct btrfs_qgroup_list *list, u64 qgroupid,
			   struct vc_qgroup_limit *b)
{
	struct vc_qgroup_limits ls;
	int ret = vc_fact_qgroup_limits(fs, list, qgroupid, &ls);

	if (!ret && ls.binding >= 0) {
		*b = ls.limits[ls.binding];
		ret = 1;
	}
	free(ls.limits);
	return ret;
}
