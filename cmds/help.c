// SPDX-License-Identifier: GPL-2.0-only
/* Usage printing, argument count checks and getopt with our error messages. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmds/commands.h"
#include "common/util/messages.h"
#include "common/output/record.h"
#include "common/output/records.h"

void cmd_print_usage(const struct cmd_struct *cmd, const char *prog, FILE *out, bool full)
{
	const struct cmd_help *h = cmd->help;
	const char *const *p;
	bool first = true;

	if (!h)
		return;
	for (p = h->synopsis; p && *p; p++) {
		fprintf(out, "%s volctl %s\n", first ? "usage:" : "   or:", *p);
		first = false;
	}
	if (!full) {
		fprintf(out, "Try '%s --help' for more information.\n", prog);
		return;
	}
	fprintf(out, "\n    %s\n", h->summary);
	if (h->details && h->details[0])
		fputc('\n', out);
	for (p = h->details; p && *p; p++) {
		const char *line = *p;

		/* OPTLINE() packs "  -x|--xx\n\ttext": print as two columns */
		fprintf(out, "    %s\n", line);
	}
}

int cmd_usage_error(const struct vc_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "error: %s: ", ctx->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", ctx->prog);
	return VC_EXIT_USAGE;
}

int cmd_check_argc_exact(const struct vc_ctx *ctx, int nargs, int expected)
{
	struct argc_msg_rec r = { (uint64_t)expected, (uint64_t)nargs };
	char *text;
	int ret;

	if (nargs == expected)
		return 0;
	text = rec_text_string(&rec_argc_exact_msg, &r, 0);
	ret = cmd_usage_error(ctx, "%s", text ? text : "wrong number of arguments");
	free(text);
	return ret;
}

int cmd_check_argc_min(const struct vc_ctx *ctx, int nargs, int expected)
{
	if (nargs >= expected)
		return 0;
	return cmd_usage_error(ctx, "not enough arguments: %d but at least %d expected", nargs,
			       expected);
}

int cmd_check_argc_max(const struct vc_ctx *ctx, int nargs, int expected)
{
	if (nargs <= expected)
		return 0;
	return cmd_usage_error(ctx, "too many arguments: %d but at most %d expected", nargs,
			       expected);
}

int cmd_getopt(const struct vc_ctx *ctx, int argc, char **argv, const char *optstring,
	       const struct option *longopts)
{
	char shortopts[128];
	int c;

	/* leading ':' makes getopt report a missing argument as ':' */
	snprintf(shortopts, sizeof(shortopts), ":%s", optstring);
	opterr = 0;
	c = getopt_long(argc, argv, shortopts, longopts, NULL);
	if (c == '?') {
		if (optopt)
			cmd_usage_error(ctx, "unknown option '-%c'", optopt);
		else
			cmd_usage_error(ctx, "unknown option '%s'", argv[optind - 1]);
		return '?';
	}
	if (c == ':') {
		cmd_usage_error(ctx, "option '%s' requires an argument", argv[optind - 1]);
		return '?';
	}
	/* no argument of any command can be empty: '' is no path (not the top level) */
	for (int i = optind; c == -1 && i < argc; i++) {
		if (!argv[i][0]) {
			cmd_usage_error(ctx, "argument %d is empty: give a path, id or value",
					i - optind + 1);
			return '?';
		}
	}
	return c;
}

int cmd_not_offline(const struct vc_ctx *ctx)
{
	error("%s: not implemented offline yet", ctx->prog);
	return VC_EXIT_FAILURE;
}

/*
 * Whether @msg may be printed without the text of @err appended.  A backend
 * message says in words what an errno meant ("holds an active swapfile"),
 * but scripts match the errno's own text ("Text file busy"), so it is kept
 * beside the words: unless the message has it already, or the errno is
 * volctl's own label rather than a failure (EMEDIUMTYPE: not btrfs).
 */
static bool err_text_kept(const char *msg, int err)
{
	if (err >= 0 || err == -EMEDIUMTYPE)
		return true;
	return strstr(msg, strerror(-err)) != NULL;	// api-ok: a duplicate, not a value
}

int cmd_report(const struct vc_ctx *ctx, struct vc_fs *fs, int err, const char *object)
{
	const char *msg = fs ? vc_fs_error(fs) : NULL;

	if (err == -EOPNOTSUPP && ctx->cfg->nr_images && !msg)
		return cmd_not_offline(ctx);
	if (msg && (vc_fs_error_whole(fs) || err_text_kept(msg, err)))
		error("%s", msg);
	else if (msg)
		error("%s (%s)", msg, strerror(-err));
	else
		error_errno(err, "%s", object);
	return VC_EXIT_FAILURE;
}

int cmd_open(const struct vc_ctx *ctx, const char *path, bool writable, struct vc_fs **fsp)
{
	int ret;

	*fsp = NULL;
	ret = ctx->ops->open(fsp, ctx->cfg, path, writable);
	if (ret) {
		cmd_report(ctx, *fsp, ret, path);
		cmd_close(ctx, *fsp);
		*fsp = NULL;
	}
	return ret;
}

void cmd_close(const struct vc_ctx *ctx, struct vc_fs *fs)
{
	if (fs)
		ctx->ops->close(fs);
}

void cmd_print_text(const struct vc_ctx *ctx, const struct rec_desc *d, const void *rec)
{
	struct kvout kv;

	/* with --format json stdout holds the document alone */
	if (ctx->cfg->quiet || ctx->cfg->format == VC_FORMAT_JSON)
		return;
	kvout_init(&kv, ctx->cfg, stdout, 0);
	rec_emit(&kv, d, rec);
}

void cmd_note_text(const struct vc_ctx *ctx, const struct rec_desc *d, const void *rec)
{
	char *text;

	if (ctx->cfg->quiet)
		return;
	text = rec_text_string(d, rec, 0);
	if (text)
		pr_note(ctx->cfg, "%s", text);
	free(text);
}

void cmd_print_doc(const struct vc_ctx *ctx, const struct rec_doc *doc, const struct rec_desc *d,
		   const void *rec)
{
	struct kvout kv;

	if (ctx->cfg->format != VC_FORMAT_JSON)
		return;
	kvout_init(&kv, ctx->cfg, stdout, 0);
	rec_print_document(&kv, doc, d, rec);
}
