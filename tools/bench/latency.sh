#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Latency under load, cakewg vs wireguard-go, in the two topologies of DESIGN.md §6.
#
#   ns $P-c (client) ${P}c 198.18.1.1 <-> ${P}rc 198.18.1.254  ns $P-r (router)
#                                         ${P}rs 198.18.2.254 <-> ${P}s 198.18.2.1 ns $P-s (server)
#   tunnels, side by side: cakewg 198.19.1.1 -> .2, wireguard-go 198.19.2.1 -> .2
#
# remote bottleneck ("the cable modem"): a tbf with a bloated FIFO (limit 4mb) on the
#   router's egress in each direction. cakewg: Cake = bandwidth 95% of the bottleneck on the
#   client, CakeIngress = bandwidth 95% ingress for the downloads.
# local bottleneck: the tbf on the sender's own veth (client for uploads, server for
#   downloads); cakewg: Cake = unlimited, socket backpressure alone.
# Loads, from the client: idle; tcp_nup (4 TCP uploads); rrul (4 up + 4 down); udpflood
#   (16 UDP senders at 150% of the bottleneck together). TCP is cubic on every socket
#   (iperf3 -C cubic; the host default is bbr). Probe: ping every 50 ms through the
#   tunnel while the load runs (after a warm-up that iperf3 also omits).
# Per run: ping RTT median/p99 and loss, goodput per flow (iperf3 receiver), Jain's index
#   over the flows of each direction. cakewg and wireguard-go alternate run by run.
# Then, cakewg only, side by side: flows vs flowblind (inner-hash isolation: the added
#   latency of the ping, a sparse flow competing with 4 uploads), split-gso vs
#   no-split-gso (RTT under 4 uploads), no-ack-filter vs ack-filter on the client's
#   Cake (goodput under rrul, where the downloads' ACKs share the upload shaper), all
#   at the remote bottleneck; and with vs
#   without backpressure (UAPI underlay_limit=auto vs off: the learnt byte limit vs a
#   7 MiB send buffer as wireguard-go's) at the local one under tcp_nup and udpflood
#   (drops in CAKE and in the tbf below it, RTT).
#
# Usage: tools/bench/latency.sh [--quick] [--rate 50|200] [--topology remote|local]
#            [--load idle|tcp_nup|rrul|udpflood] [--impl cakewg|wggo] [--duration S]
#            [--warmup S] [--no-seeds] [--svg FILE] [--keep DIR]
#   --rate, --topology, --load and --impl may repeat or take a comma list (default: all).
#   --duration: seconds of each measurement (default 12; --quick: 50 Mbit/s, 3 s).
#   --svg FILE: RTT over time (log scale) and its CDF under tcp_nup, remote bottleneck,
#     first rate.
#   --keep DIR: keep the raw records (runs.jsonl), ping logs and iperf3 JSON there.
# CAKEWG_BIN selects the cakewg binary (default: build/tools/cakewg). Runs as root.
# Bounded: about (duration + warm-up + 4 s) per run; the default matrix is 32 runs
# plus 10 side-by-side runs per rate: about 14 minutes; --quick about 3.
# shellcheck source=tools/bench/lib.sh
source "$(dirname "$0")/lib.sh"
COMMAND_LINE="$0 $*"

RATES=()
TOPOS=()
LOADS=()
IMPLS=()
DUR=12
WARM=2
SEEDS=1
QUICK=0
SVG=
KEEP=
FIFO_LIMIT=4mb
SAMPLE_INTERVAL=0.5
UDP_LEN=1360
UDP_OVER_PCT=150

while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=1 ;;
	--rate) add_list RATES "50 200" "$2"; shift ;;
	--topology) add_list TOPOS "remote local" "$2"; shift ;;
	--load) add_list LOADS "idle tcp_nup rrul udpflood" "$2"; shift ;;
	--impl) add_list IMPLS "cakewg wggo" "$2"; shift ;;
	--duration) DUR=$2; DUR_SET=1; shift ;;
	--warmup) WARM=$2; shift ;;
	--no-seeds) SEEDS=0 ;;
	--svg) SVG=$2; shift ;;
	--keep) KEEP=$2; shift ;;
	-h | --help) usage 0 ;;
	*) echo "latency.sh: unknown option \`$1'" >&2; usage 2 >&2 ;;
	esac
	shift
done
if [ $QUICK = 1 ]; then
	[ ${#RATES[@]} -gt 0 ] || RATES=(50)
	[ -n "${DUR_SET:-}" ] || DUR=3
	WARM=1
fi
[ ${#RATES[@]} -gt 0 ] || RATES=(50 200)
[ ${#TOPOS[@]} -gt 0 ] || TOPOS=(remote local)
[ ${#LOADS[@]} -gt 0 ] || LOADS=(idle tcp_nup rrul udpflood)
[ ${#IMPLS[@]} -gt 0 ] || IMPLS=(cakewg wggo)
[[ $DUR =~ ^[0-9]+$ ]] && [ "$DUR" -ge 2 ] && [ "$DUR" -le 60 ] || bad "--duration is 2..60 s"
[[ $WARM =~ ^[0-9]+$ ]] && [ "$WARM" -le 10 ] || bad "--warmup is 0..10 s"

require_root wg wireguard-go iperf3 python3 tc ping
[ -x "$CAKEWG" ] || skip "no cakewg binary at $CAKEWG (set CAKEWG_BIN)"
RES=$TMP/runs.jsonl
RAW=$TMP/raw
mkdir -p "$RAW"
PING_COUNT=$(((DUR * 1000 - 500) / 50))

has() { local x=$1; shift; [[ " $* " == *" $x "* ]]; }
shaped_kbit() { echo $(($1 * 950)); }

# tun_drops_snap IMPL: the client TUN device's qdisc and link counters (tc -s, ip -s -j):
# a packet the daemon did not read in time is dropped in one of the two.
tun_drops_snap() {
	local dev
	dev=$(tun_if "$1" c)
	n c tc -s qdisc show dev "$dev"
	echo "LINK $(n c ip -s -j link show dev "$dev")"
}

# cake_snap CLIENT_FILE SERVER_FILE: both cakewg daemons' cakewg_get=1 replies.
cake_snap() {
	"$PY" "$BENCH_PY" snap "/var/run/wireguard/$(tun_if cakewg c).sock" "$1" \
		"/var/run/wireguard/$(tun_if cakewg s).sock" "$2" || die "cakewg_get failed"
}

# counters_snap IMPL TAG N: the counters a run compares before (N 0) and after (N 1) it,
# into $RAW/TAG-*N.txt: the client TUN's drops, the tbf's, and cakewg's CAKE on both sides.
counters_snap() {
	local impl=$1 tag=$2 i=$3
	tun_drops_snap "$impl" >"$RAW/$tag-tunq$i.txt"
	tbf_snap >"$RAW/$tag-tbf$i.txt"
	if [ "$impl" = cakewg ]; then
		cake_snap "$RAW/$tag-cake-c$i.txt" "$RAW/$tag-cake-s$i.txt"
	fi
}

# cake_profile TOPO RATE [EXTRA]: cakewg's CAKE for the main matrix (plus EXTRA options).
cake_profile() {
	local topo=$1 rate=$2 extra=${3:-}
	has cakewg "${IMPLS[@]}" || return 0
	local c s
	c=$(tun_if cakewg c)
	s=$(tun_if cakewg s)
	if [ "$topo" = remote ]; then
		cake_set "$c" cake "bandwidth $(shaped_kbit "$rate")kbit triple-isolate split-gso $extra"
		cake_set "$c" cake_ingress "bandwidth $(shaped_kbit "$rate")kbit ingress"
	else
		cake_set "$c" cake "unlimited triple-isolate split-gso $extra"
		# Only an earlier remote profile made an ingress instance; remove or open it.
		if ! printf 'set=1\ncake_ingress=none\n\n' | uapi "$c" >/dev/null 2>&1; then
			[ -n "${NONE_NOTED:-}" ] || echo "note: cakewg refused cake_ingress=none;" \
				"the local profile uses CakeIngress = unlimited instead"
			NONE_NOTED=1
			cake_set "$c" cake_ingress unlimited
		fi
	fi
	cake_set "$s" cake "unlimited triple-isolate split-gso"
}

# run_one TOPO RATE LOAD IMPL VARIANT [NOTE]
run_one() {
	local topo=$1 rate=$2 load=$3 impl=$4 variant=$5 note=${6:-}
	local tag=$topo-$rate-$load-$impl-$variant pid shaped=
	local c0="" c1="" s0="" s1=""
	printf '[%s] %-6s %3s Mbit/s %-8s %-6s %s\n' "$(date +%T)" "$topo" "$rate" "$load" \
		"$impl" "$variant"
	counters_snap "$impl" "$tag" 0
	if [ "$impl" = cakewg ]; then
		c0=$RAW/$tag-cake-c0.txt
		s0=$RAW/$tag-cake-s0.txt
		c1=$RAW/$tag-cake-c1.txt
		s1=$RAW/$tag-cake-s1.txt
		[ "$topo" = remote ] && shaped=$(awk "BEGIN { print $rate * 0.95 }")
	fi
	local sched0 sched1
	sched0=$(daemon_sched "$impl")
	queue_sampler "$RAW/$tag-queues.txt" "$impl" "$SAMPLE_INTERVAL" &
	local sampler=$!
	start_load "$load" "$impl" "$rate" "$tag"
	[ "$load" = idle ] || sleep "$WARM.3"
	ping_probe "$impl" "$PING_COUNT" "$RAW/$tag-ping.txt"
	for pid in "${LOAD_PIDS[@]}"; do wait "$pid" || true; done
	kill "$sampler" 2>/dev/null || true
	wait "$sampler" 2>/dev/null || true
	sched1=$(daemon_sched "$impl")
	counters_snap "$impl" "$tag" 1
	"$PY" "$BENCH_PY" lat-record "$RES" topo="$topo" rate="$rate" load="$load" \
		impl="$impl" variant="$variant" note="$note" shaped="$shaped" duration="$DUR" \
		interval="$PING_INTERVAL" ping="$RAW/$tag-ping.txt" up="$UP_JSON" down="$DOWN_JSON" \
		cake_c0="$c0" cake_c1="$c1" cake_s0="$s0" cake_s1="$s1" \
		tunq0="$RAW/$tag-tunq0.txt" tunq1="$RAW/$tag-tunq1.txt" \
		tbf0="$RAW/$tag-tbf0.txt" tbf1="$RAW/$tag-tbf1.txt" \
		queues="$RAW/$tag-queues.txt" prefix="$P" port_c="510$(impl_net "$impl")1" \
		port_s="510$(impl_net "$impl")2" sched0="$sched0" sched1="$sched1" \
		loadavg="$(cut -d' ' -f1 /proc/loadavg)"
	sleep 1 # the 4 MB FIFOs drain (0.7 s at 50 Mbit/s)
}

# tbf_snap: the client veth's qdisc counters (the local bottleneck's drops).
tbf_snap() {
	n c tc -s qdisc show dev "${P}c"
}

# seeds_local RATE: backpressure on and off, local bottleneck.
seeds_local() {
	local rate=$1 v load c
	c=$(tun_if cakewg c)
	bottleneck local "$rate" "$FIFO_LIMIT"
	cake_profile local "$rate"
	for v in auto off; do
		cake_set "$c" underlay_limit "$v"
		for load in tcp_nup udpflood; do
			run_one local "$rate" "$load" cakewg "backpressure=$v"
		done
	done
	cake_set "$c" underlay_limit auto
}

# seeds RATE: cakewg's features side by side at the remote bottleneck (4 uploads; rrul).
seeds() {
	local rate=$1 v
	bottleneck remote "$rate" "$FIFO_LIMIT"
	for v in flows flowblind; do
		cake_profile remote "$rate" "$v"
		run_one remote "$rate" tcp_nup cakewg "isolation=$v"
	done
	for v in split-gso no-split-gso; do
		cake_profile remote "$rate" "$v"
		run_one remote "$rate" tcp_nup cakewg "$v"
	done
	if has rrul "${LOADS[@]}"; then
		for v in no-ack-filter ack-filter; do
			cake_profile remote "$rate" "$v"
			run_one remote "$rate" rrul cakewg "$v"
		done
	fi
	cake_profile remote "$rate"
}

echo "== cakewg latency under load (tools/bench/latency.sh)"
machine_facts
echo "command:   $COMMAND_LINE"
echo "settings:  rates {${RATES[*]}} Mbit/s, topologies {${TOPOS[*]}}, loads {${LOADS[*]}}," \
	"implementations {${IMPLS[*]}}"
echo "           ${DUR} s measured after a ${WARM} s warm-up, ping every 50 ms ($PING_COUNT" \
	"probes), tunnel MTU $TUNNEL_MTU, tbf limit $FIFO_LIMIT, UDP flood 16 x" \
	"$UDP_LEN-byte senders at $UDP_OVER_PCT% of the rate"
echo "cakewg:    remote: Cake = bandwidth 95% (kbit), CakeIngress = bandwidth 95% ingress" \
	"(client); local: Cake = unlimited; server: unlimited"
echo

topology routed
for impl in "${IMPLS[@]}"; do tunnel "$impl"; done
iperf_servers 5201 5202
for impl in "${IMPLS[@]}"; do
	printf 'TUN offloads (%s, client): %s\n' "${IMPL_NAMES_SH[$impl]}" "$(tun_offloads "$impl")"
done
echo

run_no=0
for rate in "${RATES[@]}"; do
	for topo in "${TOPOS[@]}"; do
		bottleneck "$topo" "$rate" "$FIFO_LIMIT"
		cake_profile "$topo" "$rate"
		for load in "${LOADS[@]}"; do
			if [ $((run_no % 2)) = 0 ]; then order=("${IMPLS[@]}"); else
				order=(); for ((i = ${#IMPLS[@]} - 1; i >= 0; i--)); do order+=("${IMPLS[$i]}"); done
			fi
			run_no=$((run_no + 1))
			for impl in "${order[@]}"; do
				run_one "$topo" "$rate" "$load" "$impl" default
			done
		done
	done
	if [ $SEEDS = 1 ] && has cakewg "${IMPLS[@]}" && has remote "${TOPOS[@]}" &&
		has tcp_nup "${LOADS[@]}"; then
		seeds "$rate"
	fi
	if [ $SEEDS = 1 ] && has cakewg "${IMPLS[@]}" && has local "${TOPOS[@]}" &&
		has idle "${LOADS[@]}"; then
		seeds_local "$rate"
	fi
done

echo
"$PY" "$BENCH_PY" lat-report "$RES"
echo "loadavg:   $(cut -d' ' -f1-3 /proc/loadavg) (at end)"
if [ -n "$SVG" ]; then
	# readable by all: tests/netns/lib.sh sets umask 077 for its keys
	"$PY" "$BENCH_PY" svg "$RES" "$SVG" remote "${RATES[0]}" tcp_nup && chmod 644 "$SVG" &&
		echo "plot:      $SVG"
fi
if [ -n "$KEEP" ]; then
	mkdir -p "$KEEP"
	cp -r "$RES" "$RAW" "$KEEP"/
fi
