#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The install tree and the Debian package (cmake/CakewgInstall.cmake):
#  - `cmake --install` (DESTDIR, prefix /usr) puts exactly the expected files in place:
#    cakewg in sbin, the man pages in man5/man8, the units, sysusers.d, the docs; the
#    service runs the installed binary with WG_ENDPOINT_RESOLUTION_RETRIES=infinity;
#  - `cpack -G DEB` makes one .deb with the same files, the Depends the daemon needs,
#    a postinst that creates the user cakewg, and a binary that runs once extracted;
#  - `systemd-analyze verify` accepts the units, with the package's /usr/sbin and man
#    pages bound in place in a private mount namespace (so it also checks that
#    Documentation= names installed man pages);
#  - with CI=true or CAKEWG_TEST_DEB_INSTALL=1, and only on a machine without cakewg
#    installed: the package installed for real (apt-get, which pulls its Depends),
#    `cakewg --version` run from PATH, the user there, the units verified against the
#    system, and the package purged again (also on failure).
# Usage: test-install.sh BUILD_DIR. Needs root (a private mount namespace, dpkg).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
ci=${CI:-false}
real=${CAKEWG_TEST_DEB_INSTALL:-$ci}

die() { echo "FAIL: $*" >&2; exit 1; }
log() { echo "[$(date +%T)] $*"; }
# A missing prerequisite skips the test, except under CI, where it fails it.
cannot() {
	[ "$ci" = true ] && die "$* (CI=true: no skip)"
	echo "SKIP: $*"
	exit 77
}
[ "$(id -u)" -eq 0 ] || cannot "needs root"
for t in cpack dpkg-deb dpkg-shlibdeps systemd-analyze unshare man; do
	command -v "$t" >/dev/null || cannot "needs $t"
done

TMP=$(mktemp -d /tmp/cakewg-install.XXXX)
installed=false
cleanup() {
	local rc=$?
	set +e
	if $installed; then
		DEBIAN_FRONTEND=noninteractive dpkg --purge cakewg >/dev/null
	fi
	rm -rf "$TMP"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
[ -n "$version" ] || die "no project version in $build/CMakeCache.txt"
expected="./usr/lib/systemd/system/cakewg.target
./usr/lib/systemd/system/cakewg@.service
./usr/lib/sysusers.d/cakewg.conf
./usr/sbin/cakewg
./usr/share/doc/cakewg/README.md
./usr/share/doc/cakewg/copyright
./usr/share/man/man5/cakewg.conf.5
./usr/share/man/man8/cakewg.8"

# unit_ok FILE SBIN: the service runs SBIN/cakewg, and resolves endpoints forever.
unit_ok() {
	grep -qx "ExecStart=$2/cakewg up %i" "$1" || die "$1: ExecStart is not $2/cakewg up %i"
	grep -qx "ExecStop=$2/cakewg down %i" "$1" || die "$1: ExecStop is not $2/cakewg down %i"
	grep -qx "Environment=WG_ENDPOINT_RESOLUTION_RETRIES=infinity" "$1" ||
		die "$1: no WG_ENDPOINT_RESOLUTION_RETRIES=infinity"
	grep -q "@CAKEWG" "$1" && die "$1: a placeholder is left"
	return 0
}

log "== cmake --install, DESTDIR, prefix /usr"
DESTDIR="$TMP/root" cmake --install "$build" --prefix /usr >"$TMP/install.log" ||
	{ cat "$TMP/install.log"; die "cmake --install failed"; }
got=$(cd "$TMP/root" && find . ! -type d | sort)
[ "$got" = "$expected" ] || { diff <(echo "$expected") <(echo "$got"); die "install tree differs"; }
[ -x "$TMP/root/usr/sbin/cakewg" ] || die "cakewg is not executable"
unit_ok "$TMP/root/usr/lib/systemd/system/cakewg@.service" /usr/sbin
log "== cmake --install, another prefix: the service follows it"
DESTDIR="$TMP/opt" cmake --install "$build" --prefix /opt/cw >/dev/null
unit_ok "$TMP/opt/opt/cw/lib/systemd/system/cakewg@.service" /opt/cw/sbin

log "== cpack -G DEB"
(cd "$TMP" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$TMP/pkg" >"$TMP/cpack.log" 2>&1) ||
	{ cat "$TMP/cpack.log"; die "cpack failed"; }
debs=("$TMP"/pkg/cakewg_*.deb)
[ ${#debs[@]} = 1 ] && [ -f "${debs[0]}" ] || die "not one .deb: ${debs[*]}"
deb=${debs[0]}
got=$(dpkg-deb --fsys-tarfile "$deb" | tar -t | grep -v '/$' | sort)
[ "$got" = "$expected" ] || { diff <(echo "$expected") <(echo "$got"); die "the .deb's files differ"; }
dpkg-deb -c "$deb" >"$TMP/contents"
grep -q '^-rwxr-xr-x root/root .* \./usr/sbin/cakewg$' "$TMP/contents" ||
	die "cakewg is not root-owned mode 755 in the .deb"
[ "$(dpkg-deb -f "$deb" Package)" = cakewg ] || die "package name"
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || die "package version is not $version"
depends=$(dpkg-deb -f "$deb" Depends)
# libssl3: the OpenSSL AEAD backend, the default wherever libcrypto is found.
for p in libc6 libsodium23 libev4 libmnl0 libnftnl11 libseccomp2 libssl3 adduser; do
	grep -qE "(^|, )$p( |,|$)" <<<"$depends" || die "Depends lacks $p: $depends"
done
dpkg-deb -e "$deb" "$TMP/control"
for s in postinst postrm; do
	[ -x "$TMP/control/$s" ] || die "no executable $s"
	sh -n "$TMP/control/$s" || die "$s is not valid sh"
done
grep -q "adduser --system --group --no-create-home .*cakewg" "$TMP/control/postinst" ||
	die "postinst does not create the user cakewg"
dpkg-deb -x "$deb" "$TMP/x"
[ "$("$TMP/x/usr/sbin/cakewg" --version)" = "cakewg v$version" ] || die "the packaged cakewg does not run"
unit_ok "$TMP/x/usr/lib/systemd/system/cakewg@.service" /usr/sbin

log "== systemd-analyze verify, the package's files bound over /usr/sbin and /usr/share/man"
units=("$TMP/x/usr/lib/systemd/system/cakewg@wg0.service" "$TMP/x/usr/lib/systemd/system/cakewg.target")
if ! unshare --mount --propagation private bash -c '
	mount --bind "$1/usr/sbin" /usr/sbin && mount --bind "$1/usr/share/man" /usr/share/man &&
	shift && systemd-analyze verify "$@"' verify "$TMP/x" "${units[@]}" >"$TMP/verify.log" 2>&1 ||
	[ -s "$TMP/verify.log" ]; then
	cat "$TMP/verify.log"
	die "systemd-analyze verify refused the units"
fi

if [ "$real" != true ] && [ "$real" != 1 ]; then
	log "== not installed for real (set CAKEWG_TEST_DEB_INSTALL=1, or CI=true)"
	exit 0
fi
log "== apt-get install the .deb, run it, purge it"
if dpkg-query -W -f='${Status}' cakewg 2>/dev/null | grep -q installed || [ -e /usr/sbin/cakewg ]; then
	die "cakewg is installed on this machine already: not touching it"
fi
installed=true
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$deb" \
	>"$TMP/apt.log" 2>&1 || { cat "$TMP/apt.log"; die "apt-get install of the .deb failed"; }
[ "$(PATH=/usr/sbin:/usr/bin:/sbin:/bin cakewg --version)" = "cakewg v$version" ] ||
	die "the installed cakewg does not run"
getent passwd cakewg >/dev/null || die "postinst did not create the user cakewg"
man -w 8 cakewg >/dev/null && man -w 5 cakewg.conf >/dev/null || die "man does not find the pages"
systemd-analyze verify cakewg@wg0.service cakewg.target >"$TMP/verify.log" 2>&1 &&
	[ ! -s "$TMP/verify.log" ] || { cat "$TMP/verify.log"; die "the installed units do not verify"; }
DEBIAN_FRONTEND=noninteractive dpkg --purge cakewg >/dev/null || die "dpkg --purge failed"
installed=false
[ ! -e /usr/sbin/cakewg ] && [ ! -e /usr/lib/systemd/system/cakewg@.service ] ||
	die "the purge left files behind"
log "PASS"
