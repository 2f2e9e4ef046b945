/* SPDX-License-Identifier: GPL-2.0-only */
#include "tools/sim/mq_sim.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc/cake.h"

enum {
	/* A greedy source keeps this many packets queued: enough that the shaper never waits
	 * for one, few enough that COBALT has nothing to drop at any rate. */
	GREEDY_DEPTH = 4,
	WINDOW_NS = 10000000,
	NS_PER_SEC = 1000000000,
};

struct mq_pkt {
	struct cake_pkt cp; /* first: CAKE's pointer is ours */
	struct mq_pkt *free_next;
};

struct instance {
	struct cake *q;
	uint64_t rate;	   /* the share it shapes at now */
	uint64_t next_tx;  /* when CAKE may send again; CAKE_TIME_NONE when empty */
	uint64_t next_sync;
	uint64_t next_toggle;
	bool on;
	uint32_t flow;
};

struct mq_sim {
	const struct cake_mq_sim_config *cfg;
	struct cake_mq_sim_result *res;
	struct cake_mq_member members[CAKE_MQ_MAX_MEMBERS];
	struct instance inst[CAKE_MQ_MAX_MEMBERS];
	struct mq_pkt *pool, *free_list;
	struct cake_ops ops;
	uint64_t rng;
	uint64_t win_start, win_sent, win_busy;
};

static uint64_t next_rand(struct mq_sim *s)
{
	/* xorshift64*: deterministic, and enough for drawing periods */
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return s->rng * 0x2545F4914F6CDD1DULL;
}

/* An exponentially distributed period of the given mean, at least 1 ns. */
static uint64_t period(struct mq_sim *s, uint64_t mean)
{
	double u = ((double)(next_rand(s) >> 11) + 0.5) / (double)(1ULL << 53);
	double d = -log(u) * (double)mean;

	return d < 1 ? 1 : (uint64_t)d;
}

static void op_drop(void *ctx, struct cake_pkt *cp, enum cake_drop_reason reason)
{
	struct mq_sim *s = ctx;
	struct mq_pkt *p = (struct mq_pkt *)cp;

	(void)reason;
	p->free_next = s->free_list;
	s->free_list = p;
}

/* Tops the instance's queue up while its source is on; the number of packets added. */
static uint32_t refill(struct mq_sim *s, uint32_t i, uint64_t now)
{
	struct instance *in = &s->inst[i];
	uint32_t added = 0;

	while (in->on && s->free_list && cake_backlog_packets(in->q) < GREEDY_DEPTH) {
		struct mq_pkt *p = s->free_list;

		s->free_list = p->free_next;
		memset(&p->cp, 0, sizeof(p->cp));
		p->cp.wire_len = s->cfg->pkt_bytes;
		p->cp.len = s->cfg->pkt_bytes;
		p->cp.flow_hash = (uint32_t)(i * 2654435761u + (in->flow++ & 7));
		p->cp.src_hash = i + 1;
		p->cp.dst_hash = 1;
		p->cp.gso_segs = 1;
		cake_enqueue(in->q, &p->cp, now);
		added++;
	}
	return added;
}

static void set_rate(struct mq_sim *s, uint32_t i, uint64_t rate, uint64_t now)
{
	struct cake_options o = {.present = CAKE_OPT_RATE, .rate_bytes_per_sec = rate};

	if (rate == s->inst[i].rate || cake_configure(s->inst[i].q, &o, now))
		return;
	s->inst[i].rate = rate;
	s->res->rate_changes++;
	if (s->inst[i].next_tx != CAKE_TIME_NONE)
		s->inst[i].next_tx = now; /* a new rate moves the shaper's next slot */
}

static void account_window(struct mq_sim *s, uint64_t now)
{
	while (now >= s->win_start + WINDOW_NS) {
		if (s->win_busy == WINDOW_NS) {
			double want = (double)s->cfg->rate_bytes_per_sec * WINDOW_NS / NS_PER_SEC;
			double err = (double)s->win_sent / want - 1;

			if (fabs(err) > fabs(s->res->worst_window_error))
				s->res->worst_window_error = err;
		}
		s->win_start += WINDOW_NS;
		s->win_sent = 0;
		s->win_busy = 0;
	}
}

static bool any_backlogged(const struct mq_sim *s)
{
	for (uint32_t i = 0; i < s->cfg->instances; i++)
		if (s->inst[i].on || cake_backlog_packets(s->inst[i].q))
			return true;
	return false;
}

/* Sends what instance i's shaper lets go at now, topping the queue up after each packet.
 * True when it sent anything. */
static bool send(struct mq_sim *s, uint32_t i, uint64_t now)
{
	struct instance *in = &s->inst[i];
	bool sent = false;

	while (in->next_tx != CAKE_TIME_NONE && now >= in->next_tx) {
		uint64_t next = CAKE_TIME_NONE;
		struct cake_pkt *p = cake_dequeue(in->q, now, &next);

		in->next_tx = next;
		if (!p)
			break;
		sent = true;
		if (now >= s->cfg->warmup_ns) {
			s->res->sent_bytes += p->wire_len;
			s->res->per_instance_bytes[i] += p->wire_len;
			s->win_sent += p->wire_len;
		}
		op_drop(s, p, CAKE_DROP_FLUSH);
		if (refill(s, i, now) && (next == CAKE_TIME_NONE || next < now))
			in->next_tx = now; /* CAKE was empty: ask again */
	}
	return sent;
}

static void step(struct mq_sim *s, uint64_t now)
{
	const struct cake_mq_sim_config *c = s->cfg;
	uint32_t n = c->instances;

	for (uint32_t i = 0; i < n; i++) {
		struct instance *in = &s->inst[i];
		bool active = false;

		if (now >= in->next_toggle) {
			in->on = !in->on;
			in->next_toggle = !c->off_ns ? UINT64_MAX
						     : now + period(s, in->on ? c->on_ns : c->off_ns);
			if (refill(s, i, now)) {
				in->next_tx = now;
				active = true;
			}
		}
		if (now >= in->next_sync) {
			uint32_t count = cake_mq_count_active(s->members, n, i, now);

			set_rate(s, i, cake_mq_share(c->rate_bytes_per_sec, count), now);
			in->next_sync += c->sync_ns;
		}
		active |= send(s, i, now);
		if (active)
			cake_mq_touch(&s->members[i], cake_backlog_packets(in->q) > 0, now);
		else
			s->members[i].backlogged = cake_backlog_packets(in->q) > 0;
	}
}

static uint64_t next_event(const struct mq_sim *s)
{
	uint64_t t = UINT64_MAX;

	for (uint32_t i = 0; i < s->cfg->instances; i++) {
		const struct instance *in = &s->inst[i];

		if (in->next_toggle < t)
			t = in->next_toggle;
		if (in->next_sync < t)
			t = in->next_sync;
		if (in->next_tx != CAKE_TIME_NONE && in->next_tx < t)
			t = in->next_tx;
	}
	return t;
}

static int setup(struct mq_sim *s)
{
	const struct cake_mq_sim_config *c = s->cfg;
	uint32_t npkts = c->instances * (GREEDY_DEPTH + 1);
	struct cake_params params = {.ops = &s->ops, .ctx = s, .mtu_bytes = c->pkt_bytes};

	s->ops.drop = op_drop;
	s->pool = calloc(npkts, sizeof(*s->pool));
	if (!s->pool)
		return -ENOMEM;
	for (uint32_t k = 0; k < npkts; k++)
		op_drop(s, &s->pool[k].cp, CAKE_DROP_FLUSH);
	for (uint32_t i = 0; i < c->instances; i++) {
		struct cake_options o = {.present = CAKE_OPT_RATE,
					 .rate_bytes_per_sec = c->rate_bytes_per_sec};
		struct instance *in = &s->inst[i];

		params.seed = c->seed + i;
		in->q = cake_new(&params, &o, 0);
		if (!in->q)
			return -ENOMEM;
		in->rate = c->rate_bytes_per_sec;
		in->next_tx = CAKE_TIME_NONE;
		in->next_sync = c->sync_ns * i / c->instances; /* staggered phases */
		in->on = false;
		/* Each source starts off: always-on ones turn on at once, others after an off
		 * period. */
		in->next_toggle = c->off_ns ? period(s, c->off_ns) : 0;
	}
	return 0;
}

int cake_mq_sim_run(const struct cake_mq_sim_config *cfg, struct cake_mq_sim_result *res)
{
	struct cake_mq_sim_config c = *cfg;
	struct mq_sim s = {0};
	uint64_t now = 0, prev = 0;
	int ret;

	if (!c.sync_ns)
		c.sync_ns = CAKE_MQ_SYNC_NS;
	if (!c.instances || c.instances > CAKE_MQ_MAX_MEMBERS || !c.rate_bytes_per_sec ||
	    c.pkt_bytes < 64 || c.pkt_bytes > 65535 || !c.duration_ns ||
	    c.warmup_ns >= c.duration_ns || (c.off_ns && !c.on_ns))
		return -EINVAL;
	memset(res, 0, sizeof(*res));
	s.cfg = &c;
	s.res = res;
	s.rng = c.seed * 0x9E3779B97F4A7C15ULL + 1;
	s.win_start = c.warmup_ns;
	ret = setup(&s);
	if (!ret) {
		while (now < c.duration_ns) {
			if (now > c.warmup_ns)
				account_window(&s, now);
			step(&s, now);
			prev = now;
			now = next_event(&s);
			if (now > c.duration_ns)
				now = c.duration_ns;
			if (now > c.warmup_ns && any_backlogged(&s)) {
				uint64_t from = prev > c.warmup_ns ? prev : c.warmup_ns;

				account_window(&s, from);
				res->busy_ns += now - from;
				/* split the busy interval at window edges */
				while (from < now) {
					uint64_t edge = s.win_start + WINDOW_NS;
					uint64_t to = now < edge ? now : edge;

					s.win_busy += to - from;
					from = to;
					account_window(&s, from);
				}
			}
		}
		res->error = res->busy_ns
				     ? (double)res->sent_bytes /
						       ((double)c.rate_bytes_per_sec * (double)res->busy_ns /
							NS_PER_SEC) -
					       1
				     : 0;
	}
	for (uint32_t i = 0; i < c.instances; i++)
		cake_free(s.inst[i].q);
	free(s.pool);
	return ret;
}
