/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Lexical path helpers for path arguments: splitting into directory and last
 * component the way users expect ("a//b///" is "a" + "b"), checking that a
 * name can be a directory entry, and mkdir -p.  Only path_mkdir_parents()
 * touches the filesystem.
 */
#ifndef VOLCTL_COMMON_PATH_UTILS_H
#define VOLCTL_COMMON_PATH_UTILS_H

#include <stdbool.h>

/* Directory part of @path, trailing slashes ignored: "a/b//" -> "a", "b" -> ".", "/b" -> "/". malloc'ed. */
char *path_dirname(const char *path);
/* Last component of @path, trailing slashes ignored: "a/b//" -> "b", "/" -> "/". malloc'ed. */
char *path_basename(const char *path);
/* @a joined with @b by one slash (none added after a trailing one). malloc'ed. */
char *path_join2(const char *a, const char *b);
/* Collapse repeated slashes and "." components, drop trailing slashes: "a//./b/" -> "a/b". malloc'ed. */
char *path_clean(const char *path);

/*
 * Whether @name can be a new directory entry: not empty, not "." or "..",
 * no '/', at most 255 bytes.  Returns NULL if it can, else the reason.
 */
const char *path_name_invalid(const char *name);

/*
 * Create the missing directories leading to @path (not @path itself), mode
 * 0777 before umask, like mkdir -p on dirname(@path).  On failure returns
 * -errno and points *failed (malloc'ed) at the directory that failed, with
 * -ENOTDIR when an existing component is not a directory.
 */
int path_mkdir_parents(const char *path, char **failed);

#endif
