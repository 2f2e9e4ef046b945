/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Passive delay signals from the inner TCP flows a tunnel endpoint carries: path RTT
 * (pping: a TSval we send, matched with the TSecr that echoes it), one-way queueing
 * delay per direction (the peer's TSval clock against ours, over a per-flow baseline),
 * the rate the bottleneck delivers per direction (ACK progress of uploads, arrival
 * bytes of downloads), and for uploads the rate it passed every byte while queued (a
 * busy run). ICMP echo requests (OUT) and their replies (IN), v4 and v6, give
 * RTT samples too: the owner's sparse probes when no TCP runs. The autorate controller (qdisc/autorate.h) consumes a summary
 * per direction at each of its ticks.
 *
 * The caller sees every inner packet in plaintext at two points and calls
 * cake_tcpts_packet() at both:
 *   CAKE_TCPTS_OUT  egress: as the packet leaves the egress CAKE (dequeued, before
 *                   encryption), so that send times do not include CAKE's own queue,
 *                   which is ours and no bottleneck's;
 *   CAKE_TCPTS_IN   ingress: decrypted, before the ingress CAKE / TUN write (arrival
 *                   at the end of the downlink's queue).
 * Call it once per GSO super-packet (its TCP header stands for all its segments) with
 * the bytes that go on the underlay for all of it as wire_len. It never writes the
 * packet, never allocates, and reads only [data, data + len).
 *
 * Fixed memory from cake_tcpts_new(); flows are found by a keyed hash, so a remote
 * sender cannot aim collisions at the table. Time is an argument (monotonic ns).
 */
#ifndef CAKEWG_QDISC_TCPTS_H
#define CAKEWG_QDISC_TCPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "qdisc/siphash.h"

enum cake_tcpts_dir {
	CAKE_TCPTS_OUT = 0, /* egress: packets leaving toward the peer (the uplink) */
	CAKE_TCPTS_IN = 1,  /* ingress: packets arriving from the peer (the downlink) */
	CAKE_TCPTS_DIRS = 2,
};

/* What one direction's bottleneck did since the last cake_tcpts_take(). */
struct cake_signal {
	uint32_t owd_samples; /* one-way delay samples of this direction ... */
	uint32_t owd_flows;   /* ... from this many flows */
	uint32_t qdelay_us;   /* those samples over their flow's baseline, the median (IN) or
			       * 25th percentile (OUT, where delayed ACKs add to some): the
			       * queueing delay this direction adds (0 without samples) */
	uint32_t rtt_samples; /* path RTT samples (shared by both directions) */
	uint32_t rtt_min_us;  /* smallest and median sample, 0 without samples */
	uint32_t rtt_p50_us;
	uint64_t delivered_bytes; /* wire bytes the bottleneck delivered in this direction:
				   * IN, bytes arriving; OUT, bytes the peer ACKed, scaled to
				   * wire bytes by what egress TCP sent */
	uint64_t other_bytes;	  /* OUT only: wire bytes sent without TCP payload (ACKs) */
	uint64_t busy_bytes;	  /* OUT only: the latest busy run (see tcpts.c), wire bytes */
	uint32_t busy_us;	  /* that left the bottleneck in busy_us; 0 none */
	uint64_t reverse_bytes;	  /* wire bytes of every packet in the other direction
				   * (arrived IN, sent OUT): which of the two carries
				   * the data, and which only its ACKs */
};

/* Counters for `show` and tests. */
struct cake_tcpts_stats {
	uint64_t packets, tcp_packets, ignored; /* ignored: not IP, malformed or truncated */
	uint64_t rtt_samples, syn_rtt_samples, owd_samples[CAKE_TCPTS_DIRS];
	uint64_t icmp_rtt_samples; /* of rtt_samples: ICMP echo replies matched */
	uint64_t karn_skips;  /* retransmissions neither recorded nor matched */
	uint64_t evictions;   /* flows pushed out of a full table */
	uint32_t flows;	      /* flows in the table */
	uint32_t ticks_known; /* flows whose peer clock tick is known (0: unknown or rejected) */
};

struct cake_tcpts;

/*
 * A table for max_flows concurrent flows (rounded up to a power of two, at least 8),
 * its flow hash keyed with key (pass a per-instance random secret). NULL if memory
 * is short or max_flows is above CAKE_TCPTS_MAX_FLOWS.
 */
enum { CAKE_TCPTS_MAX_FLOWS = 1u << 20 };
struct cake_tcpts *cake_tcpts_new(uint32_t max_flows, const struct cake_siphash_key *key);
void cake_tcpts_free(struct cake_tcpts *t);

/*
 * One inner packet (see the top of this file). wire_len 0 counts len. now_ns is when it
 * passed: an IN packet's may be earlier than an OUT packet's given before it (its
 * arrival, stamped by the kernel, against a send after it came). Samples use it as
 * given, and no answer is timed before its question; flows age by the latest time seen.
 */
void cake_tcpts_packet(struct cake_tcpts *t, enum cake_tcpts_dir dir, const uint8_t *data,
		       uint32_t len, uint32_t wire_len, uint64_t now_ns);

/* The summary of each direction since the last call (indexed by cake_tcpts_dir); resets it. */
void cake_tcpts_take(struct cake_tcpts *t, struct cake_signal out[CAKE_TCPTS_DIRS]);

/*
 * Between takes, for a reaction before the next one: the one-way delay samples of dir
 * since the last peek that reset (or take), and in *qdelay_us the queueing delay
 * cake_tcpts_take would report for them alone (the recent ones, unmixed with those of
 * before a change). reset starts a new window (an empty one stays as it is, so a caller
 * may reset on every call). A walk over a small histogram: call it
 * every millisecond or so, not per packet.
 */
uint32_t cake_tcpts_peek(struct cake_tcpts *t, enum cake_tcpts_dir dir, uint32_t *qdelay_us,
			 bool reset);

/*
 * The peer clock tick of the flow a packet belongs to, in ns: 0 unknown yet,
 * UINT32_MAX rejected (no plausible rate). For tests and debugging.
 */
uint32_t cake_tcpts_flow_tick(const struct cake_tcpts *t, enum cake_tcpts_dir dir,
			      const uint8_t *data, uint32_t len);

void cake_tcpts_get_stats(const struct cake_tcpts *t, struct cake_tcpts_stats *out);

#endif
