// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for kernel-shared/subvol-list.c over an in-memory item source:
 * a sorted array of synthetic items standing in for the root tree and the
 * subvolume trees.  Covers path resolution through ROOT_BACKREF and
 * INODE_REF chains, deleted and unreachable subvolumes, the default
 * subvolume, corrupt data (cycles, short items) and the number of searches
 * (the directory cache).
 */
#include <errno.h>
#include <stdlib.h>

#include "common/backend/facts.h"
#include "kernel-shared/acct-types.h"
#include "common/backend/subvol-plan.h"
#include "kernel-shared/subvol-list.h"
#include "unit.h"

struct mem_item {
	u64 tree;
	struct btrfs_key key;
	u8 *data;
	u32 len;
};

struct mem_src {
	size_t nr;
	struct mem_item items[20000];
	unsigned long searches;
};

static struct mem_src *ms;

static int item_cmp(const void *a, const void *b)
{
	const struct mem_item *x = a, *y = b;

	if (x->tree != y->tree)
		return x->tree < y->tree ? -1 : 1;
	return btrfs_key_cmp(&x->key, &y->key);
}

static int mem_search(void *priv, u64 tree, const struct btrfs_key *min,
		      const struct btrfs_key *max, btrfs_item_cb cb, void *cb_priv)
{
	struct mem_src *m = priv;
	bool tree_seen = false;

	m->searches++;
	for (size_t i = 0; i < m->nr; i++) {
		struct mem_item *it = &m->items[i];
		int ret;

		if (it->tree != tree)
			continue;
		tree_seen = true;
		if (btrfs_key_cmp(&it->key, min) < 0 || btrfs_key_cmp(&it->key, max) > 0)
			continue;
		ret = cb(cb_priv, &it->key, it->data, it->len);
		if (ret)
			return ret < 0 ? ret : 0;
	}
	return tree_seen ? 0 : -ENOENT;
}

static void src_reset(void)
{
	for (size_t i = 0; i < ms->nr; i++)
		free(ms->items[i].data);
	ms->nr = 0;
	ms->searches = 0;
}

static void add(u64 tree, u64 objectid, u8 type, u64 offset, const void *data, u32 len)
{
	struct mem_item *it = &ms->items[ms->nr++];

	it->tree = tree;
	it->key.objectid = objectid;
	it->key.type = type;
	it->key.offset = offset;
	it->data = malloc(len ? len : 1);
	memcpy(it->data, data, len);
	it->len = len;
}

static void finish(void)
{
	qsort(ms->items, ms->nr, sizeof(ms->items[0]), item_cmp);
}

static struct btrfs_item_source source(void)
{
	struct btrfs_item_source s = { .search = mem_search, .src_priv = ms };

	return s;
}

static void add_root(u64 id, u64 offset, u64 gen, u8 uuid_byte, u8 parent_uuid_byte, u64 flags)
{
	struct btrfs_root_item ri;
	u8 uuid[16] = { 0 }, puuid[16] = { 0 };

	memset(&ri, 0, sizeof(ri));
	btrfs_set_root_generation(&ri, gen);
	btrfs_set_root_generation_v2(&ri, gen);
	btrfs_set_root_otransid(&ri, offset ? offset : gen);
	btrfs_set_root_refs(&ri, 1);
	btrfs_set_root_flags(&ri, flags);
	uuid[0] = uuid_byte;
	puuid[0] = parent_uuid_byte;
	if (uuid_byte)
		btrfs_set_root_uuid(&ri, uuid);
	if (parent_uuid_byte)
		btrfs_set_root_parent_uuid(&ri, puuid);
	add(BTRFS_ROOT_TREE_OBJECTID, id, BTRFS_ROOT_ITEM_KEY, offset, &ri, sizeof(ri));
}

static void add_ref_item(u64 tree, u64 objectid, u8 type, u64 offset, u64 dirid,
			 const char *name)
{
	u8 buf[sizeof(struct btrfs_root_ref) + 256];
	struct btrfs_root_ref *rr = (struct btrfs_root_ref *)buf;
	size_t n = strlen(name);

	btrfs_set_root_ref_dirid(rr, dirid);
	btrfs_set_root_ref_sequence(rr, 2);
	btrfs_set_root_ref_name_len(rr, (u16)n);
	memcpy(buf + sizeof(*rr), name, n);
	add(tree, objectid, type, offset, buf, (u32)(sizeof(*rr) + n));
}

/* subvolume @id with entry @name in directory @dirid of tree @parent */
static void add_link(u64 id, u64 parent, u64 dirid, const char *name)
{
	add_ref_item(BTRFS_ROOT_TREE_OBJECTID, id, BTRFS_ROOT_BACKREF_KEY, parent, dirid, name);
	add_ref_item(BTRFS_ROOT_TREE_OBJECTID, parent, BTRFS_ROOT_REF_KEY, id, dirid, name);
}

/* directory inode @ino named @name in directory @parent_ino of tree @tree */
static void add_dir(u64 tree, u64 ino, u64 parent_ino, const char *name)
{
	u8 buf[sizeof(struct btrfs_inode_ref) + 256];
	struct btrfs_inode_ref *ir = (struct btrfs_inode_ref *)buf;
	size_t n = strlen(name);

	btrfs_set_inode_ref_index(ir, 2);
	btrfs_set_inode_ref_name_len(ir, (u16)n);
	memcpy(buf + sizeof(*ir), name, n);
	add(tree, ino, BTRFS_INODE_REF_KEY, parent_ino, buf, (u32)(sizeof(*ir) + n));
}

static void add_default(u64 id)
{
	u8 buf[sizeof(struct btrfs_dir_item) + 7];
	struct btrfs_dir_item *di = (struct btrfs_dir_item *)buf;
	struct btrfs_key loc = { id, BTRFS_ROOT_ITEM_KEY, (u64)-1 };

	memset(buf, 0, sizeof(buf));
	btrfs_set_dir_location(di, &loc);
	btrfs_set_dir_name_len(di, 7);
	btrfs_set_dir_type(di, BTRFS_FT_DIR);
	memcpy(buf + sizeof(*di), "default", 7);
	add(BTRFS_ROOT_TREE_OBJECTID, BTRFS_ROOT_TREE_DIR_OBJECTID, BTRFS_DIR_ITEM_KEY, 0x8dbfc2d2,
	    buf, sizeof(buf));
}

/*
 * The usual layout:
 *   5 /a            256
 *   5 /d1/d2/snap   258 (snapshot of 256, read-only)
 *   256 dir/nested  257
 *   259             deleted (no backref)
 *   260             entry in missing tree 999
 */
static void build_basic(void)
{
	src_reset();
	add_root(5, 0, 3, 0x05, 0, 0);
	add_root(256, 0, 7, 0xa0, 0, 0);
	add_root(257, 0, 8, 0xa1, 0, 0);
	add_root(258, 9, 9, 0xa2, 0xa0, BTRFS_ROOT_SUBVOL_RDONLY);
	add_root(259, 0, 10, 0xa3, 0, 0);
	add_root(260, 0, 11, 0xa4, 0, 0);
	add_link(256, 5, 256, "a");
	add_link(257, 256, 300, "nested");
	add_link(258, 5, 301, "snap");
	add_link(260, 999, 256, "lost");
	add_dir(256, 300, 256, "dir");
	add_dir(5, 302, 256, "d1");
	add_dir(5, 301, 302, "d2");
	add_dir(5, 256, 0, "..");	/* tree roots carry a ".." ref; never walked */
	add_default(256);
	finish();
}

static void test_basic(void)
{
	struct btrfs_item_source src;
	struct btrfs_subvol_list l;
	const struct btrfs_subvol *s;
	u8 uuid[16] = { 0xa2 };

	build_basic();
	src = source();
	CHECK_EQ_INT(btrfs_subvol_list_load(&src, &l), 0);
	CHECK_EQ_U64(l.nr, 6);
	for (size_t i = 1; i < l.nr; i++)
		CHECK(l.subvols[i - 1].id < l.subvols[i].id);

	s = btrfs_subvol_list_find(&l, 5);
	CHECK(s && s->path && !strcmp(s->path, "") && !s->deleted && !s->name);
	s = btrfs_subvol_list_find(&l, 256);
	CHECK(s != NULL);
	if (s) {
		CHECK_STR(s->path, "a");
		CHECK_STR(s->name, "a");
		CHECK_EQ_U64(s->parent_id, 5);
		CHECK_EQ_U64(s->dirid, 256);
		CHECK_EQ_U64(s->root.generation, 7);
		CHECK(!s->deleted);
	}
	s = btrfs_subvol_list_find(&l, 257);
	CHECK(s && s->path && !strcmp(s->path, "a/dir/nested"));
	s = btrfs_subvol_list_find(&l, 258);
	CHECK(s && s->path && !strcmp(s->path, "d1/d2/snap"));
	CHECK(s && s->root_offset == 9 && (s->root.flags & BTRFS_ROOT_SUBVOL_RDONLY));
	s = btrfs_subvol_list_find(&l, 259);
	CHECK(s && s->deleted && !s->path && !s->name && s->parent_id == 0);
	s = btrfs_subvol_list_find(&l, 260);
	CHECK(s && !s->deleted && !s->path && s->parent_id == 999);
	CHECK(btrfs_subvol_list_find(&l, 261) == NULL);
	CHECK(btrfs_subvol_list_find(&l, 4) == NULL);

	s = btrfs_subvol_list_find_uuid(&l, uuid);
	CHECK(s && s->id == 258);
	memset(uuid, 0, sizeof(uuid));
	CHECK(btrfs_subvol_list_find_uuid(&l, uuid) == NULL);
	uuid[0] = 0xee;
	CHECK(btrfs_subvol_list_find_uuid(&l, uuid) == NULL);
	btrfs_subvol_list_release(&l);
	CHECK_EQ_U64(l.nr, 0);
	CHECK(l.subvols == NULL);
}

static void test_default_and_inode_path(void)
{
	struct btrfs_item_source src;
	char *p = NULL;
	u64 id = 0;

	build_basic();
	src = source();
	CHECK_EQ_INT(btrfs_default_subvol(&src, &id), 0);
	CHECK_EQ_U64(id, 256);

	CHECK_EQ_INT(btrfs_inode_path(&src, 5, 301, &p), 0);
	CHECK_STR(p, "d1/d2");
	free(p);
	p = NULL;
	CHECK_EQ_INT(btrfs_inode_path(&src, 5, 256, &p), 0);
	CHECK_STR(p, "");
	free(p);
	p = NULL;
	CHECK_EQ_INT(btrfs_inode_path(&src, 5, 4242, &p), -ENOENT);
	CHECK(p == NULL);

	/* no "default" entry */
	src_reset();
	add_root(5, 0, 3, 0, 0, 0);
	finish();
	CHECK_EQ_INT(btrfs_default_subvol(&src, &id), -ENOENT);
}

static void test_cycles(void)
{
	struct btrfs_item_source src = source();
	struct btrfs_subvol_list l;
	char *p = NULL;

	/* 300 lives in 301, 301 lives in 300 */
	src_reset();
	add_root(5, 0, 3, 0, 0, 0);
	add_root(300, 0, 4, 1, 0, 0);
	add_root(301, 0, 4, 2, 0, 0);
	add_link(300, 301, 256, "x");
	add_link(301, 300, 256, "y");
	finish();
	CHECK_EQ_INT(btrfs_subvol_list_load(&src, &l), -EUCLEAN);
	CHECK(l.nr == 0 && l.subvols == NULL);

	/* a subvolume inside itself */
	src_reset();
	add_root(5, 0, 3, 0, 0, 0);
	add_root(300, 0, 4, 1, 0, 0);
	add_link(300, 300, 256, "self");
	finish();
	CHECK_EQ_INT(btrfs_subvol_list_load(&src, &l), -EUCLEAN);

	/* directories 400 and 401 are each other's parent */
	src_reset();
	add_root(5, 0, 3, 0, 0, 0);
	add_root(300, 0, 4, 1, 0, 0);
	add_link(300, 5, 400, "s");
	add_dir(5, 400, 401, "p");
	add_dir(5, 401, 400, "q");
	finish();
	CHECK_EQ_INT(btrfs_subvol_list_load(&src, &l), -EUCLEAN);
	CHECK_EQ_INT(btrfs_inode_path(&src, 5, 400, &p), -EUCLEAN);

	/* a directory that is its own parent */
	src_reset();
	add_root(5, 0, 3, 0, 0, 0);
	add_dir(5, 400, 400, "loop");
	finish();
	CHECK_EQ_INT(btrfs_inode_path(&src, 5, 400, &p), -EUCLEAN);
	CHECK(p == NULL);
}

static void test_corrupt_items(void)
{
	struct btrfs_item_source src = source();
	struct btrfs_subvol_list l;
	u8 junk[20] = { 0 };

	/* a ROOT_ITEM far too short */
	src_reset();
	add_root(5, 0, 3, 0, 0, 0);
	add(BTRFS_ROOT_TREE_OBJECTID, 256, BTRFS_ROOT_ITEM_KEY, 0, junk, sizeof(junk));
	finish();
	CHECK_EQ_INT(btrfs_subvol_list_load(&src, &l), -EUCLEAN);

	/* a ROOT_BACKREF whose name runs past the item */
	src_reset();
	add_root(5, 0, 3, 0, 0, 0);
	add_root(256, 0, 4, 1, 0, 0);
	btrfs_set_root_ref_name_len((struct btrfs_root_ref *)junk, 200);
	add(BTRFS_ROOT_TREE_OBJECTID, 256, BTRFS_ROOT_BACKREF_KEY, 5, junk, sizeof(junk));
	finish();
	CHECK_EQ_INT(btrfs_subvol_list_load(&src, &l), -EUCLEAN);

	/* no root tree at all: the source's error comes back */
	src_reset();
	finish();
	CHECK_EQ_INT(btrfs_subvol_list_load(&src, &l), -ENOENT);
}

static void test_legacy_root_item(void)
{
	struct btrfs_item_source src = source();
	struct btrfs_subvol_list l;
	struct btrfs_root_item ri;

	src_reset();
	add_root(5, 0, 3, 0, 0, 0);
	memset(&ri, 0, sizeof(ri));
	btrfs_set_root_generation(&ri, 12);
	btrfs_set_root_refs(&ri, 1);
	add(BTRFS_ROOT_TREE_OBJECTID, 256, BTRFS_ROOT_ITEM_KEY, 11, &ri,
	    BTRFS_ROOT_ITEM_LEGACY_SIZE);
	add_link(256, 5, 256, "old");
	finish();
	CHECK_EQ_INT(btrfs_subvol_list_load(&src, &l), 0);
	CHECK_EQ_U64(l.nr, 2);
	if (l.nr == 2) {
		CHECK(!l.subvols[1].root.has_v2);
		CHECK_EQ_U64(l.subvols[1].root_offset, 11);
		CHECK_STR(l.subvols[1].path, "old");
	}
	btrfs_subvol_list_release(&l);
}

/* 5000 subvolumes in 10 directories three levels deep: searches stay few. */
static void test_cache_scale(void)
{
	struct btrfs_item_source src = source();
	struct btrfs_subvol_list l;
	char name[32];
	bool ok = true;

	src_reset();
	add_root(5, 0, 3, 0, 0, 0);
	add_dir(5, 1000, 256, "top");
	add_dir(5, 1001, 1000, "mid");
	for (u64 d = 0; d < 10; d++) {
		snprintf(name, sizeof(name), "d%llu", (unsigned long long)d);
		add_dir(5, 2000 + d, 1001, name);
	}
	for (u64 i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "s%llu", (unsigned long long)i);
		add_root(256 + i, 0, 5, 0, 0, 0);
		add_link(256 + i, 5, 2000 + i % 10, name);
	}
	finish();
	CHECK_EQ_INT(btrfs_subvol_list_load(&src, &l), 0);
	CHECK_EQ_U64(l.nr, 5001);
	/* 2 root tree searches (tree 5, the rest) + 10 leaf dirs + "mid" + "top" */
	CHECK(ms->searches <= 14);
	for (u64 i = 0; i < 5000 && ok; i++) {
		const struct btrfs_subvol *s = btrfs_subvol_list_find(&l, 256 + i);
		char want[64];

		snprintf(want, sizeof(want), "top/mid/d%llu/s%llu", (unsigned long long)(i % 10),
			 (unsigned long long)i);
		ok = s && s->path && !strcmp(s->path, want);
	}
	CHECK(ok);
	btrfs_subvol_list_release(&l);
}

/* Subvolumes nested 50 deep, listed parent after child in id order. */
static void test_deep_nesting(void)
{
	struct btrfs_item_source src = source();
	struct btrfs_subvol_list l;
	const struct btrfs_subvol *s;
	char want[512] = "";

	src_reset();
	add_root(5, 0, 3, 0, 0, 0);
	for (u64 i = 0; i < 50; i++) {
		/* id 349 is the outermost, 300 the innermost */
		u64 id = 349 - i;

		add_root(id, 0, 4, 0, 0, 0);
		add_link(id, i ? id + 1 : 5, 256, "n");
		strcat(want, i ? "/n" : "n");
	}
	finish();
	CHECK_EQ_INT(btrfs_subvol_list_load(&src, &l), 0);
	s = btrfs_subvol_list_find(&l, 300);
	CHECK(s && s->path && !strcmp(s->path, want));
	btrfs_subvol_list_release(&l);
}

/*
 * Names and paths live in 64 KiB string chunks: 300 subvolumes with
 * 255-byte names, each holding a child with another, fill several chunks
 * (and a path longer than what is left of one); every path and the root
 * item fields listing uses must still come out whole.
 */
static void test_long_names_chunks(void)
{
	struct btrfs_item_source src = source();
	struct btrfs_subvol_list l;
	char name[256], child[256];
	bool ok = true;

	src_reset();
	add_root(5, 0, 3, 0, 0, 0);
	add_dir(5, 1000, 256, "top");
	for (u64 i = 0; i < 300; i++) {
		memset(name, 'a' + (int)(i % 26), 255);
		name[255] = '\0';
		memcpy(child, name, sizeof(child));
		child[0] = 'c';
		add_root(1000 + i, 0, 7 + i, (u8)(i + 1), 0, i % 2 ? BTRFS_ROOT_SUBVOL_RDONLY : 0);
		add_link(1000 + i, 5, 1000, name);
		add_root(2000 + i, 0, 9, 0, 0, 0);
		add_link(2000 + i, 1000 + i, 256, child);
	}
	finish();
	CHECK_EQ_INT(btrfs_subvol_list_load(&src, &l), 0);
	CHECK_EQ_U64(l.nr, 601);
	for (u64 i = 0; i < 300 && ok; i++) {
		const struct btrfs_subvol *s = btrfs_subvol_list_find(&l, 1000 + i);
		const struct btrfs_subvol *c = btrfs_subvol_list_find(&l, 2000 + i);
		char want[1024];

		memset(name, 'a' + (int)(i % 26), 255);
		name[255] = '\0';
		memcpy(child, name, sizeof(child));
		child[0] = 'c';
		snprintf(want, sizeof(want), "top/%s", name);
		ok = s && s->path && !strcmp(s->path, want) && !strcmp(s->name, name) &&
		     s->root.generation == 7 + i && s->root.uuid[0] == (u8)(i + 1) &&
		     !!(s->root.flags & BTRFS_ROOT_SUBVOL_RDONLY) == (i % 2) &&
		     s->root.has_v2 && s->root.otransid == 7 + i;
		snprintf(want, sizeof(want), "top/%s/%s", name, child);
		ok = ok && c && c->path && !strcmp(c->path, want) && c->parent_id == 1000 + i;
	}
	CHECK(ok);
	btrfs_subvol_list_release(&l);
	CHECK(l.strings == NULL && l.subvols == NULL && l.nr == 0);
}

/*
 * vc_fact_snapshots_of() (common/backend/facts.c) over a loaded list:
 *   256 a0          the source
 *   258 a2 <- a0    snapshot, reachable
 *   259 a3 <- a0    snapshot, deleted (no backref)
 *   260 a4 <- a0    snapshot, unreachable (entry in missing tree 999)
 *   257 a1 <- a5    not a snapshot of 256
 *   261 a5 <- a5    its own parent (corrupt)
 *   262 00 <- 00    no uuid: no snapshots, not even 263
 *   263 a6 <- 00
 */
static void test_snapshots_of(void)
{
	const struct btrfs_subvol **snaps;
	struct btrfs_item_source src;
	struct btrfs_subvol_list l;
	size_t nr = 99;

	src_reset();
	add_root(5, 0, 3, 0x05, 0, 0);
	add_root(256, 0, 7, 0xa0, 0, 0);
	add_root(257, 0, 8, 0xa1, 0xa5, 0);
	add_root(258, 9, 9, 0xa2, 0xa0, BTRFS_ROOT_SUBVOL_RDONLY);
	add_root(259, 10, 10, 0xa3, 0xa0, 0);
	add_root(260, 11, 11, 0xa4, 0xa0, 0);
	add_root(261, 12, 12, 0xa5, 0xa5, 0);
	add_root(262, 0, 13, 0, 0, 0);
	add_root(263, 0, 14, 0xa6, 0, 0);
	add_link(256, 5, 256, "a");
	add_link(257, 5, 256, "b");
	add_link(258, 5, 256, "snap");
	add_link(260, 999, 256, "lost");
	add_link(261, 5, 256, "self");
	add_link(262, 5, 256, "nouuid");
	add_link(263, 5, 256, "c");
	finish();
	src = source();
	CHECK_EQ_INT(btrfs_subvol_list_load(&src, &l), 0);

	CHECK_EQ_INT(vc_fact_snapshots_of(&l, btrfs_subvol_list_find(&l, 256), 0, &snaps, &nr), 0);
	CHECK_EQ_U64(nr, 3);
	if (nr == 3)
		CHECK(snaps[0]->id == 258 && snaps[1]->id == 259 && snaps[2]->id == 260);
	free(snaps);
	CHECK_EQ_INT(vc_fact_snapshots_of(&l, btrfs_subvol_list_find(&l, 256),
					  VC_SNAPS_NO_DELETED, &snaps, &nr), 0);
	CHECK(nr == 2 && snaps[0]->id == 258 && snaps[1]->id == 260);
	free(snaps);
	CHECK_EQ_INT(vc_fact_snapshots_of(&l, btrfs_subvol_list_find(&l, 256),
					  VC_SNAPS_NO_UNREACHABLE, &snaps, &nr), 0);
	CHECK(nr == 1 && snaps[0]->id == 258);
	free(snaps);

	CHECK_EQ_INT(vc_fact_snapshots_of(&l, btrfs_subvol_list_find(&l, 261), 0, &snaps, &nr), 0);
	CHECK(nr == 2 && snaps[0]->id == 257 && snaps[1]->id == 261);
	free(snaps);
	CHECK_EQ_INT(vc_fact_snapshots_of(&l, btrfs_subvol_list_find(&l, 261), VC_SNAPS_NO_SELF,
					  &snaps, &nr), 0);
	CHECK(nr == 1 && snaps[0]->id == 257);
	free(snaps);

	CHECK_EQ_INT(vc_fact_snapshots_of(&l, btrfs_subvol_list_find(&l, 262), 0, &snaps, &nr), 0);
	CHECK_EQ_U64(nr, 0);
	free(snaps);

	/* the same rule for all at once: each one's origin, never itself */
	{
		const struct btrfs_subvol *live[16];
		size_t origin[16], n = 0;

		for (size_t i = 0; i < l.nr && n < 16; i++)
			live[n++] = &l.subvols[i];
		CHECK_EQ_INT(vc_fact_snapshot_origins(live, n, origin), 0);
		for (size_t i = 0; i < n; i++) {
			u64 id = live[i]->id;
			u64 want = id == 257 ? 261 : id >= 258 && id <= 260 ? 256 : 0;
			u64 got = origin[i] == BTRFS_ACCT_NO_ORIGIN ? 0 : live[origin[i]]->id;

			CHECK_EQ_U64(got, want);
		}
	}
	btrfs_subvol_list_release(&l);
}

/*
 * The plans of common/backend/subvol-plan.c over a loaded list:
 *   256 a, 257 a/b, 258 a/b/c, 259 a/d, 260 e (all below the top level)
 */
static bool nested_has(const struct vc_nested *n, size_t nr, u64 id, const char *path)
{
	for (size_t i = 0; i < nr; i++)
		if (n[i].id == id)
			return n[i].path && !strcmp(n[i].path, path);
	return false;
}

static void check_shown(const struct btrfs_subvol_list *l, u64 arg_subvol, bool is_dir,
			const char *arg, u64 id, const char *want)
{
	char *s = vc_subvol_shown_path(l, arg_subvol, is_dir, arg, id);

	CHECK_STR(s ? s : "(null)", want);
	free(s);
}

static void test_plans(void)
{
	struct btrfs_item_source src;
	struct btrfs_subvol_list l;
	struct vc_nested *n;
	size_t nr = 99;

	src_reset();
	add_root(5, 0, 3, 0x05, 0, 0);
	for (u64 id = 256; id <= 260; id++)
		add_root(id, 0, 7, (u8)id, 0, 0);
	add_link(256, 5, 256, "a");
	add_link(257, 256, 256, "b");
	add_link(258, 257, 256, "c");
	add_link(259, 256, 256, "d");
	add_link(260, 5, 256, "e");
	finish();
	src = source();
	CHECK_EQ_INT(btrfs_subvol_list_load(&src, &l), 0);

	/* delete -R a: deepest first, each through the argument */
	CHECK_EQ_INT(vc_nested_plan(&l, 256, "/mnt/x", &n, &nr), 0);
	CHECK_EQ_U64(nr, 3);
	if (nr == 3) {
		CHECK(n[0].id == 258 && !strcmp(n[0].path, "/mnt/x/b/c"));
		CHECK(nested_has(n, nr, 257, "/mnt/x/b") && nested_has(n, nr, 259, "/mnt/x/d"));
	}
	vc_nested_release(n, nr);
	CHECK_EQ_INT(vc_nested_plan(&l, 260, "/mnt/e", &n, &nr), 0);
	CHECK_EQ_U64(nr, 0);
	vc_nested_release(n, nr);

	/* delete by id: the path it is named by */
	check_shown(&l, 256, true, "/mnt/x", 258, "/mnt/x/b/c");
	check_shown(&l, 256, false, "/mnt/x/file", 258, "/mnt/x/b/c");
	check_shown(&l, 5, true, "/mnt", 259, "/mnt/a/d");
	check_shown(&l, 260, true, "/mnt/e", 258, "/mnt/e/a/b/c");
	check_shown(&l, 256, true, "/mnt/x", 999, "(null)");
	btrfs_subvol_list_release(&l);
}

int main(void)
{
	ms = calloc(1, sizeof(*ms));
	if (!ms)
		return 1;
	test_basic();
	test_default_and_inode_path();
	test_cycles();
	test_corrupt_items();
	test_legacy_root_item();
	test_cache_scale();
	test_deep_nesting();
	test_long_names_chunks();
	test_snapshots_of();
	test_plans();
	src_reset();
	free(ms);
	return unit_finish();
}
