/* SPDX-License-Identifier: GPL-2.0-only */
#include "src/core/device_netchange.h"

#include <stdio.h>
#include <string.h>

#include "src/core/device.h"
#include "src/core/messages.h"
#include "src/core/send.h"

void wg_device_peer_set_endpoint_name(struct wg_peer *peer, const struct wg_devconf_peer *pc,
				      uint64_t now_ns)
{
	if (pc->flags & WG_DEVCONF_PEER_HAS_ENDPOINT_HOST) {
		snprintf(peer->endpoint_host, sizeof(peer->endpoint_host), "%s", pc->endpoint_host);
		peer->endpoint_port = pc->endpoint_port;
		wg_reresolve_init(&peer->reresolve, now_ns,
				  pc->flags & WG_DEVCONF_PEER_HAS_ENDPOINT);
	} else if (pc->flags & WG_DEVCONF_PEER_HAS_ENDPOINT) {
		peer->endpoint_host[0] = '\0';
		peer->endpoint_port = 0;
	}
}

bool wg_device_endpoint_resolved(struct wg_device *dev, struct wg_peer *peer,
				 const union wg_ipaddr_sockaddr *addr, uint64_t now_ns)
{
	struct wg_endpoint ep = {.remote = *addr};
	char was[WG_IPADDR_ENDPOINT_STRLEN], now[WG_IPADDR_ENDPOINT_STRLEN];
	bool changed = !wg_endpoint_same_remote(&ep, &peer->endpoint);

	if (wg_reresolve_succeeded(&peer->reresolve, now_ns, changed))
		wg_device_log(dev, WG_LOG_INFO, "peer %llu: %s resolves again",
			      (unsigned long long)peer->id, peer->endpoint_host);
	if (!changed)
		return false;
	wg_ipaddr_endpoint_format(was, &peer->endpoint.remote);
	wg_ipaddr_endpoint_format(now, addr);
	wg_device_log(dev, WG_LOG_INFO, "peer %llu: %s now resolves to %s (was %s)",
		      (unsigned long long)peer->id, peer->endpoint_host, now, *was ? was : "none");
	peer->endpoint = ep;
	wg_device_send_initiation(dev, peer, false, now_ns);
	return true;
}

void wg_device_endpoint_resolve_failed(struct wg_device *dev, struct wg_peer *peer,
				       const char *why, uint64_t now_ns)
{
	char ep[WG_IPADDR_ENDPOINT_STRLEN];

	if (!wg_reresolve_failed(&peer->reresolve, now_ns))
		return;
	wg_ipaddr_endpoint_format(ep, &peer->endpoint.remote);
	wg_device_log(dev, WG_LOG_ERROR,
		      "peer %llu: cannot resolve %s: %s; keeping endpoint %s, retrying",
		      (unsigned long long)peer->id, peer->endpoint_host, why, *ep ? ep : "none");
}

/* A current session, packets waiting for one, or keepalives asked for. */
static bool in_use(const struct wg_peer *peer, uint64_t now_ns)
{
	return (peer->has_handshake &&
		!wg_clock_has_expired(peer->last_handshake_ns, REJECT_AFTER_TIME_NS, now_ns)) ||
	       peer->staged.len || peer->persistent_keepalive_secs;
}

bool wg_device_peer_path_note(struct wg_peer *peer, const struct wg_path *path)
{
	bool changed = peer->has_path && memcmp(&peer->path, path, sizeof(*path));

	peer->path = *path;
	peer->has_path = true;
	return changed;
}

bool wg_device_peer_path_changed(struct wg_device *dev, struct wg_peer *peer, uint64_t now_ns)
{
	dev->now_ns = now_ns;
	peer->endpoint.has_src = false; /* as the timers' CLEAR_ENDPOINT_SRC does */
	if (peer->endpoint_host[0])
		wg_reresolve_network_changed(&peer->reresolve);
	if (!in_use(peer, now_ns) || !wg_endpoint_is_set(&peer->endpoint))
		return false;
	wg_device_send_initiation(dev, peer, false, now_ns);
	return true;
}
