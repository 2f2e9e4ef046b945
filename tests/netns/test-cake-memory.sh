#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# ctest: runs alone, as its floods fill CAKE at a rate the shaper sets, and it reads RSS.
# Truthful memory (issue 15, part 3): CAKE's memlimit is charged the buffers that hold
# its packets (their truesize), so the daemon's resident memory under a flood stays
# within memlimit plus a fixed overhead, however small the packets or however empty the
# super-packets' buffers. CAKE shapes A's egress to 10 Mbit/s with a 4 MB memlimit and an
# AQM that stays quiet (rtt 100s), so the floods fill it to the limit:
#  - 64-byte packets: a UDP flood (iperf3 -l 36) at 10x the shaper; each packet sits in
#    a ~1.8 KB buffer (charged 420 bytes before);
#  - no-split-gso super-packets: eight cubic TCP uploads whose TSO packets, small at
#    this rate, each sit in a 64 KiB buffer.
# For each, in a fresh daemon warmed up by a TCP transfer: CAKE filled to its limit and
# never past it, the daemon's peak RSS (VmHWM) grew by at most memlimit + MEM_OVERHEAD
# over its RSS before the flood, and stayed under memlimit + RSS_OVERHEAD in all.
# RSS_OVERHEAD is what the daemon holds besides CAKE's packets: the pools' free lists (up
# to 4096 MTU-sized and 8 large buffers, about 7.5 MiB at MTU 1420), the receive buffers
# for UDP GRO (64 x 64 KiB, touched as datagrams arrive), the CAKE instance itself, code
# and libraries (doc/architecture.md, "Memory"). Charged as before (wire length plus a
# fixed 300 bytes or so), the 64-byte flood grew the daemon by 52-57 MiB.
#
#   ns $P-a                                   ns $P-b
#   $P"wa" cakewg 198.19.0.1 ================ $P"wb" cakewg 198.19.0.2
#     CAKE bandwidth 10mbit memlimit 4mb          iperf3 -s
#   $P"a" veth 198.18.0.1 <-------------------> $P"b" veth 198.18.0.2
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-cake.sh"
[ "${CI:-}" = true ] && skip() { die "$*"; } # in CI a missing tool is a failure
require_root wg iperf3 python3
need_cubic

MEMLIMIT=$((4 << 20))
MEM_OVERHEAD=$((4 << 20)) # measured: at most 3 MiB above the RSS before the flood
# The whole daemon, as doc/architecture.md states it: memlimit + 16 MiB (measured: 7-11
# MiB in all at this memlimit)
RSS_OVERHEAD=$((16 << 20))
FLOOD_SECS=6

# rss_kb KEY: VmRSS or VmHWM of the daemon, in KiB.
rss_kb() {
	sed -n "s/^$1:[[:space:]]*\([0-9]*\) kB/\1/p" "/proc/$PID/status"
}

# flood NAME CAKE_OPTIONS IPERF_ARGS...: one flood; checks CAKE's and the daemon's memory.
# CAKE_OPTIONS (the memlimit among them) apply from the warm-up on, so that CAKE's peak
# memory (tc's "memory used") is under the same limit throughout; the shaper's 10 Mbit/s
# only from the flood on.
flood() {
	local name=$1 opts=$2 client base used limit drops0 drops hwm grown end sample
	shift 2
	# A fresh daemon for each flood: CAKE's peak and the process's are this flood's.
	cake_pair cakewg 4
	PID=$(cakewg_pid a "${P}wa") || die "no cakewg process"
	n a "$CAKEWG" set "${P}wa" cake $opts || die "$name: cakewg set cake $opts failed"
	log "$name: TCP warm-up (the pools and receive buffers as a transfer leaves them):" \
		"$(iperf_through a b 198.19.0.2 2)"
	n a "$CAKEWG" set "${P}wa" cake bandwidth 10mbit || die "$name: cakewg set cake failed"
	sleep 0.5
	base=$(rss_kb VmRSS)
	echo 5 >"/proc/$PID/clear_refs" # resets VmHWM to the current RSS
	drops0=$(jget "$(cake_json "${P}wa")" "j['drops']")
	iperf_server b 5201
	n a timeout $((FLOOD_SECS + 20)) iperf3 -c 198.19.0.2 -t "$FLOOD_SECS" "$@" \
		>"$TMP/flood-$name.txt" 2>&1 &
	client=$!
	end=$((SECONDS + FLOOD_SECS))
	used=0
	while [ $SECONDS -lt $end ]; do
		sample=$(jget "$(cake_json "${P}wa")" "'%d %d' % (j['memory_used'], j['memory_limit'])")
		read -r sample limit <<<"$sample"
		[ "$sample" -gt "$used" ] && used=$sample
		sleep 0.3
	done
	wait $client || { cat "$TMP/flood-$name.txt"; die "$name: the flood failed"; }
	drops=$(($(jget "$(cake_json "${P}wa")" "j['drops']") - drops0))
	hwm=$(rss_kb VmHWM)
	grown=$(((hwm - base) * 1024))
	log "$name: CAKE memory used up to $used of $limit bytes, $drops drops;" \
		"RSS $((base / 1024)) MiB before, peak $((hwm / 1024)) MiB:" \
		"$((grown >> 20)) MiB more (bound: memlimit $((MEMLIMIT >> 20)) MiB +" \
		"$((MEM_OVERHEAD >> 20)) MiB)"
	[ "$limit" = "$MEMLIMIT" ] || die "$name: CAKE's limit is $limit, not $MEMLIMIT"
	[ "$used" -le "$limit" ] || die "$name: CAKE used $used bytes of $limit"
	[ $((used * 4)) -ge $((limit * 3)) ] && [ "$drops" -gt 0 ] ||
		die "$name: the flood did not fill CAKE ($used bytes, $drops drops)"
	[ "$grown" -le $((MEMLIMIT + MEM_OVERHEAD)) ] ||
		die "$name: the daemon grew by $grown bytes for a $MEMLIMIT-byte memlimit"
	[ $((hwm * 1024)) -le $((MEMLIMIT + RSS_OVERHEAD)) ] ||
		die "$name: the daemon's peak RSS is $hwm KiB for a $MEMLIMIT-byte memlimit"
	wait_for 10 n a ping -c 1 -W 1 198.19.0.2 || die "$name: no ping after the flood"
	teardown_pair
}

flood "64-byte packets" "memlimit 4mb rtt 100s split-gso" \
	-u -b 100M -l 36 -P 2
flood "no-split-gso super-packets" "memlimit 4mb rtt 100s no-split-gso" \
	-C cubic -P 8
finish
