#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Debian's wg-quick drives cakewg unchanged, as it drives wireguard-go:
#
#   ns $P-a: WG_QUICK_USERSPACE_IMPLEMENTATION=cakewg wg-quick up $P"wa".conf
#   ns $P-b: cakewg up $P"wb".conf
#
#   $P"wa" 198.19.0.1/24 fd00:19::1/64       $P"wb" 198.19.0.2/24 fd00:19::2/64
#   $P"a"  198.18.0.1/24 <----- veth -----> $P"b"  198.18.0.2/24
#
# wg-quick finds no kernel module, falls back to `cakewg IFNAME`, then configures it
# through `wg` (UAPI) and ip(8). With nft installed A routes 0.0.0.0/0 and ::/0 (wg-quick's
# fwmark policy routing and nftables rules); without, only the peer's addresses. Pings
# go both ways in both families, `wg-quick down` leaves the namespace as it found it, and
# `cakewg strip` prints what `wg-quick strip` prints.
source "$(dirname "$0")/lib.sh"
require_root wg wg-quick ping diff
[ -e /sys/module/wireguard ] && skip "the wireguard module is loaded: wg-quick would not fall back to cakewg"

A=${P}wa
B=${P}wb
BIN_DIR=$(cd "$(dirname "$CAKEWG")" && pwd)
[ "$(basename "$CAKEWG")" = cakewg ] || skip "the binary is not named cakewg"

quick() { # quick NS up|down|strip CONF: Debian's wg-quick with cakewg as its userspace
	n "$1" env WG_QUICK_USERSPACE_IMPLEMENTATION=cakewg PATH="$BIN_DIR:$PATH" wg-quick "$2" "$3"
}

state() { ns_state "$1"; } # lib.sh: what must be the same before up and after down

pair_underlay
keypair a
keypair b
wait_dad

allowed="198.19.0.2/32, fd00:19::2/128"
if command -v nft >/dev/null; then
	allowed="0.0.0.0/0, ::/0"
else
	skip_part "no nft: wg-quick's default-route setup (AllowedIPs 0.0.0.0/0) is not tested"
fi
conf_a "PostUp = echo up %i >$TMP/hook" "$allowed"
conf_b ""

if "$CAKEWG" --help | grep "^  strip " >/dev/null; then
	log "== cakewg strip prints what wg-quick strip prints"
	diff -u <(quick a strip "$TMP/$A.conf" 2>/dev/null) <(n a "$CAKEWG" strip "$TMP/$A.conf") ||
		die "strip differs"
else
	skip_part "cakewg strip is not in this build's command table: not compared"
fi

log "== wg-quick up with cakewg as the userspace implementation (AllowedIPs = $allowed)"
state a >"$TMP/a.before"
state b >"$TMP/b.before"
n b "$CAKEWG" up "$TMP/$B.conf" 2>"$TMP/cakewg-up.log" || { cat "$TMP/cakewg-up.log"; die "cakewg up"; }
quick a up "$TMP/$A.conf" 2>"$TMP/wg-quick-up.log" || die "wg-quick up"
grep -q "^\[#\] cakewg $A$" "$TMP/wg-quick-up.log" || die "wg-quick did not start cakewg"
[ "$(cat "$TMP/hook")" = "up $A" ] || die "PostUp did not run"
# Without an interface up on B yet when A's link came up, A's first handshake may have
# gone nowhere: the next one follows REKEY_TIMEOUT (5 s) later.
wait_for 12 n a ping -c 1 -W 1 198.19.0.2 || die "no handshake"
ping_ok a 198.19.0.2 || die "IPv4 ping a -> b"
ping_ok a fd00:19::2 || die "IPv6 ping a -> b"
ping_ok b 198.19.0.1 || die "IPv4 ping b -> a"
ping_ok b fd00:19::1 || die "IPv6 ping b -> a"
n a wg show "$A" >"$TMP/wg-show"
grep -q "latest handshake" "$TMP/wg-show" || die "wg show has no handshake"
[ "$(n a cat /sys/class/net/"$A"/mtu)" = 1420 ] || die "wg-quick's automatic MTU was not set"

log "== wg-quick down; cakewg down"
quick a down "$TMP/$A.conf" 2>"$TMP/wg-quick-down.log" || die "wg-quick down"
n b "$CAKEWG" down "$TMP/$B.conf" 2>"$TMP/cakewg-down.log" || die "cakewg down"
wait_for 5 sh -c "[ -z \"\$(ip netns pids $P-a)\" ]" || die "the daemon did not exit after wg-quick down"
for ns in a b; do
	state $ns >"$TMP/$ns.after"
	diff -u "$TMP/$ns.before" "$TMP/$ns.after" || die "namespace $ns changed"
done
echo "PASS"
