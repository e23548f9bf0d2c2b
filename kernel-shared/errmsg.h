/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One-line error messages of the offline engine.
 *
 * The library never prints.  When it fails with more to say than an errno
 * (almost always -EUCLEAN: corrupt on-disk data), it writes a short
 * lowercase message, object first, into a caller-visible buffer, e.g.
 * "tree block 30425088: checksum mismatch (mirror 1)".  The first message
 * of a failure wins: lower layers set it, upper layers only add one when
 * the buffer is still empty (btrfs_errmsg_set_once()).
 */
#ifndef VOLCTL_KERNEL_SHARED_ERRMSG_H
#define VOLCTL_KERNEL_SHARED_ERRMSG_H

#include <stdarg.h>
#include <stdio.h>

#define BTRFS_ERRMSG_SIZE	256

/* Overwrite @buf (BTRFS_ERRMSG_SIZE bytes) with the formatted message */
static inline __attribute__((format(printf, 2, 3)))
void btrfs_errmsg_set(char *buf, const char *fmt, ...)
{
	va_list ap;

	if (!buf)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, BTRFS_ERRMSG_SIZE, fmt, ap);
	va_end(ap);
}

/* Like btrfs_errmsg_set() but keep a message that is already there */
static inline __attribute__((format(printf, 2, 3)))
void btrfs_errmsg_set_once(char *buf, const char *fmt, ...)
{
	va_list ap;

	if (!buf || buf[0])
		return;
	va_start(ap, fmt);
	vsnprintf(buf, BTRFS_ERRMSG_SIZE, fmt, ap);
	va_end(ap);
}

#endif /* VOLCTL_KERNEL_SHARED_ERRMSG_H */
