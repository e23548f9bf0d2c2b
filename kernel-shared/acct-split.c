// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tree-block bytes of a set of subvolumes: the engine keeps the root set of
 * every distinct fs tree block (acct-internal.h), so the metadata part of
 * btrfs_acct_subvols() is a pass over those blocks.
 */
#include "acct-internal.h"
#include "acct-split.h"
#include "fs.h"

static bool id_member(const u64 *ids, size_t n, u64 id)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

void btrfs_acct_subvols_meta(const struct btrfs_acct *acct, const u64 *ids, size_t n,
			     struct btrfs_acct_counts *meta)
{
	meta->rfer = 0;
	meta->excl = 0;
	if (acct->opts.simple)
		return;
	for (u32 i = 0; i < acct->table.nr; i++) {
		const u64 *roots;
		u32 nr, in = 0;

		roots = btrfs_rootsets_members(&acct->sets, acct->table.blocks[i].set, &nr);
		for (u32 j = 0; j < nr; j++)
			in += id_member(ids, n, roots[j]);
		if (in)
			meta->rfer += acct->fs->nodesize;
		if (in && in == nr)
			meta->excl += acct->fs->nodesize;
	}
}
