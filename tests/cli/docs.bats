#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
#
# Documentation and completion stay in step with the binary: every man page
# renders without warnings and has the required sections; every group and
# command the binary lists, and every option its --help prints, is documented
# in the group's man page and offered by the bash completion; completion works
# for abbreviations and multi-call names; make install puts everything in place.
# No root needed.

load ../helpers

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
DOC=$TOP/Documentation
COMPLETION=$TOP/completion/volctl
PAGES="volctl volctl-subvolume volctl-quota volctl-qgroup volctl-inspect"
SECTIONS="NAME|SYNOPSIS|DESCRIPTION|SUBCOMMANDS|OPTIONS|EXIT STATUS|JSON OUTPUT|EXAMPLES|SEE ALSO"

need_groff() {
	command -v groff >/dev/null || skip "needs groff (Debian package groff-base)"
}

# The page as plain text, long lines, no hyphenation: what a reader sees.
render() {
	groff -man -Tascii -P-cbou -rLL=250n "$DOC/$1.8" 2>/dev/null
}

# Subsection CMD (".SS CMD") of a rendered page, up to the next heading.
subsection() {
	render "$1" | awk -v cmd="$2" '
		/^[A-Z]/ { in_ss = 0 }
		/^   [^ ]/ { in_ss = ($0 == "   " cmd) }
		in_ss'
}

# Groups the binary lists in "volctl --help".
binary_groups() {
	"$VOLCTL" --help | awk '/^Groups:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }'
}

# Commands the binary lists in "volctl GROUP help".
binary_commands() {
	"$VOLCTL" "$1" help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }'
}

# Option names in a --help text on stdin: -x, --long (without =VALUE), taken
# from the usage lines and the option lines (those starting with a dash), not
# from prose that mentions other commands' options.
help_options() {
	grep -E '^(usage:|   or:|[[:space:]]*-)' |
		grep -oE '(^|[][ |,(])--?[A-Za-z][A-Za-z0-9-]*' | sed -E 's/^[][ |,(]//' | sort -u
}

global_options() {
	"$VOLCTL" --help | help_options
}

# Run the completion function for the words given; sets $reply (one per line).
complete_words() {
	reply=$(bash -c '
		source "$1"; shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		_volctl
		printf "%s\n" "${COMPREPLY[@]}"' _ "$COMPLETION" "$@")
}

# The completion's table entry, e.g. completion_table opts_subvolume_create.
completion_table() {
	bash -c 'source "$1"; eval "printf \"%s\n\" \$_volctl_$2"' _ "$COMPLETION" "$1" | tr -s ' \t' '\n'
}

@test "every man page renders without warnings" {
	need_groff
	local p warn
	for p in $PAGES; do
		[ -f "$DOC/$p.8" ] || { echo "missing $DOC/$p.8"; return 1; }
		warn=$(groff -man -ww -z "$DOC/$p.8" 2>&1)
		if [ -n "$warn" ]; then
			echo "$p.8: $warn"
			return 1
		fi
		if command -v man >/dev/null; then
			warn=$(MANWIDTH=80 man --warnings -l "$DOC/$p.8" 2>&1 >/dev/null)
			if [ -n "$warn" ]; then
				echo "$p.8 (man): $warn"
				return 1
			fi
		fi
	done
}

@test "every man page has the SPDX line, a matching title and every required section" {
	need_groff
	local p s title
	for p in $PAGES; do
		head -n1 "$DOC/$p.8" | grep -qx '.\\" SPDX-License-Identifier: GPL-2.0-only' ||
			{ echo "$p.8: first line is not the SPDX line"; return 1; }
		title=$(awk '/^\.TH / { print $2; exit }' "$DOC/$p.8" | sed 's/\\-/-/g')
		[ "$title" = "$(echo "$p" | tr "[:lower:]" "[:upper:]")" ] ||
			{ echo "$p.8: .TH title '$title'"; return 1; }
		grep -q "^\.TH [^ ]* 8 " "$DOC/$p.8" || { echo "$p.8: not section 8"; return 1; }
		IFS='|' read -ra secs <<<"$SECTIONS"
		for s in "${secs[@]}"; do
			render "$p" | grep -qx "$s" || { echo "$p.8: no section $s"; return 1; }
		done
		render "$p" | grep -qE "^       ${p} - [a-z]" || { echo "$p.8: NAME line"; return 1; }
	done
	render volctl | grep -qx "DIFFERENCES FROM BTRFS-PROGS"
}

@test "EXIT STATUS in every page gives 0, 1 and 2 and nothing else" {
	need_groff
	local p codes
	for p in $PAGES; do
		codes=$(render "$p" | awk '/^EXIT STATUS/ { on = 1; next } /^[A-Z]/ { on = 0 }
			on && /^       [0-9]+ *$/ { print $1 } on && /^       [0-9]+   / { print $1 }' | tr '\n' ' ')
		[ "$codes" = "0 1 2 " ] || { echo "$p.8: EXIT STATUS lists '$codes'"; return 1; }
	done
}

@test "every volctl page named in SEE ALSO and in the text exists" {
	need_groff
	local p ref
	for p in $PAGES; do
		for ref in $(render "$p" | grep -oE 'volctl(-[a-z]+)?\(8\)' | sort -u); do
			[ -f "$DOC/${ref%(8)}.8" ] || { echo "$p.8 refers to missing $ref"; return 1; }
		done
	done
}

@test "every group of the binary has a man page, is in volctl(8) and in the completion" {
	need_groff
	local g groups
	groups=$(binary_groups)
	[ -n "$groups" ] || { echo "volctl --help lists no groups"; return 1; }
	for g in $groups; do
		[ -f "$DOC/volctl-$g.8" ] || { echo "no man page for group $g"; return 1; }
		render volctl | grep -q "volctl-$g(8)" || { echo "volctl.8 does not refer to volctl-$g(8)"; return 1; }
		completion_table groups | grep -qx "$g" || { echo "completion lacks group $g"; return 1; }
	done
}

@test "every command of the binary is a subsection of its group's man page, and the reverse" {
	need_groff
	local g c cmds checked=0
	for g in $(binary_groups); do
		cmds=$(binary_commands "$g")
		for c in $cmds; do
			subsection "volctl-$g" "$c" | grep -q . ||
				{ echo "volctl-$g.8 has no subsection '$c'"; return 1; }
			checked=$((checked + 1))
		done
		# documented commands must exist, once the group has any
		[ -n "$cmds" ] || continue
		for c in $(render "volctl-$g" | awk '/^SUBCOMMANDS/ { on = 1; next } /^[A-Z]/ { on = 0 }
				on && /^   [a-z]/ { print $1 }'); do
			echo "$cmds" | grep -qx "$c" ||
				{ echo "volctl-$g.8 documents '$c', which volctl $g help does not list"; return 1; }
		done
	done
	[ "$checked" -gt 0 ] || { echo "no command of any group was checked"; return 1; }
}

@test "every option in each command's --help is documented with that command" {
	need_groff
	local g c o globals checked=0
	globals=$(global_options)
	for g in $(binary_groups); do
		for c in $(binary_commands "$g"); do
			run "$VOLCTL" "$g" "$c" --help
			[ "$status" -eq 0 ] || { echo "volctl $g $c --help: exit $status"; return 1; }
			for o in $(printf '%s\n' "$output" | help_options); do
				if echo "$globals" | grep -qx -- "$o"; then
					render "volctl" | grep -qF -- "$o" ||
						{ echo "volctl.8 lacks global option $o"; return 1; }
					continue
				fi
				subsection "volctl-$g" "$c" | grep -qE -- "(^|[^A-Za-z0-9-])$o([^A-Za-z0-9-]|$)" ||
					{ echo "volctl-$g.8, '$c': option $o missing"; return 1; }
				checked=$((checked + 1))
			done
		done
	done
	[ "$checked" -gt 0 ] || skip "the binary has no command options yet"
}

# Option names at the start of the tagged paragraphs ("-c, --commit-after")
# of a rendered page section on stdin.
man_options() {
	awk '/^       -/ {
		line = $0; sub(/^ +/, "", line)
		n = split(line, w, /[ ,]+/)
		for (i = 1; i <= n; i++) {
			if (w[i] !~ /^--?[A-Za-z]/)
				break
			o = w[i]; sub(/[=\[].*/, "", o); print o
		}
	}' | sort -u
}

@test "every option a man page documents for a command is in that command's --help" {
	need_groff
	local g c o help globals checked=0
	globals=$(global_options)
	for g in $(binary_groups); do
		for c in $(binary_commands "$g"); do
			help=$("$VOLCTL" "$g" "$c" --help | help_options)
			for o in $(subsection "volctl-$g" "$c" | man_options); do
				echo "$help" | grep -qx -- "$o" || echo "$globals" | grep -qx -- "$o" ||
					{ echo "volctl-$g.8, '$c': $o is not in 'volctl $g $c --help'"; return 1; }
				checked=$((checked + 1))
			done
		done
	done
	[ "$checked" -gt 50 ]
}

@test "volctl(8) lists exactly the commands of each group" {
	need_groff
	local g listed cmds
	for g in $(binary_groups); do
		listed=$(render volctl | grep -A1 -E "^       volctl $g command" | tail -n1 |
			sed -E 's/.*\): //; s/[.]$//; s/, /\n/g' | sort)
		cmds=$(binary_commands "$g" | sort)
		[ "$listed" = "$cmds" ] ||
			{ echo "volctl.8 lists for $g:" $listed "; the binary has:" $cmds; return 1; }
	done
}

@test "volctl-check(8) and volctl-mkfs(8) document exactly the options of their --help" {
	need_groff
	local c page help globals
	globals=$(global_options)
	for c in check mkfs; do
		page=$(render "volctl-$c" | awk '/^OPTIONS/ { on = 1; next } /^[A-Z]/ { on = 0 } on' |
			man_options | grep -vxF -f <(echo "$globals") || true)
		help=$("$VOLCTL" "$c" --help | help_options | grep -vxF -f <(echo "$globals") || true)
		[ -n "$help" ]
		[ "$page" = "$help" ] || { echo "volctl-$c.8 OPTIONS:" $page "; --help:" $help; return 1; }
	done
}

@test "every global option of volctl --help is in volctl(8) and in the completion" {
	need_groff
	local o opts
	opts=$(global_options)
	[ -n "$opts" ]
	for o in $opts; do
		render volctl | grep -qE -- "(^|[^A-Za-z0-9-])$o([^A-Za-z0-9-]|$)" ||
			{ echo "volctl.8 lacks $o"; return 1; }
		completion_table global_opts | grep -qx -- "$o" ||
			{ echo "completion lacks global option $o"; return 1; }
	done
}

@test "the completion offers every command and every option the binary has" {
	local g c o key globals checked=0
	globals=$(global_options)
	for g in $(binary_groups); do
		for c in $(binary_commands "$g"); do
			completion_table "cmds_$g" | grep -qx "$c" ||
				{ echo "completion lacks command $g $c"; return 1; }
			key=${g}_${c//-/_}
			for o in $("$VOLCTL" "$g" "$c" --help | help_options); do
				echo "$globals" | grep -qx -- "$o" && continue
				completion_table "opts_$key" | grep -qx -- "$o" ||
					{ echo "completion lacks option $o of $g $c"; return 1; }
				checked=$((checked + 1))
			done
		done
	done
	[ "$checked" -gt 0 ] || skip "the binary has no command options yet"
}

@test "completion: volctl sub completes to subvolume" {
	complete_words volctl sub
	[ "$reply" = "subvolume" ]
}

@test "completion: volctl subvolume cr completes to create" {
	complete_words volctl subvolume cr
	[ "$reply" = "create" ]
}

@test "completion: abbreviated group and command resolve like the binary does" {
	complete_words volctl sub li -
	echo "$reply" | grep -qx -- "--sort"
	echo "$reply" | grep -qx -- "-G"
	complete_words volctl qg sh --so
	[ "$reply" = "--sort" ]
	complete_words volctl q
	[ "$(echo "$reply" | sort | tr '\n' ' ')" = "qgroup quota " ]
	# an ambiguous group gives nothing to complete after it
	complete_words volctl q x
	[ -z "$reply" ]
}

@test "completion: multi-call names complete commands of their group" {
	local n
	for n in volctl volctl-subvolume volctl-quota volctl-qgroup; do
		bash -c 'source "$1"; complete -p "$2"' _ "$COMPLETION" "$n" | grep -q -- "-F _volctl $n\$" ||
			{ echo "no completion registered for $n"; return 1; }
	done
	complete_words volctl-qgroup sh
	[ "$reply" = "show" ]
	complete_words volctl-subvolume get
	[ "$reply" = "get-default" ]
	complete_words /usr/sbin/volctl-quota resc
	[ "$reply" = "rescan" ]
	complete_words volctl-quota rescan -
	echo "$reply" | grep -qx -- "--wait-norescan"
}

@test "completion: global options, --format values, --image files, sort keys" {
	complete_words volctl --
	echo "$reply" | grep -qx -- "--format"
	echo "$reply" | grep -qx -- "--image"
	complete_words volctl --format ""
	[ "$(echo "$reply" | tr '\n' ' ')" = "text json " ]
	complete_words volctl --format = j
	[ "$reply" = "json" ]
	complete_words volctl --format json qg
	[ "$reply" = "qgroup" ]
	touch "$BATS_TEST_TMPDIR/disk-one.img"
	complete_words volctl --image "$BATS_TEST_TMPDIR/disk-o"
	[ "$reply" = "$BATS_TEST_TMPDIR/disk-one.img" ]
	complete_words volctl --image "$BATS_TEST_TMPDIR/disk-one.img" sub
	[ "$reply" = "subvolume" ]
	complete_words volctl qgroup show --sort = rfer,-ex
	[ "$reply" = "rfer,-excl" ]
	complete_words volctl subvolume list --sort = o
	[ "$reply" = "ogen" ]
	# without "=" in COMP_WORDBREAKS the option stays part of the word
	complete_words volctl qgroup show --sort=rfer,-ex
	[ "$reply" = "--sort=rfer,-excl" ]
	complete_words volctl --format=j
	[ "$reply" = "--format=json" ]
}

@test "completion: PATH arguments complete directories, option values are left alone" {
	mkdir -p "$BATS_TEST_TMPDIR/mnt-a/sub" "$BATS_TEST_TMPDIR/mnt-b"
	complete_words volctl subvolume list "$BATS_TEST_TMPDIR/mnt-"
	[ "$(echo "$reply" | sort | tr '\n' ' ')" = "$BATS_TEST_TMPDIR/mnt-a $BATS_TEST_TMPDIR/mnt-b " ]
	complete_words volctl subvolume delete -i ""
	[ -z "$reply" ]
	complete_words volctl inspect tree -t quo
	[ "$reply" = "quota" ]
	complete_words volctl inspect tree --tree data
	[ "$reply" = "data-reloc" ]
	# offline, PATH is inside the image: only its top level can be offered
	complete_words volctl --image disk.img subvolume list ""
	[ "$reply" = "/" ]
}

@test "make install puts the binary, the links, the man pages and the completion in place" {
	[ -f "$TOP/Makefile.inc" ] || skip "the tree is not configured (no Makefile.inc): run ./configure"
	[ -x "$VOLCTL" ] || skip "no built binary at $VOLCTL"
	local root=$BATS_TEST_TMPDIR/root odir p l
	odir=$(cd "$(dirname "$VOLCTL")" && pwd)
	# install what is built: -o keeps make from rebuilding the binary
	run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$TOP" O="$odir" -o "$odir/volctl" \
		install DESTDIR="$root" prefix=/usr
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	[ -x "$root/usr/sbin/volctl" ]
	cmp "$VOLCTL" "$root/usr/sbin/volctl"
	for l in volctl-subvolume volctl-quota volctl-qgroup; do
		[ "$(readlink "$root/usr/sbin/$l")" = volctl ] || { echo "link $l"; return 1; }
		[ "$(readlink "$root/usr/share/bash-completion/completions/$l")" = volctl ] ||
			{ echo "completion link $l"; return 1; }
	done
	for p in $PAGES; do
		cmp "$DOC/$p.8" "$root/usr/share/man/man8/$p.8" || { echo "man page $p"; return 1; }
	done
	cmp "$COMPLETION" "$root/usr/share/bash-completion/completions/volctl"
	# the JSON schema and its description
	cmp "$DOC/volctl.schema.json" "$root/usr/share/volctl/volctl.schema.json"
	cmp "$DOC/json-schema.md" "$root/usr/share/doc/volctl/json-schema.md"
	# man finds the installed pages by name
	if command -v man >/dev/null; then
		for p in $PAGES; do
			[ "$(man -M "$root/usr/share/man" -w 8 "$p")" = "$root/usr/share/man/man8/$p.8" ] ||
				{ echo "man -w $p"; return 1; }
		done
	fi
	# the installed multi-call link runs its group
	run "$root/usr/sbin/volctl-qgroup" help
	[ "$status" -eq 0 ]
	[[ "$output" == *"usage: volctl qgroup"* ]]
}

# Decompress the committed fixture with subvolumes, snapshots, qgroups and a
# deleted subvolume; sets $IMG.
fixture_image() {
	local zst=$TOP/tests/fixtures/rich4k.img.zst
	[ -f "$zst" ] || skip "no fixture $zst"
	command -v zstd >/dev/null || skip "needs zstd"
	IMG=$BATS_TEST_TMPDIR/rich4k.img
	[ -f "$IMG" ] || zstd -q -d "$zst" -o "$IMG"
}

# The JSON OUTPUT section of a rendered page.
json_section() {
	render "$1" | awk '/^JSON OUTPUT/ { on = 1; next } /^[A-Z]/ { on = 0 } on'
}

# Every object member name in the JSON document on stdin, but the header's.
json_keys() {
	jq -r '[.. | objects | keys[]] | unique[]' | grep -vxE '__header|version' | sort -u
}

# Each key on stdin must appear as a word in the JSON OUTPUT section of $1.
keys_documented_in() {
	local page=$1 section k missing=""
	section=$(json_section "$page")
	while read -r k; do
		printf '%s\n' "$section" | grep -qE -- "(^|[^A-Za-z0-9_-])$k([^A-Za-z0-9_-]|$)" ||
			missing="$missing $k"
	done
	[ -z "$missing" ] || { echo "$page.8 JSON OUTPUT lacks:$missing"; return 1; }
}

@test "every JSON member of subvolume list/show/get-default is documented" {
	need_groff
	fixture_image
	local json
	json=$("$VOLCTL" --image "$IMG" --format json subvolume list -a /)
	json+=$("$VOLCTL" --image "$IMG" --format json subvolume list -d /)
	json+=$("$VOLCTL" --image "$IMG" --format json subvolume show /a)
	json+=$("$VOLCTL" --image "$IMG" --format json subvolume get-default /)
	printf '%s\n' "$json" | jq -se 'map(.subvolume_show.qgroup.usage.referenced) | any' >/dev/null
	printf '%s\n' "$json" | jq -se 'map(.subvolume_list // [] | .[] | select(.deleted)) | length > 0' >/dev/null
	printf '%s\n' "$json" | json_keys | keys_documented_in volctl-subvolume
}

@test "every JSON member of qgroup show and quota status is documented" {
	need_groff
	fixture_image
	local json
	json=$("$VOLCTL" --image "$IMG" --format json qgroup show /)
	printf '%s\n' "$json" | jq -e '.qgroup_show | length > 3' >/dev/null
	printf '%s\n' "$json" | json_keys | keys_documented_in volctl-qgroup
	json=$("$VOLCTL" --image "$IMG" --format json quota status /)
	printf '%s\n' "$json" | jq -e '.quota_status.levels | length > 0' >/dev/null
	printf '%s\n' "$json" | json_keys | keys_documented_in volctl-quota
}

@test "every JSON member of the write commands is documented" {
	need_groff
	fixture_image
	local json v=("$VOLCTL" --image "$IMG" --format json)
	json=$("${v[@]}" subvolume create -i 1/100 /n1 /n2)
	json+=$("${v[@]}" subvolume snapshot -r /a /s)
	json+=$("${v[@]}" subvolume delete -C --delete-qgroup /n1)
	json+=$("${v[@]}" subvolume sync /)
	json+=$("${v[@]}" subvolume set-default /a)
	printf '%s\n' "$json" | jq -se 'map(.subvolume_delete.subvolumes[0].qgroup_result // empty) | length == 1' >/dev/null
	printf '%s\n' "$json" | json_keys | keys_documented_in volctl-subvolume
	json=$("${v[@]}" qgroup create 1/7 /)
	json+=$("${v[@]}" qgroup assign 0/256 1/7 /)
	json+=$("${v[@]}" qgroup limit 1M 1/7 /)
	json+=$("${v[@]}" qgroup remove 0/256 1/7 /)
	json+=$("${v[@]}" qgroup destroy 1/7 /)
	json+=$("${v[@]}" qgroup clear-stale /)
	printf '%s\n' "$json" | jq -se 'length == 6' >/dev/null
	printf '%s\n' "$json" | json_keys | keys_documented_in volctl-qgroup
	json=$("${v[@]}" quota rescan -w /)
	json+=$("${v[@]}" quota disable /)
	json+=$("${v[@]}" quota enable /)
	printf '%s\n' "$json" | jq -se 'length == 3' >/dev/null
	printf '%s\n' "$json" | json_keys | keys_documented_in volctl-quota
}

@test "the top-level JSON members of inspect super and tree are documented" {
	need_groff
	fixture_image
	{
		"$VOLCTL" --format json inspect super "$IMG" | jq -r 'keys[]'
		"$VOLCTL" --format json inspect tree -t quota "$IMG" |
			jq -r 'keys[], (.trees[0] | keys[]), (.trees[0].blocks[0].items[0] | keys[])'
		"$VOLCTL" --format json inspect tree --walk-only "$IMG" |
			jq -r 'keys[], (.trees[0] | keys[])'
	} | sort -u | grep -vxE '__header|version' | keys_documented_in volctl-inspect
}

@test "the jq examples in the man pages work on real output" {
	need_groff
	fixture_image
	run bash -c "'$VOLCTL' --image '$IMG' --format json subvolume list / | jq -r '.subvolume_list[].path'"
	[ "$status" -eq 0 ]
	[[ "$output" == *snap-a* ]]
	run bash -c "'$VOLCTL' --image '$IMG' --format json qgroup show / |
		jq -r '.qgroup_show[] | select(.exclusive > 8192) | .qgroupid'"
	[ "$status" -eq 0 ]
	[[ "$output" == *1/100* ]]
	run bash -c "'$VOLCTL' --image '$IMG' --format json quota status / | jq -e '.quota_status.inconsistent == false'"
	[ "$status" -eq 0 ]
	run bash -c "'$VOLCTL' --format json inspect super --all '$IMG' |
		jq -r '.superblocks[] | \"\\(.mirror) \\(.generation) \\(.csum_status)\"'"
	[ "$status" -eq 0 ]
	[[ "$output" == *"0 "*" match"* ]]
	# the same jq filters are the ones the pages show
	render volctl | grep -qF "jq -r '.subvolume_list[].path'"
	render volctl-qgroup | grep -qF "jq -r '.qgroup_show[] | select(.exclusive"
	render volctl-quota | grep -qF "jq '.quota_status.inconsistent'"
	render volctl-inspect | grep -qF ".superblocks[] | \"\\(.mirror) \\(.generation) \\(.csum_status)\""
}

# Commands the binary lists at the top level ("Commands:" in volctl --help).
binary_top_commands() {
	"$VOLCTL" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }'
}

@test "top-level commands and their options are in volctl(8) and in the completion" {
	need_groff
	local c o globals cmds checked=0
	globals=$(global_options)
	cmds=$(binary_top_commands)
	[ -n "$cmds" ] || skip "the binary has no top-level commands"
	for c in $cmds; do
		render volctl | grep -qE "^       volctl $c( |$)" ||
			{ echo "volctl.8 has no entry 'volctl $c'"; return 1; }
		completion_table top_cmds | grep -qx "$c" ||
			{ echo "completion lacks top-level command $c"; return 1; }
		for o in $("$VOLCTL" "$c" --help | help_options); do
			echo "$globals" | grep -qx -- "$o" && continue
			render volctl | grep -qE -- "(^|[^A-Za-z0-9-])$o([^A-Za-z0-9-]|$)" ||
				{ echo "volctl.8 lacks option $o of $c"; return 1; }
			completion_table "opts_top_${c//-/_}" | grep -qx -- "$o" ||
				{ echo "completion lacks option $o of $c"; return 1; }
			checked=$((checked + 1))
		done
	done
	[ "$checked" -gt 0 ]
	complete_words volctl ch
	[ "$reply" = "check" ]
	complete_words volctl check --q
	[ "$reply" = "--qgroup-report" ]
}
