#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Run volctl under valgrind's memcheck on the committed fixture images: every
# read-only command of tests/fixtures/commands.list, check, the dumps, and a
# few offline writes on a copy.  Prints one line per run that valgrind
# flagged (with the first lines of its report) and a closing line
#   valgrind: N runs, N flagged
# and exits 1 if any run was flagged.
#
#   fixtures.sh VOLCTL SCRATCH [FIXTURE...]    (default: every committed one)
#   QUICK=1     only the first 8 commands of commands.list per fixture
set -u
volctl=${1:?usage: fixtures.sh VOLCTL SCRATCH [FIXTURE...]}
scratch=${2:?usage: fixtures.sh VOLCTL SCRATCH [FIXTURE...]}
shift 2
here=$(cd "$(dirname "$0")/.." && pwd)
fx=$here/fixtures
mkdir -p "$scratch"
if [ $# -eq 0 ]; then
	set -- $(cd "$fx" && ls -- *.img.zst | sed -n 's/\.img\.zst$//p' | grep -v '\.dev[0-9]*$')
fi
# --errors-for-leak-kinds=definite: a run that ends with memory still
# reachable (the process exits) is not a finding; a lost block is
vg=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite
    --show-leak-kinds=definite)
runs=0 flagged=0

# vg_run LABEL ARGS...: run volctl ARGS under valgrind; exit status other
# than 99 is the command's own business
vg_run() {
	local label=$1 log=$scratch/vg.log rc=0
	shift
	"${vg[@]}" --log-file="$log" "$volctl" "$@" >/dev/null 2>&1 || rc=$?
	runs=$((runs + 1))
	# valgrind notes ioctls it cannot model; that note is no finding
	if [ "$rc" -eq 99 ] || grep -v -e 'unhandled ioctl' -e 'spurious value errors' \
		-e 'README_MISSING_SYSCALL' "$log" | grep -q '=='; then
		flagged=$((flagged + 1))
		echo "FLAGGED: $label: volctl $*"
		grep -v -e 'unhandled ioctl' -e 'spurious value' -e 'README_MISSING' "$log" | head -20
	fi
}

for name in "$@"; do
	imgs=() img=
	for z in "$fx/$name".img.zst "$fx/$name".dev*.img.zst; do
		[ -e "$z" ] || continue
		f=$scratch/$(basename "$z" .zst)
		zstd -q -d -f "$z" -o "$f" || exit 2
		[ -n "$img" ] || img=$f
		imgs+=(--image "$f")
	done
	n=0
	while IFS= read -r line; do
		case $line in '#'*|'') continue ;; esac
		n=$((n + 1))
		[ -n "${QUICK:-}" ] && [ "$n" -gt 8 ] && break
		args=${line#*|}
		args=${args//@/}
		# shellcheck disable=SC2086
		vg_run "$name/${line%%|*}" "${imgs[@]}" $args
	done <"$fx/commands.list"
	vg_run "$name/check" check "${imgs[@]/--image/}"
	vg_run "$name/inspect-super" inspect super "$img"
	vg_run "$name/inspect-tree" inspect tree -t root "$img"
	vg_run "$name/compute" "${imgs[@]}" qgroup show --compute /
	vg_run "$name/dry-run" "${imgs[@]}" subvolume delete --dry-run -R /a
	vg_run "$name/space" "${imgs[@]}" subvolume space /
	# writes, on the decompressed copy
	vg_run "$name/create" "${imgs[@]}" subvolume create /vg-new
	vg_run "$name/snapshot" "${imgs[@]}" subvolume snapshot / /vg-snap
	vg_run "$name/qgroup-create" "${imgs[@]}" qgroup create 1/4242 /
	vg_run "$name/delete" "${imgs[@]}" subvolume delete /vg-snap /vg-new
	vg_run "$name/check-after" check "${imgs[@]/--image/}"
	rm -f "$scratch/$name".*img
done
vg_run mkfs mkfs --quota -s 256M --subvol /a --subvol /b --default-subvol /a "$scratch/mkfs.img"
rm -f "$scratch/mkfs.img" "$scratch/vg.log"
echo "valgrind: $runs runs, $flagged flagged"
[ "$flagged" -eq 0 ]
