/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * COBALT as sch_cake runs it: CoDel's control law driven through a cached or
 * Newton-stepped 1/sqrt(count), and a simple BLUE that ignores ECN on purpose.
 */
#include "qdisc/cobalt.h"

#include <string.h>

/*
 * 1/sqrt(count) in 0.32 fixed point for count < COBALT_REC_INV_SQRT_CACHE, produced the
 * way the kernel fills its cache: start from 0xffffffff and take four Newton steps per
 * count, carrying the value from one count to the next. Entries 0 and 1 are both as
 * close to 1.0 as the format allows, so the first signal comes one interval after the
 * queue first exceeds target. test_cobalt recomputes the table with cobalt_newton_step.
 */
static const uint32_t inv_sqrt_cache[COBALT_REC_INV_SQRT_CACHE] = {
	0xffffffff, 0xffffffff, 0xb4ead8a0, 0x93cd39e7, 0x7fffffff, 0x727c9717,
	0x6882f5bf, 0x60c2479b, 0x5a82799a, 0x55555555, 0x50f44d8a, 0x4d2fd8f4,
	0x49e69d17, 0x47006a81, 0x446b3b96, 0x4219528c,
};

/* Signed distance a - b between two monotonic times. */
static int64_t tdiff(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b);
}

/*
 * All zero, rec_inv_sqrt included, as the kernel leaves it: until count first steps,
 * cobalt_control() adds nothing, so a brand-new flow that goes over target is
 * signalled on its next packet instead of one interval later.
 */
void cobalt_vars_init(struct cobalt_vars *vars)
{
	memset(vars, 0, sizeof(*vars));
}

void cobalt_params_blue_defaults(struct cobalt_params *p)
{
	p->p_inc = COBALT_P_INC;
	p->p_dec = COBALT_P_DEC;
}

/*
 * new = (old / 2) * (3 - count * old^2), in 0.32 fixed point; the intermediate is
 * shifted down by two before the last multiply so it cannot overflow 64 bits.
 */
void cobalt_newton_step(struct cobalt_vars *vars)
{
	uint64_t inv = vars->rec_inv_sqrt;
	uint64_t inv2 = (inv * inv) >> 32;
	uint64_t val = (UINT64_C(3) << 32) - (uint64_t)vars->count * inv2;

	val >>= 2;
	val = (val * inv) >> (32 - 2 + 1);
	vars->rec_inv_sqrt = (uint32_t)val;
}

uint32_t cobalt_rec_inv_sqrt_cached(uint32_t count)
{
	return count < COBALT_REC_INV_SQRT_CACHE ? inv_sqrt_cache[count] : 0;
}

static void invsqrt(struct cobalt_vars *vars)
{
	if (vars->count < COBALT_REC_INV_SQRT_CACHE)
		vars->rec_inv_sqrt = inv_sqrt_cache[vars->count];
	else
		cobalt_newton_step(vars);
}

/*
 * interval * rec_inv_sqrt / 2^32 over the full 64-bit interval. The kernel's
 * reciprocal_scale() takes a 32-bit value and would wrap intervals above 4.29 s
 * (rtt presets up to an hour exist), so this keeps the high half too.
 */
uint64_t cobalt_control(uint64_t t_ns, uint64_t interval_ns, uint32_t rec_inv_sqrt)
{
	uint64_t hi = (interval_ns >> 32) * rec_inv_sqrt;
	uint64_t lo = ((interval_ns & UINT32_MAX) * rec_inv_sqrt) >> 32;

	return t_ns + hi + lo;
}

bool cobalt_queue_full(struct cobalt_vars *vars, const struct cobalt_params *p, uint64_t now_ns)
{
	bool up = false;

	if (tdiff(now_ns, vars->blue_timer_ns) > (int64_t)p->target_ns) {
		up = !vars->p_drop;
		vars->p_drop += p->p_inc;
		if (vars->p_drop < p->p_inc) /* saturate instead of wrapping */
			vars->p_drop = UINT32_MAX;
		vars->blue_timer_ns = now_ns;
	}
	vars->dropping = true;
	vars->drop_next_ns = now_ns;
	if (!vars->count)
		vars->count = 1;
	return up;
}

bool cobalt_queue_empty(struct cobalt_vars *vars, const struct cobalt_params *p, uint64_t now_ns)
{
	bool down = false;

	if (vars->p_drop && tdiff(now_ns, vars->blue_timer_ns) > (int64_t)p->target_ns) {
		if (vars->p_drop < p->p_dec)
			vars->p_drop = 0;
		else
			vars->p_drop -= p->p_dec;
		vars->blue_timer_ns = now_ns;
		down = !vars->p_drop;
	}
	vars->dropping = false;

	if (vars->count && tdiff(now_ns, vars->drop_next_ns) >= 0) {
		vars->count--;
		invsqrt(vars);
		vars->drop_next_ns =
			cobalt_control(vars->drop_next_ns, p->interval_ns, vars->rec_inv_sqrt);
	}
	return down;
}

/*
 * The sojourn must exceed target, and also the time a few MTUs need at the tin's rate
 * (so slow links are not signalled for a packet or two in flight), scaled by the
 * number of bulk flows when the caller asks for it (ingress mode).
 */
static bool over_target(const struct cobalt_params *p, uint64_t sojourn_ns, uint32_t bulk_flows)
{
	return sojourn_ns > p->target_ns && sojourn_ns > p->mtu_time_ns * bulk_flows * 2 &&
	       sojourn_ns > p->mtu_time_ns * 4;
}

/* Signal now: step count up and schedule the next signal. Returns now - drop_next. */
static int64_t signal_step(struct cobalt_vars *vars, const struct cobalt_params *p, uint64_t now_ns)
{
	vars->count++;
	if (!vars->count) /* saturate */
		vars->count--;
	invsqrt(vars);
	vars->drop_next_ns = cobalt_control(vars->drop_next_ns, p->interval_ns, vars->rec_inv_sqrt);
	return tdiff(now_ns, vars->drop_next_ns);
}

/*
 * Not signalling: let count decay once for every signal time that has passed.
 * Returns the last now - drop_next it computed, or schedule if it computed none.
 */
static int64_t decay_steps(struct cobalt_vars *vars, const struct cobalt_params *p, uint64_t now_ns,
			   bool next_due, int64_t schedule)
{
	while (next_due) {
		vars->count--;
		invsqrt(vars);
		vars->drop_next_ns =
			cobalt_control(vars->drop_next_ns, p->interval_ns, vars->rec_inv_sqrt);
		schedule = tdiff(now_ns, vars->drop_next_ns);
		next_due = vars->count && schedule >= 0;
	}
	return schedule;
}

/*
 * drop_next does double duty: while count > 0 it is the time of the next signal; with
 * count at zero it is an activity timeout (now + interval), which keeps an idle flow in
 * the decaying rotation until its state has rested. `schedule` (now - drop_next) is
 * taken before any update and refreshed only when count steps, exactly as the kernel
 * does: so a flow that enters the dropping state after its activity timeout expired
 * gets its first signal on the next packet rather than an interval later.
 */
enum cobalt_verdict cobalt_should_drop(struct cobalt_vars *vars, const struct cobalt_params *p,
				       uint64_t now_ns, uint64_t sojourn_ns, uint32_t bulk_flows,
				       bool ect, uint32_t rnd)
{
	int64_t schedule = tdiff(now_ns, vars->drop_next_ns);
	bool next_due = vars->count && schedule >= 0;
	bool drop = false;

	vars->ecn_marked = false;
	if (over_target(p, sojourn_ns, bulk_flows)) {
		if (!vars->dropping) {
			vars->dropping = true;
			vars->drop_next_ns =
				cobalt_control(now_ns, p->interval_ns, vars->rec_inv_sqrt);
		}
		if (!vars->count)
			vars->count = 1;
	} else if (vars->dropping) {
		vars->dropping = false;
	}

	if (next_due && vars->dropping) {
		/* CE-mark an ECN-capable packet, drop any other */
		vars->ecn_marked = ect;
		drop = !ect;
		schedule = signal_step(vars, p, now_ns);
	} else {
		schedule = decay_steps(vars, p, now_ns, next_due, schedule);
	}

	/* BLUE: deliberately blind to ECN, so an unresponsive ECT flood is still cut. */
	if (vars->p_drop && rnd < vars->p_drop)
		drop = true;

	if (!vars->count)
		vars->drop_next_ns = now_ns + p->interval_ns;
	else if (schedule > 0 && !drop)
		vars->drop_next_ns = now_ns;

	if (drop)
		return COBALT_DROP;
	return vars->ecn_marked ? COBALT_MARK : COBALT_PASS;
}
