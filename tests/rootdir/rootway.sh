#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# rootway.sh DIR IMG: the root way to an image of DIR, as a run-seed.sh
# --tool: mkfs.btrfs IMG (an existing file, default 1G made otherwise),
# loop mount, cp -a DIR/. into the top level, unmount.  The reference that
# shows what treecmp.py calls equal: cp -a cannot set ctime (the kernel sets
# it to now on every change), everything else it copies.
set -eu
case ${1:-} in -h|--help) sed -n '3,7s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
[ $# -eq 2 ] || { echo "usage: rootway.sh DIR IMG" >&2; exit 2; }
DIR=$1 IMG=$2
[ -e "$IMG" ] || truncate -s 1G "$IMG"
mkfs.btrfs -q -f "$IMG" >/dev/null
MNT=$(mktemp -d "${TMPDIR:-/tmp}/rootway.XXXXXX")
DEV=$(losetup -f --show "$IMG")
trap 'mountpoint -q "$MNT" && umount "$MNT"; losetup -d "$DEV"; rmdir "$MNT"' EXIT
mount "$DEV" "$MNT"
cp -a "$DIR/." "$MNT/"
sync -f "$MNT"
