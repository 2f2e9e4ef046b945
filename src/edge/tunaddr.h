/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The TUN device's addresses as the source of the device's ICMP errors
 * (src/core/device_icmp.h), as RFC 1812 section 4.3.2.4 takes the interface's address:
 * per family, the first address (the primary) of the widest scope (universe, then site,
 * link, host). Looked up with an RTM_GETADDR dump when the daemon starts and again at
 * each address event of the link (src/edge/netwatch.c); a family without an address
 * gets no errors.
 */
#ifndef CAKEWG_SRC_EDGE_TUNADDR_H
#define CAKEWG_SRC_EDGE_TUNADDR_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/device.h"
#include "src/edge/netlink.h"

/* The source of family's errors among the n addresses at a (any links'): false if none. */
bool wg_tunaddr_pick(const struct wg_nl_addr_entry *a, size_t n, uint8_t family,
		     struct wg_ipaddr *out);

/* Dumps the addresses of ifindex and sets both families' sources in dev. 0 or -errno
 * (the sources are then left as they were). */
int wg_tunaddr_learn(struct wg_nl *nl, uint32_t ifindex, struct wg_device *dev);

#endif
