/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Compressed file data (layer 1): one chunk of a file compressed into the
 * bytes the kernel writes for a compressed extent, and such bytes decoded
 * back.  Pure functions over buffers: no tree, no device.  zlib, LZO and
 * zstd come from zlib, liblzo2 and libzstd; the btrfs framing around LZO is
 * ours.
 *
 * The on-disk formats (linux 6.18, fs/btrfs/{zlib,lzo,zstd}.c):
 * - zlib: one zlib stream (RFC 1950: 2-byte header, deflate, adler32),
 *   window 32 KiB; levels 1-9, default 3 (zlib.c: zlib_compress_folios()
 *   calls zlib_deflateInit() with the level; btrfs_zlib_compress levels).
 * - zstd: one zstd frame, no content checksum (the kernel's parameters
 *   leave checksumFlag 0), window at most 128 KiB: ZSTD_BTRFS_MAX_WINDOWLOG
 *   17, and the kernel's decoder is opened with that window, so a frame
 *   with a larger window does not read; levels 1-15, default 3
 *   (zstd.c: zstd_get_btrfs_parameters(), zstd_decompress_bio()).
 * - lzo: the btrfs LZO format (lzo.c, "Btrfs LZO compression format"):
 *   a 4-byte little-endian total length (header and padding included),
 *   then one segment per sector of input, each a 4-byte little-endian
 *   length and that many bytes of lzo1x_1 output.  A segment's payload may
 *   cross a sector boundary, its length header never does: when fewer than
 *   4 bytes are left in a sector after a payload, they are zeros and the
 *   next header starts the next sector.  An inline extent is one segment.
 *   No levels.
 * The bytes after the stream up to the end of the last sector are zeros.
 *
 * When the kernel keeps a compressed extent (inode.c, compress_file_range()):
 * - it compresses at most BTRFS_MAX_UNCOMPRESSED (128 KiB) of a file at a
 *   time, from a sector-aligned file offset; each such chunk is its own
 *   extent, with ram_bytes = num_bytes = the chunk's length rounded up to
 *   the sector (the last chunk of a file ends at its size; the rest of the
 *   sector reads as zeros) and disk_num_bytes = the compressed length
 *   rounded up to the sector;
 * - "compression must free at least one sector": kept only when
 *   round_up(compressed, sector) + sector <= round_up(input, sector)
 *   (btrfs_compress_keep()); otherwise the chunk is written plain;
 * - a file of at most one sector is compressed too, and becomes an inline
 *   compressed extent when can_cow_file_range_inline() allows it: file
 *   offset 0, the whole file, size <= sectorsize, compressed length <
 *   sectorsize, <= the largest inline item and <= max_inline (2048 by
 *   default) (btrfs_compress_inline_ok()); otherwise it follows the
 *   uncompressed rules (inline when at most max_inline bytes);
 * - zlib and zstd give up on data that does not shrink (zlib.c, zstd.c:
 *   output not smaller than the input is -E2BIG); lzo only after two
 *   sectors that grew (lzo.c), so the kernel keeps a 2000-byte random file
 *   as a 2020-byte inline lzo extent.  btrfs_compress() returns -E2BIG for
 *   output not smaller than the input for every algorithm, so volctl
 *   stores that file plain;
 * - the bytes: zstd gives the kernel's bytes (same level, window and
 *   pledged size; seen on linux 6.18 with libzstd 1.5.4, file by file);
 *   the kernel's own LZO1X and zlib code choose some matches differently
 *   from liblzo2 and zlib, so those streams differ from the kernel's in a
 *   few bytes and lengths, and both sides read each other's.
 * - with `mount -o compress` (not compress-force) the kernel also runs a
 *   sampling heuristic first (compression.c, btrfs_compress_heuristic())
 *   and, after one chunk that did not shrink, marks the inode NOCOMPRESS
 *   and writes the rest plain.  volctl decides each chunk on its own, as
 *   compress-force does, and sets no inode flag.
 */
#ifndef VOLCTL_KERNEL_SHARED_COMPRESS_H
#define VOLCTL_KERNEL_SHARED_COMPRESS_H

#include <stdbool.h>
#include <stddef.h>
#include "format.h"

/* The kernel's largest chunk of file data in one compressed extent (compression.h) */
#define BTRFS_MAX_UNCOMPRESSED		(128U * 1024)
/* and the largest compressed extent on disk */
#define BTRFS_MAX_COMPRESSED		(128U * 1024)

#define BTRFS_ZLIB_DEFAULT_LEVEL	3
#define BTRFS_ZLIB_MAX_LEVEL		9
#define BTRFS_ZSTD_DEFAULT_LEVEL	3
#define BTRFS_ZSTD_MAX_LEVEL		15
#define BTRFS_ZSTD_MAX_WINDOWLOG	17

/* What one compressor needs between calls: created once, used for many chunks */
struct btrfs_compress_ctx {
	u8 type;			/* BTRFS_COMPRESS_ZLIB, _LZO, _ZSTD */
	int level;			/* the algorithm's level (0 for lzo) */
	u32 sectorsize;
	void *lib;			/* the library's state (zstd contexts, lzo work memory) */
	void *seg;			/* lzo: one segment's output */
};

/**
 * btrfs_compress_parse - "zstd", "lzo", "zlib" with an optional ":LEVEL"
 * into *@type and *@level (the default level when none is given)
 * Return: 0, -EINVAL (unknown name, a level out of range, a level for lzo).
 */
int btrfs_compress_parse(const char *s, u8 *type, int *level);

/** btrfs_compress_name - "zlib", "lzo", "zstd" or "none" */
const char *btrfs_compress_name(u8 type);

/**
 * btrfs_compress_ctx_init - a compressor for @type at @level (0: the
 * default) for a filesystem of @sectorsize
 * Return: 0, -EINVAL, -ENOMEM.
 */
int btrfs_compress_ctx_init(struct btrfs_compress_ctx *ctx, u8 type, int level, u32 sectorsize);

void btrfs_compress_ctx_release(struct btrfs_compress_ctx *ctx);

/** btrfs_compress_bound - bytes btrfs_compress() may need for @len bytes of input */
size_t btrfs_compress_bound(const struct btrfs_compress_ctx *ctx, size_t len);

/**
 * btrfs_compress - compress @len bytes of @in (at most
 * BTRFS_MAX_UNCOMPRESSED, starting at a sector of the file) into @out
 * Return: the compressed length (smaller than @len), -E2BIG (the data does
 * not shrink, or does not fit @out_cap), -EINVAL, -ENOMEM, -EIO.
 */
long btrfs_compress(struct btrfs_compress_ctx *ctx, const void *in, size_t len, void *out,
		    size_t out_cap);

/**
 * btrfs_decompress - decode the @in_len bytes of a compressed extent of
 * type @type (its disk bytes, or an inline extent's data) into @out_len
 * (its ram_bytes) bytes of @out; output the stream does not fill is zeros
 * Return: bytes the stream gave (<= @out_len), -EUCLEAN (bad stream),
 * -EINVAL (@type), -ENOMEM.
 */
long btrfs_decompress(u8 type, u32 sectorsize, const void *in, size_t in_len, void *out,
		      size_t out_len);

/**
 * btrfs_compress_keep - the kernel keeps a compressed extent of @out_len
 * bytes for @in_len bytes of input: it frees at least one sector
 */
static inline bool btrfs_compress_keep(u32 sectorsize, u64 in_len, u64 out_len)
{
	u64 ss = sectorsize;

	return (out_len + ss - 1) / ss * ss + ss <= (in_len + ss - 1) / ss * ss;
}

/**
 * btrfs_compress_inline_ok - a file of @size bytes compressed to
 * @compressed bytes is an inline compressed extent
 * (can_cow_file_range_inline() with the default max_inline)
 */
bool btrfs_compress_inline_ok(u32 nodesize, u32 sectorsize, u64 size, size_t compressed);

#endif /* VOLCTL_KERNEL_SHARED_COMPRESS_H */
