/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one offline path resolver, used by the readers (common/backend/offline.c) and
 * the writers (subvol-create.c, dir-create.c, snapshot and mkfs paths).
 *
 * Path rule (Documentation/volctl.8, "PATHS"): a path names a place in the
 * image, "/" being the top-level subvolume's root directory.  Empty
 * components ("//", a trailing "/") and "." are skipped; ".." goes back to
 * the directory the walk came from (the VFS rule when no symlink is on the
 * way) and at the top stays there, as the VFS does at "/"; a "/" (and so
 * any component, "." included) after a non-directory fails with -ENOTDIR (a symlink is not followed: its
 * target may be absolute, and the mount point is unknown offline); a
 * component longer than 255 bytes fails with -ENAMETOOLONG; more than 256
 * levels with -ELOOP.
 */
#ifndef VOLCTL_KERNEL_SHARED_PATH_WALK_H
#define VOLCTL_KERNEL_SHARED_PATH_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include "format.h"

struct btrfs_path_pos {
	u64 root;
	u64 ino;
	bool is_dir;
};

/*
 * Look up @name (@len bytes) in directory @dir and fill @next; negative
 * errno (-ENOENT: no such entry) stops the walk and is returned.
 */
typedef int (*btrfs_path_lookup_fn)(void *priv, const struct btrfs_path_pos *dir,
				    const char *name, size_t len, struct btrfs_path_pos *next);

#define BTRFS_PATH_MAX_DEPTH	256

/*
 * btrfs_resolve_path - walk @path (@len bytes) from the top-level root
 * directory by the rule above, looking each component up with @lookup.
 * On success *@out is the place reached; on failure *@end (if not NULL) is
 * the offset just past the component that failed.
 */
int btrfs_resolve_path(const char *path, size_t len, btrfs_path_lookup_fn lookup, void *priv,
		       struct btrfs_path_pos *out, size_t *end);

#endif /* VOLCTL_KERNEL_SHARED_PATH_WALK_H */
