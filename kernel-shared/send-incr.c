// SPDX-License-Identifier: GPL-2.0-only
/*
 * Size of an incremental send (-p), or of a send with clone sources (-c);
 * see send-size.h for what is and is not computed.
 *
 * The kernel's send (fs/btrfs/send.c) is run here on the two trees as a
 * state machine that writes no stream: every command it would issue is
 * counted with its exact length, for protocol 1 and for protocol 2 with
 * compressed data at once (the two streams differ only in the write and
 * utimes commands and in fileattr).  The paths in the commands are built
 * the way the kernel builds them while it sends (orphan names, renames
 * delayed behind a parent's, directories waiting to be removed), so the
 * state below mirrors the kernel's: the inode being processed, its new and
 * deleted references, the name cache (256 entries, least recently used
 * first out), the pending and waiting directory moves, the directories
 * waiting for their removal, and the cache of directory utimes (trimmed
 * to 64 after each inode).  Lookups read the trees through the reader,
 * which verifies every block.
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

/* ---- one inode ---- */

static int finish_inode_if_needed(struct inc *s, bool at_end)
{
	struct iinfo left, right;
	bool need_chmod = false, need_chown = false, need_fileattr = false;
	bool need_truncate[2] = { true, true };
	int pending_move = 0, ret = 0;
	bool refs_processed = false;

	if (s->ignore_cur)
		return 0;
	if (s->cur_ino != 0 &&
	    !(!at_end && s->cur_ino == s->cmp_key.objectid &&
	      s->cmp_key.type <= BTRFS_INODE_EXTREF_KEY) &&
	    (s->nr_new || s->nr_del)) {
		ret = si_process_recorded_refs(s, &pending_move);
		if (ret < 0)
			goto out;
		refs_processed = true;
	}
	if (refs_processed && !pending_move)
		s->send_progress = s->cur_ino + 1;
	if (s->cur_ino == 0 || s->cur_deleted)
		goto out;
	if (!at_end && s->cmp_key.objectid == s->cur_ino)
		goto out;
	ret = si_get_inode_info(s, s->send, s->cur_ino, &left);
	if (ret < 0)
		goto out;
	if (!s->parent || s->cur_new) {
		need_chown = true;
		if (!S_ISLNK(s->cur_mode))
			need_chmod = true;
		need_truncate[0] = s->cur_next_write != s->cur_size;
		need_truncate[1] = s->cur_next_write2 != s->cur_size;
	} else {
		ret = si_get_inode_info(s, s->parent, s->cur_ino, &right);
		if (ret < 0)
			goto out;
		if (left.uid != right.uid || left.gid != right.gid)
			need_chown = true;
		if (!S_ISLNK(s->cur_mode) && left.mode != right.mode)
			need_chmod = true;
		if (!S_ISLNK(s->cur_mode) && left.flags != right.flags)
			need_fileattr = true;
		if (right.size == s->cur_size) {
			need_truncate[0] = need_truncate[1] = false;
		} else if (s->cur_size > right.size) {
			need_truncate[0] = s->cur_next_write != s->cur_size;
			need_truncate[1] = s->cur_next_write2 != s->cur_size;
		}
	}
	if (S_ISREG(s->cur_mode)) {
		if (si_need_send_hole(s)) {
			if (s->cur_last_extent == (u64)-1 || s->cur_last_extent < s->cur_size) {
				ret = si_get_last_extent(s, (u64)-1);
				if (ret)
					goto out;
			}
			if (s->cur_last_extent < s->cur_size) {
				/* not when the parent has a hole there too */
				ret = si_range_is_hole_in_parent(s, s->cur_last_extent, s->cur_size);
				if (ret == 0)
					ret = si_send_hole(s, s->cur_size);
				else if (ret > 0)
					ret = 0;
				if (ret)
					goto out;
			}
		}
		if (need_truncate[0] || need_truncate[1]) {
			struct fpath *p = malloc(sizeof(*p));

			if (!p) {
				ret = -ENOMEM;
				goto out;
			}
			ret = si_get_cur_path(s, s->cur_ino, s->cur_gen, p);
			for (int v = 0; v < 2 && ret == 0; v++) {
				struct btrfs_send_size_proto *o = v ? &s->out->v2c : &s->out->v1;

				if (!need_truncate[v])
					continue;
				o->total += CMD_HDR + tlvp(p) + TLV_U64;
				o->commands++;
			}
			free(p);
			if (ret < 0)
				goto out;
		}
	}
	if (need_chown) {
		ret = si_path_cmd(s, s->cur_ino, s->cur_gen, 2 * TLV_U64, 2 * TLV_U64);
		if (ret < 0)
			goto out;
	}
	if (need_chmod) {
		ret = si_path_cmd(s, s->cur_ino, s->cur_gen, TLV_U64, TLV_U64);
		if (ret < 0)
			goto out;
	}
	if (need_fileattr) {
		/* protocol 2 only */
		struct fpath *p = malloc(sizeof(*p));

		if (!p) {
			ret = -ENOMEM;
			goto out;
		}
		ret = si_get_cur_path(s, s->cur_ino, s->cur_gen, p);
		if (ret == 0) {
			s->out->v2c.total += CMD_HDR + tlvp(p) + TLV_U64;
			s->out->v2c.commands++;
		}
		free(p);
		if (ret < 0)
			goto out;
	}
	ret = si_send_capabilities(s);
	if (ret < 0)
		goto out;
	if (!si_is_waiting_for_move(s, s->cur_ino)) {
		ret = si_apply_children_dir_moves(s);
		if (ret)
			goto out;
		s->send_progress = s->cur_ino + 1;
		if (S_ISDIR(s->cur_mode) && s->cur_size > 0)
			ret = si_cache_dir_utimes(s, s->cur_ino, s->cur_gen);
		else
			ret = si_send_utimes(s, s->cur_ino, s->cur_gen);
		if (ret < 0)
			goto out;
	}
out:
	if (!ret)
		ret = si_trim_dir_utimes_cache(s);
	return ret;
}

static int changed_inode(struct inc *s, enum btrfs_send_cmp result)
{
	struct btrfs_inode_rec l = { 0 }, r = { 0 };
	int ret = 0;

	s->cur_ino = s->cmp_key.objectid;
	fp_reset(&s->cur_path);
	s->cur_new_gen = false;
	s->cur_last_extent = (u64)-1;
	s->cur_next_write = s->cur_next_write2 = 0;
	s->ignore_cur = false;
	s->send_progress = s->cur_ino;
	if (result == BTRFS_SEND_CMP_NEW || result == BTRFS_SEND_CMP_CHANGED) {
		ret = btrfs_decode_inode_item(s->left->data, s->left->len, &l);
		if (ret < 0)
			return ret;
	}
	if (result == BTRFS_SEND_CMP_DELETED || result == BTRFS_SEND_CMP_CHANGED) {
		ret = btrfs_decode_inode_item(s->right->data, s->right->len, &r);
		if (ret < 0)
			return ret;
	}
	if (result == BTRFS_SEND_CMP_CHANGED && l.generation != r.generation && s->cur_ino != TOP)
		s->cur_new_gen = true;
	if (result == BTRFS_SEND_CMP_NEW) {
		if (l.nlink == 0) {
			s->ignore_cur = true;
			return 0;
		}
		s->cur_gen = l.generation;
		s->cur_new = true;
		s->cur_deleted = false;
		s->cur_size = l.size;
		s->cur_mode = l.mode;
		s->cur_rdev = l.rdev;
		if (s->cur_ino != TOP)
			ret = si_send_create_inode_if_needed(s);
	} else if (result == BTRFS_SEND_CMP_DELETED) {
		s->cur_gen = r.generation;
		s->cur_new = false;
		s->cur_deleted = true;
		s->cur_size = r.size;
		s->cur_mode = r.mode;
	} else if (result == BTRFS_SEND_CMP_CHANGED) {
		if (l.nlink == 0 && r.nlink == 0) {
			s->ignore_cur = true;
			return 0;
		}
		if (l.nlink == 0 || r.nlink == 0)
			s->cur_new_gen = true;
		if (s->cur_new_gen) {
			if (r.nlink > 0) {
				s->cur_gen = r.generation;
				s->cur_new = false;
				s->cur_deleted = true;
				s->cur_size = r.size;
				s->cur_mode = r.mode;
				ret = si_process_all_refs(s, false);
				if (ret < 0)
					return ret;
			}
			if (l.nlink > 0) {
				s->cur_gen = l.generation;
				s->cur_new = true;
				s->cur_deleted = false;
				s->cur_size = l.size;
				s->cur_mode = l.mode;
				s->cur_rdev = l.rdev;
				ret = si_send_create_inode_if_needed(s);
				if (ret == 0)
					ret = si_process_all_refs(s, true);
				if (ret < 0)
					return ret;
				s->send_progress = s->cur_ino + 1;
				ret = si_process_all_extents(s);
				if (ret == 0)
					ret = si_process_all_new_xattrs(s);
			}
		} else {
			s->cur_gen = l.generation;
			s->cur_new = false;
			s->cur_new_gen = false;
			s->cur_deleted = false;
			s->cur_size = l.size;
			s->cur_mode = l.mode;
		}
	}
	return ret;
}

static int changed_ref(struct inc *s, enum btrfs_send_cmp result)
{
	int ret = 0;

	if (s->cur_ino != s->cmp_key.objectid)
		return -EUCLEAN;	/* the kernel: "inconsistent snapshot" */
	if (s->cur_new_gen || s->cur_ino == TOP)
		return 0;
	if (result == BTRFS_SEND_CMP_NEW || result == BTRFS_SEND_CMP_CHANGED)
		ret = si_record_item_refs(s, true, &s->cmp_key, s->left->data, s->left->len);
	if (ret == 0 && (result == BTRFS_SEND_CMP_DELETED || result == BTRFS_SEND_CMP_CHANGED))
		ret = si_record_item_refs(s, false, &s->cmp_key, s->right->data, s->right->len);
	return ret;
}

static int changed_xattr(struct inc *s, enum btrfs_send_cmp result)
{
	int ret;

	if (s->cur_ino != s->cmp_key.objectid)
		return -EUCLEAN;
	if (s->cur_new_gen || s->cur_deleted)
		return 0;
	if (result == BTRFS_SEND_CMP_NEW)
		return si_xattr_item(s, 0, s->left->data, s->left->len, NULL, 0);
	if (result == BTRFS_SEND_CMP_DELETED)
		return si_xattr_item(s, 1, s->right->data, s->right->len, NULL, 0);
	ret = si_xattr_item(s, 2, s->left->data, s->left->len, s->right->data, s->right->len);
	if (ret < 0)
		return ret;
	return si_xattr_item(s, 3, s->right->data, s->right->len, s->left->data, s->left->len);
}

static int changed_extent(struct inc *s, enum btrfs_send_cmp result)
{
	struct fext f;
	int ret;

	if (s->cur_ino != s->cmp_key.objectid)
		return 0;
	if (s->cur_new_gen || s->cur_deleted || result == BTRFS_SEND_CMP_DELETED)
		return 0;
	ret = si_fext_decode(&f, &s->cmp_key, s->left->data, s->left->len, s->left->slot);
	return ret < 0 ? ret : si_process_extent(s, &f);
}

static int dir_changed(struct inc *s, u64 dir)
{
	u64 orig, cur;
	int ret = si_get_inode_gen(s, s->send, dir, &cur);

	if (ret)
		return ret;
	ret = si_get_inode_gen(s, s->parent, dir, &orig);
	if (ret)
		return ret;
	return orig != cur;
}

/* equal ref items whose directory was deleted and made again count as changed */
static int compare_refs(struct inc *s, const struct btrfs_key *key, const u8 *data, u32 len)
{
	u64 last = 0;
	u32 pos = 0;
	int ret;

	if (key->type == BTRFS_INODE_REF_KEY)
		return dir_changed(s, key->offset);
	for (;;) {
		struct btrfs_inode_extref_rec r;

		ret = btrfs_inode_extref_next(data, len, &pos, &r);
		if (ret)
			return ret < 0 ? ret : 0;
		if (r.parent == last)
			continue;
		ret = dir_changed(s, r.parent);
		if (ret)
			return ret;
		last = r.parent;
	}
}

static int changed_cb(void *priv, enum btrfs_send_cmp result, const struct btrfs_key *key,
		      const struct btrfs_cmp_item *left, const struct btrfs_cmp_item *right)
{
	struct inc *s = priv;
	int ret;

	if (result == BTRFS_SEND_CMP_SAME) {
		if (key->type == BTRFS_INODE_REF_KEY || key->type == BTRFS_INODE_EXTREF_KEY) {
			ret = compare_refs(s, key, left->data, left->len);
			if (ret <= 0)
				return ret;
		} else if (key->type == BTRFS_EXTENT_DATA_KEY) {
			struct fext f;

			ret = si_fext_decode(&f, key, left->data, left->len, left->slot);
			return ret < 0 ? ret : si_maybe_send_hole(s, &f);
		} else {
			return 0;
		}
		result = BTRFS_SEND_CMP_CHANGED;
	}
	s->left = left;
	s->right = right;
	s->cmp_key = *key;
	ret = finish_inode_if_needed(s, false);
	if (ret < 0)
		return ret;
	if (key->objectid == BTRFS_FREE_INO_OBJECTID || key->objectid == BTRFS_FREE_SPACE_OBJECTID)
		return 0;
	if (key->type == BTRFS_INODE_ITEM_KEY)
		return changed_inode(s, result);
	if (s->ignore_cur)
		return 0;
	if (key->type == BTRFS_INODE_REF_KEY || key->type == BTRFS_INODE_EXTREF_KEY)
		return changed_ref(s, result);
	if (key->type == BTRFS_XATTR_ITEM_KEY)
		return changed_xattr(s, result);
	if (key->type == BTRFS_EXTENT_DATA_KEY)
		return changed_extent(s, result);
	return 0;
}

/* ---- the send ---- */


static int full_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct btrfs_cmp_item left = { data, len, (u32)-1, true }, right = { 0 };

	return changed_cb(priv, BTRFS_SEND_CMP_NEW, key, &left, &right);
}

static int open_ro_root(struct btrfs_fs *fs, u64 id, const char *what, struct btrfs_root **out)
{
	int ret = btrfs_read_root(fs, id, out);

	if (ret == -ENOENT || (ret == 0 && (!(*out)->has_item || !btrfs_is_fstree(id)))) {
		btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_SUBVOL, "%s %llu: not a subvolume", what,
				       (unsigned long long)id);
		return -ENOENT;
	}
	if (ret < 0)
		return ret;
	if (!(btrfs_root_flags(&(*out)->root_item) & BTRFS_ROOT_SUBVOL_RDONLY)) {
		btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_SUBVOL,
				       "%s %llu: not read-only (send refuses it)", what,
				       (unsigned long long)id);
		return -EPERM;
	}
	return 0;
}

static int add_croot(struct inc *s, struct btrfs_root *root)
{
	u32 i;

	for (i = 0; i < s->cs.nr_croots; i++)
		if (s->cs.croots[i].id == root->id)
			return 0;
	if (s->cs.nr_croots == MAX_CLONE_ROOTS)
		return -E2BIG;
	/* sorted by root id, as the kernel's bsearch wants them */
	for (i = s->cs.nr_croots; i > 0 && s->cs.croots[i - 1].id > root->id; i--)
		s->cs.croots[i] = s->cs.croots[i - 1];
	memset(&s->cs.croots[i], 0, sizeof(s->cs.croots[i]));
	s->cs.croots[i].root = root;
	s->cs.croots[i].id = root->id;
	s->cs.nr_croots++;
	return 0;
}

int btrfs_send_size_from(struct btrfs_fs *fs, u64 subvolid, u64 parent_id, const u64 *clone_ids,
			 u32 nr_clones, struct btrfs_send_size *out)
{
	struct inc *s = calloc(1, sizeof(*s));
	u64 head, name_len;
	u32 saved_limit = 0;
	bool limited = false;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!s)
		return -ENOMEM;
	s->fs = fs;
	s->out = out;
	s->nc = calloc(NAME_CACHE_MAX, sizeof(*s->nc));
	s->nc_key = calloc(NAME_CACHE_MAX, sizeof(*s->nc_key));
	s->nc_order = calloc(NAME_CACHE_MAX, sizeof(*s->nc_order));
	s->nc_free = calloc(NAME_CACHE_MAX, sizeof(*s->nc_free));
	s->icache = calloc(ICACHE_SLOTS, sizeof(*s->icache));
	if (!s->nc || !s->nc_key || !s->nc_order || !s->nc_free || !s->icache) {
		ret = -ENOMEM;
		goto out;
	}
	for (u32 i = 0; i < NAME_CACHE_MAX; i++)
		s->nc_free[s->nr_nc_free++] = (u16)(NAME_CACHE_MAX - 1 - i);
	ret = open_ro_root(fs, subvolid, "subvolume", &s->send);
	if (ret < 0)
		goto out;
	s->cs.fs = fs;
	s->cs.send = s->send;
	if (parent_id) {
		if (parent_id == subvolid) {
			btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_SUBVOL,
					       "subvolume %llu: its own parent",
					       (unsigned long long)subvolid);
			ret = -EINVAL;
			goto out;
		}
		ret = open_ro_root(fs, parent_id, "parent", &s->parent);
		if (ret < 0)
			goto out;
		ret = add_croot(s, s->parent);
		if (ret < 0)
			goto out;
	}
	for (u32 i = 0; i < nr_clones; i++) {
		struct btrfs_root *c;

		ret = open_ro_root(fs, clone_ids[i], "clone source", &c);
		if (ret == 0)
			ret = add_croot(s, c);
		if (ret < 0)
			goto out;
	}
	ret = add_croot(s, s->send);
	if (ret < 0)
		goto out;
	ret = btrfs_send_name_len(fs, subvolid, &name_len);
	if (ret < 0)
		goto out;
	/* header; subvol or snapshot: name, uuid, ctransid (, clone uuid, clone ctransid) */
	head = TLV_HDR + name_len + TLV_UUID + TLV_U64 + (s->parent ? TLV_UUID + TLV_U64 : 0);
	s->out->v1.total += STREAM_HDR;
	s->out->v2c.total += STREAM_HDR;
	cmd(s, head);
	/* each block is read about once or looked up again soon: a small cache, recycled */
	saved_limit = btrfs_eb_cache_set_limit(fs, (u32)((4u << 20) / fs->nodesize) < 64 ? 64 :
					       (u32)((4u << 20) / fs->nodesize));
	limited = true;
	if (s->parent) {
		ret = btrfs_compare_trees_send(s->send, s->parent, changed_cb, s);
	} else {
		struct btrfs_key min = { TOP, BTRFS_INODE_ITEM_KEY, 0 };
		struct btrfs_key max = { (u64)-1, (u8)-1, (u64)-1 };

		ret = btrfs_iterate_items(s->send, &min, &max, full_cb, s);
	}
	if (ret == 0)
		ret = finish_inode_if_needed(s, true);
	if (ret < 0)
		goto out;
	for (size_t i = 0; i < s->nr_utimes && ret == 0; i++)
		ret = si_send_utimes(s, s->utimes[i].ino, s->utimes[i].gen);
	if (ret < 0)
		goto out;
	if (s->nr_groups || s->nr_waiting || s->nr_orphans) {
		btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_SUBVOL,
				       "subvolume %llu: directory moves left pending at the end of the send (the kernel warns here too)",
				       (unsigned long long)subvolid);
		ret = -EOPNOTSUPP;
		goto out;
	}
	cmd(s, 0);	/* end */
out:
	if (limited)
		btrfs_eb_cache_set_limit(fs, saved_limit);
	if (ret == -EUCLEAN && !btrfs_fs_error(fs)[0])
		btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_SUBVOL,
				       "subvolume %llu: its references do not fit together for a send (the kernel's send fails on them too)",
				       (unsigned long long)subvolid);
	if (ret == -ENAMETOOLONG || ret == -ELOOP)
		btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_SUBVOL,
				       "subvolume %llu: a path in the stream would exceed %u bytes or loop",
				       (unsigned long long)subvolid, MAX_PATH);
	if (s) {
		si_refs_free(s->new_refs, &s->nr_new);
		si_refs_free(s->del_refs, &s->nr_del);
		free(s->new_refs);
		free(s->del_refs);
		for (size_t i = 0; i < s->nr_groups; i++) {
			for (size_t j = 0; j < s->groups[i].nr; j++)
				si_pdm_free(s->groups[i].pms[j]);
			free(s->groups[i].pms);
		}
		free(s->groups);
		free(s->waiting);
		free(s->orphans);
		free(s->created);
		free(s->utimes);
		free(s->nc);
		free(s->nc_key);
		free(s->nc_order);
		free(s->nc_free);
		free(s->icache);
		free(s);
	}
	return ret;
}

/* ---- the parent btrfs send picks for -c without -p ---- */

struct uuid_find {
	const u8 *uuid;
	u64 id, ctransid;
	bool found;
};

static int uuid_find_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct uuid_find *u = priv;
	struct btrfs_root_rec r;

	if (key->type != BTRFS_ROOT_ITEM_KEY || !btrfs_is_fstree(key->objectid))
		return 0;
	if (btrfs_decode_root_item(data, len, &r) < 0 || !r.has_v2)
		return 0;
	if (!memcmp(r.uuid, u->uuid, BTRFS_UUID_SIZE)) {
		u->id = key->objectid;
		u->ctransid = r.ctransid;
		u->found = true;
		return 1;
	}
	return 0;
}

/* the subvolume with UUID @uuid: its id and ctransid in @u (u->found) */
static int find_by_uuid(struct btrfs_fs *fs, const u8 *uuid, struct uuid_find *u)
{
	struct btrfs_key min = { 0, BTRFS_ROOT_ITEM_KEY, 0 };
	struct btrfs_key max = { (u64)-1, BTRFS_ROOT_ITEM_KEY, (u64)-1 };
	struct btrfs_root *tree;
	int ret;

	memset(u, 0, sizeof(*u));
	u->uuid = uuid;
	ret = btrfs_read_root(fs, BTRFS_ROOT_TREE_OBJECTID, &tree);
	if (ret == 0)
		ret = btrfs_iterate_items(tree, &min, &max, uuid_find_cb, u);
	return ret < 0 ? ret : 0;
}

static int root_rec(struct btrfs_fs *fs, u64 id, struct btrfs_root_rec *r)
{
	struct btrfs_root *root;
	int ret = btrfs_read_root(fs, id, &root);

	if (ret < 0)
		return ret;
	if (!root->has_item)
		return -ENOENT;
	return btrfs_decode_root_item(&root->root_item, root->item_size, r);
}

int btrfs_send_pick_parent(struct btrfs_fs *fs, u64 subvolid, const u64 *clone_ids, u32 nr_clones,
			   u64 *parent_id)
{
	struct btrfs_root_rec send, c;
	struct uuid_find parent;
	u64 best_diff = (u64)-1;
	int ret;

	*parent_id = 0;
	ret = root_rec(fs, subvolid, &send);
	if (ret < 0)
		return ret;
	ret = find_by_uuid(fs, send.parent_uuid, &parent);
	if (ret < 0)
		return ret;
	if (!parent.found)
		goto none;
	for (u32 i = 0; i < nr_clones; i++) {
		if (clone_ids[i] == parent.id) {
			*parent_id = parent.id;
			return 0;
		}
	}
	for (u32 i = 0; i < nr_clones; i++) {
		u64 diff;

		if (root_rec(fs, clone_ids[i], &c) < 0 || !c.has_v2)
			continue;
		if (memcmp(c.parent_uuid, send.parent_uuid, BTRFS_UUID_SIZE))
			continue;
		diff = c.ctransid > parent.ctransid ? c.ctransid - parent.ctransid :
						      parent.ctransid - c.ctransid;
		if (diff < best_diff) {
			best_diff = diff;
			*parent_id = clone_ids[i];
		}
	}
	if (*parent_id)
		return 0;
none:
	btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_SUBVOL,
			       "subvolume %llu: btrfs send finds no parent among the clone sources (its origin or a snapshot of its origin); give -p",
			       (unsigned long long)subvolid);
	return -ENOENT;
}

/* ---- whether a parent shares an origin with the subvolume ---- */

#define CHAIN_MAX 64

/* @id's UUID and the UUIDs of its origins, as far as they still exist */
static int uuid_chain(struct btrfs_fs *fs, u64 id, u8 (*chain)[BTRFS_UUID_SIZE], u32 *nr)
{
	static const u8 zero[BTRFS_UUID_SIZE];
	struct btrfs_root_rec r;
	int ret;

	*nr = 0;
	ret = root_rec(fs, id, &r);
	if (ret < 0)
		return ret;
	if (!r.has_v2)
		return 0;
	memcpy(chain[(*nr)++], r.uuid, BTRFS_UUID_SIZE);
	while (*nr < CHAIN_MAX && memcmp(r.parent_uuid, zero, BTRFS_UUID_SIZE)) {
		struct uuid_find f;

		memcpy(chain[(*nr)++], r.parent_uuid, BTRFS_UUID_SIZE);
		ret = find_by_uuid(fs, r.parent_uuid, &f);
		if (ret < 0)
			return ret;
		if (!f.found || root_rec(fs, f.id, &r) < 0 || !r.has_v2)
			break;
	}
	return 0;
}

int btrfs_send_related(struct btrfs_fs *fs, u64 a, u64 b)
{
	u8 (*ca)[BTRFS_UUID_SIZE] = calloc(2 * CHAIN_MAX, BTRFS_UUID_SIZE);
	u8 (*cb)[BTRFS_UUID_SIZE] = ca ? ca + CHAIN_MAX : NULL;
	u32 na, nb;
	int ret;

	if (!ca)
		return -ENOMEM;
	ret = uuid_chain(fs, a, ca, &na);
	if (ret == 0)
		ret = uuid_chain(fs, b, cb, &nb);
	if (ret == 0) {
		for (u32 i = 0; i < na && !ret; i++)
			for (u32 j = 0; j < nb && !ret; j++)
				ret = !memcmp(ca[i], cb[j], BTRFS_UUID_SIZE);
	}
	free(ca);
	return ret;
}
