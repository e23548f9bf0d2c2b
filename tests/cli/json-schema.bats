#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The one JSON contract: every document of every command that supports
# --format json validates against Documentation/volctl.schema.json (snake_case
# member names at every depth, unset values null, header version 3); the
# version-1 documents only with --format json-v1.  No root needed.

load ../helpers
load ../fixtures/fixture-helpers

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
SCHEMA=$TOP/Documentation/volctl.schema.json

# validate NAME: keep the document on stdin for validate_done
validate() {
	local f=$BATS_TEST_TMPDIR/docs/$1.json
	mkdir -p "$BATS_TEST_TMPDIR/docs"
	cat >"$f"
	[ -s "$f" ] || { echo "$1: no document"; return 1; }
}

# validate_done: every kept document against the schema, in one python run
# (each run costs about a second of interpreter and jsonschema start)
validate_done() {
	local rc=0 n
	n=$(find "$BATS_TEST_TMPDIR/docs" -name '*.json' | wc -l)
	[ "$n" -gt 0 ] || { echo "no documents kept"; return 1; }
	python3 "$TOP/tests/json-validate.py" "$SCHEMA" "$BATS_TEST_TMPDIR"/docs/*.json || rc=$?
	[ "$rc" -ne 77 ] || skip "needs python3-jsonschema"
	[ "$rc" -eq 0 ] || { echo "of $n documents, those above do not validate"; return 1; }
}

# Every command with JSON, on fixture $1 (offline)
validate_all() {
	local n=$1 img a files=()
	fixture "$n"
	img=$IMG
	for a in "${IMGS[@]}"; do
		[ "$a" = --image ] || files+=("$a")
	done
	"$VOLCTL" "${IMGS[@]}" --format json subvolume list -a / | validate "$n-list"
	"$VOLCTL" "${IMGS[@]}" --format json subvolume list -d / | validate "$n-list-d"
	"$VOLCTL" "${IMGS[@]}" --format json subvolume show / | validate "$n-show-top"
	"$VOLCTL" "${IMGS[@]}" --format json subvolume show /a | validate "$n-show"
	"$VOLCTL" "${IMGS[@]}" --format json subvolume get-default / | validate "$n-getdef"
	"$VOLCTL" "${IMGS[@]}" --format json subvolume delete --dry-run /a /snap-a | validate "$n-dry"
	"$VOLCTL" "${IMGS[@]}" --format json subvolume prune --keep-last 1 --dry-run /a |
		validate "$n-prune"
	"$VOLCTL" "${IMGS[@]}" --format json subvolume space / | validate "$n-space"
	"$VOLCTL" "${IMGS[@]}" --format json qgroup show --compute / | validate "$n-compute"
	"$VOLCTL" "${IMGS[@]}" --format json quota status / | validate "$n-status"
	"$VOLCTL" --format json check "${files[@]}" | validate "$n-check"
	"$VOLCTL" --format json inspect super --all "$img" | validate "$n-super"
	"$VOLCTL" --format json inspect tree -t root "${files[@]}" | validate "$n-tree"
	"$VOLCTL" --format json inspect tree --walk-only "${files[@]}" | validate "$n-walk"
	if "$VOLCTL" "${IMGS[@]}" quota status --is-enabled /; then
		"$VOLCTL" "${IMGS[@]}" --format json qgroup show / | validate "$n-qgroup"
		"$VOLCTL" "${IMGS[@]}" --format json qgroup show -F /a | validate "$n-qgroup-F"
	fi
	"$VOLCTL" "${IMGS[@]}" --format json qgroup headroom /a | validate "$n-headroom"
}

@test "json schema: every command's document validates (rich4k: quotas, limits, deleted subvolume)" {
	validate_all rich4k
	# the one writing command with JSON
	cp "$IMG" "$BATS_TEST_TMPDIR/w.img"
	"$VOLCTL" --format json check --repair-qgroups "$BATS_TEST_TMPDIR/w.img" | validate repair
	validate_done
}

@test "json schema: noquota16k, squota4k and raid1 (two devices) validate too" {
	validate_all noquota16k
	validate_all squota4k
	validate_all raid1
	validate_done
}

@test "json schema: unset values are null, member names snake_case, version 3, no version-1 twin" {
	fixture rich4k
	local doc
	doc=$("$VOLCTL" "${IMGS[@]}" --format json subvolume show /)
	[ "$(jq -r '.__header.version' <<<"$doc")" = 3 ]
	# the top level has no parent and was never sent: null, not 0
	[ "$(jq -c '.subvolume_show | [.parent, .top_level, .dirid, .stransid, .stime_sec]' <<<"$doc")" = \
	  "[null,null,null,null,null]" ]
	[ "$(jq -c 'keys' <<<"$doc")" = '["__header","subvolume_show"]' ]
	doc=$("$VOLCTL" "${IMGS[@]}" --format json subvolume show /a)
	[ "$(jq -c '.subvolume_show.qgroup.limit' <<<"$doc")" = '{"referenced":10485760,"exclusive":null}' ]
	[ "$(jq -r '.subvolume_show.absolute_path' <<<"$doc")" = /a ]
	doc=$("$VOLCTL" "${IMGS[@]}" --format json qgroup show /)
	[ "$(jq -c 'keys' <<<"$doc")" = '["__header","qgroup_show","quota"]' ]
	[ "$(jq -r '.qgroup_show[] | select(.qgroupid == "0/256") | .absolute_path' <<<"$doc")" = /a ]
	for c in "subvolume list /" "subvolume get-default /" "quota status /"; do
		# shellcheck disable=SC2086
		doc=$("$VOLCTL" "${IMGS[@]}" --format json $c)
		[ "$(jq -r '[keys[] | select(test("-"))] | length' <<<"$doc")" = 0 ]
	done
}

@test "json schema: --format json-v1 prints the version-1 documents alone (deprecated)" {
	fixture rich4k
	local doc
	doc=$("$VOLCTL" "${IMGS[@]}" --format json-v1 subvolume show /)
	[ "$(jq -c 'keys' <<<"$doc")" = '["__header","subvolume-show"]' ]
	[ "$(jq -r '.__header.version' <<<"$doc")" = 1 ]
	# version-1 values: 0 for unset
	[ "$(jq -c '."subvolume-show" | [.parent, .top_level, .dirid, .stransid, .stime_sec]' <<<"$doc")" = \
	  "[0,0,0,0,0]" ]
	doc=$("$VOLCTL" "${IMGS[@]}" --format json-v1 subvolume show /a)
	[ "$(jq -c '."subvolume-show".qgroup.limit' <<<"$doc")" = '{"referenced":10485760,"exclusive":0}' ]
	# the same rows as version 3, under the old name
	[ "$("$VOLCTL" "${IMGS[@]}" --format json-v1 qgroup show / | jq -c '."qgroup-show"')" = \
	  "$("$VOLCTL" "${IMGS[@]}" --format json qgroup show / | jq -c '.qgroup_show')" ]
	[ "$("$VOLCTL" "${IMGS[@]}" --format json-v1 subvolume list / | jq -c '[."subvolume-list"[].id]')" = \
	  "$("$VOLCTL" "${IMGS[@]}" --format json subvolume list / | jq -c '[.subvolume_list[].id]')" ]
	doc=$("$VOLCTL" "${IMGS[@]}" --format json-v1 subvolume get-default /)
	[ "$(jq -c 'keys' <<<"$doc")" = '["__header","subvolume-get-default"]' ]
	doc=$("$VOLCTL" "${IMGS[@]}" --format json-v1 quota status /)
	[ "$(jq -c 'keys' <<<"$doc")" = '["__header","quota-status"]' ]
	# a document that never had a version-1 name is the same in both
	[ "$("$VOLCTL" "${IMGS[@]}" --format json-v1 subvolume space /)" = \
	  "$("$VOLCTL" "${IMGS[@]}" --format json subvolume space /)" ]
	# the text is untouched; a typo is a usage error
	[ "$("$VOLCTL" "${IMGS[@]}" --format text subvolume show /)" = "$("$VOLCTL" "${IMGS[@]}" subvolume show /)" ]
	run "$VOLCTL" "${IMGS[@]}" --format json-v2 subvolume show /
	[ "$status" -eq 2 ]
	assert_output_contains "invalid output format 'json-v2': use text, json or json-v1"
}

@test "json schema: the schema refuses what version 1 printed (a hyphenated name alone, 0 for unset)" {
	local f=$BATS_TEST_TMPDIR/old.json rc=0
	cat >"$f" <<'JSON'
{ "__header": { "version": "1" },
  "qgroup-show": [] }
JSON
	python3 "$TOP/tests/json-validate.py" "$SCHEMA" "$f" >/dev/null || rc=$?
	[ "$rc" -ne 77 ] || skip "needs python3-jsonschema"
	[ "$rc" -eq 1 ]
	fixture rich4k
	"$VOLCTL" "${IMGS[@]}" --format json subvolume show / |
		jq '.subvolume_show.parent = 0' >"$f"
	rc=0
	python3 "$TOP/tests/json-validate.py" "$SCHEMA" "$f" >/dev/null || rc=$?
	[ "$rc" -eq 1 ]
	"$VOLCTL" "${IMGS[@]}" --format json subvolume show / |
		jq '.subvolume_show["Bad-Key"] = 1' >"$f"
	rc=0
	python3 "$TOP/tests/json-validate.py" "$SCHEMA" "$f" >/dev/null || rc=$?
	[ "$rc" -eq 1 ]
}
