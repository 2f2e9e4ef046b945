/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A peer's UDP endpoint as plain data: the remote address and port, plus the local
 * address and interface the last authenticated packet from it arrived on, so replies
 * leave from the address the peer talks to (sticky source, as wireguard-go on Linux).
 */
#ifndef CAKEWG_SRC_CORE_ENDPOINT_H
#define CAKEWG_SRC_CORE_ENDPOINT_H

#include <stdbool.h>
#include <string.h>

#include "src/core/ipaddr.h"

struct wg_endpoint {
	union wg_ipaddr_sockaddr remote; /* AF_UNSPEC: no endpoint known */
	union {
		struct in_addr src4;
		struct in6_addr src6;
	};
	int src_ifindex; /* 0: let the kernel choose the source */
	bool has_src;
};

/* The route to an endpoint as the edge found it (src/core/device_netchange.h): the
 * lookup's result (0 or -errno), and on success the output interface, the preferred
 * source and the gateway (zero when the route names none). Compared whole: zero it
 * before filling it in. */
struct wg_path {
	int err;
	uint32_t oif;
	uint8_t src[16], gateway[16];
};

static inline bool wg_endpoint_is_set(const struct wg_endpoint *ep)
{
	return ep->remote.addr.sa_family == AF_INET || ep->remote.addr.sa_family == AF_INET6;
}

/* True when both name the same remote address and port. */
static inline bool wg_endpoint_same_remote(const struct wg_endpoint *a, const struct wg_endpoint *b)
{
	if (a->remote.addr.sa_family != b->remote.addr.sa_family)
		return false;
	if (a->remote.addr.sa_family == AF_INET)
		return a->remote.addr4.sin_port == b->remote.addr4.sin_port &&
		       a->remote.addr4.sin_addr.s_addr == b->remote.addr4.sin_addr.s_addr;
	if (a->remote.addr.sa_family == AF_INET6)
		return a->remote.addr6.sin6_port == b->remote.addr6.sin6_port &&
		       !memcmp(&a->remote.addr6.sin6_addr, &b->remote.addr6.sin6_addr,
			       sizeof(struct in6_addr)) &&
		       a->remote.addr6.sin6_scope_id == b->remote.addr6.sin6_scope_id;
	return true;
}

/* True when datagrams to a and b leave the same way: same remote, same local source. */
static inline bool wg_endpoint_same_path(const struct wg_endpoint *a, const struct wg_endpoint *b)
{
	if (!wg_endpoint_same_remote(a, b) || a->has_src != b->has_src)
		return false;
	if (!a->has_src)
		return true;
	if (a->src_ifindex != b->src_ifindex)
		return false;
	if (a->remote.addr.sa_family == AF_INET)
		return a->src4.s_addr == b->src4.s_addr;
	return !memcmp(&a->src6, &b->src6, sizeof(a->src6));
}

#endif
