/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A tunnel endpoint in front of a remote bottleneck whose capacity follows a trace, on
 * virtual time: the real CAKE instances (egress and ingress), the real signal extractor
 * (qdisc/tcpts.h) fed where the datapath feeds it, and the real autorate controller
 * (qdisc/autorate.h) setting the CAKE rates every 50 ms.
 *
 *   local senders ─► egress CAKE ─[tcpts OUT]─► bottleneck[UP] ─► RTT/2 ─► remote
 *   local receivers ◄─ ingress CAKE ◄─[tcpts IN]─ RTT/2 ◄─ bottleneck[DOWN] ◄─ remote
 *
 * Each bottleneck is a tail-drop FIFO holding `buffer` of time at its trace's peak rate
 * (250 ms: a bloated base station or modem), served at the rate the trace gives now.
 * ACKs are never dropped there. The base RTT may change with the trace's steps
 * (Starlink-like), each direction adding half of it.
 *
 * Flows are AIMD TCP (slow start, halving once per window on loss, RTO) whose packets
 * carry the bytes the extractor reads: IPv4 + TCP with timestamps (unless no_ts) and a
 * SACK block past a hole. Receivers ACK every second segment (a 40 ms delayed-ACK
 * timer, at once on a hole) and echo TS.Recent (RFC 7323). Both hosts' TSval clocks tick
 * in 1 ms with a per-host offset. Uploads send from the local host, downloads from the
 * remote one; their ACKs take the other direction's path, through its CAKE instance.
 *
 * Pure and deterministic: no clock, no I/O, no global state. Time advances in steps of
 * CAKE_LINK_STEP_NS; every CAKE_LINK_SAMPLE_NS the capacity, shaper rate, queueing delay
 * and goodput of each direction are recorded (cake_link_samples).
 */
#ifndef CAKEWG_TOOLS_SIM_LINK_SIM_H
#define CAKEWG_TOOLS_SIM_LINK_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qdisc/autorate.h"
#include "qdisc/cake_compiler.h"
#include "qdisc/cake_options.h"
#include "qdisc/cake_parse.h"

enum cake_link_dir {
	CAKE_LINK_UP = 0,   /* egress: = CAKE_TCPTS_OUT */
	CAKE_LINK_DOWN = 1, /* ingress: = CAKE_TCPTS_IN */
	CAKE_LINK_DIRS = 2,
};

enum cake_link_limits {
	CAKE_LINK_MAX_STEPS = 256,
	CAKE_LINK_MAX_FLOWS = 64, /* per direction */
};

#define CAKE_LINK_STEP_NS 50000ull     /* 50 us */
#define CAKE_LINK_SAMPLE_NS 10000000ull /* 10 ms */
#define CAKE_LINK_DEFAULT_BUFFER_NS 250000000ull
#define CAKE_LINK_DEFAULT_RTT_NS 40000000ull

/* One step of a trace: rate for duration; rtt_ns, when not 0, the base RTT from then on. */
struct cake_link_step {
	uint64_t duration_ns;
	uint64_t rate_bytes_per_sec;
	uint64_t rtt_ns;
};

/*
 * The steps repeat once the trace ends. No steps: the link is not there (unlimited).
 * The base RTT follows the uplink trace's rtt_ns (the downlink's if the uplink has none).
 */
struct cake_link_trace {
	uint32_t n;
	struct cake_link_step steps[CAKE_LINK_MAX_STEPS];
};

/* Who sets the CAKE rates. */
enum cake_link_policy {
	CAKE_LINK_AS_CONFIGURED = 0, /* autorate where cake.autorate is on, else fixed */
	CAKE_LINK_ORACLE,	     /* told 97/100 of the capacity at every change */
	CAKE_LINK_ORACLE_DELAYED,    /* the same, told oracle_delay_ns late (see below) */
};

struct cake_link_config {
	struct cake_options cake[CAKE_LINK_DIRS]; /* egress, ingress instance, as parsed */
	struct cake_link_trace trace[CAKE_LINK_DIRS];
	enum cake_link_policy policy;
	uint64_t buffer_ns; /* 0: CAKE_LINK_DEFAULT_BUFFER_NS */
	uint64_t rtt_ns;    /* 0: CAKE_LINK_DEFAULT_RTT_NS; trace steps may change it */
	/*
	 * CAKE_LINK_ORACLE_DELAYED: the earliest a delay- or ACK-based controller can know
	 * of a change. It is told the capacity and the bottleneck FIFO's queueing delay as
	 * they were oracle_delay_ns ago (0: one base RTT ago; the queue as recorded at the
	 * last sample, CAKE_LINK_SAMPLE_NS, then): rate 97/100 of that capacity, but 1/16 of
	 * it while that queue stood above the controller's target (5 ms, or 4 MTU times at
	 * that capacity), which drains the queue a drop built before the news came, at no
	 * cost while the FIFO keeps the link busy.
	 */
	uint64_t oracle_delay_ns;
	uint32_t flows[CAKE_LINK_DIRS]; /* bulk TCP flows whose data goes that way */
	bool no_ts;	    /* TCP without the timestamp option */
	uint64_t seed;
};

/* What one direction looked like at one sample time. */
struct cake_link_sample {
	uint64_t t_ns;
	uint64_t capacity;  /* bytes/s, 0 without a link */
	uint64_t rate;	    /* the CAKE instance's rate, 0 unlimited */
	uint64_t qdelay_ns; /* the bottleneck FIFO's backlog at its capacity */
	uint64_t goodput_bytes; /* in-order payload delivered so far (cumulative) */
};

struct cake_link;

/*
 * A new simulation at time 0, or NULL with *err set: -EINVAL for a configuration that
 * cannot run (an autorate range the controller refuses, too many flows, a zero-length
 * or zero-rate step), -ENOMEM.
 */
struct cake_link *cake_link_new(const struct cake_link_config *cfg, int *err);
void cake_link_free(struct cake_link *s);

/* Advance to t_ns (from 0). Returns 0, or -ENOMEM if the packet pool could not grow. */
int cake_link_run_until(struct cake_link *s, uint64_t t_ns) CAKE_MUST_CHECK;

uint64_t cake_link_now(const struct cake_link *s);
uint64_t cake_link_capacity(const struct cake_link *s, enum cake_link_dir d, uint64_t t_ns);
uint64_t cake_link_rate(const struct cake_link *s, enum cake_link_dir d);
uint64_t cake_link_qdelay_ns(const struct cake_link *s, enum cake_link_dir d);
/* False if direction d runs no controller. */
bool cake_link_autorate(const struct cake_link *s, enum cake_link_dir d,
			struct cake_autorate_status *out);

/* The samples of direction d recorded so far, oldest first. */
const struct cake_link_sample *cake_link_samples(const struct cake_link *s,
						 enum cake_link_dir d, size_t *n);

/* Over the samples in [from, to): */
struct cake_link_summary {
	uint64_t qdelay_mean_ns, qdelay_p50_ns, qdelay_p95_ns, qdelay_p99_ns, qdelay_max_ns;
	uint64_t goodput_bytes;	 /* payload delivered */
	uint64_t capacity_bytes; /* the integral of the capacity */
	double goodput_share;	 /* goodput / capacity, 0 without a link */
};
void cake_link_summarise(const struct cake_link *s, enum cake_link_dir d, uint64_t from_ns,
			 uint64_t to_ns, struct cake_link_summary *out);

/*
 * From `from` on, until `to`: how long until the shaper rate lies within [lo, hi] x the
 * capacity for good (UINT64_MAX if it is outside at the end), and how long until the
 * FIFO's queueing delay, once above qdelay_ns, is back under it (0 if it never rose
 * above, UINT64_MAX if it stays above).
 */
uint64_t cake_link_rate_settle_ns(const struct cake_link *s, enum cake_link_dir d,
				  uint64_t from_ns, uint64_t to_ns, double lo, double hi);
uint64_t cake_link_queue_drain_ns(const struct cake_link *s, enum cake_link_dir d,
				  uint64_t from_ns, uint64_t to_ns, uint64_t qdelay_ns);

/*
 * Traces. A file: one step per line, `SECONDS RATE [RTT]` (seconds as a decimal number,
 * RATE and RTT in tc's units: 40mbit, 30ms); '#' starts a comment. A list:
 * `RATE:TIME[:RTT],...`, e.g. "40mbit:6s,12mbit:6s". Return 0 or -EINVAL with err set
 * (naming the line or item).
 */
int cake_link_trace_parse_text(const char *text, struct cake_link_trace *tr,
			       struct cake_parse_err *err) CAKE_MUST_CHECK;
int cake_link_trace_parse_list(const char *list, struct cake_link_trace *tr,
			       struct cake_parse_err *err) CAKE_MUST_CHECK;
uint64_t cake_link_trace_length_ns(const struct cake_link_trace *tr);
uint64_t cake_link_trace_mean(const struct cake_link_trace *tr); /* time-weighted, bytes/s */

#endif
