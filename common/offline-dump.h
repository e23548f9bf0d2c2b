/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Dumping on-disk structures for `volctl inspect`: one writer that renders
 * the same calls as indented "name value" text or as JSON (the schema is in
 * Documentation/json-schema.md, section "inspect").
 *
 * Text: one field per line, two spaces of indentation per nesting level.
 * JSON: snake_case members, raw numbers, uuids as strings, flags as a
 * number plus a "<name>_names" array of the bits set.
 */
#ifndef VOLCTL_COMMON_OFFLINE_DUMP_H
#define VOLCTL_COMMON_OFFLINE_DUMP_H

#include <stdbool.h>
#include <stdio.h>
#include "common/output.h"
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

/* Containers: @name is the JSON member (NULL in arrays), @title the text line */
void vc_dump_open(struct vc_dump *d, const char *name, const char *title);
void vc_dump_close(struct vc_dump *d);
void vc_dump_list_open(struct vc_dump *d, const char *name, const char *title);
void vc_dump_list_close(struct vc_dump *d);

void vc_dump_u64(struct vc_dump *d, const char *name, u64 v);
/* A field only JSON carries (text shows it in the container's title line) */
void vc_dump_u64_json(struct vc_dump *d, const char *name, u64 v);
void vc_dump_hex(struct vc_dump *d, const char *name, u64 v);	/* text 0x.., JSON number */
void vc_dump_str(struct vc_dump *d, const char *name, const char *s);
void vc_dump_bool(struct vc_dump *d, const char *name, bool v);
void vc_dump_uuid(struct vc_dump *d, const char *name, const u8 *uuid);
void vc_dump_key(struct vc_dump *d, const char *name, const struct btrfs_key *key);
void vc_dump_bytes(struct vc_dump *d, const char *name, const u8 *p, u32 len);

/** vc_dump_super - every field of superblock @sb, read from @bytenr of @dev_name */
void vc_dump_super(struct vc_dump *d, const struct btrfs_super_block *sb, int mirror,
		   u64 bytenr, const char *dev_name);

/** vc_dump_block - header and every item or key pointer of a verified block */
void vc_dump_block(struct vc_dump *d, const struct extent_buffer *eb);

/** vc_dump_item - the decoded body of one item (hex when unknown or bad) */
void vc_dump_item(struct vc_dump *d, const struct btrfs_key *key, const u8 *data, u32 len);

#endif
