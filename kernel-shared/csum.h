/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Checksums and hashes of the Btrfs on-disk format.
 *
 * - Block and superblock checksums use the algorithm in super.csum_type:
 *   CRC-32C, XXH64 (seed 0), SHA-256 or BLAKE2b-256, stored little-endian
 *   (CRC-32C, XXH64) or as the digest bytes, zero-padded to 32 bytes.
 * - The directory name hash, the INODE_EXTREF key hash and the
 *   EXTENT_DATA_REF hash always use the raw CRC-32C register (no final
 *   inversion), whatever csum_type says.
 *
 * SHA-256 and BLAKE2b come from libsodium.  The program calls sodium_init()
 * once at start-up so libsodium can pick its fastest implementation; these
 * functions give the same results without it.
 */
#ifndef VOLCTL_KERNEL_SHARED_CSUM_H
#define VOLCTL_KERNEL_SHARED_CSUM_H

#include <stddef.h>
#include "format.h"

/* Largest digest any csum_type produces (= BTRFS_CSUM_SIZE) */
#define BTRFS_CSUM_MAX_SIZE	32

/**
 * crc32c_raw - update a CRC-32C register
 * @crc: register value (the standard CRC starts from 0xFFFFFFFF)
 * @buf: data
 * @len: length of @buf
 *
 * No inversion is applied on entry or exit; this is the kernel's crc32c()
 * primitive.  Uses the SSE4.2 crc32 instruction when the CPU has it.
 */
u32 crc32c_raw(u32 crc, const void *buf, size_t len);

/**
 * crc32c_raw_generic - table-driven crc32c_raw() without the CPU fast path
 *
 * Exported so tests can compare both implementations.
 */
u32 crc32c_raw_generic(u32 crc, const void *buf, size_t len);

/** btrfs_crc32c - standard CRC-32C of @buf (init ~0, final inversion) */
u32 btrfs_crc32c(const void *buf, size_t len);

/**
 * btrfs_name_hash - key offset of DIR_ITEM and XATTR_ITEM for @name
 *
 * Raw CRC-32C seeded with 0xFFFFFFFE, zero-extended.
 * "default" hashes to 2378154706.
 */
u64 btrfs_name_hash(const char *name, size_t len);

/**
 * btrfs_extref_hash - key offset of an INODE_EXTREF item
 * @parent: parent directory inode number (its low 32 bits seed the CRC)
 */
u64 btrfs_extref_hash(u64 parent, const char *name, size_t len);

/**
 * btrfs_extent_data_ref_hash - key offset of a keyed EXTENT_DATA_REF and
 * the ordering value of inline data refs
 *
 * (crc(root) << 31) ^ crc(objectid, offset), each raw CRC-32C seeded with
 * 0xFFFFFFFF over the little-endian u64 values.
 */
u64 btrfs_extent_data_ref_hash(u64 root, u64 objectid, u64 offset);

/** btrfs_csum_size - bytes a checksum of @csum_type occupies, or -EINVAL */
int btrfs_csum_size(u16 csum_type);

/** btrfs_csum_name - "crc32c", "xxhash64", "sha256", "blake2b"; NULL if unknown */
const char *btrfs_csum_name(u16 csum_type);

/**
 * btrfs_csum_data - checksum @data with algorithm @csum_type
 * @out: receives btrfs_csum_size() bytes, the rest of the 32 are zeroed
 *
 * Return: 0, or -EINVAL for an unknown @csum_type (@out is then all zero).
 */
int btrfs_csum_data(u16 csum_type, const void *data, size_t len, u8 out[BTRFS_CSUM_MAX_SIZE]);

/**
 * btrfs_derive_uuid - a UUID derived from @seed for reproducible images:
 * the first 16 bytes of SHA-256(@seed || @role || le64 @key), marked as an
 * RFC 9562 version 8 (name-based, custom) UUID
 *
 * The same (@role, @key) under one seed always gives the same UUID, and
 * different ones give different UUIDs, as random ones would.
 */
void btrfs_derive_uuid(const u8 seed[16], const char *role, u64 key, u8 out[16]);

#endif /* VOLCTL_KERNEL_SHARED_CSUM_H */
