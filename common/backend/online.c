// SPDX-License-Identifier: GPL-2.0-only
/*
 * The online backend: Btrfs ioctls on a mounted filesystem.
 *
 * Owns the file descriptors and every ioctl volctl issues for subvolumes
 * (the quota and qgroup ioctls live in common/backend/online-qgroup.c).  Reads go
 * through BTRFS_IOC_TREE_SEARCH_V2 with one reusable buffer that grows on
 * EOVERFLOW; the item decoders in kernel-shared/ do the rest, exactly as for
 * the offline backend.
 *
 * Errors: every op returns 0 or -errno and, where the errno alone would be
 * vague, leaves a specific one-line reason in fs->base.err naming the object
 * ("a/b: subvolume contains other subvolumes (use -R)").
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/btrfs.h>
#include <linux/magic.h>
#include <libmount.h>
#include <uuid/uuid.h>
#include "common/backend/online-internal.h"
#include "common/util/path-utils.h"

/* Linux 6.13+; older uapi headers lack it */
#ifndef BTRFS_IOC_SUBVOL_SYNC_WAIT
struct btrfs_ioctl_subvol_wait {
	__u64 subvolid;
	__u32 mode;
	__u32 count;
};
#define BTRFS_SUBVOL_SYNC_WAIT_FOR_ONE		0
#define BTRFS_IOC_SUBVOL_SYNC_WAIT _IOW(BTRFS_IOCTL_MAGIC, 65, struct btrfs_ioctl_subvol_wait)
#endif

#define SEARCH_BUF_INITIAL	(256 * 1024)
#define SEARCH_BUF_MAX		(16 * 1024 * 1024)

int online_ioctl_fd(int fd, unsigned long request, void *arg)
{
	int ret = ioctl(fd, request, arg);

	return ret < 0 ? -errno : ret;
}

int online_ioctl(struct vc_fs *fs, unsigned long request, void *arg)
{
	return online_ioctl_fd(fs->fd, request, arg);
}

/* ------------------------------------------------------------------ */
/* open / close                                                        */
/* ------------------------------------------------------------------ */

/* An O_RDONLY directory fd on @path, or on its parent for a non-directory. */
static int open_dir_of(const char *path, bool is_dir)
{
	char *dir;
	int fd;

	if (is_dir)
		return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dir = path_dirname(path);
	if (!dir) {
		errno = ENOMEM;
		return -1;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	return fd;
}

static int online_open(struct vc_fs **fsp, const struct vc_config *cfg, const char *path,
		       bool writable)
{
	struct vc_fs *fs;
	struct statfs sfs;
	struct stat st;
	int ret = 0;

	*fsp = NULL;
	fs = calloc(1, sizeof(*fs));
	if (!fs)
		return -ENOMEM;
	fs->base.ops = &vc_online_ops;
	fs->base.cfg = cfg;
	fs->fd = -1;
	fs->path = strdup(path);
	if (!fs->path) {
		free(fs);
		return -ENOMEM;
	}
	/* On failure the fs is still handed back, carrying the message. */
	*fsp = fs;
	if (stat(path, &st) < 0) {
		ret = -errno;
		vc_fs_set_error(fs, "%s: %s", path, strerror(errno));
		return ret;
	}
	if (statfs(path, &sfs) < 0) {
		ret = -errno;
		vc_fs_set_error(fs, "%s: %s", path, strerror(errno));
		return ret;
	}
	if (sfs.f_type != BTRFS_SUPER_MAGIC) {
		vc_fs_set_error(fs, "%s: not a btrfs filesystem", path);
		return -EMEDIUMTYPE;
	}
	fs->fd = open_dir_of(path, S_ISDIR(st.st_mode));
	if (fs->fd < 0) {
		ret = -errno;
		vc_fs_set_error(fs, "%s: cannot open: %s", path, strerror(errno));
		return ret;
	}
	return 0;
}

static void online_close(struct vc_fs *fs)
{
	if (!fs)
		return;
	free(fs->mnt_target);
	free(fs->mnt_root);
	if (fs->fd >= 0)
		close(fs->fd);
	free(fs->search_buf);
	free(fs->path);
	free(fs);
}

/* ------------------------------------------------------------------ */
/* TREE_SEARCH_V2                                                      */
/* ------------------------------------------------------------------ */

static int search_buf_reserve(struct vc_fs *fs, size_t size)
{
	void *n;

	if (fs->search_buf_size >= size)
		return 0;
	n = realloc(fs->search_buf, size);
	if (!n)
		return -ENOMEM;
	fs->search_buf = n;
	fs->search_buf_size = size;
	return 0;
}

/* The key after @k, false when @k is the last possible key. */
static bool key_advance(struct btrfs_key *k)
{
	if (k->offset != (u64)-1) {
		k->offset++;
		return true;
	}
	k->offset = 0;
	if (k->type != (u8)-1) {
		k->type++;
		return true;
	}
	k->type = 0;
	if (k->objectid != (u64)-1) {
		k->objectid++;
		return true;
	}
	return false;
}

static int search_error(struct vc_fs *fs, u64 tree_id, int ret)
{
	if (ret == -EPERM)
		vc_fs_set_error(fs, "%s: searching the filesystem trees needs CAP_SYS_ADMIN",
				fs->path);
	else if (ret != -ENOENT)
		vc_fs_set_error(fs, "%s: cannot search tree %llu: %s", fs->path,
				(unsigned long long)tree_id, strerror(-ret));
	return ret;
}

/* One ioctl from @cur to @max; returns items found (0: end), or -errno. */
static int search_once(struct vc_fs *fs, u64 tree_id, const struct btrfs_key *cur,
		       const struct btrfs_key *max)
{
	struct btrfs_ioctl_search_args_v2 *args;
	int ret;

	for (;;) {
		args = fs->search_buf;
		memset(&args->key, 0, sizeof(args->key));
		args->key.tree_id = tree_id;
		args->key.min_objectid = cur->objectid;
		args->key.min_type = cur->type;
		args->key.min_offset = cur->offset;
		args->key.max_objectid = max->objectid;
		args->key.max_type = max->type;
		args->key.max_offset = max->offset;
		args->key.min_transid = 0;
		args->key.max_transid = (u64)-1;
		args->key.nr_items = UINT_MAX;
		args->buf_size = fs->search_buf_size - sizeof(*args);
		ret = online_ioctl(fs, BTRFS_IOC_TREE_SEARCH_V2, args);
		if (ret != -EOVERFLOW)
			break;
		/* one item does not fit: buf_size now says how much it needs */
		if (args->buf_size + sizeof(*args) > SEARCH_BUF_MAX ||
		    args->buf_size + sizeof(*args) <= fs->search_buf_size)
			return -EOVERFLOW;
		ret = search_buf_reserve(fs, args->buf_size + sizeof(*args));
		if (ret)
			return ret;
	}
	if (ret < 0)
		return ret;
	return (int)((struct btrfs_ioctl_search_args_v2 *)fs->search_buf)->key.nr_items;
}

static int online_tree_search(struct vc_fs *fs, u64 tree_id, const struct btrfs_key *min,
			      const struct btrfs_key *max, btrfs_item_cb cb, void *priv)
{
	struct btrfs_key cur = *min;
	int ret, nr;

	ret = search_buf_reserve(fs, SEARCH_BUF_INITIAL);
	if (ret)
		return ret;
	while (btrfs_key_cmp(&cur, max) <= 0) {
		const u8 *buf;
		size_t off = 0, end;

		nr = search_once(fs, tree_id, &cur, max);
		if (nr < 0)
			return search_error(fs, tree_id, nr);
		if (nr == 0)
			return 0;
		buf = ((struct btrfs_ioctl_search_args_v2 *)fs->search_buf)->buf;
		end = fs->search_buf_size - sizeof(struct btrfs_ioctl_search_args_v2);
		for (int i = 0; i < nr; i++) {
			struct btrfs_ioctl_search_header sh;

			if (off + sizeof(sh) > end)
				return -EUCLEAN;
			memcpy(&sh, buf + off, sizeof(sh));
			off += sizeof(sh);
			if (off + sh.len > end)
				return -EUCLEAN;
			cur.objectid = sh.objectid;
			cur.type = (u8)sh.type;
			cur.offset = sh.offset;
			ret = cb(priv, &cur, buf + off, sh.len);
			if (ret)
				return ret < 0 ? ret : 0;
			off += sh.len;
		}
		if (!key_advance(&cur))
			return 0;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* path info                                                           */
/* ------------------------------------------------------------------ */

/* Id of the subvolume holding the inode @fd is open on. */
static int fd_subvolid(int fd, u64 *id)
{
	struct btrfs_ioctl_ino_lookup_args args;
	int ret;

	memset(&args, 0, sizeof(args));
	args.treeid = 0;
	args.objectid = BTRFS_FIRST_FREE_OBJECTID;
	ret = online_ioctl_fd(fd, BTRFS_IOC_INO_LOOKUP, &args);
	if (ret < 0)
		return ret;
	*id = args.treeid;
	return 0;
}

static int fd_fsid(int fd, u8 fsid[BTRFS_FSID_SIZE])
{
	struct btrfs_ioctl_fs_info_args fi;
	int ret;

	memset(&fi, 0, sizeof(fi));
	ret = online_ioctl_fd(fd, BTRFS_IOC_FS_INFO, &fi);
	if (ret < 0)
		return ret;
	memcpy(fsid, fi.fsid, BTRFS_FSID_SIZE);
	return 0;
}

/*
 * A path given beside the one the filesystem was opened with (another
 * subvolume of a set, a path-form qgroup id, -i) must be on that same
 * filesystem: ids resolved on another one would name other subvolumes.
 */
static int same_fs(struct vc_fs *fs, int fd, const char *path)
{
	u8 mine[BTRFS_FSID_SIZE], theirs[BTRFS_FSID_SIZE];
	char a[37], b[37];
	int ret;

	ret = fd_fsid(fs->fd, mine);
	if (!ret)
		ret = fd_fsid(fd, theirs);
	if (ret) {
		vc_fs_set_error(fs, "%s: cannot read the filesystem id: %s", path, strerror(-ret));
		return ret;
	}
	if (!memcmp(mine, theirs, BTRFS_FSID_SIZE))
		return 0;
	uuid_unparse_lower(theirs, a);
	uuid_unparse_lower(mine, b);
	vc_fs_set_error(fs, "%s: on another filesystem (fsid %s) than %s (fsid %s)", path, a,
			fs->path, b);
	return -EXDEV;
}

static int online_path_info(struct vc_fs *fs, const char *path, struct vc_path_info *info)
{
	struct statfs sfs;
	struct stat st;
	int fd, ret;

	memset(info, 0, sizeof(*info));
	if (stat(path, &st) < 0 || statfs(path, &sfs) < 0) {
		ret = -errno;
		vc_fs_set_error(fs, "%s: %s", path, strerror(errno));
		return ret;
	}
	if (sfs.f_type != BTRFS_SUPER_MAGIC) {
		vc_fs_set_error(fs, "%s: not a btrfs filesystem", path);
		return -EMEDIUMTYPE;
	}
	info->ino = st.st_ino;
	info->is_dir = S_ISDIR(st.st_mode);
	info->is_subvol_root = info->is_dir && st.st_ino == BTRFS_FIRST_FREE_OBJECTID;
	fd = open_dir_of(path, info->is_dir);
	if (fd < 0) {
		ret = -errno;
		vc_fs_set_error(fs, "%s: cannot open: %s", path, strerror(errno));
		return ret;
	}
	ret = same_fs(fs, fd, path);
	if (ret) {
		close(fd);
		return ret;
	}
	ret = fd_subvolid(fd, &info->subvolid);
	close(fd);
	if (ret)
		vc_fs_set_error(fs, "%s: cannot look up its subvolume: %s", path, strerror(-ret));
	return ret;
}

/* ------------------------------------------------------------------ */
/* absolute paths                                                      */
/* ------------------------------------------------------------------ */

/* The mount point holding fs->path and the part of the filesystem mounted there. */
static void mount_probe(struct vc_fs *fs)
{
	struct libmnt_table *tb;
	struct libmnt_fs *mfs = NULL;
	char *real;

	fs->mnt_probed = true;
	real = realpath(fs->path, NULL);
	tb = real ? mnt_new_table_from_file("/proc/self/mountinfo") : NULL;
	/*
	 * From the table, not from st_dev changes: every subvolume root has
	 * its own st_dev and would pass for a mount point.  Backward: the
	 * last one mounted on a target is the one seen.
	 */
	if (tb)
		mfs = mnt_table_find_mountpoint(tb, real, MNT_ITER_BACKWARD);
	if (mfs && mnt_fs_get_root(mfs) && mnt_fs_get_target(mfs) &&
	    !strcmp(mnt_fs_get_fstype(mfs) ?: "", "btrfs")) {
		fs->mnt_root = strdup(mnt_fs_get_root(mfs));
		fs->mnt_target = strdup(mnt_fs_get_target(mfs));
	}
	free(real);
	mnt_unref_table(tb);
}

static char *online_absolute_path(struct vc_fs *fs, const char *tl_path)
{
	const char *root, *rest;
	size_t len;
	char *out;

	if (!fs->mnt_probed)
		mount_probe(fs);
	if (!fs->mnt_target || !fs->mnt_root || !tl_path)
		return NULL;
	/* mountinfo's root is the path from the top level, "/" for all of it */
	root = fs->mnt_root + strspn(fs->mnt_root, "/");
	len = strlen(root);
	if (!len)
		rest = tl_path;
	else if (!strncmp(tl_path, root, len) && (!tl_path[len] || tl_path[len] == '/'))
		rest = tl_path + len + strspn(tl_path + len, "/");
	else
		return NULL;	/* outside what is mounted there */
	if (!*rest)
		return strdup(fs->mnt_target);
	if (asprintf(&out, "%s%s%s", fs->mnt_target,
		     fs->mnt_target[strlen(fs->mnt_target) - 1] == '/' ? "" : "/", rest) < 0)
		return NULL;
	return out;
}

/* ------------------------------------------------------------------ */
/* create, snapshot                                                    */
/* ------------------------------------------------------------------ */

/* Split @path into an open parent directory fd and a copy of the last component. */
static int open_parent(struct vc_fs *fs, const char *path, int *dirfd, char **name)
{
	char *dir = path_dirname(path);
	int ret;

	*name = path_basename(path);
	if (!dir || !*name) {
		free(dir);
		free(*name);
		*name = NULL;
		return -ENOMEM;
	}
	*dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*dirfd < 0) {
		ret = -errno;
		vc_fs_set_error(fs, "%s: %s", dir, strerror(errno));
		free(dir);
		free(*name);
		*name = NULL;
		return ret;
	}
	free(dir);
	return 0;
}

static struct btrfs_qgroup_inherit *inherit_build(const struct vc_inherit *inh, size_t *size)
{
	struct btrfs_qgroup_inherit *qi;

	*size = sizeof(*qi) + inh->nr * sizeof(__u64);
	qi = calloc(1, *size);
	if (!qi)
		return NULL;
	qi->num_qgroups = inh->nr;
	memcpy(qi->qgroups, inh->qgroups, inh->nr * sizeof(__u64));
	return qi;
}

static int found_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	*(bool *)priv = true;
	return 1;
}

/* Which -i qgroup is missing: looked up in the quota tree. */
static void inherit_missing_error(struct vc_fs *fs, const struct vc_inherit *inh)
{
	for (size_t i = 0; i < inh->nr; i++) {
		struct btrfs_key k = { 0, BTRFS_QGROUP_INFO_KEY, inh->qgroups[i] };
		bool found = false;

		if (online_tree_search(fs, BTRFS_QUOTA_TREE_OBJECTID, &k, &k,
				       found_cb, &found) == 0 && !found) {
			vc_fs_set_error(fs, "qgroup %llu/%llu does not exist",
					(unsigned long long)(inh->qgroups[i] >> 48),
					(unsigned long long)(inh->qgroups[i] & ((1ULL << 48) - 1)));
			return;
		}
	}
	vc_fs_set_error(fs, "a qgroup given with -i does not exist");
}

/* Words for a failed create or snapshot of @path. */
static int create_error(struct vc_fs *fs, const char *path, const char *src,
			const struct vc_inherit *inh, int ret)
{
	switch (ret) {
	case -EEXIST:
		vc_fs_set_error(fs, "%s: already exists", path);
		break;
	case -ENAMETOOLONG:
		vc_fs_set_error(fs, "%s: name longer than 255 bytes", path);
		break;
	case -ENOENT:
		if (inh && inh->nr)
			inherit_missing_error(fs, inh);
		else
			vc_fs_set_error(fs, "%s: parent directory does not exist", path);
		break;
	case -EROFS:
		vc_fs_set_error(fs, "%s: read-only filesystem or subvolume", path);
		break;
	case -EDQUOT:
		vc_fs_set_error(fs, "%s: disk quota exceeded", path);
		break;
	case -EXDEV:
		vc_fs_set_error(fs, "%s: not on the same filesystem as %s", src ? src : path,
				path);
		break;
	case -EPERM:
	case -EACCES:
		if (src)
			vc_fs_set_error(fs, "%s: snapshot not permitted (only the owner of %s "
					"or CAP_SYS_ADMIN)", path, src);
		else
			vc_fs_set_error(fs, "%s: permission denied", path);
		break;
	case -ETXTBSY:
		vc_fs_set_error(fs, "%s: holds an active swapfile", src ? src : path);
		break;
	case -EINVAL:
		if (inh && inh->nr) {
			vc_fs_set_error(fs, "%s: the -i qgroups cannot take it as a member "
					"(level-0 qgroups cannot be parents)", path);
			break;
		}
		if (src) {
			vc_fs_set_error(fs, "%s: not a subvolume", src);
			break;
		}
		/* fallthrough */
	default:
		vc_fs_set_error(fs, "%s: cannot create %s: %s", path,
				src ? "snapshot" : "subvolume", strerror(-ret));
	}
	return ret;
}

static int create_common(struct vc_fs *fs, const char *path, int srcfd, const char *src,
			 bool readonly, const struct vc_inherit *inh)
{
	struct btrfs_ioctl_vol_args_v2 args;
	struct btrfs_qgroup_inherit *qi = NULL;
	char *name = NULL;
	size_t qsize = 0;
	int dirfd, ret;

	ret = open_parent(fs, path, &dirfd, &name);
	if (ret)
		return ret;
	memset(&args, 0, sizeof(args));
	if (strlen(name) > BTRFS_SUBVOL_NAME_MAX) {
		ret = create_error(fs, path, src, inh, -ENAMETOOLONG);
		goto out;
	}
	strcpy(args.name, name);
	if (inh && inh->nr) {
		qi = inherit_build(inh, &qsize);
		if (!qi) {
			ret = -ENOMEM;
			goto out;
		}
		args.flags |= BTRFS_SUBVOL_QGROUP_INHERIT;
		args.size = qsize;
		args.qgroup_inherit = qi;
	}
	if (srcfd >= 0) {
		args.fd = srcfd;
		if (readonly)
			args.flags |= BTRFS_SUBVOL_RDONLY;
		ret = online_ioctl_fd(dirfd, BTRFS_IOC_SNAP_CREATE_V2, &args);
	} else {
		ret = online_ioctl_fd(dirfd, BTRFS_IOC_SUBVOL_CREATE_V2, &args);
	}
	if (ret < 0)
		create_error(fs, path, src, inh, ret);
	else
		ret = 0;
out:
	close(dirfd);
	free(qi);
	free(name);
	return ret;
}

static int online_subvol_create(struct vc_fs *fs, const char *path, bool parents,
				const struct vc_inherit *inh)
{
	(void)parents;	/* the command ran mkdir -p before opening the directory */
	vc_fs_clear_error(fs);
	return create_common(fs, path, -1, NULL, false, inh);
}

static int online_snapshot(struct vc_fs *fs, const char *src, const char *dst, bool readonly,
			   const struct vc_inherit *inh)
{
	int srcfd, ret;

	vc_fs_clear_error(fs);
	srcfd = open(src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (srcfd < 0) {
		ret = -errno;
		vc_fs_set_error(fs, "%s: %s", src, strerror(errno));
		return ret;
	}
	ret = create_common(fs, dst, srcfd, src, readonly, inh);
	close(srcfd);
	return ret;
}

/* ------------------------------------------------------------------ */
/* delete                                                              */
/* ------------------------------------------------------------------ */

/* @path: the one the delete was given (NULL: by id @id) */
static int delete_error(struct vc_fs *fs, const char *what, const char *path, u64 id, int ret)
{
	switch (ret) {
	case -ENOTEMPTY:
		vc_fs_set_error(fs, "%s: subvolume contains other subvolumes (use -R)", what);
		break;
	case -EPERM:
	case -EACCES:
		return online_delete_refused(fs, what, path, id, ret);
	case -ENOENT:
		vc_fs_set_error(fs, "%s: no such subvolume", what);
		break;
	case -EINVAL:
		vc_fs_set_error(fs, "%s: not a subvolume", what);
		break;
	case -EROFS:
		vc_fs_set_error(fs, "%s: read-only filesystem", what);
		break;
	case -EBUSY:
		vc_fs_set_error(fs, "%s: subvolume is busy (mounted?)", what);
		break;
	default:
		vc_fs_set_error(fs, "%s: cannot delete: %s", what, strerror(-ret));
	}
	return ret;
}

static int delete_by_id(struct vc_fs *fs, u64 subvolid)
{
	struct btrfs_ioctl_vol_args_v2 args;
	char what[64];
	int ret;

	memset(&args, 0, sizeof(args));
	args.flags = BTRFS_SUBVOL_SPEC_BY_ID;
	args.subvolid = subvolid;
	ret = online_ioctl(fs, BTRFS_IOC_SNAP_DESTROY_V2, &args);
	if (ret >= 0)
		return 0;
	snprintf(what, sizeof(what), "subvolume %llu", (unsigned long long)subvolid);
	if (ret == -ENOTTY || ret == -EOPNOTSUPP) {
		vc_fs_set_error(fs, "%s: deleting by id needs Linux 5.7 or newer", what);
		return ret;
	}
	return delete_error(fs, what, NULL, subvolid, ret);
}

static int online_subvol_delete(struct vc_fs *fs, const char *path, u64 subvolid)
{
	struct btrfs_ioctl_vol_args_v2 args;
	char *real, *name = NULL;
	int dirfd, ret;

	vc_fs_clear_error(fs);
	if (subvolid)
		return delete_by_id(fs, subvolid);
	/* the real path, so that "a/." or "a/.." never reach the kernel as names */
	real = realpath(path, NULL);
	if (!real) {
		ret = -errno;
		vc_fs_set_error(fs, "%s: %s", path, strerror(errno));
		return ret;
	}
	ret = open_parent(fs, real, &dirfd, &name);
	if (ret)
		goto out;
	memset(&args, 0, sizeof(args));
	snprintf(args.name, sizeof(args.name), "%s", name);
	ret = online_ioctl_fd(dirfd, BTRFS_IOC_SNAP_DESTROY_V2, &args);
	if (ret == -ENOTTY) {
		struct btrfs_ioctl_vol_args v1;

		memset(&v1, 0, sizeof(v1));
		snprintf(v1.name, sizeof(v1.name), "%s", name);
		ret = online_ioctl_fd(dirfd, BTRFS_IOC_SNAP_DESTROY, &v1);
	}
	close(dirfd);
	if (ret < 0)
		delete_error(fs, path, path, 0, ret);
	else
		ret = 0;
out:
	free(name);
	free(real);
	return ret;
}

/* ------------------------------------------------------------------ */
/* default, commit, waiting for the cleaner                            */
/* ------------------------------------------------------------------ */

static int online_set_default(struct vc_fs *fs, u64 subvolid)
{
	__u64 id = subvolid;
	int ret;

	vc_fs_clear_error(fs);
	ret = online_ioctl(fs, BTRFS_IOC_DEFAULT_SUBVOL, &id);
	if (ret >= 0)
		return 0;
	if (ret == -ENOENT)
		vc_fs_set_error(fs, "subvolume %llu does not exist", (unsigned long long)subvolid);
	else if (ret == -EPERM)
		vc_fs_set_error(fs, "%s: setting the default subvolume needs CAP_SYS_ADMIN",
				fs->path);
	else
		vc_fs_set_error(fs, "%s: cannot set the default subvolume: %s", fs->path,
				strerror(-ret));
	return ret;
}

static int online_commit(struct vc_fs *fs, bool wait)
{
	__u64 transid = 0;
	int ret;

	vc_fs_clear_error(fs);
	ret = online_ioctl(fs, BTRFS_IOC_START_SYNC, &transid);
	if (ret >= 0 && wait)
		ret = online_ioctl(fs, BTRFS_IOC_WAIT_SYNC, &transid);
	if (ret >= 0)
		return 0;
	vc_fs_set_error(fs, "%s: cannot commit the transaction: %s", fs->path, strerror(-ret));
	return ret;
}

/*
 * BTRFS_IOC_SYNC starts writeback of all dirty data, waits for it and
 * commits; syncfs() does the same through the VFS where the ioctl is
 * refused (it never is on Linux 3.x and later, but costs nothing to allow).
 */
static int online_sync(struct vc_fs *fs)
{
	int ret;

	vc_fs_clear_error(fs);
	ret = online_ioctl(fs, BTRFS_IOC_SYNC, NULL);
	if (ret == -ENOTTY || ret == -EINVAL)
		ret = syncfs(fs->fd) < 0 ? -errno : 0;
	if (ret >= 0)
		return 0;
	vc_fs_set_error(fs, "%s: cannot sync the filesystem: %s", fs->path, strerror(-ret));
	return ret;
}

struct root_probe {
	bool found;		/* ROOT_ITEM present */
	bool linked;		/* ROOT_BACKREF present: not deleted */
};

static int root_item_cb(void *priv, const struct btrfs_key *key, const void *data, u32 len)
{
	struct root_probe *p = priv;

	if (key->type == BTRFS_ROOT_ITEM_KEY)
		p->found = true;
	else if (key->type == BTRFS_ROOT_BACKREF_KEY)
		p->linked = true;
	return 0;
}

static int root_probe(struct vc_fs *fs, u64 subvolid, struct root_probe *p)
{
	struct btrfs_key min = { subvolid, BTRFS_ROOT_ITEM_KEY, 0 };
	struct btrfs_key max = { subvolid, BTRFS_ROOT_BACKREF_KEY, (u64)-1 };

	/*
	 * Not the refs of the ROOT_ITEM: the deletion updates it only at
	 * commit, while it removes the ROOT_BACKREF at once.
	 */
	memset(p, 0, sizeof(*p));
	return online_tree_search(fs, BTRFS_ROOT_TREE_OBJECTID, &min, &max, root_item_cb, p);
}

static int wait_poll(struct vc_fs *fs, u64 subvolid, int sleep_seconds)
{
	struct root_probe p;
	int ret;

	for (;;) {
		ret = root_probe(fs, subvolid, &p);
		if (ret)
			return ret;
		if (!p.found)
			return 0;
		if (p.linked) {
			vc_fs_set_error(fs, "subvolume %llu is not deleted",
					(unsigned long long)subvolid);
			return -EEXIST;
		}
		sleep(sleep_seconds > 0 ? (unsigned int)sleep_seconds : 1);
	}
}

/*
 * The cleaner drops deleted subvolumes when the transaction kthread wakes it,
 * which happens every commit interval (30 s by default).  BTRFS_IOC_SYNC
 * writes dirty data, commits and then wakes that kthread, so the cleaner
 * starts at once (a bare commit does not wake it).  If it fails, waiting
 * still works, only slower.
 */
static void kick_cleaner(struct vc_fs *fs)
{
	online_ioctl(fs, BTRFS_IOC_SYNC, NULL);
	vc_fs_clear_error(fs);
}

/*
 * Without CAP_SYS_ADMIN the root tree cannot be read, but SUBVOL_SYNC_WAIT
 * (Linux 6.13) needs no privilege.  It cannot tell "cleaned" from "never
 * existed", so an unknown id counts as gone here.
 */
static int wait_unprivileged(struct vc_fs *fs, u64 subvolid)
{
	struct btrfs_ioctl_subvol_wait args;
	int ret;

	kick_cleaner(fs);
	memset(&args, 0, sizeof(args));
	args.subvolid = subvolid;
	args.mode = BTRFS_SUBVOL_SYNC_WAIT_FOR_ONE;
	ret = online_ioctl(fs, BTRFS_IOC_SUBVOL_SYNC_WAIT, &args);
	vc_fs_clear_error(fs);
	if (ret >= 0 || ret == -ENOENT)
		return 0;
	if (ret == -EEXIST)
		vc_fs_set_error(fs, "subvolume %llu is not deleted", (unsigned long long)subvolid);
	else if (ret == -ENOTTY || ret == -EINVAL)
		vc_fs_set_error(fs, "%s: waiting for the cleaner without CAP_SYS_ADMIN needs "
				"Linux 6.13 or newer", fs->path);
	else
		vc_fs_set_error(fs, "waiting for subvolume %llu: %s", (unsigned long long)subvolid,
				strerror(-ret));
	return ret;
}

static int online_wait_cleaned(struct vc_fs *fs, u64 subvolid, int sleep_seconds)
{
	struct btrfs_ioctl_subvol_wait args;
	struct root_probe p;
	int ret;

	vc_fs_clear_error(fs);
	ret = root_probe(fs, subvolid, &p);
	if (ret == -EPERM)
		return wait_unprivileged(fs, subvolid);
	if (ret)
		return ret;
	/* gone: cleaned (ids that were never used are refused by the caller first) */
	if (!p.found)
		return 0;
	if (p.linked) {
		vc_fs_set_error(fs, "subvolume %llu is not deleted", (unsigned long long)subvolid);
		return -EEXIST;
	}
	kick_cleaner(fs);
	memset(&args, 0, sizeof(args));
	args.subvolid = subvolid;
	args.mode = BTRFS_SUBVOL_SYNC_WAIT_FOR_ONE;
	ret = online_ioctl(fs, BTRFS_IOC_SUBVOL_SYNC_WAIT, &args);
	if (ret >= 0)
		return 0;
	if (ret == -EINTR) {
		vc_fs_set_error(fs, "waiting for subvolume %llu: interrupted",
				(unsigned long long)subvolid);
		return ret;
	}
	/* ENOTTY/EINVAL: kernel before 6.13; ENOENT: root not loaded. Poll. */
	return wait_poll(fs, subvolid, sleep_seconds);
}

/*
 * Whether subvolume @subvolid, whose deletion by id the kernel answered
 * with ENOENT, was deleted already: no ROOT_ITEM (cleaned) or no
 * ROOT_BACKREF (unlinked, the cleaner to come).  The kernel's ENOENT
 * means just that (its lookup by id refuses a root with no refs); a root
 * tree that cannot be read leaves it at the kernel's word.
 */
static bool deleted_already(struct vc_fs *fs, u64 subvolid)
{
	struct root_probe p;

	if (root_probe(fs, subvolid, &p))
		return true;
	return !p.found || !p.linked;
}

/*
 * One by one: a refusal is that subvolume's result and the rest go on; one
 * deleted meanwhile (an overlapping prune) is done
 */
static int online_subvol_delete_all(struct vc_fs *fs, const u64 *ids, size_t nr,
				    struct vc_delete_status *st)
{
	int first = 0;

	for (size_t i = 0; i < nr; i++) {
		vc_fs_clear_error(fs);	/* no earlier refusal's words on this one */
		st[i] = (struct vc_delete_status){ 0 };
		st[i].err = online_subvol_delete(fs, NULL, ids[i]);
		if (st[i].err == -ENOENT && deleted_already(fs, ids[i])) {
			st[i].err = 0;
			st[i].gone = true;
		}
		snprintf(st[i].msg, sizeof(st[i].msg), "%s", st[i].err ? fs->base.err : "");
		if (st[i].err && !first)
			first = st[i].err;
	}
	return first;
}

/*
 * Every mount of this filesystem: the mountinfo entries with the device
 * number of the mount holding fs->path (all mounts of one btrfs share its
 * superblock's), each naming its subvolume in the subvolid= option.
 */
static int online_mounted_subvols(struct vc_fs *fs, u64 **ids, size_t *nr)
{
	struct libmnt_table *tb = NULL;
	struct libmnt_iter *itr = NULL;
	struct libmnt_fs *mfs, *ours;
	char *real = realpath(fs->path, NULL);
	size_t cap = 0;
	dev_t dev;
	int ret = 0;

	*ids = NULL;
	*nr = 0;
	if (!real)
		return -errno;
	tb = mnt_new_table_from_file("/proc/self/mountinfo");
	itr = mnt_new_iter(MNT_ITER_FORWARD);
	ours = tb ? mnt_table_find_mountpoint(tb, real, MNT_ITER_BACKWARD) : NULL;
	if (!tb || !itr || !ours) {
		ret = -ENOENT;
		goto out;
	}
	dev = mnt_fs_get_devno(ours);
	while (mnt_table_next_fs(tb, itr, &mfs) == 0) {
		char *val = NULL, num[32];
		size_t len = 0;
		unsigned long long id;

		if (mnt_fs_get_devno(mfs) != dev || strcmp(mnt_fs_get_fstype(mfs) ?: "", "btrfs") ||
		    mnt_fs_get_option(mfs, "subvolid", &val, &len) != 0 || !val ||
		    len >= sizeof(num))
			continue;
		memcpy(num, val, len);
		num[len] = 0;
		id = strtoull(num, NULL, 10);
		if (*nr == cap) {
			u64 *more = realloc(*ids, (cap = cap ? 2 * cap : 8) * sizeof(**ids));

			if (!more) {
				ret = -ENOMEM;
				goto out;
			}
			*ids = more;
		}
		(*ids)[(*nr)++] = (u64)id;
	}
out:
	if (ret) {
		free(*ids);
		*ids = NULL;
		*nr = 0;
	}
	mnt_free_iter(itr);
	mnt_unref_table(tb);
	free(real);
	return ret;
}

const struct vc_backend_ops vc_online_ops = {
	.name = "online",
	.open = online_open,
	.close = online_close,
	.tree_search = online_tree_search,
	.path_info = online_path_info,
	.absolute_path = online_absolute_path,
	.rescan_status = online_rescan_status,
	.quota_runtime = online_quota_runtime,
	.qgroup_reserved = online_qgroup_reserved,
	.block_sizes = online_block_sizes,
	.subvol_create = online_subvol_create,
	.snapshot = online_snapshot,
	.subvol_diff = online_subvol_diff,
	.send_size = online_send_size,
	.subvol_delete = online_subvol_delete,
	.subvol_delete_all = online_subvol_delete_all,
	.mounted_subvols = online_mounted_subvols,
	.set_default = online_set_default,
	.commit = online_commit,
	.sync = online_sync,
	.wait_cleaned = online_wait_cleaned,
	.quota_ctl = online_quota_ctl,
	.rescan_start = online_rescan_start,
	.rescan_wait = online_rescan_wait,
	.qgroup_create = online_qgroup_create,
	.qgroup_destroy = online_qgroup_destroy,
	.qgroup_assign = online_qgroup_assign,
	.qgroup_limit = online_qgroup_limit,
	.acct_open = online_acct_open, .acct_close = online_acct_close,
};
