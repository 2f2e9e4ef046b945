#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A `set` is all or nothing (issue #15): a request with a new listen port and fwmark and
# a CAKE string that is refused leaves the port, its socket and the fwmark as they
# were; one with egress options the egress takes and a refused ingress string leaves
# both instances as they were; each gets the errno the CAKE string alone gets. The
# same requests with valid strings are applied. (The control thread refuses these
# strings as it parses the request; the datapath checks both instances' strings again,
# before the underlay changes, for what only the instances can refuse: test_device_conf.)
#
#   ns $P-a: cakewg $P"wa", listen port 10001, fwmark 0x11, one peer, CAKE at 100 Mbit/s
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-cake.sh"
require_root wg ss python3

BAD=('bandwidth 20mbit autorate 80mbit 2mbit' 'bandwidth fast')

# raw_set IF LINES: one set=1 request (LINES separated by \n); prints its reply.
raw_set() {
	printf 'set=1\n%b\n\n' "$2" | uapi_call "$1" raw
}

# bound PORT: whether a UDP socket of the namespace is bound to PORT.
bound() {
	[ -n "$(n a ss -Huln "sport = :$1")" ]
}

# same_underlay: port 10001 (its socket, not 10005's) and fwmark 0x11, as configured.
same_underlay() {
	[ "$(n a wg show "${P}wa" listen-port)" = 10001 ] || die "the listen port changed"
	bound 10001 || die "no socket on port 10001 any more"
	! bound 10005 || die "a socket was bound to port 10005"
	[ "$(n a wg show "${P}wa" fwmark)" = 0x11 ] || die "the fwmark changed"
}

mkns a
keypair a
keypair b
start_cakewg a "${P}wa"
n a wg set "${P}wa" private-key "$TMP/a.key" listen-port 10001 fwmark 0x11 \
	peer "$(cat "$TMP/b.pub")" allowed-ips 198.19.0.2/32
uapi_set "${P}wa" 'cake=bandwidth 100mbit\ncake_ingress=bandwidth 100mbit' ||
	die "CAKE at 100 Mbit/s refused"
egress=$(ext_val "${P}wa" cake_egress)
ingress=$(ext_val "${P}wa" cake_ingress)
[ -n "$egress" ] && [ -n "$ingress" ] || die "no cake_egress or cake_ingress in cakewg_get"

# refused KEY BAD LINES: KEY=BAD alone is refused, LINES with KEY=BAD get the same
# reply, and the underlay stays as it was.
refused() {
	local alone got
	alone=$(raw_set "${P}wa" "$1=$2")
	[ "$alone" != errno=0 ] || die "$1=$2 was taken"
	got=$(raw_set "${P}wa" "$3\n$1=$2")
	log "$1=$2: alone $alone, with $3: $got"
	[ "$got" = "$alone" ] || die "refused with $got, not $alone as the CAKE string alone"
	same_underlay
}

for bad in "${BAD[@]}"; do
	refused cake "$bad" 'listen_port=10005\nfwmark=34'
	refused cake_ingress "$bad" 'listen_port=10005\ncake=bandwidth 7mbit diffserv4'
	[ "$(ext_val "${P}wa" cake_egress)" = "$egress" ] ||
		die "the egress changed: $(ext_val "${P}wa" cake_egress)"
	[ "$(ext_val "${P}wa" cake_ingress)" = "$ingress" ] ||
		die "the ingress changed: $(ext_val "${P}wa" cake_ingress)"
done
grep -q "autorate MIN \`80mbit' is above MAX \`2mbit'" "$TMP/cakewg-${P}wa.log" ||
	die "the refusal was not logged"

# The same requests, valid: all of it applied.
got=$(raw_set "${P}wa" "listen_port=10005\nfwmark=34\ncake=bandwidth 7mbit\ncake_ingress=autorate 2mbit 120mbit")
[ "$got" = errno=0 ] || die "the valid request was refused: $got"
[ "$(n a wg show "${P}wa" listen-port)" = 10005 ] || die "the listen port did not change"
wait_for 2 bound 10005 || die "no socket on port 10005"
[ "$(n a wg show "${P}wa" fwmark)" = 0x22 ] || die "the fwmark did not change"
case "$(ext_val "${P}wa" cake_egress)" in
"bandwidth 7Mbit "*) ;;
*) die "egress after the valid request: $(ext_val "${P}wa" cake_egress)" ;;
esac
case "$(ext_val "${P}wa" cake_ingress)" in
*autorate*) ;;
*) die "ingress after the valid request: $(ext_val "${P}wa" cake_ingress)" ;;
esac
log "ok"
