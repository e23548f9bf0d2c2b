/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The library's growable arrays: one helper instead of one per file.
 */
#ifndef VOLCTL_KERNEL_SHARED_ARRAY_H
#define VOLCTL_KERNEL_SHARED_ARRAY_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/**
 * btrfs_array_grow - make room for @need elements of @elem bytes in *@p
 *
 * *@cap is the room *@p has; it doubles (from 64) until it holds @need,
 * and *@p is reallocated.  Nothing changes when there is room already or
 * on failure.
 * Return: 0, or -ENOMEM (also for a size that does not fit a size_t).
 */
static inline int btrfs_array_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return -ENOMEM;
		n *= 2;
	}
	if (elem && n > SIZE_MAX / elem)
		return -ENOMEM;
	q = realloc(*p, n * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

#endif /* VOLCTL_KERNEL_SHARED_ARRAY_H */
