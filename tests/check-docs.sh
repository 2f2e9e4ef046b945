#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The documentation against the code: README.md, doc/cakewg.8, doc/cakewg.conf.5 and
# doc/architecture.md must name what the code has, and point only at what exists.
#
#  - README starts with the two commands, and .ci/run calls the test one;
#  - every subcommand of tools/cakewg/main.c is in cakewg(8)'s SYNOPSIS and COMMANDS;
#  - every file key of src/core/conf_keys.c is described in cakewg.conf(5);
#  - every tc-cake word of qdisc/cake_parse.c is in cakewg(8)'s CAKE OPTIONS;
#  - every variable the code getenv()s is in cakewg(8)'s ENVIRONMENT (and the README);
#  - the UAPI extension keys of src/core/conf_keys.c are in the README and architecture.md;
#  - architecture.md's module map names every source file and every tools/ entry;
#  - every repository path in `backticks` or a link in the two markdown files exists;
#  - every result file under doc/bench/ is linked from the README;
#  - both man pages render without a groff warning (when groff is installed).
set -u
top=${1:-.}
cd "$top" || exit 1
fail=0
bad() {
	printf 'docs: %s\n' "$*"
	fail=1
}

# section FILE START_REGEX: the lines of FILE from the first match of START_REGEX up to
# the next line of the same kind of heading (".SH" in roff, "###"/"##" in markdown).
section() {
	awk -v start="$2" '
		!on && $0 ~ start { on = 1; head = substr($0, 1, 3); print; next }
		on && head == ".SH" && /^\.SH/ { exit }
		on && head == "###" && /^##/ { exit }
		on && head == "## " && /^## / { exit }
		on { print }' "$1"
}

# Roff source as words: "\-" is a hyphen, font escapes and quotes go.
plain_roff() {
	sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\(mc/u/g' -e 's/"//g'
}

# Matching is done with bash's own regular expressions: this runs often, and a fork per
# test makes it slow on a busy machine.
nl=$'\n'
has_word() { # has_word TEXT WORD: TEXT holds WORD as a whole word (hyphens included)
	local re="(^|[^A-Za-z0-9_-])${2//./\\.}([^A-Za-z0-9_-]|\$)"
	[[ $1 =~ $re ]]
}

# --- README's two commands, and CI ---
readme=$(cat README.md 2>/dev/null)
readme_block=$(awk '/^```/{n++; next} n == 1' README.md 2>/dev/null)
if [ "$(grep -c . <<<"$readme_block")" != 2 ] ||
	! grep -qx 'sudo tools/run demo' <<<"$readme_block" ||
	! grep -qx 'sudo tools/run tests' <<<"$readme_block"; then
	bad "README.md must open with one code block holding exactly 'sudo tools/run demo' and 'sudo tools/run tests'"
fi
[ "$(awk '/^```/{exit} NF{n++} END{print n+0}' README.md 2>/dev/null)" -le 2 ] ||
	bad "README.md: more than a title and one sentence before the commands"
grep -qx 'tools/run tests' .ci/run || bad ".ci/run does not call 'tools/run tests'"
for c in demo tests; do
	grep -qE "^$c\)" tools/run || bad "tools/run has no '$c' command"
done
[ -f tools/demo.sh ] || bad "tools/run demo needs tools/demo.sh"

# --- subcommands ---
man8=doc/cakewg.8
synopsis=$(section $man8 '^\.SH SYNOPSIS' | plain_roff)
commands=$(section $man8 '^\.SH COMMANDS' | plain_roff)
subcommands=$(sed -n 's/^\s*{ "\([a-z]*\)", [a-z_]*_main,.*/\1/p' tools/cakewg/main.c)
[ -n "$subcommands" ] || bad "found no subcommand table in tools/cakewg/main.c"
for c in $subcommands; do
	re="(^|$nl)\\.B cakewg $c( |$nl|\$)"
	[[ $synopsis =~ $re ]] || bad "cakewg.8 SYNOPSIS lacks 'cakewg $c'"
	has_word "$commands" "$c" || bad "cakewg.8 COMMANDS lacks '$c'"
done
grep -q -- '-foreground' <<<"$synopsis" || bad "cakewg.8 SYNOPSIS lacks the wireguard-go invocation"

# --- configuration keys ---
man5=$(cat doc/cakewg.conf.5)
# key_rows: the rows of the key table, one line each
key_rows=$(awk '/^const struct wg_conf_key wg_conf_keys\[\] = \{/{on=1; next} on && /^\};/{on=0}
	on && /^\t\{\./ && row != "" { print row; row = "" }
	on { row = row $0 }
	END { if (row != "") print row }' src/core/conf_keys.c)
keys=$(sed -n 's/^\s*{\.file = "\([A-Za-z]*\)",.*/\1/p' <<<"$key_rows")
[ -n "$keys" ] || bad "found no key table in src/core/conf_keys.c"
for k in $keys; do
	[[ $man5 == *"$nl.BI \"$k = \""* ]] || bad "cakewg.conf.5 does not describe $k"
done

# --- tc-cake words ---
cake_opts=$(section $man8 '^\.SH CAKE OPTIONS' | plain_roff)
words=$(sed -n -e 's/^\s*{ "\([a-z0-9-]*\)", KW_.*/\1/p' -e 's/^\s*FRAMING("\([a-z0-9-]*\)".*/\1/p' \
	qdisc/cake_parse.c)
[ -n "$words" ] || bad "found no keyword table in qdisc/cake_parse.c"
for w in $words; do
	has_word "$cake_opts" "$w" || bad "cakewg.8 CAKE OPTIONS lacks '$w'"
done

# --- environment ---
env_sect=$(section $man8 '^\.SH ENVIRONMENT' | plain_roff)
vars=$(grep -rhoE 'getenv\("[A-Z_]+"\)' src tools --include='*.c' | sed 's/getenv("\(.*\)")/\1/' | sort -u)
for v in $vars; do
	has_word "$env_sect" "$v" || bad "cakewg.8 ENVIRONMENT lacks $v"
	[ "$v" = PATH ] || [[ $readme == *"$v"* ]] || bad "README.md does not mention $v"
done

# --- the UAPI extension ---
arch=$(cat doc/architecture.md)
# Every key the set parser knows that the cross-platform protocol does not is ours.
xplatform=" private_key listen_port fwmark replace_peers public_key update_only remove
	preshared_key endpoint persistent_keepalive_interval replace_allowed_ips allowed_ip
	protocol_version "
ext_keys=()
for k in $(grep -E '\.in = [^,]*WG_CONF_SET' <<<"$key_rows" | sed -n 's/.*\.uapi = "\([a-z_]*\)".*/\1/p'); do
	[[ $xplatform == *[[:space:]]"$k"[[:space:]]* ]] || ext_keys+=("$k")
done
[ ${#ext_keys[@]} -ge 3 ] || bad "found only ${#ext_keys[@]} UAPI extension keys in src/core/conf_keys.c"
for k in "${ext_keys[@]}" cakewg_get=1; do
	[[ $readme == *"$k"* ]] || bad "README.md does not mention the UAPI key $k"
	[[ $arch == *"$k"* ]] || bad "doc/architecture.md does not mention the UAPI key $k"
done

# --- the module map ---
# The files of a directory: what git tracks (work in progress of others is not yet
# part of the tree), or what is there when this is not a git checkout.
files_in() { # files_in DIR GLOB...
	local d=$1
	shift
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files -- "${@/#/$d/}" | grep -v "^$d/.*/"
	else
		local g
		for g in "$@"; do compgen -G "$d/$g"; done
	fi
}
tracked() { # tracked PATH: a file at PATH or under it is part of the tree
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		[ -n "$(git ls-files -- "$1" | head -n 1)" ]
	else
		[ -e "$1" ]
	fi
}
map=$(section doc/architecture.md '^## 3\. Module map')
for d in crypto qdisc src/core src/edge; do
	part=$(section <(printf '%s\n' "$map") "^### $d/")
	for f in $(files_in "$d" '*.c' '*.h'); do
		b=${f##*/}
		n=${b%.*}
		# a.c is named as `a.c` or `a.c/.h`; a.h also as `a.h`
		re="(^|[^A-Za-z0-9_])$n\\.(c([^A-Za-z0-9_/]|/\\.h|\$)"
		[ "${b##*.}" = h ] && re+="|h([^A-Za-z0-9_]|\$)"
		re+=")"
		[[ $part =~ $re ]] || bad "architecture.md's module map lacks $f"
	done
done
tools_part=$(section <(printf '%s\n' "$map") '^### tools/')
for e in tools/*; do
	n=${e##*/}
	[ "$n" = CMakeLists.txt ] && continue
	tracked "$e" || continue
	if [ -d "$e" ] && [ -n "$(files_in "$e" '*.c')" ]; then
		for f in $(files_in "$e" '*.c' '*.h'); do
			b=${f##*/}
			[[ $tools_part == *"$n/${b%.*}."* ]] ||
				bad "architecture.md's module map lacks $f"
		done
	else
		[[ $tools_part == *"\`$n\`"* || $tools_part == *"\`$n/"* ]] || bad "architecture.md's module map lacks tools/$n"
	fi
done

# --- paths and links ---
for f in README.md doc/architecture.md; do
	# `spans` outside fenced blocks, and the targets of [text](target) links
	# shellcheck disable=SC2016 # the backticks are literal
	spans=$(awk '/^```/{f=!f; next} !f' "$f" | grep -oE '`[^`]+`' | tr -d '`')
	links=$(grep -oE '\]\([^)#]+' "$f" | sed 's/^](//' | grep -vE '^[a-z]+:')
	for t in $(printf '%s\n' "$spans" | tr -s ' ,' '\n') $links; do
		case $t in
		crypto/* | qdisc/* | src/* | tools/* | tests/* | doc/* | cmake/* | .ci/*) ;;
		*) continue ;;
		esac
		t=${t%%[:;.)]}
		g=${t//<*>/*} # placeholders like <target> become a glob
		compgen -G "$g" >/dev/null || bad "$f names $t, which does not exist"
	done
done

# --- measured numbers: only from doc/bench/, and every result there linked ---
bench=$(files_in doc/bench '*')
# A link to the folder covers every result in it.
for r in $bench; do
	[[ $readme == *"]($r)"* || $readme == *"](doc/bench/)"* ]] ||
		bad "README.md does not link the results in $r"
done
if [ -n "$bench" ] && [[ $readme == *"No benchmark results are committed"* ]]; then
	bad "README.md says no benchmark results are committed, but doc/bench/ has some"
fi

# --- man pages render cleanly ---
if command -v groff >/dev/null; then
	for m in doc/cakewg.8 doc/cakewg.conf.5; do
		out=$(groff -man -Tutf8 -ww -z "$m" 2>&1)
		[ -z "$out" ] || bad "$m: groff warns: $out"
	done
fi

[ $fail = 0 ] && echo "docs: ok"
exit $fail
