#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# volctl mkfs (no root needed): images btrfs check accepts, the features
# and layout of modern mkfs.btrfs, options, refusals, and crash safety by
# fault injection (never a half image that looks valid).

load ../helpers

setup() {
	command -v btrfs >/dev/null || skip "needs btrfs-progs"
	IMG="$BATS_TEST_TMPDIR/fs.img"
}

check_clean() {
	run btrfs check --readonly "$IMG"
	if [ "$status" -ne 0 ]; then
		echo "$output" >&2
		return 1
	fi
}

@test "mkfs: help on stdout, exit 0; listed in the main usage" {
	run_volctl mkfs --help
	assert_status 0
	assert_output_contains "usage: volctl mkfs"
	assert_output_contains "--default-subvol"
	run_volctl --help
	assert_output_contains "mkfs"
}

@test "mkfs -s 256M: new file, check clean, default features and profiles" {
	run_volctl mkfs -s 256M "$IMG"
	assert_status 0
	[ "$output" = "Created a Btrfs filesystem on '$IMG'" ]
	[ "$(stat -c %s "$IMG")" -eq $((256 << 20)) ]
	check_clean
	run btrfs inspect-internal dump-super "$IMG"
	assert_output_contains "SKINNY_METADATA"
	assert_output_contains "NO_HOLES"
	assert_output_contains "FREE_SPACE_TREE_VALID"
	assert_output_contains "nodesize		16384"
	run btrfs inspect-internal dump-tree -t 3 "$IMG"
	assert_output_contains "type METADATA|DUP"
	assert_output_contains "type SYSTEM|DUP"
	assert_output_contains "type DATA|single"
	run btrfs inspect-internal dump-tree -t 1 "$IMG"
	assert_output_contains "(DATA_RELOC_TREE ROOT_ITEM 0)"
	assert_output_contains "(UUID_TREE ROOT_ITEM 0)"
	assert_output_contains "(FREE_SPACE_TREE ROOT_ITEM 0)"
	assert_output_contains "name: default"
	# our own reader agrees
	run_volctl --image "$IMG" subvolume list /
	assert_status 0
}

@test "mkfs: every checksum type and node size" {
	local csum ns
	for csum in crc32c xxhash sha256 blake2; do
		for ns in 4096 16384 65536; do
			rm -f "$IMG"
			run_volctl mkfs -s 300M -n "$ns" --csum "$csum" "$IMG"
			[ "$status" -eq 0 ] || { echo "$csum $ns: $output" >&2; return 1; }
			run btrfs check --readonly "$IMG"
			[ "$status" -eq 0 ] || { echo "$csum $ns: $output" >&2; return 1; }
			run btrfs inspect-internal dump-super "$IMG"
			assert_output_contains "nodesize		$ns"
		done
	done
	run btrfs inspect-internal dump-super "$IMG"
	assert_output_contains "3 (blake2)"
}

@test "mkfs: label, uuid, quota, subvolumes and the default subvolume" {
	run_volctl mkfs -s 512M -L data -U 0f0e0d0c-0b0a-0908-0706-050403020100 --quota \
		--subvol /a --subvol a/b --subvol c/ --default-subvol a/b "$IMG"
	assert_status 0
	check_clean
	run btrfs check --readonly --qgroup-report "$IMG"
	assert_status 0
	[[ "$output" != *"are different"* ]]
	run btrfs inspect-internal dump-super "$IMG"
	assert_output_contains "fsid			0f0e0d0c-0b0a-0908-0706-050403020100"
	assert_output_contains "label			data"
	assert_output_contains "DEFAULT_SUBVOL"
	run_volctl --image "$IMG" subvolume list /
	assert_output_contains "path a/b"
	assert_output_contains "path c"
	run_volctl --image "$IMG" subvolume get-default /
	assert_output_contains "path a/b"
	run_volctl --image "$IMG" qgroup show /
	assert_output_contains "0/5"
	assert_output_contains "0/258"
}

@test "mkfs -n 4096 --quota: root tree of a node and two leaves, check clean, writable" {
	run_volctl mkfs -s 256M -n 4096 --quota --subvol @ --subvol @home "$IMG"
	assert_status 0
	check_clean
	run btrfs check --readonly --qgroup-report "$IMG"
	assert_status 0
	[[ "$output" != *"are different"* ]]
	run btrfs inspect-internal dump-super "$IMG"
	assert_output_contains "root_level		1"
	run btrfs inspect-internal dump-tree -t root "$IMG"
	assert_output_contains "level 1 items 2"
	assert_output_contains "(QUOTA_TREE ROOT_ITEM 0)"
	run_volctl --image "$IMG" qgroup show /
	assert_output_contains "0/256"
	assert_output_contains "0/257"
	# the offline writer changes it like any other image
	run_volctl --image "$IMG" subvolume create /x
	assert_status 0
	run_volctl --image "$IMG" qgroup create 1/1 /
	assert_status 0
	check_clean
}

@test "mkfs --simple-quota --subvol: squota from generation 1, check clean, 0/5 and 0/256 hold one leaf" {
	run_volctl mkfs -s 256M --simple-quota --subvol /sv --subvol sv/inner "$IMG"
	assert_status 0
	run_volctl check "$IMG"
	assert_status 0
	assert_output_contains "all consistent"
	run_volctl --image "$IMG" quota status /
	assert_status 0
	assert_output_contains "squota"
	assert_output_contains "Inconsistent:            no"
	run_volctl inspect super "$IMG"
	assert_output_contains "simple-quota"
	run_volctl inspect tree -t quota "$IMG"
	assert_output_contains "flags 0x9 (ON|SIMPLE_MODE)"
	assert_output_contains "enable_gen 1"
	run_volctl --image "$IMG" qgroup show --raw /
	assert_status 0
	# 0/5: the fs tree's one leaf (rewritten for the new entries, still one);
	# each new subvolume: its own root leaf
	[[ "$output" == *"0/5              16384        16384"* ]]
	[[ "$output" == *"0/256            16384        16384"* ]]
	[[ "$output" == *"0/257            16384        16384"* ]]
	# the offline writer keeps charging in simple mode
	run_volctl --image "$IMG" subvolume create /x
	assert_status 0
	run_volctl check "$IMG"
	assert_status 0
	assert_output_contains "all consistent"
}

@test "mkfs --simple-quota alone: base commit only, STATUS generation 1, 0/5 = nodesize (4K and 64K)" {
	local ns
	for ns in 4096 65536; do
		run_volctl mkfs -f -s 256M -n "$ns" --simple-quota "$IMG"
		assert_status 0
		run_volctl inspect super "$IMG"
		assert_output_contains "simple-quota"
		run_volctl inspect tree -t quota "$IMG"
		assert_output_contains "generation 1"
		assert_output_contains "enable_gen 1"
		assert_output_contains "referenced_compressed 0"
		run_volctl check "$IMG"
		assert_status 0
		assert_output_contains "all consistent"
		run_volctl --format json --image "$IMG" qgroup show --raw /
		assert_status 0
		[[ "$output" == *'"referenced": '"$ns"* ]]
		[[ "$output" == *'"exclusive": '"$ns"* ]]
	done
}

@test "mkfs --simple-quota: crash after every write, never a half image" {
	if VOLCTL_FAIL_AFTER_WRITES=1 "$VOLCTL" mkfs -s 256M "$BATS_TEST_TMPDIR/probe.img" 2>/dev/null; then
		skip "built without --enable-fault-injection"
	fi
	local n=1 rc valid=0 none=0
	while [ "$n" -lt 100 ]; do
		rm -f "$IMG"
		rc=0
		VOLCTL_FAIL_AFTER_WRITES=$n "$VOLCTL" mkfs -s 256M --simple-quota "$IMG" \
			>/dev/null 2>&1 || rc=$?
		if "$VOLCTL" inspect super "$IMG" >/dev/null 2>&1; then
			# a superblock that reads: the whole squota filesystem is there
			run_volctl check "$IMG"
			[ "$status" -eq 0 ] || { echo "after $n writes: $output" >&2; return 1; }
			assert_output_contains "all consistent"
			valid=$((valid + 1))
		else
			none=$((none + 1))
		fi
		[ "$rc" -eq 0 ] && break
		[ "$rc" -eq 1 ]
		n=$((n + 1))
	done
	[ "$rc" -eq 0 ]
	[ "$none" -gt 3 ]
	[ "$valid" -ge 1 ]
}

@test "mkfs: --quota and --simple-quota exclude each other (usage, nothing written)" {
	run_volctl mkfs -s 256M --quota --simple-quota "$IMG"
	assert_status 2
	assert_output_contains "--simple-quota"
	[ ! -e "$IMG" ]
	run_volctl mkfs --help
	assert_output_contains "--simple-quota"
}

@test "mkfs: refusals (existing btrfs without -f, too small, bad options) leave the file alone" {
	run_volctl mkfs -s 256M "$IMG"
	assert_status 0
	local before
	before=$(sha256sum <"$IMG")
	run_volctl mkfs "$IMG"
	assert_status 1
	assert_output_contains "contains a btrfs filesystem"
	[ "$(sha256sum <"$IMG")" = "$before" ]
	run_volctl mkfs -f "$IMG"
	assert_status 0
	check_clean
	run_volctl mkfs -s 64M "$BATS_TEST_TMPDIR/small.img"
	assert_status 1
	assert_output_contains "too small"
	[ ! -e "$BATS_TEST_TMPDIR/small.img" ]
	run_volctl mkfs -n 3000 "$IMG"
	assert_status 2
	# a size past the parser's range says so and names the largest; 0 is "above 0"
	run_volctl mkfs -s 99E "$BATS_TEST_TMPDIR/huge.img"
	assert_status 2
	assert_output_contains "invalid size '99E': too large: at most 18446744073709551615 bytes (16EiB - 1)"
	run_volctl mkfs -s 0 "$BATS_TEST_TMPDIR/huge.img"
	assert_status 2
	assert_output_contains "invalid size '0': want a size above 0"
	[ ! -e "$BATS_TEST_TMPDIR/huge.img" ]
	run_volctl mkfs --csum md5 "$IMG"
	assert_status 2
	run_volctl mkfs -U not-a-uuid "$IMG"
	assert_status 2
	run_volctl mkfs --subvol /a --default-subvol /b "$IMG"
	assert_status 2
	run_volctl mkfs "$BATS_TEST_TMPDIR/missing.img"
	assert_status 1
	assert_output_contains "give -s SIZE"
	run_volctl mkfs
	assert_status 2
}

@test "mkfs: every --subvol is checked before a byte is written; with -f the old filesystem survives" {
	run_volctl mkfs -s 256M --subvol /keep "$IMG"
	assert_status 0
	local before bad
	before=$(sha256sum <"$IMG")
	while IFS='|' read -r bad msg; do
		# shellcheck disable=SC2086
		run_volctl mkfs -f $bad "$IMG"
		[ "$status" -eq 2 ] || { echo "$bad: status $status: $output" >&2; return 1; }
		[[ "$output" == *"$msg"* ]] || { echo "$bad: $output" >&2; return 1; }
		[ "$(sha256sum <"$IMG")" = "$before" ] || { echo "$bad: image changed" >&2; return 1; }
	done <<-'EOF'
	--subvol /a --subvol /a|--subvol /a: given twice
	--subvol /a --subvol a//|--subvol /a: given twice
	--subvol=|--subvol '': empty path
	--subvol /..|--subvol '/..': '.' and '..' cannot be subvolume names
	--subvol a/../b|--subvol 'a/../b': '.' and '..' cannot be subvolume names
	--subvol /|--subvol '/': the top-level subvolume exists already
	--subvol /a/b|--subvol /a/b: its parent is not an earlier --subvol (nor the top level)
	--subvol /a/b --subvol /a|--subvol /a/b: its parent is not an earlier --subvol
	--subvol /a --default-subvol=|--default-subvol '': empty path
	--subvol /a --default-subvol /..|--default-subvol '/..'
	EOF
	run_volctl mkfs -f --subvol "/$(printf 'n%.0s' $(seq 1 256))" "$IMG"
	assert_status 2
	assert_output_contains "name longer than 255 bytes"
	[ "$(sha256sum <"$IMG")" = "$before" ]
	run_volctl --image "$IMG" subvolume list /
	[ "$output" = "ID 256 gen 2 top level 5 path keep" ]
	# a nested --subvol after its parent, paths cleaned
	run_volctl mkfs -f --subvol a// --subvol /a/./b --default-subvol a/b/ "$IMG"
	assert_status 0
	run_volctl --image "$IMG" subvolume get-default /
	assert_output_contains "path a/b"
}

@test "mkfs: a failed mkfs removes the file it created, never one it did not" {
	local new=$BATS_TEST_TMPDIR/new.img
	run_volctl mkfs -s 1 "$new"
	assert_status 1
	[ "$output" = "error: $new: size 1: too small for a filesystem, at least 134217728 bytes (128 MiB)" ]
	[ ! -e "$new" ]
	run_volctl mkfs -s 100M "$new"
	assert_status 1
	assert_output_contains "too small for a filesystem"
	[ ! -e "$new" ]
	# an existing file that is too small is left as it was
	truncate -s 64M "$new"
	run_volctl mkfs "$new"
	assert_status 1
	assert_output_contains "too small"
	[ "$(stat -c %s "$new")" -eq $((64 << 20)) ]
	# refused without -f: the old file is not grown to -s
	run_volctl mkfs -s 200M "$IMG"
	assert_status 0
	run_volctl mkfs -s 300M "$IMG"
	assert_status 1
	assert_output_contains "contains a btrfs filesystem"
	[ "$(stat -c %s "$IMG")" -eq $((200 << 20)) ]
}

@test "mkfs: a write that fails after the file was created removes it" {
	rm -f "$IMG"
	if VOLCTL_FAIL_AFTER_WRITES=1 "$VOLCTL" mkfs -s 256M "$BATS_TEST_TMPDIR/probe.img" 2>/dev/null; then
		skip "built without --enable-fault-injection"
	fi
	[ ! -e "$BATS_TEST_TMPDIR/probe.img" ]
	local n
	for n in 1 5 20; do
		run env VOLCTL_FAIL_AFTER_WRITES=$n "$VOLCTL" mkfs -s 256M --subvol /a "$IMG"
		assert_status 1
		[ ! -e "$IMG" ] || { echo "after $n writes: $IMG left behind" >&2; return 1; }
	done
}

@test "mkfs over an old filesystem: crash after every write, never a half image" {
	truncate -s 256M "$IMG"
	mkfs.btrfs -q -f "$IMG" >/dev/null
	cp "$IMG" "$BATS_TEST_TMPDIR/probe.img"
	if VOLCTL_FAIL_AFTER_WRITES=1 "$VOLCTL" mkfs -f "$BATS_TEST_TMPDIR/probe.img" 2>/dev/null; then
		skip "built without --enable-fault-injection"
	fi
	cp "$IMG" "$BATS_TEST_TMPDIR/pristine.img"
	local n=1 rc olds=0 nones=0 news=0 fsid_old
	fsid_old=$(btrfs inspect-internal dump-super "$IMG" | awk '$1 == "fsid" {print $2}')
	while [ "$n" -lt 100 ]; do
		cp "$BATS_TEST_TMPDIR/pristine.img" "$IMG"
		rc=0
		VOLCTL_FAIL_AFTER_WRITES=$n "$VOLCTL" mkfs -f "$IMG" >/dev/null 2>&1 || rc=$?
		run btrfs inspect-internal dump-super "$IMG"
		if [[ "$output" == *"magic			_BHRfS_M [match]"* ]]; then
			# a superblock that looks valid: the whole filesystem must be
			check_clean
			if [[ "$output" == *"$fsid_old"* ]]; then
				olds=$((olds + 1))
			else
				news=$((news + 1))
			fi
		else
			nones=$((nones + 1))
		fi
		# a mirror that still looks valid (zeroing interrupted) names a whole
		# filesystem: nothing else is written before every copy is zeroed
		run btrfs inspect-internal dump-super -s 1 "$IMG"
		if [[ "$output" == *"magic			_BHRfS_M [match]"* ]]; then
			run btrfs check --readonly -s 1 "$IMG"
			[ "$status" -eq 0 ] || { echo "mirror 1 after $n writes: $output" >&2; return 1; }
		fi
		if [ "$rc" -eq 0 ]; then
			break
		fi
		[ "$rc" -eq 1 ]
		n=$((n + 1))
	done
	[ "$rc" -eq 0 ]
	[ "$nones" -gt 3 ]
	[ "$news" -ge 1 ]
}

@test "mkfs -m single: SYSTEM and METADATA single, check clean, offline writes add single metadata chunks" {
	run_volctl mkfs -m single -n 4096 -s 256M "$IMG"
	assert_status 0
	[ "$output" = "Created a Btrfs filesystem on '$IMG'" ]
	check_clean
	run btrfs inspect-internal dump-tree -t 3 "$IMG"
	assert_output_contains "type METADATA|single"
	assert_output_contains "type SYSTEM|single"
	assert_output_contains "type DATA|single"
	[[ "$output" != *"DUP"* ]]
	[ "$(echo "$output" | grep -c "num_stripes 1 ")" -eq 3 ]
	# 8000 subvolumes of a 4 KiB leaf each: more than the first 25 MiB chunk holds
	run_volctl --image "$IMG" subvolume create $(seq -f /s%g 1 4000)
	assert_status 0
	run_volctl --image "$IMG" subvolume create $(seq -f /t%g 1 4000)
	assert_status 0
	run btrfs inspect-internal dump-tree -t 3 "$IMG"
	[ "$(echo "$output" | grep -c "type METADATA|single")" -ge 2 ]
	[[ "$output" != *"DUP"* ]]
	check_clean
}

@test "mkfs -m|--metadata, -d|--data: single and dup, data single only; other profiles refused in one line" {
	local u=0f0e0d0c-0b0a-0908-0706-050403020100 p
	SOURCE_DATE_EPOCH=1700000000 run_volctl mkfs -q -U $u -s 256M "$BATS_TEST_TMPDIR/def.img"
	assert_status 0
	SOURCE_DATE_EPOCH=1700000000 run_volctl mkfs -q -U $u --metadata DUP -d single -s 256M "$IMG"
	assert_status 0
	cmp "$BATS_TEST_TMPDIR/def.img" "$IMG"
	rm -f "$IMG"
	SOURCE_DATE_EPOCH=1700000000 run_volctl mkfs -q -U $u -m single --data=single -s 256M "$IMG"
	assert_status 0
	run ! cmp -s "$BATS_TEST_TMPDIR/def.img" "$IMG"
	run btrfs inspect-internal dump-tree -t 3 "$IMG"
	assert_output_contains "type METADATA|single"
	for p in raid0 raid1 raid1c3 raid1c4 raid10 raid5 raid6; do
		run_volctl mkfs -m $p -s 256M "$BATS_TEST_TMPDIR/no.img"
		assert_status 2
		[ "${lines[0]}" = "error: volctl mkfs: metadata profile '$p': one device supports single and dup" ]
		run_volctl mkfs -d $p -s 256M "$BATS_TEST_TMPDIR/no.img"
		assert_status 2
		[ "${lines[0]}" = "error: volctl mkfs: data profile '$p': volctl makes single data only" ]
	done
	run_volctl mkfs --data dup -s 256M "$BATS_TEST_TMPDIR/no.img"
	assert_status 2
	[ "${lines[0]}" = "error: volctl mkfs: data profile 'dup': volctl makes single data only" ]
	run_volctl mkfs -m triple -s 256M "$BATS_TEST_TMPDIR/no.img"
	assert_status 2
	[ "${lines[0]}" = "error: volctl mkfs: unknown metadata profile 'triple': use single or dup" ]
	[ ! -e "$BATS_TEST_TMPDIR/no.img" ]
}
