// SPDX-License-Identifier: GPL-2.0-only
/* One rate shared by N CAKE instances (qdisc/cake_mq.h), and its accuracy in mq_sim. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "tools/sim/mq_sim.h"

enum { MS = 1000000, SEC = 1000000000 };

Test(cake_mq, counts_backlogged_and_recently_active)
{
	struct cake_mq_member m[4] = {0};

	cr_assert_eq(cake_mq_count_active(m, 4, 0, 100), 1, "nobody active: at least 1");
	cake_mq_touch(&m[1], true, 150);
	cake_mq_touch(&m[2], false, 180); /* sent its last packet after 0's count */
	cr_assert_eq(cake_mq_count_active(m, 4, 0, 200), 2);
	cr_assert_eq(m[0].last_check_ns, 200);
	cr_assert_eq(cake_mq_count_active(m, 4, 0, 400), 1, "2 went idle before 0's last count");
	cake_mq_touch(&m[0], true, 500);
	cr_assert_eq(cake_mq_count_active(m, 4, 3, 600), 3, "3's first count sees 0, 1 and 2");
	cr_assert_eq(cake_mq_share(900, 3), 300);
	cr_assert_eq(cake_mq_share(900, 1), 900);
	cr_assert_eq(cake_mq_share(0, 3), 0, "unlimited stays unlimited");
}

static struct cake_mq_sim_result run(uint32_t n, uint64_t rate, uint64_t on, uint64_t off,
				     uint64_t seed)
{
	struct cake_mq_sim_config c = {.instances = n, .rate_bytes_per_sec = rate,
				       .pkt_bytes = 1500, .on_ns = on, .off_ns = off,
				       .duration_ns = 4ULL * SEC, .warmup_ns = 200ULL * MS,
				       .seed = seed};
	struct cake_mq_sim_result r;

	cr_assert_eq(cake_mq_sim_run(&c, &r), 0);
	return r;
}

/* cake_mq's measured error is below 0.25 % of the set rate (REFERENCE §6.2). */
Test(mq_sim, saturated_instances_share_the_rate_exactly)
{
	static const uint32_t ns[] = {1, 2, 4, 8, 16};
	static const uint64_t rates[] = {12500000, 125000000, 1250000000}; /* 100M/1G/10G bit */

	for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++)
		for (size_t b = 0; b < sizeof(rates) / sizeof(rates[0]); b++) {
			struct cake_mq_sim_result r = run(ns[a], rates[b], 0, 0, 1);
			double mean = (double)r.sent_bytes / ns[a];

			printf("mq_sim: %2u instances, %5.0f Mbit/s: error %+.4f %%, worst 10 ms %+.4f %%\n",
			       ns[a], rates[b] * 8 / 1e6, 100 * r.error, 100 * r.worst_window_error);
			cr_expect_lt(fabs(r.error), 0.0025, "%u at %lu: %f", ns[a],
				     (unsigned long)rates[b], r.error);
			for (uint32_t i = 0; i < ns[a]; i++)
				cr_expect_lt(fabs((double)r.per_instance_bytes[i] / mean - 1), 0.01,
					     "instance %u of %u", i, ns[a]);
		}
}

/*
 * Sources that come and go: each on/off transition leaves the others on a stale share
 * until they recount, at most two recount periods (the leaver still counts as active
 * until a sibling's count after its last packet), so each transition costs at most
 * 2 x sync of the whole rate, and there are about N / period of them per second:
 * |error| <= 2 N sync / period. And a slower recount costs more.
 */
Test(mq_sim, coming_and_going_stays_within_the_recount_bound)
{
	static const uint32_t ns[] = {2, 4, 8};
	static const uint64_t periods[] = {5 * MS, 20 * MS, 100 * MS};

	for (size_t a = 0; a < 3; a++)
		for (size_t b = 0; b < 3; b++) {
			struct cake_mq_sim_result r = run(ns[a], 125000000, periods[b], periods[b], 1);
			double bound = 2.0 * ns[a] * CAKE_MQ_SYNC_NS / (double)periods[b];

			printf("mq_sim: %u instances on/off %3lu ms: error %+.3f %% (bound %.1f %%)\n",
			       ns[a], (unsigned long)(periods[b] / MS), 100 * r.error, 100 * bound);
			cr_expect_leq(fabs(r.error), bound, "%u instances, %lu ms", ns[a],
				      (unsigned long)(periods[b] / MS));
			cr_expect_gt(r.rate_changes, 0);
		}
}

Test(mq_sim, a_slower_recount_costs_more_and_runs_repeat)
{
	struct cake_mq_sim_config c = {.instances = 8, .rate_bytes_per_sec = 125000000,
				       .pkt_bytes = 1500, .on_ns = 20 * MS, .off_ns = 20 * MS,
				       .duration_ns = 2ULL * SEC, .warmup_ns = 200ULL * MS,
				       .seed = 3};
	struct cake_mq_sim_result fast, again, slow;

	cr_assert_eq(cake_mq_sim_run(&c, &fast), 0);
	cr_assert_eq(cake_mq_sim_run(&c, &again), 0);
	cr_expect_eq(fast.sent_bytes, again.sent_bytes, "the same seed, the same run");
	cr_expect_eq(fast.rate_changes, again.rate_changes);
	c.sync_ns = 5 * CAKE_MQ_SYNC_NS;
	cr_assert_eq(cake_mq_sim_run(&c, &slow), 0);
	cr_expect_gt(fabs(slow.error), 2 * fabs(fast.error), "200 us %f, 1 ms %f", fast.error,
		     slow.error);
}

Test(mq_sim, refuses_what_cannot_run)
{
	struct cake_mq_sim_config ok = {.instances = 2, .rate_bytes_per_sec = 1000000,
					.pkt_bytes = 1500, .duration_ns = SEC};
	struct cake_mq_sim_config c;
	struct cake_mq_sim_result r;

	c = ok, c.instances = 0;
	cr_expect_eq(cake_mq_sim_run(&c, &r), -EINVAL);
	c = ok, c.instances = CAKE_MQ_MAX_MEMBERS + 1;
	cr_expect_eq(cake_mq_sim_run(&c, &r), -EINVAL);
	c = ok, c.rate_bytes_per_sec = 0;
	cr_expect_eq(cake_mq_sim_run(&c, &r), -EINVAL);
	c = ok, c.warmup_ns = SEC;
	cr_expect_eq(cake_mq_sim_run(&c, &r), -EINVAL);
	c = ok, c.off_ns = MS;
	cr_expect_eq(cake_mq_sim_run(&c, &r), -EINVAL, "off without on");
	cr_expect_eq(cake_mq_sim_run(&ok, &r), 0);
}
