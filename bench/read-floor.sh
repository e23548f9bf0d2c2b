#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The floor under a command's tree reads: the 16 KiB (nodesize) reads that
# `volctl --image IMG ARGS...` makes, in its order (strace), replayed
# alone by bench/read-floor.c: pread, a worker thread with a copy out of
# its slots, and in place from a populated read-only mmap (see there).
# What is left of the command's time is its own work.
#
#   bench/read-floor.sh IMG [RUNS] -- ARGS...
#   e.g. bench/read-floor.sh /tmp/bench-diff-work/fs.img 21 -- subvolume diff /A /B
#
# Environment: VOLCTL (default ./volctl), NODESIZE (default 16384), CC.
# The image must be in the page cache for a warm floor (the command's own
# runs put it there).
set -eu
HERE=$(cd "$(dirname "$0")/.." && pwd)
VOLCTL=${VOLCTL:-$HERE/volctl}
NODESIZE=${NODESIZE:-16384}
IMG=$1
RUNS=21
shift
if [ "${1:-}" != -- ]; then RUNS=$1; shift; fi
[ "${1:-}" = -- ] && shift
for t in strace "${CC:-cc}"; do
	command -v "$t" >/dev/null || { echo "read-floor: $t not found" >&2; exit 1; }
done
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
"${CC:-cc}" -O2 -pthread -o "$W/read-floor" "$HERE/bench/read-floor.c"
strace -f -e trace=pread64 -o "$W/trace" "$VOLCTL" --image "$IMG" "$@" >/dev/null
sed -nE "s/.*, $NODESIZE, ([0-9]+)\) += $NODESIZE\$/\1/p" "$W/trace" >"$W/offs"
t=()
for _ in $(seq 1 "$RUNS"); do
	s=$EPOCHREALTIME
	"$VOLCTL" --image "$IMG" "$@" >/dev/null
	e=$EPOCHREALTIME
	t+=("$(awk -v a="$s" -v b="$e" 'BEGIN {printf "%.2f", (b - a) * 1000}')")
done
echo "volctl --image IMG $*: median $(printf '%s\n' "${t[@]}" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}') ms of $RUNS runs"
"$W/read-floor" "$IMG" "$W/offs" "$NODESIZE" "$RUNS"
