#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Qgroup limits on every offline write (no root needed): a write that takes
# any group (any level, rfer or excl) past its limit is refused before
# anything is written, including growth from copying blocks shared with a
# snapshot; delete is always allowed; a group already over its limit only
# stops writes that make it grow.  btrfs check and volctl check are the
# oracle for the numbers written.

load ../helpers

setup() {
	command -v mkfs.btrfs >/dev/null || skip "needs mkfs.btrfs"
	IMG="$BATS_TEST_TMPDIR/fs.img"
}

# A 4k-node image whose top level holds 120 files (a multi-level tree), quotas on
mkimg_files() {
	local dir="$BATS_TEST_TMPDIR/root" i
	mkdir -p "$dir/d"
	for i in $(seq 1 120); do
		head -c $((8192 + i * 512)) /dev/urandom >"$dir/d/f$i"
	done
	truncate -s 256M "$IMG"
	mkfs.btrfs -q -f -n 4096 -R quota --rootdir "$dir" "$IMG" >/dev/null
}

vc() {
	run_volctl --image "$IMG" "$@"
}

vc_ok() {
	run_volctl --image "$IMG" "$@"
	[ "$status" -eq 0 ] || { echo "$*: $output" >&2; return 1; }
}

checks_clean() {
	run btrfs check --readonly "$IMG"
	if [ "$status" -ne 0 ] || [[ "$output" == *"are different"* ]]; then
		echo "$output" >&2
		return 1
	fi
	run_volctl check "$IMG"
	assert_status 0
}

# qg ID rfer|excl: the number as volctl reads it back
qg() {
	"$VOLCTL" --image "$IMG" qgroup show --raw / |
		awk -v id="$1" -v f="$2" '$1 == id {print (f == "rfer" ? $2 : $3)}'
}

@test "growth from copying blocks shared with a snapshot is refused past an exclusive limit" {
	mkimg_files
	vc_ok subvolume snapshot / /s1
	local excl before
	excl=$(qg 0/256 excl)
	vc_ok qgroup limit -e "$excl" 0/256 /
	before=$(sha256sum <"$IMG")
	# the blocks of /d are shared with s1 (the link of s1 copied only the
	# top level's root directory, as the kernel's does): copying them makes
	# them s1's alone
	vc subvolume create /d/a
	assert_status 1
	[[ "$output" =~ ^"error: /d/a: Disk quota exceeded: qgroup 0/256 limit exclusive "[0-9.]+[KM]iB" (used "[0-9.]+[KM]iB", over by "[0-9]+" bytes); raise it with: volctl --image $IMG qgroup limit -e <size>|none 0/256 /d"$ ]]
	[ "$(sha256sum <"$IMG")" = "$before" ]
	vc_ok qgroup limit -e none 0/256 /
	vc_ok subvolume create /d/a
	[ "$(qg 0/256 excl)" -gt "$excl" ]
	checks_clean
}

@test "snapshot: the parent's reservation, -i groups at any level, rfer and excl" {
	mkimg_files
	vc_ok subvolume snapshot / /s1
	vc_ok subvolume snapshot / /s2
	vc_ok qgroup create 1/1 /
	vc_ok qgroup create 2/1 /
	vc_ok qgroup assign 0/256 1/1 /
	vc_ok qgroup assign 0/257 1/1 /
	vc_ok qgroup assign 1/1 2/1 /
	local rfer before
	# plain snapshot into a parent at its limit: the kernel's 3-block reservation
	vc_ok qgroup limit "$(qg 0/5 rfer)" 0/5 /
	before=$(sha256sum <"$IMG")
	vc subvolume snapshot / /s3
	assert_status 1
	assert_output_contains "error: /s3: Disk quota exceeded: qgroup 0/5 limit referenced"
	[ "$(sha256sum <"$IMG")" = "$before" ]
	vc_ok qgroup limit none 0/5 /
	# -i into a group whose ancestor is at its limit
	rfer=$(qg 2/1 rfer)
	vc_ok qgroup limit "$rfer" 2/1 /
	before=$(sha256sum <"$IMG")
	vc subvolume snapshot -i 1/1 / /s3
	assert_status 1
	[[ "$output" =~ ^"error: /s3: Disk quota exceeded: qgroup 2/1 limit referenced "[0-9.]+[KM]iB" (used "[0-9.]+[KM]iB", over by "([0-9]+)" bytes); raise it with: volctl --image $IMG qgroup limit <size>|none 2/1 /"$ ]]
	local over=${BASH_REMATCH[1]}
	[ "$over" -gt 0 ]
	[ "$(sha256sum <"$IMG")" = "$before" ]
	vc subvolume snapshot -r -i 1/1 / /s3
	assert_status 1
	[ "$(sha256sum <"$IMG")" = "$before" ]
	# exactly the overshoot more, and the snapshot fits to the byte
	vc_ok qgroup limit $((rfer + over - 1)) 2/1 /
	vc subvolume snapshot -i 1/1 / /s3
	assert_status 1
	vc_ok qgroup limit $((rfer + over)) 2/1 /
	vc_ok subvolume snapshot -i 1/1 / /s3
	[ "$(qg 2/1 rfer)" = $((rfer + over)) ]
	checks_clean
	# create -i: a new subvolume's leaf counts in the group it joins
	vc_ok qgroup limit -e "$(qg 1/1 excl)" 1/1 /
	before=$(sha256sum <"$IMG")
	vc subvolume create -i 1/1 /s1/new
	assert_status 1
	assert_output_contains "error: /s1/new: Disk quota exceeded: qgroup 1/1 limit exclusive "
	[ "$(sha256sum <"$IMG")" = "$before" ]
	checks_clean
}

@test "delete is always allowed; a group over its limit only stops writes that make it grow" {
	mkimg_files
	vc_ok subvolume snapshot / /s1
	vc_ok subvolume create /d/v
	vc_ok subvolume snapshot / /s2
	vc_ok qgroup create 1/1 /
	vc_ok qgroup assign 0/256 1/1 /
	vc_ok qgroup assign 0/258 1/1 /
	local excl before
	excl=$(qg 1/1 excl)
	vc_ok qgroup limit -e "$excl" 1/1 /
	# unlinking /d/v copies blocks of /d shared with s2: 1/1 grows past its limit
	vc_ok subvolume delete /d/v
	[ "$(qg 1/1 excl)" -gt "$excl" ]
	checks_clean
	# over the limit, but this write leaves 1/1 as it is
	vc_ok subvolume create /w
	checks_clean
	# and this one makes it grow
	before=$(sha256sum <"$IMG")
	vc subvolume snapshot -i 1/1 / /s3
	assert_status 1
	assert_output_contains "error: /s3: Disk quota exceeded: qgroup 1/1 limit exclusive "
	assert_output_contains "raise it with: volctl --image $IMG qgroup limit -e <size>|none 1/1 /"
	[ "$(sha256sum <"$IMG")" = "$before" ]
	# a limit set below the current usage is accepted, as by the kernel
	vc_ok qgroup limit 4096 0/256 /
	vc_ok qgroup create 1/9 /
	checks_clean
}

@test "the command a refusal suggests names a clean path, whatever slashes were typed" {
	truncate -s 256M "$IMG"
	mkfs.btrfs -q -f -R quota "$IMG" >/dev/null
	vc_ok subvolume create /x
	vc_ok subvolume create -p /x/y/w
	vc_ok qgroup limit 16K 0/256 /
	vc subvolume create /x//y//z
	assert_status 1
	[[ "$output" == "error: /x//y//z: Disk quota exceeded: qgroup 0/256 limit referenced "*"; raise it with: volctl --image $IMG qgroup limit <size>|none 0/256 /x/y" ]]
	vc subvolume snapshot /x /x//y//
	assert_status 1
	[[ "$output" == "error: /x/y/x: Disk quota exceeded: "*" 0/256 /x/y" ]]
}
