// SPDX-License-Identifier: GPL-2.0-only
/*
 * The member devices of a filesystem opened for writing (see members.h).
 *
 * Commit order across members (on-disk-engine 11.2, kernel
 * write_all_supers): tree blocks have already reached every copy and every
 * member was flushed; then the primary superblock goes to every member,
 * every member is flushed, then the mirrors on every member, not flushed
 * (the kernel writes them lazily too; the next commit's first flush, or the
 * page cache, takes them to disk): two flushes a commit, not one a copy,
 * which was most of the time of a small commit.  A stale mirror is only
 * read when the primary is unreadable.  A failure before the first
 * primary copy leaves every member as it was.  A failure after it leaves
 * members at two generations; all the
 * blocks of the new one are durable on every member by then, so the kernel
 * (which mounts from the member with the highest generation) and btrfs
 * check see the new state, and the writer refuses the older members as
 * stale until a kernel commit has brought them level again (a mount
 * alone commits nothing).
 */
#include <errno.h>
#include <string.h>
#include "fs.h"
#include "members.h"
#include "super.h"
#include "volumes.h"

static const char *dev_name(const struct btrfs_device *dev)
{
	return dev->io ? dev->io->name : "?";
}

/* The message of a failure about member @dev, which it names first */
static __attribute__((format(printf, 3, 4)))
void dev_error(struct btrfs_fs *fs, bool once, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	btrfs_fs_vset_error(fs, BTRFS_ERR_OBJ_DEVICE, once, fmt, ap);
	va_end(ap);
}

int btrfs_members_check_supers(struct btrfs_fs *fs)
{
	u64 num = btrfs_super_num_devices(&fs->super);

	for (size_t i = 0; i < fs->nr_devices; i++) {
		const struct btrfs_device *dev = fs->devices[i];

		if (!dev->io)
			continue;
		if (dev->devid == 0) {
			dev_error(fs, false, "%s: target of a device replace in progress: "
				  "writing not implemented offline", dev_name(dev));
			return -EOPNOTSUPP;
		}
		if (dev->sb_generation != fs->generation) {
			dev_error(fs, false, "%s: device %llu is stale (generation %llu, the "
				  "filesystem is at %llu): refusing to write; a kernel commit "
				  "brings it up to date (mount, change something, unmount)",
				  dev_name(dev), (unsigned long long)dev->devid,
				  (unsigned long long)dev->sb_generation,
				  (unsigned long long)fs->generation);
			return -ESTALE;
		}
		if (dev->sb_num_devices != num) {
			dev_error(fs, false, "%s: device %llu says the filesystem has %llu devices, "
				  "not %llu", dev_name(dev), (unsigned long long)dev->devid,
				  (unsigned long long)dev->sb_num_devices,
				  (unsigned long long)num);
			return -EINVAL;
		}
		if (memcmp(btrfs_dev_item_fsid(&dev->sb_item), fs->metadata_uuid,
			   BTRFS_FSID_SIZE)) {
			dev_error(fs, false, "%s: device %llu: dev_item fsid differs from the "
				  "filesystem's", dev_name(dev),
				  (unsigned long long)dev->devid);
			return -EINVAL;
		}
	}
	return 0;
}

/* A write to a metadata or system chunk with parity would need its parity rewritten */
static int check_parity_chunks(struct btrfs_fs *fs)
{
	for (size_t i = 0; i < fs->nr_chunks; i++) {
		const struct btrfs_chunk_map *map = fs->chunks[i];

		if (!(map->type & (BTRFS_BLOCK_GROUP_METADATA | BTRFS_BLOCK_GROUP_SYSTEM)) ||
		    !(map->type & (BTRFS_BLOCK_GROUP_RAID5 | BTRFS_BLOCK_GROUP_RAID6)))
			continue;
		btrfs_fs_set_error(fs, "chunk %llu: %s %s: writing not implemented offline "
				   "(parity)", (unsigned long long)map->start,
				   map->type & BTRFS_BLOCK_GROUP_SYSTEM ? "system" : "metadata",
				   btrfs_profile_name(map->type));
		return -EOPNOTSUPP;
	}
	return 0;
}

int btrfs_members_check_complete(struct btrfs_fs *fs)
{
	u64 num = btrfs_super_num_devices(&fs->super);
	u64 members = 0;

	for (size_t i = 0; i < fs->nr_devices; i++) {
		const struct btrfs_device *dev = fs->devices[i];

		if (dev->in_chunk_tree && !dev->io) {
			btrfs_fs_set_error(fs, "device %llu is missing: give every member with "
					   "--image; a degraded filesystem is never written",
					   (unsigned long long)dev->devid);
			return -ENXIO;
		}
		if (!dev->in_chunk_tree) {
			dev_error(fs, false, "%s: device %llu is not a member of the filesystem "
				  "(no DEV_ITEM with its uuid)", dev_name(dev),
				  (unsigned long long)dev->devid);
			return -EINVAL;
		}
		if (dev->io->size < dev->total_bytes) {
			dev_error(fs, false, "%s: device %llu is %llu bytes, smaller than its "
				  "recorded size %llu (truncated image?)", dev_name(dev),
				  (unsigned long long)dev->devid,
				  (unsigned long long)dev->io->size,
				  (unsigned long long)dev->total_bytes);
			return -EUCLEAN;
		}
		members++;
	}
	if (members != num) {
		btrfs_fs_set_error(fs, "chunk tree lists %llu devices, the superblock %llu",
				   (unsigned long long)members, (unsigned long long)num);
		return -EUCLEAN;
	}
	return check_parity_chunks(fs);
}

int btrfs_members_flush(struct btrfs_fs *fs)
{
	int err = 0;

	/* flush them all even after a failure: the others' writes still matter */
	for (size_t i = 0; i < fs->nr_devices; i++) {
		struct btrfs_device *dev = fs->devices[i];
		int ret;

		if (!dev->io)
			continue;
		ret = btrfs_io_flush(dev->io);
		if (ret < 0 && !err) {
			dev_error(fs, true, "%s: flush failed", dev_name(dev));
			err = ret;
		}
	}
	return err;
}

/* @sb's dev_item for @dev: what the kernel refreshes at each commit */
static void fill_dev_item(struct btrfs_fs *fs, const struct btrfs_device *dev,
			  struct btrfs_super_block *sb)
{
	struct btrfs_dev_item *di = btrfs_super_dev_item(sb);
	const struct btrfs_dev_item *ci = &dev->item;

	memcpy(di, &dev->sb_item, sizeof(*di));
	btrfs_set_dev_item_generation(di, 0);
	btrfs_set_dev_item_type(di, btrfs_dev_item_type(ci));
	btrfs_set_dev_item_devid(di, dev->devid);
	btrfs_set_dev_item_total_bytes(di, dev->total_bytes);
	btrfs_set_dev_item_bytes_used(di, dev->bytes_used);
	btrfs_set_dev_item_io_align(di, btrfs_dev_item_io_align(ci));
	btrfs_set_dev_item_io_width(di, btrfs_dev_item_io_width(ci));
	btrfs_set_dev_item_sector_size(di, btrfs_dev_item_sector_size(ci));
	btrfs_set_dev_item_uuid(di, dev->uuid);
	btrfs_set_dev_item_fsid(di, fs->metadata_uuid);
}

static int write_copy(struct btrfs_fs *fs, const struct btrfs_device *dev,
		      struct btrfs_super_block *sb, int mirror)
{
	u64 off = btrfs_sb_offset(mirror);
	int ret;

	btrfs_set_super_bytenr(sb, off);
	if (fs->unfinished)
		btrfs_set_super_magic(sb, BTRFS_MAGIC_TEMPORARY);
	ret = btrfs_super_csum_update(sb);
	if (ret < 0)
		return ret;
	ret = btrfs_io_write(dev->io, sb, BTRFS_SUPER_INFO_SIZE, off);
	if (ret < 0)
		dev_error(fs, true, "%s: device %llu: cannot write superblock copy %d",
			  dev_name(dev), (unsigned long long)dev->devid, mirror);
	return ret;
}

/* Copy @m of @sb on every member that has room for it; *@written: how many */
static int write_mirror(struct btrfs_fs *fs, const struct btrfs_super_block *sb, int m,
			int *written)
{
	struct btrfs_super_block copy;
	int ret;

	*written = 0;
	for (size_t i = 0; i < fs->nr_devices; i++) {
		const struct btrfs_device *dev = fs->devices[i];

		if (!dev->io)
			continue;
		if (btrfs_sb_offset(m) + BTRFS_SUPER_INFO_SIZE > dev->io->size)
			continue;
		copy = *sb;
		fill_dev_item(fs, dev, &copy);
		ret = write_copy(fs, dev, &copy, m);
		if (ret < 0)
			return ret;
		(*written)++;
	}
	return 0;
}

/* Every mirror copy (1, 2) of @sb on every member with room for it */
static int write_mirrors(struct btrfs_fs *fs, const struct btrfs_super_block *sb)
{
	int written;
	int ret;

	for (int m = 1; m < BTRFS_SUPER_MIRROR_MAX; m++) {
		ret = write_mirror(fs, sb, m, &written);
		if (ret < 0)
			return ret;
		if (!written)
			break;
	}
	return 0;
}

int btrfs_members_write_supers(struct btrfs_fs *fs, const struct btrfs_super_block *sb,
			       int *primaries)
{
	int ret;

	*primaries = 0;
	ret = write_mirror(fs, sb, 0, primaries);
	if (ret < 0)
		return ret;
	/* the primaries (the commit) are durable before any mirror says the same */
	ret = btrfs_members_flush(fs);
	if (ret < 0)
		return ret;
	return write_mirrors(fs, sb);
}

int btrfs_members_write_supers_mirrors_first(struct btrfs_fs *fs,
					     const struct btrfs_super_block *sb, int *primaries)
{
	int ret;

	*primaries = 0;
	ret = write_mirrors(fs, sb);
	if (ret < 0)
		return ret;
	/* no mirror may stay the older state's once the primary is the new one */
	ret = btrfs_members_flush(fs);
	if (ret < 0)
		return ret;
	return write_mirror(fs, sb, 0, primaries);
}
