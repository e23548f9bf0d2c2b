#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# `subvolume send-size` against the kernel: on trees of tests/rootdir/gentree.py
# and tests/kdiff/pairgen.py written through the kernel (plain and compressed
# mounts), the bytes of
# `btrfs send | wc -c` for protocol 1 and for --proto 2 --compressed-data,
# exact (tests/kdiff/sendsize-full.sh).  Then what it refuses: a shared
# extent (the kernel may clone it), a writable subvolume, -p/-c, online.

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

@test "send-size: pairgen seed 1, plain and compress=zstd: the old snapshot equal, the new one (reflinks) refused" {
	seed 1 "" pairgen
	assert_output_contains "seed 1 plain sv.old"
	assert_output_contains "sv.new v1"
	seed 1 compress=zstd pairgen
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

@test "send-size: a reflink, a writable subvolume, -p, online: refused with a clear line" {
	mkfs_mount
	btrfs -q subvolume create "$MNT/sv"
	head -c 200000 /dev/urandom >"$MNT/sv/a"
	echo small >"$MNT/sv/b"
	btrfs -q subvolume snapshot -r "$MNT/sv" "$MNT/ro"
	cp --reflink=always "$MNT/sv/a" "$MNT/sv/c"
	btrfs -q subvolume snapshot -r "$MNT/sv" "$MNT/shared"
	n=$(btrfs send -q "$MNT/ro" | wc -c)
	run_volctl subvolume send-size "$MNT/ro"
	assert_status 1
	assert_output_contains "subvolume send-size: not implemented online yet; use --image"
	cleanup_mount
	run_volctl --image "$IMG" subvolume send-size /ro
	assert_status 0
	assert_output_contains "v1: $n bytes"
	run_volctl --image "$IMG" subvolume send-size /shared
	assert_status 1
	assert_output_contains "a send may clone it, not computed yet"
	run_volctl --image "$IMG" subvolume send-size /sv
	assert_status 1
	assert_output_contains "not read-only (send refuses it)"
	run_volctl --image "$IMG" subvolume send-size -p /ro /shared
	assert_status 1
	assert_output_contains "subvolume send-size: -p/-c not implemented yet"
	run_volctl --image "$IMG" --format json subvolume send-size /ro
	assert_status 0
	assert_json
	assert_output_contains "\"total\": $n,"
}
