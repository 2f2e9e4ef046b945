/* SPDX-License-Identifier: GPL-2.0-only */
#include "src/core/ratelimiter.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * Entries live in one array and are chained by number (number + 1, so 0 ends a chain);
 * unused ones form a free list through the same link.
 */
struct wg_ratelimiter_entry {
	uint64_t last_ns;
	uint64_t tokens_ns; /* credit, in nanoseconds of waiting */
	uint64_t ip;	    /* the IPv4 address, or the top 64 bits of the IPv6 one */
	uint32_t next;
	uint8_t family;
};

static uint32_t round_up_pow2(uint32_t v)
{
	uint32_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

int wg_ratelimiter_init(struct wg_ratelimiter *rl, const struct wg_rng *rng, uint32_t max_entries)
{
	uint32_t i, nbuckets;

	memset(rl, 0, sizeof(*rl));
	if (!max_entries)
		max_entries = RATELIMIT_DEFAULT_MAX_ENTRIES;
	nbuckets = round_up_pow2(WG_MAX(max_entries / RATELIMIT_ENTRIES_PER_BUCKET, 16u));
	rl->buckets = calloc(nbuckets, sizeof(*rl->buckets));
	rl->entries = calloc(max_entries, sizeof(*rl->entries));
	if (!rl->buckets || !rl->entries) {
		wg_ratelimiter_deinit(rl);
		return -ENOMEM;
	}
	rl->bucket_mask = nbuckets - 1;
	rl->max_entries = max_entries;
	for (i = 0; i < max_entries; i++)
		rl->entries[i].next = i + 2 <= max_entries ? i + 2 : 0;
	rl->free_head = 1;
	wg_rng_fill(rng, &rl->key, sizeof(rl->key));
	return 0;
}

void wg_ratelimiter_deinit(struct wg_ratelimiter *rl)
{
	free(rl->buckets);
	free(rl->entries);
	memset(rl, 0, sizeof(*rl));
}

uint32_t wg_ratelimiter_count(const struct wg_ratelimiter *rl)
{
	return rl->used;
}

/* The bucket key: a whole IPv4 address, or an IPv6 /64 (one host's usual allocation). */
static bool source_key(const struct wg_src_addr *src, uint64_t *ip)
{
	uint32_t v4;

	switch (src->family) {
	case WG_ADDR_IPV4:
		memcpy(&v4, src->addr, sizeof(v4));
		*ip = v4;
		return true;
	case WG_ADDR_IPV6:
		memcpy(ip, src->addr, sizeof(*ip));
		return true;
	default:
		return false;
	}
}

static uint32_t *bucket_of(struct wg_ratelimiter *rl, uint8_t family, uint64_t ip)
{
	uint8_t in[1 + sizeof(ip)];

	in[0] = family;
	memcpy(in + 1, &ip, sizeof(ip));
	return &rl->buckets[cake_siphash(&rl->key, in, sizeof(in)) & rl->bucket_mask];
}

/* Takes one packet's cost if the bucket, refilled for the time since its last use, has it. */
static bool take_token(struct wg_ratelimiter_entry *e, uint64_t now_ns)
{
	uint64_t tokens = e->tokens_ns;

	if (now_ns > e->last_ns)
		tokens += WG_MIN(now_ns - e->last_ns, (uint64_t)RATELIMIT_TOKEN_MAX_NS);
	tokens = WG_MIN(tokens, (uint64_t)RATELIMIT_TOKEN_MAX_NS);
	e->last_ns = now_ns;
	if (tokens < RATELIMIT_PACKET_COST_NS) {
		e->tokens_ns = tokens;
		return false;
	}
	e->tokens_ns = tokens - RATELIMIT_PACKET_COST_NS;
	return true;
}

bool wg_ratelimiter_allow(struct wg_ratelimiter *rl, const struct wg_src_addr *src, uint64_t now_ns)
{
	struct wg_ratelimiter_entry *e;
	uint32_t *head, n;
	uint64_t ip;

	if (!rl->entries || !source_key(src, &ip))
		return false;
	head = bucket_of(rl, (uint8_t)src->family, ip);
	for (n = *head; n; n = e->next) {
		e = &rl->entries[n - 1];
		if (e->family == src->family && e->ip == ip)
			return take_token(e, now_ns);
	}
	/* A new source starts with a full bucket, less this packet. */
	n = rl->free_head;
	if (!n)
		return false;
	e = &rl->entries[n - 1];
	rl->free_head = e->next;
	e->family = (uint8_t)src->family;
	e->ip = ip;
	e->last_ns = now_ns;
	e->tokens_ns = RATELIMIT_TOKEN_MAX_NS - RATELIMIT_PACKET_COST_NS;
	e->next = *head;
	*head = n;
	rl->used++;
	return true;
}

uint32_t wg_ratelimiter_gc(struct wg_ratelimiter *rl, uint64_t now_ns)
{
	struct wg_ratelimiter_entry *e;
	uint32_t i, *link, dropped = 0;

	if (!rl->buckets)
		return 0;
	for (i = 0; i <= rl->bucket_mask; i++) {
		link = &rl->buckets[i];
		while (*link) {
			uint32_t n = *link;

			e = &rl->entries[n - 1];
			if (now_ns > e->last_ns && now_ns - e->last_ns > RATELIMIT_IDLE_NS) {
				*link = e->next;
				memset(e, 0, sizeof(*e));
				e->next = rl->free_head;
				rl->free_head = n;
				rl->used--;
				dropped++;
			} else {
				link = &e->next;
			}
		}
	}
	return dropped;
}
