// SPDX-License-Identifier: GPL-2.0-only
/*
 * `subvolume diff` and `subvolume send-size` on a mounted filesystem: the
 * same engines as offline (kernel-shared/subvol-diff.h,
 * kernel-shared/send-size.h) run on the committed trees, read from the
 * filesystem's own devices (common/backend/online-acct.c).
 *
 * The tree search ioctl gives items, not the blocks the comparison needs
 * to skip what two trees share.  So the filesystem is committed first
 * (BTRFS_IOC_SYNC on this filesystem only: dirty data of a live NEW is
 * written and committed, the diff is of that committed state), then its
 * devices are read with the offline reader.  A commit made by someone
 * else while we read can rewrite a block we are about to read: the
 * reader then finds it bad, and the whole run is tried once more.
 *
 * Reading the devices needs root (CAP_SYS_ADMIN): without it the open of
 * a device is refused and the message says so.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "common/backend/online-internal.h"
#include "kernel-shared/fs.h"
#include "kernel-shared/send-size.h"
#include "kernel-shared/subvol-diff.h"

/* what runs on the committed trees */
struct committed_job {
	const char *cmd;	/* "subvolume diff", for messages */
	bool bare;		/* the engine's message as it is (as offline), no prefix */
	int (*run)(struct btrfs_fs *bfs, void *arg);
	void *arg;
};

/* One commit, open, run and close; @cause gets why it failed */
static int run_once(struct vc_fs *fs, const struct committed_job *job, char *cause, size_t len)
{
	struct vc_acct_src src;
	int ret;

	vc_fs_clear_error(fs);
	ret = online_devices_open(fs, NULL, &src);
	if (ret) {
		char msg[sizeof(fs->base.err)];

		snprintf(msg, sizeof(msg), "%s", vc_fs_error(fs) ? vc_fs_error(fs) : strerror(-ret));
		if (ret == -EACCES || ret == -EPERM)
			vc_fs_set_error(fs, "%s: %s reads the filesystem's devices, "
					"which needs CAP_SYS_ADMIN (root): %.300s", fs->path,
					job->cmd, msg);
		else
			vc_fs_set_error(fs, "%s: %s: %.400s", fs->path, job->cmd, msg);
		vc_fs_set_error_whole(fs);
		return ret;
	}
	btrfs_fs_clear_error(src.bfs);
	ret = job->run(src.bfs, job->arg);
	if (ret < 0) {
		const char *msg = btrfs_fs_error(src.bfs);

		snprintf(cause, len, "%s", msg && msg[0] ? msg : strerror(-ret));
	}
	online_acct_close(fs, &src);
	return ret;
}

static int run_committed(struct vc_fs *fs, const struct committed_job *job)
{
	char first[256] = "", cause[256] = "";
	int ret;

	ret = run_once(fs, job, cause, sizeof(cause));
	if (ret == -EUCLEAN || ret == -EIO) {
		/* the kernel rewrote a block while we read: commit and read once more */
		memcpy(first, cause, sizeof(first));
		cause[0] = 0;
		ret = run_once(fs, job, cause, sizeof(cause));
		if ((ret == -EUCLEAN || ret == -EIO) && !vc_fs_error(fs)) {
			vc_fs_set_error(fs, "%s: the filesystem changed while it was read, twice "
					"(first: %.200s; then: %.200s)", fs->path,
					first[0] ? first : "its devices", cause);
			vc_fs_set_error_whole(fs);
		}
	}
	/* the engine's message (a run_once that could not open set its own) */
	if (ret < 0 && !vc_fs_error(fs) && cause[0]) {
		if (job->bare) {
			vc_fs_set_error(fs, "%s", cause);
		} else {
			vc_fs_set_error(fs, "%s: %s: %s", fs->path, job->cmd, cause);
			vc_fs_set_error_whole(fs);
		}
	}
	return ret;
}

struct diff_arg {
	u64 old, new;
	struct btrfs_diff *d;
};

static int diff_run(struct btrfs_fs *bfs, void *arg)
{
	struct diff_arg *a = arg;

	return btrfs_subvol_diff(bfs, a->old, a->new, a->d);
}

int online_subvol_diff(struct vc_fs *fs, u64 old, u64 new, struct btrfs_diff *d)
{
	struct diff_arg a = { old, new, d };
	struct committed_job job = { "subvolume diff", false, diff_run, &a };

	return run_committed(fs, &job);
}

struct send_size_arg {
	const struct vc_send_req *req;
	struct btrfs_send_size *out;
};

static int send_size_run(struct btrfs_fs *bfs, void *arg)
{
	struct send_size_arg *a = arg;

	return vc_send_size_run(bfs, a->req, a->out);
}

int online_send_size(struct vc_fs *fs, const struct vc_send_req *req, struct btrfs_send_size *out)
{
	struct send_size_arg a = { req, out };
	struct committed_job job = { "subvolume send-size", true, send_size_run, &a };

	return run_committed(fs, &job);
}
