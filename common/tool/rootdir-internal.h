/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `mkfs --rootdir`: the plan the scan (rootdir.c) makes and the write
 * (rootdir-write.c) follows; private to the two.
 */
#ifndef VOLCTL_COMMON_TOOL_ROOTDIR_INTERNAL_H
#define VOLCTL_COMMON_TOOL_ROOTDIR_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "common/tool/rootdir.h"
#include "kernel-shared/compress.h"
#include "kernel-shared/inode-write.h"

#define NONE		UINT32_MAX
#define MAX_EXTENT	(128ULL << 20)		/* the kernel's largest data extent */
#define IO_CHUNK	(1U << 20)
#define MAX_DEPTH	4096			/* never loop for ever on a bad source */
#define COMMIT_BYTES	(4ULL << 20)		/* new tree blocks per transaction */

struct rd_node {
	uint32_t parent;
	uint32_t first_child, nr_children;
	uint32_t name_off;
	uint16_t name_len;
	uint32_t mode, uid, gid;
	uint64_t size, rdev, dev, ino, nlink_src;
	struct btrfs_time atime, mtime, ctime;	/* as written (clamped) */
	struct btrfs_time src_mtime, src_ctime;	/* as read, to see a change */
	uint32_t xattr_off, xattr_len;
	uint32_t target_len;		/* symlink target at name_off + name_len */
	uint32_t sv;			/* subvolume the inode lives in */
	uint32_t sv_root;		/* subvolume this directory is the root of, or NONE */
	uint64_t bino;			/* inode number in that subvolume */
	uint32_t link_head, link_next;
	uint32_t nlink;			/* names in the subvolume (at the head) */
	uint64_t index;			/* DIR_INDEX in the parent */
	uint64_t dir_size;		/* directories: 2 * names of the same subvolume */
	uint64_t sv_names;		/* directories: 2 * names of subvolumes in it */
	uint64_t iflags;		/* BTRFS_INODE_* (--inode-flags) */
	uint32_t inline_c;		/* --compress: its inline compressed length, 0: not inline */
};

struct rd_subvol {
	uint32_t node;
	uint32_t parent_sv;
	uint64_t root_id;
};

struct vc_rootdir {
	struct vc_rootdir_opts o;
	int root_fd;
	struct rd_node *nodes;
	size_t nr, cap;
	char *arena;			/* names, symlink targets */
	size_t arena_len, arena_cap;
	uint8_t *xattrs;		/* per inode: [u16 name len][u32 value len][name][value]... */
	size_t xattrs_len, xattrs_cap;
	uint32_t *order;		/* preorder */
	struct rd_subvol *svs;
	size_t nr_svs;
	uint64_t data_bytes, meta_bytes;
	char *err;
	size_t errlen;
	/* write: the open directories on the path to the last one asked for */
	uint32_t path_node[MAX_DEPTH + 1];
	int path_fd[MAX_DEPTH + 1];
	int path_depth;
	uint8_t *buf;
	bool dry;			/* measuring: the items, no file data read or written */
	size_t *sv_order;		/* subvolumes in preorder */
	size_t nr_sv_order;
	size_t w_j, w_k;		/* where the next transaction goes on */
	bool w_done;
	struct btrfs_compress_ctx cctx;	/* --compress */
	uint8_t *cbuf;			/* one compressed chunk */
	size_t cbuf_cap;
	struct vc_rootdir_stats *st;
	struct rd_prefetch *pf;		/* read-ahead of the files (rootdir-prefetch.h) */
};

/* Shared by the two halves (rootdir.c: the scan, rootdir-write.c: the write) */
const char *rd_node_name(const struct vc_rootdir *rd, const struct rd_node *n);
/* The message "DIR/path: @what" (or the errno's), @ret handed back */
int rd_fail(struct vc_rootdir *rd, uint32_t idx, int ret, const char *what);
/* Whether the data of node @n is compressed: with --compress, unless nodatasum or nodatacow */
bool rd_compress_node(const struct vc_rootdir *rd, const struct rd_node *n);

#endif /* VOLCTL_COMMON_TOOL_ROOTDIR_INTERNAL_H */
