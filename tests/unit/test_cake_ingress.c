/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ingress mode (dropped packets still use up the shaper; the AQM leaves every bulk flow
 * a couple of packets) and autorate-ingress (the shaper follows 15/16 of the measured
 * arrival rate, at most every 250 ms).
 */
#include <criterion/criterion.h>
#include <math.h>

#include "tests/support/cake_harness.h"

#define MS(x) ((uint64_t)(x) * 1000000)

/*
 * 30 packets arrive at once where 25 fit: 5 are pruned. The 25 others then leave one
 * serialisation time apart; in ingress mode the 5 dropped ones used up their own slots
 * too, so the last packet leaves 5 slots later, and the bytes the shaper charged
 * (cake_shaped_bytes, what autorate weighs its rate against) count them.
 */
static uint64_t drain_time(bool ingress, uint64_t *dropped, uint64_t *shaped)
{
	struct cake_options o = h_opts_rate(H_MBIT(10));
	struct harness *h;
	uint64_t t0, last;
	int s, i;

	o.present |= CAKE_OPT_MEMLIMIT | CAKE_OPT_INGRESS;
	o.memlimit_bytes = 25 * 1500;
	o.ingress = ingress;
	h_opts_quiet_aqm(&o);
	h = h_new(&o, 64, 51);
	cr_assert_not_null(h);
	s = h_add(h, H_GREEDY, 1500);
	h->src[s].depth = 0;
	t0 = h->now;
	for (i = 0; i < 30; i++)
		cr_assert(h_send(h, s));
	h_run(h, t0 + MS(100));
	cr_assert_eq(h->src[s].sent_pkts, 25);
	*dropped = h->drops[CAKE_DROP_OVERLIMIT];
	*shaped = cake_shaped_bytes(h->q);
	last = h->src[s].last_ns - t0;
	h_free_all(h);
	return last;
}

Test(cake_ingress, drops_use_up_the_shaper)
{
	const uint64_t slot = 1500ull * 1000000000ull / H_MBIT(10); /* 1.2 ms */
	uint64_t egress, ingress, d1, d2, s1, s2;

	egress = drain_time(false, &d1, &s1);
	ingress = drain_time(true, &d2, &s2);
	cr_assert_eq(d1, 5);
	cr_assert_eq(d2, 5);
	cr_assert_eq(s1, 25 * 1500);
	cr_assert_eq(s2, 30 * 1500);
	cr_assert(egress >= 24 * slot - 10 && egress <= 24 * slot + 10, "egress %lu",
		  (unsigned long)egress);
	cr_assert(ingress >= 29 * slot - 10 && ingress <= 29 * slot + 10, "ingress %lu",
		  (unsigned long)ingress);
}

/*
 * Under an unresponsive overload, ingress mode delivers less than the rate, because the
 * dropped bytes are charged to the shaper too; egress delivers the full rate.
 */
static double overload_share(bool ingress, double *charged)
{
	struct cake_options o = h_opts_rate(H_MBIT(10));
	struct harness *h;
	uint64_t end;
	double got;
	int s;

	o.present |= CAKE_OPT_INGRESS;
	o.ingress = ingress;
	h = h_new(&o, 8192, 53);
	cr_assert_not_null(h);
	s = h_add_rate(h, 1500, H_MBIT(11));
	h->measure_from_ns = h->now + MS(3000);
	end = h->now + MS(8000);
	h_run(h, end);
	got = h_rate(h, s, end) / H_MBIT(10);
	*charged = (double)(h->src[s].adj_bytes + h->src[s].drop_adj_bytes) * 1e9 /
		   (double)(end - h->measure_from_ns) / H_MBIT(10);
	h_free_all(h);
	return got;
}

Test(cake_ingress, overload_charges_drops)
{
	double charged_e, charged_i;
	double egress = overload_share(false, &charged_e);
	double ingress = overload_share(true, &charged_i);

	cr_assert(fabs(egress - 1) < 0.01, "egress %f", egress);
	cr_assert_lt(ingress, 0.97, "ingress %f", ingress);
	/* the failsafe still lets about 2/3 of the rate through */
	cr_assert_gt(ingress, 0.6, "ingress %f", ingress);
	cr_assert_gt(charged_i, 1.0, "charged %f", charged_i);
	cr_assert_lt(charged_e, 1.11);
}

/*
 * In ingress mode COBALT only calls a queue over target when its sojourn also exceeds
 * 2 MTU times per bulk flow: 8 backlogged flows keeping two 1000-byte packets each are
 * left alone there, while egress mode signals them.
 */
static uint64_t aqm_drops(bool ingress)
{
	struct cake_options o = h_opts_rate(H_MBIT(10));
	struct harness *h;
	uint64_t drops;
	int i;

	o.present |= CAKE_OPT_INGRESS;
	o.ingress = ingress;
	h = h_new(&o, 4096, 55);
	cr_assert_not_null(h);
	for (i = 0; i < 8; i++)
		h_add_greedy(h, 1000, 2);
	h_run(h, h->now + MS(3000));
	drops = h->drops[CAKE_DROP_CONGESTED];
	h_free_all(h);
	return drops;
}

Test(cake_ingress, aqm_leaves_bulk_flows_two_packets)
{
	cr_assert_gt(aqm_drops(false), 10);
	cr_assert_eq(aqm_drops(true), 0);
}

/*
 * autorate-ingress: arrivals at a steady average rate; the estimate converges on it.
 * The gaps alternate 20% above and below the mean: the estimator closes a window only
 * on a gap longer than its average gap, which perfectly even arrivals never show.
 */
static void run_autorate(uint64_t initial_rate, uint64_t arrival, struct cake_stats *st,
			 struct cake_options *cur, int *changes_in_any_250ms)
{
	struct cake_options o = h_opts_rate(initial_rate);
	uint64_t last_rate = initial_rate, window_start;
	struct harness *h;
	int i, changes = 0;

	o.present |= CAKE_OPT_AUTORATE | CAKE_OPT_INGRESS;
	o.autorate_ingress = true;
	o.ingress = true;
	h = h_new(&o, 8192, 57);
	cr_assert_not_null(h);
	i = h_add_rate(h, 1200, arrival);
	h->src[i].jitter_ns = h->src[i].period_ns / 5;
	*changes_in_any_250ms = 0;
	window_start = h->now;
	for (i = 0; i < 600; i++) { /* 6 s in 10 ms steps */
		struct cake_options now_opts;

		h_run(h, h->now + MS(10));
		cake_get_options(h->q, &now_opts);
		if (now_opts.rate_bytes_per_sec != last_rate) {
			last_rate = now_opts.rate_bytes_per_sec;
			changes++;
		}
		if (h->now - window_start >= MS(250)) {
			if (changes > *changes_in_any_250ms)
				*changes_in_any_250ms = changes;
			changes = 0;
			window_start = h->now;
		}
	}
	cake_get_stats(h->q, st);
	cake_get_options(h->q, cur);
	h_free_all(h);
}

static void check_autorate(uint64_t initial_rate, uint64_t arrival)
{
	struct cake_options cur;
	struct cake_stats st;
	int changes;

	run_autorate(initial_rate, arrival, &st, &cur, &changes);
	cr_assert(fabs((double)st.capacity_estimate / arrival - 1) < 0.02,
		  "estimate %lu for arrivals at %lu", (unsigned long)st.capacity_estimate,
		  (unsigned long)arrival);
	cr_assert(cur.autorate_ingress);
	/* the shaper runs at 15/16 of the estimate (from the last reconfiguration) */
	cr_assert(fabs((double)cur.rate_bytes_per_sec / (st.capacity_estimate * 15.0 / 16) - 1) <
			  0.02,
		  "rate %lu estimate %lu", (unsigned long)cur.rate_bytes_per_sec,
		  (unsigned long)st.capacity_estimate);
	cr_assert_leq(changes, 1, "%d reconfigurations in 250 ms", changes);
	cr_assert_eq(st.tins[1].threshold_rate, cur.rate_bytes_per_sec);
}

Test(cake_ingress, autorate_converges_from_above)
{
	check_autorate(H_MBIT(100), H_MBIT(20));
}

Test(cake_ingress, autorate_converges_from_below)
{
	check_autorate(H_MBIT(1), H_MBIT(20));
	check_autorate(0, H_MBIT(5));
}

/* Without autorate-ingress the capacity estimate stays at the configured rate. */
Test(cake_ingress, no_autorate_keeps_rate)
{
	struct cake_options o = h_opts_rate(H_MBIT(30));
	struct cake_options cur;
	struct cake_stats st;
	struct harness *h = h_new(&o, 8192, 59);

	cr_assert_not_null(h);
	h_add_rate(h, 1200, H_MBIT(10));
	h_run(h, h->now + MS(2000));
	cake_get_stats(h->q, &st);
	cake_get_options(h->q, &cur);
	cr_assert_eq(st.capacity_estimate, H_MBIT(30));
	cr_assert_eq(cur.rate_bytes_per_sec, H_MBIT(30));
	h_free_all(h);
}
