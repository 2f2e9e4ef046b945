#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# ctest: runs alone, as its latencies while the data path is saturated are the assertions.
# Control messages are never lost to a full socket (issue 15, part 3). A's underlay
# socket is saturated the whole time: a tbf at 20 Mbit/s on A's veth, CAKE `unlimited`
# (so the socket's backpressure holds the queue in CAKE) and a UDP flood through the
# tunnel at 10x that. Meanwhile:
#  - rekeys: four times a side forgets its peer (remove and add it again) and a new
#    handshake must complete in under REKEY_TIMEOUT (5 s): a lost initiation or response
#    would only be sent again after it. Twice A initiates, twice it responds;
#  - cookie replies: a burst of initiations with a valid mac1 puts A under load, and it
#    answers each with a cookie reply. Every reply it made either arrives or is counted
#    dropped (underlay_ctl_dropped): none is lost silently. The socket was full while
#    they went (underlay_ctl_queued grew);
#  - the session never stalls: a ping through the tunnel every 100 ms never goes
#    unanswered for MAX_GAP_MS, and the tunnel works afterwards.
#
#   ns $P-a                                   ns $P-b
#   $P"wa" cakewg 198.19.0.1 ================ $P"wb" cakewg 198.19.0.2
#     CAKE unlimited, UDP flood ->                iperf3 -s; initiation_flood.py
#   $P"a" veth 198.18.0.1 <-------------------> $P"b" veth 198.18.0.2
#     tbf rate 20mbit
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-cake.sh"
[ "${CI:-}" = true ] && skip() { die "$*"; } # in CI a missing tool is a failure
require_root wg iperf3 python3 tc ping

FLOOD_SECS=24
HANDSHAKE_BOUND_MS=3000 # under REKEY_TIMEOUT: the first exchange must have gone through
INITIATIONS=3000	# more than UNDER_LOAD_QUEUE_LEN (512): the rest get cookie replies
# The longest a ping may go unanswered: a rekey's own gap (peer removed until the new
# session) plus a loaded machine's slack; a lost handshake message costs 5 s.
MAX_GAP_MS=2500

# handshake_done NS IF PEER_PUB: the peer has a handshake time.
handshake_done() {
	[ "$(n "$1" wg show "$2" latest-handshakes | awk -v k="$3" '$1 == k {print $2}')" != 0 ]
}

# rekey SIDE: SIDE forgets its peer and adds it back as it was; a new handshake follows
# (A's flood or a ping from B asks for one) and must complete in time.
rekey() {
	local side=$1 other=b ep=198.18.0.2:10002 ips=198.19.0.2/32 t0 ms
	[ "$side" = b ] && other=a ep=198.18.0.1:10001 ips=198.19.0.1/32
	local pub
	pub=$(cat "$TMP/$other.pub")
	t0=$EPOCHREALTIME
	n "$side" wg set "${P}w$side" peer "$pub" remove
	n "$side" wg set "${P}w$side" peer "$pub" allowed-ips "$ips" endpoint "$ep"
	[ "$side" = b ] && { n b ping -c 1 -W 1 198.19.0.1 >/dev/null 2>&1 & }
	wait_for 6 handshake_done "$side" "${P}w$side" "$pub" || die "rekey by $side: no handshake"
	ms=$(python3 -c 'import sys; print(int((float(sys.argv[2]) - float(sys.argv[1])) * 1000))' \
		"$t0" "$EPOCHREALTIME")
	log "rekey initiated by $side: handshake in $ms ms"
	[ "$ms" -lt "$HANDSHAKE_BOUND_MS" ] || die "rekey by $side took $ms ms: a handshake message was lost"
}

# cookie_burst: initiations from B's underlay address to A's listen port.
cookie_burst() {
	local sent0 queued0 dropped0 sent queued dropped out n_sent got
	sent0=$(ext_val "${P}wa" cookie_replies_sent)
	queued0=$(ext_val "${P}wa" underlay_ctl_queued)
	dropped0=$(ext_val "${P}wa" underlay_ctl_dropped)
	out=$(n b python3 "$TOOLS/initiation_flood.py" "$TMP/a.pub" 198.18.0.1 10001 "$INITIATIONS" 3)
	read -r n_sent got <<<"$out"
	sent=$(($(ext_val "${P}wa" cookie_replies_sent) - sent0))
	queued=$(($(ext_val "${P}wa" underlay_ctl_queued) - queued0))
	dropped=$(($(ext_val "${P}wa" underlay_ctl_dropped) - dropped0))
	log "cookie burst: $n_sent initiations; A made $sent cookie replies, $queued waited for the" \
		"socket, $dropped control messages dropped (counted); $got replies arrived"
	[ "$sent" -gt 0 ] || die "A never went under load"
	[ "$queued" -gt 0 ] || die "the socket never turned a control message away: not saturated"
	[ "$got" -le "$sent" ] || die "more replies arrived than were made"
	[ $((got + dropped)) -ge "$sent" ] ||
		die "$((sent - got - dropped)) cookie replies were lost without a count"
}

# max_gap_ms FILE: the longest time between two answered pings (ping -D), in ms.
max_gap_ms() {
	python3 - "$1" <<'PY'
import re, sys
t = [float(x) for x in re.findall(r"^\[([0-9.]+)\].*time=", open(sys.argv[1]).read(), re.M)]
if len(t) < 2:
    sys.exit("fewer than two pings answered")
print(int(max(b - a for a, b in zip(t, t[1:])) * 1000))
PY
}

cake_pair cakewg 4
n a tc qdisc add dev "${P}a" root tbf rate 20mbit burst 20kb limit 1mb
ext_val "${P}wa" cake_egress | grep -q "^bandwidth unlimited " || die "CAKE is not unlimited"
iperf_server b 5201
n a timeout $((FLOOD_SECS + 20)) iperf3 -c 198.19.0.2 -u -b 100M -P 2 -t "$FLOOD_SECS" \
	>"$TMP/flood.txt" 2>&1 &
flood=$!
sleep 1
n a ping -D -i 0.1 -w $((FLOOD_SECS - 2)) 198.19.0.2 >"$TMP/ping.txt" 2>&1 &
pinger=$!
stalls0=$(ext_val "${P}wa" backpressure_stalls)
sleep 1

log "== rekeys while A's socket is saturated"
rekey a
sleep 1
rekey b
sleep 1

log "== a burst of initiations puts A under load: cookie replies"
cookie_burst
sleep 2 # UNDER_LOAD_AFTER_TIME: A answers handshakes again

log "== rekeys after the load"
rekey b
sleep 1
rekey a

stalls=$(($(ext_val "${P}wa" backpressure_stalls) - stalls0))
log "backpressure stalls during the test: $stalls"
[ "$stalls" -gt 0 ] || die "the socket never pushed back: not saturated"
wait $pinger || true
wait $flood || { cat "$TMP/flood.txt"; die "the flood failed"; }
gap=$(max_gap_ms "$TMP/ping.txt")
read -r loss p50 p99 max <<<"$(ping_stats "$TMP/ping.txt")"
log "ping through the tunnel: longest gap $gap ms; loss $loss %, p50 $p50 ms, p99 $p99 ms"
[ "$gap" -lt "$MAX_GAP_MS" ] || die "the session stalled for $gap ms"
ping_ok a 198.19.0.2 5 || die "no ping after the test"
[ "$(ext_val "${P}wa" underlay_send_errors)" = 0 ] || die "underlay send errors"
finish
