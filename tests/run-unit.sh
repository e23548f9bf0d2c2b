#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Run each C unit test binary; each prints "N passed, N failed, N skipped".
# Sum them up; a binary without that line (it crashed) is a failure.
set -u
total_pass=0 total_fail=0 total_skip=0 status=0
for t in "$@"; do
	out=$("$t" 2>&1); rc=$?
	line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' | tail -n1)
	if [ $rc -ne 0 ] || [ -z "$line" ]; then
		printf '%s\n' "$out"
		echo "FAIL: $t (exit $rc)"
		status=1
	fi
	p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/'); f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
	k=$(echo "$line" | sed -E 's/.* ([0-9]+) skipped$/\1/')
	total_pass=$((total_pass + ${p:-0})); total_fail=$((total_fail + ${f:-0}))
	total_skip=$((total_skip + ${k:-0}))
	# the reasons, so a skip is never silent
	printf '%s\n' "$out" | grep '^skip: ' | sed 's/^/    /' || true
	echo "  $(basename "$t"): ${line:-no result line}"
done
echo "unit: $total_pass passed, $total_fail failed, $total_skip skipped"
exit $status
