/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests for kernel-shared/format.h: structure sizes and field offsets
 * (from the on-disk facts sheet), little-endian accessors, key ordering and
 * the small helpers.
 */
#include <stddef.h>
#include <stdlib.h>

#include "kernel-shared/format.h"
#include "unit.h"

#define OFF(s, m) offsetof(struct s, m)

static void test_sizes(void)
{
	CHECK_EQ_U64(sizeof(struct btrfs_disk_key), 17);
	CHECK_EQ_U64(sizeof(struct btrfs_header), 101);
	CHECK_EQ_U64(sizeof(struct btrfs_key_ptr), 33);
	CHECK_EQ_U64(sizeof(struct btrfs_item), 25);
	CHECK_EQ_U64(sizeof(struct btrfs_super_block), 4096);
	CHECK_EQ_U64(sizeof(struct btrfs_root_backup), 168);
	CHECK_EQ_U64(sizeof(struct btrfs_dev_item), 98);
	CHECK_EQ_U64(sizeof(struct btrfs_chunk), 48);
	CHECK_EQ_U64(sizeof(struct btrfs_stripe), 32);
	CHECK_EQ_U64(sizeof(struct btrfs_timespec), 12);
	CHECK_EQ_U64(sizeof(struct btrfs_inode_item), 160);
	CHECK_EQ_U64(sizeof(struct btrfs_inode_ref), 10);
	CHECK_EQ_U64(sizeof(struct btrfs_inode_extref), 18);
	CHECK_EQ_U64(sizeof(struct btrfs_dir_item), 30);
	CHECK_EQ_U64(sizeof(struct btrfs_root_item), 439);
	CHECK_EQ_U64(BTRFS_ROOT_ITEM_LEGACY_SIZE, 239);
	CHECK_EQ_U64(sizeof(struct btrfs_root_ref), 18);
	CHECK_EQ_U64(sizeof(struct btrfs_file_extent_item), 53);
	CHECK_EQ_U64(BTRFS_FILE_EXTENT_INLINE_DATA_START, 21);
	CHECK_EQ_U64(sizeof(struct btrfs_extent_item), 24);
	CHECK_EQ_U64(sizeof(struct btrfs_tree_block_info), 18);
	CHECK_EQ_U64(sizeof(struct btrfs_extent_inline_ref), 9);
	CHECK_EQ_U64(sizeof(struct btrfs_extent_data_ref), 28);
	CHECK_EQ_U64(sizeof(struct btrfs_shared_data_ref), 4);
	CHECK_EQ_U64(sizeof(struct btrfs_extent_owner_ref), 8);
	CHECK_EQ_U64(sizeof(struct btrfs_block_group_item), 24);
	CHECK_EQ_U64(sizeof(struct btrfs_dev_extent), 48);
	CHECK_EQ_U64(sizeof(struct btrfs_free_space_info), 8);
	CHECK_EQ_U64(sizeof(struct btrfs_qgroup_status_item), 40);
	CHECK_EQ_U64(BTRFS_QGROUP_STATUS_ITEM_V1_SIZE, 32);
	CHECK_EQ_U64(sizeof(struct btrfs_qgroup_info_item), 40);
	CHECK_EQ_U64(sizeof(struct btrfs_qgroup_limit_item), 40);
	CHECK_EQ_U64(sizeof(struct btrfs_csum_item), 1);
}

static void test_super_offsets(void)
{
	CHECK_EQ_U64(OFF(btrfs_super_block, csum), 0);
	CHECK_EQ_U64(OFF(btrfs_super_block, fsid), 32);
	CHECK_EQ_U64(OFF(btrfs_super_block, bytenr), 48);
	CHECK_EQ_U64(OFF(btrfs_super_block, flags), 56);
	CHECK_EQ_U64(OFF(btrfs_super_block, magic), 64);
	CHECK_EQ_U64(OFF(btrfs_super_block, generation), 72);
	CHECK_EQ_U64(OFF(btrfs_super_block, root), 80);
	CHECK_EQ_U64(OFF(btrfs_super_block, chunk_root), 88);
	CHECK_EQ_U64(OFF(btrfs_super_block, log_root), 96);
	CHECK_EQ_U64(OFF(btrfs_super_block, unused_log_root_transid), 104);
	CHECK_EQ_U64(OFF(btrfs_super_block, total_bytes), 112);
	CHECK_EQ_U64(OFF(btrfs_super_block, bytes_used), 120);
	CHECK_EQ_U64(OFF(btrfs_super_block, root_dir_objectid), 128);
	CHECK_EQ_U64(OFF(btrfs_super_block, num_devices), 136);
	CHECK_EQ_U64(OFF(btrfs_super_block, sectorsize), 144);
	CHECK_EQ_U64(OFF(btrfs_super_block, nodesize), 148);
	CHECK_EQ_U64(OFF(btrfs_super_block, unused_leafsize), 152);
	CHECK_EQ_U64(OFF(btrfs_super_block, stripesize), 156);
	CHECK_EQ_U64(OFF(btrfs_super_block, sys_chunk_array_size), 160);
	CHECK_EQ_U64(OFF(btrfs_super_block, chunk_root_generation), 164);
	CHECK_EQ_U64(OFF(btrfs_super_block, compat_flags), 172);
	CHECK_EQ_U64(OFF(btrfs_super_block, compat_ro_flags), 180);
	CHECK_EQ_U64(OFF(btrfs_super_block, incompat_flags), 188);
	CHECK_EQ_U64(OFF(btrfs_super_block, csum_type), 196);
	CHECK_EQ_U64(OFF(btrfs_super_block, root_level), 198);
	CHECK_EQ_U64(OFF(btrfs_super_block, chunk_root_level), 199);
	CHECK_EQ_U64(OFF(btrfs_super_block, log_root_level), 200);
	CHECK_EQ_U64(OFF(btrfs_super_block, dev_item), 201);
	CHECK_EQ_U64(OFF(btrfs_super_block, label), 299);
	CHECK_EQ_U64(OFF(btrfs_super_block, cache_generation), 555);
	CHECK_EQ_U64(OFF(btrfs_super_block, uuid_tree_generation), 563);
	CHECK_EQ_U64(OFF(btrfs_super_block, metadata_uuid), 571);
	CHECK_EQ_U64(OFF(btrfs_super_block, nr_global_roots), 587);
	CHECK_EQ_U64(OFF(btrfs_super_block, remap_root), 595);
	CHECK_EQ_U64(OFF(btrfs_super_block, remap_root_generation), 603);
	CHECK_EQ_U64(OFF(btrfs_super_block, remap_root_level), 611);
	CHECK_EQ_U64(OFF(btrfs_super_block, reserved), 612);
	CHECK_EQ_U64(OFF(btrfs_super_block, sys_chunk_array), 811);
	CHECK_EQ_U64(OFF(btrfs_super_block, super_roots), 2859);
	CHECK_EQ_U64(OFF(btrfs_super_block, padding), 3531);

	CHECK_EQ_U64(OFF(btrfs_root_backup, tree_root), 0);
	CHECK_EQ_U64(OFF(btrfs_root_backup, tree_root_gen), 8);
	CHECK_EQ_U64(OFF(btrfs_root_backup, chunk_root), 16);
	CHECK_EQ_U64(OFF(btrfs_root_backup, chunk_root_gen), 24);
	CHECK_EQ_U64(OFF(btrfs_root_backup, extent_root), 32);
	CHECK_EQ_U64(OFF(btrfs_root_backup, extent_root_gen), 40);
	CHECK_EQ_U64(OFF(btrfs_root_backup, fs_root), 48);
	CHECK_EQ_U64(OFF(btrfs_root_backup, fs_root_gen), 56);
	CHECK_EQ_U64(OFF(btrfs_root_backup, dev_root), 64);
	CHECK_EQ_U64(OFF(btrfs_root_backup, dev_root_gen), 72);
	CHECK_EQ_U64(OFF(btrfs_root_backup, csum_root), 80);
	CHECK_EQ_U64(OFF(btrfs_root_backup, csum_root_gen), 88);
	CHECK_EQ_U64(OFF(btrfs_root_backup, total_bytes), 96);
	CHECK_EQ_U64(OFF(btrfs_root_backup, bytes_used), 104);
	CHECK_EQ_U64(OFF(btrfs_root_backup, num_devices), 112);
	CHECK_EQ_U64(OFF(btrfs_root_backup, unused_64), 120);
	CHECK_EQ_U64(OFF(btrfs_root_backup, tree_root_level), 152);
	CHECK_EQ_U64(OFF(btrfs_root_backup, chunk_root_level), 153);
	CHECK_EQ_U64(OFF(btrfs_root_backup, extent_root_level), 154);
	CHECK_EQ_U64(OFF(btrfs_root_backup, fs_root_level), 155);
	CHECK_EQ_U64(OFF(btrfs_root_backup, dev_root_level), 156);
	CHECK_EQ_U64(OFF(btrfs_root_backup, csum_root_level), 157);
	CHECK_EQ_U64(OFF(btrfs_root_backup, unused_8), 158);
}

static void test_tree_offsets(void)
{
	CHECK_EQ_U64(OFF(btrfs_disk_key, objectid), 0);
	CHECK_EQ_U64(OFF(btrfs_disk_key, type), 8);
	CHECK_EQ_U64(OFF(btrfs_disk_key, offset), 9);

	CHECK_EQ_U64(OFF(btrfs_header, csum), 0);
	CHECK_EQ_U64(OFF(btrfs_header, fsid), 32);
	CHECK_EQ_U64(OFF(btrfs_header, bytenr), 48);
	CHECK_EQ_U64(OFF(btrfs_header, flags), 56);
	CHECK_EQ_U64(OFF(btrfs_header, chunk_tree_uuid), 64);
	CHECK_EQ_U64(OFF(btrfs_header, generation), 80);
	CHECK_EQ_U64(OFF(btrfs_header, owner), 88);
	CHECK_EQ_U64(OFF(btrfs_header, nritems), 96);
	CHECK_EQ_U64(OFF(btrfs_header, level), 100);

	CHECK_EQ_U64(OFF(btrfs_key_ptr, key), 0);
	CHECK_EQ_U64(OFF(btrfs_key_ptr, blockptr), 17);
	CHECK_EQ_U64(OFF(btrfs_key_ptr, generation), 25);

	CHECK_EQ_U64(OFF(btrfs_item, key), 0);
	CHECK_EQ_U64(OFF(btrfs_item, offset), 17);
	CHECK_EQ_U64(OFF(btrfs_item, size), 21);

	CHECK_EQ_U64(OFF(btrfs_dev_item, devid), 0);
	CHECK_EQ_U64(OFF(btrfs_dev_item, total_bytes), 8);
	CHECK_EQ_U64(OFF(btrfs_dev_item, bytes_used), 16);
	CHECK_EQ_U64(OFF(btrfs_dev_item, io_align), 24);
	CHECK_EQ_U64(OFF(btrfs_dev_item, io_width), 28);
	CHECK_EQ_U64(OFF(btrfs_dev_item, sector_size), 32);
	CHECK_EQ_U64(OFF(btrfs_dev_item, type), 36);
	CHECK_EQ_U64(OFF(btrfs_dev_item, generation), 44);
	CHECK_EQ_U64(OFF(btrfs_dev_item, start_offset), 52);
	CHECK_EQ_U64(OFF(btrfs_dev_item, dev_group), 60);
	CHECK_EQ_U64(OFF(btrfs_dev_item, seek_speed), 64);
	CHECK_EQ_U64(OFF(btrfs_dev_item, bandwidth), 65);
	CHECK_EQ_U64(OFF(btrfs_dev_item, uuid), 66);
	CHECK_EQ_U64(OFF(btrfs_dev_item, fsid), 82);

	CHECK_EQ_U64(OFF(btrfs_chunk, length), 0);
	CHECK_EQ_U64(OFF(btrfs_chunk, owner), 8);
	CHECK_EQ_U64(OFF(btrfs_chunk, stripe_len), 16);
	CHECK_EQ_U64(OFF(btrfs_chunk, type), 24);
	CHECK_EQ_U64(OFF(btrfs_chunk, io_align), 32);
	CHECK_EQ_U64(OFF(btrfs_chunk, io_width), 36);
	CHECK_EQ_U64(OFF(btrfs_chunk, sector_size), 40);
	CHECK_EQ_U64(OFF(btrfs_chunk, num_stripes), 44);
	CHECK_EQ_U64(OFF(btrfs_chunk, sub_stripes), 46);
	CHECK_EQ_U64(OFF(btrfs_chunk, stripe), 48);
	CHECK_EQ_U64(OFF(btrfs_stripe, devid), 0);
	CHECK_EQ_U64(OFF(btrfs_stripe, offset), 8);
	CHECK_EQ_U64(OFF(btrfs_stripe, dev_uuid), 16);

	CHECK_EQ_U64(OFF(btrfs_dev_extent, chunk_tree), 0);
	CHECK_EQ_U64(OFF(btrfs_dev_extent, chunk_objectid), 8);
	CHECK_EQ_U64(OFF(btrfs_dev_extent, chunk_offset), 16);
	CHECK_EQ_U64(OFF(btrfs_dev_extent, length), 24);
	CHECK_EQ_U64(OFF(btrfs_dev_extent, chunk_tree_uuid), 32);

	CHECK_EQ_U64(OFF(btrfs_block_group_item, used), 0);
	CHECK_EQ_U64(OFF(btrfs_block_group_item, chunk_objectid), 8);
	CHECK_EQ_U64(OFF(btrfs_block_group_item, flags), 16);
	CHECK_EQ_U64(OFF(btrfs_free_space_info, extent_count), 0);
	CHECK_EQ_U64(OFF(btrfs_free_space_info, flags), 4);
}

static void test_item_offsets(void)
{
	CHECK_EQ_U64(OFF(btrfs_inode_item, generation), 0);
	CHECK_EQ_U64(OFF(btrfs_inode_item, transid), 8);
	CHECK_EQ_U64(OFF(btrfs_inode_item, size), 16);
	CHECK_EQ_U64(OFF(btrfs_inode_item, nbytes), 24);
	CHECK_EQ_U64(OFF(btrfs_inode_item, block_group), 32);
	CHECK_EQ_U64(OFF(btrfs_inode_item, nlink), 40);
	CHECK_EQ_U64(OFF(btrfs_inode_item, uid), 44);
	CHECK_EQ_U64(OFF(btrfs_inode_item, gid), 48);
	CHECK_EQ_U64(OFF(btrfs_inode_item, mode), 52);
	CHECK_EQ_U64(OFF(btrfs_inode_item, rdev), 56);
	CHECK_EQ_U64(OFF(btrfs_inode_item, flags), 64);
	CHECK_EQ_U64(OFF(btrfs_inode_item, sequence), 72);
	CHECK_EQ_U64(OFF(btrfs_inode_item, reserved), 80);
	CHECK_EQ_U64(OFF(btrfs_inode_item, atime), 112);
	CHECK_EQ_U64(OFF(btrfs_inode_item, ctime), 124);
	CHECK_EQ_U64(OFF(btrfs_inode_item, mtime), 136);
	CHECK_EQ_U64(OFF(btrfs_inode_item, otime), 148);
	CHECK_EQ_U64(OFF(btrfs_timespec, nsec), 8);

	CHECK_EQ_U64(OFF(btrfs_inode_ref, name_len), 8);
	CHECK_EQ_U64(OFF(btrfs_inode_extref, index), 8);
	CHECK_EQ_U64(OFF(btrfs_inode_extref, name_len), 16);
	CHECK_EQ_U64(OFF(btrfs_dir_item, location), 0);
	CHECK_EQ_U64(OFF(btrfs_dir_item, transid), 17);
	CHECK_EQ_U64(OFF(btrfs_dir_item, data_len), 25);
	CHECK_EQ_U64(OFF(btrfs_dir_item, name_len), 27);
	CHECK_EQ_U64(OFF(btrfs_dir_item, type), 29);

	CHECK_EQ_U64(OFF(btrfs_root_item, inode), 0);
	CHECK_EQ_U64(OFF(btrfs_root_item, generation), 160);
	CHECK_EQ_U64(OFF(btrfs_root_item, root_dirid), 168);
	CHECK_EQ_U64(OFF(btrfs_root_item, bytenr), 176);
	CHECK_EQ_U64(OFF(btrfs_root_item, byte_limit), 184);
	CHECK_EQ_U64(OFF(btrfs_root_item, bytes_used), 192);
	CHECK_EQ_U64(OFF(btrfs_root_item, last_snapshot), 200);
	CHECK_EQ_U64(OFF(btrfs_root_item, flags), 208);
	CHECK_EQ_U64(OFF(btrfs_root_item, refs), 216);
	CHECK_EQ_U64(OFF(btrfs_root_item, drop_progress), 220);
	CHECK_EQ_U64(OFF(btrfs_root_item, drop_level), 237);
	CHECK_EQ_U64(OFF(btrfs_root_item, level), 238);
	CHECK_EQ_U64(OFF(btrfs_root_item, generation_v2), 239);
	CHECK_EQ_U64(OFF(btrfs_root_item, uuid), 247);
	CHECK_EQ_U64(OFF(btrfs_root_item, parent_uuid), 263);
	CHECK_EQ_U64(OFF(btrfs_root_item, received_uuid), 279);
	CHECK_EQ_U64(OFF(btrfs_root_item, ctransid), 295);
	CHECK_EQ_U64(OFF(btrfs_root_item, otransid), 303);
	CHECK_EQ_U64(OFF(btrfs_root_item, stransid), 311);
	CHECK_EQ_U64(OFF(btrfs_root_item, rtransid), 319);
	CHECK_EQ_U64(OFF(btrfs_root_item, ctime), 327);
	CHECK_EQ_U64(OFF(btrfs_root_item, otime), 339);
	CHECK_EQ_U64(OFF(btrfs_root_item, stime), 351);
	CHECK_EQ_U64(OFF(btrfs_root_item, rtime), 363);
	CHECK_EQ_U64(OFF(btrfs_root_item, reserved), 375);

	CHECK_EQ_U64(OFF(btrfs_root_ref, dirid), 0);
	CHECK_EQ_U64(OFF(btrfs_root_ref, sequence), 8);
	CHECK_EQ_U64(OFF(btrfs_root_ref, name_len), 16);

	CHECK_EQ_U64(OFF(btrfs_file_extent_item, generation), 0);
	CHECK_EQ_U64(OFF(btrfs_file_extent_item, ram_bytes), 8);
	CHECK_EQ_U64(OFF(btrfs_file_extent_item, compression), 16);
	CHECK_EQ_U64(OFF(btrfs_file_extent_item, encryption), 17);
	CHECK_EQ_U64(OFF(btrfs_file_extent_item, other_encoding), 18);
	CHECK_EQ_U64(OFF(btrfs_file_extent_item, type), 20);
	CHECK_EQ_U64(OFF(btrfs_file_extent_item, disk_bytenr), 21);
	CHECK_EQ_U64(OFF(btrfs_file_extent_item, disk_num_bytes), 29);
	CHECK_EQ_U64(OFF(btrfs_file_extent_item, offset), 37);
	CHECK_EQ_U64(OFF(btrfs_file_extent_item, num_bytes), 45);

	CHECK_EQ_U64(OFF(btrfs_extent_item, refs), 0);
	CHECK_EQ_U64(OFF(btrfs_extent_item, generation), 8);
	CHECK_EQ_U64(OFF(btrfs_extent_item, flags), 16);
	CHECK_EQ_U64(OFF(btrfs_tree_block_info, level), 17);
	CHECK_EQ_U64(OFF(btrfs_extent_inline_ref, offset), 1);
	CHECK_EQ_U64(OFF(btrfs_extent_data_ref, root), 0);
	CHECK_EQ_U64(OFF(btrfs_extent_data_ref, objectid), 8);
	CHECK_EQ_U64(OFF(btrfs_extent_data_ref, offset), 16);
	CHECK_EQ_U64(OFF(btrfs_extent_data_ref, count), 24);

	CHECK_EQ_U64(OFF(btrfs_qgroup_status_item, version), 0);
	CHECK_EQ_U64(OFF(btrfs_qgroup_status_item, generation), 8);
	CHECK_EQ_U64(OFF(btrfs_qgroup_status_item, flags), 16);
	CHECK_EQ_U64(OFF(btrfs_qgroup_status_item, rescan), 24);
	CHECK_EQ_U64(OFF(btrfs_qgroup_status_item, enable_gen), 32);
	CHECK_EQ_U64(OFF(btrfs_qgroup_info_item, generation), 0);
	CHECK_EQ_U64(OFF(btrfs_qgroup_info_item, rfer), 8);
	CHECK_EQ_U64(OFF(btrfs_qgroup_info_item, rfer_cmpr), 16);
	CHECK_EQ_U64(OFF(btrfs_qgroup_info_item, excl), 24);
	CHECK_EQ_U64(OFF(btrfs_qgroup_info_item, excl_cmpr), 32);
	CHECK_EQ_U64(OFF(btrfs_qgroup_limit_item, flags), 0);
	CHECK_EQ_U64(OFF(btrfs_qgroup_limit_item, max_rfer), 8);
	CHECK_EQ_U64(OFF(btrfs_qgroup_limit_item, max_excl), 16);
	CHECK_EQ_U64(OFF(btrfs_qgroup_limit_item, rsv_rfer), 24);
	CHECK_EQ_U64(OFF(btrfs_qgroup_limit_item, rsv_excl), 32);
}

static void test_constants(void)
{
	CHECK_EQ_U64(BTRFS_ORPHAN_OBJECTID, 0xFFFFFFFFFFFFFFFBULL);
	CHECK_EQ_U64(BTRFS_TREE_RELOC_OBJECTID, 0xFFFFFFFFFFFFFFF8ULL);
	CHECK_EQ_U64(BTRFS_DATA_RELOC_TREE_OBJECTID, 0xFFFFFFFFFFFFFFF7ULL);
	CHECK_EQ_U64(BTRFS_LAST_FREE_OBJECTID, 0xFFFFFFFFFFFFFF00ULL);
	CHECK_EQ_U64(BTRFS_DEV_STATS_KEY, 249);
	CHECK_EQ_U64(BTRFS_BALANCE_ITEM_KEY, 248);
	CHECK_EQ_U64(BTRFS_BLOCK_GROUP_RAID1C4, 0x400);
	CHECK_EQ_U64(BTRFS_FEATURE_INCOMPAT_SIMPLE_QUOTA, 0x10000);
	CHECK_EQ_U64(BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE, 0x8);
	CHECK_EQ_U64(BTRFS_QGROUP_LIMIT_EXCL_CMPR, 32);
	CHECK_EQ_U64(BTRFS_ROOT_SUBVOL_DEAD, 0x1000000000000ULL);

	/* "_BHRfS_M" as stored on disk */
	{
		u8 raw[8];

		put_le64(raw, BTRFS_MAGIC);
		CHECK_MEM(raw, "_BHRfS_M", 8);
		put_le64(raw, BTRFS_MAGIC_TEMPORARY);
		CHECK_MEM(raw, "!BHRfS_M", 8);
	}

	CHECK_EQ_U64(btrfs_sb_offset(0), 65536);
	CHECK_EQ_U64(btrfs_sb_offset(1), 64ULL << 20);
	CHECK_EQ_U64(btrfs_sb_offset(2), 256ULL << 30);

	CHECK_EQ_U64(btrfs_leaf_data_size(16384), 16283);
	CHECK_EQ_U64(btrfs_max_item_size(16384), 16258);
	CHECK_EQ_U64(btrfs_nodeptrs_per_block(16384), 493);
	CHECK_EQ_U64(btrfs_nodeptrs_per_block(4096), 121);
	/* (65536 - 101) / 33; the facts sheet's 1989 is a typo */
	CHECK_EQ_U64(btrfs_nodeptrs_per_block(65536), 1982);

	CHECK_EQ_U64(btrfs_chunk_item_size(2), 112);
	CHECK_EQ_U64(btrfs_extent_inline_ref_size(BTRFS_TREE_BLOCK_REF_KEY), 9);
	CHECK_EQ_U64(btrfs_extent_inline_ref_size(BTRFS_SHARED_BLOCK_REF_KEY), 9);
	CHECK_EQ_U64(btrfs_extent_inline_ref_size(BTRFS_EXTENT_OWNER_REF_KEY), 9);
	CHECK_EQ_U64(btrfs_extent_inline_ref_size(BTRFS_EXTENT_DATA_REF_KEY), 29);
	CHECK_EQ_U64(btrfs_extent_inline_ref_size(BTRFS_SHARED_DATA_REF_KEY), 13);
	CHECK_EQ_U64(btrfs_extent_inline_ref_size(BTRFS_ROOT_ITEM_KEY), 0);

	CHECK(btrfs_is_fstree(5));
	CHECK(btrfs_is_fstree(256));
	CHECK(btrfs_is_fstree((1ULL << 48) - 1));
	CHECK(!btrfs_is_fstree(BTRFS_LAST_FREE_OBJECTID));
	CHECK(!btrfs_is_fstree(1));
	CHECK(!btrfs_is_fstree(255));
	CHECK(!btrfs_is_fstree(BTRFS_TREE_RELOC_OBJECTID));
	CHECK(!btrfs_is_fstree(BTRFS_DATA_RELOC_TREE_OBJECTID));
}

static void test_qgroupid(void)
{
	u64 id = btrfs_qgroup_mkid(1, 100);

	CHECK_EQ_U64(id, 0x0001000000000064ULL);
	CHECK_EQ_U64(btrfs_qgroup_level(id), 1);
	CHECK_EQ_U64(btrfs_qgroup_subvolid(id), 100);
	CHECK_EQ_U64(btrfs_qgroup_mkid(0, 257), 257);
	CHECK_EQ_U64(btrfs_qgroup_level(257), 0);
	CHECK_EQ_U64(btrfs_qgroup_subvolid(0xffff000000000005ULL), 5);
	CHECK_EQ_U64(btrfs_qgroup_level(0xffff000000000005ULL), 0xffff);
}

static void test_keys(void)
{
	struct btrfs_key a = { 5, BTRFS_ROOT_ITEM_KEY, 0 };
	struct btrfs_key b = { 5, BTRFS_ROOT_ITEM_KEY, 1 };
	struct btrfs_key c = { 5, BTRFS_ROOT_REF_KEY, 0 };
	struct btrfs_key d = { 6, BTRFS_INODE_ITEM_KEY, 0 };
	struct btrfs_key big = { -1ULL, 0, 0 };
	struct btrfs_key out;
	struct btrfs_disk_key dk;
	const u8 expect[17] = { 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, 0x54,
				0x18, 0x17, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11 };
	struct btrfs_key k = { 0x0102030405060708ULL, BTRFS_DIR_ITEM_KEY, 0x1112131415161718ULL };

	CHECK(btrfs_key_cmp(&a, &a) == 0);
	CHECK(btrfs_key_cmp(&a, &b) < 0);
	CHECK(btrfs_key_cmp(&b, &a) > 0);
	CHECK(btrfs_key_cmp(&b, &c) < 0);	/* type before offset */
	CHECK(btrfs_key_cmp(&c, &d) < 0);	/* objectid before type */
	CHECK(btrfs_key_cmp(&d, &big) < 0);	/* unsigned comparison */
	CHECK(btrfs_key_cmp(&big, &a) > 0);

	btrfs_cpu_key_to_disk(&dk, &k);
	CHECK_MEM(&dk, expect, 17);
	btrfs_disk_key_to_cpu(&out, &dk);
	CHECK(btrfs_key_cmp(&out, &k) == 0);
	CHECK_EQ_U64(btrfs_disk_key_objectid(&dk), k.objectid);
	CHECK_EQ_U64(btrfs_disk_key_type(&dk), BTRFS_DIR_ITEM_KEY);
	CHECK_EQ_U64(btrfs_disk_key_offset(&dk), k.offset);

	/* UUID tree key, observed on a 6.18 image */
	{
		const u8 uuid[16] = { 0x0b, 0x4d, 0x03, 0x6f, 0x22, 0x95, 0x72, 0x49,
				      0xb5, 0x1c, 0x97, 0xc9, 0x14, 0x84, 0xbc, 0xb3 };

		btrfs_uuid_to_key(uuid, BTRFS_UUID_KEY_SUBVOL, &out);
		CHECK_EQ_U64(out.objectid, 0x497295226f034d0bULL);
		CHECK_EQ_U64(out.type, BTRFS_UUID_KEY_SUBVOL);
		CHECK_EQ_U64(out.offset, 0xb3bc8414c9971cb5ULL);
	}
}

static void test_accessors(void)
{
	/* Deliberately misaligned buffer to exercise unaligned access */
	unsigned char *buf = calloc(1, 8192 + 1);
	struct btrfs_header *h = (struct btrfs_header *)(buf + 1);
	struct btrfs_item *item;
	struct btrfs_super_block *sb;
	struct btrfs_chunk *chunk;
	struct btrfs_root_item *ri;
	struct btrfs_key key = { 256, BTRFS_INODE_ITEM_KEY, 0 }, out;
	const u8 fsid[16] = "0123456789abcdef";

	if (!CHECK(buf != NULL))
		return;

	btrfs_set_header_nritems(h, 0x01020304);
	CHECK_EQ_U64(btrfs_header_nritems(h), 0x01020304);
	CHECK_EQ_U64(((u8 *)h)[96], 0x04);
	CHECK_EQ_U64(((u8 *)h)[99], 0x01);
	btrfs_set_header_bytenr(h, 0x1122334455667788ULL);
	CHECK_EQ_U64(((u8 *)h)[48], 0x88);
	CHECK_EQ_U64(btrfs_header_bytenr(h), 0x1122334455667788ULL);
	btrfs_set_header_flags(h, BTRFS_HEADER_FLAG_WRITTEN);
	btrfs_set_header_backref_rev(h, BTRFS_MIXED_BACKREF_REV);
	CHECK_EQ_U64(btrfs_header_flags(h), 0x0100000000000001ULL);
	CHECK_EQ_U64(btrfs_header_backref_rev(h), 1);
	btrfs_set_header_level(h, 3);
	CHECK_EQ_U64(((u8 *)h)[100], 3);
	btrfs_set_header_fsid(h, fsid);
	CHECK_MEM(btrfs_header_fsid(h), fsid, 16);
	CHECK_MEM((u8 *)h + 32, fsid, 16);

	item = (struct btrfs_item *)((u8 *)h + sizeof(*h));
	btrfs_set_item_key(item, &key);
	btrfs_set_item_offset(item, 16283 - 160);
	btrfs_set_item_size(item, 160);
	btrfs_item_key(item, &out);
	CHECK(btrfs_key_cmp(&out, &key) == 0);
	CHECK_EQ_U64(btrfs_item_offset(item), 16123);
	CHECK_EQ_U64(get_le32((u8 *)item + 21), 160);

	memset(buf, 0, 8193);
	sb = (struct btrfs_super_block *)(buf + 1);
	btrfs_set_super_magic(sb, BTRFS_MAGIC);
	CHECK_MEM((u8 *)sb + 64, "_BHRfS_M", 8);
	btrfs_set_super_csum_type(sb, BTRFS_CSUM_TYPE_BLAKE2);
	CHECK_EQ_U64(get_le16((u8 *)sb + 196), 3);
	btrfs_set_dev_item_devid(btrfs_super_dev_item(sb), 1);
	CHECK_EQ_U64(get_le64((u8 *)sb + 201), 1);
	btrfs_set_backup_tree_root_gen(btrfs_super_backup(sb, 2), 77);
	CHECK_EQ_U64(get_le64((u8 *)sb + 2859 + 2 * 168 + 8), 77);
	btrfs_set_super_label(sb, (const char[256]){ "volctl" });
	CHECK_STR(btrfs_super_label(sb), "volctl");

	chunk = (struct btrfs_chunk *)btrfs_super_sys_chunk_array(sb);
	btrfs_set_chunk_num_stripes(chunk, 2);
	btrfs_set_stripe_offset(btrfs_chunk_stripe(chunk, 1), 38797312);
	CHECK_EQ_U64(get_le64((u8 *)sb + 811 + 48 + 32 + 8), 38797312);

	memset(buf, 0, 8193);
	ri = (struct btrfs_root_item *)(buf + 1);
	btrfs_set_inode_mode(btrfs_root_inode(ri), 040755);
	CHECK_EQ_U64(get_le32((u8 *)ri + 52), 040755);
	btrfs_set_timespec_nsec(btrfs_root_otime(ri), 123);
	CHECK_EQ_U64(get_le32((u8 *)ri + 339 + 8), 123);
	btrfs_set_root_drop_progress(ri, &key);
	CHECK_EQ_U64(get_le64((u8 *)ri + 220), 256);
	CHECK_EQ_U64(((u8 *)ri)[228], BTRFS_INODE_ITEM_KEY);
	btrfs_set_root_refs(ri, 1);
	CHECK_EQ_U64(btrfs_root_refs(ri), 1);

	free(buf);
}

int main(void)
{
	test_sizes();
	test_super_offsets();
	test_tree_offsets();
	test_item_offsets();
	test_constants();
	test_qgroupid();
	test_keys();
	test_accessors();
	return unit_finish();
}
