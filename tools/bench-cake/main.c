/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench-cake: CPU cost of CAKE per packet, one enqueue plus one dequeue, timed with
 * CLOCK_MONOTONIC on one core.
 *
 *   bench-cake [-n packets] [-s wire bytes]
 *
 * For 1, 64 and 1024 active flows, in three configurations:
 *   unlimited   tc-cake's defaults (diffserv3, triple-isolate, no shaper)
 *   shaped      bandwidth 10Gbit, virtual time advancing with the line, so the
 *               shaper, COBALT and the tin schedules all do their work
 *   besteffort  bandwidth 10Gbit besteffort flows (the lightest shaped setup)
 * Every flow keeps a few packets queued; each packet that leaves (or is dropped) is
 * sent again on the next flow in turn, so the number of active flows stays put.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "qdisc/cake.h"

enum {
	DEPTH = 4, /* packets kept queued per flow */
	MAX_FLOWS = 1024,
	POOL = MAX_FLOWS * DEPTH,
};

struct bench {
	struct cake_pkt pkts[POOL];
	struct cake_pkt *free[POOL];
	unsigned int nfree;
	uint64_t drops;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void on_drop(void *ctx, struct cake_pkt *p, enum cake_drop_reason reason)
{
	struct bench *b = ctx;

	b->free[b->nfree++] = p;
	if (reason != CAKE_DROP_FLUSH) /* cake_free's hand-back is not a drop */
		b->drops++;
}

static uint32_t mix(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x85ebca6bu;
	x ^= x >> 13;
	x *= 0xc2b2ae35u;
	x ^= x >> 16;
	return x;
}

static void fill(struct cake_pkt *p, unsigned int flow, uint32_t wire_len)
{
	memset(p, 0, sizeof(*p));
	p->flow_hash = mix(flow * 2654435761u + 1);
	p->src_hash = mix(flow % 16 + 0x1000); /* 16 senders */
	p->dst_hash = mix(flow + 0x2000);      /* one receiver per flow */
	p->wire_len = wire_len;
	p->len = wire_len - 60;
	p->gso_segs = 1;
}

struct run {
	const char *name;
	uint64_t rate;
	enum cake_diffserv_mode diffserv;
};

/* Returns ns per enqueue+dequeue pair, or a negative value on failure. */
static double run_one(struct bench *b, const struct run *r, unsigned int flows, uint64_t n,
		      uint32_t wire_len)
{
	const struct cake_ops ops = {.drop = on_drop};
	struct cake_params params = {.ops = &ops, .ctx = b, .seed = 1};
	struct cake_options o;
	uint64_t now = 1000000000, i, t0, t1, sent = 0;
	uint64_t step = r->rate ? (uint64_t)wire_len * 1000000000 / r->rate : 0;
	unsigned int next_flow = 0, k;
	struct cake *q;

	memset(&o, 0, sizeof(o));
	o.present = CAKE_OPT_RATE | CAKE_OPT_DIFFSERV;
	o.rate_bytes_per_sec = r->rate;
	o.diffserv = r->diffserv;
	q = cake_new(&params, &o, now);
	if (!q)
		return -1;
	b->nfree = 0;
	b->drops = 0;
	for (k = 0; k < flows * DEPTH; k++) {
		fill(&b->pkts[k], k % flows, wire_len);
		(void)cake_enqueue(q, &b->pkts[k], now);
	}

	t0 = mono_ns();
	for (i = 0; i < n; i++) {
		struct cake_pkt *p;
		uint64_t next;

		now += step;
		p = cake_dequeue(q, now, &next);
		if (p)
			b->free[b->nfree++] = p;
		while (b->nfree) {
			p = b->free[--b->nfree];
			fill(p, next_flow, wire_len);
			next_flow = next_flow + 1 < flows ? next_flow + 1 : 0;
			(void)cake_enqueue(q, p, now);
			sent++;
		}
	}
	t1 = mono_ns();
	cake_free(q);
	return sent ? (double)(t1 - t0) / (double)sent : -1;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno || end == s || *end || !*out)
		return -EINVAL;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct run runs[] = {
		{"unlimited", 0, CAKE_DIFFSERV_DIFFSERV3},
		{"shaped", 10000000000ull / 8, CAKE_DIFFSERV_DIFFSERV3},
		{"besteffort", 10000000000ull / 8, CAKE_DIFFSERV_BESTEFFORT},
	};
	static const unsigned int flow_counts[] = {1, 64, 1024};
	uint64_t n = 2000000, size = 1500;
	struct bench *b;
	size_t i, j;
	int opt;

	while ((opt = getopt(argc, argv, "n:s:")) != -1) {
		if ((opt == 'n' && parse_u64(optarg, &n)) ||
		    (opt == 's' && (parse_u64(optarg, &size) || size < 64 || size > 65535)) ||
		    (opt != 'n' && opt != 's')) {
			fprintf(stderr, "usage: %s [-n packets] [-s wire bytes (64..65535)]\n",
				argv[0]);
			return 1;
		}
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return 1;
	printf("%-11s %6s %12s %10s\n", "config", "flows", "ns/packet", "drops");
	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		for (j = 0; j < sizeof(flow_counts) / sizeof(flow_counts[0]); j++) {
			double ns = run_one(b, &runs[i], flow_counts[j], n, (uint32_t)size);

			if (ns < 0) {
				fprintf(stderr, "bench-cake: %s with %u flows failed\n",
					runs[i].name, flow_counts[j]);
				free(b);
				return 1;
			}
			printf("%-11s %6u %12.1f %10" PRIu64 "\n", runs[i].name, flow_counts[j], ns,
			       b->drops);
		}
	}
	free(b);
	return 0;
}
