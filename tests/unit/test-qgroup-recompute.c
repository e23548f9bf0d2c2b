// SPDX-License-Identifier: GPL-2.0-only
/*
 * Exact qgroup numbers at commit and the commit's limit check
 * (kernel-shared/qgroup-recompute.c), through the library calls.
 *
 * Images are made by mkfs.btrfs (4 KiB nodes, quotas, 120 files at the top
 * level, so the tree has several levels) in a temporary directory; skipped
 * with a note when mkfs.btrfs is missing.  The oracle is the accounting
 * engine run on the committed image and `btrfs check --readonly`.  The CLI
 * side is in tests/cli/offline-qgroup-limits.bats, check-repair.bats and
 * tests/mounted/offline-qgroup-exact.bats.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "unit.h"
#include "image-writer.h"
#include "common/backend/offline-write-subvol.h"
#include "kernel-shared/fs.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/accounting.h"
#include "kernel-shared/qgroup-list.h"
#include "kernel-shared/qgroup-items.h"
#include "kernel-shared/qgroup-write.h"
#include "kernel-shared/qgroup-recompute.h"
#include "kernel-shared/subvol-create.h"
#include "kernel-shared/transaction.h"

static char tmpdir[256];

static int run(const char *cmd)
{
	int ret = system(cmd);

	return ret == -1 ? -1 : WEXITSTATUS(ret);
}

static int make_image(const char *name, char *path, size_t len)
{
	char cmd[2048];

	snprintf(path, len, "%s/%s", tmpdir, name);
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/root/d && for i in $(seq 1 120); do head -c $((8192 + i * 512)) "
		 "/dev/urandom >%s/root/d/f$i; done && truncate -s 256M %s && "
		 "mkfs.btrfs -q -f -n 4096 -R quota --rootdir %s/root %s >/dev/null 2>&1",
		 tmpdir, tmpdir, path, tmpdir, path);
	return run(cmd);
}

static int check_clean(const char *img)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "btrfs check --readonly %s >/dev/null 2>&1", img);
	return run(cmd);
}

/* Every qgroup's recorded numbers equal the engine's, and the status is clean */
static void check_exact(struct btrfs_fs *fs)
{
	struct btrfs_item_source src = btrfs_fs_item_source(fs);
	struct btrfs_qgroup_list list = { 0 };
	struct btrfs_acct_counts *counts;
	struct btrfs_acct *acct = NULL;
	size_t differ = 0;

	CHECK(btrfs_qgroup_list_load(&src, &list) == 0);
	CHECK(!(list.status.flags & (BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT |
				     BTRFS_QGROUP_STATUS_FLAG_RESCAN)));
	counts = calloc(list.nr + 1, sizeof(*counts));
	CHECK(counts && btrfs_acct_run(fs, NULL, &acct) == 0);
	if (counts && acct) {
		CHECK(btrfs_acct_qgroups(acct, &list, counts) == 0);
		for (size_t i = 0; i < list.nr; i++)
			differ += list.groups[i].info.rfer != counts[i].rfer ||
				  list.groups[i].info.excl != counts[i].excl;
	}
	CHECK_EQ_U64(differ, 0);
	CHECK(list.nr >= 1);
	btrfs_acct_free(acct);
	free(counts);
	btrfs_qgroup_list_release(&list);
}

static u64 info_excl(struct btrfs_fs *fs, u64 qgroupid)
{
	struct btrfs_item_source src = btrfs_fs_item_source(fs);
	struct btrfs_qgroup_list list = { 0 };
	const struct btrfs_qgroup *g;
	u64 excl = 0;

	if (btrfs_qgroup_list_load(&src, &list) == 0) {
		g = btrfs_qgroup_list_find(&list, qgroupid);
		excl = g ? g->info.excl : 0;
	}
	btrfs_qgroup_list_release(&list);
	return excl;
}

/* A new subvolume @name in directory @dir ("/" or "/d") of the top level */
static int create_in(struct btrfs_fs *fs, const char *dir, const char *name, bool *recomputed)
{
	struct btrfs_subvol_create_args a = {
		.name = name,
		.name_len = strlen(name),
		.now_sec = 1,
	};
	struct btrfs_trans_handle *trans;
	int ret;

	ret = btrfs_resolve_dir(fs, dir, strlen(dir), &a.parent_root, &a.parent_dir);
	if (ret < 0)
		return ret;
	ret = btrfs_start_transaction(fs, &trans);
	if (ret < 0)
		return ret;
	ret = btrfs_subvol_create(trans, &a);
	if (ret < 0) {
		btrfs_abort_transaction(trans);
		return ret;
	}
	*recomputed = trans->qgroup_recompute;
	return btrfs_commit_transaction(trans);
}

/* A copy of blocks shared with a snapshot: the commit recounts every group */
static void test_recompute_at_commit(void)
{
	char img[512], err[512];
	struct vc_image w;
	bool recomputed = false;

	if (!CHECK(make_image("exact.img", img, sizeof(img)) == 0))
		return;
	CHECK(vc_test_open_writer(img, &w, err, sizeof(err)) == 0);
	if (!w.bfs)
		return;
	CHECK(vc_offline_snapshot(w.bfs, "/", "/s1", false, NULL, err, sizeof(err)) == 0);
	check_exact(w.bfs);
	/*
	 * The top level is shared with s1 now, but for the path to its root
	 * directory, which the link of s1 copied (after the copy, as the
	 * kernel): a new entry in /d copies shared blocks
	 */
	CHECK(create_in(w.bfs, "/d", "a", &recomputed) == 0);
	CHECK(recomputed);
	check_exact(w.bfs);
	/* the path to the root directory is the top level's own: plain deltas */
	recomputed = true;
	CHECK(create_in(w.bfs, "/", "b", &recomputed) == 0);
	CHECK(!recomputed);
	check_exact(w.bfs);
	vc_image_close(&w);
	CHECK(check_clean(img) == 0);
	/* reopened from disk: what was written is what was computed */
	CHECK(vc_test_open_writer(img, &w, err, sizeof(err)) == 0);
	if (w.bfs)
		check_exact(w.bfs);
	vc_image_close(&w);
}

static int read_all(const char *path, unsigned char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct stat st;

	*buf = NULL;
	if (!f || fstat(fileno(f), &st) < 0) {
		if (f)
			fclose(f);
		return -1;
	}
	*len = (size_t)st.st_size;
	*buf = malloc(*len);
	if (!*buf || fread(*buf, 1, *len, f) != *len) {
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

/* Growth of a snapshot's exclusive bytes past its limit: refused at commit, image as it was */
static void test_limit_at_commit(void)
{
	char img[512], err[512];
	unsigned char *before = NULL, *after = NULL;
	size_t blen = 0, alen = 0;
	struct btrfs_trans_handle *trans;
	struct vc_image w;
	bool recomputed = false;
	u64 excl;
	int ret;

	if (!CHECK(make_image("limit.img", img, sizeof(img)) == 0))
		return;
	CHECK(vc_test_open_writer(img, &w, err, sizeof(err)) == 0);
	if (!w.bfs)
		return;
	CHECK(vc_offline_snapshot(w.bfs, "/", "/s1", false, NULL, err, sizeof(err)) == 0);
	excl = info_excl(w.bfs, 256);
	CHECK(excl > 0);
	CHECK(btrfs_start_transaction(w.bfs, &trans) == 0);
	CHECK(btrfs_qgroup_limit(trans, 256, BTRFS_QGROUP_LIMIT_MAX_EXCL, 0, excl) == 0);
	CHECK(btrfs_commit_transaction(trans) == 0);
	vc_image_close(&w);
	CHECK(read_all(img, &before, &blen) == 0);

	CHECK(vc_test_open_writer(img, &w, err, sizeof(err)) == 0);
	if (!w.bfs)
		goto out;
	btrfs_fs_clear_error(w.bfs);
	ret = create_in(w.bfs, "/d", "a", &recomputed);
	CHECK_EQ_U64((u64)-ret, EDQUOT);
	CHECK(strstr(btrfs_fs_error(w.bfs), "qgroup 0/256: exclusive limit") != NULL);
	/* the refusal as values, for the command's message */
	{
		const struct btrfs_limit_refusal *r = btrfs_fs_limit_refusal(w.bfs);
		char words[160];

		if (CHECK(r != NULL)) {
			CHECK_EQ_U64(r->qgroupid, 256);
			CHECK(r->exclusive);
			CHECK_EQ_U64(r->limit, excl);
			CHECK(r->over > 0);
			CHECK_EQ_U64(r->reserve, 0);
			snprintf(words, sizeof(words), "qgroup 0/256: exclusive limit %llu would be "
				 "exceeded by %llu bytes", (unsigned long long)r->limit,
				 (unsigned long long)r->over);
			CHECK(!strcmp(btrfs_fs_error(w.bfs), words));
		}
		btrfs_fs_clear_error(w.bfs);
		CHECK(btrfs_fs_limit_refusal(w.bfs) == NULL);
	}
	vc_image_close(&w);
	CHECK(read_all(img, &after, &alen) == 0);
	CHECK(blen == alen && before && after && memcmp(before, after, blen) == 0);

	/* the same write with limits ignored (as delete does) goes through */
	CHECK(vc_test_open_writer(img, &w, err, sizeof(err)) == 0);
	if (!w.bfs)
		goto out;
	CHECK(btrfs_start_transaction(w.bfs, &trans) == 0);
	btrfs_trans_ignore_qgroup_limits(trans);
	{
		struct btrfs_subvol_create_args a = {
			.name = "a", .name_len = 1, .now_sec = 1,
		};

		CHECK(btrfs_resolve_dir(w.bfs, "/d", 2, &a.parent_root, &a.parent_dir) == 0);
		CHECK(btrfs_subvol_create(trans, &a) == 0);
	}
	CHECK(btrfs_commit_transaction(trans) == 0);
	CHECK(info_excl(w.bfs, 256) > excl);
	check_exact(w.bfs);
	vc_image_close(&w);
	CHECK(check_clean(img) == 0);
out:
	free(before);
	free(after);
}

/* Repair: wrong numbers found, named and rewritten; a second run finds none */
static void test_repair(void)
{
	char img[512], err[512];
	struct btrfs_qgroup_repair_result r;
	struct btrfs_trans_handle *trans;
	struct btrfs_root *quota;
	struct vc_image w;

	if (!CHECK(make_image("repair.img", img, sizeof(img)) == 0))
		return;
	CHECK(vc_test_open_writer(img, &w, err, sizeof(err)) == 0);
	if (!w.bfs)
		return;
	/* write wrong numbers for 0/5 */
	CHECK(btrfs_start_transaction(w.bfs, &trans) == 0);
	CHECK(btrfs_read_root(w.bfs, BTRFS_QUOTA_TREE_OBJECTID, &quota) == 0);
	CHECK(btrfs_qgroup_write_info(trans, quota, 5, 12345 * 4096, 4096) == 0);
	btrfs_trans_ignore_qgroup_limits(trans);
	CHECK(btrfs_commit_transaction(trans) == 0);

	CHECK(btrfs_start_transaction(w.bfs, &trans) == 0);
	CHECK(btrfs_qgroup_repair(trans, &r) == 0);
	CHECK(btrfs_commit_transaction(trans) == 0);
	CHECK_EQ_U64(r.nr_fixes, 1);
	CHECK(r.nr_groups >= 1);
	if (r.nr_fixes == 1) {
		CHECK_EQ_U64(r.fixes[0].qgroupid, 5);
		CHECK_EQ_U64(r.fixes[0].old_rfer, 12345 * 4096);
		CHECK(r.fixes[0].rfer != r.fixes[0].old_rfer);
	}
	free(r.fixes);
	check_exact(w.bfs);
	CHECK(btrfs_start_transaction(w.bfs, &trans) == 0);
	CHECK(btrfs_qgroup_repair(trans, &r) == 0);
	btrfs_abort_transaction(trans);
	CHECK_EQ_U64(r.nr_fixes, 0);
	free(r.fixes);
	vc_image_close(&w);
	CHECK(check_clean(img) == 0);
}

int main(void)
{
	char cmd[512];

	if (run("command -v mkfs.btrfs >/dev/null && command -v btrfs >/dev/null")) {
		UNIT_SKIP("test-qgroup-recompute: needs mkfs.btrfs and btrfs (btrfs-progs)");
		return unit_finish();
	}
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test-qgroup-recompute.XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	test_recompute_at_commit();
	test_limit_at_commit();
	test_repair();
	snprintf(cmd, sizeof(cmd), getenv("KEEP") ? "true %s" : "rm -rf %s", tmpdir);
	run(cmd);
	return unit_finish();
}
