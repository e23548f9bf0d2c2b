#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# volctl mkfs --rootdir (no root needed): the tree comes back out of the
# image through btrfs-progs' own reader (btrfs restore, which needs no
# mount), btrfs check --check-data-csum is clean, and bad input is refused
# before any file is made.  The kernel side (mount, compare every inode,
# scrub, send/receive, quota rescan) is tests/mounted/rootdir*.bats.

load ../helpers

setup() {
	command -v btrfs >/dev/null || skip "needs btrfs-progs"
	IMG="$BATS_TEST_TMPDIR/fs.img"
	SRC="$BATS_TEST_TMPDIR/src"
	OUT="$BATS_TEST_TMPDIR/out"
	mkdir -p "$SRC" "$OUT"
}

check_clean() {
	run btrfs check --readonly --check-data-csum "$IMG"
	if [ "$status" -ne 0 ]; then
		echo "$output" >&2
		return 1
	fi
}

# A small tree with one of everything a user can make without root
make_tree() {
	mkdir -p "$SRC/d/e" "$SRC/empty" "$SRC/sub/inner"
	printf 'small' >"$SRC/d/small"
	head -c 2048 /dev/urandom >"$SRC/d/inline-max"
	head -c 2049 /dev/urandom >"$SRC/d/inline-max+1"
	head -c 300000 /dev/urandom >"$SRC/d/big"
	: >"$SRC/d/empty-file"
	truncate -s 3M "$SRC/holes"
	printf 'middle' | dd of="$SRC/holes" bs=1 seek=$((1 << 20)) conv=notrunc status=none
	ln "$SRC/d/small" "$SRC/d/e/hardlink"
	ln -s ../small "$SRC/d/e/rel-link"
	ln -s /nowhere/at/all "$SRC/dangling"
	mkfifo "$SRC/d/fifo"
	printf 'in a subvolume' >"$SRC/sub/inner/file"
	python3 -c "import os; os.setxattr('$SRC/d/big', 'user.note', b'v' * 300)"
	chmod 1755 "$SRC/empty"
	chmod 4750 "$SRC/d/small"
	touch -h -d '1999-12-31 23:59:59.123456789' "$SRC/d/big" "$SRC/dangling"
}

@test "mkfs --rootdir: restore gives the tree back; check with data checksums clean" {
	make_tree
	run_volctl mkfs -s 256M --rootdir "$SRC" "$IMG"
	assert_status 0
	assert_output_contains "Created a Btrfs filesystem on '$IMG'"
	assert_output_contains "hard links"
	check_clean
	run btrfs restore -x -m -S "$IMG" "$OUT"
	assert_status 0
	# restore makes no fifos: the fifo is looked at in the tree below
	run diff -r --no-dereference --exclude=fifo "$SRC" "$OUT"
	[ "$status" -eq 0 ] || { echo "$output" >&2; false; }
	run btrfs inspect-internal dump-tree -t 5 "$IMG"
	echo "$output" | grep -q "mode 10644 links 1"
	# modes with suid and sticky bits, times to the nanosecond, xattrs
	[ "$(stat -c %a "$OUT/empty")" = 1755 ]
	[ "$(stat -c %a "$OUT/d/small")" = 4750 ]
	[ "$(stat -c %y "$OUT/d/big")" = "$(stat -c %y "$SRC/d/big")" ]
	run python3 -c "import os; print(len(os.getxattr('$OUT/d/big', 'user.note')))"
	[ "$output" = 300 ]
	[ "$(readlink "$OUT/dangling")" = /nowhere/at/all ]
}

@test "mkfs --rootdir: inline up to 2048 bytes, holes not allocated, one inode per hard link" {
	make_tree
	run_volctl mkfs -s 256M -r "$SRC" "$IMG"
	assert_status 0
	run btrfs inspect-internal dump-tree -t 5 "$IMG"
	assert_status 0
	# 2048 bytes inline, 2049 in a data extent (the kernel's default max_inline)
	echo "$output" | grep -q "inline extent data size 2048"
	run bash -c "btrfs inspect-internal dump-tree -t 5 '$IMG' | grep -c 'inline extent data size 2049'"
	[ "$output" = 0 ]
	# the 3 MiB file with one sector of data: one 4 KiB extent, nbytes 4096
	run bash -c "btrfs inspect-internal dump-tree -t 5 '$IMG' | grep -A3 'size 3145728' | grep -o 'nbytes [0-9]*'"
	[ "$output" = "nbytes 4096" ]
	# d/small and d/e/hardlink: one inode with nlink 2
	run bash -c "btrfs inspect-internal dump-tree -t 5 '$IMG' | grep -c 'links 2 '"
	[ "$output" = 1 ]
}

@test "mkfs --rootdir --subvol: a directory of DIR becomes a subvolume with its content" {
	make_tree
	run_volctl mkfs -s 256M -r "$SRC" --subvol ro:/sub --subvol /sub2 "$IMG"
	assert_status 0
	check_clean
	run_volctl --image "$IMG" subvolume list /
	assert_status 0
	assert_output_contains "path sub"
	assert_output_contains "path sub2"
	run_volctl --image "$IMG" subvolume show /sub
	assert_status 0
	assert_output_contains "readonly"
	run btrfs restore -r 256 "$IMG" "$OUT"
	assert_status 0
	[ "$(cat "$OUT/inner/file")" = "in a subvolume" ]
}

@test "mkfs --rootdir --subvol default:PATH makes it the default subvolume" {
	make_tree
	run_volctl mkfs -s 256M -r "$SRC" --subvol default:sub "$IMG"
	assert_status 0
	run_volctl --image "$IMG" subvolume get-default /
	assert_status 0
	assert_output_contains "path sub"
}

@test "mkfs --rootdir --quota: exact numbers, volctl check agrees" {
	make_tree
	run_volctl mkfs -s 256M -r "$SRC" --quota --subvol sub "$IMG"
	assert_status 0
	run_volctl check "$IMG"
	assert_status 0
	run_volctl --image "$IMG" qgroup show --raw /
	assert_status 0
	assert_output_contains "0/256"
}

@test "mkfs --rootdir --owner and --uid-map set the owners written" {
	make_tree
	run_volctl mkfs -s 256M -r "$SRC" --owner 123:456 "$IMG"
	assert_status 0
	run bash -c "btrfs inspect-internal dump-tree -t 5 '$IMG' | grep -c 'uid 123 gid 456'"
	[ "$output" -ge 10 ]
	run bash -c "btrfs inspect-internal dump-tree -t 5 '$IMG' | grep -c 'uid 0 gid'"
	[ "$output" = 0 ]
	rm -f "$IMG"
	run_volctl mkfs -s 256M -r "$SRC" --uid-map "$(id -u):1000:1" --gid-map "$(id -g):2000:1" "$IMG"
	assert_status 0
	run bash -c "btrfs inspect-internal dump-tree -t 5 '$IMG' | grep -c 'uid 1000 gid 2000'"
	[ "$output" -ge 10 ]
}

@test "mkfs --rootdir: bad input refused, no file left, -f keeps the old filesystem" {
	make_tree
	run_volctl mkfs -s 256M -r "$BATS_TEST_TMPDIR/missing" "$IMG"
	assert_status 1
	assert_output_contains "missing: No such file or directory"
	[ ! -e "$IMG" ]
	run_volctl mkfs -s 256M -r "$SRC/d/small" "$IMG"
	assert_status 1
	assert_output_contains "not a directory"
	[ ! -e "$IMG" ]
	run_volctl mkfs -s 256M -r "$SRC" --subvol /d/small "$IMG"
	assert_status 1
	assert_output_contains "--subvol /d/small: not a directory"
	[ ! -e "$IMG" ]
	run_volctl mkfs -s 256M -r "$SRC" --subvol /nowhere/sub "$IMG"
	assert_status 1
	assert_output_contains "its parent is neither a directory"
	[ ! -e "$IMG" ]
	run_volctl mkfs -s 256M -r "$SRC" --subvol ../sub "$IMG"
	assert_status 2
	run_volctl mkfs -s 256M --owner 0:0 "$IMG"
	assert_status 2
	assert_output_contains "need --rootdir"
	run_volctl mkfs -s 256M -r "$SRC" --uid-map 1:2 "$IMG"
	assert_status 2
	assert_output_contains "FROM:TO:COUNT"
	# an image there already: the refusal comes before it is touched
	run_volctl mkfs -s 256M "$IMG"
	assert_status 0
	sum=$(sha256sum <"$IMG")
	run_volctl mkfs -f -r "$SRC" --subvol /d/small "$IMG"
	assert_status 1
	[ "$(sha256sum <"$IMG")" = "$sum" ]
}

@test "mkfs --rootdir: a tree larger than -s is refused before anything is written" {
	head -c $((200 << 20)) /dev/zero >"$SRC/zeros"
	run_volctl mkfs -s 128M -r "$SRC" "$IMG"
	assert_status 1
	assert_output_contains "too small"
	[ ! -e "$IMG" ]
}

@test "mkfs --rootdir: an unreadable file is named (not as root)" {
	[ "$(id -u)" -ne 0 ] || skip "root reads every file"
	make_tree
	printf 'secret' >"$SRC/d/locked"
	chmod 000 "$SRC/d/locked"
	run_volctl mkfs -s 256M -r "$SRC" "$IMG"
	assert_status 1
	assert_output_contains "d/locked: Permission denied"
	[ ! -e "$IMG" ]
}

@test "mkfs --rootdir --snapshot: the snapper layout in one command, extents shared" {
	mkdir -p "$SRC/@/etc" "$SRC/@/usr"
	printf 'conf' >"$SRC/@/etc/c"
	head -c 500000 /dev/urandom >"$SRC/@/usr/bin"
	run_volctl mkfs -s 256M -r "$SRC" --quota --subvol @ --subvol @/.snapshots \
		--snapshot @:@/.snapshots/1/snapshot --snapshot @:@/factory:ro \
		--default-subvol @/.snapshots/1/snapshot "$IMG"
	assert_status 0
	check_clean
	run_volctl --image "$IMG" subvolume get-default /
	assert_output_contains "path @/.snapshots/1/snapshot"
	run_volctl --image "$IMG" subvolume show /@/factory
	assert_output_contains "readonly"
	# the data extent is shared: referenced by @ and both snapshots, one copy on disk
	run bash -c "btrfs inspect-internal dump-tree -t 2 '$IMG' | grep -c 'EXTENT_ITEM 503808'"
	[ "$output" = 1 ]
	run btrfs restore -r 258 "$IMG" "$OUT"
	assert_status 0
	cmp "$SRC/@/usr/bin" "$OUT/usr/bin"
	run_volctl mkfs -s 256M -r "$SRC" --snapshot /nope:/x "$BATS_TEST_TMPDIR/other.img"
	assert_status 2
	assert_output_contains "the source is not the top level, a --subvol or an earlier snapshot"
	[ ! -e "$BATS_TEST_TMPDIR/other.img" ]
}

@test "mkfs --rootdir: SOURCE_DATE_EPOCH and -U give identical images from trees made differently" {
	local u=0b9a7c2e-1234-4f00-8000-00000000abcd
	mkdir -p "$SRC/a" "$SRC/b" "$BATS_TEST_TMPDIR/src2/b" "$BATS_TEST_TMPDIR/src2/a"
	printf 1 >"$SRC/a/x"; head -c 100000 /dev/zero >"$SRC/a/z"; printf 2 >"$SRC/b/y"
	python3 -c "import os; os.setxattr('$SRC/a/x', 'user.b', b'2'); os.setxattr('$SRC/a/x', 'user.a', b'1')"
	sleep 1
	# the other copy: another order, other times, xattrs set the other way round
	printf 2 >"$BATS_TEST_TMPDIR/src2/b/y"; printf 1 >"$BATS_TEST_TMPDIR/src2/a/x"
	head -c 100000 /dev/zero >"$BATS_TEST_TMPDIR/src2/a/z"
	python3 -c "import os; os.setxattr('$BATS_TEST_TMPDIR/src2/a/x', 'user.a', b'1'); os.setxattr('$BATS_TEST_TMPDIR/src2/a/x', 'user.b', b'2')"
	SOURCE_DATE_EPOCH=1700000000 run_volctl mkfs -s 256M -U $u -r "$SRC" --quota \
		--subvol a --snapshot a:/snap "$IMG"
	assert_status 0
	# one CPU for the second run (taskset, where there is one)
	local one=
	command -v taskset >/dev/null && one="taskset -c 0"
	SOURCE_DATE_EPOCH=1700000000 run $one "$VOLCTL" mkfs -s 256M -U $u -r "$BATS_TEST_TMPDIR/src2" \
		--quota --subvol a --snapshot a:/snap "$BATS_TEST_TMPDIR/2.img"
	assert_status 0
	cmp "$IMG" "$BATS_TEST_TMPDIR/2.img"
	# without SOURCE_DATE_EPOCH they differ (times, subvolume UUIDs)
	rm "$BATS_TEST_TMPDIR/2.img"
	run_volctl mkfs -s 256M -U $u -r "$BATS_TEST_TMPDIR/src2" --quota --subvol a \
		--snapshot a:/snap "$BATS_TEST_TMPDIR/2.img"
	assert_status 0
	run cmp -s "$IMG" "$BATS_TEST_TMPDIR/2.img"
	assert_status 1
	SOURCE_DATE_EPOCH=soon run_volctl mkfs -s 256M -r "$SRC" "$BATS_TEST_TMPDIR/3.img"
	assert_status 2
	assert_output_contains "invalid SOURCE_DATE_EPOCH"
}

@test "mkfs --rootdir: the read-ahead threads change no byte (0, 1, 4, 16 readers, small windows)" {
	if VOLCTL_FAIL_AFTER_WRITES=1 "$VOLCTL" mkfs -s 128M "$BATS_TEST_TMPDIR/probe.img" 2>/dev/null; then
		skip "built without --enable-fault-injection"
	fi
	local u=0b9a7c2e-1234-4f00-8000-00000000abce i
	# many small files, a few large ones, holes, hard links, a subvolume
	mkdir -p "$SRC/sub/d" "$SRC/many"
	for i in $(seq 1 400); do
		head -c $((i * 37 % 9000)) /dev/urandom >"$SRC/many/f$i"
	done
	for i in 1 2 3; do
		head -c $((i * 1500000 + 4097)) /dev/urandom >"$SRC/sub/d/large$i"
	done
	truncate -s 5M "$SRC/sub/holes"
	head -c 300000 /dev/urandom | dd of="$SRC/sub/holes" bs=4096 seek=300 conv=notrunc status=none
	ln "$SRC/many/f7" "$SRC/sub/link7"
	local args=(-s 256M -U $u -r "$SRC" --subvol sub)
	SOURCE_DATE_EPOCH=1700000000 VOLCTL_TEST_READERS=0 VOLCTL_TEST_COMMIT_BYTES=200000 \
		run_volctl mkfs "${args[@]}" "$IMG"
	assert_status 0
	check_clean
	# readers, window in bytes (0: 64 MiB), cached files before they stop (0: never; the
	# tree is in the cache, so the default, 256, stops them early)
	for knobs in "1 0 0" "4 0 0" "16 0 0" "4 65536 0" "16 5000 0" "4 1 0" "4 0 256"; do
		set -- $knobs
		rm -f "$BATS_TEST_TMPDIR/2.img"
		SOURCE_DATE_EPOCH=1700000000 VOLCTL_TEST_READERS=$1 VOLCTL_TEST_READ_WINDOW=$2 \
			VOLCTL_TEST_READ_WARM=$3 VOLCTL_TEST_COMMIT_BYTES=200000 \
			run_volctl mkfs "${args[@]}" "$BATS_TEST_TMPDIR/2.img"
		assert_status 0
		cmp "$IMG" "$BATS_TEST_TMPDIR/2.img"
	done
	# the measuring run (--shrink) and --compress read through the readers too
	rm -f "$IMG" "$BATS_TEST_TMPDIR/2.img"
	SOURCE_DATE_EPOCH=1700000000 VOLCTL_TEST_READERS=0 run_volctl mkfs "${args[@]}" --shrink \
		--compress zstd "$IMG"
	assert_status 0
	SOURCE_DATE_EPOCH=1700000000 VOLCTL_TEST_READERS=4 VOLCTL_TEST_READ_WINDOW=100000 \
		VOLCTL_TEST_READ_WARM=0 run_volctl mkfs "${args[@]}" --shrink --compress zstd \
		"$BATS_TEST_TMPDIR/2.img"
	assert_status 0
	cmp "$IMG" "$BATS_TEST_TMPDIR/2.img"
	# a file written while it is copied still fails the mkfs with the readers on
	rm -f "$BATS_TEST_TMPDIR/2.img"
	VOLCTL_TEST_READERS=16 VOLCTL_TEST_READ_WARM=0 VOLCTL_TEST_CHANGE_FILE=large2 \
		run_volctl mkfs "${args[@]}" "$BATS_TEST_TMPDIR/2.img"
	assert_status 1
	assert_output_contains "$SRC/sub/d/large2: changed while it was copied"
	[ ! -e "$BATS_TEST_TMPDIR/2.img" ]
}

@test "mkfs --rootdir --shrink: the smallest image, data chunks full, the same from a 256 MiB or a 100 GiB target" {
	local u=0b9a7c2e-1234-4f00-8000-00000000abcd size used meta data
	make_tree
	head -c $((20 << 20)) /dev/urandom >"$SRC/d/twenty"
	for i in $(seq 1 50); do head -c $((i * 1000)) /dev/urandom >"$SRC/d/f$i"; done
	# reading a symlink sets its atime (relatime: when older than a day or than
	# its mtime): give the links a fresh atime past their mtime so it stays
	touch -h "$SRC/dangling" "$SRC/d/e/rel-link"
	touch -h -m -d '1999-12-31 23:59:59' "$SRC/dangling" "$SRC/d/e/rel-link"
	SOURCE_DATE_EPOCH=1700000000 run_volctl mkfs -s 256M -U $u -r "$SRC" --shrink "$IMG"
	assert_status 0
	check_clean
	size=$(stat -c %s "$IMG")
	run btrfs inspect-internal dump-super "$IMG"
	used=$(echo "$output" | awk '$1 == "bytes_used" {print $2}')
	[ "$(echo "$output" | awk '$1 == "total_bytes" {print $2}')" = "$size" ]
	# every DATA block group full, the metadata within 1 MiB + 1/32 of what it holds
	run bash -c "btrfs inspect-internal dump-tree -t 2 '$IMG' | grep -A1 'BLOCK_GROUP_ITEM' | grep -B1 'flags DATA' | grep -o 'BLOCK_GROUP_ITEM [0-9]*\|used [0-9]*' | awk '{print \$2}' | paste - -"
	while read -r len bused; do
		[ $((len - bused)) -lt $((1 << 20)) ] || { echo "data chunk $len holds only $bused" >&2; false; }
	done <<<"$output"
	# the image: 1 MiB before the first chunk, system 2 x 4 MiB, a 1 MiB window at 64 MiB,
	# data, metadata twice (DUP) with its slack: nothing else
	run bash -c "btrfs inspect-internal dump-tree -t 2 '$IMG' | grep -A1 BLOCK_GROUP_ITEM | grep -B1 METADATA | grep -o 'used [0-9]*' | awk '{print \$2}'"
	meta=$output
	data=$((used - meta - 16384))
	[ "$size" -le $((1048576 + 8388608 + 1048576 + data + 1048576 + 2 * (meta + meta / 32 + 2097152))) ]
	truncate -s 100G "$BATS_TEST_TMPDIR/big.img"
	SOURCE_DATE_EPOCH=1700000000 run_volctl mkfs -U $u -r "$SRC" --shrink "$BATS_TEST_TMPDIR/big.img"
	assert_status 0
	cmp "$IMG" "$BATS_TEST_TMPDIR/big.img"
	run_volctl mkfs -s 256M --shrink "$BATS_TEST_TMPDIR/x.img"
	assert_status 2
	assert_output_contains "need --rootdir"
}

@test "mkfs --rootdir --shrink -m single: one metadata copy, smaller than DUP by it, check clean, reproducible" {
	local u=0b9a7c2e-1234-4f00-8000-00000000abcd dup single meta
	make_tree
	for i in $(seq 1 400); do head -c $((i * 100)) /dev/urandom >"$SRC/d/g$i"; done
	SOURCE_DATE_EPOCH=1700000000 run_volctl mkfs -s 256M -U $u -r "$SRC" --shrink "$BATS_TEST_TMPDIR/dup.img"
	assert_status 0
	SOURCE_DATE_EPOCH=1700000000 run_volctl mkfs -s 256M -U $u -m single --quota -r "$SRC" --shrink "$IMG"
	assert_status 0
	check_clean
	run btrfs check --readonly --qgroup-report "$IMG"
	[[ "$output" != *"are different"* ]]
	run btrfs inspect-internal dump-tree -t 3 "$IMG"
	assert_output_contains "type METADATA|single"
	[[ "$output" != *"DUP"* ]]
	rm -f "$IMG"
	SOURCE_DATE_EPOCH=1700000000 run_volctl mkfs -s 256M -U $u -m single -r "$SRC" --shrink "$IMG"
	assert_status 0
	check_clean
	cp "$IMG" "$BATS_TEST_TMPDIR/1.img"
	rm -f "$IMG"
	SOURCE_DATE_EPOCH=1700000000 run_volctl mkfs -s 256M -U $u -m single -r "$SRC" --shrink "$IMG"
	assert_status 0
	cmp "$BATS_TEST_TMPDIR/1.img" "$IMG"
	# the DUP image has the metadata chunk and the system chunk twice, nothing else more
	dup=$(stat -c %s "$BATS_TEST_TMPDIR/dup.img")
	single=$(stat -c %s "$IMG")
	run bash -c "btrfs inspect-internal dump-tree -t 3 '$IMG' | grep -B1 'type METADATA' | grep -o 'length [0-9]*' | awk '{print \$2}'"
	meta=$output
	[ $((dup - single)) -eq $((meta + 4 * 1048576)) ]
	run_volctl --image "$IMG" subvolume create /new
	assert_status 0
	check_clean
}

@test "mkfs --rootdir --qgroup --limit: a hierarchy and limits; a limit below the content refused first" {
	mkdir -p "$SRC/home/a" "$SRC/home/b" "$SRC/var"
	head -c 3000000 /dev/urandom >"$SRC/home/a/f"
	head -c 2000000 /dev/urandom >"$SRC/home/b/f"
	run_volctl mkfs -s 256M -r "$SRC" --quota --subvol /home/a --subvol /home/b --subvol var \
		--qgroup 1/0:/home/a,/home/b --limit 10M:1/0 --limit 3M:e:/home/b "$IMG"
	assert_status 0
	run_volctl check "$IMG"
	assert_status 0
	run_volctl --image "$IMG" qgroup show -pcre --raw /
	assert_status 0
	echo "$output" | grep -E '^1/0 +5038080 +5038080 +10485760 +none +- +0/256,0/257'
	echo "$output" | grep -E '^0/257 +2019328 +2019328 +none +3145728 +1/0 '
	sum=$(sha256sum <"$IMG")
	run_volctl mkfs -f -r "$SRC" --quota --subvol /home/a --subvol /home/b \
		--qgroup 1/0:/home/a,/home/b --limit 4M:1/0 "$IMG"
	assert_status 1
	assert_output_contains "--limit 4M:1/0: qgroup 1/0 holds 5038080 referenced bytes, 843776 over the limit of 4194304"
	[ "$(sha256sum <"$IMG")" = "$sum" ]
	run_volctl mkfs -s 256M -r "$SRC" --quota --subvol /home/b --limit 1M:e:home/b \
		"$BATS_TEST_TMPDIR/n.img"
	assert_status 1
	assert_output_contains "qgroup 0/256 holds 2019328 exclusive bytes, 970752 over the limit"
	[ ! -e "$BATS_TEST_TMPDIR/n.img" ]
	run_volctl mkfs -s 256M -r "$SRC" --limit 1M:/home "$BATS_TEST_TMPDIR/n.img"
	assert_status 2
	assert_output_contains "need --quota or --simple-quota"
	run_volctl mkfs -s 256M -r "$SRC" --quota --qgroup 0/7:/home "$BATS_TEST_TMPDIR/n.img"
	assert_status 2
	assert_output_contains "LEVEL above 0"
}

@test "mkfs --rootdir: a file written while it is copied fails the mkfs, naming it; nothing left" {
	if VOLCTL_FAIL_AFTER_WRITES=1 "$VOLCTL" mkfs -s 128M "$BATS_TEST_TMPDIR/probe.img" 2>/dev/null; then
		skip "built without --enable-fault-injection"
	fi
	make_tree
	VOLCTL_TEST_CHANGE_FILE=big run_volctl mkfs -s 256M -r "$SRC" "$IMG"
	assert_status 1
	assert_output_contains "$SRC/d/big: changed while it was copied"
	[ ! -e "$IMG" ]
	# the same tree, left alone, copies
	run_volctl mkfs -s 256M -r "$SRC" "$IMG"
	assert_status 0
}

@test "mkfs --rootdir --inode-flags: nodatacow and nodatasum on a path and below it, no checksums there" {
	mkdir -p "$SRC/vm/images" "$SRC/other"
	head -c 1000000 /dev/urandom >"$SRC/vm/images/disk"
	head -c 1000000 /dev/urandom >"$SRC/other/f"
	head -c 1000000 /dev/urandom >"$SRC/log"
	run_volctl mkfs -s 256M -r "$SRC" --inode-flags nodatacow:/vm --inode-flags nodatasum:log "$IMG"
	assert_status 0
	check_clean
	run btrfs check --readonly "$IMG"
	# only other/f is checksummed: 245 sectors of 4 bytes
	assert_output_contains "total csum bytes: 980"
	run btrfs inspect-internal dump-tree -t 5 "$IMG"
	[ "$(echo "$output" | grep -c 'flags 0x3(NODATASUM|NODATACOW)')" = 3 ]
	[ "$(echo "$output" | grep -c 'flags 0x1(NODATASUM)')" = 1 ]
	run btrfs restore "$IMG" "$OUT"
	assert_status 0
	cmp "$SRC/vm/images/disk" "$OUT/vm/images/disk"
	run_volctl mkfs -s 256M -r "$SRC" --inode-flags compress:/vm "$BATS_TEST_TMPDIR/x.img"
	assert_status 2
	assert_output_contains "want nodatacow,nodatasum:PATH"
	run_volctl mkfs -s 256M -r "$SRC" --inode-flags nodatacow:/nope "$BATS_TEST_TMPDIR/x.img"
	assert_status 1
	assert_output_contains "--inode-flags /nope: no such file or directory"
	[ ! -e "$BATS_TEST_TMPDIR/x.img" ]
}

@test "mkfs --rootdir: a 10 MB file with 100 hard links fits 128 MiB, and --shrink counts it once (btrfs-progs#1141)" {
	head -c 10000000 /dev/urandom >"$SRC/file"
	for i in $(seq 1 100); do ln "$SRC/file" "$SRC/link$i"; done
	run_volctl mkfs -s 128M -r "$SRC" "$IMG"
	assert_status 0
	check_clean
	rm "$IMG"
	run_volctl mkfs -s 128M -r "$SRC" --shrink "$IMG"
	assert_status 0
	check_clean
	# one copy of the data, 10 MB, and the fixed overhead: well under 2 copies
	[ "$(stat -c %s "$IMG")" -lt $((10000000 + 16 << 20)) ]
	run btrfs inspect-internal dump-tree -t 5 "$IMG"
	assert_output_contains "links 101"
}

@test "mkfs -f --rootdir that fails after the base is written leaves no filesystem that looks whole" {
	if VOLCTL_FAIL_AFTER_WRITES=1 "$VOLCTL" mkfs -s 128M "$BATS_TEST_TMPDIR/probe.img" 2>/dev/null; then
		skip "built without --enable-fault-injection"
	fi
	make_tree
	run_volctl mkfs -s 256M "$IMG"
	assert_status 0
	VOLCTL_TEST_CHANGE_FILE=big run_volctl mkfs -f -r "$SRC" "$IMG"
	assert_status 1
	assert_output_contains "changed while it was copied"
	[ "$(stat -c %s "$IMG")" = $((256 << 20)) ]
	run btrfs inspect-internal dump-super "$IMG"
	assert_output_contains "bad magic on superblock"
	run btrfs inspect-internal dump-super -s 1 "$IMG"
	assert_output_contains "bad magic on superblock"
	run_volctl --image "$IMG" subvolume list /
	assert_status 1
}

@test "mkfs --rootdir: a tree written in many commits (test builds: small commits) is the same tree" {
	if VOLCTL_FAIL_AFTER_WRITES=1 "$VOLCTL" mkfs -s 128M "$BATS_TEST_TMPDIR/probe.img" 2>/dev/null; then
		skip "built without --enable-fault-injection"
	fi
	make_tree
	for i in $(seq 1 300); do printf "file $i" >"$SRC/sub/inner/f$i"; done
	VOLCTL_TEST_COMMIT_BYTES=100000 run_volctl mkfs -s 256M -r "$SRC" --quota --subvol sub "$IMG"
	assert_status 0
	check_clean
	run btrfs inspect-internal dump-super "$IMG"
	gen=$(echo "$output" | awk '$1 == "generation" {print $2}')
	[ "$gen" -gt 5 ]
	run_volctl check "$IMG"
	assert_status 0
	run btrfs restore -r 256 "$IMG" "$OUT"
	assert_status 0
	[ "$(cat "$OUT/inner/f300")" = "file 300" ]
}

@test "mkfs: systemd-repart's mkfs.btrfs call works unchanged (-q -L -U IMG --nodiscard -r --subvol --shrink)" {
	make_tree
	truncate -s 256M "$IMG"
	run_volctl mkfs -q -L root-x86-64 -U 0b9a7c2e-1234-4f00-8000-00000000abcd "$IMG" --nodiscard \
		-r "$SRC" --subvol rw:sub --shrink
	assert_status 0
	[ -z "$output" ]
	check_clean
	run btrfs inspect-internal dump-super "$IMG"
	assert_output_contains "label			root-x86-64"
	assert_output_contains "fsid			0b9a7c2e-1234-4f00-8000-00000000abcd"
	run_volctl --image "$IMG" subvolume list /
	assert_output_contains "path sub"
}

# A tree for --compress: text that shrinks, random bytes that do not, small
# files on both sides of the inline limits, a hole
make_compress_tree() {
	mkdir -p "$SRC/c"
	seq 1 200000 >"$SRC/c/text"				# 1.2 MB: ten 128 KiB chunks
	head -c 300000 /dev/urandom >"$SRC/c/random"
	yes 'a line of text' | head -c 3000 >"$SRC/c/small-text"	# inline compressed
	head -c 3000 /dev/urandom >"$SRC/c/small-random"	# > 2048, does not shrink: an extent
	head -c 100 /dev/urandom >"$SRC/c/tiny-random"		# inline plain
	{ head -c 262144 /dev/urandom; seq 1 100000; } >"$SRC/c/mixed"
	yes 'one more line' | head -c 131172 >"$SRC/c/u-tail"	# 128 KiB + 100 bytes
	truncate -s 2M "$SRC/c/holes"
	seq 1 30000 | dd of="$SRC/c/holes" bs=4096 seek=100 conv=notrunc status=none
}

# "TYPE COMPRESSION" of each EXTENT_DATA item of inode $2 in tree dump $1
extents_of() {
	awk -v ino="$2" '
		$3 == "key" && $4 == "(" ino { on = ($5 == "EXTENT_DATA"); next }
		on && /type 0 \(inline\)/ { t = "inline" }
		on && /type 1 \(regular\)/ { t = "regular" }
		on && /inline extent data size/ { print "inline", $NF; on = 0 }
		on && /extent compression/ { print t, $NF; on = 0 }' "$1"
}

@test "mkfs --rootdir --compress zstd|lzo|zlib: restore and check agree, text compressed, random plain" {
	make_compress_tree
	for alg in zstd lzo zlib zstd:15 zlib:1; do
		rm -rf "$IMG" "$OUT"
		mkdir -p "$OUT"
		run_volctl mkfs -s 256M --rootdir "$SRC" --compress "$alg" "$IMG"
		assert_status 0
		check_clean
		run btrfs restore "$IMG" "$OUT"
		assert_status 0
		run diff -r "$SRC" "$OUT"
		[ "$status" -eq 0 ] || { echo "$alg: $output" >&2; false; }
		btrfs inspect-internal dump-tree -t 5 "$IMG" >"$BATS_TEST_TMPDIR/dump"
		name=${alg%%:*}
		# inode numbers in name order from 257: c, then holes 258, mixed,
		# random, small-random, small-text, text, tiny-random, u-tail 265
		got=$(extents_of "$BATS_TEST_TMPDIR/dump" 263 | sort | uniq -c | tr -s ' ')
		[ "$got" = " 10 regular ($name)" ] || { echo "$alg text: $got" >&2; false; }
		# random: plain chunks next to each other share one extent
		got=$(extents_of "$BATS_TEST_TMPDIR/dump" 260)
		[ "$got" = "regular (none)" ] || { echo "$alg random: $got" >&2; false; }
		got=$(extents_of "$BATS_TEST_TMPDIR/dump" 262)
		[ "$got" = "inline ($name)" ] || { echo "$alg small-text: $got" >&2; false; }
		got=$(extents_of "$BATS_TEST_TMPDIR/dump" 261)
		[ "$got" = "regular (none)" ] || { echo "$alg small-random: $got" >&2; false; }
		got=$(extents_of "$BATS_TEST_TMPDIR/dump" 264)
		[ "$got" = "inline (none)" ] || { echo "$alg tiny-random: $got" >&2; false; }
		# mixed: two chunks of random bytes in one plain extent, the text
		# after them compressed
		got=$(extents_of "$BATS_TEST_TMPDIR/dump" 259 | tr '\n' ' ')
		c="regular ($name)"
		[ "$got" = "regular (none) $c $c $c $c $c " ] ||
			{ echo "$alg mixed: $got" >&2; false; }
		# a last chunk of one sector cannot free one: plain
		got=$(extents_of "$BATS_TEST_TMPDIR/dump" 265 | tr '\n' ' ')
		[ "$got" = "$c regular (none) " ] || { echo "$alg u-tail: $got" >&2; false; }
		grep -A3 "key (259 EXTENT_DATA 0)" "$BATS_TEST_TMPDIR/dump" |
			grep -q "extent data offset 0 nr 262144 ram 262144"
		# the hole stays a hole: one compressed extent at 400 KiB
		run grep -c "key (258 EXTENT_DATA 409600)" "$BATS_TEST_TMPDIR/dump"
		assert_output_contains 1
		# lzo and zstd set their incompat bit, zlib none
		run btrfs inspect-internal dump-super "$IMG"
		case $name in
		zstd) assert_output_contains COMPRESS_ZSTD ;;
		lzo) assert_output_contains COMPRESS_LZO ;;
		zlib) [[ "$output" != *COMPRESS_* ]] ;;
		esac
	done
}

@test "mkfs --rootdir --compress: disk bytes are the compressed ones, ram bytes the chunk" {
	seq 1 200000 >"$SRC/text"
	run_volctl mkfs -s 256M --rootdir "$SRC" --compress zstd "$IMG"
	assert_status 0
	run btrfs inspect-internal dump-tree -t 5 "$IMG"
	assert_status 0
	# every chunk 128 KiB of the file (the last one its rest, sector aligned), a few sectors on disk
	chunks=$(echo "$output" | grep -c "extent data offset 0 nr 131072 ram 131072")
	[ "$chunks" -eq 9 ]
	echo "$output" | grep -q "extent data offset 0 nr 110592 ram 110592"
	big=$(echo "$output" | awk '/extent data disk byte/ && $NF > 65536' | wc -l)
	[ "$big" -eq 0 ]
	# nbytes: the uncompressed bytes of the extents
	echo "$output" | grep -q "size 1288895 nbytes 1290240"
}

@test "mkfs --compress: levels checked, needs --rootdir, bad names refused before anything is written" {
	mkdir -p "$SRC/x"
	for bad in zstd:0 zstd:16 zlib:10 zlib: lzo:1 lz4 zstd:x; do
		run_volctl mkfs -s 256M -r "$SRC" --compress "$bad" "$IMG"
		assert_status 2
		assert_output_contains "invalid --compress '$bad'"
		[ ! -e "$IMG" ]
	done
	run_volctl mkfs -s 256M --compress zstd "$IMG"
	assert_status 2
	assert_output_contains "--compress needs --rootdir"
	[ ! -e "$IMG" ]
}

@test "mkfs --rootdir --compress: files of one sector that go inline compressed are planned as metadata, no data chunk for them" {
	python3 -c "
import sys
for i in range(8000):
    open('$SRC/f%05d' % i, 'w').write(('file %05d ' % i) * 360)
"
	run_volctl mkfs -s 256M --rootdir "$SRC" --compress zstd "$IMG"
	assert_status 0
	assert_output_contains "0 bytes of data"
	check_clean
	# 8000 files of 3960 bytes would want 32 MiB of data chunks: none reserved for them
	data=$(btrfs inspect-internal dump-tree -t chunk "$IMG" |
		awk '/CHUNK_ITEM/ { getline; if ($0 ~ /type DATA/) s += $2 } END { print s + 0 }')
	[ "$data" -lt $((32 << 20)) ] || { echo "data chunks: $data" >&2; false; }
}

@test "mkfs --rootdir --compress --inode-flags: nodatasum and nodatacow files are never compressed" {
	mkdir -p "$SRC/sum" "$SRC/nosum" "$SRC/nocow"
	for d in sum nosum nocow; do
		seq 1 100000 >"$SRC/$d/text"
		yes 'small text' | head -c 3000 >"$SRC/$d/small"
	done
	run_volctl mkfs -s 256M -r "$SRC" --compress zstd --inode-flags nodatasum:/nosum \
		--inode-flags nodatacow:/nocow "$IMG"
	assert_status 0
	check_clean
	run btrfs restore "$IMG" "$OUT"
	assert_status 0
	run diff -r "$SRC" "$OUT"
	[ "$status" -eq 0 ] || { echo "$output" >&2; false; }
	btrfs inspect-internal dump-tree -t 5 "$IMG" >"$BATS_TEST_TMPDIR/dump"
	# inodes: nocow 257 (small 258, text 259), nosum 260 (261, 262), sum 263 (264, 265)
	[ "$(extents_of "$BATS_TEST_TMPDIR/dump" 259 | sort -u)" = "regular (none)" ]
	[ "$(extents_of "$BATS_TEST_TMPDIR/dump" 258)" = "regular (none)" ]
	[ "$(extents_of "$BATS_TEST_TMPDIR/dump" 262 | sort -u)" = "regular (none)" ]
	[ "$(extents_of "$BATS_TEST_TMPDIR/dump" 261)" = "regular (none)" ]
	[ "$(extents_of "$BATS_TEST_TMPDIR/dump" 265 | sort -u)" = "regular (zstd)" ]
	[ "$(extents_of "$BATS_TEST_TMPDIR/dump" 264)" = "inline (zstd)" ]
}

@test "mkfs --rootdir --compress --shrink: the measuring run compresses too, the image holds the compressed tree" {
	make_compress_tree
	run_volctl mkfs -s 256M -r "$SRC" --shrink "$IMG"
	assert_status 0
	plain=$(stat -c %s "$IMG")
	rm "$IMG"
	run_volctl mkfs -s 256M -r "$SRC" --shrink --compress zstd "$IMG"
	assert_status 0
	check_clean
	run btrfs restore "$IMG" "$OUT"
	assert_status 0
	run diff -r "$SRC" "$OUT"
	[ "$status" -eq 0 ] || { echo "$output" >&2; false; }
	# the text files (2.6 MB) shrink to a few hundred KiB
	small=$(stat -c %s "$IMG")
	[ "$small" -lt "$plain" ] || { echo "compressed $small, plain $plain" >&2; false; }
}

@test "mkfs --rootdir --compress: SOURCE_DATE_EPOCH and -U give identical compressed images" {
	make_compress_tree
	for alg in zstd lzo zlib; do
		for n in 1 2; do
			SOURCE_DATE_EPOCH=1700000000 run_volctl mkfs -s 256M -U 0b7c2f1e-5d3a-4c2b-9e8f-1a2b3c4d5e6f \
				-r "$SRC" --compress "$alg" "$IMG.$n"
			assert_status 0
		done
		cmp "$IMG.1" "$IMG.2"
		rm "$IMG.1" "$IMG.2"
	done
}

@test "mkfs --rootdir: near the target's size a measuring run decides, before anything is written" {
	# 3000 files of 2000 bytes: inline, metadata is most of it; 20000 do not fit
	mkdir -p "$SRC/d"
	python3 -c "
import os
for i in range(3000):
    open('$SRC/d/f%05d' % i, 'wb').write(os.urandom(2000))
"
	run_volctl mkfs -s 128M -r "$SRC" "$IMG"
	assert_status 0
	check_clean
	rm "$IMG"
	for i in $(seq 3000 19999); do printf '%02000d' "$i" >"$SRC/d/f$i"; done
	run_volctl mkfs -s 128M -r "$SRC" "$IMG"
	assert_status 1
	assert_output_contains "device too small: 134217728 bytes, this layout needs"
	[ ! -e "$IMG" ]
}
