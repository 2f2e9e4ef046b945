#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# cakewg <-> cakewg: with and without a preshared key; roaming (the client's underlay
# address changes mid-transfer: the transfer goes on and the server's endpoint follows);
# garbage on the underlay and the UAPI socket during a transfer changes nothing.
source "$(dirname "$0")/lib.sh"
require_root wg iperf3 python3

log "== without a preshared key"
pair cakewg cakewg 4
ping_ok a 198.19.0.2 || die "ping"
iperf_through a b 198.19.0.2 2
transfer_agrees
teardown_pair

log "== with a preshared key"
pair cakewg cakewg 6 psk
ping_ok a fd00:19::2 || die "ping with psk"
iperf_through b a 198.19.0.1 2
transfer_agrees
teardown_pair

log "== mismatched preshared keys never complete a handshake"
pair cakewg cakewg 4 psk
wg genpsk >"$TMP/other.psk"
n b wg set "${P}wb" peer "$(cat "$TMP/a.pub")" preshared-key "$TMP/other.psk"
if n a ping -q -c 2 -W 1 198.19.0.2 >/dev/null 2>&1; then die "ping passed with different psks"; fi
teardown_pair

log "== roaming: the client's address changes during a transfer"
pair cakewg cakewg 4
ping_ok a 198.19.0.2 || die "ping before roaming"
n b iperf3 -s -1 -D >/dev/null 2>&1
wait_for 5 n b sh -c "ss -ltn | grep -q ':5201 '"
n a iperf3 -c 198.19.0.2 -t 6 -J >"$TMP/roam.json" 2>&1 &
client=$!
sleep 2
n a sysctl -qw net.ipv4.conf.all.promote_secondaries=1 "net.ipv4.conf.${P}a.promote_secondaries=1"
n a ip addr add 198.18.0.11/24 dev "${P}a"
n a ip addr del 198.18.0.1/24 dev "${P}a"
wait $client || { cat "$TMP/roam.json"; die "transfer broke while roaming"; }
ep=$(n b wg show "${P}wb" endpoints | cut -f2)
[ "$ep" = 198.18.0.11:10001 ] || die "the server's endpoint is $ep, not the new address"
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["end"]["sum_received"]
print("roaming transfer: %.1f Mbit/s" % (r["bits_per_second"] / 1e6))' "$TMP/roam.json"
teardown_pair

log "== garbage on the underlay and on the UAPI socket during a transfer"
pair cakewg cakewg 4
ping_ok a 198.19.0.2 || die "ping"
n b iperf3 -s -1 -D >/dev/null 2>&1
wait_for 5 n b sh -c "ss -ltn | grep -q ':5201 '"
n a iperf3 -c 198.19.0.2 -t 4 -J >"$TMP/garbage.json" 2>&1 &
client=$!
n a python3 - "$TMP" "${P}wb" <<'PY' &
import os, random, socket, struct, sys, time
rng = random.Random(7)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
end = time.time() + 3
sent = 0
while time.time() < end:
    kind = rng.randrange(6)
    n = rng.choice([0, 1, 3, 4, 31, 32, 64, 92, 148, 200, 1400])
    body = bytes(rng.randrange(256) for _ in range(n))
    if kind < 4 and n >= 4:   # valid type byte, random rest
        body = bytes([kind + 1, 0, 0, 0]) + body[4:]
    s.sendto(body, ("198.18.0.2", 10002))
    sent += 1
    time.sleep(0.0005)
print("sent %d garbage datagrams" % sent)
PY
garbage=$!
sock=/var/run/wireguard/${P}wb.sock
# Each request and the first word of its reply: an unknown operation and an unfinished
# request get none (the connection closes), bad keys and values -EINVAL, a line longer
# than any key=value -EMSGSIZE.
replies=(closed errno=-22 errno=-22 errno=-22 errno=-22 errno=-90 closed)
i=0
for req in 'get=2\n\n' 'set=1\nbogus=1\n\n' 'set=1\nprivate_key=zz\n\n' 'set=1\npublic_key=\n\n' \
	'set=1\nlisten_port=99999\n\n' "$(head -c 3000 /dev/urandom | base64 -w0)\n\n" 'garbage\n'; do
	got=$(printf "$req" | timeout 2 python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(sys.stdin.buffer.read())
s.settimeout(1)
try:
    print(s.recv(100).decode(errors="replace").split()[0] if True else "")
except Exception as e:
    print("closed")' "$sock" || true)
	[ "$got" = "${replies[$i]}" ] ||
		die "UAPI garbage #$i (${req:0:24}): the reply is \`$got', not \`${replies[$i]}'"
	i=$((i + 1))
done
wait $garbage
wait $client || { cat "$TMP/garbage.json"; die "the transfer broke under garbage"; }
[ "$(n b wg show "${P}wb" listen-port)" = 10002 ] || die "garbage changed the listen port"
[ "$(n b wg show "${P}wb" peers)" = "$(cat "$TMP/a.pub")" ] || die "garbage changed the peers"
ping_ok a 198.19.0.2 || die "ping after garbage"
teardown_pair
echo PASS
