/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a subvolume write is to do, worked out from the facts
 * (common/backend/facts.h) before it writes: which nested subvolumes
 * `subvolume delete -R` deletes first and the paths it names them by, the
 * path a delete by id prints, and the snapshots `subvolume prune` weighs
 * with the reason any of them may never go.  Quiet: 0 or a negative errno,
 * the printing is the command's.
 */
#ifndef VOLCTL_COMMON_SUBVOL_PLAN_H
#define VOLCTL_COMMON_SUBVOL_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include "common/backend/backend.h"
#include "kernel-shared/subvol-list.h"

/*
 * vc_nested_below - the subvolumes of @l nested below subvolume @top
 * (@top not counted), deepest path first: the order -R deletes them in.
 * *@out: an array of *@nr entries of @l (free() it; valid while @l is).
 * Return: 0, or -ENOMEM.
 */
int vc_nested_below(const struct btrfs_subvol_list *l, u64 top, const struct btrfs_subvol ***out,
		    size_t *nr);

/* One subvolume -R deletes before its top: its id, its path through the argument */
struct vc_nested {
	u64 id;
	char *path;
};

/*
 * vc_nested_plan - delete -R of subvolume @top, given as path @arg: the
 * subvolumes nested below it, deepest first, each with @arg joined with
 * its path below @top.  None when @top cannot be reached from the top
 * level.  Release *@out with vc_nested_release().  Return: 0, or -ENOMEM.
 */
int vc_nested_plan(const struct btrfs_subvol_list *l, u64 top, const char *arg,
		   struct vc_nested **out, size_t *nr);
void vc_nested_release(struct vc_nested *n, size_t nr);

/*
 * vc_subvol_shown_path - the path delete by id names subvolume @id by:
 * through @arg (in subvolume @arg_subvol; @arg_is_dir: a directory, else
 * its directory) when @id lies below @arg's subvolume or @arg is in the top
 * level; otherwise, as btrfs-progs prints it, @arg joined with its path
 * from the top level.  NULL when it has no path (or out of memory): the id
 * is enough.  malloc'ed.
 */
char *vc_subvol_shown_path(const struct btrfs_subvol_list *l, u64 arg_subvol, bool arg_is_dir,
			   const char *arg, u64 id);

/*
 * vc_dir_path_from_top - the path from the top level of directory @ino of
 * subvolume @subvolid (@l: the subvolumes of @fs), malloc'ed into *@path.
 * Return: 0; 1 when the subvolume cannot be reached from the top level; or
 * a negative errno of the inode's path.
 */
int vc_dir_path_from_top(struct vc_fs *fs, const struct btrfs_subvol_list *l, u64 subvolid,
			 u64 ino, char **path);

/* A snapshot prune weighs: the entry of the list, why it may never go (NULL: it may) */
struct vc_prune_cand {
	const struct btrfs_subvol *sv;
	const char *protect;		/* "default subvolume", "mounted" */
};

/*
 * vc_prune_candidates - the snapshots of @src in @l (not deleted, not @src
 * itself, in id order) whose path lies below @dir_path (NULL: anywhere;
 * "": the top level and below), each with the reason it may never go: the
 * default subvolume, or mounted.  *@mounts_unknown: the mount table could
 * not be read (mounted snapshots are then left to the kernel).  *@out: an
 * array of *@nr (free() it).  Return: 0, or -ENOMEM.
 */
int vc_prune_candidates(struct vc_fs *fs, const struct btrfs_subvol_list *l,
			const struct btrfs_subvol *src, const char *dir_path,
			struct vc_prune_cand **out, size_t *nr, bool *mounts_unknown);

#endif
