/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Routing-loop damping. When a peer's endpoint is routed into the tunnel itself, every
 * datagram we send to it comes back from the TUN device as a packet for that peer, is
 * sealed again and sent again, growing by one header each round: a flood. Linux refuses
 * such a send when the route of the outer packet leaves through the WireGuard device;
 * a userspace endpoint does not see that route, but it sees the looped datagram itself:
 * UDP from our listening port to the endpoint of the very peer it is routed to.
 */
#ifndef CAKEWG_SRC_CORE_LOOP_GUARD_H
#define CAKEWG_SRC_CORE_LOOP_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/core/endpoint.h"

/* True when the IP packet (len bytes) is one of our own datagrams to ep: UDP with source
 * port listen_port and destination ep's address and port. Truncated or fragmented
 * packets (no UDP header to read) are never ours. */
bool wg_loop_is_own_datagram(const uint8_t *ip, size_t len, uint16_t listen_port,
			     const struct wg_endpoint *ep);

#endif
