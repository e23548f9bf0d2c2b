/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Copy-on-write transactions on an unmounted filesystem.
 *
 * A transaction T = super.generation + 1 collects every change in memory:
 * blocks allocated in T are new extent buffers (dirty, generation T) that
 * may be changed in place; any other block is copied first (ctree-write.c).
 * Allocations and frees are queued as pending extent updates and applied
 * to the extent tree, the block group items and the free space tree only
 * at commit, in a loop until a pass changes nothing (extent-tree.c).
 *
 * Crash safety: nothing reachable from the last committed superblock is
 * ever overwritten, and blocks freed in T are not reused before T is on
 * disk.  The commit writes every new block to every copy, flushes, writes
 * the primary superblocks, flushes, then the mirrors (two flushes a
 * commit; the kernel writes mirrors lazily too).  An error before the
 * primary superblock write leaves the image as it was; btrfs_abort_transaction()
 * then drops the dirty blocks and restores the in-memory roots.
 *
 * First version limits (each refused with -EOPNOTSUPP and a message):
 * one device; skinny metadata; free space tree in extent format (or no
 * free space tree at all).  Full METADATA block groups get a new chunk
 * (chunk-alloc.c); -ENOSPC when the device has no room for one.  Blocks
 * shared with snapshots are copied with the kernel's reference updates
 * (cow-shared.c); qgroup numbers are then
 * recomputed exactly at commit (qgroup-recompute.h), and every commit
 * refuses to take a qgroup past its limits.  With simple quotas each tree
 * block allocated or freed is charged to its header owner instead, and
 * nothing needs recomputing (squota.h).
 */
#ifndef VOLCTL_KERNEL_SHARED_TRANSACTION_H
#define VOLCTL_KERNEL_SHARED_TRANSACTION_H

#include <stdbool.h>
#include <stddef.h>
#include "format.h"
#include "ctree.h"
#include "alloc.h"
#include "data-write.h"
#include "u64map.h"

struct btrfs_fs;
struct btrfs_qgroup_list;

/* A tree block allocated in this transaction */
struct btrfs_trans_block {
	struct extent_buffer *eb;	/* referenced until the transaction ends */
	u64 bytenr;
	u64 owner;
	u8 level;
	bool recorded;			/* extent item, bg used, FST done */
	bool freed;			/* dropped again inside T */
	bool free_done;			/* ... and its accounting undone */
};

/* A block of the committed state freed in this transaction (pinned) */
struct btrfs_trans_free {
	u64 bytenr;
	u64 owner;
	u64 hdr_owner;			/* header owner: simple quotas charge it */
	u64 generation;			/* header generation (= the extent item's) */
	u8 level;
	bool done;
};

/* A root whose in-memory state the transaction changed */
struct btrfs_trans_root {
	struct btrfs_root *root;
	bool dirty;			/* ROOT_ITEM must be written */
	/* saved state for abort */
	u64 bytenr;
	u64 generation;
	u8 level;
	struct btrfs_root_item root_item;
	struct extent_buffer *node;
};

/* Bytes a subvolume tree gained or lost in T, for its qgroups */
struct btrfs_qgroup_delta {
	u64 subvolid;
	s64 bytes;
};

struct btrfs_trans_handle {
	struct btrfs_fs *fs;
	u64 transid;
	struct btrfs_alloc_ctx alloc;

	struct btrfs_trans_block *blocks;
	size_t nr_blocks, blocks_cap;
	/* bytenr -> index in blocks, one entry per allocation (a bytenr may come back) */
	struct btrfs_u64map block_index;
	struct btrfs_trans_free *frees;
	size_t nr_frees, frees_cap;
	struct btrfs_trans_root *roots;
	size_t nr_roots, roots_cap;

	struct btrfs_trans_data *data;	/* new data extents (data-write.h) */
	size_t nr_data, data_cap;
	u8 *csum_run;			/* checksums of consecutive sectors ... */
	u64 csum_start;			/* ... from this logical address */
	size_t csum_run_len, csum_run_cap;	/* bytes of csum_run */

	struct btrfs_qgroup_delta *qdeltas;
	size_t nr_qdeltas, qdeltas_cap;
	s64 bytes_used_delta;		/* for super.bytes_used */
	bool quota_on;			/* the quota tree exists */
	bool squota;			/* ... in simple mode (squota.c) */
	u64 squota_enable_gen;		/* simple quotas: older extents count nothing */
	u64 incompat_set;		/* incompat bits the commit adds to the super */
	bool qgroup_recompute;		/* engine numbers at commit, no deltas */
	bool qgroup_no_limits;		/* the commit does not check limits */
	struct btrfs_qgroup_list *qgroups_before;	/* as committed, for limits */
	size_t nr_roots_at_start;	/* fs->roots loaded before T */
	struct btrfs_super_block super_at_start;	/* fs->super before T, for abort */
};

/**
 * btrfs_start_transaction - begin transaction super.generation + 1
 *
 * Refuses (-EOPNOTSUPP, message in fs->errmsg) filesystems the writer
 * cannot keep consistent (see the overview).  Reads the block groups and
 * the free space of the METADATA block groups.
 * Return: 0 or a negative errno.
 */
int btrfs_start_transaction(struct btrfs_fs *fs, struct btrfs_trans_handle **out);

/**
 * btrfs_commit_transaction - apply pending updates, write, free @trans
 *
 * On failure before the primary superblock write the image is unchanged
 * and the transaction is aborted.  @trans is freed in every case.
 */
int btrfs_commit_transaction(struct btrfs_trans_handle *trans);

/**
 * btrfs_mark_unfinished - write the last commit's superblocks again, every
 * copy on every member, with the magic @unfinished says: BTRFS_MAGIC_TEMPORARY
 * (the kernel, btrfs-progs and the reader refuse the filesystem: a mkfs is
 * still filling it) or BTRFS_MAGIC.  Every commit in between writes the
 * temporary magic, so a power cut anywhere in between leaves no filesystem
 * that looks whole.  The generation does not change.
 * Return: 0 or a negative errno (message in fs->errmsg).
 */
int btrfs_mark_unfinished(struct btrfs_fs *fs, bool unfinished);

/**
 * btrfs_abort_transaction - drop every change of @trans and free it
 *
 * The in-memory state is put back as it was at btrfs_start_transaction():
 * the superblock copy (feature flags an operation set), the roots and
 * their nodes, roots first read inside T, dirty blocks, new chunks.
 */
void btrfs_abort_transaction(struct btrfs_trans_handle *trans);

/*
 * One operation inside a transaction (btrfs_run_transaction()).
 * Return: <0 error (the transaction is aborted), 0 commit, >0 nothing to
 * write (the transaction is dropped and the value handed back).
 */
typedef int (*btrfs_trans_op_fn)(struct btrfs_trans_handle *trans, void *arg);

/* btrfs_run_transaction() flags */
#define BTRFS_RUN_NO_QGROUP_LIMITS	(1U << 0)	/* btrfs_trans_ignore_qgroup_limits() */

/**
 * btrfs_run_transaction - the offline writer's one way to change an image:
 * start, @op, commit (which recomputes qgroups where @op asked for it and
 * checks their limits), or abort on any error
 *
 * The message of a failure is left in fs->errmsg (cleared first).  Every
 * offline write goes through here; tests/check-api.sh keeps it so.
 * Return: 0 committed, >0 @op had nothing to write, <0 error (the image
 * and the in-memory state are as they were).
 */
int btrfs_run_transaction(struct btrfs_fs *fs, unsigned int flags, btrfs_trans_op_fn op,
			  void *arg);

/**
 * btrfs_trans_track_root - remember @root's state before changing it
 * @dirty:	its ROOT_ITEM must be rewritten at commit
 */
int btrfs_trans_track_root(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			   bool dirty);

/**
 * btrfs_trans_recompute_qgroups - have the commit compute every qgroup's
 * numbers with the accounting engine on the transaction's final state
 * (instead of adding the per-tree deltas); for changes whose effect on
 * the qgroups is not a plain sum, such as copying blocks shared with a
 * snapshot.  No-op with quotas off.
 */
void btrfs_trans_recompute_qgroups(struct btrfs_trans_handle *trans);

/**
 * btrfs_trans_ignore_qgroup_limits - the commit does not refuse groups
 * growing past a limit (subvolume delete, rescan, repair)
 */
void btrfs_trans_ignore_qgroup_limits(struct btrfs_trans_handle *trans);

/** btrfs_trans_block_is_new - @eb was allocated in @trans (may change in place) */
bool btrfs_trans_block_is_new(const struct btrfs_trans_handle *trans,
			      const struct extent_buffer *eb);

/* ---- extent-tree.c ---- */

/**
 * btrfs_alloc_tree_block - allocate a new tree block for tree @owner
 *
 * The buffer is zeroed but for a complete header (bytenr, generation T,
 * owner, level, WRITTEN, backref rev 1, fsid, chunk tree uuid), dirty and
 * referenced for the caller.  Its extent item is added at commit.
 */
int btrfs_alloc_tree_block(struct btrfs_trans_handle *trans, u64 owner, u8 level,
			   struct extent_buffer **out);

/**
 * btrfs_free_tree_block - drop the only reference to @eb (owner @owner)
 *
 * A block of the committed state stays pinned until T is on disk.
 */
int btrfs_free_tree_block(struct btrfs_trans_handle *trans, u64 owner,
			  const struct extent_buffer *eb);

/**
 * btrfs_account_data_free - a data extent lost its last reference: its
 * block group's used bytes, super bytes_used and, with quotas on, the
 * qgroups of subvolume @root (which held it alone) shrink by @num_bytes
 */
int btrfs_account_data_free(struct btrfs_trans_handle *trans, u64 bytenr, u64 num_bytes,
			    u64 root);

/**
 * btrfs_account_data_new - a new data extent of @num_bytes referenced by
 * subvolume @root alone: super bytes_used and, with quotas on, @root's
 * qgroups grow (the block group's used bytes are the caller's)
 */
int btrfs_account_data_new(struct btrfs_trans_handle *trans, u64 bytenr, u64 num_bytes,
			   u64 root);

/**
 * btrfs_run_pending - apply queued allocations and frees to the extent
 * tree, block group items, free space tree and per-root bytes_used
 * Return: number of updates applied (0 = nothing pending) or <0.
 */
int btrfs_run_pending(struct btrfs_trans_handle *trans);

/**
 * btrfs_run_qgroup_deltas - add the tree block bytes each subvolume gained
 * or lost to its level-0 qgroup and every qgroup above it (rfer and excl:
 * written trees never share blocks); count of qgroups updated or <0
 */
int btrfs_run_qgroup_deltas(struct btrfs_trans_handle *trans);

/**
 * btrfs_run_pending_all - btrfs_run_pending() and btrfs_run_qgroup_deltas()
 * until neither has anything left, so that what follows (a limit check, the
 * next subvolume of a batch) sees every update queued so far
 * Return: 0, -ELOOP if they never settle (a bug), or their error.
 */
int btrfs_run_pending_all(struct btrfs_trans_handle *trans);

/** btrfs_write_dirty_block_groups - rewrite changed BLOCK_GROUP_ITEMs; count or <0 */
int btrfs_write_dirty_block_groups(struct btrfs_trans_handle *trans);

#endif /* VOLCTL_KERNEL_SHARED_TRANSACTION_H */
