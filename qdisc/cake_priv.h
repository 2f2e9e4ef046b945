/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The inside of a CAKE instance, shared by the scheduler's own files (cake.c,
 * cake_hash.c, cake_overflow.c, cake_stats.c). Not an API: owners use qdisc/cake.h.
 */
#ifndef CAKEWG_QDISC_CAKE_PRIV_H
#define CAKEWG_QDISC_CAKE_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "qdisc/cake.h"
#include "qdisc/cobalt.h"
#include "qdisc/shaper.h"

/* A circular doubly linked list through the flows of a rotation. */
struct cake_list {
	struct cake_list *next;
	struct cake_list *prev;
};

static inline void cake_list_init(struct cake_list *l)
{
	l->next = l;
	l->prev = l;
}

static inline bool cake_list_empty(const struct cake_list *l)
{
	return l->next == l;
}

static inline void cake_list_unlink(struct cake_list *e)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
	cake_list_init(e);
}

static inline void cake_list_add_tail(struct cake_list *e, struct cake_list *head)
{
	e->prev = head->prev;
	e->next = head;
	head->prev->next = e;
	head->prev = e;
}

static inline void cake_list_move_tail(struct cake_list *e, struct cake_list *head)
{
	cake_list_unlink(e);
	cake_list_add_tail(e, head);
}

/* Which rotation a flow is in, and how the tin counts it. */
enum cake_flow_set {
	CAKE_SET_NONE = 0,
	CAKE_SET_SPARSE,
	CAKE_SET_SPARSE_WAIT, /* counted as sparse, actually in the bulk rotation */
	CAKE_SET_BULK,
	CAKE_SET_DECAYING, /* empty, but COBALT state not yet at rest */
};

/*
 * struct cake_flow - one of the 1024 queues of a tin
 * @head, @tail: the packets, linked through cake_pkt.next
 * @chain:       place in new_flows, old_flows or decaying_flows
 * @deficit:     DRR++ byte credit
 * @dropped:     packets dropped from this queue
 * @srchost, @dsthost: indices into the tin's host table (dual/triple modes)
 * @set:         enum cake_flow_set
 */
struct cake_flow {
	struct cake_pkt *head;
	struct cake_pkt *tail;
	struct cake_list chain;
	int32_t deficit;
	uint32_t dropped;
	struct cobalt_vars cvars;
	uint16_t srchost;
	uint16_t dsthost;
	uint8_t set;
	/* the isolation changed since the queue was attached to its hosts: it holds no
	 * host count, and its next packet attaches it again (cake_hash_rehost) */
	bool rehost;
};

/* Per-host state of the set-associative host table: tag and bulk-flow refcount. */
struct cake_host {
	uint32_t srchost_tag;
	uint32_t dsthost_tag;
	uint16_t srchost_bulk_flow_count;
	uint16_t dsthost_bulk_flow_count;
};

struct cake_tin {
	struct cake_flow flows[CAKE_QUEUES];
	uint32_t backlogs[CAKE_QUEUES];	    /* bytes queued per flow */
	uint32_t tags[CAKE_QUEUES];	    /* flow hash owning each queue */
	uint16_t overflow_idx[CAKE_QUEUES]; /* position of each flow in the overflow heap */
	struct cake_host hosts[CAKE_QUEUES];
	uint16_t flow_quantum;

	struct cobalt_params cparams;
	uint32_t drop_overlimit;
	uint16_t bulk_flow_count;
	uint16_t sparse_flow_count;
	uint16_t decaying_flow_count;
	uint16_t unresponsive_flow_count;
	uint32_t max_skblen;

	struct cake_list new_flows;
	struct cake_list old_flows;
	struct cake_list decaying_flows;

	/* the tin's own schedule at its threshold rate */
	uint64_t time_next_packet;
	uint64_t time_frac; /* sub-ns remainder of the schedule */
	struct cake_rate rate;

	uint16_t tin_quantum;
	int32_t tin_deficit;
	uint32_t tin_backlog;
	uint32_t tin_backlog_pkts;
	uint32_t tin_dropped;
	uint32_t tin_ecn_mark;
	uint32_t packets;
	uint64_t bytes;
	uint32_t ack_drops;

	/* EWMAs of sojourn time, ns */
	uint64_t avge_delay;
	uint64_t peak_delay;
	uint64_t base_delay;

	uint32_t way_directs;
	uint32_t way_hits;
	uint32_t way_misses;
	uint32_t way_collisions;
};

/* An overflow-heap entry names a flow: tin in the top bits, queue in the low 10. */
enum cake_heap_layout {
	CAKE_HEAP_QUEUE_BITS = 10,
	CAKE_HEAP_SIZE = CAKE_QUEUES * CAKE_MAX_TINS,
	CAKE_OVERFLOW_TIMEOUT = 65535, /* dequeues before the heap is left to go stale */
};

struct cake {
	struct cake_tin tins[CAKE_MAX_TINS];
	uint16_t overflow_heap[CAKE_HEAP_SIZE];
	uint16_t overflow_timeout;

	struct cake_ops ops;
	void *ctx;
	uint32_t mtu;
	uint32_t pkt_limit;
	uint32_t pkt_mem_overhead;

	struct cake_options cfg; /* every field in force; cfg.present unused */
	uint8_t tin_cnt;
	uint8_t cur_tin; /* the tin DRR serves when unlimited */
	const uint8_t *tin_index;
	const uint8_t *tin_order;
	uint32_t fwmark_shft;

	/* the global shaper */
	struct cake_rate rate;
	struct cake_framing framing;
	uint64_t time_next_packet;
	uint64_t time_frac;
	uint64_t failsafe_next_packet;

	/* memory */
	uint64_t buffer_used;
	uint64_t buffer_max_used;
	uint64_t buffer_limit;

	/* qdisc-level counters */
	uint32_t qlen;
	uint64_t backlog;
	uint64_t sent_bytes;
	uint64_t sent_packets;
	uint64_t shaped_bytes;	 /* adj_len charged to the shaper: sent, and ingress drops */
	uint32_t drops;
	uint32_t overlimits;
	uint64_t shaper_late;	 /* dequeues that found the schedule over the lag bound */
	uint64_t shaper_late_ns; /* the time forgiven by them */

	/* autorate-ingress capacity estimate */
	uint64_t last_packet_time;
	uint64_t avg_window_begin;
	uint64_t avg_packet_interval;
	uint64_t avg_window_bytes;
	uint64_t avg_peak_bandwidth;
	uint64_t last_reconfig_time;

	/* packet length statistics */
	uint32_t avg_netoff;
	uint32_t max_netlen;
	uint32_t max_adjlen;
	uint32_t min_netlen;
	uint32_t min_adjlen;

	uint64_t rng;
	uint16_t quantum_div[CAKE_QUEUES + 1]; /* 65535 / host load */
};

/* Mode predicates: dual-src and dual-dst include triple-isolate. */
static inline bool cake_dsrc(enum cake_flow_mode mode)
{
	return (mode & CAKE_FLOW_DUAL_SRC) == CAKE_FLOW_DUAL_SRC;
}

static inline bool cake_ddst(enum cake_flow_mode mode)
{
	return (mode & CAKE_FLOW_DUAL_DST) == CAKE_FLOW_DUAL_DST;
}

/* The instance's generator (xorshift64*): BLUE draws and quantum dithering. */
static inline uint32_t cake_random_u32(struct cake *q)
{
	uint64_t x = q->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	q->rng = x;
	return (uint32_t)((x * UINT64_C(0x2545f4914f6cdd1d)) >> 32);
}

/* Bounded host refcounts: a stale mode change must never wrap them (kernel 2025 fix). */
void cake_host_bulk_inc(struct cake_tin *b, const struct cake_flow *flow, enum cake_flow_mode mode);
void cake_host_bulk_dec(struct cake_tin *b, const struct cake_flow *flow, enum cake_flow_mode mode);

/* Signed distance a - b between two monotonic times. */
static inline int64_t cake_tdiff(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b);
}

/* Memory a queued packet is charged against the limit: the buffer that holds it, as the
 * owner states it, else an estimate from its size. */
static inline uint64_t cake_truesize(const struct cake *q, const struct cake_pkt *pkt)
{
	if (pkt->truesize)
		return pkt->truesize;
	return (uint64_t)pkt->wire_len + q->pkt_mem_overhead;
}

/* cake.c: charge a sent or dropped packet to the tin's and the global schedule;
 * returns its adjusted length. */
uint32_t cake_advance_shaper(struct cake *q, struct cake_tin *b, const struct cake_pkt *pkt,
			     uint64_t now_ns, bool drop);

/* cake.c: the flow's DRR quantum, scaled down by its hosts' bulk-flow load and dithered. */
int32_t cake_flow_quantum(struct cake *q, struct cake_tin *b, const struct cake_flow *flow);

/* cake_dequeue.c: take the head packet of a flow, with all the backlog accounting. */
struct cake_pkt *cake_dequeue_one(struct cake *q, struct cake_tin *b, struct cake_flow *flow);

/* cake_hash.c: the queue of a packet in tin b, allocating host slots as needed. */
void cake_hash_rehost(struct cake_tin *b);
uint32_t cake_hash_classify(struct cake_tin *b, const struct cake_pkt *pkt,
			    enum cake_flow_mode mode);

/* cake_overflow.c: the overflow max-heap over every flow's backlog. */
void cake_heap_init(struct cake *q);
void cake_heap_rebuild(struct cake *q);
void cake_heap_sift_down(struct cake *q, uint16_t i);
void cake_heap_sift_up(struct cake *q, uint16_t i);
uint16_t cake_heap_top(const struct cake *q);

#endif
