#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Run one bats suite directory with TAP output and close with a summary line:
#   <suite>: N passed, N failed, N skipped
# Exit non-zero if any test failed (or bats itself failed).
set -u
suite=$1; shift
dir=$1; shift
shopt -s nullglob
files=("$dir"/*.bats)
if [ ${#files[@]} -eq 0 ]; then
	echo "$suite: 0 passed, 0 failed, 0 skipped"
	exit 0
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
bats --tap --timing "$@" "${files[@]}" | tee "$log"
rc=${PIPESTATUS[0]}
skipped=$(grep -cE '^ok [0-9]+ .*# skip' "$log")
passed=$(grep -cE '^ok [0-9]+' "$log")
failed=$(grep -cE '^not ok [0-9]+' "$log")
passed=$((passed - skipped))
echo "$suite: $passed passed, $failed failed, $skipped skipped"
if [ "$failed" -gt 0 ] || [ "$rc" -ne 0 ]; then
	exit 1
fi
exit 0
