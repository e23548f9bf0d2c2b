# SPDX-License-Identifier: GPL-2.0-only
# Shared bats helpers.  Load with:  load ../helpers
#
#   run_volctl ARGS...     run the binary under test ($VOLCTL, or ./volctl);
#                          VOLCTL_WRAPPER="valgrind -q --error-exitcode=99" wraps it
#   require_root_loop      skip unless root, the btrfs module and loop devices are there
#   mkfs_mount [SIZE] [MKFS OPTS...]
#                          make an image in $BATS_TEST_TMPDIR (mkfs 6.2's stale free
#                          space tree entries dropped), loop-mount it at $MNT
#   cleanup_mount          unmount and detach (call from teardown; safe to call twice)
#   mkfs_mount2 [SIZE]     a second filesystem ($IMG2, $LOOPDEV2) mounted at $MNT2
#   cleanup_mount2         unmount $MNT2 and detach $LOOPDEV2 (teardown; safe unset or twice)
#   wait_cleaned MNT [ID...]  btrfs subvolume sync, the cleaner woken first
#   slow_drop_data DIR     many small data extents in DIR: a drop of them takes seconds
#   freeze_mid_drop MNT IMG ID COPY
#                          copy of IMG taken while the kernel's drop of subvolume ID is
#                          under way (fsfreeze): a deterministic half-dropped image
#   let_nobody_reach_mnt   chmod o+x the private directories above $MNT
#   assert_status N, assert_output_contains STR, assert_json (output parses with jq)

# "run ! cmd": a negated command that fails the test wherever it stands
bats_require_minimum_version 1.5.0

: "${VOLCTL:=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)/volctl}"
export LC_ALL=C TZ=UTC COLUMNS=120

run_volctl() {
	# shellcheck disable=SC2086
	run ${VOLCTL_WRAPPER:-} "$VOLCTL" "$@"
}

# Separate stdout/stderr capture: sets $out, $err, $status.
run_volctl_split() {
	local errf="$BATS_TEST_TMPDIR/stderr.$$"
	# shellcheck disable=SC2086
	out=$(${VOLCTL_WRAPPER:-} "$VOLCTL" "$@" 2>"$errf") && status=0 || status=$?
	err=$(cat "$errf")
}

require_root_loop() {
	if [ "$(id -u)" -ne 0 ]; then
		skip "needs root (mounting loop devices)"
	fi
	if ! grep -qw btrfs /proc/filesystems 2>/dev/null && ! modprobe btrfs 2>/dev/null; then
		skip "needs the btrfs kernel module"
	fi
	if [ ! -e /dev/loop-control ]; then
		skip "needs loop devices (/dev/loop-control missing)"
	fi
	command -v mkfs.btrfs >/dev/null || skip "needs mkfs.btrfs (Debian btrfs-progs)"
}

# Let user nobody reach $MNT through this run's private directories
let_nobody_reach_mnt() {
	local d=$MNT
	while [ "$d" != / ] && [[ "$d" == "$BATS_RUN_TMPDIR"* ]]; do
		chmod o+x "$d"
		d=$(dirname "$d")
	done
}

mkfs_mount() {
	local size=${1:-512M}
	shift || true
	IMG="$BATS_TEST_TMPDIR/fs.img"
	MNT="$BATS_TEST_TMPDIR/mnt"
	mkdir -p "$MNT"
	truncate -s "$size" "$IMG"
	mkfs.btrfs -q -f "$@" "$IMG" >/dev/null
	# Debian's mkfs.btrfs 6.2 leaves free space tree entries of its temporary
	# chunks, which volctl check (like btrfs check 6.19) reports: drop them
	# (nothing happens without a free space tree or without such entries)
	"$VOLCTL" check --repair-free-space "$IMG" >/dev/null 2>&1 || true
	LOOPDEV=$(losetup -f --show "$IMG")
	mount "$LOOPDEV" "$MNT"
}

# A second filesystem, for the refusals of paths on two filesystems
mkfs_mount2() {
	IMG2=$BATS_TEST_TMPDIR/fs2.img
	MNT2=$BATS_TEST_TMPDIR/mnt2
	mkdir -p "$MNT2"
	truncate -s "${1:-512M}" "$IMG2"
	mkfs.btrfs -q -f "$IMG2" >/dev/null
	LOOPDEV2=$(losetup -f --show "$IMG2")
	mount "$LOOPDEV2" "$MNT2"
}

cleanup_mount2() {
	if [ -n "${MNT2:-}" ] && mountpoint -q "$MNT2" 2>/dev/null; then
		umount "$MNT2" || umount -l "$MNT2"
	fi
	if [ -n "${LOOPDEV2:-}" ]; then
		losetup -d "$LOOPDEV2"
		LOOPDEV2=
	fi
}

# wait_cleaned MNT [ID...]: btrfs subvolume sync, after a sync that wakes the
# cleaner now instead of at the next periodic commit (30 s by default)
wait_cleaned() {
	btrfs filesystem sync "$1" && btrfs subvolume sync "$@"
}

cleanup_mount() {
	if [ -n "${MNT:-}" ] && mountpoint -q "$MNT" 2>/dev/null; then
		fsfreeze -u "$MNT" 2>/dev/null || true	# freeze_mid_drop failed half way
		umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null || true
	fi
	if [ -n "${LOOPDEV:-}" ]; then
		losetup -d "$LOOPDEV" 2>/dev/null || true
		LOOPDEV=
	fi
}

assert_status() {
	if [ "$status" -ne "$1" ]; then
		echo "expected exit status $1, got $status; output:" >&2
		echo "$output" >&2
		return 1
	fi
}

assert_output_contains() {
	if [[ "$output" != *"$1"* ]]; then
		echo "output does not contain '$1':" >&2
		echo "$output" >&2
		return 1
	fi
}

assert_json() {
	if ! printf '%s\n' "${1:-$output}" | jq -e . >/dev/null; then
		echo "not valid JSON:" >&2
		printf '%s\n' "${1:-$output}" >&2
		return 1
	fi
}

# The kernel's numbers, settled: wait out a rescan already running (quota
# enable starts one), then run a full one and wait for it.  A plain
# "btrfs quota rescan -w" fails with EINPROGRESS while another runs and
# returns at once, leaving numbers taken before later qgroup changes.
kernel_rescan() {
	local i
	for i in 1 2 3 4 5; do
		btrfs quota rescan -W "$1" >/dev/null 2>&1 || true
		if btrfs quota rescan -w "$1" >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.2
	done
	btrfs quota rescan -w "$1" >/dev/null
}

# btrfs check --readonly of IMAGE (default $IMG), its output on stderr if not clean
btrfs_check_clean() {
	local out
	if ! out=$(btrfs check --readonly "${1:-$IMG}" 2>&1); then
		echo "$out" >&2
		return 1
	fi
}

# Skip the calling test unless volctl was built with --enable-fault-injection
# (probed with a create on a copy of $IMG).
require_fault_injection() {
	cp "$IMG" "$BATS_TEST_TMPDIR/probe.img"
	if VOLCTL_FAIL_AFTER_WRITES=1 "$VOLCTL" --image "$BATS_TEST_TMPDIR/probe.img" \
		subvolume create /probe >/dev/null 2>&1; then
		skip "built without --enable-fault-injection"
	fi
}

# crash_loop_writes ARGS...: the crash test of one offline write.  Runs
# volctl ARGS (@IMG@ stands for the image) on a fresh copy of
# $BATS_TEST_TMPDIR/pristine.img with VOLCTL_FAIL_AFTER_WRITES = 1, 2, ...
# until it succeeds (at most CRASH_MAX runs, default 400).  After a run the
# checker $CRASH_CHECK (default btrfs_check_clean) must pass (on every
# CRASH_CHECK_EVERY-th image and the last; default every one) and the
# function $CRASH_STATE must print "old" or "new"; a failed run exits 1 and
# the successful one leaves "new".  CRASH_OLDS and CRASH_NEWS count them.
crash_loop_writes() {
	local n=1 rc st every=${CRASH_CHECK_EVERY:-1}
	CRASH_OLDS=0
	CRASH_NEWS=0
	while [ "$n" -lt "${CRASH_MAX:-400}" ]; do
		cp "$BATS_TEST_TMPDIR/pristine.img" "$IMG"
		rc=0
		VOLCTL_FAIL_AFTER_WRITES=$n "$VOLCTL" "${@//@IMG@/$IMG}" >/dev/null 2>&1 || rc=$?
		if [ $((n % every)) -eq 0 ] || [ "$rc" -eq 0 ]; then
			"${CRASH_CHECK:-btrfs_check_clean}" ||
				{ echo "btrfs check failed after $n writes" >&2; return 1; }
		fi
		st=$("$CRASH_STATE")
		case $st in
		old) CRASH_OLDS=$((CRASH_OLDS + 1)) ;;
		new) CRASH_NEWS=$((CRASH_NEWS + 1)) ;;
		*) echo "after $n writes: $st" >&2; return 1 ;;
		esac
		if [ "$rc" -eq 0 ]; then
			[ "$st" = new ] || { echo "success left state $st" >&2; return 1; }
			return 0
		fi
		[ "$rc" -eq 1 ] || { echo "exit $rc after $n writes" >&2; return 1; }
		n=$((n + 1))
	done
	echo "no success after $n runs" >&2
	return 1
}

# slow_drop_data DIR: 51200 files of 4 KiB (200 MiB), each its own data
# extent: freeing them makes the kernel's drop of their subvolume take
# seconds, so freeze_mid_drop finds it under way.
slow_drop_data() {
	mkdir -p "$1"
	head -c 200M /dev/urandom | (cd "$1" && split -b 4096 -a 5)
}

# freeze_mid_drop MNT IMG ID COPY: the kernel's drop of deleted subvolume ID
# caught half way.  Each look freezes MNT (fsfreeze commits the transaction
# and stops the drop at its next one, its progress recorded in ROOT_ITEM
# ID), reads that item from the frozen IMG with btrfs-progs and thaws.  When
# the drop is under way (drop_level 1 or more) the frozen IMG is copied to
# COPY before the thaw.  Looks until the drop starts (the cleaner wakes on
# its own schedule); fails when it finished between two looks (give it more
# to drop: slow_drop_data) or did not start at all.
freeze_mid_drop() {
	local mnt=$1 img=$2 id=$3 copy=$4 i item
	btrfs filesystem sync "$mnt"
	for i in $(seq 1 1200); do
		fsfreeze -f "$mnt"
		item=$(btrfs inspect-internal dump-tree -t 1 "$img" 2>/dev/null |
			grep -A3 "key ($id ROOT_ITEM" || true)
		if [ -z "$item" ]; then
			fsfreeze -u "$mnt"
			echo "freeze_mid_drop: subvolume $id was dropped between two looks" >&2
			return 1
		fi
		if grep -q "drop_level [1-9]" <<<"$item"; then
			cp --sparse=always "$img" "$copy"
			fsfreeze -u "$mnt"
			echo "# drop of $id caught under way after $i looks" >&3
			return 0
		fi
		fsfreeze -u "$mnt"
		sleep 0.05
	done
	echo "freeze_mid_drop: the drop of subvolume $id did not start" >&2
	return 1
}

# tie_leaf SNAP: a new subvolume $MNT/sv with three reflinked 64 KiB files
# (c1, c2-with-a-much-longer-name, t: two clone sources of equal length for
# t) in one leaf of a two-level tree, snapshotted read-only as $MNT/SNAP;
# then the files are removed from sv, so their leaf belongs to SNAP alone
# and the extent has a shared back reference (send-size*.bats)
tie_leaf() {
	btrfs -q subvolume create "$MNT/sv"
	for i in $(seq 1 300); do echo "filler $i" >"$MNT/sv/filler-$i-with-a-longish-name"; done
	head -c 65536 /dev/urandom >"$MNT/sv/c1"
	cp --reflink=always "$MNT/sv/c1" "$MNT/sv/c2-with-a-much-longer-name"
	cp --reflink=always "$MNT/sv/c1" "$MNT/sv/t"
	btrfs -q subvolume snapshot -r "$MNT/sv" "$MNT/$1"
	rm "$MNT/sv/c1" "$MNT/sv/c2-with-a-much-longer-name" "$MNT/sv/t"
	sync -f "$MNT/sv"
}
