/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The plain result types of the accounting engine (accounting.h,
 * acct-family.h): what a set of subvolumes references and holds alone, and
 * a subvolume's space with its snapshots.  Types only, so that the code
 * above the engine can hold its answers without seeing the engine.
 */
#ifndef VOLCTL_KERNEL_SHARED_ACCT_TYPES_H
#define VOLCTL_KERNEL_SHARED_ACCT_TYPES_H

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

#endif
