// SPDX-License-Identifier: GPL-2.0-only
/*
 * The offline backend: the reader in kernel-shared/ on an unmounted image.
 *
 * Opening: the image handle (common/image/image.h) opens every --image once,
 * read-only or, for a write command, claimed for writing, with the members
 * not given found by libblkid; --super N forces a superblock copy.  The
 * backend then works on that one open filesystem until it is closed.
 *
 * Paths: a path names a file inside the filesystem, starting at the
 * top-level subvolume ("/" is tree 5).  It is resolved one component at a
 * time through DIR_ITEMs (key offset = name hash) of the directory's tree;
 * an entry whose location is a ROOT_ITEM key enters that subvolume at its
 * root directory (inode 256).  ".." walks back up the components seen.
 *
 * Errors: a one-line message in fs->base.err naming the image and the
 * object, e.g. "disk.img: tree block 30425088: checksum mismatch".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "common/backend/backend.h"
#include "common/util/config.h"
#include "common/util/messages.h"
#include "common/image/image.h"
#include "common/image/offline-walk.h"
#include "common/backend/offline-write-subvol.h"
#include "common/backend/offline-write-qgroup.h"
#include "kernel-shared/subvol-diff.h"
#include "kernel-shared/send-size.h"
#include "kernel-shared/csum.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/fs.h"
#include "kernel-shared/items.h"
#include "kernel-shared/path-walk.h"

struct vc_fs {
	struct vc_fs_base base;
	struct vc_image img;		/* common/image/image.h: the one open of the image */
};

/* The filesystem, when the image was opened for writing */
static struct btrfs_fs *writer_fs(const struct vc_fs *fs)
{
	return fs->img.mode == VC_IMAGE_WRITE ? fs->img.bfs : NULL;
}

/* The accounting engine reads the image the backend already has open. */
int offline_acct_open(struct vc_fs *fs, struct vc_acct_src *src)
{
	src->bfs = fs->img.bfs;
	src->live = false;	/* nothing changes under an unmounted image */
	src->priv = NULL;
	return src->bfs ? 0 : -EBADF;
}

void offline_acct_close(struct vc_fs *fs, struct vc_acct_src *src)
{
	src->bfs = NULL;
}

/* ------------------------------------------------------------------ */
/* Read side                                                           */
/* ------------------------------------------------------------------ */

static int offline_tree_search(struct vc_fs *fs, u64 tree_id, const struct btrfs_key *min,
			       const struct btrfs_key *max, btrfs_item_cb cb, void *priv)
{
	struct btrfs_item_source src = btrfs_fs_item_source(fs->img.bfs);
	int ret;

	btrfs_fs_clear_error(fs->img.bfs);
	ret = btrfs_item_source_search(&src, tree_id, min, max, cb, priv);
	if (ret < 0 && ret != -ENOENT) {
		vc_image_set_error(&fs->img, ret);
		vc_fs_set_error(fs, "%s", fs->img.err);
	}
	return ret;
}

struct dir_lookup {
	const char *name;
	size_t name_len;
	bool found;
	struct btrfs_dir_item_rec rec;
};

static int dir_lookup_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct dir_lookup *dl = priv;
	u32 pos = 0;
	int ret;

	while ((ret = btrfs_dir_item_next(data, len, &pos, &dl->rec)) == 0) {
		if (dl->rec.name_len == dl->name_len &&
		    !memcmp(dl->rec.name, dl->name, dl->name_len)) {
			dl->found = true;
			return 1;
		}
	}
	return ret < 0 ? ret : 0;
}

/* Where a path component stands: a tree and an inode in it. */
struct path_pos {
	u64 tree;
	u64 ino;
	bool is_dir;
};

/* Look @name up in directory @dir; fills @next. */
static int lookup_component(struct vc_fs *fs, const struct path_pos *dir, const char *name,
			    size_t name_len, struct path_pos *next)
{
	struct dir_lookup dl = { .name = name, .name_len = name_len };
	struct btrfs_key key = {
		.objectid = dir->ino,
		.type = BTRFS_DIR_ITEM_KEY,
		.offset = btrfs_name_hash(name, name_len),
	};
	int ret;

	ret = offline_tree_search(fs, dir->tree, &key, &key, dir_lookup_cb, &dl);
	if (ret == -ENOENT)
		return -EUCLEAN;	/* the tree of a directory we entered vanished */
	if (ret < 0)
		return ret;
	if (!dl.found)
		return -ENOENT;
	if (dl.rec.location.type == BTRFS_ROOT_ITEM_KEY) {
		next->tree = dl.rec.location.objectid;
		next->ino = BTRFS_FIRST_FREE_OBJECTID;
		next->is_dir = true;
		return 0;
	}
	if (dl.rec.location.type != BTRFS_INODE_ITEM_KEY)
		return -EUCLEAN;
	next->tree = dir->tree;
	next->ino = dl.rec.location.objectid;
	next->is_dir = (dl.rec.type & ~BTRFS_FT_ENCRYPTED) == BTRFS_FT_DIR;
	return 0;
}

static int resolve_lookup(void *priv, const struct btrfs_path_pos *dir, const char *name,
			  size_t len, struct btrfs_path_pos *next)
{
	const struct path_pos d = { .tree = dir->root, .ino = dir->ino, .is_dir = dir->is_dir };
	struct path_pos n;
	int ret;

	ret = lookup_component(priv, &d, name, len, &n);
	if (ret)
		return ret;
	next->root = n.tree;
	next->ino = n.ino;
	next->is_dir = n.is_dir;
	return 0;
}

/* kernel-shared/path-walk.h: the one path rule of reads and writes */
static int resolve_path(struct vc_fs *fs, const char *path, struct path_pos *out)
{
	struct btrfs_path_pos pos;
	int ret;

	ret = btrfs_resolve_path(path, strlen(path), resolve_lookup, fs, &pos, NULL);
	if (ret)
		return ret;
	out->tree = pos.root;
	out->ino = pos.ino;
	out->is_dir = pos.is_dir;
	return 0;
}

static int offline_path_info(struct vc_fs *fs, const char *path, struct vc_path_info *info)
{
	struct path_pos pos;
	int ret;

	memset(info, 0, sizeof(*info));
	vc_fs_clear_error(fs);
	ret = resolve_path(fs, path, &pos);
	if (ret) {
		if (!vc_fs_error(fs))
			vc_fs_set_error(fs, "%s: %s in %s", path, strerror(-ret), fs->img.name);
		return ret;
	}
	info->subvolid = pos.tree;
	info->ino = pos.ino;
	info->is_dir = pos.is_dir;
	info->is_subvol_root = pos.is_dir && pos.ino == BTRFS_FIRST_FREE_OBJECTID;
	return 0;
}

static int status_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	return btrfs_decode_qgroup_status(data, len, priv) ?: 1;
}

static int offline_rescan_status(struct vc_fs *fs, struct vc_rescan_status *st)
{
	struct btrfs_qgroup_status_rec rec = { 0 };
	struct btrfs_key key = { 0, BTRFS_QGROUP_STATUS_KEY, 0 };
	int ret;

	memset(st, 0, sizeof(*st));
	ret = offline_tree_search(fs, BTRFS_QUOTA_TREE_OBJECTID, &key, &key, status_cb, &rec);
	if (ret == -ENOENT)
		return 0;	/* like the ioctl: no quota tree, no rescan */
	if (ret < 0)
		return ret;
	if (rec.flags & BTRFS_QGROUP_STATUS_FLAG_RESCAN) {
		st->running = true;
		st->progress = rec.rescan;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Open, close                                                         */
/* ------------------------------------------------------------------ */

static int offline_open(struct vc_fs **fsp, const struct vc_config *cfg, const char *path,
			bool writable)
{
	struct vc_path_info info;
	struct vc_fs *fs;
	int ret;

	*fsp = NULL;
	fs = calloc(1, sizeof(*fs));
	if (!fs)
		return -ENOMEM;
	fs->base.ops = &vc_offline_ops;
	fs->base.cfg = cfg;
	/* On failure the fs is still handed back, carrying the message. */
	*fsp = fs;
	ret = vc_image_open(&fs->img, &(struct vc_image_args){
		.paths = cfg->images, .nr_paths = cfg->nr_images, .mirror = cfg->super_mirror,
		.mode = writable ? VC_IMAGE_WRITE : VC_IMAGE_READ, .wait_ms = cfg->lock_wait_ms });
	if (ret) {
		/* the image's messages name the object and the cause */
		vc_fs_set_error(fs, "%s", fs->img.err);
		vc_fs_set_error_whole(fs);
		return ret;
	}
	if (!writable)
		vc_image_warn(&fs->img);
	for (size_t i = fs->img.nr_given; i < fs->img.nr_devs; i++)
		pr_verbose(cfg, 1, "%s: using %s, another device of the filesystem",
			   fs->img.name, fs->img.devs[i]->name);
	if (path)
		return offline_path_info(fs, path, &info);
	return 0;
}

static void offline_close(struct vc_fs *fs)
{
	if (!fs)
		return;
	vc_image_close(&fs->img);
	free(fs);
}

/* ------------------------------------------------------------------ */
/* Write side: each op needs the image opened writable (open(..., true)) */
/* ------------------------------------------------------------------ */

/* A command that opened the image read-only asked for a change: a bug */
static int not_writable(struct vc_fs *fs)
{
	vc_fs_set_error(fs, "%s: opened read-only, cannot change it", fs->img.name);
	return -EROFS;
}

static int offline_subvol_create(struct vc_fs *fs, const char *path, bool parents,
				 const struct vc_inherit *inh)
{
	if (!writer_fs(fs))
		return not_writable(fs);
	return vc_offline_subvol_create(writer_fs(fs), path, parents, inh, fs->base.err,
					sizeof(fs->base.err));
}

static int offline_subvol_create_all(struct vc_fs *fs, const char *const *paths, size_t nr,
				     const struct vc_inherit *inh)
{
	if (!writer_fs(fs))
		return not_writable(fs);
	return vc_offline_subvol_create_all(writer_fs(fs), paths, nr, inh, fs->base.err,
					    sizeof(fs->base.err));
}

static int offline_snapshot(struct vc_fs *fs, const char *src, const char *dst, bool readonly,
			    const struct vc_inherit *inh)
{
	if (!writer_fs(fs))
		return not_writable(fs);
	return vc_offline_snapshot(writer_fs(fs), src, dst, readonly, inh, fs->base.err,
				   sizeof(fs->base.err));
}

static int offline_subvol_diff(struct vc_fs *fs, u64 old, u64 new, struct btrfs_diff *d)
{
	struct btrfs_fs *bfs = fs->img.bfs;
	int ret;

	btrfs_fs_clear_error(bfs);
	ret = btrfs_subvol_diff(bfs, old, new, d);
	if (ret < 0 && bfs->errmsg[0])
		snprintf(fs->base.err, sizeof(fs->base.err), "%s", bfs->errmsg);
	return ret;
}

static int offline_send_size(struct vc_fs *fs, const struct vc_send_req *req,
			     struct btrfs_send_size *out)
{
	struct btrfs_fs *bfs = fs->img.bfs;
	int ret;

	btrfs_fs_clear_error(bfs);
	ret = vc_send_size_run(bfs, req, out);
	if (ret < 0 && bfs->errmsg[0])
		snprintf(fs->base.err, sizeof(fs->base.err), "%s", bfs->errmsg);
	return ret;
}

static int offline_subvol_delete(struct vc_fs *fs, const char *path, u64 subvolid)
{
	if (!writer_fs(fs))
		return not_writable(fs);
	return vc_offline_subvol_delete(writer_fs(fs), subvolid ? NULL : path, subvolid,
					fs->base.err, sizeof(fs->base.err));
}

static int offline_subvol_delete_all(struct vc_fs *fs, const u64 *ids, size_t nr,
				     struct vc_delete_status *st)
{
	int ret;

	if (!writer_fs(fs)) {
		ret = not_writable(fs);
		for (size_t i = 0; i < nr; i++) {
			st[i].err = ret;
			snprintf(st[i].msg, sizeof(st[i].msg), "%s", fs->base.err);
		}
		return ret;
	}
	return vc_offline_subvol_delete_all(writer_fs(fs), ids, nr, st, fs->base.err,
					    sizeof(fs->base.err));
}

/* set-default, quota and qgroup writes: common/backend/offline-write-qgroup.c */
static int offline_set_default(struct vc_fs *fs, u64 subvolid)
{
	if (!writer_fs(fs))
		return not_writable(fs);
	return vc_offline_set_default(writer_fs(fs), fs->img.name, subvolid, fs->base.err,
				      sizeof(fs->base.err));
}

static int offline_commit(struct vc_fs *fs, bool wait)
{
	/* every offline write is committed before it returns */
	return writer_fs(fs) ? 0 : not_writable(fs);
}

/* Paths inside the image start at its top level */
static char *offline_absolute_path(struct vc_fs *fs, const char *tl_path)
{
	char *out;

	if (!tl_path || asprintf(&out, "/%s", tl_path) < 0)
		return NULL;
	return out;
}

/* Nothing is ever dirty on an image between commands, read-only or not */
static int offline_sync(struct vc_fs *fs)
{
	return 0;
}

/* No cleaner runs on an image: volctl does its work at once */
static int offline_wait_cleaned(struct vc_fs *fs, u64 subvolid, int sleep_seconds)
{
	(void)sleep_seconds;
	if (!writer_fs(fs))
		return not_writable(fs);
	return vc_offline_subvol_clean(writer_fs(fs), subvolid, fs->base.err,
				       sizeof(fs->base.err));
}

static int offline_quota_ctl(struct vc_fs *fs, enum vc_quota_mode mode)
{
	if (!writer_fs(fs))
		return not_writable(fs);
	return vc_offline_quota_ctl(writer_fs(fs), fs->img.name, mode, fs->base.err,
				    sizeof(fs->base.err));
}

/* offline the rescan runs to its end inside rescan_start */
static int offline_rescan_start(struct vc_fs *fs)
{
	if (!writer_fs(fs))
		return not_writable(fs);
	return vc_offline_rescan(writer_fs(fs), fs->img.name, fs->base.err, sizeof(fs->base.err));
}

static int offline_rescan_wait(struct vc_fs *fs)
{
	if (!writer_fs(fs))
		return not_writable(fs);
	return vc_offline_quota_enabled(writer_fs(fs), fs->img.name, fs->base.err,
					sizeof(fs->base.err));
}

static int offline_qgroup_create(struct vc_fs *fs, u64 qgroupid)
{
	if (!writer_fs(fs))
		return not_writable(fs);
	return vc_offline_qgroup_create(writer_fs(fs), fs->img.name, qgroupid, fs->base.err,
					sizeof(fs->base.err));
}

static int offline_qgroup_destroy(struct vc_fs *fs, u64 qgroupid)
{
	if (!writer_fs(fs))
		return not_writable(fs);
	return vc_offline_qgroup_destroy(writer_fs(fs), fs->img.name, qgroupid, fs->base.err,
					 sizeof(fs->base.err));
}

static int offline_qgroup_assign(struct vc_fs *fs, u64 src, u64 dst, bool assign)
{
	if (!writer_fs(fs))
		return not_writable(fs);
	return vc_offline_qgroup_assign(writer_fs(fs), fs->img.name, src, dst, assign,
					fs->base.err, sizeof(fs->base.err));
}

static int offline_qgroup_limit(struct vc_fs *fs, u64 qgroupid, u64 flags, u64 max_rfer,
				u64 max_excl)
{
	if (!writer_fs(fs))
		return not_writable(fs);
	return vc_offline_qgroup_limit(writer_fs(fs), fs->img.name, qgroupid, flags, max_rfer,
				       max_excl, fs->base.err, sizeof(fs->base.err));
}

static int offline_limit_refusal(struct vc_fs *fs, struct vc_limit_refusal *r)
{
	struct btrfs_fs *bfs = writer_fs(fs);
	const struct btrfs_limit_refusal *lr = bfs ? btrfs_fs_limit_refusal(bfs) : NULL;

	if (!lr)
		return -ENOENT;
	*r = (struct vc_limit_refusal){
		.qgroupid = lr->qgroupid,
		.limit = lr->limit,
		.over = lr->over,
		.exclusive = lr->exclusive,
	};
	return 0;
}

static int offline_block_sizes(struct vc_fs *fs, u32 *sectorsize, u32 *nodesize)
{
	*sectorsize = fs->img.bfs->sectorsize;
	*nodesize = fs->img.bfs->nodesize;
	return 0;
}

static int offline_super_features(struct vc_fs *fs, u64 *incompat, u64 *generation)
{
	*incompat = btrfs_super_incompat_flags(&fs->img.bfs->super);
	*generation = fs->img.bfs->generation;
	return 0;
}

const struct vc_backend_ops vc_offline_ops = {
	.name = "offline",
	.open = offline_open,
	.close = offline_close,
	.tree_search = offline_tree_search,
	.path_info = offline_path_info,
	.rescan_status = offline_rescan_status,
	.subvol_create = offline_subvol_create,
	.subvol_create_all = offline_subvol_create_all,
	.snapshot = offline_snapshot,
	.subvol_diff = offline_subvol_diff,
	.send_size = offline_send_size,
	.subvol_delete = offline_subvol_delete,
	.subvol_delete_all = offline_subvol_delete_all,
	.set_default = offline_set_default,
	.absolute_path = offline_absolute_path,
	.commit = offline_commit,
	.sync = offline_sync,
	.wait_cleaned = offline_wait_cleaned,
	.quota_ctl = offline_quota_ctl,
	.rescan_start = offline_rescan_start,
	.rescan_wait = offline_rescan_wait,
	.qgroup_create = offline_qgroup_create,
	.qgroup_destroy = offline_qgroup_destroy,
	.qgroup_assign = offline_qgroup_assign,
	.qgroup_limit = offline_qgroup_limit,
	.block_sizes = offline_block_sizes,
	.super_features = offline_super_features,
	.limit_refusal = offline_limit_refusal,
	.acct_open = offline_acct_open, .acct_close = offline_acct_close,
};
