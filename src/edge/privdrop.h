/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Least privilege for the daemon, once its TUN device, underlay sockets, UAPI socket and
 * netlink sockets are open:
 *  - started as root, it becomes a system user: `cakewg' by default (the package creates
 *    it), `nobody' when that does not exist (logged: it works from a build tree), or the
 *    one asked for (--user / CAKEWG_USER; an error when it does not exist), with no
 *    supplementary groups; the UAPI socket janitor (src/edge/uapi_janitor.h) stays
 *    behind to remove the socket file at exit;
 *  - started as another user (with CAP_NET_ADMIN, e.g. as an ambient capability), it
 *    stays that user;
 *  - either way it keeps only CAP_NET_ADMIN (SO_MARK for fwmark=, the forced buffer
 *    sizes of a rebind) and CAP_NET_BIND_SERVICE when the listen port given at start is
 *    below 1024, or when none was given (the port is still to come through the UAPI, as
 *    stock wg-quick sets it); the bounding, inheritable and ambient sets
 *    are emptied and no_new_privs is set. After the switch, setuid(0) must fail.
 * CAKEWG_USER=root or --no-drop-privileges keeps root and every capability.
 * Capabilities are per thread: the drop refuses to run (-EBUSY) once a second thread
 * exists, which would keep root's; start threads after it.
 */
#ifndef CAKEWG_SRC_EDGE_PRIVDROP_H
#define CAKEWG_SRC_EDGE_PRIVDROP_H

#include <stdbool.h>
#include <stdint.h>

#define WG_PRIVDROP_DEFAULT_USER "cakewg"
#define WG_PRIVDROP_FALLBACK_USER "nobody"
#define WG_PRIVDROP_KEEP_ROOT "root"

struct wg_privdrop_conf {
	const char *user; /* NULL: WG_PRIVDROP_DEFAULT_USER, else WG_PRIVDROP_FALLBACK_USER */
	bool keep_root;   /* --no-drop-privileges, CAKEWG_USER=root */
	bool bind_service; /* a port below 1024 is, or may still be, configured */
};

/* Fills conf from the option (--user, may be NULL), the flag and CAKEWG_USER's value
 * (may be NULL); the option wins over the variable. */
void wg_privdrop_conf_init(struct wg_privdrop_conf *conf, const char *opt_user, bool keep_root,
			   const char *env_user);
/* Drops as described above; the UAPI socket is at uapi_path. 0 or -errno (logged). */
int wg_privdrop_apply(const struct wg_privdrop_conf *conf, const char *uapi_path);

#endif
