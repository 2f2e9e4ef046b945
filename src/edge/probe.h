/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Autorate's active probe (src/core/device_autorate.h): one ICMP echo request to an
 * address through the tunnel, sent from a socket bound to the TUN device, so that it
 * enters the device like any other packet and the extractor times its reply. A ping
 * socket (SOCK_DGRAM, IPPROTO_ICMP: no privilege where net.ipv4.ping_group_range allows
 * the group) is tried first, a raw one (CAP_NET_RAW) after; a raw socket is told to
 * receive nothing. Sockets open on first use; replies a ping socket keeps are dropped
 * before each send. Best effort: while no socket opens, probes are skipped and the
 * opening retried on src/core/backoff.h's schedule (1 s doubling to 60 s); the first
 * failure is logged as an error, the recovery as info.
 */
#ifndef CAKEWG_SRC_EDGE_PROBE_H
#define CAKEWG_SRC_EDGE_PROBE_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "src/core/backoff.h"
#include "src/core/ipaddr.h"

struct wg_probe {
	char ifname[IFNAMSIZ];
	int fd[2];   /* IPv4, IPv6; -1 closed */
	bool raw[2]; /* a raw socket: we write the ICMP header's identifier and sum */
	struct wg_backoff retry[2]; /* when to try again to open one that failed */
	uint16_t id, seq;
};

void wg_probe_init(struct wg_probe *p, const char *ifname, uint16_t id);
/* Opens both families' sockets now, without logging: before the daemon drops the
 * capability a raw socket needs (src/edge/privdrop.h). What fails opens on first use. */
void wg_probe_open(struct wg_probe *p);
void wg_probe_send(struct wg_probe *p, const struct wg_ipaddr *dst, uint64_t now_ns);
void wg_probe_close(struct wg_probe *p);

#endif
