/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tiny harness shared by the offline reader unit tests (test-reader*.c):
 * CHECK macros counting passes and failures, a scratch directory under
 * /tmp/offline/, mkfs.btrfs image creation, and helpers to open an image
 * from files or memory.  Each test binary ends with report() printing
 * "N passed, N failed".
 */
#ifndef VOLCTL_TESTS_READER_HARNESS_H
#define VOLCTL_TESTS_READER_HARNESS_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "kernel-shared/fs.h"
#include "kernel-shared/walk.h"

static int t_pass, t_fail;
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
	printf("%d passed, %d failed\n", t_pass, t_fail);
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
	static char bufs[4][512];
	static int n;
	char *b = bufs[n++ & 3];

	snprintf(b, 512, "%s/%s", t_dir, name);
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
	args.super_mirror = BTRFS_SUPER_MIRROR_AUTO;
	args.errmsg = errmsg;
	ret = btrfs_fs_open(fs, &args);
	if (ret < 0)
		for (size_t i = 0; i < n; i++)
			btrfs_io_close(devs[i]);
	return ret;
}

#endif
