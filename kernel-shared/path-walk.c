// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include "path-walk.h"

int btrfs_resolve_path(const char *path, size_t len, btrfs_path_lookup_fn lookup, void *priv,
		       struct btrfs_path_pos *out, size_t *end)
{
	struct btrfs_path_pos *stack;
	size_t i = 0;
	int depth = 0, ret = 0;

	stack = calloc(BTRFS_PATH_MAX_DEPTH, sizeof(*stack));
	if (!stack)
		return -ENOMEM;
	stack[0].root = BTRFS_FS_TREE_OBJECTID;
	stack[0].ino = BTRFS_FIRST_FREE_OBJECTID;
	stack[0].is_dir = true;
	while (i < len) {
		size_t start;

		if (i < len && path[i] == '/' && !stack[depth].is_dir) {
			/* "/f/", "/f/.": a slash after a non-directory (the VFS rule) */
			ret = -ENOTDIR;
			break;
		}
		while (i < len && path[i] == '/')
			i++;
		if (i >= len)
			break;
		start = i;
		while (i < len && path[i] != '/')
			i++;
		if (i - start == 1 && path[start] == '.')
			continue;
		if (!stack[depth].is_dir) {
			ret = -ENOTDIR;
			break;
		}
		if (i - start == 2 && path[start] == '.' && path[start + 1] == '.') {
			if (depth > 0)
				depth--;
			continue;
		}
		if (i - start > BTRFS_NAME_LEN) {
			ret = -ENAMETOOLONG;
			break;
		}
		if (depth + 1 == BTRFS_PATH_MAX_DEPTH) {
			ret = -ELOOP;
			break;
		}
		ret = lookup(priv, &stack[depth], path + start, i - start, &stack[depth + 1]);
		if (ret)
			break;
		depth++;
	}
	if (!ret)
		*out = stack[depth];
	if (end)
		*end = i;
	free(stack);
	return ret;
}
