// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reads ahead on worker threads (see io.h, btrfs_io_prefetch_start()).
 *
 * The tree comparisons know, a few blocks ahead, which blocks they will
 * read: the children of a node that the other tree does not share.  Where
 * a read waits on the device (O_DIRECT through a loop device, a disk not
 * in the page cache) the walk stands still for each one; workers can read
 * the next ones meanwhile.  Each hint takes a slot of a small ring and the
 * workers read the slots in the order they were hinted, through the
 * device's pread_parallel op (a plain pread, safe beside the reader's own
 * reads).  A read that a slot covers is copied from it, once; one no worker
 * has started is read by the caller as before (the slot is dropped), one a
 * worker is reading is waited for, and one a worker failed is read by the
 * caller, which then reports the error itself.
 *
 * Only the workers' private buffers are shared, under one mutex: what a
 * slot holds is copied out to the caller, who verifies it as every read,
 * so no byte a check has passed can change after the check.  A write
 * through btrfs_io_write() drops every slot it overlaps (waiting for one
 * being read), so a slot never holds bytes older than the last write.
 * Hints beyond the ring are dropped: a hint never blocks its caller.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "io.h"

#define PF_SLOTS	128
#define PF_SLOT_MAX	(64u << 10)	/* larger hints go to the device's read-ahead */
#define PF_ALIGN	4096u
#define PF_WORKERS_MAX	8		/* O_DIRECT devices read into the slots directly */

enum pf_state { PF_FREE, PF_QUEUED, PF_READING, PF_DONE, PF_FAILED, PF_COPYING };

struct pf_slot {
	u64 off;
	u32 len;
	enum pf_state state;
	u64 seq;		/* order of the hint */
	u8 *buf;		/* PF_SLOT_MAX bytes, allocated on first use */
};

struct btrfs_io_prefetch {
	struct btrfs_io_dev *dev;
	pthread_t threads[PF_WORKERS_MAX];
	unsigned int nr_threads;
	pthread_mutex_t lock;
	pthread_cond_t work;	/* a slot was queued, or stop */
	pthread_cond_t done;	/* a slot left PF_READING or PF_COPYING */
	struct pf_slot slots[PF_SLOTS];
	u64 queued_seq;		/* hints queued so far */
	u64 taken_seq;		/* hints the worker has taken (read or skipped) */
	unsigned int users;	/* start() calls not yet stopped */
	bool stop;
	struct btrfs_io_prefetch_stats stats;
};

static struct pf_slot *slot_of_seq(struct btrfs_io_prefetch *pf, u64 seq)
{
	return &pf->slots[seq % PF_SLOTS];
}

static void *pf_worker(void *arg)
{
	struct btrfs_io_prefetch *pf = arg;

	pthread_mutex_lock(&pf->lock);
	for (;;) {
		struct pf_slot *s;
		int ret;

		while (!pf->stop && pf->taken_seq == pf->queued_seq)
			pthread_cond_wait(&pf->work, &pf->lock);
		if (pf->stop)
			break;
		s = slot_of_seq(pf, pf->taken_seq++);
		if (s->state != PF_QUEUED || s->seq != pf->taken_seq - 1)
			continue;	/* taken over by a reader */
		s->state = PF_READING;
		pthread_mutex_unlock(&pf->lock);
		ret = pf->dev->ops->pread_parallel(pf->dev, s->buf, s->len, s->off);
		pthread_mutex_lock(&pf->lock);
		s->state = ret < 0 ? PF_FAILED : PF_DONE;
		pf->stats.read++;
		pthread_cond_broadcast(&pf->done);
	}
	pthread_mutex_unlock(&pf->lock);
	return NULL;
}

int btrfs_io_prefetch_start(struct btrfs_io_dev *dev)
{
	struct btrfs_io_prefetch *pf = dev->prefetch;
	unsigned int workers = dev->prefetch_workers;
	int ret;

	if (pf) {
		pf->users++;
		return 0;
	}
	if (!dev->ops->pread_parallel || !workers)
		return -EOPNOTSUPP;
	if (workers > PF_WORKERS_MAX)
		workers = PF_WORKERS_MAX;
	pf = calloc(1, sizeof(*pf));
	if (!pf)
		return -ENOMEM;
	pf->dev = dev;
	pf->users = 1;
	ret = -pthread_mutex_init(&pf->lock, NULL);
	if (ret)
		goto free_pf;
	ret = -pthread_cond_init(&pf->work, NULL);
	if (ret)
		goto free_lock;
	ret = -pthread_cond_init(&pf->done, NULL);
	if (ret)
		goto free_work;
	for (unsigned int i = 0; i < workers; i++) {
		ret = -pthread_create(&pf->threads[i], NULL, pf_worker, pf);
		if (ret)
			break;
		pf->nr_threads++;
	}
	if (pf->nr_threads) {
		dev->prefetch = pf;
		return 0;
	}
	pthread_cond_destroy(&pf->done);
free_work:
	pthread_cond_destroy(&pf->work);
free_lock:
	pthread_mutex_destroy(&pf->lock);
free_pf:
	free(pf);
	return ret;
}

void btrfs_io_prefetch_stop(struct btrfs_io_dev *dev, struct btrfs_io_prefetch_stats *stats)
{
	struct btrfs_io_prefetch *pf = dev->prefetch;

	if (stats)
		btrfs_io_prefetch_stats_get(dev, stats);	/* zeros without a worker */
	if (!pf)
		return;
	if (--pf->users)
		return;
	pthread_mutex_lock(&pf->lock);
	pf->stop = true;
	pthread_cond_broadcast(&pf->work);
	pthread_mutex_unlock(&pf->lock);
	for (unsigned int i = 0; i < pf->nr_threads; i++)
		pthread_join(pf->threads[i], NULL);
	dev->prefetch = NULL;
	for (int i = 0; i < PF_SLOTS; i++)
		free(pf->slots[i].buf);
	pthread_cond_destroy(&pf->done);
	pthread_cond_destroy(&pf->work);
	pthread_mutex_destroy(&pf->lock);
	free(pf);
}

static bool slot_live(const struct pf_slot *s)
{
	return s->state != PF_FREE;
}

static bool slot_covers(const struct pf_slot *s, u64 off, u64 len)
{
	return slot_live(s) && s->off <= off && off - s->off <= s->len && len <= s->len - (off - s->off);
}

static bool slot_overlaps(const struct pf_slot *s, u64 off, u64 len)
{
	return slot_live(s) && s->off < off + len && off < s->off + s->len;
}

void btrfs_io_prefetch(struct btrfs_io_dev *dev, u64 off, u64 len)
{
	struct btrfs_io_prefetch *pf = dev->prefetch;
	struct pf_slot *s;

	if (!pf || !len || off >= dev->size || len > dev->size - off)
		return;
	if (len > PF_SLOT_MAX) {
		btrfs_io_readahead(dev, off, len);
		return;
	}
	pthread_mutex_lock(&pf->lock);
	for (int i = 0; i < PF_SLOTS; i++) {
		if (slot_covers(&pf->slots[i], off, len))
			goto out;	/* hinted already */
	}
	s = slot_of_seq(pf, pf->queued_seq);
	/* the ring is full of hints not yet read, or the slot is in use */
	if (pf->queued_seq - pf->taken_seq >= PF_SLOTS || s->state == PF_READING ||
	    s->state == PF_COPYING) {
		pf->stats.dropped++;
		goto out;
	}
	if (!s->buf) {
		s->buf = aligned_alloc(PF_ALIGN, PF_SLOT_MAX);
		if (!s->buf)
			goto out;
	}
	if (s->state == PF_DONE || s->state == PF_FAILED)
		pf->stats.unused++;
	s->off = off;
	s->len = (u32)len;
	s->seq = pf->queued_seq++;
	s->state = PF_QUEUED;
	pf->stats.hinted++;
	pthread_cond_signal(&pf->work);
out:
	pthread_mutex_unlock(&pf->lock);
}

int btrfs_io_prefetch_take(struct btrfs_io_dev *dev, void *buf, size_t len, u64 off)
{
	struct btrfs_io_prefetch *pf = dev->prefetch;
	struct pf_slot *s = NULL;
	int served = 0;

	pthread_mutex_lock(&pf->lock);
again:
	for (int i = 0; i < PF_SLOTS; i++) {
		if (slot_covers(&pf->slots[i], off, len)) {
			s = &pf->slots[i];
			break;
		}
	}
	if (!s)
		goto out;
	switch (s->state) {
	case PF_READING:
	case PF_COPYING:
		pthread_cond_wait(&pf->done, &pf->lock);
		s = NULL;
		goto again;
	case PF_QUEUED:
		/* not started: the caller reads it now, the worker skips it */
		pf->stats.late++;
		s->state = PF_FREE;
		break;
	case PF_FAILED:
		s->state = PF_FREE;	/* the caller's own read reports the error */
		break;
	case PF_DONE:
		s->state = PF_COPYING;
		pthread_mutex_unlock(&pf->lock);
		memcpy(buf, s->buf + (off - s->off), len);
		pthread_mutex_lock(&pf->lock);
		/* the whole slot is one block read once: free it */
		s->state = PF_FREE;
		pf->stats.hits++;
		pthread_cond_broadcast(&pf->done);
		served = 1;
		break;
	case PF_FREE:
		break;
	}
out:
	pthread_mutex_unlock(&pf->lock);
	return served;
}

void btrfs_io_prefetch_stats_get(struct btrfs_io_dev *dev, struct btrfs_io_prefetch_stats *stats)
{
	struct btrfs_io_prefetch *pf = dev->prefetch;

	memset(stats, 0, sizeof(*stats));
	if (!pf)
		return;
	pthread_mutex_lock(&pf->lock);
	*stats = pf->stats;
	pthread_mutex_unlock(&pf->lock);
}

void btrfs_io_prefetch_drop(struct btrfs_io_dev *dev, u64 off, u64 len)
{
	struct btrfs_io_prefetch *pf = dev->prefetch;

	pthread_mutex_lock(&pf->lock);
	for (int i = 0; i < PF_SLOTS; i++) {
		struct pf_slot *s = &pf->slots[i];

		while (slot_overlaps(s, off, len) &&
		       (s->state == PF_READING || s->state == PF_COPYING))
			pthread_cond_wait(&pf->done, &pf->lock);
		if (slot_overlaps(s, off, len))
			s->state = PF_FREE;
	}
	pthread_mutex_unlock(&pf->lock);
}
