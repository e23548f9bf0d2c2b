#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The JSON contract online: every document of every command that takes
# --format json, on a loop-mounted filesystem, validates against
# Documentation/volctl.schema.json, along each code path: by path and by
# id, a subvolume the mount cannot reach (a second mount with -o subvol=),
# quotas off and on.  Identities are checked against btrfs-progs.  The
# offline half is tests/cli/json-schema.bats.

load ../helpers
load ../json-helpers

setup() {
	require_root_loop
	command -v jq >/dev/null || skip "needs jq"
	mkfs_mount 512M
	MNT2=$BATS_TEST_TMPDIR/mnt2
	mkdir -p "$MNT2"
	cd "$MNT"
}

teardown() {
	cd /
	if mountpoint -q "${MNT2:-/nonexistent}" 2>/dev/null; then
		umount "$MNT2" 2>/dev/null || umount -l "$MNT2" 2>/dev/null || true
	fi
	cleanup_mount
}

# The uuid btrfs-progs shows for subvolume $1
progs_uuid() {
	btrfs subvolume show "$1" | awk '$1 == "UUID:" { print $2 }'
}

@test "json schema online: every command's document validates, by path, by id, unreachable, quotas off and on; every JSON command has a case" {
	local d=$BATS_TEST_TMPDIR/docs id_b id_c
	# ---- quotas off ----
	vj create subvolume create a b
	mkdir -p a/dir
	vj create-p subvolume create -p a/dir/x/nested
	echo data >a/file
	vj snap subvolume snapshot a snap-a
	vj snap-ro subvolume snapshot -r a ro-snap
	vj create-c subvolume create c
	id_b=$(jq -r '.subvolume_create.subvolumes[1].id' "$d/create.json")
	id_c=$(jq -r '.subvolume_create.subvolumes[0].id' "$d/create-c.json")
	[ "$(jq -r '.subvolume_create.subvolumes[0].uuid' "$d/create.json")" = "$(progs_uuid a)" ]
	[ "$(jq -c '.subvolume_create.subvolumes[0] | [.path, .absolute_path, .parent, .qgroup]' "$d/create.json")" = \
	  "[\"a\",\"$MNT/a\",5,null]" ]
	[ "$(jq -r '.subvolume_snapshot.source_uuid' "$d/snap.json")" = "$(progs_uuid a)" ]
	[ "$(jq -r '.subvolume_snapshot.uuid' "$d/snap-ro.json")" = "$(progs_uuid ro-snap)" ]
	[ "$(jq -r '.subvolume_snapshot.readonly' "$d/snap-ro.json")" = true ]
	vj send-size-online subvolume send-size ro-snap
	[ "$(jq -r '.subvolume_send_size.v1.total' "$d/send-size-online.json")" = \
	  "$(btrfs send -q ro-snap | wc -c)" ]
	vj_rc 1 create-part subvolume create a e
	[ "$(jq -c '[.subvolume_create.subvolumes[].path]' "$d/create-part.json")" = '["e"]' ]
	vj list subvolume list -a .
	vj show subvolume show a
	vj getdef subvolume get-default .
	vj space-off subvolume space .
	vj headroom-off qgroup headroom a
	vj compute-off qgroup show --compute .
	vj status-off quota status .
	vj dry subvolume delete --dry-run a snap-a
	vj dry-i subvolume delete --dry-run -i "$id_b" .
	vj prune-dry subvolume prune --keep-last 1 --dry-run a
	vj setdef subvolume set-default a
	vj setdef-0 subvolume set-default 0 .
	vj delete-q subvolume delete --delete-qgroup e
	[ "$(jq -r '.subvolume_delete.subvolumes[0].qgroup_result' "$d/delete-q.json")" = quotas_disabled ]
	# online the cleaner frees the space later: not known
	[ "$(jq -r '.subvolume_delete.freed' "$d/delete-q.json")" = null ]

	# ---- through a mount of subvolume a: b and c are out of its reach ----
	mount -o subvol=a "$LOOPDEV" "$MNT2"
	vj list-sub subvolume list "$MNT2"
	vj dry-unreach subvolume delete --dry-run -i "$id_b" "$MNT2"
	[ "$(jq -c '.subvolume_delete_dry_run.subvolumes[0] | [.id, .path, .absolute_path]' "$d/dry-unreach.json")" = \
	  "[$id_b,null,null]" ]
	vj space-sub subvolume space "$MNT2"
	vj delete-unreach subvolume delete -i "$id_c" "$MNT2"
	[ "$(jq -c '.subvolume_delete.subvolumes[0] | [.id, .path]' "$d/delete-unreach.json")" = \
	  "[$id_c,\"$MNT2/c\"]" ]
	umount "$MNT2"
	vj sync-id subvolume sync . "$id_c"
	[ "$(jq -c '.subvolume_sync | [.subvolumes, .gone]' "$d/sync-id.json")" = "[[$id_c],[$id_c]]" ]

	# ---- quotas on ----
	vj enable quota enable .
	vj rescan-w quota rescan -w .
	vj rescan-s quota rescan -s .
	[ "$(jq -c '.quota_enable.enabled' "$d/enable.json")" = true ]
	vj qg-create qgroup create 1/1 .
	vj qg-assign qgroup assign "$MNT/a" 1/1 .
	vj qg-limit qgroup limit 100M 1/1 .
	vj qg-limit-e qgroup limit -e 50M a
	vj create-i subvolume create -i 1/1 f
	vj snap-i subvolume snapshot -i 1/1 a snap-f
	# subvolume diff online: a file added to the live a after the snapshot
	echo x >a/diff-added
	vj diff-online subvolume diff snap-f a
	[ "$(jq -c '.subvolume_diff.changes | map([.change, .path, .type])' "$d/diff-online.json")" = \
	  '[["added","/diff-added","file"]]' ]
	rm a/diff-added
	[ "$(jq -c '.subvolume_create.subvolumes[0] | [.qgroup, .inherit]' "$d/create-i.json")" = \
	  "[\"0/$(jq -r '.subvolume_create.subvolumes[0].id' "$d/create-i.json")\",[\"1/1\"]]" ]
	vj qgroup qgroup show .
	vj qgroup-F qgroup show -F a
	vj headroom qgroup headroom a
	vj space subvolume space .
	vj show-q subvolume show a
	vj status quota status .
	vj dry-q subvolume delete --dry-run -R a
	vj prune subvolume prune --keep-last 1 a
	vj delete-cq subvolume delete -C --delete-qgroup snap-f
	[ "$(jq -r '.subvolume_delete.subvolumes[0].qgroup_result' "$d/delete-cq.json")" != null ]
	vj delete-c subvolume delete -c f b
	vj sync-all subvolume sync .
	vj qg-stale qgroup clear-stale .
	vj qg-remove qgroup remove "$MNT/a" 1/1 .
	vj qg-limit-none qgroup limit none 1/1 .
	vj qg-destroy qgroup destroy 1/1 .
	vj rescan quota rescan .
	vj disable quota disable .
	[ "$(jq -c '.quota_disable | [.enabled, .mode]' "$d/disable.json")" = '[false,null]' ]
	vj enable-s quota enable -s .
	vj status-s quota status .
	[ "$(jq -r '.quota_status.mode' "$d/status-s.json")" = simple ]

	for f in "$d"/*.json; do
		jq -e . "$f" >/dev/null || { echo "$f: not one JSON document"; return 1; }
	done
	json_validate_all
	# check, mkfs and inspect work on unmounted images only: tests/cli/json-schema.bats
	json_all_covered check mkfs "inspect super" "inspect tree"
}
