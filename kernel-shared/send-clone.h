/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The clone source of an extent, as the kernel's send finds it (its
 * find_extent_clone()): the extent tree's back references walked in the
 * kernel's order, the first reference at least as long as the extent
 * ending the walk, with the send's cache of the leaves walked, which lives
 * as long as the send (struct clone_search).  Not a public interface: the
 * full (send-size.c) and incremental (send-incr*.c) send models share it.
 */
#ifndef VOLCTL_KERNEL_SHARED_SEND_CLONE_H
#define VOLCTL_KERNEL_SHARED_SEND_CLONE_H

#include <stdbool.h>

#include "ctree.h"
#include "items.h"

/* more references than this: the kernel writes instead of looking for a clone */
#define SEND_MAX_EXTENT_REFS	1024u
#define MAX_CLONE_ROOTS		64u

/*
 * The send's backref cache (the kernel's, since 6.2): for up to
 * BREF_CACHE_SIZE leaves, least recently used out first, the clone roots
 * that reach each (at most BREF_CACHE_ROOTS, or the leaf is not kept).  A
 * leaf found in it is offered to the clone search at once, while the
 * references are still being resolved, so it changes which source wins.
 */
#define BREF_CACHE_SIZE		128u
#define BREF_CACHE_ROOTS	17u

struct bcache_ent {
	u64 leaf, stamp;
	u32 nr;
	u8 roots[BREF_CACHE_ROOTS];	/* indexes into croots[], in walk order */
};

/* a clone root: the subvolume sent, the parent, a -c source */
struct croot {
	struct btrfs_root *root;
	u64 id;
	/* per extent: the best candidate */
	u64 ino, offset, num_bytes;
	bool found;
};

struct clone_search {
	struct btrfs_fs *fs;
	struct btrfs_root *send;		/* the subvolume sent */
	struct croot croots[MAX_CLONE_ROOTS];	/* by id, ascending */
	u32 nr_croots;
	/* set by the caller for each extent: the inode sent, how far it is written */
	u64 cur_ino, cur_next_write;
	/*
	 * With the subvolume sent its only clone root, the kernel does not
	 * resolve the extent's own data ref: the owner of the leaf holding the
	 * item and the item's offset less its extent offset, set per extent.
	 */
	u64 self_owner, self_offset;
	struct bcache_ent bcache[BREF_CACHE_SIZE];
	u32 nr_bcache;
	u64 bcache_clock;
};

/*
 * btrfs_send_find_clone - the clone source for file extent @fe at
 * @data_offset of an inode of @ino_size bytes: *@found is the clone root
 * whose ino, offset and num_bytes name it, or NULL (write the data).
 * Returns 0 or a negative errno.
 */
int btrfs_send_find_clone(struct clone_search *cs, const struct btrfs_file_extent_rec *fe,
			  u64 data_offset, u64 ino_size, struct croot **found);

#endif
