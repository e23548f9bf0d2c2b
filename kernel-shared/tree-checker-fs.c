// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tree-checker: items of subvolume trees and the root tree (inodes,
 * directory entries, inode refs, file extents, checksums, root items).
 *
 * The rules are the ones the kernel's tree-checker applies when it reads a
 * leaf (fs/btrfs/tree-checker.c of linux 6.18), so an item refused here is
 * one the kernel refuses too.  Each check reads only inside the item's
 * payload, which tree-checker.c has placed inside the leaf.
 */
#include <errno.h>
#include "csum.h"
#include "fs.h"
#include "tree-checker-internal.h"

#define S_IFMT_BITS	0170000U
#define MODE_BITS	(S_IFMT_BITS | 07777U)	/* type, setuid/setgid/sticky, rwx */
/* Inode flags the kernel knows (low 32 bits) and read-only-compatible ones (high 32) */
#define INODE_FLAGS_KNOWN	0x80000fffU	/* NODATASUM .. COMPRESS (bits 0-11), ROOT_ITEM_INIT */
#define INODE_RO_FLAGS_KNOWN	0x1U		/* VERITY */
#define NR_FILE_EXTENT_TYPES	3		/* inline, regular, prealloc */
#define NR_COMPRESS_TYPES	4		/* none, zlib, lzo, zstd */
#define XATTR_NAME_MAX		255

/*
 * In a subvolume tree every item of an inode follows its INODE_ITEM, so an
 * item of an inode that is not the leaf's first has the previous item's
 * objectid; anything else means the inode item is missing
 */
static inline int check_prev_ino(const struct tc_item *it)
{
	if (it->slot == 0 || !tc_is_fstree(it->owner) || it->prev.objectid == it->key.objectid)
		return 0;
	return tc_bad(it, "previous item belongs to inode %llu: inode item missing",
		      (unsigned long long)it->prev.objectid);
}

/* Inode number of an INODE_ITEM key or a directory entry's location */
static inline int check_inode_key(const struct tc_item *it, const struct btrfs_key *k,
				  const char *what)
{
	if (it->key.type == BTRFS_XATTR_ITEM_KEY) {
		if (k->objectid || k->type || k->offset)
			return tc_bad(it, "xattr location key (%llu %u %llu) is not zero",
				      (unsigned long long)k->objectid, k->type,
				      (unsigned long long)k->offset);
		return 0;
	}
	if ((k->objectid < BTRFS_FIRST_FREE_OBJECTID || k->objectid > BTRFS_LAST_FREE_OBJECTID) &&
	    k->objectid != BTRFS_ROOT_TREE_DIR_OBJECTID && k->objectid != BTRFS_FREE_INO_OBJECTID)
		return tc_bad(it, "%s objectid %llu is not an inode number", what,
			      (unsigned long long)k->objectid);
	if (k->offset)
		return tc_bad(it, "%s offset %llu, expected 0", what, (unsigned long long)k->offset);
	return 0;
}

/* A ROOT_ITEM key, or a directory entry's location that names a subvolume */
static int check_root_key(const struct tc_item *it, const struct btrfs_key *k, bool root_item)
{
	if (root_item && k->objectid == BTRFS_TREE_RELOC_OBJECTID && !tc_is_fstree(k->offset))
		return tc_bad(it, "relocation tree of tree %lld, which is not a subvolume",
			      (long long)k->offset);
	if (!k->objectid)
		return tc_bad(it, "%s names tree 0", root_item ? "root item" : "location key");
	if (!root_item && !tc_is_fstree(k->objectid))
		return tc_bad(it, "location key names tree %llu, which is not a subvolume",
			      (unsigned long long)k->objectid);
	if (k->objectid == BTRFS_TREE_RELOC_OBJECTID && !k->offset)
		return tc_bad(it, "relocation tree of tree 0");
	return 0;
}

static int check_inode_item(const struct tc_item *it)
{
	const struct btrfs_inode_item *ii = (const struct btrfs_inode_item *)it->data;
	u64 limit = it->fs->generation + 1;
	u64 flags;
	u32 mode, type;
	int ret;

	ret = check_inode_key(it, &it->key, "inode item");
	if (ret)
		return ret;
	if (it->size != sizeof(*ii))
		return tc_bad(it, "inode item size %u, expected %zu", it->size, sizeof(*ii));
	/* generation + 1 leaves room for a log tree written in the next transaction */
	if (btrfs_inode_generation(ii) > limit)
		return tc_bad(it, "inode generation %llu is beyond %llu",
			      (unsigned long long)btrfs_inode_generation(ii),
			      (unsigned long long)limit);
	if (btrfs_inode_transid(ii) > limit)
		return tc_bad(it, "inode transid %llu is beyond %llu",
			      (unsigned long long)btrfs_inode_transid(ii),
			      (unsigned long long)limit);
	mode = btrfs_inode_mode(ii);
	if (mode & ~MODE_BITS)
		return tc_bad(it, "inode mode has unknown bits 0%o", mode & ~MODE_BITS);
	/* FIFO, CHR, DIR, BLK, REG, LNK, SOCK; 0 and the other five codes are not file types */
	type = mode & S_IFMT_BITS;
	if (type != 0010000 && type != 0020000 && type != 0040000 && type != 0060000 &&
	    type != 0100000 && type != 0120000 && type != 0140000)
		return tc_bad(it, "inode mode 0%o has no valid file type", mode);
	if (type == 0040000 && btrfs_inode_nlink(ii) > 1)
		return tc_bad(it, "directory inode has %u links, at most 1 allowed",
			      btrfs_inode_nlink(ii));
	flags = btrfs_inode_flags(ii);
	if ((u32)flags & ~INODE_FLAGS_KNOWN)
		return tc_bad(it, "inode has unknown flags 0x%x", (u32)flags & ~INODE_FLAGS_KNOWN);
	/* the kernel mounts such an inode read-only only; volctl opened for writing refuses it */
	if (it->fs->writable && (u32)(flags >> 32) & ~INODE_RO_FLAGS_KNOWN)
		return tc_bad(it, "inode has unknown read-only compatible flags 0x%x, cannot write",
			      (u32)(flags >> 32) & ~INODE_RO_FLAGS_KNOWN);
	return 0;
}

static int check_root_item(const struct tc_item *it)
{
	const struct btrfs_root_item *ri = (const struct btrfs_root_item *)it->data;
	u64 limit = it->fs->generation + 1;
	const u64 known = BTRFS_ROOT_SUBVOL_RDONLY | BTRFS_ROOT_SUBVOL_DEAD;
	u64 gen_v2 = 0;
	int ret;

	ret = check_root_key(it, &it->key, true);
	if (ret)
		return ret;
	if (it->size != sizeof(*ri) && it->size != BTRFS_ROOT_ITEM_LEGACY_SIZE)
		return tc_bad(it, "root item size %u, expected %zu or %u", it->size, sizeof(*ri),
			      BTRFS_ROOT_ITEM_LEGACY_SIZE);
	/* a legacy item stops before generation_v2, which then counts as 0 */
	if (it->size == sizeof(*ri))
		gen_v2 = btrfs_root_generation_v2(ri);
	if (btrfs_root_generation(ri) > limit)
		return tc_bad(it, "root generation %llu is beyond %llu",
			      (unsigned long long)btrfs_root_generation(ri), (unsigned long long)limit);
	if (gen_v2 > limit)
		return tc_bad(it, "root generation_v2 %llu is beyond %llu",
			      (unsigned long long)gen_v2, (unsigned long long)limit);
	if (btrfs_root_last_snapshot(ri) > limit)
		return tc_bad(it, "root last_snapshot %llu is beyond %llu",
			      (unsigned long long)btrfs_root_last_snapshot(ri),
			      (unsigned long long)limit);
	if (!tc_aligned(btrfs_root_bytenr(ri), it->fs->sectorsize))
		return tc_bad(it, "root bytenr %llu not aligned to %u",
			      (unsigned long long)btrfs_root_bytenr(ri), it->fs->sectorsize);
	if (btrfs_root_level(ri) >= BTRFS_MAX_LEVEL)
		return tc_bad(it, "root level %u, at most %u", btrfs_root_level(ri),
			      BTRFS_MAX_LEVEL - 1);
	if (btrfs_root_drop_level(ri) >= BTRFS_MAX_LEVEL)
		return tc_bad(it, "root drop_level %u, at most %u", btrfs_root_drop_level(ri),
			      BTRFS_MAX_LEVEL - 1);
	if (btrfs_root_flags(ri) & ~known)
		return tc_bad(it, "root flags 0x%llx has unknown bits",
			      (unsigned long long)btrfs_root_flags(ri));
	return 0;
}

/* One DIR_ITEM / DIR_INDEX / XATTR_ITEM entry at @di, @room bytes left in the item */
static inline int check_dir_entry(const struct tc_item *it, const struct btrfs_dir_item *di,
				  u32 room, u32 *len)
{
	u32 max_both = btrfs_max_item_size(it->fs->nodesize) - (u32)sizeof(*di);
	bool xattr_key = it->key.type == BTRFS_XATTR_ITEM_KEY;
	struct btrfs_key loc;
	u32 name_len, data_len;
	u8 ftype;
	int ret;

	if (room < sizeof(*di))
		return tc_bad(it, "directory entry header crosses the item end");
	btrfs_dir_location(di, &loc);
	if (loc.type == BTRFS_ROOT_ITEM_KEY)
		ret = check_root_key(it, &loc, false);
	else if (loc.type == BTRFS_INODE_ITEM_KEY || loc.type == 0)
		ret = check_inode_key(it, &loc, "location key");
	else
		ret = tc_bad(it, "location key type %u, expected %u or %u", loc.type,
			     BTRFS_ROOT_ITEM_KEY, BTRFS_INODE_ITEM_KEY);
	if (ret)
		return ret;
	ftype = btrfs_dir_type(di) & ~BTRFS_FT_ENCRYPTED;
	if (ftype == BTRFS_FT_UNKNOWN || ftype >= BTRFS_FT_MAX)
		return tc_bad(it, "directory entry type %u, expected 1 to %u", ftype,
			      BTRFS_FT_MAX - 1);
	if (xattr_key != (ftype == BTRFS_FT_XATTR))
		return tc_bad(it, "entry type %u %s an xattr item", ftype,
			      xattr_key ? "in" : "outside");
	name_len = btrfs_dir_name_len(di);
	data_len = btrfs_dir_data_len(di);
	if (name_len > (xattr_key ? XATTR_NAME_MAX : BTRFS_NAME_LEN))
		return tc_bad(it, "entry name length %u too long", name_len);
	if (name_len + data_len > max_both)
		return tc_bad(it, "entry name and data length %u, at most %u", name_len + data_len,
			      max_both);
	if (data_len && !xattr_key)
		return tc_bad(it, "directory entry has %u data bytes, expected 0", data_len);
	*len = (u32)sizeof(*di) + name_len + data_len;
	if (*len > room)
		return tc_bad(it, "directory entry crosses the item end");
	/* DIR_ITEM and XATTR_ITEM are keyed by the name's hash */
	if (it->key.type != BTRFS_DIR_INDEX_KEY &&
	    it->key.offset != btrfs_name_hash((const char *)(di + 1), name_len))
		return tc_bad(it, "name hash 0x%llx does not match the key",
			      (unsigned long long)btrfs_name_hash((const char *)(di + 1), name_len));
	return 0;
}

static int check_dir_item(const struct tc_item *it)
{
	u32 cur = 0, len = 0;
	int ret;

	ret = check_prev_ino(it);
	for (; !ret && cur < it->size; cur += len)
		ret = check_dir_entry(it, (const struct btrfs_dir_item *)(it->data + cur),
				      it->size - cur, &len);
	return ret;
}

/* INODE_REF (header 10 bytes, at least one entry) and INODE_EXTREF (18): names fit */
static int check_inode_refs(const struct tc_item *it)
{
	bool ext = it->key.type == BTRFS_INODE_EXTREF_KEY;
	u32 hdr = ext ? sizeof(struct btrfs_inode_extref) : sizeof(struct btrfs_inode_ref);
	u32 cur = 0;
	int ret;

	ret = check_prev_ino(it);
	if (ret)
		return ret;
	if (!ext && it->size <= hdr)
		return tc_bad(it, "inode ref size %u, need more than %u", it->size, hdr);
	while (cur < it->size) {
		u32 name_len;

		if (it->size - cur < hdr)
			return tc_bad(it, "inode %s header crosses the item end", ext ? "extref" : "ref");
		name_len = ext ? btrfs_inode_extref_name_len((const struct btrfs_inode_extref *)
							     (it->data + cur))
			       : btrfs_inode_ref_name_len((const struct btrfs_inode_ref *)
							  (it->data + cur));
		if (it->size - cur - hdr < name_len)
			return tc_bad(it, "inode %s name crosses the item end", ext ? "extref" : "ref");
		cur += hdr + name_len;
	}
	return 0;
}

/* End of the file range of an already checked EXTENT_DATA item */
static u64 file_extent_end(const struct tc_item *it, u64 start,
			   const struct btrfs_file_extent_item *fi)
{
	u64 ss = it->fs->sectorsize;

	if (btrfs_file_extent_type(fi) == BTRFS_FILE_EXTENT_INLINE)
		return (start + btrfs_file_extent_ram_bytes(fi) + ss - 1) & ~(ss - 1);
	return start + btrfs_file_extent_num_bytes(fi);
}

static int check_file_extent(const struct tc_item *it)
{
	const struct btrfs_file_extent_item *fi = (const struct btrfs_file_extent_item *)it->data;
	u32 ss = it->fs->sectorsize;
	const char *unaligned = NULL;
	u64 v = 0;
	int ret;

	if (!tc_aligned(it->key.offset, ss))
		return tc_bad(it, "file offset not aligned to %u", ss);
	ret = check_prev_ino(it);
	if (ret)
		return ret;
	if (it->size < BTRFS_FILE_EXTENT_INLINE_DATA_START)
		return tc_bad(it, "file extent size %u, need %u", it->size,
			      BTRFS_FILE_EXTENT_INLINE_DATA_START);
	if (btrfs_file_extent_type(fi) >= NR_FILE_EXTENT_TYPES)
		return tc_bad(it, "file extent type %u unknown", btrfs_file_extent_type(fi));
	if (btrfs_file_extent_compression(fi) >= NR_COMPRESS_TYPES)
		return tc_bad(it, "file extent compression %u unknown",
			      btrfs_file_extent_compression(fi));
	if (btrfs_file_extent_encryption(fi))
		return tc_bad(it, "file extent encryption %u, expected 0",
			      btrfs_file_extent_encryption(fi));
	if (btrfs_file_extent_type(fi) == BTRFS_FILE_EXTENT_INLINE) {
		if (it->key.offset)
			return tc_bad(it, "inline file extent at file offset %llu, expected 0",
				      (unsigned long long)it->key.offset);
		/* compressed inline data has no size to compare with */
		if (btrfs_file_extent_compression(fi) == BTRFS_COMPRESS_NONE &&
		    it->size != BTRFS_FILE_EXTENT_INLINE_DATA_START + btrfs_file_extent_ram_bytes(fi))
			return tc_bad(it, "inline file extent size %u does not match ram_bytes %llu",
				      it->size, (unsigned long long)btrfs_file_extent_ram_bytes(fi));
		return 0;
	}
	if (it->size != sizeof(*fi))
		return tc_bad(it, "file extent size %u, expected %zu", it->size, sizeof(*fi));
	if (!tc_aligned(v = btrfs_file_extent_ram_bytes(fi), ss))
		unaligned = "ram_bytes";
	else if (!tc_aligned(v = btrfs_file_extent_disk_bytenr(fi), ss))
		unaligned = "disk_bytenr";
	else if (!tc_aligned(v = btrfs_file_extent_disk_num_bytes(fi), ss))
		unaligned = "disk_num_bytes";
	else if (!tc_aligned(v = btrfs_file_extent_offset(fi), ss))
		unaligned = "offset";
	else if (!tc_aligned(v = btrfs_file_extent_num_bytes(fi), ss))
		unaligned = "num_bytes";
	if (unaligned)
		return tc_bad(it, "file extent %s %llu not aligned to %u", unaligned,
			      (unsigned long long)v, ss);
	if (it->key.offset + btrfs_file_extent_num_bytes(fi) < it->key.offset)
		return tc_bad(it, "file extent end overflows");
	if (it->slot && it->prev.objectid == it->key.objectid &&
	    it->prev.type == BTRFS_EXTENT_DATA_KEY) {
		u64 prev_end = file_extent_end(it, it->prev.offset,
					       (const struct btrfs_file_extent_item *)it->prev_data);

		if (prev_end > it->key.offset)
			return tc_bad(it, "previous file extent ends at %llu, past this one's start",
				      (unsigned long long)prev_end);
	}
	return 0;
}

static int check_csum_item(const struct tc_item *it)
{
	u32 ss = it->fs->sectorsize, cs = (u32)it->fs->csum_size;

	if (it->key.objectid != BTRFS_EXTENT_CSUM_OBJECTID)
		return tc_bad(it, "checksum item objectid, expected %lld",
			      (long long)BTRFS_EXTENT_CSUM_OBJECTID);
	if (!tc_aligned(it->key.offset, ss))
		return tc_bad(it, "checksum item start not aligned to %u", ss);
	if (it->size % cs)
		return tc_bad(it, "checksum item size %u not a multiple of %u", it->size, cs);
	if (it->slot && it->prev.type == BTRFS_EXTENT_CSUM_KEY) {
		u64 prev_end = it->prev.offset + (u64)(it->prev_size / cs) * ss;

		if (prev_end > it->key.offset)
			return tc_bad(it, "previous checksum item covers up to %llu, past this one's start",
				      (unsigned long long)prev_end);
	}
	return 0;
}

int tc_check_fs_item(const struct tc_item *it)
{
	switch (it->key.type) {
	case BTRFS_INODE_ITEM_KEY:
		return check_inode_item(it);
	case BTRFS_ROOT_ITEM_KEY:
		return check_root_item(it);
	case BTRFS_DIR_ITEM_KEY:
	case BTRFS_DIR_INDEX_KEY:
	case BTRFS_XATTR_ITEM_KEY:
		return check_dir_item(it);
	case BTRFS_INODE_REF_KEY:
	case BTRFS_INODE_EXTREF_KEY:
		return check_inode_refs(it);
	case BTRFS_EXTENT_DATA_KEY:
		return check_file_extent(it);
	case BTRFS_EXTENT_CSUM_KEY:
		return check_csum_item(it);
	default:
		return 1;	/* not an item of these trees */
	}
}
