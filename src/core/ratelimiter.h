/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-interface rate limiter for handshake messages that carry a valid cookie, as the
 * Linux driver's ratelimiter.c: one token bucket per source (an IPv4 address, or the /64 of
 * an IPv6 address), RATELIMIT_PACKETS_PER_SECOND with bursts of RATELIMIT_BURST_PACKETS.
 * The table is bounded; entries idle for a second are collected by wg_ratelimiter_gc(),
 * which the event loop calls about once a second. Bucket positions come from SipHash keyed
 * with an rng-given secret, so a remote sender cannot aim collisions.
 */
#ifndef CAKEWG_SRC_CORE_RATELIMITER_H
#define CAKEWG_SRC_CORE_RATELIMITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qdisc/siphash.h"
#include "src/core/clock.h"
#include "src/core/compiler.h"
#include "src/core/rng.h"

/* A source address as bytes: no sockaddr in the core. */
enum wg_addr_family {
	WG_ADDR_IPV4 = 4,
	WG_ADDR_IPV6 = 6,
};

struct wg_src_addr {
	enum wg_addr_family family;
	uint8_t addr[16]; /* network order; IPv4 uses the first 4 bytes */
	uint16_t port;	  /* host order */
};

/* Values of Linux drivers/net/wireguard/ratelimiter.c. */
enum ratelimit_values {
	RATELIMIT_PACKETS_PER_SECOND = 20,
	RATELIMIT_BURST_PACKETS = 5,
	RATELIMIT_DEFAULT_MAX_ENTRIES = 65536,
	RATELIMIT_ENTRIES_PER_BUCKET = 8,
};

enum ratelimit_ns {
	RATELIMIT_PACKET_COST_NS = WG_NSEC_PER_SEC / RATELIMIT_PACKETS_PER_SECOND,
	RATELIMIT_TOKEN_MAX_NS = RATELIMIT_PACKET_COST_NS * RATELIMIT_BURST_PACKETS,
	/* An entry idle for longer than this is collected (its bucket would be full). */
	RATELIMIT_IDLE_NS = WG_NSEC_PER_SEC,
};

struct wg_ratelimiter_entry;

struct wg_ratelimiter {
	struct cake_siphash_key key;
	uint32_t *buckets; /* heads: entry number + 1, 0 = empty */
	struct wg_ratelimiter_entry *entries;
	uint32_t bucket_mask;
	uint32_t max_entries;
	uint32_t used;
	uint32_t free_head; /* entry number + 1, 0 = none */
};

/* max_entries 0 picks RATELIMIT_DEFAULT_MAX_ENTRIES. 0 or -ENOMEM. */
int wg_ratelimiter_init(struct wg_ratelimiter *rl, const struct wg_rng *rng, uint32_t max_entries);
void wg_ratelimiter_deinit(struct wg_ratelimiter *rl);

/* True when a packet from src may pass now (and takes its token). False when the source's
 * bucket is empty, the table is full or the family is unknown. */
WG_MUST_CHECK bool wg_ratelimiter_allow(struct wg_ratelimiter *rl, const struct wg_src_addr *src,
					uint64_t now_ns);

/* Drops entries idle for more than RATELIMIT_IDLE_NS. Returns how many it dropped. */
uint32_t wg_ratelimiter_gc(struct wg_ratelimiter *rl, uint64_t now_ns);

/* Entries in use (for statistics and tests). */
uint32_t wg_ratelimiter_count(const struct wg_ratelimiter *rl);

#endif
