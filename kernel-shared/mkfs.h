/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Making a new filesystem on one device (on-disk-engine 11.3).
 */
#ifndef VOLCTL_KERNEL_SHARED_MKFS_H
#define VOLCTL_KERNEL_SHARED_MKFS_H

#include <stdbool.h>
#include "format.h"

struct btrfs_io_dev;
struct btrfs_super_guard;

/* Most DATA chunks btrfs_mkfs() makes, and the largest (the kernel's for SINGLE) */
#define BTRFS_MKFS_MAX_DATA_CHUNKS	48
#define BTRFS_MKFS_DATA_CHUNK_MAX	(1ULL << 30)

/* Smallest device btrfs_mkfs() accepts */
#define BTRFS_MKFS_MIN_SIZE	(128ULL << 20)

struct btrfs_mkfs_args {
	struct btrfs_io_dev *dev;	/* opened writable */
	u64 size;			/* bytes of @dev to use; 0 = all */
	u32 nodesize;			/* 0 = 16 KiB */
	u16 csum_type;			/* BTRFS_CSUM_TYPE_* */
	const char *label;		/* NULL or at most 255 bytes */
	const u8 *fsid;			/* NULL = random */
	bool derive_uuids;		/* every other UUID derived from @fsid (btrfs_derive_uuid()) */
	u64 data_size;			/* bytes of DATA chunks (1 MiB multiple); 0 = size / 10 */
	u64 meta_size;			/* bytes of the METADATA chunk (each copy); 0 = size / 10 */
	bool shrink;			/* DATA, then METADATA last, the size where they end */
	bool meta_single;		/* SYSTEM and METADATA single instead of DUP */
	bool quota;			/* quota tree with 0/5, numbers exact */
	bool simple_quota;		/* with @quota: simple mode (squota) */
	u64 now_sec;			/* creation time */
	char *errmsg;			/* BTRFS_ERRMSG_SIZE bytes, or NULL */
	const struct btrfs_super_guard *guard;	/* asked before the new superblocks; NULL: none */
};

/**
 * btrfs_mkfs - write a new filesystem to @args->dev
 *
 * One device: SYSTEM and METADATA DUP (single with @meta_single), DATA
 * single, chunks placed around
 * the superblock mirrors; skinny metadata, no-holes, extended irefs, free
 * space tree, data relocation tree, UUID tree, optionally quotas.  Every
 * tree is one leaf of generation 1.  Simple quotas are enabled at that
 * generation (enable_gen 1, incompat SIMPLE_QUOTA), so 0/5 is charged the
 * fs tree's leaf, as the kernel would have charged it.  Crash safety: every superblock copy
 * is zeroed (and flushed) before any other write, and the new superblocks
 * are written last, after a flush, so an interrupted run never leaves an
 * image that looks valid.
 * Return: 0, -EINVAL (bad size, nodesize, label, simple_quota without
 * quota), -ENOSPC (device too
 * small), -EIO, or <0, with @args->errmsg set.
 */
int btrfs_mkfs(const struct btrfs_mkfs_args *args);

struct btrfs_fs;

/**
 * btrfs_mkfs_measure - what an image made by btrfs_mkfs() (and written
 * since) takes, for --shrink: *@data the bytes its DATA chunks need (every
 * chunk before the last one used whole, of that one up to its last extent:
 * the same chunk boundaries give the same allocations), *@meta the bytes
 * of the METADATA chunk up to its last tree block (one copy)
 * Return: 0, -EOPNOTSUPP (more than one METADATA chunk), <0.
 */
int btrfs_mkfs_measure(struct btrfs_fs *fs, u64 *data, u64 *meta);

#endif /* VOLCTL_KERNEL_SHARED_MKFS_H */
