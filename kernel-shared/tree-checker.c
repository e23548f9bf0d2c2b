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
#include <stdarg.h>
#include <stdio.h>
#include "fs.h"
#include "items.h"
#include "tree-checker.h"
#include "tree-checker-internal.h"

static void key_at(const u8 *buf, u32 level, u32 slot, struct btrfs_key *key)
{
	size_t entry = level ? sizeof(struct btrfs_key_ptr) : sizeof(struct btrfs_item);

	btrfs_disk_key_to_cpu(key, (const struct btrfs_disk_key *)(buf + sizeof(struct btrfs_header) +
								   slot * entry));
}

/*
 * Trees the kernel never leaves empty; the extent tree joins them below
 * (extent-tree-v2, which may empty it, is refused at open)
 */
static bool tree_must_not_be_empty(u64 owner)
{
	return owner == BTRFS_ROOT_TREE_OBJECTID || owner == BTRFS_EXTENT_TREE_OBJECTID ||
	       owner == BTRFS_CHUNK_TREE_OBJECTID || owner == BTRFS_DEV_TREE_OBJECTID ||
	       owner == BTRFS_FS_TREE_OBJECTID || owner == BTRFS_DATA_RELOC_TREE_OBJECTID;
}

int tc_bad(const struct tc_item *it, const char *fmt, ...)
{
	char reason[BTRFS_ERRMSG_SIZE];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	btrfs_fs_set_error(it->fs, "tree block %llu: slot %u: key (%llu %s %llu): %s",
			   (unsigned long long)it->bytenr, it->slot,
			   (unsigned long long)it->key.objectid, btrfs_item_type_name(it->key.type),
			   (unsigned long long)it->key.offset, reason);
	return -EUCLEAN;
}

/*
 * Sizes of the items the kernel's tree-checker does not look into but the
 * engine reads (quota, free space info, root refs, uuid items): volctl's own
 * rules, which every valid item meets
 */
static int check_other_size(const struct tc_item *it)
{
	u32 want = 0, want2 = 0, min = 0;

	switch (it->key.type) {
	case BTRFS_ROOT_REF_KEY:
	case BTRFS_ROOT_BACKREF_KEY:
		min = sizeof(struct btrfs_root_ref);
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
	case BTRFS_UUID_KEY_SUBVOL:
	case BTRFS_UUID_KEY_RECEIVED_SUBVOL:
		if (it->size % sizeof(u64) || !it->size)
			return tc_bad(it, "uuid item size %u not a multiple of 8", it->size);
		return 0;
	default:
		return 0;
	}
	if (want && it->size != want && it->size != want2)
		return tc_bad(it, "item size %u, expected %u", it->size, want);
	if (min && it->size < min)
		return tc_bad(it, "item too short (%u < %u)", it->size, min);
	return 0;
}

/*
 * Free space tree items, as far as they must hold to be read at all (the
 * kernel's tree-checker does not look at them, and reads a bitmap's bits
 * within its item whatever else the item holds): sector-aligned, non-empty
 * ranges that do not wrap, and a bitmap item long enough for one bit per
 * sector of its range.  fst-check.c compares them with the block groups.
 */
static int check_free_space_item(const struct tc_item *it)
{
	u32 ss = it->fs->sectorsize;
	u64 need;

	if (it->key.type != BTRFS_FREE_SPACE_INFO_KEY && it->key.type != BTRFS_FREE_SPACE_EXTENT_KEY &&
	    it->key.type != BTRFS_FREE_SPACE_BITMAP_KEY)
		return 0;
	if (!it->key.offset || it->key.objectid + it->key.offset < it->key.objectid)
		return tc_bad(it, "free space range of %llu bytes is empty or wraps",
			      (unsigned long long)it->key.offset);
	if (!tc_aligned(it->key.objectid, ss) || !tc_aligned(it->key.offset, ss))
		return tc_bad(it, "free space range not aligned to the sector size %u", ss);
	if (it->key.type != BTRFS_FREE_SPACE_BITMAP_KEY)
		return 0;
	need = (it->key.offset / ss + 7) / 8;
	if (it->size < need)
		return tc_bad(it, "free space bitmap item size %u, too short for its range (%llu)",
			      it->size, (unsigned long long)need);
	return 0;
}

static int check_item(const struct tc_item *it)
{
	/* the items of subvolume trees, most of all there are, in one call */
	int ret = tc_check_fs_item(it);

	if (ret <= 0)
		return ret;
	ret = check_other_size(it);
	if (!ret)
		ret = check_free_space_item(it);
	if (!ret)
		ret = tc_check_tree_item(it);
	return ret;
}

/* Header flags both leaves and nodes must carry */
static int check_written(struct btrfs_fs *fs, const struct btrfs_header *h)
{
	if (btrfs_header_flags(h) & BTRFS_HEADER_FLAG_WRITTEN)
		return 0;
	btrfs_fs_set_error(fs, "tree block %llu: written flag not set",
			   (unsigned long long)btrfs_header_bytenr(h));
	return -EUCLEAN;
}

static int check_empty_leaf(struct btrfs_fs *fs, const struct btrfs_header *h)
{
	unsigned long long owner = btrfs_header_owner(h);

	/* a relocation tree block carries the owner of the tree it copies */
	if (btrfs_header_flags(h) & BTRFS_HEADER_FLAG_RELOC)
		return 0;
	if (tree_must_not_be_empty(owner)) {
		btrfs_fs_set_error(fs, "tree block %llu: empty leaf of tree %llu that must never be empty",
				   (unsigned long long)btrfs_header_bytenr(h), owner);
		return -EUCLEAN;
	}
	if (!owner) {
		btrfs_fs_set_error(fs, "tree block %llu: empty leaf owned by tree 0",
				   (unsigned long long)btrfs_header_bytenr(h));
		return -EUCLEAN;
	}
	return 0;
}

int btrfs_check_leaf(struct btrfs_fs *fs, const u8 *buf)
{
	const struct btrfs_header *h = (const struct btrfs_header *)buf;
	u32 nritems = btrfs_header_nritems(h);
	u32 data_size = btrfs_leaf_data_size(fs->nodesize);
	u32 data_end = data_size;
	struct tc_item it = { .fs = fs, .bytenr = btrfs_header_bytenr(h),
			      .owner = btrfs_header_owner(h) };
	unsigned long long b = it.bytenr;
	int ret;

	ret = check_written(fs, h);
	if (ret)
		return ret;
	if (nritems > data_size / sizeof(struct btrfs_item)) {
		btrfs_fs_set_error(fs, "tree block %llu: leaf nritems %u too large", b, nritems);
		return -EUCLEAN;
	}
	if (!nritems)
		return check_empty_leaf(fs, h);
	for (u32 i = 0; i < nritems; i++) {
		const struct btrfs_item *item = (const struct btrfs_item *)
			(buf + sizeof(*h) + (size_t)i * sizeof(struct btrfs_item));
		u64 off = btrfs_item_offset(item);
		u64 size = btrfs_item_size(item);

		key_at(buf, 0, i, &it.key);
		if (i > 0 && btrfs_key_cmp(&it.prev, &it.key) >= 0) {
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
		it.slot = i;
		it.data = buf + BTRFS_LEAF_DATA_OFFSET + off;
		it.size = (u32)size;
		ret = check_item(&it);
		if (ret < 0)
			return ret;
		data_end = (u32)off;
		it.prev = it.key;
		it.prev_data = it.data;
		it.prev_size = it.size;
	}
	return 0;
}

int btrfs_check_node(struct btrfs_fs *fs, const u8 *buf)
{
	const struct btrfs_header *h = (const struct btrfs_header *)buf;
	unsigned long long b = btrfs_header_bytenr(h);
	u32 nritems = btrfs_header_nritems(h);
	struct btrfs_key prev = { 0 }, key;
	int ret;

	ret = check_written(fs, h);
	if (ret)
		return ret;
	if (!btrfs_header_level(h) || btrfs_header_level(h) >= BTRFS_MAX_LEVEL) {
		btrfs_fs_set_error(fs, "tree block %llu: node level %u out of range", b,
				   btrfs_header_level(h));
		return -EUCLEAN;
	}
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
	if (tc_is_fstree(root_owner)) {
		if (tc_is_fstree(owner))
			return 0;
	} else if (owner == root_owner) {
		return 0;
	}
	btrfs_fs_set_error(fs, "tree block %llu: owner %llu, but reached from tree %llu",
			   (unsigned long long)btrfs_header_bytenr(h), (unsigned long long)owner,
			   (unsigned long long)root_owner);
	return -EUCLEAN;
}
