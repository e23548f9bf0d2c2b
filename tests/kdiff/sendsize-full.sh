#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# sendsize-full.sh VOLCTL WORKDIR SEED [MOUNTOPT]: a tree of
# tests/rootdir/gentree.py SEED written through the kernel into a subvolume
# (mounted with MOUNTOPT, e.g. compress=zstd), its read-only snapshot sent
# in full with protocol 1 and with --proto 2 --compressed-data (| wc -c),
# then `volctl --image subvolume send-size` on the unmounted image.  Prints
#   sendsize-full: seed S OPT v1 KERNEL VOLCTL v2c KERNEL VOLCTL ok|DIFFER|REFUSED
# Exit 0 equal, 1 differ, 3 volctl refused (its message on stderr).  Needs root.
set -u
VOLCTL=$1 W=$2 SEED=$3 OPT=${4:-}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$W"
IMG="$W/img" MNT="$W/mnt"
rm -f "$IMG"
truncate -s 1G "$IMG"
mkfs.btrfs -q -f "$IMG" >/dev/null
mkdir -p "$MNT"
mount -o loop${OPT:+,$OPT} "$IMG" "$MNT" || exit 2
trap 'mountpoint -q "$MNT" && umount "$MNT"' EXIT
btrfs -q subvolume create "$MNT/sv" >/dev/null
python3 "$HERE/../rootdir/gentree.py" "$SEED" "$MNT/sv/t" >/dev/null 2>"$W/gentree.err" || {
	umount "$MNT"; cat "$W/gentree.err" >&2; exit 2; }
sync -f "$MNT/sv"
btrfs -q subvolume snapshot -r "$MNT/sv" "$MNT/snap" >/dev/null
k1=$(btrfs send -q "$MNT/snap" | wc -c)
k2=$(btrfs send -q --proto 2 --compressed-data "$MNT/snap" | wc -c)
umount "$MNT"
out=$("$VOLCTL" --image "$IMG" --format json subvolume send-size /snap 2>"$W/volctl.err")
if [ $? -ne 0 ]; then
	echo "sendsize-full: seed $SEED ${OPT:-plain} v1 $k1 - v2c $k2 - REFUSED: $(cat "$W/volctl.err")"
	exit 3
fi
v1=$(echo "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin)["subvolume_send_size"]; print(d["v1"]["total"], d["v2c"]["total"])')
set -- $v1
r=ok; rc=0
if [ "$1" != "$k1" ] || [ "$2" != "$k2" ]; then r=DIFFER; rc=1; fi
echo "sendsize-full: seed $SEED ${OPT:-plain} v1 $k1 $1 v2c $k2 $2 $r"
exit $rc
