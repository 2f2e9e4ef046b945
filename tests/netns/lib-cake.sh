#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Helpers for the CAKE datapath end-to-end tests (tests/netns/test-cake-*.sh), on top of
# lib.sh: the cakewg_get=1 UAPI extension, packet captures, kernel counters, iperf3 runs.
# Source lib.sh first.

TOOLS=$TOP/tests/netns/tools
# The system's interpreter when there is one: a version manager's shim on PATH can take a
# second per start, and these tests start python often. python3 as a command (lib.sh's
# helpers too) goes to it.
PY=$(command -v python3)
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
python3() { "$PY" "$@"; }
TUN_MTU=1420
WG_V6_OVERHEAD=80 # outer IPv6 40 + UDP 8 + data header 16 + tag 16

# set_mtu NS IF MTU: the tunnel MTU, as wg-quick would set it.
set_mtu() {
	n "$1" ip link set dev "$2" mtu "$3"
}

# uapi_call IF get|set|raw: sends stdin, one whole request, to IF's UAPI socket and reads
# the reply up to its blank line. get: the reply must hold errno=0 and is printed; set:
# it must be exactly errno=0. Otherwise it fails, saying why on stderr. raw: the reply
# is printed, whatever it says.
uapi_call() {
	python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(5)
s.connect(sys.argv[1])
s.sendall(sys.stdin.buffer.read())
data = b""
while not data.endswith(b"\n\n"):
    chunk = s.recv(65536)
    if not chunk:
        break
    data += chunk
if sys.argv[2] == "raw":
    print(data.decode().strip())
    sys.exit(0)
if sys.argv[2] == "set":
    sys.exit(0 if data == b"errno=0\n\n" else "set failed: %r" % data)
text = data.decode()
if "\nerrno=0\n" not in "\n" + text:
    sys.exit("cakewg_get failed: " + text[-200:])
sys.stdout.write(text)' "/var/run/wireguard/$1.sock" "$2"
}

# ext_get IF: the daemon's whole cakewg_get=1 reply (key=value lines).
ext_get() {
	printf 'cakewg_get=1\n\n' | uapi_call "$1" get
}

# ext_val IF KEY: the first value of KEY in the cakewg_get reply ("" when absent).
ext_val() {
	ext_get "$1" | sed -n "s/^$2=//p" | head -n 1
}

# uapi_set IF LINES: one set=1 request; LINES are key=value lines separated by \n.
uapi_set() {
	printf 'set=1\n%b\n\n' "$2" | uapi_call "$1" set
}

# cake_json IF [egress|ingress]: the instance's statistics as tc -s -j prints them.
cake_json() {
	ext_val "$1" "cake_${2:-egress}_json"
}

# jget JSON EXPR: a Python expression over the parsed JSON `j`, printed.
jget() {
	python3 -c 'import json, sys; j = json.loads(sys.argv[1]); print(eval(sys.argv[2]))' "$1" "$2"
}

# tin_field IF TIN FIELD: one field of one egress tin (index as tc prints the tins).
tin_field() {
	jget "$(cake_json "$1")" "j['tins'][$2]['$3']"
}

# kstat NS NAME: a kernel counter of the namespace from /proc/net/{snmp,netstat}, named
# as nstat names them (TcpExtTCPDeliveredCE, IpExtInCEPkts, UdpSndbufErrors, ...).
kstat() {
	n "$1" "$PY" - "$2" <<'PY'
import sys
want = sys.argv[1]
for path in ("/proc/net/snmp", "/proc/net/netstat"):
    lines = open(path).read().splitlines()
    for names, values in zip(lines[::2], lines[1::2]):
        prefix, names = names.split(":", 1)
        for k, v in zip(names.split(), values.split(":", 1)[1].split()):
            if prefix + k == want:
                print(v)
                sys.exit(0)
sys.exit("no counter " + want)
PY
}

# tc_dropped NS IF: the root qdisc's drop counter.
tc_dropped() {
	n "$1" tc -s qdisc show dev "$2" | sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' | head -n 1
}

# capture_start NAME NS IFACE [capture.py args]: capture.py in the background until
# capture_stop NAME; its JSON lands in $TMP/cap-NAME.json.
capture_start() {
	local name=$1 ns=$2 ifc=$3
	shift 3
	rm -f "$TMP/cap-$name.ready"
	# Not through n(): $! must be the capture itself (ip netns exec execs it).
	ip netns exec "$P-$ns" "$PY" "$TOOLS/capture.py" "$ifc" --seconds 120 \
		--ready "$TMP/cap-$name.ready" "$@" >"$TMP/cap-$name.json" 2>"$TMP/cap-$name.log" &
	echo $! >"$TMP/cap-$name.pid"
	wait_for 5 test -e "$TMP/cap-$name.ready" || die "capture $name did not start"
}

# capture_stop NAME: stops the capture and sets CAP to its JSON. Not in a $(...): the
# capture is a child of this shell, to be waited for here.
capture_stop() {
	local pid
	pid=$(cat "$TMP/cap-$1.pid")
	kill -TERM "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	[ -s "$TMP/cap-$1.json" ] || die "capture $1 printed nothing: $(cat "$TMP/cap-$1.log")"
	CAP=$(cat "$TMP/cap-$1.json")
}

# iperf_server NS PORT [ARGS]: a one-shot iperf3 server, daemonized (-J among ARGS
# lets a client's --get-server-output bring the server's intervals as JSON).
iperf_server() {
	local ns=$1 port=$2
	shift 2
	n "$ns" iperf3 -s -1 -D -p "$port" -I "$TMP/iperf-$ns-$port.pid" "$@" >/dev/null 2>&1
	wait_for 5 n "$ns" sh -c "ss -ltn | grep -q ':$port '" ||
		die "iperf3 server on $ns:$port did not start"
}

# iperf_json FILE EXPR: a Python expression over an iperf3 JSON result `r`, printed.
iperf_json() {
	python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# need_cubic: skip unless the kernel offers cubic (the tests pass it per socket, iperf3
# -C cubic: the host default may be bbr, and bbr ignores CE marks).
need_cubic() {
	grep -qw cubic /proc/sys/net/ipv4/tcp_available_congestion_control ||
		skip "no cubic congestion control"
}

# cakewg_pid NS IF: the daemon's process id (not its socket janitor's, which has the same
# command line).
cakewg_pid() {
	local pid
	for pid in $(ip netns pids "$P-$1"); do
		[ "$(cat "/proc/$pid/comm" 2>/dev/null)" != cakewg-janitor ] || continue
		if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- " $2\( \|$\)"; then
			case "$(tr '\0' ' ' <"/proc/$pid/cmdline")" in
			*cakewg*) echo "$pid"; return 0 ;;
			esac
		fi
	done
	return 1
}

# offloads_on IF: the daemon log says the TUN device runs with checksum and TSO offloads.
offloads_on() {
	grep -q "TUN offloads: csum tso4 tso6" "$TMP/cakewg-$1.log"
}

# le A B: A <= B for decimal numbers.
le() {
	python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) <= float(sys.argv[2]) else 1)' "$1" "$2"
}

# cake_pair IMPL_B OUTER: lib.sh's pair with cakewg as A, both tunnels at $TUN_MTU (as
# wg-quick sets it), and a first ping so the session exists.
cake_pair() {
	pair cakewg "$1" "$2"
	set_mtu a "${P}wa" "$TUN_MTU"
	set_mtu b "${P}wb" "$TUN_MTU"
	ping_ok a 198.19.0.2 || die "no ping through the tunnel"
}

# finish: the last line of a test.
finish() {
	log "PASS"
}

# ping_stats FILE: "LOSS_PCT P50_MS P99_MS MAX_MS" from the output of ping.
ping_stats() {
	python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"(\d+) packets transmitted, (\d+) received", text)
if not m or int(m.group(1)) == 0:
    sys.exit("no ping summary")
sent, got = int(m.group(1)), int(m.group(2))
rtts = sorted(float(x) for x in re.findall(r"time=([0-9.]+) ms", text))
if not rtts:
    print("%.1f inf inf inf" % 100.0)
    sys.exit(0)
pick = lambda q: rtts[min(len(rtts) - 1, int(q * len(rtts)))]
print("%.1f %.2f %.2f %.2f" % (100.0 * (sent - got) / sent, pick(0.5), pick(0.99), rtts[-1]))
PY
}
