/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Isolation modes as tc-cake(8) describes them: flowblind, srchost, dsthost, hosts,
 * flows, dual-srchost, dual-dsthost and triple-isolate, on backlogged flows.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "tests/support/cake_harness.h"

#define MS(x) ((uint64_t)(x) * 1000000)
#define RATE H_MBIT(100)

struct flow_spec {
	uint32_t src, dst; /* host hashes */
	uint32_t depth;
};

/*
 * Stand-ins for the keyed address hashes the dissector computes (murmur3's finaliser).
 * For the host numbers used here no two land on the same host slot: hosts whose hashes
 * share a slot index share its bulk count, as in the kernel, which would blur shares.
 */
static uint32_t host_hash(uint32_t host, uint32_t key)
{
	uint32_t x = host ^ key;

	x ^= x >> 16;
	x *= 0x85ebca6bu;
	x ^= x >> 13;
	x *= 0xc2b2ae35u;
	x ^= x >> 16;
	return x;
}

/*
 * Run the flows under mode and return each flow's share of the link. Every flow gets a
 * distinct flow hash; host hashes are as given.
 */
/* A besteffort CAKE at RATE under mode, with a pool of pool_n packets. */
static struct harness *new_harness(enum cake_flow_mode mode, uint32_t pool_n)
{
	struct cake_options o = h_opts_rate(RATE);
	struct harness *h;

	o.present |= CAKE_OPT_FLOW_MODE | CAKE_OPT_DIFFSERV;
	o.flow_mode = mode;
	o.diffserv = CAKE_DIFFSERV_BESTEFFORT;
	h = h_new(&o, pool_n, 11);
	cr_assert_not_null(h);
	return h;
}

static void run_shares(enum cake_flow_mode mode, const struct flow_spec *f, int n,
		       double *share, struct cake_stats *st)
{
	struct harness *h = new_harness(mode, 4096);
	uint64_t end;
	int i;

	for (i = 0; i < n; i++) {
		int s = h_add_greedy(h, 1500, f[i].depth ? f[i].depth : 4);

		h->src[s].src_hash = host_hash(f[i].src, 0x5bd1e995u);
		h->src[s].dst_hash = host_hash(f[i].dst, 0x27d4eb2fu);
	}
	h->measure_from_ns = h->now + MS(500);
	end = h->now + MS(3500);
	h_run(h, end);
	for (i = 0; i < n; i++)
		share[i] = h_rate(h, i, end) / RATE;
	if (st)
		cake_get_stats(h->q, st);
	h_free_all(h);
}

static double sum(const double *x, int from, int to)
{
	double s = 0;
	int i;

	for (i = from; i < to; i++)
		s += x[i];
	return s;
}

#define near(got, want, tol) \
	cr_assert(fabs((got) - (want)) < (tol), "%s = %f, want %f", #got, (got), (want))

/* Host A runs 1 flow, host B 16 flows, each to its own destination. */
static int one_vs_sixteen_src(struct flow_spec *f, bool same_dst)
{
	int i;

	f[0] = (struct flow_spec){ .src = 1, .dst = 100 };
	for (i = 1; i <= 16; i++)
		f[i] = (struct flow_spec){ .src = 2, .dst = same_dst ? 100 : 100 + (uint32_t)i };
	return 17;
}

static int one_vs_sixteen_dst(struct flow_spec *f)
{
	int i;

	f[0] = (struct flow_spec){ .src = 100, .dst = 1 };
	for (i = 1; i <= 16; i++)
		f[i] = (struct flow_spec){ .src = 100 + (uint32_t)i, .dst = 2 };
	return 17;
}

Test(cake_hosts, triple_isolate_sources_get_half_each)
{
	struct flow_spec f[17];
	double share[17];
	int n = one_vs_sixteen_src(f, false);

	run_shares(CAKE_FLOW_TRIPLE, f, n, share, NULL);
	near(share[0], 0.5, 0.03);
	near(sum(share, 1, n), 0.5, 0.03);
}

Test(cake_hosts, triple_isolate_destinations_get_half_each)
{
	struct flow_spec f[17];
	double share[17];
	int n = one_vs_sixteen_dst(f);

	run_shares(CAKE_FLOW_TRIPLE, f, n, share, NULL);
	near(share[0], 0.5, 0.03);
	near(sum(share, 1, n), 0.5, 0.03);
}

/* Triple-isolate weighs a flow by the busier of its two hosts: all 17 flows share one
 * destination, so none of them gets more than the others. */
Test(cake_hosts, triple_isolate_shared_destination)
{
	struct flow_spec f[17];
	double share[17];
	int n = one_vs_sixteen_src(f, true);

	run_shares(CAKE_FLOW_TRIPLE, f, n, share, NULL);
	near(share[0], 1.0 / 17, 0.01);
	near(sum(share, 1, n), 16.0 / 17, 0.02);
}

/* dual-srchost ignores destinations: host A keeps its half even with a shared one. */
Test(cake_hosts, dual_srchost)
{
	struct flow_spec f[17];
	double share[17];
	int n = one_vs_sixteen_src(f, true), i;

	run_shares(CAKE_FLOW_DUAL_SRC, f, n, share, NULL);
	near(share[0], 0.5, 0.03);
	/* and host B's flows are fair among themselves */
	for (i = 1; i < n; i++)
		near(share[i], 0.5 / 16, 0.006);
}

Test(cake_hosts, dual_dsthost)
{
	struct flow_spec f[17];
	double share[17];
	int n = one_vs_sixteen_dst(f), i;

	for (i = 1; i < n; i++) /* one shared source: dual-dsthost does not care */
		f[i].src = 100;
	f[0].src = 100;
	run_shares(CAKE_FLOW_DUAL_DST, f, n, share, NULL);
	near(share[0], 0.5, 0.03);
	for (i = 1; i < n; i++)
		near(share[i], 0.5 / 16, 0.006);
}

/* dual-srchost does not isolate destinations: 1 vs 16 flows to two receivers from
 * distinct senders is plain flow fairness. */
Test(cake_hosts, dual_srchost_ignores_destinations)
{
	struct flow_spec f[17];
	double share[17];
	int n = one_vs_sixteen_dst(f);

	run_shares(CAKE_FLOW_DUAL_SRC, f, n, share, NULL);
	near(share[0], 1.0 / 17, 0.01);
}

/* flows: every flow alike, hosts do not matter. */
Test(cake_hosts, flows_mode_is_per_flow)
{
	struct flow_spec f[5] = { { 1, 9, 0 }, { 2, 9, 0 }, { 2, 9, 0 }, { 2, 9, 0 }, { 2, 9, 0 } };
	double share[5];
	int i;

	run_shares(CAKE_FLOW_FLOWS, f, 5, share, NULL);
	for (i = 0; i < 5; i++)
		near(share[i], 0.2, 0.02);
}

/* srchost: one queue per source host; its flows share it in FIFO order. */
Test(cake_hosts, srchost_mode)
{
	struct flow_spec f[5] = { { 1, 9, 0 }, { 2, 10, 0 }, { 2, 11, 0 }, { 2, 12, 0 },
				  { 2, 13, 0 } };
	struct cake_stats st;
	double share[5];

	run_shares(CAKE_FLOW_SRC_IP, f, 5, share, &st);
	near(share[0], 0.5, 0.03);
	near(sum(share, 1, 5), 0.5, 0.03);
	cr_assert_eq(st.tins[0].bulk_flows, 2);
}

Test(cake_hosts, dsthost_mode)
{
	struct flow_spec f[5] = { { 9, 1, 0 }, { 10, 2, 0 }, { 11, 2, 0 }, { 12, 2, 0 },
				  { 13, 2, 0 } };
	struct cake_stats st;
	double share[5];

	run_shares(CAKE_FLOW_DST_IP, f, 5, share, &st);
	near(share[0], 0.5, 0.03);
	near(sum(share, 1, 5), 0.5, 0.03);
	cr_assert_eq(st.tins[0].bulk_flows, 2);
}

/* hosts: one queue per (source, destination) pair. */
Test(cake_hosts, hosts_mode)
{
	struct flow_spec f[6] = { { 1, 1, 0 }, { 1, 2, 0 }, { 1, 2, 0 }, { 1, 2, 0 },
				  { 1, 2, 0 }, { 2, 1, 0 } };
	struct cake_stats st;
	double share[6];

	run_shares(CAKE_FLOW_HOSTS, f, 6, share, &st);
	near(share[0], 1.0 / 3, 0.03);
	near(sum(share, 1, 5), 1.0 / 3, 0.03);
	near(share[5], 1.0 / 3, 0.03);
	cr_assert_eq(st.tins[0].bulk_flows, 3);
}

/* flowblind: one FIFO for everything, so a flow's share follows its queue occupancy. */
Test(cake_hosts, flowblind_is_one_fifo)
{
	struct flow_spec f[2] = { { 1, 1, 12 }, { 2, 2, 4 } };
	struct cake_stats st;
	double share[2];

	run_shares(CAKE_FLOW_NONE, f, 2, share, &st);
	near(share[0], 0.75, 0.05);
	near(share[1], 0.25, 0.05);
	cr_assert_eq(st.tins[0].bulk_flows, 1);
	cr_assert_eq(st.tins[0].way_misses + st.tins[0].way_directs, 0);
}

/* Host refcounts survive flows coming and going: after host B's flows stop, host A's
 * single flow gets the whole link again. */
Test(cake_hosts, host_counts_return_to_rest)
{
	struct cake_options o = h_opts_rate(RATE);
	struct harness *h;
	uint64_t end;
	int i, a;

	o.present |= CAKE_OPT_DIFFSERV;
	o.diffserv = CAKE_DIFFSERV_BESTEFFORT;
	h = h_new(&o, 4096, 13);
	cr_assert_not_null(h);
	a = h_add_greedy(h, 1500, 4);
	for (i = 0; i < 8; i++) {
		int s = h_add_rate(h, 1500, RATE / 4);

		h->src[s].src_hash = h->src[a].src_hash;
		h->src[s].stop_ns = h->now + MS(1000);
	}
	h->measure_from_ns = h->now + MS(2000);
	end = h->now + MS(3000);
	h_run(h, end);
	near(h_rate(h, a, end) / RATE, 1.0, 0.01);
	h_free_all(h);
}

/*
 * A change of isolation mode while flows are backlogged (`cakewg set IF cake
 * peer-isolate` after dual-dsthost, as tests/netns/test-cake-peers.sh does): peer 1 runs
 * 1 flow, peer 2 runs 8 to 4 addresses, all backlogged. Under dual-dsthost peer 1 gets
 * one address's share in five; after the change to triple-isolate on the peers' hashes
 * (what peer-isolate hands CAKE, src/core/egress.c), half. The accounting that the
 * first mode left behind must not bend the second mode's shares.
 */
Test(cake_hosts, a_mode_change_under_load_keeps_the_new_modes_shares)
{
	const struct cake_options triple = {.present = CAKE_OPT_FLOW_MODE,
					    .flow_mode = CAKE_FLOW_TRIPLE};
	const uint32_t server = host_hash(100, 0x5bd1e995u);
	struct harness *h = new_harness(CAKE_FLOW_DUAL_DST, 8192);
	double share1, share2, total;
	uint64_t end;
	int i;

	for (i = 0; i < 9; i++) {
		int s = h_add_greedy(h, 1500, 4);

		h->src[s].src_hash = server;
		h->src[s].dst_hash = host_hash(i ? 2 + (uint32_t)(i - 1) / 2 : 1, 0x27d4eb2fu);
	}
	h->measure_from_ns = h->now + MS(500);
	end = h->now + MS(1500);
	h_run(h, end);
	share1 = h_rate(h, 0, end) / RATE;
	near(share1, 0.2, 0.03);

	cr_assert_eq(cake_configure(h->q, &triple, h->now), 0);
	for (i = 0; i < 9; i++) {
		uint32_t peer = host_hash(i ? 20 : 10, 0x9e3779b9u);

		h->src[i].src_hash = h->src[i].dst_hash = peer;
		h->src[i].sent_bytes = 0;
	}
	h->measure_from_ns = h->now + MS(500);
	end = h->now + MS(3000);
	h_run(h, end);
	share1 = h_rate(h, 0, end) / RATE;
	for (share2 = 0, i = 1; i < 9; i++)
		share2 += h_rate(h, i, end) / RATE;
	total = share1 + share2;
	near(share1 / total, 0.5, 0.03);
	h_free_all(h);
}
