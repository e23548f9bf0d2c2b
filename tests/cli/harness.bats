#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The test harness itself: unit skips are counted and named, .ci/run reports
# the plain and the ASan run as two runs, check-api refuses a bare "! cmd"
# in a bats file.  No root needed.

load ../helpers

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

# api_tree DIR: what tests/check-api.sh reads, copied into DIR (the layer
# check reads the sources, kernel-shared/README.md and common/README.md)
api_tree() {
	local d=$1
	mkdir -p "$d/tests/cli" "$d/scripts"
	cp "$TOP/tests/check-api.sh" "$d/tests/"
	cp "$TOP/scripts/callgraph.py" "$d/scripts/"
	for dir in kernel-shared cmds; do
		mkdir -p "$d/$dir"
		cp "$TOP/$dir"/*.[ch] "$d/$dir/"
	done
	cp "$TOP/kernel-shared/README.md" "$d/kernel-shared/"
	# common/ with its parts' folders and its README (the table of parts)
	(cd "$TOP" && find common -name '*.[ch]' -o -name README.md) | while IFS= read -r f; do
		mkdir -p "$d/$(dirname "$f")"
		cp "$TOP/$f" "$d/$f"
	done
	cp "$TOP"/*.[ch] "$d/"
}

@test "run-unit.sh: skips are counted and named; a binary without the result line fails" {
	local d=$BATS_TEST_TMPDIR
	printf '#!/bin/sh\necho "skip: needs a thing" >&2\necho "3 passed, 0 failed, 1 skipped"\n' >"$d/t-skip"
	printf '#!/bin/sh\necho "2 passed, 0 failed, 0 skipped"\n' >"$d/t-ok"
	printf '#!/bin/sh\necho "2 passed, 0 failed"\n' >"$d/t-old"
	chmod +x "$d"/t-*
	run "$TOP/tests/run-unit.sh" "$d/t-skip" "$d/t-ok"
	assert_status 0
	assert_output_contains "    skip: needs a thing"
	assert_output_contains "  t-skip: 3 passed, 0 failed, 1 skipped"
	[ "${lines[-1]}" = "unit: 5 passed, 0 failed, 1 skipped" ]
	run "$TOP/tests/run-unit.sh" "$d/t-ok" "$d/t-old"
	assert_status 1
	assert_output_contains "FAIL: $d/t-old"
}

@test ".ci/run: one closing line per run, the ASan run never added to the first" {
	local d=$BATS_TEST_TMPDIR
	# shellcheck disable=SC1090
	source <(sed -n '/^summary() {/,/^}/p' "$TOP/.ci/run")
	printf 'unit: 10 passed, 0 failed, 1 skipped\ncli: 5 passed, 1 failed, 2 skipped\nmounted: 4 passed, 0 failed, 0 skipped\n' >"$d/plain"
	printf 'unit: 10 passed, 0 failed, 1 skipped\ncli: 6 passed, 0 failed, 2 skipped\n' >"$d/asan"
	: >"$d/none"
	run summary "run 1, make check" "$d/plain"
	[ "$output" = "run 1, make check: 19 passed, 1 failed, 3 skipped" ]
	run summary "run 2, make check-asan" "$d/asan"
	[ "$output" = "run 2, make check-asan: 16 passed, 0 failed, 3 skipped" ]
	run summary "run 2, make check-asan" "$d/none"
	[ "$output" = "run 2, make check-asan: did not run" ]
}

@test "check-api refuses a bare '! cmd' line in a bats file, not 'run !'" {
	local d=$BATS_TEST_TMPDIR/tree
	api_tree "$d"
	printf '@test "x" {\n\trun ! false\n\tif ! true; then false; fi\n}\n' >"$d/tests/cli/good.bats"
	run "$d/tests/check-api.sh"
	assert_status 0
	printf '@test "x" {\n\t! grep -q x /dev/null\n\ttrue\n}\n' >"$d/tests/cli/bad.bats"
	run "$d/tests/check-api.sh"
	assert_status 1
	assert_output_contains "tests/cli/bad.bats:2:"
}

@test "check-api refuses a kernel-shared/ header in cmds/ outside its list, naming the file and the header" {
	local d=$BATS_TEST_TMPDIR/tree
	api_tree "$d"
	run "$d/tests/check-api.sh"
	assert_status 0
	# format.h is on the list, walk.h is not
	sed -i 's|^#include "kernel-shared/format.h"|#include "kernel-shared/format.h"\n#include "kernel-shared/walk.h"|' \
		"$d/cmds/check.c"
	run "$d/tests/check-api.sh"
	assert_status 1
	assert_output_contains "cmds/check.c:"
	assert_output_contains ": kernel-shared/walk.h (cmds/ may include only: format.h"
	# a command file that includes another one's source
	sed -i 's|^#include "kernel-shared/walk.h"|#include "cmds/subvolume.c"|' "$d/cmds/check.c"
	run "$d/tests/check-api.sh"
	assert_status 1
	assert_output_contains 'cmds/check.c:'
	assert_output_contains '#include "cmds/subvolume.c"'
}
