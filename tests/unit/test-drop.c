// SPDX-License-Identifier: GPL-2.0-only
/*
 * Checksum range deletion (extent-free.c) and the B-tree edge cases a drop
 * reaches (ctree-write.c): an item cut in two inside a leaf it fills alone
 * (the tail gets a leaf of its own), and a multi-level tree emptied to its
 * last item (its leaf becomes the empty root).
 *
 * Runs on a mkfs.btrfs image with 4 KiB nodes in a temporary directory
 * (skipped without mkfs.btrfs); `btrfs check --readonly` is the oracle
 * after the commit.  The kernel round trips are in
 * tests/mounted/offline-drop.bats.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "unit.h"
#include "image-writer.h"
#include "kernel-shared/fs.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/ctree-write.h"
#include "kernel-shared/transaction.h"
#include "kernel-shared/extent-free.h"

#define SECTORS_PER_ITEM	990	/* 3960 bytes of crc32c: one item fills a 4 KiB leaf */
#define ITEM_STRIDE		(1000ULL * 4096)
#define NR_ITEMS		30

static char tmpdir[256];

static int run(const char *cmd)
{
	int ret = system(cmd);

	return ret == -1 ? -1 : WEXITSTATUS(ret);
}

static u64 item_start(int i)
{
	return (1ULL << 30) + (u64)i * ITEM_STRIDE;
}

struct seen {
	u64 offsets[4 * NR_ITEMS];
	u32 lens[4 * NR_ITEMS];
	u32 first[4 * NR_ITEMS];	/* first checksum word: which sector it covers */
	int nr;
};

static int seen_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct seen *s = priv;

	if (s->nr < 4 * NR_ITEMS) {
		s->offsets[s->nr] = key->offset;
		s->lens[s->nr] = len;
		s->first[s->nr] = len >= 4 ? get_le32(data) : 0;
		s->nr++;
	}
	return 0;
}

static void csum_items(struct btrfs_root *root, struct seen *s)
{
	struct btrfs_key min = { BTRFS_EXTENT_CSUM_OBJECTID, BTRFS_EXTENT_CSUM_KEY, 0 };
	struct btrfs_key max = { BTRFS_EXTENT_CSUM_OBJECTID, BTRFS_EXTENT_CSUM_KEY, (u64)-1 };

	memset(s, 0, sizeof(*s));
	CHECK(btrfs_iterate_items(root, &min, &max, seen_cb, s) == 0);
}

static void test_csum_cut(void)
{
	char img[300], cmd[1024], err[512];
	struct btrfs_trans_handle *trans;
	struct btrfs_root *root;
	struct vc_image w;
	struct seen s;
	u8 data[SECTORS_PER_ITEM * 4];
	int fails = 0;

	snprintf(img, sizeof(img), "%s/csum.img", tmpdir);
	snprintf(cmd, sizeof(cmd), "truncate -s 256M %s && mkfs.btrfs -q -f -n 4096 %s >/dev/null 2>&1",
		 img, img);
	if (!CHECK(run(cmd) == 0))
		return;
	CHECK(vc_test_open_writer(img, &w, err, sizeof(err)) == 0);
	CHECK(btrfs_start_transaction(w.bfs, &trans) == 0);
	CHECK(btrfs_read_root(w.bfs, BTRFS_CSUM_TREE_OBJECTID, &root) == 0);
	for (int i = 0; i < NR_ITEMS; i++) {
		struct btrfs_key k = { BTRFS_EXTENT_CSUM_OBJECTID, BTRFS_EXTENT_CSUM_KEY,
				       item_start(i) };

		/* each checksum word names its sector */
		for (u32 j = 0; j < SECTORS_PER_ITEM; j++)
			put_le32(data + 4 * j, (u32)(k.offset / 4096) + j);
		if (btrfs_insert_item(trans, root, &k, data, sizeof(data)))
			fails++;
	}
	CHECK(fails == 0);
	CHECK(btrfs_eb_level(root->node) >= 1);

	/* a hole in the middle of item 5: head stays, the tail gets its own leaf */
	CHECK(btrfs_csum_delete_range(trans, item_start(5) + 100 * 4096, 2 * 4096) == 0);
	/* the end of item 6 and the start of item 7, across the gap between them */
	CHECK(btrfs_csum_delete_range(trans, item_start(6) + 980 * 4096,
				      ITEM_STRIDE - 980 * 4096 + 4 * 4096) == 0);
	/* exactly item 8; a range with no checksums */
	CHECK(btrfs_csum_delete_range(trans, item_start(8), SECTORS_PER_ITEM * 4096) == 0);
	CHECK(btrfs_csum_delete_range(trans, item_start(9) + SECTORS_PER_ITEM * 4096, 4096) == 0);
	CHECK(btrfs_csum_delete_range(trans, 4096, 4095) == -EUCLEAN);

	csum_items(root, &s);
	CHECK(s.nr == NR_ITEMS);	/* +1 tail of 5, -1 item 8 */
	for (int i = 0; i < s.nr; i++) {
		if (s.offsets[i] == item_start(5)) {
			CHECK_EQ_U64(s.lens[i], 100 * 4);
		} else if (s.offsets[i] == item_start(5) + 102 * 4096) {
			CHECK_EQ_U64(s.lens[i], (SECTORS_PER_ITEM - 102) * 4);
			CHECK_EQ_U64(s.first[i], item_start(5) / 4096 + 102);
		} else if (s.offsets[i] == item_start(6)) {
			CHECK_EQ_U64(s.lens[i], 980 * 4);
		} else if (s.offsets[i] == item_start(7) + 4 * 4096) {
			CHECK_EQ_U64(s.lens[i], (SECTORS_PER_ITEM - 4) * 4);
			CHECK_EQ_U64(s.first[i], item_start(7) / 4096 + 4);
		} else {
			CHECK(s.offsets[i] != item_start(8) && s.offsets[i] != item_start(7));
			CHECK_EQ_U64(s.lens[i], SECTORS_PER_ITEM * 4);
			CHECK_EQ_U64(s.first[i], s.offsets[i] / 4096);
		}
	}

	/* everything: the multi-level tree ends as one empty root leaf */
	CHECK(btrfs_csum_delete_range(trans, 1ULL << 30, (u64)NR_ITEMS * ITEM_STRIDE) == 0);
	csum_items(root, &s);
	CHECK(s.nr == 0);
	CHECK(btrfs_eb_level(root->node) == 0);
	CHECK(btrfs_eb_nritems(root->node) == 0);
	CHECK(btrfs_commit_transaction(trans) == 0);
	vc_image_close(&w);
	snprintf(cmd, sizeof(cmd), "btrfs check --readonly %s >/dev/null 2>&1", img);
	CHECK(run(cmd) == 0);
}

int main(void)
{
	char cmd[512];

	if (run("command -v mkfs.btrfs >/dev/null && command -v btrfs >/dev/null")) {
		UNIT_SKIP("test-drop: needs mkfs.btrfs and btrfs (btrfs-progs)");
		return unit_finish();
	}
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test-drop.XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	test_csum_cut();
	snprintf(cmd, sizeof(cmd), getenv("KEEP") ? "true %s" : "rm -rf %s", tmpdir);
	run(cmd);
	return unit_finish();
}
