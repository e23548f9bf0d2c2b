# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Sourced by sendsize-full.sh and sendsize-incr.sh: one case of volctl's
# send-size against the kernel's byte counts.
#
#   sendsize_case HEAD K1 K2 ARGS...
# runs `$VOLCTL --image $IMG --format json subvolume send-size ARGS...` (its
# stderr in $W/volctl.err) and prints
#   HEAD v1 K1 VOLCTL v2c K2 VOLCTL ok|DIFFER
#   HEAD v1 K1 - v2c K2 - REFUSED: message
# Return: 0 equal, 1 a difference, 3 a refusal.

sendsize_case() {
	local head=$1 k1=$2 k2=$3 out v1 v2
	shift 3
	if ! out=$("$VOLCTL" --image "$IMG" --format json subvolume send-size "$@" 2>"$W/volctl.err"); then
		echo "$head v1 $k1 - v2c $k2 - REFUSED: $(cat "$W/volctl.err")"
		return 3
	fi
	read -r v1 v2 < <(echo "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin)["subvolume_send_size"]; print(d["v1"]["total"], d["v2c"]["total"])')
	if [ "$v1" != "$k1" ] || [ "$v2" != "$k2" ]; then
		echo "$head v1 $k1 $v1 v2c $k2 $v2 DIFFER"
		return 1
	fi
	echo "$head v1 $k1 $v1 v2c $k2 $v2 ok"
}
