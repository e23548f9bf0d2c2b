/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How a superblock copy compares with the primary of its device
 * (btrfs_super_read_copies(), super.h), as plain types, for the code that
 * reports the copies without reading them.
 */
#ifndef VOLCTL_KERNEL_SHARED_SUPER_TYPES_H
#define VOLCTL_KERNEL_SHARED_SUPER_TYPES_H

#include <stdbool.h>
#include "errmsg.h"
#include "format.h"

/* How one copy compares with the primary of its device */
enum btrfs_super_finding {
	BTRFS_SUPER_FINE,		/* valid, and the same as the primary (or the primary itself) */
	BTRFS_SUPER_ABSENT,		/* beyond the device, or beyond the filesystem's part of it */
	BTRFS_SUPER_PRIMARY_BAD,	/* copy 0 is not valid: the kernel refuses the device */
	BTRFS_SUPER_NEWER,		/* a valid mirror of a higher generation than the primary */
	BTRFS_SUPER_DIFFERS,		/* a valid mirror of the primary's generation, other bytes */
	BTRFS_SUPER_STALE,		/* a valid mirror of a lower generation */
	BTRFS_SUPER_MIRROR_BAD,		/* a mirror that is not valid, the primary is */
};

struct btrfs_super_copy {
	enum btrfs_super_finding finding;
	bool valid;
	u64 bytenr;			/* where it lives */
	u64 generation;			/* valid copies */
	char msg[BTRFS_ERRMSG_SIZE];	/* a copy that is not valid: why, naming the device */
};

/**
 * btrfs_super_finding_is_error - whether @f means the kernel mounts
 * another state than a copy holds, or cannot mount at all (a primary that
 * is bad or older than a mirror, a mirror that differs at the same
 * generation); a stale or bad mirror is not: the kernel rewrites every
 * copy at its next commit (scrub counts it as a super error).
 */
static inline bool btrfs_super_finding_is_error(enum btrfs_super_finding f)
{
	return f == BTRFS_SUPER_PRIMARY_BAD || f == BTRFS_SUPER_NEWER || f == BTRFS_SUPER_DIFFERS;
}

#endif
