/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A typed key/value writer for single-object output ("subvolume show").
 *
 * Each call names one value twice: @label, the text form's label exactly as
 * btrfs-progs prints it (tabs included, e.g. "Name: \t\t\t"), and @key, its
 * JSON member name.  In text mode a value becomes the line
 * "\t<label><value>" (the indent and a label width can be changed); in JSON mode a member of the current object.  A NULL
 * @label leaves the value out of the text, a NULL @key out of the JSON, so
 * text and JSON come from the same calls and cannot drift apart.
 * With cfg->quiet nothing is printed.
 */
#ifndef VOLCTL_COMMON_KVOUT_H
#define VOLCTL_COMMON_KVOUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "common/util/config.h"
#include "common/output/output.h"

struct kvout {
	FILE *out;
	bool json;
	bool quiet;
	unsigned int units;		/* common/util/units.h mode for kvout_size() */
	const char *indent;		/* text: before the label ("\t") */
	int label_width;		/* text: labels padded to this width (0) */
	/*
	 * --format json-v1 (deprecated): the document under its version-1
	 * name, unset values as version 1 printed them (0, not null), header
	 * version "1".
	 */
	bool v1;
	struct json_writer jw;
};

void kvout_init(struct kvout *kv, const struct vc_config *cfg, FILE *out, unsigned int units);
/* JSON: open the document (with its __header); text: nothing */
void kvout_document_open(struct kvout *kv);
void kvout_document_close(struct kvout *kv);
/* A line of its own in text ("a/b" above the block); nothing in JSON */
void kvout_heading(struct kvout *kv, const char *text);
/* Nested JSON object or array named @key; nothing in text */
void kvout_object_open(struct kvout *kv, const char *key);
void kvout_object_close(struct kvout *kv);
void kvout_array_open(struct kvout *kv, const char *key);
void kvout_array_close(struct kvout *kv);

/* String; NULL prints @text_null in text ("-" if NULL) and null in JSON */
void kvout_str(struct kvout *kv, const char *label, const char *key, const char *value,
	       const char *text_null);
void kvout_u64(struct kvout *kv, const char *label, const char *key, uint64_t value);
/* The same, but JSON null when !@set (text prints @value) */
void kvout_u64_set(struct kvout *kv, const char *label, const char *key, uint64_t value,
		   bool set);
void kvout_bool(struct kvout *kv, const char *label, const char *key, bool value);
/* UUID: canonical lowercase; all-zero is "-" in text, null in JSON */
void kvout_uuid(struct kvout *kv, const char *label, const char *key, const uint8_t uuid[16]);
/*
 * Time: text "YYYY-MM-DD HH:MM:SS +ZZZZ" in local time; JSON an ISO 8601
 * string "YYYY-MM-DDTHH:MM:SS+ZZ:ZZ" plus a "<key>_sec" number.  Zero is "-"
 * in text and null in JSON (both members).
 */
void kvout_time(struct kvout *kv, const char *label, const char *key, int64_t sec);
/* Byte count: text through pretty_size() with kv->units (or "-" if 0 and
 * @dash_if_zero, a limit that is not set); JSON the raw number, or null for
 * such an unset 0. */
void kvout_size(struct kvout *kv, const char *label, const char *key, uint64_t bytes,
		bool dash_if_zero);
/* Array element inside kvout_array_open(): text "\t<text_prefix><value>" (none if NULL) */
void kvout_item(struct kvout *kv, const char *text_prefix, const char *value);

/* Array element inside kvout_array_open(), JSON only */
void kvout_u64_item(struct kvout *kv, uint64_t value);

/* Helpers shared with other printers */
void format_uuid(const uint8_t uuid[16], char buf[37]);	/* "" for all-zero */
/* @with_tz: append " +ZZZZ"; @iso: "T" separator and "+ZZ:ZZ"; "" for sec == 0 */
void format_time(int64_t sec, bool with_tz, bool iso, char *buf, size_t size);

#endif
