#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The volctl demo: make an image, then lay out subvolumes and a qgroup
# hierarchy with limits in it OFFLINE (no mount, no kernel, no root), show
# the hierarchy, and check the image; then build an image from a directory
# tree in one mkfs call (owners, subvolumes, a snapshot, a limit, shrunk).  Every step is a real volctl command
# on the image; the output is whatever they print.
#
#   scripts/demo.sh [IMAGE]     (make demo runs it on a temporary image)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
V=${VOLCTL:-$top/volctl}
if [ $# -ge 1 ]; then
	img=$1
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/volctl-demo.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	img=$work/demo.img
fi

run() {
	printf '\n\033[1m$ %s\033[0m\n' "$*"
	"$@"
}

if [ ! -x "$V" ]; then
	echo "demo: $V is missing: run 'make' first" >&2
	exit 1
fi

echo "volctl demo on $img (offline: nothing is mounted, no root needed)"
rm -f "$img"
if "$V" mkfs --help >/dev/null 2>&1; then
	run "$V" mkfs -s 512M -L demo "$img"
else
	command -v mkfs.btrfs >/dev/null || {
		echo "demo: needs mkfs.btrfs (Debian package btrfs-progs)" >&2
		exit 1
	}
	truncate -s 512M "$img"
	run mkfs.btrfs -q -L demo "$img"
fi

vi() { run "$V" --image "$img" "$@"; }
vi subvolume create /@ /@home /@srv
vi subvolume set-default /@
vi quota enable /
vi qgroup create 1/100 /
vi qgroup assign 0/257 1/100 /
vi qgroup assign 0/258 1/100 /
vi qgroup limit 200M 1/100 /
vi qgroup limit 50M /@home /
vi subvolume list /
vi subvolume get-default /
vi qgroup show --tree /
vi --format json subvolume get-default /
vi quota status /
run "$V" check --qgroup-report "$img"
run "$V" inspect super "$img" >"${img}.super.txt" && head -n 25 "${img}.super.txt"
if command -v btrfs >/dev/null; then
	run btrfs check --readonly "$img"
fi

# an image built from a directory tree, rootless: owners, layout, snapshot
tree=${img%.img}-tree
rm -rf "$tree" "${img%.img}-tree.img"
mkdir -p "$tree/@/etc" "$tree/@/home/user" "$tree/@/usr/bin"
printf 'demo\n' >"$tree/@/etc/hostname"
printf 'notes\n' >"$tree/@/home/user/notes.txt"
head -c 200000 /dev/urandom >"$tree/@/usr/bin/tool"
ln -s ../usr/bin/tool "$tree/@/etc/tool-link"
timg=${img%.img}-tree.img
run "$V" mkfs -s 256M -r "$tree" --owner 0:0 --quota --subvol @ --subvol @/home \
	--snapshot @:@/.snapshots/1/snapshot:ro --limit 10M:@/home --default-subvol @ --shrink "$timg"
run "$V" --image "$timg" subvolume list /
run "$V" --image "$timg" qgroup show --raw /
run "$V" check "$timg"
rm -rf "$tree"
echo
echo "demo: done; with root, 'mount -o loop $img /mnt' shows the same layout in the kernel"
