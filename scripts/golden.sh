#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Record what volctl prints, offline, on every committed fixture: stdout,
# stderr and the exit code of every commands.list line (text and JSON), of
# check, the dumps, the reports (dry-run, space, headroom, prune, compute),
# odd paths and bad input, and of a sequence of writes on a copy followed by
# the listings and check of the result.  Two records of two builds compared
# with `diff -r` show whether a change kept the behaviour byte for byte.
#
#   scripts/golden.sh VOLCTL OUTDIR [FIXTURE...]   (default: every fixture)
#
# What writes make new (UUIDs, times) is written as @UUID and @TIME in the
# records of the writes, so two runs compare.
set -u
volctl=$(realpath "${1:?usage: golden.sh VOLCTL OUTDIR [FIXTURE...]}")
out=${2:?usage: golden.sh VOLCTL OUTDIR [FIXTURE...]}
shift 2
here=$(cd "$(dirname "$0")/.." && pwd)
fx=$here/tests/fixtures
mkdir -p "$out"
out=$(realpath "$out")
scratch=$(mktemp -d /tmp/golden.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
if [ $# -eq 0 ]; then
	set -- $(cd "$fx" && ls -- *.img.zst | sed -n 's/\.img\.zst$//p' | grep -v '\.dev[0-9]*$')
fi
export TZ=UTC LC_ALL=C

# rec DIR LABEL ARGS...: run volctl ARGS; DIR/LABEL.{out,err,rc}, the
# scratch directory written as @SCRATCH so two runs compare
rec() {
	local dir=$1 label=$2 rc=0
	shift 2
	"$volctl" "$@" >"$dir/$label.out" 2>"$dir/$label.err" </dev/null || rc=$?
	echo "$rc" >"$dir/$label.rc"
	sed -i "s|$scratch|@SCRATCH|g" "$dir/$label.out" "$dir/$label.err"
	# what writes make new: UUIDs and times
	case $dir in */w|*/mkfs)
		sed -i -E -e 's/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/@UUID/g' \
			-e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9]{2}:[0-9]{2}:[0-9]{2}/@TIME/g' \
			-e 's/[0-9]+ blocks verified/@N blocks verified/' \
			-e 's/"(otime|ctime|time)": ?[0-9]+/"\1": @T/g' \
			"$dir/$label.out" "$dir/$label.err" ;;
	esac
}

for name in "$@"; do
	d=$out/$name
	mkdir -p "$d"
	imgs=() img= plain=()
	for z in "$fx/$name".img.zst "$fx/$name".dev*.img.zst; do
		[ -e "$z" ] || continue
		f=$scratch/$(basename "$z" .zst)
		zstd -q -d -f "$z" -o "$f" || exit 2
		[ -n "$img" ] || img=$f
		imgs+=(--image "$f")
		plain+=("$f")
	done
	while IFS= read -r line; do
		case $line in '#'*|'') continue ;; esac
		label=${line%%|*}
		args=${line#*|}
		args=${args//@/}
		# shellcheck disable=SC2086
		rec "$d" "$label" "${imgs[@]}" $args
		case $args in *--format*) ;; *)
			# shellcheck disable=SC2086
			rec "$d" "$label.json" "${imgs[@]}" --format json $args ;;
		esac
	done <"$fx/commands.list"
	rec "$d" check check "${plain[@]}"
	rec "$d" check.json --format json check "${plain[@]}"
	rec "$d" check-qg check --qgroup-report "${plain[@]}"
	rec "$d" check-show check --show "${plain[@]}"
	rec "$d" inspect-super inspect super "$img"
	rec "$d" inspect-super.json --format json inspect super "$img"
	for t in root extent chunk fs quota csum free-space dev uuid; do
		rec "$d" "inspect-tree-$t" inspect tree -t "$t" "${plain[@]}"
	done
	rec "$d" inspect-tree-walk inspect tree --walk-only "${plain[@]}"
	rec "$d" inspect-tree.json --format json inspect tree -t root "${plain[@]}"
	rec "$d" compute "${imgs[@]}" qgroup show --compute /
	rec "$d" compute.json "${imgs[@]}" --format json qgroup show --compute -pcre /
	for p in / /a /snap-a; do
		l=${p//\//_}
		rec "$d" "dry-run$l" "${imgs[@]}" subvolume delete --dry-run -R "$p"
		rec "$d" "dry-run$l.json" "${imgs[@]}" --format json subvolume delete --dry-run -R "$p"
		rec "$d" "headroom$l" "${imgs[@]}" qgroup headroom "$p"
		rec "$d" "headroom$l.json" "${imgs[@]}" --format json qgroup headroom "$p"
		rec "$d" "headroom-c$l" "${imgs[@]}" qgroup headroom --compute --raw "$p"
		rec "$d" "space$l" "${imgs[@]}" subvolume space -a -s "$p"
		rec "$d" "space$l.json" "${imgs[@]}" --format json subvolume space -a "$p"
		rec "$d" "prune$l" "${imgs[@]}" subvolume prune --dry-run --keep-last 1 "$p"
		rec "$d" "prune$l.json" "${imgs[@]}" --format json subvolume prune --dry-run --keep-last 1 "$p"
		rec "$d" "prune-free$l" "${imgs[@]}" subvolume prune --dry-run --free 1M --raw "$p"
	done
	rec "$d" dry-run-multi "${imgs[@]}" subvolume delete --dry-run /a /b /snap-a
	rec "$d" dry-run-id "${imgs[@]}" subvolume delete --dry-run -i 257 /
	rec "$d" clear-stale-dry "${imgs[@]}" qgroup clear-stale --dry-run /
	# odd paths, read side
	for p in //a /a/ /a// /./a /a/. /a/dir/.. /a/../a /b/../a/dir/nested \
		/a/dir/nested/ /nonexistent /a/nonexistent / // /.. a '' \
		/d1//d2/d3/d4/d5/deep/ /snaps/../snaps/ro-snap-snap; do
		l=$(printf '%s' "$p" | od -An -tx1 | tr -d ' \n')
		rec "$d" "odd-show-$l" "${imgs[@]}" subvolume show "$p"
		rec "$d" "odd-list-$l" "${imgs[@]}" subvolume list -o "$p"
		rec "$d" "odd-qgshow-$l" "${imgs[@]}" qgroup show -f "$p"
		rec "$d" "odd-dry-$l" "${imgs[@]}" subvolume delete --dry-run "$p"
		rec "$d" "odd-space-$l" "${imgs[@]}" subvolume space "$p"
	done
	# bad input
	rec "$d" bad-qgid "${imgs[@]}" qgroup show --sort=nope /
	rec "$d" bad-limit "${imgs[@]}" qgroup limit 12Q /a
	rec "$d" bad-assign "${imgs[@]}" qgroup assign 0/5 0/5 /
	rec "$d" bad-destroy "${imgs[@]}" qgroup destroy 1/999 /
	rec "$d" bad-snap "${imgs[@]}" subvolume snapshot /nonexistent /x
	rec "$d" bad-create "${imgs[@]}" subvolume create /a
	rec "$d" bad-delete "${imgs[@]}" subvolume delete /nonexistent
	rec "$d" bad-setdef "${imgs[@]}" subvolume set-default 9999 /
	# writes on the copy, then what they made
	w=$d/w
	mkdir -p "$w"
	rec "$w" 01-create "${imgs[@]}" subvolume create /g-new
	rec "$w" 02-create-nested "${imgs[@]}" subvolume create /a/g-inner
	rec "$w" 03-create-odd "${imgs[@]}" subvolume create //b/../g-odd/
	rec "$w" 04-snapshot "${imgs[@]}" subvolume snapshot / /g-snap
	rec "$w" 05-snapshot-ro "${imgs[@]}" subvolume snapshot -r /a /snaps/g-ro
	rec "$w" 06-snapshot-into "${imgs[@]}" subvolume snapshot /a /b
	rec "$w" 07-snapshot-odd "${imgs[@]}" subvolume snapshot /a/ /b/../g-odd2
	rec "$w" 08-qg-create "${imgs[@]}" qgroup create 1/4242 /
	rec "$w" 09-qg-assign "${imgs[@]}" qgroup assign 0/256 1/4242 /
	rec "$w" 10-qg-limit "${imgs[@]}" qgroup limit 10M 1/4242 /
	rec "$w" 11-qg-limit-e "${imgs[@]}" qgroup limit -e 5M /a
	rec "$w" 12-qg-remove "${imgs[@]}" qgroup remove 0/256 1/4242 /
	rec "$w" 13-setdef "${imgs[@]}" subvolume set-default /a
	rec "$w" 14-getdef "${imgs[@]}" subvolume get-default /
	rec "$w" 15-setdef-back "${imgs[@]}" subvolume set-default 5 /
	rec "$w" 16-delete "${imgs[@]}" subvolume delete /g-new /a/g-inner
	rec "$w" 17-delete-qg "${imgs[@]}" subvolume delete --delete-qgroup /g-snap
	rec "$w" 18-delete-R "${imgs[@]}" subvolume delete -R /g-odd
	rec "$w" 19-qg-destroy "${imgs[@]}" qgroup destroy 1/4242 /
	rec "$w" 20-clear-stale "${imgs[@]}" qgroup clear-stale /
	rec "$w" 21-prune "${imgs[@]}" subvolume prune --keep-last 1 --force /a
	rec "$w" 22-quota-rescan "${imgs[@]}" quota rescan -w /
	rec "$w" 23-quota-disable "${imgs[@]}" quota disable /
	rec "$w" 24-quota-enable "${imgs[@]}" quota enable /
	rec "$w" 25-sync "${imgs[@]}" subvolume sync /
	rec "$w" 30-list "${imgs[@]}" subvolume list -a -p -u -q -R /
	rec "$w" 31-qgshow "${imgs[@]}" qgroup show -pcre --raw /
	rec "$w" 32-qgshow.json "${imgs[@]}" --format json qgroup show -pcre /
	rec "$w" 33-check check "${plain[@]}"
	rec "$w" 34-quota-status "${imgs[@]}" quota status /
	rm -f "$scratch/$name".*img
done
m=$out/mkfs
mkdir -p "$m"
U=11111111-2222-3333-4444-555555555555
rec "$m" mkfs mkfs -U "$U" --quota -s 256M --subvol /a --subvol /a/b --subvol /c --default-subvol /a "$scratch/m.img"
rec "$m" mkfs-list --image "$scratch/m.img" subvolume list -a -p -u /
rec "$m" mkfs-qg --image "$scratch/m.img" qgroup show -pcre --raw /
rec "$m" mkfs-check check "$scratch/m.img"
rec "$m" mkfs-again mkfs -U "$U" "$scratch/m.img"
rec "$m" mkfs-squota mkfs -f -U "$U" --simple-quota -s 256M --subvol //x/ --subvol /x/y/../z "$scratch/m.img"
rec "$m" mkfs-squota-list --image "$scratch/m.img" subvolume list -a /
rec "$m" mkfs-bad-subvol mkfs -f -U "$U" --subvol relative "$scratch/m2.img"
rec "$m" mkfs-bad-default mkfs -f -U "$U" --subvol /a --default-subvol /b "$scratch/m2.img"
rec "$m" mkfs-bad-size mkfs -f -s 1K "$scratch/m2.img"
rec "$m" mkfs-bad-csum mkfs -f --csum md5 "$scratch/m2.img"
rec "$m" usage-none
rec "$m" usage-bad nope
rec "$m" usage-sv subvolume
rec "$m" usage-sv-bad subvolume nope
rec "$m" usage-qg-help qgroup help
for g in subvolume quota qgroup inspect; do
	for c in $("$volctl" "$g" help 2>&1 | sed -n 's/^  \([a-z-]*\) .*/\1/p'); do
		rec "$m" "help-$g-$c" "$g" "$c" --help
		rec "$m" "noargs-$g-$c" "$g" "$c"
	done
done
rec "$m" help-mkfs mkfs --help
rec "$m" help-check check --help
echo "golden: $(find "$out" -name '*.rc' | wc -l) runs recorded in $out"
