# SPDX-License-Identifier: GPL-2.0-only
# Power-cut checks of offline writes (tests/mounted/powercut.bats); load after
# ../helpers.  A test makes the filesystem before the command in PC_BASES
# (one file a member) and calls
#
#   powercut_run COMMITS ARGS...
#
# which runs volctl ARGS (@IMGS@ stands for --image of every member, @IMG@
# for the first member's path) on copies of the bases with VOLCTL_WRITE_LOG,
# checks that the log replayed in full gives the real result byte for byte
# (no write missed), that it holds COMMITS commits, and that every
# superblock copy on every member of the result says the same (a commit that
# skips a copy fails here; btrfs check reads only the primary).  Then it
# rebuilds the members at every cut point tests/powercut/powercut plans from
# the log (after each write, after each flush, and subsets of the unflushed
# writes; see powercut.c) and checks each one:
#
#   superblocks  every member's primary copy is valid and no valid copy
#                anywhere is of another filesystem or newer than the oldest
#                primary (the kernel reads only the primary; volctl and
#                super-recover take the newest valid copy: both must see one
#                filesystem); powercut checks this as it rebuilds
#   volctl       `volctl check` clean: every tree block, qgroup numbers
#                (`inspect tree --walk-only` on several members)
#   btrfs check  --readonly clean (btrfs-progs 6.2 cannot open an image with
#                the simple quota feature: that refusal is accepted)
#   kernel       a read-only mount succeeds, scrub -r finds every copy of
#                every block intact
#   state        the newest primary superblock (fsid, generation, every
#                root: powercut's fingerprint), volctl check's report
#                (deleted subvolumes, blocks, extents, every group's
#                numbers) and the subvolumes the kernel lists equal those
#                before the command or after one of its commits; with every
#                write landed, those of the last commit.  Before the command
#                and after each commit volctl must also list the same
#                subvolumes, qgroups and default subvolume as the kernel
#
# A state with no valid superblock copy at all is "none": the state before
# mkfs on a new file, and allowed anywhere in mkfs (which stops an old
# filesystem from being one before it writes anything else), nowhere else.
# PC_QGROUP_DIFFS=1: the state before has wrong qgroup numbers on purpose;
# both checks must fail on it, and may fail again only with the same words.
#
# POWERCUT_FULL=1 samples more subsets (make check-powercut).  PC_POINTS and
# PC_KINDS count what was checked.

PC_TOOL=${POWERCUT:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)/tests/powercut/powercut}

pc_setup() {
	require_root_loop
	if [ ! -x "$PC_TOOL" ]; then
		echo "$PC_TOOL: not built (make tests/powercut/powercut)" >&2
		return 1
	fi
	# ASan builds: the reads at hundreds of cut points and the setting up look
	# for memory errors; leaks only in the command under test
	PC_ASAN=${ASAN_OPTIONS:-}
	[ -z "$PC_ASAN" ] || export ASAN_OPTIONS=$PC_ASAN:detect_leaks=0
	PC=$BATS_TEST_TMPDIR/pc
	PC_MNT=$PC/mnt
	mkdir -p "$PC_MNT"
	PC_LOOPS=()
	PC_BASES=()
	rm -f "$PC/probe.img" "$PC/probe.log"
	VOLCTL_WRITE_LOG=$PC/probe.log "$VOLCTL" mkfs -s 128M "$PC/probe.img" >/dev/null
	[ -s "$PC/probe.log" ] || skip "built without --enable-fault-injection (no VOLCTL_WRITE_LOG)"
	rm -f "$PC/probe.img" "$PC/probe.log"
}

pc_teardown() {
	local l
	if [ -n "${PC_MNT:-}" ] && mountpoint -q "$PC_MNT" 2>/dev/null; then
		umount "$PC_MNT" 2>/dev/null || umount -l "$PC_MNT" 2>/dev/null || true
	fi
	for l in "${PC_LOOPS[@]}"; do
		btrfs device scan --forget "$l" >/dev/null 2>&1 || true
		losetup -d "$l" 2>/dev/null || true
	done
	PC_LOOPS=()
}

# pc_base_single IMG [MKFS.BTRFS OPTIONS...]: the base of most write tests
# (here and tests/cli/crash-loops.bats): mkfs.btrfs with SINGLE metadata
# (one write a block), subvolumes /a, /b, /a/inner and a snapshot /snap of
# /a; with quotas (-R quota) also groups 1/1 over 0/257, an empty 1/2 and a
# limit on /b
pc_base_single() {
	local img=$1
	shift
	truncate -s 128M "$img"
	mkfs.btrfs -q -f -m single -d single "$@" "$img" >/dev/null 2>&1
	pc_base_do() { "$VOLCTL" --image "$img" "$@" >/dev/null; }
	pc_base_do subvolume create /a /b
	pc_base_do subvolume create /a/inner
	pc_base_do subvolume snapshot /a /snap
	if [[ " $* " == *" quota "* ]]; then
		pc_base_do qgroup create 1/1 /
		pc_base_do qgroup create 1/2 /
		pc_base_do qgroup assign 0/257 1/1 /
		pc_base_do qgroup limit 1M /b /
	fi
}

# pc_fresh_fsid IMG: a fixture copy gets its own fsid, so a parallel test
# mounting another copy of the same fixture cannot meet it in the kernel
pc_fresh_fsid() {
	btrfstune -f -u "$1" >/dev/null 2>&1
}

# pc_imgs FILE...: --image FILE for each
pc_imgs() {
	local f
	for f; do printf -- '--image\0%s\0' "$f"; done
}

# pc_supers_agree FILE...: every copy on every member says the same
pc_supers_agree() {
	local s n f
	s=$(for f; do
		"$VOLCTL" --format json inspect super -a "$f" | jq -c '.superblocks'
	done | jq -cs 'add')
	n=$(jq '[.[] | del(.device, .mirror, .offset, .bytenr, .csum, .dev_item)] | unique | length' <<<"$s")
	if [ "$n" -ne 1 ] || [ "$(jq 'map(select(has("problem"))) | length' <<<"$s")" -ne 0 ]; then
		echo "superblock copies differ after the command:" >&2
		jq -c '.[] | {device, mirror, generation, root, chunk_root, problem}' <<<"$s" >&2
		return 1
	fi
	n=$(jq 'group_by(.device) | map(map(.dev_item) | unique | length) | max' <<<"$s")
	[ "$n" -eq 1 ] || { echo "a member's copies carry different device items" >&2; return 1; }
}

# pc_lists PATH [--image FILE...]: what volctl lists of the filesystem at
# PATH (a mount point, or / of the images), JSON: subvolumes; with
# PC_FULL_LISTS also qgroups ("off" when quotas are not enabled) and the
# default subvolume
pc_lists() {
	local list qg def
	list=$("$VOLCTL" --format json "${@:2}" subvolume list "$1") || return 1
	pc_no_mount_paths <<<"$list"
	[ -n "${PC_FULL_LISTS:-}" ] || return 0
	qg=$("$VOLCTL" --format json "${@:2}" qgroup show --raw "$1" 2>&1) ||
		{ [[ "$qg" == *"quota is not enabled"* ]] && qg=off; } || { echo "$qg" >&2; return 1; }
	[ "$qg" = off ] || qg=$(pc_no_mount_paths <<<"$qg")
	def=$("$VOLCTL" --format json "${@:2}" subvolume get-default "$1") || return 1
	printf '%s\n%s\n' "$qg" "$(pc_no_mount_paths <<<"$def")"
}

# pc_no_mount_paths: the JSON on stdin without absolute_path, which names
# the mount point online and / offline
pc_no_mount_paths() {
	jq 'walk(if type == "object" then del(.absolute_path) else . end)'
}

# pc_kernel_lists: mount the members read-only through PC_LOOPS, scrub
# (every copy of every block read and verified), print the subvolumes the
# kernel lists (btrfs subvolume list) and, with PC_FULL_LISTS, pc_lists of
# the mount (volctl through the kernel's ioctls)
pc_kernel_lists() {
	local l opts=ro,subvolid=5 rc=0 list
	for l in "${PC_LOOPS[@]}"; do opts+=,device=$l; done
	if ! mount -o "$opts" "${PC_LOOPS[0]}" "$PC_MNT" 2>"$PC/mount.err"; then
		echo "mount failed: $(cat "$PC/mount.err"); $(dmesg | tail -n 5)" >&2
		return 1
	fi
	if ! btrfs scrub start -B -r "$PC_MNT" >"$PC/scrub.out" 2>&1; then
		echo "scrub failed: $(cat "$PC/scrub.out")" >&2
		rc=1
	fi
	if [ "$rc" -eq 0 ]; then
		list=$(btrfs subvolume list -pcguqR "$PC_MNT") || rc=1
		echo "${list//$'\n'/ }"
	fi
	[ "$rc" -ne 0 ] || [ -z "${PC_FULL_LISTS:-}" ] || pc_lists "$PC_MNT" || rc=1
	umount "$PC_MNT" || rc=1
	return "$rc"
}

# pc_check_state SUPER-RULE MEMBERS...: check the members as they are, with
# the superblock rule powercut printed for them; print their state (one
# line) on stdout, or a problem on stderr and fail.  The state: fsid,
# generation and fingerprint of the newest primary superblock, what volctl
# check reports (deleted subvolumes, blocks, extents, every group's numbers)
# and the subvolumes the kernel lists (btrfs subvolume list).  With
# PC_FULL_LISTS (the state before and each commit's), volctl must also list
# the same subvolumes, qgroups and default offline as through the kernel;
# elsewhere the fingerprint stands for them: it
# holds every tree's root and generation, and both checks verified every
# block below them.
pc_check_state() {
	local rule=$1 st kv rc=0 out l chk
	local -a imgs
	shift
	if [ "$rule" = none ]; then
		echo none
		return 0
	fi
	[[ "$rule" == "ok "* ]] || { echo "superblocks: $rule" >&2; return 1; }
	mapfile -d '' imgs < <(pc_imgs "$@")
	# the loop devices' caches may hold the previous point's blocks
	for l in "${PC_LOOPS[@]}"; do blockdev --flushbufs "$l"; done
	if [ "$#" -eq 1 ]; then
		chk=$("$VOLCTL" --format json check "$1" 2>"$PC/check.err") || rc=$?
		# only as the state before failed it, where the test broke that on purpose
		if [ "$rc" -ne 0 ] && [ "$chk" != "${PC_VCHECK_BEFORE:-}" ]; then
			echo "volctl check: $chk $(cat "$PC/check.err")" >&2
			return 1
		fi
		rc=0
		# the mirror copies go after the primaries: a cut between them leaves
		# mirrors older than the primary (a warning), and the same state
		chk=$(jq -c 'del(.check.superblocks, .check.superblock_warnings)' <<<"$chk")
	else
		chk=$("$VOLCTL" inspect tree --walk-only "$@" 2>&1) ||
			{ echo "volctl inspect tree --walk-only: $chk" >&2; return 1; }
	fi
	out=$(btrfs check --readonly "${PC_LOOPS[0]}" 2>&1) || rc=$?
	# btrfs-progs 6.2 cannot open an image with the simple quota feature bit
	if [ "$rc" -ne 0 ] && [[ "$out" != *"unsupported option features (10000)"* ]] &&
	   [ "$out" != "${PC_BCHECK_BEFORE:-}" ]; then
		echo "btrfs check ($rc): $out" >&2
		return 1
	fi
	kv=$(pc_kernel_lists) || return 1
	if [ -n "${PC_FULL_LISTS:-}" ]; then
		st=$(pc_lists / "${imgs[@]}") || { echo "volctl cannot list the image" >&2; return 1; }
		if [ "${kv#*$'\n'}" != "$st" ]; then
			echo "the kernel lists another state than volctl:" >&2
			diff <(echo "${kv#*$'\n'}") <(echo "$st") >&2
			return 1
		fi
	fi
	# one line, with btrfs's list of what the kernel sees: states are compared with grep -x
	st=$chk$'\n'${kv%%$'\n'*}
	st=${st//$'\n'/}
	echo "${rule#ok } ${st// /}"
}

# pc_attach FILE...: PC_LOOPS over FILE..., known to the kernel's device list
pc_attach() {
	local f
	PC_LOOPS=()
	for f; do PC_LOOPS+=("$(losetup -f --show "$f")"); done
}

powercut_run() {
	local commits=$1 n=${#PC_BASES[@]} i rc=0 plan id kind set desc st k rule all last seen_all=0
	local -a real=() cut=() args=() pairs=() imgs=()
	shift
	for i in $(seq 0 $((n - 1))); do
		real+=("$PC/real$i.img")
		cut+=("$PC/cut$i.img")
		cp --sparse=always "${PC_BASES[$i]}" "${real[$i]}"
		cp --sparse=always "${PC_BASES[$i]}" "${cut[$i]}"
		pairs+=("${PC_BASES[$i]}" "${cut[$i]}")
	done
	mapfile -d '' imgs < <(pc_imgs "${real[@]}")
	for k; do
		case $k in
		@IMGS@) args+=("${imgs[@]}") ;;
		@IMG@) args+=("${real[0]}") ;;
		*) args+=("$k") ;;
		esac
	done
	rm -f "$PC/log"
	ASAN_OPTIONS=$PC_ASAN VOLCTL_WRITE_LOG=$PC/log "$VOLCTL" "${args[@]}" >"$PC/cmd.out" 2>&1 ||
		rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "volctl ${args[*]}: exit $rc: $(cat "$PC/cmd.out")" >&2
		return 1
	fi
	# the log is complete: replayed in full it gives the command's result
	"$PC_TOOL" apply "$PC/log" all "${pairs[@]}" >/dev/null
	for i in $(seq 0 $((n - 1))); do
		cmp -s "${real[$i]}" "${cut[$i]}" ||
			{ echo "member $i: the replayed log differs from the real result" >&2; return 1; }
	done
	k=$("$PC_TOOL" info "$PC/log" | awk '$1 == "commits" {print $2}')
	# a commit is durable once a flush follows its primary superblock(s)
	[ "$k" -eq "$commits" ] ||
		{ echo "$k commits (primary superblocks flushed) in the log, expected $commits" >&2; return 1; }
	# no two unflushed writes overlap: which of them lands last never matters
	k=$("$PC_TOOL" info "$PC/log" | awk '$1 == "overlaps" {print $2}')
	[ "$k" -eq 0 ] || { echo "$k writes overlap an unflushed one" >&2; return 1; }
	k=$("$PC_TOOL" info "$PC/log" | awk '$1 == "writes" {print $2}')
	all=0
	[ "$k" -eq 1 ] || all+=-$((k - 1))
	pc_supers_agree "${real[@]}" || return 1
	pc_attach "${cut[@]}"
	PC_VCHECK_BEFORE=
	PC_BCHECK_BEFORE=
	if [ -n "${PC_QGROUP_DIFFS:-}" ]; then
		# the state before has wrong qgroup numbers on purpose: both checks
		# must say so, and may say exactly that again where the state is that one
		"$PC_TOOL" apply "$PC/log" - "${pairs[@]}" >/dev/null
		PC_VCHECK_BEFORE=$("$VOLCTL" --format json check "${cut[0]}" 2>/dev/null) && return 1
		PC_BCHECK_BEFORE=$(btrfs check --readonly "${PC_LOOPS[0]}" 2>&1) && return 1
		[[ "$PC_VCHECK_BEFORE" == *'"differences": '[1-9]* ]] || return 1
		[[ "$PC_BCHECK_BEFORE" == *"are different"* ]] || return 1
	fi
	# the states a command may leave: before it (point 0) and after each commit
	plan=$("$PC_TOOL" plan ${POWERCUT_FULL:+--full} "$PC/log")
	: >"$PC/states"
	PC_POINTS=0
	declare -gA PC_KINDS=()
	while IFS=$'\t' read -r id kind set desc; do
		[ "$id" -eq 0 ] || [ "$kind" = commit ] || continue
		rule=$("$PC_TOOL" apply "$PC/log" "$set" "${pairs[@]}")
		st=$(PC_FULL_LISTS=1 pc_check_state "$rule" "${cut[@]}") ||
			{ echo "point $id ($kind, $desc): set $set" >&2; return 1; }
		[ "$kind" != commit ] || [ "$st" != none ] ||
			{ echo "point $id: a commit left no filesystem" >&2; return 1; }
		echo "$st" >>"$PC/states"
	done <<<"$plan"
	[ "$(wc -l <"$PC/states")" -eq $((commits + 1)) ] || return 1
	last=$(tail -n 1 "$PC/states")
	# every other point: checks pass and the state is one of those
	while IFS=$'\t' read -r id kind set desc; do
		PC_POINTS=$((PC_POINTS + 1))
		PC_KINDS[$kind]=$((${PC_KINDS[$kind]:-0} + 1))
		[ "$id" -ne 0 ] && [ "$kind" != commit ] || continue
		rule=$("$PC_TOOL" apply "$PC/log" "$set" "${pairs[@]}")
		st=$(pc_check_state "$rule" "${cut[@]}") ||
			{ echo "point $id ($kind, $desc): set $set" >&2; return 1; }
		# every write landed: the command's result, the last commit's state
		if [ "$set" = "$all" ]; then
			[ "$st" = "$last" ] ||
				{ echo "the result is not the last commit's state" >&2; return 1; }
			seen_all=1
		fi
		if [ "$st" = none ] && [ "${args[0]}" = mkfs ]; then
			continue
		fi
		if ! grep -Fxq -- "$st" "$PC/states"; then
			echo "point $id ($kind, $desc): set $set: a state no commit left:" >&2
			echo "$st" >&2
			echo "allowed:" >&2
			cat "$PC/states" >&2
			return 1
		fi
	done <<<"$plan"
	[ "$seen_all" -eq 1 ] || { echo "no point with every write" >&2; return 1; }
}
