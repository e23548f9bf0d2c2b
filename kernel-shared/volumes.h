/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Devices and the chunk map: logical address -> (device, physical offset).
 *
 * Devices are known by devid and device uuid, from each opened device's
 * superblock dev_item and from the chunk tree's DEV_ITEMs.  The chunk map is
 * bootstrapped from the superblock's sys_chunk_array (SYSTEM chunks, enough
 * to read the chunk tree) and then completed from the chunk tree's
 * CHUNK_ITEMs.  Every chunk is validated before it is added (profile bits,
 * stripe counts, lengths, alignment); overlapping chunks are -EUCLEAN.
 *
 * Mapping covers SINGLE, DUP, RAID0, RAID1, RAID1C3, RAID1C4, RAID10 and the
 * data stripes of RAID5/RAID6 with all devices present.  "Mirrors" are
 * numbered from 1 like the kernel does: mirror 1 is the first copy; a
 * reader that finds a bad copy retries mirror 2, 3, ... up to
 * btrfs_num_copies().
 */
#ifndef VOLCTL_KERNEL_SHARED_VOLUMES_H
#define VOLCTL_KERNEL_SHARED_VOLUMES_H

#include <stdbool.h>
#include <stddef.h>
#include "format.h"
#include "io.h"

struct btrfs_fs;

struct btrfs_device {
	u64 devid;
	u8 uuid[BTRFS_UUID_SIZE];
	u64 total_bytes;		/* from the DEV_ITEM */
	u64 bytes_used;
	struct btrfs_io_dev *io;	/* NULL when the device is missing */
	bool in_chunk_tree;		/* a DEV_ITEM was seen for it */
	struct btrfs_dev_item item;	/* that DEV_ITEM (writer: the super's dev_item) */
	/* opened devices (io set): from the device's own superblock */
	struct btrfs_dev_item sb_item;
	u64 sb_generation;
	u64 sb_num_devices;
};

struct btrfs_chunk_stripe_map {
	u64 devid;
	u64 physical;
	u8 dev_uuid[BTRFS_UUID_SIZE];
	struct btrfs_device *dev;	/* NULL when missing */
};

struct btrfs_chunk_map {
	u64 start;			/* logical */
	u64 length;
	u64 type;			/* BTRFS_BLOCK_GROUP_* */
	u64 stripe_len;
	u16 num_stripes;
	u16 sub_stripes;
	struct btrfs_chunk_stripe_map stripes[];
};

/* One place a logical range lives on a device */
struct btrfs_io_stripe {
	struct btrfs_device *dev;
	u64 physical;
};

/* Most copies a profile keeps (RAID1C4) and most stripes a write touches */
#define BTRFS_MAX_MIRRORS	4

/**
 * btrfs_chunk_validate - check one CHUNK_ITEM payload, as the kernel's tree-checker
 * @mixed:	the filesystem has mixed-groups (data and metadata in one chunk)
 * @logical:	key offset (chunk start)
 * @data/@len:	item payload, untrusted
 * @errmsg:	BTRFS_ERRMSG_SIZE buffer
 *
 * Return: 0 or -EUCLEAN ("chunk 22020096: invalid num_stripes 0 for DUP").
 */
int btrfs_chunk_validate(u32 sectorsize, bool mixed, u64 logical, const void *data, u32 len,
			 char *errmsg);

/**
 * btrfs_chunk_map_insert - validate a CHUNK_ITEM and add it to @fs's map
 *
 * A chunk already present with the same start, length and type (the
 * sys_chunk_array copy of a chunk-tree item) is accepted once.
 * Return: 0, -EUCLEAN (invalid or overlapping), -ENOMEM.
 */
int btrfs_chunk_map_insert(struct btrfs_fs *fs, u64 logical, const void *data, u32 len);

/** btrfs_chunk_map_remove - forget the chunk starting at @logical (writer abort) */
void btrfs_chunk_map_remove(struct btrfs_fs *fs, u64 logical);

/** btrfs_chunk_map_lookup - chunk containing @logical, or NULL */
const struct btrfs_chunk_map *btrfs_chunk_map_lookup(const struct btrfs_fs *fs, u64 logical);

/** btrfs_read_sys_chunk_array - parse the superblock's sys_chunk_array */
int btrfs_read_sys_chunk_array(struct btrfs_fs *fs);

/**
 * btrfs_chunk_tree_add_item - take one item of the chunk tree: a DEV_ITEM
 * registers its device, a CHUNK_ITEM goes into the chunk map (fs.c feeds
 * every item of the tree when it opens the filesystem); others are ignored
 */
int btrfs_chunk_tree_add_item(struct btrfs_fs *fs, const struct btrfs_key *key, const void *data,
			      u32 len);

/**
 * btrfs_check_total_bytes - the superblock's total_bytes must cover the
 * DEV_ITEM sizes of the devices opened, or the kernel refuses to mount
 *
 * Call once the chunk tree is in.  Return: 0 or -EUCLEAN (fs->errmsg says why).
 */
int btrfs_check_total_bytes(struct btrfs_fs *fs);

/*
 * Every DEV_EXTENT of the dev tree against the chunk map, as the kernel does
 * before it mounts; fs.c reads the tree and feeds the items in key order.
 *
 * In key order: no overlap with the previous extent of the device, a chunk
 * at its chunk offset, the length of one stripe of that chunk, one of the
 * chunk's stripes (device and offset), a DEV_ITEM for the device and the
 * extent inside its total_bytes; then every stripe of every chunk has its
 * extent.  Return: 0, -EUCLEAN with the first problem in fs->errmsg, or a
 * read error.
  */
struct btrfs_dev_extent_check {
	struct btrfs_fs *fs;
	u32 *matched;			/* per chunk of fs->chunks: its device extents seen */
	u64 prev_devid;
	u64 prev_end;
};

/* btrfs_dev_extent_check_start - set @w up for @fs.  Return: 0 or -ENOMEM. */
int btrfs_dev_extent_check_start(struct btrfs_dev_extent_check *w, struct btrfs_fs *fs);

/*
 * btrfs_dev_extent_check - one item of the dev tree.  Return: 0 to go on,
 * 1 past the device extents (stop), -EUCLEAN with fs->errmsg set.
 */
int btrfs_dev_extent_check(struct btrfs_dev_extent_check *w, const struct btrfs_key *key,
			   const void *data, u32 len);

/*
 * btrfs_dev_extent_check_finish - with @ret the walk's result: when it is 0,
 * every stripe of every chunk must have had its extent.  Frees @w's memory.
 */
int btrfs_dev_extent_check_finish(struct btrfs_dev_extent_check *w, int ret);

/**
 * btrfs_device_add - register a device by devid/uuid
 * @io:		opened device, or NULL if only known from metadata
 * Return: the device (existing entries are updated), or NULL on -ENOMEM.
 */
struct btrfs_device *btrfs_device_add(struct btrfs_fs *fs, u64 devid, const u8 *uuid,
				      struct btrfs_io_dev *io);

/** btrfs_device_find - device with @devid (and @uuid unless NULL), or NULL */
struct btrfs_device *btrfs_device_find(const struct btrfs_fs *fs, u64 devid, const u8 *uuid);

/**
 * btrfs_num_copies - how many copies of [@logical, @logical + @len) exist
 * Return: 1..4, or -ENOENT when no chunk maps @logical.
 */
int btrfs_num_copies(const struct btrfs_fs *fs, u64 logical, u64 len);

/**
 * btrfs_map_block - where copy @mirror (1-based) of a logical range lives
 *
 * The range must not cross a chunk or stripe boundary (tree blocks never
 * do).  Return: 0, -ENOENT (unmapped), -EUCLEAN (crosses a boundary),
 * -EINVAL (@mirror out of range), -ENXIO (the device is missing).
 */
int btrfs_map_block(struct btrfs_fs *fs, u64 logical, u64 len, int mirror,
		    struct btrfs_io_stripe *out);

/**
 * btrfs_chunk_rmap - logical address in @map that device offset @physical
 * of stripe @stripe holds (the inverse of btrfs_map_block)
 * Return: 0, -ENOENT (outside that stripe's device extent), -EOPNOTSUPP
 * for RAID5/6.
 */
int btrfs_chunk_rmap(const struct btrfs_chunk_map *map, u16 stripe, u64 physical, u64 *logical);

/**
 * btrfs_map_block_all - every copy of a logical range, for writing
 * @out:	room for BTRFS_MAX_MIRRORS entries
 * @nr:		receives the number filled
 * Return: as btrfs_map_block(); -EOPNOTSUPP for RAID5/6 (parity).
 */
int btrfs_map_block_all(struct btrfs_fs *fs, u64 logical, u64 len,
			struct btrfs_io_stripe *out, int *nr);

/**
 * btrfs_read_logical - read copy @mirror of a logical range (no verification)
 */
int btrfs_read_logical(struct btrfs_fs *fs, u64 logical, void *buf, u64 len, int mirror);

/** btrfs_write_logical - write every copy of a logical range */
int btrfs_write_logical(struct btrfs_fs *fs, u64 logical, const void *buf, u64 len);

/** btrfs_volumes_release - free devices and the chunk map of @fs */
void btrfs_volumes_release(struct btrfs_fs *fs);

/** btrfs_profile_name - "single", "dup", "raid1", ... for chunk @type */
const char *btrfs_profile_name(u64 type);

#endif /* VOLCTL_KERNEL_SHARED_VOLUMES_H */
