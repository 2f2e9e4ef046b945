/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * CAKE (Common Applications Kept Enhanced), the behaviour of Linux sch_cake as a pure
 * library: a deficit-mode shaper with link-layer compensation, Diffserv tins with
 * priority thresholds, per-tin DRR++ over 1024 set-associative flow queues with host
 * isolation, and COBALT (CoDel + BLUE) on every queue.
 *
 * Pure and single-threaded: nothing here reads a clock, allocates on the packet path,
 * does I/O or keeps global state. Every entry point takes `now_ns`, a monotonic
 * nanosecond count. Randomness (BLUE, quantum dithering) comes from a generator inside
 * the instance, seeded by the owner.
 *
 * Packets: the owner fills struct cake_pkt (qdisc/pkt.h) and hands it over with
 * cake_enqueue(); from then on the qdisc owns it until it comes back from
 * cake_dequeue() or through ops->drop(). The qdisc never frees a packet.
 *
 * Lengths: the shaper charges pkt->wire_len (what the underlay carries, as the owner
 * counts it) after overhead/mpu/atm/ptm compensation; backlog, byte counters and the
 * memory limit use wire_len too. There is no link-layer header to strip, so `raw` and
 * an explicit overhead differ only in the overhead added.
 */
#ifndef CAKEWG_QDISC_CAKE_H
#define CAKEWG_QDISC_CAKE_H

#include <stdbool.h>
#include <stdint.h>

#include "qdisc/cake_compiler.h"
#include "qdisc/cake_options.h"
#include "qdisc/cake_stats.h"
#include "qdisc/pkt.h"

/* CAKE's facts (net/sched/sch_cake.c, tc-cake(8)). */
enum cake_geometry {
	CAKE_QUEUES = 1024, /* flow queues per tin, and host slots per tin */
	CAKE_SET_WAYS = 8,  /* set-associative hashing: 8 queues per set */
	CAKE_MAX_TINS = CAKE_STATS_MAX_TINS,
	CAKE_DEFAULT_PKT_LIMIT = 10240, /* sch->limit: caps memory at limit * MTU */
	CAKE_DEFAULT_MTU_BYTES = 1500,	/* the largest wire_len the owner sends */
	CAKE_MIN_FLOW_QUANTUM_BYTES = 300,
	CAKE_MAX_FLOW_QUANTUM_BYTES = 1514, /* also the quantum when unlimited */
	CAKE_FLOW_QUANTUM_RATE_SHIFT = 12,  /* flow quantum = rate / 4096 before clamping */
};

enum cake_config_limits {
	CAKE_CFG_OVERHEAD_MIN_BYTES = -64,
	CAKE_CFG_OVERHEAD_MAX_BYTES = 256,
	CAKE_CFG_MPU_MAX_BYTES = 256,
	CAKE_CFG_DEFAULT_RTT_US = 100000,  /* "internet" */
	CAKE_CFG_DEFAULT_TARGET_US = 5000, /* rtt / 20 */
	/* default memlimit: 4 x rate x interval, at least 4 MiB */
	CAKE_MEMLIMIT_INTERVALS = 4,
	CAKE_MEMLIMIT_MIN_BYTES = 4 << 20,
};

enum cake_autorate_constants {
	/* autorate-ingress: rate = 15/16 of the peak arrival-rate estimate ... */
	CAKE_AUTORATE_NUM = 15,
	CAKE_AUTORATE_SHIFT = 4,
	/* ... applied at most once per 250 ms ... */
	CAKE_AUTORATE_RECONFIG_MS = 250,
	/* ... from inter-arrival gaps capped at one second. */
	CAKE_AUTORATE_MAX_GAP_MS = 1000,
};

#define CAKE_NS_PER_MS	UINT64_C(1000000)
#define CAKE_NS_PER_US	UINT64_C(1000)
#define CAKE_NS_PER_SEC UINT64_C(1000000000)
/* cake_dequeue()'s *next_ns when no packet is queued: nothing to wait for. */
#define CAKE_TIME_NONE UINT64_MAX
/*
 * How far the egress shaper's schedule may trail the clock. The kernel's dequeue runs
 * within microseconds of its watchdog, so when its schedule has fallen behind it sends
 * back to back until it has caught up, and that is never much. A process can be off
 * its CPU for tens of milliseconds: a 27 ms stall repaid at once put 27 ms of packets
 * into the bottleneck below, and with the 5 % headroom of a shaper at 95 % that queue
 * took 0.65 s to drain, 13 pings in a row 2-27 ms late. Time missed beyond
 * this is forgiven: after a stall at most this much goes back to back (counted in
 * struct cake_stats' shaper_late). An ingress-mode instance repays in full: what it
 * releases goes to the host, where a burst queues nowhere.
 */
#define CAKE_SHAPER_MAX_LAG_NS (2 * CAKE_NS_PER_MS)

/* Why a packet came back through ops->drop. */
enum cake_drop_reason {
	CAKE_DROP_OVERLIMIT = 1, /* memory limit reached: dropped from the fattest flow */
	CAKE_DROP_CONGESTED,	 /* COBALT at dequeue: CoDel on a not-ECT packet, or BLUE */
	CAKE_DROP_ACK_FILTER,	 /* a redundant pure ACK, chosen by ops->ack_filter */
	CAKE_DROP_GSO_FAILED,	 /* split-gso on, and ops->split_gso could not segment it */
	CAKE_DROP_RECONFIG,	 /* its tin disappeared when the Diffserv mode changed */
	CAKE_DROP_FLUSH,	 /* cake_reset() or cake_free() */
};

/* cake_enqueue()'s outcome; the packet is owned by the qdisc in every case. */
enum cake_enqueue_result {
	CAKE_ENQ_QUEUED = 0, /* queued (some packets may have gone for the memory limit) */
	CAKE_ENQ_CONGESTED,  /* queued, but the memory limit pruned this same flow:
			      * the kernel's NET_XMIT_CN, a hint for a local sender */
	CAKE_ENQ_DROPPED,    /* not queued: handed back through ops->drop already */
};

/*
 * The owner's hooks. ctx is the pointer given in struct cake_params.
 *
 * drop(ctx, pkt, reason) - required. The qdisc hands back a packet it will not deliver.
 *	The owner frees or recycles it. It may be called from cake_enqueue(),
 *	cake_dequeue(), cake_configure(), cake_reset() and cake_free().
 *
 * set_ce(ctx, pkt) - optional. COBALT chose to mark an ECN-capable packet instead of
 *	dropping it: set CE in the packet bytes (qdisc/ecn.h fixes the checksum). The
 *	qdisc has already set pkt->ecn to CE and counted the mark. Called from
 *	cake_dequeue() on the packet it is about to return.
 *
 * wash(ctx, pkt) - optional. `wash` is on and the packet's DSCP is not zero: clear the
 *	DSCP bits (keep ECN) in the packet bytes. Called from cake_enqueue() after tin
 *	selection; the qdisc has already set pkt->dscp to 0.
 *
 * ack_filter(ctx, head, pkt, mode) - optional. Called from cake_enqueue() when the
 *	ack-filter option is on, after pkt was appended to its flow queue: the queue runs
 *	from head through ->next and ends with pkt. Return one packet of that queue other
 *	than pkt that pkt makes redundant, or NULL. The hook must not change the queue;
 *	the qdisc unlinks the packet and hands it to drop() with CAKE_DROP_ACK_FILTER.
 *	With the option on and this hook NULL, nothing is filtered.
 *
 * split_gso(ctx, pkt) - optional. Called from cake_enqueue() when split-gso is on and
 *	pkt->gso_segs > 1. Return the segments as a list linked through ->next, each a
 *	complete non-GSO packet with its own len and wire_len and the same hashes, dscp,
 *	ecn and mark; pkt itself then belongs to the owner again (it may be reused as the
 *	first segment). Return NULL if it cannot be segmented: the qdisc keeps pkt and
 *	drops it with CAKE_DROP_GSO_FAILED. With split-gso on and this hook NULL, the
 *	super-packet is queued whole, as with no-split-gso.
 */
struct cake_ops {
	void (*drop)(void *ctx, struct cake_pkt *pkt, enum cake_drop_reason reason);
	void (*set_ce)(void *ctx, struct cake_pkt *pkt);
	void (*wash)(void *ctx, struct cake_pkt *pkt);
	struct cake_pkt *(*ack_filter)(void *ctx, struct cake_pkt *head, const struct cake_pkt *pkt,
				       enum cake_ack_filter_mode mode);
	struct cake_pkt *(*split_gso)(void *ctx, struct cake_pkt *pkt);
};

/*
 * struct cake_params - fixed at creation
 * @ops, @ctx:   the owner's hooks (ops->drop is required)
 * @mtu_bytes:   the largest wire_len (psched_mtu in the kernel): it sets each tin's
 *               mtu_time, hence target at low rates, and the packet-limit memory cap;
 *               0 = CAKE_DEFAULT_MTU_BYTES
 * @pkt_limit:   tc's `limit`; memory is capped at pkt_limit * mtu unless memlimit says
 *               more; 0 = CAKE_DEFAULT_PKT_LIMIT
 * @pkt_mem_overhead_bytes: charged per packet against the memory limit on top of its
 *               wire_len when the packet states no truesize (the kernel charges
 *               skb->truesize; an owner that knows its buffers sets cake_pkt.truesize
 *               instead, and this is only an estimate for those that do not)
 * @seed:        seeds the instance's random generator (BLUE, quantum dithering);
 *               pass random bits in production and a constant in tests
 */
struct cake_params {
	const struct cake_ops *ops;
	void *ctx;
	uint32_t mtu_bytes;
	uint32_t pkt_limit;
	uint32_t pkt_mem_overhead_bytes;
	uint64_t seed;
};

struct cake;

/*
 * Create an instance with tc-cake's defaults (unlimited, diffserv3, triple-isolate,
 * rtt 100ms, split-gso, ...) and then apply opts as `tc qdisc add ... cake <opts>`
 * would: only the fields named in opts->present count. opts may be NULL.
 * All memory is allocated here (about 0.85 MB). Returns NULL if params or opts are
 * invalid (see cake_configure) or memory is short.
 *
 * Options kept but without effect inside the qdisc: `nat` (inner addresses are already
 * the real ones) and `peer_isolation` (the owner realises it by filling src_hash and
 * dst_hash with a hash of the WireGuard peer, so triple-isolate shares between peers).
 */
struct cake *cake_new(const struct cake_params *params, const struct cake_options *opts,
		      uint64_t now_ns);

/* Hand every queued packet back (CAKE_DROP_FLUSH) and free the instance. NULL is fine. */
void cake_free(struct cake *q);

/*
 * `tc qdisc change ... cake <opts>`: apply the fields named in opts->present, keep the
 * rest, and recompute the derived parameters. Queued packets stay queued and keep
 * their place, except those in tins that a new Diffserv mode no longer has: those are
 * handed back with CAKE_DROP_RECONFIG, as the kernel discards them.
 * A lower memory limit is enforced at the next enqueue, as in the kernel.
 * Returns 0, or -EINVAL (and changes nothing) if a present field is out of range:
 * unknown mode values, overhead outside -64..256, mpu above 256.
 */
int cake_configure(struct cake *q, const struct cake_options *opts,
		   uint64_t now_ns) CAKE_MUST_CHECK;

/* What cake_configure() and cake_new() refuse, checked without an instance: 0, or
 * -EINVAL if a present field of opts is out of range. */
int cake_options_check(const struct cake_options *opts) CAKE_MUST_CHECK;

/*
 * The link's MTU changed (the kernel's cake_reconfigure after psched_mtu changes):
 * mtu_bytes replaces cake_params.mtu_bytes (0: CAKE_DEFAULT_MTU_BYTES), and what derives
 * from it follows at once: each tin's mtu_time (so target at low rates) and the memory
 * cap of pkt_limit * mtu. Queued packets stay queued.
 */
void cake_set_mtu(struct cake *q, uint32_t mtu_bytes);
/* The MTU in force (cake_params.mtu_bytes or cake_set_mtu's). */
uint32_t cake_mtu(const struct cake *q);

/* The configuration in force, all fields present (autorate-ingress' rate included). */
void cake_get_options(const struct cake *q, struct cake_options *out);

/*
 * Take ownership of pkt and queue it. Reads flow_hash, src_hash, dst_hash, dscp, mark,
 * ecn, wire_len (and gso_* for split-gso); sets adj_len and enqueue_ns; may clear dscp
 * (wash). May hand back packets through ops->drop: this one (split failure), a
 * redundant ACK, or the heads of the fattest flows when memory runs over the limit.
 */
enum cake_enqueue_result cake_enqueue(struct cake *q, struct cake_pkt *pkt, uint64_t now_ns);

/*
 * The next packet to send now, or NULL. The caller owns the returned packet.
 * *next_ns (may be NULL) tells when to call again:
 *  - a packet is returned: now_ns if more may go at once, else when the shaper allows
 *    the next one, or CAKE_TIME_NONE if the qdisc is now empty;
 *  - NULL with packets queued: the time the shaper will let the next one go;
 *  - NULL and empty: CAKE_TIME_NONE.
 * Calling early is harmless (NULL again, counted as an overlimit as tc does).
 * COBALT may hand packets to ops->drop and ops->set_ce during the call.
 */
struct cake_pkt *cake_dequeue(struct cake *q, uint64_t now_ns, uint64_t *next_ns);

/* Hand every queued packet back (CAKE_DROP_FLUSH); configuration and counters stay. */
void cake_reset(struct cake *q);

/* Queued bytes (sum of wire_len) and packets. */
uint64_t cake_backlog_bytes(const struct cake *q);
uint32_t cake_backlog_packets(const struct cake *q);
/*
 * Bytes charged to the shaper so far, as it counts them (with the overhead): every
 * packet sent and, in ingress mode, every packet dropped, whose bytes crossed the link
 * before it. What a rate controller weighs the rate against (autorate.h).
 */
uint64_t cake_shaped_bytes(const struct cake *q);
/* How long the shaper needs to send the backlog at its rate now; 0 if unlimited. */
uint64_t cake_backlog_time_ns(const struct cake *q);
/* Whether a packet waits in a sparse flow of any tin: one of DRR++'s new flows (served
 * first) whose deficit covers its backlog. */
bool cake_sparse_waiting(const struct cake *q);
/* Bytes charged against the memory limit now, and the limit. */
uint32_t cake_memory_used(const struct cake *q);
uint32_t cake_memory_limit(const struct cake *q);

/* Fill *out with the statistics tc -s qdisc show prints. */
void cake_get_stats(const struct cake *q, struct cake_stats *out);

/*
 * Statistics of one flow queue, addressed as tc addresses classes: column (print
 * order, as cake_stats.tins) and queue index 0..CAKE_QUEUES-1. Times are relative to
 * now_ns. Returns 0, or -ENOENT if the column does not exist, -EINVAL for a bad index.
 */
int cake_get_flow_stats(const struct cake *q, unsigned int column, unsigned int queue,
			uint64_t now_ns, struct cake_flow_stats *out) CAKE_MUST_CHECK;

#endif
