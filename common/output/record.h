/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One printer per record.
 *
 * A record (a subvolume, a dry run, a headroom...) is described once, as a
 * table of fields in common/output/records.c.  Each field names its text label, its
 * JSON key, how its value is printed (the kind) and where the value sits in
 * the record's value struct (an offset).  rec_emit() prints any record in
 * either format from its description through the key/value writer of
 * common/output/kvout.h, so the two formats cannot drift apart:
 *
 * - text: "\t<label><value>" per field with a label (a NULL label leaves the
 *   field out of the text);
 * - JSON: a member per field with a key (a NULL key leaves it out of the JSON).
 *
 * Free-form text (sentences with values in them) is text-only fields too: a
 * REC_LINE's label is a template whose "{}"s take the values of the fields
 * after it (REC_TEXT, REC_V; REC_TEXT_MORE: a part of a line, the next
 * REC_TEXT goes on after it) and whose plural forms "{one|many}" (e.g.
 * "{} cop{y|ies}", "{} device{|s}") agree with the number of the "{}"
 * before them on the line, and REC_WHEN/REC_UNLESS ... REC_WHEN_END
 * print the fields between them only when a bool of the record is true
 * (false).  With no keys, such fields leave the JSON as it is.
 *
 * Row records (one line of a table such as the dry run's subvolumes) carry a
 * column width, alignment and gap per field instead: rec_row_header() and
 * rec_row() print the columns, rec_emit() the same row as a JSON object; a
 * REC_TABLE field prints a whole table either way.  A column can be as wide
 * as its widest cell (REC_AUTO: measure every row, then print; see
 * struct rec_autotab) and shown only on request (a show mask: the option
 * bits a command passes).  rec_cell() gives the text of one cell, for
 * printers of other shapes (libsmartcols trees, the buffered subvolume list).
 *
 * The JSON naming rule (Documentation/json-schema.md) is checked where the
 * keys are declared: every key in rec_all[] is snake_case, and the only other
 * names are the version-1 document names kept for one release
 * (tests/unit/test-records.c).
 *
 * `volctl inspect`'s dumps of on-disk structures are described in the same
 * scheme, with the dump's field kinds (REC_DK_*: raw integers of a width,
 * little-endian or not, flag words, keys...) and printed by the dump's
 * writer (indented "name value" text, a field's key being its text label
 * too; vc_dump_rec() of common/output/offline-dump.h): their descriptions
 * are in common/output/records-inspect.c, every name in vc_dump_all[] and
 * vc_dump_all_lists[] checked by the same test.  rec_emit() leaves the
 * dump's kinds out, and vc_dump_rec() the others.  tests/check-api.sh
 * holds every other file to no key or label literal in a writer call.
 */
#ifndef VOLCTL_COMMON_RECORD_H
#define VOLCTL_COMMON_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "common/output/kvout.h"

enum rec_kind {
	REC_U64,	/* uint64_t */
	REC_U64_SET,	/* uint64_t; 0 is "unset": JSON null (text: the number) */
	REC_U64_OPT,	/* const uint64_t *; NULL is "unset": text "-", JSON null */
	REC_STR,	/* const char *; NULL: text "-", JSON null */
	REC_BOOL_OPT,	/* const bool *; NULL is "unknown": text "-", JSON null */
	REC_UUID,	/* const uint8_t * (16 bytes); all zero: text "-", JSON null */
	REC_TIME,	/* int64_t seconds: JSON <key> (ISO 8601) and <key>_sec; 0 unset */
	REC_SIZE,	/* uint64_t bytes, text in the writer's units */
	REC_LIMIT,	/* uint64_t bytes; 0 is "no limit": text "-", JSON null */
	REC_BOOL,	/* bool: text yes/no */
	REC_STRS,	/* const char *const * (NULL-terminated): JSON array of strings */
	REC_QGROUPID,	/* uint64_t qgroup id, printed "L/ID" */
	REC_QGROUPIDS,	/* struct rec_u64s of qgroup ids: JSON array of "L/ID" */
	REC_TABLE,	/* struct rec_table: JSON array of row objects; text (with a
			 * label) the rows' header and one line per row */
	REC_U64_IF,	/* const uint64_t *; NULL: the field is left out */
	REC_U64S,	/* struct rec_u64s: JSON array of numbers */
	REC_SUB,	/* struct rec_sub: another record's fields, in place */
	REC_OBJECT,	/* JSON object @key around the next fields, up to its REC_END */
	REC_END,	/* end of a REC_OBJECT */
	REC_SIZE_OPT,	/* const uint64_t * bytes; NULL: text "none", JSON null */
	REC_LINE,	/* text: a line of free-form text, the label its template: each
			 * "{}" is the text of the next field (a value: no label, no
			 * key; as a table cell, sizes in the writer's units) */
	REC_IF,		/* bool: the fields up to the matching REC_ENDIF only when it
			 * is true (REC_NOT: false) */
	REC_ENDIF,	/* end of a REC_IF */
	REC_S64,	/* int64_t */
	/*
	 * The dump's kinds (`volctl inspect`, common/output/offline-dump.h):
	 * an integer is @size bytes at @off, host order or REC_LE
	 */
	REC_DK_UINT,	/* unsigned integer */
	REC_DK_SINT,	/* signed integer */
	REC_DK_HEX,	/* unsigned: text 0x.., JSON number */
	REC_DK_OCT,	/* unsigned: text 0<octal>, JSON number */
	REC_DK_BOOL,	/* integer, non-zero is yes */
	REC_DK_BIT,	/* integer & @mask, as a bool */
	REC_DK_CHARS,	/* char[@size], NUL-terminated or full */
	REC_DK_ASCII,	/* u8[@size]: printable bytes as they are, the others '.' */
	REC_DK_STR,	/* const char *; NULL: text "-", JSON null */
	REC_DK_NOTE,	/* no value: the constant string @aux */
	REC_DK_UUID,	/* u8[16] */
	REC_DK_KEY,	/* struct btrfs_key: text "(objectid type offset)", JSON object */
	REC_DK_TIME,	/* struct btrfs_time: text "sec.nsec", JSON object */
	REC_DK_FLAGS,	/* unsigned, decoded with the struct vc_dump_flags @aux */
	REC_DK_CSUM,	/* u8[BTRFS_CSUM_SIZE]; its algorithm the u16 at @off2 */
	REC_DK_BYTES,	/* const u8 * at @off, its length the @size-byte integer at @off2 */
	REC_DK_ENUM,	/* unsigned, named by the struct vc_dump_enum @aux */
	REC_DK_TYPESTR,	/* u8 key type: its name, or the number */
	REC_DK_TYPENAME, /* u8 key type: its name; unknown: NULL */
	REC_DK_SUB,	/* the struct rec_desc @aux of the struct at @off, in place */
	REC_DK_OBJECT,	/* container: JSON object @key, text line @label, up to its END */
	REC_DK_IF,	/* the fields up to its END only if the @size-byte value is non-zero */
	REC_DK_END,	/* end of an OBJECT or IF */
};

enum rec_align { REC_LEFT, REC_RIGHT };

/* Column flags (struct rec_field.flags) */
enum {
	REC_AUTO = 1 << 0,	/* as wide as its widest cell, at least @width */
	REC_TAB2 = 1 << 1,	/* tab tables: two tabs after a row's cell (btrfs-progs) */
	REC_NOT = 1 << 2,	/* REC_IF: when the bool is false */
	REC_MORE = 1 << 3,	/* REC_LINE: the line goes on (no newline after it) */
	REC_LE = 1 << 4,	/* REC_DK_*: the integer is stored little-endian */
	REC_JSON_ONLY = 1 << 5,	/* REC_DK_*: JSON only (text shows it elsewhere, or not at all) */
};

/* Table flags (struct rec_desc.table) */
enum {
	REC_TAB_RULE = 1 << 0,	/* under the header a line of dashes as long as each label */
	REC_TAB_TAIL = 1 << 1,	/* the header and rule lines end with a space (btrfs-progs) */
};

struct rec_field {
	const char *label;	/* text label, exactly as printed (tabs included); NULL: none */
	const char *key;	/* JSON key; NULL: not in JSON */
	enum rec_kind kind;
	size_t off;		/* offset of the value in the record's value struct */
	int width;		/* row records: column width (0: unpadded) */
	enum rec_align align;	/* row records: column alignment */
	int gap;		/* row records: spaces before the column (not the first) */
	unsigned int flags;	/* row records: REC_AUTO, REC_TAB2 */
	unsigned int show;	/* row records: shown when a bit is asked for; 0: always */
	/* the dump's kinds (REC_DK_*) */
	size_t size;		/* integers: their width in bytes */
	size_t off2;		/* CSUM, BYTES: the second member */
	uint64_t mask;		/* BIT */
	const void *aux;	/* FLAGS, ENUM, SUB, NOTE */
};

/* The values of a REC_QGROUPIDS field */
struct rec_u64s {
	const uint64_t *v;
	size_t nr;
};

/* The record of a REC_SUB field */
struct rec_sub {
	const struct rec_desc *desc;
	const void *rec;
};

/* The rows of a REC_TABLE field: @nr records of @desc, @size bytes apart */
struct rec_table {
	const struct rec_desc *desc;
	const void *rows;
	size_t nr, size;
};

struct rec_desc {
	const char *name;	/* the record, for messages ("subvolume") */
	const struct rec_field *fields;
	size_t nr;
	const char *indent;	/* text: before each label; NULL: "\t" */
	int label_width;	/* text: labels padded to this width */
	unsigned int table;	/* row records: REC_TAB_RULE, REC_TAB_TAIL */
};

/* a field of the record kinds (the dump's members zero) */
#define REC_FIELD(label, key, kind, off, width, align, gap, flags, show) \
	{ (label), (key), (kind), (off), (width), (align), (gap), (flags), (show), 0, 0, 0, NULL }
#define REC_F(label, key, kind, type, member) \
	REC_FIELD(label, key, kind, offsetof(type, member), 0, REC_LEFT, 0, 0, 0)
#define REC_COL(label, key, kind, type, member, width, align, gap) \
	REC_FIELD(label, key, kind, offsetof(type, member), width, align, gap, 0, 0)
/* a column with flags and a show mask */
#define REC_COLX(label, key, kind, type, member, width, align, gap, flags, show) \
	REC_FIELD(label, key, kind, offsetof(type, member), width, align, gap, flags, show)
#define REC_OBJ(key) REC_FIELD(NULL, key, REC_OBJECT, 0, 0, REC_LEFT, 0, 0, 0)
#define REC_OBJ_END REC_FIELD(NULL, NULL, REC_END, 0, 0, REC_LEFT, 0, 0, 0)
/* free-form text: a line, its values, and a block printed on a condition */
#define REC_TEXT(tmpl) REC_FIELD(tmpl, NULL, REC_LINE, 0, 0, REC_LEFT, 0, 0, 0)
/* a part of a line: the next REC_TEXT (or REC_TEXT_MORE) goes on after it */
#define REC_TEXT_MORE(tmpl) REC_FIELD(tmpl, NULL, REC_LINE, 0, 0, REC_LEFT, 0, REC_MORE, 0)
#define REC_V(kind, type, member) \
	REC_FIELD(NULL, NULL, kind, offsetof(type, member), 0, REC_LEFT, 0, 0, 0)
#define REC_WHEN(type, member) \
	REC_FIELD(NULL, NULL, REC_IF, offsetof(type, member), 0, REC_LEFT, 0, 0, 0)
#define REC_UNLESS(type, member) \
	REC_FIELD(NULL, NULL, REC_IF, offsetof(type, member), 0, REC_LEFT, 0, REC_NOT, 0)
#define REC_WHEN_END REC_FIELD(NULL, NULL, REC_ENDIF, 0, 0, REC_LEFT, 0, 0, 0)
#define REC_DESC(name, fields) \
	{ (name), (fields), sizeof(fields) / sizeof((fields)[0]), NULL, 0, 0 }
#define REC_DESC_TEXT(name, fields, indent, label_width) \
	{ (name), (fields), sizeof(fields) / sizeof((fields)[0]), (indent), (label_width), 0 }
#define REC_DESC_TABLE(name, fields, table) \
	{ (name), (fields), sizeof(fields) / sizeof((fields)[0]), NULL, 0, (table) }

/* A JSON document's top-level member: its name, and the version-1 name (or NULL) */
struct rec_doc {
	const char *key;
	const char *v1_key;	/* --format json-v1 (deprecated): this name, version-1 values */
};

/*
 * The name of @doc's member: with --format json-v1 (kv->v1) its version-1
 * name where it has one.  Only documents with a version-1 name are printed
 * as version 1 (rec_doc_begin()); the others are the same in both.
 */
static inline const char *rec_doc_key(const struct kvout *kv, const struct rec_doc *doc)
{
	return kv->v1 && doc->v1_key ? doc->v1_key : doc->key;
}

/* Open the JSON document of @doc: version 1 only for a json-v1 document with a v1 name */
static inline void rec_doc_begin(struct kvout *kv, const struct rec_doc *doc)
{
	kv->v1 = kv->v1 && doc->v1_key;
	kvout_document_open(kv);
}

/*
 * A whole document of one record: text, the fields; JSON, the document with
 * the record as the object @doc.
 */
void rec_print_document(struct kvout *kv, const struct rec_doc *doc, const struct rec_desc *d,
			const void *rec);
/* Print the fields of @rec (a value struct of @d) in @kv's format. */
void rec_emit(struct kvout *kv, const struct rec_desc *d, const void *rec);
/*
 * The text of @rec (a value struct of @d), as rec_emit() prints it, in a
 * malloc'ed string without its last newline (a sentence in a JSON string,
 * e.g.); NULL when out of memory.
 */
char *rec_text_string(const struct rec_desc *d, const void *rec, unsigned int units);
/* Row records, text only: the header line of labels, and one row of @rec. */
void rec_row_header(struct kvout *kv, const struct rec_desc *d);
void rec_row(struct kvout *kv, const struct rec_desc *d, const void *rec);

/* Whether column @f is in a table asked with the option bits @show */
static inline bool rec_col_shown(const struct rec_field *f, unsigned int show)
{
	return f->label && (!f->show || (f->show & show));
}

/* The text of a cell, reused from cell to cell: in @small, or malloc'ed when longer */
struct rec_text {
	char *s;		/* NULL until a cell outgrows @small */
	size_t cap;
	char small[64];
};

/*
 * The text of field @f of @rec as a table cell, sizes in @units: valid
 * until the next call with @t; NULL when out of memory.  A kind that is no
 * column gives "".
 */
const char *rec_cell(struct rec_text *t, const struct rec_field *f, const void *rec,
		     unsigned int units);
void rec_text_release(struct rec_text *t);

/*
 * An auto-width table: the columns of @desc shown for @show, each
 * REC_AUTO column widened to its widest cell.  rec_autotab_measure() every
 * row first, then rec_autotab_header() and rec_autotab_row() each.
 */
struct rec_autotab {
	struct kvout *kv;
	const struct rec_desc *desc;
	unsigned int show;
	int *width;		/* per field of @desc */
	struct rec_text cell;
};

int rec_autotab_init(struct rec_autotab *t, struct kvout *kv, const struct rec_desc *d,
		     unsigned int show);
void rec_autotab_measure(struct rec_autotab *t, const void *rec);
/* The header line, and the rule line for a REC_TAB_RULE table; ENOMEM: -ENOMEM */
int rec_autotab_header(struct rec_autotab *t);
int rec_autotab_row(struct rec_autotab *t, const void *rec);
void rec_autotab_release(struct rec_autotab *t);

#endif
