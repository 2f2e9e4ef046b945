// SPDX-License-Identifier: GPL-2.0-only
#include "src/core/loop_guard.h"

#include <netinet/in.h>

#include "qdisc/flowkey.h"
#include "src/core/ipaddr.h"
#include "src/core/pkt.h"

static bool dst_is(const uint8_t *ip, int family, const struct wg_endpoint *ep)
{
	if (family != ep->remote.addr.sa_family)
		return false;
	if (family == AF_INET)
		return !memcmp(ip + WG_IPV4_DST_OFFSET, &ep->remote.addr4.sin_addr, WG_IPADDR_V4_LEN);
	return !memcmp(ip + WG_IPV6_DST_OFFSET, &ep->remote.addr6.sin6_addr, WG_IPADDR_V6_LEN);
}

bool wg_loop_is_own_datagram(const uint8_t *ip, size_t len, uint16_t listen_port,
			     const struct wg_endpoint *ep)
{
	struct cake_flowkey_hdrs h;
	int family = wg_ip_family(ip, len);

	/* The address test first: it is all that ordinary traffic costs. */
	if (!family || !listen_port || len > UINT32_MAX || !dst_is(ip, family, ep))
		return false;
	if (cake_flowkey_dissect(ip, (uint32_t)len, &h) != CAKE_FLOWKEY_OK ||
	    h.proto != CAKE_IPPROTO_UDP || !h.has_ports || h.fragment)
		return false;
	return h.sport == listen_port && h.dport == ntohs(family == AF_INET
							   ? ep->remote.addr4.sin_port
							   : ep->remote.addr6.sin6_port);
}
