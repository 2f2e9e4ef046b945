#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# ctest: runs alone, as its UDP loss bound needs the daemon to keep up.
# Every datagram a standard peer sends is accepted, whatever our MTU (issue 15, part 3),
# and a later MTU change reaches both CAKE instances.
#  - mismatched MTUs, both ways: cakewg at 1280 against wireguard-go at 1420, and cakewg
#    at 1420 against wireguard-go at 1280. Full-size pings (`ping -s`, DF set) from the
#    side with the larger MTU all come back, a UDP stream of full-size datagrams from it
#    arrives (iperf3 -u -l), TCP runs both ways, and cakewg's counters say that the long
#    datagrams came whole (underlay_rx_large > 0, underlay_truncated 0);
#  - a jumbo underlay: veths at 9000, both tunnels at 8920; full-size pings and TCP both
#    ways;
#  - an MTU change (ip link set mtu, seen by the daemon's link events) moves the target of
#    the egress and the ingress CAKE at a low rate (1.5 times one MTU's time at 1 Mbit/s).
#
#   ns $P-a                                   ns $P-b
#   $P"wa" cakewg 198.19.0.1 ================ $P"wb" wireguard-go 198.19.0.2
#   $P"a" veth 198.18.0.1 <-------------------> $P"b" veth 198.18.0.2
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-cake.sh"
[ "${CI:-}" = true ] && skip() { die "$*"; } # in CI a missing tool is a failure
require_root wg wireguard-go iperf3 python3 ping

IP4_ICMP_HDRS=28 # IPv4 20 + ICMP 8: ping -s for a full-size packet is MTU - 28
UDP_LOSS_PCT=5	 # the full-size UDP stream at 20 Mbit/s: what may be lost in flight

# full_pings NS ADDR MTU: five pings that fill the tunnel MTU exactly, DF set, all back.
full_pings() {
	local size=$(($3 - IP4_ICMP_HDRS))
	n "$1" ping -q -c 5 -i 0.2 -W 2 -M do -s "$size" "$2" >"$TMP/ping.txt" 2>&1 ||
		{ cat "$TMP/ping.txt"; die "full-size pings ($size bytes) from $1 to $2 did not all come back"; }
	log "$1 -> $2: 5 of 5 pings of $size bytes (packets of $3)"
}

# udp_stream FROM TO ADDR MTU: iperf3 UDP of datagrams that fill the tunnel MTU.
udp_stream() {
	local from=$1 to=$2 addr=$3 len=$(($4 - IP4_ICMP_HDRS)) loss
	iperf_server "$to" 5202
	# (iperf3 warns that the datagrams exceed the TCP MSS: they are meant to)
	n "$from" iperf3 -c "$addr" -p 5202 -u -b 20M -l "$len" -t 2 -J >"$TMP/udp.json" \
		2>"$TMP/udp.err" || { cat "$TMP/udp.json" "$TMP/udp.err"; die "iperf3 -u from $from failed"; }
	loss=$(iperf_json "$TMP/udp.json" "r['end']['sum']['lost_percent']")
	log "$from -> $to: UDP datagrams of $len bytes, $loss % lost"
	le "$loss" "$UDP_LOSS_PCT" || die "$from -> $to: $loss % of the full-size UDP stream lost"
}

# accepted_whole: cakewg took long datagrams whole and truncated none.
accepted_whole() {
	local large truncated
	large=$(ext_val "${P}wa" underlay_rx_large)
	truncated=$(ext_val "${P}wa" underlay_truncated)
	log "cakewg: underlay_rx_large $large, underlay_truncated $truncated"
	[ "$truncated" = 0 ] || die "cakewg truncated $truncated datagrams"
	[ "$large" -gt 0 ] || die "no datagram longer than cakewg's MTU arrived"
}

# mismatch CAKEWG_MTU WGGO_MTU: one pairing of MTUs, cakewg initiating.
mismatch() {
	local mine=$1 theirs=$2
	log "== cakewg at MTU $mine, wireguard-go at $theirs"
	pair cakewg wggo 4
	set_mtu a "${P}wa" "$mine"
	set_mtu b "${P}wb" "$theirs"
	ping_ok a 198.19.0.2 || die "no ping through the tunnel"
	full_pings a 198.19.0.2 "$mine"
	full_pings b 198.19.0.1 "$theirs"
	if [ "$theirs" -gt "$mine" ]; then
		udp_stream b a 198.19.0.1 "$theirs"
		accepted_whole
	else
		udp_stream a b 198.19.0.2 "$mine"
	fi
	log "TCP a -> b: $(iperf_through a b 198.19.0.2 2)"
	log "TCP b -> a: $(iperf_through a b 198.19.0.2 2 -R)"
	teardown_pair
}

# jumbo: veths at 9000, tunnels at 8920.
jumbo() {
	log "== a jumbo underlay: veths at 9000, tunnels at 8920"
	pair cakewg wggo 4
	n a ip link set "${P}a" mtu 9000
	n b ip link set "${P}b" mtu 9000
	set_mtu a "${P}wa" 8920
	set_mtu b "${P}wb" 8920
	ping_ok a 198.19.0.2 || die "no ping through the tunnel"
	full_pings a 198.19.0.2 8920
	full_pings b 198.19.0.1 8920
	log "TCP a -> b: $(iperf_through a b 198.19.0.2 2)"
	log "TCP b -> a: $(iperf_through a b 198.19.0.2 2 -R)"
	[ "$(ext_val "${P}wa" underlay_truncated)" = 0 ] || die "cakewg truncated datagrams"
	teardown_pair
}

# target_ms IF egress|ingress: tin 0's target, in ms.
target_ms() {
	jget "$(cake_json "$1" "$2")" "'%.2f' % (j['tins'][0]['target_us'] / 1000)"
}

# targets_are MTU: both instances' target is 1.5 x the time of MTU + 80 bytes (CAKE's
# MTU is the tunnel's plus the IPv6 encapsulation) at 1 Mbit/s, within 2 %; says so.
targets_are() {
	local want inst got
	want=$(python3 -c 'import sys; print(1.5 * (int(sys.argv[1]) + 80) * 8 / 1e3)' "$1")
	for inst in egress ingress; do
		got=$(target_ms "${P}wa" "$inst")
		echo "MTU $1: $inst target $got ms (want $want ms)"
		python3 -c 'import sys; g, w = map(float, sys.argv[1:]); sys.exit(abs(g - w) > w * 0.02)' \
			"$got" "$want" || return 1
	done
}

# expect_targets MTU: targets_are, once the link event has had a moment to arrive.
expect_targets() {
	wait_for 5 targets_are "$1" || true
	targets_are "$1" | while read -r line; do log "$line"; done
	targets_are "$1" >/dev/null || die "MTU $1: a CAKE instance's target did not follow"
}

# mtu_change: ip link set mtu on cakewg's device reaches both CAKE instances.
mtu_change() {
	log "== MTU changes reach the egress and the ingress CAKE"
	pair cakewg wggo 4
	uapi_set "${P}wa" 'cake=bandwidth 1mbit besteffort\ncake_ingress=bandwidth 1mbit besteffort' ||
		die "could not configure CAKE"
	set_mtu a "${P}wa" 1280
	expect_targets 1280
	set_mtu a "${P}wa" 8920
	expect_targets 8920
	ping_ok a 198.19.0.2 || die "no ping after the MTU changes"
	teardown_pair
}

mismatch 1280 1420
mismatch 1420 1280
jumbo
mtu_change
finish
