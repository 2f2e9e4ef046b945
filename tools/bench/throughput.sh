#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Throughput and CPU cost: iperf3 (TCP, cubic per socket) through cakewg and through
# wireguard-go, both tunnels side by side in the same two namespaces, runs interleaved
# (the order alternates every run), both directions. For each run: goodput on the
# receiver, and the CPU seconds (utime + stime from /proc/PID/stat) both tunnel daemons
# spent during it. Prints the medians, CPU-seconds per GB and the ratios
# cakewg / wireguard-go. A benchmark, not a test: it passes or fails nothing.
#
#   ns $P-c: ${P}c 198.18.0.1 <-veth-> ns $P-s: ${P}s 198.18.0.2 (no qdisc, no bottleneck)
#   tunnels 198.19.1.0/24 (cakewg, default CAKE: unlimited) and 198.19.2.0/24 (wireguard-go)
#
# Usage: tools/bench/throughput.sh [--rounds N] [--time SECONDS] [--streams N[,N...]]
#                                  [--peer PATH] [--cake OPTIONS] [--keep DIR]
#   --streams 1,4: each round runs every direction with 1 and with 4 parallel streams.
#   --peer PATH: the wireguard-go binary to compare with (default: wireguard-go in PATH,
#     Debian's). The reference is upstream wireguard-go with its offloads, built by
#     ../shared/tools/build-upstream-wireguard-go.sh (never committed). The report ends
#     with the geometric mean of the paired throughput ratios over every case.
#   --cake OPTIONS: tc-cake options for the cakewg client's egress instance (default: the
#     daemon's, unlimited), e.g. --cake "bandwidth 10gbit autorate 10gbit 10gbit" to
#     measure what autorate's signal extractor and controller cost at full speed.
# CAKEWG_BIN selects the cakewg binary (default: build/tools/cakewg). Runs as root.
# Bounded: about rounds x 2 directions x 2 implementations x (time + 1) seconds.
# shellcheck source=tools/bench/lib.sh
source "$(dirname "$0")/lib.sh"
COMMAND_LINE="$0 $*"

ROUNDS=3
SECS=10
STREAMS=1
CAKE_OPTS=
KEEP=

while [ $# -gt 0 ]; do
	case $1 in
	--rounds) ROUNDS=$2; shift ;;
	--time) SECS=$2; shift ;;
	--streams) STREAMS=$2; shift ;;
	--peer) WGGO_BIN=$2; shift ;;
	--cake) CAKE_OPTS=$2; shift ;;
	--keep) KEEP=$2; shift ;;
	-h | --help) usage 0 ;;
	*) echo "throughput.sh: unknown option \`$1'" >&2; usage 2 >&2 ;;
	esac
	shift
done
for v in "$ROUNDS" "$SECS" ${STREAMS//,/ }; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || { echo "throughput.sh: \`$v' is not a positive number" >&2; exit 2; }
done
if [ -n "${WGGO_BIN:-}" ]; then
	[ -x "$WGGO_BIN" ] || { echo "throughput.sh: --peer $WGGO_BIN is not an executable" >&2; exit 2; }
	WGGO_BIN=$(realpath "$WGGO_BIN")
	export WGGO_BIN
fi
[ "$SECS" -le 60 ] && [ "$ROUNDS" -le 10 ] || { echo "throughput.sh: at most 10 rounds of 60 s" >&2; exit 2; }

require_root wg iperf3 python3
[ -n "${WGGO_BIN:-}" ] || command -v wireguard-go >/dev/null || skip "needs wireguard-go"
[ -x "$CAKEWG" ] || skip "no cakewg binary at $CAKEWG (set CAKEWG_BIN)"
HZ=$(getconf CLK_TCK)
RES=$TMP/throughput.jsonl

# run_one IMPL DIR ROUND STREAMS
run_one() {
	local impl=$1 dir=$2 round=$3 streams=$4 t0 t1 json=$TMP/tput-$1-$2-$3-$4.json
	local -a args=(-c "$(tun_addr "$impl" s)" -p 5201 -t "$SECS" -P "$streams" -C cubic -J)
	[ "$dir" = down ] && args+=(-R)
	local s0 s1
	t0=$(daemon_cpu_ticks "$impl")
	s0=$(daemon_sched "$impl")
	n c timeout $((SECS + 20)) iperf3 "${args[@]}" >"$json" 2>&1 || true
	t1=$(daemon_cpu_ticks "$impl")
	s1=$(daemon_sched "$impl")
	"$PY" "$BENCH_PY" tput-record "$RES" impl="$impl" dir="$dir" round="$round" streams="$streams" \
		json="$json" ticks=$((t1 - t0)) hz="$HZ" sched0="$s0" sched1="$s1" \
		loadavg="$(cut -d' ' -f1 /proc/loadavg)"
}

echo "== cakewg throughput benchmark (tools/bench/throughput.sh)"
machine_facts
echo "command:   $COMMAND_LINE"
echo "settings:  $ROUNDS rounds x {up, down} x {cakewg, wireguard-go}, iperf3 -t $SECS" \
	"-P $STREAMS -C cubic, tunnel MTU $TUNNEL_MTU, direct veth, no bottleneck"
echo "CPU:       utime+stime of the two daemons of the tunnel under test (client and"
echo "           server end together), per GB (1e9 bytes) of goodput at the receiver;"
echo "           'waiting for a CPU' = their threads' run-queue time (/proc/PID/task/*/schedstat):"
echo "           when it rivals the CPU time, the host, not the daemon, set the pace"
echo

topology direct
tunnel cakewg
tunnel wggo
iperf_servers 5201
[ -z "$CAKE_OPTS" ] || cake_set "$(tun_if cakewg c)" cake "$CAKE_OPTS"
echo "cakewg CAKE (client): $(cake_get "$(tun_if cakewg c)" | sed -n 's/^cake_egress=//p')"
for impl in cakewg wggo; do
	printf 'TUN offloads (%s, client): %s\n' "${IMPL_NAMES_SH[$impl]}" "$(tun_offloads "$impl")"
done
echo

dirs=(up down)
for round in $(seq 1 "$ROUNDS"); do
	for di in 0 1; do
		for streams in ${STREAMS//,/ }; do
			if [ $(((round + di + streams) % 2)) = 0 ]; then order=(cakewg wggo); else order=(wggo cakewg); fi
			for impl in "${order[@]}"; do
				run_one "$impl" "${dirs[$di]}" "$round" "$streams"
			done
		done
	done
done

echo
"$PY" "$BENCH_PY" tput-report "$RES"
echo
echo "loadavg:   $(cut -d' ' -f1-3 /proc/loadavg) (at end)"
if [ -n "$KEEP" ]; then
	mkdir -p "$KEEP"
	cp "$RES" "$TMP"/tput-*.json "$KEEP"/
fi
