/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Write side of the offline backend: the write operations built on
 * kernel-shared/transaction.h, on a filesystem opened for writing with the
 * image handle (common/image.h).
 */
#ifndef VOLCTL_COMMON_OFFLINE_WRITE_H
#define VOLCTL_COMMON_OFFLINE_WRITE_H

#include <stddef.h>
#include "kernel-shared/format.h"

struct btrfs_fs;
struct vc_inherit;

/**
 * vc_offline_subvol_create - `subvolume create [-p] [-i QGROUP] PATH` on an
 * open image, one transaction (with @parents, the missing directories too:
 * mode 0777 minus the umask, owned by the caller, like mkdir -p)
 * Return: 0 or a negative errno with @err set.
 */
int vc_offline_subvol_create(struct btrfs_fs *fs, const char *path, bool parents,
			     const struct vc_inherit *inh, char *err, size_t errlen);

/**
 * vc_offline_subvol_create_all - `subvolume create [-i QGROUP] PATH...` in
 * one transaction: all of @paths are created and committed together, or,
 * on any error (the first one is in @err), the image is left unchanged
 * Return: 0 or a negative errno.
 */
int vc_offline_subvol_create_all(struct btrfs_fs *fs, const char *const *paths, size_t nr,
				 const struct vc_inherit *inh, char *err, size_t errlen);

/* Lowercase words for an errno in offline write messages */
const char *vc_offline_errno_text(int err);

/* @err: the library's message of the failure, else "@what: <errno in words>" */
void vc_offline_error(struct btrfs_fs *fs, const char *what, int ret, char *err, size_t errlen);

#endif /* VOLCTL_COMMON_OFFLINE_WRITE_H */
