#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Kernel finding 1 (6.18): once a subvolume that a snapshot -i put into a
# higher group is dropped while the numbers are inconsistent, a rescan
# "completes (inconsistency flag cleared)" but data written afterwards is
# never accounted: the recorded numbers stay low until the next rescan.
# Prints the recorded numbers of 0/256 before and after a fresh rescan.
. "$(dirname "$0")/common.sh"
btrfs qgroup create 1/4 "$M"
btrfs subvolume create "$M/a" >/dev/null
head -c 300000 /dev/urandom >"$M/a/g"
btrfs filesystem sync "$M"
btrfs subvolume snapshot -i 1/4 "$M/a" "$M/s" >/dev/null   # marks inconsistent
btrfs subvolume delete "$M/s" >/dev/null
btrfs filesystem sync "$M"
btrfs subvolume sync "$M" >/dev/null
btrfs quota rescan -w "$M" >/dev/null
head -c 65536 /dev/urandom >"$M/a/after"
sync -f "$M"
echo "recorded after the write: $(btrfs qgroup show --raw "$M" | awk '$1 == "0/256" {print $2}')"
btrfs quota rescan -w "$M" >/dev/null
echo "after a fresh rescan:     $(btrfs qgroup show --raw "$M" | awk '$1 == "0/256" {print $2}')"
