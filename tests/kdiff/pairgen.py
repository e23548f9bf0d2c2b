#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pairgen.py SEED MNT SUBVOL: a seeded snapshot pair made by the kernel.

On a mounted kernel btrfs at MNT: create subvolume MNT/SUBVOL, fill it with a
seeded tree (files of every size, empty files and directories, odd names,
hard links, symlinks, device nodes, fifos, xattrs, owners, files with twins of
the same bytes), take the read-only snapshot MNT/SUBVOL.old, apply a seeded
random mix of changes to MNT/SUBVOL, take the read-only snapshot
MNT/SUBVOL.new.

The mix: creates, deletes (files and whole subtrees), renames and moves across
directories (files and directories), replacing renames, hard links added and
removed, rewrites with the same and with different bytes, appends,
truncates, hole punches, reflink copies (FICLONE, FICLONERANGE), FIDEDUPERANGE,
chmod, chown, utime, xattrs set and removed, symlinks retargeted, device
nodes, and an inode number reused after a delete (the newest file deleted,
the filesystem remounted so btrfs takes its number again, another file made).

Besides the random part, fixed marker operations under /m and /m2 whose
diff lines are known are written to --expect FILE, one per line:
`=LINE` the diff has this exact line (text form), `!PATH` no line names PATH.

Every operation is logged (--log FILE, default stdout), paths relative to
the subvolume.  Needs root.
"""

import argparse
import ctypes
import fcntl
import os
import random
import struct
import subprocess
import sys
import time

FICLONE = 0x40049409
FICLONERANGE = 0x4020940D
FIDEDUPERANGE = 0xC0189436
FALLOC_FL_KEEP_SIZE = 0x01
FALLOC_FL_PUNCH_HOLE = 0x02
BLOCK = 4096

libc = ctypes.CDLL(None, use_errno=True)
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr.strip()))
    return p.stdout


def fallocate(fd, mode, off, length):
    if libc.fallocate(fd, mode, off, length) != 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))


def clone_range(src, dst, soff, n, doff):
    fs, fd = os.open(src, os.O_RDONLY), os.open(dst, os.O_WRONLY)
    try:
        fcntl.ioctl(fd, FICLONERANGE, struct.pack("<qQQQ", fs, soff, n, doff))
    finally:
        os.close(fs)
        os.close(fd)


def dedupe(src, dst, soff, n, doff):
    """FIDEDUPERANGE of one range; returns (bytes deduped, status)."""
    fs, fd = os.open(src, os.O_RDONLY), os.open(dst, os.O_RDWR)
    try:
        buf = bytearray(struct.pack("<QQHHI", soff, n, 1, 0, 0) + struct.pack("<qQQiI", fd, doff, 0, 0, 0))
        fcntl.ioctl(fs, FIDEDUPERANGE, buf, True)
        _, _, done, status, _ = struct.unpack_from("<qQQiI", buf, 24)
        return done, status
    finally:
        os.close(fs)
        os.close(fd)


def esc(b):
    """As walkdiff prints paths: \\n \\t \\\\ and \\ooo for other non-printable bytes."""
    out = []
    for c in b:
        out.append("\\n" if c == 10 else "\\t" if c == 9 else "\\\\" if c == 92 else
                   "\\%03o" % c if c < 32 or c >= 127 else chr(c))
    return "".join(out)


# names with bytes the diff must escape
ODD = ["new\nline", "tab\there", "back\\slash", "ctl\x01x", "caf\u00e9", "sp ace", "a -> b"]


class Gen:
    def __init__(self, seed, top, log):
        self.rng = random.Random(seed)
        self.top = top
        self.logf = log
        self.n = 0
        self.expect = []

    # ---- helpers ---------------------------------------------------------------------------
    def log(self, *what):
        line = " ".join(esc(os.fsencode(str(w))) for w in what)
        self.logf.write(line + "\n")

    def p(self, rel):
        return os.path.join(self.top, rel.lstrip("/"))

    def rel(self, full):
        return "/" + os.path.relpath(full, self.top)

    def name(self, prefix="f"):
        self.n += 1
        if self.rng.random() < 0.08:
            return "%s%d-%s" % (prefix, self.n, self.rng.choice(ODD))
        return "%s%d" % (prefix, self.n)

    def data(self, n):
        r = self.rng.random()
        if r < 0.4:
            return self.rng.randbytes(n)
        if r < 0.7:
            b = bytes([self.rng.randint(0, 255)]) * 512
            return (b * (n // 512 + 1))[:n]
        return ((b"%d text line\n" % self.rng.randint(0, 99)) * (n // 8 + 1))[:n]

    def size(self):
        r = self.rng.random()
        if r < 0.1:
            return 0
        if r < 0.35:
            return self.rng.randint(1, 3000)              # inline
        if r < 0.85:
            return self.rng.randint(1, 32) * BLOCK + self.rng.choice([0, self.rng.randint(1, 4095)])
        return self.rng.randint(BLOCK, 600 * 1024)

    def entries(self, kind=None):
        """Every path under /t (relative, '/'-first), by kind: f file, d dir, l link, o other."""
        out = []
        for d, dirs, fs in os.walk(self.p("/t")):
            dirs.sort()
            for x in sorted(dirs):
                out.append(("d", os.path.join(d, x)))
            for x in sorted(fs):
                full = os.path.join(d, x)
                st = os.lstat(full)
                k = "f" if os.path.stat.S_ISREG(st.st_mode) else \
                    "l" if os.path.stat.S_ISLNK(st.st_mode) else "o"
                out.append((k, full))
        return [f for k, f in out if kind is None or k in kind]

    def pick(self, kind):
        xs = self.entries(kind)
        return self.rng.choice(xs) if xs else None

    def dirs(self):
        return [self.p("/t")] + self.entries("d")

    def write(self, path, off, data, flags=0):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | flags, 0o644)
        try:
            os.pwrite(fd, data, off)
        finally:
            os.close(fd)

    def new_file(self, d=None, size=None):
        d = d or self.rng.choice(self.dirs())
        f = os.path.join(d, self.name())
        n = self.size() if size is None else size
        self.write(f, 0, self.data(n))
        return f, n

    # ---- the tree of OLD -------------------------------------------------------------------
    def populate(self):
        os.makedirs(self.p("/t"))
        for _ in range(self.rng.randint(6, 12)):
            par = self.rng.choice(self.dirs())
            os.mkdir(os.path.join(par, self.name("d")))
        for _ in range(self.rng.randint(60, 120)):
            self.new_file()
        for f in self.rng.sample(self.entries("f"), 8):       # twins: same bytes, own extents
            with open(f, "rb") as fh:
                b = fh.read()
            t = f + ".twin"
            self.write(t, 0, b)
        for _ in range(6):
            f = self.pick("f")
            os.link(f, os.path.join(self.rng.choice(self.dirs()), self.name("h")))
        for _ in range(6):
            os.symlink(self.rng.choice(["../x", "target-%d" % self.rng.randint(0, 9), "/abs/" + "y" * 200]),
                       os.path.join(self.rng.choice(self.dirs()), self.name("s")))
        os.mknod(os.path.join(self.rng.choice(self.dirs()), self.name("c")), 0o600 | os.path.stat.S_IFCHR,
                 os.makedev(1, 3))
        os.mknod(os.path.join(self.rng.choice(self.dirs()), self.name("b")), 0o600 | os.path.stat.S_IFBLK,
                 os.makedev(7, 200))
        os.mkfifo(os.path.join(self.rng.choice(self.dirs()), self.name("p")))
        for _ in range(3):
            os.mkdir(os.path.join(self.rng.choice(self.dirs()), self.name("e")))   # empty dirs
        for f in self.rng.sample(self.entries("fd"), 10):
            os.setxattr(f, "user.k%d" % self.rng.randint(0, 2), self.rng.randbytes(self.rng.randint(0, 40)))
        for f in self.rng.sample(self.entries("fdlo"), 5):
            os.chown(f, self.rng.randint(1000, 1003), self.rng.randint(1000, 1003), follow_symlinks=False)
        # markers (untouched by the random part)
        os.makedirs(self.p("/m"))
        os.makedirs(self.p("/m2"))
        for n in ("ren-a", "same", "link1", "replaced", "touched"):
            self.write(self.p("/m/" + n), 0, self.data(self.rng.randint(1, 40) * BLOCK))
        b = self.rng.randbytes(64 * BLOCK)
        self.write(self.p("/m/dedup-src"), 0, b)
        self.write(self.p("/m/dedup-dst"), 0, b)
        self.write(self.p("/m/punch-zero"), 0, bytes(16 * BLOCK))    # zeros written: extents
        self.log("populated", len(self.entries()), "entries")

    # ---- markers after OLD -----------------------------------------------------------------
    def markers(self):
        os.rename(self.p("/m/ren-a"), self.p("/m2/ren-b"))
        self.expect.append("=R\t/m/ren-a -> /m2/ren-b")
        self.log("marker rename /m/ren-a /m2/ren-b")
        with open(self.p("/m/same"), "rb") as fh:
            b = fh.read()
        self.write(self.p("/m/same"), 0, b)
        self.expect.append("=M\t/m/same\t(times)")
        self.log("marker rewrite-same-bytes /m/same", len(b))
        done, st = dedupe(self.p("/m/dedup-src"), self.p("/m/dedup-dst"), 0, 64 * BLOCK, 0)
        self.expect += ["!/m/dedup-dst", "!/m/dedup-src"]
        self.log("marker dedupe /m/dedup-src /m/dedup-dst deduped", done, "status", st)
        fd = os.open(self.p("/m/punch-zero"), os.O_WRONLY)
        fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 4 * BLOCK, 8 * BLOCK)
        os.close(fd)
        self.expect.append("=M\t/m/punch-zero\t(times)")
        self.log("marker punch-hole-in-zeros /m/punch-zero", 4 * BLOCK, 8 * BLOCK)
        os.link(self.p("/m/link1"), self.p("/m2/link2"))
        self.expect += ["=+\t/m2/link2", "=M\t/m/link1\t(links)"]
        self.log("marker link /m/link1 /m2/link2")
        self.write(self.p("/m/replaced.tmp"), 0, b"new inode\n")
        os.rename(self.p("/m/replaced.tmp"), self.p("/m/replaced"))
        self.expect += ["=-\t/m/replaced", "=+\t/m/replaced"]
        self.log("marker replace-by-rename /m/replaced")
        os.utime(self.p("/m/touched"), ns=(0, 10 ** 9 * 1000000000))
        self.expect.append("=M\t/m/touched\t(times)")
        # the parents of created, removed and renamed entries: no line
        self.expect += ["!/m", "!/m2"]
        self.log("marker utime /m/touched")

    def reuse_inode(self, remount):
        """Delete the newest file, remount (btrfs takes the highest number + 1
        again when it loads the root), create a file at the same path."""
        newest = self.p("/m/newest")
        ino = os.lstat(newest).st_ino
        os.unlink(newest)
        run(["sync", "-f", self.top])
        remount()
        self.write(newest, 0, b"another inode\n")
        ino2 = os.lstat(newest).st_ino
        self.log("reuse-inode /m/newest ino", ino, "-> ino", ino2, "reused" if ino == ino2 else "NOT reused")
        self.expect += ["=-\t/m/newest", "=+\t/m/newest"]
        return ino == ino2

    # ---- the random mix --------------------------------------------------------------------
    def op_create(self):
        f, n = self.new_file()
        self.log("create", self.rel(f), n)

    def op_create_empty(self):
        f, _ = self.new_file(size=0)
        self.log("create-empty", self.rel(f))

    def op_mkdir(self):
        d = os.path.join(self.rng.choice(self.dirs()), self.name("d"))
        os.mkdir(d)
        self.log("mkdir", self.rel(d))

    def op_delete(self):
        f = self.pick("flo")
        if f:
            os.unlink(f)
            self.log("unlink", self.rel(f))

    def op_rmtree(self):
        ds = self.entries("d")
        if len(ds) < 4:
            return
        d = self.rng.choice(ds)
        for r, dd, ff in os.walk(d, topdown=False):
            for x in ff:
                os.unlink(os.path.join(r, x))
            for x in dd:
                os.rmdir(os.path.join(r, x))
        os.rmdir(d)
        self.log("rmtree", self.rel(d))

    def op_rename(self):
        f = self.pick("flod")
        if not f:
            return
        same = self.rng.random() < 0.4
        d = os.path.dirname(f) if same else self.rng.choice(self.dirs())
        if os.path.isdir(f) and not os.path.islink(f) and (d + "/").startswith(f + "/"):
            return
        dst = os.path.join(d, self.name("r"))
        os.rename(f, dst)
        self.log("rename" if same else "move", self.rel(f), self.rel(dst))

    def op_rename_over(self):
        a, b = self.pick("f"), self.pick("f")
        if a and b and a != b:
            os.rename(a, b)
            self.log("rename-over", self.rel(a), self.rel(b))

    def op_link(self):
        f = self.pick("f")
        if f:
            dst = os.path.join(self.rng.choice(self.dirs()), self.name("h"))
            os.link(f, dst)
            self.log("link", self.rel(f), self.rel(dst))

    def op_unlink_link(self):
        fs = [f for f in self.entries("f") if os.lstat(f).st_nlink > 1]
        if fs:
            f = self.rng.choice(fs)
            os.unlink(f)
            self.log("unlink-hardlink", self.rel(f))

    def op_rewrite_same(self):
        f = self.pick("f")
        if not f:
            return
        with open(f, "rb") as fh:
            b = fh.read()
        if not b:
            return
        off = 0 if self.rng.random() < 0.5 else self.rng.randrange(0, len(b))
        n = self.rng.randint(1, len(b) - off)
        self.write(f, off, b[off:off + n])
        self.log("rewrite-same", self.rel(f), off, n)

    def op_rewrite_diff(self):
        f = self.pick("f")
        if not f:
            return
        sz = os.path.getsize(f)
        off = self.rng.randrange(0, sz + 1)
        n = self.rng.randint(1, 3 * BLOCK)
        n = min(n, max(sz - off, 1))
        self.write(f, off, self.rng.randbytes(n))
        self.log("rewrite-diff", self.rel(f), off, n)

    def op_append(self):
        f = self.pick("f")
        if f:
            sz, n = os.path.getsize(f), self.size() or 1
            self.write(f, sz, self.data(n))
            self.log("append", self.rel(f), sz, n)

    def op_truncate(self):
        f = self.pick("f")
        if f:
            sz = os.path.getsize(f)
            new = self.rng.randint(0, sz) if self.rng.random() < 0.7 else sz + self.rng.randint(1, 200000)
            os.truncate(f, new)
            self.log("truncate", self.rel(f), sz, "->", new)

    def op_punch(self):
        f = self.pick("f")
        if not f or os.path.getsize(f) < BLOCK:
            return
        sz = os.path.getsize(f)
        off = self.rng.randrange(0, sz)
        n = self.rng.randint(1, sz - off)
        fd = os.open(f, os.O_WRONLY)
        try:
            fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, n)
        finally:
            os.close(fd)
        self.log("punch", self.rel(f), off, n)

    def op_reflink_new(self):
        src = self.pick("f")
        if not src:
            return
        dst = os.path.join(self.rng.choice(self.dirs()), self.name("c"))
        fs, fd = os.open(src, os.O_RDONLY), os.open(dst, os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            fcntl.ioctl(fd, FICLONE, fs)
        finally:
            os.close(fs)
            os.close(fd)
        self.log("ficlone-new", self.rel(src), self.rel(dst))

    def op_reflink_over_twin(self):
        """FICLONE of a file over its twin of the same bytes: extents change, bytes do not."""
        ts = [f for f in self.entries("f") if f.endswith(".twin") and os.path.exists(f[:-5])]
        if not ts:
            return
        t = self.rng.choice(ts)
        with open(t, "rb") as a, open(t[:-5], "rb") as b:
            if a.read() != b.read():
                return
        fs, fd = os.open(t[:-5], os.O_RDONLY), os.open(t, os.O_WRONLY)
        try:
            fcntl.ioctl(fd, FICLONE, fs)
        finally:
            os.close(fs)
            os.close(fd)
        self.log("ficlone-over-same-bytes", self.rel(t[:-5]), self.rel(t))

    def op_clone_range(self):
        src, dst = self.pick("f"), self.pick("f")
        if not src or not dst:
            return
        ss, ds = os.path.getsize(src), os.path.getsize(dst)
        if ss < BLOCK:
            return
        soff = self.rng.randrange(0, ss // BLOCK) * BLOCK
        n = self.rng.randint(1, (ss - soff) // BLOCK) * BLOCK
        doff = self.rng.randrange(0, ds // BLOCK + 1) * BLOCK
        if src == dst and abs(soff - doff) < n:
            return
        try:
            clone_range(src, dst, soff, n, doff)
        except OSError as e:
            self.log("ficlonerange-failed", self.rel(src), self.rel(dst), soff, n, doff, e.strerror)
            return
        self.log("ficlonerange", self.rel(src), self.rel(dst), soff, n, doff)

    def op_dedupe(self):
        ts = [f for f in self.entries("f") if f.endswith(".twin") and os.path.exists(f[:-5])]
        if not ts:
            return
        t = self.rng.choice(ts)
        sz = min(os.path.getsize(t), os.path.getsize(t[:-5]))
        if sz < BLOCK:
            return
        n = sz if self.rng.random() < 0.5 else (sz // BLOCK) * BLOCK
        done, st = dedupe(t[:-5], t, 0, n, 0)
        self.log("fideduperange", self.rel(t[:-5]), self.rel(t), 0, n, "deduped", done, "status", st)

    def op_chmod(self):
        f = self.pick("fdo")
        if f:
            m = self.rng.choice([0o600, 0o644, 0o755, 0o700, 0o4755, 0o1777, 0o640])
            os.chmod(f, m)
            self.log("chmod", self.rel(f), oct(m))

    def op_chown(self):
        f = self.pick("fdlo")
        if f:
            u, g = self.rng.randint(1000, 1003), self.rng.randint(1000, 1003)
            os.chown(f, u, g, follow_symlinks=False)
            self.log("chown", self.rel(f), u, g)

    def op_setxattr(self):
        f = self.pick("fd")
        if f:
            k = "user.k%d" % self.rng.randint(0, 2)
            v = self.rng.randbytes(self.rng.randint(0, 60))
            os.setxattr(f, k, v)
            self.log("setxattr", self.rel(f), k, len(v))

    def op_rmxattr(self):
        for f in self.rng.sample(self.entries("fd"), min(10, len(self.entries("fd")))):
            ks = os.listxattr(f)
            if ks:
                k = self.rng.choice(ks)
                os.removexattr(f, k)
                self.log("removexattr", self.rel(f), k)
                return

    def op_symlink_retarget(self):
        s = self.pick("l")
        if s:
            tmp = s + ".new"
            os.symlink("retargeted-%d" % self.rng.randint(0, 99), tmp)
            os.rename(tmp, s)
            self.log("symlink-retarget", self.rel(s))

    def op_symlink_new(self):
        s = os.path.join(self.rng.choice(self.dirs()), self.name("s"))
        os.symlink("t" * self.rng.randint(1, 300), s)
        self.log("symlink", self.rel(s))

    def op_mknod(self):
        d = os.path.join(self.rng.choice(self.dirs()), self.name("n"))
        if self.rng.random() < 0.5:
            os.mknod(d, 0o644 | os.path.stat.S_IFCHR, os.makedev(1, self.rng.choice([3, 5, 7])))
        else:
            os.mkfifo(d)
        self.log("mknod", self.rel(d))

    def op_utime(self):
        f = self.pick("fl")
        if f:
            t = self.rng.randint(0, 2 * 10 ** 18)
            os.utime(f, ns=(t, t), follow_symlinks=False)
            self.log("utime", self.rel(f), t)

    def op_sync(self):
        run(["sync", "-f", self.top])
        self.log("sync")

    OPS = [("create", 8), ("create_empty", 2), ("mkdir", 2), ("delete", 6), ("rmtree", 1),
           ("rename", 6), ("rename_over", 2), ("link", 3), ("unlink_link", 2), ("rewrite_same", 5),
           ("rewrite_diff", 5), ("append", 4), ("truncate", 4), ("punch", 4), ("reflink_new", 3),
           ("reflink_over_twin", 3), ("clone_range", 3), ("dedupe", 4), ("chmod", 3), ("chown", 3),
           ("setxattr", 3), ("rmxattr", 2), ("symlink_retarget", 2), ("symlink_new", 1), ("mknod", 1),
           ("utime", 2), ("sync", 2)]

    def mix(self):
        names = [n for n, _ in self.OPS]
        weights = [w for _, w in self.OPS]
        count = self.rng.randint(60, 120)
        self.log("mix", count, "operations")
        for _ in range(count):
            getattr(self, "op_" + self.rng.choices(names, weights)[0])()


def mount_of(mnt):
    with open("/proc/self/mountinfo") as fh:
        for line in fh:
            f = line.split()
            if f[4] == os.path.realpath(mnt):
                sep = f.index("-")
                return f[sep + 2], f[5] + "," + f[sep + 3]
    raise RuntimeError("%s: not a mount point" % mnt)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("mnt")
    ap.add_argument("subvol")
    ap.add_argument("--log", help="operations log (default stdout)")
    ap.add_argument("--expect", help="the marker lines the diff must have")
    a = ap.parse_args()
    log = open(a.log, "w") if a.log else sys.stdout
    top = os.path.join(a.mnt, a.subvol)
    run(["btrfs", "subvolume", "create", top])
    g = Gen(a.seed, top, log)
    g.log("seed", a.seed)
    g.populate()
    g.write(g.p("/m/newest"), 0, b"the newest inode\n")
    run(["btrfs", "subvolume", "snapshot", "-r", top, top + ".old"])
    g.log("snapshot", a.subvol + ".old")

    def remount():
        dev, opts = mount_of(a.mnt)
        keep = [o for o in opts.split(",") if o.startswith(("compress", "noatime", "nodatacow"))]
        # a `mount -o loop` device is detached at the unmount (autoclear), and
        # its number may go to someone else at once: mount its file again
        sysd = "/sys/block/%s/loop" % os.path.basename(dev)
        if os.path.isdir(sysd) and open(sysd + "/autoclear").read().strip() == "1":
            dev = open(sysd + "/backing_file").read().strip()
            keep.append("loop")
        run(["umount", a.mnt])
        run(["mount"] + (["-o", ",".join(keep)] if keep else []) + [dev, a.mnt])
        g.log("remount", dev, ",".join(keep))

    reused = g.reuse_inode(remount)
    g.markers()
    g.mix()
    run(["sync", "-f", top])
    run(["btrfs", "subvolume", "snapshot", "-r", top, top + ".new"])
    g.log("snapshot", a.subvol + ".new")
    if a.expect:
        with open(a.expect, "w") as fh:
            for e in g.expect:
                fh.write(e + "\n")
            fh.write("#reused %s\n" % ("yes" if reused else "no"))
    log.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
