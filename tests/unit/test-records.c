// SPDX-License-Identifier: GPL-2.0-only
/*
 * The JSON naming rule, checked where the keys are declared: every key of
 * every record description in common/records.c is snake_case (a REC_TIME key
 * also makes "<key>_sec"), every document name too, and a version-1 document
 * name kept for one release is its snake_case name with '-' for '_'
 * (Documentation/json-schema.md).  A failure names the record and the key.
 * Also: a record printed through rec_emit() gives the same text and JSON the
 * description says.
 */
#include <stdlib.h>
#include "common/records.h"
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

	text = emit(false);
	json = emit(true);
	CHECK_STR(text, "\tN: 7\n\tUnset: 0\n\tLimit: -\n");
	CHECK_STR(json, "{\n  \"__header\": {\n    \"version\": \"2\"\n  },\n  \"n\": 7,\n"
		     "  \"unset\": null,\n  \"o\": {\n    \"s\": null,\n    \"limit\": null\n  }\n}\n");
	free(text);
	free(json);
	return unit_finish();
}
