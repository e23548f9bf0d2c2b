/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Running the accounting engine through the backend, for the commands that
 * want computed numbers (qgroup show --compute, qgroup headroom --compute,
 * subvolume delete --dry-run), online and offline alike.
 *
 * Online the engine reads a snapshot of a live filesystem (see
 * common/backend/online-acct.c): when a block fails verification or cannot be read,
 * the filesystem is committed and read once more; a second failure is
 * reported as such ("the filesystem changed while it was read").
 */
#ifndef VOLCTL_COMMON_ACCT_RUN_H
#define VOLCTL_COMMON_ACCT_RUN_H

#include <stdbool.h>
#include "common/backend/backend.h"
#include "kernel-shared/acct-types.h"
#include "kernel-shared/subvol-list.h"

struct btrfs_acct;
struct btrfs_qgroup_list;

struct vc_acct_result {
	struct btrfs_acct *acct;
	struct vc_acct_src src;
	bool live;			/* numbers of a snapshot of a mounted filesystem */
	bool retried;			/* the first read failed verification */
	char err[600];			/* why it failed, for error() */
	char cause[512];		/* the same without "accounting failed: " */
};

/**
 * vc_acct_compute - run the engine on the filesystem @fs
 * @simple, @enable_gen: simple-quota numbers (from the quota status)
 *
 * Return: 0 with res->acct, or a negative errno with res->err set.
 * Release with vc_acct_release() either way.
 */
int vc_acct_compute(const struct vc_backend_ops *ops, struct vc_fs *fs, bool simple,
		    u64 enable_gen, struct vc_acct_result *res);
/**
 * vc_acct_metadata_profile - profile and copies of the metadata chunks
 * (the first metadata chunk found; "unknown" and 1 if none)
 */
int vc_acct_metadata_profile(const struct vc_acct_result *res, const char **profile);
/* The same for the first chunk of @type (BTRFS_BLOCK_GROUP_DATA, ...) */
int vc_acct_profile(const struct vc_acct_result *res, u64 type, const char **profile);

/**
 * vc_acct_fill_qgroups - replace the recorded numbers of every qgroup of
 * @list by the computed ones (referenced, exclusive; compressed sizes too,
 * which the engine does not tell apart)
 */
int vc_acct_fill_qgroups(const struct vc_acct_result *res, struct btrfs_qgroup_list *list);

/**
 * vc_acct_subvol_qgroups - a qgroup list as quotas would have it, built from
 * the subvolumes: one level-0 group per live subvolume (0/5 included), no
 * limits, no relations, with computed numbers.  For filesystems without
 * quotas.  Release with btrfs_qgroup_list_release().
 */
int vc_acct_subvol_qgroups(const struct vc_acct_result *res,
			   const struct btrfs_subvol_list *subvols, struct btrfs_qgroup_list *list);

/* What deleting a set of subvolumes frees (subvolume delete --dry-run) */
struct vc_acct_delete {
	struct btrfs_acct_counts all;	/* the set as one: excl is what it frees */
	u64 meta;			/* tree blocks, counted once */
	u64 data;
	int copies;			/* of the metadata profile */
	const char *profile;
	int data_copies;
	const char *data_profile;
	u64 raw;			/* data_copies * data + copies * meta */
};

/**
 * vc_acct_delete_split - the numbers of deleting subvolumes @ids together:
 * each one's own in @alone[i], the set's in @set, its exclusive bytes split
 * into data and tree blocks and weighed by their profiles' copies
 */
void vc_acct_delete_split(const struct vc_acct_result *res, const u64 *ids, size_t n,
			  struct btrfs_acct_counts *alone, struct vc_acct_delete *set);

/**
 * vc_acct_families - every subvolume's space (subvolume space), in one pass:
 * btrfs_acct_families() on the computed result (@origin: each one's index
 * of the subvolume it is a snapshot of, or BTRFS_ACCT_NO_ORIGIN)
 * Return: 0 or -ENOMEM.
 */
int vc_acct_families(const struct vc_acct_result *res, const u64 *ids, const size_t *origin,
		     size_t n, struct btrfs_acct_family *out);

void vc_acct_release(const struct vc_backend_ops *ops, struct vc_fs *fs,
		     struct vc_acct_result *res);

#endif
