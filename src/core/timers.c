/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The timer state machine. Each event and each expiry below does what its namesake in
 * Linux drivers/net/wireguard/timers.c does to the kernel timers, with mod_timer() as
 * "set the deadline", del_timer() as "clear it" and timer_pending() as "it is set". The
 * expiry handlers (expire_*) are what the kernel's wg_expired_* callbacks do to the
 * peer's timer state; what they would send or wipe is returned as actions instead.
 */
#include "src/core/timers.h"

#include <string.h>

#include "src/core/clock.h"
#include "src/core/messages.h"

static uint64_t jitter_ns(const struct wg_rng *rng)
{
	uint64_t r;

	/* Uniform enough: the modulo bias is below 2^-34. */
	wg_rng_fill(rng, &r, sizeof(r));
	return r % REKEY_TIMEOUT_JITTER_MAX_NS;
}

static void arm(struct wg_timers *t, enum wg_timers_id id, uint64_t deadline_ns)
{
	t->deadline_ns[id] = deadline_ns;
}

static void disarm(struct wg_timers *t, enum wg_timers_id id)
{
	t->deadline_ns[id] = 0;
}

static bool pending(const struct wg_timers *t, enum wg_timers_id id)
{
	return t->deadline_ns[id] != 0;
}

/* Linux wg_expired_retransmit_handshake. */
static unsigned int expire_retransmit_handshake(struct wg_timers *t, uint64_t now_ns)
{
	if (t->handshake_attempts > MAX_TIMER_HANDSHAKES) {
		disarm(t, WG_TIMER_SEND_KEEPALIVE);
		/* Destroy whatever residue the partial exchange left, eventually. */
		if (!pending(t, WG_TIMER_ZERO_KEY_MATERIAL))
			arm(t, WG_TIMER_ZERO_KEY_MATERIAL, now_ns + ZERO_KEYS_AFTER_TIME_NS);
		return WG_TIMERS_GIVE_UP;
	}
	t->handshake_attempts++;
	return WG_TIMERS_RETRY_HANDSHAKE | WG_TIMERS_CLEAR_ENDPOINT_SRC;
}

/* Linux wg_expired_send_keepalive. */
static unsigned int expire_send_keepalive(struct wg_timers *t, uint64_t now_ns)
{
	if (t->need_another_keepalive) {
		t->need_another_keepalive = false;
		arm(t, WG_TIMER_SEND_KEEPALIVE, now_ns + KEEPALIVE_TIMEOUT_NS);
	}
	return WG_TIMERS_SEND_KEEPALIVE;
}

/* Linux wg_expired_new_handshake: a fresh handshake, hence not a retry. */
static unsigned int expire_new_handshake(struct wg_timers *t, uint64_t now_ns)
{
	(void)now_ns;
	wg_timers_event_handshake_requested(t);
	return WG_TIMERS_NEW_HANDSHAKE | WG_TIMERS_CLEAR_ENDPOINT_SRC;
}

/* Linux wg_expired_zero_key_material. */
static unsigned int expire_zero_key_material(struct wg_timers *t, uint64_t now_ns)
{
	(void)t;
	(void)now_ns;
	return WG_TIMERS_ZERO_KEY_MATERIAL;
}

/* Linux wg_expired_send_persistent_keepalive. */
static unsigned int expire_persistent_keepalive(struct wg_timers *t, uint64_t now_ns)
{
	(void)now_ns;
	return t->persistent_keepalive_interval_secs ? WG_TIMERS_SEND_PERSISTENT_KEEPALIVE : 0;
}

static unsigned int (*const expire[WG_TIMER_COUNT])(struct wg_timers *, uint64_t) = {
	[WG_TIMER_RETRANSMIT_HANDSHAKE] = expire_retransmit_handshake,
	[WG_TIMER_SEND_KEEPALIVE] = expire_send_keepalive,
	[WG_TIMER_NEW_HANDSHAKE] = expire_new_handshake,
	[WG_TIMER_ZERO_KEY_MATERIAL] = expire_zero_key_material,
	[WG_TIMER_PERSISTENT_KEEPALIVE] = expire_persistent_keepalive,
};

void wg_timers_init(struct wg_timers *t)
{
	memset(t, 0, sizeof(*t));
}

void wg_timers_stop(struct wg_timers *t)
{
	memset(t->deadline_ns, 0, sizeof(t->deadline_ns));
}

void wg_timers_event_data_sent(struct wg_timers *t, uint64_t now_ns, const struct wg_rng *rng)
{
	if (!pending(t, WG_TIMER_NEW_HANDSHAKE))
		arm(t, WG_TIMER_NEW_HANDSHAKE,
		    now_ns + NEW_HANDSHAKE_AFTER_TIME_NS + jitter_ns(rng));
}

void wg_timers_event_data_received(struct wg_timers *t, uint64_t now_ns)
{
	if (!pending(t, WG_TIMER_SEND_KEEPALIVE))
		arm(t, WG_TIMER_SEND_KEEPALIVE, now_ns + KEEPALIVE_TIMEOUT_NS);
	else
		t->need_another_keepalive = true;
}

void wg_timers_event_any_authenticated_packet_sent(struct wg_timers *t)
{
	disarm(t, WG_TIMER_SEND_KEEPALIVE);
}

void wg_timers_event_any_authenticated_packet_received(struct wg_timers *t)
{
	disarm(t, WG_TIMER_NEW_HANDSHAKE);
}

void wg_timers_event_any_authenticated_packet_traversal(struct wg_timers *t, uint64_t now_ns)
{
	if (t->persistent_keepalive_interval_secs)
		arm(t, WG_TIMER_PERSISTENT_KEEPALIVE,
		    now_ns + t->persistent_keepalive_interval_secs * WG_NSEC_PER_SEC);
}

void wg_timers_event_handshake_requested(struct wg_timers *t)
{
	t->handshake_attempts = 0;
}

void wg_timers_event_handshake_initiated(struct wg_timers *t, uint64_t now_ns,
					 const struct wg_rng *rng)
{
	arm(t, WG_TIMER_RETRANSMIT_HANDSHAKE, now_ns + REKEY_TIMEOUT_NS + jitter_ns(rng));
}

void wg_timers_event_handshake_complete(struct wg_timers *t, uint64_t now_ns)
{
	disarm(t, WG_TIMER_RETRANSMIT_HANDSHAKE);
	t->handshake_attempts = 0;
	t->sent_lastminute_handshake = false;
	t->last_handshake_ns = now_ns;
}

void wg_timers_event_session_derived(struct wg_timers *t, uint64_t now_ns)
{
	arm(t, WG_TIMER_ZERO_KEY_MATERIAL, now_ns + ZERO_KEYS_AFTER_TIME_NS);
}

unsigned int wg_timers_event_persistent_keepalive_set(struct wg_timers *t, uint16_t interval_secs)
{
	bool turned_on = !t->persistent_keepalive_interval_secs && interval_secs;

	t->persistent_keepalive_interval_secs = interval_secs;
	/* Linux leaves the timer to fire as a no-op; not waking at all is the same. */
	if (!interval_secs)
		disarm(t, WG_TIMER_PERSISTENT_KEEPALIVE);
	return turned_on ? WG_TIMERS_SEND_PERSISTENT_KEEPALIVE : 0;
}

uint64_t wg_timers_next_deadline(const struct wg_timers *t)
{
	uint64_t next = 0;

	for (int id = 0; id < WG_TIMER_COUNT; id++) {
		uint64_t d = t->deadline_ns[id];

		if (d && (!next || d < next))
			next = d;
	}
	return next;
}

/* The armed timer with the earliest deadline at or before now_ns, or WG_TIMER_COUNT. */
static enum wg_timers_id earliest_due(const struct wg_timers *t, uint64_t now_ns)
{
	enum wg_timers_id due = WG_TIMER_COUNT;

	for (int id = 0; id < WG_TIMER_COUNT; id++) {
		uint64_t d = t->deadline_ns[id];

		if (d && d <= now_ns && (due == WG_TIMER_COUNT || d < t->deadline_ns[due]))
			due = (enum wg_timers_id)id;
	}
	return due;
}

unsigned int wg_timers_run(struct wg_timers *t, uint64_t now_ns)
{
	unsigned int actions = 0;
	enum wg_timers_id id;

	/*
	 * Handlers only arm deadlines after now_ns, so each pass retires one due timer and
	 * the loop ends after at most WG_TIMER_COUNT passes.
	 */
	while ((id = earliest_due(t, now_ns)) != WG_TIMER_COUNT) {
		disarm(t, id);
		actions |= expire[id](t, now_ns);
	}
	return actions;
}
