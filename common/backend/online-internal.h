/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internals of the online backend, shared by its files:
 *   common/backend/online.c         open/close, TREE_SEARCH_V2, path info, subvolume ops
 *   common/backend/online-delete.c  why a subvolume delete was refused
 *   common/backend/online-qgroup.c  quota and qgroup ops
 *   common/backend/online-acct.c    the devices read with the offline reader
 *   common/backend/online-diff.c    subvolume diff and send-size on the committed trees
 * and the ops table at the end of common/backend/online.c.
 */
#ifndef VOLCTL_COMMON_ONLINE_INTERNAL_H
#define VOLCTL_COMMON_ONLINE_INTERNAL_H

#include "common/backend/backend.h"

struct vc_fs {
	struct vc_fs_base base;
	int fd;			/* O_RDONLY|O_DIRECTORY fd on a directory of the filesystem */
	char *path;		/* the path it was opened with, for messages */
	void *search_buf;	/* TREE_SEARCH_V2 arguments + result buffer, reused */
	size_t search_buf_size;
	bool mnt_probed;	/* mnt_target and mnt_root looked up */
	char *mnt_target;	/* the mount point holding path, NULL if unknown */
	char *mnt_root;		/* what of the filesystem is mounted there: "/", "/a" */
};

/*
 * common/backend/online-acct.c: commit the filesystem and open its devices
 * read-only with the offline reader into @src (close with
 * online_acct_close()); when a device cannot be read fs->err says "@what
 * read the filesystem's devices: ..." (@what NULL: only the device's
 * message)
 */
int online_devices_open(struct vc_fs *fs, const char *what, struct vc_acct_src *src);

/* common/backend/online-diff.c: the subvol_diff op */
int online_subvol_diff(struct vc_fs *fs, u64 old, u64 new, struct btrfs_diff *d);
/* common/backend/online-diff.c: the send_size op */
int online_send_size(struct vc_fs *fs, const struct vc_send_req *req, struct btrfs_send_size *out);

/* ioctl on fs->fd; returns 0 or -errno */
int online_ioctl(struct vc_fs *fs, unsigned long request, void *arg);
/* ioctl on another fd; returns the (non-negative) ioctl result or -errno */
int online_ioctl_fd(int fd, unsigned long request, void *arg);

/*
 * common/backend/online-delete.c: after SNAP_DESTROY refused subvolume @id (0:
 * unknown) at @path (NULL: by id) with @err (-EPERM or -EACCES), find why
 * and say it in fs->base.err, naming @what first; returns @err
 */
int online_delete_refused(struct vc_fs *fs, const char *what, const char *path, u64 id, int err);

/* common/backend/online-qgroup.c */
int online_quota_ctl(struct vc_fs *fs, enum vc_quota_mode mode);
int online_rescan_start(struct vc_fs *fs);
int online_rescan_wait(struct vc_fs *fs);
int online_rescan_status(struct vc_fs *fs, struct vc_rescan_status *st);
int online_quota_runtime(struct vc_fs *fs, struct vc_quota_runtime *rt);
int online_qgroup_reserved(struct vc_fs *fs, u64 qgroupid, struct vc_qgroup_rsv *rsv);
int online_block_sizes(struct vc_fs *fs, u32 *sectorsize, u32 *nodesize);
int online_qgroup_create(struct vc_fs *fs, u64 qgroupid);
int online_qgroup_destroy(struct vc_fs *fs, u64 qgroupid);
int online_qgroup_assign(struct vc_fs *fs, u64 src, u64 dst, bool assign);
int online_qgroup_limit(struct vc_fs *fs, u64 qgroupid, u64 flags, u64 max_rfer,
			u64 max_excl);

#endif
