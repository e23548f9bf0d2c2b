#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Images kernel 6.18 refuses to mount for reasons outside its tree-checker:
# every command refuses them when it opens the image (exit 1, one error line
# naming the problem), so no offline write touches a byte.  From btrfs-progs'
# tests/fsck-tests (GPL-2.0, as volctl), with what `mount -o ro` on a loop
# device logs (tests/mounted/mount-checks.bats holds the kernel to it):
#
#   refused/fsck-010.metadump.zst  010-no-rootdir-inode-item: tree 5 has no
#       INODE_ITEM for inode 256 ("in btrfs_fill_super: errno=-2 No such entry")
#   refused/fsck-028.img.zst       028-unaligned-super-dev-sizes: superblock
#       total_bytes 134217728, the DEV_ITEM 134219776 ("super_total_bytes
#       134217728 mismatch with fs_devices total_rw_bytes 134219776")
#   refused/fsck-036.img.zst       036-bad-dev-extents: a DUP device extent
#       ends past the device ("dev extent devid 1 physical offset 105906176
#       len 50331648 is beyond device boundary 134217728")
#   refused/fsck-068.img.zst       068-orphan-dev-extent: a device extent of
#       a chunk that does not exist ("dev extent physical offset 105906176 on
#       devid 1 doesn't have corresponding chunk")
#
# 010, 036 and 068 are btrfs-image dumps (METADUMP_V2 set): writes are tried
# with that flag cleared, or volctl would refuse them for being dumps.

load ../helpers
load ../fixtures/fixture-helpers

BAD010='subvolume 5: no inode item for its root directory (inode 256)'
BAD028='superblock: total_bytes 134217728 is smaller than the 134219776 bytes of its devices'
BAD036="device 1: extent at 105906176 (50331648 bytes) ends beyond the device's 134217728 bytes"
BAD068='device 1: extent at 105906176 belongs to chunk 63963136, which does not exist'

# image_sum, sparse-aware: the restored 010 image is 3 TB of holes around
# 500 KiB of data; hash each data run with its offset, and the size
image_sum() {
	python3 - "$BATS_TEST_TMPDIR"/*.img <<'EOF'
import hashlib, os, sys
for name in sys.argv[1:]:
    h = hashlib.sha256()
    with open(name, 'rb') as f:
        fd = f.fileno()
        size = os.fstat(fd).st_size
        h.update(b'%d;' % size)
        off = 0
        while off < size:
            try:
                start = os.lseek(fd, off, os.SEEK_DATA)
            except OSError:
                break
            end = os.lseek(fd, start, os.SEEK_HOLE)
            h.update(b'%d:' % start)
            f.seek(start)
            while start < end:
                buf = f.read(min(end - start, 1 << 20))
                h.update(buf)
                start += len(buf)
            off = end
    print(h.hexdigest(), end=' ')
EOF
}

# fsck010: restore the 010 dump (btrfs-image -r) into $IMG
fsck010() {
	command -v btrfs-image >/dev/null || skip "needs btrfs-image (btrfs-progs) to restore the dump"
	IMG="$BATS_TEST_TMPDIR/fsck-010.img"
	zstd -q -d -f "$FIXTURES/refused/fsck-010.metadump.zst" -o "$BATS_TEST_TMPDIR/fsck-010.dump"
	btrfs-image -r "$BATS_TEST_TMPDIR/fsck-010.dump" "$IMG" >/dev/null
	rm -f "$BATS_TEST_TMPDIR/fsck-010.dump"
}

# every command refuses the image at open with $WANT: check, the offline
# writes and a read; not a byte changed
all_refused() {
	local c before
	before=$(image_sum)
	refused_msg check "$IMG"
	refused_msg check --qgroup-report "$IMG"
	refused_msg check --repair-qgroups "$IMG"
	for c in "quota enable /" "quota enable --simple /" "quota rescan /" "quota disable /" \
		 "qgroup create 1/1 /" "qgroup limit 1G 0/5 /" "qgroup clear-stale /" \
		 "subvolume create /new" "subvolume create -p /a/b" "subvolume snapshot / /snap" \
		 "subvolume set-default 5 /" "subvolume delete /nothing" "subvolume list /"; do
		# shellcheck disable=SC2086
		refused_msg --image "$IMG" $c || return 1
	done
	[ "$(image_sum)" = "$before" ] || { echo "the image changed" >&2; return 1; }
}

# the filesystem as it was: the reason of the refusal must be our check
check_passes_without() {
	run_volctl check "$IMG"
	assert_status 0
}

@test "mount checks: fsck-tests 010, tree 5 without its root directory inode" {
	fsck010
	WANT=$BAD010
	refused_msg check "$IMG"
	writable_metadump
	all_refused
}

@test "mount checks: fsck-tests 028, superblock total_bytes below the device's" {
	fixture refused/fsck-028
	WANT=$BAD028
	all_refused
	# the same image with total_bytes raised to the device's size passes
	python3 "$FIXTURES/corrupt.py" "$IMG" set $((65536 + 112)) 8 134219776
	python3 "$FIXTURES/corrupt.py" "$IMG" csum 65536 4096
	python3 "$FIXTURES/corrupt.py" "$IMG" set $((67108864 + 112)) 8 134219776
	python3 "$FIXTURES/corrupt.py" "$IMG" csum 67108864 4096
	check_passes_without
}

@test "mount checks: fsck-tests 036, a device extent beyond the device" {
	fixture refused/fsck-036
	WANT=$BAD036
	refused_msg check "$IMG"
	writable_metadump
	all_refused
}

@test "mount checks: fsck-tests 068, a device extent without a chunk" {
	fixture refused/fsck-068
	WANT=$BAD068
	refused_msg check "$IMG"
	writable_metadump
	all_refused
}

@test "mount checks: a chunk stripe without its device extent" {
	fixture rich4k
	check_passes_without
	# the key type of the last device extent becomes the next type: the
	# extents end one early, as in the kernel's walk, and its chunk misses it
	last=$("$VOLCTL" --format json inspect tree -t dev "$IMG" | jq -c '[.trees[0].blocks[].items[]
		| select(.key.type_name == "DEV_EXTENT")] | last | [.key.offset, .body.chunk_offset]')
	phys=$(jq '.[0]' <<<"$last")
	chunk=$(jq '.[1]' <<<"$last")
	[ "$phys" -gt 0 ]
	python3 "$FIXTURES/corrupt.py" "$IMG" ktype 1 204 "$phys" 205
	WANT="chunk $chunk: 0 of its 1 stripes have a device extent"
	all_refused
}

@test "mount checks: a subvolume without its root directory inode: check and snapshot refuse it" {
	fixture rich4k
	# /b (260): the kernel mounts the filesystem but cannot open the subvolume
	python3 "$FIXTURES/corrupt.py" "$IMG" ktype 256 1 0 2 260
	WANT='subvolume 260: no inode item for its root directory (inode 256)'
	refused check "$IMG"
	refused check --qgroup-report "$IMG"
	refused --image "$IMG" subvolume snapshot /b /snap-b
	# the rest of the filesystem stays usable, as in the kernel
	run_volctl --image "$IMG" subvolume list /
	assert_status 0
	run_volctl --image "$IMG" subvolume snapshot /a /snap-a2
	assert_status 0
	refused check "$IMG"
}
