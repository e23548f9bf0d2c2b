#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""gentree.py SEED DIR [--scale small|large] [--order-seed N] [--no-root]

Make a random directory tree in DIR (created, must not exist or be empty)
from SEED: the same seed gives the same tree.  Every choice comes from one
random.Random(SEED) and is made before anything is created; --order-seed N
shuffles the order in which the inodes are created (parents first), so two
copies of one tree made in different orders can be compared.

What a tree holds (each seed picks its own mix): names of any bytes but '/'
and NUL (UTF-8, newline, tab, 255-byte names, names that differ only in
case), a chain of directories 30+ deep, empty files and directories, files
at the inline limits +-1 (2047-2049, 4095-4097) and of random sizes, in
--scale large files of 128 MiB +-1, sparse files (holes at the start, in
the middle, at the end), hard links (about 70 long names to one inode in
one directory, so its refs overflow one INODE_REF item; up to 1000 links to
one inode in large), xattrs in user.*, trusted.* and security.*, POSIX
ACLs (access and default, in the binary xattr format), a value near the
source filesystem's xattr limit, suid/sgid/sticky modes, random owners,
character and block devices (1:3, 8:1, 259:7, large numbers), fifos, unix
sockets, symlinks up to 4095 bytes (dangling ones too), and times with
nanoseconds, before 1970 and far in the future.

--symlink-max N cuts the symlinks to N bytes and leaves the rest of the tree
as it is (mkfs.btrfs 6.2 and 6.19 cannot take a 4095-byte one).

Without root (or with --no-root) there are no devices, no chown and no
trusted.* or security.* xattrs.  DIR should be on a filesystem that takes
all of it: a scratch btrfs (xattr values to ~16 KiB) or tmpfs.
"""

import argparse
import errno
import os
import random
import socket
import stat
import struct
import sys

SECTOR = 4096
MAX_EXTENT = 128 * 1024 * 1024
PATH_BUDGET = 3900          # keep every path below PATH_MAX

# POSIX ACL xattr format (include/uapi/linux/posix_acl_xattr.h)
ACL_USER_OBJ, ACL_USER, ACL_GROUP_OBJ, ACL_GROUP, ACL_MASK, ACL_OTHER = \
    0x01, 0x02, 0x04, 0x08, 0x10, 0x20


def acl_blob(entries):
    """entries: list of (tag, perm, id), written in the order of libacl
    (by tag, then id), so a copy by setfacl or cp -a has the same bytes"""
    out = struct.pack('<I', 2)
    for tag, perm, ident in sorted(entries, key=lambda e: (e[0], e[2] or 0)):
        out += struct.pack('<HHI', tag, perm, ident if ident is not None
                           else 0xffffffff)
    return out


class Plan:
    """Everything a seed makes, decided up front"""

    def __init__(self, seed, scale, root, symlink_max=4095):
        self.rng = random.Random(seed)
        self.scale = scale
        self.root = root            # may create devices, chown, trusted.*
        self.dirs = [b'']           # relative paths, b'' is DIR itself
        self.children = {b'': set()}
        self.inodes = []            # dicts, see add_inode()
        self.symlink_max = symlink_max

    # ---- names ---------------------------------------------------------
    def rand_name(self, parent, maxlen=40):
        r = self.rng
        room = PATH_BUDGET - len(parent) - 1
        maxlen = max(1, min(maxlen, room, 255))
        kind = r.random()
        if kind < 0.45:
            n = r.randint(1, min(maxlen, 12))
            name = bytes(r.choice(b'abcdefghijklmnopqrstuvwxyzABCDEFGHIJ'
                                  b'KLMNOPQRSTUVWXYZ0123456789_-.')
                         for _ in range(n))
        elif kind < 0.65:       # UTF-8
            words = ['é', 'ß', 'Ω', 'дом', '文件', '🙂', 'naïve', 'Ǆ', 'x']
            name = ''.join(r.choice(words) for _ in range(r.randint(1, 4)))
            name = name.encode()[:maxlen]
            name = name.decode('utf-8', 'ignore').encode() or b'u'
        elif kind < 0.75:       # control characters
            name = bytes(r.choice(b'ab \t\n\r\x01\x7f') for _ in
                         range(r.randint(1, min(maxlen, 8))))
        else:                   # any byte but '/' and NUL
            name = bytes(r.choice([c for c in range(1, 256) if c != 0x2f])
                         for _ in range(r.randint(1, maxlen)))
        if name in (b'.', b'..'):
            name += b'_'
        return name

    def new_path(self, parent, name=None, maxlen=40):
        for _ in range(1000):
            n = name if name is not None else self.rand_name(parent, maxlen)
            name = None
            if n not in self.children[parent]:
                self.children[parent].add(n)
                return parent + b'/' + n if parent else n
        raise RuntimeError('no free name')

    def pick_dir(self):
        return self.rng.choice(self.dirs)

    def add_dir(self, parent, name=None, maxlen=40):
        p = self.new_path(parent, name, maxlen)
        self.dirs.append(p)
        self.children[p] = set()
        self.add_inode('dir', [p])
        return p

    def add_inode(self, kind, paths, **kw):
        ino = dict(kind=kind, paths=paths, **kw)
        self.inodes.append(ino)
        return ino

    # ---- the tree --------------------------------------------------------
    def build(self):
        r = self.rng
        large = self.scale == 'large'
        self.root_ino = self.add_inode('dir', [b''])
        for _ in range(r.randint(6, 12) * (4 if large else 1)):
            self.add_dir(self.pick_dir())
        # a deep chain
        d = self.pick_dir()
        for _ in range(r.randint(30, 40)):
            d = self.add_dir(d, maxlen=6)
        # names that differ only in case, a 255-byte one, newline and tab
        d = self.pick_dir()
        for n in (b'Case', b'case', b'CASE', b'cAsE'):
            self.add_file(d, name=n)
        p = b''
        self.add_file(p, name=bytes(r.choice(b'abcdefgh') for _ in range(255)))
        self.add_file(p, name=('é' * 127).encode() + b'z')     # 255 bytes
        self.add_file(self.pick_dir(), name=b'new\nline')
        self.add_file(self.pick_dir(), name=b'tab\there')
        for _ in range(r.randint(2, 4)):
            self.add_dir(self.pick_dir())       # empty ones
        # files at the inline limits and random ones
        for size in (0, 0, 1, 2047, 2048, 2049, 4095, 4096, 4097,
                     SECTOR * 2 + 1, 65536):
            if r.random() < 0.85:
                self.add_file(self.pick_dir(), size=size)
        for _ in range(r.randint(15, 40) * (3 if large else 1)):
            size = r.choice([r.randint(0, 5000), r.randint(0, 300000),
                             r.randint(0, 2 << 20 if large else 600000)])
            self.add_file(self.pick_dir(), size=size)
        if large:
            for size in (MAX_EXTENT - 1, MAX_EXTENT, MAX_EXTENT + 1):
                self.add_file(self.pick_dir(), size=size)
        # sparse files
        for shape in ('start', 'middle', 'end', 'all', 'mixed'):
            self.add_sparse(shape)
        # hard links: one group of long names in one directory (INODE_EXTREF),
        # a few small groups across directories, many links in large
        d = self.add_dir(b'', maxlen=8)
        n = r.randint(64, 80)
        names = []
        for i in range(n):
            base = b'%03d-' % i
            names.append(self.new_path(d, base + bytes(
                r.choice(b'LINKlink') for _ in range(255 - len(base)))))
        self.add_file(None, paths=names, size=r.randint(0, 3000))
        for _ in range(r.randint(2, 5)):
            k = r.randint(2, 6)
            self.add_file(None, paths=[self.new_path(self.pick_dir())
                                       for _ in range(k)],
                          size=r.randint(0, 9000))
        if large:
            k = r.randint(900, 1000)
            self.add_file(None, paths=[self.new_path(self.pick_dir(),
                                                     maxlen=20)
                                       for _ in range(k)], size=100)
        # symlinks
        for _ in range(r.randint(4, 10)):
            self.add_symlink(self.pick_dir())
        self.add_symlink(self.pick_dir(), length=4095)
        self.add_symlink(self.pick_dir(), target=b'does/not/exist')
        # special files
        for _ in range(r.randint(1, 3)):
            self.add_inode('fifo', [self.new_path(self.pick_dir())],
                           **self.meta('fifo'))
        for _ in range(r.randint(1, 3)):
            self.add_inode('sock', [self.new_path(self.pick_dir(),
                                                  maxlen=40)],
                           **self.meta('sock'))
        if self.root:
            devs = [('chr', 1, 3), ('blk', 8, 1), ('blk', 259, 7),
                    ('chr', 4095, 1048575), ('chr', 0, 0),
                    ('blk', r.randint(1, 4095), r.randint(256, 1048575))]
            for kind, ma, mi in devs:
                if r.random() < 0.8 or (ma, mi) == (1, 3):
                    self.add_inode(kind, [self.new_path(self.pick_dir())],
                                   rdev=(ma, mi), **self.meta(kind))
        # metadata of the root and of every directory
        for ino in self.inodes:
            if ino['kind'] == 'dir':
                ino.update(self.meta('dir'))
        # a value near the source filesystem's xattr limit on one file
        big = self.add_file(self.pick_dir(), size=r.randint(0, 100))
        big['bigxattr'] = r.getrandbits(32)

    def add_file(self, parent, name=None, paths=None, size=None):
        if paths is None:
            paths = [self.new_path(parent, name)]
        if size is None:
            size = self.rng.choice([0, 1, self.rng.randint(0, 10000)])
        return self.add_inode('file', paths, size=size,
                              data=[(0, size, self.rng.getrandbits(64),
                                     self.rng.random())],
                              **self.meta('file'))

    def add_sparse(self, shape):
        r = self.rng
        size = r.randint(3, 40) * SECTOR + r.choice([0, 1, 777])
        blocks = size // SECTOR
        data = []
        if shape == 'start':        # a hole, then data to the end
            off = r.randint(1, blocks - 1) * SECTOR
            data.append((off, size - off))
        elif shape == 'end':        # data, then a hole to the size
            data.append((0, r.randint(1, blocks - 1) * SECTOR))
        elif shape == 'middle':
            a = r.randint(1, blocks // 2) * SECTOR
            data.append((0, a))
            b = r.randint(a // SECTOR + 1, blocks - 1) * SECTOR
            data.append((b, size - b))
        elif shape == 'mixed':      # unaligned writes, holes between
            off = r.randint(0, 3 * SECTOR)
            while off < size:
                n = min(r.randint(1, 3 * SECTOR), size - off)
                data.append((off, n))
                off += n + r.randint(SECTOR, 5 * SECTOR)
        # 'all': only a hole
        chunks = [(o, n, r.getrandbits(64), r.random()) for o, n in data]
        return self.add_inode('file', [self.new_path(self.pick_dir())],
                              size=size, data=chunks, sparse=shape,
                              **self.meta('file'))

    def add_symlink(self, parent, length=None, target=None):
        r = self.rng
        if target is None:
            if length is None:
                length = r.choice([1, r.randint(1, 60), r.randint(60, 4095)])
            parts = []
            while len(b'/'.join(parts)) < length:
                parts.append(self.rand_name(b'', maxlen=30))
            target = b'/'.join(parts)[:length]
            if target.endswith(b'/'):       # keep the length exact
                target = target[:-1] + b'x'
        # capped after every choice: the rest of the tree stays the same
        target = target[:self.symlink_max]
        return self.add_inode('symlink', [self.new_path(parent)],
                              target=target, **self.meta('symlink'))

    # ---- metadata --------------------------------------------------------
    def rand_time(self):
        r = self.rng
        sec = r.choice([0, -1, 1, 2 ** 31 - 1, 2 ** 31, -2 ** 31,
                        -2 ** 31 - 1, r.randint(-2 ** 33, -1),
                        r.randint(0, 2 ** 31), r.randint(2 ** 31, 2 ** 34),
                        1700000000 + r.randint(0, 10 ** 8)])
        nsec = r.choice([0, 1, 999999999, 123456789, r.randint(0, 999999999)])
        return sec * 10 ** 9 + nsec

    def meta(self, kind):
        r = self.rng
        m = {}
        if kind != 'symlink':
            perm = r.getrandbits(9)
            special = r.choice([0, 0, 0o4000, 0o2000, 0o1000, 0o7000])
            if not self.root:
                perm |= 0o700 if kind == 'dir' else 0o600
            m['mode'] = perm | special
        if self.root:
            m['owner'] = (r.choice([0, 0, 1000, 65534, r.randint(1, 2 ** 32 - 2)]),
                          r.choice([0, 0, 1000, 65534, r.randint(1, 2 ** 32 - 2)]))
        m['times'] = (self.rand_time(), self.rand_time())
        xa = []
        user_ok = kind in ('file', 'dir')
        for _ in range(r.choice([0, 0, 1, 2, 4])):
            ns = r.choice(['user.', 'trusted.', 'security.'] if self.root
                          else ['user.'])
            if ns == 'user.' and not user_ok:
                continue
            name = (ns + 'x' + ''.join(r.choice('abcdefgh0123._-')
                                       for _ in range(r.randint(0, 40)))).encode()
            size = r.choice([0, 1, r.randint(0, 100), r.randint(100, 3000)])
            xa.append((name, r.randbytes(size)))
        m['xattrs'] = xa
        if kind in ('file', 'dir') and r.random() < 0.25:
            # (without root the owner keeps rwx on directories, rw on files)
            own = r.randint(0, 7) | (0 if self.root else 7 if kind == 'dir' else 6)
            ent = [(ACL_USER_OBJ, own, None),
                   (ACL_GROUP_OBJ, r.randint(0, 7), None),
                   (ACL_OTHER, r.randint(0, 7), None)]
            named = r.randint(0, 3)
            ids = r.sample(range(1, 70000), named * 2)
            for i in range(named):
                ent.append((ACL_USER, r.randint(0, 7), ids[i]))
                ent.append((ACL_GROUP, r.randint(0, 7), ids[named + i]))
            if named:
                ent.append((ACL_MASK, r.randint(0, 7), None))
            m['acl_access'] = acl_blob(ent)
            if kind == 'dir' and r.random() < 0.6:
                m['acl_default'] = acl_blob(ent)
        return m

    # ---- the order -------------------------------------------------------
    def order(self, order_seed):
        """inodes in creation order: directories by depth, the rest after"""
        dirs = [i for i in self.inodes if i['kind'] == 'dir']
        rest = [i for i in self.inodes if i['kind'] != 'dir']
        if order_seed is not None:
            o = random.Random(order_seed)
            o.shuffle(dirs)
            o.shuffle(rest)
            for i in rest:
                if len(i['paths']) > 1:
                    o.shuffle(i['paths'])
        dirs.sort(key=lambda i: i['paths'][0].count(b'/') if i['paths'][0]
                  else -1)
        return dirs, rest


def fill(fd, off, length, seed, kind):
    """write LENGTH bytes at OFF: random, text-like or zero-rich by KIND"""
    g = random.Random(seed)
    done = 0
    while done < length:
        n = min(1 << 20, length - done)
        if kind < 0.6:
            buf = g.randbytes(n)
        elif kind < 0.85:           # compressible
            buf = (b'volctl rootdir %d ' % seed) * (n // 20 + 1)
            buf = buf[:n]
        else:                       # zero blocks that are not holes
            buf = bytes(n // 2) + g.randbytes(n - n // 2)
        os.pwrite(fd, buf, off + done)
        done += n


def set_big_xattr(path, seed):
    """a user.* value near the limit of a btrfs with 16 KiB nodes (name and
    value in one leaf item, ~16.2 KiB); smaller steps where the source
    filesystem takes less (ext4: one block)"""
    g = random.Random(seed)
    size = 16200 - g.randint(0, 64)
    value = g.randbytes(size)
    while size > 0:
        try:
            os.setxattr(path, b'user.big', value[:size])
            return
        except OSError as e:
            if e.errno not in (errno.ENOSPC, errno.E2BIG, errno.ERANGE):
                raise
        size -= 256 if size > 4096 else 16


def create(plan, top, order_seed):
    dirs, rest = plan.order(order_seed)
    j = lambda p: os.path.join(top, p) if p else top
    for ino in dirs:
        if ino['paths'][0]:
            os.mkdir(j(ino['paths'][0]), 0o700)
    for ino in rest:
        p = j(ino['paths'][0])
        k = ino['kind']
        if k == 'file':
            fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            for off, n, seed, kind in ino['data']:
                fill(fd, off, n, seed, kind)
            os.ftruncate(fd, ino['size'])
            os.close(fd)
        elif k == 'symlink':
            os.symlink(ino['target'], p)
        elif k == 'fifo':
            os.mkfifo(p, 0o600)
        elif k == 'sock':
            parent, name = os.path.split(p)
            cwd = os.open('.', os.O_RDONLY)
            os.chdir(parent)
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.bind(name)
            finally:
                s.close()
                os.fchdir(cwd)
                os.close(cwd)
        elif k in ('chr', 'blk'):
            t = stat.S_IFCHR if k == 'chr' else stat.S_IFBLK
            os.mknod(p, t | 0o600, os.makedev(*ino['rdev']))
        for extra in ino['paths'][1:]:
            os.link(p, j(extra))
    # metadata last, deepest first, so that creating children does not move
    # a directory's times and no default ACL is inherited
    allino = sorted(dirs + rest, key=lambda i: -i['paths'][0].count(b'/')
                    if i['paths'][0] else 1)
    for ino in allino:
        p = j(ino['paths'][0])
        if 'owner' in ino:
            os.chown(p, *ino['owner'], follow_symlinks=False)
        if 'mode' in ino:
            os.chmod(p, ino['mode'])
        for name, value in ino['xattrs']:
            try:
                os.setxattr(p, name, value, follow_symlinks=False)
            except OSError as e:
                # an LSM may refuse a security.* name; such a name is skipped
                if not (name.startswith(b'security.') and
                        e.errno in (errno.EPERM, errno.EOPNOTSUPP,
                                    errno.EINVAL)):
                    raise
        if 'bigxattr' in ino:
            set_big_xattr(p, ino['bigxattr'])
        for key, name in (('acl_access', b'system.posix_acl_access'),
                          ('acl_default', b'system.posix_acl_default')):
            if key in ino:
                os.setxattr(p, name, ino[key])
        # (an access ACL sets the permission bits and keeps the special ones)
        os.utime(p, ns=ino['times'], follow_symlinks=False)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog='\n\n'.join(__doc__.split('\n\n')[1:]))
    ap.add_argument('seed', type=int)
    ap.add_argument('dir')
    ap.add_argument('--scale', choices=['small', 'large'], default='small')
    ap.add_argument('--order-seed', type=int, default=None)
    ap.add_argument('--no-root', action='store_true',
                    help='no devices, chown, trusted.* or security.*')
    ap.add_argument('--symlink-max', type=int, default=4095, metavar='N',
                    help='cut symlink targets to N bytes (default 4095, the '
                    'most the kernel takes; the same tree otherwise)')
    a = ap.parse_args()
    root = os.geteuid() == 0 and not a.no_root
    top = os.fsencode(a.dir)
    if os.path.exists(top):
        if os.listdir(top):
            sys.exit('gentree: %s: not empty' % a.dir)
    else:
        os.mkdir(top)
    os.umask(0)
    plan = Plan(a.seed, a.scale, root, a.symlink_max)
    plan.build()
    create(plan, top, a.order_seed)
    print('gentree: seed %d: %d inodes, %d paths' %
          (a.seed, len(plan.inodes), sum(len(i['paths']) for i in plan.inodes)),
          file=sys.stderr)


if __name__ == '__main__':
    main()
