#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Endpoint host names resolved again by the daemon (src/core/reresolve.h), against a DNS
# responder of our own inside A's namespace (tests/netns/tools/dns_responder.py; `ip netns
# exec` puts /etc/netns/$P-a/resolv.conf over /etc/resolv.conf):
#
#   ns $P-a                                   ns $P-b
#   $P"wa" 198.19.0.1/24                      $P"wb" 198.19.0.2/24
#   $P"a"  198.18.0.1/24 <------------------> $P"b"  198.18.0.2/24, 198.18.0.3/24
#   DNS on 127.0.0.1:53: vpn.cakewg.test A 198.18.0.2, later none, later 198.18.0.3
#
# B runs wireguard-go. The test hook CAKEWG_TEST_RERESOLVE_SECS=2 stands for the rule's
# 135 s. Checked:
# `cakewg set ... endpoint NAME:PORT` hands the name to the daemon (cakewg_get=1 and
# showconf name it); a name that stops resolving keeps the endpoint and counts the
# failures; a name that moves is followed once B's old address is gone (the time until
# pings flow again is reported); stock `wg set ... endpoint IP:port` makes the daemon
# forget the name; `cakewg up` hands the name over as `set` does, and SaveConfig writes
# it back. (A name that never resolves at `up` is test-updown.sh's last case.)
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-cake.sh"
require_root wg ping wireguard-go

A=${P}wa
B=${P}wb
NAME=vpn.cakewg.test
ZONE=$TMP/zone
RESOLV_DIR=/etc/netns/$P-a

cleanup_resolv() {
	local rc=$?
	set +e
	rm -rf "$RESOLV_DIR"
	(exit $rc)
	cleanup
}
trap cleanup_resolv EXIT

# zone LINES...: what the responder answers from now on (one atomic rename).
zone() {
	printf '%s\n' "$@" >"$ZONE.new"
	mv "$ZONE.new" "$ZONE"
}

# peer_val KEY: KEY's value in A's cakewg_get=1 record of its one peer.
peer_val() {
	ext_get "$A" | sed -n '/^public_key=/,$p' | sed -n "s/^$1=//p" | head -n 1
}
failures_at_least() { [ "$(peer_val resolve_failures)" -ge "$1" ] 2>/dev/null; }
endpoint_is() { [ "$(n a wg show "$A" endpoints | cut -f2)" = "$1" ]; }

pair_underlay
# B's second address stays when the first goes.
n b sysctl -qw "net.ipv4.conf.${P}b.promote_secondaries=1"
n b ip addr add 198.18.0.3/24 dev "${P}b"
mkdir -p "$RESOLV_DIR"
printf 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n' >"$RESOLV_DIR/resolv.conf"
zone "$NAME A 198.18.0.2"
n a python3 "$TOOLS/dns_responder.py" 127.0.0.1 53 "$ZONE" >"$TMP/dns.log" 2>&1 &
wait_for 5 grep -q ready "$TMP/dns.log" || die "the DNS responder did not start"
n a getent ahostsv4 "$NAME" | grep -q 198.18.0.2 || die "the responder does not answer"

log "== the name goes to the daemon"
export CAKEWG_TEST_RERESOLVE_SECS=2
keypair a
keypair b
start_cakewg a "$A"
# B is wireguard-go: it does not act on its own address going, so only A's lookup can
# bring the tunnel back (cakewg would handshake from its new address, and A would roam).
start_wggo b "$B"
n b wg set "$B" private-key "$TMP/b.key" listen-port 10002 \
	peer "$(cat "$TMP/a.pub")" allowed-ips 198.19.0.1/32
n a "$CAKEWG" set "$A" private-key "$TMP/a.key" listen-port 10001 \
	peer "$(cat "$TMP/b.pub")" allowed-ips 198.19.0.2/32 endpoint "$NAME:10002"
n a ip addr add 198.19.0.1/24 dev "$A"
n b ip addr add 198.19.0.2/24 dev "$B"
n a ip link set "$A" up
n b ip link set "$B" up
ping_ok a 198.19.0.2 || die "no tunnel through the name's first address"
endpoint_is 198.18.0.2:10002 || die "the endpoint is not the name's address"
[ "$(peer_val endpoint_host)" = "$NAME:10002" ] || die "cakewg_get=1 lacks endpoint_host"
n a "$CAKEWG" showconf "$A" | grep -qx "Endpoint = $NAME:10002" ||
	die "showconf does not keep the name"

log "== the name stops resolving: the endpoint stays, the failures are counted"
zone
wait_for 15 failures_at_least 2 || die "no failed lookup counted ($(peer_val resolve_failures))"
ping_ok a 198.19.0.2 || die "the tunnel broke while the name did not resolve"
endpoint_is 198.18.0.2:10002 || die "a failed lookup moved the endpoint"
grep -q "cannot resolve $NAME: .*keeping endpoint 198.18.0.2:10002" "$TMP/cakewg-$A.log" ||
	die "no clear log line for the failed lookup"
[ "$(grep -c "cannot resolve $NAME" "$TMP/cakewg-$A.log")" = 1 ] ||
	die "a run of failures is logged more than once"
log "$(peer_val resolve_failures) failed lookups, endpoint kept"

log "== the name moves and B's old address goes: the daemon follows"
zone "$NAME A 198.18.0.3"
n b ip addr del 198.18.0.2/24 dev "${P}b"
t0=$(date +%s.%N)
wait_for 10 ping_ok a 198.19.0.2 1 || die "the tunnel did not follow the name within 10 s"
t1=$(date +%s.%N)
endpoint_is 198.18.0.3:10002 || die "the endpoint is not the name's new address"
[ "$(peer_val resolve_changes)" = 1 ] || die "resolve_changes is not 1"
grep -q "$NAME now resolves to 198.18.0.3:10002 (was 198.18.0.2:10002)" \
	"$TMP/cakewg-$A.log" || die "no log line for the move"
grep -q "$NAME resolves again" "$TMP/cakewg-$A.log" || die "no log line for the recovery"
log "pings flow again $(python3 -c "print('%.1f' % ($t1 - $t0))") s after the move" \
	"(re-resolution every 2 s while the handshake is older, backoff after failures)"

log "== stock wg sets an address alone: the name is forgotten"
n a wg set "$A" peer "$(cat "$TMP/b.pub")" endpoint 198.18.0.3:10002
[ -z "$(peer_val endpoint_host)" ] || die "the name survived wg set endpoint IP:port"
n a "$CAKEWG" showconf "$A" | grep -qx "Endpoint = 198.18.0.3:10002" ||
	die "showconf does not show the address"
ping_ok a 198.19.0.2 || die "the tunnel broke"

log "== cakewg up hands the name over too, and SaveConfig keeps it"
n a ip link del "$A"
uapi_gone 5 "$A" || die "the daemon did not go"
cat >"$TMP/$A.conf" <<EOC
[Interface]
PrivateKey = $(cat "$TMP/a.key")
ListenPort = 10001
Address = 198.19.0.1/24
SaveConfig = true
[Peer]
PublicKey = $(cat "$TMP/b.pub")
AllowedIPs = 198.19.0.2/32
Endpoint = $NAME:10002
EOC
n a "$CAKEWG" up "$TMP/$A.conf" 2>"$TMP/up.err" || { cat "$TMP/up.err"; die "up failed"; }
ping_ok a 198.19.0.2 || die "no tunnel after up"
[ "$(peer_val endpoint_host)" = "$NAME:10002" ] || die "up did not hand the name over"
n a "$CAKEWG" down "$TMP/$A.conf" 2>"$TMP/down.err" || { cat "$TMP/down.err"; die "down failed"; }
grep -qx "Endpoint = $NAME:10002" "$TMP/$A.conf" || { cat "$TMP/$A.conf"; die "SaveConfig lost the name"; }
echo "PASS"
