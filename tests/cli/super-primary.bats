#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The kernel mounts from the primary superblock (64 KiB) only and never
# falls back to a mirror.  volctl reads the same copy: a bad primary is an
# error naming the device and a valid mirror, --super N reads a mirror with a
# warning (never for a write), and check compares every copy with the
# primary: a bad or older primary and a mirror that differs at the same
# generation fail it, a stale or bad mirror is a warning (btrfs check reads
# no mirror and exits 0; the kernel rewrites every copy at its next commit).
# Nothing here is mounted: images are corrupted with dd and corrupt.py.

load ../helpers

CORRUPT="$BATS_TEST_DIRNAME/../fixtures/corrupt.py"
P0=65536
P1=67108864

setup() {
	command -v mkfs.btrfs >/dev/null || skip "needs mkfs.btrfs"
	command -v jq >/dev/null || skip "needs jq"
	command -v python3 >/dev/null || skip "needs python3"
	D=$BATS_TEST_TMPDIR
	IMG=$D/fs.img
	truncate -s 128M "$IMG"
	mkfs.btrfs -q -f "$IMG" >/dev/null 2>&1
	"$VOLCTL" --image "$IMG" subvolume create /a >/dev/null
}

# garble N bytes at OFFSET of FILE
garble() {
	printf '%*s' "$3" '' | tr ' ' 'X' | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# save_copy FILE OFFSET OUT / put_copy OUT FILE OFFSET: one 4 KiB superblock copy
save_copy() { dd if="$1" of="$3" bs=4096 skip=$(($2 / 4096)) count=1 status=none; }
put_copy() { dd if="$1" of="$2" bs=4096 seek=$(($3 / 4096)) count=1 conv=notrunc status=none; }

# the finding of copy MIRROR in check's JSON
finding() {
	jq -r ".check.superblocks[] | select(.mirror == $2) | .finding" <<<"$1"
}

@test "super: pristine image: check 0, every copy agrees, no warning anywhere" {
	run_volctl_split check "$IMG"
	[ "$status" -eq 0 ]
	[[ "$out" == *"superblocks: 2 copies on 1 device, all agree with the primary"* ]]
	[ -z "$err" ]
	run_volctl_split subvolume list --image "$IMG" /
	[ "$status" -eq 0 ]
	[[ "$out" == *"path a"* ]]
	[ -z "$err" ]
	run_volctl_split --format json check "$IMG"
	[ "$status" -eq 0 ]
	[ "$(jq '.check.superblocks | length' <<<"$out")" -eq 2 ]
	[ "$(jq '[.check.superblocks[] | select(.finding == "ok" and .valid)] | length' <<<"$out")" -eq 2 ]
	[ "$(jq '.check.superblock_errors + .check.superblock_warnings' <<<"$out")" -eq 0 ]
}

@test "super: garbled primary magic: readers refuse naming the device and mirror 1, --super 1 reads it" {
	garble "$IMG" $((P0 + 64)) 4
	run_volctl_split subvolume list --image "$IMG" /
	[ "$status" -eq 1 ]
	[[ "$err" == *"fs.img: superblock mirror 0: bad magic"* ]]
	[[ "$err" == *"the only copy the kernel mounts from"* ]]
	[[ "$err" == *"mirror 1 is valid (generation "*"): --super 1 reads it"* ]]
	[ -z "$out" ]
	run_volctl_split check "$IMG"
	[ "$status" -eq 1 ]
	[[ "$err" == *"superblock mirror 0: bad magic"*"--super 1"* ]]
	# the mirror, as asked: listed, with one warning naming it
	run_volctl_split --super 1 subvolume list --image "$IMG" /
	[ "$status" -eq 0 ]
	[[ "$out" == *"path a"* ]]
	[[ "$err" == "warning: $IMG: using superblock mirror 1 at $P1 (generation "*"); the kernel mounts from the primary only"* ]]
	[ "$(grep -c . <<<"$err")" -eq 1 ]
	# check from the mirror still fails on the primary, and says so in JSON
	run_volctl_split --super 1 --format json check "$IMG"
	[ "$status" -eq 1 ]
	[[ "$err" == *"superblock mirror 0: bad magic"*"the kernel will not mount"* ]]
	[ "$(finding "$out" 0)" = primary_bad ]
	[ "$(jq -r '.check.superblocks[0] | "\(.valid) \(.error) \(.generation)"' <<<"$out")" = "false true null" ]
	[[ "$(jq -r '.check.superblocks[0].problem' <<<"$out")" == *"bad magic"* ]]
	[ "$(jq '.check.superblock_errors' <<<"$out")" -eq 1 ]
}

@test "super: primary with a bad checksum or a wrong bytenr field is refused, naming the cause" {
	cp "$IMG" "$D/csum.img"
	garble "$D/csum.img" $((P0 + 300)) 2		# label: the checksum no longer matches
	run_volctl_split check "$D/csum.img"
	[ "$status" -eq 1 ]
	[[ "$err" == *"csum.img: superblock mirror 0: checksum mismatch"* ]]
	run_volctl_split --image "$D/csum.img" qgroup show /
	[ "$status" -eq 1 ]
	[[ "$err" == *"superblock mirror 0: checksum mismatch"* ]]
	# mirror 1's bytes at the primary's place: valid checksum, bytenr says 64 MiB
	cp "$IMG" "$D/bytenr.img"
	save_copy "$IMG" $P1 "$D/m1"
	put_copy "$D/m1" "$D/bytenr.img" $P0
	run_volctl_split check "$D/bytenr.img"
	[ "$status" -eq 1 ]
	[[ "$err" == *"superblock at $P0: bytenr field says $P1"* ]]
	run_volctl_split --super 1 subvolume list --image "$D/bytenr.img" /
	[ "$status" -eq 0 ]
	[[ "$out" == *"path a"* ]]
}

@test "super: an older primary written back: readers show the kernel's state, check fails" {
	save_copy "$IMG" $P0 "$D/old0"
	run_volctl --image "$IMG" subvolume create /b
	assert_status 0
	put_copy "$D/old0" "$IMG" $P0
	# the primary's state, as the kernel would mount it: no /b, no warning
	run_volctl_split subvolume list --image "$IMG" /
	[ "$status" -eq 0 ]
	[[ "$out" == *"path a"* ]]
	[[ "$out" != *"path b"* ]]
	[ -z "$err" ]
	run_volctl_split check "$IMG"
	[ "$status" -eq 1 ]
	[[ "$err" == *"superblock mirror 1 at $P1 has generation "*", newer than the primary's "*": the kernel mounts the older state"* ]]
	[[ "$out" == *"superblocks: 2 copies on 1 device, 1 error, 0 warnings"* ]]
	run_volctl_split --format json check "$IMG"
	[ "$status" -eq 1 ]
	[ "$(finding "$out" 1)" = newer_than_primary ]
	[ "$(jq '.check.superblocks[1].generation - .check.superblocks[0].generation' <<<"$out")" -eq 1 ]
	# the newer mirror, when asked
	run_volctl_split --super 1 subvolume list --image "$IMG" /
	[ "$status" -eq 0 ]
	[[ "$out" == *"path b"* ]]
	[[ "$err" == *"using superblock mirror 1"* ]]
	# inspect super shows the primary by default
	[ "$("$VOLCTL" --format json inspect super "$IMG" | jq '.superblocks[0].mirror')" -eq 0 ]
}

@test "super: a mirror that differs from the primary at the same generation fails check" {
	local gen
	# another filesystem's mirror 1 at the same generation: valid, other bytes
	truncate -s 128M "$D/other.img"
	mkfs.btrfs -q -f "$D/other.img" >/dev/null 2>&1
	"$VOLCTL" --image "$D/other.img" subvolume create /x >/dev/null
	gen=$("$VOLCTL" --format json inspect super "$IMG" | jq '.superblocks[0].generation')
	[ "$("$VOLCTL" --format json inspect super --super 1 "$D/other.img" | jq '.superblocks[0].generation')" -eq "$gen" ]
	save_copy "$D/other.img" $P1 "$D/m1"
	put_copy "$D/m1" "$IMG" $P1
	run_volctl_split check "$IMG"
	[ "$status" -eq 1 ]
	[[ "$err" == *"superblock mirror 1 at $P1 differs from the primary at the same generation $gen"* ]]
	run_volctl_split --format json check "$IMG"
	[ "$(finding "$out" 1)" = differs_from_primary ]
	[ "$(jq '.check.superblocks[1].error' <<<"$out")" = true ]
}

@test "super: a stale or garbled mirror is a warning, check exits 0 as btrfs check does" {
	local g
	cp "$IMG" "$D/stale.img"
	save_copy "$D/stale.img" $P1 "$D/old1"
	"$VOLCTL" --image "$D/stale.img" subvolume create /b >/dev/null
	put_copy "$D/old1" "$D/stale.img" $P1
	g=$("$VOLCTL" --format json inspect super "$D/stale.img" | jq '.superblocks[0].generation')
	run_volctl_split check "$D/stale.img"
	[ "$status" -eq 0 ]
	[[ "$err" == "warning: $D/stale.img: superblock mirror 1 at $P1 has generation $((g - 1)), older than the primary's $g"* ]]
	[[ "$out" == *"superblocks: 2 copies on 1 device, 0 errors, 1 warning"* ]]
	run_volctl_split --format json check "$D/stale.img"
	[ "$(finding "$out" 1)" = older_than_primary ]
	[ "$(jq -r '"\(.check.superblocks[1].error) \(.check.superblock_warnings)"' <<<"$out")" = "false 1" ]
	# readers use the primary and say nothing
	run_volctl_split subvolume list --image "$D/stale.img" /
	[ "$status" -eq 0 ]
	[[ "$out" == *"path b"* ]]
	[ -z "$err" ]

	cp "$IMG" "$D/bad1.img"
	garble "$D/bad1.img" $((P1 + 300)) 2
	run_volctl_split check "$D/bad1.img"
	[ "$status" -eq 0 ]
	[[ "$err" == *"bad1.img: superblock mirror 1: checksum mismatch (the kernel rewrites every copy"* ]]
	# the oracle: btrfs check reads only the primary and exits 0 on both
	if command -v btrfs >/dev/null; then
		run btrfs check "$D/stale.img"
		assert_status 0
		run btrfs check "$D/bad1.img"
		assert_status 0
	fi
}

@test "super: corrupt.py: a mirror set one generation back, checksum fixed, is stale" {
	local g
	g=$("$VOLCTL" --format json inspect super "$IMG" | jq '.superblocks[0].generation')
	python3 "$CORRUPT" "$IMG" set $((P1 + 72)) 8 $((g - 1))
	python3 "$CORRUPT" "$IMG" csum $P1 4096
	run_volctl_split --format json check "$IMG"
	[ "$status" -eq 0 ]
	[ "$(finding "$out" 1)" = older_than_primary ]
	# one generation ahead instead: the primary is the older one
	python3 "$CORRUPT" "$IMG" set $((P1 + 72)) 8 $((g + 1))
	python3 "$CORRUPT" "$IMG" csum $P1 4096
	run_volctl_split --format json check "$IMG"
	[ "$status" -eq 1 ]
	[ "$(finding "$out" 1)" = newer_than_primary ]
}

@test "super: writes from a mirror are refused, the image byte-identical; --super 0 writes" {
	cp "$IMG" "$D/orig.img"
	cp "$IMG" "$D/before.img"
	run_volctl_split --super 1 --image "$IMG" subvolume create /b
	[ "$status" -eq 1 ]
	[[ "$err" == *"--super 1: offline writes use the primary superblock only"* ]]
	cmp "$IMG" "$D/before.img"
	run_volctl_split --super 1 check --repair-qgroups "$IMG"
	[ "$status" -eq 1 ]
	[[ "$err" == *"offline writes use the primary superblock only"* ]]
	cmp "$IMG" "$D/before.img"
	# a bad primary: a write is refused too, pointing at check, not at --super
	garble "$IMG" $((P0 + 64)) 4
	cp "$IMG" "$D/before.img"
	run_volctl_split --image "$IMG" subvolume create /b
	[ "$status" -eq 1 ]
	[[ "$err" == *"superblock mirror 0: bad magic"*"a write needs a valid primary"* ]]
	cmp "$IMG" "$D/before.img"
	# mkfs still sees a filesystem there (a valid mirror)
	run_volctl_split mkfs "$IMG"
	[ "$status" -eq 1 ]
	[[ "$err" == *"contains a btrfs filesystem"* ]]
	cmp "$IMG" "$D/before.img"
	# --super 0 is the primary: writes work, no warning
	run_volctl_split --super 0 --image "$D/orig.img" subvolume create /c
	[ "$status" -eq 0 ]
	[ -z "$err" ]
}

@test "super: a filesystem smaller than its device: copies past total_bytes are not findings" {
	truncate -s 128M "$D/small.img"
	mkfs.btrfs -q -f -m single -d single -b 60M "$D/small.img" >/dev/null 2>&1
	[ "$("$VOLCTL" --format json inspect super "$D/small.img" | jq '.superblocks[0].dev_item.total_bytes')" -eq $((60 << 20)) ]
	# a leftover superblock of an older, larger filesystem at 64 MiB
	save_copy "$IMG" $P1 "$D/m1"
	put_copy "$D/m1" "$D/small.img" $P1
	run_volctl_split --format json check "$D/small.img"
	[ "$status" -eq 0 ]
	[ "$(jq '.check.superblocks | length' <<<"$out")" -eq 1 ]
	[ -z "$err" ]
	run_volctl_split check "$D/small.img"
	[[ "$out" == *"superblocks: 1 copy on 1 device, all agree with the primary"* ]]
}

@test "super: two devices: a member's garbled primary is named, --super 1 reads both" {
	truncate -s 128M "$D/m1.img" "$D/m2.img"
	mkfs.btrfs -q -f -m raid1 -d single "$D/m1.img" "$D/m2.img" >/dev/null 2>&1
	"$VOLCTL" --image "$D/m1.img" --image "$D/m2.img" subvolume create /a >/dev/null
	garble "$D/m2.img" $((P0 + 64)) 4
	run_volctl_split --image "$D/m1.img" --image "$D/m2.img" subvolume list /
	[ "$status" -eq 1 ]
	[[ "$err" == *"m2.img: superblock mirror 0: bad magic"*"--super 1 reads it"* ]]
	run_volctl_split check "$D/m1.img" "$D/m2.img"
	[ "$status" -eq 1 ]
	[[ "$err" == *"m2.img: superblock mirror 0: bad magic"* ]]
	run_volctl_split --super 1 --format json check "$D/m1.img" "$D/m2.img"
	[ "$status" -eq 1 ]
	[ "$(jq -r '[.check.superblocks[] | "\(.device | sub(".*/"; "")):\(.mirror):\(.finding)"] | join(" ")' <<<"$out")" = \
		"m1.img:0:ok m1.img:1:ok m2.img:0:primary_bad m2.img:1:ok" ]
	run_volctl_split --super 1 --image "$D/m1.img" --image "$D/m2.img" subvolume list /
	[ "$status" -eq 0 ]
	[[ "$out" == *"path a"* ]]
	[ "$(grep -c "using superblock mirror 1" <<<"$err")" -eq 1 ]
}

@test "super: a mirror of zeros was never written (btrfs-image -r): no finding; garbled magic is one" {
	cp "$IMG" "$D/zero1.img"
	dd if=/dev/zero of="$D/zero1.img" bs=4096 seek=$((P1 / 4096)) count=1 conv=notrunc status=none
	run_volctl_split check "$D/zero1.img"
	[ "$status" -eq 0 ]
	[ -z "$err" ]
	[[ "$out" == *"superblocks: 1 copy on 1 device, all agree with the primary"* ]]
	cp "$IMG" "$D/magic1.img"
	garble "$D/magic1.img" $((P1 + 64)) 8
	run_volctl_split check "$D/magic1.img"
	[ "$status" -eq 0 ]
	[[ "$err" == *"magic1.img: superblock mirror 1: bad magic"* ]]
}
