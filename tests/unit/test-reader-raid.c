// SPDX-License-Identifier: GPL-2.0-only
/*
 * Chunk mapping of striped profiles on real multi-stripe metadata.
 *
 * mkfs.btrfs --rootdir works on one device only, so striped images with
 * many tree blocks are filled through the kernel: loop devices, mount,
 * thousands of files, unmount.  dump-tree (run while the loop devices
 * exist) is the oracle; the reader then opens the plain image files.
 * Also a snapshot of a multi-level subvolume: the visited-set walk must
 * skip exactly the shared blocks.
 * Needs root and loop devices; without them the test reports 0 checks.
 * Loop devices and mounts are created here, under /tmp/offline/, and
 * always removed.
 */
#include "reader-harness.h"

struct raid_case {
	const char *label;
	int ndev;
	const char *profile;
	bool redundant;		/* readable with any one device missing */
};

static bool can_loop(void)
{
	return geteuid() == 0 && sh("losetup -f >/dev/null 2>&1") == 0 &&
	       sh("grep -qw btrfs /proc/filesystems") == 0;
}

static void run_case(const struct raid_case *rc)
{
	char loops[4][64] = { { 0 } };
	const char *files[4];
	struct btrfs_io_dev *devs[4] = { 0 };
	char devlist[512] = "", mntopts[512] = "", err[BTRFS_ERRMSG_SIZE];
	const char *mnt = strdup(tpath("mnt"));
	struct stats oracle_stats, got;
	struct btrfs_fs *fs;
	bool mounted = false;
	int ret, compared = 0;
	size_t dl = 0, ml = 0;

	memset(&oracle_stats, 0, sizeof(oracle_stats));
	for (int i = 0; i < rc->ndev; i++) {
		char name[16];
		FILE *p;

		snprintf(name, sizeof(name), "raid%d", i);
		files[i] = strdup(tpath(name));
		sh("rm -f '%s' && truncate -s 512M '%s'", files[i], files[i]);
		{
			char cmd[600];

			snprintf(cmd, sizeof(cmd), "losetup -f --show '%s'", files[i]);
			p = popen(cmd, "r");
		}
		if (!p || !fgets(loops[i], sizeof(loops[i]), p)) {
			if (p)
				pclose(p);
			CHECK(0, "%s: losetup failed", rc->label);
			goto cleanup;
		}
		pclose(p);
		loops[i][strcspn(loops[i], "\n")] = '\0';
		dl += (size_t)snprintf(devlist + dl, sizeof(devlist) - dl, " %s", loops[i]);
		ml += (size_t)snprintf(mntopts + ml, sizeof(mntopts) - ml, "%sdevice=%s",
				       i ? "," : "", loops[i]);
	}
	ret = sh("mkfs.btrfs -q -f -n 4096 -m %s -d %s %s >/dev/null 2>&1", rc->profile,
		 rc->profile, devlist);
	CHECK(ret == 0, "%s: mkfs", rc->label);
	if (ret)
		goto cleanup;
	sh("mkdir -p '%s'", mnt);
	ret = sh("mount -t btrfs -o %s %s '%s'", mntopts, loops[0], mnt);
	CHECK(ret == 0, "%s: mount", rc->label);
	if (ret)
		goto cleanup;
	mounted = true;
	ret = sh("cd '%s' && mkdir d && for i in $(seq 1 4000); do echo $i > d/file-with-a-long-name-$i; done && "
		 "head -c 8M /dev/urandom > big && sync -f .", mnt);
	CHECK(ret == 0, "%s: fill", rc->label);
	ret = sh("umount '%s'", mnt);
	mounted = ret != 0;
	CHECK(ret == 0, "%s: umount", rc->label);
	if (ret)
		goto cleanup;
	/* oracle while the loop devices exist: the same trees the reader sees */
	{
		static const u64 ids[] = { 1, 2, 3, 4, 5, 7, 9, 10 };

		for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
			struct tree_stats *t = stats_get(&oracle_stats, ids[i]);

			if (oracle_tree(loops[0], ids[i], &t->blocks, &t->items, &t->root_bytenr) < 0)
				t->blocks = (u64)-1;
		}
	}
cleanup:
	if (mounted)
		sh("umount '%s'", mnt);
	for (int i = 0; i < rc->ndev; i++)
		if (loops[i][0])
			sh("losetup -d %s", loops[i]);
	if (!oracle_stats.nr)
		goto out;

	ret = open_files(files, (size_t)rc->ndev, devs, &fs, err);
	CHECK(ret == 0, "%s: open: %d %s", rc->label, ret, err);
	if (ret)
		goto out;
	ret = walk_stats(fs, &got);
	CHECK(ret == 0, "%s: walk: %d %s", rc->label, ret, btrfs_fs_error(fs));
	for (int i = 0; i < oracle_stats.nr; i++) {
		struct tree_stats *o = &oracle_stats.t[i], *g = stats_get(&got, o->id);

		if (o->blocks == (u64)-1)
			continue;
		compared++;
		CHECK(g && g->blocks == o->blocks && g->items == o->items &&
		      g->root_bytenr == o->root_bytenr,
		      "%s tree %llu: reader %llu blocks %llu items, dump-tree %llu / %llu", rc->label,
		      (unsigned long long)o->id, g ? (unsigned long long)g->blocks : 0ULL,
		      g ? (unsigned long long)g->items : 0ULL, (unsigned long long)o->blocks,
		      (unsigned long long)o->items);
	}
	CHECK(compared >= 7, "%s: %d trees compared", rc->label, compared);
	{
		struct tree_stats *t = stats_get(&got, BTRFS_FS_TREE_OBJECTID);
		const struct btrfs_chunk_map *map = btrfs_chunk_map_lookup(fs, t->root_bytenr);

		CHECK(t->blocks > 100, "%s: fs tree has %llu blocks", rc->label,
		      (unsigned long long)t->blocks);
		CHECK(map && (map->type & BTRFS_BLOCK_GROUP_METADATA) &&
		      !strcmp(btrfs_profile_name(map->type), rc->profile),
		      "%s: fs tree root in a %s chunk", rc->label,
		      map ? btrfs_profile_name(map->type) : "(none)");
	}
	btrfs_fs_close(fs);
	for (int i = 0; i < rc->ndev; i++)
		btrfs_io_close(devs[i]);
	if (rc->redundant) {
		for (int miss = 0; miss < rc->ndev; miss++) {
			const char *sub[4];
			struct stats part;
			int k = 0;

			for (int i = 0; i < rc->ndev; i++)
				if (i != miss)
					sub[k++] = files[i];
			ret = open_files(sub, (size_t)k, devs, &fs, err);
			CHECK(ret == 0, "%s without %d: open %d %s", rc->label, miss, ret, err);
			if (ret)
				continue;
			ret = walk_stats(fs, &part);
			CHECK(ret == 0 && !memcmp(&part, &got, sizeof(got)),
			      "%s without %d: walk %d %s", rc->label, miss, ret, btrfs_fs_error(fs));
			btrfs_fs_close(fs);
			for (int i = 0; i < k; i++)
				btrfs_io_close(devs[i]);
		}
	}
out:
	for (int i = 0; i < rc->ndev; i++)
		free((void *)files[i]);
	free((void *)mnt);
}

static int count_blocks(void *priv, const struct extent_buffer *eb,
			const struct btrfs_walk_info *info)
{
	(*(u64 *)priv)++;
	return 0;
}

/* A snapshot of a multi-level subvolume shares every block below its root */
static void test_snapshot_sharing(void)
{
	const char *img = strdup(tpath("snap.img")), *mnt = strdup(tpath("snapmnt"));
	char loop[64] = "", err[BTRFS_ERRMSG_SIZE];
	struct btrfs_io_dev *dev;
	struct btrfs_fs *fs;
	struct stats st;
	u64 all = 0, unique = 0;
	FILE *p;
	char cmd[600];
	int ret;

	sh("rm -f '%s' && truncate -s 512M '%s' && mkfs.btrfs -q -f -n 4096 '%s' >/dev/null 2>&1",
	   img, img, img);
	snprintf(cmd, sizeof(cmd), "losetup -f --show '%s'", img);
	p = popen(cmd, "r");
	if (!p || !fgets(loop, sizeof(loop), p)) {
		if (p)
			pclose(p);
		CHECK(0, "snapshot: losetup");
		goto out;
	}
	pclose(p);
	loop[strcspn(loop, "\n")] = '\0';
	sh("mkdir -p '%s'", mnt);
	ret = sh("mount -t btrfs %s '%s'", loop, mnt);
	CHECK(ret == 0, "snapshot: mount");
	if (!ret) {
		ret = sh("cd '%s' && btrfs -q subvolume create sv >/dev/null && "
			 "for i in $(seq 1 3000); do echo $i > sv/file-with-a-long-name-$i; done && "
			 "btrfs -q subvolume snapshot sv snap >/dev/null && sync -f .", mnt);
		CHECK(ret == 0, "snapshot: fill and snapshot");
		CHECK(sh("umount '%s'", mnt) == 0, "snapshot: umount");
	}
	sh("losetup -d %s", loop);
	ret = open_files(&img, 1, &dev, &fs, err);
	CHECK(ret == 0, "snapshot: open %d %s", ret, err);
	if (ret)
		goto out;
	CHECK(walk_stats(fs, &st) == 0, "snapshot: walk");
	{
		struct tree_stats *a = stats_get(&st, 256), *b = stats_get(&st, 257);

		CHECK(a->blocks > 20 && a->blocks == b->blocks && a->items == b->items &&
		      a->root_bytenr != b->root_bytenr,
		      "snapshot: same shape, own root (%llu/%llu blocks)",
		      (unsigned long long)a->blocks, (unsigned long long)b->blocks);
		CHECK(btrfs_walk_all_trees(fs, false, count_blocks, &all) == 0 &&
		      btrfs_walk_all_trees(fs, true, count_blocks, &unique) == 0 &&
		      unique == all - (b->blocks - 1),
		      "snapshot: visited set skips the %llu shared blocks (%llu of %llu)",
		      (unsigned long long)(b->blocks - 1), (unsigned long long)unique,
		      (unsigned long long)all);
	}
	btrfs_fs_close(fs);
	btrfs_io_close(dev);
	compare_with_dump_tree("snapshot", img, &st);
out:
	free((void *)img);
	free((void *)mnt);
}

int main(void)
{
	static const struct raid_case cases[] = {
		{ "raid0", 2, "raid0", false },
		{ "raid0-3", 3, "raid0", false },
		{ "raid10", 4, "raid10", true },
		{ "raid1", 2, "raid1", true },
		{ "raid1c3", 3, "raid1c3", true },
		{ "raid5", 3, "raid5", false },
		{ "raid6", 4, "raid6", false },
	};

	if (!can_loop()) {
		SKIP("test-reader-raid: needs root, loop devices and the btrfs module");
		return report();
	}
	scratch_init();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
	test_snapshot_sharing();
	scratch_done();
	return report();
}
