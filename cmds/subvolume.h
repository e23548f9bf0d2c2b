/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to the subvolume group: helpers shared by cmds/subvolume.c (the
 * writes: create, snapshot, delete, set-default, sync, and the group table)
 * and cmds/subvolume-list.c (the reads: list, show, get-default).
 * Every helper prints its own error; callers only count failures.
 */
#ifndef VOLCTL_CMDS_SUBVOLUME_H
#define VOLCTL_CMDS_SUBVOLUME_H

#include "cmds/commands.h"
#include "common/backend/facts.h"
#include "common/output/records.h"
#include "kernel-shared/subvol-list.h"

/* cmds/subvolume-common.c; an op the backend lacks is the same as -EOPNOTSUPP */

/* ->path_info with the error buffer cleared first; prints nothing */
int sv_path_info(const struct vc_ctx *ctx, struct vc_fs *fs, const char *path,
		 struct vc_path_info *info);
/* @path must be the root of a subvolume; prints the error. */
int sv_require_subvol(const struct vc_ctx *ctx, struct vc_fs *fs, const char *path,
		      struct vc_path_info *info);
/*
 * An op on the subvolumes at @paths (@was: what they were) returned -ESTALE,
 * one was deleted while it was read (online): name the path that is no
 * longer that subvolume.  Prints the error; returns VC_EXIT_FAILURE.
 */
int sv_report_gone(const struct vc_ctx *ctx, struct vc_fs *fs, char **paths,
		   const struct vc_path_info *was, int nr, int err);
/* vc_facts_subvols() on @fs; prints the error. */
int sv_load_list(const struct vc_ctx *ctx, struct vc_fs *fs, struct btrfs_subvol_list *l);

/* cmds/subvolume-dryrun.c: delete --dry-run; returns a VC_EXIT_* code */
int sv_delete_dry_run(const struct vc_ctx *ctx, char **paths, int nr, const u64 *ids,
		      size_t nr_ids, bool recursive, unsigned int units);

struct vc_acct_delete;
/* cmds/subvolume-dryrun.c: the closing sentences; @done: "Freed", else "Would free" */
void sv_print_set_freed(const struct vc_acct_delete *set, size_t n, unsigned int units,
			bool done);

/* --format json of the writes (cmds/subvolume-report.c) */

/* A subvolume create or snapshot made: its record and the storage it points into */
struct sv_made {
	struct made_rec rec;
	uint8_t uuid[16], source_uuid[16];
	char *path, *abs;
	char qgroup[32];
};

struct sv_made_list {
	size_t nr;
	struct sv_made *m;
};

/*
 * Look up the subvolume just made at @path: @inherit, its -i groups;
 * @source_id, 0 or the snapshot's source
 */
void sv_made_describe(const struct vc_ctx *ctx, struct vc_fs *fs, const char *path,
		      const u64 *inherit, size_t nr_inherit, u64 source_id, struct sv_made *m);
/* Room for one more in @ml; NULL without memory */
struct sv_made *sv_made_add(struct sv_made_list *ml);
/* The pointers of each record into its entry, once the array no longer moves */
void sv_made_fix(struct sv_made_list *ml);
void sv_made_release(struct sv_made_list *ml);

/* The subvolumes a delete deleted, in order */
struct sv_deleted_list {
	size_t nr;
	struct deleted_rec *d;
	char (*qgroup)[32];		/* d[i].qgroup's text */
};

/* Record one deleted subvolume (JSON only; @path copied, @mode "commit" or "no-commit") */
void sv_deleted_add(const struct vc_ctx *ctx, struct sv_deleted_list *dl, u64 id,
		    const char *path, const char *mode);
/* What --delete-qgroup did with 0/@id, on the row of @id */
void sv_deleted_qgroup(struct sv_deleted_list *dl, u64 id, const char *result);

/*
 * sv_delete_plan - offline with --format json, what the set to delete frees
 * once cleaned, computed before the deletion as --dry-run does (the engine
 * counts an unlinked tree as gone, so it cannot be computed after): the
 * subvolumes of @args (or @subvolid), with @recursive those nested below.
 * sv_deleted_print() gives it only when exactly that set was deleted.  Not
 * online, where the kernel's cleaner frees the space on its own time, nor
 * with @delete_qgroup, which drops the trees.  Quiet: a path that does not
 * resolve is the deletion's error to print.
 * Return: 0 with @p filled (free @p->ids), or a negative errno.
 */
struct sv_delete_plan {
	u64 *ids;
	size_t nr;
	u64 freed;
};
int sv_delete_plan(const struct vc_ctx *ctx, char **args, int nargs, u64 subvolid, bool recursive,
		   bool delete_qgroup, struct sv_delete_plan *p);
/* The document of a delete (@plan: NULL, or sv_delete_plan()'s); releases @dl */
void sv_deleted_print(const struct vc_ctx *ctx, struct sv_deleted_list *dl, enum vc_commit commit,
		      int failed, const struct sv_delete_plan *plan);

extern const struct cmd_struct cmd_struct_subvolume_prune;

/* cmds/subvolume-list.c */
extern const struct cmd_struct cmd_struct_subvolume_list;
extern const struct cmd_struct cmd_struct_subvolume_show;
extern const struct cmd_struct cmd_struct_subvolume_get_default;

/* cmds/subvolume-space.c */
extern const struct cmd_struct cmd_struct_subvolume_space;
extern const struct cmd_struct cmd_struct_subvolume_diff;
extern const struct cmd_struct cmd_struct_subvolume_send_size;

#endif
