/* SPDX-License-Identifier: GPL-2.0-only */
#include "src/core/icmp_ratelimit.h"

bool wg_icmp_ratelimit_allow(struct wg_icmp_ratelimit *rl, uint64_t now_ns)
{
	if (!rl->started) {
		rl->started = true;
		rl->tokens_ns = WG_ICMP_ERROR_TOKENS_MAX_NS;
		rl->last_ns = now_ns;
	} else if (now_ns > rl->last_ns) {
		uint64_t room = WG_ICMP_ERROR_TOKENS_MAX_NS - rl->tokens_ns;
		uint64_t add = now_ns - rl->last_ns;

		rl->tokens_ns += add < room ? add : room;
		rl->last_ns = now_ns;
	}
	if (rl->tokens_ns < WG_ICMP_ERROR_COST_NS)
		return false;
	rl->tokens_ns -= WG_ICMP_ERROR_COST_NS;
	return true;
}
