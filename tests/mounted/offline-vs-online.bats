#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# For each fixture shape: build it (mkfs.btrfs + a loop mount), unmount, run
# every read-only command of tests/fixtures/commands.list offline with
# --image, mount the image read-only and run the same commands online, and
# compare output and exit status byte for byte.  Root and loop devices.

load ../helpers

FIXDIR="$(cd "$BATS_TEST_DIRNAME/../fixtures" && pwd)"

setup() {
	require_root_loop
	command -v python3 >/dev/null || true
	# shellcheck source=tests/fixtures/shapes.sh
	. "$FIXDIR/shapes.sh"
	W="$BATS_TEST_TMPDIR/w"
	mkdir -p "$W"
}

teardown() {
	fx_umount 2>/dev/null || true
}

# run_list MODE: run commands.list, MODE offline or online; outputs in $W/MODE/
run_list() {
	local mode=$1 shape=$2 line cname args rc imgs=() f
	mkdir -p "$W/$mode"
	for f in "$W/$shape.img" "$W/$shape".dev*.img; do
		[ -e "$f" ] && imgs+=(--image "$f")
	done
	while IFS= read -r line; do
		case $line in '#'*|'') continue ;; esac
		cname=${line%%|*}
		args=${line#*|}
		rc=0
		if [ "$mode" = offline ]; then
			args=${args//@/}
			# shellcheck disable=SC2086
			timeout 60 "$VOLCTL" "${imgs[@]}" $args >"$W/$mode/$cname.out" 2>/dev/null || rc=$?
		else
			args=${args//@/$FX_MNT}
			# shellcheck disable=SC2086
			timeout 60 "$VOLCTL" $args >"$W/$mode/$cname.out" 2>/dev/null || rc=$?
			# absolute paths through the mount: the mount point is / offline
			sed -i -e "s|$FX_MNT||g" -e 's|"absolute_path": ""|"absolute_path": "/"|g' \
				"$W/$mode/$cname.out"
		fi
		echo "$rc" >"$W/$mode/$cname.rc"
	done <"$FIXDIR/commands.list"
}

compare_shape() {
	local shape=$1 before fails=0 f
	build_shape "$W" "$shape" || { echo "cannot build $shape" >&2; return 1; }
	before=$(cat "$W/$shape".*img | sha256sum)
	run_list offline "$shape"
	[ "$(cat "$W/$shape".*img | sha256sum)" = "$before" ] ||
		{ echo "$shape: offline run changed the image" >&2; return 1; }
	fx_mount "$W" "$shape" ro
	run_list online "$shape"
	fx_umount
	for f in "$W"/online/*.rc; do
		c=$(basename "$f" .rc)
		if ! { cmp -s "$f" "$W/offline/$c.rc" &&
			diff -u "$W/online/$c.out" "$W/offline/$c.out" >&2; }; then
			echo "$shape/$c: online exit $(cat "$f"), offline exit $(cat "$W/offline/$c.rc")" >&2
			fails=$((fails + 1))
		fi
	done
	[ "$fails" -eq 0 ]
}

@test "offline vs online: rich4k" {
	compare_shape rich4k
}

@test "offline vs online: noquota16k (DUP metadata, quotas off)" {
	compare_shape noquota16k
}

@test "offline vs online: csum-xxhash" {
	compare_shape csum-xxhash
}

@test "offline vs online: csum-sha256" {
	compare_shape csum-sha256
}

@test "offline vs online: csum-blake2" {
	compare_shape csum-blake2
}

@test "offline vs online: node64k-nofst (64k nodes, no free-space tree)" {
	compare_shape node64k-nofst
}

@test "offline vs online: raid1 (two devices)" {
	compare_shape raid1
}

@test "offline vs online: multi4k (300 subvolumes)" {
	compare_shape multi4k
}

@test "offline vs online: many4k (2000 subvolumes, 3-level trees)" {
	compare_shape many4k
}

@test "offline vs online: squota4k (simple quotas)" {
	# volctl enables simple quotas for the shape: only the kernel may lack them
	[ -e /sys/fs/btrfs/features/simple_quota ] || skip "needs a kernel with simple quotas"
	compare_shape squota4k
}
