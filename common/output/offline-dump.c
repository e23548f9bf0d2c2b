// SPDX-License-Identifier: GPL-2.0-only
/*
 * The dump writer of `volctl inspect` (see offline-dump.h): it renders each
 * value as text ("name value", indented) or JSON, so both formats always
 * carry the same fields, and prints a described record (vc_dump_rec()) from
 * its table in common/output/records-inspect.c.  What is dumped (superblocks,
 * blocks, item bodies) is offline-dump-items.c's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uuid/uuid.h>
#include "common/output/offline-dump.h"
#include "common/output/records-inspect.h"
#include "kernel-shared/csum.h"
#include "kernel-shared/items.h"

/* ------------------------------------------------------------------ */
/* The writer                                                          */
/* ------------------------------------------------------------------ */

void vc_dump_init(struct vc_dump *d, FILE *out, bool json)
{
	memset(d, 0, sizeof(*d));
	d->out = out;
	d->json = json;
	if (json)
		json_document_open(&d->jw, out, false);
}

void vc_dump_finish(struct vc_dump *d)
{
	if (d->json)
		json_document_close(&d->jw);
}

static void text_indent(struct vc_dump *d)
{
	fprintf(d->out, "%*s", d->level * 2, "");
}

static void push(struct vc_dump *d, bool indent)
{
	if (d->depth < (int)(sizeof(d->indented) / sizeof(d->indented[0])))
		d->indented[d->depth] = indent;
	d->depth++;
	if (indent)
		d->level++;
}

static void pop(struct vc_dump *d)
{
	if (d->depth <= 0)
		return;
	d->depth--;
	if (d->depth < (int)(sizeof(d->indented) / sizeof(d->indented[0])) &&
	    d->indented[d->depth])
		d->level--;
}

/* Text: a titled container prints its title and indents its members. */
void vc_dump_open(struct vc_dump *d, const char *name, const char *title)
{
	if (d->json) {
		json_object_open(&d->jw, name);
		return;
	}
	if (title) {
		text_indent(d);
		fprintf(d->out, "%s\n", title);
	}
	push(d, title != NULL);
}

void vc_dump_close(struct vc_dump *d)
{
	if (d->json)
		json_object_close(&d->jw);
	else
		pop(d);
}

void vc_dump_list_open(struct vc_dump *d, const char *name, const char *title)
{
	if (d->json) {
		json_array_open(&d->jw, name);
		return;
	}
	if (title) {
		text_indent(d);
		fprintf(d->out, "%s\n", title);
	}
	push(d, title != NULL);
}

void vc_dump_list_close(struct vc_dump *d)
{
	if (d->json)
		json_array_close(&d->jw);
	else
		pop(d);
}

static void vc_dump_u64(struct vc_dump *d, const char *name, u64 v)
{
	if (d->json) {
		json_u64(&d->jw, name, v);
		return;
	}
	text_indent(d);
	fprintf(d->out, "%s %" PRIu64 "\n", name, v);
}

static void vc_dump_hex(struct vc_dump *d, const char *name, u64 v)
{
	if (d->json) {
		json_u64(&d->jw, name, v);
		return;
	}
	text_indent(d);
	fprintf(d->out, "%s 0x%" PRIx64 "\n", name, v);
}

static void vc_dump_str(struct vc_dump *d, const char *name, const char *s)
{
	if (d->json) {
		json_str(&d->jw, name, s);
		return;
	}
	text_indent(d);
	fprintf(d->out, "%s %s\n", name, s ? s : "-");
}

static void vc_dump_bool(struct vc_dump *d, const char *name, bool v)
{
	if (d->json) {
		json_bool(&d->jw, name, v);
		return;
	}
	text_indent(d);
	fprintf(d->out, "%s %s\n", name, v ? "yes" : "no");
}

static void vc_dump_uuid(struct vc_dump *d, const char *name, const u8 *uuid)
{
	char buf[37];

	uuid_unparse(uuid, buf);
	vc_dump_str(d, name, buf);
}

const char *vc_dump_objectid_str(u64 id, char *buf, size_t size)
{
	/* special objectids near the top of the range read better signed */
	if (id >= (u64)-255)
		snprintf(buf, size, "%" PRId64, (s64)id);
	else
		snprintf(buf, size, "%" PRIu64, id);
	return buf;
}

const char *vc_dump_type_str(u8 type, char *buf, size_t size)
{
	const char *n = btrfs_item_type_name(type);

	if (n)
		return n;
	snprintf(buf, size, "%u", type);
	return buf;
}

/* The JSON object of a key, or one text line */
static void vc_dump_key(struct vc_dump *d, const char *name, const struct btrfs_key *key)
{
	char ob[32], tb[32];

	if (d->json) {
		json_object_open(&d->jw, name);
		vc_dump_rec(d, &vc_dump_key_json, key);
		json_object_close(&d->jw);
		return;
	}
	text_indent(d);
	fprintf(d->out, "%s (%s %s %" PRIu64 ")\n", name,
		vc_dump_objectid_str(key->objectid, ob, sizeof(ob)),
		vc_dump_type_str(key->type, tb, sizeof(tb)), key->offset);
}

static void vc_dump_bytes(struct vc_dump *d, const char *name, const u8 *p, u32 len)
{
	if (d->json) {
		/* JSON: one lowercase hex string */
		char *s = malloc((size_t)len * 2 + 1);

		if (!s) {
			json_null(&d->jw, name);
			return;
		}
		for (u32 i = 0; i < len; i++)
			sprintf(s + 2 * i, "%02x", p[i]);
		s[2 * len] = '\0';
		json_str(&d->jw, name, s);
		free(s);
		return;
	}
	text_indent(d);
	fprintf(d->out, "%s (%u bytes)\n", name, len);
	for (u32 off = 0; off < len; off += 16) {
		text_indent(d);
		fprintf(d->out, "  %04x:", off);
		for (u32 i = off; i < off + 16 && i < len; i++)
			fprintf(d->out, " %02x", p[i]);
		fputc('\n', d->out);
	}
}

/* A csum field: the meaningful bytes of the algorithm, as hex */
static void dump_csum(struct vc_dump *d, const char *name, const u8 *csum, u16 csum_type)
{
	int size = btrfs_csum_size(csum_type);
	char s[2 * BTRFS_CSUM_SIZE + 1];

	if (size <= 0 || size > BTRFS_CSUM_SIZE)
		size = BTRFS_CSUM_SIZE;
	for (int i = 0; i < size; i++)
		sprintf(s + 2 * i, "%02x", csum[i]);
	s[2 * size] = '\0';
	vc_dump_str(d, name, s);
}

/* A time: text "sec.nsec", JSON an object */
static void dump_time(struct vc_dump *d, const char *name, const struct btrfs_time *t)
{
	char buf[64];

	if (d->json) {
		json_object_open(&d->jw, name);
		vc_dump_rec(d, &vc_dump_time_json, t);
		json_object_close(&d->jw);
		return;
	}
	snprintf(buf, sizeof(buf), "%" PRId64 ".%09u", t->sec, t->nsec);
	vc_dump_str(d, name, buf);
}

static const char *flag_lookup(const struct vc_dump_flags *f, u64 bit)
{
	const struct vc_dump_flag_name *t = f->names;

	if (!t)
		return f->fn(bit);
	for (; t->name; t++)
		if (t->bit == bit)
			return t->name;
	return NULL;
}

/*
 * Text: "name 0x341 (A|B|C)"; JSON: "name": 833, "name_names": ["A", ...].
 * Unknown bits show as "0x<bit>".
 */
static void dump_flags(struct vc_dump *d, const char *name, u64 v, const struct vc_dump_flags *f)
{
	char jname[64];
	bool first = true;

	if (d->json) {
		json_u64(&d->jw, name, v);
		snprintf(jname, sizeof(jname), "%s_names", name);
		json_array_open(&d->jw, jname);
	} else {
		text_indent(d);
		fprintf(d->out, "%s 0x%" PRIx64 " (", name, v);
	}
	for (int b = 0; b < 64; b++) {
		u64 bit = 1ULL << b;
		const char *n;
		char unk[24];

		if (!(v & bit))
			continue;
		n = flag_lookup(f, bit);
		if (!n) {
			snprintf(unk, sizeof(unk), "0x%" PRIx64, bit);
			n = unk;
		}
		if (d->json)
			json_str(&d->jw, NULL, n);
		else
			fprintf(d->out, "%s%s", first ? "" : "|", n);
		first = false;
	}
	if (d->json)
		json_array_close(&d->jw);
	else
		fprintf(d->out, "%s)\n", first ? "none" : "");
}

/* ------------------------------------------------------------------ */
/* Described records                                                   */
/* ------------------------------------------------------------------ */

#define AT(rec, off) ((const u8 *)(rec) + (off))

/* An integer of @size bytes at @off, host order or (REC_LE) little-endian */
static u64 get_uint(const void *rec, size_t off, size_t size, bool le)
{
	const u8 *p = AT(rec, off);
	u8 v8;
	u16 v16;
	u32 v32;
	u64 v64;

	switch (size) {
	case 1:
		v8 = *p;
		return v8;
	case 2:
		if (le)
			return get_le16(p);
		memcpy(&v16, p, 2);
		return v16;
	case 4:
		if (le)
			return get_le32(p);
		memcpy(&v32, p, 4);
		return v32;
	case 8:
		if (le)
			return get_le64(p);
		memcpy(&v64, p, 8);
		return v64;
	}
	return 0;
}

static s64 get_sint(const void *rec, size_t off, size_t size, bool le)
{
	u64 v = get_uint(rec, off, size, le);

	if (size < 8 && (v & (1ULL << (size * 8 - 1))))
		v |= ~0ULL << (size * 8);
	return (s64)v;
}

/* The index of the END matching the OBJECT or IF at @i */
static size_t skip_block(const struct rec_desc *desc, size_t i, size_t nr)
{
	int depth = 0;

	for (; i < nr; i++) {
		enum rec_kind k = desc->fields[i].kind;

		if (k == REC_DK_OBJECT || k == REC_DK_IF)
			depth++;
		else if (k == REC_DK_END && --depth == 0)
			return i;
	}
	return nr;
}

/* A field of one integer (in any base, as a flag word or a name); false for the other kinds */
static bool dump_number(struct vc_dump *d, const struct rec_field *f, const void *rec)
{
	bool le = f->flags & REC_LE;
	const struct vc_dump_enum *e = f->aux;
	char buf[32];
	u64 v;

	switch (f->kind) {
	case REC_DK_UINT:
		vc_dump_u64(d, f->key, get_uint(rec, f->off, f->size, le));
		break;
	case REC_DK_SINT:
		if (d->json)
			json_s64(&d->jw, f->key, get_sint(rec, f->off, f->size, le));
		else
			fprintf(d->out, "%*s%s %" PRId64 "\n", d->level * 2, "", f->key,
				get_sint(rec, f->off, f->size, le));
		break;
	case REC_DK_HEX:
		vc_dump_hex(d, f->key, get_uint(rec, f->off, f->size, le));
		break;
	case REC_DK_OCT:
		v = get_uint(rec, f->off, f->size, le);
		if (d->json) {
			vc_dump_u64(d, f->key, v);
		} else {
			snprintf(buf, sizeof(buf), "0%" PRIo64, v);
			vc_dump_str(d, f->key, buf);
		}
		break;
	case REC_DK_BOOL:
		vc_dump_bool(d, f->key, get_uint(rec, f->off, f->size, le) != 0);
		break;
	case REC_DK_BIT:
		vc_dump_bool(d, f->key, get_uint(rec, f->off, f->size, le) & f->mask);
		break;
	case REC_DK_FLAGS:
		dump_flags(d, f->key, get_uint(rec, f->off, f->size, le), f->aux);
		break;
	case REC_DK_ENUM:
		v = get_uint(rec, f->off, f->size, le);
		vc_dump_str(d, f->key, v < e->nr ? e->names[v] : e->other);
		break;
	default:
		return false;
	}
	return true;
}

/* A field printed as a string; false for the other kinds */
static bool dump_text(struct vc_dump *d, const struct rec_field *f, const void *rec)
{
	bool le = f->flags & REC_LE;
	char buf[BTRFS_LABEL_SIZE + 1];
	size_t n = f->size < sizeof(buf) - 1 ? f->size : sizeof(buf) - 1;

	switch (f->kind) {
	case REC_DK_CHARS:
	case REC_DK_ASCII:
		for (size_t i = 0; i < n; i++) {
			char c = (char)AT(rec, f->off)[i];

			if (f->kind == REC_DK_ASCII && !(c >= 0x20 && c < 0x7f))
				c = '.';
			buf[i] = c;
		}
		buf[n] = '\0';
		vc_dump_str(d, f->key, buf);
		break;
	case REC_DK_STR:
		vc_dump_str(d, f->key, *(const char *const *)AT(rec, f->off));
		break;
	case REC_DK_NOTE:
		vc_dump_str(d, f->key, f->aux);
		break;
	case REC_DK_TYPESTR:
		vc_dump_str(d, f->key, vc_dump_type_str((u8)get_uint(rec, f->off, 1, le), buf, sizeof(buf)));
		break;
	case REC_DK_TYPENAME:
		vc_dump_str(d, f->key, btrfs_item_type_name((u8)get_uint(rec, f->off, 1, le)));
		break;
	default:
		return false;
	}
	return true;
}

/* A field: numbers and strings through dump_number() and dump_text(), structures here */
static void dump_field(struct vc_dump *d, const struct rec_field *f, const void *rec)
{
	bool le = f->flags & REC_LE;

	if (dump_number(d, f, rec) || dump_text(d, f, rec))
		return;
	switch (f->kind) {
	case REC_DK_UUID:
		vc_dump_uuid(d, f->key, AT(rec, f->off));
		break;
	case REC_DK_KEY:
		vc_dump_key(d, f->key, (const struct btrfs_key *)AT(rec, f->off));
		break;
	case REC_DK_TIME:
		dump_time(d, f->key, (const struct btrfs_time *)AT(rec, f->off));
		break;
	case REC_DK_CSUM:
		dump_csum(d, f->key, AT(rec, f->off), (u16)get_uint(rec, f->off2, 2, le));
		break;
	case REC_DK_BYTES:
		vc_dump_bytes(d, f->key, *(const u8 *const *)AT(rec, f->off),
			      (u32)get_uint(rec, f->off2, f->size, le));
		break;
	case REC_DK_SUB:
		vc_dump_rec(d, f->aux, AT(rec, f->off));
		break;
	case REC_DK_OBJECT:
		vc_dump_open(d, f->key, f->label);
		break;
	default:
		break;
	}
}

void vc_dump_rec_part(struct vc_dump *d, const struct rec_desc *desc, const void *rec,
		      size_t nr)
{
	bool is_object[16];	/* per open OBJECT or IF: which */
	int depth = 0;

	if (nr > desc->nr)
		nr = desc->nr;
	for (size_t i = 0; i < nr; i++) {
		const struct rec_field *f = &desc->fields[i];

		if ((f->flags & REC_JSON_ONLY) && !d->json)
			continue;
		if (f->kind == REC_DK_IF && !get_uint(rec, f->off, f->size, f->flags & REC_LE)) {
			i = skip_block(desc, i, nr);
			continue;
		}
		if (f->kind == REC_DK_END) {
			if (depth > 0 && is_object[--depth])
				vc_dump_close(d);
			continue;
		}
		if ((f->kind == REC_DK_OBJECT || f->kind == REC_DK_IF) &&
		    depth < (int)(sizeof(is_object) / sizeof(is_object[0])))
			is_object[depth++] = f->kind == REC_DK_OBJECT;
		dump_field(d, f, rec);
	}
}

void vc_dump_rec(struct vc_dump *d, const struct rec_desc *desc, const void *rec)
{
	vc_dump_rec_part(d, desc, rec, desc->nr);
}

void vc_dump_list_begin(struct vc_dump *d, const struct vc_dump_list *l)
{
	if (l->object)
		vc_dump_open(d, l->name, l->title);
	else
		vc_dump_list_open(d, l->name, l->title);
}

void vc_dump_elem_open(struct vc_dump *d, const struct vc_dump_list *l, u64 index)
{
	char title[64];

	if (l->elem && l->numbered) {
		snprintf(title, sizeof(title), "%s %" PRIu64, l->elem, index);
		vc_dump_open(d, NULL, title);
	} else {
		vc_dump_open(d, NULL, l->elem);
	}
}

void vc_dump_elem(struct vc_dump *d, const struct vc_dump_list *l, u64 index, const void *rec)
{
	vc_dump_elem_open(d, l, index);
	vc_dump_rec(d, l->desc, rec);
	vc_dump_close(d);
}

void vc_dump_bare(struct vc_dump *d, const struct vc_dump_list *l, u64 v)
{
	if (d->json)
		json_u64(&d->jw, NULL, v);
	else
		vc_dump_u64(d, l->elem, v);
}
