#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# `cakewg show`, `cakewg showconf` and `cakewg set` against running daemons, checked
# against stock wireguard-tools:
#  - show's fields and dump agree with `wg show` field by field, pretty output holds
#    every line wg prints, --json carries the same data and never a secret;
#  - showconf round-trips through `wg setconf` (Cake lines aside) and equals wg showconf;
#  - set's grammar (+/- allowed IPs included) does what wg set does, and its
#    `cake ...` / `cake-ingress ...` (or `ingress ...` where a key starts) change what the
#    CAKE section shows, and tc-cake's word `ingress` is taken inside either;
#  - `set underlay-limit` fixes, turns off and restores the learnt underlay byte limit,
#    as show, show --json and showconf (UnderlayLimit) report it;
#  - bad input exits 1 with one line on stderr and changes nothing;
#  - against wireguard-go: no CAKE section, the cakewg words are refused by the daemon.
#
#   ns $P-a                                   ns $P-b
#   $P"wa" cakewg 198.19.0.1 ------------- $P"wb" cakewg 198.19.0.2
#   $P"wc" cakewg (no peers: device-level set tests)
#   $P"wg" wireguard-go (when installed)
#   $P"a" veth 198.18.0.1/24 <---------> $P"b" veth 198.18.0.2/24
source "$(dirname "$0")/lib.sh"
require_root wg python3

cw() { # cw NS ARGS...: cakewg in a namespace
	local ns=$1
	shift
	n "$ns" "$CAKEWG" "$@"
}

# same_output DESC CMD_A -- CMD_B: both commands print exactly the same. Counters may
# move between two reads (a keepalive), so a difference is retried twice.
same_output() {
	local desc=$1 a=() b=() try
	shift
	while [ "$1" != -- ]; do a+=("$1"); shift; done
	shift
	b=("$@")
	for try in 1 2 3; do
		"${a[@]}" >"$TMP/out.a" 2>&1 || die "$desc: ${a[*]} failed: $(cat "$TMP/out.a")"
		"${b[@]}" >"$TMP/out.b" 2>&1 || die "$desc: ${b[*]} failed: $(cat "$TMP/out.b")"
		cmp -s "$TMP/out.a" "$TMP/out.b" && return 0
		sleep 0.3
	done
	diff -u "$TMP/out.a" "$TMP/out.b" | head -n 20 >&2
	die "$desc differs"
}

# dump_agrees NS IF: `cakewg show IF dump` and `wg show IF dump`, field by field.
dump_agrees() {
	local try
	for try in 1 2 3; do
		n "$1" wg show "$2" dump >"$TMP/wg.dump"
		cw "$1" show "$2" dump >"$TMP/cw.dump"
		python3 - "$TMP/wg.dump" "$TMP/cw.dump" <<'PY' && return 0
import sys
a = open(sys.argv[1]).read().splitlines()
b = open(sys.argv[2]).read().splitlines()
if len(a) != len(b):
    sys.exit("wg has %d lines, cakewg %d" % (len(a), len(b)))
for i, (x, y) in enumerate(zip(a, b)):
    fx, fy = x.split("\t"), y.split("\t")
    if len(fx) != len(fy):
        sys.exit("line %d: %d fields vs %d" % (i, len(fx), len(fy)))
    for j, (u, v) in enumerate(zip(fx, fy)):
        if u != v:
            sys.exit("line %d field %d: wg %r, cakewg %r" % (i, j, u, v))
PY
		sleep 0.3
	done
	die "dump of $2 differs"
}

fields_agree() { # fields_agree NS IF
	local f
	for f in public-key private-key listen-port fwmark peers preshared-keys endpoints \
		allowed-ips latest-handshakes transfer persistent-keepalive dump; do
		same_output "show $2 $f" n "$1" wg show "$2" "$f" -- cw "$1" show "$2" "$f"
	done
	dump_agrees "$1" "$2"
}

# pretty_agrees NS IF: every line of wg's pretty output appears, in order, in cakewg's.
pretty_agrees() {
	n "$1" wg show "$2" >"$TMP/wg.pretty"
	cw "$1" show "$2" >"$TMP/cw.pretty"
	python3 - "$TMP/wg.pretty" "$TMP/cw.pretty" <<'PY' || die "pretty output of $2 differs"
import re, sys
norm = lambda l: re.sub(r"(latest handshake: ).*", r"\1...", l)
want = [norm(l) for l in open(sys.argv[1]).read().splitlines()]
got = [norm(l) for l in open(sys.argv[2]).read().splitlines()]
i = 0
for l in got:
    if i < len(want) and l == want[i]:
        i += 1
if i != len(want):
    sys.exit("wg's line %r is missing from cakewg's output" % want[i])
if any("\x1b" in l for l in got):
    sys.exit("colour codes on a pipe")
PY
}

# fails_cleanly DESC NS CMD...: exits 1 with exactly one line on stderr, nothing on stdout.
fails_cleanly() {
	local desc=$1 ns=$2 rc=0
	shift 2
	n "$ns" "$@" >"$TMP/fail.out" 2>"$TMP/fail.err" || rc=$?
	[ "$rc" = 1 ] || die "$desc: exit code $rc, not 1"
	[ "$(wc -l <"$TMP/fail.err")" = 1 ] || die "$desc: stderr is not one line: $(cat "$TMP/fail.err")"
	[ ! -s "$TMP/fail.out" ] || die "$desc: printed on stdout: $(cat "$TMP/fail.out")"
	log "  $desc: $(cat "$TMP/fail.err")"
}

# state NS IF: everything the daemon reports, to compare before and after.
state() {
	n "$1" wg show "$2" dump | cut -f1-4,8 # no handshake times or counters
	cw "$1" show --json "$2" | python3 -c '
import json, sys
c = json.load(sys.stdin)["cake"] or {}
for d in ("egress", "ingress"):
    print(d, (c.get(d) or {}).get("options"))
print("underlay", c.get("underlay_limit_setting"))'
}

# underlay_json NS IF SETTING LIMIT: show --json reports this setting and current limit
# (LIMIT "-": any).
underlay_json() {
	cw "$1" show --json "$2" | python3 -c '
import json, sys
c = json.load(sys.stdin)["cake"]
assert c["underlay_limit_setting"] == sys.argv[1], c
assert sys.argv[2] == "-" or c["underlay_limit"] == int(sys.argv[2]), c
assert isinstance(c["underlay_drain_rate"], int), c' "$3" "$4" || die "underlay JSON is not $3/$4"
}

log "== a pair of cakewg daemons configured with stock wg set"
pair cakewg cakewg 4 psk
ping_ok a 198.19.0.2 || die "no ping through the tunnel"
keypair c
start_cakewg a "${P}wc"

log "== show: every field and the dump agree with wg show"
for side in "a ${P}wa" "b ${P}wb"; do
	read -r ns ifc <<<"$side"
	fields_agree "$ns" "$ifc"
	pretty_agrees "$ns" "$ifc"
done
fields_agree a "${P}wc"
same_output "show all public-key" \
	sh -c "ip netns exec $P-a wg show all public-key | grep '^${P}' | LC_ALL=C sort" -- \
	sh -c "ip netns exec $P-a $CAKEWG show all public-key 2>/dev/null | grep '^${P}'"
cw a show interfaces | tr ' ' '\n' | grep -qx "${P}wa" || die "show interfaces lacks ${P}wa"
fails_cleanly "show of a missing interface" a "$CAKEWG" show "${P}none"
grep -qx "Unable to access interface: No such device" "$TMP/fail.err" || die "wrong message"
rc=0
cw a show "${P}wa" no-such-field >/dev/null 2>&1 || rc=$?
[ $rc = 1 ] || die "an unknown field exits $rc"

log "== show --json: the same data, no secrets"
cw a show --json "${P}wa" >"$TMP/wa.json"
n a wg show "${P}wa" dump >"$TMP/wa.dump"
python3 - "$TMP/wa.json" "$TMP/wa.dump" <<'PY' || die "JSON disagrees with the dump"
import json, sys
j = json.load(open(sys.argv[1]))
dev, *peers = [l.split("\t") for l in open(sys.argv[2]).read().splitlines()]
text = open(sys.argv[1]).read()
assert dev[0] not in text, "the private key is in the JSON"
assert j["public_key"] == dev[1] and j["listen_port"] == int(dev[2])
assert j["fwmark"] == (0 if dev[3] == "off" else int(dev[3], 16))
assert len(j["peers"]) == len(peers)
for p, d in zip(j["peers"], peers):
    assert d[1] == "(none)" or d[1] not in text, "a preshared key is in the JSON"
    assert p["public_key"] == d[0]
    assert (p["endpoint"] or "(none)") == d[2]
    assert sorted(p["allowed_ips"]) == sorted(d[3].split(",")) or d[3] == "(none)"
    assert p["latest_handshake"] == int(d[4])
    assert p["rx_bytes"] <= int(d[5]) + 4096 and p["tx_bytes"] <= int(d[6]) + 4096
    assert p["persistent_keepalive"] == (0 if d[7] == "off" else int(d[7]))
print("json ok; cake:", "present" if j["cake"] else "absent")
PY

log "== set: the device words"
printf '%s\n' "$(cat "$TMP/c.key")" >"$TMP/c.keyfile"
cw a set "${P}wc" private-key "$TMP/c.keyfile" listen-port 10031 fwmark 0x2a
[ "$(n a wg show "${P}wc" public-key)" = "$(cat "$TMP/c.pub")" ] || die "private key not set"
[ "$(n a wg show "${P}wc" listen-port)" = 10031 ] || die "listen port not set"
[ "$(n a wg show "${P}wc" fwmark)" = 0x2a ] || die "fwmark not set"
cw a set "${P}wc" fwmark off listen-port 0
[ "$(n a wg show "${P}wc" fwmark)" = off ] || die "fwmark not cleared"
cw a set "${P}wc" private-key /dev/null
[ "$(n a wg show "${P}wc" private-key)" = "(none)" ] || die "private key not removed"
cw a set "${P}wc" private-key /dev/stdin <"$TMP/c.key"
[ "$(n a wg show "${P}wc" public-key)" = "$(cat "$TMP/c.pub")" ] || die "key from stdin"
fields_agree a "${P}wc"

log "== set: peers, endpoints, keepalive, preshared keys, allowed IPs"
keypair d
keypair e
wg genpsk >"$TMP/d.psk"
D=$(cat "$TMP/d.pub")
E=$(cat "$TMP/e.pub")
cw a set "${P}wc" peer "$D" endpoint 192.0.2.7:1234 persistent-keepalive 30 \
	preshared-key "$TMP/d.psk" allowed-ips "10.9.0.0/24, fd09::/64" \
	peer "$E" endpoint "[fd00:18::99]:7" allowed-ips 10.8.0.1/32
row=$(n a wg show "${P}wc" dump | grep "^$D" | cut -f1-3,5,8) # tx: the keepalive's handshake
want=$(printf '%s\t%s\t192.0.2.7:1234\t0\t30' "$D" "$(cat "$TMP/d.psk")")
[ "$row" = "$want" ] || die "peer D is [$row], not [$want]"
aips=$(n a wg show "${P}wc" allowed-ips | grep "^$D" | cut -f2 | tr ' ' '\n' | sort | xargs)
[ "$aips" = "10.9.0.0/24 fd09::/64" ] || die "peer D's allowed IPs are [$aips]"
[ "$(n a wg show "${P}wc" endpoints | grep "^$E" | cut -f2)" = "[fd00:18::99]:7" ] ||
	die "peer E's IPv6 endpoint"
cw a set "${P}wc" peer "$D" allowed-ips +10.10.0.0/16,-10.9.0.0/24
aips=$(n a wg show "${P}wc" allowed-ips | grep "^$D" | cut -f2 | tr ' ' '\n' | sort | xargs)
[ "$aips" = "10.10.0.0/16 fd09::/64" ] || die "incremental allowed-ips gave [$aips]"
cw a set "${P}wc" peer "$D" allowed-ips 10.11.0.0/16 persistent-keepalive off preshared-key /dev/null
row=$(n a wg show "${P}wc" dump | grep "^$D" | cut -f2,4,8)
[ "$row" = "$(printf '(none)\t10.11.0.0/16\toff')" ] || die "replacing allowed IPs gave [$row]"
cw a set "${P}wc" peer "$E" remove
n a wg show "${P}wc" peers | grep -q "^$E" && die "peer E not removed"
fields_agree a "${P}wc"

log "== showconf: round trip through wg setconf"
cw a showconf "${P}wa" >"$TMP/wa.conf"
grep -v '^Cake' "$TMP/wa.conf" >"$TMP/wa.stripped"
n a wg showconf "${P}wa" >"$TMP/wa.wgconf"
cmp -s "$TMP/wa.stripped" "$TMP/wa.wgconf" || { diff -u "$TMP/wa.wgconf" "$TMP/wa.stripped"; die "showconf differs from wg's"; }
n a wg setconf "${P}wa" "$TMP/wa.stripped"
cw a showconf "${P}wa" >"$TMP/wa.conf2"
cmp -s "$TMP/wa.conf" "$TMP/wa.conf2" || die "showconf changed after wg setconf of its own output"
cw a showconf "${P}wc" | grep -v '^Cake' >"$TMP/wc.conf"
n a wg setconf "${P}wc" "$TMP/wc.conf"
fields_agree a "${P}wc"
ping_ok a 198.19.0.2 || die "the tunnel broke after setconf"

log "== set cake / ingress: what the CAKE section shows"
if cw a show --json "${P}wa" | python3 -c 'import json,sys; sys.exit(json.load(sys.stdin)["cake"] is None)'; then
	cw a show "${P}wa" | grep -q "^  cake (egress): " || die "no CAKE section in show"
	cw a show "${P}wa" | grep -q "bandwidth 10Mbit" && die "bandwidth already 10Mbit"
	cw a set "${P}wa" cake bandwidth 10mbit
	cw a show "${P}wa" >"$TMP/cake.show"
	grep -q "^  cake (egress): bandwidth 10Mbit " "$TMP/cake.show" ||
		{ cat "$TMP/cake.show"; die "bandwidth 10mbit not shown"; }
	grep -q "^ *Sent [0-9]* bytes" "$TMP/cake.show" || die "no tc -s statistics"
	cw a showconf "${P}wa" | grep -q "^Cake = bandwidth 10Mbit " || die "showconf lacks Cake"
	cw a set "${P}wa" cake rtt 50ms
	line=$(cw a show "${P}wa" | grep "^  cake (egress): ")
	case "$line" in
	*"bandwidth 10Mbit"*"rtt 50ms"*) ;;
	*) die "change semantics: [$line]" ;;
	esac
	cw a show --json "${P}wa" | python3 -c '
import json, sys
c = json.load(sys.stdin)["cake"]
assert "bandwidth 10Mbit" in c["egress"]["options"], c
assert isinstance(c["egress"]["stats"], dict), c' || die "cake JSON"
	cw a set "${P}wa" ingress bandwidth 5mbit cake bandwidth 20mbit
	cw a show "${P}wa" >"$TMP/cake.show"
	grep -q "^  cake (ingress): bandwidth 5Mbit " "$TMP/cake.show" || die "ingress not shown"
	grep -q "^  cake (egress): bandwidth 20Mbit " "$TMP/cake.show" || die "egress not changed"
	# tc-cake's own word `ingress` inside a section; the section itself is cake-ingress
	cw a set "${P}wa" cake bandwidth 8mbit ingress cake-ingress bandwidth 6mbit ingress
	cw a show "${P}wa" >"$TMP/cake.show"
	grep -qE "^  cake \(egress\): bandwidth 8Mbit .*\<ingress\>" "$TMP/cake.show" ||
		{ cat "$TMP/cake.show"; die "cake ... ingress did not reach the egress instance"; }
	grep -qE "^  cake \(ingress\): bandwidth 6Mbit .*\<ingress\>" "$TMP/cake.show" ||
		{ cat "$TMP/cake.show"; die "cake-ingress ... ingress not shown"; }
	cw a set "${P}wa" autorate-probe off ingress bandwidth 5mbit egress cake bandwidth 20mbit egress
	cw a show "${P}wa" >"$TMP/cake.show"
	grep -q "^  cake (ingress): bandwidth 5Mbit " "$TMP/cake.show" || die "ingress after a key not shown"
	grep -q "^  cake (egress): bandwidth 20Mbit " "$TMP/cake.show" || die "egress not changed back"
	ping_ok a 198.19.0.2 || die "the tunnel broke after the CAKE changes"
	pretty_agrees a "${P}wa"
	cw a show "${P}wa" >"$TMP/dp.show"
	grep -qE "^  underlay: [1-9][0-9]* datagrams sent in [0-9]+ trains, [1-9][0-9]* received \([0-9]+ coalesced\)$" \
		"$TMP/dp.show" || { cat "$TMP/dp.show"; die "show lacks the underlay counters"; }
	grep -qE "^  tun writes: [1-9][0-9]* \([0-9]+ segments joined, [0-9]+ ingress gulps\)$" \
		"$TMP/dp.show" || { cat "$TMP/dp.show"; die "show lacks the TUN counters"; }
	grep -qE "^  shaper late: [0-9]+ times, [0-9]+\.[0-9]{3} ms forgiven$" \
		"$TMP/dp.show" || { cat "$TMP/dp.show"; die "show lacks the shaper's late count"; }
	grep -qE "^  backpressure stalls: [0-9]+ \([0-9]+ starved, [0-9]+ regrown, [0-9]+ overflows\)$" \
		"$TMP/dp.show" || { cat "$TMP/dp.show"; die "show lacks the backpressure counters"; }
	cw a show --json "${P}wa" | python3 -c '
import json, sys
c = json.load(sys.stdin)["cake"]
assert c["underlay_sent"] > 0 and c["underlay_received"] > 0 and c["tun_writes"] > 0, c
assert all(isinstance(c[k], int) for k in ("underlay_trains", "underlay_rx_trains",
                                          "tun_gro_coalesced", "ingress_gulps",
                                          "shaper_late", "shaper_late_ns",
                                          "backpressure_stalls", "underlay_starved",
                                          "underlay_regrown", "underlay_overflows")), c' ||
		die "datapath counters JSON"
else
	die "the cakewg daemon does not answer cakewg_get"
fi

log "== set underlay-limit: fixed, off, learnt again"
cw a show "${P}wa" >"$TMP/ul.show"
grep -qE "^  underlay limit: [0-9.]+ (B|KiB) \(learnt" "$TMP/ul.show" ||
	{ cat "$TMP/ul.show"; die "show lacks the learnt underlay limit"; }
underlay_json a "${P}wa" auto -
cw a showconf "${P}wa" | grep -q "^UnderlayLimit" && die "showconf names the default limit"
cw a set "${P}wa" underlay-limit 32kb
cw a show "${P}wa" >"$TMP/ul.show"
grep -qE "^  underlay limit: 32\.00 KiB \(fixed(; drain [0-9.]+ [kMG]B/s)?\)$" "$TMP/ul.show" ||
	{ grep underlay "$TMP/ul.show"; die "show lacks the fixed 32kb limit"; }
underlay_json a "${P}wa" 32768 32768
cw a showconf "${P}wa" | grep -qx "UnderlayLimit = 32768" || die "showconf lacks UnderlayLimit"
ping_ok a 198.19.0.2 || die "the tunnel broke with a fixed underlay limit"
# The word ends a cake option string, and the two go in one request.
cw a set "${P}wa" cake bandwidth 30mbit underlay-limit off
cw a show "${P}wa" >"$TMP/ul.show"
grep -qx "  underlay limit: off" "$TMP/ul.show" || { grep underlay "$TMP/ul.show"; die "limit not off"; }
grep -q "^  cake (egress): bandwidth 30Mbit " "$TMP/ul.show" || die "cake before underlay-limit"
underlay_json a "${P}wa" off -
cw a showconf "${P}wa" | grep -qx "UnderlayLimit = off" || die "showconf lacks UnderlayLimit = off"
ping_ok a 198.19.0.2 || die "the tunnel broke without backpressure"
# showconf without the cakewg-only lines is still what wg setconf takes.
cw a showconf "${P}wa" | grep -vE '^(Cake|UnderlayLimit)' >"$TMP/wa.stripped"
n a wg setconf "${P}wa" "$TMP/wa.stripped"
cw a showconf "${P}wa" | grep -qx "UnderlayLimit = off" || die "wg setconf changed the limit"
cw a set "${P}wa" underlay-limit auto
cw a show "${P}wa" | grep -qE "^  underlay limit: [0-9.]+ (B|KiB) \(learnt" || die "limit not learnt again"
underlay_json a "${P}wa" auto -
cw a showconf "${P}wa" | grep -q "^UnderlayLimit" && die "showconf names auto"
# AutorateProbe comes back from the daemon, so showconf keeps it; off removes it.
cw a showconf "${P}wa" | grep -q "^AutorateProbe" && die "showconf names an unset probe"
cw a set "${P}wa" autorate-probe 198.19.0.2
cw a showconf "${P}wa" | grep -qx "AutorateProbe = 198.19.0.2" || die "showconf lacks AutorateProbe"
cw a set "${P}wa" autorate-probe off
cw a showconf "${P}wa" | grep -q "^AutorateProbe" && die "showconf keeps a probe set off"
ping_ok a 198.19.0.2 || die "the tunnel broke after the underlay changes"

log "== bad input: one line, exit 1, nothing changes"
before=$(state a "${P}wa")
B=$(cat "$TMP/b.pub")
fails_cleanly "unknown word" a "$CAKEWG" set "${P}wa" bogus
fails_cleanly "bad public key" a "$CAKEWG" set "${P}wa" peer notakey
grep -qx "Key is not the correct length or format: \`notakey'" "$TMP/fail.err" || die "wrong message"
fails_cleanly "bad port" a "$CAKEWG" set "${P}wa" listen-port 70000
fails_cleanly "bad fwmark" a "$CAKEWG" set "${P}wa" fwmark 0xzz
fails_cleanly "missing key file" a "$CAKEWG" set "${P}wa" private-key "$TMP/none"
printf 'short\n' >"$TMP/short.key"
fails_cleanly "short key file" a "$CAKEWG" set "${P}wa" private-key "$TMP/short.key"
fails_cleanly "endpoint without port" a "$CAKEWG" set "${P}wa" peer "$B" endpoint 1.2.3.4
fails_cleanly "endpoint without brace" a "$CAKEWG" set "${P}wa" peer "$B" endpoint "[::1:5"
fails_cleanly "unresolvable endpoint" a env WG_ENDPOINT_RESOLUTION_RETRIES=0 \
	"$CAKEWG" set "${P}wa" peer "$B" endpoint no-such-host.invalid:1
fails_cleanly "bad cidr" a "$CAKEWG" set "${P}wa" peer "$B" allowed-ips 10.0.0.0/33
fails_cleanly "bad allowed ip" a "$CAKEWG" set "${P}wa" peer "$B" allowed-ips 10.0.0.256/32
fails_cleanly "bad keepalive" a "$CAKEWG" set "${P}wa" peer "$B" persistent-keepalive 65536
fails_cleanly "peer word before a peer" a "$CAKEWG" set "${P}wa" remove
fails_cleanly "device word after a peer" a "$CAKEWG" set "${P}wa" peer "$B" listen-port 1
fails_cleanly "bad CAKE word" a "$CAKEWG" set "${P}wa" listen-port 10099 cake bandwidth 1mbit bogus
grep -q "bogus" "$TMP/fail.err" || die "the CAKE error does not name the word"
fails_cleanly "bad CAKE value" a "$CAKEWG" set "${P}wa" cake bandwidth fast
fails_cleanly "bad ingress word" a "$CAKEWG" set "${P}wa" ingress diffserv9
fails_cleanly "bad cake-ingress word" a "$CAKEWG" set "${P}wa" cake-ingress diffserv9
fails_cleanly "empty cake-ingress" a "$CAKEWG" set "${P}wa" cake-ingress
fails_cleanly "empty cake" a "$CAKEWG" set "${P}wa" cake
fails_cleanly "underlay limit too large" a "$CAKEWG" set "${P}wa" listen-port 10099 underlay-limit 1mb
grep -qx "Underlay limit is neither auto, off nor 8192-393216 bytes: \`1mb'" "$TMP/fail.err" ||
	die "the underlay limit error does not name the word"
fails_cleanly "underlay limit garbage" a "$CAKEWG" set "${P}wa" underlay-limit 32kbx
grep -q "\`32kbx'" "$TMP/fail.err" || die "the underlay limit error does not name the word"
fails_cleanly "underlay limit zero" a "$CAKEWG" set "${P}wa" underlay-limit 0
fails_cleanly "underlay limit without a value" a "$CAKEWG" set "${P}wa" underlay-limit
fails_cleanly "missing interface" a "$CAKEWG" set "${P}none" listen-port 1
grep -qx "Unable to modify interface: No such device" "$TMP/fail.err" || die "wrong message"
after=$(state a "${P}wa")
[ "$before" = "$after" ] || { diff <(echo "$before") <(echo "$after"); die "bad input changed the device"; }
rc=0
cw a set "${P}wa" >/dev/null 2>&1 || rc=$?
[ $rc = 1 ] || die "set without words exits $rc"

if command -v wireguard-go >/dev/null; then
	log "== against wireguard-go"
	start_wggo a "${P}wg"
	cw a set "${P}wg" private-key "$TMP/c.key" listen-port 10041 peer "$D" \
		endpoint 192.0.2.9:9 allowed-ips 10.12.0.0/16 persistent-keepalive 15
	fields_agree a "${P}wg"
	pretty_agrees a "${P}wg"
	cw a show "${P}wg" | grep -q "cake" && die "a CAKE section for wireguard-go"
	cw a show --json "${P}wg" | python3 -c 'import json,sys; assert json.load(sys.stdin)["cake"] is None' ||
		die "JSON cake is not null for wireguard-go"
	before=$(n a wg show "${P}wg" dump | cut -f1-4,8)
	fails_cleanly "cake on wireguard-go" a "$CAKEWG" set "${P}wg" listen-port 10042 cake bandwidth 1mbit
	grep -qx "Unable to modify interface: Invalid argument" "$TMP/fail.err" || die "wrong message"
	fails_cleanly "underlay-limit on wireguard-go" a "$CAKEWG" set "${P}wg" listen-port 10042 \
		underlay-limit 32kb
	grep -qx "Unable to modify interface: Invalid argument" "$TMP/fail.err" || die "wrong message"
	[ "$before" = "$(n a wg show "${P}wg" dump | cut -f1-4,8)" ] || die "the refused set changed wireguard-go"
	cw a showconf "${P}wg" >"$TMP/wg.conf"
	n a wg showconf "${P}wg" | cmp -s - "$TMP/wg.conf" || die "showconf differs on wireguard-go"
else
	skip_part "no wireguard-go: the commands are not compared against it"
fi

log "PASS"
