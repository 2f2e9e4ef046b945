# SPDX-License-Identifier: GPL-2.0-only
# `cmake --install` and the Debian package (`cpack -G DEB`): cakewg in sbin, the man
# pages in their sections, the systemd units (dist/systemd/) and the user the daemon
# may drop to. tests/install/ checks the tree and the package.
include(GNUInstallDirs)
set(CAKEWG_SYSTEMD_UNIT_DIR "lib/systemd/system" CACHE STRING
	"Where the systemd units go, relative to the install prefix")
set(CAKEWG_SYSUSERS_DIR "lib/sysusers.d" CACHE STRING
	"Where the sysusers.d(5) file goes, relative to the install prefix")

install(TARGETS cakewg RUNTIME DESTINATION ${CMAKE_INSTALL_SBINDIR})
install(FILES doc/cakewg.8 DESTINATION ${CMAKE_INSTALL_MANDIR}/man8)
install(FILES doc/cakewg.conf.5 DESTINATION ${CMAKE_INSTALL_MANDIR}/man5)
install(FILES README.md dist/debian/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES dist/systemd/cakewg.target DESTINATION ${CAKEWG_SYSTEMD_UNIT_DIR})
install(FILES dist/systemd/cakewg.sysusers DESTINATION ${CAKEWG_SYSUSERS_DIR}
	RENAME cakewg.conf)
# The service names the installed binary, and the prefix is known only when installing
# (cpack installs under /usr, `cmake --install --prefix` anywhere): written then.
if(IS_ABSOLUTE "${CMAKE_INSTALL_SBINDIR}")
	set(cakewg_sbin "${CMAKE_INSTALL_SBINDIR}")
else()
	set(cakewg_sbin "\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_SBINDIR}")
endif()
install(CODE "
	set(CAKEWG_SBIN \"${cakewg_sbin}\")
	configure_file(\"${PROJECT_SOURCE_DIR}/dist/systemd/cakewg@.service.in\"
		\"${PROJECT_BINARY_DIR}/dist/cakewg@.service\" @ONLY)
	file(INSTALL DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CAKEWG_SYSTEMD_UNIT_DIR}\"
		TYPE FILE FILES \"${PROJECT_BINARY_DIR}/dist/cakewg@.service\")
")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME cakewg)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "cakewg maintainers <cakewg@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
	"userspace WireGuard endpoint with the CAKE scheduler inside the tunnel")
set(CPACK_PACKAGE_DESCRIPTION
	"cakewg speaks the WireGuard protocol and UAPI, and runs CAKE (sch_cake) between the
classification of the inner packet and its encryption: flow fairness, an AQM and a
shaper that counts the datagrams on the wire. `cakewg up` replaces wg-quick; the
cakewg@.service units run it at boot.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
# What the daemon links, also those of its parts that other branches add (nftables,
# seccomp), and adduser for postinst; dpkg-shlibdeps adds the exact versions.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libsodium23, libev4, libmnl0, libnftnl11, libseccomp2, adduser")
if(LIBCRYPTO_FOUND) # crypto/aead_openssl.c: libcrypto.so.3 is in libssl3
	string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", libssl3")
endif()
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "wireguard-tools")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "systemd-resolved | resolvconf")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
	"${PROJECT_SOURCE_DIR}/dist/debian/postinst;${PROJECT_SOURCE_DIR}/dist/debian/postrm")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
