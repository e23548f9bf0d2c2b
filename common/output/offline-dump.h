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
 * prints is described once, in the record scheme (struct rec_desc, with the
 * dump's field kinds REC_DK_*), in
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
#include "common/output/record.h"
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
 * The dump's descriptions are record descriptions (struct rec_desc of
 * common/output/record.h) with the dump's field kinds (REC_DK_*): a value
 * sits at @off in the described struct; integers are @size bytes wide, in
 * host order, or little-endian with REC_LE (a field of an on-disk struct
 * such as struct btrfs_super_block).  A field's key is its JSON name and
 * its text label alike; an OBJECT's label is its text line.  The VC_DF*
 * macros below fill them in.
 */

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
	const struct rec_desc *desc;
};

#define VC_DUMP_SIZEOF(type, member) sizeof(((type *)0)->member)
/* a dump field: text label and JSON key @name, and the dump's members */
#define VC_DUMP_FIELD(label, key, kind, flags, off, size, off2, mask, aux) \
	{ (label), (key), (kind), (off), 0, REC_LEFT, 0, (flags), 0, (size), (off2), (mask), (aux) }
#define VC_DF(name, kind, type, member) \
	VC_DUMP_FIELD(name, name, kind, 0, offsetof(type, member), VC_DUMP_SIZEOF(type, member), \
		      0, 0, NULL)
#define VC_DF_F(name, kind, flags, type, member) \
	VC_DUMP_FIELD(name, name, kind, flags, offsetof(type, member), \
		      VC_DUMP_SIZEOF(type, member), 0, 0, NULL)
#define VC_DF_AUX(name, kind, type, member, aux) \
	VC_DUMP_FIELD(name, name, kind, 0, offsetof(type, member), VC_DUMP_SIZEOF(type, member), \
		      0, 0, aux)
#define VC_DF_LE_AUX(name, kind, type, member, aux) \
	VC_DUMP_FIELD(name, name, kind, REC_LE, offsetof(type, member), \
		      VC_DUMP_SIZEOF(type, member), 0, 0, aux)
#define VC_DF_BIT(name, type, member, bit) \
	VC_DUMP_FIELD(name, name, REC_DK_BIT, 0, offsetof(type, member), \
		      VC_DUMP_SIZEOF(type, member), 0, bit, NULL)
#define VC_DF_CSUM(name, type, member, csum_type) \
	VC_DUMP_FIELD(name, name, REC_DK_CSUM, 0, offsetof(type, member), 0, \
		      offsetof(type, csum_type), 0, NULL)
#define VC_DF_BYTES(name, type, ptr, len) \
	VC_DUMP_FIELD(name, name, REC_DK_BYTES, 0, offsetof(type, ptr), VC_DUMP_SIZEOF(type, len), \
		      offsetof(type, len), 0, NULL)
#define VC_DF_NOTE(name, text) VC_DUMP_FIELD(name, name, REC_DK_NOTE, 0, 0, 0, 0, 0, text)
#define VC_DF_OBJECT(name, title) VC_DUMP_FIELD(title, name, REC_DK_OBJECT, 0, 0, 0, 0, 0, NULL)
#define VC_DF_IF(type, member) \
	VC_DUMP_FIELD(NULL, NULL, REC_DK_IF, 0, offsetof(type, member), \
		      VC_DUMP_SIZEOF(type, member), 0, 0, NULL)
#define VC_DF_SUB(type, member, desc) \
	VC_DUMP_FIELD(NULL, NULL, REC_DK_SUB, 0, offsetof(type, member), 0, 0, 0, desc)
#define VC_DF_END VC_DUMP_FIELD(NULL, NULL, REC_DK_END, 0, 0, 0, 0, 0, NULL)

/* Print the fields of @rec, a struct described by @desc (the first @nr of them) */
void vc_dump_rec(struct vc_dump *d, const struct rec_desc *desc, const void *rec);
void vc_dump_rec_part(struct vc_dump *d, const struct rec_desc *desc, const void *rec,
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
