// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the offline reader.
 *
 * The input is a sparse image: records of { le32 page index, 4096 bytes }
 * placed on a 512 MiB virtual device whose other pages read as zeros (a
 * custom struct btrfs_io_ops, so seeds stay small while the superblock at
 * 64 KiB, its mirror at 64 MiB and metadata tens of MiB in all fit).  A
 * trailing partial record is ignored.  Each input is opened, every tree
 * is walked, the free space tree is verified (fst-check.h), every tree's
 * items are iterated, a few searches with next/prev run, and the first
 * subvolumes are sized for send (full, and each against each as the
 * parent) and diffed against each other (the seed snap-4k has a snapshot
 * pair with renames, reflinks, xattrs).  Anything but a clean return is a
 * bug.
 *
 * Unless bit 31 of the first record's page index is set, the device
 * recomputes the checksum of every superblock and tree block it returns,
 * so that mutations get past the checksum to the structural checks.
 *
 * tests/fuzz/make-seeds.sh turns mkfs.btrfs images into seeds;
 * tests/unit/test-reader-fuzz.c replays seeds/ and regress/ in the unit
 * tests (and under ASan in make check-asan).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "kernel-shared/csum.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/fs.h"
#include "kernel-shared/fst-check.h"
#include "kernel-shared/send-size.h"
#include "kernel-shared/subvol-diff.h"
#include "kernel-shared/walk.h"

#define FZ_PAGE		4096U
#define FZ_DEV_SIZE	(512ULL << 20)
#define FZ_MAX_PAGES	4096U

struct fz_page {
	u64 index;
	const u8 *data;
};

struct fz_image {
	struct fz_page *pages;	/* sorted by index, later records win */
	size_t nr;
	bool fix_csum;		/* recompute checksums on read */
	u32 nodesize;
	u16 csum_type;
};

static int fz_cmp(const void *a, const void *b)
{
	const struct fz_page *x = a, *y = b;

	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	return x->data < y->data ? -1 : (x->data > y->data);
}

static const u8 *fz_find(const struct fz_image *im, u64 index)
{
	size_t lo = 0, hi = im->nr;
	const u8 *found = NULL;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (im->pages[mid].index < index) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	while (lo < im->nr && im->pages[lo].index == index)
		found = im->pages[lo++].data;
	return found;
}

/*
 * Most mutations break a checksum and stop at the first check.  In fix mode
 * the device recomputes the checksum of whatever looks like a superblock or
 * tree block read, so mutations reach the structural checks behind it.
 */
static void fz_fix_csum(const struct fz_image *im, u8 *buf, size_t len, u64 off)
{
	u8 csum[BTRFS_CSUM_MAX_SIZE];

	if (len == BTRFS_SUPER_INFO_SIZE &&
	    (off == btrfs_sb_offset(0) || off == btrfs_sb_offset(1) || off == btrfs_sb_offset(2))) {
		btrfs_super_csum_update((struct btrfs_super_block *)buf);
		return;
	}
	if (len != im->nodesize || len <= BTRFS_CSUM_SIZE)
		return;
	if (btrfs_csum_data(im->csum_type, buf + BTRFS_CSUM_SIZE, len - BTRFS_CSUM_SIZE, csum) == 0)
		memcpy(buf, csum, BTRFS_CSUM_SIZE);
}

static int fz_pread(struct btrfs_io_dev *dev, void *buf, size_t len, u64 off)
{
	const struct fz_image *im = dev->priv;
	u8 *out = buf;

	while (len) {
		u64 index = off / FZ_PAGE;
		u32 in = (u32)(off % FZ_PAGE);
		size_t n = FZ_PAGE - in < len ? FZ_PAGE - in : len;
		const u8 *page = fz_find(im, index);

		if (page)
			memcpy(out, page + in, n);
		else
			memset(out, 0, n);
		out += n;
		off += n;
		len -= n;
	}
	if (im->fix_csum)
		fz_fix_csum(im, buf, out - (u8 *)buf, off - (u64)(out - (u8 *)buf));
	return 0;
}

static const struct btrfs_io_ops fz_ops = {
	.name = "fuzz",
	.pread = fz_pread,
};

static int fz_cb(void *priv, const struct extent_buffer *eb, const struct btrfs_walk_info *info)
{
	(*(u64 *)priv) += btrfs_eb_nritems(eb);
	return 0;
}

static int fz_item(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	const u8 *p = data;
	u64 *sum = priv;

	/* touch every byte so ASan sees any out-of-bounds item */
	for (u32 i = 0; i < len; i++)
		*sum += p[i];
	*sum += key->objectid;
	return 0;
}

static void fz_search(struct btrfs_fs *fs, u64 id)
{
	struct btrfs_key keys[3] = {
		{ 0, 0, 0 }, { 256, BTRFS_INODE_ITEM_KEY, 0 }, { (u64)-1, 0xff, (u64)-1 },
	};
	struct btrfs_root *root;
	struct btrfs_path path;

	if (btrfs_read_root(fs, id, &root) < 0)
		return;
	btrfs_path_init(&path);
	for (int i = 0; i < 3; i++) {
		int ret = btrfs_search_slot(NULL, root, &keys[i], &path, 0, 0);

		if (ret < 0)
			continue;
		for (int n = 0; n < 50 && btrfs_next_item(root, &path) == 0; n++)
			;
		for (int n = 0; n < 100 && btrfs_prev_item(root, &path) == 0; n++)
			;
	}
	btrfs_path_release(&path);
}

/* sizes and diffs computed (the seeds' replay checks that some are) */
static unsigned long fz_sends;

/* send-size and diff of the first subvolumes: what they read is untrusted too */
static void fz_send(struct btrfs_fs *fs)
{
	for (u64 a = 256; a < 260; a++) {
		struct btrfs_send_size out;

		if (btrfs_send_size(fs, a, &out) == -ENOENT)
			continue;
		for (u64 b = 256; b < 260; b++) {
			struct btrfs_diff d;

			if (a == b)
				continue;
			if (btrfs_send_size_from(fs, b, a, NULL, 0, &out) == 0)
				fz_sends++;
			if (btrfs_subvol_diff(fs, a, b, &d) == 0) {
				fz_sends += d.nr > 0;
				btrfs_diff_release(&d);
			}
		}
	}
}

/* Open and read everything; the open result, *items counts leaf items walked */
static int fz_run(const uint8_t *data, size_t size, u64 *items)
{
	static const u64 ids[] = { 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 256, (u64)-9 };
	struct btrfs_key min = { 0, 0, 0 }, max = { (u64)-1, 0xff, (u64)-1 };
	struct btrfs_open_args args = { 0 };
	struct fz_image im = { 0 };
	struct btrfs_io_dev dev = { 0 };
	struct btrfs_io_dev *devp = &dev;
	struct btrfs_fs *fs = NULL;
	char errmsg[BTRFS_ERRMSG_SIZE];
	u64 sum = 0;
	size_t rec = 4 + FZ_PAGE;
	int ret;

	im.nr = size / rec;
	if (im.nr > FZ_MAX_PAGES)
		im.nr = FZ_MAX_PAGES;
	im.pages = calloc(im.nr ? im.nr : 1, sizeof(*im.pages));
	if (!im.pages)
		return -ENOMEM;
	for (size_t i = 0; i < im.nr; i++) {
		im.pages[i].index = get_le32(data + i * rec) % (FZ_DEV_SIZE / FZ_PAGE);
		im.pages[i].data = data + i * rec + 4;
	}
	/* bit 31 of the first record's index turns checksum fixing off */
	im.fix_csum = !(im.nr && (get_le32(data) & 0x80000000U));
	qsort(im.pages, im.nr, sizeof(*im.pages), fz_cmp);
	{
		const u8 *sbp = fz_find(&im, BTRFS_SUPER_INFO_OFFSET / FZ_PAGE);

		if (sbp) {
			const struct btrfs_super_block *sb = (const void *)sbp;

			im.nodesize = btrfs_super_nodesize(sb);
			im.csum_type = btrfs_super_csum_type(sb);
		}
	}
	dev.ops = &fz_ops;
	dev.priv = &im;
	dev.size = FZ_DEV_SIZE;
	strcpy(dev.name, "fuzz");

	args.devs = &devp;
	args.nr_devs = 1;
	args.super_mirror = BTRFS_SUPER_PRIMARY;
	args.cache_blocks = 64;
	args.errmsg = errmsg;
	*items = 0;
	ret = btrfs_fs_open(&fs, &args);
	if (ret == 0) {
		struct btrfs_item_source src = btrfs_fs_item_source(fs);

		btrfs_walk_all_trees(fs, false, fz_cb, items);
		btrfs_walk_all_trees(fs, true, fz_cb, &sum);
		{
			struct btrfs_fst_stats fst;

			/* every length it reads is untrusted: findings or errors, never a hang */
			btrfs_fst_check(fs, NULL, NULL, &fst);
		}
		for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
			btrfs_item_source_search(&src, ids[i], &min, &max, fz_item, &sum);
			fz_search(fs, ids[i]);
		}
		fz_send(fs);
		btrfs_fs_close(fs);
	}
	free(im.pages);
	(void)sum;
	return ret;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	u64 items;

	fz_run(data, size, &items);
	return 0;
}
