#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The mkfs --rootdir oracle (tests/rootdir/): a seeded random tree, put in an
# image by the tool under test, checked, mounted and compared inode by inode
# with a manifest taken before, scrubbed, used (files, a snapshot, a
# balance), checked again, and sent/received and compared again.
# It must find what is known to be wrong: Debian's mkfs.btrfs 6.2 turns
# device nodes into 0:0, drops the nanoseconds and fills holes; it must call
# the root way (mkfs, mount, cp -a) equal but for ctime and zero blocks cp
# turns into holes; and volctl mkfs --rootdir must pass on small seeds.
# `make soak-rootdir SEEDS=N` runs many seeds.

load ../helpers

ORACLE="$BATS_TEST_DIRNAME/../rootdir"

setup() {
	require_root_loop
	command -v python3 >/dev/null || skip "needs python3"
	WORK="$BATS_TEST_TMPDIR/oracle"
}

# run_seed ARGS...: run-seed.sh, its work dir kept under $WORK
run_seed() {
	run "$ORACLE/run-seed.sh" --keep --workdir "$WORK" "$@"
	echo "$output"
}

# the differences run-seed.sh left in the kept work dir
diffs() {
	cat "$WORK"/seed*/treecmp.txt
}

@test "rootdir-oracle: mkfs.btrfs 6.2 loses device numbers, nanoseconds and holes (seed 3)" {
	# 6.2 cannot take a 4095-byte symlink (next test): the same tree with 4094
	run_seed --gentree '--symlink-max 4094' --tool 'mkfs.btrfs -q --rootdir {DIR} {IMG}' 3
	assert_status 1
	assert_output_contains "check: ok"
	assert_output_contains "FAILED at treecmp"
	# mknod c 1 3 reads back as 0:0
	diffs | grep -E ': rdev: source 1:3, image 0:0$'
	diffs | grep -E ': rdev: source 8:1, image 0:0$'
	# times keep their seconds, lose the nanoseconds (not on the top
	# directory, which 6.2 does not copy at all)
	diffs | grep -vE '^\.: ' | grep -E ': mtime: source -?[0-9]+\.[0-9]*[1-9][0-9]*, image -?[0-9]+\.000000000$'
	diffs | grep -vE '^\.: ' | grep -E ': atime: source -?[0-9]+\.[0-9]*[1-9][0-9]*, image -?[0-9]+\.000000000$'
	# a file with a hole at the start reads back fully allocated
	diffs | grep -E ': data: source \[\[[1-9][0-9]*, [0-9]+\]\], image \[\[0, [0-9]+\]\]$'
	# the top directory's mode, owner and times are not copied
	diffs | grep -E '^\.: mode: '
	# the content of every file and every hard link is right
	[ "$(diffs | grep -cE ': (content|links|nlink|size|type|path): ')" -eq 0 ]
}

@test "rootdir-oracle: mkfs.btrfs 6.2 writes a 4095-byte symlink that check calls corrupt, never mounted" {
	run_seed --tool 'mkfs.btrfs -q --rootdir {DIR} {IMG}' 3
	assert_status 1
	assert_output_contains "inline file extent too large"
	assert_output_contains "FAILED at check"
	[[ "$output" != *"treecmp"* ]]
}

@test "rootdir-oracle: with quotas the kernel's rescan is compared with the image's numbers (mkfs.btrfs -R quota)" {
	run_seed --gentree '--symlink-max 4094' --tool 'mkfs.btrfs -q -R quota --rootdir {DIR} {IMG}' 4
	assert_output_contains "quota: 1 groups equal the kernel's rescan"
	# the numbers were read from the image before any rw mount
	grep -E '^0/5 +[0-9]+ +[0-9]+' "$WORK"/seed*/qgroup-image.txt
}

@test "rootdir-oracle: the root way (mkfs, mount, cp -a) is equal but for ctime and zeros made holes" {
	run_seed --treecmp '--skip ctime --allow-zero-holes' --tool "$ORACLE/rootway.sh {DIR} {IMG}" 2
	assert_status 0
	assert_output_contains "treecmp: 111 inodes equal"
	assert_output_contains "send: 111 inodes equal"
	assert_output_contains "all stages passed"
}

@test "rootdir-oracle: the root way without the allowances: ctime and the zero blocks show" {
	run_seed --tool "$ORACLE/rootway.sh {DIR} {IMG}" 2
	assert_status 1
	diffs | grep -E '^\.: ctime: '
	diffs | grep -E ': data: '
	[ "$(diffs | grep -vE '^treecmp:' | grep -vcE ': (ctime|data): ')" -eq 0 ]
}

@test "rootdir-oracle: volctl mkfs --rootdir equals the kernel on seeds 1-3 (small)" {
	run "$ORACLE/soak.sh" --workdir "$WORK" --size 0 \
		--tool "$VOLCTL mkfs --rootdir {DIR} -s {SIZE} {IMG}" 1 3
	echo "$output"
	assert_status 0
	assert_output_contains "soak-rootdir: 3 seeds, 3 passed, 0 failed"
}

@test "rootdir-oracle: --uid-map/--gid-map map owners and the ids in POSIX ACLs, as a user namespace (seed 7)" {
	local maps="--uid-map 0:100000:65536 --gid-map 0:200000:65536"
	run_seed --size 0 --tool "$VOLCTL mkfs $maps --rootdir {DIR} -s {SIZE} {IMG}" \
		--treecmp "$maps" 7
	echo "$output"
	assert_status 0
	assert_output_contains "all stages passed"
	# the seed has ACLs with named users or groups: without the map in them it fails
	grep -rlq 'system.posix_acl' "$WORK"/seed7.*/manifest.json
}

@test "rootdir-oracle: volctl mkfs --rootdir --compress equals the kernel on a seed per algorithm" {
	for alg in zstd lzo zlib; do
		run "$ORACLE/soak.sh" --workdir "$WORK" --size 0 \
			--tool "$VOLCTL mkfs --rootdir {DIR} -s {SIZE} --compress $alg --quota {IMG}" 5 1
		echo "$output"
		assert_status 0
		assert_output_contains "soak-rootdir: 1 seeds, 1 passed, 0 failed"
	done
}
