#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# sendsize.sh OLD NEW [BTRFS...]: the reference numbers of `volctl subvolume
# send-size`: the bytes `btrfs send` writes for NEW, full and incremental
# (-p OLD), with protocol 1 and with --proto 2 --compressed-data, through
# each BTRFS (default: btrfs in PATH, Debian's 6.2, and /work/progs619/btrfs
# when it is there).  One line per number:
#   sendsize: BTRFS_VERSION full|incremental v1|v2c BYTES
# then "sendsize: equal across tools" or "sendsize: DIFFER ..." (the stream
# is the kernel's: every tool must write the same bytes).  A tool without
# --proto/--compressed-data, or a kernel without stream version 2 (see
# /sys/fs/btrfs/features/send_stream_version), gives "v2c unsupported".
# Exit 0, 1 when the tools differ, 2 when a send fails.
set -u
[ $# -ge 2 ] || { sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; exit 2; }
OLD=$1 NEW=$2
shift 2
TOOLS=("$@")
if [ ${#TOOLS[@]} -eq 0 ]; then
	TOOLS=(btrfs)
	[ -x /work/progs619/btrfs ] && TOOLS+=(/work/progs619/btrfs)
fi
kver=$(cat /sys/fs/btrfs/features/send_stream_version 2>/dev/null || echo 1)
ERR=$(mktemp "${TMPDIR:-/tmp}/sendsize.XXXXXX")
trap 'rm -f "$ERR"' EXIT
rc=0
declare -A first
for b in "${TOOLS[@]}"; do
	ver=$("$b" --version 2>/dev/null | sed -n '1s/.* v//p')
	v2=1
	"$b" send --help 2>&1 | grep -q -- '--compressed-data' || v2=0
	[ "$kver" -ge 2 ] || v2=0
	for mode in full incremental; do
		par=()
		[ $mode = incremental ] && par=(-p "$OLD")
		for proto in v1 v2c; do
			opt=()
			if [ $proto = v2c ]; then
				if [ $v2 -eq 0 ]; then
					echo "sendsize: $ver $mode $proto unsupported"
					continue
				fi
				opt=(--proto 2 --compressed-data)
			fi
			n=$( { "$b" send -q "${opt[@]}" "${par[@]}" "$NEW" || echo FAIL >&2; } 2>"$ERR" | wc -c)
			if [ -s "$ERR" ]; then
				echo "sendsize: $ver $mode $proto send failed: $(tr '\n' ' ' <"$ERR")"
				rc=2
				continue
			fi
			echo "sendsize: $ver $mode $proto $n"
			k="$mode $proto"
			if [ -z "${first[$k]:-}" ]; then
				first[$k]=$n
			elif [ "${first[$k]}" != "$n" ]; then
				echo "sendsize: DIFFER $k: ${first[$k]} and $n ($b)"
				[ $rc -eq 0 ] && rc=1
			fi
		done
	done
done
[ $rc -eq 0 ] && echo "sendsize: equal across tools"
exit $rc
