/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests for kernel-shared/csum.c: CRC-32C (table and CPU paths against
 * a bitwise reference), the name and data-ref hashes, and the four block
 * checksum algorithms against published vectors.
 */
#include <errno.h>
#include <stdlib.h>
#include <sodium.h>

#include "kernel-shared/csum.h"
#include "unit.h"

/* Bit-at-a-time CRC-32C register update: the independent reference */
static u32 ref_crc32c(u32 crc, const void *buf, size_t len)
{
	const u8 *p = buf;

	while (len--) {
		crc ^= *p++;
		for (int i = 0; i < 8; i++)
			crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1)));
	}
	return crc;
}

static u64 rng_state = 0x9E3779B97F4A7C15ULL;

static u64 rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void test_crc32c_vectors(void)
{
	u8 buf[32];

	CHECK_EQ_U64(btrfs_crc32c("123456789", 9), 0xE3069283);
	CHECK_EQ_U64(btrfs_crc32c("", 0), 0);
	/* RFC 3720 B.4 */
	memset(buf, 0, sizeof(buf));
	CHECK_EQ_U64(btrfs_crc32c(buf, 32), 0x8A9136AA);
	memset(buf, 0xff, sizeof(buf));
	CHECK_EQ_U64(btrfs_crc32c(buf, 32), 0x62A8AB43);
	for (int i = 0; i < 32; i++)
		buf[i] = (u8)i;
	CHECK_EQ_U64(btrfs_crc32c(buf, 32), 0x46DD794E);
	for (int i = 0; i < 32; i++)
		buf[i] = (u8)(31 - i);
	CHECK_EQ_U64(btrfs_crc32c(buf, 32), 0x113FDB5C);
}

static void test_crc32c_random(void)
{
	enum { MAX = 1100 };
	u8 *buf = malloc(MAX + 16);
	unsigned int bad_fast = 0, bad_generic = 0, runs = 0;

	if (!CHECK(buf != NULL))
		return;
	for (size_t i = 0; i < MAX + 16; i++)
		buf[i] = (u8)rng();

	for (size_t len = 0; len < MAX; len += (len < 80 ? 1 : 37)) {
		for (size_t align = 0; align < 8; align++) {
			u32 seed = (u32)rng();
			u32 want = ref_crc32c(seed, buf + align, len);

			bad_fast += crc32c_raw(seed, buf + align, len) != want;
			bad_generic += crc32c_raw_generic(seed, buf + align, len) != want;
			runs++;
		}
	}
	CHECK(runs > 500);
	CHECK_EQ_U64(bad_fast, 0);
	CHECK_EQ_U64(bad_generic, 0);

	/* Chaining: one call equals two calls over the halves */
	CHECK_EQ_U64(crc32c_raw(crc32c_raw(~0U, buf, 333), buf + 333, 700),
		     crc32c_raw(~0U, buf, 1033));
	free(buf);
}

/*
 * Lengths that reach every stripe size of the three-stream hardware path
 * (3 x 256, 3 x 1024, 3 x 4096 bytes) and the node payloads it serves.
 */
static void test_crc32c_long(void)
{
	enum { MAX = 65536 + 64 };
	static const size_t lens[] = { 767, 768, 769, 3071, 3072, 3080, 12287, 12288, 12296,
				       4064, 16352, 65504, 65536, 24576 + 3072 + 768 + 5 };
	u8 *buf = malloc(MAX + 16);
	unsigned int bad = 0, runs = 0;

	if (!CHECK(buf != NULL))
		return;
	for (size_t i = 0; i < MAX + 16; i++)
		buf[i] = (u8)rng();
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		for (size_t align = 0; align < 8; align += 3) {
			u32 seed = (u32)rng();

			bad += crc32c_raw(seed, buf + align, lens[i]) !=
			       crc32c_raw_generic(seed, buf + align, lens[i]);
			runs++;
		}
	}
	for (int r = 0; r < 64; r++) {
		size_t len = rng() % MAX, align = rng() % 8;
		u32 seed = (u32)rng();

		bad += crc32c_raw(seed, buf + align, len) != crc32c_raw_generic(seed, buf + align, len);
		runs++;
	}
	CHECK(runs > 100);
	CHECK_EQ_U64(bad, 0);
	/* all zeros and all ones through the stripes too */
	memset(buf, 0, MAX);
	CHECK_EQ_U64(crc32c_raw(~0U, buf, 16352), crc32c_raw_generic(~0U, buf, 16352));
	memset(buf, 0xff, MAX);
	CHECK_EQ_U64(crc32c_raw(~0U, buf, 16352), crc32c_raw_generic(~0U, buf, 16352));
	free(buf);
}

static void test_hashes(void)
{
	static const char *const names[] = { "default", "sv1", "snap1", "..", "a",
					     "a-much-longer-name-for-the-sliced-path" };

	/* Observed on images (facts sheet 6.1) */
	CHECK_EQ_U64(btrfs_name_hash("default", 7), 2378154706ULL);
	CHECK_EQ_U64(btrfs_name_hash("sv1", 3), 2456373192ULL);
	CHECK_EQ_U64(btrfs_name_hash("snap1", 5), 3645318598ULL);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t len = strlen(names[i]);

		CHECK_EQ_U64(btrfs_name_hash(names[i], len), ref_crc32c(0xFFFFFFFEu, names[i], len));
		CHECK_EQ_U64(btrfs_extref_hash(0x100000101ULL, names[i], len),
			     ref_crc32c(0x101u, names[i], len));
	}

	/* Observed order of data refs (facts sheet 4.4) */
	CHECK_EQ_U64(btrfs_extent_data_ref_hash(257, 551, 0), 0x29740e4d8b220271ULL);
	{
		u8 le[8];
		u32 high, low;

		put_le64(le, 256);
		high = ref_crc32c(~0u, le, 8);
		put_le64(le, 300);
		low = ref_crc32c(~0u, le, 8);
		put_le64(le, 4096);
		low = ref_crc32c(low, le, 8);
		CHECK_EQ_U64(btrfs_extent_data_ref_hash(256, 300, 4096),
			     ((u64)high << 31) ^ (u64)low);
	}
}

static void test_csum_meta(void)
{
	CHECK_EQ_INT(btrfs_csum_size(BTRFS_CSUM_TYPE_CRC32), 4);
	CHECK_EQ_INT(btrfs_csum_size(BTRFS_CSUM_TYPE_XXHASH), 8);
	CHECK_EQ_INT(btrfs_csum_size(BTRFS_CSUM_TYPE_SHA256), 32);
	CHECK_EQ_INT(btrfs_csum_size(BTRFS_CSUM_TYPE_BLAKE2), 32);
	CHECK_EQ_INT(btrfs_csum_size(4), -EINVAL);
	CHECK_STR(btrfs_csum_name(BTRFS_CSUM_TYPE_CRC32), "crc32c");
	CHECK_STR(btrfs_csum_name(BTRFS_CSUM_TYPE_XXHASH), "xxhash64");
	CHECK_STR(btrfs_csum_name(BTRFS_CSUM_TYPE_SHA256), "sha256");
	CHECK_STR(btrfs_csum_name(BTRFS_CSUM_TYPE_BLAKE2), "blake2b");
	CHECK(btrfs_csum_name(0xffff) == NULL);
}

static void check_tail_zero(const u8 *out, int from)
{
	int nonzero = 0;

	for (int i = from; i < BTRFS_CSUM_MAX_SIZE; i++)
		nonzero |= out[i];
	CHECK_EQ_U64(nonzero, 0);
}

static void test_csum_data(void)
{
	static const u8 sha256_abc[32] = {
		0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde,
		0x5d, 0xae, 0x22, 0x23, 0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c,
		0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
	};
	static const u8 blake2b256_empty[32] = {
		0x0e, 0x57, 0x51, 0xc0, 0x26, 0xe5, 0x43, 0xb2, 0xe8, 0xab, 0x2e, 0xb0,
		0x60, 0x99, 0xda, 0xa1, 0xd1, 0xe5, 0xdf, 0x47, 0x77, 0x8f, 0x77, 0x87,
		0xfa, 0xab, 0x45, 0xcd, 0xf1, 0x2f, 0xe3, 0xa8,
	};
	u8 out[BTRFS_CSUM_MAX_SIZE];

	memset(out, 0xaa, sizeof(out));
	CHECK_EQ_INT(btrfs_csum_data(BTRFS_CSUM_TYPE_CRC32, "123456789", 9, out), 0);
	CHECK_EQ_U64(get_le32(out), 0xE3069283);
	CHECK_MEM(out, "\x83\x92\x06\xe3", 4);
	check_tail_zero(out, 4);

	memset(out, 0xaa, sizeof(out));
	CHECK_EQ_INT(btrfs_csum_data(BTRFS_CSUM_TYPE_XXHASH, "", 0, out), 0);
	CHECK_EQ_U64(get_le64(out), 0xef46db3751d8e999ULL);
	check_tail_zero(out, 8);

	memset(out, 0xaa, sizeof(out));
	CHECK_EQ_INT(btrfs_csum_data(BTRFS_CSUM_TYPE_SHA256, "abc", 3, out), 0);
	CHECK_MEM(out, sha256_abc, 32);

	memset(out, 0xaa, sizeof(out));
	CHECK_EQ_INT(btrfs_csum_data(BTRFS_CSUM_TYPE_BLAKE2, "", 0, out), 0);
	CHECK_MEM(out, blake2b256_empty, 32);

	memset(out, 0xaa, sizeof(out));
	CHECK_EQ_INT(btrfs_csum_data(7, "abc", 3, out), -EINVAL);
	check_tail_zero(out, 0);
}

int main(void)
{
	test_crc32c_vectors();
	test_crc32c_random();
	test_crc32c_long();
	test_hashes();
	test_csum_meta();
	/* The library must work before and after the program calls sodium_init() */
	test_csum_data();
	CHECK(sodium_init() >= 0);
	test_csum_data();
	return unit_finish();
}
