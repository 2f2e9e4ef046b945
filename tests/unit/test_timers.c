/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The timers over virtual time. A small stand-in for the send path reacts to actions the
 * way Linux send.c does: sending anything authenticated reports traversal and sent, and
 * sending an initiation also reports handshake_initiated.
 */
#include "src/core/timers.h"

#include <criterion/criterion.h>
#include <string.h>

#include "src/core/clock.h"
#include "src/core/messages.h"
#include "tests/support/det_rng.h"

#define SEC(s) ((uint64_t)(s)*WG_NSEC_PER_SEC)

struct sim {
	struct wg_timers t;
	struct det_rng d;
	struct wg_rng rng;
	uint64_t now;
	/* What the stand-in send path did. */
	unsigned int initiations, keepalives;
	uint64_t last_initiation_ns;
};

static void sim_init(struct sim *s, uint64_t seed)
{
	memset(s, 0, sizeof(*s));
	s->d.state = seed;
	s->rng = det_rng_as_wg(&s->d);
	wg_timers_init(&s->t);
	s->now = SEC(1000); /* not 0, which would read as "disarmed" in some deadlines */
}

static void send_initiation(struct sim *s)
{
	wg_timers_event_any_authenticated_packet_traversal(&s->t, s->now);
	wg_timers_event_any_authenticated_packet_sent(&s->t);
	wg_timers_event_handshake_initiated(&s->t, s->now, &s->rng);
	s->initiations++;
	s->last_initiation_ns = s->now;
}

static void send_keepalive(struct sim *s)
{
	wg_timers_event_any_authenticated_packet_traversal(&s->t, s->now);
	wg_timers_event_any_authenticated_packet_sent(&s->t);
	s->keepalives++;
}

static void send_data(struct sim *s)
{
	wg_timers_event_any_authenticated_packet_traversal(&s->t, s->now);
	wg_timers_event_any_authenticated_packet_sent(&s->t);
	wg_timers_event_data_sent(&s->t, s->now, &s->rng);
}

static void receive_data(struct sim *s)
{
	wg_timers_event_any_authenticated_packet_traversal(&s->t, s->now);
	wg_timers_event_any_authenticated_packet_received(&s->t);
	wg_timers_event_data_received(&s->t, s->now);
}

/* Jumps to the next deadline and runs it; returns the actions (0 if nothing is armed). */
static unsigned int sim_next(struct sim *s)
{
	uint64_t next = wg_timers_next_deadline(&s->t);

	if (!next)
		return 0;
	cr_assert_geq(next, s->now, "a deadline in the past");
	s->now = next;
	return wg_timers_run(&s->t, s->now);
}

/* The stand-in send path acting on the actions. */
static void sim_act(struct sim *s, unsigned int actions)
{
	if (actions & WG_TIMERS_SEND_HANDSHAKE)
		send_initiation(s);
	if (actions & WG_TIMERS_SEND_ANY_KEEPALIVE)
		send_keepalive(s);
}

Test(timers, nothing_armed_at_start)
{
	struct sim s;

	sim_init(&s, 1);
	cr_expect_eq(wg_timers_next_deadline(&s.t), 0);
	cr_expect_eq(wg_timers_run(&s.t, SEC(1e6)), 0);
}

Test(timers, keepalive_10s_after_data_received)
{
	struct sim s;
	uint64_t start;

	sim_init(&s, 2);
	start = s.now;
	receive_data(&s);
	cr_expect_eq(wg_timers_next_deadline(&s.t), start + KEEPALIVE_TIMEOUT_NS);
	cr_expect_eq(wg_timers_run(&s.t, start + KEEPALIVE_TIMEOUT_NS - 1), 0, "1 ns early");
	cr_expect_eq(sim_next(&s), WG_TIMERS_SEND_KEEPALIVE);
	cr_expect_eq(s.now - start, SEC(10));
	cr_expect_eq(wg_timers_next_deadline(&s.t), 0, "one keepalive, then quiet");
}

Test(timers, no_keepalive_when_we_answered)
{
	struct sim s;

	sim_init(&s, 3);
	receive_data(&s);
	s.now += SEC(3);
	send_data(&s); /* our answer carries the acknowledgement */
	cr_expect_eq(s.t.deadline_ns[WG_TIMER_SEND_KEEPALIVE], 0);
	cr_expect_eq(sim_next(&s), WG_TIMERS_NEW_HANDSHAKE | WG_TIMERS_CLEAR_ENDPOINT_SRC,
		     "only the unanswered data remains to act on");
}

/* Data kept coming while the keepalive was pending: Linux arms one more. */
Test(timers, another_keepalive_when_data_kept_coming)
{
	struct sim s;
	uint64_t start;

	sim_init(&s, 4);
	start = s.now;
	receive_data(&s);
	s.now += SEC(4);
	receive_data(&s);
	cr_expect_eq(wg_timers_next_deadline(&s.t), start + SEC(10), "not pushed back");
	cr_expect_eq(sim_next(&s), WG_TIMERS_SEND_KEEPALIVE);
	cr_expect_eq(wg_timers_next_deadline(&s.t), start + SEC(20), "one more armed");
	cr_expect_eq(sim_next(&s), WG_TIMERS_SEND_KEEPALIVE);
	cr_expect_eq(wg_timers_next_deadline(&s.t), 0, "and only one");

	/*
	 * As in Linux, actually sending the first keepalive counts as an authenticated packet
	 * sent, which cancels the extra one again.
	 */
	sim_init(&s, 4);
	receive_data(&s);
	s.now += SEC(4);
	receive_data(&s);
	sim_act(&s, sim_next(&s));
	cr_expect_eq(s.keepalives, 1);
	cr_expect_eq(wg_timers_next_deadline(&s.t), 0);
}

Test(timers, handshake_retries_every_5s_then_gives_up)
{
	struct sim s;
	uint64_t start, min_gap = UINT64_MAX, max_gap = 0;
	unsigned int retries = 0, actions;

	sim_init(&s, 5);
	start = s.now;
	wg_timers_event_handshake_requested(&s.t);
	send_initiation(&s);
	for (;;) {
		uint64_t sent = s.last_initiation_ns, gap;

		actions = sim_next(&s);
		cr_assert_neq(actions, 0, "the retransmit timer must be armed");
		if (actions & WG_TIMERS_GIVE_UP)
			break;
		cr_assert_eq(actions, WG_TIMERS_RETRY_HANDSHAKE | WG_TIMERS_CLEAR_ENDPOINT_SRC);
		gap = s.now - sent;
		cr_assert_geq(gap, REKEY_TIMEOUT_NS);
		cr_assert_lt(gap, REKEY_TIMEOUT_NS + REKEY_TIMEOUT_JITTER_MAX_NS);
		min_gap = gap < min_gap ? gap : min_gap;
		max_gap = gap > max_gap ? gap : max_gap;
		cr_assert_eq(s.t.handshake_attempts, ++retries);
		sim_act(&s, actions);
		if (retries == MAX_TIMER_HANDSHAKES + 1)
			receive_data(&s); /* a keepalive is pending when it gives up */
	}
	cr_expect_eq(actions, WG_TIMERS_GIVE_UP);
	cr_expect_eq(retries, MAX_TIMER_HANDSHAKES + 1);
	cr_expect_eq(s.initiations, MAX_TIMER_HANDSHAKES + 2, "20 initiations in all, as Linux");
	cr_expect_geq(s.last_initiation_ns - start, REKEY_ATTEMPT_TIME_NS, "retried for 90 s");
	cr_expect_geq(s.now - start, 20 * REKEY_TIMEOUT_NS);
	cr_expect_lt(s.now - start, 20 * (REKEY_TIMEOUT_NS + REKEY_TIMEOUT_JITTER_MAX_NS));
	cr_expect_gt(max_gap - min_gap, REKEY_TIMEOUT_JITTER_MAX_NS / 4, "jitter varies");

	/* Giving up cancels the keepalive and leaves only the key wipe, 540 s later. */
	cr_expect_eq(s.t.deadline_ns[WG_TIMER_SEND_KEEPALIVE], 0);
	cr_expect_eq(s.t.deadline_ns[WG_TIMER_RETRANSMIT_HANDSHAKE], 0);
	cr_expect_eq(wg_timers_next_deadline(&s.t), s.now + ZERO_KEYS_AFTER_TIME_NS);
	cr_expect_eq(sim_next(&s), WG_TIMERS_ZERO_KEY_MATERIAL);
	cr_expect_eq(wg_timers_next_deadline(&s.t), 0, "and then nothing");
}

/* A key wipe already pending is not postponed by giving up. */
Test(timers, give_up_keeps_a_pending_key_wipe)
{
	struct sim s;
	uint64_t wipe;
	unsigned int actions;

	sim_init(&s, 6);
	wg_timers_event_session_derived(&s.t, s.now);
	wipe = s.now + ZERO_KEYS_AFTER_TIME_NS;
	send_initiation(&s);
	while (!((actions = sim_next(&s)) & WG_TIMERS_GIVE_UP))
		sim_act(&s, actions);
	cr_expect_eq(s.t.deadline_ns[WG_TIMER_ZERO_KEY_MATERIAL], wipe);
}

Test(timers, handshake_complete_stops_retries)
{
	struct sim s;
	uint64_t done;

	sim_init(&s, 7);
	send_initiation(&s);
	sim_act(&s, sim_next(&s));
	sim_act(&s, sim_next(&s));
	cr_expect_eq(s.t.handshake_attempts, 2);
	s.t.sent_lastminute_handshake = true;
	s.now += SEC(1);
	done = s.now;
	wg_timers_event_handshake_complete(&s.t, s.now);
	cr_expect_eq(s.t.handshake_attempts, 0);
	cr_expect_eq(s.t.last_handshake_ns, done);
	cr_expect_not(s.t.sent_lastminute_handshake);
	cr_expect_eq(wg_timers_next_deadline(&s.t), 0, "no retransmission left");
	cr_expect_eq(s.initiations, 3);
}

Test(timers, new_handshake_15s_after_unanswered_data)
{
	struct sim s;
	uint64_t start, deadline;

	sim_init(&s, 8);
	start = s.now;
	send_data(&s);
	deadline = wg_timers_next_deadline(&s.t);
	cr_expect_geq(deadline - start, NEW_HANDSHAKE_AFTER_TIME_NS);
	cr_expect_lt(deadline - start, NEW_HANDSHAKE_AFTER_TIME_NS + REKEY_TIMEOUT_JITTER_MAX_NS);
	s.now += SEC(7);
	send_data(&s);
	cr_expect_eq(wg_timers_next_deadline(&s.t), deadline, "more data does not postpone it");
	cr_expect_eq(sim_next(&s), WG_TIMERS_NEW_HANDSHAKE | WG_TIMERS_CLEAR_ENDPOINT_SRC);
	cr_expect_eq(s.now, deadline);

	/* Anything authenticated coming back in time cancels it. */
	sim_init(&s, 8);
	send_data(&s);
	s.now += SEC(14);
	wg_timers_event_any_authenticated_packet_received(&s.t);
	cr_expect_eq(wg_timers_next_deadline(&s.t), 0);
}

/* The new-handshake expiry starts a fresh handshake: the retry count restarts. */
Test(timers, new_handshake_restarts_attempt_count)
{
	struct sim s;
	unsigned int actions;

	sim_init(&s, 9);
	send_data(&s);
	send_initiation(&s);
	do {
		actions = sim_next(&s);
		if (actions & WG_TIMERS_RETRY_HANDSHAKE)
			cr_expect_gt(s.t.handshake_attempts, 0);
		sim_act(&s, actions);
	} while (!(actions & WG_TIMERS_NEW_HANDSHAKE));
	cr_expect_eq(s.t.handshake_attempts, 0);
	cr_expect_geq(s.initiations, 3, "two retries came before the 15 s mark");

	/* The caller's own fresh handshakes restart it too. */
	s.t.handshake_attempts = 9;
	wg_timers_event_handshake_requested(&s.t);
	cr_expect_eq(s.t.handshake_attempts, 0);
}

Test(timers, keys_zeroed_540s_after_last_session)
{
	struct sim s;
	uint64_t start;

	sim_init(&s, 10);
	start = s.now;
	wg_timers_event_session_derived(&s.t, s.now);
	cr_expect_eq(wg_timers_next_deadline(&s.t), start + SEC(540));
	s.now += SEC(100);
	wg_timers_event_session_derived(&s.t, s.now);
	cr_expect_eq(wg_timers_run(&s.t, start + SEC(540)), 0, "a new session postpones it");
	cr_expect_eq(sim_next(&s), WG_TIMERS_ZERO_KEY_MATERIAL);
	cr_expect_eq(s.now, start + SEC(640));
	cr_expect_eq(wg_timers_next_deadline(&s.t), 0);
}

Test(timers, persistent_keepalive_every_interval)
{
	struct sim s;
	uint64_t last;

	sim_init(&s, 11);
	cr_expect_eq(wg_timers_event_persistent_keepalive_set(&s.t, 25),
		     WG_TIMERS_SEND_PERSISTENT_KEEPALIVE, "turning it on sends one at once");
	sim_act(&s, WG_TIMERS_SEND_PERSISTENT_KEEPALIVE);
	for (int i = 0; i < 10; i++) {
		last = s.now;
		cr_expect_eq(sim_next(&s), WG_TIMERS_SEND_PERSISTENT_KEEPALIVE);
		cr_expect_eq(s.now - last, SEC(25), "round %d", i);
		sim_act(&s, WG_TIMERS_SEND_PERSISTENT_KEEPALIVE);
	}
	cr_expect_eq(s.keepalives, 11);
	cr_expect_eq(wg_timers_event_persistent_keepalive_set(&s.t, 25), 0, "already on");
	cr_expect_eq(wg_timers_event_persistent_keepalive_set(&s.t, 40), 0, "still on");
	cr_expect_eq(wg_timers_next_deadline(&s.t), s.now + SEC(25),
		     "applies from the next packet");

	/* Any authenticated traffic restarts the interval. */
	s.now += SEC(10);
	wg_timers_event_any_authenticated_packet_traversal(&s.t, s.now);
	cr_expect_eq(wg_timers_next_deadline(&s.t), s.now + SEC(40));

	cr_expect_eq(wg_timers_event_persistent_keepalive_set(&s.t, 0), 0);
	cr_expect_eq(wg_timers_next_deadline(&s.t), 0, "off: nothing to wake for");
	wg_timers_event_any_authenticated_packet_traversal(&s.t, s.now);
	cr_expect_eq(wg_timers_next_deadline(&s.t), 0, "off: traffic arms nothing");
}

/* Jitter is drawn from the RNG, stays in [0, 1/3 s) and spreads over that range. */
Test(timers, jitter_bounds_and_spread)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	struct sim s;

	sim_init(&s, 12);
	for (int i = 0; i < 2000; i++) {
		uint64_t j;

		wg_timers_event_handshake_initiated(&s.t, s.now, &s.rng);
		j = s.t.deadline_ns[WG_TIMER_RETRANSMIT_HANDSHAKE] - s.now - REKEY_TIMEOUT_NS;
		cr_assert_lt(j, REKEY_TIMEOUT_JITTER_MAX_NS);
		lo = j < lo ? j : lo;
		hi = j > hi ? j : hi;

		wg_timers_event_any_authenticated_packet_received(&s.t);
		wg_timers_event_data_sent(&s.t, s.now, &s.rng);
		j = s.t.deadline_ns[WG_TIMER_NEW_HANDSHAKE] - s.now - NEW_HANDSHAKE_AFTER_TIME_NS;
		cr_assert_lt(j, REKEY_TIMEOUT_JITTER_MAX_NS);
	}
	cr_expect_lt(lo, REKEY_TIMEOUT_JITTER_MAX_NS / 50);
	cr_expect_gt(hi, REKEY_TIMEOUT_JITTER_MAX_NS - REKEY_TIMEOUT_JITTER_MAX_NS / 50);
}

Test(timers, stop_disarms_everything)
{
	struct sim s;

	sim_init(&s, 13);
	cr_expect_eq(wg_timers_event_persistent_keepalive_set(&s.t, 5),
		     (unsigned int)WG_TIMERS_SEND_PERSISTENT_KEEPALIVE);
	receive_data(&s);
	send_data(&s);
	receive_data(&s);
	send_initiation(&s);
	wg_timers_event_session_derived(&s.t, s.now);
	cr_expect_neq(wg_timers_next_deadline(&s.t), 0);
	wg_timers_stop(&s.t);
	cr_expect_eq(wg_timers_next_deadline(&s.t), 0);
	cr_expect_eq(wg_timers_run(&s.t, s.now + SEC(10000)), 0);
	cr_expect_eq(s.t.persistent_keepalive_interval_secs, 5, "the setting stays");
}

/*
 * A late wake-up with several timers due fires them in deadline order, as the kernel would
 * have at their own times; the order shows where one expiry changes what another does.
 */
Test(timers, late_run_fires_in_deadline_order)
{
	struct sim s;

	/* The new-handshake expiry restarts the count before the retransmit looks at it. */
	sim_init(&s, 15);
	s.t.handshake_attempts = MAX_TIMER_HANDSHAKES + 1;
	s.t.deadline_ns[WG_TIMER_NEW_HANDSHAKE] = s.now + SEC(1);
	s.t.deadline_ns[WG_TIMER_RETRANSMIT_HANDSHAKE] = s.now + SEC(2);
	cr_expect_eq(wg_timers_run(&s.t, s.now + SEC(3)),
		     WG_TIMERS_SEND_HANDSHAKE | WG_TIMERS_CLEAR_ENDPOINT_SRC);
	cr_expect_eq(s.t.handshake_attempts, 1);

	/* Swapped: the retransmit gives up first, then a fresh handshake begins. */
	sim_init(&s, 15);
	s.t.handshake_attempts = MAX_TIMER_HANDSHAKES + 1;
	s.t.deadline_ns[WG_TIMER_RETRANSMIT_HANDSHAKE] = s.now + SEC(1);
	s.t.deadline_ns[WG_TIMER_NEW_HANDSHAKE] = s.now + SEC(2);
	cr_expect_eq(wg_timers_run(&s.t, s.now + SEC(3)),
		     WG_TIMERS_GIVE_UP | WG_TIMERS_NEW_HANDSHAKE | WG_TIMERS_CLEAR_ENDPOINT_SRC);
	cr_expect_eq(s.t.handshake_attempts, 0);

	/* A keepalive due before the give-up is still sent; one due after is cancelled. */
	sim_init(&s, 15);
	s.t.handshake_attempts = MAX_TIMER_HANDSHAKES + 1;
	s.t.deadline_ns[WG_TIMER_SEND_KEEPALIVE] = s.now + SEC(1);
	s.t.deadline_ns[WG_TIMER_RETRANSMIT_HANDSHAKE] = s.now + SEC(2);
	cr_expect_eq(wg_timers_run(&s.t, s.now + SEC(3)),
		     WG_TIMERS_SEND_KEEPALIVE | WG_TIMERS_GIVE_UP);
	sim_init(&s, 15);
	s.t.handshake_attempts = MAX_TIMER_HANDSHAKES + 1;
	s.t.deadline_ns[WG_TIMER_RETRANSMIT_HANDSHAKE] = s.now + SEC(1);
	s.t.deadline_ns[WG_TIMER_SEND_KEEPALIVE] = s.now + SEC(2);
	cr_expect_eq(wg_timers_run(&s.t, s.now + SEC(3)), WG_TIMERS_GIVE_UP);
}

/* ---- Random event streams: next_deadline is exact and run acts exactly then. ---- */

static uint64_t earliest_armed(const struct wg_timers *t)
{
	uint64_t best = 0;

	for (int i = 0; i < WG_TIMER_COUNT; i++) {
		if (t->deadline_ns[i] && (!best || t->deadline_ns[i] < best))
			best = t->deadline_ns[i];
	}
	return best;
}

static void random_event(struct sim *s)
{
	switch (det_rng_next(&s->d) % 11) {
	case 0:
		send_data(s);
		break;
	case 1:
		receive_data(s);
		break;
	case 2:
		send_keepalive(s);
		break;
	case 3:
		wg_timers_event_any_authenticated_packet_received(&s->t);
		break;
	case 4:
		wg_timers_event_handshake_requested(&s->t);
		send_initiation(s);
		break;
	case 5:
		wg_timers_event_handshake_complete(&s->t, s->now);
		break;
	case 6:
		wg_timers_event_session_derived(&s->t, s->now);
		break;
	case 7:
		sim_act(s, wg_timers_event_persistent_keepalive_set(
				   &s->t, (uint16_t)(det_rng_next(&s->d) % 3 * 7)));
		break;
	default:
		break; /* quiet */
	}
}

Test(timers, next_deadline_is_the_earliest_armed)
{
	struct sim s;
	unsigned int fired = 0;

	sim_init(&s, 14);
	for (int step = 0; step < 20000; step++) {
		uint64_t next, later = s.now + det_rng_next(&s.d) % SEC(20);
		unsigned int actions;

		random_event(&s);
		next = wg_timers_next_deadline(&s.t);
		cr_assert_eq(next, earliest_armed(&s.t), "step %d", step);
		if (!next || later < next) {
			struct wg_timers before = s.t;

			cr_assert_eq(wg_timers_run(&s.t, later), 0, "nothing is due yet");
			cr_assert_arr_eq(&s.t, &before, sizeof(before), "and nothing changed");
			s.now = later;
			continue;
		}
		s.now = later;
		actions = wg_timers_run(&s.t, s.now);
		for (int i = 0; i < WG_TIMER_COUNT; i++)
			cr_assert(!s.t.deadline_ns[i] || s.t.deadline_ns[i] > s.now,
				  "timer %d still due after run", i);
		fired += actions != 0;
		sim_act(&s, actions);
	}
	cr_expect_gt(fired, 1000, "the stream exercised the expiries");
}
