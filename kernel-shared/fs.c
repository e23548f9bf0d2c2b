// SPDX-License-Identifier: GPL-2.0-only
/*
 * Opening and closing an unmounted filesystem (see fs.h).
 *
 * Order: superblock of every device -> one filesystem, one generation ->
 * feature check -> devices from the dev_items -> chunk map from
 * sys_chunk_array -> chunk tree root -> the rest of the chunk map and the
 * DEV_ITEMs (superblock total_bytes against them) -> root tree root ->
 * every DEV_EXTENT against the chunk map -> the root directory inode of
 * tree 5: the kernel's mount-time checks, so an image it refuses to mount
 * is refused by every command.  Opened for writing, the member checks of
 * members.c come after the superblocks and after the chunk tree.  Each
 * step validates what it reads; any failure frees everything and reports
 * the reason in args->errmsg.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "csum.h"
#include "ctree.h"
#include "fs.h"
#include "members.h"

/* Read every device's superblock, keep the newest, check they agree */
static int open_supers(struct btrfs_fs *fs, const struct btrfs_open_args *args)
{
	struct btrfs_super_block *sbs;
	size_t best = 0;
	int ret = 0;

	sbs = calloc(args->nr_devs, sizeof(*sbs));
	if (!sbs)
		return -ENOMEM;
	for (size_t i = 0; i < args->nr_devs; i++) {
		if (args->supers && args->supers[i]) {
			memcpy(&sbs[i], args->supers[i], sizeof(sbs[i]));
		} else {
			ret = btrfs_super_read(args->devs[i], args->super_mirror, &sbs[i],
					       fs->errmsg);
			if (ret < 0) {
				fs->errobj = BTRFS_ERR_OBJ_DEVICE;	/* its messages name it */
				goto out;
			}
		}
		if (memcmp(btrfs_super_fsid(&sbs[i]), btrfs_super_fsid(&sbs[0]), BTRFS_FSID_SIZE)) {
			btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_DEVICE,
					       "%s: belongs to another filesystem than %s",
					   args->devs[i]->name, args->devs[0]->name);
			ret = -EINVAL;
			goto out;
		}
		if (btrfs_super_generation(&sbs[i]) > btrfs_super_generation(&sbs[best]))
			best = i;
	}
	memcpy(&fs->super, &sbs[best], sizeof(fs->super));
	for (size_t i = 0; i < args->nr_devs; i++) {
		const struct btrfs_dev_item *di = btrfs_super_dev_item(&sbs[i]);
		struct btrfs_device *dev;

		if (btrfs_device_find(fs, btrfs_dev_item_devid(di), NULL)) {
			btrfs_fs_set_obj_error(fs, BTRFS_ERR_OBJ_DEVICE, "%s: device id %llu given twice",
					       args->devs[i]->name,
					   (unsigned long long)btrfs_dev_item_devid(di));
			ret = -EINVAL;
			goto out;
		}
		dev = btrfs_device_add(fs, btrfs_dev_item_devid(di), btrfs_dev_item_uuid(di),
				       args->devs[i]);
		if (!dev) {
			ret = -ENOMEM;
			goto out;
		}
		memcpy(&dev->sb_item, di, sizeof(*di));
		dev->sb_generation = btrfs_super_generation(&sbs[i]);
		dev->sb_num_devices = btrfs_super_num_devices(&sbs[i]);
	}
out:
	free(sbs);
	return ret;
}

static void init_from_super(struct btrfs_fs *fs)
{
	const struct btrfs_super_block *sb = &fs->super;

	fs->nodesize = btrfs_super_nodesize(sb);
	fs->sectorsize = btrfs_super_sectorsize(sb);
	fs->stripesize = btrfs_super_stripesize(sb);
	fs->csum_type = btrfs_super_csum_type(sb);
	fs->csum_size = btrfs_csum_size(fs->csum_type);
	fs->generation = btrfs_super_generation(sb);
	memcpy(fs->fsid, btrfs_super_fsid(sb), BTRFS_FSID_SIZE);
	if (btrfs_super_incompat_flags(sb) & BTRFS_FEATURE_INCOMPAT_METADATA_UUID)
		memcpy(fs->metadata_uuid, btrfs_super_metadata_uuid(sb), BTRFS_FSID_SIZE);
	else
		memcpy(fs->metadata_uuid, fs->fsid, BTRFS_FSID_SIZE);
}

static int chunk_tree_item(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	return btrfs_chunk_tree_add_item(priv, key, data, len);
}

/* Every DEV_ITEM and CHUNK_ITEM of the chunk tree into the device list and chunk map */
static int read_chunk_tree(struct btrfs_fs *fs)
{
	struct btrfs_key min = { 0, 0, 0 };
	struct btrfs_key max = { (u64)-1, 0xff, (u64)-1 };

	int ret;

	ret = btrfs_iterate_items(fs->chunk_root, &min, &max, chunk_tree_item, fs);
	if (ret < 0)
		return ret;
	return btrfs_check_total_bytes(fs);
}

static int dev_extent_item(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	return btrfs_dev_extent_check(priv, key, data, len);
}

/* Every DEV_EXTENT against the chunk map and the devices (volumes.c checks) */
static int verify_dev_extents(struct btrfs_fs *fs)
{
	struct btrfs_key min = { 1, BTRFS_DEV_EXTENT_KEY, 0 };
	struct btrfs_key max = { (u64)-1, 0xff, (u64)-1 };
	struct btrfs_dev_extent_check w;
	bool loaded = btrfs_root_node_loaded(fs, BTRFS_DEV_TREE_OBJECTID);
	struct btrfs_root *root;
	int ret;

	ret = btrfs_read_root(fs, BTRFS_DEV_TREE_OBJECTID, &root);
	if (ret == -ENOENT) {
		btrfs_fs_set_error(fs, "dev tree: missing");
		return -EUCLEAN;
	}
	if (ret < 0)
		return ret;
	ret = btrfs_dev_extent_check_start(&w, fs);
	if (ret < 0)
		return ret;
	ret = btrfs_iterate_items(root, &min, &max, dev_extent_item, &w);
	if (!loaded)
		btrfs_root_unload_node(root);
	return btrfs_dev_extent_check_finish(&w, ret);
}

static int open_trees(struct btrfs_fs *fs)
{
	struct btrfs_root *root;
	int ret;

	ret = btrfs_read_sys_chunk_array(fs);
	if (ret < 0)
		return ret;
	ret = btrfs_read_root(fs, BTRFS_CHUNK_TREE_OBJECTID, &root);
	if (ret < 0)
		return ret;
	memcpy(fs->chunk_tree_uuid, btrfs_header_chunk_tree_uuid(btrfs_eb_header(root->node)),
	       BTRFS_UUID_SIZE);
	ret = read_chunk_tree(fs);
	if (ret < 0) {
		btrfs_fs_set_error_once(fs, "chunk tree: cannot be read");
		return ret;
	}
	ret = btrfs_read_root(fs, BTRFS_ROOT_TREE_OBJECTID, &root);
	if (ret < 0)
		return ret;
	/* what the kernel verifies before it mounts, beyond the blocks it reads */
	ret = verify_dev_extents(fs);
	if (ret < 0)
		return ret;
	return btrfs_check_root_dir(fs, BTRFS_FS_TREE_OBJECTID);
}

int btrfs_fs_open(struct btrfs_fs **fsp, const struct btrfs_open_args *args)
{
	struct btrfs_fs *fs;
	int ret;

	*fsp = NULL;
	if (args->errmsg)
		args->errmsg[0] = '\0';
	if (args->errobj)
		*args->errobj = BTRFS_ERR_OBJ_NONE;
	if (!args->nr_devs || !args->devs) {
		btrfs_errmsg_set(args->errmsg, "no device given");
		return -EINVAL;
	}
	for (size_t i = 0; args->writable && i < args->nr_devs; i++) {
		if (!args->devs[i]->writable) {
			btrfs_errmsg_set(args->errmsg, "%s: opened read-only, cannot write",
					 args->devs[i]->name);
			if (args->errobj)
				*args->errobj = BTRFS_ERR_OBJ_DEVICE;
			return -EINVAL;
		}
	}
	fs = calloc(1, sizeof(*fs));
	if (!fs)
		return -ENOMEM;
	fs->writable = args->writable;
	if (args->super_mirror < 0 || args->super_mirror >= BTRFS_SUPER_MIRROR_MAX) {
		btrfs_errmsg_set(args->errmsg, "superblock mirror %d does not exist",
				 args->super_mirror);
		free(fs);
		return -EINVAL;
	}
	fs->super_mirror = args->super_mirror;
	ret = open_supers(fs, args);
	if (ret < 0)
		goto fail;
	ret = btrfs_super_check_features(&fs->super, args->writable, fs->errmsg);
	if (ret < 0)
		goto fail;
	if (args->writable && btrfs_super_log_root(&fs->super)) {
		btrfs_fs_set_error(fs, "log tree present: mount the filesystem once to replay it");
		ret = -EOPNOTSUPP;
		goto fail;
	}
	init_from_super(fs);
	/* the writer needs every member, all at one generation (members.c) */
	if (args->writable) {
		ret = btrfs_members_check_supers(fs);
		if (ret < 0)
			goto fail;
	}
	ret = btrfs_eb_cache_init(fs, args->cache_blocks);
	if (ret < 0)
		goto fail;
	ret = open_trees(fs);
	if (ret < 0)
		goto fail;
	if (args->writable) {
		ret = btrfs_members_check_complete(fs);
		if (ret < 0)
			goto fail;
	}
	*fsp = fs;
	return 0;
fail:
	if (args->errmsg)
		btrfs_errmsg_set(args->errmsg, "%s", fs->errmsg[0] ? fs->errmsg : "cannot open filesystem");
	if (args->errobj)
		*args->errobj = btrfs_fs_error_object(fs);
	btrfs_fs_close(fs);
	return ret;
}

void btrfs_fs_close(struct btrfs_fs *fs)
{
	if (!fs)
		return;
	btrfs_free_roots(fs);
	btrfs_eb_cache_release(fs);
	btrfs_volumes_release(fs);
	free(fs);
}
