// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the accounting engine's pure parts: root-set interning,
 * union memoisation, removal, and the distribution of per-set bytes to a
 * qgroup hierarchy by the kernel's rule (rfer if any root of the set is
 * below the group, excl if all are).
 */
#include <stdlib.h>
#include <string.h>
#include "kernel-shared/acct-family.h"
#include "kernel-shared/acct-internal.h"
#include "kernel-shared/qgroup-list.h"
#include "unit.h"

/* The members of set @id (tree ids), in a buffer reused by the next call */
static const u64 *members_of(const struct btrfs_rootsets *rs, u32 id, u32 *n)
{
	static u64 ids[4096];
	static u32 dense[4096];

	if (btrfs_rootsets_len(rs, id) > 4096) {
		*n = 0;
		return ids;
	}
	*n = btrfs_rootsets_copy(rs, id, ids, dense);
	return ids;
}

static void test_intern(void)
{
	struct btrfs_rootsets rs;
	u64 a[] = { 257, 5, 300, 5 };
	u64 b[] = { 300, 257, 5 };
	u64 c[] = { 5, 257 };
	u32 ia, ib, ic, ie, is;
	const u64 *m;
	u32 n;

	CHECK_EQ_INT(btrfs_rootsets_init(&rs), 0);
	CHECK_EQ_INT(btrfs_rootsets_intern(&rs, a, 4, &ia), 0);
	CHECK_EQ_INT(btrfs_rootsets_intern(&rs, b, 3, &ib), 0);
	CHECK_EQ_INT(btrfs_rootsets_intern(&rs, c, 2, &ic), 0);
	CHECK_EQ_INT(btrfs_rootsets_intern(&rs, NULL, 0, &ie), 0);
	CHECK_EQ_U64(ia, ib);		/* order and duplicates do not matter */
	CHECK(ia != ic);
	CHECK(ia != 0 && ic != 0);
	CHECK_EQ_U64(ie, 0);		/* the empty set is id 0 */
	m = members_of(&rs, ia, &n);
	CHECK_EQ_U64(n, 3);
	CHECK_EQ_U64(m[0], 5);
	CHECK_EQ_U64(m[1], 257);
	CHECK_EQ_U64(m[2], 300);
	CHECK(btrfs_rootsets_has(&rs, ia, 257));
	CHECK(!btrfs_rootsets_has(&rs, ic, 300));
	CHECK(!btrfs_rootsets_has(&rs, 0, 5));
	CHECK_EQ_INT(btrfs_rootsets_single(&rs, 300, &is), 0);
	m = members_of(&rs, is, &n);
	CHECK_EQ_U64(n, 1);
	CHECK_EQ_U64(m[0], 300);
	/* 3 non-empty sets plus the empty one */
	CHECK_EQ_U64(rs.nr, 4);
	btrfs_rootsets_release(&rs);
}

static void test_union_memo(void)
{
	struct btrfs_rootsets rs;
	u64 x[] = { 5, 256 }, y[] = { 256, 257 }, xy[] = { 5, 256, 257 };
	u32 ix, iy, ixy, u1, u2, u3, u4;
	u64 hits;

	CHECK_EQ_INT(btrfs_rootsets_init(&rs), 0);
	btrfs_rootsets_intern(&rs, x, 2, &ix);
	btrfs_rootsets_intern(&rs, y, 2, &iy);
	CHECK_EQ_INT(btrfs_rootsets_union(&rs, ix, iy, &u1), 0);
	btrfs_rootsets_intern(&rs, xy, 3, &ixy);
	CHECK_EQ_U64(u1, ixy);		/* the union is interned like any set */
	hits = rs.memo_hits;
	CHECK_EQ_INT(btrfs_rootsets_union(&rs, iy, ix, &u2), 0);
	CHECK_EQ_U64(u2, u1);
	CHECK_EQ_U64(rs.memo_hits, hits + 1);	/* commuted pair comes from the memo */
	CHECK_EQ_INT(btrfs_rootsets_union(&rs, ix, ix, &u3), 0);
	CHECK_EQ_U64(u3, ix);
	CHECK_EQ_INT(btrfs_rootsets_union(&rs, 0, iy, &u4), 0);
	CHECK_EQ_U64(u4, iy);
	CHECK_EQ_INT(btrfs_rootsets_union(&rs, ixy, 0, &u4), 0);
	CHECK_EQ_U64(u4, ixy);
	/* remove */
	CHECK_EQ_INT(btrfs_rootsets_remove(&rs, ixy, 257, &u4), 0);
	CHECK_EQ_U64(u4, ix);
	CHECK_EQ_INT(btrfs_rootsets_remove(&rs, ix, 999, &u4), 0);
	CHECK_EQ_U64(u4, ix);
	btrfs_rootsets_remove(&rs, ix, 5, &u4);
	btrfs_rootsets_remove(&rs, u4, 256, &u4);
	CHECK_EQ_U64(u4, 0);
	btrfs_rootsets_release(&rs);
}

/* union_many interns only the result, and agrees with pairwise unions */
static void test_union_many(void)
{
	struct btrfs_rootsets rs;
	u32 ids[5], many[6], u, pair;
	u32 before;

	CHECK_EQ_INT(btrfs_rootsets_init(&rs), 0);
	for (u32 i = 0; i < 5; i++)
		btrfs_rootsets_single(&rs, 300 + i, &ids[i]);
	before = rs.nr;
	many[0] = ids[3];
	many[1] = ids[0];
	many[2] = 0;
	many[3] = ids[3];
	many[4] = ids[4];
	many[5] = ids[1];
	CHECK_EQ_INT(btrfs_rootsets_union_many(&rs, many, 6, &u), 0);
	CHECK_EQ_U64(rs.nr, before + 1);	/* {300,301,303,304} and nothing else */
	CHECK_EQ_U64(rs.len[u], 4);
	CHECK(btrfs_rootsets_has(&rs, u, 304));
	CHECK(!btrfs_rootsets_has(&rs, u, 302));
	many[0] = ids[2];
	CHECK_EQ_INT(btrfs_rootsets_union_many(&rs, many, 1, &pair), 0);
	CHECK_EQ_U64(pair, ids[2]);
	CHECK_EQ_INT(btrfs_rootsets_union_many(&rs, many, 0, &pair), 0);
	CHECK_EQ_U64(pair, 0);
	many[0] = u;
	many[1] = ids[2];
	CHECK_EQ_INT(btrfs_rootsets_union_many(&rs, many, 2, &pair), 0);
	CHECK_EQ_U64(rs.len[pair], 5);
	btrfs_rootsets_release(&rs);
}

/*
 * Random lists of up to 200 set ids (duplicates, empty sets, any order),
 * each given twice and then reversed, so the memo is hit both as given and
 * sorted: every result must equal the set interned from all members.
 */
static void test_union_many_random(bool ids_in_order)
{
	struct btrfs_rootsets rs;
	u64 state = 0x243F6A8885A308D3ULL, members[200 * 40];
	u32 sets[64], list[200], copy[200];
	unsigned int bad = 0;

	CHECK_EQ_INT(btrfs_rootsets_init(&rs), 0);
	/* the engine interns each root alone first, in id order: bitmap unions */
	for (u64 id = 256; ids_in_order && id < 256 + 150; id++)
		CHECK_EQ_INT(btrfs_rootsets_single(&rs, id, &list[0]), 0);
	for (u32 i = 0; i < 64; i++) {
		u64 m[40];
		size_t n = i % 40;

		for (size_t j = 0; j < n; j++) {
			state = state * 6364136223846793005ULL + 1442695040888963407ULL;
			m[j] = 256 + (state >> 33) % 150;
		}
		CHECK_EQ_INT(btrfs_rootsets_intern(&rs, m, n, &sets[i]), 0);
	}
	for (int round = 0; round < 300; round++) {
		size_t n, nm = 0;
		u32 want, got;

		state = state * 6364136223846793005ULL + 1442695040888963407ULL;
		n = (state >> 33) % 200;
		for (size_t i = 0; i < n; i++) {
			const u64 *m;
			u32 len;

			state = state * 6364136223846793005ULL + 1442695040888963407ULL;
			list[i] = sets[(state >> 33) % 64];
			m = members_of(&rs, list[i], &len);
			for (u32 j = 0; j < len; j++)
				members[nm++] = m[j];
		}
		CHECK_EQ_INT(btrfs_rootsets_intern(&rs, members, nm, &want), 0);
		{
			/* has() and count_in() agree with the listed members, kept as a
			 * bitmap or as a list; repeats in the query count once */
			u64 query[2 * 150];
			u32 len, in_list = 0;
			const u64 *m = members_of(&rs, want, &len);

			for (u64 id = 256; id < 256 + 150; id++) {
				bool listed = false;

				for (u32 j = 0; j < len; j++)
					listed |= m[j] == id;
				in_list += listed;
				if (btrfs_rootsets_has(&rs, want, id) != listed)
					bad++;
				query[2 * (id - 256)] = id;
				query[2 * (id - 256) + 1] = id;
			}
			if (in_list != len ||
			    btrfs_rootsets_count_in(&rs, want, query, 300) != len)
				bad++;
		}
		for (int pass = 0; pass < 3; pass++) {
			for (size_t i = 0; i < n; i++)
				copy[i] = pass == 2 ? list[n - 1 - i] : list[i];
			if (btrfs_rootsets_union_many(&rs, copy, n, &got) || got != want)
				bad++;
		}
	}
	CHECK_EQ_U64(bad, 0);
	CHECK(rs.memo_hits > 0);
	CHECK_EQ_INT(rs.dense_sorted, ids_in_order);	/* both listing orders are covered */
	CHECK(rs.nr_set_bits > 0);	/* sets kept as bitmaps */
	CHECK(!ids_in_order || rs.nr_members > 0);	/* and as lists (the singles past 64) */
	btrfs_rootsets_release(&rs);
}

/*
 * A chain of snapshots: block sets grow by one root per level.  With a tiny
 * memo (cleared every 4 entries) results must not change, and every union
 * must equal the set interned directly.
 */
static void test_many_sets(void)
{
	struct btrfs_rootsets rs;
	u32 ids[1024];
	bool ok = true, same = true;

	CHECK_EQ_INT(btrfs_rootsets_init(&rs), 0);
	rs.memo_max = 4;
	for (u32 mask = 0; mask < 1024; mask++) {
		u64 m[10];
		size_t n = 0;

		for (int bit = 0; bit < 10; bit++)
			if (mask & (1U << bit))
				m[n++] = 256 + bit;
		if (btrfs_rootsets_intern(&rs, m, n, &ids[mask]))
			ok = false;
	}
	CHECK(ok);
	CHECK_EQ_U64(rs.nr, 1024);	/* all subsets distinct, the empty one is 0 */
	CHECK_EQ_U64(ids[0], 0);
	for (u32 a = 0; a < 1024; a += 7) {
		for (u32 b = 0; b < 1024; b += 13) {
			u32 u;

			if (btrfs_rootsets_union(&rs, ids[a], ids[b], &u) || u != ids[a | b])
				same = false;
		}
	}
	CHECK(same);
	CHECK(rs.memo.nr <= 4);
	CHECK_EQ_U64(rs.nr, 1024);	/* unions created no new sets */
	btrfs_rootsets_release(&rs);
}

/*
 * Hierarchy: 0/256, 0/257 in 1/1; 1/1 and 0/258 in 2/1; 0/259 alone;
 * subvolume 300 has no qgroup.  Sets and bytes:
 *   {256}          100   -> 0/256, 1/1, 2/1 rfer+excl
 *   {256,257}       20   -> rfer of 0/256, 0/257; excl of 1/1, 2/1
 *   {257,258}        3   -> rfer 0/257, 0/258, 1/1; excl 2/1
 *   {258,300}     4000   -> rfer 0/258, 2/1; excl nobody (300 is outside)
 *   {259}        50000   -> 0/259
 */
static void test_distribution(void)
{
	struct btrfs_acct acct;
	struct btrfs_qgroup_list list;
	struct btrfs_qgroup groups[6];
	struct btrfs_acct_counts counts[6], sv;
	u64 p11[] = { btrfs_qgroup_mkid(1, 1) };
	u64 p21[] = { btrfs_qgroup_mkid(2, 1) };
	u64 s1[] = { 256 }, s2[] = { 256, 257 }, s3[] = { 257, 258 }, s4[] = { 258, 300 },
	    s5[] = { 259 };
	u64 *sets[] = { s1, s2, s3, s4, s5 };
	size_t lens[] = { 1, 2, 2, 2, 1 };
	u64 bytes[] = { 100, 20, 3, 4000, 50000 };
	u64 del[] = { 258, 300 };

	memset(&acct, 0, sizeof(acct));
	CHECK_EQ_INT(btrfs_rootsets_init(&acct.sets), 0);
	for (int i = 0; i < 5; i++) {
		u32 id;

		btrfs_rootsets_intern(&acct.sets, sets[i], lens[i], &id);
		CHECK_EQ_INT(acct_add_bytes(&acct, id, bytes[i]), 0);
	}
	memset(groups, 0, sizeof(groups));
	groups[0].qgroupid = 256;
	groups[0].parents = p11;
	groups[0].nr_parents = 1;
	groups[1].qgroupid = 257;
	groups[1].parents = p11;
	groups[1].nr_parents = 1;
	groups[2].qgroupid = 258;
	groups[2].parents = p21;
	groups[2].nr_parents = 1;
	groups[3].qgroupid = 259;
	groups[4].qgroupid = btrfs_qgroup_mkid(1, 1);
	groups[4].parents = p21;
	groups[4].nr_parents = 1;
	groups[5].qgroupid = btrfs_qgroup_mkid(2, 1);
	memset(&list, 0, sizeof(list));
	list.groups = groups;
	list.nr = 6;
	CHECK_EQ_INT(btrfs_acct_qgroups(&acct, &list, counts), 0);
	CHECK_EQ_U64(counts[0].rfer, 120);
	CHECK_EQ_U64(counts[0].excl, 100);
	CHECK_EQ_U64(counts[1].rfer, 23);
	CHECK_EQ_U64(counts[1].excl, 0);
	CHECK_EQ_U64(counts[2].rfer, 4003);
	CHECK_EQ_U64(counts[2].excl, 0);
	CHECK_EQ_U64(counts[3].rfer, 50000);
	CHECK_EQ_U64(counts[3].excl, 50000);
	CHECK_EQ_U64(counts[4].rfer, 123);
	CHECK_EQ_U64(counts[4].excl, 120);
	CHECK_EQ_U64(counts[5].rfer, 4123);
	CHECK_EQ_U64(counts[5].excl, 123);
	/* what deleting 258 and 300 together would free, and what they reach */
	btrfs_acct_subvols(&acct, del, 2, &sv);
	CHECK_EQ_U64(sv.excl, 4000);
	CHECK_EQ_U64(sv.rfer, 4003);
	btrfs_rootsets_release(&acct.sets);
	free(acct.set_bytes);
}

/*
 * Families (subvolume space): 257 and 258 are snapshots of 256, 259 of 257
 * (a snapshot of a snapshot: not one of 256's), 300 is not listed (a dead
 * root).  Each number is checked by hand and against btrfs_acct_subvols()
 * of the same set: set exclusivity, not a sum of the members' numbers.
 */
static void test_families(void)
{
	struct btrfs_acct acct;
	struct btrfs_acct_family fam[4];
	struct btrfs_acct_counts c;
	u64 s1[] = { 256 }, s2[] = { 256, 257 }, s3[] = { 257, 258 }, s4[] = { 257, 259 },
	    s5[] = { 258, 300 }, s6[] = { 257 }, s7[] = { 259 };
	u64 *sets[] = { s1, s2, s3, s4, s5, s6, s7 };
	size_t lens[] = { 1, 2, 2, 2, 2, 1, 1 };
	u64 bytes[] = { 100, 20, 3, 7, 4000, 50, 9 };
	u64 ids[] = { 256, 257, 258, 259 };
	size_t origin[] = { BTRFS_ACCT_NO_ORIGIN, 0, 0, 1 };
	u64 snaps256[] = { 257, 258 }, fam256[] = { 256, 257, 258 }, fam257[] = { 257, 259 };

	memset(&acct, 0, sizeof(acct));
	CHECK_EQ_INT(btrfs_rootsets_init(&acct.sets), 0);
	for (int i = 0; i < 7; i++) {
		u32 id;

		CHECK_EQ_INT(btrfs_rootsets_intern(&acct.sets, sets[i], lens[i], &id), 0);
		CHECK_EQ_INT(acct_add_bytes(&acct, id, bytes[i]), 0);
	}
	CHECK_EQ_INT(btrfs_acct_families(&acct, ids, origin, 4, fam), 0);
	CHECK_EQ_U64(fam[0].rfer, 120);
	CHECK_EQ_U64(fam[0].excl, 100);
	CHECK_EQ_U64(fam[0].snap_excl, 53);
	CHECK_EQ_U64(fam[0].family_excl, 173);
	CHECK_EQ_U64(fam[1].rfer, 80);
	CHECK_EQ_U64(fam[1].excl, 50);
	CHECK_EQ_U64(fam[1].snap_excl, 9);
	CHECK_EQ_U64(fam[1].family_excl, 66);
	CHECK_EQ_U64(fam[2].rfer, 4003);
	CHECK_EQ_U64(fam[2].excl, 0);
	CHECK_EQ_U64(fam[2].snap_excl, 0);
	CHECK_EQ_U64(fam[2].family_excl, 0);
	CHECK_EQ_U64(fam[3].rfer, 16);
	CHECK_EQ_U64(fam[3].excl, 9);
	CHECK_EQ_U64(fam[3].snap_excl, 0);
	CHECK_EQ_U64(fam[3].family_excl, 9);
	/* the same sets through the one-set function */
	btrfs_acct_subvols(&acct, snaps256, 2, &c);
	CHECK_EQ_U64(fam[0].snap_excl, c.excl);
	/* a sum of the snapshots' own numbers would say 50: {257,258} is shared by both */
	CHECK_EQ_U64(fam[1].excl + fam[2].excl, 50);
	btrfs_acct_subvols(&acct, fam256, 3, &c);
	CHECK_EQ_U64(fam[0].family_excl, c.excl);
	btrfs_acct_subvols(&acct, fam257, 2, &c);
	CHECK_EQ_U64(fam[1].family_excl, c.excl);
	for (int i = 0; i < 4; i++) {
		btrfs_acct_subvols(&acct, &ids[i], 1, &c);
		CHECK_EQ_U64(fam[i].rfer, c.rfer);
		CHECK_EQ_U64(fam[i].excl, c.excl);
	}
	btrfs_rootsets_release(&acct.sets);
	free(acct.set_bytes);
}

int main(void)
{
	test_intern();
	test_union_memo();
	test_union_many();
	test_union_many_random(false);
	test_union_many_random(true);
	test_many_sets();
	test_distribution();
	test_families();
	return unit_finish();
}
