// SPDX-License-Identifier: GPL-2.0-only
/*
 * Changing B-trees inside a transaction (see ctree-write.h).
 *
 * Invariants kept here:
 * - a block is changed only if it was allocated in the transaction; any
 *   other block on the path is copied first (cow_block()), top-down, so a
 *   parent is always writable before its pointer is rewritten;
 * - every parent pointer carries the child's first key and generation T;
 * - leaf item data stays packed back to back from the end of the block.
 * Node splits happen on the way down when a node is one slot from full, so
 * a later leaf split always finds room in its parent.  After any split the
 * search restarts; blocks already copied are reused, so a restart is cheap.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fs.h"
#include "ctree.h"
#include "ctree-write.h"
#include "transaction.h"
#include "cow-shared.h"

static u8 *eb_ptr(struct extent_buffer *eb, u32 off)
{
	return eb->data + off;
}

static struct btrfs_header *eb_hdr(struct extent_buffer *eb)
{
	return (struct btrfs_header *)eb->data;
}

static struct btrfs_item *leaf_item(struct extent_buffer *eb, u32 slot)
{
	return (struct btrfs_item *)eb_ptr(eb, BTRFS_LEAF_DATA_OFFSET +
					   slot * (u32)sizeof(struct btrfs_item));
}

static struct btrfs_key_ptr *node_ptr(struct extent_buffer *eb, u32 slot)
{
	return (struct btrfs_key_ptr *)eb_ptr(eb, BTRFS_LEAF_DATA_OFFSET +
					      slot * (u32)sizeof(struct btrfs_key_ptr));
}

static void set_nritems(struct extent_buffer *eb, u32 nr)
{
	btrfs_set_header_nritems(eb_hdr(eb), nr);
}

/* Offset (relative to the data area) where the data of item @slot - 1 starts */
static u32 leaf_data_end_before(struct extent_buffer *eb, u32 slot)
{
	if (slot == 0)
		return btrfs_leaf_data_size(eb->len);
	return btrfs_item_offset(leaf_item(eb, slot - 1));
}

static u32 leaf_free_space(struct extent_buffer *eb)
{
	u32 nr = btrfs_eb_nritems(eb);

	return leaf_data_end_before(eb, nr) - nr * (u32)sizeof(struct btrfs_item);
}

/*
 * Make @eb writable: return it (referenced) if allocated in T, else a copy
 * that replaces it in @parent at @pslot, or as the root of @root.
 */
static int cow_block(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		     struct extent_buffer *eb, struct extent_buffer *parent, u32 pslot,
		     struct extent_buffer **out)
{
	struct extent_buffer *cow;
	bool shared;
	int ret;

	if (btrfs_trans_block_is_new(trans, eb)) {
		*out = extent_buffer_get(eb);
		return 0;
	}
	ret = btrfs_trans_track_root(trans, root, false);
	if (ret < 0)
		return ret;
	ret = btrfs_alloc_tree_block(trans, root->id, btrfs_eb_level(eb), &cow);
	if (ret < 0)
		return ret;
	/* copy everything after the header fields that identify the block */
	memcpy(cow->data + sizeof(struct btrfs_header), eb->data + sizeof(struct btrfs_header),
	       eb->len - sizeof(struct btrfs_header));
	set_nritems(cow, btrfs_eb_nritems(eb));
	if (parent) {
		btrfs_set_key_ptr_blockptr(node_ptr(parent, pslot), cow->start);
		btrfs_set_key_ptr_generation(node_ptr(parent, pslot), trans->transid);
		btrfs_mark_buffer_dirty(parent);
	} else {
		ret = btrfs_trans_track_root(trans, root, true);
		if (ret < 0) {
			free_extent_buffer(cow);
			return ret;
		}
		free_extent_buffer(root->node);
		root->node = extent_buffer_get(cow);
		root->bytenr = cow->start;
		root->generation = trans->transid;
		root->level = btrfs_eb_level(cow);
	}
	/* blocks shared with snapshots keep living for the other trees */
	ret = btrfs_cow_update_refs(trans, root, eb, &shared);
	if (!ret && !shared)
		ret = btrfs_free_tree_block(trans, btrfs_eb_owner(eb), eb);
	if (ret < 0) {
		free_extent_buffer(cow);
		return ret;
	}
	*out = cow;
	return 0;
}

/* Read (not copy) the child at @slot of @parent, a node at @level */
static int read_child(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		      struct extent_buffer *parent, int level, u32 slot,
		      struct extent_buffer **out)
{
	struct btrfs_tree_parent_check check = {
		.transid = btrfs_eb_node_ptr_generation(parent, slot),
		.owner_root = root->id,
		.has_level = true,
		.level = (u8)(level - 1),
		.has_first_key = true,
	};

	btrfs_eb_node_key(parent, slot, &check.first_key);
	return btrfs_read_tree_block(trans->fs, btrfs_eb_node_blockptr(parent, slot), &check,
				     out);
}

/* Read the child at path->slots[level] of path->nodes[level] and make it writable */
static int cow_child(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		     struct btrfs_path *path, int level)
{
	struct extent_buffer *parent = path->nodes[level];
	u32 slot = (u32)path->slots[level];
	struct extent_buffer *child, *cow;
	int ret;

	ret = read_child(trans, root, parent, level, slot, &child);
	if (ret < 0)
		return ret;
	ret = cow_block(trans, root, child, parent, slot, &cow);
	free_extent_buffer(child);
	if (ret < 0)
		return ret;
	free_extent_buffer(path->nodes[level - 1]);
	path->nodes[level - 1] = cow;
	return 0;
}

/* Rewrite the key of every ancestor pointer that names the first key below @level */
static void fixup_low_keys(struct btrfs_path *path, int level, const struct btrfs_key *key)
{
	for (int i = level; i < BTRFS_MAX_LEVEL && path->nodes[i]; i++) {
		u32 slot = (u32)path->slots[i];

		btrfs_set_key_ptr_key(node_ptr(path->nodes[i], slot), key);
		btrfs_mark_buffer_dirty(path->nodes[i]);
		if (slot != 0)
			break;
	}
}

/* Put a new root node at @level above path->nodes[level - 1] */
static int insert_new_root(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			   struct btrfs_path *path, int level)
{
	struct extent_buffer *lower = path->nodes[level - 1];
	struct extent_buffer *node;
	struct btrfs_key key;
	int ret;

	if (level >= BTRFS_MAX_LEVEL)
		return -EOVERFLOW;
	ret = btrfs_trans_track_root(trans, root, true);
	if (ret < 0)
		return ret;
	ret = btrfs_alloc_tree_block(trans, root->id, (u8)level, &node);
	if (ret < 0)
		return ret;
	btrfs_eb_first_key(lower, &key);
	btrfs_set_key_ptr_key(node_ptr(node, 0), &key);
	btrfs_set_key_ptr_blockptr(node_ptr(node, 0), lower->start);
	btrfs_set_key_ptr_generation(node_ptr(node, 0), btrfs_eb_generation(lower));
	set_nritems(node, 1);
	free_extent_buffer(root->node);
	root->node = extent_buffer_get(node);
	root->bytenr = node->start;
	root->generation = trans->transid;
	root->level = (u8)level;
	path->nodes[level] = node;
	path->slots[level] = 0;
	return 0;
}

/*
 * Insert a pointer to @child at @slot of path->nodes[level] (room is
 * guaranteed), keyed by @first (NULL: @child's first key)
 */
static void insert_ptr_key(struct btrfs_path *path, int level, u32 slot,
			   const struct extent_buffer *child, const struct btrfs_key *first)
{
	struct extent_buffer *node = path->nodes[level];
	u32 nr = btrfs_eb_nritems(node);
	struct btrfs_key key;

	if (slot < nr)
		memmove(node_ptr(node, slot + 1), node_ptr(node, slot),
			(nr - slot) * sizeof(struct btrfs_key_ptr));
	if (first)
		key = *first;
	else
		btrfs_eb_first_key(child, &key);
	btrfs_set_key_ptr_key(node_ptr(node, slot), &key);
	btrfs_set_key_ptr_blockptr(node_ptr(node, slot), child->start);
	btrfs_set_key_ptr_generation(node_ptr(node, slot), btrfs_eb_generation(child));
	set_nritems(node, nr + 1);
	btrfs_mark_buffer_dirty(node);
}

static void insert_ptr(struct btrfs_path *path, int level, u32 slot,
		       const struct extent_buffer *child)
{
	insert_ptr_key(path, level, slot, child, NULL);
}

/*
 * Move the pointers from @mid on of path->nodes[level] to a new node after
 * it.  The middle, unless the key goes down the last pointer: then only
 * that one moves, so inserts in key order (appends) leave full nodes behind
 * them, as the kernel's push into the left sibling does.
 */
static int split_node(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		      struct btrfs_path *path, int level, const struct btrfs_key *key)
{
	struct extent_buffer *node = path->nodes[level];
	struct extent_buffer *right;
	u32 nr = btrfs_eb_nritems(node), mid = nr / 2;
	bool found;
	u32 slot;
	int ret;

	slot = btrfs_eb_bin_search(node, key, &found);
	if (!found && slot > 0)
		slot--;
	if (slot == nr - 1)
		mid = nr - 1;

	if (!path->nodes[level + 1]) {
		ret = insert_new_root(trans, root, path, level + 1);
		if (ret < 0)
			return ret;
	}
	ret = btrfs_alloc_tree_block(trans, root->id, (u8)level, &right);
	if (ret < 0)
		return ret;
	memcpy(node_ptr(right, 0), node_ptr(node, mid), (nr - mid) * sizeof(struct btrfs_key_ptr));
	set_nritems(right, nr - mid);
	memset(node_ptr(node, mid), 0, (nr - mid) * sizeof(struct btrfs_key_ptr));
	set_nritems(node, mid);
	btrfs_mark_buffer_dirty(node);
	insert_ptr(path, level + 1, (u32)path->slots[level + 1] + 1, right);
	free_extent_buffer(right);
	return 0;
}

/*
 * The leaf has no room for @key, and either holds one item (a large
 * checksum item cut in two) or @key goes past its last item: @key gets a
 * new leaf of its own, after the leaf (@slot > 0) or before it (@slot 0),
 * and the path points at its slot 0.
 * The caller inserts at once (fixing the low keys when the new leaf comes
 * first), so the empty leaf never outlives the insertion.
 */
static int split_leaf_alone(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			    struct btrfs_path *path, const struct btrfs_key *key, u32 slot)
{
	struct extent_buffer *right;
	int ret;

	if (!path->nodes[1]) {
		ret = insert_new_root(trans, root, path, 1);
		if (ret < 0)
			return ret;
	}
	ret = btrfs_alloc_tree_block(trans, root->id, 0, &right);
	if (ret < 0)
		return ret;
	if (slot)
		path->slots[1]++;
	insert_ptr_key(path, 1, (u32)path->slots[1], right, key);
	free_extent_buffer(path->nodes[0]);
	path->nodes[0] = right;
	path->slots[0] = 0;
	return 0;
}

static int split_leaf(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		      struct btrfs_path *path)
{
	struct extent_buffer *leaf = path->nodes[0];
	struct extent_buffer *right;
	u32 nr = btrfs_eb_nritems(leaf), mid, data_size = btrfs_leaf_data_size(leaf->len);
	u32 top, bottom, shift;
	int ret;

	if (nr < 2)
		return -EOVERFLOW;
	mid = nr / 2;
	if (!path->nodes[1]) {
		ret = insert_new_root(trans, root, path, 1);
		if (ret < 0)
			return ret;
	}
	ret = btrfs_alloc_tree_block(trans, root->id, 0, &right);
	if (ret < 0)
		return ret;
	top = btrfs_item_offset(leaf_item(leaf, mid - 1));	/* end of the moved data */
	bottom = btrfs_item_offset(leaf_item(leaf, nr - 1));
	shift = data_size - top;
	memcpy(eb_ptr(right, BTRFS_LEAF_DATA_OFFSET + bottom + shift),
	       eb_ptr(leaf, BTRFS_LEAF_DATA_OFFSET + bottom), top - bottom);
	memcpy(leaf_item(right, 0), leaf_item(leaf, mid), (nr - mid) * sizeof(struct btrfs_item));
	for (u32 i = 0; i < nr - mid; i++) {
		struct btrfs_item *it = leaf_item(right, i);

		btrfs_set_item_offset(it, btrfs_item_offset(it) + shift);
	}
	set_nritems(right, nr - mid);
	memset(eb_ptr(leaf, BTRFS_LEAF_DATA_OFFSET + bottom), 0, top - bottom);
	memset(leaf_item(leaf, mid), 0, (nr - mid) * sizeof(struct btrfs_item));
	set_nritems(leaf, mid);
	btrfs_mark_buffer_dirty(leaf);
	insert_ptr(path, 1, (u32)path->slots[1] + 1, right);
	free_extent_buffer(right);
	return 0;
}

/* Bytes that items [@from, @to) of @eb take, their headers included */
static u32 leaf_space_used(struct extent_buffer *eb, u32 from, u32 to)
{
	if (from >= to)
		return 0;
	return leaf_data_end_before(eb, from) - leaf_data_end_before(eb, to) +
	       (to - from) * (u32)sizeof(struct btrfs_item);
}

/*
 * Lay the items of the adjacent leaves @left and @right out again: the
 * first @k of them all in @left, the rest in @right.  Both are writable
 * and the caller has checked that the items fit.
 */
static int leaves_relayout(struct extent_buffer *left, struct extent_buffer *right, u32 k)
{
	u32 nl = btrfs_eb_nritems(left), total = nl + btrfs_eb_nritems(right);
	u32 len = left->len, hdr = (u32)sizeof(struct btrfs_header);
	u8 *tmp = calloc(2, len);
	int ret = 0;

	if (!tmp)
		return -ENOMEM;
	for (u32 i = 0; i < total && !ret; i++) {
		struct extent_buffer *src = i < nl ? left : right;
		u32 at = i < nl ? i : i - nl;
		struct btrfs_key key;

		btrfs_eb_item_key(src, at, &key);
		ret = btrfs_leaf_append(i < k ? tmp : tmp + len, len, &key,
					btrfs_eb_item_data(src, at), btrfs_eb_item_size(src, at));
	}
	if (!ret) {
		memcpy(left->data + hdr, tmp + hdr, len - hdr);
		memcpy(right->data + hdr, tmp + len + hdr, len - hdr);
		set_nritems(left, k);
		set_nritems(right, total - k);
		btrfs_mark_buffer_dirty(left);
		btrfs_mark_buffer_dirty(right);
	}
	free(tmp);
	return ret;
}

/*
 * The sibling at @sslot of the leaf's parent takes items: make it writable,
 * move them (@k: how many stay in the left one of the two) and rewrite the
 * key of the right one in the parent.
 */
static int push_into(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		     struct btrfs_path *path, struct extent_buffer *sib, u32 sslot, bool right,
		     u32 k)
{
	struct extent_buffer *parent = path->nodes[1], *cow;
	struct btrfs_key key;
	int ret;

	ret = cow_block(trans, root, sib, parent, sslot, &cow);
	if (ret < 0)
		return ret;
	ret = right ? leaves_relayout(path->nodes[0], cow, k) :
		      leaves_relayout(cow, path->nodes[0], btrfs_eb_nritems(cow) + k);
	if (!ret) {
		btrfs_eb_first_key(right ? cow : path->nodes[0], &key);
		btrfs_set_key_ptr_key(node_ptr(parent, right ? sslot : sslot + 1), &key);
		btrfs_mark_buffer_dirty(parent);
	}
	free_extent_buffer(cow);
	return ret;
}

/*
 * Make room for @ins_len bytes at path->slots[0] of the full leaf by moving
 * items into a sibling under the same parent, as the kernel's
 * push_leaf_right() and push_leaf_left() do: items after the slot to the
 * right sibling, or items before it to the left one, so that the key stays
 * in this leaf.  A sibling is copied only when items move into it.
 * Returns 0 when items moved (the caller searches again), 1 when neither
 * sibling takes enough, or a negative errno.
 */
static int push_leaf(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		     struct btrfs_path *path, u32 ins_len)
{
	struct extent_buffer *leaf = path->nodes[0], *parent = path->nodes[1], *sib;
	u32 nr = btrfs_eb_nritems(leaf), slot = (u32)path->slots[0], room = leaf_free_space(leaf);
	u32 pslot, j, sfree;
	int ret;

	if (!parent)
		return 1;
	pslot = (u32)path->slots[1];
	if (pslot + 1 < btrfs_eb_nritems(parent) && slot < nr) {
		ret = read_child(trans, root, parent, 1, pslot + 1, &sib);
		if (ret < 0)
			return ret;
		sfree = leaf_free_space(sib);
		/* items [j, nr) move; j >= slot, and one item at least stays */
		for (j = nr; j > (slot > 1 ? slot : 1) &&
			     leaf_space_used(leaf, j - 1, nr) <= sfree; j--)
			;
		if (j < nr && room + leaf_space_used(leaf, j, nr) >= ins_len) {
			ret = push_into(trans, root, path, sib, pslot + 1, true, j);
			free_extent_buffer(sib);
			return ret < 0 ? ret : 0;
		}
		free_extent_buffer(sib);
	}
	if (pslot > 0 && slot > 1) {
		ret = read_child(trans, root, parent, 1, pslot - 1, &sib);
		if (ret < 0)
			return ret;
		sfree = leaf_free_space(sib);
		/* items [0, j) move; j < slot */
		for (j = 0; j + 1 < slot && leaf_space_used(leaf, 0, j + 1) <= sfree; j++)
			;
		if (j > 0 && room + leaf_space_used(leaf, 0, j) >= ins_len) {
			ret = push_into(trans, root, path, sib, pslot - 1, false, j);
			free_extent_buffer(sib);
			return ret < 0 ? ret : 0;
		}
		free_extent_buffer(sib);
	}
	return 1;
}

int btrfs_search_cow(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		     const struct btrfs_key *key, struct btrfs_path *path, int ins_len)
{
	int restarts = 0;
	int level, ret;

again:
	btrfs_path_release(path);
	if (++restarts > 2 * BTRFS_MAX_LEVEL + 4)
		return -EOVERFLOW;
	if (!root->node)
		return -ENOENT;
	{
		struct extent_buffer *old = extent_buffer_get(root->node);
		struct extent_buffer *top;

		ret = cow_block(trans, root, old, NULL, 0, &top);
		free_extent_buffer(old);
		if (ret < 0)
			return ret;
		level = btrfs_eb_level(top);
		path->nodes[level] = top;
	}
	for (;;) {
		struct extent_buffer *eb = path->nodes[level];
		bool found;
		u32 slot;

		if (level > 0) {
			if (ins_len > 0 &&
			    btrfs_eb_nritems(eb) + 1 >= btrfs_nodeptrs_per_block(eb->len)) {
				ret = split_node(trans, root, path, level, key);
				if (ret < 0)
					goto fail;
				goto again;
			}
			slot = btrfs_eb_bin_search(eb, key, &found);
			if (!found && slot > 0)
				slot--;
			path->slots[level] = (int)slot;
			ret = cow_child(trans, root, path, level);
			if (ret < 0)
				goto fail;
			level--;
			continue;
		}
		slot = btrfs_eb_bin_search(eb, key, &found);
		path->slots[0] = (int)slot;
		if (ins_len > 0 && !found && leaf_free_space(eb) < (u32)ins_len) {
			/*
			 * First the siblings take items, if they have room.
			 * Else, past the last item (an append, when
			 * inserting in key order) the item starts a new
			 * leaf and this one stays full, as the kernel
			 * splits at the slot; elsewhere the leaf splits in
			 * the middle.
			 */
			ret = push_leaf(trans, root, path, (u32)ins_len);
			if (ret < 0)
				goto fail;
			if (ret == 0)
				goto again;
			if (btrfs_eb_nritems(eb) == 1 || slot == btrfs_eb_nritems(eb)) {
				ret = split_leaf_alone(trans, root, path, key, slot);
				if (ret < 0)
					goto fail;
				return 1;
			}
			ret = split_leaf(trans, root, path);
			if (ret < 0)
				goto fail;
			goto again;
		}
		return found ? 0 : 1;
	}
fail:
	btrfs_path_release(path);
	return ret;
}

int btrfs_insert_empty_item(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			    struct btrfs_path *path, const struct btrfs_key *key, u32 size)
{
	struct extent_buffer *leaf;
	u32 slot, nr, end, data_end;
	struct btrfs_item *it;
	int ret;

	if (size > btrfs_max_item_size(trans->fs->nodesize))
		return -EOVERFLOW;
	ret = btrfs_search_cow(trans, root, key, path, (int)(size + sizeof(struct btrfs_item)));
	if (ret <= 0) {
		btrfs_path_release(path);
		return ret == 0 ? -EEXIST : ret;
	}
	leaf = path->nodes[0];
	slot = (u32)path->slots[0];
	nr = btrfs_eb_nritems(leaf);
	end = leaf_data_end_before(leaf, slot);
	data_end = leaf_data_end_before(leaf, nr);
	if (slot < nr) {
		memmove(eb_ptr(leaf, BTRFS_LEAF_DATA_OFFSET + data_end - size),
			eb_ptr(leaf, BTRFS_LEAF_DATA_OFFSET + data_end), end - data_end);
		for (u32 i = slot; i < nr; i++) {
			it = leaf_item(leaf, i);
			btrfs_set_item_offset(it, btrfs_item_offset(it) - size);
		}
		memmove(leaf_item(leaf, slot + 1), leaf_item(leaf, slot),
			(nr - slot) * sizeof(struct btrfs_item));
	}
	it = leaf_item(leaf, slot);
	btrfs_set_item_key(it, key);
	btrfs_set_item_offset(it, end - size);
	btrfs_set_item_size(it, size);
	memset(eb_ptr(leaf, BTRFS_LEAF_DATA_OFFSET + end - size), 0, size);
	set_nritems(leaf, nr + 1);
	btrfs_mark_buffer_dirty(leaf);
	if (slot == 0)
		fixup_low_keys(path, 1, key);
	return 0;
}

int btrfs_insert_item(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		      const struct btrfs_key *key, const void *data, u32 size)
{
	struct btrfs_path path;
	u32 len;
	int ret;

	btrfs_path_init(&path);
	ret = btrfs_insert_empty_item(trans, root, &path, key, size);
	if (ret < 0)
		return ret;
	if (size)
		memcpy(btrfs_path_item_ptr(&path, &len), data, size);
	btrfs_path_release(&path);
	return 0;
}

u8 *btrfs_path_item_ptr(struct btrfs_path *path, u32 *len)
{
	struct extent_buffer *leaf = path->nodes[0];
	struct btrfs_item *it = leaf_item(leaf, (u32)path->slots[0]);

	if (len)
		*len = btrfs_item_size(it);
	btrfs_mark_buffer_dirty(leaf);
	return eb_ptr(leaf, BTRFS_LEAF_DATA_OFFSET + btrfs_item_offset(it));
}

int btrfs_leaf_append(u8 *buf, u32 len, const struct btrfs_key *key, const void *data, u32 size)
{
	struct btrfs_header *h = (struct btrfs_header *)buf;
	u32 nr = btrfs_header_nritems(h);
	struct btrfs_item *items = (struct btrfs_item *)(buf + BTRFS_LEAF_DATA_OFFSET);
	u32 end = nr ? btrfs_item_offset(&items[nr - 1]) : btrfs_leaf_data_size(len);
	u32 hdrs = (nr + 1) * (u32)sizeof(struct btrfs_item);

	if (end < hdrs || end - hdrs < size)
		return -EOVERFLOW;
	btrfs_set_item_key(&items[nr], key);
	btrfs_set_item_offset(&items[nr], end - size);
	btrfs_set_item_size(&items[nr], size);
	if (size)
		memcpy(buf + BTRFS_LEAF_DATA_OFFSET + end - size, data, size);
	btrfs_set_header_nritems(h, nr + 1);
	return 0;
}

/* Remove pointer @slot from path->nodes[level]; an emptied block goes away */
static int del_ptr(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		   struct btrfs_path *path, int level, u32 slot)
{
	struct extent_buffer *node = path->nodes[level];
	u32 nr = btrfs_eb_nritems(node);
	struct btrfs_key key;

	if (nr == 1) {
		if (!path->nodes[level + 1]) {
			btrfs_fs_set_error(trans->fs, "tree %llu: deleting its last block is not supported",
					   (unsigned long long)root->id);
			return -EOPNOTSUPP;
		}
		return btrfs_free_tree_block(trans, root->id, node) ?:
			del_ptr(trans, root, path, level + 1, (u32)path->slots[level + 1]);
	}
	memmove(node_ptr(node, slot), node_ptr(node, slot + 1),
		(nr - slot - 1) * sizeof(struct btrfs_key_ptr));
	memset(node_ptr(node, nr - 1), 0, sizeof(struct btrfs_key_ptr));
	set_nritems(node, nr - 1);
	btrfs_mark_buffer_dirty(node);
	if (slot == 0) {
		btrfs_eb_node_key(node, 0, &key);
		fixup_low_keys(path, level + 1, &key);
	}
	return 0;
}

/* Is the leaf of @path the only block below every node above it? */
static bool last_leaf(const struct btrfs_path *path)
{
	for (int l = 1; l < BTRFS_MAX_LEVEL && path->nodes[l]; l++) {
		if (btrfs_eb_nritems(path->nodes[l]) != 1)
			return false;
	}
	return true;
}

/* Free the single-pointer nodes above the leaf; the leaf becomes @root's root */
static int collapse_to_leaf(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			    struct btrfs_path *path)
{
	struct extent_buffer *leaf = path->nodes[0];
	int ret;

	ret = btrfs_trans_track_root(trans, root, true);
	for (int l = 1; !ret && l < BTRFS_MAX_LEVEL && path->nodes[l]; l++) {
		ret = btrfs_free_tree_block(trans, root->id, path->nodes[l]);
		free_extent_buffer(path->nodes[l]);
		path->nodes[l] = NULL;
	}
	if (ret < 0)
		return ret;
	free_extent_buffer(root->node);
	root->node = extent_buffer_get(leaf);
	root->bytenr = leaf->start;
	root->generation = trans->transid;
	root->level = 0;
	return 0;
}

int btrfs_del_item(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		   struct btrfs_path *path)
{
	struct extent_buffer *leaf = path->nodes[0];
	u32 slot = (u32)path->slots[0];
	u32 nr = btrfs_eb_nritems(leaf);
	u32 size = btrfs_item_size(leaf_item(leaf, slot));
	u32 end = btrfs_item_offset(leaf_item(leaf, slot));
	u32 data_end = leaf_data_end_before(leaf, nr);
	struct btrfs_key key;
	int ret = 0;

	if (nr == 1 && path->nodes[1] && last_leaf(path)) {
		/* the tree's last item: its leaf becomes the (empty) root */
		ret = collapse_to_leaf(trans, root, path);
		if (ret < 0) {
			btrfs_path_release(path);
			return ret;
		}
	}
	if (nr == 1 && path->nodes[1]) {
		ret = btrfs_free_tree_block(trans, root->id, leaf);
		if (!ret)
			ret = del_ptr(trans, root, path, 1, (u32)path->slots[1]);
		btrfs_path_release(path);
		return ret;
	}
	/* data of the items after @slot moves up by @size */
	memmove(eb_ptr(leaf, BTRFS_LEAF_DATA_OFFSET + data_end + size),
		eb_ptr(leaf, BTRFS_LEAF_DATA_OFFSET + data_end), end - data_end);
	memset(eb_ptr(leaf, BTRFS_LEAF_DATA_OFFSET + data_end), 0, size);
	for (u32 i = slot + 1; i < nr; i++) {
		struct btrfs_item *it = leaf_item(leaf, i);

		btrfs_set_item_offset(it, btrfs_item_offset(it) + size);
	}
	memmove(leaf_item(leaf, slot), leaf_item(leaf, slot + 1),
		(nr - slot - 1) * sizeof(struct btrfs_item));
	memset(leaf_item(leaf, nr - 1), 0, sizeof(struct btrfs_item));
	set_nritems(leaf, nr - 1);
	btrfs_mark_buffer_dirty(leaf);
	if (slot == 0 && nr > 1 && path->nodes[1]) {
		btrfs_eb_item_key(leaf, 0, &key);
		fixup_low_keys(path, 1, &key);
	}
	btrfs_path_release(path);
	return ret;
}

int btrfs_delete_key(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		     const struct btrfs_key *key)
{
	struct btrfs_path path;
	int ret;

	btrfs_path_init(&path);
	ret = btrfs_search_cow(trans, root, key, &path, -1);
	if (ret) {
		btrfs_path_release(&path);
		return ret < 0 ? ret : -ENOENT;
	}
	return btrfs_del_item(trans, root, &path);
}

int btrfs_update_item(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		      const struct btrfs_key *key, const void *data, u32 size)
{
	struct btrfs_path path;
	u32 len;
	u8 *p;
	int ret;

	btrfs_path_init(&path);
	ret = btrfs_search_cow(trans, root, key, &path, 0);
	if (ret) {
		btrfs_path_release(&path);
		return ret < 0 ? ret : -ENOENT;
	}
	p = btrfs_path_item_ptr(&path, &len);
	if (len != size) {
		btrfs_path_release(&path);
		btrfs_fs_set_error(trans->fs, "tree %llu: item (%llu %u %llu) has size %u, expected %u",
				   (unsigned long long)root->id, (unsigned long long)key->objectid,
				   key->type, (unsigned long long)key->offset, len, size);
		return -EUCLEAN;
	}
	memcpy(p, data, size);
	btrfs_path_release(&path);
	return 0;
}
