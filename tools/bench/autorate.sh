#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Autorate (issue #13): a link whose capacity follows a trace, and six tunnels' answers
# to it side by side: wireguard-go, cakewg `unlimited`, cakewg fixed at the trace's mean,
# cakewg `autorate`, an oracle (cakewg told 95 % of the true rate at every step), and the
# same oracle told one base RTT late (the earliest any delay or ACK signal can say it).
#
#   ns $P-c (client) ${P}c 198.18.1.1 <-> ${P}rc 198.18.1.254  ns $P-r (router)
#                                         ${P}rs 198.18.2.254 <-> ${P}s 198.18.2.1 ns $P-s (server)
#   tunnels, side by side: cakewg 198.19.1.1 -> .2, wireguard-go 198.19.2.1 -> .2
#
# The router's egress in each direction is a tbf whose rate follows the trace (uplink on
# ${P}rs, downlink on ${P}rc), with a bloated FIFO of 250 ms at the direction's peak rate
# (a rate drop turns it into seconds of queue, as in a base station) and one burst of
# 16000 bytes for the whole trace (DESIGN.md §7: a shrinking burst freezes the link).
# A trace's base-RTT column is applied with netem (half each way) when the kernel has it;
# otherwise the run says so and only the capacity follows the trace.
# Traces (tools/bench/traces/NAME.trace): lte, starlink, wifi, steady.
# Loads, from the client, cubic (iperf3 -C cubic): tcp_nup (4 uploads), tcp_ndown (4
# downloads), rrul (4 up + 4 down); and idle, once per trace and variant, for the idle
# median. The load and the trace start together and last the trace's length; a ping
# every 50 ms through the tunnel meanwhile (`ping -D`: each sample is placed at its own
# send time and counted only if sent within the trace, as ping's interval drifts).
# Variants (cakewg's client; its server end stays unlimited):
#   wggo       Debian's wireguard-go, no shaper
#   unlimited  Cake = unlimited, no ingress instance
#   fixed      Cake = bandwidth MEAN_UP, CakeIngress = bandwidth MEAN_DOWN ingress
#   autorate   Cake = bandwidth MEAN_UP autorate MIN MAX,
#              CakeIngress = bandwidth MEAN_DOWN autorate MIN MAX ingress
#   oracle     as fixed, but `cakewg set IF cake bandwidth .. cake-ingress bandwidth ..` at
#              every step of the trace to 95 % of its rates
#   late       the oracle, each `cakewg set` one base RTT after its step: the step's
#              base_rtt_ms where netem emulates it, plus this variant's idle ping median
#              (the namespaces' own RTT); --oracle-delay MS gives a fixed delay instead
# The shaper's rate (`cakewg show --json`) is sampled every 200 ms.
# Per run: ping p50/p99 minus the idle median, ping loss, goodput as a share of the
# trace's mean capacity, and the targets of issue #13, met or missed. A variant the
# daemon refuses is reported as failed with the daemon's answer. Then, per autorate
# run, how its shaper followed the link: the share of the capacity its rate covered
# and overshot, and how long each rise of the capacity took it.
#
# Usage: tools/bench/autorate.sh [--quick] [--traces NAME|FILE,...] [--loads LOAD,...]
#            [--impl VARIANT,...] [--rounds N] [--seconds S] [--ar-range MIN MAX]
#            [--svg DIR] [--keep DIR] [--oracle-delay MS]
#        tools/bench/autorate.sh --report DIR[,DIR...] [--svg DIR]
#   --traces: names under tools/bench/traces/ or paths (default: lte,starlink,wifi,steady).
#   --loads: tcp_nup, tcp_ndown, rrul (default: all three).
#   --impl: wggo, unlimited, fixed, autorate, oracle, late (default: all six).
#   --rounds N: each trace and load N times (default 1), the variants in turn in each
#     round; the report pools a row's rounds (the p99 of all their probes, the mean
#     goodput) and lists each round's own (a p99 over one 30 s run is its 6th-worst
#     probe: one run cannot settle a target of +15 ms). N times as long.
#   --seconds S: play only the first S seconds of each trace.
#   --quick: --traces lte --loads tcp_nup --seconds 10, unless given.
#   --ar-range MIN MAX: autorate's range in tc rate units (default 2mbit 200mbit).
#   --svg DIR: DIR/autorate-TRACE-LOAD.svg, the shaper's rate against the capacity and
#     the RTT over time.
#   --keep DIR: keep the raw records (runs.jsonl), ping logs, iperf3 JSON, the trace
#     player's and the sampler's logs there.
#   --report DIR: the report (and --svg) again from a --keep DIR; runs nothing. Several
#     DIRs, comma-separated, are pooled as rounds of one run (as --rounds pools them):
#     an A/B is each build's runs, made in turn with the other's, reported apart; the
#     plots are the first DIR's.
#   --oracle-delay MS: the late oracle's delay, in ms (default: one base RTT, see above).
# CAKEWG_BIN selects the cakewg binary (default: build/tools/cakewg). Runs as root.
# Bounded: each run lasts its trace (lte 30 s, starlink 45, wifi 30, steady 20) plus
# about 3 s; each trace has 6 idle runs of 4 s. The default matrix (4 traces x 3 loads x
# 6 variants, 72 runs and 24 idle ones) takes about 44 minutes; --quick about 2; --rounds N
# plays the loads N times (the idle runs once).
# shellcheck source=tools/bench/lib.sh
source "$(dirname "$0")/lib.sh"
COMMAND_LINE="$0 $*"
AR_PY=$BENCH_DIR/arbench.py
TRACE_DIR=$BENCH_DIR/traces

TRACES=()
LOADS=()
IMPLS=()
SECS=
QUICK=0
SVG=
KEEP=
ROUNDS=1
REPORT=
AR_MIN=2mbit
AR_MAX=200mbit
IDLE_S=4
FIFO_MS=250
TRACE_BURST=16000
ORACLE_PCT=95
SAMPLE_INTERVAL=0.2
ALL_VARIANTS="wggo unlimited fixed autorate oracle late"
LATE_MS= # --oracle-delay; empty: one base RTT

while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=1 ;;
	--traces)
		IFS=, read -r -a _t <<<"$2"
		TRACES+=("${_t[@]}")
		shift
		;;
	--loads) add_list LOADS "tcp_nup tcp_ndown rrul" "$2"; shift ;;
	--impl) add_list IMPLS "$ALL_VARIANTS" "$2"; shift ;;
	--seconds) SECS=$2; shift ;;
	--rounds) ROUNDS=$2; shift ;;
	--ar-range) AR_MIN=$2; AR_MAX=$3; shift 2 ;;
	--svg) SVG=$2; shift ;;
	--keep) KEEP=$2; shift ;;
	--report) REPORT=$2; shift ;;
	--oracle-delay) LATE_MS=$2; shift ;;
	-h | --help) usage 0 ;;
	*) echo "autorate.sh: unknown option \`$1'" >&2; usage 2 >&2 ;;
	esac
	shift
done

# report_and_plot RECORDS...: the report (several files pooled as rounds), then the
# plots of the first if --svg.
report_and_plot() {
	"$PY" "$AR_PY" report "$@"
	[ -z "$SVG" ] || "$PY" "$AR_PY" svg "$1" "$SVG"
}

if [ -n "$REPORT" ]; then
	IFS=, read -r -a _dirs <<<"$REPORT"
	_files=()
	for d in "${_dirs[@]}"; do
		[ -f "$d/runs.jsonl" ] || bad "no $d/runs.jsonl (made by --keep)"
		_files+=("$d/runs.jsonl")
	done
	report_and_plot "${_files[@]}"
	exit
fi
if [ $QUICK = 1 ]; then
	[ ${#TRACES[@]} -gt 0 ] || TRACES=(lte)
	[ ${#LOADS[@]} -gt 0 ] || LOADS=(tcp_nup)
	[ -n "$SECS" ] || SECS=10
fi
[ ${#TRACES[@]} -gt 0 ] || TRACES=(lte starlink wifi steady)
[ ${#LOADS[@]} -gt 0 ] || LOADS=(tcp_nup tcp_ndown rrul)
[ ${#IMPLS[@]} -gt 0 ] || read -r -a IMPLS <<<"$ALL_VARIANTS"
[ -z "$SECS" ] || { [[ $SECS =~ ^[0-9]+$ ]] && [ "$SECS" -ge 3 ]; } || bad "--seconds is 3 or more"
{ [[ $ROUNDS =~ ^[0-9]+$ ]] && [ "$ROUNDS" -ge 1 ]; } || bad "--rounds is 1 or more"
[ -z "$LATE_MS" ] || [[ $LATE_MS =~ ^[0-9]+(\.[0-9]+)?$ ]] || bad "--oracle-delay is in ms"
declare -A TRACE_FILE
for t in "${TRACES[@]}"; do
	f=$t
	[[ $t == */* ]] || f=$TRACE_DIR/$t.trace
	[ -f "$f" ] || bad "no trace \`$t' (looked for $f)"
	"$PY" "$AR_PY" trace-info "$f" "$SECS" >/dev/null || bad "bad trace $f"
	TRACE_FILE[$t]=$f
done

require_root wg wireguard-go iperf3 python3 tc ping
[ -x "$CAKEWG" ] || skip "no cakewg binary at $CAKEWG (set CAKEWG_BIN)"
RES=$TMP/runs.jsonl
RAW=$TMP/raw
mkdir -p "$RAW"
WARM=0
UDP_LEN=1360 # unused here: start_load's udpflood
UDP_OVER_PCT=150

has() { local x=$1; shift; [[ " $* " == *" $x "* ]]; }
impl_of() { [ "$1" = wggo ] && echo wggo || echo cakewg; }

# ---------------------------------------------------------------- the link
NETEM=0
# netem_probe: can this kernel delay packets (sch_netem)? Sets NETEM.
netem_probe() {
	if n r tc qdisc add dev "${P}rs" root handle 1: netem delay 1ms 2>/dev/null; then
		NETEM=1
		n r tc qdisc del dev "${P}rs" root
	fi
}

# link_dev SIDE: the router's egress device of a direction (up or down).
link_dev() { [ "$1" = up ] && echo "${P}rs" || echo "${P}rc"; }

# link_setup PEAK_UP PEAK_DOWN: a tbf in each direction, FIFO of FIFO_MS at the peak
# rate (kbit/s), under a netem (handle 1:) when the kernel has one.
link_setup() {
	local side peak limit dev
	bottleneck_clear
	for side in up down; do
		peak=$1
		[ "$side" = down ] && peak=$2
		limit=$((peak * FIFO_MS / 8)) # kbit/s x ms = bits
		LINK_LIMIT[$side]=$limit
		dev=$(link_dev "$side")
		if [ $NETEM = 1 ]; then
			n r tc qdisc add dev "$dev" root handle 1: netem delay 0ms limit 1000000
			n r tc qdisc add dev "$dev" parent 1: handle 2: tbf rate "${peak}kbit" \
				burst "$TRACE_BURST" limit "$limit"
		else
			n r tc qdisc add dev "$dev" root handle 2: tbf rate "${peak}kbit" \
				burst "$TRACE_BURST" limit "$limit"
		fi
	done
}
declare -A LINK_LIMIT

# link_set UP_KBIT DOWN_KBIT RTT_MS: the link's rates now (and its base RTT, with netem).
link_set() {
	local side rate dev where
	for side in up down; do
		rate=$1
		[ "$side" = down ] && rate=$2
		dev=$(link_dev "$side")
		where=(root handle 2:)
		[ $NETEM = 1 ] && where=(parent 1: handle 2:)
		n r tc qdisc change dev "$dev" "${where[@]}" tbf rate "${rate}kbit" \
			burst "$TRACE_BURST" limit "${LINK_LIMIT[$side]}"
		if [ $NETEM = 1 ]; then
			n r tc qdisc change dev "$dev" root handle 1: netem \
				delay "$(awk "BEGIN { printf \"%.1f\", $3 / 2 }")ms" limit 1000000
		fi
	done
}

# pct KBIT PCT: PCT % of KBIT, in kbit.
pct() { echo $(($1 * $2 / 100)); }

# us_now: the wall clock in microseconds.
us_now() { echo "${EPOCHREALTIME/./}"; }

# late_us RTT_MS: the late oracle's delay after a step of base RTT RTT_MS, in us: LATE_MS,
# or that RTT where netem emulates it plus IDLE_MS (the namespaces' own RTT).
late_us() {
	if [ -n "$LATE_MS" ]; then
		awk "BEGIN { printf \"%d\", $LATE_MS * 1000 }"
	else
		awk "BEGIN { printf \"%d\", ($NETEM * $1 + $IDLE_MS) * 1000 }"
	fi
}
IDLE_MS=0

# play_trace STEPS LOG ORACLE_IF LATE: until the steps end, sets the link to each step
# in turn (at its time from the start, not after the last one's work) and logs
# "epoch up_kbit down_kbit rtt_ms"; with ORACLE_IF, also tells that cakewg ORACLE_PCT %
# of the rates, LATE (1) one base RTT (late_us) after the step. Run in the background.
play_trace() {
	local steps=$1 log=$2 oracle=$3 late=$4 secs up down rtt t0 due left wait
	trap - EXIT INT TERM # never the namespace cleanup from this subshell
	t0=$(us_now)
	due=$t0
	while read -r secs up down rtt; do
		link_set "$up" "$down" "$rtt"
		if [ "$late" = 1 ]; then
			wait=$(($(late_us "$rtt") - ($(us_now) - due)))
			[ $wait -le 0 ] || sleep "$(printf '%d.%06d' $((wait / 1000000)) $((wait % 1000000)))"
		fi
		if [ -n "$oracle" ]; then
			"$CAKEWG" set "$oracle" cake bandwidth "$(pct "$up" $ORACLE_PCT)kbit" \
				cake-ingress bandwidth "$(pct "$down" $ORACLE_PCT)kbit" ||
				echo "oracle: cakewg set failed at $up/$down kbit" >&2
		fi
		echo "$EPOCHREALTIME $up $down $rtt" >>"$log"
		due=$((due + $(awk "BEGIN { printf \"%d\", $secs * 1000000 }")))
		left=$((due - $(us_now)))
		[ $left -le 0 ] || sleep "$(printf '%d.%06d' $((left / 1000000)) $((left % 1000000)))"
	done <"$steps"
}

# ---------------------------------------------------------------- the variants
CAKE_ERR=
# try_cake_set IFNAME KEY OPTIONS: as lib.sh's cake_set, but a refusal is returned
# (CAKE_ERR: the daemon's errno and the lines it logged meanwhile), not fatal.
try_cake_set() {
	local log=$TMP/cakewg-$1.log lines err
	lines=$(wc -l <"$log")
	if err=$(printf 'set=1\n%s=%s\n\n' "$2" "$3" | uapi "$1" 2>&1 >/dev/null); then
		return 0
	fi
	sleep 0.1
	# "ERROR: IFNAME: DATE TIME message"
	CAKE_ERR="the daemon refused $2=$3 ($err)$(tail -n +$((lines + 1)) "$log" |
		sed -n 's/^ERROR: [^ ]* [^ ]* [^ ]* /: /p' | tr '\n' ' ' | sed 's/ *$//')"
	return 1
}

AUTORATE_ON=0
# set_variant VARIANT MEAN_UP MEAN_DOWN UP0 DOWN0: cakewg's client CAKE for the variant
# (kbit/s: the trace's means, its first step); fails with CAKE_ERR.
set_variant() {
	local v=$1 c e i
	c=$(tun_if cakewg c)
	[ "$v" != wggo ] || return 0
	CAKE_ERR=
	if [ $AUTORATE_ON = 1 ] && [ "$v" != autorate ]; then
		# best effort: an instance the autorate words were refused for has none to end
		try_cake_set "$c" cake "autorate off" || true
		try_cake_set "$c" cake_ingress "autorate off" || true
		CAKE_ERR=
		AUTORATE_ON=0
	fi
	case $v in
	unlimited)
		try_cake_set "$c" cake unlimited || return 1
		try_cake_set "$c" cake_ingress none 2>/dev/null || try_cake_set "$c" cake_ingress unlimited
		return
		;;
	fixed) e="bandwidth ${2}kbit" i="bandwidth ${3}kbit ingress" ;;
	oracle | late)
		e="bandwidth $(pct "$4" $ORACLE_PCT)kbit"
		i="bandwidth $(pct "$5" $ORACLE_PCT)kbit ingress"
		;;
	autorate)
		e="bandwidth ${2}kbit autorate $AR_MIN $AR_MAX"
		i="bandwidth ${3}kbit autorate $AR_MIN $AR_MAX ingress"
		;;
	esac
	[ "$v" != autorate ] || AUTORATE_ON=1 # even if only one instance takes it
	try_cake_set "$c" cake "$e" && try_cake_set "$c" cake_ingress "$i"
}

# ---------------------------------------------------------------- one run
# run_one TRACE LOAD VARIANT [ROUND]: the trace played once under the load through the
# variant (round ROUND of --rounds, 1 by default).
run_one() {
	local trace=$1 load=$2 v=$3 round=${4:-1} impl tag=$1-$2-$3 t0 pid player sampler=
	[ "$round" = 1 ] || tag=$tag-r$round
	local -a info
	impl=$(impl_of "$v")
	read -r -a info <"$RAW/$trace.info"
	local secs=${info[0]} mean_up=${info[1]} mean_down=${info[2]}
	local -a first
	read -r -a first <"$RAW/$trace.steps"
	printf '[%s] %-9s %-9s %s%s\n' "$(date +%T)" "$trace" "$load" "${v}" \
		"$([ "$ROUNDS" = 1 ] || [ "$load" = idle ] || echo " (round $round)")"
	# Drain the FIFOs at the peak rate, then the trace's first step.
	link_set "${info[3]}" "${info[4]}" "${first[3]}"
	sleep 0.5
	link_set "${first[1]}" "${first[2]}" "${first[3]}"
	local err=
	set_variant "$v" "$mean_up" "$mean_down" "${first[1]}" "${first[2]}" || err=$CAKE_ERR
	local -a rec=("$RES" trace="$trace" load="$load" variant="$v" round="$round" seconds="$secs"
		mean_up="$mean_up" mean_down="$mean_down" interval="$PING_INTERVAL")
	if [ -n "$err" ]; then
		"$PY" "$AR_PY" record "${rec[@]}" t0=0 error="$err"
		return
	fi
	local oracle="" late=0
	[ "$v" = oracle ] || [ "$v" = late ] && oracle=$(tun_if cakewg c)
	[ "$v" = late ] && late=1
	[ "$v" != late ] || [ "$load" = idle ] || IDLE_MS=$("$PY" "$AR_PY" idle "$RES" "$trace" late)
	DUR=${secs%.*}
	[ "$load" = idle ] && DUR=$IDLE_S
	if [ "$impl" = cakewg ]; then
		nice -n 19 "$PY" "$AR_PY" sample "$CAKEWG" "$(tun_if cakewg c)" \
			"$RAW/$tag-rates.txt" "$SAMPLE_INTERVAL" &
		sampler=$!
	fi
	t0=$EPOCHREALTIME
	play_trace "$RAW/$trace.steps" "$RAW/$tag-link.txt" "$oracle" "$late" &
	player=$!
	start_load "$load" "$impl" 0 "$tag"
	ping_probe "$impl" $((DUR * 1000 / 50)) "$RAW/$tag-ping.txt" -D
	for pid in "${LOAD_PIDS[@]}"; do wait "$pid" || true; done
	if [ "$load" = idle ]; then kill "$player" 2>/dev/null || true; fi
	wait "$player" 2>/dev/null || true
	if [ -n "$sampler" ]; then
		kill "$sampler" 2>/dev/null || true
		wait "$sampler" 2>/dev/null || true
	fi
	"$PY" "$AR_PY" record "${rec[@]}" t0="$t0" ping="$RAW/$tag-ping.txt" window="$DUR" \
		up="$UP_JSON" down="$DOWN_JSON" link="$RAW/$tag-link.txt" rates="$RAW/$tag-rates.txt" \
		loadavg="$(cut -d' ' -f1 /proc/loadavg)"
}

echo "== cakewg autorate: a link that follows a trace (tools/bench/autorate.sh)"
machine_facts
echo "command:   $COMMAND_LINE"
echo "settings:  traces {${TRACES[*]}}${SECS:+ (first $SECS s)}, loads {${LOADS[*]}}," \
	"variants {${IMPLS[*]}}$([ "$ROUNDS" = 1 ] || echo ", $ROUNDS rounds")"
echo "           router tbf per direction: FIFO $FIFO_MS ms at the trace's peak rate, burst" \
	"$TRACE_BURST B throughout; ping every 50 ms; idle runs $IDLE_S s; tunnel MTU $TUNNEL_MTU"
echo "cakewg:    client: fixed = the trace's means, oracle = $ORACLE_PCT% of the rate at every" \
	"step, autorate = bandwidth MEAN autorate $AR_MIN $AR_MAX; server: unlimited"
late_what="one base RTT (the step's netem RTT if emulated + the late variant's idle median)"
[ -z "$LATE_MS" ] || late_what="$LATE_MS ms"
echo "           late = the oracle, each step's set $late_what after the step"

topology routed
tunnels=()
has wggo "${IMPLS[@]}" && tunnels+=(wggo)
[ "${IMPLS[*]}" = wggo ] || tunnels+=(cakewg)
for impl in "${tunnels[@]}"; do tunnel "$impl"; done
iperf_servers 5201 5202
netem_probe
if [ $NETEM = 1 ]; then
	echo "base RTT:  netem, half of the trace's base_rtt_ms on each router egress"
else
	echo "base RTT:  NOT EMULATED: this kernel has no netem (sch_netem); a trace's base_rtt_ms"
	echo "           column is ignored, so on starlink only the capacity steps every 15 s"
fi
for t in "${TRACES[@]}"; do
	"$PY" "$AR_PY" trace "${TRACE_FILE[$t]}" "$SECS" >"$RAW/$t.steps"
	"$PY" "$AR_PY" trace-info "${TRACE_FILE[$t]}" "$SECS" >"$RAW/$t.info"
	read -r -a info <"$RAW/$t.info"
	echo "trace:     $t: ${info[0]} s, mean $((info[1] / 1000)).$((info[1] % 1000 / 100))/$((info[2] / 1000)).$((info[2] % 1000 / 100)) Mbit/s up/down," \
		"peak $((info[3] / 1000))/$((info[4] / 1000)), min $((info[5] / 1000)).$((info[5] % 1000 / 100))/$((info[6] / 1000)).$((info[6] % 1000 / 100))"
done
echo

for t in "${TRACES[@]}"; do
	read -r -a info <"$RAW/$t.info"
	link_setup "${info[3]}" "${info[4]}"
	for v in "${IMPLS[@]}"; do run_one "$t" idle "$v"; done
	for load in "${LOADS[@]}"; do
		for ((k = 1; k <= ROUNDS; k++)); do
			for v in "${IMPLS[@]}"; do run_one "$t" "$load" "$v" "$k"; done
		done
	done
done

echo
report_and_plot "$RES"
echo "loadavg:   $(cut -d' ' -f1-3 /proc/loadavg) (at end)"
if [ -n "$KEEP" ]; then
	mkdir -p "$KEEP"
	cp -r "$RES" "$RAW" "$KEEP"/
	chmod -R a+rX "$KEEP"
fi
