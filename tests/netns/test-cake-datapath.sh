#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# CAKE in the datapath, cakewg <-> cakewg (issue 5's acceptance tests, part 1):
#  1. TUN offloads and split-gso: TCP transfers both ways with the TUN device's TSO on
#     complete; every datagram on the underlay is at most tunnel MTU + 80 bytes and never
#     a fragment, while CAKE saw super-packets arrive (a tin's max_len) and, with
#     split-gso, sent one datagram per CAKE packet; with no-split-gso (set through raw
#     UAPI on one side, `cakewg set` on the other) CAKE queues super-packets whole (many
#     datagrams per CAKE packet) and the send path still cuts them to the same bound.
#  2. Tin selection: with `bandwidth 20mbit diffserv4`, pings marked EF, CS1, AF41 and
#     CS0 (IPv4 and IPv6) land in Voice, Bulk, Video and Best Effort, one CAKE packet per
#     ping and nothing in the other tins; a TCP transfer marked CS1 goes to Bulk; the inner
#     DSCP never shows on the outer header.
#
#   ns $P-a                                   ns $P-b
#   $P"wa" cakewg 198.19.0.1  fd00:19::1 ==== $P"wb" cakewg 198.19.0.2  fd00:19::2
#     (MTU 1420)                                (MTU 1420)
#   $P"a" veth fd00:18::1 <-------------------> $P"b" veth fd00:18::2  (IPv6 underlay)
#         ^ capture.py: every datagram of the tunnel, both directions
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-cake.sh"
require_root wg iperf3 python3 ping
need_cubic

BOUND=$((TUN_MTU + WG_V6_OVERHEAD))

# units IF: "CAKE_PACKETS UNDERLAY_DATAGRAMS" the side has sent so far.
units() {
	echo "$(jget "$(cake_json "$1")" "j['packets']") $(ext_val "$1" underlay_sent)"
}

# transfers NAME: a TCP upload (A sends) and a download (B sends) through the tunnel,
# captured on A's veth; asserts the wire bound. Sets RATIO_a and RATIO_b: datagrams on
# the wire per CAKE packet for the sender's transfer (1 when CAKE queues segments).
transfers() {
	local name=$1 cap dir side args c0 u0 c1 u1
	capture_start "$name" a "${P}a" --udp-port 10002 --limit "$BOUND"
	for dir in upload download; do
		side=a args=()
		[ $dir = download ] && side=b args=(-R)
		read -r c0 u0 <<<"$(units "${P}w$side")"
		iperf_through a b 198.19.0.2 4 -C cubic "${args[@]}" || die "$name: $dir failed"
		read -r c1 u1 <<<"$(units "${P}w$side")"
		[ $((c1 - c0)) -gt 0 ] || die "$name: $dir: nothing went through $side's CAKE"
		printf -v "RATIO_$side" '%s' "$(python3 -c "print(round($((u1 - u0)) / $((c1 - c0)), 2))")"
		log "$name $dir: $side sent $((c1 - c0)) CAKE packets as $((u1 - u0)) datagrams"
	done
	capture_stop "$name"
	cap=$CAP
	log "$name: underlay capture $cap"
	jget "$cap" "j['packets'] > 20000" | grep -qx True || die "$name: too few datagrams captured"
	[ "$(jget "$cap" "j['over']")" = 0 ] ||
		die "$name: $(jget "$cap" "j['over']") datagrams longer than $BOUND bytes"
	[ "$(jget "$cap" "j['frags']")" = 0 ] || die "$name: the underlay carried fragments"
	[ "$(jget "$cap" "j['max_len']")" = "$BOUND" ] ||
		die "$name: the largest datagram is $(jget "$cap" "j['max_len']"), not a full $BOUND"
}

# max_arrived IF: the largest unit that arrived at the egress CAKE (a tin's max_len: a
# super-packet's whole wire size).
max_arrived() {
	jget "$(cake_json "$1")" "max(t['max_pkt_len'] for t in j['tins'])"
}

log "== cakewg <-> cakewg over IPv6, tunnel MTU $TUN_MTU, datagrams at most $BOUND bytes"
cake_pair cakewg 6
for side in a b; do
	offloads_on "${P}w$side" || die "$side: no TUN offloads: $(grep -h offloads "$TMP/cakewg-${P}w$side.log")"
done
log "TUN offloads: $(sed -n 's/.*TUN offloads: //p' "$TMP/cakewg-${P}wa.log")"

log "== 1a. split-gso (the default): CAKE cuts super-packets at enqueue"
ext_val "${P}wa" cake_egress | grep -q " split-gso " || die "split-gso is not the default"
transfers split-gso
for side in a b; do
	arrived=$(max_arrived "${P}w$side")
	ratio=RATIO_$side
	log "$side: largest unit arriving at CAKE $arrived bytes; ${!ratio} datagrams per CAKE packet"
	[ "$arrived" -gt "$BOUND" ] || die "$side: no super-packet reached CAKE: offloads are not in use"
	le "${!ratio}" 1.02 || die "$side: split-gso: ${!ratio} datagrams per CAKE packet, not 1"
done

log "== 1b. no-split-gso: super-packets queued whole, cut after dequeue"
uapi_set "${P}wa" 'cake=no-split-gso' || die "UAPI set cake=no-split-gso failed"
n b "$CAKEWG" set "${P}wb" cake no-split-gso || die "cakewg set cake no-split-gso failed"
for side in a b; do
	ext_val "${P}w$side" cake_egress | grep -qw no-split-gso || die "$side: no-split-gso not applied"
done
transfers no-split-gso
for side in a b; do
	ratio=RATIO_$side
	log "$side: ${!ratio} datagrams per CAKE packet"
	le 4 "${!ratio}" || die "$side: no-split-gso: ${!ratio} datagrams per CAKE packet: not queued whole"
done
[ "$(ext_val "${P}wa" underlay_send_errors)" = 0 ] || die "a: underlay send errors"

log "== 2. tin selection follows the inner DSCP (diffserv4: Bulk, Best Effort, Video, Voice)"
n a "$CAKEWG" set "${P}wa" cake bandwidth 20mbit diffserv4 split-gso
ext_val "${P}wa" cake_egress | grep -q "^bandwidth 20Mbit diffserv4 " || die "diffserv4 not applied"
TINS=(Bulk "Best Effort" Video Voice)

# tin_packets IF: the egress tins' sent_packets, space separated.
tin_packets() {
	jget "$(cake_json "$1")" "' '.join(str(t['sent_packets']) for t in j['tins'])"
}

# pings_land TOS TIN COUNT DEST [ping args]: COUNT pings with TOS go through tin TIN only.
pings_land() {
	local tos=$1 tin=$2 count=$3 dest=$4 before after i
	shift 4
	read -r -a before <<<"$(tin_packets "${P}wa")"
	n a ping -q -c "$count" -i 0.01 -W 2 -Q "$tos" "$@" "$dest" >/dev/null ||
		die "pings with TOS $tos to $dest failed"
	read -r -a after <<<"$(tin_packets "${P}wa")"
	for i in 0 1 2 3; do
		local d=$((after[i] - before[i])) want=0
		[ "$i" = "$tin" ] && want=$count
		[ "$d" = "$want" ] ||
			die "TOS $tos to $dest: ${TINS[i]} counted $d packets, expected $want"
	done
	log "  TOS $tos to $dest: $count packets, all in ${TINS[tin]}"
}

capture_start tins a "${P}a" --udp-port 10002 --direction out
pings_land 0xb8 3 40 198.19.0.2	    # EF
pings_land 0x20 0 30 198.19.0.2	    # CS1
pings_land 0x88 2 20 198.19.0.2	    # AF41
pings_land 0x00 1 10 198.19.0.2	    # CS0
pings_land 0xb8 3 25 fd00:19::2 -6 # EF in an IPv6 traffic class
pings_land 0x20 0 15 fd00:19::2 -6 # CS1
capture_stop tins
cap=$CAP
log "outer headers during the pings: $cap"
jget "$cap" "j['packets'] >= 140" | grep -qx True || die "the pings were not captured"
[ "$(jget "$cap" "sum(v for k, v in j['dscp'].items() if k != '0')")" = 0 ] ||
	die "the inner DSCP leaked to the outer header: $(jget "$cap" "j['dscp']")"

read -r -a before <<<"$(jget "$(cake_json "${P}wa")" "' '.join(str(t['sent_bytes']) for t in j['tins'])")"
iperf_through a b 198.19.0.2 3 -C cubic -S 0x20 || die "CS1 transfer failed"
read -r -a after <<<"$(jget "$(cake_json "${P}wa")" "' '.join(str(t['sent_bytes']) for t in j['tins'])")"
bulk=$((after[0] - before[0]))
total=$((after[0] + after[1] + after[2] + after[3] - before[0] - before[1] - before[2] - before[3]))
log "CS1 transfer: $bulk of $total bytes in Bulk"
[ "$total" -gt 1000000 ] || die "the CS1 transfer moved only $total bytes through CAKE"
[ $((bulk * 100)) -ge $((total * 99)) ] || die "only $bulk of $total bytes of a CS1 flow in Bulk"
finish
