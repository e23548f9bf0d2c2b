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
#include "common/backend/backend.h"
#include "kernel-shared/subvol-list.h"

/* Whether the 16 bytes of @u are all zero (no uuid: e.g. not a snapshot) */
bool vc_uuid_is_zero(const u8 *u);

/* The subvolumes of @fs into @l (free with btrfs_subvol_list_free()) */
int vc_facts_subvols(struct vc_fs *fs, struct btrfs_subvol_list *l);

/* Whether subvolume @s of @l lies below subvolume @top (not counting @s itself) */
bool vc_subvol_below(const struct btrfs_subvol_list *l, const struct btrfs_subvol *s, u64 top);

/*
 * The snapshots of subvolume @s of @l: the entries of @l whose parent_uuid
 * is @s's uuid, in id order (the order of @l); none when @s has no uuid.
 * @flags leave out more (VC_SNAPS_NO_*).  *@out: an array of *@nr entries
 * of @l (free() it; valid while @l is); 0 or -ENOMEM.
 */
#define VC_SNAPS_NO_SELF	0x1	/* @s itself (parent_uuid == uuid: corrupt) */
#define VC_SNAPS_NO_DELETED	0x2	/* deleted, waiting for the cleaner */
#define VC_SNAPS_NO_UNREACHABLE	0x4	/* without a path from the top level */
int vc_fact_snapshots_of(const struct btrfs_subvol_list *l, const struct btrfs_subvol *s,
			 unsigned int flags, const struct btrfs_subvol ***out, size_t *nr);

/*
 * The same rule asked the other way round, for every subvolume at once:
 * origin[i] is the index in @live of the subvolume whose uuid is the
 * parent uuid of live[i] (never i itself), or BTRFS_ACCT_NO_ORIGIN; @live
 * as the caller filtered it (subvolume space: no deleted ones).  One
 * vc_fact_snapshots_of() call per subvolume would scan the list n times.
 * Return: 0 or -ENOMEM.
 */
int vc_fact_snapshot_origins(const struct btrfs_subvol *const *live, size_t n, size_t *origin);

/* The id of the default subvolume */
int vc_fact_default_subvol(struct vc_fs *fs, u64 *id);

/* The path of inode @ino of subvolume @tree, from the subvolume's root (free it) */
int vc_fact_inode_path(struct vc_fs *fs, u64 tree, u64 ino, char **path);

/* Whether qgroup @qgroupid exists; -ENOENT: quotas are disabled (no quota tree) */
int vc_fact_qgroup_present(struct vc_fs *fs, u64 qgroupid, bool *present);

/* The INFO and LIMIT items of level-0 qgroup @id (subvolume @id's qgroup) */
struct vc_qgroup_fact {
	bool info, limit;		/* which items exist */
	struct btrfs_qgroup_info_rec i;
	struct btrfs_qgroup_limit_rec l;
};
/* -ENOENT: quotas are disabled (no quota tree) */
int vc_fact_subvol_qgroup(struct vc_fs *fs, u64 id, struct vc_qgroup_fact *q);

/*
 * The highest subvolume id in use: with a ROOT_ITEM or queued for cleaning
 * (an ORPHAN item); 0 when there is none above the top level
 */
int vc_fact_highest_subvol_id(struct vc_fs *fs, u64 *highest);

/* @cb for every subvolume id queued for cleaning (deleted, not yet cleaned) */
int vc_fact_deleted_subvols(struct vc_fs *fs, int (*cb)(void *priv, u64 id), void *priv);

#endif
