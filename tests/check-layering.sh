#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Dependencies point one way: tools -> src/edge -> src/core -> {qdisc, crypto}.
# qdisc/ and crypto/ know nothing of each other or of src/; tools/sim/ (the simulator)
# knows nothing of src/. The pure layers (crypto, qdisc, src/core) include no event
# loop and no netlink, read no clock, call no global RNG, do no I/O and have no mutable
# globals.
#
# Usage: check-layering.sh TOP [BUILD]. With BUILD (the build directory; the `layering`
# test passes it), the pure layers' static libraries are inspected for mutable globals.
set -u
top=${1:-.}
build=${2:-}
fail=0
check() { # check DIR REGEX WHY
	local hits
	# Comment lines may name what the code must not do.
	hits=$(grep -nE "$2" "$top/$1"/*.[ch] 2>/dev/null | grep -vE '^[^:]+:[0-9]+:\s*(\*|/\*|//)')
	if [ -n "$hits" ]; then
		printf 'layering: %s %s:\n%s\n' "$1" "$3" "$hits"
		fail=1
	fi
}
pure="crypto qdisc src/core"
check crypto '#include "(qdisc|src)/' 'must not include qdisc/ or src/'
check qdisc '#include "(crypto|src)/' 'must not include crypto/ or src/'
check qdisc '#include <sodium' 'must not use libsodium'
check src/core '#include "src/edge/' 'must not include the edge'
check src/core '#include <sodium' 'must use libsodium through crypto/'
check src/core '#include <openssl/' 'must use OpenSSL through crypto/'
check qdisc '#include <openssl/' 'must not use OpenSSL'
# The simulator is a tool's library over the qdisc alone; libc is free to it.
check tools/sim '#include "src/' 'must not include src/'
for d in $pure; do
	check "$d" '#include <(ev|libmnl/libmnl|linux/netlink)\.h>' 'must not use the loop or netlink'
	check "$d" '\b(clock_gettime|gettimeofday|ev_now)\b|\b(time|clock)\s*\(' \
		'must not read a clock (time is an argument)'
	check "$d" '\b(randombytes_[a-z_]+|getrandom)\b|\b(s?rand|random)\s*\(' \
		'must not call a global RNG (randomness is an argument)'
	# snprintf and vsnprintf into the caller's buffer are pure and stay allowed.
	check "$d" '\b(printf|fprintf|vprintf|vfprintf|dprintf|vdprintf|puts|fputs|fputc|putc|putchar|perror|fwrite)\s*\(' \
		'must do no I/O (format into a buffer; log through a callback)'
done

# Mutable globals: a grep cannot tell a counter from a `static const` table, the object
# files can. Every symbol of a pure library in a data or bss section (nm classes D d B b
# C) is one, except relocated read-only data (.data.rel.ro: const tables of pointers in
# position-independent code) and names reserved to the implementation (__*: sanitizer
# and coverage metadata).
mutable_globals() { # mutable_globals LIB.a: "object: symbol (section)" per hit
	nm -f sysv "$1" | awk -F'|' '
		/^Symbols from / { obj = $0; sub(/^.*\[/, "", obj); sub(/\].*$/, "", obj); next }
		NF < 7 { next }
		{ for (i = 1; i <= NF; i++) gsub(/^ +| +$/, "", $i) }
		$3 ~ /^[DdBbC]$/ && $7 !~ /^\.data\.rel\.ro/ && $1 !~ /^__/ {
			print obj ": " $1 " (" $7 ")"
		}'
}
if [ -n "$build" ]; then
	for lib in cw_crypto cw_qdisc cakewg_core; do
		a=$(find "$build" -name "lib$lib.a" -print -quit 2>/dev/null)
		if [ -z "$a" ]; then
			printf 'layering: lib%s.a is not built under %s\n' "$lib" "$build"
			fail=1
			continue
		fi
		hits=$(mutable_globals "$a")
		if [ -n "$hits" ]; then
			printf 'layering: %s must have no mutable globals:\n%s\n' "$lib" "$hits"
			fail=1
		fi
	done
	[ $fail = 0 ] && echo "layering: ok"
else
	[ $fail = 0 ] && echo "layering: ok (no build directory given: mutable globals not checked)"
fi
exit $fail
