/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What `volctl inspect` prints, described once (common/output/records-inspect.c):
 * the superblock, tree blocks and every item body it decodes, as tables of
 * fields (struct rec_desc of common/output/record.h, with the dump kinds
 * REC_DK_* and the VC_DF macros of common/output/offline-dump.h) over the decoded
 * records of kernel-shared/items.h, the on-disk structs of
 * kernel-shared/format.h, or the small value structs below.  The one place
 * that names their text labels and JSON keys; print them with vc_dump_rec().
 */
#ifndef VOLCTL_COMMON_RECORDS_INSPECT_H
#define VOLCTL_COMMON_RECORDS_INSPECT_H

#include "common/output/offline-dump.h"
#include "kernel-shared/items.h"

/* Every description and container, for the naming check; NULL-terminated. */
extern const struct rec_desc *const vc_dump_all[];
extern const struct vc_dump_list *const vc_dump_all_lists[];

/* Raw bytes: an unknown item body, one that does not decode, a bad chunk */
struct vc_dump_raw {
	const u8 *data;
	u32 len;
};

/* A superblock copy: where it was read and what its checksum says ... */
struct vc_dump_super_rec {
	const char *device;
	u64 mirror, offset, csum_type;
	const char *csum_type_name;
	u8 csum[BTRFS_CSUM_SIZE];
	u16 csum_alg;
	const char *csum_status;
	const char *problem;		/* NULL: valid */
};
/* ... then its fields (vc_dump_super_sb: struct btrfs_super_block itself) */
extern const struct rec_desc vc_dump_super_head, vc_dump_super_sb;

/* super: the dev item, decoded (of struct btrfs_dev_item_rec) or raw */
extern const struct rec_desc vc_dump_dev_item, vc_dump_dev_item_obj, vc_dump_dev_item_raw;

/* chunks (struct btrfs_chunk_rec), their stripes (struct btrfs_stripe_rec) */
extern const struct rec_desc vc_dump_chunk, vc_dump_stripe;
extern const struct vc_dump_list vc_dump_stripes;

/* super: the system chunk array, a chunk's key or the bytes that do not decode */
struct vc_dump_sys_chunk_rec {
	struct btrfs_key key;
	struct vc_dump_raw raw;
};
extern const struct vc_dump_list vc_dump_sys_chunks;
extern const struct rec_desc vc_dump_sys_chunk_key, vc_dump_sys_chunk_bad;

/* super: the backup roots */
struct vc_dump_backup_rec {
	u64 slot;
	struct btrfs_root_backup b;
};
extern const struct vc_dump_list vc_dump_backup_roots;

/* A tree block: its header (the text shows the first five in its title) */
struct vc_dump_header_rec {
	u64 bytenr, level, nritems, generation, owner, flags, backref_rev;
	u8 fsid[BTRFS_FSID_SIZE];
	u8 chunk_tree_uuid[BTRFS_UUID_SIZE];
	u8 csum[BTRFS_CSUM_SIZE];
	u16 csum_type;
	bool leaf;
	u64 free_space;			/* leaves */
};
extern const struct rec_desc vc_dump_header;

/* A node's key pointer and a leaf's item (JSON; text shows them in the title) */
struct vc_dump_slot_rec {
	u64 slot;
	struct btrfs_key key;
	u64 blockptr, generation;	/* node */
	u64 offset, size;		/* leaf */
};
extern const struct rec_desc vc_dump_ptr, vc_dump_leaf_item;
extern const struct vc_dump_list vc_dump_ptrs, vc_dump_items;

/* An item's body: decoded, unknown (raw) or bad (raw and an error) */
extern const struct vc_dump_list vc_dump_body;
extern const struct rec_desc vc_dump_body_raw, vc_dump_body_bad;

/* A btrfs_key and a btrfs_time in JSON (the text prints each on one line) */
extern const struct rec_desc vc_dump_key_json, vc_dump_time_json;

/* Item bodies, over the records of kernel-shared/items.h */
extern const struct rec_desc vc_dump_inode, vc_dump_inode_ref, vc_dump_inode_extref,
	vc_dump_dir_item, vc_dump_root_item, vc_dump_root_ref, vc_dump_block_group,
	vc_dump_dev_extent, vc_dump_free_space_info, vc_dump_extent_item, vc_dump_inline_ref,
	vc_dump_file_extent, vc_dump_file_extent_inline, vc_dump_file_extent_regular,
	vc_dump_qgroup_status, vc_dump_qgroup_info, vc_dump_qgroup_limit;
extern const struct vc_dump_list vc_dump_inode_refs, vc_dump_inode_extrefs, vc_dump_dir_entries,
	vc_dump_xattrs, vc_dump_inline_refs, vc_dump_uuid_subvols;

/* A back reference's fields by its type (inline or keyed); NULL: none */
const struct rec_desc *vc_dump_ref_desc(u8 type);

/* PERSISTENT_ITEM of the device stats: as many counters as the item holds */
struct vc_dump_dev_stats_rec {
	u64 v[5];
};
extern const struct rec_desc vc_dump_dev_stats;

/* EXTENT_CSUM: how many checksums */
struct vc_dump_csums_rec {
	u64 csums;
};
extern const struct rec_desc vc_dump_csums;

/* inspect tree: a tree's dump, its counts (--walk-only) and the total */
struct vc_dump_tree_rec {
	u64 tree_id;
	const char *name;
	u64 nodes, leaves, items;
};
extern const struct rec_desc vc_dump_tree_head, vc_dump_tree_counts, vc_dump_total_counts;
extern const struct vc_dump_list vc_dump_trees, vc_dump_tree_blocks, vc_dump_walk_trees,
	vc_dump_total, vc_dump_superblocks;

#endif
