#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# kernel-shared/ is a library: no printing, no exit, no getopt, nothing from
# common/ or cmds/.  Dependencies point one way: cmds/ -> common/ -> kernel-shared/,
# and cmds/ see of kernel-shared/ only a listed few headers of plain types.
# Tests: no bare "! cmd" line and no "[ a ] && [ b ]" line in a bats file.
# Nowhere a global sync: only the filesystem under test is flushed.
set -u
cd "$(dirname "$0")/.."
bad=0
check() {
	local what=$1 pattern=$2; shift 2
	local hits
	hits=$(grep -nE "$pattern" "$@" 2>/dev/null | grep -v '^\S*:[0-9]*:\s*\*' | grep -v '//.*api-ok')
	if [ -n "$hits" ]; then
		echo "check-api: $what:"
		echo "$hits"
		bad=1
	fi
}
ks=$(ls kernel-shared/*.c kernel-shared/*.h 2>/dev/null | grep -v 'gen-')
check "printing in kernel-shared/" '\b(printf|fprintf|puts|fputs|perror|putchar)\s*\(' $ks
check "exit/abort in kernel-shared/" '\b(exit|_exit|abort)\s*\(' $ks
check "getopt in kernel-shared/" '\bgetopt' $ks
# Layers of kernel-shared/ (the table in kernel-shared/README.md): a file
# includes and calls only its own layer or lower ones.  Parts of common/
# (the table in common/README.md): a part, cmds/ and volctl.c include and
# call only the parts their row allows.
if ! layers=$(python3 scripts/callgraph.py --check); then
	echo "check-api: kernel-shared/ layers (kernel-shared/README.md) or common/ parts (common/README.md):"
	echo "${layers:-scripts/callgraph.py failed}"
	bad=1
fi
check "kernel-shared/ includes common/ or cmds/" '#include\s+"(common|cmds)/' $ks
# kernel-shared/ uses libc (pthread included), libuuid, libxxhash, libsodium, zlib, liblzo2 and
# libzstd only (kernel-shared/README.md): a system header is libc's, the
# kernel's, the compiler's, or one of those libraries'
ks_libs='uuid/uuid\.h|xxhash\.h|sodium\.h|zlib\.h|zstd\.h|zstd_errors\.h|lzo/lzo1x\.h'
ks_libc='(assert|ctype|endian|errno|fcntl|inttypes|limits|pthread|stdarg|stdbool|stddef|stdint|stdio|stdlib|string|time|unistd)\.h|sys/[a-z]+\.h|linux/[a-z_]+\.h|[a-z]+intrin\.h'
hits=$(grep -nE '^\s*#\s*include\s*<' $ks | grep -vE "<($ks_libc|$ks_libs)>")
if [ -n "$hits" ]; then
	echo "check-api: kernel-shared/ includes a library README does not name:"
	echo "$hits"
	bad=1
fi
check "common/ includes cmds/" '#include\s+"cmds/' common/*/*.c common/*/*.h
# cmds/ are thin (parse, call common/, print): they include common/ headers
# and, of kernel-shared/, only these headers of plain types and records (the
# list is written here once); everything else goes through a common/ API.
cmds_kshared_ok="format.h subvol-list.h"
hits=$(for f in cmds/*.c cmds/*.h; do
	grep -nE '^\s*#\s*include\s+"kernel-shared/' "$f" | while IFS= read -r hit; do
		h=${hit#*kernel-shared/}
		h=${h%%\"*}
		case " $cmds_kshared_ok " in
		*" $h "*) ;;
		*) echo "$f:${hit%%:*}: kernel-shared/$h (cmds/ may include only: $cmds_kshared_ok)" ;;
		esac
	done
done)
if [ -n "$hits" ]; then
	echo "check-api: cmds/ includes a kernel-shared/ header outside its list:"
	echo "$hits"
	bad=1
fi
# Commands ask common/backend/facts.h (answered by both backends) and never build a
# B-tree key or search themselves: no struct btrfs_key, no item source, no
# search call (btrfs_item_source_search, btrfs_tree_search*, ->tree_search,
# btrfs_subvol_list_load: load the subvolumes with vc_facts_subvols()).
check "a B-tree key or search in cmds/ (ask common/backend/facts.h)" \
	'\bstruct\s+btrfs_(key|item_source)\b|\b(btrfs_item_source_search|btrfs_tree_search\w*|vc_fs_item_source|btrfs_subvol_list_load|btrfs_default_subvol|btrfs_inode_path)\s*\(|->\s*tree_search\b' \
	cmds/*.c cmds/*.h
# The questions about qgroups (the list of a filesystem, the groups a qgroup
# counts in, what one stands for, the limits on writes into it) and the pure
# helpers on a loaded list are common/backend/facts-qgroup.h's: cmds/ call
# none of the functions that kernel-shared/qgroup-list.h declares (they see
# only its records, kernel-shared/qgroup-types.h); none is excepted.
qgroup_list_ok=""
qgroup_list_fns=$(grep -vE '^\s*(/?\*|#)' kernel-shared/qgroup-list.h |
	grep -oE '\bbtrfs_\w+\s*\(' | sed -E 's/\s*\($//' | sort -u)
qgroup_list_refused=$(for f in $qgroup_list_fns; do
	case " $qgroup_list_ok " in *" $f "*) ;; *) echo "$f" ;; esac
done | paste -sd'|')
if [ -z "$qgroup_list_refused" ]; then
	echo "check-api: no functions found in kernel-shared/qgroup-list.h"
	bad=1
else
	check "a kernel-shared/qgroup-list.c call in cmds/ (ask common/backend/facts-qgroup.h)" \
		"\\b($qgroup_list_refused)\\s*\\(" cmds/*.c cmds/*.h
fi
# No re-export of the library into cmds/: a common/ header that cmds/ include
# (directly or through other common/ headers) includes, of kernel-shared/,
# only the headers of plain types and records below.  The edges listed in
# cmds_reexport_debt exist today and are to go; a new one fails.
reexport_ok="format.h items.h itemsrc.h subvol-list.h"
# and the plain types of a library module, split from its functions
reexport_ok="$reexport_ok acct-types.h diff-types.h send-types.h fst-types.h qgroup-types.h super-types.h"
check "a function declared in a kernel-shared/ types header (plain types only: declare it in the module's header)" \
	'^(const |unsigned |struct |enum )*[a-z_][a-z0-9_]*[ *]+[a-z_][a-z0-9_]*\(' kernel-shared/*-types.h
cmds_reexport_debt=""
reached=$(grep -ohE '^\s*#\s*include\s+"common/[^"]+\.h"' cmds/*.c cmds/*.h | sed -E 's/.*"(.*)"/\1/' | sort -u)
todo=$reached
while [ -n "$todo" ]; do
	next=
	for h in $todo; do
		for n in $(grep -ohE '^\s*#\s*include\s+"common/[^"]+\.h"' "$h" 2>/dev/null |
			   sed -E 's/.*"(.*)"/\1/'); do
			case " $(echo $reached) " in
			*" $n "*) ;;
			*) reached="$reached $n"; next="$next $n" ;;
			esac
		done
	done
	todo=$next
done
hits=$(for h in $reached; do
	grep -nE '^\s*#\s*include\s+"kernel-shared/' "$h" | while IFS= read -r hit; do
		k=${hit#*kernel-shared/}
		k=${k%%\"*}
		case " $reexport_ok " in *" $k "*) continue ;; esac
		case " $(echo $cmds_reexport_debt) " in *" $h:$k "*) continue ;; esac
		echo "$h:${hit%%:*}: kernel-shared/$k reaches cmds/ (allowed: $reexport_ok)"
	done
done)
if [ -n "$hits" ]; then
	echo "check-api: a common/ header re-exports a kernel-shared/ header into cmds/:"
	echo "$hits"
	bad=1
fi
# one command file never includes another's source
check "a .c file includes another .c file" '#include\s+"[^"]*\.c"' cmds/*.[ch] common/*/*.[ch]
check "ioctl outside the online backend" '\bioctl\s*\(' cmds/*.c kernel-shared/*.c
# One printer per record: JSON keys and text labels are declared once, in
# the record descriptions of common/output/records.c and, for `volctl inspect`'s
# dumps, common/output/records-inspect.c (their naming rule is checked by
# tests/unit/test-records.c); elsewhere no JSON writer call, no key/value
# writer call and no dump writer call names a key or a label with a string
# literal (the dump writer's primitives are static in common/output/offline-dump.c;
# its containers take their names from a description too).
check "JSON key or label literal outside common/output/records.c (describe the record there)" \
	'(\b(json|kvout)_(str|u64|u64_set|s64|bool|null|uuid|time|size|item|object_open|array_open)|\bvc_dump_(u64|hex|str|bool|uuid|key|bytes|open|list_open))\s*\([^;]*"' \
	$(ls cmds/*.c common/*/*.c | grep -vxE 'common/(.+/)?(output|kvout|record|records|records-inspect)\.c')
# Column labels too: every table's header comes from a row description in
# common/output/records.c (REC_COL fields), never a literal where the table is
# printed.  A label that looks like a header (a capital or a space: "ID",
# "top level", "Max referenced") is literal nowhere else; in the table
# printers every label is, but for a line that says "not a column label"
# (a sort key or an option with the same name).  libsmartcols columns are
# named from a description as well.
row_labels=$(grep -E '^\s*(REC_COLX?|[A-Z]+_COL)\("[^"]' common/output/records.c |
	sed -E 's/^[^"]*"([^"]*)".*/\1/' | sort -u)
table_printers='common/output/qgroup-out.c cmds/subvolume-list.c cmds/subvolume-space.c'
label_re() {
	sed -e 's/[][\.*^$+?(){}|/]/\\&/g' -e 's/.*/"&"/' | paste -sd'|'
}
if [ -z "$row_labels" ]; then
	echo "check-api: no column labels found in common/output/records.c"
	bad=1
else
	check "header label literal outside common/output/records.c (name the column in its row description)" \
		"$(grep -E '[A-Z ]' <<<"$row_labels" | label_re)" \
		$(ls cmds/*.c common/*/*.c | grep -vxF common/output/records.c)
	hits=$(grep -nE "$(label_re <<<"$row_labels")" $table_printers |
	       grep -v '^\S*:[0-9]*:\s*\*' | grep -v 'not a column label')
	if [ -n "$hits" ]; then
		echo "check-api: column label literal in a table printer (take it from common/output/records.c):"
		echo "$hits"
		bad=1
	fi
fi
check "libsmartcols column named by a literal (name it in common/output/records.c)" \
	'\bscols_table_new_column\s*\([^;]*"' cmds/*.c common/*/*.c
# Every offline write runs through one transaction runner,
# btrfs_run_transaction() (kernel-shared/transaction.c): no second copy of
# the start/commit/abort tail, and no op code dispatched twice (each
# backend op hands the runner its own function).
check "transaction started, committed or aborted outside btrfs_run_transaction()" \
	'\bbtrfs_(start|commit|abort)_transaction\s*\(' \
	$(ls common/*/*.c cmds/*.c kernel-shared/*.c | grep -v '^kernel-shared/transaction\.c$')
check "offline write dispatched by op code (give the runner a function instead)" \
	'(\bswitch\s*\([^)]*\bop\s*\)|\benum\s+vc_\w*_op\b)' common/*/*.c common/*/*.h cmds/*.c
# Errors are values: a failure carries what it is about and why as values
# (fs->errobj and fs->refusal in kernel-shared/fs.h, struct vc_write_err,
# the backend's limit_refusal op, vc_acct_result.cause), and the one line a
# user reads is made from them; no code reads them back out of a message's
# text (no compare, scan or number parse of a message).  The one exception,
# marked api-ok, is cmd_report() not printing an errno's text twice.
check "error message text parsed back (carry the object or number as a value)" \
	'\b(strn?cmp|strn?casecmp|strstr|strcasestr|strcspn|strspn|strchr|strrchr|sscanf|strto[u]?ll?|memcmp)\s*\(\s*([A-Za-z_]+(->|\.))?(msg|err|errmsg|cause|why|saved|[A-Za-z_]+_(msg|err))\b|\b(strn?cmp|strstr|strcspn|strspn|sscanf|strto[u]?ll?)\s*\([^;]*\b(vc_fs_error|btrfs_fs_error)\s*\(' \
	cmds/*.c common/*/*.c
# bats only checks a negated command's status when it is the last of the
# test: "! cmd" anywhere else asserts nothing.  Use "run ! cmd".
check "bare '! cmd' in a bats test (asserts nothing: use 'run ! cmd')" '^\s*! ' \
	$(find tests -name '*.bats' | sort)
# likewise a test joined by "&&" asserts nothing when the first one fails
# (set -e spares every command of an && list but the last): one per line.
check "tests joined by '&&' in a bats test (the first asserts nothing: one per line)" \
	'^\s*(\[|\[\[) .*(\]|\]\]) && (\[|\[\[) .*(\]|\]\])\s*$' $(find tests -name '*.bats' | sort)
# A bare sync flushes every filesystem and so waits on every mount, a hung
# one too (a kernel stuck mounting a crafted image): the suite would hang
# until CI's time limit.  Flush only the filesystem under test: sync -f PATH,
# or syncfs(2) in C.  Shell (scripts, tests, benchmarks, the build), the
# shell commands C tests run, sync() in any C, os.sync() and a lone "sync"
# argv in Python; comment lines aside.
sync_sh='(^|[;&|("'"'"']|then|do)[[:space:]]*sync([[:space:]]*($|[;&|)])|["'"'"'])'
sync_files() {
	local f
	find tests bench scripts .ci debian -type f \( -name '*.sh' -o -name '*.bats' -o \
		-name '*.bash' \) 2>/dev/null
	for f in $(find .ci scripts bench tests debian -type f ! -name '*.*' 2>/dev/null) \
		autogen.sh; do
		[ -f "$f" ] && head -n 1 "$f" | grep -qE '^#!.*\b(ba)?sh\b' && echo "$f"
	done
	ls Makefile Makefile.inc.in debian/rules 2>/dev/null
}
hits=$( {
	sync_files | sort -u | xargs grep -nE "$sync_sh" /dev/null
	find tests -name '*.[ch]' 2>/dev/null | xargs grep -nE "$sync_sh" /dev/null
	find . -name '*.[ch]' ! -path './build*' 2>/dev/null | sed 's|^\./||' |
		xargs grep -nE '\bsync\s*\(\s*\)' /dev/null
	find tests scripts bench -name '*.py' 2>/dev/null |
		xargs grep -nE '\bos\.sync\s*\(|\[\s*["'"'"']sync["'"'"']\s*\]' /dev/null
} | grep -vE '^[^:]*:[0-9]+:\s*(#|\*|//)' | grep -v 'api-ok' | sort -u)
if [ -n "$hits" ]; then
	echo "check-api: a global sync (waits on every mount, a hung one too; use sync -f PATH," \
		"or syncfs(2) in C):"
	echo "$hits"
	bad=1
fi
if [ $bad -eq 0 ]; then
	echo "check-api: ok"
fi
exit $bad
