// SPDX-License-Identifier: GPL-2.0-only
/*
 * Writing multi-device filesystems (kernel-shared/members.c).
 *
 * Synthetic: btrfs_chunk_rmap() is the inverse of btrfs_map_block() for
 * every copy of every profile the writer handles, and refuses parity.
 * On mkfs.btrfs images of two devices held in memory: a commit reaches
 * every member with one generation and each member's own dev_item; a
 * missing, stale or foreign member is refused; an I/O failure after every
 * device write in turn leaves both members readable at the old or the new
 * generation, and untouched superblocks while no primary copy was written.
 */
#include "reader-harness.h"
#include "kernel-shared/alloc.h"
#include "kernel-shared/members.h"
#include "kernel-shared/subvol-create.h"
#include "kernel-shared/transaction.h"

static u8 chunk_buf[48 + 32 * 8];

static u32 make_chunk(u64 length, u64 type, u16 num, u16 sub)
{
	struct btrfs_chunk *c = (struct btrfs_chunk *)chunk_buf;

	memset(chunk_buf, 0, sizeof(chunk_buf));
	btrfs_set_chunk_length(c, length);
	btrfs_set_chunk_owner(c, 2);
	btrfs_set_chunk_stripe_len(c, BTRFS_STRIPE_LEN);
	btrfs_set_chunk_type(c, type);
	btrfs_set_chunk_sector_size(c, 4096);
	btrfs_set_chunk_num_stripes(c, num);
	btrfs_set_chunk_sub_stripes(c, sub);
	for (u16 i = 0; i < num; i++) {
		struct btrfs_stripe *s = btrfs_chunk_stripe(c, i);
		u8 uuid[16] = { 0 };

		uuid[0] = (u8)(i + 1);
		btrfs_set_stripe_devid(s, i + 1);
		/* odd, 1 MiB-aligned device offsets, different per stripe */
		btrfs_set_stripe_offset(s, (1ULL << 20) * (3 + 5 * i));
		btrfs_set_stripe_dev_uuid(s, uuid);
	}
	return btrfs_chunk_item_size(num);
}

/* every copy of sampled addresses maps back to its logical address */
static void test_rmap(void)
{
	static u8 disk[4096];
	const u64 G = 1ULL << 30, M = BTRFS_BLOCK_GROUP_METADATA;
	struct {
		const char *what;
		u64 type;
		u16 num, sub;
	} cases[] = {
		{ "single", M, 1, 1 },
		{ "raid1", M | BTRFS_BLOCK_GROUP_RAID1, 2, 1 },
		{ "raid1c3", M | BTRFS_BLOCK_GROUP_RAID1C3, 3, 1 },
		{ "raid1c4", M | BTRFS_BLOCK_GROUP_RAID1C4, 4, 1 },
		{ "raid0 x3", M | BTRFS_BLOCK_GROUP_RAID0, 3, 1 },
		{ "raid10 x4", M | BTRFS_BLOCK_GROUP_RAID10, 4, 2 },
		{ "raid10 x6", M | BTRFS_BLOCK_GROUP_RAID10, 6, 2 },
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct btrfs_fs *fs = calloc(1, sizeof(*fs));
		struct btrfs_io_dev *devs[6];
		const struct btrfs_chunk_map *map;
		u64 len = 6 * 64 * BTRFS_STRIPE_LEN;	/* divisible by every data stripe count */
		int bad = 0, n = 0;

		fs->sectorsize = 4096;
		btrfs_set_super_num_devices(&fs->super, cases[c].num);
		for (u16 i = 0; i < cases[c].num; i++) {
			u8 uuid[16] = { 0 };

			uuid[0] = (u8)(i + 1);
			btrfs_io_open_memory(disk, sizeof(disk), false, false, &devs[i]);
			btrfs_device_add(fs, i + 1, uuid, devs[i]);
		}
		make_chunk(len, cases[c].type, cases[c].num, cases[c].sub);
		CHECK(btrfs_chunk_map_insert(fs, G, chunk_buf,
					     btrfs_chunk_item_size(cases[c].num)) == 0, "%s", cases[c].what);
		map = btrfs_chunk_map_lookup(fs, G);
		for (u64 off = 0; map && off < len; off += 16384 * 7) {
			struct btrfs_io_stripe s[BTRFS_MAX_MIRRORS];
			int nr;

			off -= off % 16384;
			if (btrfs_map_block_all(fs, G + off, 16384, s, &nr) < 0) {
				bad++;
				continue;
			}
			for (int k = 0; k < nr; k++) {
				bool found = false;

				for (u16 st = 0; st < map->num_stripes; st++) {
					u64 logical;

					if (map->stripes[st].devid != s[k].dev->devid)
						continue;
					if (btrfs_chunk_rmap(map, st, s[k].physical, &logical) == 0 &&
					    logical == G + off)
						found = true;
				}
				bad += !found;
				n++;
			}
		}
		CHECK(!bad && n > 100, "%s: %d of %d copies do not map back", cases[c].what, bad, n);
		if (map) {
			u64 logical;

			CHECK(btrfs_chunk_rmap(map, 0, map->stripes[0].physical - 4096, &logical) ==
			      -ENOENT, "%s: before the device extent", cases[c].what);
		}
		btrfs_volumes_release(fs);
		free(fs);
		for (u16 i = 0; i < cases[c].num; i++)
			btrfs_io_close(devs[i]);
	}
	{
		struct btrfs_chunk_map *map = calloc(1, sizeof(*map) + 3 * sizeof(map->stripes[0]));
		u64 logical;

		map->type = BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_RAID5;
		map->length = 1 << 30;
		map->num_stripes = 3;
		map->stripe_len = BTRFS_STRIPE_LEN;
		CHECK(btrfs_chunk_rmap(map, 0, 0, &logical) == -EOPNOTSUPP, "raid5 refused");
		free(map);
	}
}

/* ---- two-device images in memory ---- */

struct member_set {
	u8 *orig[3];		/* as mkfs made them */
	u8 *buf[3];		/* what the devices work on */
	size_t size[3];
	int nr;
};

static void set_reset(struct member_set *ms)
{
	for (int i = 0; i < ms->nr; i++)
		memcpy(ms->buf[i], ms->orig[i], ms->size[i]);
}

static int set_load(struct member_set *ms, const char *const *names, int nr)
{
	ms->nr = nr;
	for (int i = 0; i < nr; i++) {
		ms->orig[i] = load_file(tpath(names[i]), &ms->size[i]);
		if (!ms->orig[i])
			return -1;
		ms->buf[i] = malloc(ms->size[i]);
		if (!ms->buf[i])
			return -1;
	}
	set_reset(ms);
	return 0;
}

static void set_free(struct member_set *ms)
{
	for (int i = 0; i < ms->nr; i++) {
		free(ms->orig[i]);
		free(ms->buf[i]);
	}
}

/*
 * Open devices @which[0..n) of @ms writable, behind fault devices sharing
 * @fault (may be NULL); returns btrfs_fs_open's result
 */
static int set_open(struct member_set *ms, const int *which, int n, struct btrfs_io_fault *fault,
		    struct btrfs_io_dev **mem, struct btrfs_io_dev **devs, struct btrfs_fs **fs,
		    char *msg)
{
	struct btrfs_open_args args = { 0 };
	int ret;

	for (int i = 0; i < n; i++) {
		btrfs_io_open_memory(ms->buf[which[i]], ms->size[which[i]], false, true, &mem[i]);
		snprintf(mem[i]->name, sizeof(mem[i]->name), "dev%d", which[i] + 1);
		devs[i] = mem[i];
		if (fault)
			btrfs_io_open_fault(mem[i], fault, &devs[i]);
	}
	args.devs = devs;
	args.nr_devs = (size_t)n;
	args.super_mirror = BTRFS_SUPER_PRIMARY;
	args.writable = true;
	args.errmsg = msg;
	ret = btrfs_fs_open(fs, &args);
	if (ret < 0)
		*fs = NULL;
	return ret;
}

static void set_close(struct btrfs_fs *fs, struct btrfs_io_dev **mem, struct btrfs_io_dev **devs,
		      int n)
{
	btrfs_fs_close(fs);
	for (int i = 0; i < n; i++) {
		if (devs[i] != mem[i])
			btrfs_io_close(devs[i]);
		btrfs_io_close(mem[i]);
	}
}

/* one subvolume /sN in the top level, one transaction */
static int create_subvol(struct btrfs_fs *fs, const char *name)
{
	struct btrfs_subvol_create_args a = { 0 };
	struct btrfs_trans_handle *trans;
	int ret;

	a.parent_root = BTRFS_FS_TREE_OBJECTID;
	a.parent_dir = BTRFS_FIRST_FREE_OBJECTID;
	a.name = name;
	a.name_len = strlen(name);
	a.now_sec = 1700000000;
	ret = btrfs_start_transaction(fs, &trans);
	if (ret < 0)
		return ret;
	ret = btrfs_subvol_create(trans, &a);
	if (ret < 0) {
		btrfs_abort_transaction(trans);
		return ret;
	}
	return btrfs_commit_transaction(trans);
}

static u64 gen_of(const u8 *buf, int mirror)
{
	const struct btrfs_super_block *sb = (const void *)(buf + btrfs_sb_offset(mirror));

	return btrfs_super_generation(sb);
}

static void test_commit_reaches_every_member(struct member_set *ms)
{
	const int both[2] = { 0, 1 };
	struct btrfs_io_dev *mem[2], *devs[2];
	struct btrfs_fs *fs;
	char msg[BTRFS_ERRMSG_SIZE] = "";
	u64 old = gen_of(ms->orig[0], 0);

	set_reset(ms);
	CHECK(set_open(ms, both, 2, NULL, mem, devs, &fs, msg) == 0, "open both: %s", msg);
	if (!fs)
		return;
	CHECK(create_subvol(fs, "s1") == 0, "create: %s", btrfs_fs_error(fs));
	set_close(fs, mem, devs, 2);
	for (int d = 0; d < 2; d++) {
		for (int m = 0; m < 2; m++) {
			const struct btrfs_super_block *sb = (const void *)(ms->buf[d] + btrfs_sb_offset(m));
			const struct btrfs_super_block *osb = (const void *)(ms->orig[d] + btrfs_sb_offset(m));
			const struct btrfs_dev_item *di = btrfs_super_dev_item(sb);

			CHECK(btrfs_super_generation(sb) == old + 1, "dev%d copy %d: generation %llu",
			      d + 1, m, (unsigned long long)btrfs_super_generation(sb));
			CHECK(btrfs_super_csum_verify(sb) == 0, "dev%d copy %d: checksum", d + 1, m);
			CHECK(btrfs_super_bytenr(sb) == btrfs_sb_offset(m), "dev%d copy %d: bytenr", d + 1, m);
			CHECK(btrfs_dev_item_devid(di) == (u64)d + 1, "dev%d copy %d: devid %llu", d + 1, m,
			      (unsigned long long)btrfs_dev_item_devid(di));
			CHECK(!memcmp(btrfs_dev_item_uuid(di), btrfs_dev_item_uuid(btrfs_super_dev_item(osb)),
				      BTRFS_UUID_SIZE), "dev%d copy %d: device uuid kept", d + 1, m);
			CHECK(btrfs_dev_item_total_bytes(di) ==
			      btrfs_dev_item_total_bytes(btrfs_super_dev_item(osb)) &&
			      btrfs_dev_item_bytes_used(di) ==
			      btrfs_dev_item_bytes_used(btrfs_super_dev_item(osb)),
			      "dev%d copy %d: sizes kept", d + 1, m);
		}
	}
	/* apart from bytenr, csum and dev_item the two members say the same */
	{
		struct btrfs_super_block a, b;

		memcpy(&a, ms->buf[0] + btrfs_sb_offset(0), sizeof(a));
		memcpy(&b, ms->buf[1] + btrfs_sb_offset(0), sizeof(b));
		memset(a.csum, 0, sizeof(a.csum));
		memset(b.csum, 0, sizeof(b.csum));
		memset(&a.dev_item, 0, sizeof(a.dev_item));
		memset(&b.dev_item, 0, sizeof(b.dev_item));
		CHECK(!memcmp(&a, &b, sizeof(a)), "members' superblocks differ beyond their dev_item");
	}
	/* and the result reads back from either order of the members */
	{
		const int rev[2] = { 1, 0 };

		CHECK(set_open(ms, rev, 2, NULL, mem, devs, &fs, msg) == 0, "reopen: %s", msg);
		if (fs) {
			u64 root, dir;

			CHECK(btrfs_resolve_dir(fs, "/s1", 3, &root, &dir) == 0 && root != 5,
			      "s1 is there");
			set_close(fs, mem, devs, 2);
		}
	}
}

static void test_refusals(struct member_set *ms, struct member_set *other)
{
	const int first[1] = { 0 }, both[2] = { 0, 1 };
	struct btrfs_io_dev *mem[2], *devs[2];
	struct btrfs_fs *fs;
	char msg[BTRFS_ERRMSG_SIZE] = "";
	u8 *stale;
	int ret;

	set_reset(ms);
	ret = set_open(ms, first, 1, NULL, mem, devs, &fs, msg);
	CHECK(ret == -ENXIO && strstr(msg, "device 2 is missing"), "missing: %d %s", ret, msg);
	set_close(fs, mem, devs, 1);

	/* member 2 as it was before a commit */
	stale = malloc(ms->size[1]);
	memcpy(stale, ms->orig[1], ms->size[1]);
	CHECK(set_open(ms, both, 2, NULL, mem, devs, &fs, msg) == 0, "open: %s", msg);
	if (fs) {
		CHECK(create_subvol(fs, "s2") == 0, "create: %s", btrfs_fs_error(fs));
		set_close(fs, mem, devs, 2);
	}
	memcpy(ms->buf[1], stale, ms->size[1]);
	free(stale);
	ret = set_open(ms, both, 2, NULL, mem, devs, &fs, msg);
	CHECK(ret == -ESTALE && strstr(msg, "dev2: device 2 is stale"), "stale: %d %s", ret, msg);
	set_close(fs, mem, devs, 2);

	/* a device of another filesystem */
	{
		struct btrfs_open_args args = { 0 };

		set_reset(ms);
		set_reset(other);
		btrfs_io_open_memory(ms->buf[0], ms->size[0], false, true, &devs[0]);
		btrfs_io_open_memory(other->buf[0], other->size[0], false, true, &devs[1]);
		args.devs = devs;
		args.nr_devs = 2;
		args.super_mirror = BTRFS_SUPER_PRIMARY;
		args.writable = true;
		args.errmsg = msg;
		ret = btrfs_fs_open(&fs, &args);
		CHECK(ret == -EINVAL && strstr(msg, "another filesystem"), "foreign: %d %s", ret, msg);
		btrfs_io_close(devs[0]);
		btrfs_io_close(devs[1]);
	}
	CHECK(!memcmp(ms->buf[0], ms->orig[0], ms->size[0]) &&
	      !memcmp(ms->buf[1], ms->orig[1], ms->size[1]), "refusals wrote nothing");
}

/* fail every write after the n-th: old or new, never a superblock mix before the first primary */
static void test_fail_after_every_write(struct member_set *ms)
{
	const int both[2] = { 0, 1 };
	struct btrfs_io_dev *mem[2], *devs[2];
	struct btrfs_fs *fs;
	char msg[BTRFS_ERRMSG_SIZE] = "";
	u64 old = gen_of(ms->orig[0], 0);
	int olds = 0, news = 0, torn = 0, ret = -1;
	u64 n;

	for (n = 1; n < 200 && ret; n++) {
		struct btrfs_io_fault fault = { .write_limit = n };
		u64 g0, g1;

		set_reset(ms);
		if (set_open(ms, both, 2, &fault, mem, devs, &fs, msg) < 0) {
			CHECK(0, "open: %s", msg);
			return;
		}
		ret = create_subvol(fs, "crash");
		set_close(fs, mem, devs, 2);
		g0 = gen_of(ms->buf[0], 0);
		g1 = gen_of(ms->buf[1], 0);
		CHECK((g0 == old || g0 == old + 1) && (g1 == old || g1 == old + 1),
		      "after %llu writes: generations %llu %llu", (unsigned long long)n,
		      (unsigned long long)g0, (unsigned long long)g1);
		if (g0 == old && g1 == old) {
			/* no primary written: every superblock copy as it was */
			for (int d = 0; d < 2; d++)
				for (int m = 0; m < 2; m++)
					CHECK(!memcmp(ms->buf[d] + btrfs_sb_offset(m),
						      ms->orig[d] + btrfs_sb_offset(m), 4096),
					      "after %llu writes: dev%d copy %d changed",
					      (unsigned long long)n, d + 1, m);
			olds++;
		} else if (g0 != g1) {
			torn++;
		} else {
			news++;
		}
		/* the reader opens the member set, whatever the state */
		{
			struct btrfs_open_args args = { 0 };
			struct btrfs_fs *rfs;

			args.devs = mem;
			btrfs_io_open_memory(ms->buf[0], ms->size[0], false, false, &mem[0]);
			btrfs_io_open_memory(ms->buf[1], ms->size[1], false, false, &mem[1]);
			args.nr_devs = 2;
			args.super_mirror = BTRFS_SUPER_PRIMARY;
			args.errmsg = msg;
			CHECK(btrfs_fs_open(&rfs, &args) == 0, "after %llu writes: reopen: %s",
			      (unsigned long long)n, msg);
			btrfs_fs_close(rfs);
			btrfs_io_close(mem[0]);
			btrfs_io_close(mem[1]);
		}
	}
	CHECK(ret == 0, "the create succeeds with enough writes");
	CHECK(olds > 4 && news >= 1 && torn == 1, "olds %d news %d torn %d", olds, news, torn);
}

/*
 * On mkfs.btrfs images whose metadata chunk covers the 64 MiB superblock
 * copy of a device: no copy of any allocatable metadata block may land on
 * a superblock copy of any member (striped profiles map the window back
 * through btrfs_chunk_rmap()).
 */
static void test_super_windows(const char *what, int ndev, const char *opts)
{
	char names[4][32], msg[BTRFS_ERRMSG_SIZE] = "";
	struct btrfs_io_dev *devs[4] = { 0 };
	struct btrfs_open_args args = { 0 };
	struct btrfs_trans_handle *trans;
	struct btrfs_fs *fs = NULL;
	char list[512] = "";
	u64 checked = 0, hits = 0, near = 0;

	for (int i = 0; i < ndev; i++) {
		snprintf(names[i], sizeof(names[i]), "w%d.img", i);
		snprintf(list + strlen(list), sizeof(list) - strlen(list), " '%s'", tpath(names[i]));
	}
	if (sh("rm -f %s && truncate -s 3G %s && mkfs.btrfs -q -f %s %s >/dev/null 2>&1",
	       list, list, opts, list)) {
		CHECK(0, "mkfs.btrfs %s failed: %s not tested", opts, what);
		return;
	}
	for (int i = 0; i < ndev; i++)
		btrfs_io_open_file(tpath(names[i]), true, &devs[i]);
	args.devs = devs;
	args.nr_devs = (size_t)ndev;
	args.super_mirror = BTRFS_SUPER_PRIMARY;
	args.writable = true;
	args.errmsg = msg;
	CHECK(btrfs_fs_open(&fs, &args) == 0, "%s: open: %s", what, msg);
	if (fs && btrfs_start_transaction(fs, &trans) == 0) {
		const struct btrfs_alloc_ctx *ctx = &trans->alloc;

		for (size_t r = 0; r < ctx->nr_free; r++) {
			for (u64 b = ctx->free[r].start; b + fs->nodesize <= ctx->free[r].start +
			     ctx->free[r].len; b += fs->nodesize) {
				struct btrfs_io_stripe st[BTRFS_MAX_MIRRORS];
				int nr;

				if (btrfs_map_block_all(fs, b, fs->nodesize, st, &nr) < 0)
					continue;
				for (int k = 0; k < nr; k++) {
					for (int m = 0; m < BTRFS_SUPER_MIRROR_MAX; m++) {
						u64 so = btrfs_sb_offset(m);

						hits += st[k].physical < so + 4096 &&
							so < st[k].physical + fs->nodesize;
						near += st[k].physical < so + (1 << 20) &&
							so < st[k].physical + (1 << 20);
					}
				}
				checked++;
			}
		}
		btrfs_abort_transaction(trans);
		/* near > 0: the window really lies in a metadata chunk of this image */
		CHECK(checked > 1000 && near > 0 && hits == 0,
		      "%s: %llu blocks, %llu near a superblock copy, %llu on one", what,
		      (unsigned long long)checked, (unsigned long long)near,
		      (unsigned long long)hits);
	}
	btrfs_fs_close(fs);
	for (int i = 0; i < ndev; i++) {
		btrfs_io_close(devs[i]);
		sh("rm -f '%s'", tpath(names[i]));
	}
}

int main(void)
{
	static const char *const r1[] = { "r1a.img", "r1b.img" };
	static const char *const one[] = { "one.img" };
	struct member_set ms = { 0 }, other = { 0 };

	test_rmap();
	if (sh("command -v mkfs.btrfs >/dev/null")) {
		SKIP("test-members: the image tests need mkfs.btrfs (btrfs-progs)");
		return report();
	}
	scratch_init();
	if (sh("truncate -s 128M %s %s && mkfs.btrfs -q -f -m raid1 -d single %s %s "
	       ">/dev/null 2>&1", tpath(r1[0]), tpath(r1[1]), tpath(r1[0]), tpath(r1[1])) ||
	    make_image(one[0], 128, "")) {
		CHECK(0, "mkfs.btrfs failed: the image tests did not run");
	} else if (set_load(&ms, r1, 2) || set_load(&other, one, 1)) {
		CHECK(0, "cannot load the images");
	} else {
		test_commit_reaches_every_member(&ms);
		test_refusals(&ms, &other);
		test_fail_after_every_write(&ms);
	}
	test_super_windows("raid10 x3", 3, "-m raid10 -d single");
	test_super_windows("raid10 x4", 4, "-m raid10 -d single");
	test_super_windows("raid0 x2", 2, "-m raid0 -d single");
	test_super_windows("raid1 x2", 2, "-m raid1 -d single");
	test_super_windows("raid1c3 x3", 3, "-m raid1c3 -d single");
	set_free(&ms);
	set_free(&other);
	scratch_done();
	return report();
}
