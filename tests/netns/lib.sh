#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Shared helpers for the network-namespace end-to-end tests.
#
# Every namespace and interface a test makes carries the prefix $P (unique per run:
# "c" + 5 hex digits), and `cleanup` (installed as an EXIT trap) kills what runs in
# them, deletes them and removes the UAPI sockets of our interfaces, even on failure.
# Traffic never leaves the namespaces this file creates.
set -euo pipefail
umask 077

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
: "${CAKEWG_BIN:=$TOP/build/tools/cakewg}"
[ -d "$CAKEWG_BIN" ] && CAKEWG_BIN=$CAKEWG_BIN/cakewg
CAKEWG=$CAKEWG_BIN
P=c$(printf '%05x' $(( (RANDOM << 8 ^ RANDOM ^ $$) & 0xfffff )))
TMP=$(mktemp -d "/tmp/cakewg-netns-$P.XXXX")
NETNS=()
export WG_I_PREFER_BUGGY_USERSPACE_TO_POLISHED_KMOD=1

die() { echo "FAIL: $*" >&2; exit 1; }
log() { echo "[$(date +%T)] $*"; }

# Skips. Under CI (CI set, and not to "false" or "0": root, and the test command
# installed every tool) nothing may skip: either kind fails the test instead.
# skip REASON: the test cannot run here at all. Before anything ran (no namespace made
# yet), exit 77, which ctest reports as a skip; after that, the rest of the test is a
# skipped part (as skip_part) and the script ends with what it ran.
# skip_part REASON: one part cannot run here; logged, and the test goes on. The parts
# skipped are listed again when the script ends.
SKIPPED=()
RAN= # set by the first mkns
under_ci() { [ -n "${CI:-}" ] && [ "$CI" != false ] && [ "$CI" != 0 ]; }
skip_part() {
	under_ci && die "skipped under CI, where every part must run: $*"
	log "SKIP: $*"
	SKIPPED+=("$*")
}
skip() {
	under_ci && die "skipped under CI, where every test must run: $*"
	if [ -z "$RAN" ]; then
		echo "SKIP: $*"
		exit 77
	fi
	skip_part "the rest of the test: $*"
	exit 0
}

require_root() {
	[ "$(id -u)" -eq 0 ] || skip "needs root"
	local t
	for t in ip "$@"; do command -v "$t" >/dev/null || skip "needs $t"; done
}

cleanup() {
	local rc=$? ns pid
	set +e
	for ns in "${NETNS[@]}"; do
		for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -TERM "$pid" 2>/dev/null; done
	done
	sleep 0.2
	for ns in "${NETNS[@]}"; do
		for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
		ip netns del "$ns" 2>/dev/null
	done
	rm -f /var/run/wireguard/"$P"*.sock /var/run/wireguard/"$P"*.name 2>/dev/null
	if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
		for f in "$TMP"/*.log; do
			[ -f "$f" ] && { echo "--- $f"; tail -n 40 "$f"; }
		done
	fi
	rm -rf "$TMP"
	if [ ${#SKIPPED[@]} -gt 0 ]; then
		echo "${#SKIPPED[@]} part(s) skipped:"
		printf '  SKIP: %s\n' "${SKIPPED[@]}"
	fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# mkns NAME: a namespace $P-NAME with lo up.
mkns() {
	local ns=$P-$1
	ip netns add "$ns"
	NETNS+=("$ns")
	RAN=1
	ip -n "$ns" link set lo up
}
# n NAME CMD...: run CMD inside namespace $P-NAME.
n() { local ns=$P-$1; shift; ip netns exec "$ns" "$@"; }

# veth NS1 IF1 NS2 IF2: a veth pair between two namespaces, both ends up.
veth() {
	ip link add "$2" netns "$P-$1" type veth peer name "$4" netns "$P-$3"
	n "$1" ip link set "$2" up
	n "$3" ip link set "$4" up
}

# wait_for TIMEOUT_S CMD...: poll CMD every 0.1 s until it succeeds.
wait_for() {
	local end=$((SECONDS + $1)); shift
	until "$@" >/dev/null 2>&1; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.1
	done
}

# keypair NAME: writes $TMP/NAME.key and $TMP/NAME.pub
keypair() {
	wg genkey >"$TMP/$1.key"
	wg pubkey <"$TMP/$1.key" >"$TMP/$1.pub"
}

# start_wggo NS IFNAME: wireguard-go in the foreground, in the background of this shell.
# WGGO_BIN names another build of it (the benchmarks' --peer).
start_wggo() {
	n "$1" env LOG_LEVEL=error "${WGGO_BIN:-wireguard-go}" -f "$2" >"$TMP/wggo-$2.log" 2>&1 &
	wait_for 5 test -S "/var/run/wireguard/$2.sock" || die "wireguard-go $2 did not start"
}

# uapi_gone SECS IFNAME: wait up to SECS for IFNAME's UAPI socket file to go. A daemon
# that dropped privileges leaves its unlinking to the janitor (src/edge/uapi_janitor.h),
# which runs a moment after the daemon's end.
uapi_gone() {
	wait_for "$1" sh -c "[ ! -e /var/run/wireguard/$2.sock ]"
}

# start_cakewg NS IFNAME: cakewg in the foreground, in the background of this shell.
start_cakewg() {
	n "$1" env LOG_LEVEL=verbose "$CAKEWG" -f "$2" >"$TMP/cakewg-$2.log" 2>&1 &
	wait_for 5 test -S "/var/run/wireguard/$2.sock" || die "cakewg $2 did not start"
	# Like wireguard-go, a new device starts at WireGuard's MTU, not Ethernet's.
	[ "$(n "$1" cat "/sys/class/net/$2/mtu")" = 1420 ] || die "cakewg $2: MTU is not 1420"
}

# ns_state NS: what `down` must leave as `up` found it: links, addresses, the routes of
# every table and the rules of both families, and (with nft installed) the nftables
# ruleset. The veth's peer namespace is left out: `ip` names it by scanning every
# namespace, which other tests creating and deleting theirs can make fail for a moment.
ns_state() {
	n "$1" ip -d link 2>/dev/null | sed -E 's/ link-netns(id)? [^ ]+//'
	n "$1" ip addr
	n "$1" ip route show table all
	n "$1" ip -6 route show table all
	n "$1" ip rule
	n "$1" ip -6 rule
	if command -v nft >/dev/null; then n "$1" nft list ruleset; fi
}

# ping_ok NS ADDR [COUNT]: ping through the tunnel.
ping_ok() {
	n "$1" ping -q -c "${3:-3}" -i 0.2 -W 2 "$2" >/dev/null
}

# The topology of most tests:
#
#   ns $P-a                              ns $P-b
#   $P"wa" (tunnel) 198.19.0.1/24        $P"wb" (tunnel) 198.19.0.2/24
#                   fd00:19::1/64                        fd00:19::2/64
#   $P"a" (veth)    198.18.0.1/24 <----> $P"b" (veth)    198.18.0.2/24
#                   fd00:18::1/64                        fd00:18::2/64
#
# pair IMPL_A IMPL_B OUTER [PSK]: implementations cakewg|wggo; OUTER 4 or 6 decides the
# underlay family of A's endpoint for B (A initiates; B learns A's endpoint).
pair() {
	local impl_a=$1 impl_b=$2 outer=$3 psk=${4:-}
	pair_underlay
	keypair a
	keypair b
	"start_$impl_a" a "${P}wa"
	"start_$impl_b" b "${P}wb"
	local ep=198.18.0.2:10002 pskarg=()
	[ "$outer" = 6 ] && ep=[fd00:18::2]:10002
	if [ -n "$psk" ]; then
		wg genpsk >"$TMP/psk"
		pskarg=(preshared-key "$TMP/psk")
	fi
	n a wg set "${P}wa" private-key "$TMP/a.key" listen-port 10001 \
		peer "$(cat "$TMP/b.pub")" "${pskarg[@]}" allowed-ips 198.19.0.2/32,fd00:19::2/128 endpoint "$ep"
	n b wg set "${P}wb" private-key "$TMP/b.key" listen-port 10002 \
		peer "$(cat "$TMP/a.pub")" "${pskarg[@]}" allowed-ips 198.19.0.1/32,fd00:19::1/128
	n a ip addr add 198.19.0.1/24 dev "${P}wa"
	n b ip addr add 198.19.0.2/24 dev "${P}wb"
	n a ip addr add fd00:19::1/64 dev "${P}wa" nodad
	n b ip addr add fd00:19::2/64 dev "${P}wb" nodad
	n a ip link set "${P}wa" up
	n b ip link set "${P}wb" up
}

# teardown_pair: ends every namespace made so far (what runs in them first), so that the
# next pair() starts afresh; the EXIT trap then has nothing left of them to clean.
teardown_pair() {
	local ns pid
	for ns in "${NETNS[@]}"; do
		for pid in $(ip netns pids "$ns"); do kill "$pid"; done
		ip netns del "$ns"
	done
	NETNS=()
	sleep 0.3
}

# pair_underlay: namespaces a and b and the veth between them, addressed as drawn above;
# no tunnels yet.
pair_underlay() {
	mkns a
	mkns b
	veth a "${P}a" b "${P}b"
	n a ip addr add 198.18.0.1/24 dev "${P}a"
	n b ip addr add 198.18.0.2/24 dev "${P}b"
	n a ip addr add fd00:18::1/64 dev "${P}a" nodad
	n b ip addr add fd00:18::2/64 dev "${P}b" nodad
}

# conf_side SIDE ADDRESS_LINES INTERFACE_LINES PEER_ALLOWEDIPS: $TMP/${P}wSIDE.conf, a
# wg-quick file for SIDE (a or b) of the topology above, whose peer is the other side at
# its IPv4 underlay address (keypairs a and b made). ADDRESS_LINES and INTERFACE_LINES
# (either may be empty or several lines) go after ListenPort.
conf_side() {
	local me=$1 peer=b i=1 j=2
	[ "$me" = b ] && peer=a i=2 j=1
	cat >"$TMP/${P}w$me.conf" <<-EOF
	[Interface]
	PrivateKey = $(cat "$TMP/$me.key")
	ListenPort = 1000$i
	$2
	$3
	[Peer]
	PublicKey = $(cat "$TMP/$peer.pub")
	Endpoint = 198.18.0.$j:1000$j
	AllowedIPs = $4
	EOF
}

# conf_a INTERFACE_LINES PEER_ALLOWEDIPS, conf_b INTERFACE_LINES [PEER_ALLOWEDIPS]: the
# file of A or B with both tunnel addresses on one Address line (B's peer: A's addresses).
conf_a() { conf_side a "Address = 198.19.0.1/24, fd00:19::1/64" "$1" "$2"; }
conf_b() {
	conf_side b "Address = 198.19.0.2/24, fd00:19::2/64" "$1" \
		"${2:-198.19.0.1/32, fd00:19::1/128}"
}

# wait_dad: the veths' link-local IPv6 addresses have finished duplicate address
# detection (a snapshot taken before would differ from one taken after).
dad_done() { [ -z "$(n a ip -6 addr show tentative)$(n b ip -6 addr show tentative)" ]; }
wait_dad() { wait_for 10 dad_done || die "IPv6 DAD on the veths did not finish"; }

# counters: "A_hs A_rx A_tx B_hs B_rx B_tx" from `wg show dump` on both sides.
counters() {
	local a b
	a=$(n a wg show "${P}wa" dump | tail -n 1)
	b=$(n b wg show "${P}wb" dump | tail -n 1)
	echo "$(cut -f5-7 <<<"$a") $(cut -f5-7 <<<"$b")"
}

# transfer_agrees: both sides record the handshake; what one sent the other received,
# exactly over a quiet ping exchange; over the whole run the receiver may have lost some
# to its own buffer overflows (wireguard-go drops at a few hundred Mbit/s), never gained.
transfer_agrees() {
	local a_hs a_rx a_tx b_hs b_rx b_tx
	read -r a_hs a_rx a_tx b_hs b_rx b_tx <<<"$(counters)"
	log "A: handshake $a_hs rx $a_rx tx $a_tx | B: handshake $b_hs rx $b_rx tx $b_tx"
	[ "$a_hs" -gt 0 ] && [ "$b_hs" -gt 0 ] || die "no handshake recorded"
	[ $(( a_hs - b_hs )) -le 2 ] && [ $(( b_hs - a_hs )) -le 2 ] || die "handshake times differ"
	[ "$b_rx" -le "$a_tx" ] || die "B received $b_rx bytes, more than A sent ($a_tx)"
	[ "$a_rx" -le "$b_tx" ] || die "A received $a_rx bytes, more than B sent ($b_tx)"
	log "lost in flight: A->B $(( (a_tx - b_rx) * 1000 / (a_tx + 1) ))/1000," \
		"B->A $(( (b_tx - a_rx) * 1000 / (b_tx + 1) ))/1000"
	ping_ok a 198.19.0.2 5
	sleep 0.5
	local d_a_tx d_b_rx d_b_tx d_a_rx
	read -r _ d_a_rx d_a_tx _ d_b_rx d_b_tx <<<"$(counters)"
	[ $(( d_a_tx - a_tx )) = $(( d_b_rx - b_rx )) ] ||
		die "during pings A sent $(( d_a_tx - a_tx )) bytes, B received $(( d_b_rx - b_rx ))"
	[ $(( d_b_tx - b_tx )) = $(( d_a_rx - a_rx )) ] ||
		die "during pings B sent $(( d_b_tx - b_tx )) bytes, A received $(( d_a_rx - a_rx ))"
	log "counters agree (pings: $(( d_a_tx - a_tx )) bytes each way)"
}

# iperf_through FROM_NS TO_NS ADDR SECONDS [extra iperf3 client args]: a TCP transfer.
iperf_through() {
	local from=$1 to=$2 addr=$3 secs=$4
	shift 4
	n "$to" iperf3 -s -1 -D -I "$TMP/iperf-$to.pid" >/dev/null 2>&1
	wait_for 5 n "$to" sh -c "ss -ltn | grep -q ':5201 '" || die "iperf3 server did not start"
	n "$from" iperf3 -c "$addr" -t "$secs" -J "$@" >"$TMP/iperf.json" 2>&1 ||
		{ cat "$TMP/iperf.json"; die "iperf3 to $addr failed"; }
	python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
e = r["end"]
s = e.get("sum_received") or e.get("sum")
print("%.1f Mbit/s, %d retransmits" % (s["bits_per_second"] / 1e6, e.get("sum_sent", {}).get("retransmits", 0)))
' "$TMP/iperf.json"
}
