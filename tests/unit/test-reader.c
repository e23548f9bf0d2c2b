// SPDX-License-Identifier: GPL-2.0-only
/*
 * Offline reader on valid images: mkfs.btrfs builds images of many shapes
 * (node sizes, checksum types, profiles, devices, feature sets, a filled fs
 * tree), the reader opens them and walks every tree, and the per-tree
 * block and item counts must equal what `btrfs inspect-internal dump-tree`
 * prints.  Also: search, next/prev, the item source, and multi-device
 * images read with a device missing.
 */
#include "reader-harness.h"

static void test_image_post(const char *label, const char *opts, int size_mb, bool oracle,
			    const char *post);

static void test_image(const char *label, const char *opts, int size_mb, bool oracle)
{
	test_image_post(label, opts, size_mb, oracle, NULL);
}

static void test_image_post(const char *label, const char *opts, int size_mb, bool oracle,
			    const char *post)
{
	char err[BTRFS_ERRMSG_SIZE];
	const char *img = tpath("img");
	struct btrfs_io_dev *dev = NULL;
	struct btrfs_fs *fs = NULL;
	struct stats s;
	int ret;

	ret = make_image("img", size_mb, opts);
	CHECK(ret == 0, "%s: mkfs.btrfs %s failed", label, opts);
	if (ret)
		return;
	if (post) {
		ret = sh("%s '%s' </dev/null >/dev/null 2>&1", post, img);
		CHECK(ret == 0, "%s: %s failed", label, post);
		if (ret)
			return;
	}
	ret = open_files(&img, 1, &dev, &fs, err);
	CHECK(ret == 0, "%s: open: %d %s", label, ret, err);
	if (ret)
		return;
	ret = walk_stats(fs, &s);
	CHECK(ret == 0, "%s: walk: %d %s", label, ret, btrfs_fs_error(fs));
	CHECK(s.nr >= 8, "%s: %d trees", label, s.nr);
	if (post && strstr(post, "btrfstune -m"))
		CHECK(btrfs_fs_has_incompat(fs, BTRFS_FEATURE_INCOMPAT_METADATA_UUID) &&
		      memcmp(fs->fsid, fs->metadata_uuid, BTRFS_FSID_SIZE),
		      "%s: metadata_uuid in use", label);
	if (oracle)
		compare_with_dump_tree(label, img, &s);
	btrfs_fs_close(fs);
	btrfs_io_close(dev);
}

/* Every item forward with next, backward with prev: same keys, reversed */
static void test_next_prev(struct btrfs_fs *fs, u64 tree_id)
{
	struct btrfs_key *keys = NULL;
	struct btrfs_key zero = { 0, 0, 0 }, k;
	struct btrfs_root *root;
	struct btrfs_path path;
	size_t nr = 0, alloc = 0, i;
	int ret;

	ret = btrfs_read_root(fs, tree_id, &root);
	CHECK(ret == 0, "read root %llu: %d", (unsigned long long)tree_id, ret);
	if (ret)
		return;
	btrfs_path_init(&path);
	ret = btrfs_search_slot(NULL, root, &zero, &path, 0, 0);
	CHECK(ret >= 0, "search: %d", ret);
	for (ret = btrfs_valid_slot(root, &path); ret == 0; ret = btrfs_next_item(root, &path)) {
		if (nr == alloc) {
			alloc = alloc ? alloc * 2 : 1024;
			keys = realloc(keys, alloc * sizeof(*keys));
		}
		btrfs_path_item_key(&path, &keys[nr++]);
	}
	CHECK(ret == 1, "forward iteration ended with %d: %s", ret, btrfs_fs_error(fs));
	CHECK(nr > 100, "only %zu items in tree %llu", nr, (unsigned long long)tree_id);
	for (i = 1; i < nr; i++)
		if (btrfs_key_cmp(&keys[i - 1], &keys[i]) >= 0)
			break;
	CHECK(i == nr, "keys not increasing at %zu", i);
	/* the path now sits past the end: walk back */
	btrfs_path_release(&path);
	k = keys[nr - 1];
	ret = btrfs_search_slot(NULL, root, &k, &path, 0, 0);
	CHECK(ret == 0, "search last key: %d", ret);
	i = nr - 1;
	for (;;) {
		btrfs_path_item_key(&path, &k);
		if (btrfs_key_cmp(&k, &keys[i]))
			break;
		if (i == 0)
			break;
		i--;
		ret = btrfs_prev_item(root, &path);
		if (ret)
			break;
	}
	CHECK(i == 0 && !btrfs_key_cmp(&k, &keys[0]), "backward iteration stopped at %zu", i);
	CHECK(btrfs_prev_item(root, &path) == 1, "prev before the first item");
	btrfs_path_release(&path);
	/* every key found exactly; a key just above each one is not */
	for (i = 0; i < nr; i += 7) {
		struct btrfs_key above = keys[i];

		ret = btrfs_search_slot(NULL, root, &keys[i], &path, 0, 0);
		if (ret != 0)
			break;
		btrfs_path_item_key(&path, &k);
		if (btrfs_key_cmp(&k, &keys[i]))
			break;
		above.offset++;
		if (above.offset && (i + 1 == nr || btrfs_key_cmp(&above, &keys[i + 1]))) {
			ret = btrfs_search_slot(NULL, root, &above, &path, 0, 0);
			if (ret != 1)
				break;
			ret = btrfs_valid_slot(root, &path);
			if (ret == 0) {
				btrfs_path_item_key(&path, &k);
				if (i + 1 < nr && btrfs_key_cmp(&k, &keys[i + 1]))
					break;
			}
		}
	}
	CHECK(i >= nr, "search mismatch at item %zu", i);
	btrfs_path_release(&path);
	free(keys);
}

struct range_count {
	u64 n;
	struct btrfs_key last;
	int stop_after;
};

static int range_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct range_count *rc = priv;

	rc->n++;
	rc->last = *key;
	if (rc->stop_after && rc->n == (u64)rc->stop_after)
		return 1;
	return 0;
}

static void test_item_source(struct btrfs_fs *fs)
{
	struct btrfs_item_source src = btrfs_fs_item_source(fs);
	struct btrfs_key min = { 256, 0, 0 }, max = { 256, 0xff, (u64)-1 };
	struct btrfs_key all_min = { 0, 0, 0 }, all_max = { (u64)-1, 0xff, (u64)-1 };
	struct range_count rc = { 0 };
	int ret;

	ret = btrfs_item_source_search(&src, BTRFS_FS_TREE_OBJECTID, &min, &max, range_cb, &rc);
	CHECK(ret == 0, "item source on tree 5: %d", ret);
	CHECK(rc.n > 2, "root dir has %llu items", (unsigned long long)rc.n);
	CHECK(rc.last.objectid == 256, "range overshoot to %llu", (unsigned long long)rc.last.objectid);
	memset(&rc, 0, sizeof(rc));
	rc.stop_after = 3;
	ret = btrfs_item_source_search(&src, BTRFS_FS_TREE_OBJECTID, &all_min, &all_max, range_cb,
				       &rc);
	CHECK(ret == 0 && rc.n == 3, "early stop: %d after %llu", ret, (unsigned long long)rc.n);
	ret = btrfs_item_source_search(&src, BTRFS_QUOTA_TREE_OBJECTID, &all_min, &all_max,
				       range_cb, &rc);
	CHECK(ret == -ENOENT, "missing quota tree: %d", ret);
	ret = btrfs_item_source_search(&src, 4242, &all_min, &all_max, range_cb, &rc);
	CHECK(ret == -ENOENT, "missing tree 4242: %d", ret);
}

static void test_filled(void)
{
	char err[BTRFS_ERRMSG_SIZE];
	const char *img = tpath("img");
	struct btrfs_io_dev *dev = NULL;
	struct btrfs_fs *fs = NULL;
	struct stats s;
	struct btrfs_root *root;
	int ret;

	ret = sh("mkdir -p '%s' && cd '%s' && for i in $(seq 1 3000); do echo $i > file-$i; done && "
		 "mkdir sub && head -c 3M /dev/urandom > sub/big", tpath("root"), tpath("root"));
	CHECK(ret == 0, "populate rootdir");
	ret = sh("rm -f '%s' && truncate -s 300M '%s' && mkfs.btrfs -q -f -n 4096 -m single --rootdir '%s' '%s' >/dev/null 2>&1",
		 img, img, tpath("root"), img);
	CHECK(ret == 0, "mkfs --rootdir");
	if (ret)
		return;
	ret = open_files(&img, 1, &dev, &fs, err);
	CHECK(ret == 0, "open filled image: %d %s", ret, err);
	if (ret)
		return;
	ret = walk_stats(fs, &s);
	CHECK(ret == 0, "walk filled: %d %s", ret, btrfs_fs_error(fs));
	compare_with_dump_tree("filled-4k", img, &s);
	ret = btrfs_read_root(fs, BTRFS_FS_TREE_OBJECTID, &root);
	CHECK(ret == 0 && btrfs_eb_level(root->node) >= 2, "fs tree level %d",
	      ret ? -1 : btrfs_eb_level(root->node));
	test_next_prev(fs, BTRFS_FS_TREE_OBJECTID);
	test_next_prev(fs, BTRFS_EXTENT_TREE_OBJECTID);
	test_item_source(fs);
	btrfs_fs_close(fs);
	btrfs_io_close(dev);

	/* a tiny cache must give the same answers */
	{
		struct btrfs_open_args args = { 0 };
		struct stats s2;

		ret = btrfs_io_open_file(img, false, &dev);
		args.devs = &dev;
		args.nr_devs = 1;
		args.super_mirror = BTRFS_SUPER_PRIMARY;
		args.cache_blocks = 2;
		args.errmsg = err;
		ret = btrfs_fs_open(&fs, &args);
		CHECK(ret == 0, "open with 2-block cache: %d %s", ret, err);
		if (!ret) {
			ret = walk_stats(fs, &s2);
			CHECK(ret == 0 && s2.nr == s.nr && !memcmp(&s, &s2, sizeof(s)),
			      "walk with tiny cache differs: %d", ret);
			test_next_prev(fs, BTRFS_FS_TREE_OBJECTID);
			btrfs_fs_close(fs);
		}
		btrfs_io_close(dev);
	}
}

/* Devices @n with profile @opts; read with all and with each one missing */
static void test_multi(const char *label, int n, const char *opts, bool redundant)
{
	char names[4][32], cmd[2048], err[BTRFS_ERRMSG_SIZE];
	const char *paths[4];
	struct btrfs_io_dev *devs[4] = { 0 };
	struct btrfs_fs *fs;
	struct stats all, part;
	size_t len = 0;
	int ret;

	for (int i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "dev%d", i);
		paths[i] = strdup(tpath(names[i]));
		sh("rm -f '%s' && truncate -s 300M '%s'", paths[i], paths[i]);
		len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, " '%s'", paths[i]);
	}
	ret = sh("mkfs.btrfs -q -f %s %s >/dev/null 2>&1", opts, cmd);
	CHECK(ret == 0, "%s: mkfs failed", label);
	if (ret)
		goto out;
	ret = open_files(paths, (size_t)n, devs, &fs, err);
	CHECK(ret == 0, "%s: open: %d %s", label, ret, err);
	if (ret)
		goto out;
	ret = walk_stats(fs, &all);
	CHECK(ret == 0, "%s: walk: %d %s", label, ret, btrfs_fs_error(fs));
	CHECK(fs->nr_devices == (size_t)n, "%s: %zu devices", label, fs->nr_devices);

	btrfs_fs_close(fs);
	for (int i = 0; i < n; i++)
		btrfs_io_close(devs[i]);
	if (!redundant) {
		/* without its second device a striped filesystem cannot be read */
		ret = open_files(paths, 1, devs, &fs, err);
		if (ret == 0) {
			ret = walk_stats(fs, &part);
			snprintf(err, sizeof(err), "%s", btrfs_fs_error(fs));
			btrfs_fs_close(fs);
			btrfs_io_close(devs[0]);
		}
		CHECK(ret < 0 && strstr(err, "is missing"), "%s with one device: %d '%s'", label,
		      ret, err);
		goto out;
	}
	for (int miss = 0; miss < n; miss++) {
		const char *sub[4];
		int k = 0;

		for (int i = 0; i < n; i++)
			if (i != miss)
				sub[k++] = paths[i];
		ret = open_files(sub, (size_t)k, devs, &fs, err);
		CHECK(ret == 0, "%s without dev %d: open: %d %s", label, miss, ret, err);
		if (ret)
			continue;
		ret = walk_stats(fs, &part);
		CHECK(ret == 0 && !memcmp(&all, &part, sizeof(all)),
		      "%s without dev %d: walk %d %s", label, miss, ret, btrfs_fs_error(fs));
		btrfs_fs_close(fs);
		for (int i = 0; i < k; i++)
			btrfs_io_close(devs[i]);
	}
out:
	for (int i = 0; i < n; i++)
		free((void *)paths[i]);
}

static int open_mirror(const char *img, int mirror, int *used, char *err)
{
	struct btrfs_open_args args = { 0 };
	struct btrfs_io_dev *dev;
	struct btrfs_fs *fs;
	struct stats st;
	int ret;

	ret = btrfs_io_open_file(img, false, &dev);
	if (ret < 0)
		return ret;
	args.devs = &dev;
	args.nr_devs = 1;
	args.super_mirror = mirror;
	args.errmsg = err;
	ret = btrfs_fs_open(&fs, &args);
	if (!ret) {
		*used = fs->super_mirror;
		ret = walk_stats(fs, &st);
		btrfs_fs_close(fs);
	}
	btrfs_io_close(dev);
	return ret;
}

/* A sparse 257 GiB image has all three superblock copies */
static void test_three_mirrors(void)
{
	char err[BTRFS_ERRMSG_SIZE];
	const char *img = tpath("big");
	int used = -1, ret;

	ret = sh("rm -f '%s' && truncate -s 257G '%s' && mkfs.btrfs -q -f -K '%s' >/dev/null 2>&1",
		 img, img, img);
	CHECK(ret == 0, "mkfs on a 257 GiB sparse file");
	if (ret)
		return;
	for (int m = 0; m < 3; m++) {
		ret = open_mirror(img, m, &used, err);
		CHECK(ret == 0 && used == m, "forced mirror %d: %d used %d %s", m, ret, used, err);
	}
	/* break copies 0 and 1: the primary fails (no fall back), 2 named works, 1 fails */
	sh("printf 'XX' | dd of='%s' bs=1 seek=%llu conv=notrunc 2>/dev/null", img, 65536ULL + 64);
	sh("printf 'XX' | dd of='%s' bs=1 seek=%llu conv=notrunc 2>/dev/null", img,
	   (64ULL << 20) + 100);
	ret = open_mirror(img, BTRFS_SUPER_PRIMARY, &used, err);
	CHECK(ret == -EUCLEAN && strstr(err, "mirror 0: bad magic"),
	      "primary broken, no fall back: %d %s", ret, err);
	ret = open_mirror(img, 2, &used, err);
	CHECK(ret == 0 && used == 2, "copies 0 and 1 broken, mirror 2 named: %d used %d %s", ret,
	      used, err);
	{
		struct btrfs_super_copy c[BTRFS_SUPER_MIRROR_MAX];
		struct btrfs_io_dev *dev;
		int nr = -1;

		if (btrfs_io_open_file(img, false, &dev) == 0) {
			nr = btrfs_super_read_copies(dev, NULL, c);
			btrfs_io_close(dev);
		}
		CHECK(nr == 3 && c[0].finding == BTRFS_SUPER_PRIMARY_BAD && !c[1].valid &&
		      c[2].valid, "three copies read: %d %d %d %d", nr, c[0].finding, c[1].valid,
		      c[2].valid);
	}
	ret = open_mirror(img, 1, &used, err);
	CHECK(ret == -EUCLEAN && strstr(err, "mirror 1: checksum mismatch"),
	      "forced broken mirror 1: %d %s", ret, err);
	sh("rm -f '%s'", img);
}

int main(void)
{
	scratch_init();
	test_image("default", "", 300, true);
	test_image("nodesize-4k", "-n 4096", 300, true);
	test_image("nodesize-64k", "-n 65536", 300, true);
	test_image("xxhash", "--csum xxhash", 300, true);
	test_image("sha256", "--csum sha256", 300, true);
	test_image("blake2", "--csum blake2", 300, true);
	test_image("single", "-m single -d single", 300, true);
	test_image("no-skinny", "-O ^skinny-metadata", 300, true);
	test_image("mixed", "-M", 300, true);
	test_image("small", "", 120, true);
	test_image_post("metadata-uuid", "", 300, true, "btrfstune -m");
	test_image_post("extref", "-O ^extref", 300, true, "btrfstune -r");
	test_filled();
	test_three_mirrors();
	test_multi("raid1", 2, "-m raid1 -d raid1", true);
	test_multi("raid0", 2, "-m raid0 -d raid0", false);
	test_multi("raid1c3", 3, "-m raid1c3 -d raid1c3", true);
	test_multi("raid1c4", 4, "-m raid1c4 -d raid0", true);
	test_multi("raid10", 4, "-m raid10 -d raid10", true);
	test_multi("raid5", 3, "-m raid5 -d raid5", false);
	test_multi("raid6", 4, "-m raid6 -d raid6", false);
	scratch_done();
	return report();
}
