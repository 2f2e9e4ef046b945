/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A packet-level model of a tunnel endpoint in front of a bloated remote bottleneck,
 * on virtual time, for the autorate tests. Header-only; all functions are static.
 *
 *   local senders ──► shaper[UP] ──[tcpts OUT]──► bottleneck[UP] ──► delay ──► remote
 *   local receivers ◄── shaper[DOWN] ◄──[tcpts IN]── delay ◄── bottleneck[DOWN] ◄── remote
 *
 * shaper[d] stands for the CAKE instance of direction d: FIFOs served at the rate the
 * controller (or a fixed or oracle policy) sets, dropping data whose wait would pass
 * LS_AQM_NS (CAKE's AQM keeps its queue short); ACKs wait in a FIFO of their own, served
 * first, and are never dropped (CAKE serves their sparse flows first). The
 * bottleneck's capacity follows a step trace and its FIFO holds 250 ms at the trace's
 * peak rate (tail drop), as a cellular base station does. Each direction adds half the
 * base RTT of propagation.
 *
 * Flows are AIMD TCP (slow start, halving once per window on loss, RTO) with the
 * packet bytes the extractor needs: IPv4 + TCP with timestamps (unless no_ts) and a
 * SACK block past a hole. Receivers ACK every second segment (a 40 ms delayed-ACK
 * timer, at once on a hole) and echo TS.Recent, as RFC 7323 says. Both hosts' TSval
 * clocks tick in 1 ms with a per-host offset.
 */
#ifndef CAKEWG_TESTS_SUPPORT_LINKSIM_H
#define CAKEWG_TESTS_SUPPORT_LINKSIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc/autorate.h"
#include "qdisc/tcpts.h"
#include "tests/support/pktbuild.h"
#include "tests/support/tcpopts.h"

#define LS_MS 1000000ull
#define LS_S 1000000000ull

enum ls_values {
	LS_UP = 0,   /* = CAKE_TCPTS_OUT */
	LS_DOWN = 1, /* = CAKE_TCPTS_IN */
	LS_RING = 1 << 15,
	LS_MAX_FLOWS = 16,
	LS_MAX_STEPS = 16,
	LS_TUNNEL = 60,	  /* WireGuard + UDP + IPv4 bytes around an inner packet */
	LS_INNER = 1420,  /* data packets at the tunnel MTU */
	LS_TCP_HDR = 32,  /* with the timestamp option */
	LS_MSS = LS_INNER - 20 - LS_TCP_HDR,
	LS_ACK_INNER = 20 + LS_TCP_HDR,
	LS_SACK_OPT = 12, /* NOP NOP SACK with one block */
	LS_RX_WIN = 8192, /* receiver bitmap, packets */
	LS_RTX = 4096,
};

static const uint64_t LS_AQM_NS = 15 * LS_MS;
static const uint64_t LS_DELACK_NS = 40 * LS_MS;
static const uint64_t LS_STEP_NS = 50000;
static const uint64_t LS_SAMPLE_NS = 10 * LS_MS;

struct ls_pkt {
	uint64_t t; /* ready at the stage that holds it */
	uint32_t wire;
	uint32_t seq; /* data: packet index */
	uint32_t ack, sack_hi, hole_lo, hole_hi;
	uint32_t tsval, tsecr;
	uint16_t flow, newly;
	uint8_t is_ack;
	uint8_t retrans;
};

struct ls_stage {
	struct ls_pkt *q;
	uint32_t head, n;
	uint64_t bytes, free_at;
	uint64_t sent_bytes; /* dequeued since the controller's last tick */
	uint64_t drops;
};

/* Capacity steps: rate[i] bytes/s from t[i]. */
struct ls_trace {
	int n;
	uint64_t t[LS_MAX_STEPS];
	uint64_t rate[LS_MAX_STEPS];
};

enum ls_policy { LS_AUTORATE, LS_FIXED, LS_ORACLE, LS_UNLIMITED };

struct ls_flow {
	uint8_t dir; /* of its data */
	/* sender */
	uint32_t next_seq, cum, inflight, recover;
	double cwnd, ssthresh;
	uint32_t rtx[LS_RTX], rtx_head, rtx_n;
	uint32_t ts_recent_peer; /* last TSval from the receiver */
	uint64_t last_progress, srtt;
	/* receiver */
	uint32_t rcv_next, hi_next, unacked, ts_recent, newly;
	uint32_t hole_lo, hole_hi;
	uint64_t ack_since;
	bool ack_due;
	uint8_t rcvd[LS_RX_WIN / 8];
	uint64_t goodput; /* in-order payload bytes delivered */
};

struct ls_sim {
	uint64_t now, prop_ns;
	enum ls_policy policy;
	bool no_ts;
	struct ls_stage shaper[2], acks[2], bneck[2], prop[2]; /* acks: shaper[d]'s ACKs */
	uint64_t rate[2], fixed[2];
	struct ls_trace cap[2];
	uint64_t bneck_limit[2];
	struct ls_flow flows[LS_MAX_FLOWS];
	int nflows;
	struct cake_tcpts *ts;
	struct cake_autorate ar[2];
	uint32_t ts_off[2]; /* TSval offsets: [0] local host, [1] remote host */
	uint8_t buf[2048];
	/* measurements, from measure_from on */
	uint64_t measure_from;
	uint64_t qd_sum[2], qd_n[2];
	uint32_t qd_samples[2][1 << 14];
	uint64_t cap_bytes[2]; /* integral of the capacity */
	uint64_t next_sample;
};

static inline uint64_t ls_cap(const struct ls_sim *s, int d, uint64_t t)
{
	const struct ls_trace *tr = &s->cap[d];
	uint64_t r = tr->rate[0];

	for (int i = 0; i < tr->n && tr->t[i] <= t; i++)
		r = tr->rate[i];
	return r;
}

static inline uint64_t ls_mbit(double m)
{
	return (uint64_t)(m * 1e6 / 8);
}

static inline void ls_stage_push(struct ls_stage *st, const struct ls_pkt *p)
{
	if (st->n == LS_RING) {
		st->drops++;
		return;
	}
	st->q[(st->head + st->n) % LS_RING] = *p;
	st->n++;
	st->bytes += p->wire;
}

static struct ls_pkt *ls_stage_head(struct ls_stage *st)
{
	return st->n ? &st->q[st->head] : NULL;
}

static inline void ls_stage_pop(struct ls_stage *st)
{
	st->bytes -= st->q[st->head].wire;
	st->head = (st->head + 1) % LS_RING;
	st->n--;
}

static inline uint32_t ls_tsval(const struct ls_sim *s, int host, uint64_t t)
{
	return (uint32_t)(t / LS_MS) + s->ts_off[host];
}

/* The inner packet bytes of p, for the extractor. */
static inline size_t ls_bytes(struct ls_sim *s, const struct ls_pkt *p, int travel)
{
	static const uint8_t zero[LS_MSS];
	uint8_t opts[24];
	size_t on = 0;
	bool local_src = travel == LS_UP;
	struct pb_pkt d = {.family = 4, .proto = PB_PROTO_TCP, .tcp_flags = PB_TCP_ACK};
	uint16_t lport = (uint16_t)(40000 + p->flow), rport = 5201;
	uint32_t isn_data = 1000u + p->flow * 7919u, isn_ack = 5000u;

	pb_addr4(local_src ? d.src : d.dst, 10, 0, 0, 1);
	pb_addr4(local_src ? d.dst : d.src, 10, 0, 0, 2);
	d.sport = local_src ? lport : rport;
	d.dport = local_src ? rport : lport;
	if (!s->no_ts)
		on = to_put(opts, TO_TS, p->tsval, p->tsecr);
	if (p->is_ack) {
		d.seq = isn_ack;
		d.ack = isn_data + p->ack * (uint32_t)LS_MSS;
		if (p->sack_hi > p->ack)
			on += to_put(opts + on, TO_SACK, isn_data + (p->sack_hi - 1) * (uint32_t)LS_MSS,
					  isn_data + p->sack_hi * (uint32_t)LS_MSS);
	} else {
		d.seq = isn_data + p->seq * (uint32_t)LS_MSS;
		d.ack = isn_ack;
		d.payload = zero;
		d.payload_len = LS_MSS;
	}
	d.tcp_opts = opts;
	d.tcp_opts_len = on;
	d.no_l4_csum = true;
	return pb_build(s->buf, sizeof(s->buf), &d);
}

static inline void ls_tap(struct ls_sim *s, const struct ls_pkt *p, int travel)
{
	size_t n = ls_bytes(s, p, travel);

	cake_tcpts_packet(s->ts, travel == LS_UP ? CAKE_TCPTS_OUT : CAKE_TCPTS_IN, s->buf,
			  (uint32_t)n, p->wire, p->t);
}

static inline void ls_to_bneck(struct ls_sim *s, struct ls_pkt *p, int d);

/* Sends p from the host at its direction's start. */
static inline void ls_emit(struct ls_sim *s, struct ls_pkt *p, int travel)
{
	p->t = s->now;
	if (travel == LS_UP) {
		struct ls_stage *sh = &s->shaper[LS_UP];

		if (p->is_ack) {
			ls_stage_push(&s->acks[LS_UP], p);
			return;
		}
		if (!p->is_ack && s->rate[LS_UP] &&
		    sh->bytes * LS_S / s->rate[LS_UP] > LS_AQM_NS) {
			sh->drops++;
			return;
		}
		ls_stage_push(sh, p);
	} else {
		ls_to_bneck(s, p, LS_DOWN);
	}
}

static inline void ls_send_data(struct ls_sim *s, int i, uint32_t seq, bool retrans)
{
	struct ls_flow *f = &s->flows[i];
	int host = f->dir == LS_UP ? 0 : 1;
	struct ls_pkt p = {.wire = LS_INNER + LS_TUNNEL, .seq = seq, .flow = (uint16_t)i,
			   .tsval = ls_tsval(s, host, s->now), .tsecr = f->ts_recent_peer,
			   .retrans = retrans};

	f->inflight++;
	ls_emit(s, &p, f->dir);
}

static inline void ls_send_ack(struct ls_sim *s, int i)
{
	struct ls_flow *f = &s->flows[i];
	int host = f->dir == LS_UP ? 1 : 0;
	struct ls_pkt p = {.ack = f->rcv_next, .sack_hi = f->hi_next, .flow = (uint16_t)i,
			   .hole_lo = f->hole_lo, .hole_hi = f->hole_hi, .newly = (uint16_t)f->newly,
			   .tsval = ls_tsval(s, host, s->now), .tsecr = f->ts_recent, .is_ack = 1};

	p.wire = LS_ACK_INNER + LS_TUNNEL + (p.sack_hi > p.ack ? LS_SACK_OPT : 0);
	f->newly = 0;
	f->unacked = 0;
	f->hole_lo = f->hole_hi = 0;
	f->ack_due = false;
	ls_emit(s, &p, !f->dir);
}

static inline bool ls_rcvd(const struct ls_flow *f, uint32_t seq)
{
	return f->rcvd[(seq % LS_RX_WIN) / 8] & (1u << (seq % 8));
}

static inline void ls_receive_data(struct ls_sim *s, const struct ls_pkt *p)
{
	struct ls_flow *f = &s->flows[p->flow];
	bool hole = false;

	if (p->seq < f->rcv_next || p->seq >= f->rcv_next + LS_RX_WIN || ls_rcvd(f, p->seq)) {
		ls_send_ack(s, p->flow); /* a duplicate: ACK at once */
		return;
	}
	if (!f->ack_due) {
		f->ts_recent = p->tsval;
		f->ack_since = s->now;
		f->ack_due = true;
	}
	f->rcvd[(p->seq % LS_RX_WIN) / 8] |= (uint8_t)(1u << (p->seq % 8));
	f->newly++;
	if (p->seq > f->hi_next) {
		f->hole_lo = f->hi_next;
		f->hole_hi = p->seq;
		hole = true;
	}
	if (p->seq >= f->hi_next)
		f->hi_next = p->seq + 1;
	while (f->rcv_next < f->hi_next && ls_rcvd(f, f->rcv_next)) {
		f->rcvd[(f->rcv_next % LS_RX_WIN) / 8] &= (uint8_t)~(1u << (f->rcv_next % 8));
		f->rcv_next++;
		if (s->now >= s->measure_from)
			f->goodput += LS_MSS;
	}
	if (hole || p->retrans || f->rcv_next < f->hi_next || ++f->unacked >= 2)
		ls_send_ack(s, p->flow);
}

static inline void ls_receive_ack(struct ls_sim *s, const struct ls_pkt *p)
{
	struct ls_flow *f = &s->flows[p->flow];
	uint32_t lost = p->hole_hi - p->hole_lo;

	f->ts_recent_peer = p->tsval;
	f->inflight -= p->newly < f->inflight ? p->newly : f->inflight;
	f->inflight -= lost < f->inflight ? lost : f->inflight;
	for (uint32_t q = p->hole_lo; q < p->hole_hi && f->rtx_n < LS_RTX; q++)
		f->rtx[(f->rtx_head + f->rtx_n++) % LS_RTX] = q;
	if (lost && p->ack >= f->recover) {
		f->cwnd = f->cwnd / 2 < 2 ? 2 : f->cwnd / 2;
		f->ssthresh = f->cwnd;
		f->recover = f->next_seq;
	}
	if (f->cwnd < f->ssthresh)
		f->cwnd += p->newly;
	else
		f->cwnd += p->newly / f->cwnd;
	if (p->ack > f->cum) {
		uint64_t rtt = (uint64_t)(uint32_t)(ls_tsval(s, f->dir == LS_UP ? 0 : 1, s->now) -
						    p->tsecr) * LS_MS;

		f->srtt = f->srtt ? (7 * f->srtt + rtt) / 8 : rtt;
		f->cum = p->ack;
		f->last_progress = s->now;
	}
}

/* Deliver what the path hands to host endpoints at or before now. */
static inline void ls_arrive(struct ls_sim *s, const struct ls_pkt *p, bool at_remote)
{
	bool data_here = at_remote ? s->flows[p->flow].dir == LS_UP
				   : s->flows[p->flow].dir == LS_DOWN;

	if (data_here && !p->is_ack)
		ls_receive_data(s, p);
	else if (p->is_ack)
		ls_receive_ack(s, p);
}

static inline uint64_t ls_service(uint32_t wire, uint64_t rate)
{
	return rate ? wire * LS_S / rate : 0;
}

/* The head of `from` leaves the server `sh` at done and goes on through out. */
static inline void ls_leave(struct ls_sim *s, struct ls_stage *sh, struct ls_stage *from,
			    uint64_t done, void (*out)(struct ls_sim *, struct ls_pkt *, int), int d)
{
	struct ls_pkt q = *ls_stage_head(from);

	sh->free_at = done;
	sh->sent_bytes += q.wire;
	q.t = done;
	ls_stage_pop(from);
	out(s, &q, d);
}

/* Serve a FIFO at rate; what leaves goes on through out. */
static inline void ls_serve(struct ls_sim *s, struct ls_stage *st, uint64_t rate,
		     void (*out)(struct ls_sim *, struct ls_pkt *, int), int d)
{
	struct ls_pkt *p;

	while ((p = ls_stage_head(st))) {
		uint64_t start = st->free_at > p->t ? st->free_at : p->t;
		uint64_t done = start + ls_service(p->wire, rate);

		if (done > s->now)
			break;
		ls_leave(s, st, st, done, out, d);
	}
}

/*
 * The shaper: one rate over two FIFOs, ACKs first when one is there by the time the
 * server is free (CAKE serves such sparse flows ahead of the bulk ones).
 */
static inline void ls_serve_shaper(struct ls_sim *s, int d,
				   void (*out)(struct ls_sim *, struct ls_pkt *, int))
{
	struct ls_stage *sh = &s->shaper[d], *ak = &s->acks[d];

	for (;;) {
		struct ls_pkt *data = ls_stage_head(sh), *ack = ls_stage_head(ak), *p;
		uint64_t free_at = sh->free_at, start, done;
		struct ls_stage *from;

		if (!data && !ack)
			return;
		if (ack && (!data || ack->t <= (free_at > data->t ? free_at : data->t))) {
			p = ack;
			from = ak;
		} else {
			p = data;
			from = sh;
		}
		start = free_at > p->t ? free_at : p->t;
		done = start + ls_service(p->wire, s->rate[d]);
		if (done > s->now)
			return;
		ls_leave(s, sh, from, done, out, d);
	}
}

/* ACKs are never dropped in the model: the senders' in-flight count stays exact. */
static inline void ls_to_bneck(struct ls_sim *s, struct ls_pkt *p, int d)
{
	if (d == LS_UP)
		ls_tap(s, p, LS_UP); /* OUT: as it leaves the egress CAKE */
	if (!p->is_ack && s->bneck[d].bytes + p->wire > s->bneck_limit[d]) {
		s->bneck[d].drops++;
		return;
	}
	ls_stage_push(&s->bneck[d], p);
}

static inline void ls_to_prop(struct ls_sim *s, struct ls_pkt *p, int d)
{
	p->t += s->prop_ns;
	ls_stage_push(&s->prop[d], p);
}

static inline void ls_to_local(struct ls_sim *s, struct ls_pkt *p, int d)
{
	(void)d;
	ls_arrive(s, p, false);
}

static inline void ls_props(struct ls_sim *s, int d)
{
	struct ls_pkt *p;

	while ((p = ls_stage_head(&s->prop[d])) && p->t <= s->now) {
		struct ls_pkt q = *p;

		ls_stage_pop(&s->prop[d]);
		if (d == LS_UP) {
			ls_arrive(s, &q, true);
		} else {
			ls_tap(s, &q, LS_DOWN);
			if (q.is_ack)
				ls_stage_push(&s->acks[LS_DOWN], &q);
			else if (s->rate[LS_DOWN] &&
			    s->shaper[LS_DOWN].bytes * LS_S / s->rate[LS_DOWN] > LS_AQM_NS)
				s->shaper[LS_DOWN].drops++;
			else
				ls_stage_push(&s->shaper[LS_DOWN], &q);
		}
	}
}

static inline void ls_senders(struct ls_sim *s)
{
	for (int i = 0; i < s->nflows; i++) {
		struct ls_flow *f = &s->flows[i];
		uint64_t rto = f->srtt + f->srtt / 2 + 200 * LS_MS;

		if (rto < 300 * LS_MS)
			rto = 300 * LS_MS;
		if (f->inflight && s->now - f->last_progress > rto) {
			/* RTO: resend what the receiver lacks (SACK would have told) */
			f->ssthresh = f->cwnd / 2 < 2 ? 2 : f->cwnd / 2;
			f->cwnd = 1;
			f->inflight = 0;
			f->rtx_head = f->rtx_n = 0;
			for (uint32_t q = f->cum; q < f->next_seq && f->rtx_n < LS_RTX; q++)
				if (q >= f->rcv_next + LS_RX_WIN || q < f->rcv_next || !ls_rcvd(f, q))
					f->rtx[f->rtx_n++] = q;
			f->recover = f->next_seq;
			f->last_progress = s->now;
		}
		while (f->inflight < (uint32_t)f->cwnd) {
			if (f->rtx_n) {
				uint32_t q = f->rtx[f->rtx_head];

				f->rtx_head = (f->rtx_head + 1) % LS_RTX;
				f->rtx_n--;
				if (q >= f->cum)
					ls_send_data(s, i, q, true);
				continue;
			}
			ls_send_data(s, i, f->next_seq++, false);
		}
		if (f->ack_due && s->now - f->ack_since >= LS_DELACK_NS)
			ls_send_ack(s, i);
	}
}

static inline void ls_policy_tick(struct ls_sim *s)
{
	struct cake_signal sig[CAKE_TCPTS_DIRS];

	for (int d = 0; d < 2; d++) {
		switch (s->policy) {
		case LS_FIXED:
			s->rate[d] = s->fixed[d];
			break;
		case LS_ORACLE:
			s->rate[d] = ls_cap(s, d, s->now) * 97 / 100;
			break;
		case LS_UNLIMITED:
			s->rate[d] = 0;
			break;
		case LS_AUTORATE:
			break;
		}
	}
	if (s->policy != LS_AUTORATE || s->now < cake_autorate_next_ns(&s->ar[0]))
		return;
	cake_tcpts_take(s->ts, sig);
	for (int d = 0; d < 2; d++) {
		struct cake_autorate_input in = {.sig = sig[d],
						 .sent_bytes = s->shaper[d].sent_bytes,
						 .backlogged = s->shaper[d].n + s->acks[d].n > 0};

		s->rate[d] = cake_autorate_tick(&s->ar[d], &in, s->now);
		s->shaper[d].sent_bytes = 0;
	}
}

static inline void ls_measure(struct ls_sim *s)
{
	if (s->now < s->next_sample)
		return;
	s->next_sample = s->now + LS_SAMPLE_NS;
	if (s->now < s->measure_from)
		return;
	for (int d = 0; d < 2; d++) {
		uint64_t c = ls_cap(s, d, s->now);
		uint64_t qd = c ? s->bneck[d].bytes * LS_S / c : 0;

		if (s->qd_n[d] < sizeof(s->qd_samples[d]) / sizeof(s->qd_samples[d][0]))
			s->qd_samples[d][s->qd_n[d]] = (uint32_t)(qd / 1000);
		s->qd_sum[d] += qd;
		s->qd_n[d]++;
		s->cap_bytes[d] += c * LS_SAMPLE_NS / LS_S;
	}
}

/* Current queueing delay at direction d's bottleneck, ns. */
static inline uint64_t ls_qdelay(const struct ls_sim *s, int d)
{
	uint64_t c = ls_cap(s, d, s->now);

	return c ? s->bneck[d].bytes * LS_S / c : 0;
}

static inline void ls_step(struct ls_sim *s)
{
	s->now += LS_STEP_NS;
	ls_policy_tick(s);
	ls_senders(s);
	ls_serve_shaper(s, LS_UP, ls_to_bneck);
	ls_serve(s, &s->bneck[LS_UP], ls_cap(s, LS_UP, s->now), ls_to_prop, LS_UP);
	ls_props(s, LS_UP);
	ls_serve(s, &s->bneck[LS_DOWN], ls_cap(s, LS_DOWN, s->now), ls_to_prop, LS_DOWN);
	ls_props(s, LS_DOWN);
	ls_serve_shaper(s, LS_DOWN, ls_to_local);
	ls_measure(s);
}

static inline void ls_run_until(struct ls_sim *s, uint64_t t)
{
	while (s->now < t)
		ls_step(s);
}

static inline void ls_trace(struct ls_sim *s, int d, int n, const double *secs, const double *mbit)
{
	s->cap[d].n = n;
	for (int i = 0; i < n; i++) {
		s->cap[d].t[i] = (uint64_t)(secs[i] * 1e9);
		s->cap[d].rate[i] = ls_mbit(mbit[i]);
	}
}

static inline void ls_flows(struct ls_sim *s, int d, int n)
{
	for (int i = 0; i < n && s->nflows < LS_MAX_FLOWS; i++) {
		struct ls_flow *f = &s->flows[s->nflows++];

		memset(f, 0, sizeof(*f));
		f->dir = (uint8_t)d;
		f->cwnd = 10;
		f->ssthresh = 1e9;
	}
}

static struct ls_sim *ls_new(enum ls_policy policy, uint64_t rtt_ns)
{
	static const struct cake_siphash_key key = {.k = {0x5eed, 0xa070}};
	struct ls_sim *s = calloc(1, sizeof(*s));

	s->policy = policy;
	s->prop_ns = rtt_ns / 2;
	s->ts_off[0] = 0x12345678;
	s->ts_off[1] = 0x9abcdef0;
	s->ts = cake_tcpts_new(256, &key);
	for (int d = 0; d < 2; d++) {
		s->shaper[d].q = calloc(LS_RING, sizeof(struct ls_pkt));
		s->acks[d].q = calloc(LS_RING, sizeof(struct ls_pkt));
		s->bneck[d].q = calloc(LS_RING, sizeof(struct ls_pkt));
		s->prop[d].q = calloc(LS_RING, sizeof(struct ls_pkt));
	}
	return s;
}

/*
 * After the traces are set: the bottleneck buffers (250 ms at each trace's peak) and
 * the controllers (range [min, max], start rate) or the fixed rates.
 */
static inline void ls_start(struct ls_sim *s, double min_mbit, double max_mbit, const double start_mbit[2])
{
	for (int d = 0; d < 2; d++) {
		struct cake_autorate_config c = {.min_rate = ls_mbit(min_mbit),
						 .max_rate = ls_mbit(max_mbit),
						 .start_rate = ls_mbit(start_mbit[d])};
		uint64_t peak = 0;

		for (int i = 0; i < s->cap[d].n; i++)
			peak = s->cap[d].rate[i] > peak ? s->cap[d].rate[i] : peak;
		s->bneck_limit[d] = peak / 4;
		s->fixed[d] = c.start_rate;
		s->rate[d] = c.start_rate;
		if (cake_autorate_init(&s->ar[d], &c, 0))
			abort();
	}
}

static inline void ls_free(struct ls_sim *s)
{
	for (int d = 0; d < 2; d++) {
		free(s->shaper[d].q);
		free(s->acks[d].q);
		free(s->bneck[d].q);
		free(s->prop[d].q);
	}
	cake_tcpts_free(s->ts);
	free(s);
}

/* Goodput of the flows in direction d (payload bytes since measure_from). */
static inline uint64_t ls_goodput(const struct ls_sim *s, int d)
{
	uint64_t g = 0;

	for (int i = 0; i < s->nflows; i++)
		if (s->flows[i].dir == d)
			g += s->flows[i].goodput;
	return g;
}

static inline int ls_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The p-th percentile (0..100) of the queueing delay samples of direction d, us. */
static inline uint32_t ls_qdelay_pct(struct ls_sim *s, int d, int pct)
{
	size_t n = s->qd_n[d] < sizeof(s->qd_samples[d]) / sizeof(s->qd_samples[d][0])
			   ? s->qd_n[d]
			   : sizeof(s->qd_samples[d]) / sizeof(s->qd_samples[d][0]);
	uint32_t *c = malloc(n * sizeof(*c) + 1);
	uint32_t v;

	if (!n) {
		free(c);
		return 0;
	}
	memcpy(c, s->qd_samples[d], n * sizeof(*c));
	qsort(c, n, sizeof(*c), ls_cmp_u32);
	v = c[(n - 1) * (size_t)pct / 100];
	free(c);
	return v;
}

#endif
