#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# volctl mkfs --rootdir against the kernel: a user who is not root builds a
# root-owned image (setpriv, no fakeroot, no unshare) that the kernel mounts
# with every file as in the tree; qgroup numbers written equal the kernel's
# rescan; subvolumes made from directories carry their content, read-only
# and default as asked.  (Random trees: rootdir-oracle.bats.)

load ../helpers

setup() {
	require_root_loop
	command -v setpriv >/dev/null || skip "needs setpriv (util-linux)"
	WORK="$BATS_TEST_TMPDIR/w"
	SRC="$WORK/src"
	IMG="$WORK/fs.img"
	MNT="$BATS_TEST_TMPDIR/mnt"
	mkdir -p "$SRC" "$MNT"
	LOOPDEV=
}

teardown() {
	mountpoint -q "$MNT" && umount "$MNT"
	[ -n "$LOOPDEV" ] && losetup -d "$LOOPDEV" 2>/dev/null
	true
}

as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}

make_tree() {
	mkdir -p "$SRC/etc" "$SRC/home/user" "$SRC/var/lib"
	printf 'root:x:0:0::/root:/bin/sh\n' >"$SRC/etc/passwd"
	head -c 1000000 /dev/urandom >"$SRC/var/lib/blob"
	head -c 1000 /dev/urandom >"$SRC/home/user/note"
	ln "$SRC/var/lib/blob" "$SRC/var/lib/blob-link"
	ln -s ../etc/passwd "$SRC/var/passwd-link"
	chmod 4755 "$SRC/etc/passwd"
	touch -h -d '2003-04-05 06:07:08.987654321' "$SRC/var/lib/blob" "$SRC/var/passwd-link"
}

mount_ro() {
	LOOPDEV=$(losetup -f --show -r "$IMG")
	mount -o ro "$LOOPDEV" "$MNT"
}

@test "mkfs --rootdir as nobody: --owner 0:0 gives a root-owned image the kernel mounts" {
	make_tree
	chown -R nobody:nogroup "$WORK"
	chmod 4755 "$SRC/etc/passwd"	# chown cleared it
	# nobody reaches $WORK through this run's private directories
	d=$(dirname "$WORK")
	while [ "$d" != / ] && [[ "$d" == "$BATS_RUN_TMPDIR"* ]]; do
		chmod o+x "$d"
		d=$(dirname "$d")
	done
	run as_nobody "$VOLCTL" mkfs -s 256M -r "$SRC" --owner 0:0 "$IMG"
	[ "$status" -eq 0 ] || { echo "$output" >&2; false; }
	[ "$(stat -c %U "$IMG")" = nobody ]
	run btrfs check --readonly "$IMG"
	assert_status 0
	mount_ro
	# every inode root's, everything else as in the tree
	run find "$MNT" ! -user root -o ! -group root
	[ -z "$output" ] || { echo "not root-owned: $output" >&2; false; }
	run diff -r --no-dereference "$SRC" "$MNT"
	assert_status 0
	[ "$(stat -c %a "$MNT/etc/passwd")" = 4755 ]
	[ "$(stat -c %y "$MNT/var/lib/blob")" = "$(stat -c %y "$SRC/var/lib/blob")" ]
	[ "$(stat -c %y "$MNT/var/passwd-link")" = "$(stat -c %y "$SRC/var/passwd-link")" ]
	[ "$(stat -c %i "$MNT/var/lib/blob")" = "$(stat -c %i "$MNT/var/lib/blob-link")" ]
	[ "$(stat -c %h "$MNT/var/lib/blob")" = 2 ]
}

@test "mkfs --rootdir --quota --subvol: numbers equal the kernel's rescan, types applied" {
	make_tree
	run "$VOLCTL" mkfs -s 256M -r "$SRC" --quota --subvol default:home --subvol ro:/var "$IMG"
	[ "$status" -eq 0 ] || { echo "$output" >&2; false; }
	LOOPDEV=$(losetup -f --show "$IMG")
	mount -o subvolid=5 "$LOOPDEV" "$MNT"
	before=$(btrfs qgroup show --raw "$MNT" | awk '/^0\//{print $1, $2, $3}')
	[ -n "$before" ]
	btrfs quota rescan -w "$MNT" >/dev/null
	after=$(btrfs qgroup show --raw "$MNT" | awk '/^0\//{print $1, $2, $3}')
	[ "$before" = "$after" ] || { echo "written: $before / rescan: $after" >&2; false; }
	[ "$(btrfs property get -ts "$MNT/var" ro)" = "ro=true" ]
	[ "$(btrfs property get -ts "$MNT/home" ro)" = "ro=false" ]
	run btrfs subvolume get-default "$MNT"
	assert_output_contains "path home"
	cmp "$SRC/home/user/note" "$MNT/home/user/note"
	cmp "$SRC/var/lib/blob" "$MNT/var/lib/blob"
	umount "$MNT"
	# a plain mount shows the default subvolume
	mount "$LOOPDEV" "$MNT"
	[ -f "$MNT/user/note" ]
}

@test "mkfs --rootdir --qgroup --snapshot: the hierarchy's numbers equal the kernel's rescan" {
	make_tree
	mkdir -p "$SRC/@/etc"
	head -c 700000 /dev/urandom >"$SRC/@/etc/big"
	run "$VOLCTL" mkfs -s 256M -r "$SRC" --quota --subvol @ --subvol home --subvol /var \
		--snapshot @:/snaps/1:ro --qgroup 1/0:/@,/snaps/1 --qgroup 1/1:/home,/var \
		--limit 100M:1/0 "$IMG"
	[ "$status" -eq 0 ] || { echo "$output" >&2; false; }
	LOOPDEV=$(losetup -f --show "$IMG")
	mount "$LOOPDEV" "$MNT"
	before=$(btrfs qgroup show --raw "$MNT" | awk '/^[0-9]+\//{print $1, $2, $3}')
	[ "$(echo "$before" | grep -c '^1/')" = 2 ]
	btrfs quota rescan -w "$MNT" >/dev/null
	after=$(btrfs qgroup show --raw "$MNT" | awk '/^[0-9]+\//{print $1, $2, $3}')
	[ "$before" = "$after" ] || { echo "written: $before / rescan: $after" >&2; false; }
	cmp "$SRC/@/etc/big" "$MNT/snaps/1/etc/big"
}

@test "mkfs --rootdir: a mount point inside DIR is not crossed and is named on stderr" {
	make_tree
	mkdir -p "$SRC/mnt-here"
	mount -t tmpfs none "$SRC/mnt-here"
	printf 'other fs' >"$SRC/mnt-here/file"
	run "$VOLCTL" mkfs -s 256M -r "$SRC" "$IMG"
	umount "$SRC/mnt-here"
	[ "$status" -eq 0 ] || { echo "$output" >&2; false; }
	assert_output_contains "$SRC/mnt-here: a mount point, not copied"
	mount_ro
	[ ! -e "$MNT/mnt-here" ]
	[ -f "$MNT/etc/passwd" ]
}

@test "mkfs --rootdir as nobody: an unreadable file or directory is refused before anything is written" {
	make_tree
	chown -R nobody:nogroup "$WORK"
	d=$(dirname "$WORK")
	while [ "$d" != / ] && [[ "$d" == "$BATS_RUN_TMPDIR"* ]]; do
		chmod o+x "$d"
		d=$(dirname "$d")
	done
	printf 'secret' >"$SRC/etc/shadow"
	chmod 000 "$SRC/etc/shadow"
	run as_nobody "$VOLCTL" mkfs -s 256M -r "$SRC" "$IMG"
	[ "$status" -eq 1 ] || { echo "$output" >&2; false; }
	assert_output_contains "$SRC/etc/shadow: Permission denied"
	[ ! -e "$IMG" ]
	rm -f "$SRC/etc/shadow"
	mkdir "$SRC/locked"
	chown nobody "$SRC/locked"
	chmod 000 "$SRC/locked"
	run as_nobody "$VOLCTL" mkfs -s 256M -r "$SRC" "$IMG"
	[ "$status" -eq 1 ] || { echo "$output" >&2; false; }
	assert_output_contains "$SRC/locked: Permission denied"
	[ ! -e "$IMG" ]
}

@test "mkfs --rootdir: hard links across a subvolume boundary become one inode per subvolume (as btrfs-progs 6.19)" {
	make_tree
	mkdir -p "$SRC/home/user"
	ln "$SRC/var/lib/blob" "$SRC/home/user/blob-too"
	run "$VOLCTL" mkfs -s 256M -r "$SRC" --subvol /home "$IMG"
	[ "$status" -eq 0 ] || { echo "$output" >&2; false; }
	mount_ro
	# in the top level: blob and blob-link, one inode with 2 links; in /home its own inode
	[ "$(stat -c %h "$MNT/var/lib/blob")" = 2 ]
	[ "$(stat -c %i "$MNT/var/lib/blob")" = "$(stat -c %i "$MNT/var/lib/blob-link")" ]
	[ "$(stat -c %h "$MNT/home/user/blob-too")" = 1 ]
	cmp "$SRC/var/lib/blob" "$MNT/home/user/blob-too"
}

@test "mkfs --rootdir --simple-quota: the kernel uncharges the copied data by its owner refs" {
	make_tree
	run "$VOLCTL" mkfs -s 256M -r "$SRC" --simple-quota --subvol /var "$IMG"
	[ "$status" -eq 0 ] || { echo "$output" >&2; false; }
	run "$VOLCTL" check "$IMG"
	assert_status 0
	LOOPDEV=$(losetup -f --show "$IMG")
	mount "$LOOPDEV" "$MNT"
	before=$(btrfs qgroup show --raw "$MNT" | awk '$1 == "0/256" {print $2}')
	# blob is 1000000 bytes: 245 sectors, one extent, charged to 0/256 alone
	rm "$MNT/var/lib/blob" "$MNT/var/lib/blob-link"
	btrfs filesystem sync "$MNT"
	after=$(btrfs qgroup show --raw "$MNT" | awk '$1 == "0/256" {print $2}')
	[ $((before - after)) -ge 1003520 ] || { echo "before $before after $after" >&2; false; }
}
