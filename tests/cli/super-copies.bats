#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# After every commit, every superblock copy on every member says the same
# (btrfs check and the kernel read only the primary, so a commit that
# skipped a mirror copy would pass them): generation, roots, flags, backup
# roots; only the copy's own bytenr and checksum and the member's device
# item differ.  volctl inspect super --all reads the copies (no root needed).

load ../helpers

setup() {
	command -v mkfs.btrfs >/dev/null || skip "needs mkfs.btrfs"
	D=$BATS_TEST_TMPDIR
}

# copies_agree GENERATION FILE...: every copy valid, at GENERATION, the same
copies_agree() {
	local gen=$1 f s
	shift
	s=$(for f; do
		"$VOLCTL" --format json inspect super --all "$f" | jq -c '.superblocks'
	done | jq -cs 'add')
	# every copy that fits: two on a member under 256 GiB
	[ "$(jq length <<<"$s")" -eq $((2 * $#)) ]
	[ "$(jq '[.[] | select(has("problem"))] | length' <<<"$s")" -eq 0 ]
	[ "$(jq "[.[] | select(.generation != $gen)] | length" <<<"$s")" -eq 0 ] ||
		{ jq -c '.[] | {device, mirror, generation}' <<<"$s" >&2; return 1; }
	[ "$(jq '[.[] | del(.device, .mirror, .offset, .bytenr, .csum, .dev_item)] | unique | length' \
		<<<"$s")" -eq 1 ]
	[ "$(jq 'group_by(.device) | map(map(.dev_item) | unique | length) | max' <<<"$s")" -eq 1 ]
}

gen_of() {
	"$VOLCTL" --format json inspect super "$1" | jq '.superblocks[0].generation'
}

@test "superblock copies: volctl mkfs, then each offline write on one device" {
	local img=$D/fs.img g
	run_volctl mkfs -s 128M --quota --subvol /a "$img"
	assert_status 0
	copies_agree "$(gen_of "$img")" "$img"
	for cmd in "subvolume create /b" "subvolume snapshot /a /s" "subvolume set-default /a" \
		"qgroup create 1/1 /" "qgroup assign 0/256 1/1 /" "qgroup limit 1M /b /" \
		"subvolume delete /s" "quota rescan /" "quota disable /" "quota enable --simple /"; do
		g=$(gen_of "$img")
		# shellcheck disable=SC2086
		run_volctl --image "$img" $cmd
		assert_status 0
		copies_agree $((g + 1)) "$img"
	done
}

@test "superblock copies: 2 devices, RAID1 metadata, each member's copies" {
	local g
	truncate -s 128M "$D/m1.img" "$D/m2.img"
	mkfs.btrfs -q -f -m raid1 -d single "$D/m1.img" "$D/m2.img" >/dev/null 2>&1
	for cmd in "subvolume create /a" "quota enable /" "subvolume snapshot /a /s"; do
		g=$(gen_of "$D/m1.img")
		# shellcheck disable=SC2086
		run_volctl --image "$D/m1.img" --image "$D/m2.img" $cmd
		assert_status 0
		copies_agree $((g + 1)) "$D/m1.img" "$D/m2.img"
	done
}
