#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# cakewg <-> wireguard-go (Debian's), both roles, IPv4 and IPv6 outside and inside:
# handshake, ping, a TCP transfer each way, and `wg show` agreeing on both sides.
source "$(dirname "$0")/lib.sh"
require_root wg wireguard-go iperf3 python3

run() { # run IMPL_A IMPL_B OUTER
	log "== $1 initiates, $2 responds, IPv$3 underlay"
	pair "$1" "$2" "$3"
	ping_ok a 198.19.0.2 || die "IPv4 ping a -> b"
	ping_ok b 198.19.0.1 || die "IPv4 ping b -> a"
	ping_ok a fd00:19::2 || die "IPv6 ping a -> b"
	ping_ok b fd00:19::1 || die "IPv6 ping b -> a"
	iperf_through a b 198.19.0.2 3 -C cubic
	iperf_through a b fd00:19::2 3 -R
	sleep 1
	transfer_agrees
	teardown_pair
}

run cakewg wggo 4
run wggo cakewg 4
run cakewg wggo 6
run wggo cakewg 6
echo "PASS"
