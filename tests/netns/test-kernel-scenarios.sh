#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The scenarios of Linux's tools/testing/selftests/wireguard/netns.sh that no other test
# of ours covers, on cakewg <-> cakewg (doc/kernel-scenarios.md maps every scenario of
# that script to the test that covers it, or says why it does not apply):
#  - exact transfer counters: ten flood pings cost 1372 bytes received and 1428 (or 1460,
#    with a keepalive) sent on the initiator; the tunnels' RX byte counts are exact;
#  - roaming when the source address and port change, IPv4 and IPv6;
#  - the crypto-routing filter: a more specific AllowedIPs on another peer takes the
#    traffic, and the authenticated packet still moves the endpoint;
#  - a private-key change followed at once by a new handshake;
#  - WireGuard inside WireGuard, and a tunnel routed into itself is damped (< 70 KB
#    sent during a one-second flood) without a crash;
#  - NAT with a persistent keepalive keeping the conntrack entry alive (UDP timeout 2 s),
#    and without one the mapping is lost;
#  - low-order public keys never send;
#  - keys set and cleared, a peer equal to our own public key, a clamped private key;
#  - wg-quick-style fwmark routing under a flood;
#  - the sticky source: falls over when the address goes, replies from the address the
#    peer sent to, answers for an address on another interface, follows a preferred route;
#  - a ~34 KB tunnel MTU over IPv4 and IPv6 underlays.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-cake.sh"
require_root wg python3 iperf3 nft

pub() { cat "$TMP/$1.pub"; }
transfer() { n "$1" wg show "${P}w$1" transfer | cut -f2-; } # "RX TX" of the only peer
endpoint_of() { n "$1" wg show "$2" endpoints | awk -v k="$3" '$1 == k { print $2 }'; }

# udp_listen NS ADDR PORT SECS OUT: counts the datagrams that arrive for SECS into OUT
# (in the background, pid $LISTENER; it is ready when this returns).
udp_listen() {
	n "$1" python3 - "$2" "$3" "$4" "$TMP/$5" <<'PY' &
import socket, sys, time
addr, port, secs, out = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
s = socket.socket(fam, socket.SOCK_DGRAM)
s.bind((addr, port))
open(out + ".ready", "w").close()
end, got = time.time() + secs, 0
while True:
    left = end - time.time()
    if left <= 0:
        break
    s.settimeout(left)
    try:
        s.recv(65535)
        got += 1
    except socket.timeout:
        break
open(out, "w").write("%d\n" % got)
PY
	LISTENER=$!
	wait_for 5 test -e "$TMP/$5.ready" || die "UDP listener $5 did not start"
}
udp_send() { # udp_send NS ADDR PORT: one datagram "X"
	n "$1" python3 -c 'import socket, sys
f = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
socket.socket(f, socket.SOCK_DGRAM).sendto(b"X", (sys.argv[1], int(sys.argv[2])))' "$2" "$3"
}

log "== exact counters: ten flood pings, then wg show transfer"
pair cakewg cakewg 4
n a ping -q -c 10 -f -W 1 198.19.0.2 >/dev/null || die "flood ping"
sleep 0.5
read -r a_rx a_tx <<<"$(transfer a)"
read -r b_rx b_tx <<<"$(transfer b)"
log "initiator rx $a_rx tx $a_tx, responder rx $b_rx tx $b_tx"
# A data message of an 84-byte ping is 16 + 96 (padded) + 16 = 128 bytes; the initiation
# is 148, the response 92, a keepalive 32.
[ "$a_rx" = 1372 ] || die "initiator received $a_rx bytes, not 92 + 10 x 128 = 1372"
[ "$a_tx" = 1428 ] || [ "$a_tx" = 1460 ] || die "initiator sent $a_tx bytes, not 1428 or 1460"
[ "$b_tx" = 1372 ] || die "responder sent $b_tx bytes, not 1372"
[ "$b_rx" = 1428 ] || [ "$b_rx" = 1460 ] || die "responder received $b_rx bytes, not 1428 or 1460"
for s in a b; do
	rx=$(n $s cat "/sys/class/net/${P}w$s/statistics/rx_bytes")
	[ "$rx" = 840 ] || die "$s's tunnel received $rx bytes of inner packets, not 10 x 84"
	hs=$(n $s wg show "${P}w$s" latest-handshakes | cut -f2)
	[ "$hs" -gt 0 ] || die "$s: no handshake time"
done
teardown_pair

log "== roaming: the source address and port change (IPv4, then IPv6)"
pair cakewg cakewg 4
ping_ok a 198.19.0.2 1 || die "ping before roaming"
n a ip addr del 198.18.0.1/24 dev "${P}a"
n a ip addr add 198.18.0.11/24 dev "${P}a"
n a wg set "${P}wa" listen-port 9999
n a ping -q -c 1 -W 2 fd00:19::2 >/dev/null || die "ping6 after the IPv4 roam"
ep=$(endpoint_of b "${P}wb" "$(pub a)")
[ "$ep" = 198.18.0.11:9999 ] || die "B sees A at $ep, not 198.18.0.11:9999"
n a wg set "${P}wa" listen-port 9998 peer "$(pub b)" endpoint "[fd00:18::2]:10002"
n a ping -q -c 1 -W 2 198.19.0.2 >/dev/null || die "ping after the IPv6 roam"
ep=$(endpoint_of b "${P}wb" "$(pub a)")
[ "$ep" = "[fd00:18::1]:9998" ] || die "B sees A at $ep, not [fd00:18::1]:9998"
log "B followed A to 198.18.0.11:9999 and [fd00:18::1]:9998"
teardown_pair

log "== crypto-routing filter: a more specific AllowedIPs on another peer takes the traffic"
pair cakewg cakewg 4
n a wg set "${P}wa" peer "$(pub b)" allowed-ips 198.19.0.0/24
ping_ok a 198.19.0.2 1 || die "ping"
udp_listen a 198.19.0.1 1111 2 rp1
udp_send b 198.19.0.1 1111
wait "$LISTENER"
[ "$(cat "$TMP/rp1")" = 1 ] || die "the datagram from B did not arrive"
other=$(wg genkey | wg pubkey)
n a wg set "${P}wa" peer "$other" allowed-ips 198.19.0.2/32
n b wg set "${P}wb" listen-port 9997
udp_listen a 198.19.0.1 1111 1.5 rp2
udp_send b 198.19.0.1 1111
wait "$LISTENER"
[ "$(cat "$TMP/rp2")" = 0 ] || die "a datagram from 198.19.0.2 came through B, which no longer holds it"
n a wg set "${P}wa" peer "$other" remove
ep=$(endpoint_of a "${P}wa" "$(pub b)")
[ "$ep" = 198.18.0.2:9997 ] || die "A's endpoint for B is $ep: the authenticated packet did not move it"
log "dropped by the filter, and the endpoint followed to $ep"
teardown_pair

log "== a private-key change, then at once a new handshake"
pair cakewg cakewg 4
ping_ok a 198.19.0.2 1 || die "ping"
keypair c
n a wg set "${P}wa" private-key "$TMP/c.key"
n b wg set "${P}wb" peer "$(pub c)" allowed-ips 198.19.0.1/32 peer "$(pub a)" remove
n a ping -q -c 1 -W 1 198.19.0.2 >/dev/null || die "no reply within 1 s of the key change"
teardown_pair

log "== WireGuard inside WireGuard"
pair cakewg cakewg 4
keypair c
keypair d
start_cakewg a "${P}xa"
start_cakewg b "${P}xb"
n a wg set "${P}xa" listen-port 5 private-key "$TMP/c.key" \
	peer "$(pub d)" allowed-ips 192.168.241.2/32,fd00:241::2/128 endpoint "[fd00:19::2]:5"
n b wg set "${P}xb" listen-port 5 private-key "$TMP/d.key" \
	peer "$(pub c)" allowed-ips 192.168.241.1/32,fd00:241::1/128 endpoint "[fd00:19::1]:5"
for s in a b; do
	i=1
	[ $s = b ] && i=2
	n $s ip addr add "192.168.241.$i/24" dev "${P}x$s"
	n $s ip addr add "fd00:241::$i/64" dev "${P}x$s" nodad
	n $s ip link set "${P}x$s" mtu 1340 up
done
ping_ok a 192.168.241.2 5 || die "ping through the inner tunnel"
ping_ok b fd00:241::1 5 || die "ping6 through the inner tunnel"
log "inner tunnel upload: $(iperf_through a b 192.168.241.2 2)"
n a ping -q -c 1 -s 1292 -M do -W 2 192.168.241.2 >/dev/null || die "full-size ping inside"
teardown_pair

log "== a tunnel routed into itself is damped"
pair cakewg cakewg 4
ping_ok a 198.19.0.2 1 || die "ping"
pid=$(cakewg_pid a "${P}wa")
n a wg set "${P}wa" peer "$(pub b)" endpoint 198.19.0.2:7
read -r _ before <<<"$(transfer a)"
if n a ping -q -c 10 -f -W 1 198.19.0.2 >/dev/null 2>&1; then die "pings went through a loop"; fi
sleep 1
read -r _ after <<<"$(transfer a)"
log "sent $((after - before)) bytes during the flood into the loop"
[ $((after - before)) -lt 70000 ] || die "the loop was not damped: $((after - before)) bytes"
kill -0 "$pid" || die "the daemon died in the loop"
n a wg show "${P}wa" >/dev/null || die "the daemon does not answer after the loop"
teardown_pair

log "== NAT: a persistent keepalive keeps the mapping"
mkns a
mkns r
mkns b
veth a "${P}a" r "${P}ra"
veth r "${P}rb" b "${P}b"
n a ip addr add 192.168.1.100/24 dev "${P}a"
n a ip route add default via 192.168.1.1
n r ip addr add 192.168.1.1/24 dev "${P}ra"
n r ip addr add 10.0.0.1/24 dev "${P}rb"
n b ip addr add 10.0.0.100/24 dev "${P}b"
n r sysctl -qw net.ipv4.ip_forward=1
n r nft -f - <<EOF
table ip ${P}nat {
	chain post { type nat hook postrouting priority 100; ip saddr 192.168.1.0/24 ip daddr 10.0.0.0/24 snat to 10.0.0.1; }
}
EOF
n r sysctl -qw net.netfilter.nf_conntrack_udp_timeout=2 net.netfilter.nf_conntrack_udp_timeout_stream=2
# The keepalive's first initiation goes out at `wg set`: the links must carry it by then.
for l in a:a r:ra r:rb b:b; do
	wait_for 5 n "${l%%:*}" grep -qx up "/sys/class/net/${P}${l#*:}/operstate" ||
		die "${P}${l#*:} did not come up"
done
keypair a
keypair b
start_cakewg a "${P}wa"
start_cakewg b "${P}wb"
# B first: A's keepalive sends the first initiation as soon as A is configured.
n b wg set "${P}wb" private-key "$TMP/b.key" listen-port 10002 peer "$(pub a)" allowed-ips 198.19.0.1/32
n a wg set "${P}wa" private-key "$TMP/a.key" listen-port 10001 \
	peer "$(pub b)" allowed-ips 198.19.0.2/32 endpoint 10.0.0.100:10002 persistent-keepalive 1
n a ip addr add 198.19.0.1/24 dev "${P}wa"
n b ip addr add 198.19.0.2/24 dev "${P}wb"
n a ip link set "${P}wa" up
n b ip link set "${P}wb" up
n a ping -q -c 1 -W 2 198.19.0.2 >/dev/null || die "ping through the NAT"
n b ping -q -c 1 -W 1 198.19.0.1 >/dev/null || die "ping back through the NAT"
ep=$(endpoint_of b "${P}wb" "$(pub a)")
[ "$ep" = 10.0.0.1:10001 ] || die "B sees A at $ep, not at the NAT's 10.0.0.1:10001"
sleep 3
n b ping -q -c 1 -W 1 198.19.0.1 >/dev/null || die "the keepalive did not keep the NAT mapping"
n a wg set "${P}wa" peer "$(pub b)" persistent-keepalive 0
sleep 4 # the mapping expires (2 s) and a's own keepalive after the last data (10 s) is not due
if n b ping -q -c 1 -W 1 198.19.0.1 >/dev/null 2>&1; then
	die "B reached A through an expired mapping: the keepalive test above proves nothing"
fi
log "held for 3 s by the keepalive; gone 4 s after it stopped"
teardown_pair

log "== low-order public keys never send"
mkns a
keypair a
start_cakewg a "${P}wa"
n a wg set "${P}wa" private-key "$TMP/a.key"
for point in AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA= AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA= \
	4Ot6fDtBuK4WVuP68Z/EatoJjeucMrH9hmIFFl9JuAA= X5yVvKNQjCSx0LFVnIPvWwREXMRYHI6G2CJO3dCfEVc= \
	7P///////////////////////////////////////38= 7f///////////////////////////////////////38= \
	7v///////////////////////////////////////38=; do
	n a wg set "${P}wa" peer "$point" persistent-keepalive 1 endpoint 127.0.0.1:1111
done
[ "$(n a wg show "${P}wa" peers | wc -l)" = 7 ] || die "the low-order peers were not all kept"
udp_listen a 127.0.0.1 1111 2.5 lowo
n a ip link set "${P}wa" up
wait "$LISTENER"
[ "$(cat "$TMP/lowo")" = 0 ] || die "$(cat "$TMP/lowo") datagrams went to low-order peers"
teardown_pair

log "== keys: set, clear, our own public key as a peer, clamping"
mkns a
keypair k1
keypair k2
wg genpsk >"$TMP/psk"
start_cakewg a "${P}wa"
w() { n a wg "$@"; }
w set "${P}wa" private-key "$TMP/k1.key" peer "$(pub k2)" preshared-key "$TMP/psk"
[ "$(w show "${P}wa" private-key)" = "$(cat "$TMP/k1.key")" ] || die "private key"
[ "$(w show "${P}wa" preshared-keys)" = "$(pub k2)	$(cat "$TMP/psk")" ] || die "preshared key"
w set "${P}wa" private-key /dev/null peer "$(pub k2)" preshared-key /dev/null
[ "$(w show "${P}wa" private-key)" = "(none)" ] || die "private key not cleared"
[ "$(w show "${P}wa" preshared-keys)" = "$(pub k2)	(none)" ] || die "preshared key not cleared"
w set "${P}wa" peer "$(pub k2)"
w set "${P}wa" private-key "$TMP/k2.key"
[ "$(w show "${P}wa" public-key)" = "$(pub k2)" ] || die "public key"
[ -z "$(w show "${P}wa" peers)" ] || die "the peer equal to our own key was kept"
w set "${P}wa" peer "$(pub k2)"
[ -z "$(w show "${P}wa" peers)" ] || die "a peer equal to our own key was added"
w set "${P}wa" private-key "$TMP/k1.key"
w set "${P}wa" peer "$(pub k2)"
[ "$(w show "${P}wa" peers)" = "$(pub k2)" ] || die "the peer was not added back"
k1=$(cat "$TMP/k1.key")
w set "${P}wa" private-key <(echo "/${k1:1}")
[ "$(w show "${P}wa" private-key)" = "+${k1:1}" ] || die "the private key is not shown clamped"
w set "${P}wa" peer "$(pub k2)" allowed-ips 0.0.0.0/0,10.0.0.0/8,100.0.0.0/10,172.16.0.0/12,192.168.0.0/16
w set "${P}wa" peer "$(pub k2)" allowed-ips 0.0.0.0/0
[ "$(w show "${P}wa" allowed-ips | cut -f2)" = 0.0.0.0/0 ] || die "allowed IPs not replaced"
w set "${P}wa" peer "$(pub k2)" allowed-ips ::/0,1700::/111,5000::/4,e000::/37,9000::/75
w set "${P}wa" peer "$(pub k2)" allowed-ips ::/0
[ "$(w show "${P}wa" allowed-ips | cut -f2)" = ::/0 ] || die "v6 allowed IPs not replaced"
w set "${P}wa" peer "$(pub k2)" remove
[ -z "$(w show "${P}wa" peers)" ] || die "peer not removed"
if w show "${P}nonexistent" >/dev/null 2>&1; then die "wg show of a missing interface passed"; fi
teardown_pair

log "== wg-quick-style fwmark routing under a flood"
pair cakewg cakewg 4
n b ip addr add 192.168.99.7/32 dev "${P}wb"
n b ip addr add abab::1111/128 dev "${P}wb" nodad
n a wg set "${P}wa" fwmark 51820 peer "$(pub b)" allowed-ips 192.168.99.7,abab::1111
for f in -4 -6; do
	d=0.0.0.0/0
	[ $f = -6 ] && d=::/0
	n a ip $f route add $d dev "${P}wa" table 51820
	n a ip $f rule add not fwmark 51820 table 51820
	n a ip $f rule add table main suppress_prefixlength 0
done
n b wg set "${P}wb" peer "$(pub a)" allowed-ips 0.0.0.0/0,::/0
n a ping -q -c 100 -f -W 1 192.168.99.7 >"$TMP/fl4" || { cat "$TMP/fl4"; die "v4 flood"; }
n a ping -q -c 100 -f -W 1 abab::1111 >"$TMP/fl6" || { cat "$TMP/fl6"; die "v6 flood"; }
log "$(grep -h 'packet loss' "$TMP/fl4" "$TMP/fl6" | tr '\n' ' ')"
# Bound to the device, and with a mark on every packet that leaves (the tunnel's own
# datagrams included) that policy routing must look past.
n a ping -q -c 1 -W 2 -I "${P}wa" 192.168.99.7 >/dev/null || die "ping -I"
n a nft add table ip "${P}mark"
n a nft add chain ip "${P}mark" out '{ type route hook output priority -150; }'
n a nft add rule ip "${P}mark" out meta mark set 1
n a ping -q -c 1 -W 2 192.168.99.7 >/dev/null || die "ping with every packet marked 1"
n a ping -q -c 1 -W 2 -I "${P}wa" 192.168.99.7 >/dev/null || die "ping -I with every packet marked 1"
teardown_pair

# The sticky source, on a direct veth between a and b with addresses of our own choosing.
sticky_pair() {
	mkns a
	mkns b
	keypair a
	keypair b
	start_cakewg a "${P}wa"
	start_cakewg b "${P}wb"
	n a wg set "${P}wa" private-key "$TMP/a.key" listen-port 1 peer "$(pub b)" allowed-ips 198.19.0.2/32
	n b wg set "${P}wb" private-key "$TMP/b.key" listen-port 2 peer "$(pub a)" allowed-ips 198.19.0.1/32
	n a ip addr add 198.19.0.1/24 dev "${P}wa"
	n b ip addr add 198.19.0.2/24 dev "${P}wb"
	n a ip link set "${P}wa" up
	n b ip link set "${P}wb" up
	# default: the veths made after this inherit it. A link-local address that ends
	# its DAD a second or two later is a network change, and the daemon answers one with
	# a handshake to the peer's endpoint of the moment (see below).
	for s in a b; do
		n $s sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0 \
			net.ipv4.conf.all.rp_filter=0
	done
}
# After address changes, the daemons' network-change burst (WG_NETCHANGE_QUIET_NS after
# the last event, at most WG_NETCHANGE_MAX_WAIT_NS = 0.5 s) has passed: its handshake
# goes to the endpoint of that moment and may move the peer's view of our address.
netchange_settled() { sleep 1; }
log "== sticky source: falls over when the address goes (IPv4, IPv6)"
sticky_pair
veth a "${P}v1" b "${P}v2"
n a sysctl -qw "net.ipv4.conf.${P}v1.promote_secondaries=1"
n a ip addr add 10.0.0.1/24 dev "${P}v1"
n a ip addr add fd00:aa::1/96 dev "${P}v1" nodad
n b ip addr add 10.0.0.2/24 dev "${P}v2"
n b ip addr add fd00:aa::2/96 dev "${P}v2" nodad
n a wg set "${P}wa" peer "$(pub b)" endpoint 10.0.0.2:2
ping_ok a 198.19.0.2 1 || die "ping"
n a ip addr add 10.0.0.10/24 dev "${P}v1"
n a ip addr del 10.0.0.1/24 dev "${P}v1"
n a ping -q -c 1 -W 2 198.19.0.2 >/dev/null || die "ping after the IPv4 source went"
n a wg set "${P}wa" peer "$(pub b)" endpoint "[fd00:aa::2]:2"
ping_ok a 198.19.0.2 1 || die "ping over IPv6"
n a ip addr add fd00:aa::10/96 dev "${P}v1" nodad
n a ip addr del fd00:aa::1/96 dev "${P}v1"
n a ping -q -c 1 -W 2 198.19.0.2 >/dev/null || die "ping after the IPv6 source went"
teardown_pair

log "== sticky source: replies come from the address the peer sent to"
sticky_pair
veth a "${P}v1" b "${P}v2"
for i in 1 2; do
	n a ip addr add "10.0.0.$i/24" dev "${P}v1"
	n a ip addr add "fd00:aa::$i/96" dev "${P}v1" nodad
done
n b ip addr add 10.0.0.3/24 dev "${P}v2"
n b ip addr add fd00:aa::3/96 dev "${P}v2" nodad
netchange_settled
for ep in 10.0.0.1:1 "[fd00:aa::1]:1" 10.0.0.2:1 "[fd00:aa::2]:1"; do
	n b wg set "${P}wb" peer "$(pub a)" endpoint "$ep"
	n b ping -q -c 1 -W 2 198.19.0.1 >/dev/null || die "ping to A at $ep"
	got=$(endpoint_of b "${P}wb" "$(pub a)")
	[ "$got" = "$ep" ] || die "A answered from $got, not $ep"
done
log "== sticky source: an address on another interface than the route"
# This kernel has no dummy driver: a veth pair inside a serves as the other interface.
n a ip link add "${P}d0" type veth peer name "${P}d1"
n a ip addr add 10.50.0.1/24 dev "${P}d0"
n a ip link set "${P}d0" up
n a ip link set "${P}d1" up
n b ip route add 10.50.0.0/24 dev "${P}v2"
n b wg set "${P}wb" peer "$(pub a)" endpoint 10.50.0.1:1
n b ping -q -c 1 -W 2 198.19.0.1 >/dev/null || die "ping to A's dummy address"
got=$(endpoint_of b "${P}wb" "$(pub a)")
[ "$got" = 10.50.0.1:1 ] || die "A answered from $got, not 10.50.0.1:1"
teardown_pair

log "== UDP floods (iperf3 -b 0) over IPv4 and IPv6, then 4, 5 and 50 parallel TCP streams"
pair cakewg cakewg 4
ping_ok a 198.19.0.2 1 || die "ping"
for dst in 198.19.0.2 fd00:19::2; do
	n b iperf3 -s -1 -D >/dev/null 2>&1
	wait_for 5 n b sh -c "ss -ltn | grep -q ':5201 '" || die "iperf3 server"
	n a iperf3 -Z -t 2 -b 0 -u -c "$dst" -J >"$TMP/udp.json" || die "UDP flood to $dst"
	log "UDP flood to $dst: $(python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))["end"]["sum"]
print("%.0f Mbit/s sent, %.1f %% lost" % (e["bits_per_second"] / 1e6, e["lost_percent"]))' "$TMP/udp.json")"
done
ping_ok a 198.19.0.2 3 || die "the tunnel is gone after the floods"
for max in 4 5 50; do
	pids=()
	for ((i = 0; i < max; i++)); do
		n b iperf3 -p $((5300 + i)) -s -1 >/dev/null 2>&1 &
		pids+=($!)
	done
	wait_for 10 n b sh -c "[ \$(ss -ltnH 'sport >= :5300 and sport < :$((5300 + max))' | wc -l) = $max ]" ||
		die "$max iperf3 servers did not start"
	for ((i = 0; i < max; i++)); do
		n a iperf3 -Z -t 2 -p $((5300 + i)) -c 198.19.0.2 >/dev/null 2>&1 &
	done
	for pid in "${pids[@]}"; do wait "$pid" || die "one of $max parallel TCP streams failed"; done
	log "$max parallel TCP streams completed"
done
teardown_pair

log "== AllowedIPs at scale: 130,560 on one peer, 40 peers x 52, 197 IPv6 entries"
mkns a
keypair a
start_cakewg a "${P}wa"
python3 - "$TMP/big.conf" "$(cat "$TMP/a.key")" "$(wg genkey | wg pubkey)" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("[Interface]\nPrivateKey=%s\n[Peer]\nPublicKey=%s\n" % (sys.argv[2], sys.argv[3]))
    for a in range(1, 256):
        for b in range(256):
            f.write("AllowedIPs=%d.%d.0.0/16,%x::%x/128\n" % (a, b, a, b))
PY
t0=$(date +%s.%N)
n a wg setconf "${P}wa" "$TMP/big.conf"
t1=$(date +%s.%N)
words=$(n a wg show "${P}wa" allowed-ips | wc -w)
t2=$(date +%s.%N)
[ "$words" = $((255 * 256 * 2 + 1)) ] || die "wg show allowed-ips has $words words, not 130561"
log "setconf of 130,560 allowed IPs $(python3 -c "print('%.2f' % ($t1 - $t0))") s, show $(python3 -c "print('%.2f' % ($t2 - $t1))") s"
{
	printf '[Interface]\nPrivateKey=%s\n' "$(cat "$TMP/a.key")"
	for ((a = 1; a <= 40; a++)); do
		printf '[Peer]\nPublicKey=%s\n' "$(wg genkey | wg pubkey)"
		for ((b = 1; b <= 52; b++)); do echo "AllowedIPs=$a.$b.0.0/16"; done
	done
} >"$TMP/peers.conf"
n a wg setconf "${P}wa" "$TMP/peers.conf"
n a wg show "${P}wa" allowed-ips | awk 'NF != 53 { bad++ } END { exit bad || NR != 40 }' ||
	die "40 peers with 52 allowed IPs each did not come back"
{
	for ((i = 1; i <= 29; i++)); do printf '[Peer]\nPublicKey=%s\n' "$(wg genkey | wg pubkey)"; done
	printf '[Peer]\nPublicKey=%s\nAllowedIPs=255.2.3.4/32,abcd::255/128\n' "$(wg genkey | wg pubkey)"
} >"$TMP/thirty.conf"
n a wg setconf "${P}wa" "$TMP/thirty.conf"
n a wg showconf "${P}wa" >/dev/null || die "showconf of 30 peers"
n a wg setconf "${P}wa" /dev/null
v6=$(printf 'abcd::%x,' $(seq 1 197))
n a wg set "${P}wa" peer "$(pub a)" peer "$(wg genkey | wg pubkey)" allowed-ips "${v6%,}"
n a wg show "${P}wa" allowed-ips | awk '$2 != "(none)" { if (NF != 198) exit 1; n++ } END { exit n != 1 }' ||
	die "197 IPv6 allowed IPs did not come back"
teardown_pair

log "== deleting the tunnel device ends the daemon and removes its socket"
mkns a
start_cakewg a "${P}wa"
pid=$(cakewg_pid a "${P}wa")
n a ip link del "${P}wa"
wait_for 3 sh -c "! kill -0 $pid" || die "the daemon outlived its device"
uapi_gone 2 "${P}wa" || die "the UAPI socket was left behind"
teardown_pair

log "== a ~34 KB tunnel MTU over an IPv4 and an IPv6 underlay"
for outer in 4 6; do
	pair cakewg cakewg "$outer"
	for s in a b; do
		n $s ip link set "${P}$s" mtu 34816
		n $s ip link set "${P}w$s" mtu $((34816 - 1500 + 1420))
	done
	dst=198.19.0.2
	[ "$outer" = 6 ] && dst=fd00:19::2
	n a ping -q -c 3 -i 0.2 -W 2 -M do -s $((34816 - 1500 + 1420 - 28)) 198.19.0.2 \
		>/dev/null || die "full-size ping at a 34 KB MTU, IPv$outer underlay"
	n a ping -q -c 3 -i 0.2 -W 2 -M do -s $((34816 - 1500 + 1420 - 48)) "$dst" \
		>/dev/null || die "full-size ping at a 34 KB MTU, IPv$outer underlay, to $dst"
	log "IPv$outer underlay, 34 KB MTU: $(iperf_through a b 198.19.0.2 2)"
	teardown_pair
done

log "== sticky source: a new preferred route changes the source"
sticky_pair
veth a "${P}v1" b "${P}v2"
veth a "${P}v3" b "${P}v4"
n a ip addr add 10.0.0.1/24 dev "${P}v1"
n b ip addr add 10.0.0.2/24 dev "${P}v2"
n a ip addr add 10.0.0.3/24 dev "${P}v3"
n a ip route flush dev "${P}v1"
n a ip route flush dev "${P}v3"
n a ip route add 10.0.0.0/24 dev "${P}v1" src 10.0.0.1 metric 2
n a wg set "${P}wa" peer "$(pub b)" endpoint 10.0.0.2:2
n a ping -q -c 1 -W 2 198.19.0.2 >/dev/null || die "ping"
got=$(endpoint_of b "${P}wb" "$(pub a)")
[ "$got" = 10.0.0.1:1 ] || die "B sees A at $got, not 10.0.0.1:1"
n a ip route add 10.0.0.0/24 dev "${P}v3" src 10.0.0.3 metric 1
n a ping -q -c 1 -W 2 198.19.0.2 >/dev/null || die "ping after the route change"
# Linux looks the route up for every packet; cakewg acts on the route change after its
# 100 ms debounce (src/core/netchange.c): the sticky source goes and a handshake follows.
moved() {
	n a ping -q -c 1 -W 1 198.19.0.2 >/dev/null
	[ "$(endpoint_of b "${P}wb" "$(pub a)")" = 10.0.0.3:1 ]
}
wait_for 3 moved || die "B sees A at $(endpoint_of b "${P}wb" "$(pub a)"), not at the new route's 10.0.0.3:1"
teardown_pair

log "PASS"
