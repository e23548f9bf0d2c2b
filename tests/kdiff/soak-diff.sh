#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# soak-diff.sh [run-pair.sh options] FIRST COUNT: run-pair.sh on seeds
# FIRST .. FIRST+COUNT-1, one at a time; prints each seed's summary, then
# the totals (seeds, failures, the stream's false modifications by class).
# Exit 1 when a seed failed (its work dir is kept and named).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ARGS=()
while [ $# -gt 2 ]; do ARGS+=("$1"); shift; done
[ $# -eq 2 ] || { sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; exit 2; }
FIRST=$1 COUNT=$2
BASE=/tmp/i22-oracle
for ((i = 0; i < ${#ARGS[@]}; i++)); do [ "${ARGS[$i]}" = --workdir ] && BASE=${ARGS[$((i + 1))]}; done
mkdir -p "$BASE"
CLASSES=$(mktemp "$BASE/classes.XXXXXX")
trap 'rm -f "$CLASSES"' EXIT
failed=0 falsem=0
for ((s = FIRST; s < FIRST + COUNT; s++)); do
	out=$("$HERE/run-pair.sh" "${ARGS[@]}" --keep "$s" 2>&1)
	rc=$?
	echo "$out" | grep -E "^run-pair: seed $s: [0-9]|FAILED"
	[ $rc -eq 0 ] || echo "$out" | grep "kept"
	dir=$(echo "$out" | sed -n 's/^run-pair: kept //p')
	if [ $rc -ne 0 ]; then
		failed=$((failed + 1))
		continue
	fi
	if [ -n "$dir" ]; then
		sed -n "s/^class \([0-9]*\) \(.*\)  (.*/\1\t\2/p" "$dir/senddump.txt" | sed "s/\$/\tseed $s/" >>"$CLASSES"
		n=$(sed -n 's/.* \([0-9][0-9]*\) false modifications.*/\1/p' "$dir/senddump.txt")
		falsem=$((falsem + n))
		rm -rf "$dir"
	fi
done
echo "soak-diff: $COUNT seeds, $((COUNT - failed)) passed, $failed failed; send --no-data false modifications: $falsem"
awk -F'\t' '{n[$2] += $1; s[$2]++; if (!($2 in f)) f[$2] = $3}
	END {for (c in n) printf "soak-diff: class %d in %d seeds (first %s): %s\n", n[c], s[c], f[c], c}' "$CLASSES" | sort -t: -k2
[ $failed -eq 0 ]
