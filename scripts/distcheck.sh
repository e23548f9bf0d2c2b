#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make distcheck: unpack NAME.tar.gz in a scratch directory, then
# ./configure && make && make TARGETS (default: check) there, install into a
# scratch root and uninstall, and make dist again from the unpacked tree.
set -euo pipefail
name=$1
shift
targets=${*:-check}
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# our own copy: another make dist may replace the one in $top meanwhile
cp "$top/$name.tar.gz" "$tmp/"
tar -C "$tmp" -xzf "$tmp/$name.tar.gz"
cd "$tmp/$name"
[ ! -e .git ] || { echo "distcheck: .git in the tarball" >&2; exit 1; }
./configure --enable-fault-injection >/dev/null
make -j2
# shellcheck disable=SC2086
make $targets
make install DESTDIR="$tmp/root" prefix=/usr
[ -x "$tmp/root/usr/sbin/volctl" ]
[ "$("$tmp/root/usr/sbin/volctl" --version)" = "volctl ${name#volctl-}" ]
make uninstall DESTDIR="$tmp/root" prefix=/usr
left=$(find "$tmp/root" -type f | head -5)
[ -z "$left" ] || { echo "distcheck: uninstall left $left" >&2; exit 1; }
make dist >/dev/null
tar -tzf "$name.tar.gz" | sort >"$tmp/again"
tar -tzf "$tmp/$name.tar.gz" | sort >"$tmp/first"
if ! cmp -s "$tmp/first" "$tmp/again"; then
	diff "$tmp/first" "$tmp/again" >&2
	echo "distcheck: the tarball's dist differs" >&2
	exit 1
fi
echo "    [DISTCHECK] $name.tar.gz: configure, make, make $targets, install, uninstall, dist: ok"
