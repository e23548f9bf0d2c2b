/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Offline subvolume writes: create, snapshot, delete, clean; each one
 * transaction (common/image/offline-run.h) on an image opened with
 * the image handle (common/image/image.h).
 */
#ifndef VOLCTL_COMMON_OFFLINE_WRITE_SUBVOL_H
#define VOLCTL_COMMON_OFFLINE_WRITE_SUBVOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/**
 * vc_offline_mkdir_p - make the missing directories of @path (all of it),
 * like mkdir -p, in one transaction: mode @mode, owner @uid:@gid
 * Return: 0 or a negative errno with @err set.
 */
int vc_offline_mkdir_p(struct btrfs_fs *fs, const char *path, uint32_t mode, uint32_t uid,
		       uint32_t gid, char *err, size_t errlen);

/**
 * vc_offline_snapshot - `subvolume snapshot [-r] [-i QGROUP] SRC DST` on
 * an open image, one transaction; @dst is the full path of the snapshot
 * Return: 0 or a negative errno with @err set.
 */
int vc_offline_snapshot(struct btrfs_fs *fs, const char *src, const char *dst, bool readonly,
			const struct vc_inherit *inh, char *err, size_t errlen);

/**
 * vc_offline_subvol_delete - `subvolume delete` of @path (@subvolid 0) or
 * of subvolume @subvolid, one transaction: the unlink the kernel's ioctl
 * does and the drop its cleaner does later (the tree, its extents, its
 * root item and qgroup 0/id)
 * Return: 0 or a negative errno with @err set.
 */
int vc_offline_subvol_delete(struct btrfs_fs *fs, const char *path, uint64_t subvolid,
			     char *err, size_t errlen);

/**
 * vc_offline_subvol_delete_all - delete subvolumes @ids in one transaction
 * (each as vc_offline_subvol_delete() does): one deleted already (no root
 * item, or refs 0) is done, @st[i].gone, and left out; the others are
 * committed together or, on any error, none and the image is unchanged;
 * then every @st[i] has the error, the one that failed its own message, the
 * others that they were not deleted because of it; @err the first
 * Return: 0 or a negative errno.
 */
struct vc_delete_status;
int vc_offline_subvol_delete_all(struct btrfs_fs *fs, const uint64_t *ids, size_t nr,
				 struct vc_delete_status *st, char *err, size_t errlen);

/**
 * vc_offline_subvol_clean - `subvolume sync` for one id: drop the tree of
 * deleted subvolume @subvolid now (finishing a drop the kernel left half
 * done), one transaction; nothing to do when it is gone already
 * Return: 0, -ENOENT (never existed), -EINVAL (not deleted), or <0; @err set.
 */
int vc_offline_subvol_clean(struct btrfs_fs *fs, uint64_t subvolid, char *err, size_t errlen);

#endif /* VOLCTL_COMMON_OFFLINE_WRITE_SUBVOL_H */
