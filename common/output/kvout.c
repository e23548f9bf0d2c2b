// SPDX-License-Identifier: GPL-2.0-only
/* Key/value writer: text and JSON from the same calls (see kvout.h). */
#include <inttypes.h>
#include <string.h>
#include <time.h>
#include "common/output/kvout.h"
#include "common/util/units.h"

void format_uuid(const uint8_t uuid[16], char buf[37])
{
	static const uint8_t zero[16];
	char *p = buf;

	buf[0] = '\0';
	if (!memcmp(uuid, zero, sizeof(zero)))
		return;
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*p++ = '-';
		p += sprintf(p, "%02x", uuid[i]);
	}
}

void format_time(int64_t sec, bool with_tz, bool iso, char *buf, size_t size)
{
	time_t t = (time_t)sec;
	struct tm tm;
	size_t n;

	buf[0] = '\0';
	if (!sec || !localtime_r(&t, &tm))
		return;
	if (iso) {
		n = strftime(buf, size, "%Y-%m-%dT%H:%M:%S%z", &tm);
		/* +hhmm -> +hh:mm */
		if (n >= 5 && n + 2 <= size) {
			memmove(buf + n - 1, buf + n - 2, 3);
			buf[n - 2] = ':';
		}
		return;
	}
	strftime(buf, size, with_tz ? "%Y-%m-%d %H:%M:%S %z" : "%Y-%m-%d %H:%M:%S", &tm);
}

void kvout_init(struct kvout *kv, const struct vc_config *cfg, FILE *out, unsigned int units)
{
	memset(kv, 0, sizeof(*kv));
	kv->out = out;
	kv->json = cfg->format == VC_FORMAT_JSON;
	kv->v1 = kv->json && cfg->json_v1;
	kv->quiet = cfg->quiet;
	kv->units = units;
	kv->indent = "\t";
	json_init(&kv->jw, out);
}

void kvout_document_open(struct kvout *kv)
{
	if (kv->json && !kv->quiet)
		json_document_open(&kv->jw, kv->out, kv->v1);
}

void kvout_document_close(struct kvout *kv)
{
	if (kv->json && !kv->quiet)
		json_document_close(&kv->jw);
}

static bool want_text(const struct kvout *kv, const char *label)
{
	return !kv->json && !kv->quiet && label;
}

static bool want_json(const struct kvout *kv, const char *key)
{
	return kv->json && !kv->quiet && key;
}

/* "<indent><label padded to label_width><value>" */
static void text_line(struct kvout *kv, const char *label, const char *value)
{
	fprintf(kv->out, "%s%-*s%s\n", kv->indent, kv->label_width, label, value);
}

static void text_u64(struct kvout *kv, const char *label, uint64_t value)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, value);
	text_line(kv, label, buf);
}

void kvout_heading(struct kvout *kv, const char *text)
{
	if (!kv->json && !kv->quiet)
		fprintf(kv->out, "%s\n", text);
}

void kvout_object_open(struct kvout *kv, const char *key)
{
	if (kv->json && !kv->quiet)
		json_object_open(&kv->jw, key);
}

void kvout_object_close(struct kvout *kv)
{
	if (kv->json && !kv->quiet)
		json_object_close(&kv->jw);
}

void kvout_array_open(struct kvout *kv, const char *key)
{
	if (kv->json && !kv->quiet)
		json_array_open(&kv->jw, key);
}

void kvout_array_close(struct kvout *kv)
{
	if (kv->json && !kv->quiet)
		json_array_close(&kv->jw);
}

void kvout_str(struct kvout *kv, const char *label, const char *key, const char *value,
	       const char *text_null)
{
	if (want_text(kv, label))
		text_line(kv, label, value ? value : text_null ? text_null : "-");
	if (want_json(kv, key))
		json_str(&kv->jw, key, value);
}

void kvout_u64(struct kvout *kv, const char *label, const char *key, uint64_t value)
{
	if (want_text(kv, label))
		text_u64(kv, label, value);
	if (want_json(kv, key))
		json_u64(&kv->jw, key, value);
}

void kvout_u64_set(struct kvout *kv, const char *label, const char *key, uint64_t value,
		   bool set)
{
	if (want_text(kv, label))
		text_u64(kv, label, value);
	if (want_json(kv, key) && (set || kv->v1))
		json_u64(&kv->jw, key, value);
	else if (want_json(kv, key))
		json_null(&kv->jw, key);
}

void kvout_bool(struct kvout *kv, const char *label, const char *key, bool value)
{
	if (want_text(kv, label))
		text_line(kv, label, value ? "yes" : "no");
	if (want_json(kv, key))
		json_bool(&kv->jw, key, value);
}

void kvout_uuid(struct kvout *kv, const char *label, const char *key, const uint8_t uuid[16])
{
	char buf[37];

	format_uuid(uuid, buf);
	kvout_str(kv, label, key, buf[0] ? buf : NULL, "-");
}

void kvout_time(struct kvout *kv, const char *label, const char *key, int64_t sec)
{
	char buf[64];

	if (want_text(kv, label)) {
		format_time(sec, true, false, buf, sizeof(buf));
		text_line(kv, label, buf[0] ? buf : "-");
	}
	if (want_json(kv, key)) {
		char name[64];

		format_time(sec, true, true, buf, sizeof(buf));
		json_str(&kv->jw, key, buf[0] ? buf : NULL);
		snprintf(name, sizeof(name), "%s_sec", key);
		if (sec || kv->v1)
			json_s64(&kv->jw, name, sec);
		else
			json_null(&kv->jw, name);
	}
}

void kvout_size(struct kvout *kv, const char *label, const char *key, uint64_t bytes,
		bool dash_if_zero)
{
	char buf[UNITS_BUFSIZE];

	if (want_text(kv, label)) {
		if (dash_if_zero && !bytes)
			text_line(kv, label, "-");
		else
			text_line(kv, label, pretty_size(bytes, kv->units, buf));
	}
	if (want_json(kv, key) && dash_if_zero && !bytes && !kv->v1)
		json_null(&kv->jw, key);
	else if (want_json(kv, key))
		json_u64(&kv->jw, key, bytes);
}

void kvout_item(struct kvout *kv, const char *text_prefix, const char *value)
{
	if (want_text(kv, text_prefix))
		text_line(kv, text_prefix, value);
	if (kv->json && !kv->quiet)
		json_str(&kv->jw, NULL, value);
}

void kvout_u64_item(struct kvout *kv, uint64_t value)
{
	if (kv->json && !kv->quiet)
		json_u64(&kv->jw, NULL, value);
}
