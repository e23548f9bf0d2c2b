#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# --wait[=SECONDS]: an offline writer waits for another writer's claim on the
# image, like flock -w, instead of failing at once; the message still names
# the holder.  No root needed: the claim on a regular file is a flock().

load ../helpers

setup() {
	IMG="$BATS_TEST_TMPDIR/w.img"
	"$VOLCTL" mkfs -s 256M "$IMG" >/dev/null
	cd "$BATS_TEST_TMPDIR"
}

teardown() {
	touch "$BATS_TEST_TMPDIR/go"
	[ -z "${HOLDER:-}" ] || wait "$HOLDER" 2>/dev/null || true
}

# hold IMG's lock (as another writer would) until the file "go" appears
hold() {
	rm -f go released
	flock "$IMG" sh -c 'while [ ! -e go ]; do sleep 0.05; done; touch released' &
	HOLDER=$!
	# until the lock is taken
	while flock -n "$IMG" true; do sleep 0.02; done
}

@test "without --wait a held image fails at once, naming the holder" {
	hold
	before=$(sha256sum <"$IMG")
	run_volctl_split --image "$IMG" subvolume create /a
	[ "$status" -eq 1 ]
	[ "$(printf '%s\n' "$err" | grep -c .)" -eq 1 ]
	[[ "$err" == "error: $IMG: in use by flock (pid "*")"* ]]
	[[ "$err" != *waiting* ]]
	[ "$(sha256sum <"$IMG")" = "$before" ]
}

@test "--wait=SECONDS gives up after SECONDS, naming the holder and the wait" {
	hold
	before=$(sha256sum <"$IMG")
	run_volctl_split --wait=0.3 --image "$IMG" subvolume create /a
	[ "$status" -eq 1 ]
	[[ "$err" == "error: $IMG: in use by flock (pid "*"); still held after waiting 0.3 s"* ]]
	[ "$(sha256sum <"$IMG")" = "$before" ]
	[ ! -e released ]
}

@test "--wait waits until the holder lets go, then writes" {
	hold
	"$VOLCTL" --wait --image "$IMG" subvolume create /a >out 2>errs &
	writer=$!
	sleep 0.5
	# still waiting, nothing written
	kill -0 "$writer"
	[ ! -s out ]
	touch go
	wait "$writer"
	# the holder was done before the write
	[ -e released ]
	run_volctl --image "$IMG" subvolume list /
	assert_status 0
	[[ "$output" == *" path a" ]]
}

@test "--wait=SECONDS for mkfs and check --repair-qgroups; after the command it is the command's" {
	hold
	run_volctl_split --image "$IMG" subvolume create --wait=1 /c
	[ "$status" -eq 2 ]
	"$VOLCTL" --wait=30 --image "$IMG" subvolume create /b >/dev/null 2>errs &
	writer=$!
	run_volctl_split --wait=0.2 mkfs -f "$IMG"
	[ "$status" -eq 1 ]
	[[ "$err" == *"$IMG: in use by flock"*"still held after waiting 0.2 s"* ]]
	run_volctl_split --wait=0.2 check --repair-qgroups "$IMG"
	[ "$status" -ne 0 ]
	[[ "$err" == *"$IMG: in use by flock"*"still held after waiting 0.2 s"* ]]
	touch go
	wait "$writer"
	run_volctl --image "$IMG" subvolume show /b
	assert_status 0
}

@test "parallel writers with --wait all succeed, one after another" {
	local pids=() i
	for i in 1 2 3 4 5 6; do
		"$VOLCTL" --wait=60 --image "$IMG" subvolume create "/p$i" >/dev/null &
		pids+=($!)
	done
	for i in "${pids[@]}"; do
		wait "$i"
	done
	run_volctl --image "$IMG" subvolume list /
	assert_status 0
	[ "$(grep -c ' path p[1-6]$' <<<"$output")" -eq 6 ]
	run_volctl check "$IMG"
	assert_status 0
}

@test "readers do not wait and are not blocked" {
	hold
	run_volctl --image "$IMG" subvolume list /
	assert_status 0
}

@test "--wait: bad values and no image are usage errors" {
	run_volctl_split --wait=abc --image "$IMG" subvolume create /a
	[ "$status" -eq 2 ]
	[[ "$err" == *"invalid --wait 'abc'"* ]]
	run_volctl_split --wait=-1 --image "$IMG" subvolume create /a
	[ "$status" -eq 2 ]
	run_volctl_split --wait=1e3 --image "$IMG" subvolume create /a
	[ "$status" -eq 2 ]
	run_volctl_split --wait subvolume create "$BATS_TEST_TMPDIR/x"
	[ "$status" -eq 2 ]
	[[ "$err" == *"--wait needs --image"* ]]
}
