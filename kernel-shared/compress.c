// SPDX-License-Identifier: GPL-2.0-only
/*
 * Compressed file data (see compress.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>
#include <lzo/lzo1x.h>
#include "compress.h"

/* The kernel's default max_inline mount option */
#define DEFAULT_MAX_INLINE	2048U
#define LZO_LEN			4U

static size_t lzo_worst(size_t len)
{
	return len + len / 16 + 64 + 3;
}

int btrfs_compress_parse(const char *s, u8 *type, int *level)
{
	static const struct { const char *name; u8 type; int def, max; } algs[] = {
		{ "zlib", BTRFS_COMPRESS_ZLIB, BTRFS_ZLIB_DEFAULT_LEVEL, BTRFS_ZLIB_MAX_LEVEL },
		{ "lzo", BTRFS_COMPRESS_LZO, 0, 0 },
		{ "zstd", BTRFS_COMPRESS_ZSTD, BTRFS_ZSTD_DEFAULT_LEVEL, BTRFS_ZSTD_MAX_LEVEL },
	};
	const char *colon = strchr(s, ':');
	size_t nlen = colon ? (size_t)(colon - s) : strlen(s);

	for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]); i++) {
		char *end;
		long v;

		if (strlen(algs[i].name) != nlen || memcmp(algs[i].name, s, nlen))
			continue;
		*type = algs[i].type;
		*level = algs[i].def;
		if (!colon)
			return 0;
		errno = 0;
		v = strtol(colon + 1, &end, 10);
		if (!colon[1] || *end || errno || v < 1 || v > algs[i].max)
			return -EINVAL;
		*level = (int)v;
		return 0;
	}
	return -EINVAL;
}

const char *btrfs_compress_name(u8 type)
{
	switch (type) {
	case BTRFS_COMPRESS_ZLIB: return "zlib";
	case BTRFS_COMPRESS_LZO: return "lzo";
	case BTRFS_COMPRESS_ZSTD: return "zstd";
	default: return "none";
	}
}

int btrfs_compress_ctx_init(struct btrfs_compress_ctx *ctx, u8 type, int level, u32 sectorsize)
{
	memset(ctx, 0, sizeof(*ctx));
	if (!sectorsize || (sectorsize & (sectorsize - 1)))
		return -EINVAL;
	ctx->type = type;
	ctx->sectorsize = sectorsize;
	switch (type) {
	case BTRFS_COMPRESS_ZLIB:
		ctx->level = level ? level : BTRFS_ZLIB_DEFAULT_LEVEL;
		if (ctx->level < 1 || ctx->level > BTRFS_ZLIB_MAX_LEVEL)
			return -EINVAL;
		return 0;
	case BTRFS_COMPRESS_LZO:
		if (level || lzo_init() != LZO_E_OK)
			return -EINVAL;
		ctx->lib = malloc(LZO1X_1_MEM_COMPRESS);
		ctx->seg = malloc(lzo_worst(sectorsize));
		break;
	case BTRFS_COMPRESS_ZSTD: {
		ZSTD_CCtx *cc;

		ctx->level = level ? level : BTRFS_ZSTD_DEFAULT_LEVEL;
		if (ctx->level < 1 || ctx->level > BTRFS_ZSTD_MAX_LEVEL)
			return -EINVAL;
		cc = ZSTD_createCCtx();
		ctx->lib = cc;
		if (cc && (ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel,
							       ctx->level)) ||
			   ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 0)) ||
			   ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 1)) ||
			   /* the kernel's window; a smaller input gets a smaller one */
			   ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_windowLog,
							       BTRFS_ZSTD_MAX_WINDOWLOG)))) {
			btrfs_compress_ctx_release(ctx);
			return -EINVAL;
		}
		break;
	}
	default:
		return -EINVAL;
	}
	if (!ctx->lib || (type == BTRFS_COMPRESS_LZO && !ctx->seg)) {
		btrfs_compress_ctx_release(ctx);
		return -ENOMEM;
	}
	return 0;
}

void btrfs_compress_ctx_release(struct btrfs_compress_ctx *ctx)
{
	if (ctx->type == BTRFS_COMPRESS_ZSTD)
		ZSTD_freeCCtx(ctx->lib);
	else
		free(ctx->lib);
	free(ctx->seg);
	ctx->lib = ctx->seg = NULL;
}

size_t btrfs_compress_bound(const struct btrfs_compress_ctx *ctx, size_t len)
{
	size_t ss = ctx->sectorsize, sectors = (len + ss - 1) / ss;

	switch (ctx->type) {
	case BTRFS_COMPRESS_ZLIB:
		return compressBound((uLong)len);
	case BTRFS_COMPRESS_LZO:
		/* header, per sector a length, a payload and up to 3 bytes of padding */
		return LZO_LEN + sectors * (LZO_LEN + lzo_worst(ss) + LZO_LEN - 1);
	case BTRFS_COMPRESS_ZSTD:
		return ZSTD_compressBound(len);
	default:
		return len;
	}
}

static long zlib_compress(struct btrfs_compress_ctx *ctx, const u8 *in, size_t len, u8 *out,
			  size_t cap)
{
	z_stream s;
	long ret;
	int zr;

	memset(&s, 0, sizeof(s));
	if (deflateInit(&s, ctx->level) != Z_OK)
		return -ENOMEM;
	s.next_in = (Bytef *)in;
	s.avail_in = (uInt)len;
	s.next_out = out;
	s.avail_out = (uInt)(cap < UINT_MAX ? cap : UINT_MAX);
	zr = deflate(&s, Z_FINISH);
	ret = zr == Z_STREAM_END ? (long)s.total_out : zr == Z_OK || zr == Z_BUF_ERROR ? -E2BIG : -EIO;
	deflateEnd(&s);
	return ret;
}

static long zstd_compress(struct btrfs_compress_ctx *ctx, const u8 *in, size_t len, u8 *out,
			  size_t cap)
{
	ZSTD_CCtx *cc = ctx->lib;
	size_t r;

	ZSTD_CCtx_reset(cc, ZSTD_reset_session_only);
	r = ZSTD_compress2(cc, out, cap, in, len);
	if (ZSTD_isError(r))
		return ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall ? -E2BIG : -EIO;
	return (long)r;
}

/* The btrfs LZO format: total length, then per sector of input a length and a payload */
static long lzo_compress(struct btrfs_compress_ctx *ctx, const u8 *in, size_t len, u8 *out,
			 size_t cap)
{
	size_t ss = ctx->sectorsize, at = LZO_LEN;

	if (cap < LZO_LEN)
		return -E2BIG;
	for (size_t done = 0; done < len;) {
		size_t piece = len - done < ss ? len - done : ss;
		lzo_uint seg = 0;
		size_t left;

		if (lzo1x_1_compress(in + done, piece, ctx->seg, &seg, ctx->lib) != LZO_E_OK)
			return -EIO;
		if (at + LZO_LEN + seg > cap)
			return -E2BIG;
		put_le32(out + at, (u32)seg);
		memcpy(out + at + LZO_LEN, ctx->seg, seg);
		at += LZO_LEN + seg;
		done += piece;
		/* a length header never crosses a sector: pad what cannot hold one */
		left = (at + ss - 1) / ss * ss - at;
		if (left && left < LZO_LEN) {
			if (at + left > cap)
				return -E2BIG;
			memset(out + at, 0, left);
			at += left;
		}
		/* the kernel gives up after two sectors of input that grew */
		if (done > 2 * ss && done < at)
			return -E2BIG;
	}
	put_le32(out, (u32)at);
	return (long)at;
}

long btrfs_compress(struct btrfs_compress_ctx *ctx, const void *in, size_t len, void *out,
		    size_t out_cap)
{
	long ret;

	if (!len || len > BTRFS_MAX_UNCOMPRESSED || (!ctx->lib && ctx->type != BTRFS_COMPRESS_ZLIB))
		return -EINVAL;
	switch (ctx->type) {
	case BTRFS_COMPRESS_ZLIB:
		ret = zlib_compress(ctx, in, len, out, out_cap);
		break;
	case BTRFS_COMPRESS_LZO:
		ret = lzo_compress(ctx, in, len, out, out_cap);
		break;
	case BTRFS_COMPRESS_ZSTD:
		ret = zstd_compress(ctx, in, len, out, out_cap);
		break;
	default:
		return -EINVAL;
	}
	if (ret >= 0 && (size_t)ret >= len)
		return -E2BIG;
	return ret;
}

static long zlib_decompress(const u8 *in, size_t in_len, u8 *out, size_t out_len)
{
	z_stream s;
	long ret;
	int zr;

	memset(&s, 0, sizeof(s));
	if (inflateInit(&s) != Z_OK)
		return -ENOMEM;
	s.next_in = (Bytef *)in;
	s.avail_in = (uInt)in_len;
	s.next_out = out;
	s.avail_out = (uInt)out_len;
	zr = inflate(&s, Z_FINISH);
	/* a full output before the stream's end is all the extent holds */
	ret = zr == Z_STREAM_END || (zr == Z_BUF_ERROR && !s.avail_out) ? (long)s.total_out :
	      zr == Z_MEM_ERROR ? -ENOMEM : -EUCLEAN;
	inflateEnd(&s);
	return ret;
}

static long zstd_decompress(const u8 *in, size_t in_len, u8 *out, size_t out_len)
{
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	ZSTD_inBuffer ib = { in, in_len, 0 };
	ZSTD_outBuffer ob = { out, out_len, 0 };
	long ret = -EUCLEAN;

	if (!dc)
		return -ENOMEM;
	/* the kernel's decoder takes windows up to 128 KiB only */
	if (ZSTD_isError(ZSTD_DCtx_setParameter(dc, ZSTD_d_windowLogMax, BTRFS_ZSTD_MAX_WINDOWLOG)))
		goto out;
	for (;;) {
		size_t r = ZSTD_decompressStream(dc, &ob, &ib);

		if (ZSTD_isError(r))
			goto out;
		/* the frame's end, or the extent's bytes all given */
		if (r == 0 || ob.pos == ob.size) {
			ret = (long)ob.pos;
			goto out;
		}
		if (ib.pos == ib.size)
			goto out;
	}
out:
	ZSTD_freeDCtx(dc);
	return ret;
}

static long lzo_decompress(u32 ss, const u8 *in, size_t in_len, u8 *out, size_t out_len)
{
	size_t total, at = LZO_LEN, done = 0;
	u8 *buf;
	long ret = -EUCLEAN;

	if (in_len < LZO_LEN)
		return -EUCLEAN;
	total = get_le32(in);
	/* lzo_decompress_bio(): within the extent and the largest one, every sector used */
	if (total > in_len || total > BTRFS_MAX_COMPRESSED ||
	    (total + ss - 1) / ss * ss < in_len)
		return -EUCLEAN;
	buf = malloc(lzo_worst(ss));
	if (!buf)
		return -ENOMEM;
	while (at < total && done < out_len) {
		lzo_uint got = lzo_worst(ss);
		size_t seg, left;

		if (at / ss != (at + LZO_LEN - 1) / ss || at + LZO_LEN > total)
			goto out;
		seg = get_le32(in + at);
		at += LZO_LEN;
		if (seg > lzo_worst(ss) || at + seg > total)
			goto out;
		if (lzo1x_decompress_safe(in + at, seg, buf, &got, NULL) != LZO_E_OK || got > ss)
			goto out;
		memcpy(out + done, buf, got < out_len - done ? got : out_len - done);
		done += got < out_len - done ? got : out_len - done;
		at += seg;
		left = ss - at % ss;
		if (left < LZO_LEN)
			at += left;
	}
	ret = (long)done;
out:
	free(buf);
	return ret;
}

long btrfs_decompress(u8 type, u32 sectorsize, const void *in, size_t in_len, void *out,
		      size_t out_len)
{
	long ret;

	if (!sectorsize || (sectorsize & (sectorsize - 1)))
		return -EINVAL;
	switch (type) {
	case BTRFS_COMPRESS_ZLIB:
		ret = zlib_decompress(in, in_len, out, out_len);
		break;
	case BTRFS_COMPRESS_LZO:
		ret = lzo_decompress(sectorsize, in, in_len, out, out_len);
		break;
	case BTRFS_COMPRESS_ZSTD:
		ret = zstd_decompress(in, in_len, out, out_len);
		break;
	default:
		return -EINVAL;
	}
	if (ret >= 0 && (size_t)ret < out_len)
		memset((u8 *)out + ret, 0, out_len - (size_t)ret);
	return ret;
}

bool btrfs_compress_inline_ok(u32 nodesize, u32 sectorsize, u64 size, size_t compressed)
{
	u32 item = btrfs_max_item_size(nodesize) - BTRFS_FILE_EXTENT_INLINE_DATA_START;

	return size <= sectorsize && compressed < sectorsize && compressed <= item &&
	       compressed <= DEFAULT_MAX_INLINE;
}
