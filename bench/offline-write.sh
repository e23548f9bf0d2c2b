#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The offline writer against the kernel, on the same images:
#   a) a snapshot of a subvolume holding NR files (image made by the kernel):
#      "volctl --image DEV subvolume snapshot" against mount + "btrfs
#      subvolume snapshot" + umount, for each NR in SNAP_FILES;
#   b) 1,000 new subvolumes: one volctl call with 1,000 paths, 1,000 volctl
#      calls, and mount + 1,000 "btrfs subvolume create" + umount, also with
#      a "btrfs filesystem sync" after each create (a commit per subvolume,
#      as each volctl call makes).
# Both sides work on a fresh copy of the same base image attached to a loop
# device, so they start from the same cache state (the copy is fsynced; the
# loop device's own cache starts empty) and their writes are counted the
# same way: sectors written in /sys/block/loopN/stat.  Runs alternate which
# side goes first; medians of wall-clock and CPU time (user + system of the
# commands, from bash's time; kernel threads are not included on either
# side) and ratios are printed and written to bench/results/.
#
#   sudo bench/offline-write.sh [RUNS]             (default 5)
#
# Environment: VOLCTL (default ./volctl), BTRFS (default btrfs), BENCH_DIR
# (scratch directory, default /tmp/offline-write-bench), SNAP_FILES (file
# counts for a, default "10000 100000"), NR_SUBVOLS (for b, default 1000),
# QUOTA (1: quotas enabled in the base images, the default; 0: off).
set -eu

RUNS=${1:-5}
HERE=$(cd "$(dirname "$0")/.." && pwd)
VOLCTL=${VOLCTL:-$HERE/volctl}
BTRFS=${BTRFS:-btrfs}
BENCH_DIR=${BENCH_DIR:-/tmp/offline-write-bench}
SNAP_FILES=${SNAP_FILES:-10000 100000}
NR_SUBVOLS=${NR_SUBVOLS:-1000}
QUOTA=${QUOTA:-1}
RESULTS=$HERE/bench/results
MNT=$BENCH_DIR/mnt
WORK=$BENCH_DIR/work.img
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
	rm -f "$BENCH_DIR"/*.img
	rmdir "$MNT" "$BENCH_DIR" 2>/dev/null || true
}
trap cleanup EXIT
mkdir -p "$MNT" "$RESULTS"

attach() {
	LOOPDEV=$(losetup -f --show "$1")
}

detach() {
	losetup -d "$LOOPDEV"
	LOOPDEV=
}

# 512-byte sectors written to the attached loop device so far
sectors_written() {
	blockdev --flushbufs "$LOOPDEV"
	awk '{ print $7 }' "/sys/block/${LOOPDEV#/dev/}/stat"
}

# A kernel-made base image: quotas (unless QUOTA=0), then "$@" run in $MNT
make_base() {
	local img=$1
	shift
	truncate -s 8G "$img"
	mkfs.btrfs -q -f "$img" >/dev/null
	attach "$img"
	mount "$LOOPDEV" "$MNT"
	if [ "$QUOTA" = 1 ]; then
		"$BTRFS" quota enable "$MNT"
	fi
	(cd "$MNT" && "$@")
	if [ "$QUOTA" = 1 ]; then
		"$BTRFS" quota rescan -W "$MNT" >/dev/null 2>&1 || true
		"$BTRFS" quota rescan -w "$MNT" >/dev/null
	fi
	umount "$MNT"
	detach
}

# NR files in subvolume src: 100 directories, mostly small (inline) files,
# every tenth 8 KiB (a data extent)
fill_files() {
	local nr=$1 d i
	"$BTRFS" subvolume create src >/dev/null
	for d in $(seq 0 99); do mkdir "src/d$d"; done
	for i in $(seq 1 "$nr"); do
		d=$((i % 100))
		if [ $((i % 10)) -eq 0 ]; then
			printf '%8192s' "$i" >"src/d$d/f$i"
		else
			printf '%s\n' "$i" >"src/d$d/f$i"
		fi
	done
}

fresh_copy() {
	cp --sparse=always "$1" "$WORK"
	sync "$WORK"
	attach "$WORK"
}

# run_timed CMD...: "wall_ms cpu_ms sectors" of one run on $LOOPDEV
run_timed() {
	local TIMEFORMAT='%3R %3U %3S' t s0 s1
	s0=$(sectors_written)
	t=$( { time "$@" >/dev/null 2>"$BENCH_DIR/err"; } 2>&1 ) || {
		cat "$BENCH_DIR/err" >&2
		return 1
	}
	s1=$(sectors_written)
	awk -v s=$((s1 - s0)) '{ printf "%d %d %d\n", $1 * 1000, ($2 + $3) * 1000, s }' <<<"$t"
}

median() {
	sort -n | awk '{ a[NR] = $1 } END {
		if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0) printf "%.1fx", b / a; else print "inf" }'
}

kib() {
	awk -v s="$1" 'BEGIN { printf "%.0f KiB", s / 2 }'
}

# The commands, each run on a fresh copy of the base image $BASE
snap_offline() { "$VOLCTL" --image "$LOOPDEV" subvolume snapshot /src /snap; }
snap_kernel() {
	mount "$LOOPDEV" "$MNT"
	"$BTRFS" subvolume snapshot "$MNT/src" "$MNT/snap"
	umount "$MNT"
}
create_offline_one() {
	# shellcheck disable=SC2046
	"$VOLCTL" --image "$LOOPDEV" subvolume create $(seq -f '/sv%g' 1 "$NR_SUBVOLS")
}
create_offline_each() {
	local i
	for i in $(seq 1 "$NR_SUBVOLS"); do
		"$VOLCTL" --image "$LOOPDEV" subvolume create "/sv$i" || return 1
	done
}
create_kernel() {
	local i
	mount "$LOOPDEV" "$MNT"
	for i in $(seq 1 "$NR_SUBVOLS"); do
		"$BTRFS" subvolume create "$MNT/sv$i" || return 1
	done
	umount "$MNT"
}

# A commit per subvolume, as each offline call makes: the durable-to-durable
# comparison for "N calls"
create_kernel_sync() {
	local i
	mount "$LOOPDEV" "$MNT"
	for i in $(seq 1 "$NR_SUBVOLS"); do
		"$BTRFS" subvolume create "$MNT/sv$i" || return 1
		"$BTRFS" filesystem sync "$MNT" || return 1
	done
	umount "$MNT"
}

# measure NAME FN: one run on a fresh copy; appends "wall cpu sectors" to
# $BENCH_DIR/NAME; the first run of each also checks the image
measure() {
	local name=$1 fn=$2 r
	fresh_copy "$BASE"
	r=$(run_timed "$fn")
	detach
	if [ ! -e "$BENCH_DIR/$name" ]; then
		if ! "$BTRFS" check --readonly "$WORK" >"$BENCH_DIR/check" 2>&1; then
			cat "$BENCH_DIR/check" >&2
			echo "bench: $name: btrfs check fails on the result" >&2
			return 1
		fi
	fi
	echo "$r" >>"$BENCH_DIR/$name"
}

col() {
	awk -v c="$2" '{ print $c }' "$BENCH_DIR/$1" | median
}

# report NAME KERNEL_NAME LABEL: medians of NAME against KERNEL_NAME
report() {
	local a=$1 b=$2 aw ac as bw bc bs
	aw=$(col "$a" 1); ac=$(col "$a" 2); as=$(col "$a" 3)
	bw=$(col "$b" 1); bc=$(col "$b" 2); bs=$(col "$b" 3)
	printf '%-28s wall %7s ms vs %7s ms %6s | cpu %7s ms vs %7s ms %6s | written %10s vs %10s\n' \
		"$3" "$aw" "$bw" "$(ratio "$aw" "$bw")" "$ac" "$bc" "$(ratio "$ac" "$bc")" \
		"$(kib "$as")" "$(kib "$bs")"
}

out=$RESULTS/offline-write-$(date -u +%Y%m%dT%H%M%SZ).txt
exec > >(tee "$out")
echo "runs: $RUNS each, alternating; kernel $(uname -r), $(nproc) CPUs," \
	"load before $(cut -d' ' -f1-3 /proc/loadavg); quotas: $QUOTA"
echo "volctl: $("$VOLCTL" --version), btrfs: $("$BTRFS" --version)"
echo "columns: volctl offline vs kernel (mount + command + umount); ratio = kernel / volctl"

for nr in $SNAP_FILES; do
	BASE=$BENCH_DIR/files-$nr.img
	echo "bench: base image with $nr files..." >&2
	make_base "$BASE" fill_files "$nr"
	rm -f "$BENCH_DIR/snap-off" "$BENCH_DIR/snap-krn"
	for i in $(seq 1 "$RUNS"); do
		if [ $((i % 2)) -eq 1 ]; then
			measure snap-off snap_offline
			measure snap-krn snap_kernel
		else
			measure snap-krn snap_kernel
			measure snap-off snap_offline
		fi
	done
	report snap-off snap-krn "snapshot, $nr files"
	rm -f "$BASE"
done

BASE=$BENCH_DIR/empty.img
echo "bench: $NR_SUBVOLS subvolumes..." >&2
make_base "$BASE" true
rm -f "$BENCH_DIR"/cr-*
for i in $(seq 1 "$RUNS"); do
	if [ $((i % 2)) -eq 1 ]; then
		measure cr-one create_offline_one
		measure cr-krn create_kernel
		measure cr-each create_offline_each
		measure cr-krn-sync create_kernel_sync
	else
		measure cr-krn-sync create_kernel_sync
		measure cr-each create_offline_each
		measure cr-krn create_kernel
		measure cr-one create_offline_one
	fi
done
report cr-one cr-krn "$NR_SUBVOLS subvols, one call"
report cr-each cr-krn "$NR_SUBVOLS subvols, $NR_SUBVOLS calls"
report cr-each cr-krn-sync "... vs kernel + sync each"
echo "load after $(cut -d' ' -f1-3 /proc/loadavg)"
echo "bench: results in $out" >&2
