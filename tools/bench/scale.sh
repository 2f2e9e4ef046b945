#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A VPN server with many idle peers (issue #15), cakewg and wireguard-go side by side in
# the same two namespaces. The server end of each tunnel is given idle peers in stages
# (default 0, then 20,000, then 100,000): random 32-byte public keys, each with a /32
# allowed IP in 10.64.0.0/10 (--endpoints: and an endpoint), added with `wg addconf`.
# At each stage, for each implementation:
#   - throughput of the one active peer: iperf3 (TCP cubic, one flow) up and down, and
#     the CPU seconds per GB both daemons spent meanwhile (utime + stime), which a busy
#     host disturbs less than the throughput;
#   - the server daemon's VmRSS (/proc/PID/status), hence bytes per idle peer;
#   - the time `wg show IF dump` takes;
#   - for the stage's add: its time, and the ping RTT through the tunnel while it runs
#     (ping -i 0.01 from the client, from 0.3 s before the add to 0.3 s after it).
# Prints a table per stage, the ratios to 0 idle peers and to wireguard-go, and the
# issue's targets. A benchmark, not a test: it passes or fails nothing.
#
#   ns $P-c: ${P}c 198.18.0.1 <-veth-> ns $P-s: ${P}s 198.18.0.2 (no qdisc)
#   tunnels 198.19.1.0/24 (cakewg, default CAKE) and 198.19.2.0/24 (wireguard-go)
#
# Usage: tools/bench/scale.sh [--peer PATH] [--peers N,N,...] [--time SECONDS]
#                             [--impl cakewg|wggo] [--endpoints] [--keep DIR]
#   --peer PATH: the wireguard-go binary (default /usr/bin/wireguard-go, Debian's);
#     /work/shared/tools/build-upstream-wireguard-go.sh builds upstream's.
#   --peers: the stages, ascending (default 0,20000,100000); 0 is the baseline of the
#     ratios and RSS per peer.
#   --time: seconds of each iperf3 run (default 5).
#   --impl: cakewg, wggo or both (default), comma-separated.
#   --keep DIR: keep the records (scale.jsonl), ping logs and iperf3 JSON there.
# CAKEWG_BIN selects the cakewg binary (default: build/tools/cakewg). Runs as root.
# Bounded: per stage and implementation, 2 x (time + 1) s of iperf3 plus the add and the
# dump: about 3 minutes with the defaults (100,000 peers take wireguard-go ~10 s to add).
# shellcheck source=tools/bench/lib.sh
source "$(dirname "$0")/lib.sh"
COMMAND_LINE="$0 $*"
SCALE_PY=$BENCH_DIR/scalelib.py

PEER_BIN=/usr/bin/wireguard-go
STAGES=0,20000,100000
SECS=5
IMPLS=()
ENDPOINTS=
KEEP=

while [ $# -gt 0 ]; do
	case $1 in
	--peer) PEER_BIN=$2; shift ;;
	--peers) STAGES=$2; shift ;;
	--time) SECS=$2; shift ;;
	--impl) add_list IMPLS "cakewg wggo" "$2"; shift ;;
	--endpoints) ENDPOINTS=endpoints ;;
	--keep) KEEP=$2; shift ;;
	-h | --help) usage 0 ;;
	*) echo "scale.sh: unknown option \`$1'" >&2; usage 2 >&2 ;;
	esac
	shift
done
[ ${#IMPLS[@]} -gt 0 ] || IMPLS=(cakewg wggo)
[[ $SECS =~ ^[1-9][0-9]*$ ]] && [ "$SECS" -le 60 ] || bad "--time: 1 to 60 seconds"
IFS=, read -r -a counts <<<"$STAGES"
prev=-1
for c in "${counts[@]}"; do
	[[ $c =~ ^(0|[1-9][0-9]*)$ ]] && [ "$c" -gt "$prev" ] && [ "$c" -le 1000000 ] ||
		bad "--peers: ascending counts of at most 1000000, got \`$STAGES'"
	prev=$c
done

require_root wg iperf3 python3 ping
[ -x "$CAKEWG" ] || skip "no cakewg binary at $CAKEWG (set CAKEWG_BIN)"
[ -x "$PEER_BIN" ] || bad "--peer: no executable at $PEER_BIN"
# lib.sh starts `wireguard-go` from PATH: make it the one asked for.
mkdir "$TMP/bin"
ln -s "$(readlink -f "$PEER_BIN")" "$TMP/bin/wireguard-go"
PATH=$TMP/bin:$PATH
RES=$TMP/scale.jsonl
HZ=$(getconf CLK_TCK)

# rss_kb IMPL: the server daemon's resident set, in KiB.
rss_kb() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/${DAEMON_PID_S[$1]}/status"; }

# seconds CMD...: runs CMD (output discarded), prints how long it took.
seconds() {
	local t0=$EPOCHREALTIME
	"$@" >/dev/null
	echo "$EPOCHREALTIME $t0" | awk '{printf "%.3f", $1 - $2}'
}

# iperf IMPL DIR OUT: one flow for $SECS seconds, DIR up or down; the CPU ticks both
# daemons of IMPL spent meanwhile go to OUT.ticks.
iperf() {
	local -a args=(-c "$(tun_addr "$1" s)" -p 5201 -t "$SECS" -C cubic -J)
	local t0
	[ "$2" = down ] && args+=(-R)
	t0=$(daemon_cpu_ticks "$1")
	n c timeout $((SECS + 20)) iperf3 "${args[@]}" >"$3" 2>&1 || true
	echo $(($(daemon_cpu_ticks "$1") - t0)) >"$3.ticks"
}

# add_peers IMPL CONF PING_OUT: prints the seconds `wg addconf` took, pinging meanwhile.
add_peers() {
	local impl=$1 conf=$2 out=$3 pid s
	# Not through n(): $! must be ping itself (ip netns exec execs it), for SIGINT to
	# reach it and make it print its summary; a background subshell ignores SIGINT.
	ip netns exec "$P-c" ping -n -i 0.01 -W 2 "$(tun_addr "$impl" s)" >"$out" 2>&1 &
	pid=$!
	sleep 0.3
	s=$(seconds n s wg addconf "$(tun_if "$impl" s)" "$conf")
	sleep 0.3
	kill -INT "$pid" 2>/dev/null || true
	wait "$pid" || true
	echo "$s"
}

echo "== cakewg scale benchmark (tools/bench/scale.sh)"
machine_facts
echo "peer:      $PEER_BIN"
echo "command:   $COMMAND_LINE"
echo "settings:  idle peers on the server end in stages ${STAGES//,/, }; per stage one TCP"
echo "           cubic flow each way for $SECS s, tunnel MTU $TUNNEL_MTU, direct veth;"
echo "           idle peers: random keys, a /32 each${ENDPOINTS:+, an endpoint each}"
echo

topology direct
for impl in "${IMPLS[@]}"; do tunnel "$impl"; done
iperf_servers 5201

prev=0
for c in "${counts[@]}"; do
	conf=
	if [ "$c" -gt "$prev" ]; then
		conf=$TMP/peers-$c.conf
		"$PY" "$SCALE_PY" peers "$prev" $((c - prev)) $ENDPOINTS >"$conf"
	fi
	for impl in "${IMPLS[@]}"; do
		ifs=$(tun_if "$impl" s)
		extra=()
		if [ -n "$conf" ]; then
			add_s=$(add_peers "$impl" "$conf" "$TMP/ping-$impl-$c.txt")
			extra=(added=$((c - prev)) add_s="$add_s" ping="$TMP/ping-$impl-$c.txt")
		fi
		# the active peer and the idle ones; wireguard-go holds at most 65,536 in all
		held=$(($(n s wg show "$ifs" peers | wc -l) - 1))
		[ "$held" = "$c" ] ||
			echo "  ${IMPL_NAMES_SH[$impl]} holds $held idle peers, not $c: its limit"
		dump_s=$(seconds n s wg show "$ifs" dump)
		iperf "$impl" up "$TMP/iperf-$impl-$c-up.json"
		iperf "$impl" down "$TMP/iperf-$impl-$c-down.json"
		"$PY" "$SCALE_PY" record "$RES" impl="$impl" peers="$c" held="$held" \
			rss_kb="$(rss_kb "$impl")" \
			dump_s="$dump_s" up="$TMP/iperf-$impl-$c-up.json" \
			down="$TMP/iperf-$impl-$c-down.json" hz="$HZ" "${extra[@]}"
	done
	prev=$c
done

echo
"$PY" "$SCALE_PY" report "$RES"
echo
echo "loadavg:   $(cut -d' ' -f1-3 /proc/loadavg) (at end)"
if [ -n "$KEEP" ]; then
	mkdir -p "$KEEP"
	cp "$RES" "$TMP"/ping-*.txt "$TMP"/iperf-*.json* "$KEEP"/ 2>/dev/null || true
fi
