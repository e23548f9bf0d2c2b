// SPDX-License-Identifier: GPL-2.0-only
/*
 * B-tree access: roots, paths, search and iteration (see ctree.h).
 *
 * Descent invariant: the block at path->nodes[l] was verified against the
 * pointer that led to it (generation, level, first key, owner) and all its
 * keys are below path->bound[l], the next key of its parent (inherited
 * from above for the last slot).  Together with strictly sorted keys in
 * each block this makes the keys seen by next/prev strictly monotonic, so
 * no iteration can revisit a block or loop on a crafted image.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fs.h"
#include "ctree.h"

void btrfs_path_init(struct btrfs_path *path)
{
	memset(path, 0, sizeof(*path));
}

void btrfs_path_release(struct btrfs_path *path)
{
	for (int i = 0; i < BTRFS_MAX_LEVEL; i++) {
		free_extent_buffer(path->nodes[i]);
		path->nodes[i] = NULL;
		path->slots[i] = 0;
		path->has_bound[i] = false;
	}
}

static void block_last_key(const struct extent_buffer *eb, struct btrfs_key *key)
{
	u32 last = btrfs_eb_nritems(eb) - 1;

	if (btrfs_eb_level(eb))
		btrfs_eb_node_key(eb, last, key);
	else
		btrfs_eb_item_key(eb, last, key);
}

/*
 * Read the child at path->slots[level] of path->nodes[level] into
 * path->nodes[level - 1] (dropping what was there) with its upper bound.
 */
static int read_child(struct btrfs_root *root, struct btrfs_path *path, int level)
{
	struct extent_buffer *parent = path->nodes[level];
	int slot = path->slots[level];
	struct btrfs_tree_parent_check check = {
		.transid = btrfs_eb_node_ptr_generation(parent, (u32)slot),
		.owner_root = root->id,
		.has_level = true,
		.level = (u8)(level - 1),
		.has_first_key = true,
	};
	struct extent_buffer *child;
	struct btrfs_key bound, last;
	bool has_bound;
	int ret;

	btrfs_eb_node_key(parent, (u32)slot, &check.first_key);
	if ((u32)slot + 1 < btrfs_eb_nritems(parent)) {
		btrfs_eb_node_key(parent, (u32)slot + 1, &bound);
		has_bound = true;
	} else {
		bound = path->bound[level];
		has_bound = path->has_bound[level];
	}
	ret = btrfs_read_tree_block(root->fs, btrfs_eb_node_blockptr(parent, (u32)slot), &check,
				    &child);
	if (ret < 0)
		return ret;
	if (has_bound) {
		block_last_key(child, &last);
		if (btrfs_key_cmp(&last, &bound) >= 0) {
			btrfs_fs_set_error(root->fs, "tree block %llu: key (%llu %u %llu) beyond its parent's range",
					   (unsigned long long)child->start,
					   (unsigned long long)last.objectid, last.type,
					   (unsigned long long)last.offset);
			free_extent_buffer(child);
			return -EUCLEAN;
		}
	}
	free_extent_buffer(path->nodes[level - 1]);
	path->nodes[level - 1] = child;
	path->bound[level - 1] = bound;
	path->has_bound[level - 1] = has_bound;
	return 0;
}

int btrfs_root_load_node(struct btrfs_root *root)
{
	struct btrfs_fs *fs = root->fs;
	struct btrfs_tree_parent_check check = {
		.transid = root->generation,
		.owner_root = root->id,
		.has_level = true,
		.level = root->level,
	};

	if (root->node)
		return 0;
	if (root->level >= BTRFS_MAX_LEVEL) {
		btrfs_fs_set_error(fs, "tree %llu: invalid root level %u",
				   (unsigned long long)root->id, root->level);
		return -EUCLEAN;
	}
	return btrfs_read_tree_block(fs, root->bytenr, &check, &root->node);
}

int btrfs_search_slot(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		      const struct btrfs_key *key, struct btrfs_path *path, int ins_len, int cow)
{
	int level;
	int ret;

	if (trans || cow || ins_len)
		return -EROFS;	/* the writer's search is btrfs_search_cow() (ctree-write.c) */
	btrfs_path_release(path);
	ret = btrfs_root_load_node(root);
	if (ret < 0)
		return ret;
	level = btrfs_eb_level(root->node);
	path->nodes[level] = extent_buffer_get(root->node);
	for (;;) {
		struct extent_buffer *eb = path->nodes[level];
		bool found;
		u32 slot = btrfs_eb_bin_search(eb, key, &found);

		if (level == 0) {
			path->slots[0] = (int)slot;
			return found ? 0 : 1;
		}
		if (!found && slot > 0)
			slot--;
		path->slots[level] = (int)slot;
		if (level <= path->lowest_level)
			return found ? 0 : 1;
		ret = read_child(root, path, level);
		if (ret < 0) {
			btrfs_path_release(path);
			return ret;
		}
		level--;
	}
}

int btrfs_next_leaf(struct btrfs_root *root, struct btrfs_path *path)
{
	int level;
	int ret;

	for (level = 1; level < BTRFS_MAX_LEVEL; level++) {
		if (!path->nodes[level])
			return 1;
		if ((u32)path->slots[level] + 1 < btrfs_eb_nritems(path->nodes[level]))
			break;
	}
	if (level == BTRFS_MAX_LEVEL)
		return 1;
	path->slots[level]++;
	for (; level > 0; level--) {
		ret = read_child(root, path, level);
		if (ret < 0)
			return ret;
		path->slots[level - 1] = 0;
	}
	return 0;
}

int btrfs_valid_slot(struct btrfs_root *root, struct btrfs_path *path)
{
	if (!path->nodes[0])
		return 1;
	if ((u32)path->slots[0] < btrfs_eb_nritems(path->nodes[0]))
		return 0;
	return btrfs_next_leaf(root, path);
}

int btrfs_next_item(struct btrfs_root *root, struct btrfs_path *path)
{
	if (!path->nodes[0])
		return 1;
	path->slots[0]++;
	return btrfs_valid_slot(root, path);
}

int btrfs_prev_item(struct btrfs_root *root, struct btrfs_path *path)
{
	int level;
	int ret;

	if (!path->nodes[0])
		return 1;
	if (path->slots[0] > 0) {
		u32 nr = btrfs_eb_nritems(path->nodes[0]);

		/* a path left past the end by a search steps back onto the last item */
		path->slots[0] = (u32)path->slots[0] > nr ? (int)nr - 1 : path->slots[0] - 1;
		return 0;
	}
	for (level = 1; level < BTRFS_MAX_LEVEL; level++) {
		if (!path->nodes[level])
			return 1;
		if (path->slots[level] > 0)
			break;
	}
	if (level == BTRFS_MAX_LEVEL)
		return 1;
	path->slots[level]--;
	for (; level > 0; level--) {
		ret = read_child(root, path, level);
		if (ret < 0)
			return ret;
		path->slots[level - 1] = (int)btrfs_eb_nritems(path->nodes[level - 1]) - 1;
	}
	return 0;
}

void btrfs_path_item_key(const struct btrfs_path *path, struct btrfs_key *key)
{
	btrfs_eb_item_key(path->nodes[0], (u32)path->slots[0], key);
}

const u8 *btrfs_path_item_data(const struct btrfs_path *path, u32 *len)
{
	if (len)
		*len = btrfs_eb_item_size(path->nodes[0], (u32)path->slots[0]);
	return btrfs_eb_item_data(path->nodes[0], (u32)path->slots[0]);
}

int btrfs_iterate_items(struct btrfs_root *root, const struct btrfs_key *min,
			const struct btrfs_key *max, btrfs_item_cb cb, void *priv)
{
	return btrfs_iterate_items_owner(root, min, max, cb, priv, NULL);
}

int btrfs_iterate_items_owner(struct btrfs_root *root, const struct btrfs_key *min,
			      const struct btrfs_key *max, btrfs_item_cb cb, void *priv,
			      u64 *leaf_owner)
{
	struct btrfs_path path;
	int ret;

	btrfs_path_init(&path);
	ret = btrfs_search_slot(NULL, root, min, &path, 0, 0);
	if (ret < 0)
		return ret;
	for (;;) {
		struct btrfs_key key;
		const u8 *data;
		u32 len;

		ret = btrfs_valid_slot(root, &path);
		if (ret)
			break;
		btrfs_path_item_key(&path, &key);
		if (btrfs_key_cmp(&key, max) > 0)
			break;
		data = btrfs_path_item_data(&path, &len);
		if (leaf_owner)
			*leaf_owner = btrfs_eb_owner(path.nodes[0]);
		ret = cb(priv, &key, data, len);
		if (ret)
			break;
		path.slots[0]++;
	}
	btrfs_path_release(&path);
	return ret < 0 ? ret : 0;
}

int btrfs_lookup_item(struct btrfs_root *root, const struct btrfs_key *key, void *buf,
		      u32 buf_len, u32 *item_len)
{
	struct btrfs_path path;
	const u8 *data;
	u32 len;
	int ret;

	btrfs_path_init(&path);
	ret = btrfs_search_slot(NULL, root, key, &path, 0, 0);
	if (ret) {
		btrfs_path_release(&path);
		return ret < 0 ? ret : -ENOENT;
	}
	data = btrfs_path_item_data(&path, &len);
	memcpy(buf, data, len < buf_len ? len : buf_len);
	if (item_len)
		*item_len = len;
	btrfs_path_release(&path);
	return 0;
}

/* ROOT_ITEM of tree @id: the first (id, ROOT_ITEM, *) item in the root tree */
static int find_root_item(struct btrfs_fs *fs, u64 id, struct btrfs_root *root)
{
	struct btrfs_key key = { id, BTRFS_ROOT_ITEM_KEY, 0 };
	struct btrfs_path path;
	const u8 *data;
	u32 len;
	int ret;

	btrfs_path_init(&path);
	ret = btrfs_search_slot(NULL, fs->tree_root, &key, &path, 0, 0);
	if (ret < 0)
		return ret;
	ret = btrfs_valid_slot(fs->tree_root, &path);
	if (ret) {
		btrfs_path_release(&path);
		return ret < 0 ? ret : -ENOENT;
	}
	btrfs_path_item_key(&path, &key);
	if (key.objectid != id || key.type != BTRFS_ROOT_ITEM_KEY) {
		btrfs_path_release(&path);
		return -ENOENT;
	}
	data = btrfs_path_item_data(&path, &len);
	root->root_key = key;
	root->has_item = true;
	root->item_size = len;
	memcpy(&root->root_item, data, len < sizeof(root->root_item) ? len : sizeof(root->root_item));
	btrfs_path_release(&path);
	root->bytenr = btrfs_root_bytenr(&root->root_item);
	root->generation = btrfs_root_generation(&root->root_item);
	root->level = btrfs_root_level(&root->root_item);
	if (!root->generation) {
		btrfs_fs_set_error(fs, "tree %llu: root item generation is 0", (unsigned long long)id);
		return -EUCLEAN;
	}
	return 0;
}

static int roots_add(struct btrfs_fs *fs, struct btrfs_root *root)
{
	struct btrfs_root **p = realloc(fs->roots, (fs->nr_roots + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	fs->roots = p;
	fs->roots[fs->nr_roots++] = root;
	return 0;
}

int btrfs_read_root(struct btrfs_fs *fs, u64 id, struct btrfs_root **out)
{
	struct btrfs_root *root;
	int ret;

	*out = NULL;
	for (size_t i = 0; i < fs->nr_roots; i++) {
		if (fs->roots[i]->id == id) {
			/* its node may have been dropped by a walk: reload it */
			ret = btrfs_root_load_node(fs->roots[i]);
			if (ret < 0)
				return ret;
			*out = fs->roots[i];
			return 0;
		}
	}
	if (id != BTRFS_ROOT_TREE_OBJECTID && id != BTRFS_CHUNK_TREE_OBJECTID && !fs->tree_root)
		return -ENOENT;
	root = calloc(1, sizeof(*root));
	if (!root)
		return -ENOMEM;
	root->fs = fs;
	root->id = id;
	root->root_key.objectid = id;
	root->root_key.type = BTRFS_ROOT_ITEM_KEY;
	if (id == BTRFS_ROOT_TREE_OBJECTID) {
		root->bytenr = btrfs_super_root(&fs->super);
		root->generation = btrfs_super_generation(&fs->super);
		root->level = btrfs_super_root_level(&fs->super);
	} else if (id == BTRFS_CHUNK_TREE_OBJECTID) {
		root->bytenr = btrfs_super_chunk_root(&fs->super);
		root->generation = btrfs_super_chunk_root_generation(&fs->super);
		root->level = btrfs_super_chunk_root_level(&fs->super);
	} else {
		ret = find_root_item(fs, id, root);
		if (ret < 0)
			goto fail;
	}
	ret = btrfs_root_load_node(root);
	if (ret < 0) {
		btrfs_fs_set_error_once(fs, "tree %llu: cannot read root block %llu",
					(unsigned long long)id, (unsigned long long)root->bytenr);
		goto fail;
	}
	ret = roots_add(fs, root);
	if (ret < 0)
		goto fail;
	if (id == BTRFS_ROOT_TREE_OBJECTID)
		fs->tree_root = root;
	else if (id == BTRFS_CHUNK_TREE_OBJECTID)
		fs->chunk_root = root;
	*out = root;
	return 0;
fail:
	free_extent_buffer(root->node);
	free(root);
	return ret;
}

bool btrfs_root_node_loaded(const struct btrfs_fs *fs, u64 id)
{
	for (size_t i = 0; i < fs->nr_roots; i++)
		if (fs->roots[i]->id == id)
			return fs->roots[i]->node != NULL;
	return false;
}

void btrfs_root_unload_node(struct btrfs_root *root)
{
	free_extent_buffer(root->node);
	root->node = NULL;
}

int btrfs_check_root_dir(struct btrfs_fs *fs, u64 id)
{
	struct btrfs_key key = { BTRFS_FIRST_FREE_OBJECTID, BTRFS_INODE_ITEM_KEY, 0 };
	bool loaded = btrfs_root_node_loaded(fs, id);
	struct btrfs_root *root;
	u8 byte;
	int ret;

	ret = btrfs_read_root(fs, id, &root);
	if (ret == -ENOENT)
		btrfs_fs_set_obj_error_once(fs, BTRFS_ERR_OBJ_SUBVOL,
					    "subvolume %llu: no tree (ROOT_ITEM missing)",
					    (unsigned long long)id);
	if (ret < 0)
		return ret == -ENOENT ? -EUCLEAN : ret;
	ret = btrfs_lookup_item(root, &key, &byte, sizeof(byte), NULL);
	if (!loaded)
		btrfs_root_unload_node(root);
	if (ret == -ENOENT) {
		btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_SUBVOL,
				       "subvolume %llu: no inode item for its root directory "
				       "(inode %llu)", (unsigned long long)id,
				       (unsigned long long)BTRFS_FIRST_FREE_OBJECTID);
		return -EUCLEAN;
	}
	return ret;
}

bool btrfs_root_item_drop_in_progress(const struct btrfs_root_item *item)
{
	struct btrfs_key progress;

	if (btrfs_root_refs(item))
		return false;
	btrfs_root_drop_progress(item, &progress);
	return progress.objectid != 0 || btrfs_root_drop_level(item) != 0;
}

void btrfs_free_roots(struct btrfs_fs *fs)
{
	for (size_t i = 0; i < fs->nr_roots; i++) {
		free_extent_buffer(fs->roots[i]->node);
		free(fs->roots[i]);
	}
	free(fs->roots);
	fs->roots = NULL;
	fs->nr_roots = 0;
	fs->tree_root = fs->chunk_root = NULL;
}

static int item_source_search(void *src_priv, u64 tree_id, const struct btrfs_key *min,
			      const struct btrfs_key *max, btrfs_item_cb cb, void *priv)
{
	struct btrfs_fs *fs = src_priv;
	struct btrfs_root *root;
	int ret;

	ret = btrfs_read_root(fs, tree_id, &root);
	if (ret < 0)
		return ret;
	return btrfs_iterate_items(root, min, max, cb, priv);
}

struct btrfs_item_source btrfs_fs_item_source(struct btrfs_fs *fs)
{
	struct btrfs_item_source src = {
		.search = item_source_search,
		.src_priv = fs,
	};

	return src;
}
