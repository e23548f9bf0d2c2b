/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Block I/O behind a small vtable.
 *
 * Everything the offline engine reads or writes on a device goes through a
 * struct btrfs_io_dev: superblock copies, tree blocks, and (later) the
 * writes of a transaction commit.  Implementations:
 *
 *   file    a regular file or block device, pread/pwrite/fsync
 *   direct  read-only, O_DIRECT (a mounted filesystem's devices: io-direct.c)
 *   memory  a buffer in memory (unit tests, the fuzzer); optionally a
 *           private copy so writes never reach the caller's buffer
 *   fault   wraps another device and fails reads of a range, or fails or
 *           silently drops writes after a count, and can report every
 *           write and flush that reached the inner device (io-fault.c)
 *
 * A fault-injecting or tracing device wraps another one by providing its own
 * ops and keeping the inner device in @priv.
 *
 * Contract of the ops: transfer exactly @len bytes at byte offset @off or
 * fail.  A range that is not entirely inside the device is -EIO (a short
 * image is a corrupt image, never a crash).  No op prints or exits.
 */
#ifndef VOLCTL_KERNEL_SHARED_IO_H
#define VOLCTL_KERNEL_SHARED_IO_H

#include <stdbool.h>
#include <stddef.h>
#include "format.h"

struct btrfs_io_dev;

struct btrfs_io_ops {
	const char *name;	/* "file", "memory", ... */
	int (*pread)(struct btrfs_io_dev *dev, void *buf, size_t len, u64 off);
	int (*pwrite)(struct btrfs_io_dev *dev, const void *buf, size_t len, u64 off);
	int (*flush)(struct btrfs_io_dev *dev);
	/* release @priv and anything the device owns; not the struct itself */
	void (*close)(struct btrfs_io_dev *dev);
	/* optional hint: [off, off + len) will be read soon; never fails the caller */
	int (*readahead)(struct btrfs_io_dev *dev, u64 off, u64 len);
	/*
	 * optional: pread that another thread may call while the device is in
	 * use (no state of the device touched); @buf is 4096-aligned.  The
	 * prefetch worker's read (io-prefetch.c); without it no prefetching.
	 */
	int (*pread_parallel)(struct btrfs_io_dev *dev, void *buf, size_t len, u64 off);
};

struct btrfs_io_prefetch;

struct btrfs_io_dev {
	const struct btrfs_io_ops *ops;
	void *priv;
	u64 size;		/* bytes addressable on the device */
	bool writable;		/* opened for writing */
	char name[256];		/* path or description, for messages */
	/*
	 * prefetch workers btrfs_io_prefetch_start() runs (0: none).  Two for an
	 * O_DIRECT device and for a block device, whose reads wait on the disk
	 * (an unmounted loop device read cold: a diff 2x to 3x faster); none
	 * for a regular file, whose warm reads are a copy that a worker only
	 * moves to another core (the same wall time, 40% more CPU:
	 * bench/README.md); a caller may set it.
	 */
	unsigned int prefetch_workers;
	struct btrfs_io_prefetch *prefetch;	/* workers reading ahead, or NULL */
};

/**
 * btrfs_io_open_file - open a regular file or block device
 * @path:	file name
 * @writable:	open read-write (O_RDWR) instead of read-only
 * @out:	receives the new device; free it with btrfs_io_close()
 *
 * The size is st_size for a regular file and BLKGETSIZE64 for a block
 * device.  Return: 0 or a negative errno from open/fstat.
 */
int btrfs_io_open_file(const char *path, bool writable, struct btrfs_io_dev **out);

/**
 * btrfs_io_open_direct - open a block device or file read-only, O_DIRECT
 * @path:	file name
 * @out:	receives the new device; free it with btrfs_io_close()
 *
 * Reads bypass the page cache (the devices of a mounted filesystem, which
 * the kernel writes around it: io-direct.c); where O_DIRECT is refused they
 * are buffered.  No read-ahead.  Return: 0 or a negative errno.
 */
int btrfs_io_open_direct(const char *path, struct btrfs_io_dev **out);

/**
 * btrfs_io_open_fd - wrap an already open descriptor (not closed on close)
 */
int btrfs_io_open_fd(int fd, const char *name, bool writable, struct btrfs_io_dev **out);

/**
 * btrfs_io_open_memory - a device backed by memory
 * @buf:	contents; with @copy false the device reads and writes @buf in
 *		place (the caller keeps it alive), with @copy true it works on
 *		a private copy
 * @size:	bytes in @buf
 */
int btrfs_io_open_memory(void *buf, size_t size, bool copy, bool writable,
			 struct btrfs_io_dev **out);

/*
 * Fault injection (io-fault.c), for crash and error-path tests: wraps an
 * inner device (not owned) and fails or drops chosen operations.
 */
struct btrfs_io_fault {
	/* reads overlapping [read_off, read_off + read_len) fail with -EIO */
	u64 read_off;
	u64 read_len;
	/* writes after the first @write_limit succeed fail (0 = no limit) */
	u64 write_limit;
	/* ... or, with @drop_writes, are silently lost: a torn commit */
	bool drop_writes;
	/*
	 * optional recorder (power-cut tests): told of every write that
	 * reached the inner device (@buf, @len, @off) and of every flush
	 * (@buf NULL), in the order they were issued; @dev is the fault
	 * device, so one recorder can tell several members apart.  A
	 * negative return fails the operation with that errno.
	 */
	int (*record)(void *ctx, const struct btrfs_io_dev *dev, const void *buf, size_t len,
		      u64 off);
	void *record_ctx;
	/* counters, updated by the device */
	u64 reads;
	u64 writes;
	u64 faults;
};

/**
 * btrfs_io_open_fault - a device that injects the faults described by @fault
 * @inner:	device doing the real I/O; must outlive the new device
 * @fault:	description and counters; must outlive the new device
 */
int btrfs_io_open_fault(struct btrfs_io_dev *inner, struct btrfs_io_fault *fault,
			struct btrfs_io_dev **out);

/** btrfs_io_close - close @dev and free it; NULL is a no-op */
void btrfs_io_close(struct btrfs_io_dev *dev);

/**
 * btrfs_io_read - read exactly @len bytes at @off
 *
 * Return: 0, -EIO for a range outside the device or a short read, or the
 * negative errno of the failed read.
 */
int btrfs_io_read(struct btrfs_io_dev *dev, void *buf, size_t len, u64 off);

/** btrfs_io_write - write exactly @len bytes at @off; -EROFS if not writable */
int btrfs_io_write(struct btrfs_io_dev *dev, const void *buf, size_t len, u64 off);

/**
 * btrfs_io_readahead - hint that a range will be read soon
 *
 * posix_fadvise(WILLNEED) for files and block devices, nothing for memory.
 * The range is clamped to the device.  Return: 0 or the op's error, which
 * callers are free to ignore.
 */
int btrfs_io_readahead(struct btrfs_io_dev *dev, u64 off, u64 len);

/*
 * Prefetching on a worker thread (io-prefetch.c), for readers that know the
 * blocks they will read next (the tree comparisons): btrfs_io_prefetch()
 * queues a range, the worker reads it into a slot of its own, and
 * btrfs_io_read() of a range a slot holds copies it from there.  Writes drop
 * the slots they overlap.  Only for devices with a pread_parallel op.
 */
struct btrfs_io_prefetch_stats {
	u64 hinted;	/* ranges queued */
	u64 read;	/* ... read by the worker */
	u64 hits;	/* reads served from a slot */
	u64 late;	/* reads of a range still queued (the caller read it) */
	u64 unused;	/* slots read and never asked for */
	u64 dropped;	/* hints refused: the ring was full */
};

/**
 * btrfs_io_prefetch_start - start the worker (or count one more user)
 *
 * Return: 0, -EOPNOTSUPP for a device without pread_parallel or with no
 * prefetch_workers, or the errno of the failed allocation or thread
 * creation.  Callers may go on without it: reads are the same, only slower.
 */
int btrfs_io_prefetch_start(struct btrfs_io_dev *dev);

/**
 * btrfs_io_prefetch_stop - drop one user; the last stops the worker
 * @stats:	optional, receives the counters so far
 */
void btrfs_io_prefetch_stop(struct btrfs_io_dev *dev, struct btrfs_io_prefetch_stats *stats);

/** btrfs_io_prefetch_stats_get - the counters so far (zeros when not started) */
void btrfs_io_prefetch_stats_get(struct btrfs_io_dev *dev, struct btrfs_io_prefetch_stats *stats);

/** btrfs_io_prefetch - queue [off, off + len) for the worker; a hint, never fails */
void btrfs_io_prefetch(struct btrfs_io_dev *dev, u64 off, u64 len);

/* for io.c: copy a range a slot holds (1) or say it holds none (0) */
int btrfs_io_prefetch_take(struct btrfs_io_dev *dev, void *buf, size_t len, u64 off);
/* for io.c: drop the slots overlapping a range about to be written */
void btrfs_io_prefetch_drop(struct btrfs_io_dev *dev, u64 off, u64 len);

/** btrfs_io_flush - make earlier writes durable (fsync for files) */
int btrfs_io_flush(struct btrfs_io_dev *dev);

#endif /* VOLCTL_KERNEL_SHARED_IO_H */
