// SPDX-License-Identifier: GPL-2.0-only
/* Lexical path helpers: see path-utils.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "common/util/path-utils.h"

/* Length of @path without trailing slashes, keeping a lone "/". */
static size_t trimmed_len(const char *path)
{
	size_t len = strlen(path);

	while (len > 1 && path[len - 1] == '/')
		len--;
	return len;
}

char *path_dirname(const char *path)
{
	size_t len = trimmed_len(path);

	if (len == 1 && path[0] == '/')
		return strdup("/");
	while (len > 0 && path[len - 1] != '/')
		len--;
	if (len == 0)
		return strdup(".");
	while (len > 1 && path[len - 1] == '/')
		len--;
	return strndup(path, len);
}

char *path_basename(const char *path)
{
	size_t len = trimmed_len(path), start;

	if (len == 0)
		return strdup("");
	if (len == 1 && path[0] == '/')
		return strdup("/");
	start = len;
	while (start > 0 && path[start - 1] != '/')
		start--;
	return strndup(path + start, len - start);
}

char *path_join2(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	bool slash = la && a[la - 1] != '/' && lb;
	char *p = malloc(la + lb + 2);

	if (!p)
		return NULL;
	memcpy(p, a, la);
	if (slash)
		p[la++] = '/';
	memcpy(p + la, b, lb + 1);
	return p;
}

char *path_clean(const char *path)
{
	size_t len = strlen(path), o = 0;
	char *out = malloc(len + 2);
	const char *p = path;

	if (!out)
		return NULL;
	if (*p == '/')
		out[o++] = '/';
	while (*p) {
		const char *s;
		size_t n;

		while (*p == '/')
			p++;
		s = p;
		while (*p && *p != '/')
			p++;
		n = (size_t)(p - s);
		if (n == 0 || (n == 1 && s[0] == '.'))
			continue;
		if (o && out[o - 1] != '/')
			out[o++] = '/';
		memcpy(out + o, s, n);
		o += n;
	}
	if (o == 0)
		out[o++] = '.';
	out[o] = '\0';
	return out;
}

const char *path_name_invalid(const char *name)
{
	if (!name[0])
		return "empty name";
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return "'.' and '..' cannot be subvolume names";
	if (strchr(name, '/'))
		return "name contains '/'";
	if (strlen(name) > 255)
		return "name longer than 255 bytes";
	return NULL;
}

int path_mkdir_parents(const char *path, char **failed)
{
	char *dir = path_dirname(path);
	struct stat st;
	size_t i;
	int ret = 0;

	*failed = NULL;
	if (!dir)
		return -ENOMEM;
	/* each prefix ending before a slash, then the whole directory */
	for (i = 1; ; i++) {
		char saved = dir[i];

		if (saved != '/' && saved != '\0')
			continue;
		dir[i] = '\0';
		if (stat(dir, &st) == 0) {
			if (!S_ISDIR(st.st_mode))
				ret = -ENOTDIR;
		} else if (errno != ENOENT) {
			ret = -errno;
		} else if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
			ret = -errno;
		}
		if (ret) {
			*failed = strdup(dir);
			break;
		}
		dir[i] = saved;
		if (saved == '\0')
			break;
	}
	free(dir);
	return ret;
}
