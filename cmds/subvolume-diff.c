// SPDX-License-Identifier: GPL-2.0-only
/*
 * volctl subvolume diff: what changed between two subvolumes, path by
 * path, with the letters of zfs diff.  The work is the backend's
 * (kernel-shared/subvol-diff.h on an image, or on the committed trees of a
 * mounted filesystem: common/backend/online-diff.c); here the options are
 * parsed and the lines printed.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmds/commands.h"
#include "cmds/subvolume.h"
#include "common/backend/backend.h"
#include "common/output/records.h"
#include "common/util/messages.h"

static const char *const cmd_subvolume_diff_usage[] = {
	"subvolume diff [-F] [-H] [-t] <old> <new>",
	NULL,
};

static const char *const cmd_subvolume_diff_details[] = {
	"One line per path that changed from subvolume <old> to subvolume <new>:",
	"'-' removed, '+' added, 'M' modified with what changed (content, size,",
	"mode, owner, xattrs, times, links), 'R' renamed or moved (old -> new).",
	"Files whose extents were reshaped but whose bytes are the same are not",
	"'content'; a directory is 'M' only for its mode, owner or xattrs.  The",
	"two trees are compared block by block and what they share is not read.",
	"Online (paths on one mounted filesystem; needs root: the trees are read",
	"from its devices) the filesystem is committed first, so a live <new> is",
	"compared as committed; offline (--image) on an unmounted image.",
	"",
	OPTLINE("-F", "add the file type: F file, / directory, @ symlink, B block,\n\t"
		"C character device, | fifo, = socket"),
	OPTLINE("-H", "tab-separated fields for scripts (R: old and new path)"),
	OPTLINE("-t", "add the change time (ctime) of the inode, seconds.nanoseconds"),
	OPTLINE("--format json", "(global option) a JSON document, a row per change"),
	NULL,
};

static const struct cmd_help diff_help = {
	cmd_subvolume_diff_usage, "show what changed between two subvolumes",
	cmd_subvolume_diff_details,
};

struct diff_opts {
	bool type, script, ctime;
};

/* @s with newline, tab, backslash and bytes below 0x20 or from 0x7f escaped */
static void put_escaped(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\n')
			fputs("\\n", stdout);
		else if (*p == '\t')
			fputs("\\t", stdout);
		else if (*p == '\\')
			fputs("\\\\", stdout);
		else if (*p < 0x20 || *p >= 0x7f)
			printf("\\%03o", *p);
		else
			putchar(*p);
	}
}

static char type_char(u32 mode)
{
	switch (mode & 0170000) {
	case 0040000: return '/';
	case 0120000: return '@';
	case 0060000: return 'B';
	case 0020000: return 'C';
	case 0010000: return '|';
	case 0140000: return '=';
	default: return 'F';
	}
}

static const char *const what_names[] = {
	"content", "size", "mode", "owner", "xattrs", "times", "links",
};

static void put_what(u32 what, const char *sep)
{
	const char *const *names = what_names;
	bool first = true;

	for (unsigned int i = 0; i < sizeof(what_names) / sizeof(what_names[0]); i++) {
		if (!(what & (1U << i)))
			continue;
		printf("%s%s", first ? "" : sep, names[i]);
		first = false;
	}
}

static void print_change(const struct btrfs_diff_change *c, const struct diff_opts *o)
{
	if (o->ctime)
		printf("%lld.%09u\t", (long long)c->ctime.sec, c->ctime.nsec);
	putchar(c->letter);
	putchar('\t');
	if (o->type)
		printf("%c\t", type_char(c->mode));
	put_escaped(c->path);
	if (c->letter == 'R') {
		fputs(o->script ? "\t" : " -> ", stdout);
		put_escaped(c->new_path);
	}
	if (c->letter == 'M') {
		fputs(o->script ? "\t" : "\t(", stdout);
		put_what(c->what, o->script ? "," : ", ");
		if (!o->script)
			putchar(')');
	}
	putchar('\n');
}

static const char *type_name(u32 mode)
{
	switch (mode & 0170000) {
	case 0040000: return "directory";
	case 0120000: return "symlink";
	case 0060000: return "block";
	case 0020000: return "char";
	case 0010000: return "fifo";
	case 0140000: return "socket";
	default: return "file";
	}
}

/* The document: a row per change, the "what" lists in one array */
static int print_json(const struct vc_ctx *ctx, char **paths, const struct btrfs_diff *d)
{
	const size_t nw = sizeof(what_names) / sizeof(what_names[0]);
	struct diff_row_rec *rows = calloc(d->nr ? d->nr : 1, sizeof(*rows));
	const char **whats = calloc((d->nr ? d->nr : 1) * (nw + 1), sizeof(*whats));
	struct diff_rec doc = { paths[0], paths[1], { &rec_diff_row, rows, d->nr, sizeof(*rows) } };

	if (!rows || !whats) {
		free(rows);
		free(whats);
		return -ENOMEM;
	}
	for (size_t i = 0; i < d->nr; i++) {
		const struct btrfs_diff_change *c = &d->changes[i];
		const char **w = whats + i * (nw + 1);
		size_t k = 0;

		for (size_t b = 0; b < nw; b++)
			if (c->what & (1U << b))
				w[k++] = what_names[b];
		rows[i] = (struct diff_row_rec){
			.change = c->letter == '-' ? "removed" : c->letter == '+' ? "added" :
				  c->letter == 'R' ? "renamed" : "modified",
			.path = c->path, .new_path = c->new_path, .type = type_name(c->mode),
			.what = w, .ctime = c->ctime.sec, .ctime_nsec = c->ctime.nsec,
		};
	}
	cmd_print_doc(ctx, &rec_doc_diff, &rec_diff, &doc);
	free(rows);
	free(whats);
	return 0;
}

static int diff_run(const struct vc_ctx *ctx, struct vc_fs *fs, char **paths,
		    const struct diff_opts *o)
{
	struct vc_path_info info[2];
	struct btrfs_diff d;
	int ret;

	for (int i = 0; i < 2; i++) {
		ret = sv_require_subvol(ctx, fs, paths[i], &info[i]);
		if (ret)
			return VC_EXIT_FAILURE;
	}
	vc_fs_clear_error(fs);
	ret = ctx->ops->subvol_diff(fs, info[0].subvolid, info[1].subvolid, &d);
	if (ret == -ESTALE)
		return sv_report_gone(ctx, fs, paths, info, 2, ret);
	if (ret)
		return cmd_report(ctx, fs, ret, paths[1]);
	if (ctx->cfg->format == VC_FORMAT_JSON)
		ret = print_json(ctx, paths, &d);
	else
		for (size_t i = 0; i < d.nr; i++)
			print_change(&d.changes[i], o);
	vc_diff_release(&d);
	return ret ? cmd_report(ctx, NULL, ret, paths[1]) : VC_EXIT_OK;
}

static int cmd_subvolume_diff(const struct cmd_struct *cmd, const struct vc_ctx *ctx, int argc,
			      char **argv)
{
	struct diff_opts o = { 0 };
	struct vc_fs *fs;
	int c, ret;

	(void)cmd;
	while ((c = cmd_getopt(ctx, argc, argv, "FHt", NULL)) != -1) {
		switch (c) {
		case 'F':
			o.type = true;
			break;
		case 'H':
			o.script = true;
			break;
		case 't':
			o.ctime = true;
			break;
		default:
			return VC_EXIT_USAGE;
		}
	}
	ret = cmd_check_argc_exact(ctx, argc - optind, 2);
	if (ret)
		return ret;
	ret = cmd_open(ctx, argv[optind + 1], false, &fs);
	if (ret)
		return VC_EXIT_FAILURE;
	ret = diff_run(ctx, fs, argv + optind, &o);
	cmd_close(ctx, fs);
	return ret;
}

const struct cmd_struct cmd_struct_subvolume_diff = {
	"diff", cmd_subvolume_diff, &diff_help, NULL, CMD_ONLINE | CMD_OFFLINE | CMD_FORMAT_JSON,
};
