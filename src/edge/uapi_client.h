/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The client side of the UAPI: what `cakewg show`, `cakewg set` and `cakewg up` use to
 * talk to a running daemon (cakewg's or wireguard-go's) at
 * /var/run/wireguard/<ifname>.sock.
 */
#ifndef CAKEWG_SRC_EDGE_UAPI_CLIENT_H
#define CAKEWG_SRC_EDGE_UAPI_CLIENT_H

#include <stddef.h>

#include "src/core/devconf.h"

/*
 * Sends request (a complete request: its lines and the closing blank line) to ifname's
 * socket and reads the whole reply, up to and including the final "errno=N" line and the
 * blank line after it, into *reply (NUL-terminated, caller frees with
 * wg_devconf_buf_wipe since it may hold keys). Returns 0 on a complete exchange (then
 * *remote_errno holds N, negated to the kernel convention: 0 or a negative errno), or
 * -errno when the socket could not be reached (-ENOENT: no such interface) or the reply
 * was cut short (-EPROTO).
 */
int wg_uapi_client_request(const char *ifname, const char *request, size_t len,
			   struct wg_devconf_buf *reply, int *remote_errno);

/* Lists the interfaces that have a UAPI socket, sorted, as a NUL-separated array of names
 * (*names, count in *n; free with free()). Returns 0 or -errno. */
int wg_uapi_client_list(char **names, size_t *n);

#endif
