#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Install the Debian 12 packages volctl needs, with apt-get: as root
# directly (a bare Debian 12 has no sudo), otherwise through sudo.
#
#   scripts/install-deps.sh          what building and the demo need
#   scripts/install-deps.sh --ci     also every test and packaging tool
#                                    (.ci/run uses this)
#   --print                          print the command instead of running it
set -euo pipefail

build=(build-essential autoconf pkg-config libmount-dev libblkid-dev uuid-dev libsmartcols-dev
       libxxhash-dev libsodium-dev zlib1g-dev liblzo2-dev libzstd-dev
       linux-libc-dev btrfs-progs zstd)
ci=(bats jq util-linux xz-utils groff-base man-db python3 python3-jsonschema debhelper dpkg-dev lintian)

pkgs=("${build[@]}")
print=0
for a in "$@"; do
	case $a in
	--ci) pkgs+=("${ci[@]}") ;;
	--print) print=1 ;;
	*) echo "usage: $0 [--ci] [--print]" >&2; exit 2 ;;
	esac
done

# only what is missing (dpkg-query needs no privilege)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ] && [ "$print" -eq 0 ]; then
	exit 0
fi
[ ${#missing[@]} -gt 0 ] || missing=("${pkgs[@]}")

if [ "$(id -u)" -eq 0 ]; then
	as=()
elif command -v sudo >/dev/null; then
	as=(sudo)
else
	echo "install-deps: run as root, or install sudo: apt-get needs root" >&2
	[ "$print" -eq 1 ] || exit 1
	as=(sudo)
fi
if [ "$print" -eq 1 ]; then
	echo "${as[*]}${as[*]:+ }apt-get install -y ${missing[*]}"
	exit 0
fi
echo "installing: ${missing[*]}"
"${as[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${as[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
