// SPDX-License-Identifier: GPL-2.0-only
/* wg_icmp_ratelimit_allow on virtual time: Linux's burst of 50, then 1000 a second. */
#include <criterion/criterion.h>

#include "src/core/icmp_ratelimit.h"

static const uint64_t T0 = 5 * WG_NSEC_PER_SEC;

static unsigned int allowed(struct wg_icmp_ratelimit *rl, uint64_t at_ns, unsigned int tries)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < tries; i++)
		n += wg_icmp_ratelimit_allow(rl, at_ns);
	return n;
}

Test(icmp_ratelimit, a_burst_then_the_rate)
{
	struct wg_icmp_ratelimit rl = {0};

	cr_expect_eq(allowed(&rl, T0, 200), 50, "a full bucket holds the burst");
	cr_expect_eq(allowed(&rl, T0 + WG_NSEC_PER_MSEC / 2, 10), 0, "half a token");
	cr_expect_eq(allowed(&rl, T0 + WG_NSEC_PER_MSEC, 10), 1, "one token a millisecond");
	cr_expect_eq(allowed(&rl, T0 + 11 * WG_NSEC_PER_MSEC, 100), 10);
	cr_expect_eq(allowed(&rl, T0 + 100 * WG_NSEC_PER_SEC, 200), 50, "refilled to the burst");
}

/* A flood: one packet every 10 us for 3 s gets the burst and 1000 a second, no more. */
Test(icmp_ratelimit, a_flood_gets_the_rate)
{
	struct wg_icmp_ratelimit rl = {0};
	uint64_t n = 0;

	for (uint64_t t = 0; t < 3 * WG_NSEC_PER_SEC; t += 10000)
		n += wg_icmp_ratelimit_allow(&rl, T0 + t);
	cr_expect(n >= 3000 + 50 - 1 && n <= 3000 + 50, "%llu errors in 3 s", (unsigned long long)n);
}

Test(icmp_ratelimit, a_clock_going_back_adds_nothing)
{
	struct wg_icmp_ratelimit rl = {0};

	cr_expect_eq(allowed(&rl, T0, 60), 50);
	cr_expect_eq(allowed(&rl, T0 - WG_NSEC_PER_SEC, 10), 0);
	cr_expect_eq(allowed(&rl, T0 + WG_NSEC_PER_MSEC, 10), 1, "measured from the latest time");
}
