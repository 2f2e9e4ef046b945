#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# `DNS =` through systemd-resolved (src/edge/dns.c), against a stand-in resolvectl that
# records its calls, so that it runs anywhere (CI included). The test runs in a private
# mount namespace with a fresh tmpfs on /run, where it makes /run/systemd/resolve (what
# cakewg takes as "resolved runs"): nothing of the host's /run is touched. The real
# resolved is tested by tests/netns/real-resolved.sh where it runs.
#
#   ns $P-a                                  ns $P-b
#   $P"wa" 198.19.0.1/24 fd00:19::1/64       (no tunnel)
#   $P"a"  198.18.0.1/24 <---------------->  $P"b" 198.18.0.2/24
#
# Cases: a full tunnel (servers, search domains and `~.`, the default route); a split
# tunnel (servers only, no `~.`); a failed up reverts the link; a failing resolvectl
# fails up with one clear line and leaves nothing; without /run/systemd/resolve,
# resolvconf as before.
if [ -z "${CAKEWG_TEST_MOUNTNS:-}" ]; then
	command -v unshare >/dev/null || { echo "FAIL: needs unshare" >&2; exit 1; }
	[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit 77; }
	exec env CAKEWG_TEST_MOUNTNS=1 unshare --mount --propagation private bash "$0" "$@"
fi
mount -t tmpfs -o mode=755 cakewg-test-run /run || { echo "FAIL: cannot mount /run" >&2; exit 1; }
source "$(dirname "$0")/lib.sh"
require_root wg

A=${P}wa
mkdir -p /run/systemd/resolve "$TMP/bin" "$TMP/empty"
# The stand-ins: each records its arguments; resolvectl fails on `dns` when asked to.
cat >"$TMP/bin/resolvectl" <<EOF
#!/bin/sh
echo "\$*" >>$TMP/resolvectl.calls
[ "\$1" = dns ] && [ -e $TMP/resolvectl.fail ] && exit 1
exit 0
EOF
cat >"$TMP/bin/resolvconf" <<EOF
#!/bin/sh
echo "\$*" >>$TMP/resolvconf.calls
[ "\$1" = -a ] && cat >/dev/null
exit 0
EOF
chmod 755 "$TMP/bin/resolvectl" "$TMP/bin/resolvconf"

cw() { n a env PATH="$TMP/bin:$PATH" "$CAKEWG" "$@"; }
# calls TOOL EXPECTED: TOOL's recorded calls are exactly EXPECTED (one per line).
calls() {
	printf '%s' "$2" | diff -u - "$TMP/$1.calls" >&2 || die "$1 was not called as expected"
	rm -f "$TMP/$1.calls"
}
gone() { # gone WHAT: the interface and its socket are gone, no stand-in called since
	n a ip link show "$A" >/dev/null 2>&1 && die "$1: $A is left"
	ls /var/run/wireguard/"$P"*.sock >/dev/null 2>&1 && die "$1: a UAPI socket is left"
	return 0
}

pair_underlay
keypair a
keypair b

log "== full tunnel: servers, search domains and ~., the DNS default route"
conf_a "DNS = 198.19.0.53, fd00:19::53, corp.example, lan" "0.0.0.0/0, ::/0"
cw up "$TMP/$A.conf" 2>"$TMP/up.err" || { cat "$TMP/up.err"; die "up"; }
grep -qx "\[#\] resolvectl domain $A corp.example lan ~\." "$TMP/up.err" ||
	{ cat "$TMP/up.err"; die "up does not trace the resolvectl commands"; }
calls resolvectl "dns $A 198.19.0.53 fd00:19::53
domain $A corp.example lan ~.
default-route $A yes
"
cw down "$TMP/$A.conf" 2>"$TMP/down.err" || { cat "$TMP/down.err"; die "down"; }
# The link is gone, and resolved with it forgot its settings: nothing to revert.
[ -e "$TMP/resolvectl.calls" ] && calls resolvectl ""
[ -e "$TMP/resolvconf.calls" ] && die "resolvconf was called while resolved runs"
gone "full tunnel"

log "== split tunnel: servers, no ~., no default route"
conf_a "DNS = 198.19.0.53" "198.19.0.2/32"
cw up "$TMP/$A.conf" 2>"$TMP/up.err" || { cat "$TMP/up.err"; die "up"; }
calls resolvectl "dns $A 198.19.0.53
"
cw down "$TMP/$A.conf" 2>"$TMP/down.err" || { cat "$TMP/down.err"; die "down"; }
gone "split tunnel"

log "== a failed up reverts the link before deleting it"
conf_a "DNS = 198.19.0.53, corp.example
PostUp = false" "198.19.0.2/32"
if cw up "$TMP/$A.conf" 2>"$TMP/up.err"; then die "PostUp = false succeeded"; fi
calls resolvectl "dns $A 198.19.0.53
domain $A corp.example
revert $A
"
gone "failed up"

log "== a failing resolvectl: one clear line, nothing left"
conf_a "DNS = 198.19.0.53" "0.0.0.0/0"
touch "$TMP/resolvectl.fail"
if cw up "$TMP/$A.conf" 2>"$TMP/up.err"; then die "up with a failing resolvectl succeeded"; fi
grep -v '^\[#\]' "$TMP/up.err" >"$TMP/up.msg" || true
[ "$(wc -l <"$TMP/up.msg")" = 1 ] || { cat "$TMP/up.err"; die "not one line"; }
grep -qx "cakewg: $TMP/$A.conf: resolvectl dns failed with exit status 1" "$TMP/up.msg" ||
	{ cat "$TMP/up.msg"; die "unclear error"; }
calls resolvectl "dns $A 198.19.0.53
revert $A
"
rm "$TMP/resolvectl.fail"
gone "failing resolvectl"

log "== resolved not running: resolvconf, as wg-quick"
rmdir /run/systemd/resolve
conf_a "DNS = 198.19.0.53" "198.19.0.2/32"
cw up "$TMP/$A.conf" 2>"$TMP/up.err" || { cat "$TMP/up.err"; die "up"; }
cw down "$TMP/$A.conf" 2>"$TMP/down.err" || { cat "$TMP/down.err"; die "down"; }
calls resolvconf "-a $A -m 0 -x
-d $A -f
"
[ -e "$TMP/resolvectl.calls" ] && die "resolvectl was called without resolved"
gone "resolvconf"
log "PASS"
