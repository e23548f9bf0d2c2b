/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Facts about the qgroups of a filesystem, the sibling of facts.h: which
 * qgroups there are, which groups a qgroup counts in, what a qgroup stands
 * for, and which limits apply to writes into it.  Both backends answer: the
 * list is read through vc_fs_item_source() (online TREE_SEARCH_V2, offline
 * the image) and parsed by kernel-shared/qgroup-list.c, and the kernel's
 * reservations come from the backend where it has them (online).  Quiet:
 * 0 or a negative errno.
 *
 * Commands see the records of a list (kernel-shared/qgroup-types.h), not
 * kernel-shared/qgroup-list.h (check.c still does, through the re-export
 * debt of common/tool/offline-check.h): the pure helpers they need on a
 * loaded list and on an id are here too (vc_qgroup_find(),
 * vc_qgroups_release(), vc_qgroupid_str()), and tests/check-api.sh refuses
 * qgroup-list.c calls in cmds/ but btrfs_qgroupid_str() for check.c.
 */
#ifndef VOLCTL_COMMON_FACTS_QGROUP_H
#define VOLCTL_COMMON_FACTS_QGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "kernel-shared/format.h"
#include "kernel-shared/qgroup-types.h"

struct vc_fs;
struct btrfs_subvol_list;

/*
 * The qgroups of @fs into @list (release with vc_qgroups_release()).
 * Return: 0; -ENOENT when there is no quota tree (quotas are disabled).
 */
int vc_facts_qgroups(struct vc_fs *fs, struct btrfs_qgroup_list *list);

/* Free what @list holds and zero it; a zeroed list is safe */
void vc_qgroups_release(struct btrfs_qgroup_list *list);

/* Qgroup @qgroupid of @list; NULL if absent */
const struct btrfs_qgroup *vc_qgroup_find(const struct btrfs_qgroup_list *list, u64 qgroupid);

/* "L/ID" into @buf of at least BTRFS_QGROUPID_BUFSIZE bytes; returns @buf */
const char *vc_qgroupid_str(u64 qgroupid, char *buf);

/*
 * The groups of @list that qgroup @qgroupid counts in: itself and, with
 * VC_QGROUPS_ABOVE, every group above it, transitively (safe on cycles), in
 * qgroupid order.  *@out: an array of *@nr pointers into @list (free() it;
 * valid while @list is); none when @qgroupid is not in @list.  0 or -ENOMEM.
 */
#define VC_QGROUPS_ABOVE	0x1
int vc_fact_qgroup_chain(const struct btrfs_qgroup_list *list, u64 qgroupid, unsigned int flags,
			 const struct btrfs_qgroup ***out, size_t *nr);

/*
 * What qgroup @qg of @list stands for (a group, the top level, a live
 * subvolume, one under deletion, a stale one, a simple-quota holder), judged
 * against the subvolumes @subvols (vc_facts_subvols())
 */
enum btrfs_qgroup_kind vc_fact_qgroup_kind(const struct btrfs_qgroup_list *list,
					   const struct btrfs_qgroup *qg,
					   const struct btrfs_subvol_list *subvols);

/* One limit that applies to writes into a qgroup */
struct vc_qgroup_limit {
	const struct btrfs_qgroup *qg;	/* the group that sets it (in the list asked) */
	bool exclusive;			/* max_excl, else max_rfer */
	u64 limit;
	u64 used;			/* excl or rfer of that group, as the list holds it */
	u64 reserved;			/* the kernel's reservations for the group (online) */
	bool has_reserved;		/* they were read */
	u64 left;			/* limit - (used + reserved), 0 below */
};

struct vc_qgroup_limits {
	size_t nr;
	struct vc_qgroup_limit *limits;	/* free() it */
	ssize_t binding;		/* the one that leaves the least room (the first
					 * of equals), -1: no limit applies */
};

/*
 * Every referenced and exclusive limit of qgroup @qgroupid and of the
 * groups above it in @list (with the numbers @list holds, recorded or
 * computed), in qgroupid order, referenced before exclusive.  New data
 * written into the group adds to both numbers of every one of them.  Where
 * the backend of @fs reads the kernel's reservations (online; @fs NULL:
 * none), they count as used, as the kernel checks a write against used +
 * reserved.  0 or -ENOMEM.
 */
int vc_fact_qgroup_limits(struct vc_fs *fs, const struct btrfs_qgroup_list *list, u64 qgroupid,
			  struct vc_qgroup_limits *out);

/*
 * The binding limit of vc_fact_qgroup_limits() alone, into *@b (its qg
 * then points into @list).  Return: 1 with *@b, 0 when no limit applies,
 * or a negative errno.
 */
int vc_fact_qgroup_binding(struct vc_fs *fs, const struct btrfs_qgroup_list *list, u64 qgroupid,
			   struct vc_qgroup_limit *b);

#endif
