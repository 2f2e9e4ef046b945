/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The autorate controller: its rules on hand-made inputs. The whole chain (inner
 * packets -> tcpts -> autorate -> CAKE) on a simulated link is test_sim_link.c's.
 */
#include "qdisc/autorate.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>

#include "tests/support/det_rng.h"

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

/* A tick's input: a delay (OWD unless rtt) and rates in Mbit/s. */
static struct cake_autorate_input input(uint32_t delay_us, bool rtt, double sent_mbit,
					double delivered_mbit)
{
	struct cake_autorate_input in = {
		.shaped_bytes = (uint64_t)(sent_mbit * 1e6 / 8 * (double)TICK / 1e9),
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
	return in;
}

/* One tick at now with that input. */
static uint64_t tick(struct cake_autorate *a, uint64_t now, uint32_t delay_us, bool rtt,
		     double sent_mbit, double delivered_mbit)
{
	struct cake_autorate_input in = input(delay_us, rtt, sent_mbit, delivered_mbit);

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
			struct cake_autorate_input none = {.shaped_bytes = r * TICK / 1000000000};

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

/*
 * Delivered bytes come from ACK progress, which a peer may claim at will: a count whose
 * product with 10^9 passes 2^64 still reads as a huge rate, not as the few bytes/s that
 * the wrapped product would give (and then a deep cut).
 */
Test(autorate, a_huge_delivered_count_does_not_wrap)
{
	struct cake_autorate a = make(1, 100, 40);
	struct cake_autorate_input in = {
		.shaped_bytes = MBIT(40) / 20,
		.sig = {.owd_samples = 8, .owd_flows = 2, .qdelay_us = 30000,
			.delivered_bytes = UINT64_C(18446744074)}, /* x 10^9 wraps to ~2.9e8 */
	};
	struct cake_autorate_status st;

	cake_autorate_tick(&a, &in, TICK);
	cake_autorate_get(&a, &st);
	cr_assert_geq(st.capacity, MBIT(100), "capacity %lu", (unsigned long)st.capacity);
	cr_assert_geq(st.rate, MBIT(38), "rate %lu", (unsigned long)st.rate);
	in.sig.delivered_bytes = UINT64_MAX; /* and at the very top */
	cake_autorate_tick(&a, &in, 2 * TICK);
	cake_autorate_get(&a, &st);
	cr_assert_geq(st.rate, MBIT(36), "rate %lu", (unsigned long)st.rate);
}

/* A new path: the RTT baseline goes, so the longer RTT of the new path is not a queue. */
Test(autorate, path_reset_forgets_the_delay_baseline)
{
	struct cake_autorate a = make(1, 100, 20), b;
	struct cake_autorate_status st;
	uint64_t now = 0, rate;

	for (int i = 0; i < 5; i++)
		tick(&a, now += TICK, 0, true, 20, 20); /* RTT 40 ms */
	cake_autorate_get(&a, &st);
	cr_assert_eq(st.baseline_us, 40000);
	b = a;
	rate = a.rate;
	cake_autorate_path_reset(&a, now);
	cake_autorate_get(&a, &st);
	cr_assert_eq(st.baseline_us, 0);
	cr_assert_eq(st.rate, rate, "the rate stays");
	/* the new path: 100 ms more, and less delivered than sent. Without the reset that is
	 * bloat and a cut. */
	tick(&a, now + TICK, 100000, true, 20, 12);
	tick(&a, now + 2 * TICK, 100000, true, 20, 12);
	cake_autorate_get(&a, &st);
	cr_assert_eq(st.baseline_us, 140000);
	cr_assert_geq(st.rate, rate, "no cut on the new path");
	tick(&b, now + TICK, 100000, true, 20, 12);
	tick(&b, now + 2 * TICK, 100000, true, 20, 12);
	cake_autorate_get(&b, &st);
	cr_assert_lt(st.rate, rate, "the same ticks without the reset cut");
}

/*
 * An upload's cut drains the queue it estimates: d plus what piled up since at S - C
 * (here S = C, so 30 ms), at C x (1 - k), k = 30 ms / 200 ms, for 30 ms / k = 200 ms;
 * then back to 0.92 x C while the delay signal, which rides on ACKs out of that queue,
 * still lags above the target.
 */
Test(autorate, an_upload_cut_drains_the_estimated_queue_then_returns)
{
	struct cake_autorate a = make(1, 100, 4);
	struct cake_autorate_status st;
	uint64_t cut, k = 30 * 1024 / 200, now = TICK;

	tick(&a, now, 1000, false, 4, 4);
	cut = tick(&a, now += TICK, 30000, false, 4, 4);
	cr_assert_eq(cut, MBIT(4) * (1024 - k) / 1024, "%lu", (unsigned long)cut);
	for (int i = 0; i < 4; i++) /* 200 ms: the lagging signal does not cut again */
		cr_assert_eq(tick(&a, now += TICK, 25000, false, 3.4, 4), cut, "tick %d", i);
	cr_assert_eq(tick(&a, now += TICK, 25000, false, 3.4, 4), MBIT(4) * 942 / 1024);
	cake_autorate_get(&a, &st);
	cr_assert_eq(st.reason, CAKE_AUTORATE_SETTLE);
	cr_assert_eq(tick(&a, now += TICK, 20000, false, 3.7, 4), MBIT(4) * 942 / 1024,
		     "still no cut while the queue falls");
}

/* As tick() with a one-way delay, and a busy run (see tcpts.h) at busy_mbit over busy_us. */
/* Ticks with in, at most 10, until the rate settles; the status after the last. */
static struct cake_autorate_status until_settle(struct cake_autorate *a,
						const struct cake_autorate_input *in, uint64_t *now)
{
	struct cake_autorate_status st;

	for (int i = 0; i < 10; i++) {
		cake_autorate_tick(a, in, *now += TICK);
		cake_autorate_get(a, &st);
		if (st.reason == CAKE_AUTORATE_SETTLE)
			break;
	}
	return st;
}

static uint64_t tick_busy(struct cake_autorate *a, uint64_t now, uint32_t delay_us,
			  double sent_mbit, double delivered_mbit, double busy_mbit,
			  uint32_t busy_us)
{
	struct cake_autorate_input in = input(delay_us, false, sent_mbit, delivered_mbit);

	in.sig.busy_bytes = (uint64_t)(busy_mbit * 1e6 / 8 * busy_us / 1e6);
	in.sig.busy_us = busy_us;
	return cake_autorate_tick(a, &in, now);
}

/*
 * Right after a fall, D (two ticks of ACK progress) is mostly from before it; a busy
 * run of a few ms already shows the new rate. Even its most (the span less two TSval
 * ticks) is below D, so the cut goes there at once, and deep: no x 0.95 put-off.
 */
Test(autorate, a_busy_run_below_the_delivered_rate_cuts_deep_at_once)
{
	struct cake_autorate a = make(1, 100, 12), b;
	struct cake_autorate_status st;
	uint64_t r, before;

	before = tick(&a, TICK, 1000, false, 12, 12);
	b = a;
	/* 5 ms at 4 Mbit/s: at most 2500 bytes in 3 ms, 6.67 Mbit/s, below D's 9 */
	r = tick_busy(&a, 2 * TICK, 20000, 12, 9, 4, 5000);
	cake_autorate_get(&a, &st);
	cr_assert_eq(st.reason, CAKE_AUTORATE_BLOAT);
	cr_assert_eq(st.capacity, 2500 * 1000000ull / 3000, "%lu", (unsigned long)st.capacity);
	cr_assert_lt(r, before / 2, "deep at once: %lu", (unsigned long)r);
	/* without the run, the same tick cuts from D, to 7.8 Mbit/s */
	cr_assert_gt(tick(&b, 2 * TICK, 20000, false, 12, 9), MBIT(7.5));
	/* a run under 4 ms tells nothing */
	b = a;
	cr_assert_eq(tick_busy(&b, 3 * TICK, 60000, 12, 9, 1, 3000),
		     tick(&a, 3 * TICK, 60000, false, 12, 9));
}

/*
 * D counts the ACKed data alone, not the other direction's ACKs that share the link; a
 * busy run counts every byte. Once it spans 20 ms or more, the settle goes back to its
 * rate when higher, though never above what the shaper sent.
 */
Test(autorate, a_settle_goes_back_to_a_long_busy_runs_rate)
{
	struct cake_autorate a = make(1, 100, 6), b;
	struct cake_autorate_input in;
	struct cake_autorate_status st;
	uint64_t now = TICK;

	tick(&a, now, 1000, false, 6, 5);
	b = a;
	tick_busy(&a, now += TICK, 30000, 6, 5, 5.5, 30000);
	tick_busy(&b, now, 30000, 6, 5, 9, 30000);
	cake_autorate_get(&a, &st);
	cr_assert_eq(st.capacity, MBIT(5.5), "%lu", (unsigned long)st.capacity);
	cake_autorate_get(&b, &st);
	cr_assert_eq(st.capacity, MBIT(6), "no more than was sent: %lu",
		     (unsigned long)st.capacity);
	in = input(25000, false, 4, 4);
	st = until_settle(&a, &in, &now);
	cr_assert_eq(st.reason, CAKE_AUTORATE_SETTLE);
	cr_assert_eq(st.rate, MBIT(5.5) * 942 / 1024, "%lu", (unsigned long)st.rate);
}

/*
 * Ingress: the senders are remote and see only CAKE's drops, so the cut stays in
 * proportion to the excess (x 0.95 at most here) and waits for the delay to fall.
 */
Test(autorate, an_ingress_cut_stays_proportional)
{
	struct cake_autorate a;
	struct cake_autorate_config c = {.min_rate = MBIT(1), .max_rate = MBIT(100),
					 .start_rate = MBIT(4), .ingress = true};
	uint64_t cut, now = TICK;

	cr_assert_eq(cake_autorate_init(&a, &c, 0), 0);
	tick(&a, now, 1000, false, 4, 4);
	cut = tick(&a, now += TICK, 30000, false, 4, 4);
	cr_assert_eq(cut, MBIT(4) * 973 / 1024, "%lu", (unsigned long)cut);
	for (int i = 0; i < 6; i++)
		cr_assert_eq(tick(&a, now += TICK, 25000, false, 3.8, 4), cut, "tick %d", i);
}

/*
 * On a short path (a 1 ms base RTT) the remote senders answer CAKE's drops within a
 * millisecond, so the ingress cut drains the excess in 50 ms, not 500: about 14 ms
 * over T is k = 14/50 (on a 40 ms path x 0.95, the smallest cut).
 */
Test(autorate, an_ingress_cut_on_a_short_path_drains_in_50_ms)
{
	struct cake_autorate a;
	struct cake_autorate_config c = {.min_rate = MBIT(1), .max_rate = MBIT(100),
					 .start_rate = MBIT(4), .ingress = true};
	struct cake_autorate_input in = {
		.shaped_bytes = MBIT(4) / 20,
		.sig = {.owd_samples = 8, .owd_flows = 2, .qdelay_us = 1000, .rtt_samples = 4,
			.rtt_min_us = 1000, .delivered_bytes = MBIT(4) / 20},
	};
	struct cake_autorate_status st;
	uint64_t cut, k;

	cr_assert_eq(cake_autorate_init(&a, &c, 0), 0);
	cake_autorate_tick(&a, &in, TICK);
	cake_autorate_get(&a, &st); /* T: 2 MTU times at the rate the first tick reached */
	k = (20000 - st.target_us) * 1024 / 50000;
	cr_assert_geq(k, 280, "%lu", (unsigned long)k);
	in.sig.qdelay_us = 20000;
	cut = cake_autorate_tick(&a, &in, 2 * TICK);
	cr_assert_eq(cut, MBIT(4) * (1024 - k) / 1024, "%lu", (unsigned long)cut);
}

/*
 * Uploads beside downloads (rrul): the uplink carries the downloads' ACKs, which D, from
 * the uploads' ACK progress, leaves out. A cut from D settles back to D with the bytes
 * sent without payload added (5 + 0.6 Mbit/s), not to D alone, and no higher than S.
 */
Test(autorate, a_settle_counts_the_bytes_sent_without_payload)
{
	static const double other[] = {0, 0.6, 2};
	static const double want[] = {5, 5.6, 6};

	for (int i = 0; i < 3; i++) {
		struct cake_autorate a = make(1, 100, 6);
		struct cake_autorate_input in = input(1000, false, 6, 5);
		struct cake_autorate_status st;
		uint64_t now = TICK;

		in.sig.other_bytes = (uint64_t)(other[i] * 1e6 / 8 * (double)TICK / 1e9);
		cake_autorate_tick(&a, &in, now);
		in.sig.qdelay_us = 30000;
		cake_autorate_tick(&a, &in, now += TICK);
		cake_autorate_get(&a, &st);
		cr_assert_eq(st.capacity / 1000, MBIT(want[i]) / 1000, "other %.1f: %lu", other[i],
			     (unsigned long)st.capacity);
		in.sig.qdelay_us = 1000;
		st = until_settle(&a, &in, &now);
		cr_assert_eq(st.reason, CAKE_AUTORATE_SETTLE);
		cr_assert_eq(st.rate, st.capacity * 942 / 1024, "%lu", (unsigned long)st.rate);
	}
}

/*
 * Ingress, cut already, and the queue still grows (the remote senders outgrow the cut:
 * their windows grow, and what stood in CAKE's queue still comes): a further cut from
 * the capacity seen, k from the larger excess, though D (the arrival rate, 40 Mbit/s)
 * is over the rate. A delay that grows no more changes nothing.
 */
Test(autorate, an_ingress_queue_that_still_grows_cuts_deeper)
{
	struct cake_autorate a;
	struct cake_autorate_config c = {.min_rate = MBIT(1), .max_rate = MBIT(100),
					 .start_rate = MBIT(40), .ingress = true};
	struct cake_autorate_input in = input(1000, false, 40, 40);
	struct cake_autorate_status st;
	uint64_t first, second, k;

	cr_assert_eq(cake_autorate_init(&a, &c, 0), 0);
	in.sig.rtt_samples = 4;
	in.sig.rtt_min_us = 1000; /* a short path: the excess drains in 50 ms */
	cake_autorate_tick(&a, &in, TICK);
	in.sig.qdelay_us = 12000;
	first = cake_autorate_tick(&a, &in, 2 * TICK);
	cake_autorate_get(&a, &st);
	cr_assert_eq(st.capacity, MBIT(40), "%lu", (unsigned long)st.capacity);
	cr_assert_lt(first, MBIT(38), "%lu", (unsigned long)first);
	in.sig.qdelay_us = 30000;
	second = cake_autorate_tick(&a, &in, 3 * TICK);
	cake_autorate_get(&a, &st);
	k = (30000 - st.target_us) * 1024 / 50000;
	cr_assert_eq(second, MBIT(40) * (1024 - k) / 1024, "%lu", (unsigned long)second);
	cr_assert_eq(cake_autorate_tick(&a, &in, 4 * TICK), second, "no longer growing");
}

/*
 * After a dip the capacity may come back: far below the rate that last bloated, with no
 * queue at all, each such tick climbs faster than 1/16 (from 4 to 30 Mbit/s: 34 ticks
 * at 1/16), yet never past that rate.
 */
Test(autorate, far_below_the_last_bloat_the_climb_speeds_up)
{
	struct cake_autorate a = make(1, 100, 40);
	uint64_t now = TICK, r, prev, bloat = MBIT(40);
	int ticks = 0;

	tick(&a, now, 1000, false, 40, 40);
	tick(&a, now += TICK, 300000, false, 40, 4);
	r = tick(&a, now += TICK, 300000, false, 40, 4);
	cr_assert_lt(r, MBIT(4));
	r = tick(&a, now += TICK, 1000, false, 2, 4); /* drained */
	while (r < MBIT(30) && ticks < 100) {
		double m = (double)r * 8 / 1e6;

		prev = r;
		r = tick(&a, now += TICK, 500, false, m, m);
		cr_assert_lt(r, bloat, "from %lu", (unsigned long)prev);
		ticks++;
	}
	cr_assert_lt(ticks, 25, "%d ticks", ticks);
}

/* The input of a tick on a path whose base RTT is rtt_us: one-way delay d, rates in Mbit/s. */
static struct cake_autorate_input input_on(uint32_t rtt_us, uint32_t d, double sent,
					   double delivered)
{
	struct cake_autorate_input in = input(d, false, sent, delivered);

	in.sig.rtt_samples = 4;
	in.sig.rtt_min_us = rtt_us + d;
	return in;
}

/* One such tick at now. */
static uint64_t tick_on(struct cake_autorate *a, uint64_t now, uint32_t rtt_us, uint32_t d,
			double sent, double delivered)
{
	struct cake_autorate_input in = input_on(rtt_us, d, sent, delivered);

	return cake_autorate_tick(a, &in, now);
}

/*
 * On a short path (a 1 ms base RTT) our own senders answer a cut within a millisecond,
 * and the queue a drop left drains in 60 ms, not 200: 24 ms of it is k = 24/60, at
 * C x (1 - k) for 60 ms, then back to 0.92 x C.
 */
Test(autorate, an_upload_cut_on_a_short_path_drains_in_60_ms)
{
	struct cake_autorate a = make(1, 100, 4);
	uint64_t cut, k = 24000 * 1024 / 60000, now = TICK;

	tick_on(&a, now, 1000, 1000, 4, 4);
	cut = tick_on(&a, now += TICK, 1000, 24000, 4, 4);
	cr_assert_eq(cut, MBIT(4) * (1024 - k) / 1024, "%lu", (unsigned long)cut);
	cr_assert_eq(tick_on(&a, now += TICK, 1000, 20000, 2.4, 4), cut, "50 ms: draining");
	cr_assert_eq(tick_on(&a, now += TICK, 1000, 15000, 2.4, 4), MBIT(4) * 942 / 1024,
		     "drained by 60 ms");
}

/*
 * On a path of rtt_us, one direction (egress, or ingress): the capacity 30 Mbit/s is
 * seen in a bloat, then the link drops to 6 (two ticks of 300 ms queue, the deep cut;
 * drained), and the rate re-bloats at the dip's level. Leaves the controller at the
 * end of that cut's settle, at *now.
 */
static struct cake_autorate dip_in(uint32_t rtt_us, uint64_t *now, bool ingress)
{
	struct cake_autorate a;
	struct cake_autorate_config c = {.min_rate = MBIT(1), .max_rate = MBIT(100),
					 .start_rate = MBIT(30), .ingress = ingress};
	uint64_t r;

	cr_assert_eq(cake_autorate_init(&a, &c, 0), 0);
	tick_on(&a, *now += TICK, rtt_us, 8000, 30, 30); /* a bloat: C = 30 */
	tick_on(&a, *now += TICK, rtt_us, 500, 28, 28);
	tick_on(&a, *now += TICK, rtt_us, 300000, 28, 6); /* the drop: put off, */
	tick_on(&a, *now += TICK, rtt_us, 300000, 27, 6); /* ... then deep */
	r = tick_on(&a, *now += TICK, rtt_us, 500, 2, 6); /* drained: settles */
	cr_assert_lt(r, MBIT(6));
	for (int i = 0; i < 40 && r < MBIT(6.6); i++) {
		double m = (double)r * 8 / 1e6;

		r = tick_on(&a, *now += TICK, rtt_us, 500, m, m < 6 ? m : 6);
	}
	tick_on(&a, *now += TICK, rtt_us, 8000, (double)r * 8 / 1e6, 6); /* re-bloats */
	tick_on(&a, *now += TICK, rtt_us, 500, 6, 6);
	cr_assert_lt(a.bloat_rate, MBIT(8), "B is the dip's level");
	return a;
}

/* The same, on egress. */
static struct cake_autorate dip(uint32_t rtt_us, uint64_t *now)
{
	return dip_in(rtt_us, now, false);
}

/* Ticks of no queue, the shaper full, until the rate reaches goal (at most 100). */
static int climb(struct cake_autorate *a, uint64_t *now, uint32_t rtt_us, uint64_t goal)
{
	int ticks = 0;

	for (uint64_t r = a->rate; r < goal && ticks < 100; ticks++) {
		double m = (double)r * 8 / 1e6;

		r = tick_on(a, *now += TICK, rtt_us, 500, m, m);
	}
	return ticks;
}

/*
 * Recall (autorate.c): on a short path the capacity before a drop is remembered, and
 * once the rate passes the dip's B with no queue, the climb takes it as B, fast: 12
 * ticks from the dip's level to 0.8 x 30 on a 1 ms path, 31 without the recall. A 40 ms
 * path remembers none and climbs as before, in 31.
 */
Test(autorate, a_short_path_climbs_back_to_the_capacity_before_a_dip)
{
	uint64_t now = 0;
	struct cake_autorate a = dip(1000, &now), far;
	int ticks, far_ticks;

	cr_assert_geq(a.recall_rate, MBIT(29), "%lu", (unsigned long)a.recall_rate);
	ticks = climb(&a, &now, 1000, MBIT(24));
	cr_assert_eq(a.recall_rate, 0, "used once");
	cr_assert(a.recalling);
	now = 0;
	far = dip(40000, &now);
	cr_assert_eq(far.recall_rate, 0, "none on a long path");
	far_ticks = climb(&far, &now, 40000, MBIT(24));
	cr_assert_lt(ticks, 14, "%d ticks", ticks);
	cr_assert_gt(far_ticks, 2 * ticks, "%d ticks against %d", far_ticks, ticks);
}

/*
 * The tick that finds the rate past the dip's B with no queue, a recall known, takes it
 * half of the way back in one step (the geometric mean of R and the recall), not 1/16:
 * the link came back, and a partial return still shows before the rest of the climb.
 * Then, while the shaper stays full, the climb goes on at its fastest, 1/4 per tick
 * (session 21).
 */
Test(autorate, a_recall_goes_half_of_the_way_back_at_once)
{
	uint64_t now = 0, before = 0, r = 0, recall;
	struct cake_autorate a = dip_in(1000, &now, true);
	struct cake_autorate_input in;
	int ticks = 0;

	recall = a.recall_rate;
	cr_assert_geq(recall, MBIT(29), "%lu", (unsigned long)recall);
	while (!a.recalling && ticks++ < 40) {
		double m = (double)a.rate * 8 / 1e6;

		before = a.rate;
		r = tick_on(&a, now += TICK, 1000, 500, m, m);
	}
	cr_assert(a.recalling, "the recall is taken within 40 ticks");
	cr_assert_lt(before, MBIT(7), "from the dip's level");
	/* r = sqrt(before x recall), within 1/128 */
	cr_assert_geq(r * r, before * recall - before * recall / 64, "%lu from %lu",
		      (unsigned long)r, (unsigned long)before);
	cr_assert_leq(r * r, before * recall + before * recall / 64, "%lu from %lu",
		      (unsigned long)r, (unsigned long)before);
	/* the next tick, CAKE backlogged: over the two ticks S is about 3/4 of the new rate,
	 * under 8/10 of it, so the backlog is what calls the shaper full */
	in = input_on(1000, 500, (double)r * 8 / 1e6, (double)r * 8 / 1e6);
	in.backlogged = true;
	before = r;
	r = cake_autorate_tick(&a, &in, now += TICK);
	cr_assert_geq(r, before + before / 4 - before / 256, "then 1/4 per tick: %lu from %lu",
		      (unsigned long)r, (unsigned long)before);
}

/*
 * A recall's climb that passes the capacity before the dip with no queue (the link came
 * back higher than it was: an LTE cell 30 -> 8 -> 55 Mbit/s) goes on at the recall's
 * pace, not from the slowest step again: from 1.02 x 30 to 50 in 7 ticks, 13 when
 * the count started over.
 */
Test(autorate, a_recall_that_passes_the_old_capacity_keeps_its_pace)
{
	uint64_t now = 0;
	struct cake_autorate a = dip(1000, &now);
	int ticks;

	climb(&a, &now, 1000, MBIT(30.6));
	cr_assert(a.recalling, "climbing back");
	cr_assert_lt(a.bloat_rate, a.rate, "past the capacity before the dip");
	ticks = climb(&a, &now, 1000, MBIT(50));
	cr_assert_geq(a.rate, MBIT(50));
	cr_assert_lt(ticks, 10, "%d ticks", ticks);
}

/*
 * The bloat that ends a recall's climb (the capacity did not come back: here a new dip
 * to 4 Mbit/s, far below even the dip's 6) remembers no capacity, so a failed return
 * does not start another; the next drop after it does.
 */
Test(autorate, a_cut_that_ends_a_recall_remembers_none)
{
	uint64_t now = 0, r;
	struct cake_autorate a = dip(1000, &now);

	climb(&a, &now, 1000, MBIT(12));
	r = a.rate;
	cr_assert_geq(r, MBIT(12));
	cr_assert(a.recalling, "climbing back");
	tick_on(&a, now += TICK, 1000, 300000, (double)r * 8 / 1e6, 4);
	tick_on(&a, now += TICK, 1000, 300000, (double)r * 8 / 1e6, 4);
	cr_assert_lt(a.capacity, MBIT(4.5), "below 3/4 of the dip's 6");
	cr_assert_eq(a.recall_rate, 0);
	cr_assert(!a.recalling);
	/* the link comes back to 16 (rates are over two ticks), then drops to 3: that drop
	 * is remembered */
	tick_on(&a, now += TICK, 1000, 500, 2, 4);
	tick_on(&a, now += TICK, 1000, 500, 16, 16);
	tick_on(&a, now += TICK, 1000, 8000, 16, 16);
	tick_on(&a, now += TICK, 1000, 500, 15, 15);
	tick_on(&a, now += TICK, 1000, 300000, 15, 3);
	tick_on(&a, now += TICK, 1000, 300000, 14, 3);
	cr_assert_geq(a.recall_rate, MBIT(15.9), "%lu", (unsigned long)a.recall_rate);
}

/*
 * The ticks from a bloat at 20 Mbit/s to 40 with no queue after it, one direction, on a
 * path of rtt_us.
 */
static int rise_after_a_bloat(bool ingress, uint32_t rtt_us)
{
	struct cake_autorate a;
	struct cake_autorate_config c = {.min_rate = MBIT(1), .max_rate = MBIT(100),
					 .start_rate = MBIT(20), .ingress = ingress};
	uint64_t now = 0, r;
	int ticks = 0;

	cr_assert_eq(cake_autorate_init(&a, &c, 0), 0);
	tick_on(&a, now += TICK, rtt_us, 1000, 20, 20);
	tick_on(&a, now += TICK, rtt_us, 8000, 20, 19); /* a bloat: B = 20 */
	r = tick_on(&a, now += TICK, rtt_us, 500, 19, 19); /* settles */
	cr_assert_lt(r, MBIT(20));
	while (r < MBIT(40) && ticks < 200) {
		double m = (double)r * 8 / 1e6;

		r = tick_on(&a, now += TICK, rtt_us, 500, m, m);
		ticks++;
	}
	return ticks;
}

/*
 * Past the rate that last bloated with no queue, the capacity rose: each such probe
 * faster. On ingress (remote senders, which fill what the shaper lets through at once)
 * the step doubles every probe, not every two, starts at 1/64, and goes on to 1/4 with
 * no pause at 1/16. From a settle below 20 Mbit/s to 40 on a 40 ms path: egress 27
 * ticks, ingress 19 (24 before the start at 1/64).
 */
Test(autorate, an_ingress_rise_doubles_its_step_every_probe)
{
	int up = rise_after_a_bloat(false, 40000), down = rise_after_a_bloat(true, 40000);

	printf("20 -> 40 Mbit/s after a bloat at 20, 40 ms path: egress %d ticks, ingress %d\n",
	       up, down);
	cr_assert_leq(down, up - 6, "ingress %d ticks, egress %d", down, up);
}

/*
 * On a short path neither direction creeps at the rate that last bloated: the last 1/64
 * to past it takes one tick. And an egress rise climbs at the ingress pace there
 * (session 18): from 1/64 per tick, doubling every probe to x1.25 with no pause at 1/16,
 * as the early tick catches an overshoot within a few ms. The same rise on a 1 ms path:
 * 15 ticks either way (egress 23 at the pace of longer paths), and 27 and 19 on a 40 ms
 * path.
 */
Test(autorate, on_a_short_path_a_rise_does_not_creep_at_the_last_bloat)
{
	int up = rise_after_a_bloat(false, 40000), down = rise_after_a_bloat(true, 40000);
	int up_short = rise_after_a_bloat(false, 1000), down_short = rise_after_a_bloat(true, 1000);

	printf("20 -> 40 Mbit/s after a bloat at 20, 1 ms path: egress %d ticks, ingress %d\n",
	       up_short, down_short);
	cr_assert_lt(down_short, down, "ingress %d ticks, on a short path %d", down, down_short);
	cr_assert_lt(up_short, up, "egress %d ticks, on a short path %d", up, up_short);
	cr_assert_leq(up_short, down_short + 1, "egress %d ticks, ingress %d", up_short,
		      down_short);
}

/*
 * On a short path a recall's climb keeps 1/16 per tick up to the old capacity and takes
 * the last 1/64 past it in one tick, in either direction: an overshoot there shows
 * within a millisecond or two. From the dip's level to 30 Mbit/s with no queue: 14
 * ticks either way (egress 16 before its quick rise), where slowing within a quarter of
 * it took 20 and 22.
 */
Test(autorate, a_recall_climbs_to_the_old_capacity_at_full_pace)
{
	uint64_t now = 0, now_up = 0;
	struct cake_autorate down = dip_in(1000, &now, true), up = dip(1000, &now_up);
	int ticks_down, ticks_up;

	cr_assert_geq(down.recall_rate, MBIT(29), "%lu", (unsigned long)down.recall_rate);
	ticks_down = climb(&down, &now, 1000, MBIT(30));
	ticks_up = climb(&up, &now_up, 1000, MBIT(30));
	printf("dip 6 -> 30 Mbit/s on a 1 ms path: ingress %d ticks, egress %d\n", ticks_down,
	       ticks_up);
	cr_assert(down.recalling && up.recalling);
	cr_assert_leq(ticks_down, 17, "ingress %d ticks", ticks_down);
	cr_assert_leq(ticks_up, 17, "egress %d ticks", ticks_up);
}

/*
 * A recall's climb that ends in a bloat (the link did not come back) overshot it, by as
 * much as the last leap took (here 6 -> 12 Mbit/s against a link still at 6). B is then
 * the capacity that bloat saw plus 1/16, not the rate it began at: else the next climb
 * treats the overshoot as the link's knee, slows within a quarter below it and creeps
 * when the link does rise (the benchmark's lte rrul downloads: 20.9 -> 35 Mbit/s in 0.65
 * s of a 20 -> 45 rise, after such a bloat at 35), and while the link stays at the dip's
 * level the climb toward the stale B speeds up to 1/4 per tick and overshoots again.
 * From the settle to 24 Mbit/s, the link back at 30: 19 ticks, 21 with B at the
 * overshoot.
 */
Test(autorate, a_failed_recall_leaves_b_near_the_capacity)
{
	uint64_t now = 0, r;
	struct cake_autorate a = dip(1000, &now);
	int ticks;

	climb(&a, &now, 1000, MBIT(12));
	r = a.rate;
	cr_assert_geq(r, MBIT(12));
	cr_assert(a.recalling, "climbing back");
	tick_on(&a, now += TICK, 1000, 300000, (double)r * 8 / 1e6, 6); /* the link is at 6 */
	cr_assert(!a.recalling);
	cr_assert_leq(a.bloat_rate, a.capacity + a.capacity / 16 + 1, "B %lu, C %lu",
		      (unsigned long)a.bloat_rate, (unsigned long)a.capacity);
	cr_assert_lt(a.bloat_rate, r / 2, "B %lu, the bloat began at %lu",
		     (unsigned long)a.bloat_rate, (unsigned long)r);
	tick_on(&a, now += TICK, 1000, 300000, (double)r * 8 / 1e6, 6);
	cr_assert_lt(a.rate, MBIT(6));
	tick_on(&a, now += TICK, 1000, 500, 5, 5); /* settles */
	ticks = climb(&a, &now, 1000, MBIT(24));
	printf("after a failed recall, a rise 6 -> 30 Mbit/s on a 1 ms path: %d ticks\n", ticks);
	cr_assert_leq(ticks, 19, "%d ticks", ticks);
}

/*
 * On ingress a recall's leap also needs the arrivals over the two ticks to come within
 * 1/16 of R (D is every byte that crossed the link): a link that came back delivers what
 * the shaper lets through, a link still at the dip's level delivers less. In the
 * benchmark, three of the 14 ingress leaps of one lte and Wi-Fi round went up by half
 * or more with the link unchanged, and a queue showed within 20-40 ms; D was 0.88-0.92 of
 * R at those leaps' ticks and 1.00-1.18 at the others'.
 */
Test(autorate, an_ingress_recall_waits_for_the_link_to_deliver)
{
	uint64_t now = 0, r = 0, before;
	struct cake_autorate a = dip_in(1000, &now, true);
	int ticks = 0;

	cr_assert_geq(a.recall_rate, MBIT(29), "%lu", (unsigned long)a.recall_rate);
	while (a.rate < a.bloat_rate + a.bloat_rate / 16 && ticks++ < 40) {
		double m = (double)a.rate * 8 / 1e6;

		r = tick_on(&a, now += TICK, 1000, 500, m, 6); /* the link delivers 6 */
		cr_assert(!a.recalling, "no leap at %lu, D 6 Mbit/s", (unsigned long)r);
	}
	cr_assert_geq(a.rate, a.bloat_rate + a.bloat_rate / 16, "past B by 1/16");
	before = a.rate;
	tick_on(&a, now += TICK, 1000, 500, (double)before * 8 / 1e6, (double)before * 8 / 1e6);
	r = tick_on(&a, now += TICK, 1000, 500, (double)before * 8 / 1e6,
		    (double)before * 8 / 1e6); /* both ticks' D at R: the link came back */
	cr_assert(a.recalling, "the leap, once the link delivers R");
	cr_assert_geq(r, before + before / 2, "%lu from %lu", (unsigned long)r,
		      (unsigned long)before);
}
