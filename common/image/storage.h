/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Every name of one storage, and a claim on all of them for a writer.
 *
 * The bytes of an image are reachable through several names: the file, each
 * loop device attached to it, the file behind a loop device, the partitions
 * of a block device, the devices below a device-mapper device.  Two writers
 * (or a writer and a kernel mount) that use two of these names would not see
 * each other through a lock on one name, so a writer claims them all: every
 * regular file is flock()ed, every block device opened O_EXCL (which also
 * keeps the kernel from mounting it while the claim lasts).  When a name is
 * taken the message says by whom: a mount, a device-mapper device, or the
 * process (another volctl) that holds it.
 *
 * What no claim can prevent: a loop device attached to the file after the
 * last check and mounted at once (`mount -o loop`).  vc_storage_recheck(),
 * run just before the superblocks of a commit are written, catches such a
 * mount up to that moment; one started later sees the old state until its
 * kernel reads the new superblock (see volctl(8)).
 */
#ifndef VOLCTL_COMMON_STORAGE_H
#define VOLCTL_COMMON_STORAGE_H

#include <stddef.h>

struct vc_storage;

/**
 * vc_storage_open - open @path and claim every name of its storage: the one
 * "is it mounted or held" test of volctl (common/image/image.c calls it once for
 * each member of an image)
 * @flags:	open(2) flags for @path (O_RDWR); O_CLOEXEC is added, and
 *		O_EXCL for a block device
 * @wait_ms:	when another process holds a name (its lock or exclusive
 *		open, not a mount): 0 fail at once, N try again for up to N
 *		milliseconds, VC_WAIT_FOREVER until it is let go (--wait)
 * @out:	receives the claim; release it with vc_storage_close().  NULL:
 *		a reader's look, nothing claimed or kept open: only whether a
 *		name is mounted (-EBUSY with @err naming the mount)
 *
 * Return: 0, -EBUSY (or -EWOULDBLOCK for a lock) when a name is mounted or
 * held (@err names the holder, and how long it waited), or another negative
 * errno with @err set.
 */
int vc_storage_open(const char *path, int flags, long long wait_ms, struct vc_storage **out,
		    char *err, size_t errlen);

#define VC_WAIT_FOREVER	(-1LL)

/** vc_storage_fd - the descriptor of the path given to vc_storage_open() */
int vc_storage_fd(const struct vc_storage *s);

/**
 * vc_storage_recheck - look for names that appeared since the claim (a loop
 * device attached since) and claim them too
 * Return: 0, or -EBUSY with @err naming the new holder.
 */
int vc_storage_recheck(struct vc_storage *s, char *err, size_t errlen);

/** vc_storage_close - release the claim and close every descriptor; NULL is a no-op */
void vc_storage_close(struct vc_storage *s);

#endif /* VOLCTL_COMMON_STORAGE_H */
