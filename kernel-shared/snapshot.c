// SPDX-License-Identifier: GPL-2.0-only
/*
 * Offline `subvolume snapshot` (on-disk-engine 7), in one transaction T.
 *   parent tree P  (D DIR_ITEM hash), (D DIR_INDEX idx) -> (N ROOT_ITEM -1);
 *                  D's inode item; P's ROOT_ITEM ctransid/ctime
 *   new tree N     a copy C of the source root block, owner N, generation T
 *   extent tree    METADATA_ITEM of C (at commit); one more ref for each
 *                  child of C: TREE_BLOCK_REF(N), or EXTENT_DATA_REF(N,
 *                  ino, key.offset - extent offset) for a leaf root
 *   root tree      source ROOT_ITEM last_snapshot = T; (N ROOT_ITEM T),
 *                  (P ROOT_REF N), (N ROOT_BACKREF P)
 *   UUID tree      uuid -> N; received_uuid -> N for a read-only snapshot
 *   quota tree     0/N with the kernel's numbers (quick inherit path), or
 *                  every qgroup recomputed by the engine at commit
 * The source root block is copied as it is when the source did not change
 * in T (the kernel first CoWs it; the result is the same tree).  Pending
 * extent and qgroup updates of T are applied before the copy, so blocks
 * the source gained in T have extent items to add references to, and the
 * source's qgroup numbers are final.
 *
 * A snapshot into its own source (P = S, `snapshot /a /a/`): the kernel
 * copies the root before it links the snapshot, so the snapshot holds
 * neither its own entry nor the directory and ROOT_ITEM updates of the
 * link (ctransid and ctime stay the source's before it).  The same order
 * here; the link then copies blocks now shared with the snapshot, so the
 * qgroups are recomputed at commit.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <uuid/uuid.h>
#include "fs.h"
#include "csum.h"
#include "ctree.h"
#include "ctree-write.h"
#include "transaction.h"
#include "subvol-internal.h"
#include "snapshot.h"
#include "cow-shared.h"
#include "qgroup-write.h"

static void set_time(struct btrfs_timespec *ts, const struct btrfs_subvol_create_args *a)
{
	btrfs_set_timespec_sec(ts, a->now_sec);
	btrfs_set_timespec_nsec(ts, a->now_nsec);
}

/* Copy the source root block to a new block owned by @id */
static int copy_root(struct btrfs_trans_handle *trans, struct btrfs_root *src, u64 id,
		     u64 *bytenr, u8 *level)
{
	struct extent_buffer *c;
	const struct extent_buffer *eb = src->node;
	int ret;

	if (!eb)
		return -EUCLEAN;
	ret = btrfs_alloc_tree_block(trans, id, btrfs_eb_level(eb), &c);
	if (ret < 0)
		return ret;
	memcpy(c->data + sizeof(struct btrfs_header), eb->data + sizeof(struct btrfs_header),
	       eb->len - sizeof(struct btrfs_header));
	btrfs_set_header_nritems((struct btrfs_header *)c->data, btrfs_eb_nritems(eb));
	btrfs_mark_buffer_dirty(c);
	*bytenr = c->start;
	*level = btrfs_eb_level(c);
	ret = btrfs_inc_child_refs(trans, c, id);
	free_extent_buffer(c);
	return ret;
}

static int insert_snapshot_root_item(struct btrfs_trans_handle *trans, struct btrfs_root *src,
				     const struct btrfs_subvol_create_args *a, bool readonly,
				     u64 id, u64 bytenr, u8 level, const u8 *uuid)
{
	struct btrfs_root_item ri = src->root_item;
	struct btrfs_key key = { id, BTRFS_ROOT_ITEM_KEY, trans->transid };
	u64 flags = btrfs_root_flags(&ri);
	struct btrfs_disk_key zero;

	if (readonly)
		flags |= BTRFS_ROOT_SUBVOL_RDONLY;
	else
		flags &= ~BTRFS_ROOT_SUBVOL_RDONLY;
	btrfs_set_root_flags(&ri, flags);
	btrfs_set_root_bytenr(&ri, bytenr);
	btrfs_set_root_level(&ri, level);
	btrfs_set_root_generation(&ri, trans->transid);
	btrfs_set_root_generation_v2(&ri, trans->transid);
	btrfs_set_root_refs(&ri, 1);
	btrfs_set_root_last_snapshot(&ri, trans->transid);
	memset(&zero, 0, sizeof(zero));
	ri.drop_progress = zero;
	btrfs_set_root_drop_level(&ri, 0);
	memcpy(btrfs_root_uuid(&ri), uuid, BTRFS_UUID_SIZE);
	memcpy(btrfs_root_parent_uuid(&ri), btrfs_root_uuid(&src->root_item), BTRFS_UUID_SIZE);
	if (!readonly) {
		memset(btrfs_root_received_uuid(&ri), 0, BTRFS_UUID_SIZE);
		memset(btrfs_root_stime(&ri), 0, sizeof(struct btrfs_timespec));
		memset(btrfs_root_rtime(&ri), 0, sizeof(struct btrfs_timespec));
		btrfs_set_root_stransid(&ri, 0);
		btrfs_set_root_rtransid(&ri, 0);
	}
	set_time(btrfs_root_otime(&ri), a);
	btrfs_set_root_otransid(&ri, trans->transid);
	return btrfs_insert_item(trans, trans->fs->tree_root, &key, &ri, sizeof(ri));
}

/* received_uuid -> N: append @id to the (possibly shared) RECEIVED_SUBVOL item */
static int add_received_uuid(struct btrfs_trans_handle *trans, const u8 *uuid, u64 id)
{
	struct btrfs_root *root;
	struct btrfs_key key;
	u8 buf[512];
	u32 len = 0;
	int ret;

	ret = btrfs_read_root(trans->fs, BTRFS_UUID_TREE_OBJECTID, &root);
	if (ret == -ENOENT)
		return 0;
	if (ret < 0)
		return ret;
	btrfs_uuid_to_key(uuid, BTRFS_UUID_KEY_RECEIVED_SUBVOL, &key);
	ret = btrfs_lookup_item(root, &key, buf, sizeof(buf) - 8, &len);
	if (ret == 0) {
		if (len % 8 || len > sizeof(buf) - 8)
			return -EUCLEAN;
		ret = btrfs_delete_key(trans, root, &key);
	} else if (ret == -ENOENT) {
		len = 0;
		ret = 0;
	}
	if (ret < 0)
		return ret;
	put_le64(buf + len, id);
	return btrfs_insert_item(trans, root, &key, buf, len + 8);
}

struct rel_list {
	u64 child;
	u64 parents[8];
	size_t nr;		/* may exceed 8: only counted */
};

static int rel_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct rel_list *l = priv;

	(void)data;
	(void)len;
	if (key->type == BTRFS_QGROUP_RELATION_KEY && key->objectid == l->child &&
	    key->offset > l->child) {
		if (l->nr < 8)
			l->parents[l->nr] = key->offset;
		l->nr++;
	}
	return 0;
}

/*
 * Kernel numbers for a new snapshot (on-disk-engine 7.10): 0/N.rfer =
 * 0/S.rfer, 0/N.excl = 0/S.excl = nodesize, 0/S's limits copied.  C's
 * allocation reaches 0/N (and the inherited qgroups) through the commit's
 * qgroup deltas, so 0/N starts one block lower here.  Simple quotas: 0/N
 * starts at zero and is charged for the blocks it allocates.
 */
static int snapshot_qgroups(struct btrfs_trans_handle *trans, u64 src, u64 id,
			    const struct btrfs_subvol_create_args *a)
{
	struct btrfs_fs *fs = trans->fs;
	u64 ns = fs->nodesize;
	struct btrfs_root *quota;
	struct btrfs_qgroup_info_item si, ni;
	struct btrfs_qgroup_limit_item lim;
	struct btrfs_key skey = { 0, BTRFS_QGROUP_INFO_KEY, src };
	struct btrfs_key nkey = { 0, BTRFS_QGROUP_INFO_KEY, id };
	struct btrfs_key rmin = { src, BTRFS_QGROUP_RELATION_KEY, 0 };
	struct btrfs_key rmax = { src, BTRFS_QGROUP_RELATION_KEY, (u64)-1 };
	struct rel_list rl = { .child = src };
	bool consistent = true;
	u32 len;
	int ret;

	ret = btrfs_read_root(fs, BTRFS_QUOTA_TREE_OBJECTID, &quota);
	if (ret < 0)
		return ret;
	ret = insert_qgroup_items(trans, id);
	if (ret < 0)
		return ret;
	/* simple quotas: 0/N starts empty, no limits copied (kernel 6.18) */
	if (trans->squota)
		return insert_relations(trans, a, id);
	ret = btrfs_lookup_item(quota, &skey, &si, sizeof(si), &len);
	if (ret == -ENOENT) {
		/* no 0/S: nothing to copy, the commit computes the numbers */
		btrfs_trans_recompute_qgroups(trans);
		return 0;
	}
	if (ret < 0)
		return ret;
	ni = si;
	btrfs_set_qgroup_info_generation(&ni, trans->transid);
	btrfs_set_qgroup_info_rfer(&ni, btrfs_qgroup_info_rfer(&si) >= ns ?
				   btrfs_qgroup_info_rfer(&si) - ns : 0);
	btrfs_set_qgroup_info_rfer_cmpr(&ni, btrfs_qgroup_info_rfer_cmpr(&si) >= ns ?
					btrfs_qgroup_info_rfer_cmpr(&si) - ns : 0);
	btrfs_set_qgroup_info_excl(&ni, 0);
	btrfs_set_qgroup_info_excl_cmpr(&ni, 0);
	ret = btrfs_update_item(trans, quota, &nkey, &ni, sizeof(ni));
	if (ret < 0)
		return ret;
	btrfs_set_qgroup_info_generation(&si, trans->transid);
	btrfs_set_qgroup_info_excl(&si, ns);
	btrfs_set_qgroup_info_excl_cmpr(&si, ns);
	ret = btrfs_update_item(trans, quota, &skey, &si, sizeof(si));
	if (ret < 0)
		return ret;
	skey.type = nkey.type = BTRFS_QGROUP_LIMIT_KEY;
	ret = btrfs_lookup_item(quota, &skey, &lim, sizeof(lim), &len);
	if (ret == 0 && len == sizeof(lim))
		ret = btrfs_update_item(trans, quota, &nkey, &lim, sizeof(lim));
	else if (ret == -ENOENT)
		ret = 0;
	if (ret < 0)
		return ret;

	/* higher levels: the kernel's quick inherit path, or the engine at commit */
	ret = btrfs_iterate_items(quota, &rmin, &rmax, rel_cb, &rl);
	if (ret < 0)
		return ret;
	if (a->nr_inherit == 0) {
		consistent = rl.nr == 0;
	} else if (a->nr_inherit == 1 && rl.nr == 1 && rl.parents[0] == a->inherit[0]) {
		struct btrfs_key qkey = { 0, BTRFS_QGROUP_INFO_KEY, a->inherit[0] };
		struct btrfs_qgroup_info_item qi;

		ret = btrfs_lookup_item(quota, &qkey, &qi, sizeof(qi), &len);
		if (ret < 0)
			return ret;
		consistent = btrfs_qgroup_info_excl(&qi) == btrfs_qgroup_info_rfer(&qi);
	} else {
		consistent = false;
	}
	ret = insert_relations(trans, a, id);
	if (ret < 0)
		return ret;
	if (!consistent)
		btrfs_trans_recompute_qgroups(trans);
	return 0;
}

static int check_source(struct btrfs_fs *fs, struct btrfs_root *src)
{
	if (!src->has_item || !btrfs_is_fstree(src->id)) {
		btrfs_fs_set_error(fs, "tree %llu: not a subvolume", (unsigned long long)src->id);
		return -EINVAL;
	}
	if (btrfs_root_refs(&src->root_item) == 0) {
		btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_SUBVOL, "subvolume %llu: is being deleted",
				       (unsigned long long)src->id);
		return -ENOENT;
	}
	if (src->item_size != sizeof(struct btrfs_root_item)) {
		btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_SUBVOL,
				       "subvolume %llu: legacy root item, snapshot not implemented offline yet",
				       (unsigned long long)src->id);
		return -EOPNOTSUPP;
	}
	/* the kernel cannot open it to snapshot it: no copy of the damage either */
	return btrfs_check_root_dir(fs, src->id);
}

/* The snapshot's entry in its parent directory, the directory's update, the root refs */
static int link_snapshot(struct btrfs_trans_handle *trans, struct btrfs_root *parent,
			 const struct btrfs_subvol_create_args *a, u64 id, u64 index)
{
	/* snapshots point at (N, ROOT_ITEM, -1), plain subvolumes at offset 0 */
	struct btrfs_key loc = { id, BTRFS_ROOT_ITEM_KEY, (u64)-1 };
	int ret;

	ret = insert_dir_pair(trans, parent, a->parent_dir, index, a->name, a->name_len, &loc);
	if (!ret)
		ret = update_parent_dir(trans, parent, a);
	if (!ret)
		ret = insert_root_refs(trans, a, id, index);
	return ret;
}

int btrfs_snapshot_create(struct btrfs_trans_handle *trans, u64 source, bool readonly,
			  struct btrfs_subvol_create_args *a)
{
	struct btrfs_fs *fs = trans->fs;
	struct btrfs_root *parent, *src;
	struct btrfs_key loc;
	u8 uuid[BTRFS_UUID_SIZE], zero_uuid[BTRFS_UUID_SIZE] = { 0 };
	bool self = a->parent_root == source;	/* into its own source */
	u64 id, index, bytenr;
	u8 type, level;
	int ret;

	if (!a->name_len || a->name_len > BTRFS_NAME_LEN || memchr(a->name, '/', a->name_len) ||
	    (a->name_len == 1 && a->name[0] == '.') ||
	    (a->name_len == 2 && !memcmp(a->name, "..", 2))) {
		btrfs_fs_set_error(fs, "%.*s: invalid snapshot name", (int)a->name_len, a->name);
		return -EINVAL;
	}
	ret = btrfs_read_root(fs, source, &src);
	if (ret < 0)
		return ret;
	ret = check_source(fs, src);
	if (ret < 0)
		return ret;
	ret = btrfs_read_root(fs, a->parent_root, &parent);
	if (ret < 0)
		return ret;
	if (btrfs_root_flags(&parent->root_item) & BTRFS_ROOT_SUBVOL_RDONLY) {
		btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_SUBVOL, "subvolume %llu: read-only",
				       (unsigned long long)a->parent_root);
		return -EROFS;
	}
	ret = btrfs_lookup_dir_entry(fs, a->parent_root, a->parent_dir, a->name, a->name_len,
				     &loc, &type);
	if (ret == 0)
		return -EEXIST;
	if (ret != -ENOENT)
		return ret;
	/* the kernel reserves the same 3 blocks in the parent for a snapshot */
	ret = btrfs_qgroup_check_create(trans, a->parent_root);
	if (!ret)
		ret = check_inherit(trans, a);
	if (!ret)
		ret = new_subvol_id(fs, &id);
	if (!ret)
		ret = next_dir_index(parent, a->parent_dir, &index);
	if (!ret && !self)
		ret = link_snapshot(trans, parent, a, id, index);
	if (!ret)
		ret = btrfs_run_pending_all(trans);
	if (ret < 0)
		return ret;

	/* the source as it is now (its root may have been copied above) */
	ret = btrfs_trans_track_root(trans, src, true);
	if (ret < 0)
		return ret;
	btrfs_set_root_last_snapshot(&src->root_item, trans->transid);
	new_subvol_uuid(trans->fs, id, uuid);
	ret = copy_root(trans, src, id, &bytenr, &level);
	if (!ret)
		ret = insert_snapshot_root_item(trans, src, a, readonly, id, bytenr, level, uuid);
	if (!ret)
		ret = insert_uuid_item(trans, uuid, id);
	if (!ret && readonly &&
	    memcmp(btrfs_root_received_uuid(&src->root_item), zero_uuid, BTRFS_UUID_SIZE))
		ret = add_received_uuid(trans, btrfs_root_received_uuid(&src->root_item), id);
	if (!ret && trans->quota_on)
		ret = snapshot_qgroups(trans, source, id, a);
	if (!ret && self) {
		/* the copy's children now have this reference to see */
		ret = btrfs_run_pending_all(trans);
		if (!ret)
			ret = link_snapshot(trans, parent, a, id, index);
		btrfs_trans_recompute_qgroups(trans);
	}
	if (ret < 0)
		return ret;
	a->subvolid = id;
	return 0;
}
