// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mkfs --rootdir`: read-ahead of the source files for the write.
 *
 * The writer (rootdir-write.c) reads one file after the other, one pread at
 * a time; on a cold cache that is a serial read of the tree.  A few reader
 * threads walk the same list of files, in the writer's order, a bounded
 * window ahead of it (RA_WINDOW_BYTES and RA_WINDOW_FILES past the byte and
 * the file the writer reads), and start the reads of each file
 * (readahead(2)), so that its pages are in the page cache when the writer
 * comes to it.
 *
 * Only the page cache sees the readers: the writer still reads, checks
 * and writes every file itself, in its own order, so the image never
 * depends on them or on their timing.  A reader that fails (a file gone,
 * renamed, replaced) skips the file without a word; the writer finds and
 * reports what is wrong.  The readers open with O_NONBLOCK (a file replaced
 * by a fifo never blocks them) and O_NOATIME where allowed, as the writer.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include "common/tool/rootdir-internal.h"
#include "common/tool/rootdir-prefetch.h"
#include "kernel-shared/inode-write.h"

#define RA_READERS		4
#define RA_MAX_READERS		16
#define RA_WINDOW_BYTES		(64ULL << 20)
#define RA_WINDOW_FILES		4096
#define RA_CHUNK		(128U << 10)	/* the smallest usual read_ahead_kb */
#define RA_STACK		(256U << 10)
#define RA_WARM_FILES		256	/* files found cached in a row: the cache is warm, stop */

struct rd_prefetch {
	const struct vc_rootdir *rd;
	uint32_t *files;		/* nodes, in the writer's order */
	uint64_t *start;		/* bytes of the files before each one */
	uint32_t *pos_of;		/* node -> its place in files, or NONE */
	size_t nr_files;
	pthread_mutex_t lock;
	pthread_cond_t moved;		/* the writer moved on, or stop */
	size_t next;			/* the next file a reader takes */
	size_t w_pos;			/* the file the writer reads */
	uint64_t w_bytes;		/* the byte it reads, counted over the list */
	uint64_t window;		/* bytes ahead of the writer */
	size_t wake_pos;		/* wake the waiters when the writer is here */
	uint64_t wake_bytes;		/* and here (see wait_window) */
	unsigned int waiting;
	uint64_t warm;			/* files of more than a sector found cached, in a row */
	uint64_t warm_stop;		/* RA_WARM_FILES, 0: never */
	bool stop;
	pthread_t threads[RA_MAX_READERS];
	unsigned int nr_threads;
};

/*
 * How many readers, how far ahead, after how many cached files they stop:
 * RA_READERS, RA_WINDOW_BYTES, RA_WARM_FILES; test builds take
 * VOLCTL_TEST_READERS (0: none), VOLCTL_TEST_READ_WINDOW (0: the default)
 * and VOLCTL_TEST_READ_WARM (0: never)
 */
static uint64_t knob(const char *name, uint64_t def)
{
#if VOLCTL_FAULT_INJECTION
	const char *s = getenv(name);

	if (s && *s)
		return strtoull(s, NULL, 10);
#else
	(void)name;
#endif
	return def;
}

/* Whether the writer reads the data of node @idx (see copy_file) */
static bool reads_data(const struct vc_rootdir *rd, uint32_t idx)
{
	const struct rd_node *n = &rd->nodes[idx];

	if (!S_ISREG(n->mode) || n->link_head != idx || !n->size || n->sv_root != NONE)
		return false;
	/* a measuring run reads only what goes inline or is compressed */
	return !rd->dry || rd_compress_node(rd, n) ||
	       n->size <= btrfs_max_inline(rd->o.nodesize, rd->o.sectorsize);
}

/* The files, in the order of write_op: subvolume by subvolume, each in preorder */
static int list_files(struct rd_prefetch *pf)
{
	const struct vc_rootdir *rd = pf->rd;
	uint64_t bytes = 0;

	pf->files = malloc(rd->nr * sizeof(*pf->files));
	pf->start = malloc(rd->nr * sizeof(*pf->start));
	pf->pos_of = malloc(rd->nr * sizeof(*pf->pos_of));
	if (!pf->files || !pf->start || !pf->pos_of)
		return -ENOMEM;
	for (size_t i = 0; i < rd->nr; i++)
		pf->pos_of[i] = NONE;
	for (size_t j = 0; j < rd->nr_sv_order; j++) {
		size_t s = rd->sv_order[j];

		for (size_t k = 0; k < rd->nr; k++) {
			uint32_t i = rd->order[k];

			if (rd->nodes[i].sv != s || !reads_data(rd, i) || pf->pos_of[i] != NONE)
				continue;
			pf->pos_of[i] = (uint32_t)pf->nr_files;
			pf->start[pf->nr_files] = bytes;
			pf->files[pf->nr_files++] = i;
			bytes += rd->nodes[i].size;
		}
	}
	return 0;
}

/* The path of node @idx below the source directory into @buf; false: too long */
static bool node_path(const struct vc_rootdir *rd, uint32_t idx, char *buf, size_t size)
{
	size_t at = size - 1;
	int depth = 0;

	buf[at] = 0;
	for (uint32_t i = idx; i != 0; i = rd->nodes[i].parent) {
		const struct rd_node *n = &rd->nodes[i];

		if (++depth > MAX_DEPTH || at < (size_t)n->name_len + 1)
			return false;
		at -= n->name_len;
		memcpy(buf + at, rd_node_name(rd, n), n->name_len);
		buf[--at] = '/';
	}
	memmove(buf, buf + at + 1, size - at - 1);
	return true;
}

/*
 * Whether a reader may read byte @off of file @pos now; waits while it is
 * beyond the window.  Called with the lock held.  Return: 1 go on, 0 the
 * writer is past it or the pool stops (drop the file).  A reader that
 * waits asks to be woken when the window has moved on by a quarter more
 * than it needs (pf->wake_pos, pf->wake_bytes: the least of the waiters'),
 * not at every file the writer starts.
 */
static int wait_window(struct rd_prefetch *pf, size_t pos, uint64_t off)
{
	for (;;) {
		uint64_t at = pf->start[pos] + off, need;

		if (pf->stop || pf->w_pos > pos)
			return 0;
		if (pos - pf->w_pos < RA_WINDOW_FILES && at < pf->w_bytes + pf->window)
			return 1;
		need = pos + 1 + RA_WINDOW_FILES / 4;
		need = need > RA_WINDOW_FILES ? need - RA_WINDOW_FILES : 0;
		if (need < pf->wake_pos)
			pf->wake_pos = (size_t)need;
		need = at + 1 + pf->window / 4;
		need = need > pf->window ? need - pf->window : 0;
		if (need < pf->wake_bytes)
			pf->wake_bytes = need;
		pf->waiting++;
		pthread_cond_wait(&pf->moved, &pf->lock);
		pf->waiting--;
	}
}

/* Bytes [@off, @end) of @fd into the page cache: up to the window, RA_CHUNK a call */
static uint64_t read_range(struct rd_prefetch *pf, size_t pos, int fd, uint64_t off,
			   uint64_t end)
{
	while (off < end) {
		uint64_t len = end - off < RA_CHUNK ? end - off : RA_CHUNK;
		int go;

		pthread_mutex_lock(&pf->lock);
		go = wait_window(pf, pos, off);
		pthread_mutex_unlock(&pf->lock);
		if (!go || readahead(fd, (off_t)off, (size_t)len) < 0)
			return UINT64_MAX;
		off += len;
	}
	return off;
}

/*
 * Whether the first byte of @fd is in the page cache already (a file the
 * scan did not read: more than a sector).  RA_WARM_FILES of them in a row
 * and the readers stop: the tree is cached, reading ahead only costs CPU.
 */
static bool cached(struct rd_prefetch *pf, int fd)
{
	char c;
	struct iovec iov = { &c, 1 };
	bool hit = preadv2(fd, &iov, 1, 0, RWF_NOWAIT) == 1;

	pthread_mutex_lock(&pf->lock);
	pf->warm = hit ? pf->warm + 1 : 0;
	if (pf->warm_stop && pf->warm >= pf->warm_stop && !pf->stop) {
		pf->stop = true;
		pthread_cond_broadcast(&pf->moved);
	}
	pthread_mutex_unlock(&pf->lock);
	return hit;
}

/*
 * File @pos of the list into the page cache, a window ahead of the writer:
 * readahead(2), which starts the reads and skips what is cached already
 * (no copy: a warm cache costs the readers little); a large file's data
 * only (SEEK_DATA), a small one in one call.
 */
static void read_ahead(struct rd_prefetch *pf, size_t pos)
{
	const struct rd_node *n = &pf->rd->nodes[pf->files[pos]];
	char path[PATH_MAX];
	uint64_t off = 0;
	struct stat st;
	int fd;

	if (!node_path(pf->rd, pf->files[pos], path, sizeof(path)))
		return;
	fd = openat(pf->rd->root_fd, path,
		    O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOATIME);
	if (fd < 0 && errno == EPERM)
		fd = openat(pf->rd->root_fd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_ino != n->ino)
		goto out;
	if (n->size > pf->rd->o.sectorsize && cached(pf, fd))
		goto out;
	if (n->size <= RA_CHUNK) {
		read_range(pf, pos, fd, 0, n->size);
		goto out;
	}
	while (off < n->size) {
		off_t ds = lseek(fd, (off_t)off, SEEK_DATA), de;

		if (ds < 0)
			break;
		de = lseek(fd, ds, SEEK_HOLE);
		if (de <= ds)
			break;
		off = read_range(pf, pos, fd, (uint64_t)ds, (uint64_t)de);
	}
out:
	close(fd);
}

static void *reader_main(void *arg)
{
	struct rd_prefetch *pf = arg;

	pthread_mutex_lock(&pf->lock);
	for (;;) {
		size_t pos;

		if (pf->next < pf->w_pos)
			pf->next = pf->w_pos;	/* the writer got there first */
		if (pf->stop || pf->next >= pf->nr_files)
			break;
		pos = pf->next;
		if (!wait_window(pf, pos, 0))
			continue;
		if (pf->next != pos)
			continue;		/* another reader took it while we waited */
		pf->next++;
		pthread_mutex_unlock(&pf->lock);
		read_ahead(pf, pos);
		pthread_mutex_lock(&pf->lock);
	}
	pthread_mutex_unlock(&pf->lock);
	return NULL;
}

static void prefetch_free(struct rd_prefetch *pf)
{
	free(pf->files);
	free(pf->start);
	free(pf->pos_of);
	free(pf);
}

struct rd_prefetch *rd_prefetch_start(const struct vc_rootdir *rd)
{
	uint64_t want = knob("VOLCTL_TEST_READERS", RA_READERS);
	struct rd_prefetch *pf;
	pthread_attr_t attr;

	if (!want)
		return NULL;
	pf = calloc(1, sizeof(*pf));
	if (!pf)
		return NULL;
	pf->rd = rd;
	pf->window = knob("VOLCTL_TEST_READ_WINDOW", 0);
	if (!pf->window)
		pf->window = RA_WINDOW_BYTES;
	pf->warm_stop = knob("VOLCTL_TEST_READ_WARM", RA_WARM_FILES);
	pf->wake_pos = SIZE_MAX;
	pf->wake_bytes = UINT64_MAX;
	if (list_files(pf) < 0 || pf->nr_files < 2) {
		prefetch_free(pf);
		return NULL;
	}
	pthread_mutex_init(&pf->lock, NULL);
	pthread_cond_init(&pf->moved, NULL);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, RA_STACK);
	if (want > RA_MAX_READERS)
		want = RA_MAX_READERS;
	while (pf->nr_threads < want &&
	       !pthread_create(&pf->threads[pf->nr_threads], &attr, reader_main, pf))
		pf->nr_threads++;
	pthread_attr_destroy(&attr);
	return pf;
}

void rd_prefetch_at(struct rd_prefetch *pf, uint32_t idx, uint64_t off)
{
	size_t pos;

	if (!pf || pf->pos_of[idx] == NONE)
		return;
	pos = pf->pos_of[idx];
	pthread_mutex_lock(&pf->lock);
	pf->w_pos = pos;
	pf->w_bytes = pf->start[pos] + (off < pf->rd->nodes[idx].size ? off :
					pf->rd->nodes[idx].size);
	if (pf->waiting && pf->w_pos >= pf->wake_pos && pf->w_bytes >= pf->wake_bytes) {
		pf->wake_pos = SIZE_MAX;
		pf->wake_bytes = UINT64_MAX;
		pthread_cond_broadcast(&pf->moved);
	}
	pthread_mutex_unlock(&pf->lock);
}

void rd_prefetch_stop(struct rd_prefetch *pf)
{
	if (!pf)
		return;
	pthread_mutex_lock(&pf->lock);
	pf->stop = true;
	pthread_cond_broadcast(&pf->moved);
	pthread_mutex_unlock(&pf->lock);
	for (unsigned int t = 0; t < pf->nr_threads; t++)
		pthread_join(pf->threads[t], NULL);
	pthread_cond_destroy(&pf->moved);
	pthread_mutex_destroy(&pf->lock);
	prefetch_free(pf);
}
