/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Checksums and hashes of the on-disk format (see csum.h).
 *
 * CRC-32C is computed slice-by-8 from the committed tables in
 * crc32c-table.h, or with the SSE4.2 crc32 instruction (three streams at a
 * time, joined with a carry-less multiply) on x86-64 CPUs that have both.  Both produce the raw register update; callers choose the seed
 * and whether to invert.
 */
#include <errno.h>
#include <string.h>
#include <sodium.h>
#include <xxhash.h>

#include "csum.h"
#include "crc32c-table.h"

u32 crc32c_raw_generic(u32 crc, const void *buf, size_t len)
{
	const u32 (*t)[256] = crc32c_table;
	const u8 *p = buf;

	while (len && ((uintptr_t)p & 7)) {
		crc = (crc >> 8) ^ t[0][(crc ^ *p++) & 0xff];
		len--;
	}
	while (len >= 8) {
		u32 lo = get_le32(p) ^ crc;
		u32 hi = get_le32(p + 4);

		crc = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^
		      t[5][(lo >> 16) & 0xff] ^ t[4][lo >> 24] ^
		      t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^
		      t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ t[0][(crc ^ *p++) & 0xff];
	return crc;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <nmmintrin.h>
#include <wmmintrin.h>

__attribute__((target("sse4.2")))
static u64 crc32c_hw_run(u64 crc, const u8 *p, size_t n8)
{
	for (size_t i = 0; i < n8; i++) {
		u64 v;

		memcpy(&v, p + 8 * i, sizeof(v));
		crc = _mm_crc32_u64(crc, v);
	}
	return crc;
}

/*
 * Stripes for three independent streams: the crc32 instruction has a
 * latency of about three cycles and a throughput of one, so one dependent
 * chain uses a third of it.  Each stripe length has the constant
 * x^(8 * len - 33) mod P (bit-reflected, as the instruction keeps it): a
 * carry-less multiply by it followed by a crc32 of the 64-bit product
 * moves a register past len zero bytes (shift below).  The constants are
 * checked against the table code by tests/unit/test-csum.c.
 */
static const struct {
	u32 len;
	u32 k;
} crc32c_stripes[] = {
	{ 4096, 0x82f89c77 },
	{ 1024, 0x170076fa },
	{ 256, 0xb9e02b86 },
};

__attribute__((target("sse4.2,pclmul")))
static u32 crc32c_shift(u32 crc, u32 k)
{
	__m128i prod = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)crc),
					    _mm_cvtsi32_si128((int)k), 0);

	return (u32)_mm_crc32_u64(0, (u64)_mm_cvtsi128_si64(prod));
}

__attribute__((target("sse4.2,pclmul")))
static u32 crc32c_hw(u32 crc, const u8 *p, size_t len)
{
	u64 crc64;

	/*
	 * No byte-wise steps up to an 8-byte boundary: unaligned loads cost
	 * nothing here, and a name (the tree-checker hashes every DIR_ITEM's)
	 * then takes one step per 8 bytes and at most three for its tail
	 */
	for (size_t s = 0; s < sizeof(crc32c_stripes) / sizeof(crc32c_stripes[0]); s++) {
		const size_t sl = crc32c_stripes[s].len;
		const u32 k = crc32c_stripes[s].k;

		while (len >= 3 * sl) {
			u64 a = crc, b = 0, c = 0;

			for (size_t i = 0; i < sl; i += 8) {
				u64 va, vb, vc;

				memcpy(&va, p + i, 8);
				memcpy(&vb, p + sl + i, 8);
				memcpy(&vc, p + 2 * sl + i, 8);
				a = _mm_crc32_u64(a, va);
				b = _mm_crc32_u64(b, vb);
				c = _mm_crc32_u64(c, vc);
			}
			crc = crc32c_shift(crc32c_shift((u32)a, k) ^ (u32)b, k) ^ (u32)c;
			p += 3 * sl;
			len -= 3 * sl;
		}
	}
	crc64 = crc32c_hw_run(crc, p, len / 8);
	p += len / 8 * 8;
	len %= 8;
	crc = (u32)crc64;
	if (len & 4) {
		u32 v;

		memcpy(&v, p, sizeof(v));
		crc = _mm_crc32_u32(crc, v);
		p += 4;
	}
	if (len & 2) {
		u16 v;

		memcpy(&v, p, sizeof(v));
		crc = _mm_crc32_u16(crc, v);
		p += 2;
	}
	if (len & 1)
		crc = _mm_crc32_u8(crc, *p);
	return crc;
}

static int cpu_has_sse42(void)
{
	/*
	 * libgcc's constructor has filled in the CPU model before main();
	 * before it (a constructor of our own) this says no and the table
	 * code runs, which gives the same result.  No __builtin_cpu_init()
	 * here: a call on every name hash cost 5% of the tree-checker's time.
	 */
	return __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("pclmul");
}
#endif

u32 crc32c_raw(u32 crc, const void *buf, size_t len)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (cpu_has_sse42())
		return crc32c_hw(crc, buf, len);
#endif
	return crc32c_raw_generic(crc, buf, len);
}

u32 btrfs_crc32c(const void *buf, size_t len)
{
	return ~crc32c_raw(~0U, buf, len);
}

u64 btrfs_name_hash(const char *name, size_t len)
{
	return crc32c_raw(~1U, name, len);
}

u64 btrfs_extref_hash(u64 parent, const char *name, size_t len)
{
	return crc32c_raw((u32)parent, name, len);
}

u64 btrfs_extent_data_ref_hash(u64 root, u64 objectid, u64 offset)
{
	u8 le[8];
	u32 high, low;

	put_le64(le, root);
	high = crc32c_raw(~0U, le, sizeof(le));
	put_le64(le, objectid);
	low = crc32c_raw(~0U, le, sizeof(le));
	put_le64(le, offset);
	low = crc32c_raw(low, le, sizeof(le));
	/* The kernel shifts by 31, not 32: the top bit of low overlaps */
	return ((u64)high << 31) ^ (u64)low;
}

int btrfs_csum_size(u16 csum_type)
{
	switch (csum_type) {
	case BTRFS_CSUM_TYPE_CRC32:
		return 4;
	case BTRFS_CSUM_TYPE_XXHASH:
		return 8;
	case BTRFS_CSUM_TYPE_SHA256:
	case BTRFS_CSUM_TYPE_BLAKE2:
		return 32;
	default:
		return -EINVAL;
	}
}

const char *btrfs_csum_name(u16 csum_type)
{
	switch (csum_type) {
	case BTRFS_CSUM_TYPE_CRC32:
		return "crc32c";
	case BTRFS_CSUM_TYPE_XXHASH:
		return "xxhash64";
	case BTRFS_CSUM_TYPE_SHA256:
		return "sha256";
	case BTRFS_CSUM_TYPE_BLAKE2:
		return "blake2b";
	default:
		return NULL;
	}
}

_Static_assert(BTRFS_CSUM_MAX_SIZE == BTRFS_CSUM_SIZE, "csum field size");
_Static_assert(crypto_hash_sha256_BYTES == 32, "sha256 digest");

int btrfs_csum_data(u16 csum_type, const void *data, size_t len, u8 out[BTRFS_CSUM_MAX_SIZE])
{
	memset(out, 0, BTRFS_CSUM_MAX_SIZE);
	switch (csum_type) {
	case BTRFS_CSUM_TYPE_CRC32:
		put_le32(out, btrfs_crc32c(data, len));
		return 0;
	case BTRFS_CSUM_TYPE_XXHASH:
		put_le64(out, (u64)XXH64(data, len, 0));
		return 0;
	case BTRFS_CSUM_TYPE_SHA256:
		crypto_hash_sha256(out, data, len);
		return 0;
	case BTRFS_CSUM_TYPE_BLAKE2:
		/* Unkeyed BLAKE2b with a 32-byte digest; cannot fail with these sizes */
		if (crypto_generichash(out, 32, data, len, NULL, 0)) {
			memset(out, 0, BTRFS_CSUM_MAX_SIZE);
			return -EINVAL;
		}
		return 0;
	default:
		return -EINVAL;
	}
}

void btrfs_derive_uuid(const u8 seed[16], const char *role, u64 key, u8 out[16])
{
	crypto_hash_sha256_state st;
	u8 digest[crypto_hash_sha256_BYTES], k[8];

	for (int i = 0; i < 8; i++)
		k[i] = (u8)(key >> (8 * i));
	crypto_hash_sha256_init(&st);
	crypto_hash_sha256_update(&st, seed, 16);
	crypto_hash_sha256_update(&st, (const u8 *)role, strlen(role));
	crypto_hash_sha256_update(&st, k, sizeof(k));
	crypto_hash_sha256_final(&st, digest);
	memcpy(out, digest, 16);
	out[6] = (u8)((out[6] & 0x0f) | 0x80);	/* version 8 */
	out[8] = (u8)((out[8] & 0x3f) | 0x80);	/* RFC 9562 variant */
}
