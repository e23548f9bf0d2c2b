/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The static, declarative command table.
 *
 * Each group lives in one cmds/<group>.c file that ends with its
 * struct cmd_group.  Flags tell the dispatcher (volctl.c) what a command
 * supports, so that unsupported --format json or --image is refused in one
 * place, before the command runs.
 *
 * Naming rule (one scheme for every table entry):
 *   struct cmd_struct   cmd_struct_<group>_<cmd>   (top level: cmd_struct_<cmd>)
 *   handler             cmd_<group>_<cmd>          (top level: cmd_<cmd>)
 *   synopsis lines      cmd_<group>_<cmd>_usage[]
 *   detail lines        cmd_<group>_<cmd>_details[]
 *   struct cmd_group    cmd_group_<group>, its NULL-terminated list
 *                       cmd_group_<group>_commands[], defined last in cmds/<group>.c
 */
#ifndef VOLCTL_CMDS_COMMANDS_H
#define VOLCTL_CMDS_COMMANDS_H

#include <getopt.h>
#include <stdio.h>
#include "common/backend/backend.h"
#include "common/util/config.h"

/* What a command supports. */
#define CMD_FORMAT_JSON	(1U << 0)	/* --format json */
#define CMD_OFFLINE	(1U << 1)	/* works on --image (offline backend) */
#define CMD_ONLINE	(1U << 2)	/* works on a mounted filesystem */
#define CMD_WRITES	(1U << 3)	/* changes the filesystem */
#define CMD_IMAGE_ARG	(1U << 4)	/* takes an image as its own argument (inspect, check) */
#define CMD_HIDDEN	(1U << 5)	/* not listed in help */

/* Everything a command receives besides its argv. */
struct vc_ctx {
	const struct vc_config *cfg;
	const struct vc_backend_ops *ops;	/* online or offline, chosen once */
	const char *prog;			/* "volctl subvolume create" */
};

struct cmd_help {
	const char *const *synopsis;	/* NULL-terminated, without "volctl " */
	const char *summary;		/* one line */
	const char *const *details;	/* NULL-terminated: description, "", options */
};

struct cmd_struct;
typedef int (*cmd_fn)(const struct cmd_struct *cmd, const struct vc_ctx *ctx, int argc,
		      char **argv);

struct cmd_group;

struct cmd_struct {
	const char *token;
	cmd_fn fn;			/* NULL for a group */
	const struct cmd_help *help;
	const struct cmd_group *group;	/* subcommands, or NULL */
	unsigned int flags;
};

struct cmd_group {
	const char *token;
	const char *summary;
	const struct cmd_struct *const *commands;	/* NULL-terminated */
};

/* Defined by each group file. */
extern const struct cmd_group cmd_group_subvolume;
extern const struct cmd_group cmd_group_quota;
extern const struct cmd_group cmd_group_qgroup;
extern const struct cmd_group cmd_group_inspect;
extern const struct cmd_struct cmd_struct_mkfs;
extern const struct cmd_struct cmd_struct_check;

/* Help and argument helpers shared by the commands (cmds/help.c). */
void cmd_print_usage(const struct cmd_struct *cmd, const char *prog, FILE *out, bool full);
int cmd_usage_error(const struct vc_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Argument count checks; print the error and return VC_EXIT_USAGE on failure, else 0. */
int cmd_check_argc_exact(const struct vc_ctx *ctx, int nargs, int expected);
int cmd_check_argc_min(const struct vc_ctx *ctx, int nargs, int expected);
int cmd_check_argc_max(const struct vc_ctx *ctx, int nargs, int expected);
/*
 * getopt_long wrapper with our error messages: returns the option, -1 at the
 * end, or '?' after printing "unknown option" or, at the end, an empty
 * argument (no path, id or value may be ''; the caller returns
 * VC_EXIT_USAGE).  Resets getopt state on the first call of a command.
 */
int cmd_getopt(const struct vc_ctx *ctx, int argc, char **argv, const char *optstring,
	       const struct option *longopts);

/*
 * Backend calls from commands.  cmd_open() opens the filesystem holding @path
 * (printing why it failed: returns -errno); cmd_report() prints why an op
 * failed: the backend's detailed message, "not implemented offline yet" for
 * an op the offline backend lacks, else "@object: strerror"; it returns
 * VC_EXIT_FAILURE.  CMD_OP() calls an op, -EOPNOTSUPP when the backend has none.
 */
int cmd_open(const struct vc_ctx *ctx, const char *path, bool writable, struct vc_fs **fsp);
void cmd_close(const struct vc_ctx *ctx, struct vc_fs *fs);
int cmd_report(const struct vc_ctx *ctx, struct vc_fs *fs, int err, const char *object);
int cmd_not_offline(const struct vc_ctx *ctx);

/*
 * cmd_report_edquot - report an -EDQUOT of a write under @dir (a subvolume
 * create or snapshot into it) as "@what: Disk quota exceeded: qgroup L/ID
 * limit TYPE SIZE (used SIZE); raise it with: volctl qgroup limit
 * <size>|none L/ID @dir", naming the limit that binds first (as qgroup
 * headroom finds it) from the group the backend named, else from @dir's
 * subvolume.  Falls back to cmd_report() when no limit is found.
 */
int cmd_report_edquot(const struct vc_ctx *ctx, struct vc_fs *fs, const char *what,
		      const char *dir);
struct rec_doc;
struct rec_desc;
/*
 * cmd_print_doc - with --format json, the document @doc of record @rec
 * (described by @d) on stdout; nothing in text, where a write command's
 * own lines say what was done.  pr_out() prints nothing with --format
 * json, so those lines never mix into the document.
 */
void cmd_print_doc(const struct vc_ctx *ctx, const struct rec_doc *doc, const struct rec_desc *d,
		   const void *rec);
/*
 * cmd_print_text - in text, the lines of the text-only record @rec
 * (described by @d) on stdout, as pr_out(): nothing with --format json or
 * quiet.  cmd_note_text - the same sentence as a note on stderr, as
 * pr_note() (not quiet).
 */
void cmd_print_text(const struct vc_ctx *ctx, const struct rec_desc *d, const void *rec);
void cmd_note_text(const struct vc_ctx *ctx, const struct rec_desc *d, const void *rec);

/*
 * CMD_OP - the one way a command calls a backend op: -EOPNOTSUPP when the
 * backend has none, which cmd_report() prints as "not implemented offline
 * yet" on --image (cmd_not_offline()).
 */
#define CMD_OP(ctx, op, ...) ((ctx)->ops->op ? (ctx)->ops->op(__VA_ARGS__) : -EOPNOTSUPP)

#define OPTLINE(opt, text)	"  " opt "\n\t" text

#endif
