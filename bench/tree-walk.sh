#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Tree-walk benchmark (root + loop devices to build the image).
#
#   bench/tree-walk.sh [-n EXTENTS] [-d DIR] [-r RUNS] [--keep] [--image IMG]
#
# Builds a large image with EXTENTS (default 1,100,000) data extents: a small
# C helper fallocate()s 4 KiB every 8 KiB in a few files, so each call makes
# one prealloc extent (an EXTENT_ITEM in the extent tree and an EXTENT_DATA
# item in the fs tree) without writing data; the image stays sparse.
# Then, with a cold page cache (only the image's cache is dropped, with
# posix_fadvise through `dd iflag=nocache`) and a warm one, it times:
#   walk   volctl inspect tree --walk-only IMG   (reads and verifies every block)
#   dump   btrfs inspect-internal dump-tree IMG > /dev/null
#   read   pread() of exactly the same tree blocks (first copy), sorted by
#          physical offset: the I/O floor of any walker
#   dd     dd (1 MiB blocks) of the whole METADATA and SYSTEM chunks, one
#          copy, used or not: the "plain read of the metadata" of the brief
# and prints the best of RUNS runs and the ratios walk/read, walk/dd and
# walk/dump.  Target: walk within 1.5x of a plain read, faster than dump-tree.
set -eu
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
VOLCTL=${VOLCTL:-$here/../volctl}
n=1100000
runs=3
dir=/tmp/volctl-bench
keep=0
img=
while [ $# -gt 0 ]; do
	case $1 in
	-n) n=$2; shift 2 ;;
	-d) dir=$2; shift 2 ;;
	-r) runs=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	--image) img=$2; shift 2 ;;
	-h|--help) sed -n '3,21p' "$0"; exit 0 ;;
	*) echo "unknown option $1" >&2; exit 2 ;;
	esac
done
[ -x "$VOLCTL" ] || { echo "build volctl first ($VOLCTL)" >&2; exit 1; }
for t in jq bc cc btrfs; do
	command -v $t >/dev/null || { echo "needs $t" >&2; exit 1; }
done
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
loop=
mnt="$dir/mnt"
given_img=$img

cleanup() {
	if mountpoint -q "$mnt" 2>/dev/null; then
		umount "$mnt" || true
	fi
	if [ -n "$loop" ]; then
		losetup -d "$loop" 2>/dev/null || true
	fi
	if [ $keep -eq 0 ] && [ -z "$given_img" ]; then
		rm -f "$dir/bench.img"
	fi
}
trap cleanup EXIT

# The C helper: "fill DIR N FILES" makes the extents, "read IMG NODESIZE"
# preads the blocks whose physical offsets come on stdin (the plain read).
cat >"$dir/benchhelp.c" <<'END_OF_C'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fill(const char *dir, long n, long files)
{
	char path[4096];

	for (long f = 0; f < files; f++) {
		int fd;

		snprintf(path, sizeof(path), "%s/f%ld", dir, f);
		fd = open(path, O_CREAT | O_WRONLY, 0644);
		if (fd < 0) {
			perror(path);
			return 1;
		}
		for (long i = 0; i < n / files; i++) {
			if (fallocate(fd, 0, (off_t)i * 8192, 4096)) {
				perror("fallocate");
				return 1;
			}
		}
		close(fd);
	}
	return 0;
}

static int readblocks(const char *img, long nodesize)
{
	unsigned long long off, sum = 0;
	char *buf = malloc(nodesize);
	int fd = open(img, O_RDONLY);

	if (fd < 0 || !buf) {
		perror(img);
		return 1;
	}
	while (scanf("%llu", &off) == 1) {
		if (pread(fd, buf, nodesize, off) != nodesize) {
			perror("pread");
			return 1;
		}
		sum += (unsigned char)buf[100];
	}
	printf("%llu\n", sum);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "fill"))
		return fill(argv[2], atol(argv[3]), atol(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "read"))
		return readblocks(argv[2], atol(argv[3]));
	return 2;
}
END_OF_C
cc -O2 -o "$dir/benchhelp" "$dir/benchhelp.c"

build_image() {
	local files=8 t0
	[ "$(id -u)" -eq 0 ] || { echo "building the image needs root" >&2; exit 1; }
	img="$dir/bench.img"
	rm -f "$img"
	# room for n * 4 KiB of data plus metadata; the file stays sparse
	truncate -s $(((n * 4096 * 12 / 10) / 1073741824 + 4))G "$img"
	mkfs.btrfs -q -f "$img" >/dev/null
	loop=$(losetup -f --show "$img")
	mkdir -p "$mnt"
	mount "$loop" "$mnt"
	echo "building: $n extents in $files files..."
	t0=$(date +%s.%N)
	"$dir/benchhelp" fill "$mnt" "$n" "$files"
	umount "$mnt"
	losetup -d "$loop"
	loop=
	echo "built in $(echo "$(date +%s.%N) - $t0" | bc) s"
}

[ -n "$img" ] || build_image

# Every tree block as dump-tree lists it, mapped to the physical offset of its
# first copy through the chunk tree, sorted: the block list of the plain read.
nodesize=$("$VOLCTL" --format json inspect super "$img" | jq '.superblocks[0].nodesize')
"$VOLCTL" --format json inspect tree -t chunk "$img" | jq -r '
	.trees[0].blocks[].items[] | select(.key.type_name == "CHUNK_ITEM")
	| "\(.key.offset) \(.body.length) \(.body.stripes[0].offset)"' >"$dir/chunks"
"$VOLCTL" --format json inspect tree -t chunk "$img" | jq -r '
	.trees[0].blocks[].items[] | select(.key.type_name == "CHUNK_ITEM")
	| select(.body.type_names | (index("METADATA") or index("SYSTEM")))
	| "\(.body.stripes[0].offset) \(.body.length)"' >"$dir/meta-chunks"
btrfs inspect-internal dump-tree "$img" |
	awk '/^(leaf|node) [0-9]+ (level|items)/ { print $2 }' | sort -un |
	awk 'NR == FNR { s[NR] = $1; l[NR] = $2; p[NR] = $3; n = NR; next }
	     { for (i = 1; i <= n; i++)
			if ($1 >= s[i] && $1 < s[i] + l[i]) { printf "%d\n", p[i] + $1 - s[i]; break } }' \
		"$dir/chunks" - | sort -n >"$dir/blocks"
nblocks=$(wc -l <"$dir/blocks")

read_metadata() {
	"$dir/benchhelp" read "$img" "$nodesize" <"$dir/blocks"
}

dd_chunks() {
	local off len
	while read -r off len; do
		dd if="$img" of=/dev/null bs=1M iflag=skip_bytes,count_bytes \
			skip="$off" count="$len" status=none
	done <"$dir/meta-chunks"
}

walk() {
	"$VOLCTL" inspect tree --walk-only "$img"
}

dump() {
	btrfs inspect-internal dump-tree "$img"
}

drop_cache() {
	dd if="$img" iflag=nocache count=0 status=none
}

# best of $runs in ms: time_cmd COLD(0|1) CMD...
time_cmd() {
	local cold=$1 best= t0 t1 t i
	shift
	for ((i = 0; i < runs; i++)); do
		if [ "$cold" -eq 1 ]; then
			drop_cache
		else
			"$@" >/dev/null 2>&1 || true
		fi
		t0=$(date +%s%N)
		"$@" >/dev/null
		t1=$(date +%s%N)
		t=$(((t1 - t0) / 1000000))
		if [ -z "$best" ] || [ "$t" -lt "$best" ]; then
			best=$t
		fi
	done
	[ "$best" -gt 0 ] || best=1
	echo "$best"
}

ratio() {
	echo "scale=2; $1 / $2" | bc | sed 's/^\./0./'
}

walk | tail -n 1
extents=$("$VOLCTL" --format json inspect tree --walk-only -t extent "$img" | jq '.trees[0].items')
echo "extent tree items: $extents; tree blocks: $nblocks x $nodesize bytes" \
	"($((nblocks * nodesize / 1048576)) MiB);" \
	"metadata chunks: $(awk '{s += $2} END {print int(s / 1048576)}' "$dir/meta-chunks") MiB"
for mode in cold warm; do
	c=0
	[ $mode = warm ] || c=1
	tr=$(time_cmd $c read_metadata)
	tc=$(time_cmd $c dd_chunks)
	tw=$(time_cmd $c walk)
	td=$(time_cmd $c dump)
	printf '%s cache: read %d ms, dd %d ms, walk %d ms, dump-tree %d ms;' \
		"$mode" "$tr" "$tc" "$tw" "$td"
	printf ' walk/read %s, walk/dd %s, walk/dump %s\n' \
		"$(ratio "$tw" "$tr")" "$(ratio "$tw" "$tc")" "$(ratio "$tw" "$td")"
done
