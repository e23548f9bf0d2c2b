// SPDX-License-Identifier: GPL-2.0-only
/*
 * Replays the fuzz target on its seeds (each must open and walk cleanly)
 * and on every input under tests/fuzz/regress/ (a sample of the fuzz corpus:
 * opens-* reach the tree walks, corpus-* stop early; inputs that ever crash
 * or hang the reader go there too: each must return, whatever it returns), plus a
 * deterministic mutation sweep over the seeds.  Runs in make check-unit
 * and, under ASan/UBSan, in make check-asan.
 */
#include <dirent.h>

#ifndef VOLCTL_SRCDIR
#define VOLCTL_SRCDIR ""	/* make check-unit runs from the top of the tree */
#endif
#include "reader-harness.h"
#include "../fuzz/fuzz-reader.c"

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
		else
			CHECK(1, "%s returned", path);
		/* deterministic mutations: flip one byte in each page in turn */
		if (must_open) {
			size_t rec = 4 + FZ_PAGE;

			for (size_t r = 0; r + rec <= size; r += rec) {
				for (size_t off = 4; off < rec; off += 523) {
					buf[r + off] ^= 0x5a;
					fz_run(buf, size, &items);
					buf[r + off] ^= 0x5a;
				}
			}
			CHECK(1, "%s: mutation sweep returned", path);
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
	replay_dir(VOLCTL_SRCDIR "tests/fuzz/regress", false);
	return report();
}
