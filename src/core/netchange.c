/* SPDX-License-Identifier: GPL-2.0-only */
#include "src/core/netchange.h"

void wg_netchange_event(struct wg_netchange *n, uint64_t now_ns)
{
	n->events++;
	if (!n->pending) {
		n->pending = true;
		n->first_ns = now_ns;
	}
	n->last_ns = now_ns;
}

uint64_t wg_netchange_due_ns(const struct wg_netchange *n)
{
	uint64_t quiet, cap;

	if (!n->pending)
		return UINT64_MAX;
	quiet = n->last_ns + WG_NETCHANGE_QUIET_NS;
	cap = n->first_ns + WG_NETCHANGE_MAX_WAIT_NS;
	return quiet < cap ? quiet : cap;
}

bool wg_netchange_take(struct wg_netchange *n, uint64_t now_ns)
{
	if (wg_netchange_due_ns(n) > now_ns)
		return false;
	n->pending = false;
	n->bursts++;
	return true;
}
