/* SPDX-License-Identifier: GPL-2.0-only */
#include "qdisc/delay_hist.h"

#include <criterion/criterion.h>

Test(delay_hist, empty_and_single)
{
	struct cake_dhist h;

	cake_dhist_reset(&h);
	cr_assert_eq(cake_dhist_quantile(&h, 64), 0);
	cake_dhist_add(&h, 3000);
	cr_assert_eq(h.count, 1);
	/* the middle of the 1 ms bucket, never below the smallest sample */
	cr_assert_eq(cake_dhist_quantile(&h, 64), 3000);
	cake_dhist_add(&h, 2);
	cr_assert_eq(cake_dhist_quantile(&h, 0), 512);
}

Test(delay_hist, quantiles_within_a_bucket)
{
	struct cake_dhist h;

	cake_dhist_reset(&h);
	for (uint32_t v = 0; v < 1000; v++)
		cake_dhist_add(&h, v * 100); /* 0 .. 99.9 ms, uniform */
	for (uint32_t q = 16; q < 256; q += 16) {
		uint32_t want = (uint32_t)((uint64_t)q * 100000 / 256);
		uint32_t got = cake_dhist_quantile(&h, q);
		uint32_t tol = want < 32768 ? 1024 : want / 8 + 1;

		cr_assert(got + tol >= want && got <= want + tol, "q %u: %u vs %u", q, got, want);
	}
}

Test(delay_hist, large_values_share_the_last_bucket)
{
	struct cake_dhist h;

	cake_dhist_reset(&h);
	cake_dhist_add(&h, UINT32_MAX);
	cake_dhist_add(&h, 40u * 1000 * 1000);
	cr_assert_eq(h.n[CAKE_DHIST_BUCKETS - 1], 2);
	cr_assert_geq(cake_dhist_quantile(&h, 255), 40u * 1000 * 1000);
}
