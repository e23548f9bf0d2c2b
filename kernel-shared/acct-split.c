// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tree-block bytes of a set of subvolumes: the engine keeps the root set of
 * every distinct fs tree block (acct-internal.h), so the metadata part of
 * btrfs_acct_subvols() is a pass over those blocks.
 */
#include "acct-internal.h"
#include "acct-split.h"
#include "fs.h"

void btrfs_acct_subvols_meta(const struct btrfs_acct *acct, const u64 *ids, size_t n,
			     struct btrfs_acct_counts *meta)
{
	meta->rfer = 0;
	meta->excl = 0;
	if (acct->opts.simple)
		return;
	for (u32 i = 0; i < acct->table.nr; i++) {
		u32 set = acct->table.blocks[i].set;
		u32 nr = btrfs_rootsets_len(&acct->sets, set);
		u32 in = btrfs_rootsets_count_in(&acct->sets, set, ids, n);
		if (in)
			meta->rfer += acct->fs->nodesize;
		if (in && in == nr)
			meta->excl += acct->fs->nodesize;
	}
}
