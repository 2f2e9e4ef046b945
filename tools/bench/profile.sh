#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Where cakewg's CPU goes: one iperf3 upload and one download through a cakewg <->
# cakewg tunnel over a direct veth (the topology of throughput.sh), sampled by
# `perf record -a -g` on every CPU. The samples are attributed to the two daemons
# (user space and the kernel work done on their behalf), to iperf3 and to the rest
# (softirq, idle). Each daemon's samples are cut into cost centres: crypto, CAKE, GSO/GRO,
# checksums, copies, the rest of cakewg, libc, and, in the kernel, TUN, UDP/IP, syscall
# entry and wake-ups. The script prints the table and the 25 hottest symbols of each
# direction. A benchmark, not a test.
#
# Usage: tools/bench/profile.sh [--time SECONDS] [--streams N] [--freq HZ] [--keep DIR]
# CAKEWG_BIN selects the cakewg binary (default: build/tools/cakewg). Runs as root; needs perf.
# shellcheck source=tools/bench/lib.sh
source "$(dirname "$0")/lib.sh"
COMMAND_LINE="$0 $*"

SECS=8
STREAMS=1
FREQ=1999
KEEP=
while [ $# -gt 0 ]; do
	case $1 in
	--time) SECS=$2; shift ;;
	--streams) STREAMS=$2; shift ;;
	--freq) FREQ=$2; shift ;;
	--keep) KEEP=$2; shift ;;
	-h | --help) usage 0 ;;
	*) echo "profile.sh: unknown option \`$1'" >&2; usage 2 >&2 ;;
	esac
	shift
done
for v in "$SECS" "$STREAMS" "$FREQ"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || { echo "profile.sh: \`$v' is not a positive number" >&2; exit 2; }
done
require_root wg iperf3 python3 perf
[ -x "$CAKEWG" ] || skip "no cakewg binary at $CAKEWG (set CAKEWG_BIN)"

echo "== where cakewg's CPU goes (tools/bench/profile.sh)"
machine_facts
echo "command:   $COMMAND_LINE"
echo "settings:  iperf3 -t $SECS -P $STREAMS -C cubic through cakewg <-> cakewg, tunnel MTU" \
	"$TUNNEL_MTU, direct veth; perf record -a -g -F $FREQ"
echo

topology direct
tunnel cakewg
iperf_servers 5201
pids="${DAEMON_PID_C[cakewg]},${DAEMON_PID_S[cakewg]}"
for dir in up down; do
	args=(-c "$(tun_addr cakewg s)" -p 5201 -t "$SECS" -P "$STREAMS" -C cubic -J)
	[ "$dir" = down ] && args+=(-R)
	perf record -q -a -g -F "$FREQ" -o "$TMP/perf-$dir.data" -- sleep $((SECS - 1)) \
		>/dev/null 2>&1 &
	rec=$!
	t0=$(daemon_cpu_ticks cakewg)
	n c timeout $((SECS + 20)) iperf3 "${args[@]}" >"$TMP/iperf-$dir.json" 2>&1 || true
	t1=$(daemon_cpu_ticks cakewg)
	wait "$rec" || die "perf record failed"
	perf report -q -i "$TMP/perf-$dir.data" --no-children --sort pid,dso,sym -F overhead,pid,dso,sym \
		--stdio -g none 2>/dev/null >"$TMP/report-$dir.txt"
	"$PY" "$(dirname "$0")/profile.py" "$dir" "$pids" "$TMP/report-$dir.txt" \
		"$TMP/iperf-$dir.json" "$(((t1 - t0)))" "$(getconf CLK_TCK)"
	echo
done
echo "loadavg:   $(cut -d' ' -f1-3 /proc/loadavg) (at end)"
if [ -n "$KEEP" ]; then
	mkdir -p "$KEEP"
	cp "$TMP"/report-*.txt "$TMP"/iperf-*.json "$KEEP"/
fi
