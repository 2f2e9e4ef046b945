#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# wg-quick's firewall rules for a default route, and the kill switch, under `cakewg up`:
#
#   ns $P-a (client, strict rp_filter)          ns $P-b (server)
#   $P"wa" 198.19.0.1/24 fd00:19::1/64          $P"wb" 198.19.0.2/24 fd00:19::2/64
#          AllowedIPs 0.0.0.0/0, ::/0                  AllowedIPs 198.19.0.1/32, fd00:19::1/128
#   $P"a"  198.18.0.1/24 fd00:18::1/64 <------> $P"b"  198.18.0.2/24 fd00:18::2/64
#          192.168.18.1/24 2001:db8:18::1/64           192.168.18.2/24 2001:db8:18::2/64
#          default via 198.18.0.2, fd00:18::2   lo     198.51.100.2, 2001:db8:51::2 (the
#                                                      endpoint: off-link for a, reached
#                                                      through a's default route),
#                                                      10.77.0.2 (a LAN range, routed by
#                                                      a into the tunnel)
#   ns $P-c: a scratch namespace where `nft -f` reads wg-quick's own script
#
# In a: net.ipv4.conf.all.rp_filter=1, and for IPv6 (which has no rp_filter sysctl) the
# rule firewalld uses, `fib saddr . mark . iif oif missing drop`, after wg-quick's mangle
# priority. Cases: a full tunnel over an IPv4 and over an IPv6 underlay, 5 of 5 pings of
# both inner families; the ruleset the same as nft makes of wg-quick's script; without the
# premangle rule the replies die in the reverse-path filter; a spoofed packet to the
# tunnel address arriving on the underlay is dropped (and arrives without preraw); the kill
# switch rejects a connection outside the tunnel, still does after `kill -9` of the
# daemon, and goes with `down`, and without KillSwitchAllowLAN rejects the LAN too; with
# it a connection to the LAN (the underlay's 192.168.18.0/24 and fd00:18::/64) passes
# while one to the underlay's other subnets (198.18.0.0/24, 2001:db8:18::/64) is still
# rejected, from a SaveConfig'd file too and after `kill -9`, a LAN address routed into
# the tunnel still goes through it, and its table is what nft makes of the traced script;
# a failed up leaves nothing behind (bad input: in test-updown.sh's table of broken
# files); without nf_tables, iptables-restore (KillSwitchAllowLAN's rules included).
# After every `down` `nft list ruleset` (and links, addresses, routes, rules) are as
# before.
source "$(dirname "$0")/lib.sh"
require_root wg ping diff nft python3 timeout

A=${P}wa
B=${P}wb
PORT=7777

state() { ns_state "$1"; } # lib.sh: what must be the same before up and after down
snap() { state a >"$TMP/a.before"; }
unchanged() { # unchanged WHAT
	state a >"$TMP/a.after"
	diff -u "$TMP/a.before" "$TMP/a.after" >&2 || die "$1: namespace a changed"
}

# up|down NS CONF; with $PRELOAD set, cakewg (and only cakewg) runs under that LD_PRELOAD.
PRELOAD=
up() {
	n "$1" env ${PRELOAD:+LD_PRELOAD=$PRELOAD} "$CAKEWG" up "$2" 2>"$TMP/up.err" ||
		{ cat "$TMP/up.err" >&2; die "up $2 failed"; }
}
down() {
	n "$1" env ${PRELOAD:+LD_PRELOAD=$PRELOAD} "$CAKEWG" down "$2" 2>"$TMP/down.err" ||
		{ cat "$TMP/down.err" >&2; die "down $2 failed"; }
}

pings5() { # pings5 NS ADDR: 5 of 5 echo replies
	local out
	out=$(n "$1" ping -c 5 -i 0.2 -W 2 "$2" || true)
	grep -q "5 packets transmitted, 5 received" <<<"$out" || { echo "$out" >&2; return 1; }
}

tcp_ok() { # tcp_ok ADDR: a TCP connection from a to b's listener
	n a timeout 3 bash -c "exec 3<>/dev/tcp/$1/$PORT" 2>/dev/null
}

# conf_client ENDPOINT EXTRA_LINES, conf_server: the two files.
conf_client() {
	cat >"$TMP/$A.conf" <<-EOF
	[Interface]
	PrivateKey = $(cat "$TMP/a.key")
	Address = 198.19.0.1/24, fd00:19::1/64
	$2
	[Peer]
	PublicKey = $(cat "$TMP/b.pub")
	Endpoint = $1
	AllowedIPs = 0.0.0.0/0, ::/0
	EOF
}
conf_server() {
	cat >"$TMP/$B.conf" <<-EOF
	[Interface]
	PrivateKey = $(cat "$TMP/b.key")
	ListenPort = 10002
	Address = 198.19.0.2/24, fd00:19::2/64
	[Peer]
	PublicKey = $(cat "$TMP/a.pub")
	AllowedIPs = 198.19.0.1/32, fd00:19::1/128
	EOF
}

# wg-quick's nftcmd for one family of $A (add_default, with its address loop over
# `ip -o addr show dev`), as wireguard-tools' linux.bash writes it.
wg_quick_script() { # wg_quick_script ip|ip6
	local pf=$1 t=wg-quick-$A proto=-4 addr
	[ "$pf" = ip6 ] && proto=-6
	echo "add table $pf $t"
	echo "add chain $pf $t preraw { type filter hook prerouting priority -300; }"
	echo "add chain $pf $t premangle { type filter hook prerouting priority -150; }"
	echo "add chain $pf $t postmangle { type filter hook postrouting priority -150; }"
	for addr in $(n a ip -o "$proto" addr show dev "$A" | sed -E 's/.*inet6? ([0-9a-f:.]+)\/.*/\1/'); do
		echo "add rule $pf $t preraw iifname != \"$A\" $pf daddr $addr fib saddr type != local drop"
	done
	echo "add rule $pf $t postmangle meta l4proto udp mark 51820 ct mark set mark "
	echo "add rule $pf $t premangle meta l4proto udp meta mark set ct mark "
}

pair_underlay
mkns c
n a ip addr add 192.168.18.1/24 dev "${P}a"
n b ip addr add 192.168.18.2/24 dev "${P}b"
n a ip addr add 2001:db8:18::1/64 dev "${P}a" nodad
n b ip addr add 2001:db8:18::2/64 dev "${P}b" nodad
n b ip addr add 198.51.100.2/32 dev lo
n b ip addr add 2001:db8:51::2/128 dev lo
n b ip addr add 10.77.0.2/32 dev lo
n a ip route add default via 198.18.0.2
n a ip -6 route add default via fd00:18::2
n a sysctl -qw net.ipv4.conf.all.rp_filter=1
n a sysctl -qw net.ipv4.conf.all.src_valid_mark=0
n a nft -f - <<-EOF
	table inet rpf6 {
		chain pre {
			type filter hook prerouting priority -140; policy accept;
			icmpv6 type { nd-router-advert, nd-neighbor-solicit } accept
			meta nfproto ipv6 fib saddr . mark . iif oif missing drop
		}
	}
EOF
keypair a
keypair b
wait_dad
conf_server
up b "$TMP/$B.conf"
# b's TCP listener for the connections the kill switch must stop (and let through).
n b python3 -c '
import socket
s = socket.socket(socket.AF_INET6)
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("::", '$PORT'))
s.listen(64)
while True:
    s.accept()[0].close()
' >/dev/null 2>&1 &
wait_for 5 tcp_ok 198.18.0.2 || die "b's listener did not start"

for outer in 4 6; do
	ep=198.51.100.2:10002
	[ $outer = 6 ] && ep=[2001:db8:51::2]:10002
	log "== full tunnel over an IPv$outer underlay, strict reverse-path filter"
	snap
	conf_client "$ep" ""
	up a "$TMP/$A.conf"
	grep -q "^\[#\] nft 'add rule ip wg-quick-$A postmangle meta l4proto udp mark 51820 ct mark set mark'$" \
		"$TMP/up.err" || { cat "$TMP/up.err"; die "the nft commands were not traced"; }
	wait_for 12 n a ping -c 1 -W 1 198.19.0.2 || die "no handshake over IPv$outer"
	for addr in 198.19.0.2 fd00:19::2; do
		pings5 a $addr || die "IPv$outer underlay: not 5 of 5 pings to $addr"
	done
	log "5 of 5 pings to 198.19.0.2 and to fd00:19::2"
	for pf in ip ip6; do
		n c nft -f <(wg_quick_script $pf) || die "nft refused wg-quick's script"
		diff -u <(n c nft list table $pf wg-quick-$A) <(n a nft list table $pf wg-quick-$A) ||
			die "table $pf wg-quick-$A is not what nft makes of wg-quick's script"
		n c nft delete table $pf wg-quick-$A
	done
	# The restore of the fwmark is what lets the replies through the reverse-path filter.
	pf=ip
	[ $outer = 6 ] && pf=ip6
	n a nft flush chain $pf wg-quick-$A premangle
	if n a ping -c 2 -i 0.2 -W 1 198.19.0.2 >/dev/null; then die "replies passed without premangle"; fi
	n a nft add rule $pf wg-quick-$A premangle meta l4proto udp meta mark set ct mark
	pings5 a 198.19.0.2 || die "pings did not come back with premangle"
	log "without premangle's rule the replies are dropped (IPv$outer underlay)"
	down a "$TMP/$A.conf"
	unchanged "IPv$outer underlay"
done

log "== preraw: a packet to the tunnel address arriving on the underlay is dropped"
snap
conf_client 198.51.100.2:10002 ""
up a "$TMP/$A.conf"
wait_for 12 n a ping -c 1 -W 1 198.19.0.2 || die "no handshake"
# b sends to a's tunnel addresses over the veth (marked 119 = 0x77: its own table 77).
n b ip rule add fwmark 0x77 lookup 77
n b ip -6 rule add fwmark 0x77 lookup 77
n b ip route add 198.19.0.1/32 via 198.18.0.1 dev "${P}b" table 77
n b ip -6 route add fd00:19::1/128 via fd00:18::1 dev "${P}b" table 77
for addr in 198.19.0.1 fd00:19::1; do
	if n b ping -c 2 -i 0.2 -W 1 -m 119 $addr >/dev/null; then die "spoofed $addr arrived"; fi
done
n a nft flush chain ip wg-quick-$A preraw
n a nft flush chain ip6 wg-quick-$A preraw
for addr in 198.19.0.1 fd00:19::1; do
	n b ping -c 2 -i 0.2 -W 1 -m 119 $addr >/dev/null || die "without preraw $addr did not arrive either"
done
log "dropped with preraw's rules, delivered without"
n b ip rule del fwmark 0x77 lookup 77
n b ip -6 rule del fwmark 0x77 lookup 77
down a "$TMP/$A.conf"
unchanged "preraw"

log "== kill switch: no connection outside the tunnel, even after kill -9 of the daemon"
snap
tcp_ok 198.18.0.2 || die "without a kill switch the LAN is not reachable"
conf_client 198.51.100.2:10002 "KillSwitch = true"
up a "$TMP/$A.conf"
n a nft list table inet cakewg-killswitch-$A >/dev/null || die "no kill switch table"
wait_for 12 n a ping -c 1 -W 1 198.19.0.2 || die "no handshake with the kill switch"
pings5 a 198.19.0.2 || die "kill switch: pings through the tunnel"
pings5 a fd00:19::2 || die "kill switch: IPv6 pings through the tunnel"
tcp_ok 198.19.0.2 || die "kill switch: no TCP through the tunnel"
if tcp_ok 198.18.0.2; then die "kill switch: a connection left outside the tunnel"; fi
if tcp_ok fd00:18::2; then die "kill switch: an IPv6 connection left outside the tunnel"; fi
if tcp_ok 192.168.18.2; then die "kill switch: the LAN passed without KillSwitchAllowLAN"; fi
pid=$(ip netns pids "$P-a")
[ -n "$pid" ] || die "no daemon in a"
kill -9 $pid
wait_for 5 sh -c "! ip -n $P-a link show $A" || die "the interface outlived its daemon"
if tcp_ok 198.18.0.2; then die "kill switch: gone with the daemon"; fi
n a nft list table inet cakewg-killswitch-$A >/dev/null || die "the kill switch table went with the daemon"
log "blocked before and after kill -9"
down a "$TMP/$A.conf"
grep -q "Warning: \`$A' is gone; removed the firewall rules it left" "$TMP/down.err" ||
	{ cat "$TMP/down.err"; die "down after the crash did not say what it did"; }
tcp_ok 198.18.0.2 || die "the LAN is unreachable after down"
unchanged "kill switch after kill -9"

lan_passes() { # lan_passes WHEN: the LAN reachable, the rest outside the tunnel not
	local addr
	for addr in 192.168.18.2 fd00:18::2; do
		tcp_ok $addr || die "KillSwitchAllowLAN $1: no connection to the LAN's $addr"
	done
	for addr in 198.18.0.2 2001:db8:18::2; do
		if tcp_ok $addr; then die "KillSwitchAllowLAN $1: a connection to $addr left outside the tunnel"; fi
	done
}

log "== kill switch with KillSwitchAllowLAN: the LAN passes, nothing else, even after kill -9"
snap
conf_client 198.51.100.2:10002 $'KillSwitch = true\nKillSwitchAllowLAN = true\nSaveConfig = true'
up a "$TMP/$A.conf"
# The kernel's table is what nft makes of the traced commands.
sed -n "s/^\[#\] nft '\(add .* inet cakewg-killswitch-$A.*\)'$/\1/p" "$TMP/up.err" >"$TMP/ks.nft"
grep -q "ip daddr 192.168.0.0/16 accept" "$TMP/ks.nft" || { cat "$TMP/up.err"; die "no LAN rule traced"; }
n c nft -f "$TMP/ks.nft" || die "nft refused the kill switch's script"
diff -u <(n c nft list table inet cakewg-killswitch-$A) <(n a nft list table inet cakewg-killswitch-$A) ||
	die "the kill switch's table is not what nft makes of its script"
n c nft delete table inet cakewg-killswitch-$A
wait_for 12 n a ping -c 1 -W 1 198.19.0.2 || die "no handshake with KillSwitchAllowLAN"
pings5 a 198.19.0.2 || die "KillSwitchAllowLAN: pings through the tunnel"
tcp_ok 198.19.0.2 || die "KillSwitchAllowLAN: no TCP through the tunnel"
lan_passes "up"
# 10.77.0.2 is in 10.0.0.0/8, but the routing sends it into the tunnel: there it goes.
n a ip route get 10.77.0.2 | grep -q "dev $A " || die "10.77.0.2 is not routed into the tunnel"
tcp_ok 10.77.0.2 || die "KillSwitchAllowLAN: no TCP to a LAN range routed into the tunnel"
down a "$TMP/$A.conf"
for line in "KillSwitch = true" "KillSwitchAllowLAN = true"; do
	grep -qxF "$line" "$TMP/$A.conf" || { cat "$TMP/$A.conf"; die "SaveConfig lost: $line"; }
done
unchanged "KillSwitchAllowLAN down"
up a "$TMP/$A.conf"
wait_for 12 n a ping -c 1 -W 1 198.19.0.2 || die "no handshake from the saved file"
lan_passes "from the saved file"
pid=$(ip netns pids "$P-a")
[ -n "$pid" ] || die "no daemon in a"
kill -9 $pid
wait_for 5 sh -c "! ip -n $P-a link show $A" || die "the interface outlived its daemon"
lan_passes "after kill -9"
down a "$TMP/$A.conf"
tcp_ok 198.18.0.2 || die "the underlay is unreachable after down"
unchanged "KillSwitchAllowLAN after kill -9"
log "the LAN passed, 198.18.0.2 and 2001:db8:18::2 did not, before and after kill -9"

log "== kill switch over an IPv6 underlay: neighbour discovery still passes"
snap
conf_client [2001:db8:51::2]:10002 "KillSwitch = true"
up a "$TMP/$A.conf"
n a ip -6 neigh flush dev "${P}a"
wait_for 12 n a ping -c 1 -W 1 198.19.0.2 || die "no handshake over IPv6 with the kill switch"
pings5 a fd00:19::2 || die "kill switch, IPv6 underlay: not 5 of 5 pings"
if tcp_ok fd00:18::2; then die "kill switch: an IPv6 connection left outside the tunnel"; fi
down a "$TMP/$A.conf"
unchanged "kill switch over IPv6"

log "== kill switch and a failing up: nothing left"
snap
conf_client 198.51.100.2:10002 $'KillSwitch = true\nPostUp = false'
if n a "$CAKEWG" up "$TMP/$A.conf" 2>"$TMP/up.err"; then die "PostUp = false succeeded"; fi
grep -q "^\[#\] nft 'add table inet cakewg-killswitch-$A'$" "$TMP/up.err" || { cat "$TMP/up.err"; die "no kill switch was set"; }
unchanged "failed up"
tcp_ok 198.18.0.2 || die "a failed up left the kill switch"

log "== without nf_tables: wg-quick's iptables-restore fallback, kill switch included"
# Last: iptables-nft leaves its empty tables behind, so the ruleset is compared no more.
SHIM=${CAKEWG_BUILD:-$TOP/build}/tests/libno_nftables.so
[ -f "$SHIM" ] || die "$SHIM is not built"
xt_rules() { n a iptables-save | grep -- '^-A' || true; n a ip6tables-save | grep -- '^-A' || true; }
xt_rules >"$TMP/xt.before"
conf_client 198.51.100.2:10002 $'KillSwitch = true\nKillSwitchAllowLAN = true'
PRELOAD=$SHIM
up a "$TMP/$A.conf"
grep -q "^\[#\] iptables-restore -n$" "$TMP/up.err" && grep -q "^\[#\] ip6tables-restore -n$" "$TMP/up.err" ||
	{ cat "$TMP/up.err"; die "iptables-restore was not used"; }
n a nft list table ip wg-quick-$A >/dev/null 2>&1 && die "nft was used after all"
[ "$(xt_rules | grep -c "wg-quick(8) rule for $A")" = 7 ] || { xt_rules; die "not wg-quick's rules"; }
xt_rules | grep -q -- "-A OUTPUT ! -o $A -m mark ! --mark 0xca6c -m addrtype ! --dst-type LOCAL -m comment --comment \"cakewg kill switch for $A\" -j REJECT" ||
	{ xt_rules; die "no kill switch rule"; }
for net in 192.168.0.0/16 fc00::/7; do
	xt_rules | grep -q -- "-A OUTPUT -d $net -m comment --comment \"cakewg kill switch for $A\" -j ACCEPT" ||
		{ xt_rules; die "no LAN rule for $net"; }
done
wait_for 12 n a ping -c 1 -W 1 198.19.0.2 || die "no handshake with iptables' rules"
pings5 a 198.19.0.2 || die "iptables: not 5 of 5 pings"
lan_passes "through iptables"
down a "$TMP/$A.conf"
PRELOAD=
xt_rules | diff -u "$TMP/xt.before" - || die "iptables rules left after down"
tcp_ok 198.18.0.2 || die "the LAN is unreachable after down"
log "set and removed through iptables-restore; 5 of 5 pings"
mkdir -p "$TMP/empty"
state a >"$TMP/a.before"
if n a env PATH="$TMP/empty" LD_PRELOAD="$SHIM" "$CAKEWG" up "$TMP/$A.conf" 2>"$TMP/up.err"; then
	die "up without nf_tables and iptables succeeded"
fi
errors=$(grep -v '^\[#\] ' "$TMP/up.err" || true)
[ "$errors" = "cakewg: $TMP/$A.conf: cannot add the firewall rules: nf_tables is not available (Protocol not supported) and iptables-restore is not installed" ] ||
	{ cat "$TMP/up.err"; die "unclear error without nf_tables and iptables"; }
unchanged "neither nf_tables nor iptables"
down b "$TMP/$B.conf"
echo "PASS"
