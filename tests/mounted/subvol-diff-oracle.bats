#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The oracle of `subvolume diff` and `send-size` (tests/kdiff/run-pair.sh):
# per seed a snapshot pair made by the kernel from a seeded random mix
# (pairgen.py), the expected diff from walking both snapshots (walkdiff.py),
# `send --no-data | receive --dump` replayed against it (senddump.py) and the
# bytes `btrfs send` writes (sendsize.sh).  Here: the walk finds what pairgen
# did (a rename is R, a same-bytes rewrite is `M (times)` and not content, a
# dedupe is no change, a reused inode number is - and +), the stream's false
# modifications are counted and are > 0 (same-bytes rewrites and dedupes are
# in every seed), the send sizes are recorded, the hook compares a tool with
# the walk, and a walk that ignores the generation is caught.
# `make soak-diff SEEDS=N` runs many seeds.

load ../helpers

K="$BATS_TEST_DIRNAME/../kdiff"

setup() {
	require_root_loop
	command -v python3 >/dev/null || skip "needs python3"
	WORK="$BATS_TEST_TMPDIR/pair"
}

# pair SEED [ARGS...]: run-pair.sh, its work dir kept in $WORK; $D is that dir
pair() {
	run "$K/run-pair.sh" --keep --workdir "$WORK" --volctl "$VOLCTL" "$@"
	echo "$output"
	D=$(echo "$WORK"/seed"$1".*)
}

check_seed() {
	pair "$1"
	assert_status 0
	assert_output_contains "markers 14/14"
	assert_output_contains "inode reused: yes"
	assert_output_contains "run-pair: seed $1: ok"
	# volctl subvolume diff online (tool1, tool2) and --image (tool3, tool4),
	# plain and -H: every line of the walk, nothing else
	assert_output_contains "tool 1: $VOLCTL subvolume diff $D/mnt/pair.old $D/mnt/pair.new"
	assert_output_contains "tool1: 0 false positives, 0 misses; tool2: 0 false positives, 0 misses;"
	assert_output_contains " tool3: 0 false positives, 0 misses; tool4: 0 false positives, 0 misses;"
	w="$D/walk.txt"
	# a move across directories is one R line
	grep -qxF -- "$(printf 'R\t/m/ren-a -> /m2/ren-b')" "$w"
	# a same-bytes rewrite changes the times, not the content
	grep -qxF -- "$(printf 'M\t/m/same\t(times)')" "$w"
	# a dedupe (extents shared, bytes equal, no time touched) is no change
	run ! grep -q '/m/dedup-' "$w"
	# the newest inode deleted and its number taken again: replaced
	grep -qxF -- "$(printf -- '-\t/m/newest')" "$w"
	grep -qxF -- "$(printf '+\t/m/newest')" "$w"
	# the parents of created, removed and renamed entries: no line
	run ! grep -qE "^M$(printf '\t')/m2?$(printf '\t')" "$w"
	# a hard link added: + for the name, links for the other one
	grep -qxF -- "$(printf 'M\t/m/link1\t(links)')" "$w"
	# -H has the same lines as fields
	[ "$(wc -l <"$w")" -eq "$(wc -l <"$D/walk-H.txt")" ]
	grep -qxF -- "$(printf 'R\t/m/ren-a\t/m2/ren-b')" "$D/walk-H.txt"
	# the stream's false modifications: counted, > 0, the dedupe and the
	# same-bytes rewrite among them, no line of the walk missed
	s="$D/senddump.txt"
	n=$(sed -n 's/.* \([0-9][0-9]*\) false modifications.*/\1/p' "$s")
	[ "$n" -gt 0 ]
	grep -q "$(printf '^false: M\t/m/dedup-dst\tcontent\t')" "$s"
	grep -q "$(printf '^false: M\t/m/same\tcontent\t')" "$s"
	grep -q ', 0 misses, 0 unparsed' "$s"
	# the send sizes, full and incremental, v1 and v2 compressed, equal
	# through both btrfs-progs
	for m in "full v1" "incremental v1" "full v2c" "incremental v2c"; do
		grep -qE "^sendsize: [0-9.]+ $m [1-9][0-9]*$" "$D/sendsize.txt"
	done
	grep -qx "sendsize: equal across tools" "$D/sendsize.txt"
}

@test "subvol-diff-oracle: seed 1: the walk finds what pairgen did, the stream's false modifications counted, send sizes" {
	check_seed 1
}

@test "subvol-diff-oracle: seed 2: the walk finds what pairgen did, the stream's false modifications counted, send sizes" {
	check_seed 2
}

@test "subvol-diff-oracle: seed 3: the walk finds what pairgen did, the stream's false modifications counted, send sizes" {
	check_seed 3
}

@test "subvol-diff-oracle: the tool hook passes the walk itself (online, -H) and fails a tool that drops a line" {
	pair 4 --diff "python3 $K/walkdiff.py {OLD} {NEW}" --diff "python3 $K/walkdiff.py -H {OLD} {NEW}"
	assert_status 0
	assert_output_contains "tool1: 0 false positives, 0 misses; tool2: 0 false positives, 0 misses;"
	rm -rf "$WORK"
	pair 4 --diff "python3 $K/walkdiff.py {OLD} {NEW} | sed 2d"
	assert_status 1
	assert_output_contains "FAILED at tool:  tool1: 0 false positives, 1 misses;"
	rm -rf "$WORK"
	pair 4 --diff "python3 $K/walkdiff.py {OLD} {NEW}; echo '+	/nothing'"
	assert_status 1
	assert_output_contains "tool1: 1 false positives, 0 misses;"
}

@test "subvol-diff-oracle: a walk that takes the inode number alone for the identity is caught" {
	KDIFF_BREAK=generation pair 1
	assert_status 1
	assert_output_contains "FAILED at expect"
	assert_output_contains "expect: missing: -	/m/newest"
}
