/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The rate of the ICMP errors the device sends (src/core/icmp_error.h): one token bucket
 * for the interface, with the defaults of Linux's global ICMP limit (net/ipv4/icmp.c,
 * icmp_global_allow: net.ipv4.icmp_msgs_per_sec and icmp_msgs_burst), which also holds
 * the errors kernel WireGuard sends. A flood to an unpeered address thus costs at most
 * WG_ICMP_ERRORS_PER_SEC errors a second, and the daemon amplifies nothing: each error
 * answers one packet, with at most as many bytes as the minimum MTU allows.
 *
 * Linux adds a limit per destination host (net.ipv4.icmp_ratelimit, 1 s with a burst of
 * 6) and subtracts a random 0..2 tokens per message (a side channel's remedy for its
 * shared counter); here the destinations are the hosts that send into the tunnel, and
 * the bucket is this interface's alone, so neither is kept.
 *
 * Pure: the time is an argument; a clock that goes backwards adds nothing.
 */
#ifndef CAKEWG_SRC_CORE_ICMP_RATELIMIT_H
#define CAKEWG_SRC_CORE_ICMP_RATELIMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "src/core/clock.h"
#include "src/core/compiler.h"

enum wg_icmp_ratelimit_values {
	WG_ICMP_ERRORS_PER_SEC = 1000, /* icmp_msgs_per_sec */
	WG_ICMP_ERRORS_BURST = 50,     /* icmp_msgs_burst */
};

enum wg_icmp_ratelimit_ns {
	WG_ICMP_ERROR_COST_NS = WG_NSEC_PER_SEC / WG_ICMP_ERRORS_PER_SEC,
	WG_ICMP_ERROR_TOKENS_MAX_NS = WG_ICMP_ERROR_COST_NS * WG_ICMP_ERRORS_BURST,
};

/* Zeroed: a full bucket at the first call. */
struct wg_icmp_ratelimit {
	uint64_t tokens_ns; /* credit, in nanoseconds of the refill */
	uint64_t last_ns;
	bool started;
};

/* True when an error may be sent at now_ns (and takes its token). */
WG_MUST_CHECK bool wg_icmp_ratelimit_allow(struct wg_icmp_ratelimit *rl, uint64_t now_ns);

#endif
