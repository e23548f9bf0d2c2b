// SPDX-License-Identifier: GPL-2.0-only
/*
 * The JSON naming rule, checked where the keys are declared: every key of
 * every record description in common/output/records.c is snake_case (a REC_TIME key
 * also makes "<key>_sec"), every document name too, and a version-1 document
 * name kept for one release is its snake_case name with '-' for '_'
 * (Documentation/json-schema.md).  A failure names the record and the key.
 * The same for `volctl inspect`'s descriptions (common/output/records-inspect.c):
 * every field and container name is snake_case, every OBJECT and IF is
 * closed, every integer field has a width the printer reads.
 * Also: a record printed through rec_emit() or vc_dump_rec() gives the same
 * text and JSON the description says; table cells (rec_cell), auto-width tables (rec_autotab_*)
 * with optional columns, and the columns of the tables volctl keeps from
 * btrfs-progs (qgroup show, subvolume list) in their order.
 */
#include <stdlib.h>
#include <string.h>
#include "common/output/records.h"
#include "common/output/records-inspect.h"
#include "common/util/units.h"
#include "unit.h"

static int snake_case(const char *k)
{
	const char *p = k;

	if (!k || !(*p >= 'a' && *p <= 'z'))
		return 0;
	for (; *p; p++) {
		if (*p == '_' && (p[1] == '_' || p[1] == '\0'))
			return 0;
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return 0;
	}
	return 1;
}

static void check_key(const char *record, const char *key)
{
	if (!unit_check(snake_case(key), __FILE__, __LINE__, "snake_case JSON key"))
		fprintf(stderr, "  record \"%s\": JSON key \"%s\" is not snake_case\n", record, key);
}

/* The number of "{}" in a REC_LINE's template */
static size_t line_values(const char *t)
{
	size_t n = 0;

	for (; (t = strstr(t, "{}")); t += 2)
		n++;
	return n;
}

static void check_desc(const struct rec_desc *d)
{
	int depth = 0, ifs = 0;

	CHECK(d->name && d->nr > 0);
	for (size_t i = 0; i < d->nr; i++) {
		const struct rec_field *f = &d->fields[i];
		size_t n;

		if (f->kind == REC_END) {
			depth--;
			continue;
		}
		if (f->kind == REC_IF || f->kind == REC_ENDIF) {
			ifs += f->kind == REC_IF ? 1 : -1;
			CHECK(!f->label && !f->key && ifs >= 0);
			continue;
		}
		if (f->kind == REC_LINE) {
			/* a line's values: one field per "{}", with neither label nor key */
			n = line_values(f->label);
			if (!unit_check(i + n < d->nr, __FILE__, __LINE__, "line values"))
				fprintf(stderr, "  record \"%s\": line %zu lacks values\n", d->name, i);
			for (size_t j = 1; j <= n && i + j < d->nr; j++)
				CHECK(!d->fields[i + j].label && !d->fields[i + j].key);
			CHECK(!f->key);
			i += n;
			continue;
		}
		if (f->kind == REC_OBJECT)
			depth++;
		/* a field printed nowhere is a mistake */
		if (!unit_check(f->label || f->key || f->kind == REC_SUB, __FILE__, __LINE__, "label or key"))
			fprintf(stderr, "  record \"%s\": field %zu has neither\n", d->name, i);
		if (f->key)
			check_key(d->name, f->key);
	}
	for (size_t i = 0; i < d->nr; i++) {
		const struct rec_field *f = &d->fields[i];

		/* column flags and show bits mean something only for a column */
		if (!unit_check(f->label || f->kind == REC_IF || (!f->flags && !f->show), __FILE__, __LINE__,
				"column options on a labelled field"))
			fprintf(stderr, "  record \"%s\": field %zu has column options, no label\n",
				d->name, i);
	}
	if (!unit_check(depth == 0, __FILE__, __LINE__, "objects closed"))
		fprintf(stderr, "  record \"%s\": REC_OBJECT without REC_END\n", d->name);
	if (!unit_check(ifs == 0, __FILE__, __LINE__, "conditions closed"))
		fprintf(stderr, "  record \"%s\": REC_IF without REC_ENDIF\n", d->name);
}

static void check_doc(const struct rec_doc *doc)
{
	char v1[128];
	size_t n = strlen(doc->key);

	check_key("document", doc->key);
	if (!doc->v1_key)
		return;
	CHECK(n < sizeof(v1));
	for (size_t i = 0; i <= n && i < sizeof(v1); i++)
		v1[i] = doc->key[i] == '_' ? '-' : doc->key[i];
	if (!unit_check(!strcmp(v1, doc->v1_key), __FILE__, __LINE__, "version-1 name"))
		fprintf(stderr, "  document \"%s\": version-1 name \"%s\" is not \"%s\"\n",
			doc->key, doc->v1_key, v1);
}

static bool dump_int_kind(enum rec_kind k)
{
	switch (k) {
	case REC_DK_UINT:
	case REC_DK_SINT:
	case REC_DK_HEX:
	case REC_DK_OCT:
	case REC_DK_BOOL:
	case REC_DK_BIT:
	case REC_DK_FLAGS:
	case REC_DK_ENUM:
	case REC_DK_TYPESTR:
	case REC_DK_TYPENAME:
	case REC_DK_BYTES:	/* its length */
	case REC_DK_IF:
		return true;
	default:
		return false;
	}
}

static void check_dump_desc(const struct rec_desc *d)
{
	int depth = 0;

	CHECK(d->name && d->nr > 0);
	for (size_t i = 0; i < d->nr; i++) {
		const struct rec_field *f = &d->fields[i];
		size_t sz = f->size;

		switch (f->kind) {
		case REC_DK_END:
			depth--;
			continue;
		case REC_DK_IF:
			depth++;
			break;
		case REC_DK_SUB:
			CHECK(f->aux != NULL);
			continue;
		default:
			/* an OBJECT's name too is a JSON key */
			depth += f->kind == REC_DK_OBJECT;
			check_key(d->name, f->key);
			/* one scheme: a dump kind; the text label is the key (an OBJECT's: its line) */
			CHECK(f->kind >= REC_DK_UINT);
			if (f->kind != REC_DK_OBJECT && !unit_check(f->label == f->key, __FILE__,
								    __LINE__, "dump label"))
				fprintf(stderr, "  dump \"%s\": field %zu\n", d->name, i);
			break;
		}
		if (dump_int_kind(f->kind) &&
		    !unit_check(sz == 1 || sz == 2 || sz == 4 || sz == 8, __FILE__, __LINE__,
				"integer width"))
			fprintf(stderr, "  dump \"%s\": field %zu (%s) is %zu bytes wide\n", d->name, i,
				f->key ? f->key : "IF", sz);
		if (f->kind == REC_DK_FLAGS || f->kind == REC_DK_ENUM || f->kind == REC_DK_NOTE)
			CHECK(f->aux != NULL);
		if (!unit_check(depth >= 0, __FILE__, __LINE__, "END without OBJECT or IF"))
			fprintf(stderr, "  dump \"%s\": field %zu\n", d->name, i);
	}
	if (!unit_check(depth == 0, __FILE__, __LINE__, "objects closed"))
		fprintf(stderr, "  dump \"%s\": OBJECT or IF without END\n", d->name);
}

static void check_dump_list(const struct vc_dump_list *l)
{
	CHECK(l->name != NULL);
	check_key("dump container", l->name);
	if (l->bare)
		CHECK(l->elem != NULL);
}

/* rec_emit() in text and JSON of one small record */
struct t_rec {
	uint64_t n, unset;
	const char *s;
	uint64_t limit;
};

static const struct rec_field t_fields[] = {
	REC_F("N: ", "n", REC_U64, struct t_rec, n),
	REC_F("Unset: ", "unset", REC_U64_SET, struct t_rec, unset),
	REC_OBJ("o"),
	REC_F(NULL, "s", REC_STR, struct t_rec, s),
	REC_F("Limit: ", "limit", REC_LIMIT, struct t_rec, limit),
	REC_OBJ_END,
};
static const struct rec_desc t_desc = REC_DESC("test", t_fields);

static char *emit(bool json)
{
	struct vc_config cfg = { .format = json ? VC_FORMAT_JSON : VC_FORMAT_TEXT };
	struct t_rec r = { 7, 0, NULL, 0 };
	struct kvout kv;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	kvout_init(&kv, &cfg, f, 0);
	kvout_document_open(&kv);
	rec_emit(&kv, &t_desc, &r);
	kvout_document_close(&kv);
	fclose(f);
	return buf;
}

/* ---- cells and auto-width tables ---- */

struct t_row {
	uint64_t id, size;
	const uint64_t *limit;
	const char *name;
	struct rec_u64s ids;
	const uint8_t *uuid;
	int64_t time;
	const bool *flag;
};

enum { T_LIMIT = 1, T_IDS = 2 };

static const struct rec_field t_row_fields[] = {
	REC_COLX("Id", "id", REC_U64, struct t_row, id, 3, REC_LEFT, 0, REC_AUTO, 0),
	REC_COLX("Size", "size", REC_SIZE, struct t_row, size, 4, REC_RIGHT, 1, REC_AUTO, 0),
	REC_COLX("Limit", "limit", REC_SIZE_OPT, struct t_row, limit, 0, REC_RIGHT, 1, REC_AUTO,
		 T_LIMIT),
	REC_COLX("Groups", "groups", REC_QGROUPIDS, struct t_row, ids, 0, REC_LEFT, 1, REC_AUTO,
		 T_IDS),
	REC_F(NULL, "uuid", REC_UUID, struct t_row, uuid),
	REC_COL("Name", NULL, REC_STR, struct t_row, name, 0, REC_LEFT, 2),
};
static const struct rec_desc t_row_desc =
	REC_DESC_TABLE("test row", t_row_fields, REC_TAB_RULE | REC_TAB_TAIL);

static void test_cells(void)
{
	static const uint8_t zero[16], one[16] = { [15] = 1 };
	static const uint64_t many[] = { 1ULL << 48 | 1, 256, 257, 258, 259, 260, 261 };
	uint64_t lim = 2048;
	bool yes = true;
	struct t_row r = { 42, 1536, &lim, NULL, { many, 2 }, zero, 0, &yes };
	struct rec_text t = { 0 };
	const struct rec_field *f = t_row_fields;
	struct rec_field k;

	CHECK_STR(rec_cell(&t, &f[0], &r, UNITS_RAW), "42");
	CHECK_STR(rec_cell(&t, &f[1], &r, UNITS_RAW), "1536");
	CHECK_STR(rec_cell(&t, &f[1], &r, UNITS_DEFAULT), "1.50KiB");
	CHECK_STR(rec_cell(&t, &f[2], &r, UNITS_DEFAULT), "2.00KiB");
	r.limit = NULL;
	CHECK_STR(rec_cell(&t, &f[2], &r, UNITS_DEFAULT), "none");
	CHECK_STR(rec_cell(&t, &f[3], &r, UNITS_DEFAULT), "1/1,0/256");
	/* longer than the inline buffer: on the heap */
	r.ids.nr = 7;
	CHECK_STR(rec_cell(&t, &f[3], &r, UNITS_DEFAULT),
		  "1/1,0/256,0/257,0/258,0/259,0/260,0/261");
	CHECK(t.s != NULL);
	r.ids.nr = 0;
	CHECK_STR(rec_cell(&t, &f[3], &r, UNITS_DEFAULT), "-");
	CHECK_STR(rec_cell(&t, &f[4], &r, UNITS_DEFAULT), "-");
	r.uuid = one;
	CHECK_STR(rec_cell(&t, &f[4], &r, UNITS_DEFAULT), "00000000-0000-0000-0000-000000000001");
	CHECK_STR(rec_cell(&t, &f[5], &r, UNITS_DEFAULT), "-");
	k = (struct rec_field)REC_F("t", NULL, REC_TIME, struct t_row, time);
	CHECK_STR(rec_cell(&t, &k, &r, UNITS_DEFAULT), "-");
	k = (struct rec_field)REC_F("b", NULL, REC_BOOL_OPT, struct t_row, flag);
	CHECK_STR(rec_cell(&t, &k, &r, UNITS_DEFAULT), "yes");
	r.flag = NULL;
	CHECK_STR(rec_cell(&t, &k, &r, UNITS_DEFAULT), "-");
	rec_text_release(&t);
	CHECK(t.s == NULL);

	CHECK(rec_col_shown(&f[0], 0));
	CHECK(!rec_col_shown(&f[2], 0));
	CHECK(!rec_col_shown(&f[2], T_IDS));
	CHECK(rec_col_shown(&f[2], T_IDS | T_LIMIT));
	CHECK(!rec_col_shown(&f[4], ~0U));
}

/* the table of @rows shown for @show, in @units; malloc'ed */
static char *autotab(const struct t_row *rows, size_t nr, unsigned int show, bool json)
{
	struct vc_config cfg = { .format = json ? VC_FORMAT_JSON : VC_FORMAT_TEXT };
	struct rec_autotab t;
	struct kvout kv;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	kvout_init(&kv, &cfg, f, UNITS_RAW);
	CHECK_EQ_INT(rec_autotab_init(&t, &kv, &t_row_desc, show), 0);
	for (size_t i = 0; i < nr; i++)
		rec_autotab_measure(&t, &rows[i]);
	CHECK_EQ_INT(rec_autotab_header(&t), 0);
	for (size_t i = 0; i < nr; i++)
		CHECK_EQ_INT(rec_autotab_row(&t, &rows[i]), 0);
	rec_autotab_release(&t);
	fclose(f);
	return buf;
}

static void test_autotab(void)
{
	static const uint64_t ids[] = { 1ULL << 48 | 100, 1ULL << 48 | 200 };
	uint64_t lim = 123456789;
	const struct t_row rows[] = {
		{ .id = 5, .size = 16384, .name = "<toplevel>" },
		{ .id = 1234, .size = 7, .limit = &lim, .name = "a", .ids = { ids, 2 } },
	};
	char *s;

	/* the optional columns hidden: neither printed nor measured */
	s = autotab(rows, 2, 0, false);
	CHECK_STR(s, "Id    Size  Name \n"
		     "--    ----  ---- \n"
		     "5    16384  <toplevel>\n"
		     "1234     7  a\n");
	free(s);
	/* shown: each as wide as its widest cell or label, rule as long as the label */
	s = autotab(rows, 2, T_LIMIT | T_IDS, false);
	CHECK_STR(s, "Id    Size     Limit Groups       Name \n"
		     "--    ----     ----- ------       ---- \n"
		     "5    16384      none -            <toplevel>\n"
		     "1234     7 123456789 1/100,1/200  a\n");
	free(s);
	/* no rows: the header alone, at the minimum widths */
	s = autotab(rows, 0, T_LIMIT, false);
	CHECK_STR(s, "Id  Size Limit  Name \n"
		     "--  ---- -----  ---- \n");
	free(s);
	/* text only: nothing in JSON */
	s = autotab(rows, 2, 0, true);
	CHECK_STR(s, "");
	free(s);
}

/* the labels of @d's columns shown for @show, joined by '|' */
static void col_labels(const struct rec_desc *d, unsigned int show, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < d->nr; i++)
		if (rec_col_shown(&d->fields[i], show))
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? "|" : "",
						d->fields[i].label);
}

/* the btrfs-progs tables keep their columns, in order */
static void test_btrfs_progs_tables(void)
{
	const struct rec_desc *d = &rec_subvol_list_row;
	char buf[256];
	int tab2 = 0;

	col_labels(&rec_qgroup_row, 0, buf, sizeof(buf));
	CHECK_STR(buf, "Qgroupid|Referenced|Exclusive|Path");
	col_labels(&rec_qgroup_row, ~0U, buf, sizeof(buf));
	CHECK_STR(buf, "Qgroupid|Referenced|Exclusive|Max referenced|Max exclusive|Parent|Child|"
		       "Path");
	col_labels(&rec_qgroup_row, QG_COL_PARENT, buf, sizeof(buf));
	CHECK_STR(buf, "Qgroupid|Referenced|Exclusive|Parent|Path");
	CHECK(rec_qgroup_row.table == (REC_TAB_RULE | REC_TAB_TAIL));
	col_labels(&rec_qgroup_tree, 0, buf, sizeof(buf));
	CHECK_STR(buf, "QGROUP|REFERENCED|EXCLUSIVE|RFER-LIMIT|EXCL-LIMIT|USE|PATH");
	col_labels(d, SV_COL_ID | SV_COL_GEN | SV_COL_TOP | SV_COL_PATH, buf, sizeof(buf));
	CHECK_STR(buf, "ID|gen|top level|path");
	col_labels(d, ~0U, buf, sizeof(buf));
	CHECK_STR(buf, "ID|gen|cgen|parent|top level|otime|parent_uuid|received_uuid|uuid|path");
	/* the list's row has no JSON (the subvolume object is its JSON) */
	for (size_t i = 0; i < d->nr; i++) {
		CHECK(d->fields[i].key == NULL);
		if (d->fields[i].flags & REC_TAB2)
			tab2++;
	}
	CHECK_EQ_INT(tab2, 1);
}

/* REC_SIZE_OPT: JSON a number or null, text in units or "none" */
struct t_opt {
	const uint64_t *a, *b;
};

static const struct rec_field t_opt_fields[] = {
	REC_F("A: ", "a", REC_SIZE_OPT, struct t_opt, a),
	REC_F("B: ", "b", REC_SIZE_OPT, struct t_opt, b),
};
static const struct rec_desc t_opt_desc = REC_DESC("test opt", t_opt_fields);

static void test_size_opt(void)
{
	uint64_t v = 3072;
	struct t_opt r = { &v, NULL };

	for (int json = 0; json < 2; json++) {
		struct vc_config cfg = { .format = json ? VC_FORMAT_JSON : VC_FORMAT_TEXT };
		struct kvout kv;
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		kvout_init(&kv, &cfg, f, UNITS_DEFAULT);
		kvout_document_open(&kv);
		rec_emit(&kv, &t_opt_desc, &r);
		kvout_document_close(&kv);
		fclose(f);
		if (json)
			CHECK_STR(buf, "{\n  \"__header\": {\n    \"version\": \"3\"\n  },\n"
				       "  \"a\": 3072,\n  \"b\": null\n}\n");
		else
			CHECK_STR(buf, "\tA: 3.00KiB\n\tB: none\n");
		free(buf);
	}
}

/* free-form text: lines with values, blocks on a condition (nested, negated) */
struct t_line {
	const char *who;
	uint64_t size;
	bool on, off;
};

static const struct rec_field t_line_fields[] = {
	REC_F(NULL, "who", REC_STR, struct t_line, who),
	REC_TEXT("{} has {} left{}"),
	REC_V(REC_STR, struct t_line, who), REC_V(REC_SIZE, struct t_line, size),
	REC_V(REC_STR, struct t_line, who),
	REC_WHEN(struct t_line, on),
	REC_TEXT("on"),
	REC_WHEN(struct t_line, off),
	REC_TEXT("on and off"),
	REC_WHEN_END,
	REC_UNLESS(struct t_line, off),
	REC_TEXT("on, not off"),
	REC_WHEN_END,
	REC_WHEN_END,
	REC_UNLESS(struct t_line, on),
	REC_TEXT("not on"),
	REC_WHEN_END,
	REC_TEXT_MORE("end"),
	REC_WHEN(struct t_line, off),
	REC_TEXT_MORE(", {} off"), REC_V(REC_STR, struct t_line, who),
	REC_WHEN_END,
	REC_TEXT("."),
};
static const struct rec_desc t_line_desc = REC_DESC("test line", t_line_fields);

static char *emit_line(bool json, bool on, bool off)
{
	struct t_line r = { "x", 2048, on, off };
	struct vc_config cfg = { .format = json ? VC_FORMAT_JSON : VC_FORMAT_TEXT };
	struct kvout kv;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	kvout_init(&kv, &cfg, f, UNITS_DEFAULT);
	kvout_document_open(&kv);
	rec_emit(&kv, &t_line_desc, &r);
	kvout_document_close(&kv);
	fclose(f);
	return buf;
}

static void test_lines(void)
{
	static const char *const want[4] = {
		"x has 2.00KiB leftx\nnot on\nend.\n",
		"x has 2.00KiB leftx\nnot on\nend, x off.\n",
		"x has 2.00KiB leftx\non\non, not off\nend.\n",
		"x has 2.00KiB leftx\non\non and off\nend, x off.\n",
	};
	char *s;

	check_desc(&t_line_desc);
	for (int i = 0; i < 4; i++) {
		s = emit_line(false, i & 2, i & 1);
		CHECK_STR(s, want[i]);
		free(s);
	}
	s = emit_line(true, true, false);
	CHECK_STR(s, "{\n  \"__header\": {\n    \"version\": \"3\"\n  },\n  \"who\": \"x\"\n}\n");
	free(s);
}

/* plural forms: "{one|many}" agrees with the number of the "{}" before it */
struct t_plural {
	uint64_t copies, devices;
	int64_t diff;
};

static const struct rec_field t_plural_fields[] = {
	REC_TEXT_MORE("{} cop{y|ies} on {} device{|s}"),
	REC_V(REC_U64, struct t_plural, copies), REC_V(REC_U64, struct t_plural, devices),
	REC_TEXT(", {} {x} left{|s}"), REC_V(REC_S64, struct t_plural, diff),
	REC_TEXT("{|none before}{} more"), REC_V(REC_U64, struct t_plural, copies),
};
static const struct rec_desc t_plural_desc = REC_DESC("test plural", t_plural_fields);

static void test_plurals(void)
{
	static const struct {
		struct t_plural r;
		const char *want;
	} cases[] = {
		{ { 1, 1, 1 }, "1 copy on 1 device, 1 {x} left\nnone before1 more" },
		{ { 2, 0, -1 }, "2 copies on 0 devices, -1 {x} lefts\nnone before2 more" },
		{ { 0, 1, -2 }, "0 copies on 1 device, -2 {x} lefts\nnone before0 more" },
		{ { 3, 3, 0 }, "3 copies on 3 devices, 0 {x} lefts\nnone before3 more" },
	};
	char *s;

	check_desc(&t_plural_desc);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		s = rec_text_string(&t_plural_desc, &cases[i].r, UNITS_RAW);
		CHECK_STR(s, cases[i].want);
		free(s);
	}
}

/* vc_dump_rec() in text and JSON of one small record */
struct t_dump {
	u32 n;
	u8 on;
	u64 flags;
	struct btrfs_key key;
};

static const struct vc_dump_flag_name t_flag_names[] = {
	{ 1, "ONE" },
	{ 0, NULL },
};
static const struct vc_dump_flags t_flags = { t_flag_names, NULL };

static const struct rec_field t_dump_fields[] = {
	VC_DF("n", REC_DK_UINT, struct t_dump, n),
	VC_DF_AUX("flags", REC_DK_FLAGS, struct t_dump, flags, &t_flags),
	VC_DF_IF(struct t_dump, on),
	VC_DF_OBJECT("o", "o"),
	VC_DF_F("hidden", REC_DK_HEX, REC_JSON_ONLY, struct t_dump, n),
	VC_DF("key", REC_DK_KEY, struct t_dump, key),
	VC_DF_END,
	VC_DF_END,
};
static const struct rec_desc t_dump_desc = REC_DESC("test dump", t_dump_fields);

static char *dump(bool json, u8 on)
{
	struct t_dump r = { 7, on, 3, { 256, BTRFS_INODE_ITEM_KEY, 0 } };
	struct vc_dump d;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	vc_dump_init(&d, f, json);
	vc_dump_rec(&d, &t_dump_desc, &r);
	vc_dump_finish(&d);
	fclose(f);
	return buf;
}

int main(void)
{
	char *text, *json;

	for (size_t i = 0; rec_all[i]; i++)
		check_desc(rec_all[i]);
	for (size_t i = 0; rec_all_docs[i]; i++)
		check_doc(rec_all_docs[i]);
	CHECK(!snake_case("subvolume-show"));
	CHECK(!snake_case("Name"));
	CHECK(!snake_case("a__b"));
	CHECK(snake_case("drop_subtree_threshold"));

	for (size_t i = 0; vc_dump_all[i]; i++)
		check_dump_desc(vc_dump_all[i]);
	for (size_t i = 0; vc_dump_all_lists[i]; i++)
		check_dump_list(vc_dump_all_lists[i]);

	text = dump(false, 1);
	json = dump(true, 1);
	CHECK_STR(text, "n 7\nflags 0x3 (ONE|0x2)\no\n  key (256 INODE_ITEM 0)\n");
	CHECK_STR(json, "{\n  \"__header\": {\n    \"version\": \"3\"\n  },\n  \"n\": 7,\n"
		  "  \"flags\": 3,\n  \"flags_names\": [\n    \"ONE\",\n    \"0x2\"\n  ],\n"
		  "  \"o\": {\n    \"hidden\": 7,\n    \"key\": {\n      \"objectid\": 256,\n"
		  "      \"type\": 1,\n      \"type_name\": \"INODE_ITEM\",\n"
		  "      \"offset\": 0\n    }\n  }\n}\n");
	free(text);
	free(json);
	text = dump(false, 0);
	CHECK_STR(text, "n 7\nflags 0x3 (ONE|0x2)\n");
	free(text);

	text = emit(false);
	json = emit(true);
	CHECK_STR(text, "\tN: 7\n\tUnset: 0\n\tLimit: -\n");
	CHECK_STR(json, "{\n  \"__header\": {\n    \"version\": \"3\"\n  },\n  \"n\": 7,\n"
		     "  \"unset\": null,\n  \"o\": {\n    \"s\": null,\n    \"limit\": null\n  }\n}\n");
	free(text);
	free(json);
	test_cells();
	test_autotab();
	test_btrfs_progs_tables();
	test_size_opt();
	test_lines();
	test_plurals();
	return unit_finish();
}
