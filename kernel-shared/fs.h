/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An open, unmounted filesystem: the context every offline operation uses.
 *
 * btrfs_fs_open() reads the superblock of each given device (the primary,
 * as the kernel, or the mirror the caller names), checks that they belong to one
 * filesystem, refuses feature flags it cannot handle (naming them), builds
 * the chunk map from sys_chunk_array and the chunk tree, and reads the root
 * tree root.  Trees are then reached with btrfs_read_root() (ctree.h).
 *
 * No globals: everything lives in struct btrfs_fs.  Fields are read-only
 * for callers.  When a call fails with more to say than an errno,
 * fs->errmsg (btrfs_fs_error()) holds one lowercase line naming the object:
 * "tree block 30425088: checksum mismatch (mirror 1)".  Clear it with
 * btrfs_fs_clear_error() before an operation whose message you want.
 * fs->errobj says, as a value, whether that line starts with a subvolume
 * or qgroup the caller asked about (btrfs_fs_set_obj_error()); a message
 * without one is about the filesystem, and the caller names the image.
 */
#ifndef VOLCTL_KERNEL_SHARED_FS_H
#define VOLCTL_KERNEL_SHARED_FS_H

#include <stdbool.h>
#include <stddef.h>
#include "format.h"
#include "errmsg.h"
#include "io.h"
#include "super.h"
#include "volumes.h"

struct btrfs_root;
struct extent_buffer;

/* What the message of the current failure names first */
enum btrfs_err_object {
	BTRFS_ERR_OBJ_NONE,		/* the filesystem (or a block, a device in it) */
	BTRFS_ERR_OBJ_SUBVOL,		/* "subvolume 257: read-only" */
	BTRFS_ERR_OBJ_QGROUP,		/* "qgroup 1/0 does not exist", a relation of two */
	BTRFS_ERR_OBJ_DEVICE,		/* "b.img: device 2 is stale": a member, by its name */
};

/*
 * A write refused by a qgroup limit (-EDQUOT), as values; the message of
 * the same failure says it in words.  @qgroupid 0: no refusal recorded.
 */
struct btrfs_limit_refusal {
	u64 qgroupid;			/* the group whose limit refused */
	u64 limit;			/* max_excl or max_rfer */
	u64 over;			/* bytes beyond it the write would have gone */
	u64 reserve;			/* what a new subvolume reserves in its parent, or 0 */
	bool exclusive;			/* the exclusive limit (else referenced) */
};

struct btrfs_open_args {
	struct btrfs_io_dev **devs;	/* opened devices; borrowed, close them after btrfs_fs_close() */
	size_t nr_devs;
	int super_mirror;		/* BTRFS_SUPER_PRIMARY, or the mirror (1, 2) the user named */
	bool writable;			/* refuse features the writer cannot keep; devs must be writable */
	u32 cache_blocks;		/* clean blocks to cache; 0 = 64 MiB worth */
	char *errmsg;			/* optional BTRFS_ERRMSG_SIZE buffer: why open failed */
	enum btrfs_err_object *errobj;	/* optional: what that message names first */
	/*
	 * Optional: the superblock of each device, already read by the caller
	 * with btrfs_super_read(@super_mirror) (a NULL entry is read here); a
	 * caller that had to read them to find the members saves a second read.
	 */
	const struct btrfs_super_block *const *supers;
};

struct btrfs_eb_cache {
	struct extent_buffer **hash;	/* chained by bytenr */
	u32 hash_size;			/* power of two */
	struct extent_buffer *lru_first;	/* clean unreferenced, oldest first */
	struct extent_buffer *lru_last;
	u32 nr;				/* buffers in the cache */
	u32 nr_clean_unused;		/* of those: refs == 0 and not dirty */
	u32 max_clean;
	/* where buffers come from (extent-buffer.c): slabs and a free list */
	void **slabs;
	u32 nr_slabs, alloc_slabs;
	u8 *slab_next;			/* unused room of the newest slab */
	size_t slab_left;
	struct extent_buffer *free_bufs;	/* chained by hash_next */
};

struct btrfs_fs {
	struct btrfs_super_block super;	/* the copy in use */
	int super_mirror;		/* which copy (0..2) */
	u32 nodesize;
	u32 sectorsize;
	u32 stripesize;
	u16 csum_type;
	int csum_size;
	u64 generation;			/* super generation */
	u8 fsid[BTRFS_FSID_SIZE];
	u8 metadata_uuid[BTRFS_FSID_SIZE];	/* what tree headers carry */
	u8 chunk_tree_uuid[BTRFS_UUID_SIZE];
	bool writable;
	bool derive_uuids;		/* new UUIDs from uuid_seed (reproducible images) */
	bool unfinished;		/* superblocks say BTRFS_MAGIC_TEMPORARY (a mkfs filling it) */
	u8 uuid_seed[16];
	struct btrfs_super_guard super_guard;	/* asked before a commit's superblocks */

	/* volumes.c */
	struct btrfs_device **devices;
	size_t nr_devices;
	struct btrfs_chunk_map **chunks;	/* sorted by start, not overlapping */
	size_t nr_chunks;
	size_t chunks_alloc;

	/* extent-buffer.c */
	struct btrfs_eb_cache cache;
	u32 prefetching;		/* btrfs_prefetch_begin() calls with a worker started */

	/* ctree.c: every root read so far, owned here */
	struct btrfs_root *tree_root;
	struct btrfs_root *chunk_root;
	struct btrfs_root **roots;
	size_t nr_roots;

	char errmsg[BTRFS_ERRMSG_SIZE];
	enum btrfs_err_object errobj;	/* what errmsg names first */
	struct btrfs_limit_refusal refusal;	/* with errmsg, when a limit refused */
};

/**
 * btrfs_fs_open - open the filesystem on @args->devs
 * @fsp:	receives the context; free with btrfs_fs_close()
 *
 * Return: 0; -EUCLEAN (corrupt), -EOPNOTSUPP (feature not supported),
 * -EINVAL (devices of different filesystems, bad arguments), -ENXIO (a
 * device the metadata needs is missing), -EIO, -ENOMEM.  On failure the
 * reason is in args->errmsg when given.
 */
int btrfs_fs_open(struct btrfs_fs **fsp, const struct btrfs_open_args *args);

/** btrfs_fs_close - drop all buffers and roots; the io devices stay open */
void btrfs_fs_close(struct btrfs_fs *fs);

/* The message of the current failure, naming @obj first; @once keeps one already there */
static inline __attribute__((format(printf, 4, 0)))
void btrfs_fs_vset_error(struct btrfs_fs *fs, enum btrfs_err_object obj, bool once,
			 const char *fmt, va_list ap)
{
	if (once && fs->errmsg[0])
		return;
	vsnprintf(fs->errmsg, sizeof(fs->errmsg), fmt, ap);
	fs->errobj = obj;
	fs->refusal.qgroupid = 0;
}

/** btrfs_fs_set_error - format the message of the current failure */
static inline __attribute__((format(printf, 2, 3)))
void btrfs_fs_set_error(struct btrfs_fs *fs, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	btrfs_fs_vset_error(fs, BTRFS_ERR_OBJ_NONE, false, fmt, ap);
	va_end(ap);
}

/** btrfs_fs_set_error_once - same, unless a message is already there */
static inline __attribute__((format(printf, 2, 3)))
void btrfs_fs_set_error_once(struct btrfs_fs *fs, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	btrfs_fs_vset_error(fs, BTRFS_ERR_OBJ_NONE, true, fmt, ap);
	va_end(ap);
}

/**
 * btrfs_fs_set_obj_error - the message of a failure about @obj, whose
 * name the message starts with ("subvolume 257: read-only")
 */
static inline __attribute__((format(printf, 3, 4)))
void btrfs_fs_set_obj_error(struct btrfs_fs *fs, enum btrfs_err_object obj, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	btrfs_fs_vset_error(fs, obj, false, fmt, ap);
	va_end(ap);
}

/** btrfs_fs_set_obj_error_once - same, unless a message is already there */
static inline __attribute__((format(printf, 3, 4)))
void btrfs_fs_set_obj_error_once(struct btrfs_fs *fs, enum btrfs_err_object obj,
				 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	btrfs_fs_vset_error(fs, obj, true, fmt, ap);
	va_end(ap);
}

/** btrfs_fs_error - last message, "" if none */
static inline const char *btrfs_fs_error(const struct btrfs_fs *fs)
{
	return fs->errmsg;
}

/** btrfs_fs_error_object - what the last message names first (NONE if no message) */
static inline enum btrfs_err_object btrfs_fs_error_object(const struct btrfs_fs *fs)
{
	return fs->errmsg[0] ? fs->errobj : BTRFS_ERR_OBJ_NONE;
}

static inline void btrfs_fs_clear_error(struct btrfs_fs *fs)
{
	fs->errmsg[0] = '\0';
	fs->errobj = BTRFS_ERR_OBJ_NONE;
	fs->refusal.qgroupid = 0;
}

/** btrfs_fs_limit_refusal - the limit that refused the last write, or NULL */
static inline const struct btrfs_limit_refusal *btrfs_fs_limit_refusal(const struct btrfs_fs *fs)
{
	return fs->errmsg[0] && fs->refusal.qgroupid ? &fs->refusal : NULL;
}

/** btrfs_fs_set_super_guard - ask @guard before each commit writes its superblocks */
static inline void btrfs_fs_set_super_guard(struct btrfs_fs *fs, const struct btrfs_super_guard *guard)
{
	fs->super_guard = *guard;
}

/** btrfs_fs_has_incompat - whether incompat feature @bit is set */
static inline bool btrfs_fs_has_incompat(const struct btrfs_fs *fs, u64 bit)
{
	return (btrfs_super_incompat_flags(&fs->super) & bit) != 0;
}

static inline bool btrfs_fs_has_compat_ro(const struct btrfs_fs *fs, u64 bit)
{
	return (btrfs_super_compat_ro_flags(&fs->super) & bit) != 0;
}

#endif /* VOLCTL_KERNEL_SHARED_FS_H */
