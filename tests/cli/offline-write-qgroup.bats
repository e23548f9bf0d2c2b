#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Offline set-default, quota and qgroup writes on mkfs.btrfs images and the
# kernel-made rich4k fixture (no root needed): btrfs check (with its qgroup
# verification) is the oracle; refusals leave the image byte-identical;
# crash loops by fault injection.

load ../helpers
load ../fixtures/fixture-helpers

setup() {
	command -v mkfs.btrfs >/dev/null || skip "needs mkfs.btrfs"
	IMG="$BATS_TEST_TMPDIR/fs.img"
}

mkimg() {
	truncate -s "${1:-256M}" "$IMG"
	shift || true
	mkfs.btrfs -q -f "$@" "$IMG" >/dev/null
}

vc() {
	run_volctl --image "$IMG" "$@"
}

# check_clean: full btrfs check, qgroup numbers included
check_clean() {
	run btrfs check --readonly "$IMG"
	if [ "$status" -ne 0 ] || [[ "$output" == *"are different"* ]]; then
		echo "$output" >&2
		return 1
	fi
}

# qg_raw ID: "rfer excl" of qgroup ID as volctl reads it back
qg_raw() {
	"$VOLCTL" --image "$IMG" qgroup show --raw / | awk -v id="$1" '$1 == id {print $2, $3}'
}

default_location() {
	btrfs inspect-internal dump-tree -t 1 "$IMG" |
		grep -A1 "(ROOT_TREE_DIR DIR_ITEM 2378154706)" | grep -o "location key ([0-9A-Z_]* ROOT_ITEM [0-9]*)"
}

@test "set-default ID PATH and set-default PATH: dir item, incompat flag, check clean" {
	mkimg
	vc subvolume create /a /b /b/inner
	assert_status 0
	vc subvolume set-default 257 /
	assert_status 0
	[ "$(default_location)" = "location key (257 ROOT_ITEM 0)" ]
	btrfs inspect-internal dump-super "$IMG" | grep -q "DEFAULT_SUBVOL"
	check_clean
	vc subvolume get-default /
	assert_output_contains "ID 257 "
	vc subvolume set-default /a
	assert_status 0
	[ "$(default_location)" = "location key (256 ROOT_ITEM 0)" ]
	vc subvolume set-default 0 /
	assert_status 0
	[ "$(default_location)" = "location key (FS_TREE ROOT_ITEM 0)" ]
	check_clean
}

@test "set-default: missing subvolume, not a subvolume path: refused, image unchanged" {
	mkimg
	vc subvolume create /a
	local before
	before=$(sha256sum <"$IMG")
	vc subvolume set-default 999 /
	assert_status 1
	[ "$output" = "error: subvolume 999 does not exist (No such file or directory)" ]
	vc subvolume set-default 1 /
	assert_status 1
	vc subvolume set-default /nope
	assert_status 1
	[ "$(sha256sum <"$IMG")" = "$before" ]
}

@test "quota enable: tree 8 with exact numbers for 0/5 and every subvolume; disable removes it" {
	mkimg
	vc subvolume create /a /a/b /c
	vc quota enable /
	assert_status 0
	check_clean
	run btrfs inspect-internal dump-tree -t 8 "$IMG"
	assert_output_contains "(0 QGROUP_STATUS 0)"
	for id in 0/5 0/256 0/257 0/258; do
		assert_output_contains "(0 QGROUP_INFO $id)"
		assert_output_contains "(0 QGROUP_LIMIT $id)"
	done
	[ "$(qg_raw 0/256)" = "16384 16384" ]
	vc quota status /
	assert_output_contains "Mode:                    qgroup (full accounting)"
	# enabling again changes nothing
	local before
	before=$(sha256sum <"$IMG")
	vc quota enable /
	assert_status 0
	[ "$(sha256sum <"$IMG")" = "$before" ]
	vc quota disable /
	assert_status 0
	check_clean
	run btrfs inspect-internal dump-tree -t 1 "$IMG"
	[[ "$output" != *"(8 ROOT_ITEM"* ]]
	vc quota status /
	[[ "$output" =~ Enabled:\ +no ]]
	vc quota disable /
	assert_status 0
	vc quota enable -s /
	assert_status 0
	vc quota status /
	assert_output_contains "squota (simplified accounting)"
}

@test "quota enable with more qgroups than one leaf holds: items inserted, check clean" {
	mkimg 256M -n 4096 -m single
	local names=()
	for i in $(seq 1 45); do names+=("/s$i"); done
	vc subvolume create "${names[@]}"
	assert_status 0
	vc quota enable /
	assert_status 0
	[ "$(btrfs inspect-internal dump-tree -t 8 "$IMG" | grep -c '^leaf ')" -gt 1 ]
	check_clean
	[ "$(qg_raw 0/300)" = "4096 4096" ]
	[ "$("$VOLCTL" --image "$IMG" qgroup show --raw / | grep -c '^0/')" -eq 46 ]
}

@test "qgroup writes without quotas: refused naming the cause" {
	mkimg
	local before
	before=$(sha256sum <"$IMG")
	for cmd in "qgroup create 1/1 /" "qgroup destroy 1/1 /" "qgroup assign 0/5 1/1 /" \
		"qgroup limit 1M 0/5 /" "quota rescan /"; do
		# shellcheck disable=SC2086
		vc $cmd
		[ "$status" -eq 1 ] || { echo "$cmd: $status" >&2; return 1; }
		assert_output_contains "quota is not enabled"
	done
	[ "$(sha256sum <"$IMG")" = "$before" ]
}

@test "qgroup create, destroy: items, messages as online, refusals change nothing" {
	mkimg
	vc subvolume create /a
	vc quota enable /
	vc qgroup create 1/1 /
	assert_status 0
	run btrfs inspect-internal dump-tree -t 8 "$IMG"
	assert_output_contains "(0 QGROUP_INFO 1/1)"
	assert_output_contains "(0 QGROUP_LIMIT 1/1)"
	check_clean
	vc qgroup assign 0/256 1/1 /
	assert_status 0
	local before
	before=$(sha256sum <"$IMG")
	vc qgroup create 1/1 /
	assert_status 1
	[ "$output" = "error: qgroup 1/1 already exists (File exists)" ]
	vc qgroup create 0/300 /
	assert_status 1
	assert_output_contains "level-0 qgroups belong to subvolumes"
	vc qgroup destroy 1/1 /
	assert_status 1
	assert_output_contains "qgroup 1/1 still has members (0/256)"
	vc qgroup destroy 0/256 /
	assert_status 1
	assert_output_contains "qgroup 0/256 belongs to subvolume 256"
	vc qgroup destroy 1/9 /
	assert_status 1
	[ "$output" = "error: qgroup 1/9 does not exist (No such file or directory)" ]
	[ "$(sha256sum <"$IMG")" = "$before" ]
	vc qgroup remove 0/256 1/1 /
	assert_status 0
	vc qgroup destroy 1/1 /
	assert_status 0
	run btrfs inspect-internal dump-tree -t 8 "$IMG"
	[[ "$output" != *"1/1"* ]]
	check_clean
}

@test "qgroup destroy of a group with parents drops its relations (kernel 6.18)" {
	mkimg
	vc subvolume create /a
	vc quota enable /
	vc qgroup create 1/1 /
	vc qgroup create 2/1 /
	vc qgroup assign 0/256 1/1 /
	vc qgroup assign 1/1 2/1 /
	[ "$(qg_raw 2/1)" = "16384 16384" ]
	vc qgroup remove 0/256 1/1 /
	vc qgroup destroy 1/1 /
	assert_status 0
	[ "$(qg_raw 2/1)" = "0 0" ]
	run btrfs inspect-internal dump-tree -t 8 "$IMG"
	[[ "$output" != *"QGROUP_RELATION"* ]]
	check_clean
}

@test "qgroup assign/remove: both relation items, parents and ancestors exact" {
	mkimg
	vc subvolume create /a /b
	vc quota enable /
	vc qgroup create 1/1 /
	vc qgroup create 2/1 /
	vc qgroup assign 1/1 2/1 /
	assert_status 0
	vc qgroup assign 0/256 1/1 /
	assert_status 0
	[ -z "$output" ]
	vc qgroup assign /b 1/1 /
	assert_status 0
	[ "$(qg_raw 1/1)" = "32768 32768" ]
	[ "$(qg_raw 2/1)" = "32768 32768" ]
	run btrfs inspect-internal dump-tree -t 8 "$IMG"
	assert_output_contains "(0/256 QGROUP_RELATION 1/1)"
	assert_output_contains "(1/1 QGROUP_RELATION 0/256)"
	check_clean
	# a subvolume already below 2/1 through 1/1: the numbers do not double
	vc qgroup assign 0/256 2/1 /
	assert_status 0
	[ "$(qg_raw 2/1)" = "32768 32768" ]
	check_clean
	vc qgroup remove 0/256 1/1 /
	assert_status 0
	[ "$(qg_raw 1/1)" = "16384 16384" ]
	[ "$(qg_raw 2/1)" = "32768 32768" ]
	check_clean
	local before
	before=$(sha256sum <"$IMG")
	vc qgroup assign 0/257 1/1 /
	assert_status 1
	[ "$output" = "error: qgroup 0/257 is already a member of 1/1 (File exists)" ]
	vc qgroup remove 0/256 1/1 /
	assert_status 1
	[ "$output" = "error: qgroup 0/256 is not a member of 1/1 (No such file or directory)" ]
	vc qgroup assign 0/999 1/1 /
	assert_status 1
	[ "$output" = "error: qgroup 0/999 does not exist (Invalid argument)" ]
	vc qgroup assign 1/1 1/2 /
	assert_status 2
	[ "$(sha256sum <"$IMG")" = "$before" ]
}

@test "qgroup limit: flags and values as the kernel writes them; none clears" {
	mkimg
	vc subvolume create /a
	vc quota enable /
	vc qgroup create 1/100 /
	vc qgroup limit 100M /a /
	assert_status 0
	vc qgroup limit -e 50M 1/100 /
	assert_status 0
	vc qgroup limit -c 1G 0/5 /
	assert_status 0
	run btrfs inspect-internal dump-tree -t 8 "$IMG"
	run sh -c "btrfs inspect-internal dump-tree -t 8 '$IMG' | grep -A2 QGROUP_LIMIT | tr -s ' \t\n' ' '"
	assert_output_contains "(0 QGROUP_LIMIT 0/5) itemoff 16083 itemsize 40 flags 31 max_referenced 1073741824 max_exclusive 0"
	assert_output_contains "(0 QGROUP_LIMIT 0/256) itemoff 16043 itemsize 40 flags 1 max_referenced 104857600 max_exclusive 0"
	assert_output_contains "(0 QGROUP_LIMIT 1/100) itemoff 16003 itemsize 40 flags 2 max_referenced 0 max_exclusive 52428800"
	check_clean
	vc qgroup show -re --raw /
	assert_output_contains "104857600"
	vc qgroup limit none /a /
	assert_status 0
	run btrfs inspect-internal dump-tree -t 8 "$IMG"
	[[ "$output" != *"max_referenced 104857600"* ]]
	vc qgroup limit 1M 1/7 /
	assert_status 1
	[ "$output" = "error: qgroup 1/7 does not exist (No such file or directory)" ]
}

@test "limits are exact offline: an assign past a limit is refused, naming group, limit, overshoot" {
	mkimg
	vc subvolume create /a /b
	vc quota enable /
	vc qgroup create 1/1 /
	vc qgroup limit 20K 1/1 /
	vc qgroup assign 0/256 1/1 /
	assert_status 0
	local before
	before=$(sha256sum <"$IMG")
	vc qgroup assign 0/257 1/1 /
	assert_status 1
	[ "$output" = "error: qgroup 1/1: referenced limit 20480 would be exceeded by 12288 bytes (Disk quota exceeded)" ]
	[ "$(sha256sum <"$IMG")" = "$before" ]
	vc qgroup limit -e 16K 1/1 /
	vc qgroup limit none 1/1 /
	vc qgroup assign 0/257 1/1 /
	assert_status 1
	assert_output_contains "exclusive limit 16384 would be exceeded by 16384 bytes"
}

@test "kernel-made fixture with snapshots: relation changes recomputed by the engine, check agrees" {
	fixture rich4k
	run_volctl "${IMGS[@]}" qgroup remove 0/261 1/100 /
	assert_status 0
	run_volctl "${IMGS[@]}" qgroup assign 0/262 1/100 /
	assert_status 0
	[ "$(qg_raw 1/100)" = "204800 8192" ]
	[ "$(qg_raw 2/1)" = "471040 12288" ]
	run btrfs check --qgroup-report "$IMG"
	[[ "$output" != *"are different"* ]]
	check_clean
	run_volctl "${IMGS[@]}" quota rescan -w /
	assert_status 0
	[ "$(qg_raw 1/100)" = "204800 8192" ]
	check_clean
}

@test "quota rescan on an mkfs -R quota image: exact numbers kept, status ON, check clean" {
	mkimg 256M -R quota
	vc subvolume create /a /b
	vc qgroup create 1/1 /
	vc qgroup assign 0/256 1/1 /
	check_clean
	[ "$(btrfs inspect-internal dump-tree -t 8 "$IMG" | grep -c "QGROUP_INFO")" -eq 4 ]
	vc quota rescan /
	assert_status 0
	assert_output_contains "quota rescan started"
	vc quota rescan -w /
	assert_status 0
	[ "$(qg_raw 1/1)" = "16384 16384" ]
	run btrfs inspect-internal dump-tree -t 8 "$IMG"
	assert_output_contains "flags ON"
	[[ "$output" != *"INCONSISTENT"* ]]
	check_clean
}

# crash_loop STATE_FN CMD...: run CMD with the fault switch failing after
# 1, 2, ... device writes; after each, btrfs check is clean and STATE_FN
# says "old" or "new", never anything else, until CMD succeeds.
crash_loop() {
	local state_fn=$1
	shift
	require_fault_injection
	cp "$IMG" "$BATS_TEST_TMPDIR/pristine.img"
	CRASH_STATE=$state_fn CRASH_CHECK=check_clean CRASH_MAX=300 \
		crash_loop_writes --image @IMG@ "$@"
	[ "$CRASH_OLDS" -gt 3 ]
	[ "$CRASH_NEWS" -ge 1 ]
}

default_state() {
	case $(default_location) in
	"location key (FS_TREE ROOT_ITEM "*) echo old ;;
	"location key (257 ROOT_ITEM 0)")
		btrfs inspect-internal dump-super "$IMG" | grep -q DEFAULT_SUBVOL && echo new ||
			echo "mixed: no incompat flag" ;;
	*) echo "mixed: $(default_location)" ;;
	esac
}

assign_state() {
	local rels nums
	rels=$(btrfs inspect-internal dump-tree -t 8 "$IMG" | grep -c "QGROUP_RELATION") || true
	nums=$(qg_raw 1/1)
	if [ "$rels" -eq 0 ] && [ "$nums" = "0 0" ]; then
		echo old
	elif [ "$rels" -eq 2 ] && [ "$nums" = "16384 16384" ]; then
		echo new
	else
		echo "mixed rels=$rels nums=$nums"
	fi
}

@test "crash after every device write: set-default is old or new, never a mix" {
	mkimg
	vc subvolume create /a /b
	crash_loop default_state subvolume set-default 257 /
}

@test "crash after every device write: qgroup assign is old or new, never a mix" {
	mkimg 256M -m single
	vc subvolume create /a
	vc quota enable /
	vc qgroup create 1/1 /
	crash_loop assign_state qgroup assign 0/256 1/1 /
}

@test "subvolume create under a limited parent: the kernel's 3-block reservation is refused past the limit" {
	mkimg
	vc subvolume create /a
	vc quota enable /
	vc qgroup limit 48K /a /
	local before
	before=$(sha256sum <"$IMG")
	vc subvolume create /a/x
	assert_status 1
	[[ "$output" == "error: /a/x: Disk quota exceeded: qgroup 0/256 limit referenced 48.00KiB (used "*"KiB, over by 16384 bytes); raise it with: volctl --image $IMG qgroup limit <size>|none 0/256 /a" ]]
	[ "$(sha256sum <"$IMG")" = "$before" ]
	vc qgroup limit 64K /a /
	vc subvolume create /a/x
	assert_status 0
	check_clean
	# inherited groups are checked too (the kernel does not check them)
	vc qgroup create 1/1 /
	vc qgroup limit 8K 1/1 /
	before=$(sha256sum <"$IMG")
	vc subvolume create -i 1/1 /z
	assert_status 1
	[ "$output" = "error: /z: Disk quota exceeded: qgroup 1/1 limit referenced 8.00KiB (used 0.00B, over by 8192 bytes); raise it with: volctl --image $IMG qgroup limit <size>|none 1/1 /" ]
	[ "$(sha256sum <"$IMG")" = "$before" ]
	vc qgroup limit 16K 1/1 /
	vc subvolume create -i 1/1 /z
	assert_status 0
	[ "$(qg_raw 1/1)" = "16384 16384" ]
	check_clean
}
