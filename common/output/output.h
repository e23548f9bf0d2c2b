/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The output layer.
 *
 * - struct json_writer: streaming JSON with 2-space indentation and proper
 *   escaping; every document volctl prints goes through it.
 * - output_close_stdout(): a failed write to stdout is an error (exit 1).
 *
 * Tables and trees (qgroup show) are rendered with libsmartcols; single-object
 * "show" output goes through the key/value writer in common/output/kvout.h, which
 * emits text and JSON from the same calls.
 */
#ifndef VOLCTL_COMMON_OUTPUT_H
#define VOLCTL_COMMON_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json_writer {
	FILE *out;
	int depth;
	bool has_member[JSON_MAX_DEPTH];	/* a value was already written at this depth */
};

void json_init(struct json_writer *w, FILE *out);
/* @name is the member name inside an object, NULL inside an array or at top level */
void json_object_open(struct json_writer *w, const char *name);
void json_object_close(struct json_writer *w);
void json_array_open(struct json_writer *w, const char *name);
void json_array_close(struct json_writer *w);
void json_str(struct json_writer *w, const char *name, const char *value); /* NULL: null */
void json_u64(struct json_writer *w, const char *name, uint64_t value);
void json_s64(struct json_writer *w, const char *name, int64_t value);
void json_bool(struct json_writer *w, const char *name, bool value);
void json_null(struct json_writer *w, const char *name);
/*
 * Open the top-level object with the versioned header every document
 * carries: version JSON_SCHEMA_VERSION, or "1" for a @v1 document
 * (--format json-v1).
 */
void json_document_open(struct json_writer *w, FILE *out, bool v1);
void json_document_close(struct json_writer *w);
/* Write @s as a JSON string literal (with quotes) to @out. */
void json_write_escaped(FILE *out, const char *s);

/* Flush and close stdout; turn a write error into exit status 1. */
int output_close_stdout(int status);

#endif
