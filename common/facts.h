/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Facts about a filesystem that commands ask for instead of building keys.
 * Both backends answer them: each reads through vc_fs_item_source() (online
 * TREE_SEARCH_V2, offline the image's own B-trees) and the same parsers of
 * kernel-shared/subvol-list.c decode the items, so a command never knows
 * which backend answered.  Quiet: every call returns 0 or a negative errno
 * and leaves printing to the caller (vc_fs_error() may say more).
 */
#ifndef VOLCTL_COMMON_FACTS_H
#define VOLCTL_COMMON_FACTS_H

#include <stdbool.h>
#include "common/backend.h"
#include "kernel-shared/subvol-list.h"

/* Whether the 16 bytes of @u are all zero (no uuid: e.g. not a snapshot) */
bool vc_uuid_is_zero(const u8 *u);

/* The subvolumes of @fs into @l (free with btrfs_subvol_list_free()) */
int vc_facts_subvols(struct vc_fs *fs, struct btrfs_subvol_list *l);

/* Whether subvolume @s of @l lies below subvolume @top (not counting @s itself) */
bool vc_subvol_below(const struct btrfs_subvol_list *l, const struct btrfs_subvol *s, u64 top);

#endif
