// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tree-checker: layout of one leaf or node (see tree-checker.h).
 *
 * The checks mirror what the kernel's tree-checker refuses, so that an
 * image we accept is one the kernel accepts and, more importantly, so that
 * every later access by slot is inside the block: after btrfs_check_leaf()
 * each item's [offset, offset + size) lies in the data area, past the item
 * header array.
 */
#include <errno.h>
#include "fs.h"
#include "tree-checker.h"

static void key_at(const u8 *buf, u32 level, u32 slot, struct btrfs_key *key)
{
	size_t entry = level ? sizeof(struct btrfs_key_ptr) : sizeof(struct btrfs_item);

	btrfs_disk_key_to_cpu(key, (const struct btrfs_disk_key *)(buf + sizeof(struct btrfs_header) +
								   slot * entry));
}

static bool tree_must_not_be_empty(u64 owner)
{
	return owner == BTRFS_ROOT_TREE_OBJECTID || owner == BTRFS_EXTENT_TREE_OBJECTID ||
	       owner == BTRFS_CHUNK_TREE_OBJECTID || owner == BTRFS_DEV_TREE_OBJECTID ||
	       owner == BTRFS_FS_TREE_OBJECTID || owner == BTRFS_DATA_RELOC_TREE_OBJECTID;
}

/* Size rules for the fixed-size items the engine reads; 0 = ok */
static int check_item_size(struct btrfs_fs *fs, u64 bytenr, u32 slot,
			   const struct btrfs_key *key, u32 size)
{
	u32 want = 0, want2 = 0;
	u32 min = 0;

	switch (key->type) {
	case BTRFS_INODE_ITEM_KEY:
		want = sizeof(struct btrfs_inode_item);
		break;
	case BTRFS_ROOT_ITEM_KEY:
		want = sizeof(struct btrfs_root_item);
		want2 = BTRFS_ROOT_ITEM_LEGACY_SIZE;
		break;
	case BTRFS_ROOT_REF_KEY:
	case BTRFS_ROOT_BACKREF_KEY:
		min = sizeof(struct btrfs_root_ref);
		break;
	case BTRFS_BLOCK_GROUP_ITEM_KEY:
		want = sizeof(struct btrfs_block_group_item);
		break;
	case BTRFS_DEV_EXTENT_KEY:
		want = sizeof(struct btrfs_dev_extent);
		break;
	case BTRFS_DEV_ITEM_KEY:
		min = sizeof(struct btrfs_dev_item);
		break;
	case BTRFS_CHUNK_ITEM_KEY:
		min = sizeof(struct btrfs_chunk);
		break;
	case BTRFS_FREE_SPACE_INFO_KEY:
		want = sizeof(struct btrfs_free_space_info);
		break;
	case BTRFS_QGROUP_STATUS_KEY:
		want = sizeof(struct btrfs_qgroup_status_item);
		want2 = BTRFS_QGROUP_STATUS_ITEM_V1_SIZE;
		break;
	case BTRFS_QGROUP_INFO_KEY:
		want = sizeof(struct btrfs_qgroup_info_item);
		break;
	case BTRFS_QGROUP_LIMIT_KEY:
		want = sizeof(struct btrfs_qgroup_limit_item);
		break;
	case BTRFS_METADATA_ITEM_KEY:
		if (!btrfs_fs_has_incompat(fs, BTRFS_FEATURE_INCOMPAT_SKINNY_METADATA)) {
			btrfs_fs_set_error(fs, "tree block %llu: slot %u: metadata item without skinny-metadata",
					   (unsigned long long)bytenr, slot);
			return -EUCLEAN;
		}
		min = sizeof(struct btrfs_extent_item);
		break;
	case BTRFS_UUID_KEY_SUBVOL:
	case BTRFS_UUID_KEY_RECEIVED_SUBVOL:
		if (size % sizeof(u64) || !size) {
			btrfs_fs_set_error(fs, "tree block %llu: slot %u: uuid item size %u not a multiple of 8",
					   (unsigned long long)bytenr, slot, size);
			return -EUCLEAN;
		}
		return 0;
	default:
		return 0;
	}
	if (want && size != want && size != want2) {
		btrfs_fs_set_error(fs, "tree block %llu: slot %u: item type %u has size %u, expected %u",
				   (unsigned long long)bytenr, slot, key->type, size, want);
		return -EUCLEAN;
	}
	if (min && size < min) {
		btrfs_fs_set_error(fs, "tree block %llu: slot %u: item type %u too short (%u < %u)",
				   (unsigned long long)bytenr, slot, key->type, size, min);
		return -EUCLEAN;
	}
	return 0;
}

int btrfs_check_leaf(struct btrfs_fs *fs, const u8 *buf)
{
	const struct btrfs_header *h = (const struct btrfs_header *)buf;
	u64 bytenr = btrfs_header_bytenr(h);
	u32 nritems = btrfs_header_nritems(h);
	u32 data_size = btrfs_leaf_data_size(fs->nodesize);
	u32 data_end = data_size;
	struct btrfs_key prev = { 0 }, key;
	unsigned long long b = bytenr;

	if (nritems > data_size / sizeof(struct btrfs_item)) {
		btrfs_fs_set_error(fs, "tree block %llu: leaf nritems %u too large", b, nritems);
		return -EUCLEAN;
	}
	if (!nritems) {
		if (tree_must_not_be_empty(btrfs_header_owner(h))) {
			btrfs_fs_set_error(fs, "tree block %llu: empty leaf of tree %llu that must never be empty",
					   b, (unsigned long long)btrfs_header_owner(h));
			return -EUCLEAN;
		}
		return 0;
	}
	for (u32 i = 0; i < nritems; i++) {
		const struct btrfs_item *it = (const struct btrfs_item *)
			(buf + sizeof(*h) + (size_t)i * sizeof(struct btrfs_item));
		u64 off = btrfs_item_offset(it);
		u64 size = btrfs_item_size(it);
		int ret;

		key_at(buf, 0, i, &key);
		if (i > 0 && btrfs_key_cmp(&prev, &key) >= 0) {
			btrfs_fs_set_error(fs, "tree block %llu: bad key order, slot %u", b, i);
			return -EUCLEAN;
		}
		if (off + size != data_end) {
			btrfs_fs_set_error(fs, "tree block %llu: slot %u: unexpected item end %llu, expected %u",
					   b, i, (unsigned long long)(off + size), data_end);
			return -EUCLEAN;
		}
		if (off < (u64)nritems * sizeof(struct btrfs_item)) {
			btrfs_fs_set_error(fs, "tree block %llu: slot %u: item data overlaps the item headers",
					   b, i);
			return -EUCLEAN;
		}
		ret = check_item_size(fs, bytenr, i, &key, (u32)size);
		if (ret < 0)
			return ret;
		data_end = (u32)off;
		prev = key;
	}
	return 0;
}

int btrfs_check_node(struct btrfs_fs *fs, const u8 *buf)
{
	const struct btrfs_header *h = (const struct btrfs_header *)buf;
	unsigned long long b = btrfs_header_bytenr(h);
	u32 nritems = btrfs_header_nritems(h);
	struct btrfs_key prev = { 0 }, key;

	if (!nritems || nritems > btrfs_nodeptrs_per_block(fs->nodesize)) {
		btrfs_fs_set_error(fs, "tree block %llu: node nritems %u out of range", b, nritems);
		return -EUCLEAN;
	}
	for (u32 i = 0; i < nritems; i++) {
		const struct btrfs_key_ptr *kp = (const struct btrfs_key_ptr *)
			(buf + sizeof(*h) + (size_t)i * sizeof(struct btrfs_key_ptr));
		u64 ptr = btrfs_key_ptr_blockptr(kp);
		u64 gen = btrfs_key_ptr_generation(kp);

		key_at(buf, 1, i, &key);
		if (!ptr || ptr % fs->sectorsize) {
			btrfs_fs_set_error(fs, "tree block %llu: slot %u: invalid block pointer %llu",
					   b, i, (unsigned long long)ptr);
			return -EUCLEAN;
		}
		if (!gen || gen > fs->generation + 1) {
			btrfs_fs_set_error(fs, "tree block %llu: slot %u: invalid pointer generation %llu",
					   b, i, (unsigned long long)gen);
			return -EUCLEAN;
		}
		if (i > 0 && btrfs_key_cmp(&prev, &key) >= 0) {
			btrfs_fs_set_error(fs, "tree block %llu: bad key order, slot %u", b, i);
			return -EUCLEAN;
		}
		prev = key;
	}
	return 0;
}

int btrfs_check_owner(struct btrfs_fs *fs, const u8 *buf, u64 root_owner)
{
	const struct btrfs_header *h = (const struct btrfs_header *)buf;
	u64 owner = btrfs_header_owner(h);

	if (!root_owner || root_owner == BTRFS_TREE_RELOC_OBJECTID)
		return 0;
	if (btrfs_is_fstree(root_owner)) {
		if (btrfs_is_fstree(owner))
			return 0;
	} else if (owner == root_owner) {
		return 0;
	}
	btrfs_fs_set_error(fs, "tree block %llu: owner %llu, but reached from tree %llu",
			   (unsigned long long)btrfs_header_bytenr(h), (unsigned long long)owner,
			   (unsigned long long)root_owner);
	return -EUCLEAN;
}
