#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Odd paths, online against offline: the kernel builds the tree (subvolumes,
# directories, a regular file, symlinks), `volctl subvolume show` runs on
# odd spellings through the mount, the image is unmounted, and the same
# spellings run with --image.  Both must name the same subvolume or fail
# the same way, except where Documentation/volctl.8 ("PATHS") says offline
# differs: a symlink is not followed offline ("Not a directory"), and ".."
# at the top stays at the top offline while online it leaves the mount.
# Root and loop devices.

load ../helpers

setup() {
	require_root_loop
	LONG=$(printf 'x%.0s' $(seq 256))
}

teardown() {
	cleanup_mount
}

# kind OUTPUT STATUS: "id=N" for a subvolume shown, else the error's kind
kind() {
	local out=$1 rc=$2 id e
	if [ "$rc" -eq 0 ]; then
		id=$(printf '%s\n' "$out" | awk '/Subvolume ID:/ { print $3; exit }')
		echo "id=${id:-none}"
		return
	fi
	for e in "No such file or directory" "Not a directory" "File name too long" \
		"Too many levels of symbolic links" "not a subvolume" "not a btrfs" \
		"Not a Btrfs" "Inappropriate ioctl"; do
		if [[ "$out" == *"$e"* ]]; then
			echo "rc=$rc:$e"
			return
		fi
	done
	echo "rc=$rc:other:$(printf '%s' "$out" | head -1)"
}

# show_kind MODE PATH: kind of `subvolume show PATH`, online through $MNT or offline
show_kind() {
	local out rc=0
	if [ "$1" = online ]; then
		out=$("$VOLCTL" subvolume show "$MNT$2" 2>&1) || rc=$?
	else
		out=$("$VOLCTL" --image "$IMG" subvolume show "$2" 2>&1) || rc=$?
	fi
	kind "$out" "$rc"
}

@test "odd paths: subvolume show online and offline name the same subvolume or fail alike" {
	mkfs_mount 256M
	btrfs subvolume create "$MNT/a" >/dev/null
	btrfs subvolume create "$MNT/a/sub" >/dev/null
	mkdir -p "$MNT/d/e"
	echo data >"$MNT/f"
	ln -s a "$MNT/la"		# relative symlink to the subvolume /a
	ln -s d "$MNT/ld"		# relative symlink to the directory /d
	ln -s "$MNT/a" "$MNT/labs"	# absolute symlink through the mount point
	ln -s loop "$MNT/loop"		# a symlink loop
	sync -f "$MNT"

	# spellings where the rule says online and offline agree
	same=(/a //a /a/ /./a /a/. /a/./ //a//sub/ /a/sub /a/sub/.. /d/../a /d/e/../../a
		/d/e/../../a/sub /d /d/e /d/e/.. /f /f/ /f/. /f/x /f/.. /f/../a /nonexistent /a/nonexistent
		"/$LONG" "/a/$LONG" "/d/$LONG/../e")
	# spellings the rule resolves differently offline
	diff_sym=(/la /la/sub /la/. /ld/e/../../a /labs /labs/sub /loop /loop/x)
	diff_top=(/.. /../a /d/../../a)

	declare -A on
	for p in "${same[@]}" "${diff_sym[@]}" "${diff_top[@]}"; do
		on[$p]=$(show_kind online "$p")
	done
	cleanup_mount

	local bad=0 p off
	# sanity: the online answers are what the kernel gives for these shapes
	[ "${on[/a]#id=}" -ge 256 ] || { echo "online /a: ${on[/a]}"; bad=1; }
	[ "${on[/a/sub]}" != "${on[/a]}" ] || { echo "online /a/sub same as /a"; bad=1; }
	[ "${on[/f/x]}" = "rc=1:Not a directory" ] || { echo "online /f/x: ${on[/f/x]}"; bad=1; }
	[ "${on[/$LONG]}" = "rc=1:File name too long" ] || { echo "online long: ${on[/$LONG]}"; bad=1; }

	for p in "${same[@]}"; do
		off=$(show_kind offline "$p")
		if [ "$off" != "${on[$p]}" ]; then
			echo "DISAGREE ${p:0:40}: online ${on[$p]}, offline $off"
			bad=1
		fi
	done

	# symlinks: online follows them (the VFS), offline refuses a path
	# through one with "Not a directory" (documented)
	[ "${on[/la]}" = "${on[/a]}" ] || { echo "online /la: ${on[/la]}"; bad=1; }
	[ "${on[/la/sub]}" = "${on[/a/sub]}" ] || { echo "online /la/sub: ${on[/la/sub]}"; bad=1; }
	[ "${on[/ld/e/../../a]}" = "${on[/a]}" ] || { echo "online /ld/e/../../a: ${on[/ld/e/../../a]}"; bad=1; }
	[ "${on[/labs/sub]}" = "${on[/a/sub]}" ] || { echo "online /labs/sub: ${on[/labs/sub]}"; bad=1; }
	[ "${on[/loop/x]}" = "rc=1:Too many levels of symbolic links" ] ||
		{ echo "online /loop/x: ${on[/loop/x]}"; bad=1; }
	for p in /la/sub /la/. /ld/e/../../a /labs/sub /loop/x; do
		off=$(show_kind offline "$p")
		[ "$off" = "rc=1:Not a directory" ] ||
			{ echo "offline symlink $p: $off (documented: Not a directory)"; bad=1; }
	done
	# a symlink as the last component is not followed either: no subvolume
	for p in /la /labs /loop; do
		off=$(show_kind offline "$p")
		[[ "$off" == rc=* ]] || { echo "offline symlink $p: $off (followed?)"; bad=1; }
		echo "symlink last component $p: online ${on[$p]}, offline $off"
	done

	# ".." at the top: online it leaves the mount (the directory above $MNT
	# is no btrfs and has no "a"), offline it stays at the top (documented)
	[ "$(show_kind offline /..)" = "$(show_kind offline /a/..)" ] || { echo "offline /.."; bad=1; }
	[ "$(show_kind offline /../a)" = "${on[/a]}" ] ||
		{ echo "offline /../a: $(show_kind offline /../a), want ${on[/a]}"; bad=1; }
	[ "$(show_kind offline /d/../../a)" = "${on[/a]}" ] ||
		{ echo "offline /d/../../a: $(show_kind offline /d/../../a)"; bad=1; }
	for p in "${diff_top[@]}"; do
		[[ "${on[$p]}" == rc=* ]] || { echo "online $p: ${on[$p]} (stayed in the fs?)"; bad=1; }
		echo "top $p: online ${on[$p]}, offline $(show_kind offline "$p")"
	done
	[ "$bad" -eq 0 ]
}
