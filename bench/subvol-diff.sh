#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# subvolume diff: volctl against `btrfs send --no-data -p A B | btrfs
# receive --dump` and against `rsync -nai` over the two snapshots, on a tree
# of FILES files with CHANGE_PCT % of them changed (issue 22, item 6).
#
#   sudo bench/subvol-diff.sh [RUNS]   (default 3)
#
# The filesystem (Debian's mkfs.btrfs, 16 KiB nodes, an image of SIZE in
# BENCH_DIR) is made once per run of the script: subvolume /sv holds FILES
# files of 1 to 4 KiB in directories of 100 (bench/subvol-diff-tree.py
# populate, seeded), snapshot -r /A; then CHANGE_PCT % of the files change,
# evenly: content rewritten, appended to, chmod, renamed within and across
# directories, deleted, and as many created (subvol-diff-tree.py change);
# snapshot -r /B, and snapshot -r /C of /sv with nothing changed after B.
# The tools, each RUNS times, alternating the order (A B C, C B A, ...):
#   volctl         volctl --image IMG subvolume diff /A /B (unmounted)
#   volctl-online  volctl subvolume diff MNT/A MNT/B (when volctl has it)
#   send           btrfs send --no-data -p MNT/A MNT/B | btrfs receive --dump,
#                  the first after a fresh mount (the kernel's cache of
#                  checked tree blocks empty, as volctl's is at every start)
#   send-warm      the same right after an untimed send of the same pair
#                  (every block it reads already checked and cached)
#   rsync          rsync -nai --delete MNT/B/ MNT/A/   (dry run: a listing)
#   volctl-same    volctl --image IMG subvolume diff /B /C (nothing changed)
# Wall time from $EPOCHREALTIME around the command (time(1) counts in 10 ms
# steps), CPU time (user + sys) and peak RSS from /usr/bin/time (for the
# send pipe the larger of its two processes).  The page cache is warm for
# every tool (a warm-up run of each first, not counted); the offline tools
# read the image file through its page cache, the others the mounted
# filesystem through the kernel's.  The lines each tool prints
# are counted and shown; volctl's and rsync's must describe the same number
# of changed paths within the differences of the two formats, which the
# table states as counted.
# Environment: VOLCTL (default ./volctl), BENCH_DIR (default
# /tmp/bench-diff-work), SIZE (default 4G), FILES (default 100000),
# CHANGE_PCT (default 1), SEED (default 1).
# Results: printed and written to bench/results/; figures in bench/README.md.
set -eu
export LC_ALL=C

HERE=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${1:-3}
VOLCTL=${VOLCTL:-$HERE/volctl}
BENCH_DIR=${BENCH_DIR:-/tmp/bench-diff-work}
SIZE=${SIZE:-4G}
FILES=${FILES:-100000}
CHANGE_PCT=${CHANGE_PCT:-1}
SEED=${SEED:-1}
TREE=$HERE/bench/subvol-diff-tree.py

for t in mkfs.btrfs btrfs rsync /usr/bin/time python3; do
	command -v "$t" >/dev/null || { echo "bench: $t not found" >&2; exit 1; }
done
[ "$(id -u)" -eq 0 ] || { echo "bench: needs root (loop mount, send)" >&2; exit 1; }

IMG=$BENCH_DIR/fs.img
MNT=$BENCH_DIR/mnt
OUT=$BENCH_DIR/out
mkdir -p "$MNT" "$OUT" "$HERE/bench/results"
cleanup() {
	if mountpoint -q "$MNT" 2>/dev/null; then umount "$MNT" || umount -l "$MNT" || true; fi
	losetup -j "$IMG" 2>/dev/null | cut -d: -f1 | xargs -r -n1 losetup -d 2>/dev/null || true
	rm -f "$IMG"
}
trap cleanup EXIT

mnt() {
	mountpoint -q "$MNT" && return 0
	mount "$(losetup -f --show "$IMG")" "$MNT"
}

# (run() is called in a subshell: the loop device is found, not remembered)
umnt() {
	mountpoint -q "$MNT" || return 0
	umount "$MNT"
	losetup -j "$IMG" | cut -d: -f1 | xargs -r -n1 losetup -d
}

rm -f "$IMG"
truncate -s "$SIZE" "$IMG"
mkfs.btrfs -q -f -n 16384 "$IMG" >/dev/null
mnt
btrfs subvolume create "$MNT/sv" >/dev/null
python3 "$TREE" populate "$MNT/sv" "$FILES" "$SEED"
btrfs subvolume snapshot -r "$MNT/sv" "$MNT/A" >/dev/null
python3 "$TREE" change "$MNT/sv" "$FILES" "$CHANGE_PCT" "$SEED" >"$OUT/changes.txt"
btrfs subvolume snapshot -r "$MNT/sv" "$MNT/B" >/dev/null
btrfs subvolume snapshot -r "$MNT/sv" "$MNT/C" >/dev/null
sync -f "$MNT"
SHAPE="$FILES files of 1-4 KiB in directories of 100, $(wc -l <"$OUT/changes.txt") changes ($CHANGE_PCT %: $(cut -d' ' -f1 "$OUT/changes.txt" | sort | uniq -c | awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $2, $1}'))"
echo "shape: $SHAPE"

ONLINE=1
"$VOLCTL" subvolume diff "$MNT/A" "$MNT/B" >/dev/null 2>&1 || ONLINE=0

TOOLS=(volctl send send-warm rsync volctl-same)
[ "$ONLINE" -eq 0 ] || TOOLS+=(volctl-online)

# run TOOL N: one timed run; "wall cpu rss lines" to stdout
run() {
	local tool=$1 n=$2 tf=$OUT/$1.$2.time of=$OUT/$1.$2.out t0 t1
	case $tool in
	volctl | volctl-same)
		umnt
		local a=/A b=/B
		[ "$tool" = volctl ] || { a=/B; b=/C; }
		t0=$EPOCHREALTIME
		/usr/bin/time -f '%e %U %S %M' -o "$tf" \
			"$VOLCTL" --image "$IMG" subvolume diff "$a" "$b" >"$of"
		t1=$EPOCHREALTIME
		;;
	volctl-online)
		mnt
		t0=$EPOCHREALTIME
		/usr/bin/time -f '%e %U %S %M' -o "$tf" \
			"$VOLCTL" subvolume diff "$MNT/A" "$MNT/B" >"$of"
		t1=$EPOCHREALTIME
		;;
	send | send-warm)
		if [ "$tool" = send ]; then
			umnt
			mnt
		else
			mnt
			btrfs send -q --no-data -p "$MNT/A" "$MNT/B" | btrfs receive --dump >/dev/null
		fi
		t0=$EPOCHREALTIME
		/usr/bin/time -f '%e %U %S %M' -o "$tf" bash -c \
			"/usr/bin/time -f '%M' -o '$tf.send' btrfs send -q --no-data -p '$MNT/A' '$MNT/B' |
			 /usr/bin/time -f '%M' -o '$tf.recv' btrfs receive --dump" >"$of"
		t1=$EPOCHREALTIME
		;;
	rsync)
		mnt
		t0=$EPOCHREALTIME
		/usr/bin/time -f '%e %U %S %M' -o "$tf" \
			rsync -nai --delete "$MNT/B/" "$MNT/A/" >"$of"
		t1=$EPOCHREALTIME
		;;
	esac
	local wall user sys rss
	read -r wall user sys rss <"$tf"
	wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.4f", b - a}')
	if [ -f "$tf.send" ]; then
		rss=$(cat "$tf.send" "$tf.recv" | sort -n | tail -n 1)
		rm -f "$tf.send" "$tf.recv"
	fi
	echo "$wall $(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}') $rss $(wc -l <"$of")"
}

# a warm-up of each tool (not counted)
for t in "${TOOLS[@]}"; do run "$t" 0 >/dev/null; done

declare -A WALL CPU RSS LINES
for r in $(seq 1 "$RUNS"); do
	order=("${TOOLS[@]}")
	if [ $((r % 2)) -eq 0 ]; then
		order=()
		for ((i = ${#TOOLS[@]} - 1; i >= 0; i--)); do order+=("${TOOLS[$i]}"); done
	fi
	for t in "${order[@]}"; do
		read -r w c m l < <(run "$t" "$r")
		WALL[$t]+="$w "
		CPU[$t]+="$c "
		RSS[$t]+="$m "
		LINES[$t]=$l
		echo "run $r $t: wall $w s, cpu $c s, rss $m KiB, $l lines"
	done
done

median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
res=$HERE/bench/results/subvol-diff-$(date -u +%Y%m%dT%H%M%SZ).txt
{
	echo "subvolume diff, $(date -u +%F), $(nproc) CPUs, kernel $(uname -r), $RUNS runs, medians"
	echo "shape: $SHAPE"
	vw=$(median <<<"${WALL[volctl]}")
	printf '%-14s %10s %10s %10s %8s %12s\n' tool wall_s cpu_s rss_KiB lines volctl/tool
	for t in "${TOOLS[@]}"; do
		w=$(median <<<"${WALL[$t]}")
		printf '%-14s %10s %10s %10s %8s %12s\n' "$t" "$w" "$(median <<<"${CPU[$t]}")" \
			"$(median <<<"${RSS[$t]}")" "${LINES[$t]}" \
			"$(awk -v a="$vw" -v b="$w" 'BEGIN {if (b > 0) printf "%.3f", a / b; else print "-"}')"
	done
} | tee "$res"
