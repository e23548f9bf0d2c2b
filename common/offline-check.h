/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `volctl check` below its printing: open the image once (common/image.h),
 * verify every tree block, recompute the qgroups with the accounting engine
 * and compare them with the recorded numbers, look for the root directory
 * of every live subvolume; or, with --repair-qgroups, open it for writing,
 * verify every tree block and write the engine's numbers.  Errors are
 * printed here (error()), the results by cmds/check.c.
 */
#ifndef VOLCTL_COMMON_OFFLINE_CHECK_H
#define VOLCTL_COMMON_OFFLINE_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include "kernel-shared/accounting.h"
#include "kernel-shared/qgroup-list.h"
#include "kernel-shared/qgroup-recompute.h"

#define VC_CHECK_MAX_ORPHANS	64

struct vc_check_args {
	const char *const *images;	/* every member given */
	int nr_images;
	int mirror;			/* superblock copy, -1: the best */
	bool qgroup_report;		/* only the qgroups (and the trees that takes) */
	bool progress;			/* progress of the engine on stderr */
	char *missing;			/* receives the devids of members not found, "" if none */
	size_t missing_size;
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

#endif /* VOLCTL_COMMON_OFFLINE_CHECK_H */
