#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# `subvolume diff` when a block is bad, on a kernel-made snapshot pair read
# offline.  The lines of an inode are made while the tree comparison runs,
# as soon as the comparison has passed it (kernel-shared/subvol-diff.c), so
# a block read only for its lines (the leaf of a parent directory that both
# snapshots share, never read by the comparison) can fail before the
# comparison has finished.  The result must be as if the comparison ran
# first: a bad block for the lines alone fails the diff; with a bad block
# the comparison reads later too, the comparison's block is the one named.

load ../helpers

setup() {
	require_root_loop
	mkfs_mount 256M -n 4096 -m single
	btrfs subvolume create "$MNT/s" >/dev/null
	mkdir "$MNT/s/d" "$MNT/s/e"
	for i in $(seq -w 0 199); do echo "d $i" >"$MNT/s/d/f$i"; done
	for i in $(seq -w 0 199); do echo "e $i" >"$MNT/s/e/f$i"; done
	D=$(stat -c %i "$MNT/s/d")
	EFIRST=$(stat -c %i "$MNT/s/e/f000")
	ELAST=$(stat -c %i "$MNT/s/e/f199")
	btrfs subvolume snapshot -r "$MNT/s" "$MNT/old" >/dev/null
	# inode items change; the directories d and e do not
	chmod 600 "$MNT/s/d/f199" "$MNT/s/e/f000" "$MNT/s/e/f199"
	btrfs subvolume snapshot -r "$MNT/s" "$MNT/new" >/dev/null
	umount "$MNT"
}

teardown() {
	cleanup_mount
}

# spoil IMG OBJECTID TYPE OFFSET: break the checksum of every leaf of the
# image that holds that key; prints their logical addresses
spoil() {
	python3 - "$@" <<'PY'
import sys
img, oid, typ, off = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
ns = 4096
with open(img, "r+b") as f:
    f.seek(65536 + 32)
    fsid = f.read(16)
    f.seek(0, 2)
    size = f.tell()
    hit = set()
    for pos in range(0, size, ns):
        f.seek(pos)
        b = f.read(ns)
        if b[32:48] != fsid or b[100] != 0:
            continue
        n = int.from_bytes(b[96:100], "little")
        for i in range(min(n, (ns - 101) // 25)):
            k = b[101 + 25 * i:101 + 25 * i + 17]
            if (int.from_bytes(k[0:8], "little"), k[8], int.from_bytes(k[9:17], "little")) == (oid, typ, off):
                f.seek(pos + ns - 1)
                f.write(bytes([b[ns - 1] ^ 0xff]))
                hit.add(int.from_bytes(b[48:56], "little"))
                break
    print(" ".join(str(h) for h in sorted(hit)))
PY
}

@test "subvolume diff: the snapshot pair has the three M lines" {
	run_volctl --image "$IMG" subvolume diff /old /new
	assert_status 0
	[ "$output" = "$(printf 'M\t/d/f199\t(mode)\nM\t/e/f000\t(mode)\nM\t/e/f199\t(mode)')" ] || { echo "$output"; false; }
}

@test "subvolume diff: a bad leaf read only for a path fails the diff, naming it" {
	# (D INODE_REF 256): d's name, in a leaf both snapshots share
	blocks=$(spoil "$IMG" "$D" 12 256)
	[ -n "$blocks" ]
	run_volctl --image "$IMG" subvolume diff /old /new
	echo "$output"
	assert_status 1
	assert_output_contains "checksum mismatch"
	ok=0
	for b in $blocks; do case $output in *"tree block $b:"*) ok=1 ;; esac; done
	[ "$ok" -eq 1 ]
}

@test "subvolume diff: with a bad leaf the comparison reads later, the comparison's error comes first" {
	dblocks=$(spoil "$IMG" "$D" 12 256)
	# the leaves of e/f199's inode item (one per snapshot, it changed), which
	# the comparison reads after it has passed d/f199 and e/f000
	eblocks=$(spoil "$IMG" "$ELAST" 1 0)
	[ -n "$dblocks" ]
	[ -n "$eblocks" ]
	for b in $eblocks; do for c in $dblocks; do [ "$b" != "$c" ]; done; done
	run_volctl --image "$IMG" subvolume diff /old /new
	echo "$output"
	assert_status 1
	ok=0
	for b in $eblocks; do case $output in *"tree block $b:"*) ok=1 ;; esac; done
	[ "$ok" -eq 1 ]
	[ "$EFIRST" -lt "$ELAST" ]
}
