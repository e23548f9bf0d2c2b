// SPDX-License-Identifier: GPL-2.0-only
/*
 * The JSON naming rule, checked where the keys are declared: every key of
 * every record description in common/records.c is snake_case (a REC_TIME key
 * also makes "<key>_sec"), every document name too, and a version-1 document
 * name kept for one release is its snake_case name with '-' for '_'
 * (Documentation/json-schema.md).  A failure names the record and the key.
 * The same for `volctl inspect`'s descriptions (common/records-inspect.c):
 * every field and container name is snake_case, every OBJECT and IF is
 * closed, every integer field has a width the printer reads.
 * Also: a record printed through rec_emit() or vc_dump_rec() gives the same
 * text and JSON the description says.
 */
#include <stdlib.h>
#include "common/records.h"
#include "common/records-inspect.h"
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

static void check_desc(const struct rec_desc *d)
{
	int depth = 0;

	CHECK(d->name && d->nr > 0);
	for (size_t i = 0; i < d->nr; i++) {
		const struct rec_field *f = &d->fields[i];

		if (f->kind == REC_END) {
			depth--;
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
	if (!unit_check(depth == 0, __FILE__, __LINE__, "objects closed"))
		fprintf(stderr, "  record \"%s\": REC_OBJECT without REC_END\n", d->name);
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

static bool dump_int_kind(enum vc_dump_kind k)
{
	switch (k) {
	case VC_DK_UINT:
	case VC_DK_SINT:
	case VC_DK_HEX:
	case VC_DK_OCT:
	case VC_DK_BOOL:
	case VC_DK_BIT:
	case VC_DK_FLAGS:
	case VC_DK_ENUM:
	case VC_DK_TYPESTR:
	case VC_DK_TYPENAME:
	case VC_DK_BYTES:	/* its length */
	case VC_DK_IF:
		return true;
	default:
		return false;
	}
}

static void check_dump_desc(const struct vc_dump_desc *d)
{
	int depth = 0;

	CHECK(d->name && d->nr > 0);
	for (size_t i = 0; i < d->nr; i++) {
		const struct vc_dump_field *f = &d->fields[i];
		size_t sz = f->size;

		switch (f->kind) {
		case VC_DK_END:
			depth--;
			continue;
		case VC_DK_IF:
			depth++;
			break;
		case VC_DK_SUB:
			CHECK(f->aux != NULL);
			continue;
		default:
			/* an OBJECT's name too is a JSON key */
			depth += f->kind == VC_DK_OBJECT;
			check_key(d->name, f->name);
			break;
		}
		if (dump_int_kind(f->kind) &&
		    !unit_check(sz == 1 || sz == 2 || sz == 4 || sz == 8, __FILE__, __LINE__,
				"integer width"))
			fprintf(stderr, "  dump \"%s\": field %zu (%s) is %zu bytes wide\n", d->name, i,
				f->name ? f->name : "IF", sz);
		if (f->kind == VC_DK_FLAGS || f->kind == VC_DK_ENUM || f->kind == VC_DK_NOTE)
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

static const struct vc_dump_field t_dump_fields[] = {
	VC_DF("n", VC_DK_UINT, struct t_dump, n),
	VC_DF_AUX("flags", VC_DK_FLAGS, struct t_dump, flags, &t_flags),
	VC_DF_IF(struct t_dump, on),
	VC_DF_OBJECT("o", "o"),
	VC_DF_F("hidden", VC_DK_HEX, VC_DF_JSON, struct t_dump, n),
	VC_DF("key", VC_DK_KEY, struct t_dump, key),
	VC_DF_END,
	VC_DF_END,
};
static const struct vc_dump_desc t_dump_desc = VC_DUMP_DESC("test dump", t_dump_fields);

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
	CHECK_STR(json, "{\n  \"__header\": {\n    \"version\": \"2\"\n  },\n  \"n\": 7,\n"
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
	CHECK_STR(json, "{\n  \"__header\": {\n    \"version\": \"2\"\n  },\n  \"n\": 7,\n"
		     "  \"unset\": null,\n  \"o\": {\n    \"s\": null,\n    \"limit\": null\n  }\n}\n");
	free(text);
	free(json);
	return unit_finish();
}
