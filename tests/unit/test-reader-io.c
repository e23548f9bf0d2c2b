// SPDX-License-Identifier: GPL-2.0-only
/*
 * The I/O layer and the extent buffer cache: device bounds and modes,
 * buffer refcounts, the LRU bound, dirty buffers, and a tree block written
 * back through btrfs_write_tree_block() to every DUP copy.
 */
#include <fcntl.h>
#include "reader-harness.h"

static void test_memory_dev(void)
{
	u8 buf[8192], out[16];
	struct btrfs_io_dev *dev;
	int ret;

	memset(buf, 0xab, sizeof(buf));
	ret = btrfs_io_open_memory(buf, sizeof(buf), true, true, &dev);
	CHECK(ret == 0 && dev->size == sizeof(buf), "open memory copy");
	CHECK(btrfs_io_read(dev, out, 16, 8176) == 0 && out[0] == 0xab, "read at the end");
	CHECK(btrfs_io_read(dev, out, 16, 8180) == -EIO, "read past the end");
	CHECK(btrfs_io_read(dev, out, 16, (u64)-8) == -EIO, "offset overflow");
	CHECK(btrfs_io_write(dev, "xy", 2, 0) == 0, "write to copy");
	CHECK(buf[0] == 0xab, "the caller's buffer is untouched in copy mode");
	CHECK(btrfs_io_read(dev, out, 2, 0) == 0 && !memcmp(out, "xy", 2), "read back");
	CHECK(btrfs_io_flush(dev) == 0, "flush");
	CHECK(btrfs_io_readahead(dev, 0, 1 << 20) == 0, "readahead on memory is a no-op");
	btrfs_io_close(dev);

	ret = btrfs_io_open_memory(buf, sizeof(buf), false, false, &dev);
	CHECK(ret == 0, "open memory in place");
	CHECK(btrfs_io_write(dev, "xy", 2, 0) == -EROFS, "read-only device refuses writes");
	btrfs_io_close(dev);
	btrfs_io_close(NULL);
}

static void test_file_dev(void)
{
	struct btrfs_io_dev *dev;
	const char *f = tpath("file");
	u8 out[4];
	int ret;

	CHECK(btrfs_io_open_file(tpath("missing"), false, &dev) == -ENOENT, "missing file");
	CHECK(btrfs_io_open_file("/proc/self", false, &dev) < 0, "a directory is refused");
	sh("printf 'abcdefgh' > '%s'", f);
	ret = btrfs_io_open_file(f, true, &dev);
	CHECK(ret == 0 && dev->size == 8, "file size %llu", ret ? 0ULL : (unsigned long long)dev->size);
	if (ret)
		return;
	CHECK(btrfs_io_read(dev, out, 4, 4) == 0 && !memcmp(out, "efgh", 4), "file read");
	CHECK(btrfs_io_read(dev, out, 4, 6) == -EIO, "file read past the end");
	CHECK(btrfs_io_write(dev, "WX", 2, 2) == 0 && btrfs_io_flush(dev) == 0, "file write");
	CHECK(btrfs_io_read(dev, out, 4, 0) == 0 && !memcmp(out, "abWX", 4), "file read back");
	CHECK(btrfs_io_readahead(dev, 0, 8) == 0 && btrfs_io_readahead(dev, 6, 100) == 0 &&
	      btrfs_io_readahead(dev, 100, 1) == 0, "readahead hints, clamped");
	btrfs_io_close(dev);
	{
		int fd = open(f, O_RDONLY);

		CHECK(btrfs_io_open_fd(fd, "fd", false, &dev) == 0 && dev->size == 8, "open fd");
		btrfs_io_close(dev);
		CHECK(fcntl(fd, F_GETFD) >= 0, "borrowed fd stays open");
		close(fd);
	}
}

static int count_blocks(void *priv, const struct extent_buffer *eb,
			const struct btrfs_walk_info *info)
{
	(*(u64 *)priv)++;
	return 0;
}

static void test_cache_and_write(void)
{
	char err[BTRFS_ERRMSG_SIZE];
	struct btrfs_open_args args = { 0 };
	struct btrfs_io_dev *dev;
	struct btrfs_fs *fs;
	struct extent_buffer *a, *b, *n;
	struct btrfs_io_stripe s1, s2;
	u64 blocks = 0, root_log;
	size_t size;
	u8 *img, *copy, orig_byte = 0;
	int ret;

	if (make_image("dup", 300, "-n 4096 -m dup") != 0) {
		CHECK(0, "mkfs");
		return;
	}
	img = load_file(tpath("dup"), &size);
	if (!img) {
		CHECK(0, "load");
		return;
	}
	btrfs_io_open_memory(img, size, false, true, &dev);
	args.devs = &dev;
	args.nr_devs = 1;
	args.super_mirror = BTRFS_SUPER_PRIMARY;
	args.writable = true;
	args.cache_blocks = 3;
	args.errmsg = err;
	ret = btrfs_fs_open(&fs, &args);
	CHECK(ret == 0, "open writable: %d %s", ret, err);
	if (ret)
		goto out;
	/* the extent tree's root block: not referenced by a loaded root yet */
	{
		struct btrfs_key k = { BTRFS_EXTENT_TREE_OBJECTID, BTRFS_ROOT_ITEM_KEY, 0 };
		struct btrfs_root_item ri;
		u32 len;

		memset(&ri, 0, sizeof(ri));
		ret = btrfs_lookup_item(fs->tree_root, &k, &ri, sizeof(ri), &len);
		CHECK(ret == 0 && len == sizeof(ri), "lookup extent root item: %d", ret);
		root_log = btrfs_root_bytenr(&ri);
	}
	CHECK(btrfs_read_tree_block(fs, root_log, NULL, &a) == 0, "read root tree block");
	CHECK(btrfs_read_tree_block(fs, root_log, NULL, &b) == 0 && a == b && a->refs == 2,
	      "cached: same buffer, refs %d", b->refs);
	free_extent_buffer(b);
	CHECK(btrfs_alloc_tree_block_buffer(fs, root_log, &n) == -EEXIST,
	      "no new buffer over a referenced one");

	/* change a byte in the leaf's free space and write both copies */
	copy = malloc(fs->nodesize);
	memcpy(copy, a->data, fs->nodesize);
	free_extent_buffer(a);
	ret = btrfs_alloc_tree_block_buffer(fs, root_log, &n);
	CHECK(ret == 0, "alloc over a clean cached block: %d", ret);
	if (ret == 0) {
		memcpy(n->data, copy, fs->nodesize);
		orig_byte = n->data[fs->nodesize / 2];
		n->data[fs->nodesize / 2] ^= 0x5a;	/* free space between headers and data */
		btrfs_mark_buffer_dirty(n);
		ret = btrfs_write_tree_block(fs, n);
		CHECK(ret == 0 && !(n->flags & EXTENT_BUFFER_DIRTY), "write tree block: %d", ret);
		free_extent_buffer(n);
	}
	free(copy);
	ret = btrfs_walk_all_trees(fs, false, count_blocks, &blocks);
	CHECK(ret == 0 && blocks > 8, "walk %d, %llu blocks", ret, (unsigned long long)blocks);
	CHECK(fs->cache.nr_clean_unused <= 3, "LRU bounded: %u", fs->cache.nr_clean_unused);
	/* evicted buffers wait on the free list for the next read (malloc under ASan) */
	CHECK(fs->cache.nr_slabs == 0 || fs->cache.free_bufs != NULL,
	      "evicted buffers reused: %u slabs, free list %p", fs->cache.nr_slabs,
	      (void *)fs->cache.free_bufs);
	{
		u32 slabs = fs->cache.nr_slabs;
		u64 again = 0;

		ret = btrfs_walk_all_trees(fs, false, count_blocks, &again);
		CHECK(ret == 0 && again == blocks && fs->cache.nr_slabs == slabs,
		      "a second walk: %llu blocks, %u slabs (was %u)",
		      (unsigned long long)again, fs->cache.nr_slabs, slabs);
	}
	/* a lower limit trims the LRU at once, never a referenced block; the old one comes back */
	{
		u32 before = fs->cache.nr_clean_unused, old;

		CHECK(btrfs_read_tree_block(fs, root_log, NULL, &a) == 0, "read root tree block again");
		old = btrfs_eb_cache_set_limit(fs, 0);
		CHECK(before == 3 && old == 3 && fs->cache.nr_clean_unused == 0,
		      "limit 0: %u kept of %u (old limit %u)", fs->cache.nr_clean_unused, before, old);
		free_extent_buffer(a);
		CHECK(fs->cache.nr_clean_unused == 0, "a block let go under limit 0 goes: %u",
		      fs->cache.nr_clean_unused);
		CHECK(btrfs_eb_cache_set_limit(fs, old) == 0 && fs->cache.max_clean == 3,
		      "limit restored: %u", fs->cache.max_clean);
	}
	{
		size_t pinned = 0;
		struct btrfs_root *r5;

		for (size_t i = 0; i < fs->nr_roots; i++)
			pinned += fs->roots[i]->node != NULL;
		CHECK(fs->nr_roots > 5 && pinned == 2, "after the walk %zu of %zu roots pin a block",
		      pinned, fs->nr_roots);
		CHECK(btrfs_read_root(fs, BTRFS_FS_TREE_OBJECTID, &r5) == 0 && r5->node,
		      "read_root reloads a dropped node");
	}


	/* a dirty buffer survives until dropped */
	{
		u64 spot = root_log + 64 * 4096ULL;
		u32 before;

		if (btrfs_alloc_tree_block_buffer(fs, spot, &n) == 0) {
			btrfs_mark_buffer_dirty(n);
			before = fs->cache.nr;
			free_extent_buffer(n);
			CHECK(fs->cache.nr == before, "dirty buffer kept after its last ref");
			btrfs_eb_cache_drop_dirty(fs);
			CHECK(fs->cache.nr == before - 1, "drop_dirty frees it");
		} else {
			CHECK(0, "alloc at a free spot");
		}
	}
	CHECK(btrfs_map_block(fs, root_log, fs->nodesize, 1, &s1) == 0 &&
	      btrfs_map_block(fs, root_log, fs->nodesize, 2, &s2) == 0 && s1.physical != s2.physical,
	      "two DUP copies");
	btrfs_fs_close(fs);
	btrfs_io_close(dev);
	if (ret)
		goto out;
	CHECK(!memcmp(img + s1.physical, img + s2.physical, 4096), "both copies written alike");
	CHECK(img[s1.physical + 2048] == (u8)(orig_byte ^ 0x5a), "the change reached the disk");
	/* reopen read-only: the rewritten block verifies on both mirrors */
	btrfs_io_open_memory(img, size, false, false, &dev);
	ret = btrfs_fs_open(&fs, &args);
	CHECK(ret == -EINVAL && strstr(err, "opened read-only"), "writable open of a read-only device: %d %s",
	      ret, err);
	args.writable = false;
	ret = btrfs_fs_open(&fs, &args);
	CHECK(ret == 0, "reopen: %d %s", ret, err);
	if (!ret) {
		blocks = 0;
		ret = btrfs_walk_all_trees(fs, false, count_blocks, &blocks);
		CHECK(ret == 0, "walk after write: %d %s", ret, btrfs_fs_error(fs));
		img[s1.physical + 100] ^= 1;	/* break copy 1: copy 2 must verify too */
		btrfs_fs_close(fs);
		ret = btrfs_fs_open(&fs, &args);
		CHECK(ret == 0, "second copy verifies: %d %s", ret, err);
		if (!ret)
			btrfs_fs_close(fs);
	}
	btrfs_io_close(dev);
out:
	free(img);
}

static int open_on(struct btrfs_io_dev *dev, bool writable, struct btrfs_fs **fs, char *err)
{
	struct btrfs_open_args args = { 0 };

	args.devs = &dev;
	args.nr_devs = 1;
	args.super_mirror = BTRFS_SUPER_PRIMARY;
	args.writable = writable;
	args.errmsg = err;
	return btrfs_fs_open(fs, &args);
}

/* Bad sectors make the reader use the other copy; failed or lost writes */
static void test_faults(void)
{
	char err[BTRFS_ERRMSG_SIZE];
	struct btrfs_io_fault f = { 0 };
	struct btrfs_io_dev *mem, *dev;
	struct btrfs_io_stripe s1, s2;
	struct btrfs_fs *fs;
	struct extent_buffer *eb;
	u64 root_log;
	size_t size;
	u8 *img;
	int ret;

	img = load_file(tpath("dup"), &size);
	if (!img) {
		CHECK(0, "load dup image");
		return;
	}
	btrfs_io_open_memory(img, size, false, true, &mem);
	btrfs_io_open_fault(mem, &f, &dev);
	ret = open_on(dev, false, &fs, err);
	CHECK(ret == 0 && f.reads > 0 && !f.faults, "open through the fault device: %d %s", ret, err);
	if (ret)
		goto out;
	root_log = btrfs_super_root(&fs->super);
	btrfs_map_block(fs, root_log, fs->nodesize, 1, &s1);
	btrfs_map_block(fs, root_log, fs->nodesize, 2, &s2);
	btrfs_fs_close(fs);

	f.read_off = s1.physical + 100;
	f.read_len = 1;
	ret = open_on(dev, false, &fs, err);
	CHECK(ret == 0 && f.faults == 1, "bad sector in copy 1: %d faults %llu %s", ret,
	      (unsigned long long)f.faults, err);
	if (!ret)
		btrfs_fs_close(fs);
	f.read_off = s1.physical < s2.physical ? s1.physical : s2.physical;
	f.read_len = (s1.physical > s2.physical ? s1.physical : s2.physical) + 1 - f.read_off;
	ret = open_on(dev, false, &fs, err);
	CHECK(ret == -EIO && strstr(err, "cannot read") && strstr(err, "(mirror 1)"),
	      "both copies unreadable: %d %s", ret, err);
	f.read_len = 0;

	/* writes: the second copy fails, or is lost */
	ret = open_on(dev, true, &fs, err);
	CHECK(ret == 0, "open writable: %d %s", ret, err);
	if (ret)
		goto out;
	ret = btrfs_read_tree_block(fs, root_log, NULL, &eb);
	CHECK(ret == 0, "read the root tree block");
	if (!ret) {
		u8 before = img[s2.physical + 2048];

		f.writes = 0;
		f.write_limit = 1;
		eb->data[2048] ^= 0x11;
		ret = btrfs_write_tree_block(fs, eb);
		CHECK(ret == -EIO && strstr(btrfs_fs_error(fs), "cannot write"),
		      "second copy fails: %d %s", ret, btrfs_fs_error(fs));
		CHECK(img[s1.physical + 2048] == (u8)(before ^ 0x11) &&
		      img[s2.physical + 2048] == before, "only copy 1 changed");
		f.writes = 0;
		f.drop_writes = true;
		eb->data[2048] ^= 0x22;
		ret = btrfs_write_tree_block(fs, eb);
		CHECK(ret == 0 && img[s2.physical + 2048] == before, "a dropped write is silent: %d",
		      ret);
		f.write_limit = 0;
		eb->data[2048] ^= 0x33;	/* back to the original byte */
		CHECK(btrfs_write_tree_block(fs, eb) == 0 && img[s1.physical + 2048] == before &&
		      img[s2.physical + 2048] == before, "unlimited writes restore both copies");
		free_extent_buffer(eb);
	}
	btrfs_fs_close(fs);
	ret = open_on(dev, false, &fs, err);
	CHECK(ret == 0, "image readable after the write tests: %d %s", ret, err);
	if (!ret)
		btrfs_fs_close(fs);
out:
	btrfs_io_close(dev);
	btrfs_io_close(mem);
	free(img);
}

/*
 * The O_DIRECT device (io-direct.c): unaligned ranges through the bounce
 * buffer, aligned ones straight, reads longer than the bounce buffer,
 * read-ahead windows (a read inside one is served from it, so a later
 * change of the file is not seen there, as the page cache would not), the
 * end of the device, and writes refused.
 */
static void test_direct_dev(void)
{
	const size_t size = (3u << 20) + 1234;	/* not a multiple of 4096 */
	struct btrfs_io_dev *dev;
	const char *f = tpath("direct");
	u8 *want = malloc(size), *got = malloc(size);
	bool same = true;
	FILE *fp;
	int ret;

	if (!want || !got)
		goto out;
	for (size_t i = 0; i < size; i++)
		want[i] = (u8)(i * 7 + i / 4096);
	fp = fopen(f, "w");
	CHECK(fp && fwrite(want, 1, size, fp) == size && fclose(fp) == 0, "write %s", f);
	CHECK(btrfs_io_open_direct(tpath("missing"), &dev) == -ENOENT, "direct: missing file");
	ret = btrfs_io_open_direct(f, &dev);
	CHECK(ret == 0 && dev->size == size, "direct: open, size");
	if (ret)
		goto out;
	CHECK(btrfs_io_read(dev, got, 4096, 8192) == 0 && !memcmp(got, want + 8192, 4096),
	      "direct: aligned read");
	CHECK(btrfs_io_read(dev, got + 1, 5000, 4097) == 0 && !memcmp(got + 1, want + 4097, 5000),
	      "direct: unaligned buffer, offset and length");
	CHECK(btrfs_io_read(dev, got, size, 0) == 0 && !memcmp(got, want, size),
	      "direct: the whole device, longer than the bounce buffer, unaligned tail");
	CHECK(btrfs_io_read(dev, got, 10, size - 10) == 0 && !memcmp(got, want + size - 10, 10),
	      "direct: the last bytes");
	CHECK(btrfs_io_read(dev, got, 11, size - 10) == -EIO, "direct: past the end");
	CHECK(btrfs_io_write(dev, "x", 1, 0) == -EROFS, "direct: read-only");
	/* a window, then the file changes under it: reads inside it keep what it held */
	CHECK(btrfs_io_readahead(dev, 65536 + 100, 16384) == 0, "direct: readahead");
	sh("printf 'ZZZZ' | dd of='%s' bs=1 seek=%d conv=notrunc status=none", f, 65536 + 200);
	CHECK(btrfs_io_read(dev, got, 16384, 65536 + 100) == 0 &&
	      !memcmp(got, want + 65536 + 100, 16384), "direct: a read inside the window");
	CHECK(btrfs_io_read(dev, got, 4, 65536 + 200 + 16384) == 0 &&
	      !memcmp(got, want + 65536 + 200 + 16384, 4), "direct: beside the window");
	/* four more hints replace it: the disk is read again */
	for (int i = 1; i <= 4; i++)
		btrfs_io_readahead(dev, (u64)i * 700000, 4096);
	CHECK(btrfs_io_read(dev, got, 4, 65536 + 200) == 0 && !memcmp(got, "ZZZZ", 4),
	      "direct: the window replaced, the disk read");
	for (size_t i = 0; i + 16384 <= size && same; i += 16384 - 1)
		same = !btrfs_io_read(dev, got, 16384, i) && (i > 65536 + 203 || i + 16384 <= 65536 + 200 ?
			!memcmp(got, want + i, 16384) : true);
	CHECK(same, "direct: overlapping unaligned reads across the device");
	btrfs_io_close(dev);
out:
	free(want);
	free(got);
}

/* Wait (at most 10 s) until the worker has read every range hinted */
static bool prefetch_settle(struct btrfs_io_dev *dev, struct btrfs_io_prefetch_stats *st)
{
	for (int i = 0; i < 10000; i++) {
		btrfs_io_prefetch_stats_get(dev, st);
		if (st->read + st->dropped >= st->hinted)
			return true;
		usleep(1000);
	}
	return false;
}

static void test_prefetch_on(struct btrfs_io_dev *dev, const u8 *want, size_t size, const char *what)
{
	struct btrfs_io_prefetch_stats st;
	u8 *got = aligned_alloc(4096, 65536);
	bool same = true;
	int ret;

	CHECK(got != NULL, "%s: buffer", what);
	if (!got)
		return;
	ret = btrfs_io_prefetch_start(dev);
	CHECK(ret == 0 && dev->prefetch, "%s: prefetch starts", what);
	if (ret)
		goto out;
	/* eight blocks hinted, then read: each from its slot, byte for byte */
	for (int i = 0; i < 8; i++)
		btrfs_io_prefetch(dev, (u64)i * 16384 * 3, 16384);
	btrfs_io_prefetch(dev, 0, 16384);	/* hinted twice: one slot */
	CHECK(prefetch_settle(dev, &st) && st.hinted == 8 && st.read == 8, "%s: 8 ranges read ahead",
	      what);
	for (int i = 0; i < 8; i++)
		same &= !btrfs_io_read(dev, got, 16384, (u64)i * 16384 * 3) &&
			!memcmp(got, want + (size_t)i * 16384 * 3, 16384);
	btrfs_io_prefetch_stats_get(dev, &st);
	CHECK(same && st.hits == 8, "%s: the reads came from the slots (%llu hits)", what,
	      (unsigned long long)st.hits);
	/* a slot serves a read inside it once, then the disk is read */
	btrfs_io_prefetch(dev, 65536, 16384);
	prefetch_settle(dev, &st);
	CHECK(btrfs_io_read(dev, got, 4096, 65536 + 8192) == 0 && !memcmp(got, want + 65536 + 8192, 4096),
	      "%s: a read inside a slot", what);
	CHECK(btrfs_io_read(dev, got, 4096, 65536 + 4096) == 0 && !memcmp(got, want + 65536 + 4096, 4096),
	      "%s: the same slot again: from the device", what);
	/* a range longer than a slot goes to the device's read-ahead */
	btrfs_io_prefetch_stats_get(dev, &st);
	btrfs_io_prefetch(dev, 0, 1 << 20);
	btrfs_io_prefetch(dev, size, 16384);	/* beyond the end: ignored */
	{
		struct btrfs_io_prefetch_stats st2;

		btrfs_io_prefetch_stats_get(dev, &st2);
		CHECK(st2.hinted == st.hinted, "%s: long and out-of-range hints queue nothing", what);
	}
	/* nested users: the worker runs until the last stops */
	CHECK(btrfs_io_prefetch_start(dev) == 0, "%s: a second user", what);
	btrfs_io_prefetch_stop(dev, NULL);
	CHECK(dev->prefetch != NULL, "%s: still running for the first", what);
	btrfs_io_prefetch_stop(dev, &st);
	CHECK(dev->prefetch == NULL && st.read >= 9, "%s: stopped, counters returned", what);
out:
	free(got);
}

static void test_prefetch(void)
{
	const size_t size = 1u << 20;
	struct btrfs_io_prefetch_stats st;
	struct btrfs_io_dev *dev;
	const char *f = tpath("prefetch");
	u8 *want = malloc(size), *got = aligned_alloc(4096, 16384), mem[4096];
	FILE *fp;
	int ret;

	if (!want || !got)
		goto out;
	for (size_t i = 0; i < size; i++)
		want[i] = (u8)(i * 13 + i / 4096);
	fp = fopen(f, "w");
	CHECK(fp && fwrite(want, 1, size, fp) == size && fclose(fp) == 0, "write %s", f);

	CHECK(btrfs_io_open_memory(mem, sizeof(mem), false, false, &dev) == 0, "memory device");
	CHECK(btrfs_io_prefetch_start(dev) == -EOPNOTSUPP && !dev->prefetch,
	      "no prefetch worker on a memory device");
	btrfs_io_prefetch(dev, 0, 4096);	/* a hint without a worker: nothing */
	btrfs_io_close(dev);

	ret = btrfs_io_open_file(f, true, &dev);
	CHECK(ret == 0, "file device");
	if (ret == 0) {
		CHECK(btrfs_io_prefetch_start(dev) == -EOPNOTSUPP && !dev->prefetch,
		      "no prefetch worker on a file unless asked for");
		dev->prefetch_workers = 1;
		test_prefetch_on(dev, want, size, "file");
		/* a write drops the slots it overlaps: the new bytes are read */
		CHECK(btrfs_io_prefetch_start(dev) == 0, "file: start again");
		btrfs_io_prefetch(dev, 16384, 16384);
		prefetch_settle(dev, &st);
		CHECK(btrfs_io_write(dev, "NEW!", 4, 16384 + 100) == 0, "file: write over a slot");
		CHECK(btrfs_io_read(dev, got, 16384, 16384) == 0 && !memcmp(got + 100, "NEW!", 4) &&
		      !memcmp(got, want + 16384, 100), "file: the read after the write sees it");
		btrfs_io_prefetch_stats_get(dev, &st);
		CHECK(st.hits == 0, "file: the dropped slot served nothing");
		/* a failed read ahead: the caller's own read reports the error */
		dev->size += 65536;	/* the device claims more than the file holds */
		btrfs_io_prefetch(dev, size + 16384, 16384);
		prefetch_settle(dev, &st);
		CHECK(st.read == 2, "file: the worker tried the range past the file");
		CHECK(btrfs_io_read(dev, got, 16384, size + 16384) == -EIO,
		      "file: the read past the file fails as without the worker");
		dev->size -= 65536;
		btrfs_io_close(dev);	/* closes a running worker */
	}
	ret = btrfs_io_open_direct(f, &dev);
	CHECK(ret == 0, "direct device");
	if (ret == 0) {
		test_prefetch_on(dev, want, size, "direct");
		btrfs_io_close(dev);
	}
out:
	free(want);
	free(got);
}

int main(void)
{
	scratch_init();
	test_memory_dev();
	test_file_dev();
	test_direct_dev();
	test_prefetch();
	test_cache_and_write();
	test_faults();
	scratch_done();
	return report();
}
