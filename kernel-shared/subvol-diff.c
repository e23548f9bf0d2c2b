// SPDX-License-Identifier: GPL-2.0-only
/*
 * What changed between two subvolumes (see subvol-diff.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "fs.h"
#include "ctree.h"
#include "items.h"
#include "itemsrc.h"
#include "volumes.h"
#include "compress.h"
#include "subvol-list.h"
#include "tree-compare.h"
#include "subvol-diff.h"
#include "array.h"
#include "extent-buffer.h"
#include "u64map.h"

#define CHUNK		(1U << 20)
#define MAX_NAMES	4096		/* names of one inode looked at (the rest: links) */

/* ---- one inode on one side ---- */

struct name {
	u64 parent;
	u16 len;
	const char *bytes;		/* into side.buf */
};

struct side {
	struct btrfs_root *root;
	bool exists;
	struct btrfs_inode_rec ii;
	struct name *names;
	size_t nr_names, names_cap;
	u8 *buf;			/* name bytes, then xattrs: [u16 nlen][u32 vlen][name][value] */
	size_t buf_len, buf_cap;
	size_t xattr_off;
	u8 *ext;			/* extent items as read: [u64 off][u32 len][item] */
	size_t ext_len, ext_cap;
};

static int side_put(struct side *s, const void *p, size_t len)
{
	int ret = btrfs_array_grow((void **)&s->buf, &s->buf_cap, s->buf_len + len, 1);

	if (!ret) {
		memcpy(s->buf + s->buf_len, p, len);
		s->buf_len += len;
	}
	return ret;
}

static int refs_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct side *s = priv;
	const u8 *p = data, *end = p + len;
	bool ext = key->type == BTRFS_INODE_EXTREF_KEY;
	u32 head = ext ? 18 : 10;
	int ret;

	if (key->type != BTRFS_INODE_REF_KEY && !ext)
		return 0;
	while (p + head <= end && s->nr_names < MAX_NAMES) {
		u16 nl = (u16)(p[head - 2] | p[head - 1] << 8);
		struct name *n;

		if (p + head + nl > end)
			return -EUCLEAN;
		ret = btrfs_array_grow((void **)&s->names, &s->names_cap, s->nr_names + 1, sizeof(*s->names));
		if (ret < 0)
			return ret;
		n = &s->names[s->nr_names++];
		n->parent = ext ? get_le64(p) : key->offset;
		n->len = nl;
		/* the offset for now: buf may move while it grows */
		n->bytes = (const char *)(uintptr_t)s->buf_len;
		ret = side_put(s, p + head, nl);
		if (ret < 0)
			return ret;
		p += head + nl;
	}
	return 0;
}

static int xattr_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct side *s = priv;
	const u8 *p = data, *end = p + len;
	const u32 hdr = sizeof(struct btrfs_dir_item);
	int ret;

	(void)key;
	while (p + hdr <= end) {
		const struct btrfs_dir_item *di = (const struct btrfs_dir_item *)p;
		u16 nl = btrfs_dir_name_len(di), vl = btrfs_dir_data_len(di);
		u8 h[6] = { (u8)nl, (u8)(nl >> 8), (u8)vl, (u8)(vl >> 8), 0, 0 };

		if (p + hdr + nl + vl > end)
			return -EUCLEAN;
		ret = side_put(s, h, sizeof(h));
		if (!ret)
			ret = side_put(s, p + hdr, (size_t)nl + vl);
		if (ret < 0)
			return ret;
		p += hdr + nl + vl;
	}
	return 0;
}

static int ext_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct side *s = priv;
	u8 h[12];
	int ret;

	put_le64(h, key->offset);
	memcpy(h + 8, &len, 4);
	ret = btrfs_array_grow((void **)&s->ext, &s->ext_cap, s->ext_len + sizeof(h) + len, 1);
	if (ret < 0)
		return ret;
	memcpy(s->ext + s->ext_len, h, sizeof(h));
	memcpy(s->ext + s->ext_len + sizeof(h), data, len);
	s->ext_len += sizeof(h) + len;
	return 0;
}

/*
 * The items of an inode in key order: its INODE_ITEM (without it the inode
 * is not there), names, xattrs and, past anything else, its file extents;
 * a directory's entries come where the extents would, so its walk ends
 * at the first item past the xattrs
 */
static int inode_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct side *s = priv;
	int ret;

	if (key->type == BTRFS_INODE_ITEM_KEY) {
		ret = btrfs_decode_inode_item(data, len, &s->ii);
		if (ret < 0)
			return ret;
		s->exists = true;
		return 0;
	}
	if (!s->exists)
		return 1;
	switch (key->type) {
	case BTRFS_INODE_REF_KEY:
	case BTRFS_INODE_EXTREF_KEY:
		/* the names come before the xattrs in key order */
		ret = refs_cb(priv, key, data, len);
		s->xattr_off = s->buf_len;
		return ret;
	case BTRFS_XATTR_ITEM_KEY:
		return xattr_cb(priv, key, data, len);
	case BTRFS_EXTENT_DATA_KEY:
		return ext_cb(priv, key, data, len);
	default:
		return key->type > BTRFS_XATTR_ITEM_KEY && (s->ii.mode & S_IFMT) == S_IFDIR;
	}
}

/* One walk from the inode item on (four tree searches before: 8% of a diff) */
static int load_side(struct side *s, u64 ino)
{
	struct btrfs_key min = { ino, BTRFS_INODE_ITEM_KEY, 0 };
	struct btrfs_key max = { ino, BTRFS_EXTENT_DATA_KEY, (u64)-1 };
	int ret;

	s->exists = false;
	s->nr_names = 0;
	s->buf_len = 0;
	s->ext_len = 0;
	s->xattr_off = 0;
	/* without its INODE_ITEM, the walk's first item, nothing is taken */
	ret = btrfs_iterate_items(s->root, &min, &max, inode_cb, s);
	if (ret < 0)
		return ret;
	/* the names were offsets while buf grew */
	for (size_t i = 0; i < s->nr_names; i++)
		s->names[i].bytes = (const char *)s->buf + (uintptr_t)s->names[i].bytes;
	return 0;
}

static void side_release(struct side *s)
{
	free(s->names);
	free(s->buf);
	free(s->ext);
}

/* ---- comparing two inodes ---- */

/* The xattrs of a side as a sorted list of entries; equal lists = equal xattrs */
static int xattr_entry_cmp(const void *a, const void *b)
{
	const u8 *x = *(const u8 *const *)a, *y = *(const u8 *const *)b;
	size_t xl = 6 + (size_t)(x[0] | x[1] << 8) + (size_t)(x[2] | x[3] << 8);
	size_t yl = 6 + (size_t)(y[0] | y[1] << 8) + (size_t)(y[2] | y[3] << 8);
	int c = memcmp(x + 6, y + 6, xl < yl ? xl - 6 : yl - 6);

	return c ? c : xl < yl ? -1 : xl > yl;
}

static int xattr_list(const struct side *s, const u8 ***out, size_t *nr)
{
	const u8 *p = s->buf + s->xattr_off, *end = s->buf + s->buf_len;
	size_t n = 0;

	*out = malloc(((size_t)(end - p) / 6 + 1) * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	while (p + 6 <= end) {
		(*out)[n++] = p;
		p += 6 + (p[0] | p[1] << 8) + (p[2] | p[3] << 8);
	}
	qsort(*out, n, sizeof(**out), xattr_entry_cmp);
	*nr = n;
	return 0;
}

static int same_xattrs(const struct side *a, const struct side *b, bool *same)
{
	const u8 **x = NULL, **y = NULL;
	size_t nx = 0, ny = 0;
	int ret = xattr_list(a, &x, &nx);

	if (!ret)
		ret = xattr_list(b, &y, &ny);
	*same = !ret && nx == ny;
	for (size_t i = 0; *same && i < nx; i++)
		*same = !xattr_entry_cmp(&x[i], &y[i]);
	free(x);
	free(y);
	return ret;
}

/* The extents of two sides describe the same bytes item for item (generations aside) */
static bool same_extents(const struct side *a, const struct side *b)
{
	const u8 *p = a->ext, *q = b->ext;

	if (a->ext_len != b->ext_len)
		return false;
	while (p < a->ext + a->ext_len) {
		u32 lp, lq;
		struct btrfs_file_extent_rec x, y;

		memcpy(&lp, p + 8, 4);
		memcpy(&lq, q + 8, 4);
		if (get_le64(p) != get_le64(q) || lp != lq ||
		    btrfs_decode_file_extent(p + 12, lp, &x) || btrfs_decode_file_extent(q + 12, lq, &y))
			return false;
		if (x.type != y.type || x.compression != y.compression || x.ram_bytes != y.ram_bytes ||
		    x.disk_bytenr != y.disk_bytenr || x.disk_num_bytes != y.disk_num_bytes ||
		    x.offset != y.offset || x.num_bytes != y.num_bytes || x.inline_len != y.inline_len ||
		    (x.inline_len && memcmp(x.inline_data, y.inline_data, x.inline_len)))
			return false;
		p += 12 + lp;
		q += 12 + lq;
	}
	return true;
}

/* Bytes [@off, @off + @len) of a side's file, holes and preallocation as zeros */
static int read_data(struct btrfs_fs *fs, const struct side *s, u64 off, u8 *buf, u64 len)
{
	const u8 *p = s->ext;
	int ret = 0;

	memset(buf, 0, len);
	while (p < s->ext + s->ext_len && !ret) {
		u64 start = get_le64(p), ext_len, from, to;
		struct btrfs_file_extent_rec x;
		u32 ilen;
		u8 *tmp = NULL;

		memcpy(&ilen, p + 8, 4);
		ret = btrfs_decode_file_extent(p + 12, ilen, &x);
		p += 12 + ilen;
		if (ret < 0)
			break;
		ext_len = x.type == BTRFS_FILE_EXTENT_INLINE ? x.ram_bytes : x.num_bytes;
		from = start > off ? start : off;
		to = start + ext_len < off + len ? start + ext_len : off + len;
		if (from >= to || x.type == BTRFS_FILE_EXTENT_PREALLOC ||
		    (x.type == BTRFS_FILE_EXTENT_REG && !x.disk_bytenr))
			continue;
		if (x.type == BTRFS_FILE_EXTENT_INLINE && !x.compression) {
			if (from - start + (to - from) > x.inline_len)
				return -EUCLEAN;
			memcpy(buf + (from - off), x.inline_data + (from - start), to - from);
			continue;
		}
		if (!x.compression) {
			ret = btrfs_read_logical(fs, x.disk_bytenr + x.offset + (from - start),
						 buf + (from - off), to - from, 1);
			continue;
		}
		/* compressed: the whole extent, decoded */
		if (x.ram_bytes > (128ULL << 20) || x.disk_num_bytes > (128ULL << 20))
			return -EUCLEAN;
		tmp = malloc(x.ram_bytes + (x.type == BTRFS_FILE_EXTENT_INLINE ? 0 : x.disk_num_bytes));
		if (!tmp)
			return -ENOMEM;
		if (x.type == BTRFS_FILE_EXTENT_INLINE) {
			long n = btrfs_decompress(x.compression, fs->sectorsize, x.inline_data,
						  x.inline_len, tmp, x.ram_bytes);

			ret = n < 0 ? (int)n : 0;
			if (!ret)
				memcpy(buf + (from - off), tmp + (from - start), to - from);
		} else {
			u8 *disk = tmp + x.ram_bytes;
			long n;

			ret = btrfs_read_logical(fs, x.disk_bytenr, disk, x.disk_num_bytes, 1);
			n = ret ? 0 : btrfs_decompress(x.compression, fs->sectorsize, disk,
						       x.disk_num_bytes, tmp, x.ram_bytes);
			if (!ret && n < 0)
				ret = (int)n;
			if (!ret && x.offset + (from - start) + (to - from) <= x.ram_bytes)
				memcpy(buf + (from - off), tmp + x.offset + (from - start), to - from);
			else if (!ret)
				ret = -EUCLEAN;
		}
		free(tmp);
	}
	return ret;
}

/* @read counts the bytes read from the devices (not checked against checksums) */
static int same_data(struct btrfs_fs *fs, const struct side *a, const struct side *b, bool *same,
		     u64 *read)
{
	u8 *x, *y;
	int ret = 0;

	*same = a->ii.size == b->ii.size;
	if (!*same || same_extents(a, b))
		return 0;
	x = malloc(CHUNK);
	y = malloc(CHUNK);
	if (!x || !y) {
		free(x);
		free(y);
		return -ENOMEM;
	}
	for (u64 off = 0; off < a->ii.size && *same && !ret; off += CHUNK) {
		u64 n = a->ii.size - off < CHUNK ? a->ii.size - off : CHUNK;

		ret = read_data(fs, a, off, x, n);
		if (!ret)
			ret = read_data(fs, b, off, y, n);
		*read += 2 * n;
		*same = !ret && !memcmp(x, y, n);
	}
	free(x);
	free(y);
	return ret;
}

/* What changed in one inode kept on both sides */
static int what_changed(struct btrfs_fs *fs, const struct side *o, const struct side *n, u32 *what,
			u64 *read)
{
	bool dir = (n->ii.mode & 0170000) == 0040000, same;
	u32 type = n->ii.mode & 0170000;
	int ret;

	*what = 0;
	if (!dir) {
		if (type == 0020000 || type == 0060000)
			same = o->ii.rdev == n->ii.rdev;
		else if (type == 0100000 || type == 0120000) {
			ret = same_data(fs, o, n, &same, read);
			if (ret < 0)
				return ret;
		} else {
			same = true;
		}
		if (!same)
			*what |= BTRFS_DIFF_CONTENT;
		if (o->ii.size != n->ii.size)
			*what |= BTRFS_DIFF_SIZE | BTRFS_DIFF_CONTENT;
	}
	if (o->ii.mode != n->ii.mode)
		*what |= BTRFS_DIFF_MODE;
	if (o->ii.uid != n->ii.uid || o->ii.gid != n->ii.gid)
		*what |= BTRFS_DIFF_OWNER;
	ret = same_xattrs(o, n, &same);
	if (ret < 0)
		return ret;
	if (!same)
		*what |= BTRFS_DIFF_XATTRS;
	if (!dir && (o->ii.mtime.sec != n->ii.mtime.sec || o->ii.mtime.nsec != n->ii.mtime.nsec))
		*what |= BTRFS_DIFF_TIMES;
	if (!dir && o->ii.nlink != n->ii.nlink)
		*what |= BTRFS_DIFF_LINKS;
	return 0;
}

/* ---- paths and lines ---- */

static int put_string(struct btrfs_diff *d, const char *s, size_t len, size_t *off)
{
	int ret = btrfs_array_grow((void **)&d->strings, &d->str_cap, d->str_len + len + 1, 1);

	if (ret < 0)
		return ret;
	*off = d->str_len;
	memcpy(d->strings + d->str_len, s, len);
	d->strings[d->str_len + len] = 0;
	d->str_len += len + 1;
	return 0;
}

/* "/dir/name" of a name on a side, into d->strings (offset in *@off) */
static int name_path(struct btrfs_fs *fs, const struct side *s, const struct name *nm,
		     struct btrfs_diff *d, size_t *off)
{
	struct btrfs_item_source src = btrfs_fs_item_source(fs);
	char *dir = NULL, *full;
	size_t dl, len;
	int ret = 0;

	if (nm->parent != BTRFS_FIRST_FREE_OBJECTID)
		ret = btrfs_inode_path(&src, s->root->id, nm->parent, &dir);
	if (ret < 0)
		return ret;
	dl = dir ? strlen(dir) : 0;
	len = 1 + dl + (dl ? 1 : 0) + nm->len;
	full = malloc(len + 1);
	if (!full) {
		free(dir);
		return -ENOMEM;
	}
	full[0] = '/';
	if (dl) {
		memcpy(full + 1, dir, dl);
		full[1 + dl] = '/';
	}
	memcpy(full + len - nm->len, nm->bytes, nm->len);
	ret = put_string(d, full, len, off);
	free(full);
	free(dir);
	return ret;
}

/* A change whose paths are offsets into d->strings until the end */
static int add_change(struct btrfs_diff *d, char letter, size_t path, size_t new_path, u32 what,
		      const struct side *s)
{
	struct btrfs_diff_change *c;
	int ret = btrfs_array_grow((void **)&d->changes, &d->cap, d->nr + 1, sizeof(*d->changes));

	if (ret < 0)
		return ret;
	c = &d->changes[d->nr++];
	c->letter = letter;
	c->path = (const char *)(uintptr_t)(path + 1);
	c->new_path = new_path == (size_t)-1 ? NULL : (const char *)(uintptr_t)(new_path + 1);
	c->what = what;
	c->mode = s->ii.mode;
	c->ctime = s->ii.ctime;
	return 0;
}

static bool same_name(const struct name *a, const struct name *b)
{
	return a->parent == b->parent && a->len == b->len && !memcmp(a->bytes, b->bytes, a->len);
}

static bool has_name(const struct side *s, const struct name *nm)
{
	for (size_t i = 0; i < s->nr_names; i++)
		if (same_name(&s->names[i], nm))
			return true;
	return false;
}

static int all_names(struct btrfs_fs *fs, struct btrfs_diff *d, const struct side *s,
		     char letter)
{
	for (size_t i = 0; i < s->nr_names; i++) {
		size_t off;
		int ret = name_path(fs, s, &s->names[i], d, &off);

		if (!ret)
			ret = add_change(d, letter, off, (size_t)-1, 0, s);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* The lines of one inode kept (same identity) on both sides */
static int kept_inode(struct btrfs_fs *fs, struct btrfs_diff *d, const struct side *o,
		      const struct side *n)
{
	const struct name *gone = NULL, *came = NULL;
	size_t nr_gone = 0, nr_came = 0, off, off2;
	u32 what;
	int ret;

	ret = what_changed(fs, o, n, &what, &d->data_read);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < o->nr_names; i++)
		if (!has_name(n, &o->names[i]) && nr_gone++ == 0)
			gone = &o->names[i];
	for (size_t i = 0; i < n->nr_names; i++)
		if (!has_name(o, &n->names[i]) && nr_came++ == 0)
			came = &n->names[i];
	if (nr_gone == 1 && nr_came == 1) {
		ret = name_path(fs, o, gone, d, &off);
		if (!ret)
			ret = name_path(fs, n, came, d, &off2);
		if (!ret)
			ret = add_change(d, 'R', off, off2, 0, n);
		if (!ret && what)
			ret = add_change(d, 'M', off2, (size_t)-1, what, n);
		return ret;
	}
	for (size_t i = 0; i < o->nr_names && !ret; i++) {
		if (has_name(n, &o->names[i]))
			continue;
		ret = name_path(fs, o, &o->names[i], d, &off);
		if (!ret)
			ret = add_change(d, '-', off, (size_t)-1, 0, o);
	}
	for (size_t i = 0; i < n->nr_names && !ret; i++) {
		bool added = !has_name(o, &n->names[i]);

		if (!added && !what)
			continue;
		ret = name_path(fs, n, &n->names[i], d, &off);
		if (!ret)
			ret = add_change(d, added ? '+' : 'M', off, (size_t)-1, added ? 0 : what, n);
	}
	return ret;
}

static int inode_lines(struct btrfs_fs *fs, struct btrfs_diff *d, struct side *o, struct side *n,
		       u64 ino)
{
	int ret = load_side(o, ino);

	if (!ret)
		ret = load_side(n, ino);
	if (ret < 0)
		return ret;
	d->inodes++;
	if (ino == BTRFS_FIRST_FREE_OBJECTID)
		return 0;	/* the subvolume's root directory has no name */
	if (o->exists && n->exists && o->ii.generation == n->ii.generation)
		return kept_inode(fs, d, o, n);
	ret = o->exists ? all_names(fs, d, o, '-') : 0;
	if (!ret && n->exists)
		ret = all_names(fs, d, n, '+');
	return ret;
}

static int rank(char letter)
{
	return letter == '-' ? 0 : letter == 'R' ? 1 : letter == '+' ? 2 : 3;
}

static int change_cmp(const void *a, const void *b)
{
	const struct btrfs_diff_change *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c ? c : rank(x->letter) - rank(y->letter);
}

/*
 * ---- the run ----
 *
 * Every inode an item difference touches is looked at on both sides: the
 * inode of the item's key, and the inode a changed directory entry names.
 * The comparison reports keys in ascending order, and at a report of key K
 * every item below K was already visited on both sides (or skipped as
 * shared): an inode below K gets no more differences of its own.  So its
 * lines are made then, while the blocks the comparison just read are still
 * in the cache, and the cache can stay small (DIFF_CACHE_BYTES: buffers
 * are recycled, not taken from fresh memory).  An inode named by an entry
 * after its lines were made is not looked at twice (done).
 *
 * The lines do not depend on the order in which the inodes are looked at
 * (they are sorted by path at the end, the keys are unique), but the first
 * error does: when one inode fails, the rest waits for the end of the
 * comparison, and then every touched inode is looked at again in ascending
 * order, as if nothing had been done before, so the comparison's own error
 * comes first and then the first failing inode's.
 */

/* The clean blocks kept during a diff (at least DIFF_CACHE_MIN_BLOCKS) */
#define DIFF_CACHE_BYTES	(4U << 20)
#define DIFF_CACHE_MIN_BLOCKS	64U

struct diff_run {
	struct btrfs_fs *fs;
	struct btrfs_diff *d;
	struct side o, n;
	u64 *all;			/* every inode touched, for the redo */
	size_t nr_all, all_cap;
	u64 *pending;			/* touched, lines not made yet: ascending, unique */
	size_t nr_pending, pending_cap;
	struct btrfs_u64map done;	/* lines made */
	bool redo;			/* an inode failed (or memory ran out): redo at the end */
	char errmsg[BTRFS_ERRMSG_SIZE];	/* fs->errmsg before, put back when an inode failed */
};

static int inode_lines(struct btrfs_fs *fs, struct btrfs_diff *d, struct side *o, struct side *n,
		       u64 ino);

/* @ino into the pending set, unless its lines are made; false: no memory */
static bool pend(struct diff_run *x, u64 ino)
{
	size_t lo = 0, hi = x->nr_pending;

	if (btrfs_u64map_find(&x->done, ino, NULL))
		return true;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->pending[mid] < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < x->nr_pending && x->pending[lo] == ino)
		return true;
	if (btrfs_array_grow((void **)&x->pending, &x->pending_cap, x->nr_pending + 1,
			     sizeof(*x->pending)) < 0)
		return false;
	memmove(x->pending + lo + 1, x->pending + lo, (x->nr_pending - lo) * sizeof(*x->pending));
	x->pending[lo] = ino;
	x->nr_pending++;
	return true;
}

static int touch(struct diff_run *x, u64 ino)
{
	int ret;

	if (ino < BTRFS_FIRST_FREE_OBJECTID || ino > BTRFS_LAST_FREE_OBJECTID)
		return 0;
	ret = btrfs_array_grow((void **)&x->all, &x->all_cap, x->nr_all + 1, sizeof(*x->all));
	if (ret < 0)
		return ret;
	x->all[x->nr_all++] = ino;
	if (!x->redo && !pend(x, ino))
		x->redo = true;
	return 0;
}

/* A directory entry names an inode: the inode's names changed */
static int touch_entry(struct diff_run *x, const u8 *data, u32 len)
{
	struct btrfs_disk_key k;

	if (!data || len < sizeof(struct btrfs_dir_item))
		return 0;
	memcpy(&k, data, sizeof(k));
	if (k.type != BTRFS_INODE_ITEM_KEY)
		return 0;		/* a subvolume: not entered */
	return touch(x, get_le64(&k.objectid));
}

/* The lines of every pending inode below @below */
static void make_lines(struct diff_run *x, u64 below)
{
	size_t i = 0;

	while (!x->redo && i < x->nr_pending && x->pending[i] < below) {
		u64 ino = x->pending[i++];

		if (btrfs_u64map_insert(&x->done, ino, 0, NULL) < 0 ||
		    inode_lines(x->fs, x->d, &x->o, &x->n, ino) < 0) {
			x->redo = true;
			memcpy(x->fs->errmsg, x->errmsg, sizeof(x->errmsg));
		}
	}
	if (!i)
		return;
	memmove(x->pending, x->pending + i, (x->nr_pending - i) * sizeof(*x->pending));
	x->nr_pending -= i;
}

static int compare_cb(void *priv, enum btrfs_compare_result r, const struct btrfs_key *key,
		      const void *left, u32 left_len, const void *right, u32 right_len)
{
	struct diff_run *x = priv;
	int ret;

	(void)r;
	ret = touch(x, key->objectid);
	if (!ret && (key->type == BTRFS_DIR_ITEM_KEY || key->type == BTRFS_DIR_INDEX_KEY)) {
		ret = touch_entry(x, left, left_len);
		if (!ret)
			ret = touch_entry(x, right, right_len);
	}
	if (!ret)
		make_lines(x, key->objectid);
	return ret;
}

static int u64_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* After a failure: every touched inode again, in ascending order */
static int redo_lines(struct diff_run *x)
{
	size_t u = 1;
	int ret = 0;

	btrfs_diff_release(x->d);
	if (!x->nr_all)
		return 0;
	qsort(x->all, x->nr_all, sizeof(*x->all), u64_cmp);
	for (size_t i = 1; i < x->nr_all; i++)
		if (x->all[i] != x->all[u - 1])
			x->all[u++] = x->all[i];
	for (size_t i = 0; i < u && !ret; i++)
		ret = inode_lines(x->fs, x->d, &x->o, &x->n, x->all[i]);
	return ret;
}

int btrfs_subvol_diff(struct btrfs_fs *fs, u64 old, u64 new, struct btrfs_diff *d)
{
	struct btrfs_compare_stats st = { 0 };
	struct diff_run x = { .fs = fs, .d = d };
	u32 limit = fs->nodesize ? DIFF_CACHE_BYTES / fs->nodesize : 0, saved_limit;
	int ret;

	memset(d, 0, sizeof(*d));
	ret = btrfs_read_root(fs, old, &x.o.root);
	if (!ret)
		ret = btrfs_read_root(fs, new, &x.n.root);
	if (ret < 0)
		return ret;
	if (limit < DIFF_CACHE_MIN_BLOCKS)
		limit = DIFF_CACHE_MIN_BLOCKS;
	memcpy(x.errmsg, fs->errmsg, sizeof(x.errmsg));
	saved_limit = btrfs_eb_cache_set_limit(fs, limit);
	ret = btrfs_compare_trees(x.o.root, x.n.root, compare_cb, &x, &st);
	if (ret > 0)
		ret = -EIO;
	if (!ret)
		make_lines(&x, (u64)-1);
	if (!ret && x.redo)
		ret = redo_lines(&x);
	btrfs_eb_cache_set_limit(fs, saved_limit);
	/* the paths were offsets while the strings grew */
	for (size_t i = 0; !ret && i < d->nr; i++) {
		d->changes[i].path = d->strings + ((uintptr_t)d->changes[i].path - 1);
		if (d->changes[i].new_path)
			d->changes[i].new_path = d->strings +
						 ((uintptr_t)d->changes[i].new_path - 1);
	}
	if (!ret && d->nr)
		qsort(d->changes, d->nr, sizeof(*d->changes), change_cmp);
	d->blocks_read[0] = st.blocks_read[0];
	d->blocks_read[1] = st.blocks_read[1];
	free(x.all);
	free(x.pending);
	btrfs_u64map_release(&x.done);
	side_release(&x.o);
	side_release(&x.n);
	if (ret < 0)
		btrfs_diff_release(d);
	return ret;
}

void btrfs_diff_release(struct btrfs_diff *d)
{
	free(d->changes);
	free(d->strings);
	memset(d, 0, sizeof(*d));
}
