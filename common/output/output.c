// SPDX-License-Identifier: GPL-2.0-only
/*
 * Streaming JSON writer and stdout closing.  The writer keeps only a "has a
 * member been written" bit per nesting level; members and array values each sit
 * on their own line, indented by two spaces per level.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "common/util/messages.h"
#include "common/output/output.h"

/*
 * 2: every member name snake_case (the version-1 names of the top-level
 * members were printed too, for one release), unset values null,
 * absolute_path added.  3: the version-1 twins dropped (--format json-v1
 * prints them instead), documents of the write commands.  See
 * Documentation/json-schema.md.
 */
#define JSON_SCHEMA_VERSION "3"

void json_write_escaped(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', out);
	for (; *p; p++) {
		switch (*p) {
		case '"':  fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\b': fputs("\\b", out); break;
		case '\f': fputs("\\f", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
}

static void indent(struct json_writer *w)
{
	for (int i = 0; i < w->depth; i++)
		fputs("  ", w->out);
}

/* Separator, newline, indentation and "name": before a value. */
static void begin_value(struct json_writer *w, const char *name)
{
	if (w->depth > 0) {
		if (w->has_member[w->depth])
			fputc(',', w->out);
		fputc('\n', w->out);
		w->has_member[w->depth] = true;
	}
	indent(w);
	if (name) {
		json_write_escaped(w->out, name);
		fputs(": ", w->out);
	}
}

void json_init(struct json_writer *w, FILE *out)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
}

static void open_container(struct json_writer *w, const char *name, char c)
{
	begin_value(w, name);
	fputc(c, w->out);
	if (w->depth + 1 < JSON_MAX_DEPTH)
		w->depth++;
	w->has_member[w->depth] = false;
}

static void close_container(struct json_writer *w, char c)
{
	bool had = w->has_member[w->depth];

	if (w->depth > 0)
		w->depth--;
	if (had) {
		fputc('\n', w->out);
		indent(w);
	}
	fputc(c, w->out);
	if (w->depth == 0)
		fputc('\n', w->out);
}

void json_object_open(struct json_writer *w, const char *name)
{
	open_container(w, name, '{');
}

void json_object_close(struct json_writer *w)
{
	close_container(w, '}');
}

void json_array_open(struct json_writer *w, const char *name)
{
	open_container(w, name, '[');
}

void json_array_close(struct json_writer *w)
{
	close_container(w, ']');
}

void json_str(struct json_writer *w, const char *name, const char *value)
{
	begin_value(w, name);
	if (value)
		json_write_escaped(w->out, value);
	else
		fputs("null", w->out);
}

void json_u64(struct json_writer *w, const char *name, uint64_t value)
{
	begin_value(w, name);
	fprintf(w->out, "%" PRIu64, value);
}

void json_s64(struct json_writer *w, const char *name, int64_t value)
{
	begin_value(w, name);
	fprintf(w->out, "%" PRId64, value);
}

void json_bool(struct json_writer *w, const char *name, bool value)
{
	begin_value(w, name);
	fputs(value ? "true" : "false", w->out);
}

void json_null(struct json_writer *w, const char *name)
{
	begin_value(w, name);
	fputs("null", w->out);
}

void json_document_open(struct json_writer *w, FILE *out, bool v1)
{
	json_init(w, out);
	json_object_open(w, NULL);
	json_object_open(w, "__header");
	json_str(w, "version", v1 ? "1" : JSON_SCHEMA_VERSION);
	json_object_close(w);
}

void json_document_close(struct json_writer *w)
{
	while (w->depth > 0)
		json_object_close(w);
}

int output_close_stdout(int status)
{
	bool failed = ferror(stdout) != 0;

	if (fflush(stdout) != 0)
		failed = true;
	if (fclose(stdout) != 0 && errno != EBADF)
		failed = true;
	if (failed) {
		/* EPIPE is the reader's choice, not our failure to report loudly */
		if (errno != EPIPE)
			error("write error on standard output: %s", strerror(errno));
		return status ? status : VC_EXIT_FAILURE;
	}
	return status;
}
