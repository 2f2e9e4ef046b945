/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The autorate chain on the simulated link of tools/sim/link_sim.h: inner TCP packets
 * -> the real extractor -> the real controller -> the real CAKE instances, in front of
 * a bottleneck whose capacity follows a trace and whose FIFO holds 250 ms at its peak.
 * Each test prints the numbers its scenario reached.
 */
#include "tools/sim/link_sim.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MBIT(x) ((uint64_t)((x) * 1e6 / 8))
#define S(x) ((uint64_t)((x) * 1e9))
#define MS 1000000ull

enum { MAX_STEPS = 12 };

/*
 * Who sets the rate of the direction under test. DELAYED: the oracle told the capacity
 * and the queue one base RTT late (link_sim.h), what any reactive controller can reach.
 */
enum who { AUTORATE, FIXED, ORACLE, UNLIMITED, DELAYED, WHO_N };

static enum cake_link_policy policy_of(enum who who)
{
	return who == ORACLE ? CAKE_LINK_ORACLE
	       : who == DELAYED ? CAKE_LINK_ORACLE_DELAYED
				: CAKE_LINK_AS_CONFIGURED;
}

struct scenario {
	uint32_t up_flows, down_flows;
	int n[CAKE_LINK_DIRS];
	double secs[CAKE_LINK_DIRS][MAX_STEPS], mbit[CAKE_LINK_DIRS][MAX_STEPS];
	double start[CAKE_LINK_DIRS]; /* Mbit/s: autorate's start, or the fixed rate */
	bool no_ts;
	double late_ms; /* DELAYED's delay; 0: one base RTT */
	double rtt_ms;	/* 0: 40 ms */
	uint64_t seed;	/* 0: 1 */
};

static double mbit(uint64_t bytes_per_s)
{
	return (double)bytes_per_s * 8 / 1e6;
}

static struct cake_link *sim(const struct scenario *sc, enum who who)
{
	struct cake_link_config cfg = { .flows = { sc->up_flows, sc->down_flows },
					.no_ts = sc->no_ts, .seed = sc->seed ? sc->seed : 1,
					.policy = policy_of(who),
					.oracle_delay_ns = (uint64_t)(sc->late_ms * 1e6),
					.rtt_ns = (uint64_t)(sc->rtt_ms * 1e6) };
	struct cake_link *s;
	int err = 0;

	for (int d = 0; d < CAKE_LINK_DIRS; d++) {
		struct cake_options *o = &cfg.cake[d];
		struct cake_link_trace *tr = &cfg.trace[d];

		cake_options_defaults(o);
		o->present = CAKE_OPT_RATE;
		o->rate_bytes_per_sec = who == UNLIMITED ? 0 : MBIT(sc->start[d]);
		o->ingress = d == CAKE_LINK_DOWN;
		o->autorate = who == AUTORATE;
		o->autorate_min = MBIT(1);
		o->autorate_max = MBIT(100);
		tr->n = (uint32_t)sc->n[d];
		for (int i = 0; i < sc->n[d]; i++)
			tr->steps[i] = (struct cake_link_step){ .duration_ns = S(sc->secs[d][i]),
								.rate_bytes_per_sec = MBIT(sc->mbit[d][i]) };
	}
	s = cake_link_new(&cfg, &err);
	cr_assert_not_null(s, "cake_link_new: %d", err);
	return s;
}

static void run(struct cake_link *s, double secs)
{
	cr_assert_eq(cake_link_run_until(s, S(secs)), 0);
}

/*
 * After direction d's capacity changed at t (run to there), over the next span: how long
 * until the rate is within [lo, hi] x the new capacity for good, how long until the
 * queue is back under 15 ms after its peak, and its p95 from 1 s after that on.
 */
struct convergence {
	double rate_s, queue_s, max_queue_ms, p95_after_ms;
};

static double secs_or_span(uint64_t ns, double span)
{
	return ns == UINT64_MAX ? span : (double)ns / 1e9;
}

static struct convergence converge(struct cake_link *s, enum cake_link_dir d, double t,
				   double span, double lo, double hi)
{
	struct cake_link_summary all, after;
	struct convergence c;

	run(s, t + span);
	c.rate_s = secs_or_span(cake_link_rate_settle_ns(s, d, S(t), S(t + span), lo, hi), span);
	c.queue_s = secs_or_span(cake_link_queue_drain_ns(s, d, S(t), S(t + span), 15 * MS), span);
	cake_link_summarise(s, d, S(t), S(t + span), &all);
	cake_link_summarise(s, d, S(t + c.queue_s + 1), S(t + span), &after);
	c.max_queue_ms = (double)all.qdelay_max_ns / 1e6;
	c.p95_after_ms = (double)after.qdelay_p95_ns / 1e6;
	return c;
}

Test(sim_link, drop_40_to_6_converges)
{
	struct scenario sc = { .up_flows = 4, .n = { 2, 1 }, .secs = { { 10, 10 }, { 20 } },
			       .mbit = { { 40, 6 }, { 40 } }, .start = { 20, 40 } };
	struct cake_link *s = sim(&sc, AUTORATE);
	struct convergence c;

	run(s, 10);
	c = converge(s, CAKE_LINK_UP, 10, 8, 0.5, 1.1);
	printf("drop 40->6: rate in [0.5, 1.1] x 6 Mbit/s for good after %.2f s (%.0f RTTs of "
	       "40 ms); queue peak %.0f ms, back under 15 ms after %.2f s, then p95 %.1f ms\n",
	       c.rate_s, c.rate_s / 0.04, c.max_queue_ms, c.queue_s, c.p95_after_ms);
	cr_assert_lt(c.rate_s, 3.0, "within 75 RTTs");
	cr_assert_lt(c.queue_s, 2.0);
	cr_assert_lt(c.p95_after_ms, 15.0);
	cake_link_free(s);
}

/* The time (s) of the first sample in [from, from + 1 s) whose rate is under 0.9 x the rate before. */
static double first_cut(const struct cake_link *s, enum cake_link_dir d, double from)
{
	size_t n;
	const struct cake_link_sample *v = cake_link_samples(s, d, &n);
	uint64_t before = 0;

	for (size_t i = 0; i < n && v[i].t_ns < S(from + 1); i++) {
		if (v[i].t_ns < S(from))
			before = v[i].rate;
		else if (v[i].rate < before * 9 / 10)
			return (double)v[i].t_ns / 1e9;
	}
	return from + 1;
}

/*
 * 4 flows in direction d over n steps (secs, Mbit/s; autorate starts at 20) on a path
 * of rtt_ms; the other direction idle at a steady 40 Mbit/s.
 */
static struct scenario one_way(enum cake_link_dir d, double rtt_ms, int n, const double *secs,
			       const double *rates)
{
	enum cake_link_dir o = d == CAKE_LINK_UP ? CAKE_LINK_DOWN : CAKE_LINK_UP;
	struct scenario sc = { .up_flows = d == CAKE_LINK_UP ? 4 : 0,
			       .down_flows = d == CAKE_LINK_DOWN ? 4 : 0, .rtt_ms = rtt_ms };

	sc.n[d] = n;
	for (int i = 0; i < n; i++) {
		sc.secs[d][i] = secs[i];
		sc.mbit[d][i] = rates[i];
	}
	sc.start[d] = 20;
	sc.n[o] = 1;
	sc.secs[o][0] = 20;
	sc.mbit[o][0] = sc.start[o] = 40;
	return sc;
}

/*
 * The first cut after a drop 30 -> 6 Mbit/s at 3.02 s in direction d (4 flows; the
 * other direction steady at 40), on a 2 ms path (*early) and on a 40 ms one (*late).
 */
static void first_cuts(enum cake_link_dir d, double *early, double *late)
{
	static const double secs[] = { 3.02, 3 }, rates[] = { 30, 6 };
	struct scenario sc = one_way(d, 2, 2, secs, rates);
	struct cake_link *s;

	for (int i = 0; i < 2; i++) {
		s = sim(&sc, AUTORATE);
		run(s, 4);
		*(i ? late : early) = first_cut(s, d, 3.02);
		cake_link_free(s);
		sc.rtt_ms = 40;
	}
	printf("%s drop 30->6 at 3.02 s: first cut at %.3f s on a 2 ms path, %.3f s on a 40 ms "
	       "one\n", d == CAKE_LINK_UP ? "upload" : "download", *early, *late);
}

/*
 * React per sample: on a short path (2 ms) the delay samples that show a drop 30 -> 6
 * bring a tick of their own before the next one is due. The ticks fall at multiples of
 * 50 ms; the drop comes at 3.02 s, the samples that show it after the tick at 3.05 (they
 * ride on ACKs out of the queue), so without an early tick the first cut is at 3.10. On
 * a 40 ms path, where the signal lags the drop by about a tick anyway, there is none.
 */
Test(sim_link, early_tick_on_a_short_path)
{
	double early, late;

	first_cuts(CAKE_LINK_UP, &early, &late);
	cr_assert_lt(early, 3.095, "before the tick at 3.10");
	cr_assert_geq(late, 3.10, "no early tick on a long path");
}

/*
 * The same drop on the downlink: the data's own delay shows it within milliseconds, and
 * from twice the target it brings a tick, so the deep cut comes before the tick at
 * 3.05 s (at 3.04). Without early ticks it came at 3.15: the tick at 3.05 read mostly
 * samples from before the drop, and the one at 3.10, the first to show it, put the deep
 * cut off (x 0.95) as its tick before had shown no queue.
 */
Test(sim_link, early_ingress_tick_on_a_short_path)
{
	double early, late;

	first_cuts(CAKE_LINK_DOWN, &early, &late);
	cr_assert_lt(early, 3.05, "before the tick at 3.05");
	cr_assert_geq(late, 3.10, "no early tick on a long path");
}

/*
 * On a short path the target at low rates is 2 MTU times, not 4 (autorate.c): at a
 * steady 3 Mbit/s (4 ms a packet) behind a 1 ms base RTT the controller keeps the
 * bottleneck's queue under that target (8 ms) on average, where with 4 MTU times
 * (16 ms) it averaged 11 ms; and it stays near the capacity.
 */
Test(sim_link, short_path_low_rate_target)
{
	struct scenario sc = { .up_flows = 4, .n = { 1, 1 }, .secs = { { 21 }, { 21 } },
			       .mbit = { { 3 }, { 40 } }, .start = { 2.9, 40 }, .rtt_ms = 1 };
	struct cake_link *s = sim(&sc, AUTORATE);
	struct cake_link_summary sum;

	run(s, 20);
	cake_link_summarise(s, CAKE_LINK_UP, S(5), S(20), &sum);
	printf("steady 3 Mbit/s, 1 ms path: queue mean %.1f p50 %.1f p99 %.1f ms, goodput %.3f "
	       "of the capacity\n",
	       (double)sum.qdelay_mean_ns / 1e6, (double)sum.qdelay_p50_ns / 1e6,
	       (double)sum.qdelay_p99_ns / 1e6, sum.goodput_share);
	cr_assert_lt(sum.qdelay_mean_ns, 8 * MS, "under 2 MTU times at 3 Mbit/s");
	cr_assert_geq(sum.goodput_share, 0.80);
	cake_link_free(s);
}

/* The time (s) after from until direction d's rate first reaches rate, or span if never. */
static double first_reach(const struct cake_link *s, enum cake_link_dir d, double from,
			  double span, uint64_t rate)
{
	size_t n;
	const struct cake_link_sample *v = cake_link_samples(s, d, &n);

	for (size_t i = 0; i < n && v[i].t_ns < S(from + span); i++)
		if (v[i].t_ns >= S(from) && v[i].rate >= rate)
			return (double)v[i].t_ns / 1e9 - from;
	return span;
}

Test(sim_link, rise_6_to_35_recovers)
{
	struct scenario sc = { .up_flows = 4, .n = { 2, 1 }, .secs = { { 10, 10 }, { 20 } },
			       .mbit = { { 6, 35 }, { 40 } }, .start = { 6, 40 } };
	struct cake_link *s = sim(&sc, AUTORATE);
	double t_found;

	run(s, 20);
	t_found = first_reach(s, CAKE_LINK_UP, 10, 10, MBIT(35) * 85 / 100);
	printf("rise 6->35: rate at 0.85 x 35 Mbit/s after %.2f s\n", t_found);
	cr_assert(t_found >= 0 && t_found < 4.0, "%.2f", t_found);
	cake_link_free(s);
}

/* Goodput of direction d over [from, to]; the simulation is kept in *keep if given. */
static double run_goodput(const struct scenario *sc, enum who who, enum cake_link_dir d,
			  double from, double to, struct cake_link **keep)
{
	struct cake_link *s = sim(sc, who);
	struct cake_link_summary sum;

	run(s, to);
	cake_link_summarise(s, d, S(from), S(to), &sum);
	if (keep)
		*keep = s;
	else
		cake_link_free(s);
	return (double)sum.goodput_bytes;
}

/*
 * One seed of the steady 20 Mbit/s link. The tight bounds hold for every seed: the
 * sawtooth's top may pass the capacity C by no more than would build the tight p99's
 * 10 ms of queue within one detection time (a base RTT and a tick, 90 ms here), C x (1 +
 * 10 / 90); with a single seed a bound on the mean held by luck (seeds 2 and 4 reached
 * 1.14 and 1.12 x the mean while the seed in use gave 1.09).
 */
static double steady_20(bool tight, uint64_t seed)
{
	struct scenario sc = { .up_flows = 4, .n = { 1, 1 }, .secs = { { 31 }, { 31 } },
			       .mbit = { { 20 }, { 40 } }, .start = { 10, 40 }, .seed = seed };
	const double cap = 20, detect_ms = CAKE_LINK_DEFAULT_RTT_NS / 1e6 + CAKE_AUTORATE_TICK_MS;
	const uint64_t packet_ns = 1500 * 8 * 1000ull / 20; /* one packet at 20 Mbit/s */
	struct cake_link *s;
	struct cake_link_summary sum;
	double lo = 1e9, hi = 0, mean = 0, g_auto, g_fixed;
	const struct cake_link_sample *v;
	size_t n, k = 0;

	g_auto = run_goodput(&sc, AUTORATE, CAKE_LINK_UP, 8, 30, &s);
	v = cake_link_samples(s, CAKE_LINK_UP, &n);
	for (size_t i = 0; i < n; i++) {
		double r = mbit(v[i].rate);

		if (v[i].t_ns <= S(8) || v[i].t_ns % CAKE_AUTORATE_TICK_NS)
			continue; /* once per tick */
		lo = r < lo ? r : lo;
		hi = r > hi ? r : hi;
		mean += r;
		k++;
	}
	mean /= (double)k;
	cake_link_summarise(s, CAKE_LINK_UP, S(8), S(30), &sum);
	cake_link_free(s);
	sc.start[CAKE_LINK_UP] = 20 * 0.97; /* the optimum a fixed shaper can take */
	g_fixed = run_goodput(&sc, FIXED, CAKE_LINK_UP, 8, 30, NULL);
	printf("steady 20 Mbit/s, seed %llu: rate %.2f..%.2f (mean %.2f) Mbit/s; queue p50 %.1f "
	       "p99 %.1f ms; goodput %.3f of a fixed shaper at 0.97 x capacity\n",
	       (unsigned long long)seed, lo, hi, mean, (double)sum.qdelay_p50_ns / 1e6,
	       (double)sum.qdelay_p99_ns / 1e6, g_auto / g_fixed);
	cr_assert_gt(lo, 0.85 * mean);
	cr_assert(mean > 0.95 * 20 && mean < 1.05 * 20, "within a few %%: %.2f", mean);
	cr_assert_gt(g_auto / g_fixed, 0.90);
	if (tight) {
		cr_assert_lt(hi, cap * (1 + 10 / detect_ms), "seed %llu", (unsigned long long)seed);
		cr_assert_leq(sum.qdelay_p99_ns, 10 * MS + packet_ns, "seed %llu",
			      (unsigned long long)seed);
	} else {
		cr_assert_lt(hi, 1.15 * mean);
		cr_assert_leq(sum.qdelay_p99_ns, 15 * MS, "the issue's p99 target");
	}
	return (double)sum.qdelay_p99_ns / 1e6;
}

/* Seeds per multi-seed test: CAKE's hashes and the flows' start times vary with each. */
enum { SEEDS = 8 };

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of one value per seed; v is left sorted. */
static double median_of_seeds(double v[static SEEDS])
{
	qsort(v, SEEDS, sizeof(v[0]), cmp_double);
	return (v[SEEDS / 2 - 1] + v[SEEDS / 2]) / 2;
}

Test(sim_link, steady_20_no_oscillation)
{
	(void)steady_20(false, 1);
}

/*
 * The steady-link target: p99 <= idle + 10 ms over the seeds' median, and on
 * every seed within one packet time of it (the p99 moves in packet times, 0.6 ms here,
 * and flips on a seed with any change to the flows' first second: over 32 seeds, the
 * early tick fit put 2 at 10.1 ms, while the code before it broke the lowest rate's
 * bound on seed 12); a sawtooth whose top passes the capacity by no more than builds
 * those 10 ms in one detection time, on every seed (probing slows past the rate that
 * last bloated, and a delay rising fast near the target cuts a tick early).
 */
Test(sim_link, steady_20_tight_bounds)
{
	double p99[SEEDS], med;

	for (uint64_t seed = 1; seed <= SEEDS; seed++)
		p99[seed - 1] = steady_20(true, seed);
	med = median_of_seeds(p99);
	printf("steady 20 Mbit/s: queue p99, median of %d seeds %.1f ms\n", SEEDS, med);
	cr_assert_leq(med, 10.0);
}

/*
 * rrul, the downlink falling 40 -> 6 Mbit/s: on every seed the uplink is not the one cut
 * and the downlink's rate is in range within 3 s. How soon the remote queue (200 to 300
 * ms at its peak) drains depends on when the remote TCP senders meet CAKE's drops. While
 * the queue still grows after a cut, a further cut from the capacity seen, as deep as
 * the larger excess asks, makes them meet drops sooner: 0.54 to 0.65 s over 8 seeds,
 * where with cuts only as D fell below the rate it took 0.8 to 3.6 s (median 2.17).
 */
static double rrul_downlink_drop(uint64_t seed)
{
	struct scenario sc = { .up_flows = 4, .down_flows = 4, .n = { 1, 2 },
			       .secs = { { 20 }, { 10, 10 } }, .mbit = { { 20 }, { 40, 6 } },
			       .start = { 20, 20 }, .seed = seed };
	struct cake_link *s = sim(&sc, AUTORATE);
	double before = 0, lo = 1e9, after = 0;
	const struct cake_link_sample *v;
	struct convergence c;
	size_t n, nb = 0, na = 0;

	run(s, 10);
	c = converge(s, CAKE_LINK_DOWN, 10, 8, 0.5, 1.1);
	v = cake_link_samples(s, CAKE_LINK_UP, &n);
	for (size_t i = 0; i < n; i++) {
		double r = mbit(v[i].rate);

		if (v[i].t_ns > S(6) && v[i].t_ns <= S(10)) {
			before += r;
			nb++;
		} else if (v[i].t_ns > S(10) && v[i].t_ns <= S(14)) {
			after += r;
			lo = r < lo ? r : lo;
			na++;
		}
	}
	before /= (double)nb;
	after /= (double)na;
	printf("rrul, downlink 40->6, seed %llu: uplink rate %.1f Mbit/s before, %.1f after "
	       "(lowest %.1f); downlink rate in range after %.2f s, its queue (peak %.0f ms) "
	       "under 15 ms after %.2f s, then p95 %.1f ms\n",
	       (unsigned long long)seed, before, after, lo, c.rate_s, c.max_queue_ms, c.queue_s,
	       c.p95_after_ms);
	cr_assert_gt(after, 0.8 * before, "the uplink is not the one to cut (seed %llu)",
		     (unsigned long long)seed);
	cr_assert_gt(lo, 0.5 * before);
	cr_assert_lt(c.rate_s, 3.0);
	cake_link_free(s);
	return c.queue_s;
}

Test(sim_link, rrul_downlink_drop_leaves_the_uplink_alone)
{
	double drain[SEEDS], med;

	for (uint64_t seed = 1; seed <= SEEDS; seed++)
		drain[seed - 1] = rrul_downlink_drop(seed);
	med = median_of_seeds(drain);
	printf("rrul, downlink 40->6: the queue's drain, median of %d seeds %.2f s\n", SEEDS, med);
	cr_assert_lt(med, 1.0);
}

/*
 * A drop 30 -> 6 Mbit/s on a 1 ms path, uploads and (separately) downloads: the queue
 * of a 5x drop grows 4 ms per ms until the shaper follows, so what decides how long it
 * stands above 15 ms is how soon the first cut is deep and how fast the cut drains.
 * The median over SEEDS of that time, per direction: downloads 110 ms (135 when the
 * ingress drain took 100 ms on short paths, 220 before ingress had early ticks and a
 * cut that goes on while its queue grows, 720 when that drain took 500 ms), uploads
 * 100 ms (190 when their drain took 200 ms; 175 then with the early tick at 2T, which
 * over the benchmark's traces was worse: autorate.c).
 */
static double short_path_drop(enum cake_link_dir d, uint64_t seed)
{
	struct scenario sc = { .up_flows = d == CAKE_LINK_UP ? 4 : 0,
			       .down_flows = d == CAKE_LINK_DOWN ? 4 : 0, .n = { 2, 2 },
			       .secs = { { 4.02, 4 }, { 4.02, 4 } }, .mbit = { { 30, 6 }, { 30, 6 } },
			       .start = { 20, 20 }, .rtt_ms = 1, .seed = seed };
	struct cake_link *s = sim(&sc, AUTORATE);
	struct convergence c;

	run(s, 4.02);
	c = converge(s, d, 4.02, 3, 0.5, 1.1);
	cake_link_free(s);
	printf("%s drop 30->6, 1 ms path, seed %llu: queue peak %.0f ms, under 15 ms after "
	       "%.0f ms\n",
	       d == CAKE_LINK_UP ? "upload" : "download", (unsigned long long)seed,
	       c.max_queue_ms, c.queue_s * 1e3);
	return c.queue_s;
}

Test(sim_link, short_path_drop_drains_fast)
{
	for (int d = 0; d < CAKE_LINK_DIRS; d++) {
		double t[SEEDS], med;

		for (uint64_t seed = 1; seed <= SEEDS; seed++)
			t[seed - 1] = short_path_drop((enum cake_link_dir)d, seed);
		med = median_of_seeds(t);
		printf("%s: median %.0f ms\n", d == CAKE_LINK_UP ? "upload" : "download", med * 1e3);
		cr_assert_lt(med, d == CAKE_LINK_UP ? 0.30 : 0.125);
	}
}

/*
 * A dip and its return, 30 -> 6 -> 30 Mbit/s (1 s at 6: the rate re-bloats there), in
 * direction d on a path of rtt_ms: how long after the return the rate takes to reach
 * 0.8 x 30, and the bottleneck queue's p99 over the 3 s after it.
 */
static double dip_return(enum cake_link_dir d, double rtt_ms, uint64_t seed, double *p99_ms)
{
	static const double secs[] = { 4, 1, 3 }, rates[] = { 30, 6, 30 };
	struct scenario sc = one_way(d, rtt_ms, 3, secs, rates);
	struct cake_link_summary sum;
	struct cake_link *s;
	double t;

	sc.seed = seed;
	s = sim(&sc, AUTORATE);
	run(s, 8);
	t = first_reach(s, d, 5, 3, MBIT(30) * 8 / 10);
	cake_link_summarise(s, d, S(5), S(8), &sum);
	*p99_ms = (double)sum.qdelay_p99_ns / 1e6;
	cake_link_free(s);
	return t;
}

/*
 * Recall (autorate.c): on a short path the capacity before a dip is remembered, and
 * once the rate passes the dip's level with no queue it climbs back toward it fast.
 * Measured, median over 8 seeds at 1 ms: the uploads at 0.8 x 30 Mbit/s 0.57 s after
 * the return, the downloads 0.62 s; without the recall 1.29 s both. The fast return
 * builds no more queue than the slow one did: the bottleneck's p99 over the 3 s after
 * it 4.7 ms up and 18.7 down, without the recall 5.9 and 19.5 (the downloads' is the
 * ingress sawtooth's at 30 Mbit/s). A 40 ms path takes no recall: 0.85 and 1.85 s, as
 * before.
 */
Test(sim_link, a_dip_is_climbed_back_fast_on_a_short_path)
{
	for (int d = 0; d < CAKE_LINK_DIRS; d++) {
		double t[SEEDS], p99[SEEDS], med, med_p99, far, far_p99;

		for (uint64_t seed = 1; seed <= SEEDS; seed++)
			t[seed - 1] = dip_return((enum cake_link_dir)d, 1, seed, &p99[seed - 1]);
		med = median_of_seeds(t);
		med_p99 = median_of_seeds(p99);
		far = dip_return((enum cake_link_dir)d, 40, 1, &far_p99);
		printf("%s dip 30->6->30: 0.8 x 30 Mbit/s %.2f s after the return (median; p99 "
		       "%.1f ms) on a 1 ms path, %.2f s on a 40 ms one\n",
		       d == CAKE_LINK_UP ? "upload" : "download", med, med_p99, far);
		cr_assert_lt(med, 0.9);
		cr_assert_lt(med_p99, d == CAKE_LINK_UP ? 7.0 : 21.0);
		cr_assert_gt(far, 0.6, "no recall on a long path");
	}
}

static const struct scenario stepped_up = {
	.up_flows = 4, .n = { 6, 1 }, .secs = { { 6, 6, 6, 6, 6, 6 }, { 37 } },
	.mbit = { { 40, 12, 25, 6, 35, 18 }, { 40 } }, .start = { 20, 40 } };

struct stepped_result {
	double share, mean_ms, p99_ms;
};

/* Direction d's trace length (s) and mean capacity (Mbit/s). */
static double trace_secs(const struct scenario *sc, enum cake_link_dir d, double *mean)
{
	double secs = 0, bits = 0;

	for (int i = 0; i < sc->n[d]; i++) {
		secs += sc->secs[d][i];
		bits += sc->secs[d][i] * sc->mbit[d][i];
	}
	*mean = bits / secs;
	return secs;
}

/* Direction d under one policy over one pass of its trace; the fixed rate its mean. */
static struct stepped_result stepped_one(const struct scenario *sc, enum cake_link_dir d,
					 enum who who, double *p50_ms)
{
	double mean, secs = trace_secs(sc, d, &mean);
	struct scenario c = *sc;
	struct cake_link_summary sum;
	struct cake_link *s;

	if (who == FIXED)
		c.start[d] = mean;
	s = sim(&c, who);
	run(s, secs);
	cake_link_summarise(s, d, 0, S(secs) - 1, &sum); /* then the trace repeats */
	cake_link_free(s);
	if (p50_ms)
		*p50_ms = (double)sum.qdelay_p50_ns / 1e6;
	return (struct stepped_result){ .share = sum.goodput_share,
					.mean_ms = (double)sum.qdelay_mean_ns / 1e6,
					.p99_ms = (double)sum.qdelay_p99_ns / 1e6 };
}

/* Direction d under each policy over one pass of its trace. */
static void stepped(const struct scenario *sc, enum cake_link_dir d, const char *what,
		    struct stepped_result out[WHO_N])
{
	static const char *const names[] = { "autorate", "fixed at the mean", "oracle",
					     "unlimited", "oracle 1 RTT late" };

	for (int i = 0; i < WHO_N; i++) {
		double p50;

		out[i] = stepped_one(sc, d, (enum who)i, &p50);
		printf("%s, %-17s: queue mean %6.1f p50 %6.1f p99 %7.1f ms, goodput %.3f "
		       "of the mean capacity\n",
		       what, names[i], out[i].mean_ms, p50, out[i].p99_ms, out[i].share);
	}
}

/* The same trace on the downlink (4 downloads), the uplink steady at 40 Mbit/s. */
static struct scenario downloads(const struct scenario *up)
{
	struct scenario sc = *up;

	sc.up_flows = 0;
	sc.down_flows = 4;
	sc.n[CAKE_LINK_DOWN] = up->n[CAKE_LINK_UP];
	memcpy(sc.secs[CAKE_LINK_DOWN], up->secs[CAKE_LINK_UP], sizeof(sc.secs[0]));
	memcpy(sc.mbit[CAKE_LINK_DOWN], up->mbit[CAKE_LINK_UP], sizeof(sc.mbit[0]));
	sc.n[CAKE_LINK_UP] = 1;
	sc.secs[CAKE_LINK_UP][0] = 1000;
	sc.mbit[CAKE_LINK_UP][0] = 40;
	sc.start[CAKE_LINK_UP] = 40;
	sc.start[CAKE_LINK_DOWN] = up->start[CAKE_LINK_UP];
	return sc;
}

Test(sim_link, stepped_trace_uploads)
{
	struct stepped_result r[WHO_N];

	stepped(&stepped_up, CAKE_LINK_UP, "stepped 4 up  ", r);
	cr_assert_lt(r[AUTORATE].mean_ms, 15.0);
	cr_assert_gt(r[AUTORATE].share, 0.75);
	cr_assert_gt(r[AUTORATE].share, 0.88 * r[ORACLE].share, "near the oracle");
	cr_assert_lt(r[AUTORATE].mean_ms, r[FIXED].mean_ms / 5, "far below a fixed shaper's");
	cr_assert_lt(r[AUTORATE].p99_ms, r[UNLIMITED].p99_ms / 5);
}

Test(sim_link, stepped_trace_downloads)
{
	struct scenario sc = downloads(&stepped_up);
	struct stepped_result r[WHO_N];

	stepped(&sc, CAKE_LINK_DOWN, "stepped 4 down", r);
	cr_assert_lt(r[AUTORATE].mean_ms, 20.0);
	cr_assert_gt(r[AUTORATE].share, 0.75);
	cr_assert_lt(r[AUTORATE].mean_ms, r[FIXED].mean_ms / 3);
}

/* LTE-like: steps of 2 to 4 s between 3 and 15 Mbit/s, frequent rises. */
static const struct scenario lte_up = {
	.up_flows = 4, .n = { 8, 1 }, .secs = { { 3, 2, 4, 3, 2, 3, 4, 3 }, { 1000 } },
	.mbit = { { 15, 3, 12, 3, 15, 5, 12, 3 }, { 40 } }, .start = { 8, 40 } };

/* Wi-Fi-like: 30 Mbit/s with 5 dips of 0.3 to 1.5 s to 5 to 10 Mbit/s. */
static const struct scenario wifi_up = {
	.up_flows = 4, .n = { 11, 1 },
	.secs = { { 4, 0.3, 3, 1.5, 4, 0.8, 3, 1.0, 4, 0.5, 3 }, { 1000 } },
	.mbit = { { 30, 5, 30, 10, 30, 7, 30, 5, 30, 8, 30 }, { 40 } }, .start = { 20, 40 } };

/*
 * The uploads (up), or the same trace as downloads: autorate's goodput share, the median
 * of SEEDS seeds (CAKE's hashes and the flows' start times), over share, and its queue's
 * p99 far below unlimited's on every seed. (One seed's share moves by 0.02-0.04 with any
 * change to a flow's first second: seed 1 of the lte downloads was 0.728, the best of
 * 12 seeds, whose mean was 0.693.)
 */
static void frequent_rises(const struct scenario *up, enum cake_link_dir d, const char *what,
			   double share)
{
	struct scenario sc = d == CAKE_LINK_UP ? *up : downloads(up);
	struct stepped_result r[WHO_N];
	double shares[SEEDS], med;

	stepped(&sc, d, what, r);
	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		struct stepped_result a;

		sc.seed = seed;
		a = seed == 1 ? r[AUTORATE] : stepped_one(&sc, d, AUTORATE, NULL);
		shares[seed - 1] = a.share;
		cr_assert_lt(a.p99_ms, r[UNLIMITED].p99_ms / 4, "seed %llu",
			     (unsigned long long)seed);
	}
	med = median_of_seeds(shares);
	printf("%s, autorate's goodput: median of %d seeds %.3f\n", what, SEEDS, med);
	cr_assert_gt(med, share);
}

/*
 * The feasibility bound (issue #13's p99 <= idle + 15 ms): told the capacity and the
 * queue one base RTT (40 ms) late, even the oracle lets a Wi-Fi-like dip of 30 -> 5
 * Mbit/s build a queue it then must drain: its p99 misses 15 ms, so no controller that
 * learns of a drop from delay or ACKs can meet it at this RTT. Told 5 ms late it meets
 * it, and the news' delay costs the drain little goodput either way.
 */
Test(sim_link, delayed_oracle_is_the_bound)
{
	struct scenario sc = wifi_up;
	struct stepped_result rtt[WHO_N], fast[WHO_N];

	stepped(&sc, CAKE_LINK_UP, "wifi, 40 ms   ", rtt);
	sc.late_ms = 5;
	stepped(&sc, CAKE_LINK_UP, "wifi, late 5ms", fast);
	cr_assert_gt(rtt[DELAYED].p99_ms, 15.0, "infeasible at one 40 ms RTT");
	cr_assert_leq(fast[DELAYED].p99_ms, 15.0, "feasible 5 ms late");
	cr_assert_gt(rtt[DELAYED].share, 0.95 * rtt[ORACLE].share);
	cr_assert_gt(rtt[DELAYED].p99_ms, 4 * rtt[ORACLE].p99_ms);
}

Test(sim_link, lte_trace_uploads)
{
	frequent_rises(&lte_up, CAKE_LINK_UP, "lte 4 up      ", 0.69);
}

/* The downloads' bounds hold the ingress climb's pace (autorate.c, session 17: from a
 * median of 0.707 and 0.705 to 0.738 and 0.723). */
Test(sim_link, lte_trace_downloads)
{
	frequent_rises(&lte_up, CAKE_LINK_DOWN, "lte 4 down    ", 0.72);
}

Test(sim_link, wifi_trace_uploads)
{
	frequent_rises(&wifi_up, CAKE_LINK_UP, "wifi 4 up     ", 0.69);
}

Test(sim_link, wifi_trace_downloads)
{
	frequent_rises(&wifi_up, CAKE_LINK_DOWN, "wifi 4 down   ", 0.71);
}

/*
 * Without timestamps (RTT fallback), only the uplink carrying data: the RTT's bloat is
 * the uplink's, also while its shaper sits far above the link (before the drop probing
 * had taken it to 50.8 Mbit/s over the 40, and after it TCP sends 6 under a 35 shaper).
 */
Test(sim_link, no_timestamps_falls_back_to_rtt)
{
	struct scenario sc = { .up_flows = 4, .n = { 2, 1 }, .secs = { { 10, 10 }, { 20 } },
			       .mbit = { { 40, 6 }, { 40 } }, .start = { 20, 40 }, .no_ts = true };
	struct cake_link *s = sim(&sc, AUTORATE);
	struct cake_autorate_status st;
	struct convergence c;

	run(s, 10);
	cr_assert(cake_link_autorate(s, CAKE_LINK_UP, &st));
	cr_assert(st.delay_from_rtt);
	c = converge(s, CAKE_LINK_UP, 10, 8, 0.4, 1.1);
	printf("no timestamps, drop 40->6: rate in range after %.2f s, queue (peak %.0f ms) "
	       "under 15 ms after %.2f s, then p95 %.1f ms\n",
	       c.rate_s, c.max_queue_ms, c.queue_s, c.p95_after_ms);
	cr_assert_lt(c.rate_s, 2.0);
	cr_assert_lt(c.queue_s, 3.0);
	cake_link_free(s);
}

/*
 * A link whose directions follow up and down (capacity; the base RTT from up), both
 * instances under autorate from 20 Mbit/s, run for secs.
 */
static struct cake_link *rtt_trace(const struct cake_link_trace *up,
				   const struct cake_link_trace *down, uint32_t up_flows,
				   uint32_t down_flows, double secs, enum who who)
{
	struct cake_link_config cfg = { .flows = { up_flows, down_flows }, .seed = 1,
					.trace = { *up, *down },
					.policy = policy_of(who) };
	struct cake_link *s;
	int err = 0;

	for (int d = 0; d < CAKE_LINK_DIRS; d++) {
		cake_options_defaults(&cfg.cake[d]);
		cfg.cake[d].rate_bytes_per_sec = MBIT(20);
		cfg.cake[d].ingress = d == CAKE_LINK_DOWN;
		cfg.cake[d].autorate = true;
		cfg.cake[d].autorate_min = MBIT(1);
		cfg.cake[d].autorate_max = MBIT(100);
	}
	s = cake_link_new(&cfg, &err);
	cr_assert_not_null(s, "%d", err);
	run(s, secs);
	return s;
}

/*
 * Starlink-like: the base RTT steps 30 -> 60 -> 40 ms every 15 s at a constant 20 Mbit/s.
 * What holds: the queue stays short.
 */
static struct cake_link *rtt_steps(void)
{
	static const struct cake_link_trace up = {
		.n = 3,
		.steps = { { S(15), MBIT(20), 30 * MS }, { S(15), MBIT(20), 60 * MS },
			   { S(15), MBIT(20), 40 * MS } } };
	static const struct cake_link_trace down = { .n = 1, .steps = { { S(46), MBIT(40), 0 } } };

	return rtt_trace(&up, &down, 4, 0, 45, AUTORATE);
}

static uint64_t lowest_rate(const struct cake_link *s, enum cake_link_dir d, double from,
			    double to)
{
	size_t n;
	const struct cake_link_sample *v = cake_link_samples(s, d, &n);
	uint64_t lo = UINT64_MAX;

	for (size_t i = 0; i < n; i++)
		if (v[i].t_ns > S(from) && v[i].t_ns <= S(to) && v[i].rate < lo)
			lo = v[i].rate;
	return lo;
}

Test(sim_link, base_rtt_steps_keep_the_queue_short)
{
	struct cake_link *s = rtt_steps();
	struct cake_link_summary sum[3];

	for (int i = 0; i < 3; i++)
		cake_link_summarise(s, CAKE_LINK_UP, S(15 * i + 2), S(15 * i + 15) - 1, &sum[i]);
	printf("base rtt 30/60/40 ms at 20 Mbit/s: queue p99 %.1f/%.1f/%.1f ms, goodput share "
	       "%.3f/%.3f/%.3f, lowest rate %.1f/%.1f/%.1f Mbit/s\n",
	       (double)sum[0].qdelay_p99_ns / 1e6, (double)sum[1].qdelay_p99_ns / 1e6,
	       (double)sum[2].qdelay_p99_ns / 1e6, sum[0].goodput_share, sum[1].goodput_share,
	       sum[2].goodput_share, mbit(lowest_rate(s, CAKE_LINK_UP, 2, 15)),
	       mbit(lowest_rate(s, CAKE_LINK_UP, 15, 30)),
	       mbit(lowest_rate(s, CAKE_LINK_UP, 30, 45)));
	for (int i = 0; i < 3; i++)
		cr_assert_leq(sum[i].qdelay_p99_ns, 15 * MS, "step %d", i);
	cr_assert_gt(sum[0].goodput_share, 0.80);
	cake_link_free(s);
}

/*
 * A rise of the base RTT (30 -> 60 ms) reads as 15 ms of one-way queueing delay until
 * the extractor's per-flow baselines (10 to 20 s windows) move up. It is a step that a
 * cut does not drain, with D near S: the controller takes it as the path's, not a queue.
 */
Test(sim_link, base_rtt_rise_is_not_a_queue)
{
	struct cake_link *s = rtt_steps();

	cr_assert_geq(lowest_rate(s, CAKE_LINK_UP, 17, 30), MBIT(20) / 2);
	cake_link_free(s);
}

/*
 * Starlink-like, both at once: capacity and base RTT change every 15 s (a satellite
 * handover), both directions. Uploads, and downloads in a second run; per step, from
 * 2 s after its change: the queue's p99 within the 15 ms, or within 5 ms of
 * the oracle's (0.97 x the capacity at every change: ingress shaping leaves the remote
 * senders' excess window at the remote link, even then), and the rate never below
 * half the capacity (no longer path read as a queue); over the whole trace, goodput at
 * the 0.80 of the mean capacity.
 */
enum { HANDOVERS = 4, HANDOVER_S = 15, SETTLE_S = 2 };

static void step_p99(const struct cake_link *s, enum cake_link_dir d, uint64_t p99[HANDOVERS])
{
	for (int i = 0; i < HANDOVERS; i++) {
		struct cake_link_summary sum;

		cake_link_summarise(s, d, S(HANDOVER_S * i + SETTLE_S), S(HANDOVER_S * (i + 1)) - 1,
				    &sum);
		p99[i] = sum.qdelay_p99_ns;
	}
}

static void starlink_holds(enum cake_link_dir d, const char *what)
{
	static const struct cake_link_trace tr = {
		.n = HANDOVERS,
		.steps = { { S(15), MBIT(20), 30 * MS }, { S(15), MBIT(12), 60 * MS },
			   { S(15), MBIT(30), 40 * MS }, { S(15), MBIT(8), 55 * MS } } };
	uint32_t up_flows = d == CAKE_LINK_UP ? 4 : 0, down_flows = d == CAKE_LINK_DOWN ? 4 : 0;
	double secs = HANDOVERS * HANDOVER_S;
	struct cake_link *s = rtt_trace(&tr, &tr, up_flows, down_flows, secs, ORACLE);
	struct cake_link_summary all;
	uint64_t lo[HANDOVERS], p99[HANDOVERS], oracle[HANDOVERS];

	step_p99(s, d, oracle);
	cake_link_free(s);
	s = rtt_trace(&tr, &tr, up_flows, down_flows, secs, AUTORATE);
	step_p99(s, d, p99);
	cake_link_summarise(s, d, 0, S(secs) - 1, &all);
	for (int i = 0; i < HANDOVERS; i++)
		lo[i] = lowest_rate(s, d, HANDOVER_S * i + SETTLE_S, HANDOVER_S * (i + 1));
	printf("starlink-like %s: queue p99 %.1f/%.1f/%.1f/%.1f ms per step (oracle "
	       "%.1f/%.1f/%.1f/%.1f), lowest rate %.1f/%.1f/%.1f/%.1f Mbit/s; over all: queue "
	       "mean %.1f p99 %.1f ms, goodput %.3f of the mean capacity\n",
	       what, (double)p99[0] / 1e6, (double)p99[1] / 1e6, (double)p99[2] / 1e6,
	       (double)p99[3] / 1e6, (double)oracle[0] / 1e6, (double)oracle[1] / 1e6,
	       (double)oracle[2] / 1e6, (double)oracle[3] / 1e6, mbit(lo[0]), mbit(lo[1]),
	       mbit(lo[2]), mbit(lo[3]), (double)all.qdelay_mean_ns / 1e6,
	       (double)all.qdelay_p99_ns / 1e6, all.goodput_share);
	for (int i = 0; i < HANDOVERS; i++) {
		uint64_t bound = oracle[i] + 5 * MS > 15 * MS ? oracle[i] + 5 * MS : 15 * MS;

		cr_assert_leq(p99[i], bound, "step %d", i);
		cr_assert_geq(lo[i], tr.steps[i].rate_bytes_per_sec / 2, "step %d", i);
	}
	cr_assert_geq(all.goodput_share, 0.80);
	cake_link_free(s);
}

Test(sim_link, starlink_uploads)
{
	starlink_holds(CAKE_LINK_UP, "4 up  ");
}

Test(sim_link, starlink_downloads)
{
	starlink_holds(CAKE_LINK_DOWN, "4 down");
}

Test(sim_link, trace_formats)
{
	struct cake_link_trace tr;
	struct cake_parse_err err;

	cr_assert_eq(cake_link_trace_parse_text("# LTE-like\n6 40mbit\n\n2.5 12mbit 60ms # dip\n"
						"500ms 1mbit\n",
						&tr, &err),
		     0, "%s", err.msg);
	cr_assert_eq(tr.n, 3);
	cr_assert_eq(tr.steps[0].duration_ns, S(6));
	cr_assert_eq(tr.steps[0].rate_bytes_per_sec, MBIT(40));
	cr_assert_eq(tr.steps[0].rtt_ns, 0);
	cr_assert_eq(tr.steps[1].duration_ns, S(2.5));
	cr_assert_eq(tr.steps[1].rtt_ns, 60 * MS);
	cr_assert_eq(tr.steps[2].duration_ns, 500 * MS);
	cr_assert_eq(cake_link_trace_length_ns(&tr), S(9));
	cr_assert_eq(cake_link_trace_mean(&tr),
		     (MBIT(40) * 6 * 2 + MBIT(12) * 5 + MBIT(1)) / 18);

	cr_assert_eq(cake_link_trace_parse_text("6 40mbit\n6 fast\n", &tr, &err), -EINVAL);
	cr_assert_str_eq(err.msg, "link trace line 2: expected `SECONDS RATE [RTT]', bad: fast");
	cr_assert_eq(cake_link_trace_parse_text("0 40mbit\n", &tr, &err), -EINVAL);
	cr_assert_eq(cake_link_trace_parse_text("6\n", &tr, &err), -EINVAL);
	cr_assert_eq(cake_link_trace_parse_text("6 1mbit 2ms 3\n", &tr, &err), -EINVAL);
	cr_assert_eq(cake_link_trace_parse_text("# nothing\n", &tr, &err), -EINVAL);
	cr_assert_str_eq(err.msg, "link trace: no steps");

	cr_assert_eq(cake_link_trace_parse_list("40mbit:6s,12mbit:6:25ms", &tr, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(tr.n, 2);
	cr_assert_eq(tr.steps[1].duration_ns, S(6));
	cr_assert_eq(tr.steps[1].rate_bytes_per_sec, MBIT(12));
	cr_assert_eq(tr.steps[1].rtt_ns, 25 * MS);
	cr_assert_eq(cake_link_trace_parse_list("40mbit:6s,,", &tr, &err), -EINVAL);
	cr_assert_str_eq(err.msg, "link steps: expected RATE:TIME[:RTT], bad:  (empty)");
	cr_assert_eq(cake_link_trace_parse_list("40mbit", &tr, &err), -EINVAL);
}

Test(sim_link, bad_configurations_are_refused)
{
	struct cake_link_config cfg = { .flows = { 1, 0 } };
	int err = 0;

	for (int d = 0; d < CAKE_LINK_DIRS; d++)
		cake_options_defaults(&cfg.cake[d]);
	cfg.cake[0].autorate = true;
	cfg.cake[0].autorate_min = MBIT(10);
	cfg.cake[0].autorate_max = MBIT(5);
	cr_assert_null(cake_link_new(&cfg, &err));
	cr_assert_eq(err, -EINVAL, "min above max");
	cfg.cake[0].autorate = false;
	cfg.trace[0] = (struct cake_link_trace){ .n = 1, .steps = { { 0, MBIT(1), 0 } } };
	cr_assert_null(cake_link_new(&cfg, &err));
	cr_assert_eq(err, -EINVAL, "a zero-length step");
	cfg.trace[0].n = 0;
	cfg.flows[1] = CAKE_LINK_MAX_FLOWS + 1;
	cr_assert_null(cake_link_new(&cfg, &err));
	cr_assert_eq(err, -EINVAL, "too many flows");
}
