/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One operations table, two backends.
 *
 * Commands in cmds/ talk to a filesystem only through struct vc_backend_ops.
 * The online backend (common/online*.c) drives the kernel's Btrfs ioctls on a
 * mounted filesystem; the offline backend (common/offline*.c) drives our own
 * on-disk implementation in kernel-shared/ on an unmounted image.  The
 * dispatcher picks one, once, from the global options (--image); commands
 * never branch on the mode.
 *
 * Everything that only reads goes through ->tree_search: the online backend
 * answers it with BTRFS_IOC_TREE_SEARCH_V2, the offline backend by walking its
 * own B-trees, and the listing logic above it (kernel-shared/subvol-list.c,
 * kernel-shared/qgroup-list.c) decodes the same items with the same decoders,
 * so both backends print identical results.
 *
 * Paths: every path argument is given as the user typed it.  Online it is a
 * path in the running system (relative to the cwd or absolute); offline it is a
 * path inside the image, starting at the top-level subvolume ("/" is tree 5).
 *
 * Errors: every op returns 0 or a negative errno.  When it has more to say than
 * strerror() it fills fs->err (see vc_fs_error()) with a one-line message that
 * names the object; the caller prints it.
 */
#ifndef VOLCTL_COMMON_BACKEND_H
#define VOLCTL_COMMON_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include "kernel-shared/diff-types.h"
#include "kernel-shared/send-types.h"
#include "kernel-shared/format.h"
#include "kernel-shared/itemsrc.h"
#include "common/util/quota-types.h"

struct vc_fs;
struct vc_config;
struct btrfs_fs;

/*
 * A read-only reader over the filesystem's own devices, for the accounting
 * engine (kernel-shared/accounting.h), which needs tree blocks that the tree
 * search ioctl cannot give.  Offline it is the image already open; online it
 * is a snapshot of a live filesystem: committed first, then read under the
 * running kernel, so a block the kernel rewrote meanwhile can fail
 * verification (the caller retries once, see common/backend/acct-run.h).
 */
struct vc_acct_src {
	struct btrfs_fs *bfs;
	bool live;			/* read under a mounted filesystem */
	void *priv;			/* the backend's */
};

/* Qgroups a new subvolume or snapshot is made a member of (-i). */
struct vc_inherit {
	size_t nr;
	const u64 *qgroups;
};

enum vc_quota_mode {
	VC_QUOTA_DISABLE,
	VC_QUOTA_ENABLE,		/* full accounting */
	VC_QUOTA_ENABLE_SIMPLE,		/* simple quotas (squota) */
};

enum vc_commit {
	VC_COMMIT_NONE,
	VC_COMMIT_EACH,			/* delete -C: commit after each deletion */
	VC_COMMIT_AFTER,		/* delete -c: commit once at the end */
};

/*
 * What the kernel holds reserved for a qgroup (sysfs qgroups/L_ID/rsv_*):
 * data of writes not yet committed and metadata reserved ahead.  It
 * checks a write against used + reserved + the write's bytes.
 */
struct vc_qgroup_rsv {
	u64 data;			/* rsv_data */
	u64 meta_pertrans;		/* rsv_meta_pertrans */
	u64 meta_prealloc;		/* rsv_meta_prealloc */
};

/*
 * The qgroup limit that refused the last failed write (-EDQUOT), as values:
 * offline volctl's own limit check knows them; the kernel does not say.
 */
struct vc_limit_refusal {
	u64 qgroupid;
	u64 limit;			/* the limit, in bytes */
	u64 over;			/* bytes beyond it the write would have gone */
	bool exclusive;			/* the exclusive limit (else referenced) */
};

/* The result of deleting one subvolume of a batch (->subvol_delete_all) */
struct vc_delete_status {
	int err;			/* 0 or a negative errno */
	bool gone;			/* err 0: it was deleted already (by someone else) */
	char msg[512];			/* why, naming the subvolume; "" when deleted */
};

/* What a path inside the filesystem names. */
struct vc_path_info {
	u64 subvolid;			/* tree that holds the inode */
	u64 ino;			/* inode number in that tree */
	bool is_subvol_root;		/* ino is BTRFS_FIRST_FREE_OBJECTID */
	bool is_dir;
};

/* What a send-size asks: subvolume ids (parent 0: a full send) */
struct vc_send_req {
	u64 subvolid;
	u64 parent;
	const u64 *clones;
	u32 nr_clones;
};

struct vc_backend_ops {
	const char *name;		/* "online" or "offline" */

	/*
	 * Open the filesystem that holds @path (online), or the image named in
	 * @cfg whose path @path must exist (offline).  @writable: the command
	 * will change the filesystem (offline: take the write lock, refuse
	 * mounted images).
	 */
	int (*open)(struct vc_fs **fsp, const struct vc_config *cfg, const char *path,
		    bool writable);
	void (*close)(struct vc_fs *fs);

	/* ---- read side ---- */
	int (*tree_search)(struct vc_fs *fs, u64 tree_id, const struct btrfs_key *min,
			   const struct btrfs_key *max, btrfs_item_cb cb, void *priv);
	int (*path_info)(struct vc_fs *fs, const char *path, struct vc_path_info *info);
	/*
	 * Where the subvolume path @tl_path (from the top level, "" for it)
	 * is for the user: online through the mount that holds the opened
	 * path, NULL when that mount cannot reach it; offline "/" + @tl_path
	 * inside the image.  malloc'ed; NULL also without memory.
	 */
	char *(*absolute_path)(struct vc_fs *fs, const char *tl_path);
	int (*rescan_status)(struct vc_fs *fs, struct vc_rescan_status *st);
	/* optional, online: the kernel's live quota state from sysfs */
	int (*quota_runtime)(struct vc_fs *fs, struct vc_quota_runtime *rt);
	/*
	 * optional, online: what the kernel holds reserved for @qgroupid
	 * (offline nothing is in flight: no op); -ENOENT without the group
	 */
	int (*qgroup_reserved)(struct vc_fs *fs, u64 qgroupid, struct vc_qgroup_rsv *rsv);
	/* the data sector and tree block sizes */
	int (*block_sizes)(struct vc_fs *fs, u32 *sectorsize, u32 *nodesize);
	/*
	 * optional, offline: the superblock's incompat flags and generation,
	 * which a QGROUP_STATUS item is judged against (online the kernel
	 * mounted it, so it took the item)
	 */
	int (*super_features)(struct vc_fs *fs, u64 *incompat, u64 *generation);
	/*
	 * optional, offline: the limit that refused the last failed write;
	 * -ENOENT when no limit did
	 */
	int (*limit_refusal)(struct vc_fs *fs, struct vc_limit_refusal *r);

	/* ---- subvolumes ---- */
	/* @parents: offline, create missing directories of @path (online the command did) */
	int (*subvol_create)(struct vc_fs *fs, const char *path, bool parents,
			     const struct vc_inherit *inh);
	/*
	 * Optional: create every one of @paths in one commit, or fail and
	 * change nothing (the caller then creates them one by one, for the
	 * exact error of each).  Offline only: a commit there costs flushes.
	 */
	int (*subvol_create_all)(struct vc_fs *fs, const char *const *paths, size_t nr,
				 const struct vc_inherit *inh);
	int (*snapshot)(struct vc_fs *fs, const char *src, const char *dst, bool readonly,
			const struct vc_inherit *inh);
	/*
	 * Optional: the changes from subvolume @old to subvolume @new
	 * (kernel-shared/subvol-diff.h); release @d with vc_diff_release().
	 * Online, -ESTALE: one of them was deleted while it was read.
	 */
	int (*subvol_diff)(struct vc_fs *fs, u64 old, u64 new, struct btrfs_diff *d);
	/*
	 * Optional: the bytes `btrfs send [-p PARENT] [-c CLONE]... SUBVOL`
	 * writes, protocol 1 and 2 --compressed-data (kernel-shared/send-size.h);
	 * online, -ESTALE: the subvolume or the parent deleted while read
	 */
	int (*send_size)(struct vc_fs *fs, const struct vc_send_req *req, struct btrfs_send_size *out);
	/* delete by path (subvolid 0), or subvolume @subvolid of the fs holding @path */
	int (*subvol_delete)(struct vc_fs *fs, const char *path, u64 subvolid);
	/*
	 * Optional: delete subvolumes @ids (by id) of the filesystem, each
	 * one's result in @st[i].  One that is already deleted (gone, or
	 * unlinked and waiting for the cleaner: another process got there
	 * first) is done, not a failure: @st[i].gone, as `subvolume sync`
	 * counts a gone subvolume.  Online one by one: a refusal does not
	 * stop the rest.  Offline in one transaction: all the others are
	 * deleted and committed together or, on any error, none is (the
	 * image is unchanged) and every @st[i] says why.  Return: 0 when all
	 * were deleted or gone, else the first error.
	 */
	int (*subvol_delete_all)(struct vc_fs *fs, const u64 *ids, size_t nr,
				 struct vc_delete_status *st);
	/*
	 * Optional, online: the ids of this filesystem's subvolumes that are
	 * mounted (subvolid= of every mount of it); *@ids malloc'ed
	 */
	int (*mounted_subvols)(struct vc_fs *fs, u64 **ids, size_t *nr);
	int (*set_default)(struct vc_fs *fs, u64 subvolid);
	int (*commit)(struct vc_fs *fs, bool wait);
	/*
	 * Write dirty data, then commit, so that numbers read next include
	 * what was written (btrfs-progs' BTRFS_IOC_SYNC before reading
	 * qgroups); commit() alone leaves buffered data out.
	 */
	int (*sync)(struct vc_fs *fs);
	/* wait until deleted subvolume @subvolid has been cleaned; -ENOENT if it never existed */
	int (*wait_cleaned)(struct vc_fs *fs, u64 subvolid, int sleep_seconds);

	/* ---- quota and qgroups ---- */
	int (*quota_ctl)(struct vc_fs *fs, enum vc_quota_mode mode);
	int (*rescan_start)(struct vc_fs *fs);
	int (*rescan_wait)(struct vc_fs *fs);
	int (*qgroup_create)(struct vc_fs *fs, u64 qgroupid);
	int (*qgroup_destroy)(struct vc_fs *fs, u64 qgroupid);
	/* 0, or 1 when the change left the numbers inconsistent (a rescan is due) */
	int (*qgroup_assign)(struct vc_fs *fs, u64 src, u64 dst, bool assign);
	int (*qgroup_limit)(struct vc_fs *fs, u64 qgroupid, u64 flags, u64 max_rfer,
			    u64 max_excl);

	/* ---- accounting (common/backend/online-acct.c, common/backend/offline.c) ---- */
	int (*acct_open)(struct vc_fs *fs, struct vc_acct_src *src);
	void (*acct_close)(struct vc_fs *fs, struct vc_acct_src *src);
};

/* Common head of every backend's struct vc_fs. */
struct vc_fs_base {
	const struct vc_backend_ops *ops;
	const struct vc_config *cfg;
	char err[512];			/* last detailed error, "" if none */
	bool err_whole;			/* @err names the cause: no errno text after it */
};

extern const struct vc_backend_ops vc_online_ops;
extern const struct vc_backend_ops vc_offline_ops;

/* The accounting ops of each backend (common/backend/online-acct.c, common/backend/offline.c). */
int online_acct_open(struct vc_fs *fs, struct vc_acct_src *src);
void online_acct_close(struct vc_fs *fs, struct vc_acct_src *src);
int offline_acct_open(struct vc_fs *fs, struct vc_acct_src *src);
void offline_acct_close(struct vc_fs *fs, struct vc_acct_src *src);

/* Detailed message of the last failed op, or NULL. */
const char *vc_fs_error(struct vc_fs *fs);
void vc_fs_set_error(struct vc_fs *fs, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void vc_fs_clear_error(struct vc_fs *fs);
/*
 * The last error's text names the cause completely ("t.img: empty file"):
 * reported as it is, without the errno's text after it.  Cleared by the
 * next vc_fs_set_error().
 */
void vc_fs_set_error_whole(struct vc_fs *fs);
bool vc_fs_error_whole(struct vc_fs *fs);

/* The item source view of an open filesystem, for kernel-shared/ listing code. */
struct btrfs_item_source vc_fs_item_source(struct vc_fs *fs);

/* Release what the subvol_diff op filled */
void vc_diff_release(struct btrfs_diff *d);

/* Both backends: a full send's size, or one with a parent or clone sources */
int vc_send_size_run(struct btrfs_fs *bfs, const struct vc_send_req *req, struct btrfs_send_size *out);

#endif
