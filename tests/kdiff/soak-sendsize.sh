#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# soak-sendsize.sh VOLCTL WORKDIR FIRST COUNT: sendsize-incr.sh on seeds
# FIRST .. FIRST+COUNT-1, the mount options taking turns (none,
# compress=zstd, compress-force=zstd, compress=lzo); prints each case's
# line, then the totals: cases, exact, the error distribution (bytes and
# per mille of the kernel's stream, v1 and v2c), refusals.  A seed that
# differs keeps its image under WORKDIR/seed-S.  Exit 1 when one differed.
set -u
[ $# -eq 4 ] || { sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; exit 2; }
VOLCTL=$1 W=$2 FIRST=$3 COUNT=$4
HERE=$(cd "$(dirname "$0")" && pwd)
OPTS=("" compress=zstd compress-force=zstd compress=lzo)
mkdir -p "$W"
ALL="$W/lines.txt"
: >"$ALL"
for ((s = FIRST; s < FIRST + COUNT; s++)); do
	opt=${OPTS[$((s % ${#OPTS[@]}))]}
	"$HERE/sendsize-incr.sh" "$VOLCTL" "$W/seed-$s" "$s" "$opt" | tee -a "$ALL"
	rc=${PIPESTATUS[0]}
	[ "$rc" -eq 0 ] && rm -rf "$W/seed-$s"
	[ "$rc" -eq 2 ] && echo "soak-sendsize: seed $s: setup failed" | tee -a "$ALL"
done
awk '
/^sendsize-incr:/ {
	n++
	if ($0 ~ / ok$/) ok++
	else if ($0 ~ /REFUSED/) ref++
	else {
		d1 = $8 - $7; d2 = $11 - $10
		printf "soak-sendsize: differs: %s (v1 %+d bytes, %.3f per mille; v2c %+d, %.3f)\n", \
		       $3 " " $4 " " $5, d1, 1000 * d1 / $7, d2, 1000 * d2 / $10
		bad++
		a1 = d1 < 0 ? -d1 : d1; if (1000 * a1 / $7 > m1) m1 = 1000 * a1 / $7
		a2 = d2 < 0 ? -d2 : d2; if (1000 * a2 / $10 > m2) m2 = 1000 * a2 / $10
	}
}
END {
	printf "soak-sendsize: %d cases, %d exact, %d differ (largest error %.3f per mille v1, %.3f v2c), %d refused\n", \
	       n, ok, bad, m1, m2, ref
	exit bad > 0
}' "$ALL"
