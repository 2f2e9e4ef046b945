/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The TCP endpoints of the trace-driven link (link_sim.h): per flow an AIMD sender
 * (slow start, halving once per window on a SACKed hole, RTO) at one host and a
 * receiver (an ACK every second segment, a 40 ms delayed-ACK timer, at once on a hole
 * or a duplicate; TS.Recent echoed as RFC 7323 says) at the other, and the inner packet
 * bytes the extractor reads: IPv4 + TCP with the timestamp option (unless no_ts) and a
 * SACK block past a hole. The local host sends uploads (CAKE_LINK_UP), the remote one
 * downloads. Internal to tools/sim/.
 */
#ifndef CAKEWG_TOOLS_SIM_LINK_TCP_H
#define CAKEWG_TOOLS_SIM_LINK_TCP_H

#include <stdbool.h>
#include <stdint.h>

#include "qdisc/pkt.h"

enum link_tcp_values {
	LINK_TCP_MAX_FLOWS = 128,
	LINK_TCP_INNER = 1420,	/* data packets at the tunnel MTU */
	LINK_TCP_TUNNEL = 60,	/* WireGuard + UDP + IPv4 bytes around an inner packet */
	LINK_TCP_RX_WIN = 8192, /* receiver bitmap, packets */
	LINK_TCP_RTX = 4096,
	LINK_TCP_BUF = 2048,
};

struct link_pkt {
	struct cake_pkt cp; /* first: CAKE's pointer is ours */
	struct link_pkt *link; /* the stage's FIFO or the free list */
	uint64_t t;	       /* ready at the stage that holds it */
	uint32_t wire;	       /* bytes on the underlay */
	uint32_t seq;	       /* data: packet index */
	uint32_t ack, sack_hi, hole_lo, hole_hi;
	uint32_t rcvd_total; /* ACK: packets the receiver has taken in so far */
	uint32_t tsval, tsecr;
	uint16_t flow;
	uint8_t is_ack, retrans;
};

struct link_tcp_flow {
	uint8_t dir; /* of its data */
	/* sender */
	uint32_t next_seq, cum, inflight, recover, acked_total;
	double cwnd, ssthresh;
	uint32_t rtx[LINK_TCP_RTX], rtx_head, rtx_n;
	uint32_t ts_recent_peer; /* last TSval from the receiver */
	uint64_t last_progress, srtt;
	/* receiver */
	uint32_t rcv_next, hi_next, unacked, ts_recent, rcvd_total;
	uint32_t hole_lo, hole_hi;
	uint64_t ack_since;
	bool ack_due;
	uint8_t rcvd[LINK_TCP_RX_WIN / 8];
	uint64_t goodput; /* in-order payload bytes delivered */
};

/* Hands a packet to the path at its sending host (local: the egress CAKE). */
typedef void link_tcp_emit_fn(void *ctx, struct link_pkt *p, bool local);
/* A zeroed packet, or NULL when memory is short (the packet is then not sent). */
typedef struct link_pkt *link_tcp_get_fn(void *ctx);

struct link_tcp {
	struct link_tcp_flow flows[LINK_TCP_MAX_FLOWS];
	int nflows;
	bool no_ts;
	uint32_t ts_off[2]; /* TSval offsets: [0] local host, [1] remote host */
	uint64_t now;
	link_tcp_emit_fn *emit;
	link_tcp_get_fn *get;
	void *ctx;
	uint8_t buf[LINK_TCP_BUF];
};

/* flows[d]: how many flows send their data in direction d (0 up, 1 down). */
void link_tcp_init(struct link_tcp *t, const uint32_t flows[2], bool no_ts,
		   link_tcp_emit_fn *emit, link_tcp_get_fn *get, void *ctx);
/* Senders fill their windows, RTOs fire, delayed ACKs go. */
void link_tcp_senders(struct link_tcp *t, uint64_t now);
/* p reaches its host: the remote one (at_remote) or the local one. p stays the caller's. */
void link_tcp_arrive(struct link_tcp *t, const struct link_pkt *p, bool at_remote,
		     uint64_t now);
/* The inner packet bytes of p into t->buf; returns their length. */
uint32_t link_tcp_bytes(struct link_tcp *t, const struct link_pkt *p, bool local_src);
/* In-order payload bytes delivered so far to the receivers of direction d's flows. */
uint64_t link_tcp_goodput(const struct link_tcp *t, int d);

#endif
