/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tc `change` semantics: only the options named change, bad values change nothing,
 * and queued packets stay queued and in order across any change that keeps their tin.
 */
#include <criterion/criterion.h>
#include <errno.h>

#include "tests/support/cake_harness.h"

#define MS(x) ((uint64_t)(x) * 1000000)

enum { NPKT = 240 };

struct rec {
	struct cake_pkt pkt[NPKT];
	int dropped[CAKE_DROP_FLUSH + 1];
	int order_errors;
	int last_seq[16];
};

static struct rec g;

static int seq_of(const struct cake_pkt *p)
{
	return (int)(p - g.pkt);
}

static void rec_drop(void *ctx, struct cake_pkt *p, enum cake_drop_reason r)
{
	(void)ctx;
	(void)p;
	g.dropped[r]++;
}

static const struct cake_ops rec_ops = { .drop = rec_drop };

/* NPKT packets over 12 flows (and hosts) and all the DSCPs of diffserv4's tins. */
static struct cake *fill(const struct cake_options *o)
{
	struct cake_params p = { .ops = &rec_ops, .seed = 3 };
	struct cake *q;
	int i;

	memset(&g, 0, sizeof(g));
	for (i = 0; i < 16; i++)
		g.last_seq[i] = -1;
	q = cake_new(&p, o, 0);
	cr_assert_not_null(q);
	for (i = 0; i < NPKT; i++) {
		struct cake_pkt *pk = &g.pkt[i];

		pk->wire_len = 200 + (uint32_t)(i % 7) * 100;
		pk->flow_hash = 0x1234567u * (uint32_t)(i % 12 + 1);
		pk->src_hash = 0x89abcdu * (uint32_t)(i % 3 + 1);
		pk->dst_hash = 0x4567u * (uint32_t)(i % 5 + 1);
		pk->dscp = (uint8_t[]){ 0, 8, 34, 46 }[(i % 12) % 4];
		pk->gso_segs = 1;
		cr_assert_eq(cake_enqueue(q, pk, 0), CAKE_ENQ_QUEUED);
	}
	return q;
}

/* Drain everything, checking per-flow FIFO order; returns packets delivered. */
static int drain(struct cake *q, uint64_t *t)
{
	int n = 0;

	while (cake_backlog_packets(q)) {
		uint64_t next;
		struct cake_pkt *p = cake_dequeue(q, *t, &next);

		if (!p) {
			cr_assert_neq(next, CAKE_TIME_NONE);
			cr_assert_gt(next, *t);
			*t = next;
			continue;
		}
		if (seq_of(p) <= g.last_seq[seq_of(p) % 12])
			g.order_errors++;
		g.last_seq[seq_of(p) % 12] = seq_of(p);
		n++;
	}
	return n;
}

static struct cake_options no_aqm(void)
{
	struct cake_options o = h_opts_rate(H_MBIT(10));

	h_opts_quiet_aqm(&o); /* while the queue drains */
	o.present |= CAKE_OPT_DIFFSERV;
	o.diffserv = CAKE_DIFFSERV_DIFFSERV4;
	return o;
}

/* A stream of changes that keep the tins: nothing is lost or reordered. */
Test(cake_reconfigure, changes_keep_packets)
{
	struct cake_options o = no_aqm();
	struct cake_options changes[8];
	struct cake *q = fill(&o);
	uint64_t t = 0;
	int i, n = 0;

	memset(changes, 0, sizeof(changes));
	changes[0] = h_opts_rate(H_MBIT(50));
	changes[1].present = CAKE_OPT_FLOW_MODE;
	changes[1].flow_mode = CAKE_FLOW_FLOWS;
	changes[2].present = CAKE_OPT_OVERHEAD | CAKE_OPT_MPU | CAKE_OPT_ATM;
	changes[2].overhead = 38;
	changes[2].mpu = 84;
	changes[2].atm = CAKE_ATM_PTM;
	changes[3].present = CAKE_OPT_FLOW_MODE;
	changes[3].flow_mode = CAKE_FLOW_DUAL_SRC;
	changes[4] = h_opts_rate(0);
	changes[5].present = CAKE_OPT_ACK_FILTER | CAKE_OPT_WASH | CAKE_OPT_SPLIT_GSO |
			     CAKE_OPT_INGRESS | CAKE_OPT_NAT | CAKE_OPT_FWMARK;
	changes[5].ack_filter = CAKE_ACK_AGGRESSIVE;
	changes[5].ingress = true;
	changes[6].present = CAKE_OPT_FLOW_MODE | CAKE_OPT_RATE;
	changes[6].flow_mode = CAKE_FLOW_TRIPLE;
	changes[6].rate_bytes_per_sec = H_MBIT(20);
	changes[7].present = CAKE_OPT_MEMLIMIT;
	changes[7].memlimit_bytes = 10u << 20;

	for (i = 0; i < 8; i++) {
		int k;

		/* let a few packets out between changes */
		for (k = 0; k < 10; k++) {
			uint64_t next;
			struct cake_pkt *p = cake_dequeue(q, t, &next);

			if (p) {
				g.last_seq[seq_of(p) % 12] = seq_of(p);
				n++;
			} else {
				t = next;
			}
		}
		cr_assert_eq(cake_configure(q, &changes[i], t), 0, "change %d", i);
	}
	n += drain(q, &t);
	cr_assert_eq(n, NPKT);
	for (i = 0; i <= CAKE_DROP_FLUSH; i++)
		cr_assert_eq(g.dropped[i], 0, "reason %d", i);
	cr_assert_eq(g.order_errors, 0);
	cake_free(q);
}

/* The new rate applies to the packets already queued. */
Test(cake_reconfigure, new_rate_applies_at_once)
{
	struct cake_options o = no_aqm();
	struct cake_options fast = h_opts_rate(H_MBIT(40));
	struct cake *q;
	uint64_t t = 0, bytes = 0;
	int n;

	o.present |= CAKE_OPT_DIFFSERV;
	o.diffserv = CAKE_DIFFSERV_BESTEFFORT;
	q = fill(&o);
	cr_assert_eq(cake_configure(q, &fast, 0), 0);
	n = drain(q, &t);
	cr_assert_eq(n, NPKT);
	for (n = 0; n < NPKT; n++)
		bytes += g.pkt[n].wire_len;
	/* the last packet left when all but its own bytes had gone at 40 Mbit/s */
	cr_assert(t <= bytes * 1000000000ull / H_MBIT(40) && t >= (bytes - 800) * 1000000000ull /
									    H_MBIT(40) - 1000,
		  "%lu", (unsigned long)t);
	cake_free(q);
}

/* diffserv4 -> diffserv3 drops what sat in the tin that disappears (the kernel's
 * behaviour); the other tins keep their packets, and going up loses nothing. */
Test(cake_reconfigure, diffserv_change)
{
	struct cake_options o = no_aqm();
	struct cake_options ds3, ds8;
	struct cake_stats st;
	struct cake *q = fill(&o);
	uint64_t t = 0;
	int in_tin3 = 0, i, n;

	for (i = 0; i < NPKT; i++)
		in_tin3 += g.pkt[i].dscp == 46;
	memset(&ds3, 0, sizeof(ds3));
	ds3.present = CAKE_OPT_DIFFSERV;
	ds3.diffserv = CAKE_DIFFSERV_DIFFSERV3;
	cr_assert_eq(cake_configure(q, &ds3, 0), 0);
	cr_assert_eq(g.dropped[CAKE_DROP_RECONFIG], in_tin3);
	cr_assert_eq(cake_backlog_packets(q), (uint32_t)(NPKT - in_tin3));
	cake_get_stats(q, &st);
	cr_assert_eq(st.tin_count, 3);
	ds8 = ds3;
	ds8.diffserv = CAKE_DIFFSERV_DIFFSERV8;
	cr_assert_eq(cake_configure(q, &ds8, 0), 0);
	cr_assert_eq(g.dropped[CAKE_DROP_RECONFIG], in_tin3);
	n = drain(q, &t);
	cr_assert_eq(n, NPKT - in_tin3);
	cr_assert_eq(g.order_errors, 0);
	cake_get_stats(q, &st);
	cr_assert_eq(st.tin_count, 8);
	for (i = 0; i < 8; i++) /* (flows stay counted until a dequeue finds them empty) */
		cr_assert_eq(st.tins[i].backlog_bytes, 0);
	cake_free(q);
}

/* Each bad value is refused with -EINVAL and leaves the configuration alone. */
Test(cake_reconfigure, bad_values_change_nothing)
{
	struct cake_options o = no_aqm();
	struct cake_options before, after;
	struct cake *q = fill(&o);
	struct cake_options bad[7];
	int i;

	memset(bad, 0, sizeof(bad));
	for (i = 0; i < 7; i++) { /* each also tries to change the rate */
		bad[i].present = CAKE_OPT_RATE;
		bad[i].rate_bytes_per_sec = 12345;
	}
	bad[0].present |= CAKE_OPT_DIFFSERV;
	bad[0].diffserv = (enum cake_diffserv_mode)5;
	bad[1].present |= CAKE_OPT_FLOW_MODE;
	bad[1].flow_mode = (enum cake_flow_mode)8;
	bad[2].present |= CAKE_OPT_OVERHEAD;
	bad[2].overhead = -65;
	bad[3].present |= CAKE_OPT_OVERHEAD;
	bad[3].overhead = 257;
	bad[4].present |= CAKE_OPT_MPU;
	bad[4].mpu = 257;
	bad[5].present |= CAKE_OPT_ATM;
	bad[5].atm = (enum cake_atm_mode)3;
	bad[6].present |= CAKE_OPT_ACK_FILTER;
	bad[6].ack_filter = (enum cake_ack_filter_mode)3;

	cake_get_options(q, &before);
	for (i = 0; i < 7; i++) {
		cr_assert_eq(cake_configure(q, &bad[i], 0), -EINVAL, "case %d", i);
		cake_get_options(q, &after);
		cr_assert_eq(memcmp(&before, &after, sizeof(before)), 0, "case %d", i);
	}
	cr_assert_eq(cake_backlog_packets(q), NPKT);
	/* and cake_new refuses them too */
	{
		struct cake_params p = { .ops = &rec_ops };

		cr_assert_null(cake_new(&p, &bad[2], 0));
		p.ops = NULL;
		cr_assert_null(cake_new(&p, NULL, 0));
	}
	cake_free(q);
}

/* Only present fields change; the rest keep tc-cake's defaults or earlier values. */
Test(cake_reconfigure, present_bits_only)
{
	struct cake_params p = { .ops = &rec_ops };
	struct cake_options o, cur;
	struct cake *q = cake_new(&p, NULL, 0);

	cr_assert_not_null(q);
	cake_get_options(q, &cur);
	cr_assert_eq(cur.rate_bytes_per_sec, 0);
	cr_assert_eq(cur.diffserv, CAKE_DIFFSERV_DIFFSERV3);
	cr_assert_eq(cur.flow_mode, CAKE_FLOW_TRIPLE);
	cr_assert_eq(cur.rtt_us, 100000);
	cr_assert_eq(cur.target_us, 5000);
	cr_assert(cur.split_gso);
	cr_assert(cur.raw);
	cr_assert_not(cur.wash);
	cr_assert_eq(cur.ack_filter, CAKE_ACK_NONE);

	memset(&o, 0, sizeof(o));
	o.present = CAKE_OPT_WASH | CAKE_OPT_RTT;
	o.wash = true;
	o.rtt_us = 10000;
	o.target_us = 500;
	o.diffserv = CAKE_DIFFSERV_BESTEFFORT; /* not present: ignored */
	cr_assert_eq(cake_configure(q, &o, 0), 0);
	cake_get_options(q, &cur);
	cr_assert(cur.wash);
	cr_assert_eq(cur.rtt_us, 10000);
	cr_assert_eq(cur.target_us, 500);
	cr_assert_eq(cur.diffserv, CAKE_DIFFSERV_DIFFSERV3);

	o.present = CAKE_OPT_RTT; /* rtt 0 becomes 1 us, as the kernel */
	o.rtt_us = 0;
	o.target_us = 0;
	cr_assert_eq(cake_configure(q, &o, 0), 0);
	cake_get_options(q, &cur);
	cr_assert_eq(cur.rtt_us, 1);
	cr_assert_eq(cur.target_us, 1);
	cake_free(q);
}

/* Setting overhead (or raw) restarts the min/max size statistics. */
Test(cake_reconfigure, overhead_resets_size_stats)
{
	struct cake_options o = no_aqm();
	struct cake_options oh;
	struct cake_stats st;
	struct cake *q = fill(&o);

	cake_get_stats(q, &st);
	cr_assert_eq(st.min_network_size, 200);
	cr_assert_eq(st.max_network_size, 800);
	cr_assert_eq(st.min_adj_size, 200);
	memset(&oh, 0, sizeof(oh));
	oh.present = CAKE_OPT_OVERHEAD;
	oh.overhead = 18;
	cr_assert_eq(cake_configure(q, &oh, 0), 0);
	cake_get_stats(q, &st);
	cr_assert_eq(st.min_network_size, 65535);
	cr_assert_eq(st.max_network_size, 0);
	cake_free(q);
}

/* The target at a low rate (1.5 MTU times) and the packet-limit memory cap follow a new
 * MTU, and the packets already queued stay. */
Test(cake_reconfigure, mtu_change_reaches_target_and_memory_cap)
{
	struct cake_options o = h_opts_rate(H_MBIT(1)), unlimited = h_opts_rate(0);
	struct cake_stats st;
	struct cake *q;
	uint64_t t = 0;

	o.present |= CAKE_OPT_DIFFSERV;
	o.diffserv = CAKE_DIFFSERV_BESTEFFORT;
	q = fill(&o);
	cr_assert_eq(cake_mtu(q), CAKE_DEFAULT_MTU_BYTES);
	cake_get_stats(q, &st);
	cr_assert_eq(st.tins[0].target_us, 18000); /* 1500 bytes at 1 Mbit/s: 12 ms */
	cake_set_mtu(q, 9000);
	cr_assert_eq(cake_mtu(q), 9000);
	cake_get_stats(q, &st);
	cr_assert_eq(st.tins[0].target_us, 108000);
	cr_assert_eq(cake_backlog_packets(q), NPKT);
	cake_set_mtu(q, 1280);
	cake_get_stats(q, &st);
	cr_assert_eq(st.tins[0].target_us, 15360);
	cr_assert_eq(cake_configure(q, &unlimited, 0), 0);
	cr_assert_eq(cake_memory_limit(q), CAKE_DEFAULT_PKT_LIMIT * 1280);
	cake_set_mtu(q, 9000);
	cr_assert_eq(cake_memory_limit(q), CAKE_DEFAULT_PKT_LIMIT * 9000);
	cr_assert_eq(drain(q, &t), NPKT);
	cr_assert_eq(g.order_errors, 0);
	cake_free(q);
}
