/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The shaper: rate arithmetic, link-layer compensation, and the rate CAKE delivers
 * from 1 Mbit/s to 10 Gbit/s with and without framing compensation.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "qdisc/shaper.h"
#include "tests/support/cake_harness.h"

Test(shaper, duration_matches_rate)
{
	static const uint64_t rates[] = { 1, 63, 64, 1000, 125000, 1250000, 12500000,
					  125000000, 1250000000, 12500000000ull,
					  1ull << 50 };
	static const uint32_t lens[] = { 1, 60, 1500, 65535, 1u << 20 };
	size_t i, j;

	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		struct cake_rate r;

		cake_rate_set(&r, rates[i]);
		cr_assert_eq(r.bytes_per_sec, rates[i]);
		cr_assert_lt(r.rate_ns, 1ull << CAKE_RATE_NS_BITS);
		for (j = 0; j < sizeof(lens) / sizeof(lens[0]); j++) {
			double rate = rates[i] < CAKE_MIN_RATE_BYTES_PER_SEC ?
					      CAKE_MIN_RATE_BYTES_PER_SEC :
					      (double)rates[i];
			double want = lens[j] * 1e9 / rate;
			double got = (double)cake_rate_duration_ns(&r, lens[j]);

			/* 34 significant bits of ns/byte, truncated: 1 ns plus 2^-33 relative */
			cr_assert(got <= want + 1e-6 && got >= want * (1 - 1e-9) - 1,
				  "rate %lu len %u: %f vs %f", (unsigned long)rates[i], lens[j], got,
				  want);
		}
	}
}

Test(shaper, unlimited_takes_no_time)
{
	struct cake_rate r;

	cake_rate_set(&r, 0);
	cr_assert_eq(r.rate_ns, 0);
	cr_assert_eq(cake_rate_duration_ns(&r, 65535), 0);
}

/* tc-cake(8): overhead added, then mpu, then ATM cells of 48 in 53, or PTM 64/65. */
Test(shaper, framing_table)
{
	static const struct {
		int32_t overhead;
		uint32_t mpu;
		enum cake_atm_mode atm;
		uint32_t len, want;
	} cases[] = {
		{ 0, 0, CAKE_ATM_NONE, 1500, 1500 },
		{ 38, 84, CAKE_ATM_NONE, 1500, 1538 },   /* ethernet */
		{ 38, 84, CAKE_ATM_NONE, 40, 84 },       /* mpu */
		{ 18, 64, CAKE_ATM_NONE, 40, 64 },       /* docsis */
		{ -64, 0, CAKE_ATM_NONE, 100, 36 },
		{ -64, 0, CAKE_ATM_NONE, 40, 0 },        /* never below zero */
		{ -64, 60, CAKE_ATM_NONE, 40, 60 },
		{ 0, 0, CAKE_ATM_ATM, 48, 53 },
		{ 0, 0, CAKE_ATM_ATM, 49, 106 },
		{ 0, 0, CAKE_ATM_ATM, 1, 53 },
		{ 0, 0, CAKE_ATM_ATM, 0, 0 },
		{ 48, 0, CAKE_ATM_ATM, 1500, 32 * 53 },  /* conservative: 1548 -> 33 cells? */
		{ 10, 0, CAKE_ATM_ATM, 86, 106 },        /* pppoa-vcmux: 96 bytes = 2 cells */
		{ 10, 0, CAKE_ATM_ATM, 87, 159 },
		{ 0, 0, CAKE_ATM_PTM, 64, 65 },
		{ 0, 0, CAKE_ATM_PTM, 65, 67 },
		{ 30, 0, CAKE_ATM_PTM, 1500, 1530 + 24 }, /* pppoe-ptm */
		{ 22, 0, CAKE_ATM_PTM, 1, 24 },           /* bridged-ptm: 23 -> +1 */
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cake_framing f = { cases[i].overhead, cases[i].mpu, cases[i].atm };
		uint32_t want = cases[i].want;

		if (i == 11) /* 1548 bytes are 32.25 cells: 33 cells */
			want = 33 * 53;
		cr_assert_eq(cake_framing_adjust(&f, cases[i].len), want, "case %zu", i);
	}
}

/* Framing by independent arithmetic, for the delivered-rate checks. */
static uint32_t framed(uint32_t len, int32_t overhead, uint32_t mpu, enum cake_atm_mode atm)
{
	int64_t l = (int64_t)len + overhead;

	if (l < (int64_t)mpu)
		l = mpu;
	if (atm == CAKE_ATM_ATM)
		return (uint32_t)(((l + 47) / 48) * 53);
	if (atm == CAKE_ATM_PTM)
		return (uint32_t)(l + (l + 63) / 64);
	return (uint32_t)l;
}

struct rate_case {
	uint64_t bits_per_sec;
	int32_t overhead;
	uint32_t mpu;
	enum cake_atm_mode atm;
	uint32_t wire_len;
};

/* One backlogged flow: packets leave at rate / framed size, within 1%. */
static void check_rate(const struct rate_case *c)
{
	struct cake_options o = h_opts_rate(c->bits_per_sec / 8);
	uint32_t adj = framed(c->wire_len, c->overhead, c->mpu, c->atm);
	double want_pps = (double)c->bits_per_sec / 8 / adj;
	uint64_t run_ns = (uint64_t)(3000 / want_pps * 1e9); /* about 3000 packets */
	struct harness *h;
	double got_pps;
	int s;

	o.present |= CAKE_OPT_OVERHEAD | CAKE_OPT_MPU | CAKE_OPT_ATM;
	o.overhead = c->overhead;
	o.raw = c->overhead == 0 && c->atm == CAKE_ATM_NONE;
	o.mpu = c->mpu;
	o.atm = c->atm;
	h = h_new(&o, 64, 1);
	cr_assert_not_null(h);
	s = h_add_greedy(h, c->wire_len, 2); /* 2 queued: under 4 MTU times, no AQM */
	h->measure_from_ns = h->now + run_ns / 10;
	h_run(h, h->now + run_ns);

	cr_assert_gt(h->src[s].sent_pkts, 100);
	cr_assert_eq(h->src[s].adj_bytes, (uint64_t)adj * h->src[s].sent_pkts);
	got_pps = (double)(h->src[s].sent_pkts - 1) * 1e9 /
		  (double)(h->src[s].last_ns - h->src[s].first_ns);
	cr_assert(fabs(got_pps / want_pps - 1) < 0.01,
		  "%lu bit/s overhead %d atm %d len %u: %f pkt/s, want %f",
		  (unsigned long)c->bits_per_sec, c->overhead, c->atm, c->wire_len, got_pps,
		  want_pps);
	cr_assert_eq(h->drops[CAKE_DROP_CONGESTED] + h->drops[CAKE_DROP_OVERLIMIT], 0);
	h_free_all(h);
}

Test(shaper, delivered_rate_plain)
{
	static const uint64_t rates[] = { 1000000, 10000000, 100000000, 1000000000,
					  10000000000ull };
	size_t i;

	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		struct rate_case c = { rates[i], 0, 0, CAKE_ATM_NONE, 1500 };

		check_rate(&c);
		c.wire_len = 100;
		check_rate(&c);
	}
}

Test(shaper, delivered_rate_with_compensation)
{
	static const struct rate_case cases[] = {
		{ 1000000, 38, 84, CAKE_ATM_NONE, 1500 },   /* ethernet */
		{ 1000000, 38, 84, CAKE_ATM_NONE, 40 },
		{ 4000000, 48, 0, CAKE_ATM_ATM, 1500 },      /* conservative */
		{ 8000000, 10, 0, CAKE_ATM_ATM, 87 },        /* pppoa-vcmux, 2.x cells */
		{ 20000000, 32, 0, CAKE_ATM_ATM, 576 },      /* pppoe-vcmux */
		{ 50000000, 30, 0, CAKE_ATM_PTM, 1500 },     /* pppoe-ptm */
		{ 100000000, 22, 0, CAKE_ATM_PTM, 64 },      /* bridged-ptm */
		{ 500000000, 18, 64, CAKE_ATM_NONE, 1500 },  /* docsis */
		{ 1000000000, -20, 0, CAKE_ATM_NONE, 1500 },
		{ 10000000000ull, 38, 84, CAKE_ATM_NONE, 1500 },
		{ 10000000000ull, 0, 0, CAKE_ATM_PTM, 9000 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_rate(&cases[i]);
}

/* A shaped flow never bursts: consecutive packets leave one serialisation time apart. */
Test(shaper, no_burst_after_idle)
{
	struct cake_options o = h_opts_rate(H_MBIT(100));
	struct harness *h = h_new(&o, 64, 1);
	uint64_t gap = 1500ull * 1000000000ull / H_MBIT(100), t0;
	int s, i;

	cr_assert_not_null(h);
	s = h_add_periodic(h, 1500, 1000000000ull); /* one packet per second */
	h->src[s].stop_ns = h->now + 1;
	h_run(h, h->now + 3000000000ull); /* long idle after the first packet */
	cr_assert_eq(h->src[s].sent_pkts, 1);
	/* then a burst of 10 at once */
	t0 = h->now;
	for (i = 0; i < 10; i++)
		cr_assert(h_send(h, s));
	h_run(h, h->now + 20 * gap);
	cr_assert_eq(h->src[s].sent_pkts, 11, "%lu", (unsigned long)h->src[s].sent_pkts);
	/* the 10 left at t0, t0+gap, ... t0+9gap (credit is not banked while idle) */
	cr_assert(h->src[s].last_ns >= t0 + 9 * gap - 10 && h->src[s].last_ns <= t0 + 9 * gap + 10,
		  "%lu", (unsigned long)(h->src[s].last_ns - t0));
	h_free_all(h);
}

/* The carried fraction keeps a long run exact where per-packet truncation drifts. */
Test(shaper, advance_carries_the_fraction)
{
	static const uint64_t rates[] = { 1250000000, 1250000000 / 3, 12500000000ull, 999999937 };
	size_t i;

	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		struct cake_rate r;
		uint64_t frac = 0, total = 0;
		double want = 0;
		int n;

		cake_rate_set(&r, rates[i]);
		for (n = 0; n < 1000000; n++) {
			uint32_t len = 60 + (uint32_t)(n % 1441);

			total += cake_rate_advance_ns(&r, &frac, len);
			want += len * 1e9 / (double)rates[i];
		}
		cr_assert(fabs((double)total - want) < 2 + want * 1e-9, "rate %lu: %lu vs %f",
			  (unsigned long)rates[i], (unsigned long)total, want);
	}
}

/*
 * A queue of 1 ms packets (10 Mbit/s) whose dequeuer sends one and then comes back
 * stall_ns later, as a process that was off its CPU: how many packets it releases at
 * once on its return.
 */
static unsigned int burst_after_stall(bool ingress, uint64_t stall_ns, struct cake_stats *st)
{
	struct cake_options o = h_opts_rate(H_MBIT(10));
	struct cake_pkt *p;
	struct harness *h;
	unsigned int n = 0;
	uint64_t next;
	int s, i;

	o.present |= CAKE_OPT_INGRESS;
	o.ingress = ingress;
	h_opts_quiet_aqm(&o);
	h = h_new(&o, 256, 9);
	cr_assert_not_null(h);
	s = h_add(h, H_GREEDY, 1250);
	h->src[s].depth = 0;
	for (i = 0; i < 100; i++)
		cr_assert(h_send(h, s));
	p = cake_dequeue(h->q, h->now, &next);
	cr_assert_not_null(p);
	h_deliver(h, p);
	cr_assert_eq(next, h->now + 1000000, "the next is due 1 ms later");
	h->now += stall_ns;
	while ((p = cake_dequeue(h->q, h->now, &next))) {
		h_deliver(h, p);
		n++;
	}
	cake_get_stats(h->q, st);
	h_free_all(h);
	return n;
}

/*
 * After a 30 ms stall the egress shaper sends back to back only the last
 * CAKE_SHAPER_MAX_LAG_NS (2 ms) of the missed time and what is due now: the packets
 * scheduled at 28, 29 and 30 ms. The 27 ms before are forgiven and counted. A stall
 * within the bound is repaid in full, and an ingress-mode instance repays all of it.
 */
Test(shaper, late_dequeue_repays_at_most_the_lag_bound)
{
	struct cake_stats st;

	cr_assert_eq(CAKE_SHAPER_MAX_LAG_NS, 2000000, "the numbers below assume 2 ms");
	cr_assert_eq(burst_after_stall(false, 30000000, &st), 3);
	cr_assert_eq(st.shaper_late, 1);
	cr_assert_eq(st.shaper_late_ns, 27000000);

	cr_assert_eq(burst_after_stall(false, 2500000, &st), 2, "1.5 ms late: due at 1 and 2");
	cr_assert_eq(st.shaper_late, 0);
	cr_assert_eq(st.shaper_late_ns, 0);

	cr_assert_eq(burst_after_stall(true, 30000000, &st), 30, "ingress: due at 1 .. 30 ms");
	cr_assert_eq(st.shaper_late, 0);
}
