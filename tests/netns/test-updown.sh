#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# `cakewg up` / `cakewg down` (wg-quick's semantics) in two namespaces:
#
#   ns $P-a                                  ns $P-b
#   $P"wa" 198.19.0.1/24 fd00:19::1/64       $P"wb" 198.19.0.2/24 fd00:19::2/64
#          (AllowedIPs 0.0.0.0/0, ::/0:             (AllowedIPs 198.19.0.1/32,
#           fwmark policy routing)                    fd00:19::1/128)
#   $P"a"  198.18.0.1/24 fd00:18::1/64 <----> $P"b"  198.18.0.2/24 fd00:18::2/64
#          veth, MTU 1400 in the first case: the tunnels get 1400 - 80 = 1320
#
# Every case checks that after `down` (or after a failed `up`) the namespace is exactly
# as before: `ip -d link`, `ip addr`, both families' routes of every table and rules.
# Cases: default route with Table auto (ping both families, rules, fwmark, sysctl, MTU
# auto, the daemon gone after down); Table = off; Table = 1234; hooks with %i; DNS
# through a stand-in resolvconf, and without one; SaveConfig; existing interfaces;
# `down` of something that is not ours; a table of broken files and failing steps (a
# KillSwitch without a default route, a KillSwitchAllowLAN without a KillSwitch among
# them). The nftables ruleset is compared too.
source "$(dirname "$0")/lib.sh"
require_root wg ping diff

A=${P}wa
B=${P}wb

state() { ns_state "$1"; } # lib.sh: what must be the same before up and after down

snap() { state a >"$TMP/a.before"; state b >"$TMP/b.before"; }

unchanged() { # unchanged WHAT: both namespaces as snap() saw them
	local ns
	for ns in a b; do
		state $ns >"$TMP/$ns.after"
		diff -u "$TMP/$ns.before" "$TMP/$ns.after" >&2 || die "$1: namespace $ns changed"
	done
	ls /var/run/wireguard/"$P"*.sock >/dev/null 2>&1 && die "$1: a UAPI socket is left"
	return 0
}

# has PATTERN NS CMD...: CMD's output in NS matches PATTERN. (No `cmd | grep -q` here:
# grep -q may exit first and, under pipefail, the writer's SIGPIPE fails the test.)
has() {
	local out
	out=$(n "${@:2}")
	grep -q -- "$1" <<<"$out"
}

up() { # up NS CONF
	n "$1" "$CAKEWG" up "$2" 2>"$TMP/up.err" || { cat "$TMP/up.err" >&2; die "up $2 failed"; }
}

down() { # down NS CONF
	n "$1" "$CAKEWG" down "$2" 2>"$TMP/down.err" ||
		{ cat "$TMP/down.err" >&2; die "down $2 failed"; }
}

# conf_a (lib.sh) writes $TMP/$A.conf; conf_b_split EXTRA_INTERFACE_LINES: $TMP/$B.conf as
# lib.sh's conf_b writes it, but with its addresses on two Address lines.
conf_b_split() {
	conf_side b $'Address = 198.19.0.2/24\nAddress = fd00:19::2/64' "$1" \
		"198.19.0.1/32, fd00:19::1/128"
}

pair_underlay
n a ip link set "${P}a" mtu 1400
n b ip link set "${P}b" mtu 1400
keypair a
keypair b
# The veths' link-local addresses must finish DAD before the first snapshot.
wait_dad

log "== default route (Table auto), MTU auto, ping, down restores everything"
snap
n a sysctl -qw net.ipv4.conf.all.src_valid_mark=0
conf_a "" "0.0.0.0/0, ::/0"
conf_b_split ""
up a "$TMP/$A.conf"
up b "$TMP/$B.conf"
# A's link came up (and sent IPv6 multicast into the tunnel: ::/0) before B existed:
# that first handshake was lost, and the next one follows REKEY_TIMEOUT (5 s) later.
wait_for 12 n a ping -c 1 -W 1 198.19.0.2 || die "no handshake"
ping_ok a 198.19.0.2 || die "IPv4 ping a -> b"
ping_ok a fd00:19::2 || die "IPv6 ping a -> b"
ping_ok b 198.19.0.1 || die "IPv4 ping b -> a"
ping_ok b fd00:19::1 || die "IPv6 ping b -> a"
[ "$(n a wg show "$A" fwmark)" = 0xca6c ] || die "fwmark is not 51820"
for v in -4 -6; do
	has "not from all fwmark 0xca6c lookup 51820" a ip $v rule || die "ip $v rule: no fwmark rule"
	has "from all lookup main suppress_prefixlength 0" a ip $v rule || die "ip $v rule: no suppress rule"
	has "^default dev $A" a ip $v route show table 51820 || die "ip $v: no default route in 51820"
done
[ "$(n a sysctl -n net.ipv4.conf.all.src_valid_mark)" = 1 ] || die "src_valid_mark not set"
[ "$(n a cat /sys/class/net/"$A"/mtu)" = 1320 ] || die "MTU of a: $(n a cat /sys/class/net/"$A"/mtu), not 1400 - 80"
[ "$(n b cat /sys/class/net/"$B"/mtu)" = 1320 ] || die "MTU of b: not 1400 - 80"
down a "$TMP/$A.conf"
down b "$TMP/$B.conf"
unchanged "default route"
[ -z "$(ip netns pids "$P-a")" ] || die "a daemon is still running in a"
n a ip link set "${P}a" mtu 1500
n b ip link set "${P}b" mtu 1500

log "== Table = off: no routes; Table = 1234: routes there, no rules"
snap
conf_a "Table = off" "198.19.7.0/24, 0.0.0.0/0"
conf_b_split ""
up a "$TMP/$A.conf"
[ "$(n a cat /sys/class/net/"$A"/mtu)" = 1420 ] || die "MTU with a 1500 underlay: not 1420"
routes=$(n a ip route show table all; n a ip -6 route show table all)
[ -z "$(grep "dev $A" <<<"$routes" | grep -v "proto kernel")" ] || die "Table = off added a route"
down a "$TMP/$A.conf"
unchanged "Table = off"
conf_a "Table = 1234" "198.19.7.0/24, 0.0.0.0/0, ::/0"
up a "$TMP/$A.conf"
has "^198.19.7.0/24 dev $A" a ip route show table 1234 || die "no route in table 1234"
has "^default dev $A" a ip route show table 1234 || die "no default in table 1234"
has "^default dev $A" a ip -6 route show table 1234 || die "no IPv6 default in table 1234"
has "198.19.7.0" a ip route show table main && die "Table = 1234 wrote to main"
[ "$(n a wg show "$A" fwmark)" = off ] || die "Table = 1234 set a fwmark"
down a "$TMP/$A.conf"
unchanged "Table = 1234"

log "== hooks: PreUp, PostUp, PreDown, PostDown with %i, in order"
snap
conf_a "PreUp = ip link show %i >/dev/null && echo pre-up %i >>$TMP/hooks
PostUp = echo post-up %i >>$TMP/hooks; ip -4 addr show dev %i | grep 198.19.0.1 >/dev/null
PreDown = echo pre-down %i >>$TMP/hooks
PostDown = echo post-down %i >>$TMP/hooks # comments go to bash" "198.19.0.2/32"
up a "$TMP/$A.conf"
down a "$TMP/$A.conf"
printf 'pre-up %s\npost-up %s\npre-down %s\npost-down %s\n' "$A" "$A" "$A" "$A" | diff -u - "$TMP/hooks" ||
	die "hooks ran wrongly"
unchanged "hooks"

log "== DNS through resolvconf (a stand-in that records its calls)"
mkdir -p "$TMP/bin"
cat >"$TMP/bin/resolvconf" <<EOF
#!/bin/sh
echo "\$*" >>$TMP/resolvconf.calls
[ "\$1" = -a ] && cat >>$TMP/resolvconf.calls
exit 0
EOF
chmod 755 "$TMP/bin/resolvconf"
conf_a "DNS = 198.19.0.53, fd00:19::53, corp.example" "198.19.0.2/32"
snap
PATH="$TMP/bin:$PATH" n a "$CAKEWG" up "$TMP/$A.conf" 2>"$TMP/up.err" || { cat "$TMP/up.err"; die "up with DNS"; }
PATH="$TMP/bin:$PATH" n a "$CAKEWG" down "$TMP/$A.conf" 2>"$TMP/down.err" || { cat "$TMP/down.err"; die "down with DNS"; }
printf -- '-a %s -m 0 -x\nnameserver 198.19.0.53\nnameserver fd00:19::53\nsearch corp.example\n-d %s -f\n' "$A" "$A" |
	diff -u - "$TMP/resolvconf.calls" || die "resolvconf was not called as wg-quick calls it"
unchanged "DNS"
rm "$TMP/resolvconf.calls"
conf_a "DNS = 198.19.0.53
PostUp = false" "198.19.0.2/32"
if PATH="$TMP/bin:$PATH" n a "$CAKEWG" up "$TMP/$A.conf" 2>"$TMP/up.err"; then die "PostUp = false succeeded"; fi
printf -- '-a %s -m 0 -x\nnameserver 198.19.0.53\n-d %s -f\n' "$A" "$A" |
	diff -u - "$TMP/resolvconf.calls" || die "a failed up did not take its DNS back"
unchanged "DNS undone"

log "== DNS without resolvconf: one clear error, nothing done"
mkdir -p "$TMP/empty"
if n a env PATH="$TMP/empty" "$CAKEWG" up "$TMP/$A.conf" 2>"$TMP/up.err"; then die "up without resolvconf succeeded"; fi
[ "$(wc -l <"$TMP/up.err")" = 1 ] || { cat "$TMP/up.err"; die "not one line"; }
grep -q "^cakewg: $TMP/$A.conf: .*resolvconf" "$TMP/up.err" || { cat "$TMP/up.err"; die "unclear error"; }
unchanged "DNS without resolvconf"

log "== SaveConfig: the running configuration goes back to the file"
keypair c
conf_a "SaveConfig = true
MTU = 1380
PostUp = true %i
Cake = bandwidth 50Mbit diffserv4
UnderlayLimit = 32kb
AutorateProbe = 198.19.0.2" "198.19.0.2/32"
snap
up a "$TMP/$A.conf"
n a wg set "$A" peer "$(cat "$TMP/c.pub")" allowed-ips 198.19.9.9/32 endpoint 198.18.0.9:9
n a ip addr add 198.19.3.1/32 dev "$A"
n a ip link set "$A" mtu 1300
down a "$TMP/$A.conf"
unchanged "SaveConfig down"
for line in "Address = 198.19.0.1/24" "Address = 198.19.3.1/32" "Address = fd00:19::1/64" \
	"MTU = 1300" "SaveConfig = true" "PostUp = true %i" "Cake = bandwidth 50Mbit diffserv4" \
	"UnderlayLimit = 32768" "AutorateProbe = 198.19.0.2" \
	"ListenPort = 10001" "PrivateKey = $(cat "$TMP/a.key")" "PublicKey = $(cat "$TMP/c.pub")" \
	"AllowedIPs = 198.19.9.9/32" "Endpoint = 198.18.0.9:9" "PublicKey = $(cat "$TMP/b.pub")"; do
	grep -qxF "$line" "$TMP/$A.conf" || { cat "$TMP/$A.conf"; die "saved file lacks: $line"; }
done
grep -q fe80 "$TMP/$A.conf" && die "saved a link-local address"
[ "$(stat -c %a "$TMP/$A.conf")" = 600 ] || die "saved file is not private"
up a "$TMP/$A.conf"
has "$(cat "$TMP/c.pub")" a wg show "$A" peers || die "the saved peer did not come back"
[ "$(n a cat /sys/class/net/"$A"/mtu)" = 1300 ] || die "the saved MTU did not come back"
# CAKE and the underlay limit changed at runtime are saved as the daemon reports them.
n a "$CAKEWG" set "$A" cake bandwidth 20Mbit underlay-limit off
down a "$TMP/$A.conf"
grep -q "^Cake = bandwidth 20Mbit .*diffserv" "$TMP/$A.conf" || { cat "$TMP/$A.conf"; die "runtime CAKE not saved"; }
grep -qx "UnderlayLimit = off" "$TMP/$A.conf" || { cat "$TMP/$A.conf"; die "runtime underlay limit not saved"; }
[ "$(grep -c "^Cake = " "$TMP/$A.conf")" = 1 ] || die "more than one Cake line"
unchanged "SaveConfig up again"

log "== an existing interface; down of what is not a WireGuard interface"
conf_a "" "198.19.0.2/32"
snap
n a ip link add "$A" type veth peer name "${P}x"
if n a "$CAKEWG" up "$TMP/$A.conf" 2>"$TMP/up.err"; then die "up over an existing link"; fi
grep -qx "cakewg: $TMP/$A.conf: \`$A' already exists" "$TMP/up.err" || { cat "$TMP/up.err"; die "wrong message"; }
if n a "$CAKEWG" down "$TMP/$A.conf" 2>"$TMP/down.err"; then die "down of a veth"; fi
grep -qx "cakewg: $TMP/$A.conf: \`$A' is not a WireGuard interface" "$TMP/down.err" ||
	{ cat "$TMP/down.err"; die "wrong message"; }
n a ip link show "$A" >/dev/null || die "the veth was deleted"
n a ip link del "$A"
unchanged "existing"
# A daemon elsewhere (namespace b) holds the UAPI socket of that name: ours cannot start.
start_cakewg b "$A"
if n a "$CAKEWG" up "$TMP/$A.conf" 2>"$TMP/up.err"; then die "up with the socket taken"; fi
errors=$(grep -v '^\[#\] ' "$TMP/up.err" || true)
[ "$errors" = "cakewg: $TMP/$A.conf: the daemon for \`$A' did not start (see the system log)" ] ||
	{ cat "$TMP/up.err"; die "wrong message when the daemon fails"; }
n b ip link del "$A"
uapi_gone 5 "$A" || die "the daemon in b did not exit"
unchanged "daemon failure"

log "== broken files and failing steps: exit 1, one error line, nothing left"
PRIV=$(cat "$TMP/a.key")
BPUB=$(cat "$TMP/b.pub")
# Each case: the expected error (a grep pattern after "cakewg: FILE:"), then the file.
cases=(
	"2: Key is not the correct length or format"
	$'[Interface]\nPrivateKey = nokey\n'
	"3: .*\`198.19.0.300'"
	$'[Interface]\nPrivateKey = '"$PRIV"$'\nAddress = 198.19.0.300/24\n'
	"2: .*MTU"
	$'[Interface]\nMTU = 10\n'
	"2: .*Table"
	$'[Interface]\nTable = nowhere\n'
	"2: .*maybe"
	$'[Interface]\nSaveConfig = maybe\n'
	"3: .*Foo"
	$'[Interface]\nPrivateKey = '"$PRIV"$'\nFoo = bar\n'
	"1: A peer is missing a public key"
	$'[Peer]\nAllowedIPs = 10.0.0.0/8\n'
	"3: Unable to find port of endpoint"
	$'[Peer]\nPublicKey = '"$BPUB"$'\nEndpoint = 198.18.0.2\n'
	" Cake = \`bandwidth banana'"
	$'[Interface]\nCake = bandwidth banana\n'
	" PostUp failed with exit status 1: \`false'"
	$'[Interface]\nPrivateKey = '"$PRIV"$'\nAddress = 198.19.0.1/24\nPostUp = false\n[Peer]\nPublicKey = '"$BPUB"$'\nAllowedIPs = 0.0.0.0/0, ::/0\nEndpoint = 198.18.0.2:1\n'
	" PreUp failed with exit status 3"
	$'[Interface]\nPreUp = exit 3\n'
	" cannot add address 198.19.0.1/24"
	$'[Interface]\nAddress = 198.19.0.1/24\nAddress = 198.19.0.1/24\n'
	" .*nonexistent.invalid:51820"
	$'[Peer]\nPublicKey = '"$BPUB"$'\nEndpoint = nonexistent.invalid:51820\n'
	" KillSwitch = true needs a default route (AllowedIPs 0.0.0.0/0 or ::/0) and Table = auto"
	$'[Interface]\nPrivateKey = '"$PRIV"$'\nKillSwitch = true\n[Peer]\nPublicKey = '"$BPUB"$'\nAllowedIPs = 198.19.0.2/32\n'
	" KillSwitch = true needs a default route"
	$'[Interface]\nKillSwitch = true\nTable = off\n[Peer]\nPublicKey = '"$BPUB"$'\nAllowedIPs = 0.0.0.0/0\n'
	"2: .*\`maybe' is neither true nor false"
	$'[Interface]\nKillSwitch = maybe\n'
	" KillSwitchAllowLAN = true needs KillSwitch = true"
	$'[Interface]\nPrivateKey = '"$PRIV"$'\nAddress = 198.19.0.1/24\nKillSwitchAllowLAN = true\n[Peer]\nPublicKey = '"$BPUB"$'\nAllowedIPs = 0.0.0.0/0, ::/0\nEndpoint = 198.18.0.2:1\n'
	" KillSwitchAllowLAN = true needs KillSwitch = true"
	$'[Interface]\nKillSwitch = false\nKillSwitchAllowLAN = true\n[Peer]\nPublicKey = '"$BPUB"$'\nAllowedIPs = 0.0.0.0/0\n'
	"3: .*\`on' is neither true nor false"
	$'[Interface]\nKillSwitch = true\nKillSwitchAllowLAN = on\n'
	"2: .*KillSwich"
	$'[Interface]\nKillSwich = true\n'
)
snap
for ((i = 0; i < ${#cases[@]}; i += 2)); do
	want=${cases[i]}
	printf '%s' "${cases[i + 1]}" >"$TMP/$A.conf"
	if WG_ENDPOINT_RESOLUTION_RETRIES=0 n a "$CAKEWG" up "$TMP/$A.conf" 2>"$TMP/up.err"; then
		die "case $((i / 2)) ($want): up succeeded"
	fi
	errors=$(grep -v '^\[#\] ' "$TMP/up.err" || true)
	[ "$(wc -l <<<"$errors")" = 1 ] || { cat "$TMP/up.err"; die "case $((i / 2)): not one error line"; }
	grep -q "^cakewg: $TMP/$A.conf:$want" <<<"$errors" ||
		{ cat "$TMP/up.err"; die "case $((i / 2)): expected \"$want\""; }
	unchanged "case $((i / 2)) ($want)"
done
log "$((${#cases[@]} / 2)) broken cases refused cleanly"
echo "PASS"
