// SPDX-License-Identifier: GPL-2.0-only
/*
 * The offline backend: the reader in kernel-shared/ on an unmounted image.
 *
 * Opening: every --image is opened read-only through the reader's I/O layer
 * (kernel-shared/io.h).  When the superblock says the filesystem has more
 * devices than were given, libblkid is asked for block devices carrying the
 * same fsid; members already given (same devid) are not opened twice.
 * --super N forces a superblock copy.  Write commands open every member
 * through the offline writer instead (common/offline-write.c), the members
 * not given found the same way.
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
#include <blkid.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <uuid/uuid.h>
#include "common/backend.h"
#include "common/config.h"
#include "common/messages.h"
#include "common/offline.h"
#include "common/offline-write.h"
#include "common/offline-write-subvol.h"
#include "common/offline-write-qgroup.h"
#include "common/storage.h"
#include "kernel-shared/csum.h"
#include "kernel-shared/items.h"

struct vc_fs {
	struct vc_fs_base base;
	struct vc_image img;
	struct vc_writer writer;	/* opened for writing: img.bfs borrows writer.fs */
};

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
/* Opening images                                                      */
/* ------------------------------------------------------------------ */

void vc_image_set_error(struct vc_image *img, int err)
{
	const char *msg = img->bfs ? btrfs_fs_error(img->bfs) : "";

	if (msg && msg[0])
		snprintf(img->err, sizeof(img->err), "%s: %s", img->name, msg);
	else
		snprintf(img->err, sizeof(img->err), "%s: %s", img->name, strerror(-err));
}

/* Whether any superblock copy of @dev carries the btrfs magic. */
static bool dev_has_magic(struct btrfs_io_dev *dev)
{
	struct btrfs_super_block sb;

	for (int i = 0; i < BTRFS_SUPER_MIRROR_MAX; i++) {
		u64 off = btrfs_sb_offset(i);

		if (off + BTRFS_SUPER_INFO_SIZE > dev->size)
			break;
		if (btrfs_io_read(dev, &sb, sizeof(sb), off))
			continue;
		if (btrfs_super_magic(&sb) == BTRFS_MAGIC)
			return true;
	}
	return false;
}

static int image_add_dev(struct vc_image *img, const char *path, struct btrfs_io_dev **out)
{
	struct btrfs_io_dev *dev;
	int ret;

	if (img->nr_devs == VC_IMAGE_MAX_DEVS) {
		snprintf(img->err, sizeof(img->err), "%s: too many devices", path);
		return -E2BIG;
	}
	ret = btrfs_io_open_file(path, false, &dev);
	if (ret) {
		snprintf(img->err, sizeof(img->err), "%s: %s", path, strerror(-ret));
		return ret;
	}
	img->devs[img->nr_devs++] = dev;
	if (out)
		*out = dev;
	return 0;
}

/* Read the superblock of @dev, with a clear message when it has none. */
static int image_read_super(struct vc_image *img, struct btrfs_io_dev *dev, const char *path,
			    int mirror, struct btrfs_super_block *sb)
{
	char msg[BTRFS_ERRMSG_SIZE] = "";
	int ret;

	ret = btrfs_super_read(dev, mirror < 0 ? BTRFS_SUPER_MIRROR_AUTO : mirror, sb, NULL, msg);
	if (!ret)
		return 0;
	if (ret == -ENOENT && mirror >= 0)
		snprintf(img->err, sizeof(img->err),
			 "%s: superblock mirror %d lies beyond the end of the device", path, mirror);
	else if (!dev_has_magic(dev))
		snprintf(img->err, sizeof(img->err),
			 "%s: not a btrfs filesystem (no valid superblock)", path);
	else if (msg[0] && !strncmp(msg, path, strlen(path)))
		snprintf(img->err, sizeof(img->err), "%s", msg);	/* names the device already */
	else
		snprintf(img->err, sizeof(img->err), "%s: %s", path,
			 msg[0] ? msg : strerror(-ret));
	return ret == -ENOENT ? -EUCLEAN : ret;
}

static bool devid_known(const u64 *devids, size_t nr, u64 devid)
{
	for (size_t i = 0; i < nr; i++)
		if (devids[i] == devid)
			return true;
	return false;
}

/*
 * Add block devices that libblkid knows with the fsid of @sb and a devid we
 * do not have yet.  A private cache (/dev/null) keeps the system's
 * blkid.tab untouched.
 */
static void image_scan_members(struct vc_image *img, const struct btrfs_super_block *sb,
			       u64 *devids, size_t *nr_devids)
{
	blkid_dev_iterate it;
	blkid_cache cache;
	blkid_dev bdev;
	char fsid[37];

	if (blkid_get_cache(&cache, "/dev/null") < 0)
		return;
	blkid_probe_all(cache);
	uuid_unparse(sb->fsid, fsid);
	it = blkid_dev_iterate_begin(cache);
	blkid_dev_set_search(it, "UUID", fsid);
	while (blkid_dev_next(it, &bdev) == 0) {
		struct btrfs_super_block msb;
		struct btrfs_io_dev *dev;
		const char *name;
		u64 devid;

		bdev = blkid_verify(cache, bdev);
		if (!bdev || !blkid_dev_has_tag(bdev, "TYPE", "btrfs"))
			continue;
		name = blkid_dev_devname(bdev);
		if (btrfs_io_open_file(name, false, &dev))
			continue;
		if (btrfs_super_read(dev, BTRFS_SUPER_MIRROR_AUTO, &msb, NULL, NULL) ||
		    memcmp(msb.fsid, sb->fsid, BTRFS_FSID_SIZE)) {
			btrfs_io_close(dev);
			continue;
		}
		devid = btrfs_dev_item_devid(&msb.dev_item);
		if (devid_known(devids, *nr_devids, devid) || img->nr_devs == VC_IMAGE_MAX_DEVS) {
			btrfs_io_close(dev);
			continue;
		}
		devids[(*nr_devids)++] = devid;
		img->devs[img->nr_devs++] = dev;
	}
	blkid_dev_iterate_end(it);
	blkid_put_cache(cache);
}

/*
 * A device shorter than its DEV_ITEM says is a truncated image (the kernel
 * refuses to mount it): anything could be missing, so refuse it too.
 */
static int image_check_sizes(struct vc_image *img)
{
	const struct btrfs_fs *fs = img->bfs;

	for (size_t i = 0; i < fs->nr_devices; i++) {
		const struct btrfs_device *dev = fs->devices[i];

		if (!dev->io || dev->io->size >= dev->total_bytes)
			continue;
		snprintf(img->err, sizeof(img->err),
			 "%s: device %llu is %llu bytes, smaller than its recorded size %llu "
			 "(truncated image?)", dev->io->name, (unsigned long long)dev->devid,
			 (unsigned long long)dev->io->size,
			 (unsigned long long)dev->total_bytes);
		return -EUCLEAN;
	}
	return 0;
}

int vc_image_open(struct vc_image *img, const char *const *paths, int nr_paths, int mirror,
		  u32 cache_blocks)
{
	u64 devids[VC_IMAGE_MAX_DEVS];
	u8 fsid[BTRFS_FSID_SIZE];
	struct btrfs_super_block sb;
	struct btrfs_open_args args;
	char msg[BTRFS_ERRMSG_SIZE] = "";
	size_t nr_devids = 0;
	int ret;

	memset(img, 0, sizeof(*img));
	img->name = nr_paths > 0 ? paths[0] : "";
	if (nr_paths < 1) {
		snprintf(img->err, sizeof(img->err), "no image given");
		return -EINVAL;
	}
	for (int i = 0; i < nr_paths; i++) {
		struct btrfs_io_dev *dev;

		ret = image_add_dev(img, paths[i], &dev);
		if (ret)
			goto fail;
		ret = image_read_super(img, dev, paths[i], mirror, &sb);
		if (ret)
			goto fail;
		if (!i)
			memcpy(fsid, sb.fsid, BTRFS_FSID_SIZE);
		if (memcmp(fsid, sb.fsid, BTRFS_FSID_SIZE)) {
			char a[37], b[37];

			uuid_unparse_lower(sb.fsid, a);
			uuid_unparse_lower(fsid, b);
			snprintf(img->err, sizeof(img->err), "%s: a device of another filesystem "
				 "(fsid %s) than %s (fsid %s)", paths[i], a, paths[0], b);
			ret = -EINVAL;
			goto fail;
		}
		if (devid_known(devids, nr_devids, btrfs_dev_item_devid(&sb.dev_item))) {
			snprintf(img->err, sizeof(img->err), "%s: device %llu given twice", paths[i],
				 (unsigned long long)btrfs_dev_item_devid(&sb.dev_item));
			ret = -EINVAL;
			goto fail;
		}
		devids[nr_devids++] = btrfs_dev_item_devid(&sb.dev_item);
		if (dev->size < btrfs_dev_item_total_bytes(&sb.dev_item)) {
			snprintf(img->err, sizeof(img->err),
				 "%s: device is %llu bytes, smaller than its recorded size %llu "
				 "(truncated image?)", paths[i], (unsigned long long)dev->size,
				 (unsigned long long)btrfs_dev_item_total_bytes(&sb.dev_item));
			ret = -EUCLEAN;
			goto fail;
		}
	}
	img->nr_given = img->nr_devs;
	if (btrfs_super_num_devices(&sb) > nr_devids)
		image_scan_members(img, &sb, devids, &nr_devids);

	memset(&args, 0, sizeof(args));
	args.devs = img->devs;
	args.nr_devs = img->nr_devs;
	args.super_mirror = mirror < 0 ? BTRFS_SUPER_MIRROR_AUTO : mirror;
	args.writable = false;
	args.cache_blocks = cache_blocks;
	args.errmsg = msg;
	ret = btrfs_fs_open(&img->bfs, &args);
	if (ret) {
		img->bfs = NULL;
		snprintf(img->err, sizeof(img->err), "%s: %s", img->name,
			 msg[0] ? msg : strerror(-ret));
		goto fail;
	}
	ret = image_check_sizes(img);
	if (ret)
		goto fail;
	return 0;
fail:
	vc_image_close(img);
	return ret;
}

size_t vc_image_missing(const struct vc_image *img, char *list, size_t size)
{
	size_t nr = 0, len = 0;

	if (size)
		list[0] = '\0';
	for (size_t i = 0; img->bfs && i < img->bfs->nr_devices; i++) {
		const struct btrfs_device *dev = img->bfs->devices[i];

		if (dev->io)
			continue;
		nr++;
		if (len + 24 < size)
			len += (size_t)snprintf(list + len, size - len, "%s%llu", len ? ", " : "",
						(unsigned long long)dev->devid);
	}
	return nr;
}

void vc_image_warn(const struct vc_image *img, const char *const *paths, int nr_paths)
{
	char list[256], err[512];
	size_t nr = vc_image_missing(img, list, sizeof(list));

	if (nr)
		warning("%s: degraded: device%s %s of the filesystem missing; give every member "
			"(--image once per device), copies on the missing device%s are not read",
			img->name, nr == 1 ? "" : "s", list, nr == 1 ? "" : "s");
	for (int i = 0; i < nr_paths; i++)
		if (vc_storage_check_unmounted(paths[i], err, sizeof(err)) == -EBUSY)
			warning("%s: the filesystem may change while it is read, numbers and "
				"trees may not agree", err);
}

void vc_image_close(struct vc_image *img)
{
	if (img->bfs)
		btrfs_fs_close(img->bfs);
	img->bfs = NULL;
	for (size_t i = 0; i < img->nr_devs; i++)
		btrfs_io_close(img->devs[i]);
	img->nr_devs = 0;
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

#define PATH_MAX_DEPTH	256

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

static int resolve_path(struct vc_fs *fs, const char *path, struct path_pos *out)
{
	struct path_pos *stack;
	const char *p = path;
	int depth = 0, ret = 0;

	stack = calloc(PATH_MAX_DEPTH, sizeof(*stack));
	if (!stack)
		return -ENOMEM;
	stack[0].tree = BTRFS_FS_TREE_OBJECTID;
	stack[0].ino = BTRFS_FIRST_FREE_OBJECTID;
	stack[0].is_dir = true;
	while (*p) {
		size_t len;

		while (*p == '/')
			p++;
		len = strcspn(p, "/");
		if (!len)
			break;
		if (len == 1 && p[0] == '.') {
			p += len;
			continue;
		}
		if (!stack[depth].is_dir) {
			ret = -ENOTDIR;
			break;
		}
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			if (depth > 0)
				depth--;
			p += len;
			continue;
		}
		if (len > BTRFS_NAME_LEN) {
			ret = -ENAMETOOLONG;
			break;
		}
		if (depth + 1 == PATH_MAX_DEPTH) {
			ret = -ELOOP;
			break;
		}
		ret = lookup_component(fs, &stack[depth], p, len, &stack[depth + 1]);
		if (ret)
			break;
		depth++;
		p += len;
	}
	if (!ret)
		*out = stack[depth];
	free(stack);
	return ret;
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

/* num_devices of the filesystem on @path, 0 if it cannot be read here */
static u64 image_num_devices(const char *path, int mirror)
{
	struct btrfs_super_block sb;
	struct btrfs_io_dev *dev;
	u64 num = 0;

	if (btrfs_io_open_file(path, false, &dev))
		return 0;
	if (!btrfs_super_read(dev, mirror < 0 ? BTRFS_SUPER_MIRROR_AUTO : mirror, &sb, NULL, NULL))
		num = btrfs_super_num_devices(&sb);
	btrfs_io_close(dev);
	return num;
}

/*
 * Open every member for writing.  Members not given are found the way the
 * reader finds them (libblkid, block devices only) by a read-only open
 * first; the writer then opens each by name with its own refusals.
 */
static int offline_open_writer(struct vc_fs *fs, const struct vc_config *cfg)
{
	const char *names[VC_IMAGE_MAX_DEVS];
	struct vc_image probe;
	size_t nr = 0;
	int ret;

	if (cfg->nr_images < 1 || image_num_devices(cfg->images[0], cfg->super_mirror) <=
	    (u64)cfg->nr_images)
		return vc_writer_open_multi((const char *const *)cfg->images, cfg->nr_images,
					    cfg->super_mirror, &fs->writer, fs->base.err,
					    sizeof(fs->base.err));
	ret = vc_image_open(&probe, (const char *const *)cfg->images, cfg->nr_images,
			    cfg->super_mirror, 0);
	if (ret) {
		vc_fs_set_error(fs, "%s", probe.err);
		return ret;
	}
	for (size_t i = 0; i < probe.nr_devs; i++) {
		names[nr++] = i < (size_t)cfg->nr_images ? cfg->images[i] : probe.devs[i]->name;
		if (i >= probe.nr_given)
			pr_verbose(cfg, 1, "%s: using %s, another device of the filesystem",
				   cfg->images[0], probe.devs[i]->name);
	}
	/* the names stay valid while the probe's devices are open */
	ret = vc_writer_open_multi(names, nr, cfg->super_mirror, &fs->writer, fs->base.err,
				   sizeof(fs->base.err));
	vc_image_close(&probe);
	return ret;
}

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
	if (writable) {
		ret = offline_open_writer(fs, cfg);
		if (ret)
			return ret;
		fs->img.bfs = fs->writer.fs;
		fs->img.name = cfg->images[0];
		return path ? offline_path_info(fs, path, &info) : 0;
	}
	ret = vc_image_open(&fs->img, cfg->images, cfg->nr_images, cfg->super_mirror, 0);
	if (ret) {
		vc_fs_set_error(fs, "%s", fs->img.err);
		return ret;
	}
	vc_image_warn(&fs->img, cfg->images, cfg->nr_images);
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
	if (fs->writer.fs) {
		fs->img.bfs = NULL;
		vc_writer_close(&fs->writer);
	}
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
	if (!fs->writer.fs)
		return not_writable(fs);
	return vc_offline_subvol_create(fs->writer.fs, path, parents, inh, fs->base.err,
					sizeof(fs->base.err));
}

static int offline_subvol_create_all(struct vc_fs *fs, const char *const *paths, size_t nr,
				     const struct vc_inherit *inh)
{
	if (!fs->writer.fs)
		return not_writable(fs);
	return vc_offline_subvol_create_all(fs->writer.fs, paths, nr, inh, fs->base.err,
					    sizeof(fs->base.err));
}

static int offline_snapshot(struct vc_fs *fs, const char *src, const char *dst, bool readonly,
			    const struct vc_inherit *inh)
{
	if (!fs->writer.fs)
		return not_writable(fs);
	return vc_offline_snapshot(fs->writer.fs, src, dst, readonly, inh, fs->base.err,
				   sizeof(fs->base.err));
}

static int offline_subvol_delete(struct vc_fs *fs, const char *path, u64 subvolid)
{
	if (!fs->writer.fs)
		return not_writable(fs);
	return vc_offline_subvol_delete(fs->writer.fs, subvolid ? NULL : path, subvolid,
					fs->base.err, sizeof(fs->base.err));
}

/* set-default, quota and qgroup writes: common/offline-write-qgroup.c */
static int offline_set_default(struct vc_fs *fs, u64 subvolid)
{
	if (!fs->writer.fs)
		return not_writable(fs);
	return vc_offline_set_default(fs->writer.fs, fs->img.name, subvolid, fs->base.err,
				      sizeof(fs->base.err));
}

static int offline_commit(struct vc_fs *fs, bool wait)
{
	/* every offline write is committed before it returns */
	return fs->writer.fs ? 0 : not_writable(fs);
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
	if (!fs->writer.fs)
		return not_writable(fs);
	return vc_offline_subvol_clean(fs->writer.fs, subvolid, fs->base.err,
				       sizeof(fs->base.err));
}

static int offline_quota_ctl(struct vc_fs *fs, enum vc_quota_mode mode)
{
	if (!fs->writer.fs)
		return not_writable(fs);
	return vc_offline_quota_ctl(fs->writer.fs, fs->img.name, mode, fs->base.err,
				    sizeof(fs->base.err));
}

/* offline the rescan runs to its end inside rescan_start */
static int offline_rescan_start(struct vc_fs *fs)
{
	if (!fs->writer.fs)
		return not_writable(fs);
	return vc_offline_rescan(fs->writer.fs, fs->img.name, fs->base.err, sizeof(fs->base.err));
}

static int offline_rescan_wait(struct vc_fs *fs)
{
	if (!fs->writer.fs)
		return not_writable(fs);
	return vc_offline_quota_enabled(fs->writer.fs, fs->img.name, fs->base.err,
					sizeof(fs->base.err));
}

static int offline_qgroup_create(struct vc_fs *fs, u64 qgroupid)
{
	if (!fs->writer.fs)
		return not_writable(fs);
	return vc_offline_qgroup_create(fs->writer.fs, fs->img.name, qgroupid, fs->base.err,
					sizeof(fs->base.err));
}

static int offline_qgroup_destroy(struct vc_fs *fs, u64 qgroupid)
{
	if (!fs->writer.fs)
		return not_writable(fs);
	return vc_offline_qgroup_destroy(fs->writer.fs, fs->img.name, qgroupid, fs->base.err,
					 sizeof(fs->base.err));
}

static int offline_qgroup_assign(struct vc_fs *fs, u64 src, u64 dst, bool assign)
{
	if (!fs->writer.fs)
		return not_writable(fs);
	return vc_offline_qgroup_assign(fs->writer.fs, fs->img.name, src, dst, assign,
					fs->base.err, sizeof(fs->base.err));
}

static int offline_qgroup_limit(struct vc_fs *fs, u64 qgroupid, u64 flags, u64 max_rfer,
				u64 max_excl)
{
	if (!fs->writer.fs)
		return not_writable(fs);
	return vc_offline_qgroup_limit(fs->writer.fs, fs->img.name, qgroupid, flags, max_rfer,
				       max_excl, fs->base.err, sizeof(fs->base.err));
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
	.subvol_delete = offline_subvol_delete,
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
	.acct_open = offline_acct_open, .acct_close = offline_acct_close,
};
