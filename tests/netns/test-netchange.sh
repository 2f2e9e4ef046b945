#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# ctest: runs alone, as the gap it measures after a route change is the assertion.
# A network change under the tunnel (src/edge/netwatch.c): the client has two uplinks
# into a router, the default route moves from one to the other (the first loses its way
# out and its default route a worse metric, as with Wi-Fi gone bad and LTE taking over),
# and the tunnel must carry pings again within 1 s.
#
#   ns $P-a (client)                  ns $P-r (router)                ns $P-b (server)
#   $P"wa" 198.19.0.1/24                                              $P"wb" 198.19.0.2/24
#   $P"a1" 10.1.0.2/24 <------------> $P"r1" 10.1.0.1/24
#          default via 10.1.0.1 metric 100
#   $P"a2" 10.2.0.2/24 <------------> $P"r2" 10.2.0.1/24
#          default via 10.2.0.1 metric 200
#                                     $P"rb" 198.18.0.1/24 <--------> $P"b" 198.18.0.2/24
#                                                                      default via 198.18.0.1
#
# A runs autorate, whose delay baselines restart with the move. Checked: pings flow again
# within 1 s of the move (the figure is reported), one debounced network change acted on
# (network_changes=1), the handshake started at once, the log says so; moving back works
# too.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-cake.sh"
require_root wg ping

A=${P}wa
B=${P}wb
LIMIT_MS=1000

mkns a
mkns r
mkns b
veth a "${P}a1" r "${P}r1"
veth a "${P}a2" r "${P}r2"
veth r "${P}rb" b "${P}b"
n r sysctl -qw net.ipv4.ip_forward=1
n a ip addr add 10.1.0.2/24 dev "${P}a1"
n a ip addr add 10.2.0.2/24 dev "${P}a2"
n r ip addr add 10.1.0.1/24 dev "${P}r1"
n r ip addr add 10.2.0.1/24 dev "${P}r2"
n r ip addr add 198.18.0.1/24 dev "${P}rb"
n b ip addr add 198.18.0.2/24 dev "${P}b"
n a ip route add default via 10.1.0.1 metric 100
n a ip route add default via 10.2.0.1 metric 200
n b ip route add default via 198.18.0.1
n a ping -q -c 1 -W 2 198.18.0.2 >/dev/null || die "no underlay"

keypair a
keypair b
start_cakewg a "$A"
start_cakewg b "$B"
n b wg set "$B" private-key "$TMP/b.key" listen-port 10002 \
	peer "$(cat "$TMP/a.pub")" allowed-ips 198.19.0.1/32
n a wg set "$A" private-key "$TMP/a.key" listen-port 10001 \
	peer "$(cat "$TMP/b.pub")" allowed-ips 198.19.0.2/32 endpoint 198.18.0.2:10002
n a "$CAKEWG" set "$A" cake bandwidth 100mbit autorate 1mbit 200mbit
n a ip addr add 198.19.0.1/24 dev "$A"
n b ip addr add 198.19.0.2/24 dev "$B"
n a ip link set "$A" up
n b ip link set "$B" up
ping_ok a 198.19.0.2 || die "no tunnel"

# move DESC CMD...: runs CMD in A with pings every 20 ms going; prints the outage: the
# longest time without a reply from just before the move to 2 s after it (a reply must
# come after the move).
move() {
	local desc=$1 t0 t1 ms
	shift
	n a ping -D -n -i 0.02 -W 1 198.19.0.2 >"$TMP/ping.out" 2>&1 &
	local ping=$!
	sleep 1
	t0=$(date +%s.%N)
	n a "$@"
	t1=$(date +%s.%N)
	sleep 2
	kill "$ping"
	wait "$ping" 2>/dev/null || true
	ms=$(python3 - "$t0" "$t1" "$TMP/ping.out" <<-'PYEOF'
	import re, sys
	t0, t1 = float(sys.argv[1]), float(sys.argv[2])
	seen = [float(m.group(1)) for m in
	        (re.match(r"\[(\d+\.\d+)\] \d+ bytes from", l) for l in open(sys.argv[3])) if m]
	around = [t for t in seen if t >= t0 - 0.1]
	if not around or around[-1] <= t1:
	    print(-1)
	else:
	    print(int(max(b - a for a, b in zip(around, around[1:])) * 1000))
	PYEOF
	)
	[ "$ms" -ge 0 ] || { tail -n 5 "$TMP/ping.out"; die "$desc: no reply after the move"; }
	log "$desc: pings flow again, the longest gap was $ms ms"
	[ "$ms" -le "$LIMIT_MS" ] || die "$desc: $ms ms without a reply, over $LIMIT_MS ms"
}

# Uplink 1 loses its way out beyond A's link (Wi-Fi whose internet went: the router drops
# what goes back to A there) and its default route gets a worse metric, as a connection
# manager does: uplink 2's takes over. A's link, address and sticky source on uplink 1
# stay valid, so sends through it keep "working": only acting on the route change, not
# waiting for the handshake timers (15 s and more), saves the tunnel.
DEAD="ip -n $P-r route add blackhole 10.1.0.2/32"
WORSE="ip route del default via 10.1.0.1 metric 100 && ip route add default via 10.1.0.1 metric 300"
log "== uplink 1 dies: the default route moves to uplink 2"
move "uplink 1 dies" sh -c "$DEAD && $WORSE"
[ "$(ext_val "$A" network_changes)" = 1 ] || die "network_changes is not 1"
grep -q "Network changed: the route to 1 peer moved, 1 handshake started" \
	"$TMP/cakewg-$A.log" || die "no log line for the network change"
grep -q "autorate: delay baselines restarted" "$TMP/cakewg-$A.log" ||
	die "autorate's baselines did not restart"
[ "$(n b wg show "$B" endpoints | cut -f2)" = 10.2.0.2:10001 ] ||
	die "B does not know A's new address"

ALIVE="ip -n $P-r route del blackhole 10.1.0.2/32"
BETTER="ip route del default via 10.1.0.1 metric 300 && ip route add default via 10.1.0.1 metric 100"
log "== uplink 1 is back: the default route moves back"
move "uplink 1 back" sh -c "$ALIVE && $BETTER"
[ "$(ext_val "$A" network_changes)" = 2 ] || die "network_changes is not 2"
[ "$(n b wg show "$B" endpoints | cut -f2)" = 10.1.0.2:10001 ] ||
	die "B does not know A's first address again"
echo "PASS"
