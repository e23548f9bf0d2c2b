// SPDX-License-Identifier: GPL-2.0-only
/*
 * Offline subvolume writes (see offline-write-subvol.h): path resolution
 * on the image, then the kernel-shared/ change as one operation of the
 * transaction runner (common/image/offline-run.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "common/backend/backend.h"
#include "common/backend/offline-write-subvol.h"
#include "common/image/offline-run.h"
#include "common/util/clock.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/fs.h"
#include "kernel-shared/transaction.h"
#include "kernel-shared/dir-create.h"
#include "kernel-shared/subvol-create.h"
#include "kernel-shared/snapshot.h"
#include "kernel-shared/subvol-delete.h"

/* Length of @path without trailing slashes (but "/" stays) */
static size_t trimmed_len(const char *path)
{
	size_t len = strlen(path);

	while (len > 1 && path[len - 1] == '/')
		len--;
	return len;
}

/* Split @path into its parent directory (resolved unless @resolve is false) and name; fill @a */
static int create_args(struct btrfs_fs *fs, const char *path, const struct vc_inherit *inh,
		       const struct timespec *now, bool resolve, size_t *dlenp,
		       struct btrfs_subvol_create_args *a)
{
	size_t len = trimmed_len(path), dlen;

	memset(a, 0, sizeof(*a));
	if (inh) {
		a->inherit = inh->qgroups;
		a->nr_inherit = inh->nr;
	}
	dlen = len;
	while (dlen > 0 && path[dlen - 1] != '/')
		dlen--;
	a->name = path + dlen;
	a->name_len = len - dlen;
	a->now_sec = (u64)now->tv_sec;
	a->now_nsec = (u32)now->tv_nsec;
	a->uid = (u32)getuid();
	a->gid = (u32)getgid();
	*dlenp = dlen;
	return resolve ? btrfs_resolve_dir(fs, path, dlen, &a->parent_root, &a->parent_dir) : 0;
}

struct create_op {
	const char *path;
	bool parents;
	size_t dlen;
	struct btrfs_subvol_create_args a;
};

static int create_op(struct btrfs_trans_handle *trans, void *arg)
{
	struct create_op *c = arg;
	struct btrfs_mkdir_args ma = { 0 };
	mode_t mask;
	int ret;

	if (c->parents) {
		mask = umask(0);
		umask(mask);
		ma.mode = 0777 & ~(u32)mask;
		ma.uid = c->a.uid;
		ma.gid = c->a.gid;
		ma.now_sec = c->a.now_sec;
		ma.now_nsec = c->a.now_nsec;
		ret = btrfs_resolve_dir_create(trans, c->path, c->dlen, &ma, &c->a.parent_root,
					       &c->a.parent_dir);
		if (ret < 0)
			return ret;
	}
	return btrfs_subvol_create(trans, &c->a);
}

int vc_offline_subvol_create(struct btrfs_fs *fs, const char *path, bool parents,
			     const struct vc_inherit *inh, char *err, size_t errlen)
{
	struct create_op c = { .path = path, .parents = parents };
	struct timespec now;
	int ret;

	btrfs_fs_clear_error(fs);
	vc_clock_now(&now);
	ret = create_args(fs, path, inh, &now, !parents, &c.dlen, &c.a);
	if (ret < 0) {
		vc_offline_error(fs, VC_WRITE_PATH, path, ret, err, errlen);
		return ret;
	}
	return vc_offline_run(fs, VC_WRITE_PATH, path, 0, create_op, &c, err, errlen);
}

struct mkdir_op {
	const char *path;
	struct btrfs_mkdir_args ma;
};

static int mkdir_op(struct btrfs_trans_handle *trans, void *arg)
{
	struct mkdir_op *m = arg;
	u64 root, dir;

	return btrfs_resolve_dir_create(trans, m->path, trimmed_len(m->path), &m->ma, &root, &dir);
}

int vc_offline_mkdir_p(struct btrfs_fs *fs, const char *path, uint32_t mode, uint32_t uid,
		       uint32_t gid, char *err, size_t errlen)
{
	struct mkdir_op m = { .path = path };
	struct timespec now;
	u64 root, dir;

	btrfs_fs_clear_error(fs);
	if (!btrfs_resolve_dir(fs, path, trimmed_len(path), &root, &dir))
		return 0;	/* there already: nothing to write */
	vc_clock_now(&now);
	m.ma.mode = mode;
	m.ma.uid = uid;
	m.ma.gid = gid;
	m.ma.now_sec = (u64)now.tv_sec;
	m.ma.now_nsec = (u32)now.tv_nsec;
	return vc_offline_run(fs, VC_WRITE_PATH, path, 0, mkdir_op, &m, err, errlen);
}

struct create_all_op {
	const char *const *paths;
	size_t nr;
	const struct vc_inherit *inh;
	struct timespec now;
	size_t failed;			/* the path an error is about */
};

static int create_all_op(struct btrfs_trans_handle *trans, void *arg)
{
	struct create_all_op *c = arg;
	struct btrfs_subvol_create_args a;
	size_t dlen;
	int ret = 0;

	for (c->failed = 0; c->failed < c->nr; c->failed++) {
		if (c->failed && trans->quota_on)
			ret = btrfs_run_pending_all(trans);
		if (!ret)
			ret = create_args(trans->fs, c->paths[c->failed], c->inh, &c->now, true,
					  &dlen, &a);
		if (!ret)
			ret = btrfs_subvol_create(trans, &a);
		if (ret < 0)
			return ret;
	}
	c->failed = 0;			/* the commit's errors name the first */
	return 0;
}

int vc_offline_subvol_create_all(struct btrfs_fs *fs, const char *const *paths, size_t nr,
				 const struct vc_inherit *inh, char *err, size_t errlen)
{
	struct create_all_op c = { .paths = paths, .nr = nr, .inh = inh };
	int ret;

	vc_clock_now(&c.now);
	ret = btrfs_run_transaction(fs, 0, create_all_op, &c);
	if (ret < 0)
		vc_offline_error(fs, VC_WRITE_PATH, paths[c.failed < nr ? c.failed : 0], ret,
				 err, errlen);
	return ret;
}

struct snapshot_op {
	u64 src_root;
	bool readonly;
	struct btrfs_subvol_create_args a;
};

static int snapshot_op(struct btrfs_trans_handle *trans, void *arg)
{
	struct snapshot_op *o = arg;

	return btrfs_snapshot_create(trans, o->src_root, o->readonly, &o->a);
}

int vc_offline_snapshot(struct btrfs_fs *fs, const char *src, const char *dst, bool readonly,
			const struct vc_inherit *inh, char *err, size_t errlen)
{
	struct snapshot_op o = { .readonly = readonly };
	struct timespec now;
	size_t dlen;
	u64 src_dir;
	int ret;

	btrfs_fs_clear_error(fs);
	ret = btrfs_resolve_dir(fs, src, trimmed_len(src), &o.src_root, &src_dir);
	if (ret < 0) {
		vc_offline_error(fs, VC_WRITE_PATH, src, ret, err, errlen);
		return ret;
	}
	if (src_dir != BTRFS_FIRST_FREE_OBJECTID) {
		snprintf(err, errlen, "%s: not a subvolume", src);
		return -EINVAL;
	}
	vc_clock_now(&now);
	/* the snapshot's root directory is the source's: the owner is not used */
	ret = create_args(fs, dst, inh, &now, true, &dlen, &o.a);
	if (ret < 0) {
		vc_offline_error(fs, VC_WRITE_PATH, dst, ret, err, errlen);
		return ret;
	}
	return vc_offline_run(fs, VC_WRITE_PATH, dst, 0, snapshot_op, &o, err, errlen);
}

struct delete_op {
	u64 subvolid;
	struct timespec now;
};

static int delete_op(struct btrfs_trans_handle *trans, void *arg)
{
	const struct delete_op *d = arg;

	return btrfs_subvol_delete(trans, d->subvolid, (u64)d->now.tv_sec, (u32)d->now.tv_nsec,
				   NULL);
}

int vc_offline_subvol_delete(struct btrfs_fs *fs, const char *path, u64 subvolid, char *err,
			     size_t errlen)
{
	struct delete_op d = { .subvolid = subvolid };
	const char *what = path ? path : "subvolume";
	enum btrfs_delete_block why;
	u64 root, dir;
	int ret;

	btrfs_fs_clear_error(fs);
	if (!subvolid) {
		ret = btrfs_resolve_dir(fs, path, trimmed_len(path), &root, &dir);
		if (ret < 0) {
			vc_offline_error(fs, VC_WRITE_PATH, what, ret, err, errlen);
			return ret;
		}
		if (dir != BTRFS_FIRST_FREE_OBJECTID) {
			snprintf(err, errlen, "%s: not a subvolume", path);
			return -EINVAL;
		}
		d.subvolid = root;
		/* what the kernel refuses for an inode flag, named by the path given */
		ret = btrfs_subvol_delete_block(fs, root, &why);
		if (ret < 0) {
			vc_offline_error(fs, VC_WRITE_PATH, what, ret, err, errlen);
			return ret;
		}
		if (why != BTRFS_DELETE_ALLOWED) {
			snprintf(err, errlen, "%s: cannot delete: %s (chattr %s on a mount lifts it)",
				 path, btrfs_delete_block_str(why), btrfs_delete_block_chattr(why));
			return -EPERM;
		}
	}
	vc_clock_now(&d.now);
	/* delete is always allowed, even when it copies shared blocks of a full group */
	return vc_offline_run(fs, VC_WRITE_PATH, what, BTRFS_RUN_NO_QGROUP_LIMITS, delete_op, &d,
			      err, errlen);
}

static int clean_op(struct btrfs_trans_handle *trans, void *arg)
{
	/* 1: gone already, nothing to write */
	return btrfs_subvol_clean(trans, *(const u64 *)arg, NULL);
}

int vc_offline_subvol_clean(struct btrfs_fs *fs, u64 subvolid, char *err, size_t errlen)
{
	char what[32];
	int ret;

	snprintf(what, sizeof(what), "subvolume %llu", (unsigned long long)subvolid);
	/* like delete: freeing space is never refused by a limit */
	ret = vc_offline_run(fs, VC_WRITE_PATH, what, BTRFS_RUN_NO_QGROUP_LIMITS, clean_op,
			     &subvolid, err, errlen);
	return ret < 0 ? ret : 0;
}

struct delete_all_op {
	const u64 *ids;
	size_t nr;
	struct timespec now;
	size_t failed;			/* the subvolume an error is about */
};

static int delete_all_op(struct btrfs_trans_handle *trans, void *arg)
{
	struct delete_all_op *d = arg;
	int ret = 0;

	for (d->failed = 0; d->failed < d->nr; d->failed++) {
		/* the next drop must see the references the last one removed */
		if (d->failed)
			ret = btrfs_run_pending_all(trans);
		if (!ret)
			ret = btrfs_subvol_delete(trans, d->ids[d->failed], (u64)d->now.tv_sec,
						  (u32)d->now.tv_nsec, NULL);
		if (ret < 0)
			return ret;
	}
	d->failed = d->nr;		/* past the loop: the commit failed */
	return 0;
}

struct root_probe {
	bool item;			/* ROOT_ITEM */
	bool linked;			/* ROOT_BACKREF: not deleted */
};

static int root_probe_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct root_probe *p = priv;

	(void)data;
	(void)len;
	p->item |= key->type == BTRFS_ROOT_ITEM_KEY;
	p->linked |= key->type == BTRFS_ROOT_BACKREF_KEY;
	return 0;
}

/*
 * Whether subvolume @id is deleted already, the online backend's rule: no
 * ROOT_ITEM (dropped), or no ROOT_BACKREF (unlinked, its drop to come).
 * Read from the root tree, not the cached root, which a drop committed in
 * this run may have left stale.  Return: 1 gone, 0 not, <0.
 */
static int deleted_already(struct btrfs_fs *fs, u64 id)
{
	struct btrfs_key min = { id, BTRFS_ROOT_ITEM_KEY, 0 };
	struct btrfs_key max = { id, BTRFS_ROOT_BACKREF_KEY, (u64)-1 };
	struct root_probe p = { false, false };
	int ret = btrfs_iterate_items(fs->tree_root, &min, &max, root_probe_cb, &p);

	if (ret < 0)
		return ret;
	return !p.item || !p.linked;
}

int vc_offline_subvol_delete_all(struct btrfs_fs *fs, const u64 *ids, size_t nr,
				 struct vc_delete_status *st, char *err, size_t errlen)
{
	struct delete_all_op d = { .nr = 0 };
	char what[64], first[sizeof(st->msg)];
	size_t *at, bad = nr;		/* @ids index of the one an error is about */
	u64 *left;
	int ret = 0;

	if (!nr)
		return 0;
	left = calloc(nr, sizeof(*left));
	at = calloc(nr, sizeof(*at));
	if (!left || !at) {
		free(left);
		free(at);
		return -ENOMEM;
	}
	btrfs_fs_clear_error(fs);
	for (size_t i = 0; i < nr; i++)
		st[i] = (struct vc_delete_status){ 0 };
	/* those deleted already are done: the transaction takes the others */
	for (size_t i = 0; i < nr; i++) {
		ret = deleted_already(fs, ids[i]);
		if (ret < 0) {
			bad = i;
			break;
		}
		st[i].gone = ret;
		if (!ret) {
			at[d.nr] = i;
			left[d.nr++] = ids[i];
		}
	}
	if (ret >= 0 && d.nr) {
		d.ids = left;
		vc_clock_now(&d.now);
		/* like delete: freeing space is never refused by a limit */
		ret = btrfs_run_transaction(fs, BTRFS_RUN_NO_QGROUP_LIMITS, delete_all_op, &d);
		if (ret < 0 && d.failed < d.nr)
			bad = at[d.failed];
	}
	if (ret >= 0) {
		ret = 0;
		goto out;
	}
	if (bad < nr)
		snprintf(what, sizeof(what), "subvolume %llu", (unsigned long long)ids[bad]);
	else
		snprintf(what, sizeof(what), "the deletion of %zu subvolumes", d.nr);
	vc_offline_error(fs, VC_WRITE_PATH, what, ret, first, sizeof(first));
	snprintf(err, errlen, "%s", first);
	for (size_t i = 0; i < nr; i++) {
		if (st[i].gone)
			continue;
		st[i].err = ret;
		if (i == bad)
			snprintf(st[i].msg, sizeof(st[i].msg), "%s", first);
		else
			snprintf(st[i].msg, sizeof(st[i].msg), "subvolume %llu: not deleted, the "
				 "one transaction was abandoned (%.300s)",
				 (unsigned long long)ids[i],
				 first);
	}
out:
	free(left);
	free(at);
	return ret;
}
