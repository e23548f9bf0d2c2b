/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Btrfs on-disk format: constants, packed little-endian structures and
 * their accessors.
 *
 * This header owns every byte layout volctl reads or writes on an unmounted
 * image: superblock, tree block header, keys, node pointers, leaf items and
 * the item payloads a subvolume/qgroup engine needs.  Values come from the
 * on-disk format facts sheet (shared/reference/on-disk-engine.md), which
 * was checked against btrfs-progs v6.19 and Linux 6.18 images.
 *
 * Invariants:
 *  - Every structure is packed (alignment 1) and has a size assertion.
 *  - Code outside this header never dereferences an on-disk field.  It goes
 *    through the generated accessors, which memcpy and convert from little
 *    endian, so unaligned buffers and big-endian hosts work.
 *
 * Accessor naming: btrfs_<prefix>_<field>() reads, btrfs_set_<prefix>_<field>()
 * writes.  The prefix follows the kernel's short names:
 *
 *   struct                     prefix
 *   btrfs_disk_key             disk_key
 *   btrfs_header               header
 *   btrfs_key_ptr              key_ptr
 *   btrfs_item                 item
 *   btrfs_super_block          super
 *   btrfs_root_backup          backup
 *   btrfs_dev_item             dev_item
 *   btrfs_stripe               stripe
 *   btrfs_chunk                chunk
 *   btrfs_dev_extent           dev_extent
 *   btrfs_block_group_item     block_group
 *   btrfs_free_space_info      free_space_info
 *   btrfs_timespec             timespec
 *   btrfs_inode_item           inode
 *   btrfs_inode_ref            inode_ref
 *   btrfs_inode_extref         inode_extref
 *   btrfs_dir_item             dir
 *   btrfs_root_item            root
 *   btrfs_root_ref             root_ref
 *   btrfs_file_extent_item     file_extent
 *   btrfs_extent_item          extent
 *   btrfs_tree_block_info      tree_block
 *   btrfs_extent_inline_ref    extent_inline_ref
 *   btrfs_extent_data_ref      extent_data_ref
 *   btrfs_shared_data_ref      shared_data_ref
 *   btrfs_extent_owner_ref     extent_owner_ref
 *   btrfs_qgroup_status_item   qgroup_status
 *   btrfs_qgroup_info_item     qgroup_info
 *   btrfs_qgroup_limit_item    qgroup_limit
 *
 * Integer fields get a getter returning the host value and a setter taking
 * one.  Embedded keys get btrfs_<prefix>_<field>(p, &key) filling a host
 * struct btrfs_key, and a setter taking one.  Byte arrays (uuids, csum,
 * label) and embedded structures are reached with macros that yield a
 * pointer of the same constness as the argument; byte arrays also have a
 * setter that copies the whole array.
 */
#ifndef VOLCTL_KERNEL_SHARED_FORMAT_H
#define VOLCTL_KERNEL_SHARED_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <endian.h>

#ifndef VOLCTL_TYPES
#define VOLCTL_TYPES
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;
#endif

/*
 * __le16/__le32/__le64 only document that a field is little-endian; fields
 * are never read directly.  When the Linux uapi headers are available their
 * definitions are used, so that this header and <linux/btrfs.h> (which the
 * ioctl backend needs) can be included in either order.
 */
#if defined(__has_include)
#if __has_include(<linux/types.h>)
#include <linux/types.h>
#define VOLCTL_HAVE_LINUX_LE_TYPES 1
#endif
#endif
#ifndef VOLCTL_HAVE_LINUX_LE_TYPES
typedef u16 __le16;
typedef u32 __le32;
typedef u64 __le64;
#endif

/* ------------------------------------------------------------------ */
/* Little-endian helpers                                               */
/* ------------------------------------------------------------------ */

static inline u8 get_le8(const void *p)
{
	return *(const u8 *)p;
}

static inline u16 get_le16(const void *p)
{
	u16 v;

	memcpy(&v, p, sizeof(v));
	return le16toh(v);
}

static inline u32 get_le32(const void *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static inline u64 get_le64(const void *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static inline void put_le8(void *p, u8 v)
{
	*(u8 *)p = v;
}

static inline void put_le16(void *p, u16 v)
{
	v = htole16(v);
	memcpy(p, &v, sizeof(v));
}

static inline void put_le32(void *p, u32 v)
{
	v = htole32(v);
	memcpy(p, &v, sizeof(v));
}

static inline void put_le64(void *p, u64 v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

/* ------------------------------------------------------------------ */
/* Sizes and limits                                                    */
/* ------------------------------------------------------------------ */

#define BTRFS_MAX_LEVEL			8
#define BTRFS_NAME_LEN			255
#define BTRFS_CSUM_SIZE			32
#define BTRFS_FSID_SIZE 16
#define BTRFS_UUID_SIZE 16
#define BTRFS_LABEL_SIZE 256
#define BTRFS_SYSTEM_CHUNK_ARRAY_SIZE	2048
#define BTRFS_NUM_BACKUP_ROOTS		4
#define BTRFS_STRIPE_LEN		65536ULL
#define BTRFS_MIN_METADATA_BLOCKSIZE	4096U
#define BTRFS_MAX_METADATA_BLOCKSIZE	65536U

/* Superblock location: mirror 0 at 64 KiB, mirror i>0 at 16 KiB << (12 * i) */
#define BTRFS_SUPER_INFO_OFFSET		65536ULL
#define BTRFS_SUPER_INFO_SIZE		4096U
#define BTRFS_SUPER_MIRROR_MAX		3
#define BTRFS_SUPER_MIRROR_SHIFT	12

/** btrfs_sb_offset - physical byte offset of superblock copy @mirror (0..2) */
static inline u64 btrfs_sb_offset(int mirror)
{
	if (mirror <= 0)
		return BTRFS_SUPER_INFO_OFFSET;
	return (16ULL * 1024) << (BTRFS_SUPER_MIRROR_SHIFT * mirror);
}

/* "_BHRfS_M" read as a little-endian u64; "!BHRfS_M" marks an unfinished mkfs */
#define BTRFS_MAGIC			0x4D5F53665248425FULL
#define BTRFS_MAGIC_TEMPORARY		0x4D5F536652484221ULL

/* ------------------------------------------------------------------ */
/* Object ids                                                          */
/* ------------------------------------------------------------------ */

#define BTRFS_ROOT_TREE_OBJECTID	1ULL
#define BTRFS_EXTENT_TREE_OBJECTID	2ULL
#define BTRFS_CHUNK_TREE_OBJECTID	3ULL
#define BTRFS_DEV_TREE_OBJECTID		4ULL
#define BTRFS_FS_TREE_OBJECTID		5ULL
#define BTRFS_ROOT_TREE_DIR_OBJECTID	6ULL
#define BTRFS_CSUM_TREE_OBJECTID	7ULL
#define BTRFS_QUOTA_TREE_OBJECTID	8ULL
#define BTRFS_UUID_TREE_OBJECTID	9ULL
#define BTRFS_FREE_SPACE_TREE_OBJECTID	10ULL
#define BTRFS_BLOCK_GROUP_TREE_OBJECTID	11ULL
#define BTRFS_RAID_STRIPE_TREE_OBJECTID	12ULL
#define BTRFS_REMAP_TREE_OBJECTID	13ULL

#define BTRFS_DEV_STATS_OBJECTID	0ULL
#define BTRFS_BALANCE_OBJECTID		-4ULL
#define BTRFS_ORPHAN_OBJECTID		-5ULL
#define BTRFS_TREE_LOG_OBJECTID		-6ULL
#define BTRFS_TREE_LOG_FIXUP_OBJECTID	-7ULL
#define BTRFS_TREE_RELOC_OBJECTID	-8ULL
#define BTRFS_DATA_RELOC_TREE_OBJECTID	-9ULL
#define BTRFS_EXTENT_CSUM_OBJECTID	-10ULL
#define BTRFS_FREE_SPACE_OBJECTID	-11ULL
#define BTRFS_FREE_INO_OBJECTID		-12ULL
#define BTRFS_MULTIPLE_OBJECTIDS	-255ULL

#define BTRFS_FIRST_FREE_OBJECTID	256ULL
#define BTRFS_LAST_FREE_OBJECTID	-256ULL
#define BTRFS_FIRST_CHUNK_TREE_OBJECTID	256ULL
#define BTRFS_DEV_ITEMS_OBJECTID	1ULL
#define BTRFS_EMPTY_SUBVOL_DIR_OBJECTID	2ULL

/**
 * btrfs_is_fstree - whether tree @id is a subvolume tree
 *
 * Subvolume trees (5, and ids >= 256 read as a signed number) are the only
 * trees that can be shared, snapshotted and accounted in qgroups.  The
 * "negative" special trees (-8 TREE_RELOC, -9 DATA_RELOC, ...) are not.
 */
static inline int btrfs_is_fstree(u64 id)
{
	return id == BTRFS_FS_TREE_OBJECTID || (s64)id >= (s64)BTRFS_FIRST_FREE_OBJECTID;
}

/* ------------------------------------------------------------------ */
/* Item types (the type byte of a key)                                 */
/* ------------------------------------------------------------------ */

#define BTRFS_INODE_ITEM_KEY		1
#define BTRFS_INODE_REF_KEY		12
#define BTRFS_INODE_EXTREF_KEY		13
#define BTRFS_XATTR_ITEM_KEY		24
#define BTRFS_VERITY_DESC_ITEM_KEY	36
#define BTRFS_VERITY_MERKLE_ITEM_KEY	37
#define BTRFS_ORPHAN_ITEM_KEY		48
#define BTRFS_DIR_LOG_ITEM_KEY		60
#define BTRFS_DIR_LOG_INDEX_KEY		72
#define BTRFS_DIR_ITEM_KEY		84
#define BTRFS_DIR_INDEX_KEY		96
#define BTRFS_EXTENT_DATA_KEY		108
#define BTRFS_EXTENT_CSUM_KEY		128
#define BTRFS_ROOT_ITEM_KEY		132
#define BTRFS_ROOT_BACKREF_KEY		144
#define BTRFS_ROOT_REF_KEY		156
#define BTRFS_EXTENT_ITEM_KEY		168
#define BTRFS_METADATA_ITEM_KEY		169
#define BTRFS_EXTENT_OWNER_REF_KEY	172
#define BTRFS_TREE_BLOCK_REF_KEY	176
#define BTRFS_EXTENT_DATA_REF_KEY	178
#define BTRFS_SHARED_BLOCK_REF_KEY	182
#define BTRFS_SHARED_DATA_REF_KEY	184
#define BTRFS_BLOCK_GROUP_ITEM_KEY	192
#define BTRFS_FREE_SPACE_INFO_KEY	198
#define BTRFS_FREE_SPACE_EXTENT_KEY	199
#define BTRFS_FREE_SPACE_BITMAP_KEY	200
#define BTRFS_DEV_EXTENT_KEY		204
#define BTRFS_DEV_ITEM_KEY		216
#define BTRFS_CHUNK_ITEM_KEY		228
#define BTRFS_RAID_STRIPE_KEY		230
#define BTRFS_QGROUP_STATUS_KEY		240
#define BTRFS_QGROUP_INFO_KEY		242
#define BTRFS_QGROUP_LIMIT_KEY		244
#define BTRFS_QGROUP_RELATION_KEY	246
#define BTRFS_TEMPORARY_ITEM_KEY	248
#define BTRFS_BALANCE_ITEM_KEY		BTRFS_TEMPORARY_ITEM_KEY
#define BTRFS_PERSISTENT_ITEM_KEY	249
#define BTRFS_DEV_STATS_KEY		BTRFS_PERSISTENT_ITEM_KEY
#define BTRFS_DEV_REPLACE_KEY		250
#define BTRFS_UUID_KEY_SUBVOL		251
#define BTRFS_UUID_KEY_RECEIVED_SUBVOL	252
#define BTRFS_STRING_ITEM_KEY		253

/* ------------------------------------------------------------------ */
/* Flags and enumerations                                              */
/* ------------------------------------------------------------------ */

/* Tree block header flags; bits 56..63 hold the backref revision */
#define BTRFS_HEADER_FLAG_WRITTEN	(1ULL << 0)
#define BTRFS_HEADER_FLAG_RELOC		(1ULL << 1)
#define BTRFS_BACKREF_REV_SHIFT		56
#define BTRFS_BACKREF_REV_MASK		(0xffULL << BTRFS_BACKREF_REV_SHIFT)
#define BTRFS_OLD_BACKREF_REV		0
#define BTRFS_MIXED_BACKREF_REV		1

/* Superblock flags */
#define BTRFS_SUPER_FLAG_WRITTEN		(1ULL << 0)
#define BTRFS_SUPER_FLAG_ERROR			(1ULL << 2)
#define BTRFS_SUPER_FLAG_SEEDING		(1ULL << 32)
#define BTRFS_SUPER_FLAG_METADUMP		(1ULL << 33)
#define BTRFS_SUPER_FLAG_METADUMP_V2		(1ULL << 34)
#define BTRFS_SUPER_FLAG_CHANGING_FSID		(1ULL << 35)
#define BTRFS_SUPER_FLAG_CHANGING_FSID_V2	(1ULL << 36)
/* progs-only offline conversion markers; the kernel refuses them */
#define BTRFS_SUPER_FLAG_CHANGING_BG_TREE	(1ULL << 38)
#define BTRFS_SUPER_FLAG_CHANGING_DATA_CSUM	(1ULL << 39)
#define BTRFS_SUPER_FLAG_CHANGING_META_CSUM	(1ULL << 40)

/*
 * Feature bits.  Spelled exactly as in <linux/btrfs.h> so that both headers
 * can be included together without redefinition warnings.
 */
#define BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE		(1ULL << 0)
#define BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE_VALID	(1ULL << 1)
#define BTRFS_FEATURE_COMPAT_RO_VERITY			(1ULL << 2)
#define BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE	(1ULL << 3)

#define BTRFS_FEATURE_INCOMPAT_MIXED_BACKREF	(1ULL << 0)
#define BTRFS_FEATURE_INCOMPAT_DEFAULT_SUBVOL	(1ULL << 1)
#define BTRFS_FEATURE_INCOMPAT_MIXED_GROUPS	(1ULL << 2)
#define BTRFS_FEATURE_INCOMPAT_COMPRESS_LZO	(1ULL << 3)
#define BTRFS_FEATURE_INCOMPAT_COMPRESS_ZSTD	(1ULL << 4)
#define BTRFS_FEATURE_INCOMPAT_BIG_METADATA	(1ULL << 5)
#define BTRFS_FEATURE_INCOMPAT_EXTENDED_IREF	(1ULL << 6)
#define BTRFS_FEATURE_INCOMPAT_RAID56		(1ULL << 7)
#define BTRFS_FEATURE_INCOMPAT_SKINNY_METADATA	(1ULL << 8)
#define BTRFS_FEATURE_INCOMPAT_NO_HOLES		(1ULL << 9)
#define BTRFS_FEATURE_INCOMPAT_METADATA_UUID	(1ULL << 10)
#define BTRFS_FEATURE_INCOMPAT_RAID1C34		(1ULL << 11)
#define BTRFS_FEATURE_INCOMPAT_ZONED		(1ULL << 12)
#define BTRFS_FEATURE_INCOMPAT_EXTENT_TREE_V2	(1ULL << 13)
#define BTRFS_FEATURE_INCOMPAT_RAID_STRIPE_TREE (1ULL << 14)
#define BTRFS_FEATURE_INCOMPAT_SIMPLE_QUOTA	(1ULL << 16)
#define BTRFS_FEATURE_INCOMPAT_REMAP_TREE	(1ULL << 17)

/* Checksum algorithms (super_block.csum_type) */
#define BTRFS_CSUM_TYPE_CRC32		0
#define BTRFS_CSUM_TYPE_XXHASH		1
#define BTRFS_CSUM_TYPE_SHA256		2
#define BTRFS_CSUM_TYPE_BLAKE2		3

/* Block group and chunk type: one type bit, at most one profile bit */
#define BTRFS_BLOCK_GROUP_DATA		(1ULL << 0)
#define BTRFS_BLOCK_GROUP_SYSTEM	(1ULL << 1)
#define BTRFS_BLOCK_GROUP_METADATA	(1ULL << 2)
#define BTRFS_BLOCK_GROUP_RAID0		(1ULL << 3)
#define BTRFS_BLOCK_GROUP_RAID1		(1ULL << 4)
#define BTRFS_BLOCK_GROUP_DUP		(1ULL << 5)
#define BTRFS_BLOCK_GROUP_RAID10	(1ULL << 6)
#define BTRFS_BLOCK_GROUP_RAID5		(1ULL << 7)
#define BTRFS_BLOCK_GROUP_RAID6		(1ULL << 8)
#define BTRFS_BLOCK_GROUP_RAID1C3	(1ULL << 9)
#define BTRFS_BLOCK_GROUP_RAID1C4	(1ULL << 10)
#define BTRFS_BLOCK_GROUP_TYPE_MASK	(BTRFS_BLOCK_GROUP_DATA |	\
					 BTRFS_BLOCK_GROUP_SYSTEM |	\
					 BTRFS_BLOCK_GROUP_METADATA)
#define BTRFS_BLOCK_GROUP_PROFILE_MASK	(BTRFS_BLOCK_GROUP_RAID0 |	\
					 BTRFS_BLOCK_GROUP_RAID1 |	\
					 BTRFS_BLOCK_GROUP_DUP |	\
					 BTRFS_BLOCK_GROUP_RAID10 |	\
					 BTRFS_BLOCK_GROUP_RAID5 |	\
					 BTRFS_BLOCK_GROUP_RAID6 |	\
					 BTRFS_BLOCK_GROUP_RAID1C3 |	\
					 BTRFS_BLOCK_GROUP_RAID1C4)

/* Free space tree */
#define BTRFS_FREE_SPACE_USING_BITMAPS	(1U << 0)
#define BTRFS_FREE_SPACE_BITMAP_BITS	2048U	/* bits per bitmap item (256 bytes) */

/* Root item */
#define BTRFS_ROOT_SUBVOL_RDONLY	(1ULL << 0)
#define BTRFS_ROOT_SUBVOL_DEAD		(1ULL << 48)

/* Inode item flags */
#define BTRFS_INODE_NODATASUM		(1U << 0)
#define BTRFS_INODE_NODATACOW		(1U << 1)
#define BTRFS_INODE_READONLY		(1U << 2)
#define BTRFS_INODE_NOCOMPRESS		(1U << 3)
#define BTRFS_INODE_PREALLOC		(1U << 4)
#define BTRFS_INODE_SYNC		(1U << 5)
#define BTRFS_INODE_IMMUTABLE		(1U << 6)
#define BTRFS_INODE_APPEND		(1U << 7)
#define BTRFS_INODE_NODUMP		(1U << 8)
#define BTRFS_INODE_NOATIME		(1U << 9)
#define BTRFS_INODE_DIRSYNC		(1U << 10)
#define BTRFS_INODE_COMPRESS		(1U << 11)
#define BTRFS_INODE_ROOT_ITEM_INIT	(1U << 31)

/* Directory entry types (dir_item.type; 0x80 marks encrypted names) */
#define BTRFS_FT_UNKNOWN		0
#define BTRFS_FT_REG_FILE		1
#define BTRFS_FT_DIR			2
#define BTRFS_FT_CHRDEV			3
#define BTRFS_FT_BLKDEV			4
#define BTRFS_FT_FIFO			5
#define BTRFS_FT_SOCK			6
#define BTRFS_FT_SYMLINK		7
#define BTRFS_FT_XATTR			8
#define BTRFS_FT_MAX			9
#define BTRFS_FT_ENCRYPTED		0x80

/* Extent item flags */
#define BTRFS_EXTENT_FLAG_DATA		(1ULL << 0)
#define BTRFS_EXTENT_FLAG_TREE_BLOCK	(1ULL << 1)
#define BTRFS_BLOCK_FLAG_FULL_BACKREF	(1ULL << 8)

/* File extent types and compression */
#define BTRFS_FILE_EXTENT_INLINE	0
#define BTRFS_FILE_EXTENT_REG		1
#define BTRFS_FILE_EXTENT_PREALLOC	2
#define BTRFS_COMPRESS_NONE		0
#define BTRFS_COMPRESS_ZLIB		1
#define BTRFS_COMPRESS_LZO		2
#define BTRFS_COMPRESS_ZSTD		3

/* Qgroup status item */
#define BTRFS_QGROUP_STATUS_VERSION		1
#define BTRFS_QGROUP_STATUS_FLAG_ON		(1ULL << 0)
#define BTRFS_QGROUP_STATUS_FLAG_RESCAN		(1ULL << 1)
#define BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT	(1ULL << 2)
#define BTRFS_QGROUP_STATUS_FLAG_SIMPLE_MODE	(1ULL << 3)
#define BTRFS_QGROUP_STATUS_FLAGS_MASK		(BTRFS_QGROUP_STATUS_FLAG_ON |	\
						 BTRFS_QGROUP_STATUS_FLAG_RESCAN | \
						 BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT | \
						 BTRFS_QGROUP_STATUS_FLAG_SIMPLE_MODE)

/* Qgroup limit item flags (spelled as in <linux/btrfs.h>) */
#define BTRFS_QGROUP_LIMIT_MAX_RFER	(1ULL << 0)
#define BTRFS_QGROUP_LIMIT_MAX_EXCL	(1ULL << 1)
#define BTRFS_QGROUP_LIMIT_RSV_RFER	(1ULL << 2)
#define BTRFS_QGROUP_LIMIT_RSV_EXCL	(1ULL << 3)
#define BTRFS_QGROUP_LIMIT_RFER_CMPR	(1ULL << 4)
#define BTRFS_QGROUP_LIMIT_EXCL_CMPR	(1ULL << 5)

/* Qgroup ids: level in the top 16 bits, subvolume/group id in the low 48 */
#define BTRFS_QGROUP_LEVEL_SHIFT	48

static inline u16 btrfs_qgroup_level(u64 qgroupid)
{
	return (u16)(qgroupid >> BTRFS_QGROUP_LEVEL_SHIFT);
}

static inline u64 btrfs_qgroup_subvolid(u64 qgroupid)
{
	return qgroupid & ((1ULL << BTRFS_QGROUP_LEVEL_SHIFT) - 1);
}

static inline u64 btrfs_qgroup_mkid(u16 level, u64 id)
{
	return ((u64)level << BTRFS_QGROUP_LEVEL_SHIFT) | btrfs_qgroup_subvolid(id);
}

/* ------------------------------------------------------------------ */
/* Keys                                                                */
/* ------------------------------------------------------------------ */

struct btrfs_disk_key {
	__le64 objectid;
	u8 type;
	__le64 offset;
} __attribute__((packed));
_Static_assert(sizeof(struct btrfs_disk_key) == 17, "btrfs_disk_key");

/* Host-order key; compare with btrfs_key_cmp() */
struct btrfs_key {
	u64 objectid;
	u8 type;
	u64 offset;
};

/**
 * btrfs_key_cmp - order two keys as the B-trees do
 *
 * Objectid, then type, then offset, each unsigned.
 * Return: <0, 0 or >0 like memcmp().
 */
static inline int btrfs_key_cmp(const struct btrfs_key *a, const struct btrfs_key *b)
{
	if (a->objectid != b->objectid)
		return a->objectid < b->objectid ? -1 : 1;
	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	return 0;
}

static inline void btrfs_disk_key_to_cpu(struct btrfs_key *cpu, const struct btrfs_disk_key *disk)
{
	const u8 *p = (const u8 *)disk;

	cpu->objectid = get_le64(p + offsetof(struct btrfs_disk_key, objectid));
	cpu->type = get_le8(p + offsetof(struct btrfs_disk_key, type));
	cpu->offset = get_le64(p + offsetof(struct btrfs_disk_key, offset));
}

static inline void btrfs_cpu_key_to_disk(struct btrfs_disk_key *disk, const struct btrfs_key *cpu)
{
	u8 *p = (u8 *)disk;

	put_le64(p + offsetof(struct btrfs_disk_key, objectid), cpu->objectid);
	put_le8(p + offsetof(struct btrfs_disk_key, type), cpu->type);
	put_le64(p + offsetof(struct btrfs_disk_key, offset), cpu->offset);
}

/*
 * UUID tree key for @uuid: objectid = bytes 0..7 and offset = bytes 8..15,
 * each read as a little-endian u64.  @type is UUID_KEY_SUBVOL or
 * UUID_KEY_RECEIVED_SUBVOL.
 */
static inline void btrfs_uuid_to_key(const u8 uuid[BTRFS_UUID_SIZE], u8 type,
				     struct btrfs_key *key)
{
	key->objectid = get_le64(uuid);
	key->type = type;
	key->offset = get_le64(uuid + 8);
}

/* ------------------------------------------------------------------ */
/* Accessor generators                                                 */
/* ------------------------------------------------------------------ */

#define BTRFS_FIELD_PTR(p, stype, member) \
	((const u8 *)(p) + offsetof(struct stype, member))
#define BTRFS_FIELD_PTR_MUT(p, stype, member) \
	((u8 *)(p) + offsetof(struct stype, member))

/* Integer field of @bits (8, 16, 32, 64) */
#define BTRFS_SETGET_AS(name, stype, member, bits)				\
static inline u##bits btrfs_##name##_##member(const struct stype *p)		\
{										\
	_Static_assert(sizeof(((struct stype *)0)->member) * 8 == (bits),	\
		       #stype "." #member " width");				\
	return get_le##bits(BTRFS_FIELD_PTR(p, stype, member));			\
}										\
static inline void btrfs_set_##name##_##member(struct stype *p, u##bits v)	\
{										\
	put_le##bits(BTRFS_FIELD_PTR_MUT(p, stype, member), v);			\
}

/* Shorthand when the prefix is the structure tag without "btrfs_" */
#define BTRFS_SETGET(name, member, bits) BTRFS_SETGET_AS(name, btrfs_##name, member, bits)

/* Embedded struct btrfs_disk_key, exchanged as a host struct btrfs_key */
#define BTRFS_SETGET_KEY(name, stype, member)					\
static inline void btrfs_##name##_##member(const struct stype *p,		\
					   struct btrfs_key *key)		\
{										\
	_Static_assert(sizeof(((struct stype *)0)->member) ==			\
		       sizeof(struct btrfs_disk_key), #stype "." #member);	\
	btrfs_disk_key_to_cpu(key, (const struct btrfs_disk_key *)		\
			      BTRFS_FIELD_PTR(p, stype, member));		\
}										\
static inline void btrfs_set_##name##_##member(struct stype *p,		\
					       const struct btrfs_key *key)	\
{										\
	btrfs_cpu_key_to_disk((struct btrfs_disk_key *)				\
			      BTRFS_FIELD_PTR_MUT(p, stype, member), key);	\
}

/* Byte array: setter copying the whole array (getters are macros, below) */
#define BTRFS_SET_BYTES(name, stype, member)					\
static inline void btrfs_set_##name##_##member(struct stype *p, const void *src) \
{										\
	memcpy(BTRFS_FIELD_PTR_MUT(p, stype, member), src,			\
	       sizeof(((struct stype *)0)->member));				\
}

/* ------------------------------------------------------------------ */
/* Tree blocks                                                         */
/* ------------------------------------------------------------------ */

BTRFS_SETGET(disk_key, objectid, 64)
BTRFS_SETGET(disk_key, type, 8)
BTRFS_SETGET(disk_key, offset, 64)

/* At the start of every node and leaf */
struct btrfs_header {
	u8 csum[BTRFS_CSUM_SIZE];
	u8 fsid[BTRFS_FSID_SIZE];
	__le64 bytenr;
	__le64 flags;
	u8 chunk_tree_uuid[BTRFS_UUID_SIZE];
	__le64 generation;
	__le64 owner;
	__le32 nritems;
	u8 level;
} __attribute__((packed));
_Static_assert(sizeof(struct btrfs_header) == 101, "btrfs_header");

BTRFS_SETGET(header, bytenr, 64)
BTRFS_SETGET(header, flags, 64)
BTRFS_SETGET(header, generation, 64)
BTRFS_SETGET(header, owner, 64)
BTRFS_SETGET(header, nritems, 32)
BTRFS_SETGET(header, level, 8)
BTRFS_SET_BYTES(header, btrfs_header, csum)
BTRFS_SET_BYTES(header, btrfs_header, fsid)
BTRFS_SET_BYTES(header, btrfs_header, chunk_tree_uuid)
#define btrfs_header_csum(p)		((p)->csum)
#define btrfs_header_fsid(p)		((p)->fsid)
#define btrfs_header_chunk_tree_uuid(p)	((p)->chunk_tree_uuid)

static inline u8 btrfs_header_backref_rev(const struct btrfs_header *p)
{
	return (u8)(btrfs_header_flags(p) >> BTRFS_BACKREF_REV_SHIFT);
}

static inline void btrfs_set_header_backref_rev(struct btrfs_header *p, u8 rev)
{
	u64 flags = btrfs_header_flags(p) & ~BTRFS_BACKREF_REV_MASK;

	btrfs_set_header_flags(p, flags | ((u64)rev << BTRFS_BACKREF_REV_SHIFT));
}

/* Node slot: the child's lowest key, address and expected generation */
struct btrfs_key_ptr {
	struct btrfs_disk_key key;
	__le64 blockptr;
	__le64 generation;
} __attribute__((packed));
_Static_assert(sizeof(struct btrfs_key_ptr) == 33, "btrfs_key_ptr");

BTRFS_SETGET_KEY(key_ptr, btrfs_key_ptr, key)
BTRFS_SETGET(key_ptr, blockptr, 64)
BTRFS_SETGET(key_ptr, generation, 64)

/* Leaf item header; offset is relative to the end of the block header */
struct btrfs_item {
	struct btrfs_disk_key key;
	__le32 offset;
	__le32 size;
} __attribute__((packed));
_Static_assert(sizeof(struct btrfs_item) == 25, "btrfs_item");

BTRFS_SETGET_KEY(item, btrfs_item, key)
BTRFS_SETGET(item, offset, 32)
BTRFS_SETGET(item, size, 32)

#define BTRFS_LEAF_DATA_OFFSET	((u32)sizeof(struct btrfs_header))

/* Bytes available for item headers and data in a leaf */
static inline u32 btrfs_leaf_data_size(u32 nodesize)
{
	return nodesize - BTRFS_LEAF_DATA_OFFSET;
}

/* Key pointers that fit in a node */
static inline u32 btrfs_nodeptrs_per_block(u32 nodesize)
{
	return btrfs_leaf_data_size(nodesize) / (u32)sizeof(struct btrfs_key_ptr);
}

/* Largest single item payload in a leaf */
static inline u32 btrfs_max_item_size(u32 nodesize)
{
	return btrfs_leaf_data_size(nodesize) - (u32)sizeof(struct btrfs_item);
}

/* ------------------------------------------------------------------ */
/* Devices and chunks                                                  */
/* ------------------------------------------------------------------ */

/* DEV_ITEM (1, DEV_ITEM, devid) in the chunk tree; also inside the superblock */
struct btrfs_dev_item {
	__le64 devid;
	__le64 total_bytes;
	__le64 bytes_used;
	__le32 io_align;
	__le32 io_width;
	__le32 sector_size;
	__le64 type;
	__le64 generation;
	__le64 start_offset;
	__le32 dev_group;
	u8 seek_speed;
	u8 bandwidth;
	u8 uuid[BTRFS_UUID_SIZE];
	u8 fsid[BTRFS_UUID_SIZE];
} __attribute__((packed));
_Static_assert(sizeof(struct btrfs_dev_item) == 98, "btrfs_dev_item");

BTRFS_SETGET(dev_item, devid, 64)
BTRFS_SETGET(dev_item, total_bytes, 64)
BTRFS_SETGET(dev_item, bytes_used, 64)
BTRFS_SETGET(dev_item, io_align, 32)
BTRFS_SETGET(dev_item, io_width, 32)
BTRFS_SETGET(dev_item, sector_size, 32)
BTRFS_SETGET(dev_item, type, 64)
BTRFS_SETGET(dev_item, generation, 64)
BTRFS_SETGET(dev_item, start_offset, 64)
BTRFS_SETGET(dev_item, dev_group, 32)
BTRFS_SETGET(dev_item, seek_speed, 8)
BTRFS_SETGET(dev_item, bandwidth, 8)
BTRFS_SET_BYTES(dev_item, btrfs_dev_item, uuid)
BTRFS_SET_BYTES(dev_item, btrfs_dev_item, fsid)
#define btrfs_dev_item_uuid(p)		((p)->uuid)
#define btrfs_dev_item_fsid(p)		((p)->fsid)

struct btrfs_stripe {
	__le64 devid;
	__le64 offset;
	u8 dev_uuid[BTRFS_UUID_SIZE];
} __attribute__((packed));
_Static_assert(sizeof(struct btrfs_stripe) == 32, "btrfs_stripe");

BTRFS_SETGET(stripe, devid, 64)
BTRFS_SETGET(stripe, offset, 64)
BTRFS_SET_BYTES(stripe, btrfs_stripe, dev_uuid)
#define btrfs_stripe_dev_uuid(p)	((p)->dev_uuid)

/*
 * CHUNK_ITEM (256, CHUNK_ITEM, logical) in the chunk tree and in
 * sys_chunk_array: 48 fixed bytes followed by num_stripes stripes.
 */
struct btrfs_chunk {
	__le64 length;
	__le64 owner;
	__le64 stripe_len;
	__le64 type;
	__le32 io_align;
	__le32 io_width;
	__le32 sector_size;
	__le16 num_stripes;
	__le16 sub_stripes;
	struct btrfs_stripe stripe[];
} __attribute__((packed));
_Static_assert(sizeof(struct btrfs_chunk) == 48, "btrfs_chunk");

BTRFS_SETGET(chunk, length, 64)
BTRFS_SETGET(chunk, owner, 64)
BTRFS_SETGET(chunk, stripe_len, 64)
BTRFS_SETGET(chunk, type, 64)
BTRFS_SETGET(chunk, io_align, 32)
BTRFS_SETGET(chunk, io_width, 32)
BTRFS_SETGET(chunk, sector_size, 32)
BTRFS_SETGET(chunk, num_stripes, 16)
BTRFS_SETGET(chunk, sub_stripes, 16)
/* Stripe @nr of a chunk; the caller makes sure the buffer holds it */
#define btrfs_chunk_stripe(p, nr)	(&(p)->stripe[(nr)])

static inline u32 btrfs_chunk_item_size(u32 num_stripes)
{
	return (u32)sizeof(struct btrfs_chunk) + num_stripes * (u32)sizeof(struct btrfs_stripe);
}

/* DEV_EXTENT (devid, DEV_EXTENT, physical) in the dev tree */
struct btrfs_dev_extent {
	__le64 chunk_tree;
	__le64 chunk_objectid;
	__le64 chunk_offset;
	__le64 length;
	u8 chunk_tree_uuid[BTRFS_UUID_SIZE];
} __attribute__((packed));
_Static_assert(sizeof(struct btrfs_dev_extent) == 48, "btrfs_dev_extent");

BTRFS_SETGET(dev_extent, chunk_tree, 64)
BTRFS_SETGET(dev_extent, chunk_objectid, 64)
BTRFS_SETGET(dev_extent, chunk_offset, 64)
BTRFS_SETGET(dev_extent, length, 64)
BTRFS_SET_BYTES(dev_extent, btrfs_dev_extent, chunk_tree_uuid)
#define btrfs_dev_extent_chunk_tree_uuid(p)	((p)->chunk_tree_uuid)

/* BLOCK_GROUP_ITEM (start, BLOCK_GROUP_ITEM, length) */
struct btrfs_block_group_item {
	__le64 used;
	__le64 chunk_objectid;
	__le64 flags;
} __attribute__((packed));
_Static_assert(sizeof(struct btrfs_block_group_item) == 24, "btrfs_block_group_item");

BTRFS_SETGET_AS(block_group, btrfs_block_group_item, used, 64)
BTRFS_SETGET_AS(block_group, btrfs_block_group_item, chunk_objectid, 64)
BTRFS_SETGET_AS(block_group, btrfs_block_group_item, flags, 64)

/* FREE_SPACE_INFO (start, FREE_SPACE_INFO, length) in the free space tree */
struct btrfs_free_space_info {
	__le32 extent_count;
	__le32 flags;
} __attribute__((packed));
_Static_assert(sizeof(struct btrfs_free_space_info) == 8, "btrfs_free_space_info");

BTRFS_SETGET(free_space_info, extent_count, 32)
BTRFS_SETGET(free_space_info, flags, 32)

/* ------------------------------------------------------------------ */
/* Superblock                                                          */
/* ------------------------------------------------------------------ */

struct btrfs_root_backup {
	__le64 tree_root;
	__le64 tree_root_gen;
	__le64 chunk_root;
	__le64 chunk_root_gen;
	__le64 extent_root;
	__le64 extent_root_gen;
	__le64 fs_root;
	__le64 fs_root_gen;
	__le64 dev_root;
	__le64 dev_root_gen;
	__le64 csum_root;
	__le64 csum_root_gen;
	__le64 total_bytes;
	__le64 bytes_used;
	__le64 num_devices;
	__le64 unused_64[4];
	u8 tree_root_level;
	u8 chunk_root_level;
	u8 extent_root_level;
	u8 fs_root_level;
	u8 dev_root_level;
	u8 csum_root_level;
	u8 unused_8[10];
} __attribute__((packed));
_Static_assert(sizeof(struct btrfs_root_backup) == 168, "btrfs_root_backup");

BTRFS_SETGET_AS(backup, btrfs_root_backup, tree_root, 64)
BTRFS_SETGET_AS(backup, btrfs_root_backup, tree_root_gen, 64)
BTRFS_SETGET_AS(backup, btrfs_root_backup, chunk_root, 64)
BTRFS_SETGET_AS(backup, btrfs_root_backup, chunk_root_gen, 64)
BTRFS_SETGET_AS(backup, btrfs_root_backup, extent_root, 64)
BTRFS_SETGET_AS(backup, btrfs_root_backup, extent_root_gen, 64)
BTRFS_SETGET_AS(backup, btrfs_root_backup, fs_root, 64)
BTRFS_SETGET_AS(backup, btrfs_root_backup, fs_root_gen, 64)
BTRFS_SETGET_AS(backup, btrfs_root_backup, dev_root, 64)
BTRFS_SETGET_AS(backup, btrfs_root_backup, dev_root_gen, 64)
BTRFS_SETGET_AS(backup, btrfs_root_backup, csum_root, 64)
BTRFS_SETGET_AS(backup, btrfs_root_backup, csum_root_gen, 64)
BTRFS_SETGET_AS(backup, btrfs_root_backup, total_bytes, 64)
BTRFS_SETGET_AS(backup, btrfs_root_backup, bytes_used, 64)
BTRFS_SETGET_AS(backup, btrfs_root_backup, num_devices, 64)
BTRFS_SETGET_AS(backup, btrfs_root_backup, tree_root_level, 8)
BTRFS_SETGET_AS(backup, btrfs_root_backup, chunk_root_level, 8)
BTRFS_SETGET_AS(backup, btrfs_root_backup, extent_root_level, 8)
BTRFS_SETGET_AS(backup, btrfs_root_backup, fs_root_level, 8)
BTRFS_SETGET_AS(backup, btrfs_root_backup, dev_root_level, 8)
BTRFS_SETGET_AS(backup, btrfs_root_backup, csum_root_level, 8)

struct btrfs_super_block {
	u8 csum[BTRFS_CSUM_SIZE];
	u8 fsid[BTRFS_FSID_SIZE];
	__le64 bytenr;
	__le64 flags;
	__le64 magic;
	__le64 generation;
	__le64 root;
	__le64 chunk_root;
	__le64 log_root;
	__le64 unused_log_root_transid;
	__le64 total_bytes;
	__le64 bytes_used;
	__le64 root_dir_objectid;
	__le64 num_devices;
	__le32 sectorsize;
	__le32 nodesize;
	__le32 unused_leafsize;
	__le32 stripesize;
	__le32 sys_chunk_array_size;
	__le64 chunk_root_generation;
	__le64 compat_flags;
	__le64 compat_ro_flags;
	__le64 incompat_flags;
	__le16 csum_type;
	u8 root_level;
	u8 chunk_root_level;
	u8 log_root_level;
	struct btrfs_dev_item dev_item;
	char label[BTRFS_LABEL_SIZE];
	__le64 cache_generation;
	__le64 uuid_tree_generation;
	u8 metadata_uuid[BTRFS_FSID_SIZE];
	__le64 nr_global_roots;
	__le64 remap_root;
	__le64 remap_root_generation;
	u8 remap_root_level;
	u8 reserved[199];
	u8 sys_chunk_array[BTRFS_SYSTEM_CHUNK_ARRAY_SIZE];
	struct btrfs_root_backup super_roots[BTRFS_NUM_BACKUP_ROOTS];
	u8 padding[565];
} __attribute__((packed));
_Static_assert(sizeof(struct btrfs_super_block) == 4096, "btrfs_super_block");

BTRFS_SETGET_AS(super, btrfs_super_block, bytenr, 64)
BTRFS_SETGET_AS(super, btrfs_super_block, flags, 64)
BTRFS_SETGET_AS(super, btrfs_super_block, magic, 64)
BTRFS_SETGET_AS(super, btrfs_super_block, generation, 64)
BTRFS_SETGET_AS(super, btrfs_super_block, root, 64)
BTRFS_SETGET_AS(super, btrfs_super_block, chunk_root, 64)
BTRFS_SETGET_AS(super, btrfs_super_block, log_root, 64)
BTRFS_SETGET_AS(super, btrfs_super_block, unused_log_root_transid, 64)
BTRFS_SETGET_AS(super, btrfs_super_block, total_bytes, 64)
BTRFS_SETGET_AS(super, btrfs_super_block, bytes_used, 64)
BTRFS_SETGET_AS(super, btrfs_super_block, root_dir_objectid, 64)
BTRFS_SETGET_AS(super, btrfs_super_block, num_devices, 64)
BTRFS_SETGET_AS(super, btrfs_super_block, sectorsize, 32)
BTRFS_SETGET_AS(super, btrfs_super_block, nodesize, 32)
BTRFS_SETGET_AS(super, btrfs_super_block, unused_leafsize, 32)
BTRFS_SETGET_AS(super, btrfs_super_block, stripesize, 32)
BTRFS_SETGET_AS(super, btrfs_super_block, sys_chunk_array_size, 32)
BTRFS_SETGET_AS(super, btrfs_super_block, chunk_root_generation, 64)
BTRFS_SETGET_AS(super, btrfs_super_block, compat_flags, 64)
BTRFS_SETGET_AS(super, btrfs_super_block, compat_ro_flags, 64)
BTRFS_SETGET_AS(super, btrfs_super_block, incompat_flags, 64)
BTRFS_SETGET_AS(super, btrfs_super_block, csum_type, 16)
BTRFS_SETGET_AS(super, btrfs_super_block, root_level, 8)
BTRFS_SETGET_AS(super, btrfs_super_block, chunk_root_level, 8)
BTRFS_SETGET_AS(super, btrfs_super_block, log_root_level, 8)
BTRFS_SETGET_AS(super, btrfs_super_block, cache_generation, 64)
BTRFS_SETGET_AS(super, btrfs_super_block, uuid_tree_generation, 64)
BTRFS_SETGET_AS(super, btrfs_super_block, nr_global_roots, 64)
BTRFS_SETGET_AS(super, btrfs_super_block, remap_root, 64)
BTRFS_SETGET_AS(super, btrfs_super_block, remap_root_generation, 64)
BTRFS_SETGET_AS(super, btrfs_super_block, remap_root_level, 8)
BTRFS_SET_BYTES(super, btrfs_super_block, csum)
BTRFS_SET_BYTES(super, btrfs_super_block, fsid)
BTRFS_SET_BYTES(super, btrfs_super_block, label)
BTRFS_SET_BYTES(super, btrfs_super_block, metadata_uuid)
BTRFS_SET_BYTES(super, btrfs_super_block, sys_chunk_array)
#define btrfs_super_csum(p)		((p)->csum)
#define btrfs_super_fsid(p)		((p)->fsid)
#define btrfs_super_label(p)		((p)->label)
#define btrfs_super_metadata_uuid(p)	((p)->metadata_uuid)
#define btrfs_super_sys_chunk_array(p)	((p)->sys_chunk_array)
#define btrfs_super_dev_item(p)		(&(p)->dev_item)
#define btrfs_super_backup(p, nr)	(&(p)->super_roots[(nr)])

/* ------------------------------------------------------------------ */
/* Inodes and directories                                              */
/* ------------------------------------------------------------------ */

struct btrfs_timespec {
	__le64 sec;
	__le32 nsec;
} __attribute__((packed));
_Static_assert(sizeof(struct btrfs_timespec) == 12, "btrfs_timespec");

BTRFS_SETGET(timespec, sec, 64)
BTRFS_SETGET(timespec, nsec, 32)

struct btrfs_inode_item {
	__le64 generation;
	__le64 transid;
	__le64 size;
	__le64 nbytes;
	__le64 block_group;
	__le32 nlink;
	__le32 uid;
	__le32 gid;
	__le32 mode;
	__le64 rdev;
	__le64 flags;
	__le64 sequence;
	__le64 reserved[4];
	struct btrfs_timespec atime;
	struct btrfs_timespec ctime;
	struct btrfs_timespec mtime;
	struct btrfs_timespec otime;
} __attribute__((packed));
_Static_assert(sizeof(struct btrfs_inode_item) == 160, "btrfs_inode_item");

BTRFS_SETGET_AS(inode, btrfs_inode_item, generation, 64)
BTRFS_SETGET_AS(inode, btrfs_inode_item, transid, 64)
BTRFS_SETGET_AS(inode, btrfs_inode_item, size, 64)
BTRFS_SETGET_AS(inode, btrfs_inode_item, nbytes, 64)
BTRFS_SETGET_AS(inode, btrfs_inode_item, block_group, 64)
BTRFS_SETGET_AS(inode, btrfs_inode_item, nlink, 32)
BTRFS_SETGET_AS(inode, btrfs_inode_item, uid, 32)
BTRFS_SETGET_AS(inode, btrfs_inode_item, gid, 32)
BTRFS_SETGET_AS(inode, btrfs_inode_item, mode, 32)
BTRFS_SETGET_AS(inode, btrfs_inode_item, rdev, 64)
BTRFS_SETGET_AS(inode, btrfs_inode_item, flags, 64)
BTRFS_SETGET_AS(inode, btrfs_inode_item, sequence, 64)
#define btrfs_inode_atime(p)	(&(p)->atime)
#define btrfs_inode_ctime(p)	(&(p)->ctime)
#define btrfs_inode_mtime(p)	(&(p)->mtime)
#define btrfs_inode_otime(p)	(&(p)->otime)

/* INODE_REF entry header; name_len name bytes follow, entries are packed */
struct btrfs_inode_ref {
	__le64 index;
	__le16 name_len;
} __attribute__((packed));
_Static_assert(sizeof(struct btrfs_inode_ref) == 10, "btrfs_inode_ref");

BTRFS_SETGET(inode_ref, index, 64)
BTRFS_SETGET(inode_ref, name_len, 16)

/* INODE_EXTREF entry header; name_len name bytes follow */
struct btrfs_inode_extref {
	__le64 parent_objectid;
	__le64 index;
	__le16 name_len;
} __attribute__((packed));
_Static_assert(sizeof(struct btrfs_inode_extref) == 18, "btrfs_inode_extref");

BTRFS_SETGET(inode_extref, parent_objectid, 64)
BTRFS_SETGET(inode_extref, index, 64)
BTRFS_SETGET(inode_extref, name_len, 16)

/* DIR_ITEM / DIR_INDEX / XATTR_ITEM entry: header, name, then data_len bytes */
struct btrfs_dir_item {
	struct btrfs_disk_key location;
	__le64 transid;
	__le16 data_len;
	__le16 name_len;
	u8 type;
} __attribute__((packed));
_Static_assert(sizeof(struct btrfs_dir_item) == 30, "btrfs_dir_item");

BTRFS_SETGET_KEY(dir, btrfs_dir_item, location)
BTRFS_SETGET_AS(dir, btrfs_dir_item, transid, 64)
BTRFS_SETGET_AS(dir, btrfs_dir_item, data_len, 16)
BTRFS_SETGET_AS(dir, btrfs_dir_item, name_len, 16)
BTRFS_SETGET_AS(dir, btrfs_dir_item, type, 8)

/* ------------------------------------------------------------------ */
/* Root tree                                                           */
/* ------------------------------------------------------------------ */

/* ROOT_ITEM; items written by old kernels stop before generation_v2 */
struct btrfs_root_item {
	struct btrfs_inode_item inode;
	__le64 generation;
	__le64 root_dirid;
	__le64 bytenr;
	__le64 byte_limit;
	__le64 bytes_used;
	__le64 last_snapshot;
	__le64 flags;
	__le32 refs;
	struct btrfs_disk_key drop_progress;
	u8 drop_level;
	u8 level;
	__le64 generation_v2;
	u8 uuid[BTRFS_UUID_SIZE];
	u8 parent_uuid[BTRFS_UUID_SIZE];
	u8 received_uuid[BTRFS_UUID_SIZE];
	__le64 ctransid;
	__le64 otransid;
	__le64 stransid;
	__le64 rtransid;
	struct btrfs_timespec ctime;
	struct btrfs_timespec otime;
	struct btrfs_timespec stime;
	struct btrfs_timespec rtime;
	__le64 reserved[8];
} __attribute__((packed));
_Static_assert(sizeof(struct btrfs_root_item) == 439, "btrfs_root_item");

#define BTRFS_ROOT_ITEM_LEGACY_SIZE	((u32)offsetof(struct btrfs_root_item, generation_v2))
_Static_assert(offsetof(struct btrfs_root_item, generation_v2) == 239, "legacy root item");

BTRFS_SETGET_AS(root, btrfs_root_item, generation, 64)
BTRFS_SETGET_AS(root, btrfs_root_item, root_dirid, 64)
BTRFS_SETGET_AS(root, btrfs_root_item, bytenr, 64)
BTRFS_SETGET_AS(root, btrfs_root_item, byte_limit, 64)
BTRFS_SETGET_AS(root, btrfs_root_item, bytes_used, 64)
BTRFS_SETGET_AS(root, btrfs_root_item, last_snapshot, 64)
BTRFS_SETGET_AS(root, btrfs_root_item, flags, 64)
BTRFS_SETGET_AS(root, btrfs_root_item, refs, 32)
BTRFS_SETGET_KEY(root, btrfs_root_item, drop_progress)
BTRFS_SETGET_AS(root, btrfs_root_item, drop_level, 8)
BTRFS_SETGET_AS(root, btrfs_root_item, level, 8)
BTRFS_SETGET_AS(root, btrfs_root_item, generation_v2, 64)
BTRFS_SETGET_AS(root, btrfs_root_item, ctransid, 64)
BTRFS_SETGET_AS(root, btrfs_root_item, otransid, 64)
BTRFS_SETGET_AS(root, btrfs_root_item, stransid, 64)
BTRFS_SETGET_AS(root, btrfs_root_item, rtransid, 64)
BTRFS_SET_BYTES(root, btrfs_root_item, uuid)
BTRFS_SET_BYTES(root, btrfs_root_item, parent_uuid)
BTRFS_SET_BYTES(root, btrfs_root_item, received_uuid)
#define btrfs_root_inode(p)		(&(p)->inode)
#define btrfs_root_uuid(p)		((p)->uuid)
#define btrfs_root_parent_uuid(p)	((p)->parent_uuid)
#define btrfs_root_received_uuid(p)	((p)->received_uuid)
#define btrfs_root_ctime(p)		(&(p)->ctime)
#define btrfs_root_otime(p)		(&(p)->otime)
#define btrfs_root_stime(p)		(&(p)->stime)
#define btrfs_root_rtime(p)		(&(p)->rtime)

/* ROOT_REF (parent, ROOT_REF, child) and ROOT_BACKREF (child, ROOT_BACKREF, parent); name follows */
struct btrfs_root_ref {
	__le64 dirid;
	__le64 sequence;
	__le16 name_len;
} __attribute__((packed));
_Static_assert(sizeof(struct btrfs_root_ref) == 18, "btrfs_root_ref");

BTRFS_SETGET(root_ref, dirid, 64)
BTRFS_SETGET(root_ref, sequence, 64)
BTRFS_SETGET(root_ref, name_len, 16)

/* ------------------------------------------------------------------ */
/* File extents and checksums                                          */
/* ------------------------------------------------------------------ */

struct btrfs_file_extent_item {
	__le64 generation;
	__le64 ram_bytes;
	u8 compression;
	u8 encryption;
	__le16 other_encoding;
	u8 type;
	/* inline extents store their data from here on */
	__le64 disk_bytenr;
	__le64 disk_num_bytes;
	__le64 offset;
	__le64 num_bytes;
} __attribute__((packed));
_Static_assert(sizeof(struct btrfs_file_extent_item) == 53, "btrfs_file_extent_item");

#define BTRFS_FILE_EXTENT_INLINE_DATA_START \
	((u32)offsetof(struct btrfs_file_extent_item, disk_bytenr))
_Static_assert(offsetof(struct btrfs_file_extent_item, disk_bytenr) == 21, "inline data start");

BTRFS_SETGET_AS(file_extent, btrfs_file_extent_item, generation, 64)
BTRFS_SETGET_AS(file_extent, btrfs_file_extent_item, ram_bytes, 64)
BTRFS_SETGET_AS(file_extent, btrfs_file_extent_item, compression, 8)
BTRFS_SETGET_AS(file_extent, btrfs_file_extent_item, encryption, 8)
BTRFS_SETGET_AS(file_extent, btrfs_file_extent_item, other_encoding, 16)
BTRFS_SETGET_AS(file_extent, btrfs_file_extent_item, type, 8)
BTRFS_SETGET_AS(file_extent, btrfs_file_extent_item, disk_bytenr, 64)
BTRFS_SETGET_AS(file_extent, btrfs_file_extent_item, disk_num_bytes, 64)
BTRFS_SETGET_AS(file_extent, btrfs_file_extent_item, offset, 64)
BTRFS_SETGET_AS(file_extent, btrfs_file_extent_item, num_bytes, 64)
static inline const u8 *btrfs_file_extent_inline_data_ro(const struct btrfs_file_extent_item *p)
{
	return (const u8 *)p + BTRFS_FILE_EXTENT_INLINE_DATA_START;
}

static inline u8 *btrfs_file_extent_inline_data_rw(struct btrfs_file_extent_item *p)
{
	return (u8 *)p + BTRFS_FILE_EXTENT_INLINE_DATA_START;
}

/* Start of the data of an INLINE extent; keeps the constness of @p */
#define btrfs_file_extent_inline_data(p)					\
	_Generic((p),								\
		 const struct btrfs_file_extent_item *: btrfs_file_extent_inline_data_ro, \
		 default: btrfs_file_extent_inline_data_rw)(p)

/* EXTENT_CSUM item: a packed array of csum_size checksums, one per sector */
struct btrfs_csum_item {
	u8 csum;
} __attribute__((packed));
_Static_assert(sizeof(struct btrfs_csum_item) == 1, "btrfs_csum_item");

/* ------------------------------------------------------------------ */
/* Extent tree                                                         */
/* ------------------------------------------------------------------ */

/* EXTENT_ITEM / METADATA_ITEM fixed part; inline refs follow */
struct btrfs_extent_item {
	__le64 refs;
	__le64 generation;
	__le64 flags;
} __attribute__((packed));
_Static_assert(sizeof(struct btrfs_extent_item) == 24, "btrfs_extent_item");

BTRFS_SETGET_AS(extent, btrfs_extent_item, refs, 64)
BTRFS_SETGET_AS(extent, btrfs_extent_item, generation, 64)
BTRFS_SETGET_AS(extent, btrfs_extent_item, flags, 64)

/* Follows the extent item of a non-skinny tree block (EXTENT_ITEM key) */
struct btrfs_tree_block_info {
	struct btrfs_disk_key key;
	u8 level;
} __attribute__((packed));
_Static_assert(sizeof(struct btrfs_tree_block_info) == 18, "btrfs_tree_block_info");

BTRFS_SETGET_KEY(tree_block, btrfs_tree_block_info, key)
BTRFS_SETGET_AS(tree_block, btrfs_tree_block_info, level, 8)

/*
 * Inline ref header.  For EXTENT_DATA_REF the offset field is replaced by a
 * struct btrfs_extent_data_ref; for SHARED_DATA_REF a struct
 * btrfs_shared_data_ref follows the offset (parent).
 */
struct btrfs_extent_inline_ref {
	u8 type;
	__le64 offset;
} __attribute__((packed));
_Static_assert(sizeof(struct btrfs_extent_inline_ref) == 9, "btrfs_extent_inline_ref");

BTRFS_SETGET(extent_inline_ref, type, 8)
BTRFS_SETGET(extent_inline_ref, offset, 64)

/* Data backref by (root, inode, file offset); inline or keyed (bytenr, EXTENT_DATA_REF, hash) */
struct btrfs_extent_data_ref {
	__le64 root;
	__le64 objectid;
	__le64 offset;
	__le32 count;
} __attribute__((packed));
_Static_assert(sizeof(struct btrfs_extent_data_ref) == 28, "btrfs_extent_data_ref");

BTRFS_SETGET(extent_data_ref, root, 64)
BTRFS_SETGET(extent_data_ref, objectid, 64)
BTRFS_SETGET(extent_data_ref, offset, 64)
BTRFS_SETGET(extent_data_ref, count, 32)

/* Data backref by parent leaf: count */
struct btrfs_shared_data_ref {
	__le32 count;
} __attribute__((packed));
_Static_assert(sizeof(struct btrfs_shared_data_ref) == 4, "btrfs_shared_data_ref");

BTRFS_SETGET(shared_data_ref, count, 32)

/* Simple-quota owner of a data extent (inline only) */
struct btrfs_extent_owner_ref {
	__le64 root_id;
} __attribute__((packed));
_Static_assert(sizeof(struct btrfs_extent_owner_ref) == 8, "btrfs_extent_owner_ref");

BTRFS_SETGET(extent_owner_ref, root_id, 64)

/**
 * btrfs_extent_inline_ref_size - total size of an inline ref of @type
 *
 * Return: size in bytes including the type byte, or 0 for a type that is not
 * an inline reference.
 */
static inline u32 btrfs_extent_inline_ref_size(u8 type)
{
	switch (type) {
	case BTRFS_TREE_BLOCK_REF_KEY:
	case BTRFS_SHARED_BLOCK_REF_KEY:
	case BTRFS_EXTENT_OWNER_REF_KEY:
		return (u32)sizeof(struct btrfs_extent_inline_ref);
	case BTRFS_SHARED_DATA_REF_KEY:
		return (u32)(sizeof(struct btrfs_extent_inline_ref) +
			     sizeof(struct btrfs_shared_data_ref));
	case BTRFS_EXTENT_DATA_REF_KEY:
		return (u32)(1 + sizeof(struct btrfs_extent_data_ref));
	default:
		return 0;
	}
}

/* ------------------------------------------------------------------ */
/* Quota tree                                                          */
/* ------------------------------------------------------------------ */

/* QGROUP_STATUS (0, QGROUP_STATUS, 0); 32 bytes before Linux 6.7 */
struct btrfs_qgroup_status_item {
	__le64 version;
	__le64 generation;
	__le64 flags;
	__le64 rescan;
	__le64 enable_gen;
} __attribute__((packed));
_Static_assert(sizeof(struct btrfs_qgroup_status_item) == 40, "btrfs_qgroup_status_item");

#define BTRFS_QGROUP_STATUS_ITEM_V1_SIZE \
	((u32)offsetof(struct btrfs_qgroup_status_item, enable_gen))

BTRFS_SETGET_AS(qgroup_status, btrfs_qgroup_status_item, version, 64)
BTRFS_SETGET_AS(qgroup_status, btrfs_qgroup_status_item, generation, 64)
BTRFS_SETGET_AS(qgroup_status, btrfs_qgroup_status_item, flags, 64)
BTRFS_SETGET_AS(qgroup_status, btrfs_qgroup_status_item, rescan, 64)
BTRFS_SETGET_AS(qgroup_status, btrfs_qgroup_status_item, enable_gen, 64)

/* QGROUP_INFO (0, QGROUP_INFO, qgroupid) */
struct btrfs_qgroup_info_item {
	__le64 generation;
	__le64 rfer;
	__le64 rfer_cmpr;
	__le64 excl;
	__le64 excl_cmpr;
} __attribute__((packed));
_Static_assert(sizeof(struct btrfs_qgroup_info_item) == 40, "btrfs_qgroup_info_item");

BTRFS_SETGET_AS(qgroup_info, btrfs_qgroup_info_item, generation, 64)
BTRFS_SETGET_AS(qgroup_info, btrfs_qgroup_info_item, rfer, 64)
BTRFS_SETGET_AS(qgroup_info, btrfs_qgroup_info_item, rfer_cmpr, 64)
BTRFS_SETGET_AS(qgroup_info, btrfs_qgroup_info_item, excl, 64)
BTRFS_SETGET_AS(qgroup_info, btrfs_qgroup_info_item, excl_cmpr, 64)

/* QGROUP_LIMIT (0, QGROUP_LIMIT, qgroupid) */
struct btrfs_qgroup_limit_item {
	__le64 flags;
	__le64 max_rfer;
	__le64 max_excl;
	__le64 rsv_rfer;
	__le64 rsv_excl;
} __attribute__((packed));
_Static_assert(sizeof(struct btrfs_qgroup_limit_item) == 40, "btrfs_qgroup_limit_item");

BTRFS_SETGET_AS(qgroup_limit, btrfs_qgroup_limit_item, flags, 64)
BTRFS_SETGET_AS(qgroup_limit, btrfs_qgroup_limit_item, max_rfer, 64)
BTRFS_SETGET_AS(qgroup_limit, btrfs_qgroup_limit_item, max_excl, 64)
BTRFS_SETGET_AS(qgroup_limit, btrfs_qgroup_limit_item, rsv_rfer, 64)
BTRFS_SETGET_AS(qgroup_limit, btrfs_qgroup_limit_item, rsv_excl, 64)

#endif /* VOLCTL_KERNEL_SHARED_FORMAT_H */
