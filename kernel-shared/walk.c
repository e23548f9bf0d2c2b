// SPDX-License-Identifier: GPL-2.0-only
/*
 * Full tree walks (see walk.h).
 *
 * Depth-first, parents before children, children in key order.  The
 * recursion depth is bounded by the root level (< 8) because each child
 * must have exactly its parent's level minus one.  Each child must start
 * with its pointer key and end below the next pointer key, so in a valid
 * tree every block is reached once; the optional visited set skips blocks
 * shared between trees (snapshots) after their first visit.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ctree.h"
#include "fs.h"
#include "u64map.h"
#include "walk.h"

struct walk_ctx {
	struct btrfs_root *root;
	btrfs_walk_cb cb;
	void *priv;
	struct btrfs_u64map *visited;
};

static int walk_block(struct walk_ctx *w, struct extent_buffer *eb,
		      const struct btrfs_walk_info *info, const struct btrfs_key *bound)
{
	u32 nritems = btrfs_eb_nritems(eb);
	u8 level = btrfs_eb_level(eb);
	int ret;

	if (w->visited) {
		ret = btrfs_u64map_insert(w->visited, eb->start, 0, NULL);
		if (ret)
			return ret < 0 ? ret : 0;
	}
	ret = w->cb(w->priv, eb, info);
	if (ret)
		return ret < 0 ? ret : 0;
	if (!level)
		return 0;
	/* ask for all children at once: their reads overlap instead of queueing */
	{
		u64 ptrs[BTRFS_MAX_METADATA_BLOCKSIZE / sizeof(struct btrfs_key_ptr)];

		for (u32 slot = 0; slot < nritems; slot++)
			ptrs[slot] = btrfs_eb_node_blockptr(eb, slot);
		btrfs_readahead_tree_blocks(w->root->fs, ptrs, nritems);
	}
	for (u32 slot = 0; slot < nritems; slot++) {
		struct btrfs_tree_parent_check check = {
			.transid = btrfs_eb_node_ptr_generation(eb, slot),
			.owner_root = w->root->id,
			.has_level = true,
			.level = (u8)(level - 1),
			.has_first_key = true,
		};
		struct btrfs_walk_info ci = {
			.tree_id = info->tree_id,
			.parent = eb->start,
			.slot = (int)slot,
			.depth = (u8)(info->depth + 1),
		};
		struct btrfs_key cbound, last;
		const struct btrfs_key *pbound = bound;
		struct extent_buffer *child;
		u32 cnr;

		btrfs_eb_node_key(eb, slot, &check.first_key);
		if (slot + 1 < nritems) {
			btrfs_eb_node_key(eb, slot + 1, &cbound);
			pbound = &cbound;
		}
		ret = btrfs_read_tree_block(w->root->fs, btrfs_eb_node_blockptr(eb, slot), &check,
					    &child);
		if (ret < 0)
			return ret;
		cnr = btrfs_eb_nritems(child);
		if (pbound && cnr) {
			if (btrfs_eb_level(child))
				btrfs_eb_node_key(child, cnr - 1, &last);
			else
				btrfs_eb_item_key(child, cnr - 1, &last);
			if (btrfs_key_cmp(&last, pbound) >= 0) {
				btrfs_fs_set_error(w->root->fs, "tree block %llu: key (%llu %u %llu) beyond its parent's range",
						   (unsigned long long)child->start,
						   (unsigned long long)last.objectid, last.type,
						   (unsigned long long)last.offset);
				free_extent_buffer(child);
				return -EUCLEAN;
			}
		}
		ret = walk_block(w, child, &ci, pbound);
		free_extent_buffer(child);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int walk_tree(struct btrfs_root *root, btrfs_walk_cb cb, void *priv,
		     struct btrfs_u64map *visited)
{
	struct walk_ctx w = { root, cb, priv, visited };
	struct btrfs_walk_info info = {
		.tree_id = root->id,
		.parent = 0,
		.slot = -1,
		.depth = 0,
	};

	int ret = btrfs_root_load_node(root);

	if (ret < 0)
		return ret;
	return walk_block(&w, root->node, &info, NULL);
}

int btrfs_walk_tree(struct btrfs_root *root, btrfs_walk_cb cb, void *priv)
{
	return walk_tree(root, cb, priv, NULL);
}

struct id_list {
	u64 *ids;
	size_t nr, alloc;
};

static int collect_root_id(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct id_list *l = priv;

	if (key->type != BTRFS_ROOT_ITEM_KEY)
		return 0;
	if (l->nr && l->ids[l->nr - 1] == key->objectid)
		return 0;
	/* half freed (even its root block may be gone): nothing to walk */
	if (len >= BTRFS_ROOT_ITEM_LEGACY_SIZE && btrfs_root_item_drop_in_progress(data))
		return 0;
	if (l->nr == l->alloc) {
		size_t n = l->alloc ? l->alloc * 2 : 32;
		u64 *p = realloc(l->ids, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		l->ids = p;
		l->alloc = n;
	}
	l->ids[l->nr++] = key->objectid;
	return 0;
}

int btrfs_walk_all_trees(struct btrfs_fs *fs, bool skip_shared, btrfs_walk_cb cb, void *priv)
{
	struct btrfs_key min = { 0, BTRFS_ROOT_ITEM_KEY, 0 };
	struct btrfs_key max = { (u64)-1, BTRFS_ROOT_ITEM_KEY, (u64)-1 };
	struct btrfs_u64map visited = { 0 };
	struct id_list ids = { 0 };
	struct btrfs_u64map *vp = skip_shared ? &visited : NULL;
	int ret;

	ret = walk_tree(fs->chunk_root, cb, priv, vp);
	if (ret < 0)
		goto out;
	ret = walk_tree(fs->tree_root, cb, priv, vp);
	if (ret < 0)
		goto out;
	ret = btrfs_iterate_items(fs->tree_root, &min, &max, collect_root_id, &ids);
	if (ret < 0)
		goto out;
	for (size_t i = 0; i < ids.nr; i++) {
		struct btrfs_root *root;

		if (ids.ids[i] == BTRFS_ROOT_TREE_OBJECTID || ids.ids[i] == BTRFS_CHUNK_TREE_OBJECTID)
			continue;
		bool loaded = false;

		for (size_t r = 0; r < fs->nr_roots; r++)
			if (fs->roots[r]->id == ids.ids[i] && fs->roots[r]->node)
				loaded = true;
		ret = btrfs_read_root(fs, ids.ids[i], &root);
		if (ret < 0)
			goto out;
		ret = walk_tree(root, cb, priv, vp);
		/* thousands of snapshots must not pin thousands of root blocks */
		if (!loaded) {
			free_extent_buffer(root->node);
			root->node = NULL;
		}
		if (ret < 0)
			goto out;
	}
out:
	free(ids.ids);
	btrfs_u64map_release(&visited);
	return ret;
}
