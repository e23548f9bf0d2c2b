/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Dumping on-disk structures for `volctl inspect`: one writer that renders
 * the same calls as indented "name value" text or as JSON (the schema is in
 * Documentation/json-schema.md, section "inspect").
 *
 * Text: one field per line, two spaces of indentation per nesting level.
 * JSON: snake_case members, raw numbers, uuids as strings, flags as a
 * number plus a "<name>_names" array of the bits set.
 *
 * One printer per record (common/output/record.h): every structure the dump
 * prints is described once, as a table of fields (struct vc_dump_desc), in
 * common/output/records-inspect.c, the one place that names its members; a field
 * name is both the text label and the JSON key.  vc_dump_rec() prints a
 * described structure, vc_dump_list_begin() and vc_dump_elem() the
 * containers (struct vc_dump_list) of them; the writer's primitives that
 * print one named value are its own (static), so no caller names a field.
 */
#ifndef VOLCTL_COMMON_OFFLINE_DUMP_H
#define VOLCTL_COMMON_OFFLINE_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "common/output/output.h"
#include "kernel-shared/format.h"

struct btrfs_fs;
struct extent_buffer;

struct vc_dump {
	FILE *out;
	bool json;
	struct json_writer jw;
	int level;			/* text indentation */
	int depth;			/* open containers */
	bool indented[64];		/* text: container @depth indented its members */
	u16 csum_type;			/* of the filesystem being dumped */
};

void vc_dump_init(struct vc_dump *d, FILE *out, bool json);
void vc_dump_finish(struct vc_dump *d);

/*
 * Containers: @name is the JSON member (NULL in arrays; else a name from a
 * description: use vc_dump_list_begin()), @title the text line
 */
void vc_dump_open(struct vc_dump *d, const char *name, const char *title);
void vc_dump_close(struct vc_dump *d);
void vc_dump_list_open(struct vc_dump *d, const char *name, const char *title);
void vc_dump_list_close(struct vc_dump *d);

/*
 * Field kinds.  A value sits at @off in the described struct; integers are
 * @size bytes wide, in host order, or little-endian with VC_DF_LE (a field
 * of an on-disk struct such as struct btrfs_super_block).
 */
enum vc_dump_kind {
	VC_DK_UINT,	/* unsigned integer */
	VC_DK_SINT,	/* signed integer */
	VC_DK_HEX,	/* unsigned: text 0x.., JSON number */
	VC_DK_OCT,	/* unsigned: text 0<octal>, JSON number */
	VC_DK_BOOL,	/* integer, non-zero is yes */
	VC_DK_BIT,	/* integer & @mask, as a bool */
	VC_DK_CHARS,	/* char[@size], NUL-terminated or full */
	VC_DK_ASCII,	/* u8[@size]: printable bytes as they are, the others '.' */
	VC_DK_STR,	/* const char *; NULL: text "-", JSON null */
	VC_DK_NOTE,	/* no value: the constant string @aux */
	VC_DK_UUID,	/* u8[16] */
	VC_DK_KEY,	/* struct btrfs_key: text "(objectid type offset)", JSON object */
	VC_DK_TIME,	/* struct btrfs_time: text "sec.nsec", JSON object */
	VC_DK_FLAGS,	/* unsigned, decoded with the struct vc_dump_flags @aux */
	VC_DK_CSUM,	/* u8[BTRFS_CSUM_SIZE]; its algorithm the u16 at @off2 */
	VC_DK_BYTES,	/* const u8 * at @off, its length the @size-byte integer at @off2 */
	VC_DK_ENUM,	/* unsigned, named by the struct vc_dump_enum @aux */
	VC_DK_TYPESTR,	/* u8 key type: its name, or the number */
	VC_DK_TYPENAME,	/* u8 key type: its name; unknown: NULL */
	VC_DK_SUB,	/* the struct vc_dump_desc @aux of the struct at @off, in place */
	VC_DK_OBJECT,	/* container: JSON object @name, text line @title, up to its END */
	VC_DK_IF,	/* the fields up to its END only if the @size-byte value is non-zero */
	VC_DK_END,	/* end of an OBJECT or IF */
};

#define VC_DF_LE	0x1	/* integer stored little-endian */
#define VC_DF_JSON	0x2	/* JSON only (text shows it elsewhere, or not at all) */

struct vc_dump_field {
	const char *name;	/* text label and JSON key */
	const char *title;	/* OBJECT: the text line (NULL: none) */
	enum vc_dump_kind kind;
	unsigned int flags;	/* VC_DF_* */
	size_t off, size;
	size_t off2;		/* CSUM, BYTES: the second member */
	u64 mask;		/* BIT */
	const void *aux;	/* FLAGS, ENUM, SUB, NOTE */
};

struct vc_dump_desc {
	const char *name;	/* the structure, for messages */
	const struct vc_dump_field *fields;
	size_t nr;
};

/* A flag word's names: a table (terminated by a NULL name) or a function */
struct vc_dump_flag_name {
	u64 bit;
	const char *name;
};

struct vc_dump_flags {
	const struct vc_dump_flag_name *names;
	const char *(*fn)(u64 bit);
};

/* An enumeration's names, @other beyond them */
struct vc_dump_enum {
	const char *const *names;
	size_t nr;
	const char *other;
};

/*
 * A container: JSON array (or with @object, object) @name, text line @title
 * (NULL: none, the members not indented); close it with vc_dump_list_close()
 * (vc_dump_close() for an object).  Each element of a list is an object
 * with the text line @elem ("<elem> <index>" if @numbered) and the fields of
 * @desc; a bare list's elements are plain numbers (text "<elem> <value>").
 */
struct vc_dump_list {
	const char *name;
	const char *title;
	const char *elem;
	bool numbered, bare, object;
	const struct vc_dump_desc *desc;
};

#define VC_DUMP_SIZEOF(type, member) sizeof(((type *)0)->member)
#define VC_DF(name, kind, type, member) \
	{ (name), NULL, (kind), 0, offsetof(type, member), VC_DUMP_SIZEOF(type, member), 0, 0, NULL }
#define VC_DF_F(name, kind, flags, type, member) \
	{ (name), NULL, (kind), (flags), offsetof(type, member), VC_DUMP_SIZEOF(type, member), 0, 0, NULL }
#define VC_DF_AUX(name, kind, type, member, aux) \
	{ (name), NULL, (kind), 0, offsetof(type, member), VC_DUMP_SIZEOF(type, member), 0, 0, (aux) }
#define VC_DF_LE_AUX(name, kind, type, member, aux) \
	{ (name), NULL, (kind), VC_DF_LE, offsetof(type, member), VC_DUMP_SIZEOF(type, member), \
	  0, 0, (aux) }
#define VC_DF_BIT(name, type, member, bit) \
	{ (name), NULL, VC_DK_BIT, 0, offsetof(type, member), VC_DUMP_SIZEOF(type, member), \
	  0, (bit), NULL }
#define VC_DF_CSUM(name, type, member, csum_type) \
	{ (name), NULL, VC_DK_CSUM, 0, offsetof(type, member), 0, offsetof(type, csum_type), 0, NULL }
#define VC_DF_BYTES(name, type, ptr, len) \
	{ (name), NULL, VC_DK_BYTES, 0, offsetof(type, ptr), VC_DUMP_SIZEOF(type, len), \
	  offsetof(type, len), 0, NULL }
#define VC_DF_NOTE(name, text) { (name), NULL, VC_DK_NOTE, 0, 0, 0, 0, 0, (text) }
#define VC_DF_OBJECT(name, title) { (name), (title), VC_DK_OBJECT, 0, 0, 0, 0, 0, NULL }
#define VC_DF_IF(type, member) \
	{ NULL, NULL, VC_DK_IF, 0, offsetof(type, member), VC_DUMP_SIZEOF(type, member), 0, 0, NULL }
#define VC_DF_SUB(type, member, desc) \
	{ NULL, NULL, VC_DK_SUB, 0, offsetof(type, member), 0, 0, 0, (desc) }
#define VC_DF_END { NULL, NULL, VC_DK_END, 0, 0, 0, 0, 0, NULL }
#define VC_DUMP_DESC(name, fields) { (name), (fields), sizeof(fields) / sizeof((fields)[0]) }

/* Print the fields of @rec, a struct described by @desc (the first @nr of them) */
void vc_dump_rec(struct vc_dump *d, const struct vc_dump_desc *desc, const void *rec);
void vc_dump_rec_part(struct vc_dump *d, const struct vc_dump_desc *desc, const void *rec,
		      size_t nr);
/* Containers of a description: a list, its elements, a list's element by hand */
void vc_dump_list_begin(struct vc_dump *d, const struct vc_dump_list *l);
void vc_dump_elem(struct vc_dump *d, const struct vc_dump_list *l, u64 index, const void *rec);
void vc_dump_elem_open(struct vc_dump *d, const struct vc_dump_list *l, u64 index);
void vc_dump_bare(struct vc_dump *d, const struct vc_dump_list *l, u64 v);

/* Titles: an objectid (the special ones near the top signed), a key type's name or number */
const char *vc_dump_objectid_str(u64 id, char *buf, size_t size);
const char *vc_dump_type_str(u8 type, char *buf, size_t size);

/** vc_dump_super - every field of superblock @sb, read from @bytenr of @dev_name */
void vc_dump_super(struct vc_dump *d, const struct btrfs_super_block *sb, int mirror,
		   u64 bytenr, const char *dev_name);

/** vc_dump_block - header and every item or key pointer of a verified block */
void vc_dump_block(struct vc_dump *d, const struct extent_buffer *eb);

/** vc_dump_item - the decoded body of one item (hex when unknown or bad) */
void vc_dump_item(struct vc_dump *d, const struct btrfs_key *key, const u8 *data, u32 len);

#endif
