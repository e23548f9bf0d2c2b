#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# The offline accounting engine against the real kernel: build images on a
# loop mount, let the kernel rescan, unmount, and require that
# `volctl check --qgroup-report` computes exactly the kernel's numbers for
# every qgroup.  Images with QGROUP_INFO items patched on purpose must be
# reported as exactly the patched groups.

load ../helpers

setup() {
	require_root_loop
	command -v jq >/dev/null || skip "needs jq"
	command -v python3 >/dev/null || skip "needs python3"
}

teardown() {
	cleanup_mount
}

# "qgroupid rfer excl" per line, sorted, from the mounted filesystem
kernel_numbers() {
	btrfs qgroup show --raw "$MNT" | awk 'NR > 2 { print $1, $2, $3 }' | sort
}

# the same from volctl's computation on the unmounted image
volctl_numbers() {
	"$VOLCTL" --format json check --qgroup-report "$1" |
		jq -r '.check.qgroups[] | "\(.qgroupid) \(.referenced) \(.exclusive)"' | sort
}

rescan_and_unmount() {
	kernel_rescan "$MNT"
	sync -f "$MNT"
	kernel_numbers >"$BATS_TEST_TMPDIR/kernel.txt"
	cleanup_mount
}

assert_same_numbers() {
	volctl_numbers "$IMG" >"$BATS_TEST_TMPDIR/volctl.txt"
	if ! diff -u "$BATS_TEST_TMPDIR/kernel.txt" "$BATS_TEST_TMPDIR/volctl.txt"; then
		echo "computed numbers differ from the kernel's" >&2
		return 1
	fi
	[ "$(wc -l <"$BATS_TEST_TMPDIR/kernel.txt")" -ge "${1:-1}" ]
}

# Patch QGROUP_INFO of each "QGROUPID DELTA" argument (level/id) in the quota
# tree leaf of image $1, add DELTA to rfer and excl, fix the leaf checksum
# (crc32c, implemented here) in every copy of the block.
patch_qgroup_info() {
	local img=$1; shift
	local leaf
	leaf=$(btrfs inspect-internal dump-tree -t 8 "$img" | awk '/^leaf /{ print $2; exit }')
	[ -n "$leaf" ]
	python3 - "$img" "$leaf" "$@" <<'EOF'
import mmap, struct, sys

def crc32c_table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t

TABLE = crc32c_table()

def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF

img, leaf = sys.argv[1], int(sys.argv[2])
patches = {}
for arg in sys.argv[3:]:
    qg, delta = arg.split('=')
    level, ident = qg.split('/')
    patches[(int(level) << 48) | int(ident)] = int(delta)

with open(img, 'r+b') as f:
    mm = mmap.mmap(f.fileno(), 0)
    sb = mm[0x10000:0x10000 + 4096]
    nodesize = struct.unpack_from('<I', sb, 0x94)[0]
    fsid = sb[0x20:0x30]
    copies = 0
    for off in range(0, len(mm) - nodesize, 4096):
        if mm[off + 48:off + 56] != struct.pack('<Q', leaf) or mm[off + 32:off + 48] != fsid:
            continue
        block = bytearray(mm[off:off + nodesize])
        if struct.unpack_from('<I', block, 0)[0] != crc32c(block[32:]):
            continue
        nritems = struct.unpack_from('<I', block, 96)[0]
        done = 0
        for i in range(nritems):
            base = 101 + 25 * i
            objectid, typ, offset = struct.unpack_from('<QBQ', block, base)
            dataoff = struct.unpack_from('<I', block, base + 17)[0] + 101
            if objectid != 0 or typ != 242 or offset not in patches:
                continue
            gen, rfer, rcmpr, excl, ecmpr = struct.unpack_from('<5Q', block, dataoff)
            d = patches[offset]
            struct.pack_into('<5Q', block, dataoff, gen, rfer + d, rcmpr + d, excl + d, ecmpr + d)
            done += 1
        if done != len(patches):
            sys.exit('not every qgroup was found in leaf %d' % leaf)
        struct.pack_into('<I', block, 0, crc32c(block[32:]))
        block[4:32] = bytes(28)
        mm[off:off + nodesize] = bytes(block)
        copies += 1
    mm.flush()
    if copies == 0:
        sys.exit('leaf %d not found' % leaf)
EOF
}

# snapshots of snapshots, rewrites after snapshots, reflinks, compressed and
# inline extents, a nested subvolume, a deleted one, 0/x in 1/y in 2/z
build_rich_fs() {
	mkfs_mount 1G
	mount -o remount,compress=zstd "$MNT"
	btrfs quota enable "$MNT"
	btrfs subvolume create "$MNT/sv" >/dev/null
	for i in $(seq 1 200); do
		head -c $((i * 397 % 50000 + 1)) /dev/urandom >"$MNT/sv/f$i"
	done
	dd if=/dev/zero of="$MNT/sv/zeros" bs=1M count=4 status=none	# compresses
	echo tiny >"$MNT/sv/inline"
	sync -f "$MNT"
	btrfs subvolume snapshot "$MNT/sv" "$MNT/s1" >/dev/null
	for i in $(seq 1 40); do head -c 7000 /dev/urandom >"$MNT/sv/f$i"; done
	btrfs subvolume snapshot "$MNT/s1" "$MNT/s2" >/dev/null
	for i in $(seq 100 130); do head -c 9000 /dev/urandom >"$MNT/s1/f$i"; done
	head -c 3000000 /dev/urandom >"$MNT/s2/big"
	cp --reflink=always "$MNT/s2/big" "$MNT/s1/big-reflink"
	cp --reflink=always "$MNT/sv/zeros" "$MNT/s2/zeros2"
	btrfs subvolume create "$MNT/sv/nested" >/dev/null
	head -c 100000 /dev/urandom >"$MNT/sv/nested/x"
	btrfs subvolume snapshot -r "$MNT/s2" "$MNT/ro" >/dev/null
	btrfs qgroup create 1/1 "$MNT"
	btrfs qgroup create 1/2 "$MNT"
	btrfs qgroup create 2/1 "$MNT"
	btrfs qgroup assign --no-rescan 0/256 1/1 "$MNT"
	btrfs qgroup assign --no-rescan 0/257 1/1 "$MNT"
	btrfs qgroup assign --no-rescan 0/258 1/2 "$MNT"
	btrfs qgroup assign --no-rescan 1/1 2/1 "$MNT"
	btrfs qgroup assign --no-rescan 1/2 2/1 "$MNT"
	btrfs subvolume delete "$MNT/ro" >/dev/null
}

@test "accounting: snapshots, reflinks, compression, nesting, deletion, 3 levels match the kernel" {
	build_rich_fs
	rescan_and_unmount
	run_volctl check --qgroup-report "$IMG"
	assert_status 0
	assert_output_contains "groups verified, all consistent"
	assert_same_numbers 9
	# the plain check (every tree) agrees too
	run_volctl check "$IMG"
	assert_status 0
	assert_output_contains "blocks verified"
}

@test "accounting: snapshots taken before and after quota enable, rewrites unshare" {
	mkfs_mount 512M
	btrfs subvolume create "$MNT/a" >/dev/null
	for i in $(seq 1 100); do head -c 12000 /dev/urandom >"$MNT/a/f$i"; done
	btrfs subvolume snapshot "$MNT/a" "$MNT/b" >/dev/null
	btrfs quota enable "$MNT"
	kernel_rescan "$MNT"
	# created after quota enable: 0/258 from the snapshot quick path
	btrfs subvolume snapshot "$MNT/b" "$MNT/c" >/dev/null
	for i in $(seq 1 30); do head -c 12000 /dev/urandom >"$MNT/c/f$i"; done
	rescan_and_unmount
	run_volctl check --qgroup-report "$IMG"
	assert_status 0
	assert_same_numbers 4
}

@test "accounting: patched QGROUP_INFO items are reported as exactly those groups" {
	build_rich_fs
	rescan_and_unmount
	cp "$IMG" "$BATS_TEST_TMPDIR/patched.img"
	patch_qgroup_info "$BATS_TEST_TMPDIR/patched.img" 0/257=4096 2/1=-65536
	run_volctl check --qgroup-report "$BATS_TEST_TMPDIR/patched.img"
	assert_status 1
	assert_output_contains "qgroup 0/257: counts differ"
	assert_output_contains "qgroup 2/1: counts differ"
	assert_output_contains "difference -4096"
	assert_output_contains "difference 65536"
	assert_output_contains "qgroups: 2 of"
	[ "$(grep -c 'counts differ' <<<"$output")" -eq 2 ]
	run_volctl --format json check --qgroup-report "$BATS_TEST_TMPDIR/patched.img"
	assert_status 1
	assert_json
	[ "$(jq -r '[.check.qgroups[] | select(.consistent | not) | .qgroupid] | join(",")' \
		<<<"$output")" = "0/257,2/1" ]
	[ "$(jq -r '.check.differences' <<<"$output")" -eq 2 ]
	# the untouched original is still clean
	run_volctl check --qgroup-report "$IMG"
	assert_status 0
}

@test "accounting: quotas disabled means nothing to check, trees still verified" {
	mkfs_mount 256M
	btrfs subvolume create "$MNT/a" >/dev/null
	echo data >"$MNT/a/f"
	cleanup_mount
	run_volctl check --qgroup-report "$IMG"
	assert_status 0
	assert_output_contains "quotas are not enabled, nothing to check"
	assert_output_contains "fs trees: 2"
	run_volctl --format json check "$IMG"
	assert_status 0
	[ "$(jq -r '.check.quota.enabled' <<<"$output")" = false ]
}

@test "accounting: deleted subvolume, cleaned: qgroup removed, parents shrink, check clean" {
	mkfs_mount 512M
	btrfs quota enable "$MNT"
	btrfs subvolume create "$MNT/a" >/dev/null
	btrfs subvolume create "$MNT/b" >/dev/null
	for i in $(seq 1 50); do head -c 10000 /dev/urandom >"$MNT/a/f$i"; done
	cp -r --reflink=always "$MNT/a/." "$MNT/b/"
	btrfs qgroup create 1/10 "$MNT"
	btrfs qgroup assign --no-rescan 0/256 1/10 "$MNT"
	btrfs qgroup assign --no-rescan 0/257 1/10 "$MNT"
	kernel_rescan "$MNT"
	btrfs subvolume delete "$MNT/a" >/dev/null
	wait_cleaned "$MNT" >/dev/null
	btrfs filesystem sync "$MNT"
	rescan_and_unmount
	run_volctl check --qgroup-report "$IMG"
	assert_status 0
	assert_output_contains "all consistent"
	assert_same_numbers 2
}

# jq: NAME of qgroup ID in the JSON of check --qgroup-report
qg_field() {
	jq -r --arg id "$2" --arg f "$3" '.check.qgroups[] | select(.qgroupid == $id) | .[$f]' <<<"$1"
}

# The kernel's recorded numbers of a half-dropped subvolume are not what a
# rescan gives: btrfs_drop_snapshot() converts the back refs below a shared
# node to full back refs (their roots do not change yet) and drops the dead
# root's ref on the node itself later; when a commit falls in between (the
# unmount here), the blocks and extents below that node change roots with no
# ref of their own changing, so no qgroup record covers them.  The kernel
# keeps charging them to the dead root (rfer) and never makes them exclusive
# to the snapshot.  The engine counts what a rescan counts (on-disk-engine
# 10.2), so the two differ by exactly those bytes D, moved from one group to
# the other; after the drop ends the kernel finds D (or more) left in the
# dead root's qgroup, says so, and marks the numbers inconsistent.  The
# half-dropped image is a copy taken while the drop runs (freeze_mid_drop).
@test "accounting: partly dropped subvolume is reported and counted only where it still reaches" {
	local d d_final json
	mkfs_mount 2G -n 4096
	btrfs quota enable "$MNT"
	btrfs subvolume create "$MNT/big" >/dev/null
	for d in $(seq 1 20); do
		mkdir "$MNT/big/d$d"
		(cd "$MNT/big/d$d" && seq 1 5000 | xargs touch)
	done
	for i in $(seq 1 100); do head -c 20000 /dev/urandom >"$MNT/big/d1/data$i"; done
	sync -f "$MNT"
	btrfs subvolume snapshot "$MNT/big" "$MNT/snap" >/dev/null
	# data of big alone, after the shared part: seconds of drop to catch
	slow_drop_data "$MNT/big/z"
	kernel_rescan "$MNT"
	btrfs subvolume delete "$MNT/big" >/dev/null
	freeze_mid_drop "$MNT" "$IMG" 256 "$BATS_TEST_TMPDIR/half.img"
	cleanup_mount
	mv "$BATS_TEST_TMPDIR/half.img" "$IMG"
	run_volctl_split --format json check --qgroup-report "$IMG"
	[ "$status" -le 1 ]
	assert_json "$out"
	# the state the test is about, which freeze_mid_drop saw with btrfs-progs
	[ "$(jq -r '.check.trees.partly_dropped' <<<"$out")" -eq 1 ]
	json=$out
	[ "$(jq -r '.check.quota.inconsistent' <<<"$json")" = false ]
	# what 'snap' reaches and the dead root's own blocks: exact
	[ "$(qg_field "$json" 0/257 referenced)" = "$(qg_field "$json" 0/257 recorded_referenced)" ]
	[ "$(qg_field "$json" 0/256 exclusive)" = "$(qg_field "$json" 0/256 recorded_exclusive)" ]
	# the rest: D bytes the kernel still charges to 256 are exclusive to 257
	d=$(( $(qg_field "$json" 0/256 recorded_referenced) - $(qg_field "$json" 0/256 referenced) ))
	[ "$d" -ge 0 ]
	[ $(( $(qg_field "$json" 0/257 exclusive) - $(qg_field "$json" 0/257 recorded_exclusive) )) -eq "$d" ]
	[ $((d % 4096)) -eq 0 ]
	[ "$(jq '[.check.qgroups[] | select(.consistent | not) | .qgroupid] |
		all(. == "0/256" or . == "0/257")' <<<"$json")" = true ]
	run_volctl check --qgroup-report "$IMG"
	assert_output_contains "subvolume 256: deleted, cleaning stopped at key"
	# the kernel finishes the drop: its own numbers keep the drift (D or more)
	local mark="volctl-partly-dropped-$$-$RANDOM"
	echo "$mark" >/dev/kmsg
	LOOPDEV=$(losetup -f --show "$IMG")
	mount "$LOOPDEV" "$MNT"
	wait_cleaned "$MNT" >/dev/null
	btrfs filesystem sync "$MNT"
	cleanup_mount
	run_volctl_split --format json check --qgroup-report "$IMG"
	json=$out
	[ "$(jq -r '.check.trees.partly_dropped' <<<"$json")" -eq 0 ]
	d_final=$(( $(qg_field "$json" 0/257 exclusive) - $(qg_field "$json" 0/257 recorded_exclusive) ))
	[ "$d_final" -ge "$d" ]
	[ "$(qg_field "$json" 0/257 referenced)" = "$(qg_field "$json" 0/257 recorded_referenced)" ]
	if [ "$d_final" -gt 0 ]; then
		# ... and says so when it removes 0/256 with them still charged
		[ "$(jq -r '.check.quota.inconsistent' <<<"$json")" = true ]
		dmesg | awk -v m="$mark" 'index($0, m) {on = 1; next} on' |
			grep -q "to be deleted qgroup 0/256 has non-zero numbers, rfer $d_final "
	else
		[ "$status" -eq 0 ]
	fi
	echo "# D=$d D_final=$d_final" >&3
	# a rescan by the kernel gives exactly the engine's numbers
	LOOPDEV=$(losetup -f --show "$IMG")
	mount "$LOOPDEV" "$MNT"
	rescan_and_unmount
	run_volctl check --qgroup-report "$IMG"
	assert_status 0
	assert_same_numbers 2
}

@test "accounting: simple quotas are charged to the owner" {
	[ -e /sys/fs/btrfs/features/simple_quota ] || skip "needs a kernel with simple quotas"
	mkfs_mount 512M
	# the kernel can: volctl must
	run_volctl quota enable --simple "$MNT"
	assert_status 0
	btrfs subvolume create "$MNT/a" >/dev/null
	for i in $(seq 1 40); do head -c 9000 /dev/urandom >"$MNT/a/f$i"; done
	btrfs subvolume snapshot "$MNT/a" "$MNT/b" >/dev/null
	for i in $(seq 1 10); do head -c 9000 /dev/urandom >"$MNT/b/f$i"; done
	sync -f "$MNT"
	"$VOLCTL" --format json qgroup show "$MNT" |
		jq -r '."qgroup_show"[] | "\(.qgroupid) \(.referenced) \(.exclusive)"' | sort \
		>"$BATS_TEST_TMPDIR/kernel.txt"
	cleanup_mount
	run_volctl --format json check --qgroup-report "$IMG"
	assert_status 0
	[ "$(jq -r '.check.quota.mode' <<<"$output")" = simple ]
	assert_same_numbers 3
}

# Rename the parent of relation item (CHILD, 246, PARENT) to NEWPARENT in the
# quota leaf of image $1 (ids as numbers), fixing the leaf checksum.
patch_relation_parent() {
	local img=$1 leaf
	leaf=$(btrfs inspect-internal dump-tree -t 8 "$img" | awk '/^leaf /{ print $2; exit }')
	[ -n "$leaf" ]
	python3 - "$img" "$leaf" "$2" "$3" "$4" <<'EOF2'
import mmap, struct, sys
T = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    T.append(c)
def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = T[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF
img, leaf, child, parent, new = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
with open(img, 'r+b') as f:
    mm = mmap.mmap(f.fileno(), 0)
    nodesize = struct.unpack_from('<I', mm, 0x10000 + 0x94)[0]
    copies = 0
    for off in range(0, len(mm) - nodesize, 4096):
        if mm[off + 48:off + 56] != struct.pack('<Q', leaf):
            continue
        block = bytearray(mm[off:off + nodesize])
        if struct.unpack_from('<I', block, 0)[0] != crc32c(block[32:]):
            continue
        for i in range(struct.unpack_from('<I', block, 96)[0]):
            base = 101 + 25 * i
            if struct.unpack_from('<QBQ', block, base) == (child, 246, parent):
                struct.pack_into('<QBQ', block, base, child, 246, new)
                break
        else:
            sys.exit('relation not found')
        struct.pack_into('<I', block, 0, crc32c(block[32:]))
        mm[off:off + nodesize] = bytes(block)
        copies += 1
    mm.flush()
    sys.exit(0 if copies else 'leaf not found')
EOF2
}

@test "accounting: a relation naming a removed qgroup is reported, numbers still checked" {
	mkfs_mount 256M
	btrfs quota enable "$MNT"
	btrfs subvolume create "$MNT/a" >/dev/null
	head -c 50000 /dev/urandom >"$MNT/a/f"
	btrfs qgroup create 1/10 "$MNT"
	btrfs qgroup assign --no-rescan 0/256 1/10 "$MNT"
	rescan_and_unmount
	# (0/256, RELATION, 1/10) now names 1/99, which has no INFO/LIMIT items
	patch_relation_parent "$IMG" 256 $(( (1 << 48) | 10 )) $(( (1 << 48) | 99 ))
	run_volctl_split check --qgroup-report "$IMG"
	[ "$status" -eq 0 ]
	[[ "$err" == *"qgroup relation 0/256 -> 1/99: names a qgroup that no longer exists"* ]]
	[[ "$out" == *"all consistent"* ]]
	run_volctl_split --format json check --qgroup-report "$IMG"
	[ "$(jq -r '.check.orphan_relations[0] | "\(.member) \(.parent)"' <<<"$out")" = "0/256 1/99" ]
}
