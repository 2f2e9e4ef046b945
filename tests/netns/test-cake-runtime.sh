#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# ctest: runs alone, as its goodput per phase is the assertion.
# Runtime reconfiguration (issue 5's acceptance tests, part 4): "runtime `cakewg set ...
# cake` changes the shaper mid-transfer". One cubic TCP upload of 15 s through a cakewg
# that shapes at 10 Mbit/s, then (`cakewg set <if> cake bandwidth 30mbit` at 5 s) at
# 30 Mbit/s, then (raw UAPI `cake=bandwidth 10mbit` at 10 s) at 10 Mbit/s again. From the
# receiver's one-second intervals: the goodput of each phase, its first 2 s left out
# while TCP adapts, is within 15 % of the rate, and no interval of the whole transfer is
# empty (the connection never stalls across a change).
#
#   ns $P-a                                   ns $P-b
#   $P"wa" cakewg 198.19.0.1 ================ $P"wb" cakewg 198.19.0.2
#     CAKE 10 -> 30 -> 10 Mbit/s                  iperf3 -s
#   $P"a" veth 198.18.0.1 <-------------------> $P"b" veth 198.18.0.2
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-cake.sh"
require_root wg iperf3 python3
need_cubic

PHASE_SECS=6
TOLERANCE_PCT=15

cake_pair cakewg 4
n a "$CAKEWG" set "${P}wa" cake bandwidth 10mbit rtt 300ms
ext_val "${P}wa" cake_egress | grep -q "^bandwidth 10Mbit .* rtt 300ms " || die "options not applied"

iperf_server b 5201 -J
# at_second S: sleeps until S seconds after the upload started.
at_second() {
	python3 -c 'import sys, time; time.sleep(max(0.0, float(sys.argv[1]) + float(sys.argv[2]) - time.time()))' \
		"$START" "$1"
}

log "== a TCP upload: 10 Mbit/s, then 30, then 10 again, changed every $PHASE_SECS s"
START=$EPOCHREALTIME
n a timeout $((PHASE_SECS * 3 + 20)) iperf3 -c 198.19.0.2 -t $((PHASE_SECS * 3)) -i 1 -C cubic \
	--get-server-output -J >"$TMP/runtime.json" 2>&1 &
client=$!
at_second "$PHASE_SECS"
n a "$CAKEWG" set "${P}wa" cake bandwidth 30mbit || die "cakewg set cake bandwidth 30mbit failed"
opts=$(ext_val "${P}wa" cake_egress)
log "set bandwidth 30mbit: $opts"
case "$opts" in
"bandwidth 30Mbit "*" rtt 300ms "*) ;;
*) die "after cakewg set cake bandwidth 30mbit: $opts" ;;
esac
at_second $((PHASE_SECS * 2))
uapi_set "${P}wa" 'cake=bandwidth 10mbit' || die "UAPI cake=bandwidth 10mbit failed"
opts=$(ext_val "${P}wa" cake_egress)
log "set bandwidth 10mbit: $opts"
case "$opts" in
"bandwidth 10Mbit "*" rtt 300ms "*) ;;
*) die "after UAPI cake=bandwidth 10mbit: $opts" ;;
esac
wait $client || { cat "$TMP/runtime.json"; die "the transfer failed"; }

python3 - "$TMP/runtime.json" "$PHASE_SECS" "$TOLERANCE_PCT" "$TUN_MTU" <<'PY' ||
import json, sys
r = json.load(open(sys.argv[1]))
phase, tol, mtu = int(sys.argv[2]), float(sys.argv[3]) / 100, int(sys.argv[4])
wire_per_payload = (mtu + 32 + 8 + 20) / (mtu - 20 - 32)
server = r.get("server_output_json")
if not server:
    sys.exit("no server intervals (iperf3 --get-server-output)")
recv = [i["sum"] for i in server["intervals"]]
sent = [i["sum"] for i in r["intervals"]]
print("receiver Mbit/s per second:", " ".join("%.1f" % (s["bits_per_second"] / 1e6) for s in recv))
stalls = [k for k, s in enumerate(recv + sent) if s["bytes"] == 0]
ok = not stalls
if stalls:
    print("intervals without a byte:", stalls)
for n, rate in enumerate((10, 30, 10)):
    window = recv[n * phase + 2:(n + 1) * phase - 1]
    goodput = sum(s["bytes"] for s in window) * 8 / sum(s["seconds"] for s in window) / 1e6
    got = goodput * wire_per_payload
    good = abs(got - rate) <= rate * tol
    ok &= good
    print("phase %d at %d Mbit/s: goodput %.2f Mbit/s, on the wire %.2f Mbit/s (%+.1f %%)%s" %
          (n + 1, rate, goodput, got, 100 * (got - rate) / rate, "" if good else "  <-- outside"))
sys.exit(0 if ok else 1)
PY
	die "the shaper did not follow the changes"
finish
