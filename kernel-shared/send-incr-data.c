// SPDX-License-Identifier: GPL-2.0-only
/*
 * Incremental send sizes (send-incr.c): xattrs, file extents against the
 * parent, holes, writes and encoded writes.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "csum.h"
#include "fs.h"
#include "array.h"
#include "extent-buffer.h"
#include "send-incr-internal.h"

/* ---- xattrs ---- */

#define XATTR_CAPS "security.capability"
#define ACL_ACCESS "system.posix_acl_access"
#define ACL_DEFAULT "system.posix_acl_default"

/* the kernel compares the first name_len bytes only (strncmp) */
static bool name_prefix_of(const char *name, u32 len, const char *full)
{
	return len <= strlen(full) && !memcmp(name, full, len);
}

static int send_set_xattr_cur(struct inc *s, const char *name, u32 name_len, u32 data_len)
{
	return si_path_cmd(s, s->cur_ino, s->cur_gen, TLV_HDR + name_len + TLV_HDR + data_len,
			TLV_HDR + name_len + TLV_HDR + data_len);
}

static int process_new_xattr_entry(struct inc *s, const struct btrfs_dir_item_rec *d)
{
	u32 data_len = d->data_len;

	if (name_prefix_of(d->name, d->name_len, XATTR_CAPS))
		return 0;
	if ((name_prefix_of(d->name, d->name_len, ACL_ACCESS) ||
	     name_prefix_of(d->name, d->name_len, ACL_DEFAULT)) && data_len == 0)
		data_len = 4;	/* an empty ACL goes out as a header without entries */
	return send_set_xattr_cur(s, d->name, d->name_len, data_len);
}

static int process_deleted_xattr_entry(struct inc *s, const struct btrfs_dir_item_rec *d)
{
	return si_path_cmd(s, s->cur_ino, s->cur_gen, TLV_HDR + d->name_len, TLV_HDR + d->name_len);
}

/* @name in the xattr item @data: 1 and its value, or 0 */
static int find_xattr(const u8 *data, u32 len, const char *name, u32 name_len,
		      struct btrfs_dir_item_rec *found)
{
	u32 pos = 0;
	int ret;

	if (!data)
		return 0;
	for (;;) {
		ret = btrfs_dir_item_next(data, len, &pos, found);
		if (ret)
			return ret < 0 ? ret : 0;
		if (found->name_len == name_len && !memcmp(found->name, name, name_len))
			return 1;
	}
}

/* each entry of one xattr item: 0 new, 1 deleted, 2 changed (new side), 3 changed (old side) */
int si_xattr_item(struct inc *s, int mode, const u8 *data, u32 len, const u8 *other,
		      u32 other_len)
{
	struct btrfs_dir_item_rec d, o;
	u32 pos = 0;
	int ret;

	for (;;) {
		ret = btrfs_dir_item_next(data, len, &pos, &d);
		if (ret)
			return ret < 0 ? ret : 0;
		if (mode == 0) {
			ret = process_new_xattr_entry(s, &d);
		} else if (mode == 1) {
			ret = process_deleted_xattr_entry(s, &d);
		} else {
			ret = find_xattr(other, other_len, d.name, d.name_len, &o);
			if (ret < 0)
				return ret;
			if (mode == 2 && (!ret || o.data_len != d.data_len ||
					  memcmp(o.data, d.data, d.data_len)))
				ret = process_new_xattr_entry(s, &d);
			else if (mode == 3 && !ret)
				ret = process_deleted_xattr_entry(s, &d);
			else
				ret = 0;
		}
		if (ret < 0)
			return ret;
	}
}

static int all_xattrs_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	(void)key;
	return si_xattr_item(priv, 0, data, len, NULL, 0);
}

int si_process_all_new_xattrs(struct inc *s)
{
	struct btrfs_key min = { s->cmp_key.objectid, BTRFS_XATTR_ITEM_KEY, 0 };
	struct btrfs_key max = { s->cmp_key.objectid, BTRFS_XATTR_ITEM_KEY, (u64)-1 };

	return btrfs_iterate_items(s->send, &min, &max, all_xattrs_cb, s);
}

int si_send_capabilities(struct inc *s)
{
	struct btrfs_key key = { s->cur_ino, BTRFS_XATTR_ITEM_KEY,
				 btrfs_name_hash(XATTR_CAPS, strlen(XATTR_CAPS)) };
	struct btrfs_dir_item_rec d;
	u8 *buf = malloc(s->fs->nodesize);
	u32 len;
	int ret;

	if (!buf)
		return -ENOMEM;
	ret = btrfs_lookup_item(s->send, &key, buf, s->fs->nodesize, &len);
	if (ret == -ENOENT) {
		ret = 0;
	} else if (ret == 0) {
		ret = find_xattr(buf, len, XATTR_CAPS, strlen(XATTR_CAPS), &d);
		if (ret > 0)
			ret = send_set_xattr_cur(s, XATTR_CAPS, strlen(XATTR_CAPS), d.data_len);
	}
	free(buf);
	return ret;
}

/* ---- file extents ---- */


int si_fext_decode(struct fext *f, const struct btrfs_key *key, const u8 *data, u32 len,
		       u32 slot)
{
	f->key = *key;
	f->item_len = len;
	f->slot = slot;
	return btrfs_decode_file_extent(data, len, &f->fe);
}


u64 si_fext_end(const struct inc *s, const struct btrfs_key *key,
		    const struct btrfs_file_extent_rec *fe)
{
	if (fe->type == BTRFS_FILE_EXTENT_INLINE)
		return align_up(key->offset + fe->ram_bytes, s->fs->sectorsize);
	return key->offset + fe->num_bytes;
}

/* the disk_bytenr the kernel reads from an item (an inline item's first data bytes) */
u64 si_raw_disk_bytenr(const u8 *data, u32 len)
{
	u8 b[8] = { 0 };

	if (len > 21)
		memcpy(b, data + 21, len - 21 < 8 ? len - 21 : 8);
	return get_le64(b);
}

static void write_chunks(struct inc *s, int v, u64 plen, u64 len, u64 chunk)
{
	struct btrfs_send_size_proto *o = v ? &s->out->v2c : &s->out->v1;
	u64 n = (len + chunk - 1) / chunk;

	/* write: path, file offset, data (v1 with a length, v2 without) */
	o->total += n * (CMD_HDR + TLV_HDR + plen + TLV_U64 + (v ? 2u : TLV_HDR)) + len;
	o->data += len;
	o->writes += n;
	o->commands += n;
}

/* si_send_extent_data: [offset, offset + len) of the current file, from extent item @f */
int si_send_extent_data(struct inc *s, const struct fext *f, u64 len)
{
	struct fpath *p;
	int ret;

	if (!len)
		return 0;
	p = malloc(sizeof(*p));
	if (!p)
		return -ENOMEM;
	ret = si_get_cur_path(s, s->cur_ino, s->cur_gen, p);
	if (ret == 0) {
		const struct btrfs_file_extent_rec *fe = &f->fe;
		bool inl = fe->type == BTRFS_FILE_EXTENT_INLINE;

		write_chunks(s, 0, p->len, len, V1_CHUNK);
		if (fe->compression && inl && fe->inline_len <= len) {
			/* encoded_write: path, 4 u64s, compression, data */
			s->out->v2c.total += CMD_HDR + TLV_HDR + p->len + 4 * TLV_U64 + TLV_U32 + 2 +
					     fe->inline_len;
			s->out->v2c.data += fe->inline_len;
			s->out->v2c.writes++;
			s->out->v2c.commands++;
		} else if (fe->compression && !inl && fe->disk_num_bytes <= len) {
			/* encoded_write: path, 4 u64s, compression, encryption, data */
			s->out->v2c.total += CMD_HDR + TLV_HDR + p->len + 4 * TLV_U64 + 2 * TLV_U32 +
					     2 + fe->disk_num_bytes;
			s->out->v2c.data += fe->disk_num_bytes;
			s->out->v2c.writes++;
			s->out->v2c.commands++;
		} else {
			write_chunks(s, 1, p->len, len, V2_CHUNK);
		}
	}
	free(p);
	return ret;
}

int si_send_hole(struct inc *s, u64 end)
{
	u64 offset = s->cur_last_extent, end1 = end;
	struct fpath *p;
	int ret;

	p = malloc(sizeof(*p));
	if (!p)
		return -ENOMEM;
	ret = si_get_cur_path(s, s->cur_ino, s->cur_gen, p);
	if (ret < 0)
		goto out;
	/* protocol 2: fallocate (punch hole, keep size): path, mode, offset, length */
	s->out->v2c.total += CMD_HDR + tlvp(p) + TLV_U32 + 2 * TLV_U64;
	s->out->v2c.commands++;
	/* protocol 1: writes of zeroes, within i_size */
	if (offset >= s->cur_size)
		goto out;
	if (end1 > s->cur_size)
		end1 = s->cur_size;
	if (end1 > offset)
		write_chunks(s, 0, p->len, end1 - offset, V1_CHUNK);
	s->cur_next_write = end1 > offset ? end1 : offset;
out:
	free(p);
	return ret;
}

int si_send_clone(struct inc *s, const struct croot *c)
{
	struct fpath *p = malloc(sizeof(*p)), *cp = malloc(sizeof(*cp));
	u64 gen;
	int ret;

	if (!p || !cp) {
		ret = -ENOMEM;
		goto out;
	}
	ret = si_get_cur_path(s, s->cur_ino, s->cur_gen, p);
	if (ret < 0)
		goto out;
	if (c->root == s->send) {
		ret = si_get_inode_gen(s, s->send, c->ino, &gen);
		if (ret == 0)
			ret = si_get_cur_path(s, c->ino, gen, cp);
	} else {
		ret = si_get_inode_path(s, c->root, c->ino, cp);
	}
	if (ret < 0)
		goto out;
	/* clone: offset, length, path, clone uuid, clone ctransid, clone path, clone offset */
	cmd(s, 2 * TLV_U64 + tlvp(p) + TLV_UUID + TLV_U64 + tlvp(cp) + TLV_U64);
	s->out->v1.clones++;
	s->out->v2c.clones++;
out:
	free(p);
	free(cp);
	return ret;
}

/* ---- extents compared with the parent ---- */

/* the parent's item at @key or the one before it (btrfs_search_slot_for_read, lower) */
static int search_le(struct btrfs_root *root, const struct btrfs_key *key, struct btrfs_path *path,
		     bool return_any)
{
	int ret = btrfs_search_slot(NULL, root, key, path, 0, 0);

	if (ret <= 0)
		return ret;
	ret = btrfs_prev_item(root, path);
	if (ret == 0 || ret < 0)
		return ret;
	if (!return_any)
		return 1;
	btrfs_path_release(path);
	btrfs_path_init(path);
	ret = btrfs_search_slot(NULL, root, key, path, 0, 0);
	if (ret < 0)
		return ret;
	return btrfs_valid_slot(root, path);
}

static int is_extent_unchanged(struct inc *s, const struct fext *f)
{
	const struct btrfs_file_extent_rec *l = &f->fe;
	struct btrfs_key key = { f->key.objectid, BTRFS_EXTENT_DATA_KEY, f->key.offset }, found;
	struct btrfs_path path;
	int ret;

	if (l->type != BTRFS_FILE_EXTENT_REG)
		return 0;
	btrfs_path_init(&path);
	ret = search_le(s->parent, &key, &path, false);
	if (ret < 0)
		goto out;
	if (ret) {
		ret = 0;
		goto out;
	}
	btrfs_path_item_key(&path, &found);
	if (found.objectid != key.objectid || found.type != key.type) {
		ret = l->disk_bytenr ? 0 : 1;
		goto out;
	}
	key = found;
	while (key.offset < f->key.offset + l->num_bytes) {
		struct btrfs_file_extent_rec r;
		const u8 *data;
		u32 len;
		u64 right_len, right_offset, left_offset_fixed;

		data = btrfs_path_item_data(&path, &len);
		ret = btrfs_decode_file_extent(data, len, &r);
		if (ret < 0)
			goto out;
		if (r.type != BTRFS_FILE_EXTENT_REG && r.type != BTRFS_FILE_EXTENT_INLINE) {
			ret = 0;
			goto out;
		}
		right_len = r.type == BTRFS_FILE_EXTENT_INLINE ? align_up(r.ram_bytes, SECTOR) :
								 r.num_bytes;
		if (found.offset + right_len <= f->key.offset) {
			ret = l->disk_bytenr ? 0 : 1;
			goto out;
		}
		if (r.type == BTRFS_FILE_EXTENT_INLINE) {
			ret = 0;
			goto out;
		}
		right_offset = r.offset;
		left_offset_fixed = l->offset;
		if (key.offset < f->key.offset)
			right_offset += f->key.offset - key.offset;
		else
			left_offset_fixed += key.offset - f->key.offset;
		if (l->disk_bytenr != r.disk_bytenr || left_offset_fixed != right_offset ||
		    l->generation != r.generation) {
			ret = 0;
			goto out;
		}
		ret = btrfs_next_item(s->parent, &path);
		if (ret < 0)
			goto out;
		if (ret == 0)
			btrfs_path_item_key(&path, &found);
		if (ret || found.objectid != key.objectid || found.type != key.type) {
			key.offset += right_len;
			break;
		}
		if (found.offset != key.offset + right_len) {
			ret = 0;
			goto out;
		}
		key = found;
	}
	ret = key.offset >= f->key.offset + l->num_bytes;
out:
	btrfs_path_release(&path);
	return ret;
}

int si_get_last_extent(struct inc *s, u64 offset)
{
	struct btrfs_key key = { s->cur_ino, BTRFS_EXTENT_DATA_KEY, offset };
	struct btrfs_path path;
	int ret;

	s->cur_last_extent = 0;
	btrfs_path_init(&path);
	ret = search_le(s->send, &key, &path, true);
	if (ret < 0)
		goto out;
	ret = 0;
	if (btrfs_valid_slot(s->send, &path) != 0)
		goto out;
	btrfs_path_item_key(&path, &key);
	if (key.objectid == s->cur_ino && key.type == BTRFS_EXTENT_DATA_KEY) {
		struct btrfs_file_extent_rec fe;
		const u8 *data;
		u32 len;

		data = btrfs_path_item_data(&path, &len);
		ret = btrfs_decode_file_extent(data, len, &fe);
		if (ret == 0)
			s->cur_last_extent = si_fext_end(s, &key, &fe);
	}
out:
	btrfs_path_release(&path);
	return ret;
}

int si_range_is_hole_in_parent(struct inc *s, u64 start, u64 end)
{
	struct btrfs_key key = { s->cur_ino, BTRFS_EXTENT_DATA_KEY, start };
	struct btrfs_path path;
	u64 search_start = start;
	int ret;

	btrfs_path_init(&path);
	ret = btrfs_search_slot(NULL, s->parent, &key, &path, 0, 0);
	if (ret < 0)
		return ret;
	if (ret > 0 && path.slots[0] > 0)
		path.slots[0]--;
	while (search_start < end) {
		struct btrfs_file_extent_rec fe;
		const u8 *data;
		u32 len;
		u64 extent_end;

		ret = btrfs_valid_slot(s->parent, &path);
		if (ret < 0)
			goto out;
		if (ret > 0)
			break;
		btrfs_path_item_key(&path, &key);
		if (key.objectid < s->cur_ino || key.type < BTRFS_EXTENT_DATA_KEY)
			goto next;
		if (key.objectid > s->cur_ino || key.type > BTRFS_EXTENT_DATA_KEY || key.offset >= end)
			break;
		data = btrfs_path_item_data(&path, &len);
		ret = btrfs_decode_file_extent(data, len, &fe);
		if (ret < 0)
			goto out;
		extent_end = si_fext_end(s, &key, &fe);
		if (extent_end <= start)
			goto next;
		if (si_raw_disk_bytenr(data, len) == 0) {
			search_start = extent_end;
			goto next;
		}
		ret = 0;
		goto out;
next:
		path.slots[0]++;
	}
	ret = 1;
out:
	btrfs_path_release(&path);
	return ret;
}

bool si_need_send_hole(const struct inc *s)
{
	return s->parent && !s->cur_new && !s->cur_new_gen && !s->cur_deleted &&
	       S_ISREG(s->cur_mode);
}

int si_maybe_send_hole(struct inc *s, const struct fext *f)
{
	int ret;

	if (s->cur_ino != f->key.objectid || !si_need_send_hole(s))
		return 0;
	if (s->cur_last_extent == (u64)-1) {
		ret = si_get_last_extent(s, f->key.offset - 1);
		if (ret)
			return ret;
	}
	if (f->slot == 0 && s->cur_last_extent < f->key.offset) {
		ret = si_get_last_extent(s, f->key.offset - 1);
		if (ret)
			return ret;
	}
	if (s->cur_last_extent < f->key.offset) {
		ret = si_range_is_hole_in_parent(s, s->cur_last_extent, f->key.offset);
		if (ret < 0)
			return ret;
		if (ret == 0) {
			ret = si_send_hole(s, f->key.offset);
			if (ret < 0)
				return ret;
		}
	}
	s->cur_last_extent = si_fext_end(s, &f->key, &f->fe);
	return 0;
}

int si_process_extent(struct inc *s, const struct fext *f)
{
	struct croot *clone = NULL;
	int ret;

	if (S_ISLNK(s->cur_mode))
		return 0;
	if (s->parent && !s->cur_new) {
		ret = is_extent_unchanged(s, f);
		if (ret < 0)
			return ret;
		if (ret)
			return si_maybe_send_hole(s, f);
	} else if (f->fe.type == BTRFS_FILE_EXTENT_PREALLOC ||
		   (f->fe.type == BTRFS_FILE_EXTENT_REG && !f->fe.disk_bytenr)) {
		return 0;
	}
	ret = si_find_extent_clone(s, f, &clone);
	if (ret < 0)
		return ret;
	ret = si_send_write_or_clone(s, f, clone);
	if (ret < 0)
		return ret;
	return si_maybe_send_hole(s, f);
}

static int all_extents_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct fext f;
	int ret = si_fext_decode(&f, key, data, len, (u32)-1);

	return ret < 0 ? ret : si_process_extent(priv, &f);
}

int si_process_all_extents(struct inc *s)
{
	struct btrfs_key min = { s->cmp_key.objectid, BTRFS_EXTENT_DATA_KEY, 0 };
	struct btrfs_key max = { s->cmp_key.objectid, BTRFS_EXTENT_DATA_KEY, (u64)-1 };

	return btrfs_iterate_items(s->send, &min, &max, all_extents_cb, s);
}
