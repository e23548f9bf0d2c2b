/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The records of a filesystem's qgroups as qgroup-list.h loads them: plain
 * types only, so that the code above the library (the qgroup printers, the
 * commands) can hold a loaded list without seeing its loader.
 *
 * Invariants of a loaded list:
 *  - groups[] is sorted by qgroupid and holds every qgroup with an INFO or a
 *    LIMIT item (a group with only one of them gets zeros for the other);
 *  - parents[] and children[] of each group are sorted and free of
 *    duplicates; a relation naming a qgroup without items is dropped;
 *  - a relation is only taken from the (parent, 246, child) item, parent >
 *    child, as the kernel writes both directions.
 */
#ifndef VOLCTL_KSHARED_QGROUP_TYPES_H
#define VOLCTL_KSHARED_QGROUP_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include "format.h"
#include "items.h"

struct btrfs_qgroup {
	u64 qgroupid;
	struct btrfs_qgroup_info_rec info;	/* zeros when the INFO item is missing */
	struct btrfs_qgroup_limit_rec limit;	/* zeros when the LIMIT item is missing */
	bool has_info;
	bool has_limit;
	size_t nr_parents;
	u64 *parents;		/* higher-level groups this one is a member of */
	size_t nr_children;
	u64 *children;		/* members of this group */
};

struct btrfs_qgroup_list {
	bool has_status;
	struct btrfs_qgroup_status_rec status;
	size_t nr;
	struct btrfs_qgroup *groups;	/* sorted by qgroupid */
};

/* What a qgroup stands for, as qgroup show labels it. */
enum btrfs_qgroup_kind {
	BTRFS_QGROUP_KIND_GROUP,		/* level > 0 */
	BTRFS_QGROUP_KIND_TOPLEVEL,		/* 0/5 */
	BTRFS_QGROUP_KIND_SUBVOL,		/* level 0, live subvolume */
	BTRFS_QGROUP_KIND_UNDER_DELETION,	/* level 0, ROOT_ITEM of a deleted subvolume */
	BTRFS_QGROUP_KIND_STALE,		/* level 0, no ROOT_ITEM left */
	BTRFS_QGROUP_KIND_SQUOTA_HOLDER,	/* stale, but keeps a simple-quota charge */
};

/* The faults of a QGROUP_STATUS item (btrfs_qgroup_status_faults(), qgroup-list.h) */
#define BTRFS_QSTATUS_FAULT_VERSION		(1U << 0)	/* version != 1 */
#define BTRFS_QSTATUS_FAULT_UNKNOWN_FLAGS	(1U << 1)	/* bits outside the mask */
#define BTRFS_QSTATUS_FAULT_SIMPLE_NO_FEATURE	(1U << 2)	/* SIMPLE_MODE, no SIMPLE_QUOTA */
#define BTRFS_QSTATUS_FAULT_NO_ENABLE_GEN	(1U << 3)	/* SIMPLE_MODE, item < 40 bytes */
#define BTRFS_QSTATUS_FAULT_ENABLE_GEN		(1U << 4)	/* enable_gen > super generation + 1 */
#define BTRFS_QSTATUS_FAULT_ALL			((1U << 5) - 1)

/* The superblock a STATUS item is judged against; NULL: unknown (online) */
struct btrfs_qstatus_super {
	u64 incompat;		/* incompat feature flags */
	u64 generation;		/* the committed generation */
};

/* "L/ID" of btrfs_qgroupid_str() (qgroup-list.h) fits this many bytes */
#define BTRFS_QGROUPID_BUFSIZE 32

/* What btrfs_qgroup_repair() (qgroup-recompute.h) changed */
/* One qgroup whose recorded numbers were not the computed ones */
struct btrfs_qgroup_fix {
	u64 qgroupid;
	u64 old_rfer, old_excl;		/* recorded */
	u64 rfer, excl;			/* written */
};

/* What btrfs_qgroup_repair() found and wrote */
struct btrfs_qgroup_repair_result {
	struct btrfs_qgroup_fix *fixes;	/* groups whose rfer or excl changed; free() it */
	size_t nr_fixes;
	size_t nr_groups;		/* INFO items written */
	u64 old_flags;			/* STATUS flags found */
};

#endif
