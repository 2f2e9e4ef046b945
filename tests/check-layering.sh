#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Dependencies point one way: tools -> src/edge -> src/core -> {qdisc, crypto}.
# qdisc/ and crypto/ know nothing of each other or of src/; tools/sim/ (the simulator)
# knows nothing of src/. The pure layers include no event loop, no netlink and read no
# clock.
set -u
top=${1:-.}
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
check crypto '#include "(qdisc|src)/' 'must not include qdisc/ or src/'
check qdisc '#include "(crypto|src)/' 'must not include crypto/ or src/'
check qdisc '#include <sodium' 'must not use libsodium'
check src/core '#include "src/edge/' 'must not include the edge'
check src/core '#include <sodium' 'must use libsodium through crypto/'
# The simulator is a tool's library over the qdisc alone; libc is free to it.
check tools/sim '#include "src/' 'must not include src/'
for d in crypto qdisc src/core; do
	check "$d" '#include <(ev|libmnl/libmnl|linux/netlink)\.h>' 'must not use the loop or netlink'
	check "$d" '\b(clock_gettime|gettimeofday|time\(NULL\)|ev_now|randombytes_buf|getrandom)\b' 'must not read a clock or a global RNG'
done
[ $fail = 0 ] && echo "layering: ok"
exit $fail
