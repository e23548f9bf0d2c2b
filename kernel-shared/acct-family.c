// SPDX-License-Identifier: GPL-2.0-only
/*
 * The numbers of subvolume space for every subvolume at once.
 *
 * Asking btrfs_acct_subvols() three sets per subvolume costs a pass over
 * every root set per question; here each root set is looked at once.  Its
 * members are mapped to their index in the caller's list through the
 * engine's dense tree numbers, then:
 *  - every member is referenced by it, a set of one member is exclusive;
 *  - it lies in the snapshots of O when every member's origin is O;
 *  - it lies in the family {F} ∪ snapshots of F when every member is F or
 *    has origin F; F can only be the first member or that member's origin,
 *    so two candidates are tried (both hold when the set is one snapshot).
 * A member the caller did not list belongs to no family: such a set is
 * referenced by the listed members and exclusive to nobody.
 */
#include <errno.h>
#include <stdlib.h>
#include "acct-family.h"
#include "acct-internal.h"

/* Whether every member (indices in @idx) is @f or a snapshot of @f */
static bool all_in_family(const size_t *idx, u32 nr, const size_t *origin, size_t f)
{
	for (u32 j = 0; j < nr; j++)
		if (idx[j] != f && (idx[j] == BTRFS_ACCT_NO_ORIGIN || origin[idx[j]] != f))
			return false;
	return true;
}

/* Whether every member is a snapshot of @o */
static bool all_snapshots_of(const size_t *idx, u32 nr, const size_t *origin, size_t o)
{
	for (u32 j = 0; j < nr; j++)
		if (idx[j] == BTRFS_ACCT_NO_ORIGIN || origin[idx[j]] != o)
			return false;
	return true;
}

static void add_set(const size_t *idx, u32 nr, const size_t *origin, u64 bytes,
		    struct btrfs_acct_family *out)
{
	size_t first = idx[0], o;

	for (u32 j = 0; j < nr; j++)
		if (idx[j] != BTRFS_ACCT_NO_ORIGIN)
			out[idx[j]].rfer += bytes;
	if (first == BTRFS_ACCT_NO_ORIGIN)
		return;
	if (nr == 1)
		out[first].excl += bytes;
	o = origin[first];
	if (o != BTRFS_ACCT_NO_ORIGIN && all_snapshots_of(idx, nr, origin, o))
		out[o].snap_excl += bytes;
	if (all_in_family(idx, nr, origin, first))
		out[first].family_excl += bytes;
	if (o != BTRFS_ACCT_NO_ORIGIN && all_in_family(idx, nr, origin, o))
		out[o].family_excl += bytes;
}

int btrfs_acct_families(const struct btrfs_acct *acct, const u64 *ids, const size_t *origin,
			size_t n, struct btrfs_acct_family *out)
{
	const struct btrfs_rootsets *rs = &acct->sets;
	size_t slots = rs->nr_dense ? rs->nr_dense : 1;
	size_t *of_dense = malloc(slots * sizeof(*of_dense));
	size_t *idx = malloc(slots * sizeof(*idx));
	u32 *dense = malloc(slots * sizeof(*dense));
	int ret = 0;

	if (!of_dense || !idx || !dense) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t d = 0; d < slots; d++)
		of_dense[d] = BTRFS_ACCT_NO_ORIGIN;
	for (size_t i = 0; i < n; i++) {
		uint32_t d;

		out[i] = (struct btrfs_acct_family){ 0 };
		if (btrfs_u64map_find(&rs->dense_map, ids[i], &d) && d < rs->nr_dense)
			of_dense[d] = i;
	}
	for (u32 set = 1; set < rs->nr && set < acct->set_bytes_alloc; set++) {
		u32 nr;

		if (!acct->set_bytes[set])
			continue;
		nr = btrfs_rootsets_copy(rs, set, NULL, dense);
		if (!nr)
			continue;
		for (u32 j = 0; j < nr; j++)
			idx[j] = of_dense[dense[j]];
		add_set(idx, nr, origin, acct->set_bytes[set], out);
	}
out:
	free(of_dense);
	free(idx);
	free(dense);
	return ret;
}
