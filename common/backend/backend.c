// SPDX-License-Identifier: GPL-2.0-only
/* Backend-independent helpers: detailed error text and the item-source view. */
#include <stdarg.h>
#include <stdio.h>
#include "common/backend/backend.h"
#include "kernel-shared/subvol-diff.h"

static struct vc_fs_base *base_of(struct vc_fs *fs)
{
	return (struct vc_fs_base *)fs;
}

const char *vc_fs_error(struct vc_fs *fs)
{
	if (!fs || !base_of(fs)->err[0])
		return NULL;
	return base_of(fs)->err;
}

void vc_fs_set_error(struct vc_fs *fs, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(base_of(fs)->err, sizeof(base_of(fs)->err), fmt, ap);
	va_end(ap);
	base_of(fs)->err_whole = false;
}

void vc_fs_set_error_whole(struct vc_fs *fs)
{
	base_of(fs)->err_whole = true;
}

bool vc_fs_error_whole(struct vc_fs *fs)
{
	return fs && base_of(fs)->err[0] && base_of(fs)->err_whole;
}

void vc_fs_clear_error(struct vc_fs *fs)
{
	base_of(fs)->err[0] = '\0';
	base_of(fs)->err_whole = false;
}

static int fs_search(void *src_priv, u64 tree_id, const struct btrfs_key *min,
		     const struct btrfs_key *max, btrfs_item_cb cb, void *priv)
{
	struct vc_fs *fs = src_priv;

	return base_of(fs)->ops->tree_search(fs, tree_id, min, max, cb, priv);
}

struct btrfs_item_source vc_fs_item_source(struct vc_fs *fs)
{
	struct btrfs_item_source src = { .search = fs_search, .src_priv = fs };

	return src;
}

void vc_diff_release(struct btrfs_diff *d)
{
	btrfs_diff_release(d);
}
