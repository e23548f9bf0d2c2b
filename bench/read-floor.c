// SPDX-License-Identifier: GPL-2.0-only
/*
 * read-floor: what reading a list of blocks costs with nothing else done,
 * for bench/read-floor.sh.  Reads FILE at the offsets of OFFSETS (one per
 * line, LEN bytes each, in that order) RUNS times in three ways and prints
 * the median wall time of each:
 *   pread    pread into 256 recycled buffers (volctl's reader, no checks)
 *   worker   a second thread preads into a ring of 64 slots, the caller
 *            copies each out (the prefetch workers of io-prefetch.c)
 *   inplace  a read-only mmap populated first (MADV_POPULATE_READ, not
 *            timed), every 8 bytes of each block read where it lies
 *
 *   read-floor FILE OFFSETS LEN RUNS
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#define NBUF	256
#define RING	64

static int fd;
static long *offs;
static size_t n, len;
static char *slots[RING];
static atomic_size_t ready, consumed;
static volatile unsigned long sink;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void must_pread(char *b, long off)
{
	if (pread(fd, b, len, off) != (ssize_t)len) {
		fprintf(stderr, "read-floor: pread at %ld failed\n", off);
		exit(1);
	}
}

static double run_pread(char *bufs)
{
	double t0 = now();

	for (size_t i = 0; i < n; i++) {
		char *b = bufs + (i % NBUF) * len;

		must_pread(b, offs[i]);
		sink += (unsigned char)b[len / 2];
	}
	return now() - t0;
}

static void *worker(void *arg)
{
	(void)arg;
	for (size_t i = 0; i < n; i++) {
		while (i - atomic_load(&consumed) >= RING)
			;
		must_pread(slots[i % RING], offs[i]);
		atomic_store(&ready, i + 1);
	}
	return NULL;
}

static double run_worker(char *bufs)
{
	pthread_t t;
	double t0 = now();

	atomic_store(&ready, 0);
	atomic_store(&consumed, 0);
	if (pthread_create(&t, NULL, worker, NULL)) {
		fprintf(stderr, "read-floor: no thread\n");
		exit(1);
	}
	for (size_t i = 0; i < n; i++) {
		char *b = bufs + (i % NBUF) * len;

		while (atomic_load(&ready) <= i)
			;
		memcpy(b, slots[i % RING], len);
		sink += (unsigned char)b[len / 2];
		atomic_store(&consumed, i + 1);
	}
	pthread_join(t, NULL);
	return now() - t0;
}

static double run_inplace(const char *map)
{
	double t0 = now();

	for (size_t i = 0; i < n; i++) {
		const unsigned long *p = (const unsigned long *)(map + offs[i]);
		unsigned long s = 0;

		for (size_t j = 0; j < len / sizeof(*p); j++)
			s += p[j];
		sink += s;
	}
	return now() - t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	size_t cap = 1024, runs;
	double *t[3];
	struct stat st;
	char *bufs, *map;
	FILE *f;
	long o;

	if (argc != 5) {
		fprintf(stderr, "usage: read-floor FILE OFFSETS LEN RUNS\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	f = fopen(argv[2], "r");
	len = strtoul(argv[3], NULL, 0);
	runs = strtoul(argv[4], NULL, 0);
	if (fd < 0 || !f || fstat(fd, &st) || !len || len % 8 || !runs) {
		fprintf(stderr, "read-floor: bad arguments\n");
		return 2;
	}
	offs = malloc(cap * sizeof(*offs));
	while (offs && fscanf(f, "%ld", &o) == 1) {
		if (o < 0 || o + (long)len > st.st_size)
			continue;
		if (n == cap)
			offs = realloc(offs, (cap *= 2) * sizeof(*offs));
		if (offs)
			offs[n++] = o;
	}
	bufs = aligned_alloc(4096, NBUF * len);
	for (int i = 0; i < RING; i++)
		slots[i] = aligned_alloc(4096, len);
	for (int k = 0; k < 3; k++)
		t[k] = calloc(runs, sizeof(double));
	if (!offs || !n || !bufs || !t[0] || !t[1] || !t[2]) {
		fprintf(stderr, "read-floor: no offsets or no memory\n");
		return 1;
	}
	memset(bufs, 0, NBUF * len);
	for (int i = 0; i < RING; i++)
		memset(slots[i], 0, len);
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "read-floor: mmap: %s\n", strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < n; i++)	/* page tables filled, not timed */
		madvise(map + (offs[i] & ~4095L), len + 4096, MADV_POPULATE_READ);
	run_pread(bufs);	/* warm-up */
	for (size_t r = 0; r < runs; r++) {
		t[0][r] = run_pread(bufs);
		t[1][r] = run_worker(bufs);
		t[2][r] = run_inplace(map);
	}
	for (int k = 0; k < 3; k++)
		qsort(t[k], runs, sizeof(double), cmp_double);
	printf("%zu reads of %zu bytes (%.1f MiB), medians of %zu runs:\n", n, len,
	       (double)n * (double)len / 1048576.0, runs);
	printf("pread    %.2f ms\nworker   %.2f ms\ninplace  %.2f ms\n", t[0][runs / 2] * 1e3,
	       t[1][runs / 2] * 1e3, t[2][runs / 2] * 1e3);
	return 0;
}
