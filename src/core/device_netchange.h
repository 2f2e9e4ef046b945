/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the device does when the network under it changes, and with the host names its
 * endpoints came from. The edge watches rtnetlink and resolves names (getaddrinfo is
 * I/O); the device decides:
 *
 *  - a peer configured with endpoint_host= keeps the name beside the address; a request
 *    that sets an endpoint without a name (stock `wg set ... endpoint IP:port`) makes it
 *    forget the name. src/core/reresolve.h says when the name is due again;
 *  - an answer that names another address moves the endpoint there (the sticky source
 *    forgotten) and starts a handshake;
 *  - after a burst of network changes (debounced, src/core/netchange.h) the edge looks up
 *    the route to each peer's endpoint and hands it over as a struct wg_path; a peer
 *    whose route moved (another interface, source or gateway, or reachable again) has
 *    its sticky source forgotten, so the kernel picks one that exists on the new path,
 *    its name marked due, and, when it is in use (a current session, packets waiting,
 *    or a persistent keepalive), a handshake started at once, within the REKEY_TIMEOUT
 *    limit wg_device_send_initiation keeps; then autorate's delay baselines restart.
 */
#ifndef CAKEWG_SRC_CORE_DEVICE_NETCHANGE_H
#define CAKEWG_SRC_CORE_DEVICE_NETCHANGE_H

#include <stdbool.h>
#include <stdint.h>

#include "src/core/devconf.h"
#include "src/core/endpoint.h"
#include "src/core/ipaddr.h"

struct wg_device;
struct wg_peer;

/* From a `set` record: keeps the record's endpoint_host (resolved already when the record
 * has an address too, else due at once), or forgets the name when the record sets an
 * address alone. */
void wg_device_peer_set_endpoint_name(struct wg_peer *peer, const struct wg_devconf_peer *pc,
				      uint64_t now_ns);

/* The peer's name resolved to addr (port included). Moves the endpoint when addr is
 * another address, and returns whether it did. */
bool wg_device_endpoint_resolved(struct wg_device *dev, struct wg_peer *peer,
				 const union wg_ipaddr_sockaddr *addr, uint64_t now_ns);

/* The peer's lookup failed (why: the resolver's text): counted, logged on the first
 * failure of a run; the endpoint stays. */
void wg_device_endpoint_resolve_failed(struct wg_device *dev, struct wg_peer *peer,
				       const char *why, uint64_t now_ns);

/* Records the route to the peer's endpoint. True when it differs from the one recorded
 * before; the first one recorded is only a baseline. */
bool wg_device_peer_path_note(struct wg_peer *peer, const struct wg_path *path);

/* The route to the peer's endpoint moved. Returns whether a handshake was asked for. */
bool wg_device_peer_path_changed(struct wg_device *dev, struct wg_peer *peer, uint64_t now_ns);

#endif
