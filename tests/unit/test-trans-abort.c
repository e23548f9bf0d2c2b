// SPDX-License-Identifier: GPL-2.0-only
/*
 * The transaction runner (btrfs_run_transaction()) and what an abort puts
 * back in memory.
 *
 * An offline write that fails leaves the image as it was (test-writer.c
 * compares the bytes); these tests look at the other half: the open
 * filesystem a later transaction builds on.  After an op that changed
 * many things and then failed, and after commits cut short by a
 * fault-injecting device (kernel-shared/io-fault.c) at every write, the
 * in-memory superblock (feature flags an op set), the roots, their nodes
 * and items, the chunk map and the device usage are exactly what they were
 * before the transaction started, and the next transaction commits.
 * Images come from mkfs.btrfs (skipped, with a note, when it is missing);
 * `btrfs check --readonly` is the oracle for the result.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "kernel-shared/fs.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/io.h"
#include "kernel-shared/transaction.h"
#include "kernel-shared/subvol-create.h"
#include "kernel-shared/default-subvol.h"
#include "kernel-shared/qgroup-write.h"

static char tmpdir[256];

static int run(const char *cmd)
{
	int ret = system(cmd);

	return ret == -1 ? -1 : WEXITSTATUS(ret);
}

/* What an abort must restore: everything a later transaction starts from */
#define MAX_ROOTS	64

struct mem_root {
	struct btrfs_root *root;
	u64 id, bytenr, generation;
	u8 level;
	struct btrfs_root_item item;
	const struct extent_buffer *node;
};

struct mem_state {
	struct btrfs_super_block super;
	u64 generation;
	size_t nr_roots, nr_chunks;
	struct mem_root roots[MAX_ROOTS];
	struct mem_root tree_root;
	u64 dev_bytes_used;
};

static void save_root(const struct btrfs_root *r, struct mem_root *m)
{
	memset(m, 0, sizeof(*m));
	m->root = (struct btrfs_root *)r;
	m->id = r->id;
	m->bytenr = r->bytenr;
	m->generation = r->generation;
	m->level = r->level;
	m->item = r->root_item;
	m->node = r->node;
}

static void save_state(const struct btrfs_fs *fs, struct mem_state *s)
{
	memset(s, 0, sizeof(*s));
	s->super = fs->super;
	s->generation = fs->generation;
	s->nr_roots = fs->nr_roots;
	s->nr_chunks = fs->nr_chunks;
	for (size_t i = 0; i < fs->nr_roots && i < MAX_ROOTS; i++)
		save_root(fs->roots[i], &s->roots[i]);
	save_root(fs->tree_root, &s->tree_root);
	s->dev_bytes_used = fs->devices[0]->bytes_used;
}

/* CHECK each part, so a failure says which one differs */
static bool same_state(const struct mem_state *a, const struct mem_state *b)
{
	bool ok = true;

	ok &= CHECK(memcmp(&a->super, &b->super, sizeof(a->super)) == 0);
	ok &= CHECK(btrfs_super_incompat_flags(&a->super) ==
		    btrfs_super_incompat_flags(&b->super));
	ok &= CHECK(a->generation == b->generation);
	ok &= CHECK(a->nr_roots == b->nr_roots);
	ok &= CHECK(a->nr_chunks == b->nr_chunks);
	ok &= CHECK(a->dev_bytes_used == b->dev_bytes_used);
	ok &= CHECK(memcmp(&a->tree_root, &b->tree_root, sizeof(a->tree_root)) == 0);
	for (size_t i = 0; ok && i < a->nr_roots && i < MAX_ROOTS; i++)
		ok &= CHECK(memcmp(&a->roots[i], &b->roots[i], sizeof(a->roots[i])) == 0);
	return ok;
}

struct image {
	char path[320];
	struct btrfs_io_dev *inner, *dev;
	struct btrfs_io_fault fault;
	struct btrfs_fs *fs;
};

static int image_open(struct image *im)
{
	struct btrfs_open_args args = { 0 };
	int ret;

	memset(&im->fault, 0, sizeof(im->fault));
	ret = btrfs_io_open_file(im->path, true, &im->inner);
	if (!ret)
		ret = btrfs_io_open_fault(im->inner, &im->fault, &im->dev);
	if (ret)
		return ret;
	args.devs = &im->dev;
	args.nr_devs = 1;
	args.super_mirror = BTRFS_SUPER_PRIMARY;
	args.writable = true;
	return btrfs_fs_open(&im->fs, &args);
}

/* A new 256 MiB image by mkfs.btrfs, opened */
static int image_make(struct image *im, const char *name)
{
	char cmd[1024];

	snprintf(im->path, sizeof(im->path), "%s/%s", tmpdir, name);
	snprintf(cmd, sizeof(cmd), "truncate -s 256M %s && mkfs.btrfs -q -f %s >/dev/null 2>&1",
		 im->path, im->path);
	if (run(cmd))
		return -1;
	return image_open(im);
}

static void image_close(struct image *im)
{
	if (im->fs)
		btrfs_fs_close(im->fs);
	btrfs_io_close(im->dev);
	btrfs_io_close(im->inner);
	im->fs = NULL;
	im->dev = im->inner = NULL;
}

/* Let @limit more writes through (0: all of them) */
static void fail_after(struct image *im, u64 limit)
{
	im->fault.writes = 0;
	im->fault.faults = 0;
	im->fault.write_limit = limit;
}

static int quota_enable_op(struct btrfs_trans_handle *trans, void *arg)
{
	(void)arg;
	return btrfs_quota_enable(trans, false);
}

static int subvol_op(struct btrfs_trans_handle *trans, void *arg)
{
	return btrfs_subvol_create(trans, arg);
}

static int qgroup_op(struct btrfs_trans_handle *trans, void *arg)
{
	return btrfs_qgroup_create(trans, *(const u64 *)arg);
}

/* Many kinds of change in one transaction, then @fail (0: commit them) */
struct busy_op {
	u64 subvolid;			/* made the default */
	struct btrfs_subvol_create_args create;
	int fail;
	int ran;
};

static int busy_op(struct btrfs_trans_handle *trans, void *arg)
{
	struct busy_op *b = arg;
	int ret;

	b->ran++;
	ret = btrfs_set_default_subvol(trans, b->subvolid);	/* sets INCOMPAT_DEFAULT_SUBVOL */
	if (!ret)
		ret = btrfs_qgroup_create(trans, btrfs_qgroup_mkid(2, 0));
	if (!ret)
		ret = btrfs_qgroup_relation(trans, b->subvolid, btrfs_qgroup_mkid(1, 0), true);
	if (!ret)
		ret = btrfs_qgroup_limit(trans, btrfs_qgroup_mkid(1, 0),
					 BTRFS_QGROUP_LIMIT_MAX_RFER, 1ULL << 30, 0);
	if (!ret)
		ret = btrfs_subvol_create(trans, &b->create);	/* a tree only T knows */
	return ret ? ret : b->fail;
}

/*
 * A new image with quotas on, subvolume "a" (@b->subvolid, in no group
 * yet) and qgroup 1/0: what busy_op() changes
 */
static int image_setup(struct image *im, const char *name, struct busy_op *b)
{
	struct btrfs_subvol_create_args a = { .parent_root = 5, .parent_dir = 256,
					      .name = "a", .name_len = 1 };
	u64 level1 = btrfs_qgroup_mkid(1, 0);
	int ret = image_make(im, name);

	if (!ret && btrfs_super_incompat_flags(&im->fs->super) &
	    BTRFS_FEATURE_INCOMPAT_DEFAULT_SUBVOL)
		ret = -EEXIST;		/* the flag busy_op() sets must be new */
	if (!ret)
		ret = btrfs_run_transaction(im->fs, 0, quota_enable_op, NULL);
	if (!ret)
		ret = btrfs_run_transaction(im->fs, 0, subvol_op, &a);
	if (!ret)
		ret = btrfs_run_transaction(im->fs, 0, qgroup_op, &level1);
	b->subvolid = a.subvolid;
	return ret;
}

static void test_abort_restores_memory(void)
{
	struct image im = { 0 };
	struct busy_op b = { .create = { .parent_root = 5, .parent_dir = 256,
					 .name = "b", .name_len = 1 } };
	struct mem_state before, after;
	char cmd[1024];
	bool committed = false;
	unsigned int aborts = 0;
	int ret;

	if (!CHECK(image_setup(&im, "abort.img", &b) == 0))
		return;

	/* the op changes everything, then fails: nothing of it stays in memory */
	save_state(im.fs, &before);
	b.fail = -EIO;
	CHECK(btrfs_run_transaction(im.fs, 0, busy_op, &b) == -EIO);
	CHECK(b.ran == 1);
	save_state(im.fs, &after);
	CHECK(same_state(&before, &after));
	{
		struct btrfs_root *r;

		CHECK(btrfs_read_root(im.fs, b.create.subvolid, &r) == -ENOENT);
	}

	/* > 0: nothing to write, the transaction is dropped and the value handed back */
	b.fail = 1;
	CHECK(btrfs_run_transaction(im.fs, 0, busy_op, &b) == 1);
	save_state(im.fs, &after);
	CHECK(same_state(&before, &after));

	/* the commit cut short at each write: every abort restores the state */
	b.fail = 0;
	for (u64 n = 1; n < 200 && !committed; n++) {
		fail_after(&im, n);
		ret = btrfs_run_transaction(im.fs, 0, busy_op, &b);
		if (ret == 0 || strstr(btrfs_fs_error(im.fs), "committed")) {
			/* the primary superblock made it: the new state is on disk */
			committed = true;
			break;
		}
		if (!CHECK(ret == -EIO) || !CHECK(im.fault.faults > 0))
			break;
		aborts++;
		save_state(im.fs, &after);
		if (!same_state(&before, &after)) {
			fprintf(stderr, "  state differs after a fault at write %llu\n",
				(unsigned long long)n);
			break;
		}
	}
	CHECK(committed);
	/* new blocks, the flush, the primary superblock: each cut tried */
	CHECK(aborts >= 3);
	image_close(&im);

	/* reopened: whatever the last commit left is a consistent filesystem */
	snprintf(cmd, sizeof(cmd), "btrfs check --readonly %s >/dev/null 2>&1", im.path);
	CHECK(run(cmd) == 0);
	if (!CHECK(image_open(&im) == 0))
		return;
	CHECK(btrfs_super_incompat_flags(&im.fs->super) & BTRFS_FEATURE_INCOMPAT_DEFAULT_SUBVOL);
	image_close(&im);
}

/* No fault: the same op commits after an abort, and the image checks clean */
static void test_commit_after_abort(void)
{
	struct image im = { 0 };
	struct busy_op b = { .create = { .parent_root = 5, .parent_dir = 256,
					 .name = "b", .name_len = 1 } };
	char cmd[1024];

	if (!CHECK(image_setup(&im, "retry.img", &b) == 0))
		return;
	b.fail = -ENOSPC;
	CHECK(btrfs_run_transaction(im.fs, 0, busy_op, &b) == -ENOSPC);
	fail_after(&im, 3);
	b.fail = 0;
	CHECK(btrfs_run_transaction(im.fs, 0, busy_op, &b) == -EIO);
	fail_after(&im, 0);
	CHECK(btrfs_run_transaction(im.fs, 0, busy_op, &b) == 0);
	/* a failure's message is the runner's to clear */
	CHECK(btrfs_fs_error(im.fs)[0] == '\0');
	image_close(&im);
	snprintf(cmd, sizeof(cmd), "btrfs check --readonly %s >/dev/null 2>&1", im.path);
	CHECK(run(cmd) == 0);
	/* the default entry of the root tree points at subvolume a */
	snprintf(cmd, sizeof(cmd), "btrfs inspect-internal dump-tree -t root %s | "
		 "grep -A1 'DIR_ITEM' | grep -q 'location key (%llu ROOT_ITEM'",
		 im.path, (unsigned long long)b.subvolid);
	CHECK(run(cmd) == 0);
}

int main(void)
{
	char cmd[512];

	if (run("command -v mkfs.btrfs >/dev/null && command -v btrfs >/dev/null")) {
		UNIT_SKIP("test-trans-abort: needs mkfs.btrfs and btrfs (btrfs-progs)");
		return unit_finish();
	}
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test-trans-abort.XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	test_abort_restores_memory();
	test_commit_after_abort();
	snprintf(cmd, sizeof(cmd), getenv("KEEP") ? "true %s" : "rm -rf %s", tmpdir);
	run(cmd);
	return unit_finish();
}
