#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""walkdiff.py [-H] OLD NEW: the expected `subvolume diff` of two mounted subvolumes.

Walks both trees (not into nested subvolumes) and prints, sorted, one line
per changed path in the contract of tests/kdiff/README.md:

    -<TAB>/path             removed
    +<TAB>/path             added
    M<TAB>/path<TAB>(content, size, mode, owner, xattrs, times, links)
    R<TAB>/old -> /new      renamed or moved

-H: tab-separated fields (`M<TAB>/path<TAB>content,size`, `R<TAB>/old<TAB>/new`).
An inode is (inode number, inode generation); the generation comes from the
inode item (BTRFS_IOC_TREE_SEARCH on the subvolume, root needed), checked
against FS_IOC_GETVERSION on every regular file and directory.
A name of an inode is (the parent directory's inode, the entry's name), so a
moved directory is one R line, not one per file below it.
Also usable as a module: tree(PATH), diff(OLD_TREE, NEW_TREE), fmt(...).
"""

import argparse
import fcntl
import hashlib
import os
import stat
import struct
import sys

FS_IOC_GETVERSION = 0x80087601
BTRFS_IOC_TREE_SEARCH = 0xD0009411
INODE_ITEM = 1
FIELDS = ["content", "size", "mode", "owner", "xattrs", "times", "links"]
RANK = {"-": 0, "R": 1, "+": 2, "M": 3}
# KDIFF_BREAK=generation: the identity is the inode number alone (to see the
# tests fail on a walk that cannot tell a reused number from the old inode)
BREAK = os.environ.get("KDIFF_BREAK", "")


def esc(b):
    """A path's bytes as printed: \\n \\t \\\\ and \\ooo for other non-printable bytes."""
    out = []
    for c in b:
        if c == 0x0A:
            out.append("\\n")
        elif c == 0x09:
            out.append("\\t")
        elif c == 0x5C:
            out.append("\\\\")
        elif c < 0x20 or c >= 0x7F:
            out.append("\\%03o" % c)
        else:
            out.append(chr(c))
    return "".join(out)


def generations(root):
    """{inode number: generation} from the inode items of the subvolume at @root."""
    gens = {}
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        minobj = 0
        while True:
            key = struct.pack("<7Q4I4Q", 0, minobj, 2 ** 64 - 1, 0, 2 ** 64 - 1, 0, 2 ** 64 - 1,
                              INODE_ITEM, INODE_ITEM, 4096, 0, 0, 0, 0, 0)
            buf = bytearray(key + bytes(4096 - len(key)))
            fcntl.ioctl(fd, BTRFS_IOC_TREE_SEARCH, buf, True)
            nr = struct.unpack_from("<I", buf, 64)[0]
            if nr == 0:
                break
            off, last = 104, minobj
            for _ in range(nr):
                _, obj, _, typ, ln = struct.unpack_from("<3Q2I", buf, off)
                off += 32
                if typ == INODE_ITEM:
                    gens[obj] = struct.unpack_from("<Q", buf, off)[0]
                off += ln
                last = obj
            minobj = last + 1
    finally:
        os.close(fd)
    return gens


class Inode:
    __slots__ = ("ident", "type", "content", "size", "mode", "owner", "xattrs", "mtime", "nlink",
                 "names", "st")


def read_inode(path, st, gens):
    i = Inode()
    gen = gens.get(st.st_ino)
    if gen is None:
        raise RuntimeError("%s: no inode item for %d" % (esc(path), st.st_ino))
    i.type = stat.S_IFMT(st.st_mode)
    if stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode):
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        try:
            v = struct.unpack("<l", fcntl.ioctl(fd, FS_IOC_GETVERSION, bytes(8))[:4])[0] & 0xFFFFFFFF
            if v != gen & 0xFFFFFFFF:
                raise RuntimeError("%s: FS_IOC_GETVERSION %d, inode item %d" % (esc(path), v, gen))
            if stat.S_ISREG(st.st_mode):
                h = hashlib.sha256()
                while True:
                    b = os.read(fd, 1 << 20)
                    if not b:
                        break
                    h.update(b)
                i.content = h.hexdigest()
            else:
                i.content = None
        finally:
            os.close(fd)
    elif stat.S_ISLNK(st.st_mode):
        i.content = os.readlink(path)
    elif stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
        i.content = st.st_rdev
    else:
        i.content = None
    i.ident = (st.st_ino, 0 if BREAK == "generation" else gen)
    i.size = st.st_size
    i.mode = stat.S_IMODE(st.st_mode)
    i.owner = (st.st_uid, st.st_gid)
    i.xattrs = {k: os.getxattr(path, k, follow_symlinks=False)
                for k in os.listxattr(path, follow_symlinks=False)}
    i.mtime = st.st_mtime_ns
    i.nlink = st.st_nlink
    i.names = set()
    return i


def tree(root):
    """(inodes by identity, {name: path}) of the subvolume at @root; a name is
    (parent identity, entry bytes), the root's name is None."""
    root = os.fsencode(root)
    gens = generations(root)
    rst = os.lstat(root)
    inodes, paths = {}, {}
    top = read_inode(root, rst, gens)
    top.names.add(None)
    inodes[top.ident] = top
    paths[None] = b"/"
    stack = [(root, b"", top.ident)]
    while stack:
        d, rel, pid = stack.pop()
        for e in os.scandir(d):
            full = os.path.join(d, e.name)
            st = os.lstat(full)
            if st.st_dev != rst.st_dev:         # a nested subvolume: its stub only
                continue
            ident = (st.st_ino, gens.get(st.st_ino))
            if BREAK == "generation":
                ident = (st.st_ino, 0)
            i = inodes.get(ident)
            if i is None:
                i = read_inode(full, st, gens)
                inodes[ident] = i
            name = (pid, e.name)
            i.names.add(name)
            paths[name] = rel + b"/" + e.name
            if stat.S_ISDIR(st.st_mode):
                stack.append((full, rel + b"/" + e.name, ident))
    return inodes, paths


def changes(a, b):
    """The fields of FIELDS that differ between inodes @a and @b (same identity)."""
    out = []
    d = stat.S_ISDIR(a.type)
    if not d and a.content != b.content:
        out.append("content")
    if not d and a.size != b.size:
        out.append("size")
    if a.mode != b.mode:
        out.append("mode")
    if a.owner != b.owner:
        out.append("owner")
    if a.xattrs != b.xattrs:
        out.append("xattrs")
    if not d and a.mtime != b.mtime:
        out.append("times")
    if not d and a.nlink != b.nlink:
        out.append("links")
    return out


def diff(old, new):
    """Entries (letter, path bytes, second path bytes or fields) of two trees."""
    (oi, op), (ni, np) = old, new
    out = []
    for ident in set(oi) | set(ni):
        a, b = oi.get(ident), ni.get(ident)
        if b is None:
            out += [("-", op[n], None) for n in a.names]
            continue
        if a is None:
            out += [("+", np[n], None) for n in b.names]
            continue
        gone, came, kept = a.names - b.names, b.names - a.names, a.names & b.names
        ch = changes(a, b)
        if len(gone) == 1 and len(came) == 1:
            (g,), (c,) = gone, came
            out.append(("R", op[g], np[c]))
            if ch:
                out.append(("M", np[c], ch))
            continue
        out += [("-", op[n], None) for n in gone]
        out += [("+", np[n], None) for n in came]
        if ch:
            out += [("M", np[n], ch) for n in kept]
    out.sort(key=lambda e: (e[1], RANK[e[0]], e[2] if e[0] == "R" else b""))
    return out


def fmt(entries, tabs=False):
    lines = []
    for letter, p, x in entries:
        if letter == "R":
            lines.append("R\t%s\t%s" % (esc(p), esc(x)) if tabs else "R\t%s -> %s" % (esc(p), esc(x)))
        elif letter == "M":
            lines.append("M\t%s\t%s" % (esc(p), ",".join(x)) if tabs else
                         "M\t%s\t(%s)" % (esc(p), ", ".join(x)))
        else:
            lines.append("%s\t%s" % (letter, esc(p)))
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-H", action="store_true", help="tab-separated fields")
    ap.add_argument("old")
    ap.add_argument("new")
    a = ap.parse_args()
    for line in fmt(diff(tree(a.old), tree(a.new)), a.H):
        sys.stdout.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
