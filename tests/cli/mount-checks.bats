#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Images kernel 6.18 refuses to mount for reasons outside its tree-checker:
# every command refuses them when it opens the image (exit 1, one error line
# naming the problem), so no offline write touches a byte.  From btrfs-progs'
# tests/fsck-tests (GPL-2.0, as volctl), with what `mount -o ro` on a loop
# device logs:
#
#   refused/fsck-028.img.zst       028-unaligned-super-dev-sizes: superblock
#       total_bytes 134217728, the DEV_ITEM 134219776 ("super_total_bytes
#       134217728 mismatch with fs_devices total_rw_bytes 134219776")

load ../helpers
load ../fixtures/fixture-helpers

BAD028='superblock: total_bytes 134217728 is smaller than the 134219776 bytes of its devices'

# every command refuses the image at open with $WANT: check, the offline
# writes and a read; not a byte changed
all_refused() {
	local c before
	before=$(image_sum)
	refused_msg check "$IMG"
	refused_msg check --qgroup-report "$IMG"
	refused_msg check --repair-qgroups "$IMG"
	for c in "quota enable /" "quota enable --simple /" "quota rescan /" "quota disable /" \
		 "qgroup create 1/1 /" "qgroup limit 1G 0/5 /" "qgroup clear-stale /" \
		 "subvolume create /new" "subvolume create -p /a/b" "subvolume snapshot / /snap" \
		 "subvolume set-default 5 /" "subvolume delete /nothing" "subvolume list /"; do
		# shellcheck disable=SC2086
		refused_msg --image "$IMG" $c || return 1
	done
	[ "$(image_sum)" = "$before" ] || { echo "the image changed" >&2; return 1; }
}

# the filesystem as it was: the reason of the refusal must be our check
check_passes_without() {
	run_volctl check "$IMG"
	assert_status 0
}

@test "mount checks: fsck-tests 028, superblock total_bytes below the device's" {
	fixture refused/fsck-028
	WANT=$BAD028
	all_refused
	# the same image with total_bytes raised to the device's size passes
	python3 "$FIXTURES/corrupt.py" "$IMG" set $((65536 + 112)) 8 134219776
	python3 "$FIXTURES/corrupt.py" "$IMG" csum 65536 4096
	python3 "$FIXTURES/corrupt.py" "$IMG" set $((67108864 + 112)) 8 134219776
	python3 "$FIXTURES/corrupt.py" "$IMG" csum 67108864 4096
	check_passes_without
}
