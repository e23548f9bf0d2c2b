#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""senddump.py [--log OPS] [--dump-btrfs BIN] [--json FILE] OLD NEW: the send stream's view of a pair.

Runs `btrfs send --no-data -p OLD NEW >FILE; BIN receive --dump <FILE` (BIN: --dump-btrfs,
default /work/progs619/btrfs when it is there, else btrfs: Debian's 6.2 prints
xattr values and clone sources unescaped, which can break a line), replays
the dump on the names of OLD (mkfile/mkdir/symlink/mknod/... create,
rename/link/unlink/rmdir move names, the rest touch an inode), and prints the
result in walkdiff's form (one line per path, walkdiff.py's sort), then
compares it with walkdiff.py's diff of the same pair:

    false: M<TAB>/path<TAB>FIELD<TAB>CLASS   a change the stream claims and the walk does not see
    miss:  LINE                              a walk line the stream does not give
    class COUNT CLASS  (first paths)
    senddump: N lines, F false modifications, M misses, U unparsed dump lines

Fields of the stream: write/update_extent/clone/encoded_write/fallocate ->
content (and size when one ends past the old size), truncate -> size and
content, chmod -> mode, chown -> owner, set_xattr/remove_xattr -> xattrs,
utimes -> times, a name count changed -> links.  A send that fails is tried
3 times (its error is printed each time).
--log OPS (pairgen's log) adds the operations that named each falsely
modified path, for finding the cause.  Exit 0 (counts are the result), 2 on
errors.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import walkdiff  # noqa: E402

FIELD = {"extent past the old size": "size", "write": "content", "update_extent": "content", "clone": "content", "encoded_write": "content",
         "fallocate": "content", "truncate": "size", "chmod": "mode", "chown": "owner",
         "set_xattr": "xattrs", "remove_xattr": "xattrs", "utimes": "times", "fileattr": "fileattr",
         "enable_verity": "fileattr"}
CREATE = {"mkfile", "mkdir", "mknod", "mkfifo", "mksock", "symlink"}
ESC = {"a": 7, "b": 8, "e": 27, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, " ": 32, "\\": 92}


def tokens(line):
    """Split a dump line (bytes) at unescaped spaces; unescape each token.
    A tab is part of a token (6.2 prints clone sources with raw tabs)."""
    out, cur, i, n = [], bytearray(), 0, len(line)
    while i < n:
        c = line[i]
        if c == 0x5C and i + 1 < n:
            d = chr(line[i + 1])
            if d in ESC:
                cur.append(ESC[d])
                i += 2
                continue
            if i + 4 <= n and all(0x30 <= x <= 0x37 for x in line[i + 1:i + 4]):
                cur.append(int(line[i + 1:i + 4], 8))
                i += 4
                continue
        if c == 0x20:
            if cur:
                out.append(bytes(cur))
                cur = bytearray()
        else:
            cur.append(c)
        i += 1
    if cur:
        out.append(bytes(cur))
    return out


def strip_top(p):
    """./SNAP/rest -> rest (b'' for the top itself)."""
    if p.startswith(b"./"):
        p = p[2:]
    return p.split(b"/", 1)[1] if b"/" in p else b""


def run_dump(old, new, dumpbin):
    """The dump lines; the stream goes through a file, not a pipe: receive
    --dump may exit at the end command while send still writes (SIGPIPE)."""
    for attempt in range(3):
        with subprocess_tmp() as stream, subprocess_tmp() as errf:
            rc = subprocess.run(["btrfs", "send", "--no-data", "-p", old, new], stdout=stream,
                                stderr=errf).returncode
            stream.seek(0)
            recv = subprocess.run([dumpbin, "receive", "--dump"], stdin=stream, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
            errf.seek(0)
            err = errf.read()
        if rc == 0 and recv.returncode == 0:
            return recv.stdout.split(b"\n")
        print("senddump: attempt %d: send exit %d, receive exit %d: %s %s" % (
            attempt + 1, rc, recv.returncode, err.decode(errors="replace").strip(),
            recv.stderr.decode(errors="replace").strip()), file=sys.stderr)
        time.sleep(1)
    raise RuntimeError("send/receive --dump failed 3 times")


def subprocess_tmp():
    return tempfile.TemporaryFile(dir=os.environ.get("TMPDIR") or "/tmp")


def replay(lines, oldtree, newtree):
    """(entries in walkdiff's form, {ident: set of commands}, unparsed lines)."""
    oi, op = oldtree
    ni, np = newtree
    cur = {}                                   # path bytes (no leading /) -> object
    owner = name_owner(oi)
    for name, p in op.items():
        cur[p.lstrip(b"/")] = ("old", owner[name])
    touched, unparsed, nnew, ends = {}, 0, 0, {}
    for line in lines:
        if not line.strip():
            continue
        t = tokens(line)
        if len(t) < 2:
            unparsed += 1
            continue
        cmd, path = t[0].decode(errors="replace"), strip_top(t[1])
        kv = {}
        for x in t[2:]:
            if b"=" in x:
                k, v = x.split(b"=", 1)
                kv[k.decode(errors="replace")] = v
        try:
            if cmd == "snapshot":
                continue
            if cmd in CREATE:
                nnew += 1
                cur[path] = ("new", nnew)
            elif cmd == "rename":
                dst = strip_top(kv["dest"])
                moved = {k: v for k, v in cur.items() if k == path or k.startswith(path + b"/")}
                for k in moved:
                    del cur[k]
                for k, v in moved.items():
                    cur[dst + k[len(path):]] = v
            elif cmd == "link":
                cur[path] = cur[kv["dest"].lstrip(b"/")]
            elif cmd in ("unlink", "rmdir"):
                del cur[path]
            elif cmd in FIELD:
                touched.setdefault(cur[path], set()).add(cmd)
                if FIELD[cmd] == "content" and "offset" in kv and "len" in kv:
                    end = int(kv["offset"]) + int(kv["len"])
                    ends[cur[path]] = max(ends.get(cur[path], 0), end)
            else:
                unparsed += 1
        except KeyError:
            unparsed += 1
    # the objects as identities of NEW: created ones by their final path
    ident_of = {}
    npath = {p.lstrip(b"/"): n for n, p in np.items()}
    for p, obj in cur.items():
        if obj[0] == "old":
            ident_of[obj] = obj[1]
        elif obj not in ident_of:
            ident_of[obj] = ident_at(ni, npath, p)
    names = {}
    for p, obj in cur.items():
        if p == b"":
            names.setdefault(ident_of[obj], set()).add(None)
            continue
        par, base = (p.rsplit(b"/", 1) if b"/" in p else (b"", p))
        names.setdefault(ident_of[obj], set()).add((ident_of[cur[par]], base))
    spaths = {}
    for p, obj in cur.items():
        if p:
            par, base = (p.rsplit(b"/", 1) if b"/" in p else (b"", p))
            spaths[(ident_of[cur[par]], base)] = b"/" + p
    spaths[None] = b"/"
    cmds = {}
    for obj, cs in touched.items():
        if obj[0] == "old":
            cmds[obj[1]] = set(cs)
            if ends.get(obj, 0) > oi[obj[1]].size:
                cmds[obj[1]].add("extent past the old size")
    out = []
    for ident in set(oi) | set(names):
        a = oi.get(ident)
        b = names.get(ident, set())
        an = a.names if a else set()
        if not b:
            out += [("-", op[n], None) for n in an]
            continue
        if not a:
            out += [("+", spaths[n], None) for n in b]
            continue
        gone, came, kept = an - b, b - an, an & b
        fields = {FIELD[c] for c in cmds.get(ident, ())}
        if "truncate" in cmds.get(ident, ()):
            fields.add("content")           # a new length is new bytes
        fields = sorted(fields, key=field_rank)
        if len(an) != len(b):
            fields.append("links")
        if len(gone) == 1 and len(came) == 1:
            (g,), (c,) = gone, came
            out.append(("R", op[g], spaths[c]))
            if fields:
                out.append(("M", spaths[c], fields))
            continue
        out += [("-", op[n], None) for n in gone]
        out += [("+", spaths[n], None) for n in came]
        if fields:
            out += [("M", spaths[n], fields) for n in kept]
    out.sort(key=lambda e: (e[1], walkdiff.RANK[e[0]], e[2] if e[0] == "R" else b""))
    return out, cmds, unparsed


def field_rank(f):
    return walkdiff.FIELDS.index(f) if f in walkdiff.FIELDS else 99


_owner_cache = {}


def name_owner(inodes):
    k = id(inodes)
    if k not in _owner_cache:
        _owner_cache[k] = {n: i.ident for i in inodes.values() for n in i.names}
    return _owner_cache[k]


def ident_at(ni, npath, p):
    n = npath.get(p)
    if n is None:
        return ("stream-only", p)
    return name_owner(ni)[n]


def all_paths(p, oldtree, newtree):
    """Every path, old and new, of the inode at @p in NEW (for finding it in the log)."""
    (oi, op), (ni, np) = oldtree, newtree
    byp = {v: k for k, v in np.items()}
    ident = name_owner(ni).get(byp.get(p))
    out = {p}
    for tree_i, tree_p in ((oi, op), (ni, np)):
        if ident in tree_i:
            out |= {tree_p[n] for n in tree_i[ident].names}
    return sorted(out)


def items(entries):
    """Entries as comparable items: M split into one item per field."""
    out = {}
    for letter, p, x in entries:
        if letter == "M":
            for f in x:
                out[("M", p, f)] = (letter, p, x)
        else:
            out[(letter, p, x)] = (letter, p, x)
    return out


def classify(item, sitems_cmds, oldtree, newtree):
    letter, p, f = item
    if letter != "M":
        return "names: %s line the walk does not have" % letter
    ni, np = newtree
    owner = name_owner(ni)
    byp = {v: k for k, v in np.items()}
    ident = owner.get(byp.get(p))
    inode = ni.get(ident)
    kind = "dir" if inode and walkdiff.stat.S_ISDIR(inode.type) else "file" if inode and \
        walkdiff.stat.S_ISREG(inode.type) else "other"
    cs = sorted(c for c in sitems_cmds.get(ident, ()) if FIELD.get(c) == f or
                (f == "content" and c == "truncate"))
    if kind == "dir" and f == "times":
        return "dir times: utimes of a directory whose entries changed"
    if f == "times":
        return "%s times: utimes, mtime unchanged (ctime/atime only)" % kind
    return "%s %s: %s, %s unchanged" % (kind, f, "+".join(cs) or f, "bytes" if f == "content" else f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--log")
    ap.add_argument("--dump-btrfs", default=None)
    ap.add_argument("--json")
    ap.add_argument("--print", action="store_true", help="also print the stream's diff lines")
    ap.add_argument("old")
    ap.add_argument("new")
    a = ap.parse_args()
    dumpbin = a.dump_btrfs or ("/work/progs619/btrfs" if os.access("/work/progs619/btrfs", os.X_OK)
                               else "btrfs")
    try:
        old, new = walkdiff.tree(a.old), walkdiff.tree(a.new)
        lines = run_dump(a.old, a.new, dumpbin)
    except (OSError, RuntimeError) as e:
        print("senddump: %s" % e, file=sys.stderr)
        return 2
    sent, cmds, unparsed = replay(lines, old, new)
    walk = walkdiff.diff(old, new)
    si, wi = items(sent), items(walk)
    ops = []
    if a.log:
        with open(a.log, errors="replace") as fh:
            ops = fh.read().split("\n")
    if a.print:
        for line in walkdiff.fmt(sent):
            print("stream: " + line)
    classes = {}
    false = [k for k in si if k not in wi]
    false.sort(key=lambda k: (k[1], k[0], str(k[2])))
    for k in false:
        c = classify(k, cmds, old, new)
        classes.setdefault(c, []).append(k[1])
        why = ""
        if ops:
            rels = [walkdiff.esc(x) for x in all_paths(k[1], old, new)]
            why = "\t" + "; ".join(o for o in ops if any((" " + r + " ") in (" " + o + " ")
                                                          for r in rels))[:400]
        print("false: %s\t%s\t%s\t%s%s" % (k[0], walkdiff.esc(k[1]), k[2] if k[0] == "M" else "", c, why))
    miss = sorted((k for k in wi if k not in si), key=lambda k: (k[1], k[0], str(k[2])))
    for k in miss:
        print("miss: %s\t%s\t%s" % (k[0], walkdiff.esc(k[1]), k[2] if k[0] == "M" else
                                     walkdiff.esc(k[2]) if k[2] else ""))
    for c in sorted(classes):
        print("class %d %s  (%s)" % (len(classes[c]), c,
                                      ", ".join(walkdiff.esc(p) for p in classes[c][:3])))
    print("senddump: %d dump lines, %d stream diff lines, %d walk lines, %d false modifications, "
          "%d misses, %d unparsed dump lines" % (len([x for x in lines if x.strip()]), len(sent), len(walk),
                                                 len(false), len(miss), unparsed))
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"dump_lines": len([x for x in lines if x.strip()]), "stream_lines": len(sent),
                       "walk_lines": len(walk), "false": len(false), "misses": len(miss),
                       "unparsed": unparsed, "classes": {c: len(v) for c, v in classes.items()}}, fh,
                      indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
