#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Least privilege (src/edge/privdrop.h, src/edge/seccomp.h, src/edge/uapi_janitor.h), in
# lib.sh's two-namespace topology:
#
#   ns $P-a: cakewg $P"wa" (dropped)        ns $P-b: wireguard-go $P"wb"
#            198.19.0.1/24 fd00:19::1/64 <----> 198.19.0.2/24 fd00:19::2/64
#            veth $P"a" 198.18.0.1/24            veth $P"b" 198.18.0.2/24
#
# 1. Started as root with a port of 1024 or above, the daemon runs as the system user
#    (`cakewg', else `nobody') with CapEff = cap_net_admin alone, NoNewPrivs 1 and
#    Seccomp 2 (filter); its socket janitor keeps uid 0 without any capability, also
#    filtered. Prints both status. Started without a port (as stock wg-quick starts it),
#    it also keeps cap_net_bind_service, and a port below 1024 set later binds.
# 2. Interop with wireguard-go with the drop on: handshake, ping both ways, `wg show`,
#    `wg set listen-port` (a rebind), `wg set fwmark`, an MTU change.
# 3. `cakewg up` with ListenPort 853 (below 1024): cap_net_bind_service kept, a rebind to
#    854 and back; SaveConfig on `down` writes the port; the socket is gone after.
# 4. CAKEWG_TEST_FORBIDDEN_SYSCALL=1: the daemon's mount(2) ends it with SIGSYS (the
#    kernel's audit line is printed) and its socket file is removed; with
#    CAKEWG_SECCOMP=log the call is only logged and the daemon keeps running.
# 5. Not root but holding CAP_NET_ADMIN (setpriv, ambient), in a private mount namespace
#    whose /var/run/wireguard is its own: it starts and stays that user; without the
#    capability it refuses with a message that names it. An unknown --user is an error.
source "$(dirname "$0")/lib.sh"
require_root wg wireguard-go setpriv nsenter dmesg python3

STATUS_KEYS='^(Uid|Gid|Groups|CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):'
CAP_NET_ADMIN=0000000000001000
CAP_NET_ADMIN_BIND=0000000000001400 # and cap_net_bind_service
UNPRIV=65534

# pid_of NS IF [janitor]: the daemon serving IF in NS, or its socket janitor (both have
# the daemon's command line; `cakewg up' starts the daemon as /proc/self/exe).
pid_of() {
	local pid comm
	for pid in $(ip netns pids "$P-$1"); do
		comm=$(cat "/proc/$pid/comm" 2>/dev/null) || continue
		if [ -n "${3:-}" ]; then
			[ "$comm" = cakewg-janitor ] || continue
		else
			[ "$comm" != cakewg-janitor ] || continue
		fi
		case "$(tr '\0' ' ' <"/proc/$pid/cmdline")" in
		*cakewg*" $2" | *cakewg*" $2 "*) echo "$pid"; return 0 ;;
		esac
	done
	return 1
}

# field PID NAME: a /proc/PID/status field, its first value.
field() { awk -v k="$2:" '$1 == k { print $2; exit }' "/proc/$1/status"; }

# show_status WHAT PID: prints the privilege lines of /proc/PID/status.
show_status() {
	log "$1 (pid $2): $(tr -d '\0' <"/proc/$2/comm")"
	grep -E "$STATUS_KEYS" "/proc/$2/status" | sed 's/^/    /'
}

# dropped PID EFFECTIVE: the status a dropped daemon must show.
dropped() {
	[ "$(field "$1" Uid)" != 0 ] || die "pid $1 still runs as root"
	[ "$(field "$1" CapEff)" = "$2" ] || die "pid $1: CapEff $(field "$1" CapEff), not $2"
	[ "$(field "$1" CapPrm)" = "$2" ] || die "pid $1: CapPrm $(field "$1" CapPrm), not $2"
	[ "$(field "$1" CapInh)" = 0000000000000000 ] || die "pid $1: inheritable capabilities"
	[ "$(field "$1" CapAmb)" = 0000000000000000 ] || die "pid $1: ambient capabilities"
	[ "$(field "$1" NoNewPrivs)" = 1 ] || die "pid $1: NoNewPrivs is not 1"
	[ "$(field "$1" Seccomp)" = 2 ] || die "pid $1: Seccomp is not 2 (filter)"
}

log "== 1. the daemon's privileges after the drop"
CAKEWG_LISTEN_PORT=10001 pair cakewg wggo 4
A=$(pid_of a "${P}wa") || die "no cakewg daemon"
J=$(pid_of a "${P}wa" janitor) || die "no socket janitor"
show_status "cakewg daemon" "$A"
show_status "socket janitor" "$J"
dropped "$A" $CAP_NET_ADMIN
[ "$(field "$A" CapBnd)" = $CAP_NET_ADMIN ] || die "the bounding set is not cap_net_admin alone"
user=$(id -nu "$(field "$A" Uid)")
case "$user" in cakewg | nobody) ;; *) die "the daemon runs as $user" ;; esac
grep -q "Dropped privileges: uid [0-9]* ($user)" "$TMP/cakewg-${P}wa.log" || die "no drop logged"
[ "$(field "$J" Uid)" = 0 ] && [ "$(field "$J" CapEff)" = 0000000000000000 ] &&
	[ "$(field "$J" CapPrm)" = 0000000000000000 ] && [ "$(field "$J" Seccomp)" = 2 ] ||
	die "the janitor keeps capabilities or runs unfiltered"
[ "$(stat -c '%U %a' "/var/run/wireguard/${P}wa.sock")" = "root 700" ] ||
	die "the UAPI socket is not root's, mode 0700"
start_cakewg a "${P}wz"
Z=$(pid_of a "${P}wz") || die "no cakewg daemon for ${P}wz"
dropped "$Z" $CAP_NET_ADMIN_BIND
n a wg set "${P}wz" listen-port 853 || die "a port below 1024 set after the start"
[ "$(n a wg show "${P}wz" listen-port)" = 853 ] || die "${P}wz does not listen on 853"
log "started without a port: $(field "$Z" CapEff), and binds 853 after the drop"

log "== 2. interop with wireguard-go, the drop on"
ping_ok a 198.19.0.2 || die "ping a -> b"
ping_ok b 198.19.0.1 || die "ping b -> a"
ping_ok b fd00:19::1 || die "IPv6 ping b -> a"
[ "$(n a wg show "${P}wa" latest-handshakes | cut -f2)" -gt 0 ] || die "no handshake"
n a wg show "${P}wa" | grep -q "listening port: 10001" || die "wg show"
n a wg set "${P}wa" listen-port 10011 || die "wg set listen-port after the drop"
[ "$(n a wg show "${P}wa" listen-port)" = 10011 ] || die "the listen port did not change"
n a ss -uln | grep -q ':10011 ' || die "nothing listens on 10011"
ping_ok a 198.19.0.2 || die "ping after the rebind"
n a wg set "${P}wa" fwmark 0x1234 || die "wg set fwmark after the drop"
[ "$(n a wg show "${P}wa" fwmark)" = 0x1234 ] || die "the fwmark did not change"
ping_ok a 198.19.0.2 || die "ping after the fwmark change"
n a ip link set "${P}wa" mtu 1300
n a ping -q -c 2 -i 0.2 -W 2 -M do -s 1200 198.19.0.2 >/dev/null || die "ping at MTU 1300"
wait_for 2 grep -q "MTU is now 1300" "$TMP/cakewg-${P}wa.log" || die "the MTU change was not seen"
[ "$(field "$A" Seccomp)" = 2 ] || die "the daemon is gone"
teardown_pair

log "== 3. cakewg up with ListenPort 853; rebinding; SaveConfig on down"
pair_underlay
keypair a
keypair b
cat >"$TMP/${P}wa.conf" <<EOF
[Interface]
PrivateKey = $(cat "$TMP/a.key")
ListenPort = 853
Address = 198.19.0.1/24
SaveConfig = true
[Peer]
PublicKey = $(cat "$TMP/b.pub")
AllowedIPs = 198.19.0.2/32
EOF
n a "$CAKEWG" up "$TMP/${P}wa.conf" 2>"$TMP/up.err" || { cat "$TMP/up.err"; die "up"; }
A=$(pid_of a "${P}wa") || die "no daemon after up"
show_status "cakewg daemon, ListenPort 853" "$A"
dropped "$A" $CAP_NET_ADMIN_BIND
n a wg set "${P}wa" listen-port 854 || die "rebinding to 854"
n a wg set "${P}wa" listen-port 853 || die "rebinding to 853 again"
n a wg set "${P}wa" listen-port 854 || die "rebinding to 854 again"
n a "$CAKEWG" down "$TMP/${P}wa.conf" 2>"$TMP/down.err" || { cat "$TMP/down.err"; die "down"; }
grep -qx "ListenPort = 854" "$TMP/${P}wa.conf" || { cat "$TMP/${P}wa.conf"; die "not saved"; }
[ ! -e "/var/run/wireguard/${P}wa.sock" ] || die "the UAPI socket is left after down"
teardown_pair

log "== 4. a forbidden system call ends the daemon"
mkns a
n a env LOG_LEVEL=verbose CAKEWG_TEST_FORBIDDEN_SYSCALL=1 "$CAKEWG" -f "${P}wk" \
	>"$TMP/cakewg-${P}wk.log" 2>&1 &
rc=0
wait $! || rc=$?
[ $rc = $((128 + 31)) ] || { cat "$TMP/cakewg-${P}wk.log"; die "exit status $rc, not SIGSYS"; }
log "the daemon ended with status $rc (SIGSYS); the kernel's last such line:"
dmesg | grep 'type=1326 .*comm="cakewg" .* sig=31 .* syscall=165 ' | tail -n 1 | sed 's/^/    /'
uapi_gone 2 "${P}wk" || die "the killed daemon's socket is left"
n a env LOG_LEVEL=verbose CAKEWG_SECCOMP=log CAKEWG_TEST_FORBIDDEN_SYSCALL=1 "$CAKEWG" -f "${P}wl" \
	>"$TMP/cakewg-${P}wl.log" 2>&1 &
wait_for 5 test -S "/var/run/wireguard/${P}wl.sock" || die "the log-mode daemon did not start"
sleep 0.3
L=$(pid_of a "${P}wl") || die "CAKEWG_SECCOMP=log: the daemon died"
n a wg show "${P}wl" >/dev/null || die "CAKEWG_SECCOMP=log: the daemon does not answer"
grep -q "System call filter: log" "$TMP/cakewg-${P}wl.log" || die "log mode not logged"
log "CAKEWG_SECCOMP=log: pid $L survived the call; the kernel said:"
dmesg | grep "type=1326 .* pid=$L .* syscall=165 " | tail -n 1 | sed 's/^/    /'
teardown_pair

log "== 5. not root, with CAP_NET_ADMIN; without it; an unknown user"
mkns a
# ip netns exec gives each command its own mount namespace: this one gets a private
# /var/run/wireguard that the unprivileged user may write, and a /dev/net/tun of Debian's
# mode 0666 (containers may have made it 0600).
n a sh -c 'mount -t tmpfs -o mode=0755,uid=$2,gid=$2 cakewg-test /var/run/wireguard &&
	mount -t tmpfs -o mode=0755 cakewg-test /dev/net && mknod -m 0666 /dev/net/tun c 10 200 &&
	exec setpriv --reuid=$2 --regid=$2 --clear-groups --inh-caps=+net_admin \
		--ambient-caps=+net_admin env LOG_LEVEL=verbose "$0" -f "$1"' \
	"$CAKEWG" "${P}wn" $UNPRIV >"$TMP/cakewg-${P}wn.log" 2>&1 &
wait_for 5 pid_of a "${P}wn" || { cat "$TMP/cakewg-${P}wn.log"; die "the non-root daemon did not start"; }
N=$(pid_of a "${P}wn")
wait_for 5 grep -q "Device started" "$TMP/cakewg-${P}wn.log" || die "the non-root daemon is not ready"
show_status "cakewg daemon started as uid $UNPRIV with cap_net_admin" "$N"
[ "$(field "$N" Uid)" = $UNPRIV ] || die "the non-root daemon changed user"
dropped "$N" $CAP_NET_ADMIN
nsenter -t "$N" -m -n wg set "${P}wn" private-key "$TMP/a.key" listen-port 10021 fwmark 7 ||
	die "wg set on the non-root daemon"
[ "$(nsenter -t "$N" -m -n wg show "${P}wn" fwmark)" = 0x7 ] || die "non-root: fwmark"
if n a setpriv --reuid=$UNPRIV --regid=$UNPRIV --clear-groups "$CAKEWG" -f "${P}wx" \
	2>"$TMP/nocap.err"; then die "started without CAP_NET_ADMIN"; fi
grep -qx "cakewg: creating a TUN device needs the CAP_NET_ADMIN capability" "$TMP/nocap.err" ||
	{ cat "$TMP/nocap.err"; die "wrong message without the capability"; }
if n a "$CAKEWG" -f --user no-such-user-"$P" "${P}wu" 2>"$TMP/nouser.err"; then
	die "started as an unknown user"
fi
grep -q "User \`no-such-user-$P' does not exist" "$TMP/nouser.err" ||
	{ cat "$TMP/nouser.err"; die "wrong message for an unknown user"; }
[ ! -e "/var/run/wireguard/${P}wu.sock" ] || die "a socket is left by the refused daemon"
echo PASS
