/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A byte queue limit for the underlay socket, in the spirit of Linux's BQL (dynamic
 * queue limits), measured from above. The bytes the kernel holds for a UDP socket
 * (SIOCOUTQ: the truesize of datagrams in a qdisc or a driver's ring, not yet freed) are
 * kept under a limit worth WG_BQL_TARGET_NS of the rate at which they drain. A queue
 * below the socket (a local tbf, a Wi-Fi or LTE driver) thus stays a few milliseconds
 * long, and the rest of the backlog waits in CAKE, where it is scheduled and managed.
 *
 * The edge sends while the socket holds less than the limit, then stalls: it waits until
 * the socket has drained to half (the kernel signals writability there when the send
 * buffer is set to the limit). Nothing is sent during a stall, so the fall of the held
 * bytes over its duration is the drain rate; exact when the socket did not run empty
 * (the link was busy all along), a lower bound when it did, which may only raise the
 * estimate. A stall that starts with (almost) nothing held measures nothing.
 *
 * A socket found empty at the end of a stall also means the link may have idled while we
 * were late to refill it (a busy CPU): as BQL does on starvation, the limit then gets a
 * slack of a quarter more, which decays by an eighth at each stall that ends busy. Stall
 * after stall that begins with the socket under half full means the queue is no longer
 * below it: a learnt limit then grows back the same way, up to the unlearnt default.
 *
 * Pure: the caller passes the time and the bytes held.
 */
#ifndef CAKEWG_SRC_CORE_BQL_H
#define CAKEWG_SRC_CORE_BQL_H

#include <stdbool.h>
#include <stdint.h>

#include "src/core/clock.h"

enum wg_bql_limits {
	/* The time worth of bytes the socket may hold: the queue below CAKE. */
	WG_BQL_TARGET_NS = 1 * WG_NSEC_PER_MSEC,
	/* Below this a stall's duration is mostly our own wake-up latency: no sample. */
	WG_BQL_MIN_SAMPLE_NS = 50 * 1000,
	WG_BQL_MIN_BYTES = 8 << 10,    /* room for a few MTU-sized datagrams' truesize */
	WG_BQL_INIT_BYTES = 64 << 10,  /* until the first measurement */
	WG_BQL_MAX_BYTES = 384 << 10,  /* the send buffer the socket gets at most */
	WG_BQL_EWMA_SHIFT = 2,	       /* a new sample weighs 1/4 */
	WG_BQL_SLACK_GROW_SHIFT = 2,   /* starved: the slack grows by limit / 4 */
	WG_BQL_SLACK_DECAY_SHIFT = 3,  /* busy: the slack shrinks by 1/8 */
	/* This many stalls in a row that begin with the socket under half full: its queue
	 * is gone, and a learnt limit grows back by a quarter. One alone is a sender that
	 * was descheduled mid-round, which the next round's fill-up tells apart. */
	WG_BQL_REGROW_STALLS = 8,
};

struct wg_bql_stats {
	uint64_t stalls;   /* stalls with bytes held: the socket pushed back */
	uint64_t samples;  /* rate samples taken */
	uint64_t starved;  /* stalls that ended with the socket empty */
	uint64_t overflows; /* a qdisc below refused a datagram (ENOBUFS) */
	uint64_t regrown;   /* times a run of stalls under half full grew the limit */
};

struct wg_bql {
	uint32_t limit;	   /* bytes the socket may hold */
	uint32_t ceiling;  /* at most this: WG_BQL_MAX_BYTES, lowered by overflows */
	uint64_t rate;	   /* drain rate estimate, bytes per second; 0: none yet */
	uint32_t slack;	   /* bytes above the rate's worth, after starvation */
	uint64_t stall_ns; /* when the current stall began */
	uint32_t stall_bytes;
	uint32_t empty_stalls; /* stalls in a row that began under half full */
	bool stalled;
	bool fixed;	   /* set by wg_bql_fix: measure, but keep the limit */
	struct wg_bql_stats stats;
};

void wg_bql_init(struct wg_bql *b);
/* A limit chosen by the user: bytes (at least WG_BQL_MIN_BYTES, at most the largest
 * send buffer) from now on; 0 goes back to learning it, from the current estimate. */
void wg_bql_fix(struct wg_bql *b, uint32_t bytes);
/* The bytes that may still be handed to a socket holding `held`: 0 when at the limit. */
uint32_t wg_bql_room(const struct wg_bql *b, uint32_t held);
/* The socket holds `held` and may take no more: a stall begins. Returns true when the
 * limit changed (a learnt limit that WG_BQL_REGROW_STALLS stalls in a row found under
 * half full grows back toward WG_BQL_INIT_BYTES; the caller resizes the send buffer). */
bool wg_bql_stall(struct wg_bql *b, uint64_t now_ns, uint32_t held);
/* The stall ended (the socket drained); it holds `held` now. Returns true when the limit
 * changed (the caller resizes the send buffer). */
bool wg_bql_resume(struct wg_bql *b, uint64_t now_ns, uint32_t held);
/* A qdisc below the socket dropped a datagram while it held `held`: it cannot queue more
 * than that, so the limit stays below it from now on. Returns true when it changed. */
bool wg_bql_overflow(struct wg_bql *b, uint32_t held);

#endif
