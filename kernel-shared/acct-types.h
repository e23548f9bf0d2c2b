/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The plain result types of the accounting engine (accounting.h,
 * acct-family.h): what a set of subvolumes references and holds alone, a
 * subvolume's space with its snapshots, the fs trees found, the run's
 * statistics and the relation items naming a qgroup that is gone.  Types only, so that the code
 * above the engine can hold its answers without seeing the engine.
 */
#ifndef VOLCTL_KERNEL_SHARED_ACCT_TYPES_H
#define VOLCTL_KERNEL_SHARED_ACCT_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include "format.h"

/* The numbers of a qgroup or of a set of subvolumes */
struct btrfs_acct_counts {
	u64 rfer;
	u64 excl;
};

/* No origin: the subvolume is not a snapshot of one in the list (acct-family.h) */
#define BTRFS_ACCT_NO_ORIGIN	((size_t)-1)

/* A subvolume's space with its snapshots (btrfs_acct_families()) */
struct btrfs_acct_family {
	u64 rfer;		/* reachable from the subvolume */
	u64 excl;		/* from it alone */
	u64 snap_excl;		/* from its snapshots only: what deleting all of them frees */
	u64 family_excl;	/* from it and its snapshots only, together */
};

/* One fs tree the engine found in the root tree */
struct btrfs_acct_root {
	u64 id;
	u64 bytenr;
	u64 generation;
	u8 level;
	bool dead;			/* refs 0 or SUBVOL_DEAD: unlinked, not yet dropped */
	bool partly_dropped;		/* drop_progress set: the cleaner stopped half way */
	struct btrfs_key drop_progress;
	u8 drop_level;
};

/* What a run of the engine met (btrfs_acct_get_stats()) */
struct btrfs_acct_stats {
	u64 roots;			/* fs trees */
	u64 dead_roots;
	u64 partly_dropped;
	u64 tree_blocks;		/* distinct fs tree blocks */
	u64 leaves_read;
	u64 data_extents;
	u64 data_refs;			/* back refs resolved */
	u64 searches;			/* EXTENT_DATA_REF searches that missed the path cache */
	u64 unresolved_refs;		/* refs naming a tree that is gone, a leaf no fs tree reaches, or
					   a tree and inode with no matching file extent item: the
					   extent tree disagrees with the fs trees */
	u64 reloc_refs;			/* SHARED_DATA_REFs naming a leaf of a relocation tree (an
					   interrupted balance): no subvolume, no qgroup */
	u64 root_sets;			/* distinct root sets */
	u64 unions, union_memo_hits;
	u64 data_bytes, meta_bytes;	/* counted toward some fs tree */
};

/* A QGROUP_RELATION item one of whose ends has no INFO/LIMIT items */
struct btrfs_acct_orphan_rel {
	u64 child;
	u64 parent;
};

#endif
