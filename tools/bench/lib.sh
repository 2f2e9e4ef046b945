#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Helpers shared by tools/bench/throughput.sh, latency.sh and autorate.sh.
#
# Sources tests/netns/lib.sh (namespaces named $P-*, the cleanup trap that kills what
# runs in them and deletes them even on failure, start_cakewg/start_wggo), and adds:
# a client — [router —] server topology, one tunnel per implementation living side by
# side in the same namespaces (so runs can be interleaved without restarting anything),
# tbf bottlenecks, UAPI access for cakewg's CAKE keys, and daemon CPU accounting.
#
#   direct:  ns $P-c ${P}c 198.18.0.1/24 <-----------------------------> ${P}s 198.18.0.2/24 ns $P-s
#   routed:  ns $P-c ${P}c 198.18.1.1/24 <-> ${P}rc 198.18.1.254  ns $P-r
#                                            ${P}rs 198.18.2.254 <-> ${P}s 198.18.2.1/24 ns $P-s
#
#   tunnels  cakewg: ${P}kc 198.19.1.1/24 (client) — ${P}ks 198.19.1.2/24 (server)
#            wggo:   ${P}gc 198.19.2.1/24 (client) — ${P}gs 198.19.2.2/24 (server)
#
# Only 198.18.0.0/15 is used; all traffic stays inside these namespaces.

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# tests/netns/lib.sh defaults to $TOP/build/tools/cakewg; CAKEWG_BIN overrides it.
# shellcheck source=tests/netns/lib.sh
source "$BENCH_DIR/../../tests/netns/lib.sh"

BENCH_PY=$BENCH_DIR/benchlib.py
# the real interpreter: a version manager's shim costs a few hundred ms per call
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null || echo python3)
SERVER_UNDERLAY=
TUNNEL_MTU=1420
declare -A DAEMON_PID_C DAEMON_PID_S
# shellcheck disable=SC2034 # used by the scripts that source this file
declare -A IMPL_NAMES_SH=([cakewg]=cakewg [wggo]=wireguard-go)

# usage [STATUS]: the calling script's header from "# Usage:" to "# Bounded", then exit.
usage() {
	sed -n '/^# Usage:/,/^# Bounded/p' "$0" | sed 's/^# \{0,1\}//'
	exit "${1:-0}"
}

# impl_tag IMPL: the letter in the interface names and the third octet of the tunnel.
impl_tag() { case $1 in cakewg) echo k ;; wggo) echo g ;; *) die "unknown implementation $1" ;; esac; }
impl_net() { case $1 in cakewg) echo 1 ;; wggo) echo 2 ;; *) die "unknown implementation $1" ;; esac; }
# tun_if IMPL SIDE(c|s): the tunnel interface; tun_addr IMPL SIDE: its address.
tun_if() { echo "${P}$(impl_tag "$1")$2"; }
tun_addr() { echo "198.19.$(impl_net "$1").$([ "$2" = c ] && echo 1 || echo 2)"; }

# topology direct|routed
topology() {
	mkns c
	mkns s
	if [ "$1" = direct ]; then
		veth c "${P}c" s "${P}s"
		n c ip addr add 198.18.0.1/24 dev "${P}c"
		n s ip addr add 198.18.0.2/24 dev "${P}s"
		SERVER_UNDERLAY=198.18.0.2
		return
	fi
	mkns r
	veth c "${P}c" r "${P}rc"
	veth r "${P}rs" s "${P}s"
	n r sysctl -qw net.ipv4.ip_forward=1
	n c ip addr add 198.18.1.1/24 dev "${P}c"
	n r ip addr add 198.18.1.254/24 dev "${P}rc"
	n r ip addr add 198.18.2.254/24 dev "${P}rs"
	n s ip addr add 198.18.2.1/24 dev "${P}s"
	n c ip route add default via 198.18.1.254
	n s ip route add default via 198.18.2.254
	SERVER_UNDERLAY=198.18.2.1
}

# daemon_pid NS IFNAME: the pid of the tunnel daemon serving IFNAME in namespace $P-NS.
daemon_pid() {
	local pid comm
	for pid in $(ip netns pids "$P-$1"); do
		comm=$(cat "/proc/$pid/comm" 2>/dev/null) || continue
		case $comm in cakewg | wireguard-go*) ;; *) continue ;; esac # comm: 15 bytes
		tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | grep -qx "$2" && { echo "$pid"; return; }
	done
	die "no tunnel daemon for $2 in $P-$1"
}

# tunnel IMPL: both ends of IMPL's tunnel, client initiates; records the daemons' pids.
tunnel() {
	local impl=$1 net ifc ifs
	net=$(impl_net "$impl")
	ifc=$(tun_if "$impl" c)
	ifs=$(tun_if "$impl" s)
	[ -f "$TMP/c.key" ] || { keypair c; keypair s; }
	"start_$impl" c "$ifc"
	"start_$impl" s "$ifs"
	DAEMON_PID_C[$impl]=$(daemon_pid c "$ifc")
	DAEMON_PID_S[$impl]=$(daemon_pid s "$ifs")
	n c wg set "$ifc" private-key "$TMP/c.key" listen-port "510${net}1" \
		peer "$(cat "$TMP/s.pub")" allowed-ips "198.19.$net.2/32" \
		endpoint "$SERVER_UNDERLAY:510${net}2"
	n s wg set "$ifs" private-key "$TMP/s.key" listen-port "510${net}2" \
		peer "$(cat "$TMP/c.pub")" allowed-ips "198.19.$net.1/32"
	n c ip addr add "198.19.$net.1/24" dev "$ifc"
	n s ip addr add "198.19.$net.2/24" dev "$ifs"
	# wg-quick's MTU on a 1500-byte underlay (wireguard-go also starts at 1420; cakewg's
	# TUN device starts at the kernel's 1500, which would fragment the underlay).
	n c ip link set "$ifc" mtu "$TUNNEL_MTU" up
	n s ip link set "$ifs" mtu "$TUNNEL_MTU" up
	ping_ok c "198.19.$net.2" 3 || die "no ping through the $impl tunnel"
}

# daemon_cpu_ticks IMPL: utime+stime (clock ticks) of both daemons of IMPL, summed.
daemon_cpu_ticks() {
	local impl=$1 pid total=0 f
	for pid in "${DAEMON_PID_C[$impl]}" "${DAEMON_PID_S[$impl]}"; do
		# /proc/PID/stat: the command is in parentheses; fields 14 and 15 follow it.
		f=$(sed 's/^.*) //' "/proc/$pid/stat") || die "$impl daemon $pid is gone"
		read -r -a st <<<"$f"
		total=$((total + st[11] + st[12]))
	done
	echo "$total"
}

# daemon_sched IMPL: "RUN_NS WAIT_NS" over every thread of both daemons of IMPL, from
# /proc/PID/task/TID/schedstat: time on a CPU, and time runnable but waiting for one.
daemon_sched() {
	local impl=$1 run=0 wait=0 f r w _
	for f in /proc/"${DAEMON_PID_C[$impl]}"/task/*/schedstat \
		/proc/"${DAEMON_PID_S[$impl]}"/task/*/schedstat; do
		read -r r w _ <"$f" 2>/dev/null || continue
		run=$((run + r))
		wait=$((wait + w))
	done
	echo "$run $wait"
}

# uapi IFNAME: sends stdin (a UAPI request) to the daemon's socket, prints the reply
# without its errno line; fails unless the reply is errno=0.
uapi() {
	"$PY" "$BENCH_PY" uapi "/var/run/wireguard/$1.sock"
}

# cake_set IFNAME KEY OPTIONS: KEY cake or cake_ingress (cakewg's UAPI extension).
cake_set() {
	printf 'set=1\n%s=%s\n\n' "$2" "$3" | uapi "$1" >/dev/null ||
		die "$1: the daemon refused $2=$3"
}

# cake_get IFNAME: the daemon's `cakewg_get=1` reply (key=value lines).
cake_get() {
	printf 'cakewg_get=1\n\n' | uapi "$1"
}

# bottleneck_clear: no qdisc of ours anywhere.
bottleneck_clear() {
	local spec
	for spec in c:"${P}c" s:"${P}s" r:"${P}rc" r:"${P}rs"; do
		n "${spec%%:*}" tc qdisc del dev "${spec#*:}" root 2>/dev/null || true
	done
}

# tbf_burst_bytes RATE_MBIT: a burst of 2 ms at the rate, at least 32 KiB.
tbf_burst_bytes() {
	local b=$(($1 * 1000000 / 8 / 500))
	[ $b -lt 32768 ] && b=32768
	echo $b
}

# bottleneck remote|local RATE_MBIT LIMIT: a bloated tbf (FIFO of LIMIT, e.g. 4mb) in each
# direction. remote: on the router's egress towards the server (uploads) and towards
# the client (downloads). local: on the sender's own veth, the client's for uploads and
# the server's for downloads, where the kernel pushes back on local sockets.
bottleneck() {
	local where=$1 rate=$2 limit=$3 burst
	burst=$(tbf_burst_bytes "$rate")
	bottleneck_clear
	local -a devs
	if [ "$where" = remote ]; then
		devs=(r:"${P}rs" r:"${P}rc")
	else
		devs=(c:"${P}c" s:"${P}s")
	fi
	local spec
	for spec in "${devs[@]}"; do
		n "${spec%%:*}" tc qdisc add dev "${spec#*:}" root tbf rate "${rate}mbit" \
			burst "$burst" limit "$limit"
	done
}

# machine_facts: the lines every result file starts with.
machine_facts() {
	echo "date:      $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "kernel:    $(uname -srm)"
	echo "cpu:       $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) online"
	echo "loadavg:   $(cut -d' ' -f1-3 /proc/loadavg) (at start)"
	# The source the binary was built from: its build tree's CMakeCache names it; a git
	# tree is described, an exported one (git archive) may carry its commit in .commit.
	local cache src="" build_type='?' desc='?'
	cache=$(dirname "$(dirname "$CAKEWG")")/CMakeCache.txt
	if [ -f "$cache" ]; then
		build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$cache")
		src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$cache")
	fi
	if [ -n "$src" ]; then
		desc=$(git -C "$src" describe --always --dirty 2>/dev/null ||
			cat "$src/.commit" 2>/dev/null || echo '?')
	fi
	echo "cakewg:    $CAKEWG"
	echo "           built from ${src:-?} at $desc, ${build_type:-default} build"
	echo "wg-go:     ${WGGO_BIN:-$(command -v wireguard-go)}: $("${WGGO_BIN:-wireguard-go}" --version 2>/dev/null | head -n1)"
	echo "iperf3:    $(iperf3 --version 2>/dev/null | head -n1)"
}

# tun_offloads IMPL: the offload flags of IMPL's client TUN device, as the kernel sees them.
tun_offloads() {
	n c "$PY" "$BENCH_PY" offloads "$(tun_if "$1" c)" | sed 's/^[^:]*: //'
}

# queue_sampler OUT IMPL INTERVAL_S: until killed, appends to OUT every INTERVAL_S the
# backlog of every qdisc in the namespaces (tc -j) and the UDP socket queues of IMPL's two
# daemons (/proc/PID/net/udp, read in the daemon's own namespace), so the report can say
# where a queue stood. Run it in the background and kill it by its pid. It runs at the
# lowest priority (nice 19): at the normal one its three tc runs every half second
# preempted the daemons and doubled cakewg's ping p99 above idle under rrul at a 200
# Mbit/s remote bottleneck (+2.0..2.9 ms without the sampler, +4.6..5.1 with it).
queue_sampler() {
	local out=$1 iv=$3 pc=${DAEMON_PID_C[$2]} ps=${DAEMON_PID_S[$2]} ns
	trap - EXIT INT TERM # never the namespace cleanup from this subshell
	renice -n 19 -p "$BASHPID" >/dev/null
	while :; do
		{
			echo "@ $EPOCHREALTIME"
			for ns in c r s; do
				[ -e "/var/run/netns/$P-$ns" ] || continue
				echo "Q $(tc -n "$P-$ns" -s -j qdisc show 2>/dev/null)"
			done
			echo "U c"
			cat "/proc/$pc/net/udp" 2>/dev/null
			echo "U s"
			cat "/proc/$ps/net/udp" 2>/dev/null
		} >>"$out"
		sleep "$iv"
	done
}

# iperf_servers PORT...: persistent iperf3 servers in the server namespace.
iperf_servers() {
	local port
	for port in "$@"; do
		# -J: a client asking --get-server-output receives the server's JSON
		n s iperf3 -s -D -J -p "$port" >/dev/null 2>&1
		wait_for 5 n s sh -c "ss -ltn | grep -q ':$port '" ||
			die "iperf3 server on port $port did not start"
	done
}

# bad MESSAGE: a usage error of the calling script, exit 2.
bad() { echo "$(basename "$0"): $*" >&2; exit 2; }

# add_list ARRAY ALLOWED VALUE: appends the comma-separated VALUE, checking each word.
add_list() {
	local -n arr=$1
	local allowed=$2 w
	IFS=, read -r -a words <<<"$3"
	for w in "${words[@]}"; do
		[[ " $allowed " == *" $w "* ]] || bad "\`$w' is not one of: $allowed"
		arr+=("$w")
	done
}

# The probe of every latency measurement: a ping every PING_INTERVAL seconds through
# the tunnel, client to server.
PING_INTERVAL=0.05

# ping_probe IMPL COUNT OUT [PING_OPTION...]: COUNT pings through IMPL's tunnel, the
# output into OUT.
ping_probe() {
	local impl=$1 count=$2 out=$3
	shift 3
	n c ping -n -i "$PING_INTERVAL" -c "$count" -W 3 "$@" "$(tun_addr "$impl" s)" >"$out" 2>&1 ||
		true
}

# start_load LOAD IMPL RATE TAG: the load's iperf3 clients in the background ($LOAD_PIDS),
# their JSON into $RAW/TAG-up.json ($UP_JSON) and $RAW/TAG-down.json ($DOWN_JSON), each
# for $DUR seconds after a warm-up of $WARM that iperf3 omits. Loads: idle; tcp_nup (4
# TCP uploads), tcp_ndown (4 TCP downloads), rrul (both), all cubic; udpflood (16 UDP
# senders at $UDP_OVER_PCT % of RATE Mbit/s together, $UDP_LEN-byte datagrams).
start_load() {
	local load=$1 impl=$2 rate=$3 tag=$4 dst
	dst=$(tun_addr "$impl" s)
	local -a common=(-c "$dst" -O "$WARM" -t "$DUR" -J)
	local lim=$((WARM + DUR + 20))
	LOAD_PIDS=()
	UP_JSON=
	DOWN_JSON=
	case $load in
	idle) ;;
	tcp_nup | tcp_ndown | rrul)
		if [ "$load" != tcp_ndown ]; then
			UP_JSON=$RAW/$tag-up.json
			n c timeout "$lim" iperf3 "${common[@]}" -p 5201 -P 4 -C cubic >"$UP_JSON" 2>&1 &
			LOAD_PIDS+=($!)
		fi
		if [ "$load" != tcp_nup ]; then
			DOWN_JSON=$RAW/$tag-down.json
			n c timeout "$lim" iperf3 "${common[@]}" -p 5202 -P 4 -C cubic -R \
				>"$DOWN_JSON" 2>&1 &
			LOAD_PIDS+=($!)
		fi
		;;
	udpflood)
		UP_JSON=$RAW/$tag-up.json
		local per=$((rate * 1000 * UDP_OVER_PCT / 100 / 16))
		n c timeout "$lim" iperf3 "${common[@]}" -p 5201 -u -P 16 -b "${per}K" \
			-l "$UDP_LEN" --get-server-output >"$UP_JSON" 2>&1 &
		LOAD_PIDS+=($!)
		;;
	esac
}
