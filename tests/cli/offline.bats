#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# volctl --image: every read-only command on the committed fixtures gives
# exactly the output the online commands gave on the mounted image
# (tests/expected/<fixture>/, recorded by tests/fixtures/make-fixtures.sh),
# and never changes a byte of the image.  No root needed.

load ../helpers
load ../fixtures/fixture-helpers

# compare_fixture NAME: run every line of commands.list offline
compare_fixture() {
	local name=$1 line cname args rc want_rc fails=0
	fixture "$name"
	local before
	before=$(image_sum)
	while IFS= read -r line; do
		case $line in '#'*|'') continue ;; esac
		cname=${line%%|*}
		args=${line#*|}
		args=${args//@/}
		[ -e "$EXPECTED/$name/$cname.out" ] || continue
		# shellcheck disable=SC2086
		rc=0
		"$VOLCTL" "${IMGS[@]}" $args >"$BATS_TEST_TMPDIR/$cname.out" \
			2>"$BATS_TEST_TMPDIR/$cname.err" || rc=$?
		want_rc=$(cat "$EXPECTED/$name/$cname.rc")
		if [ "$rc" -ne "$want_rc" ]; then
			echo "$name/$cname: exit $rc, online $want_rc: $(head -c 300 "$BATS_TEST_TMPDIR/$cname.err")" >&2
			fails=$((fails + 1))
			continue
		fi
		if ! diff -u "$EXPECTED/$name/$cname.out" "$BATS_TEST_TMPDIR/$cname.out" >&2; then
			echo "$name/$cname: output differs (volctl ${IMGS[*]} $args)" >&2
			fails=$((fails + 1))
		fi
	done <"$FIXTURES/commands.list"
	[ "$(image_sum)" = "$before" ] || { echo "$name: image changed" >&2; return 1; }
	[ "$fails" -eq 0 ]
}

@test "offline = online: rich4k (4k nodes, quotas, hierarchy, limits, default, deleted subvolume)" {
	compare_fixture rich4k
}

@test "offline = online: noquota16k (16k nodes, DUP metadata, quotas off)" {
	compare_fixture noquota16k
}

@test "offline = online: csum-xxhash" {
	compare_fixture csum-xxhash
}

@test "offline = online: csum-sha256" {
	compare_fixture csum-sha256
}

@test "offline = online: csum-blake2" {
	compare_fixture csum-blake2
}

@test "offline = online: raid1 (two devices, RAID1 metadata)" {
	compare_fixture raid1
}

@test "offline = online: multi4k (300 subvolumes, multi-level trees)" {
	compare_fixture multi4k
}

@test "offline: the image is unchanged (sha256 recorded at build time)" {
	fixture rich4k
	run_volctl "${IMGS[@]}" subvolume list /
	run_volctl "${IMGS[@]}" qgroup show -pcre /
	run_volctl "${IMGS[@]}" --format json subvolume show /snap-a
	want=$(awk '{print $1}' "$EXPECTED/rich4k/sha256")
	[ "$(sha256sum "$IMG" | awk '{print $1}')" = "$want" ]
}

@test "offline: path resolution through subvolume boundaries" {
	fixture rich4k
	run_volctl "${IMGS[@]}" subvolume show /d1/d2/d3/d4/d5/deep/inner
	assert_status 0
	assert_output_contains "Subvolume ID: 		259"
	run_volctl "${IMGS[@]}" subvolume show //a/./dir/../dir/nested/
	assert_status 0
	assert_output_contains "Name: 			nested"
	run_volctl "${IMGS[@]}" subvolume show /a/dir/nested/../..
	assert_status 0
	assert_output_contains "Name: 			a"
}

@test "offline: missing path names the image" {
	fixture rich4k
	run_volctl "${IMGS[@]}" subvolume list /a/b
	assert_status 1
	assert_output_contains "/a/b: No such file or directory in $IMG"
	run_volctl "${IMGS[@]}" subvolume show /a/file0/x
	assert_status 1
	assert_output_contains "Not a directory"
}

@test "offline: --super 1 reads the first mirror" {
	fixture rich4k
	run_volctl "${IMGS[@]}" --super 1 subvolume list /
	assert_status 0
	assert_output_contains "path snap-a"
	run_volctl "${IMGS[@]}" --super 2 subvolume list /
	assert_status 1
	assert_output_contains "superblock mirror 2 lies beyond the end of the device"
}

@test "offline: raid1 with one device given still reads (mirror copies)" {
	fixture raid1
	run_volctl --image "$IMG" subvolume list /
	assert_status 0
	assert_output_contains "path snap-a"
}

@test "offline: write commands refuse with not implemented" {
	fixture rich4k
	before=$(image_sum)
	for cmd in "subvolume delete /a" "subvolume snapshot /a /y"; do
		# shellcheck disable=SC2086
		run_volctl "${IMGS[@]}" $cmd
		[ "$status" -ne 0 ] || { echo "$cmd succeeded" >&2; return 1; }
		[[ "$output" == *"not implemented"* || "$output" == *"not available with --image"* ]] ||
			{ echo "$cmd: $output" >&2; return 1; }
	done
	[ "$(image_sum)" = "$before" ]
}

@test "offline: not a btrfs image, missing image" {
	head -c 2M /dev/zero >"$BATS_TEST_TMPDIR/zero.img"
	run_volctl --image "$BATS_TEST_TMPDIR/zero.img" subvolume list /
	assert_status 1
	assert_output_contains "zero.img: not a btrfs filesystem (no valid superblock)"
	run_volctl --image "$BATS_TEST_TMPDIR/nope.img" subvolume list /
	assert_status 1
	assert_output_contains "nope.img: No such file or directory"
}

@test "offline = online: squota4k (simple quotas, deleted subvolume)" {
	compare_fixture squota4k
}

@test "offline = online: node64k-nofst (64k nodes, free-space tree off)" {
	compare_fixture node64k-nofst
}
