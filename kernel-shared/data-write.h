/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * New file data inside an offline transaction (layer 5): data extents
 * written to free space of the DATA block groups, their checksums and
 * their extent items.
 *
 * The bytes go to the device at once (every copy of the chunk), into
 * space the committed state does not use, so a failed or aborted
 * transaction leaves the image as it was.  Checksums of consecutive
 * sectors are gathered in one run and become EXTENT_CSUM items of the
 * csum tree when the run breaks or the transaction commits, each at most
 * the kernel's largest csum item.  The extent item (EXTENT_ITEM with one
 * inline EXTENT_DATA_REF, refs 1, generation T, flags DATA), the block
 * group's used bytes, super bytes_used, the free space tree and the
 * subvolume's qgroup (rfer and excl: a new extent is not shared) are
 * queued and applied at commit by btrfs_run_pending().
 */
#ifndef VOLCTL_KERNEL_SHARED_DATA_WRITE_H
#define VOLCTL_KERNEL_SHARED_DATA_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include "format.h"

struct btrfs_trans_handle;

/* A data extent made in this transaction, until its extent item exists */
struct btrfs_trans_data {
	u64 bytenr;
	u64 len;
	u64 root, ino, offset;		/* its one EXTENT_DATA_REF */
	bool recorded;
};

/**
 * btrfs_data_write - write @len bytes of data at logical @bytenr (inside an
 * extent from btrfs_alloc_data()) and checksum them
 *
 * @bytenr and @len are sector aligned, except that the last piece of an
 * extent may end mid-sector: it is padded with zeros, which are written
 * and checksummed too.  Pieces of one extent are written in order.
 * @buf NULL: a measuring run (mkfs --shrink) makes the same items with
 * zero checksums and writes nothing to the device.
 * Return: 0, -EINVAL, -EIO or <0 from the csum tree.
 */
int btrfs_data_write(struct btrfs_trans_handle *trans, u64 bytenr, const void *buf, u64 len);

/** btrfs_data_write_nocsum - btrfs_data_write() without checksums (nodatasum files) */
int btrfs_data_write_nocsum(struct btrfs_trans_handle *trans, u64 bytenr, const void *buf,
			    u64 len);

/**
 * btrfs_add_data_extent - queue the extent item of a new data extent
 * [@bytenr, @bytenr + @len) referenced once by (@root, @ino, @offset),
 * the file offset the extent starts at minus its item's offset
 */
int btrfs_add_data_extent(struct btrfs_trans_handle *trans, u64 bytenr, u64 len, u64 root,
			  u64 ino, u64 offset);

/** btrfs_csum_flush - turn the gathered checksums into csum tree items */
int btrfs_csum_flush(struct btrfs_trans_handle *trans);

/**
 * btrfs_run_pending_data - extent items and accounting of queued data
 * extents (called by btrfs_run_pending())
 * Return: number applied or <0.
 */
int btrfs_run_pending_data(struct btrfs_trans_handle *trans);

/** btrfs_data_release - free the data state of @trans */
void btrfs_data_release(struct btrfs_trans_handle *trans);

#endif /* VOLCTL_KERNEL_SHARED_DATA_WRITE_H */
