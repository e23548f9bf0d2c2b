/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The records of a subvolume diff (subvol-diff.h), plain types only: the
 * commands print them.
 */
#ifndef VOLCTL_KERNEL_SHARED_DIFF_TYPES_H
#define VOLCTL_KERNEL_SHARED_DIFF_TYPES_H

#include <stddef.h>
#include "format.h"
#include "items.h"		/* struct btrfs_time */

#define BTRFS_DIFF_CONTENT	(1U << 0)
#define BTRFS_DIFF_SIZE		(1U << 1)
#define BTRFS_DIFF_MODE		(1U << 2)
#define BTRFS_DIFF_OWNER	(1U << 3)
#define BTRFS_DIFF_XATTRS	(1U << 4)
#define BTRFS_DIFF_TIMES	(1U << 5)
#define BTRFS_DIFF_LINKS	(1U << 6)

/* One line of the diff */
struct btrfs_diff_change {
	char letter;			/* '-', '+', 'M', 'R' */
	const char *path;		/* "/a/b" (bytes as on disk); R: the old path */
	const char *new_path;		/* R: the new path, else NULL */
	u32 what;			/* M (and R with changes): BTRFS_DIFF_* */
	u32 mode;			/* the inode's mode (NEW's, OLD's for -) */
	struct btrfs_time ctime;	/* its change time (NEW's, OLD's for -) */
};

struct btrfs_diff {
	struct btrfs_diff_change *changes;	/* sorted: path bytes, then - R + M */
	size_t nr, cap;
	char *strings;			/* the paths */
	size_t str_len, str_cap;
	u64 blocks_read[2];		/* tree blocks the comparison read, OLD and NEW */
	u64 inodes;			/* inodes looked at */
	u64 data_read;			/* file bytes read to compare contents (through the
					 * chunk map, not checked against checksums) */
};

#endif /* VOLCTL_KERNEL_SHARED_DIFF_TYPES_H */
