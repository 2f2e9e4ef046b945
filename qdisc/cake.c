/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * CAKE: lifetime, configuration (tc semantics), and the enqueue side. The dequeue side
 * is in cake_dequeue.c, classification in cake_hash.c, the overflow heap in
 * cake_overflow.c and statistics in cake_stats.c.
 */
#include "qdisc/cake.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc/cake_priv.h"
#include "qdisc/diffserv.h"

enum {
	ALL_OPTIONS = (CAKE_OPT_PEER_ISOLATION << 1) - 1,
	EWMA_SLOW_SHIFT = 8,
	EWMA_FAST_SHIFT = 2,
	NETLEN_UNSEEN = 0xffff, /* the kernel's u16 minimum before any packet */
	SPLIT_FAILED = -1,
	/* A bogus wire_len must not overflow the 32-bit deficits or the shaper's
	 * arithmetic: one packet is charged at most this much (a 64 KiB super-packet of
	 * ATM cells is well below it). */
	CAKE_MAX_ADJ_LEN_BYTES = 1 << 24,
};

static uint64_t ewma(uint64_t avg, uint64_t sample, unsigned int shift)
{
	avg -= avg >> shift;
	avg += sample >> shift;
	return avg;
}

static void default_options(struct cake_options *o)
{
	memset(o, 0, sizeof(*o));
	o->rtt_us = CAKE_CFG_DEFAULT_RTT_US;
	o->target_us = CAKE_CFG_DEFAULT_TARGET_US;
	o->diffserv = CAKE_DIFFSERV_DIFFSERV3;
	o->flow_mode = CAKE_FLOW_TRIPLE;
	o->split_gso = true;
	o->raw = true;
}

static void reset_len_stats(struct cake *q)
{
	q->max_netlen = 0;
	q->max_adjlen = 0;
	q->min_netlen = NETLEN_UNSEEN;
	q->min_adjlen = NETLEN_UNSEEN;
}

static void init_tin(struct cake_tin *b)
{
	unsigned int j;

	cake_list_init(&b->new_flows);
	cake_list_init(&b->old_flows);
	cake_list_init(&b->decaying_flows);
	for (j = 0; j < CAKE_QUEUES; j++) {
		cake_list_init(&b->flows[j].chain);
		cobalt_vars_init(&b->flows[j].cvars);
	}
}

/*
 * Hand back every packet of a tin and return its flows to rest. The kernel leaves the
 * rotations of a cleared tin as they were; resetting them keeps the counts honest if
 * the tin comes back in a later mode.
 */
static void clear_tin(struct cake *q, struct cake_tin *b, enum cake_drop_reason reason)
{
	unsigned int j;

	for (j = 0; j < CAKE_QUEUES; j++) {
		struct cake_flow *flow = &b->flows[j];
		struct cake_pkt *pkt;

		while ((pkt = cake_dequeue_one(q, b, flow)))
			q->ops.drop(q->ctx, pkt, reason);
		cake_list_init(&flow->chain);
		cobalt_vars_init(&flow->cvars);
		flow->set = CAKE_SET_NONE;
		flow->rehost = false;
		flow->deficit = 0;
		b->hosts[j].srchost_bulk_flow_count = 0;
		b->hosts[j].dsthost_bulk_flow_count = 0;
	}
	cake_list_init(&b->new_flows);
	cake_list_init(&b->old_flows);
	cake_list_init(&b->decaying_flows);
	b->sparse_flow_count = 0;
	b->bulk_flow_count = 0;
	b->decaying_flow_count = 0;
	b->unresponsive_flow_count = 0;
	b->tin_deficit = 0;
}

/*
 * Rate-dependent parameters of one tin (the kernel's cake_set_rate): the flow quantum
 * follows the rate, and at low rates target and interval grow so that an MTU or two
 * can be in flight without being signalled.
 */
static void set_tin_rate(struct cake_tin *b, uint64_t rate, uint32_t mtu, uint64_t target_ns,
			 uint64_t rtt_ns)
{
	uint64_t mtu_ns;

	b->flow_quantum = CAKE_MAX_FLOW_QUANTUM_BYTES;
	if (rate) {
		uint64_t fq = rate >> CAKE_FLOW_QUANTUM_RATE_SHIFT;

		if (fq > CAKE_MAX_FLOW_QUANTUM_BYTES)
			fq = CAKE_MAX_FLOW_QUANTUM_BYTES;
		if (fq < CAKE_MIN_FLOW_QUANTUM_BYTES)
			fq = CAKE_MIN_FLOW_QUANTUM_BYTES;
		b->flow_quantum = (uint16_t)fq;
	}
	cake_rate_set(&b->rate, rate);
	b->time_frac = 0;
	mtu_ns = cake_rate_duration_ns(&b->rate, mtu);

	b->cparams.target_ns = mtu_ns * 3 / 2 > target_ns ? mtu_ns * 3 / 2 : target_ns;
	b->cparams.interval_ns = rtt_ns + b->cparams.target_ns - target_ns;
	if (b->cparams.interval_ns < 2 * b->cparams.target_ns)
		b->cparams.interval_ns = 2 * b->cparams.target_ns;
	b->cparams.mtu_time_ns = mtu_ns;
	cobalt_params_blue_defaults(&b->cparams);
}

/* The kernel's default memory limit, then the packet-limit cap. */
static uint64_t memory_limit(const struct cake *q)
{
	uint64_t limit, cap;

	if (q->cfg.memlimit_bytes) {
		limit = q->cfg.memlimit_bytes;
	} else if (q->cfg.rate_bytes_per_sec) {
		limit = cake_mul_div_sat(q->cfg.rate_bytes_per_sec, q->cfg.rtt_us,
					 CAKE_NS_PER_SEC / CAKE_NS_PER_US / CAKE_MEMLIMIT_INTERVALS);
		if (limit < CAKE_MEMLIMIT_MIN_BYTES)
			limit = CAKE_MEMLIMIT_MIN_BYTES;
	} else {
		limit = UINT32_MAX;
	}
	cap = (uint64_t)q->pkt_limit * q->mtu;
	if (cap < q->cfg.memlimit_bytes)
		cap = q->cfg.memlimit_bytes;
	return limit < cap ? limit : cap;
}

/* Derive everything from q->cfg (the kernel's cake_reconfigure). */
static void reconfigure(struct cake *q)
{
	enum cake_diffserv_mode mode = q->cfg.diffserv;
	uint64_t target_ns = (uint64_t)q->cfg.target_us * CAKE_NS_PER_US;
	uint64_t rtt_ns = (uint64_t)q->cfg.rtt_us * CAKE_NS_PER_US;
	unsigned int t;

	q->tin_cnt = (uint8_t)cake_diffserv_tin_count(mode);
	q->tin_index = cake_diffserv_table(mode);
	q->tin_order = cake_diffserv_order(mode);
	for (t = 0; t < q->tin_cnt; t++) {
		struct cake_tin *b = &q->tins[t];

		set_tin_rate(b, cake_diffserv_tin_rate(mode, t, q->cfg.rate_bytes_per_sec), q->mtu,
			     target_ns, rtt_ns);
		b->tin_quantum = cake_diffserv_tin_quantum(mode, t);
	}
	for (; t < CAKE_MAX_TINS; t++) {
		if (q->tins[t].tin_backlog_pkts || !cake_list_empty(&q->tins[t].old_flows) ||
		    !cake_list_empty(&q->tins[t].new_flows) ||
		    !cake_list_empty(&q->tins[t].decaying_flows))
			clear_tin(q, &q->tins[t], CAKE_DROP_RECONFIG);
		q->tins[t].cparams.mtu_time_ns = q->tins[0].cparams.mtu_time_ns;
	}
	if (q->cur_tin >= q->tin_cnt)
		q->cur_tin = 0;

	cake_rate_set(&q->rate, q->cfg.rate_bytes_per_sec);
	q->time_frac = 0;
	q->framing.overhead = q->cfg.overhead;
	q->framing.mpu = q->cfg.mpu;
	q->framing.atm = q->cfg.atm;
	q->fwmark_shft = q->cfg.fwmark_mask ? (uint32_t)__builtin_ctz(q->cfg.fwmark_mask) : 0;
	q->buffer_limit = memory_limit(q);
}

int cake_options_check(const struct cake_options *o)
{
	uint32_t p = o->present;

	if ((p & CAKE_OPT_DIFFSERV) && !cake_diffserv_tin_count(o->diffserv))
		return -EINVAL;
	if ((p & CAKE_OPT_FLOW_MODE) && (unsigned int)o->flow_mode > CAKE_FLOW_MODE_MASK)
		return -EINVAL;
	if ((p & CAKE_OPT_ACK_FILTER) && (unsigned int)o->ack_filter > CAKE_ACK_AGGRESSIVE)
		return -EINVAL;
	if ((p & CAKE_OPT_ATM) && (unsigned int)o->atm > CAKE_ATM_PTM)
		return -EINVAL;
	if ((p & CAKE_OPT_OVERHEAD) && (o->overhead < CAKE_CFG_OVERHEAD_MIN_BYTES ||
					o->overhead > CAKE_CFG_OVERHEAD_MAX_BYTES))
		return -EINVAL;
	if ((p & CAKE_OPT_MPU) && o->mpu > CAKE_CFG_MPU_MAX_BYTES)
		return -EINVAL;
	if ((p & CAKE_OPT_MEMLIMIT) && o->memlimit_bytes > UINT32_MAX)
		return -EINVAL;
	return 0;
}

/* Copy the present fields into the configuration (the kernel's cake_change). */
static void apply(struct cake *q, const struct cake_options *o)
{
	struct cake_options *c = &q->cfg;
	uint32_t p = o->present;
	bool rehost = ((p & CAKE_OPT_FLOW_MODE) && o->flow_mode != c->flow_mode) ||
		      ((p & CAKE_OPT_PEER_ISOLATION) && o->peer_isolation != c->peer_isolation);

	if (rehost)
		for (unsigned int t = 0; t < CAKE_MAX_TINS; t++)
			cake_hash_rehost(&q->tins[t]);
	if (p & CAKE_OPT_RATE)
		c->rate_bytes_per_sec = o->rate_bytes_per_sec;
	if (p & CAKE_OPT_AUTORATE)
		c->autorate_ingress = o->autorate_ingress;
	if (p & CAKE_OPT_RTT) {
		c->rtt_us = o->rtt_us ? o->rtt_us : 1;
		c->target_us = o->target_us ? o->target_us : 1;
	}
	if (p & CAKE_OPT_DIFFSERV)
		c->diffserv = o->diffserv;
	if (p & CAKE_OPT_FLOW_MODE)
		c->flow_mode = o->flow_mode;
	if (p & CAKE_OPT_NAT)
		c->nat = o->nat;
	if (p & CAKE_OPT_WASH)
		c->wash = o->wash;
	if (p & CAKE_OPT_INGRESS)
		c->ingress = o->ingress;
	if (p & CAKE_OPT_ACK_FILTER)
		c->ack_filter = o->ack_filter;
	if (p & CAKE_OPT_SPLIT_GSO)
		c->split_gso = o->split_gso;
	if (p & CAKE_OPT_OVERHEAD) {
		c->overhead = o->overhead;
		c->raw = o->raw;
		reset_len_stats(q);
	}
	if (p & CAKE_OPT_MPU)
		c->mpu = o->mpu;
	if (p & CAKE_OPT_ATM)
		c->atm = o->atm;
	if (p & CAKE_OPT_MEMLIMIT)
		c->memlimit_bytes = o->memlimit_bytes;
	if (p & CAKE_OPT_FWMARK)
		c->fwmark_mask = o->fwmark_mask;
	if (p & CAKE_OPT_PEER_ISOLATION)
		c->peer_isolation = o->peer_isolation;
}

int cake_configure(struct cake *q, const struct cake_options *opts, uint64_t now_ns)
{
	int err = cake_options_check(opts);

	(void)now_ns;
	if (err)
		return err;
	apply(q, opts);
	reconfigure(q);
	return 0;
}

void cake_set_mtu(struct cake *q, uint32_t mtu_bytes)
{
	q->mtu = mtu_bytes ? mtu_bytes : CAKE_DEFAULT_MTU_BYTES;
	reconfigure(q);
}

uint32_t cake_mtu(const struct cake *q)
{
	return q->mtu;
}

struct cake *cake_new(const struct cake_params *params, const struct cake_options *opts,
		      uint64_t now_ns)
{
	struct cake *q;
	unsigned int i;

	if (!params || !params->ops || !params->ops->drop || (opts && cake_options_check(opts)))
		return NULL;
	q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	q->ops = *params->ops;
	q->ctx = params->ctx;
	q->mtu = params->mtu_bytes ? params->mtu_bytes : CAKE_DEFAULT_MTU_BYTES;
	q->pkt_limit = params->pkt_limit ? params->pkt_limit : CAKE_DEFAULT_PKT_LIMIT;
	q->pkt_mem_overhead = params->pkt_mem_overhead_bytes;
	q->rng = params->seed ? params->seed : UINT64_C(0x9e3779b97f4a7c15);
	q->quantum_div[0] = UINT16_MAX;
	for (i = 1; i <= CAKE_QUEUES; i++)
		q->quantum_div[i] = (uint16_t)(UINT16_MAX / i);
	for (i = 0; i < CAKE_MAX_TINS; i++)
		init_tin(&q->tins[i]);
	cake_heap_init(q);
	default_options(&q->cfg);
	if (opts)
		apply(q, opts);
	reconfigure(q);
	q->avg_peak_bandwidth = q->cfg.rate_bytes_per_sec;
	q->last_packet_time = now_ns;
	q->avg_window_begin = now_ns;
	q->last_reconfig_time = now_ns;
	reset_len_stats(q);
	return q;
}

void cake_reset(struct cake *q)
{
	unsigned int t;

	for (t = 0; t < CAKE_MAX_TINS; t++)
		clear_tin(q, &q->tins[t], CAKE_DROP_FLUSH);
	q->overflow_timeout = 0;
}

void cake_free(struct cake *q)
{
	if (!q)
		return;
	cake_reset(q);
	free(q);
}

void cake_get_options(const struct cake *q, struct cake_options *out)
{
	*out = q->cfg;
	out->present = ALL_OPTIONS;
}

uint64_t cake_backlog_bytes(const struct cake *q)
{
	return q->backlog;
}

uint64_t cake_shaped_bytes(const struct cake *q)
{
	return q->shaped_bytes;
}

uint32_t cake_backlog_packets(const struct cake *q)
{
	return q->qlen;
}

uint64_t cake_backlog_time_ns(const struct cake *q)
{
	uint64_t bytes = q->backlog > UINT32_MAX ? UINT32_MAX : q->backlog;

	return cake_rate_duration_ns(&q->rate, (uint32_t)bytes);
}

bool cake_sparse_waiting(const struct cake *q)
{
	for (unsigned int t = 0; t < q->tin_cnt; t++) {
		const struct cake_tin *b = &q->tins[t];

		for (const struct cake_list *l = b->new_flows.next; l != &b->new_flows;
		     l = l->next) {
			const struct cake_flow *flow =
				cake_container_of(l, struct cake_flow, chain);
			size_t idx = (size_t)(flow - b->flows);

			/* A new flow is sparse if its deficit covers what it holds; a bulk flow
			 * is new only for its first quantum. */
			if (flow->head && (int64_t)b->backlogs[idx] <= flow->deficit)
				return true;
		}
	}
	return false;
}

uint32_t cake_memory_used(const struct cake *q)
{
	return q->buffer_used > UINT32_MAX ? UINT32_MAX : (uint32_t)q->buffer_used;
}

uint32_t cake_memory_limit(const struct cake *q)
{
	return q->buffer_limit > UINT32_MAX ? UINT32_MAX : (uint32_t)q->buffer_limit;
}

/* ---- shared with the dequeue side ---- */

int32_t cake_flow_quantum(struct cake *q, struct cake_tin *b, const struct cake_flow *flow)
{
	enum cake_flow_mode mode = q->cfg.flow_mode;
	uint32_t load = 1;

	if (cake_dsrc(mode) && b->hosts[flow->srchost].srchost_bulk_flow_count > load)
		load = b->hosts[flow->srchost].srchost_bulk_flow_count;
	if (cake_ddst(mode) && b->hosts[flow->dsthost].dsthost_bulk_flow_count > load)
		load = b->hosts[flow->dsthost].dsthost_bulk_flow_count;
	/* a random 16-bit dither keeps the rounding errors from adding up */
	return (int32_t)(((uint32_t)b->flow_quantum * q->quantum_div[load] +
			  (cake_random_u32(q) >> 16)) >>
			 16);
}

uint32_t cake_advance_shaper(struct cake *q, struct cake_tin *b, const struct cake_pkt *pkt,
			     uint64_t now_ns, bool drop)
{
	uint32_t len = pkt->adj_len;

	q->shaped_bytes += len;
	if (q->rate.rate_ns) {
		uint64_t tin_dur = cake_rate_advance_ns(&b->rate, &b->time_frac, len);
		uint64_t global_dur = cake_rate_advance_ns(&q->rate, &q->time_frac, len);

		if (cake_tdiff(b->time_next_packet, now_ns) < 0)
			b->time_next_packet += tin_dur;
		else if (cake_tdiff(b->time_next_packet, now_ns + tin_dur) < 0)
			b->time_next_packet = now_ns + tin_dur;
		q->time_next_packet += global_dur;
		/* the failsafe runs at 2/3 rate and ignores drops, so ingress-mode drops
		 * cannot stall the queue */
		if (!drop)
			q->failsafe_next_packet += global_dur + (global_dur >> 1);
	}
	return len;
}

/* ---- enqueue ---- */

static uint32_t charge_len(struct cake *q, uint32_t net_len)
{
	uint32_t adj;

	if (net_len > q->max_netlen)
		q->max_netlen = net_len;
	if (net_len < q->min_netlen)
		q->min_netlen = net_len;
	adj = cake_framing_adjust(&q->framing, net_len);
	if (adj > q->max_adjlen)
		q->max_adjlen = adj;
	if (adj < q->min_adjlen)
		q->min_adjlen = adj;
	return adj;
}

/*
 * The shaper's length of a packet. A GSO super-packet that stays whole is charged as
 * the segments it will become: gso_segs - 1 full segments and a last one, each with its
 * own compensation. wire_len is their sum; the encapsulation bytes are spread evenly.
 */
static uint32_t packet_adj_len(struct cake *q, const struct cake_pkt *pkt)
{
	uint64_t segs = pkt->gso_segs, hdr, inner, extra, full, last, adj;

	q->avg_netoff = (uint32_t)ewma(q->avg_netoff, 0, EWMA_SLOW_SHIFT);
	if (!pkt->gso_size || segs <= 1) {
		adj = charge_len(q, pkt->wire_len);
		return adj > CAKE_MAX_ADJ_LEN_BYTES ? CAKE_MAX_ADJ_LEN_BYTES : (uint32_t)adj;
	}

	hdr = (uint64_t)pkt->l4_offset + pkt->l4_hdr_len;
	inner = (uint64_t)pkt->len + hdr * (segs - 1);
	extra = pkt->wire_len > inner ? (pkt->wire_len - inner) / segs : 0;
	full = hdr + pkt->gso_size + extra;
	if (full * (segs - 1) >= pkt->wire_len)
		full = pkt->wire_len / segs;
	last = pkt->wire_len - full * (segs - 1);
	adj = (uint64_t)charge_len(q, (uint32_t)full) * (segs - 1) + charge_len(q, (uint32_t)last);
	return adj > CAKE_MAX_ADJ_LEN_BYTES ? CAKE_MAX_ADJ_LEN_BYTES : (uint32_t)adj;
}

/* Tin from fwmark, else from DSCP; wash clears the DSCP once it has been read. */
static struct cake_tin *select_tin(struct cake *q, struct cake_pkt *pkt)
{
	uint32_t mark = (pkt->mark & q->cfg.fwmark_mask) >> q->fwmark_shft;
	uint8_t dscp = pkt->dscp & (CAKE_DSCP_COUNT - 1);
	unsigned int tin;

	if (q->cfg.wash && dscp) {
		pkt->dscp = 0;
		if (q->ops.wash)
			q->ops.wash(q->ctx, pkt);
	}
	if (q->cfg.diffserv == CAKE_DIFFSERV_BESTEFFORT)
		tin = 0;
	else if (mark && mark <= q->tin_cnt)
		tin = q->tin_order[mark - 1];
	else
		tin = q->tin_index[dscp];
	if (tin >= q->tin_cnt)
		tin = 0;
	return &q->tins[tin];
}

/* An idle qdisc must not bank credit: restart the schedules from now. */
static void refresh_shaper(struct cake *q, struct cake_tin *b, uint64_t now_ns)
{
	if (b->tin_backlog_pkts)
		return;
	if (cake_tdiff(b->time_next_packet, now_ns) < 0)
		b->time_next_packet = now_ns;
	if (q->qlen)
		return;
	if (cake_tdiff(q->time_next_packet, now_ns) < 0) {
		q->failsafe_next_packet = now_ns;
		q->time_next_packet = now_ns;
	} else if (cake_tdiff(q->time_next_packet, now_ns) > 0 &&
		   cake_tdiff(q->failsafe_next_packet, now_ns) > 0) {
		q->overlimits++;
	}
}

static void flow_add(struct cake_flow *flow, struct cake_pkt *pkt)
{
	pkt->next = NULL;
	if (!flow->head)
		flow->head = pkt;
	else
		flow->tail->next = pkt;
	flow->tail = pkt;
}

/* Take the packet the ACK filter chose out of the queue; false if it is not there. */
static bool unlink_pkt(struct cake_flow *flow, struct cake_pkt *victim)
{
	struct cake_pkt *prev = NULL, *p;

	if (victim == flow->tail)
		return false;
	for (p = flow->head; p && p != victim; p = p->next)
		prev = p;
	if (!p)
		return false;
	if (prev)
		prev->next = p->next;
	else
		flow->head = p->next;
	p->next = NULL;
	return true;
}

static void account_added(struct cake *q, struct cake_tin *b, uint32_t idx, uint64_t bytes,
			  uint32_t pkts)
{
	b->bytes += bytes;
	b->backlogs[idx] += (uint32_t)bytes;
	b->tin_backlog += (uint32_t)bytes;
	b->tin_backlog_pkts += pkts;
	q->backlog += bytes;
	q->qlen += pkts;
	q->avg_window_bytes += bytes;
}

/* The redundant ACK leaves: counted as an ACK drop, never sent. */
static void drop_filtered_ack(struct cake *q, struct cake_tin *b, struct cake_pkt *ack,
			      uint64_t now_ns)
{
	b->ack_drops++;
	q->drops++;
	if (q->cfg.ingress)
		cake_advance_shaper(q, b, ack, now_ns, true);
	q->ops.drop(q->ctx, ack, CAKE_DROP_ACK_FILTER);
}

static void enqueue_whole(struct cake *q, struct cake_tin *b, uint32_t idx, struct cake_pkt *pkt,
			  uint64_t now_ns)
{
	struct cake_flow *flow = &b->flows[idx];
	struct cake_pkt *ack = NULL;

	pkt->enqueue_ns = now_ns;
	pkt->adj_len = packet_adj_len(q, pkt);
	flow_add(flow, pkt);
	q->buffer_used += cake_truesize(q, pkt);
	b->packets++;
	account_added(q, b, idx, pkt->wire_len, 1);

	if (q->cfg.ack_filter != CAKE_ACK_NONE && q->ops.ack_filter && flow->head != pkt)
		ack = q->ops.ack_filter(q->ctx, flow->head, pkt, q->cfg.ack_filter);
	if (ack && unlink_pkt(flow, ack)) {
		b->backlogs[idx] -= ack->wire_len;
		b->tin_backlog -= ack->wire_len;
		b->tin_backlog_pkts--;
		q->backlog -= ack->wire_len;
		q->qlen--;
		q->avg_window_bytes -=
			ack->wire_len < q->avg_window_bytes ? ack->wire_len : q->avg_window_bytes;
		q->buffer_used -= cake_truesize(q, ack);
		drop_filtered_ack(q, b, ack, now_ns);
	}
}

/* Returns the number of segments queued, or SPLIT_FAILED (pkt handed back). */
static int enqueue_split(struct cake *q, struct cake_tin *b, uint32_t idx, struct cake_pkt *pkt,
			 uint64_t now_ns)
{
	struct cake_flow *flow = &b->flows[idx];
	struct cake_pkt *seg = q->ops.split_gso(q->ctx, pkt), *next;
	uint64_t bytes = 0;
	uint32_t n = 0;

	if (!seg) {
		q->drops++;
		q->ops.drop(q->ctx, pkt, CAKE_DROP_GSO_FAILED);
		return SPLIT_FAILED;
	}
	for (; seg; seg = next) {
		next = seg->next;
		seg->enqueue_ns = now_ns;
		seg->adj_len = packet_adj_len(q, seg);
		flow_add(flow, seg);
		q->buffer_used += cake_truesize(q, seg);
		bytes += seg->wire_len;
		n++;
	}
	b->packets += n;
	account_added(q, b, idx, bytes, n);
	return (int)n;
}

/*
 * autorate-ingress: estimate the capacity from arrival bursts. A gap longer than the
 * (fast-rising, slow-falling) average gap closes a window; its byte rate feeds the
 * peak estimate, and the shaper follows at 15/16 of it, at most every 250 ms.
 */
static void autorate_sample(struct cake *q, uint64_t now_ns)
{
	const uint64_t max_gap = CAKE_AUTORATE_MAX_GAP_MS * CAKE_NS_PER_MS;
	uint64_t gap, window, bw;

	if (!q->cfg.autorate_ingress) {
		q->avg_window_bytes = 0;
		q->last_packet_time = now_ns;
		return;
	}
	gap = cake_tdiff(now_ns, q->last_packet_time) > 0 ? now_ns - q->last_packet_time : 0;
	if (gap > max_gap)
		gap = max_gap;
	q->avg_packet_interval =
		ewma(q->avg_packet_interval, gap,
		     gap > q->avg_packet_interval ? EWMA_FAST_SHIFT : EWMA_SLOW_SHIFT);
	q->last_packet_time = now_ns;
	if (gap <= q->avg_packet_interval)
		return;

	window = now_ns - q->avg_window_begin;
	if (!window)
		return;
	bw = cake_mul_div_sat(q->avg_window_bytes, CAKE_NS_PER_SEC, window);
	q->avg_peak_bandwidth =
		ewma(q->avg_peak_bandwidth, bw,
		     bw > q->avg_peak_bandwidth ? EWMA_FAST_SHIFT : EWMA_SLOW_SHIFT);
	q->avg_window_bytes = 0;
	q->avg_window_begin = now_ns;

	/* The kernel never updates last_reconfig_time; the 250 ms spacing it intends is
	 * kept here. */
	if (cake_tdiff(now_ns, q->last_reconfig_time + CAKE_AUTORATE_RECONFIG_MS * CAKE_NS_PER_MS) >
	    0) {
		q->cfg.rate_bytes_per_sec =
			(q->avg_peak_bandwidth * CAKE_AUTORATE_NUM) >> CAKE_AUTORATE_SHIFT;
		q->last_reconfig_time = now_ns;
		reconfigure(q);
	}
}

/* Put a flow that just got a packet into the right rotation. */
static void flow_activate(struct cake *q, struct cake_tin *b, struct cake_flow *flow)
{
	if (flow->set == CAKE_SET_NONE || flow->set == CAKE_SET_DECAYING) {
		if (flow->set == CAKE_SET_DECAYING)
			b->decaying_flow_count--;
		cake_list_unlink(&flow->chain);
		cake_list_add_tail(&flow->chain, &b->new_flows);
		flow->set = CAKE_SET_SPARSE;
		b->sparse_flow_count++;
		flow->deficit = cake_flow_quantum(q, b, flow);
	} else if (flow->set == CAKE_SET_SPARSE_WAIT) {
		/* counted as sparse while empty, but it sits in the bulk rotation */
		flow->set = CAKE_SET_BULK;
		b->sparse_flow_count--;
		b->bulk_flow_count++;
		cake_host_bulk_inc(b, flow, q->cfg.flow_mode);
	}
}

/*
 * Over the memory limit: drop the head of the fattest flow (the kernel's cake_drop).
 * Returns the heap entry of the flow pruned, or false in *ok if the heap had nothing.
 */
static uint16_t prune_fattest(struct cake *q, uint64_t now_ns, bool *ok)
{
	uint16_t e, idx;
	struct cake_tin *b;
	struct cake_flow *flow;
	struct cake_pkt *pkt;

	if (!q->overflow_timeout)
		cake_heap_rebuild(q);
	q->overflow_timeout = CAKE_OVERFLOW_TIMEOUT;
	e = cake_heap_top(q);
	b = &q->tins[e >> CAKE_HEAP_QUEUE_BITS];
	idx = e & (CAKE_QUEUES - 1);
	flow = &b->flows[idx];
	pkt = cake_dequeue_one(q, b, flow);
	*ok = pkt != NULL;
	if (!pkt) {
		q->overflow_timeout = 0; /* the heap went wrong: rebuild it next time */
		return e;
	}
	if (cobalt_queue_full(&flow->cvars, &b->cparams, now_ns))
		b->unresponsive_flow_count++;
	flow->dropped++;
	b->tin_dropped++;
	q->drops++;
	if (q->cfg.ingress)
		cake_advance_shaper(q, b, pkt, now_ns, true);
	q->ops.drop(q->ctx, pkt, CAKE_DROP_OVERLIMIT);
	return e;
}

static enum cake_enqueue_result enforce_memlimit(struct cake *q, struct cake_tin *b, uint32_t idx,
						 uint64_t now_ns)
{
	uint16_t self = (uint16_t)(((b - q->tins) << CAKE_HEAP_QUEUE_BITS) | idx);
	bool same_flow = false, ok = true;
	unsigned int failures = 0;

	while (q->buffer_used > q->buffer_limit && failures < 2) {
		uint16_t e = prune_fattest(q, now_ns, &ok);

		if (!ok) {
			failures++;
			continue;
		}
		b->drop_overlimit++;
		same_flow |= e == self;
	}
	if (q->buffer_used > q->buffer_max_used)
		q->buffer_max_used = q->buffer_used;
	return same_flow ? CAKE_ENQ_CONGESTED : CAKE_ENQ_QUEUED;
}

enum cake_enqueue_result cake_enqueue(struct cake *q, struct cake_pkt *pkt, uint64_t now_ns)
{
	struct cake_tin *b = select_tin(q, pkt);
	uint32_t idx = cake_hash_classify(b, pkt, q->cfg.flow_mode);

	refresh_shaper(q, b, now_ns);
	if (pkt->wire_len > b->max_skblen)
		b->max_skblen = pkt->wire_len;

	if (q->cfg.split_gso && pkt->gso_segs > 1 && q->ops.split_gso) {
		if (enqueue_split(q, b, idx, pkt, now_ns) == SPLIT_FAILED)
			return CAKE_ENQ_DROPPED;
	} else {
		enqueue_whole(q, b, idx, pkt, now_ns);
	}
	if (q->overflow_timeout)
		cake_heap_sift_up(q, b->overflow_idx[idx]);

	autorate_sample(q, now_ns);
	flow_activate(q, b, &b->flows[idx]);
	return enforce_memlimit(q, b, idx, now_ns);
}
