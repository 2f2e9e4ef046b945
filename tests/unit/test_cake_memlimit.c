/* SPDX-License-Identifier: GPL-2.0-only */
/* The memory limit: the kernel's default, never exceeded, pruning the fattest flow. */
#include <criterion/criterion.h>

#include "tests/support/cake_harness.h"

#define MS(x) ((uint64_t)(x) * 1000000)

static uint32_t limit_for(const struct cake_options *o, uint32_t mtu, uint32_t pkt_limit)
{
	struct harness *h = h_new(NULL, 1, 1);
	struct cake_params p;
	struct cake *q;
	uint32_t limit;

	cr_assert_not_null(h);
	p = h->params;
	p.mtu_bytes = mtu;
	p.pkt_limit = pkt_limit;
	q = cake_new(&p, o, 0);
	cr_assert_not_null(q);
	limit = cake_memory_limit(q);
	cake_free(q);
	h_free_all(h);
	return limit;
}

/* max(4 x rate x rtt, 4 MiB), then min(that, max(limit x MTU, memlimit)). */
Test(cake_memlimit, default_formula)
{
	static const struct {
		uint64_t rate;    /* bytes/s, 0 = unlimited */
		uint32_t rtt_us;
		uint64_t memlimit;
		uint32_t pkt_limit;
		uint32_t want;
	} cases[] = {
		{ 50000000 / 8, 100000, 0, 0, 4u << 20 },          /* 2.5 MB -> 4 MiB floor */
		{ 100000000 / 8, 100000, 0, 0, 5000000 },          /* 4 x 12.5 MB/s x 0.1 s */
		{ 1000000000 / 8, 100000, 0, 0, 10240 * 1500 },    /* capped by 10240 MTUs */
		{ 0, 100000, 0, 0, 10240 * 1500 },                 /* unlimited */
		{ 100000000 / 8, 1000000, 0, 0, 10240 * 1500 },    /* rtt 1 s */
		{ 100000000 / 8, 100000, 100000, 0, 100000 },      /* memlimit wins ... */
		{ 0, 100000, 100000000, 0, 100000000 },            /* ... even above the cap */
		{ 50000000 / 8, 100000, 0, 100, 150000 },          /* limit 100 packets */
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cake_options o;

		memset(&o, 0, sizeof(o));
		o.present = CAKE_OPT_RATE | CAKE_OPT_RTT | CAKE_OPT_MEMLIMIT;
		o.rate_bytes_per_sec = cases[i].rate;
		o.rtt_us = cases[i].rtt_us;
		o.target_us = cases[i].rtt_us / 20;
		o.memlimit_bytes = cases[i].memlimit;
		cr_assert_eq(limit_for(&o, 1500, cases[i].pkt_limit), cases[i].want, "case %zu", i);
	}
}

/* Overload far beyond a small limit: the limit holds after every enqueue, and every
 * pruned packet comes from a flow with the largest backlog at that moment. */
Test(cake_memlimit, never_exceeded_and_prunes_fattest)
{
	struct cake_options o = h_opts_rate(H_MBIT(10));
	struct cake_stats st;
	struct harness *h;
	int i;

	o.present |= CAKE_OPT_MEMLIMIT;
	o.memlimit_bytes = 60000;
	h = h_new(&o, 8192, 31);
	cr_assert_not_null(h);
	h->params.pkt_mem_overhead_bytes = 0;
	for (i = 0; i < 40; i++) /* 40 floods of assorted sizes and rates, 3x the link */
		h_add_rate(h, 200 + 37 * (uint32_t)i, H_MBIT(10) * 3 / 40 * (1 + i % 3) / 2);
	h_run(h, h->now + MS(3000));
	cake_get_stats(h->q, &st);
	cr_assert_gt(h->drops[CAKE_DROP_OVERLIMIT], 1000);
	cr_assert_eq(h->mem_violations, 0);
	cr_assert_leq(st.memory_used, st.memory_limit);
	cr_assert_eq(st.memory_limit, 60000);
	cr_assert_not(h->overlimit_not_fattest);
	cr_assert_eq(h->pool_exhausted, 0);
	h_free_all(h);
}

/* A flood and two light flows: the flood pays for all the overflow. */
Test(cake_memlimit, flood_pays_for_overflow)
{
	struct cake_options o = h_opts_rate(H_MBIT(20));
	struct harness *h;
	int flood, a, b;

	o.present |= CAKE_OPT_MEMLIMIT;
	o.memlimit_bytes = 100000;
	h = h_new(&o, 8192, 33);
	cr_assert_not_null(h);
	flood = h_add_rate(h, 1500, H_MBIT(60));
	a = h_add_rate(h, 1000, H_MBIT(2));
	b = h_add_rate(h, 300, H_MBIT(2));
	h_run(h, h->now + MS(2000));
	cr_assert_gt(h->src[flood].drop_pkts[CAKE_DROP_OVERLIMIT], 100);
	cr_assert_eq(h->src[a].drop_pkts[CAKE_DROP_OVERLIMIT], 0);
	cr_assert_eq(h->src[b].drop_pkts[CAKE_DROP_OVERLIMIT], 0);
	cr_assert_eq(h->mem_violations, 0);
	h_free_all(h);
}

/* An instance of *h's parameters that charges a packet without a truesize its wire_len
 * plus 512 bytes. */
static struct cake *with_overhead_512(struct harness **h)
{
	struct cake_params p;
	struct cake *q;

	*h = h_new(NULL, 16, 1);
	cr_assert_not_null(*h);
	p = (*h)->params;
	p.pkt_mem_overhead_bytes = 512;
	q = cake_new(&p, NULL, 0);
	cr_assert_not_null(q);
	return q;
}

/* The per-packet memory charge counts: wire_len plus the configured overhead. */
Test(cake_memlimit, charge_includes_buffer_overhead)
{
	struct harness *h;
	struct cake_pkt pk[3];
	struct cake *q = with_overhead_512(&h);
	int i;

	memset(pk, 0, sizeof(pk));
	for (i = 0; i < 3; i++) {
		pk[i].wire_len = 100 * (uint32_t)(i + 1);
		pk[i].gso_segs = 1;
		cr_assert_eq(cake_enqueue(q, &pk[i], 0), CAKE_ENQ_QUEUED);
	}
	cr_assert_eq(cake_memory_used(q), 600 + 3 * 512);
	cr_assert_eq(cake_backlog_bytes(q), 600);
	cr_assert_eq(cake_backlog_packets(q), 3);
	for (i = 0; i < 3; i++)
		cr_assert_eq(cake_dequeue(q, 0, NULL), &pk[i]);
	cr_assert_eq(cake_memory_used(q), 0);
	cake_free(q);
	h_free_all(h);
}

static struct cake_pkt *g_dropped[64];
static int g_ndropped;

static void record_drop(void *ctx, struct cake_pkt *p, enum cake_drop_reason r)
{
	(void)ctx;
	if (r == CAKE_DROP_FLUSH) /* cake_free at the end */
		return;
	cr_assert_eq(r, CAKE_DROP_OVERLIMIT);
	g_dropped[g_ndropped++] = p;
}

/* Pruning takes the head of the fattest flow, and tells a flow when it pruned it. */
Test(cake_memlimit, enqueue_reports_congestion_of_own_flow)
{
	static const struct cake_ops ops = { .drop = record_drop };
	struct cake_params p = { .ops = &ops, .seed = 1 };
	struct cake_options o;
	struct cake_pkt a[8], b[3];
	struct cake *q;
	int i;

	memset(&o, 0, sizeof(o));
	o.present = CAKE_OPT_MEMLIMIT;
	o.memlimit_bytes = 10000;
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	q = cake_new(&p, &o, 0);
	cr_assert_not_null(q);
	for (i = 0; i < 8; i++) { /* flow A: 8 x 1200 = 9600 bytes */
		a[i].wire_len = 1200;
		a[i].flow_hash = 1;
		a[i].gso_segs = 1;
		cr_assert_eq(cake_enqueue(q, &a[i], 0), CAKE_ENQ_QUEUED);
	}
	for (i = 0; i < 3; i++) {
		b[i].wire_len = 300;
		b[i].flow_hash = 2;
		b[i].gso_segs = 1;
	}
	/* B's 300 bytes push the total to 9900, then to 10200: A's head goes */
	cr_assert_eq(cake_enqueue(q, &b[0], 0), CAKE_ENQ_QUEUED);
	cr_assert_eq(g_ndropped, 0);
	cr_assert_eq(cake_enqueue(q, &b[1], 0), CAKE_ENQ_QUEUED);
	cr_assert_eq(g_ndropped, 1);
	cr_assert_eq(g_dropped[0], &a[0]);
	/* A's next packet overflows again and A itself is the fattest: congested */
	a[0].next = NULL;
	cr_assert_eq(cake_enqueue(q, &a[0], 0), CAKE_ENQ_CONGESTED);
	cr_assert_eq(g_ndropped, 2);
	cr_assert_eq(g_dropped[1], &a[1]);
	cr_assert_leq(cake_memory_used(q), 10000);
	cake_free(q);
}

static int g_flushed;

static void count_flush(void *ctx, struct cake_pkt *p, enum cake_drop_reason r)
{
	(void)ctx;
	(void)p;
	cr_assert_eq(r, CAKE_DROP_FLUSH);
	g_flushed++;
}

Test(cake_memlimit, free_and_reset_hand_everything_back)
{
	static const struct cake_ops ops = { .drop = count_flush };
	struct cake_params p = { .ops = &ops };
	struct cake_pkt pk[20];
	struct cake *q = cake_new(&p, NULL, 0);
	int i;

	cr_assert_not_null(q);
	memset(pk, 0, sizeof(pk));
	for (i = 0; i < 20; i++) {
		pk[i].wire_len = 500;
		pk[i].flow_hash = (uint32_t)i % 5;
		pk[i].dscp = (uint8_t)((i % 3) * 23);
		pk[i].gso_segs = 1;
		(void)cake_enqueue(q, &pk[i], 0);
	}
	cake_reset(q);
	cr_assert_eq(g_flushed, 20);
	cr_assert_eq(cake_backlog_packets(q), 0);
	cr_assert_eq(cake_memory_used(q), 0);
	cr_assert_null(cake_dequeue(q, 0, NULL));
	for (i = 0; i < 7; i++)
		(void)cake_enqueue(q, &pk[i], 0);
	cake_free(q);
	cr_assert_eq(g_flushed, 27);
}

/* What the device's small and large buffers take (src/core/pkt.c's allocation, rounded): a
 * 64-byte packet in the first, a 64 KiB super-packet in the second. */
enum {
	SMALL_BUF_TRUESIZE = 1792,
	LARGE_BUF_TRUESIZE = 65536 + 256,
	TRUESIZE_MEMLIMIT = 1 << 20,
};

/* A source floods at 20x the link: what CAKE holds, summed by the truesize the packets
 * state (not by CAKE's own count), never exceeds the memory limit. */
static void flood_within_memlimit(uint32_t wire_len, uint16_t segs, uint32_t truesize)
{
	struct cake_options o = h_opts_rate(H_MBIT(10));
	struct cake_stats st;
	struct harness *h;
	int s;

	o.present |= CAKE_OPT_MEMLIMIT | CAKE_OPT_SPLIT_GSO;
	o.memlimit_bytes = TRUESIZE_MEMLIMIT;
	o.split_gso = false;
	h = h_new(&o, 16384, 41);
	cr_assert_not_null(h);
	s = h_add_rate(h, wire_len * segs, H_MBIT(10) * 20);
	h->src[s].wire_len = wire_len;
	h->src[s].gso_segs = segs;
	h->src[s].gso_size = (uint16_t)(segs > 1 ? wire_len - 60 : 0);
	h->src[s].truesize = truesize;
	h_run(h, h->now + MS(2000));
	cake_get_stats(h->q, &st);
	cr_assert_gt(h->drops[CAKE_DROP_OVERLIMIT], 100);
	cr_assert_eq(h->pool_exhausted, 0);
	cr_assert_leq(h->held_truesize_max, TRUESIZE_MEMLIMIT);
	/* the limit is used, not bypassed: it fills to within one buffer */
	cr_assert_geq(h->held_truesize_max + truesize, TRUESIZE_MEMLIMIT);
	cr_assert_eq(st.memory_in_use, h->held_truesize);
	cr_assert_leq(st.memory_used, TRUESIZE_MEMLIMIT + truesize);
	h_free_all(h);
}

Test(cake_memlimit, small_packet_flood_charged_by_truesize)
{
	flood_within_memlimit(64, 1, SMALL_BUF_TRUESIZE);
}

Test(cake_memlimit, no_split_gso_flood_charged_by_truesize)
{
	flood_within_memlimit(1400, 45, LARGE_BUF_TRUESIZE);
}

/* A stated truesize replaces the estimate; a packet without one still gets it. */
Test(cake_memlimit, truesize_replaces_estimate)
{
	struct harness *h;
	struct cake_pkt pk[2];
	struct cake *q = with_overhead_512(&h);

	memset(pk, 0, sizeof(pk));
	pk[0].wire_len = 64;
	pk[0].truesize = SMALL_BUF_TRUESIZE;
	pk[1].wire_len = 100;
	pk[0].gso_segs = pk[1].gso_segs = 1;
	cr_assert_eq(cake_enqueue(q, &pk[0], 0), CAKE_ENQ_QUEUED);
	cr_assert_eq(cake_memory_used(q), SMALL_BUF_TRUESIZE);
	cr_assert_eq(cake_enqueue(q, &pk[1], 0), CAKE_ENQ_QUEUED);
	cr_assert_eq(cake_memory_used(q), SMALL_BUF_TRUESIZE + 100 + 512);
	cr_assert_eq(cake_dequeue(q, 0, NULL), &pk[0]);
	cr_assert_eq(cake_memory_used(q), 100 + 512);
	/* Both out before the free: its flush would hand them to the harness, which owns
	 * only packets of its own pool. */
	cr_assert_eq(cake_dequeue(q, 0, NULL), &pk[1]);
	cr_assert_eq(cake_memory_used(q), 0);
	cake_free(q);
	h_free_all(h);
}
