/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The trace-driven link's engine (see link_sim.h): fixed steps of virtual time, each
 * running, in path order, the controller's tick when due, the senders, the egress CAKE,
 * the uplink bottleneck and its propagation, the downlink bottleneck and its
 * propagation, the ingress CAKE, and the sampler.
 */
#include "tools/sim/link_sim.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc/cake.h"
#include "qdisc/tcpts.h"
#include "tools/sim/link_tcp.h"

#define ORIGIN_NS 1000000000ull /* virtual time starts at 1 s: 0 is not special */
#define NS_PER_S 1000000000ull

enum {
	POOL_CHUNK = 4096,
	ORACLE_PCT = 97,
	DRAIN_SHIFT = 4, /* the delayed oracle drains at 1/16 of the capacity */
	TCPTS_FLOWS = 256,
};

struct chunk {
	struct chunk *next;
	struct link_pkt pkts[POOL_CHUNK];
};

struct fifo {
	struct link_pkt *head, *tail;
	uint64_t bytes, free_at;
};

struct samples {
	struct cake_link_sample *v;
	size_t n, cap;
};

struct cake_link {
	struct cake_link_config cfg;
	uint64_t now; /* absolute: ORIGIN_NS + the public time */
	struct link_tcp tcp;
	struct cake *q[CAKE_LINK_DIRS];
	struct cake_ops ops;
	uint64_t wake[CAKE_LINK_DIRS];
	uint64_t rate[CAKE_LINK_DIRS], shaped_at[CAKE_LINK_DIRS]; /* at the last tick */
	struct fifo bneck[CAKE_LINK_DIRS], prop[CAKE_LINK_DIRS];
	uint64_t limit[CAKE_LINK_DIRS]; /* bottleneck FIFO bytes, 0 unlimited */
	struct cake_tcpts *ts;
	struct cake_autorate ar[CAKE_LINK_DIRS];
	bool has_ar[CAKE_LINK_DIRS];
	uint64_t next_tick, next_sample, next_early;
	struct samples smp[CAKE_LINK_DIRS];
	struct chunk *chunks;
	struct link_pkt *free_pkts;
	bool oom;
};

/* --- the trace ------------------------------------------------------------------- */

uint64_t cake_link_trace_length_ns(const struct cake_link_trace *tr)
{
	uint64_t len = 0;

	for (uint32_t i = 0; i < tr->n; i++)
		len += tr->steps[i].duration_ns;
	return len;
}

/* The step in force at public time t (the trace repeats), or NULL without steps. */
static const struct cake_link_step *step_at(const struct cake_link_trace *tr, uint64_t t)
{
	uint64_t len = cake_link_trace_length_ns(tr);

	if (!len)
		return NULL;
	t %= len;
	for (uint32_t i = 0; i < tr->n; i++) {
		if (t < tr->steps[i].duration_ns)
			return &tr->steps[i];
		t -= tr->steps[i].duration_ns;
	}
	return &tr->steps[tr->n - 1];
}

uint64_t cake_link_capacity(const struct cake_link *s, enum cake_link_dir d, uint64_t t_ns)
{
	const struct cake_link_step *st = step_at(&s->cfg.trace[d], t_ns);

	return st ? st->rate_bytes_per_sec : 0;
}

/* The base RTT at public time t: the last step with one at or before t, else the default. */
static uint64_t rtt_at(const struct cake_link *s, uint64_t t)
{
	const struct cake_link_trace *tr = &s->cfg.trace[CAKE_LINK_UP];
	uint64_t len = cake_link_trace_length_ns(tr), rtt = s->cfg.rtt_ns, pos = 0;

	if (!len) {
		tr = &s->cfg.trace[CAKE_LINK_DOWN];
		len = cake_link_trace_length_ns(tr);
	}
	if (!len)
		return rtt;
	t %= len;
	for (uint32_t i = 0; i < tr->n && pos <= t; pos += tr->steps[i++].duration_ns)
		if (tr->steps[i].rtt_ns)
			rtt = tr->steps[i].rtt_ns;
	return rtt;
}

static uint64_t pub(const struct cake_link *s)
{
	return s->now - ORIGIN_NS;
}

/* --- packets --------------------------------------------------------------------- */

static struct link_pkt *pkt_get(void *ctx)
{
	struct cake_link *s = ctx;
	struct link_pkt *p = s->free_pkts;

	if (!p) {
		struct chunk *c = malloc(sizeof(*c));

		if (!c) {
			s->oom = true;
			return NULL;
		}
		c->next = s->chunks;
		s->chunks = c;
		for (size_t i = 0; i < POOL_CHUNK; i++) {
			c->pkts[i].link = s->free_pkts;
			s->free_pkts = &c->pkts[i];
		}
		p = s->free_pkts;
	}
	s->free_pkts = p->link;
	memset(p, 0, sizeof(*p));
	return p;
}

static void pkt_put(struct cake_link *s, struct link_pkt *p)
{
	p->link = s->free_pkts;
	s->free_pkts = p;
}

static void op_drop(void *ctx, struct cake_pkt *cp, enum cake_drop_reason reason)
{
	(void)reason;
	pkt_put(ctx, (struct link_pkt *)cp);
}

static void fifo_push(struct fifo *f, struct link_pkt *p)
{
	p->link = NULL;
	if (f->tail)
		f->tail->link = p;
	else
		f->head = p;
	f->tail = p;
	f->bytes += p->wire;
}

static struct link_pkt *fifo_pop(struct fifo *f)
{
	struct link_pkt *p = f->head;

	f->head = p->link;
	if (!f->head)
		f->tail = NULL;
	f->bytes -= p->wire;
	return p;
}

/* --- the path -------------------------------------------------------------------- */

static void tap(struct cake_link *s, const struct link_pkt *p, enum cake_link_dir d)
{
	uint32_t n = link_tcp_bytes(&s->tcp, p, d == CAKE_LINK_UP);

	cake_tcpts_packet(s->ts, d == CAKE_LINK_UP ? CAKE_TCPTS_OUT : CAKE_TCPTS_IN,
			  s->tcp.buf, n, p->wire, s->now);
}

/* CAKE's flow hash of a connection: distinct per flow, varied by the seed. */
static uint32_t flow_hash(uint64_t seed, uint32_t flow)
{
	return (uint32_t)(seed * 0x9e3779b97f4a7c15ull >> 32) ^ (flow * 0x85ebca6bu + 1);
}

static void to_cake(struct cake_link *s, struct link_pkt *p, enum cake_link_dir d)
{
	p->cp.len = p->wire - LINK_TCP_TUNNEL;
	p->cp.wire_len = p->wire;
	p->cp.flow_hash = flow_hash(s->cfg.seed, p->flow);
	p->cp.src_hash = 1;
	p->cp.dst_hash = 2;
	p->cp.flags = CAKE_PKT_IPV4 | CAKE_PKT_TCP;
	p->cp.gso_segs = 1;
	(void)cake_enqueue(s->q[d], &p->cp, s->now);
	if (s->wake[d] > s->now)
		s->wake[d] = s->now;
}

static void to_bneck(struct cake_link *s, struct link_pkt *p, enum cake_link_dir d)
{
	if (!p->is_ack && s->limit[d] && s->bneck[d].bytes + p->wire > s->limit[d]) {
		pkt_put(s, p);
		return;
	}
	p->t = s->now;
	fifo_push(&s->bneck[d], p);
}

/* A host sends p: local packets go up through the egress CAKE, remote ones down. */
static void emit(void *ctx, struct link_pkt *p, bool local)
{
	struct cake_link *s = ctx;

	if (local)
		to_cake(s, p, CAKE_LINK_UP);
	else
		to_bneck(s, p, CAKE_LINK_DOWN);
}

static void serve_cake(struct cake_link *s, enum cake_link_dir d)
{
	struct cake_pkt *cp;
	uint64_t next;

	while (s->wake[d] <= s->now && !s->oom) {
		cp = cake_dequeue(s->q[d], s->now, &next);
		s->wake[d] = next;
		if (!cp)
			break;
		struct link_pkt *p = (struct link_pkt *)cp;

		if (d == CAKE_LINK_UP) {
			tap(s, p, CAKE_LINK_UP); /* OUT: as it leaves the egress CAKE */
			to_bneck(s, p, CAKE_LINK_UP);
		} else {
			link_tcp_arrive(&s->tcp, p, false, s->now);
			pkt_put(s, p);
		}
	}
}

/* The bottleneck: FIFO service at the capacity now; what leaves propagates. */
static void serve_bneck(struct cake_link *s, enum cake_link_dir d)
{
	uint64_t rate = cake_link_capacity(s, d, pub(s)), half_rtt = rtt_at(s, pub(s)) / 2;
	struct fifo *b = &s->bneck[d];

	while (b->head) {
		struct link_pkt *p = b->head;
		uint64_t start = b->free_at > p->t ? b->free_at : p->t;
		uint64_t done = start + (rate ? p->wire * NS_PER_S / rate : 0);

		if (done > s->now)
			break;
		fifo_pop(b);
		b->free_at = done;
		p->t = done + half_rtt;
		fifo_push(&s->prop[d], p);
	}
}

static void serve_prop(struct cake_link *s, enum cake_link_dir d)
{
	struct fifo *f = &s->prop[d];

	while (f->head && f->head->t <= s->now) {
		struct link_pkt *p = fifo_pop(f);

		if (d == CAKE_LINK_UP) {
			link_tcp_arrive(&s->tcp, p, true, s->now);
			pkt_put(s, p);
		} else {
			tap(s, p, CAKE_LINK_DOWN); /* IN: decrypted, before the ingress CAKE */
			to_cake(s, p, CAKE_LINK_DOWN);
		}
	}
}

/* --- who sets the rate ------------------------------------------------------------ */

static void set_rate(struct cake_link *s, enum cake_link_dir d, uint64_t rate)
{
	struct cake_options o = { .present = CAKE_OPT_RATE, .rate_bytes_per_sec = rate };

	if (rate == s->rate[d])
		return;
	if (!cake_configure(s->q[d], &o, s->now))
		s->rate[d] = rate;
	s->wake[d] = s->now;
}

/*
 * The delayed oracle's rate for direction d: from the capacity and the FIFO's queue as
 * they were the delay ago (before the start: as at the start, with no queue).
 */
static uint64_t delayed_oracle(const struct cake_link *s, enum cake_link_dir d)
{
	uint64_t delay = s->cfg.oracle_delay_ns ? s->cfg.oracle_delay_ns : rtt_at(s, pub(s));
	uint64_t then = pub(s) > delay ? pub(s) - delay : 0;
	uint64_t cap = cake_link_capacity(s, d, then) * ORACLE_PCT / 100;
	size_t i = (size_t)(then / CAKE_LINK_SAMPLE_NS); /* samples so far then */
	uint64_t above = (uint64_t)CAKE_AUTORATE_MTU_BYTES * CAKE_AUTORATE_MTUS_IN_TARGET *
			 NS_PER_S / (cap ? cap : 1);

	if (above < (uint64_t)CAKE_AUTORATE_TARGET_US * 1000)
		above = (uint64_t)CAKE_AUTORATE_TARGET_US * 1000;
	if (i && i <= s->smp[d].n && s->smp[d].v[i - 1].qdelay_ns > above)
		return cap >> DRAIN_SHIFT ? cap >> DRAIN_SHIFT : 1;
	return cap;
}

/* Between ticks, every CAKE_AUTORATE_EARLY_CHECK_NS: whether a controller asks for one. */
static bool early(struct cake_link *s)
{
	bool due = false;

	if (s->now < s->next_early)
		return false;
	s->next_early = s->now + CAKE_AUTORATE_EARLY_CHECK_NS;
	for (int d = 0; d < CAKE_LINK_DIRS && !due; d++) {
		enum cake_tcpts_dir dir = d == CAKE_LINK_UP ? CAKE_TCPTS_OUT : CAKE_TCPTS_IN;

		due = s->has_ar[d] && cake_autorate_early(&s->ar[d], s->ts, dir, s->now);
	}
	return due;
}

static void policy(struct cake_link *s)
{
	struct cake_signal sig[CAKE_TCPTS_DIRS];

	for (int d = 0; d < CAKE_LINK_DIRS; d++) {
		uint64_t cap = cake_link_capacity(s, d, pub(s));

		if (s->cfg.policy == CAKE_LINK_ORACLE && cap)
			set_rate(s, d, cap * ORACLE_PCT / 100);
		else if (s->cfg.policy == CAKE_LINK_ORACLE_DELAYED && cap)
			set_rate(s, d, delayed_oracle(s, d));
	}
	if (s->now < s->next_tick && !early(s))
		return;
	s->next_tick = s->now + CAKE_AUTORATE_TICK_NS;
	cake_tcpts_take(s->ts, sig);
	for (int d = 0; d < CAKE_LINK_DIRS; d++) {
		uint64_t shaped = cake_shaped_bytes(s->q[d]);
		struct cake_autorate_input in = {
			.sig = sig[d],
			.shaped_bytes = shaped - s->shaped_at[d],
			.backlogged = cake_backlog_bytes(s->q[d]) > 0,
		};

		s->shaped_at[d] = shaped;
		if (s->has_ar[d])
			set_rate(s, d, cake_autorate_tick(&s->ar[d], &in, s->now));
	}
}

/* --- samples --------------------------------------------------------------------- */

uint64_t cake_link_qdelay_ns(const struct cake_link *s, enum cake_link_dir d)
{
	uint64_t c = cake_link_capacity(s, d, pub(s));

	return c ? s->bneck[d].bytes * NS_PER_S / c : 0;
}

static void sample(struct cake_link *s)
{
	if (s->now < s->next_sample)
		return;
	s->next_sample += CAKE_LINK_SAMPLE_NS;
	for (int d = 0; d < CAKE_LINK_DIRS; d++) {
		struct samples *m = &s->smp[d];

		if (m->n == m->cap) {
			size_t cap = m->cap ? m->cap * 2 : 1024;
			struct cake_link_sample *v = realloc(m->v, cap * sizeof(*v));

			if (!v) {
				s->oom = true;
				return;
			}
			m->v = v;
			m->cap = cap;
		}
		m->v[m->n++] = (struct cake_link_sample){
			.t_ns = pub(s), .capacity = cake_link_capacity(s, d, pub(s)),
			.rate = s->rate[d], .qdelay_ns = cake_link_qdelay_ns(s, d),
			.goodput_bytes = link_tcp_goodput(&s->tcp, d) };
	}
}

/* --- the public API ---------------------------------------------------------------- */

static int check(const struct cake_link_config *cfg)
{
	if (cfg->flows[0] > CAKE_LINK_MAX_FLOWS || cfg->flows[1] > CAKE_LINK_MAX_FLOWS)
		return -EINVAL;
	for (int d = 0; d < CAKE_LINK_DIRS; d++) {
		const struct cake_link_trace *tr = &cfg->trace[d];

		if (tr->n > CAKE_LINK_MAX_STEPS)
			return -EINVAL;
		for (uint32_t i = 0; i < tr->n; i++)
			if (!tr->steps[i].duration_ns || !tr->steps[i].rate_bytes_per_sec)
				return -EINVAL;
	}
	return 0;
}

static int setup_dir(struct cake_link *s, enum cake_link_dir d)
{
	const struct cake_options *o = &s->cfg.cake[d];
	struct cake_params params = { .ops = &s->ops, .ctx = s, .seed = s->cfg.seed + d };
	const struct cake_link_trace *tr = &s->cfg.trace[d];
	uint64_t peak = 0;

	for (uint32_t i = 0; i < tr->n; i++)
		if (tr->steps[i].rate_bytes_per_sec > peak)
			peak = tr->steps[i].rate_bytes_per_sec;
	s->limit[d] = (uint64_t)((unsigned __int128)peak * s->cfg.buffer_ns / NS_PER_S);
	s->rate[d] = o->rate_bytes_per_sec;
	s->wake[d] = CAKE_TIME_NONE;
	if (o->autorate && s->cfg.policy == CAKE_LINK_AS_CONFIGURED) {
		/* the downlink's shaper is after its bottleneck: the controller's ingress
		 * rules, with or without tc-cake's `ingress` word (as in the daemon) */
		struct cake_autorate_config c = { .min_rate = o->autorate_min,
						  .max_rate = o->autorate_max,
						  .start_rate = o->rate_bytes_per_sec,
						  .target_us = o->autorate_target_us,
						  .ingress = d == CAKE_LINK_DOWN };

		if (cake_autorate_init(&s->ar[d], &c, s->now))
			return -EINVAL;
		s->has_ar[d] = true;
		s->rate[d] = s->ar[d].rate;
	}
	s->q[d] = cake_new(&params, o, s->now);
	if (!s->q[d])
		return -EINVAL;
	if (s->rate[d] != o->rate_bytes_per_sec) {
		uint64_t r = s->rate[d];

		s->rate[d] = o->rate_bytes_per_sec;
		set_rate(s, d, r);
	}
	return 0;
}

struct cake_link *cake_link_new(const struct cake_link_config *cfg, int *err)
{
	struct cake_siphash_key key = { .k = { 0x5eed ^ cfg->seed, 0xa070 } };
	struct cake_link *s;
	int ret = check(cfg);

	if (ret) {
		*err = ret;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		*err = -ENOMEM;
		return NULL;
	}
	s->cfg = *cfg;
	if (!s->cfg.buffer_ns)
		s->cfg.buffer_ns = CAKE_LINK_DEFAULT_BUFFER_NS;
	if (!s->cfg.rtt_ns)
		s->cfg.rtt_ns = CAKE_LINK_DEFAULT_RTT_NS;
	s->now = ORIGIN_NS;
	s->next_tick = s->now + CAKE_AUTORATE_TICK_NS;
	s->next_sample = s->now + CAKE_LINK_SAMPLE_NS;
	s->ops.drop = op_drop;
	s->ts = cake_tcpts_new(TCPTS_FLOWS, &key);
	link_tcp_init(&s->tcp, cfg->flows, cfg->no_ts, emit, pkt_get, s);
	ret = s->ts ? 0 : -ENOMEM;
	for (int d = 0; d < CAKE_LINK_DIRS && !ret; d++)
		ret = setup_dir(s, d);
	if (ret) {
		cake_link_free(s);
		*err = ret;
		return NULL;
	}
	return s;
}

void cake_link_free(struct cake_link *s)
{
	struct chunk *c;

	if (!s)
		return;
	for (int d = 0; d < CAKE_LINK_DIRS; d++) {
		cake_free(s->q[d]);
		free(s->smp[d].v);
	}
	cake_tcpts_free(s->ts);
	while ((c = s->chunks)) {
		s->chunks = c->next;
		free(c);
	}
	free(s);
}

int cake_link_run_until(struct cake_link *s, uint64_t t_ns)
{
	while (pub(s) < t_ns && !s->oom) {
		s->now += CAKE_LINK_STEP_NS;
		policy(s);
		link_tcp_senders(&s->tcp, s->now);
		serve_cake(s, CAKE_LINK_UP);
		serve_bneck(s, CAKE_LINK_UP);
		serve_prop(s, CAKE_LINK_UP);
		serve_bneck(s, CAKE_LINK_DOWN);
		serve_prop(s, CAKE_LINK_DOWN);
		serve_cake(s, CAKE_LINK_DOWN);
		sample(s);
	}
	return s->oom ? -ENOMEM : 0;
}

uint64_t cake_link_now(const struct cake_link *s)
{
	return pub(s);
}

uint64_t cake_link_rate(const struct cake_link *s, enum cake_link_dir d)
{
	return s->rate[d];
}

bool cake_link_autorate(const struct cake_link *s, enum cake_link_dir d,
			struct cake_autorate_status *out)
{
	if (!s->has_ar[d])
		return false;
	cake_autorate_get(&s->ar[d], out);
	return true;
}

const struct cake_link_sample *cake_link_samples(const struct cake_link *s,
						 enum cake_link_dir d, size_t *n)
{
	*n = s->smp[d].n;
	return s->smp[d].v;
}
