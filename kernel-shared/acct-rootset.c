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
 * Invariants: id 0 is the empty set; sets are immutable once interned;
 * members[start[id] .. start[id] + len[id]) is strictly increasing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "accounting.h"

#define MEMO_MAX_DEFAULT	(1U << 18)
/* Unions of three or more sets: direct-mapped entries, their ids in one pool */
#define MANY_ENTRIES		(1U << 16)
#define MANY_POOL		(1U << 20)

static u64 hash_members(const u64 *ids, size_t n)
{
	u64 h = 0xcbf29ce484222325ULL ^ n;

	for (size_t i = 0; i < n; i++) {
		h ^= ids[i] + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
		h *= 0x100000001b3ULL;
	}
	return h ^ (h >> 29);
}

static inline u32 mix32(u64 v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdULL;
	v ^= v >> 33;
	return (u32)v;
}

static int table_rehash(struct btrfs_rootsets *rs, u32 size)
{
	u32 *t = calloc(size, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (u32 id = 1; id < rs->nr; id++) {
		u32 h = mix32(rs->hash[id]) & (size - 1);

		while (t[h])
			h = (h + 1) & (size - 1);
		t[h] = id;
	}
	free(rs->table);
	rs->table = t;
	rs->table_size = size;
	return 0;
}

int btrfs_rootsets_init(struct btrfs_rootsets *rs)
{
	memset(rs, 0, sizeof(*rs));
	rs->alloc = 64;
	rs->start = calloc(rs->alloc, sizeof(*rs->start));
	rs->len = calloc(rs->alloc, sizeof(*rs->len));
	rs->hash = calloc(rs->alloc, sizeof(*rs->hash));
	rs->memo_size = 1024;
	rs->memo = calloc(rs->memo_size, sizeof(*rs->memo));
	rs->memo_max = MEMO_MAX_DEFAULT;
	rs->nr = 1;	/* the empty set */
	rs->dense_sorted = true;
	if (!rs->start || !rs->len || !rs->hash || !rs->memo || table_rehash(rs, 256)) {
		btrfs_rootsets_release(rs);
		return -ENOMEM;
	}
	return 0;
}

void btrfs_rootsets_release(struct btrfs_rootsets *rs)
{
	free(rs->members);
	free(rs->start);
	free(rs->len);
	free(rs->hash);
	free(rs->table);
	free(rs->memo);
	free(rs->scratch);
	free(rs->member_dense);
	free(rs->dense_ids);
	free(rs->dense_table);
	free(rs->bitmap);
	free(rs->many);
	free(rs->many_ids);
	memset(rs, 0, sizeof(*rs));
}

static int scratch_reserve(struct btrfs_rootsets *rs, size_t n)
{
	u64 *s;

	if (n <= rs->scratch_alloc)
		return 0;
	s = realloc(rs->scratch, n * sizeof(*s));
	if (!s)
		return -ENOMEM;
	rs->scratch = s;
	rs->scratch_alloc = n;
	return 0;
}

static int dense_table_grow(struct btrfs_rootsets *rs)
{
	u32 size = rs->dense_table_size ? rs->dense_table_size * 2 : 256;
	u32 *t = calloc(size, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (u32 d = 0; d < rs->nr_dense; d++) {
		u32 h = mix32(rs->dense_ids[d]) & (size - 1);

		while (t[h])
			h = (h + 1) & (size - 1);
		t[h] = d + 1;
	}
	free(rs->dense_table);
	rs->dense_table = t;
	rs->dense_table_size = size;
	return 0;
}

/* The dense number of tree id @root, given one if it is new */
static int dense_number(struct btrfs_rootsets *rs, u64 root, u32 *d)
{
	u32 h;
	int ret;

	if ((u64)(rs->nr_dense + 1) * 2 > rs->dense_table_size) {
		ret = dense_table_grow(rs);
		if (ret)
			return ret;
	}
	h = mix32(root) & (rs->dense_table_size - 1);
	while (rs->dense_table[h]) {
		if (rs->dense_ids[rs->dense_table[h] - 1] == root) {
			*d = rs->dense_table[h] - 1;
			return 0;
		}
		h = (h + 1) & (rs->dense_table_size - 1);
	}
	if (rs->nr_dense == rs->alloc_dense) {
		u32 na = rs->alloc_dense ? rs->alloc_dense * 2 : 64;
		u64 *n = realloc(rs->dense_ids, na * sizeof(*n));

		if (!n)
			return -ENOMEM;
		rs->dense_ids = n;
		rs->alloc_dense = na;
	}
	if (rs->nr_dense && root < rs->dense_ids[rs->nr_dense - 1])
		rs->dense_sorted = false;
	rs->dense_ids[rs->nr_dense] = root;
	rs->dense_table[h] = rs->nr_dense + 1;
	*d = rs->nr_dense++;
	return 0;
}

/* Intern @n strictly increasing members (they may live in rs->scratch) */
static int intern_sorted(struct btrfs_rootsets *rs, const u64 *ids, size_t n, u32 *id)
{
	u64 h;
	u32 slot;

	if (n == 0) {
		*id = 0;
		return 0;
	}
	h = hash_members(ids, n);
	slot = mix32(h) & (rs->table_size - 1);
	while (rs->table[slot]) {
		u32 cand = rs->table[slot];

		if (rs->hash[cand] == h && rs->len[cand] == n &&
		    !memcmp(rs->members + rs->start[cand], ids, n * sizeof(*ids))) {
			*id = cand;
			return 0;
		}
		slot = (slot + 1) & (rs->table_size - 1);
	}
	if (rs->nr == UINT32_MAX - 1)
		return -ENOMEM;
	if (rs->nr == rs->alloc) {
		u32 na = rs->alloc * 2;
		size_t *ns = realloc(rs->start, na * sizeof(*ns));
		u32 *nl;
		u64 *nh;

		if (!ns)
			return -ENOMEM;
		rs->start = ns;
		nl = realloc(rs->len, na * sizeof(*nl));
		if (!nl)
			return -ENOMEM;
		rs->len = nl;
		nh = realloc(rs->hash, na * sizeof(*nh));
		if (!nh)
			return -ENOMEM;
		rs->hash = nh;
		rs->alloc = na;
	}
	if (rs->nr_members + n > rs->alloc_members) {
		size_t na = rs->alloc_members ? rs->alloc_members * 2 : 1024;
		u64 *nm;
		u32 *nd;

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
	}
	for (size_t i = 0; i < n; i++) {
		int ret = dense_number(rs, ids[i], &rs->member_dense[rs->nr_members + i]);

		if (ret)
			return ret;
	}
	memcpy(rs->members + rs->nr_members, ids, n * sizeof(*ids));
	rs->start[rs->nr] = rs->nr_members;
	rs->len[rs->nr] = (u32)n;
	rs->hash[rs->nr] = h;
	rs->nr_members += n;
	rs->table[slot] = rs->nr;
	*id = rs->nr++;
	if ((u64)rs->nr * 2 > rs->table_size)
		return table_rehash(rs, rs->table_size * 2);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

int btrfs_rootsets_intern(struct btrfs_rootsets *rs, const u64 *ids, size_t n, u32 *id)
{
	size_t out = 0;
	int ret;

	ret = scratch_reserve(rs, n);
	if (ret)
		return ret;
	if (n)
		memcpy(rs->scratch, ids, n * sizeof(*ids));
	if (n)
		qsort(rs->scratch, n, sizeof(*rs->scratch), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (out == 0 || rs->scratch[out - 1] != rs->scratch[i])
			rs->scratch[out++] = rs->scratch[i];
	return intern_sorted(rs, rs->scratch, out, id);
}

int btrfs_rootsets_single(struct btrfs_rootsets *rs, u64 root, u32 *id)
{
	return intern_sorted(rs, &root, 1, id);
}

static int memo_grow(struct btrfs_rootsets *rs)
{
	u32 size = rs->memo_size * 2;
	struct btrfs_rootset_memo *m = calloc(size, sizeof(*m));

	if (!m)
		return -ENOMEM;
	for (u32 i = 0; i < rs->memo_size; i++) {
		const struct btrfs_rootset_memo *e = &rs->memo[i];
		u32 h;

		if (!e->a)
			continue;
		h = mix32(((u64)e->a << 32) | e->b) & (size - 1);
		while (m[h].a)
			h = (h + 1) & (size - 1);
		m[h] = *e;
	}
	free(rs->memo);
	rs->memo = m;
	rs->memo_size = size;
	return 0;
}

static void memo_store(struct btrfs_rootsets *rs, u32 a, u32 b, u32 result)
{
	u32 h;

	if (rs->memo_nr >= rs->memo_max) {
		memset(rs->memo, 0, rs->memo_size * sizeof(*rs->memo));
		rs->memo_nr = 0;
	}
	if ((rs->memo_nr + 1) * 2 > rs->memo_size && memo_grow(rs))
		return;		/* a cache: not remembering is fine */
	h = mix32(((u64)a << 32) | b) & (rs->memo_size - 1);
	while (rs->memo[h].a)
		h = (h + 1) & (rs->memo_size - 1);
	rs->memo[h].a = a;
	rs->memo[h].b = b;
	rs->memo[h].result = result;
	rs->memo_nr++;
}

int btrfs_rootsets_union(struct btrfs_rootsets *rs, u32 a, u32 b, u32 *out)
{
	const u64 *ma, *mb;
	size_t i = 0, j = 0, n = 0;
	u32 h;
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
	h = mix32(((u64)a << 32) | b) & (rs->memo_size - 1);
	while (rs->memo[h].a) {
		if (rs->memo[h].a == a && rs->memo[h].b == b) {
			rs->memo_hits++;
			*out = rs->memo[h].result;
			return 0;
		}
		h = (h + 1) & (rs->memo_size - 1);
	}
	ret = scratch_reserve(rs, (size_t)rs->len[a] + rs->len[b]);
	if (ret)
		return ret;
	/* members may move when interning grows the array: merge into scratch first */
	ma = rs->members + rs->start[a];
	mb = rs->members + rs->start[b];
	while (i < rs->len[a] || j < rs->len[b]) {
		u64 v;

		if (j == rs->len[b] || (i < rs->len[a] && ma[i] < mb[j]))
			v = ma[i++];
		else if (i == rs->len[a] || mb[j] < ma[i])
			v = mb[j++];
		else {
			v = ma[i++];
			j++;
		}
		rs->scratch[n++] = v;
	}
	ret = intern_sorted(rs, rs->scratch, n, out);
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
 * Merge the @k sorted runs of rs->scratch (run i is [bounds[i], bounds[i+1]))
 * pairwise until one is left, dropping duplicates; the result ends up in
 * rs->scratch and its length is returned.  O(total * log k).
 */
static size_t merge_runs(struct btrfs_rootsets *rs, u64 *tmp, u64 *bounds, size_t k)
{
	u64 *src = rs->scratch, *dst = tmp, *t;

	while (k > 1) {
		size_t nk = 0, out = 0;

		for (size_t r = 0; r < k; r += 2) {
			size_t i = bounds[r], ie = bounds[r + 1];
			size_t j = r + 1 < k ? bounds[r + 1] : ie, je = r + 1 < k ? bounds[r + 2] : ie;
			size_t begin = out;

			while (i < ie || j < je) {
				u64 v;

				if (j == je || (i < ie && src[i] < src[j]))
					v = src[i++];
				else if (i == ie || src[j] < src[i])
					v = src[j++];
				else {
					v = src[i++];
					j++;
				}
				if (out == begin || dst[out - 1] != v)
					dst[out++] = v;
			}
			bounds[nk++] = begin;
		}
		bounds[nk] = out;
		k = nk;
		t = src;
		src = dst;
		dst = t;
	}
	if (src != rs->scratch)
		memcpy(rs->scratch, src, bounds[1] * sizeof(*src));
	return bounds[1];
}

/*
 * The union as a bitmap over dense numbers: one OR per member, and the
 * result comes out sorted when the ids were numbered in increasing order
 * (the engine interns every root alone first, in id order).
 */
static int union_bitmap(struct btrfs_rootsets *rs, const u32 *ids, size_t k, u32 *out)
{
	size_t words = ((size_t)rs->nr_dense + 63) / 64, n = 0;
	int ret;

	if (words > rs->bitmap_words) {
		u64 *b = realloc(rs->bitmap, words * sizeof(*b));

		if (!b)
			return -ENOMEM;
		rs->bitmap = b;
		rs->bitmap_words = words;
	}
	ret = scratch_reserve(rs, rs->nr_dense);
	if (ret)
		return ret;
	memset(rs->bitmap, 0, words * sizeof(*rs->bitmap));
	for (size_t i = 0; i < k; i++) {
		const u32 *d = rs->member_dense + rs->start[ids[i]];

		for (u32 j = 0; j < rs->len[ids[i]]; j++)
			rs->bitmap[d[j] / 64] |= 1ULL << (d[j] % 64);
	}
	for (size_t w = 0; w < words; w++) {
		u64 bits = rs->bitmap[w];

		while (bits) {
			rs->scratch[n++] = rs->dense_ids[w * 64 + (size_t)__builtin_ctzll(bits)];
			bits &= bits - 1;
		}
	}
	return intern_sorted(rs, rs->scratch, n, out);
}

/* The union of the @k > 2 sets @ids (any order, repeats allowed), interned */
static int union_ids(struct btrfs_rootsets *rs, const u32 *ids, size_t k, u32 *out)
{
	size_t total = 0, m = 0;
	u64 *bounds;
	int ret;

	for (size_t i = 0; i < k; i++)
		total += rs->len[ids[i]];
	/* scratch holds the runs, then a second buffer of the same size, then the bounds */
	ret = scratch_reserve(rs, 2 * total + k + 2);
	if (ret)
		return ret;
	bounds = rs->scratch + 2 * total;
	for (size_t i = 0; i < k; i++) {
		bounds[i] = m;
		memcpy(rs->scratch + m, rs->members + rs->start[ids[i]],
		       rs->len[ids[i]] * sizeof(*rs->scratch));
		m += rs->len[ids[i]];
	}
	bounds[k] = m;
	total = merge_runs(rs, rs->scratch + m, bounds, k);
	return intern_sorted(rs, rs->scratch, total, out);
}

/*
 * The memo is keyed by the ids as given (without empty sets and repeats in
 * a row): callers bring the same sets in the same order again (the back
 * refs of neighbouring extents), and a sorted key found only 2% more hits
 * on the benchmark image than this one, for the price of a sort per union.
 * The merge needs no sorted or distinct ids.
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
	if (rs->dense_sorted)
		ret = union_bitmap(rs, ids, k, out);
	else
		ret = union_ids(rs, ids, k, out);
	if (!ret)
		many_store(rs, ids, k, h, *out);
	return ret;
}

int btrfs_rootsets_remove(struct btrfs_rootsets *rs, u32 a, u64 root, u32 *out)
{
	const u64 *m = rs->members + rs->start[a];
	size_t n = 0;
	int ret;

	if (!btrfs_rootsets_has(rs, a, root)) {
		*out = a;
		return 0;
	}
	ret = scratch_reserve(rs, rs->len[a]);
	if (ret)
		return ret;
	m = rs->members + rs->start[a];
	for (u32 i = 0; i < rs->len[a]; i++)
		if (m[i] != root)
			rs->scratch[n++] = m[i];
	return intern_sorted(rs, rs->scratch, n, out);
}

bool btrfs_rootsets_has(const struct btrfs_rootsets *rs, u32 a, u64 root)
{
	const u64 *m = rs->members + rs->start[a];
	size_t lo = 0, hi = rs->len[a];

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
