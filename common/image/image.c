// SPDX-License-Identifier: GPL-2.0-only
/*
 * The image handle (see image.h): members, the one look at their storage,
 * superblocks read once, the filesystem opened once.
 */
#include <blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/fs.h>
#include <uuid/uuid.h>
#include "common/image/image.h"
#include "common/util/messages.h"
#include "common/image/storage.h"
#include "kernel-shared/fs.h"
#include "kernel-shared/io.h"

void vc_image_set_error(struct vc_image *img, int err)
{
	const char *msg = img->bfs ? btrfs_fs_error(img->bfs) : "";

	if (msg && msg[0])
		snprintf(img->err, sizeof(img->err), "%s: %s", img->name, msg);
	else
		snprintf(img->err, sizeof(img->err), "%s: %s", img->name, strerror(-err));
}

static bool writing(const struct vc_image *img)
{
	return img->mode == VC_IMAGE_WRITE || img->mode == VC_IMAGE_CLAIM;
}

/* ------------------------------------------------------------------ */
/* Members                                                             */
/* ------------------------------------------------------------------ */

/* A reader: note a mounted name of @path's storage for vc_image_warn() */
static void note_mounted(struct vc_image *img, const char *path)
{
	char err[512];
	size_t len = img->mounted ? strlen(img->mounted) : 0;
	char *m;

	if (vc_storage_open(path, O_RDONLY, 0, NULL, err, sizeof(err)) != -EBUSY)
		return;
	m = realloc(img->mounted, len + strlen(err) + 2);
	if (!m)
		return;
	img->mounted = m;
	snprintf(m + len, strlen(err) + 2, "%s\n", err);
}

/*
 * A writer's member: the refusals (given twice, any name of its storage
 * taken, read-only), then the device, behind the test wrappers.
 */
static int claim_member(struct vc_image *img, const char *path)
{
	size_t i = img->nr_devs;
	struct stat st;
	int fd, ret;

	for (size_t j = 0; j < i && stat(path, &st) == 0; j++) {
		struct stat ost;

		if (fstat(vc_storage_fd(img->claims[j]), &ost) == 0 && ost.st_dev == st.st_dev &&
		    ost.st_ino == st.st_ino) {
			snprintf(img->err, sizeof(img->err), "%s: same file as %s, given twice", path,
				 img->devs[j] ? img->devs[j]->name : img->name);
			return -EINVAL;
		}
	}
	ret = vc_storage_open(path, O_RDWR, img->wait_ms, &img->claims[i], img->err, sizeof(img->err));
	if (ret < 0)
		return ret;
	img->nr_devs++;
	fd = vc_storage_fd(img->claims[i]);
	/* a read-only block device opens O_RDWR and fails only at the first write */
	if (img->mode == VC_IMAGE_WRITE && fstat(fd, &st) == 0 && S_ISBLK(st.st_mode)) {
		int ro = 0;

		if (ioctl(fd, BLKROGET, &ro) == 0 && ro) {
			snprintf(img->err, sizeof(img->err), "%s: read-only, cannot write", path);
			return -EROFS;
		}
	}
	return 0;
}

/* The io device of claimed member @i (its storage's descriptor), test wrappers around it */
static int open_claimed_dev(struct vc_image *img, size_t i, const char *path)
{
	int ret;

	ret = btrfs_io_open_fd(vc_image_fd(img, i), path, true, &img->devs[i]);
	if (!ret)
		ret = vc_test_io_wrap(&img->test_io, &img->devs[i], &img->inner[i]);
	if (ret < 0)
		snprintf(img->err, sizeof(img->err), "%s: %s", path, strerror(-ret));
	return ret;
}

static const char *file_kind(mode_t mode)
{
	return S_ISDIR(mode) ? "a directory" : S_ISCHR(mode) ? "a character device" :
	       S_ISFIFO(mode) ? "a fifo" : S_ISSOCK(mode) ? "a socket" : "not a regular file";
}

int vc_image_check_target(const char *path, bool any_size, char *err, size_t errlen)
{
	const off_t min = BTRFS_SUPER_INFO_OFFSET + BTRFS_SUPER_INFO_SIZE;
	struct stat st;
	int ret;

	if (stat(path, &st) < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		snprintf(err, errlen, "%s: %s, not an image file or a block device",
			 path, file_kind(st.st_mode));
		return -EINVAL;
	}
	if (any_size || !S_ISREG(st.st_mode) || st.st_size >= min)
		return 0;
	if (st.st_size == 0)
		snprintf(err, errlen, "%s: empty file (0 bytes), not a btrfs filesystem",
			 path);
	else
		snprintf(err, errlen, "%s: %lld bytes, too short for a btrfs filesystem "
			 "(its primary superblock ends at %lld)", path, (long long)st.st_size,
			 (long long)min);
	return -EMEDIUMTYPE;
}

/* Open member @path and look at its storage once: claimed (writer) or checked (reader) */
static int add_member(struct vc_image *img, const char *path)
{
	int ret;

	if (img->nr_devs == VC_IMAGE_MAX_DEVS) {
		snprintf(img->err, sizeof(img->err), "%s: too many devices", path);
		return -E2BIG;
	}
	ret = vc_image_check_target(path, img->mode == VC_IMAGE_CLAIM, img->err, sizeof(img->err));
	if (ret)
		return ret;
	if (writing(img)) {
		ret = claim_member(img, path);
		if (ret < 0 || img->mode == VC_IMAGE_CLAIM)
			return ret;
		return open_claimed_dev(img, img->nr_devs - 1, path);
	}
	/* a mounted filesystem's devices: the kernel writes around the page cache */
	if (img->mode == VC_IMAGE_READ_LIVE)
		ret = btrfs_io_open_direct(path, &img->devs[img->nr_devs]);
	else
		ret = btrfs_io_open_file(path, false, &img->devs[img->nr_devs]);
	if (ret) {
		snprintf(img->err, sizeof(img->err), "%s: %s", path, strerror(-ret));
		return ret;
	}
	img->nr_devs++;
	if (img->mode == VC_IMAGE_READ)
		note_mounted(img, path);
	return 0;
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

/* The valid mirror of @dev with the highest generation, -1 if none */
static int valid_mirror(struct btrfs_io_dev *dev, u64 *gen)
{
	struct btrfs_super_copy copies[BTRFS_SUPER_MIRROR_MAX];
	int best = -1;

	btrfs_super_read_copies(dev, NULL, copies);
	for (int m = 1; m < BTRFS_SUPER_MIRROR_MAX; m++) {
		if (copies[m].finding == BTRFS_SUPER_ABSENT || !copies[m].valid)
			continue;
		if (best < 0 || copies[m].generation > copies[best].generation)
			best = m;
	}
	if (best > 0)
		*gen = copies[best].generation;
	return best;
}

/*
 * Read the superblock copy the user asked for (the primary unless --super
 * named a mirror) of @dev, with a clear message when it is not valid.  The
 * kernel mounts from the primary only, so a bad primary is an error even
 * when a mirror is fine: the message names that mirror for --super.
 */
static int read_super(struct vc_image *img, struct btrfs_io_dev *dev, const char *path,
		      struct btrfs_super_block *sb, bool *bad_primary)
{
	char msg[BTRFS_ERRMSG_SIZE] = "";
	int mirror = img->mirror;
	u64 gen = 0;
	int ret, other;

	ret = btrfs_super_read(dev, mirror, sb, msg);
	if (!ret)
		return 0;
	if (ret == -ENOENT && mirror > 0)
		snprintf(img->err, sizeof(img->err),
			 "%s: superblock mirror %d lies beyond the end of the device", path, mirror);
	else if (!dev_has_magic(dev))
		snprintf(img->err, sizeof(img->err),
			 "%s: not a btrfs filesystem (no valid superblock)", path);
	else if (mirror > 0)
		snprintf(img->err, sizeof(img->err), "%s", msg[0] ? msg : strerror(-ret));
	else if ((other = valid_mirror(dev, &gen)) > 0 && !writing(img))
		snprintf(img->err, sizeof(img->err), "%s (the primary, the only copy the kernel "
			 "mounts from); mirror %d is valid (generation %llu): --super %d reads it, "
			 "volctl check compares the copies", msg[0] ? msg : strerror(-ret), other,
			 (unsigned long long)gen, other);
	else if (other > 0)
		snprintf(img->err, sizeof(img->err), "%s (the primary, the only copy the kernel "
			 "mounts from); mirror %d is valid (generation %llu), but a write needs a "
			 "valid primary: volctl check compares the copies", msg[0] ? msg :
			 strerror(-ret), other, (unsigned long long)gen);
	else
		snprintf(img->err, sizeof(img->err), "%s (the primary, the only copy the kernel "
			 "mounts from); no mirror is valid", msg[0] ? msg : strerror(-ret));
	if (mirror == BTRFS_SUPER_PRIMARY && dev_has_magic(dev))
		*bad_primary = true;
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
 * A reader's refusals of given member @i, whose superblock is @sb: a
 * device of another filesystem, a devid given twice, a truncated device.
 */
static int check_given(struct vc_image *img, const char *const *paths, size_t i,
		       const struct btrfs_super_block *sb, const struct btrfs_super_block *first,
		       u64 *devids)
{
	const struct btrfs_io_dev *dev = img->devs[i];
	u64 devid = btrfs_dev_item_devid(&sb->dev_item);

	if (memcmp(first->fsid, sb->fsid, BTRFS_FSID_SIZE)) {
		char a[37], b[37];

		uuid_unparse_lower(sb->fsid, a);
		uuid_unparse_lower(first->fsid, b);
		snprintf(img->err, sizeof(img->err), "%s: a device of another filesystem "
			 "(fsid %s) than %s (fsid %s)", paths[i], a, paths[0], b);
		return -EINVAL;
	}
	if (devid_known(devids, i, devid)) {
		snprintf(img->err, sizeof(img->err), "%s: device %llu given twice", paths[i],
			 (unsigned long long)devid);
		return -EINVAL;
	}
	devids[i] = devid;
	if (dev->size < btrfs_dev_item_total_bytes(&sb->dev_item)) {
		snprintf(img->err, sizeof(img->err),
			 "%s: device is %llu bytes, smaller than its recorded size %llu "
			 "(truncated image?)", paths[i], (unsigned long long)dev->size,
			 (unsigned long long)btrfs_dev_item_total_bytes(&sb->dev_item));
		return -EUCLEAN;
	}
	return 0;
}

/*
 * Members not given: block devices that libblkid knows with the fsid of
 * @sb and a devid we do not have yet, their superblocks into @sbs.  A
 * private cache (/dev/null) keeps the system's blkid.tab untouched.  A
 * writer claims each like a given member (and reads its superblock again,
 * after the claim: @sbs[i] is left NULL).
 */
static int scan_members(struct vc_image *img, const struct btrfs_super_block *sb,
			u64 *devids, struct btrfs_super_block **sbs)
{
	blkid_dev_iterate it;
	blkid_cache cache;
	blkid_dev bdev;
	char fsid[37];
	int ret = 0;

	if (blkid_get_cache(&cache, "/dev/null") < 0)
		return 0;
	blkid_probe_all(cache);
	uuid_unparse(sb->fsid, fsid);
	it = blkid_dev_iterate_begin(cache);
	blkid_dev_set_search(it, "UUID", fsid);
	while (!ret && blkid_dev_next(it, &bdev) == 0) {
		struct btrfs_super_block *msb = malloc(sizeof(*msb));
		struct btrfs_io_dev *dev;
		const char *name;
		size_t i = img->nr_devs;
		u64 devid;

		bdev = blkid_verify(cache, bdev);
		if (!msb || !bdev || !blkid_dev_has_tag(bdev, "TYPE", "btrfs") ||
		    i == VC_IMAGE_MAX_DEVS)
			goto next;
		name = blkid_dev_devname(bdev);
		if (btrfs_io_open_file(name, false, &dev))
			goto next;
		/* the copy the given members were read from: the kernel scans primaries */
		if (btrfs_super_read(dev, img->mirror, msb, NULL) ||
		    memcmp(msb->fsid, sb->fsid, BTRFS_FSID_SIZE) ||
		    devid_known(devids, i, devid = btrfs_dev_item_devid(&msb->dev_item))) {
			btrfs_io_close(dev);
			goto next;
		}
		devids[i] = devid;
		if (writing(img)) {
			/* the name stays valid while @dev is open */
			ret = add_member(img, dev->name);
			btrfs_io_close(dev);
			goto next;
		}
		img->devs[img->nr_devs++] = dev;
		sbs[i] = msb;
		msb = NULL;
next:
		free(msb);
	}
	blkid_dev_iterate_end(it);
	blkid_put_cache(cache);
	return ret;
}

/*
 * A device shorter than its DEV_ITEM says is a truncated image (the kernel
 * refuses to mount it): anything could be missing, so refuse it too.
 */
static int check_sizes(struct vc_image *img)
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

/* Before a commit's superblocks: no name of any member taken since the open */
static int claims_guard(void *priv, char *msg)
{
	struct vc_image *img = priv;

	for (size_t i = 0; i < img->nr_devs; i++) {
		int ret = vc_storage_recheck(img->claims[i], msg, BTRFS_ERRMSG_SIZE);

		if (ret < 0)
			return ret;
	}
	return 0;
}

/* btrfs_fs_open() over every member, with the superblocks already read */
static int open_fs(struct vc_image *img, const struct btrfs_super_block *const *sbs)
{
	char msg[BTRFS_ERRMSG_SIZE] = "";
	enum btrfs_err_object named = BTRFS_ERR_OBJ_NONE;
	struct btrfs_open_args args = {
		.devs = img->devs,
		.nr_devs = img->nr_devs,
		.super_mirror = img->mirror,
		.writable = img->mode == VC_IMAGE_WRITE,
		.cache_blocks = img->cache_blocks,
		.errmsg = msg,
		.errobj = &named,
		.supers = sbs,
	};
	int ret;

	ret = btrfs_fs_open(&img->bfs, &args);
	if (ret < 0) {
		img->bfs = NULL;
		/* member messages name their device; others are about the filesystem */
		if (args.writable && named == BTRFS_ERR_OBJ_DEVICE)
			snprintf(img->err, sizeof(img->err), "%s", msg);
		else
			snprintf(img->err, sizeof(img->err), "%s: %s", img->name,
				 msg[0] ? msg : strerror(-ret));
		return ret;
	}
	if (!args.writable)
		return check_sizes(img);
	btrfs_fs_set_super_guard(img->bfs, &img->guard);
	return 0;
}

/*
 * Superblocks of the given members (a reader refuses a foreign, repeated
 * or truncated one here), then the members not given.  A writer whose
 * superblock cannot be read leaves the reading and its message to
 * btrfs_fs_open(), as for every other refusal of a member.
 */
static int read_members(struct vc_image *img, const char *const *paths,
			struct btrfs_super_block **sbs)
{
	u64 devids[VC_IMAGE_MAX_DEVS];
	int ret;

	for (size_t i = 0; i < img->nr_given; i++) {
		bool bad_primary = false;

		sbs[i] = malloc(sizeof(*sbs[i]));
		if (!sbs[i])
			return -ENOMEM;
		ret = read_super(img, img->devs[i], paths[i], sbs[i], &bad_primary);
		/* a writer refused for its primary is told which copies are fine */
		if (ret && img->mode == VC_IMAGE_WRITE && !bad_primary) {
			for (size_t j = 0; j <= i; j++) {
				free(sbs[j]);
				sbs[j] = NULL;
			}
			img->err[0] = '\0';
			return 0;
		}
		if (!ret && !writing(img))
			ret = check_given(img, paths, i, sbs[i], sbs[0], devids);
		if (ret)
			return ret;
		devids[i] = btrfs_dev_item_devid(&sbs[i]->dev_item);
	}
	if (btrfs_super_num_devices(sbs[0]) > img->nr_given)
		return scan_members(img, sbs[0], devids, sbs);
	return 0;
}

int vc_image_open(struct vc_image *img, const struct vc_image_args *a)
{
	struct btrfs_super_block **sbs = img->sbs;
	int ret;

	memset(img, 0, sizeof(*img));
	img->name = a->nr_paths > 0 ? a->paths[0] : "";
	img->mode = a->mode;
	img->mirror = a->mirror < 0 ? BTRFS_SUPER_PRIMARY : a->mirror;
	img->cache_blocks = a->cache_blocks;
	img->wait_ms = a->wait_ms;
	if (a->nr_paths < 1) {
		snprintf(img->err, sizeof(img->err), "no image given");
		return -EINVAL;
	}
	/*
	 * A commit writes every copy from the superblock it read: from a
	 * mirror that would replace the primary the kernel mounts (btrfs-progs
	 * writes only that mirror back, leaving the primary pointing at blocks
	 * the write may reuse).  Neither is safe, so writers read the primary.
	 */
	if (writing(img) && img->mirror != BTRFS_SUPER_PRIMARY) {
		snprintf(img->err, sizeof(img->err), "%s: --super %d: offline writes use the primary "
			 "superblock only (writing from a mirror would replace or bypass the copy the "
			 "kernel mounts); repair the primary first (btrfs rescue super-recover)",
			 img->name, img->mirror);
		return -EINVAL;
	}
	/* a writer's members all pass their refusals before the filesystem is read */
	for (int i = 0; i < a->nr_paths; i++) {
		ret = add_member(img, a->paths[i]);
		if (ret)
			goto fail;
	}
	img->nr_given = img->nr_devs;
	img->guard.check = claims_guard;
	img->guard.priv = img;
	if (img->mode == VC_IMAGE_CLAIM)
		return 0;
	ret = read_members(img, a->paths, sbs);
	if (!ret)
		ret = open_fs(img, (const struct btrfs_super_block *const *)sbs);
	if (!ret)
		return 0;
fail:
	vc_image_close(img);
	return ret;
}

int vc_image_open_fs(struct vc_image *img)
{
	int ret = 0;

	img->mode = VC_IMAGE_WRITE;
	for (size_t i = 0; i < img->nr_devs && !ret; i++)
		ret = open_claimed_dev(img, i, img->name);	/* mkfs: one member */
	if (!ret)
		ret = open_fs(img, NULL);
	return ret;
}

const struct btrfs_super_block *vc_image_primary(const struct vc_image *img, size_t i)
{
	return i < img->nr_devs && img->mirror == BTRFS_SUPER_PRIMARY ? img->sbs[i] : NULL;
}

int vc_image_fd(const struct vc_image *img, size_t i)
{
	return vc_storage_fd(img->claims[i]);
}

u16 vc_image_csum_type(const struct vc_image *img)
{
	return img->bfs->csum_type;
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

int vc_image_missing_ids(const struct vc_image *img, u64 **ids, size_t *nr)
{
	size_t n = 0, total = vc_image_missing(img, NULL, 0);

	*ids = NULL;
	*nr = 0;
	if (!total)
		return 0;
	*ids = calloc(total, sizeof(**ids));
	if (!*ids)
		return -ENOMEM;
	for (size_t i = 0; i < img->bfs->nr_devices; i++)
		if (!img->bfs->devices[i]->io)
			(*ids)[n++] = img->bfs->devices[i]->devid;
	*nr = n;
	return 0;
}

void vc_image_warn(const struct vc_image *img)
{
	char list[256];
	size_t nr = vc_image_missing(img, list, sizeof(list));

	if (img->bfs && img->mirror != BTRFS_SUPER_PRIMARY)
		warning("%s: using superblock mirror %d at %llu (generation %llu); the kernel mounts "
			"from the primary only, which may hold another state or none", img->name,
			img->mirror,
			(unsigned long long)btrfs_sb_offset(img->mirror),
			(unsigned long long)img->bfs->generation);
	if (nr)
		warning("%s: degraded: device%s %s of the filesystem missing; give every member "
			"(--image once per device), copies on the missing device%s are not read",
			img->name, nr == 1 ? "" : "s", list, nr == 1 ? "" : "s");
	for (const char *p = img->mounted; p && *p; p += strcspn(p, "\n") + 1)
		warning("%.*s: the filesystem may change while it is read, numbers and "
			"trees may not agree", (int)strcspn(p, "\n"), p);
}

void vc_image_close(struct vc_image *img)
{
	if (img->bfs)
		btrfs_fs_close(img->bfs);
	img->bfs = NULL;
	for (size_t i = 0; i < img->nr_devs; i++) {
		btrfs_io_close(img->devs[i]);
		btrfs_io_close(img->inner[i]);
		vc_storage_close(img->claims[i]);	/* closes the member's descriptor */
	}
	if (writing(img))
		vc_test_io_release(&img->test_io);
	for (size_t i = 0; i < VC_IMAGE_MAX_DEVS; i++) {
		free(img->sbs[i]);
		img->sbs[i] = NULL;
	}
	free(img->mounted);
	img->mounted = NULL;
	img->nr_devs = 0;
}

struct vc_image *vc_image_new(void)
{
	return calloc(1, sizeof(struct vc_image));
}

void vc_image_free(struct vc_image *img)
{
	if (!img)
		return;
	vc_image_close(img);
	free(img);
}

const char *vc_image_error(const struct vc_image *img)
{
	return img->err;
}
