/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A small virtual-time traffic harness for the CAKE tests: packet pool, traffic
 * sources and a link that takes packets as fast as CAKE (or an optional line rate)
 * lets them go. Deterministic: time only moves when the harness moves it.
 *
 * Sources:
 *  - greedy:   keeps `depth` packets queued at all times (a backlogged flow);
 *  - periodic: one packet every period_ns (a sparse flow, or a constant-rate flood);
 *  - tcp:      an AIMD (Reno-like) window over a fixed base RTT; a drop or CE mark
 *              halves the window (at most once per RTT) when its signal comes back.
 * Per-source counters cover the measuring window [measure_from_ns, end of run).
 */
#ifndef CAKEWG_TESTS_SUPPORT_CAKE_HARNESS_H
#define CAKEWG_TESTS_SUPPORT_CAKE_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc/cake.h"
#include "qdisc/shaper.h"

enum {
	H_MAX_SRC = 80,
	H_EVENTS = 4096,     /* pending ACK/loss signals per tcp source */
	H_DROP_REASONS = CAKE_DROP_FLUSH + 1,
};

enum h_kind {
	H_GREEDY,
	H_PERIODIC,
	H_TCP,
};

struct h_pkt {
	struct cake_pkt pkt; /* first: the harness casts back */
	int src;
	bool in_use;
};

struct h_event {
	uint64_t at_ns;
	bool congestion; /* a drop or a CE mark */
};

struct h_src {
	enum h_kind kind;
	/* packet template */
	uint32_t flow_hash, src_hash, dst_hash, mark;
	uint8_t dscp, ecn;
	uint32_t wire_len;
	uint32_t truesize; /* the buffer each packet stands for (0: none stated) */
	uint16_t gso_segs, gso_size;
	/* greedy */
	uint32_t depth;
	/* periodic: gaps alternate period + jitter and period - jitter */
	uint64_t period_ns, next_ns, stop_ns, jitter_ns;
	bool jitter_phase;
	/* tcp */
	double cwnd;
	uint32_t inflight;
	uint64_t rtt_ns, last_cut_ns;
	struct h_event ev[H_EVENTS];
	uint32_t ev_head, ev_tail;

	/* state */
	uint32_t queued;
	uint64_t queued_bytes;
	/* measured in the window */
	uint64_t sent_pkts, sent_bytes, adj_bytes;
	uint64_t drop_pkts[H_DROP_REASONS];
	uint64_t drop_adj_bytes;
	uint64_t marks;
	uint64_t delay_sum_ns, delay_max_ns, delay_n;
	uint64_t first_ns, last_ns; /* first and last delivery in the window */
	uint64_t offered_pkts;
};

struct harness {
	struct cake *q;
	struct cake_params params;
	struct cake_ops ops;
	uint64_t now;
	uint64_t measure_from_ns;
	uint64_t link_bytes_per_sec; /* 0: the link takes whatever CAKE releases */
	uint64_t link_free_ns;
	struct h_pkt *pool;
	uint32_t *free_idx;
	uint32_t pool_n, free_n;
	struct h_src src[H_MAX_SRC];
	int nsrc;
	/* global counters */
	uint64_t drops[H_DROP_REASONS];
	uint64_t marks, washes;
	uint64_t mem_violations;
	uint64_t held_truesize, held_truesize_max; /* summed over the packets CAKE holds */
	uint64_t pool_exhausted;
	uint64_t enqueued, delivered;
	int last_overlimit_victim; /* source of the last memory-limit drop */
	bool overlimit_not_fattest; /* a memory-limit drop hit a flow that was not fattest */
};

static inline bool h_measuring(const struct harness *h)
{
	return h->now >= h->measure_from_ns;
}

static inline void h_free(struct harness *h, struct cake_pkt *p)
{
	struct h_pkt *hp = (struct h_pkt *)p;

	hp->in_use = false;
	h->free_idx[h->free_n++] = (uint32_t)(hp - h->pool);
}

static inline void h_push_event(struct h_src *s, uint64_t at, bool congestion)
{
	if (s->ev_tail - s->ev_head >= H_EVENTS)
		return; /* window larger than the model supports: signal lost */
	s->ev[s->ev_tail % H_EVENTS] = (struct h_event){ .at_ns = at, .congestion = congestion };
	s->ev_tail++;
}

static inline void h_op_drop(void *ctx, struct cake_pkt *p, enum cake_drop_reason reason)
{
	struct harness *h = ctx;
	struct h_pkt *hp = (struct h_pkt *)p;
	struct h_src *s = &h->src[hp->src];

	if (reason == CAKE_DROP_OVERLIMIT) {
		int i;

		for (i = 0; i < h->nsrc; i++)
			if (h->src[i].queued_bytes > s->queued_bytes)
				h->overlimit_not_fattest = true;
		h->last_overlimit_victim = hp->src;
	}
	s->queued--;
	s->queued_bytes -= p->wire_len;
	h->held_truesize -= p->truesize;
	h->drops[reason]++;
	if (h_measuring(h)) {
		s->drop_pkts[reason]++;
		s->drop_adj_bytes += p->adj_len;
	}
	if (s->kind == H_TCP)
		h_push_event(s, h->now + s->rtt_ns, true);
	h_free(h, p);
}

static inline void h_op_set_ce(void *ctx, struct cake_pkt *p)
{
	struct harness *h = ctx;

	h->marks++;
	(void)p;
}

static inline void h_op_wash(void *ctx, struct cake_pkt *p)
{
	struct harness *h = ctx;

	h->washes++;
	(void)p;
}

/* Create a harness with a CAKE instance configured by opts (may be NULL). */
static inline struct harness *h_new(const struct cake_options *opts, uint32_t pool_n,
				    uint64_t seed)
{
	struct harness *h = calloc(1, sizeof(*h));
	uint32_t i;

	if (!h)
		return NULL;
	h->pool = calloc(pool_n, sizeof(*h->pool));
	h->free_idx = calloc(pool_n, sizeof(*h->free_idx));
	h->pool_n = pool_n;
	for (i = 0; i < pool_n; i++)
		h->free_idx[i] = pool_n - 1 - i;
	h->free_n = pool_n;
	h->ops.drop = h_op_drop;
	h->ops.set_ce = h_op_set_ce;
	h->ops.wash = h_op_wash;
	h->params.ops = &h->ops;
	h->params.ctx = h;
	h->params.seed = seed;
	h->now = 1000000000; /* start at 1 s: zero is not special */
	h->last_overlimit_victim = -1;
	h->q = cake_new(&h->params, opts, h->now);
	if (!h->q || !h->pool || !h->free_idx) {
		free(h->pool);
		free(h->free_idx);
		free(h);
		return NULL;
	}
	return h;
}

static inline void h_free_all(struct harness *h)
{
	if (!h)
		return;
	cake_free(h->q);
	free(h->pool);
	free(h->free_idx);
	free(h);
}

/* Add a source; returns its index. Hashes default to distinct values per source. */
static inline int h_add(struct harness *h, enum h_kind kind, uint32_t wire_len)
{
	struct h_src *s = &h->src[h->nsrc];

	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->wire_len = wire_len;
	s->flow_hash = 0x1000u + 0x9e3779b1u * (uint32_t)(h->nsrc + 1);
	s->src_hash = 0x51u + 0x85ebca6bu * (uint32_t)(h->nsrc + 1);
	s->dst_hash = 0xd3u + 0xc2b2ae35u * (uint32_t)(h->nsrc + 1);
	s->depth = 4;
	s->gso_segs = 1;
	s->cwnd = 2;
	s->rtt_ns = 20 * CAKE_NS_PER_MS;
	s->next_ns = h->now;
	s->stop_ns = UINT64_MAX;
	return h->nsrc++;
}

static inline int h_add_greedy(struct harness *h, uint32_t wire_len, uint32_t depth)
{
	int i = h_add(h, H_GREEDY, wire_len);

	h->src[i].depth = depth;
	return i;
}

static inline int h_add_periodic(struct harness *h, uint32_t wire_len, uint64_t period_ns)
{
	int i = h_add(h, H_PERIODIC, wire_len);

	h->src[i].period_ns = period_ns;
	return i;
}

/* A constant-rate source: packets of wire_len at bytes_per_sec. */
static inline int h_add_rate(struct harness *h, uint32_t wire_len, uint64_t bytes_per_sec)
{
	return h_add_periodic(h, wire_len, (uint64_t)wire_len * CAKE_NS_PER_SEC / bytes_per_sec);
}

static inline int h_add_tcp(struct harness *h, uint32_t wire_len, uint64_t rtt_ns, bool ecn)
{
	int i = h_add(h, H_TCP, wire_len);

	h->src[i].rtt_ns = rtt_ns;
	h->src[i].ecn = ecn ? 2 : 0; /* ECT(0) */
	return i;
}

static inline bool h_send(struct harness *h, int si)
{
	struct h_src *s = &h->src[si];
	struct h_pkt *hp;
	struct cake_pkt *p;

	if (!h->free_n) {
		h->pool_exhausted++;
		return false;
	}
	hp = &h->pool[h->free_idx[--h->free_n]];
	memset(hp, 0, sizeof(*hp));
	hp->src = si;
	hp->in_use = true;
	p = &hp->pkt;
	p->len = s->wire_len > 60 ? s->wire_len - 60 : s->wire_len;
	p->wire_len = s->wire_len * s->gso_segs;
	p->flow_hash = s->flow_hash;
	p->src_hash = s->src_hash;
	p->dst_hash = s->dst_hash;
	p->mark = s->mark;
	p->dscp = s->dscp;
	p->ecn = s->ecn;
	p->gso_segs = s->gso_segs;
	p->gso_size = s->gso_segs > 1 ? s->gso_size : 0;
	p->truesize = s->truesize;
	s->queued += 1;
	s->queued_bytes += p->wire_len;
	if (h_measuring(h))
		s->offered_pkts++;
	h->enqueued++;
	h->held_truesize += p->truesize;
	cake_enqueue(h->q, p, h->now);
	if (h->held_truesize > h->held_truesize_max)
		h->held_truesize_max = h->held_truesize;
	if (cake_memory_used(h->q) > cake_memory_limit(h->q))
		h->mem_violations++;
	return true;
}

/* Apply the tcp signals that have come back by now. */
static inline void h_tcp_events(struct harness *h, struct h_src *s)
{
	while (s->ev_head != s->ev_tail && s->ev[s->ev_head % H_EVENTS].at_ns <= h->now) {
		struct h_event e = s->ev[s->ev_head % H_EVENTS];

		s->ev_head++;
		if (s->inflight)
			s->inflight--;
		if (e.congestion) {
			if (h->now - s->last_cut_ns > s->rtt_ns) {
				s->cwnd = s->cwnd / 2 < 2 ? 2 : s->cwnd / 2;
				s->last_cut_ns = h->now;
			}
		} else {
			s->cwnd += 1.0 / s->cwnd;
		}
	}
}

/* Let every source put in what it wants to at the current time. */
static inline void h_arrivals(struct harness *h)
{
	int i;

	for (i = 0; i < h->nsrc; i++) {
		struct h_src *s = &h->src[i];

		switch (s->kind) {
		case H_GREEDY:
			while (s->queued < s->depth && h_send(h, i))
				;
			break;
		case H_PERIODIC:
			while (s->next_ns <= h->now && s->next_ns < s->stop_ns) {
				s->next_ns += s->period_ns;
				if (s->jitter_ns) {
					s->jitter_phase = !s->jitter_phase;
					s->next_ns = s->jitter_phase ? s->next_ns + s->jitter_ns :
								       s->next_ns - s->jitter_ns;
				}
				if (!h_send(h, i))
					break;
			}
			break;
		case H_TCP:
			h_tcp_events(h, s);
			while (s->inflight < (uint32_t)s->cwnd && h_send(h, i))
				s->inflight++;
			break;
		}
	}
}

static inline void h_deliver(struct harness *h, struct cake_pkt *p)
{
	struct h_pkt *hp = (struct h_pkt *)p;
	struct h_src *s = &h->src[hp->src];
	uint64_t delay = h->now - p->enqueue_ns;

	s->queued--;
	s->queued_bytes -= p->wire_len;
	h->held_truesize -= p->truesize;
	h->delivered++;
	if (h_measuring(h)) {
		if (!s->sent_pkts)
			s->first_ns = h->now;
		s->last_ns = h->now;
		s->sent_pkts++;
		s->sent_bytes += p->wire_len;
		s->adj_bytes += p->adj_len;
		s->delay_sum_ns += delay;
		s->delay_n++;
		if (delay > s->delay_max_ns)
			s->delay_max_ns = delay;
		if (p->ecn == 3 && s->ecn)
			s->marks++;
	}
	if (s->kind == H_TCP)
		h_push_event(s, h->now + s->rtt_ns, p->ecn == 3);
	if (h->link_bytes_per_sec)
		h->link_free_ns = h->now + (uint64_t)p->wire_len * CAKE_NS_PER_SEC /
						   h->link_bytes_per_sec;
	h_free(h, p);
}

/* The earliest time something can happen after now (arrivals, signals, the link). */
static inline uint64_t h_next_event(const struct harness *h, uint64_t cake_next)
{
	uint64_t t = cake_next;
	int i;

	if (h->link_free_ns > h->now && h->link_free_ns < t)
		t = h->link_free_ns;
	for (i = 0; i < h->nsrc; i++) {
		const struct h_src *s = &h->src[i];

		if (s->kind == H_PERIODIC && s->next_ns < s->stop_ns && s->next_ns < t)
			t = s->next_ns;
		if (s->kind == H_TCP && s->ev_head != s->ev_tail &&
		    s->ev[s->ev_head % H_EVENTS].at_ns < t)
			t = s->ev[s->ev_head % H_EVENTS].at_ns;
	}
	return t;
}

/* Run until virtual time `until`. */
static inline void h_run(struct harness *h, uint64_t until)
{
	while (h->now < until) {
		uint64_t next = CAKE_TIME_NONE;
		struct cake_pkt *p;

		h_arrivals(h);
		if (h->link_free_ns <= h->now) {
			p = cake_dequeue(h->q, h->now, &next);
			if (p) {
				h_deliver(h, p);
				continue;
			}
		}
		next = h_next_event(h, next);
		if (next <= h->now)
			next = h->now + 1;
		h->now = next < until ? next : until;
	}
}

/* Delivered rate of a source over the measuring window ending at `end`, bytes/s. */
static inline double h_rate(const struct harness *h, int si, uint64_t end)
{
	return (double)h->src[si].sent_bytes * 1e9 / (double)(end - h->measure_from_ns);
}

static inline double h_jain(const double *x, int n)
{
	double sum = 0, sq = 0;
	int i;

	for (i = 0; i < n; i++) {
		sum += x[i];
		sq += x[i] * x[i];
	}
	return sq > 0 ? sum * sum / (n * sq) : 0;
}

static inline struct cake_options h_opts_rate(uint64_t bytes_per_sec)
{
	struct cake_options o;

	memset(&o, 0, sizeof(o));
	o.present = CAKE_OPT_RATE;
	o.rate_bytes_per_sec = bytes_per_sec;
	return o;
}

/* An rtt of an hour: COBALT stays quiet, for tests about something else. */
static inline void h_opts_quiet_aqm(struct cake_options *o)
{
	o->present |= CAKE_OPT_RTT;
	o->rtt_us = 3600u * 1000000u;
	o->target_us = o->rtt_us / 20;
}

#define H_MBIT(x) ((uint64_t)(x) * 1000000 / 8)

#endif
