#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
#
# Helper of bench/mkfs-rootdir.sh: the input tree and what is checked on
# every image made from it.
#
#   mkfs-rootdir-tree.py topup DIR MIN_ENTRIES   add generated small files
#                                                 until DIR holds MIN_ENTRIES
#   mkfs-rootdir-tree.py shape DIR               the tree's shape, as text
#   mkfs-rootdir-tree.py listing DIR             digest, entries and bytes of
#                                                 the metadata listing
#   mkfs-rootdir-tree.py content DIR             digest of every file's data
#   mkfs-rootdir-tree.py max-mtime DIR           the latest mtime, seconds
#
# The listing covers every entry below DIR (not DIR itself): path, type,
# mode, uid, gid, mtime in whole seconds (mkfs.btrfs 6.19 drops the
# nanoseconds), xattr names and values, and for non-directories size and
# link count (a directory's size and link count are the filesystem's own).
import hashlib
import os
import random
import stat
import sys


def walk(top):
    """Every entry below top, sorted by path bytes, as (relpath, lstat)."""
    out = []
    stack = [b'']
    topb = os.fsencode(top)
    while stack:
        rel = stack.pop()
        with os.scandir(os.path.join(topb, rel) if rel else topb) as it:
            for e in it:
                r = os.path.join(rel, e.name) if rel else e.name
                st = e.stat(follow_symlinks=False)
                out.append((r, st))
                if stat.S_ISDIR(st.st_mode):
                    stack.append(r)
    out.sort(key=lambda x: x[0])
    return out


def kind(mode):
    for test, k in ((stat.S_ISREG, 'f'), (stat.S_ISDIR, 'd'), (stat.S_ISLNK, 'l'),
                    (stat.S_ISCHR, 'c'), (stat.S_ISBLK, 'b'), (stat.S_ISFIFO, 'p'),
                    (stat.S_ISSOCK, 's')):
        if test(mode):
            return k
    return '?'


def xattrs(path):
    try:
        names = sorted(os.listxattr(path, follow_symlinks=False))
    except OSError:
        return b''
    parts = []
    for n in names:
        parts.append(n.encode() + b'=' + os.getxattr(path, n, follow_symlinks=False))
    return b'\0'.join(parts)


def listing(top):
    h = hashlib.sha256()
    entries = 0
    nbytes = 0
    seen = set()
    topb = os.fsencode(top)
    for rel, st in walk(top):
        k = kind(st.st_mode)
        line = [rel, k.encode(), b'%o' % stat.S_IMODE(st.st_mode),
                b'%d:%d' % (st.st_uid, st.st_gid)]
        if k != 'l':
            line.append(b'%d' % int(st.st_mtime))
        if k != 'd':
            line += [b'%d' % st.st_size, b'%d' % st.st_nlink]
        if k in ('c', 'b'):
            line.append(b'%d' % st.st_rdev)
        line.append(xattrs(os.path.join(topb, rel)))
        h.update(b'\t'.join(line) + b'\n')
        entries += 1
        if k == 'f' and (st.st_dev, st.st_ino) not in seen:
            seen.add((st.st_dev, st.st_ino))
            nbytes += st.st_size
    print('%s entries %d bytes %d' % (h.hexdigest(), entries, nbytes))


def content(top):
    h = hashlib.md5()
    topb = os.fsencode(top)
    for rel, st in walk(top):
        if not stat.S_ISREG(st.st_mode):
            continue
        f = hashlib.md5()
        with open(os.path.join(topb, rel), 'rb') as fp:
            while True:
                b = fp.read(1 << 20)
                if not b:
                    break
                f.update(b)
        h.update(rel + b'\0' + f.digest())
    print(h.hexdigest())


def max_mtime(top):
    print(max(int(st.st_mtime) + 1 for _, st in walk(top)))


BUCKETS = [(0, '0'), (2048, '1 B - 2 KiB (inline)'), (4096, '2 - 4 KiB'),
           (65536, '4 - 64 KiB'), (1 << 20, '64 KiB - 1 MiB'),
           (16 << 20, '1 - 16 MiB'), (128 << 20, '16 - 128 MiB'),
           (1 << 62, 'over 128 MiB')]


def shape(top):
    counts = {}
    inodes = {}
    xattr_inodes = 0
    depth = 0
    for rel, st in walk(top):
        k = kind(st.st_mode)
        counts[k] = counts.get(k, 0) + 1
        depth = max(depth, rel.count(b'/') + 1)
        key = (st.st_dev, st.st_ino)
        if key not in inodes:
            inodes[key] = st
            try:
                if os.listxattr(os.path.join(os.fsencode(top), rel), follow_symlinks=False):
                    xattr_inodes += 1
            except OSError:
                pass
    files = [st for st in inodes.values() if stat.S_ISREG(st.st_mode)]
    linked = [st for st in files if st.st_nlink > 1]
    names = counts.get('f', 0)
    data = sum(st.st_size for st in files)
    alloc = sum(st.st_blocks * 512 for st in files)
    sparse = sum(1 for st in files if st.st_blocks * 512 + 4096 <= st.st_size)
    biggest = max((st.st_size for st in files), default=0)
    print('entries %d: %d regular file names (%d inodes), %d directories, %d symlinks, %d other'
          % (sum(counts.values()), names, len(files), counts.get('d', 0),
             counts.get('l', 0), sum(v for k, v in counts.items() if k not in 'fdl')))
    print('hard links: %d inodes with more than one name, %d extra names'
          % (len(linked), names - len(files)))
    print('bytes: %d in regular files (%.2f GiB, each inode once), %d allocated in the source;'
          ' %d sparse files; largest %d; %d inodes with xattrs; depth %d'
          % (data, data / (1 << 30), alloc, sparse, biggest, xattr_inodes, depth))
    print('sizes (regular inodes): count, bytes')
    lo = -1
    for hi, label in BUCKETS:
        sel = [st.st_size for st in files if lo < st.st_size <= hi]
        print('  %-22s %8d %14d' % (label, len(sel), sum(sel)))
        lo = hi


def topup(top, want):
    have = len(walk(top))
    need = want - have
    if need <= 0:
        return
    rnd = random.Random(21)
    gen = os.path.join(top, 'generated')
    os.mkdir(gen)
    made = 1
    d = None
    files = []
    i = 0
    while made < need:
        if i % 100 == 0:
            d = os.path.join(gen, 'd%04d' % (i // 100))
            os.mkdir(d)
            made += 1
        p = os.path.join(d, 'f%06d' % i)
        r = rnd.random()
        if r < 0.1:
            size = 0
        elif r < 0.5:
            size = rnd.randint(1, 2048)
        elif r < 0.8:
            size = rnd.randint(2049, 16384)
        else:
            size = rnd.randint(16385, 131072)
        with open(p, 'wb') as fp:
            fp.write(rnd.randbytes(size))
        files.append(p)
        made += 1
        if i % 50 == 49 and made < need:
            os.link(p, p + '.link')
            made += 1
        if i % 100 == 99 and made < need:
            os.symlink(os.path.basename(files[-2]), p + '.sym')
            made += 1
        i += 1


def main():
    cmd, top = sys.argv[1], sys.argv[2]
    if cmd == 'topup':
        topup(top, int(sys.argv[3]))
    elif cmd == 'shape':
        shape(top)
    elif cmd == 'listing':
        listing(top)
    elif cmd == 'content':
        content(top)
    elif cmd == 'max-mtime':
        max_mtime(top)
    else:
        sys.exit('unknown command ' + cmd)


if __name__ == '__main__':
    main()
