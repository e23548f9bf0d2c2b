#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# A QGROUP_STATUS item the kernel may hang on (issue 19): check reports it,
# every offline write refuses it leaving the image byte-identical, quota
# status shows the raw flags.  Offline only: such an image is never mounted.

load ../helpers
load ../fixtures/fixture-helpers

CORRUPT="$BATS_TEST_DIRNAME/../fixtures/corrupt.py"

@test "qstatus: simple mode without the incompat bit: check fails, writes refused, status says invalid" {
	fixture rich4k
	python3 "$CORRUPT" "$IMG" qstatus 8
	run_volctl_split check "$IMG"
	[ "$status" -eq 1 ]
	[[ "$err" == *"quota status item: flags 0x9 say simple quotas, but the incompat feature simple_quota is not set"* ]]
	[[ "$err" == *"the kernel may hang or refuse mounting"* ]]
	WANT="quota status item: flags 0x9"
	refused --image "$IMG" subvolume snapshot /a /snapx
	refused --image "$IMG" subvolume create /newx
	refused --image "$IMG" subvolume delete /a
	refused --image "$IMG" qgroup create 1/77 /
	refused --image "$IMG" qgroup limit 1M 0/5 /
	refused --image "$IMG" quota rescan /
	refused --image "$IMG" quota disable /
	refused --image "$IMG" quota enable /
	run_volctl --image "$IMG" quota status /
	assert_status 0
	[[ "$output" == *"Mode:                    unknown: invalid status item (flags 0x9)"* ]]
	[[ "$output" != *squota* ]]
}

@test "qstatus: unknown flag bits: check and check --format json report them" {
	fixture rich4k
	python3 "$CORRUPT" "$IMG" qstatus 0x4000000000010000
	run_volctl_split --format json check "$IMG"
	[ "$status" -eq 1 ]
	[ "$(jq -r '.check.quota_status_faults[0].fault' <<<"$out")" = unknown_flags ]
	[ "$(jq -r '.check.consistent' <<<"$out")" = false ]
	WANT="hold unknown bits 0x4000000000010000"
	refused --image "$IMG" subvolume snapshot /a /snapx
	run_volctl --image "$IMG" --format json quota status /
	[ "$(jq -r '.quota_status.status_faults[0].fault' <<<"$output")" = unknown_flags ]
	[ "$(jq -r ".quota_status.mode" <<<"$output")" = null ]
}

@test "qstatus: valid items pass (full, simple)" {
	fixture rich4k
	run_volctl check "$IMG"
	assert_status 0
	fixture squota4k
	run_volctl check "$IMG"
	assert_status 0
}
