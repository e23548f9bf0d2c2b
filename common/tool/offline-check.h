/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `volctl check` below its printing: read every superblock copy of every
 * member and compare it with the primary, open the image once
 * (common/image/image.h), verify every tree block, recompute the qgroups with the accounting engine
 * and compare them with the recorded numbers, look for the root directory
 * of every live subvolume; or, with --repair-qgroups, open it for writing,
 * verify every tree block and write the engine's numbers.  Errors are
 * printed here (error()), the results by cmds/check.c.
 */
#ifndef VOLCTL_COMMON_OFFLINE_CHECK_H
#define VOLCTL_COMMON_OFFLINE_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include "kernel-shared/acct-types.h"
#include "kernel-shared/fst-types.h"
#include "kernel-shared/qgroup-types.h"
#include "kernel-shared/super-types.h"

struct btrfs_acct;

#define VC_CHECK_MAX_ORPHANS	64
/* Free space tree findings kept for the report (all are counted) */
#define VC_CHECK_MAX_FST	1000

/* The superblock copies of one member, each compared with its primary */
struct vc_check_super {
	char device[256];
	struct btrfs_super_copy copies[BTRFS_SUPER_MIRROR_MAX];
};

struct vc_check_args {
	const char *const *images;	/* every member given */
	int nr_images;
	int mirror;			/* superblock copy, -1: the best */
	long long wait_ms;		/* --repair-qgroups: wait for a held image (--wait) */
	bool qgroup_report;		/* only the qgroups (and the trees that takes) */
	bool progress;			/* progress of the engine on stderr */
};

struct vc_check_result {
	bool quotas;
	bool simple;
	bool stale_status;		/* INCONSISTENT or RESCAN set */
	/* BTRFS_QSTATUS_FAULT_* of the STATUS item: the kernel may not mount it */
	unsigned int status_faults;
	struct btrfs_qstatus_super sb;	/* what the STATUS item was judged against */
	struct btrfs_qgroup_list list;
	struct btrfs_acct_counts *counts;	/* computed, one per list.groups[] */
	struct btrfs_acct_stats stats;
	size_t nr_roots;
	const struct btrfs_acct_root *roots;
	u64 walked_blocks;		/* full tree verification */
	size_t differ;
	struct btrfs_acct_orphan_rel orphans[VC_CHECK_MAX_ORPHANS];
	size_t nr_orphans;
	struct btrfs_acct *acct;
	/* every member's copies (read before the trees; also when the open fails) */
	struct vc_check_super *supers;
	size_t nr_supers;
	u64 *missing;			/* devids of the members not found (degraded) */
	size_t nr_missing;
	size_t super_copies;		/* copies that belong to their device */
	size_t super_errors;		/* bad or older primary, a mirror differing at its generation */
	size_t super_warnings;		/* a stale or bad mirror */
	bool fst_checked;		/* false with --qgroup-report */
	struct btrfs_fst_stats fst;	/* fst.problems: every finding */
	struct btrfs_fst_problem *fst_problems;	/* the first VC_CHECK_MAX_FST */
	size_t nr_fst_problems;
};

/**
 * vc_check_run - the read-only check of @a->images into @res
 * Return: 0, or a negative errno after printing the error; release @res
 * with vc_check_release() either way.
 */
int vc_check_run(const struct vc_check_args *a, struct vc_check_result *res);

void vc_check_release(struct vc_check_result *res);

/**
 * vc_check_repair - check --repair-qgroups: every tree verified, then the
 * engine's numbers written in one transaction (nothing when @written is
 * false: all consistent)
 * Return: 0, or a negative errno after printing the error; free r->fixes.
 */
int vc_check_repair(const struct vc_check_args *a, struct btrfs_qgroup_repair_result *r,
		    bool *written);

/**
 * vc_check_repair_fst - check --repair-free-space: every tree verified,
 * then the free space tree items of block groups that do not exist deleted
 * in one transaction (refused, nothing written, when the tree has any
 * other finding); @dropped items, @written false when there were none
 * Return: 0, or a negative errno after printing the error.
 */
int vc_check_repair_fst(const struct vc_check_args *a, u64 *dropped, bool *written);

#endif /* VOLCTL_COMMON_OFFLINE_CHECK_H */
