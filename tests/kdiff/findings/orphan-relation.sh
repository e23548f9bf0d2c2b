#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Kernel finding 2 (6.18): a snapshot in two groups (one from snapshot -i, one
# from assign --no-rescan) deleted and dropped while the numbers are
# inconsistent loses its QGROUP_INFO item, but one RELATION pair stays.
# btrfs check then fails to load the qgroups and `btrfs qgroup show` fails
# with "cannot find the qgroup 0/257".  Prints the quota tree items left for
# 0/257.
. "$(dirname "$0")/common.sh"
btrfs qgroup create 1/1 "$M"
btrfs qgroup create 1/2 "$M"
btrfs subvolume create "$M/a" >/dev/null
head -c 300000 /dev/urandom >"$M/a/g"
btrfs filesystem sync "$M"
btrfs subvolume snapshot -r -i 1/2 "$M/a" "$M/s" >/dev/null
btrfs qgroup assign --no-rescan 0/257 1/1 "$M" 2>/dev/null || true
btrfs subvolume delete "$M/s" >/dev/null
btrfs filesystem sync "$M"
btrfs subvolume sync "$M" >/dev/null
btrfs quota rescan -w "$M" >/dev/null
umount "$M"
btrfs inspect-internal dump-tree -t quota "$IMG" | grep -E 'key \(.*0/257'
