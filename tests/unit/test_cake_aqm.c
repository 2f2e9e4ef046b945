/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * COBALT inside CAKE: a responsive (AIMD) flow's standing queue settles near target,
 * ECN-capable traffic is marked instead of dropped, and an unresponsive flood wakes
 * BLUE and cannot take more than its share.
 */
#include <criterion/criterion.h>

#include "qdisc/cobalt.h"
#include "tests/support/cake_harness.h"

#define MS(x) ((uint64_t)(x) * 1000000)

static double mean_delay_ms(const struct h_src *s)
{
	return s->delay_n ? (double)s->delay_sum_ns / (double)s->delay_n / 1e6 : 0;
}

/* One Reno-like flow, 20 ms base RTT, 20 Mbit/s: the queue sits around the 5 ms target,
 * the link stays busy, and the signals are drops. */
static void run_responsive(bool ecn, struct harness **out, int *si)
{
	struct cake_options o = h_opts_rate(H_MBIT(20));
	struct harness *h = h_new(&o, 8192, 41);
	int s;

	cr_assert_not_null(h);
	s = h_add_tcp(h, 1500, MS(20), ecn);
	h->measure_from_ns = h->now + MS(3000);
	h_run(h, h->now + MS(13000));
	*out = h;
	*si = s;
}

Test(cake_aqm, responsive_flow_settles_near_target)
{
	struct harness *h;
	uint64_t end;
	double delay, util;
	int s;

	run_responsive(false, &h, &s);
	end = h->now;
	delay = mean_delay_ms(&h->src[s]);
	util = h_rate(h, s, end) / H_MBIT(20);
	cr_assert(delay > 1.5 && delay < 10, "mean queueing delay %f ms", delay);
	cr_assert_lt(h->src[s].delay_max_ns, MS(40));
	cr_assert_gt(util, 0.9, "utilisation %f", util);
	cr_assert_gt(h->src[s].drop_pkts[CAKE_DROP_CONGESTED], 5);
	cr_assert_eq(h->src[s].drop_pkts[CAKE_DROP_OVERLIMIT], 0);
	cr_assert_eq(h->marks, 0);
	h_free_all(h);
}

Test(cake_aqm, ect_flow_is_marked_not_dropped)
{
	struct harness *h;
	struct cake_stats st;
	double delay;
	int s;

	run_responsive(true, &h, &s);
	delay = mean_delay_ms(&h->src[s]);
	cake_get_stats(h->q, &st);
	cr_assert_gt(h->src[s].marks, 5);
	cr_assert_eq(h->drops[CAKE_DROP_CONGESTED], 0);
	cr_assert_eq(h->drops[CAKE_DROP_OVERLIMIT], 0);
	cr_assert_eq(st.tins[1].ecn_mark, h->marks); /* Best Effort column */
	cr_assert_eq(st.tins[1].drops, 0);
	cr_assert(delay > 1.5 && delay < 10, "mean queueing delay %f ms", delay);
	h_free_all(h);
}

/*
 * Without the AQM signals the same flow would fill the queue: with an rtt of an hour
 * (target 3 minutes) nothing is signalled below the memory limit, and the delay grows
 * far past what COBALT allows.
 */
Test(cake_aqm, without_signals_the_queue_grows)
{
	struct cake_options o = h_opts_rate(H_MBIT(20));
	struct harness *h;
	int s;

	h_opts_quiet_aqm(&o);
	h = h_new(&o, 8192, 41);
	cr_assert_not_null(h);
	s = h_add_tcp(h, 1500, MS(20), false);
	h->measure_from_ns = h->now + MS(3000);
	h_run(h, h->now + MS(8000));
	cr_assert_gt(mean_delay_ms(&h->src[s]), 40, "%f", mean_delay_ms(&h->src[s]));
	h_free_all(h);
}

/*
 * An unresponsive flood at twice the link rate next to a backlogged flow: the memory
 * limit overflows, BLUE wakes on the flood (un_flows, blue_prob), and the flood gets no
 * more than half the link.
 */
Test(cake_aqm, unresponsive_flood_wakes_blue)
{
	struct cake_options o = h_opts_rate(H_MBIT(10));
	struct cake_flow_stats fs;
	struct cake_stats st;
	struct harness *h;
	uint64_t end;
	double flood_share, other_share;
	int flood, other;
	unsigned int idx;

	o.present |= CAKE_OPT_MEMLIMIT;
	o.memlimit_bytes = 150000;
	h = h_new(&o, 8192, 43);
	cr_assert_not_null(h);
	flood = h_add_rate(h, 1500, H_MBIT(20));
	other = h_add_greedy(h, 1500, 4);
	h->measure_from_ns = h->now + MS(1000);
	end = h->now + MS(6000);
	h_run(h, end);

	flood_share = h_rate(h, flood, end) / H_MBIT(10);
	other_share = h_rate(h, other, end) / H_MBIT(10);
	cr_assert_leq(flood_share, 0.52, "flood %f", flood_share);
	cr_assert_geq(other_share, 0.48, "other %f", other_share);
	cr_assert_gt(h->src[flood].drop_pkts[CAKE_DROP_OVERLIMIT], 0);

	cake_get_stats(h->q, &st);
	cr_assert_geq(st.tins[1].unresponsive_flows, 1);
	idx = h->src[flood].flow_hash % CAKE_QUEUES; /* no collision in this run */
	cr_assert_eq(cake_get_flow_stats(h->q, 1, idx, h->now, &fs), 0);
	cr_assert(fs.active);
	cr_assert_gt(fs.p_drop, 0);
	cr_assert_geq(fs.blue_timer_us, 0);
	cr_assert_gt(fs.qlen, 0);
	h_free_all(h);
}

/* BLUE drops even ECN-capable floods: marks alone would not slow them down. */
Test(cake_aqm, blue_drops_ect_flood)
{
	struct cake_options o = h_opts_rate(H_MBIT(10));
	struct harness *h;
	int flood;

	o.present |= CAKE_OPT_MEMLIMIT;
	o.memlimit_bytes = 150000;
	h = h_new(&o, 8192, 45);
	cr_assert_not_null(h);
	flood = h_add_rate(h, 1500, H_MBIT(20));
	h->src[flood].ecn = 1; /* ECT(1) */
	h_add_greedy(h, 1500, 4);
	h_run(h, h->now + MS(5000));
	cr_assert_gt(h->marks, 0);
	cr_assert_gt(h->src[flood].drop_pkts[CAKE_DROP_CONGESTED], 0);
	h_free_all(h);
}

/* Once the flood stops, BLUE decays and the flow leaves the unresponsive count. */
Test(cake_aqm, blue_decays_after_the_flood)
{
	struct cake_options o = h_opts_rate(H_MBIT(10));
	struct cake_flow_stats fs;
	struct cake_stats st;
	struct harness *h;
	int flood, light;
	unsigned int idx;

	o.present |= CAKE_OPT_MEMLIMIT;
	o.memlimit_bytes = 150000;
	h = h_new(&o, 8192, 47);
	cr_assert_not_null(h);
	flood = h_add_rate(h, 1500, H_MBIT(20));
	h->src[flood].stop_ns = h->now + MS(300);
	/* BLUE decays only when COBALT finds the queue empty, which needs a visit while
	 * other packets are queued (an empty qdisc returns before looking): a light flow on
	 * the flood's queue next to a backlogged one provides both */
	light = h_add_periodic(h, 100, MS(5));
	h->src[light].flow_hash = h->src[flood].flow_hash;
	h_add_greedy(h, 1500, 2);
	h_run(h, h->now + MS(300));
	cake_get_stats(h->q, &st);
	cr_assert_geq(st.tins[1].unresponsive_flows, 1);
	idx = h->src[flood].flow_hash % CAKE_QUEUES;
	cr_assert_eq(cake_get_flow_stats(h->q, 1, idx, h->now, &fs), 0);
	cr_assert_gt(fs.p_drop, 0);
	/* 1/4096 per target (5 ms) at most: p_drop / p_dec steps, plus slack */
	h_run(h, h->now + MS(6) * (fs.p_drop / COBALT_P_DEC + 1) + MS(1000));
	cake_get_stats(h->q, &st);
	cr_assert_eq(st.tins[1].unresponsive_flows, 0);
	cr_assert_eq(cake_get_flow_stats(h->q, 1, idx, h->now, &fs), 0);
	cr_assert_eq(fs.p_drop, 0);
	h_free_all(h);
}
