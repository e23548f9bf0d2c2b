// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mkfs --rootdir`, the second step: the plan of rootdir.c written into
 * the image (see rootdir.h and the rules at the top of rootdir.c), in
 * commits of COMMIT_BYTES of new tree blocks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "common/tool/rootdir.h"
#include "common/tool/rootdir-internal.h"
#include "common/tool/rootdir-prefetch.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/fs.h"
#include "kernel-shared/transaction.h"
#include "kernel-shared/alloc.h"
#include "kernel-shared/compress.h"
#include "kernel-shared/data-write.h"
#include "kernel-shared/inode-write.h"
#include "kernel-shared/subvol-create.h"

/* ---- writing ---- */

/* A file descriptor of directory node @dir, opening what the cached path lacks */
static int dir_fd(struct vc_rootdir *rd, uint32_t dir)
{
	uint32_t chain[MAX_DEPTH + 1];
	int depth = 0, common = 0;

	for (uint32_t i = dir; i != 0 && depth < MAX_DEPTH; i = rd->nodes[i].parent)
		chain[depth++] = i;
	/* chain[depth-1] is the top child; path_node[k] is the node at level k+1 */
	while (common < depth && common < rd->path_depth &&
	       rd->path_node[common] == chain[depth - 1 - common])
		common++;
	while (rd->path_depth > common)
		close(rd->path_fd[--rd->path_depth]);
	while (rd->path_depth < depth) {
		uint32_t n = chain[depth - 1 - rd->path_depth];
		int parent = rd->path_depth ? rd->path_fd[rd->path_depth - 1] : rd->root_fd;
		int fd = openat(parent, rd_node_name(rd, &rd->nodes[n]),
				O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (fd < 0)
			return rd_fail(rd, n, -errno, NULL);
		rd->path_node[rd->path_depth] = n;
		rd->path_fd[rd->path_depth++] = fd;
	}
	return depth ? rd->path_fd[depth - 1] : rd->root_fd;
}

static void close_path(struct vc_rootdir *rd)
{
	while (rd->path_depth > 0)
		close(rd->path_fd[--rd->path_depth]);
}

static bool same_status(const struct rd_node *n, const struct stat *st)
{
	return (uint64_t)st->st_ino == n->ino && (uint64_t)st->st_size == n->size &&
	       st->st_mtim.tv_sec == n->src_mtime.sec &&
	       (uint32_t)st->st_mtim.tv_nsec == n->src_mtime.nsec &&
	       st->st_ctim.tv_sec == n->src_ctime.sec &&
	       (uint32_t)st->st_ctim.tv_nsec == n->src_ctime.nsec;
}

static int open_file(struct vc_rootdir *rd, uint32_t idx)
{
	int dfd = dir_fd(rd, rd->nodes[idx].parent), fd;
	const char *name = rd_node_name(rd, &rd->nodes[idx]);

	if (dfd < 0)
		return dfd;
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOATIME);
	if (fd < 0 && errno == EPERM)
		fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return rd_fail(rd, idx, -errno, NULL);
	return fd;
}

#if VOLCTL_FAULT_INJECTION
/*
 * Test builds: VOLCTL_TEST_CHANGE_FILE=NAME appends a byte to the file of
 * that name once its first piece is read, as a writer racing mkfs would
 */
static void test_change(struct vc_rootdir *rd, uint32_t idx)
{
	const char *name = getenv("VOLCTL_TEST_CHANGE_FILE");
	int dfd, fd;

	if (!name || strcmp(name, rd_node_name(rd, &rd->nodes[idx])))
		return;
	dfd = dir_fd(rd, rd->nodes[idx].parent);
	fd = dfd < 0 ? -1 : openat(dfd, name, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = write(fd, "!", 1);

		(void)n;
		close(fd);
	}
}
#else
static void test_change(struct vc_rootdir *rd, uint32_t idx)
{
	(void)rd;
	(void)idx;
}
#endif

/* @len bytes of @fd at @off into @buf, zeros after the end of the file */
static int read_chunk(struct vc_rootdir *rd, uint32_t idx, int fd, uint64_t off, uint8_t *buf,
		      size_t len)
{
	size_t got = 0;

	rd_prefetch_at(rd->pf, idx, off);
	while (got < len) {
		ssize_t r = pread(fd, buf + got, len - got, (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return rd_fail(rd, idx, -errno, NULL);
		if (r == 0)
			break;
		got += (size_t)r;
	}
	if (got < len && off + got < rd->nodes[idx].size)
		return rd_fail(rd, idx, -EIO, "changed while it was copied (shorter)");
	memset(buf + got, 0, len - got);
	return 0;
}

/* Bytes [@start, @end) of @fd as data extents of @ino */
static int copy_range(struct btrfs_trans_handle *trans, struct vc_rootdir *rd, uint32_t idx,
		      int fd, struct btrfs_root *root, uint64_t start, uint64_t end, uint64_t *nbytes)
{
	const struct rd_node *n = &rd->nodes[idx];
	/* nodatacow implies nodatasum, as the kernel sets them together */
	const bool nosum = n->iflags & (BTRFS_INODE_NODATASUM | BTRFS_INODE_NODATACOW);

	while (start < end) {
		uint64_t len = end - start < MAX_EXTENT ? end - start : MAX_EXTENT;
		uint64_t bytenr, done = 0;
		int ret;

		/* a shorter extent where a block group ends: data packs them full */
		ret = btrfs_alloc_data_upto(trans, len, rd->o.sectorsize, &bytenr, &len);
		if (ret < 0)
			return rd_fail(rd, idx, ret, trans->fs->errmsg[0] ? trans->fs->errmsg : NULL);
		while (done < len && rd->dry) {
			ret = nosum ? 0 : btrfs_data_write(trans, bytenr, NULL, len);
			if (ret < 0)
				return rd_fail(rd, idx, ret, NULL);
			done = len;
		}
		while (done < len) {
			size_t piece = len - done < IO_CHUNK ? (size_t)(len - done) : IO_CHUNK;

			ret = read_chunk(rd, idx, fd, start + done, rd->buf, piece);
			if (ret < 0)
				return ret;
			ret = nosum ? btrfs_data_write_nocsum(trans, bytenr + done, rd->buf, piece) :
				btrfs_data_write(trans, bytenr + done, rd->buf, piece);
			if (ret < 0)
				return rd_fail(rd, idx, ret, NULL);
			if (!done && start == 0)
				test_change(rd, idx);
			done += piece;
		}
		ret = btrfs_insert_file_extent(trans, root, n->bino, start, bytenr, len, len);
		if (ret < 0)
			return rd_fail(rd, idx, ret, NULL);
		*nbytes += len;
		rd->st->data_bytes += len;
		start += len;
	}
	return 0;
}


/* One data extent of @len bytes from @buf (@disk bytes of it on disk) */
static int write_extent(struct btrfs_trans_handle *trans, struct vc_rootdir *rd, uint32_t idx,
			struct btrfs_root *root, uint64_t file_off, const uint8_t *buf,
			uint64_t len, uint64_t disk, uint8_t type)
{
	uint64_t ss = rd->o.sectorsize, alloc = (disk + ss - 1) / ss * ss, bytenr;
	int ret;

	ret = btrfs_alloc_data(trans, alloc, &bytenr);
	if (ret < 0)
		return rd_fail(rd, idx, ret, trans->fs->errmsg[0] ? trans->fs->errmsg : NULL);
	/* a measuring run (--shrink): the same items, nothing on the device */
	ret = btrfs_data_write(trans, bytenr, rd->dry ? NULL : buf, disk);
	if (!ret && type)
		ret = btrfs_insert_compressed_extent(trans, root, rd->nodes[idx].bino, file_off,
						     bytenr, alloc, len, type);
	else if (!ret)
		ret = btrfs_insert_file_extent(trans, root, rd->nodes[idx].bino, file_off, bytenr,
					       alloc, len);
	if (ret < 0)
		return rd_fail(rd, idx, ret, NULL);
	rd->st->data_bytes += alloc;
	return 0;
}

/*
 * --compress: bytes [@start, @end) of @fd in chunks of 128 KiB, each its own
 * extent when it is compressed (it frees a sector: kernel-shared/compress.h);
 * chunks stored plain next to each other share one extent of up to IO_CHUNK
 * bytes, gathered in rd->buf.  A measuring run (--shrink) reads and
 * compresses too: the extents it counts are the ones the real run makes.
 */
static int copy_range_compressed(struct btrfs_trans_handle *trans, struct vc_rootdir *rd,
				 uint32_t idx, int fd, struct btrfs_root *root, uint64_t start,
				 uint64_t end, uint64_t *nbytes)
{
	const struct rd_node *n = &rd->nodes[idx];
	uint64_t plain = 0;		/* the run [start - plain, start) in rd->buf */
	int ret = 0;

	while (start < end && !ret) {
		uint64_t len = end - start < BTRFS_MAX_UNCOMPRESSED ? end - start :
			       BTRFS_MAX_UNCOMPRESSED;
		/* the file's bytes only: the rest of its last sector is no input */
		uint64_t in = n->size - start < len ? n->size - start : len;
		uint8_t *at = rd->buf + plain;
		long c;

		ret = read_chunk(rd, idx, fd, start, at, (size_t)len);
		if (ret < 0)
			return ret;
		c = btrfs_compress(&rd->cctx, at, (size_t)in, rd->cbuf, rd->cbuf_cap);
		if (c < 0 && c != -E2BIG)
			return rd_fail(rd, idx, (int)c, "compression failed");
		*nbytes += len;
		if (c > 0 && btrfs_compress_keep(rd->o.sectorsize, len, (uint64_t)c)) {
			if (plain)
				ret = write_extent(trans, rd, idx, root, start - plain, rd->buf,
						   plain, plain, 0);
			plain = 0;
			if (!ret)
				ret = write_extent(trans, rd, idx, root, start, rd->cbuf, len,
						   (uint64_t)c, rd->cctx.type);
			if (!ret && !start)
				test_change(rd, idx);
			start += len;
			continue;
		}
		plain += len;
		start += len;
		if (start == len)
			test_change(rd, idx);
		if (plain + BTRFS_MAX_UNCOMPRESSED > IO_CHUNK) {
			ret = write_extent(trans, rd, idx, root, start - plain, rd->buf, plain,
					   plain, 0);
			plain = 0;
		}
	}
	if (!ret && plain)
		ret = write_extent(trans, rd, idx, root, start - plain, rd->buf, plain, plain, 0);
	return ret;
}

/*
 * --compress, a file of at most one sector: an inline compressed extent
 * when the kernel would make one
 * Return: 1 done, 0 not (the uncompressed rules apply), <0.
 */
static int copy_small_compressed(struct btrfs_trans_handle *trans, struct vc_rootdir *rd,
				 uint32_t idx, int fd, struct btrfs_root *root, uint64_t *nbytes)
{
	const struct rd_node *n = &rd->nodes[idx];
	long c;
	int ret;

	if (!rd_compress_node(rd, n) || n->size > rd->o.sectorsize ||
	    (lseek(fd, 0, SEEK_DATA) < 0 && errno == ENXIO))
		return 0;
	ret = read_chunk(rd, idx, fd, 0, rd->buf, (size_t)n->size);
	if (ret < 0)
		return ret;
	c = btrfs_compress(&rd->cctx, rd->buf, (size_t)n->size, rd->cbuf, rd->cbuf_cap);
	if (c < 0 && c != -E2BIG)
		return rd_fail(rd, idx, (int)c, "compression failed");
	if (c < 0 || !btrfs_compress_inline_ok(rd->o.nodesize, rd->o.sectorsize, n->size,
					       (size_t)c))
		return 0;
	ret = btrfs_insert_inline_compressed(trans, root, n->bino, rd->cbuf, (size_t)c, n->size,
					     rd->cctx.type);
	if (ret < 0)
		return rd_fail(rd, idx, ret, NULL);
	*nbytes = n->size;
	rd->st->inline_bytes += n->size;
	return 1;
}

/* Bytes [@start, @end) of @fd as data extents, compressed or not */
static int copy_data(struct btrfs_trans_handle *trans, struct vc_rootdir *rd, uint32_t idx,
		     int fd, struct btrfs_root *root, uint64_t start, uint64_t end, uint64_t *nbytes)
{
	if (rd_compress_node(rd, &rd->nodes[idx]))
		return copy_range_compressed(trans, rd, idx, fd, root, start, end, nbytes);
	return copy_range(trans, rd, idx, fd, root, start, end, nbytes);
}

/* The data of regular file node @idx; its nbytes in *@nbytes */
static int copy_file(struct btrfs_trans_handle *trans, struct vc_rootdir *rd, uint32_t idx,
		     struct btrfs_root *root, uint64_t *nbytes)
{
	const struct rd_node *n = &rd->nodes[idx];
	uint64_t ss = rd->o.sectorsize, off = 0, alloc_end = (n->size + ss - 1) / ss * ss;
	struct stat st;
	int fd, ret = 0;

	*nbytes = 0;
	if (!n->size)
		return 0;
	rd_prefetch_at(rd->pf, idx, 0);
	fd = open_file(rd, idx);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 || !same_status(n, &st)) {
		ret = rd_fail(rd, idx, -EAGAIN, "changed since it was read (copy it again)");
		goto out;
	}
	ret = copy_small_compressed(trans, rd, idx, fd, root, nbytes);
	if (ret < 0)
		goto out;
	if (ret > 0) {
		ret = 0;
		goto check;
	}
	if (n->size <= btrfs_max_inline(rd->o.nodesize, rd->o.sectorsize)) {
		ssize_t r = pread(fd, rd->buf, n->size, 0);

		if (r < 0 || (uint64_t)r != n->size) {
			ret = rd_fail(rd, idx, r < 0 ? -errno : -EIO, r < 0 ? NULL :
				   "changed while it was copied (shorter)");
			goto out;
		}
		/* a small file that is all hole stays without an extent */
		if (lseek(fd, 0, SEEK_DATA) < 0 && errno == ENXIO)
			goto check;
		ret = btrfs_insert_inline_extent(trans, root, n->bino, rd->buf, n->size);
		if (ret < 0) {
			ret = rd_fail(rd, idx, ret, NULL);
			goto out;
		}
		*nbytes = n->size;
		rd->st->inline_bytes += n->size;
		goto check;
	}
	while (off < alloc_end) {
		off_t ds = lseek(fd, (off_t)off, SEEK_DATA), de;

		if (ds < 0 && errno == ENXIO)
			break;
		if (ds < 0) {
			ret = rd_fail(rd, idx, -errno, NULL);
			goto out;
		}
		de = lseek(fd, ds, SEEK_HOLE);
		if (de < 0) {
			ret = rd_fail(rd, idx, -errno, NULL);
			goto out;
		}
		ds = (off_t)((uint64_t)ds / ss * ss);
		de = (off_t)(((uint64_t)de + ss - 1) / ss * ss);
		if ((uint64_t)de > alloc_end)
			de = (off_t)alloc_end;
		if ((uint64_t)ds < off)
			ds = (off_t)off;
		if (ds >= de)
			break;
		ret = copy_data(trans, rd, idx, fd, root, (uint64_t)ds, (uint64_t)de, nbytes);
		if (ret < 0)
			goto out;
		off = (uint64_t)de;
	}
check:
	if (fstat(fd, &st) < 0 || !same_status(n, &st))
		ret = rd_fail(rd, idx, -EAGAIN, "changed while it was copied");
out:
	close(fd);
	return ret;
}

static int write_xattrs(struct btrfs_trans_handle *trans, struct vc_rootdir *rd, uint32_t idx,
			struct btrfs_root *root, uint64_t ino)
{
	const struct rd_node *n = &rd->nodes[idx];
	const uint8_t *p = rd->xattrs + n->xattr_off, *end = p + n->xattr_len;

	while (p < end) {
		size_t nl = (size_t)p[0] | (size_t)p[1] << 8;
		uint32_t vl;
		int ret;

		memcpy(&vl, p + 2, 4);
		ret = btrfs_insert_xattr(trans, root, ino, (const char *)p + 6, nl, p + 6 + nl, vl);
		if (ret < 0)
			return rd_fail(rd, idx, ret, NULL);
		p += 6 + nl + vl;
	}
	return 0;
}

static uint8_t file_type(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return BTRFS_FT_REG_FILE;
	case S_IFDIR: return BTRFS_FT_DIR;
	case S_IFCHR: return BTRFS_FT_CHRDEV;
	case S_IFBLK: return BTRFS_FT_BLKDEV;
	case S_IFIFO: return BTRFS_FT_FIFO;
	case S_IFSOCK: return BTRFS_FT_SOCK;
	case S_IFLNK: return BTRFS_FT_SYMLINK;
	default: return BTRFS_FT_UNKNOWN;
	}
}

static void inode_args(const struct vc_rootdir *rd, const struct rd_node *n,
		       struct btrfs_inode_args *a)
{
	memset(a, 0, sizeof(*a));
	a->mode = n->mode;
	a->uid = n->uid;
	a->gid = n->gid;
	a->nlink = S_ISDIR(n->mode) ? 1 : n->nlink;
	a->size = S_ISDIR(n->mode) ? n->dir_size + n->sv_names : n->size;
	if (S_ISCHR(n->mode) || S_ISBLK(n->mode))
		a->rdev = n->rdev;
	a->flags = n->iflags;
	a->atime = n->atime;
	a->mtime = n->mtime;
	a->ctime = n->ctime;
	a->otime = (struct btrfs_time){ rd->o.now_sec, rd->o.now_nsec };
}

static int link_cmp(const void *a, const void *b)
{
	const struct btrfs_link_name *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

/* INODE_REF/EXTREF items of the inode headed by @head, one call per parent directory */
static int write_refs(struct btrfs_trans_handle *trans, struct vc_rootdir *rd, uint32_t head,
		      struct btrfs_root *root)
{
	struct btrfs_link_name *names;
	uint32_t *members;
	size_t nr = 0, cap = rd->nodes[head].nlink;
	int ret = 0;

	names = malloc(cap * sizeof(*names));
	members = malloc(cap * sizeof(*members));
	if (!names || !members) {
		ret = -ENOMEM;
		goto out;
	}
	for (uint32_t m = head; m != NONE && nr < cap; m = rd->nodes[m].link_next)
		members[nr++] = m;
	/* group by parent directory: members are few per parent, quadratic is fine */
	for (size_t i = 0; i < nr && !ret; i++) {
		uint32_t parent;
		size_t k = 0;

		if (members[i] == NONE)
			continue;	/* written with an earlier name in its directory */
		parent = rd->nodes[members[i]].parent;
		for (size_t j = i; j < nr; j++) {
			const struct rd_node *n;

			if (members[j] == NONE || rd->nodes[members[j]].parent != parent)
				continue;
			n = &rd->nodes[members[j]];
			names[k++] = (struct btrfs_link_name){ n->index, rd_node_name(rd, n),
							       n->name_len };
			members[j] = NONE;
		}
		qsort(names, k, sizeof(*names), link_cmp);
		ret = btrfs_insert_inode_refs(trans, root, rd->nodes[head].bino,
					      rd->nodes[parent].bino, names, k);
		if (ret < 0)
			ret = rd_fail(rd, head, ret, NULL);
	}
out:
	free(names);
	free(members);
	return ret;
}

/* Node @idx of subvolume tree @root: its entry, and its inode when it is the first name */
static int write_node(struct btrfs_trans_handle *trans, struct vc_rootdir *rd, uint32_t idx,
		      struct btrfs_root *root)
{
	const struct rd_node *n = &rd->nodes[idx];
	const struct rd_node *h = &rd->nodes[n->link_head];
	struct btrfs_key loc = { h->bino, BTRFS_INODE_ITEM_KEY, 0 };
	struct btrfs_inode_args a;
	int ret;

	ret = btrfs_insert_dir_entry(trans, root, rd->nodes[n->parent].bino, n->index,
				     rd_node_name(rd, n), n->name_len, &loc, file_type(n->mode));
	if (ret < 0)
		return rd_fail(rd, idx, ret, ret == -EOVERFLOW ? "too many names with one hash" : NULL);
	if (n->link_head != idx) {
		rd->st->hardlinks++;
		return 0;
	}
	inode_args(rd, n, &a);
	if (S_ISREG(n->mode)) {
		ret = copy_file(trans, rd, idx, root, &a.nbytes);
		rd->st->files++;
	} else if (S_ISLNK(n->mode)) {
		ret = btrfs_insert_inline_extent(trans, root, n->bino, rd_node_name(rd, n) +
						 n->name_len + 1, n->target_len);
		a.nbytes = n->target_len;
		rd->st->symlinks++;
		if (ret < 0)
			ret = rd_fail(rd, idx, ret, NULL);
	} else if (S_ISDIR(n->mode)) {
		rd->st->dirs++;
	} else {
		rd->st->specials++;
	}
	if (!ret)
		ret = btrfs_insert_inode_item(trans, root, n->bino, &a);
	if (!ret)
		ret = write_refs(trans, rd, idx, root);
	if (!ret)
		ret = write_xattrs(trans, rd, idx, root, n->bino);
	if (ret < 0)
		return rd->err[0] ? ret : rd_fail(rd, idx, ret, NULL);
	rd->st->inodes++;
	return 0;
}

/* The root directory of a subvolume (or a directory holding subvolumes): its final item */
static int rewrite_dir_inode(struct btrfs_trans_handle *trans, struct vc_rootdir *rd,
			     uint32_t idx, uint64_t root_id)
{
	const struct rd_node *n = &rd->nodes[idx];
	struct btrfs_inode_args a;
	struct btrfs_root *root;
	int ret;

	ret = btrfs_read_root(trans->fs, root_id, &root);
	if (ret < 0)
		return ret;
	inode_args(rd, n, &a);
	ret = btrfs_update_inode_item(trans, root, n->sv_root != NONE ?
				      BTRFS_FIRST_FREE_OBJECTID : n->bino, &a);
	return ret < 0 ? rd_fail(rd, idx, ret, NULL) : 0;
}

static int make_subvol(struct btrfs_trans_handle *trans, struct vc_rootdir *rd, size_t s)
{
	struct rd_subvol *sv = &rd->svs[s];
	const struct rd_node *n = &rd->nodes[sv->node];
	struct btrfs_subvol_create_args a = { 0 };
	int ret;

	a.parent_root = rd->svs[sv->parent_sv].root_id;
	a.parent_dir = rd->nodes[n->parent].bino;
	a.name = rd_node_name(rd, n);
	a.name_len = n->name_len;
	a.uid = n->uid;
	a.gid = n->gid;
	a.now_sec = (u64)rd->o.now_sec;
	a.now_nsec = rd->o.now_nsec;
	ret = btrfs_subvol_create(trans, &a);
	if (ret < 0)
		return rd_fail(rd, sv->node, ret, trans->fs->errmsg[0] ? trans->fs->errmsg : NULL);
	sv->root_id = a.subvolid;
	rd->st->subvols++;
	return 0;
}

/* COMMIT_BYTES; test builds take VOLCTL_TEST_COMMIT_BYTES, to commit often */
static u64 commit_bytes(void)
{
#if VOLCTL_FAULT_INJECTION
	const char *s = getenv("VOLCTL_TEST_COMMIT_BYTES");

	if (s && strtoull(s, NULL, 10))
		return strtoull(s, NULL, 10);
#endif
	return COMMIT_BYTES;
}

/*
 * One transaction of the copy, from where the last one stopped: a tree of
 * any size is written in commits of about COMMIT_BYTES of new tree blocks,
 * so memory stays bounded; where they fall depends on the tree alone, so
 * the image does too.  Return: 0 commit and go on, 1 (with rd->w_done) the
 * last commit, <0 error.
 */
static int write_op(struct btrfs_trans_handle *trans, void *arg)
{
	struct vc_rootdir *rd = arg;
	u64 budget = commit_bytes() / trans->fs->nodesize;
	int ret = 0;

	while (rd->w_j < rd->nr_sv_order && !ret) {
		size_t s = rd->sv_order[rd->w_j];
		struct btrfs_root *root;

		if (s && !rd->svs[s].root_id)
			ret = make_subvol(trans, rd, s);
		if (!ret)
			ret = btrfs_read_root(trans->fs, rd->svs[s].root_id, &root);
		for (; rd->w_k < rd->nr && !ret; rd->w_k++) {
			uint32_t i = rd->order[rd->w_k];

			if (rd->nodes[i].sv != s || rd->nodes[i].sv_root != NONE)
				continue;
			if (trans->nr_blocks >= budget)
				return 0;	/* commit; the next transaction goes on here */
			ret = write_node(trans, rd, i, root);
		}
		if (!ret)
			ret = write_xattrs(trans, rd, rd->svs[s].node, root,
					   BTRFS_FIRST_FREE_OBJECTID);
		rd->w_j++;
		rd->w_k = 0;
	}
	/* last: making a subvolume touched its parent directory and root directory */
	for (size_t s = 0; s < rd->nr_svs && !ret; s++) {
		uint32_t node = rd->svs[s].node;

		ret = rewrite_dir_inode(trans, rd, node, rd->svs[s].root_id);
		if (!ret && s)
			ret = rewrite_dir_inode(trans, rd, rd->nodes[node].parent,
						rd->svs[rd->nodes[rd->nodes[node].parent].sv].root_id);
	}
	if (!ret)
		rd->w_done = true;
	return ret;
}

int vc_rootdir_write(struct btrfs_fs *fs, struct vc_rootdir *rd, bool measure,
		     struct vc_rootdir_stats *st, char *err, size_t errlen)
{
	int ret;

	rd->dry = measure;
	memset(st, 0, sizeof(*st));
	rd->st = st;
	rd->err = err;
	rd->errlen = errlen;
	err[0] = 0;
	rd->buf = malloc(IO_CHUNK);
	if (!rd->buf)
		return -ENOMEM;
	/* in preorder: a subvolume's parent is made before it */
	rd->sv_order = malloc(rd->nr_svs * sizeof(*rd->sv_order));
	if (!rd->sv_order) {
		free(rd->buf);
		return -ENOMEM;
	}
	rd->nr_sv_order = 0;
	for (size_t k = 0; k < rd->nr && rd->nr_sv_order < rd->nr_svs; k++)
		if (rd->nodes[rd->order[k]].sv_root != NONE)
			rd->sv_order[rd->nr_sv_order++] = rd->nodes[rd->order[k]].sv_root;
	for (size_t sv = 1; sv < rd->nr_svs; sv++)
		rd->svs[sv].root_id = 0;	/* made anew (a measuring run made them too) */
	rd->w_j = rd->w_k = 0;
	rd->w_done = false;
	btrfs_fs_clear_error(fs);
	rd->pf = rd_prefetch_start(rd);
	do {
		ret = btrfs_run_transaction(fs, 0, write_op, rd);
	} while (!ret && !rd->w_done);
	rd_prefetch_stop(rd->pf);
	rd->pf = NULL;
	free(rd->sv_order);
	rd->sv_order = NULL;
	free(rd->buf);
	rd->buf = NULL;
	close_path(rd);
	if (ret < 0 && !err[0])
		snprintf(err, errlen, "--rootdir %s: %s", rd->o.dir,
			 fs->errmsg[0] ? fs->errmsg : strerror(-ret));
	return ret < 0 ? ret : 0;
}
