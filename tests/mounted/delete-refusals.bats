#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# subvolume delete refused by the kernel (EPERM, EACCES): the error names the
# cause that holds, with the path, instead of a list of causes that may not
# apply.  Each cause made for real on a loop-mounted image: inode flags of the
# subvolume and of its directory, an active swapfile, a send in progress,
# user nobody with and without user_subvol_rm_allowed (permissions, a sticky
# directory, the default subvolume); and offline (--image) the flags refuse
# the delete the same way, leaving the image as it was.

load ../helpers

setup() {
	require_root_loop
	mkfs_mount 512M
	cd "$MNT"
}

teardown() {
	cd /
	[ -z "${SWAPFILE:-}" ] || swapoff "$SWAPFILE" 2>/dev/null || true
	if [ -n "${SENDPID:-}" ]; then
		touch "$BATS_TEST_TMPDIR/release"
		wait "$SENDPID" 2>/dev/null || true
	fi
	cleanup_mount
}

as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}

subvol_names() {
	btrfs subvolume list . | awk '{print $NF}' | sort | tr '\n' ' '
}

@test "refused: immutable and append-only subvolume or directory: the flag and the chattr that lifts it" {
	"$VOLCTL" subvolume create a b >/dev/null
	"$VOLCTL" subvolume snapshot a snap >/dev/null
	mkdir d e
	"$VOLCTL" subvolume create d/s e/s >/dev/null
	chattr +i snap
	chattr +a b
	chattr +i d
	chattr +a e
	run_volctl subvolume delete snap
	assert_status 1
	[ "$output" = "error: snap: cannot delete: the subvolume is immutable (chattr -i snap to allow it) (Operation not permitted)" ]
	run_volctl subvolume delete -i 258 .
	assert_status 1
	[ "$output" = "error: subvolume 258: cannot delete: the subvolume is immutable (chattr -i $MNT/snap to allow it) (Operation not permitted)" ]
	run_volctl subvolume delete b
	assert_status 1
	[ "$output" = "error: b: cannot delete: the subvolume is append-only (chattr -a b to allow it) (Operation not permitted)" ]
	run_volctl subvolume delete d/s
	assert_status 1
	[ "$output" = "error: d/s: cannot delete: its parent directory is immutable (chattr -i d to allow it) (Operation not permitted)" ]
	run_volctl subvolume delete e/s
	assert_status 1
	[ "$output" = "error: e/s: cannot delete: its parent directory is append-only (chattr -a e to allow it) (Operation not permitted)" ]
	[ "$(subvol_names)" = "a b d/s e/s snap " ]
	# the command the message gives is the one that lifts it
	chattr -i snap
	chattr -a b
	run_volctl subvolume delete snap b
	assert_status 0
	[ "$(subvol_names)" = "a d/s e/s " ]
}

@test "refused: an active swapfile in the subvolume is named, with the swapoff that lifts it" {
	command -v swapon >/dev/null || skip "needs swapon (util-linux)"
	"$VOLCTL" subvolume create sw >/dev/null
	btrfs filesystem mkswapfile -s 16m sw/swapfile >/dev/null
	SWAPFILE=$MNT/sw/swapfile
	swapon "$SWAPFILE"
	run_volctl subvolume delete sw
	assert_status 1
	[ "$output" = "error: sw: cannot delete: it holds the active swapfile $SWAPFILE (swapoff $SWAPFILE to allow it) (Operation not permitted)" ]
	run_volctl subvolume delete -i 256 .
	assert_status 1
	[ "$output" = "error: subvolume 256: cannot delete: it holds the active swapfile $SWAPFILE (swapoff $SWAPFILE to allow it) (Operation not permitted)" ]
	swapoff "$SWAPFILE"
	SWAPFILE=
	run_volctl subvolume delete sw
	assert_status 0
	[ ! -e sw ]
}

@test "refused: a send in progress, the one cause with no trace, is named when nothing else holds" {
	"$VOLCTL" subvolume create a >/dev/null
	head -c 8M /dev/urandom >a/data
	"$VOLCTL" subvolume snapshot -r a ro >/dev/null
	# the reader takes one byte and waits: the send stays in the kernel, writing
	btrfs send -q "$MNT/ro" 2>/dev/null | {
		dd bs=1 count=1 status=none of=/dev/null
		touch "$BATS_TEST_TMPDIR/started"
		while [ ! -e "$BATS_TEST_TMPDIR/release" ]; do sleep 0.1; done
		cat >/dev/null
	} 3>&- &
	SENDPID=$!
	for _ in $(seq 300); do
		[ ! -e "$BATS_TEST_TMPDIR/started" ] || break
		sleep 0.1
	done
	[ -e "$BATS_TEST_TMPDIR/started" ]
	run_volctl subvolume delete ro
	touch "$BATS_TEST_TMPDIR/release"
	wait "$SENDPID"
	SENDPID=
	assert_status 1
	[ "$output" = "error: ro: cannot delete: possibly a send of it is running (no other cause found; the kernel log names it) (Operation not permitted)" ]
	run_volctl subvolume delete ro
	assert_status 0
}

@test "refused for nobody: no privilege, then with user_subvol_rm_allowed the permission that is missing" {
	command -v setpriv >/dev/null || skip "needs setpriv"
	"$VOLCTL" subvolume create a >/dev/null
	mkdir open sticky
	chmod 777 open
	chmod 1777 sticky
	"$VOLCTL" subvolume create open/mine open/root sticky/other >/dev/null
	chown nobody open/mine
	chmod 777 sticky/other
	let_nobody_reach_mnt
	run as_nobody "$VOLCTL" subvolume delete "$MNT/open/mine"
	assert_status 1
	[ "$output" = "error: $MNT/open/mine: cannot delete: deleting a subvolume needs CAP_SYS_ADMIN, or a mount with user_subvol_rm_allowed (Operation not permitted)" ]
	mount -o remount,user_subvol_rm_allowed "$MNT"
	# write and search on the subvolume: root's 755 gives nobody neither
	run as_nobody "$VOLCTL" subvolume delete "$MNT/open/root"
	assert_status 1
	[ "$output" = "error: $MNT/open/root: cannot delete: no write and search permission on the subvolume (needed without CAP_SYS_ADMIN) (Permission denied)" ]
	# ... and on the directory holding it: the top level is root's 755
	chown nobody a
	run as_nobody "$VOLCTL" subvolume delete "$MNT/a"
	assert_status 1
	[ "$output" = "error: $MNT/a: cannot delete: no write and search permission on its parent directory $MNT (Permission denied)" ]
	run as_nobody "$VOLCTL" subvolume delete "$MNT/sticky/other"
	assert_status 1
	[ "$output" = "error: $MNT/sticky/other: cannot delete: its parent directory $MNT/sticky is sticky and neither it nor the subvolume is yours (Operation not permitted)" ]
	chattr +i open/mine
	run as_nobody "$VOLCTL" subvolume delete "$MNT/open/mine"
	assert_status 1
	[ "$output" = "error: $MNT/open/mine: cannot delete: the subvolume is immutable (chattr -i $MNT/open/mine to allow it) (Operation not permitted)" ]
	chattr -i open/mine
	# nobody cannot read the default subvolume id (volctl and the kernel's check
	# both need the root tree): named beside a send, the unseen causes
	"$VOLCTL" subvolume set-default open/mine >/dev/null
	run as_nobody "$VOLCTL" subvolume delete "$MNT/open/mine"
	assert_status 1
	[ "$output" = "error: $MNT/open/mine: cannot delete: possibly a send of it is running, or it is the default subvolume (no other cause found; the kernel log names it) (Operation not permitted)" ]
	[ "$(subvol_names)" = "a open/mine open/root sticky/other " ]
	"$VOLCTL" subvolume set-default 5 . >/dev/null
	run as_nobody "$VOLCTL" subvolume delete "$MNT/open/mine"
	assert_status 0
	[ "$(subvol_names)" = "a open/root sticky/other " ]
}

@test "refused offline: the flags refuse --image delete as the kernel does, the image unchanged" {
	"$VOLCTL" subvolume create a src >/dev/null
	mkdir d
	"$VOLCTL" subvolume create d/s >/dev/null
	"$VOLCTL" subvolume snapshot src s.1 >/dev/null
	"$VOLCTL" subvolume snapshot src s.2 >/dev/null
	"$VOLCTL" subvolume snapshot src s.3 >/dev/null
	chattr +i a s.2
	chattr +a d
	cd /
	cleanup_mount
	local before
	before=$(md5sum <"$IMG")
	run_volctl --image "$IMG" subvolume delete /a
	assert_status 1
	[ "$output" = "error: /a: cannot delete: the subvolume is immutable (chattr -i on a mount lifts it) (Operation not permitted)" ]
	run_volctl --image "$IMG" subvolume delete -i 256 /
	assert_status 1
	[ "$output" = "error: subvolume 256: cannot delete: the subvolume is immutable (chattr -i on a mount lifts it) (Operation not permitted)" ]
	run_volctl --image "$IMG" subvolume delete /d/s
	assert_status 1
	[ "$output" = "error: /d/s: cannot delete: its parent directory is append-only (chattr -a on a mount lifts it) (Operation not permitted)" ]
	# prune deletes s.1 and s.2 in one transaction: s.2 refuses, none goes
	run_volctl_split --image "$IMG" subvolume prune --keep-last 1 /src
	[ "$status" -eq 1 ]
	[[ "$err" == *"error: subvolume 260: cannot delete: the subvolume is immutable (chattr -i on a mount lifts it)"* ]]
	[[ "$err" == *"error: subvolume 259: not deleted, the one transaction was abandoned (subvolume 260: cannot delete: the subvolume is immutable"* ]]
	[ "$(md5sum <"$IMG")" = "$before" ]
	btrfs_check_clean
	# the flags of other subvolumes do not matter
	run_volctl --image "$IMG" subvolume delete /s.3
	assert_status 0
	btrfs_check_clean
	run_volctl --image "$IMG" subvolume list /
	[ "$(awk '{ print $NF }' <<<"$output" | tr '\n' ' ')" = "a src d/s s.1 s.2 " ]
}
