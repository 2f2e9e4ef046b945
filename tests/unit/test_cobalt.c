/* SPDX-License-Identifier: GPL-2.0-only */
/* COBALT (CoDel + BLUE) as pure functions over (vars, params, now, sojourn). */
#include <criterion/criterion.h>
#include <math.h>

#include "qdisc/cobalt.h"

#define MS(x) ((uint64_t)(x) * 1000000)
#define US(x) ((uint64_t)(x) * 1000)

static struct cobalt_params params(void)
{
	struct cobalt_params p = {
		.interval_ns = MS(100),
		.target_ns = MS(5),
		.mtu_time_ns = US(120), /* 1500 bytes at 100 Mbit/s */
	};

	cobalt_params_blue_defaults(&p);
	return p;
}

Test(cobalt, cache_is_the_kernel_procedure)
{
	struct cobalt_vars v = { .rec_inv_sqrt = UINT32_MAX };
	uint32_t count;

	cr_assert_eq(cobalt_rec_inv_sqrt_cached(0), UINT32_MAX);
	for (count = 1; count < COBALT_REC_INV_SQRT_CACHE; count++) {
		int i;

		v.count = count;
		for (i = 0; i < 4; i++)
			cobalt_newton_step(&v);
		cr_assert_eq(cobalt_rec_inv_sqrt_cached(count), v.rec_inv_sqrt, "count %u", count);
	}
}

Test(cobalt, cache_approximates_inverse_sqrt)
{
	uint32_t count;

	for (count = 1; count < COBALT_REC_INV_SQRT_CACHE; count++) {
		double got = cobalt_rec_inv_sqrt_cached(count) / 4294967296.0;
		double want = 1.0 / sqrt((double)count);

		cr_assert(fabs(got - want) < 1e-3, "count %u: %f vs %f", count, got, want);
	}
}

Test(cobalt, newton_step_converges_for_large_counts)
{
	static const uint32_t counts[] = { 16, 17, 100, 1000, 65536, 1000000 };
	size_t i;

	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		struct cobalt_vars v = { .count = counts[i] };
		double want = 1.0 / sqrt((double)counts[i]);
		int k;

		/* start from the neighbour's exact value, as COBALT steps count by one */
		v.rec_inv_sqrt = (uint32_t)(4294967296.0 / sqrt((double)counts[i] - 1));
		cobalt_newton_step(&v);
		/* one step leaves about 1.5 * e0^2, e0 = sqrt(n / (n - 1)) - 1: 0.16% at 16 */
		cr_assert(fabs(v.rec_inv_sqrt / 4294967296.0 - want) < want * 2e-3, "count %u",
			  counts[i]);
		/* the fixed point it settles on carries the truncation of inv^2: within 1e-4 */
		for (k = 0; k < 20; k++)
			cobalt_newton_step(&v);
		cr_assert(fabs(v.rec_inv_sqrt / 4294967296.0 - want) < want * 1e-4);
	}
}

Test(cobalt, control_law_scales_interval)
{
	static const struct {
		uint64_t interval;
		uint32_t inv;
		uint64_t want;
	} cases[] = {
		{ MS(100), UINT32_MAX, MS(100) - 1 },
		{ MS(100), 0x80000000u, MS(50) },
		{ MS(100), 0, 0 },
		/* an hour-long interval must not wrap at 2^32 ns */
		{ 3600ull * 1000000000ull, 0x80000000u, 1800ull * 1000000000ull },
		{ 3600ull * 1000000000ull, UINT32_MAX, 3600ull * 1000000000ull - 839 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t got = cobalt_control(MS(7), cases[i].interval, cases[i].inv) - MS(7);

		/* truncation leaves at most one interval * 2^-32 */
		cr_assert(got <= cases[i].want + 1 && got + 1 + cases[i].interval / 4294967296ull >=
							      cases[i].want,
			  "case %zu: %lu vs %lu", i, (unsigned long)got,
			  (unsigned long)cases[i].want);
	}
}

Test(cobalt, below_target_passes_and_stays_idle)
{
	struct cobalt_params p = params();
	struct cobalt_vars v;
	uint64_t now = MS(1000);
	int i;

	cobalt_vars_init(&v);
	for (i = 0; i < 1000; i++, now += US(100)) {
		cr_assert_eq(cobalt_should_drop(&v, &p, now, MS(4), 0, false, 0), COBALT_PASS);
		cr_assert_eq(v.count, 0);
		cr_assert_not(v.dropping);
		/* activity timeout: one interval after the last packet */
		cr_assert_eq(v.drop_next_ns, now + p.interval_ns);
	}
}

/* An active flow whose count has rested once (rec_inv_sqrt = 1.0) signals one interval
 * after it first goes over target, then at interval / sqrt(count). */
Test(cobalt, signals_follow_the_control_law)
{
	struct cobalt_params p = params();
	struct cobalt_vars v;
	uint64_t now = MS(1000), first_over, signals[4];
	int n = 0, i;

	cobalt_vars_init(&v);
	v.rec_inv_sqrt = cobalt_rec_inv_sqrt_cached(0);
	for (i = 0; i < 10; i++, now += US(50))
		cr_assert_eq(cobalt_should_drop(&v, &p, now, MS(1), 0, false, 0), COBALT_PASS);
	first_over = now;
	while (n < 4 && now < first_over + MS(400)) {
		enum cobalt_verdict r = cobalt_should_drop(&v, &p, now, MS(20), 0, false, 0);

		if (r == COBALT_DROP)
			signals[n++] = now;
		else
			cr_assert_eq(r, COBALT_PASS);
		now += US(50);
	}
	cr_assert_eq(n, 4);
	/* first signal one interval after entering the dropping state */
	cr_assert(signals[0] >= first_over + p.interval_ns - US(50) &&
		  signals[0] <= first_over + p.interval_ns + US(50));
	/* then interval/sqrt(2), interval/sqrt(3), interval/sqrt(4) apart */
	cr_assert(llabs((long long)(signals[1] - signals[0]) - 70711000) < 60000);
	cr_assert(llabs((long long)(signals[2] - signals[1]) - 57735000) < 60000);
	cr_assert(llabs((long long)(signals[3] - signals[2]) - 50000000) < 60000);
}

/* A fresh flow (drop_next long past, rec_inv_sqrt zero, as the kernel leaves it) is
 * signalled on its second over-target packet, not an interval later. */
Test(cobalt, fresh_flow_signals_on_second_packet)
{
	struct cobalt_params p = params();
	struct cobalt_vars v;

	cobalt_vars_init(&v);
	cr_assert_eq(cobalt_should_drop(&v, &p, MS(1000), MS(20), 0, false, 0), COBALT_PASS);
	cr_assert(v.dropping);
	cr_assert_eq(v.count, 1);
	cr_assert_eq(cobalt_should_drop(&v, &p, MS(1000) + 1, MS(20), 0, false, 0), COBALT_DROP);
	cr_assert_eq(v.count, 2);
}

Test(cobalt, ect_is_marked_not_dropped)
{
	struct cobalt_params p = params();
	struct cobalt_vars v;
	int marks = 0, i;
	uint64_t now = MS(1000);

	cobalt_vars_init(&v);
	for (i = 0; i < 10000; i++, now += US(100)) {
		enum cobalt_verdict r = cobalt_should_drop(&v, &p, now, MS(30), 0, true, 0);

		cr_assert_neq(r, COBALT_DROP);
		if (r == COBALT_MARK) {
			cr_assert(v.ecn_marked);
			marks++;
		} else {
			cr_assert_not(v.ecn_marked);
		}
	}
	cr_assert_gt(marks, 10);
}

Test(cobalt, leaving_target_stops_signalling_and_count_decays)
{
	struct cobalt_params p = params();
	struct cobalt_vars v;
	uint64_t now = MS(1000);
	int i;

	cobalt_vars_init(&v);
	for (i = 0; i < 5000; i++, now += US(100))
		(void)cobalt_should_drop(&v, &p, now, MS(30), 0, false, 0);
	cr_assert_gt(v.count, 3);
	cr_assert(v.dropping);
	cr_assert_eq(cobalt_should_drop(&v, &p, now, MS(1), 0, false, 0), COBALT_PASS);
	cr_assert_not(v.dropping);
	/* under target for long enough, count decays back to zero */
	for (i = 0; i < 100000 && v.count; i++, now += US(100))
		cr_assert_eq(cobalt_should_drop(&v, &p, now, MS(1), 0, false, 0), COBALT_PASS);
	cr_assert_eq(v.count, 0);
}

/* "over target" also needs the sojourn to exceed 4 MTU times, and 2 MTU times per bulk
 * flow when the caller passes the bulk count (ingress mode). */
Test(cobalt, over_target_needs_mtu_times)
{
	static const struct {
		uint64_t target, mtu_time, sojourn;
		uint32_t bulk;
		bool over;
	} cases[] = {
		{ MS(5), US(120), MS(6), 0, true },
		{ MS(5), US(120), MS(5), 0, false },     /* not strictly above target */
		{ MS(5), MS(2), MS(6), 0, false },       /* under 4 MTU times */
		{ MS(5), MS(2), US(8001), 0, true },
		{ MS(5), US(500), MS(7), 8, false },     /* under 2 * 8 MTU times */
		{ MS(5), US(500), US(8001), 8, true },
		{ MS(5), US(500), MS(7), 0, true },      /* egress passes 0 bulk flows */
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cobalt_params p = params();
		struct cobalt_vars v;

		p.target_ns = cases[i].target;
		p.mtu_time_ns = cases[i].mtu_time;
		cobalt_vars_init(&v);
		(void)cobalt_should_drop(&v, &p, MS(1000), cases[i].sojourn, cases[i].bulk, false,
					 0);
		cr_assert_eq(v.dropping, cases[i].over, "case %zu", i);
	}
}

Test(cobalt, blue_rises_on_overflow_at_most_once_per_target)
{
	struct cobalt_params p = params();
	struct cobalt_vars v;
	uint64_t now = MS(1000);

	cobalt_vars_init(&v);
	cr_assert(cobalt_queue_full(&v, &p, now));
	cr_assert_eq(v.p_drop, COBALT_P_INC);
	cr_assert(v.dropping);
	cr_assert_eq(v.count, 1);
	/* within target: no further rise */
	cr_assert_not(cobalt_queue_full(&v, &p, now + p.target_ns));
	cr_assert_eq(v.p_drop, COBALT_P_INC);
	cr_assert_not(cobalt_queue_full(&v, &p, now + p.target_ns + 1));
	cr_assert_eq(v.p_drop, 2 * COBALT_P_INC);
}

Test(cobalt, blue_saturates_instead_of_wrapping)
{
	struct cobalt_params p = params();
	struct cobalt_vars v;

	cobalt_vars_init(&v);
	v.p_drop = UINT32_MAX - COBALT_P_INC / 2;
	v.blue_timer_ns = 0;
	cr_assert_not(cobalt_queue_full(&v, &p, MS(1000))); /* was already active */
	cr_assert_eq(v.p_drop, UINT32_MAX);
}

Test(cobalt, blue_decays_on_empty_queue)
{
	struct cobalt_params p = params();
	struct cobalt_vars v;
	uint64_t now = MS(1000);
	int steps = 0;

	cobalt_vars_init(&v);
	cr_assert(cobalt_queue_full(&v, &p, now));
	/* 1/256 comes down in 1/4096 steps, one per target period: 16 steps */
	while (v.p_drop) {
		bool down;

		now += p.target_ns + 1;
		down = cobalt_queue_empty(&v, &p, now);
		steps++;
		cr_assert_eq(down, v.p_drop == 0);
		cr_assert_not(v.dropping);
	}
	cr_assert_eq(steps, COBALT_P_INC / COBALT_P_DEC);
	cr_assert_not(cobalt_queue_empty(&v, &p, now + MS(100)));
}

Test(cobalt, blue_drops_regardless_of_ecn)
{
	struct cobalt_params p = params();
	struct cobalt_vars v;

	cobalt_vars_init(&v);
	v.p_drop = 1u << 31;
	/* under target, ECT: only BLUE can drop, decided by the draw */
	cr_assert_eq(cobalt_should_drop(&v, &p, MS(1000), MS(1), 0, true, (1u << 31) - 1),
		     COBALT_DROP);
	cr_assert_eq(cobalt_should_drop(&v, &p, MS(1001), MS(1), 0, true, 1u << 31), COBALT_PASS);
	cr_assert_eq(cobalt_should_drop(&v, &p, MS(1002), MS(1), 0, false, 0), COBALT_DROP);
}

/* An ECT packet CoDel wants to mark can still be dropped by BLUE: ecn_marked stays set so
 * a caller delivering the last packet of a queue still marks it. */
Test(cobalt, blue_drop_of_a_marked_packet_keeps_the_mark)
{
	struct cobalt_params p = params();
	struct cobalt_vars v;
	uint64_t now = MS(1000);
	int i, both = 0;

	cobalt_vars_init(&v);
	v.p_drop = UINT32_MAX;
	for (i = 0; i < 2000; i++, now += US(100)) {
		enum cobalt_verdict r = cobalt_should_drop(&v, &p, now, MS(30), 0, true, 5);

		cr_assert_eq(r, COBALT_DROP);
		both += v.ecn_marked;
	}
	cr_assert_gt(both, 0);
}
