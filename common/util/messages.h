/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Messages to stderr.  Lowercase, no trailing period, the object first and then
 * the cause in words: "error: /mnt/a: not a btrfs filesystem".
 * stdout is flushed first so that errors never appear out of order with
 * output printed before them.
 */
#ifndef VOLCTL_COMMON_MESSAGES_H
#define VOLCTL_COMMON_MESSAGES_H

#include "common/util/config.h"

void error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* error with ": strerror(-err)" appended */
void error_errno(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* informational line on stderr when cfg->verbose >= level */
void pr_verbose(const struct vc_config *cfg, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * An explanatory note about output that follows (where numbers come from),
 * on stderr unless cfg->quiet: scripts reading stdout see only the data.
 */
void pr_note(const struct vc_config *cfg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* normal text output line on stdout unless cfg->quiet; nothing with --format json */
void pr_out(const struct vc_config *cfg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
