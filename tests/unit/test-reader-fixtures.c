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

#ifndef VOLCTL_SRCDIR
#define VOLCTL_SRCDIR ""	/* make check-unit runs from the top of the tree */
#endif

static int count_cb2(void *priv, const struct extent_buffer *eb,
		     const struct btrfs_walk_info *info)
{
	(*(u64 *)priv)++;
	return 0;
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
