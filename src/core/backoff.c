/* SPDX-License-Identifier: GPL-2.0-only */
#include "src/core/backoff.h"

bool wg_backoff_due(const struct wg_backoff *b, uint64_t now_ns)
{
	return !b->delay_ns || now_ns >= b->next_ns;
}

bool wg_backoff_failed(struct wg_backoff *b, uint64_t now_ns)
{
	bool first = !b->delay_ns;

	if (first)
		b->delay_ns = WG_BACKOFF_MIN_NS;
	else if (b->delay_ns < WG_BACKOFF_MAX_NS / 2)
		b->delay_ns *= 2;
	else
		b->delay_ns = WG_BACKOFF_MAX_NS;
	b->next_ns = now_ns + b->delay_ns;
	return first;
}

bool wg_backoff_succeeded(struct wg_backoff *b)
{
	bool was_failing = b->delay_ns != 0;

	b->delay_ns = 0;
	b->next_ns = 0;
	return was_failing;
}
