#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Offline `subvolume create A B C...`: every path in one transaction (one
# commit, two flushes, instead of one commit per path); when any path
# fails, nothing of that transaction is written and the paths are created
# one by one, so each error is reported as before and the others are still
# created.  No root needed; btrfs check is the oracle.

load ../helpers

setup() {
	command -v mkfs.btrfs >/dev/null || skip "needs mkfs.btrfs"
	IMG="$BATS_TEST_TMPDIR/fs.img"
	truncate -s 512M "$IMG"
	mkfs.btrfs -q -f "$IMG" >/dev/null
}

check_clean() {
	run btrfs check --readonly "$IMG"
	if [ "$status" -ne 0 ]; then
		echo "$output" >&2
		return 1
	fi
}

# generations ("gen N") of the listed subvolumes, distinct, one per line
list_gens() {
	"$VOLCTL" --image "$IMG" subvolume list / | awk '{ print $4 }' | sort -u
}

@test "create several: one commit, nested paths of the same call, exact qgroups" {
	run_volctl --image "$IMG" quota enable /
	assert_status 0
	run_volctl --image "$IMG" subvolume create /a /a/b /c /a/b/d /a/e
	assert_status 0
	[ "$output" = "Create subvolume '/a'
Create subvolume '/a/b'
Create subvolume '/c'
Create subvolume '/a/b/d'
Create subvolume '/a/e'" ]
	[ "$(list_gens | wc -l)" -eq 1 ]
	run_volctl --image "$IMG" subvolume list /
	assert_status 0
	[ "$(printf '%s\n' "$output" | awk '{ print $NF }' | tr '\n' ' ')" = "a a/b c a/b/d a/e " ]
	check_clean
	run_volctl check "$IMG"
	assert_status 0
	run_volctl --image "$IMG" quota status /
	assert_output_contains "Inconsistent:            no"
}

@test "create several with -i: every new subvolume joins the qgroup" {
	run_volctl --image "$IMG" quota enable /
	assert_status 0
	run_volctl --image "$IMG" qgroup create 1/1 /
	assert_status 0
	run_volctl --image "$IMG" subvolume create -i 1/1 /x /y /z
	assert_status 0
	[ "$(list_gens | wc -l)" -eq 1 ]
	run_volctl --image "$IMG" qgroup show -c --raw /
	assert_status 0
	assert_output_contains "0/256,0/257,0/258"
	check_clean
	run_volctl check "$IMG"
	assert_status 0
}

@test "create several, one exists: it is reported, the others are created" {
	run_volctl --image "$IMG" subvolume create /x
	assert_status 0
	run_volctl --image "$IMG" subvolume create /a /x /b
	assert_status 1
	assert_output_contains "Create subvolume '/a'"
	assert_output_contains "Create subvolume '/b'"
	assert_output_contains "/x"
	[ "$(printf '%s\n' "$output" | grep -c '^ERROR\|error')" -eq 1 ]
	run_volctl --image "$IMG" subvolume list /
	[ "$(printf '%s\n' "$output" | awk '{ print $NF }' | tr '\n' ' ')" = "x a b " ]
	check_clean
}

@test "create several, a parent is missing: only that one fails" {
	run_volctl --image "$IMG" subvolume create /a /nodir/b /c
	assert_status 1
	assert_output_contains "nodir"
	run_volctl --image "$IMG" subvolume list /
	[ "$(printf '%s\n' "$output" | awk '{ print $NF }' | tr '\n' ' ')" = "a c " ]
	check_clean
}

@test "create several, all fail: the image is byte-identical" {
	run_volctl --image "$IMG" subvolume create /x
	assert_status 0
	cp "$IMG" "$BATS_TEST_TMPDIR/before.img"
	run_volctl --image "$IMG" subvolume create /x /nodir/y
	assert_status 1
	cmp "$IMG" "$BATS_TEST_TMPDIR/before.img"
}

@test "create several, crash after every device write: each path old or new, check clean" {
	cp "$IMG" "$BATS_TEST_TMPDIR/probe.img"
	if VOLCTL_FAIL_AFTER_WRITES=1 "$VOLCTL" --image "$BATS_TEST_TMPDIR/probe.img" \
		subvolume create /probe 2>/dev/null; then
		skip "built without --enable-fault-injection"
	fi
	cp "$IMG" "$BATS_TEST_TMPDIR/pristine.img"
	local n=1 rc names olds=0
	while [ "$n" -lt 200 ]; do
		cp "$BATS_TEST_TMPDIR/pristine.img" "$IMG"
		rc=0
		VOLCTL_FAIL_AFTER_WRITES=$n "$VOLCTL" --image "$IMG" subvolume create /a /b /c \
			>/dev/null 2>&1 || rc=$?
		check_clean
		names=$("$VOLCTL" --image "$IMG" subvolume list / | awk '{ print $NF }' | tr '\n' ' ')
		case "$names" in
		"") olds=$((olds + 1)) ;;
		"a " | "b " | "c " | "a b " | "a c " | "b c " | "a b c ") ;;
		*) echo "after $n writes: '$names'" >&2; return 1 ;;
		esac
		if [ "$rc" -eq 0 ]; then
			# the one-commit path, or path by path once it failed
			[ "$names" = "a b c " ]
			break
		fi
		[ "$rc" -eq 1 ]
		n=$((n + 1))
	done
	[ "$rc" -eq 0 ]
	[ "$olds" -gt 3 ]
}
