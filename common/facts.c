// SPDX-License-Identifier: GPL-2.0-only
/*
 * The facts API (common/facts.h): answers for both backends, read through
 * the backend's item source with the parsers of kernel-shared/.
 */
#include "common/facts.h"

bool vc_uuid_is_zero(const u8 *u)
{
	for (int i = 0; i < BTRFS_UUID_SIZE; i++)
		if (u[i])
			return false;
	return true;
}

int vc_facts_subvols(struct vc_fs *fs, struct btrfs_subvol_list *l)
{
	struct btrfs_item_source src = vc_fs_item_source(fs);

	return btrfs_subvol_list_load(&src, l);
}

bool vc_subvol_below(const struct btrfs_subvol_list *l, const struct btrfs_subvol *s, u64 top)
{
	size_t depth = 0;

	/* depth bounds a parent loop in a corrupt image */
	while (s && s->id != BTRFS_FS_TREE_OBJECTID && !s->deleted && depth++ <= l->nr) {
		if (s->parent_id == top)
			return true;
		s = btrfs_subvol_list_find(l, s->parent_id);
	}
	return false;
}
