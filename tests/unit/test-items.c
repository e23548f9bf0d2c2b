/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests for kernel-shared/items.c: every decoder on hand-built items,
 * including truncated items and name lengths that run past the item.
 */
#include <errno.h>

#include "kernel-shared/items.h"
#include "unit.h"

/* Scratch item buffer; +1 keeps structures deliberately unaligned */
static u8 raw[2048];
#define ITEM ((void *)(raw + 1))

static void reset(void)
{
	memset(raw, 0, sizeof(raw));
}

static void test_inode(void)
{
	struct btrfs_inode_item *ii = ITEM;
	struct btrfs_inode_rec rec;

	reset();
	btrfs_set_inode_generation(ii, 8);
	btrfs_set_inode_transid(ii, 9);
	btrfs_set_inode_size(ii, 6);
	btrfs_set_inode_nlink(ii, 1);
	btrfs_set_inode_uid(ii, 1000);
	btrfs_set_inode_gid(ii, 100);
	btrfs_set_inode_mode(ii, 040755);
	btrfs_set_inode_flags(ii, BTRFS_INODE_NODATACOW);
	btrfs_set_timespec_sec(btrfs_inode_otime(ii), (u64)-5);
	btrfs_set_timespec_nsec(btrfs_inode_otime(ii), 999999999);
	btrfs_set_timespec_sec(btrfs_inode_mtime(ii), 1700000000);

	CHECK_EQ_INT(btrfs_decode_inode_item(ii, 160, &rec), 0);
	CHECK_EQ_U64(rec.generation, 8);
	CHECK_EQ_U64(rec.transid, 9);
	CHECK_EQ_U64(rec.size, 6);
	CHECK_EQ_U64(rec.nlink, 1);
	CHECK_EQ_U64(rec.uid, 1000);
	CHECK_EQ_U64(rec.gid, 100);
	CHECK_EQ_U64(rec.mode, 040755);
	CHECK_EQ_U64(rec.flags, BTRFS_INODE_NODATACOW);
	CHECK(rec.otime.sec == -5);
	CHECK_EQ_U64(rec.otime.nsec, 999999999);
	CHECK(rec.mtime.sec == 1700000000);
	CHECK_EQ_INT(btrfs_decode_inode_item(ii, 159, &rec), -EUCLEAN);
}

static void build_root_item(struct btrfs_root_item *ri, u64 gen, u64 gen_v2)
{
	const u8 uuid[16] = { 0x0b, 0x4d, 0x03, 0x6f, 0x22, 0x95, 0x72, 0x49,
			      0xb5, 0x1c, 0x97, 0xc9, 0x14, 0x84, 0xbc, 0xb3 };
	const u8 puuid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	struct btrfs_key drop = { 300, BTRFS_EXTENT_DATA_KEY, 4096 };

	reset();
	btrfs_set_inode_generation(btrfs_root_inode(ri), 1);
	btrfs_set_inode_size(btrfs_root_inode(ri), 3);
	btrfs_set_inode_mode(btrfs_root_inode(ri), 040755);
	btrfs_set_inode_flags(btrfs_root_inode(ri), BTRFS_INODE_ROOT_ITEM_INIT);
	btrfs_set_root_generation(ri, gen);
	btrfs_set_root_root_dirid(ri, 256);
	btrfs_set_root_bytenr(ri, 30425088);
	btrfs_set_root_bytes_used(ri, 16384);
	btrfs_set_root_last_snapshot(ri, 9);
	btrfs_set_root_flags(ri, BTRFS_ROOT_SUBVOL_RDONLY | BTRFS_ROOT_SUBVOL_DEAD);
	btrfs_set_root_refs(ri, 1);
	btrfs_set_root_drop_progress(ri, &drop);
	btrfs_set_root_drop_level(ri, 1);
	btrfs_set_root_level(ri, 2);
	btrfs_set_root_generation_v2(ri, gen_v2);
	btrfs_set_root_uuid(ri, uuid);
	btrfs_set_root_parent_uuid(ri, puuid);
	btrfs_set_root_ctransid(ri, 8);
	btrfs_set_root_otransid(ri, 9);
	btrfs_set_root_stransid(ri, 10);
	btrfs_set_root_rtransid(ri, 11);
	btrfs_set_timespec_sec(btrfs_root_ctime(ri), 1000);
	btrfs_set_timespec_sec(btrfs_root_otime(ri), 2000);
	btrfs_set_timespec_nsec(btrfs_root_otime(ri), 7);
	btrfs_set_timespec_sec(btrfs_root_rtime(ri), 4000);
}

static void test_root_item(void)
{
	struct btrfs_root_item *ri = ITEM;
	struct btrfs_root_rec rec;
	const u8 zero[16] = { 0 };

	build_root_item(ri, 9, 9);
	CHECK_EQ_INT(btrfs_decode_root_item(ri, 439, &rec), 0);
	CHECK(rec.has_v2);
	CHECK_EQ_U64(rec.inode.generation, 1);
	CHECK_EQ_U64(rec.inode.size, 3);
	CHECK_EQ_U64(rec.inode.mode, 040755);
	CHECK_EQ_U64(rec.inode.flags, BTRFS_INODE_ROOT_ITEM_INIT);
	CHECK_EQ_U64(rec.generation, 9);
	CHECK_EQ_U64(rec.root_dirid, 256);
	CHECK_EQ_U64(rec.bytenr, 30425088);
	CHECK_EQ_U64(rec.bytes_used, 16384);
	CHECK_EQ_U64(rec.last_snapshot, 9);
	CHECK_EQ_U64(rec.flags, 0x1000000000001ULL);
	CHECK_EQ_U64(rec.refs, 1);
	CHECK_EQ_U64(rec.drop_progress.objectid, 300);
	CHECK_EQ_U64(rec.drop_progress.type, BTRFS_EXTENT_DATA_KEY);
	CHECK_EQ_U64(rec.drop_progress.offset, 4096);
	CHECK_EQ_U64(rec.drop_level, 1);
	CHECK_EQ_U64(rec.level, 2);
	CHECK_EQ_U64(rec.generation_v2, 9);
	CHECK_EQ_U64(rec.uuid[0], 0x0b);
	CHECK_EQ_U64(rec.uuid[15], 0xb3);
	CHECK_EQ_U64(rec.parent_uuid[15], 16);
	CHECK_MEM(rec.received_uuid, zero, 16);
	CHECK_EQ_U64(rec.ctransid, 8);
	CHECK_EQ_U64(rec.otransid, 9);
	CHECK_EQ_U64(rec.stransid, 10);
	CHECK_EQ_U64(rec.rtransid, 11);
	CHECK(rec.ctime.sec == 1000);
	CHECK(rec.otime.sec == 2000);
	CHECK_EQ_U64(rec.otime.nsec, 7);
	CHECK(rec.stime.sec == 0);
	CHECK(rec.rtime.sec == 4000);

	/* Stale v2 fields (written by an old kernel): ignored, raw gen_v2 kept */
	build_root_item(ri, 12, 9);
	CHECK_EQ_INT(btrfs_decode_root_item(ri, 439, &rec), 0);
	CHECK(!rec.has_v2);
	CHECK_EQ_U64(rec.generation, 12);
	CHECK_EQ_U64(rec.generation_v2, 9);
	CHECK_MEM(rec.uuid, zero, 16);
	CHECK_MEM(rec.parent_uuid, zero, 16);
	CHECK_EQ_U64(rec.otransid, 0);
	CHECK(rec.otime.sec == 0);
	CHECK_EQ_U64(rec.refs, 1);

	/* Legacy 239-byte item */
	build_root_item(ri, 9, 9);
	CHECK_EQ_INT(btrfs_decode_root_item(ri, 239, &rec), 0);
	CHECK(!rec.has_v2);
	CHECK_EQ_U64(rec.generation_v2, 0);
	CHECK_EQ_U64(rec.level, 2);
	CHECK_MEM(rec.uuid, zero, 16);
	/* Between the two sizes: legacy as well, like the kernel */
	CHECK_EQ_INT(btrfs_decode_root_item(ri, 300, &rec), 0);
	CHECK(!rec.has_v2);
	CHECK_EQ_INT(btrfs_decode_root_item(ri, 238, &rec), -EUCLEAN);
	CHECK_EQ_INT(btrfs_decode_root_item(ri, 0, &rec), -EUCLEAN);
}

static u32 put_root_ref(u8 *p, u64 dirid, u64 seq, const char *name, u16 name_len)
{
	struct btrfs_root_ref *rr = (struct btrfs_root_ref *)p;

	btrfs_set_root_ref_dirid(rr, dirid);
	btrfs_set_root_ref_sequence(rr, seq);
	btrfs_set_root_ref_name_len(rr, name_len);
	memcpy(p + sizeof(*rr), name, strlen(name));
	return (u32)(sizeof(*rr) + strlen(name));
}

static void test_root_ref(void)
{
	struct btrfs_root_ref_rec rec;
	u32 len;
	char longname[300];

	reset();
	len = put_root_ref(ITEM, 256, 2, "sv1", 3);
	CHECK_EQ_U64(len, 21);
	CHECK_EQ_INT(btrfs_decode_root_ref(ITEM, len, &rec), 0);
	CHECK_EQ_U64(rec.dirid, 256);
	CHECK_EQ_U64(rec.sequence, 2);
	CHECK_EQ_U64(rec.name_len, 3);
	CHECK_STR(rec.name, "sv1");
	CHECK_EQ_INT(btrfs_decode_root_ref(ITEM, 20, &rec), -EUCLEAN);
	CHECK_EQ_INT(btrfs_decode_root_ref(ITEM, 17, &rec), -EUCLEAN);

	/* name_len larger than the item */
	reset();
	len = put_root_ref(ITEM, 256, 2, "sv1", 200);
	CHECK_EQ_INT(btrfs_decode_root_ref(ITEM, len, &rec), -EUCLEAN);

	/* 255 is the longest name; 256 is corrupt even if the bytes are there */
	memset(longname, 'x', sizeof(longname));
	longname[256] = '\0';
	reset();
	len = put_root_ref(ITEM, 256, 2, longname, 256);
	CHECK_EQ_INT(btrfs_decode_root_ref(ITEM, len, &rec), -EUCLEAN);
	longname[255] = '\0';
	reset();
	len = put_root_ref(ITEM, 256, 2, longname, 255);
	CHECK_EQ_INT(btrfs_decode_root_ref(ITEM, len, &rec), 0);
	CHECK_EQ_U64(strlen(rec.name), 255);
}

static u32 put_inode_ref(u8 *p, u64 index, const char *name)
{
	struct btrfs_inode_ref *ref = (struct btrfs_inode_ref *)p;
	u16 n = (u16)strlen(name);

	btrfs_set_inode_ref_index(ref, index);
	btrfs_set_inode_ref_name_len(ref, n);
	memcpy(p + sizeof(*ref), name, n);
	return (u32)sizeof(*ref) + n;
}

static void test_inode_ref(void)
{
	struct btrfs_inode_ref_rec rec;
	u8 *p = ITEM;
	u32 len, pos = 0;

	reset();
	len = put_inode_ref(p, 0, "..");
	len += put_inode_ref(p + len, 5, "hello");
	CHECK_EQ_U64(len, 12 + 15);

	CHECK_EQ_INT(btrfs_inode_ref_next(p, len, &pos, &rec), 0);
	CHECK_EQ_U64(rec.index, 0);
	CHECK_STR(rec.name, "..");
	CHECK_EQ_U64(pos, 12);
	CHECK_EQ_INT(btrfs_inode_ref_next(p, len, &pos, &rec), 0);
	CHECK_EQ_U64(rec.index, 5);
	CHECK_EQ_U64(rec.name_len, 5);
	CHECK_STR(rec.name, "hello");
	CHECK_EQ_INT(btrfs_inode_ref_next(p, len, &pos, &rec), 1);
	CHECK_EQ_INT(btrfs_inode_ref_next(p, len, &pos, &rec), 1);

	/* Second entry cut short: first is fine, then corrupt */
	pos = 0;
	CHECK_EQ_INT(btrfs_inode_ref_next(p, len - 1, &pos, &rec), 0);
	CHECK_EQ_INT(btrfs_inode_ref_next(p, len - 1, &pos, &rec), -EUCLEAN);
	/* Header of the second entry cut short */
	pos = 12;
	CHECK_EQ_INT(btrfs_inode_ref_next(p, 12 + 9, &pos, &rec), -EUCLEAN);
	/* Empty item, and a position past the end */
	pos = 0;
	CHECK_EQ_INT(btrfs_inode_ref_next(p, 0, &pos, &rec), 1);
	pos = 40;
	CHECK_EQ_INT(btrfs_inode_ref_next(p, len, &pos, &rec), -EINVAL);
}

static void test_inode_extref(void)
{
	struct btrfs_inode_extref_rec rec;
	struct btrfs_inode_extref *ref = ITEM;
	u32 pos = 0;

	reset();
	btrfs_set_inode_extref_parent_objectid(ref, 257);
	btrfs_set_inode_extref_index(ref, 3);
	btrfs_set_inode_extref_name_len(ref, 4);
	memcpy((u8 *)ref + 18, "link", 4);

	CHECK_EQ_INT(btrfs_inode_extref_next(ref, 22, &pos, &rec), 0);
	CHECK_EQ_U64(rec.parent, 257);
	CHECK_EQ_U64(rec.index, 3);
	CHECK_STR(rec.name, "link");
	CHECK_EQ_INT(btrfs_inode_extref_next(ref, 22, &pos, &rec), 1);
	pos = 0;
	CHECK_EQ_INT(btrfs_inode_extref_next(ref, 21, &pos, &rec), -EUCLEAN);
	pos = 0;
	CHECK_EQ_INT(btrfs_inode_extref_next(ref, 17, &pos, &rec), -EUCLEAN);
}

static u32 put_dir_item(u8 *p, const struct btrfs_key *loc, u8 type, const char *name,
			const char *data)
{
	struct btrfs_dir_item *di = (struct btrfs_dir_item *)p;
	u16 n = (u16)strlen(name), d = (u16)(data ? strlen(data) : 0);

	btrfs_set_dir_location(di, loc);
	btrfs_set_dir_transid(di, 8);
	btrfs_set_dir_type(di, type);
	btrfs_set_dir_name_len(di, n);
	btrfs_set_dir_data_len(di, d);
	memcpy(p + sizeof(*di), name, n);
	if (d)
		memcpy(p + sizeof(*di) + n, data, d);
	return (u32)sizeof(*di) + n + d;
}

static void test_dir_item(void)
{
	struct btrfs_key sub = { 257, BTRFS_ROOT_ITEM_KEY, -1ULL };
	struct btrfs_key file = { 260, BTRFS_INODE_ITEM_KEY, 0 };
	struct btrfs_key none = { 0, 0, 0 };
	struct btrfs_dir_item_rec rec;
	u8 *p = ITEM;
	u32 len, pos = 0;

	reset();
	len = put_dir_item(p, &sub, BTRFS_FT_DIR, "snap1", NULL);
	len += put_dir_item(p + len, &file, BTRFS_FT_REG_FILE, "collide", NULL);
	CHECK_EQ_U64(len, 35 + 37);

	CHECK_EQ_INT(btrfs_dir_item_next(p, len, &pos, &rec), 0);
	CHECK_EQ_U64(rec.location.objectid, 257);
	CHECK_EQ_U64(rec.location.type, BTRFS_ROOT_ITEM_KEY);
	CHECK_EQ_U64(rec.location.offset, -1ULL);
	CHECK_EQ_U64(rec.transid, 8);
	CHECK_EQ_U64(rec.type, BTRFS_FT_DIR);
	CHECK_EQ_U64(rec.data_len, 0);
	CHECK_STR(rec.name, "snap1");
	CHECK_EQ_INT(btrfs_dir_item_next(p, len, &pos, &rec), 0);
	CHECK_EQ_U64(rec.location.objectid, 260);
	CHECK_STR(rec.name, "collide");
	CHECK_EQ_INT(btrfs_dir_item_next(p, len, &pos, &rec), 1);

	/* xattr: name then value */
	reset();
	pos = 0;
	len = put_dir_item(p, &none, BTRFS_FT_XATTR, "user.a", "value");
	CHECK_EQ_INT(btrfs_dir_item_next(p, len, &pos, &rec), 0);
	CHECK_EQ_U64(rec.type, BTRFS_FT_XATTR);
	CHECK_STR(rec.name, "user.a");
	CHECK_EQ_U64(rec.data_len, 5);
	CHECK_MEM(rec.data, "value", 5);
	CHECK(rec.data == p + 30 + 6);
	/* value runs past the item */
	pos = 0;
	CHECK_EQ_INT(btrfs_dir_item_next(p, len - 1, &pos, &rec), -EUCLEAN);

	/* name_len past the item */
	reset();
	pos = 0;
	len = put_dir_item(p, &sub, BTRFS_FT_DIR, "sv1", NULL);
	btrfs_set_dir_name_len((struct btrfs_dir_item *)p, 4);
	CHECK_EQ_INT(btrfs_dir_item_next(p, len, &pos, &rec), -EUCLEAN);
	pos = 0;
	CHECK_EQ_INT(btrfs_dir_item_next(p, 29, &pos, &rec), -EUCLEAN);
}

static void test_qgroup(void)
{
	struct btrfs_qgroup_status_item *st = ITEM;
	struct btrfs_qgroup_info_item *qi = ITEM;
	struct btrfs_qgroup_limit_item *ql = ITEM;
	struct btrfs_qgroup_status_rec srec;
	struct btrfs_qgroup_info_rec irec;
	struct btrfs_qgroup_limit_rec lrec;

	reset();
	btrfs_set_qgroup_status_version(st, BTRFS_QGROUP_STATUS_VERSION);
	btrfs_set_qgroup_status_generation(st, 13);
	btrfs_set_qgroup_status_flags(st, BTRFS_QGROUP_STATUS_FLAG_ON |
				      BTRFS_QGROUP_STATUS_FLAG_SIMPLE_MODE);
	btrfs_set_qgroup_status_rescan(st, -1ULL);
	btrfs_set_qgroup_status_enable_gen(st, 11);
	CHECK_EQ_INT(btrfs_decode_qgroup_status(st, 40, &srec), 0);
	CHECK_EQ_U64(srec.version, 1);
	CHECK_EQ_U64(srec.generation, 13);
	CHECK_EQ_U64(srec.flags, 9);
	CHECK_EQ_U64(srec.rescan, -1ULL);
	CHECK(srec.has_enable_gen);
	CHECK_EQ_U64(srec.enable_gen, 11);
	CHECK_EQ_INT(btrfs_decode_qgroup_status(st, 32, &srec), 0);
	CHECK(!srec.has_enable_gen);
	CHECK_EQ_U64(srec.enable_gen, 0);
	CHECK_EQ_U64(srec.flags, 9);
	CHECK_EQ_INT(btrfs_decode_qgroup_status(st, 31, &srec), -EUCLEAN);

	reset();
	btrfs_set_qgroup_info_generation(qi, 14);
	btrfs_set_qgroup_info_rfer(qi, 4554752);
	btrfs_set_qgroup_info_rfer_cmpr(qi, 4554751);
	btrfs_set_qgroup_info_excl(qi, 16384);
	btrfs_set_qgroup_info_excl_cmpr(qi, 16383);
	CHECK_EQ_INT(btrfs_decode_qgroup_info(qi, 40, &irec), 0);
	CHECK_EQ_U64(irec.generation, 14);
	CHECK_EQ_U64(irec.rfer, 4554752);
	CHECK_EQ_U64(irec.rfer_cmpr, 4554751);
	CHECK_EQ_U64(irec.excl, 16384);
	CHECK_EQ_U64(irec.excl_cmpr, 16383);
	CHECK_EQ_INT(btrfs_decode_qgroup_info(qi, 39, &irec), -EUCLEAN);

	reset();
	btrfs_set_qgroup_limit_flags(ql, BTRFS_QGROUP_LIMIT_MAX_RFER | BTRFS_QGROUP_LIMIT_RSV_EXCL);
	btrfs_set_qgroup_limit_max_rfer(ql, 104857600);
	btrfs_set_qgroup_limit_max_excl(ql, 52428800);
	btrfs_set_qgroup_limit_rsv_rfer(ql, 3);
	btrfs_set_qgroup_limit_rsv_excl(ql, 4);
	CHECK_EQ_INT(btrfs_decode_qgroup_limit(ql, 40, &lrec), 0);
	CHECK_EQ_U64(lrec.flags, 9);
	CHECK_EQ_U64(lrec.max_rfer, 104857600);
	CHECK_EQ_U64(lrec.max_excl, 52428800);
	CHECK_EQ_U64(lrec.rsv_rfer, 3);
	CHECK_EQ_U64(lrec.rsv_excl, 4);
	CHECK_EQ_INT(btrfs_decode_qgroup_limit(ql, 0, &lrec), -EUCLEAN);
}

static void test_chunk_and_devices(void)
{
	struct btrfs_chunk *c = ITEM;
	struct btrfs_chunk_rec rec;
	struct btrfs_stripe_rec srec;
	const u8 dev_uuid[16] = "devuuid-devuuid!";

	reset();
	btrfs_set_chunk_length(c, 8388608);
	btrfs_set_chunk_owner(c, BTRFS_EXTENT_TREE_OBJECTID);
	btrfs_set_chunk_stripe_len(c, BTRFS_STRIPE_LEN);
	btrfs_set_chunk_type(c, BTRFS_BLOCK_GROUP_SYSTEM | BTRFS_BLOCK_GROUP_DUP);
	btrfs_set_chunk_io_align(c, 65536);
	btrfs_set_chunk_io_width(c, 65536);
	btrfs_set_chunk_sector_size(c, 4096);
	btrfs_set_chunk_num_stripes(c, 2);
	btrfs_set_chunk_sub_stripes(c, 1);
	for (int i = 0; i < 2; i++) {
		btrfs_set_stripe_devid(btrfs_chunk_stripe(c, i), 1);
		btrfs_set_stripe_offset(btrfs_chunk_stripe(c, i), 22020096 + i * 8388608ULL);
		btrfs_set_stripe_dev_uuid(btrfs_chunk_stripe(c, i), dev_uuid);
	}
	CHECK_EQ_INT(btrfs_decode_chunk(c, 112, &rec), 0);
	CHECK_EQ_U64(rec.length, 8388608);
	CHECK_EQ_U64(rec.owner, 2);
	CHECK_EQ_U64(rec.stripe_len, 65536);
	CHECK_EQ_U64(rec.type, 0x22);
	CHECK_EQ_U64(rec.io_align, 65536);
	CHECK_EQ_U64(rec.io_width, 65536);
	CHECK_EQ_U64(rec.sector_size, 4096);
	CHECK_EQ_U64(rec.num_stripes, 2);
	CHECK_EQ_U64(rec.sub_stripes, 1);
	CHECK_EQ_U64(rec.item_size, 112);
	CHECK_EQ_INT(btrfs_chunk_rec_stripe(&rec, 1, &srec), 0);
	CHECK_EQ_U64(srec.devid, 1);
	CHECK_EQ_U64(srec.offset, 30408704);
	CHECK_MEM(srec.dev_uuid, dev_uuid, 16);
	CHECK_EQ_INT(btrfs_chunk_rec_stripe(&rec, 2, &srec), -EINVAL);
	/* Longer buffer (sys_chunk_array): item_size says where the next key is */
	CHECK_EQ_INT(btrfs_decode_chunk(c, 500, &rec), 0);
	CHECK_EQ_U64(rec.item_size, 112);
	CHECK_EQ_INT(btrfs_decode_chunk(c, 111, &rec), -EUCLEAN);
	CHECK_EQ_INT(btrfs_decode_chunk(c, 47, &rec), -EUCLEAN);
	btrfs_set_chunk_num_stripes(c, 3);
	CHECK_EQ_INT(btrfs_decode_chunk(c, 112, &rec), -EUCLEAN);
	btrfs_set_chunk_num_stripes(c, 0);
	CHECK_EQ_INT(btrfs_decode_chunk(c, 112, &rec), -EUCLEAN);

	{
		struct btrfs_dev_item *d = ITEM;
		struct btrfs_dev_item_rec drec;
		const u8 fsid[16] = "fsid-fsid-fsid-!";

		reset();
		btrfs_set_dev_item_devid(d, 1);
		btrfs_set_dev_item_total_bytes(d, 1ULL << 30);
		btrfs_set_dev_item_bytes_used(d, 123456789);
		btrfs_set_dev_item_io_align(d, 4096);
		btrfs_set_dev_item_io_width(d, 4097);
		btrfs_set_dev_item_sector_size(d, 4098);
		btrfs_set_dev_item_type(d, 5);
		btrfs_set_dev_item_generation(d, 6);
		btrfs_set_dev_item_start_offset(d, 7);
		btrfs_set_dev_item_dev_group(d, 8);
		btrfs_set_dev_item_seek_speed(d, 9);
		btrfs_set_dev_item_bandwidth(d, 10);
		btrfs_set_dev_item_uuid(d, dev_uuid);
		btrfs_set_dev_item_fsid(d, fsid);
		CHECK_EQ_INT(btrfs_decode_dev_item(d, 98, &drec), 0);
		CHECK_EQ_U64(drec.devid, 1);
		CHECK_EQ_U64(drec.total_bytes, 1ULL << 30);
		CHECK_EQ_U64(drec.bytes_used, 123456789);
		CHECK_EQ_U64(drec.io_align, 4096);
		CHECK_EQ_U64(drec.io_width, 4097);
		CHECK_EQ_U64(drec.sector_size, 4098);
		CHECK_EQ_U64(drec.type, 5);
		CHECK_EQ_U64(drec.generation, 6);
		CHECK_EQ_U64(drec.start_offset, 7);
		CHECK_EQ_U64(drec.dev_group, 8);
		CHECK_EQ_U64(drec.seek_speed, 9);
		CHECK_EQ_U64(drec.bandwidth, 10);
		CHECK_MEM(drec.uuid, dev_uuid, 16);
		CHECK_MEM(drec.fsid, fsid, 16);
		CHECK_EQ_INT(btrfs_decode_dev_item(d, 97, &drec), -EUCLEAN);
	}
	{
		struct btrfs_dev_extent *de = ITEM;
		struct btrfs_dev_extent_rec derec;

		reset();
		btrfs_set_dev_extent_chunk_tree(de, 3);
		btrfs_set_dev_extent_chunk_objectid(de, 256);
		btrfs_set_dev_extent_chunk_offset(de, 22020096);
		btrfs_set_dev_extent_length(de, 8388608);
		btrfs_set_dev_extent_chunk_tree_uuid(de, dev_uuid);
		CHECK_EQ_INT(btrfs_decode_dev_extent(de, 48, &derec), 0);
		CHECK_EQ_U64(derec.chunk_tree, 3);
		CHECK_EQ_U64(derec.chunk_objectid, 256);
		CHECK_EQ_U64(derec.chunk_offset, 22020096);
		CHECK_EQ_U64(derec.length, 8388608);
		CHECK_MEM(derec.chunk_tree_uuid, dev_uuid, 16);
		CHECK_EQ_INT(btrfs_decode_dev_extent(de, 47, &derec), -EUCLEAN);
	}
	{
		struct btrfs_block_group_item *bg = ITEM;
		struct btrfs_block_group_rec bgrec;
		struct btrfs_free_space_info *fsi = ITEM;
		struct btrfs_free_space_info_rec fsirec;

		reset();
		btrfs_set_block_group_used(bg, 147456);
		btrfs_set_block_group_chunk_objectid(bg, 256);
		btrfs_set_block_group_flags(bg, BTRFS_BLOCK_GROUP_METADATA | BTRFS_BLOCK_GROUP_DUP);
		CHECK_EQ_INT(btrfs_decode_block_group(bg, 24, &bgrec), 0);
		CHECK_EQ_U64(bgrec.used, 147456);
		CHECK_EQ_U64(bgrec.chunk_objectid, 256);
		CHECK_EQ_U64(bgrec.flags, 0x24);
		CHECK_EQ_INT(btrfs_decode_block_group(bg, 23, &bgrec), -EUCLEAN);

		reset();
		btrfs_set_free_space_info_extent_count(fsi, 2);
		btrfs_set_free_space_info_flags(fsi, BTRFS_FREE_SPACE_USING_BITMAPS);
		CHECK_EQ_INT(btrfs_decode_free_space_info(fsi, 8, &fsirec), 0);
		CHECK_EQ_U64(fsirec.extent_count, 2);
		CHECK_EQ_U64(fsirec.flags, 1);
		CHECK_EQ_INT(btrfs_decode_free_space_info(fsi, 7, &fsirec), -EUCLEAN);
	}
}

static u32 put_simple_ref(u8 *p, u8 type, u64 value)
{
	struct btrfs_extent_inline_ref *iref = (struct btrfs_extent_inline_ref *)p;

	btrfs_set_extent_inline_ref_type(iref, type);
	btrfs_set_extent_inline_ref_offset(iref, value);
	return 9;
}

static u32 put_data_ref(u8 *p, u64 root, u64 ino, u64 off, u32 count)
{
	struct btrfs_extent_data_ref *dref = (struct btrfs_extent_data_ref *)(p + 1);

	p[0] = BTRFS_EXTENT_DATA_REF_KEY;
	btrfs_set_extent_data_ref_root(dref, root);
	btrfs_set_extent_data_ref_objectid(dref, ino);
	btrfs_set_extent_data_ref_offset(dref, off);
	btrfs_set_extent_data_ref_count(dref, count);
	return 29;
}

static void test_extent_item(void)
{
	struct btrfs_extent_item *ei = ITEM;
	struct btrfs_extent_rec rec;
	struct btrfs_extent_ref_rec ref;
	u8 *p = ITEM;
	u32 len, pos;

	/* Skinny tree block with two inline refs: 42 bytes as observed */
	reset();
	btrfs_set_extent_refs(ei, 2);
	btrfs_set_extent_generation(ei, 9);
	btrfs_set_extent_flags(ei, BTRFS_EXTENT_FLAG_TREE_BLOCK);
	len = 24;
	len += put_simple_ref(p + len, BTRFS_TREE_BLOCK_REF_KEY, 257);
	len += put_simple_ref(p + len, BTRFS_TREE_BLOCK_REF_KEY, 256);
	CHECK_EQ_U64(len, 42);
	CHECK_EQ_INT(btrfs_decode_extent_item(p, len, BTRFS_METADATA_ITEM_KEY, &rec), 0);
	CHECK_EQ_U64(rec.refs, 2);
	CHECK_EQ_U64(rec.generation, 9);
	CHECK_EQ_U64(rec.flags, BTRFS_EXTENT_FLAG_TREE_BLOCK);
	CHECK(!rec.has_tree_block_info);
	CHECK_EQ_U64(rec.inline_start, 24);
	pos = rec.inline_start;
	CHECK_EQ_INT(btrfs_extent_inline_ref_next(p, len, &pos, &ref), 0);
	CHECK_EQ_U64(ref.type, BTRFS_TREE_BLOCK_REF_KEY);
	CHECK_EQ_U64(ref.root, 257);
	CHECK_EQ_U64(ref.count, 1);
	CHECK_EQ_INT(btrfs_extent_inline_ref_next(p, len, &pos, &ref), 0);
	CHECK_EQ_U64(ref.root, 256);
	CHECK_EQ_INT(btrfs_extent_inline_ref_next(p, len, &pos, &ref), 1);
	/* Truncated last ref */
	pos = rec.inline_start;
	CHECK_EQ_INT(btrfs_extent_inline_ref_next(p, len - 1, &pos, &ref), 0);
	CHECK_EQ_INT(btrfs_extent_inline_ref_next(p, len - 1, &pos, &ref), -EUCLEAN);
	/* Unknown inline ref type */
	p[33] = BTRFS_ROOT_ITEM_KEY;
	pos = 33;
	CHECK_EQ_INT(btrfs_extent_inline_ref_next(p, len, &pos, &ref), -EUCLEAN);

	/* Data extent: owner ref, data ref, shared data ref (24 + 9 + 29 + 13) */
	reset();
	btrfs_set_extent_refs(ei, 3);
	btrfs_set_extent_generation(ei, 12);
	btrfs_set_extent_flags(ei, BTRFS_EXTENT_FLAG_DATA);
	len = 24;
	len += put_simple_ref(p + len, BTRFS_EXTENT_OWNER_REF_KEY, 256);
	len += put_data_ref(p + len, 257, 551, 0, 2);
	len += put_simple_ref(p + len, BTRFS_SHARED_DATA_REF_KEY, 30441472);
	put_le32(p + len, 1);
	len += 4;
	CHECK_EQ_U64(len, 75);
	CHECK_EQ_INT(btrfs_decode_extent_item(p, len, BTRFS_EXTENT_ITEM_KEY, &rec), 0);
	CHECK_EQ_U64(rec.flags, BTRFS_EXTENT_FLAG_DATA);
	CHECK(!rec.has_tree_block_info);
	pos = rec.inline_start;
	CHECK_EQ_INT(btrfs_extent_inline_ref_next(p, len, &pos, &ref), 0);
	CHECK_EQ_U64(ref.type, BTRFS_EXTENT_OWNER_REF_KEY);
	CHECK_EQ_U64(ref.root, 256);
	CHECK_EQ_U64(ref.count, 0);
	CHECK_EQ_INT(btrfs_extent_inline_ref_next(p, len, &pos, &ref), 0);
	CHECK_EQ_U64(ref.type, BTRFS_EXTENT_DATA_REF_KEY);
	CHECK_EQ_U64(ref.root, 257);
	CHECK_EQ_U64(ref.objectid, 551);
	CHECK_EQ_U64(ref.offset, 0);
	CHECK_EQ_U64(ref.count, 2);
	CHECK_EQ_INT(btrfs_extent_inline_ref_next(p, len, &pos, &ref), 0);
	CHECK_EQ_U64(ref.type, BTRFS_SHARED_DATA_REF_KEY);
	CHECK_EQ_U64(ref.parent, 30441472);
	CHECK_EQ_U64(ref.count, 1);
	CHECK_EQ_INT(btrfs_extent_inline_ref_next(p, len, &pos, &ref), 1);
	CHECK_EQ_U64(pos, 75);

	/* Non-skinny tree block: tree_block_info before the refs */
	reset();
	btrfs_set_extent_refs(ei, 1);
	btrfs_set_extent_flags(ei, BTRFS_EXTENT_FLAG_TREE_BLOCK | BTRFS_BLOCK_FLAG_FULL_BACKREF);
	{
		struct btrfs_tree_block_info *info = (struct btrfs_tree_block_info *)(p + 24);
		struct btrfs_key first = { 256, BTRFS_INODE_ITEM_KEY, 0 };

		btrfs_set_tree_block_key(info, &first);
		btrfs_set_tree_block_level(info, 1);
	}
	len = 42 + put_simple_ref(p + 42, BTRFS_SHARED_BLOCK_REF_KEY, 30408704);
	CHECK_EQ_INT(btrfs_decode_extent_item(p, len, BTRFS_EXTENT_ITEM_KEY, &rec), 0);
	CHECK(rec.has_tree_block_info);
	CHECK_EQ_U64(rec.tree_block_key.objectid, 256);
	CHECK_EQ_U64(rec.tree_block_level, 1);
	CHECK_EQ_U64(rec.inline_start, 42);
	pos = rec.inline_start;
	CHECK_EQ_INT(btrfs_extent_inline_ref_next(p, len, &pos, &ref), 0);
	CHECK_EQ_U64(ref.type, BTRFS_SHARED_BLOCK_REF_KEY);
	CHECK_EQ_U64(ref.parent, 30408704);
	CHECK_EQ_U64(ref.count, 1);
	CHECK_EQ_INT(btrfs_decode_extent_item(p, 41, BTRFS_EXTENT_ITEM_KEY, &rec), -EUCLEAN);
	/* The same bytes under a METADATA_ITEM key have no tree_block_info */
	CHECK_EQ_INT(btrfs_decode_extent_item(p, 41, BTRFS_METADATA_ITEM_KEY, &rec), 0);
	CHECK_EQ_U64(rec.inline_start, 24);

	CHECK_EQ_INT(btrfs_decode_extent_item(p, 23, BTRFS_METADATA_ITEM_KEY, &rec), -EUCLEAN);
	CHECK_EQ_INT(btrfs_decode_extent_item(p, len, BTRFS_ROOT_ITEM_KEY, &rec), -EINVAL);
}

static void test_keyed_refs(void)
{
	struct btrfs_extent_ref_rec ref;
	struct btrfs_key key = { 30408704, BTRFS_TREE_BLOCK_REF_KEY, 257 };
	u8 *p = ITEM;

	reset();
	CHECK_EQ_INT(btrfs_decode_keyed_ref(&key, p, 0, &ref), 0);
	CHECK_EQ_U64(ref.type, BTRFS_TREE_BLOCK_REF_KEY);
	CHECK_EQ_U64(ref.root, 257);
	CHECK_EQ_U64(ref.count, 1);

	key.type = BTRFS_SHARED_BLOCK_REF_KEY;
	key.offset = 30425088;
	CHECK_EQ_INT(btrfs_decode_keyed_ref(&key, p, 0, &ref), 0);
	CHECK_EQ_U64(ref.parent, 30425088);
	CHECK_EQ_U64(ref.count, 1);

	key.type = BTRFS_EXTENT_DATA_REF_KEY;
	key.offset = 0x29740e4d8b220271ULL;
	put_data_ref(p - 1, 257, 551, 0, 3);	/* keyed form has no type byte */
	CHECK_EQ_INT(btrfs_decode_keyed_ref(&key, p, 28, &ref), 0);
	CHECK_EQ_U64(ref.root, 257);
	CHECK_EQ_U64(ref.objectid, 551);
	CHECK_EQ_U64(ref.offset, 0);
	CHECK_EQ_U64(ref.count, 3);
	CHECK_EQ_INT(btrfs_decode_keyed_ref(&key, p, 27, &ref), -EUCLEAN);

	key.type = BTRFS_SHARED_DATA_REF_KEY;
	key.offset = 30441472;
	put_le32(p, 4);
	CHECK_EQ_INT(btrfs_decode_keyed_ref(&key, p, 4, &ref), 0);
	CHECK_EQ_U64(ref.parent, 30441472);
	CHECK_EQ_U64(ref.count, 4);
	CHECK_EQ_INT(btrfs_decode_keyed_ref(&key, p, 3, &ref), -EUCLEAN);

	key.type = BTRFS_EXTENT_ITEM_KEY;
	CHECK_EQ_INT(btrfs_decode_keyed_ref(&key, p, 4, &ref), -EINVAL);
}

static void test_file_extent(void)
{
	struct btrfs_file_extent_item *fi = ITEM;
	struct btrfs_file_extent_rec rec;

	reset();
	btrfs_set_file_extent_generation(fi, 10);
	btrfs_set_file_extent_ram_bytes(fi, 5);
	btrfs_set_file_extent_compression(fi, BTRFS_COMPRESS_NONE);
	btrfs_set_file_extent_type(fi, BTRFS_FILE_EXTENT_INLINE);
	memcpy(btrfs_file_extent_inline_data(fi), "hello", 5);
	CHECK_EQ_INT(btrfs_decode_file_extent(fi, 26, &rec), 0);
	CHECK_EQ_U64(rec.type, BTRFS_FILE_EXTENT_INLINE);
	CHECK_EQ_U64(rec.generation, 10);
	CHECK_EQ_U64(rec.ram_bytes, 5);
	CHECK_EQ_U64(rec.inline_len, 5);
	CHECK_MEM(rec.inline_data, "hello", 5);
	CHECK_EQ_U64(rec.disk_bytenr, 0);
	CHECK_EQ_INT(btrfs_decode_file_extent(fi, 20, &rec), -EUCLEAN);

	reset();
	btrfs_set_file_extent_generation(fi, 11);
	btrfs_set_file_extent_ram_bytes(fi, 131072);
	btrfs_set_file_extent_compression(fi, BTRFS_COMPRESS_ZSTD);
	btrfs_set_file_extent_encryption(fi, 0);
	btrfs_set_file_extent_other_encoding(fi, 0x1234);
	btrfs_set_file_extent_type(fi, BTRFS_FILE_EXTENT_REG);
	btrfs_set_file_extent_disk_bytenr(fi, 13631488);
	btrfs_set_file_extent_disk_num_bytes(fi, 8192);
	btrfs_set_file_extent_offset(fi, 4096);
	btrfs_set_file_extent_num_bytes(fi, 65536);
	CHECK_EQ_INT(btrfs_decode_file_extent(fi, 53, &rec), 0);
	CHECK_EQ_U64(rec.type, BTRFS_FILE_EXTENT_REG);
	CHECK_EQ_U64(rec.compression, BTRFS_COMPRESS_ZSTD);
	CHECK_EQ_U64(rec.other_encoding, 0x1234);
	CHECK_EQ_U64(rec.disk_bytenr, 13631488);
	CHECK_EQ_U64(rec.disk_num_bytes, 8192);
	CHECK_EQ_U64(rec.offset, 4096);
	CHECK_EQ_U64(rec.num_bytes, 65536);
	CHECK_EQ_U64(rec.inline_len, 0);
	CHECK(rec.inline_data == NULL);
	CHECK_EQ_INT(btrfs_decode_file_extent(fi, 52, &rec), -EUCLEAN);
	btrfs_set_file_extent_type(fi, BTRFS_FILE_EXTENT_PREALLOC);
	CHECK_EQ_INT(btrfs_decode_file_extent(fi, 53, &rec), 0);
	btrfs_set_file_extent_type(fi, 3);
	CHECK_EQ_INT(btrfs_decode_file_extent(fi, 53, &rec), -EUCLEAN);
}

static void test_uuid_item(void)
{
	u8 *p = ITEM;
	u64 id;
	u32 pos = 0;

	reset();
	put_le64(p, 256);
	put_le64(p + 8, 300);
	CHECK_EQ_INT(btrfs_uuid_item_next(p, 16, &pos, &id), 0);
	CHECK_EQ_U64(id, 256);
	CHECK_EQ_INT(btrfs_uuid_item_next(p, 16, &pos, &id), 0);
	CHECK_EQ_U64(id, 300);
	CHECK_EQ_INT(btrfs_uuid_item_next(p, 16, &pos, &id), 1);
	pos = 0;
	CHECK_EQ_INT(btrfs_uuid_item_next(p, 12, &pos, &id), -EUCLEAN);
	pos = 0;
	CHECK_EQ_INT(btrfs_uuid_item_next(p, 0, &pos, &id), 1);
}

static void test_names(void)
{
	CHECK_STR(btrfs_item_type_name(BTRFS_ROOT_ITEM_KEY), "ROOT_ITEM");
	CHECK_STR(btrfs_item_type_name(BTRFS_DIR_INDEX_KEY), "DIR_INDEX");
	CHECK_STR(btrfs_item_type_name(BTRFS_QGROUP_RELATION_KEY), "QGROUP_RELATION");
	CHECK_STR(btrfs_item_type_name(BTRFS_PERSISTENT_ITEM_KEY), "PERSISTENT_ITEM");
	CHECK_STR(btrfs_item_type_name(BTRFS_UUID_KEY_RECEIVED_SUBVOL), "UUID_KEY_RECEIVED_SUBVOL");
	CHECK_STR(btrfs_item_type_name(BTRFS_EXTENT_OWNER_REF_KEY), "EXTENT_OWNER_REF");
	CHECK(btrfs_item_type_name(0) == NULL);
	CHECK(btrfs_item_type_name(255) == NULL);

	CHECK_STR(btrfs_tree_name(BTRFS_ROOT_TREE_OBJECTID), "ROOT_TREE");
	CHECK_STR(btrfs_tree_name(BTRFS_FS_TREE_OBJECTID), "FS_TREE");
	CHECK_STR(btrfs_tree_name(BTRFS_QUOTA_TREE_OBJECTID), "QUOTA_TREE");
	CHECK_STR(btrfs_tree_name(BTRFS_BLOCK_GROUP_TREE_OBJECTID), "BLOCK_GROUP_TREE");
	CHECK_STR(btrfs_tree_name(BTRFS_DATA_RELOC_TREE_OBJECTID), "DATA_RELOC_TREE");
	CHECK(btrfs_tree_name(BTRFS_ROOT_TREE_DIR_OBJECTID) == NULL);
	CHECK(btrfs_tree_name(256) == NULL);
}

int main(void)
{
	test_inode();
	test_root_item();
	test_root_ref();
	test_inode_ref();
	test_inode_extref();
	test_dir_item();
	test_qgroup();
	test_chunk_and_devices();
	test_extent_item();
	test_keyed_refs();
	test_file_extent();
	test_uuid_item();
	test_names();
	return unit_finish();
}
