/* SPDX-License-Identifier: GPL-2.0-only */
#include "src/core/bql.h"

#include <string.h>

#include "src/core/compiler.h"

static bool set_limit(struct wg_bql *b);

void wg_bql_init(struct wg_bql *b)
{
	memset(b, 0, sizeof(*b));
	b->limit = WG_BQL_INIT_BYTES;
	b->ceiling = WG_BQL_MAX_BYTES;
}

void wg_bql_fix(struct wg_bql *b, uint32_t bytes)
{
	b->fixed = bytes != 0;
	b->slack = 0;
	if (bytes) {
		b->limit = WG_MIN(WG_MAX(bytes, (uint32_t)WG_BQL_MIN_BYTES),
				  (uint32_t)WG_BQL_MAX_BYTES);
		return;
	}
	b->ceiling = WG_BQL_MAX_BYTES;
	b->limit = WG_BQL_INIT_BYTES;
	if (b->rate)
		(void)set_limit(b);
}

uint32_t wg_bql_room(const struct wg_bql *b, uint32_t held)
{
	return held < b->limit ? b->limit - held : 0;
}

bool wg_bql_stall(struct wg_bql *b, uint64_t now_ns, uint32_t held)
{
	b->stalled = true;
	b->stall_ns = now_ns;
	b->stall_bytes = held;
	if (held >= b->limit / 2) {
		b->stats.stalls++;
		b->empty_stalls = 0;
		return false;
	}
	/* Out of room, stall after stall, with the socket under half full: what was sent
	 * is gone already, so the queue the limit was learnt for is not below this socket
	 * now (the route changed, or the bottleneck is past a veth, whose peer frees the
	 * socket's bytes at once). Such a limit holds nothing back, but it still cuts every
	 * send small: let it grow back, a quarter at a time, to the unlearnt default. */
	if (++b->empty_stalls < WG_BQL_REGROW_STALLS)
		return false;
	b->empty_stalls = 0;
	if (b->fixed || !b->rate || b->limit >= WG_BQL_INIT_BYTES || b->limit >= b->ceiling)
		return false;
	b->stats.regrown++;
	b->slack +=
		WG_MIN(b->limit >> WG_BQL_SLACK_GROW_SHIFT, (uint32_t)WG_BQL_INIT_BYTES - b->limit);
	return set_limit(b);
}

/* The limit for the current estimate: TARGET's worth and the slack, within [MIN, ceiling]. */
static bool set_limit(struct wg_bql *b)
{
	uint64_t want = b->rate * WG_BQL_TARGET_NS / WG_NSEC_PER_SEC + b->slack;
	uint32_t limit = (uint32_t)WG_MIN(want, (uint64_t)b->ceiling);

	if (b->fixed)
		return false;
	if (limit < WG_BQL_MIN_BYTES)
		limit = WG_BQL_MIN_BYTES;
	if (limit == b->limit)
		return false;
	b->limit = limit;
	return true;
}

bool wg_bql_resume(struct wg_bql *b, uint64_t now_ns, uint32_t held)
{
	uint64_t dt, sample;

	if (!b->stalled)
		return false;
	b->stalled = false;
	dt = now_ns - b->stall_ns;
	if (now_ns <= b->stall_ns || dt < WG_BQL_MIN_SAMPLE_NS || held >= b->stall_bytes)
		return false;
	sample = (uint64_t)(b->stall_bytes - held) * WG_NSEC_PER_SEC / dt;
	b->stats.samples++;
	if (!held) {
		/* ran dry: the link idled part of the time; the sample is a lower bound */
		b->stats.starved++;
		b->rate = WG_MAX(b->rate, sample);
		if (b->limit < b->ceiling)
			b->slack += b->limit >> WG_BQL_SLACK_GROW_SHIFT;
	} else {
		b->rate = b->rate ? b->rate - (b->rate >> WG_BQL_EWMA_SHIFT) +
					    (sample >> WG_BQL_EWMA_SHIFT) :
				    sample;
		b->slack -= b->slack >> WG_BQL_SLACK_DECAY_SHIFT;
	}
	return set_limit(b);
}

bool wg_bql_overflow(struct wg_bql *b, uint32_t held)
{
	uint32_t ceiling = WG_MAX(held - held / 4, (uint32_t)WG_BQL_MIN_BYTES);

	b->stats.overflows++;
	if (b->fixed || ceiling >= b->ceiling)
		return false;
	b->ceiling = ceiling;
	if (b->limit <= ceiling)
		return false;
	b->limit = ceiling;
	return true;
}
