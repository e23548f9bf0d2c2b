// SPDX-License-Identifier: GPL-2.0-only
/*
 * The online backend's quota and qgroup operations: the Btrfs ioctls
 * QUOTA_CTL, QUOTA_RESCAN, QUOTA_RESCAN_STATUS, QUOTA_RESCAN_WAIT,
 * QGROUP_CREATE, QGROUP_ASSIGN and QGROUP_LIMIT on the fd of a mounted
 * filesystem.
 *
 * The kernel answers most mistakes with a bare EINVAL, ENOENT or EBUSY that
 * means different things per ioctl.  Each op turns the errno into the reason a
 * user can act on ("qgroup 1/1 still has members 0/256, 0/257") and leaves it
 * in fs->err; where the errno alone is ambiguous it looks at the quota tree
 * (through the backend's own tree search) to tell the cases apart.
 *
 * All ops return 0 or a negative errno, except qgroup_assign, which returns 1
 * when the kernel could not update the numbers in place and has marked the
 * qgroups inconsistent (a rescan is needed).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <dirent.h>
#include <unistd.h>
#include <linux/btrfs.h>
#include <uuid/uuid.h>
#include "common/backend/online-internal.h"

#ifndef BTRFS_QUOTA_CTL_ENABLE_SIMPLE_QUOTA
#define BTRFS_QUOTA_CTL_ENABLE_SIMPLE_QUOTA 4
#endif

#define QGID_BUFSIZE 32

static const char *qgid_str(u64 qgroupid, char *buf)
{
	snprintf(buf, QGID_BUFSIZE, "%u/%" PRIu64, btrfs_qgroup_level(qgroupid),
		 btrfs_qgroup_subvolid(qgroupid));
	return buf;
}

static int qioctl(struct vc_fs *fs, unsigned long request, void *arg)
{
	int ret = ioctl(fs->fd, request, arg);

	if (ret < 0)
		return -errno;
	return ret;
}

/* Messages every quota ioctl shares; returns true when @err was described. */
static bool common_error(struct vc_fs *fs, int err)
{
	switch (err) {
	case -ENOTCONN:
		vc_fs_set_error(fs, "%s: quota is not enabled (run 'volctl quota enable %s')",
				fs->path, fs->path);
		return true;
	case -EPERM:
	case -EACCES:
		vc_fs_set_error(fs, "%s: permission denied (quota changes need CAP_SYS_ADMIN)",
				fs->path);
		return true;
	case -EROFS:
		vc_fs_set_error(fs, "%s: read-only filesystem", fs->path);
		return true;
	case -ENOTTY:
	case -EOPNOTSUPP:
		vc_fs_set_error(fs, "%s: not supported by the running kernel", fs->path);
		return true;
	default:
		return false;
	}
}

/* ---- looking at the quota tree to explain an errno ---- */

struct qgroup_probe {
	u64 qgroupid;
	bool found;
	size_t nr_parents, nr_children;
	char parents[160];
	char children[160];
};

static void append_id(char *buf, size_t size, u64 id)
{
	char qb[QGID_BUFSIZE];
	size_t len = strlen(buf);

	if (len + 40 >= size) {
		if (len + 5 < size && !strstr(buf, "..."))
			strcat(buf, ", ...");
		return;
	}
	snprintf(buf + len, size - len, "%s%s", len ? ", " : "", qgid_str(id, qb));
}

static int probe_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct qgroup_probe *p = priv;

	if (key->type == BTRFS_QGROUP_INFO_KEY && key->offset == p->qgroupid)
		p->found = true;
	if (key->type == BTRFS_QGROUP_RELATION_KEY && key->objectid == p->qgroupid) {
		if (key->offset > p->qgroupid) {
			p->nr_parents++;
			append_id(p->parents, sizeof(p->parents), key->offset);
		} else {
			p->nr_children++;
			append_id(p->children, sizeof(p->children), key->offset);
		}
	}
	return 0;
}

/*
 * Read what the quota tree says about @qgroupid: whether its INFO item exists
 * and its relations.  Returns 0, or <0 if the tree could not be searched (the
 * caller then falls back to the plain errno).
 */
static int qgroup_probe(struct vc_fs *fs, u64 qgroupid, struct qgroup_probe *p)
{
	struct btrfs_key min = { 0, BTRFS_QGROUP_INFO_KEY, qgroupid };
	struct btrfs_key max = { 0, BTRFS_QGROUP_INFO_KEY, qgroupid };
	int ret;

	memset(p, 0, sizeof(*p));
	p->qgroupid = qgroupid;
	if (!fs->base.ops || !fs->base.ops->tree_search)
		return -EOPNOTSUPP;
	ret = fs->base.ops->tree_search(fs, BTRFS_QUOTA_TREE_OBJECTID, &min, &max, probe_cb, p);
	if (ret < 0)
		return ret;
	min = (struct btrfs_key){ qgroupid, BTRFS_QGROUP_RELATION_KEY, 0 };
	max = (struct btrfs_key){ qgroupid, BTRFS_QGROUP_RELATION_KEY, (u64)-1 };
	return fs->base.ops->tree_search(fs, BTRFS_QUOTA_TREE_OBJECTID, &min, &max, probe_cb, p);
}

/* Set "qgroup X does not exist" when the probe says so; true if it did. */
static bool report_missing(struct vc_fs *fs, u64 qgroupid)
{
	struct qgroup_probe p;
	char qb[QGID_BUFSIZE];

	if (qgroup_probe(fs, qgroupid, &p) < 0 || p.found)
		return false;
	vc_fs_set_error(fs, "qgroup %s does not exist", qgid_str(qgroupid, qb));
	return true;
}

/* ---- quota ---- */

int online_quota_ctl(struct vc_fs *fs, enum vc_quota_mode mode)
{
	struct btrfs_ioctl_quota_ctl_args args = { 0 };
	int ret;

	vc_fs_clear_error(fs);
	switch (mode) {
	case VC_QUOTA_ENABLE:
		args.cmd = BTRFS_QUOTA_CTL_ENABLE;
		break;
	case VC_QUOTA_ENABLE_SIMPLE:
		args.cmd = BTRFS_QUOTA_CTL_ENABLE_SIMPLE_QUOTA;
		break;
	default:
		args.cmd = BTRFS_QUOTA_CTL_DISABLE;
		break;
	}
	ret = qioctl(fs, BTRFS_IOC_QUOTA_CTL, &args);
	if (ret >= 0)
		return 0;
	if (ret == -ENOTCONN || !common_error(fs, ret)) {
		if (ret == -EINVAL && mode == VC_QUOTA_ENABLE_SIMPLE)
			vc_fs_set_error(fs, "%s: simple quotas are not supported by the running "
					"kernel, or quotas are already enabled in full mode "
					"(disable them first)", fs->path);
		else if (ret == -EINVAL)
			vc_fs_set_error(fs, "%s: quota %s refused: %s", fs->path,
					mode == VC_QUOTA_DISABLE ? "disable" : "enable",
					strerror(-ret));
		else if (ret == -EINPROGRESS || ret == -EBUSY)
			vc_fs_set_error(fs, "%s: a quota operation is already in progress, "
					"try again when it has finished", fs->path);
		else
			vc_fs_set_error(fs, "%s: quota %s failed: %s", fs->path,
					mode == VC_QUOTA_DISABLE ? "disable" : "enable",
					strerror(-ret));
	}
	return ret;
}

int online_rescan_start(struct vc_fs *fs)
{
	struct btrfs_ioctl_quota_rescan_args args = { 0 };
	int ret;

	vc_fs_clear_error(fs);
	ret = qioctl(fs, BTRFS_IOC_QUOTA_RESCAN, &args);
	if (ret >= 0)
		return 0;
	if (common_error(fs, ret))
		return ret;
	if (ret == -EINPROGRESS)
		vc_fs_set_error(fs, "%s: a quota rescan is already running (wait for it with "
				"'volctl quota rescan -W %s')", fs->path, fs->path);
	else if (ret == -EINVAL)
		vc_fs_set_error(fs, "%s: quota rescan is not possible with simple quotas "
				"(their numbers are always exact)", fs->path);
	else
		vc_fs_set_error(fs, "%s: quota rescan failed: %s", fs->path, strerror(-ret));
	return ret;
}

int online_rescan_wait(struct vc_fs *fs)
{
	int ret;

	vc_fs_clear_error(fs);
	ret = qioctl(fs, BTRFS_IOC_QUOTA_RESCAN_WAIT, NULL);
	if (ret >= 0)
		return 0;
	if (!common_error(fs, ret)) {
		if (ret == -EINTR)
			vc_fs_set_error(fs, "%s: waiting for the quota rescan was interrupted "
					"(the rescan goes on)", fs->path);
		else
			vc_fs_set_error(fs, "%s: waiting for the quota rescan failed: %s",
					fs->path, strerror(-ret));
	}
	return ret;
}

int online_rescan_status(struct vc_fs *fs, struct vc_rescan_status *st)
{
	struct btrfs_ioctl_quota_rescan_args args = { 0 };
	int ret;

	vc_fs_clear_error(fs);
	ret = qioctl(fs, BTRFS_IOC_QUOTA_RESCAN_STATUS, &args);
	if (ret < 0) {
		if (!common_error(fs, ret))
			vc_fs_set_error(fs, "%s: cannot read the quota rescan status: %s", fs->path,
					strerror(-ret));
		return ret;
	}
	st->running = args.flags != 0;
	st->progress = args.progress;
	return 0;
}

/* ---- qgroups ---- */

int online_qgroup_create(struct vc_fs *fs, u64 qgroupid)
{
	struct btrfs_ioctl_qgroup_create_args args = { .create = 1, .qgroupid = qgroupid };
	char qb[QGID_BUFSIZE];
	int ret;

	vc_fs_clear_error(fs);
	ret = qioctl(fs, BTRFS_IOC_QGROUP_CREATE, &args);
	if (ret >= 0)
		return 0;
	if (common_error(fs, ret))
		return ret;
	qgid_str(qgroupid, qb);
	if (ret == -EEXIST)
		vc_fs_set_error(fs, "qgroup %s already exists", qb);
	else if (ret == -EINVAL && btrfs_qgroup_level(qgroupid) == 0)
		vc_fs_set_error(fs, "qgroup %s: level-0 qgroups belong to subvolumes and are "
				"created with them; create a group of level 1 or higher", qb);
	else
		vc_fs_set_error(fs, "qgroup %s: cannot create: %s", qb, strerror(-ret));
	return ret;
}

static void explain_destroy_busy(struct vc_fs *fs, u64 qgroupid)
{
	struct qgroup_probe p;
	char qb[QGID_BUFSIZE];

	qgid_str(qgroupid, qb);
	if (qgroup_probe(fs, qgroupid, &p) < 0) {
		vc_fs_set_error(fs, "qgroup %s is busy: it still has members or parents, or "
				"its subvolume still exists", qb);
		return;
	}
	if (p.nr_children)
		vc_fs_set_error(fs, "qgroup %s still has members (%s): remove them first with "
				"'volctl qgroup remove'", qb, p.children);
	else if (p.nr_parents)
		vc_fs_set_error(fs, "qgroup %s is still a member of %s: remove it first with "
				"'volctl qgroup remove'", qb, p.parents);
	else if (btrfs_qgroup_level(qgroupid) == 0 &&
		 btrfs_qgroup_subvolid(qgroupid) != BTRFS_FS_TREE_OBJECTID &&
		 btrfs_qgroup_subvolid(qgroupid) < BTRFS_FIRST_FREE_OBJECTID)
		vc_fs_set_error(fs, "qgroup %s is not a subvolume's group, and the kernel keeps "
				"it while tree %" PRIu64 " exists", qb,
				btrfs_qgroup_subvolid(qgroupid));
	else if (btrfs_qgroup_level(qgroupid) == 0)
		vc_fs_set_error(fs, "qgroup %s belongs to subvolume %" PRIu64 ", which still "
				"exists or is still being cleaned (or is a simple-quota space "
				"holder)", qb, btrfs_qgroup_subvolid(qgroupid));
	else
		vc_fs_set_error(fs, "qgroup %s is busy: %s", qb, strerror(EBUSY));
}

int online_qgroup_destroy(struct vc_fs *fs, u64 qgroupid)
{
	struct btrfs_ioctl_qgroup_create_args args = { .create = 0, .qgroupid = qgroupid };
	char qb[QGID_BUFSIZE];
	int ret;

	vc_fs_clear_error(fs);
	ret = qioctl(fs, BTRFS_IOC_QGROUP_CREATE, &args);
	if (ret >= 0)
		return 0;
	if (common_error(fs, ret))
		return ret;
	qgid_str(qgroupid, qb);
	if (ret == -ENOENT)
		vc_fs_set_error(fs, "qgroup %s does not exist", qb);
	else if (ret == -EBUSY)
		explain_destroy_busy(fs, qgroupid);
	else if (ret == -EINVAL && !qgroupid)
		vc_fs_set_error(fs, "qgroup 0/0 is not a valid qgroup");
	else
		vc_fs_set_error(fs, "qgroup %s: cannot destroy: %s", qb, strerror(-ret));
	return ret;
}

int online_qgroup_assign(struct vc_fs *fs, u64 src, u64 dst, bool assign)
{
	struct btrfs_ioctl_qgroup_assign_args args = { .assign = assign, .src = src, .dst = dst };
	char sb[QGID_BUFSIZE], db[QGID_BUFSIZE];
	int ret;

	vc_fs_clear_error(fs);
	ret = qioctl(fs, BTRFS_IOC_QGROUP_ASSIGN, &args);
	if (ret >= 0)
		return ret > 0 ? 1 : 0;
	if (common_error(fs, ret))
		return ret;
	qgid_str(src, sb);
	qgid_str(dst, db);
	if (btrfs_qgroup_level(src) >= btrfs_qgroup_level(dst))
		vc_fs_set_error(fs, "cannot %s %s %s %s: the parent's level must be higher",
				assign ? "assign" : "remove", sb, assign ? "to" : "from", db);
	else if (ret == -EEXIST)
		vc_fs_set_error(fs, "qgroup %s is already a member of %s", sb, db);
	else if ((ret == -EINVAL || ret == -ENOENT) &&
		 (report_missing(fs, src) || report_missing(fs, dst)))
		; /* message set */
	else if (ret == -ENOENT && !assign)
		vc_fs_set_error(fs, "qgroup %s is not a member of %s", sb, db);
	else if (ret == -ENOMEM)
		vc_fs_set_error(fs, "cannot %s %s %s %s: out of memory",
				assign ? "assign" : "remove", sb, assign ? "to" : "from", db);
	else
		vc_fs_set_error(fs, "cannot %s %s %s %s: %s", assign ? "assign" : "remove", sb,
				assign ? "to" : "from", db, strerror(-ret));
	return ret;
}

/* fsid and subvolume of the directory @fd; 0 or -errno */
static int fd_identity(int fd, u8 fsid[BTRFS_FSID_SIZE], u64 *subvolid)
{
	struct btrfs_ioctl_fs_info_args fi = { 0 };
	struct btrfs_ioctl_ino_lookup_args il = { .treeid = 0,
						   .objectid = BTRFS_FIRST_FREE_OBJECTID };

	if (ioctl(fd, BTRFS_IOC_FS_INFO, &fi) < 0 || ioctl(fd, BTRFS_IOC_INO_LOOKUP, &il) < 0)
		return -errno;
	memcpy(fsid, fi.fsid, BTRFS_FSID_SIZE);
	*subvolid = il.treeid;
	return 0;
}

/*
 * QGROUP_LIMIT runs a transaction that reserves space in the subvolume of the
 * fd, so the kernel answers EDQUOT when that subvolume is over its quota, even
 * for "limit none" (btrfs-progs just fails).  Retry from the nearest ancestor
 * directory in another subvolume of the same filesystem.  Returns the ioctl's
 * result there, or -EDQUOT when there is no such directory.
 */
static int limit_from_elsewhere(struct vc_fs *fs, struct btrfs_ioctl_qgroup_limit_args *args)
{
	u8 fsid[BTRFS_FSID_SIZE], other_fsid[BTRFS_FSID_SIZE];
	u64 subvolid, other;
	int ret = -EDQUOT;
	char *path, *slash;

	if (fd_identity(fs->fd, fsid, &subvolid))
		return -EDQUOT;
	path = realpath(fs->path, NULL);
	if (!path)
		return -EDQUOT;
	for (int depth = 0; depth < 256; depth++) {
		int fd;

		slash = strrchr(path, '/');
		if (!slash || slash == path) {
			if (!strcmp(path, "/"))
				break;
			path[1] = '\0';	/* try "/" last */
		} else {
			*slash = '\0';
		}
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			break;
		if (fd_identity(fd, other_fsid, &other) ||
		    memcmp(fsid, other_fsid, BTRFS_FSID_SIZE)) {
			close(fd);
			break;		/* left the filesystem */
		}
		if (other != subvolid) {
			ret = ioctl(fd, BTRFS_IOC_QGROUP_LIMIT, args) < 0 ? -errno : 0;
			subvolid = other;
		}
		close(fd);
		if (ret != -EDQUOT)
			break;
	}
	free(path);
	return ret;
}

int online_qgroup_limit(struct vc_fs *fs, u64 qgroupid, u64 flags, u64 max_rfer, u64 max_excl)
{
	struct btrfs_ioctl_qgroup_limit_args args = { .qgroupid = qgroupid };
	char qb[QGID_BUFSIZE];
	int ret;

	args.lim.flags = flags;
	args.lim.max_rfer = max_rfer;
	args.lim.max_excl = max_excl;
	vc_fs_clear_error(fs);
	ret = qioctl(fs, BTRFS_IOC_QGROUP_LIMIT, &args);
	if (ret == -EDQUOT && qgroupid)
		ret = limit_from_elsewhere(fs, &args);
	if (ret >= 0)
		return 0;
	if (common_error(fs, ret))
		return ret;
	qgid_str(qgroupid, qb);
	if (ret == -ENOENT)
		vc_fs_set_error(fs, "qgroup %s does not exist", qb);
	else if (ret == -EDQUOT)
		vc_fs_set_error(fs, "qgroup %s: the kernel refused the change because %s lies in "
				"a subvolume that is over its quota, and no directory of another "
				"subvolume of this filesystem is reachable above it; run the "
				"command on a path in another subvolume", qb, fs->path);
	else
		vc_fs_set_error(fs, "qgroup %s: cannot set the limit: %s", qb, strerror(-ret));
	return ret;
}

/* ---- the kernel's live state in sysfs ---- */

/* First line of /sys/fs/btrfs/<fsid>/<name>, trailing whitespace cut; -errno */
static int sysfs_read(const char *dir, const char *name, char *buf, size_t size)
{
	char path[PATH_MAX];
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!fgets(buf, (int)size, f))
		buf[0] = '\0';
	fclose(f);
	len = strlen(buf);
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	return 0;
}

/* /sys/fs/btrfs/<fsid>, the kernel's directory of the filesystem of @fs */
static int sysfs_fs_dir(struct vc_fs *fs, char *dir, size_t size)
{
	struct btrfs_ioctl_fs_info_args fi = { 0 };
	char fsid[37];
	int ret = qioctl(fs, BTRFS_IOC_FS_INFO, &fi);

	if (ret < 0)
		return ret;
	uuid_unparse_lower(fi.fsid, fsid);
	snprintf(dir, size, "/sys/fs/btrfs/%s", fsid);
	return 0;
}

/*
 * /sys/fs/btrfs/<fsid>/qgroups/ exists while quotas are on; mode,
 * inconsistent and drop_subtree_threshold live there, quota_override one
 * level up, and one directory L_ID per qgroup.  All world-readable: this is
 * how btrfs-progs' quota status works without privilege.
 */
int online_quota_runtime(struct vc_fs *fs, struct vc_quota_runtime *rt)
{
	char dir[96], qdir[112], buf[64];
	struct dirent *de;
	DIR *d;
	int ret;

	memset(rt, 0, sizeof(*rt));
	rt->drop_threshold = -1;
	ret = sysfs_fs_dir(fs, dir, sizeof(dir));
	if (ret < 0)
		return ret;
	snprintf(qdir, sizeof(qdir), "%s/qgroups", dir);
	d = opendir(qdir);
	if (!d) {
		ret = -errno;
		if (ret != -ENOENT)
			return ret;
		return access(dir, F_OK) ? -ENOENT : 0;	/* no qgroups/: disabled */
	}
	rt->enabled = true;
	while ((de = readdir(d))) {
		unsigned long level;
		char *end;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		level = strtoul(de->d_name, &end, 10);
		if (*end != '_')
			continue;
		rt->total++;
		rt->levels[level < VC_QUOTA_MAX_LEVELS ? level : VC_QUOTA_MAX_LEVELS - 1]++;
	}
	closedir(d);
	if (!sysfs_read(qdir, "mode", buf, sizeof(buf)))
		rt->simple = !strcmp(buf, "squota");
	if (!sysfs_read(qdir, "inconsistent", buf, sizeof(buf)))
		rt->inconsistent = atoi(buf) != 0;
	if (!sysfs_read(qdir, "drop_subtree_threshold", buf, sizeof(buf)))
		rt->drop_threshold = atoll(buf);
	if (!sysfs_read(dir, "quota_override", buf, sizeof(buf)))
		rt->override_limits = atoi(buf) != 0;
	return 0;
}

/* A number from sysfs; -errno, -EINVAL when it is not one */
static int sysfs_u64(const char *dir, const char *name, u64 *val)
{
	char buf[32], *end;
	int ret = sysfs_read(dir, name, buf, sizeof(buf));

	if (ret)
		return ret;
	errno = 0;
	*val = strtoull(buf, &end, 10);
	return errno || end == buf || *end ? -EINVAL : 0;
}

/* /sys/fs/btrfs/<fsid>/qgroups/<level>_<id>/rsv_{data,meta_pertrans,meta_prealloc} */
int online_qgroup_reserved(struct vc_fs *fs, u64 qgroupid, struct vc_qgroup_rsv *rsv)
{
	char fsdir[96], dir[160];
	int ret;

	memset(rsv, 0, sizeof(*rsv));
	ret = sysfs_fs_dir(fs, fsdir, sizeof(fsdir));
	if (ret < 0)
		return ret;
	snprintf(dir, sizeof(dir), "%s/qgroups/%llu_%llu", fsdir,
		 (unsigned long long)btrfs_qgroup_level(qgroupid),
		 (unsigned long long)(qgroupid & ((1ULL << BTRFS_QGROUP_LEVEL_SHIFT) - 1)));
	ret = sysfs_u64(dir, "rsv_data", &rsv->data);
	if (!ret)
		ret = sysfs_u64(dir, "rsv_meta_pertrans", &rsv->meta_pertrans);
	if (!ret)
		ret = sysfs_u64(dir, "rsv_meta_prealloc", &rsv->meta_prealloc);
	return ret;
}

int online_block_sizes(struct vc_fs *fs, u32 *sectorsize, u32 *nodesize)
{
	struct btrfs_ioctl_fs_info_args fi = { 0 };
	int ret = qioctl(fs, BTRFS_IOC_FS_INFO, &fi);

	if (ret < 0)
		return ret;
	*sectorsize = fi.sectorsize;
	*nodesize = fi.nodesize;
	return 0;
}
