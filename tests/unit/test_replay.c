/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The replay window as a numbered table of edge cases. The cases are those of the Linux
 * driver's selftest (drivers/net/wireguard/selftest/counter.c): in order, out of order
 * inside the window, just outside it, duplicates, and counters near REJECT_AFTER_MESSAGES.
 */
#include <criterion/criterion.h>

#include "src/core/replay.h"

/* The largest distance behind the top at which a counter is still accepted, plus one. */
#define LIM ((uint64_t)COUNTER_WINDOW_SIZE + 1)
#define RAM ((uint64_t)REJECT_AFTER_MESSAGES)

struct replay_case {
	int num;
	uint64_t counter;
	bool accepted;
};

static const struct replay_case edge_cases[] = {
	{ 1, 0, true },
	{ 2, 1, true },
	{ 3, 1, false },
	{ 4, 9, true },
	{ 5, 8, true },
	{ 6, 7, true },
	{ 7, 7, false },
	{ 8, LIM, true },
	{ 9, LIM - 1, true },
	{ 10, LIM - 1, false },
	{ 11, LIM - 2, true },
	{ 12, 2, true },
	{ 13, 2, false },
	{ 14, LIM + 16, true },
	{ 15, 3, false },
	{ 16, LIM + 16, false },
	{ 17, LIM * 4, true },
	{ 18, LIM * 4 - (LIM - 1), true },
	{ 19, 10, false },
	{ 20, LIM * 4 - LIM, false },
	{ 21, LIM * 4 - (LIM + 1), false },
	{ 22, LIM * 4 - (LIM - 2), true },
	{ 23, LIM * 4 + 1 - LIM, false },
	{ 24, 0, false },
	{ 25, RAM, false },
	{ 26, RAM - 1, true },
	{ 27, RAM, false },
	{ 28, RAM - 1, false },
	{ 29, RAM - 2, true },
	{ 30, RAM + 1, false },
	{ 31, RAM + 2, false },
	{ 32, RAM - 2, false },
	{ 33, RAM - 3, true },
	{ 34, 0, false },
};

static void expect(struct wg_replay *r, int num, uint64_t counter, bool accepted)
{
	bool got = wg_replay_accept(r, counter);

	cr_expect_eq(got, accepted, "case %d: counter %llu %s", num, (unsigned long long)counter,
		     accepted ? "should be accepted" : "should be rejected");
}

Test(replay, edge_cases_in_sequence)
{
	struct wg_replay r;
	size_t i;

	wg_replay_init(&r);
	for (i = 0; i < sizeof(edge_cases) / sizeof(edge_cases[0]); i++)
		expect(&r, edge_cases[i].num, edge_cases[i].counter, edge_cases[i].accepted);
}

Test(replay, whole_window_ascending_then_zero)
{
	struct wg_replay r;
	uint64_t i;

	wg_replay_init(&r);
	for (i = 1; i <= COUNTER_WINDOW_SIZE; i++)
		expect(&r, 35, i, true);
	expect(&r, 36, 0, true);
	expect(&r, 37, 0, false);
}

Test(replay, window_plus_one_ascending_then_edges)
{
	struct wg_replay r;
	uint64_t i;

	wg_replay_init(&r);
	for (i = 2; i <= COUNTER_WINDOW_SIZE + 1; i++)
		expect(&r, 38, i, true);
	expect(&r, 39, 1, true);
	expect(&r, 40, 0, false);
}

Test(replay, whole_window_descending)
{
	struct wg_replay r;
	uint64_t i;

	wg_replay_init(&r);
	for (i = COUNTER_WINDOW_SIZE + 1; i-- > 0;)
		expect(&r, 41, i, true);
}

Test(replay, descending_from_beyond_window)
{
	struct wg_replay r;
	uint64_t i;

	wg_replay_init(&r);
	for (i = COUNTER_WINDOW_SIZE + 2; i-- > 1;)
		expect(&r, 42, i, true);
	expect(&r, 43, 0, false);
}

Test(replay, descending_then_top_then_zero)
{
	struct wg_replay r;
	uint64_t i;

	wg_replay_init(&r);
	for (i = COUNTER_WINDOW_SIZE + 1; i-- > 1;)
		expect(&r, 44, i, true);
	expect(&r, 45, COUNTER_WINDOW_SIZE + 1, true);
	expect(&r, 46, 0, false);
}

Test(replay, descending_then_zero_then_top)
{
	struct wg_replay r;
	uint64_t i;

	wg_replay_init(&r);
	for (i = COUNTER_WINDOW_SIZE + 1; i-- > 1;)
		expect(&r, 47, i, true);
	expect(&r, 48, 0, true);
	expect(&r, 49, COUNTER_WINDOW_SIZE + 1, true);
}

/* Every distance behind the top, in both directions of the boundary. */
Test(replay, boundary_is_exactly_the_window)
{
	struct wg_replay r;
	const uint64_t top = 100000;

	wg_replay_init(&r);
	cr_assert(wg_replay_accept(&r, top));
	cr_expect(wg_replay_accept(&r, top - COUNTER_WINDOW_SIZE), "oldest in window");
	cr_expect(!wg_replay_accept(&r, top - COUNTER_WINDOW_SIZE - 1), "just outside");
	cr_expect(!wg_replay_accept(&r, top - 2 * COUNTER_WINDOW_SIZE), "far outside");
}

/* A jump of more than the ring clears every word, so nothing old survives as "seen". */
Test(replay, big_jump_clears_the_ring)
{
	struct wg_replay r;
	uint64_t i, top = 5 * (uint64_t)COUNTER_BITS_TOTAL;

	wg_replay_init(&r);
	for (i = 0; i < 3 * 64; i++)
		cr_assert(wg_replay_accept(&r, i));
	cr_assert(wg_replay_accept(&r, top));
	for (i = top - COUNTER_WINDOW_SIZE; i < top; i++)
		cr_expect(wg_replay_accept(&r, i), "counter %llu is fresh",
			  (unsigned long long)i);
}

Test(replay, exhaustion_at_the_reject_limit)
{
	struct wg_replay r;

	wg_replay_init(&r);
	cr_expect(!wg_replay_exhausted(&r));
	cr_assert(wg_replay_accept(&r, RAM - 2));
	cr_expect(!wg_replay_exhausted(&r), "one valid counter is left");
	cr_assert(wg_replay_accept(&r, RAM - 1));
	cr_expect(wg_replay_exhausted(&r), "the last valid counter uses it up");
	cr_expect(!wg_replay_accept(&r, RAM));
	cr_expect(wg_replay_accept(&r, RAM - 5), "the window itself still answers");
}
