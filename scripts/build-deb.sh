#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build the Debian package from a release tarball (make dist) in a scratch
# directory, run lintian on it (no errors allowed), unpack the .deb into a
# scratch root with dpkg -x and check that every file lands where Debian
# expects it.  Needs dpkg-dev, debhelper and lintian (.ci/run installs them).
#
#   scripts/build-deb.sh [OUTDIR]    the .deb is copied to OUTDIR if given
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-}
version=$(sed -n 's/^AC_INIT(\[volctl\], \[\([^]]*\)\].*/\1/p' "$top/configure.ac")
name=volctl-$version
tmp=$(mktemp -d)
# BUILD_DEB_KEEP=1 keeps the scratch directory (build log, package) for a look
trap '[ -n "${BUILD_DEB_KEEP:-}" ] && echo "kept $tmp" >&2 || rm -rf "$tmp"' EXIT
fail() { echo "build-deb: $*" >&2; exit 1; }

"$top/scripts/make-dist.sh" "$name" >/dev/null
mv "$top/$name.tar.gz" "$tmp/"
tar -C "$tmp" -xzf "$tmp/$name.tar.gz"
( cd "$tmp/$name" && dpkg-buildpackage -us -uc -b ) >"$tmp/build.log" 2>&1 ||
	{ tail -40 "$tmp/build.log"; fail "dpkg-buildpackage failed"; }
deb=$(ls "$tmp"/volctl_"$version"_*.deb)
changes=$(ls "$tmp"/volctl_"$version"_*.changes)
echo "    [DEB]    $(basename "$deb")"

# lintian: errors fail the build, warnings are shown
lintian --fail-on error --tag-display-limit 0 "$changes" >"$tmp/lintian.log" 2>&1 ||
	{ cat "$tmp/lintian.log"; fail "lintian reports errors"; }
if grep -q '^E:' "$tmp/lintian.log"; then
	cat "$tmp/lintian.log"
	fail "lintian reports errors"
fi
sed 's/^/    [LINTIAN] /' "$tmp/lintian.log"

# the files, in a scratch root
root=$tmp/root
dpkg -x "$deb" "$root"
[ -x "$root/usr/sbin/volctl" ] || fail "no /usr/sbin/volctl"
file_type=$(od -An -c -N4 "$root/usr/sbin/volctl" | tr -d ' ')
[ "$file_type" = "177ELF" ] || fail "/usr/sbin/volctl is not an ELF binary"
[ "$("$root/usr/sbin/volctl" --version)" = "volctl $version" ] || fail "--version"
for g in subvolume quota qgroup; do
	[ "$(readlink "$root/usr/sbin/volctl-$g")" = volctl ] || fail "link /usr/sbin/volctl-$g"
	[ "$(readlink "$root/usr/share/bash-completion/completions/volctl-$g")" = volctl ] ||
		fail "completion link volctl-$g"
done
[[ "$("$root/usr/sbin/volctl-qgroup" help)" == *"usage: volctl qgroup"* ]] || fail "volctl-qgroup help"
[ -f "$root/usr/share/bash-completion/completions/volctl" ] || fail "no bash completion"
n=0
for page in "$top"/Documentation/*.8; do
	p=$(basename "$page")
	gz=$root/usr/share/man/man8/$p.gz
	[ -f "$gz" ] || fail "no man page $p.gz"
	zcat "$gz" | cmp -s - "$page" || fail "man page $p differs from the source"
	grep -q "^\.TH .*\"volctl $version\"" <(zcat "$gz") || fail "man page $p: .TH without $version"
	n=$((n + 1))
done
[ "$n" -ge 7 ] || fail "only $n man pages"
cmp -s "$root/usr/share/volctl/volctl.schema.json" "$top/Documentation/volctl.schema.json" ||
	fail "schema not at /usr/share/volctl/volctl.schema.json"
# dh_compress gzips documentation over 4 KiB
[ -f "$root/usr/share/doc/volctl/json-schema.md" ] || [ -f "$root/usr/share/doc/volctl/json-schema.md.gz" ] ||
	fail "no json-schema.md in the doc dir"
[ -f "$root/usr/share/doc/volctl/copyright" ] || fail "no copyright"
[ -f "$root/usr/share/doc/volctl/changelog.gz" ] || fail "no changelog.gz"
# nothing outside /usr, no stray build files
stray=$(cd "$root" && find . -mindepth 1 -maxdepth 1 ! -name usr)
[ -z "$stray" ] || fail "files outside /usr: $stray"
# built with dpkg-buildflags: fortified calls, full RELRO, PIE
# (whole outputs first: with pipefail, grep -q would make readelf die of SIGPIPE)
dyn=$(readelf -d "$root/usr/sbin/volctl")
hdr=$(readelf -h "$root/usr/sbin/volctl")
syms=$(readelf --dyn-syms -W "$root/usr/sbin/volctl")
grep -q BIND_NOW <<<"$dyn" || fail "not linked with -z now"
grep -q 'DYN (' <<<"$hdr" || fail "not PIE"
grep -q '__[a-z]*_chk' <<<"$syms" || fail "no fortified calls"
echo "    [DEB]    files, links, man pages, completion and schema in place"
[ -z "$out" ] || cp "$deb" "$out/"
