// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for kernel-shared/compress.c: round trips of every algorithm
 * on random and compressible data at the sizes that matter (1 byte, a
 * sector +-1, 128 KiB), the btrfs LZO framing (no segment header across a
 * sector), data that does not shrink, the keep and inline rules, level
 * parsing, and the decoding of extents the kernel wrote
 * (tests/fixtures/compress/kernel.img.zst, made by make.sh there).
 */
#include <stdarg.h>
#include "reader-harness.h"
#include "kernel-shared/compress.h"
#include "kernel-shared/volumes.h"

#ifndef VOLCTL_SRCDIR
#define VOLCTL_SRCDIR ""	/* make check-unit runs from the top of the tree */
#endif

static const u8 algs[] = { BTRFS_COMPRESS_ZLIB, BTRFS_COMPRESS_LZO, BTRFS_COMPRESS_ZSTD };

/* The fixture's formulas (tests/fixtures/compress/make.sh) */
static void gen_text(const char *name, u8 *out, size_t n)
{
	size_t at = 0;

	for (unsigned int k = 0; at < n; k++) {
		char line[128];
		int l = snprintf(line, sizeof(line), "%s line %07u\n", name, k);

		for (int i = 0; i < l && at < n; i++)
			out[at++] = (u8)line[i];
	}
}

static void gen_rand(u64 seed, u8 *out, size_t n)
{
	u64 s = seed;

	for (size_t at = 0; at < n;) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		for (int i = 0; i < 8 && at < n; i++)
			out[at++] = (u8)(s >> (8 * i));
	}
}

static void test_round_trips(void)
{
	static const size_t sizes[] = { 1, 100, 2048, 4095, 4096, 4097, 8191, 12289, 65536,
					100000, 131071, 131072 };
	u8 *in = malloc(BTRFS_MAX_UNCOMPRESSED), *back = malloc(BTRFS_MAX_UNCOMPRESSED);

	for (size_t a = 0; a < sizeof(algs); a++) {
		for (u32 ss = 4096; ss <= 65536; ss *= 16) {
			struct btrfs_compress_ctx ctx;
			int ret = btrfs_compress_ctx_init(&ctx, algs[a], 0, ss);

			CHECK(ret == 0, "%s: init %d", btrfs_compress_name(algs[a]), ret);
			if (ret)
				continue;
			for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
				size_t n = sizes[i], cap = btrfs_compress_bound(&ctx, n);
				u8 *out = malloc(cap);
				long c, d;

				/* compressible: text */
				gen_text("round trip", in, n);
				c = btrfs_compress(&ctx, in, n, out, cap);
				if (n <= 100) {
					/* too short to shrink much */
					CHECK(c == -E2BIG || (c > 0 && (size_t)c < n),
					      "%s %zu: %ld", btrfs_compress_name(algs[a]), n, c);
				} else {
					CHECK(c > 0 && (size_t)c < n / 4, "%s ss %u %zu bytes: %ld",
					      btrfs_compress_name(algs[a]), ss, n, c);
				}
				if (c > 0) {
					memset(back, 0xAA, n);
					d = btrfs_decompress(algs[a], ss, out, (size_t)c, back, n);
					CHECK(d == (long)n && !memcmp(in, back, n),
					      "%s ss %u %zu: back %ld", btrfs_compress_name(algs[a]),
					      ss, n, d);
				}
				/* random: does not shrink (-E2BIG), or round trips when it did */
				gen_rand(0x1234 + n, in, n);
				c = btrfs_compress(&ctx, in, n, out, cap);
				CHECK(c == -E2BIG, "%s ss %u random %zu: %ld",
				      btrfs_compress_name(algs[a]), ss, n, c);
				/* half random, half zeros: shrinks, the keep rule decides */
				memset(in + n / 2, 0, n - n / 2);
				c = btrfs_compress(&ctx, in, n, out, cap);
				if (c > 0) {
					d = btrfs_decompress(algs[a], ss, out, (size_t)c, back, n);
					CHECK(d == (long)n && !memcmp(in, back, n), "%s half %zu: %ld",
					      btrfs_compress_name(algs[a]), n, d);
				}
				free(out);
			}
			btrfs_compress_ctx_release(&ctx);
		}
	}
	free(in);
	free(back);
}

/* Every lzo segment header inside one sector; the total length in front */
static void test_lzo_framing(void)
{
	const u32 ss = 4096;
	struct btrfs_compress_ctx ctx;
	size_t n = BTRFS_MAX_UNCOMPRESSED, cap;
	u8 *in = malloc(n), *out;
	long c;
	size_t at = 4, segs = 0, padded = 0;
	int bad = 0;

	CHECK(btrfs_compress_ctx_init(&ctx, BTRFS_COMPRESS_LZO, 0, ss) == 0, "lzo init");
	cap = btrfs_compress_bound(&ctx, n);
	out = malloc(cap);
	/* text with a random run per sector: segments of odd lengths, until one
	 * ends 1-3 bytes before a sector's end (padding) */
	for (u64 seed = 1; seed < 5000 && !padded; seed++) {
		gen_text("lzo framing", in, n);
		for (size_t s = 0; s < n / ss; s++)
			gen_rand(seed * 131 + s, in + s * ss, 700 + (seed * 7 + s * 37) % 900);
		c = btrfs_compress(&ctx, in, n, out, cap);
		CHECK(c > 0 && get_le32(out) == (u32)c, "lzo: %ld, header %u", c,
		      c > 0 ? get_le32(out) : 0);
		at = 4;
		segs = 0;
		while (c > 0 && at < (size_t)c) {
			size_t left;

			if (at / ss != (at + 3) / ss)
				bad++;
			at += 4 + get_le32(out + at);
			segs++;
			left = ss - at % ss;
			if (left < 4) {
				for (size_t i = 0; i < left; i++)
					bad += out[at + i] != 0;
				at += left;
				padded++;
			}
		}
	}
	CHECK(c > 0 && at == (size_t)c && segs == n / ss && !bad,
	      "lzo: %zu segments (of %zu), end %zu of %ld, %d bad", segs, n / ss, at, c, bad);
	CHECK(padded > 0, "lzo: no padded sector end in %zu segments (the test data should make one)",
	      segs);
	/* a header that would cross a sector is refused */
	if (c > 0) {
		u8 *back = malloc(n);
		long d;

		d = btrfs_decompress(BTRFS_COMPRESS_LZO, ss, out, (size_t)c, back, n);
		CHECK(d == (long)n && !memcmp(in, back, n), "lzo: back %ld", d);
		put_le32(out, (u32)c + 8192);
		d = btrfs_decompress(BTRFS_COMPRESS_LZO, ss, out, (size_t)c, back, n);
		CHECK(d == -EUCLEAN, "lzo: total length past the extent: %ld", d);
		free(back);
	}
	btrfs_compress_ctx_release(&ctx);
	free(in);
	free(out);
}

static void test_rules(void)
{
	u8 t = 0;
	int l = 0;

	/* must free a sector */
	CHECK(btrfs_compress_keep(4096, 131072, 126976), "127 KiB of 128 kept");
	CHECK(!btrfs_compress_keep(4096, 131072, 126977), "127 KiB + 1 not kept");
	CHECK(!btrfs_compress_keep(4096, 4096, 100), "one sector never shrinks");
	CHECK(btrfs_compress_keep(4096, 4097, 100), "two sectors into one");
	CHECK(!btrfs_compress_keep(4096, 8192, 4097), "8192 into 4097: both two sectors");
	/* inline: whole file <= sector, compressed < sector, <= 2048 and the item */
	CHECK(btrfs_compress_inline_ok(16384, 4096, 4096, 2048), "4096 -> 2048 inline");
	CHECK(!btrfs_compress_inline_ok(16384, 4096, 4096, 2049), "4096 -> 2049 not inline");
	CHECK(!btrfs_compress_inline_ok(16384, 4096, 4097, 10), "4097 bytes never inline");
	CHECK(btrfs_compress_inline_ok(4096, 4096, 3000, 2048), "4k nodes: 2048 fits the item");
	/* levels */
	CHECK(btrfs_compress_parse("zstd", &t, &l) == 0 && t == BTRFS_COMPRESS_ZSTD && l == 3, "zstd");
	CHECK(btrfs_compress_parse("zstd:15", &t, &l) == 0 && l == 15, "zstd:15");
	CHECK(btrfs_compress_parse("zstd:16", &t, &l) == -EINVAL, "zstd:16");
	CHECK(btrfs_compress_parse("zlib:9", &t, &l) == 0 && t == BTRFS_COMPRESS_ZLIB && l == 9,
	      "zlib:9");
	CHECK(btrfs_compress_parse("zlib", &t, &l) == 0 && l == 3, "zlib default 3");
	CHECK(btrfs_compress_parse("zlib:0", &t, &l) == -EINVAL, "zlib:0");
	CHECK(btrfs_compress_parse("zlib:", &t, &l) == -EINVAL, "zlib:");
	CHECK(btrfs_compress_parse("lzo", &t, &l) == 0 && t == BTRFS_COMPRESS_LZO && l == 0, "lzo");
	CHECK(btrfs_compress_parse("lzo:1", &t, &l) == -EINVAL, "lzo has no levels");
	CHECK(btrfs_compress_parse("zst", &t, &l) == -EINVAL, "zst");
	CHECK(btrfs_compress_parse("zstdx", &t, &l) == -EINVAL, "zstdx");
}

/* ---- extents the kernel wrote ---- */

struct kfile {
	u64 ino, parent, size;
	char name[32];
};

struct kscan {
	struct btrfs_fs *fs;
	struct kfile f[32];
	int nr;
	int compressed[4], inline_compressed[4], plain, checked;
};

static struct kfile *kfile_get(struct kscan *k, u64 ino)
{
	for (int i = 0; i < k->nr; i++)
		if (k->f[i].ino == ino)
			return &k->f[i];
	if (k->nr == 32)
		return NULL;
	memset(&k->f[k->nr], 0, sizeof(k->f[0]));
	k->f[k->nr].ino = ino;
	return &k->f[k->nr++];
}

static int names_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct kscan *k = priv;
	struct kfile *f;

	if (key->type == BTRFS_INODE_ITEM_KEY && (f = kfile_get(k, key->objectid)))
		f->size = btrfs_inode_size((const struct btrfs_inode_item *)data);
	if (key->type == BTRFS_INODE_REF_KEY && len > sizeof(struct btrfs_inode_ref) &&
	    (f = kfile_get(k, key->objectid))) {
		const struct btrfs_inode_ref *r = data;
		u32 nl = btrfs_inode_ref_name_len(r);

		f->parent = key->offset;
		snprintf(f->name, sizeof(f->name), "%.*s", (int)nl, (const char *)(r + 1));
	}
	return 0;
}

/* The bytes file @f should have: ALG/big, ALG/small (text), ALG/rand */
static u8 *expected(struct kscan *k, const struct kfile *f)
{
	struct kfile *dir = kfile_get(k, f->parent);
	u8 *buf = calloc(1, f->size + 1);
	char name[80];

	if (!buf || !dir)
		return buf;
	if (!strcmp(f->name, "rand")) {
		gen_rand(12345, buf, f->size);
	} else {
		snprintf(name, sizeof(name), "%s-%s", dir->name, f->name);
		gen_text(name, buf, f->size);
	}
	return buf;
}

static int extents_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct kscan *k = priv;
	const struct btrfs_file_extent_item *fi = data;
	struct kfile *f;
	u8 type, *want, *disk = NULL, *back;
	u64 ram, off = key->offset;
	long d = -1;
	size_t in_len;

	if (key->type != BTRFS_EXTENT_DATA_KEY || !(f = kfile_get(k, key->objectid)))
		return 0;
	type = btrfs_file_extent_compression(fi);
	ram = btrfs_file_extent_ram_bytes(fi);
	if (type == BTRFS_COMPRESS_NONE) {
		k->plain++;
		return 0;
	}
	back = malloc(ram);
	want = expected(k, f);
	if (btrfs_file_extent_type(fi) == BTRFS_FILE_EXTENT_INLINE) {
		in_len = len - BTRFS_FILE_EXTENT_INLINE_DATA_START;
		d = btrfs_decompress(type, k->fs->sectorsize, btrfs_file_extent_inline_data(fi),
				     in_len, back, ram);
		k->inline_compressed[type]++;
	} else {
		in_len = btrfs_file_extent_disk_num_bytes(fi);
		disk = malloc(in_len);
		if (disk && !btrfs_read_logical(k->fs, btrfs_file_extent_disk_bytenr(fi), disk,
						 in_len, 1))
			d = btrfs_decompress(type, k->fs->sectorsize, disk, in_len, back, ram);
		k->compressed[type]++;
	}
	/* the file's bytes, then zeros up to ram_bytes */
	CHECK(d >= 0 && want, "%s/%s at %llu: decompress %ld", kfile_get(k, f->parent)->name,
	      f->name, (unsigned long long)off, d);
	if (d >= 0 && want) {
		u64 n = f->size - off < ram ? f->size - off : ram;
		bool zeros = true;

		for (u64 i = n; i < ram; i++)
			zeros &= back[i] == 0;
		CHECK(!memcmp(back, want + off, n) && zeros, "%s at %llu: %llu bytes differ",
		      f->name, (unsigned long long)off, (unsigned long long)n);
		k->checked++;
	}
	free(back);
	free(want);
	free(disk);
	return 0;
}

static void test_kernel_extents(void)
{
	const char *src = VOLCTL_SRCDIR "tests/fixtures/compress/kernel.img.zst";
	const char *img = tpath("kernel-compress.img");
	const struct btrfs_key min = { 0, 0, 0 };
	const struct btrfs_key max = { (u64)-1, (u8)-1, (u64)-1 };
	struct btrfs_io_dev *dev = NULL;
	char err[BTRFS_ERRMSG_SIZE] = "";
	struct kscan k;
	struct btrfs_root *root;
	int ret;

	memset(&k, 0, sizeof(k));
	ret = sh("zstd -q -d -f '%s' -o '%s'", src, img);
	CHECK(ret == 0, "%s: zstd %d", src, ret);
	if (ret)
		return;
	ret = open_files(&img, 1, &dev, &k.fs, err);
	CHECK(ret == 0, "open %s: %d %s", img, ret, err);
	if (ret)
		return;
	ret = btrfs_read_root(k.fs, BTRFS_FS_TREE_OBJECTID, &root);
	CHECK(ret == 0, "fs tree: %d", ret);
	if (!ret)
		ret = btrfs_iterate_items(root, &min, &max, names_cb, &k);
	if (!ret)
		ret = btrfs_iterate_items(root, &min, &max, extents_cb, &k);
	CHECK(ret == 0, "iterate: %d", ret);
	/* per algorithm: big in three extents, small inline; rand plain */
	for (size_t a = 0; a < sizeof(algs); a++) {
		CHECK(k.compressed[algs[a]] == 3, "%s: %d compressed extents",
		      btrfs_compress_name(algs[a]), k.compressed[algs[a]]);
		CHECK(k.inline_compressed[algs[a]] == 1, "%s: %d inline compressed",
		      btrfs_compress_name(algs[a]), k.inline_compressed[algs[a]]);
	}
	CHECK(k.plain == 3 && k.checked == 12, "%d plain, %d checked", k.plain, k.checked);
	btrfs_fs_close(k.fs);
	btrfs_io_close(dev);
	unlink(img);
}

int main(void)
{
	scratch_init();
	test_rules();
	test_round_trips();
	test_lzo_framing();
	test_kernel_extents();
	scratch_done();
	return report();
}
