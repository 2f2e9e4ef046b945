/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The dequeue side of CAKE, split as the kernel's cake_dequeue reads: the global
 * shaper says whether anything may go; select_tin picks a tin (DRR between tins when
 * unlimited, priority-by-threshold when shaped); pick_flow walks the tin's decaying,
 * new and old rotations (DRR++); service_flow pulls packets through COBALT; deliver
 * does the bookkeeping of the packet that leaves.
 */
#include "qdisc/cake.h"

#include <stddef.h>

#include "qdisc/cake_priv.h"

enum {
	ECN_CE = 3,
	DELAY_EWMA_SLOW = 8,
	DELAY_EWMA_FAST = 2,
};

/* What service_flow found. */
enum service_result {
	SERVICE_PACKET,	  /* a packet to deliver */
	SERVICE_EMPTY,	  /* the flow was empty: start over from the shaper */
	SERVICE_RESELECT, /* an ingress-mode drop changed the deficits: pick a flow again */
};

static uint64_t ewma(uint64_t avg, uint64_t sample, unsigned int shift)
{
	avg -= avg >> shift;
	avg += sample >> shift;
	return avg;
}

static bool tin_has_flows(const struct cake_tin *b)
{
	return b->sparse_flow_count + b->bulk_flow_count > 0;
}

struct cake_pkt *cake_dequeue_one(struct cake *q, struct cake_tin *b, struct cake_flow *flow)
{
	struct cake_pkt *pkt = flow->head;
	uint32_t idx = (uint32_t)(flow - b->flows);

	if (!pkt)
		return NULL;
	flow->head = pkt->next;
	if (!flow->head)
		flow->tail = NULL;
	pkt->next = NULL;

	b->backlogs[idx] -= pkt->wire_len;
	b->tin_backlog -= pkt->wire_len;
	b->tin_backlog_pkts--;
	q->backlog -= pkt->wire_len;
	q->buffer_used -= cake_truesize(q, pkt);
	q->qlen--;
	if (q->overflow_timeout)
		cake_heap_sift_down(q, b->overflow_idx[idx]);
	return pkt;
}

/* The global hard shaper: blocked until both the schedule and the failsafe are due. */
static bool shaper_blocked(const struct cake *q, uint64_t now_ns, uint64_t *next_ns)
{
	if (cake_tdiff(q->time_next_packet, now_ns) > 0 &&
	    cake_tdiff(q->failsafe_next_packet, now_ns) > 0) {
		*next_ns = cake_tdiff(q->time_next_packet, q->failsafe_next_packet) < 0
				   ? q->time_next_packet
				   : q->failsafe_next_packet;
		return true;
	}
	return false;
}

/* A schedule trailing the clock by more than CAKE_SHAPER_MAX_LAG_NS is moved up to
 * that bound, the failsafe's too (see qdisc/cake.h). */
static void forgive_lag(struct cake *q, uint64_t now_ns)
{
	uint64_t floor = now_ns - CAKE_SHAPER_MAX_LAG_NS;
	int64_t behind;

	if (!q->rate.rate_ns || q->cfg.ingress)
		return;
	behind = cake_tdiff(floor, q->time_next_packet);
	if (behind > 0) {
		q->time_next_packet = floor;
		q->shaper_late++;
		q->shaper_late_ns += (uint64_t)behind;
	}
	if (cake_tdiff(q->failsafe_next_packet, floor) < 0)
		q->failsafe_next_packet = floor;
}

/*
 * The DRR credit between tins matters only when unlimited. The kernel charges it in
 * shaped mode too, where nothing refills it and the 32-bit count runs off its end;
 * here it is left alone while shaped.
 */
static void charge_tin(const struct cake *q, struct cake_tin *b, uint32_t len)
{
	if (!q->rate.rate_ns)
		b->tin_deficit -= (int32_t)len;
}

/* Unlimited: plain DRR between tins with the tins' quanta as weights. */
static struct cake_tin *select_tin_drr(struct cake *q)
{
	struct cake_tin *b = &q->tins[q->cur_tin];
	bool wrapped = false, empty = true;

	while (b->tin_deficit < 0 || !tin_has_flows(b)) {
		if (b->tin_deficit <= 0)
			b->tin_deficit += b->tin_quantum;
		if (tin_has_flows(b))
			empty = false;
		q->cur_tin++;
		b++;
		if (q->cur_tin >= q->tin_cnt) {
			q->cur_tin = 0;
			b = q->tins;
			if (wrapped) {
				if (empty)
					return NULL;
			} else {
				wrapped = true;
			}
		}
	}
	return b;
}

/*
 * Shaped: the highest tin (highest index) with packets whose own schedule has come,
 * else the tin with packets that will be due first. A tin under its threshold rate
 * keeps its schedule in the past and so keeps its priority.
 */
static struct cake_tin *select_tin_shaped(struct cake *q, uint64_t now_ns)
{
	int64_t best_time = INT64_MAX;
	unsigned int tin, best = 0;

	for (tin = 0; tin < q->tin_cnt; tin++) {
		const struct cake_tin *b = &q->tins[tin];
		int64_t to_pkt;

		if (!tin_has_flows(b))
			continue;
		to_pkt = cake_tdiff(b->time_next_packet, now_ns);
		if (to_pkt <= 0 || to_pkt <= best_time) {
			best_time = to_pkt;
			best = tin;
		}
	}
	q->cur_tin = (uint8_t)best;
	return tin_has_flows(&q->tins[best]) ? &q->tins[best] : NULL;
}

/* Decaying flows get one look first; then new (sparse) flows, then old ones. */
static struct cake_flow *pick_flow(struct cake_tin *b, bool first)
{
	struct cake_list *head = &b->decaying_flows;

	if (!first || cake_list_empty(head)) {
		head = &b->new_flows;
		if (cake_list_empty(head)) {
			head = &b->old_flows;
			if (cake_list_empty(head)) {
				head = &b->decaying_flows;
				if (cake_list_empty(head))
					return NULL;
			}
		}
	}
	return cake_container_of(head->next, struct cake_flow, chain);
}

/* Out of credit: a sparse flow that still has packets becomes bulk; refill, rotate. */
static void refill(struct cake *q, struct cake_tin *b, struct cake_flow *flow)
{
	if (flow->set == CAKE_SET_SPARSE) {
		if (flow->head) {
			b->sparse_flow_count--;
			b->bulk_flow_count++;
			cake_host_bulk_inc(b, flow, q->cfg.flow_mode);
			flow->set = CAKE_SET_BULK;
		} else {
			/* in the bulk rotation for its deficit, still counted as sparse */
			flow->set = CAKE_SET_SPARSE_WAIT;
		}
	}
	flow->deficit += cake_flow_quantum(q, b, flow);
	cake_list_move_tail(&flow->chain, &b->old_flows);
}

/* The flow turned out empty: let it decay in its own rotation, or retire it. */
static void flow_empty(struct cake *q, struct cake_tin *b, struct cake_flow *flow, uint64_t now_ns)
{
	struct cobalt_vars *v = &flow->cvars;

	if (cobalt_queue_empty(v, &b->cparams, now_ns) && b->unresponsive_flow_count)
		b->unresponsive_flow_count--;

	if (v->p_drop || v->count || cake_tdiff(now_ns, v->drop_next_ns) < 0) {
		cake_list_move_tail(&flow->chain, &b->decaying_flows);
		if (flow->set == CAKE_SET_BULK) {
			b->bulk_flow_count--;
			cake_host_bulk_dec(b, flow, q->cfg.flow_mode);
			b->decaying_flow_count++;
		} else if (flow->set == CAKE_SET_SPARSE || flow->set == CAKE_SET_SPARSE_WAIT) {
			b->sparse_flow_count--;
			b->decaying_flow_count++;
		}
		flow->set = CAKE_SET_DECAYING;
		return;
	}
	cake_list_unlink(&flow->chain);
	if (flow->set == CAKE_SET_SPARSE || flow->set == CAKE_SET_SPARSE_WAIT) {
		b->sparse_flow_count--;
	} else if (flow->set == CAKE_SET_BULK) {
		b->bulk_flow_count--;
		cake_host_bulk_dec(b, flow, q->cfg.flow_mode);
	} else {
		b->decaying_flow_count--;
	}
	flow->set = CAKE_SET_NONE;
}

/* A packet COBALT rejected. In ingress mode its bytes still use up the link. */
static void drop_congested(struct cake *q, struct cake_tin *b, struct cake_flow *flow,
			   struct cake_pkt *pkt, uint64_t now_ns)
{
	if (q->cfg.ingress) {
		uint32_t len = cake_advance_shaper(q, b, pkt, now_ns, true);

		flow->deficit -= (int32_t)len;
		charge_tin(q, b, len);
	}
	flow->dropped++;
	b->tin_dropped++;
	q->drops++;
	q->ops.drop(q->ctx, pkt, CAKE_DROP_CONGESTED);
}

/* Pull packets through COBALT until one may be delivered. The last packet of a flow is
 * always delivered, so a flow is never emptied by the AQM alone. */
static enum service_result service_flow(struct cake *q, struct cake_tin *b, struct cake_flow *flow,
					uint64_t now_ns, struct cake_pkt **out)
{
	uint32_t bulk = q->cfg.ingress ? b->bulk_flow_count : 0;

	for (;;) {
		struct cake_pkt *pkt = cake_dequeue_one(q, b, flow);
		enum cobalt_verdict v;
		uint64_t sojourn;

		if (!pkt) {
			flow_empty(q, b, flow, now_ns);
			return SERVICE_EMPTY;
		}
		sojourn = cake_tdiff(now_ns, pkt->enqueue_ns) > 0 ? now_ns - pkt->enqueue_ns : 0;
		v = cobalt_should_drop(&flow->cvars, &b->cparams, now_ns, sojourn, bulk,
				       pkt->ecn != 0, flow->cvars.p_drop ? cake_random_u32(q) : 0);
		if (v != COBALT_DROP || !flow->head) {
			*out = pkt;
			return SERVICE_PACKET;
		}
		drop_congested(q, b, flow, pkt, now_ns);
		if (q->cfg.ingress)
			return SERVICE_RESELECT;
	}
}

/* Bookkeeping for the packet that leaves: mark, counters, delays, shaper, deficits. */
static void deliver(struct cake *q, struct cake_tin *b, struct cake_flow *flow,
		    struct cake_pkt *pkt, uint64_t now_ns)
{
	uint64_t delay = cake_tdiff(now_ns, pkt->enqueue_ns) > 0 ? now_ns - pkt->enqueue_ns : 0;
	uint32_t len;

	if (flow->cvars.ecn_marked) {
		b->tin_ecn_mark++;
		pkt->ecn = ECN_CE;
		if (q->ops.set_ce)
			q->ops.set_ce(q->ctx, pkt);
	}
	q->sent_bytes += pkt->wire_len;
	q->sent_packets++;

	b->avge_delay = ewma(b->avge_delay, delay, DELAY_EWMA_SLOW);
	b->peak_delay = ewma(b->peak_delay, delay,
			     delay > b->peak_delay ? DELAY_EWMA_FAST : DELAY_EWMA_SLOW);
	b->base_delay = ewma(b->base_delay, delay,
			     delay < b->base_delay ? DELAY_EWMA_FAST : DELAY_EWMA_SLOW);

	len = cake_advance_shaper(q, b, pkt, now_ns, false);
	flow->deficit -= (int32_t)len;
	charge_tin(q, b, len);
	if (q->overflow_timeout)
		q->overflow_timeout--;
}

/* Serve one tin: returns a delivered packet, or NULL to start over from the shaper. */
static struct cake_pkt *service_tin(struct cake *q, struct cake_tin *b, uint64_t now_ns,
				    bool *first)
{
	for (;;) {
		struct cake_flow *flow = pick_flow(b, *first);
		struct cake_pkt *pkt = NULL;

		if (!flow)
			return NULL;
		*first = false;
		if (flow->deficit <= 0) {
			refill(q, b, flow);
			continue;
		}
		switch (service_flow(q, b, flow, now_ns, &pkt)) {
		case SERVICE_PACKET:
			deliver(q, b, flow, pkt, now_ns);
			return pkt;
		case SERVICE_EMPTY:
			return NULL;
		case SERVICE_RESELECT:
			break;
		}
	}
}

/* When to come back after handing out a packet. */
static uint64_t next_after_send(const struct cake *q, uint64_t now_ns)
{
	uint64_t next = now_ns;

	if (!q->qlen)
		return CAKE_TIME_NONE;
	shaper_blocked(q, now_ns, &next);
	return next;
}

struct cake_pkt *cake_dequeue(struct cake *q, uint64_t now_ns, uint64_t *next_ns)
{
	uint64_t next = CAKE_TIME_NONE;
	struct cake_pkt *pkt = NULL;
	bool first = true;

	if (q->qlen)
		forgive_lag(q, now_ns);
	while (!pkt) {
		struct cake_tin *b;

		if (!q->qlen) {
			next = CAKE_TIME_NONE;
			break;
		}
		if (shaper_blocked(q, now_ns, &next)) {
			q->overlimits++;
			break;
		}
		b = q->rate.rate_ns ? select_tin_shaped(q, now_ns) : select_tin_drr(q);
		if (!b) {
			next = CAKE_TIME_NONE;
			break;
		}
		pkt = service_tin(q, b, now_ns, &first);
		if (pkt)
			next = next_after_send(q, now_ns);
	}
	if (next_ns)
		*next_ns = next;
	return pkt;
}
