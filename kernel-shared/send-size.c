// SPDX-License-Identifier: GPL-2.0-only
/*
 * Size of a full send stream (see send-size.h for the model).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ctree.h"
#include "extent-buffer.h"
#include "fs.h"
#include "items.h"
#include "send-clone.h"
#include "send-size.h"
#include "array.h"

#define CMD_HDR		10u	/* le32 len, le16 cmd, le32 crc */
#define TLV_HDR		4u	/* le16 type, le16 len */
#define TLV_U64		(TLV_HDR + 8u)
#define TLV_U32		(TLV_HDR + 4u)
#define TLV_TIME	(TLV_HDR + 12u)
#define TLV_UUID	(TLV_HDR + 16u)
#define STREAM_HDR	17u	/* "btrfs-stream\0", le32 version */
#define V1_CHUNK	(48u * 1024)
#define V2_CHUNK	(128u * 1024)
#define UTIMES_CACHE	64u
#define ROOT_INO	256ULL
#define SECTOR		4096u		/* our sector and page size */
#define CLONE_EOF_ALIGN	65536u		/* the receiver's largest sector size */
/* clone: path, file offset, length, uuid, ctransid, clone path, clone offset */
#define CLONE_FIXED	(CMD_HDR + TLV_HDR + 2 * TLV_U64 + TLV_UUID + TLV_U64 + TLV_HDR + TLV_U64)

/* a file extent item of the subvolume */
struct fext {
	u64 ino, off, bytenr, eo, num, disk_num, ram;
	u64 owner;		/* of the leaf holding it */
	u8 comp, type;
};

struct ref {
	u64 parent;
	u32 name;		/* offset in strings */
	u16 len;
};

struct ino {
	u64 ino, gen, size;
	u32 mode;
	bool created;
	u32 first_ref, nr_refs;		/* in refs[] */
	u32 target_len;			/* symlink */
	bool has_caps;
	u32 caps_cost;			/* set_xattr of security.capability without the path */
	/* after the refs: commands that carry this inode's path, and their other bytes */
	u64 ncmds;
	u64 fixed[2];
	u64 data[2];
	u64 writes[2];
	u64 next_write[2];
	u32 first_ext, nr_exts;		/* in exts[] */
	u64 nr_clones;
};

struct clone {
	u64 dst, src;
};

struct state {
	struct btrfs_fs *fs;
	struct ino *inos;
	size_t nr, cap;
	struct ref *refs;
	size_t nr_refs, refs_cap;
	char *str;
	size_t str_len, str_cap;
	struct fext *exts;
	size_t nr_exts, exts_cap;
	u64 leaf_owner;			/* of the item being read */
	struct clone_search cs;		/* the subvolume its only clone root */
	struct clone *clones;
	size_t nr_clones, clones_cap;
	int err;
	/* replay */
	u64 progress;
	u64 lru[UTIMES_CACHE + 1];
	u32 lru_nr;
	size_t next_clone;
	struct btrfs_send_size *out;
};

static struct ino *find(struct state *s, u64 ino)
{
	size_t lo = 0, hi = s->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->inos[mid].ino == ino)
			return &s->inos[mid];
		if (s->inos[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static u64 orphan_len(const struct ino *i)
{
	char b[64];

	return (u64)snprintf(b, sizeof(b), "o%llu-%llu-0", (unsigned long long)i->ino,
			     (unsigned long long)i->gen);
}

/* length of the path of @i in the stream while inodes below s->progress are done */
static u64 path_len(struct state *s, const struct ino *i)
{
	u64 len = 0;
	int depth = 0;

	while (i && i->ino != ROOT_INO) {
		const struct ref *r;
		const struct ino *p;

		if (i->ino >= s->progress || !i->nr_refs)
			return len + orphan_len(i);
		r = &s->refs[i->first_ref];
		len += r->len;
		if (r->parent == ROOT_INO)
			return len;
		len += 1;
		p = find(s, r->parent);
		if (!p || ++depth > 4096)
			return len;
		i = p;
	}
	return len;
}

static u64 utimes_cost(int v2, u64 plen)
{
	return CMD_HDR + TLV_HDR + plen + 3 * TLV_TIME + (v2 ? TLV_TIME : 0);
}

static void add(struct state *s, u64 bytes1, u64 bytes2, u64 cmds)
{
	s->out->v1.total += bytes1;
	s->out->v2c.total += bytes2;
	s->out->v1.commands += cmds;
	s->out->v2c.commands += cmds;
}

static void send_utimes(struct state *s, u64 ino)
{
	const struct ino *i = find(s, ino);
	u64 plen = i ? path_len(s, i) : 0;

	add(s, utimes_cost(0, plen), utimes_cost(1, plen), 1);
}

static void cache_utimes(struct state *s, u64 ino)
{
	for (u32 k = 0; k < s->lru_nr; k++) {
		if (s->lru[k] == ino) {
			memmove(s->lru + k, s->lru + k + 1, (s->lru_nr - k - 1) * sizeof(u64));
			s->lru[s->lru_nr - 1] = ino;
			return;
		}
	}
	s->lru[s->lru_nr++] = ino;
	while (s->lru_nr > UTIMES_CACHE) {
		send_utimes(s, s->lru[0]);
		memmove(s->lru, s->lru + 1, (s->lru_nr - 1) * sizeof(u64));
		s->lru_nr--;
	}
}

/* ---- reading ---- */

static int put_str(struct state *s, const void *p, size_t len, u32 *off)
{
	int ret = btrfs_array_grow((void **)&s->str, &s->str_cap, s->str_len + len, 1);

	if (ret < 0)
		return ret;
	memcpy(s->str + s->str_len, p, len);
	*off = (u32)s->str_len;
	s->str_len += len;
	return 0;
}

static void write_chunks(struct ino *i, int v, u64 len, u64 chunk)
{
	u64 n = (len + chunk - 1) / chunk;

	/* write: path, FILE_OFFSET, DATA (v2: no length) */
	i->fixed[v] += n * (CMD_HDR + TLV_HDR + TLV_U64 + (v ? 2u : TLV_HDR)) + len;
	i->data[v] += len;
	i->writes[v] += n;
}

static int extent(struct state *s, struct ino *i, const struct btrfs_key *key, const u8 *p,
		  u32 len)
{
	u64 off = key->offset, ram, end;
	u8 comp, type;
	int ret;

	if (len < 21)
		return -EUCLEAN;
	ram = get_le64(p + 8);
	comp = p[16];
	type = p[20];
	if (type == BTRFS_FILE_EXTENT_INLINE) {
		u64 ilen = len - 21;

		if (S_ISLNK(i->mode)) {
			i->target_len = (u32)ilen;
			return 0;
		}
		if (off >= i->size)
			return 0;
		end = off + ram < i->size ? off + ram : i->size;
		/* encoded unless the compressed bytes are more than the range sent */
		if (comp && ilen <= end - off) {
			/* encoded_write: path, 4 u64s, compression, data (no encryption) */
			i->fixed[1] += CMD_HDR + TLV_HDR + 4 * TLV_U64 + TLV_U32 + 2 + ilen;
			i->data[1] += ilen;
			i->writes[1]++;
		} else {
			write_chunks(i, 1, end - off, V2_CHUNK);
		}
		write_chunks(i, 0, end - off, V1_CHUNK);
		i->next_write[0] = i->next_write[1] = end;
		return 0;
	}
	if (len < 53)
		return -EUCLEAN;
	/* regular and prealloc: recorded, sized once all are read */
	ret = btrfs_array_grow((void **)&s->exts, &s->exts_cap, s->nr_exts + 1, sizeof(*s->exts));
	if (ret < 0)
		return ret;
	if (!i->nr_exts)
		i->first_ext = (u32)s->nr_exts;
	i->nr_exts++;
	s->exts[s->nr_exts++] = (struct fext){
		.ino = i->ino, .off = off, .bytenr = get_le64(p + 21), .eo = get_le64(p + 37),
		.num = get_le64(p + 45), .disk_num = get_le64(p + 29), .ram = ram,
		.owner = s->leaf_owner, .comp = comp, .type = type,
	};
	return 0;
}

/* ---- regular extents: writes and clones ---- */

/* send_extent_data: a write of [@len bytes of extent @e */
static void write_range(struct ino *i, const struct fext *e, u64 len)
{
	write_chunks(i, 0, len, V1_CHUNK);
	if (e->comp && e->disk_num <= len) {
		/* encoded_write: path, 4 u64s, compression, encryption, data */
		i->fixed[1] += CMD_HDR + TLV_HDR + 4 * TLV_U64 + 2 * TLV_U32 + 2 + e->disk_num;
		i->data[1] += e->disk_num;
		i->writes[1]++;
	} else {
		write_chunks(i, 1, len, V2_CHUNK);
	}
}

static int clone_cmd(struct state *s, struct ino *i, u64 src)
{
	int ret = btrfs_array_grow((void **)&s->clones, &s->clones_cap, s->nr_clones + 1,
				   sizeof(*s->clones));

	if (ret < 0)
		return ret;
	s->clones[s->nr_clones++] = (struct clone){ i->ino, src };
	i->nr_clones++;
	i->ncmds++;
	i->fixed[0] += CLONE_FIXED;
	i->fixed[1] += CLONE_FIXED;
	return 0;
}

/* the kernel's clone_range(): clones where the source still points to the extent, writes elsewhere */
static int clone_range(struct state *s, struct ino *i, const struct fext *e, u64 src_ino,
		       u64 coff, u64 offset, u64 len)
{
	const struct ino *src = find(s, src_ino);
	u64 data_offset = e->eo, src_size;
	size_t j, last;
	int ret;

	if (coff == 0 && len == SECTOR) {
		write_range(i, e, len);
		return 0;
	}
	if (!src || !src->nr_exts) {
		write_range(i, e, len);
		return 0;
	}
	src_size = src->size;
	j = src->first_ext;
	last = j + src->nr_exts;
	/* the item at coff, or the one before it */
	while (j + 1 < last && s->exts[j + 1].off <= coff)
		j++;
	for (; j < last; j++) {
		const struct fext *c = &s->exts[j];
		u64 ext_len = c->num, clone_len, cdo;
		bool crossed = false, match;

		if (c->off + ext_len <= coff)
			continue;
		if (c->off > coff) {
			u64 hole = c->off - coff;

			if (hole > len)
				hole = len;
			write_range(i, e, hole);
			len -= hole;
			if (!len)
				break;
			offset += hole;
			coff += hole;
			data_offset += hole;
		}
		if (c->off >= coff + len || c->off >= src_size)
			break;
		if (c->off + ext_len > src_size) {
			ext_len = src_size - c->off;
			crossed = true;
		}
		cdo = c->eo;
		match = c->bytenr == e->bytenr;
		if (match) {
			coff = c->off;
			if (cdo < data_offset && cdo + ext_len > data_offset) {
				u64 d = data_offset - cdo;

				ext_len -= d;
				cdo += d;
				coff += d;
			}
		}
		clone_len = ext_len < len ? ext_len : len;
		if (match && cdo == data_offset) {
			u64 src_end = coff + clone_len;

			if (src_end == src_size && src_end % CLONE_EOF_ALIGN &&
			    offset + clone_len < i->size) {
				u64 slen = (src_end - coff) / CLONE_EOF_ALIGN * CLONE_EOF_ALIGN;

				if (slen) {
					ret = clone_cmd(s, i, src_ino);
					if (ret < 0)
						return ret;
				}
				write_range(i, e, clone_len - slen);
			} else {
				ret = clone_cmd(s, i, src_ino);
				if (ret < 0)
					return ret;
			}
		} else if (crossed && clone_len < len) {
			break;
		} else {
			write_range(i, e, clone_len);
		}
		len -= clone_len;
		if (!len)
			break;
		offset += clone_len;
		coff += clone_len;
		if (src_ino == i->ino && coff >= i->next_write[0])
			break;
		data_offset += clone_len;
	}
	if (len)
		write_range(i, e, len);
	return 0;
}

/* process_extent() of a full send: find_extent_clone(), then send_write_or_clone() */
static int size_extent(struct state *s, struct ino *i, u32 k)
{
	const struct fext *e = &s->exts[k];
	const struct btrfs_file_extent_rec fe = {
		.ram_bytes = e->ram, .compression = e->comp, .type = e->type,
		.disk_bytenr = e->bytenr, .disk_num_bytes = e->disk_num, .offset = e->eo,
		.num_bytes = e->num,
	};
	u64 off = e->off, end, best_off = 0, best_ino = 0;
	struct croot *c;
	bool found;
	int ret;

	if (e->type == BTRFS_FILE_EXTENT_PREALLOC || !e->bytenr || off >= i->size)
		return 0;
	end = off + e->num < i->size ? off + e->num : i->size;
	s->cs.cur_ino = i->ino;
	s->cs.cur_next_write = i->next_write[0];
	s->cs.self_owner = e->owner;
	s->cs.self_offset = off - e->eo;
	ret = btrfs_send_find_clone(&s->cs, &fe, off, i->size, &c);
	if (ret < 0)
		return ret;
	found = c != NULL;
	if (found) {
		best_ino = c->ino;
		best_off = c->offset;
	}
	if (found && end % SECTOR && end == i->size) {
		/* unaligned: a clone only when it also ends at the source's i_size */
		const struct ino *src = find(s, best_ino);

		found = src && best_off + (end - off) == src->size;
	} else if (found && end % SECTOR) {
		found = false;
	}
	if (found)
		ret = clone_range(s, i, e, best_ino, best_off, off, end - off);
	else
		write_range(i, e, end - off), ret = 0;
	i->next_write[0] = i->next_write[1] = end;
	return ret;
}

static int size_extents(struct state *s)
{
	int ret;

	for (size_t n = 0; n < s->nr; n++) {
		struct ino *i = &s->inos[n];

		for (u32 k = 0; k < i->nr_exts; k++) {
			ret = size_extent(s, i, i->first_ext + k);
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

static int item_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct state *s = priv;
	const u8 *p = data, *e = p + len;
	struct ino *i;
	int ret;

	if (key->objectid < ROOT_INO || key->objectid > BTRFS_LAST_FREE_OBJECTID)
		return 0;
	if (key->type == BTRFS_INODE_ITEM_KEY) {
		struct btrfs_inode_rec r;

		ret = btrfs_decode_inode_item(data, len, &r);
		if (ret < 0)
			return ret;
		if (!r.nlink)
			return 0;
		ret = btrfs_array_grow((void **)&s->inos, &s->cap, s->nr + 1, sizeof(*s->inos));
		if (ret < 0)
			return ret;
		i = &s->inos[s->nr++];
		memset(i, 0, sizeof(*i));
		i->ino = key->objectid;
		i->gen = r.generation;
		i->size = r.size;
		i->mode = r.mode;
		i->first_ref = (u32)s->nr_refs;
		return 0;
	}
	if (!s->nr || s->inos[s->nr - 1].ino != key->objectid)
		return 0;
	i = &s->inos[s->nr - 1];
	if (key->type == BTRFS_INODE_REF_KEY || key->type == BTRFS_INODE_EXTREF_KEY) {
		bool ext = key->type == BTRFS_INODE_EXTREF_KEY;
		u32 head = ext ? 18 : 10;

		if (i->ino == ROOT_INO)
			return 0;
		while (p + head <= e) {
			u16 nl = get_le16(p + head - 2);
			struct ref *r;

			if (p + head + nl > e)
				return -EUCLEAN;
			ret = btrfs_array_grow((void **)&s->refs, &s->refs_cap, s->nr_refs + 1, sizeof(*s->refs));
			if (ret < 0)
				return ret;
			r = &s->refs[s->nr_refs++];
			r->parent = ext ? get_le64(p) : key->offset;
			r->len = nl;
			ret = put_str(s, p + head, nl, &r->name);
			if (ret < 0)
				return ret;
			i->nr_refs++;
			p += head + nl;
		}
		return 0;
	}
	if (key->type == BTRFS_XATTR_ITEM_KEY) {
		const u32 hdr = sizeof(struct btrfs_dir_item);

		while (p + hdr <= e) {
			const struct btrfs_dir_item *di = (const struct btrfs_dir_item *)p;
			u16 nl = btrfs_dir_name_len(di), vl = btrfs_dir_data_len(di);
			u32 cost = CMD_HDR + TLV_HDR + TLV_HDR + nl + TLV_HDR + vl;

			if (p + hdr + nl + vl > e)
				return -EUCLEAN;
			if (nl == 19 && !memcmp(p + hdr, "security.capability", 19)) {
				/* not with the others: sent once, after the chown */
				i->has_caps = true;
				i->caps_cost = cost;
			} else {
				i->ncmds++;
				i->fixed[0] += cost;
				i->fixed[1] += cost;
			}
			p += hdr + nl + vl;
		}
		return 0;
	}
	if (key->type == BTRFS_EXTENT_DATA_KEY && (S_ISREG(i->mode) || S_ISLNK(i->mode)))
		return extent(s, i, key, p, len);
	return 0;
}

/* ---- replay ---- */

static u64 create_cost(const struct ino *i)
{
	u64 c = CMD_HDR + TLV_HDR + orphan_len(i) + TLV_U64;

	if (S_ISLNK(i->mode))
		c += TLV_HDR + i->target_len;
	else if (!S_ISREG(i->mode) && !S_ISDIR(i->mode))
		c += 2 * TLV_U64;
	return c;
}

static void create(struct state *s, struct ino *i)
{
	u64 c = create_cost(i);

	i->created = true;
	add(s, c, c, 1);
}

static void process_inode(struct state *s, struct ino *i)
{
	u64 plen, valid = 0, src_plen = 0;

	s->progress = i->ino;
	if (i->ino != ROOT_INO) {
		if (!i->created)
			create(s, i);
		for (u32 k = 0; k < i->nr_refs; k++) {
			const struct ref *r = &s->refs[i->first_ref + k];
			struct ino *p = find(s, r->parent);
			u64 dest, c;

			if (p && p->ino > i->ino && !p->created)
				create(s, p);
			dest = (p ? path_len(s, p) : 0);
			dest += (dest ? 1 : 0) + r->len;
			if (k == 0) {
				c = CMD_HDR + TLV_HDR + orphan_len(i) + TLV_HDR + dest;
				valid = dest;
			} else {
				c = CMD_HDR + TLV_HDR + dest + TLV_HDR + valid;
			}
			add(s, c, c, 1);
		}
		s->progress = i->ino + 1;
		for (u32 k = 0; k < i->nr_refs; k++) {
			const struct ref *r = &s->refs[i->first_ref + k];

			if (r->parent < i->ino)
				cache_utimes(s, r->parent);
		}
	}
	s->progress = i->ino + 1;
	plen = path_len(s, i);
	for (; s->next_clone < s->nr_clones && s->clones[s->next_clone].dst == i->ino; s->next_clone++) {
		const struct ino *src = find(s, s->clones[s->next_clone].src);

		src_plen += src ? path_len(s, src) : 0;
	}
	for (int v = 0; v < 2; v++) {
		struct btrfs_send_size_proto *o = v ? &s->out->v2c : &s->out->v1;
		u64 n = i->ncmds + i->writes[v];

		o->total += i->fixed[v] + n * plen + src_plen;
		o->clones += i->nr_clones;
		o->data += i->data[v];
		o->writes += i->writes[v];
		o->commands += n;
	}
	if (S_ISREG(i->mode)) {
		if (i->next_write[0] != i->size)
			add(s, CMD_HDR + TLV_HDR + plen + TLV_U64, 0, 0), s->out->v1.commands++;
		if (i->next_write[1] != i->size)
			add(s, 0, CMD_HDR + TLV_HDR + plen + TLV_U64, 0), s->out->v2c.commands++;
	}
	/* chown */
	add(s, CMD_HDR + TLV_HDR + plen + 2 * TLV_U64, CMD_HDR + TLV_HDR + plen + 2 * TLV_U64, 1);
	if (!S_ISLNK(i->mode))
		add(s, CMD_HDR + TLV_HDR + plen + TLV_U64, CMD_HDR + TLV_HDR + plen + TLV_U64, 1);
	if (i->has_caps)
		add(s, i->caps_cost + plen, i->caps_cost + plen, 1);
	if (S_ISDIR(i->mode) && i->size > 0)
		cache_utimes(s, i->ino);
	else
		add(s, utimes_cost(0, plen), utimes_cost(1, plen), 1);
}

struct backref {
	u64 name_len;
	bool found;
};

static int backref_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct backref *b = priv;

	(void)key;
	if (len < 18)
		return -EUCLEAN;
	b->name_len = get_le16((const u8 *)data + 16);
	b->found = true;
	return 1;
}

int btrfs_send_name_len(struct btrfs_fs *fs, u64 subvolid, u64 *len)
{
	struct btrfs_key bmin = { subvolid, BTRFS_ROOT_BACKREF_KEY, 0 };
	struct btrfs_key bmax = { subvolid, BTRFS_ROOT_BACKREF_KEY, (u64)-1 };
	struct backref b = { 0 };
	struct btrfs_root *tree;
	int ret = btrfs_read_root(fs, BTRFS_ROOT_TREE_OBJECTID, &tree);

	if (ret == 0)
		ret = btrfs_iterate_items(tree, &bmin, &bmax, backref_cb, &b);
	*len = b.name_len;
	return ret < 0 ? ret : 0;
}

int btrfs_send_size(struct btrfs_fs *fs, u64 subvolid, struct btrfs_send_size *out)
{
	struct state s = { .fs = fs, .out = out };
	struct btrfs_root *root;
	struct btrfs_key min = { ROOT_INO, 0, 0 };
	struct btrfs_key max = { (u64)-1, (u8)-1, (u64)-1 };
	u64 sub, name_len;
	u32 saved_limit;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = btrfs_read_root(fs, subvolid, &root);
	if (ret < 0)
		return ret;
	if (!root->has_item) {
		btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_SUBVOL, "subvolume %llu: not a subvolume",
				       (unsigned long long)subvolid);
		return -EINVAL;
	}
	if (!(btrfs_root_flags(&root->root_item) & BTRFS_ROOT_SUBVOL_RDONLY)) {
		btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_SUBVOL,
				       "subvolume %llu: not read-only (send refuses it)",
				       (unsigned long long)subvolid);
		return -EPERM;
	}
	ret = btrfs_send_name_len(fs, subvolid, &name_len);
	if (ret < 0)
		return ret;
	/* one pass over the tree: its blocks recycled, not kept */
	saved_limit = btrfs_eb_cache_set_limit(fs, 64);
	ret = btrfs_iterate_items_owner(root, &min, &max, item_cb, &s, &s.leaf_owner);
	if (ret >= 0) {
		s.cs.fs = fs;
		s.cs.send = root;
		s.cs.croots[0] = (struct croot){ .root = root, .id = subvolid };
		s.cs.nr_croots = 1;
		ret = size_extents(&s);
	}
	btrfs_eb_cache_set_limit(fs, saved_limit);
	if (ret < 0)
		goto out;
	/* header; subvol: path (its name), uuid, ctransid */
	sub = STREAM_HDR + CMD_HDR + TLV_HDR + name_len + TLV_UUID + TLV_U64;
	add(&s, sub, sub, 1);
	for (size_t k = 0; k < s.nr; k++)
		process_inode(&s, &s.inos[k]);
	s.progress = (u64)-1;
	for (u32 k = 0; k < s.lru_nr; k++)
		send_utimes(&s, s.lru[k]);
	/* end */
	add(&s, CMD_HDR, CMD_HDR, 1);
out:
	free(s.exts);
	free(s.clones);
	free(s.inos);
	free(s.refs);
	free(s.str);
	return ret;
}
