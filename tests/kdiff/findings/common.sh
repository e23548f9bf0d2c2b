# SPDX-License-Identifier: GPL-2.0-only
# Shared set-up of the kernel findings' reproducers: a fresh 1 GiB image with
# quotas on, loop-mounted at $M; unmounted and removed on exit.
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "needs root (loop mounts)" >&2; exit 2; }
W=$(mktemp -d)
IMG=$W/fs.img
M=$W/mnt
cleanup() {
	mountpoint -q "$M" 2>/dev/null && umount "$M"
	rm -rf "$W"
}
trap cleanup EXIT
truncate -s 1G "$IMG"
mkfs.btrfs -q -f "$IMG" >/dev/null 2>&1
mkdir "$M"
mount -o loop "$IMG" "$M"
btrfs quota enable "$M"
