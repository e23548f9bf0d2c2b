/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Offline subvolume writes beyond `create`: snapshot.
 */
#ifndef VOLCTL_COMMON_OFFLINE_WRITE_SUBVOL_H
#define VOLCTL_COMMON_OFFLINE_WRITE_SUBVOL_H

#include <stdbool.h>
#include <stddef.h>

struct btrfs_fs;
struct vc_inherit;

/**
 * vc_offline_snapshot - `subvolume snapshot [-r] [-i QGROUP] SRC DST` on
 * an open image, one transaction; @dst is the full path of the snapshot
 * Return: 0 or a negative errno with @err set.
 */
int vc_offline_snapshot(struct btrfs_fs *fs, const char *src, const char *dst, bool readonly,
			const struct vc_inherit *inh, char *err, size_t errlen);

#endif /* VOLCTL_COMMON_OFFLINE_WRITE_SUBVOL_H */
