// SPDX-License-Identifier: GPL-2.0-only
/*
 * The descriptions of everything `volctl inspect` prints: the one place that
 * names the dump's text labels and JSON keys (a field's name is both), and
 * the names of its flag bits (see common/output/records-inspect.h).  JSON keys are
 * snake_case (Documentation/json-schema.md); tests/unit/test-records.c holds
 * every name declared here to that rule.
 */
#include "common/output/records-inspect.h"
#include "kernel-shared/super.h"

/* ---- flag names ---- */

static const struct vc_dump_flag_name super_flag_names[] = {
	{ BTRFS_SUPER_FLAG_WRITTEN, "WRITTEN" },
	{ BTRFS_SUPER_FLAG_ERROR, "ERROR" },
	{ BTRFS_SUPER_FLAG_SEEDING, "SEEDING" },
	{ BTRFS_SUPER_FLAG_METADUMP, "METADUMP" },
	{ BTRFS_SUPER_FLAG_METADUMP_V2, "METADUMP_V2" },
	{ BTRFS_SUPER_FLAG_CHANGING_FSID, "CHANGING_FSID" },
	{ BTRFS_SUPER_FLAG_CHANGING_FSID_V2, "CHANGING_FSID_V2" },
	{ BTRFS_SUPER_FLAG_CHANGING_BG_TREE, "CHANGING_BG_TREE" },
	{ BTRFS_SUPER_FLAG_CHANGING_DATA_CSUM, "CHANGING_DATA_CSUM" },
	{ BTRFS_SUPER_FLAG_CHANGING_META_CSUM, "CHANGING_META_CSUM" },
	{ 0, NULL },
};
static const struct vc_dump_flags super_flags = { super_flag_names, NULL };

static const struct vc_dump_flag_name no_flag_names[] = {
	{ 0, NULL },
};
static const struct vc_dump_flags no_flags = { no_flag_names, NULL };
static const struct vc_dump_flags compat_ro_flags = { NULL, btrfs_compat_ro_name };
static const struct vc_dump_flags incompat_flags = { NULL, btrfs_incompat_name };

static const struct vc_dump_flag_name header_flag_names[] = {
	{ BTRFS_HEADER_FLAG_WRITTEN, "WRITTEN" },
	{ BTRFS_HEADER_FLAG_RELOC, "RELOC" },
	{ 0, NULL },
};
static const struct vc_dump_flags header_flags = { header_flag_names, NULL };

static const struct vc_dump_flag_name bg_flag_names[] = {
	{ BTRFS_BLOCK_GROUP_DATA, "DATA" },
	{ BTRFS_BLOCK_GROUP_SYSTEM, "SYSTEM" },
	{ BTRFS_BLOCK_GROUP_METADATA, "METADATA" },
	{ BTRFS_BLOCK_GROUP_RAID0, "RAID0" },
	{ BTRFS_BLOCK_GROUP_RAID1, "RAID1" },
	{ BTRFS_BLOCK_GROUP_DUP, "DUP" },
	{ BTRFS_BLOCK_GROUP_RAID10, "RAID10" },
	{ BTRFS_BLOCK_GROUP_RAID5, "RAID5" },
	{ BTRFS_BLOCK_GROUP_RAID6, "RAID6" },
	{ BTRFS_BLOCK_GROUP_RAID1C3, "RAID1C3" },
	{ BTRFS_BLOCK_GROUP_RAID1C4, "RAID1C4" },
	{ 0, NULL },
};
static const struct vc_dump_flags bg_flags = { bg_flag_names, NULL };

static const struct vc_dump_flag_name extent_flag_names[] = {
	{ BTRFS_EXTENT_FLAG_DATA, "DATA" },
	{ BTRFS_EXTENT_FLAG_TREE_BLOCK, "TREE_BLOCK" },
	{ BTRFS_BLOCK_FLAG_FULL_BACKREF, "FULL_BACKREF" },
	{ 0, NULL },
};
static const struct vc_dump_flags extent_flags = { extent_flag_names, NULL };

static const struct vc_dump_flag_name root_flag_names[] = {
	{ BTRFS_ROOT_SUBVOL_RDONLY, "RDONLY" },
	{ BTRFS_ROOT_SUBVOL_DEAD, "DEAD" },
	{ 0, NULL },
};
static const struct vc_dump_flags root_flags = { root_flag_names, NULL };

static const struct vc_dump_flag_name inode_flag_names[] = {
	{ BTRFS_INODE_NODATASUM, "NODATASUM" },
	{ BTRFS_INODE_NODATACOW, "NODATACOW" },
	{ BTRFS_INODE_READONLY, "READONLY" },
	{ BTRFS_INODE_NOCOMPRESS, "NOCOMPRESS" },
	{ BTRFS_INODE_PREALLOC, "PREALLOC" },
	{ BTRFS_INODE_SYNC, "SYNC" },
	{ BTRFS_INODE_IMMUTABLE, "IMMUTABLE" },
	{ BTRFS_INODE_APPEND, "APPEND" },
	{ BTRFS_INODE_NODUMP, "NODUMP" },
	{ BTRFS_INODE_NOATIME, "NOATIME" },
	{ BTRFS_INODE_DIRSYNC, "DIRSYNC" },
	{ BTRFS_INODE_COMPRESS, "COMPRESS" },
	{ BTRFS_INODE_ROOT_ITEM_INIT, "ROOT_ITEM_INIT" },
	{ 0, NULL },
};
static const struct vc_dump_flags inode_flags = { inode_flag_names, NULL };

static const struct vc_dump_flag_name qgroup_status_flag_names[] = {
	{ BTRFS_QGROUP_STATUS_FLAG_ON, "ON" },
	{ BTRFS_QGROUP_STATUS_FLAG_RESCAN, "RESCAN" },
	{ BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT, "INCONSISTENT" },
	{ BTRFS_QGROUP_STATUS_FLAG_SIMPLE_MODE, "SIMPLE_MODE" },
	{ 0, NULL },
};
static const struct vc_dump_flags qgroup_status_flags = { qgroup_status_flag_names, NULL };

static const struct vc_dump_flag_name qgroup_limit_flag_names[] = {
	{ BTRFS_QGROUP_LIMIT_MAX_RFER, "MAX_RFER" },
	{ BTRFS_QGROUP_LIMIT_MAX_EXCL, "MAX_EXCL" },
	{ BTRFS_QGROUP_LIMIT_RSV_RFER, "RSV_RFER" },
	{ BTRFS_QGROUP_LIMIT_RSV_EXCL, "RSV_EXCL" },
	{ BTRFS_QGROUP_LIMIT_RFER_CMPR, "RFER_CMPR" },
	{ BTRFS_QGROUP_LIMIT_EXCL_CMPR, "EXCL_CMPR" },
	{ 0, NULL },
};
static const struct vc_dump_flags qgroup_limit_flags = { qgroup_limit_flag_names, NULL };

/* ---- JSON objects of a key and a time ---- */

static const struct rec_field key_fields[] = {
	VC_DF("objectid", REC_DK_UINT, struct btrfs_key, objectid),
	VC_DF("type", REC_DK_UINT, struct btrfs_key, type),
	VC_DF("type_name", REC_DK_TYPENAME, struct btrfs_key, type),
	VC_DF("offset", REC_DK_UINT, struct btrfs_key, offset),
};
const struct rec_desc vc_dump_key_json = REC_DESC("key", key_fields);

static const struct rec_field time_fields[] = {
	VC_DF("sec", REC_DK_SINT, struct btrfs_time, sec),
	VC_DF("nsec", REC_DK_UINT, struct btrfs_time, nsec),
};
const struct rec_desc vc_dump_time_json = REC_DESC("time", time_fields);

/* ---- the superblock ---- */

#define S struct vc_dump_super_rec
static const struct rec_field super_head_fields[] = {
	VC_DF("device", REC_DK_STR, S, device),
	VC_DF("mirror", REC_DK_UINT, S, mirror),
	VC_DF("offset", REC_DK_UINT, S, offset),
	VC_DF("csum_type", REC_DK_UINT, S, csum_type),
	VC_DF("csum_type_name", REC_DK_STR, S, csum_type_name),
	VC_DF_CSUM("csum", S, csum, csum_alg),
	VC_DF("csum_status", REC_DK_STR, S, csum_status),
	VC_DF_IF(S, problem),
	VC_DF("problem", REC_DK_STR, S, problem),
	VC_DF_END,
};
#undef S
const struct rec_desc vc_dump_super_head = REC_DESC("superblock copy", super_head_fields);

#define SB struct btrfs_super_block
#define LE(name, kind, member) VC_DF_F((name), (kind), REC_LE, SB, member)
static const struct rec_field super_sb_fields[] = {
	LE("bytenr", REC_DK_UINT, bytenr),
	VC_DF_LE_AUX("flags", REC_DK_FLAGS, SB, flags, &super_flags),
	LE("magic", REC_DK_HEX, magic),
	VC_DF("magic_text", REC_DK_ASCII, SB, magic),
	VC_DF("fsid", REC_DK_UUID, SB, fsid),
	VC_DF("metadata_uuid", REC_DK_UUID, SB, metadata_uuid),
	VC_DF("label", REC_DK_CHARS, SB, label),
	LE("generation", REC_DK_UINT, generation),
	LE("root", REC_DK_UINT, root),
	LE("root_level", REC_DK_UINT, root_level),
	LE("chunk_root", REC_DK_UINT, chunk_root),
	LE("chunk_root_level", REC_DK_UINT, chunk_root_level),
	LE("chunk_root_generation", REC_DK_UINT, chunk_root_generation),
	LE("log_root", REC_DK_UINT, log_root),
	LE("log_root_level", REC_DK_UINT, log_root_level),
	LE("log_root_transid", REC_DK_UINT, unused_log_root_transid),
	LE("total_bytes", REC_DK_UINT, total_bytes),
	LE("bytes_used", REC_DK_UINT, bytes_used),
	LE("root_dir_objectid", REC_DK_UINT, root_dir_objectid),
	LE("num_devices", REC_DK_UINT, num_devices),
	LE("sectorsize", REC_DK_UINT, sectorsize),
	LE("nodesize", REC_DK_UINT, nodesize),
	LE("leafsize", REC_DK_UINT, unused_leafsize),
	LE("stripesize", REC_DK_UINT, stripesize),
	LE("sys_chunk_array_size", REC_DK_UINT, sys_chunk_array_size),
	VC_DF_LE_AUX("compat_flags", REC_DK_FLAGS, SB, compat_flags, &no_flags),
	VC_DF_LE_AUX("compat_ro_flags", REC_DK_FLAGS, SB, compat_ro_flags, &compat_ro_flags),
	VC_DF_LE_AUX("incompat_flags", REC_DK_FLAGS, SB, incompat_flags, &incompat_flags),
	LE("cache_generation", REC_DK_UINT, cache_generation),
	LE("uuid_tree_generation", REC_DK_UINT, uuid_tree_generation),
	LE("nr_global_roots", REC_DK_UINT, nr_global_roots),
	LE("remap_root", REC_DK_UINT, remap_root),
	LE("remap_root_generation", REC_DK_UINT, remap_root_generation),
	LE("remap_root_level", REC_DK_UINT, remap_root_level),
};
#undef LE
#undef SB
const struct rec_desc vc_dump_super_sb = REC_DESC("superblock", super_sb_fields);

#define D struct btrfs_dev_item_rec
static const struct rec_field dev_item_fields[] = {
	VC_DF("devid", REC_DK_UINT, D, devid),
	VC_DF("total_bytes", REC_DK_UINT, D, total_bytes),
	VC_DF("bytes_used", REC_DK_UINT, D, bytes_used),
	VC_DF("io_align", REC_DK_UINT, D, io_align),
	VC_DF("io_width", REC_DK_UINT, D, io_width),
	VC_DF("sector_size", REC_DK_UINT, D, sector_size),
	VC_DF("type", REC_DK_UINT, D, type),
	VC_DF("generation", REC_DK_UINT, D, generation),
	VC_DF("start_offset", REC_DK_UINT, D, start_offset),
	VC_DF("dev_group", REC_DK_UINT, D, dev_group),
	VC_DF("seek_speed", REC_DK_UINT, D, seek_speed),
	VC_DF("bandwidth", REC_DK_UINT, D, bandwidth),
	VC_DF("uuid", REC_DK_UUID, D, uuid),
	VC_DF("fsid", REC_DK_UUID, D, fsid),
};
const struct rec_desc vc_dump_dev_item = REC_DESC("dev item", dev_item_fields);

/* the dev item of the superblock and of a DEV_ITEM: an object of its own */
static const struct rec_field dev_item_obj_fields[] = {
	VC_DF_OBJECT("dev_item", "dev_item"),
	VC_DUMP_FIELD(NULL, NULL, REC_DK_SUB, 0, 0, 0, 0, 0, &vc_dump_dev_item),
	VC_DF_END,
};
#undef D
const struct rec_desc vc_dump_dev_item_obj =
	REC_DESC("dev item object", dev_item_obj_fields);

static const struct rec_field dev_item_raw_fields[] = {
	VC_DF_BYTES("dev_item", struct vc_dump_raw, data, len),
};
const struct rec_desc vc_dump_dev_item_raw =
	REC_DESC("dev item (raw)", dev_item_raw_fields);

#define C struct btrfs_chunk_rec
static const struct rec_field chunk_fields[] = {
	VC_DF("length", REC_DK_UINT, C, length),
	VC_DF("owner", REC_DK_UINT, C, owner),
	VC_DF("stripe_len", REC_DK_UINT, C, stripe_len),
	VC_DF_AUX("type", REC_DK_FLAGS, C, type, &bg_flags),
	VC_DF("io_align", REC_DK_UINT, C, io_align),
	VC_DF("io_width", REC_DK_UINT, C, io_width),
	VC_DF("sector_size", REC_DK_UINT, C, sector_size),
	VC_DF("num_stripes", REC_DK_UINT, C, num_stripes),
	VC_DF("sub_stripes", REC_DK_UINT, C, sub_stripes),
};
#undef C
const struct rec_desc vc_dump_chunk = REC_DESC("chunk", chunk_fields);

static const struct rec_field stripe_fields[] = {
	VC_DF("devid", REC_DK_UINT, struct btrfs_stripe_rec, devid),
	VC_DF("offset", REC_DK_UINT, struct btrfs_stripe_rec, offset),
	VC_DF("dev_uuid", REC_DK_UUID, struct btrfs_stripe_rec, dev_uuid),
};
const struct rec_desc vc_dump_stripe = REC_DESC("stripe", stripe_fields);
const struct vc_dump_list vc_dump_stripes = {
	.name = "stripes", .elem = "stripe", .numbered = true, .desc = &vc_dump_stripe,
};

static const struct rec_field sys_chunk_key_fields[] = {
	VC_DF("key", REC_DK_KEY, struct vc_dump_sys_chunk_rec, key),
};
const struct rec_desc vc_dump_sys_chunk_key =
	REC_DESC("system chunk", sys_chunk_key_fields);

static const struct rec_field sys_chunk_bad_fields[] = {
	VC_DF_NOTE("error", "invalid chunk entry"),
	VC_DF_BYTES("data", struct vc_dump_sys_chunk_rec, raw.data, raw.len),
};
const struct rec_desc vc_dump_sys_chunk_bad =
	REC_DESC("system chunk (bad)", sys_chunk_bad_fields);
const struct vc_dump_list vc_dump_sys_chunks = {
	.name = "sys_chunk_array", .title = "sys_chunk_array", .elem = "chunk",
};

#define B struct vc_dump_backup_rec
#define LE(name, member) VC_DF_F((name), REC_DK_UINT, REC_LE, B, b.member)
static const struct rec_field backup_fields[] = {
	VC_DF("slot", REC_DK_UINT, B, slot),
	LE("tree_root", tree_root),
	LE("tree_root_gen", tree_root_gen),
	LE("tree_root_level", tree_root_level),
	LE("chunk_root", chunk_root),
	LE("chunk_root_gen", chunk_root_gen),
	LE("chunk_root_level", chunk_root_level),
	LE("extent_root", extent_root),
	LE("extent_root_gen", extent_root_gen),
	LE("extent_root_level", extent_root_level),
	LE("fs_root", fs_root),
	LE("fs_root_gen", fs_root_gen),
	LE("fs_root_level", fs_root_level),
	LE("dev_root", dev_root),
	LE("dev_root_gen", dev_root_gen),
	LE("dev_root_level", dev_root_level),
	LE("csum_root", csum_root),
	LE("csum_root_gen", csum_root_gen),
	LE("csum_root_level", csum_root_level),
	LE("total_bytes", total_bytes),
	LE("bytes_used", bytes_used),
	LE("num_devices", num_devices),
};
#undef LE
#undef B
static const struct rec_desc backup_desc = REC_DESC("backup root", backup_fields);
const struct vc_dump_list vc_dump_backup_roots = {
	.name = "backup_roots", .title = "backup_roots", .elem = "backup", .numbered = true,
	.desc = &backup_desc,
};

const struct vc_dump_list vc_dump_superblocks = { .name = "superblocks" };

/* ---- tree blocks ---- */

#define H struct vc_dump_header_rec
static const struct rec_field header_fields[] = {
	VC_DF_F("bytenr", REC_DK_UINT, REC_JSON_ONLY, H, bytenr),
	VC_DF_F("level", REC_DK_UINT, REC_JSON_ONLY, H, level),
	VC_DF_F("nritems", REC_DK_UINT, REC_JSON_ONLY, H, nritems),
	VC_DF_F("generation", REC_DK_UINT, REC_JSON_ONLY, H, generation),
	VC_DF_F("owner", REC_DK_UINT, REC_JSON_ONLY, H, owner),
	VC_DF_AUX("flags", REC_DK_FLAGS, H, flags, &header_flags),
	VC_DF("backref_rev", REC_DK_UINT, H, backref_rev),
	VC_DF("fsid", REC_DK_UUID, H, fsid),
	VC_DF("chunk_tree_uuid", REC_DK_UUID, H, chunk_tree_uuid),
	VC_DF_CSUM("csum", H, csum, csum_type),
	VC_DF_IF(H, leaf),
	VC_DF("free_space", REC_DK_UINT, H, free_space),
	VC_DF_END,
};
#undef H
const struct rec_desc vc_dump_header = REC_DESC("block header", header_fields);

#define P struct vc_dump_slot_rec
static const struct rec_field ptr_fields[] = {
	VC_DF_F("slot", REC_DK_UINT, REC_JSON_ONLY, P, slot),
	VC_DF_F("key", REC_DK_KEY, REC_JSON_ONLY, P, key),
	VC_DF_F("blockptr", REC_DK_UINT, REC_JSON_ONLY, P, blockptr),
	VC_DF_F("generation", REC_DK_UINT, REC_JSON_ONLY, P, generation),
};
static const struct rec_field leaf_item_fields[] = {
	VC_DF_F("slot", REC_DK_UINT, REC_JSON_ONLY, P, slot),
	VC_DF_F("key", REC_DK_KEY, REC_JSON_ONLY, P, key),
	VC_DF_F("offset", REC_DK_UINT, REC_JSON_ONLY, P, offset),
	VC_DF_F("size", REC_DK_UINT, REC_JSON_ONLY, P, size),
};
#undef P
const struct rec_desc vc_dump_ptr = REC_DESC("key pointer", ptr_fields);
const struct rec_desc vc_dump_leaf_item = REC_DESC("leaf item", leaf_item_fields);
const struct vc_dump_list vc_dump_ptrs = { .name = "ptrs", .desc = &vc_dump_ptr };
const struct vc_dump_list vc_dump_items = { .name = "items", .desc = &vc_dump_leaf_item };

const struct vc_dump_list vc_dump_body = { .name = "body", .object = true };

static const struct rec_field body_raw_fields[] = {
	VC_DF_BYTES("data", struct vc_dump_raw, data, len),
};
const struct rec_desc vc_dump_body_raw = REC_DESC("item body (raw)", body_raw_fields);

static const struct rec_field body_bad_fields[] = {
	VC_DF_NOTE("error", "item body does not decode"),
	VC_DF_BYTES("data", struct vc_dump_raw, data, len),
};
const struct rec_desc vc_dump_body_bad = REC_DESC("item body (bad)", body_bad_fields);

/* ---- item bodies ---- */

#define I struct btrfs_inode_rec
static const struct rec_field inode_fields[] = {
	VC_DF("generation", REC_DK_UINT, I, generation),
	VC_DF("transid", REC_DK_UINT, I, transid),
	VC_DF("size", REC_DK_UINT, I, size),
	VC_DF("nbytes", REC_DK_UINT, I, nbytes),
	VC_DF("block_group", REC_DK_UINT, I, block_group),
	VC_DF("nlink", REC_DK_UINT, I, nlink),
	VC_DF("uid", REC_DK_UINT, I, uid),
	VC_DF("gid", REC_DK_UINT, I, gid),
	VC_DF("mode", REC_DK_OCT, I, mode),
	VC_DF("rdev", REC_DK_UINT, I, rdev),
	VC_DF_AUX("flags", REC_DK_FLAGS, I, flags, &inode_flags),
	VC_DF("sequence", REC_DK_UINT, I, sequence),
	VC_DF("atime", REC_DK_TIME, I, atime),
	VC_DF("ctime", REC_DK_TIME, I, ctime),
	VC_DF("mtime", REC_DK_TIME, I, mtime),
	VC_DF("otime", REC_DK_TIME, I, otime),
};
#undef I
const struct rec_desc vc_dump_inode = REC_DESC("inode item", inode_fields);

static const struct rec_field inode_ref_fields[] = {
	VC_DF("index", REC_DK_UINT, struct btrfs_inode_ref_rec, index),
	VC_DF("name", REC_DK_CHARS, struct btrfs_inode_ref_rec, name),
};
const struct rec_desc vc_dump_inode_ref = REC_DESC("inode ref", inode_ref_fields);
const struct vc_dump_list vc_dump_inode_refs = {
	.name = "refs", .elem = "ref", .desc = &vc_dump_inode_ref,
};

static const struct rec_field inode_extref_fields[] = {
	VC_DF("parent", REC_DK_UINT, struct btrfs_inode_extref_rec, parent),
	VC_DF("index", REC_DK_UINT, struct btrfs_inode_extref_rec, index),
	VC_DF("name", REC_DK_CHARS, struct btrfs_inode_extref_rec, name),
};
const struct rec_desc vc_dump_inode_extref = REC_DESC("inode extref", inode_extref_fields);
const struct vc_dump_list vc_dump_inode_extrefs = {
	.name = "refs", .elem = "extref", .desc = &vc_dump_inode_extref,
};

#define DI struct btrfs_dir_item_rec
static const struct rec_field dir_item_fields[] = {
	VC_DF("location", REC_DK_KEY, DI, location),
	VC_DF("type", REC_DK_UINT, DI, type),
	VC_DF("transid", REC_DK_UINT, DI, transid),
	VC_DF("name", REC_DK_CHARS, DI, name),
	VC_DF("data_len", REC_DK_UINT, DI, data_len),
	VC_DF_IF(DI, data_len),
	VC_DF_BYTES("data", DI, data, data_len),
	VC_DF_END,
};
#undef DI
const struct rec_desc vc_dump_dir_item = REC_DESC("dir item", dir_item_fields);
const struct vc_dump_list vc_dump_dir_entries = {
	.name = "entries", .elem = "entry", .desc = &vc_dump_dir_item,
};
const struct vc_dump_list vc_dump_xattrs = {
	.name = "entries", .elem = "xattr", .desc = &vc_dump_dir_item,
};

#define R struct btrfs_root_rec
static const struct rec_field root_item_fields[] = {
	VC_DF("generation", REC_DK_UINT, R, generation),
	VC_DF("root_dirid", REC_DK_UINT, R, root_dirid),
	VC_DF("bytenr", REC_DK_UINT, R, bytenr),
	VC_DF("level", REC_DK_UINT, R, level),
	VC_DF("byte_limit", REC_DK_UINT, R, byte_limit),
	VC_DF("bytes_used", REC_DK_UINT, R, bytes_used),
	VC_DF("last_snapshot", REC_DK_UINT, R, last_snapshot),
	VC_DF_AUX("flags", REC_DK_FLAGS, R, flags, &root_flags),
	VC_DF("refs", REC_DK_UINT, R, refs),
	VC_DF("drop_progress", REC_DK_KEY, R, drop_progress),
	VC_DF("drop_level", REC_DK_UINT, R, drop_level),
	VC_DF("generation_v2", REC_DK_UINT, R, generation_v2),
	VC_DF("has_v2", REC_DK_BOOL, R, has_v2),
	VC_DF_IF(R, has_v2),
	VC_DF("uuid", REC_DK_UUID, R, uuid),
	VC_DF("parent_uuid", REC_DK_UUID, R, parent_uuid),
	VC_DF("received_uuid", REC_DK_UUID, R, received_uuid),
	VC_DF("ctransid", REC_DK_UINT, R, ctransid),
	VC_DF("otransid", REC_DK_UINT, R, otransid),
	VC_DF("stransid", REC_DK_UINT, R, stransid),
	VC_DF("rtransid", REC_DK_UINT, R, rtransid),
	VC_DF("ctime", REC_DK_TIME, R, ctime),
	VC_DF("otime", REC_DK_TIME, R, otime),
	VC_DF("stime", REC_DK_TIME, R, stime),
	VC_DF("rtime", REC_DK_TIME, R, rtime),
	VC_DF_END,
	VC_DF_OBJECT("inode", "inode"),
	VC_DF_SUB(R, inode, &vc_dump_inode),
	VC_DF_END,
};
#undef R
const struct rec_desc vc_dump_root_item = REC_DESC("root item", root_item_fields);

static const struct rec_field root_ref_fields[] = {
	VC_DF("dirid", REC_DK_UINT, struct btrfs_root_ref_rec, dirid),
	VC_DF("sequence", REC_DK_UINT, struct btrfs_root_ref_rec, sequence),
	VC_DF("name", REC_DK_CHARS, struct btrfs_root_ref_rec, name),
};
const struct rec_desc vc_dump_root_ref = REC_DESC("root ref", root_ref_fields);

static const struct rec_field block_group_fields[] = {
	VC_DF("used", REC_DK_UINT, struct btrfs_block_group_rec, used),
	VC_DF("chunk_objectid", REC_DK_UINT, struct btrfs_block_group_rec, chunk_objectid),
	VC_DF_AUX("flags", REC_DK_FLAGS, struct btrfs_block_group_rec, flags, &bg_flags),
};
const struct rec_desc vc_dump_block_group = REC_DESC("block group", block_group_fields);

#define DE struct btrfs_dev_extent_rec
static const struct rec_field dev_extent_fields[] = {
	VC_DF("chunk_tree", REC_DK_UINT, DE, chunk_tree),
	VC_DF("chunk_objectid", REC_DK_UINT, DE, chunk_objectid),
	VC_DF("chunk_offset", REC_DK_UINT, DE, chunk_offset),
	VC_DF("length", REC_DK_UINT, DE, length),
	VC_DF("chunk_tree_uuid", REC_DK_UUID, DE, chunk_tree_uuid),
};
#undef DE
const struct rec_desc vc_dump_dev_extent = REC_DESC("dev extent", dev_extent_fields);

#define FS struct btrfs_free_space_info_rec
static const struct rec_field free_space_info_fields[] = {
	VC_DF("extent_count", REC_DK_UINT, FS, extent_count),
	VC_DF("flags", REC_DK_HEX, FS, flags),
	VC_DF_BIT("using_bitmaps", FS, flags, BTRFS_FREE_SPACE_USING_BITMAPS),
};
#undef FS
const struct rec_desc vc_dump_free_space_info =
	REC_DESC("free space info", free_space_info_fields);

#define E struct btrfs_extent_rec
static const struct rec_field extent_item_fields[] = {
	VC_DF("refs", REC_DK_UINT, E, refs),
	VC_DF("generation", REC_DK_UINT, E, generation),
	VC_DF_AUX("flags", REC_DK_FLAGS, E, flags, &extent_flags),
	VC_DF_IF(E, has_tree_block_info),
	VC_DF("tree_block_key", REC_DK_KEY, E, tree_block_key),
	VC_DF("tree_block_level", REC_DK_UINT, E, tree_block_level),
	VC_DF_END,
};
#undef E
const struct rec_desc vc_dump_extent_item = REC_DESC("extent item", extent_item_fields);

/* an inline ref: text titles it by its type, JSON names it in "type" */
#define X struct btrfs_extent_ref_rec
static const struct rec_field inline_ref_fields[] = {
	VC_DF_F("type", REC_DK_TYPESTR, REC_JSON_ONLY, X, type),
};
const struct rec_desc vc_dump_inline_ref = REC_DESC("inline ref", inline_ref_fields);
const struct vc_dump_list vc_dump_inline_refs = { .name = "inline_refs" };

static const struct rec_field tree_block_ref_fields[] = {
	VC_DF("root", REC_DK_UINT, X, root),
};
static const struct rec_field shared_block_ref_fields[] = {
	VC_DF("parent", REC_DK_UINT, X, parent),
};
static const struct rec_field extent_data_ref_fields[] = {
	VC_DF("root", REC_DK_UINT, X, root),
	VC_DF("objectid", REC_DK_UINT, X, objectid),
	VC_DF("offset", REC_DK_UINT, X, offset),
	VC_DF("count", REC_DK_UINT, X, count),
};
static const struct rec_field shared_data_ref_fields[] = {
	VC_DF("parent", REC_DK_UINT, X, parent),
	VC_DF("count", REC_DK_UINT, X, count),
};
#undef X
static const struct rec_desc tree_block_ref =
	REC_DESC("tree block ref", tree_block_ref_fields);
static const struct rec_desc shared_block_ref =
	REC_DESC("shared block ref", shared_block_ref_fields);
static const struct rec_desc extent_data_ref =
	REC_DESC("extent data ref", extent_data_ref_fields);
static const struct rec_desc shared_data_ref =
	REC_DESC("shared data ref", shared_data_ref_fields);

const struct rec_desc *vc_dump_ref_desc(u8 type)
{
	switch (type) {
	case BTRFS_TREE_BLOCK_REF_KEY:
	case BTRFS_EXTENT_OWNER_REF_KEY:
		return &tree_block_ref;
	case BTRFS_SHARED_BLOCK_REF_KEY:
		return &shared_block_ref;
	case BTRFS_EXTENT_DATA_REF_KEY:
		return &extent_data_ref;
	case BTRFS_SHARED_DATA_REF_KEY:
		return &shared_data_ref;
	}
	return NULL;
}

static const char *const file_extent_type_names[] = { "inline", "regular", "prealloc" };
static const struct vc_dump_enum file_extent_types = { file_extent_type_names, 3, "unknown" };

#define F struct btrfs_file_extent_rec
static const struct rec_field file_extent_fields[] = {
	VC_DF("generation", REC_DK_UINT, F, generation),
	VC_DF("type", REC_DK_UINT, F, type),
	VC_DF_AUX("type_name", REC_DK_ENUM, F, type, &file_extent_types),
	VC_DF("ram_bytes", REC_DK_UINT, F, ram_bytes),
	VC_DF("compression", REC_DK_UINT, F, compression),
	VC_DF("encryption", REC_DK_UINT, F, encryption),
	VC_DF("other_encoding", REC_DK_UINT, F, other_encoding),
};
static const struct rec_field file_extent_inline_fields[] = {
	VC_DF("inline_len", REC_DK_UINT, F, inline_len),
};
static const struct rec_field file_extent_regular_fields[] = {
	VC_DF("disk_bytenr", REC_DK_UINT, F, disk_bytenr),
	VC_DF("disk_num_bytes", REC_DK_UINT, F, disk_num_bytes),
	VC_DF("offset", REC_DK_UINT, F, offset),
	VC_DF("num_bytes", REC_DK_UINT, F, num_bytes),
};
#undef F
const struct rec_desc vc_dump_file_extent = REC_DESC("file extent", file_extent_fields);
const struct rec_desc vc_dump_file_extent_inline =
	REC_DESC("file extent (inline)", file_extent_inline_fields);
const struct rec_desc vc_dump_file_extent_regular =
	REC_DESC("file extent (regular)", file_extent_regular_fields);

const struct vc_dump_list vc_dump_uuid_subvols = {
	.name = "subvol_ids", .elem = "subvol_id", .bare = true,
};

#define Q struct btrfs_qgroup_status_rec
static const struct rec_field qgroup_status_fields[] = {
	VC_DF("version", REC_DK_UINT, Q, version),
	VC_DF("generation", REC_DK_UINT, Q, generation),
	VC_DF_AUX("flags", REC_DK_FLAGS, Q, flags, &qgroup_status_flags),
	VC_DF("rescan", REC_DK_UINT, Q, rescan),
	VC_DF_IF(Q, has_enable_gen),
	VC_DF("enable_gen", REC_DK_UINT, Q, enable_gen),
	VC_DF_END,
};
#undef Q
const struct rec_desc vc_dump_qgroup_status =
	REC_DESC("qgroup status", qgroup_status_fields);

#define Q struct btrfs_qgroup_info_rec
static const struct rec_field qgroup_info_fields[] = {
	VC_DF("generation", REC_DK_UINT, Q, generation),
	VC_DF("referenced", REC_DK_UINT, Q, rfer),
	VC_DF("referenced_compressed", REC_DK_UINT, Q, rfer_cmpr),
	VC_DF("exclusive", REC_DK_UINT, Q, excl),
	VC_DF("exclusive_compressed", REC_DK_UINT, Q, excl_cmpr),
};
#undef Q
const struct rec_desc vc_dump_qgroup_info = REC_DESC("qgroup info", qgroup_info_fields);

#define Q struct btrfs_qgroup_limit_rec
static const struct rec_field qgroup_limit_fields[] = {
	VC_DF_AUX("flags", REC_DK_FLAGS, Q, flags, &qgroup_limit_flags),
	VC_DF("max_referenced", REC_DK_UINT, Q, max_rfer),
	VC_DF("max_exclusive", REC_DK_UINT, Q, max_excl),
	VC_DF("rsv_referenced", REC_DK_UINT, Q, rsv_rfer),
	VC_DF("rsv_exclusive", REC_DK_UINT, Q, rsv_excl),
};
#undef Q
const struct rec_desc vc_dump_qgroup_limit = REC_DESC("qgroup limit", qgroup_limit_fields);

#define DS struct vc_dump_dev_stats_rec
static const struct rec_field dev_stats_fields[] = {
	VC_DF("write_errs", REC_DK_UINT, DS, v[0]),
	VC_DF("read_errs", REC_DK_UINT, DS, v[1]),
	VC_DF("flush_errs", REC_DK_UINT, DS, v[2]),
	VC_DF("corruption_errs", REC_DK_UINT, DS, v[3]),
	VC_DF("generation_errs", REC_DK_UINT, DS, v[4]),
};
#undef DS
const struct rec_desc vc_dump_dev_stats = REC_DESC("dev stats", dev_stats_fields);

static const struct rec_field csums_fields[] = {
	VC_DF("csums", REC_DK_UINT, struct vc_dump_csums_rec, csums),
};
const struct rec_desc vc_dump_csums = REC_DESC("csum item", csums_fields);

/* ---- inspect tree: trees and their counts ---- */

#define T struct vc_dump_tree_rec
static const struct rec_field tree_head_fields[] = {
	VC_DF_F("tree_id", REC_DK_UINT, REC_JSON_ONLY, T, tree_id),
	VC_DF_F("name", REC_DK_STR, REC_JSON_ONLY, T, name),
};
static const struct rec_field tree_counts_fields[] = {
	VC_DF("tree_id", REC_DK_UINT, T, tree_id),
	VC_DF("name", REC_DK_STR, T, name),
	VC_DF("nodes", REC_DK_UINT, T, nodes),
	VC_DF("leaves", REC_DK_UINT, T, leaves),
	VC_DF("items", REC_DK_UINT, T, items),
};
static const struct rec_field total_counts_fields[] = {
	VC_DF("nodes", REC_DK_UINT, T, nodes),
	VC_DF("leaves", REC_DK_UINT, T, leaves),
	VC_DF("items", REC_DK_UINT, T, items),
};
#undef T
const struct rec_desc vc_dump_tree_head = REC_DESC("tree", tree_head_fields);
const struct rec_desc vc_dump_tree_counts = REC_DESC("tree counts", tree_counts_fields);
const struct rec_desc vc_dump_total_counts = REC_DESC("total counts", total_counts_fields);
const struct vc_dump_list vc_dump_trees = { .name = "trees" };
const struct vc_dump_list vc_dump_tree_blocks = { .name = "blocks" };
const struct vc_dump_list vc_dump_walk_trees = { .name = "trees", .desc = &vc_dump_tree_counts };
const struct vc_dump_list vc_dump_total = { .name = "total", .object = true };

const struct rec_desc *const vc_dump_all[] = {
	&vc_dump_key_json, &vc_dump_time_json, &vc_dump_super_head, &vc_dump_super_sb,
	&vc_dump_dev_item, &vc_dump_dev_item_obj, &vc_dump_dev_item_raw, &vc_dump_chunk,
	&vc_dump_stripe, &vc_dump_sys_chunk_key, &vc_dump_sys_chunk_bad, &backup_desc,
	&vc_dump_header, &vc_dump_ptr, &vc_dump_leaf_item, &vc_dump_body_raw, &vc_dump_body_bad,
	&vc_dump_inode, &vc_dump_inode_ref, &vc_dump_inode_extref, &vc_dump_dir_item,
	&vc_dump_root_item, &vc_dump_root_ref, &vc_dump_block_group, &vc_dump_dev_extent,
	&vc_dump_free_space_info, &vc_dump_extent_item, &vc_dump_inline_ref, &tree_block_ref,
	&shared_block_ref, &extent_data_ref, &shared_data_ref, &vc_dump_file_extent,
	&vc_dump_file_extent_inline, &vc_dump_file_extent_regular, &vc_dump_qgroup_status,
	&vc_dump_qgroup_info, &vc_dump_qgroup_limit, &vc_dump_dev_stats, &vc_dump_csums,
	&vc_dump_tree_head, &vc_dump_tree_counts, &vc_dump_total_counts,
	NULL,
};

const struct vc_dump_list *const vc_dump_all_lists[] = {
	&vc_dump_stripes, &vc_dump_sys_chunks, &vc_dump_backup_roots, &vc_dump_superblocks,
	&vc_dump_ptrs, &vc_dump_items, &vc_dump_body, &vc_dump_inode_refs, &vc_dump_inode_extrefs,
	&vc_dump_dir_entries, &vc_dump_xattrs, &vc_dump_inline_refs, &vc_dump_uuid_subvols,
	&vc_dump_trees, &vc_dump_tree_blocks, &vc_dump_walk_trees, &vc_dump_total,
	NULL,
};
