#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Moves the files of common/ into its parts (common/README.md) and rewrites
# every reference to them: #include "common/...", the Makefile's wildcard,
# file names in comments, tests/check-api.sh's lists.  Run from anywhere in
# the checkout; idempotent (a second run changes nothing).  It stops before
# moving anything when common/ holds a .c or .h that the table below does
# not name: add a line "old-name part/new-name" for it to TABLE.
set -euo pipefail
cd "$(dirname "$0")/.."

# old name (in common/) -> new path (under common/); written once, here.
# Names not (yet) in the tree are skipped: facts.[ch] is i20-facts' API.
TABLE='
config.h		util/config.h
messages.c		util/messages.c
messages.h		util/messages.h
parse-utils.c		util/parse-utils.c
parse-utils.h		util/parse-utils.h
path-utils.c		util/path-utils.c
path-utils.h		util/path-utils.h
units.c			util/units.c
units.h			util/units.h
clock.c		util/clock.c
clock.h		util/clock.h
retention.c		util/retention.c
retention.h		util/retention.h
quota-types.h		util/quota-types.h
image.c			image/image.c
image.h			image/image.h
image-handle.h		image/image-handle.h
storage.c		image/storage.c
storage.h		image/storage.h
test-io.c		image/test-io.c
test-io.h		image/test-io.h
offline-run.c		image/offline-run.c
offline-run.h		image/offline-run.h
offline-walk.c		image/offline-walk.c
offline.h		image/offline-walk.h
output.c		output/output.c
output.h		output/output.h
kvout.c			output/kvout.c
kvout.h			output/kvout.h
record.c		output/record.c
record.h		output/record.h
records.c		output/records.c
records.h		output/records.h
records-inspect.c	output/records-inspect.c
records-inspect.h	output/records-inspect.h
qgroup-out.c		output/qgroup-out.c
qgroup-out.h		output/qgroup-out.h
records-text.c		output/records-text.c
offline-dump.c		output/offline-dump.c
offline-dump.h		output/offline-dump.h
offline-dump-items.c	output/offline-dump-items.c
backend.c		backend/backend.c
backend.h		backend/backend.h
facts.c			backend/facts.c
facts.h			backend/facts.h
facts-qgroup.c		backend/facts-qgroup.c
facts-qgroup.h		backend/facts-qgroup.h
subvol-plan.c		backend/subvol-plan.c
subvol-plan.h		backend/subvol-plan.h
online.c		backend/online.c
online-acct.c		backend/online-acct.c
online-delete.c		backend/online-delete.c
online-qgroup.c		backend/online-qgroup.c
online-internal.h	backend/online-internal.h
offline.c		backend/offline.c
offline-write-qgroup.c	backend/offline-write-qgroup.c
offline-write-qgroup.h	backend/offline-write-qgroup.h
offline-write-subvol.c	backend/offline-write-subvol.c
offline-write-subvol.h	backend/offline-write-subvol.h
acct-run.c		backend/acct-run.c
acct-run.h		backend/acct-run.h
offline-check.c		tool/offline-check.c
offline-check.h		tool/offline-check.h
offline-mkfs.c		tool/offline-mkfs.c
offline-mkfs.h		tool/offline-mkfs.h
offline-inspect.c	tool/offline-inspect.c
offline-inspect.h	tool/offline-inspect.h
qgroup-state.c	tool/qgroup-state.c
qgroup-state.h	tool/qgroup-state.h
rootdir.c	tool/rootdir.c
rootdir.h	tool/rootdir.h
rootdir-internal.h	tool/rootdir-internal.h
rootdir-write.c	tool/rootdir-write.c
'

declare -A NEW
while read -r old new; do
	[ -n "$old" ] && NEW[$old]=$new
done <<<"$TABLE"

# 1. every .c/.h directly in common/ must be in the table
unknown=
for f in common/*.c common/*.h; do
	[ -e "$f" ] || continue
	b=${f#common/}
	[ -n "${NEW[$b]:-}" ] || unknown="$unknown $f"
done
if [ -n "$unknown" ]; then
	echo "move-common: not in the table of scripts/move-common.sh:$unknown" >&2
	echo "move-common: add a line 'NAME PART/NAME' to TABLE (parts: common/README.md)" >&2
	echo "move-common: nothing moved" >&2
	exit 1
fi

# 2. the moves
moved=0
for old in "${!NEW[@]}"; do
	new=${NEW[$old]}
	[ -e "common/$old" ] || continue
	mkdir -p "common/$(dirname "$new")"
	git mv "common/$old" "common/$new"
	moved=$((moved + 1))
done

# 3. the references: "common/OLD" (not followed by a name character) ->
# "common/NEW", in every tracked text file but this script and the golden
# records; and the Makefile's and check-api.sh's common/*.c lists.
sedargs=()
for old in "${!NEW[@]}"; do
	re=${old//./\\.}
	sedargs+=(-e "s#\\bcommon/$re\\(\\.\\?[^-./A-Za-z0-9_]\\|\\.\\?\$\\)#common/${NEW[$old]}\\1#g")
done
sedargs+=(-e 's#wildcard common/\*\.c#wildcard common/*/*.c#g')
sedargs+=(-e 's#\([ (]\)common/\*\.\([ch]\b\|\[ch\]\)#\1common/*/*.\2#g')
changed=0
while IFS= read -r -d '' f; do
	case "$f" in
	scripts/move-common.sh|tests/golden/*|*.img|*.gz|*.png) continue ;;
	esac
	[ -f "$f" ] || continue
	grep -Iq . "$f" 2>/dev/null || continue
	grep -q 'common/' "$f" || continue
	sed "${sedargs[@]}" "$f" >"$f.mc-tmp"
	if cmp -s "$f" "$f.mc-tmp"; then
		rm -f "$f.mc-tmp"
	else
		cat "$f.mc-tmp" >"$f"
		rm -f "$f.mc-tmp"
		changed=$((changed + 1))
	fi
done < <(git ls-files -z)
echo "move-common: $moved files moved, $changed files rewritten"
