// SPDX-License-Identifier: GPL-2.0-only
/*
 * volctl: the dispatcher.
 *
 *   volctl [global options] GROUP COMMAND [options] [args]
 *
 * Parses the global options into the read-only struct vc_config, resolves the
 * group and command tokens (exact name or unique prefix), refuses what the
 * command does not support (--format json, --image) from its flags, chooses the
 * backend once, runs the command and turns its result into the exit status.
 * Invoked as volctl-subvolume, volctl-quota or volctl-qgroup (multi-call links)
 * it runs that group directly.  Only this file exits.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <malloc.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmds/commands.h"
#include "common/util/messages.h"
#include "common/image/storage.h"
#include "common/output/output.h"

static const struct cmd_group *const top_groups[] = {
	&cmd_group_subvolume,
	&cmd_group_quota,
	&cmd_group_qgroup,
	&cmd_group_inspect,
	NULL,
};

/* Commands that stand alone at the top level: volctl check IMAGE, volctl mkfs ... */
static const struct cmd_struct *const top_commands[] = {
	&cmd_struct_mkfs,
	&cmd_struct_check,
	NULL,
};

static const struct cmd_struct *find_top_command(const char *tok)
{
	const struct cmd_struct *const *c;

	for (c = top_commands; *c; c++)
		if (!strcmp((*c)->token, tok))
			return *c;
	return NULL;
}

static void print_main_usage(FILE *out)
{
	const struct cmd_group *const *g;
	const struct cmd_struct *const *c;

	fprintf(out,
		"usage: volctl [global options] <group> <command> [options] [<args>]\n"
		"       volctl <group> help | volctl <group> <command> --help\n"
		"\n"
		"Manage Btrfs subvolumes and quota groups, on a mounted filesystem or,\n"
		"with --image, on an unmounted image or device.\n"
		"\n"
		"Global options:\n"
		"  --format text|json   output format (json where a command supports it;\n"
		"                       json-v1: the version-1 documents, deprecated)\n"
		"  -q, --quiet          print no normal output, only errors\n"
		"  -v, --verbose        more messages on stderr (repeat for more)\n"
		"  --image FILE         work offline on FILE (repeat for multi-device)\n"
		"  --super N            offline: use superblock mirror N (0, 1, 2)\n"
		"  --wait[=SECONDS]     offline writers: wait for another writer's claim\n"
		"                       on the image (for ever, or up to SECONDS)\n"
		"  --help               this help\n"
		"  --version            print the version\n"
		"The long forms also work after the group and the command.\n"
		"\n"
		"Groups:\n");
	for (g = top_groups; *g; g++)
		fprintf(out, "  %-12s %s\n", (*g)->token, (*g)->summary);
	if (top_commands[0])
		fprintf(out, "\nCommands:\n");
	for (c = top_commands; *c; c++)
		fprintf(out, "  %-12s %s\n", (*c)->token, (*c)->help ? (*c)->help->summary : "");
	fprintf(out, "\nSee volctl(8) and volctl-<group>(8).\n");
}

static void print_group_usage(const struct cmd_group *grp, FILE *out)
{
	const struct cmd_struct *const *c;

	fprintf(out, "usage: volctl %s <command> [options] [<args>]\n\nCommands:\n", grp->token);
	for (c = grp->commands; *c; c++) {
		if ((*c)->flags & CMD_HIDDEN)
			continue;
		fprintf(out, "  %-14s %s\n", (*c)->token, (*c)->help ? (*c)->help->summary : "");
	}
	fprintf(out, "\nRun 'volctl %s <command> --help' for a command's options.\n", grp->token);
}

/* Exact match, else the one command the token is a prefix of; NULL and *ambiguous otherwise. */
static const struct cmd_struct *find_command(const struct cmd_group *grp, const char *tok,
					     bool *ambiguous)
{
	const struct cmd_struct *const *c;
	const struct cmd_struct *found = NULL;
	size_t len = strlen(tok);

	*ambiguous = false;
	for (c = grp->commands; *c; c++)
		if (!strcmp((*c)->token, tok))
			return *c;
	for (c = grp->commands; *c; c++) {
		if (strncmp((*c)->token, tok, len))
			continue;
		if (found) {
			*ambiguous = true;
			return NULL;
		}
		found = *c;
	}
	return found;
}

static const struct cmd_group *find_group(const char *tok, bool *ambiguous)
{
	const struct cmd_group *const *g;
	const struct cmd_group *found = NULL;
	size_t len = strlen(tok);

	*ambiguous = false;
	for (g = top_groups; *g; g++)
		if (!strcmp((*g)->token, tok))
			return *g;
	for (g = top_groups; *g; g++) {
		if (strncmp((*g)->token, tok, len))
			continue;
		if (found) {
			*ambiguous = true;
			return NULL;
		}
		found = *g;
	}
	return found;
}

static bool wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return false;
		if (!strcmp(argv[i], "--help"))
			return true;
	}
	return false;
}

enum { OPT_FORMAT = 256, OPT_IMAGE, OPT_SUPER, OPT_WAIT, OPT_HELP, OPT_VERSION };

static int set_format(struct vc_config *cfg, const char *value)
{
	if (!strcmp(value, "text")) {
		cfg->format = VC_FORMAT_TEXT;
	} else if (!strcmp(value, "json")) {
		cfg->format = VC_FORMAT_JSON;
		cfg->json_v1 = false;
	} else if (!strcmp(value, "json-v1")) {
		/* deprecated: the documents as version 1 named them, until 0.4 */
		cfg->format = VC_FORMAT_JSON;
		cfg->json_v1 = true;
	} else {
		error("invalid output format '%s': use text, json or json-v1", value);
		return -VC_EXIT_USAGE;
	}
	return 0;
}

static int add_image(struct vc_config *cfg, char *value)
{
	if (!value[0]) {
		error("--image: empty path");
		return -VC_EXIT_USAGE;
	}
	if (cfg->nr_images == VC_MAX_IMAGES) {
		error("too many --image options: at most %d", VC_MAX_IMAGES);
		return -VC_EXIT_USAGE;
	}
	/* "volctl --image subvolume list /": the FILE was forgotten */
	if (access(value, F_OK) < 0) {
		const char *what = NULL;

		for (const struct cmd_group *const *g = top_groups; *g && !what; g++)
			if (!strcmp((*g)->token, value))
				what = "a command group";
		for (const struct cmd_struct *const *c = top_commands; *c && !what; c++)
			if (!strcmp((*c)->token, value))
				what = "a command";
		if (what) {
			error("--image needs a FILE: '%s' is %s, and no file of that name exists "
			      "(volctl --image FILE %s ...)", value, what, value);
			return -VC_EXIT_USAGE;
		}
	}
	cfg->images[cfg->nr_images++] = value;
	return 0;
}

static int set_super(struct vc_config *cfg, const char *value)
{
	char *end;

	errno = 0;
	cfg->super_mirror = (int)strtol(value, &end, 10);
	if (errno || *end || end == value || cfg->super_mirror < 0 || cfg->super_mirror > 2) {
		error("invalid superblock mirror '%s': use 0, 1 or 2", value);
		return -VC_EXIT_USAGE;
	}
	return 0;
}

/* --wait (@value NULL: for ever) or --wait=SECONDS, like flock -w */
static int set_wait(struct vc_config *cfg, const char *value)
{
	char *end;
	double secs;

	if (!value) {
		cfg->lock_wait_ms = VC_WAIT_FOREVER;
		return 0;
	}
	errno = 0;
	secs = strtod(value, &end);
	/* digits and one point only: no sign, exponent, hex, inf or nan */
	if (errno || *end || end == value || strspn(value, "0123456789.") != strlen(value) ||
	    secs > 1e9) {
		error("invalid --wait '%s': a number of seconds from 0 to 1000000000", value);
		return -VC_EXIT_USAGE;
	}
	cfg->lock_wait_ms = (long long)(secs * 1000 + 0.5);
	return 0;
}

/*
 * The long global options also work after the group and the command
 * (volctl qgroup show --format json /mnt), as each command's --help says;
 * they are taken out of @argv before the command parses it.  Up to "--"
 * only, and only the long forms: -q and -v mean other things to some
 * commands (subvolume list -q).
 */
static int take_global_options(struct vc_config *cfg, int *argc, char **argv)
{
	static const char *const with_value[] = { "--format", "--image", "--super" };
	int i, out = 0, ret;

	for (i = 0; i < *argc && strcmp(argv[i], "--"); i++) {
		char *arg = argv[i], *value = NULL;
		size_t k, len;

		if (!strcmp(arg, "--quiet")) {
			cfg->quiet = true;
			continue;
		}
		if (!strcmp(arg, "--verbose")) {
			cfg->verbose++;
			continue;
		}
		for (k = 0; k < sizeof(with_value) / sizeof(with_value[0]); k++) {
			len = strlen(with_value[k]);
			if (!strncmp(arg, with_value[k], len) && (!arg[len] || arg[len] == '='))
				break;
		}
		if (k == sizeof(with_value) / sizeof(with_value[0])) {
			argv[out++] = arg;
			continue;
		}
		if (arg[len] == '=') {
			value = arg + len + 1;
		} else if (i + 1 < *argc) {
			value = argv[++i];
		} else {
			error("global option '%s' requires an argument", arg);
			return -VC_EXIT_USAGE;
		}
		ret = k == 0 ? set_format(cfg, value) : k == 1 ? add_image(cfg, value) :
		      set_super(cfg, value);
		if (ret)
			return ret;
	}
	for (; i < *argc; i++)
		argv[out++] = argv[i];
	argv[out] = NULL;
	*argc = out;
	return 0;
}

static int parse_global_options(struct vc_config *cfg, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "image", required_argument, NULL, OPT_IMAGE },
		{ "super", required_argument, NULL, OPT_SUPER },
		{ "wait", optional_argument, NULL, OPT_WAIT },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:qv", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_FORMAT:
			ret = set_format(cfg, optarg);
			if (ret)
				return ret;
			break;
		case 'q':
			cfg->quiet = true;
			break;
		case 'v':
			cfg->verbose++;
			break;
		case OPT_IMAGE:
			ret = add_image(cfg, optarg);
			if (ret)
				return ret;
			break;
		case OPT_SUPER:
			ret = set_super(cfg, optarg);
			if (ret)
				return ret;
			break;
		case OPT_WAIT:
			ret = set_wait(cfg, optarg);
			if (ret)
				return ret;
			break;
		case OPT_HELP:
			print_main_usage(stdout);
			return -VC_EXIT_OK - 1000;
		case OPT_VERSION:
			printf("volctl %s\n", VOLCTL_VERSION);
			return -VC_EXIT_OK - 1000;
		case ':':
			error("global option '%s' requires an argument", argv[optind - 1]);
			return -VC_EXIT_USAGE;
		default:
			error("unknown global option '%s'", argv[optind - 1]);
			fprintf(stderr, "Try 'volctl --help' for more information.\n");
			return -VC_EXIT_USAGE;
		}
	}
	return optind;
}

static int check_command_flags(const struct vc_config *cfg, const struct cmd_struct *cmd,
			       const char *prog)
{
	if (cfg->format == VC_FORMAT_JSON && !(cmd->flags & CMD_FORMAT_JSON)) {
		error("%s: --format json is not supported by this command", prog);
		return VC_EXIT_USAGE;
	}
	if (cfg->nr_images && !(cmd->flags & (CMD_OFFLINE | CMD_IMAGE_ARG))) {
		error("%s: not available with --image (this command needs a mounted filesystem)",
		      prog);
		return VC_EXIT_USAGE;
	}
	if (cfg->nr_images && (cmd->flags & CMD_OFFLINE) && !vc_offline_ops.open) {
		error("%s: offline backend not available yet", prog);
		return VC_EXIT_FAILURE;
	}
	if (cfg->super_mirror >= 0 && !cfg->nr_images && !(cmd->flags & CMD_IMAGE_ARG)) {
		error("--super needs --image");
		return VC_EXIT_USAGE;
	}
	if (cfg->lock_wait_ms && !cfg->nr_images && !(cmd->flags & CMD_IMAGE_ARG)) {
		error("--wait needs --image: only offline writers wait for the image");
		return VC_EXIT_USAGE;
	}
	return 0;
}

static int run_command(const struct vc_config *cfg, const struct cmd_struct *cmd,
		       const char *prog, int argc, char **argv);

static int run_group(const struct vc_config *cfg, const struct cmd_group *grp, int argc,
		     char **argv)
{
	const struct cmd_struct *cmd;
	char prog[128];
	bool ambiguous;

	if (argc < 1) {
		print_group_usage(grp, stderr);
		return VC_EXIT_USAGE;
	}
	if (!strcmp(argv[0], "help") || !strcmp(argv[0], "--help")) {
		if (argc > 1) {
			cmd = find_command(grp, argv[1], &ambiguous);
			if (cmd) {
				snprintf(prog, sizeof(prog), "volctl %s %s", grp->token,
					 cmd->token);
				cmd_print_usage(cmd, prog, stdout, true);
				return VC_EXIT_OK;
			}
		}
		print_group_usage(grp, stdout);
		return VC_EXIT_OK;
	}
	cmd = find_command(grp, argv[0], &ambiguous);
	if (!cmd) {
		error("volctl %s: %s command '%s'", grp->token,
		      ambiguous ? "ambiguous" : "unknown", argv[0]);
		fprintf(stderr, "Try 'volctl %s help' for more information.\n", grp->token);
		return VC_EXIT_USAGE;
	}
	snprintf(prog, sizeof(prog), "volctl %s %s", grp->token, cmd->token);
	return run_command(cfg, cmd, prog, argc, argv);
}

static int run_command(const struct vc_config *cfg, const struct cmd_struct *cmd,
		       const char *prog, int argc, char **argv)
{
	struct vc_ctx ctx = { .cfg = cfg, .prog = prog };
	int ret;

	if (wants_help(argc, argv)) {
		cmd_print_usage(cmd, prog, stdout, true);
		return VC_EXIT_OK;
	}
	ret = check_command_flags(cfg, cmd, prog);
	if (ret)
		return ret;
	/*
	 * -q: no normal output from any command, text or JSON (errors and
	 * warnings go to stderr as ever).  Done here once, so that no
	 * command can forget it.
	 */
	if (cfg->quiet && !freopen("/dev/null", "w", stdout)) {
		error("cannot redirect standard output for --quiet: %s", strerror(errno));
		return VC_EXIT_FAILURE;
	}
	ctx.ops = cfg->nr_images ? &vc_offline_ops : &vc_online_ops;
	optind = 0;	/* restart getopt for the command's own options */
	ret = cmd->fn(cmd, &ctx, argc, argv);
	if (ret < 0 || ret > VC_EXIT_USAGE)
		ret = VC_EXIT_FAILURE;
	return ret;
}

static const struct cmd_group *group_from_progname(const char *argv0)
{
	char *copy = strdup(argv0);
	const struct cmd_group *const *g;
	const struct cmd_group *found = NULL;
	const char *base;

	if (!copy)
		return NULL;
	base = basename(copy);
	if (!strncmp(base, "volctl-", 7)) {
		for (g = top_groups; *g; g++)
			if (!strcmp(base + 7, (*g)->token))
				found = *g;
	}
	free(copy);
	return found;
}

int main(int argc, char **argv)
{
	struct vc_config cfg = { .format = VC_FORMAT_TEXT, .super_mirror = -1 };
	const struct cmd_group *grp;
	bool ambiguous;
	int first, ret;

	/*
	 * Keep freed memory instead of giving it back at once: the readers free
	 * and allocate tree blocks all the time, and each time glibc trimmed the
	 * heap the kernel cleared the pages again when it grew (subvolume diff
	 * of 100,000 files: 430 brk calls, 4 with these, and 3% faster:
	 * perf stat -r 40, three times, 38.7-39.6 against 39.9-40.7 ms).
	 */
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	mallopt(M_TOP_PAD, 4 << 20);

	if (sodium_init() < 0) {
		error("cannot initialise libsodium");
		return VC_EXIT_FAILURE;
	}
	grp = group_from_progname(argv[0]);
	first = parse_global_options(&cfg, argc, argv);
	if (first < 0)
		return first <= -1000 ? VC_EXIT_OK : -first;
	argc -= first;
	argv += first;
	ret = take_global_options(&cfg, &argc, argv);
	if (ret)
		return -ret;
	if (!grp) {
		if (argc < 1) {
			print_main_usage(stderr);
			return VC_EXIT_USAGE;
		}
		if (!strcmp(argv[0], "help")) {
			print_main_usage(stdout);
			return VC_EXIT_OK;
		}
		if (find_top_command(argv[0])) {
			const struct cmd_struct *cmd = find_top_command(argv[0]);
			char prog[64];

			snprintf(prog, sizeof(prog), "volctl %s", cmd->token);
			return output_close_stdout(run_command(&cfg, cmd, prog, argc, argv));
		}
		grp = find_group(argv[0], &ambiguous);
		if (!grp) {
			error("%s group '%s'", ambiguous ? "ambiguous" : "unknown", argv[0]);
			fprintf(stderr, "Try 'volctl --help' for more information.\n");
			return VC_EXIT_USAGE;
		}
		argc--;
		argv++;
	}
	ret = run_group(&cfg, grp, argc, argv);
	return output_close_stdout(ret);
}
