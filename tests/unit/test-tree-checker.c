// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tree-checker on leaves and nodes built in memory: for every rule the
 * kernel's tree-checker (linux 6.18) applies, a valid item that passes and
 * the smallest change that the kernel refuses, which must be refused with
 * a message naming the problem.  Kernel-made images of every shape pass the
 * same code in test-reader, test-reader-fixtures and the CLI suites.
 */
#include <errno.h>
#include <stdlib.h>
#include "unit.h"
#include "kernel-shared/csum.h"
#include "kernel-shared/fs.h"
#include "kernel-shared/tree-checker.h"

#define NODESIZE	16384
#define SS		4096
#define GEN		100	/* superblock generation */
#define M1		(1ULL << 20)

static struct btrfs_fs *fs;
static u8 blk[NODESIZE];
static u32 data_end;

static struct btrfs_header *hdr(void)
{
	return (struct btrfs_header *)blk;
}

static void leaf_begin(u64 owner)
{
	memset(blk, 0, sizeof(blk));
	btrfs_set_header_bytenr(hdr(), 30 * M1);
	btrfs_set_header_owner(hdr(), owner);
	btrfs_set_header_generation(hdr(), GEN);
	btrfs_set_header_flags(hdr(), BTRFS_HEADER_FLAG_WRITTEN);
	btrfs_set_header_backref_rev(hdr(), BTRFS_MIXED_BACKREF_REV);
	data_end = btrfs_leaf_data_size(NODESIZE);
}

/* Append an item with a zeroed payload of @size bytes; returns the payload */
static u8 *add(u64 objectid, u8 type, u64 offset, u32 size)
{
	u32 nr = btrfs_header_nritems(hdr());
	struct btrfs_item *it = (struct btrfs_item *)(blk + sizeof(struct btrfs_header) +
						      nr * sizeof(struct btrfs_item));
	struct btrfs_key k = { objectid, type, offset };

	data_end -= size;
	btrfs_set_item_key(it, &k);
	btrfs_set_item_offset(it, data_end);
	btrfs_set_item_size(it, size);
	btrfs_set_header_nritems(hdr(), nr + 1);
	return blk + BTRFS_LEAF_DATA_OFFSET + data_end;
}

/* btrfs_check_leaf() on blk: @substr NULL means it must pass */
static void expect(const char *what, const char *substr)
{
	int ret;

	fs->errmsg[0] = '\0';
	ret = btrfs_header_level(hdr()) ? btrfs_check_node(fs, blk) : btrfs_check_leaf(fs, blk);
	if (!substr) {
		if (!CHECK(ret == 0))
			fprintf(stderr, "  %s: refused: %s\n", what, fs->errmsg);
		return;
	}
	if (!CHECK(ret == -EUCLEAN && strstr(fs->errmsg, substr)))
		fprintf(stderr, "  %s: got %d '%s', want '%s'\n", what, ret, fs->errmsg, substr);
}

static void set_incompat(u64 bits)
{
	btrfs_set_super_incompat_flags(&fs->super, bits);
}

/* ---- subvolume tree items ------------------------------------------------ */

static struct btrfs_inode_item *inode_item(u64 ino, u32 mode, u32 nlink)
{
	struct btrfs_inode_item *ii = (struct btrfs_inode_item *)
		add(ino, BTRFS_INODE_ITEM_KEY, 0, sizeof(*ii));

	btrfs_set_inode_generation(ii, 5);
	btrfs_set_inode_transid(ii, 5);
	btrfs_set_inode_mode(ii, mode);
	btrfs_set_inode_nlink(ii, nlink);
	return ii;
}

static void test_inode_item(void)
{
	static const u32 types[] = { 0010000, 0020000, 0040000, 0060000, 0100000, 0120000, 0140000 };
	struct btrfs_inode_item *ii;

#define INODE_CASE(what, ino, off, code, substr) do {				\
	leaf_begin(5);								\
	ii = (struct btrfs_inode_item *)add(ino, BTRFS_INODE_ITEM_KEY, off, sizeof(*ii)); \
	btrfs_set_inode_generation(ii, 5);					\
	btrfs_set_inode_mode(ii, 040755);					\
	btrfs_set_inode_nlink(ii, 1);						\
	code;									\
	expect(what, substr);							\
} while (0)
	INODE_CASE("directory inode", 256, 0, , NULL);
	INODE_CASE("root tree directory inode", 6, 0, , NULL);
	INODE_CASE("free inode number cache", BTRFS_FREE_INO_OBJECTID, 0, , NULL);
	INODE_CASE("inode 255", 255, 0, , "not an inode number");
	INODE_CASE("inode -255", (u64)-255, 0, , "not an inode number");
	INODE_CASE("key offset 1", 256, 1, , "offset 1");
	INODE_CASE("generation + 1", 256, 0, btrfs_set_inode_generation(ii, GEN + 1), NULL);
	INODE_CASE("generation + 2", 256, 0, btrfs_set_inode_generation(ii, GEN + 2),
		   "inode generation");
	INODE_CASE("transid + 2", 256, 0, btrfs_set_inode_transid(ii, GEN + 2), "inode transid");
	INODE_CASE("mode bit 1 << 16", 256, 0, btrfs_set_inode_mode(ii, 0200644), "unknown bits");
	INODE_CASE("mode without type", 256, 0, btrfs_set_inode_mode(ii, 0644), "no valid file type");
	INODE_CASE("mode type 03", 256, 0, btrfs_set_inode_mode(ii, 0030644), "no valid file type");
	INODE_CASE("mode type 017", 256, 0, btrfs_set_inode_mode(ii, 0170644), "no valid file type");
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		INODE_CASE("each file type", 256, 0, btrfs_set_inode_mode(ii, types[i] | 06777), NULL);
	INODE_CASE("directory with 2 links", 256, 0, btrfs_set_inode_nlink(ii, 2), "2 links");
	INODE_CASE("file with 2 links", 256, 0,
		   (btrfs_set_inode_mode(ii, 0100644), btrfs_set_inode_nlink(ii, 2)), NULL);
	INODE_CASE("known flags", 256, 0, btrfs_set_inode_flags(ii, 0x80000fffULL), NULL);
	INODE_CASE("flag 1 << 12", 256, 0, btrfs_set_inode_flags(ii, 1ULL << 12), "unknown flags");
	INODE_CASE("verity", 256, 0, btrfs_set_inode_flags(ii, 1ULL << 32), NULL);
	INODE_CASE("unknown ro flag, reading", 256, 0, btrfs_set_inode_flags(ii, 1ULL << 33), NULL);
	fs->writable = true;
	INODE_CASE("unknown ro flag, writing", 256, 0, btrfs_set_inode_flags(ii, 1ULL << 33),
		   "read-only compatible");
	INODE_CASE("verity, writing", 256, 0, btrfs_set_inode_flags(ii, 1ULL << 32), NULL);
	fs->writable = false;
#undef INODE_CASE
	leaf_begin(5);
	add(256, BTRFS_INODE_ITEM_KEY, 0, sizeof(*ii) - 1);
	expect("inode item size", "inode item size");
}

/* A directory entry with name @name; returns the header */
static struct btrfs_dir_item *dir_entry(u8 *p, const char *name, u16 data_len, u8 ftype,
					const struct btrfs_key *loc)
{
	struct btrfs_dir_item *di = (struct btrfs_dir_item *)p;
	u16 name_len = (u16)strlen(name);

	btrfs_set_dir_location(di, loc);
	btrfs_set_dir_transid(di, 5);
	btrfs_set_dir_name_len(di, name_len);
	btrfs_set_dir_data_len(di, data_len);
	btrfs_set_dir_type(di, ftype);
	memcpy(di + 1, name, name_len);
	return di;
}

/* Leaf of tree 5: inode 256, then one DIR_ITEM / DIR_INDEX / XATTR_ITEM entry */
static struct btrfs_dir_item *one_entry(u8 type, const char *name, u16 data_len, u8 ftype,
					u64 loc_obj, u8 loc_type, u64 loc_off)
{
	struct btrfs_key loc = { loc_obj, loc_type, loc_off };
	u32 len = (u32)(sizeof(struct btrfs_dir_item) + strlen(name) + data_len);
	u64 off = type == BTRFS_DIR_INDEX_KEY ? 2 : btrfs_name_hash(name, strlen(name));

	leaf_begin(5);
	inode_item(256, 040755, 1);
	return dir_entry(add(256, type, off, len), name, data_len, ftype, &loc);
}

static void test_dir_item(void)
{
	const u8 D = BTRFS_DIR_ITEM_KEY, X = BTRFS_XATTR_ITEM_KEY, I = BTRFS_INODE_ITEM_KEY;
	const u8 R = BTRFS_ROOT_ITEM_KEY;
	struct btrfs_dir_item *di;
	struct btrfs_key loc = { 257, I, 0 };

	one_entry(D, "foo", 0, BTRFS_FT_REG_FILE, 257, I, 0);
	expect("dir item", NULL);
	one_entry(BTRFS_DIR_INDEX_KEY, "foo", 0, BTRFS_FT_REG_FILE, 257, I, 0);
	expect("dir index (offset is not a hash)", NULL);
	one_entry(X, "user.a", 3, BTRFS_FT_XATTR, 0, 0, 0);
	expect("xattr", NULL);
	one_entry(D, "sub", 0, BTRFS_FT_DIR, 256, R, (u64)-1);
	expect("subvolume entry", NULL);
	one_entry(D, "foo", 0, BTRFS_FT_REG_FILE | BTRFS_FT_ENCRYPTED, 257, I, 0);
	expect("encrypted name flag", NULL);

	one_entry(D, "foo", 0, BTRFS_FT_REG_FILE, 257, BTRFS_INODE_REF_KEY, 0);
	expect("location type", "location key type 12");
	one_entry(D, "sub", 0, BTRFS_FT_DIR, 2, R, (u64)-1);
	expect("location names the extent tree", "not a subvolume");
	one_entry(D, "sub", 0, BTRFS_FT_DIR, (1ULL << 48) | 256, R, (u64)-1);
	expect("location names a qgroup level", "not a subvolume");
	one_entry(D, "sub", 0, BTRFS_FT_DIR, 0, R, (u64)-1);
	expect("location names tree 0", "names tree 0");
	one_entry(D, "foo", 0, BTRFS_FT_REG_FILE, 100, I, 0);
	expect("location inode 100", "not an inode number");
	one_entry(D, "foo", 0, BTRFS_FT_REG_FILE, 257, I, 1);
	expect("location offset 1", "offset 1");
	one_entry(D, "foo", 0, BTRFS_FT_REG_FILE, 0, 0, 0);
	expect("zero location outside an xattr", "not an inode number");
	one_entry(X, "user.a", 3, BTRFS_FT_XATTR, 257, I, 0);
	expect("xattr location", "not zero");
	one_entry(D, "foo", 0, BTRFS_FT_UNKNOWN, 257, I, 0);
	expect("type 0", "entry type 0");
	one_entry(D, "foo", 0, BTRFS_FT_MAX, 257, I, 0);
	expect("type 9", "entry type 9");
	one_entry(X, "user.a", 0, BTRFS_FT_REG_FILE, 0, 0, 0);
	expect("xattr key, file type", "in an xattr");
	one_entry(D, "foo", 0, BTRFS_FT_XATTR, 257, I, 0);
	expect("dir key, xattr type", "outside an xattr");
	one_entry(D, "foo", 2, BTRFS_FT_REG_FILE, 257, I, 0);
	expect("dir entry with data", "2 data bytes");
	di = one_entry(D, "foo", 0, BTRFS_FT_REG_FILE, 257, I, 0);
	btrfs_set_dir_name_len(di, 256);
	expect("name length 256", "too long");
	di = one_entry(X, "user.a", 3, BTRFS_FT_XATTR, 0, 0, 0);
	btrfs_set_dir_data_len(di, (u16)(btrfs_max_item_size(NODESIZE) - 30 - 6 + 1));
	expect("name and data beyond an item", "name and data length");
	di = one_entry(D, "foo", 0, BTRFS_FT_REG_FILE, 257, I, 0);
	btrfs_set_dir_name_len(di, 4);
	expect("name beyond the item", "crosses the item end");
	di = one_entry(D, "foo", 0, BTRFS_FT_REG_FILE, 257, I, 0);
	((u8 *)(di + 1))[0] = 'g';
	expect("hash of another name", "name hash");
	di = one_entry(X, "user.a", 3, BTRFS_FT_XATTR, 0, 0, 0);
	((u8 *)(di + 1))[5] = 'b';
	expect("xattr hash of another name", "name hash");

	leaf_begin(5);
	inode_item(256, 040755, 1);
	add(256, D, btrfs_name_hash("foo", 3), 20);
	expect("header beyond the item", "header crosses");
	/* two entries under one hash: the second must fit too */
	leaf_begin(5);
	inode_item(256, 040755, 1);
	{
		u8 two[2 * (30 + 3)];

		dir_entry(two, "foo", 0, BTRFS_FT_REG_FILE, &loc);
		dir_entry(two + 33, "foo", 0, BTRFS_FT_REG_FILE, &loc);
		memcpy(add(256, D, btrfs_name_hash("foo", 3), sizeof(two) - 1), two, sizeof(two) - 1);
		expect("second entry cut", "crosses the item end");
	}

	/* in a subvolume tree, an inode's items follow its inode item */
	leaf_begin(5);
	inode_item(256, 040755, 1);
	dir_entry(add(257, D, btrfs_name_hash("foo", 3), 33), "foo", 0, BTRFS_FT_REG_FILE, &loc);
	expect("entry of an inode without inode item", "inode item missing");
	btrfs_set_header_owner(hdr(), BTRFS_ROOT_TREE_OBJECTID);
	expect("same in the root tree", NULL);
	btrfs_set_header_owner(hdr(), 256);
	expect("same in subvolume 256", "inode item missing");
	leaf_begin(5);
	dir_entry(add(257, D, btrfs_name_hash("foo", 3), 33), "foo", 0, BTRFS_FT_REG_FILE, &loc);
	expect("first item of a leaf", NULL);
}

static void test_inode_refs(void)
{
	u8 *p;

	leaf_begin(5);
	inode_item(257, 0100644, 1);
	p = add(257, BTRFS_INODE_REF_KEY, 256, 10 + 3);
	put_le16(p + 8, 3);
	memcpy(p + 10, "foo", 3);
	expect("inode ref", NULL);
	put_le16(p + 8, 4);
	expect("inode ref name beyond the item", "name crosses");

	leaf_begin(5);
	inode_item(257, 0100644, 1);
	add(257, BTRFS_INODE_REF_KEY, 256, 10);
	expect("inode ref without a name", "need more than 10");

	leaf_begin(5);
	inode_item(257, 0100644, 1);
	p = add(257, BTRFS_INODE_REF_KEY, 256, 13 + 5);
	put_le16(p + 8, 3);
	expect("second inode ref header cut", "ref header crosses");

	leaf_begin(5);
	inode_item(256, 040755, 1);
	add(257, BTRFS_INODE_REF_KEY, 256, 13)[8] = 3;
	expect("inode ref without inode item", "inode item missing");

	leaf_begin(5);
	inode_item(257, 0100644, 1);
	p = add(257, BTRFS_INODE_EXTREF_KEY, 12345, 18 + 3);
	put_le64(p, 256);
	put_le16(p + 16, 3);
	expect("inode extref", NULL);
	put_le16(p + 16, 4);
	expect("inode extref name beyond the item", "name crosses");

	leaf_begin(5);
	inode_item(257, 0100644, 1);
	add(257, BTRFS_INODE_EXTREF_KEY, 12345, 0);
	expect("empty inode extref (the kernel accepts it)", NULL);
	leaf_begin(5);
	inode_item(257, 0100644, 1);
	add(257, BTRFS_INODE_EXTREF_KEY, 12345, 17);
	expect("inode extref header cut", "extref header crosses");
}

/* EXTENT_DATA item of @size bytes: the first @size bytes of a full one */
static struct btrfs_file_extent_item *file_extent(u64 ino, u64 off, u8 type, u32 size)
{
	struct btrfs_file_extent_item full = { 0 };
	u8 *p = add(ino, BTRFS_EXTENT_DATA_KEY, off, size);

	btrfs_set_file_extent_generation(&full, 5);
	btrfs_set_file_extent_type(&full, type);
	if (type != BTRFS_FILE_EXTENT_INLINE) {
		btrfs_set_file_extent_ram_bytes(&full, 8192);
		btrfs_set_file_extent_disk_bytenr(&full, 20 * M1);
		btrfs_set_file_extent_disk_num_bytes(&full, 8192);
		btrfs_set_file_extent_num_bytes(&full, 8192);
	}
	memcpy(p, &full, size < sizeof(full) ? size : sizeof(full));
	return (struct btrfs_file_extent_item *)p;
}

static void test_file_extent(void)
{
	const u8 REG = BTRFS_FILE_EXTENT_REG, INL = BTRFS_FILE_EXTENT_INLINE;
	struct btrfs_file_extent_item *fi;

#define FE_CASE(what, off, type, size, code, substr) do {			\
	leaf_begin(5);								\
	inode_item(257, 0100644, 1);						\
	fi = file_extent(257, off, type, size);					\
	code;									\
	expect(what, substr);							\
} while (0)
	FE_CASE("regular", 0, REG, 53, , NULL);
	FE_CASE("prealloc", 4096, BTRFS_FILE_EXTENT_PREALLOC, 53, , NULL);
	FE_CASE("hole", 0, REG, 53, btrfs_set_file_extent_disk_bytenr(fi, 0), NULL);
	FE_CASE("inline", 0, INL, 21 + 5, btrfs_set_file_extent_ram_bytes(fi, 5), NULL);
	FE_CASE("compressed inline", 0, INL, 21 + 5,
		(btrfs_set_file_extent_compression(fi, BTRFS_COMPRESS_ZSTD),
		 btrfs_set_file_extent_ram_bytes(fi, 3000)), NULL);
	FE_CASE("file offset unaligned", 100, REG, 53, , "file offset not aligned");
	FE_CASE("item of 20 bytes", 0, REG, 20, , "need 21");
	FE_CASE("type 3", 0, 3, 53, , "type 3 unknown");
	FE_CASE("compression 4", 0, REG, 53, btrfs_set_file_extent_compression(fi, 4),
		"compression 4 unknown");
	FE_CASE("encryption", 0, REG, 53, btrfs_set_file_extent_encryption(fi, 1), "encryption 1");
	FE_CASE("inline at 4096", 4096, INL, 21 + 5, btrfs_set_file_extent_ram_bytes(fi, 5),
		"expected 0");
	FE_CASE("inline ram_bytes off by one", 0, INL, 21 + 5,
		btrfs_set_file_extent_ram_bytes(fi, 6), "does not match ram_bytes");
	FE_CASE("regular of 52 bytes", 0, REG, 52, , "size 52");
	FE_CASE("regular of 54 bytes", 0, REG, 54, , "size 54");
	FE_CASE("ram_bytes unaligned", 0, REG, 53, btrfs_set_file_extent_ram_bytes(fi, 100),
		"ram_bytes 100 not aligned");
	FE_CASE("disk_bytenr unaligned", 0, REG, 53,
		btrfs_set_file_extent_disk_bytenr(fi, 20 * M1 + 1), "disk_bytenr");
	FE_CASE("disk_num_bytes unaligned", 0, REG, 53,
		btrfs_set_file_extent_disk_num_bytes(fi, 8191), "disk_num_bytes");
	FE_CASE("offset unaligned", 0, REG, 53, btrfs_set_file_extent_offset(fi, 512),
		"offset 512 not aligned");
	FE_CASE("num_bytes unaligned", 0, REG, 53, btrfs_set_file_extent_num_bytes(fi, 1),
		"num_bytes");
	FE_CASE("end overflows", (u64)-4096, REG, 53, , "overflows");
#undef FE_CASE

	leaf_begin(5);
	inode_item(257, 0100644, 1);
	file_extent(257, 0, REG, 53);
	file_extent(257, 8192, REG, 53);
	expect("adjacent extents", NULL);
	leaf_begin(5);
	inode_item(257, 0100644, 1);
	file_extent(257, 0, REG, 53);
	file_extent(257, 4096, REG, 53);
	expect("overlapping extents", "previous file extent ends at 8192");
	leaf_begin(5);
	inode_item(257, 0100644, 1);
	fi = file_extent(257, 0, INL, 21 + 5);
	btrfs_set_file_extent_compression(fi, BTRFS_COMPRESS_ZLIB);
	btrfs_set_file_extent_ram_bytes(fi, 4097);
	file_extent(257, 4096, REG, 53);
	expect("inline extent reaching into the next", "previous file extent ends at 8192");
	leaf_begin(5);
	inode_item(256, 040755, 1);
	file_extent(257, 0, REG, 53);
	expect("extent of an inode without inode item", "inode item missing");
}

static void test_csum_item(void)
{
	const u64 C = BTRFS_EXTENT_CSUM_OBJECTID;

	leaf_begin(BTRFS_CSUM_TREE_OBJECTID);
	add(C, BTRFS_EXTENT_CSUM_KEY, 20 * M1, 8);
	add(C, BTRFS_EXTENT_CSUM_KEY, 20 * M1 + 8192, 4);
	expect("checksums", NULL);
	leaf_begin(BTRFS_CSUM_TREE_OBJECTID);
	add(C, BTRFS_EXTENT_CSUM_KEY, 20 * M1, 8);
	add(C, BTRFS_EXTENT_CSUM_KEY, 20 * M1 + 4096, 4);
	expect("overlapping checksums", "covers up to");
	leaf_begin(BTRFS_CSUM_TREE_OBJECTID);
	add(C + 1, BTRFS_EXTENT_CSUM_KEY, 20 * M1, 8);
	expect("checksum objectid", "objectid");
	leaf_begin(BTRFS_CSUM_TREE_OBJECTID);
	add(C, BTRFS_EXTENT_CSUM_KEY, 20 * M1 + 512, 8);
	expect("checksum start unaligned", "not aligned");
	leaf_begin(BTRFS_CSUM_TREE_OBJECTID);
	add(C, BTRFS_EXTENT_CSUM_KEY, 20 * M1, 6);
	expect("checksum size", "not a multiple of 4");
}

static struct btrfs_root_item *root_item(u64 id, u64 off, u32 size)
{
	struct btrfs_root_item *ri = (struct btrfs_root_item *)add(id, BTRFS_ROOT_ITEM_KEY, off, size);

	btrfs_set_root_generation(ri, 5);
	btrfs_set_root_bytenr(ri, 30 * M1);
	btrfs_set_root_refs(ri, 1);
	return ri;
}

static void test_root_item(void)
{
	const u32 full = sizeof(struct btrfs_root_item), legacy = BTRFS_ROOT_ITEM_LEGACY_SIZE;
	const u64 RELOC = BTRFS_TREE_RELOC_OBJECTID;
	struct btrfs_root_item *ri;

#define ROOT_CASE(what, id, off, size, code, substr) do {			\
	leaf_begin(BTRFS_ROOT_TREE_OBJECTID);					\
	ri = root_item(id, off, size);						\
	code;									\
	expect(what, substr);							\
} while (0)
	ROOT_CASE("root item", 5, 0, full, , NULL);
	ROOT_CASE("legacy root item", 5, 0, legacy, , NULL);
	ROOT_CASE("snapshot", 257, 7, full, , NULL);
	ROOT_CASE("relocation tree of 256", RELOC, 256, full, , NULL);
	ROOT_CASE("relocation tree of the extent tree", RELOC, 2, full, , "not a subvolume");
	ROOT_CASE("relocation tree of tree 0", RELOC, 0, full, , "relocation tree of tree 0");
	ROOT_CASE("root id 0", 0, 0, full, , "names tree 0");
	ROOT_CASE("size 300", 5, 0, 300, , "root item size 300");
	ROOT_CASE("generation + 2", 5, 0, full, btrfs_set_root_generation(ri, GEN + 2),
		  "root generation");
	ROOT_CASE("generation_v2 + 2", 5, 0, full, btrfs_set_root_generation_v2(ri, GEN + 2),
		  "generation_v2");
	ROOT_CASE("last_snapshot + 2", 5, 0, full, btrfs_set_root_last_snapshot(ri, GEN + 2),
		  "last_snapshot");
	ROOT_CASE("bytenr unaligned", 5, 0, full, btrfs_set_root_bytenr(ri, 30 * M1 + 512),
		  "bytenr");
	ROOT_CASE("level 8", 5, 0, full, btrfs_set_root_level(ri, 8), "root level 8");
	ROOT_CASE("drop_level 8", 5, 0, full, btrfs_set_root_drop_level(ri, 8), "drop_level 8");
	ROOT_CASE("read-only, dead", 5, 0, full,
		  btrfs_set_root_flags(ri, BTRFS_ROOT_SUBVOL_RDONLY | BTRFS_ROOT_SUBVOL_DEAD), NULL);
	ROOT_CASE("flag 1 << 1", 5, 0, full, btrfs_set_root_flags(ri, 2), "root flags 0x2");
#undef ROOT_CASE
}

/* ---- extent tree items --------------------------------------------------- */

static struct btrfs_extent_item *extent_item(u64 start, u8 type, u64 off, u32 size, u64 flags,
					     u64 refs)
{
	struct btrfs_extent_item *ei = (struct btrfs_extent_item *)add(start, type, off, size);

	btrfs_set_extent_refs(ei, refs);
	btrfs_set_extent_generation(ei, 5);
	btrfs_set_extent_flags(ei, flags);
	return ei;
}

static void put_data_ref(u8 *p, u64 root, u64 ino, u64 off, u32 count)
{
	struct btrfs_extent_data_ref *d = (struct btrfs_extent_data_ref *)p;

	btrfs_set_extent_data_ref_root(d, root);
	btrfs_set_extent_data_ref_objectid(d, ino);
	btrfs_set_extent_data_ref_offset(d, off);
	btrfs_set_extent_data_ref_count(d, count);
}

/* A data extent of 4096 bytes at 20 MiB with one inline EXTENT_DATA_REF */
static struct btrfs_extent_item *data_extent(u64 root, u64 ino, u64 off, u32 count)
{
	struct btrfs_extent_item *ei = extent_item(20 * M1, BTRFS_EXTENT_ITEM_KEY, 4096, 24 + 29,
						   BTRFS_EXTENT_FLAG_DATA, count);
	u8 *p = (u8 *)(ei + 1);

	p[0] = BTRFS_EXTENT_DATA_REF_KEY;
	put_data_ref(p + 1, root, ino, off, count);
	return ei;
}

/* A skinny tree block at @start with inline refs of @types and @offsets */
static void tree_block(u64 start, int n, const u8 *types, const u64 *offsets)
{
	struct btrfs_extent_item *ei = extent_item(start, BTRFS_METADATA_ITEM_KEY, 0, 24 + 9 * n,
						   BTRFS_EXTENT_FLAG_TREE_BLOCK, n);
	u8 *p = (u8 *)(ei + 1);

	for (int i = 0; i < n; i++) {
		p[9 * i] = types[i];
		put_le64(p + 9 * i + 1, offsets[i]);
	}
}

static void test_extent_item(void)
{
	const u8 TB = BTRFS_TREE_BLOCK_REF_KEY, SB = BTRFS_SHARED_BLOCK_REF_KEY;
	const u8 EI = BTRFS_EXTENT_ITEM_KEY, MI = BTRFS_METADATA_ITEM_KEY;
	const u64 TREE = BTRFS_EXTENT_FLAG_TREE_BLOCK, DATA = BTRFS_EXTENT_FLAG_DATA;
	u8 *p;

	set_incompat(BTRFS_FEATURE_INCOMPAT_SKINNY_METADATA);
#define EXT_CASE(what, code, substr) do {					\
	leaf_begin(BTRFS_EXTENT_TREE_OBJECTID);					\
	code;									\
	expect(what, substr);							\
} while (0)
	EXT_CASE("data extent", data_extent(5, 257, 0, 1), NULL);
	EXT_CASE("data ref of the root tree", data_extent(1, 257, 0, 1), NULL);
	EXT_CASE("data ref of the data relocation tree",
		 data_extent(BTRFS_DATA_RELOC_TREE_OBJECTID, 257, 0, 1), NULL);
	EXT_CASE("data ref of the extent tree", data_extent(2, 257, 0, 1), "cannot own data");
	EXT_CASE("data ref of a qgroup level", data_extent((1ULL << 48) | 256, 257, 0, 1),
		 "cannot own data");
	EXT_CASE("data ref inode 255", data_extent(5, 255, 0, 1), "not an inode number");
	EXT_CASE("data ref offset unaligned", data_extent(5, 257, 10, 1), "offset 10 not aligned");
	EXT_CASE("data ref count 0", data_extent(5, 257, 0, 0), "count is 0");
	EXT_CASE("fewer refs than inline", btrfs_set_extent_refs(data_extent(5, 257, 0, 2), 1),
		 "fewer than its 2 inline refs");
	EXT_CASE("more refs than inline (keyed refs elsewhere)",
		 btrfs_set_extent_refs(data_extent(5, 257, 0, 1), 9), NULL);
	EXT_CASE("no flags (fsck-tests 027)", btrfs_set_extent_flags(data_extent(5, 257, 0, 1), 0),
		 "need exactly one of data and tree block");
	EXT_CASE("data and tree block", btrfs_set_extent_flags(data_extent(5, 257, 0, 1), 3),
		 "need exactly one");
	EXT_CASE("data with full backref",
		 btrfs_set_extent_flags(data_extent(5, 257, 0, 1), DATA | BTRFS_BLOCK_FLAG_FULL_BACKREF),
		 "full backref");
	EXT_CASE("generation + 2", btrfs_set_extent_generation(data_extent(5, 257, 0, 1), GEN + 2),
		 "extent generation");
	EXT_CASE("extent start unaligned", extent_item(20 * M1 + 1, EI, 4096, 24, DATA, 0),
		 "extent start not aligned");
	EXT_CASE("data length unaligned", extent_item(20 * M1, EI, 4095, 24, DATA, 0),
		 "data extent length 4095");
	EXT_CASE("data extent as metadata item", extent_item(20 * M1, MI, 0, 24, DATA, 0),
		 "metadata item for a data extent");
	EXT_CASE("item of 23 bytes", add(20 * M1, EI, 4096, 23), "need 24");
	EXT_CASE("padding after the refs",
		 (p = (u8 *)(extent_item(20 * M1, EI, 4096, 24 + 29 + 3, DATA, 1) + 1),
		  p[0] = BTRFS_EXTENT_DATA_REF_KEY, put_data_ref(p + 1, 5, 257, 0, 1)),
		 "inline ref crosses");
	EXT_CASE("data ref cut",
		 (p = (u8 *)(extent_item(20 * M1, EI, 4096, 24 + 20, DATA, 1) + 1),
		  p[0] = BTRFS_EXTENT_DATA_REF_KEY),
		 "type 178 crosses");
	EXT_CASE("unknown inline ref type",
		 (p = (u8 *)(extent_item(20 * M1, EI, 4096, 24 + 9, DATA, 1) + 1), p[0] = 100),
		 "unknown inline ref type 100");
	EXT_CASE("shared data ref",
		 (p = (u8 *)(extent_item(20 * M1, EI, 4096, 24 + 13, DATA, 2) + 1),
		  p[0] = BTRFS_SHARED_DATA_REF_KEY, put_le64(p + 1, 30 * M1), put_le32(p + 9, 2)),
		 NULL);
	EXT_CASE("shared data ref count 0",
		 (p = (u8 *)(extent_item(20 * M1, EI, 4096, 24 + 13, DATA, 2) + 1),
		  p[0] = BTRFS_SHARED_DATA_REF_KEY, put_le64(p + 1, 30 * M1)),
		 "shared data ref count is 0");
	EXT_CASE("shared data ref parent unaligned",
		 (p = (u8 *)(extent_item(20 * M1, EI, 4096, 24 + 13, DATA, 2) + 1),
		  p[0] = BTRFS_SHARED_DATA_REF_KEY, put_le64(p + 1, 30 * M1 + 8), put_le32(p + 9, 2)),
		 "shared data ref parent");
	EXT_CASE("simple quota owner, then a data ref",
		 (p = (u8 *)(extent_item(20 * M1, EI, 4096, 24 + 9 + 29, DATA, 1) + 1),
		  p[0] = BTRFS_EXTENT_OWNER_REF_KEY, put_le64(p + 1, 5),
		  p[9] = BTRFS_EXTENT_DATA_REF_KEY, put_data_ref(p + 10, 5, 257, 0, 1)),
		 NULL);
	EXT_CASE("data ref, then a simple quota owner",
		 (p = (u8 *)(extent_item(20 * M1, EI, 4096, 24 + 9 + 29, DATA, 1) + 1),
		  p[0] = BTRFS_EXTENT_DATA_REF_KEY, put_data_ref(p + 1, 5, 257, 0, 1),
		  p[29] = BTRFS_EXTENT_OWNER_REF_KEY, put_le64(p + 30, 5)),
		 "type 172 after type 178");

	/* data refs of one type: descending hash */
	{
		u64 h1 = btrfs_extent_data_ref_hash(5, 257, 0);
		u64 h2 = btrfs_extent_data_ref_hash(5, 258, 0);
		u64 hi = h1 > h2 ? 257 : 258, lo = h1 > h2 ? 258 : 257;

		EXT_CASE("two data refs, higher hash first",
			 (p = (u8 *)(extent_item(20 * M1, EI, 4096, 24 + 58, DATA, 2) + 1),
			  p[0] = BTRFS_EXTENT_DATA_REF_KEY, put_data_ref(p + 1, 5, hi, 0, 1),
			  p[29] = BTRFS_EXTENT_DATA_REF_KEY, put_data_ref(p + 30, 5, lo, 0, 1)),
			 NULL);
		EXT_CASE("two data refs, lower hash first (fsck-tests 061)",
			 (p = (u8 *)(extent_item(20 * M1, EI, 4096, 24 + 58, DATA, 2) + 1),
			  p[0] = BTRFS_EXTENT_DATA_REF_KEY, put_data_ref(p + 1, 5, lo, 0, 1),
			  p[29] = BTRFS_EXTENT_DATA_REF_KEY, put_data_ref(p + 30, 5, hi, 0, 1)),
			 "inline refs of type 178 out of order");
	}

	/* tree blocks */
	{
		const u8 t1[] = { TB }, t2[] = { TB, TB }, t3[] = { SB, TB }, t4[] = { TB, SB };
		const u64 o1[] = { 5 }, down[] = { 257, 5 }, up[] = { 5, 257 };
		const u64 par[] = { 30 * M1, 5 }, par2[] = { 5, 30 * M1 + 16 };

		EXT_CASE("tree block", tree_block(30 * M1, 1, t1, o1), NULL);
		EXT_CASE("tree block refs, descending", tree_block(30 * M1, 2, t2, down), NULL);
		EXT_CASE("tree block refs, ascending", tree_block(30 * M1, 2, t2, up),
			 "type 176 out of order");
		EXT_CASE("shared block ref before tree block ref", tree_block(30 * M1, 2, t3, par),
			 "type 176 after type 182");
		EXT_CASE("shared block ref parent unaligned", tree_block(30 * M1, 2, t4, par2),
			 "shared block ref parent");
		EXT_CASE("tree block with full backref",
			 (tree_block(30 * M1, 1, t1, o1),
			  btrfs_set_extent_flags((struct btrfs_extent_item *)
				(blk + BTRFS_LEAF_DATA_OFFSET + data_end),
				TREE | BTRFS_BLOCK_FLAG_FULL_BACKREF)), NULL);
		EXT_CASE("metadata item level 8", extent_item(30 * M1, MI, 8, 24, TREE, 0),
			 "metadata item level 8");
		EXT_CASE("adjacent tree blocks",
			 (tree_block(30 * M1, 1, t1, o1), tree_block(30 * M1 + NODESIZE, 1, t1, o1)),
			 NULL);
		EXT_CASE("overlapping tree blocks",
			 (tree_block(30 * M1, 1, t1, o1), tree_block(30 * M1 + 4096, 1, t1, o1)),
			 "overlaps the previous extent");
		EXT_CASE("overlapping data extents",
			 (extent_item(20 * M1, EI, 8192, 24, DATA, 0),
			  extent_item(20 * M1 + 4096, EI, 4096, 24, DATA, 0)),
			 "overlaps the previous extent");
		EXT_CASE("block group item between extents",
			 (extent_item(20 * M1, EI, 8192, 24, DATA, 0),
			  add(20 * M1, BTRFS_BLOCK_GROUP_ITEM_KEY, 8 * M1, 24)[8] = 0,
			  put_le64(blk + BTRFS_LEAF_DATA_OFFSET + data_end + 8, 256),
			  put_le64(blk + BTRFS_LEAF_DATA_OFFSET + data_end + 16, 1),
			  extent_item(20 * M1 + 8192, EI, 4096, 24, DATA, 0)),
			 NULL);
	}

	/* non-skinny tree blocks: EXTENT_ITEM of nodesize bytes with a tree block info */
	EXT_CASE("non-skinny tree block",
		 (p = (u8 *)(extent_item(30 * M1, EI, NODESIZE, 24 + 18 + 9, TREE, 1) + 1),
		  p[17] = 0, p[18] = TB, put_le64(p + 19, 5)), NULL);
	EXT_CASE("tree block info level 8",
		 (p = (u8 *)(extent_item(30 * M1, EI, NODESIZE, 24 + 18 + 9, TREE, 1) + 1),
		  p[17] = 8, p[18] = TB, put_le64(p + 19, 5)), "tree block info level 8");
	EXT_CASE("tree block without its info", extent_item(30 * M1, EI, NODESIZE, 30, TREE, 0),
		 "too small for its tree block info");
	EXT_CASE("tree block extent of 4096 bytes", extent_item(30 * M1, EI, 4096, 24 + 18, TREE, 0),
		 "tree block extent length 4096");
	set_incompat(0);
	EXT_CASE("metadata item without skinny-metadata", extent_item(30 * M1, MI, 0, 24, TREE, 0),
		 "without skinny-metadata");
#undef EXT_CASE
}

static void test_keyed_refs(void)
{
	u8 *p;

#define REF_CASE(what, code, substr) do {					\
	leaf_begin(BTRFS_EXTENT_TREE_OBJECTID);					\
	code;									\
	expect(what, substr);							\
} while (0)
	REF_CASE("tree block ref", add(30 * M1, BTRFS_TREE_BLOCK_REF_KEY, 5, 0), NULL);
	REF_CASE("tree block ref with payload", add(30 * M1, BTRFS_TREE_BLOCK_REF_KEY, 5, 4),
		 "size 4, expected 0");
	REF_CASE("tree block ref start unaligned", add(30 * M1 + 2, BTRFS_TREE_BLOCK_REF_KEY, 5, 0),
		 "extent start not aligned");
	REF_CASE("shared block ref", add(30 * M1, BTRFS_SHARED_BLOCK_REF_KEY, 31 * M1, 0), NULL);
	REF_CASE("shared block ref parent unaligned",
		 add(30 * M1, BTRFS_SHARED_BLOCK_REF_KEY, 31 * M1 + 1, 0), "parent");
	REF_CASE("shared data ref", put_le32(add(20 * M1, BTRFS_SHARED_DATA_REF_KEY, 31 * M1, 4), 1),
		 NULL);
	REF_CASE("shared data ref count 0", add(20 * M1, BTRFS_SHARED_DATA_REF_KEY, 31 * M1, 4),
		 "count is 0");
	REF_CASE("shared data ref of 0 bytes", add(20 * M1, BTRFS_SHARED_DATA_REF_KEY, 31 * M1, 0),
		 "size 0, expected 4");
	REF_CASE("keyed data ref",
		 put_data_ref(add(20 * M1, BTRFS_EXTENT_DATA_REF_KEY, 1234, 28), 5, 257, 0, 1), NULL);
	REF_CASE("keyed data refs sharing a hash",
		 (p = add(20 * M1, BTRFS_EXTENT_DATA_REF_KEY, 1234, 56),
		  put_data_ref(p, 5, 257, 0, 1), put_data_ref(p + 28, 5, 258, 0, 2)), NULL);
	REF_CASE("second keyed data ref count 0",
		 (p = add(20 * M1, BTRFS_EXTENT_DATA_REF_KEY, 1234, 56),
		  put_data_ref(p, 5, 257, 0, 1), put_data_ref(p + 28, 5, 258, 0, 0)), "count is 0");
	REF_CASE("keyed data ref of 27 bytes", add(20 * M1, BTRFS_EXTENT_DATA_REF_KEY, 1234, 27),
		 "not a multiple of 28");
	REF_CASE("keyed data ref start unaligned",
		 put_data_ref(add(20 * M1 + 8, BTRFS_EXTENT_DATA_REF_KEY, 1234, 28), 5, 257, 0, 1),
		 "extent start not aligned");
	REF_CASE("keyed data ref of tree 4",
		 put_data_ref(add(20 * M1, BTRFS_EXTENT_DATA_REF_KEY, 1234, 28), 4, 257, 0, 1),
		 "cannot own data");
	REF_CASE("keyed data ref inode 6",
		 put_data_ref(add(20 * M1, BTRFS_EXTENT_DATA_REF_KEY, 1234, 28), 5, 6, 0, 1),
		 "not an inode number");
	REF_CASE("keyed data ref offset unaligned",
		 put_data_ref(add(20 * M1, BTRFS_EXTENT_DATA_REF_KEY, 1234, 28), 5, 257, 1, 1),
		 "offset 1 not aligned");
#undef REF_CASE
}

static void block_group(u64 start, u64 len, u64 used, u64 chunk_objectid, u64 flags)
{
	struct btrfs_block_group_item *bg = (struct btrfs_block_group_item *)
		add(start, BTRFS_BLOCK_GROUP_ITEM_KEY, len, sizeof(*bg));

	btrfs_set_block_group_used(bg, used);
	btrfs_set_block_group_chunk_objectid(bg, chunk_objectid);
	btrfs_set_block_group_flags(bg, flags);
}

static void test_block_group(void)
{
	const u64 D = BTRFS_BLOCK_GROUP_DATA, M = BTRFS_BLOCK_GROUP_METADATA;
	const u64 S = BTRFS_BLOCK_GROUP_SYSTEM;

#define BG_CASE(what, code, substr) do {					\
	leaf_begin(BTRFS_EXTENT_TREE_OBJECTID);					\
	code;									\
	expect(what, substr);							\
} while (0)
	BG_CASE("data", block_group(M1, 8 * M1, 4096, 256, D), NULL);
	BG_CASE("metadata dup", block_group(M1, 8 * M1, 0, 256, M | BTRFS_BLOCK_GROUP_DUP), NULL);
	BG_CASE("system raid1c4", block_group(M1, 8 * M1, 0, 256, S | BTRFS_BLOCK_GROUP_RAID1C4),
		NULL);
	BG_CASE("mixed", block_group(M1, 8 * M1, 0, 256, D | M), NULL);
	BG_CASE("full", block_group(M1, 8 * M1, 8 * M1, 256, D), NULL);
	BG_CASE("length 0", block_group(M1, 0, 0, 256, D), "length 0");
	BG_CASE("item of 25 bytes", add(M1, BTRFS_BLOCK_GROUP_ITEM_KEY, 8 * M1, 25), "size 25");
	BG_CASE("chunk objectid 255", block_group(M1, 8 * M1, 0, 255, D), "chunk objectid 255");
	BG_CASE("used beyond the length (fsck-tests 050)", block_group(M1, 8 * M1, 8 * M1 + 1, 256, D),
		"exceeds its length");
	BG_CASE("two profiles",
		block_group(M1, 8 * M1, 0, 256, D | BTRFS_BLOCK_GROUP_RAID0 | BTRFS_BLOCK_GROUP_DUP),
		"several profile bits");
	BG_CASE("no type", block_group(M1, 8 * M1, 0, 256, 0), "type 0x0");
	BG_CASE("system and data", block_group(M1, 8 * M1, 0, 256, S | D), "type 0x3");
#undef BG_CASE
}

static u8 *chunk_item(u64 start, u64 type, u16 num, u32 size)
{
	struct btrfs_chunk *c = (struct btrfs_chunk *)
		add(BTRFS_FIRST_CHUNK_TREE_OBJECTID, BTRFS_CHUNK_ITEM_KEY, start, size);

	btrfs_set_chunk_length(c, 8 * M1);
	btrfs_set_chunk_owner(c, 2);
	btrfs_set_chunk_stripe_len(c, BTRFS_STRIPE_LEN);
	btrfs_set_chunk_type(c, type);
	btrfs_set_chunk_sector_size(c, SS);
	btrfs_set_chunk_num_stripes(c, num);
	btrfs_set_chunk_sub_stripes(c, 1);
	for (u16 i = 0; i < num && btrfs_chunk_item_size(i + 1) <= size; i++) {
		btrfs_set_stripe_devid(btrfs_chunk_stripe(c, i), 1);
		btrfs_set_stripe_offset(btrfs_chunk_stripe(c, i), start + i * 8 * M1);
	}
	return (u8 *)c;
}

static void dev_extent(u64 devid, u64 phys, u64 tree, u64 objectid, u64 chunk, u64 len)
{
	struct btrfs_dev_extent *de = (struct btrfs_dev_extent *)
		add(devid, BTRFS_DEV_EXTENT_KEY, phys, sizeof(*de));

	btrfs_set_dev_extent_chunk_tree(de, tree);
	btrfs_set_dev_extent_chunk_objectid(de, objectid);
	btrfs_set_dev_extent_chunk_offset(de, chunk);
	btrfs_set_dev_extent_length(de, len);
}

static void test_chunk_dev(void)
{
	const u64 D = BTRFS_BLOCK_GROUP_DATA, M = BTRFS_BLOCK_GROUP_METADATA;
	struct btrfs_dev_item *di;

#define CH_CASE(what, owner, code, substr) do {					\
	leaf_begin(owner);							\
	code;									\
	expect(what, substr);							\
} while (0)
	CH_CASE("single chunk", 3, chunk_item(M1, D, 1, 80), NULL);
	CH_CASE("dup chunk", 3, chunk_item(M1, M | BTRFS_BLOCK_GROUP_DUP, 2, 112), NULL);
	CH_CASE("chunk of 79 bytes", 3, chunk_item(M1, D, 1, 79), "size 79, need 80");
	CH_CASE("chunk with room for 2 stripes, 1 used", 3, chunk_item(M1, D, 1, 112),
		"1 stripes need 80");
	CH_CASE("chunk without stripes", 3, chunk_item(M1, D, 0, 80), "no stripes");
	CH_CASE("dup chunk with 1 stripe", 3, chunk_item(M1, M | BTRFS_BLOCK_GROUP_DUP, 1, 80),
		"invalid num_stripes 1");
	CH_CASE("mixed chunk without mixed-groups", 3, chunk_item(M1, D | M, 1, 80),
		"without mixed-groups");
	set_incompat(BTRFS_FEATURE_INCOMPAT_MIXED_GROUPS);
	CH_CASE("mixed chunk with mixed-groups", 3, chunk_item(M1, D | M, 1, 80), NULL);
	set_incompat(0);
	CH_CASE("chunk of 2^48 bytes", 3,
		btrfs_set_chunk_length((struct btrfs_chunk *)chunk_item(M1, D, 1, 80), 1ULL << 48),
		"too large");

	CH_CASE("device item", 3,
		(di = (struct btrfs_dev_item *)add(1, BTRFS_DEV_ITEM_KEY, 1, sizeof(*di)),
		 btrfs_set_dev_item_devid(di, 1), btrfs_set_dev_item_total_bytes(di, 1ULL << 30),
		 btrfs_set_dev_item_bytes_used(di, 1ULL << 30)), NULL);
	CH_CASE("device item objectid 2", 3,
		(di = (struct btrfs_dev_item *)add(2, BTRFS_DEV_ITEM_KEY, 1, sizeof(*di)),
		 btrfs_set_dev_item_devid(di, 1)), "objectid");
	CH_CASE("device item of 99 bytes", 3,
		btrfs_set_dev_item_devid((struct btrfs_dev_item *)add(1, BTRFS_DEV_ITEM_KEY, 1, 99),
					 1), "size 99");
	CH_CASE("device item of 97 bytes", 3,
		btrfs_set_dev_item_devid((struct btrfs_dev_item *)add(1, BTRFS_DEV_ITEM_KEY, 1, 97),
					 1), "size 97");
	CH_CASE("device item devid", 3,
		(di = (struct btrfs_dev_item *)add(1, BTRFS_DEV_ITEM_KEY, 1, sizeof(*di)),
		 btrfs_set_dev_item_devid(di, 2)), "holds devid 2");
	CH_CASE("device bytes_used beyond total_bytes (fsck-tests 047)", 3,
		(di = (struct btrfs_dev_item *)add(1, BTRFS_DEV_ITEM_KEY, 1, sizeof(*di)),
		 btrfs_set_dev_item_devid(di, 1), btrfs_set_dev_item_total_bytes(di, 1ULL << 30),
		 btrfs_set_dev_item_bytes_used(di, (1ULL << 30) + 4096)), "exceeds total_bytes");

	CH_CASE("device extents", 4,
		(dev_extent(1, M1, 3, 256, M1, 8 * M1), dev_extent(1, 9 * M1, 3, 256, 9 * M1, M1),
		 dev_extent(2, M1, 3, 256, 9 * M1, M1)), NULL);
	CH_CASE("overlapping device extents", 4,
		(dev_extent(1, M1, 3, 256, M1, 8 * M1), dev_extent(1, 8 * M1, 3, 256, 9 * M1, M1)),
		"overlaps the previous device extent");
	CH_CASE("device extent chunk tree 4", 4, dev_extent(1, M1, 4, 256, M1, M1), "chunk tree 4");
	CH_CASE("device extent chunk objectid 257", 4, dev_extent(1, M1, 3, 257, M1, M1),
		"chunk objectid 257");
	CH_CASE("device extent start unaligned", 4, dev_extent(1, M1 + 1, 3, 256, M1, M1),
		"not aligned");
	CH_CASE("device extent chunk unaligned", 4, dev_extent(1, M1, 3, 256, M1 + 1, M1),
		"not aligned");
	CH_CASE("device extent length unaligned", 4, dev_extent(1, M1, 3, 256, M1, M1 + 1),
		"not aligned");
	CH_CASE("device extent of 47 bytes", 4, add(1, BTRFS_DEV_EXTENT_KEY, M1, 47), "size 47");

	CH_CASE("raid stripe without raid-stripe-tree", BTRFS_RAID_STRIPE_TREE_OBJECTID,
		add(20 * M1, BTRFS_RAID_STRIPE_KEY, 4096, 24), "without raid-stripe-tree");
	set_incompat(BTRFS_FEATURE_INCOMPAT_RAID_STRIPE_TREE);
	CH_CASE("raid stripe", BTRFS_RAID_STRIPE_TREE_OBJECTID,
		add(20 * M1, BTRFS_RAID_STRIPE_KEY, 4096, 24), NULL);
	CH_CASE("raid stripe start unaligned", BTRFS_RAID_STRIPE_TREE_OBJECTID,
		add(20 * M1 + 4, BTRFS_RAID_STRIPE_KEY, 4096, 24), "not aligned");
	set_incompat(0);
#undef CH_CASE
}

/* ---- block layout -------------------------------------------------------- */

static void test_layout(void)
{
	struct btrfs_key_ptr *kp;

	leaf_begin(5);
	inode_item(256, 040755, 1);
	expect("leaf", NULL);
	btrfs_set_header_flags(hdr(), 0);
	btrfs_set_header_backref_rev(hdr(), BTRFS_MIXED_BACKREF_REV);
	expect("leaf without the written flag", "written flag not set");

	leaf_begin(BTRFS_CSUM_TREE_OBJECTID);
	expect("empty checksum tree", NULL);
	leaf_begin(BTRFS_EXTENT_TREE_OBJECTID);
	expect("empty extent tree", "must never be empty");
	btrfs_set_header_flags(hdr(), BTRFS_HEADER_FLAG_WRITTEN | BTRFS_HEADER_FLAG_RELOC);
	expect("empty relocation block of the extent tree", NULL);
	leaf_begin(0);
	expect("empty leaf of tree 0", "owned by tree 0");

	/* a node: level 1, two pointers */
	memset(blk, 0, sizeof(blk));
	btrfs_set_header_bytenr(hdr(), 30 * M1);
	btrfs_set_header_owner(hdr(), 5);
	btrfs_set_header_generation(hdr(), GEN);
	btrfs_set_header_flags(hdr(), BTRFS_HEADER_FLAG_WRITTEN);
	btrfs_set_header_level(hdr(), 1);
	btrfs_set_header_nritems(hdr(), 2);
	kp = (struct btrfs_key_ptr *)(blk + sizeof(struct btrfs_header));
	for (int i = 0; i < 2; i++) {
		struct btrfs_key k = { 256 + (u64)i, BTRFS_INODE_ITEM_KEY, 0 };

		btrfs_set_key_ptr_key(kp + i, &k);
		btrfs_set_key_ptr_blockptr(kp + i, 31 * M1 + (u64)i * NODESIZE);
		btrfs_set_key_ptr_generation(kp + i, GEN);
	}
	expect("node", NULL);
	btrfs_set_header_level(hdr(), BTRFS_MAX_LEVEL);
	expect("node level 8", "node level 8");
	btrfs_set_header_level(hdr(), 1);
	btrfs_set_header_flags(hdr(), 0);
	expect("node without the written flag", "written flag not set");
	btrfs_set_header_flags(hdr(), BTRFS_HEADER_FLAG_WRITTEN);
	CHECK(btrfs_check_node(fs, blk) == 0);
	btrfs_set_header_level(hdr(), 0);
	CHECK(btrfs_check_node(fs, blk) == -EUCLEAN && strstr(fs->errmsg, "node level 0"));

	/* owners: a subvolume tree reaches blocks of subvolume trees only */
	leaf_begin(257);
	CHECK(btrfs_check_owner(fs, blk, 5) == 0);
	btrfs_set_header_owner(hdr(), (1ULL << 48) | 257);
	CHECK(btrfs_check_owner(fs, blk, 5) == -EUCLEAN);
	btrfs_set_header_owner(hdr(), BTRFS_EXTENT_TREE_OBJECTID);
	CHECK(btrfs_check_owner(fs, blk, 5) == -EUCLEAN);
	CHECK(btrfs_check_owner(fs, blk, BTRFS_EXTENT_TREE_OBJECTID) == 0);
}

/* The message names the block, the slot and the key */
static void test_message(void)
{
	leaf_begin(BTRFS_EXTENT_TREE_OBJECTID);
	btrfs_set_extent_flags(data_extent(5, 257, 0, 1), 0);
	fs->errmsg[0] = '\0';
	CHECK(btrfs_check_leaf(fs, blk) == -EUCLEAN);
	CHECK_STR(fs->errmsg, "tree block 31457280: slot 0: key (20971520 EXTENT_ITEM 4096): "
		  "extent flags 0x0, need exactly one of data and tree block");
}

int main(void)
{
	fs = calloc(1, sizeof(*fs));
	if (!fs)
		return 1;
	fs->nodesize = NODESIZE;
	fs->sectorsize = SS;
	fs->csum_size = 4;
	fs->generation = GEN;
	test_layout();
	test_inode_item();
	test_dir_item();
	test_inode_refs();
	test_file_extent();
	test_csum_item();
	test_root_item();
	test_extent_item();
	test_keyed_refs();
	test_block_group();
	test_chunk_dev();
	test_message();
	free(fs);
	return unit_finish();
}
