/* SPDX-License-Identifier: GPL-2.0-only */
#include "qdisc/ackfilter.h"

#include <criterion/criterion.h>
#include <string.h>

#include "qdisc/flowkey.h"
#include "tests/support/pktbuild.h"

static const struct cake_siphash_key key = {.k = {1, 2}};

enum opt_kind {
	O_NONE,
	O_SACK,	 /* one block [a, b) */
	O_SACK2, /* blocks [a, b) and [b + 100, b + 200) */
	O_TS,	 /* tsval a, tsecr b */
	O_MSS,
	O_WSCALE,
	O_UNKNOWN, /* kind 30 (MPTCP), length 4 */
	O_MD5,
	O_BADSACK, /* SACK with a length that is not 2 + 8n */
};

enum flow_kind {
	F_SAME,
	F_SPORT, /* other source port */
	F_DADDR, /* other destination address */
	F_V6,	 /* same ports, IPv6 */
};

struct spec {
	uint32_t ack;
	uint8_t flags;
	uint16_t plen;
	uint8_t opt;
	uint32_t a, b;
	uint8_t flow;
};

#define ACK(n)                                                                                     \
	{                                                                                          \
		.ack = (n), .flags = PB_TCP_ACK                                                    \
	}

enum { MAXQ = 5 };

struct acase {
	const char *name;
	int nq;
	struct spec q[MAXQ];
	struct spec n;
	int drop_normal; /* index into q, or -1 */
	int drop_aggressive;
};

/* clang-format off */
static const struct acase cases[] = {
	{ "two redundant acks: drop the head", 2, { ACK(100), ACK(200) }, ACK(300), 0, 0 },
	{ "three: drop the head only", 3, { ACK(100), ACK(200), ACK(250) }, ACK(300), 0, 0 },
	{ "one adjacent ack: aggressive only", 1, { ACK(100) }, ACK(300), -1, 0 },
	{ "same cumulative ack, no sack: nothing new", 2, { ACK(300), ACK(300) }, ACK(300), -1, -1 },
	{ "older ack newer than the new one", 2, { ACK(400), ACK(500) }, ACK(300), -1, -1 },
	{ "sequence wrap", 2, { ACK(0xfffffff0u), ACK(0xfffffff8u) }, ACK(0x10), 0, 0 },
	{ "data packet between: not adjacent",
	  2, { ACK(100), { .ack = 150, .flags = PB_TCP_ACK, .plen = 10 } }, ACK(300), -1, -1 },
	{ "syn never", 2, { { .ack = 1, .flags = PB_TCP_SYN | PB_TCP_ACK },
			    { .ack = 1, .flags = PB_TCP_SYN | PB_TCP_ACK } }, ACK(300), -1, -1 },
	{ "fin never", 2, { { .ack = 100, .flags = PB_TCP_FIN | PB_TCP_ACK },
			    { .ack = 200, .flags = PB_TCP_FIN | PB_TCP_ACK } }, ACK(300), -1, -1 },
	{ "rst never", 2, { { .ack = 100, .flags = PB_TCP_RST | PB_TCP_ACK },
			    { .ack = 200, .flags = PB_TCP_RST | PB_TCP_ACK } }, ACK(300), -1, -1 },
	{ "urg never", 2, { { .ack = 100, .flags = PB_TCP_URG | PB_TCP_ACK },
			    { .ack = 200, .flags = PB_TCP_URG | PB_TCP_ACK } }, ACK(300), -1, -1 },
	{ "psh never", 2, { { .ack = 100, .flags = PB_TCP_PSH | PB_TCP_ACK },
			    { .ack = 200, .flags = PB_TCP_PSH | PB_TCP_ACK } }, ACK(300), -1, -1 },
	{ "unknown option never", 2, { { .ack = 100, .flags = PB_TCP_ACK, .opt = O_UNKNOWN },
				       { .ack = 200, .flags = PB_TCP_ACK, .opt = O_UNKNOWN } },
	  ACK(300), -1, -1 },
	{ "mss option never", 1, { { .ack = 100, .flags = PB_TCP_ACK, .opt = O_MSS } },
	  ACK(300), -1, -1 },
	{ "window scale never", 1, { { .ack = 100, .flags = PB_TCP_ACK, .opt = O_WSCALE } },
	  ACK(300), -1, -1 },
	{ "malformed sack length never", 1, { { .ack = 100, .flags = PB_TCP_ACK, .opt = O_BADSACK } },
	  ACK(300), -1, -1 },
	{ "md5 is harmless", 2, { { .ack = 100, .flags = PB_TCP_ACK, .opt = O_MD5 },
				  { .ack = 200, .flags = PB_TCP_ACK, .opt = O_MD5 } },
	  ACK(300), 0, 0 },
	{ "dsack never", 2, { { .ack = 1000, .flags = PB_TCP_ACK, .opt = O_SACK, .a = 900, .b = 1000 },
			      { .ack = 1000, .flags = PB_TCP_ACK, .opt = O_SACK, .a = 900, .b = 1000 } },
	  { .ack = 1100, .flags = PB_TCP_ACK, .opt = O_SACK, .a = 900, .b = 1100 }, -1, -1 },
	{ "old sack not covered by the new one", 1,
	  { { .ack = 1000, .flags = PB_TCP_ACK, .opt = O_SACK, .a = 1500, .b = 1600 } },
	  { .ack = 1000, .flags = PB_TCP_ACK, .opt = O_SACK, .a = 1700, .b = 1800 }, -1, -1 },
	{ "old sack but new has none", 1,
	  { { .ack = 1000, .flags = PB_TCP_ACK, .opt = O_SACK, .a = 1500, .b = 1600 } },
	  ACK(1200), -1, -1 },
	{ "new sack covers and extends the old one", 1,
	  { { .ack = 1000, .flags = PB_TCP_ACK, .opt = O_SACK, .a = 1500, .b = 1600 } },
	  { .ack = 1000, .flags = PB_TCP_ACK, .opt = O_SACK2, .a = 1500, .b = 1600 }, -1, 0 },
	{ "same ack same sack: nothing new", 1,
	  { { .ack = 1000, .flags = PB_TCP_ACK, .opt = O_SACK, .a = 1500, .b = 1600 } },
	  { .ack = 1000, .flags = PB_TCP_ACK, .opt = O_SACK, .a = 1500, .b = 1600 }, -1, -1 },
	{ "same sack, higher ack", 2,
	  { { .ack = 1000, .flags = PB_TCP_ACK, .opt = O_SACK, .a = 1500, .b = 1600 },
	    { .ack = 1100, .flags = PB_TCP_ACK, .opt = O_SACK, .a = 1500, .b = 1600 } },
	  { .ack = 1200, .flags = PB_TCP_ACK, .opt = O_SACK, .a = 1500, .b = 1600 }, 0, 0 },
	{ "older timestamps droppable", 2,
	  { { .ack = 100, .flags = PB_TCP_ACK, .opt = O_TS, .a = 10, .b = 20 },
	    { .ack = 200, .flags = PB_TCP_ACK, .opt = O_TS, .a = 11, .b = 20 } },
	  { .ack = 300, .flags = PB_TCP_ACK, .opt = O_TS, .a = 12, .b = 21 }, 0, 0 },
	{ "newer timestamp than the new ack never", 1,
	  { { .ack = 100, .flags = PB_TCP_ACK, .opt = O_TS, .a = 13, .b = 20 } },
	  { .ack = 300, .flags = PB_TCP_ACK, .opt = O_TS, .a = 12, .b = 21 }, -1, -1 },
	{ "timestamp but the new ack has none", 1,
	  { { .ack = 100, .flags = PB_TCP_ACK, .opt = O_TS, .a = 13, .b = 20 } }, ACK(300), -1, -1 },
	{ "other source port never", 2, { { .ack = 100, .flags = PB_TCP_ACK, .flow = F_SPORT },
					  { .ack = 200, .flags = PB_TCP_ACK, .flow = F_SPORT } },
	  ACK(300), -1, -1 },
	{ "other destination never", 2, { { .ack = 100, .flags = PB_TCP_ACK, .flow = F_DADDR },
					  { .ack = 200, .flags = PB_TCP_ACK, .flow = F_DADDR } },
	  ACK(300), -1, -1 },
	{ "other family never", 2, { { .ack = 100, .flags = PB_TCP_ACK, .flow = F_V6 },
				     { .ack = 200, .flags = PB_TCP_ACK, .flow = F_V6 } },
	  ACK(300), -1, -1 },
	{ "ipv6 redundant", 2, { { .ack = 100, .flags = PB_TCP_ACK, .flow = F_V6 },
				 { .ack = 200, .flags = PB_TCP_ACK, .flow = F_V6 } },
	  { .ack = 300, .flags = PB_TCP_ACK, .flow = F_V6 }, 0, 0 },
	{ "other flows in the queue are skipped", 3,
	  { ACK(100), { .ack = 5, .flags = PB_TCP_ACK, .flow = F_SPORT }, ACK(200) }, ACK(300), 0, 0 },
	{ "ece change resets the candidate", 3,
	  { { .ack = 100, .flags = PB_TCP_ACK | PB_TCP_ECE }, ACK(200), ACK(250) }, ACK(300), 1, 1 },
	{ "ece change resets the count", 2, { { .ack = 100, .flags = PB_TCP_ACK | PB_TCP_ECE },
					      ACK(200) }, ACK(300), -1, 1 },
	{ "aggressive needs matching ece/cwr", 1, { { .ack = 100, .flags = PB_TCP_ACK | PB_TCP_ECE } },
	  ACK(300), -1, -1 },
	{ "aggressive with matching cwr", 1, { { .ack = 100, .flags = PB_TCP_ACK | PB_TCP_CWR } },
	  { .ack = 300, .flags = PB_TCP_ACK | PB_TCP_CWR }, -1, 0 },
	{ "new syn-ack triggers nothing", 2, { ACK(100), ACK(200) },
	  { .ack = 300, .flags = PB_TCP_ACK | PB_TCP_SYN }, -1, -1 },
	{ "new packet without ack triggers nothing", 2, { ACK(100), ACK(200) },
	  { .ack = 300, .flags = PB_TCP_PSH }, -1, -1 },
	{ "new data segment with ack supersedes", 2, { ACK(100), ACK(200) },
	  { .ack = 300, .flags = PB_TCP_ACK | PB_TCP_PSH, .plen = 100 }, 0, 0 },
	{ "empty queue", 0, { ACK(0) }, ACK(300), -1, -1 },
};
/* clang-format on */

struct slot {
	struct cake_pkt p;
	uint8_t buf[256];
};

static size_t opts_for(const struct spec *s, uint8_t *o)
{
	memset(o, 1, 40); /* NOP padding */
	switch (s->opt) {
	case O_SACK:
	case O_SACK2:
		o[2] = 5;
		o[3] = s->opt == O_SACK ? 10 : 18;
		pb_put32(o + 4, s->a);
		pb_put32(o + 8, s->b);
		if (s->opt == O_SACK)
			return 12;
		pb_put32(o + 12, s->b + 100);
		pb_put32(o + 16, s->b + 200);
		return 20;
	case O_TS:
		o[2] = 8;
		o[3] = 10;
		pb_put32(o + 4, s->a);
		pb_put32(o + 8, s->b);
		return 12;
	case O_MSS:
		o[0] = 2;
		o[1] = 4;
		pb_put16(o + 2, 1460);
		return 4;
	case O_WSCALE:
		o[1] = 3;
		o[2] = 3;
		o[3] = 7;
		return 4;
	case O_UNKNOWN:
		o[0] = 30;
		o[1] = 4;
		return 4;
	case O_MD5:
		o[2] = 19;
		o[3] = 18;
		return 20;
	case O_BADSACK:
		o[2] = 5;
		o[3] = 6;
		return 8;
	default:
		return 0;
	}
}

static void make(struct slot *sl, const struct spec *s)
{
	static const uint8_t data[200];
	uint8_t opts[40];
	struct pb_pkt d = {.family = s->flow == F_V6 ? 6 : 4,
			   .proto = PB_PROTO_TCP,
			   .sport = s->flow == F_SPORT ? 40001 : 40000,
			   .dport = 80,
			   .seq = 7,
			   .ack = s->ack,
			   .tcp_flags = s->flags,
			   .payload = data,
			   .payload_len = s->plen};
	size_t len;

	d.tcp_opts = opts;
	d.tcp_opts_len = opts_for(s, opts);
	if (d.family == 4) {
		pb_addr4(d.src, 10, 0, 0, 1);
		pb_addr4(d.dst, 10, 0, 0, s->flow == F_DADDR ? 3 : 2);
	} else {
		pb_addr6(d.src, 0xfd00, 1);
		pb_addr6(d.dst, 0xfd00, 2);
	}
	len = pb_build(sl->buf, sizeof(sl->buf), &d);
	cr_assert_gt(len, 0);
	memset(&sl->p, 0, sizeof(sl->p));
	cr_assert_eq(cake_flowkey_parse(&sl->p, sl->buf, (uint32_t)len, &key), CAKE_FLOWKEY_OK);
}

/* A flow queue as the scheduler keeps one, with its ack_drops counter. */
struct flowq {
	struct cake_pkt *head, *tail;
	unsigned int ack_drops;
};

static void flowq_add(struct flowq *q, struct cake_pkt *p)
{
	p->next = NULL;
	if (q->tail)
		q->tail->next = p;
	else
		q->head = p;
	q->tail = p;
}

static struct cake_pkt *enqueue(struct flowq *q, struct cake_pkt *p, enum cake_ack_filter_mode mode,
				bool link_first)
{
	struct cake_pkt *prev = (struct cake_pkt *)1, *drop;

	if (link_first)
		flowq_add(q, p);
	drop = cake_ack_filter(q->head, p, mode, &prev);
	if (drop) {
		cake_ack_filter_unlink(&q->head, &q->tail, drop, prev);
		q->ack_drops++;
	} else {
		cr_assert_null(prev);
	}
	if (!link_first)
		flowq_add(q, p);
	return drop;
}

static void run_case(const struct acase *c, enum cake_ack_filter_mode mode, bool link_first)
{
	struct slot sl[MAXQ + 1];
	struct flowq q = {0};
	int want = mode == CAKE_ACK_FILTER ? c->drop_normal : c->drop_aggressive;
	struct cake_pkt *drop;
	int n = 0;

	for (int i = 0; i < c->nq; i++) {
		make(&sl[i], &c->q[i]);
		flowq_add(&q, &sl[i].p);
	}
	make(&sl[c->nq], &c->n);
	drop = enqueue(&q, &sl[c->nq].p, mode, link_first);
	if (want < 0) {
		cr_expect_null(drop, "%s (mode %d)", c->name, mode);
		cr_expect_eq(q.ack_drops, 0);
	} else {
		cr_expect_eq(drop, &sl[want].p, "%s (mode %d)", c->name, mode);
		cr_expect_eq(q.ack_drops, 1);
	}
	/* The queue holds exactly the other packets, in order, tail last. */
	for (struct cake_pkt *p = q.head; p; p = p->next, n++) {
		cr_assert_neq(p, drop);
		if (!p->next)
			cr_expect_eq(q.tail, p);
	}
	cr_expect_eq(n, c->nq + 1 - (drop != NULL), "%s", c->name);
}

Test(ackfilter, table_normal)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		run_case(&cases[i], CAKE_ACK_FILTER, true);
		run_case(&cases[i], CAKE_ACK_FILTER, false);
	}
}

Test(ackfilter, table_aggressive)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		run_case(&cases[i], CAKE_ACK_AGGRESSIVE, true);
		run_case(&cases[i], CAKE_ACK_AGGRESSIVE, false);
	}
}

Test(ackfilter, mode_none_never_drops)
{
	struct slot sl[3];
	struct flowq q = {0};

	for (int i = 0; i < 3; i++) {
		struct spec s = ACK(100 + (uint32_t)i);

		make(&sl[i], &s);
		cr_expect_null(enqueue(&q, &sl[i].p, CAKE_ACK_NONE, false));
	}
	cr_expect_eq(q.ack_drops, 0);
}

/* A stream of cumulative ACKs: each third one finds two older ones and drops the first. */
Test(ackfilter, ack_stream_is_thinned_and_counted)
{
	struct slot sl[20];
	struct flowq q = {0};
	unsigned int queued = 0;

	for (int i = 0; i < 20; i++) {
		struct spec s = ACK(1000 + 100 * (uint32_t)i);

		make(&sl[i], &s);
		enqueue(&q, &sl[i].p, CAKE_ACK_FILTER, true);
	}
	for (struct cake_pkt *p = q.head; p; p = p->next)
		queued++;
	cr_expect_eq(q.ack_drops, 18);
	cr_expect_eq(queued, 2);
	cr_expect_eq(q.tail, &sl[19].p);
	cr_expect_eq(q.head, &sl[18].p);
}

Test(ackfilter, unlink_updates_head_and_tail)
{
	struct cake_pkt a = {0}, b = {0}, c = {0};
	struct cake_pkt *head = &a, *tail = &c;

	a.next = &b;
	b.next = &c;
	cake_ack_filter_unlink(&head, &tail, &c, &b);
	cr_expect_eq(tail, &b);
	cr_expect_null(b.next);
	cake_ack_filter_unlink(&head, &tail, &a, NULL);
	cr_expect_eq(head, &b);
	cr_expect_eq(tail, &b);
	cake_ack_filter_unlink(&head, &tail, &b, NULL);
	cr_expect_null(head);
	cr_expect_null(tail);
}

/* Metadata that lies about the TCP header must not lead the filter out of bounds. */
Test(ackfilter, inconsistent_metadata_is_ignored)
{
	struct slot sl[3];
	struct flowq q = {0};
	struct spec s = ACK(100);
	struct cake_pkt *prev;

	for (int i = 0; i < 3; i++) {
		s.ack += 100;
		make(&sl[i], &s);
		flowq_add(&q, &sl[i].p);
	}
	sl[0].p.l4_hdr_len = 200; /* past len */
	sl[1].p.l4_offset = 4;	  /* inside the IP header */
	cr_expect_null(cake_ack_filter(q.head, &sl[2].p, CAKE_ACK_FILTER, &prev));
	sl[1].p.l4_offset = 20; /* sound again: aggressive drops it; prev may be NULL */
	cr_expect_eq(cake_ack_filter(q.head, &sl[2].p, CAKE_ACK_AGGRESSIVE, NULL), &sl[1].p);
	sl[2].p.flags &= (uint8_t)~CAKE_PKT_TCP;
	cr_expect_null(cake_ack_filter(q.head, &sl[2].p, CAKE_ACK_AGGRESSIVE, &prev));
}
