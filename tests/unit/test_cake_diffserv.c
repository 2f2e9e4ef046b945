/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Diffserv: the DSCP tables, thresholds and quanta, tin selection (DSCP, fwmark, wash),
 * and how saturated tins share the link: priority up to the threshold, the rest to
 * the lower tins, exactly as sch_cake's dequeue computes it.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "qdisc/diffserv.h"
#include "tests/support/cake_harness.h"

#define MS(x) ((uint64_t)(x) * 1000000)

/* Codepoint sets per tin, as decoded from sch_cake.c in REFERENCE.md §4.5. */
struct dscp_set {
	unsigned int tin;
	uint8_t dscp[16];
	int n;
};

static void check_sets(enum cake_diffserv_mode mode, unsigned int default_tin,
		       const struct dscp_set *sets, int nsets)
{
	unsigned int want[64];
	int i, j;

	for (i = 0; i < 64; i++)
		want[i] = default_tin;
	for (i = 0; i < nsets; i++)
		for (j = 0; j < sets[i].n; j++)
			want[sets[i].dscp[j]] = sets[i].tin;
	for (i = 0; i < 64; i++)
		cr_assert_eq(cake_diffserv_tin_of(mode, (uint8_t)i), want[i], "mode %d dscp %d",
			     mode, i);
}

Test(cake_diffserv, diffserv3_table)
{
	static const struct dscp_set sets[] = {
		{ 1, { 1, 8 }, 2 },
		{ 2, { 4, 44, 46, 48, 56 }, 5 },
	};

	check_sets(CAKE_DIFFSERV_DIFFSERV3, 0, sets, 2);
}

Test(cake_diffserv, diffserv4_table)
{
	static const struct dscp_set sets[] = {
		{ 1, { 1, 8 }, 2 },
		{ 2, { 4, 16, 18, 20, 22, 24, 26, 28, 30, 34, 36, 38 }, 12 },
		{ 3, { 32, 40, 44, 46, 48, 56 }, 6 },
	};

	check_sets(CAKE_DIFFSERV_DIFFSERV4, 0, sets, 3);
}

Test(cake_diffserv, diffserv8_table)
{
	static const struct dscp_set sets[] = {
		{ 0, { 1 }, 1 },
		{ 1, { 2, 8, 10, 12, 14 }, 5 },
		{ 3, { 24, 26, 28, 30, 34, 36, 38 }, 7 },
		{ 4, { 4, 18, 20, 22 }, 4 },
		{ 5, { 16 }, 1 },
		{ 6, { 32, 40, 44, 46 }, 4 },
		{ 7, { 48, 56 }, 2 },
	};

	check_sets(CAKE_DIFFSERV_DIFFSERV8, 2, sets, 7);
}

Test(cake_diffserv, precedence_and_besteffort_tables)
{
	int d;

	for (d = 0; d < 64; d++) {
		cr_assert_eq(cake_diffserv_tin_of(CAKE_DIFFSERV_PRECEDENCE, (uint8_t)d),
			     (unsigned int)d >> 3);
		cr_assert_eq(cake_diffserv_tin_of(CAKE_DIFFSERV_BESTEFFORT, (uint8_t)d), 0);
	}
}

/* The published `tc -s qdisc show` sample (reference-tc-cake-stats.txt): 50 Mbit,
 * diffserv3 on ethernet (MTU 1500 + 14), columns Bulk, Best Effort, Voice. */
Test(cake_diffserv, stats_match_published_sample)
{
	static const struct cake_ops ops = { .drop = NULL };
	struct cake_options o = h_opts_rate(50000000 / 8);
	struct cake_params p = { .mtu_bytes = 1514 };
	struct cake_ops real = ops;
	struct cake_stats st;
	struct harness *h = h_new(NULL, 1, 1); /* only for its drop op */
	struct cake *q;

	cr_assert_not_null(h);
	real.drop = h_op_drop;
	p.ops = &real;
	p.ctx = h;
	q = cake_new(&p, &o, 0);
	cr_assert_not_null(q);
	cake_get_stats(q, &st);
	cr_assert_eq(st.tin_count, 3);
	cr_assert_str_eq(cake_diffserv_tin_name(st.diffserv, 1), "Bulk");
	/* thresh 3125Kbit 50Mbit 12500Kbit */
	cr_assert_eq(st.tins[0].threshold_rate * 8, 3125000);
	cr_assert_eq(st.tins[1].threshold_rate * 8, 50000000);
	cr_assert_eq(st.tins[2].threshold_rate * 8, 12500000);
	/* target 5.81ms 5ms 5ms; interval 101ms 100ms 100ms (tc rounds) */
	cr_assert_eq((st.tins[0].target_us + 5) / 10, 581);
	cr_assert_eq(st.tins[1].target_us, 5000);
	cr_assert_eq(st.tins[2].target_us, 5000);
	cr_assert_eq((st.tins[0].interval_us + 500) / 1000, 101);
	cr_assert_eq(st.tins[1].interval_us, 100000);
	cr_assert_eq(st.tins[2].interval_us, 100000);
	/* quantum 300 1514 381 */
	cr_assert_eq(st.tins[0].flow_quantum, 300);
	cr_assert_eq(st.tins[1].flow_quantum, 1514);
	cr_assert_eq(st.tins[2].flow_quantum, 381);
	/* memory limit: 4 x 50 Mbit x 100 ms is under 4 MiB */
	cr_assert_eq(st.memory_limit, 4u << 20);
	cr_assert_eq(st.capacity_estimate * 8, 50000000);
	cake_free(q);
	h_free_all(h);
}

Test(cake_diffserv, quanta_and_thresholds)
{
	static const uint16_t ds8_quanta[] = { 256, 224, 196, 171, 149, 130, 113, 98 };
	uint64_t rate = 100000000, r = rate;
	unsigned int t;

	cr_assert_eq(cake_diffserv_tin_quantum(CAKE_DIFFSERV_BESTEFFORT, 0), 65535);
	cr_assert_eq(cake_diffserv_tin_quantum(CAKE_DIFFSERV_DIFFSERV3, 0), 1024);
	cr_assert_eq(cake_diffserv_tin_quantum(CAKE_DIFFSERV_DIFFSERV3, 1), 64);
	cr_assert_eq(cake_diffserv_tin_quantum(CAKE_DIFFSERV_DIFFSERV3, 2), 256);
	cr_assert_eq(cake_diffserv_tin_quantum(CAKE_DIFFSERV_DIFFSERV4, 2), 512);
	cr_assert_eq(cake_diffserv_tin_rate(CAKE_DIFFSERV_DIFFSERV4, 2, rate), rate / 2);
	cr_assert_eq(cake_diffserv_tin_rate(CAKE_DIFFSERV_DIFFSERV4, 3, rate), rate / 4);
	for (t = 0; t < 8; t++) {
		cr_assert_eq(cake_diffserv_tin_quantum(CAKE_DIFFSERV_DIFFSERV8, t), ds8_quanta[t]);
		cr_assert_eq(cake_diffserv_tin_rate(CAKE_DIFFSERV_PRECEDENCE, t, rate), r);
		r = r * 7 / 8;
	}
	cr_assert_eq(cake_diffserv_tin_rate(CAKE_DIFFSERV_DIFFSERV3, 3, rate), 0);
	cr_assert_null(cake_diffserv_tin_name(CAKE_DIFFSERV_DIFFSERV4, 4));
	cr_assert_str_eq(cake_diffserv_tin_name(CAKE_DIFFSERV_DIFFSERV8, 5), "Tin 5");
}

/*
 * Shares of saturated tins when shaped, from the tins' thresholds alone: a tin with a
 * higher index wins whenever its own schedule has come, so walking down from the top
 * each tin takes min(threshold, what is left). Independent of the code under test.
 */
static void expected_shares(enum cake_diffserv_mode mode, const bool *busy, double *share)
{
	unsigned int n = cake_diffserv_tin_count(mode);
	double left = 1;
	int t;

	for (t = (int)n - 1; t >= 0; t--) {
		double thresh;

		share[t] = 0;
		if (!busy[t])
			continue;
		thresh = mode == CAKE_DIFFSERV_DIFFSERV3   ? (double[]){ 1, 1.0 / 16, 0.25 }[t] :
			 mode == CAKE_DIFFSERV_DIFFSERV4   ? (double[]){ 1, 1.0 / 16, 0.5, 0.25 }[t] :
			 mode == CAKE_DIFFSERV_BESTEFFORT ? 1 :
							      pow(7.0 / 8, t);
		share[t] = thresh < left ? thresh : left;
		left -= share[t];
	}
}

/* One greedy flow per tin (DSCP picked so that it lands there); shares of the link. */
static void run_tins(enum cake_diffserv_mode mode, const bool *busy, double *got)
{
	struct cake_options o = h_opts_rate(H_MBIT(100));
	unsigned int n = cake_diffserv_tin_count(mode), t;
	int src[8];
	struct harness *h;
	uint64_t end;

	o.present |= CAKE_OPT_DIFFSERV;
	o.diffserv = mode;
	h = h_new(&o, 4096, 21);
	cr_assert_not_null(h);
	for (t = 0; t < n; t++) {
		uint8_t d;

		src[t] = -1;
		if (!busy[t])
			continue;
		for (d = 0; cake_diffserv_tin_of(mode, d) != t; d++)
			;
		src[t] = h_add_greedy(h, 1500, 6);
		h->src[src[t]].dscp = d;
	}
	h->measure_from_ns = h->now + MS(500);
	end = h->now + MS(4500);
	h_run(h, end);
	for (t = 0; t < n; t++)
		got[t] = src[t] < 0 ? 0 : h_rate(h, src[t], end) / H_MBIT(100);
	h_free_all(h);
}

static void check_saturated(enum cake_diffserv_mode mode, const bool *busy)
{
	unsigned int n = cake_diffserv_tin_count(mode), t;
	double want[8], got[8];

	expected_shares(mode, busy, want);
	run_tins(mode, busy, got);
	for (t = 0; t < n; t++)
		cr_assert(fabs(got[t] - want[t]) < 0.01, "mode %d tin %u: %f, want %f", mode, t,
			  got[t], want[t]);
}

Test(cake_diffserv, saturated_tins_get_threshold_shares)
{
	static const bool all[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };

	check_saturated(CAKE_DIFFSERV_DIFFSERV3, all);
	check_saturated(CAKE_DIFFSERV_DIFFSERV4, all);
	check_saturated(CAKE_DIFFSERV_DIFFSERV8, all);
	check_saturated(CAKE_DIFFSERV_PRECEDENCE, all);
}

/*
 * With Best Effort idle, the busy tins' thresholds add up to less than the link. Each
 * still gets at least its threshold, and the link stays full: the spare goes to the
 * tins in the order of their schedules.
 */
Test(cake_diffserv, partial_tins)
{
	static const bool ds4_no_be[4] = { 0, 1, 1, 1 };
	double want[4], got[4], total = 0;
	int t;

	expected_shares(CAKE_DIFFSERV_DIFFSERV4, ds4_no_be, want);
	run_tins(CAKE_DIFFSERV_DIFFSERV4, ds4_no_be, got);
	for (t = 1; t < 4; t++) {
		cr_assert_geq(got[t], want[t] - 0.005, "tin %d: %f < %f", t, got[t], want[t]);
		total += got[t];
	}
	cr_assert(fabs(total - 1) < 0.01, "total %f", total);
}

/* With the upper tins idle, lower tins of diffserv8 share as their thresholds say. */
Test(cake_diffserv, partial_tins_low)
{
	static const bool ds8_low[8] = { 1, 1, 1, 0, 0, 0, 0, 0 };

	check_saturated(CAKE_DIFFSERV_DIFFSERV8, ds8_low);
}

/* A lone Bulk flow is not held to its threshold: it gets the whole link. */
Test(cake_diffserv, lone_bulk_gets_the_link)
{
	static const bool bulk_only[3] = { 0, 1, 0 };
	double got[3];

	run_tins(CAKE_DIFFSERV_DIFFSERV3, bulk_only, got);
	cr_assert(fabs(got[1] - 1) < 0.01, "%f", got[1]);
}

/*
 * Voice under its threshold has priority: at 20% of the link against 8 backlogged Best
 * Effort flows it gets all it offers with little delay. The same flow marked Best
 * Effort would be held to its 1/9 fair share.
 */
static void voice_vs_be(uint8_t voice_dscp, double *voice_share, uint64_t *voice_delay)
{
	struct cake_options o = h_opts_rate(H_MBIT(100));
	struct harness *h = h_new(&o, 4096, 23);
	uint64_t end;
	int i, v;

	cr_assert_not_null(h);
	for (i = 0; i < 8; i++)
		h_add_greedy(h, 1500, 8);
	v = h_add_rate(h, 1000, H_MBIT(20));
	h->src[v].dscp = voice_dscp;
	h->measure_from_ns = h->now + MS(500);
	end = h->now + MS(3500);
	h_run(h, end);
	*voice_share = h_rate(h, v, end) / H_MBIT(100);
	*voice_delay = h->src[v].delay_max_ns;
	h_free_all(h);
}

Test(cake_diffserv, voice_under_threshold_has_priority)
{
	double share;
	uint64_t delay;

	voice_vs_be(46 /* EF */, &share, &delay);
	cr_assert(fabs(share - 0.2) < 0.005, "voice %f", share);
	cr_assert_lt(delay, MS(1), "voice delay %lu", (unsigned long)delay);

	voice_vs_be(0, &share, &delay);
	cr_assert(fabs(share - 1.0 / 9) < 0.01, "as best effort %f", share);
}

/* Unlimited: DRR between tins weighted by their quanta (1024 : 64 : 256 for diffserv3). */
Test(cake_diffserv, unlimited_tins_share_by_quantum)
{
	struct cake_options o;
	struct harness *h;
	int src[3], t;
	uint64_t end;

	memset(&o, 0, sizeof(o));
	o.present = CAKE_OPT_DIFFSERV;
	o.diffserv = CAKE_DIFFSERV_DIFFSERV3;
	h = h_new(&o, 4096, 25);
	cr_assert_not_null(h);
	h->link_bytes_per_sec = H_MBIT(100);
	for (t = 0; t < 3; t++) {
		src[t] = h_add_greedy(h, 1500, 6);
		h->src[src[t]].dscp = (uint8_t[]){ 0, 8, 46 }[t];
	}
	h->measure_from_ns = h->now + MS(500);
	end = h->now + MS(3500);
	h_run(h, end);
	for (t = 0; t < 3; t++) {
		double want = (double[]){ 1024, 64, 256 }[t] / 1344.0;
		double got = h_rate(h, src[t], end) / H_MBIT(100);

		cr_assert(fabs(got - want) < 0.01, "tin %d: %f want %f", t, got, want);
	}
	h_free_all(h);
}

/* Tin selection by fwmark: (mark & mask) >> shift picks tin_order[mark - 1]. */
Test(cake_diffserv, fwmark_selects_tin)
{
	struct cake_options o = h_opts_rate(H_MBIT(10));
	struct harness *h;
	struct cake_stats st;
	int s;

	o.present |= CAKE_OPT_FWMARK | CAKE_OPT_DIFFSERV;
	o.fwmark_mask = 0xf0;
	o.diffserv = CAKE_DIFFSERV_DIFFSERV4;
	h = h_new(&o, 64, 1);
	cr_assert_not_null(h);
	s = h_add(h, H_GREEDY, 100);
	h->src[s].dscp = 46;   /* Voice by DSCP ... */
	h->src[s].mark = 0x10; /* ... but mark 1 = first column = Bulk */
	cr_assert(h_send(h, s));
	h->src[s].mark = 0x50; /* mark 5 > 4 tins: DSCP decides */
	cr_assert(h_send(h, s));
	h->src[s].mark = 0x0f; /* outside the mask */
	cr_assert(h_send(h, s));
	cake_get_stats(h->q, &st);
	cr_assert_eq(st.tins[0].sent_packets, 1); /* Bulk */
	cr_assert_eq(st.tins[3].sent_packets, 2); /* Voice */
	h_free_all(h);
}

/* wash: the tin comes from the DSCP as it arrived, then the DSCP is cleared. */
Test(cake_diffserv, wash_after_selection)
{
	struct cake_options o = h_opts_rate(H_MBIT(10));
	struct harness *h;
	struct cake_stats st;
	struct cake_pkt *p;
	int s;

	o.present |= CAKE_OPT_WASH;
	o.wash = true;
	h = h_new(&o, 64, 1);
	cr_assert_not_null(h);
	s = h_add(h, H_GREEDY, 100);
	h->src[s].dscp = 46;
	cr_assert(h_send(h, s));
	h->src[s].dscp = 0;
	cr_assert(h_send(h, s)); /* DSCP 0: nothing to wash */
	cr_assert_eq(h->washes, 1);
	cake_get_stats(h->q, &st);
	cr_assert_eq(st.tins[2].sent_packets, 1); /* Voice */
	p = cake_dequeue(h->q, h->now, NULL);
	cr_assert_not_null(p);
	cr_assert_eq(p->dscp, 0);
	h_deliver(h, p);
	h_free_all(h);
}
