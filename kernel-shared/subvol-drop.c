// SPDX-License-Identifier: GPL-2.0-only
/*
 * Dropping a dead subvolume tree in one transaction (see subvol-drop.h).
 *
 * The rules are the kernel's btrfs_drop_snapshot() with update_ref set
 * (every mixed-backref filesystem), stage by stage:
 *   DROP_REFERENCE  block B with refs 1: descend; a leaf drops one data ref
 *                   per file extent (SHARED_DATA_REF(B) when B is
 *                   FULL_BACKREF, else EXTENT_DATA_REF(owner(B), ino,
 *                   key.offset - extent offset)); then B is freed, which
 *                   removes the one reference its parent held.
 *                   child C with refs > 1: not descended; first, when C's
 *                   pointer generation is newer than the tree's origin (its
 *                   ROOT_ITEM key offset) and C is not an already
 *                   FULL_BACKREF leaf, UPDATE_BACKREF runs on C; then the
 *                   ref the parent held goes: SHARED_BLOCK_REF(parent) if
 *                   the parent is FULL_BACKREF, else TREE_BLOCK_REF(owner).
 *   UPDATE_BACKREF  block owned by the dead tree, not FULL_BACKREF: its
 *                   children get refs naming it (shared) in place of the
 *                   refs naming the dead tree, and it becomes FULL_BACKREF;
 *                   then the same for its children newer than the origin.
 *                   Blocks owned by other trees are left alone.
 * Afterwards no back reference names the dead tree.
 *
 * Memory: the walk holds one block per level (at most 8), never the tree.
 * Termination: levels strictly decrease, children are checked against
 * their parent pointer (level, generation, first key) and must end below
 * the parent's next key, so a corrupt tree cannot make the walk loop.
 * Freed tree blocks stay pinned until the commit (extent-tree.c); data
 * extents are freed at once (extent-free.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fs.h"
#include "ctree.h"
#include "ctree-write.h"
#include "extent-buffer.h"
#include "transaction.h"
#include "extent-ref.h"
#include "extent-free.h"
#include "subvol-drop.h"

struct drop_ctx {
	struct btrfs_trans_handle *trans;
	struct btrfs_fs *fs;
	u64 id;
	u64 origin;			/* ROOT_ITEM key offset */
	bool shared;			/* something stays referenced by others */
	struct btrfs_drop_stats st;
	/* resuming a drop the kernel left half done */
	struct btrfs_key progress;
	u8 drop_level;
};

static int block_info(struct drop_ctx *d, u64 bytenr, u8 level, u64 *refs, u64 *flags)
{
	int ret = btrfs_tree_block_info(d->trans, bytenr, level, refs, flags, false, false);

	if (!ret && !*refs) {
		btrfs_fs_set_error(d->fs, "tree block %llu: refs 0", (unsigned long long)bytenr);
		ret = -EUCLEAN;
	}
	return ret;
}

/*
 * Read child @slot of node @eb, verified against its pointer; @bound is the
 * exclusive upper key limit of @eb (NULL: none), *@cbound gets the child's
 */
static int read_child(struct drop_ctx *d, const struct extent_buffer *eb, u32 slot,
		      const struct btrfs_key *bound, struct btrfs_key *cbound_buf,
		      const struct btrfs_key **cbound, struct extent_buffer **out)
{
	u32 nr = btrfs_eb_nritems(eb);
	struct btrfs_tree_parent_check check = {
		.transid = btrfs_eb_node_ptr_generation(eb, slot),
		.owner_root = d->id,
		.has_level = true,
		.level = (u8)(btrfs_eb_level(eb) - 1),
		.has_first_key = true,
	};
	struct extent_buffer *child;
	struct btrfs_key last;
	u32 cnr;
	int ret;

	btrfs_eb_node_key(eb, slot, &check.first_key);
	*cbound = bound;
	if (slot + 1 < nr) {
		btrfs_eb_node_key(eb, slot + 1, cbound_buf);
		*cbound = cbound_buf;
	}
	ret = btrfs_read_tree_block(d->fs, btrfs_eb_node_blockptr(eb, slot), &check, &child);
	if (ret < 0)
		return ret;
	cnr = btrfs_eb_nritems(child);
	if (*cbound && cnr) {
		if (btrfs_eb_level(child))
			btrfs_eb_node_key(child, cnr - 1, &last);
		else
			btrfs_eb_item_key(child, cnr - 1, &last);
		if (btrfs_key_cmp(&last, *cbound) >= 0) {
			btrfs_fs_set_error(d->fs, "tree block %llu: keys beyond its parent's range",
					   (unsigned long long)child->start);
			free_extent_buffer(child);
			return -EUCLEAN;
		}
	}
	*out = child;
	return 0;
}

/*
 * File extent at @slot of leaf @eb that points at a disk extent?
 * Return: 1 and its fields, 0 when not, -EUCLEAN for a short item.
 */
static int leaf_extent(struct drop_ctx *d, const struct extent_buffer *eb, u32 slot, u64 *disk,
		       u64 *len, struct btrfs_data_ref *ref)
{
	const struct btrfs_file_extent_item *fi;
	struct btrfs_key key;
	u32 size = btrfs_eb_item_size(eb, slot);

	btrfs_eb_item_key(eb, slot, &key);
	if (key.type != BTRFS_EXTENT_DATA_KEY)
		return 0;
	fi = (const struct btrfs_file_extent_item *)btrfs_eb_item_data(eb, slot);
	if (size < BTRFS_FILE_EXTENT_INLINE_DATA_START)
		goto corrupt;
	if (btrfs_file_extent_type(fi) == BTRFS_FILE_EXTENT_INLINE)
		return 0;
	if (size < sizeof(*fi))
		goto corrupt;
	*disk = btrfs_file_extent_disk_bytenr(fi);
	*len = btrfs_file_extent_disk_num_bytes(fi);
	if (!*disk)
		return 0;
	ref->parent = 0;
	ref->root = btrfs_eb_owner(eb);
	ref->ino = key.objectid;
	ref->offset = key.offset - btrfs_file_extent_offset(fi);
	return 1;
corrupt:
	btrfs_fs_set_error(d->fs, "tree block %llu: short file extent item in slot %u",
			   (unsigned long long)eb->start, slot);
	return -EUCLEAN;
}

/* UPDATE_BACKREF on one block: its children's refs name it, not the dead tree */
static int convert_block(struct drop_ctx *d, const struct extent_buffer *eb)
{
	u32 nr = btrfs_eb_nritems(eb);
	u8 level = btrfs_eb_level(eb);
	int ret = 0;

	for (u32 slot = 0; slot < nr && !ret; slot++) {
		struct btrfs_data_ref ref;
		u64 disk, len;
		bool freed;

		if (level) {
			u64 child = btrfs_eb_node_blockptr(eb, slot);

			ret = btrfs_inc_shared_block_ref(d->trans, child, level - 1, eb->start);
			if (!ret)
				ret = btrfs_drop_tree_block_ref(d->trans, child, level - 1,
								BTRFS_TREE_BLOCK_REF_KEY, d->id);
			continue;
		}
		ret = leaf_extent(d, eb, slot, &disk, &len, &ref);
		if (ret <= 0)
			continue;
		ret = btrfs_inc_shared_data_ref(d->trans, disk, len, eb->start);
		if (!ret)
			ret = btrfs_drop_data_ref(d->trans, disk, len, &ref, d->id, &freed);
		if (!ret && freed)
			ret = -EUCLEAN;	/* the shared ref added above holds it */
	}
	if (!ret)
		ret = btrfs_tree_block_info(d->trans, eb->start, level, NULL, NULL, true, false);
	if (!ret)
		d->st.blocks_converted++;
	return ret;
}

static int update_backref(struct drop_ctx *d, const struct extent_buffer *eb, u64 flags,
			  const struct btrfs_key *bound)
{
	u32 nr = btrfs_eb_nritems(eb);
	u8 level = btrfs_eb_level(eb);
	int ret = 0;

	if (btrfs_eb_owner(eb) != d->id)
		return 0;
	if (!(flags & BTRFS_BLOCK_FLAG_FULL_BACKREF)) {
		ret = convert_block(d, eb);
		if (ret < 0)
			return ret;
	}
	for (u32 slot = 0; level && slot < nr && !ret; slot++) {
		const struct btrfs_key *cbound;
		struct btrfs_key cbuf;
		struct extent_buffer *child;
		u64 refs, cflags;

		if (btrfs_eb_node_ptr_generation(eb, slot) <= d->origin)
			continue;
		ret = block_info(d, btrfs_eb_node_blockptr(eb, slot), level - 1, &refs, &cflags);
		if (ret < 0)
			break;
		if (level == 1 && (cflags & BTRFS_BLOCK_FLAG_FULL_BACKREF))
			continue;
		ret = read_child(d, eb, slot, bound, &cbuf, &cbound, &child);
		if (ret < 0)
			break;
		ret = update_backref(d, child, cflags, cbound);
		free_extent_buffer(child);
	}
	return ret;
}

static int drop_leaf(struct drop_ctx *d, const struct extent_buffer *eb, u64 flags)
{
	u32 nr = btrfs_eb_nritems(eb);
	int ret = 0;

	for (u32 slot = 0; slot < nr && !ret; slot++) {
		struct btrfs_data_ref ref;
		u64 disk, len;
		bool freed;

		ret = leaf_extent(d, eb, slot, &disk, &len, &ref);
		if (ret <= 0)
			continue;
		if (flags & BTRFS_BLOCK_FLAG_FULL_BACKREF)
			ref = (struct btrfs_data_ref){ .parent = eb->start };
		ret = btrfs_drop_data_ref(d->trans, disk, len, &ref, d->id, &freed);
		if (ret < 0)
			break;
		if (freed) {
			d->st.data_freed++;
			d->st.data_bytes_freed += len;
		} else {
			d->st.data_refs_dropped++;
			d->shared = true;
		}
	}
	return ret;
}

/* First slot of node @eb to process when resuming at d->progress */
static int resume_slot(struct drop_ctx *d, const struct extent_buffer *eb, u32 *slot)
{
	u32 nr = btrfs_eb_nritems(eb);
	struct btrfs_key k;

	*slot = 0;
	for (u32 i = 1; i < nr; i++) {
		btrfs_eb_node_key(eb, i, &k);
		if (btrfs_key_cmp(&k, &d->progress) > 0)
			break;
		*slot = i;
	}
	btrfs_eb_node_key(eb, *slot, &k);
	if (btrfs_eb_level(eb) == d->drop_level && btrfs_key_cmp(&k, &d->progress)) {
		btrfs_fs_set_obj_error(d->fs, BTRFS_ERR_OBJ_SUBVOL,
				       "subvolume %llu: drop progress key not found at level %u",
				       (unsigned long long)d->id, d->drop_level);
		return -EUCLEAN;
	}
	return 0;
}

/* A shared child loses the reference @eb held (after UPDATE_BACKREF if due) */
static int drop_shared_child(struct drop_ctx *d, const struct extent_buffer *eb, u64 flags,
			     u32 slot, u64 cflags, const struct btrfs_key *bound)
{
	u64 child = btrfs_eb_node_blockptr(eb, slot);
	u8 level = btrfs_eb_level(eb);
	int ret = 0;

	d->shared = true;
	d->st.blocks_shared++;
	if (!(level == 1 && (cflags & BTRFS_BLOCK_FLAG_FULL_BACKREF)) &&
	    btrfs_eb_node_ptr_generation(eb, slot) > d->origin) {
		const struct btrfs_key *cbound;
		struct btrfs_key cbuf;
		struct extent_buffer *c;

		ret = read_child(d, eb, slot, bound, &cbuf, &cbound, &c);
		if (ret < 0)
			return ret;
		ret = update_backref(d, c, cflags, cbound);
		free_extent_buffer(c);
		if (ret < 0)
			return ret;
	}
	if (flags & BTRFS_BLOCK_FLAG_FULL_BACKREF)
		return btrfs_drop_tree_block_ref(d->trans, child, level - 1,
						 BTRFS_SHARED_BLOCK_REF_KEY, eb->start);
	return btrfs_drop_tree_block_ref(d->trans, child, level - 1, BTRFS_TREE_BLOCK_REF_KEY,
					 btrfs_eb_owner(eb));
}

/* DROP_REFERENCE below block @eb (refs 1, extent flags @flags); @eb itself stays */
static int drop_block(struct drop_ctx *d, const struct extent_buffer *eb, u64 flags,
		      const struct btrfs_key *bound, bool resume)
{
	u32 nr = btrfs_eb_nritems(eb), start = 0;
	u8 level = btrfs_eb_level(eb);
	u64 ptrs[BTRFS_MAX_METADATA_BLOCKSIZE / sizeof(struct btrfs_key_ptr)];
	int ret = 0;

	if (!level)
		return drop_leaf(d, eb, flags);
	if (resume) {
		ret = resume_slot(d, eb, &start);
		if (ret < 0)
			return ret;
	}
	if (start < nr) {
		for (u32 slot = start; slot < nr; slot++)
			ptrs[slot - start] = btrfs_eb_node_blockptr(eb, slot);
		btrfs_readahead_tree_blocks(d->fs, ptrs, nr - start);
	}
	for (u32 slot = start; slot < nr && !ret; slot++) {
		bool on_path = resume && slot == start && level > d->drop_level;
		const struct btrfs_key *cbound;
		struct btrfs_key cbuf;
		struct extent_buffer *child;
		u64 refs, cflags;

		ret = block_info(d, btrfs_eb_node_blockptr(eb, slot), level - 1, &refs, &cflags);
		if (ret < 0)
			break;
		if (refs > 1) {
			if (on_path) {
				btrfs_fs_set_obj_error(d->fs, BTRFS_ERR_OBJ_SUBVOL,
						       "subvolume %llu: shared block on the drop progress path",
						       (unsigned long long)d->id);
				return -EUCLEAN;
			}
			ret = drop_shared_child(d, eb, flags, slot, cflags, bound);
			continue;
		}
		ret = read_child(d, eb, slot, bound, &cbuf, &cbound, &child);
		if (ret < 0)
			break;
		ret = drop_block(d, child, cflags, cbound, on_path);
		if (!ret)
			ret = btrfs_free_tree_block(d->trans, d->id, child);
		if (!ret)
			d->st.blocks_freed++;
		free_extent_buffer(child);
	}
	return ret;
}

/*
 * Level-0 qgroup of the dropped tree: INFO, LIMIT, RELATION items both ways.
 * Kernel 6.11+ (btrfs_qgroup_cleanup_dropped_subvolume) removes it after
 * the drop unless btrfs_remove_qgroup() says -EBUSY (the group still has
 * usage) or -ENOENT.  With full quotas our numbers are exact, so they are
 * 0 here.  With simple quotas (can_delete_qgroup()) a group whose rfer,
 * excl or their compressed twins are not 0 stays, relations and limits
 * included: blocks and data the tree allocated may outlive it (shared with
 * a snapshot), and freeing them later charges the group back.  The parents
 * lose nothing: the freed bytes already left them.
 */
struct parents {
	u64 ids[64];
	size_t nr;
	bool more;
};

static int parent_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct parents *p = priv;

	(void)data;
	(void)len;
	if (p->nr == sizeof(p->ids) / sizeof(p->ids[0])) {
		p->more = true;
		return 1;
	}
	p->ids[p->nr++] = key->offset;
	return 0;
}

/* Simple quotas: 0/@id still holds a charge (1), none or no INFO item (0), or <0 */
static int squota_group_in_use(struct btrfs_trans_handle *trans, struct btrfs_root *quota, u64 id)
{
	struct btrfs_key key = { 0, BTRFS_QGROUP_INFO_KEY, id };
	u8 info[40];
	u32 len;
	int ret;

	ret = btrfs_lookup_item(quota, &key, info, sizeof(info), &len);
	if (ret == -ENOENT)
		return 0;
	if (ret < 0)
		return ret;
	if (len < sizeof(info)) {
		btrfs_fs_set_obj_error(trans->fs, BTRFS_ERR_OBJ_QGROUP,
				       "qgroup 0/%llu: info item of %u bytes",
				       (unsigned long long)id, len);
		return -EUCLEAN;
	}
	for (u32 off = 8; off < sizeof(info); off += 8) {
		if (get_le64(info + off))
			return 1;
	}
	return 0;
}

static int remove_qgroup(struct btrfs_trans_handle *trans, u64 id)
{
	struct btrfs_key key = { 0, BTRFS_QGROUP_INFO_KEY, id };
	struct btrfs_root *quota;
	struct parents p;
	int ret;

	ret = btrfs_read_root(trans->fs, BTRFS_QUOTA_TREE_OBJECTID, &quota);
	if (ret < 0)
		return ret;
	if (trans->squota) {
		ret = squota_group_in_use(trans, quota, id);
		if (ret)
			return ret < 0 ? ret : 0;
	}
	ret = btrfs_delete_key(trans, quota, &key);
	key.type = BTRFS_QGROUP_LIMIT_KEY;
	if (!ret || ret == -ENOENT)
		ret = btrfs_delete_key(trans, quota, &key);
	if (ret == -ENOENT)
		ret = 0;
	/* relations in batches: each pass deletes what it found */
	do {
		struct btrfs_key min = { id, BTRFS_QGROUP_RELATION_KEY, 0 };
		struct btrfs_key max = { id, BTRFS_QGROUP_RELATION_KEY, (u64)-1 };

		memset(&p, 0, sizeof(p));
		if (!ret)
			ret = btrfs_iterate_items(quota, &min, &max, parent_cb, &p);
		for (size_t i = 0; i < p.nr && !ret; i++) {
			struct btrfs_key fwd = { id, BTRFS_QGROUP_RELATION_KEY, p.ids[i] };
			struct btrfs_key back = { p.ids[i], BTRFS_QGROUP_RELATION_KEY, id };

			ret = btrfs_delete_key(trans, quota, &fwd);
			if (!ret) {
				ret = btrfs_delete_key(trans, quota, &back);
				if (ret == -ENOENT)
					ret = 0;
			}
		}
	} while (!ret && p.more);
	return ret;
}

/* The tree is gone: its accounting settles, then its items go */
static int finish_drop(struct drop_ctx *d, struct btrfs_root *root)
{
	struct btrfs_trans_handle *trans = d->trans;
	struct btrfs_key key = { BTRFS_ORPHAN_OBJECTID, BTRFS_ORPHAN_ITEM_KEY, d->id };
	int ret;

	/* apply the frees now: their qgroup deltas still find 0/id and its parents */
	ret = btrfs_run_pending(trans);
	if (ret >= 0)
		ret = btrfs_run_qgroup_deltas(trans);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < trans->nr_roots; i++) {
		if (trans->roots[i].root == root)
			trans->roots[i].dirty = false;
	}
	/* its freed blocks may be allocated again once T is on disk: let them go */
	free_extent_buffer(root->node);
	root->node = NULL;
	ret = btrfs_delete_key(trans, trans->fs->tree_root, &root->root_key);
	if (!ret) {
		ret = btrfs_delete_key(trans, trans->fs->tree_root, &key);
		if (ret == -ENOENT)
			ret = 0;
	}
	if (!ret && trans->quota_on) {
		ret = remove_qgroup(trans, d->id);
		/*
		 * Shared extents became exclusive elsewhere: the deltas cannot
		 * say where, the commit recounts every group with the engine
		 * (where the kernel's accounting of the traced subtrees ends up);
		 * simple quotas charge by owner: what stays shared changes nothing.
		 * A drop the kernel left half done is recounted too: when a
		 * commit fell between its conversion of a shared node's children
		 * to full back refs and its drop of the node, the kernel's
		 * recorded numbers are off by those blocks (no ref of theirs
		 * changed), and deltas on top of them would stay off.
		 */
		if (!ret && (d->shared || d->drop_level))
			btrfs_trans_recompute_qgroups(trans);
	}
	return ret;
}

int btrfs_subvol_drop(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		      struct btrfs_drop_stats *stats)
{
	struct drop_ctx d = { .trans = trans, .fs = trans->fs, .id = root->id,
			      .origin = root->root_key.offset };
	struct btrfs_root_item *ri = &root->root_item;
	bool resume = btrfs_root_item_drop_in_progress(ri);
	struct extent_buffer *eb;
	u64 refs, flags;
	int ret;

	if (!btrfs_is_fstree(root->id) || !root->has_item || btrfs_root_refs(ri)) {
		btrfs_fs_set_error(d.fs, "tree %llu: not a deleted subvolume",
				   (unsigned long long)root->id);
		return -EINVAL;
	}
	if (resume) {
		btrfs_root_drop_progress(ri, &d.progress);
		d.drop_level = btrfs_root_drop_level(ri);
		if (!d.drop_level || d.drop_level > root->level) {
			btrfs_fs_set_obj_error(d.fs, BTRFS_ERR_OBJ_SUBVOL,
					       "subvolume %llu: drop level %u invalid",
					       (unsigned long long)root->id, d.drop_level);
			return -EUCLEAN;
		}
	}
	ret = btrfs_root_load_node(root);
	if (ret < 0)
		return ret;
	eb = extent_buffer_get(root->node);
	ret = block_info(&d, eb->start, btrfs_eb_level(eb), &refs, &flags);
	if (!ret && refs == 1) {
		ret = drop_block(&d, eb, flags, NULL, resume);
		if (!ret)
			ret = btrfs_free_tree_block(trans, d.id, eb);
		if (!ret)
			d.st.blocks_freed++;
	} else if (!ret) {
		/* only the ROOT_ITEM's reference goes (the kernel does not convert a root) */
		d.shared = true;
		d.st.blocks_shared++;
		if (resume || (flags & BTRFS_BLOCK_FLAG_FULL_BACKREF)) {
			btrfs_fs_set_obj_error(d.fs, BTRFS_ERR_OBJ_SUBVOL,
					       "subvolume %llu: shared root block %llu",
					       (unsigned long long)d.id, (unsigned long long)eb->start);
			ret = -EUCLEAN;
		} else {
			ret = btrfs_drop_tree_block_ref(trans, eb->start, btrfs_eb_level(eb),
							BTRFS_TREE_BLOCK_REF_KEY, d.id);
		}
	}
	free_extent_buffer(eb);
	if (!ret)
		ret = finish_drop(&d, root);
	if (stats)
		*stats = d.st;
	return ret;
}
