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
#  - every repository path in `backticks` or a link in the markdown files exists, and so
#    does every one the man pages name; relative links resolve from the linking file;
#  - every `cakewg <subcommand>` the docs show is in tools/cakewg/main.c's table, every
#    tools/ script they run exists, and every `tools/run <command>` is one it has;
#  - README's commands run as root without sudo;
#  - doc/bench/README.md links every file in doc/bench/, and the README links it;
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
	! grep -qx 'tools/run demo' <<<"$readme_block" ||
	! grep -qx 'tools/run tests' <<<"$readme_block"; then
	bad "README.md must open with one code block holding exactly 'tools/run demo' and 'tools/run tests'"
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
# A repository path in running text (placeholders such as <if> included).
path_re='(^|[^A-Za-z0-9_./-])(crypto|qdisc|src|tools|tests|doc|cmake|\.ci)/[A-Za-z0-9_./<>*-]*'
# The markdown files: README.md and every one under doc/.
docs_md() {
	echo README.md
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files -- 'doc/*.md'
	else
		compgen -G 'doc/*.md'
		compgen -G 'doc/*/*.md'
	fi
}
for f in $(docs_md); do
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

# --- measured numbers: only from doc/bench/, whose index links every file there ---
bench=$(files_in doc/bench '*')
bench_index=doc/bench/README.md
if [ -n "$bench" ]; then
	if [ -f $bench_index ]; then
		index=$(cat $bench_index)
		for r in $bench; do
			[ "$r" = $bench_index ] && continue
			[[ $index == *"](${r#doc/bench/})"* ]] || bad "$bench_index does not link $r"
		done
	else
		bad "doc/bench/ has results but no index, $bench_index"
	fi
	[[ $readme == *"]($bench_index)"* ]] || bad "README.md does not link $bench_index"
fi
if [ -n "$bench" ] && [[ $readme == *"No benchmark results are committed"* ]]; then
	bad "README.md says no benchmark results are committed, but doc/bench/ has some"
fi

# --- relative links resolve from the file that links ---
for f in $(docs_md); do
	d=${f%/*}
	[ "$d" = "$f" ] && d=.
	for t in $(grep -oE '\]\([^)#]+' "$f" | sed 's/^](//' | grep -vE '^[a-z]+:'); do
		[ -e "$d/$t" ] || bad "$f links $t, which does not exist (from $d/)"
	done
done

# --- repository paths the man pages name ---
for m in doc/cakewg.8 doc/cakewg.conf.5; do
	for t in $(plain_roff <"$m" | grep -oE "$path_re" | sed 's/^[^a-z.]//'); do
		while [[ $t == *[.,:\;\)] ]]; do t=${t%?}; done
		compgen -G "${t//<*>/*}" >/dev/null || bad "$m names $t, which does not exist"
	done
done

# --- commands the docs show: cakewg subcommands, tools/ scripts, tools/run commands ---
# The code of a markdown file: its fenced blocks, then its `spans`, one a line.
md_fenced() { awk '/^```/{f=!f; next} f' "$1"; }
md_spans() {
	# shellcheck disable=SC2016 # the backticks are literal
	awk '/^```/{f=!f; next} !f' "$1" | grep -oE '`[^`]+`' | tr -d '`'
}
# The command lines of a man page: bold lines that start with cakewg, and .nf blocks.
man_cmds() {
	awk '/^\.fi/{f=0} f; /^\.nf/{f=1}
		!f && /^\.(B|BR|RB|BI) +"?cakewg /' "$1" | plain_roff
}
cmd_re="(^|[[:space:];|&(/])cakewg +([a-z][a-z0-9-]*)([^a-z0-9-]|\$)"
run_re="(^|[^A-Za-z0-9_./-])tools/run +([a-z]+)"
run_cmds=$(grep -oE '^[a-z]+\)' tools/run | tr -d ')')
# Both read their lines from stdin and must not run in a pipeline's subshell, where bad()
# could not set $fail.
check_cmds() { # check_cmds FILE: the commands in the lines on stdin
	local line rest w
	while IFS= read -r line; do
		rest=$line
		while [[ $rest =~ $cmd_re ]]; do
			w=${BASH_REMATCH[2]}
			rest=${rest#*"${BASH_REMATCH[0]}"}
			# an interface (`cakewg wg0` runs the daemon), or the man page's placeholder
			[[ $w == *[0-9]* || $w == interface ]] && continue
			has_word "$subcommands" "$w" ||
				bad "$1 shows 'cakewg $w', which tools/cakewg/main.c does not have"
		done
		if [[ $line =~ $run_re ]]; then
			w=${BASH_REMATCH[2]}
			has_word "$run_cmds" "$w" || bad "$1 shows 'tools/run $w', which tools/run does not have"
		fi
	done
}
check_scripts() { # check_scripts FILE: tools/ paths in the lines on stdin exist
	local t
	for t in $(grep -oE "$path_re" | sed 's/^[^a-z.]//' | grep '^tools/'); do # stdin
		while [[ $t == *[.,:\;\)] ]]; do t=${t%?}; done
		[ -e "$t" ] || bad "$1 runs $t, which does not exist"
	done
}
for f in $(docs_md); do
	check_cmds "$f" < <(md_fenced "$f"; md_spans "$f")
	check_scripts "$f" < <(md_fenced "$f") # the spans' paths are checked above
done
for m in doc/cakewg.8 doc/cakewg.conf.5; do
	check_cmds "$m" < <(man_cmds "$m")
done

# --- README's commands run as root, without sudo: a fresh Debian 12 has none ---
if grep -qE '(^|[;&|(] *)sudo ' < <(md_fenced README.md; md_spans README.md); then
	bad "README.md runs a command with sudo; say 'as root' instead"
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
