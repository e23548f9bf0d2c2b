#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""manifest.py DIR > MANIFEST.json

One JSON record per path under DIR (DIR itself is "."): type, full st_mode,
uid, gid, size, nlink, rdev (major:minor), atime/mtime/ctime in ns, every
xattr (name and value in hex), the sha256 of the content (regular files) or
of the target (symlinks), the data ranges of regular files (SEEK_DATA /
SEEK_HOLE, so holes show), and a hard-link group (one source inode, one
group).  Paths are bytes, written with every byte outside printable ASCII,
and the backslash, as \\xNN.

Take it BEFORE the tool under test reads DIR: reading changes atimes under
relatime.  Every inode is lstat'ed before any content is read, and files
are opened with O_NOATIME where allowed, so the manifest records the times
as they were; but listing a directory moves its atime, and a later walk sees
that, unless DIR is mounted noatime (run-seed.sh mounts it so, which also
keeps the tool from moving any).
"""

import hashlib
import json
import os
import stat
import sys

TYPES = [(stat.S_ISDIR, 'dir'), (stat.S_ISREG, 'file'), (stat.S_ISLNK, 'symlink'),
         (stat.S_ISFIFO, 'fifo'), (stat.S_ISSOCK, 'sock'), (stat.S_ISCHR, 'chr'),
         (stat.S_ISBLK, 'blk')]


def esc(b):
    """bytes -> printable, reversible"""
    out = []
    for c in b:
        if 0x20 < c < 0x7f and c != 0x5c:
            out.append(chr(c))
        else:
            out.append('\\x%02x' % c)
    return ''.join(out)


def ftype(mode):
    for test, name in TYPES:
        if test(mode):
            return name
    return 'unknown'


def walk(top):
    """[(relpath bytes, abspath bytes, stat)], parents before children,
    siblings by name bytes; every inode lstat'ed before anything is read"""
    out = []
    stack = [(b'.', top)]
    while stack:
        rel, p = stack.pop()
        st = os.lstat(p)
        out.append((rel, p, st))
        if stat.S_ISDIR(st.st_mode):
            names = sorted(os.listdir(p), reverse=True)
            for n in names:
                stack.append((n if rel == b'.' else rel + b'/' + n,
                              os.path.join(p, n)))
    out.sort(key=lambda e: e[0])
    return out


def open_noatime(p):
    flags = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, 'O_CLOEXEC', 0)
    try:
        return os.open(p, flags | getattr(os, 'O_NOATIME', 0))
    except PermissionError:
        return os.open(p, flags)


def data_ranges(fd, size):
    ranges = []
    off = 0
    while off < size:
        try:
            d = os.lseek(fd, off, os.SEEK_DATA)
        except OSError:         # ENXIO: only a hole to the end
            break
        h = os.lseek(fd, d, os.SEEK_HOLE)
        ranges.append([d, min(h, size)])
        off = h
    return ranges


def record(p, st):
    t = ftype(st.st_mode)
    r = {'type': t, 'mode': st.st_mode, 'uid': st.st_uid, 'gid': st.st_gid,
         'size': st.st_size, 'nlink': st.st_nlink,
         'rdev': '%d:%d' % (os.major(st.st_rdev), os.minor(st.st_rdev)),
         'atime': st.st_atime_ns, 'mtime': st.st_mtime_ns,
         'ctime': st.st_ctime_ns}
    xa = {}
    try:
        names = os.listxattr(p, follow_symlinks=False)
    except OSError:
        names = []
    for n in sorted(names):
        try:
            v = os.getxattr(p, n, follow_symlinks=False)
        except OSError as e:
            v = ('error %d' % e.errno).encode()
        xa[esc(os.fsencode(n))] = v.hex()
    r['xattrs'] = xa
    if t == 'file':
        h = hashlib.sha256()
        fd = open_noatime(p)
        try:
            while True:
                b = os.read(fd, 1 << 20)
                if not b:
                    break
                h.update(b)
            r['data'] = data_ranges(fd, st.st_size)
        finally:
            os.close(fd)
        r['sha256'] = h.hexdigest()
    elif t == 'symlink':
        r['sha256'] = hashlib.sha256(os.readlink(p)).hexdigest()
    return r


def collect(top):
    """{escaped path: record}, with 'group' and the image's 'ino'"""
    top = os.fsencode(top)
    entries = walk(top)
    groups = {}
    recs = {}
    for rel, p, st in entries:
        r = record(p, st)
        if r['type'] != 'dir':
            key = (st.st_dev, st.st_ino)
            r['group'] = groups.setdefault(key, len(groups))
        r['ino'] = '%d:%d' % (st.st_dev, st.st_ino)
        recs[esc(rel)] = r
    return recs


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ('-h', '--help'):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) == 2 else 2)
    recs = collect(sys.argv[1])
    for r in recs.values():
        del r['ino']
    json.dump({'version': 1, 'entries': recs}, sys.stdout, indent=None,
              separators=(',', ':'), sort_keys=True)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
