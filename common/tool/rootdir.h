/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `mkfs --rootdir DIR`: a directory tree copied into a new image.
 *
 * Two steps.  vc_rootdir_scan() reads the tree (no image yet): every
 * inode's metadata, xattrs and symlink target, the names sorted bytewise,
 * the hard links grouped (one inode per subvolume: links cannot cross
 * one), mount points left out; it sizes the data and metadata so mkfs can
 * refuse a tree that does not fit before it writes anything.
 * vc_rootdir_write() then writes it into the image in one transaction:
 * the subvolumes named by --subvol that are directories of DIR, and every
 * inode, with file data read again through the scan's inodes and checked
 * unchanged.
 */
#ifndef VOLCTL_COMMON_TOOL_ROOTDIR_H
#define VOLCTL_COMMON_TOOL_ROOTDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct btrfs_fs;
struct vc_rootdir;

/* An id range of a user-namespace style map: FROM..FROM+COUNT-1 -> TO.. */
struct vc_id_map {
	uint32_t from, to, count;
};

/* --inode-flags: BTRFS_INODE_* flags for a path of DIR and, a directory, all below it */
struct vc_inode_flags {
	const char *path;		/* image path */
	uint64_t flags;			/* BTRFS_INODE_NODATACOW, BTRFS_INODE_NODATASUM */
};

struct vc_rootdir_opts {
	const char *dir;
	const char *const *subvols;	/* image paths ("/a/b") to make subvolumes */
	size_t nr_subvols;
	const struct vc_inode_flags *iflags;
	size_t nr_iflags;
	bool owner_set;			/* --owner: every inode's owner */
	uint32_t owner_uid, owner_gid;
	const struct vc_id_map *uid_map, *gid_map;	/* unmapped ids become 65534 */
	size_t nr_uid_map, nr_gid_map;
	bool clamp;			/* SOURCE_DATE_EPOCH: later times become it */
	int64_t clamp_sec;
	int64_t now_sec;		/* otime of every inode, times of new subvolumes */
	uint32_t now_nsec;
	uint32_t nodesize, sectorsize;
	uint8_t compress;		/* --compress: BTRFS_COMPRESS_*, 0 none */
	int compress_level;		/* its level, 0 the default */
	/* told of each mount point inside DIR that is not copied; may be NULL */
	void (*skipped)(void *priv, const char *path);
	void *priv;
};

struct vc_rootdir_stats {
	uint64_t inodes;		/* inodes written (a hard-linked file once per subvolume) */
	uint64_t dirs, files, symlinks, specials, hardlinks;
	uint64_t data_bytes;		/* bytes of data extents written */
	uint64_t inline_bytes;
	uint64_t subvols;		/* subvolumes made from directories of DIR */
};

/**
 * vc_rootdir_scan - read @o->dir into a plan
 * Return: 0 and *@out, or <0 with @err naming the path (missing, not a
 * directory, unreadable, a --subvol that is not a directory).
 */
int vc_rootdir_scan(const struct vc_rootdir_opts *o, struct vc_rootdir **out, char *err,
		    size_t errlen);

/** vc_rootdir_data_bytes - data extent bytes the plan needs at most */
uint64_t vc_rootdir_data_bytes(const struct vc_rootdir *rd);

/** vc_rootdir_meta_bytes - metadata bytes (one copy) the plan needs at most */
uint64_t vc_rootdir_meta_bytes(const struct vc_rootdir *rd);

/** vc_rootdir_has - @path (an image path) is in DIR; vc_rootdir_is_dir - as a directory */
bool vc_rootdir_has(const struct vc_rootdir *rd, const char *path);
bool vc_rootdir_is_dir(const struct vc_rootdir *rd, const char *path);

/** vc_rootdir_is_subvol - @path (an image path) was made a subvolume from DIR */
bool vc_rootdir_is_subvol(const struct vc_rootdir *rd, const char *path);

/**
 * vc_rootdir_write - write the plan into @fs (one transaction); with
 * @measure, every item but no file data (mkfs --shrink's measuring run)
 * Return: 0, or <0 with @err set (a file that changed while copied, I/O,
 * no space); the image is then as it was.
 */
int vc_rootdir_write(struct btrfs_fs *fs, struct vc_rootdir *rd, bool measure,
		     struct vc_rootdir_stats *st, char *err, size_t errlen);

void vc_rootdir_free(struct vc_rootdir *rd);

#endif /* VOLCTL_COMMON_TOOL_ROOTDIR_H */
