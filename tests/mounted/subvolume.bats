#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# volctl subvolume on a loop-mounted image, checked against Debian's btrfs
# (btrfs-progs 6.2) as the oracle: resulting state, list/show layouts, JSON
# through jq, and bad input that must fail cleanly and change nothing.

load ../helpers

setup() {
	require_root_loop
	mkfs_mount 512M
	cd "$MNT"
}

teardown() {
	cd /
	[ -z "${SWAPFILE:-}" ] || swapoff "$SWAPFILE" 2>/dev/null || true
	cleanup_mount
}

# "a" with a nested subvolume in a directory, a plain and a read-only snapshot
populate() {
	"$VOLCTL" subvolume create a b >/dev/null
	mkdir -p a/dir
	"$VOLCTL" subvolume create a/dir/nested >/dev/null
	echo data >a/file
	"$VOLCTL" subvolume snapshot a snap-a >/dev/null
	"$VOLCTL" subvolume snapshot -r a ro-snap >/dev/null
	mkdir -p d1/d2
	"$VOLCTL" subvolume create d1/d2/deep >/dev/null
}

subvol_names() {
	btrfs subvolume list . | awk '{print $NF}' | sort | tr '\n' ' '
}

@test "create: one or more subvolumes, messages, visible to btrfs" {
	run_volctl subvolume create a b
	assert_status 0
	[ "${lines[0]}" = "Create subvolume './a'" ]
	[ "${lines[1]}" = "Create subvolume './b'" ]
	[ "$(subvol_names)" = "a b " ]
	[ "$(stat -c %i a)" = 256 ]
	run_volctl subvolume create "$MNT/c"
	assert_status 0
	[ "$output" = "Create subvolume '$MNT/c'" ]
}

@test "create: a failing argument does not stop the others, exit 1" {
	"$VOLCTL" subvolume create a
	run_volctl_split subvolume create x a y
	[ "$status" -eq 1 ]
	[ "$err" = "error: a: already exists (File exists)" ]
	[[ "$out" == *"'./x'"* && "$out" == *"'./y'"* ]]
	[ "$(subvol_names)" = "a x y " ]
}

@test "create: missing parent fails without -p; -p handles odd paths" {
	run_volctl subvolume create x/y/z
	assert_status 1
	assert_output_contains "x/y: No such file or directory"
	[ ! -e x ]
	run_volctl subvolume create -p x/y/z
	assert_status 0
	[ "$output" = "Create subvolume 'x/y/z'" ]
	run_volctl subvolume create --parents 'dir2///////subv1//////'
	assert_status 0
	[ "$output" = "Create subvolume 'dir2/subv1'" ]
	mkdir -p dir3/dir1
	run_volctl subvolume create -p 'dir3/dir1/./..//.///subv3//////'
	assert_status 0
	[ "$(stat -c %i dir3/subv3)" = 256 ]
	[ "$(subvol_names)" = "dir2/subv1 dir3/subv3 x/y/z " ]
	touch file
	run_volctl subvolume create -p file/sub
	assert_status 1
	[ "$output" = "error: file: exists and is not a directory" ]
}

@test "create: bad names and a file as parent change nothing" {
	touch f
	long=$(printf 'n%.0s' $(seq 256))
	for arg in .. a/.. "$long" f/x; do
		run_volctl subvolume create "$arg"
		[ "$status" -eq 1 ] || { echo "$arg: $status"; false; }
	done
	[ -z "$(subvol_names)" ]
	ok=$(printf 'n%.0s' $(seq 255))
	run_volctl subvolume create "$ok"
	assert_status 0
}

@test "create -i: into a qgroup; a missing qgroup is named and nothing is created" {
	btrfs quota enable .
	btrfs qgroup create 1/100 .
	run_volctl subvolume create -i 1/100 a
	assert_status 0
	btrfs qgroup show -p . | grep -E '^0/256 .* 1/100 ' >/dev/null
	run_volctl subvolume create -i 1/999 e
	assert_status 1
	[ "$output" = "error: qgroup 1/999 does not exist (No such file or directory)" ]
	[ ! -e e ]
	run_volctl subvolume create -i /nonexistent e
	assert_status 1
	assert_output_contains "'/nonexistent': No such file or directory"
	run_volctl subvolume create -i "$MNT/a" e
	assert_status 1
	assert_output_contains "level-0 qgroups cannot be parents"
	for id in 1/ x 0/0 65536/1 1/1/1; do
		run_volctl subvolume create -i "$id" e
		[ "$status" -eq 2 ] || { echo "$id: $status"; false; }
	done
	[ "$(subvol_names)" = "a " ]
}

@test "snapshot: plain, read-only, into a directory or an existing subvolume" {
	"$VOLCTL" subvolume create a
	echo hello >a/f
	run_volctl subvolume snapshot a s1
	assert_status 0
	[ "$output" = "Create snapshot of 'a' in 's1'" ]
	[ "$(cat s1/f)" = hello ]
	run_volctl subvolume snapshot -r a s2
	assert_status 0
	[ "$output" = "Create readonly snapshot of 'a' in 's2'" ]
	[ "$(btrfs property get -ts s2 ro)" = "ro=true" ]
	[ "$(btrfs property get -ts s1 ro)" = "ro=false" ]
	mkdir plain
	run_volctl subvolume snapshot a plain
	assert_status 0
	[ "$output" = "Create snapshot of 'a' in 'plain/a'" ]
	# an existing subvolume as the destination: inside it, as btrfs-progs
	run_volctl subvolume snapshot a s1
	assert_status 0
	[ "$output" = "Create snapshot of 'a' in 's1/a'" ]
	[ "$(cat s1/a/f)" = hello ]
	run_volctl subvolume snapshot a s1/
	assert_status 1
	[[ "$output" == "error: s1/a: already exists"* ]]
	touch file
	run_volctl subvolume snapshot a file
	assert_status 1
	[ "$output" = "error: file: exists and is not a directory" ]
	run_volctl subvolume snapshot plain s3
	assert_status 1
	[ "$output" = "error: plain: not a subvolume" ]
	# the suggestion is a clean path, whatever slashes were given
	run_volctl subvolume snapshot . plain//
	assert_status 1
	[ "$output" = "error: plain: the snapshot would go inside this directory, but . has no name to give it: give plain/<name>" ]
	run_volctl subvolume snapshot . s1/
	assert_status 1
	[ "$output" = "error: s1: the snapshot would go inside this subvolume, but . has no name to give it: give s1/<name>" ]
	[ "$(subvol_names)" = "a plain/a s1 s1/a s2 " ]
	btrfs subvolume show s1 | grep -q "Parent UUID:.*$(btrfs subvolume show a | awk '/^\tUUID:/{print $2}')"
}

@test "snapshot SRC SRC/ and SRC DIR/: where btrfs-progs puts them, the snapshot without its own entry" {
	local bp=btrfs
	"$VOLCTL" subvolume create a b >/dev/null
	echo hello >a/f
	echo hello >b/f
	# into itself: SRC/basename(SRC); the kernel copies before it links
	run_volctl subvolume snapshot a a/
	assert_status 0
	[ "$output" = "Create snapshot of 'a' in 'a/a'" ]
	"$bp" subvolume snapshot b b/ >/dev/null
	[ "$(ls -A a/a)" = f ]
	[ "$(ls -A a/a)" = "$(ls -A b/b)" ]
	# the same name again: the real problem, no "a//<name>"
	run_volctl subvolume snapshot a a
	assert_status 1
	[[ "$output" == "error: a/a: already exists"* ]]
	run "$bp" subvolume snapshot b b
	assert_status 1
	# an existing subvolume or directory, with or without slashes
	mkdir d e
	run_volctl subvolume snapshot a/ d//
	assert_status 0
	[ "$output" = "Create snapshot of 'a/' in 'd/a'" ]
	"$bp" subvolume snapshot b/ e// >/dev/null
	run_volctl subvolume snapshot a b
	assert_status 0
	[ "$output" = "Create snapshot of 'a' in 'b/a'" ]
	"$bp" subvolume snapshot b a >/dev/null
	[ "$(subvol_names)" = "a a/a a/b b b/a b/b d/a e/b " ]
}

@test "list: the same text as btrfs for every option combination" {
	populate
	for o in "" "-p" "-c" "-g" "-u" "-q" "-R" "-p -c -g -u -q -R" "-t" "-t -p -u -q -R -c" \
		"-s" "-r" "-a" "-o" "-G +8" "-G -8" "-C 8" "--sort=-gen,path" "--sort=path" \
		"--sort=-rootid" "-s -t"; do
		# shellcheck disable=SC2086
		diff <("$VOLCTL" subvolume list $o .) <(btrfs subvolume list $o .) ||
			{ echo "differs: list $o"; false; }
	done
	for o in "" "-o" "-a"; do
		# shellcheck disable=SC2086
		diff <("$VOLCTL" subvolume list $o a) <(btrfs subvolume list $o a) ||
			{ echo "differs: list $o a"; false; }
	done
	run_volctl subvolume list a/dir
	assert_status 0
	assert_output_contains "top level 256 path dir/nested"
}

@test "list: deleted subvolumes with -d, global -q prints nothing" {
	populate
	"$VOLCTL" subvolume delete b >/dev/null
	diff <("$VOLCTL" subvolume list -d .) <(btrfs subvolume list -d .)
	run_volctl subvolume list -d .
	[ "$output" = "ID 257 gen 7 top level 0 path DELETED" ] ||
		[[ "$output" == "ID 257 gen "*" top level 0 path DELETED" ]]
	run_volctl -q subvolume list .
	assert_status 0
	[ -z "$output" ]
}

@test "list --format json: schema, filters and options respected" {
	populate
	run_volctl --format json subvolume list .
	assert_status 0
	assert_json
	[ "$(jq -r '.__header.version' <<<"$output")" = 3 ]
	[ "$(jq '.subvolume_list | length' <<<"$output")" = 6 ]
	[ "$(jq -r '.subvolume_list[] | select(.id == 258) | .path' <<<"$output")" = a/dir/nested ]
	[ "$(jq '.subvolume_list[] | select(.id == 258) | .top_level' <<<"$output")" = 256 ]
	[ "$(jq -c '.subvolume_list[] | select(.path == "ro-snap") | .flags' <<<"$output")" = '["readonly"]' ]
	uuid_a=$(btrfs subvolume show a | awk '/^\tUUID:/{print $2}')
	[ "$(jq -r '.subvolume_list[] | select(.path == "a") | .uuid' <<<"$output")" = "$uuid_a" ]
	[ "$(jq -r '.subvolume_list[] | select(.path == "snap-a") | .parent_uuid' <<<"$output")" = "$uuid_a" ]
	[ "$(jq '.subvolume_list[] | select(.path == "a") | .parent_uuid' <<<"$output")" = null ]
	[[ "$(jq -r '.subvolume_list[0].otime' <<<"$output")" =~ ^20[0-9-]+T[0-9:]+\+00:00$ ]]
	[ "$(jq '.subvolume_list[0].otime_sec | type' <<<"$output")" = '"number"' ]
	[ "$(jq '.subvolume_list[0].deleted' <<<"$output")" = false ]

	run_volctl --format json subvolume list -s .
	[ "$(jq -r '[.subvolume_list[].path] | join(",")' <<<"$output")" = snap-a,ro-snap ]
	run_volctl --format json subvolume list -o a
	[ "$(jq -r '[.subvolume_list[].id] | join(",")' <<<"$output")" = 258 ]
	run_volctl --format json subvolume list --sort=-rootid .
	[ "$(jq '.subvolume_list[0].id' <<<"$output")" = 261 ]
	"$VOLCTL" subvolume delete b >/dev/null
	run_volctl --format json subvolume list -d .
	[ "$(jq -c '.subvolume_list[] | [.id, .path, .deleted, .top_level]' <<<"$output")" = '[257,null,true,null]' ]
	# version 1 (deprecated): 0 for the unset top level
	run_volctl --format json-v1 subvolume list -d .
	[ "$(jq -c '."subvolume-list"[] | [.id, .path, .deleted, .top_level]' <<<"$output")" = '[257,null,true,0]' ]
}

@test "show: btrfs' layout (with the real send time), -r, -u, units, JSON" {
	populate
	# progs 6.2 prints the creation time as send time and no quota line
	diff <("$VOLCTL" subvolume show a | grep -v -e '^.Send time:' -e '^.Quota group:') \
		<(btrfs subvolume show a | grep -v '^.Send time:')
	diff <("$VOLCTL" subvolume show . | grep -v -e '^.Send time:' -e '^.Quota group:') \
		<(btrfs subvolume show . | grep -v '^.Send time:')
	run_volctl subvolume show a
	assert_output_contains $'\tSend time: \t\t-'
	assert_output_contains $'\tQuota group:\t\tn/a'
	assert_output_contains $'\tSnapshot(s):\n\t\t\t\tsnap-a\n\t\t\t\tro-snap'
	run_volctl subvolume show -r 258 .
	assert_status 0
	[ "${lines[0]}" = "a/dir/nested" ]
	uuid=$(btrfs subvolume show ro-snap | awk '/^\tUUID:/{print $2}')
	run_volctl subvolume show -u "$uuid" "$MNT"
	assert_status 0
	[ "${lines[0]}" = ro-snap ]
	assert_output_contains $'\tFlags: \t\t\treadonly'
	run_volctl subvolume show -r 9999 .
	assert_status 1
	[ "$output" = "error: .: no subvolume with id 9999" ]
	run_volctl subvolume show a/dir
	assert_status 1
	[ "$output" = "error: a/dir: not a subvolume" ]
	run_volctl subvolume show a/file
	assert_status 1

	btrfs quota enable .
	btrfs quota rescan -w . >/dev/null
	btrfs qgroup limit -e 2M a
	# neighbours with other numbers must not leak into a's block
	btrfs qgroup limit 1G .
	btrfs qgroup limit -e 3M b
	head -c 1M /dev/urandom >b/data
	sync -f "$MNT"
	for sv in a b .; do
		diff <("$VOLCTL" subvolume show --raw $sv | sed -n '/Quota group/,$p') \
			<(btrfs subvolume show --raw $sv | sed -n '/Quota group/,$p')
	done
	diff <("$VOLCTL" subvolume show --raw a | sed -n '/Quota group/,$p') \
		<(btrfs subvolume show --raw a | sed -n '/Quota group/,$p')
	diff <("$VOLCTL" subvolume show -k a | sed -n '/Quota group/,$p') \
		<(btrfs subvolume show -k a | sed -n '/Quota group/,$p')
	run_volctl --format json subvolume show a
	assert_status 0
	assert_json
	[ "$(jq -r '.subvolume_show.qgroup.qgroupid' <<<"$output")" = 0/256 ]
	[ "$(jq '.subvolume_show.qgroup.limit.exclusive' <<<"$output")" = 2097152 ]
	[ "$(jq '.subvolume_show.qgroup.limit.referenced' <<<"$output")" = null ]
	[ "$(jq -c '.subvolume_show.snapshots' <<<"$output")" = '["snap-a","ro-snap"]' ]
	[ "$(jq '.subvolume_show.id' <<<"$output")" = 256 ]
	[ "$(jq -r '.subvolume_show.name' <<<"$output")" = a ]
	run_volctl -q subvolume show a
	assert_status 0
	[ -z "$output" ]
}

@test "get-default / set-default: by id, by path, 0 means 5, JSON, bad ids" {
	populate
	run_volctl subvolume get-default .
	assert_status 0
	[ "$output" = "ID 5 (FS_TREE)" ]
	run_volctl subvolume set-default 256 .
	assert_status 0
	[ -z "$output" ]
	diff <("$VOLCTL" subvolume get-default .) <(btrfs subvolume get-default .)
	run_volctl --format json subvolume get-default .
	[ "$(jq -c '.subvolume_get_default | [.id, .path, .top_level]' <<<"$output")" = '[256,"a",5]' ]
	run_volctl subvolume set-default snap-a
	assert_status 0
	[[ "$(btrfs subvolume get-default .)" == "ID 259 "* ]]
	run_volctl subvolume set-default 0 .
	assert_status 0
	[ "$(btrfs subvolume get-default .)" = "ID 5 (FS_TREE)" ]
	run_volctl subvolume set-default 9999 .
	assert_status 1
	[ "$output" = "error: subvolume 9999 does not exist (No such file or directory)" ]
	run_volctl subvolume set-default a/dir
	assert_status 1
	[ "$output" = "error: a/dir: not a subvolume" ]
	[ "$(btrfs subvolume get-default .)" = "ID 5 (FS_TREE)" ]
}

@test "delete: non-empty needs -R; -R deletes nested first; default is refused" {
	populate
	run_volctl subvolume delete a
	assert_status 1
	[ "$output" = "error: a: subvolume contains other subvolumes (use -R) (Directory not empty)" ]
	[ "$(stat -c %i a)" = 256 ]
	"$VOLCTL" subvolume set-default 257 .
	run_volctl subvolume delete b
	assert_status 1
	[ "$output" = "error: b: is the default subvolume (id 257), not deleting" ]
	[ -d b ]
	"$VOLCTL" subvolume set-default 0 .
	run_volctl subvolume delete -R a
	assert_status 0
	[ "${lines[0]}" = "Delete subvolume 258 (no-commit): 'a/dir/nested'" ]
	[ "${lines[1]}" = "Delete subvolume 256 (no-commit): 'a'" ]
	[ ! -e a ]
	[ "$(subvol_names)" = "b d1/d2/deep ro-snap snap-a " ]
}

@test "delete: several paths continue after a failure; -c, -C, -i, bad paths" {
	populate
	mkdir plain
	run_volctl_split subvolume delete -C b plain snap-a
	[ "$status" -eq 1 ]
	[ "$err" = "error: plain: not a subvolume" ]
	[ "$out" = "Delete subvolume 257 (commit): 'b'
Delete subvolume 259 (commit): 'snap-a'" ]
	run_volctl subvolume delete -c ro-snap
	assert_status 0
	[ "$output" = "Delete subvolume 260 (commit): 'ro-snap'" ]
	run_volctl subvolume delete -i 261 .
	assert_status 0
	[ "$output" = "Delete subvolume 261 (no-commit): './d1/d2/deep'" ]
	run_volctl subvolume delete -i 9999 .
	assert_status 1
	[ "$output" = "error: subvolume 9999: no such subvolume (No such file or directory)" ]
	run_volctl subvolume delete .
	assert_status 1
	[ "$output" = "error: .: the top-level subvolume cannot be deleted" ]
	run_volctl subvolume delete /nonexistent
	assert_status 1
	[ "$(subvol_names)" = "a a/dir/nested " ]
}

@test "delete --delete-qgroup: the 0/id qgroup is gone afterwards" {
	btrfs quota enable .
	"$VOLCTL" subvolume create q1 q2 >/dev/null
	btrfs qgroup show . | grep -q '^0/256 '
	run_volctl -v subvolume delete --delete-qgroup q1
	assert_status 0
	assert_output_contains "Delete subvolume 256 (no-commit): 'q1'"
	assert_output_contains "waiting for subvolume 256 to be cleaned"
	run btrfs qgroup show .
	assert_status 0
	run ! grep -q '^0/256 ' <<<"$output"
	btrfs qgroup show . | grep -q '^0/257 '
	run btrfs subvolume list -d .
	assert_status 0
	run ! grep -q 'ID 256 ' <<<"$output"
	# without -v the outcome for the group is still said, on stdout
	"$VOLCTL" subvolume create q3 >/dev/null
	run_volctl_split subvolume delete --delete-qgroup q3
	[ "$status" -eq 0 ]
	[[ "$out" == *"Delete subvolume 258 (no-commit): 'q3'"* ]]
	[[ "$out" == *"Delete qgroup 0/258"* || "$out" == *"Qgroup 0/258 already removed by the kernel"* ]] ||
		{ echo "$out"; return 1; }
	run btrfs qgroup show .
	assert_status 0
	run ! grep -q '^0/258 ' <<<"$output"
	# without quotas the option is harmless, and says so
	btrfs quota disable .
	run_volctl subvolume delete --delete-qgroup q2
	assert_status 0
	assert_output_contains "No qgroup 0/257 to delete: quotas are disabled"
}

# Kernel 6.18 removes 0/id itself when it has cleaned the subvolume, except
# under simple quotas while the group still holds space (data the subvolume
# wrote that a snapshot still uses): then 0/id is still there when volctl
# looks, volctl's destroy runs, and the kernel refuses it as well.
@test "delete --delete-qgroup: a simple-quota space holder reaches volctl's destroy, refused by the kernel" {
	[ -e /sys/fs/btrfs/features/simple_quota ] || skip "needs a kernel with simple quotas"
	"$VOLCTL" quota enable --simple .
	"$VOLCTL" subvolume create a >/dev/null
	dd if=/dev/urandom of=a/f bs=64K count=16 status=none
	sync -f "$MNT"
	"$VOLCTL" subvolume snapshot a s >/dev/null
	sync -f "$MNT"
	run_volctl -v subvolume delete --delete-qgroup a
	assert_status 1
	assert_output_contains "Delete subvolume 256 (no-commit): 'a'"
	assert_output_contains "waiting for subvolume 256 to be cleaned"
	assert_output_contains "error: qgroup 0/256 belongs to subvolume 256"
	assert_output_contains "simple-quota space holder"
	run ! grep -q "removed by the kernel" <<<"$output"
	[ -z "$(btrfs subvolume list -d .)" ]
	run btrfs qgroup show --raw .
	assert_status 0
	[ "$(awk '$1 == "0/256" {print $2}' <<<"$output")" -ge 1048576 ]
}

@test "sync: waits for queued deletions; an id that never existed is an error" {
	populate
	run_volctl subvolume sync .
	assert_status 0
	[ -z "$output" ]
	"$VOLCTL" subvolume delete b snap-a >/dev/null
	run_volctl subvolume sync .
	assert_status 0
	[ "${lines[0]}" = "Waiting for 2 subvolumes" ]
	[ "${lines[1]}" = "Subvolume id 257 is gone (1/2)" ]
	[ "${lines[2]}" = "Subvolume id 259 is gone (2/2)" ]
	[ -z "$(btrfs subvolume list -d .)" ]
	run_volctl subvolume sync . 257
	assert_status 0
	[ "${lines[1]}" = "Subvolume id 257 is gone (1/1)" ]
	run_volctl subvolume sync . 99999
	assert_status 1
	assert_output_contains "error: subvolume 99999 does not exist"
	run_volctl subvolume sync . 256
	assert_status 1
	assert_output_contains "error: subvolume 256 is not deleted"
}

# A deleted subvolume whose file is still open stays queued (the kernel adds
# its root to the cleaner's list when its last inode goes), so volctl lists
# both; strace stops volctl at its first write ("Waiting for 2 subvolumes"),
# the kernel then cleans both, the newest id included.
@test "sync: a subvolume the kernel cleaned between the listing and the wait is done" {
	command -v strace >/dev/null || skip "needs strace (to stop volctl after its listing)"
	local fa fb rc=0 pid
	"$VOLCTL" subvolume create a b >/dev/null
	echo x >a/f
	echo x >b/f
	exec {fa}<a/f {fb}<b/f
	btrfs subvolume delete a b >/dev/null
	btrfs filesystem sync .
	[ "$(btrfs subvolume list -d . | wc -l)" -eq 2 ]
	# LeakSanitizer cannot run under ptrace (make check-asan): no leak check here
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -o "$BATS_TEST_TMPDIR/strace.log" -e trace=write \
		-e inject=write:signal=SIGSTOP:when=1 \
		"$VOLCTL" subvolume sync . >"$BATS_TEST_TMPDIR/out" 2>&1 {fa}<&- {fb}<&- &
	local strace=$!
	# volctl (strace's child) stops at its first write, its progress line
	for _ in $(seq 1 600); do
		grep -q "stopped by SIGSTOP" "$BATS_TEST_TMPDIR/strace.log" 2>/dev/null && break
		sleep 0.1
	done
	grep -q "stopped by SIGSTOP" "$BATS_TEST_TMPDIR/strace.log"
	pid=$(pgrep -P "$strace")
	exec {fa}<&- {fb}<&-
	btrfs filesystem sync .
	timeout 60 btrfs subvolume sync . >/dev/null
	[ -z "$(btrfs subvolume list -d .)" ]
	kill -CONT "$pid"
	wait "$strace" || rc=$?
	run cat "$BATS_TEST_TMPDIR/out"
	[ "$rc" -eq 0 ] || { echo "$output" >&2; return 1; }
	[ "${lines[0]}" = "Waiting for 2 subvolumes" ]
	[ "${lines[1]}" = "Subvolume id 256 is gone (1/2)" ]
	[ "${lines[2]}" = "Subvolume id 257 is gone (2/2)" ]
	# an id never used is still an error, judged before any wait
	"$VOLCTL" subvolume create c >/dev/null
	run_volctl subvolume sync . 256
	assert_status 0
	run_volctl subvolume sync . 256 99999
	assert_status 1
	[ "$output" = "error: subvolume 99999 does not exist" ]
}

@test "bad paths: not btrfs, missing, a file, a plain directory" {
	local other
	other=$(mktemp -d /var/tmp/volctl-notbtrfs.XXXXXX)
	fstype=$(stat -f -c %T "$other")
	if [ "$fstype" = btrfs ]; then
		rmdir "$other"
		other=/proc
	fi
	run_volctl subvolume list "$other"
	assert_status 1
	[ "$output" = "error: $other: not a btrfs filesystem" ]
	run_volctl subvolume create "$other/x"
	assert_status 1
	[ ! -e "$other/x" ]
	[ "$other" = /proc ] || rmdir "$other"
	run_volctl subvolume show "$MNT/missing"
	assert_status 1
	[ "$output" = "error: $MNT/missing: No such file or directory" ]
	touch file
	run_volctl subvolume delete file
	assert_status 1
	[ "$output" = "error: file: not a subvolume" ]
	[ -f file ]
}

@test "without privilege: delete by nobody fails with the reason, nothing changes" {
	command -v setpriv >/dev/null || skip "needs setpriv"
	"$VOLCTL" subvolume create a >/dev/null
	let_nobody_reach_mnt
	run setpriv --reuid=nobody --regid=nogroup --clear-groups "$VOLCTL" subvolume delete "$MNT/a"
	[ "$status" -eq 1 ]
	[ "$output" = "error: $MNT/a: cannot delete: deleting a subvolume needs CAP_SYS_ADMIN, or a mount with user_subvol_rm_allowed (Operation not permitted)" ]
	[ "$(subvol_names)" = "a " ]
	run setpriv --reuid=nobody --regid=nogroup --clear-groups "$VOLCTL" subvolume list "$MNT"
	[ "$status" -eq 1 ]
	assert_output_contains "needs CAP_SYS_ADMIN"
	# waiting for the cleaner works unprivileged through SUBVOL_SYNC_WAIT
	"$VOLCTL" subvolume create b >/dev/null
	"$VOLCTL" subvolume delete -c b >/dev/null
	run setpriv --reuid=nobody --regid=nogroup --clear-groups "$VOLCTL" subvolume sync "$MNT" 257
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "Subvolume id 257 is gone (1/1)" ]
	run setpriv --reuid=nobody --regid=nogroup --clear-groups "$VOLCTL" subvolume sync "$MNT" 256
	[ "$status" -eq 1 ]
	assert_output_contains "subvolume 256 is not deleted"
}

@test "list: output over the 64 KiB write buffer is byte for byte btrfs's" {
	local long
	long=$(printf 'n%.0s' $(seq 1 200))
	mkdir d
	seq 1 300 | sed "s|^|d/$long|" | xargs "$VOLCTL" -q subvolume create
	"$VOLCTL" -q subvolume create "d/${long}1/inner"
	for o in "" "-t" "-a -p -u" "--sort=-gen,path" "-o"; do
		# shellcheck disable=SC2086
		cmp <("$VOLCTL" subvolume list $o .) <(btrfs subvolume list $o .) ||
			{ echo "differs: list $o"; false; }
	done
	[ "$("$VOLCTL" subvolume list . | wc -c)" -gt 65536 ]
	cmp <("$VOLCTL" subvolume list "d/${long}1") <(btrfs subvolume list "d/${long}1")
}

@test "delete -i: a subvolume the mount cannot reach is printed with its path from the root tree" {
	"$VOLCTL" subvolume create s1 s3 >/dev/null
	local m2=$BATS_TEST_TMPDIR/m2
	mkdir -p "$m2"
	mount -o subvol=s1 "$LOOPDEV" "$m2"
	run_volctl subvolume delete -i 257 "$m2"
	umount "$m2"
	assert_status 0
	# as btrfs-progs: the path argument joined with the path from the top level
	[ "$output" = "Delete subvolume 257 (no-commit): '$m2/s3'" ]
	[ ! -e s3 ]
}

@test "snapshot of a subvolume with an active swapfile: the words and the errno's own text" {
	command -v swapon >/dev/null || skip "needs swapon (util-linux)"
	"$VOLCTL" subvolume create sw >/dev/null
	btrfs filesystem mkswapfile -s 16m sw/swapfile >/dev/null
	SWAPFILE=$MNT/sw/swapfile
	swapon "$SWAPFILE"
	run_volctl subvolume snapshot sw sw-snap
	swapoff "$SWAPFILE"
	SWAPFILE=
	assert_status 1
	# scripts (and the kernel's own tests) match "Text file busy"
	[ "$output" = "error: sw: holds an active swapfile (Text file busy)" ]
	[ ! -e sw-snap ]
}

@test "JSON absolute_path: through the mount holding PATH, null where that mount cannot reach" {
	"$VOLCTL" subvolume create s1 s2 >/dev/null
	mkdir s1/dir
	"$VOLCTL" subvolume create s1/dir/inner >/dev/null
	local m2=$BATS_TEST_TMPDIR/m2
	mkdir -p "$m2"
	mount -o subvol=s1 "$LOOPDEV" "$m2"
	run_volctl --format json subvolume list "$m2"
	local list=$output
	run_volctl --format json qgroup show --compute "$m2"
	umount "$m2"
	[ "$(jq -r '.subvolume_list[] | select(.path == "s2") | .absolute_path' <<<"$list")" = null ]
	[ "$(jq -r '.subvolume_list[] | select(.name == "s1") | .absolute_path' <<<"$list")" = "$m2" ]
	[ "$(jq -r '.subvolume_list[] | select(.name == "inner") | .absolute_path' <<<"$list")" = "$m2/dir/inner" ]
	[ "$(jq -r '.qgroup_show[] | select(.path == "s1/dir/inner") | .absolute_path' <<<"$output")" = "$m2/dir/inner" ]
	run_volctl --format json subvolume show "$MNT/s2"
	[ "$(jq -r '.subvolume_show.absolute_path' <<<"$output")" = "$MNT/s2" ]
}
