#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Odd --image targets: every reader, writer, check and dump names the object
# and the real cause in one line, exits non-zero, and changes nothing.

load ../helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
}

teardown() {
	chattr -i -a "$BATS_TEST_TMPDIR"/*.img 2>/dev/null || true
}

# refused_everywhere TARGET WANT: readers, writers, check and the dumps all
# fail with exactly one line "error: WANT"
refused_everywhere() {
	local target=$1 want=$2 args
	for args in "--image $target subvolume list /" "--image $target qgroup show /" \
		    "--image $target subvolume create /a" "--image $target quota enable /" \
		    "check $target" "inspect super $target" "inspect tree -t root $target"; do
		# shellcheck disable=SC2086
		run_volctl_split $args
		if [ "$status" -ne 1 ] || [ "$err" != "error: $want" ]; then
			echo "volctl $args: exit $status, stderr: $err" >&2
			return 1
		fi
	done
}

@test "an empty image file: says it is empty, not a superblock beyond the end" {
	: >empty.img
	refused_everywhere empty.img "empty.img: empty file (0 bytes), not a btrfs filesystem"
	[ ! -s empty.img ]
}

@test "a file too short for the primary superblock: says how long it is" {
	head -c 10000 /dev/zero >short.img
	refused_everywhere short.img \
		"short.img: 10000 bytes, too short for a btrfs filesystem (its primary superblock ends at 69632)"
}

@test "--image /dev/null, a directory, a fifo: say what the target is" {
	refused_everywhere /dev/null "/dev/null: a character device, not an image file or a block device"
	mkdir dir
	refused_everywhere dir "dir: a directory, not an image file or a block device"
	mkfifo fifo
	refused_everywhere fifo "fifo: a fifo, not an image file or a block device"
}

@test "mkfs still writes into an empty file, and refuses a directory" {
	: >new.img
	run_volctl mkfs -s 256M new.img
	assert_status 0
	mkdir dir
	run_volctl_split mkfs -s 256M dir
	[ "$status" -eq 1 ]
	[ "$err" = "error: dir: a directory, not an image file or a block device" ]
}

@test "--image given no file: a usage error naming the group it swallowed" {
	local g
	for g in subvolume qgroup quota inspect; do
		run_volctl_split --image "$g" list /
		[ "$status" -eq 2 ]
		[ "$err" = "error: --image needs a FILE: '$g' is a command group, and no file of that name exists (volctl --image FILE $g ...)" ]
	done
	run_volctl_split subvolume list / --image qgroup
	[ "$status" -eq 2 ]
	[[ "$err" == "error: --image needs a FILE: 'qgroup' is a command group"* ]]
	run_volctl_split --image check x
	[ "$status" -eq 2 ]
	[[ "$err" == "error: --image needs a FILE: 'check' is a command,"* ]]
	# a file of that name is an image like any other
	"$VOLCTL" mkfs -s 256M quota >/dev/null
	run_volctl --image quota subvolume list /
	assert_status 0
}

@test "an immutable or append-only image: the writer names the flag and how to lift it" {
	[ "$(id -u)" -eq 0 ] || skip "chattr +i needs CAP_LINUX_IMMUTABLE (root)"
	"$VOLCTL" mkfs -s 256M t.img >/dev/null
	chattr +i t.img 2>/dev/null || skip "the filesystem of $BATS_TEST_TMPDIR has no immutable flag"
	before=$(sha256sum <t.img)
	run_volctl_split --image t.img subvolume create /a
	[ "$status" -eq 1 ]
	[ "$err" = "error: t.img: the file is immutable (chattr +i), cannot write it; chattr -i t.img lifts that" ]
	run_volctl_split --image t.img qgroup create 1/1 /
	[ "$status" -eq 1 ]
	[[ "$err" == "error: t.img: the file is immutable (chattr +i)"* ]]
	# readers are fine
	run_volctl --image t.img subvolume list /
	assert_status 0
	chattr -i t.img
	chattr +a t.img
	run_volctl_split --image t.img subvolume create /a
	[ "$status" -eq 1 ]
	[ "$err" = "error: t.img: the file is append-only (chattr +a), cannot write it in place; chattr -a t.img lifts that" ]
	chattr -a t.img
	[ "$(sha256sum <t.img)" = "$before" ]
}

@test "an image the user may not write: names the mode and owner" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to run as another user (setpriv)"
	command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
	"$VOLCTL" mkfs -s 256M t.img >/dev/null
	chmod 0644 t.img
	chmod 0755 "$BATS_TEST_TMPDIR"
	run setpriv --reuid=65534 --regid=65534 --clear-groups "$VOLCTL" --image t.img subvolume create /a
	[ "$status" -eq 1 ]
	[ "$output" = "error: t.img: no write permission (mode 0644, owner 0:0)" ]
}
