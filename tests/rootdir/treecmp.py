#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""treecmp.py MANIFEST ROOT [--owner U:G] [--uid-map F:T:N] [--gid-map F:T:N]
                 [--clamp EPOCH] [--skip-atime] [--skip FIELD,...]

Compare the tree at ROOT (a mounted image or a directory in one) with a
manifest of its source (manifest.py), inode by inode: type, mode, uid, gid,
size, nlink, rdev, atime, mtime, ctime, xattrs, content (sha256 of the data
or of the symlink target), data (the data ranges, so holes), and hard links
(the paths of one source inode are one inode in ROOT, and two source inodes
are two).  ROOT itself is compared too.  Paths missing on either side are
differences, so is any extra (a btrfs mkfs adds nothing, no lost+found).

The source values are mapped first: --owner U:G gives every inode that
owner; --uid-map/--gid-map F:T:N (repeatable) map ids F..F+N-1 to T.. as a
user namespace does, an unmapped id becomes 65534 (the ids in POSIX ACLs
are mapped the same way); --clamp EPOCH makes every time later than EPOCH
seconds EPOCH (SOURCE_DATE_EPOCH).

Output: one line per difference, "PATH: field: source X, image Y", exit 1;
or "N inodes equal" and exit 0.  Exit 2 on bad usage.
"""

import argparse
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True      # no __pycache__ in the tree
import manifest  # noqa: E402

FIELDS = ['type', 'mode', 'uid', 'gid', 'size', 'nlink', 'rdev', 'atime',
          'mtime', 'ctime', 'xattrs', 'content', 'data', 'links']
NOBODY = 65534
ACL_USER, ACL_GROUP = 0x02, 0x08


def parse_map(s):
    try:
        f, t, n = (int(x) for x in s.split(':'))
    except ValueError:
        raise argparse.ArgumentTypeError('%s: not FROM:TO:COUNT' % s)
    return f, t, n


def map_id(maps, i):
    if maps is None:
        return i
    for f, t, n in maps:
        if f <= i < f + n:
            return t + i - f
    return NOBODY


def map_acl(hexval, umap, gmap):
    b = bytes.fromhex(hexval)
    if len(b) < 4 or (len(b) - 4) % 8:
        return hexval
    out = b[:4]
    for off in range(4, len(b), 8):
        tag, perm, ident = struct.unpack_from('<HHI', b, off)
        if tag == ACL_USER:
            ident = map_id(umap, ident)
        elif tag == ACL_GROUP:
            ident = map_id(gmap, ident)
        out += struct.pack('<HHI', tag, perm, ident)
    return out.hex()


def fmt_time(ns):
    s, n = divmod(ns, 10 ** 9)
    return '%d.%09d' % (s, n)


def fmt_val(v):
    if isinstance(v, str) and len(v) > 64:
        return '%s...(%d bytes)' % (v[:32], len(v) // 2)
    return str(v)


def expected(src, a):
    """the source record as the image should have it"""
    e = dict(src)
    if a.owner:
        e['uid'], e['gid'] = a.owner
    e['uid'] = map_id(a.uid_map, e['uid'])
    e['gid'] = map_id(a.gid_map, e['gid'])
    if a.uid_map or a.gid_map:
        xa = dict(e['xattrs'])
        for k in ('system.posix_acl_access', 'system.posix_acl_default'):
            if k in xa:
                xa[k] = map_acl(xa[k], a.uid_map, a.gid_map)
        e['xattrs'] = xa
    if a.clamp is not None:
        lim = a.clamp * 10 ** 9
        for k in ('atime', 'mtime', 'ctime'):
            e[k] = min(e[k], lim)
    return e


def ancestors(path):
    while '/' in path:
        path = path.rsplit('/', 1)[0]
        yield path
    yield '.'


def inside(inner, outer):
    """every range of INNER within one of OUTER"""
    return all(any(a <= x and y <= b for a, b in outer) for x, y in inner)


def compare(path, e, g, skip, out, inherited=False, zero_holes=False):
    def diff(field, x, y):
        out.append('%s: %s: source %s, image %s' % (path, field, x, y))
    if e['type'] != g['type']:
        diff('type', e['type'], g['type'])
        return
    for f in ('mode', 'uid', 'gid', 'size', 'nlink', 'rdev'):
        if f not in skip and e[f] != g[f]:
            if f == 'mode':
                diff(f, '%o' % e[f], '%o' % g[f])
            else:
                diff(f, e[f], g[f])
    for f in ('atime', 'mtime', 'ctime'):
        if f not in skip and e[f] != g[f]:
            diff(f, fmt_time(e[f]), fmt_time(g[f]))
    if 'xattrs' not in skip:
        ex, gx = e['xattrs'], g['xattrs']
        for n in sorted(set(ex) | set(gx)):
            if n not in gx:
                diff('xattr ' + n, fmt_val(ex[n]), 'missing')
            elif n not in ex and inherited and n.startswith('system.posix_acl_'):
                continue
            elif n not in ex:
                diff('xattr ' + n, 'missing', fmt_val(gx[n]))
            elif ex[n] != gx[n]:
                diff('xattr ' + n, fmt_val(ex[n]), fmt_val(gx[n]))
    if 'content' not in skip and e.get('sha256') != g.get('sha256'):
        diff('content', 'sha256 ' + str(e.get('sha256'))[:16],
             'sha256 ' + str(g.get('sha256'))[:16])
    if 'data' not in skip and e.get('data') != g.get('data'):
        # the same bytes with fewer data ranges: only zeros became holes
        if not (zero_holes and e.get('sha256') == g.get('sha256') and
                inside(g.get('data') or [], e.get('data') or [])):
            diff('data', e.get('data'), g.get('data'))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog='\n\n'.join(__doc__.split('\n\n')[1:]))
    ap.add_argument('manifest')
    ap.add_argument('root')
    ap.add_argument('--owner', type=lambda s: tuple(int(x) for x in s.split(':')))
    ap.add_argument('--uid-map', type=parse_map, action='append')
    ap.add_argument('--gid-map', type=parse_map, action='append')
    ap.add_argument('--clamp', type=int)
    ap.add_argument('--skip-atime', action='store_true')
    ap.add_argument('--allow-inherited-acl', action='store_true',
                    help='an ACL in ROOT that the source lacks is no difference '
                    'when a source ancestor has a default ACL (btrfs receive '
                    'creates every inode in the top directory, then renames '
                    'it, and the kernel gives it the inherited ACL)')
    ap.add_argument('--allow-zero-holes', action='store_true',
                    help='holes in ROOT where the source has data of zeros are '
                    'no difference (the content is equal, the data ranges '
                    'fewer): cp and tools that punch holes in zero blocks')
    ap.add_argument('--skip-root', default='', metavar='FIELD,...',
                    help='fields not compared on ROOT itself')
    ap.add_argument('--skip', default='',
                    help='fields not compared, comma-separated: ' + ','.join(FIELDS))
    a = ap.parse_args()
    skip = set(x for x in a.skip.split(',') if x)
    skip_root = skip | set(x for x in a.skip_root.split(',') if x)
    bad = skip_root - set(FIELDS)
    if bad:
        ap.error('unknown field(s): ' + ','.join(sorted(bad)))
    if a.skip_atime:
        skip.add('atime')
    if a.owner and len(a.owner) != 2:
        ap.error('--owner wants UID:GID')
    with open(a.manifest) as f:
        src = json.load(f)['entries']
    img = manifest.collect(a.root)
    out = []
    for p in sorted(set(src) | set(img)):
        if p not in img:
            out.append('%s: path: source %s, image missing' % (p, src[p]['type']))
        elif p not in src:
            out.append('%s: path: source missing, image %s' % (p, img[p]['type']))
        else:
            inh = a.allow_inherited_acl and p != '.' and any(
                'system.posix_acl_default' in src.get(d, {}).get('xattrs', {})
                for d in ancestors(p))
            compare(p, expected(src[p], a), img[p],
                    skip_root if p == '.' else skip, out, inh, a.allow_zero_holes)
    if 'links' not in skip:
        # one source group <-> one image inode
        g2i, i2g = {}, {}
        for p in sorted(set(src) & set(img)):
            g = src[p].get('group')
            if g is None or img[p]['type'] == 'dir':
                continue
            i = img[p]['ino']
            if g in g2i and g2i[g][0] != i:
                out.append('%s: links: source one inode with %s, image another inode'
                           % (p, g2i[g][1]))
            g2i.setdefault(g, (i, p))
            if i in i2g and i2g[i][0] != g:
                out.append('%s: links: source another inode than %s, image the same inode'
                           % (p, i2g[i][1]))
            i2g.setdefault(i, (g, p))
    for line in out:
        print(line)
    if out:
        print('treecmp: %d differences' % len(out), file=sys.stderr)
        sys.exit(1)
    print('%d inodes equal' % len(set(r['ino'] for r in img.values())))


if __name__ == '__main__':
    main()
