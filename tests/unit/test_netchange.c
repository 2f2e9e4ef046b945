/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Debouncing rtnetlink bursts (src/core/netchange.h) on virtual time: one action per
 * burst, 100 ms after its last event, and never more than 500 ms after its first.
 */
#include <criterion/criterion.h>

#include "src/core/netchange.h"

#define MS WG_NSEC_PER_MSEC

Test(netchange, nothing_pending_nothing_due)
{
	struct wg_netchange n = {0};

	cr_assert_eq(wg_netchange_due_ns(&n), UINT64_MAX);
	cr_assert_not(wg_netchange_take(&n, 1000 * MS));
}

Test(netchange, one_action_per_burst_after_the_quiet_time)
{
	struct wg_netchange n = {0};
	uint64_t t = 1000 * MS;

	for (int i = 0; i < 5; i++)
		wg_netchange_event(&n, t + (uint64_t)i * 10 * MS);
	cr_assert_eq(wg_netchange_due_ns(&n), t + 140 * MS);
	cr_assert_not(wg_netchange_take(&n, t + 139 * MS));
	cr_assert(wg_netchange_take(&n, t + 140 * MS));
	cr_assert_not(wg_netchange_take(&n, t + 200 * MS), "once");
	cr_assert_eq(n.events, 5);
	cr_assert_eq(n.bursts, 1);
	wg_netchange_event(&n, t + 300 * MS);
	cr_assert(wg_netchange_take(&n, t + 400 * MS), "the next burst acts again");
	cr_assert_eq(n.bursts, 2);
}

Test(netchange, a_storm_is_acted_on_within_the_max_wait)
{
	struct wg_netchange n = {0};
	uint64_t t = 1000 * MS, at = 0;

	for (uint64_t dt = 0; dt < 2000 * MS; dt += 50 * MS) {
		if (wg_netchange_take(&n, t + dt) && !at)
			at = dt;
		wg_netchange_event(&n, t + dt);
	}
	cr_assert_eq(at, 500 * MS, "acted on at %llu ms", (unsigned long long)(at / MS));
	cr_assert_eq(n.bursts, 3, "every 500 ms while it lasts");
}
