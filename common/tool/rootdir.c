// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mkfs --rootdir DIR` (see rootdir.h), the first step: the scan of the
 * tree into the plan that rootdir-write.c writes.
 *
 * The rules the image follows, documented in volctl-mkfs(8):
 * - names of a directory are sorted bytewise; inode numbers are given in
 *   that order, depth first (the directory before what it holds), from
 *   257 in each subvolume; DIR_INDEX from 2 in the same order;
 * - a hard link is one inode within a subvolume; names of one source
 *   inode in two subvolumes become two inodes, as btrfs-progs 6.19 does;
 * - times are the source's, to the nanosecond, clamped to
 *   SOURCE_DATE_EPOCH when it is set; otime is the mkfs time;
 * - files of at most btrfs_max_inline() bytes are inline; larger ones are
 *   written in extents of at most 128 MiB over the data the source has
 *   (SEEK_DATA/SEEK_HOLE), holes left out (the image has no-holes);
 * - a mount point inside DIR is not crossed, and the caller is told;
 * - with --compress, data is compressed as the kernel does
 *   (kernel-shared/compress.h): chunks of 128 KiB, each kept compressed
 *   only when it frees a sector (plain neighbours share extents of up to
 *   1 MiB), files of at most a sector inline compressed when they fit,
 *   everything else plain.
 * The source is walked through directory file descriptors, never by full
 * paths, so depth is limited only by the source; a file's status is read
 * again when it is copied and after, and a change fails the whole mkfs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include "common/tool/rootdir.h"
#include "common/tool/rootdir-internal.h"
#include "kernel-shared/compress.h"
#include "kernel-shared/inode-write.h"
#include "kernel-shared/array.h"

const char *rd_node_name(const struct vc_rootdir *rd, const struct rd_node *n)
{
	return rd->arena + n->name_off;
}

/* "DIR/a/b" of node @idx, for messages (cut at @len) */
static void node_path(const struct vc_rootdir *rd, uint32_t idx, char *out, size_t len)
{
	uint32_t chain[64];
	int depth = 0;
	size_t at;

	for (uint32_t i = idx; i != 0 && depth < 64; i = rd->nodes[i].parent)
		chain[depth++] = i;
	at = (size_t)snprintf(out, len, "%s", rd->o.dir);
	if (depth == 64 && at < len)
		at += (size_t)snprintf(out + at, len - at, "/...");
	while (depth-- > 0 && at < len) {
		const struct rd_node *n = &rd->nodes[chain[depth]];

		at += (size_t)snprintf(out + at, len - at, "/%.*s", (int)n->name_len,
				       rd_node_name(rd, n));
	}
}

int rd_fail(struct vc_rootdir *rd, uint32_t idx, int ret, const char *what)
{
	char path[1024];

	node_path(rd, idx, path, sizeof(path));
	snprintf(rd->err, rd->errlen, "%s: %s", path, what ? what : strerror(-ret));
	return ret;
}

static uint32_t map_id(const struct vc_id_map *m, size_t nr, uint32_t id)
{
	if (!nr)
		return id;
	for (size_t i = 0; i < nr; i++)
		if (id >= m[i].from && id - m[i].from < m[i].count)
			return m[i].to + (id - m[i].from);
	return 65534;
}

static struct btrfs_time src_time(const struct vc_rootdir *rd, const struct statx_timestamp *t)
{
	struct btrfs_time bt = { t->tv_sec, t->tv_nsec };

	if (rd->o.clamp && bt.sec > rd->o.clamp_sec) {
		bt.sec = rd->o.clamp_sec;
		bt.nsec = 0;
	}
	return bt;
}

/* POSIX ACL xattrs: a u32 version, then entries of u16 tag, u16 perm, u32 id (little endian) */
#define ACL_ENTRY_SIZE	8
#define ACL_TAG_USER	0x02
#define ACL_TAG_GROUP	0x08

/*
 * --uid-map/--gid-map in a POSIX ACL too: its named users and groups are
 * ids like an owner's, and a user namespace maps them the same way
 */
static void map_acl(const struct vc_rootdir *rd, const char *name, uint8_t *v, size_t len)
{
	if (strcmp(name, "system.posix_acl_access") && strcmp(name, "system.posix_acl_default"))
		return;
	if (!rd->o.nr_uid_map && !rd->o.nr_gid_map)
		return;
	for (size_t off = 4; off + ACL_ENTRY_SIZE <= len; off += ACL_ENTRY_SIZE) {
		uint16_t tag = (uint16_t)(v[off] | v[off + 1] << 8);
		uint32_t id = (uint32_t)v[off + 4] | (uint32_t)v[off + 5] << 8 |
			      (uint32_t)v[off + 6] << 16 | (uint32_t)v[off + 7] << 24;

		if (tag == ACL_TAG_USER)
			id = map_id(rd->o.uid_map, rd->o.nr_uid_map, id);
		else if (tag == ACL_TAG_GROUP)
			id = map_id(rd->o.gid_map, rd->o.nr_gid_map, id);
		else
			continue;
		for (int i = 0; i < 4; i++)
			v[off + 4 + i] = (uint8_t)(id >> (8 * i));
	}
}

static int name_cmp(const void *a, const void *b);

/* The names of an llistxattr() list, sorted: the same order whatever the source's */
static int sort_names(char *list, size_t len, char ***out, size_t *nr)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += !list[i];
	*out = malloc((n ? n : 1) * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	*nr = 0;
	for (char *p = list; p < list + len && *nr < n; p += strlen(p) + 1)
		(*out)[(*nr)++] = p;
	qsort(*out, *nr, sizeof(**out), name_cmp);
	return 0;
}

static int read_xattrs(struct vc_rootdir *rd, uint32_t idx, int dirfd, const char *name)
{
	struct rd_node *n;
	char path[64 + 256];
	char *list = NULL, **names = NULL;
	size_t nr = 0;
	ssize_t len;
	int ret = 0;

	/* the name through its directory, so no path is ever longer than this */
	snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", dirfd, name);
	len = name[0] ? llistxattr(path, NULL, 0) : flistxattr(dirfd, NULL, 0);
	if (len < 0)
		return errno == ENOTSUP || errno == ENOSYS ? 0 : rd_fail(rd, idx, -errno, NULL);
	if (!len)
		return 0;
	list = malloc((size_t)len);
	if (!list)
		return -ENOMEM;
	len = name[0] ? llistxattr(path, list, (size_t)len) : flistxattr(dirfd, list, (size_t)len);
	if (len < 0) {
		ret = rd_fail(rd, idx, -errno, NULL);
		goto out;
	}
	n = &rd->nodes[idx];
	n->xattr_off = (uint32_t)rd->xattrs_len;
	ret = sort_names(list, (size_t)len, &names, &nr);
	if (ret < 0)
		goto out;
	for (size_t k = 0; k < nr; k++) {
		const char *p = names[k];
		size_t nl = strlen(p);
		ssize_t vl = name[0] ? lgetxattr(path, p, NULL, 0) : fgetxattr(dirfd, p, NULL, 0);
		uint8_t *at;

		if (vl < 0) {
			if (errno == ENODATA)
				continue;
			ret = rd_fail(rd, idx, -errno, NULL);
			goto out;
		}
		ret = btrfs_array_grow((void **)&rd->xattrs, &rd->xattrs_cap, rd->xattrs_len + 6 + nl +
			   (size_t)vl, 1);
		if (ret < 0)
			goto out;
		at = rd->xattrs + rd->xattrs_len;
		vl = name[0] ? lgetxattr(path, p, at + 6 + nl, (size_t)vl) :
			       fgetxattr(dirfd, p, at + 6 + nl, (size_t)vl);
		if (vl < 0) {
			ret = rd_fail(rd, idx, -errno, NULL);
			goto out;
		}
		if (nl + (size_t)vl > btrfs_max_xattr_size(rd->o.nodesize)) {
			ret = rd_fail(rd, idx, -E2BIG, NULL);
			snprintf(rd->err + strlen(rd->err), rd->errlen - strlen(rd->err),
				 " (xattr %s of %zd bytes)", p, vl);
			goto out;
		}
		at[0] = (uint8_t)nl;
		at[1] = (uint8_t)(nl >> 8);
		memcpy(at + 2, &(uint32_t){ (uint32_t)vl }, 4);
		memcpy(at + 6, p, nl);
		map_acl(rd, p, at + 6 + nl, (size_t)vl);
		rd->xattrs_len += 6 + nl + (size_t)vl;
		rd->meta_bytes += 30 + 25 + nl + (size_t)vl;
	}
	rd->nodes[idx].xattr_len = (uint32_t)(rd->xattrs_len - rd->nodes[idx].xattr_off);
out:
	free(names);
	free(list);
	return ret;
}

static int add_name(struct vc_rootdir *rd, const char *s, size_t len, uint32_t *off)
{
	int ret = btrfs_array_grow((void **)&rd->arena, &rd->arena_cap, rd->arena_len + len + 1, 1);

	if (ret < 0)
		return ret;
	*off = (uint32_t)rd->arena_len;
	memcpy(rd->arena + rd->arena_len, s, len);
	rd->arena[rd->arena_len + len] = 0;
	rd->arena_len += len + 1;
	return 0;
}

/* --compress: the compressor, a buffer for one compressed chunk */
static int compress_init(struct vc_rootdir *rd)
{
	int ret;

	if (!rd->o.compress)
		return 0;
	ret = btrfs_compress_ctx_init(&rd->cctx, rd->o.compress, rd->o.compress_level,
				      rd->o.sectorsize);
	if (ret < 0)
		return ret;
	rd->cbuf_cap = btrfs_compress_bound(&rd->cctx, BTRFS_MAX_UNCOMPRESSED);
	rd->cbuf = malloc(rd->cbuf_cap);
	if (!rd->cbuf) {
		btrfs_compress_ctx_release(&rd->cctx);
		rd->o.compress = 0;
		return -ENOMEM;
	}
	return 0;
}

/* Whether the data of node @n is compressed: with --compress, unless nodatasum or nodatacow */
bool rd_compress_node(const struct vc_rootdir *rd, const struct rd_node *n)
{
	return rd->o.compress && !(n->iflags & (BTRFS_INODE_NODATASUM | BTRFS_INODE_NODATACOW));
}

/*
 * --compress, a file of more than max_inline bytes but at most a sector:
 * whether it becomes an inline compressed extent (the writer decides the
 * same on the same bytes), so the plan counts it in metadata, not data.
 * Return: its compressed length, or -1 (data; also when it cannot be read:
 * the scan refuses that file next).
 */
static long scan_inline_compressed(struct vc_rootdir *rd, const struct rd_node *n, int dirfd,
				   const char *name)
{
	uint8_t *buf = malloc(n->size ? n->size : 1);
	ssize_t got = -1;
	long c = -1;
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOATIME);
	if (fd < 0 && errno == EPERM)
		fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && buf && !(lseek(fd, 0, SEEK_DATA) < 0 && errno == ENXIO))
		got = pread(fd, buf, n->size, 0);
	if (got >= 0 && (uint64_t)got == n->size)
		c = btrfs_compress(&rd->cctx, buf, n->size, rd->cbuf, rd->cbuf_cap);
	if (c >= 0 && !btrfs_compress_inline_ok(rd->o.nodesize, rd->o.sectorsize, n->size,
						(size_t)c))
		c = -1;
	if (fd >= 0)
		close(fd);
	free(buf);
	return c < 0 ? -1 : c;
}

/* Status of @name in @dirfd (or @dirfd itself) into node @idx; 1: a mount point */
static int stat_node(struct vc_rootdir *rd, uint32_t idx, int dirfd, const char *name)
{
	struct rd_node *n = &rd->nodes[idx];
	struct statx sx;

	if (statx(dirfd, name, AT_SYMLINK_NOFOLLOW | (name[0] ? 0 : AT_EMPTY_PATH),
		  STATX_BASIC_STATS, &sx) < 0)
		return rd_fail(rd, idx, -errno, NULL);
	if (idx && (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
	    (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT))
		return 1;
	n->mode = sx.stx_mode;
	n->uid = rd->o.owner_set ? rd->o.owner_uid :
		 map_id(rd->o.uid_map, rd->o.nr_uid_map, sx.stx_uid);
	n->gid = rd->o.owner_set ? rd->o.owner_gid :
		 map_id(rd->o.gid_map, rd->o.nr_gid_map, sx.stx_gid);
	n->size = S_ISREG(sx.stx_mode) || S_ISLNK(sx.stx_mode) ? sx.stx_size : 0;
	n->rdev = ((uint64_t)sx.stx_rdev_major << 20) | sx.stx_rdev_minor;
	n->dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	n->ino = sx.stx_ino;
	n->nlink_src = sx.stx_nlink;
	n->atime = src_time(rd, &sx.stx_atime);
	n->mtime = src_time(rd, &sx.stx_mtime);
	n->ctime = src_time(rd, &sx.stx_ctime);
	n->src_mtime = (struct btrfs_time){ sx.stx_mtime.tv_sec, sx.stx_mtime.tv_nsec };
	n->src_ctime = (struct btrfs_time){ sx.stx_ctime.tv_sec, sx.stx_ctime.tv_nsec };
	/* the names: an inode's own items are counted once, in size_inode() */
	rd->meta_bytes += 3 * (30 + 25 + 2 * (uint64_t)n->name_len);
	/* --compress: a file of one sector may go inline compressed (size_inode()) */
	if (rd->o.compress && S_ISREG(n->mode) && n->size <= rd->o.sectorsize &&
	    n->size > btrfs_max_inline(rd->o.nodesize, rd->o.sectorsize)) {
		long c = scan_inline_compressed(rd, n, dirfd, name);

		n->inline_c = c < 0 ? 0 : (uint32_t)c;
	}
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;

	return strcmp(x, y);
}

/* The entries of @dirfd, sorted bytewise; NULL-terminated, free() each and the array */
static int read_dir(int dirfd, char ***out, size_t *nr)
{
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t cap = 0, n = 0;
	int fd = dup(dirfd), ret = 0;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		ret = -errno;
		close(fd);
		return ret;
	}
	rewinddir(d);
	errno = 0;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		ret = btrfs_array_grow((void **)&names, &cap, n + 1, sizeof(*names));
		if (ret < 0)
			break;
		names[n] = strdup(de->d_name);
		if (!names[n]) {
			ret = -ENOMEM;
			break;
		}
		n++;
		errno = 0;
	}
	if (!ret && errno)
		ret = -errno;
	closedir(d);
	if (ret < 0) {
		for (size_t i = 0; i < n; i++)
			free(names[i]);
		free(names);
		return ret;
	}
	if (n)
		qsort(names, n, sizeof(*names), name_cmp);
	*out = names;
	*nr = n;
	return 0;
}

static int scan_dir(struct vc_rootdir *rd, uint32_t dir, int dirfd, int depth);

static int scan_children(struct vc_rootdir *rd, uint32_t dir, int dirfd, char **names, size_t nr,
			 int depth)
{
	uint32_t first = (uint32_t)rd->nr;
	size_t kept = 0;
	int ret;

	ret = btrfs_array_grow((void **)&rd->nodes, &rd->cap, rd->nr + nr, sizeof(*rd->nodes));
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < nr; i++) {
		uint32_t idx = first + (uint32_t)kept;
		struct rd_node *n = &rd->nodes[idx];
		size_t len = strlen(names[i]);

		memset(n, 0, sizeof(*n));
		n->parent = dir;
		n->sv_root = NONE;
		n->link_next = NONE;
		n->name_len = (uint16_t)len;
		ret = add_name(rd, names[i], len, &n->name_off);
		if (ret < 0)
			return ret;
		rd->nr = idx + 1;
		ret = stat_node(rd, idx, dirfd, names[i]);
		if (ret < 0)
			return ret;
		if (ret == 1) {
			char path[1024];

			node_path(rd, idx, path, sizeof(path));
			if (rd->o.skipped)
				rd->o.skipped(rd->o.priv, path);
			rd->nr = idx;
			continue;
		}
		n = &rd->nodes[idx];
		if (S_ISLNK(n->mode)) {
			char target[4097];
			ssize_t tl = readlinkat(dirfd, names[i], target, sizeof(target));
			uint32_t off;

			if (tl < 0)
				return rd_fail(rd, idx, -errno, NULL);
			if ((size_t)tl >= sizeof(target) ||
			    (size_t)tl > btrfs_max_item_size(rd->o.nodesize) - 21)
				return rd_fail(rd, idx, -ENAMETOOLONG, "symlink target too long for this node size");
			ret = add_name(rd, target, (size_t)tl, &off);
			if (ret < 0)
				return ret;
			/* the target follows the name (add_name() appends) */
			rd->nodes[idx].target_len = (uint32_t)tl;
			rd->nodes[idx].size = (uint64_t)tl;
		}
		/* refused now, not after the image is written */
		if (S_ISREG(n->mode) && faccessat(dirfd, names[i], R_OK, AT_EACCESS) < 0)
			return rd_fail(rd, idx, -errno, NULL);
		ret = read_xattrs(rd, idx, dirfd, names[i]);
		if (ret < 0)
			return ret;
		kept++;
	}
	rd->nodes[dir].first_child = first;
	rd->nodes[dir].nr_children = (uint32_t)kept;
	for (uint32_t c = first; c < first + kept; c++) {
		int fd;

		if (!S_ISDIR(rd->nodes[c].mode))
			continue;
		fd = openat(dirfd, rd_node_name(rd, &rd->nodes[c]),
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return rd_fail(rd, c, -errno, NULL);
		ret = scan_dir(rd, c, fd, depth + 1);
		close(fd);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int scan_dir(struct vc_rootdir *rd, uint32_t dir, int dirfd, int depth)
{
	char **names = NULL;
	size_t nr = 0;
	int ret;

	if (depth > MAX_DEPTH)
		return rd_fail(rd, dir, -ELOOP, "directories nested too deep");
	ret = read_dir(dirfd, &names, &nr);
	if (ret < 0)
		return rd_fail(rd, dir, ret, NULL);
	ret = scan_children(rd, dir, dirfd, names, nr, depth);
	for (size_t i = 0; i < nr; i++)
		free(names[i]);
	free(names);
	return ret;
}

/* The node an image path names, or NONE */
static uint32_t find_path(const struct vc_rootdir *rd, const char *path)
{
	uint32_t cur = 0;

	while (*path) {
		size_t len;
		uint32_t found = NONE;

		while (*path == '/')
			path++;
		len = strcspn(path, "/");
		if (!len)
			break;
		if (!S_ISDIR(rd->nodes[cur].mode))
			return NONE;
		for (uint32_t c = 0; c < rd->nodes[cur].nr_children; c++) {
			const struct rd_node *n = &rd->nodes[rd->nodes[cur].first_child + c];

			if (n->name_len == len && !memcmp(rd_node_name(rd, n), path, len)) {
				found = rd->nodes[cur].first_child + c;
				break;
			}
		}
		if (found == NONE)
			return NONE;
		cur = found;
		path += len;
	}
	return cur;
}

static int mark_subvols(struct vc_rootdir *rd)
{
	rd->svs = calloc(rd->o.nr_subvols + 1, sizeof(*rd->svs));
	if (!rd->svs)
		return -ENOMEM;
	rd->svs[0].node = 0;
	rd->svs[0].root_id = BTRFS_FS_TREE_OBJECTID;
	rd->nodes[0].sv_root = 0;
	rd->nr_svs = 1;
	for (size_t i = 0; i < rd->o.nr_subvols; i++) {
		uint32_t n = find_path(rd, rd->o.subvols[i]);

		if (n == NONE)
			continue;	/* not in DIR: made empty afterwards */
		if (!S_ISDIR(rd->nodes[n].mode)) {
			snprintf(rd->err, rd->errlen, "--subvol %s: not a directory in %s",
				 rd->o.subvols[i], rd->o.dir);
			return -ENOTDIR;
		}
		if (!n || rd->nodes[n].sv_root != NONE) {
			snprintf(rd->err, rd->errlen, "--subvol %s: given twice", rd->o.subvols[i]);
			return -EINVAL;
		}
		rd->nodes[n].sv_root = (uint32_t)rd->nr_svs;
		rd->svs[rd->nr_svs++].node = n;
	}
	return 0;
}

/* Hard link groups: (subvolume, source dev, source ino) -> first node, open addressing */
struct link_table {
	uint32_t *slot;
	size_t mask;
};

static uint64_t link_hash(const struct rd_node *n)
{
	uint64_t h = n->ino * 0x9E3779B97F4A7C15ULL ^ n->dev * 0xC2B2AE3D27D4EB4FULL ^ n->sv;

	return h ^ (h >> 29);
}

static uint32_t *link_slot(struct link_table *t, const struct vc_rootdir *rd, uint32_t idx)
{
	const struct rd_node *n = &rd->nodes[idx];

	for (size_t s = link_hash(n) & t->mask;; s = (s + 1) & t->mask) {
		const struct rd_node *o;

		if (t->slot[s] == NONE)
			return &t->slot[s];
		o = &rd->nodes[t->slot[s]];
		if (o->ino == n->ino && o->dev == n->dev && o->sv == n->sv)
			return &t->slot[s];
	}
}

/*
 * What inode @n (the first of its names) takes at most: its data extents
 * (once, whatever its links: btrfs-progs#1141 counted every link), the
 * items of its inode, extents and checksums
 */
static void size_inode(struct vc_rootdir *rd, const struct rd_node *n)
{
	uint64_t ss = rd->o.sectorsize;

	rd->meta_bytes += 160 + 25;
	if (S_ISREG(n->mode) && n->inline_c && rd_compress_node(rd, n)) {
		/* --compress: inline compressed, the writer decides the same */
		rd->meta_bytes += n->inline_c + 21;
	} else if (S_ISREG(n->mode) && n->size > btrfs_max_inline(rd->o.nodesize, rd->o.sectorsize)) {
		uint64_t data = (n->size + ss - 1) / ss * ss;

		rd->data_bytes += data;
		/* extent items, file extent items, checksums (--compress: 128 KiB extents) */
		rd->meta_bytes += (data / (rd_compress_node(rd, n) ? BTRFS_MAX_UNCOMPRESSED : MAX_EXTENT) +
				   1) * (53 + 25 + 53 + 25) +
				  data / ss * (uint64_t)32;
	} else if (S_ISREG(n->mode) || S_ISLNK(n->mode)) {
		rd->meta_bytes += n->size + 21;
	}
}

/* Preorder, subvolumes, inode numbers, hard links, indexes, directory sizes */
static int number(struct vc_rootdir *rd)
{
	uint64_t *next_ino = calloc(rd->nr_svs, sizeof(*next_ino));
	uint32_t *stack = malloc(rd->nr * sizeof(*stack));
	struct link_table lt = { 0 };
	size_t top = 0, at = 0, size = 16;
	int ret = 0;

	while (size < 2 * rd->nr)
		size *= 2;
	lt.slot = malloc(size * sizeof(*lt.slot));
	lt.mask = size - 1;
	rd->order = malloc(rd->nr * sizeof(*rd->order));
	if (!next_ino || !stack || !lt.slot || !rd->order) {
		ret = -ENOMEM;
		goto out;
	}
	memset(lt.slot, 0xff, size * sizeof(*lt.slot));
	for (size_t s = 0; s < rd->nr_svs; s++)
		next_ino[s] = BTRFS_FIRST_FREE_OBJECTID + 1;
	stack[top++] = 0;
	while (top) {
		uint32_t i = stack[--top];
		struct rd_node *n = &rd->nodes[i];

		rd->order[at++] = i;
		if (n->sv_root != NONE) {
			n->sv = n->sv_root;
			n->bino = BTRFS_FIRST_FREE_OBJECTID;
			n->link_head = i;
			n->nlink = 1;
			if (i)
				rd->svs[n->sv].parent_sv = rd->nodes[n->parent].sv;
		} else {
			n->sv = rd->nodes[n->parent].sv;
			if (!S_ISDIR(n->mode) && n->nlink_src > 1) {
				uint32_t *slot = link_slot(&lt, rd, i);

				if (*slot != NONE) {
					struct rd_node *h = &rd->nodes[*slot];

					n->link_head = *slot;
					n->bino = h->bino;
					n->link_next = h->link_next;
					h->link_next = i;
					h->nlink++;
					goto linked;
				}
				*slot = i;
			}
			n->link_head = i;
			n->nlink = 1;
			n->bino = next_ino[n->sv]++;
		}
		if (n->link_head == i)
			size_inode(rd, n);
linked:
		/* children in reverse so the first name comes off the stack first */
		for (uint32_t c = n->nr_children; c-- > 0;)
			stack[top++] = n->first_child + c;
	}
	/* indexes and directory sizes: subvolume entries get theirs when made */
	for (size_t k = 0; k < rd->nr; k++) {
		struct rd_node *d = &rd->nodes[rd->order[k]];
		uint64_t index = 2;

		for (uint32_t c = 0; c < d->nr_children; c++) {
			struct rd_node *n = &rd->nodes[d->first_child + c];

			if (n->sv_root != NONE) {
				d->sv_names += 2 * (uint64_t)n->name_len;
				continue;
			}
			n->index = index++;
			d->dir_size += 2 * (uint64_t)n->name_len;
		}
	}
out:
	free(next_ino);
	free(stack);
	free(lt.slot);
	return ret;
}

static bool below(const struct vc_rootdir *rd, uint32_t n, uint32_t top)
{
	for (int depth = 0; depth <= MAX_DEPTH; depth++) {
		if (n == top)
			return true;
		if (!n)
			return false;
		n = rd->nodes[n].parent;
	}
	return false;
}

/* --inode-flags: the path's inode and, a directory, everything below it */
static int mark_iflags(struct vc_rootdir *rd)
{
	for (size_t i = 0; i < rd->o.nr_iflags; i++) {
		const struct vc_inode_flags *f = &rd->o.iflags[i];
		uint32_t top = find_path(rd, f->path);
		size_t k = 0;

		if (top == NONE) {
			snprintf(rd->err, rd->errlen, "--inode-flags %s: no such file or directory in %s",
				 f->path, rd->o.dir);
			return -ENOENT;
		}
		while (rd->order[k] != top)
			k++;
		/* the subtree follows its top in preorder */
		for (; k < rd->nr && below(rd, rd->order[k], top); k++)
			rd->nodes[rd->order[k]].iflags |= f->flags;
	}
	return 0;
}

int vc_rootdir_scan(const struct vc_rootdir_opts *o, struct vc_rootdir **out, char *err,
		    size_t errlen)
{
	struct vc_rootdir *rd = calloc(1, sizeof(*rd));
	int ret;

	if (!rd)
		return -ENOMEM;
	rd->o = *o;
	rd->err = err;
	rd->errlen = errlen;
	ret = compress_init(rd);
	if (ret < 0) {
		snprintf(err, errlen, "--compress: %s", strerror(-ret));
		free(rd);
		return ret;
	}
	rd->root_fd = open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rd->root_fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "--rootdir %s: %s", o->dir,
			 ret == -ENOTDIR ? "not a directory" : strerror(-ret));
		rd->root_fd = -1;
		vc_rootdir_free(rd);
		return ret;
	}
	ret = btrfs_array_grow((void **)&rd->nodes, &rd->cap, 1, sizeof(*rd->nodes));
	if (ret < 0)
		goto fail;
	memset(rd->nodes, 0, sizeof(*rd->nodes));
	rd->nodes[0].sv_root = NONE;
	rd->nodes[0].link_next = NONE;
	rd->nr = 1;
	ret = add_name(rd, "", 0, &rd->nodes[0].name_off);
	if (!ret)
		ret = stat_node(rd, 0, rd->root_fd, "");
	if (!ret)
		ret = read_xattrs(rd, 0, rd->root_fd, "");
	if (!ret)
		ret = scan_dir(rd, 0, rd->root_fd, 0);
	if (!ret)
		ret = mark_subvols(rd);
	if (!ret)
		ret = number(rd);
	if (!ret)
		ret = mark_iflags(rd);
	if (ret < 0)
		goto fail;
	*out = rd;
	return 0;
fail:
	if (!err[0])
		snprintf(err, errlen, "--rootdir %s: %s", o->dir, strerror(-ret));
	vc_rootdir_free(rd);
	return ret;
}

uint64_t vc_rootdir_data_bytes(const struct vc_rootdir *rd)
{
	return rd->data_bytes;
}

uint64_t vc_rootdir_meta_bytes(const struct vc_rootdir *rd)
{
	return rd->meta_bytes;
}

bool vc_rootdir_has(const struct vc_rootdir *rd, const char *path)
{
	return find_path(rd, path) != NONE;
}

bool vc_rootdir_is_dir(const struct vc_rootdir *rd, const char *path)
{
	uint32_t n = find_path(rd, path);

	return n != NONE && S_ISDIR(rd->nodes[n].mode);
}

bool vc_rootdir_is_subvol(const struct vc_rootdir *rd, const char *path)
{
	uint32_t n = find_path(rd, path);

	return n != NONE && n && rd->nodes[n].sv_root != NONE;
}

void vc_rootdir_free(struct vc_rootdir *rd)
{
	if (!rd)
		return;
	if (rd->root_fd >= 0)
		close(rd->root_fd);
	free(rd->nodes);
	free(rd->arena);
	free(rd->xattrs);
	free(rd->order);
	free(rd->svs);
	if (rd->o.compress)
		btrfs_compress_ctx_release(&rd->cctx);
	free(rd->cbuf);
	free(rd);
}

