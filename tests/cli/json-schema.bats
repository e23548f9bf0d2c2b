#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The one JSON contract: every document of every command that supports
# --format json validates against Documentation/volctl.schema.json (snake_case
# member names at every depth, unset values null, header version 3); the
# version-1 documents only with --format json-v1.  No root needed.

load ../helpers
load ../fixtures/fixture-helpers
load ../json-helpers

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
	# its mkfs 6.2 leftovers: findings in check, then dropped
	fixture noquota16k
	"$VOLCTL" --format json check --repair-free-space "$IMG" | validate repair-fst
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

# The read documents of fixture $1 (IMGS), through vj (counted as covered)
json_reads() {
	local n=$1 a files=()
	for a in "${IMGS[@]}"; do
		[ "$a" = --image ] || files+=("$a")
	done
	vj "$n-list" "${IMGS[@]}" subvolume list -a /
	vj "$n-show" "${IMGS[@]}" subvolume show /a
	vj "$n-getdef" "${IMGS[@]}" subvolume get-default /
	vj "$n-dry" "${IMGS[@]}" subvolume delete --dry-run /a /snap-a
	# -i: a subvolume named by id has no path as given: null
	vj "$n-dry-i" "${IMGS[@]}" subvolume delete --dry-run -i 263 -i 264 /
	[ "$(jq -c '[.subvolume_delete_dry_run.subvolumes[].path]' "$BATS_TEST_TMPDIR/docs/$n-dry-i.json")" = \
	  '[null,null]' ]
	vj "$n-prune-dry" "${IMGS[@]}" subvolume prune --keep-last 1 --dry-run /a
	vj "$n-space" "${IMGS[@]}" subvolume space /
	vj "$n-qgroup" "${IMGS[@]}" qgroup show --compute /
	vj "$n-headroom" "${IMGS[@]}" qgroup headroom /a
	vj "$n-status" "${IMGS[@]}" quota status /
	vj "$n-check" check "${files[@]}"
	vj "$n-super" inspect super "${files[0]}"
	vj "$n-tree" inspect tree -t root "${files[@]}"
}

@test "json schema: every write command's document validates offline, each code path; every JSON command has a case" {
	local d=$BATS_TEST_TMPDIR/docs last
	fixture rich4k
	json_reads rich4k
	# clear-stale names the group of the subvolume being cleaned (0/265)
	vj qg-stale-skip "${IMGS[@]}" qgroup clear-stale /
	[ "$(jq -c '.qgroup_clear_stale | [.destroyed, .skipped]' "$d/qg-stale-skip.json")" = '[[],["0/265"]]' ]
	# create: one, a batch (one commit), -p, -i, and a partial failure
	vj create1 "${IMGS[@]}" subvolume create /n1
	vj create-batch "${IMGS[@]}" subvolume create /n2 /n3
	vj create-p "${IMGS[@]}" subvolume create -p /p/q/r
	vj create-i "${IMGS[@]}" subvolume create -i 1/100 /n4
	vj_rc 1 create-part "${IMGS[@]}" subvolume create /n1 /n5
	[ "$(jq -c '[.subvolume_create.subvolumes[].path]' "$d/create-part.json")" = '["/n5"]' ]
	[ "$(jq -c '.subvolume_create.subvolumes[0] | [.parent, .qgroup, (.uuid | length)]' "$d/create1.json")" = \
	  '[5,"0/266",36]' ]
	[ "$(jq -c '.subvolume_create.subvolumes[0].inherit' "$d/create-i.json")" = '["1/100"]' ]
	[ "$(jq -r '.subvolume_create.subvolumes[0].id' "$d/create-i.json")" = \
	  "$("$VOLCTL" "${IMGS[@]}" --format json subvolume show /n4 | jq -r .subvolume_show.id)" ]
	# snapshot: into a directory, read-only, -i
	vj snap-ro "${IMGS[@]}" subvolume snapshot -r /a /snaps
	vj snap-i "${IMGS[@]}" subvolume snapshot -i 1/100 /a /s2
	[ "$(jq -c '.subvolume_snapshot | [.path, .source, .source_id, .readonly]' "$d/snap-ro.json")" = \
	  '["/snaps/a","/a",256,true]' ]
	[ "$(jq -r '.subvolume_snapshot.source_uuid' "$d/snap-ro.json")" = \
	  "$("$VOLCTL" "${IMGS[@]}" --format json subvolume show /a | jq -r .subvolume_show.uuid)" ]
	# delete: by path, -c, -C with --delete-qgroup, -R, -i, a partial failure
	vj delete1 "${IMGS[@]}" subvolume delete /n2
	vj dry-c "${IMGS[@]}" subvolume delete --dry-run /n3 /n4
	vj delete-c "${IMGS[@]}" subvolume delete -c /n3 /n4
	# offline the bytes freed are known exactly: what the dry run said
	[ "$(jq -r '.subvolume_delete.freed' "$d/delete-c.json")" -gt 0 ]
	[ "$(jq -r '.subvolume_delete.freed' "$d/delete-c.json")" = \
	  "$(jq -r '.subvolume_delete_dry_run.set.exclusive' "$d/dry-c.json")" ]
	vj delete-Cq "${IMGS[@]}" subvolume delete -C --delete-qgroup /s2
	"$VOLCTL" "${IMGS[@]}" subvolume create /n6 /n6/inner >/dev/null
	vj dry-R "${IMGS[@]}" subvolume delete --dry-run -R /n6
	vj delete-R "${IMGS[@]}" subvolume delete -R /n6
	[ "$(jq -r '.subvolume_delete.freed' "$d/delete-R.json")" = \
	  "$(jq -r '.subvolume_delete_dry_run.set.exclusive' "$d/dry-R.json")" ]
	vj dry-i-262 "${IMGS[@]}" subvolume delete --dry-run -i 262 /
	vj delete-i "${IMGS[@]}" subvolume delete -i 262 /
	[ "$(jq -r '.subvolume_delete.freed' "$d/delete-i.json")" = \
	  "$(jq -r '.subvolume_delete_dry_run.set.exclusive' "$d/dry-i-262.json")" ]
	vj_rc 1 delete-part "${IMGS[@]}" subvolume delete /n5 /nonexistent
	[ "$(jq -r '.subvolume_delete.freed' "$d/delete-part.json")" = null ]
	[ "$(jq -r '.subvolume_delete.freed' "$d/delete-Cq.json")" = null ]
	[ "$(jq -c '.subvolume_delete | [.commit, [.subvolumes[].commit]]' "$d/delete-c.json")" = \
	  '["after",[false,true]]' ]
	[ "$(jq -c '.subvolume_delete.subvolumes[0] | [.qgroup, .qgroup_result != null]' "$d/delete-Cq.json")" = \
	  "[\"0/$(jq -r .subvolume_snapshot.id "$d/snap-i.json")\",true]" ]
	[ "$(jq -c '[.subvolume_delete.subvolumes[].path]' "$d/delete-R.json")" = '["/n6/inner","/n6"]' ]
	[ "$(jq -c '.subvolume_delete | [.subvolumes[].id, .failed]' "$d/delete-part.json")" = \
	  "[$(jq -r '.subvolume_create.subvolumes[0].id' "$d/create-part.json"),1]" ]
	# sync: one id, all, nothing left
	vj sync-id "${IMGS[@]}" subvolume sync / 262
	vj sync-all "${IMGS[@]}" subvolume sync /
	vj sync-none "${IMGS[@]}" subvolume sync /
	[ "$(jq -c '.subvolume_sync | [.subvolumes, .gone]' "$d/sync-id.json")" = '[[262],[262]]' ]
	[ "$(jq -c '.subvolume_sync.subvolumes' "$d/sync-none.json")" = '[]' ]
	# set-default: by path, by id, 0 for the top level
	vj setdef-path "${IMGS[@]}" subvolume set-default /a
	vj setdef-0 "${IMGS[@]}" subvolume set-default 0 /
	vj setdef-id "${IMGS[@]}" subvolume set-default 261 /
	[ "$(jq -r '.subvolume_set_default.id' "$d/setdef-0.json")" = 5 ]
	# prune, a real run
	vj prune "${IMGS[@]}" subvolume prune --keep-last 1 /a
	# qgroup writes
	vj qg-create "${IMGS[@]}" qgroup create 1/7 /
	vj qg-assign "${IMGS[@]}" qgroup assign 0/256 1/7 /
	vj qg-remove "${IMGS[@]}" qgroup remove --no-rescan 0/256 1/7 /
	vj qg-limit "${IMGS[@]}" qgroup limit 10M /a
	vj qg-limit-e "${IMGS[@]}" qgroup limit -e -c 1G 1/7 /
	vj qg-limit-none "${IMGS[@]}" qgroup limit none 1/100 /
	vj qg-destroy "${IMGS[@]}" qgroup destroy 1/7 /
	# a group without a subvolume: the last level-0 group renamed (key order kept)
	last=$("$VOLCTL" "${IMGS[@]}" --format json qgroup show / |
	       jq -r '[.qgroup_show[] | select(.level == 0)] | last.qgroupid')
	python3 "$FIXTURES/corrupt.py" "$IMG" qrename "$last" 0/999
	vj qg-stale "${IMGS[@]}" qgroup clear-stale /
	[ "$(jq -c '.qgroup_limit | [.qgroupid, .type, .limit, .compressed]' "$d/qg-limit-e.json")" = \
	  '["1/7","exclusive",1073741824,true]' ]
	[ "$(jq -c '.qgroup_limit.limit' "$d/qg-limit-none.json")" = null ]
	[ "$(jq -c '.qgroup_clear_stale.destroyed' "$d/qg-stale.json")" = '["0/999"]' ]
	# quota writes: the state after
	vj rescan-w "${IMGS[@]}" quota rescan -w /
	vj rescan-s "${IMGS[@]}" quota rescan -s /
	vj rescan "${IMGS[@]}" quota rescan /
	vj disable "${IMGS[@]}" quota disable /
	vj enable "${IMGS[@]}" quota enable /
	[ "$(jq -c '.quota_disable | [.enabled, .mode]' "$d/disable.json")" = '[false,null]' ]
	[ "$(jq -c '.quota_enable | [.enabled, .mode]' "$d/enable.json")" = '[true,"full"]' ]
	vj repair check --repair-qgroups "$IMG"

	# quotas off: the same writes, no qgroup to name
	fixture noquota16k
	vj nq-create "${IMGS[@]}" subvolume create /x
	vj nq-snap "${IMGS[@]}" subvolume snapshot /x /y
	vj nq-delete "${IMGS[@]}" subvolume delete --delete-qgroup /y
	vj nq-sync "${IMGS[@]}" subvolume sync /
	vj nq-status "${IMGS[@]}" quota status /
	vj nq-enable-s "${IMGS[@]}" quota enable -s /
	[ "$(jq -c '.subvolume_create.subvolumes[0].qgroup' "$d/nq-create.json")" = null ]
	[ "$(jq -c '.subvolume_delete.subvolumes[0].qgroup_result' "$d/nq-delete.json")" = '"quotas_disabled"' ]
	[ "$(jq -c '.quota_enable.mode' "$d/nq-enable-s.json")" = '"simple"' ]
	# subvolume diff: two subvolumes of a tree, one file changed
	mkdir -p "$BATS_TEST_TMPDIR/dt/a" "$BATS_TEST_TMPDIR/dt/b"
	printf 'one' >"$BATS_TEST_TMPDIR/dt/a/f"
	printf 'two' >"$BATS_TEST_TMPDIR/dt/b/f"
	"$VOLCTL" mkfs -s 256M -r "$BATS_TEST_TMPDIR/dt" --subvol a --subvol b \
		"$BATS_TEST_TMPDIR/dt.img" >/dev/null
	vj diff --image "$BATS_TEST_TMPDIR/dt.img" subvolume diff /a /b
	[ "$(jq -c '.subvolume_diff.changes[0] | [.change, .path, .type, .what[0]]' "$d/diff.json")" = \
	  '["modified","/f","file","content"]' ]
	# subvolume send-size: a read-only snapshot of a made tree
	"$VOLCTL" --image "$BATS_TEST_TMPDIR/dt.img" subvolume snapshot -r /a /a.ro >/dev/null
	vj send-size --image "$BATS_TEST_TMPDIR/dt.img" subvolume send-size /a.ro
	[ "$(jq -c '.subvolume_send_size.v1.data' "$d/send-size.json")" = 3 ]
	[ "$(jq -c '.subvolume_send_size | [.parent, .clone_sources]' "$d/send-size.json")" = '[null,[]]' ]
	# -c alone: the parent btrfs send picks is named
	"$VOLCTL" --image "$BATS_TEST_TMPDIR/dt.img" subvolume snapshot -r /a /a.ro2 >/dev/null
	"$VOLCTL" --image "$BATS_TEST_TMPDIR/dt.img" subvolume snapshot -r /b /b.ro >/dev/null
	vj send-size-c --image "$BATS_TEST_TMPDIR/dt.img" subvolume send-size -c /b.ro -c /a.ro /a.ro2
	[ "$(jq -c '.subvolume_send_size | [.parent, .clone_sources]' "$d/send-size-c.json")" = \
	  '["/a.ro",["/b.ro","/a.ro"]]' ]
	# mkfs: the summary, with and without a tree
	mkdir -p "$BATS_TEST_TMPDIR/tree/sub"
	printf 'x' >"$BATS_TEST_TMPDIR/tree/sub/f"
	vj mkfs-plain mkfs -s 256M "$BATS_TEST_TMPDIR/mk1.img"
	vj mkfs-rootdir mkfs -s 256M --quota -r "$BATS_TEST_TMPDIR/tree" --subvol sub \
		"$BATS_TEST_TMPDIR/mk2.img"
	[ "$(jq -c '.mkfs | [.rootdir, .inodes, .quota]' "$d/mkfs-plain.json")" = '[null,null,null]' ]
	[ "$(jq -c '.mkfs | [.files, .subvolumes, .qgroups, .quota]' "$d/mkfs-rootdir.json")" = '[1,1,2,"full"]' ]
	# stdout holds the document alone: no text line mixed in
	for f in "$d"/*.json; do
		jq -e . "$f" >/dev/null || { echo "$f: not one JSON document"; return 1; }
	done
	json_validate_all
	json_all_covered
}
