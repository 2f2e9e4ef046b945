/* SPDX-License-Identifier: GPL-2.0-only */
/* DRR++ flow fairness and sparse-flow latency, in virtual time. */
#include <criterion/criterion.h>

#include "tests/support/cake_harness.h"

#define MS(x) ((uint64_t)(x) * 1000000)

static struct cake_options flows_opts(uint64_t rate)
{
	struct cake_options o = h_opts_rate(rate);

	o.present |= CAKE_OPT_FLOW_MODE | CAKE_OPT_DIFFSERV;
	o.flow_mode = CAKE_FLOW_FLOWS;
	o.diffserv = CAKE_DIFFSERV_BESTEFFORT;
	return o;
}

/* N backlogged flows share the link with Jain's index >= 0.99 and use all of it. */
static void check_jain(int n, uint32_t (*size_of)(int), enum cake_flow_mode mode)
{
	struct cake_options o = flows_opts(H_MBIT(100));
	uint64_t end;
	double rates[H_MAX_SRC], total = 0;
	struct harness *h;
	int i;

	o.flow_mode = mode;
	h = h_new(&o, 4096, 7);
	cr_assert_not_null(h);
	for (i = 0; i < n; i++)
		h_add_greedy(h, size_of(i), 4);
	h->measure_from_ns = h->now + MS(500);
	end = h->now + MS(2500);
	h_run(h, end);
	for (i = 0; i < n; i++) {
		rates[i] = h_rate(h, i, end);
		total += rates[i];
	}
	cr_assert_geq(h_jain(rates, n), 0.99, "n=%d: Jain %f", n, h_jain(rates, n));
	cr_assert(total > 0.98 * H_MBIT(100), "n=%d: total %f", n, total);
	h_free_all(h);
}

static uint32_t mtu_size(int i)
{
	(void)i;
	return 1500;
}

/* DRR is byte-fair: flows of small and large packets get the same bytes. */
static uint32_t mixed_size(int i)
{
	static const uint32_t sizes[] = { 1500, 576, 1280, 100, 900 };

	return sizes[i % 5];
}

Test(cake_fairness, jain_equal_sizes)
{
	static const int ns[] = { 2, 3, 5, 8, 16, 32, 64 };
	size_t i;

	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		check_jain(ns[i], mtu_size, CAKE_FLOW_FLOWS);
}

Test(cake_fairness, jain_mixed_sizes)
{
	static const int ns[] = { 2, 5, 13, 64 };
	size_t i;

	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		check_jain(ns[i], mixed_size, CAKE_FLOW_FLOWS);
}

/* triple-isolate (the default) with every flow on its own hosts is plain flow fairness. */
Test(cake_fairness, jain_triple_isolate_distinct_hosts)
{
	check_jain(2, mtu_size, CAKE_FLOW_TRIPLE);
	check_jain(24, mixed_size, CAKE_FLOW_TRIPLE);
}

/* A sparse flow (one small packet every 20 ms) next to 8 bulk flows at 100 Mbit/s waits
 * less than a millisecond: it is served from the new-flows rotation. */
Test(cake_fairness, sparse_flow_latency)
{
	struct cake_options o = h_opts_rate(H_MBIT(100));
	struct harness *h = h_new(&o, 4096, 3);
	uint64_t end;
	int i, sparse;

	cr_assert_not_null(h);
	for (i = 0; i < 8; i++)
		h_add_greedy(h, 1500, 16);
	sparse = h_add_periodic(h, 100, MS(20));
	h->measure_from_ns = h->now + MS(500);
	end = h->now + MS(5500);
	h_run(h, end);

	cr_assert_geq(h->src[sparse].delay_n, 240);
	cr_assert_lt(h->src[sparse].delay_max_ns, MS(1), "max delay %lu ns",
		     (unsigned long)h->src[sparse].delay_max_ns);
	cr_assert_eq(h->src[sparse].drop_pkts[CAKE_DROP_CONGESTED], 0);
	/* the bulk flows' packets wait far longer: the sparse flow really is ahead */
	cr_assert_gt(h->src[0].delay_sum_ns / h->src[0].delay_n, MS(2));
	h_free_all(h);
}

/* Sparse flows also jump the queue in unlimited mode behind a slower line. */
Test(cake_fairness, sparse_flow_latency_unlimited)
{
	struct harness *h = h_new(NULL, 4096, 3);
	uint64_t end;
	int i, sparse;

	cr_assert_not_null(h);
	h->link_bytes_per_sec = H_MBIT(50);
	for (i = 0; i < 8; i++)
		h_add_greedy(h, 1500, 16);
	sparse = h_add_periodic(h, 100, MS(20));
	h->measure_from_ns = h->now + MS(500);
	end = h->now + MS(3500);
	h_run(h, end);
	cr_assert_lt(h->src[sparse].delay_max_ns, MS(1));
	cr_assert_geq(h->src[sparse].delay_n, 140);
	h_free_all(h);
}

/* A flow below its fair share loses nothing and sees little delay; the rest is split. */
Test(cake_fairness, light_flow_keeps_its_rate)
{
	struct cake_options o = flows_opts(H_MBIT(20));
	struct harness *h = h_new(&o, 4096, 5);
	uint64_t end;
	int light, a, b;

	cr_assert_not_null(h);
	a = h_add_greedy(h, 1500, 8);
	b = h_add_greedy(h, 1500, 8);
	light = h_add_rate(h, 1000, H_MBIT(2)); /* 10% against a 33% fair share */
	h->measure_from_ns = h->now + MS(500);
	end = h->now + MS(4500);
	h_run(h, end);
	cr_assert_eq(h->src[light].drop_pkts[CAKE_DROP_CONGESTED], 0);
	cr_assert_geq(h->src[light].sent_pkts + 2, h->src[light].offered_pkts);
	cr_assert_lt(h->src[light].delay_max_ns, MS(2));
	{
		double ra = h_rate(h, a, end), rb = h_rate(h, b, end);

		cr_assert(ra / rb > 0.98 && ra / rb < 1.02, "%f %f", ra, rb);
		cr_assert(ra + rb > 0.97 * (H_MBIT(20) - H_MBIT(2)));
	}
	h_free_all(h);
}

/* Stats after a fairness run: flows counted where tc shows them. */
Test(cake_fairness, stats_count_flows)
{
	struct cake_options o = flows_opts(H_MBIT(100));
	struct harness *h = h_new(&o, 4096, 9);
	struct cake_stats st;
	int i;

	cr_assert_not_null(h);
	for (i = 0; i < 6; i++)
		h_add_greedy(h, 1500, 4);
	h_run(h, h->now + MS(200));
	cake_get_stats(h->q, &st);
	cr_assert_eq(st.tin_count, 1);
	cr_assert_eq(st.tins[0].bulk_flows, 6);
	cr_assert_eq(st.tins[0].way_misses, 6);
	cr_assert_eq(st.tins[0].way_collisions, 0);
	cr_assert_gt(st.tins[0].way_directs, 1000);
	cr_assert_eq(st.backlog_packets, 24);
	cr_assert_eq(st.sent_packets, h->delivered);
	cr_assert_eq(st.sent_packets + st.dropped + st.backlog_packets, h->enqueued);
	cr_assert_eq(st.tins[0].max_pkt_len, 1500);
	cr_assert_eq(st.tins[0].flow_quantum, 1514);
	h_free_all(h);
}
