// SPDX-License-Identifier: GPL-2.0-only
/*
 * Simple quotas in the offline writer (see squota.h): which mode the quota
 * tree is in, and which extents are charged.
 */
#include <errno.h>
#include "fs.h"
#include "ctree.h"
#include "items.h"
#include "transaction.h"
#include "squota.h"

int btrfs_squota_load(struct btrfs_trans_handle *trans)
{
	struct btrfs_key key = { 0, BTRFS_QGROUP_STATUS_KEY, 0 };
	struct btrfs_qgroup_status_rec st;
	struct btrfs_qgroup_status_item item;
	struct btrfs_root *quota;
	u32 len;
	int ret;

	trans->squota = false;
	trans->squota_enable_gen = 0;
	ret = btrfs_read_root(trans->fs, BTRFS_QUOTA_TREE_OBJECTID, &quota);
	if (ret == -ENOENT)
		return 0;
	if (ret < 0)
		return ret;
	ret = btrfs_lookup_item(quota, &key, &item, sizeof(item), &len);
	if (ret == -ENOENT)
		return 0;	/* no STATUS: the qgroup code reports it when asked */
	if (ret < 0)
		return ret;
	ret = btrfs_decode_qgroup_status(&item, len < sizeof(item) ? len : (u32)sizeof(item), &st);
	if (ret < 0 || !(st.flags & BTRFS_QGROUP_STATUS_FLAG_SIMPLE_MODE))
		return ret;
	if (!st.has_enable_gen || st.enable_gen > trans->transid) {
		btrfs_fs_set_error(trans->fs, "quota tree: simple-quota status item without a valid "
				   "enable generation");
		return -EUCLEAN;
	}
	trans->squota = true;
	trans->squota_enable_gen = st.enable_gen;
	return 0;
}

bool btrfs_squota_counts(const struct btrfs_trans_handle *trans, u64 generation)
{
	return trans->squota && generation >= trans->squota_enable_gen;
}
