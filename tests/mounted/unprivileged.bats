#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# What user nobody reads when a command needs more than nobody has, on a
# loop-mounted image: one line, the path once, the errno's text once, the
# real cause (reading the devices for computed numbers, the tree search
# that needs CAP_SYS_ADMIN), and a usage error for a forgotten path.

load ../helpers

setup() {
	require_root_loop
	command -v setpriv >/dev/null || skip "needs setpriv"
	mkfs_mount 512M
	cd "$MNT"
	"$VOLCTL" subvolume create a >/dev/null
	let_nobody_reach_mnt
}

teardown() {
	cd /
	cleanup_mount
}

as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}

@test "nobody: delete --dry-run names the devices it cannot read, the path once" {
	run as_nobody "$VOLCTL" subvolume delete --dry-run "$MNT/a"
	assert_status 1
	[ "$output" = "error: $MNT/a: computed numbers read the filesystem's devices: $LOOPDEV: Permission denied" ]
}

@test "nobody: the tree search refused: CAP_SYS_ADMIN named, the errno's text once" {
	local c
	for c in "subvolume space" "subvolume list" "qgroup show"; do
		# shellcheck disable=SC2086
		run as_nobody "$VOLCTL" $c "$MNT"
		assert_status 1
		[ "$output" = "error: $MNT: searching the filesystem trees needs CAP_SYS_ADMIN (Operation not permitted)" ]
	done
}

@test "nobody: qgroup limit with the path forgotten is a usage error, not a missing file" {
	run as_nobody "$VOLCTL" qgroup limit 10M 1/100
	assert_status 2
	[ "${lines[0]}" = "error: volctl qgroup limit: path missing: '1/100' is a qgroup id, and no such path exists (give the path after it)" ]
	# with the path, the kernel's refusal
	run as_nobody "$VOLCTL" qgroup limit 10M 1/100 "$MNT"
	assert_status 1
	[ "$output" = "error: $MNT: permission denied (quota changes need CAP_SYS_ADMIN) (Operation not permitted)" ]
}
