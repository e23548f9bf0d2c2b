// SPDX-License-Identifier: GPL-2.0-only
/*
 * Extent buffers: verified tree blocks in a bounded, refcounted cache.
 *
 * Every block enters the cache only after btrfs_verify_tree_block()
 * accepted it: checksum, header bytenr, fsid (metadata_uuid), level, the
 * tree-checker's layout checks, and what the parent pointer promised
 * (generation, level, first key, owner).  A cache hit re-checks the
 * parent's promises, since another parent may point at the same block.
 *
 * Cache invariants:
 *  - every buffer is in the hash table exactly once, keyed by start;
 *  - a buffer is on the LRU list iff refs == 0 and it is not dirty;
 *  - the LRU holds at most max_clean buffers; the oldest go first;
 *  - dirty buffers are never evicted (only dropped by an abort).
 *
 * Buffers are carved from 2 MiB slabs that ask for transparent huge pages
 * and go back to a free list, not to malloc: a check reads thousands of
 * blocks into fresh memory, and a page fault for every 4 KiB of them cost
 * more than reading them (a third of the accounting engine's time on the
 * mixed benchmark image, bench/README.md).  The slabs go when the cache is
 * released.  Under AddressSanitizer buffers come from malloc, so that it
 * still sees a use after free.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "csum.h"
#include "extent-buffer.h"
#include "fs.h"
#include "tree-checker.h"

/* Default cache: 64 MiB of clean blocks, at least 256 of them */
#define EB_CACHE_DEFAULT_BYTES	(64U << 20)
#define EB_CACHE_MIN_BLOCKS	256U

#define EB_SLAB_BYTES		(2U << 20)

#if defined(__SANITIZE_ADDRESS__)
#define EB_USE_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EB_USE_MALLOC 1
#endif
#endif

static size_t buf_size(const struct btrfs_fs *fs)
{
	return (sizeof(struct extent_buffer) + fs->nodesize + 63) & ~(size_t)63;
}

static struct extent_buffer *buf_get(struct btrfs_fs *fs)
{
	struct btrfs_eb_cache *c = &fs->cache;
	size_t size = buf_size(fs);
	struct extent_buffer *eb;

#ifdef EB_USE_MALLOC
	(void)c;
	return malloc(size);
#endif
	if (c->free_bufs) {
		eb = c->free_bufs;
		c->free_bufs = eb->hash_next;
		return eb;
	}
	if (c->slab_left < size) {
		size_t bytes = EB_SLAB_BYTES;	/* > the largest buffer (64 KiB nodes) */
		void *slab;

		if (c->nr_slabs == c->alloc_slabs) {
			u32 na = c->alloc_slabs ? c->alloc_slabs * 2 : 16;
			void **n = realloc(c->slabs, na * sizeof(*n));

			if (!n)
				return NULL;
			c->slabs = n;
			c->alloc_slabs = na;
		}
		slab = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (slab == MAP_FAILED)
			return NULL;
#ifdef MADV_HUGEPAGE
		madvise(slab, bytes, MADV_HUGEPAGE);	/* a hint: 4 KiB pages do too */
#endif
		c->slabs[c->nr_slabs++] = slab;
		c->slab_next = slab;
		c->slab_left = bytes;
	}
	eb = (struct extent_buffer *)c->slab_next;
	c->slab_next += size;
	c->slab_left -= size;
	return eb;
}

static void buf_put(struct btrfs_eb_cache *c, struct extent_buffer *eb)
{
#ifdef EB_USE_MALLOC
	(void)c;
	free(eb);
#else
	eb->hash_next = c->free_bufs;
	c->free_bufs = eb;
#endif
}

/* Unmap the slabs, unless a buffer still held (a leak) lives in one */
static void slabs_release(struct btrfs_eb_cache *c, bool leaked)
{
	for (u32 i = 0; !leaked && i < c->nr_slabs; i++)
		munmap(c->slabs[i], EB_SLAB_BYTES);
	free(c->slabs);
}

static u32 hash_bytenr(const struct btrfs_eb_cache *c, u64 bytenr)
{
	u64 h = bytenr * 0x9E3779B97F4A7C15ULL;

	return (u32)(h >> 32) & (c->hash_size - 1);
}

int btrfs_eb_cache_init(struct btrfs_fs *fs, u32 max_clean)
{
	struct btrfs_eb_cache *c = &fs->cache;
	u32 size = 1024;

	memset(c, 0, sizeof(*c));
	if (!max_clean) {
		max_clean = fs->nodesize ? EB_CACHE_DEFAULT_BYTES / fs->nodesize : 0;
		if (max_clean < EB_CACHE_MIN_BLOCKS)
			max_clean = EB_CACHE_MIN_BLOCKS;
	}
	c->max_clean = max_clean;
	while (size < c->max_clean && size < (1U << 20))
		size <<= 1;
	c->hash = calloc(size, sizeof(*c->hash));
	if (!c->hash)
		return -ENOMEM;
	c->hash_size = size;
	return 0;
}

static void lru_del(struct btrfs_eb_cache *c, struct extent_buffer *eb)
{
	if (eb->lru_prev)
		eb->lru_prev->lru_next = eb->lru_next;
	else
		c->lru_first = eb->lru_next;
	if (eb->lru_next)
		eb->lru_next->lru_prev = eb->lru_prev;
	else
		c->lru_last = eb->lru_prev;
	eb->lru_prev = eb->lru_next = NULL;
	c->nr_clean_unused--;
}

static void lru_add_tail(struct btrfs_eb_cache *c, struct extent_buffer *eb)
{
	eb->lru_next = NULL;
	eb->lru_prev = c->lru_last;
	if (c->lru_last)
		c->lru_last->lru_next = eb;
	else
		c->lru_first = eb;
	c->lru_last = eb;
	c->nr_clean_unused++;
}

static bool on_lru(const struct extent_buffer *eb)
{
	return eb->refs == 0 && !(eb->flags & EXTENT_BUFFER_DIRTY);
}

static void hash_del(struct btrfs_eb_cache *c, struct extent_buffer *eb)
{
	struct extent_buffer **pp = &c->hash[hash_bytenr(c, eb->start)];

	while (*pp && *pp != eb)
		pp = &(*pp)->hash_next;
	if (*pp)
		*pp = eb->hash_next;
	eb->hash_next = NULL;
	c->nr--;
}

static void hash_add(struct btrfs_eb_cache *c, struct extent_buffer *eb)
{
	u32 h = hash_bytenr(c, eb->start);

	eb->hash_next = c->hash[h];
	c->hash[h] = eb;
	c->nr++;
}

static struct extent_buffer *cache_find(struct btrfs_eb_cache *c, u64 bytenr)
{
	struct extent_buffer *eb = c->hash[hash_bytenr(c, bytenr)];

	while (eb && eb->start != bytenr)
		eb = eb->hash_next;
	return eb;
}

/* Free a clean unreferenced buffer that sits on the LRU */
static void evict(struct btrfs_eb_cache *c, struct extent_buffer *eb)
{
	lru_del(c, eb);
	hash_del(c, eb);
	buf_put(c, eb);
}

static void cache_trim(struct btrfs_eb_cache *c)
{
	while (c->nr_clean_unused > c->max_clean && c->lru_first)
		evict(c, c->lru_first);
}

u32 btrfs_eb_cache_set_limit(struct btrfs_fs *fs, u32 max_clean)
{
	struct btrfs_eb_cache *c = &fs->cache;
	u32 old = c->max_clean;

	c->max_clean = max_clean;
	cache_trim(c);
	return old;
}

int btrfs_eb_cache_release(struct btrfs_fs *fs)
{
	struct btrfs_eb_cache *c = &fs->cache;
	int leaked = 0;

	if (!c->hash)
		return 0;
	for (u32 i = 0; i < c->hash_size; i++) {
		struct extent_buffer *eb = c->hash[i];

		while (eb) {
			struct extent_buffer *next = eb->hash_next;

			if (eb->refs > 0) {
				leaked++;
				eb->hash_next = NULL;
				eb->lru_prev = eb->lru_next = NULL;
			} else {
				buf_put(c, eb);
			}
			eb = next;
		}
	}
	free(c->hash);
	slabs_release(c, leaked > 0);
	memset(c, 0, sizeof(*c));
	return leaked;
}

void btrfs_eb_cache_drop_dirty(struct btrfs_fs *fs)
{
	struct btrfs_eb_cache *c = &fs->cache;

	for (u32 i = 0; i < c->hash_size; i++) {
		struct extent_buffer *eb = c->hash[i];

		while (eb) {
			struct extent_buffer *next = eb->hash_next;

			if (eb->flags & EXTENT_BUFFER_DIRTY) {
				eb->flags &= ~EXTENT_BUFFER_DIRTY;
				if (eb->refs == 0) {
					hash_del(c, eb);
					buf_put(c, eb);
				}
			}
			eb = next;
		}
	}
}

struct extent_buffer *extent_buffer_get(struct extent_buffer *eb)
{
	if (on_lru(eb))
		lru_del(&eb->fs->cache, eb);
	eb->refs++;
	return eb;
}

void free_extent_buffer(struct extent_buffer *eb)
{
	if (!eb)
		return;
	if (eb->refs <= 0)
		return;		/* programmer error; never underflow */
	eb->refs--;
	if (on_lru(eb)) {
		lru_add_tail(&eb->fs->cache, eb);
		cache_trim(&eb->fs->cache);
	}
}

void btrfs_mark_buffer_dirty(struct extent_buffer *eb)
{
	if (on_lru(eb))
		lru_del(&eb->fs->cache, eb);
	eb->flags |= EXTENT_BUFFER_DIRTY;
}

void btrfs_clear_buffer_dirty(struct extent_buffer *eb)
{
	if (!(eb->flags & EXTENT_BUFFER_DIRTY))
		return;
	eb->flags &= ~EXTENT_BUFFER_DIRTY;
	if (on_lru(eb)) {
		lru_add_tail(&eb->fs->cache, eb);
		cache_trim(&eb->fs->cache);
	}
}

/* @zero_data: false when the caller fills all nodesize bytes (a read) */
static struct extent_buffer *eb_alloc(struct btrfs_fs *fs, u64 bytenr, bool zero_data)
{
	struct extent_buffer *eb = buf_get(fs);

	if (!eb)
		return NULL;
	memset(eb, 0, zero_data ? sizeof(*eb) + fs->nodesize : sizeof(*eb));
	eb->start = bytenr;
	eb->len = fs->nodesize;
	eb->fs = fs;
	return eb;
}

int btrfs_alloc_tree_block_buffer(struct btrfs_fs *fs, u64 bytenr, struct extent_buffer **out)
{
	struct extent_buffer *eb = cache_find(&fs->cache, bytenr);

	if (eb) {
		if (!on_lru(eb))
			return -EEXIST;
		evict(&fs->cache, eb);
	}
	eb = eb_alloc(fs, bytenr, true);
	if (!eb)
		return -ENOMEM;
	eb->refs = 1;
	eb->flags = EXTENT_BUFFER_UPTODATE;
	hash_add(&fs->cache, eb);
	*out = eb;
	return 0;
}

/* What the parent promised: generation, level, first key, owner */
static int verify_parent(struct btrfs_fs *fs, u64 bytenr, const u8 *buf,
			 const struct btrfs_tree_parent_check *check)
{
	const struct btrfs_header *h = (const struct btrfs_header *)buf;
	unsigned long long b = bytenr;

	if (!check)
		return 0;
	if (check->transid && btrfs_header_generation(h) != check->transid) {
		btrfs_fs_set_error(fs, "tree block %llu: parent transid verify failed, wanted %llu found %llu",
				   b, (unsigned long long)check->transid,
				   (unsigned long long)btrfs_header_generation(h));
		return -EUCLEAN;
	}
	if (check->has_level && btrfs_header_level(h) != check->level) {
		btrfs_fs_set_error(fs, "tree block %llu: level %u, parent expects %u", b,
				   btrfs_header_level(h), check->level);
		return -EUCLEAN;
	}
	if (check->has_first_key) {
		struct btrfs_key k;

		if (!btrfs_header_nritems(h)) {
			btrfs_fs_set_error(fs, "tree block %llu: empty, parent expects key (%llu %u %llu)",
					   b, (unsigned long long)check->first_key.objectid,
					   check->first_key.type,
					   (unsigned long long)check->first_key.offset);
			return -EUCLEAN;
		}
		if (btrfs_header_level(h) == 0)
			btrfs_item_key((const struct btrfs_item *)(buf + sizeof(*h)), &k);
		else
			btrfs_key_ptr_key((const struct btrfs_key_ptr *)(buf + sizeof(*h)), &k);
		if (btrfs_key_cmp(&k, &check->first_key)) {
			btrfs_fs_set_error(fs, "tree block %llu: first key mismatch, has (%llu %u %llu) parent expects (%llu %u %llu)",
					   b, (unsigned long long)k.objectid, k.type,
					   (unsigned long long)k.offset,
					   (unsigned long long)check->first_key.objectid,
					   check->first_key.type,
					   (unsigned long long)check->first_key.offset);
			return -EUCLEAN;
		}
	}
	return btrfs_check_owner(fs, buf, check->owner_root);
}

int btrfs_verify_tree_block(struct btrfs_fs *fs, u64 bytenr, const u8 *buf,
			    const struct btrfs_tree_parent_check *check)
{
	const struct btrfs_header *h = (const struct btrfs_header *)buf;
	u8 csum[BTRFS_CSUM_MAX_SIZE];
	unsigned long long b = bytenr;
	int ret;

	btrfs_csum_data(fs->csum_type, buf + BTRFS_CSUM_SIZE, fs->nodesize - BTRFS_CSUM_SIZE, csum);
	if (memcmp(csum, btrfs_header_csum(h), (size_t)fs->csum_size)) {
		btrfs_fs_set_error(fs, "tree block %llu: checksum mismatch", b);
		return -EUCLEAN;
	}
	if (btrfs_header_bytenr(h) != bytenr) {
		btrfs_fs_set_error(fs, "tree block %llu: header bytenr is %llu", b,
				   (unsigned long long)btrfs_header_bytenr(h));
		return -EUCLEAN;
	}
	if (memcmp(btrfs_header_fsid(h), fs->metadata_uuid, BTRFS_FSID_SIZE)) {
		btrfs_fs_set_error(fs, "tree block %llu: fsid mismatch", b);
		return -EUCLEAN;
	}
	if (btrfs_header_level(h) >= BTRFS_MAX_LEVEL) {
		btrfs_fs_set_error(fs, "tree block %llu: invalid level %u", b, btrfs_header_level(h));
		return -EUCLEAN;
	}
	if (btrfs_header_generation(h) > fs->generation + 1) {
		btrfs_fs_set_error(fs, "tree block %llu: generation %llu is newer than the filesystem's %llu",
				   b, (unsigned long long)btrfs_header_generation(h),
				   (unsigned long long)fs->generation);
		return -EUCLEAN;
	}
	ret = btrfs_header_level(h) ? btrfs_check_node(fs, buf) : btrfs_check_leaf(fs, buf);
	if (ret < 0)
		return ret;
	return verify_parent(fs, bytenr, buf, check);
}

static void append_mirror(struct btrfs_fs *fs, int mirror, int copies)
{
	size_t n = strlen(fs->errmsg);

	if (n + 16 < sizeof(fs->errmsg))
		snprintf(fs->errmsg + n, sizeof(fs->errmsg) - n, " (mirror %d)", mirror);
}

int btrfs_read_tree_block(struct btrfs_fs *fs, u64 bytenr,
			  const struct btrfs_tree_parent_check *check,
			  struct extent_buffer **out)
{
	char saved[BTRFS_ERRMSG_SIZE];
	char first_msg[BTRFS_ERRMSG_SIZE] = "";
	struct extent_buffer *eb;
	int first_err = 0;
	int copies, ret;

	*out = NULL;
	if (!bytenr || bytenr % fs->sectorsize) {
		btrfs_fs_set_error(fs, "tree block %llu: address not aligned to sectorsize",
				   (unsigned long long)bytenr);
		return -EUCLEAN;
	}
	eb = cache_find(&fs->cache, bytenr);
	if (eb) {
		ret = verify_parent(fs, bytenr, eb->data, check);
		if (ret < 0)
			return ret;
		*out = extent_buffer_get(eb);
		return 0;
	}
	copies = btrfs_num_copies(fs, bytenr, fs->nodesize);
	if (copies < 0) {
		btrfs_fs_set_error(fs, "tree block %llu: address not mapped by any chunk",
				   (unsigned long long)bytenr);
		return -EUCLEAN;
	}
	eb = eb_alloc(fs, bytenr, false);
	if (!eb)
		return -ENOMEM;
	memcpy(saved, fs->errmsg, sizeof(saved));
	for (int mirror = 1; mirror <= copies; mirror++) {
		fs->errmsg[0] = '\0';
		ret = btrfs_read_logical(fs, bytenr, eb->data, fs->nodesize, mirror);
		if (ret < 0) {
			char io_msg[BTRFS_ERRMSG_SIZE];

			memcpy(io_msg, fs->errmsg, sizeof(io_msg));
			btrfs_fs_set_error(fs, "tree block %llu: %.200s", (unsigned long long)bytenr,
					   io_msg);
		} else {
			ret = btrfs_verify_tree_block(fs, bytenr, eb->data, check);
		}
		if (!ret) {
			first_err = 0;
			break;
		}
		append_mirror(fs, mirror, copies);
		if (!first_err) {
			first_err = ret;
			memcpy(first_msg, fs->errmsg, sizeof(first_msg));
		}
	}
	if (first_err) {
		buf_put(&fs->cache, eb);
		memcpy(fs->errmsg, first_msg, sizeof(first_msg));
		return first_err;
	}
	memcpy(fs->errmsg, saved, sizeof(saved));
	eb->flags = EXTENT_BUFFER_UPTODATE;
	eb->refs = 1;
	hash_add(&fs->cache, eb);
	*out = eb;
	return 0;
}

int btrfs_write_tree_block(struct btrfs_fs *fs, struct extent_buffer *eb)
{
	u8 csum[BTRFS_CSUM_MAX_SIZE];
	int ret;

	ret = btrfs_csum_data(fs->csum_type, eb->data + BTRFS_CSUM_SIZE,
			      eb->len - BTRFS_CSUM_SIZE, csum);
	if (ret < 0)
		return ret;
	btrfs_set_header_csum((struct btrfs_header *)eb->data, csum);
	ret = btrfs_write_logical(fs, eb->start, eb->data, eb->len);
	if (ret < 0)
		return ret;
	btrfs_clear_buffer_dirty(eb);
	return 0;
}

void btrfs_readahead_flush(struct btrfs_readahead *ra)
{
	if (ra->io)
		btrfs_io_readahead(ra->io, ra->start, ra->end - ra->start);
	ra->io = NULL;
}

void btrfs_prefetch_begin(struct btrfs_fs *fs)
{
	bool any = false;

	for (size_t i = 0; i < fs->nr_devices; i++) {
		if (fs->devices[i]->io && btrfs_io_prefetch_start(fs->devices[i]->io) == 0)
			any = true;	/* may fail: hints only */
	}
	if (any)
		fs->prefetching++;
}

void btrfs_prefetch_end(struct btrfs_fs *fs, struct btrfs_io_prefetch_stats *sum)
{
	for (size_t i = 0; i < fs->nr_devices; i++) {
		struct btrfs_io_prefetch_stats st;

		if (!fs->devices[i]->io)
			continue;
		btrfs_io_prefetch_stop(fs->devices[i]->io, &st);
		if (sum) {
			sum->hinted += st.hinted;
			sum->read += st.read;
			sum->hits += st.hits;
			sum->late += st.late;
			sum->unused += st.unused;
			sum->dropped += st.dropped;
		}
	}
	if (fs->prefetching)
		fs->prefetching--;
}

void btrfs_prefetch_tree_block(struct btrfs_fs *fs, u64 bytenr)
{
	struct btrfs_io_stripe st;
	bool had_msg = fs->errmsg[0] != '\0';

	if (!fs->prefetching || cache_find(&fs->cache, bytenr))
		return;
	if (btrfs_map_block(fs, bytenr, fs->nodesize, 1, &st) < 0) {
		if (!had_msg) {
			fs->errmsg[0] = '\0';	/* a hint leaves no message */
			fs->errobj = BTRFS_ERR_OBJ_NONE;
		}
		return;
	}
	if (st.dev->io && st.dev->io->prefetch)
		btrfs_io_prefetch(st.dev->io, st.physical, fs->nodesize);
}

struct ra_block {
	struct btrfs_io_dev *io;
	u64 physical;
};

static int ra_cmp(const void *a, const void *b)
{
	const struct ra_block *x = a, *y = b;

	if (x->io != y->io)
		return x->io < y->io ? -1 : 1;
	if (x->physical != y->physical)
		return x->physical < y->physical ? -1 : 1;
	return 0;
}

/* Neighbours closer than this many blocks are read ahead as one range */
#define RA_MAX_GAP_BLOCKS	4
/* The kernel reads at most its read-ahead window per hint */
#define RA_MAX_RANGE		(2ULL << 20)

void btrfs_readahead_tree_blocks(struct btrfs_fs *fs, const u64 *bytenrs, u32 nr)
{
	char saved[BTRFS_ERRMSG_SIZE];
	struct btrfs_readahead ra;
	struct ra_block *r;
	u32 n = 0;

	if (!nr)
		return;
	r = malloc((size_t)nr * sizeof(*r));
	if (!r)
		return;
	memcpy(saved, fs->errmsg, sizeof(saved));
	for (u32 i = 0; i < nr; i++) {
		struct btrfs_io_stripe st;

		if (cache_find(&fs->cache, bytenrs[i]))
			continue;
		if (btrfs_map_block(fs, bytenrs[i], fs->nodesize, 1, &st) < 0 ||
		    !st.dev->io || !st.dev->io->ops->readahead)
			continue;
		r[n].io = st.dev->io;
		r[n].physical = st.physical;
		n++;
	}
	memcpy(fs->errmsg, saved, sizeof(saved));	/* a hint leaves no message */
	qsort(r, n, sizeof(*r), ra_cmp);
	btrfs_readahead_init(&ra, (u64)RA_MAX_GAP_BLOCKS * fs->nodesize, RA_MAX_RANGE);
	for (u32 i = 0; i < n; i++)
		btrfs_readahead_add(&ra, r[i].io, r[i].physical, fs->nodesize);
	btrfs_readahead_flush(&ra);
	free(r);
}
