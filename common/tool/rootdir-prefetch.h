/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `mkfs --rootdir`: reader threads that bring the next files into the page
 * cache ahead of the write (rootdir-prefetch.c); private to rootdir-write.c.
 */
#ifndef VOLCTL_COMMON_TOOL_ROOTDIR_PREFETCH_H
#define VOLCTL_COMMON_TOOL_ROOTDIR_PREFETCH_H

#include <stdint.h>

struct vc_rootdir;
struct rd_prefetch;

/*
 * The readers for one write of @rd (its sv_order made, rd->dry set), or
 * NULL: none (turned off, nothing to read, no memory): the write is the
 * same either way, only slower on a cold cache.
 */
struct rd_prefetch *rd_prefetch_start(const struct vc_rootdir *rd);
/* The writer reads byte @off of node @idx: the window moves on (NULL @pf: nothing) */
void rd_prefetch_at(struct rd_prefetch *pf, uint32_t idx, uint64_t off);
/* Stop and join the readers, free @pf (NULL: nothing) */
void rd_prefetch_stop(struct rd_prefetch *pf);

#endif /* VOLCTL_COMMON_TOOL_ROOTDIR_PREFETCH_H */
