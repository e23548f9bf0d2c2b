#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# soak.sh [run-seed.sh options] FIRST COUNT: run-seed.sh on seeds FIRST ..
# FIRST+COUNT-1, one after the other; a line per seed, the failing seeds'
# output, and "soak-rootdir: N seeds, P passed, F failed (seeds ...)".
# Exit 1 if a seed failed.  `make soak-rootdir SEEDS=N` calls it with
# volctl mkfs --rootdir as the tool.
set -u
case ${1:-} in -h|--help) sed -n '3,7s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { echo "usage: soak.sh [run-seed.sh options] FIRST COUNT" >&2; exit 2; }
args=("${@:1:$#-2}")
first=${*: -2:1} count=${*: -1}
pass=0 failed=()
for ((s = first; s < first + count; s++)); do
	if out=$("$HERE/run-seed.sh" "${args[@]}" "$s" 2>&1); then
		pass=$((pass + 1))
		echo "seed $s: ok"
	else
		failed+=("$s")
		echo "$out"
	fi
done
echo "soak-rootdir: $count seeds, $pass passed, ${#failed[@]} failed${failed:+ (seeds ${failed[*]})}"
[ ${#failed[@]} -eq 0 ]
