// SPDX-License-Identifier: GPL-2.0-only
/*
 * Incremental send sizes (send-incr.c): paths as the receiver has them
 * (the name cache, overwritten and orphan names, delayed moves), the tree
 * lookups, and the commands that carry a path.
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

/* ---- counting ---- */





/* ---- paths ---- */



/* put @name in front of @p (building a path from the leaf up) */


/* ---- tree lookups ---- */

/*
 * The inode item of @ino in @root.  The trees stay as they are for the
 * whole send and the state machine asks for the same few inodes again and
 * again (69,161 lookups of 3,546 inodes for the 1% change of the bench
 * pair, 29% of the time), so each answer, "not there" too, is kept in a
 * direct-mapped table: a later lookup of a slot's inode costs no search.
 */
int si_get_inode_info(struct inc *s, struct btrfs_root *root, u64 ino, struct iinfo *info)
{
	struct btrfs_key key = { ino, BTRFS_INODE_ITEM_KEY, 0 };
	struct btrfs_inode_rec r;
	struct icent *e;
	u8 buf[256];
	u32 len;
	int ret;

	if (!root)
		return -ENOENT;
	e = &s->icache[(((ino ^ (root->id << 40)) * 0x9E3779B97F4A7C15ULL) >> 40) &
		       (ICACHE_SLOTS - 1)];
	if (e->root == root && e->ino == ino) {
		if (info && !e->ret)
			*info = e->info;
		return e->ret;
	}
	ret = btrfs_lookup_item(root, &key, buf, sizeof(buf), &len);
	if (ret == -ENOENT) {
		*e = (struct icent){ .root = root, .ino = ino, .ret = ret };
		return ret;
	}
	if (ret < 0)
		return ret;
	ret = btrfs_decode_inode_item(buf, len, &r);
	if (ret < 0)
		return ret;
	*e = (struct icent){ .root = root, .ino = ino, .info = {
		.size = r.size, .gen = r.generation, .mode = r.mode, .uid = r.uid,
		.gid = r.gid, .rdev = r.rdev, .flags = r.flags, .nlink = r.nlink } };
	if (info)
		*info = e->info;
	return 0;
}

int si_get_inode_gen(struct inc *s, struct btrfs_root *root, u64 ino, u64 *gen)
{
	struct iinfo info = { 0 };
	int ret = si_get_inode_info(s, root, ino, &info);

	*gen = info.gen;
	return ret;
}

/* position @path at the first item >= @key; 1 when there is none */
static int search_ge(struct btrfs_root *root, const struct btrfs_key *key, struct btrfs_path *path)
{
	int ret = btrfs_search_slot(NULL, root, key, path, 0, 0);

	if (ret < 0)
		return ret;
	return btrfs_valid_slot(root, path);
}

/* the first name of @ino in @root: INODE_REF or INODE_EXTREF, first entry */
int si_get_first_ref(struct inc *s, struct btrfs_root *root, u64 ino, u64 *dir, u64 *dir_gen,
			 struct fpath *name)
{
	struct btrfs_key key = { ino, BTRFS_INODE_REF_KEY, 0 }, found;
	struct btrfs_path path;
	const u8 *data;
	u32 len, pos = 0;
	u64 parent;
	int ret;

	if (!root)
		return -ENOENT;
	btrfs_path_init(&path);
	ret = search_ge(root, &key, &path);
	if (ret < 0)
		goto out;
	if (ret > 0) {
		ret = -ENOENT;
		goto out;
	}
	btrfs_path_item_key(&path, &found);
	if (found.objectid != ino || (found.type != BTRFS_INODE_REF_KEY &&
				      found.type != BTRFS_INODE_EXTREF_KEY)) {
		ret = -ENOENT;
		goto out;
	}
	data = btrfs_path_item_data(&path, &len);
	if (found.type == BTRFS_INODE_REF_KEY) {
		struct btrfs_inode_ref_rec r;

		ret = btrfs_inode_ref_next(data, len, &pos, &r);
		if (ret != 0) {
			ret = ret < 0 ? ret : -EUCLEAN;
			goto out;
		}
		parent = found.offset;
		ret = fp_add(name, r.name, r.name_len);
	} else {
		struct btrfs_inode_extref_rec r;

		ret = btrfs_inode_extref_next(data, len, &pos, &r);
		if (ret != 0) {
			ret = ret < 0 ? ret : -EUCLEAN;
			goto out;
		}
		parent = r.parent;
		ret = fp_add(name, r.name, r.name_len);
	}
	btrfs_path_release(&path);
	if (ret < 0)
		return ret;
	if (dir_gen) {
		ret = si_get_inode_gen(s, root, parent, dir_gen);
		if (ret < 0)
			return ret;
	}
	*dir = parent;
	return 0;
out:
	btrfs_path_release(&path);
	return ret;
}

/* the inode of entry @name in directory @dir; -ENOENT (also for a subvolume) */
int si_lookup_dir_item_inode(struct btrfs_root *root, u64 dir, const char *name, u32 name_len,
				 u64 *found)
{
	struct btrfs_key key = { dir, BTRFS_DIR_ITEM_KEY, btrfs_name_hash(name, name_len) };
	struct btrfs_path path;
	const u8 *data;
	u32 len, pos = 0;
	int ret;

	if (!root)
		return -ENOENT;
	btrfs_path_init(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret != 0) {
		btrfs_path_release(&path);
		return ret < 0 ? ret : -ENOENT;
	}
	data = btrfs_path_item_data(&path, &len);
	for (;;) {
		struct btrfs_dir_item_rec d;

		ret = btrfs_dir_item_next(data, len, &pos, &d);
		if (ret != 0) {
			ret = ret < 0 ? ret : -ENOENT;
			break;
		}
		if (d.name_len == name_len && !memcmp(d.name, name, name_len)) {
			if (d.location.type == BTRFS_ROOT_ITEM_KEY) {
				ret = -ENOENT;
			} else {
				*found = d.location.objectid;
				ret = 0;
			}
			break;
		}
	}
	btrfs_path_release(&path);
	return ret;
}

int si_gen_unique_name(struct inc *s, u64 ino, u64 gen, struct fpath *dest)
{
	char tmp[64];
	u64 idx = 0, other;
	int len, ret;

	for (;;) {
		len = snprintf(tmp, sizeof(tmp), "o%llu-%llu-%llu", (unsigned long long)ino,
			       (unsigned long long)gen, (unsigned long long)idx);
		ret = si_lookup_dir_item_inode(s->send, TOP, tmp, (u32)len, &other);
		if (ret == 0) {
			idx++;
			continue;
		}
		if (ret != -ENOENT)
			return ret;
		if (s->parent) {
			ret = si_lookup_dir_item_inode(s->parent, TOP, tmp, (u32)len, &other);
			if (ret == 0) {
				idx++;
				continue;
			}
			if (ret != -ENOENT)
				return ret;
		}
		break;
	}
	return fp_add(dest, tmp, (u32)len);
}

int si_get_cur_inode_state(struct inc *s, u64 ino, u64 gen, u64 *send_gen, u64 *parent_gen)
{
	struct iinfo info = { 0 };
	int ret, left_ret, right_ret;
	u64 left_gen, right_gen = 0;

	ret = si_get_inode_info(s, s->send, ino, &info);
	if (ret < 0 && ret != -ENOENT)
		return ret;
	left_ret = info.nlink == 0 ? -ENOENT : ret;
	left_gen = info.gen;
	if (send_gen)
		*send_gen = left_ret == -ENOENT ? 0 : info.gen;
	if (!s->parent) {
		right_ret = -ENOENT;
	} else {
		memset(&info, 0, sizeof(info));
		ret = si_get_inode_info(s, s->parent, ino, &info);
		if (ret < 0 && ret != -ENOENT)
			return ret;
		right_ret = info.nlink == 0 ? -ENOENT : ret;
		right_gen = info.gen;
		if (parent_gen)
			*parent_gen = right_ret == -ENOENT ? 0 : info.gen;
	}
	if (!left_ret && !right_ret) {
		if (left_gen == gen && right_gen == gen)
			return ST_NO_CHANGE;
		if (left_gen == gen)
			return ino < s->send_progress ? ST_DID_CREATE : ST_WILL_CREATE;
		if (right_gen == gen)
			return ino < s->send_progress ? ST_DID_DELETE : ST_WILL_DELETE;
		return -ENOENT;
	}
	if (!left_ret) {
		if (left_gen == gen)
			return ino < s->send_progress ? ST_DID_CREATE : ST_WILL_CREATE;
		return -ENOENT;
	}
	if (!right_ret) {
		if (right_gen == gen)
			return ino < s->send_progress ? ST_DID_DELETE : ST_WILL_DELETE;
		return -ENOENT;
	}
	return -ENOENT;
}

static int is_inode_existent(struct inc *s, u64 ino, u64 gen, u64 *send_gen, u64 *parent_gen)
{
	int ret;

	if (ino == TOP)
		return 1;
	ret = si_get_cur_inode_state(s, ino, gen, send_gen, parent_gen);
	if (ret < 0)
		return ret;
	return ret == ST_NO_CHANGE || ret == ST_DID_CREATE || ret == ST_WILL_DELETE;
}

/* ---- the small sets ---- */

struct wdm *si_get_waiting(struct inc *s, u64 ino)
{
	for (size_t i = 0; i < s->nr_waiting; i++)
		if (s->waiting[i].ino == ino)
			return &s->waiting[i];
	return NULL;
}

void si_free_waiting(struct inc *s, struct wdm *w)
{
	size_t i = (size_t)(w - s->waiting);

	memmove(w, w + 1, (s->nr_waiting - i - 1) * sizeof(*w));
	s->nr_waiting--;
}

int si_add_waiting(struct inc *s, u64 ino, bool orphanized)
{
	int ret;

	if (si_get_waiting(s, ino))
		return -EEXIST;
	ret = btrfs_array_grow((void **)&s->waiting, &s->cap_waiting, s->nr_waiting + 1,
			       sizeof(*s->waiting));
	if (ret < 0)
		return ret;
	s->waiting[s->nr_waiting++] = (struct wdm){ .ino = ino, .orphanized = orphanized };
	return 0;
}

struct odi *si_get_orphan(struct inc *s, u64 ino, u64 gen)
{
	for (size_t i = 0; i < s->nr_orphans; i++)
		if (s->orphans[i].ino == ino && s->orphans[i].gen == gen)
			return &s->orphans[i];
	return NULL;
}

struct odi *si_add_orphan(struct inc *s, u64 ino, u64 gen)
{
	struct odi *o = si_get_orphan(s, ino, gen);

	if (o)
		return o;
	if (btrfs_array_grow((void **)&s->orphans, &s->cap_orphans, s->nr_orphans + 1,
			     sizeof(*s->orphans)) < 0)
		return NULL;
	o = &s->orphans[s->nr_orphans++];
	*o = (struct odi){ .ino = ino, .gen = gen };
	return o;
}

void si_free_orphan(struct inc *s, struct odi *o)
{
	size_t i = (size_t)(o - s->orphans);

	memmove(o, o + 1, (s->nr_orphans - i - 1) * sizeof(*o));
	s->nr_orphans--;
}

struct pgroup *si_get_group(struct inc *s, u64 parent_ino)
{
	for (size_t i = 0; i < s->nr_groups; i++)
		if (s->groups[i].parent_ino == parent_ino)
			return &s->groups[i];
	return NULL;
}

void si_pdm_free(struct pdm *pm)
{
	if (pm) {
		free(pm->refs);
		free(pm);
	}
}

/* ---- the name cache ---- */

/* where slot @slot is in the LRU order */
static u32 nc_pos(const struct inc *s, u32 slot)
{
	u32 i = 0;

	while (i < s->nr_nc && s->nc_order[i] != slot)
		i++;
	return i;
}

/* A hit becomes the most recently used (moving two bytes a slot, not the entries) */
struct nce *si_nc_lookup(struct inc *s, u64 ino, u64 gen)
{
	for (u32 i = 0; i < s->nr_nc; i++) {
		u16 slot = s->nc_order[i];

		if (s->nc_key[slot].ino == ino && s->nc_key[slot].gen == gen) {
			memmove(s->nc_order + i, s->nc_order + i + 1,
				(s->nr_nc - i - 1) * sizeof(*s->nc_order));
			s->nc_order[s->nr_nc - 1] = slot;
			return &s->nc[slot];
		}
	}
	return NULL;
}

void si_nc_remove(struct inc *s, struct nce *e)
{
	u32 slot = (u32)(e - s->nc), i = nc_pos(s, slot);

	memmove(s->nc_order + i, s->nc_order + i + 1, (s->nr_nc - i - 1) * sizeof(*s->nc_order));
	s->nr_nc--;
	s->nc_free[s->nr_nc_free++] = (u16)slot;
}

static void nc_store(struct inc *s, const struct nce *e)
{
	u16 slot;

	if (s->nr_nc == NAME_CACHE_MAX)
		si_nc_remove(s, &s->nc[s->nc_order[0]]);
	slot = s->nc_free[--s->nr_nc_free];
	s->nc[slot] = *e;
	s->nc_key[slot] = (struct nckey){ e->ino, e->gen };
	s->nc_order[s->nr_nc++] = slot;
}

/* ---- overwritten names ---- */

bool si_is_waiting_for_move(struct inc *s, u64 ino)
{
	return si_get_waiting(s, ino) != NULL;
}

bool si_is_waiting_for_rm(struct inc *s, u64 ino, u64 gen)
{
	return si_get_orphan(s, ino, gen) != NULL;
}

/* a new name @dir/@name would overwrite an unprocessed inode's: 1 and who */
int si_will_overwrite_ref(struct inc *s, u64 dir, u64 dir_gen, const char *name, u32 name_len,
			      u64 *who_ino, u64 *who_gen, u64 *who_mode)
{
	u64 parent_dir_gen = 0, other = 0;
	struct iinfo info;
	int ret;

	if (!s->parent)
		return 0;
	ret = is_inode_existent(s, dir, dir_gen, NULL, &parent_dir_gen);
	if (ret <= 0)
		return 0;
	if (dir != TOP && parent_dir_gen != dir_gen)
		return 0;
	ret = si_lookup_dir_item_inode(s->parent, dir, name, name_len, &other);
	if (ret == -ENOENT)
		return 0;
	if (ret < 0)
		return ret;
	if (other > s->send_progress || si_is_waiting_for_move(s, other)) {
		ret = si_get_inode_info(s, s->parent, other, &info);
		if (ret < 0)
			return ret;
		*who_ino = other;
		*who_gen = info.gen;
		*who_mode = info.mode;
		return 1;
	}
	return 0;
}

/* the old name @dir/@name of @ino was overwritten by an inode already processed */
int si_did_overwrite_ref(struct inc *s, u64 dir, u64 dir_gen, u64 ino, u64 ino_gen,
			     const char *name, u32 name_len)
{
	u64 ow_inode = 0, ow_gen = 0, send_dir_gen = 0;
	int ret;

	if (!s->parent)
		return 0;
	ret = is_inode_existent(s, dir, dir_gen, &send_dir_gen, NULL);
	if (ret <= 0)
		return ret;
	if (dir != TOP && send_dir_gen != dir_gen)
		return 0;
	ret = si_lookup_dir_item_inode(s->send, dir, name, name_len, &ow_inode);
	if (ret == -ENOENT)
		return 0;
	if (ret < 0)
		return ret;
	if (ow_inode == ino) {
		ret = si_get_inode_gen(s, s->send, ow_inode, &ow_gen);
		if (ret < 0)
			return ret;
		if (ow_gen == ino_gen)
			return 0;
	}
	if (ow_inode < s->send_progress)
		return 1;
	if (ino != s->cur_ino && ow_inode == s->cur_ino) {
		if (ow_gen == 0) {
			ret = si_get_inode_gen(s, s->send, ow_inode, &ow_gen);
			if (ret < 0)
				return ret;
		}
		if (ow_gen == s->cur_gen)
			return 1;
	}
	return 0;
}

int si_did_overwrite_first_ref(struct inc *s, u64 ino, u64 gen)
{
	struct fpath *name;
	u64 dir, dir_gen;
	int ret;

	if (!s->parent)
		return 0;
	name = malloc(sizeof(*name));
	if (!name)
		return -ENOMEM;
	fp_reset(name);
	ret = si_get_first_ref(s, s->parent, ino, &dir, &dir_gen, name);
	if (ret == 0)
		ret = si_did_overwrite_ref(s, dir, dir_gen, ino, gen, name->s, name->len);
	free(name);
	return ret;
}

int si_is_first_ref(struct inc *s, struct btrfs_root *root, u64 ino, u64 dir, const char *name,
		    u32 name_len)
{
	struct fpath *tmp = malloc(sizeof(*tmp));
	u64 tmp_dir;
	int ret;

	if (!tmp)
		return -ENOMEM;
	fp_reset(tmp);
	ret = si_get_first_ref(s, root, ino, &tmp_dir, NULL, tmp);
	if (ret == 0)
		ret = dir == tmp_dir && name_len == tmp->len && !memcmp(tmp->s, name, name_len);
	free(tmp);
	return ret;
}

/* ---- current paths ---- */

/*
 * The name of @ino and its parent as the receiver has them now: 0, or 1
 * for an orphan name (not created yet, or overwritten): stop there.
 */
int si_get_cur_name_and_parent(struct inc *s, u64 ino, u64 gen, u64 *parent_ino,
				   u64 *parent_gen, struct fpath *dest)
{
	struct nce *e = si_nc_lookup(s, ino, gen);
	struct nce ne;
	int ret;

	if (e) {
		if (ino < s->send_progress && e->later) {
			si_nc_remove(s, e);
		} else {
			*parent_ino = e->parent_ino;
			*parent_gen = e->parent_gen;
			ret = fp_add(dest, e->name, e->name_len);
			return ret < 0 ? ret : e->ret;
		}
	}
	ret = is_inode_existent(s, ino, gen, NULL, NULL);
	if (ret < 0)
		return ret;
	if (!ret) {
		ret = si_gen_unique_name(s, ino, gen, dest);
		if (ret < 0)
			return ret;
		ret = 1;
		goto cache;
	}
	ret = si_get_first_ref(s, ino < s->send_progress ? s->send : s->parent, ino, parent_ino,
			    parent_gen, dest);
	if (ret < 0)
		return ret;
	ret = si_did_overwrite_ref(s, *parent_ino, *parent_gen, ino, gen, dest->s, dest->len);
	if (ret < 0)
		return ret;
	if (ret) {
		fp_reset(dest);
		ret = si_gen_unique_name(s, ino, gen, dest);
		if (ret < 0)
			return ret;
		ret = 1;
	}
cache:
	if (dest->len > 255)
		return ret;
	memset(&ne, 0, sizeof(ne));
	ne.ino = ino;
	ne.gen = gen;
	ne.parent_ino = *parent_ino;
	ne.parent_gen = *parent_gen;
	ne.ret = ret;
	ne.later = ino >= s->send_progress;
	ne.name_len = (u16)dest->len;
	memcpy(ne.name, dest->s, dest->len);
	nc_store(s, &ne);
	return ret;
}

/* the path of @ino as the receiver has it at this point of the stream */
int si_get_cur_path(struct inc *s, u64 ino, u64 gen, struct fpath *dest)
{
	const bool is_cur = ino == s->cur_ino && gen == s->cur_gen;
	u64 parent_ino = 0, parent_gen = 0;
	int ret = 0, depth = 0;
	struct fpath *name;
	bool stop = false;

	/* the kernel keeps the current inode's path once computed (Linux 6.16) */
	if (is_cur && s->cur_path.len)
		return fp_copy(dest, s->cur_path.s, s->cur_path.len);
	name = malloc(sizeof(*name));
	if (!name)
		return -ENOMEM;
	fp_reset(dest);
	while (!stop && ino != TOP) {
		struct wdm *w;

		if (++depth > 4096) {
			ret = -ELOOP;
			break;
		}
		fp_reset(name);
		if (si_is_waiting_for_rm(s, ino, gen)) {
			ret = si_gen_unique_name(s, ino, gen, name);
			if (ret == 0)
				ret = fp_prepend(dest, name->s, name->len);
			break;
		}
		w = si_get_waiting(s, ino);
		if (w && w->orphanized) {
			ret = si_gen_unique_name(s, ino, gen, name);
			stop = true;
		} else if (w) {
			ret = si_get_first_ref(s, s->parent, ino, &parent_ino, &parent_gen, name);
		} else {
			ret = si_get_cur_name_and_parent(s, ino, gen, &parent_ino, &parent_gen, name);
			if (ret > 0) {
				stop = true;
				ret = 0;
			}
		}
		if (ret < 0)
			break;
		ret = fp_prepend(dest, name->s, name->len);
		if (ret < 0)
			break;
		ino = parent_ino;
		gen = parent_gen;
	}
	free(name);
	if (ret == 0 && is_cur && dest != &s->cur_path)
		ret = fp_copy(&s->cur_path, dest->s, dest->len);
	return ret;
}

/* the first path of @ino in @root (a clone source) */
int si_get_inode_path(struct inc *s, struct btrfs_root *root, u64 ino, struct fpath *dest)
{
	struct fpath *name = malloc(sizeof(*name));
	u64 dir;
	int ret = 0, depth = 0;

	if (!name)
		return -ENOMEM;
	fp_reset(dest);
	while (ino != TOP) {
		if (++depth > 4096) {
			ret = -ELOOP;
			break;
		}
		fp_reset(name);
		ret = si_get_first_ref(s, root, ino, &dir, NULL, name);
		if (ret < 0)
			break;
		ret = fp_prepend(dest, name->s, name->len);
		if (ret < 0)
			break;
		ino = dir;
	}
	free(name);
	return ret;
}

/* ---- commands ---- */

void si_send_rename(struct inc *s, const struct fpath *from, const struct fpath *to)
{
	cmd(s, tlvp(from) + tlvp(to));
}

void si_send_link(struct inc *s, const struct fpath *path, const struct fpath *lnk)
{
	cmd(s, tlvp(path) + tlvp(lnk));
}

void si_send_unlink(struct inc *s, const struct fpath *path)
{
	cmd(s, tlvp(path));
}

void si_send_rmdir(struct inc *s, const struct fpath *path)
{
	cmd(s, tlvp(path));
}

/* a command on @ino's current path with @extra bytes of attributes (v1, v2) */
int si_path_cmd(struct inc *s, u64 ino, u64 gen, u64 extra1, u64 extra2)
{
	struct fpath *p = malloc(sizeof(*p));
	int ret;

	if (!p)
		return -ENOMEM;
	ret = si_get_cur_path(s, ino, gen, p);
	if (ret == 0)
		cmd2(s, tlvp(p) + extra1, tlvp(p) + extra2);
	free(p);
	return ret;
}

int si_send_utimes(struct inc *s, u64 ino, u64 gen)
{
	int ret = si_get_inode_info(s, s->send, ino, NULL);

	if (ret < 0)
		return ret;
	return si_path_cmd(s, ino, gen, 3 * TLV_TIME, 4 * TLV_TIME);
}

int si_cache_dir_utimes(struct inc *s, u64 dir, u64 gen)
{
	int ret;

	for (size_t i = 0; i < s->nr_utimes; i++) {
		if (s->utimes[i].ino == dir && s->utimes[i].gen == gen) {
			struct uent e = s->utimes[i];

			memmove(s->utimes + i, s->utimes + i + 1,
				(s->nr_utimes - i - 1) * sizeof(*s->utimes));
			s->utimes[s->nr_utimes - 1] = e;
			return 0;
		}
	}
	ret = btrfs_array_grow((void **)&s->utimes, &s->cap_utimes, s->nr_utimes + 1,
			       sizeof(*s->utimes));
	if (ret < 0)
		return ret;
	s->utimes[s->nr_utimes++] = (struct uent){ dir, gen };
	return 0;
}

int si_trim_dir_utimes_cache(struct inc *s)
{
	while (s->nr_utimes > UTIMES_CACHE) {
		struct uent e = s->utimes[0];
		int ret;

		ret = si_send_utimes(s, e.ino, e.gen);
		if (ret < 0)
			return ret;
		memmove(s->utimes, s->utimes + 1, (s->nr_utimes - 1) * sizeof(*s->utimes));
		s->nr_utimes--;
	}
	return 0;
}

static int read_symlink_len(struct inc *s, u64 ino, u64 *len)
{
	struct btrfs_key key = { ino, BTRFS_EXTENT_DATA_KEY, 0 };
	struct btrfs_file_extent_rec fe;
	u8 *buf;
	u32 ilen;
	int ret;

	buf = malloc(s->fs->nodesize);
	if (!buf)
		return -ENOMEM;
	ret = btrfs_lookup_item(s->send, &key, buf, s->fs->nodesize, &ilen);
	if (ret == -ENOENT)
		ret = -EIO;	/* an empty symlink: the kernel's send fails on it */
	if (ret == 0)
		ret = btrfs_decode_file_extent(buf, ilen, &fe);
	if (ret == 0) {
		if (fe.type != BTRFS_FILE_EXTENT_INLINE || fe.compression)
			ret = -EUCLEAN;
		else
			*len = fe.ram_bytes;
	}
	free(buf);
	return ret;
}

/* mkfile, mkdir, mknod, mkfifo, mksock or symlink under the orphan name */
int si_send_create_inode(struct inc *s, u64 ino)
{
	struct fpath *p;
	struct iinfo info;
	u64 gen, mode, extra = TLV_U64;
	int ret;

	if (ino != s->cur_ino) {
		ret = si_get_inode_info(s, s->send, ino, &info);
		if (ret < 0)
			return ret;
		gen = info.gen;
		mode = info.mode;
	} else {
		gen = s->cur_gen;
		mode = s->cur_mode;
	}
	if (S_ISLNK(mode)) {
		u64 tlen = 0;

		ret = read_symlink_len(s, ino, &tlen);
		if (ret < 0)
			return ret;
		extra += TLV_HDR + tlen;
	} else if (S_ISCHR(mode) || S_ISBLK(mode) || S_ISFIFO(mode) || S_ISSOCK(mode)) {
		extra += 2 * TLV_U64;
	} else if (!S_ISREG(mode) && !S_ISDIR(mode)) {
		return -EOPNOTSUPP;
	}
	p = malloc(sizeof(*p));
	if (!p)
		return -ENOMEM;
	fp_reset(p);
	ret = si_gen_unique_name(s, ino, gen, p);
	if (ret == 0)
		cmd(s, tlvp(p) + extra);
	free(p);
	return ret;
}

static bool is_created(struct inc *s, u64 dir)
{
	for (size_t i = 0; i < s->nr_created; i++)
		if (s->created[i] == dir)
			return true;
	return false;
}

int si_mark_created(struct inc *s, u64 dir)
{
	int ret;

	if (is_created(s, dir))
		return 0;
	ret = btrfs_array_grow((void **)&s->created, &s->cap_created, s->nr_created + 1,
			       sizeof(*s->created));
	if (ret < 0)
		return ret;
	s->created[s->nr_created++] = dir;
	return 0;
}

struct dcd {
	u64 progress;
	bool found;
};

static int did_create_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct dcd *d = priv;
	struct btrfs_dir_item_rec r;
	u32 pos = 0;
	int ret;

	(void)key;
	ret = btrfs_dir_item_next(data, len, &pos, &r);
	if (ret < 0)
		return ret;
	if (ret == 0 && r.location.type != BTRFS_ROOT_ITEM_KEY &&
	    r.location.objectid < d->progress) {
		d->found = true;
		return 1;
	}
	return 0;
}

/* a directory with a higher number was created early, for an entry of an inode before it */
int si_did_create_dir(struct inc *s, u64 dir)
{
	struct btrfs_key min = { dir, BTRFS_DIR_INDEX_KEY, 0 };
	struct btrfs_key max = { dir, BTRFS_DIR_INDEX_KEY, (u64)-1 };
	struct dcd d = { s->send_progress, false };
	int ret;

	if (is_created(s, dir))
		return 1;
	ret = btrfs_iterate_items(s->send, &min, &max, did_create_cb, &d);
	if (ret < 0)
		return ret;
	if (d.found) {
		ret = si_mark_created(s, dir);
		return ret < 0 ? ret : 1;
	}
	return 0;
}

int si_send_create_inode_if_needed(struct inc *s)
{
	int ret;

	if (S_ISDIR(s->cur_mode)) {
		ret = si_did_create_dir(s, s->cur_ino);
		if (ret != 0)
			return ret < 0 ? ret : 0;
	}
	ret = si_send_create_inode(s, s->cur_ino);
	if (ret == 0 && S_ISDIR(s->cur_mode))
		ret = si_mark_created(s, s->cur_ino);
	return ret;
}

int si_orphanize_inode(struct inc *s, u64 ino, u64 gen, const struct fpath *path)
{
	struct fpath *orphan = malloc(sizeof(*orphan));
	int ret;

	if (!orphan)
		return -ENOMEM;
	fp_reset(orphan);
	ret = si_gen_unique_name(s, ino, gen, orphan);
	if (ret == 0)
		si_send_rename(s, path, orphan);
	if (ret == 0 && ino == s->cur_ino && gen == s->cur_gen)
		ret = fp_copy(&s->cur_path, orphan->s, orphan->len);
	free(orphan);
	return ret;
}
