#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# run-pair.sh SEED [options]: one seed of the subvolume diff / send-size
# oracle.  As root, on its own loop device and temp dir:
#   mkfs      an image file, mkfs.btrfs (node size from the seed), losetup,
#             mount (no option, compress=zstd, compress-force=zstd or
#             compress=lzo, from the seed)
#   pairgen   pairgen.py SEED: subvolume pair, snapshots pair.old, pair.new
#   walkdiff  walkdiff.py (walk.txt) and -H (walk-H.txt)
#   expect    every marker line pairgen wrote is in walk.txt (a rename is R,
#             a same-bytes rewrite `M (times)`, a dedupe no line, ...)
#   senddump  senddump.py: send --no-data | receive --dump, false
#             modifications and misses against the walk (senddump.txt)
#   sendsize  sendsize.sh: btrfs send | wc -c, full and incremental, v1
#             and v2 --compressed-data (sendsize.txt)
#   tool      every --diff CMD, its output compared with walk.txt (or with
#             walk-H.txt when CMD has -H): 0 false positives, 0 misses,
#             the same order.  CMD gets {OLD} {NEW} {IMG}: a CMD without
#             {IMG} runs while mounted with the snapshots' paths; a CMD with
#             {IMG} runs after the unmount, {OLD} {NEW} then being the
#             paths in the image (/pair.old, /pair.new).
# Without --diff the hooks are `$VOLCTL subvolume diff {OLD} {NEW}` and its -H
# online (tool1, tool2: while mounted, the live filesystem), then
# `$VOLCTL subvolume diff --image {IMG} {OLD} {NEW}` and its -H (tool3, tool4:
# the same image, unmounted).
# Prints a summary line; exit 0 when everything passed, 1 when a stage
# failed ("FAILED at STAGE"), 2 on bad usage.
#
# Options:
#   --diff 'CMD'      a tool to hold to the walk (repeatable)
#   --volctl PATH     volctl for the default hooks (default $VOLCTL, else
#                     ./volctl of the tree)
#   --keep            keep the temp dir (image, ops.log, every output)
#   --workdir DIR     where the temp dirs go (default /tmp/i22-oracle)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
SEED='' KEEP='' BASE=/tmp/i22-oracle
TOOLS=()
VOLCTL=${VOLCTL:-$HERE/../../volctl}
usage() { sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
	case $1 in
	--diff) TOOLS+=("$2"); shift ;;
	--volctl) VOLCTL=$2; shift ;;
	--keep) KEEP=1 ;;
	--workdir) BASE=$2; shift ;;
	-h|--help) usage 0 ;;
	-*) echo "run-pair: unknown option $1" >&2; exit 2 ;;
	*) [ -z "$SEED" ] || { echo "run-pair: one seed" >&2; exit 2; }; SEED=$1 ;;
	esac
	shift
done
[ -n "$SEED" ] || { echo "run-pair: SEED is needed" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "run-pair: needs root" >&2; exit 2; }

mkdir -p "$BASE"
W=$(mktemp -d "$BASE/seed$SEED.XXXXXX")
IMG=$W/img MNT=$W/mnt LOOP='' FAILED=''
mkdir "$MNT"
cleanup() {
	if mountpoint -q "$MNT"; then umount "$MNT" || umount -l "$MNT"; fi
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	if [ -z "$KEEP" ] && [ -z "$FAILED" ]; then rm -rf "$W"; else echo "run-pair: kept $W"; fi
}
trap cleanup EXIT
fail() { FAILED=$1; echo "run-pair: seed $SEED: FAILED at $1${2:+: $2}"; exit 1; }

opts=(none compress=zstd compress-force=zstd compress=lzo)
MOPT=${opts[$((SEED % 4))]}
nodes=(16384 4096 16384 65536 16384)
NODE=${nodes[$((SEED % 5))]}
truncate -s 1G "$IMG"
mkfs.btrfs -q -f -n "$NODE" "$IMG" >"$W/mkfs.log" 2>&1 || fail mkfs "$(tail -1 "$W/mkfs.log")"
LOOP=$(losetup -f --show "$IMG") || fail mkfs "losetup"
if [ "$MOPT" = none ]; then mount "$LOOP" "$MNT"; else mount -o "$MOPT" "$LOOP" "$MNT"; fi || fail mkfs mount
echo "run-pair: seed $SEED: node size $NODE, mount $MOPT, $W"

python3 "$HERE/pairgen.py" "$SEED" "$MNT" pair --log "$W/ops.log" --expect "$W/expect.txt" \
	2>"$W/pairgen.err" || fail pairgen "$(tail -1 "$W/pairgen.err")"
NOPS=$(grep -c . "$W/ops.log")
OLD=$MNT/pair.old NEW=$MNT/pair.new

python3 "$HERE/walkdiff.py" "$OLD" "$NEW" >"$W/walk.txt" 2>"$W/walk.err" || fail walkdiff "$(tail -1 "$W/walk.err")"
python3 "$HERE/walkdiff.py" -H "$OLD" "$NEW" >"$W/walk-H.txt" 2>>"$W/walk.err" || fail walkdiff
NWALK=$(grep -c . "$W/walk.txt")

# the markers: "=LINE" must be a line, "!PATH" must be named by no line
nexp=0 bad=0
while IFS= read -r e; do
	case $e in
	=*) nexp=$((nexp + 1)); grep -qxF -- "${e#=}" "$W/walk.txt" || { echo "expect: missing: ${e#=}"; bad=$((bad + 1)); } ;;
	!*) nexp=$((nexp + 1)); p=${e#!}
	    if awk -F'\t' -v p="$p" '$2 == p || $2 ~ ("^" p " -> ") || $2 ~ (" -> " p "$")' "$W/walk.txt" | grep -q .; then
		    echo "expect: named but unchanged: $p"; bad=$((bad + 1)); fi ;;
	esac
done <"$W/expect.txt"
REUSED=$(sed -n 's/^#reused //p' "$W/expect.txt")
[ $bad -eq 0 ] || fail expect "$bad of $nexp marker lines"

python3 "$HERE/senddump.py" --log "$W/ops.log" "$OLD" "$NEW" >"$W/senddump.txt" 2>"$W/senddump.err" ||
	fail senddump "$(tail -1 "$W/senddump.err")"
[ -s "$W/senddump.err" ] && sed 's/^/run-pair: /' "$W/senddump.err"     # a send tried again
SD=$(sed -n 's/^senddump: //p' "$W/senddump.txt")
"$HERE/sendsize.sh" "$OLD" "$NEW" >"$W/sendsize.txt" 2>&1 || fail sendsize "$(grep -E 'DIFFER|failed' "$W/sendsize.txt" | head -1)"
SS=$(awk '/^sendsize: [0-9.]+ / && !seen[$3 $4]++ {printf "%s%s %s %s", sep, $3, $4, $5; sep=", "}' "$W/sendsize.txt")

# compare CMD's output ($1: a file) with the walk ($2)
compare() {
	local fp miss
	fp=$(comm -23 <(LC_ALL=C sort "$1") <(LC_ALL=C sort "$2") | wc -l)
	miss=$(comm -13 <(LC_ALL=C sort "$1") <(LC_ALL=C sort "$2") | wc -l)
	if [ "$fp" -ne 0 ] || [ "$miss" -ne 0 ]; then
		echo "$fp false positives, $miss misses"; return 1
	fi
	cmp -s "$1" "$2" || { echo "same lines, other order"; return 1; }
	echo "0 false positives, 0 misses"
}

if [ ${#TOOLS[@]} -eq 0 ]; then
	# volctl subvolume diff online (plain and -H), then on the image
	TOOLS=("$VOLCTL subvolume diff {OLD} {NEW}"
	       "$VOLCTL subvolume diff -H {OLD} {NEW}"
	       "$VOLCTL subvolume diff --image {IMG} {OLD} {NEW}"
	       "$VOLCTL subvolume diff -H --image {IMG} {OLD} {NEW}")
fi
TRES='' n=0
run_tool() {   # CMD OLD NEW
	local cmd=$1 ref=$W/walk.txt out res
	n=$((n + 1))
	out=$W/tool$n.txt
	cmd=${cmd//\{OLD\}/$2}
	cmd=${cmd//\{NEW\}/$3}
	cmd=${cmd//\{IMG\}/$IMG}
	[[ " $cmd " == *" -H "* ]] && ref=$W/walk-H.txt
	echo "run-pair: tool $n: $cmd"
	if ! bash -c "$cmd" >"$out" 2>"$out.err"; then
		TRES+=" tool$n: exit non-zero ($(tail -1 "$out.err"));"; return 1
	fi
	res=$(compare "$out" "$ref") || { TRES+=" tool$n: $res;"; return 1; }
	TRES+=" tool$n: $res;"
}
tfail=0
for t in "${TOOLS[@]}"; do
	[[ $t == *"{IMG}"* ]] && continue
	run_tool "$t" "$OLD" "$NEW" || tfail=1
done
umount "$MNT" || fail umount
for t in "${TOOLS[@]}"; do
	[[ $t == *"{IMG}"* ]] || continue
	run_tool "$t" /pair.old /pair.new || tfail=1
done

echo "run-pair: seed $SEED: $NOPS ops logged, inode reused: $REUSED, walk $NWALK lines, markers $nexp/$nexp;" \
	"send --no-data: $SD; send bytes: $SS;${TRES:- tool: none}"
[ $tfail -eq 0 ] || fail tool "$TRES"
echo "run-pair: seed $SEED: ok"
