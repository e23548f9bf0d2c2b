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

# time_ms CMD...: wall time of one run in milliseconds (output discarded)
time_ms() {
	local t0 t1
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s%N)
	echo $(( (t1 - t0) / 1000000 ))
}

median() {
	sort -n | awk '{ a[NR] = $1 } END {
		if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# compare NAME "volctl cmd" "btrfs cmd": alternate runs, print medians and the ratio
compare() {
	local name=$1 ours=$2 theirs=$3 a=() b=() i ma mb
	for i in $(seq 1 "$RUNS"); do
		# shellcheck disable=SC2086
		a+=("$(time_ms $ours)")
		# shellcheck disable=SC2086
		b+=("$(time_ms $theirs)")
	done
	ma=$(printf '%s\n' "${a[@]}" | median)
	mb=$(printf '%s\n' "${b[@]}" | median)
	printf '%-16s volctl %8s ms   btrfs %8s ms   btrfs/volctl %s\n' "$name" "$ma" "$mb" \
		"$(awk -v a="$ma" -v b="$mb" 'BEGIN { if (a > 0) printf "%.1fx", b / a; else print "inf" }')"
}

out=$RESULTS/subvol-list-$(date -u +%Y%m%dT%H%M%SZ)-$NR.txt
{
	echo "subvolumes: $NR, runs: $RUNS each, alternating; kernel $(uname -r)"
	echo "volctl: $("$VOLCTL" --version), btrfs: $("$BTRFS" --version)"
	compare "subvolume list" "$VOLCTL subvolume list ." "$BTRFS subvolume list ."
	if "$VOLCTL" qgroup show . >/dev/null 2>&1; then
		compare "qgroup show" "$VOLCTL qgroup show ." "$BTRFS qgroup show ."
	else
		echo "qgroup show: skipped (not built)"
	fi
} | tee "$out"
echo "bench: results in $out"
