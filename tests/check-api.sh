#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# kernel-shared/ is a library: no printing, no exit, no getopt, nothing from
# common/ or cmds/.  Dependencies point one way: cmds/ -> common/ -> kernel-shared/,
# and cmds/ see of kernel-shared/ only a listed few headers of plain types.
# Tests: no bare "! cmd" line and no "[ a ] && [ b ]" line in a bats file.
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
# includes and calls only its own layer or lower ones.
if ! layers=$(python3 scripts/callgraph.py --check); then
	echo "check-api: kernel-shared/ layers (kernel-shared/README.md):"
	echo "${layers:-scripts/callgraph.py failed}"
	bad=1
fi
check "kernel-shared/ includes common/ or cmds/" '#include\s+"(common|cmds)/' $ks
check "common/ includes cmds/" '#include\s+"cmds/' common/*.c common/*.h
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
# one command file never includes another's source
check "a .c file includes another .c file" '#include\s+"[^"]*\.c"' cmds/*.[ch] common/*.[ch]
check "ioctl outside the online backend" '\bioctl\s*\(' cmds/*.c kernel-shared/*.c
# bats only checks a negated command's status when it is the last of the
# test: "! cmd" anywhere else asserts nothing.  Use "run ! cmd".
check "bare '! cmd' in a bats test (asserts nothing: use 'run ! cmd')" '^\s*! ' \
	$(find tests -name '*.bats' | sort)
# likewise a test joined by "&&" asserts nothing when the first one fails
# (set -e spares every command of an && list but the last): one per line.
check "tests joined by '&&' in a bats test (the first asserts nothing: one per line)" \
	'^\s*(\[|\[\[) .*(\]|\]\]) && (\[|\[\[) .*(\]|\]\])\s*$' $(find tests -name '*.bats' | sort)
if [ $bad -eq 0 ]; then
	echo "check-api: ok"
fi
exit $bad
