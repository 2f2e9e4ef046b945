/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The simulator's engine: a discrete-event loop over virtual nanoseconds.
 *
 * Each turn handles, at the current time: TCP feedback that has come back (ACKs and
 * loss or CE signals, from a time-ordered heap), sources whose next packet is due,
 * and the link, which dequeues from CAKE while it is free. The clock then jumps to the
 * earliest of: the next feedback, the next source packet, CAKE's next wake-up and the
 * end of the link's current transmission.
 */
#include "tools/sim/cake_sim.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc/cake.h"

enum {
	ECN_ECT0 = 2, /* RFC 3168 codepoints */
	ECN_CE = 3,
	POOL_CHUNK = 4096,
	HIST_SUB_BITS = 6, /* 64 buckets per octave: under 2% error */
	HIST_SUB = 1 << HIST_SUB_BITS,
	HIST_BUCKETS = HIST_SUB * (64 - HIST_SUB_BITS + 1),
	TCP_INIT_CWND = 10, /* RFC 6928 */
	TCP_MIN_CWND = 2,
	TCP_MAX_CWND = 100000,
};

#define START_NS CAKE_NS_PER_SEC /* virtual time starts at 1 s: 0 is not special */
#define RENO_BETA 0.5
#define CUBIC_BETA 0.7
#define CUBIC_C 0.4 /* packets / s^3, RFC 8312 */

struct spkt {
	struct cake_pkt cp; /* first: CAKE's pointer is ours */
	uint32_t flow;
	struct spkt *next_free;
};

struct chunk {
	struct chunk *next;
	struct spkt pkts[POOL_CHUNK];
};

/* Feedback reaching a TCP sender: an ACK, or the news of a drop or a mark. */
struct signal {
	uint64_t at_ns;
	uint64_t seq; /* ties keep insertion order */
	uint64_t sent_ns;
	uint32_t flow;
	bool congestion;
	bool lost;
};

struct hist {
	uint32_t bucket[HIST_BUCKETS];
};

struct sflow {
	struct cake_sim_flow_spec spec;
	uint32_t flow_hash, src_hash, dst_hash;
	uint64_t start_ns, stop_ns; /* absolute sending window */
	uint64_t next_ns;  /* udp, ping: the next packet is due */
	uint64_t gap_ns, gap_rem, gap_den, rem_acc; /* udp: exact spacing */
	/* tcp */
	double cwnd, ssthresh, w_max;
	uint64_t epoch_ns, last_cut_ns;
	uint32_t inflight;
	bool started;
	struct hist *hist;
	struct cake_sim_flow_result r;
};

struct sim {
	const struct cake_sim_config *cfg;
	struct cake *q;
	struct cake_ops ops;
	uint64_t now, end_ns, measure_ns;
	uint64_t cake_wake_ns, link_free_ns;
	struct sflow *flows;
	uint32_t nflows;
	uint32_t *timed; /* flows that wait for a time: udp, ping and unstarted tcp */
	uint32_t ntimed;
	struct signal *heap;
	size_t heap_n, heap_cap;
	uint64_t seq;
	struct chunk *chunks;
	struct spkt *free_pkts;
	bool oom;
};

static uint64_t mix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t hist_index(uint64_t v)
{
	int shift;

	if (v < HIST_SUB)
		return (uint32_t)v;
	shift = 63 - __builtin_clzll(v) - HIST_SUB_BITS;
	return (uint32_t)(HIST_SUB * (shift + 1) + ((v >> shift) - HIST_SUB));
}

/* The middle of a bucket. */
static uint64_t hist_value(uint32_t idx)
{
	uint32_t shift;

	if (idx < HIST_SUB)
		return idx;
	shift = idx / HIST_SUB - 1;
	return (((uint64_t)(idx % HIST_SUB) + HIST_SUB) << shift) + ((UINT64_C(1) << shift) >> 1);
}

static uint64_t hist_quantile(const struct hist *h, uint64_t n, uint32_t per_mille)
{
	uint64_t want = (n * per_mille + 999) / 1000, seen = 0;
	uint32_t i;

	if (!n)
		return 0;
	for (i = 0; i < HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= want)
			return hist_value(i);
	}
	return 0;
}

static bool measuring(const struct sim *s)
{
	return s->now >= s->measure_ns;
}

/* --- packets ------------------------------------------------------------------- */

static struct spkt *pkt_get(struct sim *s)
{
	struct spkt *p = s->free_pkts;
	struct chunk *c;
	size_t i;

	if (!p) {
		c = malloc(sizeof(*c));
		if (!c) {
			s->oom = true;
			return NULL;
		}
		c->next = s->chunks;
		s->chunks = c;
		for (i = 0; i < POOL_CHUNK; i++) {
			c->pkts[i].next_free = s->free_pkts;
			s->free_pkts = &c->pkts[i];
		}
		p = s->free_pkts;
	}
	s->free_pkts = p->next_free;
	return p;
}

static void pkt_put(struct sim *s, struct spkt *p)
{
	p->next_free = s->free_pkts;
	s->free_pkts = p;
}

/* --- the feedback heap ------------------------------------------------------------ */

static bool earlier(const struct signal *a, const struct signal *b)
{
	return a->at_ns != b->at_ns ? a->at_ns < b->at_ns : a->seq < b->seq;
}

static void swap_sig(struct signal *a, struct signal *b)
{
	struct signal t = *a;

	*a = *b;
	*b = t;
}

static void heap_push(struct sim *s, struct signal sig)
{
	struct signal *grown;
	size_t i;

	if (s->heap_n == s->heap_cap) {
		size_t cap = s->heap_cap ? s->heap_cap * 2 : 1024;

		grown = realloc(s->heap, cap * sizeof(*grown));
		if (!grown) {
			s->oom = true;
			return;
		}
		s->heap = grown;
		s->heap_cap = cap;
	}
	sig.seq = s->seq++;
	i = s->heap_n++;
	s->heap[i] = sig;
	while (i && earlier(&s->heap[i], &s->heap[(i - 1) / 2])) {
		swap_sig(&s->heap[i], &s->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
}

static struct signal heap_pop(struct sim *s)
{
	struct signal top = s->heap[0];
	size_t i = 0, c;

	s->heap[0] = s->heap[--s->heap_n];
	for (;;) {
		c = 2 * i + 1;
		if (c >= s->heap_n)
			break;
		if (c + 1 < s->heap_n && earlier(&s->heap[c + 1], &s->heap[c]))
			c++;
		if (!earlier(&s->heap[c], &s->heap[i]))
			break;
		swap_sig(&s->heap[c], &s->heap[i]);
		i = c;
	}
	return top;
}

/* --- CAKE's hooks ------------------------------------------------------------------- */

static void op_drop(void *ctx, struct cake_pkt *cp, enum cake_drop_reason reason)
{
	struct sim *s = ctx;
	struct spkt *p = (struct spkt *)cp;
	struct sflow *f = &s->flows[p->flow];

	if (reason == CAKE_DROP_FLUSH) { /* the end of the run, not congestion */
		pkt_put(s, p);
		return;
	}
	if (measuring(s))
		f->r.drops++;
	if (f->spec.kind == CAKE_SIM_TCP)
		heap_push(s, (struct signal){ .at_ns = s->now + f->spec.rtt_ns,
					      .sent_ns = cp->enqueue_ns, .flow = p->flow,
					      .congestion = true, .lost = true });
	pkt_put(s, p);
}

static void op_set_ce(void *ctx, struct cake_pkt *cp)
{
	struct sim *s = ctx;
	struct spkt *p = (struct spkt *)cp;

	if (measuring(s))
		s->flows[p->flow].r.marks++;
}

/* --- senders ---------------------------------------------------------------------- */

static bool sending(const struct sflow *f, uint64_t now)
{
	return now >= f->start_ns && now < f->stop_ns;
}

static void send_pkt(struct sim *s, uint32_t idx)
{
	struct sflow *f = &s->flows[idx];
	struct spkt *p = pkt_get(s);

	if (!p)
		return;
	memset(&p->cp, 0, sizeof(p->cp));
	p->flow = idx;
	p->cp.len = f->spec.size_bytes;
	p->cp.wire_len = f->spec.size_bytes;
	p->cp.flow_hash = f->flow_hash;
	p->cp.src_hash = f->src_hash;
	p->cp.dst_hash = f->dst_hash;
	p->cp.dscp = f->spec.dscp;
	p->cp.ecn = f->spec.ecn ? ECN_ECT0 : 0;
	p->cp.flags = CAKE_PKT_IPV4 | (f->spec.kind == CAKE_SIM_TCP ? CAKE_PKT_TCP : CAKE_PKT_UDP);
	p->cp.gso_segs = 1;
	p->cp.enqueue_ns = s->now;
	if (measuring(s)) {
		f->r.offered_pkts++;
		f->r.offered_bytes += f->spec.size_bytes;
	}
	if (f->spec.kind == CAKE_SIM_TCP)
		f->inflight++;
	(void)cake_enqueue(s->q, &p->cp, s->now);
	/* A packet into an idle CAKE may leave at once. */
	if (s->cake_wake_ns > s->now)
		s->cake_wake_ns = s->now;
}

static void tcp_fill_window(struct sim *s, uint32_t idx)
{
	struct sflow *f = &s->flows[idx];

	if (!sending(f, s->now))
		return;
	f->started = true;
	while (f->inflight < (uint32_t)f->cwnd && !s->oom)
		send_pkt(s, idx);
}

/* Congestion avoidance growth per ACK. */
static void tcp_grow(struct sflow *f, uint64_t now)
{
	double t, target;

	if (f->cwnd < f->ssthresh) {
		f->cwnd += 1;
	} else if (f->spec.cc == CAKE_SIM_RENO || !f->epoch_ns) {
		f->cwnd += 1 / f->cwnd;
	} else {
		t = (double)(now - f->epoch_ns) / CAKE_NS_PER_SEC;
		t -= cbrt(f->w_max * (1 - CUBIC_BETA) / CUBIC_C);
		target = CUBIC_C * t * t * t + f->w_max;
		f->cwnd += target > f->cwnd ? (target - f->cwnd) / f->cwnd : 0.01 / f->cwnd;
	}
	if (f->cwnd > TCP_MAX_CWND)
		f->cwnd = TCP_MAX_CWND;
}

/* One cut per window: signals about packets sent before the last cut are old news. */
static void tcp_cut(struct sim *s, struct sflow *f, uint64_t sent_ns)
{
	double beta = f->spec.cc == CAKE_SIM_RENO ? RENO_BETA : CUBIC_BETA;

	if (f->last_cut_ns && sent_ns <= f->last_cut_ns)
		return;
	f->w_max = f->cwnd;
	f->cwnd *= beta;
	if (f->cwnd < TCP_MIN_CWND)
		f->cwnd = TCP_MIN_CWND;
	f->ssthresh = f->cwnd;
	f->epoch_ns = s->now;
	f->last_cut_ns = s->now;
	if (measuring(s))
		f->r.window_cuts++;
}

static void handle_signal(struct sim *s, const struct signal *sig)
{
	struct sflow *f = &s->flows[sig->flow];

	if (f->inflight)
		f->inflight--;
	if (sig->congestion)
		tcp_cut(s, f, sig->sent_ns);
	else
		tcp_grow(f, s->now);
	tcp_fill_window(s, sig->flow);
}

static void run_signals(struct sim *s)
{
	struct signal sig;

	while (s->heap_n && s->heap[0].at_ns <= s->now && !s->oom) {
		sig = heap_pop(s);
		handle_signal(s, &sig);
	}
}

/* Send a udp or ping flow's packets that are due; false once it has stopped for good. */
static bool run_timer(struct sim *s, uint32_t idx)
{
	struct sflow *f = &s->flows[idx];
	uint32_t k;

	while (f->next_ns <= s->now && !s->oom) {
		if (sending(f, f->next_ns))
			for (k = 0; k < f->spec.burst; k++)
				send_pkt(s, idx);
		f->next_ns += f->gap_ns;
		f->rem_acc += f->gap_rem;
		if (f->rem_acc >= f->gap_den) {
			f->rem_acc -= f->gap_den;
			f->next_ns++;
		}
	}
	return f->next_ns < f->stop_ns;
}

/*
 * udp and ping packets that are due, and tcp senders whose start time has come.
 * A started tcp flow is driven by its feedback and leaves the list, as does a flow
 * that has stopped.
 */
static void run_sources(struct sim *s)
{
	uint32_t i = 0, idx;
	bool keep;

	while (i < s->ntimed && !s->oom) {
		idx = s->timed[i];
		if (s->flows[idx].spec.kind == CAKE_SIM_TCP) {
			tcp_fill_window(s, idx);
			keep = !s->flows[idx].started;
		} else {
			keep = run_timer(s, idx);
		}
		if (keep)
			i++;
		else
			s->timed[i] = s->timed[--s->ntimed];
	}
}

/* --- the link -------------------------------------------------------------------- */

static uint64_t serialisation_ns(const struct sim *s, uint32_t bytes)
{
	uint64_t rate = s->cfg->link_bytes_per_sec;

	return rate ? ((uint64_t)bytes * CAKE_NS_PER_SEC + rate - 1) / rate : 0;
}

static void deliver(struct sim *s, struct spkt *p)
{
	struct sflow *f = &s->flows[p->flow];
	uint64_t done = s->now + serialisation_ns(s, p->cp.wire_len);
	uint64_t delay = s->now - p->cp.enqueue_ns;

	if (f->spec.kind == CAKE_SIM_PING)
		delay = done - p->cp.enqueue_ns + f->spec.rtt_ns;
	if (measuring(s)) {
		f->r.delivered_pkts++;
		f->r.delivered_bytes += p->cp.wire_len;
		f->hist->bucket[hist_index(delay)]++;
		f->r.delay_samples++;
		if (delay > f->r.delay_max_ns)
			f->r.delay_max_ns = delay;
	}
	if (f->spec.kind == CAKE_SIM_TCP)
		heap_push(s, (struct signal){ .at_ns = done + f->spec.rtt_ns,
					      .sent_ns = p->cp.enqueue_ns, .flow = p->flow,
					      .congestion = p->cp.ecn == ECN_CE });
	s->link_free_ns = done;
	pkt_put(s, p);
}

static void run_link(struct sim *s)
{
	struct cake_pkt *cp;
	uint64_t next;

	while (s->link_free_ns <= s->now && s->cake_wake_ns <= s->now && !s->oom) {
		cp = cake_dequeue(s->q, s->now, &next);
		s->cake_wake_ns = next;
		if (!cp)
			break;
		deliver(s, (struct spkt *)cp);
	}
}

static uint64_t next_time(const struct sim *s)
{
	uint64_t t = s->end_ns;
	uint32_t i;

	if (s->heap_n && s->heap[0].at_ns < t)
		t = s->heap[0].at_ns;
	for (i = 0; i < s->ntimed; i++) {
		const struct sflow *f = &s->flows[s->timed[i]];
		uint64_t due = f->spec.kind == CAKE_SIM_TCP ? f->start_ns : f->next_ns;

		if (due < t)
			t = due;
	}
	if (s->cake_wake_ns != CAKE_TIME_NONE) {
		uint64_t w = s->cake_wake_ns > s->link_free_ns ? s->cake_wake_ns : s->link_free_ns;

		if (w < t)
			t = w;
	}
	return t > s->now ? t : s->now + 1;
}

/* --- setup and results --------------------------------------------------------------- */

static int check_config(const struct cake_sim_config *cfg)
{
	uint32_t i;

	if (!cfg->nflows || !cfg->flows || !cfg->duration_ns || cfg->warmup_ns >= cfg->duration_ns)
		return -EINVAL;
	if (!cfg->cake.rate_bytes_per_sec && !cfg->link_bytes_per_sec)
		return -EINVAL; /* nothing would limit the rate */
	for (i = 0; i < cfg->nflows; i++) {
		const struct cake_sim_flow_spec *f = &cfg->flows[i];

		if (f->size_bytes < CAKE_SIM_MIN_PKT_BYTES || f->size_bytes > CAKE_SIM_MAX_PKT_BYTES ||
		    !f->count || f->dscp > 63)
			return -EINVAL;
		if (f->kind == CAKE_SIM_UDP && (!f->rate_bytes_per_sec || !f->burst))
			return -EINVAL;
		if (f->kind == CAKE_SIM_PING && !f->interval_ns)
			return -EINVAL;
	}
	return 0;
}

static uint32_t hash32(uint64_t seed, uint64_t tag, uint64_t id)
{
	return (uint32_t)mix64(seed ^ mix64((tag << 32) ^ id));
}

static void init_flow(struct sim *s, struct sflow *f, const struct cake_sim_flow_spec *spec,
		      uint32_t spec_index, uint32_t n)
{
	uint64_t seed = s->cfg->seed, wire_ns;

	f->spec = *spec;
	f->spec.count = 1;
	f->r.spec_index = spec_index;
	f->r.kind = spec->kind;
	f->flow_hash = hash32(seed, 1, n);
	f->src_hash = hash32(seed, 2, spec->host);
	f->dst_hash = hash32(seed, 3, spec->dst);
	if (s->cfg->cake.peer_isolation)
		f->src_hash = f->dst_hash = hash32(seed, 4, spec->peer);
	f->cwnd = TCP_INIT_CWND;
	f->ssthresh = TCP_MAX_CWND;
	if (spec->kind == CAKE_SIM_UDP) {
		/* burst * size bytes every gap: gap = burst * size / rate, kept exact */
		wire_ns = (uint64_t)spec->burst * spec->size_bytes * CAKE_NS_PER_SEC;
		f->gap_den = spec->rate_bytes_per_sec;
		f->gap_ns = wire_ns / f->gap_den;
		f->gap_rem = wire_ns % f->gap_den;
	} else if (spec->kind == CAKE_SIM_PING) {
		f->gap_ns = spec->interval_ns;
		f->gap_den = 1;
	}
	/* Flows start a little apart (up to 1 ms) so that they do not move in lockstep. */
	f->start_ns = START_NS + spec->start_ns + (n ? mix64(seed ^ n) % CAKE_NS_PER_MS : 0);
	f->stop_ns = spec->stop_ns ? START_NS + spec->stop_ns : UINT64_MAX;
	f->next_ns = f->start_ns;
}

static int setup(struct sim *s, const struct cake_sim_config *cfg)
{
	struct cake_params params = { .ops = &s->ops, .ctx = s, .mtu_bytes = cfg->mtu_bytes,
				      .seed = cfg->seed };
	uint32_t i, k, n = 0;

	for (i = 0; i < cfg->nflows; i++)
		n += cfg->flows[i].count;
	if (n > CAKE_SIM_MAX_FLOWS)
		return -EINVAL;
	s->cfg = cfg;
	s->ops.drop = op_drop;
	s->ops.set_ce = op_set_ce;
	s->now = START_NS;
	s->end_ns = START_NS + cfg->duration_ns;
	s->measure_ns = START_NS + cfg->warmup_ns;
	s->cake_wake_ns = CAKE_TIME_NONE;
	s->flows = calloc(n, sizeof(*s->flows));
	s->timed = calloc(n, sizeof(*s->timed));
	if (!s->flows || !s->timed)
		return -ENOMEM;
	s->nflows = n;
	s->ntimed = n;
	n = 0;
	for (i = 0; i < cfg->nflows; i++)
		for (k = 0; k < cfg->flows[i].count; k++, n++) {
			s->timed[n] = n;
			init_flow(s, &s->flows[n], &cfg->flows[i], i, n);
			s->flows[n].hist = calloc(1, sizeof(struct hist));
			if (!s->flows[n].hist)
				return -ENOMEM;
		}
	s->q = cake_new(&params, &cfg->cake, s->now);
	return s->q ? 0 : -EINVAL;
}

static void teardown(struct sim *s)
{
	struct chunk *c;
	uint32_t i;

	cake_free(s->q); /* hands queued packets to op_drop, into the pool */
	while ((c = s->chunks)) {
		s->chunks = c->next;
		free(c);
	}
	for (i = 0; s->flows && i < s->nflows; i++)
		free(s->flows[i].hist);
	free(s->flows);
	free(s->timed);
	free(s->heap);
}

static int collect(struct sim *s, struct cake_sim_result *res)
{
	uint32_t i;

	memset(res, 0, sizeof(*res));
	res->flows = calloc(s->nflows, sizeof(*res->flows));
	if (!res->flows)
		return -ENOMEM;
	res->nflows = s->nflows;
	res->measured_ns = s->cfg->duration_ns - s->cfg->warmup_ns;
	cake_get_options(s->q, &res->cake);
	cake_get_stats(s->q, &res->stats);
	for (i = 0; i < s->nflows; i++) {
		struct sflow *f = &s->flows[i];

		/* A bucket's middle may lie above the largest sample in it. */
		f->r.delay_p50_ns = hist_quantile(f->hist, f->r.delay_samples, 500);
		if (f->r.delay_p50_ns > f->r.delay_max_ns)
			f->r.delay_p50_ns = f->r.delay_max_ns;
		f->r.delay_p99_ns = hist_quantile(f->hist, f->r.delay_samples, 990);
		if (f->r.delay_p99_ns > f->r.delay_max_ns)
			f->r.delay_p99_ns = f->r.delay_max_ns;
		f->r.cwnd = f->spec.kind == CAKE_SIM_TCP ? f->cwnd : 0;
		res->flows[i] = f->r;
	}
	return 0;
}

int cake_sim_run(const struct cake_sim_config *cfg, struct cake_sim_result *res)
{
	struct sim s;
	int ret = check_config(cfg);

	if (ret)
		return ret;
	memset(&s, 0, sizeof(s));
	ret = setup(&s, cfg);
	while (!ret && s.now < s.end_ns && !s.oom) {
		run_signals(&s);
		run_sources(&s);
		run_link(&s);
		s.now = next_time(&s);
	}
	if (!ret && s.oom)
		ret = -ENOMEM;
	if (!ret)
		ret = collect(&s, res);
	teardown(&s);
	return ret;
}

void cake_sim_result_free(struct cake_sim_result *res)
{
	free(res->flows);
	res->flows = NULL;
	res->nflows = 0;
}
