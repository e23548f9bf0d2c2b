// SPDX-License-Identifier: GPL-2.0-only
/*
 * Chunk items and the chunk map on a synthetic filesystem context: the
 * validation rules (profiles, stripe counts, sizes, alignment), overlap
 * refusal, lookups at chunk edges, and the address arithmetic of every
 * profile (the same formulas the kernel-made images of test-reader-raid
 * confirm end to end).
 */
#include "reader-harness.h"

static u8 chunk_buf[48 + 32 * 8];

/* Build a chunk item in chunk_buf; returns its size */
static u32 make_chunk(u64 length, u64 type, u16 num, u16 sub, u64 phys_base)
{
	struct btrfs_chunk *c = (struct btrfs_chunk *)chunk_buf;

	memset(chunk_buf, 0, sizeof(chunk_buf));
	btrfs_set_chunk_length(c, length);
	btrfs_set_chunk_owner(c, 2);
	btrfs_set_chunk_stripe_len(c, BTRFS_STRIPE_LEN);
	btrfs_set_chunk_type(c, type);
	btrfs_set_chunk_io_align(c, 65536);
	btrfs_set_chunk_io_width(c, 65536);
	btrfs_set_chunk_sector_size(c, 4096);
	btrfs_set_chunk_num_stripes(c, num);
	btrfs_set_chunk_sub_stripes(c, sub);
	for (u16 i = 0; i < num && i < 8; i++) {
		struct btrfs_stripe *s = btrfs_chunk_stripe(c, i);
		u8 uuid[16] = { 0 };

		uuid[0] = (u8)(i + 1);
		btrfs_set_stripe_devid(s, i + 1);
		btrfs_set_stripe_offset(s, phys_base + i * (1ULL << 30));
		btrfs_set_stripe_dev_uuid(s, uuid);
	}
	return btrfs_chunk_item_size(num);
}

static void test_validate(void)
{
	char msg[BTRFS_ERRMSG_SIZE];
	const u64 G = 1ULL << 30, D = BTRFS_BLOCK_GROUP_DATA, M = BTRFS_BLOCK_GROUP_METADATA;
	struct {
		const char *what;
		u64 start, length, type;
		u16 num, sub;
		int ok;
		const char *substr;
		bool mixed;	/* the filesystem has mixed-groups */
	} cases[] = {
		{ "single", G, G, D, 1, 1, 1, "", false },
		{ "dup", G, G, M | BTRFS_BLOCK_GROUP_DUP, 2, 1, 1, "", false },
		{ "dup with 1 stripe", G, G, M | BTRFS_BLOCK_GROUP_DUP, 1, 1, 0, "num_stripes", false },
		{ "raid1 with 3", G, G, M | BTRFS_BLOCK_GROUP_RAID1, 3, 1, 0, "num_stripes", false },
		{ "raid1c3", G, G, M | BTRFS_BLOCK_GROUP_RAID1C3, 3, 1, 1, "", false },
		{ "raid1c4 with 3", G, G, M | BTRFS_BLOCK_GROUP_RAID1C4, 3, 1, 0, "num_stripes", false },
		{ "raid10", G, G, D | BTRFS_BLOCK_GROUP_RAID10, 4, 2, 1, "", false },
		{ "raid10 sub 1", G, G, D | BTRFS_BLOCK_GROUP_RAID10, 4, 1, 0, "sub_stripes", false },
		{ "raid10 odd", G, G, D | BTRFS_BLOCK_GROUP_RAID10, 3, 2, 0, "num_stripes", false },
		{ "raid5 with 1", G, G, D | BTRFS_BLOCK_GROUP_RAID5, 1, 1, 0, "num_stripes", false },
		{ "raid6 with 2", G, G, D | BTRFS_BLOCK_GROUP_RAID6, 2, 1, 0, "num_stripes", false },
		{ "no stripes", G, G, D, 0, 1, 0, "no stripes", false },
		{ "two profiles", G, G, D | BTRFS_BLOCK_GROUP_RAID0 | BTRFS_BLOCK_GROUP_RAID1, 2, 1, 0,
		  "profile", false },
		{ "no type", G, G, BTRFS_BLOCK_GROUP_RAID0, 2, 1, 0, "type", false },
		{ "system+data", G, G, BTRFS_BLOCK_GROUP_SYSTEM | D, 1, 1, 0, "system", false },
		{ "mixed", G, G, D | M, 1, 1, 1, "", true },
		{ "mixed without mixed-groups", G, G, D | M, 1, 1, 0, "without mixed-groups", false },
		{ "length 2^48 - 64 KiB", 0, (u64)UINT32_MAX << 16, D, 1, 1, 0, "too large", false },
		{ "length just below the limit", 0, ((u64)UINT32_MAX << 16) - 4096, D, 1, 1, 1, "", false },
		{ "unknown bit", G, G, D | (1ULL << 20), 1, 1, 0, "unknown type", false },
		{ "length 0", G, 0, D, 1, 1, 0, "length", false },
		{ "length unaligned", G, G + 1, D, 1, 1, 0, "length", false },
		{ "start unaligned", G + 1, G, D, 1, 1, 0, "aligned", false },
		{ "overflow", (u64)-4096, 8192, D, 1, 1, 0, "overflows", false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		u32 len = make_chunk(cases[i].length, cases[i].type, cases[i].num, cases[i].sub, 0);
		int ret;

		msg[0] = '\0';
		ret = btrfs_chunk_validate(4096, cases[i].mixed, cases[i].start, chunk_buf, len, msg);
		CHECK(cases[i].ok ? ret == 0 : (ret == -EUCLEAN && strstr(msg, cases[i].substr)),
		      "%s: %d '%s'", cases[i].what, ret, msg);
	}
	{
		u32 len = make_chunk(G, D, 2, 1, 0);

		CHECK(btrfs_chunk_validate(4096, false, G, chunk_buf, len - 1, msg) == -EUCLEAN,
		      "stripes beyond the item");
		CHECK(btrfs_chunk_validate(4096, false, G, chunk_buf, 20, msg) == -EUCLEAN, "short item");
		btrfs_set_chunk_stripe_len((struct btrfs_chunk *)chunk_buf, 4096);
		CHECK(btrfs_chunk_validate(4096, false, G, chunk_buf, len, msg) == -EUCLEAN &&
		      strstr(msg, "stripe_len"), "stripe_len 4096");
		make_chunk(G, D, 1, 1, 0);
		btrfs_set_chunk_sector_size((struct btrfs_chunk *)chunk_buf, 512);
		CHECK(btrfs_chunk_validate(4096, false, G, chunk_buf, btrfs_chunk_item_size(1), msg) ==
		      -EUCLEAN && strstr(msg, "sector_size"), "sector_size 512");
	}
}

static struct btrfs_fs *fake_fs(u8 *disk, size_t disk_size, struct btrfs_io_dev **devs, int n)
{
	struct btrfs_fs *fs = calloc(1, sizeof(*fs));

	fs->sectorsize = 4096;
	fs->nodesize = 16384;
	btrfs_set_super_num_devices(&fs->super, (u64)n);
	for (int i = 0; i < n; i++) {
		u8 uuid[16] = { 0 };

		uuid[0] = (u8)(i + 1);
		btrfs_io_open_memory(disk, disk_size, false, false, &devs[i]);
		btrfs_device_add(fs, (u64)i + 1, uuid, devs[i]);
	}
	return fs;
}

static void fake_fs_free(struct btrfs_fs *fs, struct btrfs_io_dev **devs, int n)
{
	btrfs_volumes_release(fs);
	free(fs);
	for (int i = 0; i < n; i++)
		btrfs_io_close(devs[i]);
}

/* Physical of copy @mirror of @logical as devid * 2^40 + physical, or ~0 on error */
static u64 where(struct btrfs_fs *fs, u64 logical, u64 len, int mirror)
{
	struct btrfs_io_stripe s;

	if (btrfs_map_block(fs, logical, len, mirror, &s) < 0)
		return (u64)-1;
	return (s.dev->devid << 40) + s.physical;
}

static void test_map(void)
{
	static u8 disk[4096];
	struct btrfs_io_dev *devs[4];
	const u64 G = 1ULL << 30, S = BTRFS_STRIPE_LEN, D = BTRFS_BLOCK_GROUP_DATA;
	const u64 T = 1ULL << 40;
	struct btrfs_fs *fs = fake_fs(disk, sizeof(disk), devs, 4);
	u32 len;

	/* SINGLE at [1G, 2G), stripe 0 on dev 1 at physical 0 */
	len = make_chunk(G, D, 1, 1, 0);
	CHECK(btrfs_chunk_map_insert(fs, G, chunk_buf, len) == 0, "insert single");
	CHECK(btrfs_chunk_map_insert(fs, G, chunk_buf, len) == 0, "same chunk twice is accepted");
	CHECK(btrfs_chunk_map_insert(fs, G + G / 2, chunk_buf, len) == -EUCLEAN &&
	      strstr(fs->errmsg, "overlaps"), "overlap after");
	CHECK(btrfs_chunk_map_insert(fs, G / 2, chunk_buf, len) == -EUCLEAN, "overlap before");
	CHECK(where(fs, G, 4096, 1) == 1 * T + 0 && where(fs, 2 * G - 4096, 4096, 1) == T + G - 4096,
	      "single edges");
	CHECK(where(fs, 2 * G, 4096, 1) == (u64)-1 && strstr(fs->errmsg, "not mapped"),
	      "just past the chunk");
	CHECK(where(fs, G - 4096, 4096, 1) == (u64)-1, "just before the chunk");
	CHECK(where(fs, 2 * G - 4096, 8192, 1) == (u64)-1, "range past the chunk end");
	CHECK(btrfs_num_copies(fs, G, 4096) == 1 && where(fs, G, 4096, 2) == (u64)-1,
	      "single has one copy");

	/* DUP at [2G, 3G): both stripes on dev 1 */
	len = make_chunk(G, BTRFS_BLOCK_GROUP_METADATA | BTRFS_BLOCK_GROUP_DUP, 2, 1, 0);
	btrfs_set_stripe_devid(btrfs_chunk_stripe((struct btrfs_chunk *)chunk_buf, 1), 1);
	memset(btrfs_chunk_stripe((struct btrfs_chunk *)chunk_buf, 1)->dev_uuid, 0, 16);
	btrfs_chunk_stripe((struct btrfs_chunk *)chunk_buf, 1)->dev_uuid[0] = 1;
	CHECK(btrfs_chunk_map_insert(fs, 2 * G, chunk_buf, len) == 0, "insert dup");
	CHECK(btrfs_num_copies(fs, 2 * G, 4096) == 2 && where(fs, 2 * G + 8192, 4096, 1) == T + 8192 &&
	      where(fs, 2 * G + 8192, 4096, 2) == T + G + 8192, "dup copies");

	/* RAID0 over 3 devices at [4G, 7G) */
	len = make_chunk(3 * G, D | BTRFS_BLOCK_GROUP_RAID0, 3, 1, 0);
	CHECK(btrfs_chunk_map_insert(fs, 4 * G, chunk_buf, len) == 0, "insert raid0");
	CHECK(where(fs, 4 * G, 4096, 1) == 1 * T + 0, "raid0 stripe 0");
	CHECK(where(fs, 4 * G + S, 4096, 1) == 2 * T + G, "raid0 stripe 1 on dev 2");
	CHECK(where(fs, 4 * G + 2 * S + 4096, 4096, 1) == 3 * T + 2 * G + 4096, "raid0 stripe 2");
	CHECK(where(fs, 4 * G + 3 * S, 4096, 1) == 1 * T + S, "raid0 row 1 back on dev 1");
	CHECK(where(fs, 4 * G + S - 4096, 8192, 1) == (u64)-1 &&
	      strstr(fs->errmsg, "stripe boundary"), "raid0 block across a stripe");

	/* RAID10 over 4 devices at [8G, 10G) */
	len = make_chunk(2 * G, D | BTRFS_BLOCK_GROUP_RAID10, 4, 2, 0);
	CHECK(btrfs_chunk_map_insert(fs, 8 * G, chunk_buf, len) == 0, "insert raid10");
	CHECK(btrfs_num_copies(fs, 8 * G, 4096) == 2, "raid10 has 2 copies");
	CHECK(where(fs, 8 * G, 4096, 1) == 1 * T && where(fs, 8 * G, 4096, 2) == 2 * T + G,
	      "raid10 stripe 0 on devs 1 and 2");
	CHECK(where(fs, 8 * G + S, 4096, 1) == 3 * T + 2 * G && where(fs, 8 * G + S, 4096, 2) ==
	      4 * T + 3 * G, "raid10 stripe 1 on devs 3 and 4");
	CHECK(where(fs, 8 * G + 2 * S, 4096, 1) == 1 * T + S, "raid10 row 1");

	/* RAID5 over 3 devices at [12G, 14G): parity rotates */
	len = make_chunk(2 * G, D | BTRFS_BLOCK_GROUP_RAID5, 3, 1, 0);
	CHECK(btrfs_chunk_map_insert(fs, 12 * G, chunk_buf, len) == 0, "insert raid5");
	CHECK(btrfs_num_copies(fs, 12 * G, 4096) == 1, "raid5 read without rebuild: one copy");
	CHECK(where(fs, 12 * G, 4096, 1) == 1 * T && where(fs, 12 * G + S, 4096, 1) == 2 * T + G,
	      "raid5 row 0: data on devs 1, 2");
	CHECK(where(fs, 12 * G + 2 * S, 4096, 1) == 2 * T + G + S &&
	      where(fs, 12 * G + 3 * S, 4096, 1) == 3 * T + 2 * G + S, "raid5 row 1: devs 2, 3");

	/* missing device: stripe on devid 9 */
	len = make_chunk(G, D, 1, 1, 0);
	btrfs_set_stripe_devid(btrfs_chunk_stripe((struct btrfs_chunk *)chunk_buf, 0), 9);
	CHECK(btrfs_chunk_map_insert(fs, 16 * G, chunk_buf, len) == 0, "chunk on a missing device");
	{
		struct btrfs_io_stripe s;

		CHECK(btrfs_map_block(fs, 16 * G, 4096, 1, &s) == -ENXIO &&
		      strstr(fs->errmsg, "device 9 is missing"), "missing device");
	}
	CHECK(fs->nr_chunks == 6, "%zu chunks", fs->nr_chunks);
	for (size_t i = 1; i < fs->nr_chunks; i++)
		CHECK(fs->chunks[i - 1]->start < fs->chunks[i]->start, "map sorted");
	fake_fs_free(fs, devs, 4);
}

int main(void)
{
	test_validate();
	test_map();
	return report();
}
