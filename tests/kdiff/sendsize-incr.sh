#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# sendsize-incr.sh VOLCTL WORKDIR SEED [MOUNTOPT]: an incremental send made
# by the kernel and sized by volctl.  tests/kdiff/pairgen.py SEED makes the
# read-only pair /sv.old and /sv.new (mounted with MOUNTOPT, e.g.
# compress=zstd; "" for none); `btrfs send -p sv.old sv.new` (protocol 1,
# and --proto 2 --compressed-data) | wc -c against `volctl --image
# subvolume send-size -p /sv.old /sv.new` on the unmounted image; then the
# same with the pair swapped (sv.old sent with sv.new as its parent: the
# parent need not be an ancestor) and with -c sv.old instead of -p.
# One line per case:
#   sendsize-incr: seed S OPT CASE v1 KERNEL VOLCTL v2c KERNEL VOLCTL ok|DIFFER
#   sendsize-incr: seed S OPT CASE v1 KERNEL - v2c KERNEL - REFUSED: message
# Exit 0 all equal, 1 a difference, 3 a refusal, 2 setup failed.  Needs root.
set -u
VOLCTL=$1 W=$2 SEED=$3 OPT=${4:-}
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/kdiff/sendsize-common.sh
. "$HERE/sendsize-common.sh"
mkdir -p "$W"
IMG="$W/img" MNT="$W/mnt"
rm -f "$IMG"
truncate -s 1G "$IMG"
mkfs.btrfs -q -f "$IMG" >/dev/null
mkdir -p "$MNT"
mount -o loop${OPT:+,$OPT} "$IMG" "$MNT" || exit 2
trap 'mountpoint -q "$MNT" && umount "$MNT"' EXIT
python3 "$HERE/pairgen.py" "$SEED" "$MNT" sv --log "$W/ops.log" >/dev/null 2>"$W/gen.err" ||
	{ cat "$W/gen.err" >&2; exit 2; }
# CASE: name, kernel arguments, volctl arguments
CASES=("inc|-p $MNT/sv.old $MNT/sv.new|-p /sv.old /sv.new"
       "swapped|-p $MNT/sv.new $MNT/sv.old|-p /sv.new /sv.old"
       "clone|-c $MNT/sv.old $MNT/sv.new|-c /sv.old /sv.new")
declare -A k1 k2
for c in "${CASES[@]}"; do
	IFS='|' read -r name kargs vargs <<<"$c"
	# shellcheck disable=SC2086
	k1[$name]=$(btrfs send -q $kargs | wc -c)
	# shellcheck disable=SC2086
	k2[$name]=$(btrfs send -q --proto 2 --compressed-data $kargs | wc -c)
done
umount "$MNT"
rc=0
for c in "${CASES[@]}"; do
	IFS='|' read -r name kargs vargs <<<"$c"
	head="sendsize-incr: seed $SEED ${OPT:-plain} $name"
	# shellcheck disable=SC2086
	sendsize_case "$head" "${k1[$name]}" "${k2[$name]}" $vargs
	case $? in
	1) rc=1 ;;
	3) [ $rc -eq 0 ] && rc=3 ;;
	esac
done
exit $rc
