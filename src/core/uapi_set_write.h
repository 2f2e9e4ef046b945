/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The client side of a UAPI `set=1` request: a struct wg_devconf written as the text
 * that wireguard-tools' userspace_set_device (ipc-uapi.h) sends, so that `cakewg up`
 * can configure a daemon in one request. It is the inverse of wg_uapi_set_parse():
 * parsing the lines between "set=1" and the blank line gives back the same
 * configuration (flags, keys, numbers, endpoints, allowed IPs in order, CAKE strings).
 *
 * Order: cakewg's cake, cake_ingress and underlay_limit first (wireguard-go, which knows
 * none of them, then refuses the request before it applied any line), then as
 * wireguard-tools writes it:
 * private_key, listen_port, fwmark, replace_peers; per peer public_key, then either
 * remove=true alone or update_only, preshared_key, endpoint,
 * persistent_keepalive_interval, replace_allowed_ips and one allowed_ip per entry
 * ("-prefix" for a removal). Keys are lowercase hex, never base64.
 */
#ifndef CAKEWG_SRC_CORE_UAPI_SET_WRITE_H
#define CAKEWG_SRC_CORE_UAPI_SET_WRITE_H

#include "src/core/devconf.h"

/*
 * Appends the whole request to out: "set=1", the key=value lines and the closing blank
 * line. Returns 0; -EINVAL when conf cannot be expressed (a peer without a public key,
 * a CAKE string holding a line break); -EDESTADDRREQ when a peer's endpoint is still a
 * name (WG_DEVCONF_PEER_HAS_ENDPOINT_HOST without a resolved HAS_ENDPOINT: resolve it
 * first); -ENOMEM. On error out may hold a partial request: wipe it, as on success,
 * since it holds keys.
 */
int wg_uapi_set_write(const struct wg_devconf *conf, struct wg_devconf_buf *out);

#endif
