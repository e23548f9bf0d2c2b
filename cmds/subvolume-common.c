// SPDX-License-Identifier: GPL-2.0-only
/*
 * The helpers the subvolume commands share (cmds/subvolume.h): they print
 * the error of a path or a listing that failed.  In a file of their own so
 * that cmds/subvolume.c (the writes) and cmds/subvolume-dryrun.c (delete
 * --dry-run) both call down into it instead of into each other.
 */
#include <errno.h>
#include <stdio.h>
#include "cmds/subvolume.h"
#include "common/backend/facts.h"
#include "common/util/messages.h"

int sv_path_info(const struct vc_ctx *ctx, struct vc_fs *fs, const char *path,
		 struct vc_path_info *info)
{
	vc_fs_clear_error(fs);
	return CMD_OP(ctx, path_info, fs, path, info);
}

int sv_require_subvol(const struct vc_ctx *ctx, struct vc_fs *fs, const char *path,
		      struct vc_path_info *info)
{
	int ret = sv_path_info(ctx, fs, path, info);

	if (ret) {
		cmd_report(ctx, fs, ret, path);
		return ret;
	}
	if (!info->is_subvol_root) {
		error("%s: not a subvolume", path);
		return -EINVAL;
	}
	return 0;
}

int sv_load_list(const struct vc_ctx *ctx, struct vc_fs *fs, struct btrfs_subvol_list *l)
{
	int ret;

	vc_fs_clear_error(fs);
	ret = vc_facts_subvols(fs, l);
	if (ret == -EUCLEAN && !vc_fs_error(fs))
		error("cannot list subvolumes: corrupt root tree or directory references");
	else if (ret)
		cmd_report(ctx, fs, ret, "cannot list subvolumes");
	return ret;
}

int sv_report_gone(const struct vc_ctx *ctx, struct vc_fs *fs, char **paths,
		   const struct vc_path_info *was, int nr, int err)
{
	char saved[512];

	snprintf(saved, sizeof(saved), "%s", vc_fs_error(fs) ? vc_fs_error(fs) : "");
	for (int i = 0; i < nr; i++) {
		struct vc_path_info now;

		if (sv_path_info(ctx, fs, paths[i], &now) || !now.is_subvol_root ||
		    now.subvolid != was[i].subvolid) {
			error("%s: deleted while being read", paths[i]);
			return VC_EXIT_FAILURE;
		}
	}
	/* the path is back, another subvolume of the same id cannot be: the op's words */
	if (saved[0])
		error("%s", saved);
	else
		error_errno(err, "%s", paths[nr - 1]);
	return VC_EXIT_FAILURE;
}
