#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Benchmark: volctl subvolume space against the nearest exact btrfs-progs
# path, `btrfs quota rescan -w` then `btrfs qgroup show`.
#
#   bench/subvol-space.sh [EXTENTS]        (default: 100000; needs root)
#
# The image is the one bench/qgroup-check.sh builds for EXTENTS (same
# environment: SNAPSHOTS, default 120, REWRITE_RUN, default 20, WORKDIR,
# default /tmp/volctl-bench); when it is not there, qgroup-check.sh builds it
# first (with SKIP_BTRFS_CHECK=1 and one run).  Then, with warm page cache:
#   - offline: volctl --image IMG subvolume space /            (RUNS runs)
#   - mounted: volctl subvolume space MNT                      (RUNS runs)
#              btrfs qgroup show --raw MNT   (recorded numbers, RUNS runs)
#              btrfs quota rescan -w MNT + btrfs qgroup show --raw MNT
#              (the exact numbers, once: the rescan runs in the kernel, so
#              its CPU time is not the process's; read the wall time)
# and prints wall time, CPU time (user + sys of the process) and peak RSS,
# then checks that every subvolume's exclusive bytes equal the kernel's
# 0/ID after that rescan.  SKIP_RESCAN=1 leaves the rescan out.
#
# Results: bench/README.md.

set -eu

VOLCTL=${VOLCTL:-$(cd "$(dirname "$0")/.." && pwd)/volctl}
SNAPSHOTS=${SNAPSHOTS:-120}
REWRITE_RUN=${REWRITE_RUN:-20}
WORKDIR=${WORKDIR:-/tmp/volctl-bench}
RUNS=${RUNS:-3}
SKIP_RESCAN=${SKIP_RESCAN:-0}
EXTENTS=${1:-100000}

[ "$(id -u)" -eq 0 ] || { echo "bench: needs root (loop mounts)" >&2; exit 2; }
command -v btrfs >/dev/null || { echo "bench: needs btrfs-progs" >&2; exit 2; }
command -v jq >/dev/null || { echo "bench: needs jq" >&2; exit 2; }
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

# measure NAME CMD...: wall seconds, peak RSS (KiB), exit status, CPU seconds
# (user + sys), as bench/qgroup-check.sh measures
measure() {
	local name=$1; shift
	local out=$WORKDIR/space-$name rc=0 TIMEFORMAT='%3R %3U %3S'
	{ time /usr/bin/time -f %M -o "$out.rss" "$@" >"$out.out" 2>&1 || rc=$?; } 2>"$out.time"
	read -r wall user sys <"$out.time"
	awk -v w="$wall" -v u="$user" -v s="$sys" -v rc="$rc" -v rss="$(tail -1 "$out.rss")" \
		'BEGIN { printf "%s %s %s %.3f\n", w, rss, rc, u + s }'
}

median() {
	sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

# runs NAME FIELD median|max
runs() {
	awk -v f="$2" '{ print $f }' "$WORKDIR/space-$1.runs" |
		if [ "$3" = max ]; then sort -g | tail -1; else median; fi
}

row() {
	printf '%-52s %8s %8s %10s %4s\n' "$@"
}

# report NAME LABEL: one row from the runs of NAME
report() {
	row "$2" "$(runs "$1" 1 median)" "$(runs "$1" 4 median)" "$(runs "$1" 2 max)" \
		"$(runs "$1" 3 max)"
}

img=$WORKDIR/qgroup-$EXTENTS-s$SNAPSHOTS-r$REWRITE_RUN.img
if [ ! -e "$img" ]; then
	SKIP_BTRFS_CHECK=1 RUNS=1 SNAPSHOTS=$SNAPSHOTS REWRITE_RUN=$REWRITE_RUN WORKDIR=$WORKDIR \
		VOLCTL=$VOLCTL "$(dirname "$0")/qgroup-check.sh" "$EXTENTS" >&2
fi
cat "$img" >/dev/null	# warm the page cache for every tool alike
"$VOLCTL" --format json check --qgroup-report "$img" >"$WORKDIR/space-check.json" || true
jq -r '"image: \(.check.trees.data_extents) data extents, \(.check.trees.data_back_refs) data back refs, \(.check.trees.fs_tree_blocks) fs tree blocks, \(.check.trees.fs_trees) fs trees"' \
	"$WORKDIR/space-check.json" >&2

: >"$WORKDIR/space-offline.runs"
for _ in $(seq 1 "$RUNS"); do
	measure offline "$VOLCTL" --image "$img" subvolume space / >>"$WORKDIR/space-offline.runs"
done
rows=$(($(wc -l <"$WORKDIR/space-offline.out") - 2))

MNT=$WORKDIR/mnt
mkdir -p "$MNT"
LOOP=$(losetup -f --show "$img")
mount "$LOOP" "$MNT"
: >"$WORKDIR/space-online.runs"
: >"$WORKDIR/space-show.runs"
for _ in $(seq 1 "$RUNS"); do	# alternate, so load changes hit both alike
	measure online "$VOLCTL" subvolume space "$MNT" >>"$WORKDIR/space-online.runs"
	measure show btrfs qgroup show --raw "$MNT" >>"$WORKDIR/space-show.runs"
done
"$VOLCTL" --format json subvolume space "$MNT" >"$WORKDIR/space-online.json"
if [ "$SKIP_RESCAN" != 1 ]; then
	measure rescan bash -c 'btrfs quota rescan -w "$1" >/dev/null && btrfs qgroup show --raw "$1"' \
		sh "$MNT" >"$WORKDIR/space-rescan.runs"
	differ=$(join <(jq -r '.subvolume_space.subvolumes[] | "0/\(.id) \(.exclusive)"' \
			"$WORKDIR/space-online.json" | sort) \
		      <(awk 'NR > 2 && $1 ~ /^0\// { print $1, $3 }' "$WORKDIR/space-rescan.out" | sort) |
		 awk '$2 != $3' | wc -l)
	echo "after the rescan: $differ of $rows subvolumes' exclusive bytes differ from the kernel's" >&2
fi
cleanup

echo "$EXTENTS extents, $SNAPSHOTS snapshots, $rows rows; medians of $RUNS runs"
row tool wall_s cpu_s peak_KiB rc
report offline "volctl --image IMG subvolume space /"
report online "volctl subvolume space MNT"
report show "btrfs qgroup show --raw MNT (recorded)"
[ "$SKIP_RESCAN" = 1 ] || report rescan "btrfs quota rescan -w + qgroup show --raw"
