/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Item decoders: raw item payload bytes -> host-order records.
 *
 * This is the one place where item payloads are parsed.  The offline
 * backend feeds it leaf item data, the ioctl backend feeds it
 * TREE_SEARCH_V2 results, so both see the same records.
 *
 * Every decoder is bounds-checked against the item length @len and returns
 * 0, or -EUCLEAN when the payload is too short, a name length runs past the
 * item or is longer than BTRFS_NAME_LEN, or a type byte is unknown.  Longer
 * payloads than expected are accepted (trailing bytes are ignored) unless
 * noted.  Decoders do not apply the semantic checks of the kernel's
 * tree-checker; that belongs to the reader that knows the context.
 *
 * Items that pack several entries (INODE_REF, INODE_EXTREF, DIR_ITEM,
 * XATTR_ITEM, inline extent refs, UUID items) are read with *_next()
 * iterators: start with *pos = 0 (or the inline_start an extent item
 * reports), call until the return is not 0.  They return 0 for an entry
 * (and advance *pos), 1 at the end, <0 on error.
 *
 * Names are copied and NUL-terminated; name_len is the on-disk length.
 * Pointers in records (dir item data, inline file data, chunk stripes)
 * point into the caller's buffer and live as long as it does.
 */
#ifndef VOLCTL_KERNEL_SHARED_ITEMS_H
#define VOLCTL_KERNEL_SHARED_ITEMS_H

#include <stdbool.h>
#include "format.h"

struct btrfs_time {
	s64 sec;
	u32 nsec;
};

/* INODE_ITEM, also the inode embedded in a ROOT_ITEM */
struct btrfs_inode_rec {
	u64 generation;
	u64 transid;
	u64 size;
	u64 nbytes;
	u64 block_group;
	u32 nlink;
	u32 uid;
	u32 gid;
	u32 mode;
	u64 rdev;
	u64 flags;
	u64 sequence;
	struct btrfs_time atime;
	struct btrfs_time ctime;
	struct btrfs_time mtime;
	struct btrfs_time otime;
};

int btrfs_decode_inode_item(const void *data, u32 len, struct btrfs_inode_rec *out);

/*
 * ROOT_ITEM.  Items shorter than 439 bytes (the legacy 239-byte layout) have
 * no v2 fields.  As the kernel does, the v2 fields are also ignored when
 * generation_v2 != generation (an old kernel wrote the item): has_v2 is then
 * false and uuid .. rtime are zero.  generation_v2 keeps the raw on-disk
 * value (0 when absent) so callers can report the mismatch.
 */
struct btrfs_root_rec {
	struct btrfs_inode_rec inode;
	u64 generation;
	u64 root_dirid;
	u64 bytenr;
	u64 byte_limit;
	u64 bytes_used;
	u64 last_snapshot;
	u64 flags;
	u32 refs;
	struct btrfs_key drop_progress;
	u8 drop_level;
	u8 level;
	bool has_v2;
	u64 generation_v2;
	u8 uuid[BTRFS_UUID_SIZE];
	u8 parent_uuid[BTRFS_UUID_SIZE];
	u8 received_uuid[BTRFS_UUID_SIZE];
	u64 ctransid;
	u64 otransid;
	u64 stransid;
	u64 rtransid;
	struct btrfs_time ctime;
	struct btrfs_time otime;
	struct btrfs_time stime;
	struct btrfs_time rtime;
};

int btrfs_decode_root_item(const void *data, u32 len, struct btrfs_root_rec *out);

/* ROOT_REF and ROOT_BACKREF (same payload) */
struct btrfs_root_ref_rec {
	u64 dirid;
	u64 sequence;
	u16 name_len;
	char name[BTRFS_NAME_LEN + 1];
};

int btrfs_decode_root_ref(const void *data, u32 len, struct btrfs_root_ref_rec *out);

/* One entry of an INODE_REF item (key offset = parent directory) */
struct btrfs_inode_ref_rec {
	u64 index;
	u16 name_len;
	char name[BTRFS_NAME_LEN + 1];
};

int btrfs_inode_ref_next(const void *data, u32 len, u32 *pos, struct btrfs_inode_ref_rec *out);

/* One entry of an INODE_EXTREF item */
struct btrfs_inode_extref_rec {
	u64 parent;
	u64 index;
	u16 name_len;
	char name[BTRFS_NAME_LEN + 1];
};

int btrfs_inode_extref_next(const void *data, u32 len, u32 *pos,
			    struct btrfs_inode_extref_rec *out);

/*
 * One entry of a DIR_ITEM, DIR_INDEX or XATTR_ITEM.  type is the raw byte
 * (BTRFS_FT_*, possibly with BTRFS_FT_ENCRYPTED).  data points to data_len
 * bytes after the name (xattr value; 0 bytes for directory entries).
 */
struct btrfs_dir_item_rec {
	struct btrfs_key location;
	u64 transid;
	u16 data_len;
	u16 name_len;
	u8 type;
	char name[BTRFS_NAME_LEN + 1];
	const u8 *data;
};

int btrfs_dir_item_next(const void *data, u32 len, u32 *pos, struct btrfs_dir_item_rec *out);

/* QGROUP_STATUS; enable_gen exists only in 40-byte items (Linux 6.7+) */
struct btrfs_qgroup_status_rec {
	u64 version;
	u64 generation;
	u64 flags;
	u64 rescan;
	u64 enable_gen;
	bool has_enable_gen;
	u32 size;		/* of the item: 32 before Linux 6.7, 40 since */
};

int btrfs_decode_qgroup_status(const void *data, u32 len, struct btrfs_qgroup_status_rec *out);

struct btrfs_qgroup_info_rec {
	u64 generation;
	u64 rfer;
	u64 rfer_cmpr;
	u64 excl;
	u64 excl_cmpr;
};

int btrfs_decode_qgroup_info(const void *data, u32 len, struct btrfs_qgroup_info_rec *out);

struct btrfs_qgroup_limit_rec {
	u64 flags;
	u64 max_rfer;
	u64 max_excl;
	u64 rsv_rfer;
	u64 rsv_excl;
};

int btrfs_decode_qgroup_limit(const void *data, u32 len, struct btrfs_qgroup_limit_rec *out);

struct btrfs_stripe_rec {
	u64 devid;
	u64 offset;
	u8 dev_uuid[BTRFS_UUID_SIZE];
};

/*
 * CHUNK_ITEM.  num_stripes must be at least 1 and all stripes must fit in
 * @len.  item_size (48 + 32 * num_stripes) is what the item occupies, which
 * is how far to advance in sys_chunk_array.  Read stripes with
 * btrfs_chunk_rec_stripe().
 */
struct btrfs_chunk_rec {
	u64 length;
	u64 owner;
	u64 stripe_len;
	u64 type;
	u32 io_align;
	u32 io_width;
	u32 sector_size;
	u16 num_stripes;
	u16 sub_stripes;
	u32 item_size;
	const u8 *stripe_data;
};

int btrfs_decode_chunk(const void *data, u32 len, struct btrfs_chunk_rec *out);

/* Stripe @nr of a decoded chunk; -EINVAL if @nr >= num_stripes */
int btrfs_chunk_rec_stripe(const struct btrfs_chunk_rec *chunk, u16 nr, struct btrfs_stripe_rec *out);

struct btrfs_dev_item_rec {
	u64 devid;
	u64 total_bytes;
	u64 bytes_used;
	u32 io_align;
	u32 io_width;
	u32 sector_size;
	u64 type;
	u64 generation;
	u64 start_offset;
	u32 dev_group;
	u8 seek_speed;
	u8 bandwidth;
	u8 uuid[BTRFS_UUID_SIZE];
	u8 fsid[BTRFS_UUID_SIZE];
};

int btrfs_decode_dev_item(const void *data, u32 len, struct btrfs_dev_item_rec *out);

struct btrfs_block_group_rec {
	u64 used;
	u64 chunk_objectid;
	u64 flags;
};

int btrfs_decode_block_group(const void *data, u32 len, struct btrfs_block_group_rec *out);

struct btrfs_dev_extent_rec {
	u64 chunk_tree;
	u64 chunk_objectid;
	u64 chunk_offset;
	u64 length;
	u8 chunk_tree_uuid[BTRFS_UUID_SIZE];
};

int btrfs_decode_dev_extent(const void *data, u32 len, struct btrfs_dev_extent_rec *out);

struct btrfs_free_space_info_rec {
	u32 extent_count;
	u32 flags;
};

int btrfs_decode_free_space_info(const void *data, u32 len, struct btrfs_free_space_info_rec *out);

/*
 * EXTENT_ITEM or METADATA_ITEM (@key_type says which).  A tree block under
 * an EXTENT_ITEM key (non-skinny) carries a tree_block_info, reported in
 * tree_block_key/tree_block_level.  inline_start is the offset of the
 * first inline ref: pass it as *pos to btrfs_extent_inline_ref_next().
 */
struct btrfs_extent_rec {
	u64 refs;
	u64 generation;
	u64 flags;
	bool has_tree_block_info;
	struct btrfs_key tree_block_key;
	u8 tree_block_level;
	u32 inline_start;
};

/* Return: 0, -EUCLEAN, or -EINVAL if @key_type is neither extent key type */
int btrfs_decode_extent_item(const void *data, u32 len, u8 key_type, struct btrfs_extent_rec *out);

/*
 * One back reference, inline or keyed.
 *   TREE_BLOCK_REF     root
 *   SHARED_BLOCK_REF   parent (bytenr of the parent node)
 *   EXTENT_DATA_REF    root, objectid (inode), offset (file offset - extent offset), count
 *   SHARED_DATA_REF    parent (bytenr of the leaf), count
 *   EXTENT_OWNER_REF   root (simple-quota owner)
 * count is what the ref adds to the extent's refs: 1 for block refs, the
 * stored count for data refs, 0 for the owner ref.
 */
struct btrfs_extent_ref_rec {
	u8 type;
	u64 root;
	u64 parent;
	u64 objectid;
	u64 offset;
	u32 count;
};

int btrfs_extent_inline_ref_next(const void *data, u32 len, u32 *pos,
				 struct btrfs_extent_ref_rec *out);

/*
 * A keyed back reference item (TREE_BLOCK_REF, SHARED_BLOCK_REF,
 * EXTENT_DATA_REF, SHARED_DATA_REF) with its key.
 * Return: 0, -EUCLEAN, or -EINVAL if the key type is not a keyed ref.
 */
int btrfs_decode_keyed_ref(const struct btrfs_key *key, const void *data, u32 len,
			   struct btrfs_extent_ref_rec *out);

/*
 * EXTENT_DATA.  For INLINE extents inline_data/inline_len describe the
 * (possibly compressed) bytes after the 21-byte header and the disk_* and
 * offset/num_bytes fields are 0.  An unknown type is -EUCLEAN.
 */
struct btrfs_file_extent_rec {
	u64 generation;
	u64 ram_bytes;
	u8 compression;
	u8 encryption;
	u16 other_encoding;
	u8 type;
	u64 disk_bytenr;
	u64 disk_num_bytes;
	u64 offset;
	u64 num_bytes;
	u32 inline_len;
	const u8 *inline_data;
};

int btrfs_decode_file_extent(const void *data, u32 len, struct btrfs_file_extent_rec *out);

/*
 * UUID_KEY_SUBVOL / UUID_KEY_RECEIVED_SUBVOL items: a list of u64 subvolume
 * ids.  An item whose size is not a multiple of 8 is -EUCLEAN.
 */
int btrfs_uuid_item_next(const void *data, u32 len, u32 *pos, u64 *subvolid);

/* "ROOT_ITEM", "DIR_INDEX", ... as btrfs-progs prints them; NULL if unknown */
const char *btrfs_item_type_name(u8 type);

/* "ROOT_TREE", "FS_TREE", "DATA_RELOC_TREE", ... for tree ids; NULL otherwise */
const char *btrfs_tree_name(u64 id);

#endif /* VOLCTL_KERNEL_SHARED_ITEMS_H */
