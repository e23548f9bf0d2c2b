#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The offline writer at scale: 1,000 subvolumes and 1,000 snapshots written
# into one image by volctl alone (quotas on), then judged by the oracles:
# btrfs check --readonly, the kernel mounting it, `btrfs subvolume list`
# equal to what volctl listed before the mount, and the kernel's qgroup
# numbers after a rescan equal to the ones volctl wrote.
#
# Shape (all offline, ids 256 and up):
#   one `subvolume create` call with 1,000 paths: sv1..sv850 at the top
#   level, 100 nested n1..n100 inside sv1..sv100, and the containers
#   snaps, ro, chain, copies (hold snapshots; never snapshotted while
#   they change, so no block shared with a snapshot is copied and the
#   numbers stay exact, as the writer promises for this case)
#   1,000 `subvolume snapshot` calls: 600 writable snapshots of sv1..sv600
#   (sv1..sv100 hold a nested subvolume) into /snaps, 200 read-only ones
#   into /ro, a chain of 100 (snapshot of the previous snapshot) into
#   /chain, 99 snapshots of the many-leaf /ro tree into /copies, and the
#   top level itself into /snaps.
# The image is built once (setup_file); each test reads a copy of it.

load ../helpers

setup_file() {
	export SCALE_DIR="$BATS_FILE_TMPDIR"
	export SCALE_IMG="$SCALE_DIR/scale.img"
	[ "$(id -u)" -eq 0 ] || return 0
	command -v mkfs.btrfs >/dev/null || return 0
	build_image >"$SCALE_DIR/build.log" 2>&1 || echo failed >"$SCALE_DIR/build.failed"
}

build_image() {
	local v=${VOLCTL_WRAPPER:-} t0 t1 t2 i args=()

	truncate -s 2G "$SCALE_IMG"
	mkfs.btrfs -q -f "$SCALE_IMG" >/dev/null
	# shellcheck disable=SC2086
	$v "$VOLCTL" --image "$SCALE_IMG" quota enable / || return 1

	for i in $(seq 1 850); do args+=("/sv$i"); done
	for i in $(seq 1 100); do args+=("/sv$i/n$i"); done
	args+=(/snaps /ro /chain /copies)
	for i in $(seq 1 46); do args+=("/pad$i"); done
	t0=$(date +%s.%N)
	# shellcheck disable=SC2086
	$v "$VOLCTL" --image "$SCALE_IMG" subvolume create "${args[@]}" >/dev/null || return 1
	t1=$(date +%s.%N)

	for i in $(seq 1 600); do
		# shellcheck disable=SC2086
		$v "$VOLCTL" --image "$SCALE_IMG" subvolume snapshot "/sv$i" "/snaps/s$i" >/dev/null ||
			return 1
	done
	for i in $(seq 601 800); do
		# shellcheck disable=SC2086
		$v "$VOLCTL" --image "$SCALE_IMG" subvolume snapshot -r "/sv$i" "/ro/r$i" >/dev/null ||
			return 1
	done
	# shellcheck disable=SC2086
	$v "$VOLCTL" --image "$SCALE_IMG" subvolume snapshot /sv801 /chain/c1 >/dev/null || return 1
	for i in $(seq 2 100); do
		# shellcheck disable=SC2086
		$v "$VOLCTL" --image "$SCALE_IMG" subvolume snapshot "/chain/c$((i - 1))" \
			"/chain/c$i" >/dev/null || return 1
	done
	for i in $(seq 1 99); do
		# shellcheck disable=SC2086
		$v "$VOLCTL" --image "$SCALE_IMG" subvolume snapshot /ro "/copies/ro$i" >/dev/null ||
			return 1
	done
	# shellcheck disable=SC2086
	$v "$VOLCTL" --image "$SCALE_IMG" subvolume snapshot / /snaps/top >/dev/null || return 1
	t2=$(date +%s.%N)
	echo "create 1000 (one call): $(echo "$t1 - $t0" | bc) s" >"$SCALE_DIR/times"
	echo "snapshot 1000 (1000 calls): $(echo "$t2 - $t1" | bc) s" >>"$SCALE_DIR/times"
}

setup() {
	require_root_loop
	if [ -e "$SCALE_DIR/build.failed" ] || [ ! -e "$SCALE_DIR/times" ]; then
		cat "$SCALE_DIR/build.log" >&2 2>/dev/null || true
		echo "building the scale image failed" >&2
		return 1
	fi
	IMG="$BATS_TEST_TMPDIR/fs.img"
	MNT="$BATS_TEST_TMPDIR/mnt"
	mkdir -p "$MNT"
	cp --sparse=always "$SCALE_IMG" "$IMG"
}

teardown() {
	cleanup_mount
}

mount_img() {
	LOOPDEV=$(losetup -f --show "$IMG")
	mount "$LOOPDEV" "$MNT"
}

umount_img() {
	umount "$MNT"
	losetup -d "$LOOPDEV"
	LOOPDEV=
}

@test "scale: 1,000 subvolumes and 1,000 snapshots written offline" {
	cat "$SCALE_DIR/times" >&3
	run_volctl --image "$IMG" subvolume list /
	assert_status 0
	[ "$(printf '%s\n' "$output" | wc -l)" -eq 2000 ]
	run_volctl --image "$IMG" subvolume list -s /
	assert_status 0
	[ "$(printf '%s\n' "$output" | wc -l)" -eq 1000 ]
	run_volctl --image "$IMG" subvolume list -r /
	assert_status 0
	[ "$(printf '%s\n' "$output" | wc -l)" -eq 200 ]
	run_volctl --image "$IMG" quota status /
	assert_status 0
	assert_output_contains "Inconsistent:            no"
}

@test "scale: btrfs check --readonly is clean" {
	run btrfs check --readonly "$IMG"
	if [ "$status" -ne 0 ]; then
		echo "$output" >&2
		return 1
	fi
	[[ "$output" == *"no error found"* ]]
}

@test "scale: volctl check recomputes the qgroup numbers it wrote" {
	run_volctl check "$IMG"
	assert_status 0
}

@test "scale: the kernel's subvolume list equals volctl's from before the mount" {
	local opts
	for opts in "" "-s" "-r" "-u -q -R" "-p -c -g -t" "-a"; do
		# shellcheck disable=SC2086
		run_volctl --image "$IMG" subvolume list $opts /
		assert_status 0
		printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/volctl.$opts"
	done
	mount_img
	for opts in "" "-s" "-r" "-u -q -R" "-p -c -g -t" "-a"; do
		# shellcheck disable=SC2086
		btrfs subvolume list $opts "$MNT" >"$BATS_TEST_TMPDIR/btrfs.$opts"
		if ! diff -u "$BATS_TEST_TMPDIR/btrfs.$opts" "$BATS_TEST_TMPDIR/volctl.$opts" >&2; then
			echo "subvolume list $opts differs" >&2
			return 1
		fi
	done
	# the snapshots hold what their sources held: nested subvolume dirs, names
	[ -d "$MNT/snaps/s7/n7" ]
	[ -d "$MNT/chain/c100" ]
	[ -d "$MNT/copies/ro99/r700" ]
	[ -d "$MNT/snaps/top/sv850" ]
	umount_img
}

@test "scale: the kernel's qgroup numbers after a rescan equal volctl's" {
	run_volctl --image "$IMG" qgroup show --raw /
	assert_status 0
	local ours=$output
	[ "$(printf '%s\n' "$ours" | grep -c '^0/')" -eq 2001 ]
	mount_img
	kernel_rescan "$MNT"
	run btrfs qgroup show --raw "$MNT"
	umount_img
	assert_status 0
	if [ "$output" != "$ours" ]; then
		diff -u <(printf '%s\n' "$output") <(printf '%s\n' "$ours") >&2
		return 1
	fi
}

@test "scale: the kernel writes, snapshots and deletes, then volctl check is clean" {
	mount_img
	echo data >"$MNT/snaps/s1/file"
	btrfs subvolume snapshot "$MNT/sv2" "$MNT/sv2-k" >/dev/null
	btrfs subvolume delete "$MNT/copies/ro1" >/dev/null
	wait_cleaned "$MNT" >/dev/null
	kernel_rescan "$MNT"
	umount_img
	run btrfs check --readonly "$IMG"
	assert_status 0
	run_volctl check "$IMG"
	assert_status 0
	run_volctl --image "$IMG" subvolume create /after
	assert_status 0
	run btrfs check --readonly "$IMG"
	assert_status 0
}
