/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A traffic simulator around one CAKE instance, on virtual time: scripted senders
 * enqueue packets, a link pulls them out as fast as CAKE's shaper (and the link's own
 * rate, if it has one) allows, and per-flow throughput, queueing delay, drops and
 * marks are measured. Pure and deterministic: no clock, no I/O, no global state; the
 * same configuration and seed give the same result on every run.
 *
 * The traffic model:
 *  - tcp:  a window-based sender clocked by its ACKs, one base RTT after each packet
 *          leaves the link. Slow start, then Reno (AIMD) or a CUBIC-like growth
 *          curve. A drop or a CE mark, learnt one RTT later, cuts the window once per
 *          window of data (Reno to 1/2, CUBIC to 0.7). Lost data is not resent:
 *          throughput counts what was delivered.
 *  - udp:  constant bit rate, optionally in back-to-back bursts of `burst` packets.
 *  - ping: one small packet every `interval`; its delay is the round trip (queue,
 *          link serialisation and base RTT), as ping would report it.
 * Packet sizes are what the shaper counts (the wire length before tc-style overhead
 * compensation). Only the egress direction is queued; replies and ACKs are not.
 */
#ifndef CAKEWG_TOOLS_SIM_CAKE_SIM_H
#define CAKEWG_TOOLS_SIM_CAKE_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "qdisc/cake_compiler.h"
#include "qdisc/cake_options.h"
#include "qdisc/cake_parse.h"
#include "qdisc/cake_stats.h"

enum cake_sim_limits {
	CAKE_SIM_MAX_FLOWS = 1024, /* after `count` copies are expanded */
	CAKE_SIM_MIN_PKT_BYTES = 20,
	CAKE_SIM_MAX_PKT_BYTES = 65535,
};

enum cake_sim_kind {
	CAKE_SIM_TCP,
	CAKE_SIM_UDP,
	CAKE_SIM_PING,
};

enum cake_sim_cc {
	CAKE_SIM_CUBIC,
	CAKE_SIM_RENO,
};

/*
 * One line of the scenario. Host ids name the source and destination hosts CAKE
 * isolates; with peer-isolate, `peer` stands for both (the WireGuard peer).
 */
struct cake_sim_flow_spec {
	enum cake_sim_kind kind;
	uint32_t host, dst, peer;
	uint8_t dscp;
	bool ecn;                     /* sent ECT(0): CAKE marks instead of dropping */
	enum cake_sim_cc cc;          /* tcp */
	uint32_t size_bytes;          /* per packet */
	uint64_t rate_bytes_per_sec;  /* udp */
	uint32_t burst;               /* udp: packets sent back to back */
	uint64_t interval_ns;         /* ping */
	uint64_t rtt_ns;              /* base round trip, without queueing */
	uint64_t start_ns, stop_ns;   /* sending window; stop 0 = until the end */
	uint32_t count;               /* identical flows, each its own 5-tuple */
};

struct cake_sim_config {
	struct cake_options cake;       /* as parsed: present bits name what is set */
	uint64_t link_bytes_per_sec;    /* 0: the link takes whatever CAKE releases */
	uint64_t duration_ns;
	uint64_t warmup_ns;             /* measured from warmup to the end */
	uint64_t seed;
	uint32_t mtu_bytes;             /* 0: CAKE's default */
	uint32_t nflows;
	const struct cake_sim_flow_spec *flows;
};

struct cake_sim_flow_result {
	uint32_t spec_index;           /* which cake_sim_config.flows entry */
	enum cake_sim_kind kind;
	uint64_t offered_pkts, offered_bytes;
	uint64_t delivered_pkts, delivered_bytes;
	uint64_t drops, marks;
	/* queueing delay (tcp, udp) or round trip (ping) of delivered packets, in ns */
	uint64_t delay_samples, delay_p50_ns, delay_p99_ns, delay_max_ns;
	double cwnd;                   /* tcp: window at the end, in packets */
	uint32_t window_cuts;          /* tcp: reactions to drops or marks */
};

struct cake_sim_result {
	uint64_t measured_ns;          /* duration - warmup */
	struct cake_options cake;      /* the configuration in force at the end */
	struct cake_stats stats;       /* CAKE's own counters at the end */
	uint32_t nflows;
	struct cake_sim_flow_result *flows;
};

/* Defaults of each kind: tcp cubic 1500 B, udp 10mbit 1200 B, ping 84 B every 100 ms;
 * rtt 20 ms, host/dst/peer 1, dscp 0, count 1. */
void cake_sim_flow_defaults(struct cake_sim_flow_spec *f, enum cake_sim_kind kind);

/*
 * "kind[,key=value...]", e.g. "tcp,host=2,dscp=EF,rtt=40ms,count=4" or
 * "udp,rate=60mbit,burst=8". Keys: host dst peer dscp (0..63 or CS0..CS7, AF11..AF43,
 * EF, VA, LE, BE) ecn[=0|1] cc=reno|cubic size rate burst interval rtt start stop
 * count. Times, rates and sizes take tc's units. Returns 0 or -EINVAL with err set.
 */
int cake_sim_flow_parse(const char *spec, struct cake_sim_flow_spec *f,
			struct cake_parse_err *err) CAKE_MUST_CHECK;

/*
 * Run the scenario. Returns 0 and fills *res (free with cake_sim_result_free), or
 * -EINVAL if the configuration cannot run (no flows, nothing limiting the rate,
 * bad sizes), or -ENOMEM.
 */
int cake_sim_run(const struct cake_sim_config *cfg, struct cake_sim_result *res) CAKE_MUST_CHECK;
void cake_sim_result_free(struct cake_sim_result *res);

#endif
