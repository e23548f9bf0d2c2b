// SPDX-License-Identifier: GPL-2.0-only
/*
 * Running the accounting engine through the backend's accounting source,
 * with one retry for a live filesystem (see common/backend/acct-run.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/backend/acct-run.h"
#include "kernel-shared/qgroup-list.h"
#include "kernel-shared/accounting.h"
#include "kernel-shared/acct-family.h"
#include "kernel-shared/acct-split.h"
#include "kernel-shared/fs.h"
#include "kernel-shared/volumes.h"

static int run_once(const struct vc_backend_ops *ops, struct vc_fs *fs,
		    const struct btrfs_acct_options *opts, struct vc_acct_result *res)
{
	int ret;

	vc_fs_clear_error(fs);
	ret = ops->acct_open(fs, &res->src);
	if (ret) {
		snprintf(res->cause, sizeof(res->cause), "%s",
			 vc_fs_error(fs) ? vc_fs_error(fs) : strerror(-ret));
		snprintf(res->err, sizeof(res->err), "%s", res->cause);
		return ret;
	}
	res->live = res->src.live;
	btrfs_fs_clear_error(res->src.bfs);
	ret = btrfs_acct_run(res->src.bfs, opts, &res->acct);
	if (ret) {
		const char *msg = btrfs_fs_error(res->src.bfs);

		snprintf(res->cause, sizeof(res->cause), "%s", msg && msg[0] ? msg : strerror(-ret));
		snprintf(res->err, sizeof(res->err), "accounting failed: %s", res->cause);
		res->acct = NULL;
		ops->acct_close(fs, &res->src);
	}
	return ret;
}

int vc_acct_compute(const struct vc_backend_ops *ops, struct vc_fs *fs, bool simple,
		    u64 enable_gen, struct vc_acct_result *res)
{
	struct btrfs_acct_options opts = {
		.simple = simple,
		.enable_gen = simple ? enable_gen : 0,
	};
	char first[sizeof(res->cause)];
	int ret;

	memset(res, 0, sizeof(*res));
	if (!ops->acct_open) {
		snprintf(res->err, sizeof(res->err), "computing numbers: not implemented");
		return -EOPNOTSUPP;
	}
	ret = run_once(ops, fs, &opts, res);
	if (!ret || !res->live || (ret != -EUCLEAN && ret != -EIO))
		return ret;
	/* the kernel rewrote a block while we read: commit and read once more */
	memcpy(first, res->cause, sizeof(first));
	res->retried = true;
	ret = run_once(ops, fs, &opts, res);
	if (ret && (ret == -EUCLEAN || ret == -EIO))
		snprintf(res->err, sizeof(res->err),
			 "the filesystem changed while it was read, twice (first: %.200s; "
			 "then: %.200s)", first, res->cause);
	return ret;
}

void vc_acct_release(const struct vc_backend_ops *ops, struct vc_fs *fs,
		     struct vc_acct_result *res)
{
	if (res->acct)
		btrfs_acct_free(res->acct);
	res->acct = NULL;
	if (res->src.bfs && ops->acct_close)
		ops->acct_close(fs, &res->src);
}

void vc_acct_delete_split(const struct vc_acct_result *res, const u64 *ids, size_t n,
			  struct btrfs_acct_counts *alone, struct vc_acct_delete *set)
{
	struct btrfs_acct_counts meta;

	for (size_t i = 0; i < n; i++)
		btrfs_acct_subvols(res->acct, &ids[i], 1, &alone[i]);
	btrfs_acct_subvols(res->acct, ids, n, &set->all);
	btrfs_acct_subvols_meta(res->acct, ids, n, &meta);
	set->meta = meta.excl;
	set->data = set->all.excl - meta.excl;
	set->copies = vc_acct_metadata_profile(res, &set->profile);
	set->data_copies = vc_acct_profile(res, BTRFS_BLOCK_GROUP_DATA, &set->data_profile);
	set->raw = (u64)set->data_copies * set->data + (u64)set->copies * set->meta;
}

int vc_acct_metadata_profile(const struct vc_acct_result *res, const char **profile)
{
	return vc_acct_profile(res, BTRFS_BLOCK_GROUP_METADATA, profile);
}

int vc_acct_profile(const struct vc_acct_result *res, u64 type, const char **profile)
{
	const struct btrfs_fs *bfs = res->src.bfs;

	*profile = "unknown";
	for (size_t i = 0; bfs && i < bfs->nr_chunks; i++) {
		const struct btrfs_chunk_map *map = bfs->chunks[i];
		int copies;

		if (!(map->type & type))
			continue;
		copies = btrfs_num_copies(bfs, map->start, bfs->nodesize);
		*profile = btrfs_profile_name(map->type);
		return copies > 0 ? copies : 1;
	}
	return 1;
}

int vc_acct_fill_qgroups(const struct vc_acct_result *res, struct btrfs_qgroup_list *list)
{
	struct btrfs_acct_counts *counts;
	int ret;

	counts = calloc(list->nr ? list->nr : 1, sizeof(*counts));
	if (!counts)
		return -ENOMEM;
	ret = btrfs_acct_qgroups(res->acct, list, counts);
	for (size_t i = 0; !ret && i < list->nr; i++) {
		struct btrfs_qgroup_info_rec *info = &list->groups[i].info;

		info->rfer = info->rfer_cmpr = counts[i].rfer;
		info->excl = info->excl_cmpr = counts[i].excl;
	}
	free(counts);
	return ret;
}

int vc_acct_subvol_qgroups(const struct vc_acct_result *res,
			   const struct btrfs_subvol_list *subvols, struct btrfs_qgroup_list *list)
{
	memset(list, 0, sizeof(*list));
	list->groups = calloc(subvols->nr ? subvols->nr : 1, sizeof(*list->groups));
	if (!list->groups)
		return -ENOMEM;
	for (size_t i = 0; i < subvols->nr; i++) {
		const struct btrfs_subvol *sv = &subvols->subvols[i];
		struct btrfs_qgroup *qg = &list->groups[list->nr];

		if (sv->deleted)
			continue;
		qg->qgroupid = sv->id;		/* level 0 */
		qg->has_info = true;
		list->nr++;
	}
	return vc_acct_fill_qgroups(res, list);
}

int vc_acct_families(const struct vc_acct_result *res, const u64 *ids, const size_t *origin,
		     size_t n, struct btrfs_acct_family *out)
{
	return btrfs_acct_families(res->acct, ids, origin, n, out);
}
