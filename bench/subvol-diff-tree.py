#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The tree of bench/subvol-diff.sh.

  subvol-diff-tree.py populate DIR FILES SEED
      FILES files of 1 to 4 KiB (random bytes) in directories of 100,
      d0000/f000 ... with a few symlinks; seeded.
  subvol-diff-tree.py change DIR FILES PCT SEED
      PCT % of the files changed, in equal parts: content rewritten (new
      bytes), appended to, chmod, renamed in their directory, moved to
      another directory, deleted, and as many new files created; one line
      per change on stdout ("KIND PATH").
"""
import os
import random
import sys

PER_DIR = 100


def name(i):
    return "d%04d/f%03d" % (i // PER_DIR, i % PER_DIR)


def populate(top, files, seed):
    rnd = random.Random(seed)
    for i in range(files):
        p = os.path.join(top, name(i))
        if i % PER_DIR == 0:
            os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(rnd.randbytes(rnd.randint(1024, 4096)))
        if i % 1000 == 1:
            os.symlink("f000", p + ".lnk")


def change(top, files, pct, seed):
    rnd = random.Random(seed + 1)
    n = max(7, files * pct // 100)
    picked = rnd.sample(range(files), n)
    kinds = ["rewrite", "append", "chmod", "rename", "move", "delete", "create"]
    for k, i in enumerate(picked):
        kind = kinds[k % len(kinds)]
        p = os.path.join(top, name(i))
        if kind == "rewrite":
            with open(p, "r+b") as f:
                f.write(rnd.randbytes(512))
        elif kind == "append":
            with open(p, "ab") as f:
                f.write(rnd.randbytes(100))
        elif kind == "chmod":
            os.chmod(p, 0o600)
        elif kind == "rename":
            os.rename(p, p + ".renamed")
        elif kind == "move":
            d = os.path.join(top, "d%04d" % rnd.randrange(files // PER_DIR or 1))
            os.rename(p, os.path.join(d, "moved-%d" % i))
        elif kind == "delete":
            os.unlink(p)
        else:
            p = os.path.join(os.path.dirname(p), "new-%d" % i)
            with open(p, "wb") as f:
                f.write(rnd.randbytes(rnd.randint(1024, 4096)))
        print(kind, os.path.relpath(p, top))


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "populate":
        populate(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif len(sys.argv) == 6 and sys.argv[1] == "change":
        change(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
