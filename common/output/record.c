// SPDX-License-Identifier: GPL-2.0-only
/* The record printer: text and JSON of a record from its description (see record.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "common/output/record.h"
#include "common/util/units.h"
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

static void emit_size_opt(struct kvout *kv, const struct rec_field *f, const uint64_t *v)
{
	if (v)
		kvout_size(kv, f->label, f->key, *v, false);
	else
		kvout_str(kv, f->label, f->key, NULL, "none");
}

static void emit_s64(struct kvout *kv, const struct rec_field *f, int64_t v)
{
	char buf[24];

	if (kv->json) {
		if (f->key && !kv->quiet)
			json_s64(&kv->jw, f->key, v);
		return;
	}
	snprintf(buf, sizeof(buf), "%" PRId64, v);
	kvout_str(kv, f->label, NULL, buf, "-");
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

/* The count a plural form "{one|many}" agrees with: the value of number field @f */
static bool field_count(const struct rec_field *f, const void *rec, uint64_t *n)
{
	switch (f->kind) {
	case REC_U64:
	case REC_U64_SET:
	case REC_S64:
	case REC_SIZE:
	case REC_LIMIT:
		*n = VAL(rec, f, uint64_t);
		return true;
	case REC_U64_OPT:
	case REC_U64_IF:
	case REC_SIZE_OPT:
		if (!VAL(rec, f, const uint64_t *))
			return false;
		*n = *VAL(rec, f, const uint64_t *);
		return true;
	default:
		return false;
	}
}

/*
 * The text of the "{...}" at @open (up to @close) of a template: "{}" the
 * text of field @f (its number, when it has one, becomes *@count), a plural
 * form "{one|many}" @one when *@count is 1, @many otherwise.  Anything else
 * is printed as it is.  Whether it took a value field.
 */
static bool put_slot(struct kvout *kv, struct rec_text *cell, const char *open,
		     const char *close, const struct rec_field *f, const void *rec,
		     uint64_t *count)
{
	const char *bar = memchr(open, '|', (size_t)(close - open));
	bool print = !kv->json && !kv->quiet;
	const char *v;

	if (close == open + 1) {
		if (!f)
			return false;
		v = rec_cell(cell, f, rec, kv->units);
		field_count(f, rec, count);
		if (print)
			fputs(v ? v : "", kv->out);
		return true;
	}
	if (!print)
		return false;
	if (!bar)
		fprintf(kv->out, "%.*s", (int)(close - open + 1), open);
	else if (*count == 1)
		fprintf(kv->out, "%.*s", (int)(bar - open - 1), open + 1);
	else
		fprintf(kv->out, "%.*s", (int)(close - bar - 1), bar + 1);
	return false;
}

/*
 * The REC_LINE d->fields[i]: text, its template with each "{}" the text of
 * the next field and each "{one|many}" agreeing with the number before it,
 * then a newline unless the line goes on (REC_MORE); either way, the number
 * of value fields it takes.
 */
static size_t emit_line(struct kvout *kv, const struct rec_desc *d, size_t i, const void *rec)
{
	const char *t = d->fields[i].label, *open, *close;
	bool print = !kv->json && !kv->quiet;
	struct rec_text cell = { 0 };
	uint64_t count = 0;
	size_t nr = 0;

	for (; (open = strchr(t, '{')) && (close = strchr(open, '}')); t = close + 1) {
		const struct rec_field *f = i + 1 + nr < d->nr ? &d->fields[i + 1 + nr] : NULL;

		if (print)
			fprintf(kv->out, "%.*s", (int)(open - t), t);
		nr += put_slot(kv, &cell, open, close, f, rec, &count);
	}
	if (print)
		fprintf(kv->out, "%s%s", t, d->fields[i].flags & REC_MORE ? "" : "\n");
	rec_text_release(&cell);
	return nr;
}

/* The REC_ENDIF of the REC_IF d->fields[i] (or the end) */
static size_t skip_block(const struct rec_desc *d, size_t i)
{
	for (int depth = 0; ++i < d->nr;) {
		if (d->fields[i].kind == REC_IF)
			depth++;
		else if (d->fields[i].kind == REC_ENDIF && !depth--)
			break;
	}
	return i;
}

/* A field of one number, string or flag; false for the other kinds */
static bool emit_scalar(struct kvout *kv, const struct rec_field *f, const void *rec)
{
	char qb[BTRFS_QGROUPID_BUFSIZE];

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
	case REC_U64_IF:
		if (VAL(rec, f, const uint64_t *))
			kvout_u64(kv, f->label, f->key, *VAL(rec, f, const uint64_t *));
		break;
	case REC_S64:
		emit_s64(kv, f, VAL(rec, f, int64_t));
		break;
	case REC_STR:
		kvout_str(kv, f->label, f->key, VAL(rec, f, const char *), "-");
		break;
	case REC_BOOL:
		kvout_bool(kv, f->label, f->key, VAL(rec, f, bool));
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
	case REC_SIZE_OPT:
		emit_size_opt(kv, f, VAL(rec, f, const uint64_t *));
		break;
	case REC_QGROUPID:
		kvout_str(kv, f->label, f->key, btrfs_qgroupid_str(VAL(rec, f, uint64_t), qb), "-");
		break;
	default:
		return false;
	}
	return true;
}

/* A field of a list of values; false for the other kinds */
static bool emit_list(struct kvout *kv, const struct rec_field *f, const void *rec)
{
	char qb[BTRFS_QGROUPID_BUFSIZE];

	switch (f->kind) {
	case REC_STRS:
		emit_strs(kv, f, VAL(rec, f, const char *const *));
		break;
	case REC_QGROUPIDS:
		kvout_array_open(kv, f->key);
		for (size_t j = 0; j < VAL(rec, f, struct rec_u64s).nr; j++)
			kvout_item(kv, f->label,
				   btrfs_qgroupid_str(VAL(rec, f, struct rec_u64s).v[j], qb));
		kvout_array_close(kv);
		break;
	case REC_U64S:
		kvout_array_open(kv, f->key);
		for (size_t j = 0; j < VAL(rec, f, struct rec_u64s).nr; j++)
			kvout_u64_item(kv, VAL(rec, f, struct rec_u64s).v[j]);
		kvout_array_close(kv);
		break;
	case REC_TABLE:
		emit_table(kv, f, &VAL(rec, f, struct rec_table));
		break;
	default:
		return false;
	}
	return true;
}

/*
 * The fields of @d: values through emit_scalar() and emit_list(), the
 * structure (nested records and objects, text lines, conditional blocks) here.
 */
static void emit_fields(struct kvout *kv, const struct rec_desc *d, const void *rec)
{
	for (size_t i = 0; i < d->nr; i++) {
		const struct rec_field *f = &d->fields[i];

		if (emit_scalar(kv, f, rec) || emit_list(kv, f, rec))
			continue;
		switch (f->kind) {
		case REC_SUB:
			rec_emit(kv, VAL(rec, f, struct rec_sub).desc, VAL(rec, f, struct rec_sub).rec);
			break;
		case REC_OBJECT:
			kvout_object_open(kv, f->key);
			break;
		case REC_END:
			kvout_object_close(kv);
			break;
		case REC_LINE:
			i += emit_line(kv, d, i, rec);
			break;
		case REC_IF:
			if (VAL(rec, f, bool) == !!(f->flags & REC_NOT))
				i = skip_block(d, i);
			break;
		default:
			break;
		}
	}
}

/* Room for @need bytes of cell text; NULL when out of memory */
static char *text_room(struct rec_text *t, size_t need)
{
	char *s;

	if (!t->s && need <= sizeof(t->small))
		return t->small;
	if (t->s && need <= t->cap)
		return t->s;
	s = realloc(t->s, need);
	if (!s)
		return NULL;
	t->s = s;
	t->cap = need;
	return s;
}

void rec_text_release(struct rec_text *t)
{
	free(t->s);
	t->s = NULL;
	t->cap = 0;
}

/* "L/ID,L/ID..." of @ids, or "-" */
static const char *cell_ids(struct rec_text *t, const struct rec_u64s *ids)
{
	char qb[BTRFS_QGROUPID_BUFSIZE];
	size_t len = 0;
	char *s;

	if (!ids->nr)
		return "-";
	s = text_room(t, ids->nr * BTRFS_QGROUPID_BUFSIZE + 1);
	if (!s)
		return NULL;
	for (size_t i = 0; i < ids->nr; i++)
		len += (size_t)sprintf(s + len, "%s%s", i ? "," : "",
				       btrfs_qgroupid_str(ids->v[i], qb));
	return s;
}

static const char *cell_size(char *buf, const uint64_t *v, unsigned int units, const char *none)
{
	return v ? pretty_size(*v, units, buf) : none;
}

const char *rec_cell(struct rec_text *t, const struct rec_field *f, const void *rec,
		     unsigned int units)
{
	char *buf = text_room(t, UNITS_BUFSIZE > 40 ? UNITS_BUFSIZE : 40);
	uint64_t v;

	if (!buf)
		return NULL;
	switch (f->kind) {
	case REC_U64:
	case REC_U64_SET:
		snprintf(buf, 24, "%" PRIu64, VAL(rec, f, uint64_t));
		return buf;
	case REC_QGROUPID:
		return btrfs_qgroupid_str(VAL(rec, f, uint64_t), buf);
	case REC_S64:
		snprintf(buf, 24, "%" PRId64, VAL(rec, f, int64_t));
		return buf;
	case REC_U64_OPT:
		if (!VAL(rec, f, const uint64_t *))
			return "-";
		snprintf(buf, 24, "%" PRIu64, *VAL(rec, f, const uint64_t *));
		return buf;
	case REC_STR:
		return VAL(rec, f, const char *) ? VAL(rec, f, const char *) : "-";
	case REC_SIZE:
		return pretty_size(VAL(rec, f, uint64_t), units, buf);
	case REC_LIMIT:
		v = VAL(rec, f, uint64_t);
		return cell_size(buf, v ? &v : NULL, units, "-");
	case REC_SIZE_OPT:
		return cell_size(buf, VAL(rec, f, const uint64_t *), units, "none");
	case REC_BOOL:
		return VAL(rec, f, bool) ? "yes" : "no";
	case REC_BOOL_OPT:
		return !VAL(rec, f, const bool *) ? "-" : *VAL(rec, f, const bool *) ? "yes" : "no";
	case REC_QGROUPIDS:
		return cell_ids(t, &VAL(rec, f, struct rec_u64s));
	case REC_UUID:
		format_uuid(VAL(rec, f, const uint8_t *), buf);
		return buf[0] ? buf : "-";
	case REC_TIME:
		/* local time without the zone, as btrfs-progs' list */
		format_time(VAL(rec, f, int64_t), false, false, buf, 40);
		return buf[0] ? buf : "-";
	default:
		/* not a column kind */
		return "";
	}
}

static void put_cell(FILE *out, const struct rec_field *f, int width, bool first,
		     const char *text)
{
	if (!first)
		fprintf(out, "%*s", f->gap, "");
	fprintf(out, f->align == REC_LEFT ? "%-*s" : "%*s", width, text);
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
			put_cell(kv->out, &d->fields[i], d->fields[i].width, false,
				 d->fields[i].label);
	fputc('\n', kv->out);
}

void rec_row(struct kvout *kv, const struct rec_desc *d, const void *rec)
{
	struct rec_text t = { 0 };

	if (kv->json || kv->quiet)
		return;
	for (size_t i = 0; i < d->nr; i++) {
		const struct rec_field *f = &d->fields[i];
		const char *text;

		if (!f->label)
			continue;
		text = rec_cell(&t, f, rec, kv->units);
		put_cell(kv->out, f, f->width, false, text ? text : "");
	}
	fputc('\n', kv->out);
	rec_text_release(&t);
}

/* ---- auto-width tables ---- */

int rec_autotab_init(struct rec_autotab *t, struct kvout *kv, const struct rec_desc *d,
		     unsigned int show)
{
	*t = (struct rec_autotab){ .kv = kv, .desc = d, .show = show };
	t->width = calloc(d->nr ? d->nr : 1, sizeof(*t->width));
	if (!t->width)
		return -ENOMEM;
	for (size_t i = 0; i < d->nr; i++)
		t->width[i] = d->fields[i].width;
	return 0;
}

void rec_autotab_measure(struct rec_autotab *t, const void *rec)
{
	const struct rec_desc *d = t->desc;

	for (size_t i = 0; i < d->nr; i++) {
		const struct rec_field *f = &d->fields[i];
		const char *text;
		int len;

		if (!(f->flags & REC_AUTO) || !rec_col_shown(f, t->show))
			continue;
		text = rec_cell(&t->cell, f, rec, t->kv->units);
		len = text ? (int)strlen(text) : 0;
		if (len > t->width[i])
			t->width[i] = len;
	}
}

/* One line of the table: the cells of @rec, or with no @rec the labels (@rule: as dashes) */
static int autotab_line(struct rec_autotab *t, const void *rec, bool rule)
{
	const struct rec_desc *d = t->desc;
	FILE *out = t->kv->out;
	bool first = true;

	for (size_t i = 0; i < d->nr; i++) {
		const struct rec_field *f = &d->fields[i];
		const char *text = f->label;
		char *dashes;

		if (!rec_col_shown(f, t->show))
			continue;
		if (rec) {
			text = rec_cell(&t->cell, f, rec, t->kv->units);
		} else if (rule) {
			dashes = text_room(&t->cell, strlen(f->label) + 1);
			if (dashes) {
				memset(dashes, '-', strlen(f->label));
				dashes[strlen(f->label)] = '\0';
			}
			text = dashes;
		}
		if (!text)
			return -ENOMEM;
		put_cell(out, f, t->width[i], first, text);
		first = false;
	}
	if (!rec && (d->table & REC_TAB_TAIL))
		fputc(' ', out);
	fputc('\n', out);
	return 0;
}

int rec_autotab_header(struct rec_autotab *t)
{
	int ret;

	if (t->kv->json || t->kv->quiet)
		return 0;
	ret = autotab_line(t, NULL, false);
	if (!ret && (t->desc->table & REC_TAB_RULE))
		ret = autotab_line(t, NULL, true);
	return ret;
}

int rec_autotab_row(struct rec_autotab *t, const void *rec)
{
	if (t->kv->json || t->kv->quiet)
		return 0;
	return autotab_line(t, rec, false);
}

void rec_autotab_release(struct rec_autotab *t)
{
	free(t->width);
	t->width = NULL;
	rec_text_release(&t->cell);
}

char *rec_text_string(const struct rec_desc *d, const void *rec, unsigned int units)
{
	struct kvout kv = { .units = units, .indent = "\t" };
	char *buf = NULL;
	size_t len = 0;

	kv.out = open_memstream(&buf, &len);
	if (!kv.out)
		return NULL;
	rec_emit(&kv, d, rec);
	if (fclose(kv.out)) {
		free(buf);
		return NULL;
	}
	/* a one-line text without its newline */
	if (len && buf[len - 1] == '\n')
		buf[len - 1] = '\0';
	return buf;
}

void rec_print_document(struct kvout *kv, const struct rec_doc *doc, const struct rec_desc *d,
			const void *rec)
{
	rec_doc_begin(kv, doc);
	kvout_object_open(kv, rec_doc_key(kv, doc));
	rec_emit(kv, d, rec);
	kvout_object_close(kv);
	kvout_document_close(kv);
}
