/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Inodes written offline (layer 6): the items a file, directory, symlink,
 * device, fifo or socket consists of, for building a tree from a source
 * such as `mkfs --rootdir` (on-disk-engine 6.1-6.5).
 *
 * The caller chooses inode numbers and directory indexes and calls these
 * in any order inside one transaction; each call inserts complete items:
 *   (I INODE_ITEM 0)          btrfs_insert_inode_item()
 *   (I INODE_REF P)           btrfs_insert_inode_refs(): every name of I in
 *   (I INODE_EXTREF hash)       directory P, as many as fit one INODE_REF
 *                               item, the rest in INODE_EXTREF items
 *   (P DIR_ITEM hash)         btrfs_insert_dir_entry(): names with the same
 *   (P DIR_INDEX index)         hash share one DIR_ITEM, as in the kernel
 *   (I XATTR_ITEM hash)       btrfs_insert_xattr()
 *   (I EXTENT_DATA off)       btrfs_insert_inline_extent(), btrfs_insert_file_extent(),
 *                             and compressed: btrfs_insert_inline_compressed(),
 *                             btrfs_insert_compressed_extent()
 * Sizes, link counts and nbytes are the caller's: it knows the whole file.
 */
#ifndef VOLCTL_KERNEL_SHARED_INODE_WRITE_H
#define VOLCTL_KERNEL_SHARED_INODE_WRITE_H

#include <stddef.h>
#include "format.h"
#include "items.h"		/* struct btrfs_time */

struct btrfs_trans_handle;
struct btrfs_root;


struct btrfs_inode_args {
	u32 mode;			/* S_IF* type and permission bits */
	u32 uid, gid;
	u32 nlink;
	u64 size;
	u64 nbytes;			/* bytes of data extents (inline: their length) */
	u64 rdev;			/* the kernel's dev_t: major << 20 | minor */
	u64 flags;			/* BTRFS_INODE_* */
	struct btrfs_time atime, mtime, ctime, otime;
};

/* One name of an inode in one directory */
struct btrfs_link_name {
	u64 index;			/* its DIR_INDEX in the directory */
	const char *name;
	u16 len;
};

/** btrfs_insert_inode_item - INODE_ITEM of @ino, generation and transid T */
int btrfs_insert_inode_item(struct btrfs_trans_handle *trans, struct btrfs_root *root, u64 ino,
			    const struct btrfs_inode_args *a);

/**
 * btrfs_update_inode_item - rewrite @ino's INODE_ITEM from @a, keeping its
 * generation and sequence (transid becomes T)
 * Return: 0, -ENOENT (no such inode), <0.
 */
int btrfs_update_inode_item(struct btrfs_trans_handle *trans, struct btrfs_root *root, u64 ino,
			    const struct btrfs_inode_args *a);

/**
 * btrfs_insert_inode_refs - the back references of @ino's @nr names in
 * directory @parent (all of them, in one call)
 *
 * Names go into the INODE_REF item while it stays at most the largest
 * item; the rest become INODE_EXTREF items (the EXTENDED_IREF feature,
 * which every image volctl makes has), names whose hash is equal sharing
 * one item.
 * Return: 0, -EOVERFLOW (an EXTREF item would exceed the largest item), <0.
 */
int btrfs_insert_inode_refs(struct btrfs_trans_handle *trans, struct btrfs_root *root, u64 ino,
			    u64 parent, const struct btrfs_link_name *names, size_t nr);

/**
 * btrfs_insert_dir_entry - DIR_ITEM and DIR_INDEX of @name in @dir
 * pointing at @location (an inode, or a subvolume's ROOT_ITEM) of type
 * @type (BTRFS_FT_*)
 * Return: 0, -EOVERFLOW (too many names with one hash for one item), <0.
 */
int btrfs_insert_dir_entry(struct btrfs_trans_handle *trans, struct btrfs_root *root, u64 dir,
			   u64 index, const char *name, size_t name_len,
			   const struct btrfs_key *location, u8 type);

/**
 * btrfs_insert_xattr - extended attribute @name = @value of @ino
 * Return: 0, -E2BIG (larger than one item holds), -EOVERFLOW, <0.
 */
int btrfs_insert_xattr(struct btrfs_trans_handle *trans, struct btrfs_root *root, u64 ino,
		       const char *name, size_t name_len, const void *value, size_t value_len);

/** btrfs_max_xattr_size - largest name + value one XATTR_ITEM can hold */
u32 btrfs_max_xattr_size(u32 nodesize);

/**
 * btrfs_max_inline - the kernel's largest uncompressed inline extent at
 * the default max_inline (2048), below a sector and within one item
 */
u32 btrfs_max_inline(u32 nodesize, u32 sectorsize);

/**
 * btrfs_insert_inline_extent - @len bytes of @data inline at offset 0
 * (a small file, or a symlink's target)
 */
int btrfs_insert_inline_extent(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			       u64 ino, const void *data, size_t len);

/**
 * btrfs_insert_file_extent - EXTENT_DATA (REG, uncompressed) of @ino at
 * @file_off for the whole data extent [@disk_bytenr, + @disk_len), which
 * holds @num_bytes (sector aligned) of the file; queues the extent item
 * with its one EXTENT_DATA_REF (btrfs_add_data_extent())
 */
int btrfs_insert_file_extent(struct btrfs_trans_handle *trans, struct btrfs_root *root, u64 ino,
			     u64 file_off, u64 disk_bytenr, u64 disk_len, u64 num_bytes);

/**
 * btrfs_insert_inline_compressed - an inline extent holding @len bytes of
 * @data, the first @ram_bytes bytes of the file compressed with @type
 * (BTRFS_COMPRESS_*, compress.h's format); lzo and zstd set their incompat
 * bit at commit
 */
int btrfs_insert_inline_compressed(struct btrfs_trans_handle *trans, struct btrfs_root *root,
				   u64 ino, const void *data, size_t len, u64 ram_bytes, u8 type);

/**
 * btrfs_insert_compressed_extent - EXTENT_DATA (REG, compressed with @type)
 * of @ino at @file_off for the data extent [@disk_bytenr, + @disk_len)
 * (the compressed bytes rounded up to the sector, written and checksummed
 * by btrfs_data_write()), holding @ram_bytes (sector aligned, at most
 * 128 KiB, = num_bytes) of the file; queues its extent item like
 * btrfs_insert_file_extent(); lzo and zstd set their incompat bit at commit
 * Return: 0, -EINVAL (sizes the kernel would not write), <0.
 */
int btrfs_insert_compressed_extent(struct btrfs_trans_handle *trans, struct btrfs_root *root,
				   u64 ino, u64 file_off, u64 disk_bytenr, u64 disk_len,
				   u64 ram_bytes, u8 type);

#endif /* VOLCTL_KERNEL_SHARED_INODE_WRITE_H */
