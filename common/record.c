// SPDX-License-Identifier: GPL-2.0-only
/* The record printer: text and JSON of a record from its description (see record.h). */
#include <inttypes.h>
#include <string.h>
#include "common/record.h"
#include "common/units.h"
#include "kernel-shared/qgroup-list.h"

#define VAL(rec, f, type) (*(const type *)((const char *)(rec) + (f)->off))

static void emit_strs(struct kvout *kv, const struct rec_field *f, const char *const *v)
{
	kvout_array_open(kv, f->key);
	for (; v && *v; v++)
		kvout_item(kv, f->label, *v);
	kvout_array_close(kv);
}

static void emit_fields(struct kvout *kv, const struct rec_desc *d, const void *rec);

static void emit_opt(struct kvout *kv, const struct rec_field *f, const uint64_t *v)
{
	if (v)
		kvout_u64(kv, f->label, f->key, *v);
	else
		kvout_str(kv, f->label, f->key, NULL, "-");
}

static void emit_table(struct kvout *kv, const struct rec_field *f, const struct rec_table *t)
{
	const char *row = t->rows;

	if (kv->json ? !f->key : !f->label)
		return;
	if (f->label && !kv->json && !kv->quiet)
		rec_row_header(kv, t->desc);
	kvout_array_open(kv, f->key);
	for (size_t i = 0; i < t->nr; i++, row += t->size) {
		if (kv->json) {
			kvout_object_open(kv, NULL);
			rec_emit(kv, t->desc, row);
			kvout_object_close(kv);
		} else if (f->label) {
			rec_row(kv, t->desc, row);
		}
	}
	kvout_array_close(kv);
}

void rec_emit(struct kvout *kv, const struct rec_desc *d, const void *rec)
{
	const char *indent = kv->indent;
	int width = kv->label_width;

	if (d->indent) {
		kv->indent = d->indent;
		kv->label_width = d->label_width;
	}
	emit_fields(kv, d, rec);
	kv->indent = indent;
	kv->label_width = width;
}

static void emit_fields(struct kvout *kv, const struct rec_desc *d, const void *rec)
{
	char qb[BTRFS_QGROUPID_BUFSIZE];

	for (size_t i = 0; i < d->nr; i++) {
		const struct rec_field *f = &d->fields[i];

		switch (f->kind) {
		case REC_U64:
			kvout_u64(kv, f->label, f->key, VAL(rec, f, uint64_t));
			break;
		case REC_U64_SET:
			kvout_u64_set(kv, f->label, f->key, VAL(rec, f, uint64_t),
				      VAL(rec, f, uint64_t) != 0);
			break;
		case REC_U64_OPT:
			emit_opt(kv, f, VAL(rec, f, const uint64_t *));
			break;
		case REC_STR:
			kvout_str(kv, f->label, f->key, VAL(rec, f, const char *), "-");
			break;
		case REC_BOOL_OPT:
			if (VAL(rec, f, const bool *))
				kvout_bool(kv, f->label, f->key, *VAL(rec, f, const bool *));
			else
				kvout_str(kv, f->label, f->key, NULL, "-");
			break;
		case REC_UUID:
			kvout_uuid(kv, f->label, f->key, VAL(rec, f, const uint8_t *));
			break;
		case REC_TIME:
			kvout_time(kv, f->label, f->key, VAL(rec, f, int64_t));
			break;
		case REC_SIZE:
		case REC_LIMIT:
			kvout_size(kv, f->label, f->key, VAL(rec, f, uint64_t), f->kind == REC_LIMIT);
			break;
		case REC_BOOL:
			kvout_bool(kv, f->label, f->key, VAL(rec, f, bool));
			break;
		case REC_STRS:
			emit_strs(kv, f, VAL(rec, f, const char *const *));
			break;
		case REC_QGROUPID:
			kvout_str(kv, f->label, f->key,
				  btrfs_qgroupid_str(VAL(rec, f, uint64_t), qb), "-");
			break;
		case REC_QGROUPIDS:
			kvout_array_open(kv, f->key);
			for (size_t j = 0; j < VAL(rec, f, struct rec_u64s).nr; j++)
				kvout_item(kv, f->label,
					   btrfs_qgroupid_str(VAL(rec, f, struct rec_u64s).v[j], qb));
			kvout_array_close(kv);
			break;
		case REC_U64_IF:
			if (VAL(rec, f, const uint64_t *))
				kvout_u64(kv, f->label, f->key, *VAL(rec, f, const uint64_t *));
			break;
		case REC_U64S:
			kvout_array_open(kv, f->key);
			for (size_t j = 0; j < VAL(rec, f, struct rec_u64s).nr; j++)
				kvout_u64_item(kv, VAL(rec, f, struct rec_u64s).v[j]);
			kvout_array_close(kv);
			break;
		case REC_SUB:
			rec_emit(kv, VAL(rec, f, struct rec_sub).desc, VAL(rec, f, struct rec_sub).rec);
			break;
		case REC_TABLE:
			emit_table(kv, f, &VAL(rec, f, struct rec_table));
			break;
		case REC_OBJECT:
			kvout_object_open(kv, f->key);
			break;
		case REC_END:
			kvout_object_close(kv);
			break;
		}
	}
}

static void put_cell(FILE *out, const struct rec_field *f, const char *text)
{
	fprintf(out, "%*s", f->gap, "");
	fprintf(out, f->align == REC_LEFT ? "%-*s" : "%*s", f->width, text);
}

void rec_row_header(struct kvout *kv, const struct rec_desc *d)
{
	bool any = false;

	for (size_t i = 0; i < d->nr; i++)
		any |= d->fields[i].label && d->fields[i].label[0];
	/* a table whose columns have no names has no header line */
	if (kv->json || kv->quiet || !any)
		return;
	for (size_t i = 0; i < d->nr; i++)
		if (d->fields[i].label)
			put_cell(kv->out, &d->fields[i], d->fields[i].label);
	fputc('\n', kv->out);
}

void rec_row(struct kvout *kv, const struct rec_desc *d, const void *rec)
{
	if (kv->json || kv->quiet)
		return;
	for (size_t i = 0; i < d->nr; i++) {
		const struct rec_field *f = &d->fields[i];
		char buf[UNITS_BUFSIZE > 32 ? UNITS_BUFSIZE : 32];
		const char *text = buf;

		if (!f->label)
			continue;
		switch (f->kind) {
		case REC_U64:
		case REC_U64_SET:
			snprintf(buf, sizeof(buf), "%" PRIu64, VAL(rec, f, uint64_t));
			break;
		case REC_QGROUPID:
			btrfs_qgroupid_str(VAL(rec, f, uint64_t), buf);
			break;
		case REC_U64_OPT:
			if (VAL(rec, f, const uint64_t *))
				snprintf(buf, sizeof(buf), "%" PRIu64, *VAL(rec, f, const uint64_t *));
			else
				strcpy(buf, "-");
			break;
		case REC_STR:
			text = VAL(rec, f, const char *);
			if (!text)
				text = "-";
			break;
		case REC_SIZE:
			pretty_size(VAL(rec, f, uint64_t), kv->units, buf);
			break;
		case REC_LIMIT:
			if (VAL(rec, f, uint64_t))
				pretty_size(VAL(rec, f, uint64_t), kv->units, buf);
			else
				strcpy(buf, "-");
			break;
		case REC_BOOL:
			text = VAL(rec, f, bool) ? "yes" : "no";
			break;
		case REC_BOOL_OPT:
			text = !VAL(rec, f, const bool *) ? "-" : *VAL(rec, f, const bool *) ? "yes" : "no";
			break;
		default:
			/* not a column kind */
			text = "";
			break;
		}
		put_cell(kv->out, f, text);
	}
	fputc('\n', kv->out);
}

void rec_print_document(struct kvout *kv, const struct rec_doc *doc, const struct rec_desc *d,
			const void *rec)
{
	kvout_document_open(kv);
	for (int pass = 0; pass < rec_doc_passes(kv, doc); pass++) {
		kv->v1 = pass;
		kvout_object_open(kv, rec_doc_key(doc, pass));
		rec_emit(kv, d, rec);
		kvout_object_close(kv);
	}
	kvout_document_close(kv);
}
