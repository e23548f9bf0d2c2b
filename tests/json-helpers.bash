# SPDX-License-Identifier: GPL-2.0-only
# Schema checks of volctl's JSON documents, shared by tests/cli/json-schema.bats
# (offline) and tests/mounted/json-schema.bats (online).  Load after ../helpers.
#
#   vj NAME ARGS...      volctl --format json ARGS must exit 0 and print a
#                        document: kept as NAME for json_validate_all, and
#                        its command counted as covered
#   vj_rc RC NAME ARGS...  the same, exit status RC (a partial failure still
#                        prints what was done)
#   json_validate_all    every kept document against the schema, one python run
#   json_commands        every command of the binary's table that takes
#                        --format json ("group command", or "command" at the top)
#   json_all_covered     every one of those had a vj case in this test

JSON_TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
JSON_SCHEMA=$JSON_TOP/Documentation/volctl.schema.json

# The command ARGS name: the words left of the first path argument, global options skipped
json_cmd_of() {
	local a words=()
	while [ $# -gt 0 ]; do
		a=$1
		shift
		case $a in
		--image | --format | --super) shift ;;
		-*) ;;
		*)
			words+=("$a")
			case ${words[0]} in
			check | mkfs) break ;;
			esac
			[ ${#words[@]} -lt 2 ] || break
			;;
		esac
	done
	echo "${words[*]}"
}

vj_rc() {
	local want=$1 name=$2 rc=0 f
	shift 2
	mkdir -p "$BATS_TEST_TMPDIR/docs"
	f=$BATS_TEST_TMPDIR/docs/$name.json
	[ ! -e "$f" ] || { echo "$name: case named twice"; return 1; }
	"$VOLCTL" --format json "$@" >"$f" 2>"$BATS_TEST_TMPDIR/docs/$name.err" || rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "$name: volctl --format json $*: exit $rc, want $want"
		cat "$BATS_TEST_TMPDIR/docs/$name.err"
		return 1
	fi
	[ -s "$f" ] || { echo "$name: no document"; return 1; }
	json_cmd_of "$@" >>"$BATS_TEST_TMPDIR/covered"
}

vj() {
	vj_rc 0 "$@"
}

json_validate_all() {
	local rc=0 n
	n=$(find "$BATS_TEST_TMPDIR/docs" -name '*.json' | wc -l)
	[ "$n" -gt 0 ] || { echo "no documents kept"; return 1; }
	python3 "$JSON_TOP/tests/json-validate.py" "$JSON_SCHEMA" "$BATS_TEST_TMPDIR"/docs/*.json ||
		rc=$?
	[ "$rc" -ne 77 ] || skip "needs python3-jsonschema"
	[ "$rc" -eq 0 ] || { echo "of $n documents, those above do not validate"; return 1; }
}

# A command takes --format json unless the dispatcher refuses it before parsing
# anything: run each without arguments and read why it stops.
json_commands() {
	local g c err
	for g in $("$VOLCTL" help | awk '/^Groups:/ { on = 1; next } /^$/ { on = 0 } on { print $1 }'); do
		for c in $("$VOLCTL" "$g" help |
			   awk '/^Commands:/ { on = 1; next } /^$/ { on = 0 } on { print $1 }'); do
			err=$("$VOLCTL" --format json "$g" "$c" 2>&1 >/dev/null </dev/null || true)
			[[ $err == *"--format json is not supported by this command"* ]] ||
				echo "$g $c"
		done
	done
	for c in $("$VOLCTL" help | awk '/^Commands:/ { on = 1; next } /^$/ { on = 0 } on { print $1 }'); do
		err=$("$VOLCTL" --format json "$c" 2>&1 >/dev/null </dev/null || true)
		[[ $err == *"--format json is not supported by this command"* ]] || echo "$c"
	done
}

# json_all_covered [EXCEPT...]: every JSON command had a case (EXCEPT: commands
# this suite cannot run, with the reason in the caller)
json_all_covered() {
	local cmd missing="" e skip
	while read -r cmd; do
		skip=
		for e in "$@"; do
			[ "$cmd" != "$e" ] || skip=1
		done
		[ -n "$skip" ] || grep -qxF "$cmd" "$BATS_TEST_TMPDIR/covered" || missing+=" [$cmd]"
	done < <(json_commands)
	[ -z "$missing" ] || { echo "JSON commands without a schema case:$missing"; return 1; }
}
