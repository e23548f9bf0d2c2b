#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The claim's scan of loop devices (common/image/storage.c) under valgrind: with a
# loop device attached, every offline command looks at its LOOP_GET_STATUS64
# answer, an ioctl memcheck does not model; no report may come of it.

load ../helpers

setup() {
	require_root_loop
	command -v valgrind >/dev/null || skip "valgrind is not installed"
	# memcheck cannot run a binary built with AddressSanitizer (make check-asan)
	if ldd "$VOLCTL" 2>/dev/null | grep -q libasan; then
		skip "needs a build without AddressSanitizer (valgrind cannot run one)"
	fi
	truncate -s 128M "$BATS_TEST_TMPDIR/other.img"
	LOOP=$(losetup -f --show "$BATS_TEST_TMPDIR/other.img")
	"$VOLCTL" mkfs --quota -s 256M "$BATS_TEST_TMPDIR/t.img" >/dev/null
}

teardown() {
	[ -z "${LOOP:-}" ] || losetup -d "$LOOP"
}

@test "memcheck: offline reads and writes with a loop device attached report nothing" {
	local args
	for args in "subvolume list /" "subvolume create /a" "qgroup show /"; do
		# shellcheck disable=SC2086
		run valgrind -q --error-exitcode=99 "$VOLCTL" --image "$BATS_TEST_TMPDIR/t.img" $args
		echo "$output"
		[ "$status" -eq 0 ]
		[[ "$output" != *"uninitialised"* ]]
	done
	run valgrind -q --error-exitcode=99 "$VOLCTL" check "$BATS_TEST_TMPDIR/t.img"
	[ "$status" -eq 0 ]
}
