/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The API contracts of qdisc/cake.h: ownership and hooks (drop, set_ce, ack_filter,
 * split_gso), the next_ns contract of cake_dequeue, GSO accounting, set-associative
 * hashing counters and per-flow statistics.
 */
#include <criterion/criterion.h>
#include <errno.h>

#include "qdisc/cake.h"

#define MS(x) ((uint64_t)(x) * 1000000)

struct ctx {
	int drops[CAKE_DROP_FLUSH + 1];
	struct cake_pkt *last_drop;
	int ce;
	int splits;
	int filter_calls;
	struct cake_pkt *filter_answer;
	enum cake_ack_filter_mode filter_mode;
	struct cake_pkt segs[8];
	int nsegs;
	bool split_fails;
};

static struct ctx c;
/* the random walk's books, kept by the drop hook when set */
static struct cake_pkt *walk_pool;
static bool *walk_queued;

static void op_drop(void *ctx, struct cake_pkt *p, enum cake_drop_reason r)
{
	(void)ctx;
	c.drops[r]++;
	c.last_drop = p;
	if (walk_queued) {
		cr_assert(walk_queued[p - walk_pool]);
		walk_queued[p - walk_pool] = false;
	}
}

static void op_set_ce(void *ctx, struct cake_pkt *p)
{
	(void)ctx;
	(void)p;
	c.ce++;
}

static struct cake_pkt *op_ack_filter(void *ctx, struct cake_pkt *head, const struct cake_pkt *p,
				      enum cake_ack_filter_mode mode)
{
	const struct cake_pkt *x = head;

	(void)ctx;
	c.filter_calls++;
	c.filter_mode = mode;
	while (x->next) /* the new packet is the tail */
		x = x->next;
	cr_assert_eq(x, p);
	return c.filter_answer == (struct cake_pkt *)1 ? head : c.filter_answer;
}

static struct cake_pkt *op_split(void *ctx, struct cake_pkt *p)
{
	int i;

	(void)ctx;
	c.splits++;
	if (c.split_fails)
		return NULL;
	if (!c.nsegs) { /* hand the packet back as its own single segment */
		p->gso_segs = 1;
		p->gso_size = 0;
		p->next = NULL;
		return p;
	}
	for (i = 0; i < c.nsegs; i++) {
		struct cake_pkt *s = &c.segs[i];

		*s = *p;
		s->gso_segs = 1;
		s->gso_size = 0;
		s->wire_len = i + 1 < c.nsegs ? 1500 : p->wire_len - 1500 * (uint32_t)(c.nsegs - 1);
		s->next = i + 1 < c.nsegs ? &c.segs[i + 1] : NULL;
	}
	return &c.segs[0];
}

static const struct cake_ops ops = {
	.drop = op_drop,
	.set_ce = op_set_ce,
	.ack_filter = op_ack_filter,
	.split_gso = op_split,
};

static struct cake *make(const struct cake_options *o)
{
	struct cake_params p = { .ops = &ops, .seed = 5 };

	memset(&c, 0, sizeof(c));
	return cake_new(&p, o, MS(1000));
}

static struct cake_pkt pkt(uint32_t flow, uint32_t wire_len)
{
	struct cake_pkt p;

	memset(&p, 0, sizeof(p));
	p.flow_hash = flow;
	p.src_hash = flow * 3;
	p.dst_hash = flow * 5;
	p.wire_len = wire_len;
	p.len = wire_len - 60;
	p.gso_segs = 1;
	return p;
}

Test(cake_api, empty_dequeue_says_nothing_to_wait_for)
{
	struct cake *q = make(NULL);
	uint64_t next = 0;

	cr_assert_not_null(q);
	cr_assert_null(cake_dequeue(q, MS(1000), &next));
	cr_assert_eq(next, CAKE_TIME_NONE);
	cr_assert_null(cake_dequeue(q, MS(1000), NULL));
	cake_free(q);
	cake_free(NULL);
}

/* Shaped: a packet, then NULL with the time the next may go, then the packet. */
Test(cake_api, dequeue_reports_next_time)
{
	struct cake_options o;
	struct cake_pkt a = pkt(1, 1250), b = pkt(1, 1250), *p;
	struct cake_stats st;
	uint64_t next, now = MS(1000);
	struct cake *q;

	memset(&o, 0, sizeof(o));
	o.present = CAKE_OPT_RATE;
	o.rate_bytes_per_sec = 1250000; /* 1250 bytes = 1 ms */
	q = make(&o);
	cr_assert_not_null(q);
	cr_assert_eq(cake_enqueue(q, &a, now), CAKE_ENQ_QUEUED);
	cr_assert_eq(cake_enqueue(q, &b, now), CAKE_ENQ_QUEUED);
	cr_assert_eq(a.enqueue_ns, now);
	cr_assert_eq(a.adj_len, 1250);
	p = cake_dequeue(q, now, &next);
	cr_assert_eq(p, &a);
	cr_assert_null(p->next);
	cr_assert_eq(next, now + MS(1));
	cr_assert_null(cake_dequeue(q, now + MS(1) - 1, &next));
	cr_assert_eq(next, now + MS(1));
	p = cake_dequeue(q, now + MS(1), &next);
	cr_assert_eq(p, &b);
	cr_assert_eq(next, CAKE_TIME_NONE);
	cake_get_stats(q, &st);
	cr_assert_eq(st.overlimits, 1);
	cr_assert_eq(st.sent_packets, 2);
	cr_assert_eq(st.sent_bytes, 2500);
	cake_free(q);
}

/* Unlimited: everything may go at once. */
Test(cake_api, unlimited_sends_back_to_back)
{
	struct cake_pkt ps[5];
	uint64_t next;
	struct cake *q = make(NULL);
	int i;

	cr_assert_not_null(q);
	for (i = 0; i < 5; i++) {
		ps[i] = pkt((uint32_t)i, 1000);
		(void)cake_enqueue(q, &ps[i], MS(1000));
	}
	for (i = 0; i < 5; i++) {
		cr_assert_not_null(cake_dequeue(q, MS(1000), &next));
		cr_assert_eq(next, i < 4 ? MS(1000) : CAKE_TIME_NONE);
	}
	cake_free(q);
}

Test(cake_api, split_gso_queues_segments)
{
	struct cake_pkt big = pkt(7, 4000);
	struct cake_stats st;
	struct cake *q = make(NULL);
	int i;

	cr_assert_not_null(q);
	big.gso_segs = 3;
	big.gso_size = 1448;
	c.nsegs = 3;
	cr_assert_eq(cake_enqueue(q, &big, MS(1000)), CAKE_ENQ_QUEUED);
	cr_assert_eq(c.splits, 1);
	cr_assert_eq(cake_backlog_packets(q), 3);
	cr_assert_eq(cake_backlog_bytes(q), 4000);
	cake_get_stats(q, &st);
	cr_assert_eq(st.tins[1].sent_packets, 3);
	cr_assert_eq(st.tins[1].sent_bytes, 4000);
	cr_assert_eq(st.tins[1].max_pkt_len, 4000);
	for (i = 0; i < 3; i++) {
		struct cake_pkt *p = cake_dequeue(q, MS(1000), NULL);

		cr_assert_eq(p, &c.segs[i]);
		cr_assert_eq(p->adj_len, p->wire_len);
	}
	cake_free(q);
}

Test(cake_api, split_gso_failure_drops)
{
	struct cake_pkt big = pkt(7, 4000);
	struct cake_stats st;
	struct cake *q = make(NULL);

	cr_assert_not_null(q);
	big.gso_segs = 3;
	big.gso_size = 1448;
	c.split_fails = true;
	cr_assert_eq(cake_enqueue(q, &big, MS(1000)), CAKE_ENQ_DROPPED);
	cr_assert_eq(c.drops[CAKE_DROP_GSO_FAILED], 1);
	cr_assert_eq(c.last_drop, &big);
	cr_assert_eq(cake_backlog_packets(q), 0);
	cake_get_stats(q, &st);
	cr_assert_eq(st.dropped, 1);
	cake_free(q);
}

/* no-split-gso keeps the super-packet whole but charges it segment by segment. */
Test(cake_api, no_split_gso_charges_per_segment)
{
	struct cake_options o;
	struct cake_pkt big = pkt(7, 4500);
	struct cake *q;

	memset(&o, 0, sizeof(o));
	o.present = CAKE_OPT_SPLIT_GSO | CAKE_OPT_OVERHEAD;
	o.split_gso = false;
	o.overhead = 38;
	q = make(&o);
	cr_assert_not_null(q);
	/* 3 TCP segments of 1448 payload behind 20 + 32 bytes of headers, each 1500
	 * bytes on the wire: the super-packet is 52 + 3 * 1448 = 4396 bytes */
	big.len = 52 + 3 * 1448;
	big.l4_offset = 20;
	big.l4_hdr_len = 32;
	big.gso_segs = 3;
	big.gso_size = 1448;
	cr_assert_eq(cake_enqueue(q, &big, MS(1000)), CAKE_ENQ_QUEUED);
	cr_assert_eq(c.splits, 0);
	cr_assert_eq(cake_backlog_packets(q), 1);
	cr_assert_eq(big.adj_len, 3 * (1500 + 38));
	cake_free(q);
}

/* split-gso on but no hook: queued whole, like no-split-gso. */
Test(cake_api, split_gso_without_hook)
{
	static const struct cake_ops bare = { .drop = op_drop };
	struct cake_params p = { .ops = &bare };
	struct cake_pkt big = pkt(7, 3000);
	struct cake *q = cake_new(&p, NULL, 0);

	cr_assert_not_null(q);
	big.gso_segs = 2;
	big.gso_size = 1400;
	cr_assert_eq(cake_enqueue(q, &big, 0), CAKE_ENQ_QUEUED);
	cr_assert_eq(cake_backlog_packets(q), 1);
	cake_free(q);
}

Test(cake_api, ack_filter_hook)
{
	struct cake_options o;
	struct cake_pkt a = pkt(3, 100), b = pkt(3, 100), d = pkt(3, 100), other = pkt(4, 100);
	struct cake_stats st;
	struct cake *q;

	memset(&o, 0, sizeof(o));
	o.present = CAKE_OPT_ACK_FILTER;
	o.ack_filter = CAKE_ACK_AGGRESSIVE;
	q = make(&o);
	cr_assert_not_null(q);
	cr_assert_eq(cake_enqueue(q, &a, MS(1000)), CAKE_ENQ_QUEUED);
	cr_assert_eq(c.filter_calls, 0); /* alone in its queue: nothing to compare */
	c.filter_answer = (struct cake_pkt *)1; /* drop the head */
	cr_assert_eq(cake_enqueue(q, &b, MS(1000)), CAKE_ENQ_QUEUED);
	cr_assert_eq(c.filter_calls, 1);
	cr_assert_eq(c.filter_mode, CAKE_ACK_AGGRESSIVE);
	cr_assert_eq(c.drops[CAKE_DROP_ACK_FILTER], 1);
	cr_assert_eq(c.last_drop, &a);
	cr_assert_eq(cake_backlog_packets(q), 1);
	cr_assert_eq(cake_backlog_bytes(q), 100);
	/* answers that are not an older packet of the queue are ignored */
	c.filter_answer = &other;
	cr_assert_eq(cake_enqueue(q, &d, MS(1000)), CAKE_ENQ_QUEUED);
	cr_assert_eq(c.drops[CAKE_DROP_ACK_FILTER], 1);
	cr_assert_eq(cake_backlog_packets(q), 2);
	cake_get_stats(q, &st);
	cr_assert_eq(st.tins[1].ack_drops, 1);
	cr_assert_eq(st.dropped, 1);
	cr_assert_eq(cake_dequeue(q, MS(1000), NULL), &b);
	cr_assert_eq(cake_dequeue(q, MS(1000), NULL), &d);
	cake_free(q);
}

Test(cake_api, ack_filter_off_never_calls)
{
	struct cake_pkt a = pkt(3, 100), b = pkt(3, 100);
	struct cake *q = make(NULL);

	cr_assert_not_null(q);
	(void)cake_enqueue(q, &a, 0);
	(void)cake_enqueue(q, &b, 0);
	cr_assert_eq(c.filter_calls, 0);
	cake_free(q);
}

/* Nine flows in one 8-way set: eight ways, then a collision on the home queue. */
Test(cake_api, set_associative_counters)
{
	struct cake_options o;
	struct cake_pkt ps[10];
	struct cake_stats st;
	struct cake *q;
	int i;

	memset(&o, 0, sizeof(o));
	o.present = CAKE_OPT_FLOW_MODE | CAKE_OPT_DIFFSERV;
	o.flow_mode = CAKE_FLOW_FLOWS;
	o.diffserv = CAKE_DIFFSERV_BESTEFFORT;
	q = make(&o);
	cr_assert_not_null(q);
	for (i = 0; i < 9; i++) {
		ps[i] = pkt(3 + CAKE_QUEUES * (uint32_t)i, 100); /* all reduce to queue 3 */
		(void)cake_enqueue(q, &ps[i], 0);
	}
	cake_get_stats(q, &st);
	cr_assert_eq(st.tins[0].way_misses, 8);
	cr_assert_eq(st.tins[0].way_collisions, 1);
	cr_assert_eq(st.tins[0].way_directs, 0);
	/* the first flow lost queue 3 to the ninth: its next packet is found nowhere and
	 * collides again; the second flow is found in another way (an indirect hit) */
	ps[9] = pkt(3 + CAKE_QUEUES * 1, 100);
	(void)cake_enqueue(q, &ps[9], 0);
	cake_get_stats(q, &st);
	cr_assert_eq(st.tins[0].way_indirect_hits, 1);
	cake_free(q);
}

Test(cake_api, flow_stats)
{
	struct cake_pkt a = pkt(10, 700), b = pkt(10, 300);
	struct cake_flow_stats fs;
	struct cake *q = make(NULL);

	cr_assert_not_null(q);
	(void)cake_enqueue(q, &a, 0);
	(void)cake_enqueue(q, &b, 0);
	cr_assert_eq(cake_get_flow_stats(q, 3, 0, 0, &fs), -ENOENT);
	cr_assert_eq(cake_get_flow_stats(q, 0, CAKE_QUEUES, 0, &fs), -EINVAL);
	/* Best Effort is column 1 in diffserv3 */
	cr_assert_eq(cake_get_flow_stats(q, 1, 10, 0, &fs), 0);
	cr_assert(fs.active);
	cr_assert_eq(fs.qlen, 2);
	cr_assert_eq(fs.backlog_bytes, 1000);
	cr_assert_gt(fs.deficit, 0);
	cr_assert_eq(cake_get_flow_stats(q, 1, 11, 0, &fs), 0);
	cr_assert_not(fs.active);
	cr_assert_eq(fs.qlen, 0);
	cake_free(q);
}

/* CE marks go through the set_ce op and show in the packet's metadata. */
Test(cake_api, ce_mark_through_op)
{
	struct cake_options o;
	struct cake_pkt ps[400];
	struct cake *q;
	uint64_t now = MS(1000);
	int i, marked = 0, got = 0;

	memset(&o, 0, sizeof(o));
	o.present = CAKE_OPT_RATE;
	o.rate_bytes_per_sec = 1250000;
	q = make(&o);
	cr_assert_not_null(q);
	for (i = 0; i < 400; i++) {
		ps[i] = pkt(1, 1250);
		ps[i].ecn = 2;
		(void)cake_enqueue(q, &ps[i], now);
	}
	while (got + c.drops[CAKE_DROP_CONGESTED] < 400) {
		uint64_t next;
		struct cake_pkt *p = cake_dequeue(q, now, &next);

		if (!p) {
			now = next;
			continue;
		}
		got++;
		marked += p->ecn == 3;
	}
	cr_assert_gt(c.ce, 0);
	cr_assert_eq(marked, c.ce);
	cr_assert_eq(c.drops[CAKE_DROP_CONGESTED], 0);
	cake_free(q);
}

/* Nonsense metadata is queued or dropped, never a crash or a broken count. */
Test(cake_api, bogus_metadata)
{
	struct cake_options o;
	struct cake_pkt ps[6];
	struct cake *q;
	uint64_t now = MS(1000);
	int i, out = 0;

	memset(&o, 0, sizeof(o));
	o.present = CAKE_OPT_RATE | CAKE_OPT_SPLIT_GSO | CAKE_OPT_ATM | CAKE_OPT_OVERHEAD;
	o.rate_bytes_per_sec = 125000000;
	o.split_gso = false;
	o.atm = CAKE_ATM_ATM;
	o.overhead = -64;
	q = make(&o);
	cr_assert_not_null(q);
	ps[0] = pkt(1, 100);
	ps[0].wire_len = UINT32_MAX;
	ps[1] = pkt(2, 100);
	ps[1].wire_len = 0;
	ps[2] = pkt(3, 100);
	ps[2].dscp = 0xff;
	ps[2].ecn = 0xff;
	ps[3] = pkt(4, 100);
	ps[3].gso_segs = 65535;
	ps[3].gso_size = 65535;
	ps[3].l4_offset = 65535;
	ps[3].l4_hdr_len = 65535;
	ps[4] = pkt(5, 100);
	ps[4].gso_segs = 0;
	ps[4].gso_size = 1;
	ps[5] = pkt(6, 100);
	ps[5].mark = UINT32_MAX;
	for (i = 0; i < 6; i++)
		(void)cake_enqueue(q, &ps[i], now);
	cr_assert_leq(cake_memory_used(q), cake_memory_limit(q));
	while (cake_backlog_packets(q)) {
		uint64_t next;
		struct cake_pkt *p = cake_dequeue(q, now, &next);

		if (p)
			out++;
		else
			now = next;
	}
	cr_assert_eq(out + c.drops[CAKE_DROP_OVERLIMIT] + c.drops[CAKE_DROP_CONGESTED], 6);
	cake_free(q);
}

/* A deterministic random walk over enqueue, dequeue, reconfiguration and time, checking
 * the books after every step. */
static uint64_t rnd_state = 0x243f6a8885a308d3ull;

static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (uint32_t)rnd_state;
}

static void random_change(struct cake *q)
{
	struct cake_options o;

	memset(&o, 0, sizeof(o));
	o.present = rnd() & 0xffff;
	o.rate_bytes_per_sec = (rnd() % 4) ? (uint64_t)(rnd() % 200000000) : 0;
	o.autorate_ingress = rnd() & 1;
	o.rtt_us = rnd() % 1000000;
	o.target_us = o.rtt_us / 20;
	o.diffserv = (enum cake_diffserv_mode)(rnd() % 5);
	o.flow_mode = (enum cake_flow_mode)(rnd() % 8);
	o.wash = rnd() & 1;
	o.ingress = rnd() & 1;
	o.ack_filter = (enum cake_ack_filter_mode)(rnd() % 3);
	o.split_gso = rnd() & 1;
	o.raw = rnd() & 1;
	o.overhead = (int32_t)(rnd() % 321) - 64;
	o.mpu = rnd() % 257;
	o.atm = (enum cake_atm_mode)(rnd() % 3);
	o.memlimit_bytes = (rnd() % 3) ? 0 : rnd() % 2000000;
	o.fwmark_mask = rnd();
	cr_assert_eq(cake_configure(q, &o, 0), 0);
}

Test(cake_api, random_walk_keeps_the_books)
{
	enum { N = 2048 };
	static struct cake_pkt pool[N];
	static bool queued[N];
	struct cake_stats st;
	uint64_t now = MS(1000), sent = 0;
	struct cake *q = make(NULL);
	int step, i;

	cr_assert_not_null(q);
	walk_pool = pool;
	walk_queued = queued;
	for (step = 0; step < 200000; step++) {
		uint32_t r = rnd() % 100;

		if (r < 55) {
			for (i = (int)(rnd() % N); queued[i]; i = (i + 1) % N)
				;
			pool[i] = pkt(rnd() % 40, 60 + rnd() % 3000);
			pool[i].dscp = (uint8_t)(rnd() % 64);
			pool[i].ecn = (uint8_t)(rnd() % 4);
			pool[i].src_hash = rnd() % 7;
			pool[i].dst_hash = rnd() % 5;
			pool[i].mark = rnd();
			if (rnd() % 10 == 0) {
				pool[i].gso_segs = (uint16_t)(2 + rnd() % 40);
				pool[i].gso_size = (uint16_t)(rnd() % 1500);
			}
			queued[i] = true;
			if (cake_backlog_packets(q) > N - 64) {
				queued[i] = false;
				continue;
			}
			(void)cake_enqueue(q, &pool[i], now);
			/* (a smaller limit set by a change is enforced at the next enqueue,
			 * as the kernel does) */
			cr_assert_leq(cake_memory_used(q), cake_memory_limit(q));
		} else if (r < 97) {
			struct cake_pkt *p = cake_dequeue(q, now, NULL);

			if (p) {
				cr_assert(queued[p - pool]);
				queued[p - pool] = false;
				sent++;
			}
		} else if (r < 98) {
			random_change(q);
		} else {
			now += rnd() % MS(5);
		}
	}
	cake_get_stats(q, &st);
	cr_assert_eq(st.sent_packets, sent);
	{
		uint32_t n = 0;

		for (i = 0; i < N; i++)
			n += queued[i];
		cr_assert_eq(cake_backlog_packets(q), n);
		cr_assert_eq(st.backlog_packets, n);
	}
	cr_assert_gt(sent, 10000);
	cr_assert_gt(c.drops[CAKE_DROP_OVERLIMIT] + c.drops[CAKE_DROP_CONGESTED], 0);
	cake_free(q);
	walk_queued = NULL;
}

Test(cake_api, backlog_time_and_sparse_flows)
{
	struct cake_options o = { .present = CAKE_OPT_RATE, .rate_bytes_per_sec = 1000000 };
	struct cake_pkt bulk[3] = { pkt(1, 1000), pkt(1, 1000), pkt(1, 1000) };
	struct cake_pkt ping = pkt(2, 100);
	struct cake *q = make(&o), *unlimited;
	int i;

	cr_assert_not_null(q);
	cr_assert_not(cake_sparse_waiting(q));
	for (i = 0; i < 3; i++)
		cr_assert_eq(cake_enqueue(q, &bulk[i], MS(1000)), CAKE_ENQ_QUEUED);
	cr_assert_geq(cake_backlog_time_ns(q), MS(3) - 1, "3000 bytes at 1 MB/s");
	cr_assert_leq(cake_backlog_time_ns(q), MS(3));
	cr_assert_not(cake_sparse_waiting(q), "a new flow holding more than its quantum is bulk");
	cr_assert_eq(cake_enqueue(q, &ping, MS(1000)), CAKE_ENQ_QUEUED);
	cr_assert(cake_sparse_waiting(q));
	cr_assert_eq(cake_dequeue(q, MS(1000), NULL), &bulk[0], "first come, while both are new");
	cr_assert(cake_sparse_waiting(q));
	cr_assert_eq(cake_dequeue(q, MS(1001), NULL), &ping);
	cr_assert_not(cake_sparse_waiting(q));
	cake_reset(q);
	cake_free(q);

	unlimited = make(NULL);
	cr_assert_eq(cake_enqueue(unlimited, &bulk[0], MS(1000)), CAKE_ENQ_QUEUED);
	cr_assert_eq(cake_backlog_time_ns(unlimited), 0);
	cake_reset(unlimited);
	cake_free(unlimited);
}
