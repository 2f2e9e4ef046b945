/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The daemon's eye on the network under the tunnel and on its peers' host names:
 *
 *  - address and route events (rtnetlink, not those of the tunnel's own link) are
 *    debounced (src/core/netchange.h); after each burst the route to every peer's
 *    endpoint is looked up (RTM_GETROUTE with the device's fwmark, as the sockets send),
 *    and a peer whose route moved gets src/core/device_netchange.h's treatment: sticky
 *    source forgotten, handshake at once, name due; then autorate's baselines restart;
 *  - the tunnel's own address events: its addresses are read again, the source of the
 *    device's ICMP errors (src/edge/tunaddr.h);
 *  - a timer runs each name's lookup when src/core/reresolve.h says, through the
 *    resolver thread (src/edge/resolver.h); answers go to the device.
 *
 * CAKEWG_TEST_RERESOLVE_SECS, a test hook, replaces the 135 s of the rule.
 */
#ifndef CAKEWG_SRC_EDGE_NETWATCH_H
#define CAKEWG_SRC_EDGE_NETWATCH_H

#include <ev.h>
#include <stdint.h>

#include "src/core/counters.h"
#include "src/core/device.h"
#include "src/core/netchange.h"
#include "src/edge/netlink.h"
#include "src/edge/resolver.h"

struct wg_netwatch {
	struct ev_loop *loop;
	struct wg_device *dev;
	uint32_t own_ifindex;	    /* the tunnel's link: its events are ours, not the path's */
	void (*tick)(void *ctx);    /* sets the device's clock (dev->now_ns) */
	void *tick_ctx;
	struct wg_resolver *resolver;
	struct wg_nl *nl;	    /* route lookups */
	struct wg_netchange change;
	ev_timer change_w, names_w;
	uint64_t after_ns;	    /* reresolve's period */
	uint64_t acted;		    /* bursts in which some peer's route moved */
	uint32_t fwmark;	    /* the one the routes recorded were looked up with */
};

/* Opens the route lookup socket. Returns 0 or -errno. */
int wg_netwatch_start(struct wg_netwatch *w, struct ev_loop *loop, struct wg_device *dev,
		      uint32_t own_ifindex, void (*tick)(void *ctx), void *tick_ctx);
/* Starts the resolver's thread: after the privilege drop (capabilities are per thread,
 * src/edge/privdrop.h), before the loop runs. Returns 0 or -errno. */
int wg_netwatch_run(struct wg_netwatch *w);
void wg_netwatch_stop(struct wg_netwatch *w);

/* wg_netlink_events_watch_net's callback (ctx: the struct wg_netwatch). */
void wg_netwatch_net_event(void *ctx, const struct wg_nl_net_event *e);

/* Events were lost (the socket overflowed): a change may be among them. */
void wg_netwatch_events_lost(struct wg_netwatch *w);

/* After a UAPI set: learns the routes of new endpoints and schedules the names. */
void wg_netwatch_configured(struct wg_netwatch *w);

/* Its counters for cakewg_get=1. */
void wg_netwatch_report(const struct wg_netwatch *w, struct wg_device_counters *c);

#endif
