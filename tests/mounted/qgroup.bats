#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# volctl qgroup on a loop-mounted filesystem.  Every change is checked through
# Debian's btrfs-progs (the oracle), and the text table is compared with its
# output column by column.

load ../helpers

setup() {
	require_root_loop
	mkfs_mount 512M
	"$VOLCTL" quota enable "$MNT"
	"$VOLCTL" quota rescan -W "$MNT"
}

teardown() {
	cleanup_mount
}

# qgroup ids and relations as btrfs-progs sees them: "id parent child" lines
progs_relations() {
	btrfs qgroup show -pc "$MNT" | awk 'NR>2 {print $1, $4, $5}'
}

# cut every line of a qgroup show table before its Path column
without_path() {
	awk 'NR == 1 {p = index($0, "Path") - 3} {print substr($0, 1, p)}'
}

# Everything committed first, so that a transaction commit between two
# calls cannot change the numbers.
progs_state() {
	btrfs filesystem sync "$MNT" >/dev/null
	btrfs qgroup show -pcre --raw "$MNT"
}

@test "qgroup create and destroy" {
	run_volctl qgroup create 1/10 "$MNT"
	assert_status 0
	[ -z "$output" ]
	run_volctl qgroup create 2/10 "$MNT"
	assert_status 0
	run btrfs qgroup show "$MNT"
	assert_output_contains "1/10 "
	assert_output_contains "2/10 "

	run_volctl qgroup create 1/10 "$MNT"
	assert_status 1
	[ "$output" = "error: qgroup 1/10 already exists (File exists)" ]
	run_volctl qgroup create 0/300 "$MNT"
	assert_status 1
	assert_output_contains "qgroup 0/300: level-0 qgroups belong to subvolumes"

	run_volctl qgroup destroy 1/10 "$MNT"
	assert_status 0
	run btrfs qgroup show "$MNT"
	[[ "$output" != *"1/10 "* ]]
	assert_output_contains "2/10 "
	run_volctl qgroup destroy 1/10 "$MNT"
	assert_status 1
	[ "$output" = "error: qgroup 1/10 does not exist (No such file or directory)" ]
}

@test "qgroup assign and remove, by id and by absolute path" {
	btrfs subvolume create "$MNT/a" >/dev/null
	btrfs subvolume create "$MNT/b" >/dev/null
	run_volctl qgroup create 1/1 "$MNT"
	run_volctl qgroup create 2/1 "$MNT"
	run_volctl qgroup assign 0/256 1/1 "$MNT"
	assert_status 0
	run_volctl qgroup assign "$MNT/b" 1/1 "$MNT"
	assert_status 0
	run_volctl qgroup assign 1/1 2/1 "$MNT"
	assert_status 0
	run progs_relations
	assert_output_contains "0/256 1/1 -"
	assert_output_contains "0/257 1/1 -"
	assert_output_contains "1/1 2/1 0/256,0/257"
	assert_output_contains "2/1 - 1/1"

	run_volctl qgroup assign 0/256 1/1 "$MNT"
	assert_status 1
	[ "$output" = "error: qgroup 0/256 is already a member of 1/1 (File exists)" ]

	run_volctl qgroup remove "$MNT/a" 1/1 "$MNT"
	assert_status 0
	run progs_relations
	assert_output_contains "0/256 - -"
	assert_output_contains "1/1 2/1 0/257"
	run_volctl qgroup remove 0/256 1/1 "$MNT"
	assert_status 1
	[ "$output" = "error: qgroup 0/256 is not a member of 1/1 (No such file or directory)" ]
	# a bare subvolume id means 0/ID
	run_volctl qgroup remove 257 1/1 "$MNT"
	assert_status 0
	run progs_relations
	assert_output_contains "0/257 - -"
}

@test "qgroup assign: a needed rescan is started, or warned about with --no-rescan" {
	btrfs subvolume create "$MNT/a" >/dev/null
	dd if=/dev/urandom of="$MNT/a/f" bs=1M count=2 status=none
	btrfs subvolume snapshot "$MNT/a" "$MNT/s1" >/dev/null
	btrfs subvolume snapshot "$MNT/a" "$MNT/s2" >/dev/null
	run_volctl qgroup create 1/1 "$MNT"
	run_volctl quota rescan -w "$MNT"
	# shared data: the kernel cannot update 1/1 in place
	run_volctl qgroup assign "$MNT/s1" 1/1 "$MNT"
	assert_status 0
	[ "$output" = "Quota data changed, rescan scheduled" ]
	run_volctl quota rescan -W "$MNT"
	run_volctl_split qgroup assign --no-rescan "$MNT/s2" 1/1 "$MNT"
	assert_status 0
	[[ "$err" == *"quota numbers are now inconsistent"* ]]
	[ "$(btrfs qgroup show -p "$MNT" | awk '$1 == "0/258" {print $4}')" = 1/1 ]
	run_volctl quota rescan -w "$MNT"
	# after the rescan 1/1 holds exactly what btrfs-progs says
	ours=$("$VOLCTL" qgroup show --raw "$MNT" | awk '$1 == "1/1" {print $2, $3}')
	theirs=$(btrfs qgroup show --raw "$MNT" | awk '$1 == "1/1" {print $2, $3}')
	[ "$ours" = "$theirs" ]
}

@test "qgroup limit: referenced, exclusive, none, implicit and path forms" {
	btrfs subvolume create "$MNT/a" >/dev/null
	btrfs subvolume create "$MNT/b" >/dev/null
	run_volctl qgroup create 1/1 "$MNT"
	run_volctl qgroup limit 30M 0/256 "$MNT"
	assert_status 0
	run_volctl qgroup limit -e 2g "$MNT/b" "$MNT"
	assert_status 0
	run_volctl qgroup limit 1T 1/1 "$MNT"
	assert_status 0
	run btrfs qgroup show -re --raw "$MNT"
	[ "$(awk '$1 == "0/256" {print $4, $5}' <<<"$output")" = "31457280 none" ]
	[ "$(awk '$1 == "0/257" {print $4, $5}' <<<"$output")" = "none 2147483648" ]
	[ "$(awk '$1 == "1/1" {print $4, $5}' <<<"$output")" = "1099511627776 none" ]

	# without a qgroup id: the subvolume at the path
	run_volctl qgroup limit 5M "$MNT/b"
	assert_status 0
	run btrfs qgroup show -re --raw "$MNT"
	[ "$(awk '$1 == "0/257" {print $4, $5}' <<<"$output")" = "5242880 2147483648" ]
	run_volctl qgroup limit 5M "$MNT/a/"
	assert_status 0
	mkdir "$MNT/a/dir"
	run_volctl qgroup limit 5M "$MNT/a/dir"
	assert_status 1
	assert_output_contains "$MNT/a/dir: not a subvolume"

	run_volctl qgroup limit none 0/256 "$MNT"
	assert_status 0
	run_volctl qgroup limit -e NONE "$MNT/b" "$MNT"
	assert_status 0
	run btrfs qgroup show -re --raw "$MNT"
	[ "$(awk '$1 == "0/256" {print $4, $5}' <<<"$output")" = "none none" ]
	[ "$(awk '$1 == "0/257" {print $4, $5}' <<<"$output")" = "5242880 none" ]

	run_volctl qgroup limit 1M 1/99 "$MNT"
	assert_status 1
	[ "$output" = "error: qgroup 1/99 does not exist (No such file or directory)" ]
}

@test "qgroup show: the text table matches btrfs-progs' layout" {
	btrfs subvolume create "$MNT/a" >/dev/null
	mkdir "$MNT/a/dir"
	btrfs subvolume create "$MNT/a/dir/nested" >/dev/null
	btrfs subvolume create "$MNT/d" >/dev/null
	dd if=/dev/urandom of="$MNT/d/f" bs=1M count=3 status=none
	# written and committed now: left to writeback, the data lands in 0/258
	# between the two tools' reads when a periodic commit falls there
	sync -f "$MNT/d/f"
	btrfs qgroup create 1/100 "$MNT"
	btrfs qgroup assign 0/256 1/100 "$MNT" >/dev/null
	btrfs qgroup limit -e 2M 0/258 "$MNT"
	btrfs qgroup limit 10M 1/100 "$MNT"
	run_volctl quota rescan -w "$MNT"
	for opts in "" "-p" "-c" "-r" "-e" "-pcre" "--raw" "--kbytes -re" "--si -pc" \
		    "--sort=-excl,qgroupid" "--sort=path" "-r --sort=max_rfer"; do
		# shellcheck disable=SC2086
		ours=$("$VOLCTL" qgroup show $opts "$MNT")
		# shellcheck disable=SC2086
		theirs=$(btrfs qgroup show $opts "$MNT" | tr -d '\000')
		# level-0 rows, header and dashes are identical
		diff <(grep -v '^1/' <<<"$ours") <(grep -v '^1/' <<<"$theirs") ||
			{ echo "options: $opts"; false; }
		# every column but the path of level>0 groups, which upstream garbles
		diff <(without_path <<<"$ours") <(without_path <<<"$theirs") ||
			{ echo "options: $opts"; false; }
	done
	run_volctl qgroup show "$MNT"
	assert_output_contains "0/5           16.00KiB     16.00KiB   <toplevel>"
	assert_output_contains "   a/dir/nested"
	[[ "$(grep '^1/100' <<<"$output")" == *"   <1 member>" ]]
}

@test "qgroup show --raw numbers equal btrfs-progs' after a rescan" {
	for s in a b c; do
		btrfs subvolume create "$MNT/$s" >/dev/null
	done
	dd if=/dev/urandom of="$MNT/a/f" bs=1M count=2 status=none
	dd if=/dev/urandom of="$MNT/b/f" bs=4k count=7 status=none
	btrfs subvolume snapshot "$MNT/a" "$MNT/snap" >/dev/null
	btrfs qgroup create 1/1 "$MNT"
	btrfs qgroup assign --no-rescan 0/256 1/1 "$MNT" >/dev/null 2>&1
	btrfs qgroup assign --no-rescan 0/259 1/1 "$MNT" >/dev/null 2>&1
	run_volctl quota rescan -w "$MNT"
	assert_status 0
	ours=$("$VOLCTL" qgroup show --raw "$MNT" | awk 'NR>2 {print $1, $2, $3}')
	theirs=$(btrfs qgroup show --raw "$MNT" | awk 'NR>2 {print $1, $2, $3}')
	[ "$ours" = "$theirs" ]
	[ "$(wc -l <<<"$ours")" -eq 6 ]
}

@test "qgroup show -f and -F select the same groups as btrfs-progs" {
	btrfs subvolume create "$MNT/a" >/dev/null
	btrfs subvolume create "$MNT/b" >/dev/null
	mkdir "$MNT/a/dir"
	btrfs qgroup create 1/1 "$MNT"
	btrfs qgroup create 2/1 "$MNT"
	btrfs qgroup assign 0/256 1/1 "$MNT" >/dev/null
	btrfs qgroup assign 1/1 2/1 "$MNT" >/dev/null
	for opt in -f -F; do
		ours=$("$VOLCTL" qgroup show $opt "$MNT/a/dir" | awk 'NR>2 {print $1}')
		theirs=$(btrfs qgroup show $opt "$MNT/a/dir" | awk 'NR>2 {print $1}')
		[ "$ours" = "$theirs" ] || { echo "$opt: [$ours] [$theirs]"; false; }
	done
	run_volctl qgroup show -F "$MNT/a"
	[ "$(awk 'NR>2 {print $1}' <<<"$output" | tr '\n' ' ')" = "0/256 1/1 2/1 " ]
	run_volctl qgroup show -f "$MNT/b"
	[ "$(awk 'NR>2 {print $1}' <<<"$output" | tr '\n' ' ')" = "0/257 " ]
}

@test "qgroup show --format json: schema, filters and sort" {
	btrfs subvolume create "$MNT/a" >/dev/null
	btrfs subvolume create "$MNT/b" >/dev/null
	dd if=/dev/urandom of="$MNT/b/f" bs=1M count=1 status=none
	btrfs qgroup create 1/1 "$MNT"
	btrfs qgroup assign 0/256 1/1 "$MNT" >/dev/null
	btrfs qgroup assign 0/257 1/1 "$MNT" >/dev/null
	btrfs qgroup limit 10M 1/1 "$MNT"
	btrfs qgroup limit -e 3M 0/257 "$MNT"
	run_volctl quota rescan -w "$MNT"
	run_volctl --format json qgroup show "$MNT"
	assert_status 0
	assert_json
	j=$output
	[ "$(jq -r '.__header.version' <<<"$j")" = 3 ]
	[ "$(jq -c '.quota' <<<"$j")" = '{"enabled":true,"mode":"full","inconsistent":false,"rescan_running":false}' ]
	[ "$(jq -r '[.qgroup_show[].qgroupid] | join(" ")' <<<"$j")" = "0/5 0/256 0/257 1/1" ]
	[ "$(jq -c '.qgroup_show[0] | [.path, .status, .level, .id]' <<<"$j")" = '["","toplevel",0,5]' ]
	[ "$(jq -c '.qgroup_show[] | select(.qgroupid == "0/257") | [.path, .status, .max_referenced, .max_exclusive, .parents, .children]' <<<"$j")" = '["b","subvolume",null,3145728,["1/1"],[]]' ]
	[ "$(jq -c '.qgroup_show[] | select(.qgroupid == "1/1") | [.path, .status, .level, .id, .max_referenced, .children]' <<<"$j")" = '[null,"group",1,1,10485760,["0/256","0/257"]]' ]
	# numbers are raw bytes, the same as btrfs-progs'
	theirs=$(btrfs qgroup show --raw "$MNT" | awk '$1 == "0/257" {print $2, $3}')
	[ "$(jq -r '.qgroup_show[] | select(.qgroupid == "0/257") | "\(.referenced) \(.exclusive)"' <<<"$j")" = "$theirs" ]
	# unit options do not change JSON
	run_volctl --format json qgroup show --kbytes "$MNT"
	[ "$output" = "$j" ]
	# filters and sort apply
	run_volctl --format json qgroup show -F --sort=-qgroupid "$MNT/b"
	assert_json
	[ "$(jq -r '[.qgroup_show[].qgroupid] | join(" ")' <<<"$output")" = "1/1 0/257" ]
	run_volctl --format json qgroup show --sort=-rfer "$MNT"
	[ "$(jq -r '.qgroup_show[0].qgroupid' <<<"$output")" = "1/1" ]
}

@test "seed a: 30M limit, fill until EDQUOT, rm still works, delete the subvolume" {
	btrfs subvolume create "$MNT/s" >/dev/null
	run_volctl qgroup limit 30M "$MNT/s"
	assert_status 0
	i=0
	while dd if=/dev/zero of="$MNT/s/f$i" bs=1M count=4 status=none 2>"$BATS_TEST_TMPDIR/dd.err"; do
		i=$((i + 1))
		[ $i -lt 20 ] || break
	done
	# the limit stopped the writer, with EDQUOT, before 20 x 4M
	[ $i -lt 20 ]
	grep -q "Disk quota exceeded" "$BATS_TEST_TMPDIR/dd.err"
	sync -f "$MNT"
	run_volctl qgroup show -r --raw "$MNT"
	rfer=$(awk '$1 == "0/256" {print $2}' <<<"$output")
	[ "$rfer" -le 31457280 ]
	[ "$rfer" -gt 20971520 ]
	[ "$(btrfs qgroup show -r --raw "$MNT" | awk '$1 == "0/256" {print $2, $4}')" = "$rfer 31457280" ]
	run_volctl --format json qgroup show "$MNT"
	[ "$(jq -r '.qgroup_show[] | select(.qgroupid == "0/256") | .full' <<<"$output")" = true ]
	run_volctl qgroup show --tree "$MNT"
	assert_output_contains "/30.00MiB"
	[[ "$(grep '0/256' <<<"$output")" == *"% full s" ]]

	rm "$MNT/s/f0"
	sync -f "$MNT"
	run_volctl qgroup show --raw "$MNT"
	[ "$(awk '$1 == "0/256" {print $2}' <<<"$output")" -lt "$rfer" ]
	btrfs subvolume delete "$MNT/s" >/dev/null
	run_volctl qgroup show "$MNT"
	assert_status 0
	# never shown with its old path once deleted
	local shown=$output
	run ! grep -q '^0/256 .*  s$' <<<"$shown"
	row=$(grep '^0/256 ' <<<"$shown" || true)
	[ -z "$row" ] || [[ "$row" == *"<under deletion>" ]]
	wait_cleaned "$MNT" >/dev/null
	run_volctl qgroup clear-stale "$MNT"
	assert_status 0
	run btrfs qgroup show "$MNT"
	[[ "$output" != *"0/256 "* ]]
}

@test "seed b: 1/1 over three users, 5M each and 10M on the group; tree and JSON show which limits are full" {
	mkdir "$MNT/users"
	for u in u1 u2 u3; do
		btrfs subvolume create "$MNT/users/$u" >/dev/null
		run_volctl qgroup limit 5M "$MNT/users/$u"
		assert_status 0
	done
	run_volctl qgroup create 1/1 "$MNT"
	for u in u1 u2 u3; do
		run_volctl qgroup assign "$MNT/users/$u" 1/1 "$MNT"
		assert_status 0
	done
	run_volctl qgroup limit 10M 1/1 "$MNT"
	for u in u1 u2; do
		i=0
		while dd if=/dev/zero of="$MNT/users/$u/f$i" bs=256k count=1 status=none 2>/dev/null; do
			i=$((i + 1))
			[ $i -lt 40 ] || break
		done
		[ $i -lt 40 ]
	done
	# u3 has room under its own limit, but the group is full
	run dd if=/dev/zero of="$MNT/users/u3/f" bs=1M count=1 status=none
	[ "$status" -ne 0 ]
	sync -f "$MNT"

	run_volctl qgroup show --tree "$MNT"
	assert_status 0
	[[ "${lines[0]}" == "QGROUP"*"REFERENCED"*"EXCLUSIVE"*"RFER-LIMIT"*"USE"*"PATH" ]]
	[[ "${lines[1]}" == "1/1 "*"/10.00MiB"*"% full <3 members>" ]]
	[[ "${lines[2]}" == "|-0/256 "*"/5.00MiB"*"% full users/u1" ]]
	[[ "${lines[3]}" == "|-0/257 "*"/5.00MiB"*"% full users/u2" ]]
	[[ "${lines[4]}" == '`-0/258 '*"/5.00MiB"*" users/u3" ]]
	[[ "${lines[4]}" != *full* ]]
	[[ "${lines[5]}" == "0/5 "*"<toplevel>" ]]

	run_volctl --format json qgroup show "$MNT"
	assert_json
	[ "$(jq -r '[.qgroup_show[] | select(.full) | .qgroupid] | join(" ")' <<<"$output")" = "0/256 0/257 1/1" ]
	[ "$(jq -r '.qgroup_show[] | select(.qgroupid == "0/258") | "\(.full) \(.referenced_percent)"' <<<"$output")" = "false 0" ]
	[ "$(jq -r '.qgroup_show[] | select(.qgroupid == "1/1") | .referenced_percent' <<<"$output")" -ge 95 ]
	# the numbers behind it are btrfs-progs' numbers
	theirs=$(btrfs qgroup show --raw "$MNT" | awk '$1 == "1/1" {print $2}')
	[ "$(jq -r '.qgroup_show[] | select(.qgroupid == "1/1") | .referenced' <<<"$output")" = "$theirs" ]
}

@test "qgroup: bad input gives a clear error and changes nothing" {
	btrfs subvolume create "$MNT/a" >/dev/null
	btrfs subvolume create "$MNT/b" >/dev/null
	btrfs qgroup create 1/1 "$MNT"
	btrfs qgroup create 2/1 "$MNT"
	btrfs qgroup assign 0/256 1/1 "$MNT" >/dev/null
	btrfs qgroup assign 1/1 2/1 "$MNT" >/dev/null
	btrfs qgroup limit 7M 0/257 "$MNT"
	kernel_rescan "$MNT"
	before=$(progs_state)

	run_volctl qgroup destroy 1/1 "$MNT"
	assert_status 1
	assert_output_contains "qgroup 1/1 still has members (0/256)"
	run_volctl qgroup destroy 2/1 "$MNT"
	assert_status 1
	assert_output_contains "qgroup 2/1 still has members (1/1)"
	run_volctl qgroup destroy 0/257 "$MNT"
	assert_status 1
	assert_output_contains "qgroup 0/257 belongs to subvolume 257"
	run_volctl qgroup assign 0/256 1/5 "$MNT"
	assert_status 1
	[ "$output" = "error: qgroup 1/5 does not exist (Invalid argument)" ]
	run_volctl qgroup assign 0/999 1/1 "$MNT"
	assert_status 1
	[ "$output" = "error: qgroup 0/999 does not exist (Invalid argument)" ]
	run_volctl qgroup assign 1/1 1/2 "$MNT"
	assert_status 2
	assert_output_contains "cannot assign 1/1 to 1/2: the parent's level must be higher"
	run_volctl qgroup assign "$MNT/a" 0/257 "$MNT"
	assert_status 1
	[ "$output" = "error: cannot assign 0/256 to 0/257: the parent's level must be higher" ]
	run_volctl qgroup create 1/1 "$MNT"
	assert_status 1
	for id in 1/ /5 x 0/0 65536/1 1/1/1; do
		run_volctl qgroup create "$id" "$MNT"
		assert_status 2
		assert_output_contains "invalid qgroup id '$id'"
		run_volctl qgroup limit 1M "$id" "$MNT"
		assert_status 2
	done
	for size in -5 12Q 1e99 18446744073709551616; do
		run_volctl qgroup limit "$size" 0/257 "$MNT"
		assert_status 2
		assert_output_contains "invalid size '$size'"
	done
	run_volctl qgroup assign relative/path 1/1 "$MNT"
	assert_status 2
	run_volctl qgroup assign "$MNT/nonexistent" 1/1 "$MNT"
	assert_status 1
	assert_output_contains "$MNT/nonexistent"

	[ "$(progs_state)" = "$before" ]
}

@test "qgroup show: deleted subvolumes show <under deletion>, then go away" {
	btrfs subvolume create "$MNT/keep" >/dev/null
	btrfs subvolume create "$MNT/del" >/dev/null
	for i in $(seq 1 300); do echo "$i" >"$MNT/del/f$i"; done
	dd if=/dev/urandom of="$MNT/del/big" bs=1M count=8 status=none
	sync -f "$MNT"
	btrfs subvolume delete "$MNT/del" >/dev/null
	run_volctl --format json qgroup show "$MNT"
	assert_status 0
	st=$(jq -r '.qgroup_show[] | select(.qgroupid == "0/257") | "\(.status) \(.path)"' <<<"$output")
	# either still being cleaned, or already removed by the kernel (6.11+)
	[ -z "$st" ] || [ "$st" = "under-deletion null" ]
	wait_cleaned "$MNT" >/dev/null
	run_volctl qgroup clear-stale "$MNT"
	assert_status 0
	run_volctl qgroup show "$MNT"
	[[ "$output" != *"0/257 "* ]]
	assert_output_contains "   keep"
}

@test "qgroup, simple quotas: a deleted subvolume's charge stays as a space holder" {
	"$VOLCTL" quota disable "$MNT"
	run_volctl quota enable --simple "$MNT"
	assert_status 0
	btrfs subvolume create "$MNT/sq" >/dev/null
	dd if=/dev/urandom of="$MNT/sq/f" bs=1M count=2 status=none
	sync -f "$MNT"
	# the snapshot keeps the extents alive; squota leaves them charged to 0/256
	btrfs subvolume snapshot "$MNT/sq" "$MNT/snap" >/dev/null
	btrfs subvolume delete "$MNT/sq" >/dev/null
	wait_cleaned "$MNT" >/dev/null
	btrfs filesystem sync "$MNT"
	run_volctl qgroup show "$MNT"
	assert_status 0
	row=$(grep '^0/256 ' <<<"$output" || true)
	[[ "$row" == *"   <squota space holder>" ]]
	run_volctl --format json qgroup show "$MNT"
	[ "$(jq -r '.qgroup_show[] | select(.qgroupid == "0/256") | .status' <<<"$output")" = squota-space-holder ]
	run_volctl qgroup clear-stale "$MNT"
	assert_status 0
	assert_output_contains "Skip qgroup 0/256: simple-quota space holder"
	run btrfs qgroup show "$MNT"
	assert_output_contains "0/256 "
}

@test "qgroup show --sync and unit options" {
	btrfs subvolume create "$MNT/a" >/dev/null
	# fsync writes the data but leaves the transaction open; --sync commits it
	dd if=/dev/urandom of="$MNT/a/f" bs=1M count=1 conv=fsync status=none
	run_volctl qgroup show --sync --raw "$MNT"
	assert_status 0
	# after the commit the new data is counted
	[ "$(awk '$1 == "0/256" {print ($2 >= 1048576)}' <<<"$output")" = 1 ]
	run_volctl qgroup show --si "$MNT"
	assert_output_contains "16.38kB"
	run_volctl qgroup show --kbytes "$MNT"
	assert_output_contains "16.00KiB"
}

@test "qgroup show --sync and clear-stale count buffered data, as btrfs-progs' sync does" {
	btrfs subvolume create "$MNT/a" >/dev/null
	btrfs filesystem sync "$MNT"
	# 128 MiB still in the page cache: a bare commit would not count it
	dd if=/dev/zero of="$MNT/a/big" bs=1M count=128 status=none
	run_volctl qgroup show --sync --raw "$MNT"
	assert_status 0
	local ours
	ours=$(awk '$1 == "0/256" {print $2}' <<<"$output")
	[ "$ours" -ge 134217728 ] || { echo "0/256 referenced $ours after --sync"; return 1; }
	# the same number btrfs-progs reads (nothing left to sync now)
	[ "$(btrfs qgroup show --raw "$MNT" | awk '$1 == "0/256" {print $2}')" = "$ours" ]
	dd if=/dev/zero of="$MNT/a/big2" bs=1M count=64 status=none
	run_volctl qgroup clear-stale "$MNT"
	assert_status 0
	[ "$(btrfs qgroup show --raw "$MNT" | awk '$1 == "0/256" {print $2}')" -ge 201326592 ]
}

@test "qgroup limit: works from inside a subvolume that is over its quota" {
	btrfs subvolume create "$MNT/d" >/dev/null
	dd if=/dev/urandom of="$MNT/d/f" bs=1M count=3 status=none
	sync -f "$MNT"
	run_volctl qgroup limit -e 1M "$MNT/d"
	assert_status 0
	run dd if=/dev/zero of="$MNT/d/g" bs=1M count=1 status=none
	[ "$status" -ne 0 ]
	# btrfs-progs fails here with EDQUOT; we retry from the parent subvolume
	run btrfs qgroup limit 5G "$MNT/d"
	[ "$status" -ne 0 ]
	run_volctl qgroup limit 5G "$MNT/d"
	assert_status 0
	run_volctl qgroup limit -e none 0/256 "$MNT/d"
	assert_status 0
	[ "$(btrfs qgroup show -re --raw "$MNT" | awk '$1 == "0/256" {print $4, $5}')" = "5368709120 none" ]
}

@test "qgroup clear-stale names the groups it skips while their subvolume is being cleaned" {
	btrfs subvolume create "$MNT/big" >/dev/null
	for i in $(seq 1 3000); do echo "$i" >"$MNT/big/f$i"; done
	dd if=/dev/urandom of="$MNT/big/data" bs=1M count=40 status=none
	sync -f "$MNT"
	"$VOLCTL" quota rescan -w "$MNT" >/dev/null
	btrfs subvolume delete "$MNT/big" >/dev/null
	# unmount before the cleaner is done, come back read-only: it stays half-cleaned
	umount "$MNT"
	mount -o ro "$LOOPDEV" "$MNT"
	run_volctl qgroup show "$MNT"
	assert_status 0
	[[ "$(grep '^0/256 ' <<<"$output")" == *"   <under deletion>" ]]
	run_volctl --format json qgroup show "$MNT"
	[ "$(jq -r '.qgroup_show[] | select(.qgroupid == "0/256") | "\(.status) \(.path)"' <<<"$output")" = "under-deletion null" ]
	run_volctl qgroup clear-stale "$MNT"
	assert_status 0
	assert_output_contains "Skip qgroup 0/256: subvolume 256 is still being cleaned"
	[[ "$output" != *"Delete stale qgroup"* ]]
	# read-write again, the cleaner finishes and the kernel drops the qgroup
	mount -o remount,rw "$MNT"
	wait_cleaned "$MNT" >/dev/null
	run_volctl qgroup clear-stale "$MNT"
	assert_status 0
	run btrfs qgroup show "$MNT"
	[[ "$output" != *"0/256 "* ]]
}

@test "qgroup create refuses 0/2; clear-stale reports a 0/N group the kernel keeps and still exits 0" {
	# btrfs-progs 6.2 creates 0/2 and 0/3; the kernel keeps 0/2 for ever
	# (tree 2, the extent tree, exists) while 0/3 can go
	btrfs qgroup create 0/2 "$MNT"
	btrfs qgroup create 0/3 "$MNT"
	run_volctl qgroup create 0/2 "$MNT"
	assert_status 2
	run_volctl qgroup create 2 "$MNT"
	assert_status 2
	run btrfs qgroup show "$MNT"
	[[ "$output" != *"1/2 "* ]]
	run_volctl_split qgroup clear-stale "$MNT"
	[ "$status" -eq 0 ] || { echo "$out $err"; return 1; }
	[[ "$out" == *"Delete stale qgroup 0/3"* ]]
	[[ "$out" != *"0/2"* ]]
	[[ "$err" == *"qgroup 0/2: not a subvolume's group and the filesystem has a tree 2"* ]]
	# and again: the group that stays does not make every later run fail
	run_volctl_split qgroup clear-stale "$MNT"
	[ "$status" -eq 0 ]
	[[ "$err" == *"qgroup 0/2"* ]]
	run btrfs qgroup show "$MNT"
	[[ "$output" == *"0/2 "* ]]
	[[ "$output" != *"0/3 "* ]]
	run_volctl qgroup destroy 0/2 "$MNT"
	assert_status 1
	assert_output_contains "qgroup 0/2 is not a subvolume's group, and the kernel keeps it while tree 2 exists"
}

@test "unit options combined print what btrfs-progs prints; sizes as people type them" {
	btrfs subvolume create "$MNT/a" >/dev/null
	dd if=/dev/urandom of="$MNT/a/f" bs=1M count=3 status=none
	btrfs filesystem sync "$MNT"
	local o
	for o in "--raw --kbytes" "--kbytes --raw" "--raw --si" "--si --raw" "--si --human-readable" \
		 "--kbytes --human-readable" "--human-readable --kbytes" "--si --kbytes" "--mbytes --iec"; do
		# shellcheck disable=SC2086
		[ "$("$VOLCTL" qgroup show $o "$MNT" | awk '$1 == "0/256" {print $2, $3}')" = \
		  "$(btrfs qgroup show $o "$MNT" | awk '$1 == "0/256" {print $2, $3}')" ] ||
			{ echo "qgroup show $o differs"; return 1; }
	done
	for o in "-k -H" "-H -k" "-b -m" "--raw -k"; do
		# shellcheck disable=SC2086
		[ "$("$VOLCTL" subvolume show $o "$MNT/a" | grep Usage)" = \
		  "$(btrfs subvolume show $o "$MNT/a" | grep Usage)" ] ||
			{ echo "subvolume show $o differs"; return 1; }
	done
	run_volctl qgroup limit 1.5G "$MNT/a"
	assert_status 0
	run_volctl qgroup limit -e 10MiB "$MNT/a"
	assert_status 0
	run btrfs qgroup show -re --raw "$MNT"
	[[ "$output" == *" 1610612736 "*" 10485760 "* ]] || { echo "$output"; return 1; }
}
