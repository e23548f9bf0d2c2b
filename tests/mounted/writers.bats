#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Two writers, and a mount during a write: every name of one storage (the
# image file, its loop devices, a disk's partitions, a device-mapper device
# on top) is claimed by a writer, a second writer or a mount through any of
# them is refused naming the holder, and a mount that starts during a write
# stops the commit before its superblocks.  The first writer is held still
# at its first fsync (the flush before the commit's superblocks) by strace
# injecting SIGSTOP there, so no test depends on timing.

load ../helpers

setup() {
	require_root_loop
	command -v strace >/dev/null || skip "needs strace (to stop a writer at its fsync)"
	D=$BATS_TEST_TMPDIR
	IMG=$D/t.img
	MNT=$D/mnt
	mkdir -p "$MNT"
	LOOPS=()
	DM=
	WRITER=
}

teardown() {
	local l
	if [ -n "$WRITER" ] && kill -0 "$WRITER" 2>/dev/null; then
		kill -CONT "$WRITER" 2>/dev/null || true
		wait "$STRACE" 2>/dev/null || true
	fi
	if mountpoint -q "$MNT" 2>/dev/null; then
		umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null || true
	fi
	[ -z "$DM" ] || dmsetup remove "$DM" 2>/dev/null || true
	for l in "${LOOPS[@]}"; do losetup -d "$l" 2>/dev/null || true; done
}

# attach [-P] FILE: a new loop device, in L (detached by teardown)
attach() {
	L=$(losetup -f --show "$@")
	LOOPS+=("$L")
}

# start_paused ARGS...: volctl ARGS in the background, stopped at its first
# fsync (strace's log says "stopped by SIGSTOP" once the stop took effect;
# a process state of "t" alone may be any ptrace stop); its pid in WRITER
# (strace's in STRACE)
start_paused() {
	local i
	# LeakSanitizer cannot run under ptrace (make check-asan): no leak check here
	# shellcheck disable=SC2016
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -o "$D/strace.log" -e trace=fsync -e inject=fsync:signal=SIGSTOP:when=1 \
		sh -c 'echo $$ >"$0"; exec "$@"' "$D/writer.pid" "$VOLCTL" "$@" \
		>"$D/writer.out" 2>&1 &
	STRACE=$!
	for i in $(seq 1 600); do
		if grep -q "stopped by SIGSTOP" "$D/strace.log" 2>/dev/null; then
			WRITER=$(cat "$D/writer.pid")
			return 0
		fi
		kill -0 "$STRACE" 2>/dev/null || break
		sleep 0.1
	done
	echo "the writer never reached its fsync:" >&2
	cat "$D/writer.out" "$D/strace.log" >&2
	return 1
}

# resume: let the stopped writer go on; its exit status in WRITER_RC
resume() {
	kill -CONT "$WRITER"
	WRITER_RC=0
	wait "$STRACE" || WRITER_RC=$?
	WRITER=
}

subvols() {
	"$VOLCTL" --image "$IMG" subvolume list / | awk '{print $NF}' | tr '\n' ' '
}

primary_super() {
	dd if="$IMG" bs=4096 skip=16 count=1 status=none | sha256sum
}

# assert_error MSG: $output is the one line MSG, or MSG followed by the
# errno's own text in parentheses (as every volctl error keeps it)
assert_error() {
	[ "$output" = "$1" ] || [[ "$output" =~ ^"$1"\ \([A-Za-z\ ]+\)$ ]] ||
		{ echo "expected: $1 [(errno text)]"; echo "got:      $output"; return 1; }
}

@test "a writer through the file keeps out a writer and a mount through its loop device" {
	"$VOLCTL" mkfs -s 128M "$IMG" >/dev/null
	local l
	attach "$IMG"
	l=$L
	start_paused --image "$IMG" subvolume create /p1
	run_volctl --image "$l" subvolume create /p2
	assert_status 1
	assert_error "error: $l: backing file $IMG is in use by volctl (pid $WRITER)"
	# the kernel is kept out of the loop device too (the writer holds it O_EXCL)
	run mount -o ro "$l" "$MNT"
	[ "$status" -ne 0 ]
	resume
	[ "$WRITER_RC" -eq 0 ]
	[ "$(subvols)" = "p1 " ]
	btrfs_check_clean
}

@test "a writer through a loop device keeps out writers through the file and a new loop device" {
	"$VOLCTL" mkfs -s 128M "$IMG" >/dev/null
	local l l2
	attach "$IMG"
	l=$L
	start_paused --image "$l" subvolume create /p1
	run_volctl --image "$IMG" subvolume create /p2
	assert_status 1
	assert_error "error: $IMG: loop device $l is in use by volctl (pid $WRITER)"
	# a loop device attached after the first writer started
	attach "$IMG"
	l2=$L
	run_volctl --image "$l2" subvolume create /p3
	assert_status 1
	assert_error "error: $l2: loop device $l is in use by volctl (pid $WRITER)"
	run_volctl mkfs -f "$IMG"
	assert_status 1
	assert_output_contains "in use by volctl (pid $WRITER)"
	resume
	[ "$WRITER_RC" -eq 0 ]
	[ "$(subvols)" = "p1 " ]
	btrfs_check_clean
}

@test "a mount started during a write stops the commit before its superblocks" {
	"$VOLCTL" mkfs -s 128M "$IMG" >/dev/null
	local before l
	before=$(primary_super)
	start_paused --image "$IMG" subvolume create /p1
	# a new loop device, attached and mounted after the writer's claim
	mount -o ro,loop "$IMG" "$MNT"
	l=$(findmnt -n -o SOURCE "$MNT")
	resume
	[ "$WRITER_RC" -eq 1 ]
	grep -qxF "error: $IMG: loop device $l is mounted on $MNT (Device or resource busy)" "$D/writer.out" ||
		{ cat "$D/writer.out" >&2; return 1; }
	umount "$MNT"
	[ "$(primary_super)" = "$before" ]
	[ "$(subvols)" = "" ]
	btrfs_check_clean
	run_volctl --image "$IMG" subvolume create /p1
	assert_status 0
}

@test "mkfs: a disk whose partition is mounted is refused, through the file and the disk" {
	local l p sectors
	truncate -s 300M "$IMG"
	# one MBR partition from sector 2048 to the end, type 0x83
	sectors=$(((300 << 11) - 2048))
	printf '\x00\x00\x00\x00\x83\x00\x00\x00\x00\x08\x00\x00%b' \
		"$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $((sectors & 255)) \
			$(((sectors >> 8) & 255)) $(((sectors >> 16) & 255)) $((sectors >> 24)))" |
		dd of="$IMG" bs=1 seek=446 conv=notrunc status=none
	printf '\x55\xaa' | dd of="$IMG" bs=1 seek=510 conv=notrunc status=none
	attach -P "$IMG"
	l=$L
	p=${l}p1
	[ -b "$p" ] || udevadm settle 2>/dev/null || true
	[ -b "$p" ] || skip "needs partition tables in the kernel (no $p for an MBR)"
	mkfs.btrfs -q -f "$p" >/dev/null
	mount "$p" "$MNT"
	run_volctl mkfs -f "$l"
	assert_status 1
	assert_error "error: $l: partition $p is mounted on $MNT"
	run_volctl mkfs -f "$IMG"
	assert_status 1
	assert_error "error: $IMG: partition $p is mounted on $MNT"
	umount "$MNT"
	# the partition's filesystem is intact
	btrfs check --readonly "$p" >/dev/null 2>&1
}

@test "a device-mapper device on the image's loop device is named; a writer through it keeps the file out" {
	command -v dmsetup >/dev/null || skip "needs dmsetup"
	grep -qw device-mapper /proc/devices || skip "needs device-mapper in the kernel"
	"$VOLCTL" mkfs -s 128M "$IMG" >/dev/null
	local l
	attach "$IMG"
	l=$L
	DM=volctl-test-$(basename "$D")
	dmsetup create "$DM" --table "0 $((128 << 11)) linear $l 0"
	run_volctl --image "$IMG" subvolume create /p1
	assert_status 1
	assert_error "error: $IMG: loop device $l is held by device-mapper device /dev/mapper/$DM"
	start_paused --image "/dev/mapper/$DM" subvolume create /p2
	run_volctl --image "$IMG" subvolume create /p3
	assert_status 1
	assert_error "error: $IMG: in use by volctl (pid $WRITER)"
	resume
	[ "$WRITER_RC" -eq 0 ]
	dmsetup remove "$DM"
	DM=
	[ "$(subvols)" = "p2 " ]
	btrfs_check_clean
}
