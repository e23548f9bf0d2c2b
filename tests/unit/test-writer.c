// SPDX-License-Identifier: GPL-2.0-only
/*
 * The offline writer: transactions, copy-on-write, subvolume create.
 *
 * Without arguments: unit tests on images made by mkfs.btrfs in a
 * temporary directory (skipped, with a note, when mkfs.btrfs is missing),
 * with `btrfs check --readonly` as the oracle.  The CLI side is in
 * tests/cli/offline-write.bats and tests/mounted/offline-write.bats.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "unit.h"
#include "common/backend/offline-write-subvol.h"
#include "image-writer.h"
#include "kernel-shared/fs.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/subvol-create.h"
#include "kernel-shared/transaction.h"
#include "kernel-shared/ctree-write.h"

static char tmpdir[256];

static int run(const char *cmd)
{
	int ret = system(cmd);

	return ret == -1 ? -1 : WEXITSTATUS(ret);
}

static int make_image_opts(const char *name, const char *size, const char *opts, char *path,
			   size_t len)
{
	char cmd[1024];

	snprintf(path, len, "%s/%s", tmpdir, name);
	snprintf(cmd, sizeof(cmd), "truncate -s %s %s && mkfs.btrfs -q -f %s %s >/dev/null 2>&1",
		 size, path, opts, path);
	return run(cmd);
}

static int make_image(const char *name, const char *size, char *path, size_t len)
{
	return make_image_opts(name, size, "", path, len);
}

static int read_file(const char *path, unsigned char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct stat st;

	if (!f || fstat(fileno(f), &st) < 0)
		return -1;
	*len = (size_t)st.st_size;
	*buf = malloc(*len);
	if (!*buf || fread(*buf, 1, *len, f) != *len) {
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

static int create(const char *img, const char *path, char *err, size_t errlen)
{
	struct vc_image w;
	int ret;

	ret = vc_test_open_writer(img, &w, err, errlen);
	if (ret < 0)
		return ret;
	ret = vc_offline_subvol_create(w.bfs, path, false, NULL, err, errlen);
	vc_image_close(&w);
	return ret;
}

/* btrfs check output on the image, normalised to the error lines */
static int check_clean(const char *img)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "btrfs check --readonly %s >/dev/null 2>&1", img);
	return run(cmd);
}

static int subvol_exists(const char *img, const char *path)
{
	struct vc_image w;
	char err[512];
	u64 root, dir;
	int ret;

	ret = vc_test_open_writer(img, &w, err, sizeof(err));
	if (ret < 0)
		return ret;
	ret = btrfs_resolve_dir(w.bfs, path, strlen(path), &root, &dir);
	vc_image_close(&w);
	if (ret < 0)
		return ret;
	return root != BTRFS_FS_TREE_OBJECTID && dir == BTRFS_FIRST_FREE_OBJECTID;
}

static void test_create_basic(void)
{
	char img[512], err[512];

	if (!CHECK(make_image("basic.img", "256M", img, sizeof(img)) == 0))
		return;
	CHECK(check_clean(img) == 0);
	CHECK(create(img, "/a", err, sizeof(err)) == 0);
	CHECK(subvol_exists(img, "/a") == 1);
	CHECK(check_clean(img) == 0);
	CHECK(create(img, "/a/b", err, sizeof(err)) == 0);
	CHECK(subvol_exists(img, "/a/b") == 1);
	CHECK(create(img, "/a", err, sizeof(err)) == -EEXIST);
	CHECK(create(img, "/nope/x", err, sizeof(err)) == -ENOENT);
	CHECK(check_clean(img) == 0);
}

static void test_many(void)
{
	char img[512], err[512], name[64];
	int fails = 0;

	if (!CHECK(make_image("many.img", "256M", img, sizeof(img)) == 0))
		return;
	for (int i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "/sv%03d", i);
		if (create(img, name, err, sizeof(err)) != 0) {
			fprintf(stderr, "create %s: %s\n", name, err);
			fails++;
		}
	}
	CHECK(fails == 0);
	CHECK(subvol_exists(img, "/sv099") == 1);
	CHECK(check_clean(img) == 0);
}

/* An error before the superblock write leaves the image byte-identical */
static void test_abort_untouched(void)
{
	char img[512], err[512];
	unsigned char *before = NULL, *after = NULL;
	size_t blen = 0, alen = 0;
	struct vc_image w;
	struct btrfs_trans_handle *trans;
	struct btrfs_subvol_create_args a = { .parent_root = 5, .parent_dir = 256,
					      .name = "x", .name_len = 1 };

	if (!CHECK(make_image("abort.img", "256M", img, sizeof(img)) == 0))
		return;
	CHECK(read_file(img, &before, &blen) == 0);
	CHECK(vc_test_open_writer(img, &w, err, sizeof(err)) == 0);
	CHECK(btrfs_start_transaction(w.bfs, &trans) == 0);
	CHECK(btrfs_subvol_create(trans, &a) == 0);
	btrfs_abort_transaction(trans);
	/* the same fs can run a new transaction after an abort */
	CHECK(btrfs_start_transaction(w.bfs, &trans) == 0);
	a.name = "y";
	CHECK(btrfs_subvol_create(trans, &a) == 0);
	{
		/* a tree that exists only in the aborted transaction is forgotten */
		struct btrfs_root *r;

		CHECK(btrfs_read_root(w.bfs, a.subvolid, &r) == 0);
		btrfs_abort_transaction(trans);
		CHECK(btrfs_read_root(w.bfs, a.subvolid, &r) == -ENOENT);
	}
	vc_image_close(&w);
	CHECK(read_file(img, &after, &alen) == 0);
	CHECK(blen == alen && before && after && memcmp(before, after, blen) == 0);
	free(before);
	free(after);
	CHECK(subvol_exists(img, "/x") == -ENOENT);
}

static int refusing_guard(void *priv, char *msg)
{
	(*(int *)priv)++;
	snprintf(msg, BTRFS_ERRMSG_SIZE, "t.img: loop device /dev/loop9 is mounted on /mnt");
	return -EBUSY;
}

/* The super guard's refusal stops a commit before its superblocks, with its message */
static void test_super_guard(void)
{
	char img[512], err[512];
	struct btrfs_super_block before, after;
	struct btrfs_super_guard guard = { .check = refusing_guard };
	int calls = 0;
	struct vc_image w;
	FILE *f;

	if (!CHECK(make_image("guard.img", "256M", img, sizeof(img)) == 0))
		return;
	f = fopen(img, "rb");
	CHECK(f && fseek(f, BTRFS_SUPER_INFO_OFFSET, SEEK_SET) == 0 &&
	      fread(&before, sizeof(before), 1, f) == 1);
	if (f)
		fclose(f);
	CHECK(vc_test_open_writer(img, &w, err, sizeof(err)) == 0);
	/* the writer installs its own guard (storage claims checked again) */
	CHECK(w.bfs->super_guard.check != NULL);
	guard.priv = &calls;
	btrfs_fs_set_super_guard(w.bfs, &guard);
	CHECK(vc_offline_subvol_create(w.bfs, "/x", false, NULL, err, sizeof(err)) == -EBUSY);
	CHECK(calls == 1);
	CHECK(strcmp(err, "t.img: loop device /dev/loop9 is mounted on /mnt") == 0);
	vc_image_close(&w);
	f = fopen(img, "rb");
	CHECK(f && fseek(f, BTRFS_SUPER_INFO_OFFSET, SEEK_SET) == 0 &&
	      fread(&after, sizeof(after), 1, f) == 1);
	if (f)
		fclose(f);
	CHECK(memcmp(&before, &after, sizeof(before)) == 0);
	CHECK(subvol_exists(img, "/x") == -ENOENT);
	CHECK(check_clean(img) == 0);
	/* the writer's own guard lets an unshared image be written */
	CHECK(create(img, "/x", err, sizeof(err)) == 0);
	CHECK(subvol_exists(img, "/x") == 1);
}

/* A new block that fails the tree-checker stops the commit before any write */
static void test_verify_before_write(void)
{
	char img[512], err[512];
	unsigned char *before = NULL, *after = NULL;
	size_t blen = 0, alen = 0;
	struct vc_image w;
	struct btrfs_trans_handle *trans;
	struct btrfs_subvol_create_args a = { .parent_root = 5, .parent_dir = 256,
					      .name = "v", .name_len = 1 };
	struct extent_buffer *leaf = NULL;

	if (!CHECK(make_image("verify.img", "256M", img, sizeof(img)) == 0))
		return;
	CHECK(read_file(img, &before, &blen) == 0);
	CHECK(vc_test_open_writer(img, &w, err, sizeof(err)) == 0);
	CHECK(btrfs_start_transaction(w.bfs, &trans) == 0);
	CHECK(btrfs_subvol_create(trans, &a) == 0);
	for (size_t i = 0; i < trans->nr_blocks; i++) {
		if (trans->blocks[i].owner == a.subvolid)
			leaf = trans->blocks[i].eb;
	}
	CHECK(leaf != NULL);
	if (leaf) {
		/* the new subvolume's leaf: make its two keys unsorted */
		struct btrfs_item *it = (struct btrfs_item *)(leaf->data + sizeof(struct btrfs_header));
		struct btrfs_key k = { 300, BTRFS_INODE_ITEM_KEY, 0 };

		btrfs_set_item_key(it, &k);
	}
	CHECK(btrfs_commit_transaction(trans) < 0);
	CHECK(strstr(btrfs_fs_error(w.bfs), "verification") != NULL ||
	      strstr(btrfs_fs_error(w.bfs), "key") != NULL);
	vc_image_close(&w);
	CHECK(read_file(img, &after, &alen) == 0);
	CHECK(blen == alen && before && after && memcmp(before, after, blen) == 0);
	free(before);
	free(after);
}

/*
 * ctree-write under stress: thousands of inserts into a new subvolume tree
 * (leaf and node splits, a new root level), then deleting them in a
 * scrambled order (emptied leaves removed, low keys fixed) in the same
 * transaction, or the next one; the image must be clean at the end (not in
 * between: the items belong to inodes that do not exist; their type,
 * TEMPORARY_ITEM, is one the tree-checker does not look into, so junk
 * payloads commit).
 */
static void test_insert_delete(const char *opts, int count, bool commit_between)
{
	char img[512], err[512];
	struct vc_image w;
	struct btrfs_trans_handle *trans;
	struct btrfs_subvol_create_args a = { .parent_root = 5, .parent_dir = 256,
					      .name = "stress", .name_len = 6 };
	struct btrfs_root *root;
	u8 data[120];
	int fails = 0;

	if (!CHECK(make_image_opts("stress.img", "256M", opts, img, sizeof(img)) == 0))
		return;
	CHECK(vc_test_open_writer(img, &w, err, sizeof(err)) == 0);
	CHECK(btrfs_start_transaction(w.bfs, &trans) == 0);
	CHECK(btrfs_subvol_create(trans, &a) == 0);
	CHECK(btrfs_read_root(w.bfs, a.subvolid, &root) == 0);
	memset(data, 0x5a, sizeof(data));
	for (int i = 0; i < count; i++) {
		struct btrfs_key k = { 1000 + (u64)i, BTRFS_TEMPORARY_ITEM_KEY, (u64)i * 7 };

		if (btrfs_insert_item(trans, root, &k, data, sizeof(data)))
			fails++;
	}
	CHECK(fails == 0);
	CHECK(btrfs_eb_level(root->node) >= 1);
	{
		/* the reader never changes a tree: the writer has its own search */
		struct btrfs_key k = { 1000, BTRFS_TEMPORARY_ITEM_KEY, 0 };
		struct btrfs_path path;

		btrfs_path_init(&path);
		CHECK(btrfs_search_cow(trans, root, &k, &path, 0) == 0);
		btrfs_path_release(&path);
		CHECK(btrfs_search_slot(trans, root, &k, &path, 0, 1) == -EROFS);
		CHECK(btrfs_search_slot(NULL, root, &k, &path, 1, 0) == -EROFS);
	}
	if (commit_between) {
		/* the deletes then copy and free blocks of the committed state */
		CHECK(btrfs_commit_transaction(trans) == 0);
		CHECK(btrfs_start_transaction(w.bfs, &trans) == 0);
	}
	for (int i = 0; i < count; i++) {
		/* 7919 is prime and does not divide count: a permutation */
		int j = (int)(((long)i * 7919) % count);
		struct btrfs_key k = { 1000 + (u64)j, BTRFS_TEMPORARY_ITEM_KEY, (u64)j * 7 };

		if (btrfs_delete_key(trans, root, &k))
			fails++;
	}
	CHECK(fails == 0);
	CHECK(btrfs_commit_transaction(trans) == 0);
	vc_image_close(&w);
	CHECK(subvol_exists(img, "/stress") == 1);
	CHECK(check_clean(img) == 0);
}

/* A second writer is locked out */
static void test_lock(void)
{
	char img[512], err[512];
	struct vc_image w1, w2;

	if (!CHECK(make_image("lock.img", "256M", img, sizeof(img)) == 0))
		return;
	CHECK(vc_test_open_writer(img, &w1, err, sizeof(err)) == 0);
	CHECK(vc_test_open_writer(img, &w2, err, sizeof(err)) == -EWOULDBLOCK);
	CHECK(strstr(err, "already open in this volctl") != NULL);
	vc_image_close(&w1);
}

/*
 * Leaf fill: @count items of 120 bytes into a new tree in key order, or in
 * a scrambled order, with 4 KiB nodes (27 such items a leaf).  In key order
 * every leaf but the last is full (a split in the middle left them half
 * empty); scrambled, the siblings take items before a leaf splits (about
 * 69% full without).  The leaves are counted in btrfs's own dump.
 */
static void test_leaf_fill(int count, bool scrambled)
{
	char img[512], err[512], cmd[1024];
	struct vc_image w;
	struct btrfs_trans_handle *trans;
	struct btrfs_subvol_create_args a = { .parent_root = 5, .parent_dir = 256,
					      .name = "fill", .name_len = 4 };
	struct btrfs_root *root;
	int fails = 0, per_leaf = (4096 - 101) / (120 + 25);
	int min_leaves = (count + per_leaf - 1) / per_leaf;
	u8 data[120];

	if (!CHECK(make_image_opts(scrambled ? "fill-s.img" : "fill.img", "256M", "-n 4096",
				   img, sizeof(img)) == 0))
		return;
	CHECK(vc_test_open_writer(img, &w, err, sizeof(err)) == 0);
	CHECK(btrfs_start_transaction(w.bfs, &trans) == 0);
	CHECK(btrfs_subvol_create(trans, &a) == 0);
	CHECK(btrfs_read_root(w.bfs, a.subvolid, &root) == 0);
	memset(data, 0xa5, sizeof(data));
	for (int i = 0; i < count; i++) {
		/* 7919 is prime and does not divide count: a permutation */
		int j = scrambled ? (int)(((long)i * 7919) % count) : i;
		struct btrfs_key k = { 1000 + (u64)j, BTRFS_TEMPORARY_ITEM_KEY, 0 };

		if (btrfs_insert_item(trans, root, &k, data, sizeof(data)))
			fails++;
	}
	CHECK(fails == 0);
	CHECK(btrfs_commit_transaction(trans) == 0);
	/* + 1: the leaf that also holds the root directory's items */
	snprintf(cmd, sizeof(cmd), "n=$(btrfs inspect-internal dump-tree -t %llu %s | "
		 "grep -c '^leaf [0-9]* items'); test $n -le %d || "
		 "{ echo \"$n leaves, not at most %d\" >&2; false; }",
		 (unsigned long long)a.subvolid, img,
		 scrambled ? min_leaves * 100 / 85 + 1 : min_leaves + 1,
		 scrambled ? min_leaves * 100 / 85 + 1 : min_leaves + 1);
	CHECK(run(cmd) == 0);
	/* the items name no inodes: gone again, btrfs check has the last word */
	CHECK(btrfs_start_transaction(w.bfs, &trans) == 0);
	for (int i = 0; i < count; i++) {
		struct btrfs_key k = { 1000 + (u64)i, BTRFS_TEMPORARY_ITEM_KEY, 0 };

		if (btrfs_delete_key(trans, root, &k))
			fails++;
	}
	CHECK(fails == 0);
	CHECK(btrfs_commit_transaction(trans) == 0);
	vc_image_close(&w);
	CHECK(check_clean(img) == 0);
}

/*
 * btrfs_trans_block_is_new() through the transaction's block index: true
 * for every block allocated in it, false once one is freed again and for
 * a committed block.
 */
static void test_block_is_new(void)
{
	char img[512], err[512];
	struct vc_image w;
	struct btrfs_trans_handle *trans;
	struct extent_buffer *eb[40], *old;
	int fails = 0;

	if (!CHECK(make_image("isnew.img", "256M", img, sizeof(img)) == 0))
		return;
	CHECK(vc_test_open_writer(img, &w, err, sizeof(err)) == 0);
	CHECK(btrfs_start_transaction(w.bfs, &trans) == 0);
	old = extent_buffer_get(w.bfs->tree_root->node);
	CHECK(!btrfs_trans_block_is_new(trans, old));
	for (int i = 0; i < 40; i++) {
		if (btrfs_alloc_tree_block(trans, 5, 0, &eb[i])) {
			eb[i] = NULL;
			fails++;
		}
	}
	CHECK(fails == 0);
	for (int i = 0; i < 40; i++)
		CHECK(eb[i] && btrfs_trans_block_is_new(trans, eb[i]));
	for (int i = 0; i < 40; i += 2)
		CHECK(eb[i] && btrfs_free_tree_block(trans, 5, eb[i]) == 0);
	for (int i = 0; i < 40; i++)
		CHECK(eb[i] && btrfs_trans_block_is_new(trans, eb[i]) == (i % 2 == 1));
	for (int i = 0; i < 40; i++)
		free_extent_buffer(eb[i]);
	btrfs_abort_transaction(trans);
	free_extent_buffer(old);
	vc_image_close(&w);
	CHECK(check_clean(img) == 0);
}

/* Node and leaf splits: many items in one transaction */
static void test_splits(const char *opts, int count)
{
	char img[512], err[512], name[64];
	struct vc_image w;
	struct btrfs_trans_handle *trans;
	int fails = 0;

	if (!CHECK(make_image_opts("split.img", "256M", opts, img, sizeof(img)) == 0))
		return;
	CHECK(vc_test_open_writer(img, &w, err, sizeof(err)) == 0);
	CHECK(btrfs_start_transaction(w.bfs, &trans) == 0);
	for (int i = 0; i < count; i++) {
		struct btrfs_subvol_create_args a = { .parent_root = 5, .parent_dir = 256 };

		snprintf(name, sizeof(name), "subvolume-with-a-long-name-%04d", i);
		a.name = name;
		a.name_len = strlen(name);
		if (btrfs_subvol_create(trans, &a))
			fails++;
	}
	CHECK(fails == 0);
	CHECK(btrfs_commit_transaction(trans) == 0);
	vc_image_close(&w);
	snprintf(name, sizeof(name), "/subvolume-with-a-long-name-%04d", count - 1);
	CHECK(subvol_exists(img, name) == 1);
	CHECK(check_clean(img) == 0);
}

/* The fault device lets N writes through, then fails without writing */
static void test_io_fault(void)
{
	static u8 mem[8192];
	u8 buf[512];
	struct btrfs_io_fault f = { .write_limit = 2 };
	struct btrfs_io_dev *inner, *dev;

	memset(buf, 0xab, sizeof(buf));
	CHECK(btrfs_io_open_memory(mem, sizeof(mem), false, true, &inner) == 0);
	CHECK(btrfs_io_open_fault(inner, &f, &dev) == 0);
	CHECK(btrfs_io_write(dev, buf, sizeof(buf), 0) == 0);
	CHECK(btrfs_io_write(dev, buf, sizeof(buf), 512) == 0);
	CHECK(btrfs_io_write(dev, buf, sizeof(buf), 1024) == -EIO);
	CHECK(mem[511] == 0xab && mem[1023] == 0xab && mem[1024] == 0);
	CHECK(f.writes == 2 && f.faults == 1);
	CHECK(btrfs_io_read(dev, buf, sizeof(buf), 1024) == 0 && buf[0] == 0);
	CHECK(btrfs_io_flush(dev) == 0);
	btrfs_io_close(dev);
	btrfs_io_close(inner);
}

/* What the fault device's recorder saw: writes (off, first byte) and flushes (off -1) */
struct io_trace {
	const struct btrfs_io_dev *dev;
	long long off[8];
	int first[8];
	int nr;
	int fail_at;		/* the recorder fails its Nth call (1-based; 0: never) */
};

static int trace_record(void *ctx, const struct btrfs_io_dev *dev, const void *buf, size_t len,
			u64 off)
{
	struct io_trace *t = ctx;

	(void)len;
	if (dev != t->dev || t->nr == 8)
		return -EINVAL;
	t->off[t->nr] = buf ? (long long)off : -1;
	t->first[t->nr] = buf ? *(const u8 *)buf : -1;
	return ++t->nr == t->fail_at ? -ENOSPC : 0;
}

/*
 * The recorder sees every write that reached the inner device and every
 * flush, in order, and never a write the limit failed; its error fails the op
 */
static void test_io_fault_record(void)
{
	static u8 mem[8192];
	u8 buf[512];
	struct io_trace t = { 0 };
	struct btrfs_io_fault f = { .write_limit = 3, .record = trace_record, .record_ctx = &t };
	struct btrfs_io_dev *inner, *dev;

	CHECK(btrfs_io_open_memory(mem, sizeof(mem), false, true, &inner) == 0);
	CHECK(btrfs_io_open_fault(inner, &f, &dev) == 0);
	t.dev = dev;
	memset(buf, 1, sizeof(buf));
	CHECK(btrfs_io_write(dev, buf, sizeof(buf), 4096) == 0);
	CHECK(btrfs_io_flush(dev) == 0);
	memset(buf, 2, sizeof(buf));
	CHECK(btrfs_io_write(dev, buf, sizeof(buf), 0) == 0);
	CHECK(t.nr == 3);
	CHECK(t.off[0] == 4096 && t.first[0] == 1);
	CHECK(t.off[1] == -1);
	CHECK(t.off[2] == 0 && t.first[2] == 2);
	/* the recorder's failure is the write's; the data is on the device already */
	t.fail_at = 4;
	CHECK(btrfs_io_write(dev, buf, sizeof(buf), 512) == -ENOSPC);
	CHECK(mem[512] == 2);
	/* past the limit: failed, not recorded */
	CHECK(btrfs_io_write(dev, buf, sizeof(buf), 1024) == -EIO);
	CHECK(t.nr == 4 && mem[1024] == 0);
	btrfs_io_close(dev);
	btrfs_io_close(inner);
}

/*
 * Device full (new metadata chunks until none fits): -ENOSPC with a message
 * naming the device, abort leaves the image as it was
 */
static void test_enospc(void)
{
	char img[512], err[512], name[64];
	unsigned char *before = NULL, *after = NULL;
	size_t blen = 0, alen = 0;
	struct vc_image w;
	struct btrfs_trans_handle *trans;
	int ret = 0, i;

	if (!CHECK(make_image_opts("enospc.img", "128M", "-m single -n 4096", img, sizeof(img)) == 0))
		return;
	CHECK(read_file(img, &before, &blen) == 0);
	CHECK(vc_test_open_writer(img, &w, err, sizeof(err)) == 0);
	CHECK(btrfs_start_transaction(w.bfs, &trans) == 0);
	for (i = 0; i < 200000 && ret == 0; i++) {
		struct btrfs_subvol_create_args a = { .parent_root = 5, .parent_dir = 256 };

		snprintf(name, sizeof(name), "s%05d", i);
		a.name = name;
		a.name_len = strlen(name);
		ret = btrfs_subvol_create(trans, &a);
	}
	CHECK(ret == -ENOSPC);
	CHECK(strstr(btrfs_fs_error(w.bfs), "no free space") != NULL);
	CHECK(strstr(btrfs_fs_error(w.bfs), "device 1 (") != NULL);
	btrfs_abort_transaction(trans);
	vc_image_close(&w);
	CHECK(read_file(img, &after, &alen) == 0);
	CHECK(blen == alen && before && after && memcmp(before, after, blen) == 0);
	free(before);
	free(after);
	CHECK(check_clean(img) == 0);
}

/* Several new chunks in one transaction: committed, check clean, chunk map kept */
static void test_chunks_one_transaction(void)
{
	char img[512], err[512], name[64], cmd[1024];
	struct vc_image w;
	struct btrfs_trans_handle *trans;
	size_t chunks_before;
	int ret = 0, i;

	if (!CHECK(make_image_opts("chunks.img", "128M", "-m single -n 4096", img, sizeof(img)) == 0))
		return;
	CHECK(vc_test_open_writer(img, &w, err, sizeof(err)) == 0);
	chunks_before = w.bfs->nr_chunks;
	CHECK(btrfs_start_transaction(w.bfs, &trans) == 0);
	for (i = 0; i < 8000 && ret == 0; i++) {
		struct btrfs_subvol_create_args a = { .parent_root = 5, .parent_dir = 256 };

		snprintf(name, sizeof(name), "c%05d", i);
		a.name = name;
		a.name_len = strlen(name);
		ret = btrfs_subvol_create(trans, &a);
	}
	CHECK_EQ_INT(ret, 0);
	CHECK(trans->alloc.nr_new_chunks >= 2);
	CHECK_EQ_INT(btrfs_commit_transaction(trans), 0);
	CHECK(w.bfs->nr_chunks >= chunks_before + 2);
	vc_image_close(&w);
	CHECK(check_clean(img) == 0);
	snprintf(cmd, sizeof(cmd), "test $(btrfs inspect-internal dump-tree -t chunk %s | "
		 "grep -c 'type METADATA') -ge 3", img);
	CHECK(run(cmd) == 0);
}

int main(void)
{
	char cmd[512];

	if (run("command -v mkfs.btrfs >/dev/null && command -v btrfs >/dev/null")) {
		UNIT_SKIP("test-writer: needs mkfs.btrfs and btrfs (btrfs-progs)");
		return unit_finish();
	}
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test-writer.XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	test_io_fault();
	test_io_fault_record();
	test_create_basic();
	test_enospc();
	test_chunks_one_transaction();
	test_abort_untouched();
	test_lock();
	test_super_guard();
	test_insert_delete("", 3000, false);
	test_insert_delete("-n 4096", 6000, false);
	test_insert_delete("-n 4096", 6000, true);
	test_verify_before_write();
	test_many();
	test_splits("", 300);
	test_leaf_fill(6000, false);
	test_leaf_fill(6000, true);
	test_block_is_new();
	/* 4 KiB nodes: the root tree and tree 5 grow to level 2 */
	test_splits("-n 4096", 1500);
	snprintf(cmd, sizeof(cmd), getenv("KEEP") ? "true %s" : "rm -rf %s", tmpdir);
	run(cmd);
	return unit_finish();
}
