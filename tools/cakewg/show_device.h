/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What `show` and `showconf` know of one interface: the `get=1` reply as a devconf, the
 * public key derived from its private key (as wireguard-tools' ipc-uapi.h derives it),
 * and, when asked for and the daemon speaks it, the `cakewg_get=1` extension reply.
 */
#ifndef CAKEWG_TOOLS_CAKEWG_SHOW_DEVICE_H
#define CAKEWG_TOOLS_CAKEWG_SHOW_DEVICE_H

#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include "src/core/devconf.h"
#include "src/core/uapi_reply.h"

struct show_device {
	char name[IFNAMSIZ];
	struct wg_devconf *conf;
	bool has_public_key;
	uint8_t public_key[WG_ENCODING_KEY_LEN];
	bool has_cake; /* the daemon answered cakewg_get=1 */
	struct wg_uapi_reply_cake cake;
};

enum show_cake_request {
	SHOW_WITHOUT_CAKE,
	SHOW_WITH_CAKE,
};

/*
 * Fills *dev for ifname. Returns 0 or -errno (-ENODEV when no daemon serves ifname,
 * as wg reports it). The CAKE part never makes this fail: a daemon that does not know
 * the request (wireguard-go closes the connection) just leaves has_cake false; a
 * malformed answer also prints one warning line on stderr.
 */
int show_device_get(struct show_device *dev, const char *ifname, enum show_cake_request cake);

/* Whether a daemon accepts connections on ifname's socket; wg lists only those. */
bool show_device_alive(const char *ifname);

/* Frees and wipes everything dev holds. */
void show_device_free(struct show_device *dev);

/* The CAKE counters of a peer, or NULL. */
const struct wg_uapi_reply_cake_peer *show_device_cake_peer(const struct show_device *dev,
							    const struct wg_devconf_peer *peer);

/* Sorts the peers as wg's pretty output does: latest handshake first, never last. */
void show_device_sort_peers(struct show_device *dev);

/* "[host]:port" or "host:port" as wg prints an endpoint (getnameinfo, numeric); "" when
 * the peer has none. */
void show_endpoint(char *buf, size_t size, const struct wg_devconf_peer *peer);

/* The address of an allowed IP as wg prints it (inet_ntop); the caller adds "/cidr". */
const char *show_ip(char buf[static INET6_ADDRSTRLEN], const struct wg_devconf_allowedip *aip);

/* Whether the peer has an endpoint to print. */
bool show_has_endpoint(const struct wg_devconf_peer *peer);

#endif
