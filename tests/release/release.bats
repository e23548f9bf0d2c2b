#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# What a distribution checks before shipping: one version everywhere, the
# license text, NEWS, and a README quick start that works for root (no sudo
# on a bare Debian 12) and for a user with sudo.

load ../helpers

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

version() {
	sed -n 's/^AC_INIT(\[volctl\], \[\([^]]*\)\].*/\1/p' "$TOP/configure.ac"
}

@test "one version: configure.ac, volctl --version, every man page's .TH, NEWS, debian/changelog" {
	local v p
	v=$(version)
	[ -n "$v" ]
	run_volctl --version
	[ "$output" = "volctl $v" ] || { echo "--version: $output, configure.ac: $v"; return 1; }
	for p in "$TOP"/Documentation/*.8; do
		grep -q "^\.TH .* \"volctl $v\" " "$p" || { echo "$(basename "$p"): .TH is not volctl $v"; return 1; }
	done
	# the first released heading; an "(unreleased)" one for the next version may stand above it
	[ "$(grep '^volctl [0-9]' "$TOP/NEWS" | grep -v -m1 ' (unreleased)$')" = "volctl $v" ] ||
		{ echo "NEWS does not start with volctl $v"; return 1; }
	[ "$(head -n1 "$TOP/debian/changelog" | sed 's/.*(\(.*\)).*/\1/')" = "$v" ] ||
		{ echo "debian/changelog is not at $v"; return 1; }
}

@test "COPYING holds the GPL version 2 text" {
	grep -q "GNU GENERAL PUBLIC LICENSE" "$TOP/COPYING"
	grep -q "Version 2, June 1991" "$TOP/COPYING"
	grep -q "How to Apply These Terms to Your New Programs" "$TOP/COPYING"
	if [ -f /usr/share/common-licenses/GPL-2 ]; then
		cmp "$TOP/COPYING" /usr/share/common-licenses/GPL-2
	fi
}

@test "README quick start: one line for root and for a user with sudo" {
	local line
	line=$(awk '/^## Quick start/ { on = 1 } on && /^    / { sub(/^    /, ""); print; exit }' "$TOP/README.md")
	[ "$line" = "scripts/install-deps.sh && ./autogen.sh && ./configure && make demo" ] ||
		{ echo "first quick start line: $line"; return 1; }
	# no command of the quick start needs sudo to be installed
	run bash -c "awk '/^## Quick start/ { on = 1 } /^## Commands/ { on = 0 } on && /^    sudo /' \"\$1\" |
		grep -v '^    sudo \\.ci/run\$'" _ "$TOP/README.md"
	[ -z "$output" ] || { echo "quick start lines with sudo: $output"; return 1; }
	run "$TOP/scripts/install-deps.sh" --print
	assert_status 0
	if [ "$(id -u)" -eq 0 ]; then
		[[ "$output" == "apt-get install -y "* ]] || { echo "as root: $output"; return 1; }
		command -v setpriv >/dev/null || skip "needs setpriv to try as a user"
		run setpriv --reuid=nobody --regid=nogroup --clear-groups "$TOP/scripts/install-deps.sh" --print
		assert_status 0
		[[ "$output" == *"sudo apt-get install -y "* ]] || { echo "as a user: $output"; return 1; }
	else
		[[ "$output" == *"sudo apt-get install -y "* ]] || { echo "as a user: $output"; return 1; }
	fi
}

@test "README quick start runs in an unpacked release tarball" {
	[ -f "$TOP/Makefile.inc" ] || skip "the tree is not configured (no Makefile.inc): run ./configure"
	local v d line
	v=$(version)
	d=$BATS_TEST_TMPDIR
	command -v git >/dev/null && git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1 ||
		skip "needs a git checkout to make the tarball"
	# every package present: the line must not need anything else (it runs apt-get otherwise)
	"$TOP/scripts/install-deps.sh" --print >/dev/null
	if [ "$(id -u)" -ne 0 ] && ! command -v sudo >/dev/null; then
		skip "needs root or sudo for scripts/install-deps.sh"
	fi
	"$TOP/scripts/make-dist.sh" "volctl-$v" >/dev/null
	[ -f "$TOP/volctl-$v.tar.gz" ]
	mv "$TOP/volctl-$v.tar.gz" "$d/"
	tar -C "$d" -xzf "$d/volctl-$v.tar.gz"
	line=$(awk '/^## Quick start/ { on = 1 } on && /^    / { sub(/^    /, ""); print; exit }' "$TOP/README.md")
	run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL bash -c "cd '$d/volctl-$v' && $line"
	assert_status 0
	[ -x "$d/volctl-$v/volctl" ]
}
