#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# ICMP errors for addresses routed into the tunnel that no peer holds (row 20 of
# doc/kernel-scenarios.md; src/core/device_icmp.h), on lib.sh's pair:
#
#   ns $P-a                                     ns $P-b
#   $P"wa" 198.19.0.1/24, fd00:19::1/64  <====>  $P"wb" (the peer of .2 and ::2 only)
#
#  - `ping 198.19.0.99` is answered "From 198.19.0.1 ... Destination Host Unreachable",
#    `ping fd00:19::99` "From fd00:19::1 ... Destination unreachable: Address
#    unreachable", and tx_icmp_unreach (cakewg_get=1 and `cakewg show --json`) counts
#    each error, as tx_no_peer counts each packet;
#  - the source follows the TUN's addresses: without an IPv4 address no error is sent
#    (and the packet still counts), with a new one it comes from that one;
#  - a flood of 5000 datagrams to an unpeered address gets at most the bucket's 50 plus
#    1000 a second;
#  - all of it with the daemon's privileges dropped and its system calls filtered.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-cake.sh"
require_root wg python3 ping

A=${P}wa
counter() { ext_val "$A" "$1"; }

# unreach ADDR FROM TEXT: three pings to ADDR, each answered "From FROM icmp_seq=N TEXT".
unreach() {
	local out want="^From $2 icmp_seq=[1-3] $3\$"
	out=$(n a ping -c 3 -i 0.2 -W 1 "$1" 2>&1) && die "ping $1 got a reply: $out"
	[ "$(grep -cE -- "$want" <<<"$out")" = 3 ] || die "ping $1: not 3 x '$want': $out"
	log "ping $1: $(grep -m1 -E -- "$want" <<<"$out")"
}

pair cakewg cakewg 4
ping_ok a 198.19.0.2 || die "no ping through the tunnel"
pid=$(cakewg_pid a "$A") || die "no daemon"
grep -q '^Uid:[[:space:]]*0' "/proc/$pid/status" && die "the daemon kept uid 0"
grep -q '^Seccomp:[[:space:]]*2' "/proc/$pid/status" || die "the daemon runs unfiltered"

log "== unreachable, IPv4 and IPv6, from the TUN's addresses"
no_peer0=$(counter tx_no_peer)
unreach 198.19.0.99 198.19.0.1 "Destination Host Unreachable"
unreach fd00:19::99 fd00:19::1 "Destination unreachable: Address unreachable"
[ "$(counter tx_icmp_unreach)" = 6 ] || die "tx_icmp_unreach is $(counter tx_icmp_unreach), not 6"
[ $(($(counter tx_no_peer) - no_peer0)) = 6 ] || die "tx_no_peer did not count the 6 packets"
json=$(n a "$CAKEWG" show "$A" --json)
[ "$(jget "$json" 'j["cake"]["tx_icmp_unreach"]')" = 6 ] || die "show --json: $json"
n a "$CAKEWG" show "$A" | grep -q '^  icmp unreachable: 6 sent$' || die "cakewg show lacks the line"

log "== the source follows the TUN's addresses"
n a ip addr del 198.19.0.1/24 dev "$A"
n a ip addr add 198.19.0.7/32 dev "$A"
n a ip route add 198.19.0.0/24 dev "$A" src 198.19.0.7
sleep 0.2
unreach 198.19.0.99 198.19.0.7 "Destination Host Unreachable"
n a ip addr del 198.19.0.7/32 dev "$A"
n a ip route add 198.19.0.0/24 dev "$A" 2>/dev/null || true
sleep 0.2
before=$(counter tx_icmp_unreach)
out=$(n a ping -c 2 -i 0.2 -W 1 198.19.0.99 2>&1) && die "a reply without an address: $out"
grep -q Unreachable <<<"$out" && die "an error without an IPv4 address on the TUN: $out"
[ "$(counter tx_icmp_unreach)" = "$before" ] || die "an error counted without an address"
n a ip addr add 198.19.0.1/24 dev "$A"
sleep 0.2
unreach 198.19.0.99 198.19.0.1 "Destination Host Unreachable"

log "== a flood gets the rate, not an error per packet"
before=$(counter tx_icmp_unreach)
secs=$(n a python3 -c 'import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
t = time.monotonic()
for i in range(5000):
    s.sendto(b"x" * 100, ("198.19.0.99", 9))
print("%.3f" % (time.monotonic() - t))')
sleep 0.3
# While the sender runs, and after it for what the TUN's queue holds (1000 packets, which
# the daemon reads 256 a loop iteration: 0.1 s is 100 us a packet, 50 times their cost).
got=$(($(counter tx_icmp_unreach) - before))
limit=$(python3 -c "print(int(50 + 1000 * ($secs + 0.1)) + 1)")
log "5000 datagrams in $secs s: $got errors (the bucket allows $limit)"
[ "$got" -le "$limit" ] || die "$got errors for a flood of 5000 in $secs s, more than $limit"
[ "$got" -ge 50 ] || die "only $got errors: the burst of 50 did not go out"
finish
