/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Debouncing network changes. A move from one uplink to another comes as a burst of
 * rtnetlink events (addresses go and come, routes are deleted and added, one by one);
 * the daemon acts once per burst: WG_NETCHANGE_QUIET_NS after the last event of it, or
 * WG_NETCHANGE_MAX_WAIT_NS after its first one if the events keep coming, so that acting
 * (a handshake per peer, a lookup per name) stays within the second the tunnel may take
 * to recover. Pure: the caller passes the time.
 */
#ifndef CAKEWG_SRC_CORE_NETCHANGE_H
#define CAKEWG_SRC_CORE_NETCHANGE_H

#include <stdbool.h>
#include <stdint.h>

#include "src/core/clock.h"

#define WG_NETCHANGE_QUIET_NS (100 * WG_NSEC_PER_MSEC)
#define WG_NETCHANGE_MAX_WAIT_NS (500 * WG_NSEC_PER_MSEC)

struct wg_netchange {
	uint64_t first_ns, last_ns; /* of the burst in progress */
	bool pending;
	uint64_t events, bursts; /* counters */
};

/* An event at now_ns. */
void wg_netchange_event(struct wg_netchange *n, uint64_t now_ns);

/* When the burst in progress is to be acted on; UINT64_MAX when none is. */
uint64_t wg_netchange_due_ns(const struct wg_netchange *n);

/* True once, when the burst in progress is due at now_ns: act on it then. */
bool wg_netchange_take(struct wg_netchange *n, uint64_t now_ns);

#endif
