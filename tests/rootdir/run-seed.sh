#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# run-seed.sh --tool 'CMD' SEED [options]: one seed of the mkfs --rootdir
# oracle.  As root, on its own loop devices and temp dir:
#   source    a scratch btrfs (loop, noatime), gentree.py SEED, manifest.py
#   tool      CMD with {DIR} (the tree), {IMG} (the image file), {SIZE}
#   check     btrfs check --readonly IMG (never mounted if this fails)
#   treecmp   the image mounted ro, treecmp.py against the manifest
#   quota     with quotas on: qgroup show as the image has it (ro mount),
#             then the kernel's quota rescan -w on the rw mount, equal
#   scrub     rw mount, btrfs scrub start -B; a read-only snapshot of the
#             top level (.oracle-ro) for the second path
#   usage     files added and removed, a snapshot taken and written, a full
#             balance, unmount, then
#   check2    btrfs check --readonly again
#   send      btrfs send .oracle-ro, btrfs receive on a fresh kernel btrfs,
#             treecmp.py of the received tree, without the fields that
#             send/receive does not carry (ctime: receive cannot set it)
# Exit 0 when all pass; otherwise 1 and "FAILED at STAGE" naming the first
# failing stage (treecmp differences do not stop the later stages; a tool,
# check or mount failure does).  2 on bad usage.
#
# Options:
#   --scale small|large   the gentree scale (default small)
#   --order-seed N        gentree's creation order
#   --no-root             gentree --no-root (no devices, owners, trusted.*)
#   --gentree 'ARGS'      more gentree.py options (--symlink-max 4094)
#   --size SIZE           the image file is made this large before CMD runs,
#                         and {SIZE} is it (default 1G, 3G with large); 0:
#                         no file is made, {SIZE} is that default
#   --treecmp 'ARGS'      more treecmp.py options (--owner, --uid-map, --clamp)
#   --grow SIZE           before the rw stages, the image file grows by SIZE
#                         and the filesystem with it (resize max): for images
#                         made with --shrink, which have no room to write
#   --btrfs BIN           the btrfs used for check, scrub, send, receive
#                         (default: btrfs in PATH, Debian's)
#   --keep                keep the temp dir (images, manifest, logs; every
#                         difference is in treecmp.txt, send-treecmp.txt)
#   --workdir DIR         where the temp dirs go (default /tmp/rootdir-oracle)
# Examples:
#   run-seed.sh --tool 'mkfs.btrfs -q --rootdir {DIR} {IMG}' 7
#   run-seed.sh --tool 'volctl mkfs --rootdir {DIR} -s {SIZE} {IMG}' --size 0 7
#   run-seed.sh --tool 'tests/rootdir/rootway.sh {DIR} {IMG}' 7
# A check that fails on nothing but stale free space tree entries (Debian's
# mkfs.btrfs 6.2 leaves those of its temporary chunks) is recorded as
# "known:", the tree is cleared with btrfs check --clear-space-cache v2 and
# checked again; only a clean image is mounted.

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TOOL='' SEED='' SCALE=small ORDER='' NOROOT='' SIZE='' KEEP='' TCARGS='' GTARGS='' BTRFS=btrfs
BASE=/tmp/rootdir-oracle

usage() { sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
	case $1 in
	--tool) TOOL=$2; shift ;;
	--scale) SCALE=$2; shift ;;
	--order-seed) ORDER=$2; shift ;;
	--no-root) NOROOT=--no-root ;;
	--gentree) GTARGS=$2; shift ;;
	--size) SIZE=$2; shift ;;
	--treecmp) TCARGS=$2; shift ;;
	--btrfs) BTRFS=$2; shift ;;
	--keep) KEEP=1 ;;
	--grow) GROW=$2; shift ;;
	--workdir) BASE=$2; shift ;;
	-h|--help) usage 0 ;;
	-*) echo "run-seed: unknown option $1" >&2; exit 2 ;;
	*) [ -z "$SEED" ] || { echo "run-seed: one seed" >&2; exit 2; }; SEED=$1 ;;
	esac
	shift
done
if [ -z "$TOOL" ] || [ -z "$SEED" ]; then
	echo "run-seed: --tool CMD and SEED are needed" >&2; exit 2
fi
case $SCALE in small|large) ;; *) echo "run-seed: --scale small|large" >&2; exit 2 ;; esac
[ "$(id -u)" -eq 0 ] || { echo "run-seed: needs root" >&2; exit 2; }
DEFSIZE=1G; [ "$SCALE" = large ] && DEFSIZE=3G
SRCSIZE=$DEFSIZE
[ -n "$SIZE" ] || SIZE=$DEFSIZE

mkdir -p "$BASE"
W=$(mktemp -d "$BASE/seed$SEED.XXXXXX")
MOUNTS=() LOOPS=() FAILED=()
# shellcheck disable=SC2317  # called by the trap
cleanup() {
	local i
	for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
		mountpoint -q "${MOUNTS[i]}" 2>/dev/null &&
			{ umount "${MOUNTS[i]}" 2>/dev/null || umount -l "${MOUNTS[i]}"; }
	done
	for ((i = ${#LOOPS[@]} - 1; i >= 0; i--)); do
		losetup -d "${LOOPS[i]}" 2>/dev/null
	done
	if [ -z "$KEEP" ]; then rm -rf "$W"; else echo "run-seed: kept $W" >&2; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say() { echo "run-seed: seed $SEED: $*"; }
fail() {	# fail STAGE MESSAGE: recorded, the run goes on
	say "$1: FAIL: $2"
	FAILED+=("$1")
}
die() {		# die STAGE MESSAGE: recorded, the run stops
	fail "$1" "$2"
	finish
}
finish() {
	if [ ${#FAILED[@]} -eq 0 ]; then
		say "all stages passed"
		exit 0
	fi
	say "FAILED at ${FAILED[0]}${FAILED[1]:+ (also: ${FAILED[*]:1})}"
	exit 1
}
# mnt IMAGE DIR [OPTS]: loop-mount, remembered for the trap
mnt() {
	local dev
	dev=$(losetup -f --show "$1") || return 1
	LOOPS+=("$dev")
	mkdir -p "$2"
	if ! mount ${3:+-o "$3"} "$dev" "$2"; then
		losetup -d "$dev"; unset 'LOOPS[-1]'; return 1
	fi
	MOUNTS+=("$2")
}
umnt() {	# umnt DIR: unmount, detach its loop device and forget it, so
	# that the trap never detaches a number another user got since
	local dev i keep=()
	dev=$(findmnt -n -o SOURCE --mountpoint "$1" | head -1)
	umount "$1" || return 1
	[ -n "$dev" ] || return 0
	losetup -d "$dev" 2>/dev/null
	for i in "${LOOPS[@]}"; do [ "$i" = "$dev" ] || keep+=("$i"); done
	LOOPS=("${keep[@]}")
}
# summary FILE: the differences of a treecmp output by class (the field, an
# xattr by its namespace), with the count and the first line of each; the
# path of that line shortened to its last 60 characters
summary() {
	awk -F': ' '/: / && !/^treecmp:/ {
		c = $2; sub(/^xattr [a-z]*\..*/, "xattr " substr($2, 7, index(substr($2, 7), ".")) "*", c)
		if (!(c in n)) { order[++k] = c; first[c] = $0 }
		n[c]++
	}
	END {
		for (i = 1; i <= k; i++) {
			c = order[i]; line = first[c]; p = index(line, ": ")
			path = substr(line, 1, p - 1)
			if (length(path) > 60) path = "..." substr(path, length(path) - 59)
			printf "    %-22s %5d  e.g. %s%s\n", c, n[c], path, substr(line, p)
		}
	}' "$1"
}
# check STAGE IMAGE: btrfs check --readonly, the mkfs 6.2 free space tree
# leftovers recorded and cleared; 1 when the image must not be mounted
check() {
	local log=$W/$1.log
	if "$BTRFS" check --readonly "$2" >"$log" 2>&1; then
		say "$1: ok"; return 0
	fi
	# only free space tree complaints?
	if grep -qi 'free space' "$log" &&
	   ! grep -vi 'free space\|^\[\|^Opening\|^Checking\|^UUID\|^found\|^total\|^file data\|^referenced\|^cache and\|^ERROR: errors found\|^there is no\|^Wanted\|^space cache' "$log" | grep -qi 'error\|corrupt\|mismatch\|wrong\|missing\|bad'; then
		say "$1: known: free space tree entries check complains about ($(grep -ci 'free space' "$log") lines), cleared with --clear-space-cache v2"
		grep -i 'free space' "$log" | head -3 | sed 's/^/    /'
		"$BTRFS" check --clear-space-cache v2 "$2" >>"$log" 2>&1 &&
		"$BTRFS" check --readonly "$2" >>"$log" 2>&1 && { say "$1: ok after clearing"; return 0; }
	fi
	sed 's/^/    /' "$log" | head -40
	return 1
}

say "work dir $W, tool: $TOOL"
truncate -s "$SRCSIZE" "$W/src.img"
mkfs.btrfs -q -f "$W/src.img" >/dev/null 2>&1 || die source "mkfs of the scratch btrfs"
mnt "$W/src.img" "$W/src" noatime || die source "mount of the scratch btrfs"
DIR=$W/src/tree
# shellcheck disable=SC2086
python3 "$HERE/gentree.py" "$SEED" "$DIR" --scale "$SCALE" ${ORDER:+--order-seed "$ORDER"} $NOROOT $GTARGS \
	2>"$W/gentree.log" || { cat "$W/gentree.log"; die source "gentree"; }
sync -f "$DIR"
python3 "$HERE/manifest.py" "$DIR" >"$W/manifest.json" || die source "manifest"
say "source: $(sed 's/^gentree: seed [0-9]*: //' "$W/gentree.log")"

IMG=$W/image.img
TSIZE=$SIZE
if [ "$SIZE" != 0 ]; then truncate -s "$SIZE" "$IMG"; else TSIZE=$DEFSIZE; fi
cmd=${TOOL//\{DIR\}/$DIR}
cmd=${cmd//\{IMG\}/$IMG}
cmd=${cmd//\{SIZE\}/$TSIZE}
if ! (eval "$cmd") >"$W/tool.log" 2>&1; then
	sed 's/^/    /' "$W/tool.log" | tail -20
	die tool "exit status of: $cmd"
fi
say "tool: ok"

check check "$IMG" || die check "btrfs check --readonly (the image is not mounted)"

mnt "$IMG" "$W/img" ro || die treecmp "ro mount"
# shellcheck disable=SC2086
if python3 "$HERE/treecmp.py" "$W/manifest.json" "$W/img" $TCARGS >"$W/treecmp.txt" 2>&1; then
	say "treecmp: $(tail -1 "$W/treecmp.txt")"
else
	fail treecmp "$(grep -vc '^treecmp:' "$W/treecmp.txt") differences, by class:"
	summary "$W/treecmp.txt"
fi
# the numbers the tool wrote, read before any rw mount can rescan them
QUOTA=
if "$BTRFS" qgroup show --raw "$W/img" >"$W/qgroup-image.txt" 2>"$W/qgroup-image.err"; then
	QUOTA=1
fi
umnt "$W/img" || die treecmp "umount"

[ -z "${GROW:-}" ] || truncate -s "+$GROW" "$IMG" || die scrub "grow the image by $GROW"
mnt "$IMG" "$W/img" || die scrub "rw mount"
if [ -n "${GROW:-}" ]; then
	"$BTRFS" filesystem resize max "$W/img" >/dev/null || die scrub "resize max"
fi
# quota: the kernel's rescan must give the numbers the image holds
if [ -n "$QUOTA" ]; then
	for _ in 1 2 3 4 5; do
		"$BTRFS" quota rescan -W "$W/img" >/dev/null 2>&1
		"$BTRFS" quota rescan -w "$W/img" >/dev/null 2>&1 && break
		sleep 0.2
	done
	"$BTRFS" qgroup show --raw "$W/img" >"$W/qgroup-kernel.txt" 2>&1
	if [ -s "$W/qgroup-image.err" ]; then
		fail quota "$(head -1 "$W/qgroup-image.err")"
	elif ! diff -u "$W/qgroup-image.txt" "$W/qgroup-kernel.txt" >"$W/qgroup.diff"; then
		fail quota "the kernel's rescan differs from the image:"
		sed 's/^/    /' "$W/qgroup.diff" | head -20
	else
		say "quota: $(grep -c '^[0-9]' "$W/qgroup-kernel.txt") groups equal the kernel's rescan"
	fi
else
	say "quota: not enabled, skipped"
fi
if "$BTRFS" scrub start -B "$W/img" >"$W/scrub.log" 2>&1; then
	say "scrub: ok"
else
	fail scrub "$(grep -i 'error\|summary' "$W/scrub.log" | head -3 | tr '\n' ' ')"
fi
"$BTRFS" subvolume snapshot -r "$W/img" "$W/img/.oracle-ro" >/dev/null ||
	die scrub "read-only snapshot"

(
	set -e
	mkdir "$W/img/.oracle-new"
	head -c 20M /dev/urandom >"$W/img/.oracle-new/big"
	for i in $(seq 1 50); do echo "$i" >"$W/img/.oracle-new/small$i"; done
	cp -a "$W/src/tree/." "$W/img/.oracle-new/copy/" 2>/dev/null || mkdir -p "$W/img/.oracle-new/copy"
	# remove the first three entries of the top level the tool made
	find "$W/img" -mindepth 1 -maxdepth 1 ! -name '.oracle-*' -print0 | sort -z |
		head -z -n 3 | xargs -0 -r rm -rf
	"$BTRFS" subvolume snapshot "$W/img" "$W/img/.oracle-rw" >/dev/null
	head -c 5M /dev/urandom >"$W/img/.oracle-rw/in-snapshot"
	rm -f "$W/img/.oracle-new/big"
	sync -f "$W/img"
	"$BTRFS" balance start --full-balance "$W/img" >/dev/null 2>&1 ||
		"$BTRFS" balance start -d -m "$W/img" >/dev/null
	sync -f "$W/img"
) >"$W/usage.log" 2>&1 || fail usage "$(tail -3 "$W/usage.log" | tr '\n' ' ')"
umnt "$W/img" || die usage "umount"
[ "${FAILED[*]}" = "${FAILED[*]/usage/}" ] && say "usage: ok"
check check2 "$IMG" || die check2 "btrfs check --readonly after the usage"

truncate -s "$TSIZE" "$W/recv.img"
mkfs.btrfs -q -f "$W/recv.img" >/dev/null 2>&1 || die send "mkfs of the receiving btrfs"
mnt "$IMG" "$W/img" ro || die send "ro mount"
mnt "$W/recv.img" "$W/recv" noatime || die send "mount of the receiving btrfs"
if ! "$BTRFS" send -q -f "$W/stream" "$W/img/.oracle-ro" >"$W/send.log" 2>&1 ||
   ! "$BTRFS" receive -f "$W/stream" "$W/recv" >>"$W/send.log" 2>&1; then
	sed 's/^/    /' "$W/send.log" | tail -10
	die send "send or receive"
fi
sync -f "$W/recv"
# receive cannot set ctime (utimensat has none); the inodes it creates
# under a directory with a default ACL get an ACL from the kernel that it
# does not remove; and the kernel's send can create and rename orphans
# (o686-7-0) in the top directory after its last utimes, leaving the top
# directory's mtime at the time of the receive (seed 11 large, mkfs 6.2:
# see the README).  Everything else is carried.
# shellcheck disable=SC2086
if python3 "$HERE/treecmp.py" "$W/manifest.json" "$W/recv/.oracle-ro" --skip ctime \
	--skip-root mtime --allow-inherited-acl $TCARGS \
	>"$W/send-treecmp.txt" 2>&1; then
	say "send: $(tail -1 "$W/send-treecmp.txt")"
else
	fail send "$(grep -vc '^treecmp:' "$W/send-treecmp.txt") differences in the received tree, by class:"
	summary "$W/send-treecmp.txt"
fi
finish
