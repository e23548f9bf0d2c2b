/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tiny harness shared by the offline reader unit tests (test-reader*.c):
 * CHECK macros counting passes and failures, a scratch directory under
 * /tmp/offline/, mkfs.btrfs image creation, and helpers to open an image
 * from files or memory.  Each test binary ends with report() printing
 * "N passed, N failed, N skipped"; SKIP() counts a part that cannot run for
 * a missing prerequisite (root, loop devices), named on stderr.
 */
#ifndef VOLCTL_TESTS_READER_HARNESS_H
#define VOLCTL_TESTS_READER_HARNESS_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "kernel-shared/ctree.h"
#include "kernel-shared/fs.h"
#include "kernel-shared/walk.h"

static int t_pass, t_fail, t_skip;

#define SKIP(...) do {								\
	t_skip++;								\
	fprintf(stderr, "skip: " __VA_ARGS__);					\
	fputc('\n', stderr);							\
} while (0)
static char t_dir[256];

#define CHECK(cond, ...) do {							\
	if (cond) {								\
		t_pass++;							\
	} else {								\
		t_fail++;							\
		fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);	\
		fprintf(stderr, __VA_ARGS__);					\
		fputc('\n', stderr);						\
	}									\
} while (0)

static inline int report(void)
{
	printf("%d passed, %d failed, %d skipped\n", t_pass, t_fail, t_skip);
	return t_fail ? 1 : 0;
}

static inline int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	ret = system(cmd);
	return ret == -1 ? -1 : WEXITSTATUS(ret);
}

static inline void scratch_init(void)
{
	mkdir("/tmp/offline", 0755);
	snprintf(t_dir, sizeof(t_dir), "/tmp/offline/reader-XXXXXX");
	if (!mkdtemp(t_dir)) {
		perror("mkdtemp");
		exit(1);
	}
}

static inline void scratch_done(void)
{
	if (t_dir[0])
		sh("rm -rf '%s'", t_dir);
}

/* Path of scratch file @name (static buffer rotation of 4) */
static inline const char *tpath(const char *name)
{
	static char bufs[4][1024];
	static int n;
	char *b = bufs[n++ & 3];

	snprintf(b, 1024, "%s/%s", t_dir, name);
	return b;
}

/* mkfs.btrfs @opts on a @size_mb MiB file @name; 0 on success */
static inline int make_image(const char *name, int size_mb, const char *opts)
{
	return sh("rm -f '%s' && truncate -s %dM '%s' && mkfs.btrfs -q -f %s '%s' >/dev/null 2>&1",
		  tpath(name), size_mb, tpath(name), opts, tpath(name));
}

static inline void *load_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	void *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*size = (size_t)n;
	return buf;
}

/* Open a filesystem on one memory buffer (not copied) */
static inline int open_mem(void *buf, size_t size, int mirror, struct btrfs_io_dev **dev,
			   struct btrfs_fs **fs, char *errmsg)
{
	struct btrfs_open_args args = { 0 };
	int ret;

	ret = btrfs_io_open_memory(buf, size, false, false, dev);
	if (ret < 0)
		return ret;
	args.devs = dev;
	args.nr_devs = 1;
	args.super_mirror = mirror;
	args.errmsg = errmsg;
	ret = btrfs_fs_open(fs, &args);
	if (ret < 0) {
		btrfs_io_close(*dev);
		*dev = NULL;
	}
	return ret;
}

/* Open a filesystem on files @paths[0..n) */
static inline int open_files(const char **paths, size_t n, struct btrfs_io_dev **devs,
			     struct btrfs_fs **fs, char *errmsg)
{
	struct btrfs_open_args args = { 0 };
	int ret;

	for (size_t i = 0; i < n; i++) {
		ret = btrfs_io_open_file(paths[i], false, &devs[i]);
		if (ret < 0)
			return ret;
	}
	args.devs = devs;
	args.nr_devs = n;
	args.super_mirror = BTRFS_SUPER_PRIMARY;
	args.errmsg = errmsg;
	ret = btrfs_fs_open(fs, &args);
	if (ret < 0)
		for (size_t i = 0; i < n; i++)
			btrfs_io_close(devs[i]);
	return ret;
}

/* ---- per-tree block/item counts: the reader against dump-tree ---- */

#define MAX_TREES 1024

struct tree_stats {
	u64 id;
	u64 blocks;
	u64 items;
	u64 root_bytenr;
};

struct stats {
	struct tree_stats t[MAX_TREES];
	int nr;
};

static inline struct tree_stats *stats_get(struct stats *s, u64 id)
{
	for (int i = 0; i < s->nr; i++)
		if (s->t[i].id == id)
			return &s->t[i];
	if (s->nr == MAX_TREES)
		return NULL;
	memset(&s->t[s->nr], 0, sizeof(s->t[0]));
	s->t[s->nr].id = id;
	return &s->t[s->nr++];
}

static inline int count_cb(void *priv, const struct extent_buffer *eb, const struct btrfs_walk_info *info)
{
	struct tree_stats *t = stats_get(priv, info->tree_id);

	if (!t)
		return -ENOSPC;
	if (info->depth == 0)
		t->root_bytenr = eb->start;
	t->blocks++;
	if (btrfs_eb_level(eb) == 0)
		t->items += btrfs_eb_nritems(eb);
	return 0;
}

/* Blocks and items of tree @id according to dump-tree; -1 if it failed */
static inline int oracle_tree(const char *img, u64 id, u64 *blocks, u64 *items, u64 *root)
{
	char cmd[1024], line[4096];
	FILE *p;
	unsigned long long b;

	snprintf(cmd, sizeof(cmd), "btrfs inspect-internal dump-tree -t %lld '%s' 2>/dev/null",
		 (long long)id, img);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	*blocks = *items = *root = 0;
	while (fgets(line, sizeof(line), p)) {
		char kind[8];
		char what[16];

		if (sscanf(line, "%7s %llu %15s", kind, &b, what) == 3 &&
		    (!strcmp(kind, "leaf") || !strcmp(kind, "node")) &&
		    (!strcmp(what, "items") || !strcmp(what, "level"))) {
			if (!*blocks)
				*root = b;
			(*blocks)++;
		} else if (!strncmp(line, "\titem ", 6) && strstr(line, " key (")) {
			(*items)++;
		}
	}
	/* an oracle that printed no block (unsupported feature) is no oracle */
	return pclose(p) == 0 && *blocks ? 0 : -1;
}

static inline void compare_with_dump_tree(const char *label, const char *img, struct stats *s)
{
	int compared = 0;

	for (int i = 0; i < s->nr; i++) {
		struct tree_stats *t = &s->t[i];
		u64 blocks, items, root;

		if (oracle_tree(img, t->id, &blocks, &items, &root) < 0)
			continue;
		compared++;
		CHECK(blocks == t->blocks, "%s tree %lld: blocks %llu, dump-tree %llu", label,
		      (long long)t->id, (unsigned long long)t->blocks, (unsigned long long)blocks);
		CHECK(items == t->items, "%s tree %lld: items %llu, dump-tree %llu", label,
		      (long long)t->id, (unsigned long long)t->items, (unsigned long long)items);
		CHECK(root == t->root_bytenr, "%s tree %lld: root %llu, dump-tree %llu", label,
		      (long long)t->id, (unsigned long long)t->root_bytenr,
		      (unsigned long long)root);
	}
	CHECK(compared >= 8, "%s: only %d trees compared", label, compared);
}

static inline int walk_stats(struct btrfs_fs *fs, struct stats *s)
{
	memset(s, 0, sizeof(*s));
	return btrfs_walk_all_trees(fs, false, count_cb, s);
}

#endif
