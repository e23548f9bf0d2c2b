#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# volctl quota on a loop-mounted filesystem; state is checked through Debian's
# btrfs-progs where it can see it.

load ../helpers

setup() {
	require_root_loop
	mkfs_mount 512M
}

teardown() {
	cleanup_mount
}

@test "quota enable, status, disable" {
	run_volctl quota status "$MNT"
	assert_status 0
	[ "${lines[0]}" = "Quotas on $MNT:" ]
	[ "${lines[1]}" = "  Enabled: no" ]
	run_volctl quota status --is-enabled "$MNT"
	assert_status 1
	[ -z "$output" ]

	run_volctl quota enable "$MNT"
	assert_status 0
	run btrfs qgroup show "$MNT"
	assert_status 0
	run_volctl quota rescan -W "$MNT"
	assert_status 0
	run_volctl quota status "$MNT"
	assert_status 0
	[ "${lines[1]}" = "  Enabled:                 yes" ]
	[ "${lines[2]}" = "  Mode:                    qgroup (full accounting)" ]
	assert_output_contains "  Total count:             1"
	assert_output_contains "  Level 0:                 1"
	run_volctl quota status --is-enabled "$MNT"
	assert_status 0

	run_volctl quota enable --simple "$MNT"
	assert_status 1
	assert_output_contains "full quota accounting is enabled"
	run_volctl quota status "$MNT"
	assert_output_contains "qgroup (full accounting)"

	run_volctl quota disable "$MNT"
	assert_status 0
	run btrfs qgroup show "$MNT"
	[ "$status" -ne 0 ]
	run_volctl quota status "$MNT"
	[ "${lines[1]}" = "  Enabled: no" ]
}

@test "quota status: btrfs-progs' lines in its order, then volctl's; the same without root (sysfs)" {
	btrfs quota enable "$MNT"
	btrfs subvolume create "$MNT/a" >/dev/null
	btrfs qgroup create 1/1 "$MNT"
	btrfs quota rescan -w "$MNT" >/dev/null
	local threshold override expect
	threshold=$(cat "/sys/fs/btrfs/$(btrfs filesystem show "$MNT" | awk '/uuid:/ {print $NF}')/qgroups/drop_subtree_threshold")
	expect="Quotas on $MNT:
  Enabled:                 yes
  Mode:                    qgroup (full accounting)
  Inconsistent:            no
  Override limits:         no
  Drop subtree threshold:  $threshold
  Total count:             3
  Level 0:                 2
  Level 1:                 1"
	run_volctl quota status "$MNT"
	assert_status 0
	[ "$(head -n 9 <<<"$output")" = "$expect" ] || { echo "$output"; return 1; }
	[ "${lines[9]}" = "  Rescan:                  not running" ]
	# without privilege the quota tree is closed: sysfs gives the same lines
	command -v setpriv >/dev/null || skip "needs setpriv"
	let_nobody_reach_mnt
	run setpriv --reuid=nobody --regid=nogroup --clear-groups "$VOLCTL" quota status "$MNT"
	assert_status 0
	[ "$(head -n 9 <<<"$output")" = "$expect" ] || { echo "$output"; return 1; }
	assert_output_contains "Rescan:                  unknown (reading it needs CAP_SYS_ADMIN)"
	run setpriv --reuid=nobody --regid=nogroup --clear-groups "$VOLCTL" --format json quota status "$MNT"
	assert_status 0
	[ "$(jq -c '.quota_status | [.enabled, .total_count, .rescan_running, .override_limits, .drop_subtree_threshold]' <<<"$output")" = "[true,3,null,false,$threshold]" ]
	run setpriv --reuid=nobody --regid=nogroup --clear-groups "$VOLCTL" quota status --is-enabled "$MNT"
	assert_status 0
	btrfs quota disable "$MNT"
	run setpriv --reuid=nobody --regid=nogroup --clear-groups "$VOLCTL" quota status "$MNT"
	assert_status 0
	[ "${lines[1]}" = "  Enabled: no" ]
}

@test "quota status --format json" {
	run_volctl --format json quota status "$MNT"
	assert_status 0
	assert_json
	[ "$(jq -r '.__header.version' <<<"$output")" = 3 ]
	[ "$(jq -r '.quota_status.enabled' <<<"$output")" = false ]
	[ "$(jq -r '.quota_status.mode' <<<"$output")" = null ]

	btrfs subvolume create "$MNT/a" >/dev/null
	run_volctl quota enable "$MNT"
	run_volctl quota rescan -W "$MNT"
	btrfs qgroup create 1/1 "$MNT"
	btrfs filesystem sync "$MNT"
	run_volctl --format json quota status "$MNT"
	assert_status 0
	assert_json
	[ "$(jq -r '.quota_status.enabled' <<<"$output")" = true ]
	[ "$(jq -r '.quota_status.mode' <<<"$output")" = full ]
	[ "$(jq -r '.quota_status.inconsistent' <<<"$output")" = false ]
	[ "$(jq -r '.quota_status.total_count' <<<"$output")" = 3 ]
	[ "$(jq -c '.quota_status.levels' <<<"$output")" = '[{"level":0,"count":2},{"level":1,"count":1}]' ]
}

@test "quota enable -s: simple quotas, no rescan" {
	run_volctl quota enable -s "$MNT"
	assert_status 0
	run_volctl quota status "$MNT"
	assert_status 0
	assert_output_contains "  Mode:                    squota (simplified accounting)"
	run_volctl --format json quota status "$MNT"
	[ "$(jq -r '.quota_status.mode' <<<"$output")" = simple ]
	run_volctl quota rescan "$MNT"
	assert_status 1
	assert_output_contains "not possible with simple quotas"
	# switching modes needs a disable first; the kernel would silently keep the old one
	run_volctl quota enable "$MNT"
	assert_status 1
	assert_output_contains "simple quotas are enabled; run 'volctl quota disable $MNT' first"
	run_volctl quota enable -s "$MNT"
	assert_status 0
	# the SIMPLE_QUOTA incompat bit (0x10000) is really set
	flags=$(btrfs inspect-internal dump-super "$LOOPDEV" | awk '$1 == "incompat_flags" {print $2}')
	[ -n "$flags" ]
	[ $((flags & 0x10000)) -ne 0 ]
}

@test "quota rescan -w makes our numbers equal btrfs-progs'" {
	btrfs subvolume create "$MNT/a" >/dev/null
	btrfs subvolume create "$MNT/b" >/dev/null
	dd if=/dev/urandom of="$MNT/a/f" bs=1M count=3 status=none
	dd if=/dev/urandom of="$MNT/b/f" bs=64k count=5 status=none
	btrfs subvolume snapshot "$MNT/a" "$MNT/snap" >/dev/null
	dd if=/dev/urandom of="$MNT/snap/g" bs=1M count=1 status=none
	sync -f "$MNT"
	run_volctl quota enable "$MNT"
	assert_status 0
	run_volctl quota rescan -w "$MNT"
	assert_status 0
	# the enable already started a rescan: either ours started, or we waited for it
	[[ "$output" == "quota rescan started" || "$output" == "quota rescan already running, waiting for it" ]]
	run_volctl quota rescan -s "$MNT"
	assert_status 0
	[ "$output" = "no rescan operation in progress" ]
	ours=$("$VOLCTL" qgroup show --raw "$MNT" | awk 'NR>2 {print $1, $2, $3}')
	theirs=$(btrfs qgroup show --raw "$MNT" | awk 'NR>2 {print $1, $2, $3}')
	[ -n "$ours" ]
	[ "$ours" = "$theirs" ]
	# and the rescan really counted the data: 0/257 (b) holds 320 KiB of file data
	[ "$(awk '$1 == "0/257" {print ($2 >= 327680)}' <<<"$ours")" = 1 ]
}

@test "quota rescan: start, then wait only" {
	btrfs subvolume create "$MNT/a" >/dev/null
	run_volctl quota enable "$MNT"
	run_volctl quota rescan -W "$MNT"
	assert_status 0
	run_volctl quota rescan "$MNT"
	assert_status 0
	[ "$output" = "quota rescan started" ]
	run_volctl quota rescan -W "$MNT"
	assert_status 0
	[ -z "$output" ]
	run_volctl quota rescan -s "$MNT"
	[ "$output" = "no rescan operation in progress" ]
}

@test "quota: inconsistent numbers are reported with what to run" {
	btrfs subvolume create "$MNT/a" >/dev/null
	dd if=/dev/urandom of="$MNT/a/f" bs=1M count=2 status=none
	run_volctl quota enable "$MNT"
	run_volctl quota rescan -W "$MNT"
	btrfs subvolume snapshot "$MNT/a" "$MNT/s" >/dev/null
	btrfs qgroup create 1/1 "$MNT"
	# 0/258 shares its data with 0/256: the kernel cannot add it in place
	run_volctl qgroup assign --no-rescan "$MNT/s" 1/1 "$MNT"
	assert_status 0
	assert_output_contains "quota numbers are now inconsistent"
	btrfs filesystem sync "$MNT"
	run_volctl quota status "$MNT"
	assert_status 0
	assert_output_contains "  Inconsistent:            yes (rescan needed)"
	assert_output_contains "run 'volctl quota rescan -w $MNT'"
	run_volctl --format json quota status "$MNT"
	[ "$(jq -r '.quota_status.inconsistent' <<<"$output")" = true ]
	run_volctl_split qgroup show "$MNT"
	assert_status 0
	[[ "$err" == *"qgroup numbers are inconsistent"* ]]

	run_volctl quota rescan -w "$MNT"
	assert_status 0
	btrfs filesystem sync "$MNT"
	run_volctl quota status "$MNT"
	assert_output_contains "  Inconsistent:            no"
	[[ "$output" != *"Note:"* ]]
}

@test "quota: commands on a filesystem without quotas say so" {
	for cmd in "quota rescan" "quota rescan -s" "quota rescan -w" "quota rescan -W" \
		   "qgroup show" "qgroup create 1/1" "qgroup destroy 1/1" \
		   "qgroup assign 0/5 1/1" "qgroup remove 0/5 1/1" "qgroup limit 1M 0/5" \
		   "qgroup clear-stale"; do
		# shellcheck disable=SC2086
		run_volctl $cmd "$MNT"
		[ "$status" -eq 1 ] || { echo "$cmd: $status $output"; false; }
		[[ "$output" == *"$MNT: quota is not enabled"* ]] || { echo "$cmd: $output"; false; }
	done
	# and nothing was turned on by any of them
	run btrfs qgroup show "$MNT"
	[ "$status" -ne 0 ]
}
