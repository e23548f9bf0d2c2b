// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for common/util/path-utils.c (splitting odd paths, name checks,
 * mkdir -p) and common/output/kvout.c (one set of calls, text and JSON).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/output/kvout.h"
#include "common/util/path-utils.h"
#include "unit.h"

static void check_split(const char *path, const char *dir, const char *base)
{
	char *d = path_dirname(path), *b = path_basename(path);

	CHECK_STR(d, dir);
	CHECK_STR(b, base);
	free(d);
	free(b);
}

static void check_clean(const char *path, const char *want)
{
	char *c = path_clean(path);

	CHECK_STR(c, want);
	free(c);
}

static void test_split(void)
{
	check_split("a", ".", "a");
	check_split("a/b", "a", "b");
	check_split("a/b//", "a", "b");
	check_split("dir2///////subv1//////", "dir2", "subv1");
	check_split("dir3/dir1/./..//.///subv3//////", "dir3/dir1/./..//.", "subv3");
	check_split("/x", "/", "x");
	check_split("/", "/", "/");
	check_split("//a//", "/", "a");
	check_split("a/..", "a", "..");
}

static void test_clean_join(void)
{
	char *j;

	check_clean("a//./b/", "a/b");
	check_clean("./a", "a");
	check_clean(".", ".");
	check_clean("/", "/");
	check_clean("//x/./y//", "/x/y");
	check_clean("a/../b", "a/../b");	/* lexical only: ".." stays */
	j = path_join2("a/", "b");
	CHECK_STR(j, "a/b");
	free(j);
	j = path_join2("a", "");
	CHECK_STR(j, "a");
	free(j);
	j = path_join2("/", "x");
	CHECK_STR(j, "/x");
	free(j);
}

static void test_names(void)
{
	char name[300];

	CHECK(path_name_invalid("a") == NULL);
	CHECK(path_name_invalid("") != NULL);
	CHECK(path_name_invalid(".") != NULL);
	CHECK(path_name_invalid("..") != NULL);
	CHECK(path_name_invalid("...") == NULL);
	CHECK(path_name_invalid("a/b") != NULL);
	memset(name, 'n', sizeof(name));
	name[255] = '\0';
	CHECK(path_name_invalid(name) == NULL);
	name[255] = 'n';
	name[256] = '\0';
	CHECK(path_name_invalid(name) != NULL);
}

static void test_mkdir_parents(void)
{
	char tmpl[] = "/tmp/online-unit-XXXXXX";
	char *root = mkdtemp(tmpl), *failed = NULL, path[256], file[256];
	struct stat st;
	FILE *f;

	CHECK(root != NULL);
	if (!root)
		return;
	snprintf(path, sizeof(path), "%s/x//y/./z/leaf//", root);
	CHECK_EQ_INT(path_mkdir_parents(path, &failed), 0);
	CHECK(failed == NULL);
	snprintf(path, sizeof(path), "%s/x/y/z", root);
	CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
	snprintf(path, sizeof(path), "%s/x/y/z/leaf", root);
	CHECK(stat(path, &st) != 0);	/* the last component is not made */
	snprintf(file, sizeof(file), "%s/file", root);
	f = fopen(file, "w");
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "%s/file/a/b", root);
	CHECK_EQ_INT(path_mkdir_parents(path, &failed), -ENOTDIR);
	CHECK_STR(failed, file);
	free(failed);
	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	CHECK(system(path) == 0);
}

static char *render(bool json, bool quiet)
{
	struct vc_config cfg = { .format = json ? VC_FORMAT_JSON : VC_FORMAT_TEXT,
				 .quiet = quiet };
	const uint8_t uuid[16] = { 0x51, 0x9c, 0xe1, 0x21, 0x9e, 0xe9, 0x2f, 0x4b,
			      0x88, 0x28, 0xee, 0xd9, 0x10, 0x21, 0xcf, 0x74 };
	const uint8_t zero[16] = { 0 };
	struct kvout kv;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	kvout_init(&kv, &cfg, out, 0);
	kvout_document_open(&kv);
	kvout_object_open(&kv, "thing");
	kvout_heading(&kv, "a/b");
	kvout_str(&kv, "Name: \t\t\t", "name", "b", NULL);
	kvout_str(&kv, NULL, "path", NULL, NULL);
	kvout_uuid(&kv, "UUID: \t\t\t", "uuid", uuid);
	kvout_uuid(&kv, "Parent UUID: \t\t", "parent_uuid", zero);
	kvout_u64(&kv, "Generation: \t\t", "generation", 9);
	kvout_time(&kv, "Creation time: \t\t", "otime", 1796291933);
	kvout_time(&kv, "Send time: \t\t", "stime", 0);
	kvout_size(&kv, "  Limit: \t", "limit", 0, true);
	kvout_size(&kv, "  Usage: \t", "usage", 16384, false);
	kvout_array_open(&kv, "list");
	kvout_str(&kv, "List:", NULL, "", NULL);
	kvout_item(&kv, "\t\t\t", "x");
	kvout_array_close(&kv);
	kvout_object_close(&kv);
	kvout_document_close(&kv);
	fclose(out);
	return buf;
}

static void test_kvout(void)
{
	char *text, *json, *quiet;

	setenv("TZ", "UTC", 1);
	text = render(false, false);
	CHECK_STR(text, "a/b\n"
		  "\tName: \t\t\tb\n"
		  "\tUUID: \t\t\t519ce121-9ee9-2f4b-8828-eed91021cf74\n"
		  "\tParent UUID: \t\t-\n"
		  "\tGeneration: \t\t9\n"
		  "\tCreation time: \t\t2026-12-03 09:58:53 +0000\n"
		  "\tSend time: \t\t-\n"
		  "\t  Limit: \t-\n"
		  "\t  Usage: \t16.00KiB\n"
		  "\tList:\n"
		  "\t\t\t\tx\n");
	json = render(true, false);
	CHECK_STR(json, "{\n"
		  "  \"__header\": {\n"
		  "    \"version\": \"3\"\n"
		  "  },\n"
		  "  \"thing\": {\n"
		  "    \"name\": \"b\",\n"
		  "    \"path\": null,\n"
		  "    \"uuid\": \"519ce121-9ee9-2f4b-8828-eed91021cf74\",\n"
		  "    \"parent_uuid\": null,\n"
		  "    \"generation\": 9,\n"
		  "    \"otime\": \"2026-12-03T09:58:53+00:00\",\n"
		  "    \"otime_sec\": 1796291933,\n"
		  "    \"stime\": null,\n"
		  "    \"stime_sec\": null,\n"
		  "    \"limit\": null,\n"
		  "    \"usage\": 16384,\n"
		  "    \"list\": [\n"
		  "      \"x\"\n"
		  "    ]\n"
		  "  }\n"
		  "}\n");
	quiet = render(true, true);
	CHECK_STR(quiet, "");
	free(text);
	free(json);
	free(quiet);
}

int main(void)
{
	test_split();
	test_clean_join();
	test_names();
	test_mkdir_parents();
	test_kvout();
	return unit_finish();
}
