// SPDX-License-Identifier: GPL-2.0-only
/*
 * Incremental send sizes (send-incr.c): clone ranges, from the clone
 * source send-clone.c finds.
 */
#include <errno.h>

#include "extent-buffer.h"
#include "fs.h"
#include "send-incr-internal.h"

/* the clone source for the extent item @f (send-clone.c), or NULL */
int si_find_extent_clone(struct inc *s, const struct fext *f, struct croot **found)
{
	s->cs.cur_ino = s->cur_ino;
	s->cs.cur_next_write = s->cur_next_write;
	return btrfs_send_find_clone(&s->cs, &f->fe, f->key.offset, s->cur_size, found);
}

/* the kernel's clone_range(): clones where the source still points at the extent */
static int clone_range(struct inc *s, const struct fext *f, struct croot *c, u64 offset, u64 len)
{
	const u64 disk_byte = f->fe.disk_bytenr;
	u64 data_offset = f->fe.offset, src_size;
	struct btrfs_key key = { c->ino, BTRFS_EXTENT_DATA_KEY, c->offset };
	struct btrfs_path path;
	struct iinfo info;
	int ret;

	if (c->offset == 0 && len == s->fs->sectorsize)
		return si_send_extent_data(s, f, len);
	ret = si_get_inode_info(s, c->root, c->ino, &info);
	if (ret < 0)
		return ret;
	src_size = info.size;
	btrfs_path_init(&path);
	ret = btrfs_search_slot(NULL, c->root, &key, &path, 0, 0);
	if (ret < 0)
		return ret;
	if (ret > 0 && path.slots[0] > 0) {
		struct btrfs_key prev;

		btrfs_eb_item_key(path.nodes[0], (u32)path.slots[0] - 1, &prev);
		if (prev.objectid == c->ino && prev.type == BTRFS_EXTENT_DATA_KEY)
			path.slots[0]--;
	}
	for (;;) {
		struct btrfs_file_extent_rec fe;
		const u8 *data;
		u32 ilen;
		u64 ext_len, clone_len, cdo, bytenr;
		bool crossed = false;

		ret = btrfs_valid_slot(c->root, &path);
		if (ret < 0)
			goto out;
		if (ret > 0)
			break;
		btrfs_path_item_key(&path, &key);
		if (key.objectid != c->ino || key.type != BTRFS_EXTENT_DATA_KEY)
			break;
		data = btrfs_path_item_data(&path, &ilen);
		ret = btrfs_decode_file_extent(data, ilen, &fe);
		if (ret < 0)
			goto out;
		if (fe.type == BTRFS_FILE_EXTENT_INLINE) {
			ext_len = align_up(fe.ram_bytes, SECTOR);
			bytenr = si_raw_disk_bytenr(data, ilen);
			cdo = 0;
		} else {
			ext_len = fe.num_bytes;
			bytenr = fe.disk_bytenr;
			cdo = fe.offset;
		}
		if (key.offset + ext_len <= c->offset)
			goto next;
		if (key.offset > c->offset) {
			u64 hole = key.offset - c->offset;

			if (hole > len)
				hole = len;
			ret = si_send_extent_data(s, f, hole);
			if (ret < 0)
				goto out;
			len -= hole;
			if (!len)
				break;
			offset += hole;
			c->offset += hole;
			data_offset += hole;
		}
		if (key.offset >= c->offset + len || key.offset >= src_size)
			break;
		if (key.offset + ext_len > src_size) {
			ext_len = src_size - key.offset;
			crossed = true;
		}
		if (bytenr == disk_byte) {
			c->offset = key.offset;
			if (cdo < data_offset && cdo + ext_len > data_offset) {
				u64 d = data_offset - cdo;

				ext_len -= d;
				cdo += d;
				c->offset += d;
			}
		}
		clone_len = ext_len < len ? ext_len : len;
		if (bytenr == disk_byte && cdo == data_offset) {
			u64 src_end = c->offset + clone_len;

			if (src_end == src_size && src_end % CLONE_EOF_ALIGN &&
			    offset + clone_len < s->cur_size) {
				u64 slen = (src_end - c->offset) / CLONE_EOF_ALIGN * CLONE_EOF_ALIGN;

				if (slen) {
					ret = si_send_clone(s, c);
					if (ret < 0)
						goto out;
				}
				ret = si_send_extent_data(s, f, clone_len - slen);
			} else {
				ret = si_send_clone(s, c);
			}
		} else if (crossed && clone_len < len) {
			break;
		} else {
			ret = si_send_extent_data(s, f, clone_len);
		}
		if (ret < 0)
			goto out;
		len -= clone_len;
		if (!len)
			break;
		offset += clone_len;
		c->offset += clone_len;
		if (c->root == s->send && c->ino == s->cur_ino && c->offset >= s->cur_next_write)
			break;
		data_offset += clone_len;
next:
		path.slots[0]++;
	}
	ret = len ? si_send_extent_data(s, f, len) : 0;
out:
	btrfs_path_release(&path);
	return ret;
}

int si_send_write_or_clone(struct inc *s, const struct fext *f, struct croot *c)
{
	u64 offset = f->key.offset, end = si_fext_end(s, &f->key, &f->fe);
	int ret;

	if (end > s->cur_size)
		end = s->cur_size;
	if (offset >= end)
		return 0;
	if (c && end % SECTOR && end == s->cur_size) {
		/* unaligned: a clone only when the source range ends at the source's i_size */
		struct iinfo info;

		ret = si_get_inode_info(s, c->root, c->ino, &info);
		if (ret < 0)
			return ret;
		if (info.size != c->offset + (end - offset)) {
			c = NULL;
		} else if (s->parent) {
			/* the file may be longer at the receiver now: truncate to the range first */
			ret = si_path_cmd(s, s->cur_ino, s->cur_gen, TLV_U64, TLV_U64);
			if (ret < 0)
				return ret;
		}
	} else if (c && end % SECTOR) {
		c = NULL;
	}
	if (c)
		ret = clone_range(s, f, c, offset, end - offset);
	else
		ret = si_send_extent_data(s, f, end - offset);
	s->cur_next_write = s->cur_next_write2 = end;
	return ret;
}
