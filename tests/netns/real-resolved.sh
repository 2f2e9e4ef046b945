#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# `DNS =` against the real systemd-resolved, on a machine where it runs. An extra script,
# not a ctest test (CI machines have no resolved, and a CI test may not skip); the
# stand-in variant, test-dns-resolved.sh, runs everywhere.
#
# resolved manages the links of the initial network namespace only, so the tunnel is
# made there: a split tunnel (one /32 route, 198.19.0.2, with no handshake) whose
# servers and search domain `resolvectl dns`/`domain` must then show, and which `down`
# takes away with the link. A full tunnel would send the host's queries into the dead
# tunnel while the test runs: the `~.` and default-route words are checked by
# test-dns-resolved.sh and the unit test instead.
# Usage (as root): tests/netns/real-resolved.sh [path/to/cakewg]
source "$(dirname "$0")/lib.sh"
[ -n "${1:-}" ] && CAKEWG=$1
require_root wg resolvectl
[ -d /run/systemd/resolve ] && resolvectl status >/dev/null 2>&1 || skip "systemd-resolved does not run"

IF=${P}r
conf="$TMP/$IF.conf"
keypair a
keypair b
down_on_exit() {
	local rc=$?
	"$CAKEWG" down "$conf" >/dev/null 2>&1
	(exit $rc)
	cleanup
}
trap down_on_exit EXIT
cat >"$conf" <<EOF
[Interface]
PrivateKey = $(cat "$TMP/a.key")
Address = 198.19.0.1/32
DNS = 198.19.0.53, corp-$P.example

[Peer]
PublicKey = $(cat "$TMP/b.pub")
AllowedIPs = 198.19.0.2/32
EOF

log "== up: the link's servers and domains in resolved"
"$CAKEWG" up "$conf" 2>"$TMP/up.err" || { cat "$TMP/up.err"; die "up"; }
resolvectl dns "$IF" | grep -q "198\.19\.0\.53" || { resolvectl dns "$IF"; die "no DNS server on $IF"; }
resolvectl domain "$IF" | grep -q "corp-$P\.example" || { resolvectl domain "$IF"; die "no domain on $IF"; }
resolvectl domain "$IF" | grep -qF "~." && die "a split tunnel got ~."

log "== down: the link and its settings gone"
"$CAKEWG" down "$conf" 2>"$TMP/down.err" || { cat "$TMP/down.err"; die "down"; }
resolvectl dns "$IF" >/dev/null 2>&1 && die "resolved still knows $IF"
resolvectl dns | grep -q "198\.19\.0\.53" && die "the server is still configured"
log "PASS"
