#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Time "volctl subvolume list" against "btrfs subvolume list", and
# "volctl qgroup show" against "btrfs qgroup show", on a loop-mounted image
# with many subvolumes (top-level, inside directories, nested inside other
# subvolumes) and quotas enabled.  Runs alternate between the two tools;
# medians and ratios are printed and written to bench/results/.
#
#   sudo bench/subvol-list.sh [NR_SUBVOLS [RUNS]]     (defaults: 10000, 10)
#
# Environment: VOLCTL (default ./volctl), BTRFS (default btrfs),
# BENCH_DIR (scratch directory, default /tmp/online-bench).
set -eu

NR=${1:-10000}
RUNS=${2:-10}
HERE=$(cd "$(dirname "$0")/.." && pwd)
VOLCTL=${VOLCTL:-$HERE/volctl}
BTRFS=${BTRFS:-btrfs}
BENCH_DIR=${BENCH_DIR:-/tmp/online-bench}
RESULTS=$HERE/bench/results
IMG=$BENCH_DIR/bench.img
MNT=$BENCH_DIR/mnt
LOOPDEV=

if [ "$(id -u)" -ne 0 ]; then
	echo "bench: needs root (loop devices, mount)" >&2
	exit 1
fi
[ -x "$VOLCTL" ] || { echo "bench: $VOLCTL not built" >&2; exit 1; }

cleanup() {
	cd /
	if mountpoint -q "$MNT" 2>/dev/null; then
		umount "$MNT" || umount -l "$MNT" || true
	fi
	[ -n "$LOOPDEV" ] && losetup -d "$LOOPDEV" 2>/dev/null || true
	rm -f "$IMG"
	rmdir "$MNT" "$BENCH_DIR" 2>/dev/null || true
}
trap cleanup EXIT

mkdir -p "$MNT" "$RESULTS"
truncate -s 4G "$IMG"
mkfs.btrfs -q -f "$IMG" >/dev/null
LOOPDEV=$(losetup -f --show "$IMG")
mount "$LOOPDEV" "$MNT"
cd "$MNT"
"$BTRFS" quota enable .

# 40% at the top level, 30% in 50 directories two levels deep, 30% nested
# inside the top-level subvolumes (some of those in a directory of their own)
echo "bench: creating $NR subvolumes..."
start=$(date +%s)
top=$((NR * 4 / 10))
indir=$((NR * 3 / 10))
nested=$((NR - top - indir))
for d in $(seq 0 49); do mkdir -p "dirs/g$((d % 5))/d$d"; done
seq 0 $((top - 1)) | sed 's/^/s/' | xargs -n 500 "$VOLCTL" -q subvolume create
seq 0 $((indir - 1)) | awk '{ printf "dirs/g%d/d%d/i%d\n", ($1 % 50) % 5, $1 % 50, $1 }' |
	xargs -n 500 "$VOLCTL" -q subvolume create
for t in $(seq 0 $(( (top < 100 ? top : 100) - 1 ))); do mkdir -p "s$t/inner"; done
seq 0 $((nested - 1)) | awk -v top="$top" '{
	t = $1 % (top < 100 ? top : 100)
	if ($1 % 2) printf "s%d/n%d\n", t, $1; else printf "s%d/inner/n%d\n", t, $1 }' |
	xargs -n 500 "$VOLCTL" -q subvolume create
"$BTRFS" filesystem sync .
echo "bench: created in $(( $(date +%s) - start ))s"

count=$("$VOLCTL" subvolume list . | wc -l)
if [ "$count" -ne "$NR" ]; then
	echo "bench: expected $NR subvolumes, volctl lists $count" >&2
	exit 1
fi
if ! cmp -s <("$VOLCTL" subvolume list .) <("$BTRFS" subvolume list .); then
	echo "bench: volctl and btrfs list differently" >&2
	exit 1
fi

# run_once CMD...: "wall_ms cpu_ms" of one run (bash's time: user + sys for cpu)
run_once() {
	local TIMEFORMAT='%3R %3U %3S' t
	t=$( { time "$@" >/dev/null 2>&1; } 2>&1 )
	awk '{ printf "%d %d\n", $1 * 1000, ($2 + $3) * 1000 }' <<<"$t"
}

median() {
	sort -n | awk '{ a[NR] = $1 } END {
		if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0) printf "%.1fx", b / a; else print "inf" }'
}

# compare NAME "volctl cmd" "btrfs cmd": alternate runs; medians of wall-clock
# and CPU time, and how many times faster volctl is
compare() {
	local name=$1 ours=$2 theirs=$3 aw=() ac=() bw=() bc=() i r maw mac mbw mbc
	for i in $(seq 1 "$RUNS"); do
		# shellcheck disable=SC2086
		r=$(run_once $ours); aw+=("${r% *}"); ac+=("${r#* }")
		# shellcheck disable=SC2086
		r=$(run_once $theirs); bw+=("${r% *}"); bc+=("${r#* }")
	done
	maw=$(printf '%s\n' "${aw[@]}" | median); mac=$(printf '%s\n' "${ac[@]}" | median)
	mbw=$(printf '%s\n' "${bw[@]}" | median); mbc=$(printf '%s\n' "${bc[@]}" | median)
	printf '%-15s wall: volctl %6s ms  btrfs %6s ms  %6s   cpu: volctl %6s ms  btrfs %6s ms  %6s\n' \
		"$name" "$maw" "$mbw" "$(ratio "$maw" "$mbw")" "$mac" "$mbc" "$(ratio "$mac" "$mbc")"
}

out=$RESULTS/subvol-list-$(date -u +%Y%m%dT%H%M%SZ)-$NR.txt
{
	echo "subvolumes: $NR, runs: $RUNS each, alternating; kernel $(uname -r), $(nproc) CPUs," \
		"load $(cut -d' ' -f1 /proc/loadavg)"
	echo "volctl: $("$VOLCTL" --version), btrfs: $("$BTRFS" --version)"
	compare "subvolume list" "$VOLCTL subvolume list ." "$BTRFS subvolume list ."
	if "$VOLCTL" qgroup show . >/dev/null 2>&1; then
		compare "qgroup show" "$VOLCTL qgroup show ." "$BTRFS qgroup show ."
	else
		echo "qgroup show: skipped (not built)"
	fi
} | tee "$out"
echo "bench: results in $out"
