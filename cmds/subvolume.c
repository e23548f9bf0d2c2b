// SPDX-License-Identifier: GPL-2.0-only
/*
 * volctl subvolume: the group table and the writes (create, snapshot,
 * delete, set-default, sync); the reads are in cmds/subvolume-list.c.
 *
 * Commands only talk to the backend (ctx->ops); an op the backend lacks is
 * reported as not implemented.  Deliberate differences from btrfs-progs:
 * exit codes 0/1/2; errors name the object and the cause; "Delete
 * subvolume" is printed after the deletion succeeded; "sync" reports an id
 * that never existed; names are checked before any ioctl.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cmds/subvolume.h"
#include "common/backend/subvol-plan.h"
#include "common/util/messages.h"
#include "common/util/parse-utils.h"
#include "common/util/path-utils.h"
#include "common/output/records.h"
#include "common/util/units.h"

/* -i arguments: LEVEL/ID, a bare subvolume id, or an absolute subvolume path. */
struct inherit_args {
	size_t nr;
	const char **args;
	u64 *ids;
};

static int inherit_add(const struct vc_ctx *ctx, struct inherit_args *ia, const char *arg)
{
	const char **na;
	u64 *ni, id = 0;
	int ret;

	if (arg[0] != '/') {
		ret = parse_qgroupid(arg, &id);
		if (ret)
			return cmd_usage_error(ctx, "invalid qgroup id '%s': %s", arg,
					       parse_strerror(ret, "expected LEVEL/ID (not 0/0) "
							      "or an absolute subvolume path"));
	}
	na = realloc(ia->args, (ia->nr + 1) * sizeof(*na));
	if (na)
		ia->args = na;
	ni = realloc(ia->ids, (ia->nr + 1) * sizeof(*ni));
	if (ni)
		ia->ids = ni;
	if (!na || !ni) {
		error("out of memory");
		return VC_EXIT_FAILURE;
	}
	ia->args[ia->nr] = arg;
	ia->ids[ia->nr] = id;
	ia->nr++;
	return 0;
}

/* Resolve the path forms to 0/<subvolume id> on @fs. */
static int inherit_resolve(const struct vc_ctx *ctx, struct vc_fs *fs, struct inherit_args *ia)
{
	for (size_t i = 0; i < ia->nr; i++) {
		struct vc_path_info info;
		int ret;

		if (ia->args[i][0] != '/')
			continue;
		ret = sv_path_info(ctx, fs, ia->args[i], &info);
		if (ret == -EXDEV && vc_fs_error(fs))
			error("-i %s", vc_fs_error(fs));
		else if (ret)
			error("invalid qgroup id or subvolume path '%s': %s", ia->args[i],
			      strerror(-ret));
		if (ret)
			return ret;
		if (!info.is_subvol_root) {
			error("invalid qgroup id or subvolume path '%s': not a subvolume",
			      ia->args[i]);
			return -EINVAL;
		}
		ia->ids[i] = info.subvolid;
	}
	return 0;
}

static void inherit_release(struct inherit_args *ia)
{
	free(ia->args);
	free(ia->ids);
}


/* ------------------------------------------------------------------ */
/* create                                                              */
/* ------------------------------------------------------------------ */

static const char *const cmd_subvolume_create_usage[] = {
	"subvolume create [-p] [-i <qgroupid>] [<dest>/]<name>...",
	NULL,
};
static const char *const cmd_subvolume_create_details[] = {
	"Each <name> is created in its existing parent directory <dest>;",
	"after a failure the remaining arguments are still tried.",
	"",
	OPTLINE("-p|--parents", "create missing parent directories (like mkdir -p)"),
	OPTLINE("-i <qgroupid>", "add the new subvolume to qgroup <qgroupid> (LEVEL/ID or an\n\tabsolute subvolume path), repeatable"),
	NULL,
};
static const struct cmd_help cmd_create_help = {
	cmd_subvolume_create_usage, "create subvolumes", cmd_subvolume_create_details,
};

/* The last component of @path, checked; prints the error. */
static char *checked_name(const char *path)
{
	char *name = path_basename(path);
	const char *why;

	if (!name) {
		error("out of memory");
		return NULL;
	}
	why = path_name_invalid(name);
	if (why) {
		error("%s: invalid subvolume name: %s", path, why);
		free(name);
		return NULL;
	}
	return name;
}

static void print_created(const struct vc_ctx *ctx, const char *dir, const char *name)
{
	/* "/" as the directory (offline paths) must not print "//name" */
	struct write_line_rec r = {
		.dir = dir, .name = name, .dir_slash = dir[0] && dir[strlen(dir) - 1] == '/',
	};

	cmd_print_text(ctx, &rec_line_created, &r);
}

/*
 * Several paths, through a backend that creates them in one commit
 * (offline, where each commit costs flushes): all are created, or nothing
 * changed and the caller goes path by path, printing each error.  Prints
 * nothing unless it succeeds.
 */
static int create_all(const struct vc_ctx *ctx, char **args, int nr, struct inherit_args *ia,
		      struct sv_made_list *ml)
{
	struct vc_inherit inh = { ia->nr, ia->ids };
	struct vc_fs *fs = NULL;
	char *dir;
	int ret;

	if (!ctx->ops->subvol_create_all)
		return -EOPNOTSUPP;
	for (size_t i = 0; i < ia->nr; i++) {
		/* paths after -i are resolved (and reported) one by one */
		if (ia->args[i][0] == '/')
			return -EINVAL;
	}
	for (int i = 0; i < nr; i++) {
		char *name = path_basename(args[i]);
		bool bad = !name || path_name_invalid(name);

		free(name);
		if (bad)
			return -EINVAL;
	}
	dir = path_dirname(args[0]);
	if (!dir)
		return -ENOMEM;
	ret = ctx->ops->open(&fs, ctx->cfg, dir, true);
	if (!ret)
		ret = ctx->ops->subvol_create_all(fs, (const char *const *)args, (size_t)nr, &inh);
	for (int i = 0; i < nr && !ret && ctx->cfg->format == VC_FORMAT_JSON; i++) {
		struct sv_made *m = sv_made_add(ml);

		if (m)
			sv_made_describe(ctx, fs, args[i], ia->ids, ia->nr, 0, m);
	}
	cmd_close(ctx, fs);
	free(dir);
	for (int i = 0; i < nr && !ret; i++) {
		char *name = path_basename(args[i]);

		dir = path_dirname(args[i]);
		if (name && dir)
			print_created(ctx, dir, name);
		free(name);
		free(dir);
	}
	return ret;
}

static int create_one(const struct vc_ctx *ctx, const char *arg, bool parents,
		      struct inherit_args *ia, struct sv_made_list *ml)
{
	struct vc_inherit inh = { ia->nr, ia->ids };
	struct vc_fs *fs = NULL;
	char *name, *dir = NULL, *failed = NULL;
	int ret;

	name = checked_name(arg);
	if (!name)
		return -EINVAL;
	/* offline, the backend makes the directories in the subvolume's transaction */
	if (parents && !ctx->cfg->nr_images) {
		ret = path_mkdir_parents(arg, &failed);
		if (ret == -ENOTDIR) {
			error("%s: exists and is not a directory", failed);
			goto out;
		} else if (ret) {
			error("%s: cannot create directory: %s", failed ? failed : arg,
			      strerror(-ret));
			goto out;
		}
	}
	dir = path_dirname(arg);
	if (!dir) {
		ret = -ENOMEM;
		goto out;
	}
	/* with -p offline, @dir may not exist yet: the image is opened without it */
	ret = cmd_open(ctx, parents && ctx->cfg->nr_images ? NULL : dir, true, &fs);
	if (ret)
		goto out;
	ret = inherit_resolve(ctx, fs, ia);
	if (ret)
		goto out;
	vc_fs_clear_error(fs);
	ret = CMD_OP(ctx, subvol_create, fs, arg, parents, &inh);
	if (ret == -EDQUOT) {
		cmd_report_edquot(ctx, fs, arg, dir);
		goto out;
	} else if (ret) {
		cmd_report(ctx, fs, ret, arg);
		goto out;
	}
	print_created(ctx, dir, name);
	if (ctx->cfg->format == VC_FORMAT_JSON) {
		struct sv_made *m = sv_made_add(ml);

		if (m)
			sv_made_describe(ctx, fs, arg, ia->ids, ia->nr, 0, m);
	}
out:
	cmd_close(ctx, fs);
	free(failed);
	free(dir);
	free(name);
	return ret;
}

static int cmd_subvolume_create(const struct cmd_struct *cmd, const struct vc_ctx *ctx, int argc,
				char **argv)
{
	static const struct option longopts[] = {
		{ "parents", no_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	struct inherit_args ia = { 0 };
	struct sv_made_list ml = { 0 };
	struct create_rec doc;
	bool parents = false;
	int c, ret, failed = 0;

	while ((c = cmd_getopt(ctx, argc, argv, "pi:", longopts)) != -1) {
		switch (c) {
		case 'p':
			parents = true;
			break;
		case 'i':
			ret = inherit_add(ctx, &ia, optarg);
			if (ret)
				goto out;
			break;
		default:
			ret = VC_EXIT_USAGE;
			goto out;
		}
	}
	ret = cmd_check_argc_min(ctx, argc - optind, 1);
	if (ret)
		goto out;
	if (!parents && argc - optind > 1 &&
	    !create_all(ctx, argv + optind, argc - optind, &ia, &ml)) {
		ret = VC_EXIT_OK;
		goto print;
	}
	sv_made_release(&ml);
	for (int i = optind; i < argc; i++)
		if (create_one(ctx, argv[i], parents, &ia, &ml))
			failed++;
	ret = failed ? VC_EXIT_FAILURE : VC_EXIT_OK;
print:
	/* after a failure too: what was created */
	sv_made_fix(&ml);
	doc.subvolumes = (struct rec_table){ &rec_made, ml.m, ml.nr, sizeof(*ml.m) };
	cmd_print_doc(ctx, &rec_doc_create, &rec_create, &doc);
	sv_made_release(&ml);
out:
	inherit_release(&ia);
	return ret;
}

/* ------------------------------------------------------------------ */
/* snapshot                                                            */
/* ------------------------------------------------------------------ */

static const char *const cmd_subvolume_snapshot_usage[] = {
	"subvolume snapshot [-r] [-i <qgroupid>] <source> <dest>|[<dest>/]<name>",
	NULL,
};
static const char *const cmd_subvolume_snapshot_details[] = {
	"Snapshot subvolume <source> as <dest>/<name>, or, when <dest> is an existing",
	"directory or subvolume, inside it under the name of <source> (as btrfs-progs).",
	"",
	OPTLINE("-r", "make the snapshot read-only"),
	OPTLINE("-i <qgroupid>", "add the snapshot to qgroup <qgroupid>, repeatable"),
	NULL,
};
static const struct cmd_help cmd_snapshot_help = {
	cmd_subvolume_snapshot_usage, "create a snapshot of a subvolume", cmd_subvolume_snapshot_details,
};

/*
 * Where the snapshot goes, btrfs-progs' rule: @dst itself when it does not
 * exist; inside it, under the last component of @src, when it is a
 * directory (a plain one or a subvolume's root).  Paths shown are cleaned:
 * "a/" and "a" suggest the same "a/<name>".
 */
static int snapshot_target(const struct vc_ctx *ctx, struct vc_fs *fs, const char *src,
			   const char *dst, char **target)
{
	struct vc_path_info info;
	char *base, *dir;
	int ret;

	*target = NULL;
	ret = sv_path_info(ctx, fs, dst, &info);
	if (ret == -ENOENT) {
		*target = path_clean(dst);
		return *target ? 0 : -ENOMEM;
	}
	if (ret) {
		cmd_report(ctx, fs, ret, dst);
		return ret;
	}
	if (!info.is_dir) {
		error("%s: exists and is not a directory", dst);
		return -EEXIST;
	}
	base = path_basename(src);
	dir = path_clean(dst);
	if (!base || !dir) {
		free(base);
		free(dir);
		return -ENOMEM;
	}
	if (path_name_invalid(base)) {
		/* "snapshot . dir": the source has no name to reuse */
		*target = path_join2(dir, "<name>");
		error("%s: the snapshot would go inside this %s, but %s has no name to give it: "
		      "give %s", dir, info.is_subvol_root ? "subvolume" : "directory", src,
		      *target ? *target : "a name");
		free(*target);
		*target = NULL;
		free(base);
		free(dir);
		return -EINVAL;
	}
	*target = path_join2(dir, base);
	free(base);
	free(dir);
	if (!*target)
		return -ENOMEM;
	base = path_clean(*target);	/* "." + "a": "a" */
	free(*target);
	*target = base;
	return base ? 0 : -ENOMEM;
}

/*
 * The snapshot is written on the filesystem of @target's directory: online
 * another mount perhaps (@fs is reopened there); offline the image already
 * open (one open a run).  @name and @dir: @target's last component and
 * directory (free them).  Prints the error.
 */
static int snapshot_open_dest(const struct vc_ctx *ctx, struct vc_fs **fs, const char *target,
			      char **name, char **dir)
{
	struct vc_path_info info;
	int ret;

	*name = checked_name(target);
	*dir = path_dirname(target);
	if (!*name || !*dir)
		return -EINVAL;
	if (!ctx->cfg->nr_images) {
		cmd_close(ctx, *fs);
		*fs = NULL;
		return cmd_open(ctx, *dir, true, fs);
	}
	ret = sv_path_info(ctx, *fs, *dir, &info);
	if (ret)
		cmd_report(ctx, *fs, ret, *dir);
	return ret;
}

/* --format json: the snapshot just made at @target */
static void snapshot_print_doc(const struct vc_ctx *ctx, struct vc_fs *fs, const char *target,
			       const struct inherit_args *ia, u64 source_id, const char *src,
			       bool readonly)
{
	struct sv_made m;
	struct sv_made_list ml = { 1, &m };

	sv_made_describe(ctx, fs, target, ia->ids, ia->nr, source_id, &m);
	m.rec.source = src;
	m.rec.readonly = readonly;
	sv_made_fix(&ml);
	cmd_print_doc(ctx, &rec_doc_snapshot, &rec_snapshot, &m.rec);
	free(m.path);
	free(m.abs);
}

static int cmd_subvolume_snapshot(const struct cmd_struct *cmd, const struct vc_ctx *ctx,
				  int argc, char **argv)
{
	struct inherit_args ia = { 0 };
	struct vc_inherit inh;
	struct vc_path_info info;
	struct vc_fs *fs = NULL;
	char *target = NULL, *name = NULL, *dir = NULL;
	const char *src, *dst;
	bool readonly = false;
	u64 source_id;
	int c, ret;

	while ((c = cmd_getopt(ctx, argc, argv, "ri:", NULL)) != -1) {
		switch (c) {
		case 'r':
			readonly = true;
			break;
		case 'i':
			ret = inherit_add(ctx, &ia, optarg);
			if (ret)
				goto out_usage;
			break;
		default:
			ret = VC_EXIT_USAGE;
			goto out_usage;
		}
	}
	ret = cmd_check_argc_exact(ctx, argc - optind, 2);
	if (ret)
		goto out_usage;
	src = argv[optind];
	dst = argv[optind + 1];
	ret = cmd_open(ctx, src, true, &fs);
	if (ret)
		goto out;
	ret = sv_require_subvol(ctx, fs, src, &info);
	if (ret)
		goto out;
	source_id = info.subvolid;
	ret = snapshot_target(ctx, fs, src, dst, &target);
	if (ret)
		goto out;
	ret = snapshot_open_dest(ctx, &fs, target, &name, &dir);
	if (!ret)
		ret = inherit_resolve(ctx, fs, &ia);
	if (ret)
		goto out;
	inh.nr = ia.nr;
	inh.qgroups = ia.ids;
	vc_fs_clear_error(fs);
	ret = CMD_OP(ctx, snapshot, fs, src, target, readonly, &inh);
	if (ret == -EDQUOT) {
		cmd_report_edquot(ctx, fs, target, dir);
		goto out;
	} else if (ret) {
		cmd_report(ctx, fs, ret, target);
		goto out;
	}
	cmd_print_text(ctx, &rec_line_snapshot,
		       &(struct write_line_rec){ .source = src, .target = target, .readonly = readonly });
	if (ctx->cfg->format == VC_FORMAT_JSON)
		snapshot_print_doc(ctx, fs, target, &ia, source_id, src, readonly);
out:
	cmd_close(ctx, fs);
	free(target);
	free(name);
	free(dir);
	inherit_release(&ia);
	return ret ? VC_EXIT_FAILURE : VC_EXIT_OK;
out_usage:
	inherit_release(&ia);
	return ret;
}

/* ------------------------------------------------------------------ */
/* delete                                                              */
/* ------------------------------------------------------------------ */

static const char *const cmd_subvolume_delete_usage[] = {
	"subvolume delete [-c|-C] [-R] [-v] [--delete-qgroup] <subvolume>...",
	"subvolume delete [-c|-C] [-v] [--delete-qgroup] -i <subvolid> <path>",
	"subvolume delete --dry-run [-R] [--raw|--human-readable|...] <subvolume>...",
	"subvolume delete --dry-run [-R] [--raw|...] -i <subvolid> [-i <subvolid>...] <path>",
	NULL,
};
static const char *const cmd_subvolume_delete_details[] = {
	"Delete subvolumes; the space is freed later by the kernel's cleaner.",
	"The default subvolume is never deleted.  After a failure the remaining",
	"arguments are still tried.  A refusal names its cause (an immutable",
	"flag, an active swapfile, a missing permission, ...).",
	"",
	OPTLINE("-c|--commit-after", "commit the transaction after the last deletion"),
	OPTLINE("-C|--commit-each", "commit the transaction after each deletion"),
	OPTLINE("-i|--subvolid <id>", "delete subvolume <id> of the filesystem holding <path>;\n\t"
		"with --dry-run it may be repeated, the set is those ids"),
	OPTLINE("-R|--recursive", "delete the subvolumes nested below first; with --dry-run\n\t"
		"the set is each subvolume and all nested below it"),
	OPTLINE("--dry-run", "delete nothing; print the bytes deleting exactly this set\n\twould free "
		"(exclusive bytes of the set, as a level-1 qgroup holding\n\tthem would show "
		"after a rescan) and each subvolume's own;\n\traw device space freed is larger "
		"by the metadata profile\n\t(DUP: tree blocks twice).  Also --format json"),
	OPTLINE("--delete-qgroup", "wait until the subvolume is cleaned, then destroy its\n\t0/<id> qgroup if the kernel has not removed it already;\n\tprints which of the two happened"),
	OPTLINE("-v|--verbose", "show progress"),
	NULL,
};
static const struct cmd_help cmd_delete_help = {
	cmd_subvolume_delete_usage, "delete subvolumes", cmd_subvolume_delete_details,
};

struct delete_opts {
	enum vc_commit commit;
	bool recursive;
	bool delete_qgroup;
	int verbose;
	u64 subvolid;
	struct sv_deleted_list *done;
};

/* --delete-qgroup: wait for the cleaner, then remove 0/@id unless the kernel did. */
static int delete_qgroup_after(const struct vc_ctx *ctx, struct vc_fs *fs,
			       const struct delete_opts *o, u64 id)
{
	/* the level-0 group of @id, "0/ID" */
	const struct write_line_rec line = { .qgroupid = id };
	bool present;
	int ret;

	if (o->verbose)
		pr_verbose(ctx->cfg, 0, "waiting for subvolume %llu to be cleaned",
			   (unsigned long long)id);
	/* the cleaner only sees committed deletions */
	ret = CMD_OP(ctx, commit, fs, true);
	if (!ret)
		ret = CMD_OP(ctx, wait_cleaned, fs, id, 1);
	/* we just deleted it: "never existed" only means it is gone already */
	if (ret == -ENOENT)
		ret = 0;
	if (ret) {
		cmd_report(ctx, fs, ret, "waiting for the cleaner");
		return ret;
	}
	vc_fs_clear_error(fs);
	ret = vc_fact_qgroup_present(fs, id, &present);
	/* what became of the group is normal output, like the Delete line */
	if (ret == -ENOENT) {
		cmd_print_text(ctx, &rec_line_qgroup_off, &line);
		sv_deleted_qgroup(o->done, id, "quotas_disabled");
		return 0;
	}
	if (ret) {
		cmd_report(ctx, fs, ret, "cannot read the quota tree");
		return ret;
	}
	if (!present) {
		cmd_print_text(ctx, &rec_line_qgroup_gone, &line);
		sv_deleted_qgroup(o->done, id, "removed_by_kernel");
		return 0;
	}
	vc_fs_clear_error(fs);
	ret = CMD_OP(ctx, qgroup_destroy, fs, id);
	if (ret == -ENOENT) {
		/* the kernel removed it between our look and our destroy */
		cmd_print_text(ctx, &rec_line_qgroup_gone, &line);
		sv_deleted_qgroup(o->done, id, "removed_by_kernel");
		return 0;
	}
	if (ret) {
		cmd_report(ctx, fs, ret, "cannot destroy the qgroup");
		return ret;
	}
	cmd_print_text(ctx, &rec_line_qgroup_deleted, &line);
	sv_deleted_qgroup(o->done, id, "deleted");
	return 0;
}

static int delete_one_id(const struct vc_ctx *ctx, struct vc_fs *fs, const struct delete_opts *o,
			 const char *path, u64 id, const char *mode)
{
	int ret;

	vc_fs_clear_error(fs);
	ret = CMD_OP(ctx, subvol_delete, fs, path, path ? 0 : id);
	if (ret) {
		cmd_report(ctx, fs, ret, path ? path : "delete");
		return ret;
	}
	cmd_print_text(ctx, &rec_line_deleted,
		       &(struct write_line_rec){ .id = id, .mode = mode, .path = path ? path : "" });
	sv_deleted_add(ctx, o->done, id, path, mode);
	if (o->commit == VC_COMMIT_EACH) {
		ret = CMD_OP(ctx, commit, fs, true);
		if (ret)
			cmd_report(ctx, fs, ret, "commit");
	}
	if (!ret && o->delete_qgroup)
		ret = delete_qgroup_after(ctx, fs, o, id);
	return ret;
}

/* -R: the nested subvolumes of @top (common/backend/subvol-plan.h), deepest first. */
static int delete_nested(const struct vc_ctx *ctx, struct vc_fs *fs, const struct delete_opts *o,
			 const char *arg, u64 top, const char *mode)
{
	struct btrfs_subvol_list l;
	struct vc_nested *plan = NULL;
	size_t nr = 0;
	int ret;

	ret = sv_load_list(ctx, fs, &l);
	if (ret)
		return ret;
	ret = vc_nested_plan(&l, top, arg, &plan, &nr);
	for (size_t i = 0; i < nr && !ret; i++)
		ret = delete_one_id(ctx, fs, o, plan[i].path, plan[i].id, mode);
	vc_nested_release(plan, nr);
	btrfs_subvol_list_release(&l);
	return ret;
}

/* Refuse the default subvolume; a failed lookup (no privilege) leaves it to the kernel. */
static int check_not_default(struct vc_fs *fs, const char *what, u64 id)
{
	u64 def;

	if (vc_fact_default_subvol(fs, &def) == 0 && def == id) {
		error("%s: is the default subvolume (id %llu), not deleting", what,
		      (unsigned long long)id);
		return -EPERM;
	}
	vc_fs_clear_error(fs);
	return 0;
}

static int delete_path(const struct vc_ctx *ctx, const struct delete_opts *o, const char *arg,
		       const char *mode, struct vc_fs **keep)
{
	struct vc_path_info info;
	struct vc_fs *fs = NULL;
	char *clean = path_clean(arg), *parent = NULL;
	int ret;

	if (!clean)
		return -ENOMEM;
	/*
	 * Open the parent: a descriptor held inside the subvolume would keep
	 * its inodes cached and the kernel would never queue it for cleaning.
	 */
	parent = path_dirname(clean);
	if (!parent) {
		ret = -ENOMEM;
		goto out;
	}
	ret = cmd_open(ctx, parent, true, &fs);
	if (ret)
		goto out;
	ret = sv_require_subvol(ctx, fs, arg, &info);
	if (ret)
		goto out;
	if (info.subvolid == BTRFS_FS_TREE_OBJECTID) {
		error("%s: the top-level subvolume cannot be deleted", arg);
		ret = -EINVAL;
		goto out;
	}
	ret = check_not_default(fs, arg, info.subvolid);
	if (ret)
		goto out;
	if (o->recursive) {
		ret = delete_nested(ctx, fs, o, clean, info.subvolid, mode);
		if (ret)
			goto out;
	}
	ret = delete_one_id(ctx, fs, o, clean, info.subvolid, mode);
out:
	free(parent);
	free(clean);
	if (!ret && o->commit == VC_COMMIT_AFTER)
		*keep = fs;
	else
		cmd_close(ctx, fs);
	return ret;
}

static int delete_by_id(const struct vc_ctx *ctx, const struct delete_opts *o, const char *arg,
			const char *mode)
{
	struct btrfs_subvol_list l = { 0 };
	struct vc_path_info info;
	struct vc_fs *fs = NULL;
	char *shown = NULL;
	int ret;

	ret = cmd_open(ctx, arg, true, &fs);
	if (ret)
		return ret;
	ret = check_not_default(fs, "subvolume", o->subvolid);
	if (ret)
		goto out;
	/*
	 * A path for the message: through @arg when the subvolume lies below
	 * @arg's subvolume (or @arg is in the top level); otherwise, as
	 * btrfs-progs prints it, @arg joined with its path from the top level
	 * (the mount cannot reach it).  Without privilege, or for a subvolume
	 * no directory refers to any more, the id is enough.
	 */
	if (sv_path_info(ctx, fs, arg, &info) == 0 && vc_facts_subvols(fs, &l) == 0)
		shown = vc_subvol_shown_path(&l, info.subvolid, info.is_dir, arg, o->subvolid);
	vc_fs_clear_error(fs);
	ret = CMD_OP(ctx, subvol_delete, fs, arg, o->subvolid);
	if (ret) {
		cmd_report(ctx, fs, ret, arg);
		goto out;
	}
	cmd_print_text(ctx, &rec_line_deleted, &(struct write_line_rec){
		.id = o->subvolid, .mode = mode, .path = shown, .by_id = !shown });
	sv_deleted_add(ctx, o->done, o->subvolid, shown, mode);
	if (o->commit != VC_COMMIT_NONE) {
		ret = CMD_OP(ctx, commit, fs, true);
		if (ret)
			cmd_report(ctx, fs, ret, "commit");
	}
	if (!ret && o->delete_qgroup)
		ret = delete_qgroup_after(ctx, fs, o, o->subvolid);
out:
	free(shown);
	btrfs_subvol_list_release(&l);
	cmd_close(ctx, fs);
	return ret;
}

/* -i ID: into @subvolid and the list @ids (--dry-run takes several); an exit code */
static int delete_add_id(const struct vc_ctx *ctx, const char *arg, u64 *subvolid, u64 **ids,
			 size_t *nr_ids)
{
	int ret = parse_u64(arg, subvolid);

	if (ret)
		return cmd_usage_error(ctx, "invalid subvolume id '%s': %s", arg,
				       parse_strerror(ret, "not a number"));
	if (*subvolid < BTRFS_FIRST_FREE_OBJECTID || *subvolid > BTRFS_LAST_FREE_OBJECTID)
		return cmd_usage_error(ctx, "subvolume id %s out of range (256 and above)", arg);
	if (!(*nr_ids & (*nr_ids + 1))) {
		u64 *more = realloc(*ids, 2 * (*nr_ids + 1) * sizeof(**ids));

		if (!more) {
			error("out of memory");
			return VC_EXIT_FAILURE;
		}
		*ids = more;
	}
	(*ids)[(*nr_ids)++] = *subvolid;
	return 0;
}

/* delete --dry-run: the options it refuses, then cmds/subvolume-dryrun.c */
static int delete_dry_run(const struct vc_ctx *ctx, const struct delete_opts *o, bool by_id,
			  char **args, int nargs, const u64 *ids, size_t nr_ids,
			  unsigned int units)
{
	int ret;

	if (o->delete_qgroup || o->commit != VC_COMMIT_NONE)
		return cmd_usage_error(ctx, "--dry-run cannot be used with -c, -C or "
				       "--delete-qgroup");
	ret = by_id ? cmd_check_argc_exact(ctx, nargs, 1) : cmd_check_argc_min(ctx, nargs, 1);
	if (ret)
		return ret;
	return sv_delete_dry_run(ctx, args, nargs, ids, nr_ids, o->recursive, units);
}

/*
 * Delete the subvolumes at @args, each committed as -c/-C say; the number
 * that failed, or -ENOMEM before any was deleted
 */
static int delete_paths(const struct vc_ctx *ctx, const struct delete_opts *o, char **args,
			int nargs)
{
	struct vc_fs **keep = calloc((size_t)nargs, sizeof(*keep));
	int ret, failed = 0;

	if (!keep)
		return -ENOMEM;
	for (int i = 0; i < nargs; i++) {
		const char *mode = o->commit == VC_COMMIT_EACH ||
				   (o->commit == VC_COMMIT_AFTER && i == nargs - 1) ?
				   "commit" : "no-commit";

		/* every path is in the one image, which a kept handle would keep locked */
		if (i && keep[i - 1] && ctx->cfg->images[0]) {
			ret = CMD_OP(ctx, commit, keep[i - 1], true);
			if (ret) {
				cmd_report(ctx, keep[i - 1], ret, "commit");
				failed++;
			}
			cmd_close(ctx, keep[i - 1]);
			keep[i - 1] = NULL;
		}
		if (delete_path(ctx, o, args[i], mode, &keep[i]))
			failed++;
	}
	/* -c: one commit per filesystem touched (a repeated commit costs nothing) */
	for (int i = 0; i < nargs; i++) {
		if (!keep[i])
			continue;
		ret = CMD_OP(ctx, commit, keep[i], true);
		if (ret) {
			cmd_report(ctx, keep[i], ret, "commit");
			failed++;
		}
		cmd_close(ctx, keep[i]);
	}
	free(keep);
	return failed;
}

/* The options and arguments of a real delete (not --dry-run); an exit code */
static int delete_check_args(const struct vc_ctx *ctx, const struct delete_opts *o, bool by_id,
			     size_t nr_ids, unsigned int units, int nargs)
{
	int ret;

	if (nr_ids > 1)
		return cmd_usage_error(ctx, "-i more than once needs --dry-run (a delete takes "
				       "one id)");
	if (units != UNITS_DEFAULT)
		return cmd_usage_error(ctx, "size units need --dry-run");
	if (by_id && o->recursive)
		return cmd_usage_error(ctx, "-R cannot be used with -i");
	ret = by_id ? cmd_check_argc_exact(ctx, nargs, 1) : cmd_check_argc_min(ctx, nargs, 1);
	if (ret)
		return ret;
	if (o->verbose)
		pr_verbose(ctx->cfg, 0, "transaction commit: %s",
			   o->commit == VC_COMMIT_NONE ? "none (default)" :
			   o->commit == VC_COMMIT_AFTER ? "at the end" : "after each");
	return 0;
}

static int cmd_subvolume_delete(const struct cmd_struct *cmd, const struct vc_ctx *ctx, int argc,
				char **argv)
{
	enum { OPT_DELETE_QGROUP = 256, OPT_DRY_RUN };
	static const struct option longopts[] = {
		{ "commit-after", no_argument, NULL, 'c' },
		{ "commit-each", no_argument, NULL, 'C' },
		{ "subvolid", required_argument, NULL, 'i' },
		{ "recursive", no_argument, NULL, 'R' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "delete-qgroup", no_argument, NULL, OPT_DELETE_QGROUP },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ NULL, 0, NULL, 0 },
	};
	struct sv_deleted_list done = { 0 };
	struct sv_delete_plan plan = { 0 };
	bool planned;
	struct delete_opts o = {
		.commit = VC_COMMIT_NONE, .verbose = ctx->cfg->verbose, .done = &done,
	};
	unsigned int units = units_from_args(&argc, argv, false);
	bool by_id = false, dry_run = false;
	u64 *ids = NULL;
	size_t nr_ids = 0;
	int c, ret, nargs, failed = 0;

	while ((c = cmd_getopt(ctx, argc, argv, "cCi:Rv", longopts)) != -1) {
		switch (c) {
		case 'c':
		case 'C':
			if (o.commit == (c == 'c' ? VC_COMMIT_EACH : VC_COMMIT_AFTER))
				return cmd_usage_error(ctx, "-c and -C are mutually exclusive");
			o.commit = c == 'c' ? VC_COMMIT_AFTER : VC_COMMIT_EACH;
			break;
		case 'i':
			ret = delete_add_id(ctx, optarg, &o.subvolid, &ids, &nr_ids);
			if (ret) {
				free(ids);
				return ret;
			}
			by_id = true;
			break;
		case 'R':
			o.recursive = true;
			break;
		case 'v':
			o.verbose++;
			break;
		case OPT_DELETE_QGROUP:
			o.delete_qgroup = true;
			break;
		case OPT_DRY_RUN:
			dry_run = true;
			break;
		default:
			free(ids);
			return VC_EXIT_USAGE;
		}
	}
	nargs = argc - optind;
	ret = dry_run ? delete_dry_run(ctx, &o, by_id, argv + optind, nargs, ids, nr_ids, units) :
			delete_check_args(ctx, &o, by_id, nr_ids, units, nargs);
	free(ids);
	if (dry_run || ret)
		return ret;
	planned = !sv_delete_plan(ctx, argv + optind, nargs, o.subvolid, o.recursive,
				  o.delete_qgroup, &plan);
	if (by_id)
		failed = delete_by_id(ctx, &o, argv[optind],
				      o.commit == VC_COMMIT_NONE ? "no-commit" : "commit") ? 1 : 0;
	else
		failed = delete_paths(ctx, &o, argv + optind, nargs);
	if (failed >= 0)
		sv_deleted_print(ctx, &done, o.commit, failed, planned ? &plan : NULL);
	else
		error("out of memory");
	free(plan.ids);
	return failed ? VC_EXIT_FAILURE : VC_EXIT_OK;
}

/* ------------------------------------------------------------------ */
/* set-default                                                         */
/* ------------------------------------------------------------------ */

static const char *const cmd_subvolume_set_default_usage[] = {
	"subvolume set-default <subvolume>",
	"subvolume set-default <subvolid> <path>",
	NULL,
};
static const char *const cmd_subvolume_set_default_details[] = {
	"Make a subvolume the one mounted when no subvol= option is given.",
	"Id 0 means the top level (5).",
	NULL,
};
static const struct cmd_help cmd_set_default_help = {
	cmd_subvolume_set_default_usage, "set the default subvolume of a filesystem",
	cmd_subvolume_set_default_details,
};

static int cmd_subvolume_set_default(const struct cmd_struct *cmd, const struct vc_ctx *ctx,
				     int argc, char **argv)
{
	struct vc_path_info info;
	struct vc_fs *fs = NULL;
	const char *path;
	u64 id = 0;
	int c, ret, nargs;

	while ((c = cmd_getopt(ctx, argc, argv, "", NULL)) != -1)
		return VC_EXIT_USAGE;
	nargs = argc - optind;
	ret = cmd_check_argc_min(ctx, nargs, 1);
	if (!ret)
		ret = cmd_check_argc_max(ctx, nargs, 2);
	if (ret)
		return ret;
	path = argv[argc - 1];
	if (nargs == 2) {
		ret = parse_u64(argv[optind], &id);
		if (ret)
			return cmd_usage_error(ctx, "invalid subvolume id '%s': %s", argv[optind],
					       parse_strerror(ret, "not a number"));
		if (id == 0)
			id = BTRFS_FS_TREE_OBJECTID;
	}
	if (cmd_open(ctx, path, true, &fs))
		return VC_EXIT_FAILURE;
	if (nargs == 1) {
		ret = sv_require_subvol(ctx, fs, path, &info);
		if (ret)
			goto out;
		id = info.subvolid;
	}
	vc_fs_clear_error(fs);
	ret = CMD_OP(ctx, set_default, fs, id);
	if (ret) {
		cmd_report(ctx, fs, ret, path);
	} else {
		struct set_default_rec r = { id, path };

		cmd_print_doc(ctx, &rec_doc_set_default, &rec_set_default, &r);
	}
out:
	cmd_close(ctx, fs);
	return ret ? VC_EXIT_FAILURE : VC_EXIT_OK;
}

/* ------------------------------------------------------------------ */
/* sync                                                                */
/* ------------------------------------------------------------------ */

static const char *const cmd_subvolume_sync_usage[] = {
	"subvolume sync [-s <seconds>] <path> [<subvolid>...]",
	NULL,
};
static const char *const cmd_subvolume_sync_details[] = {
	"Wait until the given deleted subvolumes, or all queued for cleaning, are",
	"completely removed.  An id that never existed is an error (judged before",
	"the first wait); one that is gone by the time volctl waits for it is done.",
	"",
	OPTLINE("-s <seconds>", "polling interval on kernels without SUBVOL_SYNC_WAIT\n\t(default 1)"),
	NULL,
};
static const struct cmd_help cmd_sync_help = {
	cmd_subvolume_sync_usage, "wait until deleted subvolumes are cleaned", cmd_subvolume_sync_details,
};

struct id_set {
	size_t nr, cap;
	u64 *ids;
};

static int id_set_add(struct id_set *set, u64 id)
{
	if (set->nr == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 16;
		u64 *n = realloc(set->ids, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		set->ids = n;
		set->cap = cap;
	}
	set->ids[set->nr++] = id;
	return 0;
}

static int deleted_cb(void *priv, u64 id)
{
	return id_set_add(priv, id);
}

/*
 * Ids given on the command line are judged once, before any wait: ids are
 * handed out in increasing order, so one above every subvolume and queued
 * deletion, without a level-0 qgroup, was never used (a typo; an id that was
 * the newest and is fully cleaned already counts as one too).  During the
 * waits a subvolume that is gone is done, as in btrfs-progs: the kernel may
 * finish any of them while volctl waits for another.  Without the right to
 * read the root tree (unprivileged, online) every id is taken as given.
 */
static int check_ids_used(struct vc_fs *fs, const struct id_set *set, u64 *unused)
{
	u64 highest = 0;
	int ret;

	*unused = 0;
	vc_fs_clear_error(fs);
	ret = vc_fact_highest_subvol_id(fs, &highest);
	if (ret == -EPERM) {
		vc_fs_clear_error(fs);
		return 0;
	}
	if (ret)
		return ret;
	for (size_t i = 0; i < set->nr; i++) {
		bool has_qgroup = false;

		if (set->ids[i] <= highest)
			continue;
		/* a level-0 qgroup outlives its subvolume on some kernels: evidence too */
		ret = vc_fact_qgroup_present(fs, set->ids[i], &has_qgroup);
		if (ret && ret != -ENOENT)
			return ret;
		vc_fs_clear_error(fs);
		if (!has_qgroup) {
			*unused = set->ids[i];
			return 0;
		}
	}
	return 0;
}

/*
 * What sync waits for: the ids given in @set (@given), judged by
 * check_ids_used(), or else every subvolume queued for cleaning, added to
 * @set.  Prints the error.
 */
static int sync_targets(const struct vc_ctx *ctx, struct vc_fs *fs, bool given,
			struct id_set *set)
{
	u64 unused;
	int ret;

	if (!given) {
		vc_fs_clear_error(fs);
		ret = vc_fact_deleted_subvols(fs, deleted_cb, set);
		if (ret)
			cmd_report(ctx, fs, ret, "cannot list deleted subvolumes");
		return ret;
	}
	ret = check_ids_used(fs, set, &unused);
	if (ret)
		return cmd_report(ctx, fs, ret, "cannot list subvolumes");
	if (unused) {
		error("subvolume %llu does not exist", (unsigned long long)unused);
		return -ENOENT;
	}
	return 0;
}

static int cmd_subvolume_sync(const struct cmd_struct *cmd, const struct vc_ctx *ctx, int argc,
			      char **argv)
{
	struct id_set set = { 0 }, gone = { 0 };
	struct vc_fs *fs = NULL;
	struct sync_rec doc;
	u64 sleep_s = 1;
	int c, ret, failed = 0, done = 0;

	while ((c = cmd_getopt(ctx, argc, argv, "s:", NULL)) != -1) {
		if (c != 's')
			return VC_EXIT_USAGE;
		ret = parse_u64(optarg, &sleep_s);
		if (ret || sleep_s < 1 || sleep_s > 3600)
			return cmd_usage_error(ctx, "invalid sleep interval '%s': 1 to 3600 "
					       "seconds", optarg);
	}
	ret = cmd_check_argc_min(ctx, argc - optind, 1);
	if (ret)
		return ret;
	for (int i = optind + 1; i < argc; i++) {
		u64 id;

		ret = parse_u64(argv[i], &id);
		if (ret || id < BTRFS_FIRST_FREE_OBJECTID || id > BTRFS_LAST_FREE_OBJECTID) {
			free(set.ids);
			return cmd_usage_error(ctx, "invalid subvolume id '%s': 256 and above",
					       argv[i]);
		}
		if (id_set_add(&set, id)) {
			free(set.ids);
			error("out of memory");
			return VC_EXIT_FAILURE;
		}
	}
	/* writable: offline, sync does the cleaner's work itself */
	if (cmd_open(ctx, argv[optind], true, &fs)) {
		free(set.ids);
		return VC_EXIT_FAILURE;
	}
	if (sync_targets(ctx, fs, argc - optind > 1, &set)) {
		failed++;
		goto out;
	}
	if (!set.nr)
		goto print;
	cmd_print_text(ctx, &rec_line_waiting, &(struct write_line_rec){ .total = set.nr });
	/* progress lines reach a pipe before each wait, not at the end */
	fflush(stdout);
	for (size_t i = 0; i < set.nr; i++) {
		vc_fs_clear_error(fs);
		ret = CMD_OP(ctx, wait_cleaned, fs, set.ids[i], (int)sleep_s);
		if (ret) {
			cmd_report(ctx, fs, ret, "waiting for the cleaner");
			failed++;
			continue;
		}
		cmd_print_text(ctx, &rec_line_gone, &(struct write_line_rec){
			.id = set.ids[i], .done = (u64)++done, .total = set.nr });
		fflush(stdout);
		if (id_set_add(&gone, set.ids[i])) {
			error("out of memory");
			failed++;
		}
	}
print:
	/* a failed wait does not stop the others: what was waited for, what is gone */
	doc = (struct sync_rec){ { set.ids, set.nr }, { gone.ids, gone.nr }, (uint64_t)failed };
	cmd_print_doc(ctx, &rec_doc_sync, &rec_sync, &doc);
out:
	free(set.ids);
	free(gone.ids);
	cmd_close(ctx, fs);
	return failed ? VC_EXIT_FAILURE : VC_EXIT_OK;
}

/* ------------------------------------------------------------------ */
/* The group                                                           */
/* ------------------------------------------------------------------ */

#define WRITE_FLAGS	(CMD_WRITES | CMD_ONLINE | CMD_OFFLINE)

static const struct cmd_struct cmd_struct_subvolume_create = {
	"create", cmd_subvolume_create, &cmd_create_help, NULL, WRITE_FLAGS | CMD_FORMAT_JSON,
};
static const struct cmd_struct cmd_struct_subvolume_snapshot = {
	"snapshot", cmd_subvolume_snapshot, &cmd_snapshot_help, NULL,
	WRITE_FLAGS | CMD_FORMAT_JSON,
};
static const struct cmd_struct cmd_struct_subvolume_delete = {
	"delete", cmd_subvolume_delete, &cmd_delete_help, NULL, WRITE_FLAGS | CMD_FORMAT_JSON,
};
static const struct cmd_struct cmd_struct_subvolume_set_default = {
	"set-default", cmd_subvolume_set_default, &cmd_set_default_help, NULL,
	WRITE_FLAGS | CMD_FORMAT_JSON,
};
static const struct cmd_struct cmd_struct_subvolume_sync = {
	"sync", cmd_subvolume_sync, &cmd_sync_help, NULL,
	CMD_ONLINE | CMD_OFFLINE | CMD_FORMAT_JSON,
};

static const struct cmd_struct *const cmd_group_subvolume_commands[] = {
	&cmd_struct_subvolume_create,
	&cmd_struct_subvolume_delete,
	&cmd_struct_subvolume_snapshot,
	&cmd_struct_subvolume_list,
	&cmd_struct_subvolume_show,
	&cmd_struct_subvolume_get_default,
	&cmd_struct_subvolume_set_default,
	&cmd_struct_subvolume_prune,
	&cmd_struct_subvolume_sync,
	&cmd_struct_subvolume_space,
	&cmd_struct_subvolume_diff,
	&cmd_struct_subvolume_send_size,
	NULL,
};

const struct cmd_group cmd_group_subvolume = {
	.token = "subvolume",
	.summary = "manage subvolumes and snapshots",
	.commands = cmd_group_subvolume_commands,
};
