/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The underlay's byte queue limit against a simulated link in virtual time: a socket
 * whose held bytes drain at a fixed rate, a sender that fills it to the limit and then
 * waits for the kernel's writability signal (held below half the limit), plus a wake-up
 * latency. The limit must settle at TARGET's worth of the rate whatever it started from,
 * follow a change of rate both ways, never fall below its floor nor rise above its
 * ceiling, learn nothing from stalls that measure nothing, and stay under the level at
 * which a qdisc below overflowed.
 */
#include <criterion/criterion.h>

#include "src/core/bql.h"

struct link {
	uint64_t now_ns;
	uint64_t rate;	     /* bytes per second */
	uint64_t wake_ns;    /* the sender's latency after the writability signal */
	double held;	     /* bytes in the socket */
	uint64_t max_held;
	uint64_t idle_ns;    /* time the link had nothing to send */
};

static void advance(struct link *l, uint64_t dt)
{
	double drained = (double)l->rate * (double)dt / 1e9;

	if (drained > l->held) {
		l->idle_ns += (uint64_t)((drained - l->held) * 1e9 / (double)l->rate);
		l->held = 0;
	} else {
		l->held -= drained;
	}
	l->now_ns += dt;
}

/* One fill-and-stall cycle with datagrams of `size` bytes. */
static void cycle(struct wg_bql *b, struct link *l, uint32_t size)
{
	uint64_t to_half;

	while (wg_bql_room(b, (uint32_t)l->held) >= size)
		l->held += size;
	if (l->held > l->max_held)
		l->max_held = (uint64_t)l->held;
	wg_bql_stall(b, l->now_ns, (uint32_t)l->held);
	/* the kernel signals when held falls below half the limit (the send buffer) */
	to_half = l->held > b->limit / 2 ?
			  (uint64_t)((l->held - b->limit / 2) * 1e9 / (double)l->rate) + 1 :
			  0;
	advance(l, to_half + l->wake_ns);
	(void)wg_bql_resume(b, l->now_ns, (uint32_t)l->held);
}

static uint64_t target_bytes(uint64_t rate)
{
	return rate * WG_BQL_TARGET_NS / WG_NSEC_PER_SEC;
}

/* The drain rate whose TARGET's worth is `bytes`: the scenarios scale with the target. */
static uint64_t rate_for(uint64_t bytes)
{
	return bytes * WG_NSEC_PER_SEC / WG_BQL_TARGET_NS;
}

/* Runs n cycles and returns the share of that time the link idled, in percent. */
static uint64_t idle_pct(struct wg_bql *b, struct link *l, int n)
{
	uint64_t t0 = l->now_ns, idle0 = l->idle_ns;

	for (int i = 0; i < n; i++)
		cycle(b, l, 2304);
	return (l->idle_ns - idle0) * 100 / (l->now_ns - t0);
}

/* A fresh limit after n fill-and-stall cycles on link l. */
static void learn(struct wg_bql *b, struct link *l, int n)
{
	wg_bql_init(b);
	for (int i = 0; i < n; i++)
		cycle(b, l, 2304);
}

Test(bql, starts_at_the_initial_limit_with_room_to_it)
{
	struct wg_bql b;

	wg_bql_init(&b);
	cr_assert_eq(b.limit, WG_BQL_INIT_BYTES);
	cr_assert_eq(wg_bql_room(&b, 0), WG_BQL_INIT_BYTES);
	cr_assert_eq(wg_bql_room(&b, 1000), WG_BQL_INIT_BYTES - 1000);
	cr_assert_eq(wg_bql_room(&b, WG_BQL_INIT_BYTES), 0);
	cr_assert_eq(wg_bql_room(&b, WG_BQL_INIT_BYTES + 5), 0);
}

/* A slow link (a local tbf) worth 20 KB of truesize per TARGET: the limit falls there. */
Test(bql, settles_at_target_worth_of_a_slow_link)
{
	struct link l = {.now_ns = 1, .rate = rate_for(20000), .wake_ns = 20000};
	struct wg_bql b;

	learn(&b, &l, 40);
	cr_assert_eq(l.idle_ns, 0, "a busy link never idles (%llu ns)", (unsigned long long)l.idle_ns);
	cr_assert(b.limit > target_bytes(l.rate) * 9 / 10 && b.limit < target_bytes(l.rate) * 11 / 10,
		  "limit %u, target %llu", b.limit, (unsigned long long)target_bytes(l.rate));
	/* from then on the socket never holds more than the limit plus a datagram */
	l.max_held = 0;
	for (int i = 0; i < 10; i++)
		cycle(&b, &l, 2304);
	cr_assert_leq(l.max_held, b.limit + 2304);
	cr_assert_gt(b.stats.stalls, 40);
	cr_assert_gt(b.stats.samples, 40);
}

/* A fast link with a slow sender: samples that end empty only raise the estimate, so the
 * limit grows until the sender's wake-up latency no longer starves the link. */
Test(bql, grows_when_the_link_runs_dry)
{
	/* Half the target's worth drains in a quarter of the sender's wake-up time. */
	struct link l = {.now_ns = 1, .rate = rate_for(100000), .wake_ns = 2 * WG_BQL_TARGET_NS};
	struct wg_bql b;
	uint64_t first, later;

	wg_bql_init(&b);
	first = idle_pct(&b, &l, 10);
	cr_assert_gt(b.stats.starved, 0);
	later = idle_pct(&b, &l, 100);
	cr_assert_gt(b.limit, target_bytes(l.rate), "limit %u", b.limit);
	cr_assert_lt(later, 10, "idle %llu %% (first %llu %%)", (unsigned long long)later,
		     (unsigned long long)first);
}

Test(bql, follows_the_rate_down_and_up)
{
	struct link l = {.now_ns = 1, .rate = rate_for(40000), .wake_ns = 20000};
	struct wg_bql b;

	learn(&b, &l, 40);
	cr_assert(b.limit > target_bytes(l.rate) * 9 / 10, "limit %u", b.limit);
	l.rate = rate_for(10000); /* the link slows down to a quarter */
	for (int i = 0; i < 40; i++)
		cycle(&b, &l, 2304);
	cr_assert(b.limit < target_bytes(l.rate) * 11 / 10, "limit %u", b.limit);
	l.rate = rate_for(80000);
	for (int i = 0; i < 60; i++)
		cycle(&b, &l, 2304);
	cr_assert(b.limit > target_bytes(l.rate) * 9 / 10 && b.limit < target_bytes(l.rate) * 11 / 10,
		  "limit %u", b.limit);
}

Test(bql, floor_on_a_very_slow_link)
{
	struct link l = {.now_ns = 1, .rate = 100000, .wake_ns = 20000};
	struct wg_bql b;

	wg_bql_init(&b);
	for (int i = 0; i < 20; i++)
		cycle(&b, &l, 1500);
	cr_assert_eq(b.limit, WG_BQL_MIN_BYTES);
}

Test(bql, learns_nothing_from_empty_short_or_growing_stalls)
{
	struct wg_bql b;

	wg_bql_init(&b);
	/* a direct link: the socket holds nothing when the sender stops */
	wg_bql_stall(&b, 1000, 0);
	cr_assert_not(wg_bql_resume(&b, 2000000, 0));
	/* a wake-up quicker than the minimum sample */
	wg_bql_stall(&b, 3000000, 60000);
	cr_assert_not(wg_bql_resume(&b, 3000000 + WG_BQL_MIN_SAMPLE_NS - 1, 1000));
	/* held grew (a control message went out meanwhile) */
	wg_bql_stall(&b, 4000000, 1000);
	cr_assert_not(wg_bql_resume(&b, 6000000, 3000));
	/* a time that went backwards */
	wg_bql_stall(&b, 9000000, 60000);
	cr_assert_not(wg_bql_resume(&b, 8000000, 1000));
	/* a resume without a stall */
	cr_assert_not(wg_bql_resume(&b, 10000000, 0));
	cr_assert_eq(b.stats.samples, 0);
	cr_assert_eq(b.limit, WG_BQL_INIT_BYTES);
	cr_assert_eq(b.stats.stalls, 2, "only stalls holding half the limit count");
}

Test(bql, overflow_caps_the_limit_below_the_level_that_dropped)
{
	struct link l = {.now_ns = 1, .rate = rate_for(200000), .wake_ns = 20000};
	struct wg_bql b;

	learn(&b, &l, 40);
	cr_assert_gt(b.limit, 150000, "limit %u", b.limit);
	cr_assert(wg_bql_overflow(&b, 100000));
	cr_assert_eq(b.limit, 75000);
	for (int i = 0; i < 40; i++)
		cycle(&b, &l, 2304);
	cr_assert_eq(b.limit, 75000, "the ceiling holds against the rate");
	/* a higher overflow changes nothing; a tiny one stops at the floor */
	cr_assert_not(wg_bql_overflow(&b, 200000));
	cr_assert(wg_bql_overflow(&b, 100));
	cr_assert_eq(b.limit, WG_BQL_MIN_BYTES);
	cr_assert_eq(b.stats.overflows, 3);
}

/* A sender that wakes up late (the CPU was busy) finds the socket empty: that stall says
 * the link is at least that fast, not that it slowed down, and that the limit left it
 * idle; the limit grows a slack, which decays once the sender is prompt again. */
Test(bql, a_late_wake_up_adds_slack_that_decays)
{
	struct link l = {.now_ns = 1, .rate = rate_for(20000), .wake_ns = 20000};
	struct wg_bql b;
	uint64_t rate, idle;
	uint32_t settled;

	learn(&b, &l, 40);
	settled = b.limit;
	rate = b.rate;
	cr_assert_eq(b.stats.starved, 0);
	l.wake_ns = 3 * WG_BQL_TARGET_NS;
	for (int i = 0; i < 20; i++)
		cycle(&b, &l, 2304);
	cr_assert_geq(b.rate, rate * 99 / 100, "rate %llu, before %llu", (unsigned long long)b.rate,
		      (unsigned long long)rate);
	cr_assert_gt(b.stats.starved, 0);
	/* the slack grows until half the limit mostly lasts the wake-up */
	idle = idle_pct(&b, &l, 100);
	cr_assert_lt(idle, 10, "idle %llu %%, limit %u", (unsigned long long)idle, b.limit);
	cr_assert_gt(b.limit, settled * 2);
	l.wake_ns = 20000;
	for (int i = 0; i < 60; i++)
		cycle(&b, &l, 2304);
	cr_assert_leq(b.limit, settled * 11 / 10, "limit %u, settled %u", b.limit, settled);
}

/* A limit the user chose holds whatever the link does; 0 goes back to the learnt one. */
Test(bql, a_fixed_limit_holds_and_can_be_released)
{
	struct link l = {.now_ns = 1, .rate = 50000000, .wake_ns = 20000};
	struct wg_bql b;

	wg_bql_init(&b);
	wg_bql_fix(&b, 30000);
	for (int i = 0; i < 40; i++)
		cycle(&b, &l, 2304);
	cr_assert_eq(b.limit, 30000);
	cr_assert_gt(b.stats.samples, 0, "the rate is still measured");
	cr_assert_not(wg_bql_overflow(&b, 10000));
	cr_assert_eq(b.limit, 30000);
	wg_bql_fix(&b, 1);
	cr_assert_eq(b.limit, WG_BQL_MIN_BYTES);
	wg_bql_fix(&b, UINT32_MAX);
	cr_assert_eq(b.limit, WG_BQL_MAX_BYTES);
	wg_bql_fix(&b, 0);
	cr_assert(b.limit > target_bytes(l.rate) * 9 / 10 && b.limit < target_bytes(l.rate) * 11 / 10,
		  "limit %u", b.limit);
}

/* The queue moves past a veth (or the route changes): the socket is empty again at every
 * stall. A limit learnt for the old queue grows back to the default, a quarter at a time
 * and no further, and comes down again when the socket fills once more. */
Test(bql, a_limit_the_socket_no_longer_fills_grows_back_to_the_default)
{
	struct link l = {.now_ns = 1, .rate = rate_for(12000), .wake_ns = 20000};
	struct wg_bql b;
	uint32_t learnt;
	int n = 0;

	learn(&b, &l, 40);
	learnt = b.limit;
	cr_assert_lt(learnt, 14000, "limit %u", learnt);
	/* one stall under half full (a sender descheduled mid-round), then a full one:
	 * nothing grows, however often that repeats */
	for (int i = 0; i < 3 * WG_BQL_REGROW_STALLS; i++) {
		cr_assert_not(wg_bql_stall(&b, l.now_ns, i % 2 ? b.limit : 0));
		(void)wg_bql_resume(&b, l.now_ns + 1000, 0);
		l.now_ns += 2000;
	}
	cr_assert_eq(b.limit, learnt);
	while (b.limit < WG_BQL_INIT_BYTES && n < 1000) {
		uint32_t before = b.limit;
		bool changed = wg_bql_stall(&b, l.now_ns, 0);

		cr_assert_eq(changed, b.limit != before);
		cr_assert_eq(changed, (n + 1) % WG_BQL_REGROW_STALLS == 0, "stall %d", n);
		cr_assert_leq(b.limit, before + before / 4 + 1, "%u after %u", b.limit, before);
		cr_assert_not(wg_bql_resume(&b, l.now_ns + 1000, 0), "too short to sample");
		l.now_ns += 2000;
		n++;
	}
	cr_assert_eq(b.limit, WG_BQL_INIT_BYTES);
	cr_assert_geq(n, 7 * WG_BQL_REGROW_STALLS, "12 KB grows by a quarter at a time: %d", n);
	cr_assert_eq(b.stats.regrown * WG_BQL_REGROW_STALLS, (uint64_t)n);
	for (int i = 0; i < WG_BQL_REGROW_STALLS; i++)
		cr_assert_not(wg_bql_stall(&b, l.now_ns, 100), "no further than the default");
	cr_assert_eq(b.limit, WG_BQL_INIT_BYTES);
	(void)wg_bql_resume(&b, l.now_ns + 1000, 0);

	for (int i = 0; i < 60; i++)
		cycle(&b, &l, 2304);
	cr_assert_lt(b.limit, learnt + learnt / 10, "back at the link: %u", b.limit);
}

Test(bql, a_fixed_or_capped_limit_does_not_grow_back)
{
	struct link l = {.now_ns = 1, .rate = rate_for(12000), .wake_ns = 20000};
	struct wg_bql b;

	learn(&b, &l, 40);
	wg_bql_fix(&b, 10000);
	for (int i = 0; i < 2 * WG_BQL_REGROW_STALLS; i++)
		cr_assert_not(wg_bql_stall(&b, l.now_ns, 0));
	cr_assert_eq(b.limit, 10000);
	wg_bql_fix(&b, 0);
	/* a qdisc below dropped at 16 KB held: the ceiling is 12 KB from then on */
	(void)wg_bql_overflow(&b, 16000);
	for (int i = 0; i < 20; i++)
		(void)wg_bql_stall(&b, l.now_ns, 0);
	cr_assert_leq(b.limit, 12000, "limit %u", b.limit);
	cr_assert_leq(b.slack, 12000, "slack %u stays bounded", b.slack);
}
