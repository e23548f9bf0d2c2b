// SPDX-License-Identifier: GPL-2.0-only
/*
 * Replays the fuzz target on its seeds (each must open and walk cleanly)
 * and on every input under tests/fuzz/regress/ (a sample of the fuzz corpus:
 * opens-* reach the tree walks, corpus-* stop early; inputs that ever crash
 * or hang the reader go there too: each must return 0 or an errno that
 * btrfs_fs_open() documents), plus a deterministic mutation sweep over the
 * seeds (every mutation returns such a result; on snap-4k that includes
 * send-size and diff of its snapshots).  Runs in make check-unit
 * and, under ASan/UBSan, in make check-asan.
 */
#include <dirent.h>

#ifndef VOLCTL_SRCDIR
#define VOLCTL_SRCDIR ""	/* make check-unit runs from the top of the tree */
#endif
#include "reader-harness.h"
#include "../fuzz/fuzz-reader.c"

/* What btrfs_fs_open() documents it returns: 0 or one of these */
static bool open_result_ok(int ret)
{
	return ret == 0 || ret == -EUCLEAN || ret == -EOPNOTSUPP || ret == -EINVAL ||
	       ret == -ENXIO || ret == -EIO || ret == -ENOMEM;
}

static void replay_dir(const char *dir, bool must_open)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d) {
		CHECK(!must_open, "%s missing", dir);
		return;
	}
	while ((de = readdir(d))) {
		char path[1024];
		size_t size;
		u8 *buf;
		u64 items = 0;
		int ret;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		buf = load_file(path, &size);
		if (!buf)
			continue;
		ret = fz_run(buf, size, &items);
		n++;
		if (must_open)
			CHECK(ret == 0 && items > 20, "%s: open %d, %llu items", path, ret,
			      (unsigned long long)items);
		else if (!strncmp(de->d_name, "opens-", 6))
			/* the sample that reaches the tree walks still does */
			CHECK(ret == 0 && items > 0, "%s: open %d, %llu items", path, ret,
			      (unsigned long long)items);
		else if (!strncmp(de->d_name, "corpus-", 7))
			/* the sample refused at open is still refused, with a documented errno */
			CHECK(ret < 0 && open_result_ok(ret) && items == 0, "%s: open %d", path,
			      ret);
		else
			/* an input that once crashed or hung: returns, and says so properly */
			CHECK(open_result_ok(ret), "%s: open %d", path, ret);
		/* deterministic mutations: flip one byte in each page in turn */
		if (must_open) {
			size_t rec = 4 + FZ_PAGE;

			size_t runs = 0, bad = 0;
			int first_bad = 0;

			for (size_t r = 0; r + rec <= size; r += rec) {
				for (size_t off = 4; off < rec; off += 523) {
					buf[r + off] ^= 0x5a;
					ret = fz_run(buf, size, &items);
					buf[r + off] ^= 0x5a;
					runs++;
					if (!open_result_ok(ret) && !bad++)
						first_bad = ret;
				}
			}
			CHECK(runs > 0 && bad == 0, "%s: %zu of %zu mutations returned "
			      "an undocumented result (first %d)", path, bad, runs, first_bad);
		}
		free(buf);
	}
	closedir(d);
	if (must_open)
		CHECK(n >= 3, "%s: %d seeds", dir, n);
}

int main(void)
{
	replay_dir(VOLCTL_SRCDIR "tests/fuzz/seeds", true);
	/* snap-4k's pair: sizes and diffs with changes, also under most mutations */
	CHECK(fz_sends > 100, "%lu send sizes and diffs computed on the seeds", fz_sends);
	printf("fuzz: %lu send sizes and diffs computed\n", fz_sends);
	replay_dir(VOLCTL_SRCDIR "tests/fuzz/regress", false);
	return report();
}
