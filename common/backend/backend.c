// SPDX-License-Identifier: GPL-2.0-only
/* Backend-independent helpers: detailed error text and the item-source view. */
#include <stdarg.h>
#include <stdio.h>
#include "common/backend/backend.h"
#include "kernel-shared/send-size.h"
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

int vc_send_size_run(struct btrfs_fs *bfs, const struct vc_send_req *req, struct btrfs_send_size *out)
{
	u64 parent = req->parent;
	int ret;

	if (!parent && !req->nr_clones)
		return btrfs_send_size(bfs, req->subvolid, out);
	if (!parent) {
		/* btrfs send -c without -p: it picks the parent among the clone sources */
		ret = btrfs_send_pick_parent(bfs, req->subvolid, req->clones, req->nr_clones,
					     &parent);
		if (ret < 0)
			return ret;
	}
	ret = btrfs_send_size_from(bfs, req->subvolid, parent, req->clones, req->nr_clones, out);
	if (ret < 0)
		return ret;
	out->parent = parent;
	ret = btrfs_send_related(bfs, req->subvolid, parent);
	if (ret < 0)
		return ret;
	out->unrelated = !ret;
	return 0;
}
