// SPDX-License-Identifier: GPL-2.0-only
/*
 * volctl subvolume: create, snapshot, delete, list, show, get-default,
 * set-default, sync.
 *
 * Commands only talk to the backend (ctx->ops): writes through its subvolume
 * ops, reads through ->tree_search and ->path_info, decoded by
 * kernel-shared/subvol-list.c, so list, show and get-default work unchanged
 * on an unmounted image.  Text output keeps the btrfs-progs layout that
 * scripts parse; JSON (list, show, get-default) has one subvolume object
 * schema, written by subvol_emit() and documented in
 * Documentation/json-schema.md.
 *
 * Deliberate differences from btrfs-progs: exit codes 0/1/2; errors name the
 * object and the cause; "Delete subvolume" is printed after the deletion
 * succeeded; "snapshot a b" refuses an existing subvolume b instead of
 * nesting into it; "sync" reports an id that never existed; "show" prints the
 * real send time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cmds/commands.h"
#include "common/kvout.h"
#include "common/messages.h"
#include "common/parse-utils.h"
#include "common/path-utils.h"
#include "common/units.h"
#include "kernel-shared/subvol-list.h"

#define QGROUP_LEVEL(q)	((unsigned long long)((q) >> 48))
#define QGROUP_ID(q)	((unsigned long long)((q) & ((1ULL << 48) - 1)))

/* ------------------------------------------------------------------ */
/* Shared helpers                                                      */
/* ------------------------------------------------------------------ */

/* Print the backend's detailed message for @ret, or "@what: strerror". */
static void report(const struct vc_ctx *ctx, struct vc_fs *fs, int ret, const char *what)
{
	const char *msg = fs ? vc_fs_error(fs) : NULL;

	if (ret == -EOPNOTSUPP && ctx->cfg->nr_images && !msg)
		error("%s: not implemented offline yet", ctx->prog + strlen("volctl "));
	else if (msg)
		error("%s", msg);
	else
		error_errno(ret, "%s", what);
}

/* Open the filesystem holding @path; prints the error. */
static int fs_open(const struct vc_ctx *ctx, const char *path, bool writable, struct vc_fs **fsp)
{
	int ret;

	*fsp = NULL;
	if (!ctx->ops->open) {
		error("%s: backend not available", ctx->prog);
		return -EOPNOTSUPP;
	}
	ret = ctx->ops->open(fsp, ctx->cfg, path, writable);
	if (ret) {
		report(ctx, *fsp, ret, path);
		if (*fsp)
			ctx->ops->close(*fsp);
		*fsp = NULL;
	}
	return ret;
}

static void fs_close(const struct vc_ctx *ctx, struct vc_fs *fs)
{
	if (fs)
		ctx->ops->close(fs);
}

/* An op the backend has not implemented is the same as -EOPNOTSUPP. */
#define OP_CALL(ctx, op, ...) ((ctx)->ops->op ? (ctx)->ops->op(__VA_ARGS__) : -EOPNOTSUPP)

static int path_info(const struct vc_ctx *ctx, struct vc_fs *fs, const char *path,
		     struct vc_path_info *info)
{
	vc_fs_clear_error(fs);
	return OP_CALL(ctx, path_info, fs, path, info);
}

/* @path must be the root of a subvolume; prints the error. */
static int require_subvol(const struct vc_ctx *ctx, struct vc_fs *fs, const char *path,
			  struct vc_path_info *info)
{
	int ret = path_info(ctx, fs, path, info);

	if (ret) {
		report(ctx, fs, ret, path);
		return ret;
	}
	if (!info->is_subvol_root) {
		error("%s: not a subvolume", path);
		return -EINVAL;
	}
	return 0;
}

static int load_list(const struct vc_ctx *ctx, struct vc_fs *fs, struct btrfs_subvol_list *l)
{
	struct btrfs_item_source src = vc_fs_item_source(fs);
	int ret;

	vc_fs_clear_error(fs);
	ret = btrfs_subvol_list_load(&src, l);
	if (ret == -EUCLEAN && !vc_fs_error(fs))
		error("cannot list subvolumes: corrupt root tree or directory references");
	else if (ret)
		report(ctx, fs, ret, "cannot list subvolumes");
	return ret;
}

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
		ret = path_info(ctx, fs, ia->args[i], &info);
		if (ret) {
			error("invalid qgroup id or subvolume path '%s': %s", ia->args[i],
			      strerror(-ret));
			return ret;
		}
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

static const char *const cmd_create_usage[] = {
	"subvolume create [-p] [-i <qgroupid>] [<dest>/]<name>...",
	NULL,
};
static const char *const cmd_create_details[] = {
	"Each <name> is created in its existing parent directory <dest>;",
	"after a failure the remaining arguments are still tried.",
	"",
	OPTLINE("-p|--parents", "create missing parent directories (like mkdir -p)"),
	OPTLINE("-i <qgroupid>", "add the new subvolume to qgroup <qgroupid> (LEVEL/ID or an"),
	"\t absolute subvolume path), repeatable",
	NULL,
};
static const struct cmd_help cmd_create_help = {
	cmd_create_usage, "create subvolumes", cmd_create_details,
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

static int create_one(const struct vc_ctx *ctx, const char *arg, bool parents,
		      struct inherit_args *ia)
{
	struct vc_inherit inh = { ia->nr, ia->ids };
	struct vc_fs *fs = NULL;
	char *name, *dir = NULL, *failed = NULL;
	int ret;

	name = checked_name(arg);
	if (!name)
		return -EINVAL;
	if (parents) {
		if (ctx->cfg->nr_images) {
			error("subvolume create -p: not implemented offline yet");
			ret = -EOPNOTSUPP;
			goto out;
		}
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
	ret = fs_open(ctx, dir, true, &fs);
	if (ret)
		goto out;
	ret = inherit_resolve(ctx, fs, ia);
	if (ret)
		goto out;
	vc_fs_clear_error(fs);
	ret = OP_CALL(ctx, subvol_create, fs, arg, &inh);
	if (ret) {
		report(ctx, fs, ret, arg);
		goto out;
	}
	pr_out(ctx->cfg, "Create subvolume '%s/%s'\n", dir, name);
out:
	fs_close(ctx, fs);
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
	for (int i = optind; i < argc; i++)
		if (create_one(ctx, argv[i], parents, &ia))
			failed++;
	ret = failed ? VC_EXIT_FAILURE : VC_EXIT_OK;
out:
	inherit_release(&ia);
	return ret;
}

/* ------------------------------------------------------------------ */
/* snapshot                                                            */
/* ------------------------------------------------------------------ */

static const char *const cmd_snapshot_usage[] = {
	"subvolume snapshot [-r] [-i <qgroupid>] <source> <dest>|[<dest>/]<name>",
	NULL,
};
static const char *const cmd_snapshot_details[] = {
	"Snapshot subvolume <source> as <dest>/<name>, or inside the existing plain",
	"directory <dest> under the name of <source>.  An existing subvolume as",
	"<dest> is refused rather than snapshotted into.",
	"",
	OPTLINE("-r", "make the snapshot read-only"),
	OPTLINE("-i <qgroupid>", "add the snapshot to qgroup <qgroupid>, repeatable"),
	NULL,
};
static const struct cmd_help cmd_snapshot_help = {
	cmd_snapshot_usage, "create a snapshot of a subvolume", cmd_snapshot_details,
};

/* Where the snapshot goes: @dst itself, or @dst/basename(@src) for a directory. */
static int snapshot_target(const struct vc_ctx *ctx, struct vc_fs *fs, const char *src,
			   const char *dst, char **target)
{
	struct vc_path_info info;
	char *base;
	int ret;

	*target = NULL;
	ret = path_info(ctx, fs, dst, &info);
	if (ret == -ENOENT) {
		*target = path_clean(dst);
		return *target ? 0 : -ENOMEM;
	}
	if (ret) {
		report(ctx, fs, ret, dst);
		return ret;
	}
	if (!info.is_dir) {
		error("%s: exists and is not a directory", dst);
		return -EEXIST;
	}
	if (info.is_subvol_root) {
		error("%s: already exists as a subvolume (to snapshot into it, give %s/<name>)",
		      dst, dst);
		return -EEXIST;
	}
	base = path_basename(src);
	if (!base)
		return -ENOMEM;
	*target = path_join2(dst, base);
	free(base);
	if (!*target)
		return -ENOMEM;
	base = path_clean(*target);
	free(*target);
	*target = base;
	return base ? 0 : -ENOMEM;
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
	ret = fs_open(ctx, src, true, &fs);
	if (ret)
		goto out;
	ret = require_subvol(ctx, fs, src, &info);
	if (ret)
		goto out;
	ret = snapshot_target(ctx, fs, src, dst, &target);
	if (ret)
		goto out;
	name = checked_name(target);
	dir = path_dirname(target);
	if (!name || !dir) {
		ret = -EINVAL;
		goto out;
	}
	/* the snapshot is written on the destination's filesystem */
	fs_close(ctx, fs);
	ret = fs_open(ctx, dir, true, &fs);
	if (ret)
		goto out;
	ret = inherit_resolve(ctx, fs, &ia);
	if (ret)
		goto out;
	inh.nr = ia.nr;
	inh.qgroups = ia.ids;
	vc_fs_clear_error(fs);
	ret = OP_CALL(ctx, snapshot, fs, src, target, readonly, &inh);
	if (ret) {
		report(ctx, fs, ret, target);
		goto out;
	}
	pr_out(ctx->cfg, "Create %ssnapshot of '%s' in '%s'\n", readonly ? "readonly " : "", src,
	       target);
out:
	fs_close(ctx, fs);
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

static const char *const cmd_delete_usage[] = {
	"subvolume delete [-c|-C] [-R] [-v] [--delete-qgroup] <subvolume>...",
	"subvolume delete [-c|-C] [-v] [--delete-qgroup] -i <subvolid> <path>",
	NULL,
};
static const char *const cmd_delete_details[] = {
	"Delete subvolumes; the space is freed later by the kernel's cleaner.",
	"The default subvolume is never deleted.  After a failure the remaining",
	"arguments are still tried.",
	"",
	OPTLINE("-c|--commit-after", "commit the transaction after the last deletion"),
	OPTLINE("-C|--commit-each", "commit the transaction after each deletion"),
	OPTLINE("-i|--subvolid <id>", "delete subvolume <id> of the filesystem holding <path>"),
	OPTLINE("-R|--recursive", "delete the subvolumes nested below first"),
	OPTLINE("--delete-qgroup", "wait until the subvolume is cleaned, then destroy its"),
	"\t 0/<id> qgroup if the kernel has not removed it already",
	OPTLINE("-v|--verbose", "show progress"),
	NULL,
};
static const struct cmd_help cmd_delete_help = {
	cmd_delete_usage, "delete subvolumes", cmd_delete_details,
};

struct delete_opts {
	enum vc_commit commit;
	bool recursive;
	bool delete_qgroup;
	int verbose;
	u64 subvolid;
};

static int found_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	*(bool *)priv = true;
	return 1;
}

static int qgroup_present(struct vc_fs *fs, u64 qgroupid, bool *present)
{
	struct btrfs_item_source src = vc_fs_item_source(fs);
	struct btrfs_key k = { 0, BTRFS_QGROUP_INFO_KEY, qgroupid };

	*present = false;
	return btrfs_item_source_search(&src, BTRFS_QUOTA_TREE_OBJECTID, &k, &k, found_cb,
					present);
}

/* --delete-qgroup: wait for the cleaner, then remove 0/@id unless the kernel did. */
static int delete_qgroup_after(const struct vc_ctx *ctx, struct vc_fs *fs,
			       const struct delete_opts *o, u64 id)
{
	bool present;
	int ret;

	if (o->verbose)
		pr_verbose(ctx->cfg, 0, "waiting for subvolume %llu to be cleaned",
			   (unsigned long long)id);
	/* the cleaner only sees committed deletions */
	ret = OP_CALL(ctx, commit, fs, true);
	if (!ret)
		ret = OP_CALL(ctx, wait_cleaned, fs, id, 1);
	/* we just deleted it: "never existed" only means it is gone already */
	if (ret == -ENOENT)
		ret = 0;
	if (ret) {
		report(ctx, fs, ret, "waiting for the cleaner");
		return ret;
	}
	vc_fs_clear_error(fs);
	ret = qgroup_present(fs, id, &present);
	if (ret == -ENOENT) {
		if (o->verbose)
			pr_verbose(ctx->cfg, 0, "quotas are disabled: no qgroup to delete");
		return 0;
	}
	if (ret) {
		report(ctx, fs, ret, "cannot read the quota tree");
		return ret;
	}
	if (!present) {
		if (o->verbose)
			pr_verbose(ctx->cfg, 0, "qgroup 0/%llu removed by the kernel",
				   (unsigned long long)id);
		return 0;
	}
	vc_fs_clear_error(fs);
	ret = OP_CALL(ctx, qgroup_destroy, fs, id);
	if (ret == -ENOENT) {
		/* the kernel removed it between our look and our destroy */
		if (o->verbose)
			pr_verbose(ctx->cfg, 0, "qgroup 0/%llu removed by the kernel",
				   (unsigned long long)id);
		return 0;
	}
	if (ret) {
		report(ctx, fs, ret, "cannot destroy the qgroup");
		return ret;
	}
	if (o->verbose)
		pr_verbose(ctx->cfg, 0, "qgroup 0/%llu destroyed", (unsigned long long)id);
	return 0;
}

/* Whether subvolume @s lies below @top (not counting @s itself). */
static bool subvol_below(const struct btrfs_subvol_list *l, const struct btrfs_subvol *s, u64 top)
{
	size_t depth = 0;

	while (s && s->id != BTRFS_FS_TREE_OBJECTID && !s->deleted && depth++ <= l->nr) {
		if (s->parent_id == top)
			return true;
		s = btrfs_subvol_list_find(l, s->parent_id);
	}
	return false;
}

static int delete_one_id(const struct vc_ctx *ctx, struct vc_fs *fs, const struct delete_opts *o,
			 const char *path, u64 id, const char *mode)
{
	int ret;

	vc_fs_clear_error(fs);
	ret = OP_CALL(ctx, subvol_delete, fs, path, path ? 0 : id);
	if (ret) {
		report(ctx, fs, ret, path ? path : "delete");
		return ret;
	}
	pr_out(ctx->cfg, "Delete subvolume %llu (%s): '%s'\n", (unsigned long long)id, mode,
	       path ? path : "");
	if (o->commit == VC_COMMIT_EACH) {
		ret = OP_CALL(ctx, commit, fs, true);
		if (ret)
			report(ctx, fs, ret, "commit");
	}
	if (!ret && o->delete_qgroup)
		ret = delete_qgroup_after(ctx, fs, o, id);
	return ret;
}

static int cmp_path_len_desc(const void *a, const void *b)
{
	const struct btrfs_subvol *const *x = a, *const *y = b;
	size_t lx = strlen((*x)->path), ly = strlen((*y)->path);

	return lx < ly ? 1 : lx > ly ? -1 : 0;
}

/* -R: the nested subvolumes of @top, deepest first. */
static int delete_nested(const struct vc_ctx *ctx, struct vc_fs *fs, const struct delete_opts *o,
			 const char *arg, u64 top, const char *mode)
{
	struct btrfs_subvol_list l;
	const struct btrfs_subvol *t, **below = NULL;
	size_t nr = 0, toplen;
	int ret;

	ret = load_list(ctx, fs, &l);
	if (ret)
		return ret;
	t = btrfs_subvol_list_find(&l, top);
	if (!t || !t->path)
		goto out;
	toplen = strlen(t->path);
	below = calloc(l.nr ? l.nr : 1, sizeof(*below));
	if (!below) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < l.nr; i++)
		if (l.subvols[i].path && subvol_below(&l, &l.subvols[i], top))
			below[nr++] = &l.subvols[i];
	qsort(below, nr, sizeof(*below), cmp_path_len_desc);
	for (size_t i = 0; i < nr && !ret; i++) {
		const char *rel = below[i]->path + toplen + (toplen ? 1 : 0);
		char *p = path_join2(arg, rel);

		if (!p) {
			ret = -ENOMEM;
			break;
		}
		ret = delete_one_id(ctx, fs, o, p, below[i]->id, mode);
		free(p);
	}
out:
	free(below);
	btrfs_subvol_list_release(&l);
	return ret;
}

/* Refuse the default subvolume; a failed lookup (no privilege) leaves it to the kernel. */
static int check_not_default(struct vc_fs *fs, const char *what, u64 id)
{
	struct btrfs_item_source src = vc_fs_item_source(fs);
	u64 def;

	if (btrfs_default_subvol(&src, &def) == 0 && def == id) {
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
	ret = fs_open(ctx, parent, true, &fs);
	if (ret)
		goto out;
	ret = require_subvol(ctx, fs, arg, &info);
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
		fs_close(ctx, fs);
	return ret;
}

static int delete_by_id(const struct vc_ctx *ctx, const struct delete_opts *o, const char *arg,
			const char *mode)
{
	struct btrfs_subvol_list l = { 0 };
	struct btrfs_item_source src;
	const struct btrfs_subvol *s;
	struct vc_fs *fs = NULL;
	char *shown = NULL;
	int ret;

	ret = fs_open(ctx, arg, true, &fs);
	if (ret)
		return ret;
	ret = check_not_default(fs, "subvolume", o->subvolid);
	if (ret)
		goto out;
	/* a path for the message; without privilege or path the id is enough */
	src = vc_fs_item_source(fs);
	if (btrfs_subvol_list_load(&src, &l) == 0) {
		s = btrfs_subvol_list_find(&l, o->subvolid);
		if (s && s->path)
			shown = path_join2(arg, s->path);
	}
	vc_fs_clear_error(fs);
	ret = OP_CALL(ctx, subvol_delete, fs, arg, o->subvolid);
	if (ret) {
		report(ctx, fs, ret, arg);
		goto out;
	}
	if (shown)
		pr_out(ctx->cfg, "Delete subvolume %llu (%s): '%s'\n",
		       (unsigned long long)o->subvolid, mode, shown);
	else
		pr_out(ctx->cfg, "Delete subvolume %llu (%s): subvolid=%llu\n",
		       (unsigned long long)o->subvolid, mode, (unsigned long long)o->subvolid);
	if (o->commit != VC_COMMIT_NONE) {
		ret = OP_CALL(ctx, commit, fs, true);
		if (ret)
			report(ctx, fs, ret, "commit");
	}
	if (!ret && o->delete_qgroup)
		ret = delete_qgroup_after(ctx, fs, o, o->subvolid);
out:
	free(shown);
	btrfs_subvol_list_release(&l);
	fs_close(ctx, fs);
	return ret;
}

static int cmd_subvolume_delete(const struct cmd_struct *cmd, const struct vc_ctx *ctx, int argc,
				char **argv)
{
	enum { OPT_DELETE_QGROUP = 256 };
	static const struct option longopts[] = {
		{ "commit-after", no_argument, NULL, 'c' },
		{ "commit-each", no_argument, NULL, 'C' },
		{ "subvolid", required_argument, NULL, 'i' },
		{ "recursive", no_argument, NULL, 'R' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "delete-qgroup", no_argument, NULL, OPT_DELETE_QGROUP },
		{ NULL, 0, NULL, 0 },
	};
	struct delete_opts o = { .commit = VC_COMMIT_NONE, .verbose = ctx->cfg->verbose };
	struct vc_fs **keep;
	bool by_id = false;
	int c, ret, nargs, failed = 0;

	while ((c = cmd_getopt(ctx, argc, argv, "cCi:Rv", longopts)) != -1) {
		switch (c) {
		case 'c':
		case 'C':
			if (o.commit != VC_COMMIT_NONE &&
			    o.commit != (c == 'c' ? VC_COMMIT_AFTER : VC_COMMIT_EACH))
				return cmd_usage_error(ctx, "-c and -C are mutually exclusive");
			o.commit = c == 'c' ? VC_COMMIT_AFTER : VC_COMMIT_EACH;
			break;
		case 'i':
			ret = parse_u64(optarg, &o.subvolid);
			if (ret)
				return cmd_usage_error(ctx, "invalid subvolume id '%s': %s", optarg,
						       parse_strerror(ret, "not a number"));
			if (o.subvolid < BTRFS_FIRST_FREE_OBJECTID ||
			    o.subvolid > BTRFS_LAST_FREE_OBJECTID)
				return cmd_usage_error(ctx, "subvolume id %s out of range "
						       "(256 and above)", optarg);
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
		default:
			return VC_EXIT_USAGE;
		}
	}
	nargs = argc - optind;
	if (by_id && o.recursive)
		return cmd_usage_error(ctx, "-R cannot be used with -i");
	ret = by_id ? cmd_check_argc_exact(ctx, nargs, 1) : cmd_check_argc_min(ctx, nargs, 1);
	if (ret)
		return ret;
	if (o.verbose)
		pr_verbose(ctx->cfg, 0, "transaction commit: %s",
			   o.commit == VC_COMMIT_NONE ? "none (default)" :
			   o.commit == VC_COMMIT_AFTER ? "at the end" : "after each");
	if (by_id) {
		const char *mode = o.commit == VC_COMMIT_NONE ? "no-commit" : "commit";

		return delete_by_id(ctx, &o, argv[optind], mode) ? VC_EXIT_FAILURE : VC_EXIT_OK;
	}
	keep = calloc((size_t)nargs, sizeof(*keep));
	if (!keep) {
		error("out of memory");
		return VC_EXIT_FAILURE;
	}
	for (int i = 0; i < nargs; i++) {
		const char *mode = o.commit == VC_COMMIT_EACH ||
				   (o.commit == VC_COMMIT_AFTER && i == nargs - 1) ?
				   "commit" : "no-commit";

		if (delete_path(ctx, &o, argv[optind + i], mode, &keep[i]))
			failed++;
	}
	/* -c: one commit per filesystem touched (a repeated commit costs nothing) */
	for (int i = 0; i < nargs; i++) {
		if (!keep[i])
			continue;
		ret = OP_CALL(ctx, commit, keep[i], true);
		if (ret) {
			report(ctx, keep[i], ret, "commit");
			failed++;
		}
		fs_close(ctx, keep[i]);
	}
	free(keep);
	return failed ? VC_EXIT_FAILURE : VC_EXIT_OK;
}

/* ------------------------------------------------------------------ */
/* The subvolume object (JSON schema) and show                          */
/* ------------------------------------------------------------------ */

static u64 subvol_ogen(const struct btrfs_subvol *s)
{
	return s->root.has_v2 ? s->root.otransid : s->root_offset;
}

/*
 * One subvolume as a JSON object or the show block, with @path as shown
 * (NULL when unreachable).  Members in JSON-schema order.
 */
static void subvol_emit(struct kvout *kv, const struct btrfs_subvol *s, const char *path,
			u64 top_level)
{
	bool top = s->id == BTRFS_FS_TREE_OBJECTID;
	bool ro = s->root.flags & BTRFS_ROOT_SUBVOL_RDONLY;

	kvout_u64(kv, NULL, "id", s->id);
	kvout_str(kv, "Name: \t\t\t", "name", top ? "<FS_TREE>" : s->name, "-");
	kvout_str(kv, NULL, "path", path, NULL);
	kvout_uuid(kv, "UUID: \t\t\t", "uuid", s->root.uuid);
	kvout_uuid(kv, "Parent UUID: \t\t", "parent_uuid", s->root.parent_uuid);
	kvout_uuid(kv, "Received UUID: \t\t", "received_uuid", s->root.received_uuid);
	kvout_time(kv, "Creation time: \t\t", "otime", s->root.otime.sec);
	kvout_u64(kv, "Subvolume ID: \t\t", NULL, s->id);
	kvout_u64(kv, "Generation: \t\t", "generation", s->root.generation);
	kvout_u64(kv, "Gen at creation: \t", "cgeneration", subvol_ogen(s));
	kvout_u64(kv, "Parent ID: \t\t", "parent", s->parent_id);
	kvout_u64(kv, "Top level ID: \t\t", "top_level", top_level);
	kvout_str(kv, "Flags: \t\t\t", NULL, ro ? "readonly" : "-", "-");
	kvout_array_open(kv, "flags");
	if (ro)
		kvout_item(kv, NULL, "readonly");
	kvout_array_close(kv);
	kvout_u64(kv, "Send transid: \t\t", "stransid", s->root.stransid);
	kvout_time(kv, "Send time: \t\t", "stime", s->root.stime.sec);
	kvout_u64(kv, "Receive transid: \t", "rtransid", s->root.rtransid);
	kvout_time(kv, "Receive time: \t\t", "rtime", s->root.rtime.sec);
	kvout_u64(kv, NULL, "ctransid", s->root.ctransid);
	kvout_time(kv, NULL, "ctime", s->root.ctime.sec);
	kvout_u64(kv, NULL, "dirid", s->dirid);
	kvout_bool(kv, NULL, "snapshot", s->root_offset != 0);
	kvout_bool(kv, NULL, "deleted", s->deleted);
}

struct qgroup_items {
	bool info, limit;
	struct btrfs_qgroup_info_rec i;
	struct btrfs_qgroup_limit_rec l;
};

static int qgroup_items_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct qgroup_items *q = priv;

	if (key->type == BTRFS_QGROUP_INFO_KEY) {
		q->info = btrfs_decode_qgroup_info(data, len, &q->i) == 0;
	} else if (key->type == BTRFS_QGROUP_LIMIT_KEY) {
		q->limit = btrfs_decode_qgroup_limit(data, len, &q->l) == 0;
	}
	return 0;
}

/* The "Quota group" block; quota tree missing: n/a, and no JSON object. */
static int show_quota(struct kvout *kv, struct vc_fs *fs, u64 id)
{
	struct btrfs_item_source src = vc_fs_item_source(fs);
	struct btrfs_key min = { 0, BTRFS_QGROUP_INFO_KEY, id };
	struct btrfs_key max = { 0, BTRFS_QGROUP_LIMIT_KEY, id };
	struct qgroup_items q = { 0 };
	char qgid[48];
	int ret;

	/* INFO (242) and LIMIT (244) of one qgroup are not adjacent: filter */
	ret = btrfs_item_source_search(&src, BTRFS_QUOTA_TREE_OBJECTID, &min, &max,
				       qgroup_items_cb, &q);
	if (ret == -ENOENT) {
		kvout_str(kv, "Quota group:\t\t", NULL, "n/a", NULL);
		return 0;
	}
	if (ret)
		return ret;
	if (!q.info) {
		kvout_str(kv, "Quota group:\t\t", NULL, "n/a", NULL);
		warning("qgroup 0/%llu does not exist", (unsigned long long)id);
		return 0;
	}
	snprintf(qgid, sizeof(qgid), "0/%llu", (unsigned long long)id);
	kvout_object_open(kv, "qgroup");
	kvout_str(kv, "Quota group:\t\t", "qgroupid", qgid, NULL);
	kvout_object_open(kv, "limit");
	kvout_size(kv, "  Limit referenced:\t", "referenced", q.l.max_rfer, true);
	kvout_size(kv, "  Limit exclusive:\t", "exclusive", q.l.max_excl, true);
	kvout_object_close(kv);
	kvout_object_open(kv, "usage");
	kvout_size(kv, "  Usage referenced:\t", "referenced", q.i.rfer, false);
	kvout_size(kv, "  Usage exclusive:\t", "exclusive", q.i.excl, false);
	kvout_object_close(kv);
	kvout_object_close(kv);
	return 0;
}

/* Chain of ids from the top level down to @s, for pre-order sorting. */
static size_t subvol_chain(const struct btrfs_subvol_list *l, const struct btrfs_subvol *s,
			   u64 *ids, size_t max)
{
	size_t n = 0;

	while (s && n < max) {
		ids[n++] = s->id;
		if (s->id == BTRFS_FS_TREE_OBJECTID || s->deleted)
			break;
		s = btrfs_subvol_list_find(l, s->parent_id);
	}
	for (size_t i = 0; i < n / 2; i++) {
		u64 t = ids[i];

		ids[i] = ids[n - 1 - i];
		ids[n - 1 - i] = t;
	}
	return n;
}

#define CHAIN_MAX 64

struct snap_ref {
	const struct btrfs_subvol *s;
	size_t n;
	u64 chain[CHAIN_MAX];
};

static int snap_ref_cmp(const void *a, const void *b)
{
	const struct snap_ref *x = a, *y = b;

	for (size_t i = 0; i < x->n && i < y->n; i++)
		if (x->chain[i] != y->chain[i])
			return x->chain[i] < y->chain[i] ? -1 : 1;
	return x->n < y->n ? -1 : x->n > y->n;
}

/* Snapshots of @s (parent_uuid == its uuid), in tree pre-order. */
static int show_snapshots(struct kvout *kv, const struct btrfs_subvol_list *l,
			  const struct btrfs_subvol *s)
{
	static const u8 zero[BTRFS_UUID_SIZE];
	struct snap_ref *refs;
	size_t nr = 0;

	kvout_str(kv, "Snapshot(s):", NULL, "", NULL);
	kvout_array_open(kv, "snapshots");
	if (!memcmp(s->root.uuid, zero, sizeof(zero))) {
		kvout_array_close(kv);
		return 0;
	}
	refs = calloc(l->nr ? l->nr : 1, sizeof(*refs));
	if (!refs)
		return -ENOMEM;
	for (size_t i = 0; i < l->nr; i++) {
		const struct btrfs_subvol *c = &l->subvols[i];

		if (!c->path || memcmp(c->root.parent_uuid, s->root.uuid, BTRFS_UUID_SIZE))
			continue;
		refs[nr].s = c;
		refs[nr].n = subvol_chain(l, c, refs[nr].chain, CHAIN_MAX);
		nr++;
	}
	qsort(refs, nr, sizeof(*refs), snap_ref_cmp);
	for (size_t i = 0; i < nr; i++)
		kvout_item(kv, "\t\t\t", refs[i].s->path);
	kvout_array_close(kv);
	free(refs);
	return 0;
}

static const char *const cmd_show_usage[] = {
	"subvolume show [options] <subvolume>",
	"subvolume show [options] -r <id>|-u <uuid> <path>",
	NULL,
};
static const char *const cmd_show_details[] = {
	"Show details of a subvolume: the one at <subvolume>, or the one with the",
	"given id or UUID in the filesystem holding <path>.",
	"",
	OPTLINE("-r|--rootid <id>", "show the subvolume with this id"),
	OPTLINE("-u|--uuid <uuid>", "show the subvolume with this UUID"),
	OPTLINE("-b|--raw", "quota sizes in bytes"),
	OPTLINE("-h|--human-readable", "quota sizes with binary units (default)"),
	OPTLINE("-H|--si", "quota sizes with decimal units"),
	OPTLINE("--iec", "binary units (KiB, MiB, ...)"),
	OPTLINE("-k|--kbytes, -m|--mbytes, -g|--gbytes, -t|--tbytes", "a fixed unit"),
	NULL,
};
static const struct cmd_help cmd_show_help = {
	cmd_show_usage, "show details of a subvolume", cmd_show_details,
};

static int parse_uuid(const char *s, u8 out[16])
{
	int n = 0;

	for (const char *p = s; *p; p++) {
		int hi, lo;

		if (*p == '-' && (p - s == 8 || p - s == 13 || p - s == 18 || p - s == 23))
			continue;
		if (!p[1] || n >= 16)
			return -EINVAL;
		hi = (*p >= '0' && *p <= '9') ? *p - '0' :
		     (*p | 0x20) >= 'a' && (*p | 0x20) <= 'f' ? (*p | 0x20) - 'a' + 10 : -1;
		p++;
		lo = (*p >= '0' && *p <= '9') ? *p - '0' :
		     (*p | 0x20) >= 'a' && (*p | 0x20) <= 'f' ? (*p | 0x20) - 'a' + 10 : -1;
		if (hi < 0 || lo < 0)
			return -EINVAL;
		out[n++] = (u8)(hi << 4 | lo);
	}
	return n == 16 ? 0 : -EINVAL;
}

static int cmd_subvolume_show(const struct cmd_struct *cmd, const struct vc_ctx *ctx, int argc,
			      char **argv)
{
	static const struct option longopts[] = {
		{ "rootid", required_argument, NULL, 'r' },
		{ "uuid", required_argument, NULL, 'u' },
		{ NULL, 0, NULL, 0 },
	};
	struct btrfs_subvol_list l = { 0 };
	const struct btrfs_subvol *s;
	struct vc_path_info info;
	struct vc_fs *fs = NULL;
	struct kvout kv;
	unsigned int units;
	const char *rootid = NULL, *uuid = NULL, *path;
	u64 id = 0;
	u8 u[16];
	int c, ret;

	units = units_from_args(&argc, argv, true);
	while ((c = cmd_getopt(ctx, argc, argv, "r:u:", longopts)) != -1) {
		switch (c) {
		case 'r':
			rootid = optarg;
			break;
		case 'u':
			uuid = optarg;
			break;
		default:
			return VC_EXIT_USAGE;
		}
	}
	if (rootid && uuid)
		return cmd_usage_error(ctx, "-r and -u are mutually exclusive");
	ret = cmd_check_argc_exact(ctx, argc - optind, 1);
	if (ret)
		return ret;
	path = argv[optind];
	if (rootid && (ret = parse_u64(rootid, &id)) != 0)
		return cmd_usage_error(ctx, "invalid subvolume id '%s': %s", rootid,
				       parse_strerror(ret, "not a number"));
	if (uuid && parse_uuid(uuid, u))
		return cmd_usage_error(ctx, "invalid uuid '%s'", uuid);
	if (fs_open(ctx, path, false, &fs))
		return VC_EXIT_FAILURE;
	if (!rootid && !uuid) {
		ret = require_subvol(ctx, fs, path, &info);
		if (ret)
			goto out;
		id = info.subvolid;
	}
	ret = load_list(ctx, fs, &l);
	if (ret)
		goto out;
	s = uuid ? btrfs_subvol_list_find_uuid(&l, u) : btrfs_subvol_list_find(&l, id);
	if (!s) {
		if (uuid)
			error("%s: no subvolume with uuid %s", path, uuid);
		else
			error("%s: no subvolume with id %llu", path, (unsigned long long)id);
		ret = -ENOENT;
		goto out;
	}
	if (!(s->root.flags & BTRFS_ROOT_SUBVOL_RDONLY) &&
	    memcmp(s->root.received_uuid, (u8[16]){ 0 }, 16))
		warning("subvolume %llu is read-write and has received_uuid set: an incremental "
			"send from it can fail; clear received_uuid or make it read-only",
			(unsigned long long)s->id);
	kvout_init(&kv, ctx->cfg, stdout, units);
	kvout_document_open(&kv);
	kvout_object_open(&kv, "subvolume-show");
	kvout_heading(&kv, s->id == BTRFS_FS_TREE_OBJECTID ? "/" :
			   s->path ? s->path : "DELETED");
	subvol_emit(&kv, s, s->path, s->parent_id);
	ret = show_snapshots(&kv, &l, s);
	if (!ret)
		ret = show_quota(&kv, fs, s->id);
	kvout_object_close(&kv);
	kvout_document_close(&kv);
	if (ret)
		report(ctx, fs, ret, "cannot read the quota tree");
out:
	btrfs_subvol_list_release(&l);
	fs_close(ctx, fs);
	return ret ? VC_EXIT_FAILURE : VC_EXIT_OK;
}

/* ------------------------------------------------------------------ */
/* list                                                                */
/* ------------------------------------------------------------------ */

static const char *const cmd_list_usage[] = {
	"subvolume list [options] <path>",
	NULL,
};
static const char *const cmd_list_details[] = {
	"List the subvolumes of the filesystem holding <path>.  Paths of subvolumes",
	"below the subvolume of <path> are relative to it, others to the top level.",
	"",
	"Paths and filters:",
	OPTLINE("-o", "only subvolumes directly below the subvolume of <path>"),
	OPTLINE("-a", "all, with paths from the top level; <FS_TREE>/ marks those not"),
	"\t directly below the subvolume of <path>",
	OPTLINE("-s", "only snapshots"),
	OPTLINE("-r", "only read-only subvolumes"),
	OPTLINE("-d", "only deleted subvolumes not yet cleaned"),
	OPTLINE("-G [+|-]<gen>", "generation >= (+), <= (-) or = <gen>"),
	OPTLINE("-C [+|-]<gen>", "creation generation >= (+), <= (-) or = <gen>"),
	"Columns:",
	OPTLINE("-p", "parent id"),
	OPTLINE("-c", "creation generation (cgen)"),
	OPTLINE("-g", "generation (always shown)"),
	OPTLINE("-u", "uuid"),
	OPTLINE("-q", "parent uuid"),
	OPTLINE("-R", "received uuid"),
	OPTLINE("-t", "print a table"),
	OPTLINE("--sort=[+|-]rootid|gen|ogen|path[,...]", "sort order (default rootid)"),
	NULL,
};
static const struct cmd_help cmd_list_help = {
	cmd_list_usage, "list subvolumes", cmd_list_details,
};

enum list_col {
	COL_ID, COL_GEN, COL_CGEN, COL_PARENT, COL_TOP, COL_OTIME, COL_PUUID, COL_RUUID,
	COL_UUID, COL_PATH, COL_MAX,
};

static const char *const col_names[COL_MAX] = {
	"ID", "gen", "cgen", "parent", "top level", "otime", "parent_uuid", "received_uuid",
	"uuid", "path",
};

enum sort_key { SORT_ROOTID, SORT_GEN, SORT_OGEN, SORT_PATH };

struct gen_filter {
	bool on;
	int cmp;	/* -1: <=, 0: =, 1: >= */
	u64 value;
};

struct list_opts {
	bool below_only, all, table, snapshots, readonly, deleted;
	bool cols[COL_MAX];
	struct gen_filter gen, ogen;
	size_t nsort;
	struct { enum sort_key key; bool desc; } sort[8];
};

struct list_row {
	const struct btrfs_subvol *s;
	char *path;		/* as shown; NULL for DELETED */
	u64 top_level;
};

static int parse_gen_filter(const char *arg, struct gen_filter *f)
{
	f->cmp = 0;
	if (*arg == '+' || *arg == '-')
		f->cmp = *arg++ == '+' ? 1 : -1;
	f->on = true;
	return parse_u64(arg, &f->value);
}

static bool gen_match(const struct gen_filter *f, u64 v)
{
	if (!f->on)
		return true;
	return f->cmp > 0 ? v >= f->value : f->cmp < 0 ? v <= f->value : v == f->value;
}

static int parse_sort(struct list_opts *o, const char *arg)
{
	static const char *const names[] = { "rootid", "gen", "ogen", "path" };
	char *copy = strdup(arg), *tok, *save = NULL;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool desc = false;
		size_t k;

		if (*tok == '+' || *tok == '-')
			desc = *tok++ == '-';
		for (k = 0; k < 4; k++)
			if (!strcmp(tok, names[k]))
				break;
		if (k == 4 || o->nsort == 7) {
			ret = -EINVAL;
			break;
		}
		o->sort[o->nsort].key = (enum sort_key)k;
		o->sort[o->nsort].desc = desc;
		o->nsort++;
	}
	free(copy);
	return ret;
}

static int row_cmp(const void *a, const void *b, void *priv)
{
	const struct list_opts *sort_opts = priv;
	const struct list_row *x = a, *y = b;

	for (size_t i = 0; i < sort_opts->nsort; i++) {
		int c = 0;

		switch (sort_opts->sort[i].key) {
		case SORT_ROOTID:
			c = x->s->id < y->s->id ? -1 : x->s->id > y->s->id;
			break;
		case SORT_GEN:
			c = x->s->root.generation < y->s->root.generation ? -1 :
			    x->s->root.generation > y->s->root.generation;
			break;
		case SORT_OGEN:
			c = subvol_ogen(x->s) < subvol_ogen(y->s) ? -1 :
			    subvol_ogen(x->s) > subvol_ogen(y->s);
			break;
		case SORT_PATH:
			c = strcmp(x->path ? x->path : "DELETED", y->path ? y->path : "DELETED");
			break;
		}
		if (c)
			return sort_opts->sort[i].desc ? -c : c;
	}
	return 0;
}

/* The row of @s, or false when the filters drop it. */
static int list_row_make(const struct list_opts *o, const struct btrfs_subvol_list *l,
			 const struct btrfs_subvol *s, const struct btrfs_subvol *top,
			 struct list_row *row, bool *keep)
{
	bool gone = s->deleted || !s->path;

	*keep = false;
	if (s->id == BTRFS_FS_TREE_OBJECTID || gone != o->deleted)
		return 0;
	if (o->below_only && s->parent_id != top->id)
		return 0;
	if (o->snapshots && !s->root_offset)
		return 0;
	if (o->readonly && !(s->root.flags & BTRFS_ROOT_SUBVOL_RDONLY))
		return 0;
	if (!gen_match(&o->gen, s->root.generation) || !gen_match(&o->ogen, subvol_ogen(s)))
		return 0;
	row->s = s;
	row->path = NULL;
	row->top_level = gone ? 0 : s->parent_id;
	*keep = true;
	if (gone)
		return 0;
	if (o->all && s->parent_id != top->id) {
		row->path = path_join2("<FS_TREE>", s->path);
	} else if (!o->all && !o->below_only && top->path && top->id != BTRFS_FS_TREE_OBJECTID &&
		   subvol_below(l, s, top->id)) {
		row->path = strdup(s->path + strlen(top->path) + 1);
	} else {
		row->path = strdup(s->path);
	}
	return row->path ? 0 : -ENOMEM;
}

/* A growing line buffer: printf costs more than the search at 10,000 rows. */
struct line {
	char buf[8192];
	size_t len;
};

static void line_str(struct line *ln, const char *str)
{
	size_t n = strlen(str);

	if (n > sizeof(ln->buf) - 1 - ln->len)
		n = sizeof(ln->buf) - 1 - ln->len;
	memcpy(ln->buf + ln->len, str, n);
	ln->len += n;
}

static void line_u64(struct line *ln, u64 v)
{
	char tmp[24];
	int i = sizeof(tmp);

	tmp[--i] = '\0';
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	line_str(ln, tmp + i);
}

static void list_value(struct line *ln, const struct list_row *r, enum list_col c)
{
	const struct btrfs_subvol *s = r->s;
	char tmp[64];

	switch (c) {
	case COL_ID:
		line_u64(ln, s->id);
		break;
	case COL_GEN:
		line_u64(ln, s->root.generation);
		break;
	case COL_CGEN:
		line_u64(ln, subvol_ogen(s));
		break;
	case COL_PARENT:
	case COL_TOP:
		line_u64(ln, r->top_level);
		break;
	case COL_OTIME:
		format_time(s->root.otime.sec, false, false, tmp, sizeof(tmp));
		line_str(ln, tmp[0] ? tmp : "-");
		break;
	case COL_PUUID:
	case COL_RUUID:
	case COL_UUID: {
		char pad[64];

		format_uuid(c == COL_UUID ? s->root.uuid : c == COL_PUUID ? s->root.parent_uuid :
			    s->root.received_uuid, tmp);
		/* padded to 36 like btrfs-progs, "-" included */
		snprintf(pad, sizeof(pad), "%-36s", tmp[0] ? tmp : "-");
		line_str(ln, pad);
		break;
	}
	default:
		break;
	}
}

static void list_print_text(const struct list_opts *o, const struct list_row *rows, size_t nr)
{
	struct line ln;

	if (o->table) {
		for (int c = 0; c < COL_MAX; c++)
			if (o->cols[c])
				printf("%s\t", col_names[c]);
		putchar('\n');
		for (int c = 0; c < COL_MAX; c++)
			if (o->cols[c])
				printf("%.*s\t", (int)strlen(col_names[c]),
				       "----------------------------------------");
		putchar('\n');
	}
	for (size_t i = 0; i < nr; i++) {
		const struct list_row *r = &rows[i];
		bool first = true;

		ln.len = 0;
		for (int c = 0; c < COL_PATH; c++) {
			if (!o->cols[c])
				continue;
			if (!o->table) {
				if (!first)
					line_str(&ln, " ");
				line_str(&ln, col_names[c]);
				line_str(&ln, " ");
			}
			list_value(&ln, r, (enum list_col)c);
			if (o->table)
				line_str(&ln, c == COL_TOP ? "\t\t" : "\t");
			first = false;
		}
		if (!o->table)
			line_str(&ln, " path ");
		line_str(&ln, r->path ? r->path : "DELETED");
		ln.buf[ln.len++] = '\n';
		fwrite(ln.buf, 1, ln.len, stdout);
	}
}

static void list_print_json(const struct vc_ctx *ctx, const struct list_row *rows, size_t nr)
{
	struct kvout kv;

	kvout_init(&kv, ctx->cfg, stdout, UNITS_DEFAULT);
	kvout_document_open(&kv);
	kvout_array_open(&kv, "subvolume-list");
	for (size_t i = 0; i < nr; i++) {
		kvout_object_open(&kv, NULL);
		subvol_emit(&kv, rows[i].s, rows[i].path, rows[i].top_level);
		kvout_object_close(&kv);
	}
	kvout_array_close(&kv);
	kvout_document_close(&kv);
}

static int list_run(const struct vc_ctx *ctx, struct list_opts *o, const char *path)
{
	struct btrfs_subvol_list l = { 0 };
	const struct btrfs_subvol *top;
	struct list_row *rows = NULL;
	struct vc_path_info info;
	struct vc_fs *fs = NULL;
	size_t nr = 0;
	int ret;

	ret = fs_open(ctx, path, false, &fs);
	if (ret)
		return ret;
	ret = path_info(ctx, fs, path, &info);
	if (ret) {
		report(ctx, fs, ret, path);
		goto out;
	}
	ret = load_list(ctx, fs, &l);
	if (ret)
		goto out;
	top = btrfs_subvol_list_find(&l, info.subvolid);
	if (!top) {
		error("%s: its subvolume %llu is not in the root tree", path,
		      (unsigned long long)info.subvolid);
		ret = -EUCLEAN;
		goto out;
	}
	rows = calloc(l.nr ? l.nr : 1, sizeof(*rows));
	if (!rows) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < l.nr && !ret; i++) {
		bool keep;

		ret = list_row_make(o, &l, &l.subvols[i], top, &rows[nr], &keep);
		if (keep)
			nr++;
	}
	if (ret) {
		error("out of memory");
		goto out;
	}
	/* rows are made in id order: the default sort needs no work */
	if (o->nsort > 1 || o->sort[0].desc || o->sort[0].key != SORT_ROOTID)
		qsort_r(rows, nr, sizeof(*rows), row_cmp, o);
	if (ctx->cfg->quiet)
		goto out;
	if (ctx->cfg->format == VC_FORMAT_JSON)
		list_print_json(ctx, rows, nr);
	else
		list_print_text(o, rows, nr);
out:
	for (size_t i = 0; i < nr; i++)
		free(rows[i].path);
	free(rows);
	btrfs_subvol_list_release(&l);
	fs_close(ctx, fs);
	return ret;
}

static int cmd_subvolume_list(const struct cmd_struct *cmd, const struct vc_ctx *ctx, int argc,
			      char **argv)
{
	enum { OPT_SORT = 256 };
	static const struct option longopts[] = {
		{ "sort", required_argument, NULL, OPT_SORT },
		{ NULL, 0, NULL, 0 },
	};
	struct list_opts o = { 0 };
	bool has_rootid = false;
	int c, ret;

	o.cols[COL_ID] = o.cols[COL_GEN] = o.cols[COL_TOP] = o.cols[COL_PATH] = true;
	while ((c = cmd_getopt(ctx, argc, argv, "oapcgquRtsrdG:C:", longopts)) != -1) {
		switch (c) {
		case 'o': o.below_only = true; break;
		case 'a': o.all = true; break;
		case 'p': o.cols[COL_PARENT] = true; break;
		case 'c': o.cols[COL_CGEN] = true; break;
		case 'g': o.cols[COL_GEN] = true; break;
		case 'q': o.cols[COL_PUUID] = true; break;
		case 'u': o.cols[COL_UUID] = true; break;
		case 'R': o.cols[COL_RUUID] = true; break;
		case 't': o.table = true; break;
		case 's':
			o.snapshots = true;
			o.cols[COL_CGEN] = o.cols[COL_OTIME] = true;
			break;
		case 'r': o.readonly = true; break;
		case 'd': o.deleted = true; break;
		case 'G':
		case 'C':
			ret = parse_gen_filter(optarg, c == 'G' ? &o.gen : &o.ogen);
			if (ret)
				return cmd_usage_error(ctx, "invalid generation filter '-%c %s': %s",
						       c, optarg,
						       parse_strerror(ret, "expected [+|-]<number>"));
			o.cols[c == 'G' ? COL_GEN : COL_CGEN] = true;
			break;
		case OPT_SORT:
			ret = parse_sort(&o, optarg);
			if (ret)
				return cmd_usage_error(ctx, "invalid --sort '%s': keys are rootid, "
						       "gen, ogen, path with an optional + or -",
						       optarg);
			break;
		default:
			return VC_EXIT_USAGE;
		}
	}
	if (o.all && o.below_only)
		return cmd_usage_error(ctx, "-a and -o are mutually exclusive");
	ret = cmd_check_argc_exact(ctx, argc - optind, 1);
	if (ret)
		return ret;
	for (size_t i = 0; i < o.nsort; i++)
		has_rootid |= o.sort[i].key == SORT_ROOTID;
	if (!has_rootid) {
		o.sort[o.nsort].key = SORT_ROOTID;
		o.sort[o.nsort].desc = false;
		o.nsort++;
	}
	return list_run(ctx, &o, argv[optind]) ? VC_EXIT_FAILURE : VC_EXIT_OK;
}

/* ------------------------------------------------------------------ */
/* get-default, set-default                                            */
/* ------------------------------------------------------------------ */

static const char *const cmd_get_default_usage[] = {
	"subvolume get-default <path>",
	NULL,
};
static const struct cmd_help cmd_get_default_help = {
	cmd_get_default_usage, "show the default subvolume of a filesystem", NULL,
};

static int cmd_subvolume_get_default(const struct cmd_struct *cmd, const struct vc_ctx *ctx,
				     int argc, char **argv)
{
	struct btrfs_subvol_list l = { 0 };
	struct btrfs_item_source src;
	const struct btrfs_subvol *s;
	struct vc_fs *fs = NULL;
	struct kvout kv;
	u64 id;
	int c, ret;

	while ((c = cmd_getopt(ctx, argc, argv, "", NULL)) != -1)
		return VC_EXIT_USAGE;
	ret = cmd_check_argc_exact(ctx, argc - optind, 1);
	if (ret)
		return ret;
	if (fs_open(ctx, argv[optind], false, &fs))
		return VC_EXIT_FAILURE;
	src = vc_fs_item_source(fs);
	vc_fs_clear_error(fs);
	ret = btrfs_default_subvol(&src, &id);
	if (ret == -ENOENT) {
		error("%s: the filesystem has no default subvolume entry", argv[optind]);
		goto out;
	} else if (ret) {
		report(ctx, fs, ret, "cannot read the default subvolume");
		goto out;
	}
	ret = load_list(ctx, fs, &l);
	if (ret)
		goto out;
	s = btrfs_subvol_list_find(&l, id);
	if (!s) {
		error("%s: default subvolume %llu does not exist", argv[optind],
		      (unsigned long long)id);
		ret = -ENOENT;
		goto out;
	}
	kvout_init(&kv, ctx->cfg, stdout, UNITS_DEFAULT);
	if (kv.json) {
		kvout_document_open(&kv);
		kvout_object_open(&kv, "subvolume-get-default");
		subvol_emit(&kv, s, s->path, s->parent_id);
		kvout_object_close(&kv);
		kvout_document_close(&kv);
	} else if (id == BTRFS_FS_TREE_OBJECTID) {
		pr_out(ctx->cfg, "ID 5 (FS_TREE)\n");
	} else {
		pr_out(ctx->cfg, "ID %llu gen %llu top level %llu path %s\n",
		       (unsigned long long)id, (unsigned long long)s->root.generation,
		       (unsigned long long)s->parent_id, s->path ? s->path : "DELETED");
	}
out:
	btrfs_subvol_list_release(&l);
	fs_close(ctx, fs);
	return ret ? VC_EXIT_FAILURE : VC_EXIT_OK;
}

static const char *const cmd_set_default_usage[] = {
	"subvolume set-default <subvolume>",
	"subvolume set-default <subvolid> <path>",
	NULL,
};
static const char *const cmd_set_default_details[] = {
	"Make a subvolume the one mounted when no subvol= option is given.",
	"Id 0 means the top level (5).",
	NULL,
};
static const struct cmd_help cmd_set_default_help = {
	cmd_set_default_usage, "set the default subvolume of a filesystem",
	cmd_set_default_details,
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
	if (fs_open(ctx, path, true, &fs))
		return VC_EXIT_FAILURE;
	if (nargs == 1) {
		ret = require_subvol(ctx, fs, path, &info);
		if (ret)
			goto out;
		id = info.subvolid;
	}
	vc_fs_clear_error(fs);
	ret = OP_CALL(ctx, set_default, fs, id);
	if (ret)
		report(ctx, fs, ret, path);
out:
	fs_close(ctx, fs);
	return ret ? VC_EXIT_FAILURE : VC_EXIT_OK;
}

/* ------------------------------------------------------------------ */
/* sync                                                                */
/* ------------------------------------------------------------------ */

static const char *const cmd_sync_usage[] = {
	"subvolume sync [-s <seconds>] <path> [<subvolid>...]",
	NULL,
};
static const char *const cmd_sync_details[] = {
	"Wait until the given deleted subvolumes, or all queued for cleaning, are",
	"completely removed.  An id that never existed is an error.",
	"",
	OPTLINE("-s <seconds>", "polling interval on kernels without SUBVOL_SYNC_WAIT"),
	"\t (default 1)",
	NULL,
};
static const struct cmd_help cmd_sync_help = {
	cmd_sync_usage, "wait until deleted subvolumes are cleaned", cmd_sync_details,
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

static int orphan_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	if (key->type != BTRFS_ORPHAN_ITEM_KEY)
		return 0;
	return id_set_add(priv, key->offset);
}

static int cmd_subvolume_sync(const struct cmd_struct *cmd, const struct vc_ctx *ctx, int argc,
			      char **argv)
{
	struct btrfs_key min = { BTRFS_ORPHAN_OBJECTID, BTRFS_ORPHAN_ITEM_KEY, 0 };
	struct btrfs_key max = { BTRFS_ORPHAN_OBJECTID, BTRFS_ORPHAN_ITEM_KEY, (u64)-1 };
	struct btrfs_item_source src;
	struct id_set set = { 0 };
	struct vc_fs *fs = NULL;
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
	if (fs_open(ctx, argv[optind], false, &fs)) {
		free(set.ids);
		return VC_EXIT_FAILURE;
	}
	if (argc - optind == 1) {
		src = vc_fs_item_source(fs);
		vc_fs_clear_error(fs);
		ret = btrfs_item_source_search(&src, BTRFS_ROOT_TREE_OBJECTID, &min, &max,
					       orphan_cb, &set);
		if (ret) {
			report(ctx, fs, ret, "cannot list deleted subvolumes");
			failed++;
			goto out;
		}
	}
	if (!set.nr)
		goto out;
	pr_out(ctx->cfg, "Waiting for %zu subvolume%s\n", set.nr, set.nr == 1 ? "" : "s");
	for (size_t i = 0; i < set.nr; i++) {
		vc_fs_clear_error(fs);
		ret = OP_CALL(ctx, wait_cleaned, fs, set.ids[i], (int)sleep_s);
		if (ret) {
			report(ctx, fs, ret, "waiting for the cleaner");
			failed++;
			continue;
		}
		pr_out(ctx->cfg, "Subvolume id %llu is gone (%d/%zu)\n",
		       (unsigned long long)set.ids[i], ++done, set.nr);
	}
out:
	free(set.ids);
	fs_close(ctx, fs);
	return failed ? VC_EXIT_FAILURE : VC_EXIT_OK;
}

/* ------------------------------------------------------------------ */
/* The group                                                           */
/* ------------------------------------------------------------------ */

#define WRITE_FLAGS	(CMD_WRITES | CMD_ONLINE | CMD_OFFLINE)
#define READ_FLAGS	(CMD_FORMAT_JSON | CMD_ONLINE | CMD_OFFLINE)

static const struct cmd_struct cmd_create = {
	"create", cmd_subvolume_create, &cmd_create_help, NULL, WRITE_FLAGS,
};
static const struct cmd_struct cmd_snapshot = {
	"snapshot", cmd_subvolume_snapshot, &cmd_snapshot_help, NULL, WRITE_FLAGS,
};
static const struct cmd_struct cmd_delete = {
	"delete", cmd_subvolume_delete, &cmd_delete_help, NULL, WRITE_FLAGS,
};
static const struct cmd_struct cmd_list = {
	"list", cmd_subvolume_list, &cmd_list_help, NULL, READ_FLAGS,
};
static const struct cmd_struct cmd_show = {
	"show", cmd_subvolume_show, &cmd_show_help, NULL, READ_FLAGS,
};
static const struct cmd_struct cmd_get_default = {
	"get-default", cmd_subvolume_get_default, &cmd_get_default_help, NULL, READ_FLAGS,
};
static const struct cmd_struct cmd_set_default = {
	"set-default", cmd_subvolume_set_default, &cmd_set_default_help, NULL, WRITE_FLAGS,
};
static const struct cmd_struct cmd_sync = {
	"sync", cmd_subvolume_sync, &cmd_sync_help, NULL, CMD_ONLINE | CMD_OFFLINE,
};

static const struct cmd_struct *const subvolume_commands[] = {
	&cmd_create,
	&cmd_delete,
	&cmd_snapshot,
	&cmd_list,
	&cmd_show,
	&cmd_get_default,
	&cmd_set_default,
	&cmd_sync,
	NULL,
};

const struct cmd_group subvolume_cmd_group = {
	.token = "subvolume",
	.summary = "manage subvolumes and snapshots",
	.commands = subvolume_commands,
};
