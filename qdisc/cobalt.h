/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * COBALT: CoDel and BLUE run side by side on one flow queue, as in Linux sch_cake.
 * CoDel (target, interval, control law t + interval / sqrt(count)) answers flows that
 * respond to congestion signals the way TCP does; BLUE (a drop probability raised on
 * queue overflow, lowered when the queue is found empty) bounds flows that do not.
 *
 * Pure: every function works only on the state it is given. Time is a monotonic
 * nanosecond count passed in; BLUE's random draw is passed in too. Nothing here marks
 * or drops a packet: cobalt_should_drop() returns a verdict and the caller acts on it.
 */
#ifndef CAKEWG_QDISC_COBALT_H
#define CAKEWG_QDISC_COBALT_H

#include <stdbool.h>
#include <stdint.h>

#include "qdisc/cake_compiler.h"

enum cobalt_constants {
	/* Exact 1/sqrt(count) values are cached below this count; above it one Newton
	 * step per change of count is accurate enough. */
	COBALT_REC_INV_SQRT_CACHE = 16,
	/* BLUE steps in 0.32 fixed point: +1/256 per overflow, -1/4096 per empty queue. */
	COBALT_P_INC_SHIFT = 24,
	COBALT_P_DEC_SHIFT = 20,
};

#define COBALT_P_INC (UINT32_C(1) << COBALT_P_INC_SHIFT)
#define COBALT_P_DEC (UINT32_C(1) << COBALT_P_DEC_SHIFT)

/*
 * struct cobalt_params - per-tin parameters, set when the rate is configured
 * @interval_ns: CoDel interval: the delay before the first signal, and the scale of
 *               the signalling frequency
 * @target_ns:   acceptable standing sojourn time; also BLUE's minimum update period
 * @mtu_time_ns: serialisation time of one MTU at the tin's rate (0 if unlimited)
 * @p_inc:       BLUE increment of the drop probability (0.32 fixed point)
 * @p_dec:       BLUE decrement of the drop probability (0.32 fixed point)
 */
struct cobalt_params {
	uint64_t interval_ns;
	uint64_t target_ns;
	uint64_t mtu_time_ns;
	uint32_t p_inc;
	uint32_t p_dec;
};

/*
 * struct cobalt_vars - per-flow state
 * @count:        CoDel signalling count (how many signals in this episode)
 * @rec_inv_sqrt: 1/sqrt(count) in 0.32 fixed point
 * @drop_next_ns: when the next signal is due, or (count == 0) an activity timeout
 * @blue_timer_ns: when BLUE last changed p_drop
 * @p_drop:       BLUE drop probability (0.32 fixed point)
 * @dropping:     CoDel is in its signalling state
 * @ecn_marked:   the last cobalt_should_drop() asked for a CE mark
 */
struct cobalt_vars {
	uint32_t count;
	uint32_t rec_inv_sqrt;
	uint64_t drop_next_ns;
	uint64_t blue_timer_ns;
	uint32_t p_drop;
	bool dropping;
	bool ecn_marked;
};

/* What to do with a packet just taken from the head of its queue. */
enum cobalt_verdict {
	COBALT_PASS = 0, /* deliver it unchanged */
	COBALT_MARK,	 /* deliver it with CE set (it is ECN-capable) */
	COBALT_DROP,	 /* drop it: CoDel on a not-ECT packet, or BLUE on any packet */
};

/* Zero the state of a fresh or recycled flow. */
void cobalt_vars_init(struct cobalt_vars *vars);

/* Fill the standard BLUE steps; leaves interval, target and mtu_time alone. */
void cobalt_params_blue_defaults(struct cobalt_params *p);

/*
 * Call this when a packet of the flow had to be dropped because the queue overflowed.
 * Raises p_drop (at most once per target) and arms CoDel's signalling state.
 * Returns true if BLUE was quiescent before and active after this call.
 */
bool cobalt_queue_full(struct cobalt_vars *vars, const struct cobalt_params *p,
		       uint64_t now_ns) CAKE_MUST_CHECK;

/*
 * Call this when the flow was serviced and found empty. Lowers p_drop (at most once
 * per target), leaves the signalling state and lets count decay on schedule.
 * Returns true if BLUE was active before and quiescent after this call.
 */
bool cobalt_queue_empty(struct cobalt_vars *vars, const struct cobalt_params *p,
			uint64_t now_ns) CAKE_MUST_CHECK;

/*
 * Call this with each packet taken from the head of the flow.
 * @sojourn_ns: how long the packet waited in the queue
 * @bulk_flows: scales the "over target" test by 2 * mtu_time per bulk flow (sch_cake
 *              passes the tin's bulk flow count in ingress mode and 0 otherwise)
 * @ect:        the packet is ECN-capable (ECT(0), ECT(1) or already CE)
 * @rnd:        a uniform random 32-bit draw, used only while p_drop is non-zero
 * Returns the verdict. vars->ecn_marked tells whether CoDel asked for a CE mark: it can
 * be set together with COBALT_DROP when BLUE drops a packet CoDel would have marked,
 * which matters to a caller that delivers the last packet of a queue regardless.
 */
enum cobalt_verdict cobalt_should_drop(struct cobalt_vars *vars, const struct cobalt_params *p,
				       uint64_t now_ns, uint64_t sojourn_ns, uint32_t bulk_flows,
				       bool ect, uint32_t rnd);

/* 1/sqrt(count) in 0.32 fixed point as COBALT tracks it, for tests and stats. */
uint32_t cobalt_rec_inv_sqrt_cached(uint32_t count);

/* One Newton step of 1/sqrt(count) from vars->rec_inv_sqrt, exposed for tests. */
void cobalt_newton_step(struct cobalt_vars *vars);

/* t + interval / sqrt(count), with rec_inv_sqrt = 1/sqrt(count) in 0.32 fixed point. */
uint64_t cobalt_control(uint64_t t_ns, uint64_t interval_ns, uint32_t rec_inv_sqrt);

#endif
