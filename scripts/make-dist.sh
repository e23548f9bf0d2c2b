#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make dist: NAME.tar.gz of the source, with ./configure already generated,
# from which "./configure && make && make check" works without autoconf.
# The file list is git's (in a checkout) or the MANIFEST an earlier dist
# wrote (in an unpacked tarball).
set -euo pipefail
name=$1
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	files=$(git ls-files)
elif [ -f MANIFEST ]; then
	files=$(cat MANIFEST)
else
	echo "make-dist: neither a git checkout nor a MANIFEST" >&2
	exit 1
fi
[ -x configure ] || ./autogen.sh >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/$name"
{ printf '%s\n' "$files"; echo configure; [ -f aclocal.m4 ] && echo aclocal.m4; echo MANIFEST; } |
	sort -u >"$tmp/list"
grep -vx MANIFEST "$tmp/list" >"$tmp/$name/MANIFEST"
while IFS= read -r f; do
	[ "$f" = MANIFEST ] && continue
	mkdir -p "$tmp/$name/$(dirname "$f")"
	cp -p "$f" "$tmp/$name/$f"
done <"$tmp/list"
tar -C "$tmp" --owner=0 --group=0 --sort=name -czf "$top/$name.tar.gz" "$name"
echo "    [DIST]   $name.tar.gz"
