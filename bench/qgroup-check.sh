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
# rewrites of about 1% of the extents in the source, so that the snapshots
# share most of the data but not all.  Quotas are enabled at the end and the
# kernel's rescan (enable, then rescan -W) is timed.  After unmounting it
# times, with warm page cache and /usr/bin/time -v:
#   - volctl inspect tree --walk-only IMG   (reading every tree block once)
#   - volctl check --qgroup-report IMG
#   - btrfs check --readonly --qgroup-report IMG   (the distro btrfs-progs)
# and prints wall time, CPU time, peak RSS and the ratios as one table.
#
# Environment: VOLCTL (default ./volctl), SNAPSHOTS, REWRITES (extents rewritten
# per snapshot, default 1% of EXTENTS), SKIP_BTRFS_CHECK=1 (for sizes where
# btrfs check would not fit in memory), WORKDIR (default
# /tmp/volctl-bench; images are kept there as qgroup-EXTENTS.img and reused
# when present, delete them to rebuild), KEEP_IMAGES=0 to remove them,
# RUNS (alternating runs of the floor and volctl, default 3; medians).
#
# Results (2026-12-03, kernel 6.18, Debian btrfs-progs 6.2, 2 vCPUs shared
# with other jobs (load 6-13), warm page cache, nodesize 16 KiB; medians of
# 3 alternating runs, wall / CPU (user + sys) / peak RSS; see bench/README.md):
#   data extents  snaps  rescan  floor (walk once)      volctl check           btrfs check
#   21,937        120    19 s    0.18/0.03 s/6 MiB      0.35/0.07 s/30 MiB     24.7/4.7 s/259 MiB
#   219,402       120    109 s   0.43/0.23 s/30 MiB     1.03/0.48 s/83 MiB     162/84 s/3.19 GiB
#   1,096,892     245    (>8 m)  3.10/1.57 s/134 MiB    6.68/3.40 s/150 MiB    (skipped: ~20 GiB)
# volctl / floor: 1.9-2.4x wall, 2.1-2.3x CPU; btrfs check / volctl: 70x and
# 157x in time, 8.6x and 39x in memory.  Cost grows linearly (220k -> 1.1M:
# back refs 6.5x, metadata 6.6x, floor CPU 6.8x, volctl CPU 7.1x).  The
# largest image was built with SNAPSHOTS=500 ... 320000 and stopped at 245
# snapshots to fit the session; the kernel's rescan of it was stopped after
# 8 minutes at 2.0 of ~14 GB.  volctl computed the kernel's numbers for every
# qgroup of the two smaller images; btrfs check agreed.
# (floor = volctl inspect tree --walk-only.)
set -eu

VOLCTL=${VOLCTL:-$(cd "$(dirname "$0")/.." && pwd)/volctl}
SNAPSHOTS=${SNAPSHOTS:-120}
WORKDIR=${WORKDIR:-/tmp/volctl-bench}
KEEP_IMAGES=${KEEP_IMAGES:-1}
REWRITES=${REWRITES:-}
SKIP_BTRFS_CHECK=${SKIP_BTRFS_CHECK:-0}
RUNS=${RUNS:-3}
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(10000 100000)

[ "$(id -u)" -eq 0 ] || { echo "bench: needs root (loop mounts)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
command -v btrfs >/dev/null || { echo "bench: needs btrfs-progs" >&2; exit 2; }
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

# rewrite DIR FILES PER_FILE COUNT SEED: rewrite COUNT random extents
rewrite_extents() {
	python3 - "$@" <<'EOF'
import os, random, sys
d, files, per, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
rnd = random.Random(seed)
for _ in range(count):
    f, e = rnd.randrange(files), rnd.randrange(per)
    fd = os.open(os.path.join(d, 'f%d' % f), os.O_WRONLY)
    os.pwrite(fd, os.urandom(4096), e * 8192)
    os.close(fd)
EOF
}

build_image() {
	local extents=$1 img=$2.tmp per=10 files rewrites
	files=$(( (extents + per - 1) / per ))
	rewrites=${REWRITES:-$(( extents / 100 > 0 ? extents / 100 : 1 ))}
	truncate -s $(( extents * 4096 * 4 + SNAPSHOTS * 256 * 1024 * 1024 )) "$img"
	mkfs.btrfs -q -f "$img" >/dev/null
	MNT=$WORKDIR/mnt
	mkdir -p "$MNT"
	LOOP=$(losetup -f --show "$img")
	mount "$LOOP" "$MNT"
	btrfs subvolume create "$MNT/data" >/dev/null
	write_extents "$MNT/data" "$files" "$per"
	sync
	for s in $(seq 1 "$SNAPSHOTS"); do
		btrfs subvolume snapshot "$MNT/data" "$MNT/snap$s" >/dev/null
		rewrite_extents "$MNT/data" "$files" "$per" "$rewrites" "$s"
	done
	sync
	# enable starts the rescan; -W waits for that one (a second -w may
	# return at once with EINPROGRESS while it runs)
	# shellcheck disable=SC2016
	/usr/bin/time -f "%e" -o "$WORKDIR/rescan.time" \
		sh -c 'btrfs quota enable "$1" && btrfs quota rescan -W "$1"' sh "$MNT" >/dev/null
	sync
	cleanup
	mv "$img" "$2"
}

# measure NAME CMD...: wall seconds, peak RSS (KiB), exit status, CPU seconds (user + sys)
measure() {
	local name=$1; shift
	local out=$WORKDIR/$name.time rc=0
	/usr/bin/time -v -o "$out" "$@" >"$WORKDIR/$name.out" 2>&1 || rc=$?
	awk -F': ' -v rc="$rc" '
		/Elapsed \(wall clock\)/ { n = split($2, p, ":"); w = 0;
			for (i = 1; i <= n; i++) w = w * 60 + p[i] }
		/Maximum resident set size/ { rss = $2 }
		/User time \(seconds\)/ { cpu += $2 }
		/System time \(seconds\)/ { cpu += $2 }
		END { printf "%s %s %s %.2f\n", w, rss, rc, cpu }' "$out"
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
	img=$WORKDIR/qgroup-$extents.img
	rescan=-
	if [ ! -e "$img" ]; then
		build_image "$extents" "$img"
		rescan=$(cat "$WORKDIR/rescan.time")
	fi
	cat "$img" >/dev/null	# warm the page cache for every tool alike
	nr=$("$VOLCTL" --format json check --qgroup-report "$img" | jq -r '.check.trees.data_extents')
	: >"$WORKDIR/walk.runs"
	: >"$WORKDIR/volctl.runs"
	for _ in $(seq 1 "$RUNS"); do	# alternate, so load changes hit both alike
		measure walk "$VOLCTL" inspect tree --walk-only "$img" >>"$WORKDIR/walk.runs"
		measure volctl "$VOLCTL" check --qgroup-report "$img" >>"$WORKDIR/volctl.runs"
	done
	w_walk=$(runs walk 1 median) r_walk=$(runs walk 2 max) c_walk=$(runs walk 3 max)
	u_walk=$(runs walk 4 median)
	w_volctl=$(runs volctl 1 median) r_volctl=$(runs volctl 2 max) c_volctl=$(runs volctl 3 max)
	u_volctl=$(runs volctl 4 median)
	w_bc=- r_bc=- c_bc=- u_bc=-
	if [ "$SKIP_BTRFS_CHECK" != 1 ]; then
		read -r w_bc r_bc c_bc u_bc < <(measure btrfs btrfs check --readonly --qgroup-report "$img")
	fi
	row "$extents" "$SNAPSHOTS" "$nr" "kernel quota rescan -w" "$rescan" - - -
	row "$extents" "$SNAPSHOTS" "$nr" "volctl inspect tree --walk-only" "$w_walk" "$u_walk" "$r_walk" "$c_walk"
	row "$extents" "$SNAPSHOTS" "$nr" "volctl check --qgroup-report" "$w_volctl" "$u_volctl" "$r_volctl" "$c_volctl"
	row "$extents" "$SNAPSHOTS" "$nr" "btrfs check --qgroup-report" "$w_bc" "$u_bc" "$r_bc" "$c_bc"
	awk -v w="$w_volctl" -v fw="$w_walk" -v u="$u_volctl" -v fu="$u_walk" 'BEGIN {
		printf "ratio volctl/floor: wall %.2fx, cpu %.2fx (medians of %d runs)\n",
			(fw > 0 ? w / fw : 0), (fu > 0 ? u / fu : 0), '"$RUNS"' }'
	[ "$w_bc" = - ] || awk -v a="$w_bc" -v b="$w_volctl" -v c="$r_bc" -v d="$r_volctl" 'BEGIN {
		printf "ratio btrfs/volctl: time %.1fx, peak memory %.1fx\n",
			(b > 0 ? a / b : 0), (d > 0 ? c / d : 0) }'
	if [ "$KEEP_IMAGES" = 0 ]; then rm -f "$img"; fi
done
