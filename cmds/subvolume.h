/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to the subvolume group: helpers shared by cmds/subvolume.c (the
 * writes: create, snapshot, delete, set-default, sync, and the group table)
 * and cmds/subvolume-list.c (the reads: list, show, get-default).
 * Every helper prints its own error; callers only count failures.
 */
#ifndef VOLCTL_CMDS_SUBVOLUME_H
#define VOLCTL_CMDS_SUBVOLUME_H

#include "cmds/commands.h"
#include "kernel-shared/subvol-list.h"

/* An op the backend has not implemented is the same as -EOPNOTSUPP. */

/* ->path_info with the error buffer cleared first; prints nothing */
int sv_path_info(const struct vc_ctx *ctx, struct vc_fs *fs, const char *path,
		 struct vc_path_info *info);
/* @path must be the root of a subvolume; prints the error. */
int sv_require_subvol(const struct vc_ctx *ctx, struct vc_fs *fs, const char *path,
		      struct vc_path_info *info);
/* btrfs_subvol_list_load() on @fs; prints the error. */
int sv_load_list(const struct vc_ctx *ctx, struct vc_fs *fs, struct btrfs_subvol_list *l);
/* Whether subvolume @s lies below subvolume @top (not counting @s itself). */
bool sv_subvol_below(const struct btrfs_subvol_list *l, const struct btrfs_subvol *s, u64 top);

/* cmds/subvolume-dryrun.c: delete --dry-run; returns a VC_EXIT_* code */
int sv_delete_dry_run(const struct vc_ctx *ctx, char **paths, int nr, const u64 *ids,
		      size_t nr_ids, bool recursive, unsigned int units);

struct vc_acct_delete;
/* cmds/subvolume-dryrun.c: the closing sentences; @done: "Freed", else "Would free" */
void sv_print_set_freed(const struct vc_acct_delete *set, size_t n, unsigned int units,
			bool done);

/* cmds/subvolume-prune.c */
extern const struct cmd_struct subvolume_cmd_prune;

/* cmds/subvolume-list.c */
extern const struct cmd_struct subvolume_cmd_list;
extern const struct cmd_struct subvolume_cmd_show;
extern const struct cmd_struct subvolume_cmd_get_default;

/* cmds/subvolume-space.c */
extern const struct cmd_struct subvolume_cmd_space;

#endif
