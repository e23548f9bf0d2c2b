/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The qgroups of a filesystem, read through an item source.
 *
 * Owns the reading of the quota tree (tree 8): the QGROUP_STATUS item
 * (0, 240, 0), QGROUP_INFO (0, 242, qgroupid), QGROUP_LIMIT (0, 244, qgroupid)
 * and the QGROUP_RELATION pairs (parent, 246, child) / (child, 246, parent).
 * Never issues an ioctl, never prints; both backends feed it the same items.
 *
 * Invariants of a loaded list:
 *  - groups[] is sorted by qgroupid and holds every qgroup with an INFO or a
 *    LIMIT item (a group with only one of them gets zeros for the other);
 *  - parents[] and children[] of each group are sorted and free of
 *    duplicates; a relation naming a qgroup without items is dropped;
 *  - a relation is only taken from the (parent, 246, child) item, parent >
 *    child, as the kernel writes both directions.
 */
#ifndef VOLCTL_KSHARED_QGROUP_LIST_H
#define VOLCTL_KSHARED_QGROUP_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include "format.h"
#include "items.h"
#include "itemsrc.h"

struct btrfs_subvol_list;

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

/**
 * btrfs_qgroup_list_load - read the whole quota tree
 * @src:  item source of the filesystem
 * @list: filled on success; release with btrfs_qgroup_list_release()
 *
 * Return: 0; -ENOENT when there is no quota tree (quotas are disabled);
 * -EUCLEAN when an item is too short; -ENOMEM; or the source's error.
 */
int btrfs_qgroup_list_load(const struct btrfs_item_source *src, struct btrfs_qgroup_list *list);
void btrfs_qgroup_list_release(struct btrfs_qgroup_list *list);

/* Binary search by qgroupid; NULL if absent. */
struct btrfs_qgroup *btrfs_qgroup_list_find(const struct btrfs_qgroup_list *list, u64 qgroupid);

/*
 * Mark (in @mark, indexed like list->groups) @qgroupid and, with @ancestors,
 * every group above it, transitively.  Safe on cycles.  Unknown ids mark
 * nothing.
 */
void btrfs_qgroup_list_mark(const struct btrfs_qgroup_list *list, u64 qgroupid, bool ancestors,
			    bool *mark);

/* True when quotas are in simple (squota) mode. */
static inline bool btrfs_qgroup_list_is_simple(const struct btrfs_qgroup_list *list)
{
	return list->has_status && (list->status.flags & BTRFS_QGROUP_STATUS_FLAG_SIMPLE_MODE);
}

/*
 * Classify @qg against the subvolumes @subvols (kernel-shared/subvol-list.h):
 * a level-0 group whose subvolume has no ROOT_ITEM is stale (a simple-quota
 * space holder when it still carries a charge), one whose subvolume is
 * deleted or has no path is under deletion.
 */
enum btrfs_qgroup_kind btrfs_qgroup_kind(const struct btrfs_qgroup_list *list,
					 const struct btrfs_qgroup *qg,
					 const struct btrfs_subvol_list *subvols);

/*
 * What is wrong with a QGROUP_STATUS item for the kernel (linux 6.18
 * btrfs_read_qgroup_config(), at every mount): it takes the flags word
 * unmasked into fs_info->qgroup_flags, whose bits 62 and 63 are its runtime
 * NO_ACCOUNTING and CANCEL_RESCAN flags; SIMPLE_MODE makes it read
 * enable_gen, asserting the incompat bit SIMPLE_QUOTA and a 40-byte item;
 * a version other than 1 turns quotas off ("old qgroup version").  Such an
 * image has hung the 6.18 mount in open_ctree for good (issue 19), so
 * check reports each fault and every offline write refuses the image.
 *
 * Not a fault: SIMPLE_QUOTA set with a full-mode (or no) quota tree.  The
 * kernel's quota disable keeps the incompat bit and its quota enable does
 * not look at it, so "enable -s, disable, enable" leaves exactly that.
 */
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

/**
 * btrfs_qgroup_status_faults - the BTRFS_QSTATUS_FAULT_* bits of @st
 * @sb: the superblock, or NULL to judge the item alone (the faults that
 *      need the features or the generation are then not looked for)
 * Return: 0 when the kernel takes the item as it is.
 */
unsigned int btrfs_qgroup_status_faults(const struct btrfs_qgroup_status_rec *st,
					const struct btrfs_qstatus_super *sb);

/**
 * btrfs_qgroup_status_fault_str - one fault of @st (a single bit of
 * btrfs_qgroup_status_faults()) in words, lowercase, into @buf
 * ("flags 0x10009 hold unknown bits 0x10000"); returns @buf
 */
const char *btrfs_qgroup_status_fault_str(unsigned int fault,
					  const struct btrfs_qgroup_status_rec *st,
					  const struct btrfs_qstatus_super *sb, char *buf,
					  size_t size);

/** btrfs_qgroup_status_fault_name - snake_case name of one fault, for JSON */
const char *btrfs_qgroup_status_fault_name(unsigned int fault);

/**
 * btrfs_qgroup_status_reason - every fault of @faults in words, joined by
 * "; ", into @buf; returns @buf ("" for none)
 */
const char *btrfs_qgroup_status_reason(unsigned int faults,
				       const struct btrfs_qgroup_status_rec *st,
				       const struct btrfs_qstatus_super *sb, char *buf,
				       size_t size);

/* "L/ID" into @buf of at least BTRFS_QGROUPID_BUFSIZE bytes; returns @buf. */
#define BTRFS_QGROUPID_BUFSIZE 32
const char *btrfs_qgroupid_str(u64 qgroupid, char *buf);

#endif
