/* SPDX-License-Identifier: GPL-2.0-only */
#include "src/core/reresolve.h"

#include <string.h>

void wg_reresolve_init(struct wg_reresolve *r, uint64_t now_ns, bool resolved)
{
	memset(r, 0, sizeof(*r));
	r->resolved_ns = now_ns;
	r->forced = !resolved;
}

uint64_t wg_reresolve_due_ns(const struct wg_reresolve *r, uint64_t last_handshake_ns,
			     uint64_t after_ns)
{
	uint64_t fresh = r->resolved_ns > last_handshake_ns ? r->resolved_ns : last_handshake_ns;
	uint64_t due;

	if (r->in_flight)
		return UINT64_MAX;
	if (r->forced)
		return 0;
	due = fresh > UINT64_MAX - after_ns ? UINT64_MAX : fresh + after_ns;
	/* Failing: not before the backoff's wait, and only while the handshake is old. */
	if (r->backoff.delay_ns && r->backoff.next_ns > due)
		due = r->backoff.next_ns;
	return due;
}

void wg_reresolve_network_changed(struct wg_reresolve *r)
{
	r->forced = true;
}

bool wg_reresolve_start(struct wg_reresolve *r, uint64_t now_ns, uint64_t last_handshake_ns,
			uint64_t after_ns)
{
	if (wg_reresolve_due_ns(r, last_handshake_ns, after_ns) > now_ns)
		return false;
	r->in_flight = true;
	r->forced = false;
	r->lookups++;
	return true;
}

bool wg_reresolve_failed(struct wg_reresolve *r, uint64_t now_ns)
{
	r->in_flight = false;
	r->failures++;
	return wg_backoff_failed(&r->backoff, now_ns);
}

bool wg_reresolve_succeeded(struct wg_reresolve *r, uint64_t now_ns, bool changed)
{
	r->in_flight = false;
	r->resolved_ns = now_ns;
	if (changed)
		r->changes++;
	return wg_backoff_succeeded(&r->backoff);
}
