#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Benchmark: offline qgroup verification, volctl against btrfs-progs.
#
#   bench/qgroup-check.sh [EXTENTS...]        (default: 10000 100000; needs root)
#
# For each size it builds an image on a loop mount: one subvolume whose files
# hold EXTENTS data extents of 4 KiB (written with holes between them, so each
# is its own extent), then SNAPSHOTS snapshots (default 120), each followed by
# rewrites of 1% of the extents in the source, in runs of REWRITE_RUN
# (default 20) consecutive extents at random places, so that the snapshots
# share most of the data but not all, and each generation copies some of the
# source's leaves, not all of them.  Quotas are enabled at the end and the
# kernel's rescan (enable, then rescan -W) is timed.  After unmounting it
# times, with warm page cache (wall and CPU time in milliseconds, peak RSS):
#   - dd of the first copy of every metadata and system chunk, whole
#   - volctl inspect tree --walk-only IMG   (reading every tree block once)
#   - volctl check --qgroup-report IMG
#   - btrfs check --readonly --qgroup-report IMG   (the distro btrfs-progs)
# and prints wall time, CPU time, peak RSS and the ratios as one table, the
# image's shape (data extents, data back refs, fs tree blocks, metadata
# bytes) and each checker's verdict.
#
# SHAPE=mixed adds the shape of the qgroup-undercount fixture (tests/fixtures):
# files of 64 KiB extents too, and between snapshots clones of a block from the
# middle of an extent to a lower offset of another file (data ref offsets that
# wrap below zero), whole-extent clones between files, bookends, hole punches,
# appends and truncates, and every 20th snapshot the one taken ten before is
# deleted (all cleaned before the rescan).
#
# Environment: VOLCTL (default ./volctl), SNAPSHOTS, REWRITES (extents rewritten
# per snapshot, default 1% of EXTENTS), REWRITE_RUN (1 rewrites single
# extents all over the source, so that every leaf is copied in every
# generation: about eight times the back refs), SKIP_BTRFS_CHECK=1 (for
# sizes where btrfs check would not fit in memory), WORKDIR (default
# /tmp/volctl-bench; images are kept there as
# qgroup-EXTENTS-sSNAPSHOTS-rREWRITE_RUN.img and reused when present, delete
# them to rebuild), KEEP_IMAGES=0 to remove them, RUNS (alternating runs of
# the floor and volctl, default 3; medians).
#
# Results: bench/README.md (floor = volctl inspect tree --walk-only).
set -eu

VOLCTL=${VOLCTL:-$(cd "$(dirname "$0")/.." && pwd)/volctl}
SNAPSHOTS=${SNAPSHOTS:-120}
WORKDIR=${WORKDIR:-/tmp/volctl-bench}
KEEP_IMAGES=${KEEP_IMAGES:-1}
REWRITES=${REWRITES:-}
REWRITE_RUN=${REWRITE_RUN:-20}
SHAPE=${SHAPE:-plain}
SKIP_BTRFS_CHECK=${SKIP_BTRFS_CHECK:-0}
RUNS=${RUNS:-3}
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(10000 100000)

[ "$(id -u)" -eq 0 ] || { echo "bench: needs root (loop mounts)" >&2; exit 2; }
command -v btrfs >/dev/null || { echo "bench: needs btrfs-progs" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
mkdir -p "$WORKDIR"

MNT=
LOOP=
cleanup() {
	if [ -n "$MNT" ] && mountpoint -q "$MNT"; then umount "$MNT"; fi
	if [ -n "$LOOP" ]; then losetup -d "$LOOP" 2>/dev/null || true; fi
	MNT=
	LOOP=
}
trap cleanup EXIT

# write_extents DIR FILES PER_FILE: PER_FILE separate 4 KiB extents per file
write_extents() {
	python3 - "$@" <<'EOF'
import os, sys
d, files, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
buf = os.urandom(4096 * 64)
for f in range(files):
    fd = os.open(os.path.join(d, 'f%d' % f), os.O_WRONLY | os.O_CREAT, 0o644)
    for e in range(per):
        o = (f * per + e) % 64 * 4096
        os.pwrite(fd, buf[o:o + 4096], e * 8192)
    os.close(fd)
EOF
}

# rewrite DIR FILES PER_FILE COUNT SEED RUN: rewrite COUNT extents, in runs of
# RUN consecutive ones (extent i is extent i % PER_FILE of file i / PER_FILE)
# starting at random places
rewrite_extents() {
	python3 - "$@" <<'EOF'
import os, random, sys
d, files, per, count, seed, run = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
rnd = random.Random(seed)
total = files * per
run = max(1, min(run, total))
for _ in range((count + run - 1) // run):
    start = rnd.randrange(total - run + 1)
    for i in range(start, start + run):
        f, e = divmod(i, per)
        fd = os.open(os.path.join(d, 'f%d' % f), os.O_WRONLY)
        os.pwrite(fd, os.urandom(4096), e * 8192)
        os.close(fd)
EOF
}

# write_large DIR FILES: FILES files of 8 separate 64 KiB extents each (the
# mixed shape's material for bookends, hole punches and partial clones)
write_large() {
	python3 - "$@" <<'EOF'
import os, sys
d, files = sys.argv[1], int(sys.argv[2])
for f in range(files):
    fd = os.open(os.path.join(d, 'L%d' % f), os.O_WRONLY | os.O_CREAT, 0o644)
    for e in range(8):
        os.pwrite(fd, os.urandom(65536), e * 131072)
    os.close(fd)
EOF
}

# mix DIR FILES PER_FILE LARGE COUNT SEED RUN: the mixed shape's changes in the
# source between two snapshots, COUNT of each: clones of one 4 KiB block from
# the middle of a 64 KiB extent to a lower offset of another file (the data
# ref offset wraps below zero), whole-extent clones between files, bookends
# (4 KiB overwritten in the middle of a 64 KiB extent), hole punches in the
# middle of 64 KiB extents, appends and truncates
mix_extents() {
	python3 - "$@" <<'EOF'
import ctypes, fcntl, os, random, struct, sys
d, files, per, large, count, seed, run = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
rnd = random.Random(seed * 7919)
libc = ctypes.CDLL(None, use_errno=True)
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]
FICLONERANGE = 0x4020940D
def clone(src, soff, n, dst, doff):
    with open(os.path.join(d, src), 'rb') as s, open(os.path.join(d, dst), 'r+b') as t:
        try:
            fcntl.ioctl(t.fileno(), FICLONERANGE, struct.pack('qQQQ', s.fileno(), soff, n, doff))
        except OSError:
            pass
# like the rewrites, in windows of RUN neighbouring files (neighbouring
# inodes share leaves), so each generation copies some leaves, not all
for i in range(count):
    if i % run == 0:
        wf = rnd.randrange(max(1, files - run))
        wl = rnd.randrange(max(1, large - run))
    L = lambda: 'L%d' % min(large - 1, wl + rnd.randrange(run))
    F = lambda: 'f%d' % min(files - 1, wf + rnd.randrange(run))
    e = rnd.randrange(8)
    clone(L(), e * 131072 + rnd.randrange(1, 16) * 4096, 4096, F(), rnd.randrange(per) * 8192)
    clone(F(), rnd.randrange(per) * 8192, 4096, F(), rnd.randrange(per) * 8192)
    fd = os.open(os.path.join(d, L()), os.O_WRONLY)
    os.pwrite(fd, os.urandom(4096), rnd.randrange(8) * 131072 + rnd.randrange(1, 15) * 4096)
    libc.fallocate(fd, 3, rnd.randrange(8) * 131072 + rnd.randrange(1, 15) * 4096, 4096)
    os.close(fd)
    name = os.path.join(d, F())
    size = os.path.getsize(name)
    if rnd.random() < 0.5:
        with open(name, 'ab') as f:
            f.write(os.urandom(4096))
    elif size > 8192:
        os.truncate(name, size - 4096)
EOF
}

build_image() {
	local extents=$1 img=$2.tmp per=10 files rewrites large
	files=$(( (extents + per - 1) / per ))
	large=$(( files / 10 + 1 ))
	rewrites=${REWRITES:-$(( extents / 100 > 0 ? extents / 100 : 1 ))}
	truncate -s $(( extents * 4096 * 4 + SNAPSHOTS * 256 * 1024 * 1024 )) "$img"
	mkfs.btrfs -q -f "$img" >/dev/null
	MNT=$WORKDIR/mnt
	mkdir -p "$MNT"
	LOOP=$(losetup -f --show "$img")
	# nobarrier: the image is synced before it is unmounted; flushes of
	# the backing file at every snapshot's commit only slow the build
	mount -o nobarrier "$LOOP" "$MNT"
	btrfs subvolume create "$MNT/data" >/dev/null
	write_extents "$MNT/data" "$files" "$per"
	if [ "$SHAPE" = mixed ]; then write_large "$MNT/data" "$large"; fi
	sync -f "$MNT"
	for s in $(seq 1 "$SNAPSHOTS"); do
		btrfs subvolume snapshot "$MNT/data" "$MNT/snap$s" >/dev/null
		rewrite_extents "$MNT/data" "$files" "$per" "$rewrites" "$s" "$REWRITE_RUN"
		if [ "$SHAPE" = mixed ]; then
			mix_extents "$MNT/data" "$files" "$per" "$large" $(( rewrites / 4 + 1 )) "$s" \
				"$REWRITE_RUN"
			# every 20th snapshot, the one taken ten before goes (cleaned
			# before the rescan)
			if [ $(( s % 20 )) -eq 0 ]; then
				btrfs subvolume delete "$MNT/snap$(( s - 10 ))" >/dev/null
			fi
		fi
		if [ $(( s % 25 )) -eq 0 ]; then
			echo "bench: $(date +%T) $extents extents: $s of $SNAPSHOTS snapshots" >&2
		fi
	done
	sync -f "$MNT"
	btrfs filesystem sync "$MNT"	# wakes the cleaner for the deletions
	btrfs subvolume sync "$MNT" >/dev/null
	# enable starts the rescan; -W waits for that one (a second -w may
	# return at once with EINPROGRESS while it runs)
	local t0
	t0=$(date +%s.%N)
	btrfs quota enable "$MNT"
	btrfs quota rescan -W "$MNT" >/dev/null
	awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", b - a }' >"$WORKDIR/rescan.time"
	sync -f "$MNT"
	cleanup
	mv "$img" "$2"
}

# measure NAME CMD...: wall seconds, peak RSS (KiB), exit status, CPU seconds
# (user + sys).  Times come from bash's time keyword (milliseconds, where
# /usr/bin/time rounds to 10 ms), the peak RSS from /usr/bin/time, which
# starts the program from its own small process (the count includes the
# wrapper's 1-2 ms).
measure() {
	local name=$1; shift
	local out=$WORKDIR/$name rc=0 TIMEFORMAT='%3R %3U %3S'
	{ time /usr/bin/time -f %M -o "$out.rss" "$@" >"$out.out" 2>&1 || rc=$?; } 2>"$out.time"
	read -r wall user sys <"$out.time"
	awk -v w="$wall" -v u="$user" -v s="$sys" -v rc="$rc" -v rss="$(tail -1 "$out.rss")" \
		'BEGIN { printf "%s %s %s %.3f\n", w, rss, rc, u + s }'
}

# raw_metadata IMG: read the first copy of every METADATA and SYSTEM chunk
# once, whole (used or not), with dd: the issue's definition of the floor
raw_metadata() {
	btrfs inspect-internal dump-tree -t chunk "$1" | awk '
		/CHUNK_ITEM/ { inchunk = 1; next }
		inchunk && /length/ { len = $2; meta = ($0 ~ /METADATA|SYSTEM/) }
		inchunk && /stripe 0 devid/ { if (meta) print $6, len; inchunk = 0 }' |
	while read -r off len; do
		dd if="$1" of=/dev/null bs=1M iflag=skip_bytes,count_bytes skip="$off" \
			count="$len" status=none
	done
}

# median of the numbers on stdin
median() {
	sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

# runs NAME FIELD median|max: over the runs of NAME (exit status: the largest)
runs() {
	awk -v f="$2" '{ print $f }' "$WORKDIR/$1.runs" |
		if [ "$3" = max ]; then sort -g | tail -1; else median; fi
}

row() {
	printf '%-9s %-6s %-9s %-34s %8s %8s %10s %4s\n' "$@"
}

row extents snaps data_ext tool wall_s cpu_s peak_KiB rc
for extents in "${SIZES[@]}"; do
	img=$WORKDIR/qgroup-$extents-s$SNAPSHOTS-r$REWRITE_RUN$([ "$SHAPE" = plain ] || echo "-$SHAPE").img
	rescan=-
	if [ ! -e "$img" ]; then
		build_image "$extents" "$img"
		rescan=$(cat "$WORKDIR/rescan.time")
	fi
	cat "$img" >/dev/null	# warm the page cache for every tool alike
	"$VOLCTL" --format json check --qgroup-report "$img" >"$WORKDIR/check.json" || true
	nr=$(jq -r '.check.trees.data_extents' "$WORKDIR/check.json")
	jq -r '"image: \(.check.trees.data_extents) data extents, \(.check.trees.data_back_refs) data back refs, \(.check.trees.fs_tree_blocks) fs tree blocks, \(.check.trees.fs_trees) fs trees; volctl: \(.check.qgroups | length) qgroups, \(.check.differences) differ"' \
		"$WORKDIR/check.json" >&2
	meta=$(btrfs inspect-internal dump-super "$img" | awk '$1 == "bytes_used" { print $2 }')
	echo "image: $(du -h --apparent-size "$img" | cut -f1) sparse, $(du -h "$img" | cut -f1) allocated, bytes_used $meta" >&2
	: >"$WORKDIR/raw.runs"
	: >"$WORKDIR/walk.runs"
	: >"$WORKDIR/volctl.runs"
	for _ in $(seq 1 "$RUNS"); do	# alternate, so load changes hit all alike
		measure raw bash -c "$(declare -f raw_metadata); raw_metadata \"\$1\"" sh "$img" \
			>>"$WORKDIR/raw.runs"
		measure walk "$VOLCTL" inspect tree --walk-only "$img" >>"$WORKDIR/walk.runs"
		measure volctl "$VOLCTL" check --qgroup-report "$img" >>"$WORKDIR/volctl.runs"
	done
	w_raw=$(runs raw 1 median) u_raw=$(runs raw 4 median)
	w_walk=$(runs walk 1 median) r_walk=$(runs walk 2 max) c_walk=$(runs walk 3 max)
	u_walk=$(runs walk 4 median)
	w_volctl=$(runs volctl 1 median) r_volctl=$(runs volctl 2 max) c_volctl=$(runs volctl 3 max)
	u_volctl=$(runs volctl 4 median)
	w_bc=- r_bc=- c_bc=- u_bc=-
	if [ "$SKIP_BTRFS_CHECK" != 1 ]; then
		read -r w_bc r_bc c_bc u_bc < <(measure btrfs btrfs check --readonly --qgroup-report "$img")
		echo "btrfs check: $(grep -c "^Counts for qgroup id" "$WORKDIR/btrfs.out" || true) qgroups reported, $(grep -c "are different" "$WORKDIR/btrfs.out" || true) different, exit $c_bc" >&2
	fi
	row "$extents" "$SNAPSHOTS" "$nr" "kernel quota rescan -w" "$rescan" - - -
	row "$extents" "$SNAPSHOTS" "$nr" "dd of the metadata chunks" "$w_raw" "$u_raw" - -
	row "$extents" "$SNAPSHOTS" "$nr" "volctl inspect tree --walk-only" "$w_walk" "$u_walk" "$r_walk" "$c_walk"
	row "$extents" "$SNAPSHOTS" "$nr" "volctl check --qgroup-report" "$w_volctl" "$u_volctl" "$r_volctl" "$c_volctl"
	row "$extents" "$SNAPSHOTS" "$nr" "btrfs check --qgroup-report" "$w_bc" "$u_bc" "$r_bc" "$c_bc"
	awk -v w="$w_volctl" -v fw="$w_walk" -v u="$u_volctl" -v fu="$u_walk" 'BEGIN {
		printf "ratio volctl/floor: wall %.2fx, cpu %.2fx (medians of %d runs)\n",
			(fw > 0 ? w / fw : 0), (fu > 0 ? u / fu : 0), '"$RUNS"' }'
	awk -v w="$w_volctl" -v fw="$w_raw" -v u="$u_volctl" -v fu="$u_raw" 'BEGIN {
		printf "ratio volctl/dd of the metadata chunks: wall %.2fx, cpu %.2fx\n",
			(fw > 0 ? w / fw : 0), (fu > 0 ? u / fu : 0) }'
	[ "$w_bc" = - ] || awk -v a="$w_bc" -v b="$w_volctl" -v c="$r_bc" -v d="$r_volctl" 'BEGIN {
		printf "ratio btrfs/volctl: time %.1fx, peak memory %.1fx\n",
			(b > 0 ? a / b : 0), (d > 0 ? c / d : 0) }'
	if [ "$KEEP_IMAGES" = 0 ]; then rm -f "$img"; fi
done
