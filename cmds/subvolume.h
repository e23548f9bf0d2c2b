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
#define SV_OP_CALL(ctx, op, ...) ((ctx)->ops->op ? (ctx)->ops->op(__VA_ARGS__) : -EOPNOTSUPP)

/* Print the backend's detailed message for @ret, or "@what: strerror". */
void sv_report(const struct vc_ctx *ctx, struct vc_fs *fs, int ret, const char *what);
/* Open the filesystem holding @path; prints the error. */
int sv_fs_open(const struct vc_ctx *ctx, const char *path, bool writable, struct vc_fs **fsp);
void sv_fs_close(const struct vc_ctx *ctx, struct vc_fs *fs);
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

/* cmds/subvolume-list.c */
extern const struct cmd_struct subvolume_cmd_list;
extern const struct cmd_struct subvolume_cmd_show;
extern const struct cmd_struct subvolume_cmd_get_default;

#endif
