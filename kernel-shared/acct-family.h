/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Space by family: for every subvolume of a list, in one pass over the
 * engine's root sets, its own referenced and exclusive bytes, the exclusive
 * bytes of the set of its snapshots, and those of the set {subvolume} ∪ its
 * snapshots (subvolume space).  The snapshots of a subvolume are the
 * subvolumes whose origin (parent uuid) is it: the caller says which, so
 * the engine knows nothing of uuids.
 */
#ifndef VOLCTL_KERNEL_SHARED_ACCT_FAMILY_H
#define VOLCTL_KERNEL_SHARED_ACCT_FAMILY_H

#include <stddef.h>
#include "accounting.h"
#include "acct-types.h"

/**
 * btrfs_acct_families - the numbers of every subvolume of @ids
 * @ids:	tree ids (any order, no repeats); trees not listed (dead roots,
 *		for example) belong to no family
 * @origin:	for each, the index in @ids of the subvolume it is a snapshot
 *		of, or BTRFS_ACCT_NO_ORIGIN
 * @out:	array of @n, filled in @ids order
 *
 * Each is exact set exclusivity, as btrfs_acct_subvols() of the same set
 * gives: bytes whose root set lies wholly inside the set, never a sum of
 * the members' own numbers.  Return: 0 or -ENOMEM.
 */
int btrfs_acct_families(const struct btrfs_acct *acct, const u64 *ids, const size_t *origin,
			size_t n, struct btrfs_acct_family *out);

#endif
