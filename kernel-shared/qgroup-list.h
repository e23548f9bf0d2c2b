/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The qgroups of a filesystem, read through an item source.
 *
 * Owns the reading of the quota tree (tree 8): the QGROUP_STATUS item
 * (0, 240, 0), QGROUP_INFO (0, 242, qgroupid), QGROUP_LIMIT (0, 244, qgroupid)
 * and the QGROUP_RELATION pairs (parent, 246, child) / (child, 246, parent).
 * Never issues an ioctl, never prints; both backends feed it the same items.
 * The list and its records are in qgroup-types.h.
 */
#ifndef VOLCTL_KSHARED_QGROUP_LIST_H
#define VOLCTL_KSHARED_QGROUP_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include "format.h"
#include "items.h"
#include "itemsrc.h"
#include "qgroup-types.h"

struct btrfs_subvol_list;

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
 * The fault bits (BTRFS_QSTATUS_FAULT_*) are in qgroup-types.h.
 */

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
const char *btrfs_qgroupid_str(u64 qgroupid, char *buf);

#endif
