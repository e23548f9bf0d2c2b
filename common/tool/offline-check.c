// SPDX-License-Identifier: GPL-2.0-only
/*
 * `volctl check` below its printing (see offline-check.h).
 *
 * Without --qgroup-report every block of every tree is read and verified
 * (checksum, parent pointers, tree-checker), then, when quotas are on, the
 * qgroup numbers are recomputed by the accounting engine
 * (kernel-shared/accounting.h) and compared with the QGROUP_INFO items.
 * --qgroup-report does only the second part (which still verifies every fs
 * tree block and the extent tree it streams).  Between the two, the free
 * space tree is compared with the block groups and the extent tree
 * (kernel-shared/fst-check.h), without --qgroup-report.  Both then look for the root
 * directory inode of every live subvolume: the kernel cannot open one
 * without it (tree 5 without it, like everything else the kernel refuses
 * at mount, already failed the open).
 *
 * --repair-free-space deletes the free space tree items of block groups
 * that do not exist, in one transaction (what every offline write's commit
 * does on the way, btrfs_fst_drop_stale()); it refuses a tree with any
 * other finding, which only a rebuild could mend.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/image/image.h"
#include "common/util/messages.h"
#include "common/tool/offline-check.h"
#include "kernel-shared/qgroup-list.h"
#include "kernel-shared/qgroup-recompute.h"
#include "common/output/records.h"
#include "common/image/offline-run.h"
#include "common/backend/offline-write-qgroup.h"
#include "kernel-shared/accounting.h"
#include "kernel-shared/alloc.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/fs.h"
#include "kernel-shared/fst-check.h"
#include "kernel-shared/walk.h"

/*
 * Tree blocks the reader caches: 0 is its default (64 MiB).  The walk reads
 * each node once, but the extent stream searches the leaves of the owning
 * trees in the order of the extents, which after rewrites is random: with
 * 1024 blocks a 220k-extent image took 1.5x as long.
 */
#define CHECK_CACHE_BLOCKS 0

struct progress_ctx {
	bool enabled;
	struct timespec last;
	bool printed;
};

static const char *phase_name(enum btrfs_acct_phase phase)
{
	switch (phase) {
	case BTRFS_ACCT_PHASE_ROOTS:
		return "reading roots";
	case BTRFS_ACCT_PHASE_TREES:
		return "fs tree blocks";
	case BTRFS_ACCT_PHASE_EXTENTS:
		return "extent items";
	default:
		return "";
	}
}

static int progress_cb(void *priv, enum btrfs_acct_phase phase, u64 done)
{
	struct progress_ctx *p = priv;
	struct timespec now;

	if (!p->enabled)
		return 0;
	if (phase == BTRFS_ACCT_PHASE_DONE) {
		if (p->printed)
			fprintf(stderr, "\r\033[K");
		return 0;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	if ((now.tv_sec - p->last.tv_sec) * 1000 + (now.tv_nsec - p->last.tv_nsec) / 1000000 < 500)
		return 0;
	p->last = now;
	p->printed = true;
	fprintf(stderr, "\rchecking qgroups: %s: %" PRIu64 "\033[K", phase_name(phase), done);
	return 0;
}

static int count_block(void *priv, const struct extent_buffer *eb,
		       const struct btrfs_walk_info *info)
{
	(*(u64 *)priv)++;
	return 0;
}

static int keep_fst_problem(void *priv, const struct btrfs_fst_problem *p)
{
	struct vc_check_result *res = priv;

	if (res->nr_fst_problems >= VC_CHECK_MAX_FST)
		return 0;
	if (!res->fst_problems) {
		res->fst_problems = calloc(VC_CHECK_MAX_FST, sizeof(*res->fst_problems));
		if (!res->fst_problems)
			return -ENOMEM;
	}
	res->fst_problems[res->nr_fst_problems++] = *p;
	return 0;
}

static void report_fs_error(struct btrfs_fs *fs, const char *image, int ret, const char *what)
{
	if (btrfs_fs_error(fs)[0])
		error("%s: %s: %s", image, what, btrfs_fs_error(fs));
	else
		error_errno(ret, "%s: %s", image, what);
}

static int compute(const struct vc_check_args *a, struct btrfs_fs *fs,
		   struct vc_check_result *res, struct btrfs_acct **acct)
{
	struct progress_ctx prog = {
		.enabled = a->progress,
	};
	struct btrfs_acct_options opts = {
		.read_leaves = true,
		.simple = res->simple,
		.enable_gen = res->simple ? res->list.status.enable_gen : 0,
		.progress = progress_cb,
		.progress_priv = &prog,
	};
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &prog.last);	/* quiet for the first half second */
	btrfs_fs_clear_error(fs);
	ret = btrfs_acct_run(fs, &opts, acct);
	if (ret) {
		progress_cb(&prog, BTRFS_ACCT_PHASE_DONE, 0);
		report_fs_error(fs, a->images[0], ret, "accounting failed");
		return ret;
	}
	btrfs_acct_get_stats(*acct, &res->stats);
	res->roots = btrfs_acct_roots(*acct, &res->nr_roots);
	/* a STATUS item the kernel cannot take leaves no mode to count in */
	if (!res->quotas || res->status_faults)
		return 0;
	res->counts = calloc(res->list.nr ? res->list.nr : 1, sizeof(*res->counts));
	if (!res->counts)
		return -ENOMEM;
	ret = btrfs_acct_qgroups(*acct, &res->list, res->counts);
	if (ret)
		return ret;
	for (size_t i = 0; i < res->list.nr; i++) {
		const struct btrfs_qgroup *qg = &res->list.groups[i];

		if (qg->info.rfer != res->counts[i].rfer || qg->info.excl != res->counts[i].excl)
			res->differ++;
	}
	ret = btrfs_acct_orphan_relations(fs, &res->list, res->orphans, VC_CHECK_MAX_ORPHANS,
					  &res->nr_orphans);
	if (ret) {
		report_fs_error(fs, a->images[0], ret, "reading qgroup relations failed");
		return ret;
	}
	return 0;
}

static int run_check(const struct vc_check_args *a, struct btrfs_fs *fs,
		     struct vc_check_result *res)
{
	struct btrfs_item_source src = btrfs_fs_item_source(fs);
	int ret;

	if (!a->qgroup_report) {
		btrfs_fs_clear_error(fs);
		ret = btrfs_walk_all_trees(fs, true, count_block, &res->walked_blocks);
		if (ret) {
			report_fs_error(fs, a->images[0], ret, "tree verification failed");
			return ret;
		}
		btrfs_fs_clear_error(fs);
		ret = btrfs_fst_check(fs, keep_fst_problem, res, &res->fst);
		if (ret) {
			report_fs_error(fs, a->images[0], ret, "free space tree verification failed");
			return ret;
		}
		res->fst_checked = true;
	}
	ret = btrfs_qgroup_list_load(&src, &res->list);
	if (ret && ret != -ENOENT) {
		report_fs_error(fs, a->images[0], ret, "reading the quota tree failed");
		return ret;
	}
	res->quotas = ret == 0 && res->list.has_status &&
		      (res->list.status.flags & BTRFS_QGROUP_STATUS_FLAG_ON);
	res->sb = (struct btrfs_qstatus_super){
		.incompat = btrfs_super_incompat_flags(&fs->super),
		.generation = fs->generation,
	};
	if (ret == 0 && res->list.has_status)
		res->status_faults = btrfs_qgroup_status_faults(&res->list.status, &res->sb);
	res->simple = res->quotas && !res->status_faults && btrfs_qgroup_list_is_simple(&res->list);
	res->stale_status = res->quotas && (res->list.status.flags &
					    (BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT |
					     BTRFS_QGROUP_STATUS_FLAG_RESCAN));
	ret = compute(a, fs, res, &res->acct);
	if (ret)
		return ret;
	/* a subvolume the kernel cannot open (tree 5 was checked at open) */
	for (size_t i = 0; i < res->nr_roots; i++) {
		if (res->roots[i].dead || res->roots[i].partly_dropped)
			continue;
		btrfs_fs_clear_error(fs);
		ret = btrfs_check_root_dir(fs, res->roots[i].id);
		if (ret) {
			error("%s: %s", a->images[0], btrfs_fs_error(fs));
			return ret;
		}
	}
	return 0;
}

/* The copies of member @dev into the next entry of res->supers */
static void read_copies(struct vc_check_result *res, struct btrfs_io_dev *dev,
			const struct btrfs_super_block *primary)
{
	struct vc_check_super *s = &res->supers[res->nr_supers++];

	snprintf(s->device, sizeof(s->device), "%s", dev->name);
	res->super_copies += (size_t)btrfs_super_read_copies(dev, primary, s->copies);
	for (int m = 0; m < BTRFS_SUPER_MIRROR_MAX; m++) {
		enum btrfs_super_finding f = s->copies[m].finding;

		if (btrfs_super_finding_is_error(f))
			res->super_errors++;
		else if (f == BTRFS_SUPER_STALE || f == BTRFS_SUPER_MIRROR_BAD)
			res->super_warnings++;
	}
}

/*
 * One line per finding.  @skip: the failed open's message, already given:
 * then only the errors it does not say (the warnings would bury the reason)
 */
static void report_copies(const struct vc_check_result *res, const char *skip)
{
	for (size_t i = 0; i < res->nr_supers; i++) {
		const struct vc_check_super *s = &res->supers[i];
		u64 pgen = s->copies[0].generation;

		for (int m = 0; m < BTRFS_SUPER_MIRROR_MAX; m++) {
			const struct btrfs_super_copy *c = &s->copies[m];
			unsigned long long at = c->bytenr, gen = c->generation;

			switch (c->finding) {
			case BTRFS_SUPER_PRIMARY_BAD:
				if (!skip || !strstr(skip, c->msg))
					error("%s (the primary: the kernel will not mount the "
					      "filesystem from this device)", c->msg);
				break;
			case BTRFS_SUPER_NEWER:
				error("%s: superblock mirror %d at %llu has generation %llu, newer "
				      "than the primary's %llu: the kernel mounts the older state",
				      s->device, m, at, gen, (unsigned long long)pgen);
				break;
			case BTRFS_SUPER_DIFFERS:
				error("%s: superblock mirror %d at %llu differs from the primary at "
				      "the same generation %llu", s->device, m, at, gen);
				break;
			case BTRFS_SUPER_STALE:
				if (skip)
					break;
				warning("%s: superblock mirror %d at %llu has generation %llu, older "
					"than the primary's %llu (the kernel rewrites every copy at "
					"its next commit)", s->device, m, at, gen,
					(unsigned long long)pgen);
				break;
			case BTRFS_SUPER_MIRROR_BAD:
				if (skip)
					break;
				warning("%s (the kernel rewrites every copy at its next commit)",
					c->msg);
				break;
			default:
				break;
			}
		}
	}
}

/* The copies of the members given, when the image cannot be opened */
static void read_given_copies(const struct vc_check_args *a, struct vc_check_result *res)
{
	for (int i = 0; i < a->nr_images; i++) {
		struct btrfs_io_dev *dev;
		char err[512];

		/* no copy to compare in a directory, an empty or too short file */
		if (vc_image_check_target(a->images[i], false, err, sizeof(err)) ||
		    btrfs_io_open_file(a->images[i], false, &dev))
			continue;
		read_copies(res, dev, NULL);
		btrfs_io_close(dev);
	}
}

int vc_check_run(const struct vc_check_args *a, struct vc_check_result *res)
{
	struct vc_image img;
	int ret;

	memset(res, 0, sizeof(*res));
	res->supers = calloc(VC_IMAGE_MAX_DEVS, sizeof(*res->supers));
	if (!res->supers) {
		error("%s: %s", a->images[0], strerror(ENOMEM));
		return -ENOMEM;
	}
	ret = vc_image_open(&img, &(struct vc_image_args){ .paths = a->images,
			    .nr_paths = a->nr_images, .mirror = a->mirror,
			    .cache_blocks = CHECK_CACHE_BLOCKS, .mode = VC_IMAGE_READ });
	if (ret) {
		/* what is wrong with the primary (the open's message), then the other copies */
		error("%s", img.err);
		read_given_copies(a, res);
		report_copies(res, img.err);
		return ret;
	}
	for (size_t i = 0; i < img.nr_devs; i++)
		read_copies(res, img.devs[i], vc_image_primary(&img, i));
	report_copies(res, NULL);
	/* like btrfs check: say so, then check what can be read */
	ret = vc_image_missing_ids(&img, &res->missing, &res->nr_missing);
	if (ret) {
		error("%s: %s", a->images[0], strerror(-ret));
		vc_image_close(&img);
		return ret;
	}
	vc_image_warn(&img);
	ret = run_check(a, img.bfs, res);
	/* the engine's results stay valid after the image is closed */
	vc_image_close(&img);
	return ret;
}

void vc_check_release(struct vc_check_result *res)
{
	btrfs_acct_free(res->acct);
	btrfs_qgroup_list_release(&res->list);
	free(res->counts);
	free(res->supers);
	free(res->fst_problems);
	free(res->missing);
	res->acct = NULL;
	res->counts = NULL;
	res->supers = NULL;
	res->fst_problems = NULL;
	res->missing = NULL;
	res->nr_missing = 0;
}

int vc_check_repair(const struct vc_check_args *a, struct btrfs_qgroup_repair_result *r,
		    bool *written)
{
	struct vc_image wr;
	char err[512];
	u64 blocks = 0;
	int ret;

	*written = false;
	ret = vc_image_open(&wr, &(struct vc_image_args){ .paths = a->images,
			    .nr_paths = a->nr_images, .mirror = a->mirror,
			    .mode = VC_IMAGE_WRITE, .wait_ms = a->wait_ms });
	if (ret < 0) {
		error("%s", wr.err);
		return ret;
	}
	/* a damaged tree is refused before anything is written */
	btrfs_fs_clear_error(wr.bfs);
	ret = btrfs_walk_all_trees(wr.bfs, true, count_block, &blocks);
	if (ret)
		report_fs_error(wr.bfs, a->images[0], ret,
				"tree verification failed, nothing repaired");
	if (!ret) {
		ret = vc_offline_repair_qgroups(wr.bfs, a->images[0], r, written, err, sizeof(err));
		if (ret)
			error("%s", err);
	}
	vc_image_close(&wr);
	return ret;
}

/* Count the findings that are not stale entries */
static int count_other(void *priv, const struct btrfs_fst_problem *p)
{
	if (p->kind != BTRFS_FST_STALE)
		(*(u64 *)priv)++;
	return 0;
}

static int drop_stale_op(struct btrfs_trans_handle *trans, void *arg)
{
	int ret = btrfs_fst_drop_stale(trans);

	if (ret < 0)
		return ret;
	*(u64 *)arg = (u64)ret;
	return ret ? 0 : 1;	/* none: nothing is written */
}

int vc_check_repair_fst(const struct vc_check_args *a, u64 *dropped, bool *written)
{
	struct btrfs_fst_stats st;
	struct vc_image wr;
	char err[512];
	u64 blocks = 0, other = 0;
	int ret;

	*written = false;
	*dropped = 0;
	ret = vc_image_open(&wr, &(struct vc_image_args){ .paths = a->images,
			    .nr_paths = a->nr_images, .mirror = a->mirror,
			    .mode = VC_IMAGE_WRITE });
	if (ret < 0) {
		error("%s", wr.err);
		return ret;
	}
	btrfs_fs_clear_error(wr.bfs);
	ret = btrfs_walk_all_trees(wr.bfs, true, count_block, &blocks);
	if (ret) {
		report_fs_error(wr.bfs, a->images[0], ret, "tree verification failed, nothing repaired");
		goto out;
	}
	ret = btrfs_fst_check(wr.bfs, count_other, &other, &st);
	if (ret) {
		report_fs_error(wr.bfs, a->images[0], ret,
				"free space tree verification failed, nothing repaired");
		goto out;
	}
	if (st.state == BTRFS_FST_STATE_ABSENT) {
		error("%s: no free space tree, nothing to repair", a->images[0]);
		ret = -ENOENT;
		goto out;
	}
	if (other) {
		struct fst_other_msg_rec m = { a->images[0], other };
		char *text = rec_text_string(&rec_fst_other_msg, &m, 0);

		error("%s", text ? text : "free space tree: problems not repaired");
		free(text);
		ret = -EUCLEAN;
		goto out;
	}
	ret = vc_offline_run(wr.bfs, VC_WRITE_IMAGE, a->images[0], 0, drop_stale_op, dropped, err,
			     sizeof(err));
	if (ret < 0)
		error("%s", err);
	*written = ret == 0;
	if (ret > 0)
		ret = 0;
out:
	vc_image_close(&wr);
	return ret;
}
