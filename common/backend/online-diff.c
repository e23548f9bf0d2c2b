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
 * reader then finds it bad, and the whole run is tried once more.  File
 * data is not checked as it is read: a diff that compared data is tried
 * once more when two commits happened meanwhile (data_may_be_rewritten()).
 *
 * A subvolume deleted after its path was resolved has no root item any
 * more, or one with no reference left (check_alive()): -ESTALE, and the
 * command names the path.  Deleted after its tree was located, the run
 * goes on with the committed snapshot, every tree block checked against
 * what its parent promised (generation, owner): blocks freed and written
 * over fail, and the retry finds it deleted.
 *
 * Reading the devices needs root (CAP_SYS_ADMIN): without it the open of
 * a device is refused and the message says so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/btrfs.h>
#include "common/backend/online-internal.h"
#include "common/util/messages.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/fs.h"
#include "kernel-shared/send-size.h"
#include "kernel-shared/subvol-diff.h"

/* what runs on the committed trees */
struct committed_job {
	const char *cmd;	/* "subvolume diff", for messages */
	bool bare;		/* the engine's message as it is (as offline), no prefix */
	const u64 *ids;		/* the subvolumes it reads (0: none) */
	size_t nr_ids;
	int (*run)(struct btrfs_fs *bfs, void *arg);
	void *arg;
};

#if VOLCTL_FAULT_INJECTION
/*
 * Test builds: VOLCTL_RACE_CMD=COMMAND runs COMMAND with the shell once the
 * trees of the job's subvolumes are located in the committed root tree and
 * their root blocks read, before anything else of them is read: a test
 * deletes one there, deterministically (tests/mounted/subvol-diff-gone.bats).
 * Taken out of the environment first: the retry does not run it again.
 */
static void race_hook(struct btrfs_fs *bfs, const struct committed_job *job)
{
	const char *cmd = getenv("VOLCTL_RACE_CMD");
	struct btrfs_root *root;
	char *copy;

	if (!cmd)
		return;
	copy = strdup(cmd);
	unsetenv("VOLCTL_RACE_CMD");
	for (size_t i = 0; i < job->nr_ids; i++)
		if (job->ids[i])
			btrfs_read_root(bfs, job->ids[i], &root);	/* the engine reports */
	fflush(NULL);
	if (!copy || system(copy) != 0)
		warning("VOLCTL_RACE_CMD: the command failed");
	free(copy);
}
#endif

/*
 * Each subvolume of @job must still be in the committed root tree, alive: a
 * subvolume deleted after its path was resolved has no root item any more,
 * or one with no reference while the cleaner drops its tree (whose blocks
 * are being freed and reused).  Trees located earlier in this run keep
 * their item: that snapshot is read to the end, its blocks checked.
 */
static int check_alive(struct vc_fs *fs, struct btrfs_fs *bfs, const struct committed_job *job)
{
	for (size_t i = 0; i < job->nr_ids; i++) {
		struct btrfs_root *root;
		int ret;

		if (!job->ids[i])
			continue;
		ret = btrfs_read_root(bfs, job->ids[i], &root);
		if (ret == -ENOENT ||
		    (!ret && root->has_item && !btrfs_root_refs(&root->root_item))) {
			vc_fs_set_error(fs, "subvolume %llu: deleted while being read",
					(unsigned long long)job->ids[i]);
			vc_fs_set_error_whole(fs);
			return -ESTALE;
		}
	}
	return 0;	/* other errors are the engine's to report */
}

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
#if VOLCTL_FAULT_INJECTION
	race_hook(src.bfs, job);
#endif
	ret = check_alive(fs, src.bfs, job);
	if (!ret)
		ret = job->run(src.bfs, job->arg);
	if (ret < 0 && ret != -ESTALE) {
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
	struct vc_fs *fs;
	u64 old, new;
	struct btrfs_diff *d;
};

/*
 * Whether blocks of the committed state @bfs read could have been rewritten
 * since it was opened.  What that state points to and a later transaction
 * frees is reused only after the transaction that freed it committed: by
 * the one after it at the earliest, two past the state we read.  Tree
 * blocks carry their generation and are checked; file data is not, so a
 * comparison that read data must not outlive that.  Kernels before 5.15
 * say no generation: not checked.
 */
static bool data_may_be_rewritten(struct vc_fs *fs, const struct btrfs_fs *bfs)
{
	struct btrfs_ioctl_fs_info_args fi;

	memset(&fi, 0, sizeof(fi));
	fi.flags = BTRFS_FS_INFO_FLAG_GENERATION;
	if (online_ioctl(fs, BTRFS_IOC_FS_INFO, &fi) || !(fi.flags & BTRFS_FS_INFO_FLAG_GENERATION))
		return false;
	return fi.generation > bfs->generation + 1;
}

static int diff_run(struct btrfs_fs *bfs, void *arg)
{
	struct diff_arg *a = arg;
	int ret = btrfs_subvol_diff(bfs, a->old, a->new, a->d);

	if (!ret && a->d->data_read && data_may_be_rewritten(a->fs, bfs)) {
		btrfs_diff_release(a->d);
		btrfs_fs_set_error(bfs, "file data compared may have been rewritten: "
				   "two commits since generation %llu",
				   (unsigned long long)bfs->generation);
		return -EUCLEAN;
	}
	return ret;
}

int online_subvol_diff(struct vc_fs *fs, u64 old, u64 new, struct btrfs_diff *d)
{
	struct diff_arg a = { fs, old, new, d };
	const u64 ids[] = { old, new };
	struct committed_job job = { "subvolume diff", false, ids, 2, diff_run, &a };

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
	struct committed_job job = { "subvolume send-size", true, NULL, 0, send_size_run, &a };
	u64 *ids = calloc(2 + (size_t)req->nr_clones, sizeof(*ids));
	int ret;

	if (!ids)
		return -ENOMEM;
	/* the subvolume, the parent and every clone source: each checked alive */
	ids[0] = req->subvolid;
	ids[1] = req->parent;
	for (u32 i = 0; i < req->nr_clones; i++)
		ids[2 + i] = req->clones[i];
	job.ids = ids;
	job.nr_ids = 2 + (size_t)req->nr_clones;
	ret = run_committed(fs, &job);
	free(ids);
	return ret;
}
