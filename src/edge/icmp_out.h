/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The device's ICMP errors (src/core/device_icmp.h) into the host's stack: one raw
 * socket per family with IPPROTO_RAW, which sends a whole IP packet the caller built
 * (IPv4: the kernel fills in the ID left 0) and receives nothing. The host routes the
 * error to its destination: delivered locally when a local program sent the packet,
 * forwarded when the host routed it into the tunnel for another. Opening needs
 * CAP_NET_RAW, which the daemon drops: the sockets open before the drop
 * (src/edge/privdrop.h); a family whose socket did not open sends no errors, which the
 * log says once.
 */
#ifndef CAKEWG_SRC_EDGE_ICMP_OUT_H
#define CAKEWG_SRC_EDGE_ICMP_OUT_H

#include <stddef.h>
#include <stdint.h>

struct wg_icmp_out {
	int fd[2];	  /* IPv4, IPv6; -1 closed */
	uint32_t ifindex; /* the TUN device: the zone of a link-local destination */
};

void wg_icmp_out_init(struct wg_icmp_out *o, uint32_t ifindex);
/* Opens both sockets; logs a family that fails. */
void wg_icmp_out_open(struct wg_icmp_out *o);
/* Sends the len bytes at pkt, an IPv4 or IPv6 packet, to its destination. */
void wg_icmp_out_send(struct wg_icmp_out *o, const uint8_t *pkt, size_t len);
void wg_icmp_out_close(struct wg_icmp_out *o);

#endif
