/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The retry schedule: 1 s after the first failure, doubling to 60 s and staying there,
 * nothing due before its time, only the first failure and the recovery reported, and a
 * success starting the schedule over.
 */
#include <criterion/criterion.h>

#include "src/core/backoff.h"

#define S WG_NSEC_PER_SEC

Test(backoff, due_until_a_failure)
{
	struct wg_backoff b = {0};

	cr_assert(wg_backoff_due(&b, 0));
	cr_assert(wg_backoff_due(&b, 123 * S));
	cr_assert_not(wg_backoff_succeeded(&b), "no failure to recover from");
}

Test(backoff, doubles_to_the_cap)
{
	static const uint64_t waits[] = {1, 2, 4, 8, 16, 32, 60, 60, 60};
	struct wg_backoff b = {0};
	uint64_t now = 1000 * S;

	for (size_t i = 0; i < sizeof(waits) / sizeof(waits[0]); i++) {
		cr_assert_eq(wg_backoff_failed(&b, now), i == 0, "only the first is reported");
		cr_assert_not(wg_backoff_due(&b, now), "no spin: not due at once");
		cr_assert_not(wg_backoff_due(&b, now + waits[i] * S - 1), "wait %zu", i);
		now += waits[i] * S;
		cr_assert(wg_backoff_due(&b, now), "due after %llu s",
			  (unsigned long long)waits[i]);
	}
}

Test(backoff, success_starts_over)
{
	struct wg_backoff b = {0};

	cr_assert(wg_backoff_failed(&b, 0));
	cr_assert_not(wg_backoff_failed(&b, 1 * S));
	cr_assert(wg_backoff_succeeded(&b), "the recovery is reported");
	cr_assert_not(wg_backoff_succeeded(&b), "once");
	cr_assert(wg_backoff_due(&b, 3 * S));
	cr_assert(wg_backoff_failed(&b, 10 * S), "a new run is reported again");
	cr_assert_not(wg_backoff_due(&b, 11 * S - 1));
	cr_assert(wg_backoff_due(&b, 11 * S), "from 1 s again");
}
