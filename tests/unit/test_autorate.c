/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The autorate controller: its rules on hand-made inputs, then the whole chain
 * (inner packets -> tcpts -> autorate -> shaper) in the link model of
 * tests/support/linksim.h, with the numbers each scenario reached printed.
 */
#include "qdisc/autorate.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>

#include "tests/support/det_rng.h"
#include "tests/support/linksim.h"

#define MBIT(x) ((uint64_t)((x) * 1e6 / 8))

static const uint64_t TICK = CAKE_AUTORATE_TICK_NS;

static struct cake_autorate make(double min, double max, double start)
{
	struct cake_autorate a;
	struct cake_autorate_config c = {.min_rate = MBIT(min), .max_rate = MBIT(max),
					 .start_rate = MBIT(start)};

	cr_assert_eq(cake_autorate_init(&a, &c, 0), 0);
	return a;
}

/* One tick at now with a delay (OWD unless rtt) and rates in Mbit/s. */
static uint64_t tick(struct cake_autorate *a, uint64_t now, uint32_t delay_us, bool rtt,
		     double sent_mbit, double delivered_mbit)
{
	struct cake_autorate_input in = {
		.sent_bytes = (uint64_t)(sent_mbit * 1e6 / 8 * (double)TICK / 1e9),
		.sig.delivered_bytes = (uint64_t)(delivered_mbit * 1e6 / 8 * (double)TICK / 1e9),
	};

	if (rtt) {
		in.sig.rtt_samples = 4;
		in.sig.rtt_min_us = 40000 + delay_us;
	} else {
		in.sig.owd_samples = 8;
		in.sig.owd_flows = 2;
		in.sig.qdelay_us = delay_us;
	}
	return cake_autorate_tick(a, &in, now);
}

Test(autorate, config_is_checked)
{
	struct cake_autorate a;
	struct cake_autorate_config c = {.min_rate = MBIT(2), .max_rate = MBIT(80)};

	cr_assert_eq(cake_autorate_init(&a, &c, 0), 0);
	cr_assert_eq(a.rate, 1581138, "no start rate: the geometric middle of the range");
	c.min_rate = 0;
	cr_assert_eq(cake_autorate_init(&a, &c, 0), -EINVAL);
	c.min_rate = MBIT(90);
	cr_assert_eq(cake_autorate_init(&a, &c, 0), -EINVAL);
	c.min_rate = MBIT(2);
	c.start_rate = MBIT(81);
	cr_assert_eq(cake_autorate_init(&a, &c, 0), -EINVAL);
	cr_assert_str_eq(cake_autorate_reason_name(CAKE_AUTORATE_RTT_BLOAT), "rtt-bloat");
	cr_assert_str_eq(cake_autorate_action_name(CAKE_AUTORATE_HOLD_OTHER),
			 "hold-other-direction");
	cr_assert_str_eq(cake_autorate_reason_name(CAKE_AUTORATE_REASONS), "?");
}

Test(autorate, bloat_cuts_to_the_delivered_rate_and_drains)
{
	struct cake_autorate a = make(1, 100, 40);
	struct cake_autorate_status st;
	uint64_t r, before;

	before = tick(&a, TICK, 1000, false, 40, 40);
	/* The link now delivers 6 Mbit/s with 300 ms queued: one tick is not enough for a
	 * deep cut (it may be a few delayed ACKs) ... */
	r = tick(&a, 2 * TICK, 300000, false, 40, 6);
	cake_autorate_get(&a, &st);
	cr_assert_eq(st.reason, CAKE_AUTORATE_BLOAT);
	cr_assert_eq(r, before * 973 / 1024);
	/* ... two are: far below 6 Mbit/s, not x0.9 steps. */
	r = tick(&a, 3 * TICK, 300000, false, 38, 6);
	cake_autorate_get(&a, &st);
	cr_assert_eq(st.capacity, MBIT(6), "the 2-tick delivered rate");
	cr_assert_lt(r, MBIT(6) / 2, "%lu", (unsigned long)r);
	/* While it drains, the rate holds, though D stays at 6. */
	cr_assert_eq(tick(&a, 4 * TICK, 200000, false, 3, 6), r);
	cr_assert_eq(tick(&a, 5 * TICK, 100000, false, 3, 6), r);
	/* Drained: back just below the capacity seen. */
	r = tick(&a, 6 * TICK, 1000, false, 3, 3);
	cake_autorate_get(&a, &st);
	cr_assert_eq(st.reason, CAKE_AUTORATE_SETTLE);
	cr_assert_eq(r, MBIT(6) * 942 / 1024);
}

Test(autorate, probes_up_when_shaper_limited_and_holds_when_idle)
{
	struct cake_autorate a = make(1, 50, 10);
	struct cake_autorate_status st;
	uint64_t now = 0, r = MBIT(10);

	for (int i = 0; i < 100; i++) {
		now += TICK;
		r = tick(&a, now, 500, false, (double)r * 8 / 1e6, (double)r * 8 / 1e6);
	}
	cr_assert_eq(r, MBIT(50), "probing stops at MAX");
	cake_autorate_get(&a, &st);
	cr_assert_eq(st.action, CAKE_AUTORATE_HOLD_BOUND);
	/* Idle: 1 Mbit/s of demand under a 50 Mbit/s shaper holds ... */
	for (int i = 0; i < 20; i++)
		cr_assert_eq(tick(&a, now += TICK, 500, false, 1, 1), MBIT(50));
	cake_autorate_get(&a, &st);
	cr_assert_eq(st.action, CAKE_AUTORATE_HOLD_IDLE);
	/* ... and no signal at all holds too, until a long idle decays to the start. */
	for (int i = 0; i < 1000; i++) {
		struct cake_autorate_input none = {0};

		r = cake_autorate_tick(&a, &none, now += TICK);
	}
	cake_autorate_get(&a, &st);
	cr_assert_eq(st.reason, CAKE_AUTORATE_DECAY);
	cr_assert(r > MBIT(10) * 99 / 100 && r < MBIT(10) * 101 / 100, "%lu", (unsigned long)r);
}

Test(autorate, never_below_min)
{
	struct cake_autorate a = make(5, 50, 20);
	uint64_t now = 0, r = 0;

	for (int i = 0; i < 50; i++)
		r = tick(&a, now += TICK, 2000000, false, 1, 1);
	cr_assert_eq(r, MBIT(5));
}

Test(autorate, rtt_bloat_is_blamed_by_the_delivered_rate)
{
	struct cake_autorate up = make(1, 100, 20);
	struct cake_autorate other = make(1, 100, 20);
	struct cake_autorate_status st;
	uint64_t before;

	for (uint64_t now = TICK; now <= 3 * TICK; now += TICK) {
		tick(&up, now, 0, true, 20, 20);
		tick(&other, now, 0, true, 20, 20);
	}
	/* RTT +100 ms. This uplink delivers 12 of the 20 it sends: its bottleneck. */
	before = other.rate;
	tick(&up, 4 * TICK, 100000, true, 20, 12);
	tick(&up, 5 * TICK, 100000, true, 20, 12);
	cake_autorate_get(&up, &st);
	cr_assert_eq(st.reason, CAKE_AUTORATE_RTT_BLOAT);
	cr_assert(st.delay_from_rtt);
	cr_assert_lt(st.rate, MBIT(12));
	/* This one delivers all it sends: the queue is elsewhere. */
	tick(&other, 4 * TICK, 100000, true, 20, 20);
	cake_autorate_get(&other, &st);
	cr_assert_eq(st.action, CAKE_AUTORATE_HOLD_OTHER);
	cr_assert_eq(st.rate, before);
}

/*
 * Noise: delay readings scattered under the target, a lone spike in one tick out of
 * twenty with a delivered rate that collapses (ACKs held up elsewhere), ticks without
 * any sample. The rate must not be cut deep, and must keep probing up.
 */
Test(autorate, lone_spikes_and_gaps_do_not_cut_deep)
{
	struct cake_autorate a = make(1, 100, 20);
	struct det_rng rng = {.state = 42};
	uint64_t now = 0, r = MBIT(20), lowest = UINT64_MAX;

	for (int i = 0; i < 400; i++) {
		uint64_t v = det_rng_next(&rng);
		double rate = (double)r * 8 / 1e6;

		now += TICK;
		if (i % 20 == 7) {
			r = tick(&a, now, 80000, false, rate, rate / 8); /* spike */
		} else if (i % 7 == 3) {
			struct cake_autorate_input none = {.sent_bytes = r * TICK / 1000000000};

			r = cake_autorate_tick(&a, &none, now); /* no sample */
		} else {
			r = tick(&a, now, (uint32_t)(v % 3000), false, rate, rate);
		}
		if (i > 0 && r < lowest)
			lowest = r;
	}
	cr_assert_geq(lowest, MBIT(20) * 9 / 10, "%lu", (unsigned long)lowest);
	cr_assert_gt(r, MBIT(40), "kept probing: %lu", (unsigned long)r);
}

/* ---- the link model ---- */

struct scenario {
	int up_flows, down_flows;
	int n_up, n_down;
	double t_up[LS_MAX_STEPS], up[LS_MAX_STEPS];
	double t_down[LS_MAX_STEPS], down[LS_MAX_STEPS];
	double start[2];
	bool no_ts;
};

static struct ls_sim *sim(const struct scenario *sc, enum ls_policy p)
{
	struct ls_sim *s = ls_new(p, 40 * LS_MS);

	s->no_ts = sc->no_ts;
	ls_trace(s, LS_UP, sc->n_up, sc->t_up, sc->up);
	ls_trace(s, LS_DOWN, sc->n_down, sc->t_down, sc->down);
	ls_flows(s, LS_UP, sc->up_flows);
	ls_flows(s, LS_DOWN, sc->down_flows);
	ls_start(s, 1, 100, sc->start);
	return s;
}

static double mbit(uint64_t bytes_per_s)
{
	return (double)bytes_per_s * 8 / 1e6;
}

/*
 * After a change of direction d's capacity at t_change (run to just before it), over
 * the next `span` seconds: how long until the rate is within [lo, hi] x the new
 * capacity for good; how long until the bottleneck's queue is first back under 15 ms
 * after its peak; and the 95th percentile of the queue from 1 s after that on.
 */
struct convergence {
	double rate_s, queue_s, max_queue_ms, p95_after_ms;
};

static struct convergence converge(struct ls_sim *s, int d, double t_change, double span,
				   double lo, double hi)
{
	struct convergence c = {.queue_s = span};
	uint64_t t0 = (uint64_t)(t_change * 1e9);
	uint64_t cap = ls_cap(s, d, t0);
	uint32_t q_us[1024];
	size_t n = 0;
	bool peaked = false;

	for (uint64_t t = t0; t < t0 + (uint64_t)(span * 1e9); t += 10 * LS_MS) {
		double q, since = (double)(t - t0) / 1e9;

		ls_run_until(s, t);
		q = (double)ls_qdelay(s, d) / 1e6;
		if (s->rate[d] < (uint64_t)(lo * (double)cap) || s->rate[d] > (uint64_t)(hi * (double)cap))
			c.rate_s = since + 0.01;
		peaked |= q > 15;
		if (peaked && q < 15 && c.queue_s == span)
			c.queue_s = since;
		if (q > c.max_queue_ms)
			c.max_queue_ms = q;
		if (since > c.queue_s + 1 && n < sizeof(q_us) / sizeof(q_us[0]))
			q_us[n++] = (uint32_t)(q * 1000);
	}
	if (n) {
		qsort(q_us, n, sizeof(q_us[0]), ls_cmp_u32);
		c.p95_after_ms = q_us[(n - 1) * 95 / 100] / 1e3;
	}
	return c;
}

Test(autorate_sim, drop_40_to_6_converges)
{
	struct scenario sc = {.up_flows = 4, .n_up = 2, .t_up = {0, 10}, .up = {40, 6},
			      .n_down = 1, .down = {40}, .start = {20, 40}};
	struct ls_sim *s = sim(&sc, LS_AUTORATE);
	struct convergence c;

	ls_run_until(s, 10 * LS_S);
	c = converge(s, LS_UP, 10, 8, 0.5, 1.1);
	printf("drop 40->6: rate in [0.5, 1.1] x 6 Mbit/s for good after %.2f s (%.0f RTTs of "
	       "40 ms); queue peak %.0f ms, back under 15 ms after %.2f s, then p95 %.1f ms\n",
	       c.rate_s, c.rate_s / 0.04, c.max_queue_ms, c.queue_s, c.p95_after_ms);
	cr_assert_lt(c.rate_s, 3.0, "within 75 RTTs");
	cr_assert_lt(c.queue_s, 2.0);
	cr_assert_lt(c.p95_after_ms, 15.0);
	ls_free(s);
}

Test(autorate_sim, rise_6_to_35_recovers)
{
	struct scenario sc = {.up_flows = 4, .n_up = 2, .t_up = {0, 10}, .up = {6, 35},
			      .n_down = 1, .down = {40}, .start = {6, 40}};
	struct ls_sim *s = sim(&sc, LS_AUTORATE);
	double t_found = -1;

	ls_run_until(s, 10 * LS_S);
	for (uint64_t t = 10 * LS_S; t < 20 * LS_S && t_found < 0; t += 10 * LS_MS) {
		ls_run_until(s, t);
		if (s->rate[LS_UP] >= MBIT(35) * 85 / 100)
			t_found = (double)(t - 10 * LS_S) / 1e9;
	}
	printf("rise 6->35: rate at 0.85 x 35 Mbit/s after %.2f s\n", t_found);
	cr_assert(t_found >= 0 && t_found < 4.0, "%.2f", t_found);
	ls_free(s);
}

/* Goodput over [from, to] of direction d. */
static double run_goodput(const struct scenario *sc, enum ls_policy p, int d, double from,
			  double to, struct ls_sim **keep)
{
	struct ls_sim *s = sim(sc, p);
	double g;

	s->measure_from = (uint64_t)(from * 1e9);
	ls_run_until(s, (uint64_t)(to * 1e9));
	g = (double)ls_goodput(s, d);
	if (keep)
		*keep = s;
	else
		ls_free(s);
	return g;
}

Test(autorate_sim, steady_20_no_oscillation)
{
	struct scenario sc = {.up_flows = 4, .n_up = 1, .up = {20}, .n_down = 1, .down = {40},
			      .start = {10, 40}};
	struct ls_sim *s = sim(&sc, LS_AUTORATE);
	double lo = 1e9, hi = 0, sum = 0, g_auto, g_oracle;
	int n = 0;

	ls_run_until(s, 8 * LS_S);
	for (uint64_t t = 8 * LS_S; t < 30 * LS_S; t += 50 * LS_MS, n++) {
		double r;

		ls_run_until(s, t);
		r = mbit(s->rate[LS_UP]);
		lo = r < lo ? r : lo;
		hi = r > hi ? r : hi;
		sum += r;
	}
	ls_free(s);
	g_auto = run_goodput(&sc, LS_AUTORATE, LS_UP, 8, 30, &s);
	printf("steady 20 Mbit/s: rate %.2f..%.2f (mean %.2f) Mbit/s; queue p50 %.1f p99 %.1f "
	       "ms; ",
	       lo, hi, sum / n, ls_qdelay_pct(s, LS_UP, 50) / 1e3, ls_qdelay_pct(s, LS_UP, 99) / 1e3);
	ls_free(s);
	g_oracle = run_goodput(&sc, LS_ORACLE, LS_UP, 8, 30, NULL);
	printf("goodput %.3f of the oracle's (0.97 x capacity)\n", g_auto / g_oracle);
	cr_assert_gt(lo, 0.85 * sum / n);
	cr_assert_lt(hi, 1.10 * sum / n);
	cr_assert_gt(g_auto / g_oracle, 0.90);
}

Test(autorate_sim, rrul_downlink_drop_leaves_the_uplink_alone)
{
	struct scenario sc = {.up_flows = 4, .down_flows = 4, .n_up = 1, .up = {20},
			      .n_down = 2, .t_down = {0, 10}, .down = {40, 6}, .start = {20, 20}};
	struct ls_sim *s = sim(&sc, LS_AUTORATE);
	double before = 0, lo = 1e9, after = 0;
	struct convergence c;
	int n = 0;

	for (uint64_t t = 6 * LS_S; t < 10 * LS_S; t += 50 * LS_MS, n++) {
		ls_run_until(s, t);
		before += mbit(s->rate[LS_UP]);
	}
	before /= n;
	n = 0;
	for (uint64_t t = 10 * LS_S; t < 14 * LS_S; t += 50 * LS_MS, n++) {
		ls_run_until(s, t);
		lo = mbit(s->rate[LS_UP]) < lo ? mbit(s->rate[LS_UP]) : lo;
		after += mbit(s->rate[LS_UP]);
	}
	after /= n;
	ls_free(s);
	s = sim(&sc, LS_AUTORATE);
	ls_run_until(s, 10 * LS_S);
	c = converge(s, LS_DOWN, 10, 8, 0.5, 1.1);
	printf("rrul, downlink 40->6: uplink rate %.1f Mbit/s before, %.1f after (lowest %.1f); "
	       "downlink rate in range after %.2f s, its queue (peak %.0f ms) under 15 ms after "
	       "%.2f s, then p95 %.1f ms\n",
	       before, after, lo, c.rate_s, c.max_queue_ms, c.queue_s, c.p95_after_ms);
	cr_assert_gt(after, 0.8 * before, "the uplink is not the one to cut");
	cr_assert_gt(lo, 0.5 * before);
	cr_assert_lt(c.rate_s, 3.0);
	cr_assert_lt(c.queue_s, 3.0);
	ls_free(s);
}

static const struct scenario stepped_up = {
	.up_flows = 4, .n_up = 6, .t_up = {0, 6, 12, 18, 24, 30}, .up = {40, 12, 25, 6, 35, 18},
	.n_down = 1, .down = {40}, .start = {20, 40}};

static void stepped(const struct scenario *sc, int d, const char *what, double *share,
		    double *mean_ms)
{
	static const char *const names[] = {"autorate", "fixed at the mean", "oracle",
					    "unlimited"};
	static const enum ls_policy pols[] = {LS_AUTORATE, LS_FIXED, LS_ORACLE, LS_UNLIMITED};

	for (int i = 0; i < 4; i++) {
		struct scenario c = *sc;
		struct ls_sim *s;
		double g;

		c.start[d] = i == 1 ? 22.67 : c.start[d];
		g = run_goodput(&c, pols[i], d, 0, 36, &s);
		share[i] = g / (double)s->cap_bytes[d];
		mean_ms[i] = (double)s->qd_sum[d] / (double)s->qd_n[d] / 1e6;
		printf("stepped %s, %-17s: queue mean %6.1f p50 %6.1f p99 %7.1f ms, goodput %.3f of "
		       "the mean capacity\n",
		       what, names[i], mean_ms[i], ls_qdelay_pct(s, d, 50) / 1e3,
		       ls_qdelay_pct(s, d, 99) / 1e3, share[i]);
		ls_free(s);
	}
}

Test(autorate_sim, stepped_trace_uploads)
{
	double share[4], mean[4];

	stepped(&stepped_up, LS_UP, "4 up  ", share, mean);
	cr_assert_lt(mean[0], 15.0);
	cr_assert_gt(share[0], 0.75);
	cr_assert_gt(share[0], 0.88 * share[2], "near the oracle");
	cr_assert_lt(mean[0], mean[1] / 5, "far below a fixed shaper's queue");
}

Test(autorate_sim, stepped_trace_downloads)
{
	struct scenario sc = stepped_up;
	double share[4], mean[4];

	sc.up_flows = 0;
	sc.down_flows = 4;
	memcpy(sc.t_down, stepped_up.t_up, sizeof(sc.t_down));
	memcpy(sc.down, stepped_up.up, sizeof(sc.down));
	sc.n_down = stepped_up.n_up;
	sc.n_up = 1;
	sc.up[0] = 40;
	sc.start[0] = 40;
	sc.start[1] = 20;
	stepped(&sc, LS_DOWN, "4 down", share, mean);
	cr_assert_lt(mean[0], 20.0);
	cr_assert_gt(share[0], 0.75);
	cr_assert_lt(mean[0], mean[1] / 3);
}

Test(autorate_sim, no_timestamps_falls_back_to_rtt)
{
	struct scenario sc = {.up_flows = 4, .n_up = 2, .t_up = {0, 10}, .up = {40, 6},
			      .n_down = 1, .down = {40}, .start = {20, 40}, .no_ts = true};
	struct ls_sim *s = sim(&sc, LS_AUTORATE);
	struct cake_autorate_status st;
	struct convergence c;

	ls_run_until(s, 10 * LS_S);
	cake_autorate_get(&s->ar[LS_UP], &st);
	cr_assert(st.delay_from_rtt);
	c = converge(s, LS_UP, 10, 8, 0.4, 1.1);
	printf("no timestamps, drop 40->6: rate in range after %.2f s, queue (peak %.0f ms) "
	       "under 15 ms after %.2f s, then p95 %.1f ms\n",
	       c.rate_s, c.max_queue_ms, c.queue_s, c.p95_after_ms);
	cr_assert_lt(c.rate_s, 2.0);
	cr_assert_lt(c.queue_s, 3.0);
	ls_free(s);
}
