// SPDX-License-Identifier: GPL-2.0-only
/*
 * `volctl mkfs` (see offline-mkfs.h).
 *
 * Every name of the target's storage is claimed first, through the image
 * handle (common/image/image.h: not mounted, no other volctl, checked again before
 * the new superblocks), and that one claim lasts to the end;
 * a file is created or grown to -s SIZE, and removed again when mkfs
 * fails and had created it.  An existing btrfs is overwritten only with
 * --force, like mkfs.btrfs, and is refused before the file is grown.
 * kernel-shared/mkfs.c writes the base image; then each --subvol is one
 * offline transaction on the committed image, and --default-subvol a last
 * one that points the root directory's "default" entry at it.  Test
 * builds honour VOLCTL_FAIL_AFTER_WRITES and VOLCTL_WRITE_LOG
 * (common/image/test-io.h) for the base image too.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "common/image/image.h"
#include "common/tool/offline-mkfs.h"
#include "common/image/offline-run.h"
#include "common/backend/offline-write-qgroup.h"
#include "common/backend/offline-write-subvol.h"
#include "common/image/storage.h"
#include "kernel-shared/compress.h"
#include "kernel-shared/default-subvol.h"
#include "kernel-shared/errmsg.h"
#include "kernel-shared/fs.h"
#include "kernel-shared/io.h"
#include "kernel-shared/qgroup-list.h"
#include "kernel-shared/mkfs.h"
#include "kernel-shared/super.h"
#include "kernel-shared/subvol-create.h"
#include "kernel-shared/transaction.h"

/* Clean tree blocks mkfs keeps cached */
#define MKFS_CACHE_BYTES	(2U << 20)

/*
 * Create a missing target file when -s is given (*@created: remove it if
 * mkfs fails), then claim every name of its storage through the image
 * handle (common/image/image.h), which reads no filesystem yet.
 */
static int open_target(const struct vc_mkfs_opts *o, struct vc_image *img, bool *created,
		       char *err, size_t errlen)
{
	struct stat st;
	int fd, ret;

	if (stat(o->path, &st) < 0) {
		ret = -errno;
		if (ret != -ENOENT || !o->size) {
			if (ret == -ENOENT)
				snprintf(err, errlen, "%s: no such file (give -s SIZE to create it)",
					 o->path);
			else
				snprintf(err, errlen, "%s: %s", o->path, strerror(-ret));
			return ret;
		}
		fd = open(o->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0) {
			ret = -errno;
			snprintf(err, errlen, "%s: %s", o->path, strerror(-ret));
			return ret;
		}
		close(fd);
		*created = true;
	}
	/* a new tree is written once and seldom read again: a small block cache */
	ret = vc_image_open(img, &(struct vc_image_args){ .paths = &o->path, .nr_paths = 1,
			    .mirror = BTRFS_SUPER_PRIMARY, .mode = VC_IMAGE_CLAIM, .wait_ms = o->wait_ms,
			    .cache_blocks = MKFS_CACHE_BYTES / (o->nodesize ? o->nodesize : 16384) });
	if (ret < 0)
		snprintf(err, errlen, "%s", img->err);
	return ret;
}

/* Refuse an existing btrfs without --force, then grow a file to -s SIZE */
static int prepare_target(const struct vc_mkfs_opts *o, int fd, char *err, size_t errlen)
{
	char msg[BTRFS_ERRMSG_SIZE] = "";
	struct btrfs_super_block sb;
	struct btrfs_io_dev *dev;
	struct stat st;
	int ret;

	ret = btrfs_io_open_fd(fd, o->path, false, &dev);
	if (ret < 0) {
		snprintf(err, errlen, "%s: %s", o->path, strerror(-ret));
		return ret;
	}
	/* any valid copy: a filesystem with a bad primary is still one to keep */
	for (int m = 0; m < BTRFS_SUPER_MIRROR_MAX; m++) {
		ret = btrfs_super_read_mirror(dev, m, &sb, msg);
		if (!ret || ret == -ENOENT)
			break;
	}
	btrfs_io_close(dev);
	if (!o->force && ret == 0) {
		snprintf(err, errlen, "%s: contains a btrfs filesystem (use --force to overwrite)",
			 o->path);
		return -EEXIST;
	}
	if (o->size && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (u64)st.st_size < o->size && ftruncate(fd, (off_t)o->size) < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: cannot grow to %llu bytes: %s", o->path,
			 (unsigned long long)o->size, strerror(-ret));
		return ret;
	}
	return 0;
}

/* Chunk sizes for --shrink (from a measuring run), or none */
struct mkfs_sizes {
	bool shrink;
	bool exact;			/* @data and @meta measured, the usual layout */
	u64 data, meta;
};

static int write_base(const struct vc_mkfs_opts *o, struct vc_image *img,
		      const struct vc_rootdir *rd, const struct mkfs_sizes *sz, char *err,
		      size_t errlen)
{
	char msg[BTRFS_ERRMSG_SIZE] = "";
	struct btrfs_mkfs_args a = { 0 };
	struct btrfs_io_dev *dev = NULL, *inner = NULL;
	struct vc_test_io test_io = { 0 };
	int fd = vc_image_fd(img, 0);
	int ret;

	ret = prepare_target(o, fd, err, errlen);
	if (ret < 0)
		return ret;
	ret = btrfs_io_open_fd(fd, o->path, true, &dev);
	if (ret < 0) {
		snprintf(err, errlen, "%s: %s", o->path, strerror(-ret));
		goto out;
	}
	ret = vc_test_io_wrap(&test_io, &dev, &inner);
	if (ret < 0) {
		snprintf(err, errlen, "%s: %s", o->path, strerror(-ret));
		goto out;
	}
	a.dev = dev;
	a.size = o->size;
	a.nodesize = o->nodesize;
	a.csum_type = o->csum_type;
	a.label = o->label;
	a.fsid = o->fsid;
	/* reproducible: with -U and SOURCE_DATE_EPOCH every other UUID follows from them */
	a.derive_uuids = o->fsid && o->epoch_set;
	a.quota = o->quota || o->simple_quota;
	a.simple_quota = o->simple_quota;
	a.meta_single = o->meta_single;
	a.now_sec = o->epoch_set ? (u64)o->epoch : (u64)time(NULL);
	if (sz->shrink || sz->exact) {
		a.shrink = sz->shrink;
		a.data_size = sz->data;
		a.meta_size = sz->meta;
	} else if (rd) {
		/* data chunks for the whole tree; room for its metadata, half again */
		u64 need = (vc_rootdir_data_bytes(rd) + (1ULL << 20) - 1) & ~((1ULL << 20) - 1);
		u64 meta = (vc_rootdir_meta_bytes(rd) * 3 / 2 + (8ULL << 20)) & ~((1ULL << 20) - 1);
		u64 size = o->size ? o->size : dev->size;
		u64 def = (size / 10) & ~((1ULL << 20) - 1);

		a.data_size = need > def ? need : 0;
		a.meta_size = meta > (def < (256ULL << 20) ? def : (256ULL << 20)) ? meta : 0;
	}
	a.errmsg = msg;
	a.guard = &img->guard;	/* no name of the target taken since the claim */
	ret = btrfs_mkfs(&a);
	if (ret < 0)
		snprintf(err, errlen, "%s: %s", o->path, msg[0] ? msg : strerror(-ret));
out:
	btrfs_io_close(dev);
	btrfs_io_close(inner);
	vc_test_io_release(&test_io);
	return ret;
}

/* Make @path's subvolume the default (kernel-shared/default-subvol.c) */
static int set_default(struct btrfs_fs *fs, const char *path, char *err, size_t errlen)
{
	u64 id, dir;
	int ret;

	btrfs_fs_clear_error(fs);
	ret = btrfs_resolve_dir(fs, path, strlen(path), &id, &dir);
	if (ret < 0) {
		vc_offline_error(fs, VC_WRITE_PATH, path, ret, err, errlen);
		return ret;
	}
	if (dir != BTRFS_FIRST_FREE_OBJECTID) {
		snprintf(err, errlen, "%s: not a subvolume", path);
		return -EINVAL;
	}
	return vc_offline_set_default_path(fs, path, id, err, errlen);
}

/*
 * The subvolumes are made in order on a new filesystem: each once, each
 * below the top level or one made before it.  Return: the index of the
 * first that is not, or -1; *@why says why.
 */
static int check_subvol_order(const char *const *subvols, size_t nr, bool rootdir,
			      const char **why)
{
	for (size_t i = 0; i < nr; i++) {
		const char *slash = strrchr(subvols[i], '/');
		size_t plen = (size_t)(slash - subvols[i]);
		/* with --rootdir the parent may be a directory of DIR: checked after the scan */
		bool parent = plen == 0 || rootdir;

		for (size_t j = 0; j < i; j++) {
			if (!strcmp(subvols[j], subvols[i])) {
				*why = "given twice";
				return (int)i;
			}
			parent |= strlen(subvols[j]) == plen && !strncmp(subvols[j], subvols[i], plen);
		}
		if (!parent) {
			*why = "its parent is not an earlier --subvol (nor the top level)";
			return (int)i;
		}
	}
	return -1;
}

/* --compress ALG[:LEVEL]: with --rootdir, a known algorithm, a level in its range */
static int check_compress(const struct vc_mkfs_opts *o, char *err, size_t errlen)
{
	uint8_t type;
	int level;

	if (!o->compress)
		return 0;
	if (!o->rootdir) {
		snprintf(err, errlen, "--compress needs --rootdir");
		return -EINVAL;
	}
	if (btrfs_compress_parse(o->compress, &type, &level) < 0) {
		snprintf(err, errlen, "invalid --compress '%s': want zstd[:1-%d], lzo or zlib[:1-%d]",
			 o->compress, BTRFS_ZSTD_MAX_LEVEL, BTRFS_ZLIB_MAX_LEVEL);
		return -EINVAL;
	}
	return 0;
}

int vc_mkfs_check_layout(const struct vc_mkfs_opts *o, char *err, size_t errlen)
{
	const char *why;
	bool found = false;
	int bad;

	if (o->quota && o->simple_quota) {
		snprintf(err, errlen, "--quota and --simple-quota: use only one");
		return -EINVAL;
	}
	if (check_compress(o, err, errlen) < 0)
		return -EINVAL;
	bad = check_subvol_order(o->subvols, o->nr_subvols, o->rootdir != NULL, &why);
	if (bad >= 0) {
		snprintf(err, errlen, "--subvol %s: %s", o->subvols[bad], why);
		return -EINVAL;
	}
	for (size_t i = 0; i < o->nr_snapshots; i++) {
		const struct vc_mkfs_snapshot *sn = &o->snapshots[i];
		bool src = !strcmp(sn->src, "/"), dup = false;

		for (size_t j = 0; j < o->nr_subvols; j++) {
			src |= !strcmp(o->subvols[j], sn->src);
			dup |= !strcmp(o->subvols[j], sn->dst);
		}
		for (size_t j = 0; j < i; j++) {
			src |= !strcmp(o->snapshots[j].dst, sn->src);
			dup |= !strcmp(o->snapshots[j].dst, sn->dst);
		}
		if (!src || dup) {
			snprintf(err, errlen, "--snapshot %s:%s: %s", sn->src, sn->dst,
				 !src ? "the source is not the top level, a --subvol or an earlier snapshot" :
				 "the destination is given twice");
			return -EINVAL;
		}
	}
	if (!o->default_subvol)
		return 0;
	for (size_t i = 0; i < o->nr_subvols; i++)
		found |= !strcmp(o->subvols[i], o->default_subvol);
	for (size_t i = 0; i < o->nr_snapshots; i++)
		found |= !strcmp(o->snapshots[i].dst, o->default_subvol);
	if (!found) {
		snprintf(err, errlen, "--default-subvol %s: not one of the --subvol or --snapshot paths",
			 o->default_subvol);
		return -EINVAL;
	}
	return 0;
}

static void scan_opts(const struct vc_mkfs_opts *o, struct vc_rootdir_opts *r, int64_t now)
{
	memset(r, 0, sizeof(*r));
	r->dir = o->rootdir;
	r->subvols = o->subvols;
	r->nr_subvols = o->nr_subvols;
	r->iflags = o->iflags;
	r->nr_iflags = o->nr_iflags;
	r->owner_set = o->owner_set;
	r->owner_uid = o->owner_uid;
	r->owner_gid = o->owner_gid;
	r->uid_map = o->uid_map;
	r->nr_uid_map = o->nr_uid_map;
	r->gid_map = o->gid_map;
	r->nr_gid_map = o->nr_gid_map;
	r->clamp = o->epoch_set;
	r->clamp_sec = o->epoch;
	r->now_sec = now;
	r->nodesize = o->nodesize ? o->nodesize : 16384;
	r->sectorsize = 4096;
	r->skipped = o->skipped;
	if (o->compress)
		btrfs_compress_parse(o->compress, &r->compress, &r->compress_level);
}



/* Each --subvol not made from a directory of DIR needs its parent in DIR or among them */
static int check_rootdir_subvols(const struct vc_mkfs_opts *o, const struct vc_rootdir *rd,
				 char *err, size_t errlen)
{
	for (size_t i = 0; i < o->nr_subvols; i++) {
		const char *p = o->subvols[i], *slash = strrchr(p, '/');
		char *parent;
		bool ok;

		if (vc_rootdir_is_subvol(rd, p))
			continue;
		if (vc_rootdir_has(rd, p)) {
			snprintf(err, errlen, "--subvol %s: not a directory in %s", p, o->rootdir);
			return -ENOTDIR;
		}
		parent = strndup(p, (size_t)(slash - p));
		if (!parent)
			return -ENOMEM;
		ok = !parent[0] || vc_rootdir_is_dir(rd, parent);
		for (size_t j = 0; j < i && !ok; j++)
			ok = !strcmp(o->subvols[j], parent);
		free(parent);
		if (!ok) {
			snprintf(err, errlen, "--subvol %s: its parent is neither a directory in %s nor an earlier --subvol",
				 p, o->rootdir);
			return -ENOENT;
		}
	}
	return 0;
}

struct ro_ctx {
	const struct vc_mkfs_opts *o;
	const char *failed;
};

static int readonly_op(struct btrfs_trans_handle *trans, void *arg)
{
	struct ro_ctx *c = arg;
	const struct vc_mkfs_opts *o = c->o;

	for (size_t i = 0; i < o->nr_subvols; i++) {
		u64 id, dir;
		int ret;

		if (!o->subvol_ro[i])
			continue;
		c->failed = o->subvols[i];
		ret = btrfs_resolve_dir(trans->fs, o->subvols[i], strlen(o->subvols[i]), &id, &dir);
		if (!ret)
			ret = btrfs_subvol_set_readonly(trans, id);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Read-only last (one transaction): nothing is written into them after */
static int set_readonly(struct btrfs_fs *fs, const struct vc_mkfs_opts *o, char *err,
			size_t errlen)
{
	struct ro_ctx c = { o, NULL };
	bool any = false;
	int ret;

	for (size_t i = 0; o->subvol_ro && i < o->nr_subvols; i++)
		any |= o->subvol_ro[i];
	if (!any)
		return 0;
	ret = btrfs_run_transaction(fs, 0, readonly_op, &c);
	if (ret < 0)
		vc_offline_error(fs, VC_WRITE_PATH, c.failed, ret, err, errlen);
	return ret < 0 ? ret : 0;
}

/* Each --snapshot, its missing parent directories first (mode 0755, the owner of --owner) */
static int take_snapshots(struct btrfs_fs *fs, const struct vc_mkfs_opts *o, char *err,
			  size_t errlen)
{
	for (size_t i = 0; i < o->nr_snapshots; i++) {
		const struct vc_mkfs_snapshot *sn = &o->snapshots[i];
		const char *slash = strrchr(sn->dst, '/');
		char *parent = strndup(sn->dst, (size_t)(slash - sn->dst));
		int ret = parent ? 0 : -ENOMEM;

		if (!ret && parent[0])
			ret = vc_offline_mkdir_p(fs, parent, 0755, o->owner_set ? o->owner_uid : 0,
						 o->owner_set ? o->owner_gid : 0, err, errlen);
		free(parent);
		if (!ret)
			ret = vc_offline_snapshot(fs, sn->src, sn->dst, sn->readonly, NULL, err,
						  errlen);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* 0/id of the subvolume at @path */
static int subvol_qgroup(struct btrfs_fs *fs, const char *path, u64 *qgroupid, char *err,
			 size_t errlen)
{
	u64 id, dir;
	int ret = btrfs_resolve_dir(fs, path, strlen(path), &id, &dir);

	if (ret < 0) {
		vc_offline_error(fs, VC_WRITE_PATH, path, ret, err, errlen);
		return ret;
	}
	if (dir != BTRFS_FIRST_FREE_OBJECTID) {
		snprintf(err, errlen, "%s: not a subvolume", path);
		return -EINVAL;
	}
	*qgroupid = id;
	return 0;
}

/* Each --qgroup with its members, then (unless measuring) each --limit */
static int make_qgroups(struct btrfs_fs *fs, const struct vc_mkfs_opts *o, bool measure,
			char *err, size_t errlen)
{
	u64 id;
	int ret;

	for (size_t i = 0; i < o->nr_qgroups; i++) {
		const struct vc_mkfs_qgroup *g = &o->qgroups[i];

		ret = vc_offline_qgroup_create(fs, o->path, g->qgroupid, err, errlen);
		for (size_t j = 0; !ret && j < g->nr_paths; j++) {
			ret = subvol_qgroup(fs, g->paths[j], &id, err, errlen);
			if (!ret)
				ret = vc_offline_qgroup_assign(fs, o->path, id, g->qgroupid, true, err,
							       errlen);
		}
		if (ret < 0)
			return ret;
	}
	for (size_t i = 0; !measure && i < o->nr_limits; i++) {
		const struct vc_mkfs_limit *l = &o->limits[i];

		id = l->qgroupid;
		ret = l->path ? subvol_qgroup(fs, l->path, &id, err, errlen) : 0;
		if (!ret)
			ret = vc_offline_qgroup_limit(fs, o->path, id, l->exclusive ?
						      BTRFS_QGROUP_LIMIT_MAX_EXCL :
						      BTRFS_QGROUP_LIMIT_MAX_RFER,
						      l->exclusive ? 0 : l->bytes,
						      l->exclusive ? l->bytes : 0, err, errlen);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* The measuring run's numbers against each --limit: refused before the target is touched */
static int check_limits(struct btrfs_fs *fs, const struct vc_mkfs_opts *o, char *err,
			size_t errlen)
{
	struct btrfs_item_source src = btrfs_fs_item_source(fs);
	struct btrfs_qgroup_list list;
	int ret = btrfs_qgroup_list_load(&src, &list);

	if (ret < 0) {
		snprintf(err, errlen, "--limit: reading the measured qgroups: %s", strerror(-ret));
		return ret;
	}
	for (size_t i = 0; i < o->nr_limits && !ret; i++) {
		const struct vc_mkfs_limit *l = &o->limits[i];
		const struct btrfs_qgroup *g;
		u64 id = l->qgroupid, used;

		if (l->path) {
			ret = subvol_qgroup(fs, l->path, &id, err, errlen);
			if (ret < 0)
				break;
		}
		g = btrfs_qgroup_list_find(&list, id);
		if (!g) {
			snprintf(err, errlen, "--limit %s: qgroup %llu/%llu does not exist", l->arg,
				 (unsigned long long)btrfs_qgroup_level(id),
				 (unsigned long long)btrfs_qgroup_subvolid(id));
			ret = -ENOENT;
			break;
		}
		used = l->exclusive ? g->info.excl : g->info.rfer;
		if (used > l->bytes) {
			snprintf(err, errlen, "--limit %s: qgroup %llu/%llu holds %llu %s bytes, %llu over the limit of %llu",
				 l->arg, (unsigned long long)btrfs_qgroup_level(id),
				 (unsigned long long)btrfs_qgroup_subvolid(id),
				 (unsigned long long)used, l->exclusive ? "exclusive" : "referenced",
				 (unsigned long long)(used - l->bytes), (unsigned long long)l->bytes);
			ret = -EDQUOT;
		}
	}
	btrfs_qgroup_list_release(&list);
	return ret;
}

/*
 * The base filesystem, then in order the tree, the other subvolumes, the
 * snapshots, the default and the read-only flags, each its own commit;
 * @img is left open for the caller
 */
static int mark_unfinished(const struct vc_mkfs_opts *o, struct btrfs_fs *fs, bool unfinished,
			   char *err, size_t errlen)
{
	int ret = btrfs_mark_unfinished(fs, unfinished);

	if (ret < 0)
		snprintf(err, errlen, "%s: %s", o->path, fs->errmsg[0] ? fs->errmsg : strerror(-ret));
	return ret;
}

static int build(const struct vc_mkfs_opts *o, struct vc_image *img, struct vc_rootdir *rd,
		 const struct mkfs_sizes *sz, bool measure, bool *based, char *err, size_t errlen)
{
	struct vc_rootdir_stats stats;
	int ret;

	ret = write_base(o, img, rd, sz, err, errlen);
	*based = ret == 0;
	if (ret < 0 || (!o->nr_subvols && !o->default_subvol && !rd && !o->nr_snapshots &&
			!o->nr_qgroups && !o->nr_limits))
		return ret;
	/* the same claim: no other writer between the steps */
	ret = vc_image_open_fs(img);
	if (ret < 0) {
		snprintf(err, errlen, "%s", img->err);
		return ret;
	}
	if (o->fsid && o->epoch_set) {
		img->bfs->derive_uuids = true;
		memcpy(img->bfs->uuid_seed, o->fsid, sizeof(img->bfs->uuid_seed));
	}
	if (rd) {
		/*
		 * until the whole tree and layout are in, the superblocks say
		 * "unfinished": a power cut leaves nothing that mounts
		 */
		ret = mark_unfinished(o, img->bfs, true, err, errlen);
		if (!ret)
			ret = vc_rootdir_write(img->bfs, rd, measure, &stats, err, errlen);
		if (!ret && o->stats && !measure)
			*o->stats = stats;
	}
	for (size_t i = 0; i < o->nr_subvols && !ret; i++)
		if (!rd || !vc_rootdir_is_subvol(rd, o->subvols[i]))
			ret = vc_offline_subvol_create(img->bfs, o->subvols[i], false, NULL, err,
						       errlen);
	if (!ret)
		ret = take_snapshots(img->bfs, o, err, errlen);
	if (!ret)
		ret = make_qgroups(img->bfs, o, measure, err, errlen);
	if (!ret && o->default_subvol)
		ret = set_default(img->bfs, o->default_subvol, err, errlen);
	if (!ret)
		ret = set_readonly(img->bfs, o, err, errlen);
	if (!ret && rd)
		ret = mark_unfinished(o, img->bfs, false, err, errlen);
	return ret;
}

#define SZ_1M		(1ULL << 20)
#define ROUND_MB(x)	(((x) + SZ_1M - 1) & ~(SZ_1M - 1))

/*
 * --shrink, first run: everything but the file data into a sparse
 * temporary file with room to spare, to learn the exact data and metadata
 * the image takes (the same steps in the same order allocate the same
 * blocks, whatever the chunks' sizes); then the slack of the metadata
 */
static int measure(const struct vc_mkfs_opts *o, struct vc_rootdir *rd, struct mkfs_sizes *sz,
		   char *err, size_t errlen)
{
	const char *dir = getenv("TMPDIR");
	struct vc_mkfs_opts m = *o;
	struct vc_image img = { 0 };
	struct mkfs_sizes big = { true, false, 0, 0 };
	char path[4096];
	bool created = false, based = false;
	u64 data = 0, meta = 0;
	int fd, ret;

	big.data = ROUND_MB(vc_rootdir_data_bytes(rd));
	big.meta = ROUND_MB(vc_rootdir_meta_bytes(rd) * 4 + 64 * SZ_1M);
	snprintf(path, sizeof(path), "%s/volctl-shrink-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "--shrink: temporary file %s: %s", path, strerror(-ret));
		return ret;
	}
	/* the layout, the superblock windows it steps over, the system chunks */
	m.size = big.data + (o->meta_single ? 1 : 2) * big.meta + 256 * SZ_1M;
	ret = ftruncate(fd, (off_t)m.size) < 0 ? -errno : 0;
	close(fd);
	m.path = path;
	m.force = true;
	m.stats = NULL;
	if (!ret)
		ret = open_target(&m, &img, &created, err, errlen);
	if (!ret)
		ret = build(&m, &img, rd, &big, true, &based, err, errlen);
	if (!ret && !img.bfs)
		ret = vc_image_open_fs(&img);
	if (!ret)
		ret = btrfs_mkfs_measure(img.bfs, &data, &meta);
	if (!ret && o->nr_limits)
		ret = check_limits(img.bfs, o, err, errlen);
	if (ret < 0 && !err[0])
		snprintf(err, errlen, "--shrink: measuring run: %s", strerror(-ret));
	vc_image_close(&img);
	unlink(path);
	if (ret < 0)
		return ret;
	sz->shrink = true;
	sz->data = data ? ROUND_MB(data) : SZ_1M;	/* one data chunk, even empty */
	/* slack for the kernel's first writes: 1 MiB and 1/32 of what was measured */
	sz->meta = ROUND_MB(meta + meta / 32 + SZ_1M);
	return 0;
}

/*
 * Whether the estimate of the tree (an upper bound, loose for metadata:
 * leaves may be half full) comes near the target's size: then a measuring
 * run says exactly whether it fits, before anything is written
 */
static bool tight(const struct vc_mkfs_opts *o, const struct vc_rootdir *rd)
{
	u64 size = o->size, need;
	int fd;

	if (!size) {
		fd = open(o->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return false;
		size = (u64)lseek(fd, 0, SEEK_END);
		close(fd);
	}
	/* system chunks, the first MiB, a superblock window, metadata twice if DUP */
	need = 32 * SZ_1M + vc_rootdir_data_bytes(rd) +
	       (o->meta_single ? 1 : 2) * (vc_rootdir_meta_bytes(rd) * 3 + 8 * SZ_1M);
	return need > size;
}

/* The target ends where the filesystem does (a regular file only) */
static int truncate_target(const struct vc_mkfs_opts *o, struct vc_image *img, char *err,
			   size_t errlen)
{
	const struct btrfs_super_block *sb = &img->bfs->super;
	struct stat st;
	int fd = vc_image_fd(img, 0);

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	if (ftruncate(fd, (off_t)btrfs_super_total_bytes(sb)) < 0) {
		snprintf(err, errlen, "%s: cannot shrink to %llu bytes: %s", o->path,
			 (unsigned long long)btrfs_super_total_bytes(sb), strerror(errno));
		return -errno;
	}
	return 0;
}

static int count_subvol_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	(void)data;
	(void)len;
	if (key->type == BTRFS_ROOT_ITEM_KEY && key->objectid >= BTRFS_FIRST_FREE_OBJECTID &&
	    key->objectid <= BTRFS_LAST_FREE_OBJECTID)
		(*(u64 *)priv)++;
	return 0;
}

/* Every superblock copy of the target zeroed, primary first */
static void wipe_supers(struct vc_image *img)
{
	static const u8 zero[BTRFS_SUPER_INFO_SIZE];
	int fd = vc_image_fd(img, 0);
	off_t end = lseek(fd, 0, SEEK_END);	/* a file or a block device: never grown */

	for (int m = 0; m < BTRFS_SUPER_MIRROR_MAX; m++) {
		off_t off = (off_t)btrfs_sb_offset(m);

		if (end < 0 || off + (off_t)sizeof(zero) > end ||
		    pwrite(fd, zero, sizeof(zero), off) != (ssize_t)sizeof(zero))
			break;
		if (!m)
			fdatasync(fd);
	}
	fdatasync(fd);
}

/* The image as written, for the summary */
static int read_result(struct vc_image *img, struct vc_mkfs_result *r, char *err, size_t errlen)
{
	struct btrfs_key min = { BTRFS_FIRST_FREE_OBJECTID, BTRFS_ROOT_ITEM_KEY, 0 };
	struct btrfs_key max = { BTRFS_LAST_FREE_OBJECTID, BTRFS_ROOT_ITEM_KEY, (u64)-1 };
	struct btrfs_item_source src;
	struct btrfs_qgroup_list list;
	int ret;

	if (!img->bfs) {
		ret = vc_image_open_fs(img);
		if (ret < 0) {
			snprintf(err, errlen, "%s", img->err);
			return ret;
		}
	}
	memset(r, 0, sizeof(*r));
	r->total_bytes = btrfs_super_total_bytes(&img->bfs->super);
	memcpy(r->fsid, img->bfs->fsid, sizeof(r->fsid));
	ret = btrfs_iterate_items(img->bfs->tree_root, &min, &max, count_subvol_cb, &r->subvolumes);
	if (ret < 0)
		return ret;
	src = btrfs_fs_item_source(img->bfs);
	ret = btrfs_qgroup_list_load(&src, &list);
	if (ret == -ENOENT)
		return 0;
	if (ret < 0)
		return ret;
	r->quota = true;
	r->qgroups = list.nr;
	btrfs_qgroup_list_release(&list);
	return 0;
}

int vc_mkfs(const struct vc_mkfs_opts *o, char *err, size_t errlen)
{
	struct vc_image img = { 0 };
	struct vc_rootdir *rd = NULL;
	struct vc_rootdir_opts ro;
	struct mkfs_sizes sz = { false, false, 0, 0 };
	bool created = false, based = false;
	int ret;

	/* before a file is created: "-s 1" would make a 1-byte file, then fail */
	if (o->size && o->size < BTRFS_MKFS_MIN_SIZE) {
		snprintf(err, errlen, "%s: size %llu: too small for a filesystem, at least %llu bytes (%llu MiB)",
			 o->path, (unsigned long long)o->size,
			 (unsigned long long)BTRFS_MKFS_MIN_SIZE,
			 (unsigned long long)(BTRFS_MKFS_MIN_SIZE >> 20));
		return -EINVAL;
	}
	if (o->rootdir) {
		/* read the whole tree before any file is made or written */
		scan_opts(o, &ro, o->epoch_set ? o->epoch : (int64_t)time(NULL));
		ret = vc_rootdir_scan(&ro, &rd, err, errlen);
		if (!ret)
			ret = check_rootdir_subvols(o, rd, err, errlen);
		if (!ret && (o->shrink || o->nr_limits || tight(o, rd))) {
			ret = measure(o, rd, &sz, err, errlen);
			sz.shrink = o->shrink;
			sz.exact = !o->shrink;
		}
		if (ret < 0)
			goto out;
	}
	ret = open_target(o, &img, &created, err, errlen);
	if (!ret)
		ret = build(o, &img, rd, &sz, false, &based, err, errlen);
	if (!ret && sz.shrink)
		ret = truncate_target(o, &img, err, errlen);
	if (!ret && o->result)
		ret = read_result(&img, o->result, err, errlen);
	/*
	 * a failure while a tree is copied: no half-copied filesystem that looks
	 * whole (the layout's own steps each leave a whole filesystem, as the
	 * crash tests hold them to)
	 */
	if (ret < 0 && based && !created && rd)
		wipe_supers(&img);
out:
	vc_rootdir_free(rd);
	vc_image_close(&img);
	/* a file mkfs made itself is not left behind when mkfs fails */
	if (ret < 0 && created)
		unlink(o->path);
	return ret;
}
