// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests on memory devices: btrfs_mkfs() images of every node size and
 * checksum open and verify; subvolumes, snapshots (leaf and node roots),
 * writes into trees sharing blocks and deletions commit and read back
 * through the reader and the subvolume list.  `btrfs check` and the kernel
 * judge the same operations in tests/cli and tests/mounted.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "kernel-shared/fs.h"
#include "kernel-shared/io.h"
#include "kernel-shared/mkfs.h"
#include "kernel-shared/subvol-create.h"
#include "kernel-shared/subvol-delete.h"
#include "kernel-shared/subvol-list.h"
#include "kernel-shared/snapshot.h"
#include "kernel-shared/transaction.h"
#include "kernel-shared/ctree.h"

#define IMG_SIZE	(160ULL << 20)

/* A zeroed memory device of @size bytes; free *@buf after closing it */
static int new_dev(u64 size, void **buf, struct btrfs_io_dev **dev)
{
	*buf = calloc(1, size);
	if (!*buf)
		return -ENOMEM;
	return btrfs_io_open_memory(*buf, size, false, true, dev);
}

static struct btrfs_fs *open_fs(struct btrfs_io_dev *dev)
{
	struct btrfs_open_args args = { 0 };
	char msg[BTRFS_ERRMSG_SIZE] = "";
	struct btrfs_fs *fs = NULL;

	args.devs = &dev;
	args.nr_devs = 1;
	args.super_mirror = BTRFS_SUPER_PRIMARY;
	args.writable = true;
	args.errmsg = msg;
	if (btrfs_fs_open(&fs, &args) < 0) {
		fprintf(stderr, "open: %s\n", msg);
		return NULL;
	}
	return fs;
}

static int make(struct btrfs_io_dev *dev, u32 ns, u16 csum, bool quota)
{
	char msg[BTRFS_ERRMSG_SIZE] = "";
	struct btrfs_mkfs_args a = { 0 };
	int ret;

	a.dev = dev;
	a.nodesize = ns;
	a.csum_type = csum;
	a.quota = quota;
	a.now_sec = 1700000000;
	a.errmsg = msg;
	ret = btrfs_mkfs(&a);
	if (ret)
		fprintf(stderr, "mkfs: %s\n", msg);
	return ret;
}

static int create(struct btrfs_fs *fs, u64 parent, const char *name, u64 *id)
{
	struct btrfs_subvol_create_args a = { 0 };
	struct btrfs_trans_handle *t;
	int ret;

	a.parent_root = parent;
	a.parent_dir = 256;
	a.name = name;
	a.name_len = strlen(name);
	a.now_sec = 1700000001;
	ret = btrfs_start_transaction(fs, &t);
	if (ret)
		return ret;
	ret = btrfs_subvol_create(t, &a);
	if (ret) {
		btrfs_abort_transaction(t);
		return ret;
	}
	*id = a.subvolid;
	return btrfs_commit_transaction(t);
}

static int snapshot(struct btrfs_fs *fs, u64 src, u64 parent, const char *name, bool ro,
		    u64 *id)
{
	struct btrfs_subvol_create_args a = { 0 };
	struct btrfs_trans_handle *t;
	int ret;

	a.parent_root = parent;
	a.parent_dir = 256;
	a.name = name;
	a.name_len = strlen(name);
	a.now_sec = 1700000002;
	ret = btrfs_start_transaction(fs, &t);
	if (ret)
		return ret;
	ret = btrfs_snapshot_create(t, src, ro, &a);
	if (ret) {
		btrfs_abort_transaction(t);
		return ret;
	}
	*id = a.subvolid;
	return btrfs_commit_transaction(t);
}

static int unlink_subvol(struct btrfs_fs *fs, u64 id)
{
	struct btrfs_trans_handle *t;
	int ret;

	ret = btrfs_start_transaction(fs, &t);
	if (ret)
		return ret;
	ret = btrfs_subvol_unlink(t, id, 1700000003, 0);
	if (ret) {
		btrfs_abort_transaction(t);
		return ret;
	}
	return btrfs_commit_transaction(t);
}

static void test_mkfs_shapes(void)
{
	static const u32 sizes[] = { 4096, 16384, 65536 };
	static const u16 csums[] = { 0, 1, 2, 3 };

	for (size_t i = 0; i < 3; i++) {
		for (size_t j = 0; j < 4; j++) {
			struct btrfs_io_dev *dev;
			struct btrfs_fs *fs;
			struct btrfs_root *root;
			void *buf;

			CHECK(new_dev(IMG_SIZE, &buf, &dev) == 0);
			/* 4 KiB with quotas: the root tree is a node over two leaves */
			CHECK_EQ_INT(make(dev, sizes[i], csums[j], j == 1), 0);
			fs = open_fs(dev);
			CHECK(fs != NULL);
			if (fs) {
				CHECK_EQ_INT(fs->nodesize, sizes[i]);
				CHECK_EQ_INT(btrfs_read_root(fs, BTRFS_FS_TREE_OBJECTID, &root), 0);
				CHECK_EQ_INT(btrfs_read_root(fs, BTRFS_UUID_TREE_OBJECTID, &root), 0);
				CHECK_EQ_INT(btrfs_read_root(fs, BTRFS_DATA_RELOC_TREE_OBJECTID,
							     &root), 0);
				CHECK_EQ_INT(btrfs_read_root(fs, BTRFS_QUOTA_TREE_OBJECTID, &root),
					     j == 1 ? 0 : -ENOENT);
				CHECK_EQ_INT(fs->tree_root->level, sizes[i] == 4096 && j == 1 ? 1 : 0);
				btrfs_fs_close(fs);
			}
			btrfs_io_close(dev);
			free(buf);
		}
	}
}

static void test_mkfs_refusals(void)
{
	struct btrfs_io_dev *dev;
	struct btrfs_mkfs_args a = { 0 };
	char msg[BTRFS_ERRMSG_SIZE] = "";
	void *buf;

	CHECK(new_dev(64ULL << 20, &buf, &dev) == 0);
	a.dev = dev;
	a.errmsg = msg;
	CHECK_EQ_INT(btrfs_mkfs(&a), -ENOSPC);
	CHECK(strstr(msg, "too small") != NULL);
	a.nodesize = 3000;
	CHECK_EQ_INT(btrfs_mkfs(&a), -EINVAL);
	btrfs_io_close(dev);
	free(buf);
}

static const struct btrfs_subvol *find(const struct btrfs_subvol_list *l, u64 id)
{
	return btrfs_subvol_list_find(l, id);
}

/* Many subvolumes in the top level make its root a node; snapshot, write, delete */
static void test_snapshots(u32 ns, bool quota)
{
	struct btrfs_io_dev *dev;
	struct btrfs_fs *fs;
	struct btrfs_subvol_list l = { 0 };
	struct btrfs_item_source src;
	u64 id, a, s1, s2, s3, x;
	char name[16];
	void *buf;

	CHECK(new_dev(IMG_SIZE, &buf, &dev) == 0);
	CHECK_EQ_INT(make(dev, ns, 0, quota), 0);
	fs = open_fs(dev);
	CHECK(fs != NULL);
	if (!fs)
		goto out;
	CHECK_EQ_INT(create(fs, 5, "a", &a), 0);
	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "pad%d", i);
		CHECK_EQ_INT(create(fs, 5, name, &id), 0);
	}
	CHECK_EQ_INT(snapshot(fs, a, 5, "s1", false, &s1), 0);
	CHECK_EQ_INT(snapshot(fs, 5, 5, "top", true, &s2), 0);
	/* the top level shares blocks with "top" now */
	CHECK_EQ_INT(snapshot(fs, 5, a, "s3", false, &s3), 0);
	CHECK_EQ_INT(create(fs, 5, "x", &x), 0);
	CHECK_EQ_INT(create(fs, s1, "in-s1", &id), 0);
	CHECK_EQ_INT(unlink_subvol(fs, x), 0);
	CHECK_EQ_INT(unlink_subvol(fs, x), -ENOENT);
	CHECK_EQ_INT(unlink_subvol(fs, 5), -EPERM);
	CHECK_EQ_INT(unlink_subvol(fs, s1), -ENOTEMPTY);
	btrfs_fs_close(fs);

	fs = open_fs(dev);
	CHECK(fs != NULL);
	if (!fs)
		goto out;
	src = btrfs_fs_item_source(fs);
	CHECK_EQ_INT(btrfs_subvol_list_load(&src, &l), 0);
	CHECK(find(&l, s1) && find(&l, s1)->path && !strcmp(find(&l, s1)->path, "s1"));
	CHECK(find(&l, s3) && find(&l, s3)->path && !strcmp(find(&l, s3)->path, "a/s3"));
	CHECK(find(&l, s2) && (find(&l, s2)->root.flags & BTRFS_ROOT_SUBVOL_RDONLY));
	CHECK(find(&l, x) && find(&l, x)->deleted);
	CHECK(find(&l, s1) && find(&l, s1)->root_offset > 0);
	btrfs_subvol_list_release(&l);
	btrfs_fs_close(fs);
out:
	btrfs_io_close(dev);
	free(buf);
}

int main(void)
{
	test_mkfs_shapes();
	test_mkfs_refusals();
	test_snapshots(4096, false);
	test_snapshots(16384, true);
	return unit_finish();
}
