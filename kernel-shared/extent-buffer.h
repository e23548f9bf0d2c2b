/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Extent buffers: tree blocks in memory, refcounted, in a bounded cache.
 *
 * btrfs_read_tree_block() returns a block only after it passed every check
 * (checksum, bytenr, fsid, generation/level/first key against what the
 * parent pointer promised, owner, and the tree-checker's structural
 * checks); a copy that fails is retried on the next mirror.  From then on
 * the accessors below may trust slot indexes < nritems: item offsets and
 * sizes were proved to lie inside the block.
 *
 * Lifetime: every pointer handed out holds a reference; drop it with
 * free_extent_buffer().  The cache keeps up to a fixed number of blocks
 * that nobody references (least recently used go first) and never drops
 * a dirty block.  Dirty state and btrfs_alloc_tree_block_buffer() exist
 * for the copy-on-write writer: it creates new buffers, marks them dirty
 * and writes them at commit through the same I/O layer.
 */
#ifndef VOLCTL_KERNEL_SHARED_EXTENT_BUFFER_H
#define VOLCTL_KERNEL_SHARED_EXTENT_BUFFER_H

#include <stdbool.h>
#include "format.h"

struct btrfs_fs;

#define EXTENT_BUFFER_UPTODATE	(1U << 0)	/* contents verified or built in memory */
#define EXTENT_BUFFER_DIRTY	(1U << 1)	/* must be written before commit */

struct extent_buffer {
	u64 start;			/* logical address */
	u32 len;			/* nodesize */
	int refs;			/* holders, the cache's own is not counted */
	unsigned int flags;
	struct btrfs_fs *fs;
	/* cache bookkeeping */
	struct extent_buffer *hash_next;
	struct extent_buffer *lru_prev, *lru_next;
	u8 data[];
};

/* What the parent pointer (or the superblock / root item) promises */
struct btrfs_tree_parent_check {
	u64 transid;			/* expected header generation; 0 = any */
	u64 owner_root;			/* tree the block belongs to; 0 = any */
	bool has_level;
	u8 level;
	bool has_first_key;
	struct btrfs_key first_key;
};

/**
 * btrfs_read_tree_block - read and verify the tree block at @bytenr
 * @check:	expectations from the parent, may be NULL
 * @out:	receives a referenced buffer
 *
 * Return: 0, -EUCLEAN with fs->errmsg set ("tree block X: checksum
 * mismatch (mirror 1)"; the message of the first mirror is kept when every
 * mirror fails), -EIO, -ENOENT (unmapped address), -ENOMEM.
 */
int btrfs_read_tree_block(struct btrfs_fs *fs, u64 bytenr,
			  const struct btrfs_tree_parent_check *check,
			  struct extent_buffer **out);

/**
 * btrfs_readahead_tree_blocks - hint that the blocks at @bytenrs will be read
 *
 * Blocks already cached are skipped; the rest are mapped (first copy),
 * sorted by device offset and merged into few ranges so the reads overlap.
 * Only a hint: nothing is verified and errors are ignored.
 */
void btrfs_readahead_tree_blocks(struct btrfs_fs *fs, const u64 *bytenrs, u32 nr);

/*
 * Prefetching on a worker thread (io.h, io-prefetch.c), for walks that know
 * the blocks they read next.  btrfs_prefetch_begin() starts the worker on
 * every opened device that has one (nested calls count); each
 * btrfs_prefetch_tree_block() queues one block not cached yet (first copy),
 * in the order the walk will read them; btrfs_prefetch_end() stops it and
 * adds the counters of all devices to @sum (optional).
 * Reads are verified as every read: a slot only saves the copy's time.
 */
void btrfs_prefetch_begin(struct btrfs_fs *fs);
void btrfs_prefetch_tree_block(struct btrfs_fs *fs, u64 bytenr);
struct btrfs_io_prefetch_stats;
void btrfs_prefetch_end(struct btrfs_fs *fs, struct btrfs_io_prefetch_stats *sum);

/*
 * The one read-ahead batcher.  Blocks are given in device order; neighbours
 * on one device closer than @gap bytes are merged into one range of at most
 * @max bytes, and each range becomes one hint (btrfs_io_readahead()).  Used
 * by btrfs_readahead_tree_blocks() and by walks that sort their blocks
 * themselves.
 */
struct btrfs_readahead {
	u64 gap;
	u64 max;
	struct btrfs_io_dev *io;	/* device of the range being built, NULL: none */
	u64 start, end;
};

static inline void btrfs_readahead_init(struct btrfs_readahead *ra, u64 gap, u64 max)
{
	*ra = (struct btrfs_readahead){ .gap = gap, .max = max };
}

/** btrfs_readahead_flush - hint the range being built */
void btrfs_readahead_flush(struct btrfs_readahead *ra);

/** btrfs_readahead_add - @len bytes at @physical of @io, after those added before */
static inline void btrfs_readahead_add(struct btrfs_readahead *ra, struct btrfs_io_dev *io,
				       u64 physical, u64 len)
{
	if (ra->io == io && physical >= ra->start && physical <= ra->end + ra->gap &&
	    physical + len - ra->start <= ra->max) {
		if (physical + len > ra->end)
			ra->end = physical + len;
		return;
	}
	btrfs_readahead_flush(ra);
	ra->io = io;
	ra->start = physical;
	ra->end = physical + len;
}

/**
 * btrfs_verify_tree_block - every check btrfs_read_tree_block() does, on a
 * raw block in @buf (nodesize bytes) read from @bytenr
 */
int btrfs_verify_tree_block(struct btrfs_fs *fs, u64 bytenr, const u8 *buf,
			    const struct btrfs_tree_parent_check *check);

/**
 * btrfs_alloc_tree_block_buffer - a zeroed, referenced, UPTODATE buffer for
 * a new block at @bytenr (for the writer)
 *
 * An unreferenced clean copy in the cache is replaced.  Return: 0, -EEXIST
 * when the cached block is still referenced or dirty, -ENOMEM.
 */
int btrfs_alloc_tree_block_buffer(struct btrfs_fs *fs, u64 bytenr, struct extent_buffer **out);

/**
 * btrfs_write_tree_block - checksum @eb and write it to every copy
 *
 * For the writer's commit: the header must already be complete (bytenr,
 * fsid, generation, owner, level, WRITTEN).  Clears the dirty state on
 * success.  Return: 0, -EROFS (devices opened read-only), -EOPNOTSUPP
 * (RAID5/6), or an I/O error.
 */
int btrfs_write_tree_block(struct btrfs_fs *fs, struct extent_buffer *eb);

/** extent_buffer_get - take another reference */
struct extent_buffer *extent_buffer_get(struct extent_buffer *eb);

/** free_extent_buffer - drop a reference; NULL is a no-op */
void free_extent_buffer(struct extent_buffer *eb);

/** btrfs_mark_buffer_dirty - the writer changed @eb; keep it until written */
void btrfs_mark_buffer_dirty(struct extent_buffer *eb);

/** btrfs_clear_buffer_dirty - @eb was written or its change dropped */
void btrfs_clear_buffer_dirty(struct extent_buffer *eb);

/**
 * btrfs_eb_cache_init - @max_clean: unreferenced clean blocks kept; 0 = 64 MiB
 * worth of fs->nodesize blocks (call after nodesize is known)
 */
int btrfs_eb_cache_init(struct btrfs_fs *fs, u32 max_clean);

/**
 * btrfs_eb_cache_set_limit - keep at most @max_clean unreferenced clean
 * blocks from now on (the oldest beyond it go at once)
 *
 * For a walk that reads each block about once: its buffers are recycled
 * instead of the cache growing into fresh memory.  Return: the previous
 * limit, to restore.
 */
u32 btrfs_eb_cache_set_limit(struct btrfs_fs *fs, u32 max_clean);

/**
 * btrfs_eb_cache_release - drop every cached block
 *
 * Blocks still referenced are leaked on purpose and counted in the return
 * value so tests can assert it is 0.
 */
int btrfs_eb_cache_release(struct btrfs_fs *fs);

/** btrfs_eb_cache_drop_dirty - forget every dirty block (transaction abort) */
void btrfs_eb_cache_drop_dirty(struct btrfs_fs *fs);

/* ---- accessors; slots must be < nritems of a verified buffer ---- */

static inline const struct btrfs_header *btrfs_eb_header(const struct extent_buffer *eb)
{
	return (const struct btrfs_header *)eb->data;
}

static inline u32 btrfs_eb_nritems(const struct extent_buffer *eb)
{
	return btrfs_header_nritems(btrfs_eb_header(eb));
}

static inline u8 btrfs_eb_level(const struct extent_buffer *eb)
{
	return btrfs_header_level(btrfs_eb_header(eb));
}

static inline u64 btrfs_eb_generation(const struct extent_buffer *eb)
{
	return btrfs_header_generation(btrfs_eb_header(eb));
}

static inline u64 btrfs_eb_owner(const struct extent_buffer *eb)
{
	return btrfs_header_owner(btrfs_eb_header(eb));
}

static inline const struct btrfs_item *btrfs_eb_item(const struct extent_buffer *eb, u32 slot)
{
	return (const struct btrfs_item *)(eb->data + sizeof(struct btrfs_header) +
					   (size_t)slot * sizeof(struct btrfs_item));
}

static inline void btrfs_eb_item_key(const struct extent_buffer *eb, u32 slot,
				     struct btrfs_key *key)
{
	btrfs_item_key(btrfs_eb_item(eb, slot), key);
}

static inline u32 btrfs_eb_item_size(const struct extent_buffer *eb, u32 slot)
{
	return btrfs_item_size(btrfs_eb_item(eb, slot));
}

static inline const u8 *btrfs_eb_item_data(const struct extent_buffer *eb, u32 slot)
{
	return eb->data + BTRFS_LEAF_DATA_OFFSET + btrfs_item_offset(btrfs_eb_item(eb, slot));
}

static inline const struct btrfs_key_ptr *btrfs_eb_key_ptr(const struct extent_buffer *eb,
							     u32 slot)
{
	return (const struct btrfs_key_ptr *)(eb->data + sizeof(struct btrfs_header) +
					      (size_t)slot * sizeof(struct btrfs_key_ptr));
}

static inline void btrfs_eb_node_key(const struct extent_buffer *eb, u32 slot,
				     struct btrfs_key *key)
{
	btrfs_key_ptr_key(btrfs_eb_key_ptr(eb, slot), key);
}

static inline u64 btrfs_eb_node_blockptr(const struct extent_buffer *eb, u32 slot)
{
	return btrfs_key_ptr_blockptr(btrfs_eb_key_ptr(eb, slot));
}

static inline u64 btrfs_eb_node_ptr_generation(const struct extent_buffer *eb, u32 slot)
{
	return btrfs_key_ptr_generation(btrfs_eb_key_ptr(eb, slot));
}

/* First key of a leaf or node (nritems must be > 0) */
static inline void btrfs_eb_first_key(const struct extent_buffer *eb, struct btrfs_key *key)
{
	if (btrfs_eb_level(eb) == 0)
		btrfs_eb_item_key(eb, 0, key);
	else
		btrfs_eb_node_key(eb, 0, key);
}

/**
 * btrfs_eb_bin_search - first slot of leaf or node @eb whose key is >= @key
 * @found:	set when that key equals @key
 *
 * Return: the slot, nritems when every key is smaller.  The one binary
 * search of the reader, the writer and the accounting engine's path cache.
 */
static inline u32 btrfs_eb_bin_search(const struct extent_buffer *eb, const struct btrfs_key *key,
				      bool *found)
{
	u32 lo = 0, hi = btrfs_eb_nritems(eb);
	bool leaf = btrfs_eb_level(eb) == 0;

	*found = false;
	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;
		struct btrfs_key k;
		int cmp;

		if (leaf)
			btrfs_eb_item_key(eb, mid, &k);
		else
			btrfs_eb_node_key(eb, mid, &k);
		cmp = btrfs_key_cmp(&k, key);
		if (cmp < 0) {
			lo = mid + 1;
		} else if (cmp > 0) {
			hi = mid;
		} else {
			*found = true;
			return mid;
		}
	}
	return lo;
}

#endif /* VOLCTL_KERNEL_SHARED_EXTENT_BUFFER_H */
