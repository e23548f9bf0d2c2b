// SPDX-License-Identifier: GPL-2.0-only
/* Messages: see messages.h for the conventions. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "common/util/messages.h"

static void vmsg(const char *prefix, int err, const char *fmt, va_list ap)
{
	fflush(stdout);
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err < 0 ? -err : err));
	fputc('\n', stderr);
}

void error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error: ", 0, fmt, ap);
	va_end(ap);
}

void error_errno(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error: ", err, fmt, ap);
	va_end(ap);
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", 0, fmt, ap);
	va_end(ap);
}

void pr_verbose(const struct vc_config *cfg, int level, const char *fmt, ...)
{
	va_list ap;

	if (cfg->verbose < level)
		return;
	va_start(ap, fmt);
	vmsg("", 0, fmt, ap);
	va_end(ap);
}

void pr_out(const struct vc_config *cfg, const char *fmt, ...)
{
	va_list ap;

	/* with --format json stdout holds the document alone */
	if (cfg->quiet || cfg->format == VC_FORMAT_JSON)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

void pr_note(const struct vc_config *cfg, const char *fmt, ...)
{
	va_list ap;

	if (cfg->quiet)
		return;
	va_start(ap, fmt);
	vmsg("", 0, fmt, ap);
	va_end(ap);
}
