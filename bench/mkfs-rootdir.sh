#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# mkfs --rootdir: volctl against mkfs.btrfs 6.19 and against the root way, on
# one tree of about 2 GB and more than 100,000 entries (issue 21, item 6).
#
#   sudo bench/mkfs-rootdir.sh [CACHE [RUNS]]   (defaults /tmp/bench-rootdir-tree, 3)
#
# The tree is made once and kept in CACHE/tree: `cp -a` of SOURCES (parts of
# /usr), topped up with generated small files (hard links and symlinks among
# them) until it holds MIN_ENTRIES entries; its shape goes to CACHE/shape.txt.
# The tools, all writing an image of SIZE bytes in BENCH_DIR (on /tmp, the
# same filesystem for all), with the same features (DUP metadata, single
# data, 16 KiB nodes, crc32c, skinny metadata, no-holes, free space tree;
# 6.19 gets -O ^block-group-tree, its new default that volctl does not
# write; every image's feature flags are compared with volctl's):
#   volctl        volctl mkfs -r TREE -s SIZE IMG
#   progs         mkfs.btrfs(6.19) -O ^block-group-tree -r TREE IMG
#   progs-shrink  the same with --shrink
#   volctl-shrink volctl mkfs --shrink ... (only when volctl has --shrink)
#   root          Debian mkfs.btrfs IMG, mount -o loop, cp -a TREE/. MNT,
#                 sync -f MNT, umount, then fsync of IMG (sync IMG, not a
#                 global sync: volctl and mkfs.btrfs fsync their image too)
#   volctl-quota  volctl mkfs --quota ...
#   progs-quota   mkfs.btrfs(6.19) -O ^block-group-tree,quota -r ...
#   volctl-repro  SOURCE_DATE_EPOCH=(latest mtime in the tree) volctl mkfs
#                 -U UUID ...  (the first two images are compared with cmp)
#   read          the floor: cat of every file of the tree, no image
# COLD_TOOLS run with the page cache dropped before every run (echo 3 >
# drop_caches), WARM_TOOLS with the tree read into the cache before every
# run; each RUNS times, alternating the order (A B C, C B A, ...). Wall and
# CPU time (user + sys) and peak RSS from /usr/bin/time; for the root way
# that is the largest of its processes, the kernel's memory not included.
# Every image is checked (not timed): btrfs check --readonly (6.19; the root
# way's with Debian's, see verify()), then a
# read-only loop mount and the metadata listing of bench/mkfs-rootdir-tree.py
# (entries, types, modes, owners, mtime seconds, sizes, links, xattrs)
# compared with the tree's; the first image of each tool also has every
# file's data compared (md5). A run whose image fails is reported and left
# out of the medians, and the script exits 1.
#
# COLD_TOOLS default "read volctl progs root", WARM_TOOLS all the others too
# (empty: none).
# Environment: VOLCTL (default ./volctl), MKFS619 and BTRFS619 (default
# /work/progs619/{mkfs.btrfs,btrfs}), MKFS_ROOT and BTRFS_ROOT (default Debian's
# /usr/sbin/mkfs.btrfs and /usr/bin/btrfs: the root way and its check),
# BENCH_DIR (default /tmp/bench-rootdir-work), SIZE (default 8G), SOURCES,
# MIN_ENTRIES (default 100000), COLD_TOOLS, WARM_TOOLS, CONTENT_CHECK (1: first image of each
# tool, the default; 0: none), TREE_ONLY=1 (make the tree and stop).
# Results: printed and written to bench/results/; figures in bench/README.md.
set -eu
export LC_ALL=C

HERE=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${1:-/tmp/bench-rootdir-tree}
RUNS=${2:-3}
VOLCTL=${VOLCTL:-$HERE/volctl}
MKFS619=${MKFS619:-/work/progs619/mkfs.btrfs}
BTRFS619=${BTRFS619:-/work/progs619/btrfs}
MKFS_ROOT=${MKFS_ROOT:-/usr/sbin/mkfs.btrfs}
BTRFS_ROOT=${BTRFS_ROOT:-/usr/bin/btrfs}
BENCH_DIR=${BENCH_DIR:-/tmp/bench-rootdir-work}
SIZE=${SIZE:-8G}
SOURCES=${SOURCES:-/usr/share /usr/include /usr/lib/x86_64-linux-gnu /usr/lib/python3 /usr/lib/python3.11 /usr/lib/node_modules}
MIN_ENTRIES=${MIN_ENTRIES:-100000}
COLD_TOOLS=${COLD_TOOLS-read volctl progs root}
# volctl-shrink only where volctl has --shrink
if "$VOLCTL" mkfs --help 2>/dev/null | grep -q -- --shrink; then
	WARM_TOOLS=${WARM_TOOLS-read volctl progs volctl-shrink progs-shrink root volctl-quota progs-quota volctl-repro}
else
	WARM_TOOLS=${WARM_TOOLS-read volctl progs progs-shrink root volctl-quota progs-quota volctl-repro}
fi
CONTENT_CHECK=${CONTENT_CHECK:-1}
REPRO_UUID=21b0e5c4-6d2a-4f0e-9c1b-7a3d5e8f9021
HELPER=$HERE/bench/mkfs-rootdir-tree.py
RESULTS=$HERE/bench/results
TREE=$CACHE/tree
IMG=$BENCH_DIR/bench.img
MNT=$BENCH_DIR/mnt
VMNT=$BENCH_DIR/vmnt

[ "$(id -u)" -eq 0 ] || { echo "bench: needs root (loop mounts, drop_caches)" >&2; exit 2; }
[ -x "$VOLCTL" ] || { echo "bench: $VOLCTL not built" >&2; exit 2; }
for t in "$MKFS619" "$BTRFS619" "$MKFS_ROOT" "$BTRFS_ROOT" /usr/bin/time python3; do
	command -v "$t" >/dev/null || { echo "bench: needs $t" >&2; exit 2; }
done
mkdir -p "$BENCH_DIR" "$MNT" "$VMNT" "$RESULTS" "$CACHE"

cleanup() {
	local m
	for m in "$MNT" "$VMNT"; do
		if mountpoint -q "$m" 2>/dev/null; then umount "$m" || umount -l "$m" || true; fi
	done
	rm -f "$BENCH_DIR"/*.img
}
trap cleanup EXIT

# --- the tree, made once ---------------------------------------------------
spec="sources: $SOURCES; min entries: $MIN_ENTRIES"
if [ -d "$TREE" ]; then
	if [ "$(cat "$CACHE/spec" 2>/dev/null)" != "$spec" ]; then
		echo "bench: $TREE was made from another spec ($(cat "$CACHE/spec" 2>/dev/null));" \
			"remove $CACHE or give another CACHE" >&2
		exit 2
	fi
else
	echo "bench: making the tree in $TREE ($spec)..." >&2
	rm -rf "$TREE.part"
	mkdir -p "$TREE.part"
	for s in $SOURCES; do
		d=$TREE.part/$(dirname "${s#/}")
		mkdir -p "$d"
		cp -a "$s" "$d/"
	done
	python3 "$HELPER" topup "$TREE.part" "$MIN_ENTRIES"
	rm -f "$CACHE"/shape.txt "$CACHE"/listing "$CACHE"/content "$CACHE"/max-mtime
	mv "$TREE.part" "$TREE"
	echo "$spec" >"$CACHE/spec"
fi
[ -s "$CACHE/shape.txt" ] || python3 "$HELPER" shape "$TREE" >"$CACHE/shape.txt"
[ -s "$CACHE/listing" ] || python3 "$HELPER" listing "$TREE" >"$CACHE/listing"
[ -s "$CACHE/max-mtime" ] || python3 "$HELPER" max-mtime "$TREE" >"$CACHE/max-mtime"
if [ "$CONTENT_CHECK" = 1 ] && [ ! -s "$CACHE/content" ]; then
	python3 "$HELPER" content "$TREE" >"$CACHE/content"
fi
REPRO_EPOCH=$(cat "$CACHE/max-mtime")
if [ "${TREE_ONLY:-0}" = 1 ]; then
	cat "$CACHE/shape.txt"
	exit 0
fi

# --- the tools: each makes $1 from $TREE -----------------------------------
# the floor: every file of the tree read once (no image)
t_read() { find "$TREE" -type f -print0 | xargs -0 cat >/dev/null; }
t_volctl() { "$VOLCTL" mkfs -r "$TREE" -s "$SIZE" "$1"; }
t_progs() { truncate -s "$SIZE" "$1" && "$MKFS619" -q -O ^block-group-tree -r "$TREE" "$1"; }
t_progs_shrink() {
	truncate -s "$SIZE" "$1" && "$MKFS619" -q -O ^block-group-tree --shrink -r "$TREE" "$1"
}
t_root() {
	truncate -s "$SIZE" "$1" &&
		"$MKFS_ROOT" -q "$1" &&
		mount -o loop "$1" "$MNT" &&
		cp -a "$TREE/." "$MNT" &&
		sync -f "$MNT" &&
		umount "$MNT" &&
		sync "$1"
}
t_volctl_shrink() { "$VOLCTL" mkfs --shrink -r "$TREE" -s "$SIZE" "$1"; }
t_volctl_quota() { "$VOLCTL" mkfs --quota -r "$TREE" -s "$SIZE" "$1"; }
t_progs_quota() { truncate -s "$SIZE" "$1" && "$MKFS619" -q -O ^block-group-tree,quota -r "$TREE" "$1"; }
t_volctl_repro() {
	SOURCE_DATE_EPOCH=$REPRO_EPOCH "$VOLCTL" mkfs -U "$REPRO_UUID" -r "$TREE" -s "$SIZE" "$1"
}
export TREE SIZE VOLCTL MKFS619 MKFS_ROOT MNT REPRO_EPOCH REPRO_UUID
export -f t_read t_volctl t_volctl_shrink t_progs t_progs_shrink t_root t_volctl_quota t_progs_quota t_volctl_repro

warm_tree() {
	find "$TREE" -type f -print0 | xargs -0 cat >/dev/null
}

# --- checks of an image ----------------------------------------------------
super_field() { "$BTRFS619" inspect-internal dump-super "$1" | awk -v f="$2" '$1 == f { print $2; exit }'; }

# verify TOOL: 0 when the image is sound and holds the tree
verify() {
	local tool=$1 log=$BENCH_DIR/verify.log feat got want check=$BTRFS619
	# 6.19's check finds the free space tree keys of the temporary chunks
	# that mkfs.btrfs 6.2 removed in every image 6.2 makes (before any mount):
	# the root way's images are checked by the btrfs-progs that made them
	[ "$tool" = root ] && check=$BTRFS_ROOT
	if ! "$check" check --readonly "$IMG" >"$log" 2>&1; then
		echo "bench: $tool: $check check --readonly fails:" >&2
		tail -20 "$log" >&2
		return 1
	fi
	feat="incompat $(super_field "$IMG" incompat_flags) compat_ro $(super_field "$IMG" compat_ro_flags)"
	if [ ! -e "$BENCH_DIR/size-$tool" ]; then
		{
			echo "$feat"
			echo "file $(stat -c %s "$IMG") allocated $(($(stat -c '%b * %B' "$IMG")))" \
				"bytes_used $(super_field "$IMG" bytes_used)" \
				"chunks $(super_field "$IMG" dev_item.bytes_used)" \
				"tree_bytes $(awk '/^total tree bytes:/ { print $4 }' "$log")" \
				"waste $(awk '/^btree space waste bytes:/ { print $5 }' "$log")"
		} >"$BENCH_DIR/size-$tool"
	fi
	mount -o ro,loop "$IMG" "$VMNT" || { echo "bench: $tool: cannot mount the image" >&2; return 1; }
	if [ "$(wc -l <"$BENCH_DIR/size-$tool")" = 2 ]; then
		"$BTRFS619" filesystem df -b "$VMNT" | awk -F'[ ,:=]+' '
			$1 == "Data" || $1 == "Metadata" { printf "%s %s of %s; ", tolower($1), $6, $4 }
			END { print "" }' >>"$BENCH_DIR/size-$tool"
	fi
	got=$(python3 "$HELPER" listing "$VMNT")
	want=$(cat "$CACHE/listing")
	if [ "$got" != "$want" ]; then
		umount "$VMNT"
		echo "bench: $tool: the image's listing differs: $got, the tree's: $want" >&2
		return 1
	fi
	if [ "$CONTENT_CHECK" = 1 ] && [ ! -e "$BENCH_DIR/content-$tool" ]; then
		got=$(python3 "$HELPER" content "$VMNT")
		if [ "$got" != "$(cat "$CACHE/content")" ]; then
			umount "$VMNT"
			echo "bench: $tool: file data differ from the tree's" >&2
			return 1
		fi
		echo "$got" >"$BENCH_DIR/content-$tool"
	fi
	umount "$VMNT"
}

# --- one timed run ---------------------------------------------------------
# one_run CACHE TOOL RUN: appends "CACHE TOOL RUN wall user sys rss_kib ok"
one_run() {
	local cache=$1 tool=$2 run=$3 t=$BENCH_DIR/time ok=1 wall user sys rss
	rm -f "$IMG"
	if [ "$cache" = cold ]; then
		echo 3 >/proc/sys/vm/drop_caches
	else
		warm_tree
	fi
	# shellcheck disable=SC2016 # $1 is the inner bash's
	if ! /usr/bin/time -f '%e %U %S %M' -o "$t" bash -c 't_'"${tool//-/_}"' "$1"' _ "$IMG" \
		>"$BENCH_DIR/out" 2>&1; then
		echo "bench: $cache $tool run $run failed:" >&2
		tail -5 "$BENCH_DIR/out" >&2
		ok=0
	fi
	read -r wall user sys rss < <(tail -1 "$t")
	if [ "$ok" = 1 ] && [ "$tool" != read ] && ! verify "$tool"; then
		ok=0
	fi
	if [ "$tool" = volctl-repro ] && [ "$ok" = 1 ]; then
		if [ ! -e "$BENCH_DIR/repro-first.img" ]; then
			mv "$IMG" "$BENCH_DIR/repro-first.img"
		elif [ ! -e "$BENCH_DIR/repro-cmp" ]; then
			if cmp -s "$IMG" "$BENCH_DIR/repro-first.img"; then
				echo "identical" >"$BENCH_DIR/repro-cmp"
			else
				echo "DIFFERENT: $(cmp "$IMG" "$BENCH_DIR/repro-first.img" 2>&1 | head -1)" \
					>"$BENCH_DIR/repro-cmp"
			fi
			rm -f "$BENCH_DIR/repro-first.img"
		fi
	fi
	rm -f "$IMG"
	echo "$cache $tool $run $wall $user $sys $rss $ok" >>"$BENCH_DIR/runs"
	printf 'bench: %-4s %-13s run %d: %6.2f s wall, %6.2f s CPU, %7d KiB%s\n' "$cache" "$tool" "$run" \
		"$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" "$rss" \
		"$([ "$ok" = 1 ] || echo ' FAILED')" >&2
}

phase() {
	local cache=$1 r i
	shift
	local tools=("$@")
	[ ${#tools[@]} -gt 0 ] || return 0
	[ "$cache" = warm ] && warm_tree
	for r in $(seq 1 "$RUNS"); do
		if [ $((r % 2)) -eq 1 ]; then
			for i in "${tools[@]}"; do one_run "$cache" "$i" "$r"; done
		else
			for ((i = ${#tools[@]} - 1; i >= 0; i--)); do one_run "$cache" "${tools[i]}" "$r"; done
		fi
	done
}

# --- report ----------------------------------------------------------------
# med CACHE TOOL COLUMN: median over the good runs (column 4 wall, 8 CPU, 7 rss)
med() {
	awk -v c="$1" -v t="$2" -v k="$3" '$1 == c && $2 == t && $8 == 1 {
		print (k == 8 ? $5 + $6 : $k) }' "$BENCH_DIR/runs" | sort -g |
		awk '{ a[NR] = $1 } END { if (NR == 0) print "-";
			else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-";
		else printf "%.2f", a / b }'
}

table() {
	local cache tool pair a b
	echo
	echo "medians of the good runs (RUNS=$RUNS each): wall s, CPU s (user + sys), peak RSS MiB"
	printf '%-5s %-13s %4s %8s %8s %8s\n' cache tool runs wall cpu rss
	for cache in cold warm; do
		for tool in read volctl progs volctl-shrink progs-shrink root volctl-quota progs-quota volctl-repro; do
			n=$(awk -v c=$cache -v t=$tool '$1 == c && $2 == t && $8 == 1' "$BENCH_DIR/runs" | wc -l)
			[ "$n" -gt 0 ] || continue
			printf '%-5s %-13s %4d %8s %8s %8s\n' "$cache" "$tool" "$n" "$(med $cache $tool 4)" \
				"$(med $cache $tool 8)" "$(awk -v k="$(med $cache $tool 7)" 'BEGIN { printf "%.1f", k / 1024 }')"
		done
	done
	echo
	echo "ratios volctl / other (below 1: volctl better): wall, CPU, peak RSS"
	for cache in cold warm; do
		for pair in volctl:progs volctl:progs-shrink volctl-shrink:progs-shrink volctl:root volctl:read progs:read root:read \
			volctl-quota:progs-quota volctl-repro:volctl; do
			a=${pair%%:*} b=${pair#*:}
			if [ "$(med $cache "$a" 4)" = - ] || [ "$(med $cache "$b" 4)" = - ]; then continue; fi
			printf '%-5s %-28s %6s %6s %6s\n' "$cache" "$a / $b" \
				"$(ratio "$(med $cache "$a" 4)" "$(med $cache "$b" 4)")" \
				"$(ratio "$(med $cache "$a" 8)" "$(med $cache "$b" 8)")" \
				"$(ratio "$(med $cache "$a" 7)" "$(med $cache "$b" 7)")"
		done
	done
	echo
	echo "images (first good run of each tool): features, file size, allocated in /tmp, bytes_used," \
		"chunks (device bytes allocated), tree bytes and btree space waste (btrfs check);" \
		"data and metadata used of allocated (one copy)"
	for tool in volctl progs volctl-shrink progs-shrink root volctl-quota progs-quota volctl-repro; do
		[ -e "$BENCH_DIR/size-$tool" ] || continue
		printf '%-13s %s; %s\n%-13s %s\n' "$tool" "$(sed -n 1p "$BENCH_DIR/size-$tool")" \
			"$(sed -n 2p "$BENCH_DIR/size-$tool")" "" "$(sed -n 3p "$BENCH_DIR/size-$tool")"
	done
	if [ -e "$BENCH_DIR/repro-cmp" ]; then
		echo "volctl-repro: two images $(cat "$BENCH_DIR/repro-cmp")"
	fi
	[ -e "$BENCH_DIR/size-volctl" ] || return 0
	want=$(sed -n 1p "$BENCH_DIR/size-volctl")
	for tool in progs volctl-shrink progs-shrink root volctl-repro; do
		[ -e "$BENCH_DIR/size-$tool" ] || continue
		got=$(sed -n 1p "$BENCH_DIR/size-$tool")
		[ "$got" = "$want" ] || echo "WARNING: $tool features ($got) are not volctl's ($want)"
	done
}

out=$RESULTS/mkfs-rootdir-$(date -u +%Y%m%dT%H%M%SZ).txt
exec > >(tee "$out")
rm -f "$BENCH_DIR"/runs "$BENCH_DIR"/size-* "$BENCH_DIR"/content-* "$BENCH_DIR"/repro-*
echo "mkfs-rootdir bench $(date -u +%FT%TZ): kernel $(uname -r), $(nproc) CPUs," \
	"$(awk '/MemTotal/ { printf "%.1f GiB RAM", $2 / 1048576 }' /proc/meminfo)," \
	"/tmp on $(findmnt -no SOURCE,FSTYPE -T "$BENCH_DIR")"
echo "volctl $(git -C "$HERE" rev-parse --short HEAD 2>/dev/null || echo '?') ($("$VOLCTL" --version))," \
	"$("$MKFS619" --version | head -1), root way: $("$MKFS_ROOT" --version | head -1)"
echo "image size $SIZE; runs $RUNS; load before $(cut -d' ' -f1-3 /proc/loadavg)"
echo "tree $TREE ($spec):"
sed 's/^/  /' "$CACHE/shape.txt"
echo "  listing: $(cat "$CACHE/listing")"

# shellcheck disable=SC2086 # lists of tool names
phase cold $COLD_TOOLS
# shellcheck disable=SC2086
phase warm $WARM_TOOLS
echo "load after $(cut -d' ' -f1-3 /proc/loadavg)"
table
echo "bench: results in $out" >&2
if awk '$8 != 1 { bad = 1 } END { exit !bad }' "$BENCH_DIR/runs"; then
	echo "bench: some runs failed (above)" >&2
	exit 1
fi
