// SPDX-License-Identifier: GPL-2.0-only
/*
 * Simple quotas in the offline writer (see squota.h): which mode the quota
 * tree is in, and which extents are charged.
 */
#include <errno.h>
#include "fs.h"
#include "ctree.h"
#include "items.h"
#include "qgroup-list.h"
#include "transaction.h"
#include "squota.h"

/* The STATUS item the kernel would stumble over at mount: refuse to write */
static int status_refuse(struct btrfs_fs *fs, const struct btrfs_qgroup_status_rec *st)
{
	struct btrfs_qstatus_super sb = {
		.incompat = btrfs_super_incompat_flags(&fs->super),
		.generation = fs->generation,
	};
	unsigned int faults = btrfs_qgroup_status_faults(st, &sb);
	const char *name = "image";
	char why[400];

	if (!faults)
		return 0;
	for (size_t i = fs->nr_devices; i-- > 0;)
		if (fs->devices[i]->io)
			name = fs->devices[i]->io->name;	/* the lowest devid opened */
	btrfs_qgroup_status_reason(faults, st, &sb, why, sizeof(why));
	btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_DEVICE, "%s: quota status item: %s: the kernel "
			       "may hang or refuse mounting this filesystem, nothing written "
			       "(see 'volctl check')", name, why);
	return -EUCLEAN;
}

/* The STATUS item of the quota tree into @st, refused when the kernel would stumble; 1: none */
static int status_read(struct btrfs_fs *fs, struct btrfs_qgroup_status_rec *st)
{
	struct btrfs_key key = { 0, BTRFS_QGROUP_STATUS_KEY, 0 };
	struct btrfs_qgroup_status_item item;
	struct btrfs_root *quota;
	u32 len;
	int ret;

	ret = btrfs_read_root(fs, BTRFS_QUOTA_TREE_OBJECTID, &quota);
	if (ret == -ENOENT)
		return 1;
	if (ret < 0)
		return ret;
	ret = btrfs_lookup_item(quota, &key, &item, sizeof(item), &len);
	if (ret == -ENOENT)
		return 1;	/* no STATUS: the qgroup code reports it when asked */
	if (ret < 0)
		return ret;
	ret = btrfs_decode_qgroup_status(&item, len < sizeof(item) ? len : (u32)sizeof(item), st);
	if (ret < 0) {
		btrfs_fs_set_error(fs, "quota tree: status item of %u bytes, shorter than %u",
				   (unsigned int)len, (unsigned int)BTRFS_QGROUP_STATUS_ITEM_V1_SIZE);
		return ret;
	}
	st->size = len;
	return status_refuse(fs, st);
}

int btrfs_squota_check(struct btrfs_fs *fs)
{
	struct btrfs_qgroup_status_rec st;
	int ret = status_read(fs, &st);

	return ret < 0 ? ret : 0;
}

int btrfs_squota_load(struct btrfs_trans_handle *trans)
{
	struct btrfs_qgroup_status_rec st;
	int ret;

	trans->squota = false;
	trans->squota_enable_gen = 0;
	/* every offline write starts here: none goes on from a STATUS the kernel chokes on */
	ret = status_read(trans->fs, &st);
	if (ret == 1)
		return 0;
	if (ret < 0 || !(st.flags & BTRFS_QGROUP_STATUS_FLAG_SIMPLE_MODE))
		return ret;
	trans->squota = true;
	trans->squota_enable_gen = st.enable_gen;
	return 0;
}

bool btrfs_squota_counts(const struct btrfs_trans_handle *trans, u64 generation)
{
	return trans->squota && generation >= trans->squota_enable_gen;
}
