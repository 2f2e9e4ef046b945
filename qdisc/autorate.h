/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The autorate controller: a pure state machine that moves one CAKE instance's shaper
 * rate so that it sits just below a bottleneck whose capacity nobody knows and which
 * may change tenfold within seconds (LTE, Starlink, busy Wi-Fi). One instance per CAKE
 * instance, i.e. per direction. It reads no clock: every call takes now (ns).
 *
 * The caller, at cake_autorate_next_ns() (every CAKE_AUTORATE_TICK_NS):
 *   struct cake_signal sig[CAKE_TCPTS_DIRS];
 *   cake_tcpts_take(tcpts, sig);                      once for both directions
 *   in.sig = sig[dir];  in.shaped_bytes = cake_shaped_bytes(q) - its value last tick;
 *   in.backlogged = cake_backlog_bytes(q) > 0;
 *   rate = cake_autorate_tick(ar, &in, now);          bytes per second
 *   if (rate != the rate in force) set it with cake_configure(rate_bytes_per_sec).
 * cake_autorate_get() fills what `cakewg show` prints.
 */
#ifndef CAKEWG_QDISC_AUTORATE_H
#define CAKEWG_QDISC_AUTORATE_H

#include <stdbool.h>
#include <stdint.h>

#include "qdisc/tcpts.h"

enum cake_autorate_defaults {
	CAKE_AUTORATE_TICK_MS = 50,
	CAKE_AUTORATE_TARGET_US = 5000, /* queueing delay the bottleneck may add */
	CAKE_AUTORATE_MTU_BYTES = 1500, /* raises the target to ... */
	CAKE_AUTORATE_MTUS_IN_TARGET = 4, /* ... this many MTU times at low rates, */
	CAKE_AUTORATE_MTUS_IN_TARGET_SHORT = 2, /* ... this many on a short path (see .c) */
};
#define CAKE_AUTORATE_TICK_NS ((uint64_t)CAKE_AUTORATE_TICK_MS * 1000000u)
/* How often a caller asks cake_autorate_early between ticks. */
#define CAKE_AUTORATE_EARLY_CHECK_NS 1000000ull

/* All rates in bytes per second, as struct cake_options counts them. */
struct cake_autorate_config {
	uint64_t min_rate, max_rate;
	uint64_t start_rate;	   /* 0: the geometric middle of [min, max] */
	uint32_t target_us;	   /* 0: CAKE_AUTORATE_TARGET_US */
	uint32_t mtu_bytes;	   /* 0: CAKE_AUTORATE_MTU_BYTES */
	bool ingress;		   /* shapes arrivals: the senders are remote (see .c) */
};

/* Why the rate last changed. */
enum cake_autorate_reason {
	CAKE_AUTORATE_START = 0, /* the start rate */
	CAKE_AUTORATE_BLOAT,	 /* this direction's one-way delay over the target: cut */
	CAKE_AUTORATE_RTT_BLOAT, /* no one-way delay; RTT over the target, blamed here: cut */
	CAKE_AUTORATE_SETTLE,	 /* the queue drained: back just below the capacity seen */
	CAKE_AUTORATE_PROBE,	 /* shaper-limited and no bloat: up */
	CAKE_AUTORATE_DECAY,	 /* long idle: toward the start rate */
	CAKE_AUTORATE_PATH,	 /* cut, yet the delay stayed: a longer path, rate restored */
	CAKE_AUTORATE_REASONS,
};

/* What the last tick did. */
enum cake_autorate_action {
	CAKE_AUTORATE_CHANGED = 0,
	CAKE_AUTORATE_HOLD_IDLE,      /* the demand, not the shaper, limited the rate */
	CAKE_AUTORATE_HOLD_NO_SIGNAL, /* loaded, but no delay sample: nothing to go by */
	CAKE_AUTORATE_HOLD_DELAY,     /* delay above T/2, or cut and draining: wait */
	CAKE_AUTORATE_HOLD_OTHER,     /* RTT bloated, but the other direction is to blame */
	CAKE_AUTORATE_HOLD_BOUND,     /* would change, but at MIN or MAX already */
	CAKE_AUTORATE_ACTIONS,
};

struct cake_autorate_input {
	struct cake_signal sig; /* this direction's signals since the last tick */
	uint64_t shaped_bytes;	/* bytes the instance's shaper charged since the last tick */
	bool backlogged;	/* the instance has a backlog now */
};

struct cake_autorate_status {
	uint64_t min_rate, max_rate, rate;
	uint64_t capacity;   /* the bottleneck's rate as last seen while bloated, 0 unknown */
	uint32_t target_us;  /* in force at the current rate */
	uint32_t baseline_us; /* minimum path RTT (the delay baseline) */
	uint32_t delay_us;    /* queueing delay of the last tick with a sample */
	bool delay_from_rtt;  /* ... measured on the RTT, as no one-way samples came */
	uint64_t last_change_ns;
	enum cake_autorate_reason reason;
	enum cake_autorate_action action;
	uint64_t changes;
};

struct cake_autorate {
	struct cake_autorate_config cfg;
	uint64_t rate;
	uint64_t capacity;	/* delivered rate while bloated */
	uint64_t bloat_rate;	/* the rate when the last bloat began: probing slows near it */
	uint64_t drain_end_ns;	/* a cut's drain ends then, 0: none (see .c) */
	uint64_t mark_ns;	/* the last cut, or the delay's last fall by T/2 since */
	uint32_t mark_us, floor_us; /* the delay then, and the lowest since the cut */
	uint32_t path_us;	/* a rise of the path's delay taken as baseline (see .c) */
	uint64_t next_ns, last_tick_ns, last_change_ns, busy_ns, owd_seen_ns;
	uint64_t prev_shaped, prev_delivered, prev_reverse, prev_other, prev_dt; /* 2-tick rates */
	uint32_t rtt_base_cur, rtt_base_prev; /* two-window RTT minimum, us */
	uint64_t rtt_window_ns;
	uint32_t delay_us, prev_delay_us;
	uint32_t early_us;	/* the delay that asked for an early tick, for that tick */
	uint32_t rise_streak;	/* probes in a row past B with no queue (see .c) */
	uint64_t recall_rate;	/* a short path's capacity before a drop, 0 none (see .c) */
	uint64_t recall_ns;	/* ... seen then */
	uint64_t cut_from;	/* the capacity seen before this bloat, 0 none */
	bool recalling;		/* climbing back to a recall: the next bloat sets none */
	bool draining, restrained, delay_from_rtt; /* restrained: a deep cut put off */
	enum cake_autorate_reason reason;
	enum cake_autorate_action action;
	uint64_t changes;
};

/*
 * Returns 0, or -EINVAL (and leaves *a alone) if min is 0, min > max, or the start
 * rate lies outside [min, max].
 */
int cake_autorate_init(struct cake_autorate *a, const struct cake_autorate_config *cfg,
		       uint64_t now_ns);

/* One tick: the new rate (bytes/s), always within [min, max]. */
uint64_t cake_autorate_tick(struct cake_autorate *a, const struct cake_autorate_input *in,
			    uint64_t now_ns);

/*
 * The path changed under the controller (another uplink, a new route): the delay
 * baselines it learnt (the RTT minimum, the path's delay rise) belong to the old one.
 * Forgets them, and the delay last seen, so that the next samples start a new baseline;
 * the rate, the capacity seen and the range stay; a recall (a capacity before a
 * drop, see autorate.c) goes with the old path.
 */
void cake_autorate_path_reset(struct cake_autorate *a, uint64_t now_ns);

/* When the next tick is due. */
uint64_t cake_autorate_next_ns(const struct cake_autorate *a);

/*
 * Between ticks, every CAKE_AUTORATE_EARLY_CHECK_NS: whether the one-way delay samples
 * of dir (this controller's direction) that came since the last verdict ask for a tick
 * now, an early one, rather than at cake_autorate_next_ns (see the .c). Reads t with
 * cake_tcpts_peek, starting a new window on every verdict (any sample is enough). On
 * true the caller ticks as usual, every controller sharing t, with now as its time;
 * the controller keeps the delay that asked for it, for that tick (see the .c).
 */
bool cake_autorate_early(struct cake_autorate *a, struct cake_tcpts *t,
			 enum cake_tcpts_dir dir, uint64_t now_ns);

void cake_autorate_get(const struct cake_autorate *a, struct cake_autorate_status *out);

/* Short names for show and logs: "start", "bloat", ...; "hold-idle", ... */
const char *cake_autorate_reason_name(enum cake_autorate_reason r);
const char *cake_autorate_action_name(enum cake_autorate_action a);

#endif
