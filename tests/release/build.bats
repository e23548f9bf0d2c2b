#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The build honours the flags a distribution passes (dpkg-buildflags exports
# CPPFLAGS, CFLAGS and LDFLAGS): each appears exactly once on every compile
# and link line, whether given in the environment or to make.  No root needed.

load ../helpers

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

# count WORD LINE: how often WORD occurs as a word in LINE
count() {
	tr ' ' '\n' <<<"$2" | grep -cxF -- "$1" || true
}

# the compile and link commands make would run for a fresh build into $1
build_lines() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -n -B V=1 -C "$TOP" O="$1" "$1/volctl" "${@:2}" |
		grep -E '^(gcc|cc|clang|\S*-gcc) '
}

@test "CPPFLAGS, CFLAGS and LDFLAGS from the environment appear once on every line" {
	[ -f "$TOP/Makefile.inc" ] || skip "the tree is not configured (no Makefile.inc): run ./configure"
	local lines line n=0
	lines=$(CPPFLAGS="-D_FORTIFY_SOURCE=2 -DVC_TEST_CPP" CFLAGS="-O2 -DVC_TEST_CF" \
		LDFLAGS="-Wl,-z,relro" build_lines "$BATS_TEST_TMPDIR/o")
	[ -n "$lines" ]
	while IFS= read -r line; do
		if [[ "$line" == *" -c "* ]]; then
			[ "$(count -D_FORTIFY_SOURCE=2 "$line")" = 1 ] || { echo "CPPFLAGS: $line"; return 1; }
			[ "$(count -DVC_TEST_CPP "$line")" = 1 ] || { echo "CPPFLAGS: $line"; return 1; }
		else
			[ "$(count -Wl,-z,relro "$line")" = 1 ] || { echo "LDFLAGS: $line"; return 1; }
		fi
		[ "$(count -DVC_TEST_CF "$line")" = 1 ] || { echo "CFLAGS: $line"; return 1; }
		n=$((n + 1))
	done <<<"$lines"
	[ "$n" -gt 10 ]
}

@test "flags given to make on its command line appear once too" {
	[ -f "$TOP/Makefile.inc" ] || skip "the tree is not configured (no Makefile.inc): run ./configure"
	local line
	line=$(build_lines "$BATS_TEST_TMPDIR/o" CPPFLAGS=-DVC_A CFLAGS=-DVC_B LDFLAGS=-DVC_C |
		grep -m1 ' -c ')
	[ "$(count -DVC_A "$line")" = 1 ]
	[ "$(count -DVC_B "$line")" = 1 ]
	[ "$(count -DVC_C "$line")" = 0 ]
}
