// SPDX-License-Identifier: GPL-2.0-only
/*
 * Offline reader on corrupt images: flip bytes in superblocks, tree block
 * headers, leaves and nodes (recomputing checksums so the structural
 * checks are what trips), build pointer loops, truncate the image.  Every
 * case must end in a clean negative errno with a message naming the
 * object, never a crash or a hang; ASan/UBSan builds run the same cases.
 */
#include "reader-harness.h"
#include "kernel-shared/csum.h"
#include "kernel-shared/tree-scan.h"

static u8 *img;
static size_t img_size;
static u32 nodesize;
static u16 csum_type;

/* Saved bytes of the region being patched, restored by unpatch() */
static u8 saved[65536 + 4096];
static u64 saved_off;
static size_t saved_len;

static void patch_begin(u64 off, size_t len)
{
	saved_off = off;
	saved_len = len;
	memcpy(saved, img + off, len);
}

static void unpatch(void)
{
	memcpy(img + saved_off, saved, saved_len);
}

static void recsum_block(u64 phys)
{
	u8 c[BTRFS_CSUM_MAX_SIZE];

	btrfs_csum_data(csum_type, img + phys + BTRFS_CSUM_SIZE, nodesize - BTRFS_CSUM_SIZE, c);
	memcpy(img + phys, c, BTRFS_CSUM_SIZE);
}

static void recsum_super(u64 off)
{
	btrfs_super_csum_update((struct btrfs_super_block *)(img + off));
}

static struct btrfs_super_block *sb_at(u64 off)
{
	return (struct btrfs_super_block *)(img + off);
}

static struct btrfs_header *hdr_at(u64 phys)
{
	return (struct btrfs_header *)(img + phys);
}

static int nop_cb(void *priv, const struct extent_buffer *eb, const struct btrfs_walk_info *info)
{
	(*(u64 *)priv)++;
	return 0;
}

static const u64 scan_ids[] = { 1, 2, 3, 4, 5, 7, 9, 10 };

static int count_item_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	(*(u64 *)priv)++;
	return 0;
}

/* Open, then btrfs_scan_tree_items() over every tree; first error wins */
static int scan_read(size_t size, int mirror, u64 *items, char *msg)
{
	struct btrfs_io_dev *dev;
	struct btrfs_fs *fs;
	int ret;

	msg[0] = '\0';
	*items = 0;
	ret = open_mem(img, size, mirror, &dev, &fs, msg);
	if (ret < 0)
		return ret;
	for (size_t i = 0; !ret && i < sizeof(scan_ids) / sizeof(scan_ids[0]); i++) {
		struct btrfs_root *root;

		ret = btrfs_read_root(fs, scan_ids[i], &root);
		if (ret == -ENOENT) {
			ret = 0;
			continue;
		}
		if (!ret)
			ret = btrfs_scan_tree_items(root, count_item_cb, items);
	}
	if (ret < 0)
		snprintf(msg, BTRFS_ERRMSG_SIZE, "%s", btrfs_fs_error(fs));
	btrfs_fs_close(fs);
	btrfs_io_close(dev);
	return ret;
}

static int full_read_one(size_t size, int mirror, char *msg);

/*
 * full_read_one(), and the leaf-run scan on the same image must agree:
 * both succeed or both fail
 */
static int full_read(size_t size, int mirror, char *msg)
{
	char smsg[BTRFS_ERRMSG_SIZE];
	int ret = full_read_one(size, mirror, msg);
	u64 items;
	int sret = scan_read(size, mirror, &items, smsg);

	CHECK((ret < 0) == (sret < 0), "scan %d (%s) against read %d (%s)", sret, smsg, ret, msg);
	return ret;
}

/* Open, walk every tree, iterate every tree's items; first error wins */
static int full_read_one(size_t size, int mirror, char *msg)
{
	struct btrfs_key min = { 0, 0, 0 }, max = { (u64)-1, 0xff, (u64)-1 };
	static const u64 ids[] = { 1, 2, 3, 4, 5, 7, 9, 10 };
	struct btrfs_io_dev *dev;
	struct btrfs_fs *fs;
	u64 blocks = 0;
	int ret;

	msg[0] = '\0';
	ret = open_mem(img, size, mirror, &dev, &fs, msg);
	if (ret < 0)
		return ret;
	ret = btrfs_walk_all_trees(fs, false, nop_cb, &blocks);
	for (size_t i = 0; !ret && i < sizeof(ids) / sizeof(ids[0]); i++) {
		struct btrfs_item_source src = btrfs_fs_item_source(fs);
		struct btrfs_root *root;
		u64 dummy = 0;

		if (btrfs_read_root(fs, ids[i], &root) == -ENOENT)
			continue;
		ret = btrfs_item_source_search(&src, ids[i], &min, &max,
					       (btrfs_item_cb)(void *)nop_cb, &dummy);
	}
	if (ret < 0)
		snprintf(msg, BTRFS_ERRMSG_SIZE, "%s", btrfs_fs_error(fs));
	btrfs_fs_close(fs);
	btrfs_io_close(dev);
	return ret;
}

#define EXPECT_FAIL(what, ret, msg, want_err, substr) do {			\
	CHECK((ret) == (want_err), "%s: got %d want %d (%s)", what, ret, want_err, msg); \
	CHECK(strstr(msg, substr) != NULL, "%s: message '%s' lacks '%s'", what, msg, substr); \
} while (0)

/* Physical offset of copy @mirror of tree block @logical (fs opened on img) */
static u64 phys_of(u64 logical, int mirror)
{
	char msg[BTRFS_ERRMSG_SIZE];
	struct btrfs_io_dev *dev;
	struct btrfs_fs *fs;
	struct btrfs_io_stripe s = { 0 };

	if (open_mem(img, img_size, BTRFS_SUPER_PRIMARY, &dev, &fs, msg) < 0)
		return 0;
	if (btrfs_map_block(fs, logical, nodesize, mirror, &s) < 0)
		s.physical = 0;
	btrfs_fs_close(fs);
	btrfs_io_close(dev);
	return s.physical;
}

static int load(const char *name)
{
	free(img);
	img = load_file(tpath(name), &img_size);
	if (!img)
		return -1;
	nodesize = btrfs_super_nodesize(sb_at(65536));
	csum_type = btrfs_super_csum_type(sb_at(65536));
	return 0;
}

static void test_super(void)
{
	char msg[BTRFS_ERRMSG_SIZE];
	const u64 s0 = 65536, s1 = 64ULL << 20;
	struct btrfs_io_dev *dev;
	struct btrfs_fs *fs;
	int ret;

	CHECK(full_read(img_size, BTRFS_SUPER_PRIMARY, msg) == 0, "pristine image: %s", msg);

	patch_begin(s0, 4096);
	img[s0 + 40] ^= 1;	/* inside fsid, csum now wrong */
	ret = full_read(img_size, 0, msg);
	EXPECT_FAIL("super csum, mirror 0", ret, msg, -EUCLEAN, "checksum mismatch");
	/* the kernel mounts from the primary only: no fall back to a valid mirror */
	ret = open_mem(img, img_size, BTRFS_SUPER_PRIMARY, &dev, &fs, msg);
	EXPECT_FAIL("bad primary, valid mirror 1", ret, msg, -EUCLEAN,
		    "superblock mirror 0: checksum mismatch");
	if (!ret) {
		btrfs_fs_close(fs);
		btrfs_io_close(dev);
	}
	ret = open_mem(img, img_size, 1, &dev, &fs, msg);
	CHECK(ret == 0 && fs->super_mirror == 1, "bad primary, mirror 1 named: %d %s", ret, msg);
	if (!ret) {
		btrfs_fs_close(fs);
		btrfs_io_close(dev);
	}
	unpatch();

	patch_begin(s0, 4096);
	img[s0 + 64] ^= 0xff;
	ret = full_read(img_size, 0, msg);
	EXPECT_FAIL("super magic", ret, msg, -EUCLEAN, "bad magic");
	unpatch();

	patch_begin(s0, 4096);
	btrfs_set_super_nodesize(sb_at(s0), 12345);
	recsum_super(s0);
	EXPECT_FAIL("nodesize", full_read(img_size, 0, msg), msg, -EUCLEAN, "invalid nodesize");
	unpatch();

	patch_begin(s0, 4096);
	btrfs_set_super_sectorsize(sb_at(s0), 0);
	recsum_super(s0);
	EXPECT_FAIL("sectorsize", full_read(img_size, 0, msg), msg, -EUCLEAN, "invalid sectorsize");
	unpatch();

	patch_begin(s0, 4096);
	btrfs_set_super_root_level(sb_at(s0), 9);
	recsum_super(s0);
	EXPECT_FAIL("root level", full_read(img_size, 0, msg), msg, -EUCLEAN, "level");
	unpatch();

	patch_begin(s0, 4096);
	btrfs_set_super_sys_chunk_array_size(sb_at(s0), 5000);
	recsum_super(s0);
	EXPECT_FAIL("sys array size", full_read(img_size, 0, msg), msg, -EUCLEAN,
		    "sys_chunk_array_size");
	unpatch();

	patch_begin(s0, 4096);
	btrfs_set_super_sys_chunk_array_size(sb_at(s0), 17 + 48 + 32 + 20);
	recsum_super(s0);
	EXPECT_FAIL("sys array truncated", full_read(img_size, 0, msg), msg, -EUCLEAN, "truncated");
	unpatch();

	patch_begin(s0, 4096);
	put_le16(btrfs_super_sys_chunk_array(sb_at(s0)) + 17 + 44, 0);
	recsum_super(s0);
	EXPECT_FAIL("sys chunk no stripes", full_read(img_size, 0, msg), msg, -EUCLEAN, "stripes");
	unpatch();

	patch_begin(s0, 4096);
	put_le64(btrfs_super_sys_chunk_array(sb_at(s0)) + 17 + 24, 0x3ff);
	recsum_super(s0);
	EXPECT_FAIL("sys chunk type", full_read(img_size, 0, msg), msg, -EUCLEAN, "chunk");
	unpatch();

	patch_begin(s0, 4096);
	/* stripe 0 physical far beyond the device */
	put_le64(btrfs_super_sys_chunk_array(sb_at(s0)) + 17 + 48 + 8, 1ULL << 50);
	recsum_super(s0);
	ret = full_read(img_size, 0, msg);
	CHECK(ret < 0 && msg[0], "sys chunk stripe beyond device: %d '%s'", ret, msg);
	unpatch();

	patch_begin(s0, 4096);
	btrfs_set_super_incompat_flags(sb_at(s0), btrfs_super_incompat_flags(sb_at(s0)) |
				       BTRFS_FEATURE_INCOMPAT_EXTENT_TREE_V2);
	recsum_super(s0);
	EXPECT_FAIL("extent-tree-v2", full_read(img_size, 0, msg), msg, -EOPNOTSUPP,
		    "extent-tree-v2");
	unpatch();

	patch_begin(s0, 4096);
	btrfs_set_super_incompat_flags(sb_at(s0), btrfs_super_incompat_flags(sb_at(s0)) |
				       (1ULL << 40));
	recsum_super(s0);
	EXPECT_FAIL("unknown incompat", full_read(img_size, 0, msg), msg, -EOPNOTSUPP,
		    "unknown incompat");
	unpatch();

	patch_begin(s0, 4096);
	btrfs_set_super_generation(sb_at(s0), btrfs_super_generation(sb_at(s0)) + 1);
	recsum_super(s0);
	EXPECT_FAIL("super generation ahead of root", full_read(img_size, 0, msg), msg, -EUCLEAN,
		    "transid");
	unpatch();

	/* readable but not writable: mixed-groups and an unknown compat_ro bit */
	patch_begin(s0, 4096);
	btrfs_set_super_incompat_flags(sb_at(s0), btrfs_super_incompat_flags(sb_at(s0)) |
				       BTRFS_FEATURE_INCOMPAT_MIXED_GROUPS);
	btrfs_set_super_compat_ro_flags(sb_at(s0), btrfs_super_compat_ro_flags(sb_at(s0)) |
					(1ULL << 20));
	recsum_super(s0);
	CHECK(full_read(img_size, 0, msg) == 0, "mixed-groups bit readable: %s", msg);
	{
		struct btrfs_open_args args = { 0 };

		ret = btrfs_io_open_memory(img, img_size, false, true, &dev);
		args.devs = &dev;
		args.nr_devs = 1;
		args.super_mirror = 0;
		args.writable = true;
		args.errmsg = msg;
		ret = btrfs_fs_open(&fs, &args);
		EXPECT_FAIL("mixed-groups for writing", ret, msg, -EOPNOTSUPP,
			    "incompat feature mixed-groups not supported for writing");
		btrfs_set_super_incompat_flags(sb_at(s0), btrfs_super_incompat_flags(sb_at(s0)) &
					       ~BTRFS_FEATURE_INCOMPAT_MIXED_GROUPS);
		recsum_super(s0);
		ret = btrfs_fs_open(&fs, &args);
		EXPECT_FAIL("unknown compat_ro for writing", ret, msg, -EOPNOTSUPP, "compat_ro");
		btrfs_io_close(dev);
	}
	unpatch();

	/* both existing copies bad: the message of copy 0 */
	{
		u8 keep1[4096];

		memcpy(keep1, img + s1, 4096);
		patch_begin(s0, 4096);
		img[s0 + 64] ^= 0xff;
		img[s1 + 40] ^= 0xff;
		ret = full_read(img_size, BTRFS_SUPER_PRIMARY, msg);
		EXPECT_FAIL("all copies bad", ret, msg, -EUCLEAN, "mirror 0: bad magic");
		unpatch();
		memcpy(img + s1, keep1, 4096);
	}

	/* too small for any superblock */
	EXPECT_FAIL("tiny image", full_read(32768, BTRFS_SUPER_PRIMARY, msg), msg, -ENOENT,
		    "beyond the end");
	/* superblock there, chunks beyond */
	ret = full_read(1 << 20, BTRFS_SUPER_PRIMARY, msg);
	CHECK(ret < 0 && msg[0], "truncated to 1 MiB: %d '%s'", ret, msg);
	{
		u64 cut = phys_of(btrfs_super_root(sb_at(s0)), 1);

		ret = full_read(cut + nodesize / 2, BTRFS_SUPER_PRIMARY, msg);
		CHECK(ret < 0 && strstr(msg, "cannot read"), "truncated inside the root tree block: %d '%s'",
		      ret, msg);
	}
	CHECK(full_read(img_size, BTRFS_SUPER_PRIMARY, msg) == 0, "restored image: %s", msg);
}

/* The copies of the in-memory image: how many belong, the finding of each */
static int copies_of(struct btrfs_super_copy *c)
{
	struct btrfs_io_dev *dev;
	int nr;

	if (btrfs_io_open_memory(img, img_size, false, false, &dev))
		return -1;
	nr = btrfs_super_read_copies(dev, NULL, c);
	btrfs_io_close(dev);
	return nr;
}

/* Set the generation of copy @off and fix its checksum */
static void set_gen(u64 off, u64 gen)
{
	btrfs_set_super_generation(sb_at(off), gen);
	recsum_super(off);
}

static void test_super_copies(void)
{
	struct btrfs_super_copy c[BTRFS_SUPER_MIRROR_MAX];
	const u64 s0 = 65536, s1 = 64ULL << 20;
	u64 gen = btrfs_super_generation(sb_at(s0));
	int nr;

	nr = copies_of(c);
	CHECK(nr == 2 && c[0].finding == BTRFS_SUPER_FINE && c[1].finding == BTRFS_SUPER_FINE &&
	      c[2].finding == BTRFS_SUPER_ABSENT && c[1].generation == gen,
	      "pristine copies: %d %d %d %d", nr, c[0].finding, c[1].finding, c[2].finding);

	patch_begin(s0, 4096);
	img[s0 + 64] ^= 0xff;	/* magic */
	copies_of(c);
	CHECK(c[0].finding == BTRFS_SUPER_PRIMARY_BAD && !c[0].valid && strstr(c[0].msg, "bad magic") &&
	      c[1].valid && c[1].generation == gen, "garbled primary: %d '%s'", c[0].finding,
	      c[0].msg);
	unpatch();

	patch_begin(s0, 4096);
	set_gen(s0, gen - 1);	/* an older primary written back */
	copies_of(c);
	CHECK(c[0].finding == BTRFS_SUPER_FINE && c[1].finding == BTRFS_SUPER_NEWER,
	      "older primary: %d %d", c[0].finding, c[1].finding);
	unpatch();

	patch_begin(s1, 4096);
	set_gen(s1, gen - 1);
	copies_of(c);
	CHECK(c[1].finding == BTRFS_SUPER_STALE && !btrfs_super_finding_is_error(c[1].finding),
	      "stale mirror: %d", c[1].finding);
	unpatch();

	patch_begin(s1, 4096);
	btrfs_set_super_bytes_used(sb_at(s1), btrfs_super_bytes_used(sb_at(s1)) + 4096);
	recsum_super(s1);
	copies_of(c);
	CHECK(c[1].finding == BTRFS_SUPER_DIFFERS && btrfs_super_finding_is_error(c[1].finding),
	      "mirror differs at the same generation: %d", c[1].finding);
	unpatch();

	patch_begin(s1, 4096);
	img[s1 + 300] ^= 1;	/* checksum now wrong */
	copies_of(c);
	CHECK(c[1].finding == BTRFS_SUPER_MIRROR_BAD && strstr(c[1].msg, "mirror 1: checksum mismatch"),
	      "bad mirror: %d '%s'", c[1].finding, c[1].msg);
	unpatch();

	/* a filesystem smaller than its device: the kernel writes no copy past total_bytes */
	patch_begin(s0, 4096);
	btrfs_set_dev_item_total_bytes(btrfs_super_dev_item(sb_at(s0)), s1);
	recsum_super(s0);
	nr = copies_of(c);
	CHECK(nr == 1 && c[1].finding == BTRFS_SUPER_ABSENT, "copy past total_bytes: %d %d", nr,
	      c[1].finding);
	unpatch();
}

/* Root tree leaf of a single-profile image */
static void test_leaf(void)
{
	char msg[BTRFS_ERRMSG_SIZE];
	u64 logical = btrfs_super_root(sb_at(65536));
	u64 p = phys_of(logical, 1);
	struct btrfs_header *h;
	u8 *items;

	CHECK(p != 0, "root tree block %llu mapped", (unsigned long long)logical);
	if (!p)
		return;
	h = hdr_at(p);
	items = img + p + sizeof(*h);
	CHECK(btrfs_header_level(h) == 0 && btrfs_header_nritems(h) > 3, "root tree is a leaf");

#define LEAF_CASE(name, code, want_err, substr) do {				\
	patch_begin(p, nodesize);						\
	code;									\
	recsum_block(p);							\
	EXPECT_FAIL(name, full_read(img_size, 0, msg), msg, want_err, substr);	\
	unpatch();								\
} while (0)

	patch_begin(p, nodesize);
	img[p + 200] ^= 1;
	EXPECT_FAIL("leaf csum", full_read(img_size, 0, msg), msg, -EUCLEAN,
		    "checksum mismatch (mirror 1)");
	unpatch();

	LEAF_CASE("level 9", btrfs_set_header_level(h, 9), -EUCLEAN, "invalid level");
	LEAF_CASE("level 1", btrfs_set_header_level(h, 1), -EUCLEAN, "tree block");
	LEAF_CASE("nritems huge", btrfs_set_header_nritems(h, 0xffffffff), -EUCLEAN, "nritems");
	LEAF_CASE("nritems 0", btrfs_set_header_nritems(h, 0), -EUCLEAN, "empty leaf");
	LEAF_CASE("nritems +1", btrfs_set_header_nritems(h, btrfs_header_nritems(h) + 1),
		  -EUCLEAN, "tree block");
	LEAF_CASE("item offset out of block",
		  btrfs_set_item_offset((struct btrfs_item *)items, nodesize * 2), -EUCLEAN,
		  "item end");
	LEAF_CASE("item size huge",
		  btrfs_set_item_size((struct btrfs_item *)items, 0xffffffff), -EUCLEAN,
		  "item end");
	LEAF_CASE("item over headers",
		  (btrfs_set_item_offset((struct btrfs_item *)items, 10),
		   btrfs_set_item_size((struct btrfs_item *)items,
				       btrfs_leaf_data_size(nodesize) - 10)),
		  -EUCLEAN, "tree block");
	/*
	 * Only the key of slot 2 changes: its order is checked before its
	 * payload, which no longer matches the key
	 */
	LEAF_CASE("key order", memcpy(items + 50, items, 17), -EUCLEAN, "bad key order");
	LEAF_CASE("duplicate key", memcpy(items + 50, items + 25, 17), -EUCLEAN, "bad key order");
	LEAF_CASE("bytenr", btrfs_set_header_bytenr(h, logical + 4096), -EUCLEAN,
		  "header bytenr");
	LEAF_CASE("fsid", h->fsid[3] ^= 0x55, -EUCLEAN, "fsid mismatch");
	/* not a subvolume tree: the items of a subvolume tree follow other rules */
	LEAF_CASE("owner", btrfs_set_header_owner(h, BTRFS_UUID_TREE_OBJECTID), -EUCLEAN, "owner");
	LEAF_CASE("generation", btrfs_set_header_generation(h, btrfs_header_generation(h) - 1),
		  -EUCLEAN, "transid");
	LEAF_CASE("root item size",
		  btrfs_set_item_size((struct btrfs_item *)items,
				      btrfs_item_size((struct btrfs_item *)items) - 1),
		  -EUCLEAN, "tree block");
#undef LEAF_CASE

	/* the ROOT_ITEM of tree 5 */
	{
		struct btrfs_root_item *ri = NULL;
		u64 fs_root_log = 0;

		for (u32 i = 0; i < btrfs_header_nritems(h); i++) {
			struct btrfs_item *it = (struct btrfs_item *)(items + i * 25);
			struct btrfs_key k;

			btrfs_item_key(it, &k);
			if (k.objectid == 5 && k.type == BTRFS_ROOT_ITEM_KEY)
				ri = (struct btrfs_root_item *)(img + p + 101 + btrfs_item_offset(it));
		}
		CHECK(ri != NULL, "tree 5 root item found");
		if (ri) {
			struct btrfs_key prog = { 300, BTRFS_INODE_ITEM_KEY, 0 };
			u64 fs_root_phys;

			fs_root_log = btrfs_root_bytenr(ri);
			fs_root_phys = phys_of(fs_root_log, 1);
			patch_begin(p, nodesize);
			btrfs_set_root_generation(ri, 0);
			recsum_block(p);
			EXPECT_FAIL("root item generation 0", full_read(img_size, 0, msg), msg,
				    -EUCLEAN, "generation is 0");
			unpatch();

			/*
			 * A half-dropped tree is skipped by the full walk.  Tree 5
			 * stands in for one here; its root directory is read at
			 * open, as the kernel does at every mount, so its root block
			 * must stay readable.
			 */
			patch_begin(p, nodesize);
			btrfs_set_root_refs(ri, 0);
			btrfs_set_root_drop_progress(ri, &prog);
			btrfs_set_root_drop_level(ri, 1);
			recsum_block(p);
			img[fs_root_phys + 500] ^= 1;
			EXPECT_FAIL("tree 5 half dropped, root block gone",
				    full_read(img_size, 0, msg), msg, -EUCLEAN, "checksum mismatch");
			img[fs_root_phys + 500] ^= 1;
			{
				struct btrfs_io_dev *dev;
				struct btrfs_fs *fs;
				struct stats st;
				int ret = open_mem(img, img_size, 0, &dev, &fs, msg);

				CHECK(ret == 0, "open with a half-dropped tree 5: %s", msg);
				if (!ret) {
					ret = walk_stats(fs, &st);
					CHECK(ret == 0 && st.nr >= 7, "walk skips it: %d %s", ret,
					      btrfs_fs_error(fs));
					for (int i = 0; i < st.nr; i++)
						CHECK(st.t[i].id != 5, "tree 5 was walked");
					btrfs_fs_close(fs);
					btrfs_io_close(dev);
				}
			}
			unpatch();
		}
	}
	CHECK(full_read(img_size, 0, msg) == 0, "restored: %s", msg);
}

/* Item @slot of the leaf at @phys: its key (out), its header and payload */
static struct btrfs_item *leaf_item(u64 phys, u32 slot, struct btrfs_key *key, u8 **data)
{
	struct btrfs_item *it = (struct btrfs_item *)(img + phys + sizeof(struct btrfs_header) +
						      slot * sizeof(struct btrfs_item));

	btrfs_item_key(it, key);
	*data = img + phys + sizeof(struct btrfs_header) + btrfs_item_offset(it);
	return it;
}

/* Physical offset of the root block of tree @id, through its ROOT_ITEM */
static u64 tree_phys(u64 id)
{
	u64 p = phys_of(btrfs_super_root(sb_at(65536)), 1);

	for (u32 i = 0; p && i < btrfs_header_nritems(hdr_at(p)); i++) {
		struct btrfs_key k;
		u8 *data;

		leaf_item(p, i, &k, &data);
		if (k.objectid == id && k.type == BTRFS_ROOT_ITEM_KEY)
			return phys_of(btrfs_root_bytenr((struct btrfs_root_item *)data), 1);
	}
	return 0;
}

/*
 * What the kernel verifies at mount beyond its tree-checker, on the single
 * image (one leaf per tree): superblock total_bytes against the devices,
 * every DEV_EXTENT against the chunks, the root directory of tree 5
 */
static void test_mount_checks(void)
{
	char msg[BTRFS_ERRMSG_SIZE];
	const u64 s0 = 65536;
	struct btrfs_super_block *sb = sb_at(s0);
	u64 dev_p = tree_phys(BTRFS_DEV_TREE_OBJECTID), fs_p = tree_phys(BTRFS_FS_TREE_OBJECTID);
	u64 chunk_p = phys_of(btrfs_super_chunk_root(sb), 1);
	u64 total = btrfs_super_total_bytes(sb), last_end = 0;
	struct btrfs_dev_extent *last = NULL;
	struct btrfs_item *last_it = NULL;
	struct btrfs_dev_item *di = NULL;
	u32 last_slot = 0;
	struct btrfs_key k;
	u8 *data;

	CHECK(dev_p && fs_p && chunk_p, "trees 3, 4, 5 found: %llu %llu %llu",
	      (unsigned long long)chunk_p, (unsigned long long)dev_p, (unsigned long long)fs_p);
	if (!dev_p || !fs_p || !chunk_p)
		return;

	/* total_bytes may exceed the devices (the kernel accepts it), not fall short */
	patch_begin(s0, 4096);
	btrfs_set_super_total_bytes(sb, total + 4096);
	recsum_super(s0);
	CHECK(full_read(img_size, 0, msg) == 0, "super total_bytes above the device: %s", msg);
	btrfs_set_super_total_bytes(sb, total - 4096);
	recsum_super(s0);
	EXPECT_FAIL("super total_bytes below the device", full_read(img_size, 0, msg), msg,
		    -EUCLEAN, "total_bytes");
	unpatch();

	for (u32 i = 0; i < btrfs_header_nritems(hdr_at(dev_p)); i++) {
		struct btrfs_item *it = leaf_item(dev_p, i, &k, &data);

		if (k.type != BTRFS_DEV_EXTENT_KEY)
			continue;
		last = (struct btrfs_dev_extent *)data;
		last_it = it;
		last_slot = i;
		last_end = k.offset + btrfs_dev_extent_length(last);
	}
	for (u32 i = 0; i < btrfs_header_nritems(hdr_at(chunk_p)); i++) {
		leaf_item(chunk_p, i, &k, &data);
		if (k.type == BTRFS_DEV_ITEM_KEY)
			di = (struct btrfs_dev_item *)data;
	}
	CHECK(last && di && last_slot + 1 == btrfs_header_nritems(hdr_at(dev_p)),
	      "the dev tree leaf ends with a device extent: slot %u", last_slot);
	if (!last || !di)
		return;

#define DEV_CASE(name, phys, code, substr) do {						patch_begin(phys, nodesize);							code;										recsum_block(phys);								EXPECT_FAIL(name, full_read(img_size, 0, msg), msg, -EUCLEAN, substr);		unpatch();								} while (0)
	DEV_CASE("device extent of no chunk", dev_p,
		 btrfs_set_dev_extent_chunk_offset(last, 1ULL << 40), "which does not exist");
	DEV_CASE("device extent longer than a stripe", dev_p,
		 btrfs_set_dev_extent_length(last, btrfs_dev_extent_length(last) + 4096),
		 "a stripe of chunk");
	/* one more key type after the device extents: the walk stops before the last one */
	DEV_CASE("chunk stripe without device extent", dev_p,
		 btrfs_set_disk_key_type(&last_it->key, BTRFS_DEV_EXTENT_KEY + 1),
		 "0 of its 1 stripes have a device extent");
	/* still above bytes_used (the tree-checker's rule), below the last extent's end */
	CHECK(btrfs_dev_item_bytes_used(di) <= last_end - 4096, "device has a hole: %llu %llu",
	      (unsigned long long)btrfs_dev_item_bytes_used(di), (unsigned long long)last_end);
	DEV_CASE("device extent beyond the device", chunk_p,
		 btrfs_set_dev_item_total_bytes(di, last_end - 4096), "ends beyond the device");
#undef DEV_CASE

	/* tree 5 without the inode item of its root directory: an unknown key type instead */
	leaf_item(fs_p, 0, &k, &data);
	CHECK(k.objectid == BTRFS_FIRST_FREE_OBJECTID && k.type == BTRFS_INODE_ITEM_KEY,
	      "tree 5 starts with inode 256: (%llu %u)", (unsigned long long)k.objectid, k.type);
	patch_begin(fs_p, nodesize);
	btrfs_set_disk_key_type(&((struct btrfs_item *)(img + fs_p + sizeof(struct btrfs_header)))->key,
				BTRFS_INODE_ITEM_KEY + 1);
	recsum_block(fs_p);
	EXPECT_FAIL("tree 5 without its root directory", full_read(img_size, 0, msg), msg,
		    -EUCLEAN, "subvolume 5: no inode item for its root directory");
	unpatch();
	CHECK(full_read(img_size, 0, msg) == 0, "restored: %s", msg);
}

/* Node of the filled 4k image: pointers, generations, keys, loops */
static void test_node(void)
{
	char msg[BTRFS_ERRMSG_SIZE];
	struct btrfs_io_dev *dev;
	struct btrfs_fs *fs;
	struct btrfs_root *root;
	u64 node_log, node_phys, l1_log = 0, l1_phys, b_log = 0, b_phys;
	struct btrfs_header *h;
	u8 *ptrs;
	int ret;

	ret = open_mem(img, img_size, BTRFS_SUPER_PRIMARY, &dev, &fs, msg);
	CHECK(ret == 0, "open filled: %s", msg);
	if (ret)
		return;
	ret = btrfs_read_root(fs, BTRFS_FS_TREE_OBJECTID, &root);
	CHECK(ret == 0 && btrfs_eb_level(root->node) >= 2, "fs tree has a level >= 2 root");
	if (ret || btrfs_eb_level(root->node) < 2) {
		btrfs_fs_close(fs);
		btrfs_io_close(dev);
		return;
	}
	node_log = root->node->start;
	/* a level-1 node with at least 3 children, and its slot-1 child */
	{
		struct btrfs_path path;
		struct btrfs_key k = { 0, 0, 0 };

		btrfs_path_init(&path);
		path.lowest_level = 1;
		ret = btrfs_search_slot(NULL, root, &k, &path, 0, 0);
		if (ret >= 0 && path.nodes[1] && btrfs_eb_nritems(path.nodes[1]) >= 3) {
			l1_log = path.nodes[1]->start;
			b_log = btrfs_eb_node_blockptr(path.nodes[1], 1);
		}
		btrfs_path_release(&path);
	}
	btrfs_fs_close(fs);
	btrfs_io_close(dev);
	CHECK(l1_log && b_log, "found a level-1 node");
	node_phys = phys_of(node_log, 1);
	h = hdr_at(node_phys);
	ptrs = img + node_phys + sizeof(*h);

#define NODE_CASE(name, code, want_err, substr) do {				\
	patch_begin(node_phys, nodesize);					\
	code;									\
	recsum_block(node_phys);						\
	EXPECT_FAIL(name, full_read(img_size, 0, msg), msg, want_err, substr);	\
	unpatch();								\
} while (0)
#define PTR(i) ((struct btrfs_key_ptr *)(ptrs + (i) * 33))

	NODE_CASE("node nritems 0", btrfs_set_header_nritems(h, 0), -EUCLEAN, "nritems");
	NODE_CASE("node nritems huge", btrfs_set_header_nritems(h, 100000), -EUCLEAN, "nritems");
	NODE_CASE("pointer to itself",
		  (btrfs_set_key_ptr_blockptr(PTR(1), node_log),
		   btrfs_set_key_ptr_generation(PTR(1), btrfs_header_generation(h))),
		  -EUCLEAN, "level");
	NODE_CASE("pointer to sibling",
		  (btrfs_set_key_ptr_blockptr(PTR(1), btrfs_key_ptr_blockptr(PTR(0))),
		   btrfs_set_key_ptr_generation(PTR(1), btrfs_key_ptr_generation(PTR(0)))),
		  -EUCLEAN, "first key mismatch");
	NODE_CASE("pointer generation",
		  btrfs_set_key_ptr_generation(PTR(0), btrfs_key_ptr_generation(PTR(0)) - 1),
		  -EUCLEAN, "transid");
	NODE_CASE("pointer generation 0", btrfs_set_key_ptr_generation(PTR(0), 0), -EUCLEAN,
		  "generation");
	NODE_CASE("pointer unmapped", btrfs_set_key_ptr_blockptr(PTR(0), 1ULL << 50), -EUCLEAN,
		  "not mapped");
	NODE_CASE("pointer misaligned", btrfs_set_key_ptr_blockptr(PTR(0), 4097), -EUCLEAN,
		  "invalid block pointer");
	NODE_CASE("pointer 0", btrfs_set_key_ptr_blockptr(PTR(0), 0), -EUCLEAN,
		  "invalid block pointer");
	NODE_CASE("node key order",
		  memcpy(ptrs + 33, ptrs + 66, 17), -EUCLEAN, "bad key order");
#undef NODE_CASE

	/*
	 * Overlapping key ranges: the level-1 node's key[1] and its second
	 * child's first key both become the first child's last key.  Each
	 * block is sorted on its own; only the range check catches it.
	 */
	if (l1_log && b_log) {
		u64 a_log, a_phys;
		struct btrfs_key alast;
		u8 l1_save[65536], b_save[65536];
		struct btrfs_header *bh;

		l1_phys = phys_of(l1_log, 1);
		b_phys = phys_of(b_log, 1);
		a_log = btrfs_key_ptr_blockptr((struct btrfs_key_ptr *)(img + l1_phys + 101));
		a_phys = phys_of(a_log, 1);
		bh = hdr_at(a_phys);
		btrfs_item_key((struct btrfs_item *)(img + a_phys + 101 +
				(btrfs_header_nritems(bh) - 1) * 25), &alast);
		memcpy(l1_save, img + l1_phys, nodesize);
		memcpy(b_save, img + b_phys, nodesize);
		btrfs_set_key_ptr_key((struct btrfs_key_ptr *)(img + l1_phys + 101 + 33), &alast);
		btrfs_set_item_key((struct btrfs_item *)(img + b_phys + 101), &alast);
		recsum_block(l1_phys);
		recsum_block(b_phys);
		EXPECT_FAIL("overlapping ranges", full_read(img_size, 0, msg), msg, -EUCLEAN,
			    "beyond its parent's range");
		memcpy(img + l1_phys, l1_save, nodesize);
		memcpy(img + b_phys, b_save, nodesize);
	}
#undef PTR
	CHECK(full_read(img_size, 0, msg) == 0, "restored filled: %s", msg);
}

/* DUP: a bad first copy is read from the second; both bad is an error */
static void test_mirror_retry(void)
{
	char msg[BTRFS_ERRMSG_SIZE];
	u64 logical = btrfs_super_root(sb_at(65536));
	u64 p1 = phys_of(logical, 1), p2 = phys_of(logical, 2);

	CHECK(p1 && p2 && p1 != p2, "dup copies at %llu and %llu", (unsigned long long)p1,
	      (unsigned long long)p2);
	if (!p1 || !p2)
		return;
	img[p1 + 300] ^= 1;
	CHECK(full_read(img_size, 0, msg) == 0, "first copy bad: %s", msg);
	img[p2 + 300] ^= 1;
	EXPECT_FAIL("both copies bad", full_read(img_size, 0, msg), msg, -EUCLEAN,
		    "checksum mismatch (mirror 1)");
	img[p1 + 300] ^= 1;
	CHECK(full_read(img_size, 0, msg) == 0, "second copy bad: %s", msg);
	img[p2 + 300] ^= 1;
}

/* The first leaf of the fs tree (tree 5), found through the reader */
static u64 first_fs_leaf(void)
{
	char msg[BTRFS_ERRMSG_SIZE];
	struct btrfs_io_dev *dev;
	struct btrfs_fs *fs;
	struct btrfs_root *root;
	struct btrfs_path path;
	struct btrfs_key key = { 0, 0, 0 };
	u64 leaf = 0;

	if (open_mem(img, img_size, BTRFS_SUPER_PRIMARY, &dev, &fs, msg) < 0)
		return 0;
	btrfs_path_init(&path);
	if (!btrfs_read_root(fs, BTRFS_FS_TREE_OBJECTID, &root) && root->level > 0 &&
	    btrfs_search_slot(NULL, root, &key, &path, 0, 0) >= 0 && path.nodes[0])
		leaf = path.nodes[0]->start;
	btrfs_path_release(&path);
	btrfs_fs_close(fs);
	btrfs_io_close(dev);
	return leaf;
}

/* The leaf-run scan on DUP: a bad first copy of a leaf comes from the second */
static void test_scan_mirror(void)
{
	char msg[BTRFS_ERRMSG_SIZE];
	u64 leaf = first_fs_leaf(), p1, p2, want = 0, items = 0;

	CHECK(leaf != 0, "fs tree has a leaf below a node");
	if (!leaf)
		return;
	p1 = phys_of(leaf, 1);
	p2 = phys_of(leaf, 2);
	CHECK(p1 && p2 && p1 != p2, "leaf copies at %llu and %llu", (unsigned long long)p1,
	      (unsigned long long)p2);
	if (!p1 || !p2 || p1 == p2)
		return;
	CHECK(scan_read(img_size, 0, &want, msg) == 0 && want > 3000, "clean scan: %llu %s",
	      (unsigned long long)want, msg);
	img[p1 + 500] ^= 1;
	CHECK(scan_read(img_size, 0, &items, msg) == 0 && items == want,
	      "first copy bad: %llu of %llu items, %s", (unsigned long long)items,
	      (unsigned long long)want, msg);
	img[p2 + 500] ^= 1;
	EXPECT_FAIL("both copies of a leaf bad", scan_read(img_size, 0, &items, msg), msg,
		    -EUCLEAN, "checksum mismatch");
	img[p1 + 500] ^= 1;
	CHECK(scan_read(img_size, 0, &items, msg) == 0 && items == want,
	      "second copy bad: %llu of %llu items, %s", (unsigned long long)items,
	      (unsigned long long)want, msg);
	img[p2 + 500] ^= 1;
}

int main(void)
{
	scratch_init();
	if (make_image("single", 300, "-m single -d single") == 0 && load("single") == 0) {
		test_super();
		test_super_copies();
		test_leaf();
		test_mount_checks();
	} else {
		CHECK(0, "single image");
	}
	if (make_image("dup", 300, "-m dup") == 0 && load("dup") == 0)
		test_mirror_retry();
	else
		CHECK(0, "dup image");
	if (sh("mkdir -p '%s' && cd '%s' && for i in $(seq 1 3000); do echo $i > f$i; done",
	       tpath("root"), tpath("root")) == 0 &&
	    sh("truncate -s 300M '%s' && mkfs.btrfs -q -f -n 4096 -m single --rootdir '%s' '%s' >/dev/null 2>&1",
	       tpath("filled"), tpath("root"), tpath("filled")) == 0 && load("filled") == 0)
		test_node();
	else
		CHECK(0, "filled image");
	if (sh("mkdir -p '%s' && cd '%s' && for i in $(seq 1 3000); do echo $i > f$i; done",
	       tpath("droot"), tpath("droot")) == 0 &&
	    sh("truncate -s 300M '%s' && mkfs.btrfs -q -f -n 4096 -m dup --rootdir '%s' '%s' >/dev/null 2>&1",
	       tpath("dupfilled"), tpath("droot"), tpath("dupfilled")) == 0 && load("dupfilled") == 0)
		test_scan_mirror();
	else
		CHECK(0, "dup filled image");
	free(img);
	scratch_done();
	return report();
}
