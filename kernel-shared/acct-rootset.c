// SPDX-License-Identifier: GPL-2.0-only
/*
 * Interned root sets for the accounting engine (see accounting.h).
 *
 * Sets of tree ids are hash-consed: the members of every distinct set are
 * stored once, sorted, in one array, and a hash table maps content to the
 * set id.  Equal sets therefore have equal ids, which makes unions cheap to
 * memoise: a table keyed by the pair of ids (a < b) remembers the result.
 * The memo is a cache: when it fills up it is cleared, so its size stays
 * bounded whatever the number of unions.
 *
 * Every tree id gets a dense number on first sight, and every set is built
 * as a bitmap over dense numbers in rs->bitmap before it is interned: a
 * union is one OR per member (or per word, for sets that keep a bitmap of
 * their own: those whose bitmap is no longer than their member list), the
 * content hash is taken over the bitmap's words, and a set that exists
 * already is recognised without listing its members.  Only a new set is
 * listed, into members[] (tree ids, sorted) and member_dense[].
 *
 * Invariants: id 0 is the empty set; sets are immutable once interned;
 * members[start[id] .. start[id] + len[id]) is strictly increasing;
 * rs->bitmap is all zero between calls.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "accounting.h"

#define MEMO_MAX_DEFAULT	(1U << 18)
/* Unions of three or more sets: direct-mapped entries, their ids in one pool */
#define MANY_ENTRIES		(1U << 16)
#define MANY_POOL		(1U << 20)
#define NO_BITS			((size_t)-1)

/* Content hash of a set: over its bitmap's non-zero words, so length does not matter */
static u64 hash_words(const u64 *w, size_t words)
{
	u64 h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < words; i++) {
		if (!w[i])
			continue;
		h ^= w[i] + 0x9E3779B97F4A7C15ULL * (i + 1) + (h << 6) + (h >> 2);
		h *= 0x100000001b3ULL;
	}
	return h ^ (h >> 29);
}

int btrfs_rootsets_init(struct btrfs_rootsets *rs)
{
	memset(rs, 0, sizeof(*rs));
	rs->alloc = 64;
	rs->start = calloc(rs->alloc, sizeof(*rs->start));
	rs->len = calloc(rs->alloc, sizeof(*rs->len));
	rs->bits_at = calloc(rs->alloc, sizeof(*rs->bits_at));
	rs->bits_words = calloc(rs->alloc, sizeof(*rs->bits_words));
	rs->memo_max = MEMO_MAX_DEFAULT;
	rs->nr = 1;	/* the empty set */
	rs->dense_sorted = true;
	if (!rs->start || !rs->len || !rs->bits_at || !rs->bits_words ||
	    btrfs_u64map_init(&rs->memo, 512) || btrfs_u64map_init(&rs->table, 128) ||
	    btrfs_u64map_init(&rs->dense_map, 128)) {
		btrfs_rootsets_release(rs);
		return -ENOMEM;
	}
	rs->bits_at[0] = NO_BITS;
	return 0;
}

void btrfs_rootsets_release(struct btrfs_rootsets *rs)
{
	free(rs->members);
	free(rs->start);
	free(rs->len);
	free(rs->bits_at);
	free(rs->bits_words);
	free(rs->set_bits);
	btrfs_u64map_release(&rs->table);
	btrfs_u64map_release(&rs->memo);
	free(rs->member_dense);
	free(rs->dense_ids);
	btrfs_u64map_release(&rs->dense_map);
	free(rs->bitmap);
	free(rs->many);
	free(rs->many_ids);
	memset(rs, 0, sizeof(*rs));
}

/* rs->bitmap covers every dense number given out so far (new words zeroed) */
static int bitmap_reserve(struct btrfs_rootsets *rs)
{
	size_t words = ((size_t)rs->nr_dense + 63) / 64;
	u64 *b;

	if (words <= rs->bitmap_words)
		return 0;
	b = realloc(rs->bitmap, words * sizeof(*b));
	if (!b)
		return -ENOMEM;
	memset(b + rs->bitmap_words, 0, (words - rs->bitmap_words) * sizeof(*b));
	rs->bitmap = b;
	rs->bitmap_words = words;
	return 0;
}

/* The dense number of tree id @root; false if it has none */
static inline bool dense_lookup(const struct btrfs_rootsets *rs, u64 root, u32 *d)
{
	return btrfs_u64map_find(&rs->dense_map, root, d);
}

/* The dense number of tree id @root, given one if it is new (@add) */
static int dense_number(struct btrfs_rootsets *rs, u64 root, bool add, u32 *d)
{
	int ret;

	if (!add)
		return dense_lookup(rs, root, d) ? 0 : -ENOENT;
	if (rs->nr_dense == rs->alloc_dense) {
		u32 na = rs->alloc_dense ? rs->alloc_dense * 2 : 64;
		u64 *n = realloc(rs->dense_ids, na * sizeof(*n));

		if (!n)
			return -ENOMEM;
		rs->dense_ids = n;
		rs->alloc_dense = na;
	}
	ret = btrfs_u64map_insert(&rs->dense_map, root, rs->nr_dense, d);
	if (ret)
		return ret < 0 ? ret : 0;
	if (rs->nr_dense && root < rs->dense_ids[rs->nr_dense - 1])
		rs->dense_sorted = false;
	rs->dense_ids[rs->nr_dense] = root;
	*d = rs->nr_dense++;
	return bitmap_reserve(rs);
}

static inline void bit_set(u64 *b, u32 d)
{
	b[d / 64] |= 1ULL << (d % 64);
}

static inline bool bit_test(const u64 *b, u32 d)
{
	return b[d / 64] & (1ULL << (d % 64));
}

/* OR set @id into rs->bitmap */
static void or_set(struct btrfs_rootsets *rs, u32 id)
{
	if (rs->bits_at[id] != NO_BITS) {
		const u64 *w = rs->set_bits + rs->bits_at[id];

		for (u32 i = 0; i < rs->bits_words[id]; i++)
			rs->bitmap[i] |= w[i];
	} else {
		const u32 *d = rs->member_dense + rs->start[id];

		for (u32 j = 0; j < rs->len[id]; j++)
			bit_set(rs->bitmap, d[j]);
	}
}

/* Whether set @id is exactly the one in rs->bitmap, given equal member counts */
static bool same_as_bitmap(const struct btrfs_rootsets *rs, u32 id)
{
	if (rs->bits_at[id] != NO_BITS) {
		const u64 *w = rs->set_bits + rs->bits_at[id];

		for (u32 i = 0; i < rs->bits_words[id]; i++)
			if (w[i] != rs->bitmap[i])
				return false;
		return true;	/* equal counts: no bits beyond */
	}
	for (u32 j = 0; j < rs->len[id]; j++)
		if (!bit_test(rs->bitmap, rs->member_dense[rs->start[id] + j]))
			return false;
	return true;
}

static int grow_sets(struct btrfs_rootsets *rs)
{
	u32 na = rs->alloc * 2;
	size_t *ns, *nb;
	u32 *nl, *nw;

	if (!(ns = realloc(rs->start, na * sizeof(*ns))))
		return -ENOMEM;
	rs->start = ns;
	if (!(nl = realloc(rs->len, na * sizeof(*nl))))
		return -ENOMEM;
	rs->len = nl;
	if (!(nb = realloc(rs->bits_at, na * sizeof(*nb))))
		return -ENOMEM;
	rs->bits_at = nb;
	if (!(nw = realloc(rs->bits_words, na * sizeof(*nw))))
		return -ENOMEM;
	rs->bits_words = nw;
	rs->alloc = na;
	return 0;
}

static int grow_members(struct btrfs_rootsets *rs, size_t n)
{
	size_t na = rs->alloc_members ? rs->alloc_members * 2 : 1024;
	u64 *nm;
	u32 *nd;

	if (rs->nr_members + n <= rs->alloc_members)
		return 0;
	while (na < rs->nr_members + n)
		na *= 2;
	nm = realloc(rs->members, na * sizeof(*nm));
	if (!nm)
		return -ENOMEM;
	rs->members = nm;
	nd = realloc(rs->member_dense, na * sizeof(*nd));
	if (!nd)
		return -ENOMEM;
	rs->member_dense = nd;
	rs->alloc_members = na;
	return 0;
}

static int cmp_by_id(const void *a, const void *b, void *priv)
{
	const u64 *ids = priv;
	u64 x = ids[*(const u32 *)a], y = ids[*(const u32 *)b];

	return x < y ? -1 : x > y;
}

/*
 * The members of a bitmap of @words words: dense numbers into @dense and
 * tree ids into @ids (either may be NULL), sorted by tree id (dense order
 * is id order when dense_sorted; otherwise sorted here).  Return: count.
 */
static u32 list_bits(const struct btrfs_rootsets *rs, const u64 *bits, size_t words, u32 *dense, u64 *ids)
{
	u32 k = 0;

	for (size_t w = 0; w < words; w++) {
		u64 b = bits[w];

		while (b) {
			dense[k++] = (u32)(w * 64 + (size_t)__builtin_ctzll(b));
			b &= b - 1;
		}
	}
	if (!rs->dense_sorted)
		qsort_r(dense, k, sizeof(*dense), cmp_by_id, (void *)rs->dense_ids);
	for (u32 i = 0; ids && i < k; i++)
		ids[i] = rs->dense_ids[dense[i]];
	return k;
}

/*
 * Add the set in rs->bitmap (@words words, @n members) as a new set: as a
 * bitmap of its own when that is no longer than its member list, else as a
 * member list (tree ids sorted, and their dense numbers).
 */
static int add_set(struct btrfs_rootsets *rs, size_t words, u32 n, u64 h, u32 *id)
{
	size_t used = 0;
	int ret;

	if (rs->nr == UINT32_MAX - 1)
		return -ENOMEM;
	if (rs->nr == rs->alloc && (ret = grow_sets(rs)))
		return ret;
	for (size_t w = 0; w < words; w++)
		if (rs->bitmap[w])
			used = w + 1;
	rs->bits_at[rs->nr] = NO_BITS;
	rs->bits_words[rs->nr] = 0;
	rs->start[rs->nr] = rs->nr_members;
	if (used <= n) {
		if (rs->nr_set_bits + used > rs->alloc_set_bits) {
			size_t na = rs->alloc_set_bits ? rs->alloc_set_bits * 2 : 1024;
			u64 *nb;

			while (na < rs->nr_set_bits + used)
				na *= 2;
			nb = realloc(rs->set_bits, na * sizeof(*nb));
			if (!nb)
				return -ENOMEM;
			rs->set_bits = nb;
			rs->alloc_set_bits = na;
		}
		memcpy(rs->set_bits + rs->nr_set_bits, rs->bitmap, used * sizeof(u64));
		rs->bits_at[rs->nr] = rs->nr_set_bits;
		rs->bits_words[rs->nr] = (u32)used;
		rs->nr_set_bits += used;
	} else {
		if ((ret = grow_members(rs, n)))
			return ret;
		list_bits(rs, rs->bitmap, words, rs->member_dense + rs->nr_members,
			  rs->members + rs->nr_members);
		rs->nr_members += n;
	}
	ret = btrfs_u64map_add(&rs->table, h, rs->nr);
	if (ret)
		return ret;
	rs->len[rs->nr] = n;
	*id = rs->nr++;
	return 0;
}

/* Intern the set in rs->bitmap and clear the bitmap */
static int intern_bitmap(struct btrfs_rootsets *rs, u32 *id)
{
	size_t words = rs->bitmap_words;
	u32 n = 0, pos, cand;
	u64 h;
	int ret = 0;

	for (size_t w = 0; w < words; w++)
		n += (u32)__builtin_popcountll(rs->bitmap[w]);
	if (n == 0) {
		*id = 0;
		return 0;
	}
	h = hash_words(rs->bitmap, words);
	pos = btrfs_u64map_first(&rs->table, h);
	while (btrfs_u64map_next(&rs->table, h, &pos, &cand)) {
		if (rs->len[cand] == n && same_as_bitmap(rs, cand)) {
			*id = cand;
			goto out;
		}
	}
	ret = add_set(rs, words, n, h, id);
out:
	memset(rs->bitmap, 0, words * sizeof(*rs->bitmap));
	return ret;
}

int btrfs_rootsets_intern(struct btrfs_rootsets *rs, const u64 *ids, size_t n, u32 *id)
{
	for (size_t i = 0; i < n; i++) {
		u32 d;
		int ret = dense_number(rs, ids[i], true, &d);

		if (ret) {
			memset(rs->bitmap, 0, rs->bitmap_words * sizeof(*rs->bitmap));
			return ret;
		}
		bit_set(rs->bitmap, d);
	}
	return intern_bitmap(rs, id);
}

int btrfs_rootsets_single(struct btrfs_rootsets *rs, u64 root, u32 *id)
{
	return btrfs_rootsets_intern(rs, &root, 1, id);
}

/* Remember a ∪ b (a < b); a cache: not remembering is fine */
static void memo_store(struct btrfs_rootsets *rs, u32 a, u32 b, u32 result)
{
	if (rs->memo.nr >= rs->memo_max)
		btrfs_u64map_clear(&rs->memo);
	btrfs_u64map_insert(&rs->memo, (u64)a << 32 | b, result, NULL);
}

int btrfs_rootsets_union(struct btrfs_rootsets *rs, u32 a, u32 b, u32 *out)
{
	int ret;

	rs->unions++;
	if (a == b || b == 0) {
		*out = a;
		return 0;
	}
	if (a == 0) {
		*out = b;
		return 0;
	}
	if (a > b) {
		u32 t = a;

		a = b;
		b = t;
	}
	if (btrfs_u64map_find(&rs->memo, (u64)a << 32 | b, out)) {
		rs->memo_hits++;
		return 0;
	}
	or_set(rs, a);
	or_set(rs, b);
	ret = intern_bitmap(rs, out);
	if (ret)
		return ret;
	memo_store(rs, a, b, *out);
	return 0;
}

static u64 hash_ids(const u32 *ids, size_t n)
{
	u64 h = 0x9E3779B97F4A7C15ULL ^ n;

	for (size_t i = 0; i < n; i++)
		h = (h ^ ids[i]) * 0xff51afd7ed558ccdULL;
	return h ^ (h >> 31);
}

/* The memoised result of the union of the sorted distinct ids, or 0 */
static u32 many_lookup(const struct btrfs_rootsets *rs, const u32 *ids, size_t n, u64 h)
{
	const struct btrfs_rootset_many *e;

	if (!rs->many)
		return 0;
	e = &rs->many[h & (rs->many_size - 1)];
	if (e->hash != h || e->n != n || memcmp(rs->many_ids + e->off, ids, n * sizeof(*ids)))
		return 0;
	return e->result;
}

/* Remember it: a cache, so failing to is harmless; cleared when its pool fills */
static void many_store(struct btrfs_rootsets *rs, const u32 *ids, size_t n, u64 h, u32 result)
{
	struct btrfs_rootset_many *e;

	if (!rs->many) {
		rs->many_size = MANY_ENTRIES;
		rs->many = calloc(rs->many_size, sizeof(*rs->many));
		rs->many_ids = malloc(MANY_POOL * sizeof(*rs->many_ids));
		if (!rs->many || !rs->many_ids) {
			free(rs->many);
			free(rs->many_ids);
			rs->many = NULL;
			rs->many_ids = NULL;
			return;
		}
	}
	if (n > MANY_POOL / 4)
		return;
	if (rs->many_nr_ids + n > MANY_POOL) {
		memset(rs->many, 0, rs->many_size * sizeof(*rs->many));
		rs->many_nr_ids = 0;
	}
	e = &rs->many[h & (rs->many_size - 1)];
	memcpy(rs->many_ids + rs->many_nr_ids, ids, n * sizeof(*ids));
	e->hash = h;
	e->off = (u32)rs->many_nr_ids;
	e->n = (u32)n;
	e->result = result;
	rs->many_nr_ids += n;
}

/*
 * The memo is keyed by the ids as given (without empty sets and repeats in
 * a row): callers bring the same sets in the same order again (the back
 * refs of neighbouring extents), and a sorted key found only 2% more hits
 * on the benchmark image than this one, for the price of a sort per union.
 */
int btrfs_rootsets_union_many(struct btrfs_rootsets *rs, u32 *ids, size_t n, u32 *out)
{
	size_t k = 0;
	u64 h;
	u32 hit;
	int ret;

	for (size_t i = 0; i < n; i++)
		if (ids[i] && (k == 0 || ids[k - 1] != ids[i]))
			ids[k++] = ids[i];
	if (k == 0) {
		*out = 0;
		return 0;
	}
	if (k == 1) {
		*out = ids[0];
		return 0;
	}
	if (k == 2)
		return btrfs_rootsets_union(rs, ids[0], ids[1], out);
	rs->unions++;
	h = hash_ids(ids, k);
	hit = many_lookup(rs, ids, k, h);
	if (hit) {
		rs->memo_hits++;
		*out = hit;
		return 0;
	}
	for (size_t i = 0; i < k; i++)
		or_set(rs, ids[i]);
	ret = intern_bitmap(rs, out);
	if (!ret)
		many_store(rs, ids, k, h, *out);
	return ret;
}

int btrfs_rootsets_remove(struct btrfs_rootsets *rs, u32 a, u64 root, u32 *out)
{
	u32 d;

	if (!btrfs_rootsets_has(rs, a, root) || dense_number(rs, root, false, &d)) {
		*out = a;
		return 0;
	}
	or_set(rs, a);
	rs->bitmap[d / 64] &= ~(1ULL << (d % 64));
	return intern_bitmap(rs, out);
}

bool btrfs_rootsets_has(const struct btrfs_rootsets *rs, u32 a, u64 root)
{
	const u64 *m;
	size_t lo = 0, hi = rs->len[a];

	if (rs->bits_at[a] != NO_BITS) {
		u32 d;

		if (!dense_lookup(rs, root, &d))
			return false;
		return d / 64 < rs->bits_words[a] && bit_test(rs->set_bits + rs->bits_at[a], d);
	}
	if (!hi)
		return false;
	m = rs->members + rs->start[a];

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m[mid] == root)
			return true;
		if (m[mid] < root)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

u32 btrfs_rootsets_copy(const struct btrfs_rootsets *rs, u32 id, u64 *ids, u32 *dense)
{
	u32 n = rs->len[id];

	if (rs->bits_at[id] != NO_BITS)
		return list_bits(rs, rs->set_bits + rs->bits_at[id], rs->bits_words[id], dense, ids);
	if (!n)
		return 0;	/* the empty set: no list, maybe no array at all */
	if (ids)
		memcpy(ids, rs->members + rs->start[id], n * sizeof(*ids));
	memcpy(dense, rs->member_dense + rs->start[id], n * sizeof(*dense));
	return n;
}

u32 btrfs_rootsets_count_in(const struct btrfs_rootsets *rs, u32 id, const u64 *ids, size_t n)
{
	u32 in = 0;

	if (rs->bits_at[id] != NO_BITS) {
		for (size_t i = 0; i < n; i++) {
			size_t k = 0;

			while (k < i && ids[k] != ids[i])
				k++;
			in += k == i && btrfs_rootsets_has(rs, id, ids[i]);	/* repeats once */
		}
		return in;
	}
	for (u32 j = 0; j < rs->len[id]; j++)
		for (size_t i = 0; i < n; i++)
			if (rs->members[rs->start[id] + j] == ids[i]) {
				in++;
				break;
			}
	return in;
}
