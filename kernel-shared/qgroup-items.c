// SPDX-License-Identifier: GPL-2.0-only
/*
 * Quota tree item writers (see qgroup-items.h): the steps the commit's
 * qgroup recompute and the qgroup operations (qgroup-write.c) share.
 *
 * Quota tree items (on-disk-engine 9.1): STATUS (0, 240, 0), INFO
 * (0, 242, id), LIMIT (0, 244, id); every INFO written gets generation T.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "fs.h"
#include "ctree.h"
#include "ctree-write.h"
#include "transaction.h"
#include "qgroup-list.h"
#include "qgroup-items.h"

int btrfs_qgroup_quota_root(struct btrfs_trans_handle *trans, struct btrfs_root **root)
{
	int ret = btrfs_read_root(trans->fs, BTRFS_QUOTA_TREE_OBJECTID, root);

	if (ret == -ENOENT) {
		btrfs_fs_set_error(trans->fs, "quota is not enabled");
		return -ENOTCONN;
	}
	return ret;
}

int btrfs_qgroup_load_trans(struct btrfs_trans_handle *trans, struct btrfs_qgroup_list *list)
{
	struct btrfs_item_source src = btrfs_fs_item_source(trans->fs);
	int ret = btrfs_qgroup_list_load(&src, list);

	if (ret == -ENOENT) {
		btrfs_fs_set_error(trans->fs, "quota is not enabled");
		return -ENOTCONN;
	}
	return ret;
}

void btrfs_qgroup_info_fill(u8 *p, u64 transid, u64 rfer, u64 excl)
{
	memset(p, 0, BTRFS_QGROUP_ITEM_SIZE);
	put_le64(p, transid);
	put_le64(p + 8, rfer);
	put_le64(p + 16, rfer);
	put_le64(p + 24, excl);
	put_le64(p + 32, excl);
}

int btrfs_qgroup_write_info(struct btrfs_trans_handle *trans, struct btrfs_root *quota, u64 id,
			    u64 rfer, u64 excl)
{
	struct btrfs_key key = { 0, BTRFS_QGROUP_INFO_KEY, id };
	u8 info[BTRFS_QGROUP_ITEM_SIZE];

	btrfs_qgroup_info_fill(info, trans->transid, rfer, excl);
	return btrfs_update_item(trans, quota, &key, info, sizeof(info));
}

int btrfs_qgroup_update_status(struct btrfs_trans_handle *trans, struct btrfs_root *quota,
			       u64 clear, bool rescan_done)
{
	struct btrfs_key key = { 0, BTRFS_QGROUP_STATUS_KEY, 0 };
	struct btrfs_path path;
	u8 *p;
	u32 len;
	int ret;

	btrfs_path_init(&path);
	ret = btrfs_search_cow(trans, quota, &key, &path, 0);
	if (ret) {
		btrfs_path_release(&path);
		if (ret > 0)
			btrfs_fs_set_error(trans->fs, "quota tree: no status item");
		return ret < 0 ? ret : -EUCLEAN;
	}
	p = btrfs_path_item_ptr(&path, &len);
	if (len < 32) {
		btrfs_path_release(&path);
		return -EUCLEAN;
	}
	put_le64(p + 8, trans->transid);
	put_le64(p + 16, get_le64(p + 16) & ~clear);
	if (rescan_done)
		put_le64(p + 24, (u64)-1);
	btrfs_path_release(&path);
	return 0;
}

/* The deltas of the commit's block and extent accounting (see qgroup-items.h) */
int btrfs_qgroup_info_add(struct btrfs_trans_handle *trans, struct btrfs_root *quota, u64 qgid,
			  s64 delta)
{
	struct btrfs_key key = { 0, BTRFS_QGROUP_INFO_KEY, qgid };
	struct btrfs_path path;
	u8 *p;
	u32 len;
	int ret;

	btrfs_path_init(&path);
	ret = btrfs_search_cow(trans, quota, &key, &path, 0);
	if (ret) {
		btrfs_path_release(&path);
		return ret < 0 ? ret : 0;	/* no qgroup: nothing to count */
	}
	p = btrfs_path_item_ptr(&path, &len);
	if (len < BTRFS_QGROUP_ITEM_SIZE) {
		btrfs_path_release(&path);
		return -EUCLEAN;
	}
	put_le64(p, trans->transid);
	for (int off = 8; off < BTRFS_QGROUP_ITEM_SIZE; off += trans->squota ? 16 : 8)
		put_le64(p + off, get_le64(p + off) + (u64)delta);
	btrfs_path_release(&path);
	return 0;
}

/* The refusal of a limit (see qgroup-items.h) */
int btrfs_qgroup_limit_refused(struct btrfs_fs *fs, u64 qgroupid, bool exclusive, u64 limit,
			       u64 over, u64 reserve)
{
	char b[BTRFS_QGROUPID_BUFSIZE], why[128] = "";

	if (reserve)
		snprintf(why, sizeof(why), " (a new subvolume reserves %llu bytes in its parent, "
			 "as the kernel does)", (unsigned long long)reserve);
	btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_QGROUP,
			       "qgroup %s: %s limit %llu would be exceeded by %llu bytes%s",
			       btrfs_qgroupid_str(qgroupid, b), exclusive ? "exclusive" : "referenced",
			       (unsigned long long)limit, (unsigned long long)over, why);
	fs->refusal = (struct btrfs_limit_refusal){
		.qgroupid = qgroupid,
		.limit = limit,
		.over = over,
		.reserve = reserve,
		.exclusive = exclusive,
	};
	return -EDQUOT;
}

int btrfs_qgroup_check_limit(struct btrfs_fs *fs, const struct btrfs_qgroup *qg, u64 rfer,
			     u64 excl)
{
	const struct btrfs_qgroup_limit_rec *lim = &qg->limit;

	if ((lim->flags & BTRFS_QGROUP_LIMIT_MAX_RFER) && rfer > qg->info.rfer &&
	    rfer > lim->max_rfer)
		return btrfs_qgroup_limit_refused(fs, qg->qgroupid, false, lim->max_rfer,
						  rfer - lim->max_rfer, 0);
	if ((lim->flags & BTRFS_QGROUP_LIMIT_MAX_EXCL) && excl > qg->info.excl &&
	    excl > lim->max_excl)
		return btrfs_qgroup_limit_refused(fs, qg->qgroupid, true, lim->max_excl,
						  excl - lim->max_excl, 0);
	return 0;
}
