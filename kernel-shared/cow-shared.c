// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copy-on-write of shared subvolume tree blocks (see cow-shared.h).
 *
 * "Children refs" of a block X: for a node one tree block ref per child
 * pointer, for a leaf one data ref per regular file extent with a disk
 * extent.  Full refs name X's bytenr (SHARED_BLOCK_REF / SHARED_DATA_REF),
 * normal refs the tree (TREE_BLOCK_REF(R) / EXTENT_DATA_REF(R, ino, off)).
 * A copy of a shared block changes which trees reach its children, so the
 * qgroups are recomputed at commit (btrfs_trans_recompute_qgroups()).
 * In a transaction the path is copied top-down, so the parent of a copied
 * block is always a new normal block of @root: the reference to drop from
 * the old block is TREE_BLOCK_REF(@root).
 */
#include <errno.h>
#include <string.h>
#include "fs.h"
#include "ctree.h"
#include "ctree-write.h"
#include "extent-buffer.h"
#include "transaction.h"
#include "extent-ref.h"
#include "cow-shared.h"

enum child_op { INC_FULL, INC_NORMAL, DEC_FULL };

static int child_refs(struct btrfs_trans_handle *trans, const struct extent_buffer *eb,
		      u64 root, enum child_op op)
{
	u32 nr = btrfs_eb_nritems(eb);
	u8 level = btrfs_eb_level(eb);
	int ret = 0;

	for (u32 i = 0; i < nr && !ret; i++) {
		const struct btrfs_file_extent_item *fi;
		struct btrfs_key key;
		u64 disk, len;

		if (level > 0) {
			u64 child = btrfs_eb_node_blockptr(eb, i);

			if (op == INC_FULL)
				ret = btrfs_inc_shared_block_ref(trans, child, level - 1, eb->start);
			else if (op == INC_NORMAL)
				ret = btrfs_inc_tree_block_ref(trans, child, level - 1, root);
			else
				ret = btrfs_drop_tree_block_ref(trans, child, level - 1,
								BTRFS_SHARED_BLOCK_REF_KEY,
								eb->start);
			continue;
		}
		btrfs_eb_item_key(eb, i, &key);
		if (key.type != BTRFS_EXTENT_DATA_KEY)
			continue;
		if (btrfs_eb_item_size(eb, i) < BTRFS_FILE_EXTENT_INLINE_DATA_START)
			return -EUCLEAN;
		fi = (const struct btrfs_file_extent_item *)btrfs_eb_item_data(eb, i);
		if (btrfs_file_extent_type(fi) == BTRFS_FILE_EXTENT_INLINE)
			continue;
		if (btrfs_eb_item_size(eb, i) < sizeof(*fi))
			return -EUCLEAN;
		disk = btrfs_file_extent_disk_bytenr(fi);
		len = btrfs_file_extent_disk_num_bytes(fi);
		if (!disk)
			continue;
		if (op == INC_FULL)
			ret = btrfs_inc_shared_data_ref(trans, disk, len, eb->start);
		else if (op == INC_NORMAL)
			ret = btrfs_inc_data_ref(trans, disk, len, root, key.objectid,
						 key.offset - btrfs_file_extent_offset(fi));
		else
			ret = btrfs_drop_shared_data_ref(trans, disk, len, eb->start);
	}
	return ret;
}

int btrfs_inc_child_refs(struct btrfs_trans_handle *trans, const struct extent_buffer *eb,
			 u64 root)
{
	return child_refs(trans, eb, root, INC_NORMAL);
}

int btrfs_cow_update_refs(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			  const struct extent_buffer *eb, bool *ref_dropped)
{
	u64 owner = btrfs_eb_owner(eb), refs, flags;
	u8 level = btrfs_eb_level(eb);
	int ret;

	*ref_dropped = false;
	if (!btrfs_is_fstree(root->id))
		return 0;
	if (owner == root->id && root->has_item &&
	    btrfs_eb_generation(eb) > btrfs_root_last_snapshot(&root->root_item))
		return 0;	/* written after the last snapshot: cannot be shared */
	ret = btrfs_tree_block_info(trans, eb->start, level, &refs, &flags, false, false);
	if (ret < 0)
		return ret;
	if (refs > 1) {
		if (owner == root->id && !(flags & BTRFS_BLOCK_FLAG_FULL_BACKREF)) {
			ret = child_refs(trans, eb, root->id, INC_FULL);
			if (!ret)
				ret = btrfs_tree_block_info(trans, eb->start, level, NULL, NULL,
							    true, false);
		} else {
			ret = child_refs(trans, eb, root->id, INC_NORMAL);
		}
		if (!ret)
			ret = btrfs_drop_tree_block_ref(trans, eb->start, level,
							BTRFS_TREE_BLOCK_REF_KEY, root->id);
		/* the tree's numbers are no longer a sum of blocks gained and lost */
		if (!ret)
			btrfs_trans_recompute_qgroups(trans);
		if (!ret)
			*ref_dropped = true;
		return ret;
	}
	if (flags & BTRFS_BLOCK_FLAG_FULL_BACKREF) {
		ret = child_refs(trans, eb, root->id, INC_NORMAL);
		if (!ret)
			ret = child_refs(trans, eb, root->id, DEC_FULL);
		/* its last reference goes with the normal free */
		if (!ret)
			ret = btrfs_tree_block_info(trans, eb->start, level, NULL, NULL, false, true);
		if (!ret && owner != root->id)
			btrfs_trans_recompute_qgroups(trans);
	}
	return ret;
}
