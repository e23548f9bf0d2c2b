#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# qgroup headroom with quotas disabled, against the kernel: nothing is
# limited (exit 0, no limit, null headroom), and the numbers of the
# subvolume, computed online from a committed snapshot and offline from the
# unmounted image, are the ones the kernel records once quotas are enabled
# and rescanned.

load ../helpers

setup() {
	require_root_loop
	command -v jq >/dev/null || skip "needs jq"
	mkfs_mount 512M
}

teardown() {
	cleanup_mount
}

# "rfer excl" of the headroom document on stdin
numbers() {
	jq -r '.qgroup_headroom | "\(.referenced) \(.exclusive)"'
}

@test "headroom, quotas off: nothing limited, and the numbers the kernel counts after quota enable" {
	btrfs subvolume create "$MNT/a" >/dev/null
	head -c 3M /dev/urandom >"$MNT/a/f"
	btrfs subvolume snapshot "$MNT/a" "$MNT/s" >/dev/null
	head -c 1M /dev/urandom >"$MNT/a/g"
	sync -f "$MNT"

	run_volctl_split qgroup headroom "$MNT/a"
	[ "$status" -eq 0 ]
	[ "$err" = "Quotas are disabled: the numbers of qgroup 0/256 are computed" ]
	[ "$(sed -n 1p <<<"$out")" = "No limit applies: quotas are disabled, nothing is limited" ]
	[ "$(sed -n 3p <<<"$out")" = "To set a limit: volctl quota enable $MNT/a, then volctl qgroup limit <size> 0/256 $MNT/a" ]
	run_volctl --format json qgroup headroom "$MNT/a"
	assert_status 0
	[ "$(jq -c '.qgroup_headroom | [.quota_enabled, .numbers, .limits, .headroom, .full]' <<<"$output")" = \
		'[false,"computed",[],null,false]' ]
	online=$(numbers <<<"$output")
	run_volctl --format json qgroup headroom 0/257 "$MNT"
	assert_status 0
	snap=$(numbers <<<"$output")

	# offline, the image unmounted: the same numbers
	umount "$MNT"
	run_volctl --image "$LOOPDEV" --format json qgroup headroom /a
	assert_status 0
	[ "$(numbers <<<"$output")" = "$online" ]
	mount "$LOOPDEV" "$MNT"

	# the kernel's, once it counts: the same again
	btrfs quota enable "$MNT"
	kernel_rescan "$MNT"
	kernel=$(btrfs qgroup show --raw "$MNT" | awk '$1 == "0/256" { print $2, $3 }')
	echo "volctl $online, kernel $kernel"
	[ "$online" = "$kernel" ]
	[ "$snap" = "$(btrfs qgroup show --raw "$MNT" | awk '$1 == "0/257" { print $2, $3 }')" ]
	# with quotas on, no limit set: the recorded numbers, nothing limited either
	run_volctl --format json qgroup headroom "$MNT/a"
	assert_status 0
	[ "$(jq -c '.qgroup_headroom | [.quota_enabled, .numbers, .headroom]' <<<"$output")" = \
		'[true,"recorded",null]' ]
	[ "$(numbers <<<"$output")" = "$kernel" ]
}
