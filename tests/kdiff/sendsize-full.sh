#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# sendsize-full.sh VOLCTL WORKDIR SEED [MOUNTOPT] [pairgen]: a kernel-made
# tree, sent in full by the kernel and sized by volctl.  The tree is
# tests/rootdir/gentree.py SEED written into a subvolume (mounted with
# MOUNTOPT, e.g. compress=zstd, "" for none) and snapshotted read-only as
# /snap; with "pairgen", tests/kdiff/pairgen.py SEED's pair /sv.old and
# /sv.new.  Each snapshot is sent with protocol 1 and with --proto 2
# --compressed-data (| wc -c), then `volctl --image subvolume send-size` runs
# on the unmounted image.  One line per snapshot:
#   sendsize-full: seed S OPT SNAP v1 KERNEL VOLCTL v2c KERNEL VOLCTL ok|DIFFER
#   sendsize-full: seed S OPT SNAP v1 KERNEL - v2c KERNEL - REFUSED: message
# Exit 0 all equal (clones included: the reflinks, dedupes and split extents
# of /sv.new must be exact too), 1 a difference, 3 a refusal, 2 setup failed.
# Needs root.
set -u
VOLCTL=$1 W=$2 SEED=$3 OPT=${4:-} GEN=${5:-gentree}
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
if [ "$GEN" = pairgen ]; then
	SNAPS="sv.old sv.new"
	python3 "$HERE/pairgen.py" "$SEED" "$MNT" sv --log "$W/ops.log" >/dev/null 2>"$W/gen.err"
else
	SNAPS=snap
	btrfs -q subvolume create "$MNT/sv" >/dev/null &&
	python3 "$HERE/../rootdir/gentree.py" "$SEED" "$MNT/sv/t" >/dev/null 2>"$W/gen.err" &&
	sync -f "$MNT/sv" &&
	btrfs -q subvolume snapshot -r "$MNT/sv" "$MNT/snap" >/dev/null
fi || { cat "$W/gen.err" >&2; exit 2; }
declare -A k1 k2
for s in $SNAPS; do
	k1[$s]=$(btrfs send -q "$MNT/$s" | wc -c)
	k2[$s]=$(btrfs send -q --proto 2 --compressed-data "$MNT/$s" | wc -c)
done
umount "$MNT"
rc=0
for s in $SNAPS; do
	head="sendsize-full: seed $SEED ${OPT:-plain} $s"
	sendsize_case "$head" "${k1[$s]}" "${k2[$s]}" "/$s"
	case $? in
	1) rc=1 ;;
	3) [ $rc -eq 0 ] && rc=3 ;;
	esac
done
exit $rc
