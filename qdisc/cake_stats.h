/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A snapshot of one CAKE instance's statistics: everything `tc -s qdisc show` prints
 * for cake (iproute2 tc/q_cake.c, cake_print_xstats), plus the per-flow values of
 * `tc -s class show`. Filled by cake_get_stats() / cake_get_flow_stats() (qdisc/cake.h);
 * plain data, so a printer needs only this header.
 *
 * Units: bytes, packets, microseconds, bytes per second. The names follow the JSON keys
 * tc prints (`tc -j -s qdisc show`), the comments give the text labels.
 */
#ifndef CAKEWG_QDISC_CAKE_STATS_H
#define CAKEWG_QDISC_CAKE_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "qdisc/autorate.h"
#include "qdisc/cake_options.h"

enum cake_stats_limits {
	CAKE_STATS_MAX_TINS = 8,
};

/* One column of the per-tin table, in tc's print order (see cake_stats.tins). */
struct cake_tin_stats {
	uint64_t threshold_rate;     /* "thresh": priority threshold, bytes/s (0 = unlimited) */
	uint64_t sent_bytes;	     /* "bytes": bytes enqueued to this tin (drops included) */
	uint32_t backlog_bytes;	     /* "backlog" */
	uint32_t target_us;	     /* "target" */
	uint32_t interval_us;	     /* "interval" */
	uint32_t peak_delay_us;	     /* "pk_delay": EWMA of sojourn times, fast up */
	uint32_t avg_delay_us;	     /* "av_delay": EWMA of sojourn times */
	uint32_t base_delay_us;	     /* "sp_delay": EWMA of sojourn times, fast down */
	uint32_t sent_packets;	     /* "pkts": packets enqueued to this tin (drops included) */
	uint32_t way_indirect_hits;  /* "way_inds" */
	uint32_t way_misses;	     /* "way_miss" */
	uint32_t way_collisions;     /* "way_cols" */
	uint32_t way_directs;	     /* not printed by tc; direct hash hits */
	uint32_t drops;		     /* "drops": AQM and overflow drops */
	uint32_t ecn_mark;	     /* "marks" */
	uint32_t ack_drops;	     /* "ack_drop" */
	uint32_t sparse_flows;	     /* "sp_flows" (sparse + decaying, as the kernel) */
	uint32_t bulk_flows;	     /* "bk_flows" */
	uint32_t unresponsive_flows; /* "un_flows" */
	uint32_t max_pkt_len;	     /* "max_len": largest packet (GSO super-packet) seen */
	uint32_t flow_quantum;	     /* "quantum" */
	uint32_t drop_overlimit;     /* not printed by tc; drops because of the memory limit */
	uint32_t backlog_packets;    /* not printed by tc */
};

struct cake_stats {
	/* The generic qdisc lines: " Sent B bytes P pkt (dropped D, overlimits O requeues R)"
	 * and " backlog Xb Yp requeues R". Sent counts what was dequeued. */
	uint64_t sent_bytes;
	uint64_t sent_packets;
	uint32_t dropped;
	uint32_t overlimits;
	uint32_t requeues; /* always 0: the qdisc never takes a packet back */
	/* not printed by tc: dequeues that found the egress shaper's schedule more than
	 * CAKE_SHAPER_MAX_LAG_NS behind the clock, and the time they forgave */
	uint64_t shaper_late;
	uint64_t shaper_late_ns;
	uint32_t backlog_bytes;
	uint32_t backlog_packets;

	/* " memory used: X of Y": X is the peak, as the kernel reports it */
	uint32_t memory_used; /* peak bytes held between calls (the kernel samples it before
			       * pruning, so its peak can exceed the limit by one packet) */
	uint32_t memory_limit;
	uint32_t memory_in_use; /* current bytes charged (not printed by tc) */
	/* " capacity estimate: RATE" (bytes/s): autorate-ingress' estimate, else the rate */
	uint64_t capacity_estimate;
	/* " min/max network layer size: a / b" and " min/max overhead-adjusted size: a / b".
	 * Before the first packet the minima read 65535 and the maxima 0, as the kernel's
	 * 16-bit fields. */
	uint32_t min_network_size;
	uint32_t max_network_size;
	uint32_t min_adj_size;
	uint32_t max_adj_size;
	uint32_t avg_hdr_offset; /* " average network hdr offset: n" (0: lengths are L3) */

	enum cake_diffserv_mode diffserv; /* selects the column names */
	uint32_t tin_count;
	/* tins[i] is the tin tc prints in column i: Bulk first for diffserv3/diffserv4
	 * ("Bulk  Best Effort  Voice"), index order otherwise ("Tin 0" ...). */
	struct cake_tin_stats tins[CAKE_STATS_MAX_TINS];

	/* autorate MIN MAX: the controller's state, filled by the instance's owner (the
	 * qdisc does not run the controller); autorate_age_ns is now - its last change. */
	bool has_autorate;
	struct cake_autorate_status autorate;
	uint64_t autorate_age_ns;
};

/* `tc -s class show` for one flow queue (kernel cake_dump_class_stats). */
struct cake_flow_stats {
	uint32_t qlen; /* packets queued */
	uint32_t backlog_bytes;
	uint32_t drops;
	int32_t deficit;       /* "deficit" */
	uint32_t cobalt_count; /* "count" */
	bool dropping;	       /* "dropping" */
	int64_t drop_next_us;  /* "drop_next": now - drop_next, valid while dropping */
	uint32_t p_drop;       /* "blue_prob" (0.32 fixed point) */
	int64_t blue_timer_us; /* "blue_timer": now - blue_timer, valid while p_drop != 0 */
	bool active;	       /* the queue is in a flow rotation (tc lists only these) */
};

#endif
