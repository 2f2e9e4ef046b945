#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# ctest: runs alone, as its goodput and marks depend on the shaper running on time.
# ECN through cakewg (issue 5's acceptance tests, part 2): "an ECT flow is marked (not
# dropped) and the mark survives decapsulation at a wireguard-go peer".
#  1. cakewg shapes at 5 Mbit/s; a cubic TCP upload that negotiated ECN (tcp_ecn=1 on
#     both ends) is CE-marked by CAKE, with next to no drops; the receiver is cakewg in
#     one run and wireguard-go in the other, and in both the receiver's stack gets
#     CE-marked inner packets (counted on its tunnel device) and the sender hears of them
#     (TcpExtTCPDeliveredCE, ss's delivered_ce).
#  2. RFC 6040 at a cakewg receiver: nftables on the path marks the outer header of one
#     ECT datagram in 50 CE (CAKE unlimited, so CAKE hardly marks); every outer CE becomes
#     an inner CE on the receiver's tunnel device, and no packet is dropped for ECN.
#     Skipped without nft (this kernel has no netem and no tc actions).
#
#   ns $P-a                                   ns $P-b
#   $P"wa" cakewg 198.19.0.1 ================ $P"wb" cakewg | wireguard-go 198.19.0.2
#     CAKE bandwidth 5mbit                        ^ capture.py: inner TCP, ECN field
#   $P"a" veth 198.18.0.1 <-------------------> $P"b" veth 198.18.0.2
#     (part 2: nft sets CE on 1 in 50)            ^ capture.py: outer ECN field
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-cake.sh"
require_root wg iperf3 python3 ss tc
need_cubic

# ecn_pair IMPL_B: the pair with ECN negotiated by TCP in both namespaces.
ecn_pair() {
	cake_pair "$1" 4
	n a sysctl -qw net.ipv4.tcp_ecn=1
	n b sysctl -qw net.ipv4.tcp_ecn=1
}

# The most goodput CAKE at SHAPER_MBIT lets through, from the shaper's arithmetic: it
# charges each packet its datagram on the wire (src/core/egress.c's wire_len: the inner
# packet, padded to 16 within the MTU, 32 bytes of WireGuard header and tag, 8 of UDP,
# 20 of outer IPv4), and a full segment carries the MTU less 20 bytes of IPv4 and 32 of
# TCP with timestamps: 1368 of 1480 bytes, 4.62 Mbit/s of 5. The receiver's clock runs
# from before the first segment to after the last, so one segment more is all its
# window can add. (Measured: 4.609-4.617.) The floor is not derived: the shaper stays
# busy once the flow runs (CAKE marks above its 5 ms target, far above the path's ~0.1 ms
# BDP, and cubic's answer leaves most of that queued), but when iperf3's sender starts
# after the receiver's clock did is the machine's scheduling, so 3.5 stays.
SHAPER_MBIT=5
GOODPUT_FLOOR_MBIT=3.5
# goodput_ceiling SECS: in Mbit/s, for an upload the receiver timed over SECS.
goodput_ceiling() {
	python3 -c 'import sys
mtu, mbit, secs = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
mss, wire = mtu - 20 - 32, mtu + 32 + 8 + 20
print("%.4f" % (mbit * mss / wire + 8e-6 * mss / secs))' "$TUN_MTU" "$SHAPER_MBIT" "$1"
}

# upload SECS: a cubic TCP upload A -> B. Sets RATE (goodput, Mbit/s), RATE_SECS (the
# time the receiver measured it over) and SS_CE (the sender's delivered_ce from ss,
# sampled mid-way).
upload() {
	local secs=$1 pid
	iperf_server b 5201
	n a timeout $((secs + 20)) iperf3 -c 198.19.0.2 -t "$secs" -C cubic -J >"$TMP/up.json" 2>&1 &
	pid=$!
	sleep $((secs / 2))
	SS_CE=$(n a ss -tin dst 198.19.0.2 | sed -n 's/.* delivered_ce:\([0-9]*\).*/\1/p' | sort -n | tail -n 1)
	wait $pid || { cat "$TMP/up.json"; die "the upload failed"; }
	RATE=$(iperf_json "$TMP/up.json" "'%.4f' % (r['end']['sum_received']['bits_per_second'] / 1e6)")
	RATE_SECS=$(iperf_json "$TMP/up.json" "r['end']['sum_received']['seconds']")
}

# marked_by_cake IMPL_B
marked_by_cake() {
	local impl=$1 cap rate marks drops ce ect ce_kernel delivered_ce ceiling
	log "== 1. CAKE marks an ECN flow at 5 Mbit/s; the receiver is $impl"
	ecn_pair "$impl"
	n a "$CAKEWG" set "${P}wa" cake bandwidth "${SHAPER_MBIT}mbit"
	capture_start inner b "${P}wb" --tcp --direction in
	upload 8
	rate=$RATE
	ceiling=$(goodput_ceiling "$RATE_SECS")
	capture_stop inner
	cap=$CAP
	marks=$(tin_field "${P}wa" 1 ecn_mark)
	drops=$(tin_field "${P}wa" 1 drops)
	ce=$(jget "$cap" "j['ecn_segs'][3]")
	ect=$(jget "$cap" "j['ecn'][2]")
	ce_kernel=$(kstat b IpExtInCEPkts)
	delivered_ce=$(kstat a TcpExtTCPDeliveredCE)
	log "$impl: goodput $rate Mbit/s (the shaper's ceiling $ceiling); Best Effort tin:" \
		"$marks marks, $drops drops"
	log "$impl: inner packets at the receiver: $(jget "$cap" "j['packets']") TCP, $ect ECT(0), $ce CE"
	log "$impl: receiver IpExtInCEPkts $ce_kernel (outer and inner); sender" \
		"TcpExtTCPDeliveredCE $delivered_ce, ss delivered_ce ${SS_CE:-?} mid-transfer"
	le "$rate" "$ceiling" && le "$GOODPUT_FLOOR_MBIT" "$rate" ||
		die "$impl: goodput $rate Mbit/s through a 5 Mbit/s shaper (ceiling $ceiling)"
	[ "$ect" -gt $(( $(jget "$cap" "j['packets']") / 2 )) ] || die "$impl: the flow did not negotiate ECN"
	[ "$marks" -gt 0 ] || die "$impl: CAKE marked nothing"
	[ $((drops * 10)) -le "$marks" ] || die "$impl: CAKE dropped $drops ECT packets for $marks marks"
	[ "$ce" -gt 0 ] || die "$impl: no CE-marked inner packet reached the receiver"
	[ "$ce" -le "$marks" ] || die "$impl: $ce inner CE packets, but CAKE marked only $marks"
	[ "$ce" -ge $((marks * 9 / 10)) ] || die "$impl: CAKE marked $marks packets, $ce arrived CE"
	[ "$ce_kernel" -ge "$ce" ] || die "$impl: the receiver's stack counted $ce_kernel CE packets"
	[ "$delivered_ce" -gt 0 ] || die "$impl: the sender never heard of a CE mark"
	teardown_pair
}

marked_by_cake cakewg
if command -v wireguard-go >/dev/null; then
	marked_by_cake wggo
else
	skip_part "no wireguard-go: the wireguard-go receiver is not tested"
fi

log "== 2. RFC 6040 decapsulation: outer CE from the path becomes inner CE at cakewg"
# This kernel has no netem and no tc actions: nftables marks one ECT(0) datagram in 50
# CE on its way out of A, as a congested router would (a train of datagrams, one UDP GSO
# packet there, is marked as a whole).
if ! command -v nft >/dev/null; then
	skip_part "no nft to mark the outer header on the path"
	finish
	exit 0
fi
ecn_pair cakewg
printf '%s\n' "table ip ${P}ecn {" "chain post {" \
	"type filter hook postrouting priority 0; policy accept;" \
	"udp dport 10002 ip ecn ect0 numgen inc mod 50 0 ip ecn set ce" "}" "}" >"$TMP/ecn.nft"
if ! n a nft -f "$TMP/ecn.nft"; then
	skip_part "nftables cannot set the ECN field here"
	finish
	exit 0
fi
capture_start outer b "${P}b" --udp-port 10002 --direction in
capture_start inner b "${P}wb" --tcp --direction in
upload 5
rate=$RATE
capture_stop inner
inner=$CAP
capture_stop outer
outer=$CAP
# Datagrams, not packets: cakewg sends trains (UDP GSO), and the rule marks a whole
# train, which the receiver takes as that many CE datagrams.
outer_ce=$(jget "$outer" "j['ecn_segs'][3]")
inner_ce=$(jget "$inner" "j['ecn_segs'][3]")
cake_marks=$(jget "$(cake_json "${P}wa")" "sum(t['ecn_mark'] for t in j['tins'])")
ecn_drops=$(ext_val "${P}wb" rx_ecn_drops)
log "goodput $rate Mbit/s; outer CE $outer_ce of $(jget "$outer" "sum(j['ecn_segs'])") datagrams" \
	"($(jget "$outer" "j['packets']") packets, $(jget "$outer" "j['gso']") of them trains);" \
	"inner CE $inner_ce; marked by A's CAKE $cake_marks; B's rx_ecn_drops $ecn_drops"
log "B's TUN writes: $(jget "$inner" "j['packets']") TCP packets, $(jget "$inner" "j['gso']")" \
	"of them coalesced (GRO: $(ext_val "${P}wb" tun_gro_coalesced) segments joined)"
[ "$outer_ce" -gt 20 ] || die "only $outer_ce datagrams arrived CE"
[ "$(jget "$outer" "j['kernel_drops']")" = 0 ] && [ "$(jget "$inner" "j['kernel_drops']")" = 0 ] ||
	die "a capture lost packets: the counts cannot be compared"
[ "$inner_ce" -ge "$outer_ce" ] || die "$outer_ce datagrams arrived CE, only $inner_ce inner packets are CE"
[ "$inner_ce" -le $((outer_ce + cake_marks)) ] ||
	die "$inner_ce inner CE packets: more than $outer_ce outer CE + $cake_marks CAKE marks"
[ "$ecn_drops" = 0 ] || die "B dropped $ecn_drops ECT packets for ECN"
[ "$(kstat a TcpExtTCPDeliveredCE)" -gt 0 ] || die "the sender never heard of the CE marks"
finish
