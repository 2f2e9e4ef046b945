/* SPDX-License-Identifier: GPL-2.0-only */
/* The trace-driven link's TCP endpoints (see link_tcp.h). */
#include "tools/sim/link_tcp.h"

#include <string.h>

#include "qdisc/csum.h"
#include "qdisc/flowkey.h"
#include "qdisc/tcp_wire.h"

#define NS_PER_MS 1000000ull

enum {
	OPT_LEN = 12,	/* NOP NOP kind 10 a b */
	MSS = LINK_TCP_INNER - CAKE_IPV4_HDR_BYTES - CAKE_TCP_HDR_BYTES - OPT_LEN,
	ACK_INNER = CAKE_IPV4_HDR_BYTES + CAKE_TCP_HDR_BYTES + OPT_LEN,
	LOCAL_PORT = 40000,
	REMOTE_PORT = 5201,
	ISN_ACK = 5000,
	ISN_STRIDE = 7919,
	INIT_CWND = 10,
	MIN_CWND = 2,
};

static const uint64_t DELACK_NS = 40 * NS_PER_MS;
static const uint64_t RTO_MIN_NS = 300 * NS_PER_MS;
static const uint64_t RTO_EXTRA_NS = 200 * NS_PER_MS;

void link_tcp_init(struct link_tcp *t, const uint32_t flows[2], bool no_ts,
		   link_tcp_emit_fn *emit, link_tcp_get_fn *get, void *ctx)
{
	memset(t, 0, sizeof(*t));
	t->no_ts = no_ts;
	t->ts_off[0] = 0x12345678;
	t->ts_off[1] = 0x9abcdef0;
	t->emit = emit;
	t->get = get;
	t->ctx = ctx;
	for (int d = 0; d < 2; d++)
		for (uint32_t i = 0; i < flows[d] && t->nflows < LINK_TCP_MAX_FLOWS; i++) {
			struct link_tcp_flow *f = &t->flows[t->nflows++];

			f->dir = (uint8_t)d;
			f->cwnd = INIT_CWND;
			f->ssthresh = 1e9;
		}
}

static uint32_t tsval(const struct link_tcp *t, int host)
{
	return (uint32_t)(t->now / NS_PER_MS) + t->ts_off[host];
}

static size_t put_opt(uint8_t *o, uint8_t kind, uint32_t a, uint32_t b)
{
	o[0] = o[1] = CAKE_TCPOPT_NOP;
	o[2] = kind;
	o[3] = CAKE_TCPOLEN_TIMESTAMP; /* = CAKE_TCPOLEN_SACK_BASE + one block */
	cake_put_be32(o + 4, a);
	cake_put_be32(o + 8, b);
	return OPT_LEN;
}

uint32_t link_tcp_bytes(struct link_tcp *t, const struct link_pkt *p, bool local_src)
{
	static const uint8_t local[4] = { 10, 0, 0, 1 }, remote[4] = { 10, 0, 0, 2 };
	uint8_t *ip = t->buf, *tcp = t->buf + CAKE_IPV4_HDR_BYTES, *o = tcp + CAKE_TCP_HDR_BYTES;
	uint32_t isn_data = 1000u + p->flow * (uint32_t)ISN_STRIDE;
	uint16_t lport = (uint16_t)(LOCAL_PORT + p->flow);
	size_t on = 0, total;

	if (!t->no_ts)
		on = put_opt(o, CAKE_TCPOPT_TIMESTAMP, p->tsval, p->tsecr);
	if (p->is_ack && p->sack_hi > p->ack)
		on += put_opt(o + on, CAKE_TCPOPT_SACK, isn_data + (p->sack_hi - 1) * (uint32_t)MSS,
			      isn_data + p->sack_hi * (uint32_t)MSS);
	total = CAKE_IPV4_HDR_BYTES + CAKE_TCP_HDR_BYTES + on + (p->is_ack ? 0 : MSS);
	memset(ip, 0, CAKE_IPV4_HDR_BYTES);
	memset(tcp, 0, CAKE_TCP_HDR_BYTES);
	memset(o + on, 0, total - CAKE_IPV4_HDR_BYTES - CAKE_TCP_HDR_BYTES - on);
	ip[0] = 0x45;
	cake_put_be16(ip + 2, (uint16_t)total);
	cake_put_be16(ip + 6, 0x4000); /* DF */
	ip[8] = 64;
	ip[9] = CAKE_IPPROTO_TCP;
	memcpy(ip + 12, local_src ? local : remote, 4);
	memcpy(ip + 16, local_src ? remote : local, 4);
	cake_put_be16(ip + 10, cake_csum_finish(cake_csum_partial(ip, CAKE_IPV4_HDR_BYTES, 0)));
	cake_put_be16(tcp, local_src ? lport : REMOTE_PORT);
	cake_put_be16(tcp + 2, local_src ? REMOTE_PORT : lport);
	if (p->is_ack) {
		cake_put_be32(tcp + CAKE_TCP_SEQ_OFFSET, ISN_ACK);
		cake_put_be32(tcp + CAKE_TCP_ACK_OFFSET, isn_data + p->ack * (uint32_t)MSS);
	} else {
		cake_put_be32(tcp + CAKE_TCP_SEQ_OFFSET, isn_data + p->seq * (uint32_t)MSS);
		cake_put_be32(tcp + CAKE_TCP_ACK_OFFSET, ISN_ACK);
	}
	tcp[CAKE_TCP_DOFF_OFFSET] = (uint8_t)((CAKE_TCP_HDR_BYTES + on) / 4 << 4);
	tcp[CAKE_TCP_FLAGS_OFFSET] = CAKE_TCP_ACK;
	cake_put_be16(tcp + CAKE_TCP_WINDOW_OFFSET, 65535);
	return (uint32_t)total;
}

/* The sending host of a flow's data is local for uploads; ACKs come from the other. */
static void emit(struct link_tcp *t, struct link_pkt *p, bool local)
{
	t->emit(t->ctx, p, local);
}

static void send_data(struct link_tcp *t, int i, uint32_t seq, bool retrans)
{
	struct link_tcp_flow *f = &t->flows[i];
	bool local = f->dir == 0;
	struct link_pkt *p = t->get(t->ctx);

	f->inflight++; /* also without memory: the sender must not spin */
	if (!p)
		return;
	p->wire = LINK_TCP_INNER + LINK_TCP_TUNNEL;
	p->seq = seq;
	p->flow = (uint16_t)i;
	p->tsval = tsval(t, local ? 0 : 1);
	p->tsecr = f->ts_recent_peer;
	p->retrans = retrans;
	emit(t, p, local);
}

static void send_ack(struct link_tcp *t, int i)
{
	struct link_tcp_flow *f = &t->flows[i];
	bool local = f->dir != 0;
	struct link_pkt *p = t->get(t->ctx);

	f->unacked = 0;
	f->ack_due = false;
	if (!p)
		return;
	p->ack = f->rcv_next;
	p->sack_hi = f->hi_next;
	p->flow = (uint16_t)i;
	p->hole_lo = f->hole_lo;
	p->hole_hi = f->hole_hi;
	p->rcvd_total = f->rcvd_total;
	p->tsval = tsval(t, local ? 0 : 1);
	p->tsecr = f->ts_recent;
	p->is_ack = 1;
	p->wire = ACK_INNER + LINK_TCP_TUNNEL + (p->sack_hi > p->ack ? OPT_LEN : 0);
	f->hole_lo = f->hole_hi = 0;
	emit(t, p, local);
}

static bool rcvd(const struct link_tcp_flow *f, uint32_t seq)
{
	return f->rcvd[(seq % LINK_TCP_RX_WIN) / 8] & (1u << (seq % 8));
}

static void receive_data(struct link_tcp *t, const struct link_pkt *p)
{
	struct link_tcp_flow *f = &t->flows[p->flow];
	bool hole = false;

	if (p->seq < f->rcv_next || p->seq >= f->rcv_next + LINK_TCP_RX_WIN || rcvd(f, p->seq)) {
		send_ack(t, p->flow); /* a duplicate: ACK at once */
		return;
	}
	if (!f->ack_due) {
		f->ts_recent = p->tsval;
		f->ack_since = t->now;
		f->ack_due = true;
	}
	f->rcvd[(p->seq % LINK_TCP_RX_WIN) / 8] |= (uint8_t)(1u << (p->seq % 8));
	f->rcvd_total++;
	if (p->seq > f->hi_next) {
		f->hole_lo = f->hi_next;
		f->hole_hi = p->seq;
		hole = true;
	}
	if (p->seq >= f->hi_next)
		f->hi_next = p->seq + 1;
	while (f->rcv_next < f->hi_next && rcvd(f, f->rcv_next)) {
		f->rcvd[(f->rcv_next % LINK_TCP_RX_WIN) / 8] &= (uint8_t)~(1u << (f->rcv_next % 8));
		f->rcv_next++;
		f->goodput += MSS;
	}
	if (hole || p->retrans || f->rcv_next < f->hi_next || ++f->unacked >= 2)
		send_ack(t, p->flow);
}

static void take(uint32_t *v, uint32_t n)
{
	*v -= n < *v ? n : *v;
}

/*
 * Counts are cumulative (rcvd_total), so an ACK CAKE drops loses no in-flight
 * accounting; a hole it reported is then found by the RTO instead.
 */
static void receive_ack(struct link_tcp *t, const struct link_pkt *p)
{
	struct link_tcp_flow *f = &t->flows[p->flow];
	uint32_t lost = p->hole_hi - p->hole_lo, newly = 0;

	if (p->rcvd_total > f->acked_total) {
		newly = p->rcvd_total - f->acked_total;
		f->acked_total = p->rcvd_total;
	}
	f->ts_recent_peer = p->tsval;
	take(&f->inflight, newly);
	take(&f->inflight, lost);
	for (uint32_t q = p->hole_lo; q < p->hole_hi && f->rtx_n < LINK_TCP_RTX; q++)
		f->rtx[(f->rtx_head + f->rtx_n++) % LINK_TCP_RTX] = q;
	if (lost && p->ack >= f->recover) {
		f->cwnd = f->cwnd / 2 < MIN_CWND ? MIN_CWND : f->cwnd / 2;
		f->ssthresh = f->cwnd;
		f->recover = f->next_seq;
	}
	if (f->cwnd < f->ssthresh)
		f->cwnd += newly;
	else
		f->cwnd += newly / f->cwnd;
	if (p->ack > f->cum) {
		uint64_t rtt = (uint64_t)(uint32_t)(tsval(t, f->dir == 0 ? 0 : 1) - p->tsecr) *
			       NS_PER_MS;

		f->srtt = f->srtt ? (7 * f->srtt + rtt) / 8 : rtt;
		f->cum = p->ack;
		f->last_progress = t->now;
	}
}

void link_tcp_arrive(struct link_tcp *t, const struct link_pkt *p, bool at_remote,
		     uint64_t now)
{
	bool data_here = at_remote ? t->flows[p->flow].dir == 0 : t->flows[p->flow].dir != 0;

	t->now = now;
	if (data_here && !p->is_ack)
		receive_data(t, p);
	else if (p->is_ack)
		receive_ack(t, p);
}

/* RTO: resend what the receiver lacks (SACK would have told). */
static void rto(struct link_tcp_flow *f, uint64_t now)
{
	f->ssthresh = f->cwnd / 2 < MIN_CWND ? MIN_CWND : f->cwnd / 2;
	f->cwnd = 1;
	f->inflight = 0;
	f->rtx_head = f->rtx_n = 0;
	for (uint32_t q = f->cum; q < f->next_seq && f->rtx_n < LINK_TCP_RTX; q++)
		if (q >= f->rcv_next + LINK_TCP_RX_WIN || q < f->rcv_next || !rcvd(f, q))
			f->rtx[f->rtx_n++] = q;
	f->recover = f->next_seq;
	f->last_progress = now;
}

void link_tcp_senders(struct link_tcp *t, uint64_t now)
{
	t->now = now;
	for (int i = 0; i < t->nflows; i++) {
		struct link_tcp_flow *f = &t->flows[i];
		uint64_t timeout = f->srtt + f->srtt / 2 + RTO_EXTRA_NS;

		if (timeout < RTO_MIN_NS)
			timeout = RTO_MIN_NS;
		if (f->inflight && now - f->last_progress > timeout)
			rto(f, now);
		while (f->inflight < (uint32_t)f->cwnd) {
			if (f->rtx_n) {
				uint32_t q = f->rtx[f->rtx_head];

				f->rtx_head = (f->rtx_head + 1) % LINK_TCP_RTX;
				f->rtx_n--;
				if (q >= f->cum)
					send_data(t, i, q, true);
				continue;
			}
			send_data(t, i, f->next_seq++, false);
		}
		if (f->ack_due && now - f->ack_since >= DELACK_NS)
			send_ack(t, i);
	}
}

uint64_t link_tcp_goodput(const struct link_tcp *t, int d)
{
	uint64_t g = 0;

	for (int i = 0; i < t->nflows; i++)
		if (t->flows[i].dir == d)
			g += t->flows[i].goodput;
	return g;
}
