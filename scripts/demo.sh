#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The volctl demo: make an image, then lay out subvolumes and a qgroup
# hierarchy with limits in it OFFLINE (no mount, no kernel, no root), show
# the hierarchy, and check the image.  Every step is a real volctl command
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
echo
echo "demo: done; with root, 'mount -o loop $img /mnt' shows the same layout in the kernel"
