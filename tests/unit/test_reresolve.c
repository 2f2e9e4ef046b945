/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * When a peer's endpoint name is looked up again (src/core/reresolve.h), on virtual
 * time: 135 s after the later of the latest handshake and the last lookup, at once after
 * a network change, one lookup at a time, failures retried on the backoff schedule for
 * ever, and a fresh handshake putting the next lookup off.
 */
#include <criterion/criterion.h>

#include "src/core/reresolve.h"

#define S     WG_NSEC_PER_SEC
#define AFTER WG_RERESOLVE_AFTER_NS

Test(reresolve, the_period_is_reresolve_dns_sh_s)
{
	cr_assert_eq(AFTER, 135 * S);
}

Test(reresolve, due_135_s_after_the_last_lookup_without_a_handshake)
{
	struct wg_reresolve r;
	uint64_t t0 = 1000 * S;

	wg_reresolve_init(&r, t0, true);
	cr_assert_eq(wg_reresolve_due_ns(&r, 0, AFTER), t0 + AFTER);
	cr_assert_not(wg_reresolve_start(&r, t0 + AFTER - 1, 0, AFTER));
	cr_assert(wg_reresolve_start(&r, t0 + AFTER, 0, AFTER));
	cr_assert_eq(r.lookups, 1);
	cr_assert_eq(wg_reresolve_due_ns(&r, 0, AFTER), UINT64_MAX, "one lookup at a time");
	cr_assert_not(wg_reresolve_start(&r, t0 + 10 * AFTER, 0, AFTER));
	cr_assert_not(wg_reresolve_succeeded(&r, t0 + AFTER + S, false), "no failure before");
	cr_assert_eq(wg_reresolve_due_ns(&r, 0, AFTER), t0 + 2 * AFTER + S,
		     "a silent peer: once per period");
	cr_assert_eq(r.changes, 0);
}

Test(reresolve, a_name_without_an_address_is_due_at_once)
{
	struct wg_reresolve r;

	wg_reresolve_init(&r, 5 * S, false);
	cr_assert_eq(wg_reresolve_due_ns(&r, 0, AFTER), 0);
	cr_assert(wg_reresolve_start(&r, 5 * S, 0, AFTER));
}

Test(reresolve, a_recent_handshake_puts_it_off)
{
	struct wg_reresolve r;
	uint64_t t0 = 1000 * S, hs = t0 + 100 * S;

	wg_reresolve_init(&r, t0, true);
	cr_assert_eq(wg_reresolve_due_ns(&r, hs, AFTER), hs + AFTER);
	cr_assert_not(wg_reresolve_start(&r, t0 + AFTER, hs, AFTER), "the peer answers");
	cr_assert(wg_reresolve_start(&r, hs + AFTER, hs, AFTER), "silent for 135 s");
}

Test(reresolve, a_network_change_asks_at_once_even_while_backing_off)
{
	struct wg_reresolve r;
	uint64_t t0 = 1000 * S, now = t0 + AFTER;

	wg_reresolve_init(&r, t0, true);
	wg_reresolve_network_changed(&r);
	cr_assert(wg_reresolve_start(&r, t0 + S, t0 + S, AFTER), "despite a fresh handshake");
	cr_assert_not(wg_reresolve_start(&r, t0 + S, t0 + S, AFTER), "once");
	cr_assert(wg_reresolve_failed(&r, t0 + 2 * S));
	cr_assert(wg_reresolve_start(&r, now, 0, AFTER));
	cr_assert_not(wg_reresolve_failed(&r, now));
	cr_assert_gt(wg_reresolve_due_ns(&r, 0, AFTER), now);
	wg_reresolve_network_changed(&r);
	cr_assert(wg_reresolve_start(&r, now, 0, AFTER), "the backoff does not hold it back");
}

Test(reresolve, failures_back_off_and_never_give_up)
{
	static const uint64_t waits[] = {1, 2, 4, 8, 16, 32, 60, 60, 60, 60, 60};
	struct wg_reresolve r;
	uint64_t now = 1000 * S + AFTER;

	wg_reresolve_init(&r, 1000 * S, true);
	for (size_t i = 0; i < sizeof(waits) / sizeof(waits[0]); i++) {
		cr_assert(wg_reresolve_start(&r, now, 0, AFTER), "attempt %zu", i);
		cr_assert_eq(wg_reresolve_failed(&r, now), i == 0, "only the first is logged");
		cr_assert_eq(wg_reresolve_due_ns(&r, 0, AFTER), now + waits[i] * S, "wait %zu", i);
		cr_assert_not(wg_reresolve_start(&r, now + waits[i] * S - 1, 0, AFTER));
		now += waits[i] * S;
	}
	cr_assert_eq(r.failures, sizeof(waits) / sizeof(waits[0]));
	cr_assert(wg_reresolve_start(&r, now, 0, AFTER));
	cr_assert(wg_reresolve_succeeded(&r, now, true), "the recovery is logged");
	cr_assert_eq(r.changes, 1);
	cr_assert_eq(wg_reresolve_due_ns(&r, 0, AFTER), now + AFTER, "back to the period");
}

Test(reresolve, a_handshake_while_failing_waits_for_the_period)
{
	struct wg_reresolve r;
	uint64_t now = 1000 * S + AFTER;

	wg_reresolve_init(&r, 1000 * S, true);
	cr_assert(wg_reresolve_start(&r, now, 0, AFTER));
	(void)wg_reresolve_failed(&r, now);
	/* the old address answered after all */
	cr_assert_eq(wg_reresolve_due_ns(&r, now + S / 2, AFTER), now + S / 2 + AFTER);
}

Test(reresolve, a_short_test_period)
{
	struct wg_reresolve r;

	wg_reresolve_init(&r, 10 * S, true);
	cr_assert_eq(wg_reresolve_due_ns(&r, 0, 2 * S), 12 * S);
	cr_assert_eq(wg_reresolve_due_ns(&r, 0, UINT64_MAX), UINT64_MAX, "no overflow");
}
