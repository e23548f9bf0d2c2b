#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# subvolume send-size: volctl against `btrfs send ... | wc -c`, incremental
# and full, on the tree of bench/subvol-diff.sh (issue 22, item 4: send-size
# should cost at most a tenth of the send it sizes).
#
#   sudo bench/send-size.sh [RUNS]   (default 3)
#
# The filesystem is the one bench/subvol-diff.sh makes (Debian's mkfs.btrfs,
# 16 KiB nodes, an image of SIZE in BENCH_DIR): subvolume /sv of FILES files
# of 1 to 4 KiB in directories of 100 (bench/subvol-diff-tree.py, seeded),
# snapshot -r /A, CHANGE_PCT % of the files changed, snapshot -r /B (and /C).
# With SRC_IMG set, a copy of that image (made by subvol-diff.sh's steps) is
# taken instead of building one; SRC_IMG itself is only read.
# The image is then copied once more: IMG stays unmounted for the offline
# runs, MIMG is mounted read-only on a loop device for the whole benchmark,
# so the kernel's caches stay warm for every online run (no mount between
# runs).  The two copies hold the same bytes.
# The cases, each RUNS times, alternating the order (forward, backward, ...),
# after a warm-up run of each (not counted):
#   incr:  btrfs send -p MNT/A MNT/B | wc -c                        (send-v1)
#          btrfs send --proto 2 --compressed-data -p MNT/A MNT/B | wc -c  (send-v2c)
#          volctl --image IMG subvolume send-size -p /A /B  (unmounted; volctl)
#          volctl subvolume send-size -p MNT/A MNT/B        (volctl-online)
#   full:  the same without -p A, of /B
# volctl prints both totals (v1 and v2 compressed) in one run.
# Wall time from $EPOCHREALTIME around the command, CPU time (user + sys,
# the kernel's send is system time of the btrfs process) and peak RSS from
# /usr/bin/time (for a send pipe the larger of its two processes).  Every
# volctl total is compared with the byte count of the kernel's stream of the
# same case and protocol: "equal" or "DIFFER" (and the exit status is 1).
# The ratio printed is volctl's median wall (and CPU) time over the send's,
# per protocol; the issue's target is at most 0.10.
# Environment: VOLCTL (default ./volctl), BENCH_DIR (default
# /tmp/bench-send-size-work), SRC_IMG (default: build), SIZE (default 4G),
# FILES (default 100000), CHANGE_PCT (default 1), SEED (default 1).
# Results: printed and written to bench/results/; figures in bench/README.md.
set -eu
export LC_ALL=C

HERE=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${1:-3}
VOLCTL=${VOLCTL:-$HERE/volctl}
BENCH_DIR=${BENCH_DIR:-/tmp/bench-send-size-work}
SRC_IMG=${SRC_IMG:-}
SIZE=${SIZE:-4G}
FILES=${FILES:-100000}
CHANGE_PCT=${CHANGE_PCT:-1}
SEED=${SEED:-1}
TREE=$HERE/bench/subvol-diff-tree.py

for t in mkfs.btrfs btrfs losetup /usr/bin/time python3; do
	command -v "$t" >/dev/null || { echo "bench: $t not found" >&2; exit 1; }
done
[ "$(id -u)" -eq 0 ] || { echo "bench: needs root (loop mount, send)" >&2; exit 1; }
[ -x "$VOLCTL" ] || { echo "bench: $VOLCTL not found" >&2; exit 1; }

IMG=$BENCH_DIR/fs.img
MIMG=$BENCH_DIR/fs-mounted.img
MNT=$BENCH_DIR/mnt
OUT=$BENCH_DIR/out
mkdir -p "$MNT" "$OUT" "$HERE/bench/results"
rm -f "$OUT"/*.out "$OUT"/*.time
LOOP=
cleanup() {
	if mountpoint -q "$MNT" 2>/dev/null; then umount "$MNT" || umount -l "$MNT" || true; fi
	[ -z "$LOOP" ] || losetup -d "$LOOP" 2>/dev/null || true
	rm -f "$IMG" "$MIMG"
}
trap cleanup EXIT

rm -f "$IMG" "$MIMG"
if [ -n "$SRC_IMG" ]; then
	cp --sparse=always "$SRC_IMG" "$IMG"
	SHAPE="a copy of $SRC_IMG"
else
	truncate -s "$SIZE" "$IMG"
	mkfs.btrfs -q -f -n 16384 "$IMG" >/dev/null
	LOOP=$(losetup -f --show "$IMG")
	mount "$LOOP" "$MNT"
	btrfs subvolume create "$MNT/sv" >/dev/null
	python3 "$TREE" populate "$MNT/sv" "$FILES" "$SEED"
	btrfs subvolume snapshot -r "$MNT/sv" "$MNT/A" >/dev/null
	python3 "$TREE" change "$MNT/sv" "$FILES" "$CHANGE_PCT" "$SEED" >"$OUT/changes.txt"
	btrfs subvolume snapshot -r "$MNT/sv" "$MNT/B" >/dev/null
	btrfs subvolume snapshot -r "$MNT/sv" "$MNT/C" >/dev/null
	sync -f "$MNT"
	umount "$MNT"
	losetup -d "$LOOP"
	LOOP=
	SHAPE="$FILES files of 1-4 KiB in directories of 100, $(wc -l <"$OUT/changes.txt") changes ($CHANGE_PCT %: $(cut -d' ' -f1 "$OUT/changes.txt" | sort | uniq -c | awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $2, $1}'))"
fi
cp --sparse=always "$IMG" "$MIMG"
LOOP=$(losetup -f --show "$MIMG")
mount -o ro "$LOOP" "$MNT"
echo "shape: $SHAPE"

CASES=(incr full)
TOOLS=(send-v1 send-v2c volctl volctl-online)

# run CASE TOOL N: one timed run; "wall cpu rss" to stdout, the command's
# output in $OUT/CASE.TOOL.N.out
run() {
	local c=$1 tool=$2 tf=$OUT/$1.$2.$3.time of=$OUT/$1.$2.$3.out t0 t1
	local p=() po=() proto=()
	if [ "$c" = incr ]; then p=(-p "$MNT/A"); po=(-p /A); fi
	case $tool in
	send-v1 | send-v2c)
		[ "$tool" = send-v1 ] || proto=(--proto 2 --compressed-data)
		t0=$EPOCHREALTIME
		/usr/bin/time -f '%e %U %S %M' -o "$tf" bash -c \
			"/usr/bin/time -f '%M' -o '$tf.send' btrfs send -q ${proto[*]} ${p[*]} '$MNT/B' |
			 /usr/bin/time -f '%M' -o '$tf.wc' wc -c" >"$of"
		t1=$EPOCHREALTIME
		;;
	volctl)
		t0=$EPOCHREALTIME
		/usr/bin/time -f '%e %U %S %M' -o "$tf" \
			"$VOLCTL" --image "$IMG" subvolume send-size "${po[@]}" /B >"$of"
		t1=$EPOCHREALTIME
		;;
	volctl-online)
		t0=$EPOCHREALTIME
		/usr/bin/time -f '%e %U %S %M' -o "$tf" \
			"$VOLCTL" subvolume send-size "${p[@]}" "$MNT/B" >"$of"
		t1=$EPOCHREALTIME
		;;
	esac
	local wall user sys rss
	read -r wall user sys rss <"$tf"
	wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.4f", b - a}')
	if [ -f "$tf.send" ]; then
		rss=$(cat "$tf.send" "$tf.wc" | sort -n | tail -n 1)
		rm -f "$tf.send" "$tf.wc"
	fi
	echo "$wall $(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}') $rss"
}

# the warm-up (not counted)
for c in "${CASES[@]}"; do
	for t in "${TOOLS[@]}"; do run "$c" "$t" 0 >/dev/null; done
done

LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
declare -A WALL CPU RSS
ALL=()
for c in "${CASES[@]}"; do for t in "${TOOLS[@]}"; do ALL+=("$c $t"); done; done
for r in $(seq 1 "$RUNS"); do
	order=("${ALL[@]}")
	if [ $((r % 2)) -eq 0 ]; then
		order=()
		for ((i = ${#ALL[@]} - 1; i >= 0; i--)); do order+=("${ALL[$i]}"); done
	fi
	for ct in "${order[@]}"; do
		read -r c t <<<"$ct"
		read -r w cpu m < <(run "$c" "$t" "$r")
		WALL[$c.$t]+="$w "
		CPU[$c.$t]+="$cpu "
		RSS[$c.$t]+="$m "
		echo "run $r $c $t: wall $w s, cpu $cpu s, rss $m KiB"
	done
done
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)

# the byte counts: the kernel's (wc -c) against volctl's, every run
status=0
CHECK=()
for c in "${CASES[@]}"; do
	for v in v1 v2c; do
		k=$(sort -u "$OUT/$c.send-$v".[0-9]*.out | paste -sd' ')
		[[ $k != *" "* ]] || k="(varies: $k)"
		for t in volctl volctl-online; do
			if [ "$v" = v1 ]; then pat='v1'; else pat='v2 compressed'; fi
			got=$(sed -n "s/^$pat: \([0-9]*\) bytes.*/\1/p" "$OUT/$c.$t".[0-9]*.out | sort -u | paste -sd' ')
			verdict=equal
			[ "$got" = "$k" ] || { verdict=DIFFER; status=1; }
			CHECK+=("$(printf '%-5s %-4s %-14s kernel %-12s volctl %-12s %s' "$c" "$v" "$t" "$k" "$got" "$verdict")")
		done
	done
done

median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.3f", a / b; else print "-"}'; }
res=$HERE/bench/results/send-size-$(date -u +%Y%m%dT%H%M%SZ).txt
{
	echo "subvolume send-size, $(date -u +%F), $(nproc) CPUs, kernel $(uname -r), $(btrfs --version), $RUNS runs, medians"
	echo "volctl: tree $(git -C "$HERE" rev-parse --short HEAD 2>/dev/null || echo '?'), code last changed in $(git -C "$HERE" log -1 --format=%h -- kernel-shared cmds common 2>/dev/null || echo '?'); load average $LOAD0 before the runs, $LOAD1 after"
	echo "shape: $SHAPE"
	printf '%-5s %-14s %10s %10s %10s %14s %14s\n' case tool wall_s cpu_s rss_KiB "wall/send v1,v2c" "cpu/send v1,v2c"
	for c in "${CASES[@]}"; do
		w1=$(median <<<"${WALL[$c.send-v1]}"); c1=$(median <<<"${CPU[$c.send-v1]}")
		w2=$(median <<<"${WALL[$c.send-v2c]}"); c2=$(median <<<"${CPU[$c.send-v2c]}")
		for t in "${TOOLS[@]}"; do
			w=$(median <<<"${WALL[$c.$t]}")
			cpu=$(median <<<"${CPU[$c.$t]}")
			rw=- rc=-
			case $t in volctl*)
				rw="$(ratio "$w" "$w1"),$(ratio "$w" "$w2")"
				rc="$(ratio "$cpu" "$c1"),$(ratio "$cpu" "$c2")"
			esac
			printf '%-5s %-14s %10s %10s %10s %16s %16s\n' "$c" "$t" "$w" "$cpu" \
				"$(median <<<"${RSS[$c.$t]}")" "$rw" "$rc"
		done
	done
	echo "byte counts (every run):"
	printf '  %s\n' "${CHECK[@]}"
} | tee "$res"
exit $status
