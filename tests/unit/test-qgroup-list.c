// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for kernel-shared/qgroup-list.c over an in-memory item source:
 * status, info, limit and relation items, ancestors marking, kinds (stale,
 * under deletion, squota holder), a missing quota tree and a truncated item.
 * The qgroup facts of common/backend/facts-qgroup.c over a loaded list: the
 * chain of groups above one, the limits on writes into it and the binding one.
 * Also renders a list through common/output/qgroup-out.c and compares the text table
 * byte for byte with what btrfs-progs 6.2 printed for the same qgroups.
 */
#include <errno.h>
#include <stdlib.h>

#include "common/backend/facts-qgroup.h"
#include "common/output/qgroup-out.h"
#include "common/util/units.h"
#include "kernel-shared/qgroup-list.h"
#include "kernel-shared/subvol-list.h"
#include "unit.h"

#define L1(id) ((1ULL << 48) | (id))
#define L2(id) ((2ULL << 48) | (id))

struct fake_item {
	struct btrfs_key key;
	u8 data[40];
	u32 len;
};

struct fake_tree {
	u64 tree_id;
	size_t nr;
	struct fake_item items[64];
};

static int key_cmp(const struct btrfs_key *a, const struct btrfs_key *b)
{
	if (a->objectid != b->objectid)
		return a->objectid < b->objectid ? -1 : 1;
	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	return 0;
}

static int item_cmp(const void *a, const void *b)
{
	return key_cmp(&((const struct fake_item *)a)->key, &((const struct fake_item *)b)->key);
}

static int fake_search(void *src_priv, u64 tree_id, const struct btrfs_key *min,
		       const struct btrfs_key *max, btrfs_item_cb cb, void *priv)
{
	struct fake_tree *t = src_priv;
	int ret;

	if (tree_id != t->tree_id)
		return -ENOENT;
	qsort(t->items, t->nr, sizeof(t->items[0]), item_cmp);
	for (size_t i = 0; i < t->nr; i++) {
		if (key_cmp(&t->items[i].key, min) < 0 || key_cmp(&t->items[i].key, max) > 0)
			continue;
		ret = cb(priv, &t->items[i].key, t->items[i].data, t->items[i].len);
		if (ret < 0)
			return ret;
		if (ret)
			return 0;
	}
	return 0;
}

static struct fake_item *add(struct fake_tree *t, u64 obj, u8 type, u64 off, u32 len)
{
	struct fake_item *it = &t->items[t->nr++];

	memset(it, 0, sizeof(*it));
	it->key.objectid = obj;
	it->key.type = type;
	it->key.offset = off;
	it->len = len;
	return it;
}

static void add_status(struct fake_tree *t, u64 flags)
{
	struct fake_item *it = add(t, 0, BTRFS_QGROUP_STATUS_KEY, 0, 40);

	put_le64(it->data, 1);
	put_le64(it->data + 8, 10);
	put_le64(it->data + 16, flags);
}

static void add_info(struct fake_tree *t, u64 qgid, u64 rfer, u64 excl)
{
	struct fake_item *it = add(t, 0, BTRFS_QGROUP_INFO_KEY, qgid, 40);

	put_le64(it->data, 7);
	put_le64(it->data + 8, rfer);
	put_le64(it->data + 16, rfer);
	put_le64(it->data + 24, excl);
	put_le64(it->data + 32, excl);
}

static void add_limit(struct fake_tree *t, u64 qgid, u64 flags, u64 max_rfer, u64 max_excl)
{
	struct fake_item *it = add(t, 0, BTRFS_QGROUP_LIMIT_KEY, qgid, 40);

	put_le64(it->data, flags);
	put_le64(it->data + 8, max_rfer);
	put_le64(it->data + 16, max_excl);
}

static void add_relation(struct fake_tree *t, u64 parent, u64 child)
{
	add(t, parent, BTRFS_QGROUP_RELATION_KEY, child, 0);
	add(t, child, BTRFS_QGROUP_RELATION_KEY, parent, 0);
}

static struct btrfs_item_source source(struct fake_tree *t)
{
	struct btrfs_item_source src = { .search = fake_search, .src_priv = t };

	return src;
}

static void test_hierarchy(void)
{
	static struct fake_tree t = { .tree_id = BTRFS_QUOTA_TREE_OBJECTID };
	struct btrfs_item_source src = source(&t);
	struct btrfs_qgroup_list list;
	struct btrfs_qgroup *qg;
	bool mark[16] = { false };
	char buf[BTRFS_QGROUPID_BUFSIZE];

	add_status(&t, BTRFS_QGROUP_STATUS_FLAG_ON | BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT);
	add_info(&t, 5, 16384, 16384);
	add_info(&t, 256, 5 << 20, 5 << 20);
	add_info(&t, 257, 1 << 20, 1 << 20);
	add_info(&t, 258, 16384, 16384);
	add_info(&t, L1(1), 6 << 20, 6 << 20);
	add_info(&t, L2(1), 6 << 20, 6 << 20);
	add_limit(&t, 5, 0, 0, 0);
	add_limit(&t, 256, BTRFS_QGROUP_LIMIT_MAX_RFER, 5 << 20, 0);
	add_limit(&t, L1(1), BTRFS_QGROUP_LIMIT_MAX_RFER, 10 << 20, 0);
	/* a LIMIT without INFO still makes a group */
	add_limit(&t, L1(9), BTRFS_QGROUP_LIMIT_MAX_EXCL, 0, 4096);
	add_relation(&t, L1(1), 256);
	add_relation(&t, L1(1), 257);
	add_relation(&t, L2(1), L1(1));
	/* a relation to a group that has no items is dropped */
	add_relation(&t, L1(77), 258);

	CHECK_EQ_INT(btrfs_qgroup_list_load(&src, &list), 0);
	CHECK(list.has_status);
	CHECK_EQ_U64(list.status.flags, 5);
	CHECK(!btrfs_qgroup_list_is_simple(&list));
	CHECK_EQ_U64(list.nr, 7);
	for (size_t i = 1; i < list.nr; i++)
		CHECK(list.groups[i - 1].qgroupid < list.groups[i].qgroupid);

	qg = btrfs_qgroup_list_find(&list, 256);
	CHECK(qg && qg->has_info && qg->has_limit);
	if (qg) {
		CHECK_EQ_U64(qg->info.rfer, 5 << 20);
		CHECK_EQ_U64(qg->limit.max_rfer, 5 << 20);
		CHECK_EQ_U64(qg->nr_parents, 1);
		CHECK_EQ_U64(qg->parents[0], L1(1));
		CHECK_EQ_U64(qg->nr_children, 0);
	}
	qg = btrfs_qgroup_list_find(&list, L1(1));
	CHECK(qg != NULL);
	if (qg) {
		CHECK_EQ_U64(qg->nr_children, 2);
		CHECK_EQ_U64(qg->children[0], 256);
		CHECK_EQ_U64(qg->children[1], 257);
		CHECK_EQ_U64(qg->nr_parents, 1);
		CHECK_EQ_U64(qg->parents[0], L2(1));
	}
	qg = btrfs_qgroup_list_find(&list, 258);
	CHECK(qg && qg->nr_parents == 0);
	qg = btrfs_qgroup_list_find(&list, L1(9));
	CHECK(qg && !qg->has_info && qg->has_limit && qg->info.rfer == 0);
	CHECK(btrfs_qgroup_list_find(&list, L1(77)) == NULL);
	CHECK(btrfs_qgroup_list_find(&list, 4) == NULL);

	/* -F: 257 and everything above it */
	btrfs_qgroup_list_mark(&list, 257, true, mark);
	CHECK(mark[btrfs_qgroup_list_find(&list, 257) - list.groups]);
	CHECK(mark[btrfs_qgroup_list_find(&list, L1(1)) - list.groups]);
	CHECK(mark[btrfs_qgroup_list_find(&list, L2(1)) - list.groups]);
	CHECK(!mark[btrfs_qgroup_list_find(&list, 256) - list.groups]);
	CHECK(!mark[btrfs_qgroup_list_find(&list, 5) - list.groups]);

	CHECK_STR(btrfs_qgroupid_str(L2(1), buf), "2/1");
	CHECK_STR(btrfs_qgroupid_str(257, buf), "0/257");
	CHECK_STR(btrfs_qgroupid_str((65535ULL << 48) | 281474976710655ULL, buf),
		  "65535/281474976710655");

	btrfs_qgroup_list_release(&list);
	CHECK_EQ_U64(list.nr, 0);
	CHECK(list.groups == NULL);
}

static void test_kinds(void)
{
	static struct fake_tree t = { .tree_id = BTRFS_QUOTA_TREE_OBJECTID };
	struct btrfs_item_source src = source(&t);
	struct btrfs_subvol svs[3];
	struct btrfs_subvol_list subvols = { .nr = 3, .subvols = svs };
	struct btrfs_qgroup_list list;
	char empty[] = "", a[] = "a";

	memset(svs, 0, sizeof(svs));
	svs[0].id = 5;
	svs[0].path = empty;
	svs[1].id = 256;
	svs[1].path = a;
	svs[2].id = 257;		/* deleted, still has its ROOT_ITEM */
	svs[2].deleted = true;

	add_status(&t, BTRFS_QGROUP_STATUS_FLAG_ON);
	add_info(&t, 5, 16384, 16384);
	add_info(&t, 256, 16384, 16384);
	add_info(&t, 257, 16384, 16384);
	add_info(&t, 258, 0, 0);
	add_info(&t, L1(1), 0, 0);
	CHECK_EQ_INT(btrfs_qgroup_list_load(&src, &list), 0);
	CHECK_EQ_INT(btrfs_qgroup_kind(&list, btrfs_qgroup_list_find(&list, 5), &subvols),
		     BTRFS_QGROUP_KIND_TOPLEVEL);
	CHECK_EQ_INT(btrfs_qgroup_kind(&list, btrfs_qgroup_list_find(&list, 256), &subvols),
		     BTRFS_QGROUP_KIND_SUBVOL);
	CHECK_EQ_INT(btrfs_qgroup_kind(&list, btrfs_qgroup_list_find(&list, 257), &subvols),
		     BTRFS_QGROUP_KIND_UNDER_DELETION);
	CHECK_EQ_INT(btrfs_qgroup_kind(&list, btrfs_qgroup_list_find(&list, 258), &subvols),
		     BTRFS_QGROUP_KIND_STALE);
	CHECK_EQ_INT(btrfs_qgroup_kind(&list, btrfs_qgroup_list_find(&list, L1(1)), &subvols),
		     BTRFS_QGROUP_KIND_GROUP);
	btrfs_qgroup_list_release(&list);

	/* simple quotas: a stale group with a charge is a space holder */
	t.nr = 0;
	add_status(&t, BTRFS_QGROUP_STATUS_FLAG_ON | BTRFS_QGROUP_STATUS_FLAG_SIMPLE_MODE);
	add_info(&t, 258, 2 << 20, 2 << 20);
	add_info(&t, 259, 0, 0);
	CHECK_EQ_INT(btrfs_qgroup_list_load(&src, &list), 0);
	CHECK(btrfs_qgroup_list_is_simple(&list));
	CHECK_EQ_INT(btrfs_qgroup_kind(&list, btrfs_qgroup_list_find(&list, 258), &subvols),
		     BTRFS_QGROUP_KIND_SQUOTA_HOLDER);
	CHECK_EQ_INT(btrfs_qgroup_kind(&list, btrfs_qgroup_list_find(&list, 259), &subvols),
		     BTRFS_QGROUP_KIND_STALE);
	btrfs_qgroup_list_release(&list);
}

static void test_errors(void)
{
	static struct fake_tree t = { .tree_id = 1 };	/* no quota tree */
	struct btrfs_item_source src = source(&t);
	struct btrfs_qgroup_list list;

	CHECK_EQ_INT(btrfs_qgroup_list_load(&src, &list), -ENOENT);
	CHECK_EQ_U64(list.nr, 0);

	t.tree_id = BTRFS_QUOTA_TREE_OBJECTID;
	add_info(&t, 256, 1, 1);
	add(&t, 0, BTRFS_QGROUP_INFO_KEY, 257, 16);	/* truncated INFO */
	CHECK_EQ_INT(btrfs_qgroup_list_load(&src, &list), -EUCLEAN);
	CHECK_EQ_U64(list.nr, 0);
	CHECK(list.groups == NULL);

	/* an empty quota tree loads as an empty list without status */
	t.nr = 0;
	CHECK_EQ_INT(btrfs_qgroup_list_load(&src, &list), 0);
	CHECK(!list.has_status);
	CHECK_EQ_U64(list.nr, 0);
	btrfs_qgroup_list_release(&list);
}

static void test_many(void)
{
	/* more groups than the first allocation, inserted out of order */
	static struct fake_tree t = { .tree_id = BTRFS_QUOTA_TREE_OBJECTID };
	struct btrfs_item_source src = source(&t);
	struct btrfs_qgroup_list list;
	bool sorted = true;

	for (u64 i = 0; i < 60; i++)
		add_limit(&t, 1000 - i, 0, 0, 0);
	CHECK_EQ_INT(btrfs_qgroup_list_load(&src, &list), 0);
	CHECK_EQ_U64(list.nr, 60);
	for (size_t i = 1; i < list.nr; i++)
		sorted &= list.groups[i - 1].qgroupid < list.groups[i].qgroupid;
	CHECK(sorted);
	CHECK(btrfs_qgroup_list_find(&list, 941) != NULL);
	CHECK(btrfs_qgroup_list_find(&list, 940) == NULL);
	btrfs_qgroup_list_release(&list);
}

/* Render @view with @fn into a string (malloc'ed). */
static char *render(const struct qgroup_view *view, const struct qgroup_show_opts *opts, int which)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		return NULL;
	if (which == 0)
		qgroup_print_table(f, view, opts);
	else if (which == 1)
		qgroup_print_tree(f, view, opts);
	else
		qgroup_print_json(f, view, false);
	fclose(f);
	return buf;
}

static void test_render(void)
{
	/* the 6.2 sample: 0/257 and 0/258 in 1/100, 1/100 in 2/1 */
	static struct fake_tree t = { .tree_id = BTRFS_QUOTA_TREE_OBJECTID };
	struct btrfs_item_source src = source(&t);
	struct btrfs_subvol svs[3];
	struct btrfs_subvol_list subvols = { .nr = 3, .subvols = svs };
	struct qgroup_show_opts opts = { .parent = true, .child = true };
	struct btrfs_qgroup_list list;
	struct qgroup_row rows[5] = { 0 };
	struct qgroup_view view = { .list = &list, .nr = 5, .rows = rows };
	char empty[] = "", d[] = "d", snap[] = "snap-a", abs_d[] = "/mnt/d";
	char *out;

	memset(svs, 0, sizeof(svs));
	svs[0].id = 5;
	svs[0].path = empty;
	svs[1].id = 257;
	svs[1].path = d;
	svs[2].id = 258;
	svs[2].path = snap;
	add_status(&t, BTRFS_QGROUP_STATUS_FLAG_ON);
	add_info(&t, 5, 16384, 16384);
	add_info(&t, 257, 3162112, 3162112);
	add_info(&t, 258, 16384, 16384);
	add_info(&t, L1(100), 3178496, 3178496);
	add_info(&t, L2(1), 3178496, 3178496);
	add_limit(&t, 257, BTRFS_QGROUP_LIMIT_MAX_EXCL, 0, 2097152);
	add_limit(&t, L1(100), BTRFS_QGROUP_LIMIT_MAX_RFER, 10485760, 0);
	add_relation(&t, L1(100), 257);
	add_relation(&t, L1(100), 258);
	add_relation(&t, L2(1), L1(100));
	CHECK_EQ_INT(btrfs_qgroup_list_load(&src, &list), 0);
	CHECK_EQ_U64(list.nr, 5);
	if (list.nr != 5)
		return;
	for (size_t i = 0; i < 5; i++) {
		const struct btrfs_subvol *sv;

		rows[i].qg = &list.groups[i];
		rows[i].kind = btrfs_qgroup_kind(&list, rows[i].qg, &subvols);
		sv = btrfs_subvol_list_find(&subvols, list.groups[i].qgroupid);
		rows[i].path = sv ? sv->path : NULL;
	}

	out = render(&view, &opts, 0);
	CHECK_STR(out,
		  "Qgroupid    Referenced    Exclusive Parent   Child         Path \n"
		  "--------    ----------    --------- ------   -----         ---- \n"
		  "0/5           16.00KiB     16.00KiB -        -             <toplevel>\n"
		  "0/257          3.02MiB      3.02MiB 1/100    -             d\n"
		  "0/258         16.00KiB     16.00KiB 1/100    -             snap-a\n"
		  "1/100          3.03MiB      3.03MiB 2/1      0/257,0/258   <2 members>\n"
		  "2/1            3.03MiB      3.03MiB -        1/100         <1 member>\n");
	free(out);

	opts = (struct qgroup_show_opts){ .max_rfer = true, .max_excl = true,
					  .units = 1U << UNITS_FIXED_SHIFT };
	view.nr = 2;
	rows[1] = rows[3];	/* 0/5 and 1/100 */
	out = render(&view, &opts, 0);
	CHECK_STR(out,
		  "Qgroupid    Referenced    Exclusive  Max referenced  Max exclusive   Path \n"
		  "--------    ----------    ---------  --------------  -------------   ---- \n"
		  "0/5           16.00KiB     16.00KiB            none           none   <toplevel>\n"
		  "1/100       3104.00KiB   3104.00KiB     10240.00KiB           none   <2 members>\n");
	free(out);

	/* the tree: 2/1 at the root, then 1/100, then its members */
	view.nr = 5;
	for (size_t i = 0; i < 5; i++)
		rows[i].qg = &list.groups[i];
	rows[1].kind = BTRFS_QGROUP_KIND_SUBVOL;
	rows[1].path = d;
	rows[3].kind = BTRFS_QGROUP_KIND_GROUP;
	rows[3].path = NULL;
	opts = (struct qgroup_show_opts){ 0 };
	out = render(&view, &opts, 1);
	CHECK(out != NULL);
	if (out) {
		char *l21 = strstr(out, "\n2/1 "), *l1 = strstr(out, "`-1/100"),
		     *l257 = strstr(out, "  |-0/257"), *l258 = strstr(out, "  `-0/258"),
		     *l5 = strstr(out, "\n0/5 ");

		CHECK(l21 && l1 && l257 && l258 && l5);
		CHECK(l21 < l1 && l1 < l257 && l257 < l258 && l258 < l5);
		CHECK(l257 && strstr(l257, "3.02MiB/2.00MiB") && strstr(l257, "150% full d"));
		CHECK(l1 && strstr(l1, "3.03MiB/10.00MiB") && strstr(l1, "30% <2 members>"));
	}
	free(out);

	rows[1].abs = abs_d;
	out = render(&view, &opts, 2);
	CHECK(out && strstr(out, "\"qgroupid\": \"1/100\""));
	CHECK(out && strstr(out, "\"absolute_path\": \"/mnt/d\""));
	CHECK(out && strstr(out, "\"max_exclusive\": 2097152"));
	CHECK(out && strstr(out, "\"status\": \"toplevel\""));
	free(out);
	btrfs_qgroup_list_release(&list);
}

static void test_limit_math(void)
{
	CHECK_EQ_INT(qgroup_limit_percent(0, 100, true), 0);
	CHECK_EQ_INT(qgroup_limit_percent(93, 100, true), 93);
	CHECK_EQ_INT(qgroup_limit_percent(5, 100, false), -1);
	CHECK_EQ_INT(qgroup_limit_percent(1, 0, true), 100);
	CHECK(!qgroup_limit_is_full(1, 100, false));
	CHECK(qgroup_limit_is_full(5242880, 5242880, true));
	CHECK(qgroup_limit_is_full(5226496, 5242880, true));	/* 16 KiB left of 5 MiB */
	CHECK(!qgroup_limit_is_full(4194304, 5242880, true));	/* 1 MiB left */
	CHECK(qgroup_limit_is_full(31436800, 31457280, true));	/* 29.98 of 30 MiB */
	CHECK(!qgroup_limit_is_full(16384, 5242880, true));
}

/* The STATUS item against the superblock: each fault alone, and what is not one */
static void test_status_faults(void)
{
	const u64 sq = BTRFS_FEATURE_INCOMPAT_SIMPLE_QUOTA;
	struct btrfs_qstatus_super none = { .incompat = 0, .generation = 20 };
	struct btrfs_qstatus_super simple = { .incompat = sq, .generation = 20 };
	struct btrfs_qgroup_status_rec full = {
		.version = 1, .generation = 20, .flags = BTRFS_QGROUP_STATUS_FLAG_ON,
		.has_enable_gen = true, .size = 40,
	};
	struct btrfs_qgroup_status_rec st;
	char buf[400];

	/* full mode, with or without the incompat bit ("enable -s, disable, enable") */
	CHECK_EQ_INT(btrfs_qgroup_status_faults(&full, &none), 0);
	CHECK_EQ_INT(btrfs_qgroup_status_faults(&full, &simple), 0);
	st = full;
	st.flags |= BTRFS_QGROUP_STATUS_FLAG_RESCAN | BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT;
	CHECK_EQ_INT(btrfs_qgroup_status_faults(&st, &none), 0);
	/* a pre-6.7 item of 32 bytes is fine in full mode */
	st = full;
	st.has_enable_gen = false;
	st.size = 32;
	CHECK_EQ_INT(btrfs_qgroup_status_faults(&st, &none), 0);

	/* unknown bits, even with a known superblock missing */
	st = full;
	st.flags |= 1ULL << 62;		/* the kernel's runtime NO_ACCOUNTING */
	CHECK_EQ_INT(btrfs_qgroup_status_faults(&st, NULL), BTRFS_QSTATUS_FAULT_UNKNOWN_FLAGS);
	CHECK_EQ_INT(btrfs_qgroup_status_faults(&st, &simple), BTRFS_QSTATUS_FAULT_UNKNOWN_FLAGS);
	CHECK_STR(btrfs_qgroup_status_fault_str(BTRFS_QSTATUS_FAULT_UNKNOWN_FLAGS, &st, &simple,
						buf, sizeof(buf)),
		  "flags 0x4000000000000001 hold unknown bits 0x4000000000000000");
	st.flags = BTRFS_QGROUP_STATUS_FLAG_ON | 0x10;
	CHECK_EQ_INT(btrfs_qgroup_status_faults(&st, &none), BTRFS_QSTATUS_FAULT_UNKNOWN_FLAGS);

	/* version */
	st = full;
	st.version = 2;
	CHECK_EQ_INT(btrfs_qgroup_status_faults(&st, &none), BTRFS_QSTATUS_FAULT_VERSION);
	st.version = 0;
	CHECK_EQ_INT(btrfs_qgroup_status_faults(&st, &none), BTRFS_QSTATUS_FAULT_VERSION);

	/* simple mode: the incompat bit, enable_gen present and not ahead */
	st = full;
	st.flags |= BTRFS_QGROUP_STATUS_FLAG_SIMPLE_MODE;
	st.enable_gen = 11;
	CHECK_EQ_INT(btrfs_qgroup_status_faults(&st, &simple), 0);
	CHECK_EQ_INT(btrfs_qgroup_status_faults(&st, &none), BTRFS_QSTATUS_FAULT_SIMPLE_NO_FEATURE);
	CHECK_EQ_INT(btrfs_qgroup_status_faults(&st, NULL), 0);	/* mounted: features unknown */
	CHECK_STR(btrfs_qgroup_status_fault_name(BTRFS_QSTATUS_FAULT_SIMPLE_NO_FEATURE),
		  "simple_without_feature");
	st.enable_gen = 21;		/* volctl's offline enable: T + 1 */
	CHECK_EQ_INT(btrfs_qgroup_status_faults(&st, &simple), 0);
	st.enable_gen = 22;
	CHECK_EQ_INT(btrfs_qgroup_status_faults(&st, &simple), BTRFS_QSTATUS_FAULT_ENABLE_GEN);
	st.enable_gen = 0;
	st.has_enable_gen = false;
	st.size = 32;
	CHECK_EQ_INT(btrfs_qgroup_status_faults(&st, NULL), BTRFS_QSTATUS_FAULT_NO_ENABLE_GEN);
	CHECK_STR(btrfs_qgroup_status_fault_str(BTRFS_QSTATUS_FAULT_NO_ENABLE_GEN, &st, NULL, buf,
						sizeof(buf)),
		  "flags 0x9 say simple quotas, but the item has 32 bytes, no enable generation");

	/* several at once: every one, in bit order, joined */
	st.version = 3;
	st.flags |= 1ULL << 40;
	CHECK_EQ_INT(btrfs_qgroup_status_faults(&st, &none),
		     BTRFS_QSTATUS_FAULT_VERSION | BTRFS_QSTATUS_FAULT_UNKNOWN_FLAGS |
		     BTRFS_QSTATUS_FAULT_SIMPLE_NO_FEATURE | BTRFS_QSTATUS_FAULT_NO_ENABLE_GEN);
	btrfs_qgroup_status_reason(btrfs_qgroup_status_faults(&st, &none), &st, &none, buf,
				   sizeof(buf));
	CHECK_STR(buf, "version 3, not 1 (the kernel turns quotas off); "
		  "flags 0x10000000009 hold unknown bits 0x10000000000; "
		  "flags 0x10000000009 say simple quotas, but the incompat feature simple_quota "
		  "is not set; flags 0x10000000009 say simple quotas, but the item has 32 bytes, "
		  "no enable generation");
	/* a short buffer is cut, never overrun */
	btrfs_qgroup_status_reason(btrfs_qgroup_status_faults(&st, &none), &st, &none, buf, 10);
	CHECK_EQ_INT(strlen(buf), 9);
}

/*
 * vc_fact_qgroup_chain(), vc_fact_qgroup_limits() and vc_fact_qgroup_binding()
 * (common/backend/facts-qgroup.c) over a loaded list, without a backend (no
 * reservations):
 *   256 (rfer 5M, limit rfer 5M) -> 1/1 (rfer 6M, limit rfer 10M)
 *   257 (no limit)              -> 1/1 -> 2/1 (rfer 6M excl 6M, limit rfer 20M excl 7M)
 *   258 (no limit, no parent)
 */
static void test_facts(void)
{
	static struct fake_tree t = { .tree_id = BTRFS_QUOTA_TREE_OBJECTID };
	struct btrfs_item_source src = source(&t);
	const struct btrfs_qgroup **chain;
	struct btrfs_qgroup_list list;
	struct vc_qgroup_limits ls;
	struct vc_qgroup_limit b;
	size_t nr = 99;

	add_status(&t, BTRFS_QGROUP_STATUS_FLAG_ON);
	add_info(&t, 5, 16384, 16384);
	add_info(&t, 256, 5 << 20, 5 << 20);
	add_info(&t, 257, 1 << 20, 1 << 20);
	add_info(&t, 258, 16384, 16384);
	add_info(&t, L1(1), 6 << 20, 6 << 20);
	add_info(&t, L2(1), 6 << 20, 6 << 20);
	add_limit(&t, 256, BTRFS_QGROUP_LIMIT_MAX_RFER, 5 << 20, 0);
	add_limit(&t, L1(1), BTRFS_QGROUP_LIMIT_MAX_RFER, 10 << 20, 0);
	add_limit(&t, L2(1), BTRFS_QGROUP_LIMIT_MAX_RFER | BTRFS_QGROUP_LIMIT_MAX_EXCL, 20 << 20,
		  7 << 20);
	add_relation(&t, L1(1), 256);
	add_relation(&t, L1(1), 257);
	add_relation(&t, L2(1), L1(1));
	CHECK_EQ_INT(btrfs_qgroup_list_load(&src, &list), 0);

	CHECK_EQ_INT(vc_fact_qgroup_chain(&list, 257, VC_QGROUPS_ABOVE, &chain, &nr), 0);
	CHECK_EQ_U64(nr, 3);
	if (nr == 3)
		CHECK(chain[0]->qgroupid == 257 && chain[1]->qgroupid == L1(1) &&
		      chain[2]->qgroupid == L2(1));
	free(chain);
	CHECK_EQ_INT(vc_fact_qgroup_chain(&list, 257, 0, &chain, &nr), 0);
	CHECK(nr == 1 && chain[0]->qgroupid == 257);
	free(chain);
	CHECK_EQ_INT(vc_fact_qgroup_chain(&list, 999, VC_QGROUPS_ABOVE, &chain, &nr), 0);
	CHECK_EQ_U64(nr, 0);
	free(chain);

	/* referenced before exclusive, in qgroupid order; 2/1 excl leaves the least */
	CHECK_EQ_INT(vc_fact_qgroup_limits(NULL, &list, 257, &ls), 0);
	CHECK_EQ_U64(ls.nr, 3);
	if (ls.nr == 3) {
		CHECK(ls.limits[0].qg->qgroupid == L1(1) && !ls.limits[0].exclusive);
		CHECK_EQ_U64(ls.limits[0].left, 4 << 20);
		CHECK(ls.limits[1].qg->qgroupid == L2(1) && !ls.limits[1].exclusive);
		CHECK_EQ_U64(ls.limits[1].left, 14 << 20);
		CHECK(ls.limits[2].qg->qgroupid == L2(1) && ls.limits[2].exclusive);
		CHECK_EQ_U64(ls.limits[2].used, 6 << 20);
		CHECK_EQ_U64(ls.limits[2].left, 1 << 20);
		CHECK(!ls.limits[2].has_reserved && ls.limits[2].reserved == 0);
	}
	CHECK_EQ_INT((int)ls.binding, 2);
	free(ls.limits);
	/* used == limit: nothing left, and that one binds */
	CHECK_EQ_INT(vc_fact_qgroup_binding(NULL, &list, 256, &b), 1);
	CHECK(b.qg && b.qg->qgroupid == 256 && !b.exclusive && b.left == 0 &&
	      b.limit == 5 << 20);
	/* no limit on 258 nor above it */
	CHECK_EQ_INT(vc_fact_qgroup_limits(NULL, &list, 258, &ls), 0);
	CHECK(ls.nr == 0 && ls.binding == -1);
	free(ls.limits);
	CHECK_EQ_INT(vc_fact_qgroup_binding(NULL, &list, 258, &b), 0);
	btrfs_qgroup_list_release(&list);
}

int main(void)
{
	test_status_faults();
	test_render();
	test_limit_math();
	test_hierarchy();
	test_facts();
	test_kinds();
	test_errors();
	test_many();
	return unit_finish();
}
