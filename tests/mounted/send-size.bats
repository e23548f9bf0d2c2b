#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# `subvolume send-size` against the kernel: on trees of tests/rootdir/gentree.py
# and tests/kdiff/pairgen.py written through the kernel (plain and compressed
# mounts), the bytes of
# `btrfs send | wc -c` for protocol 1 and for --proto 2 --compressed-data,
# exact (tests/kdiff/sendsize-full.sh), clones within the snapshot included
# (pairgen's reflinks, dedupes and split extents, and a hand-made case), a
# tie between two sources that the send's backref cache breaks, and an
# extent with more than 1024 references (written, not cloned).
# Then what it refuses: a writable subvolume (online: send-size-online.bats;
# incremental sends: send-size-incr.bats).

load ../helpers

K="$BATS_TEST_DIRNAME/../kdiff"

setup() {
	require_root_loop
	command -v python3 >/dev/null || skip "needs python3"
	W="$BATS_TEST_TMPDIR/ss"
}

teardown() {
	cleanup_mount
}

seed() {
	run "$K/sendsize-full.sh" "$VOLCTL" "$W" "$@"
	echo "$output"
	assert_status 0
	assert_output_contains " ok"
	case "$output" in *DIFFER*) false ;; esac
}

@test "send-size: seed 1, plain and compress=zstd: equal to btrfs send | wc -c, v1 and v2 compressed" {
	seed 1
	seed 1 compress=zstd
}

@test "send-size: seed 2, compress-force=zstd and compress=lzo: equal to btrfs send | wc -c" {
	seed 2 compress-force=zstd
	seed 2 compress=lzo
}

@test "send-size: seed 3, plain and compress=zlib: equal to btrfs send | wc -c" {
	seed 3
	seed 3 compress=zlib
}

@test "send-size: pairgen seed 1, plain and compress=zstd: both snapshots equal, the new one with its clones" {
	seed 1 "" pairgen
	assert_output_contains "seed 1 plain sv.old"
	assert_output_contains "seed 1 plain sv.new"
	case "$output" in *REFUSED*) false ;; esac
	seed 1 compress=zstd pairgen
	case "$output" in *REFUSED*) false ;; esac
}

@test "send-size: pairgen seeds 3 and 5 (plain, compress-force=zstd, compress=lzo): clones exact, v1 and v2 compressed" {
	seed 3 "" pairgen
	seed 3 compress-force=zstd pairgen
	seed 5 "" pairgen
	seed 5 compress=lzo pairgen
	case "$output" in *REFUSED*) false ;; esac
}

# a reflink copy, a dedupe, a clone into the middle of a file, an extent split
# within a file (a write into its middle, a clone of its own earlier range),
# a reflink of an unaligned tail at EOF, an unaligned EOF block that then
# lies in the middle of a file, a one-sector
# clone at 0, a source with a hole: sent as clones and writes, exact
clone_case() {
	mkfs_mount
	[ -z "${1:-}" ] || mount -o "remount,$1" "$MNT"
	btrfs -q subvolume create "$MNT/sv"
	python3 - "$MNT/sv" <<'PY'
import fcntl, os, struct, sys
os.chdir(sys.argv[1])
FICLONERANGE = 0x4020940d
FIDEDUPERANGE = 0xc0189436
def data(n, seed):
    return bytes((i * 7 + seed) & 0xff for i in range(n)) if seed else os.urandom(n)
def clone(src, soff, dst, doff, n):
    with open(src, 'rb') as s, open(dst, 'r+b' if os.path.exists(dst) else 'w+b') as d:
        fcntl.ioctl(d, FICLONERANGE, struct.pack('<qQQQ', s.fileno(), soff, n, doff))
open('a', 'wb').write(data(300000, 3))
os.system('cp --reflink=always a b')
open('c', 'wb').write(os.urandom(200000))
clone('a', 65536, 'c', 4096, 131072)
open('d', 'wb').write(data(262144, 5))
with open('d', 'r+b') as f:
    f.seek(100000); f.write(os.urandom(5000))
clone('d', 0, 'd', 262144, 65536)
open('tail', 'wb').write(os.urandom(70001))
os.system('cp --reflink=always tail tail2')
open('mid', 'wb').write(os.urandom(300000))
clone('tail', 0, 'mid', 65536, 65536)
clone('tail', 0, 'mid2', 0, 0)
clone('a', 0, 'mid2', 73728, 65536)
open('one', 'wb').write(os.urandom(4096))
os.system('cp --reflink=always one one2')
with open('holey', 'wb') as f:
    f.write(os.urandom(8192)); f.seek(65536); f.write(os.urandom(8192))
os.system('cp --reflink=always holey holey2')
x = data(131072, 9)
open('e', 'wb').write(x); open('f', 'wb').write(x)
with open('e', 'rb') as s, open('f', 'r+b') as d:
    arg = struct.pack('<QQHHI', 0, 131072, 1, 0, 0) + struct.pack('<qQQiI', d.fileno(), 0, 0, 0, 0)
    fcntl.ioctl(s, FIDEDUPERANGE, bytearray(arg))
PY
	sync -f "$MNT/sv"
	btrfs -q subvolume snapshot -r "$MNT/sv" "$MNT/snap"
	k1=$(btrfs send -q "$MNT/snap" | wc -c)
	k2=$(btrfs send -q --proto 2 --compressed-data "$MNT/snap" | wc -c)
	nclones=$(btrfs send -q "$MNT/snap" | btrfs receive --dump | grep -c '^clone')
	cleanup_mount
	run_volctl --image "$IMG" --format json subvolume send-size /snap
	assert_status 0
	echo "kernel v1 $k1 v2c $k2 clones $nclones"
	assert_output_contains "\"total\": $k1,"
	assert_output_contains "\"total\": $k2,"
	assert_output_contains "\"clones\": $nclones"
	[ "$nclones" -ge 5 ]
}

@test "send-size: reflinks, a dedupe, split extents, unaligned tails, holes: clones exact" {
	clone_case
}

@test "send-size: the same clones on compress=zstd: exact, v2 encoded pieces included" {
	clone_case compress=zstd
}

@test "send-size: capabilities, owners, a socket, a block device, a long symlink, a trailing hole, links, a moved directory, 100 directories: exact" {
	mkfs_mount
	btrfs -q subvolume create "$MNT/sv"
	python3 - "$MNT/sv" <<'PY'
import os, socket, struct, sys
os.chdir(sys.argv[1])
open('capf', 'wb').write(b'x' * 5000)
os.chown('capf', 1000, 1000)
os.setxattr('capf', 'security.capability', struct.pack('<IIIII', 0x02000001, 1 << 10, 0, 0, 0))
os.setxattr('capf', 'user.a', b'1' * 100)
os.mkdir('empty')
for i in range(100):
    os.makedirs('deep/%d/%d' % (i % 7, i))
    open('deep/%d/%d/f' % (i % 7, i), 'w').write('z' * i)
socket.socket(socket.AF_UNIX).bind('sock')
os.mknod('blk', 0o600 | 0o060000, os.makedev(7, 3))
os.symlink('x' * 300, 'longlink')
open('trunc', 'wb').write(b'a' * 70000)
os.truncate('trunc', 200000)
open('fa', 'wb').write(b'a' * 10000)
os.link('fa', 'deep/0/0/fa2')
os.mkdir('late')
os.rename('deep/1', 'late/moved')
PY
	btrfs -q subvolume snapshot -r "$MNT/sv" "$MNT/snap"
	k1=$(btrfs send -q "$MNT/snap" | wc -c)
	k2=$(btrfs send -q --proto 2 --compressed-data "$MNT/snap" | wc -c)
	btrfs send -q -f "$BATS_TEST_TMPDIR/st" "$MNT/snap"
	# the capability is in the stream once
	[ "$(btrfs receive --dump -f "$BATS_TEST_TMPDIR/st" | grep -c 'set_xattr.*security.capability')" -eq 1 ]
	cleanup_mount
	run_volctl --image "$IMG" subvolume send-size /snap
	assert_status 0
	assert_output_contains "v1: $k1 bytes"
	assert_output_contains "v2 compressed: $k2 bytes"
}

@test "send-size: a reflink exact with its clone, online too, and -p; a writable subvolume: refused with a clear line" {
	mkfs_mount
	btrfs -q subvolume create "$MNT/sv"
	head -c 200000 /dev/urandom >"$MNT/sv/a"
	echo small >"$MNT/sv/b"
	btrfs -q subvolume snapshot -r "$MNT/sv" "$MNT/ro"
	cp --reflink=always "$MNT/sv/a" "$MNT/sv/c"
	btrfs -q subvolume snapshot -r "$MNT/sv" "$MNT/shared"
	n=$(btrfs send -q "$MNT/ro" | wc -c)
	ns=$(btrfs send -q "$MNT/shared" | wc -c)
	ni=$(btrfs send -q -p "$MNT/ro" "$MNT/shared" | wc -c)
	run_volctl subvolume send-size "$MNT/ro"
	assert_status 0
	assert_output_contains "v1: $n bytes"
	cleanup_mount
	run_volctl --image "$IMG" subvolume send-size /ro
	assert_status 0
	assert_output_contains "v1: $n bytes"
	run_volctl --image "$IMG" subvolume send-size /shared
	assert_status 0
	assert_output_contains "v1: $ns bytes"
	assert_output_contains ", 1 clones)"
	run_volctl --image "$IMG" subvolume send-size /sv
	assert_status 1
	assert_output_contains "error: /sv: not read-only, and btrfs send refuses a writable subvolume"
	run_volctl --image "$IMG" subvolume send-size -p /ro /shared
	assert_status 0
	assert_output_contains "v1: $ni bytes"
	run_volctl --image "$IMG" --format json subvolume send-size /ro
	assert_status 0
	assert_json
	assert_output_contains "\"total\": $n,"
}

# the snapshot's leaves are shared with its source, which then changes: the
# kernel walks full (shared) back references; a split extent cloned within
# its file and a reflink copy of it, sent as 5 clones
@test "send-size: clones exact after the source subvolume changed (shared back references)" {
	mkfs_mount
	btrfs -q subvolume create "$MNT/sv"
	python3 - "$MNT/sv" <<'PY'
import fcntl, os, struct, sys
os.chdir(sys.argv[1])
open('d', 'wb').write(os.urandom(262144))
with open('d', 'r+b') as f:
    os.fsync(f.fileno()); f.seek(100000); f.write(os.urandom(5000)); os.fsync(f.fileno())
with open('d', 'rb') as s, open('d', 'r+b') as d:
    fcntl.ioctl(d, 0x4020940d, struct.pack('<qQQQ', s.fileno(), 0, 65536, 262144))
os.system('cp --reflink=always d d2')
PY
	sync -f "$MNT/sv"
	btrfs -q subvolume snapshot -r "$MNT/sv" "$MNT/snap"
	printf xxxxxxxxxx | dd of="$MNT/sv/d" conv=notrunc,fsync status=none
	printf xxxxxxxxxx | dd of="$MNT/sv/d2" conv=notrunc,fsync status=none
	sync -f "$MNT/sv"
	k1=$(btrfs send -q "$MNT/snap" | wc -c)
	k2=$(btrfs send -q --proto 2 --compressed-data "$MNT/snap" | wc -c)
	[ "$(btrfs send -q "$MNT/snap" | btrfs receive --dump | grep -c '^clone')" -eq 5 ]
	cleanup_mount
	run_volctl --image "$IMG" subvolume send-size /snap
	assert_status 0
	assert_output_contains "v1: $k1 bytes"
	assert_output_contains "v2 compressed: $k2 bytes"
	assert_output_contains ", 5 clones)"
}

# the kernel's numbers for a full send of $1, then volctl's on the image
full_exact() {
	k1=$(btrfs send -q "$MNT/$1" | wc -c)
	k2=$(btrfs send -q --proto 2 --compressed-data "$MNT/$1" | wc -c)
	btrfs send -q "$MNT/$1" | btrfs receive --dump >"$BATS_TEST_TMPDIR/dump" 2>&1
	cleanup_mount
	run_volctl --image "$IMG" subvolume send-size "/$1"
	echo "$output kernel v1 $k1 v2c $k2"
	assert_status 0
	assert_output_contains "v1: $k1 bytes"
	assert_output_contains "v2 compressed: $k2 bytes"
}

@test "send-size: a tie between two clone sources broken by the send's backref cache, as the kernel does" {
	mkfs_mount
	tie_leaf snap
	# t may clone c1 or the longer name; the leaf was cached at c1, so the
	# kernel offers its items in slot order (c1 first), not in the
	# reversed order of a shared leaf's list
	full_exact snap
	grep -q "clone *./snap/t .*from=./snap/c1 " "$BATS_TEST_TMPDIR/dump"
}

@test "send-size: an extent with more than 1024 references is written, not cloned, as the kernel does" {
	mkfs_mount
	btrfs -q subvolume create "$MNT/sv"
	head -c 65536 /dev/urandom >"$MNT/sv/f"
	mkdir "$MNT/sv/many"
	for i in $(seq 1 1030); do cp --reflink=always "$MNT/sv/f" "$MNT/sv/many/$i"; done
	btrfs -q subvolume snapshot -r "$MNT/sv" "$MNT/snap"
	full_exact snap
	assert_output_contains "1031 writes, 0 clones)"
	run ! grep -q "^clone" "$BATS_TEST_TMPDIR/dump"
}
