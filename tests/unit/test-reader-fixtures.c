// SPDX-License-Identifier: GPL-2.0-only
/*
 * The reader on the committed kernel-made fixture images
 * (tests/fixtures/<shape>.img.zst: subvolumes, snapshots sharing blocks, quotas,
 * simple quotas, several checksum types, a two-device raid1).  Each image
 * is decompressed to the scratch directory, opened (with its .devN
 * companions), walked with and without the visited set, and, for single
 * device images, compared tree by tree with dump-tree.
 */
#include <dirent.h>
#include "reader-harness.h"
#include "kernel-shared/tree-scan.h"

#ifndef VOLCTL_SRCDIR
#define VOLCTL_SRCDIR ""	/* make check-unit runs from the top of the tree */
#endif

static int count_cb2(void *priv, const struct extent_buffer *eb,
		     const struct btrfs_walk_info *info)
{
	(*(u64 *)priv)++;
	return 0;
}

/* Items of a tree folded into a count and an FNV-1a hash of keys, sizes and bytes */
struct item_sum {
	u64 items;
	u64 hash;
	u64 stop_after;		/* return 1 after this many items; 0: never */
};

static void fold(u64 *h, const void *p, size_t n)
{
	const u8 *b = p;

	for (size_t i = 0; i < n; i++)
		*h = (*h ^ b[i]) * 0x100000001b3ULL;
}

static int sum_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct item_sum *s = priv;

	s->items++;
	fold(&s->hash, &key->objectid, sizeof(key->objectid));
	fold(&s->hash, &key->type, sizeof(key->type));
	fold(&s->hash, &key->offset, sizeof(key->offset));
	fold(&s->hash, &len, sizeof(len));
	fold(&s->hash, data, len);
	return s->stop_after && s->items == s->stop_after;
}

/* btrfs_scan_tree_items() hands out exactly what btrfs_iterate_items() does */
static void compare_scan(const char *base, struct btrfs_fs *fs, const struct stats *st)
{
	const struct btrfs_key min = { 0, 0, 0 };
	const struct btrfs_key max = { (u64)-1, (u8)-1, (u64)-1 };
	int compared = 0;

	for (int i = 0; i < st->nr; i++) {
		struct item_sum a = { .hash = 0xcbf29ce484222325ULL };
		struct item_sum b = a, c = a;
		struct btrfs_root *root;
		int ra, rb;

		if (btrfs_read_root(fs, st->t[i].id, &root))
			continue;
		ra = btrfs_iterate_items(root, &min, &max, sum_cb, &a);
		rb = btrfs_scan_tree_items(root, sum_cb, &b);
		CHECK(ra == 0 && rb == 0 && a.items == b.items && a.hash == b.hash,
		      "%s tree %llu: iterate %d (%llu items) scan %d (%llu items)", base,
		      (unsigned long long)st->t[i].id, ra, (unsigned long long)a.items, rb,
		      (unsigned long long)b.items);
		/* a callback returning 1 stops the scan there, without an error */
		c.stop_after = a.items > 1 ? a.items / 2 : 1;
		rb = btrfs_scan_tree_items(root, sum_cb, &c);
		CHECK(rb == 0 && c.items == (a.items ? c.stop_after : 0), "%s tree %llu: stop at %llu: %d, %llu",
		      base, (unsigned long long)st->t[i].id, (unsigned long long)c.stop_after, rb,
		      (unsigned long long)c.items);
		compared++;
	}
	CHECK(compared >= 3, "%s: %d trees scanned", base, compared);
}

static void test_fixture(const char *dir, const char *name)
{
	char base[256], err[BTRFS_ERRMSG_SIZE];
	const char *paths[4];
	struct btrfs_io_dev *devs[4] = { 0 };
	struct btrfs_fs *fs;
	struct stats s;
	size_t n = 0;
	u64 all = 0, unique = 0;
	bool squota = false;
	int ret;

	snprintf(base, sizeof(base), "%.*s", (int)(strlen(name) - strlen(".img.zst")), name);
	if (strstr(base, ".dev"))
		return;		/* a companion, opened with its first device */
	for (int d = 1; d <= 4 && n < 4; d++) {
		char src[512], dst[300];

		if (d == 1) {
			snprintf(src, sizeof(src), "%s/%s.img.zst", dir, base);
			snprintf(dst, sizeof(dst), "%s.img", base);
		} else {
			snprintf(src, sizeof(src), "%s/%s.dev%d.img.zst", dir, base, d);
			snprintf(dst, sizeof(dst), "%s.dev%d.img", base, d);
		}
		if (access(src, R_OK))
			continue;
		ret = sh("zstd -q -d -f '%s' -o '%s'", src, tpath(dst));
		CHECK(ret == 0, "%s: zstd", src);
		if (ret)
			return;
		paths[n++] = strdup(tpath(dst));
	}
	ret = open_files(paths, n, devs, &fs, err);
	CHECK(ret == 0, "%s: open: %d %s", base, ret, err);
	if (ret)
		goto out;
	ret = walk_stats(fs, &s);
	CHECK(ret == 0, "%s: walk: %d %s", base, ret, btrfs_fs_error(fs));
	compare_scan(base, fs, &s);
	/* Debian's dump-tree 6.2 does not know simple quotas: no oracle */
	squota = btrfs_fs_has_incompat(fs, BTRFS_FEATURE_INCOMPAT_SIMPLE_QUOTA);
	ret = btrfs_walk_all_trees(fs, false, count_cb2, &all);
	CHECK(ret == 0, "%s: walk all: %d", base, ret);
	ret = btrfs_walk_all_trees(fs, true, count_cb2, &unique);
	CHECK(ret == 0 && unique <= all && unique > 0, "%s: shared-skipping walk %d: %llu of %llu",
	      base, ret, (unsigned long long)unique, (unsigned long long)all);
	btrfs_fs_close(fs);
	for (size_t i = 0; i < n; i++)
		btrfs_io_close(devs[i]);
	if (n == 1 && !squota) {
		/* one dump-tree run per tree: the first 24 trees are enough */
		if (s.nr > 24)
			s.nr = 24;
		compare_with_dump_tree(base, paths[0], &s);
	}
out:
	for (size_t i = 0; i < n; i++) {
		unlink(paths[i]);
		free((void *)paths[i]);
	}
}

int main(void)
{
	const char *dir = VOLCTL_SRCDIR "tests/fixtures";
	DIR *d;
	struct dirent *de;
	int n = 0;

	scratch_init();
	d = opendir(dir);
	if (d) {
		while ((de = readdir(d))) {
			size_t l = strlen(de->d_name);

			if (l > 8 && !strcmp(de->d_name + l - 8, ".img.zst")) {
				test_fixture(dir, de->d_name);
				n++;
			}
		}
		closedir(d);
	}
	if (!n)
		printf("no fixtures in %s\n", dir);
	scratch_done();
	return report();
}
