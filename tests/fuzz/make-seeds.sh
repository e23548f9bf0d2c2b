#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build fuzz seeds for fuzz-reader.c from small mkfs.btrfs images: every
# non-zero 4 KiB page becomes a { le32 page index, page } record.
# Usage: tests/fuzz/make-seeds.sh [OUTDIR]   (default tests/fuzz/seeds)
set -eu
out=${1:-$(dirname "$0")/seeds}
tmp=$(mktemp -d /tmp/offline/seeds-XXXXXX 2>/dev/null || mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
mkdir -p "$tmp/root" "$tmp/deep"
for i in $(seq 1 40); do echo "$i" > "$tmp/root/f$i"; done
# enough files for a two-level fs tree with 4 KiB nodes
for i in $(seq 1 400); do echo "$i" > "$tmp/deep/file-$i"; done

make_seed() {
	local name=$1; shift
	truncate -s 128M "$tmp/$name.img"
	mkfs.btrfs -q -f "$@" "$tmp/$name.img" >/dev/null 2>&1
	python3 - "$tmp/$name.img" "$out/$name.seed" <<'PY'
import struct, sys
src, dst = sys.argv[1], sys.argv[2]
zero = bytes(4096)
with open(src, 'rb') as f, open(dst, 'wb') as o:
    idx = 0
    while True:
        page = f.read(4096)
        if not page:
            break
        if page != zero and idx < (512 << 20) // 4096:
            o.write(struct.pack('<I', idx) + page)
        idx += 1
PY
}

make_seed single-4k -n 4096 -m single -d single --rootdir "$tmp/root"
make_seed dup-4k-xxhash -n 4096 -m dup --csum xxhash
make_seed single-16k -m single -d single
make_seed single-4k-deep -n 4096 -m single -d single --rootdir "$tmp/deep"
ls -l "$out"
