#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Global options: the long forms work after the group and the command too
# (as every command's --help says of --format json), and -q silences the
# normal output of every command, text and JSON alike.  No root needed.

load ../helpers
load ../fixtures/fixture-helpers

setup() {
	fixture rich4k
}

@test "global options after the group or the command give what they give before it" {
	local before
	before=$("$VOLCTL" --format json --image "$IMG" qgroup show /)
	[ "$("$VOLCTL" --image "$IMG" qgroup show --format json /)" = "$before" ]
	[ "$("$VOLCTL" qgroup --format=json show --image "$IMG" /)" = "$before" ]
	[ "$("$VOLCTL" qgroup show / --image="$IMG" --format json)" = "$before" ]
	[ "$("$VOLCTL" --image "$IMG" subvolume list --format json /)" = \
	  "$("$VOLCTL" --format json --image "$IMG" subvolume list /)" ]
	[ "$("$VOLCTL" check "$IMG" --format json)" = "$("$VOLCTL" --format json check "$IMG")" ]
	[ -z "$("$VOLCTL" --image "$IMG" subvolume list / --quiet)" ]
	# after "--" they are arguments again
	run_volctl --image "$IMG" qgroup show / -- --format
	assert_status 2
	run_volctl --image "$IMG" qgroup show --format yaml /
	assert_status 2
	assert_output_contains "invalid output format 'yaml'"
	run_volctl --image "$IMG" qgroup show / --format
	assert_status 2
	assert_output_contains "global option '--format' requires an argument"
}

@test "-q: no normal output from any command, text or JSON; errors still shown" {
	local c fails=""
	while IFS= read -r c; do
		# shellcheck disable=SC2086
		[ -z "$("$VOLCTL" -q --image "$IMG" $c 2>/dev/null)" ] || fails="$fails|$c"
		# shellcheck disable=SC2086
		[ -z "$("$VOLCTL" -q --format json --image "$IMG" $c 2>/dev/null)" ] || fails="$fails|json $c"
	done <<'LIST'
subvolume list /
subvolume show /a
subvolume get-default /
qgroup show /
qgroup show --tree /
qgroup show --compute /
qgroup headroom /a
quota status /
quota rescan -s /
subvolume delete --dry-run /a
LIST
	for c in "inspect super $IMG" "inspect tree -t root $IMG" "check $IMG"; do
		# shellcheck disable=SC2086
		[ -z "$("$VOLCTL" -q $c 2>/dev/null)" ] || fails="$fails|$c"
		# shellcheck disable=SC2086
		[ -z "$("$VOLCTL" -q --format json $c 2>/dev/null)" ] || fails="$fails|json $c"
	done
	[ -z "$fails" ] || { echo "printed despite -q: $fails"; return 1; }
	# writes are silent too and still happen
	cp "$IMG" "$BATS_TEST_TMPDIR/w.img"
	run_volctl -q --image "$BATS_TEST_TMPDIR/w.img" subvolume create /new
	assert_status 0
	[ -z "$output" ]
	[[ "$("$VOLCTL" --image "$BATS_TEST_TMPDIR/w.img" subvolume list /)" == *" new"* ]]
	run_volctl_split -q --image "$IMG" subvolume show /missing
	[ "$status" -eq 1 ]
	[[ "$err" == *"error:"* ]]
	run_volctl -q --help
	assert_output_contains "usage: volctl"
}
