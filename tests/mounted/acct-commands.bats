#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# The commands built on the accounting engine, against the kernel:
#   subvolume delete --dry-run   vs a level-1 qgroup over exactly the set after
#                                a rescan, and vs the space df reports freed
#   qgroup show --compute        vs `btrfs qgroup show --raw` after a rescan
#                                (mounted, --image unmounted, quotas off)
#   qgroup headroom              vs the bytes dd writes before EDQUOT

load ../helpers

setup() {
	require_root_loop
	command -v jq >/dev/null || skip "needs jq"
	mkfs_mount 1G
}

teardown() {
	if [ -n "${MNT2:-}" ] && mountpoint -q "$MNT2" 2>/dev/null; then
		umount "$MNT2" || umount -l "$MNT2" || true
	fi
	if [ -n "${WRITER_PID:-}" ]; then
		kill "$WRITER_PID" 2>/dev/null || true
		wait "$WRITER_PID" 2>/dev/null || true
	fi
	cleanup_mount
}

# A snapshot-heavy set: sv with files, s1 = snapshot of sv, s2 = snapshot of
# s1, files rewritten in part, added and removed in each.
make_set() {
	local i
	btrfs subvolume create "$MNT/sv" >/dev/null
	for i in 1 2 3 4; do
		dd if=/dev/urandom of="$MNT/sv/f$i" bs=1M count=4 status=none
	done
	mkdir "$MNT/sv/dir"
	for i in $(seq 1 200); do echo "small $i" >"$MNT/sv/dir/s$i"; done
	btrfs subvolume snapshot "$MNT/sv" "$MNT/s1" >/dev/null
	dd if=/dev/urandom of="$MNT/s1/f1" bs=1M count=2 conv=notrunc status=none
	dd if=/dev/urandom of="$MNT/s1/new" bs=1M count=3 status=none
	btrfs subvolume snapshot "$MNT/s1" "$MNT/s2" >/dev/null
	dd if=/dev/urandom of="$MNT/s2/f2" bs=1M count=1 conv=notrunc status=none
	rm "$MNT/s2/f3"
	rm "$MNT/s2/dir/s1"*
	dd if=/dev/urandom of="$MNT/sv/f4" bs=64K count=3 seek=5 conv=notrunc status=none
	# a subvolume outside the set, sharing data with it
	btrfs subvolume snapshot "$MNT/sv" "$MNT/keep" >/dev/null
	dd if=/dev/urandom of="$MNT/keep/f1" bs=1M count=1 conv=notrunc status=none
	sync -f "$MNT"
}

# "qgroupid rfer excl" per line, sorted
kernel_numbers() {
	btrfs qgroup show --raw "$MNT" | awk 'NR > 2 { print $1, $2, $3 }' | sort
}

volctl_computed() {
	"$VOLCTL" "$@" --format json qgroup show --compute "${QSHOW_PATH:-$MNT}" |
		jq -r '."qgroup_show"[] | "\(.qgroupid) \(.referenced) \(.exclusive)"' | sort
}

# df "used" of a block group type, in bytes (logical: DUP counted once)
df_used() {
	btrfs filesystem df -b "$MNT" | awk -F'[ =,]+' -v t="$1" '$1 == t {
		for (i = 1; i < NF; i++) if ($i == "used") print $(i + 1) }'
}

@test "delete --dry-run: the set's exclusive bytes equal a level-1 qgroup over it after a rescan" {
	make_set
	run_volctl --format json subvolume delete --dry-run "$MNT/sv" "$MNT/s1" "$MNT/s2"
	assert_status 0
	assert_json
	pred=$(jq .subvolume_delete_dry_run.set.exclusive <<<"$output")
	alone=$(jq -r '.subvolume_delete_dry_run.subvolumes[] | "0/\(.id) \(.exclusive)"' \
		<<<"$output" | sort)
	[ "$pred" -gt 4000000 ]
	# nothing was deleted
	[ -d "$MNT/sv/dir" ]
	[ -d "$MNT/s1" ]
	[ -d "$MNT/s2" ]

	btrfs quota enable "$MNT"
	btrfs qgroup create 1/77 "$MNT"
	for p in sv s1 s2; do
		id=$(btrfs inspect-internal rootid "$MNT/$p")
		btrfs qgroup assign --no-rescan "0/$id" 1/77 "$MNT" 2>/dev/null || true
	done
	kernel_rescan "$MNT"
	kernel=$(btrfs qgroup show --raw "$MNT" | awk '$1 == "1/77" { print $3 }')
	echo "predicted $pred, kernel 1/77 exclusive $kernel"
	[ "$pred" -eq "$kernel" ]
	# each subvolume's own exclusive bytes are its level-0 qgroup's
	kalone=$(kernel_numbers | awk '$1 ~ /^0\// { print $1, $3 }' | grep -F -f <(cut -d' ' -f1 <<<"$alone" | sed 's/$/ /'))
	[ "$alone" = "$kalone" ]
}

@test "delete --dry-run: df shows the predicted data freed exactly and metadata within tolerance" {
	make_set
	run_volctl --format json subvolume delete --dry-run "$MNT/sv" "$MNT/s1" "$MNT/s2"
	assert_status 0
	data=$(jq .subvolume_delete_dry_run.set.data <<<"$output")
	meta=$(jq .subvolume_delete_dry_run.set.metadata <<<"$output")
	raw=$(jq .subvolume_delete_dry_run.set.raw <<<"$output")
	[ "$(jq -r .subvolume_delete_dry_run.metadata_profile <<<"$output")" = dup ]
	[ "$(jq .subvolume_delete_dry_run.metadata_copies <<<"$output")" -eq 2 ]
	[ "$raw" -eq $((data + 2 * meta)) ]
	nodesize=16384

	sync -f "$MNT"
	d0=$(df_used Data)
	[ "$d0" -gt 0 ]
	m0=$(df_used Metadata)
	btrfs subvolume delete "$MNT/sv" "$MNT/s1" "$MNT/s2" >/dev/null
	wait_cleaned "$MNT" >/dev/null
	sync -f "$MNT"
	d1=$(df_used Data)
	m1=$(df_used Metadata)
	echo "data: predicted $data, freed $((d0 - d1)); metadata: predicted $meta, freed $((m0 - m1))"
	# data extents are freed exactly
	[ $((d0 - d1)) -eq "$data" ]
	# Metadata: the set's own tree blocks go, but the cleaner's transactions
	# also shrink the csum tree (4 bytes per freed 4 KiB data sector: about
	# 6 KiB here, one or two leaves) and rewrite extent, free-space and root
	# tree blocks (COW: a few blocks either way).  Allow 16 nodes of slack.
	tol=$((16 * nodesize))
	diff=$(((m0 - m1) - meta))
	[ "${diff#-}" -le "$tol" ]
	# raw device space: DUP stores each metadata block twice
	rawfreed=$(((d0 - d1) + 2 * (m0 - m1)))
	rdiff=$((rawfreed - raw))
	[ "${rdiff#-}" -le $((2 * tol)) ]
}

@test "delete --dry-run: text output names the profile and deletes nothing" {
	make_set
	run_volctl subvolume delete --dry-run --raw "$MNT/s1"
	assert_status 0
	assert_output_contains "Dry run, nothing deleted"
	assert_output_contains "metadata profile dup (2 copies"
	assert_output_contains "$MNT/s1"
	[ -d "$MNT/s1/dir" ]
	btrfs subvolume show "$MNT/s1" >/dev/null
}

# "id exclusive" per member, then the set's numbers, of a dry run's JSON
dry_set() {
	jq -r '.subvolume_delete_dry_run | (.subvolumes[] | "\(.id) \(.exclusive)"),
		(.set | "set \(.count) \(.referenced) \(.exclusive) \(.data) \(.metadata) \(.raw)")'
}

@test "delete --dry-run -R and -i: the nested set equals the explicit list and a level-1 qgroup over it; offline equal" {
	make_set
	# sv/n1 and sv/n1/n2 nested in sv; n2 a snapshot of s2, sharing data
	# with s1, s2 and keep outside the set
	btrfs subvolume create "$MNT/sv/n1" >/dev/null
	dd if=/dev/urandom of="$MNT/sv/n1/g" bs=1M count=3 status=none
	btrfs subvolume snapshot "$MNT/s2" "$MNT/sv/n1/n2" >/dev/null
	dd if=/dev/urandom of="$MNT/sv/n1/n2/f1" bs=1M count=1 conv=notrunc status=none
	sync -f "$MNT"
	explicit=$("$VOLCTL" --format json subvolume delete --dry-run "$MNT/sv" "$MNT/sv/n1" \
		"$MNT/sv/n1/n2" | dry_set)
	[ "$(wc -l <<<"$explicit")" -eq 4 ]
	run_volctl --format json subvolume delete --dry-run -R "$MNT/sv"
	assert_status 0
	[ "$(dry_set <<<"$output")" = "$explicit" ]
	[ "$(jq -r '.subvolume_delete_dry_run.subvolumes[2].path' <<<"$output")" = "$MNT/sv/n1/n2" ]
	[ "$(jq -r .subvolume_delete_dry_run.source <<<"$output")" = live_snapshot ]
	sv=$(btrfs inspect-internal rootid "$MNT/sv")
	n1=$(btrfs inspect-internal rootid "$MNT/sv/n1")
	n2=$(btrfs inspect-internal rootid "$MNT/sv/n1/n2")
	# nothing was deleted
	[ -f "$MNT/sv/n1/n2/f1" ]

	# -i through a mount of s1 alone, which cannot reach sv
	MNT2="$BATS_TEST_TMPDIR/mnt2"
	mkdir -p "$MNT2"
	mount -o subvol=s1 "$LOOPDEV" "$MNT2"
	[ ! -e "$MNT2/sv" ]
	run_volctl --format json subvolume delete --dry-run -i "$sv" -i "$n1" -i "$n2" "$MNT2"
	assert_status 0
	[ "$(dry_set <<<"$output")" = "$explicit" ]
	[ "$(jq -r '.subvolume_delete_dry_run.subvolumes[0].path' <<<"$output")" = null ]
	run_volctl --format json subvolume delete --dry-run -R -i "$sv" "$MNT2"
	assert_status 0
	[ "$(dry_set <<<"$output")" = "$explicit" ]
	# bad ids: refused with one line, nothing on stdout
	run_volctl_split subvolume delete --dry-run -i "$sv" -i 4242 "$MNT2"
	[ "$status" -eq 1 ]
	[ -z "$out" ]
	[ "$err" = "error: subvolume id 4242: no such subvolume on the filesystem of $MNT2" ]
	run_volctl subvolume delete --dry-run -i 5 "$MNT2"
	assert_status 2
	umount "$MNT2"

	# the kernel as oracle: a level-1 qgroup over exactly the set
	btrfs quota enable "$MNT"
	btrfs qgroup create 1/88 "$MNT"
	for id in "$sv" "$n1" "$n2"; do
		btrfs qgroup assign --no-rescan "0/$id" 1/88 "$MNT" 2>/dev/null || true
	done
	kernel_rescan "$MNT"
	kernel=$(btrfs qgroup show --raw "$MNT" | awk '$1 == "1/88" { print "set 3", $2, $3 }')
	mine=$(tail -n 1 <<<"$explicit" | cut -d' ' -f1-4)
	echo "kernel 1/88: $kernel; dry run: $mine"
	[ "$mine" = "$kernel" ]
	# each member's own exclusive bytes are its level-0 qgroup's
	for id in "$sv" "$n1" "$n2"; do
		k=$(btrfs qgroup show --raw "$MNT" | awk -v q="0/$id" '$1 == q { print $3 }')
		grep -qx "$id $k" <<<"$explicit"
	done

	# offline: the same numbers from the image
	cleanup_mount
	run_volctl --image "$IMG" --format json subvolume delete --dry-run -R /sv
	assert_status 0
	[ "$(jq -r .subvolume_delete_dry_run.source <<<"$output")" = image ]
	[ "$(dry_set <<<"$output")" = "$explicit" ]
	run_volctl --image "$IMG" --format json subvolume delete --dry-run -i "$n2" -i "$sv" -i "$n1" /s1
	assert_status 0
	[ "$(dry_set <<<"$output" | tail -n 1)" = "$(tail -n 1 <<<"$explicit")" ]
	run_volctl --image "$IMG" subvolume delete --dry-run -i 4242 /
	assert_status 1
	assert_output_contains "subvolume id 4242: no such subvolume"
}

@test "qgroup show --compute equals btrfs qgroup show --raw after a rescan (mounted, then --image)" {
	make_set
	btrfs quota enable "$MNT"
	btrfs qgroup create 1/1 "$MNT"
	btrfs qgroup create 2/1 "$MNT"
	btrfs qgroup assign --no-rescan 0/256 1/1 "$MNT" 2>/dev/null || true
	btrfs qgroup assign --no-rescan 0/257 1/1 "$MNT" 2>/dev/null || true
	btrfs qgroup assign --no-rescan 1/1 2/1 "$MNT" 2>/dev/null || true
	kernel_rescan "$MNT"
	kernel_numbers >"$BATS_TEST_TMPDIR/kernel.txt"
	volctl_computed >"$BATS_TEST_TMPDIR/online.txt"
	diff -u "$BATS_TEST_TMPDIR/kernel.txt" "$BATS_TEST_TMPDIR/online.txt"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/kernel.txt")" -ge 7 ]
	run_volctl --format json qgroup show --compute "$MNT"
	[ "$(jq -r .computed.source <<<"$output")" = live_snapshot ]
	run_volctl qgroup show --compute "$MNT"
	assert_output_contains "Computed numbers"

	cleanup_mount
	QSHOW_PATH=/ volctl_computed --image "$IMG" >"$BATS_TEST_TMPDIR/offline.txt"
	diff -u "$BATS_TEST_TMPDIR/kernel.txt" "$BATS_TEST_TMPDIR/offline.txt"
}

@test "qgroup show --compute with quotas off: one computed level-0 row per subvolume" {
	make_set
	run_volctl qgroup show "$MNT"
	assert_status 1
	volctl_computed >"$BATS_TEST_TMPDIR/off.txt"
	run_volctl qgroup show --compute "$MNT"
	assert_status 0
	assert_output_contains "quotas are off"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/off.txt")" -eq 5 ]	# 0/5 sv s1 s2 keep
	btrfs quota enable "$MNT"
	kernel_rescan "$MNT"
	kernel_numbers >"$BATS_TEST_TMPDIR/kernel.txt"
	diff -u "$BATS_TEST_TMPDIR/kernel.txt" "$BATS_TEST_TMPDIR/off.txt"
}

@test "qgroup headroom: dd writes the printed headroom before EDQUOT" {
	btrfs quota enable "$MNT"
	btrfs subvolume create "$MNT/hv" >/dev/null
	btrfs qgroup create 1/1 "$MNT"
	btrfs qgroup create 2/1 "$MNT"
	btrfs qgroup assign --no-rescan 0/256 1/1 "$MNT" 2>/dev/null || true
	btrfs qgroup assign --no-rescan 1/1 2/1 "$MNT" 2>/dev/null || true
	kernel_rescan "$MNT"
	btrfs qgroup limit 64M 1/1 "$MNT"
	btrfs qgroup limit -e 100M "$MNT/hv"
	btrfs qgroup limit 200M 2/1 "$MNT"
	dd if=/dev/urandom of="$MNT/hv/pre" bs=1M count=10 status=none
	sync -f "$MNT"

	run_volctl --format json qgroup headroom "$MNT/hv"
	assert_status 0
	assert_json
	[ "$(jq '.qgroup_headroom.limits | length' <<<"$output")" -eq 3 ]
	[ "$(jq -r '.qgroup_headroom.limits[] | select(.binding) | .qgroupid' <<<"$output")" = 1/1 ]
	[ "$(jq -r .qgroup_headroom.lift_command <<<"$output")" = "volctl qgroup limit none 1/1 $MNT/hv" ]
	head=$(jq .qgroup_headroom.headroom <<<"$output")
	[ "$head" -gt 50000000 ]
	run_volctl qgroup headroom --raw "$MNT/hv"
	assert_output_contains "Headroom: $head can still be written"
	run_volctl --format json qgroup headroom --compute 0/256 "$MNT"
	[ "$(jq .qgroup_headroom.headroom <<<"$output")" -eq "$head" ]

	run dd if=/dev/zero of="$MNT/hv/big" bs=1M count=200 status=none
	[ "$status" -ne 0 ]
	[[ "$output" == *"Disk quota exceeded"* ]]
	sync -f "$MNT"
	written=$(stat -c %s "$MNT/hv/big")
	echo "headroom $head, written before EDQUOT $written"
	# Never more than the headroom; less by what the kernel reserves ahead
	# (metadata for the file extent items and the write in flight, checked
	# against rfer + reserved): 16 KiB measured, allow 2 MiB.
	[ "$written" -le "$head" ]
	[ $((head - written)) -le $((2 * 1024 * 1024)) ]

	# lifting the binding limit lets the write go on
	btrfs qgroup limit none 1/1 "$MNT"
	dd if=/dev/zero of="$MNT/hv/more" bs=1M count=4 status=none
	run_volctl --format json qgroup headroom "$MNT/hv"
	[ "$(jq -r '.qgroup_headroom.limits[] | select(.binding) | .qgroupid' <<<"$output")" = 0/256 ]
}

@test "qgroup headroom: reserved bytes count; full exactly when the kernel refuses writes (EDQUOT)" {
	btrfs quota enable "$MNT"
	btrfs subvolume create "$MNT/hv" >/dev/null
	kernel_rescan "$MNT"
	btrfs qgroup limit 24M "$MNT/hv"
	sync -f "$MNT"
	fsid=$(btrfs filesystem show --raw "$MNT" | awk '/uuid:/ { print $NF }')
	q=/sys/fs/btrfs/$fsid/qgroups/0_256
	for f in rsv_data rsv_meta_pertrans rsv_meta_prealloc; do
		[ -r "$q/$f" ]
	done

	# writes in flight: the data stays reserved until the next commit
	dd if=/dev/zero of="$MNT/hv/a" bs=1M count=4 status=none
	run_volctl --format json qgroup headroom "$MNT/hv"
	assert_status 0
	rsv=$(jq '.qgroup_headroom.limits[0].reserved' <<<"$output")
	sysrsv=$(($(cat "$q/rsv_data") + $(cat "$q/rsv_meta_pertrans") + $(cat "$q/rsv_meta_prealloc")))
	echo "reserved $rsv, sysfs now $sysrsv"
	[ "$rsv" -ge 4194304 ]
	[ "$(jq '.qgroup_headroom.limits[0] | .left == .limit - .used - .reserved' <<<"$output")" = true ]
	[ "$(jq .qgroup_headroom.headroom <<<"$output")" -le $((20 * 1048576)) ]
	[ "$(jq .qgroup_headroom.full <<<"$output")" = false ]
	run_volctl qgroup headroom --raw "$MNT/hv"
	assert_output_contains "Reserved: the kernel's reservations for writes in flight count as used"

	# fill it one block at a time until the kernel refuses
	run dd if=/dev/zero of="$MNT/hv/fill" bs=4K count=10000 status=none
	[ "$status" -ne 0 ]
	[[ "$output" == *"Disk quota exceeded"* ]]
	run_volctl --format json qgroup headroom "$MNT/hv"
	assert_status 0
	echo "$output"
	[ "$(jq .qgroup_headroom.full <<<"$output")" = true ]
	run_volctl qgroup headroom "$MNT/hv"
	assert_status 0
	assert_output_contains "Headroom: full: the referenced limit of 0/256 leaves"
	assert_output_contains "To lift it: volctl qgroup limit none 0/256 $MNT/hv"
	# and still after the reservations are committed: the kernel refuses one more block
	sync -f "$MNT"
	run dd if=/dev/zero of="$MNT/hv/one" bs=4K count=1 status=none
	[ "$status" -ne 0 ]
	[[ "$output" == *"Disk quota exceeded"* ]]
	sync -f "$MNT"
	run_volctl --format json qgroup headroom "$MNT/hv"
	echo "$output"
	[ "$(jq .qgroup_headroom.full <<<"$output")" = true ]

	# raised by 1 MiB: not full, and the kernel takes a block again
	btrfs qgroup limit 25M "$MNT/hv"
	run_volctl --format json qgroup headroom "$MNT/hv"
	[ "$(jq .qgroup_headroom.full <<<"$output")" = false ]
	dd if=/dev/zero of="$MNT/hv/one" bs=4K count=1 status=none

	# offline: nothing reserved, said so
	cleanup_mount
	run_volctl --image "$IMG" --format json qgroup headroom /hv
	assert_status 0
	[ "$(jq .qgroup_headroom.limits[0].reserved <<<"$output")" = null ]
	run_volctl --image "$IMG" qgroup headroom /hv
	assert_output_contains "Offline nothing is reserved"
}

@test "create and snapshot refused by the kernel (EDQUOT): the error names the binding group, its limit and the lift" {
	btrfs quota enable "$MNT"
	btrfs subvolume create "$MNT/p" >/dev/null
	dd if=/dev/urandom of="$MNT/p/f" bs=64K count=4 status=none
	btrfs qgroup create 1/1 "$MNT"
	btrfs qgroup assign --no-rescan 0/256 1/1 "$MNT" 2>/dev/null || true
	kernel_rescan "$MNT"
	rfer=$(btrfs qgroup show --raw "$MNT" | awk '$1 == "1/1" { print $2 }')
	btrfs qgroup limit 100M "$MNT/p"
	btrfs qgroup limit $((rfer + 4096)) 1/1 "$MNT"
	sync -f "$MNT"
	# the kernel refuses a new subvolume in p: it reserves tree blocks in p's groups
	run btrfs subvolume create "$MNT/p/k"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Disk quota exceeded"* ]]
	re="^error: $MNT/p/x: Disk quota exceeded: qgroup 1/1 limit referenced [0-9.]+KiB \\(used [0-9.]+KiB(, reserved [0-9.]+[KMG]?i?B)?\\); raise it with: volctl qgroup limit <size>\\|none 1/1 $MNT/p\$"
	run_volctl subvolume create "$MNT/p/x"
	assert_status 1
	echo "$output"
	[ "$(wc -l <<<"$output")" -eq 1 ]
	[[ "$output" =~ $re ]]
	[ ! -e "$MNT/p/x" ]
	run_volctl subvolume snapshot "$MNT/p" "$MNT/p/x"
	assert_status 1
	echo "$output"
	[[ "$output" =~ $re ]]
	[ ! -e "$MNT/p/x" ]
	# an exclusive limit binding first: -e in the lift command
	btrfs qgroup limit none 1/1 "$MNT"
	excl=$(btrfs qgroup show --raw "$MNT" | awk '$1 == "0/256" { print $3 }')
	btrfs qgroup limit -e $((excl + 4096)) "$MNT/p"
	sync -f "$MNT"
	run_volctl subvolume create "$MNT/p/x"
	assert_status 1
	echo "$output"
	[[ "$output" == "error: $MNT/p/x: Disk quota exceeded: qgroup 0/256 limit exclusive "*"; raise it with: volctl qgroup limit -e <size>|none 0/256 $MNT/p" ]]
	# the command printed lifts it
	"$VOLCTL" qgroup limit -e none 0/256 "$MNT/p"
	run_volctl subvolume create "$MNT/p/x"
	assert_status 0
}

@test "qgroup show --compute on a filesystem being written: numbers, or the documented message" {
	make_set
	# a writer committing all the time, so tree blocks move under the reader
	(
		i=0
		while :; do
			i=$((i + 1))
			dd if=/dev/urandom of="$MNT/sv/w$((i % 50))" bs=64K count=4 status=none
			[ $((i % 10)) -ne 0 ] || btrfs filesystem sync "$MNT" 2>/dev/null
		done
	) &
	WRITER_PID=$!
	ok=0
	for n in 1 2 3 4 5 6; do
		run_volctl qgroup show --compute --raw "$MNT"
		if [ "$status" -eq 0 ]; then
			ok=$((ok + 1))
			assert_output_contains "Computed numbers"
		else
			# a second failed read must say why, never something else
			assert_status 1
			assert_output_contains "the filesystem changed while it was read"
		fi
	done
	kill "$WRITER_PID"
	wait "$WRITER_PID" 2>/dev/null || true
	WRITER_PID=
	echo "$ok of 6 reads under writes succeeded"
	# once quiet, it always succeeds
	run_volctl qgroup show --compute --raw "$MNT"
	assert_status 0
}
