# SPDX-License-Identifier: GPL-2.0-only
# The autorate end-to-end case (test-autorate.sh: uploads, the egress instance;
# test-autorate-ingress.sh: downloads, the ingress instance), for DIR=up or DIR=down:
# a client cakewg whose instance for DIR has `bandwidth 20mbit autorate 2mbit 80mbit`
# carries 4 cubic TCP flows in that direction through a router whose tbf in that
# direction (one burst of 16000 bytes throughout, a bloated FIFO of 250 ms at the peak
# rate) runs at 30 Mbit/s, then steps to 6 Mbit/s; run_case IMPL puts a wireguard-go or
# cakewg server at the other end. It asserts:
#  - on the steady 30 Mbit/s link, the goodput stays >= GOODPUT_MIN of the link (the
#    controller finds the capacity from its start rate and does not waste it);
#  - after the step, the instance's rate in `cakewg show --json` falls to <= 1.1 x 6
#    Mbit/s within CONVERGE_SECS;
#  - then the ping RTT through the tunnel, under the same load, is back within
#    idle + SLACK_MS (median of the last pings), where a fixed 20 Mbit/s shaper would sit
#    on seconds of the router's queue, and the rate has not collapsed below half the
#    capacity; a rate change was logged.
#
#   ns $P-c                    ns $P-r                          ns $P-s
#   $P"wc" cakewg 198.19.0.1 ==================================== $P"ws" 198.19.0.2
#   $P"c" 198.18.1.1 <----> $P"rc" 198.18.1.2  $P"rs" 198.18.2.2 <----> $P"s" 198.18.2.1
#           tbf 30 -> 6 Mbit/s on $P"rc" (down) or $P"rs" (up)      iperf3 -s
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/lib-cake.sh"
require_root wg iperf3 python3 tc ping
need_cubic

case "${DIR:-}" in
up) INSTANCE=egress ;;
down) INSTANCE=ingress ;;
*) die "DIR must be up or down, not '${DIR:-}'" ;;
esac
up() { [ "$DIR" = up ]; }

PEAK_MBIT=30
LOW_MBIT=6
BURST=16000                                 # DESIGN.md §7: one burst for all rates
FIFO_BYTES=$((PEAK_MBIT * 1000000 / 8 / 4)) # 250 ms at the peak
STEADY_SECS=9
CONVERGE_SECS=8
PING_SECS=4
GOODPUT_MIN=0.70 # of the link, payload over wire (the start rate alone is 0.67)
SLACK_MS=30

topology() {
	mkns c
	mkns r
	mkns s
	veth c "${P}c" r "${P}rc"
	veth r "${P}rs" s "${P}s"
	n c ip addr add 198.18.1.1/24 dev "${P}c"
	n r ip addr add 198.18.1.2/24 dev "${P}rc"
	n r ip addr add 198.18.2.2/24 dev "${P}rs"
	n s ip addr add 198.18.2.1/24 dev "${P}s"
	n c ip route add 198.18.2.0/24 via 198.18.1.2
	n s ip route add 198.18.1.0/24 via 198.18.2.2
	n r sysctl -qw net.ipv4.ip_forward=1
	# No offloads on the bottleneck: tbf then holds plain packets, as a modem does.
	n r ethtool -K "${P}rs" gso off gro off tso off >/dev/null 2>&1 || true
	n r ethtool -K "${P}rc" gso off gro off tso off >/dev/null 2>&1 || true
	link_rate "$PEAK_MBIT" add
}

# link_rate MBIT [add]: the router's bottleneck in the direction under test.
link_rate() {
	n r tc qdisc "${2:-change}" dev "$(if up; then echo "${P}rs"; else echo "${P}rc"; fi)" \
		root tbf rate "$1mbit" burst "$BURST" limit "$FIFO_BYTES"
}

# tunnel IMPL: the server (cakewg|wggo) in s, the client cakewg with autorate in c.
tunnel() {
	keypair c
	keypair s
	start_cakewg c "${P}wc"
	"start_$1" s "${P}ws"
	n c wg set "${P}wc" private-key "$TMP/c.key" listen-port 10001 \
		peer "$(cat "$TMP/s.pub")" allowed-ips 198.19.0.2/32 endpoint 198.18.2.1:10002
	n s wg set "${P}ws" private-key "$TMP/s.key" listen-port 10002 \
		peer "$(cat "$TMP/c.pub")" allowed-ips 198.19.0.1/32
	n c ip addr add 198.19.0.1/24 dev "${P}wc"
	n s ip addr add 198.19.0.2/24 dev "${P}ws"
	set_mtu c "${P}wc" "$TUN_MTU"
	set_mtu s "${P}ws" "$TUN_MTU"
	n c ip link set "${P}wc" up
	n s ip link set "${P}ws" up
	if up; then
		n c "$CAKEWG" set "${P}wc" cake bandwidth 20mbit autorate 2mbit 80mbit
	else
		n c "$CAKEWG" set "${P}wc" ingress bandwidth 20mbit autorate 2mbit 80mbit ingress
	fi || die "cakewg set $INSTANCE ... autorate failed"
	ext_val "${P}wc" "cake_$INSTANCE" | grep -q "^bandwidth 20Mbit autorate 2Mbit 80Mbit" ||
		die "options not applied: $(ext_val "${P}wc" "cake_$INSTANCE")"
	ping_ok c 198.19.0.2 || die "no ping through the tunnel"
}

# ar_rate: the autorate rate (bytes/s) of the instance under test, from `cakewg show --json`.
ar_rate() {
	jget "$(n c "$CAKEWG" show --json "${P}wc")" \
		"(j[0] if isinstance(j, list) else j)['cake']['$INSTANCE']['stats']['autorate']['rate']"
}

elapsed() { python3 -c 'import sys, time; print("%.1f" % (time.time() - float(sys.argv[1])))' "$1"; }
mbit() { python3 -c 'import sys; print("%.2f" % (int(sys.argv[1]) * 8 / 1e6))' "$1"; }

run_case() {
	local impl=$1 idle p50 t0 rate conv=-1 secs
	log "== server: $impl"
	topology
	tunnel "$impl"
	n c ping -c 20 -i 0.1 -W 2 198.19.0.2 >"$TMP/idle-$impl.txt" || die "idle pings failed"
	read -r _ idle _ _ <<<"$(ping_stats "$TMP/idle-$impl.txt")"
	log "idle RTT median ${idle} ms"

	iperf_server s 5201 -J
	secs=$((STEADY_SECS + CONVERGE_SECS + PING_SECS + 3))
	n c timeout $((secs + 20)) iperf3 -c 198.19.0.2 -P 4 -C cubic -t "$secs" -i 1 \
		$(up || echo -R) --get-server-output -J >"$TMP/load-$impl.json" 2>&1 &
	local client=$!
	sleep "$STEADY_SECS"
	rate=$(ar_rate) || die "no autorate state in cakewg show --json"
	log "after ${STEADY_SECS}s at ${PEAK_MBIT} Mbit/s: $INSTANCE rate $(mbit "$rate") Mbit/s"

	link_rate "$LOW_MBIT"
	t0=$EPOCHREALTIME
	while le "$(elapsed "$t0")" "$CONVERGE_SECS"; do
		rate=$(ar_rate)
		if le "$rate" "$((LOW_MBIT * 1000000 / 8 * 11 / 10))"; then
			conv=$(elapsed "$t0")
			break
		fi
		sleep 0.2
	done
	log "after the step to ${LOW_MBIT} Mbit/s: $INSTANCE rate $(mbit "$rate") Mbit/s" \
		"($([ "$conv" != -1 ] && echo "within ${conv}s" || echo "not within ${CONVERGE_SECS}s"))"
	[ "$conv" != -1 ] || { grep autorate "$TMP/cakewg-${P}wc.log" | tail -n 20; \
		die "the rate did not fall to 1.1 x ${LOW_MBIT} Mbit/s within ${CONVERGE_SECS}s"; }

	sleep 2 # the router's queue drains
	n c ping -c $((PING_SECS * 10)) -i 0.1 -W 3 198.19.0.2 >"$TMP/load-$impl.txt" || true
	read -r loss p50 _ _ <<<"$(ping_stats "$TMP/load-$impl.txt")"
	log "loaded RTT after the transient: median ${p50} ms (idle ${idle}), loss ${loss} %"
	le "$p50" "$(python3 -c "print($idle + $SLACK_MS)")" ||
		{ n c "$CAKEWG" show "${P}wc" | grep -i autorate; \
		die "RTT ${p50} ms is not within idle + ${SLACK_MS} ms"; }
	rate=$(ar_rate)
	le "$((LOW_MBIT * 1000000 / 8 / 2))" "$rate" ||
		die "the rate collapsed to $(mbit "$rate") Mbit/s, below half the capacity"
	wait $client || { tail -c 2000 "$TMP/load-$impl.json"; die "the transfer failed"; }

	python3 - "$TMP/load-$impl.json" "$STEADY_SECS" "$PEAK_MBIT" "$GOODPUT_MIN" "$TUN_MTU" \
		"$DIR" <<'PY' ||
import json, sys
r = json.load(open(sys.argv[1]))
steady, peak, least, mtu = int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
wire_per_payload = (mtu + 32 + 8 + 20) / (mtu - 20 - 32)
receiver = r.get("server_output_json") if sys.argv[6] == "up" else r
if not receiver:
    sys.exit("no server intervals (iperf3 --get-server-output)")
recv = [i["sum"] for i in receiver["intervals"]]
print("receiver Mbit/s per second:", " ".join("%.1f" % (s["bits_per_second"] / 1e6) for s in recv))
window = recv[3:steady]
goodput = sum(s["bytes"] for s in window) * 8 / sum(s["seconds"] for s in window) / 1e6
share = goodput * wire_per_payload / peak
print("steady link, seconds 3..%d: goodput %.2f Mbit/s, %.2f of the link" % (steady, goodput, share))
sys.exit(0 if share >= least else "goodput %.2f of the link, below %.2f" % (share, least))
PY
		die "the steady link lost goodput"
	grep -c "cake $INSTANCE autorate:" "$TMP/cakewg-${P}wc.log" >/dev/null ||
		die "no rate change was logged"
	teardown_pair
}
