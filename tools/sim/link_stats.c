/* SPDX-License-Identifier: GPL-2.0-only */
/* What the trace-driven link's samples say (see link_sim.h): summaries and settling times. */
#include "tools/sim/link_sim.h"

#include <stdlib.h>
#include <string.h>

#define NS_PER_S 1000000000ull

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Cumulative goodput at t: that of the last sample at or before t. */
static uint64_t goodput_at(const struct cake_link_sample *v, size_t n, uint64_t t)
{
	uint64_t g = 0;

	for (size_t i = 0; i < n && v[i].t_ns <= t; i++)
		g = v[i].goodput_bytes;
	return g;
}

static bool in_range(const struct cake_link_sample *x, uint64_t from, uint64_t to)
{
	return x->t_ns > from && x->t_ns <= to;
}

void cake_link_summarise(const struct cake_link *s, enum cake_link_dir d, uint64_t from_ns,
			 uint64_t to_ns, struct cake_link_summary *out)
{
	size_t n, k = 0;
	const struct cake_link_sample *v = cake_link_samples(s, d, &n);
	uint64_t *q = malloc((n + 1) * sizeof(*q)), sum = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		if (!in_range(&v[i], from_ns, to_ns))
			continue;
		if (q)
			q[k++] = v[i].qdelay_ns;
		sum += v[i].qdelay_ns;
		out->capacity_bytes += v[i].capacity * CAKE_LINK_SAMPLE_NS / NS_PER_S;
	}
	out->goodput_bytes = goodput_at(v, n, to_ns) - goodput_at(v, n, from_ns);
	if (out->capacity_bytes)
		out->goodput_share = (double)out->goodput_bytes / (double)out->capacity_bytes;
	if (k) {
		qsort(q, k, sizeof(*q), cmp_u64);
		out->qdelay_mean_ns = sum / k;
		out->qdelay_p50_ns = q[(k - 1) * 50 / 100];
		out->qdelay_p95_ns = q[(k - 1) * 95 / 100];
		out->qdelay_p99_ns = q[(k - 1) * 99 / 100];
		out->qdelay_max_ns = q[k - 1];
	}
	free(q);
}

uint64_t cake_link_rate_settle_ns(const struct cake_link *s, enum cake_link_dir d,
				  uint64_t from_ns, uint64_t to_ns, double lo, double hi)
{
	size_t n;
	const struct cake_link_sample *v = cake_link_samples(s, d, &n);
	uint64_t settled = 0;
	bool last_bad = false;

	for (size_t i = 0; i < n; i++) {
		double cap = (double)v[i].capacity, r = (double)v[i].rate;

		if (!in_range(&v[i], from_ns, to_ns))
			continue;
		last_bad = !v[i].rate || r < lo * cap || r > hi * cap;
		if (last_bad)
			settled = v[i].t_ns - from_ns;
	}
	return last_bad ? UINT64_MAX : settled;
}

uint64_t cake_link_queue_drain_ns(const struct cake_link *s, enum cake_link_dir d,
				  uint64_t from_ns, uint64_t to_ns, uint64_t qdelay_ns)
{
	size_t n;
	const struct cake_link_sample *v = cake_link_samples(s, d, &n);
	bool peaked = false;

	for (size_t i = 0; i < n; i++) {
		if (!in_range(&v[i], from_ns, to_ns))
			continue;
		peaked |= v[i].qdelay_ns > qdelay_ns;
		if (peaked && v[i].qdelay_ns < qdelay_ns)
			return v[i].t_ns - from_ns;
	}
	return peaked ? UINT64_MAX : 0;
}
