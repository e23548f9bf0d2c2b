/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * B-tree access: roots, paths, search, iteration.
 *
 * A struct btrfs_root is one tree: its id, its ROOT_ITEM (or the superblock
 * fields for the root and chunk trees) and a reference to its root block.
 * A struct btrfs_path is the chain of referenced extent buffers from the
 * root down to a leaf with the slot taken in each, exactly what a
 * copy-on-write search needs to rewrite along the way.  This is the reader:
 * btrfs_search_slot() keeps the kernel's arguments (transaction handle,
 * insert length, cow flag) but never changes a tree, and refuses them with
 * -EROFS; the writer searches with btrfs_search_cow() (ctree-write.h).
 *
 * Every descent checks the child against its parent pointer (generation,
 * level, first key) and that the child's keys stay below the parent's next
 * key, so each key range is owned by one block and no walk can loop.
 *
 * Iterators return 0 for an item, 1 at the end, <0 on error.
 */
#ifndef VOLCTL_KERNEL_SHARED_CTREE_H
#define VOLCTL_KERNEL_SHARED_CTREE_H

#include <stdbool.h>
#include "format.h"
#include "extent-buffer.h"
#include "itemsrc.h"

struct btrfs_fs;
struct btrfs_trans_handle;	/* the writer's transaction, defined later */

struct btrfs_root {
	struct btrfs_fs *fs;
	u64 id;				/* tree id (objectid of its ROOT_ITEM) */
	struct btrfs_key root_key;	/* key of its ROOT_ITEM; (id, 132, 0) for 1 and 3 */
	u64 bytenr;			/* root block */
	u64 generation;			/* expected generation of the root block */
	u8 level;
	bool has_item;			/* root_item holds the ROOT_ITEM bytes */
	u32 item_size;			/* on-disk size (239 legacy or 439) */
	struct btrfs_root_item root_item;	/* zero-padded copy */
	struct extent_buffer *node;	/* referenced root block, NULL when unloaded */
};

struct btrfs_path {
	struct extent_buffer *nodes[BTRFS_MAX_LEVEL];
	int slots[BTRFS_MAX_LEVEL];
	/* upper bound (exclusive) inherited from the parents, per level */
	struct btrfs_key bound[BTRFS_MAX_LEVEL];
	bool has_bound[BTRFS_MAX_LEVEL];
	u8 lowest_level;		/* stop the descent at this level */
};

/** btrfs_path_init - empty path (also after btrfs_path_release()) */
void btrfs_path_init(struct btrfs_path *path);

/** btrfs_path_release - drop every reference the path holds */
void btrfs_path_release(struct btrfs_path *path);

/**
 * btrfs_read_root - the tree with id @id
 *
 * 1 and 3 come from the superblock; every other id from its ROOT_ITEM
 * (id, ROOT_ITEM, any offset) in the root tree.  The root block is read and
 * verified.  The root belongs to @fs (do not free it) and stays valid until
 * btrfs_fs_close().
 * Return: 0, -ENOENT when the tree does not exist, or another negative errno.
 */
int btrfs_read_root(struct btrfs_fs *fs, u64 id, struct btrfs_root **out);

/**
 * btrfs_root_load_node - (re)load and verify @root->node if it is NULL
 *
 * A root may drop its node reference to bound memory (btrfs_walk_all_trees()
 * does for trees it loaded); searches and walks reload it on demand.
 */
int btrfs_root_load_node(struct btrfs_root *root);

/** btrfs_root_node_loaded - whether tree @id was read and still pins its root block */
bool btrfs_root_node_loaded(const struct btrfs_fs *fs, u64 id);

/**
 * btrfs_root_unload_node - drop @root's reference to its root block (only
 * for a clean tree: searches and walks reload it), so a pass over many trees
 * does not pin every root block
 */
void btrfs_root_unload_node(struct btrfs_root *root);

/**
 * btrfs_search_slot - find @key in @root, read-only
 * @trans:	must be NULL (a copy-on-write search is btrfs_search_cow())
 * @ins_len:	must be 0
 * @cow:	must be 0
 *
 * Return: 0 and the path at the item when found; 1 and the path at the slot
 * where @key would be inserted (which may be nritems of the leaf) when not;
 * -EROFS when asked to prepare a change; <0 on error (the path is released).
 */
int btrfs_search_slot(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		      const struct btrfs_key *key, struct btrfs_path *path, int ins_len, int cow);

/**
 * btrfs_next_leaf - move the path to the first item of the next leaf
 * Return: 0, 1 when there is no next leaf, <0.
 */
int btrfs_next_leaf(struct btrfs_root *root, struct btrfs_path *path);

/**
 * btrfs_next_item - next item in key order (across leaves); also normalises
 * a path left at slot == nritems by btrfs_search_slot()
 */
int btrfs_next_item(struct btrfs_root *root, struct btrfs_path *path);

/**
 * btrfs_valid_slot - make sure the path points at an item: if it is past the
 * end of its leaf, move to the next leaf.  0, 1 at the end, <0.
 */
int btrfs_valid_slot(struct btrfs_root *root, struct btrfs_path *path);

/** btrfs_prev_item - previous item in key order; 0, 1 at the start, <0 */
int btrfs_prev_item(struct btrfs_root *root, struct btrfs_path *path);

/* The item the path points at (slot must be < nritems of nodes[0]) */
void btrfs_path_item_key(const struct btrfs_path *path, struct btrfs_key *key);
const u8 *btrfs_path_item_data(const struct btrfs_path *path, u32 *len);

/**
 * btrfs_iterate_items - call @cb for each item with @min <= key <= @max
 * Return: 0 (also when @cb stopped with 1), or the first negative errno.
 */
int btrfs_iterate_items(struct btrfs_root *root, const struct btrfs_key *min,
			const struct btrfs_key *max, btrfs_item_cb cb, void *priv);

/** btrfs_iterate_items() with, for each item, *@leaf_owner set to its leaf's owner */
int btrfs_iterate_items_owner(struct btrfs_root *root, const struct btrfs_key *min,
			      const struct btrfs_key *max, btrfs_item_cb cb, void *priv,
			      u64 *leaf_owner);

/** btrfs_lookup_item - copy exactly @key's item; -ENOENT if absent */
int btrfs_lookup_item(struct btrfs_root *root, const struct btrfs_key *key, void *buf,
		      u32 buf_len, u32 *item_len);

/**
 * btrfs_fs_item_source - the reader as a struct btrfs_item_source
 *
 * search(tree_id, min, max) visits items of tree @tree_id in key order;
 * -ENOENT for a tree that does not exist.
 */
struct btrfs_item_source btrfs_fs_item_source(struct btrfs_fs *fs);

/**
 * btrfs_check_root_dir - subvolume tree @id holds the inode item of its root
 * directory (256): the kernel cannot open a subvolume without it, and does
 * not mount at all when tree 5 lacks it
 * Return: 0, -EUCLEAN with the tree named in fs->errmsg, or a read error.
 */
int btrfs_check_root_dir(struct btrfs_fs *fs, u64 id);

/**
 * btrfs_root_item_drop_in_progress - @item (at least the 239-byte legacy
 * part) describes a deleted subvolume whose tree is partly dropped (refs 0,
 * drop_progress or drop_level set): blocks behind the progress key, even
 * the root block, may already be freed and reused
 */
bool btrfs_root_item_drop_in_progress(const struct btrfs_root_item *item);

/** btrfs_free_roots - drop every root of @fs (btrfs_fs_close() does it) */
void btrfs_free_roots(struct btrfs_fs *fs);

#endif /* VOLCTL_KERNEL_SHARED_CTREE_H */
