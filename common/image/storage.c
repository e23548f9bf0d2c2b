// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every name of one storage (see storage.h).
 *
 * The names form a small graph, walked from the given path:
 *   file          -> each loop device whose backing inode is that file
 *                    (LOOP_GET_STATUS64 gives device and inode; the path in
 *                    sysfs may be stale or seen from another namespace)
 *   loop device   -> its backing file (or backing block device)
 *   block device  -> its partitions, and the devices below it when it is a
 *                    stacked device (device-mapper, md): their bytes are its
 *                    bytes.  Those are "held": their holder has them open
 *                    exclusively, so they are not claimed themselves.
 * Holders on top of a name are not walked: a holder keeps the name open
 * exclusively, the claim of the name fails and the message names the holder.
 * A partition does not lead to its disk (the disk's other partitions are
 * other storage); the kernel refuses O_EXCL on a partition of a disk that
 * someone holds.  Claims are taken in the reverse order of discovery, so
 * partitions before their disk: the kernel refuses a partition of a disk
 * held exclusively, even by us.
 *
 * Sysfs, /proc/self/mountinfo, /proc/locks and /proc/PID/fd are read only to
 * find names and to say who holds one; nothing here writes.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <libmount.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include "common/image/storage.h"

#define MAX_NAMES	256	/* a bound on the walk, far above any real stack */
#define LOOP_MAJOR	7	/* include/uapi/linux/major.h */
#define WHAT_SIZE	(PATH_MAX + 512)

struct node {
	bool bdev;
	bool held;		/* below a stacked device of the set, held by it */
	dev_t dev;		/* file: st_dev; block device: st_rdev */
	ino_t ino;		/* file only */
	const char *via;	/* how it is reached: "loop device", ...; NULL: the path given */
	char *name;
	int fd;			/* the claim: flocked file or O_EXCL device; -1 */
};

struct vc_storage {
	char *path;
	bool contended;		/* the last claim failed on another process's claim */
	struct node *nodes;	/* [0]: the path given */
	size_t nr;
	size_t alloc;
};

static int add_node(struct vc_storage *s, bool bdev, dev_t dev, ino_t ino, const char *name,
		    const char *via, bool held)
{
	struct node *n;

	for (size_t i = 0; i < s->nr; i++) {
		n = &s->nodes[i];
		if (n->bdev == bdev && n->dev == dev && (bdev || n->ino == ino))
			return 0;
	}
	if (s->nr == MAX_NAMES)
		return -E2BIG;
	if (s->nr == s->alloc) {
		size_t alloc = s->alloc ? s->alloc * 2 : 8;

		n = realloc(s->nodes, alloc * sizeof(*n));
		if (!n)
			return -ENOMEM;
		s->nodes = n;
		s->alloc = alloc;
	}
	n = &s->nodes[s->nr];
	*n = (struct node){ .bdev = bdev, .held = held, .dev = dev, .ino = ino, .via = via,
			    .fd = -1 };
	n->name = strdup(name);
	if (!n->name)
		return -ENOMEM;
	s->nr++;
	return 0;
}

/* One line of a sysfs (or proc) file, newline removed; false if unreadable */
static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

static bool read_devno(const char *path, dev_t *out)
{
	char buf[64];
	unsigned int maj, min;

	if (!read_line(path, buf, sizeof(buf)) || sscanf(buf, "%u:%u", &maj, &min) != 2)
		return false;
	*out = makedev(maj, min);
	return true;
}

static void sysfs_dir(dev_t dev, char *buf, size_t len)
{
	snprintf(buf, len, "/sys/dev/block/%u:%u", major(dev), minor(dev));
}

/* The kernel's name of block device @dev ("loop2", "dm-0", "loop2p1") */
static bool kname_of(dev_t dev, char *buf, size_t len)
{
	char link[PATH_MAX], target[PATH_MAX];
	ssize_t n;
	char *slash;

	sysfs_dir(dev, link, sizeof(link));
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	slash = strrchr(target, '/');
	slash = slash ? slash + 1 : target;
	if (strlen(slash) >= len)
		return false;
	strcpy(buf, slash);
	return true;
}

static bool is_partition(dev_t dev)
{
	char path[PATH_MAX];

	sysfs_dir(dev, path, sizeof(path));
	strncat(path, "/partition", sizeof(path) - strlen(path) - 1);
	return access(path, F_OK) == 0;
}

static int add_bdev(struct vc_storage *s, dev_t dev, const char *via, bool held)
{
	char kname[NAME_MAX + 1], name[NAME_MAX + 8];

	if (!kname_of(dev, kname, sizeof(kname)))
		return 0;	/* gone since */
	snprintf(name, sizeof(name), "/dev/%s", kname);
	return add_node(s, true, dev, 0, name, via, held);
}

/* What a bound loop device reads and writes */
struct loop_backing {
	bool bdev;		/* backed by a block device: @rdev */
	dev_t dev;		/* backed by a file: @dev, @ino */
	ino_t ino;
	dev_t rdev;
	char path[PATH_MAX];	/* as sysfs shows it; may not name that inode any more */
};

static bool loop_backing(const char *kname, dev_t loopdev, struct loop_backing *b)
{
	struct loop_info64 info;
	char path[PATH_MAX];
	struct stat st;
	bool have_ids = false;
	char *del;
	int fd;

	memset(b, 0, sizeof(*b));
	/* LOOP_GET_STATUS64 fills it, but memory checkers do not know that ioctl */
	memset(&info, 0, sizeof(info));
	snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", kname);
	if (!read_line(path, b->path, sizeof(b->path)))
		return false;	/* not bound */
	del = strstr(b->path, " (deleted)");
	if (del && del[10] == '\0')
		*del = '\0';
	snprintf(path, sizeof(path), "/dev/%s", kname);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0) {
		if (fstat(fd, &st) == 0 && S_ISBLK(st.st_mode) && st.st_rdev == loopdev &&
		    ioctl(fd, LOOP_GET_STATUS64, &info) == 0) {
			b->dev = (dev_t)info.lo_device;
			b->ino = (ino_t)info.lo_inode;
			have_ids = true;
		}
		close(fd);
	}
	if (stat(b->path, &st) == 0) {
		if (S_ISBLK(st.st_mode) && (!have_ids || (st.st_dev == b->dev && st.st_ino == b->ino))) {
			b->bdev = true;
			b->rdev = st.st_rdev;
			return true;
		}
		if (!have_ids) {
			b->dev = st.st_dev;
			b->ino = st.st_ino;
			have_ids = true;
		}
	}
	return have_ids;
}

/* Loop devices whose backing is node @n (a file, or a block device) */
static int add_loops_of(struct vc_storage *s, const struct node *n)
{
	bool bdev = n->bdev;
	dev_t dev = n->dev;
	ino_t ino = n->ino;
	glob_t g;
	int ret = 0;

	if (glob("/sys/block/loop*/loop/backing_file", 0, NULL, &g) != 0)
		return 0;
	for (size_t i = 0; i < g.gl_pathc && !ret; i++) {
		char kname[NAME_MAX + 1], devfile[PATH_MAX];
		struct loop_backing b;
		dev_t loopdev;

		/* /sys/block/loopN/loop/backing_file */
		if (sscanf(g.gl_pathv[i], "/sys/block/%255[^/]/", kname) != 1)
			continue;
		snprintf(devfile, sizeof(devfile), "/sys/block/%s/dev", kname);
		if (!read_devno(devfile, &loopdev) || !loop_backing(kname, loopdev, &b))
			continue;
		if (bdev ? (b.bdev && b.rdev == dev) : (!b.bdev && b.dev == dev && b.ino == ino))
			ret = add_bdev(s, loopdev, "loop device", false);
	}
	globfree(&g);
	return ret;
}

/* Partitions (held false) or slaves (held true) of block device @dev */
static int add_children(struct vc_storage *s, dev_t dev, bool slaves)
{
	char dir[PATH_MAX], kname[NAME_MAX + 1];
	struct dirent *de;
	DIR *d;
	int ret = 0;

	if (!kname_of(dev, kname, sizeof(kname)))
		return 0;
	sysfs_dir(dev, dir, sizeof(dir));
	if (slaves)
		strncat(dir, "/slaves", sizeof(dir) - strlen(dir) - 1);
	d = opendir(dir);
	if (!d)
		return 0;
	while (!ret && (de = readdir(d))) {
		char path[PATH_MAX];
		dev_t child;

		if (de->d_name[0] == '.')
			continue;
		if (!slaves) {
			/* partition directories carry the disk's name and a "partition" file */
			if (strncmp(de->d_name, kname, strlen(kname)))
				continue;
			snprintf(path, sizeof(path), "%s/%s/partition", dir, de->d_name);
			if (access(path, F_OK))
				continue;
		}
		snprintf(path, sizeof(path), "%s/%s/dev", dir, de->d_name);
		if (read_devno(path, &child))
			ret = add_bdev(s, child, slaves ? "device below it" : "partition", slaves);
	}
	closedir(d);
	return ret;
}

/* Add the neighbours of node @i (see the graph at the top) */
static int expand(struct vc_storage *s, size_t i)
{
	struct node n = s->nodes[i];	/* a copy: adding may move the array */
	char kname[NAME_MAX + 1];
	struct loop_backing b;
	int ret;

	ret = add_loops_of(s, &n);
	if (ret || !n.bdev)
		return ret;
	if (major(n.dev) == LOOP_MAJOR && !is_partition(n.dev) &&
	    kname_of(n.dev, kname, sizeof(kname)) && loop_backing(kname, n.dev, &b)) {
		if (b.bdev)
			ret = add_bdev(s, b.rdev, "backing device", false);
		else
			ret = add_node(s, false, b.dev, b.ino, b.path, "backing file", false);
		if (ret)
			return ret;
	}
	ret = add_children(s, n.dev, false);
	if (!ret)
		ret = add_children(s, n.dev, true);
	return ret;
}

static int walk(struct vc_storage *s)
{
	for (size_t i = 0; i < s->nr; i++) {
		int ret = expand(s, i);

		if (ret)
			return ret;
	}
	return 0;
}

/* The mount point of block device @dev, from the mount table */
static bool mount_of(dev_t dev, const char *fsid_dir, char *target, size_t len)
{
	struct libmnt_table *tb = mnt_new_table_from_file("/proc/self/mountinfo");
	struct libmnt_iter *itr = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	bool found = false;

	while (tb && itr && !found && mnt_table_next_fs(tb, itr, &fs) == 0) {
		/* btrfs reports an anonymous device number: match the source device */
		const char *src = mnt_fs_get_srcpath(fs);
		char kname[NAME_MAX + 1], path[PATH_MAX];
		struct stat st;

		if (!src || src[0] != '/' || stat(src, &st) < 0 || !S_ISBLK(st.st_mode))
			continue;
		if (fsid_dir) {
			/* any device of that btrfs */
			if (!kname_of(st.st_rdev, kname, sizeof(kname)))
				continue;
			snprintf(path, sizeof(path), "%s/devices/%s", fsid_dir, kname);
			found = access(path, F_OK) == 0;
		} else {
			found = st.st_rdev == dev;
		}
		if (found)
			snprintf(target, len, "%s", mnt_fs_get_target(fs) ?: "?");
	}
	mnt_free_iter(itr);
	mnt_unref_table(tb);
	return found;
}

/* A member of a mounted multi-device btrfs is held by the kernel but not in the mount table */
static bool btrfs_member_mount(dev_t dev, char *what, size_t len)
{
	char kname[NAME_MAX + 1], path[PATH_MAX], target[PATH_MAX];
	struct dirent *de;
	bool found = false;
	DIR *d;

	if (!kname_of(dev, kname, sizeof(kname)))
		return false;
	d = opendir("/sys/fs/btrfs");
	while (d && !found && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/fs/btrfs/%s/devices/%s", de->d_name, kname);
		if (access(path, F_OK))
			continue;
		found = true;
		snprintf(path, sizeof(path), "/sys/fs/btrfs/%s", de->d_name);
		if (mount_of(0, path, target, sizeof(target)))
			snprintf(what, len, "a member of the btrfs mounted on %s", target);
		else
			snprintf(what, len, "a member of a mounted btrfs (fsid %s)", de->d_name);
	}
	if (d)
		closedir(d);
	return found;
}

/* Whether block device @dev is mounted, as a member of a btrfs or through its disk */
static bool bdev_mounted(dev_t dev, char *what, size_t len)
{
	char target[PATH_MAX], kname[NAME_MAX + 1], path[PATH_MAX];
	dev_t disk;

	if (mount_of(dev, NULL, target, sizeof(target))) {
		snprintf(what, len, "mounted on %s", target);
		return true;
	}
	if (btrfs_member_mount(dev, what, len))
		return true;
	/* /sys/dev/block/M:m of a partition is inside its disk's directory */
	sysfs_dir(dev, path, sizeof(path));
	strncat(path, "/../dev", sizeof(path) - strlen(path) - 1);
	if (is_partition(dev) && read_devno(path, &disk) && kname_of(disk, kname, sizeof(kname)) &&
	    mount_of(disk, NULL, target, sizeof(target))) {
		snprintf(what, len, "part of /dev/%s, mounted on %s", kname, target);
		return true;
	}
	return false;
}

/* A device-mapper or md device on top of @dev */
static bool bdev_holder(dev_t dev, char *what, size_t len)
{
	char dir[PATH_MAX], path[PATH_MAX], name[NAME_MAX + 1];
	struct dirent *de;
	bool found = false;
	DIR *d;

	sysfs_dir(dev, dir, sizeof(dir));
	strncat(dir, "/holders", sizeof(dir) - strlen(dir) - 1);
	d = opendir(dir);
	while (d && !found && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		found = true;
		snprintf(path, sizeof(path), "%s/%s/dm/name", dir, de->d_name);
		if (read_line(path, name, sizeof(name)))
			snprintf(what, len, "held by device-mapper device /dev/mapper/%s", name);
		else
			snprintf(what, len, "held by /dev/%s", de->d_name);
	}
	if (d)
		closedir(d);
	return found;
}

static void describe_pid(pid_t pid, char *what, size_t len)
{
	char path[64], comm[64];

	if (pid == getpid()) {
		snprintf(what, len, "already open in this volctl (the same storage given twice)");
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if (read_line(path, comm, sizeof(comm)))
		snprintf(what, len, "in use by %s (pid %d)", comm, (int)pid);
	else
		snprintf(what, len, "locked by another process (pid %d)", (int)pid);
}

/* A process with block device @dev open: ourselves first, then another volctl, then any */
static pid_t bdev_opener(dev_t dev)
{
	pid_t best = 0;
	int best_rank = 0;
	struct dirent *de;
	DIR *proc = opendir("/proc");

	while (proc && best_rank < 3 && (de = readdir(proc))) {
		char dir[64], path[NAME_MAX + 80], comm[64];
		struct dirent *fe;
		pid_t pid;
		DIR *fds;
		int rank;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = (pid_t)atoi(de->d_name);
		snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
		fds = opendir(dir);
		while (fds && (fe = readdir(fds))) {
			struct stat st;

			snprintf(path, sizeof(path), "%s/%s", dir, fe->d_name);
			if (fe->d_name[0] == '.' || stat(path, &st) || !S_ISBLK(st.st_mode) ||
			    st.st_rdev != dev)
				continue;
			snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
			rank = pid == getpid() ? 3 :
			       read_line(path, comm, sizeof(comm)) && !strcmp(comm, "volctl") ? 2 : 1;
			if (rank > best_rank) {
				best = pid;
				best_rank = rank;
			}
			break;
		}
		if (fds)
			closedir(fds);
	}
	if (proc)
		closedir(proc);
	return best;
}

/* The process holding a flock() on file (@dev, @ino), from /proc/locks */
static pid_t flock_holder(dev_t dev, ino_t ino)
{
	char line[256];
	pid_t pid = 0;
	FILE *f = fopen("/proc/locks", "re");

	while (f && !pid && fgets(line, sizeof(line), f)) {
		unsigned int maj, min;
		unsigned long long lino;
		char kind[16];
		int lpid;

		/* "1: FLOCK  ADVISORY  WRITE 1234 fe:00:10952866 0 EOF"; waiters have "->" */
		if (strstr(line, "->") ||
		    sscanf(line, "%*d: %15s %*s %*s %d %x:%x:%llu", kind, &lpid, &maj, &min,
			   &lino) != 5)
			continue;
		if (!strcmp(kind, "FLOCK") && makedev(maj, min) == dev && (ino_t)lino == ino)
			pid = (pid_t)lpid;
	}
	if (f)
		fclose(f);
	return pid;
}

/* "PATH: loop device /dev/loop2 is WHAT", or "PATH: WHAT" for the path itself */
static void report(const struct vc_storage *s, const struct node *n, const char *what,
		   char *err, size_t errlen)
{
	if (!n->via)
		snprintf(err, errlen, "%s: %s", s->path, what);
	else
		snprintf(err, errlen, "%s: %s %s is %s", s->path, n->via, n->name, what);
}

/*
 * Why node @n could not be claimed; @s->contended is set when another
 * process's claim is the cause (a lock or an exclusive open, which a writer
 * can wait for), not a mount or a stacked device.
 */
static void explain(struct vc_storage *s, const struct node *n, char *err, size_t errlen)
{
	char what[WHAT_SIZE];
	pid_t pid;

	if (!n->bdev) {
		pid = flock_holder(n->dev, n->ino);
		if (pid)
			describe_pid(pid, what, sizeof(what));
		else
			snprintf(what, sizeof(what), "locked by another process");
		s->contended = pid != getpid();
	} else if (!bdev_mounted(n->dev, what, sizeof(what)) &&
		   !bdev_holder(n->dev, what, sizeof(what))) {
		pid = bdev_opener(n->dev);
		if (pid)
			describe_pid(pid, what, sizeof(what));
		else
			snprintf(what, sizeof(what), "busy (held by the kernel or another namespace)");
		s->contended = pid && pid != getpid();
	}
	report(s, n, what, err, errlen);
}

/*
 * Why opening node @n for writing failed with @ret: an immutable or
 * append-only file (EPERM, even for root), no permission, a read-only mount
 */
static void refused(const struct node *n, int ret, char *err, size_t errlen)
{
	unsigned int attr = 0;
	struct stat st;
	int fd;

	if (ret == -EPERM && (fd = open(n->name, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) >= 0) {
		if (ioctl(fd, FS_IOC_GETFLAGS, &attr) < 0)
			attr = 0;
		close(fd);
	}
	if (attr & FS_IMMUTABLE_FL)
		snprintf(err, errlen, "%s: the file is immutable (chattr +i), cannot write it; "
			 "chattr -i %s lifts that", n->name, n->name);
	else if (attr & FS_APPEND_FL)
		snprintf(err, errlen, "%s: the file is append-only (chattr +a), cannot write it in "
			 "place; chattr -a %s lifts that", n->name, n->name);
	else if (ret == -EROFS)
		snprintf(err, errlen, "%s: read-only, cannot write (on a read-only mount)", n->name);
	else if (ret == -EACCES && stat(n->name, &st) == 0)
		snprintf(err, errlen, "%s: no write permission (mode %04o, owner %u:%u)", n->name,
			 (unsigned int)(st.st_mode & 07777), (unsigned int)st.st_uid,
			 (unsigned int)st.st_gid);
	else
		snprintf(err, errlen, "%s: cannot open it for writing: %s", n->name, strerror(-ret));
}

/* Claim node @n; the path given is opened with @flags, other names read-only */
static int claim(struct vc_storage *s, struct node *n, int flags, char *err, size_t errlen)
{
	struct stat st;
	int ret;

	if (n->held)
		return 0;
	if (n->via)
		flags = O_RDONLY;
	flags |= O_CLOEXEC | (n->bdev ? O_EXCL : 0);
	n->fd = open(n->name, flags);
	if (n->fd < 0) {
		ret = -errno;
		if (ret == -EBUSY) {
			explain(s, n, err, errlen);
			return ret;
		}
		if (n->via && (ret == -ENOENT || ret == -ENXIO))
			return 0;	/* gone, or a name we cannot reach: nothing to hold */
		refused(n, ret, err, errlen);
		return ret;
	}
	/* a name that now points elsewhere (a file replaced, a node reused) is not ours */
	if (fstat(n->fd, &st) < 0 || (n->bdev ? !S_ISBLK(st.st_mode) || st.st_rdev != n->dev :
				      st.st_dev != n->dev || st.st_ino != n->ino)) {
		close(n->fd);
		n->fd = -1;
		if (!n->via) {
			snprintf(err, errlen, "%s: changed while it was opened", s->path);
			return -EAGAIN;
		}
		return 0;
	}
	if (!n->bdev && flock(n->fd, LOCK_EX | LOCK_NB) < 0) {
		ret = -errno;
		if (ret == -EWOULDBLOCK)
			explain(s, n, err, errlen);
		else
			snprintf(err, errlen, "%s: %s", n->name, strerror(-ret));
		return ret;
	}
	return 0;
}

/* The storage of @path with all its names, nothing claimed */
static int scan(const char *path, struct vc_storage **out, char *err, size_t errlen)
{
	struct vc_storage *s = calloc(1, sizeof(*s));
	struct stat st;
	int ret;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->path = strdup(path);
	if (!s->path) {
		ret = -ENOMEM;
		goto fail;
	}
	if (stat(path, &st) < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if (!S_ISBLK(st.st_mode) && !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file or block device", path);
		ret = -EINVAL;
		goto fail;
	}
	ret = add_node(s, S_ISBLK(st.st_mode), S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev,
		       S_ISBLK(st.st_mode) ? 0 : st.st_ino, path, NULL, false);
	if (!ret)
		ret = walk(s);
	if (ret) {
		snprintf(err, errlen, "%s: cannot list the names of its storage: %s", path,
			 strerror(-ret));
		goto fail;
	}
	*out = s;
	return 0;
fail:
	vc_storage_close(s);
	return ret;
}

/* A reader's look: whether a name is mounted, nothing claimed */
static int look(const struct vc_storage *s, char *err, size_t errlen)
{
	char what[WHAT_SIZE];

	for (size_t i = 0; i < s->nr; i++) {
		const struct node *n = &s->nodes[i];

		if (n->bdev && bdev_mounted(n->dev, what, sizeof(what))) {
			report(s, n, what, err, errlen);
			return -EBUSY;
		}
	}
	return 0;
}

/* Claim every node of @s; on failure what was claimed stays for vc_storage_close() */
static int claim_all(struct vc_storage *s, int flags, char *err, size_t errlen)
{
	int ret;

	s->contended = false;
	for (size_t i = s->nr; i-- > 0;) {
		ret = claim(s, &s->nodes[i], flags, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int vc_storage_open(const char *path, int flags, long long wait_ms, struct vc_storage **out,
		    char *err, size_t errlen)
{
	long long start = now_ms(), left;
	struct vc_storage *s;
	bool contended;
	int ret;

	for (;;) {
		ret = scan(path, &s, err, errlen);
		if (ret)
			return ret;
		if (!out) {
			ret = look(s, err, errlen);
			vc_storage_close(s);
			return ret;
		}
		ret = claim_all(s, flags, err, errlen);
		if (!ret) {
			*out = s;
			return 0;
		}
		/*
		 * Waiting holds nothing: every name is let go and the whole
		 * storage looked at again, so two waiting writers cannot hold one
		 * name each, and names that appeared meanwhile are claimed too.
		 */
		contended = s->contended;
		vc_storage_close(s);
		if (!contended || wait_ms == 0)
			return ret;
		left = wait_ms < 0 ? 100 : wait_ms - (now_ms() - start);
		if (left <= 0) {
			size_t len = strlen(err);

			snprintf(err + len, errlen - len, "; still held after waiting %g s",
				 (double)wait_ms / 1000);
			return ret;
		}
		if (left > 100)
			left = 100;
		nanosleep(&(struct timespec){ .tv_nsec = left * 1000000 }, NULL);
	}
}

int vc_storage_fd(const struct vc_storage *s)
{
	return s->nodes[0].fd;
}

int vc_storage_recheck(struct vc_storage *s, char *err, size_t errlen)
{
	struct vc_storage now = { .path = s->path };
	const struct node *first = &s->nodes[0];
	size_t old = s->nr;
	int ret;

	ret = add_node(&now, first->bdev, first->dev, first->ino, first->name, NULL, false);
	if (!ret)
		ret = walk(&now);
	for (size_t i = 0; !ret && i < now.nr; i++) {
		const struct node *n = &now.nodes[i];

		ret = add_node(s, n->bdev, n->dev, n->ino, n->name, n->via, n->held);
	}
	if (ret)
		snprintf(err, errlen, "%s: cannot list the names of its storage: %s", s->path,
			 strerror(-ret));
	for (size_t i = 0; i < now.nr; i++)
		free(now.nodes[i].name);
	free(now.nodes);
	/* names that appeared since the claim: a loop device attached meanwhile */
	for (size_t i = s->nr; !ret && i-- > old;)
		ret = claim(s, &s->nodes[i], O_RDONLY, err, errlen);
	return ret;
}

void vc_storage_close(struct vc_storage *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nr; i++) {
		if (s->nodes[i].fd >= 0)
			close(s->nodes[i].fd);
		free(s->nodes[i].name);
	}
	free(s->nodes);
	free(s->path);
	free(s);
}
