// SPDX-License-Identifier: GPL-2.0-only
/*
 * Why the kernel refused to delete a subvolume (the online backend).
 *
 * BTRFS_IOC_SNAP_DESTROY answers EPERM for many causes that the errno does
 * not tell apart.  In the order the kernel (6.18) checks them:
 *   - the caller lacks CAP_SYS_ADMIN and the filesystem is not mounted
 *     with user_subvol_rm_allowed;
 *   - without CAP_SYS_ADMIN, the subvolume's root directory is immutable
 *     (no write permission on it);
 *   - the directory holding it is immutable (no write into it) or
 *     append-only (nothing leaves it); it is sticky and neither it nor the
 *     subvolume belongs to the caller (without CAP_FOWNER); the
 *     subvolume's root directory is append-only or immutable;
 *   - a send of it is running, it holds an active swapfile, it is the
 *     default subvolume.
 * EACCES comes from the permission checks without CAP_SYS_ADMIN: write and
 * search on the subvolume's root directory and on the directory holding it.
 *
 * After a refusal, each cause is looked for where it can be seen: the
 * capabilities of this process, the mount options (libmount), the inode
 * flags (FS_IOC_GETFLAGS), the modes and owners, /proc/swaps with the
 * subvolume of each swapfile (INO_LOOKUP), the default subvolume (tree
 * search, privileged).  A running send leaves no trace but the kernel log,
 * so it is named, as a possibility, only when nothing else holds.  The
 * words of the flag causes are the library's (kernel-shared/subvol-delete.h),
 * which the offline backend refuses the same way.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/btrfs.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <libmount.h>
#include "common/backend/online-internal.h"
#include "common/util/path-utils.h"
#include "kernel-shared/subvol-delete.h"
#include "kernel-shared/subvol-list.h"

/* What is known of the subvolume refused: where it is, if anywhere */
struct refused {
	const char *what;	/* the object of the message: a path, or "subvolume N" */
	u64 id;
	char *path;		/* its root directory, NULL when unknown */
	char *dir;		/* the directory holding it */
};

/* Whether this process has capability @cap in effect (unknown: as root) */
static bool has_cap(int cap)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &h, d) < 0)
		return geteuid() == 0;
	return d[cap / 32].effective & (1U << (cap % 32));
}

/* Whether the filesystem holding @path is mounted with option @opt */
static bool mounted_with(const char *path, const char *opt)
{
	struct libmnt_table *tb;
	struct libmnt_fs *mfs;
	char *real = realpath(path, NULL);
	bool yes = false;

	tb = real ? mnt_new_table_from_file("/proc/self/mountinfo") : NULL;
	mfs = tb ? mnt_table_find_mountpoint(tb, real, MNT_ITER_BACKWARD) : NULL;
	if (mfs)
		yes = mnt_fs_get_option(mfs, opt, NULL, NULL) == 0;
	mnt_unref_table(tb);
	free(real);
	return yes;
}

/* FS_IMMUTABLE_FL / FS_APPEND_FL of the directory @path; 0 when unreadable */
static unsigned int dir_attr(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int flags = 0;

	if (fd < 0)
		return 0;
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0)
		flags = 0;
	close(fd);
	return (unsigned int)flags & (FS_IMMUTABLE_FL | FS_APPEND_FL);
}

/* The flag causes, in the kernel's order (see the top of the file) */
static enum btrfs_delete_block flag_cause(const struct refused *r, bool admin)
{
	unsigned int sub = dir_attr(r->path), dir = dir_attr(r->dir);

	if (!admin && (sub & FS_IMMUTABLE_FL))
		return BTRFS_DELETE_IMMUTABLE;
	if (dir & FS_IMMUTABLE_FL)
		return BTRFS_DELETE_PARENT_IMMUTABLE;
	if (dir & FS_APPEND_FL)
		return BTRFS_DELETE_PARENT_APPEND;
	if (sub & FS_IMMUTABLE_FL)
		return BTRFS_DELETE_IMMUTABLE;
	if (sub & FS_APPEND_FL)
		return BTRFS_DELETE_APPEND;
	return BTRFS_DELETE_ALLOWED;
}

/* A sticky directory holding it, neither it nor the subvolume ours */
static bool sticky_cause(const struct refused *r)
{
	struct stat d, s;
	uid_t me = geteuid();

	if (has_cap(CAP_FOWNER) || stat(r->dir, &d) < 0 || stat(r->path, &s) < 0)
		return false;
	return (d.st_mode & S_ISVTX) && d.st_uid != me && s.st_uid != me;
}

/* /proc/swaps escapes blanks and backslashes in octal: "\040" */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/* Whether the file @path is in subvolume @id of the filesystem of @fs */
static bool file_in_subvol(struct vc_fs *fs, const char *path, u64 id)
{
	struct btrfs_ioctl_fs_info_args a, b;
	struct btrfs_ioctl_ino_lookup_args look;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	bool yes = false;

	if (fd < 0)
		return false;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&look, 0, sizeof(look));
	look.objectid = BTRFS_FIRST_FREE_OBJECTID;
	if (!online_ioctl_fd(fd, BTRFS_IOC_FS_INFO, &a) && !online_ioctl(fs, BTRFS_IOC_FS_INFO, &b) &&
	    !memcmp(a.fsid, b.fsid, sizeof(a.fsid)) &&
	    !online_ioctl_fd(fd, BTRFS_IOC_INO_LOOKUP, &look))
		yes = look.treeid == id;
	close(fd);
	return yes;
}

/* The first active swapfile in the subvolume, from /proc/swaps (free it) */
static char *swapfile_cause(struct vc_fs *fs, u64 id)
{
	FILE *f = fopen("/proc/swaps", "re");
	char line[4200], name[4097], type[32];
	char *found = NULL;

	if (!f)
		return NULL;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%4096s %31s", name, type) != 2 || strcmp(type, "file"))
			continue;
		unescape(name);
		if (file_in_subvol(fs, name, id))
			found = strdup(name);
	}
	fclose(f);
	return found;
}

static bool default_cause(struct vc_fs *fs, u64 id)
{
	struct btrfs_item_source src = vc_fs_item_source(fs);
	u64 def;
	bool yes = btrfs_default_subvol(&src, &def) == 0 && def == id;

	vc_fs_clear_error(fs);	/* unprivileged: the search is refused, not a cause */
	return yes;
}

/* The id of the subvolume whose root directory is @path; 0 when unknown */
static u64 path_subvolid(const char *path)
{
	struct btrfs_ioctl_ino_lookup_args look;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	memset(&look, 0, sizeof(look));
	look.objectid = BTRFS_FIRST_FREE_OBJECTID;
	if (online_ioctl_fd(fd, BTRFS_IOC_INO_LOOKUP, &look))
		look.treeid = 0;
	close(fd);
	return look.treeid;
}

/* By id: where the subvolume is, through a mount of this filesystem */
static char *path_of_id(struct vc_fs *fs, u64 id)
{
	struct btrfs_item_source src = vc_fs_item_source(fs);
	struct btrfs_subvol_list l;
	const struct btrfs_subvol *s;
	char *path = NULL;

	if (btrfs_subvol_list_load(&src, &l) == 0) {
		s = btrfs_subvol_list_find(&l, id);
		if (s && s->path && !s->deleted)
			path = fs->base.ops->absolute_path(fs, s->path);
		btrfs_subvol_list_release(&l);
	}
	vc_fs_clear_error(fs);
	return path;
}

static int refused_eperm(struct vc_fs *fs, const struct refused *r)
{
	bool admin = has_cap(CAP_SYS_ADMIN);
	enum btrfs_delete_block why;
	char *swap;

	if (!admin && !mounted_with(r->dir ? r->dir : fs->path, "user_subvol_rm_allowed")) {
		vc_fs_set_error(fs, "%s: cannot delete: deleting a subvolume needs CAP_SYS_ADMIN, or "
				"a mount with user_subvol_rm_allowed", r->what);
		return -EPERM;
	}
	why = r->path ? flag_cause(r, admin) : BTRFS_DELETE_ALLOWED;
	if (why == BTRFS_DELETE_PARENT_IMMUTABLE || why == BTRFS_DELETE_PARENT_APPEND) {
		vc_fs_set_error(fs, "%s: cannot delete: %s (chattr %s %s to allow it)", r->what,
				btrfs_delete_block_str(why), btrfs_delete_block_chattr(why), r->dir);
		return -EPERM;
	}
	if (why != BTRFS_DELETE_ALLOWED) {
		vc_fs_set_error(fs, "%s: cannot delete: %s (chattr %s %s to allow it)", r->what,
				btrfs_delete_block_str(why), btrfs_delete_block_chattr(why), r->path);
		return -EPERM;
	}
	if (r->path && !admin && sticky_cause(r)) {
		vc_fs_set_error(fs, "%s: cannot delete: its parent directory %s is sticky and "
				"neither it nor the subvolume is yours", r->what, r->dir);
		return -EPERM;
	}
	swap = r->id ? swapfile_cause(fs, r->id) : NULL;
	if (swap) {
		vc_fs_set_error(fs, "%s: cannot delete: it holds the active swapfile %s (swapoff %s "
				"to allow it)", r->what, swap, swap);
		free(swap);
		return -EPERM;
	}
	if (r->id && default_cause(fs, r->id)) {
		vc_fs_set_error(fs, "%s: cannot delete: it is the default subvolume (set another "
				"with 'volctl subvolume set-default' first)", r->what);
		return -EPERM;
	}
	/* the default subvolume is found only with CAP_SYS_ADMIN (tree search) */
	vc_fs_set_error(fs, "%s: cannot delete: possibly a send of it is running%s (no other "
			"cause found; the kernel log names it)", r->what,
			admin ? "" : ", or it is the default subvolume");
	return -EPERM;
}

static int refused_eacces(struct vc_fs *fs, const struct refused *r)
{
	if (r->path && faccessat(AT_FDCWD, r->path, W_OK | X_OK, AT_EACCESS) < 0)
		vc_fs_set_error(fs, "%s: cannot delete: no write and search permission on the "
				"subvolume (needed without CAP_SYS_ADMIN)", r->what);
	else if (r->dir && faccessat(AT_FDCWD, r->dir, W_OK | X_OK, AT_EACCESS) < 0)
		vc_fs_set_error(fs, "%s: cannot delete: no write and search permission on its "
				"parent directory %s", r->what, r->dir);
	else
		vc_fs_set_error(fs, "%s: permission denied", r->what);
	return -EACCES;
}

int online_delete_refused(struct vc_fs *fs, const char *what, const char *path, u64 id, int err)
{
	struct refused r = { .what = what, .id = id };
	int ret;

	r.path = path ? strdup(path) : path_of_id(fs, id);
	r.dir = r.path ? path_dirname(r.path) : NULL;
	if (!r.dir) {
		free(r.path);
		r.path = NULL;
	}
	if (!r.id && r.path)
		r.id = path_subvolid(r.path);
	ret = err == -EPERM ? refused_eperm(fs, &r) : refused_eacces(fs, &r);
	free(r.dir);
	free(r.path);
	return ret;
}
