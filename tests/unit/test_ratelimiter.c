/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The handshake rate limiter on virtual time: the burst, the refill at
 * RATELIMIT_PACKETS_PER_SECOND, one bucket per IPv4 address and per IPv6 /64, the bounded
 * table and its garbage collection. The timing table follows the Linux selftest
 * (drivers/net/wireguard/selftest/ratelimiter.c), which sleeps on a real clock; here the
 * clock is an argument, so nothing sleeps.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "src/core/ratelimiter.h"
#include "tests/support/det_rng.h"

enum {
	COST_NS = RATELIMIT_PACKET_COST_NS,
	BURST = RATELIMIT_BURST_PACKETS,
	T0_NS = 1000 * WG_NSEC_PER_SEC,
};

static struct det_rng drng = { .state = 99 };
static struct wg_ratelimiter rl;

static void setup(void)
{
	struct wg_rng rng = det_rng_as_wg(&drng);

	cr_assert_eq(wg_ratelimiter_init(&rl, &rng, 0), 0);
}

static void teardown(void)
{
	wg_ratelimiter_deinit(&rl);
}

TestSuite(ratelimiter, .init = setup, .fini = teardown);

static struct wg_src_addr v4(uint32_t host)
{
	struct wg_src_addr a = { .family = WG_ADDR_IPV4, .port = 1234 };

	a.addr[0] = (uint8_t)(host >> 24);
	a.addr[1] = (uint8_t)(host >> 16);
	a.addr[2] = (uint8_t)(host >> 8);
	a.addr[3] = (uint8_t)host;
	return a;
}

static struct wg_src_addr v6(uint32_t prefix_word, uint32_t iid_word)
{
	struct wg_src_addr a = { .family = WG_ADDR_IPV6, .port = 1234 };

	a.addr[0] = 0x20;
	a.addr[1] = 0x01;
	memcpy(a.addr + 4, &prefix_word, 4);
	memcpy(a.addr + 12, &iid_word, 4);
	return a;
}

/* Linux's expected_results: { result, time waited before } per packet from one source. */
static const struct {
	bool allowed;
	uint64_t wait_ns;
} timings[] = {
	{ true, 0 },	      { true, 0 }, { true, 0 }, { true, 0 }, { true, 0 }, /* the burst */
	{ false, 0 },	      { true, COST_NS },	{ false, 0 },
	{ true, 2 * COST_NS }, { true, 0 },		{ false, 0 },
};

Test(ratelimiter, burst_and_refill)
{
	struct wg_src_addr a4 = v4(0x0a000001), a6 = v6(0x11111111, 1);
	uint64_t now = T0_NS;

	for (size_t i = 0; i < sizeof(timings) / sizeof(timings[0]); i++) {
		struct wg_src_addr other4 = v4(0x0a000001 + (uint32_t)i + 1);
		struct wg_src_addr other6 = v6(0x22222222 + (uint32_t)i, 1);

		now += timings[i].wait_ns;
		cr_expect_eq(wg_ratelimiter_allow(&rl, &a4, now), timings[i].allowed, "v4 step %zu",
			     i);
		cr_expect(wg_ratelimiter_allow(&rl, &other4, now), "other v4 source, step %zu", i);
		cr_expect_eq(wg_ratelimiter_allow(&rl, &a6, now), timings[i].allowed, "v6 step %zu",
			     i);
		cr_expect(wg_ratelimiter_allow(&rl, &other6, now), "other /64, step %zu", i);
	}
}

/* A long wait refills only up to the burst. */
Test(ratelimiter, refill_is_capped_at_the_burst)
{
	struct wg_src_addr a = v4(0xc0000201);
	int passed = 0;

	for (int i = 0; i < BURST; i++)
		cr_assert(wg_ratelimiter_allow(&rl, &a, T0_NS));
	for (int i = 0; i < 3 * BURST; i++)
		passed += wg_ratelimiter_allow(&rl, &a, T0_NS + 3600 * WG_NSEC_PER_SEC);
	cr_expect_eq(passed, BURST);
	/* A clock that steps back gives no tokens and breaks nothing. */
	cr_expect(!wg_ratelimiter_allow(&rl, &a, T0_NS));
}

/* The sustained rate is RATELIMIT_PACKETS_PER_SECOND. */
Test(ratelimiter, sustained_rate)
{
	struct wg_src_addr a = v4(0xc0000202);
	uint64_t now = T0_NS;
	int passed = 0;

	for (int i = 0; i < 10 * 1000; i++, now += WG_NSEC_PER_MSEC) /* 10 s at 1000/s */
		passed += wg_ratelimiter_allow(&rl, &a, now);
	cr_expect_eq(passed, BURST + 10 * RATELIMIT_PACKETS_PER_SECOND - 1);
}

/* IPv6 sources share a bucket per /64; IPv4 and IPv6 never share. */
Test(ratelimiter, ipv6_grouped_by_64)
{
	struct wg_src_addr a;
	int passed = 0;

	for (uint32_t iid = 0; iid < 4 * BURST; iid++) {
		a = v6(0x33333333, iid * 0x01010101u);
		a.addr[8] = (uint8_t)iid;
		passed += wg_ratelimiter_allow(&rl, &a, T0_NS);
	}
	cr_expect_eq(passed, BURST, "one /64, one bucket");
	a = v6(0x33333333, 0);
	a.addr[7] ^= 1; /* the neighbouring /64 */
	cr_expect(wg_ratelimiter_allow(&rl, &a, T0_NS));
	cr_expect_eq(wg_ratelimiter_count(&rl), 2);

	/* 10.0.0.1 and the IPv6 address whose first 4 bytes are 10.0.0.1 are different. */
	for (int i = 0; i < BURST; i++)
		cr_assert(wg_ratelimiter_allow(&rl, &(struct wg_src_addr){ WG_ADDR_IPV4,
									    { 10, 0, 0, 1 }, 1 },
					       T0_NS));
	cr_expect(wg_ratelimiter_allow(&rl, &(struct wg_src_addr){ WG_ADDR_IPV6, { 10, 0, 0, 1 }, 1 },
				       T0_NS));
	cr_expect(!wg_ratelimiter_allow(&rl, &(struct wg_src_addr){ 0, { 10, 0, 0, 1 }, 1 }, T0_NS),
		  "an unknown family never passes");
}

/* Entries idle for more than a second are collected; busy ones stay. */
Test(ratelimiter, garbage_collection)
{
	struct wg_src_addr busy = v4(0x01010101);

	for (uint32_t i = 0; i < 100; i++)
		cr_assert(wg_ratelimiter_allow(&rl, &(struct wg_src_addr){ .family = WG_ADDR_IPV4,
									   .addr = { 10, 1, 0, (uint8_t)i } },
					       T0_NS));
	cr_assert(wg_ratelimiter_allow(&rl, &busy, T0_NS));
	cr_expect_eq(wg_ratelimiter_count(&rl), 101);
	cr_expect_eq(wg_ratelimiter_gc(&rl, T0_NS + RATELIMIT_IDLE_NS), 0, "not idle long enough");
	cr_assert(wg_ratelimiter_allow(&rl, &busy, T0_NS + WG_NSEC_PER_SEC / 2));
	cr_expect_eq(wg_ratelimiter_gc(&rl, T0_NS + RATELIMIT_IDLE_NS + 1), 100);
	cr_expect_eq(wg_ratelimiter_count(&rl), 1);
	/* The survivor kept its bucket: once drained, it refuses. */
	for (int i = 0; i < BURST - 2 + 10; i++)
		if (!wg_ratelimiter_allow(&rl, &busy, T0_NS + WG_NSEC_PER_SEC / 2))
			break;
	cr_expect(!wg_ratelimiter_allow(&rl, &busy, T0_NS + WG_NSEC_PER_SEC / 2));
	cr_expect_eq(wg_ratelimiter_gc(&rl, T0_NS + 10 * WG_NSEC_PER_SEC), 1);
	cr_expect_eq(wg_ratelimiter_count(&rl), 0);
}

/* The table is bounded: when it is full, new sources are refused until collection. */
Test(ratelimiter, bounded_table)
{
	struct wg_rng rng = det_rng_as_wg(&drng);
	struct wg_ratelimiter small;
	enum { MAX = 40 };

	cr_assert_eq(wg_ratelimiter_init(&small, &rng, MAX), 0);
	for (uint32_t i = 0; i <= MAX; i++)
		cr_expect_eq(wg_ratelimiter_allow(&small, &(struct wg_src_addr){ WG_ADDR_IPV4,
					{ 172, 16, (uint8_t)(i >> 8), (uint8_t)i }, 1 }, T0_NS),
			     i != MAX, "source %u", i);
	cr_expect_eq(wg_ratelimiter_count(&small), MAX);
	cr_expect_eq(wg_ratelimiter_gc(&small, T0_NS + 2 * WG_NSEC_PER_SEC), MAX);
	cr_expect(wg_ratelimiter_allow(&small, &(struct wg_src_addr){ WG_ADDR_IPV4,
			{ 172, 16, 0, MAX }, 1 }, T0_NS + 2 * WG_NSEC_PER_SEC),
		  "room again after collection");
	wg_ratelimiter_deinit(&small);
}

/* Bucket positions depend on the secret: two limiters hash the same source differently. */
Test(ratelimiter, keyed_hash)
{
	struct det_rng d2 = { .state = 12345 };
	struct wg_rng rng2 = det_rng_as_wg(&d2);
	struct wg_ratelimiter other;

	cr_assert_eq(wg_ratelimiter_init(&other, &rng2, 0), 0);
	cr_expect(memcmp(&rl.key, &other.key, sizeof(rl.key)), "keys come from the rng");
	wg_ratelimiter_deinit(&other);
}
