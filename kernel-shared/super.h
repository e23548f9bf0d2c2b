/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Superblock: reading the copies, verifying them, choosing one.
 *
 * Copies live at physical 64 KiB, 64 MiB and 256 GiB of every device (those
 * that fit).  A copy is valid when its magic is right, its checksum (of
 * bytes 32..4095, algorithm csum_type) matches, its bytenr names where it
 * was read from and every size field is sane (btrfs_super_validate()).
 * The kernel mounts from the primary (copy 0) only and never falls back to
 * a mirror, so neither does this reader: a mirror is read only when the
 * caller names it.  btrfs_super_read_copies() reads every copy and says how
 * each compares with the primary (for `volctl check`).
 *
 * Feature flags: btrfs_super_check_features() refuses incompat bits this
 * reader does not understand, naming the flag; for writing it is stricter.
 */
#ifndef VOLCTL_KERNEL_SHARED_SUPER_H
#define VOLCTL_KERNEL_SHARED_SUPER_H

#include <stdbool.h>
#include "errmsg.h"
#include "format.h"
#include "io.h"
#include "super-types.h"

/*
 * The writer's last look before the superblock copies of a commit (or of
 * mkfs) are written: who else uses the devices (common/image/storage.c).  A
 * negative return aborts the write, the superblocks untouched, with @msg
 * (BTRFS_ERRMSG_SIZE bytes) saying why.
 */
struct btrfs_super_guard {
	int (*check)(void *priv, char *msg);
	void *priv;
};

static inline int btrfs_super_guard_check(const struct btrfs_super_guard *g, char *msg)
{
	return g && g->check ? g->check(g->priv, msg) : 0;
}

/* Incompat bits the reader understands */
#define BTRFS_READ_INCOMPAT_SUPP					\
	(BTRFS_FEATURE_INCOMPAT_MIXED_BACKREF |				\
	 BTRFS_FEATURE_INCOMPAT_DEFAULT_SUBVOL |			\
	 BTRFS_FEATURE_INCOMPAT_MIXED_GROUPS |				\
	 BTRFS_FEATURE_INCOMPAT_COMPRESS_LZO |				\
	 BTRFS_FEATURE_INCOMPAT_COMPRESS_ZSTD |				\
	 BTRFS_FEATURE_INCOMPAT_BIG_METADATA |				\
	 BTRFS_FEATURE_INCOMPAT_EXTENDED_IREF |				\
	 BTRFS_FEATURE_INCOMPAT_RAID56 |				\
	 BTRFS_FEATURE_INCOMPAT_SKINNY_METADATA |			\
	 BTRFS_FEATURE_INCOMPAT_NO_HOLES |				\
	 BTRFS_FEATURE_INCOMPAT_METADATA_UUID |				\
	 BTRFS_FEATURE_INCOMPAT_RAID1C34 |				\
	 BTRFS_FEATURE_INCOMPAT_SIMPLE_QUOTA)

/* Incompat bits a writer may keep; the rest must refuse to write */
#define BTRFS_WRITE_INCOMPAT_SUPP					\
	(BTRFS_FEATURE_INCOMPAT_MIXED_BACKREF |				\
	 BTRFS_FEATURE_INCOMPAT_DEFAULT_SUBVOL |			\
	 BTRFS_FEATURE_INCOMPAT_COMPRESS_LZO |				\
	 BTRFS_FEATURE_INCOMPAT_COMPRESS_ZSTD |				\
	 BTRFS_FEATURE_INCOMPAT_BIG_METADATA |				\
	 BTRFS_FEATURE_INCOMPAT_EXTENDED_IREF |				\
	 BTRFS_FEATURE_INCOMPAT_SKINNY_METADATA |			\
	 BTRFS_FEATURE_INCOMPAT_NO_HOLES |				\
	 BTRFS_FEATURE_INCOMPAT_RAID1C34 |				\
	 BTRFS_FEATURE_INCOMPAT_RAID56 |				\
	 BTRFS_FEATURE_INCOMPAT_SIMPLE_QUOTA)

/* compat_ro bits a writer understands (unknown ones: read-only only) */
#define BTRFS_WRITE_COMPAT_RO_SUPP					\
	(BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE |			\
	 BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE_VALID |		\
	 BTRFS_FEATURE_COMPAT_RO_VERITY |				\
	 BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE)

/* The copy the kernel mounts from (struct btrfs_open_args.super_mirror) */
#define BTRFS_SUPER_PRIMARY	0

/**
 * btrfs_super_csum_verify - whether the checksum of @sb matches
 * Return: 0, -EUCLEAN on mismatch, -EOPNOTSUPP for an unknown csum_type.
 */
int btrfs_super_csum_verify(const struct btrfs_super_block *sb);

/** btrfs_super_csum_update - recompute and store the checksum of @sb */
int btrfs_super_csum_update(struct btrfs_super_block *sb);

/**
 * btrfs_super_validate - sanity of one superblock copy
 * @sb:		the copy, checksum already verified
 * @bytenr:	physical offset it was read from
 * @errmsg:	BTRFS_ERRMSG_SIZE buffer for the reason
 *
 * Checks magic, bytenr, csum_type, sectorsize/nodesize/stripesize (powers
 * of two in range), root and chunk_root alignment, levels < 8,
 * sys_chunk_array_size, num_devices, root_dir_objectid, log_root.
 * Return: 0 or -EUCLEAN.
 */
int btrfs_super_validate(const struct btrfs_super_block *sb, u64 bytenr, char *errmsg);

/**
 * btrfs_super_check_features - refuse feature bits we cannot handle
 * @writable:	the caller will write (stricter set)
 *
 * The message names the first offending flag ("incompat feature
 * extent-tree-v2 not supported").  Return: 0 or -EOPNOTSUPP.
 */
int btrfs_super_check_features(const struct btrfs_super_block *sb, bool writable, char *errmsg);

/**
 * btrfs_super_read_mirror - read and fully verify copy @mirror of @dev
 * Return: 0, -ENOENT if the copy lies beyond the end of the device,
 * -EUCLEAN (bad magic, checksum or field), or an I/O error.  Its
 * messages, and btrfs_super_read()'s, always name @dev first.
 */
int btrfs_super_read_mirror(struct btrfs_io_dev *dev, int mirror, struct btrfs_super_block *sb,
			    char *errmsg);

/**
 * btrfs_super_read_copies - read every copy of @dev and compare each with
 * the primary
 * @primary:	the primary, valid, when the caller has read it already (else NULL)
 * @copies:	BTRFS_SUPER_MIRROR_MAX entries
 *
 * A copy belongs to the device when it fits in it and, as the kernel
 * writes them (write_dev_supers()), ends before the total_bytes of the
 * device's dev_item (the primary's, else the newest valid copy's); copies
 * past either are BTRFS_SUPER_ABSENT, and so is a mirror of zeros (never
 * written: btrfs-image -r leaves them so; the kernel writes it at its next
 * commit).  Copies compare equal when every
 * byte but the checksum and bytenr is the same.
 * Return: how many copies belong to the device (1..3; the primary always).
 */
int btrfs_super_read_copies(struct btrfs_io_dev *dev, const struct btrfs_super_block *primary,
			    struct btrfs_super_copy *copies);

/**
 * btrfs_super_read - read and verify copy @mirror (BTRFS_SUPER_PRIMARY
 * unless the user asked for a mirror) of @dev; the same as
 * btrfs_super_read_mirror(): no other copy is ever tried
 */
int btrfs_super_read(struct btrfs_io_dev *dev, int mirror, struct btrfs_super_block *sb,
		     char *errmsg);

/** btrfs_incompat_name - "skinny-metadata", ... for one bit; NULL if unknown */
const char *btrfs_incompat_name(u64 bit);
/** btrfs_compat_ro_name - "free-space-tree", ... for one bit; NULL if unknown */
const char *btrfs_compat_ro_name(u64 bit);

#endif /* VOLCTL_KERNEL_SHARED_SUPER_H */
